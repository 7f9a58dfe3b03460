"""Local sensitivity made safe (dplearn.local_sensitivity): lesson 15's numbers.

Independent values: brute force over every data set on a small grid (A^(k) as the largest
local sensitivity within k replacements, found by breadth-first search), mpmath at
MPMATH_DIGITS digits (quadrature of the noises' densities), and seeded simulations of each
mechanism against its exact law.
"""

import functools
import itertools
import math

import mpmath
import numpy as np
import pytest

from dplearn import local_sensitivity as ls

MPMATH_DIGITS = 50

#: Lesson 04's ages and their range.
AGES = (15, 30, 45, 60, 75)
AGES_GRID = tuple(range(0, 91, 15))

#: The 1,001 ages of lesson 15, in [0, 100], median 50.
MANY_AGES = 20 + np.floor(0.06 * np.arange(1001))
DELTA = 1e-6

#: Simulated probabilities must lie within this many standard errors of the exact ones.
STANDARD_ERRORS = 4
DRAWS = 20_000


# ---------------------------------------------------------------- brute force on a grid


def kth(values, rank):
    return sorted(values)[rank - 1]


@functools.cache
def brute_local_sensitivity(data, rank, grid):
    """max |x_m(y) - x_m(data)| over y that replace one value of data by a grid value."""
    here = kth(data, rank)
    return max(
        abs(kth(data[:i] + (value,) + data[i + 1 :], rank) - here)
        for i in range(len(data))
        for value in grid
    )


def levels(data, grid):
    """{sorted data set: its number of replacements from data}, by breadth-first search."""
    start = tuple(sorted(data))
    distance = {start: 0}
    frontier = [start]
    while frontier:
        following = []
        for current in frontier:
            for i, value in itertools.product(range(len(current)), grid):
                neighbour = tuple(sorted(current[:i] + (value,) + current[i + 1 :]))
                if neighbour not in distance:
                    distance[neighbour] = distance[current] + 1
                    following.append(neighbour)
        frontier = following
    return distance


def brute_sensitivities(data, rank, grid):
    """A^(k) for k = 0..n: the largest brute-force local sensitivity within k replacements."""
    found = levels(data, grid)
    return [
        max(brute_local_sensitivity(y, rank, grid) for y, k in found.items() if k <= distance)
        for distance in range(len(data) + 1)
    ]


def test_ages_at_every_distance():
    np.testing.assert_array_equal(ls.local_sensitivities(AGES, 0, 90), [15, 30, 45, 60, 75, 90])
    assert [ls.local_sensitivity_at_distance(AGES, k, 0, 90) for k in range(8)] == [
        15,
        30,
        45,
        60,
        75,
        90,
        90,
        90,
    ]


def test_the_ages_grid_holds_462_data_sets():
    assert len(levels(AGES, AGES_GRID)) == math.comb(len(AGES_GRID) + 4, 5) == 462


CASES = [(AGES, rank, AGES_GRID) for rank in range(1, 6)] + [
    (data, rank, tuple(range(5)))
    for data in [(0, 1, 1, 3), (2, 2, 2, 2), (0, 0, 4, 4), (1, 3, 3, 4)]
    for rank in range(1, 5)
]


@pytest.mark.parametrize("data, rank, grid", CASES)
def test_sensitivities_bound_and_reach_brute_force(data, rank, grid):
    """A^(k) is >= every local sensitivity within k replacements, and one reaches it."""
    formula = ls.local_sensitivities(data, grid[0], grid[-1], rank)
    found = levels(data, grid)
    for distance in range(len(data) + 1):
        within = [brute_local_sensitivity(y, rank, grid) for y, k in found.items() if k <= distance]
        assert formula[distance] >= max(within)
        assert formula[distance] in within
    assert list(formula) == brute_sensitivities(data, rank, grid)


def test_sensitivities_of_many_values_follow_the_definition():
    """The vectorised table against the definition, one k and one t at a time."""
    n, rank = MANY_AGES.size, 501
    ordered = sorted(MANY_AGES)

    def x(i):
        return 0.0 if i <= 0 else 100.0 if i > n else ordered[i - 1]

    expected = [
        max(x(rank + t) - x(rank + t - k - 1) for t in range(k + 2)) for k in range(0, n + 1, 7)
    ]
    np.testing.assert_array_equal(ls.local_sensitivities(MANY_AGES, 0, 100)[::7], expected)
    assert ls.order_statistic(MANY_AGES) == 50


# ---------------------------------------------------------------- smooth sensitivity


@mpmath.workdps(MPMATH_DIGITS)
def mp_smooth(sensitivities, beta):
    beta = mpmath.mpf(beta)
    return max(mpmath.mpf(a) * mpmath.exp(-k * beta) for k, a in enumerate(sensitivities))


def test_smooth_release_parameters():
    assert ls.smooth_release_parameters(1) == (1 / 6, "cauchy", 6.0)
    beta, noise, scale = ls.smooth_release_parameters(1, DELTA)
    assert (noise, scale) == ("laplace", 2.0)
    assert beta == pytest.approx(0.034462182, abs=5e-10)
    assert beta == pytest.approx(1 / (2 * math.log(2 / DELTA)), rel=1e-15)


def test_smooth_sensitivity_of_the_ages():
    brute = brute_sensitivities(AGES, 3, AGES_GRID)
    cauchy, distance = ls.smooth_sensitivity(AGES, 1 / 6, 0, 90)
    assert (round(cauchy, 7), distance) == (39.1138388, 5)
    laplace, distance = ls.smooth_sensitivity(
        AGES, ls.smooth_release_parameters(1, DELTA).beta, 0, 90
    )
    assert (round(laplace, 7), distance) == (75.7545692, 5)
    assert cauchy == pytest.approx(float(mp_smooth(brute, mpmath.mpf(1) / 6)), rel=1e-14)
    assert ls.smooth_sensitivity(AGES, 0, 0, 90) == (90.0, 5)
    assert ls.smooth_sensitivity(AGES, 50, 0, 90) == (15.0, 0)


@pytest.mark.parametrize("beta", [0.0, 1e-3, 1 / 6, 0.034462182, 2.0, 40.0])
def test_smooth_sensitivity_against_mpmath(beta):
    sensitivities = ls.local_sensitivities(MANY_AGES, 0, 100)
    value, distance = ls.smooth_sensitivity(MANY_AGES, beta, 0, 100)
    assert value == pytest.approx(float(mp_smooth(sensitivities, beta)), rel=1e-14)
    weighted = sensitivities * np.exp(-np.arange(sensitivities.size) * beta)
    assert distance == int(np.argmax(weighted))


# ---------------------------------------------------------------- propose-test-release


@mpmath.workdps(MPMATH_DIGITS)
def mp_pass(distance, epsilon, threshold):
    """P[gamma + Lap(1/epsilon) > T] by quadrature of the Laplace density."""
    epsilon = mpmath.mpf(epsilon)
    cut = mpmath.mpf(threshold) - distance

    def density(z):
        return epsilon / 2 * mpmath.exp(-epsilon * abs(z))

    if cut >= 0:
        return mpmath.quad(density, [cut, mpmath.inf])
    return mpmath.quad(density, [cut, 0, mpmath.inf])


def test_distances_and_pass_probabilities_of_the_many_ages():
    distances = [ls.distance_to_instability(MANY_AGES, b, 0, 100) for b in (1, 2, 3)]
    assert distances == [16, 33, 50]
    assert ls.ptr_threshold(0.5, DELTA) == pytest.approx(26.2447, abs=5e-5)
    passes = [ls.ptr_pass_probability(d, 0.5, DELTA) for d in distances]
    assert [round(passes[0], 8), round(passes[1], 6), round(passes[2], 7)] == [
        0.00298096,
        0.982936,
        0.9999965,
    ]
    threshold = mpmath.log(1 / (2 * mpmath.mpf(DELTA))) / mpmath.mpf(0.5)
    for distance, passing in zip(distances, passes, strict=True):
        assert passing == pytest.approx(float(mp_pass(distance, 0.5, threshold)), rel=1e-14)


def test_distance_to_instability_edges():
    assert ls.distance_to_instability(AGES, 14, 0, 90) == 0
    assert ls.distance_to_instability(AGES, 15, 0, 90) == 1
    assert ls.distance_to_instability(AGES, 90, 0, 90) == math.inf
    assert ls.ptr_pass_probability(math.inf, 0.5, DELTA) == 1.0
    assert ls.ptr_pass_probability(0, 0.5, DELTA) == pytest.approx(DELTA, rel=1e-12)


def test_programming_dp_threshold_passes_far_too_often():
    threshold = math.log(2 / DELTA) / 2
    passing = ls.ptr_pass_probability_at_threshold(0, 1, threshold)
    assert passing == pytest.approx(0.5 * math.sqrt(DELTA / 2), rel=1e-13)
    assert round(passing, 6) == 3.54e-4
    assert round(passing / DELTA) == 354


@pytest.mark.parametrize("distance", [0, 3, 26, 26.2447, 30, 80])
def test_pass_probability_against_mpmath(distance):
    threshold = ls.ptr_threshold(0.5, DELTA)
    exact = mp_pass(distance, 0.5, threshold)
    assert ls.ptr_pass_probability(distance, 0.5, DELTA) == pytest.approx(float(exact), rel=1e-13)


# ---------------------------------------------------------------- within t


@mpmath.workdps(MPMATH_DIGITS)
def mp_within(t, scale, noise):
    t, scale = mpmath.mpf(t), mpmath.mpf(scale)
    if noise == "laplace":
        return 2 * mpmath.quad(lambda z: mpmath.exp(-z / scale) / (2 * scale), [0, t])
    return 2 * mpmath.quad(lambda z: 1 / (mpmath.pi * scale * (1 + (z / scale) ** 2)), [0, t])


@pytest.mark.parametrize("t, scale", [(1, 2.3), (1e-9, 1.0), (5, 0.1), (0.3, 40.0)])
def test_within_probabilities_against_mpmath(t, scale):
    assert ls.laplace_within(t, scale) == pytest.approx(
        float(mp_within(t, scale, "laplace")), rel=1e-13
    )
    assert ls.cauchy_within(t, scale) == pytest.approx(
        float(mp_within(t, scale, "cauchy")), rel=1e-13
    )


def test_the_three_methods_on_the_many_ages():
    smooth, _ = ls.smooth_sensitivity(
        MANY_AGES, ls.smooth_release_parameters(1, DELTA).beta, 0, 100
    )
    laplace = ls.laplace_within(1, 2 * smooth)
    ptr = ls.ptr_within(1, 33, 2, 0.5, 0.5, DELTA)
    cauchy_sensitivity, _ = ls.smooth_sensitivity(MANY_AGES, 1 / 6, 0, 100)
    cauchy = ls.cauchy_within(1, 6 * cauchy_sensitivity)
    assert [laplace, ptr, cauchy] == pytest.approx([0.352035, 0.217425, 0.105137], abs=5e-7)
    threshold = mpmath.log(1 / (2 * mpmath.mpf(DELTA))) / mpmath.mpf(0.5)
    with mpmath.workdps(MPMATH_DIGITS):
        exact = mp_pass(33, 0.5, threshold) * mp_within(1, 4, "laplace")
    assert ptr == pytest.approx(float(exact), rel=1e-13)
    assert ls.ptr_within(1, math.inf, 2, 0.5, 0.5, DELTA) == ls.laplace_within(1, 4)


# ---------------------------------------------------------------- samplers against their laws


def assert_close(fraction, probability, draws=DRAWS):
    error = math.sqrt(max(probability * (1 - probability), 1 / draws) / draws)
    assert abs(fraction - probability) <= STANDARD_ERRORS * error, (fraction, probability)


@pytest.mark.parametrize("delta", [None, DELTA])
@pytest.mark.parametrize("data, lower, upper", [(AGES, 0, 90), (MANY_AGES, 0, 100)])
def test_smooth_release_follows_its_law(data, lower, upper, delta):
    rng = np.random.default_rng(15)
    release = ls.smooth_release_parameters(1, delta)
    sensitivity, _ = ls.smooth_sensitivity(data, release.beta, lower, upper)
    draws = ls.smooth_sensitivity_release(data, 1, lower, upper, delta, rng=rng, size=DRAWS)
    within = ls.cauchy_within if delta is None else ls.laplace_within
    errors = np.abs(draws - ls.order_statistic(data))
    for t in (0.5, 1, 10, 100):
        assert_close(np.mean(errors <= t), within(t, release.scale * sensitivity))
    one = ls.smooth_sensitivity_release(data, 1, lower, upper, delta, rng=rng)
    assert isinstance(one, float)


@pytest.mark.parametrize("bound", [1, 2])
def test_ptr_release_follows_its_law(bound):
    rng = np.random.default_rng(1515)
    release = ls.ptr_release(MANY_AGES, bound, 0.5, 0.5, DELTA, 0, 100, rng=rng, size=DRAWS)
    distance = ls.distance_to_instability(MANY_AGES, bound, 0, 100)
    assert release.passed.shape == (DRAWS,)
    assert release.answer.size == release.passed.sum()
    assert_close(release.passed.mean(), ls.ptr_pass_probability(distance, 0.5, DELTA))
    for t in (0.5, 1, 5):
        within = np.sum(np.abs(release.answer - 50) <= t) / DRAWS
        assert_close(within, ls.ptr_within(t, distance, bound, 0.5, 0.5, DELTA))


def test_one_ptr_release_is_an_answer_or_a_refusal():
    refused = ls.ptr_release(AGES, 1, 0.5, 0.5, DELTA, 0, 90, rng=np.random.default_rng(0))
    assert refused == (False, None)
    passed, answer = ls.ptr_release(AGES, 90, 1, 1, DELTA, 0, 90, rng=np.random.default_rng(0))
    assert passed is True and isinstance(answer, float)


def test_sample_and_aggregate_of_means_is_the_mean_plus_laplace():
    """Block means of equal blocks average to the overall mean, whatever the split."""
    rng = np.random.default_rng(7)
    values = MANY_AGES[:1000:10]
    draws = ls.sample_and_aggregate(values, np.mean, 5, 0, 100, 1, rng=rng, size=DRAWS)
    errors = np.abs(draws - values.mean())
    for t in (1, 10, 50):
        assert_close(np.mean(errors <= t), ls.laplace_within(t, 100 / 5))


def test_sample_and_aggregate_splits_into_disjoint_random_blocks():
    seen = []

    def record(block):
        seen.append(np.array(block))
        return 1000.0  # clamped to upper

    values = np.arange(23.0)
    first = ls.sample_and_aggregate(values, record, 4, 0, 30, 1, rng=np.random.default_rng(3))
    assert sorted(block.size for block in seen) == [5, 6, 6, 6]
    np.testing.assert_array_equal(np.sort(np.concatenate(seen)), values)
    split = [block.copy() for block in seen]
    seen.clear()
    again = ls.sample_and_aggregate(values, record, 4, 0, 30, 1, rng=np.random.default_rng(3))
    assert again == first
    assert all(np.array_equal(a, b) for a, b in zip(split, seen, strict=True))
    assert not np.array_equal(np.concatenate(split), np.sort(values))
    assert ls.sample_and_aggregate(values, record, 4, 0, 30, 1e9, rng=np.random.default_rng(3)) == (
        pytest.approx(30.0, abs=1e-6)
    )


# ---------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: ls.local_sensitivities([1, 200], 0, 90), "values"),
        (lambda: ls.local_sensitivities([], 0, 90), "values"),
        (lambda: ls.local_sensitivities([1, math.nan], 0, 90), "values"),
        (lambda: ls.local_sensitivities(AGES, 90, 90), "upper"),
        (lambda: ls.local_sensitivities(AGES, 100, 90), "upper"),
        (lambda: ls.local_sensitivities(AGES, 0, 90, rank=0), "rank"),
        (lambda: ls.local_sensitivities(AGES, 0, 90, rank=6), "rank"),
        (lambda: ls.local_sensitivity_at_distance(AGES, -1, 0, 90), "distance"),
        (lambda: ls.smooth_sensitivity(AGES, -0.1, 0, 90), "beta"),
        (lambda: ls.smooth_release_parameters(0), "epsilon"),
        (lambda: ls.smooth_release_parameters(1, 1.0), "delta"),
        (lambda: ls.smooth_release_parameters(1, 0), "delta"),
        (lambda: ls.distance_to_instability(AGES, -1, 0, 90), "bound"),
        (lambda: ls.ptr_threshold(-1, DELTA), "epsilon"),
        (lambda: ls.ptr_threshold(1, 2), "delta"),
        (lambda: ls.ptr_pass_probability(-1, 1, DELTA), "distance"),
        (lambda: ls.laplace_within(-1, 1), "t"),
        (lambda: ls.cauchy_within(1, 0), "scale"),
        (lambda: ls.ptr_within(1, 3, 0, 1, 1, DELTA), "bound"),
        (lambda: ls.ptr_within(1, 3, 1, 1, 0, DELTA), "epsilon_release"),
        (
            lambda: ls.ptr_release(AGES, 1, 0, 1, DELTA, 0, 90, rng=np.random.default_rng()),
            "epsilon",
        ),
        (
            lambda: ls.smooth_sensitivity_release(
                AGES, 1, 0, 90, rng=np.random.default_rng(), size=0
            ),
            "size",
        ),
        (lambda: ls.smooth_sensitivity_release(AGES, 1, 0, 90, rng=1), "rng"),
        (
            lambda: ls.sample_and_aggregate(
                AGES, np.mean, 0, 0, 90, 1, rng=np.random.default_rng()
            ),
            "blocks",
        ),
        (
            lambda: ls.sample_and_aggregate(
                AGES, np.mean, 6, 0, 90, 1, rng=np.random.default_rng()
            ),
            "blocks",
        ),
        (
            lambda: ls.sample_and_aggregate(
                AGES, lambda block: math.nan, 2, 0, 90, 1, rng=np.random.default_rng()
            ),
            "statistic",
        ),
    ],
)
def test_bad_input_names_the_parameter(call, name):
    with pytest.raises(ValueError, match=rf"^{name}\b"):
        call()


@pytest.mark.parametrize("beta", [0.0, 0.034462182, 1 / 6, 2.0])
def test_smooth_sensitivity_of_a_table_is_smooth_sensitivity(beta):
    values = 20 + np.floor(0.06 * np.arange(1001))
    table = ls.local_sensitivities(values, 0, 100)
    assert ls.smooth_sensitivity_of(table, beta) == (ls.smooth_sensitivity(values, beta, 0, 100))
    with pytest.raises(ValueError, match="sensitivities"):
        ls.smooth_sensitivity_of([-1.0, 2.0], beta)
