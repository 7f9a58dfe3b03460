"""Releasing many counts (dplearn.query_release): lesson 16's numbers.

Independent values: workloads and the tree built by enumeration; the matrix mechanism's
error from explicit inverses in mpmath at MPMATH_DIGITS digits; each range's fewest-node
dyadic cover found by dynamic programming over all partitions into dyadic intervals, in
exact fractions; the clamping bias by mpmath quadrature of the Laplace density; MWEM's
selection against lesson 12's exponential mechanism and mpmath; seeded samplers against
their laws within STANDARD_ERRORS standard errors.
"""

import itertools
import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest

from dplearn import query_release as qr
from dplearn import selection, zcdp

MPMATH_DIGITS = 50

#: Relative error allowed where a float computation meets an exact or 50-digit value.
RELATIVE = 1e-12

#: Simulated frequencies must lie within this many standard errors of the exact ones.
STANDARD_ERRORS = 4
DRAWS = 20_000

#: The histogram of lesson 16's MWEM example: n = 100 over 8 bins.
HISTOGRAM = (2, 7, 15, 24, 22, 16, 9, 5)


def relative_error(value, exact):
    return abs(value - exact) / abs(exact)


def ranges(bins):
    return [(i, j) for i in range(bins) for j in range(i + 1, bins + 1)]


def indicator(bins, start, end):
    row = np.zeros(bins)
    row[start:end] = 1
    return row


def dyadic_intervals(bins):
    """Every [a, a + 2^s) within [0, bins) with a a multiple of 2^s, root first."""
    intervals = []
    size = bins
    while size >= 1:
        intervals += [(start, start + size) for start in range(0, bins, size)]
        size //= 2
    return intervals


# ---------------------------------------------------------------- workloads and the tree


@pytest.mark.parametrize("bins", [1, 2, 3, 5, 8])
def test_workloads_by_enumeration(bins):
    workload = qr.range_workload(bins)
    expected = [indicator(bins, i, j) for i, j in ranges(bins)]
    np.testing.assert_array_equal(workload, expected)
    assert workload.shape == (bins * (bins + 1) // 2, bins)
    for row, (i, j) in enumerate(ranges(bins)):
        assert row == i * bins - i * (i - 1) // 2 + (j - i - 1)
    np.testing.assert_array_equal(
        qr.prefix_workload(bins), [indicator(bins, 0, j) for j in range(1, bins + 1)]
    )
    np.testing.assert_array_equal(qr.marginal_workload(bins), np.eye(bins))


@pytest.mark.parametrize("bins", [1, 2, 4, 8, 16])
def test_tree_strategy_is_every_dyadic_interval_in_heap_order(bins):
    tree = qr.tree_strategy(bins)
    intervals = dyadic_intervals(bins)
    np.testing.assert_array_equal(tree, [indicator(bins, a, b) for a, b in intervals])
    levels = qr.tree_levels(bins)
    assert levels == math.log2(bins) + 1
    np.testing.assert_array_equal(tree.sum(axis=0), levels)
    for node, (a, b) in enumerate(intervals[: bins - 1]):
        middle = (a + b) // 2
        assert intervals[2 * node + 1] == (a, middle)
        assert intervals[2 * node + 2] == (middle, b)


# ---------------------------------------------------------------- the matrix mechanism


def mpmath_workload_error(workload, strategy, epsilon):
    """2 (Delta_1 / epsilon)^2 trace(W (A^T A)^-1 W^T) / |W| with an explicit inverse."""
    with mpmath.workdps(MPMATH_DIGITS):
        a = mpmath.matrix(strategy.tolist())
        w = mpmath.matrix(workload.tolist())
        inverse = (a.T * a) ** -1
        product = w * inverse * w.T
        trace = mpmath.fsum(product[k, k] for k in range(product.rows))
        sensitivity = max(mpmath.fsum(abs(a[r, c]) for r in range(a.rows)) for c in range(a.cols))
        return float(2 * (sensitivity / mpmath.mpf(epsilon)) ** 2 * trace / w.rows)


def random_strategy(bins):
    return np.random.default_rng(bins).integers(-2, 3, size=(bins + 3, bins)).astype(float)


@pytest.mark.parametrize("bins", [1, 2, 4, 8])
@pytest.mark.parametrize("epsilon", [0.5, 1.0])
def test_workload_error_against_explicit_inverse(bins, epsilon):
    workloads = [qr.range_workload(bins), qr.prefix_workload(bins), qr.marginal_workload(bins)]
    strategies = [
        np.eye(bins),
        qr.tree_strategy(bins),
        qr.range_workload(bins),
        qr.prefix_workload(bins),
        random_strategy(bins),
    ]
    for workload, strategy in itertools.product(workloads, strategies):
        value = qr.workload_error(workload, strategy, epsilon)
        assert relative_error(value, mpmath_workload_error(workload, strategy, epsilon)) < 1e-10


@pytest.mark.parametrize("bins", [1, 2, 3, 7, 8, 20])
def test_identity_and_direct_range_errors(bins):
    workload = qr.range_workload(bins)
    identity = qr.workload_error(workload, np.eye(bins), 0.5)
    assert relative_error(qr.identity_range_error(bins, 0.5), identity) < 1e-10
    # Measured directly: every range has the same variance 2 Delta_1^2 / epsilon^2.
    sensitivity = workload.sum(axis=0).max()
    assert qr.direct_range_error(bins, 0.5) == 2 * (sensitivity / 0.5) ** 2
    # Least squares from the same noisy ranges does better by d / |W|.
    least_squares = qr.workload_error(workload, workload, 0.5)
    expected = qr.direct_range_error(bins, 0.5) * bins / len(workload)
    assert relative_error(least_squares, expected) < 1e-10
    assert least_squares <= qr.direct_range_error(bins, 0.5) * (1 + RELATIVE)


# ---------------------------------------------------------------- the binary tree


def fewest_nodes(bins):
    """{(i, j): the fewest dyadic intervals that partition [i, j)}, by dynamic programming."""
    starting_at = {}
    for a, b in dyadic_intervals(bins):
        starting_at.setdefault(a, []).append(b)
    fewest = {}
    for start in range(bins):
        best = {start: 0}
        for position in range(start, bins):
            for end in starting_at[position]:
                best[end] = min(best.get(end, bins + 1), best[position] + 1)
        fewest.update({(start, end): best[end] for end in range(start + 1, bins + 1)})
    return fewest


@pytest.mark.parametrize("bins", [1, 2, 4, 8, 16, 32, 64])
def test_naive_tree_against_each_range_cover(bins):
    levels = int(math.log2(bins)) + 1
    covers = fewest_nodes(bins)
    assert max(covers.values()) <= max(1, 2 * (levels - 1))
    mean_nodes = Fraction(sum(covers.values()), len(covers))
    for epsilon in (0.3, 1.0):
        exact = 2 * levels**2 * mean_nodes / Fraction(epsilon) ** 2
        assert relative_error(qr.tree_range_error(bins, epsilon), float(exact)) < RELATIVE


@pytest.mark.parametrize("bins", [2**k for k in range(7)])
def test_consistent_tree_is_least_squares_over_the_tree(bins):
    for epsilon in (0.3, 1.0):
        value = qr.tree_range_error(bins, epsilon, consistent=True)
        least_squares = qr.workload_error(qr.range_workload(bins), qr.tree_strategy(bins), epsilon)
        assert relative_error(value, least_squares) < 1e-10


def test_consistent_tree_against_explicit_inverse():
    for bins in (2, 4, 8):
        exact = mpmath_workload_error(qr.range_workload(bins), qr.tree_strategy(bins), 1.0)
        assert relative_error(qr.tree_range_error(bins, 1.0, consistent=True), exact) < RELATIVE


# The errors of all ranges at epsilon = 1, as the lesson prints them (each to its last digit).
LESSON_ERRORS = {
    "identity": {8: 6.667, 64: 44, 256: 172, 1024: 684},
    "naive": {8: 57.78, 64: 407.12, 256: 979.57},
    "direct": {8: 800},
    "consistent": {8: 26.07, 64: 127.25, 256: 264.78, 1024: 476.55},
}


def printed_digits(value):
    text = repr(value)
    return len(text.split(".")[1]) if "." in text else 0


@pytest.mark.parametrize(
    ("kind", "bins"), [(kind, bins) for kind, table in LESSON_ERRORS.items() for bins in table]
)
def test_lesson_range_errors(kind, bins):
    functions = {
        "identity": qr.identity_range_error,
        "naive": qr.tree_range_error,
        "direct": qr.direct_range_error,
        "consistent": lambda d, epsilon: qr.tree_range_error(d, epsilon, consistent=True),
    }
    printed = LESSON_ERRORS[kind][bins]
    value = functions[kind](bins, 1.0)
    assert round(value, printed_digits(printed)) == printed
    # Every error scales as 1 / epsilon^2.
    assert relative_error(functions[kind](bins, 0.25), 16 * value) < RELATIVE


def test_histogram_wins_on_average_until_between_512_and_1024_bins():
    for bins in (8, 64, 256, 512):
        assert qr.identity_range_error(bins, 1.0) < qr.tree_range_error(bins, 1.0, True)
    assert qr.identity_range_error(1024, 1.0) > qr.tree_range_error(1024, 1.0, True)
    # Consistency divides the naive tree's error by 2 to 4 at these sizes.
    for bins in (8, 64, 256, 1024):
        ratio = qr.tree_range_error(bins, 1.0) / qr.tree_range_error(bins, 1.0, True)
        assert 2 < ratio < 4.2


def test_tree_errors_at_many_bins_are_finite_and_ordered():
    for bins in (4096, 2**20):
        naive = qr.tree_range_error(bins, 1.0)
        consistent = qr.tree_range_error(bins, 1.0, consistent=True)
        assert 0 < consistent < naive < math.inf
        assert consistent < qr.identity_range_error(bins, 1.0)


# ---------------------------------------------------------------- clamping at 0


def mpmath_clamp_bias(count, scale):
    """E[max(0, c + X)] - c, X ~ Lap(b), by quadrature (split where the integrand kinks)."""
    with mpmath.workdps(MPMATH_DIGITS):
        c, b = mpmath.mpf(count), mpmath.mpf(scale)

        def integrand(x):
            return (c + x) * mpmath.exp(-abs(x) / b) / (2 * b)

        kinks = [0] if c > 0 else []
        return mpmath.quad(integrand, [-c, *kinks, mpmath.inf]) - c


def mpmath_clamp_bias_by_negative_part(count, scale):
    """The same as E[max(0, -(c + X))] = integral over u > 0 of u f(-c - u), f Laplace's density.

    No cancellation when the bias is tiny; the integrand is scaled by e^(max(c, 0) / b)
    inside the quadrature and back outside, since mpmath's tolerance is absolute.
    """
    with mpmath.workdps(MPMATH_DIGITS):
        c, b = mpmath.mpf(count), mpmath.mpf(scale)
        shift = max(c, 0) / b

        def integrand(u):
            return u * mpmath.exp(shift - abs(c + u) / b) / (2 * b)

        kinks = [-c] if c < 0 else []
        return mpmath.quad(integrand, [0, *kinks, mpmath.inf]) * mpmath.exp(-shift)


@pytest.mark.parametrize("count", [0, 1, 2, 5, 0.3, -1, -4.5])
@pytest.mark.parametrize("scale", [0.5, 1, 3])
def test_clamp_bias_against_quadrature(count, scale):
    exact = mpmath_clamp_bias(count, scale)
    assert relative_error(qr.clamp_bias(count, scale), float(exact)) < RELATIVE
    assert relative_error(mpmath_clamp_bias_by_negative_part(count, scale), exact) < 1e-30


def test_clamp_bias_lesson_values_and_far_tails():
    values = qr.clamp_bias([0, 1, 2, 5], 1.0)
    assert [round(value, 5) for value in values] == [0.5, 0.18394, 0.06767, 0.00337]
    for count, scale in [(40, 1), (700, 1), (30, 0.25), (-300, 2)]:
        exact = float(mpmath_clamp_bias_by_negative_part(count, scale))
        assert relative_error(qr.clamp_bias(count, scale), exact) < 1e-10
    # Far beyond the doubles: 0 above, |c| below, never an overflow.
    assert qr.clamp_bias(1e6, 1.0) == 0.0
    assert qr.clamp_bias(-1e6, 1.0) == 1e6
    # Broadcasts count against scale; a single pair gives a float.
    assert qr.clamp_bias(np.zeros((2, 3)), [1, 2, 4]).shape == (2, 3)
    assert isinstance(qr.clamp_bias(1, 1), float)


def test_noisy_histogram_and_clip_and_normalise():
    counts = np.zeros(DRAWS)
    noisy = qr.noisy_histogram(counts, 2.0, rng=np.random.default_rng(3))
    # |Lap(b)| is exponential with mean b and standard deviation b.
    mean = np.abs(noisy).mean()
    assert abs(mean - 0.5) < STANDARD_ERRORS * 0.5 / math.sqrt(DRAWS)
    again = qr.noisy_histogram(counts, 2.0, rng=np.random.default_rng(3))
    np.testing.assert_array_equal(noisy, again)
    # Clamping many empty cells at 0 inflates their total by b / 2 each.
    clamped = np.maximum(noisy, 0).mean()
    assert abs(clamped - qr.clamp_bias(0, 0.5)) < STANDARD_ERRORS * 0.5 / math.sqrt(DRAWS)
    cleaned = qr.clip_and_normalise([-3.0, 1.0, 3.0, -0.5], 100)
    np.testing.assert_allclose(cleaned, [0, 25, 75, 0], rtol=RELATIVE)
    np.testing.assert_array_equal(qr.clip_and_normalise([-1.0, -2.0], 10), [5, 5])


# ---------------------------------------------------------------- MWEM


def test_selection_probabilities_are_lesson_12s_exponential_mechanism():
    rng = np.random.default_rng(5)
    for bins in (1, 3, 8):
        histogram = rng.integers(0, 30, size=bins)
        synthetic = rng.uniform(0, 30, size=bins)
        for workload in (qr.range_workload(bins), qr.prefix_workload(bins)):
            scores = np.abs(workload @ histogram - workload @ synthetic)
            for epsilon in (0, 0.1, 1, 50):
                value = qr.mwem_selection_probabilities(histogram, synthetic, workload, epsilon)
                expected = selection.exponential_mechanism(scores, epsilon)
                np.testing.assert_allclose(value, expected, rtol=1e-12)


def test_round_one_of_the_lesson():
    workload = qr.range_workload(8)
    uniform = np.full(8, 12.5)
    epsilon, rounds = 1.0, 5
    probabilities = qr.mwem_selection_probabilities(
        HISTOGRAM, uniform, workload, epsilon / (2 * rounds)
    )
    scores = np.abs(workload @ np.array(HISTOGRAM) - workload @ uniform)
    top = int(np.argmax(probabilities))
    assert top == 2 * 8 - 1 + (6 - 2 - 1)  # the range [2, 6), bins 2..5
    np.testing.assert_array_equal(workload[top], indicator(8, 2, 6))
    assert scores[top] == 27 == scores.max()
    with mpmath.workdps(MPMATH_DIGITS):
        weights = [mpmath.exp(mpmath.mpf(score) / 20) for score in scores.tolist()]
        exact = [weight / mpmath.fsum(weights) for weight in weights]
    for value, expected in zip(probabilities, exact, strict=True):
        assert relative_error(value, float(expected)) < RELATIVE
    assert round(probabilities[top], 4) == 0.0559


def test_mwem_rho():
    assert relative_error(qr.mwem_rho(1, 5), 0.03125) < RELATIVE
    for epsilon, rounds in [(0.5, 1), (2.0, 7), (1.0, 40)]:
        expected = 5 * epsilon**2 / (32 * rounds)
        assert relative_error(qr.mwem_rho(epsilon, rounds), expected) < RELATIVE
        per_round = zcdp.bounded_range_rho(epsilon / (2 * rounds)) + zcdp.pure_rho(
            epsilon / (2 * rounds)
        )
        assert relative_error(qr.mwem_rho(epsilon, rounds), rounds * per_round) < RELATIVE


@pytest.mark.parametrize("replays", [0, 3])
def test_mwem_is_seeded_and_keeps_the_total(replays):
    workload = qr.range_workload(8)
    run = qr.mwem(HISTOGRAM, workload, 1.0, 5, rng=np.random.default_rng(7), replays=replays)
    again = qr.mwem(HISTOGRAM, workload, 1.0, 5, rng=np.random.default_rng(7), replays=replays)
    for field, other in zip(run, again, strict=True):
        np.testing.assert_array_equal(field, other)
    assert run.synthetic.shape == (6, 8)
    assert run.selected.shape == run.measurements.shape == (5,)
    np.testing.assert_array_equal(run.synthetic[0], 12.5)
    np.testing.assert_allclose(run.synthetic.sum(axis=1), 100, rtol=RELATIVE)
    np.testing.assert_allclose(run.average.sum(), 100, rtol=RELATIVE)
    np.testing.assert_allclose(run.average, run.synthetic[1:].mean(axis=0), rtol=RELATIVE)
    assert np.all(run.synthetic > 0)
    other = qr.mwem(HISTOGRAM, workload, 1.0, 5, rng=np.random.default_rng(8), replays=replays)
    assert not np.array_equal(run.measurements, other.measurements)


def test_mwem_rounds_by_hand():
    """Each round: a pick by the exponential mechanism, Lap(2T / epsilon), one update."""
    workload = qr.range_workload(8)
    epsilon, rounds, total = 2.0, 3, 100.0
    run = qr.mwem(HISTOGRAM, workload, epsilon, rounds, rng=np.random.default_rng(11))
    rng = np.random.default_rng(11)
    synthetic = np.full(8, total / 8)
    for t in range(rounds):
        probabilities = qr.mwem_selection_probabilities(
            HISTOGRAM, synthetic, workload, epsilon / (2 * rounds)
        )
        picked = rng.choice(len(workload), p=probabilities)
        measurement = workload[picked] @ HISTOGRAM + rng.laplace(scale=2 * rounds / epsilon)
        assert run.selected[t] == picked
        assert relative_error(run.measurements[t], measurement) < RELATIVE
        query = workload[picked]
        weights = synthetic * np.exp(query * (measurement - query @ synthetic) / (2 * total))
        synthetic = total * weights / weights.sum()
        np.testing.assert_allclose(run.synthetic[t + 1], synthetic, rtol=RELATIVE)


def test_mwem_learns_the_histogram_with_a_large_budget():
    workload = qr.range_workload(8)
    run = qr.mwem(HISTOGRAM, workload, 1000.0, 30, rng=np.random.default_rng(2), replays=20)
    start = np.abs(workload @ HISTOGRAM - workload @ run.synthetic[0]).max()
    end = np.abs(workload @ HISTOGRAM - workload @ run.synthetic[-1]).max()
    assert end < start / 5


def test_sample_rows_follows_the_proportions():
    synthetic = np.array([1.0, 0.0, 3.0, 6.0])
    rows = qr.sample_rows(synthetic, DRAWS, rng=np.random.default_rng(4))
    assert rows.dtype.kind == "i" and rows.shape == (DRAWS,)
    shares = synthetic / synthetic.sum()
    frequencies = np.bincount(rows, minlength=4) / DRAWS
    errors = np.sqrt(shares * (1 - shares) / DRAWS)
    assert np.all(np.abs(frequencies - shares) <= STANDARD_ERRORS * errors)
    again = qr.sample_rows(synthetic, DRAWS, rng=np.random.default_rng(4))
    np.testing.assert_array_equal(rows, again)
    assert qr.sample_rows(synthetic, 0, rng=np.random.default_rng(4)).size == 0


# ---------------------------------------------------------------- bad input

RNG = np.random.default_rng(0)
EIGHT = qr.range_workload(8)


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: qr.range_workload(0), "bins"),
        (lambda: qr.prefix_workload(2.5), "bins"),
        (lambda: qr.marginal_workload(-1), "bins"),
        (lambda: qr.tree_strategy(6), "bins"),
        (lambda: qr.tree_strategy(0), "bins"),
        (lambda: qr.tree_range_error(12, 1.0), "bins"),
        (lambda: qr.tree_range_error(8, 0.0), "epsilon"),
        (lambda: qr.tree_range_error(8, -1.0, consistent=True), "epsilon"),
        (lambda: qr.identity_range_error(0, 1.0), "bins"),
        (lambda: qr.identity_range_error(8, math.inf), "epsilon"),
        (lambda: qr.direct_range_error(8, 0), "epsilon"),
        (lambda: qr.workload_error(EIGHT, np.eye(8), 0), "epsilon"),
        (lambda: qr.workload_error(EIGHT, np.eye(7), 1), "workload"),
        (lambda: qr.workload_error(EIGHT, np.ones((9, 8)), 1), "strategy"),
        (lambda: qr.workload_error(EIGHT, [1, 2], 1), "strategy"),
        (lambda: qr.workload_error([[np.nan] * 8], np.eye(8), 1), "workload"),
        (lambda: qr.clamp_bias(1, 0), "scale"),
        (lambda: qr.clamp_bias(1, -2), "scale"),
        (lambda: qr.clamp_bias(np.nan, 1), "count"),
        (lambda: qr.mwem_selection_probabilities(HISTOGRAM, [1] * 7, EIGHT, 1), "synthetic"),
        (lambda: qr.mwem_selection_probabilities(HISTOGRAM, [1] * 8, np.eye(7), 1), "workload"),
        (lambda: qr.mwem_selection_probabilities(HISTOGRAM, [1] * 8, 2 * EIGHT, 1), "workload"),
        (lambda: qr.mwem_selection_probabilities([-1] * 8, [1] * 8, EIGHT, 1), "histogram"),
        (lambda: qr.mwem_selection_probabilities(HISTOGRAM, [1] * 8, EIGHT, -1), "epsilon"),
        (lambda: qr.mwem_rho(0, 5), "epsilon"),
        (lambda: qr.mwem_rho(1, 0), "rounds"),
        (lambda: qr.mwem(HISTOGRAM, EIGHT, 1, 0, rng=RNG), "rounds"),
        (lambda: qr.mwem(HISTOGRAM, EIGHT, 0, 5, rng=RNG), "epsilon"),
        (lambda: qr.mwem(HISTOGRAM, np.eye(7), 1, 5, rng=RNG), "workload"),
        (lambda: qr.mwem([0] * 8, EIGHT, 1, 5, rng=RNG), "histogram"),
        (lambda: qr.mwem(HISTOGRAM, EIGHT, 1, 5, rng=0), "rng"),
        (lambda: qr.mwem(HISTOGRAM, EIGHT, 1, 5, rng=RNG, replays=-1), "replays"),
        (lambda: qr.sample_rows([1, -1], 5, rng=RNG), "synthetic"),
        (lambda: qr.sample_rows([0, 0], 5, rng=RNG), "synthetic"),
        (lambda: qr.sample_rows([1, 1], -5, rng=RNG), "count"),
        (lambda: qr.sample_rows([1, 1], 5, rng=None), "rng"),
        (lambda: qr.noisy_histogram([1, 1], 0, rng=RNG), "epsilon"),
        (lambda: qr.clip_and_normalise([1, 1], -1), "total"),
    ],
)
def test_bad_input_names_the_parameter(call, name):
    with pytest.raises(ValueError, match=rf"^{name}\b"):
        call()
