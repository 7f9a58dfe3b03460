"""Lessons 10 and 11's exercises as a learner meets them: typed slips, typed answers, no code.

tests/test_exercises.py checks every bank in general (references against the values in
tests/exercise_values_lesson10.py and ..._lesson11.py, each mistake's own hint, junk);
here each anticipated slip is typed as a learner would type it, its value computed from
its own formula (not by the bank), and must get its own hint, while the right answer
typed to four significant digits is accepted. And the texts the app shows hold no code.
"""

import math

import mpmath
import pytest

from dplearn import exercises
from tests.exercise_values_lesson10 import gaussian_delta, subsampled_gaussian_delta
from tests.test_exercises import assert_no_code_shown

ALL = exercises.load_all()
IDS = [key for key in ALL if ALL[key].lesson in (10, 11)]


def test_both_lessons_have_three_exercises_or_more_of_two_kinds():
    for lesson in (10, 11):
        mine = [ALL[key] for key in IDS if ALL[key].lesson == lesson]
        assert len(mine) >= 3, lesson
        assert len({item.kind for item in mine}) >= 2, lesson


def _ratio_at(epsilon):
    q = mpmath.mpf("0.1")
    return q * gaussian_delta(1, 1) / subsampled_gaussian_delta(epsilon, 1, q)


_PRIME = float(mpmath.log(1 + mpmath.mpf("0.1") * mpmath.expm1(1)))

SLIPS = [
    ("10.amplified-epsilon", f"{0.05 * 2:.4g}", "linear"),
    ("10.amplified-epsilon", f"{0.05 * math.expm1(2):.4g}", "no-log"),
    ("10.amplified-epsilon", f"{math.log(1 + 0.05 * math.exp(2)):.4g}", "no-minus-one"),
    ("10.amplification-formula", "q*epsilon0", "linear"),
    ("10.amplification-formula", "q*(exp(epsilon0) - 1)", "no-log"),
    ("10.amplification-formula", "ln(1 + q*exp(epsilon0))", "no-minus-one"),
    ("10.bound-overstates", f"{float(1 / _ratio_at(1)):.4g}", "inverted"),
    ("10.bound-overstates", f"{float(_ratio_at(_PRIME)):.4g}", "at-epsilon-prime"),
    ("10.bound-overstates", "0.1", "unsubsampled"),
    ("10.secret-sample", "b", "fresh-batches"),
    ("11.rdp-adds", "0.25", "one-release"),
    ("11.rdp-adds", "2.5", "square-root"),
    ("11.rdp-adds", "100", "sigma-not-squared"),
    ("11.rdp-adds", "100*7/32", "alpha-minus-one"),
    ("11.rdp-to-epsilon", f"{0.5 + math.log(1e5) / 9:.4g}", "mironov-2017"),
    (
        "11.rdp-to-epsilon",
        f"{0.5 + (math.log(1e5) - math.log(10)) / 9:.4g}",
        "no-one-minus-inverse",
    ),
    ("11.rdp-to-epsilon", f"{0.5 + math.log(0.9) + math.log(1e5) / 9:.4g}", "no-log-alpha"),
    ("11.epochs-afford", "36", "rdp"),
    ("11.epochs-afford", "44", "first-over"),
    ("11.epochs-afford", str(math.ceil(43 * 60000 / 256)), "steps"),
    ("11.why-rdp-larger", "d", "rdp-adds-divergences"),
]


@pytest.mark.parametrize(
    ("exercise_id", "typed", "hint"), SLIPS, ids=[f"{s[0]}:{s[2]}" for s in SLIPS]
)
def test_each_typed_slip_gets_its_own_hint(exercise_id, typed, hint):
    exercise = ALL[exercise_id]
    result = exercise.check(typed)
    assert result.status == "mistake" and result.hint == hint, (typed, result)


TYPED_ANSWERS = [
    ("10.amplified-epsilon", "ln(1 + 0.05*(exp(2) - 1))"),
    ("10.amplified-epsilon", "0.2772"),
    ("10.amplification-formula", "log1p(q*expm1(epsilon0))"),
    ("10.bound-overstates", f"{float(_ratio_at(1)):.4g}"),
    ("10.secret-sample", "a"),
    ("11.rdp-adds", "25"),
    ("11.rdp-to-epsilon", "1.418"),
    ("11.epochs-afford", "43"),
    ("11.why-rdp-larger", "a"),
]


@pytest.mark.parametrize(("exercise_id", "typed"), TYPED_ANSWERS)
def test_the_answer_typed_as_a_learner_would_is_right(exercise_id, typed):
    result = ALL[exercise_id].check(typed)
    assert result.correct, (typed, result)


def test_every_exercise_of_both_lessons_is_covered_by_a_typed_answer():
    assert {key for key, _ in TYPED_ANSWERS} == set(IDS)


@pytest.mark.parametrize("exercise_id", IDS)
def test_no_code_in_what_the_app_shows(exercise_id):
    """In Voilà nobody can run code: hints and solutions speak in words and formulas."""
    assert_no_code_shown(ALL[exercise_id])
