"""What every privacy loss pair offers, and the checks and closed forms the families share.

``PrivacyLossPair`` is the base class of the pairs of neighbouring output distributions
(``delta`` from ``log_delta``, ``epsilon_for_delta`` by root finding); the helpers check
a noise object's parameters and evaluate the pieces that more than one family uses
(the Laplace density, the clipped Laplace loss, the rounding error of a product).

Taught in: 01-measure-privacy-loss.ipynb, 02-see-what-delta-means.ipynb
"""

from __future__ import annotations

import numpy as np
from scipy import optimize

from dplearn import _validation as check

_SQRT2 = np.sqrt(2.0)
_LOG2 = np.log(2.0)
_HALF_LOG_2PI = 0.5 * np.log(2.0 * np.pi)
_TINY = np.finfo(float).tiny
#: sensitivity / sigma must lie in [_TINY, _RATIO_MAX]: below, it has lost digits as a
#: subnormal; above, the loss mean r**2 / 2 overflows.
_RATIO_MAX = 1e154


class PrivacyLossPair:
    """What every pair of neighbouring output distributions offers.

    Subclasses supply the closed forms; this class adds ``delta`` (from ``log_delta``)
    and ``epsilon_for_delta`` (by root finding where no closed form exists).
    """

    #: Largest finite-or-infinite value the privacy loss takes.
    max_loss: float

    def log_delta(self, epsilon):
        """Natural log of ``delta(epsilon)``; -inf where delta is 0."""
        raise NotImplementedError

    def delta(self, epsilon):
        """Tight delta at epsilon: E[max(0, 1 - exp(epsilon - L))], never negative.

        Args:
          epsilon: privacy budget(s), >= 0.
        """
        with np.errstate(under="ignore"):
            return check.scalar_or_array(np.exp(self.log_delta(epsilon)))

    def epsilon_for_delta(self, delta):
        """Smallest epsilon >= 0 whose tight delta is <= delta (inf if none is).

        On the safe side: ``delta(epsilon_for_delta(d)) <= d`` as this object evaluates
        it, and no more than a few ulps above the true root.

        Args:
          delta: target delta(s), in (0, 1).
        """
        delta = check.probability_open("delta", delta)
        solve = np.vectorize(self._safe_epsilon_for_one_delta, otypes=[float])
        return check.scalar_or_array(solve(delta))

    def _safe_epsilon_for_one_delta(self, delta):
        epsilon = self._epsilon_for_one_delta(delta)
        # A root found in floating point may sit a few ulps low, where delta is still a
        # hair above the target: step up until it is not, so epsilon is never too small.
        step = np.spacing(max(epsilon, np.finfo(float).tiny))
        while np.isfinite(epsilon) and self.delta(epsilon) > delta:
            epsilon += step
            step *= 2.0
        return float(epsilon)

    def _epsilon_for_one_delta(self, delta):
        if self.delta(0.0) <= delta:
            return 0.0
        if self.delta(np.inf) > delta:
            return np.inf
        upper = self.max_loss if np.isfinite(self.max_loss) else 1.0
        while self.log_delta(upper) > np.log(delta):
            upper *= 2.0

        def gap(epsilon):
            """ln delta(epsilon) - ln delta, the root of which is the wanted epsilon."""
            # In log space, so that a target of 1e-12 is found as precisely as 0.1;
            # clipped so that an exact zero delta is a finite, negative gap.
            return max(self.log_delta(epsilon), -1e300) - np.log(delta)

        if gap(0.0) <= 0:
            # delta(0) rounds above the target but its log does not: a subnormal target.
            return 0.0
        return optimize.brentq(gap, 0.0, upper, xtol=1e-15, rtol=4 * np.finfo(float).eps)


def _check_noise(pair, scale_name):
    """Checks and stores a noise object's scale, sensitivity and center (single numbers)."""
    scale = check.positive(scale_name, getattr(pair, scale_name), scalar=True)
    sensitivity = check.positive("sensitivity", pair.sensitivity, scalar=True)
    center = check.finite("center", pair.center, scalar=True)
    with np.errstate(over="ignore", under="ignore"):
        ratio = np.float64(sensitivity) / np.float64(scale)
    if not np.isfinite(ratio):
        raise ValueError(
            f"{scale_name} must be large enough that sensitivity / {scale_name} is finite, "
            f"got {scale_name}={scale!r} with sensitivity={sensitivity!r}"
        )
    object.__setattr__(pair, scale_name, scale)
    object.__setattr__(pair, "sensitivity", sensitivity)
    object.__setattr__(pair, "center", center)
    return float(ratio)


def _below_max_loss(epsilon, pair):
    """epsilon - sensitivity / scale, with the division's rounding error put back.

    Just below max_loss, delta ~ (max_loss - epsilon) / 2 is the difference itself: the
    half ulp that sensitivity / scale rounds off would be all of its error.
    """
    bound = pair.max_loss
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        # sensitivity - bound * scale is exact (Sterbenz, then Dekker's product error).
        remainder = (pair.sensitivity - bound * pair.scale) - _two_product_error(
            np.float64(bound), np.float64(pair.scale)
        )
        correction = np.where(np.isfinite(remainder), remainder / pair.scale, 0.0)
    return (epsilon - bound) - correction


def _offsets(output, center):
    """output - center, with output checked: finite numbers only."""
    with np.errstate(over="ignore"):
        # Beyond the float range the offset is +-inf, and every formula here takes its limit.
        return check.finite("output", output) - center


def _clipped_loss(offset, sensitivity, scale):
    """(|k - sensitivity| - |k|) / scale as clip(sensitivity - 2k, +-sensitivity) / scale.

    The clipped form is exact far from the two centres, where the difference of two
    absolute values would lose the sensitivity to rounding.
    """
    with np.errstate(over="ignore"):
        loss = np.clip(sensitivity - 2.0 * offset, -sensitivity, sensitivity) / scale
    return check.scalar_or_array(loss)


def _laplace_density(offset, scale):
    """exp(-|offset| / scale) / (2 scale), without overflowing 1 / scale needlessly."""
    with np.errstate(over="ignore", under="ignore"):
        density = np.exp(-np.abs(offset) / scale - np.log(2.0 * scale))
        if scale > 1e-300:
            density = np.exp(-np.abs(offset) / scale) / (2.0 * scale)
    return check.scalar_or_array(density)


_SPLIT = 2.0**27 + 1.0


def _two_product_error(x, y):
    """The rounding error of x * y (Dekker 1971): x * y == fl(x * y) + error, exactly."""

    def split(value):
        """Dekker's split of value into a high half and the rest."""
        scaled = _SPLIT * value
        high = scaled - (scaled - value)
        return high, value - high

    product = x * y
    x_high, x_low = split(x)
    y_high, y_low = split(y)
    error = ((x_high * y_high - product) + x_high * y_low + x_low * y_high) + x_low * y_low
    return np.where(np.isfinite(error), error, 0.0)
