"""Lessons 08 to 11 print the same numbers as when their record was written.

The record (``tests/data/lesson_numbers_08_11.json``, written by
``python -m tests.lesson_numbers_08_11``) holds the printed output of the lessons' code
cells, what every figure of
theirs reads out and says at its defaults and at both ends of each control, the
calculators' readouts and the exercises' reference answers. A change to how privacy loss
distributions are built or composed must leave every printed digit as it was, and every
unrounded number within a relative ``TOLERANCE`` of the recorded one.
"""

import json
import math
import re

import pytest

from dplearn.figures.widgets import format_number
from tests import lesson_numbers_08_11 as lessons

#: How far an unrounded number may move: far below any digit a lesson prints (4 to 10
#: significant digits, each also checked as printed). The arithmetic is the same, but a
#: pessimistic PLD puts its bound on the FFT's round-off on +inf, and part of that bound
#: is read from what the transform returns (its most negative masses): a transform of
#: another (equally valid) length, or the same transform on a CPU whose numpy takes other
#: SIMD code, rounds off differently. Lesson 11's runs rest on the part that is not read
#: (k eps log2(n) / 2, ~2.6e-11 at 14,063 steps): with numpy's SIMD dispatch turned off,
#: as CI runs it, SGD-1 at 100 epochs moves by 6e-10 of itself.
TOLERANCE = 1e-6

RECORD = json.loads(lessons.RECORD.read_text(encoding="utf-8"))

#: Numbers that are the FFT's round-off, not a digit of the method: their digits differ
#: between CPUs (numpy computes with other SIMD code on a CPU without AVX-512, and CI runs
#: the tests both ways). They are COMP-5's pessimistic delta where the exact delta is 0
#: (the round-off mass a pessimistic PLD puts on +inf), COMP-6's CLT-against-exact gap and
#: lesson 09's FFT-against-np.convolve difference. Below ROUND_OFF they need only stay
#: below it; every other number is held to TOLERANCE and its printed digits.
ROUND_OFF = 1e-12
ROUND_OFF_FIGURES = {"COMP-5", "COMP-6"}
ROUND_OFF_LINE = "FFT vs np.convolve"
#: At delta this small a DP-SGD run's epsilon rests on the bound on the FFT's round-off
#: to its third digit (its ~2.6e-11 of mass on +inf is a quarter of delta): SGD-1 at
#: delta = 1e-10 gives 3.78656 here and 3.78633 with numpy's SIMD dispatch turned off.
#: There the numbers are held to ROUND_OFF_DELTA_TOLERANCE, and the text to its words (its
#: numbers are those numbers, formatted).
ROUND_OFF_DELTA = 1e-9
ROUND_OFF_DELTA_TOLERANCE = 2e-3
_ANY_NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?(?:e[-+]?\d+| × 10\^-?\d+)?")
_NUMBER = re.compile(r"\d+(?:\.\d+)?(?:e[-+]?\d+| × 10\^-?\d+)")


def _round_off_hidden(text):
    """text with every number below ROUND_OFF written as one token."""

    def hide(match):
        value = float(match.group(0).replace(" × 10^", "e"))
        return "<round-off>" if value < ROUND_OFF else match.group(0)

    return _NUMBER.sub(hide, text)


def _numbers_hidden(text):
    """text with every number written as one token: its words alone."""
    return _ANY_NUMBER.sub("#", text)


def _cell_text(outputs):
    return [
        "\n".join(
            _round_off_hidden(line) if ROUND_OFF_LINE in line else line
            for line in output.split("\n")
        )
        for output in outputs
    ]


def _close(new, old, tolerance=TOLERANCE):
    if isinstance(old, str) or isinstance(new, str):
        return new == old
    if isinstance(old, list):
        pairs = zip(new, old, strict=True)
        return len(new) == len(old) and all(_close(a, b, tolerance) for a, b in pairs)
    return math.isclose(new, old, rel_tol=tolerance, abs_tol=1e-300)


def _printed(value):
    return value if isinstance(value, str | bool) else format_number(value)


@pytest.fixture(scope="module")
def now():
    return lessons.observed()


@pytest.mark.parametrize("prefix", lessons.LESSONS)
def test_cells_print_the_same_text(now, prefix):
    assert _cell_text(now["cells"][prefix]) == _cell_text(RECORD["cells"][prefix])


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
            round_off = figure_id in ROUND_OFF_FIGURES
            if round_off:
                text, old_text = _round_off_hidden(text), _round_off_hidden(old_text)
            tiny_delta = figure_id.startswith("SGD") and setting.get("delta", 1) <= ROUND_OFF_DELTA
            if tiny_delta:
                text, old_text = _numbers_hidden(text), _numbers_hidden(old_text)
            assert text == old_text, where
            assert numbers.keys() == old_numbers.keys(), where
            for name, old in old_numbers.items():
                if round_off and isinstance(old, float) and abs(old) < ROUND_OFF:
                    assert abs(numbers[name]) < ROUND_OFF, (where, name, numbers[name], old)
                    continue
                if tiny_delta and isinstance(old, str):
                    # A number already written out ("4.6 %"): its words must stay.
                    same = _numbers_hidden(numbers[name]) == _numbers_hidden(old)
                    assert same, (where, name, numbers[name], old)
                    continue
                if tiny_delta:
                    close = _close(numbers[name], old, ROUND_OFF_DELTA_TOLERANCE)
                    assert close, (where, name, numbers[name], old)
                    continue
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
