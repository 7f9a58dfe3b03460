"""Mechanisms that add noise to a query answer, and the samplers behind them.

Which samplers are exact:
- ``geometric_mechanism`` adds integer noise (the difference of two geometric draws)
  to an integer answer: its outputs are integers and nearly every integer can come
  from either neighbour; only the extreme tails of numpy's floating-point geometric
  sampler, with probability around 2**-53, can reveal the input.
  ``dplearn.floating_point`` has exact samplers.
- ``laplace_mechanism``, ``gaussian_mechanism`` and ``sample_laplace_inverse_cdf``
  use floating-point noise. They are for teaching: the set of doubles an answer of 0
  can produce differs from the set an answer of 1 can (Mironov 2012), which breaks
  the guarantee. Real releases use a vetted library (OpenDP, for example) with exact
  samplers.

Taught in: 05-add-laplace-and-geometric-noise.ipynb, 06-calibrate-gaussian-noise.ipynb,
07-add-noise-in-practice.ipynb
"""

from __future__ import annotations

import numpy as np

from dplearn import _validation as check
from dplearn.calibration import (
    gaussian_sigma_analytic,
    gaussian_sigma_classic,
    laplace_scale,
)

__all__ = [
    "laplace_mechanism",
    "gaussian_mechanism",
    "geometric_mechanism",
    "sample_laplace_inverse_cdf",
    "within_tolerance_probability",
    "central_interval",
]

# random() returns k * 2**-53 for k in [0, 2**53). Subtracting this constant gives
# U = (k + 1/2) * 2**-53 - 1/2 exactly: symmetric about 0, never 0, never +-1/2.
_OPEN_INTERVAL_SHIFT = 0.5 - 2.0**-54

# The largest noise, in scales, that the samplers here can return: numpy's Laplace and
# the inverse CDF above stop at 53 ln 2 = 36.7 scales (their uniform draws are
# multiples of 2**-53); numpy's normal sampler stays well inside 40 standard deviations.
_MOST_SCALES = 40.0
_LARGEST = np.finfo(float).max

# Below this epsilon / sensitivity the geometric draws (mean about sensitivity /
# epsilon) would approach the int64 range, where numpy saturates them.
_SMALLEST_GEOMETRIC_RATE = 2.0**-40


def _check_room(value, scale, source):
    """Raises unless value + noise of at most _MOST_SCALES scales stays a finite double."""
    largest = float(np.max(np.abs(value), initial=0.0))
    if not largest + _MOST_SCALES * scale <= _LARGEST:
        raise ValueError(
            f"{source} give a noise scale of {scale!r}, too large for the noisy answer "
            f"(values up to {largest!r}) to stay below 1.8e308"
        )


def _check_size(size):
    """A sample count or shape: whole numbers >= 0."""
    shape = size if isinstance(size, tuple | list) else (size,)
    try:
        return tuple(check.whole("size", item, minimum=0) for item in shape)
    except ValueError:
        raise ValueError(
            f"size must be a whole number >= 0 or a tuple of them, got {size!r}"
        ) from None


def sample_laplace_inverse_cdf(scale=1.0, loc=0.0, *, rng, size=None):
    """Laplace samples by the inverse CDF: X = loc - scale * sgn(U) * ln(1 - 2|U|).

    U must be uniform on the open interval (-1/2, 1/2): at either end ln 0 appears.
    ``rng.random() - 0.5`` lies in [-1/2, 1/2) and can return -1/2; here U is built on
    the grid of midpoints, so every sample is finite. For teaching only (see the module
    docstring). Any scale with |loc| + 40 scale below 1.8e308 (others raise a ValueError).

    Args:
      scale: Laplace scale b, > 0.
      loc: centre of the distribution, finite.
      rng: a numpy.random.Generator.
      size: number (or shape) of samples; None for one sample, returned as a float.

    Taught in: 07-add-noise-in-practice.ipynb
    """
    shape = () if size is None else _check_size(size)
    scale = check.positive("scale", scale, scalar=True)
    loc = check.finite("loc", loc, scalar=True)
    _check_room(loc, scale, f"scale={scale!r} and loc={loc!r}")
    uniform = check.generator(rng).random(shape)
    uniform -= _OPEN_INTERVAL_SHIFT
    # 1 - 2|U| is computed exactly and lies in (0, 1), so its log is finite and <= 0;
    # -sgn(U) * ln(1 - 2|U|) is that log's magnitude with U's sign.
    samples = np.abs(uniform)
    samples *= -2.0
    samples += 1.0
    np.log(samples, out=samples)
    np.copysign(samples, uniform, out=samples)
    samples *= scale
    samples += loc
    return float(samples) if size is None else samples


def laplace_mechanism(value, epsilon, sensitivity=1.0, *, rng):
    """value + Lap(sensitivity / epsilon), elementwise: epsilon-DP for l1 sensitivity.

    Floating-point noise: for teaching (see the module docstring). Any epsilon and
    sensitivity whose scale keeps |value| + 40 scales below 1.8e308.

    Args:
      value: true answer (scalar or array).
      epsilon: privacy budget, > 0.
      sensitivity: l1 sensitivity of the query, > 0.
      rng: a numpy.random.Generator.
    """
    value = check.finite("value", value)
    epsilon = check.positive("epsilon", epsilon, scalar=True)
    sensitivity = check.positive("sensitivity", sensitivity, scalar=True)
    scale = laplace_scale(epsilon, sensitivity)
    _check_room(value, scale, f"epsilon={epsilon!r} and sensitivity={sensitivity!r}")
    return check.scalar_or_array(value + check.generator(rng).laplace(0.0, scale, value.shape))


def gaussian_mechanism(value, epsilon, delta, sensitivity=1.0, *, rng, calibration="analytic"):
    """value + N(0, sigma^2), elementwise: (epsilon, delta)-DP for l2 sensitivity.

    Floating-point noise: for teaching (see the module docstring). Every (epsilon, delta)
    that ``calibration`` can calibrate, while |value| + 40 sigma stays below 1.8e308.

    Args:
      value: true answer (scalar or array).
      epsilon: privacy budget, > 0.
      delta: allowed failure mass, in (0, 1).
      sensitivity: l2 sensitivity of the query, > 0.
      rng: a numpy.random.Generator.
      calibration: "analytic" (the smallest sigma) or "classic" (sqrt(2 ln(1.25/delta))).
    """
    value = check.finite("value", value)
    epsilon = check.positive("epsilon", epsilon, scalar=True)
    delta = check.probability_open("delta", delta, scalar=True)
    sensitivity = check.positive("sensitivity", sensitivity, scalar=True)
    if calibration == "analytic":
        sigma = gaussian_sigma_analytic(epsilon, delta, sensitivity)
    elif calibration == "classic":
        sigma = gaussian_sigma_classic(epsilon, delta, sensitivity)
    else:
        raise ValueError(f"calibration must be 'analytic' or 'classic', got {calibration!r}")
    _check_room(
        value, sigma, f"epsilon={epsilon!r}, delta={delta!r} and sensitivity={sensitivity!r}"
    )
    return check.scalar_or_array(value + check.generator(rng).normal(0.0, sigma, value.shape))


def geometric_mechanism(value, epsilon, sensitivity=1, *, rng):
    """value + discrete Laplace noise with P(k) proportional to exp(-epsilon |k| / sensitivity).

    The noise is the difference of two geometric draws, an integer: outputs are integers.
    Exact (up to numpy's floating-point geometric sampler) for epsilon / sensitivity >=
    2**-40; below that the draws would saturate numpy's int64 range, and a ValueError
    says so.

    Args:
      value: true integer answer (scalar or array), below 2**53 in size.
      epsilon: privacy budget, >= 2**-40 * sensitivity.
      sensitivity: whole-number l1 sensitivity, >= 1.
      rng: a numpy.random.Generator.
    """
    array = check.finite("value", value)
    # Beyond 2**53 a float no longer holds every integer, and int64 soon overflows.
    if np.any(array != np.floor(array)) or np.any(np.abs(array) >= 2.0**53):
        raise ValueError(f"value must be whole numbers below 2**53 in size, got {value!r}")
    epsilon = check.positive("epsilon", epsilon, scalar=True)
    sensitivity = check.positive_integer("sensitivity", sensitivity)
    rate = epsilon / sensitivity
    if not rate >= _SMALLEST_GEOMETRIC_RATE:
        raise ValueError(
            f"epsilon must be at least 2**-40 * sensitivity for the geometric sampler, "
            f"got epsilon={epsilon!r} with sensitivity={sensitivity!r}"
        )
    rng = check.generator(rng)
    # P(G = g) = (1 - q) q**(g - 1) for g >= 1; the difference of two is discrete Laplace.
    success = -np.expm1(-rate)
    noise = rng.geometric(success, array.shape) - rng.geometric(success, array.shape)
    result = array.astype(np.int64) + noise
    return int(result) if result.ndim == 0 else result


def within_tolerance_probability(epsilon, sensitivity, tolerance):
    """P[|rint(answer + Lap(sensitivity/epsilon)) - answer| <= tolerance] for an integer answer.

    Rounding to the nearest integer keeps the answer within the tolerance exactly when
    |noise| < tolerance + 1/2 (a tie has probability 0), so the probability is
    1 - exp(-(tolerance + 1/2) * epsilon / sensitivity).

    Taught in: 07-add-noise-in-practice.ipynb
    """
    sensitivity = check.positive("sensitivity", sensitivity, scalar=True)
    scale = float(sensitivity / check.positive("epsilon", epsilon, scalar=True))
    tolerance = check.whole("tolerance", tolerance, 0)
    return float(-np.expm1(-(tolerance + 0.5) / scale))


def central_interval(scale, coverage=0.8):
    """Smallest k with P[|rint(Lap(scale))| <= k] >= coverage, and that probability.

    Taught in: 07-add-noise-in-practice.ipynb
    """
    scale = float(check.positive("scale", scale, scalar=True))
    coverage = float(check.probability_open("coverage", coverage, scalar=True))
    half_width = max(0, int(np.ceil(scale * np.log(1.0 / (1.0 - coverage)) - 0.5)))
    # Guard against rounding in the ceiling: step until the coverage truly holds.
    while -np.expm1(-(half_width + 0.5) / scale) < coverage:
        half_width += 1
    return half_width, float(-np.expm1(-(half_width + 0.5) / scale))
