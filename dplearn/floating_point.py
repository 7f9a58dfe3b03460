"""Why floating-point Laplace noise leaks, and exact integer samplers that do not.

The textbook sampler computes ``value - scale * sgn(U) * ln(1 - 2|U|)`` in doubles.
Mironov (2012), "On significance of the least significant bits for differential
privacy", showed that the set of doubles it can return depends on ``value``: some
outputs reachable from an answer of 0 cannot come from an answer of 1 at all, so
their privacy loss is infinite and the mechanism is (epsilon, delta)-DP only with a
large delta, whatever epsilon the scale was computed for.

Everything here is exhaustive over the sampler's actual inputs. ``numpy``'s
``Generator.random()`` returns k * 2**-53 for an integer draw k in [0, 2**53); the
functions below take those integers (``draws``) and apply the post's formula to them
exactly as numpy would. Along k the output never decreases (the formula is monotone in
U, and rounding each step keeps that; the tests check it on every window they
enumerate), which lets a bisection over all 2**53 draws decide whether a given double
can be produced at all.

The remedy is noise that is an integer, drawn with integer arithmetic only:
``sample_discrete_laplace`` and ``sample_discrete_gaussian`` follow Canonne, Kamath &
Steinke (2020), "The discrete Gaussian for differential privacy", with
``fractions.Fraction`` and uniform integers from a numpy Generator: their output
distribution is exactly the stated one. ``dplearn.mechanisms.geometric_mechanism`` is
the fast vectorised alternative (numpy's geometric sampler works in floating point
internally). Real releases should use a vetted library: OpenDP (opendp.org) samples
with exact arithmetic and documents its floating-point defences.

Taught in: 07-add-noise-in-practice.ipynb
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from dplearn import _validation as check

__all__ = [
    "DRAW_COUNT",
    "post_noisy_digit",
    "textbook_laplace",
    "first_draw_at_least",
    "is_reachable",
    "leak_window",
    "impossible_fraction_near",
    "distinguishing_probability",
    "bernoulli_exp_minus",
    "sample_discrete_laplace",
    "sample_discrete_gaussian",
    "discrete_laplace_pmf",
    "discrete_gaussian_pmf",
]

#: Number of distinct values of ``Generator.random()``: k * 2**-53 for k in [0, 2**53).
DRAW_COUNT = 2**53
_UNIT = 2.0**-53
# The textbook sampler's largest noise, in scales: -ln(2**-52) = 36.04 at the last draw.
_MOST_SCALES = 37.0
_LARGEST = np.finfo(float).max
#: Most draws a window (and a neighbour's matching draws) may hold: few enough for a slider.
MAX_WINDOW = 2**16
_MAX_MATCHING_DRAWS = 2**20
#: Largest scale (and sigma**2 = MAX_SCALE**2) of the exact samplers: their int64 output
#: holds 40 scales of noise.
MAX_SCALE = 2**50


def _check_room(value, scale):
    """value +- 37 scales (the textbook sampler's reach) must stay below 1.8e308."""
    if not abs(value) + _MOST_SCALES * scale <= _LARGEST:
        raise ValueError(
            f"scale must keep value +- 37 scales below 1.8e308, got scale={scale!r} "
            f"with value={value!r}"
        )


def post_noisy_digit(uniform, sensitivity=1.0, epsilon=1.0):
    """The post's ``get_noisy_digit`` with its uniform draw U given instead of sampled.

    Rounded Laplace noise ``rint(-b sgn(U) ln(1 - 2|U|))`` with b = sensitivity/epsilon.
    U = -1/2 (which ``np.random.random() - 0.5`` can return) gives ln 0: the result is
    -inf. Floating-point warnings are silenced here: callers print the value instead.

    Args:
      uniform: U, a number or array in [-1/2, 1/2].
      sensitivity: global sensitivity, > 0.
      epsilon: privacy budget, > 0.

    Taught in: 07-add-noise-in-practice.ipynb
    """
    sensitivity = check.positive("sensitivity", sensitivity, scalar=True)
    epsilon = check.positive("epsilon", epsilon, scalar=True)
    beta = sensitivity / epsilon
    if not 0 < _MOST_SCALES * beta <= _LARGEST:
        raise ValueError(
            f"epsilon must keep sensitivity / epsilon a positive double with 37 times it "
            f"below 1.8e308, got epsilon={epsilon!r} with sensitivity={sensitivity!r}"
        )
    uniform = check.number("uniform", uniform)
    if np.any(~(np.abs(uniform) <= 0.5)):
        raise ValueError(f"uniform must lie in [-1/2, 1/2], got {uniform!r}")
    with np.errstate(divide="ignore", invalid="ignore"):
        noisy = 0.0 - beta * np.sign(uniform) * np.log(1.0 - 2 * np.abs(uniform))
        return check.scalar_or_array(np.rint(noisy))


def _draw_array(draws):
    array = np.asarray(draws)
    if array.dtype.kind not in "iu":
        raise ValueError(f"draws must be integers in [0, 2**53), got dtype {array.dtype}")
    if np.any(array < 0) or np.any(array >= DRAW_COUNT):
        raise ValueError(f"draws must lie in [0, 2**53), got {draws!r}")
    return array.astype(np.int64)


def textbook_laplace(value, scale, draws):
    """value - scale * sgn(U) * ln(1 - 2|U|) in doubles, for U = random() - 1/2.

    The post's formula without its final rounding, which is what floating-point
    Laplace mechanisms publish. Draw k = 0 (U = -1/2) gives -inf, as in the post.

    Args:
      value: the true answer, finite.
      scale: Laplace scale b, > 0, with |value| + 37 b below 1.8e308 (the largest noise).
      draws: integers k in [0, 2**53); random() returned k * 2**-53.

    Returns:
      float64 array shaped like draws.

    Taught in: 07-add-noise-in-practice.ipynb
    """
    value = check.finite("value", value, scalar=True)
    scale = check.positive("scale", scale, scalar=True)
    _check_room(value, scale)
    return _textbook_outputs(value, scale, _draw_array(draws))


def _textbook_outputs(value, scale, draws):
    """``textbook_laplace`` without argument checks, for the bisections' inner loops."""
    # k * 2**-53 is exact, and so are U = that - 1/2, |U| and 1 - 2|U| (= m * 2**-52).
    uniform = draws * _UNIT - 0.5
    with np.errstate(divide="ignore"):
        return value - scale * np.sign(uniform) * np.log(1.0 - 2 * np.abs(uniform))


def first_draw_at_least(value, scale, outputs):
    """Smallest draw k whose output from ``value`` is >= each of outputs (2**53 if none).

    A bisection over all 2**53 draws, valid because the output never decreases in k.

    Args:
      value: the true answer.
      scale: Laplace scale, > 0.
      outputs: doubles (array).
    """
    outputs = _check_outputs(outputs)
    value = check.finite("value", value, scalar=True)
    scale = check.positive("scale", scale, scalar=True)
    _check_room(value, scale)
    # Start from the draw the exact inverse CDF points to and keep that bracket where it
    # provably holds (output below the target at low - 1, at least the target at high);
    # elsewhere search all draws. This only saves time: the bisection decides.
    with np.errstate(over="ignore", invalid="ignore"):
        noise = (outputs - value) / scale
        guess = np.where(noise >= 0, DRAW_COUNT - 2.0**52 * np.exp(-noise), 2.0**52 * np.exp(noise))
    guess = np.clip(np.nan_to_num(guess, nan=0.0), 0, DRAW_COUNT).astype(np.int64)
    low = np.clip(guess - 16, 0, DRAW_COUNT)
    high = np.clip(guess + 16, 0, DRAW_COUNT)
    below_low = (low == 0) | (_textbook_outputs(value, scale, np.maximum(low - 1, 0)) < outputs)
    above_high = (high == DRAW_COUNT) | (
        _textbook_outputs(value, scale, np.minimum(high, DRAW_COUNT - 1)) >= outputs
    )
    low = np.where(below_low, low, 0)
    high = np.where(above_high, high, DRAW_COUNT)
    while np.any(low < high):
        middle = (low + high) // 2
        probe = np.minimum(middle, DRAW_COUNT - 1)
        below = _textbook_outputs(value, scale, probe) < outputs
        open_ = low < high
        low = np.where(open_ & below, middle + 1, low)
        high = np.where(open_ & ~below, middle, high)
    return low


def _check_outputs(outputs):
    outputs = check.number("outputs", outputs)
    if np.any(np.isnan(outputs)):
        raise ValueError(f"outputs must not be NaN, got {outputs!r}")
    return outputs


def is_reachable(value, scale, outputs):
    """Whether the textbook sampler with true answer ``value`` can return each output.

    Exact over all 2**53 draws (see ``first_draw_at_least``).
    """
    outputs = _check_outputs(outputs)
    draw = first_draw_at_least(value, scale, outputs)
    found = textbook_laplace(value, scale, np.minimum(draw, DRAW_COUNT - 1))
    return (draw < DRAW_COUNT) & (found == outputs)


def leak_window(scale, first_draw, count, value=0.0, neighbour=1.0):
    """Every output of ``count`` consecutive draws from ``value``, checked against ``neighbour``.

    The neighbour's draws that land in the same output range are enumerated one by one,
    so the check is exhaustive: by monotonicity no other draw can land there.

    Args:
      scale: Laplace scale, > 0.
      first_draw: first draw k of the window, in [0, 2**53 - count].
      count: number of consecutive draws, in [1, MAX_WINDOW].
      value: true answer of the first data set.
      neighbour: true answer of the neighbouring data set.

    Returns:
      dict with ``outputs`` (from value, one per draw), ``neighbour_draws`` and
      ``neighbour_outputs`` (every draw of the neighbour landing in
      [min(outputs), max(outputs)]) and ``impossible`` (per output: the neighbour
      cannot produce it).

    Taught in: 07-add-noise-in-practice.ipynb
    """
    count = check.whole("count", count, 1, MAX_WINDOW)
    first_draw = check.whole("first_draw", first_draw, 0, DRAW_COUNT - count)
    draws = np.arange(first_draw, first_draw + count, dtype=np.int64)
    outputs = textbook_laplace(value, scale, draws)
    low = int(first_draw_at_least(neighbour, scale, outputs[:1])[0])
    # The first neighbour draw beyond the window's largest output.
    with np.errstate(over="ignore"):
        beyond = np.nextafter(outputs[-1], np.inf)  # inf beyond the largest double
    high = int(first_draw_at_least(neighbour, scale, [beyond])[0])
    if high - low > _MAX_MATCHING_DRAWS:
        raise ValueError(
            f"scale={scale!r} is too small for these answers: {high - low} of the "
            f"neighbour's draws land on the window's outputs (at most {_MAX_MATCHING_DRAWS})"
        )
    neighbour_draws = np.arange(low, high, dtype=np.int64)
    neighbour_outputs = textbook_laplace(neighbour, scale, neighbour_draws)
    impossible = ~np.isin(outputs, neighbour_outputs)
    return {
        "draws": draws,
        "outputs": outputs,
        "neighbour_draws": neighbour_draws,
        "neighbour_outputs": neighbour_outputs,
        "impossible": impossible,
    }


def impossible_fraction_near(scale, positions, window=32, value=0.0, neighbour=1.0):
    """For each position t, the share of draws near it whose output ``neighbour`` cannot produce.

    The draws are the ``window`` consecutive ones starting where the output from ``value``
    reaches t. That share is the local weight of outputs with infinite privacy loss.

    Taught in: 07-add-noise-in-practice.ipynb
    """
    positions = check.number("positions", positions)
    if np.any(np.isnan(positions)):
        raise ValueError(f"positions must not be NaN, got {positions!r}")
    window = check.whole("window", window, 1, MAX_WINDOW)
    start = np.minimum(first_draw_at_least(value, scale, positions), DRAW_COUNT - window)
    draws = start[:, None] + np.arange(window, dtype=np.int64)
    outputs = textbook_laplace(value, scale, draws)
    impossible = ~is_reachable(neighbour, scale, outputs)
    return impossible.mean(axis=1)


def distinguishing_probability(scale, draws, value=0.0, neighbour=1.0):
    """Monte Carlo estimate of P[L = inf], with its standard error.

    P[L = inf] is the chance that an output from ``value`` is one ``neighbour`` can never
    produce. Such outputs reveal the true answer outright, so the sampler is
    (epsilon, delta)-DP only with delta at least this probability, at every epsilon.

    Args:
      scale: Laplace scale, > 0.
      draws: random integer draws in [0, 2**53) (for example
        ``rng.integers(0, DRAW_COUNT, size=2000)``).

    Returns:
      (estimate, standard error).

    Taught in: 07-add-noise-in-practice.ipynb
    """
    outputs = textbook_laplace(value, scale, draws)
    if outputs.size == 0:
        raise ValueError("draws must hold at least one draw, got none")
    impossible = ~is_reachable(neighbour, scale, outputs)
    estimate = float(impossible.mean())
    return estimate, math.sqrt(estimate * (1.0 - estimate) / impossible.size)


# --- exact integer samplers (Canonne, Kamath & Steinke 2020) -----------------------


def _uniform_below(bound, rng):
    """A uniform integer in [0, bound), exactly (rejection sampling on random bytes)."""
    if bound < 2**62:
        return int(rng.integers(bound))
    bits = bound.bit_length()
    size = (bits + 7) // 8
    while True:
        candidate = int.from_bytes(rng.bytes(size), "little") >> (8 * size - bits)
        if candidate < bound:
            return candidate


def _bernoulli(probability, rng):
    """True with the rational probability given (a Fraction in [0, 1])."""
    return _uniform_below(probability.denominator, rng) < probability.numerator


def bernoulli_exp_minus(gamma, *, rng):
    """True with probability exp(-gamma), for a rational gamma >= 0, exactly.

    For gamma in [0, 1]: draw A_k ~ Bernoulli(gamma / k) for k = 1, 2, ... until the first
    failure; the number of trials is odd with probability exp(-gamma). Larger gamma is
    split into whole steps of exp(-1).

    Taught in: 07-add-noise-in-practice.ipynb
    """
    gamma = _fraction("gamma", gamma)
    if gamma < 0:
        raise ValueError(f"gamma must be >= 0, got {gamma!r}")
    rng = check.generator(rng)
    while gamma > 1:
        if not bernoulli_exp_minus(1, rng=rng):
            return False
        gamma -= 1
    trials = 1
    while _bernoulli(gamma / trials, rng):
        trials += 1
    return trials % 2 == 1


def _fraction(name, value):
    """An exact rational: int, Fraction, finite float or Decimal, or a decimal string."""
    if isinstance(value, bool | np.bool_) or value is None:
        raise ValueError(f"{name} must be a rational number, got {value!r}")
    if isinstance(value, np.integer | np.floating):
        value = value.item()
    try:
        return Fraction(value)
    except (TypeError, ValueError, OverflowError, ZeroDivisionError):
        raise ValueError(
            f"{name} must be a finite rational number (int, Fraction, float or a decimal "
            f"string), got {value!r}"
        ) from None


def _scale_fraction(name, scale, maximum=MAX_SCALE):
    scale = _fraction(name, scale)
    if not 0 < scale <= maximum:
        raise ValueError(f"{name} must lie in (0, {maximum}], got {scale!r}")
    return scale


def _one_discrete_laplace(scale, rng):
    numerator, denominator = scale.numerator, scale.denominator
    while True:
        offset = _uniform_below(numerator, rng)
        if not bernoulli_exp_minus(Fraction(offset, numerator), rng=rng):
            continue
        whole = 0
        while bernoulli_exp_minus(1, rng=rng):
            whole += 1
        # (offset + numerator * whole) is geometric with ratio exp(-1/numerator).
        magnitude = (offset + numerator * whole) // denominator
        negative = _bernoulli(Fraction(1, 2), rng)
        if negative and magnitude == 0:
            continue  # zero would otherwise be counted twice
        return -magnitude if negative else magnitude


def sample_discrete_laplace(scale, *, rng, size=None):
    """Exact discrete Laplace noise: P(k) proportional to exp(-|k| / scale), k integer.

    Integer and rational arithmetic only (Canonne, Kamath & Steinke 2020, Algorithm 2).

    Args:
      scale: a rational in (0, MAX_SCALE] (int, Fraction, float or a decimal string such
        as "2.5").
      rng: a numpy.random.Generator (source of uniform integers).
      size: number of samples; None for one sample, returned as an int.

    Taught in: 07-add-noise-in-practice.ipynb
    """
    scale = _scale_fraction("scale", scale)
    count = 1 if size is None else check.positive_integer("size", size)
    rng = check.generator(rng)
    samples = np.array([_one_discrete_laplace(scale, rng) for _ in range(count)], dtype=np.int64)
    return int(samples[0]) if size is None else samples


def sample_discrete_gaussian(sigma_squared, *, rng, size=None):
    """Exact discrete Gaussian noise: P(k) proportional to exp(-k**2 / (2 sigma**2)).

    Rejection from discrete Laplace noise of scale floor(sigma) + 1, with integer and
    rational arithmetic only (Canonne, Kamath & Steinke 2020, Algorithm 3).

    Args:
      sigma_squared: the variance parameter, a rational in (0, MAX_SCALE**2] (int,
        Fraction, float or string).
      rng: a numpy.random.Generator (source of uniform integers).
      size: number of samples; None for one sample, returned as an int.

    Taught in: 07-add-noise-in-practice.ipynb
    """
    variance = _scale_fraction("sigma_squared", sigma_squared, MAX_SCALE**2)
    count = 1 if size is None else check.positive_integer("size", size)
    rng = check.generator(rng)
    # floor(sqrt(n / d)) = isqrt(n * d) // d, computed without rounding.
    laplace_scale = Fraction(
        math.isqrt(variance.numerator * variance.denominator) // variance.denominator + 1
    )
    samples = []
    while len(samples) < count:
        candidate = _one_discrete_laplace(laplace_scale, rng)
        gamma = (abs(candidate) - variance / laplace_scale) ** 2 / (2 * variance)
        if bernoulli_exp_minus(gamma, rng=rng):
            samples.append(candidate)
    return int(samples[0]) if size is None else np.array(samples, dtype=np.int64)


def discrete_laplace_pmf(values, scale):
    """P(k) = tanh(1 / (2 scale)) exp(-|k| / scale) for whole numbers k, every scale > 0."""
    scale = check.positive("scale", scale, scalar=True)
    values = _whole_values(values)
    with np.errstate(over="ignore", under="ignore"):
        pmf = np.tanh(0.5 / np.float64(scale)) * np.exp(-np.abs(values) / scale)
    return check.scalar_or_array(pmf)


def _whole_values(values):
    values = check.finite("values", values)
    if np.any(values != np.floor(values)):
        raise ValueError(f"values must be whole numbers, got {values!r}")
    return values


def discrete_gaussian_pmf(values, sigma_squared):
    """P(k) = exp(-k**2 / (2 sigma**2)) / sum over all integers z of exp(-z**2 / (2 sigma**2)).

    Exact to a few ulps for every sigma**2 > 0: the sum directly below sigma**2 = 4, by
    Poisson summation from there on. Values must be whole numbers.
    """
    variance = check.positive("sigma_squared", sigma_squared, scalar=True)
    values = _whole_values(values)
    with np.errstate(over="ignore", under="ignore"):
        if variance >= 4.0:
            # Poisson summation: the sum is sigma sqrt(2 pi) (1 + 2 sum_k exp(-2 pi**2
            # sigma**2 k**2)), and from sigma**2 = 4 on the correction is below 1e-34.
            log_normaliser = 0.5 * np.log(2.0 * np.pi * variance)
        else:
            support = np.arange(-120.0, 121.0)
            log_normaliser = np.log(np.exp(-(support**2) / (2.0 * variance)).sum())
        pmf = np.exp(-(values * values) / (2.0 * variance) - log_normaliser)
    return check.scalar_or_array(pmf)
