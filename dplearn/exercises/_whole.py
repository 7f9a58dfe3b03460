"""A whole-number tolerance for the banks: the right answer exactly, a slip roughly.

``exact()`` of the checker compares every value exactly, so a slip whose value is not a
whole number (the real root 12.94 of an inequality whose answer is its rounding up, 13)
could only be recognised if the learner typed all its digits. ``whole_number()`` keeps
the reference exact, and recognises an anticipated non-integer slip within ±0.05 of
its value (two decimals, never a whole number away). Its feedback reads "Right, the
exact whole number." and "That is not the exact whole number, ...".

Taught in: 03-spot-distinguishing-events.ipynb, 04-compute-sensitivity.ipynb
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from dplearn.exercises import Tolerance

__all__ = ["WholeNumber", "whole_number"]

#: How close to a non-integer slip an answer must be to get that slip's hint.
SLIP_WIDTH = 0.05


@dataclass(frozen=True)
class WholeNumber(Tolerance):
    """Exact for a whole-number target; within ±0.05 for a non-integer one (a slip)."""

    whole: bool = True

    def accepts(self, value, target):
        value, target = float(value), float(target)
        if math.isnan(value) or math.isnan(target):
            return False
        if math.isinf(value) or math.isinf(target):
            return value == target
        if target == math.floor(target):
            return value == target
        return abs(value - target) <= SLIP_WIDTH

    def describe(self):
        return "the exact whole number"


def whole_number():
    """The tolerance of an exercise whose answer is a whole number (see ``WholeNumber``)."""
    return WholeNumber()
