"""The Laplace family: continuous Laplace, discrete Laplace (geometric), thresholded Laplace.

Taught in: 01-measure-privacy-loss.ipynb, 03-spot-distinguishing-events.ipynb,
05-add-laplace-and-geometric-noise.ipynb
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dplearn import _validation as check
from dplearn._validation import describe
from dplearn.privacy_loss._pair import (
    PrivacyLossPair,
    _below_max_loss,
    _check_noise,
    _clipped_loss,
    _laplace_density,
    _offsets,
)


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
            raise ValueError(f"output must be whole numbers, got {describe(output)}")
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
    """Neighbouring outputs of the Laplace mechanism.

    Exact for every finite ratio sensitivity / scale; see ``LaplaceNoise``.

    Args:
      scale: Laplace scale b, > 0 (epsilon = sensitivity / b).
      sensitivity: distance between the two true answers, > 0.
      center: true answer on D1; D2's is center + sensitivity.
    """
    return LaplaceNoise(scale, sensitivity, center)


def discrete_laplace(scale, sensitivity=1, *, center=0):
    """Neighbouring outputs of the geometric mechanism, P(k) proportional to exp(-|k|/scale).

    Exact for every finite ratio sensitivity / scale.

    Args:
      scale: scale of the noise, > 0 (its rate, as some libraries take it, is 1/scale).
      sensitivity: whole-number distance between the two true answers, >= 1.
      center: whole-number true answer on D1.
    """
    return DiscreteLaplaceNoise(scale, sensitivity, center)


def thresholded_laplace(scale, threshold, count=1):
    """A category count with Laplace noise, dropped when below ``threshold``.

    Exact for every scale > 0, finite threshold and count > 0.

    Args:
      scale: Laplace scale, > 0.
      threshold: smallest noisy count that is published.
      count: the category's true count in D1, > 0 (it is absent from D2).
    """
    return ThresholdedLaplace(scale, threshold, count)


def laplace_step_widths(noise):
    """Widths (top, middle, bottom) of the three parts of e^L on the probability axis.

    The top step is the atom of L at +Delta/b (outputs at or below D1's count), the
    bottom one the atom at -Delta/b (outputs at or above D2's count); the middle part
    is the slope between them. At the document's setting: 1/2, 1/3, 1/6.

    Args:
      noise: a ``privacy_loss.LaplaceNoise``.

    Taught in: 01-measure-privacy-loss.ipynb
    """
    # P[L = max_loss] = lim P[L > eps] as eps rises to max_loss: the core's closed form
    # 1 - exp((eps - max_loss)/2)/2 at eps = max_loss.
    top = 0.5
    bottom = 0.5 * np.exp(-noise.max_loss)
    return top, 1.0 - top - bottom, bottom
