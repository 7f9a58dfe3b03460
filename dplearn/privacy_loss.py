"""The privacy loss random variable of one mechanism on two neighbouring data sets.

Each object here describes the two output distributions A(D1) and A(D2) of one
mechanism, with A(D1) centred at ``center`` and A(D2) at ``center + sensitivity``.
The privacy loss of an output o is L(o) = ln(P[A(D1) = o] / P[A(D2) = o]), and with
o drawn from A(D1) it is a random variable. Everything the lessons quote about it is a
closed form here:

- ``loss_exceeds(epsilon)``: P[L > epsilon], the *width* of the bad events (delta_1).
- ``delta(epsilon)``: E[max(0, 1 - exp(epsilon - L))], the *area* (delta_2), which is the
  smallest delta with P[A(D1) in S] <= exp(epsilon) P[A(D2) in S] + delta for every S.
- ``loss_quantile(p)``: L at probability position p in [0, 1], outputs sorted by
  decreasing L: the x-axis of the figures that plot L against probability.

All methods take numpy arrays and broadcast; a scalar argument gives a float, and an
element gives the same answer alone or inside an array. Parameters are single numbers;
outputs must be finite. Accuracy, checked against mpmath at 60+ digits in the tests:
``log_delta`` within 1e-13 * max(1, |ln delta|) of the truth for every epsilon and every
sensitivity / sigma (Gaussian) or scale (Laplace, discrete Laplace) the objects accept;
``delta`` to 1e-12 relative where it is a normal double (below 2.2e-308 it loses
digits as a subnormal, and rounds to 0 below 5e-324, while its log stays exact).

Taught in: 01-measure-privacy-loss.ipynb, 02-see-what-delta-means.ipynb,
03-spot-distinguishing-events.ipynb
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import optimize, special

from dplearn import _validation as check
from dplearn._validation import _describe

_SQRT2 = np.sqrt(2.0)
_LOG2 = np.log(2.0)
_HALF_LOG_2PI = 0.5 * np.log(2.0 * np.pi)
_TINY = np.finfo(float).tiny
#: sensitivity / sigma must lie in [_TINY, _RATIO_MAX]: below, it has lost digits as a
#: subnormal; above, the loss mean r**2 / 2 overflows.
_RATIO_MAX = 1e154

__all__ = [
    "PrivacyLossPair",
    "LaplaceNoise",
    "GaussianNoise",
    "DiscreteLaplaceNoise",
    "ThresholdedLaplace",
    "laplace",
    "gaussian",
    "discrete_laplace",
    "thresholded_laplace",
    "gaussian_log_delta",
]


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
            # In log space, so that a target of 1e-12 is found as precisely as 0.1;
            # clipped so that an exact zero delta is a finite, negative gap.
            return max(self.log_delta(epsilon), -1e300) - np.log(delta)

        if gap(0.0) <= 0:
            # delta(0) rounds above the target but its log does not: a subnormal target.
            return 0.0
        return optimize.brentq(gap, 0.0, upper, xtol=1e-15, rtol=4 * np.finfo(float).eps)


@dataclass(frozen=True)
class LaplaceNoise(PrivacyLossPair):
    """Laplace noise of scale ``scale`` added to a query of sensitivity ``sensitivity``.

    The loss has an atom of mass 1/2 at +sensitivity/scale, a straight middle part,
    and an atom of mass exp(-sensitivity/scale)/2 at -sensitivity/scale
    (Figures PLRV-1 to PLRV-3). Exact to a few ulps for every scale and sensitivity whose
    ratio is finite (others raise a ValueError), at every epsilon, including just below
    max_loss, where the rounding of sensitivity / scale is taken back.
    """

    scale: float
    sensitivity: float = 1.0
    center: float = 0.0

    def __post_init__(self):
        _check_noise(self, "scale")

    @property
    def max_loss(self):
        """Sensitivity over scale: the epsilon of pure DP that this noise gives."""
        return self.sensitivity / self.scale

    def density_d1(self, output):
        """Density of A(D1) at output (inf where it exceeds the largest float)."""
        return _laplace_density(_offsets(output, self.center), self.scale)

    def density_d2(self, output):
        """Density of A(D2) at output."""
        offset = _offsets(output, self.center)
        with np.errstate(over="ignore"):
            return _laplace_density(offset - self.sensitivity, self.scale)

    def privacy_loss(self, output):
        """L(output) = ln(density_d1 / density_d2), between -max_loss and +max_loss."""
        return _clipped_loss(_offsets(output, self.center), self.sensitivity, self.scale)

    def loss_quantile(self, p):
        """L at probability position p, outputs sorted by decreasing L."""
        p = check.probability_closed("p", p)
        bound = self.max_loss
        with np.errstate(divide="ignore", over="ignore"):
            loss = np.clip(bound + 2.0 * np.log(2.0 * (1.0 - p)), -bound, bound)
        return check.scalar_or_array(loss)

    def loss_exceeds(self, epsilon):
        """P[L > epsilon] with outputs drawn from A(D1)."""
        epsilon = check.epsilon(epsilon)
        bound = self.max_loss
        with np.errstate(over="ignore", invalid="ignore"):
            width = np.where(epsilon >= bound, 0.0, 1.0 - 0.5 * np.exp((epsilon - bound) / 2.0))
        return check.scalar_or_array(width)

    def log_delta(self, epsilon):
        """ln delta: delta = 1 - exp((epsilon - max_loss) / 2) below max_loss, else 0."""
        epsilon = check.epsilon(epsilon)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            below = epsilon < self.max_loss
            gap = np.where(below, _below_max_loss(epsilon, self) / 2.0, -1.0)
            result = np.where(below, np.log(-np.expm1(gap)), -np.inf)
        return check.scalar_or_array(result)

    def _epsilon_for_one_delta(self, delta):
        if delta >= -np.expm1(-self.max_loss / 2.0):
            return 0.0
        return max(self.max_loss + 2.0 * np.log1p(-delta), 0.0)


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


@dataclass(frozen=True)
class GaussianNoise(PrivacyLossPair):
    """Gaussian noise of standard deviation ``sigma``; the loss is N(mu, 2 mu).

    With r = sensitivity / sigma and mu = r**2 / 2, P[L > epsilon] = Phi(r/2 - epsilon/r)
    and delta = Phi(r/2 - epsilon/r) - exp(epsilon) Phi(-r/2 - epsilon/r)
    (Balle & Wang 2018, Theorem 8), evaluated here in log space
    (Figures PLRV-4 to PLRV-9). For every sigma and sensitivity with r in [2.2e-308,
    1e154] (others raise a ValueError) and every epsilon >= 0, ``log_delta`` is within
    1e-13 * max(1, |ln delta|) of the truth (``gaussian_log_delta``).
    """

    sigma: float
    sensitivity: float = 1.0
    center: float = 0.0

    def __post_init__(self):
        ratio = _check_noise(self, "sigma")
        if not _TINY <= ratio <= _RATIO_MAX:
            raise ValueError(
                f"sigma must make sensitivity / sigma lie in [{_TINY:.3g}, {_RATIO_MAX:.3g}], "
                f"got sigma={self.sigma!r} with sensitivity={self.sensitivity!r}"
            )

    max_loss = np.inf

    @property
    def ratio(self):
        """Sensitivity over sigma, the only parameter the loss distribution depends on."""
        return self.sensitivity / self.sigma

    @property
    def loss_mean(self):
        """mu = sensitivity**2 / (2 sigma**2): the loss is N(mu, 2 mu)."""
        return self.ratio**2 / 2.0

    def density_d1(self, output):
        """Density of A(D1) at output (inf where it exceeds the largest float)."""
        return _normal_density(_offsets(output, self.center), self.sigma)

    def density_d2(self, output):
        """Density of A(D2) at output."""
        offset = _offsets(output, self.center)
        with np.errstate(over="ignore"):
            return _normal_density(offset - self.sensitivity, self.sigma)

    def privacy_loss(self, output):
        """L(output): a straight, unbounded line in the output (+-inf beyond the floats)."""
        offset = _offsets(output, self.center)
        # Written with r = sensitivity / sigma, so that no sigma**2 overflows.
        with np.errstate(over="ignore"):
            loss = self.ratio * (self.ratio / 2.0 - offset / self.sigma)
        return check.scalar_or_array(loss)

    def loss_quantile(self, p):
        """L at probability position p: mu - r * Phi^-1(p), +inf at p = 0."""
        p = check.probability_closed("p", p)
        return check.scalar_or_array(self.loss_mean - self.ratio * special.ndtri(p))

    def loss_exceeds(self, epsilon):
        """P[L > epsilon] = Phi(r/2 - epsilon/r)."""
        epsilon = check.epsilon(epsilon)
        with np.errstate(under="ignore"):
            # Through log_ndtr, so that the width stays accurate deep into the tail.
            width = np.exp(special.log_ndtr(_gaussian_upper(epsilon, self.ratio)))
        return check.scalar_or_array(width)

    def log_delta(self, epsilon):
        """ln delta, accurate where delta itself underflows (epsilon = 1000, sigma = 1)."""
        epsilon = check.epsilon(epsilon)
        return check.scalar_or_array(_gaussian_log_delta(epsilon, self.ratio))


def _normal_density(offset, sigma):
    """exp(-(offset / sigma)**2 / 2) / (sigma sqrt(2 pi)), without needless overflow."""
    with np.errstate(over="ignore", under="ignore"):
        z = offset / sigma
        density = np.exp(-(z * z) / 2.0 - np.log(sigma) - _HALF_LOG_2PI)
        if sigma > 1e-300:
            density = np.exp(-(z * z) / 2.0) / (sigma * np.sqrt(2.0 * np.pi))
    return check.scalar_or_array(density)


def gaussian_log_delta(epsilon, ratio):
    """ln of the Gaussian mechanism's tight delta, for arrays of epsilon and ratio.

    The closed form of ``GaussianNoise.log_delta`` with ratio = sensitivity / sigma,
    broadcast over both (whole calibration curves at once), for every epsilon >= 0
    (inf gives -inf) and every finite ratio > 0; accurate to 1e-12 relative or 1e-13
    absolute (see ``_gaussian_log_delta``).

    Args:
      epsilon: privacy budget(s), >= 0.
      ratio: sensitivity / sigma, finite and > 0.

    Taught in: 06-calibrate-gaussian-noise.ipynb
    """
    epsilon = check.epsilon(epsilon)
    ratio = check.positive("ratio", ratio)
    return check.scalar_or_array(_gaussian_log_delta(epsilon, ratio))


# Where each form of the Gaussian delta is used (see _gaussian_log_delta).
_FAR = 20.0
_SMALL_RATIO = 0.1
_FAR_TERMS = 12
# Gauss-Legendre nodes and weights on [0, 1]: 24 points integrate the smooth, positive
# integrand below to the last digit (checked against mpmath in the tests; 20 are not).
_NODES, _WEIGHTS = np.polynomial.legendre.leggauss(24)
_NODES, _WEIGHTS = (_NODES + 1.0) / 2.0, _WEIGHTS / 2.0
_SPLIT = 2.0**27 + 1.0


def _two_product_error(x, y):
    """The rounding error of x * y (Dekker 1971): x * y == fl(x * y) + error, exactly."""

    def split(value):
        scaled = _SPLIT * value
        high = scaled - (scaled - value)
        return high, value - high

    product = x * y
    x_high, x_low = split(x)
    y_high, y_low = split(y)
    error = ((x_high * y_high - product) + x_high * y_low + x_low * y_high) + x_low * y_low
    return np.where(np.isfinite(error), error, 0.0)


def _gaussian_upper(epsilon, r):
    """r/2 - epsilon/r, with the division's remainder kept: it can cancel to few digits.

    Near epsilon = r**2 / 2 the two terms cancel; the rounding of epsilon / r (1/2 ulp of
    r/2) would then be most of the result for large r.
    """
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        quotient = epsilon / r
        upper = r / 2.0 - quotient
        # Below epsilon / r = 64 the rounding of the quotient (7e-15) moves ln delta by
        # less than 1e-14: only larger quotients (those elements alone) pay for the fix.
        large = quotient > 64.0
        if np.any(large):
            q, divisor = quotient[large], np.broadcast_to(r, quotient.shape)[large]
            # epsilon - q * r is exact (Sterbenz, then Dekker's product error).
            dividend = np.broadcast_to(epsilon, quotient.shape)[large]
            remainder = (dividend - q * divisor) - _two_product_error(q, divisor)
            correction = np.where(np.isfinite(remainder), remainder / divisor, 0.0)
            upper = np.array(upper, dtype=float)
            upper[large] = (divisor / 2.0 - q) - correction
        return upper


def _gaussian_log_delta(epsilon, r):
    """ln delta for checked arrays (see ``_gaussian_log_delta_parts``)."""
    return _gaussian_log_delta_parts(epsilon, r)[0]


def _gaussian_log_delta_parts(epsilon, r):
    """(ln delta, ln(delta / phi(a))) for checked arrays.

    delta = Phi(a) - e^epsilon Phi(a - r) with a = r/2 - epsilon/r.

    With c = -a, delta = phi(a) (M(c) - M(c + r)), where M(c) = integral over t > 0 of
    exp(-c t - t**2 / 2) is the Mills ratio sqrt(pi/2) erfcx(c / sqrt2). Four forms, each
    used where it keeps every digit:
    - a <= -20 (far tail): M's asymptotic series (12 terms), whose terms give M(c) - M(c + r)
      term by term as c**-(2n+1) (1 - (1 + r/c)**-(2n+1)), with no cancellation;
    - r <= 0.1, a > -20: the difference as one integral, r times the integral of
      exp(-c t - t**2/2) t exprel(-r t), by Gauss-Legendre quadrature;
    - r > 0.1, -20 < a < 0: the difference of two erfcx values (it loses at most 210x
      the rounding error here: 5e-14);
    - r > 0.1, a >= 0: ln(1 - complement) with the complement Phi(-a) + e^epsilon Phi(a - r)
      a sum of two positive terms, so that delta near 1 keeps its digits.
    Each element takes its own branch: alone or inside an array, it gets the same value.
    The second part, ln delta - ln phi(a), is computed without subtracting the two: the
    slope d ln(delta) / d ln(r) = r phi(a) / delta needs it where both are near -1e17.
    """
    epsilon, r = np.broadcast_arrays(np.asarray(epsilon, dtype=float), np.asarray(r, float))
    result = np.empty(epsilon.shape)
    relative = np.empty(epsilon.shape)
    upper = _gaussian_upper(epsilon, r)
    far = upper <= -_FAR
    small = ~far & (r <= _SMALL_RATIO)
    tail = ~far & ~small & (upper < 0)
    central = ~far & ~small & (upper >= 0)
    # Empty branches are skipped: their loops would cost more than the rest for short
    # arrays (which branch an element takes never depends on the others).
    with np.errstate(divide="ignore", invalid="ignore", over="ignore", under="ignore"):
        if np.any(far):
            _far_tail(upper, r, far, result, relative)
        if np.any(small):
            _small_ratio(upper, r, small, result, relative)
        if np.any(tail):
            a = upper[tail]
            b = a - r[tail]
            log_difference = np.log(special.erfcx(-a / _SQRT2) - special.erfcx(-b / _SQRT2))
            relative[tail] = _HALF_LOG_2PI - _LOG2 + log_difference
            result[tail] = -(a * a) / 2.0 - _LOG2 + log_difference
        if np.any(central):
            a = upper[central]
            b = a - r[central]
            # e^epsilon Phi(b) = exp(-a**2 / 2) erfcx(-b / sqrt2) / 2: a**2 - b**2 = -2 epsilon.
            half_square = (a * a) / 2.0
            both = special.erfcx(a / _SQRT2) + special.erfcx(-b / _SQRT2)
            complement = np.exp(-half_square) / 2.0 * both
            result[central] = np.log1p(-complement)
            relative[central] = result[central] + half_square + _HALF_LOG_2PI
    result[np.isinf(epsilon)] = -np.inf
    return result, relative


def _far_tail(upper, r, far, result, relative):
    """The far-tail branch of ``_gaussian_log_delta_parts``, in place."""
    c, ratio = -upper[far], r[far]
    shift = ratio / c
    growth = np.log1p(shift)
    # log1p(x) / x -> 1 as x -> 0, where x itself may have underflowed.
    tiny_shift = shift < 1e-30
    log_ratio = np.where(tiny_shift, 1.0, growth / np.where(tiny_shift, 1.0, shift))
    total = np.zeros(c.shape)
    term = np.ones(c.shape)
    inverse_square = 1.0 / (c * c)
    for n in range(_FAR_TERMS):
        power = 2 * n + 1
        # (1 - (1 + shift)**-power) / shift, through exprel so that no digit is lost.
        total += term * (power * log_ratio * special.exprel(-power * growth))
        term = term * (-power * inverse_square)
    relative[far] = np.log(ratio) - 2.0 * np.log(c) + np.log(total)
    result[far] = -(c * c) / 2.0 - _HALF_LOG_2PI + relative[far]


def _small_ratio(upper, r, small, result, relative):
    """The small-ratio branch (quadrature) of ``_gaussian_log_delta_parts``, in place."""
    a, ratio = upper[small], r[small]
    c = -a
    # Beyond this span the integrand is below exp(-50) of its value at 0.
    span = np.sqrt(c * c + 100.0) - c
    total = np.zeros(c.shape)
    for node, weight in zip(_NODES, _WEIGHTS, strict=True):
        t = node * span
        total += weight * (np.exp(-c * t - t * t / 2.0) * t * special.exprel(-ratio * t))
    relative[small] = np.log(ratio) + np.log(total * span)
    result[small] = -(a * a) / 2.0 - _HALF_LOG_2PI + relative[small]


@dataclass(frozen=True)
class DiscreteLaplaceNoise(PrivacyLossPair):
    """Discrete Laplace (two-sided geometric) noise: P(k) proportional to exp(-|k|/scale).

    This is the geometric mechanism; outputs and the sensitivity are whole numbers.
    Every scale > 0 for which sensitivity / scale is finite is exact (to a few ulps).
    """

    scale: float
    sensitivity: int = 1
    center: int = 0

    def __post_init__(self):
        scale = check.positive("scale", self.scale, scalar=True)
        sensitivity = check.positive_integer("sensitivity", self.sensitivity)
        center = check.whole("center", self.center)
        if not np.isfinite(sensitivity / scale):
            raise ValueError(
                "scale must be large enough that sensitivity / scale is finite, "
                f"got scale={scale!r} with sensitivity={sensitivity!r}"
            )
        object.__setattr__(self, "scale", scale)
        object.__setattr__(self, "sensitivity", sensitivity)
        object.__setattr__(self, "center", center)

    @property
    def max_loss(self):
        """Sensitivity over scale: the epsilon of pure DP that this noise gives."""
        return self.sensitivity / self.scale

    @property
    def ratio(self):
        """q = exp(-1/scale), the ratio of neighbouring probabilities."""
        with np.errstate(over="ignore", under="ignore"):
            return float(np.exp(-1.0 / np.float64(self.scale)))

    def _offsets(self, output):
        output = check.finite("output", output)
        if np.any(output != np.floor(output)):
            raise ValueError(f"output must be whole numbers, got {_describe(output)}")
        with np.errstate(over="ignore"):
            return output - float(self.center)

    def _pmf(self, offset):
        with np.errstate(over="ignore", under="ignore"):
            # (1 - q) / (1 + q) = tanh(1 / (2 scale)), without 1 - q losing digits.
            pmf = np.tanh(0.5 / np.float64(self.scale)) * np.exp(-np.abs(offset) / self.scale)
        return check.scalar_or_array(pmf)

    def _cdf(self, offset):
        """P[K <= offset] for whole numbers offset (possibly +-inf)."""
        scale, q = self.scale, self.ratio
        with np.errstate(over="ignore", under="ignore", invalid="ignore"):
            below = np.exp(np.minimum(offset, 0.0) / scale) / (1.0 + q)
            above = 1.0 - np.exp(-(np.maximum(offset, 0.0) + 1.0) / scale) / (1.0 + q)
            return np.where(offset < 0, below, above)

    def density_d1(self, output):
        """Probability that A(D1) = output."""
        return self._pmf(self._offsets(output))

    def density_d2(self, output):
        """Probability that A(D2) = output."""
        with np.errstate(over="ignore"):
            return self._pmf(self._offsets(output) - self.sensitivity)

    def privacy_loss(self, output):
        """L(output) = (|k - sensitivity| - |k|) / scale with k = output - center."""
        return _clipped_loss(self._offsets(output), float(self.sensitivity), self.scale)

    def loss_quantile(self, p):
        """L at probability position p (atoms give flat steps)."""
        p = check.probability_closed("p", p)
        scale, q = self.scale, self.ratio
        with np.errstate(over="ignore", under="ignore", divide="ignore", invalid="ignore"):
            # The smallest k with P[K <= k] >= p, from the inverted CDF, then one
            # correction step either way for rounding at the atoms' edges.
            left = p <= 1.0 / (1.0 + q)
            offset = np.where(
                left,
                np.ceil(scale * np.log(p * (1.0 + q))),
                np.ceil(-scale * np.log((1.0 - p) * (1.0 + q)) - 1.0),
            )
            offset = np.where(self._cdf(offset - 1.0) >= p, offset - 1.0, offset)
            offset = np.where(self._cdf(offset) < p, offset + 1.0, offset)
            offset = np.where(p == 0, -np.inf, np.where(p == 1, np.inf, offset))
        return _clipped_loss(offset, float(self.sensitivity), scale)

    def _last_bad_offset(self, epsilon):
        """Largest offset k whose loss (sensitivity - 2k) / scale exceeds epsilon."""
        with np.errstate(over="ignore", invalid="ignore"):
            return np.ceil((self.sensitivity - epsilon * self.scale) / 2.0) - 1.0

    def loss_exceeds(self, epsilon):
        """P[L > epsilon] with outputs drawn from A(D1)."""
        epsilon = check.epsilon(epsilon)
        below = epsilon < self.max_loss
        bad = self._last_bad_offset(np.where(below, epsilon, 0.0))
        width = np.where(below, self._cdf(bad), 0.0)
        return check.scalar_or_array(width)

    def delta(self, epsilon):
        """Tight delta: a finite geometric sum over the bad outputs, in closed form."""
        epsilon = check.epsilon(epsilon)
        q, scale, sensitivity = self.ratio, self.scale, self.sensitivity
        below = epsilon < self.max_loss
        safe = np.where(below, epsilon, 0.0)
        # The outputs k <= 0 all have the largest loss; k = 1 .. m (m < sensitivity) lie
        # on the slope and still exceed epsilon; the rest add nothing.
        inner = np.clip(self._last_bad_offset(safe), 0, sensitivity - 1)
        on_slope = inner >= 1
        with np.errstate(over="ignore", under="ignore"):
            flat_part = -np.expm1(_below_max_loss(safe, self))
            # Both factors lie in [0, 1] where inner >= 1; elsewhere the slope adds nothing
            # (and the second factor alone could overflow).
            gap = np.where(on_slope, safe - (sensitivity - inner - 1) / scale, 0.0)
            slope_part = np.where(
                on_slope, -np.expm1(-inner / scale) * q * -np.expm1(np.minimum(gap, 0.0)), 0.0
            )
        delta = np.where(below, (flat_part + slope_part) / (1.0 + q), 0.0)
        return check.scalar_or_array(np.clip(delta, 0.0, 1.0))

    def log_delta(self, epsilon):
        """ln delta; -inf at and above max_loss."""
        with np.errstate(divide="ignore"):
            return check.scalar_or_array(np.log(self.delta(epsilon)))


@dataclass(frozen=True)
class ThresholdedLaplace(PrivacyLossPair):
    """A noisy category count that is published only when it reaches ``threshold``.

    In D1 the category holds ``count`` people; in D2 it does not exist, so A(D2)
    always reports it absent. An output is the noisy count count + Lap(scale) when it is
    >= threshold, and "absent" (any smaller value, or NaN) otherwise. Every published
    count is a distinguishing event (L = inf): delta = P[published] for every epsilon
    (Figure PLRV-10). Exact for every finite threshold and scale, count > 0.
    """

    scale: float
    threshold: float
    count: float = 1.0

    def __post_init__(self):
        object.__setattr__(self, "scale", check.positive("scale", self.scale, scalar=True))
        object.__setattr__(
            self, "threshold", check.finite("threshold", self.threshold, scalar=True)
        )
        object.__setattr__(self, "count", check.positive("count", self.count, scalar=True))

    max_loss = np.inf

    @property
    def _distance(self):
        """(threshold - count) / scale: how many scales the threshold lies above the count."""
        with np.errstate(over="ignore", under="ignore"):
            return float((np.float64(self.threshold) - self.count) / self.scale)

    @property
    def published_probability(self):
        """P[A(D1) publishes the category] = P[count + Lap(scale) >= threshold]."""
        x = self._distance
        with np.errstate(under="ignore"):
            return float(-np.expm1(np.log(0.5) + x) if x <= 0 else 0.5 * np.exp(-x))

    @property
    def absent_loss(self):
        """L(absent) = ln P[A(D1) absent]: the loss of every output that is not a count."""
        x = self._distance
        with np.errstate(under="ignore"):
            return float(np.log(0.5) + x if x <= 0 else np.log1p(-0.5 * np.exp(-x)))

    def density_d1(self, output):
        """Density of A(D1) at a published count (0 below the threshold)."""
        output = check.number("output", output)
        published = output >= self.threshold
        with np.errstate(over="ignore", invalid="ignore"):
            offset = np.where(published, output - self.count, 0.0)
        density = np.where(published, _laplace_density(offset, self.scale), 0.0)
        return check.scalar_or_array(density)

    def density_d2(self, output):
        """Density of A(D2) at a published count: always 0, D2 never publishes it."""
        output = check.number("output", output)
        return check.scalar_or_array(np.zeros(np.shape(output)))

    def privacy_loss(self, output):
        """+inf for a published count; ln P[absent under D1] otherwise (NaN is absent)."""
        output = check.number("output", output)
        return check.scalar_or_array(np.where(output >= self.threshold, np.inf, self.absent_loss))

    def loss_quantile(self, p):
        """+inf on [0, P[published]), the (negative) absent loss after it."""
        p = check.probability_closed("p", p)
        loss = np.where(p < self.published_probability, np.inf, self.absent_loss)
        return check.scalar_or_array(loss)

    def loss_exceeds(self, epsilon):
        """P[L > epsilon] = P[published] for every epsilon >= 0.

        At epsilon = inf this is the limit, as for ``delta``: no epsilon, however
        large, covers an output that only D1 can produce.
        """
        epsilon = check.epsilon(epsilon)
        return check.scalar_or_array(np.full(np.shape(epsilon), self.published_probability))

    def log_delta(self, epsilon):
        """ln P[published], whatever epsilon is: every bad event is a worst case."""
        epsilon = check.epsilon(epsilon)
        x = self._distance
        log_published = np.log1p(-0.5 * np.exp(x)) if x <= 0 else np.log(0.5) - x
        return check.scalar_or_array(np.full(np.shape(epsilon), float(log_published)))

    def _epsilon_for_one_delta(self, delta):
        return 0.0 if delta >= self.published_probability else np.inf


def laplace(scale, sensitivity=1.0, *, center=0.0):
    """Neighbouring outputs of the Laplace mechanism (exact for every finite ratio
    sensitivity / scale; see ``LaplaceNoise``).

    Args:
      scale: Laplace scale b, > 0 (epsilon = sensitivity / b).
      sensitivity: distance between the two true answers, > 0.
      center: true answer on D1; D2's is center + sensitivity.
    """
    return LaplaceNoise(scale, sensitivity, center)


def gaussian(sigma, sensitivity=1.0, *, center=0.0):
    """Neighbouring outputs of the Gaussian mechanism (exact for sensitivity / sigma in
    [2.2e-308, 1e154]; see ``GaussianNoise``).

    Args:
      sigma: standard deviation of the noise, > 0.
      sensitivity: distance between the two true answers, > 0.
      center: true answer on D1; D2's is center + sensitivity.
    """
    return GaussianNoise(sigma, sensitivity, center)


def discrete_laplace(scale, sensitivity=1, *, center=0):
    """Neighbouring outputs of the geometric mechanism, P(k) proportional to exp(-|k|/scale)
    (exact for every finite ratio sensitivity / scale).

    Args:
      scale: scale of the noise, > 0 (its rate, as some libraries take it, is 1/scale).
      sensitivity: whole-number distance between the two true answers, >= 1.
      center: whole-number true answer on D1.
    """
    return DiscreteLaplaceNoise(scale, sensitivity, center)


def thresholded_laplace(scale, threshold, count=1):
    """A category count with Laplace noise, dropped when below ``threshold`` (exact for
    every scale > 0, finite threshold and count > 0).

    Args:
      scale: Laplace scale, > 0.
      threshold: smallest noisy count that is published.
      count: the category's true count in D1, > 0 (it is absent from D2).
    """
    return ThresholdedLaplace(scale, threshold, count)


# ----------------------------------------------------------------------------------------
# Randomised response: the first mechanism, and the simplest privacy loss
# ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RandomizedResponse(PrivacyLossPair):
    """Randomised response: each person reports their true yes/no answer with
    probability ``truth_probability`` = t and the other answer otherwise.

    Outputs are reports, 1 (yes) or 0 (no). D1 is the data set where the person's true
    answer is yes, D2 the one where it is no, so P[A(D1) = 1] = t and P[A(D2) = 1] = 1 - t.
    The privacy loss takes two values: L(yes) = epsilon = ln(t / (1 - t)), with
    probability t under A(D1), and L(no) = -epsilon, with probability 1 - t
    (Figure INTRO-3). Hence delta(e) = t (1 - e^(e - epsilon)) for 0 <= e < epsilon and 0
    above. Warner's coin version (heads: the truth; tails: a second coin) has t = 3/4
    and epsilon = ln 3. Exact for every t in (1/2, 1), against the definition at 50
    digits, except within an ulp or two of max_loss: max_loss is ln(t / (1 - t))
    rounded to a double, and delta is 0 from there on.

    Taught in: 00-see-why-answers-need-noise.ipynb
    """

    truth_probability: float

    def __post_init__(self):
        t = check.scalar("truth_probability", self.truth_probability)
        if not 0.5 < t < 1.0:
            raise ValueError(
                "truth_probability must lie strictly between 1/2 and 1 (at 1/2 a report says "
                f"nothing, at 1 it is the truth), got {self.truth_probability!r}"
            )
        object.__setattr__(self, "truth_probability", t)

    @property
    def max_loss(self):
        """epsilon = ln(t / (1 - t)): the loss of a "yes" report, the pure DP epsilon."""
        t = self.truth_probability
        # t / (1 - t) = 1 + (2t - 1) / (1 - t), where 2t - 1 and 1 - t are exact for t in
        # [1/2, 1] (Sterbenz): one rounding in all, even where epsilon is tiny (t near 1/2).
        return float(np.log1p((2.0 * t - 1.0) / (1.0 - t)))

    @property
    def epsilon(self):
        """The same number as ``max_loss``: randomised response is epsilon-DP for it."""
        return self.max_loss

    @property
    def loss_atoms(self):
        """The loss values (decreasing), +epsilon and -epsilon, and their masses t, 1 - t."""
        t = self.truth_probability
        return np.array([self.max_loss, -self.max_loss]), np.array([t, 1.0 - t])

    @property
    def loss_mean(self):
        """E[L] = (2t - 1) epsilon under A(D1): the KL divergence of the two report laws."""
        return float((2.0 * self.truth_probability - 1.0) * self.max_loss)

    def _reports(self, output):
        output = check.finite("output", output)
        if np.any((output != 0) & (output != 1)):
            bad = output[(output != 0) & (output != 1)]
            raise ValueError(f"output must be reports 0 (no) or 1 (yes), got {_describe(bad)}")
        return output

    def density_d1(self, output):
        """P[A(D1) = output]: t for a yes (1), 1 - t for a no (0)."""
        yes = self._reports(output) == 1
        t = self.truth_probability
        return check.scalar_or_array(np.where(yes, t, 1.0 - t))

    def density_d2(self, output):
        """P[A(D2) = output]: 1 - t for a yes (1), t for a no (0)."""
        yes = self._reports(output) == 1
        t = self.truth_probability
        return check.scalar_or_array(np.where(yes, 1.0 - t, t))

    def privacy_loss(self, output):
        """L(output): +epsilon for a yes report, -epsilon for a no."""
        yes = self._reports(output) == 1
        return check.scalar_or_array(np.where(yes, self.max_loss, -self.max_loss))

    def loss_quantile(self, p):
        """L at probability position p: +epsilon on [0, t), -epsilon on [t, 1]."""
        p = check.probability_closed("p", p)
        bound = self.max_loss
        return check.scalar_or_array(np.where(p < self.truth_probability, bound, -bound))

    def loss_cdf(self, x):
        """P[L <= x] under A(D1): 0 below -epsilon, 1 - t up to epsilon, 1 from there."""
        x = check.number("x", x)
        if np.any(np.isnan(x)):
            raise ValueError(f"x must not be NaN, got {_describe(x[np.isnan(x)])}")
        bound, t = self.max_loss, self.truth_probability
        cdf = np.where(x < -bound, 0.0, np.where(x < bound, 1.0 - t, 1.0))
        return check.scalar_or_array(cdf)

    def loss_exceeds(self, epsilon):
        """P[L > epsilon]: t below the loss of a yes, 0 from there."""
        epsilon = check.epsilon(epsilon)
        width = np.where(epsilon < self.max_loss, self.truth_probability, 0.0)
        return check.scalar_or_array(width)

    def delta(self, epsilon):
        """Tight delta: t (1 - e^(epsilon - max_loss)) below max_loss, else 0.

        Only the yes report is a bad event (the no report's loss -max_loss < 0). In the
        lower half the same number is written (2t - 1) - (1 - t)(e^epsilon - 1), exact
        at epsilon = 0 (2t - 1, the total variation distance); near max_loss the error
        is that of max_loss itself, about 1e-16 * max_loss / (max_loss - epsilon)
        relative.
        """
        epsilon = check.epsilon(epsilon)
        t, top = self.truth_probability, self.max_loss
        with np.errstate(over="ignore", invalid="ignore"):
            low = (2.0 * t - 1.0) - (1.0 - t) * np.expm1(np.minimum(epsilon, top))
            high = t * -np.expm1(np.minimum(epsilon - top, 0.0))
            delta = np.where(epsilon <= top / 2.0, low, high)
        delta = np.where(epsilon < top, np.clip(delta, 0.0, 1.0), 0.0)
        return check.scalar_or_array(delta)

    def log_delta(self, epsilon):
        """ln delta; -inf at and above max_loss."""
        with np.errstate(divide="ignore"):
            return check.scalar_or_array(np.log(self.delta(epsilon)))

    def _epsilon_for_one_delta(self, delta):
        # delta(e) solved for e, from whichever form of ``delta`` is accurate there.
        t, top = self.truth_probability, self.max_loss
        if delta >= 2.0 * t - 1.0:
            return 0.0
        if delta >= t * -np.expm1(-top / 2.0):
            return float(np.log1p(((2.0 * t - 1.0) - delta) / (1.0 - t)))
        return max(top + float(np.log1p(-delta / t)), 0.0)


def randomized_response(truth_probability):
    """Neighbouring reports of randomised response (see ``RandomizedResponse``).

    Args:
      truth_probability: t = P[report = true answer], in (1/2, 1); epsilon = ln(t/(1 - t))
        (t = 3/4, the two fair coins, gives ln 3).

    Taught in: 00-see-why-answers-need-noise.ipynb
    """
    return RandomizedResponse(truth_probability)


__all__ += ["RandomizedResponse", "randomized_response"]
