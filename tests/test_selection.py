"""Selections (lesson 12): every probability against mpmath at 50 digits or brute force.

The identities are tested both ways: the exponential mechanism against report-noisy-max
with Gumbel noise computed as an integral, and report-noisy-max with Gumbel noise
against the exponential mechanism's closed form; permute-and-flip against report-noisy-max
with exponential noise as an integral, and that noise against permute-and-flip's own
definition, summed over every order of the candidates.
"""

import itertools
import math

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dplearn import composition, privacy_loss, selection, zcdp

MPMATH_DIGITS = 50  # each test's mpmath precision (tests/conftest.py)

SCORES = [30, 28, 20, 12, 10]
CASES = [
    (SCORES, 1.0, 1.0, False),
    ([3.0, 2.5, 2.5, -1.0], 0.7, 1.0, False),
    ([0.0, 1.0, 4.0], 2.0, 0.5, True),
    ([5.0, 5.0, 4.0, 0.0, -3.0], 0.25, 2.0, False),
]
#: The integrals at 50 digits are the slow tests here, so two cases: a tie, monotone scores.
INTEGRAL_CASES = [CASES[1], CASES[2]]


def mp_rate(epsilon, sensitivity, monotone):
    epsilon, sensitivity = mpmath.mpf(epsilon), mpmath.mpf(sensitivity)
    return epsilon / sensitivity if monotone else epsilon / (2 * sensitivity)


def mp_exponential_mechanism(scores, epsilon, sensitivity, monotone):
    a = mp_rate(epsilon, sensitivity, monotone)
    weights = [mpmath.exp(a * mpmath.mpf(u)) for u in scores]
    total = mpmath.fsum(weights)
    return [w / total for w in weights]


def mp_noisy_max(scores, epsilon, sensitivity, monotone, density, cdf, kinks=()):
    """P[r wins] = integral of r's noise density times every other noisy score below,
    noise in units of its scale (scores times a)."""
    a = mp_rate(epsilon, sensitivity, monotone)
    standard = [a * mpmath.mpf(u) for u in scores]
    result = []
    for r, mine in enumerate(standard):
        gaps = [mine - other for s, other in enumerate(standard) if s != r]

        def integrand(x, gaps=gaps):
            value = density(x)
            for gap in gaps:
                value *= cdf(x + gap)
            return value

        points = sorted({mpmath.mpf(0)} | {-g for g in gaps} if kinks else {mpmath.mpf(0)})
        result.append(mpmath.quad(integrand, [-mpmath.inf, *points, mpmath.inf]))
    return result


def mp_gumbel_noisy_max(scores, epsilon, sensitivity, monotone):
    """The Gumbel integral after y = e^-x (noise x of the candidate r): its density
    e^-x e^(-e^-x) dx is e^-y dy, and P[X_s < x + gap] = e^(-y e^-gap)."""
    a = mp_rate(epsilon, sensitivity, monotone)
    standard = [a * mpmath.mpf(u) for u in scores]
    result = []
    for r, mine in enumerate(standard):
        gaps = [mine - other for s, other in enumerate(standard) if s != r]

        def integrand(y, gaps=gaps):
            value = mpmath.exp(-y)
            for gap in gaps:
                value *= mpmath.exp(-y * mpmath.exp(-gap))
            return value

        result.append(mpmath.quad(integrand, [0, 1, mpmath.inf]))
    return result


def mp_exponential_noisy_max(scores, epsilon, sensitivity, monotone):
    return mp_noisy_max(
        scores,
        epsilon,
        sensitivity,
        monotone,
        lambda x: mpmath.exp(-x) if x >= 0 else mpmath.mpf(0),
        lambda z: -mpmath.expm1(-z) if z > 0 else mpmath.mpf(0),
        kinks=True,
    )


def mp_laplace_noisy_max(scores, epsilon, sensitivity, monotone):
    return mp_noisy_max(
        scores,
        epsilon,
        sensitivity,
        monotone,
        lambda x: mpmath.exp(-abs(x)) / 2,
        lambda z: mpmath.exp(z) / 2 if z < 0 else 1 - mpmath.exp(-z) / 2,
        kinks=True,
    )


def brute_force_permute_and_flip(scores, epsilon, sensitivity, monotone):
    """Permute-and-flip by its definition: every order of the candidates, equally likely;
    in each, the first candidate whose coin comes up heads is picked."""
    a = mp_rate(epsilon, sensitivity, monotone)
    best = max(scores)
    flip = [mpmath.exp(a * (mpmath.mpf(u) - best)) for u in scores]
    result = [mpmath.mpf(0)] * len(scores)
    orders = list(itertools.permutations(range(len(scores))))
    for order in orders:
        untouched = mpmath.mpf(1)
        for candidate in order:
            result[candidate] += untouched * flip[candidate]
            untouched *= 1 - flip[candidate]
    return [value / len(orders) for value in result]


def close(actual, expected, relative=1e-12, absolute=0.0):
    expected = np.array([float(v) for v in expected])
    np.testing.assert_allclose(actual, expected, rtol=relative, atol=absolute)


# ---------------------------------------------------------------------------
# Lesson 12's numbers (SEL-1, SEL-2 and SEL-4 in docs/figures.md)
# ---------------------------------------------------------------------------


def test_sel_1_probabilities():
    probabilities = selection.exponential_mechanism(SCORES, 1.0)
    assert [round(p, 4) for p in probabilities] == [0.7274, 0.2676, 0.0049, 0.0001, 0.0]


def test_sel_2_probabilities_of_the_best():
    best = {noise: selection.report_noisy_max(SCORES, 1.0, noise)[0] for noise in selection.NOISES}
    assert round(best["laplace"], 4) == 0.7213
    assert round(best["gumbel"], 4) == 0.7274
    assert round(best["exponential"], 4) == 0.8135


def test_sel_4_four_ways_of_paying_for_a_hundred_selections():
    k, epsilon, delta = 100, 0.1, 1e-6
    assert composition.basic(epsilon, 0.0, k)[0] == pytest.approx(10.0, rel=1e-12)
    assert round(composition.advanced(epsilon, 0.0, k, delta)[0], 2) == 6.31
    assert round(zcdp.to_epsilon(k * zcdp.pure_rho(epsilon), delta), 2) == 5.22
    assert round(zcdp.to_epsilon(k * zcdp.bounded_range_rho(epsilon), delta), 2) == 2.42


# ---------------------------------------------------------------------------
# Every probability, exactly
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(("scores", "epsilon", "sensitivity", "monotone"), CASES)
def test_exponential_mechanism_against_mpmath(scores, epsilon, sensitivity, monotone):
    expected = mp_exponential_mechanism(scores, epsilon, sensitivity, monotone)
    close(selection.exponential_mechanism(scores, epsilon, sensitivity, monotone), expected)


def test_exponential_mechanism_does_not_overflow():
    scores = [1e4, 1e4 - 0.5, 0.0, -1e4]
    expected = mp_exponential_mechanism(scores, 10.0, 1.0, False)
    actual = selection.exponential_mechanism(scores, 10.0)
    assert np.all(np.isfinite(actual))
    close(actual, expected, relative=1e-12, absolute=1e-300)
    log_actual = selection.exponential_mechanism_log(scores, 10.0)
    assert log_actual[3] == pytest.approx(float(mpmath.log(expected[3])), rel=1e-12)


@pytest.mark.parametrize(("scores", "epsilon", "sensitivity", "monotone"), INTEGRAL_CASES)
def test_gumbel_noisy_max_as_an_integral_is_the_exponential_mechanism(
    scores, epsilon, sensitivity, monotone
):
    integral = mp_gumbel_noisy_max(scores, epsilon, sensitivity, monotone)
    close(selection.exponential_mechanism(scores, epsilon, sensitivity, monotone), integral)


@pytest.mark.parametrize(("scores", "epsilon", "sensitivity", "monotone"), CASES)
def test_gumbel_noisy_max_is_the_exponential_mechanisms_closed_form(
    scores, epsilon, sensitivity, monotone
):
    closed_form = mp_exponential_mechanism(scores, epsilon, sensitivity, monotone)
    actual = selection.report_noisy_max(scores, epsilon, "gumbel", sensitivity, monotone)
    close(actual, closed_form)


@pytest.mark.parametrize(("scores", "epsilon", "sensitivity", "monotone"), INTEGRAL_CASES)
def test_permute_and_flip_is_exponential_noisy_max_as_an_integral(
    scores, epsilon, sensitivity, monotone
):
    integral = mp_exponential_noisy_max(scores, epsilon, sensitivity, monotone)
    close(selection.permute_and_flip(scores, epsilon, sensitivity, monotone), integral)


@pytest.mark.parametrize(("scores", "epsilon", "sensitivity", "monotone"), CASES)
def test_exponential_noisy_max_is_permute_and_flip_by_its_definition(
    scores, epsilon, sensitivity, monotone
):
    definition = brute_force_permute_and_flip(scores, epsilon, sensitivity, monotone)
    actual = selection.report_noisy_max(scores, epsilon, "exponential", sensitivity, monotone)
    close(actual, definition)


def test_permute_and_flip_with_many_candidates():
    # 40 candidates: a polynomial of degree 39 under the integral, against mpmath's sum
    # over the size of the set visited before each candidate (elementary symmetric sums).
    rng = np.random.default_rng(12)
    scores = np.round(rng.normal(0.0, 3.0, 40), 3)
    a = mpmath.mpf(0.5)
    best = max(scores)
    flip = [mpmath.exp(a * (mpmath.mpf(float(u)) - mpmath.mpf(float(best)))) for u in scores]
    k = len(scores)
    expected = []
    for r in range(k):
        # prod_(s != r) (1 - p_s t) as polynomial coefficients, then integral of t^j = 1/(j+1)
        coefficients = [mpmath.mpf(1)]
        for s in range(k):
            if s != r:
                coefficients = [
                    (coefficients[j] if j < len(coefficients) else 0)
                    - (flip[s] * coefficients[j - 1] if j >= 1 else 0)
                    for j in range(len(coefficients) + 1)
                ]
        integral = mpmath.fsum(c / (j + 1) for j, c in enumerate(coefficients))
        expected.append(flip[r] * integral)
    close(selection.permute_and_flip(scores, 1.0), expected, relative=1e-11)


@pytest.mark.parametrize(("scores", "epsilon", "sensitivity", "monotone"), [CASES[0], CASES[2]])
def test_laplace_noisy_max_against_mpmath(scores, epsilon, sensitivity, monotone):
    expected = mp_laplace_noisy_max(scores, epsilon, sensitivity, monotone)
    actual = selection.report_noisy_max(scores, epsilon, "laplace", sensitivity, monotone)
    close(actual, expected, relative=0.0, absolute=1e-10)


def test_epsilon_zero_picks_uniformly():
    for noise in selection.NOISES:
        np.testing.assert_allclose(
            selection.report_noisy_max([3.0, 1.0, 0.0, 0.0], 0.0, noise), 0.25, rtol=1e-13
        )


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.floats(-50, 50, allow_nan=False), min_size=1, max_size=8),
    st.floats(0.0, 10.0),
    st.booleans(),
)
def test_permute_and_flip_is_never_worse_than_the_exponential_mechanism(scores, epsilon, monotone):
    em = selection.exponential_mechanism(scores, epsilon, monotone=monotone)
    pf = selection.permute_and_flip(scores, epsilon, monotone=monotone)
    assert pf.sum() == pytest.approx(1.0, abs=1e-12)
    best = np.asarray(scores) == max(scores)
    assert pf[best].sum() >= em[best].sum() - 1e-12
    # ... and its expected score is never lower (McKenna & Sheldon 2020, Theorem 2).
    assert np.dot(pf, scores) >= np.dot(em, scores) - 1e-9 * (1 + np.abs(scores).max())


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.floats(-50, 50, allow_nan=False), min_size=1, max_size=12),
    st.floats(0.01, 10.0),
    st.floats(1e-6, 0.9),
    st.booleans(),
)
def test_accuracy_bound_holds(scores, epsilon, beta, monotone):
    """The chance of a pick more than the bound below the best is at most beta."""
    bound = selection.accuracy_bound(len(scores), epsilon, beta, monotone=monotone)
    law = selection.exponential_mechanism(scores, epsilon, monotone=monotone)
    worse = np.asarray(scores) < max(scores) - bound
    assert law[worse].sum() <= beta * (1 + 1e-12)


@pytest.mark.parametrize("candidates", [2, 5, 50, 5000])
def test_accuracy_bound_against_mpmath_and_nearly_reached(candidates):
    """(2 Delta u / epsilon)(ln m + ln(1/beta)); one best and m - 1 candidates just below
    the bound are picked with nearly beta (m - 1)/m, so no smaller bound holds."""
    epsilon, beta, sensitivity = 0.7, 0.05, 2.0
    bound = selection.accuracy_bound(candidates, epsilon, beta, sensitivity)
    exact = (
        2
        * mpmath.mpf(sensitivity)
        / mpmath.mpf(epsilon)
        * mpmath.log(candidates / mpmath.mpf(beta))
    )
    assert bound == pytest.approx(float(exact), rel=1e-14)
    scores = [0.0] + [-bound * (1 + 1e-9)] * (candidates - 1)
    worse = 1 - selection.exponential_mechanism(scores, epsilon, sensitivity)[0]
    weight = (candidates - 1) * beta / candidates
    assert worse == pytest.approx(weight / (1 + weight), rel=1e-6)
    monotone = selection.accuracy_bound(candidates, epsilon, beta, sensitivity, monotone=True)
    assert monotone == pytest.approx(bound / 2, rel=1e-14)


# ---------------------------------------------------------------------------
# Samplers draw what the probabilities say
# ---------------------------------------------------------------------------


def frequencies_agree(draws, probabilities):
    counts = np.bincount(draws, minlength=len(probabilities))
    n = draws.size
    spread = np.sqrt(n * probabilities * (1 - probabilities)) + 1.0
    assert np.all(np.abs(counts - n * probabilities) <= 5 * spread), (counts, n * probabilities)


@pytest.mark.parametrize("noise", selection.NOISES)
def test_noisy_max_sampler(noise):
    scores = [3.0, 2.0, 2.0, 0.0]
    draws = selection.sample_report_noisy_max(
        scores, 1.0, noise, rng=np.random.default_rng(5), size=20000
    )
    frequencies_agree(draws, selection.report_noisy_max(scores, 1.0, noise))


def test_exponential_mechanism_and_permute_and_flip_samplers():
    scores = [3.0, 2.0, 2.0, 0.0]
    draws = selection.sample_exponential_mechanism(
        scores, 1.0, rng=np.random.default_rng(6), size=20000
    )
    frequencies_agree(draws, selection.report_noisy_max(scores, 1.0, "gumbel"))
    draws = selection.sample_permute_and_flip(scores, 1.0, rng=np.random.default_rng(7), size=20000)
    frequencies_agree(draws, selection.report_noisy_max(scores, 1.0, "exponential"))


def test_samplers_are_seeded():
    for sample in (
        lambda rng: selection.sample_exponential_mechanism(SCORES, 1.0, rng=rng, size=50),
        lambda rng: selection.sample_permute_and_flip(SCORES, 1.0, rng=rng, size=50),
        lambda rng: selection.sample_report_noisy_max(SCORES, 1.0, "laplace", rng=rng, size=50),
    ):
        first = sample(np.random.default_rng(3))
        assert np.array_equal(first, sample(np.random.default_rng(3)))
    assert isinstance(
        selection.sample_exponential_mechanism(SCORES, 1.0, rng=np.random.default_rng(1)), int
    )


# ---------------------------------------------------------------------------
# The privacy loss of a selection, as a pair
# ---------------------------------------------------------------------------

NEIGHBOUR = [29, 29, 21, 13, 11]


def mp_pair(first, second):
    losses = [mpmath.log(p / q) for p, q in zip(first, second, strict=True)]
    return losses, first


def mp_delta(losses, masses, epsilon):
    epsilon = mpmath.mpf(epsilon)
    return mpmath.fsum(
        m * (1 - mpmath.exp(epsilon - loss))
        for loss, m in zip(losses, masses, strict=True)
        if loss > epsilon
    )


@pytest.mark.parametrize("noise", ["gumbel", "exponential"])
def test_loss_pair_against_mpmath(noise):
    mp = mp_exponential_mechanism if noise == "gumbel" else brute_force_permute_and_flip
    losses, masses = mp_pair(mp(SCORES, 1.0, 1.0, False), mp(NEIGHBOUR, 1.0, 1.0, False))
    pair = selection.loss_pair(SCORES, NEIGHBOUR, 1.0, noise)
    close(pair.losses, losses)
    for epsilon in [0.0, 0.1, 0.3, 0.9]:
        expected = mp_delta(losses, masses, epsilon)
        assert pair.delta(epsilon) == pytest.approx(float(expected), rel=1e-12, abs=1e-300)
    assert pair.delta(1.0) == 0.0
    assert pair.loss_mean == pytest.approx(
        float(mpmath.fsum(v * m for v, m in zip(losses, masses, strict=True))), rel=1e-12
    )
    target = 1e-3
    epsilon = pair.epsilon_for_delta(target)
    assert pair.delta(epsilon) <= target < pair.delta(epsilon * (1 - 1e-9))


def test_exponential_mechanism_losses_lie_within_epsilon_and_span_at_most_epsilon():
    rng = np.random.default_rng(9)
    for _ in range(200):
        k = int(rng.integers(2, 7))
        scores = rng.normal(0, 5, k)
        neighbour = scores + rng.uniform(-1, 1, k)
        epsilon = float(rng.choice([0.1, 1.0, 4.0]))
        pair = selection.loss_pair(scores, neighbour, epsilon, "gumbel")
        assert np.all(np.abs(pair.losses) <= epsilon * (1 + 1e-12))
        assert pair.loss_range <= epsilon * (1 + 1e-12)


def test_bounded_range_is_reached_and_permute_and_flip_exceeds_it():
    pair = selection.loss_pair([0.0, 0.0], [-1.0, 1.0], 1.0, "gumbel")
    assert pair.loss_range == pytest.approx(1.0, rel=1e-14)
    flipped = selection.loss_pair([0.0, 0.0], [-1.0, 1.0], 1.0, "exponential")
    assert flipped.max_loss == pytest.approx(1.0, rel=1e-14)
    assert flipped.loss_range > 1.4


def test_exponential_mechanism_renyi_divergence_is_within_bounded_range_rho():
    # D_alpha <= rho alpha with rho = epsilon^2 / 8 (Cesar & Rogers), summed at 50 digits.
    epsilon = mpmath.mpf(2)
    for scores, neighbour in [([0, 0], [-1, 1]), (SCORES, NEIGHBOUR), ([1, 2, 3], [2, 1, 2])]:
        first = mp_exponential_mechanism(scores, epsilon, 1.0, False)
        second = mp_exponential_mechanism(neighbour, epsilon, 1.0, False)
        for alpha in [1.5, 2, 5, 20]:
            moment = mpmath.fsum(
                p**alpha * q ** (1 - alpha) for p, q in zip(first, second, strict=True)
            )
            divergence = mpmath.log(moment) / (alpha - 1)
            assert divergence <= zcdp.bounded_range_rho(float(epsilon)) * alpha * (1 + 1e-12)


def test_worst_neighbours_against_brute_force():
    scores, epsilon = [3.0, 1.0, 0.5], 1.0
    for monotone in (False, True):
        low, high, low_at, high_at, where = selection.worst_neighbours(
            scores, epsilon, monotone=monotone
        )
        grid = np.linspace(-1, 1, 5)
        best_high, best_low = -np.inf, np.inf
        for change in itertools.product(grid, repeat=3):
            change = np.array(change)
            if monotone and np.any(change > 0) and np.any(change < 0):
                continue
            losses = selection.loss_pair(
                scores, scores + change, epsilon, "gumbel", monotone=monotone
            ).losses
            best_high, best_low = max(best_high, losses.max()), min(best_low, losses.min())
        assert high == pytest.approx(best_high, rel=1e-12)
        assert low == pytest.approx(best_low, rel=1e-12)
        pair = selection.loss_pair(scores, high_at, epsilon, "gumbel", monotone=monotone)
        assert pair.losses[where[1]] == pytest.approx(high, rel=1e-12)
        assert -epsilon <= low < 0 < high <= epsilon


def test_composition_of_selections_against_brute_force():
    pair = selection.loss_pair(SCORES, NEIGHBOUR, 1.0, "gumbel")
    composed = composition.compose(pair, 3)
    values, masses = pair.loss_atoms
    sums, products = {}, {}
    for combination in itertools.product(range(values.size), repeat=3):
        total = sum(values[i] for i in combination)
        key = round(total, 9)
        sums[key] = total
        products[key] = products.get(key, 0.0) + math.prod(masses[i] for i in combination)
    for epsilon in [0.0, 0.5, 1.0, 2.0]:
        expected = sum(
            m * -math.expm1(epsilon - sums[key])
            for key, m in products.items()
            if sums[key] > epsilon
        )
        assert composed.delta(epsilon) == pytest.approx(expected, rel=1e-12)
    bracket = composition.pld_bracket(pair, 3, 1e-3)
    low, high = bracket.delta(0.5)
    assert low <= composed.delta(0.5) <= high


def test_a_selection_is_a_privacy_loss_pair():
    pair = selection.loss_pair(SCORES, NEIGHBOUR, 1.0, "gumbel")
    assert isinstance(pair, privacy_loss.PrivacyLossPair)
    assert pair.density_d1(0) == pytest.approx(selection.exponential_mechanism(SCORES, 1.0)[0])
    assert pair.loss_quantile(0.0) == pair.max_loss
    assert pair.loss_quantile(1.0) == pair.min_loss
    assert pair.loss_cdf(pair.max_loss) == pytest.approx(1.0)
    assert pair.loss_exceeds(0.0) == pytest.approx(pair.density_d1(0))


# ---------------------------------------------------------------------------
# A private median
# ---------------------------------------------------------------------------


def test_quantile_scores_by_brute_force():
    values = [1.0, 2.0, 2.0, 5.0, 9.0]
    candidates = np.arange(0.0, 11.0)
    for quantile in (0.5, 0.25):
        expected = [
            -abs(
                (1 - quantile) * sum(x < c for x in values) - quantile * sum(x > c for x in values)
            )
            for c in candidates
        ]
        np.testing.assert_array_equal(
            selection.quantile_scores(values, candidates, quantile), expected
        )


def test_quantile_probabilities_against_mpmath_and_the_sampler():
    values = [1.0, 2.0, 2.0, 5.0, 9.0, 3.0]
    candidates = np.arange(0.0, 11.0)
    epsilon = 1.0
    scores = selection.quantile_scores(values, candidates)
    expected = mp_exponential_mechanism(scores, epsilon, 0.5, False)
    probabilities = selection.quantile_probabilities(values, candidates, epsilon)
    close(probabilities, expected)
    draws = selection.sample_quantile(
        values, candidates, epsilon, rng=np.random.default_rng(2), size=20000
    )
    frequencies_agree(np.searchsorted(candidates, draws), probabilities)
    # Sensitivity: adding any one value moves every score by at most 1/2.
    for extra in [-1.0, 2.0, 4.5, 20.0]:
        moved = selection.quantile_scores([*values, extra], candidates)
        assert np.max(np.abs(moved - scores)) <= 0.5


# ---------------------------------------------------------------------------
# zCDP
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("epsilon", [0.05, 0.2, 1.0])
def test_clipped_histogram_means_against_mpmath(epsilon):
    """E[max(0, c + L)], L Laplace of scale 1/epsilon, as an integral at 50 digits."""
    values = [4.3, 5.0, 5.0, 5.1, 7.9]
    grid = [4.0, 5.0, 6.0, 7.0, 8.0, 9.0]
    counts, means = selection.clipped_histogram_means(values, grid, epsilon)
    assert counts.tolist() == [1, 3, 0, 0, 1, 0]
    b = 1 / mpmath.mpf(epsilon)
    for count, mean in zip(counts, means, strict=True):
        exact = mpmath.quad(
            lambda x, c=int(count): max(c + x, 0) * mpmath.exp(-abs(x) / b) / (2 * b),
            [-mpmath.inf, -int(count), 0, mpmath.inf],
        )
        assert mean == pytest.approx(float(exact), rel=1e-12)


def test_clipped_histogram_means_follow_the_sampler():
    """Laplace-noised counts, set to 0 when negative, average to the means."""
    lengths = np.round(np.random.default_rng(3).normal(5.8, 0.8, 150), 1)
    grid = np.round(np.arange(40, 86) / 10, 1)
    counts, means = selection.clipped_histogram_means(lengths, grid, 0.2)
    noisy = np.maximum(counts + np.random.default_rng(4).laplace(0, 5.0, (20000, grid.size)), 0)
    np.testing.assert_allclose(noisy.mean(axis=0), means, atol=5 * 5.0 / np.sqrt(20000))
    assert counts.sum() == 150


def test_rho_of_the_mechanisms():
    assert zcdp.gaussian_rho(2.0, 3.0) == pytest.approx(9 / 8, rel=1e-15)
    assert zcdp.pure_rho(0.3) == pytest.approx(0.045, rel=1e-15)
    assert zcdp.bounded_range_rho(0.3) == pytest.approx(0.01125, rel=1e-15)
    assert zcdp.simple_epsilon(0.5, 1e-6) == pytest.approx(
        0.5 + 2 * math.sqrt(0.5 * math.log(1e6)), rel=1e-15
    )


@pytest.mark.parametrize(("rho", "delta"), [(0.5, 1e-6), (0.125, 1e-6), (0.01, 1e-5), (3.0, 1e-9)])
def test_to_epsilon_is_the_smallest_conversion_over_the_orders(rho, delta):
    rho_, delta_ = mpmath.mpf(rho), mpmath.mpf(delta)

    def conversion(alpha):
        return (
            rho_ * alpha
            + mpmath.log1p(-1 / alpha)
            - (mpmath.log(delta_) + mpmath.log(alpha)) / (alpha - 1)
        )

    # The conversion is convex in alpha here; mpmath finds its minimum from the derivative.
    guess = 1 + mpmath.sqrt(mpmath.log(1 / delta_) / rho_)
    alpha = mpmath.findroot(lambda a: mpmath.diff(conversion, a), guess)
    expected = conversion(alpha)
    assert zcdp.to_epsilon(rho, delta) == pytest.approx(float(expected), rel=1e-10)
    assert zcdp.best_order(rho, delta) == pytest.approx(float(alpha), rel=1e-4)
    assert zcdp.to_epsilon(rho, delta) < zcdp.simple_epsilon(rho, delta)


def test_to_epsilon_takes_arrays():
    rhos = np.array([0.0, 0.1, 0.5])
    np.testing.assert_array_equal(
        zcdp.to_epsilon(rhos, 1e-6), [zcdp.to_epsilon(float(r), 1e-6) for r in rhos]
    )


def test_gaussian_rho_is_its_renyi_slope():
    from dplearn import renyi

    sigma = 3.0
    pair = privacy_loss.gaussian(sigma)
    assert renyi.rdp(pair, 7.0) == pytest.approx(7.0 * zcdp.gaussian_rho(sigma), rel=1e-14)


# ---------------------------------------------------------------------------
# Bad input is named
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: selection.exponential_mechanism(SCORES, -1.0), "epsilon"),
        (lambda: selection.exponential_mechanism(SCORES, float("nan")), "epsilon"),
        (lambda: selection.permute_and_flip(SCORES, float("inf")), "epsilon"),
        (lambda: selection.exponential_mechanism([], 1.0), "scores"),
        (lambda: selection.exponential_mechanism([1.0, float("nan")], 1.0), "scores"),
        (lambda: selection.permute_and_flip([[1.0, 2.0]], 1.0), "scores"),
        (lambda: selection.report_noisy_max(SCORES, 1.0, "cauchy"), "noise"),
        (lambda: selection.report_noisy_max(SCORES, 1.0, "gumbel", sensitivity=0.0), "sensitivity"),
        (lambda: selection.exponential_mechanism(SCORES, 1.0, monotone="yes"), "monotone"),
        (lambda: selection.sample_exponential_mechanism(SCORES, 1.0, rng=3), "rng"),
        (
            lambda: selection.loss_pair(
                SCORES, [31, 28, 20, 12, 10.0], 1.0, "gumbel", sensitivity=0.5
            ),
            "neighbour_scores",
        ),
        (
            lambda: selection.loss_pair(
                SCORES, [31, 27, 20, 12, 10.0], 1.0, "gumbel", monotone=True
            ),
            "neighbour_scores",
        ),
        (
            lambda: selection.quantile_probabilities([1.0], [0.0, 1.0], 1.0, quantile=1.0),
            "quantile",
        ),
        (lambda: selection.quantile_probabilities([], [0.0, 1.0], 1.0), "values"),
        (lambda: selection.clipped_histogram_means([1.0], [0.0, 1.0], 0.0), "epsilon"),
        (lambda: selection.accuracy_bound(0, 1.0, 0.05), "candidates"),
        (lambda: selection.accuracy_bound(5, 0.0, 0.05), "epsilon"),
        (lambda: selection.accuracy_bound(5, 1.0, 1.0), "beta"),
        (lambda: zcdp.to_epsilon(-0.5, 1e-6), "rho"),
        (lambda: zcdp.to_epsilon(0.5, 0.0), "delta"),
        (lambda: zcdp.gaussian_rho(0.0), "sigma"),
        (lambda: zcdp.pure_rho(-1.0), "epsilon"),
    ],
)
def test_bad_input_is_named(call, name):
    with pytest.raises(ValueError, match=name):
        call()


def test_renyi_divergence_of_a_selection_against_mpmath_and_within_rho():
    from dplearn import renyi

    epsilon = 2.0
    pair = selection.loss_pair(SCORES, NEIGHBOUR, epsilon, "gumbel")
    first = mp_exponential_mechanism(SCORES, epsilon, 1.0, False)
    second = mp_exponential_mechanism(NEIGHBOUR, epsilon, 1.0, False)
    for alpha in [1.5, 2.0, 7.0]:
        directions = [
            mpmath.log(mpmath.fsum(p**alpha * q ** (1 - alpha) for p, q in zip(a, b, strict=True)))
            / (alpha - 1)
            for a, b in ((first, second), (second, first))
        ]
        assert renyi.rdp(pair, alpha) == pytest.approx(float(max(directions)), rel=1e-12)
        assert renyi.rdp(pair, alpha) <= zcdp.bounded_range_rho(epsilon) * alpha
