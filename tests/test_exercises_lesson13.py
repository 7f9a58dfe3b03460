"""Lesson 13's exercises as a learner meets them: typed slips get their own hints.

tests/test_exercises.py checks every bank in general (references against
tests/exercise_values_lesson13.py, each mistake's own hint, junk); here each anticipated
slip is typed as a learner would type it, its value computed from its own formula, and
the right answer typed to the precision its question asks (three significant figures for
the family's delta) is accepted.
"""

import math

import pytest

from dplearn import exercises

ALL = exercises.load_all()
IDS = [key for key in ALL if ALL[key].lesson == 13]


def test_four_exercises_or_more_of_two_kinds():
    assert len(IDS) >= 4
    assert len({ALL[key].kind for key in IDS}) >= 2


SLIPS = [
    ("13.histogram-noise", "48", "k-epsilon"),
    ("13.histogram-noise", "12/0.25", "k-epsilon"),
    ("13.histogram-noise", "0.25", "epsilon-for-scale"),
    ("13.histogram-noise", "8", "l1-sensitivity-two"),
    ("13.histogram-noise", "12", "bins-for-scale"),
    ("13.answer-noise", "12", "swapped"),
    ("13.answer-noise", "2*3/0.5", "swapped"),
    ("13.answer-noise", "8", "no-sensitivity"),
    ("13.answer-noise", "6", "laplace-mechanism"),
    ("13.answer-noise", "48", "halved-twice"),
    ("13.answer-noise", "4*3/(0.5/2)", "halved-twice"),
    ("13.answer-noise", "1.5", "times-epsilon"),
    ("13.answer-noise", "3*0.5", "times-epsilon"),
    ("13.group-delta", "4e-7", "g-delta"),
    ("13.group-delta", f"{4 * math.exp(1.5) * 1e-7:.4g}", "loose"),
    ("13.group-delta", f"{math.exp(2) * 1e-7:.4g}", "last-factor-only"),
    ("13.group-delta", "1e-7", "one-persons-delta"),
    ("13.group-formula", "g*delta", "g-delta"),
    ("13.group-formula", "g*exp((g-1)*epsilon)*delta", "loose"),
    ("13.broken-claim", "b", "believed-claim"),
    ("13.broken-claim", "d", "constant-factor"),
]


@pytest.mark.parametrize(
    ("exercise_id", "typed", "hint"), SLIPS, ids=[f"{s[0]}:{s[2]}:{s[1]}" for s in SLIPS]
)
def test_each_typed_slip_gets_its_own_hint(exercise_id, typed, hint):
    result = ALL[exercise_id].check(typed)
    assert result.status == "mistake" and result.hint == hint, (typed, result)


TYPED_ANSWERS = [
    ("13.histogram-noise", "1/0.25"),
    ("13.answer-noise", "4*3/0.5"),
    ("13.group-delta", "1e-7*(exp(2) - 1)/(exp(0.5) - 1)"),
    ("13.group-delta", "9.849e-7"),
    ("13.group-delta", "9.85e-7"),
    ("13.group-formula", "delta*expm1(g*epsilon)/expm1(epsilon)"),
    ("13.broken-claim", "A"),
]


@pytest.mark.parametrize(("exercise_id", "typed"), TYPED_ANSWERS)
def test_typed_right_answers_are_accepted(exercise_id, typed):
    assert ALL[exercise_id].check(typed).correct
