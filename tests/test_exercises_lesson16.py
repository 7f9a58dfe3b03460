"""Lesson 16's exercises as a learner meets them: typed slips, typed roundings, no code.

tests/test_exercises.py checks every bank in general (references against the values in
tests/exercise_values_lesson16.py, each mistake's own hint, junk); here every anticipated
slip's value, written independently in tests/exercise_values_lesson16.py, equals the
bank's; each slip typed as a learner would type it gets its own hint; and the answer
rounded as the question asks is accepted.
"""

import pytest

from dplearn import exercises
from tests.exercise_values_lesson16 import SLIPS
from tests.test_exercises import assert_no_code_shown

ALL = exercises.load_all()
IDS = [key for key in ALL if ALL[key].lesson == 16]


def test_the_bank_has_five_exercises_of_two_kinds_at_least():
    assert len(IDS) >= 5 and len({ALL[key].kind for key in IDS}) >= 2


def test_every_slip_of_a_number_exercise_has_an_independent_value():
    anticipated = {
        (key, item.id) for key in IDS if ALL[key].kind == "number" for item in ALL[key].mistakes
    }
    assert anticipated == set(SLIPS)


@pytest.mark.parametrize(("exercise_id", "hint"), sorted(SLIPS), ids=lambda part: part)
def test_each_slip_equals_its_independent_value(exercise_id, hint):
    item = next(item for item in ALL[exercise_id].mistakes if item.id == hint)
    assert float(item.compute()) == pytest.approx(float(SLIPS[exercise_id, hint]()), rel=1e-9)


TYPED_SLIPS = [
    # The tree's sensitivity taken as 1: 6 nodes x 2 (1/0.5)^2.
    ("16.tree-range", "48", "tree-sensitivity-one"),
    ("16.tree-range", "1200", "levels-without-root"),
    ("16.histogram-range", "8", "one-bin"),
    ("16.histogram-range", "13.27", "standard-deviation"),
    # The clipped count's bias forgotten, or taken as b.
    ("16.clipped-count", "0", "no-bias"),
    ("16.clipped-count", "2", "bias-is-scale"),
    ("16.clipped-count", "0.446", "bias-without-half"),
    ("16.empty-cells", "0", "no-bias"),
    ("16.empty-cells", "8000", "bias-is-scale"),
    ("16.empty-cells", "4000", "all-cells-empty"),
    # MWEM's budget not split over the rounds: epsilon for the selection, Lap(1/epsilon).
    ("16.mwem-selection", "0.979", "budget-not-split"),
    ("16.mwem-selection", "0.751", "one-factor-two"),
    ("16.mwem-measurement", "1/epsilon", "budget-not-split"),
    ("16.mwem-measurement", "rounds/epsilon", "selection-free"),
    # The epsilons added where the rho add, and the reverse.
    ("16.mwem-rho", "0.625", "epsilons-added-first"),
    ("16.mwem-rho", "0.00625", "one-round"),
    ("16.mwem-epsilon", "2.942", "rounds-converted-then-added"),
    ("16.mwem-epsilon", "0.0039", "rho-not-converted"),
    ("16.mwem-epsilon", "1", "basic-composition"),
    ("16.which-strategy", "b", "tree-sensitivity-one"),
]


@pytest.mark.parametrize(
    ("exercise_id", "typed", "hint"), TYPED_SLIPS, ids=[f"{s[0]}:{s[2]}" for s in TYPED_SLIPS]
)
def test_each_typed_slip_gets_its_own_hint(exercise_id, typed, hint):
    result = ALL[exercise_id].check(typed)
    assert result.status == "mistake" and result.hint == hint, (typed, result)


TYPED_ANSWERS = [
    ("16.histogram-range", "176"),
    ("16.tree-range", "1728"),
    ("16.clipped-count", "0.223"),
    ("16.clipped-count", "exp(-1.5)"),
    ("16.empty-cells", "3368"),
    ("16.mwem-selection", "0.396"),
    ("16.mwem-measurement", "2*rounds/epsilon"),
    ("16.mwem-rho", "0.0625"),
    ("16.mwem-epsilon", "0.469"),
    ("16.which-strategy", "a"),
]


@pytest.mark.parametrize(("exercise_id", "typed"), TYPED_ANSWERS)
def test_the_answer_rounded_as_asked_is_right(exercise_id, typed):
    result = ALL[exercise_id].check(typed)
    assert result.correct, (typed, result)


def test_every_exercise_is_covered_by_a_typed_answer():
    assert {key for key, _unused in TYPED_ANSWERS} == set(IDS)


@pytest.mark.parametrize(
    ("exercise_id", "precision"),
    [
        ("16.clipped-count", "three decimal places"),
        ("16.empty-cells", "nearest whole number"),
        ("16.mwem-selection", "three decimal places"),
        ("16.mwem-rho", "four decimal places"),
        ("16.mwem-epsilon", "three decimal places"),
    ],
)
def test_each_number_question_says_how_precise_to_be(exercise_id, precision):
    assert precision in ALL[exercise_id].question


@pytest.mark.parametrize("exercise_id", IDS)
def test_no_code_in_what_the_app_shows(exercise_id):
    """In Voilà nobody can run code: hints and solutions speak in words and formulas."""
    assert_no_code_shown(ALL[exercise_id])


def test_the_lesson_printed_settings_are_no_settings_here():
    """The lesson prints d = 8, 64, 256, 1024, b = 1 and its MWEM at epsilon = 1, T = 5."""
    for key in IDS:
        question = ALL[key].question
        for printed in ("d = 8$", "d = 64", "d = 256", "d = 1024", "T = 5$", "b = 1$"):
            assert printed not in question, (key, printed)


def test_the_strategy_choice_quotes_the_core():
    from dplearn import query_release as qr

    question = ALL["16.which-strategy"].question
    for bins in (16, 2048):
        consistent = qr.tree_range_error(bins, 1.0, consistent=True)
        naive = qr.tree_range_error(bins, 1.0)
        assert f"{consistent:.4g}" in question and f"{naive:.5g}" in question
    assert f"{qr.identity_range_error(2048, 1.0):.1f}" in ALL["16.which-strategy"].solution
