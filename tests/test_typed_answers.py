"""Any text typed into an answer box gets a verdict or "could not read", never an exception.

The typed-answer reader (``dplearn.exercises._expressions``) is fuzzed with hypothesis:
any string up to its length limit, and strings made of the pieces formulas are made of
(digits, operators, brackets, the known names), so that the fuzz reaches deep into the
parser. Every exercise kind's check is fuzzed the same way. The grader then reports
what was written that is not an answer: a letter that is no option ("not an option:
z"), text it could not read ("could not read").
"""

import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dplearn import exercises
from dplearn.exercises._expressions import (
    CONSTANTS,
    FUNCTIONS,
    MAX_LENGTH,
    NotReadable,
    read_function,
    read_number,
)

ALL = exercises.load_all()
ONE_OF_EACH_KIND = {
    kind: next(item for item in ALL.values() if item.kind == kind) for kind in exercises.KINDS
}
STATUSES = {
    exercises.CORRECT,
    exercises.MISTAKE,
    exercises.NOT_YET,
    exercises.NO_ANSWER,
    exercises.UNREADABLE,
}
FUZZ = settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)

PIECES = [
    *"0123456789",
    ".",
    "e",
    "E",
    "+",
    "-",
    "*",
    "/",
    "^",
    "**",
    "%",
    "(",
    ")",
    ",",
    " ",
    "_",
    "−",
    "×",
    "·",
    "÷",
    "lambda x, y:",
    "epsilon",
    "sigma",
    *FUNCTIONS,
    *CONSTANTS,
    "9" * 40,
    "(" * 30,
    ")" * 30,
    "-" * 30,
    "\x00",
]
#: Texts made of the pieces of formulas, up to the reader's length limit.
FORMULA_LIKE = (
    st.lists(st.sampled_from(PIECES), max_size=120).map("".join).map(lambda text: text[:MAX_LENGTH])
)
ANY_TEXT = st.text(max_size=MAX_LENGTH)


def read_or_refuse(reader, text, *args):
    """The reader's value, or None when it refuses the text with NotReadable."""
    try:
        return reader(text, *args)
    except NotReadable as problem:
        assert str(problem), repr(text)
        return None


@FUZZ
@given(st.one_of(ANY_TEXT, FORMULA_LIKE))
def test_the_reader_returns_a_number_or_refuses_any_text(text):
    value = read_or_refuse(read_number, text)
    assert value is None or isinstance(value, float), (text, value)


@FUZZ
@given(st.one_of(ANY_TEXT, FORMULA_LIKE))
def test_the_function_reader_returns_a_function_or_refuses_any_text(text):
    function = read_or_refuse(read_function, text, ("epsilon", "sigma"))
    if function is not None:
        value = function(1.0, 0.5)
        assert isinstance(value, float), (text, value)


@pytest.mark.parametrize("kind", list(ONE_OF_EACH_KIND))
def test_every_kind_of_exercise_gives_any_typed_text_a_verdict(kind):
    exercise = ONE_OF_EACH_KIND[kind]

    @FUZZ
    @given(st.one_of(ANY_TEXT, FORMULA_LIKE))
    def check(text):
        result = exercise.check(text)
        assert result.status in STATUSES and result.message, (text, result)
        assert result.verdict, result
        # The grader reads the record again and comes to the same verdict.
        again = exercise.check_recorded(result.recorded)
        assert again.verdict == result.verdict or result.status == exercises.NO_ANSWER

    check()


def test_a_number_of_400_digits_is_could_not_read_not_an_overflow():
    exercise = ONE_OF_EACH_KIND["number"]
    for text in ("9" * MAX_LENGTH, "1" + "0" * 399, "-" + "7" * 399, "2 * " + "3" * 396):
        result = exercise.check(text)
        assert result.status == exercises.UNREADABLE, (text[:12], result)
        assert result.verdict == "could not read" and "too large" in result.message
    # A number within a float's range still reads, and a large one as a power too.
    assert math.isclose(read_number("1" + "0" * 300), 1e300)
    assert read_number("10^400") == math.inf


def test_brackets_nested_too_deep_are_refused_with_a_reason():
    for text in ("(" * 199 + "1" + ")" * 199, "-" * 399 + "1", "2**" * 133 + "2"):
        value = read_or_refuse(read_number, text)
        assert value is None or isinstance(value, float)


def test_a_letter_that_is_no_option_is_graded_not_an_option():
    exercise = ONE_OF_EACH_KIND["choice"]
    result = exercise.check("z")
    assert result.status == exercises.UNREADABLE and not result.attempted
    assert result.verdict == "not an option: z" and "'z' is not an option" in result.message
    assert exercise.check_recorded(result.recorded).verdict == "not an option: z"
    assert exercise.check(3).verdict == "not an option: 3"
    long = exercise.check("a very long answer that is surely none of the options")
    assert long.verdict.startswith("not an option: a very long") and len(long.verdict) < 45
    # Nothing written is still "no answer".
    assert exercise.check(None).verdict == exercise.check("  ").verdict == "no answer"


def test_unreadable_text_and_non_functions_say_so():
    number = ONE_OF_EACH_KIND["number"]
    assert number.check("two and a half").verdict == "could not read"
    assert number.check([1.0, 2.0]).verdict == "could not read"
    function = ONE_OF_EACH_KIND["function"]
    assert function.check("((").verdict == "could not read"
    result = function.check(1.5)
    assert result.verdict == "not a function"
    assert function.check_recorded(result.recorded).verdict == "not a function"


def test_a_decimal_comma_from_code_gets_the_same_hint_as_in_the_box():
    number = ONE_OF_EACH_KIND["number"]
    typed = number.check("1000,185")
    from_code = number.check((1000, 185))  # what `answer = 1000,185` makes
    assert "write '1000,185' with a decimal point: 1000.185" in typed.message
    assert "write '1000,185' with a decimal point: 1000.185" in from_code.message
    assert from_code.status == exercises.UNREADABLE and not from_code.attempted
    assert "two numbers" in from_code.message
    # The grader re-reads it as written, to the same hint.
    again = number.check_recorded(from_code.recorded)
    assert "with a decimal point: 1000.185" in again.message
    assert again.verdict == from_code.verdict == "could not read"


@pytest.mark.parametrize("pair", [(3.5, 2.0), (3, -5), (True, 5), (1, 2, 3), [1000, 185]])
def test_two_numbers_that_are_no_decimal_comma_get_the_count(pair):
    result = ONE_OF_EACH_KIND["number"].check(pair)
    assert result.status == exercises.UNREADABLE
    assert result.message.startswith("Expected one number, got"), result.message
    assert "decimal point" not in result.message
