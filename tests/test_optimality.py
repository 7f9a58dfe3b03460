"""The geometric mechanism's universal optimality, checked by linear programming."""

import itertools

import mpmath
import numpy as np
import pytest
from scipy import stats

from dplearn import optimality as opt

PRIORS = {
    "uniform": lambda n: opt.uniform_prior(n),
    "binomial": lambda n: opt.binomial_prior(n, 0.3),
    "random": lambda n: np.random.default_rng(n).dirichlet(np.ones(n + 1)),
    "two peaks": lambda n: np.r_[0.45, np.full(n - 1, 0.1 / (n - 1)), 0.45],
}


@pytest.mark.parametrize("epsilon", [0.05, 0.3, 1.0, 2.0, 5.0])
@pytest.mark.parametrize("loss", opt.LOSSES)
@pytest.mark.parametrize("prior_name", list(PRIORS))
@pytest.mark.parametrize("n", [3, 8])
def test_lp_optimum_equals_remapped_geometric(n, prior_name, loss, epsilon):
    """Ghosh, Roughgarden & Sundararajan: no ε-DP mechanism beats geometric + remap."""
    prior = PRIORS[prior_name](n)
    comparison = opt.compare(prior, opt.loss_matrix(n, loss), epsilon)
    assert comparison.remapped.expected_loss == pytest.approx(
        comparison.optimal.expected_loss, rel=1e-7, abs=1e-12
    )
    # The LP cannot beat a mechanism it could have chosen, nor lose to the raw one.
    assert comparison.optimal.expected_loss <= comparison.geometric.expected_loss + 1e-12


@pytest.mark.parametrize("epsilon", [0.1, 1.0, 3.0])
def test_lp_solution_is_a_differentially_private_mechanism(epsilon):
    n, prior = 6, opt.binomial_prior(6, 0.4)
    losses = opt.loss_matrix(n, "squared")
    solution = opt.optimal_mechanism(prior, losses, epsilon)
    assert solution.matrix.min() >= -1e-12
    np.testing.assert_allclose(solution.matrix.sum(axis=1), 1.0, rtol=0, atol=1e-9)
    assert opt.is_differentially_private(solution.matrix, epsilon, tolerance=1e-9)
    assert opt.expected_loss(solution.matrix, prior, losses) == pytest.approx(
        solution.expected_loss, rel=1e-9
    )


@pytest.mark.parametrize("epsilon", [0.2, 1.0, 4.0])
@pytest.mark.parametrize("n", [1, 4, 9])
def test_truncated_geometric_folds_the_two_sided_geometric_tails(n, epsilon):
    """Independent construction: scipy's discrete Laplace pmf inside, mpmath sums of it
    over the tails that fold onto 0 and n."""
    matrix = opt.truncated_geometric(n, epsilon)
    mpmath.mp.dps = 30
    a = mpmath.exp(-mpmath.mpf(epsilon))

    def pmf(k):
        return (1 - a) / (1 + a) * a ** abs(k)

    for i in range(n + 1):
        expected = [mpmath.nsum(pmf, [-mpmath.inf, -i])]  # output 0: every noise <= -i
        expected += [stats.dlaplace.pmf(j - i, epsilon) for j in range(1, n)]
        expected += [mpmath.nsum(pmf, [n - i, mpmath.inf])]  # output n: noise >= n - i
        np.testing.assert_allclose(matrix[i], np.array(expected, float), rtol=1e-12)
    np.testing.assert_allclose(matrix.sum(axis=1), 1.0, rtol=1e-14)


@pytest.mark.parametrize("epsilon", [0.1, 1.0, 2.5])
def test_truncated_geometric_ratio_bound_is_reached(epsilon):
    matrix = opt.truncated_geometric(5, epsilon)
    ratios = matrix[:-1] / matrix[1:]
    # Neighbouring rows are exactly e^epsilon apart: only round-off is tolerated.
    assert opt.is_differentially_private(matrix, epsilon, tolerance=1e-15)
    assert ratios.max() == pytest.approx(np.exp(epsilon), rel=1e-12)
    assert ratios.min() == pytest.approx(np.exp(-epsilon), rel=1e-12)
    assert not opt.is_differentially_private(matrix, 0.9 * epsilon, tolerance=0)


@pytest.mark.parametrize("loss", opt.LOSSES)
def test_best_remap_beats_every_deterministic_remap(loss):
    """Brute force over all (n + 1)^(n + 1) deterministic remaps, in exact arithmetic."""
    n, epsilon = 3, 0.7
    mpmath.mp.dps = 30
    a = mpmath.exp(-epsilon)
    geometric = [
        [
            a**i / (1 + a)
            if j == 0
            else a ** (n - i) / (1 + a)
            if j == n
            else (1 - a) / (1 + a) * a ** abs(i - j)
            for j in range(n + 1)
        ]
        for i in range(n + 1)
    ]
    prior = [mpmath.mpf(p) for p in (0.1, 0.4, 0.3, 0.2)]
    losses = opt.loss_matrix(n, loss)
    best = min(
        sum(
            prior[i] * geometric[i][j] * losses[i, remap[j]]
            for i in range(n + 1)
            for j in range(n + 1)
        )
        for remap in itertools.product(range(n + 1), repeat=n + 1)
    )
    result = opt.best_remap(opt.truncated_geometric(n, epsilon), np.array(prior, float), losses)
    assert result.expected_loss == pytest.approx(float(best), rel=1e-12)
    np.testing.assert_allclose(result.matrix.sum(axis=1), 1.0, rtol=1e-14)


def test_remap_matters_when_the_prior_is_lopsided():
    """Raw geometric noise is strictly worse than the LP; the remap closes the gap."""
    n, prior = 8, opt.binomial_prior(8, 0.3)
    comparison = opt.compare(prior, opt.loss_matrix(n, "squared"), 0.2)
    assert comparison.geometric.expected_loss > 2 * comparison.optimal.expected_loss
    assert abs(comparison.gap) < 1e-7 * comparison.optimal.expected_loss


def test_loss_matrices():
    absolute = opt.loss_matrix(4, "absolute")
    assert absolute[0, 4] == 4 and absolute[2, 2] == 0
    assert opt.loss_matrix(4, "squared")[1, 4] == 9
    tolerance = opt.loss_matrix(4, "beyond tolerance", tolerance=1)
    assert tolerance[0, 1] == 0 and tolerance[0, 2] == 1


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: opt.loss_matrix(0), "n must be"),
        (lambda: opt.loss_matrix(3, "cubic"), "loss must be one of"),
        (lambda: opt.loss_matrix(3, "beyond tolerance", tolerance=-1), "tolerance"),
        (lambda: opt.truncated_geometric(3, 0.0), "epsilon"),
        (lambda: opt.optimal_mechanism([0.5, 0.6], opt.loss_matrix(1), 1.0), "prior"),
        (lambda: opt.optimal_mechanism([0.5, 0.5], opt.loss_matrix(2), 1.0), "losses"),
        (lambda: opt.best_remap(np.eye(3), [0.5, 0.5], opt.loss_matrix(2)), "prior"),
    ],
)
def test_bad_input_names_the_parameter(call, match):
    with pytest.raises(ValueError, match=match):
        call()


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: opt.loss_matrix(10**6), "n must be a whole number in"),
        (lambda: opt.loss_matrix(True), "n must be"),
        (lambda: opt.optimal_mechanism(opt.uniform_prior(41), np.eye(42), 1.0), "n"),
        (lambda: opt.compare(opt.uniform_prior(3), np.eye(4), 10.5), "epsilon"),
        (lambda: opt.loss_matrix(3, "beyond tolerance", "1"), "tolerance"),
        (lambda: opt.is_differentially_private([1.0, 0.0], 1.0), "matrix"),
    ],
)
def test_sizes_and_budgets_beyond_the_solver_are_named(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_tiny_epsilon_keeps_its_digits():
    """(1 - a) / (1 + a) with a = e^-epsilon lost every digit for epsilon below 1e-16."""
    matrix = opt.truncated_geometric(4, 1e-20)
    assert matrix[2, 2] == pytest.approx(0.5e-20, rel=1e-12)
    np.testing.assert_allclose(matrix.sum(axis=1), 1.0, rtol=1e-15)
