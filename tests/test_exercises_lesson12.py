"""Lesson 12's exercises as a learner meets them: typed slips, typed answers, no code.

tests/test_exercises.py checks every bank in general (references against the values in
tests/exercise_values_lesson12.py, each mistake's own hint, junk); here each anticipated
slip is typed as a learner would type it, its value computed from its own formula (not
by the bank), and must get its own hint, while the right answer typed to the precision
its question asks for is accepted. And the texts the app shows hold no code.
"""

import math
import re

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
    ("12.em-probability", f"{_first((10, 8), 0.5):.4f}", "candidate-forgotten"),
    ("12.monotone-best", f"{_first((50, 49, 46), 0.25):.4g}", "halved"),
    ("12.monotone-best", f"{_first((50, 49, 46), 1.0):.4g}", "doubled"),
    ("12.rho-adds", "1.2", "generic-rho"),
    ("12.rho-adds", "10.2", "epsilons-added"),
    ("12.rho-adds", "1.25", "sigma-not-squared"),
    ("12.rho-adds", "0.25", "selections-only"),
    ("12.rho-adds", "0.2", "releases-only"),
    ("12.rho-adds", "0.65", "gaussian-without-the-2"),
    ("12.rho-adds", "-0.45", "negative"),
    ("12.gumbel-max", f"{_first((30, 28, 20), 2.0):.3f}", "scale-as-epsilon"),
    ("12.gumbel-max", f"{_first((30, 28, 20), 1 / 8):.3f}", "scale-as-rate"),
    ("12.gumbel-max", f"{_first((30, 28, 20), 1 / 2):.3f}", "monotone-factor"),
    ("12.gumbel-max", f"{_first((30, 28), 1 / 4):.3f}", "candidate-forgotten"),
    ("12.gumbel-max", "0.5", "epsilon-given"),
    ("12.rho-to-epsilon", f"{0.5 + 2 * math.sqrt(0.5 * 6):.2f}", "log-ten"),
    ("12.rho-to-epsilon", f"{0.5 + math.sqrt(0.5 * math.log(1e6)):.2f}", "no-two"),
    ("12.rho-to-epsilon", f"{2 * math.sqrt(0.5 * math.log(1e6)):.2f}", "rho-left-out"),
    (
        "12.rho-to-epsilon",
        f"{0.5 + 2 * 0.5 * math.sqrt(math.log(1e6)):.2f}",
        "rho-outside-the-root",
    ),
    ("12.rho-to-epsilon", "5.22", "tighter-conversion"),
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
    ("12.em-probability", "0.690"),
    ("12.monotone-best", "0.574"),
    ("12.rho-adds", "0.45"),
    ("12.gumbel-max", "1/(1 + exp(-0.5) + exp(-2.5))"),
    ("12.gumbel-max", "0.592"),
    ("12.rho-to-epsilon", "0.5 + 2*sqrt(0.5*ln(1e6))"),
    ("12.rho-to-epsilon", "5.76"),
    ("12.bounded-range", "a"),
]


@pytest.mark.parametrize(("exercise_id", "typed"), TYPED_ANSWERS)
def test_the_answer_typed_as_a_learner_would_is_right(exercise_id, typed):
    result = ALL[exercise_id].check(typed)
    assert result.correct, (typed, result)


def test_every_exercise_is_covered_by_a_typed_answer():
    assert {key for key, _ in TYPED_ANSWERS} == set(IDS)


PLACES = {"two": 2, "three": 3, "four": 4}
NUMBER_IDS = [key for key in IDS if ALL[key].kind == "number"]


@pytest.mark.parametrize("exercise_id", NUMBER_IDS)
def test_each_number_question_says_its_precision_and_accepts_it(exercise_id):
    """The answer rounded as the question asks is right; one unit of that place off is not
    a slip's hint."""
    exercise = ALL[exercise_id]
    found = re.search(r"to (two|three|four) decimal places", exercise.question)
    assert found, f"{exercise_id} does not say how precisely to answer"
    places = PLACES[found.group(1)]
    rounded = round(exercise.reference(), places)
    assert exercise.check(f"{rounded:.{places}f}").correct
    for item in exercise.mistakes:
        assert exercise.check(f"{round(item.compute(), places):.{places}f}").hint == item.id


@pytest.mark.parametrize("exercise_id", IDS)
def test_no_code_in_what_the_app_shows(exercise_id):
    """In Voilà nobody can run code: hints and solutions speak in words and formulas."""
    assert_no_code_shown(ALL[exercise_id])
