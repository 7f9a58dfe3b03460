"""Beyond global sensitivity: local sensitivity made safe, for the m-th order statistic.

The median of n values in [lower, upper] has global sensitivity upper - lower: one
changed value can move it from one end of the range to the other. On most data sets it
moves far less: its *local* sensitivity is the largest change one replaced value can
cause on *this* data set. Adding noise scaled to the local sensitivity is not private
(the noise's size tells about the data); three ways make it safe:

- smooth sensitivity (Nissim, Raskhodnikova & Smith, "Smooth sensitivity and sampling in
  private data analysis", STOC 2007): S*_beta(x) = max over k of e^(-k beta) A^(k)(x),
  with A^(k)(x) the largest local sensitivity of any data set within k changes of x.
  With sorted values x_1 <= ... <= x_n, x_i = lower for i <= 0 and x_i = upper for i > n,
  A^(k)(x) = max over 0 <= t <= k + 1 of (x_(m+t) - x_(m+t-k-1)). Noise of scale
  6 S*/epsilon from the standard Cauchy law with beta = epsilon / 6 is epsilon-DP;
  Laplace noise of scale 2 S*/epsilon with beta = epsilon / (2 ln(2/delta)) is
  (epsilon, delta)-DP (Dwork & Roth, "The algorithmic foundations of differential
  privacy", 2014, section 7.2);
- propose-test-release (Dwork & Lei, "Differential privacy and robust statistics",
  STOC 2009; Dwork & Roth, section 7.1): propose a bound b, measure gamma, the number of
  changes that would push the local sensitivity above b, and release the statistic with
  Laplace noise of scale b / epsilon_release only when gamma + Lap(1 / epsilon_test) exceeds
  ln(1/(2 delta)) / epsilon_test; otherwise refuse. It is (epsilon_test + epsilon_release,
  delta)-DP. Near & Abuah's "Programming differential privacy" (chapter 7) tests against
  ln(2/delta) / (2 epsilon) instead, which ``ptr_pass_probability_at_threshold`` measures;
- sample-and-aggregate (Nissim, Raskhodnikova & Smith): split the data into disjoint
  blocks, compute any statistic on each, clamp it to [lower, upper] and release the
  blocks' mean with Laplace noise of scale (upper - lower) / (blocks epsilon).

Neighbouring data sets replace one value; n is public; the rank m is 1-based (the median,
m = ceil(n / 2), by default). Every A^(k) for k = 0..n comes from one vectorised pass over
the sorted values; A^(k) = upper - lower for every k >= n. The exact probability that a
release lands within t of the true value is given for each method (a refusal of
propose-test-release never counts as within). The samplers draw by each mechanism's
definition from ``rng``, a seeded ``numpy.random.Generator``.

Taught in: 15-go-beyond-global-sensitivity.ipynb
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from dplearn import _validation as check

__all__ = [
    "NOISES",
    "order_statistic",
    "local_sensitivities",
    "local_sensitivity_at_distance",
    "smooth_sensitivity",
    "smooth_sensitivity_of",
    "SmoothRelease",
    "smooth_release_parameters",
    "distance_to_instability",
    "ptr_threshold",
    "ptr_pass_probability",
    "ptr_pass_probability_at_threshold",
    "laplace_within",
    "cauchy_within",
    "ptr_within",
    "smooth_sensitivity_release",
    "PTRRelease",
    "ptr_release",
    "sample_and_aggregate",
]

#: The noises smooth sensitivity adds: Cauchy (pure epsilon) and Laplace (with delta).
NOISES = ("cauchy", "laplace")

#: Rows of the (k, t) table computed at once: bounds the memory of large data sets.
_TABLE_ENTRIES = 4_000_000


# ---------------------------------------------------------------------------
# Argument checks
# ---------------------------------------------------------------------------


def _bounds(lower, upper):
    lower = check.finite("lower", lower, scalar=True)
    upper = check.finite("upper", upper, scalar=True)
    if not lower < upper:
        raise ValueError(f"upper must be > lower, got lower={lower!r}, upper={upper!r}")
    return lower, upper


def _data(values, lower, upper, rank):
    """Sorted values within [lower, upper], the bounds and the 1-based rank (all checked)."""
    values = check.vector("values", values)
    lower, upper = _bounds(lower, upper)
    outside = (values < lower) | (values > upper)
    if np.any(outside):
        raise ValueError(
            f"values must lie within [lower, upper] = [{lower!r}, {upper!r}], "
            f"got {check.describe(values[outside])}"
        )
    n = values.size
    rank = (n + 1) // 2 if rank is None else check.whole("rank", rank, minimum=1, maximum=n)
    return np.sort(values), lower, upper, rank


def _budget(name, value):
    return check.positive(name, value, scalar=True)


def _delta(delta):
    return check.probability_open("delta", delta, scalar=True)


def _nonnegative(name, value):
    """A number or array >= 0 (infinity allowed), as floats."""
    array = check.number(name, value)
    bad = np.isnan(array) | (array < 0)
    if np.any(bad):
        raise ValueError(f"{name} must be >= 0, got {check.describe(array[bad])}")
    return array


def _size(size):
    return 1 if size is None else check.positive_integer("size", size)


def _one_or_many(draws, size):
    return float(draws[0]) if size is None else draws


# ---------------------------------------------------------------------------
# Local sensitivity at distance k, and smooth sensitivity
# ---------------------------------------------------------------------------


def order_statistic(values, rank=None):
    """The rank-th smallest of the values (the median, rank ceil(n / 2), by default).

    Args:
      values: a non-empty list of finite numbers.
      rank: m, 1-based, in [1, n]; None for ceil(n / 2).

    Returns:
      x_m, a float.

    Taught in: 15-go-beyond-global-sensitivity.ipynb
    """
    values = check.vector("values", values)
    n = values.size
    rank = (n + 1) // 2 if rank is None else check.whole("rank", rank, minimum=1, maximum=n)
    return float(np.partition(values, rank - 1)[rank - 1])


def _sensitivities(ordered, lower, upper, rank):
    """A^(k) for k = 0..n from sorted values: max over t <= k + 1 of x_(m+t) - x_(m+t-k-1)."""
    n = ordered.size
    # x_i for i = -n..2n+1 sits at position i + n: lower below the data, upper above.
    padded = np.concatenate([np.full(n + 1, lower), ordered, np.full(n + 1, upper)])
    shifts = np.arange(n + 2)
    result = np.empty(n + 1)
    rows = max(1, _TABLE_ENTRIES // (n + 2))
    for start in range(0, n + 1, rows):
        distances = np.arange(start, min(start + rows, n + 1))[:, None]
        top = padded[rank + n + shifts][None, :]
        bottom = padded[rank + n + shifts[None, :] - distances - 1]
        gaps = np.where(shifts[None, :] <= distances + 1, top - bottom, -np.inf)
        result[start : start + distances.size] = gaps.max(axis=1)
    return result


def local_sensitivities(values, lower, upper, rank=None):
    """A^(k)(x) for k = 0..n: the largest local sensitivity within k changes of x.

    A^(0) is the local sensitivity of x itself; A^(k) grows with k and reaches
    upper - lower at k = n at the latest, and stays there for every k >= n + 1 (not
    listed).

    Args:
      values: the data set, a non-empty list of finite numbers within [lower, upper].
      lower, upper: the public bounds of every value, lower < upper.
      rank: m, 1-based, in [1, n]; None for the median, ceil(n / 2).

    Returns:
      An array of n + 1 floats, A^(0), ..., A^(n).

    Raises:
      ValueError: when values are empty, not finite or outside [lower, upper], when
        lower >= upper, or when rank is not a whole number in [1, n].

    Taught in: 15-go-beyond-global-sensitivity.ipynb
    """
    return _sensitivities(*_data(values, lower, upper, rank))


def local_sensitivity_at_distance(values, distance, lower, upper, rank=None):
    """A^(k)(x): the largest local sensitivity of any data set within k = distance changes.

    Args:
      values: the data set, a non-empty list of finite numbers within [lower, upper].
      distance: k, a whole number >= 0 (upper - lower for every k >= n).
      lower, upper: the public bounds of every value, lower < upper.
      rank: m, 1-based, in [1, n]; None for the median, ceil(n / 2).

    Returns:
      A^(k), a float.

    Taught in: 15-go-beyond-global-sensitivity.ipynb
    """
    distance = check.whole("distance", distance, minimum=0)
    ordered, lower, upper, rank = _data(values, lower, upper, rank)
    if distance >= ordered.size:
        return upper - lower
    return float(_sensitivities(ordered, lower, upper, rank)[distance])


def smooth_sensitivity(values, beta, lower, upper, rank=None):
    """S*_beta(x) = max over k of e^(-k beta) A^(k)(x), and the k that reaches it.

    Args:
      values: the data set, a non-empty list of finite numbers within [lower, upper].
      beta: the smoothness, finite and >= 0.
      lower, upper: the public bounds of every value, lower < upper.
      rank: m, 1-based, in [1, n]; None for the median, ceil(n / 2).

    Returns:
      (value, distance): S*_beta(x) and the smallest k at which e^(-k beta) A^(k) is
      largest.

    Taught in: 15-go-beyond-global-sensitivity.ipynb
    """
    beta = check.finite_epsilon(beta, "beta", scalar=True)
    return smooth_sensitivity_of(local_sensitivities(values, lower, upper, rank), beta)


def smooth_sensitivity_of(sensitivities, beta):
    """S*_beta and the k that reaches it, from the table A^(0), A^(1), ... of a data set.

    The table is ``local_sensitivities``'s: a figure that moves beta over one data set
    computes it once.

    Args:
      sensitivities: A^(k) for k = 0, 1, ..., finite and >= 0, non-decreasing.
      beta: the smoothness, finite and >= 0.

    Returns:
      (value, distance), as ``smooth_sensitivity`` returns them.

    Taught in: 15-go-beyond-global-sensitivity.ipynb
    """
    beta = check.finite_epsilon(beta, "beta", scalar=True)
    sensitivities = check.vector("sensitivities", sensitivities)
    if np.any(sensitivities < 0):
        raise ValueError(f"sensitivities must be >= 0, got {check.short(sensitivities)}")
    distances = np.arange(sensitivities.size)
    # Compared in log space, so that e^(-k beta) never underflows to a tie at 0.
    with np.errstate(divide="ignore"):
        logs = np.log(sensitivities) - distances * beta
    distance = int(np.argmax(logs))
    return float(sensitivities[distance] * math.exp(-distance * beta)), distance


class SmoothRelease(NamedTuple):
    """How smooth sensitivity is turned into noise for a budget.

    Attributes:
      beta: the smoothness at which S* is computed.
      noise: "cauchy" (the standard Cauchy law) or "laplace".
      scale: the noise's scale is scale * S*.

    Taught in: 15-go-beyond-global-sensitivity.ipynb
    """

    beta: float
    noise: str
    scale: float


def smooth_release_parameters(epsilon, delta=None):
    """The smoothness beta, the noise and its scale per unit of S* for a budget.

    Pure epsilon: beta = epsilon / 6 and Cauchy noise of scale 6 S*/epsilon. With delta:
    beta = epsilon / (2 ln(2/delta)) and Laplace noise of scale 2 S*/epsilon.

    Args:
      epsilon: privacy budget, finite and > 0.
      delta: None for pure epsilon-DP, otherwise in (0, 1).

    Returns:
      A ``SmoothRelease(beta, noise, scale)``.

    Taught in: 15-go-beyond-global-sensitivity.ipynb
    """
    epsilon = _budget("epsilon", epsilon)
    if delta is None:
        return SmoothRelease(epsilon / 6.0, "cauchy", 6.0 / epsilon)
    delta = _delta(delta)
    return SmoothRelease(epsilon / (2.0 * math.log(2.0 / delta)), "laplace", 2.0 / epsilon)


# ---------------------------------------------------------------------------
# Propose-test-release
# ---------------------------------------------------------------------------


def distance_to_instability(values, bound, lower, upper, rank=None):
    """Gamma: the fewest changes to the data that push its local sensitivity above bound.

    It is the smallest k with A^(k)(x) > bound, and ``math.inf`` when no data set in
    [lower, upper] has local sensitivity above bound (bound >= upper - lower).

    Args:
      values: the data set, a non-empty list of finite numbers within [lower, upper].
      bound: b, the proposed bound on the local sensitivity, finite and >= 0.
      lower, upper: the public bounds of every value, lower < upper.
      rank: m, 1-based, in [1, n]; None for the median, ceil(n / 2).

    Returns:
      An int, or ``math.inf``.

    Taught in: 15-go-beyond-global-sensitivity.ipynb
    """
    bound = check.finite_epsilon(bound, "bound", scalar=True)
    sensitivities = local_sensitivities(values, lower, upper, rank)
    # A^(k) never decreases with k: the first k above the bound is a binary search away.
    distance = int(np.searchsorted(sensitivities, bound, side="right"))
    return math.inf if distance == sensitivities.size else distance


def ptr_threshold(epsilon, delta):
    """The test's threshold T = ln(1/(2 delta)) / epsilon: pass when gamma + Lap(1/epsilon) > T.

    Args:
      epsilon: the test's budget, finite and > 0.
      delta: in (0, 1).

    Returns:
      T, a float.

    Taught in: 15-go-beyond-global-sensitivity.ipynb
    """
    epsilon = _budget("epsilon", epsilon)
    delta = _delta(delta)
    return -math.log(2.0 * delta) / epsilon


def ptr_pass_probability_at_threshold(distance, epsilon, threshold):
    """P[gamma + Lap(1/epsilon) > T] for any threshold T, in closed form.

    It is e^(-epsilon (T - gamma)) / 2 when gamma <= T, 1 - e^(-epsilon (gamma - T)) / 2
    otherwise, and 1 at gamma = inf. Near & Abuah's threshold ln(2/delta) / (2 epsilon)
    passes a data set at distance 0 with probability sqrt(delta / 2) / 2, far above delta.

    Args:
      distance: gamma, >= 0 (``math.inf`` allowed), a number or an array.
      epsilon: the test's budget, finite and > 0.
      threshold: T, a finite number.

    Returns:
      The pass probability, a float (or an array like distance).

    Taught in: 15-go-beyond-global-sensitivity.ipynb
    """
    distance = _nonnegative("distance", distance)
    epsilon = _budget("epsilon", epsilon)
    threshold = check.finite("threshold", threshold, scalar=True)
    with np.errstate(invalid="ignore", over="ignore"):
        margin = epsilon * (distance - threshold)
        below = 0.5 * np.exp(np.minimum(margin, 0.0))
        above = 1.0 - 0.5 * np.exp(-np.maximum(margin, 0.0))
    return check.scalar_or_array(np.where(margin <= 0, below, above))


def ptr_pass_probability(distance, epsilon, delta):
    """P[gamma + Lap(1/epsilon) > ln(1/(2 delta)) / epsilon]: the chance the test passes.

    Args:
      distance: gamma, >= 0 (``math.inf`` allowed), a number or an array.
      epsilon: the test's budget, finite and > 0.
      delta: in (0, 1).

    Returns:
      The pass probability, a float (or an array like distance): exactly delta at
      gamma = 0.

    Taught in: 15-go-beyond-global-sensitivity.ipynb
    """
    return ptr_pass_probability_at_threshold(distance, epsilon, ptr_threshold(epsilon, delta))


# ---------------------------------------------------------------------------
# Exact probabilities of landing within t
# ---------------------------------------------------------------------------


def _ratio(t, scale):
    """t / scale, with t >= 0 (a number or an array) and scale finite and > 0 (checked)."""
    return _nonnegative("t", t) / check.positive("scale", scale, scalar=True)


def laplace_within(t, scale):
    """P(|Lap(scale)| <= t) = 1 - e^(-t / scale).

    Args:
      t: the allowed error, >= 0 (a number or an array).
      scale: the Laplace noise's scale, finite and > 0.

    Returns:
      A probability, a float (or an array like t).

    Taught in: 15-go-beyond-global-sensitivity.ipynb
    """
    return check.scalar_or_array(-np.expm1(-_ratio(t, scale)))


def cauchy_within(t, scale):
    """P(|scale * Cauchy| <= t) = (2 / pi) arctan(t / scale), the standard Cauchy law scaled.

    Args:
      t: the allowed error, >= 0 (a number or an array).
      scale: the Cauchy noise's scale, finite and > 0.

    Returns:
      A probability, a float (or an array like t).

    Taught in: 15-go-beyond-global-sensitivity.ipynb
    """
    return check.scalar_or_array(np.arctan(_ratio(t, scale)) / (np.pi / 2))


def ptr_within(t, distance, bound, epsilon_test, epsilon_release, delta):
    """P(propose-test-release passes and lands within t) = P(pass) (1 - e^(-t epsilon_release / b)).

    A refusal never counts as within.

    Args:
      t: the allowed error, >= 0 (a number or an array).
      distance: gamma, the data set's distance to instability, >= 0 (``math.inf`` allowed).
      bound: b, the proposed bound, finite and > 0: the release's noise is Lap(b / epsilon_release).
      epsilon_test: the test's budget, finite and > 0.
      epsilon_release: the release's budget, finite and > 0.
      delta: in (0, 1).

    Returns:
      A probability, a float (or an array like t).

    Taught in: 15-go-beyond-global-sensitivity.ipynb
    """
    bound = check.positive("bound", bound, scalar=True)
    epsilon_release = _budget("epsilon_release", epsilon_release)
    distance = check.scalar("distance", distance)
    passing = ptr_pass_probability(distance, epsilon_test, delta)
    return check.scalar_or_array(passing * np.asarray(laplace_within(t, bound / epsilon_release)))


# ---------------------------------------------------------------------------
# Samplers
# ---------------------------------------------------------------------------


def smooth_sensitivity_release(
    values, epsilon, lower, upper, delta=None, rank=None, *, rng, size=None
):
    """The m-th order statistic plus noise scaled to its smooth sensitivity.

    Cauchy noise of scale 6 S*/epsilon at beta = epsilon / 6 (epsilon-DP) when delta is
    None, Laplace noise of scale 2 S*/epsilon at beta = epsilon / (2 ln(2/delta))
    ((epsilon, delta)-DP) otherwise (``smooth_release_parameters``).

    Args:
      values: the data set, a non-empty list of finite numbers within [lower, upper].
      epsilon: privacy budget, finite and > 0.
      lower, upper: the public bounds of every value, lower < upper.
      delta: None, or in (0, 1).
      rank: m, 1-based, in [1, n]; None for the median, ceil(n / 2).
      rng: a seeded ``numpy.random.Generator``.
      size: None for one release, or how many independent releases.

    Returns:
      One release (a float) or an array of ``size`` releases.

    Taught in: 15-go-beyond-global-sensitivity.ipynb
    """
    rng = check.generator(rng)
    count = _size(size)
    release = smooth_release_parameters(epsilon, delta)
    sensitivity, _ = smooth_sensitivity(values, release.beta, lower, upper, rank)
    answer = order_statistic(values, rank)
    noise = (
        rng.standard_cauchy(count) if release.noise == "cauchy" else rng.laplace(0.0, 1.0, count)
    )
    return _one_or_many(answer + release.scale * sensitivity * noise, size)


class PTRRelease(NamedTuple):
    """What propose-test-release returns: whether the test passed, and the answer if it did.

    One release (size None): ``passed`` is a bool and ``answer`` a float, or None when the
    test refused. Many releases: ``passed`` is a bool array with one entry per release and
    ``answer`` holds the answers of the releases that passed only, in order
    (``answer.size == passed.sum()``): a refusal is never a number.

    Attributes:
      passed: True where gamma + Lap(1/epsilon_test) exceeded the threshold.
      answer: the released values, x_m + Lap(b / epsilon_release).

    Taught in: 15-go-beyond-global-sensitivity.ipynb
    """

    passed: bool | np.ndarray
    answer: float | np.ndarray | None


def ptr_release(
    values,
    bound,
    epsilon_test,
    epsilon_release,
    delta,
    lower,
    upper,
    rank=None,
    *,
    rng,
    size=None,
):
    """Propose-test-release of the m-th order statistic with the proposed bound b.

    Pass when gamma + Lap(1/epsilon_test) > ln(1/(2 delta)) / epsilon_test, gamma the
    distance to instability; then release x_m + Lap(b / epsilon_release), else refuse.
    It is (epsilon_test + epsilon_release, delta)-DP.

    Args:
      values: the data set, a non-empty list of finite numbers within [lower, upper].
      bound: b, the proposed bound on the local sensitivity, finite and > 0.
      epsilon_test: the test's budget, finite and > 0.
      epsilon_release: the release's budget, finite and > 0.
      delta: in (0, 1).
      lower, upper: the public bounds of every value, lower < upper.
      rank: m, 1-based, in [1, n]; None for the median, ceil(n / 2).
      rng: a seeded ``numpy.random.Generator``.
      size: None for one release, or how many independent releases.

    Returns:
      A ``PTRRelease(passed, answer)``: see its description for one and many releases.

    Taught in: 15-go-beyond-global-sensitivity.ipynb
    """
    rng = check.generator(rng)
    count = _size(size)
    bound = check.positive("bound", bound, scalar=True)
    epsilon_release = _budget("epsilon_release", epsilon_release)
    threshold = ptr_threshold(epsilon_test, delta)
    distance = distance_to_instability(values, bound, lower, upper, rank)
    answer = order_statistic(values, rank)
    passed = distance + rng.laplace(0.0, 1.0 / epsilon_test, count) > threshold
    answers = answer + rng.laplace(0.0, bound / epsilon_release, int(passed.sum()))
    if size is not None:
        return PTRRelease(passed, answers)
    return PTRRelease(bool(passed[0]), float(answers[0]) if passed[0] else None)


def sample_and_aggregate(values, statistic, blocks, lower, upper, epsilon, *, rng, size=None):
    """Any statistic made private: its clamped mean over disjoint blocks, plus Laplace noise.

    The values are put in a random order and split into ``blocks`` disjoint blocks whose
    sizes differ by at most one; the statistic of each block is clamped to
    [lower, upper]; the release is their mean plus Lap((upper - lower) / (blocks epsilon)),
    epsilon-DP since one changed value changes one block.

    Args:
      values: the data set, a non-empty list of finite numbers within [lower, upper].
      statistic: a function of a 1-d float array that returns one finite number.
      blocks: how many blocks, a whole number in [1, n].
      lower, upper: the bounds the block statistics are clamped to, lower < upper.
      epsilon: privacy budget, finite and > 0.
      rng: a seeded ``numpy.random.Generator``: it draws the split and the noise.
      size: None for one release, or how many independent releases (each with its own
        split).

    Returns:
      One release (a float) or an array of ``size`` releases.

    Raises:
      ValueError: when an argument is out of range or the statistic does not return a
        finite number.

    Taught in: 15-go-beyond-global-sensitivity.ipynb
    """
    rng = check.generator(rng)
    count = _size(size)
    values, lower, upper, _ = _data(values, lower, upper, None)
    blocks = check.whole("blocks", blocks, minimum=1, maximum=values.size)
    epsilon = _budget("epsilon", epsilon)
    if not callable(statistic):
        raise ValueError(f"statistic must be a function of an array, got {statistic!r}")
    # Block sizes differ by at most one: the first n mod blocks blocks hold one more value.
    sizes = np.full(blocks, values.size // blocks)
    sizes[: values.size % blocks] += 1
    ends = np.cumsum(sizes)
    means = np.empty(count)
    for draw in range(count):
        order = rng.permutation(values)
        results = [
            statistic(order[end - width : end]) for end, width in zip(ends, sizes, strict=True)
        ]
        array = check.number("statistic", results)
        if array.shape != (blocks,) or not np.all(np.isfinite(array)):
            raise ValueError(
                f"statistic must return one finite number per block, got {check.short(results)}"
            )
        means[draw] = np.clip(array, lower, upper).mean()
    noisy = means + rng.laplace(0.0, (upper - lower) / (blocks * epsilon), count)
    return _one_or_many(noisy, size)
