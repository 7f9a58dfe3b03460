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
    "Φ",
    "⁻¹",
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


# ------------------------------------------------------- the inverse of Phi (quantiles)

PROBABILITIES = [1e-300, 1e-30, 1e-10, 1e-5, 0.001, 0.025, 0.05, 0.3, 0.5, 0.7, 0.95, 0.975]
PROBABILITIES += [0.999, 1 - 1e-10]


def _mpmath_quantile(probability):
    """Phi^-1(p) as mpmath's root of ln Phi(x) = ln p, at 60 digits.

    The logarithm keeps the far tail (p = 1e-300) well scaled; above 1/2 the root is
    found in the upper tail, ln Phi(-x) = ln(1 - p), with 1 - p exact in mpmath.
    """
    import mpmath

    with mpmath.workdps(60):
        upper = probability > 0.5
        tail = 1 - mpmath.mpf(probability) if upper else mpmath.mpf(probability)
        target = mpmath.log(tail)
        # A start from the tail's asymptote, -sqrt(-2 ln p), or 0 near the middle.
        start = -mpmath.sqrt(-2 * target) if tail < 0.1 else mpmath.mpf(0)
        root = mpmath.findroot(lambda x: mpmath.log(mpmath.ncdf(x)) - target, start)
        return float(-root if upper else root)


@pytest.mark.parametrize("probability", PROBABILITIES)
def test_phi_inverse_matches_mpmath(probability):
    expected = _mpmath_quantile(probability)
    for name in ("Phi_inv", "invPhi"):
        value = read_number(f"{name}({probability!r})")
        assert math.isclose(value, expected, rel_tol=1e-13, abs_tol=1e-16), (name, value)


@pytest.mark.parametrize("probability", PROBABILITIES[1:-1])
def test_phi_of_phi_inverse_is_the_probability(probability):
    value = read_number(f"Phi(Phi_inv({probability!r}))")
    assert math.isclose(value, probability, rel_tol=1e-13), value


def test_phi_inverse_reads_as_written_on_paper():
    quantile = read_number("Phi_inv(0.975)")
    assert math.isclose(quantile, 1.959963984540054, rel_tol=1e-15)
    for text in ("Φ⁻¹(0.975)", "Phi^-1(0.975)", "Phi^(-1)(0.975)", "Phi ^ -1 (0.975)"):
        assert read_number(text) == quantile, text
    assert read_number("Φ(1.96)") == read_number("Phi(1.96)")
    assert read_number("2⁻¹") == 0.5
    assert read_number("Phi_inv(0)") == -math.inf and read_number("Phi_inv(1)") == math.inf
    f = read_function("Phi_inv(1 - epsilon) - 1/sigma", ("epsilon", "sigma"))
    assert math.isclose(f(0.05, 1.0), 1.6448536269514722 - 1, rel_tol=1e-14)


@pytest.mark.parametrize("text", ["Phi_inv(2)", "Phi_inv(-0.1)", "Φ⁻¹(1.5)", "1 + invPhi(7)"])
def test_phi_inverse_outside_zero_one_could_not_be_read(text):
    with pytest.raises(NotReadable, match="takes a probability between 0 and 1"):
        read_number(text)
    result = ONE_OF_EACH_KIND["number"].check(text)
    assert result.verdict == "could not read" and "between 0 and 1" in result.message
    # In a function, a point outside the domain is a wrong value there, not an exception.
    f = read_function("Phi_inv(epsilon)", ("epsilon", "sigma"))
    assert math.isnan(f(2.0, 1.0)) and f(0.5, 1.0) == 0.0
    assert ONE_OF_EACH_KIND["function"].check("Phi_inv(100 + epsilon)").status == exercises.NOT_YET


# ------------------------------------------- maths as a learner writes it, plain words


def test_the_form_the_box_shows_and_products_without_their_sign_are_read():
    parameters = ("epsilon0", "q")
    reference = read_function("ln(1 + q*(exp(epsilon0) - 1))", parameters)
    for typed in (
        "f(epsilon0, q) = ln(1 + q(exp(epsilon0) - 1))",  # the box's placeholder, filled in
        "f = log1p(q*expm1(epsilon0))",
        "g(a, b) = ln(1 + b(exp(a) - 1))",
        "ln(1 + q(exp(epsilon0)-1))",  # the lesson's maths: q(e^ε0 − 1)
        "ln(1 + (exp(epsilon0) - 1)(q))",
    ):
        f = read_function(typed, parameters)
        assert math.isclose(f(2.0, 0.05), reference(2.0, 0.05), rel_tol=1e-15), typed
    assert read_number("2(1 + 3)") == 8.0 and read_number("(1 + 1)(2 + 1)") == 6.0
    assert read_number("epsilon = ln(4)") == math.log(4)
    # A known function stays a call; a constant before a bracket is asked about.
    assert read_number("exp(1)") == math.e
    with pytest.raises(NotReadable, match=r"e is a number, not a function.*exp\(\.\.\.\)"):
        read_number("e(2)")
    with pytest.raises(NotReadable, match=r"write the multiplication sign: 2\*q, not 2q"):
        read_function("2q", parameters)
    exercise = exercises.load_all()["10.amplification-formula"]
    assert exercise.check("f(epsilon0, q) = ln(1 + q(exp(epsilon0) - 1))").correct


def test_infinity_huge_numbers_domains_and_unknown_names_get_plain_words():
    number = exercises.load_all()["00.two-releases"]
    for typed in ("1/0", "1e999", "-1/0"):
        result = number.check(typed)
        assert result.status == exercises.NOT_YET and "infinite" in result.message, typed
    huge = number.check("1" + "0" * 299)
    assert "far too large" in huge.message and "1e+299" in huge.message
    result = number.check("ln(-1)")
    assert result.message == "That cannot be computed: ln needs a positive number, got -1."
    assert "NaN" not in result.message and not result.attempted
    assert "sqrt needs a number of at least 0" in number.check("sqrt(-4)").message
    unknown = number.check("abc")
    assert "use numbers and + − × ÷, ln, exp, sqrt" in unknown.message
    assert "variables are" not in unknown.message  # a number exercise has none
    function = exercises.load_all()["10.amplification-formula"]
    assert "the variables are epsilon0, q" in function.check("abc * q").message
    nan = number.check("inf - inf")
    assert "not a number (NaN)" in nan.message and "0/0" in nan.message


def test_the_formula_box_lists_log1p_and_expm1():
    from dplearn.exercises._widget import _help

    for exercise in exercises.load_all().values():
        if exercise.kind != "choice" and not getattr(exercise.tolerance, "whole", False):
            assert "log1p, expm1" in _help(exercise), exercise.id


def test_a_second_check_shows_that_it_ran():
    """Two different wrong answers with the same message: the feedback still changes."""
    box = exercises.load_all()["00.two-releases"].widget()
    box.answer.value = "0.3"
    box.check_button.click()
    first = box.feedback.value
    box.answer.value = "0.31"
    box.check_button.click()
    second = box.feedback.value
    assert box.result.status == exercises.NOT_YET
    assert first != second
    assert "check 1: 0.3)" in first and "check 2: 0.31)" in second
    box.check_button.click()  # the same answer again: the count moves on
    assert "check 3: 0.31)" in box.feedback.value


# ------------------------------------------------- what Chinese input methods type


def test_full_width_digits_and_the_ideographic_full_stop_read_as_a_number():
    number = exercises.load_all()["05.noise-zero"]  # 0.462
    for typed in (
        "０.４６２",
        "０．４６２",
        "0。462",
        "0.462。",
        "０。４６２。",
        "\u30000.462\u3000",
    ):
        assert number.check(typed).correct, typed
    assert read_number("２×１０^-５") == pytest.approx(2e-5, rel=1e-12)
    assert read_number("２ × １０＾－５") == pytest.approx(2e-5, rel=1e-12)
    assert read_number("2×10^-5") == read_number("２＊１０＾（−５）")
    assert read_number("ｌｎ（３）／２") == math.log(3) / 2
    assert read_number("１２％") == pytest.approx(0.12)
    # A comma, full-width or ideographic, gets the hint an ASCII comma gets.
    for typed in ("1，5", "１，５", "1、5"):
        with pytest.raises(NotReadable, match=r"write '1,5' with a decimal point: 1\.5"):
            read_number(typed)
    # Only the full-width forms are folded: superscripts are no powers, not 10 − 5.
    with pytest.raises(NotReadable):
        read_number("10⁻⁵")
    assert read_number("Φ⁻¹(0.5)") == 0.0
    # A full stop that is no decimal point is not read as one.
    with pytest.raises(NotReadable):
        read_number("。5")


def test_a_function_typed_with_full_width_forms_is_read():
    f = read_function("ｅｘｐ（－ｅｐｓｉｌｏｎ）＊ｓｉｇｍａ", ("epsilon", "sigma"))
    assert f(1.0, 2.0) == pytest.approx(2 * math.exp(-1))
    g = read_function("ｍａｘ（ｅｐｓｉｌｏｎ，ｓｉｇｍａ）", ("epsilon", "sigma"))
    assert g(1.0, 2.0) == 2.0


def test_a_full_width_letter_chooses_its_option():
    exercise = exercises.load_all()["02.delta-order"]  # the answer is b
    for typed in ("Ｂ", "ｂ", "（Ｂ）", "(ｂ)", "B。", "\u3000Ｂ\u3000"):
        result = exercise.check(typed)
        assert result.correct and result.recorded == "b", typed
    assert exercise.check("Ａ").status == exercises.MISTAKE
