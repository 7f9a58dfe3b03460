"""The Gaussian pair and its tight delta in log space (Balle & Wang 2018, Theorem 8).

Taught in: 01-measure-privacy-loss.ipynb, 02-see-what-delta-means.ipynb,
06-calibrate-gaussian-noise.ipynb
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import special

from dplearn import _validation as check
from dplearn.privacy_loss._pair import (
    _HALF_LOG_2PI,
    _LOG2,
    _RATIO_MAX,
    _SQRT2,
    _TINY,
    PrivacyLossPair,
    _check_noise,
    _offsets,
    _two_product_error,
)


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


#: The ratios sensitivity / sigma that Gaussian noise accepts: below, a ratio has lost
#: digits as a subnormal; above, the loss mean ratio**2 / 2 overflows.
GAUSSIAN_RATIO_RANGE = (_TINY, _RATIO_MAX)


def gaussian_log_delta_terms(epsilon, ratio):
    """(ln delta, ln(delta / phi(a))) of Gaussian noise, for solvers: no argument checks.

    a = ratio / 2 - epsilon / ratio. The second term gives the slope d ln(delta) / d ln(ratio)
    = ratio phi(a) / delta without cancellation. The same closed forms as
    ``gaussian_log_delta``, for float arrays already checked (epsilon >= 0, ratio within
    ``GAUSSIAN_RATIO_RANGE``); a root finder calls it many times on the same arrays.

    Args:
      epsilon: float array, >= 0.
      ratio: float array, sensitivity / sigma.

    Returns:
      (log_delta, log_delta_over_density): two float arrays of the broadcast shape.

    Taught in: 06-calibrate-gaussian-noise.ipynb
    """
    return _gaussian_log_delta_parts(epsilon, ratio)


def gaussian_tail_point(epsilon, ratio):
    """a = ratio / 2 - epsilon / ratio to the last digit, for solvers: no argument checks.

    Near epsilon = ratio**2 / 2 the two terms cancel; the division's remainder is kept, so
    that a keeps its digits there. delta = Phi(a) - e^epsilon Phi(a - ratio).

    Args:
      epsilon: float array, >= 0.
      ratio: float array, sensitivity / sigma.

    Returns:
      A float array of the broadcast shape.
    """
    return _gaussian_upper(epsilon, ratio)


# Where each form of the Gaussian delta is used (see _gaussian_log_delta).
_FAR = 20.0
_SMALL_RATIO = 0.1
_FAR_TERMS = 12
# Gauss-Legendre nodes and weights on [0, 1]: 24 points integrate the smooth, positive
# integrand below to the last digit (checked against mpmath in the tests; 20 are not).
_NODES, _WEIGHTS = np.polynomial.legendre.leggauss(24)
_NODES, _WEIGHTS = (_NODES + 1.0) / 2.0, _WEIGHTS / 2.0


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


def gaussian(sigma, sensitivity=1.0, *, center=0.0):
    """Neighbouring outputs of the Gaussian mechanism.

    Exact for sensitivity / sigma in [2.2e-308, 1e154]; see ``GaussianNoise``.

    Args:
      sigma: standard deviation of the noise, > 0.
      sensitivity: distance between the two true answers, > 0.
      center: true answer on D1; D2's is center + sensitivity.
    """
    return GaussianNoise(sigma, sensitivity, center)


def output_at_position(noise, position):
    """The Gaussian output whose probability position (outputs sorted by decreasing L) is p.

    L decreases with the output, so the position is P[A(D1) <= output].

    Taught in: 02-see-what-delta-means.ipynb
    """
    return noise.center + noise.sigma * special.ndtri(position)
