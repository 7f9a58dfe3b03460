"""The two attacks of lesson 00: reconstruction by linear programming, and differencing.

The reconstruction LP is checked against an independent formulation written here: the
primal with 2m inequality rows and slack variables, dense, solved by HiGHS's simplex
(dplearn solves the dual); on tiny problems also against brute force over every bit
vector. The differencing attack's density is checked against a numerical convolution of
two Laplace densities (mpmath), its posterior against Bayes' rule by simulation.
"""

import itertools
import math

import mpmath
import numpy as np
import pytest
from scipy import optimize

from dplearn import attacks

N, M = 100, 400
SEEDS = range(5)


def primal_lp(queries, answers):
    """min sum s  s.t.  Q x - s <= a,  -Q x - s <= -a,  0 <= x <= 1,  s >= 0 (dense)."""
    m, n = queries.shape
    cost = np.concatenate([np.zeros(n), np.ones(m)])
    rows = np.block([[queries, -np.eye(m)], [-queries, -np.eye(m)]])
    bounds = [(0, 1)] * n + [(0, None)] * m
    result = optimize.linprog(
        cost,
        A_ub=rows,
        b_ub=np.concatenate([answers, -answers]),
        bounds=bounds,
        method="highs-ds",
    )
    assert result.status == 0
    return result.x[:n], result.fun


def total_error(queries, answers, x):
    return float(np.abs(queries @ x - answers).sum())


def draws(seed, noise_bound, n=N, m=M):
    """The draws of attacks.reconstruction_trial, in its documented order."""
    rng = np.random.default_rng(seed)
    secret = rng.integers(0, 2, n)
    queries = rng.integers(0, 2, (m, n))
    unit = rng.uniform(-1.0, 1.0, m)
    return secret, queries, queries @ secret + noise_bound * unit


@pytest.mark.parametrize("noise_bound", [0.0, 0.5, 3.0, 10.0, 40.0])
@pytest.mark.parametrize("seed", [0, 3])
def test_the_lp_optimum_matches_the_primal_formulation(seed, noise_bound):
    _, queries, answers = draws(seed, noise_bound)
    x = attacks.relaxed_solution(queries, answers)
    assert np.all((x >= 0) & (x <= 1))
    _, optimum = primal_lp(queries.astype(float), answers)
    # Ours is an optimal point: its total error is the primal optimum.
    assert total_error(queries, answers, x) == pytest.approx(optimum, rel=1e-7, abs=1e-6)


@pytest.mark.parametrize(("n", "m"), [(1, 1), (3, 1), (4, 9), (6, 12), (7, 3)])
def test_tiny_problems_against_brute_force(n, m):
    rng = np.random.default_rng(n * 100 + m)
    secret = rng.integers(0, 2, n)
    queries = rng.integers(0, 2, (m, n))
    for noise_bound in (0.0, 0.7, 2.0):
        answers = queries @ secret + noise_bound * rng.uniform(-1, 1, m)
        x = attacks.relaxed_solution(queries, answers)
        _, optimum = primal_lp(queries.astype(float), answers)
        assert total_error(queries, answers, x) == pytest.approx(optimum, rel=1e-7, abs=1e-7)
        # The relaxation can only do better than the best bit vector.
        best_bits = min(
            total_error(queries, answers, np.array(bits))
            for bits in itertools.product((0, 1), repeat=n)
        )
        assert optimum <= best_bits + 1e-9
    # Exact answers to queries whose matrix has full column rank give the secret back.
    full = np.vstack([np.eye(n, dtype=int), rng.integers(0, 2, (m, n))])
    assert np.array_equal(attacks.reconstruct(full, full @ secret), secret)


def test_exact_answers_to_enough_queries_reveal_everything():
    secret, queries, answers = draws(11, 0.0)
    assert np.array_equal(attacks.reconstruct(queries, answers), secret)


def independent_fractions(noise_bound):
    fractions = []
    for seed in SEEDS:
        secret, queries, answers = draws(seed, noise_bound)
        x, _ = primal_lp(queries.astype(float), answers)
        fractions.append(np.mean((x >= 0.5) == secret))
    return float(np.mean(fractions))


@pytest.mark.parametrize(
    ("noise_bound", "low", "high"),
    [(0.5, 0.98, 1.0), (math.sqrt(N), 0.6, 0.8), (40.0, 0.0, 0.65)],
)
def test_the_cliff_at_root_n(noise_bound, low, high):
    """The fractions lesson 00 prints, from dplearn and from the primal LP written here."""
    ours = attacks.mean_fraction_recovered(N, M, noise_bound, SEEDS)
    theirs = independent_fractions(noise_bound)
    assert low <= ours <= high and low <= theirs <= high
    # Where the optimum is not unique the two solvers may round a bit or two apart.
    assert ours == pytest.approx(theirs, abs=0.02)


def test_trials_are_seeded_and_rescale_one_noise():
    a_secret, a_bits = attacks.reconstruction_trial(20, 80, 1.0, seed=4)
    b_secret, b_bits = attacks.reconstruction_trial(20, 80, 1.0, seed=4)
    assert np.array_equal(a_secret, b_secret) and np.array_equal(a_bits, b_bits)
    secret, queries, answers = draws(4, 1.0, n=20, m=80)
    assert np.array_equal(secret, a_secret)
    assert np.array_equal(attacks.reconstruct(queries, answers), a_bits)
    with pytest.raises(ValueError, match="read-only"):
        a_bits[0] = 1 - a_bits[0]


def test_random_queries_and_answers():
    rng = np.random.default_rng(0)
    queries = attacks.random_queries(50, 200, rng=rng)
    assert queries.shape == (200, 50) and set(np.unique(queries)) == {0, 1}
    assert abs(queries.mean() - 0.5) < 0.02
    secret = attacks.random_secret(50, rng=rng)
    answers = attacks.answer_with_noise(queries, secret, 3.0, rng=rng)
    error = answers - queries @ secret
    assert np.all(np.abs(error) <= 3.0) and np.abs(error).max() > 2.5


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: attacks.reconstruct([[0, 2]], [1.0]), "queries"),
        (lambda: attacks.reconstruct([0, 1], [1.0]), "queries"),
        (lambda: attacks.reconstruct(np.zeros((0, 3)), []), "queries"),
        (lambda: attacks.reconstruct([[0, 1]], [1.0, 2.0]), "answers"),
        (lambda: attacks.reconstruct([[0, 1]], [math.nan]), "answers"),
        (lambda: attacks.reconstruct([["a", 1]], [1.0]), "queries"),
        (lambda: attacks.reconstruct(np.ones((5000, 1000)), np.ones(5000)), "queries"),
        (
            lambda: attacks.answer_with_noise([[1, 0]], [1], 1.0, rng=np.random.default_rng()),
            "secret",
        ),
        (
            lambda: attacks.answer_with_noise([[1]], [1], -1.0, rng=np.random.default_rng()),
            "noise_bound",
        ),
        (lambda: attacks.random_queries(10, 0, rng=np.random.default_rng()), "m"),
        (lambda: attacks.random_queries(10, 5, rng=None), "rng"),
        (lambda: attacks.reconstruction_trial(10, 10, 1.0, seed=-1), "seed"),
        (lambda: attacks.mean_fraction_recovered(10, 10, 1.0, seeds=[]), "seeds"),
        (lambda: attacks.fraction_recovered([0, 1], [0]), "recovered"),
    ],
)
def test_bad_input_is_named(call, name):
    with pytest.raises(ValueError, match=name):
        call()


# -------------------------------------------------------------------------- differencing


def convolved_density(z, epsilon):
    """Density of N1 - N2 for two independent Laplace(1/epsilon), by numerical convolution."""
    b = 1 / mpmath.mpf(epsilon)
    z = mpmath.mpf(z)

    def laplace(x):
        return mpmath.exp(-abs(x) / b) / (2 * b)

    return mpmath.quad(
        lambda x: laplace(x) * laplace(x - z), [-mpmath.inf, min(0, z), max(0, z), mpmath.inf]
    )


@pytest.mark.parametrize("epsilon", [0.1, math.log(3), 3.0])
def test_difference_density_is_the_convolution(epsilon):
    with mpmath.workdps(30):
        for z in [-7.5, -1.0, 0.0, 0.3, 1.0, 2.0, 12.0]:
            assert attacks.difference_density(z, epsilon) == pytest.approx(
                float(convolved_density(z, epsilon)), rel=1e-12
            )
            expected = mpmath.log(convolved_density(z - 1, epsilon) / convolved_density(z, epsilon))
            assert attacks.differencing_log_ratio(z, epsilon) == pytest.approx(
                float(expected), rel=1e-11, abs=1e-14
            )


def test_the_log_ratio_stays_within_epsilon_and_reaches_it_far_out():
    epsilon = math.log(3)
    z = np.linspace(-200, 200, 4001)
    ratio = attacks.differencing_log_ratio(z, epsilon)
    assert np.all(np.abs(ratio) <= epsilon) and not np.any(np.isnan(ratio))
    assert ratio[-1] == pytest.approx(epsilon, rel=1e-2)
    assert ratio[0] == pytest.approx(-epsilon, rel=1e-2)
    assert attacks.differencing_log_ratio(0.5, epsilon) == 0.0
    assert attacks.differencing_log_ratio(1e300, epsilon) == pytest.approx(epsilon)


def test_posterior_is_bayes_rule_by_simulation():
    """People with the disease with probability 0.2; both counts noisy: among the draws
    whose difference D falls near 1.5, the share with the disease is the posterior."""
    rng = np.random.default_rng(8)
    epsilon, prior, size = 0.8, 0.2, 2_000_000
    has_it = rng.random(size) < prior
    others = 500
    first = others + has_it + rng.laplace(0, 1 / epsilon, size)
    second = others + rng.laplace(0, 1 / epsilon, size)
    difference = first - second
    near = np.abs(difference - 1.5) < 0.05
    share = has_it[near].mean()
    expected = attacks.differencing_posterior(prior, 1.5, epsilon)
    standard_error = math.sqrt(expected * (1 - expected) / near.sum())
    assert abs(share - expected) < 4 * standard_error + 0.002


def test_posterior_band_edges():
    low, high = attacks.posterior_band(0.5, math.log(3))
    assert low == pytest.approx(0.25) and high == pytest.approx(0.75)
    low, high = attacks.posterior_band(np.array([0.1, 0.9]), 2 * math.log(3))
    odds = np.array([1 / 9, 9])
    np.testing.assert_allclose(high, odds * 9 / (1 + odds * 9), rtol=1e-14)
    np.testing.assert_allclose(low, (odds / 9) / (1 + odds / 9), rtol=1e-14)
    assert attacks.posterior_band(0.3, math.inf) == (0.0, 1.0)
    assert attacks.posterior_band(0.3, 0.0) == pytest.approx((0.3, 0.3))
    for bad, name in [(0.0, "prior"), (1.0, "prior"), ("x", "prior")]:
        with pytest.raises(ValueError, match=name):
            attacks.posterior_band(bad, 1.0)
    with pytest.raises(ValueError, match="epsilon"):
        attacks.posterior_band(0.5, -1.0)
    with pytest.raises(ValueError, match="difference"):
        attacks.differencing_posterior(0.5, math.inf, 1.0)
