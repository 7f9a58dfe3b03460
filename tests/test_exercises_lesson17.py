"""Lesson 17's exercises as a learner meets them: typed slips, typed roundings, no code.

tests/test_exercises.py checks every bank in general (references against the values in
tests/exercise_values_lesson17.py); here every anticipated slip's value, written
independently in that file, equals the bank's own, and typed to four significant digits
gets its own hint; the answer rounded as the question asks is accepted; and the numbers
the worked solutions of the two choices quote are the core's.
"""

import math

import pytest

from dplearn import exercises
from dplearn import local_frequency as lf
from tests.exercise_values_lesson17 import SLIPS
from tests.test_exercises import assert_no_code_shown

ALL = exercises.load_all()
IDS = [key for key in ALL if ALL[key].lesson == 17]
ANTICIPATED = [
    (key, item.id) for key in IDS if ALL[key].kind != "choice" for item in ALL[key].mistakes
]


def test_the_bank_has_at_least_five_exercises_of_all_three_kinds():
    kinds = {ALL[key].kind for key in IDS}
    assert len(IDS) >= 5 and kinds == {"number", "choice", "function"}, (IDS, kinds)


def test_every_anticipated_slip_has_an_independent_value():
    assert {(key, hint) for key, hints in SLIPS.items() for hint in hints} == set(ANTICIPATED)


def _mistake(exercise_id, hint):
    return next(item for item in ALL[exercise_id].mistakes if item.id == hint)


@pytest.mark.parametrize(
    ("exercise_id", "hint"), ANTICIPATED, ids=[":".join(a) for a in ANTICIPATED]
)
def test_each_slip_equals_its_independent_value(exercise_id, hint):
    exercise, item = ALL[exercise_id], _mistake(exercise_id, hint)
    if exercise.kind == "function":
        for case in exercise.cases:
            expected = float(SLIPS[exercise_id][hint](*case))
            assert float(item.compute(*case)) == pytest.approx(expected, rel=1e-9), case
        return
    expected = float(SLIPS[exercise_id][hint]())
    assert float(item.compute()) == pytest.approx(expected, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize(
    ("exercise_id", "hint"), ANTICIPATED, ids=[":".join(a) for a in ANTICIPATED]
)
def test_each_typed_slip_gets_its_own_hint(exercise_id, hint):
    exercise = ALL[exercise_id]
    if exercise.kind == "function":
        typed = _mistake(exercise_id, hint).source
    else:
        typed = f"{float(SLIPS[exercise_id][hint]()):.4g}"
    result = exercise.check(typed)
    assert result.status == "mistake" and result.hint == hint, (typed, result)


TYPED_ANSWERS = [
    ("17.direct-q", "0.0695"),
    ("17.unary-epsilon", "2.23"),
    ("17.unary-epsilon", "ln(0.8*0.7/(0.2*0.3))"),
    ("17.count-variance", "4620"),
    ("17.which-protocol", "a"),
    ("17.crossover", "15"),
    ("17.clip-renormalise", "93.02"),
    ("17.clip-renormalise", "100*200/215"),
    ("17.drop-negatives", "a"),
    ("17.direct-variance", "(exp(epsilon) + categories - 2)/(exp(epsilon) - 1)**2"),
    (
        "17.direct-variance",
        "(1/(exp(epsilon) + categories - 1))*(1 - 1/(exp(epsilon) + categories - 1))"
        "/((exp(epsilon) - 1)/(exp(epsilon) + categories - 1))^2",
    ),
]


@pytest.mark.parametrize(("exercise_id", "typed"), TYPED_ANSWERS)
def test_the_answer_rounded_as_asked_is_right(exercise_id, typed):
    result = ALL[exercise_id].check(typed)
    assert result.correct, (typed, result)


def test_every_exercise_is_covered_by_a_typed_answer():
    assert {key for key, _typed in TYPED_ANSWERS} == set(IDS)


@pytest.mark.parametrize(
    ("exercise_id", "precision"),
    [
        ("17.direct-q", "four decimal places"),
        ("17.unary-epsilon", "two decimal places"),
        ("17.count-variance", "nearest whole number"),
        ("17.clip-renormalise", "two decimal places"),
    ],
)
def test_each_number_question_says_how_precise_to_be(exercise_id, precision):
    assert precision in ALL[exercise_id].question


def test_the_answers_are_not_the_lessons_printed_numbers():
    printed = [0.92067, 1.59807, 5.66243, 347.06889, 10.1548, 3.68269, 3.91770]
    printed += [0.4753668864, 0.1748777045, 1947.253393, 0.5625, 0.75, math.log(9), 36827, 2]
    for key in IDS:
        if ALL[key].kind == "number":
            value = ALL[key].reference()
            assert all(not math.isclose(value, shown, rel_tol=1e-3) for shown in printed), key


@pytest.mark.parametrize("exercise_id", IDS)
def test_no_code_in_what_the_app_shows(exercise_id):
    """In Voilà nobody can run code: hints and solutions speak in words and formulas."""
    assert_no_code_shown(ALL[exercise_id])


def test_the_protocol_choice_quotes_the_cores_variances():
    solution = ALL["17.which-protocol"].solution
    for protocol in ("direct", "optimized unary", "symmetric unary"):
        assert f"{lf.variance_per_user(protocol, 2.0, 20):.3f}" in solution, protocol
    assert f"{lf.crossover_categories(2.0):.1f}" in solution
    direct, optimised = (
        lf.variance_per_user(name, 2.0, 20) for name in ("direct", "optimized unary")
    )
    assert direct < optimised


def test_the_negatives_solution_quotes_the_bias_of_dropping_them():
    solution = ALL["17.drop-negatives"].solution
    p, q = lf.generalized_randomized_response(1.0, 50)
    spread = math.sqrt(lf.frequency_variance(p, q, 5000, 0))
    assert f"{spread:.0f}" in solution
    # The clipped mean of an unbiased estimate of 0 with this spread, nearly normal.
    assert f"{spread / math.sqrt(2 * math.pi):.0f}" in solution
