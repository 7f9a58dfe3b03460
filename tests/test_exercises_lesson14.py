"""Lesson 14's exercises as a learner meets them: typed slips, typed roundings, no code.

tests/test_exercises.py checks every bank in general (references against the values in
tests/exercise_values_lesson14.py, each mistake's own hint, junk); here each anticipated
slip is typed as a learner would type it, its value computed from its own formula (not by
the bank), and must get its own hint; the answer rounded as the question asks is accepted;
and the last solution's numbers are the audits MIA-4 computes.
"""

import math

import pytest
from scipy import stats

from dplearn import exercises
from tests.test_exercises import assert_no_code_shown

ALL = exercises.load_all()
IDS = [key for key in ALL if ALL[key].lesson == 14]


def _clopper_pearson(successes, trials, level):
    return stats.beta.ppf(level, successes + 1, trials - successes)


SLIPS = [
    # e^4 alone, 54.6.
    ("14.tpr-cap", f"{math.exp(4):.1f}", "odds-factor-alone"),
    # The complement's bound, the larger of the two: 1 - e^-1 (1 - 0.01 - 0.02) = 0.643.
    ("14.tpr-with-delta", f"{1 - math.exp(-1) * 0.97:.3f}", "larger-bound"),
    # Clopper-Pearson on the false-positive rate only (97.5 %), FNR = 250/500 as observed.
    (
        "14.clopper-pearson",
        f"{math.log(0.5 / _clopper_pearson(5, 500, 0.975)):.3f}",
        "one-rate-bounded",
    ),
    (
        "14.clopper-pearson",
        f"{math.log((1 - _clopper_pearson(250, 500, 0.95)) / _clopper_pearson(5, 500, 0.95)):.2f}",
        "unsplit-confidence",
    ),
    ("14.one-run", f"{math.log(140 / 60):.2f}", "point-estimate"),
]


def test_the_first_slips_are_the_likely_values_learners_type():
    assert [typed for _, typed, _ in SLIPS[:3]] == ["54.6", "0.643", "3.071"]


@pytest.mark.parametrize(
    ("exercise_id", "typed", "hint"), SLIPS, ids=[f"{s[0]}:{s[2]}" for s in SLIPS]
)
def test_each_typed_slip_gets_its_own_hint(exercise_id, typed, hint):
    result = ALL[exercise_id].check(typed)
    assert result.status == "mistake" and result.hint == hint, (typed, result)


TYPED_ANSWERS = [
    ("14.tpr-cap", "0.983"),
    ("14.tpr-with-delta", "0.064"),
    ("14.clopper-pearson", "2.98"),
    ("14.clopper-pearson", "3.0"),
    ("14.one-run", "0.58"),
    ("14.one-run", "0.585"),
    ("14.one-run", "0.59"),
    ("14.what-an-audit-proves", "b"),
]


@pytest.mark.parametrize(("exercise_id", "typed"), TYPED_ANSWERS)
def test_the_answer_rounded_as_asked_is_right(exercise_id, typed):
    result = ALL[exercise_id].check(typed)
    assert result.correct, (typed, result)


def test_every_exercise_is_covered_by_a_typed_answer():
    assert {key for key, _ in TYPED_ANSWERS} == set(IDS)


@pytest.mark.parametrize(
    ("exercise_id", "precision"),
    [
        ("14.tpr-cap", "three decimals"),
        ("14.tpr-with-delta", "three decimals"),
        ("14.clopper-pearson", "Two decimals"),
        ("14.one-run", "two decimals"),
    ],
)
def test_each_number_question_says_how_precise_to_be(exercise_id, precision):
    assert precision in ALL[exercise_id].question


@pytest.mark.parametrize("exercise_id", IDS)
def test_no_code_in_what_the_app_shows(exercise_id):
    """In Voilà nobody can run code: hints and solutions speak in words and formulas."""
    assert_no_code_shown(ALL[exercise_id])


def test_the_audit_solution_quotes_mia4():
    from dplearn.figures import auditing as figures

    solution = ALL["14.what-an-audit-proves"].solution
    for trials in (1000, 10000):
        assert f"{figures._audit(False, trials, 0.95):.3f}" in solution
    assert f"{figures.lesson11_epsilon():.3f}" in solution
