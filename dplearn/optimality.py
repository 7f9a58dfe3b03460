"""The universal optimality of the geometric mechanism, checked by linear programming.

Ghosh, Roughgarden and Sundararajan ("Universally utility-maximizing privacy
mechanisms", STOC 2009; SIAM J. Comput. 2012) prove: for a count with values in
{0, ..., n}, any prior over the true count and any loss l(i, j) that depends on
|i - j| and does not decrease with it, no epsilon-DP mechanism has a smaller expected
loss than the *truncated* geometric mechanism followed by the best remap of its
output (a post-processing that does not look at the data).

Here both sides are computed for small n:

- ``optimal_mechanism``: the best epsilon-DP mechanism, found by a linear program over
  the matrix P[j | i] (the probability of answering j when the true count is i).
  Its constraints: every row sums to 1, P >= 0, and for neighbouring counts i, i + 1
  and every answer j, P[j | i] <= e^epsilon P[j | i + 1] and the reverse.
- ``truncated_geometric``: count + two-sided geometric noise with ratio e^-epsilon,
  clamped to [0, n] (outputs below 0 are reported as 0, above n as n).
- ``best_remap``: for a Bayesian user, the best post-processing is deterministic:
  for each output j, answer the y that minimises the posterior expected loss
  sum_i prior[i] P[j | i] l(i, y). (Any stochastic remap mixes such choices and cannot
  do better, since the expected loss is linear in each row of the remap.)

The theorem says ``optimal_mechanism(...).expected_loss`` equals
``best_remap(truncated_geometric(...), ...).expected_loss``; the tests check it.

Taught in: 05-add-laplace-and-geometric-noise.ipynb
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import optimize, stats

from dplearn import _validation as check

__all__ = [
    "LOSSES",
    "loss_matrix",
    "truncated_geometric",
    "is_differentially_private",
    "expected_loss",
    "optimal_mechanism",
    "best_remap",
    "Solution",
    "Comparison",
    "compare",
    "binomial_prior",
    "uniform_prior",
]

#: Loss names accepted by ``loss_matrix``: each depends on |i - j| and never decreases.
LOSSES = ("absolute", "squared", "beyond tolerance")


#: Largest count n of the matrices here, and of the linear program (whose (n + 1)**2
#: variables and 2 n (n + 1) constraints grow fast: up to n = 40 a solve follows a slider).
MAX_COUNT = 1000
MAX_LP_COUNT = 40
#: Largest epsilon of the linear program: beyond it e^epsilon (2e4) makes HiGHS stop
#: short of certified optima at the tolerances the lessons need.
MAX_LP_EPSILON = 10.0
# (method, feasibility tolerance, slack allowed in the privacy check of the answer).
_LP_ATTEMPTS = [
    ("highs", 1e-10, 1e-9),
    ("highs-ipm", 1e-10, 1e-9),
    ("highs-ds", 1e-9, 1e-9),
    ("highs-ds", 1e-7, 1e-7),
]


def _check_size(n, maximum=MAX_COUNT):
    if isinstance(n, bool) or not isinstance(n, int | np.integer) or not 1 <= n <= maximum:
        raise ValueError(f"n must be a whole number in [1, {maximum}], got {n!r}")
    return int(n)


def _check_matrix(matrix):
    """A mechanism P[j | i]: square, at least 2 x 2, rows of probabilities summing to 1.

    To 1e-6: a linear program's answers carry its tolerances.
    """
    matrix = check.finite("matrix", matrix)
    if matrix.ndim != 2 or matrix.shape[0] != matrix.shape[1] or matrix.shape[0] < 2:
        raise ValueError(
            f"matrix must be a square matrix of at least 2 x 2, got shape {matrix.shape}"
        )
    if (
        np.any(matrix < -1e-6)
        or np.any(matrix > 1 + 1e-6)
        or not np.allclose(matrix.sum(axis=1), 1.0, rtol=0, atol=1e-6)
    ):
        raise ValueError(
            f"matrix must hold probabilities P[j | i] whose rows sum to 1, got {matrix!r}"
        )
    return matrix


def loss_matrix(n, loss="absolute", tolerance=1):
    """l(i, j) for true counts i and answers j in {0, ..., n}.

    Args:
      n: largest count, in [1, 1000].
      loss: "absolute" (|i - j|), "squared" ((i - j)^2) or "beyond tolerance"
        (1 when |i - j| > tolerance, else 0).
      tolerance: the tolerated error of the "beyond tolerance" loss, >= 0.

    Taught in: 05-add-laplace-and-geometric-noise.ipynb
    """
    n = _check_size(n)
    distance = np.abs(np.subtract.outer(np.arange(n + 1), np.arange(n + 1))).astype(float)
    if loss == "absolute":
        return distance
    if loss == "squared":
        return distance**2
    if loss == "beyond tolerance":
        tolerance = check.finite("tolerance", tolerance, scalar=True)
        if tolerance < 0:
            raise ValueError(f"tolerance must be finite and >= 0, got {tolerance!r}")
        return (distance > tolerance).astype(float)
    raise ValueError(f"loss must be one of {LOSSES}, got {loss!r}")


def uniform_prior(n):
    """Every count in {0, ..., n} equally likely.

    Taught in: 05-add-laplace-and-geometric-noise.ipynb
    """
    n = _check_size(n)
    return np.full(n + 1, 1.0 / (n + 1))


def binomial_prior(n, p=0.3):
    """Binomial(n, p) over {0, ..., n}: n people, each counted with probability p.

    Taught in: 05-add-laplace-and-geometric-noise.ipynb
    """
    n = _check_size(n)
    p = check.probability_open("p", p, scalar=True)
    return stats.binom.pmf(np.arange(n + 1), n, p)


def _check_prior(prior, n=None):
    prior = check.finite("prior", prior)
    if (
        prior.ndim != 1
        or not 2 <= prior.size <= MAX_COUNT + 1
        or np.any(prior < 0)
        or not np.isclose(prior.sum(), 1)
    ):
        raise ValueError(
            f"prior must be a vector of 2 to {MAX_COUNT + 1} probabilities summing to 1, "
            f"got {prior!r}"
        )
    if n is not None and prior.size != n + 1:
        raise ValueError(f"prior must have n + 1 = {n + 1} entries, got {prior.size}")
    return prior


def _check_losses(losses, size):
    losses = check.finite("losses", losses)
    if losses.shape != (size, size):
        raise ValueError(f"losses must be a {size} x {size} matrix, got shape {losses.shape}")
    if np.any(losses < 0):
        raise ValueError(f"losses must be >= 0, got {losses!r}")
    return losses


def truncated_geometric(n, epsilon):
    """P[j | i] of the truncated geometric mechanism on {0, ..., n}.

    With a = e^-epsilon: P[j | i] = (1 - a) / (1 + a) * a^|i - j| for 0 < j < n, and
    the tails fold onto the ends, P[0 | i] = a^i / (1 + a), P[n | i] = a^(n - i) / (1 + a).

    Args:
      n: largest count, in [1, 1000].
      epsilon: privacy budget, > 0.

    Returns:
      An (n + 1) x (n + 1) row-stochastic matrix, rows = true counts, columns = outputs.

    Taught in: 05-add-laplace-and-geometric-noise.ipynb
    """
    n = _check_size(n)
    epsilon = check.positive("epsilon", epsilon, scalar=True)
    with np.errstate(under="ignore"):
        ratio = np.exp(-epsilon)
        counts = np.arange(n + 1)
        distance = np.abs(np.subtract.outer(counts, counts))
        # (1 - a) / (1 + a) = tanh(epsilon / 2): no digits lost to 1 - a for a small epsilon.
        matrix = np.tanh(epsilon / 2.0) * ratio**distance
        matrix[:, 0] = ratio**counts / (1.0 + ratio)
        matrix[:, n] = ratio ** (n - counts) / (1.0 + ratio)
    return matrix


def is_differentially_private(matrix, epsilon, tolerance=1e-9):
    """True when neighbouring rows satisfy P[j | i] <= e^epsilon P[j | i +- 1] + tolerance.

    e^epsilon times a zero probability is zero, also for epsilon = inf: an answer that
    one count gives and its neighbour never does breaks every epsilon.

    Args:
      matrix: row-stochastic matrix P[j | i].
      epsilon: privacy budget, >= 0.
      tolerance: slack for solver round-off.

    Taught in: 05-add-laplace-and-geometric-noise.ipynb
    """
    matrix = _check_matrix(matrix)
    epsilon = check.epsilon(epsilon, scalar=True)
    tolerance = check.finite("tolerance", tolerance, scalar=True)
    upper, lower = matrix[:-1], matrix[1:]
    with np.errstate(over="ignore"):
        factor = np.exp(epsilon)

        def bound(other):
            """e^epsilon times the other row's probabilities, plus the tolerance."""
            with np.errstate(invalid="ignore"):
                return np.where(other > 0, factor * other, 0.0) + tolerance

    return bool(np.all(upper <= bound(lower)) and np.all(lower <= bound(upper)))


def expected_loss(matrix, prior, losses):
    """sum_i prior[i] sum_j P[j | i] l(i, j).

    Taught in: 05-add-laplace-and-geometric-noise.ipynb
    """
    matrix = _check_matrix(matrix)
    prior = _check_prior(prior, matrix.shape[0] - 1)
    losses = _check_losses(losses, matrix.shape[0])
    with np.errstate(over="ignore"):
        # Losses near the float limit may sum beyond it: inf is then the answer.
        return float(np.sum(prior[:, None] * matrix * losses))


@dataclass(frozen=True)
class Solution:
    """A mechanism matrix P[j | i] and its expected loss.

    Taught in: 05-add-laplace-and-geometric-noise.ipynb
    """

    matrix: np.ndarray
    expected_loss: float


def optimal_mechanism(prior, losses, epsilon):
    """The epsilon-DP mechanism on {0, ..., n} with the smallest expected loss (an LP).

    Variables P[j | i], (n + 1)^2 of them; 2 n (n + 1) privacy constraints; n + 1
    rows summing to 1. Solved with HiGHS (scipy.optimize.linprog).

    Args:
      prior: probabilities of the true counts 0..n, n <= 40.
      losses: (n + 1) x (n + 1) matrix l(i, j).
      epsilon: privacy budget, in (0, 10] (see MAX_LP_EPSILON).

    Returns:
      A ``Solution``; its expected_loss is the LP optimum.

    Taught in: 05-add-laplace-and-geometric-noise.ipynb
    """
    prior = _check_prior(prior)
    size = prior.size
    _check_size(size - 1, MAX_LP_COUNT)
    losses = _check_losses(losses, size)
    epsilon = check.positive("epsilon", epsilon, scalar=True)
    if epsilon > MAX_LP_EPSILON:
        raise ValueError(
            f"epsilon must be <= {MAX_LP_EPSILON} for the linear program (e^epsilon beyond "
            f"2e4 exceeds the solver's precision), got {epsilon!r}"
        )
    factor = np.exp(epsilon)
    # Variable index of P[j | i] is i * size + j.
    cost = (prior[:, None] * losses).ravel()
    pairs = (size - 1) * size
    rows = np.arange(pairs)
    first = np.arange(pairs)  # P[j | i] for i < n
    second = first + size  # P[j | i + 1]
    # P[j|i] - e^eps P[j|i+1] <= 0, and P[j|i+1] - e^eps P[j|i] <= 0.
    inequality = np.zeros((2 * pairs, size * size))
    inequality[rows, first] = 1.0
    inequality[rows, second] = -factor
    inequality[pairs + rows, second] = 1.0
    inequality[pairs + rows, first] = -factor
    equality = np.kron(np.eye(size), np.ones(size))
    # HiGHS at tolerances of 1e-10 (tighter than its 1e-7: with e^epsilon in the hundreds,
    # a 1e-7 slack in a privacy constraint moves the optimum visibly) now and then stops
    # short of a certified optimum on these degenerate programs; another method, then
    # looser tolerances, do not fail on the same program. Each answer is checked.
    for method, tolerance, slack in _LP_ATTEMPTS:
        result = optimize.linprog(
            cost,
            A_ub=inequality,
            b_ub=np.zeros(2 * pairs),
            A_eq=equality,
            b_eq=np.ones(size),
            bounds=(0, None),
            method=method,
            options={
                "primal_feasibility_tolerance": tolerance,
                "dual_feasibility_tolerance": tolerance,
            },
        )
        if result.status == 0 and is_differentially_private(
            result.x.reshape(size, size), epsilon, slack
        ):
            break
    else:
        raise ValueError(
            f"the linear program found no certified optimum for n={size - 1}, "
            f"epsilon={epsilon!r}: {result.message}"
        )
    return Solution(result.x.reshape(size, size), float(result.fun))


def best_remap(matrix, prior, losses):
    """The post-processing of a mechanism's output that minimises the expected loss.

    For each output j, the answer y minimising sum_i prior[i] P[j | i] l(i, y).

    Args:
      matrix: the mechanism P[j | i], (n + 1) x (n + 1).
      prior: probabilities of the true counts 0..n.
      losses: (n + 1) x (n + 1) matrix l(i, y).

    Returns:
      A ``Solution`` whose matrix is the composed mechanism P[y | i] (mechanism, then
      remap), and its expected loss.

    Taught in: 05-add-laplace-and-geometric-noise.ipynb
    """
    matrix = _check_matrix(matrix)
    size = matrix.shape[0]
    prior = _check_prior(prior, size - 1)
    losses = _check_losses(losses, size)
    joint = prior[:, None] * matrix  # P[true i, output j]
    # posterior_loss[j, y] = sum_i joint[i, j] l(i, y)
    with np.errstate(over="ignore", invalid="ignore"):
        posterior_loss = joint.T @ losses
    choice = np.argmin(posterior_loss, axis=1)
    remap = np.zeros((size, size))
    remap[np.arange(size), choice] = 1.0
    with np.errstate(over="ignore"):
        total = float(posterior_loss[np.arange(size), choice].sum())
    return Solution(matrix @ remap, total)


@dataclass(frozen=True)
class Comparison:
    """The LP optimum beside the geometric mechanism, raw and remapped.

    Taught in: 05-add-laplace-and-geometric-noise.ipynb
    """

    n: int
    epsilon: float
    optimal: Solution
    geometric: Solution
    remapped: Solution

    @property
    def gap(self):
        """Remapped geometric loss minus the LP optimum: 0 up to solver tolerance."""
        return self.remapped.expected_loss - self.optimal.expected_loss


def compare(prior, losses, epsilon):
    """Solves the LP and remaps the truncated geometric mechanism, for one setting.

    Args:
      prior: probabilities of the true counts 0..n, n <= 40.
      losses: (n + 1) x (n + 1) matrix l(i, j) (from ``loss_matrix``).
      epsilon: privacy budget, in (0, 10] (see MAX_LP_EPSILON).

    Taught in: 05-add-laplace-and-geometric-noise.ipynb
    """
    prior = _check_prior(prior)
    n = prior.size - 1
    geometric_matrix = truncated_geometric(n, epsilon)
    geometric = Solution(geometric_matrix, expected_loss(geometric_matrix, prior, losses))
    return Comparison(
        n,
        float(epsilon),
        optimal_mechanism(prior, losses, epsilon),
        geometric,
        best_remap(geometric_matrix, prior, losses),
    )
