"""Release many counts at once: workloads, strategies, post-processing and MWEM.

A histogram over d bins answers a *workload* W of linear queries (one row per query, one
column per bin): all d(d + 1) / 2 ranges, the d prefixes, or the d one-way marginals (the
bins themselves). The matrix mechanism (Li, Miklau, Hay, McGregor & Rastogi, "The matrix
mechanism: optimizing linear counting queries under differential privacy", VLDB Journal
2015) measures a *strategy* A instead, each of its queries with Laplace noise of scale
Delta_1(A) / epsilon (Delta_1(A), the l1 sensitivity, is the largest column sum of |A|:
one record adds 1 to one bin), and answers W by least squares. Its mean squared error per
workload query is exactly 2 (Delta_1(A) / epsilon)^2 trace(W (A^T A)^-1 W^T) / |W|.

For all ranges:

- the noisy histogram (A = identity) errs by 2 (d + 2) / (3 epsilon^2) on average;
- each range measured directly (A = W, answered as measured) errs by 2 Delta_1^2 /
  epsilon^2 with Delta_1 = max_i i (d + 1 - i);
- the binary tree of dyadic intervals (L = log2(d) + 1 levels, Delta_1 = L) summed from the
  fewest nodes that cover a range, or by least squares, consistent (Hay, Rastogi, Miklau
  & Suciu, "Boosting the accuracy of differentially private histograms through
  consistency", VLDB 2010).

The tree's errors come in closed form from sums over its d nodes (naive) or its log2(d)
levels (consistent: A^T A is diagonal in the Haar basis), so they need no |W| x |W| or
d x d matrix and are instant at any d.

Post-processing keeps privacy but not unbiasedness: a noisy count clamped at 0 is biased
upward (``clamp_bias``), and many empty cells inflate a total.

MWEM (Hardt, Ligett & McSherry, "A simple and practical algorithm for differentially
private data release", NeurIPS 2012) releases a synthetic histogram: T rounds, each picking
a badly answered query by the exponential mechanism at epsilon / (2T) and measuring it with
Laplace noise of scale 2T / epsilon, then moving the synthetic histogram by multiplicative
weights. Its neighbours change one record, the total n being public; the workload's
queries take values in [0, 1] on every bin, so one changed record moves any answer and any
score by at most 1. Basic composition gives epsilon; zero-concentrated DP gives rho =
5 epsilon^2 / (32 T) (``mwem_rho``). Rows of synthetic data are drawn from a histogram's
proportions (``sample_rows``). Every sampler draws from ``rng``, a seeded
``numpy.random.Generator``.

Taught in: 16-release-a-histogram-then-synthetic-data.ipynb
"""

from __future__ import annotations

from fractions import Fraction
from typing import NamedTuple

import numpy as np
from scipy import linalg, special

from dplearn import _validation as check
from dplearn import zcdp

__all__ = [
    "range_workload",
    "prefix_workload",
    "marginal_workload",
    "tree_strategy",
    "tree_levels",
    "workload_error",
    "identity_range_error",
    "direct_range_error",
    "tree_range_error",
    "clamp_bias",
    "noisy_histogram",
    "clip_and_normalise",
    "mwem_selection_probabilities",
    "mwem_rho",
    "MWEMRelease",
    "mwem",
    "sample_rows",
]


# ---------------------------------------------------------------------------
# Argument checks
# ---------------------------------------------------------------------------


def _bins(bins):
    return check.positive_integer("bins", bins)


def _power_of_two(bins):
    bins = _bins(bins)
    if bins & (bins - 1):
        raise ValueError(f"bins must be a power of 2 for the binary tree, got {bins!r}")
    return bins


def _epsilon(epsilon):
    return check.positive("epsilon", epsilon, scalar=True)


def _matrix(name, value, columns=None):
    """A non-empty 2-d array of finite numbers, with the given number of columns if any."""
    array = check.finite(name, value)
    if array.ndim != 2 or array.size == 0:
        raise ValueError(
            f"{name} must be a non-empty 2-d array (a matrix), got {check.short(value)}"
        )
    if columns is not None and array.shape[1] != columns:
        raise ValueError(
            f"{name} must have one column per bin ({columns}), got {array.shape[1]} columns"
        )
    return array


def _counts(name, value):
    """A non-empty list of finite numbers >= 0."""
    array = check.vector(name, value)
    if np.any(array < 0):
        raise ValueError(f"{name} must be >= 0, got {check.describe(array[array < 0])}")
    return array


def _histograms(histogram, synthetic, workload):
    """The true and synthetic histograms, of one length, and a 0/1-valued workload on them."""
    histogram = _counts("histogram", histogram)
    synthetic = check.vector("synthetic", synthetic)
    if synthetic.size != histogram.size:
        raise ValueError(
            f"synthetic must have as many bins as histogram ({histogram.size}), "
            f"got {synthetic.size}"
        )
    return histogram, synthetic, _queries(workload, histogram.size)


def _queries(workload, bins):
    """A workload whose every entry lies in [0, 1]: each query moves by <= 1 per record."""
    workload = _matrix("workload", workload, bins)
    outside = (workload < 0) | (workload > 1)
    if np.any(outside):
        raise ValueError(f"workload must lie in [0, 1], got {check.describe(workload[outside])}")
    return workload


# ---------------------------------------------------------------------------
# Workloads and strategies
# ---------------------------------------------------------------------------


def range_workload(bins):
    """Every range query [i, j) over the bins, as a 0/1 matrix of d(d + 1) / 2 rows.

    The rows go by start, then by end: [0, 1), [0, 2), ..., [0, d), [1, 2), ..., [d - 1, d);
    the range [i, j) sits at row i d - i (i - 1) / 2 + (j - i - 1).

    Args:
      bins: d, the number of bins, a whole number >= 1.

    Returns:
      A float array of shape (d(d + 1) / 2, d), row [i, j) one on bins i..j - 1.

    Taught in: 16-release-a-histogram-then-synthetic-data.ipynb
    """
    bins = _bins(bins)
    starts, ends = np.triu_indices(bins + 1, k=1)
    columns = np.arange(bins)
    return ((columns >= starts[:, None]) & (columns < ends[:, None])).astype(float)


def prefix_workload(bins):
    """Every prefix [0, j), j = 1..d, as a 0/1 matrix (lower triangular, d x d).

    Args:
      bins: d, the number of bins, a whole number >= 1.

    Returns:
      A float array of shape (d, d), row j - 1 one on bins 0..j - 1.

    Taught in: 16-release-a-histogram-then-synthetic-data.ipynb
    """
    return np.tril(np.ones((_bins(bins), bins)))


def marginal_workload(bins):
    """The one-way marginal of a histogram: each bin's count, the identity matrix.

    Args:
      bins: d, the number of bins, a whole number >= 1.

    Returns:
      The d x d identity, as floats.

    Taught in: 16-release-a-histogram-then-synthetic-data.ipynb
    """
    return np.eye(_bins(bins))


def tree_levels(bins):
    """L = log2(d) + 1: the levels of the binary tree over d bins, and its l1 sensitivity.

    Args:
      bins: d, a power of 2.

    Returns:
      L, an int.

    Raises:
      ValueError: when bins is not a power of 2.

    Taught in: 16-release-a-histogram-then-synthetic-data.ipynb
    """
    return _power_of_two(bins).bit_length()


def tree_strategy(bins):
    """Every dyadic interval over the bins: the binary tree's 2d - 1 nodes, as a 0/1 matrix.

    The rows go level by level from the root, left to right within a level (heap order:
    node k's children are nodes 2k + 1 and 2k + 2): level l holds the 2^l intervals
    [a, a + d / 2^l), the last level the d single bins. Each bin lies in one node per
    level, so every column sums to L = log2(d) + 1.

    Args:
      bins: d, a power of 2.

    Returns:
      A float array of shape (2d - 1, d).

    Raises:
      ValueError: when bins is not a power of 2 (or < 1).

    Taught in: 16-release-a-histogram-then-synthetic-data.ipynb
    """
    bins = _power_of_two(bins)
    levels = [
        np.kron(np.eye(2**level), np.ones(bins >> level)) for level in range(bins.bit_length())
    ]
    return np.vstack(levels)


# ---------------------------------------------------------------------------
# Exact errors
# ---------------------------------------------------------------------------


def workload_error(workload, strategy, epsilon):
    """The matrix mechanism's mean squared error per workload query, exactly.

    The strategy's queries get Laplace noise of scale Delta_1(A) / epsilon, Delta_1(A) the
    largest column sum of |A|; the workload is answered by least squares from them. The
    error is 2 (Delta_1(A) / epsilon)^2 trace(W (A^T A)^-1 W^T) / |W| (Li, Miklau, Hay,
    McGregor & Rastogi, "The matrix mechanism", VLDB Journal 2015), computed from A = QR
    as the squared Frobenius norm of R^-T W^T (a triangular solve, no inverse).

    Args:
      workload: W, a matrix of finite numbers, one row per query, one column per bin.
      strategy: A, a matrix of finite numbers with as many columns, of full column rank.
      epsilon: privacy budget, finite and > 0.

    Returns:
      The mean squared error, a float.

    Raises:
      ValueError: when the matrices' columns differ, when the strategy's rank is below
        its number of columns (least squares would not determine the histogram), or when
        epsilon is not finite and > 0.

    Taught in: 16-release-a-histogram-then-synthetic-data.ipynb
    """
    strategy = _matrix("strategy", strategy)
    workload = _matrix("workload", workload, strategy.shape[1])
    epsilon = _epsilon(epsilon)
    bins = strategy.shape[1]
    rank = np.linalg.matrix_rank(strategy)
    if rank < bins:
        raise ValueError(
            f"strategy must have full column rank ({bins}) for least squares, got rank {rank}"
        )
    sensitivity = np.abs(strategy).sum(axis=0).max()
    triangle = linalg.qr(strategy, mode="r")[0][:bins]
    # trace(W (R^T R)^-1 W^T) = ||R^-T W^T||_F^2.
    solved = linalg.solve_triangular(triangle, workload.T, trans="T")
    trace = float(np.sum(solved**2))
    return 2.0 * (sensitivity / epsilon) ** 2 * trace / workload.shape[0]


def identity_range_error(bins, epsilon):
    """Mean squared error of all ranges summed from the noisy histogram: 2(d + 2)/(3 epsilon^2).

    Each bin has Laplace noise of scale 1 / epsilon (variance 2 / epsilon^2); a range of k
    bins errs by 2k / epsilon^2, and the ranges' mean length is (d + 2) / 3.

    Args:
      bins: d, a whole number >= 1.
      epsilon: privacy budget, finite and > 0.

    Returns:
      The mean squared error, a float.

    Taught in: 16-release-a-histogram-then-synthetic-data.ipynb
    """
    bins = _bins(bins)
    return 2.0 * (bins + 2) / (3.0 * _epsilon(epsilon) ** 2)


def direct_range_error(bins, epsilon):
    """Squared error of each range measured directly, with no least squares: 2 Delta_1^2/epsilon^2.

    Every range gets its own Laplace noise; bin i (1-based) lies in i (d + 1 - i) ranges,
    so Delta_1 = max_i i (d + 1 - i) = floor((d + 1) / 2) ceil((d + 1) / 2). Every range
    errs by the same amount, so this is also the mean. (Least squares from the same
    noisy ranges, ``workload_error(range_workload(d), range_workload(d), epsilon)``, does
    better by the factor d / |W|.)

    Args:
      bins: d, a whole number >= 1.
      epsilon: privacy budget, finite and > 0.

    Returns:
      The squared error, a float.

    Taught in: 16-release-a-histogram-then-synthetic-data.ipynb
    """
    bins = _bins(bins)
    sensitivity = ((bins + 1) // 2) * ((bins + 2) // 2)
    return 2.0 * (sensitivity / _epsilon(epsilon)) ** 2


def _naive_tree_nodes(bins):
    """The number of nodes, summed over all ranges, of each range's fewest-node dyadic cover.

    The fewest dyadic intervals that make up [i, j) are its maximal dyadic subintervals, so
    a node is used by the ranges that contain it but not its parent. (x + 1)(d - y + 1)
    ranges contain [x, y).
    """
    total = 0.0
    for level in range(bins.bit_length()):
        size = bins >> level
        starts = np.arange(0, bins, size, dtype=float)
        containing = (starts + 1) * (bins - starts - size + 1)
        if level:
            parents = starts - starts % (2 * size)
            containing -= (parents + 1) * (bins - parents - 2 * size + 1)
        total += float(containing.sum())
    return total


def _consistent_tree_trace(bins):
    """trace(W (A^T A)^-1 W^T) for W all ranges and A the tree, exactly, as a Fraction.

    A^T A = sum over levels of block-diagonal all-ones blocks of sizes 1, 2, ..., d, which
    the orthonormal Haar basis diagonalises: the constant vector has eigenvalue 2d - 1, a
    wavelet on a block of m = 2^s bins has eigenvalue m - 1 (d / m of them per s). So the
    trace is the sum over eigenvectors h of sum over ranges (w^T h)^2 / eigenvalue. With S
    the prefix sums of h at 0..d, w^T h = S_j - S_i, and the sum over ranges of
    (S_j - S_i)^2 is (d + 1) sum S^2 - (sum S)^2. A wavelet's S is a triangle of height
    (m / 2) / sqrt(m), the same wherever the wavelet sits.
    """
    # The constant vector 1 / sqrt(d): sum over ranges of length^2 / d, where
    # sum over k of k^2 (d + 1 - k) = (d + 1) d (d + 1)(2d + 1) / 6 - (d (d + 1) / 2)^2.
    lengths_squared = (
        Fraction((bins + 1) * bins * (bins + 1) * (2 * bins + 1), 6)
        - Fraction(bins * (bins + 1), 2) ** 2
    )
    trace = lengths_squared / (bins * (2 * bins - 1))
    size = 2
    while size <= bins:
        half = size // 2
        triangle = half * half
        triangle_squares = Fraction((half - 1) * half * (2 * half - 1), 3) + half * half
        per_wavelet = ((bins + 1) * triangle_squares - triangle**2) / Fraction(size)
        trace += Fraction(bins, size) * per_wavelet / (size - 1)
        size *= 2
    return trace


def tree_range_error(bins, epsilon, consistent=False):
    """Mean squared error over all d(d + 1) / 2 ranges answered from the noisy binary tree.

    Every node of the tree (``tree_strategy``) gets Laplace noise of scale L / epsilon, L =
    log2(d) + 1 levels being the tree's l1 sensitivity. Naive: each range is the sum of its
    fewest covering nodes (its maximal dyadic subintervals, at most 2 per level), each
    adding 2 (L / epsilon)^2. Consistent: the ranges are answered by least squares from all
    nodes (Hay, Rastogi, Miklau & Suciu, "Boosting the accuracy of differentially private
    histograms through consistency", VLDB 2010), equal to
    ``workload_error(range_workload(d), tree_strategy(d), epsilon)``. Both come from sums
    over the tree's nodes or levels, never from the |W| x d workload.

    Args:
      bins: d, a power of 2.
      epsilon: privacy budget, finite and > 0.
      consistent: False for the naive sums of nodes, True for least squares.

    Returns:
      The mean squared error, a float.

    Raises:
      ValueError: when bins is not a power of 2 or epsilon is not finite and > 0.

    Taught in: 16-release-a-histogram-then-synthetic-data.ipynb
    """
    levels = tree_levels(bins)
    bins = int(bins)
    epsilon = _epsilon(epsilon)
    ranges = bins * (bins + 1) // 2
    variance = 2.0 * (levels / epsilon) ** 2
    if consistent:
        return variance * float(_consistent_tree_trace(bins) / ranges)
    return variance * _naive_tree_nodes(bins) / ranges


# ---------------------------------------------------------------------------
# Post-processing
# ---------------------------------------------------------------------------


def clamp_bias(count, scale):
    """E[max(0, c + Lap(b))] - c: the upward bias of a noisy count clamped at 0.

    For c >= 0 it is (b / 2) e^(-c / b). Negative true counts are accepted (a difference
    of counts may be one): for c < 0, E[max(0, c + X)] = (b / 2) e^(c / b), so the bias is
    (b / 2) e^(-|c| / b) + |c|. In one formula: (b / 2) e^(-|c| / b) + max(0, -c); the
    exponent is never positive, so nothing overflows.

    Args:
      count: c, the true count, finite (a number or an array).
      scale: b, the Laplace scale, finite and > 0 (a number or an array that broadcasts
        with count).

    Returns:
      The bias, a float or an array.

    Raises:
      ValueError: when count is not finite or scale is not finite and > 0.

    Taught in: 16-release-a-histogram-then-synthetic-data.ipynb
    """
    count = check.finite("count", count)
    scale = check.positive("scale", scale)
    bias = 0.5 * scale * np.exp(-np.abs(count) / scale) + np.maximum(0.0, -count)
    return check.scalar_or_array(bias)


def noisy_histogram(histogram, epsilon, *, rng):
    """The histogram with Laplace noise of scale 1 / epsilon on every bin (epsilon-DP).

    One record added or removed changes one bin by 1, so the l1 sensitivity is 1.

    Args:
      histogram: the counts, a non-empty list of finite numbers >= 0.
      epsilon: privacy budget, finite and > 0.
      rng: a numpy.random.Generator.

    Returns:
      The noisy counts, a float array (some may be negative).

    Taught in: 16-release-a-histogram-then-synthetic-data.ipynb
    """
    histogram = _counts("histogram", histogram)
    epsilon = _epsilon(epsilon)
    rng = check.generator(rng)
    return histogram + rng.laplace(scale=1.0 / epsilon, size=histogram.size)


def clip_and_normalise(noisy, total):
    """Noisy counts clipped at 0 and rescaled to sum to total: a post-processed histogram.

    When every count clips to 0 the result is uniform (total / d per bin).

    Args:
      noisy: the noisy counts, a non-empty list of finite numbers.
      total: the total to rescale to, finite and >= 0.

    Returns:
      A float array of counts >= 0 that sums to total.

    Taught in: 16-release-a-histogram-then-synthetic-data.ipynb
    """
    noisy = check.vector("noisy", noisy)
    total = check.finite("total", total, scalar=True)
    if total < 0:
        raise ValueError(f"total must be >= 0, got {total!r}")
    clipped = np.maximum(noisy, 0.0)
    mass = clipped.sum()
    if mass == 0:
        return np.full(noisy.size, total / noisy.size)
    return clipped * (total / mass)


# ---------------------------------------------------------------------------
# MWEM
# ---------------------------------------------------------------------------


def _selection(answers, synthetic_answers, epsilon):
    """P ~ exp(epsilon |q(h) - q(A)| / 2), by a softmax (the largest exponent taken out)."""
    return special.softmax(0.5 * epsilon * np.abs(answers - synthetic_answers))


def mwem_selection_probabilities(histogram, synthetic, workload, epsilon):
    """The exponential mechanism's probabilities of picking each workload query in MWEM.

    The score of query q is |q(h) - q(A)|, its error on the synthetic histogram A;
    its sensitivity is 1, so P[q] is proportional to e^(epsilon |q(h) - q(A)| / 2).

    Args:
      histogram: h, the true counts, a non-empty list of finite numbers >= 0.
      synthetic: A, the synthetic counts, as many finite numbers.
      workload: the queries, a matrix with one column per bin and entries in [0, 1].
      epsilon: the selection's own budget (epsilon / (2T) in a run of T rounds), finite
        and >= 0 (0 picks uniformly).

    Returns:
      An array of |W| probabilities that sum to 1.

    Raises:
      ValueError: when histogram and synthetic differ in length, when the workload's
        columns are not one per bin or its entries leave [0, 1], or on a bad epsilon.

    Taught in: 16-release-a-histogram-then-synthetic-data.ipynb
    """
    histogram, synthetic, workload = _histograms(histogram, synthetic, workload)
    epsilon = check.finite_epsilon(epsilon, scalar=True)
    return _selection(workload @ histogram, workload @ synthetic, epsilon)


def mwem_rho(epsilon, rounds):
    """MWEM's zero-concentrated DP: rho = 5 epsilon^2 / (32 T).

    Each round spends epsilon_0 = epsilon / (2T) twice: the exponential mechanism is
    epsilon_0^2 / 8-zCDP by bounded range (Cesar & Rogers, "Bounding, concentrating, and
    truncating: unifying privacy loss composition for data analytics", ALT 2021) and the
    Laplace measurement is epsilon_0^2 / 2-zCDP (``dplearn.zcdp``); T rounds add up.

    Args:
      epsilon: MWEM's total budget by basic composition, finite and > 0.
      rounds: T, a whole number >= 1.

    Returns:
      rho, a float.

    Taught in: 16-release-a-histogram-then-synthetic-data.ipynb
    """
    epsilon = _epsilon(epsilon)
    rounds = check.positive_integer("rounds", rounds)
    per_round = epsilon / (2 * rounds)
    return rounds * (zcdp.bounded_range_rho(per_round) + zcdp.pure_rho(per_round))


class MWEMRelease(NamedTuple):
    """One seeded run of MWEM, round by round.

    Attributes:
      synthetic: a (T + 1) x d array: A_0 (uniform) then A_t after round t's update.
      selected: the T indices (rows of the workload) the exponential mechanism picked.
      measurements: the T noisy answers m_t = q_t(h) + Lap(2T / epsilon).
      average: the released histogram, the mean of A_1, ..., A_T.

    Taught in: 16-release-a-histogram-then-synthetic-data.ipynb
    """

    synthetic: np.ndarray
    selected: np.ndarray
    measurements: np.ndarray
    average: np.ndarray


def _multiplicative_weights(synthetic, query, measurement, total):
    """A <- A exp(q (m - q(A)) / (2n)), rescaled to total n."""
    updated = synthetic * np.exp(query * (measurement - query @ synthetic) / (2.0 * total))
    return updated * (total / updated.sum())


def mwem(histogram, workload, epsilon, rounds, *, rng, replays=0):
    """A seeded run of MWEM (Hardt, Ligett & McSherry, NeurIPS 2012): a synthetic histogram.

    A_0 is uniform with total n = sum(h) (n is public). Round t = 1..T picks a query by
    the exponential mechanism at epsilon / (2T) (``mwem_selection_probabilities`` on
    A_(t-1)), measures it as m = q(h) + Lap(2T / epsilon), and updates A by multiplicative
    weights, A <- A exp(q (m - q(A)) / (2n)), rescaled to total n. Hardt, Ligett &
    McSherry's practical version also replays every measurement so far after each round;
    ``replays`` such passes, in the order measured, are applied after the round's own
    update (0, the default, is the algorithm as analysed). Replays are post-processing:
    the privacy is epsilon (basic composition) whatever their number. Each round draws
    the selection, then the noise, from rng.

    Args:
      histogram: h, the true counts, a non-empty list of finite numbers >= 0, total > 0.
      workload: the queries, a matrix with one column per bin and entries in [0, 1].
      epsilon: the run's total budget, finite and > 0.
      rounds: T, a whole number >= 1.
      rng: a numpy.random.Generator.
      replays: passes over all measurements so far after each round, a whole number >= 0.

    Returns:
      An ``MWEMRelease``; every synthetic histogram sums to n.

    Raises:
      ValueError: on a bad argument, named.

    Taught in: 16-release-a-histogram-then-synthetic-data.ipynb
    """
    histogram = _counts("histogram", histogram)
    workload = _queries(workload, histogram.size)
    epsilon = _epsilon(epsilon)
    rounds = check.positive_integer("rounds", rounds)
    rng = check.generator(rng)
    replays = check.whole("replays", replays, minimum=0)
    total = float(histogram.sum())
    if total <= 0:
        raise ValueError(f"histogram must have a total > 0, got {total!r}")
    answers = workload @ histogram
    selection_epsilon = epsilon / (2 * rounds)
    noise_scale = 2 * rounds / epsilon
    synthetic = np.empty((rounds + 1, histogram.size))
    synthetic[0] = total / histogram.size
    selected = np.empty(rounds, dtype=int)
    measurements = np.empty(rounds)
    for t in range(rounds):
        current = synthetic[t]
        probabilities = _selection(answers, workload @ current, selection_epsilon)
        selected[t] = rng.choice(workload.shape[0], p=probabilities)
        measurements[t] = answers[selected[t]] + rng.laplace(scale=noise_scale)
        current = _multiplicative_weights(current, workload[selected[t]], measurements[t], total)
        for _ in range(replays):
            for query, measurement in zip(selected[: t + 1], measurements[: t + 1], strict=True):
                current = _multiplicative_weights(current, workload[query], measurement, total)
        synthetic[t + 1] = current
    return MWEMRelease(synthetic, selected, measurements, synthetic[1:].mean(axis=0))


def sample_rows(synthetic, count, *, rng):
    """Draws count rows of synthetic data: bin indices, independently by the bins' shares.

    Args:
      synthetic: a histogram, a non-empty list of finite numbers >= 0 with a total > 0
        (clip negative noisy counts first, e.g. with ``clip_and_normalise``).
      count: the number of rows, a whole number >= 0.
      rng: a numpy.random.Generator.

    Returns:
      An int array of count bin indices in [0, d).

    Raises:
      ValueError: when synthetic has a negative entry or a total of 0, or on a bad count.

    Taught in: 16-release-a-histogram-then-synthetic-data.ipynb
    """
    synthetic = _counts("synthetic", synthetic)
    count = check.whole("count", count, minimum=0)
    rng = check.generator(rng)
    mass = synthetic.sum()
    if mass <= 0:
        raise ValueError(f"synthetic must have a total > 0, got {float(mass)!r}")
    return rng.choice(synthetic.size, size=count, p=synthetic / mass)
