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
]

# random() returns k * 2**-53 for k in [0, 2**53). Subtracting this constant gives
# U = (k + 1/2) * 2**-53 - 1/2 exactly: symmetric about 0, never 0, never +-1/2.
_OPEN_INTERVAL_SHIFT = 0.5 - 2.0**-54


def sample_laplace_inverse_cdf(size, scale=1.0, loc=0.0, *, rng):
    """Laplace samples by the inverse CDF: X = loc - scale * sgn(U) * ln(1 - 2|U|).

    U must be uniform on the open interval (-1/2, 1/2): at either end ln 0 appears.
    ``rng.random() - 0.5`` lies in [-1/2, 1/2) and can return -1/2; here U is built on
    the grid of midpoints, so every sample is finite. For teaching only (see the module
    docstring).

    Args:
      size: number (or shape) of samples.
      scale: Laplace scale b, > 0.
      loc: centre of the distribution, finite.
      rng: a numpy.random.Generator.

    Taught in: 07-add-noise-in-practice.ipynb
    """
    scale = float(check.positive("scale", scale))
    loc = float(check.finite("loc", loc))
    uniform = check.generator(rng).random(size)
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
    return samples


def laplace_mechanism(value, epsilon, sensitivity=1.0, *, rng):
    """value + Lap(sensitivity / epsilon), elementwise: epsilon-DP for l1 sensitivity.

    Floating-point noise: for teaching (see the module docstring).

    Args:
      value: true answer (scalar or array).
      epsilon: privacy budget, > 0.
      sensitivity: l1 sensitivity of the query, > 0.
      rng: a numpy.random.Generator.
    """
    value = check.finite("value", value)
    scale = laplace_scale(epsilon, sensitivity)
    return check.scalar_or_array(value + check.generator(rng).laplace(0.0, scale, value.shape))


def gaussian_mechanism(value, epsilon, delta, sensitivity=1.0, *, rng, calibration="analytic"):
    """value + N(0, sigma^2), elementwise: (epsilon, delta)-DP for l2 sensitivity.

    Floating-point noise: for teaching (see the module docstring).

    Args:
      value: true answer (scalar or array).
      epsilon: privacy budget, > 0.
      delta: allowed failure mass, in (0, 1).
      sensitivity: l2 sensitivity of the query, > 0.
      rng: a numpy.random.Generator.
      calibration: "analytic" (the smallest sigma) or "classic" (sqrt(2 ln(1.25/delta))).
    """
    value = check.finite("value", value)
    if calibration == "analytic":
        sigma = gaussian_sigma_analytic(epsilon, delta, sensitivity)
    elif calibration == "classic":
        sigma = gaussian_sigma_classic(epsilon, delta, sensitivity)
    else:
        raise ValueError(f"calibration must be 'analytic' or 'classic', got {calibration!r}")
    return check.scalar_or_array(value + check.generator(rng).normal(0.0, sigma, value.shape))


def geometric_mechanism(value, epsilon, sensitivity=1, *, rng):
    """value + discrete Laplace noise with P(k) proportional to exp(-epsilon |k| / sensitivity).

    The noise is the difference of two geometric draws, an integer: outputs are integers.

    Args:
      value: true integer answer (scalar or array).
      epsilon: privacy budget, > 0.
      sensitivity: whole-number l1 sensitivity, >= 1.
      rng: a numpy.random.Generator.
    """
    array = check.finite("value", value)
    # Beyond 2**53 a float no longer holds every integer, and int64 soon overflows.
    if np.any(array != np.floor(array)) or np.any(np.abs(array) >= 2.0**53):
        raise ValueError(f"value must be whole numbers below 2**53 in size, got {value!r}")
    epsilon = float(check.positive("epsilon", epsilon))
    sensitivity = check.positive_integer("sensitivity", sensitivity)
    rng = check.generator(rng)
    # P(G = g) = (1 - q) q**(g - 1) for g >= 1; the difference of two is discrete Laplace.
    success = -np.expm1(-epsilon / sensitivity)
    noise = rng.geometric(success, array.shape) - rng.geometric(success, array.shape)
    result = array.astype(np.int64) + noise
    return int(result) if result.ndim == 0 else result
