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

All methods take numpy arrays and broadcast; a scalar argument gives a float.

Taught in: 01-measure-privacy-loss.ipynb, 02-see-what-delta-means.ipynb,
03-spot-distinguishing-events.ipynb
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import optimize, special, stats

from dplearn import _validation as check

_SQRT2 = np.sqrt(2.0)
_LOG2 = np.log(2.0)

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

        return optimize.brentq(gap, 0.0, upper, xtol=1e-15, rtol=4 * np.finfo(float).eps)


@dataclass(frozen=True)
class LaplaceNoise(PrivacyLossPair):
    """Laplace noise of scale ``scale`` added to a query of sensitivity ``sensitivity``.

    The loss has an atom of mass 1/2 at +sensitivity/scale, a straight middle part,
    and an atom of mass exp(-sensitivity/scale)/2 at -sensitivity/scale
    (Figures PLRV-1 to PLRV-3).
    """

    scale: float
    sensitivity: float = 1.0
    center: float = 0.0

    def __post_init__(self):
        object.__setattr__(self, "scale", float(check.positive("scale", self.scale)))
        object.__setattr__(
            self, "sensitivity", float(check.positive("sensitivity", self.sensitivity))
        )
        object.__setattr__(self, "center", float(check.finite("center", self.center)))

    @property
    def max_loss(self):
        """Sensitivity over scale: the epsilon of pure DP that this noise gives."""
        return self.sensitivity / self.scale

    def density_d1(self, output):
        """Density of A(D1) at output."""
        return stats.laplace.pdf(output, loc=self.center, scale=self.scale)

    def density_d2(self, output):
        """Density of A(D2) at output."""
        return stats.laplace.pdf(output, loc=self.center + self.sensitivity, scale=self.scale)

    def privacy_loss(self, output):
        """L(output) = ln(density_d1 / density_d2), between -max_loss and +max_loss."""
        offset = np.asarray(output, dtype=float) - self.center
        loss = (np.abs(offset - self.sensitivity) - np.abs(offset)) / self.scale
        return check.scalar_or_array(loss)

    def loss_quantile(self, p):
        """L at probability position p, outputs sorted by decreasing L."""
        p = check.probability_closed("p", p)
        bound = self.max_loss
        with np.errstate(divide="ignore"):
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
            gap = np.where(below, (epsilon - self.max_loss) / 2.0, -1.0)
            result = np.where(below, np.log(-np.expm1(gap)), -np.inf)
        return check.scalar_or_array(result)

    def _epsilon_for_one_delta(self, delta):
        if delta >= -np.expm1(-self.max_loss / 2.0):
            return 0.0
        return self.max_loss + 2.0 * np.log1p(-delta)


@dataclass(frozen=True)
class GaussianNoise(PrivacyLossPair):
    """Gaussian noise of standard deviation ``sigma``; the loss is N(mu, 2 mu).

    With r = sensitivity / sigma and mu = r**2 / 2, P[L > epsilon] = Phi(r/2 - epsilon/r)
    and delta = Phi(r/2 - epsilon/r) - exp(epsilon) Phi(-r/2 - epsilon/r)
    (Balle & Wang 2018, Theorem 8), evaluated here in log space
    (Figures PLRV-4 to PLRV-9).
    """

    sigma: float
    sensitivity: float = 1.0
    center: float = 0.0

    def __post_init__(self):
        object.__setattr__(self, "sigma", float(check.positive("sigma", self.sigma)))
        object.__setattr__(
            self, "sensitivity", float(check.positive("sensitivity", self.sensitivity))
        )
        object.__setattr__(self, "center", float(check.finite("center", self.center)))

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
        """Density of A(D1) at output."""
        return stats.norm.pdf(output, loc=self.center, scale=self.sigma)

    def density_d2(self, output):
        """Density of A(D2) at output."""
        return stats.norm.pdf(output, loc=self.center + self.sensitivity, scale=self.sigma)

    def privacy_loss(self, output):
        """L(output): a straight, unbounded line in the output."""
        offset = np.asarray(output, dtype=float) - self.center
        # Written with r = sensitivity / sigma, so that no sigma**2 overflows.
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
            width = np.exp(special.log_ndtr(self.ratio / 2.0 - epsilon / self.ratio))
        return check.scalar_or_array(width)

    def log_delta(self, epsilon):
        """ln delta, accurate where delta itself underflows (epsilon = 1000, sigma = 1)."""
        epsilon = check.epsilon(epsilon)
        return check.scalar_or_array(gaussian_log_delta(epsilon, self.ratio))


def gaussian_log_delta(epsilon, ratio):
    """ln of the Gaussian mechanism's tight delta, for arrays of epsilon and ratio.

    The closed form of ``GaussianNoise.log_delta`` with ratio = sensitivity / sigma,
    broadcast over both (whole calibration curves at once). Arguments are not checked:
    epsilon >= 0, ratio > 0.
    """
    epsilon, r = np.broadcast_arrays(np.asarray(epsilon, dtype=float), np.asarray(ratio, float))
    upper = r / 2.0 - epsilon / r  # delta = Phi(upper) - e^epsilon Phi(upper - r)
    lower = upper - r
    result = np.empty(np.shape(upper))
    central = upper >= 0
    with np.errstate(divide="ignore", invalid="ignore", over="ignore", under="ignore"):
        # Here epsilon <= r**2 / 2, so exp(epsilon) cannot overflow and the two terms
        # differ by at least a few percent: the direct difference is accurate.
        result[central] = np.log(
            special.ndtr(upper[central])
            - np.exp(epsilon[central] + special.log_ndtr(lower[central]))
        )
        # In the tail, Phi(x) = erfcx(-x/sqrt2) exp(-x^2/2) / 2, and the two Gaussian
        # factors cancel e^epsilon exactly (upper^2 - lower^2 = -2 epsilon), leaving
        # delta = exp(-upper^2/2) (erfcx(-upper/sqrt2) - erfcx(-lower/sqrt2)) / 2.
        tail = ~central
        a, b = upper[tail], lower[tail]
        difference = special.erfcx(-a / _SQRT2) - special.erfcx(-b / _SQRT2)
        result[tail] = -(a**2) / 2.0 + np.log(difference) - _LOG2
    result[np.isinf(epsilon) | np.isneginf(upper)] = -np.inf
    return result


@dataclass(frozen=True)
class DiscreteLaplaceNoise(PrivacyLossPair):
    """Discrete Laplace (two-sided geometric) noise: P(k) proportional to exp(-|k|/scale).

    This is the geometric mechanism; outputs and the sensitivity are whole numbers.
    """

    scale: float
    sensitivity: int = 1
    center: int = 0

    def __post_init__(self):
        object.__setattr__(self, "scale", float(check.positive("scale", self.scale)))
        object.__setattr__(
            self, "sensitivity", check.positive_integer("sensitivity", self.sensitivity)
        )
        center = check.finite("center", self.center)
        if center.ndim != 0 or center != np.floor(center):
            raise ValueError(f"center must be a whole number, got {self.center!r}")
        object.__setattr__(self, "center", int(center))

    @property
    def max_loss(self):
        """Sensitivity over scale: the epsilon of pure DP that this noise gives."""
        return self.sensitivity / self.scale

    @property
    def ratio(self):
        """q = exp(-1/scale), the ratio of neighbouring probabilities."""
        return np.exp(-1.0 / self.scale)

    def _offsets(self, output):
        output = np.asarray(output, dtype=float)
        if np.any(output != np.floor(output)):
            raise ValueError(f"output must be whole numbers, got {output!r}")
        return output - self.center

    def density_d1(self, output):
        """Probability that A(D1) = output."""
        return stats.dlaplace.pmf(self._offsets(output), 1.0 / self.scale)

    def density_d2(self, output):
        """Probability that A(D2) = output."""
        return stats.dlaplace.pmf(self._offsets(output) - self.sensitivity, 1.0 / self.scale)

    def privacy_loss(self, output):
        """L(output) = (|k - sensitivity| - |k|) / scale with k = output - center."""
        offset = self._offsets(output)
        loss = (np.abs(offset - self.sensitivity) - np.abs(offset)) / self.scale
        return check.scalar_or_array(loss)

    def loss_quantile(self, p):
        """L at probability position p (atoms give flat steps)."""
        p = check.probability_closed("p", p)
        offset = stats.dlaplace.ppf(p, 1.0 / self.scale)
        bound = self.max_loss
        with np.errstate(invalid="ignore"):
            loss = np.clip((self.sensitivity - 2.0 * offset) / self.scale, -bound, bound)
        return check.scalar_or_array(loss)

    def _last_bad_offset(self, epsilon):
        """Largest offset k whose loss (sensitivity - 2k) / scale exceeds epsilon."""
        return np.ceil((self.sensitivity - epsilon * self.scale) / 2.0) - 1.0

    def loss_exceeds(self, epsilon):
        """P[L > epsilon] with outputs drawn from A(D1)."""
        epsilon = check.epsilon(epsilon)
        with np.errstate(invalid="ignore"):
            width = np.where(
                epsilon >= self.max_loss,
                0.0,
                stats.dlaplace.cdf(self._last_bad_offset(epsilon), 1.0 / self.scale),
            )
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
        flat_part = -np.expm1(safe - self.max_loss)
        slope_part = (
            -np.expm1(-inner / scale) * -q * np.expm1(safe - (sensitivity - inner - 1) / scale)
        )
        delta = np.where(below, (flat_part + slope_part) / (1.0 + q), 0.0)
        return check.scalar_or_array(np.maximum(delta, 0.0))

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
    (Figure PLRV-10).
    """

    scale: float
    threshold: float
    count: float = 1.0

    def __post_init__(self):
        object.__setattr__(self, "scale", float(check.positive("scale", self.scale)))
        object.__setattr__(self, "threshold", float(check.finite("threshold", self.threshold)))
        object.__setattr__(self, "count", float(check.positive("count", self.count)))

    max_loss = np.inf

    @property
    def published_probability(self):
        """P[A(D1) publishes the category] = P[count + Lap(scale) >= threshold]."""
        return float(stats.laplace.sf(self.threshold, loc=self.count, scale=self.scale))

    @property
    def absent_loss(self):
        """L(absent) = ln P[A(D1) absent]: the loss of every output that is not a count."""
        return float(stats.laplace.logcdf(self.threshold, loc=self.count, scale=self.scale))

    def density_d1(self, output):
        """Density of A(D1) at a published count (0 below the threshold)."""
        output = np.asarray(output, dtype=float)
        published = output >= self.threshold
        density = np.where(
            published, stats.laplace.pdf(output, loc=self.count, scale=self.scale), 0.0
        )
        return check.scalar_or_array(density)

    def density_d2(self, output):
        """Density of A(D2) at a published count: always 0, D2 never publishes it."""
        return check.scalar_or_array(np.zeros(np.shape(output)))

    def privacy_loss(self, output):
        """+inf for a published count; ln P[absent under D1] otherwise."""
        output = np.asarray(output, dtype=float)
        return check.scalar_or_array(np.where(output >= self.threshold, np.inf, self.absent_loss))

    def loss_quantile(self, p):
        """+inf on [0, P[published]), the (negative) absent loss after it."""
        p = check.probability_closed("p", p)
        loss = np.where(p < self.published_probability, np.inf, self.absent_loss)
        return check.scalar_or_array(loss)

    def loss_exceeds(self, epsilon):
        """P[L > epsilon] = P[published] for every finite epsilon >= 0."""
        epsilon = check.epsilon(epsilon)
        width = np.where(np.isinf(epsilon), 0.0, self.published_probability)
        return check.scalar_or_array(width)

    def log_delta(self, epsilon):
        """ln P[published], whatever epsilon is: every bad event is a worst case."""
        epsilon = check.epsilon(epsilon)
        log_published = stats.laplace.logsf(self.threshold, loc=self.count, scale=self.scale)
        return check.scalar_or_array(np.full(np.shape(epsilon), float(log_published)))

    def _epsilon_for_one_delta(self, delta):
        return 0.0 if delta >= self.published_probability else np.inf


def laplace(scale, sensitivity=1.0, *, center=0.0):
    """Neighbouring outputs of the Laplace mechanism.

    Args:
      scale: Laplace scale b, > 0 (epsilon = sensitivity / b).
      sensitivity: distance between the two true answers, > 0.
      center: true answer on D1; D2's is center + sensitivity.
    """
    return LaplaceNoise(scale, sensitivity, center)


def gaussian(sigma, sensitivity=1.0, *, center=0.0):
    """Neighbouring outputs of the Gaussian mechanism.

    Args:
      sigma: standard deviation of the noise, > 0.
      sensitivity: distance between the two true answers, > 0.
      center: true answer on D1; D2's is center + sensitivity.
    """
    return GaussianNoise(sigma, sensitivity, center)


def discrete_laplace(scale, sensitivity=1, *, center=0):
    """Neighbouring outputs of the geometric mechanism, P(k) proportional to exp(-|k|/scale).

    Args:
      scale: scale of the noise, > 0 (its rate, as some libraries take it, is 1/scale).
      sensitivity: whole-number distance between the two true answers, >= 1.
      center: whole-number true answer on D1.
    """
    return DiscreteLaplaceNoise(scale, sensitivity, center)


def thresholded_laplace(scale, threshold, count=1):
    """A category count with Laplace noise, dropped when below ``threshold``.

    Args:
      scale: Laplace scale, > 0.
      threshold: smallest noisy count that is published.
      count: the category's true count in D1, > 0 (it is absent from D2).
    """
    return ThresholdedLaplace(scale, threshold, count)
