"""Lessons 08 to 11 print the same numbers as when their record was written.

The record (``tests/data/lesson_numbers_08_11.json``, written by
``python -m tests.lesson_numbers_08_11`` before the accountants of lessons 09 and 11 were
made one) holds the printed output of the lessons' code cells, what every figure of
theirs reads out and says at its defaults and at both ends of each control, the
calculators' readouts and the exercises' reference answers. A change to how privacy loss
distributions are built or composed must leave every printed digit as it was, and every
unrounded number within a relative ``TOLERANCE`` of the recorded one.
"""

import json
import math

import pytest

from dplearn.figures.widgets import format_number
from tests import lesson_numbers_08_11 as lessons

#: How far an unrounded number may move: far below any digit a lesson prints (4 to 10
#: significant digits). The arithmetic is the same, but a pessimistic PLD puts its bound on
#: the FFT's round-off (points x round-off, ~1e-11 for lesson 11's runs) on +inf, and a
#: transform of another (equally valid) length rounds off differently: that moves a DP-SGD
#: run's epsilon by up to 7e-8 of itself (measured over SGD-1's sliders, delta = 1e-10
#: included).
TOLERANCE = 1e-7

RECORD = json.loads(lessons.RECORD.read_text(encoding="utf-8"))


def _close(new, old, tolerance=TOLERANCE):
    if isinstance(old, str) or isinstance(new, str):
        return new == old
    if isinstance(old, list):
        return len(new) == len(old) and all(_close(a, b) for a, b in zip(new, old, strict=True))
    return math.isclose(new, old, rel_tol=tolerance, abs_tol=1e-300)


def _printed(value):
    return value if isinstance(value, str | bool) else format_number(value)


@pytest.fixture(scope="module")
def now():
    return lessons.observed()


@pytest.mark.parametrize("prefix", lessons.LESSONS)
def test_cells_print_the_same_text(now, prefix):
    assert now["cells"][prefix] == RECORD["cells"][prefix]


def test_accountants_unrounded_numbers_stay_within_tolerance(now):
    assert now["core"].keys() == RECORD["core"].keys()
    moved = {
        name: (now["core"][name], old)
        for name, old in RECORD["core"].items()
        if not _close(now["core"][name], old)
    }
    assert not moved


def test_figures_read_out_and_say_the_same(now):
    assert now["figures"].keys() == RECORD["figures"].keys()
    for figure_id, rows in RECORD["figures"].items():
        for (setting, old_numbers, old_text), (_, numbers, text) in zip(
            rows, now["figures"][figure_id], strict=True
        ):
            where = (figure_id, setting)
            assert text == old_text, where
            assert numbers.keys() == old_numbers.keys(), where
            for name, old in old_numbers.items():
                assert _printed(numbers[name]) == _printed(old), (where, name)
                close = _close(numbers[name], old)
                assert close, (where, name, numbers[name], old)


def test_calculators_read_out_the_same(now):
    for name, rows in RECORD["calculators"].items():
        for (setting, old_numbers), (_, numbers) in zip(
            rows, now["calculators"][name], strict=True
        ):
            assert numbers.keys() == old_numbers.keys(), (name, setting)
            for label, old in old_numbers.items():
                assert _printed(numbers[label]) == _printed(old), (name, setting, label)
                assert _close(numbers[label], old), (name, setting, label, numbers[label], old)


def test_exercise_references_are_the_same(now):
    assert now["exercises"].keys() == RECORD["exercises"].keys()
    for exercise_id, old in RECORD["exercises"].items():
        assert _close(now["exercises"][exercise_id], old), exercise_id


def test_record_covers_the_accountants():
    # The record must reach both engines: lesson 09's PLD brackets and lesson 11's DP-SGD
    # runs, the readouts of the accountant's figures (COMP-5) and of SGD-1 / SGD-4.
    assert any(name.startswith("09 bracket") for name in RECORD["core"])
    assert any(name.startswith("11 dp_sgd") for name in RECORD["core"])
    assert {"COMP-5", "SGD-1", "SGD-3", "SGD-4"} <= RECORD["figures"].keys()
    assert "epsilon at delta = 1e-5 lies in" in "".join(RECORD["cells"]["09"])
