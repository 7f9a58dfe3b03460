"""Moving a floating-point answer to the safe side of its target, written once.

Every calibration and every "smallest epsilon whose delta is at most the target" is
found in floating point (a root, a quotient) and may sit a few ulps on the wrong side.
The package promises the safe side as it itself evaluates the target, so each such
answer ends with one of these two moves: ``step_up`` (steps of 1, 2, 4, ... ulps up,
for an answer that only needs raising) and ``settle_by_ulps`` (single ulps up while
delta is above the target, then down while still at most it: the smallest safe float
near a close guess).

Infinite and NaN elements are left as they are; each element moves on its own, so it
gets the same answer alone or inside an array.

Taught in: 06-calibrate-gaussian-noise.ipynb, 08-add-up-privacy-losses.ipynb
"""

from __future__ import annotations

import numpy as np

__all__ = ["settle_by_ulps", "step_up"]


def step_up(value, too_small):
    """Raises each finite element of value by growing steps while too_small(value) says so.

    Steps of 1, 2, 4, ... ulps reach the safe side in a few iterations when the answer
    sits a few ulps low, and never take more than about 2100 (from the smallest
    subnormal to past the largest double, where an element becomes infinite and stops).

    Args:
      value: the answer(s), a float or an array.
      too_small: value -> boolean array, True where the value is not yet safe.

    Returns:
      The raised values as a float array of value's shape.
    """
    value = np.array(value, dtype=float)
    with np.errstate(over="ignore", under="ignore", invalid="ignore", divide="ignore"):
        step = np.spacing(np.maximum(np.abs(value), np.finfo(float).tiny))
        low = np.isfinite(value) & too_small(value)
        while np.any(low):
            value = np.where(low, value + step, value)
            step = np.where(low, 2.0 * step, step)
            low = low & np.isfinite(value) & too_small(value)
    return value


def settle_by_ulps(epsilon, delta, target, steps):
    """The smallest epsilon >= 0 near a close guess with delta(epsilon) <= target.

    It moves one ulp at a time and at most ``steps`` each way: up while delta is above the
    target, then down while the float below still has delta <= target.

    Args:
      epsilon: the guess (float array), >= 0.
      delta: epsilon -> delta(epsilon) as the package evaluates it (vectorised).
      target: the delta(s) not to exceed.
      steps: the most ulps each way.
    """
    epsilon = np.asarray(epsilon, dtype=float)
    for _ in range(steps):
        high = np.isfinite(epsilon) & (np.asarray(delta(epsilon)) > target)
        if not np.any(high):
            break
        epsilon = np.where(high, np.nextafter(epsilon, np.inf), epsilon)
    for _ in range(steps):
        lower = np.maximum(np.nextafter(epsilon, 0.0), 0.0)
        fine = np.isfinite(epsilon) & (epsilon > 0) & (np.asarray(delta(lower)) <= target)
        if not np.any(fine):
            break
        epsilon = np.where(fine, lower, epsilon)
    return epsilon
