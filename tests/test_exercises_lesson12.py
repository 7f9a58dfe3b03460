"""Lesson 12's exercises as a learner meets them: typed slips, typed answers, no code.

tests/test_exercises.py checks every bank in general (references against the values in
tests/exercise_values_lesson12.py, each mistake's own hint, junk); here each anticipated
slip is typed as a learner would type it, its value computed from its own formula (not
by the bank), and must get its own hint, while the right answer typed to four
significant digits is accepted. And the texts the app shows hold no code.
"""

import math

import pytest

from dplearn import exercises
from tests.test_exercises import assert_no_code_shown

ALL = exercises.load_all()
IDS = [key for key in ALL if ALL[key].lesson == 12]


def test_four_exercises_or_more_of_two_kinds():
    assert len(IDS) >= 4
    assert len({ALL[key].kind for key in IDS}) >= 2


def _first(scores, factor):
    weights = [math.exp(factor * (u - scores[0])) for u in scores]
    return 1 / sum(weights)


SLIPS = [
    ("12.em-probability", f"{_first((10, 8, 5), 1.0):.4g}", "no-half"),
    ("12.em-probability", "1/3", "uniform"),
    ("12.em-probability", f"{math.exp(5):.4g}", "weight-not-normalised"),
    ("12.monotone-best", f"{_first((50, 49, 46), 0.25):.4g}", "halved"),
    ("12.monotone-best", f"{_first((50, 49, 46), 1.0):.4g}", "doubled"),
    ("12.rho-adds", "1.2", "generic-rho"),
    ("12.rho-adds", "10.2", "epsilons-added"),
    ("12.rho-adds", "1.25", "sigma-not-squared"),
    ("12.which-noise", "a", "laplace"),
    ("12.which-noise", "c", "exponential"),
    ("12.bounded-range", "b", "permute-and-flip"),
    ("12.bounded-range", "d", "all-bounded"),
]


@pytest.mark.parametrize(
    ("exercise_id", "typed", "hint"), SLIPS, ids=[f"{s[0]}:{s[2]}" for s in SLIPS]
)
def test_each_typed_slip_gets_its_own_hint(exercise_id, typed, hint):
    result = ALL[exercise_id].check(typed)
    assert result.status == "mistake" and result.hint == hint, (typed, result)


TYPED_ANSWERS = [
    ("12.em-probability", "1/(1 + exp(-1) + exp(-2.5))"),
    ("12.em-probability", "0.6897"),
    ("12.monotone-best", "0.5741"),
    ("12.rho-adds", "0.45"),
    ("12.which-noise", "b"),
    ("12.bounded-range", "a"),
]


@pytest.mark.parametrize(("exercise_id", "typed"), TYPED_ANSWERS)
def test_the_answer_typed_as_a_learner_would_is_right(exercise_id, typed):
    result = ALL[exercise_id].check(typed)
    assert result.correct, (typed, result)


def test_every_exercise_is_covered_by_a_typed_answer():
    assert {key for key, _ in TYPED_ANSWERS} == set(IDS)


@pytest.mark.parametrize("exercise_id", IDS)
def test_no_code_in_what_the_app_shows(exercise_id):
    """In Voilà nobody can run code: hints and solutions speak in words and formulas."""
    assert_no_code_shown(ALL[exercise_id])
