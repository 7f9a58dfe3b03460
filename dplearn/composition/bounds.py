"""Bounds on k releases from (epsilon0, delta0) alone: basic, advanced and optimal.

- ``basic``: (k epsilon0, k delta0).
- ``advanced``, ``advanced_delta``: Dwork, Rothblum & Vadhan, "Boosting and differential
  privacy", 2010.
- ``optimal_delta``, ``optimal_epsilon``: the optimal composition of k (epsilon0,
  delta0)-DP releases (Kairouz, Oh & Viswanath, "The composition theorem for differential
  privacy", 2015; Murtagh & Vadhan, "The complexity of computing the optimal composition
  of differential privacy", 2016), exact through k randomised-response releases.
- ``first_advanced_win``: the first k at which advanced beats basic composition.

Taught in: 08-add-up-privacy-losses.ipynb
"""

from __future__ import annotations

import functools
import math

import numpy as np
from scipy import special

from dplearn import _validation as check
from dplearn._safe_side import step_up
from dplearn.composition._arguments import checked_delta0, checked_epsilon0, checked_k, checked_ks

__all__ = [
    "basic",
    "advanced",
    "advanced_delta",
    "optimal_delta",
    "optimal_epsilon",
    "first_advanced_win",
    "OPTIMAL_MAX_K",
]


def basic(epsilon0, delta0, k):
    """Basic composition: k (epsilon0, delta0)-DP releases are (k epsilon0, k delta0)-DP.

    Dwork, McSherry, Nissim & Smith, "Calibrating noise to sensitivity in private data
    analysis", 2006.

    Args:
      epsilon0: epsilon of one release, > 0.
      delta0: delta of one release, in [0, 1).
      k: number of releases, a whole number >= 1 or an array of them.

    Returns:
      (epsilon, delta), delta capped at 1 (arrays if k is one).

    Taught in: 08-add-up-privacy-losses.ipynb
    """
    epsilon0, delta0, k = checked_epsilon0(epsilon0), checked_delta0(delta0), checked_ks(k)
    if np.ndim(k) == 0:
        return k * epsilon0, min(k * delta0, 1.0)
    return k * epsilon0, np.minimum(k * delta0, 1.0)


def advanced(epsilon0, delta0, k, delta_slack):
    """Advanced composition: the (epsilon, delta) of k (epsilon0, delta0)-DP releases.

    Dwork, Rothblum & Vadhan, "Boosting and differential privacy", 2010, Theorem III.3: k
    releases of an (epsilon0, delta0)-DP mechanism are (epsilon', k delta0 + delta_slack)-DP
    with epsilon' = epsilon0 sqrt(2 k ln(1 / delta_slack)) + k epsilon0 (e^epsilon0 - 1).

    Args:
      epsilon0: epsilon of one release, > 0.
      delta0: delta of one release, in [0, 1).
      k: number of releases, >= 1 (or an array of them, broadcast with delta_slack).
      delta_slack: the extra delta', in (0, 1); vectorised.

    Returns:
      (epsilon', k delta0 + delta_slack).

    Taught in: 08-add-up-privacy-losses.ipynb
    """
    epsilon0, delta0, k = checked_epsilon0(epsilon0), checked_delta0(delta0), checked_ks(k)
    slack = check.probability_open("delta_slack", delta_slack)
    with np.errstate(over="ignore"):  # epsilon0 >= 710: the bound is infinite
        epsilon = epsilon0 * np.sqrt(2.0 * k * -np.log(slack)) + k * epsilon0 * np.expm1(epsilon0)
    return check.scalar_or_array(epsilon), check.scalar_or_array(np.minimum(k * delta0 + slack, 1))


def advanced_delta(epsilon0, k, epsilon):
    """The smallest slack delta' with which ``advanced`` reaches epsilon; vectorised over epsilon.

    It is 1 where ``advanced`` never does: epsilon <= k epsilon0 (e^epsilon0 - 1).
    From epsilon = epsilon0 sqrt(2 k ln(1/delta')) + k epsilon0 (e^epsilon0 - 1):
    delta' = exp(-r^2 / (2 k)) with r = epsilon / epsilon0 - k (e^epsilon0 - 1) > 0.

    Taught in: 08-add-up-privacy-losses.ipynb
    """
    epsilon0, k = checked_epsilon0(epsilon0), checked_k(k)
    epsilon = check.epsilon(epsilon)
    with np.errstate(over="ignore", invalid="ignore"):
        r = epsilon / epsilon0 - k * np.expm1(epsilon0)
        slack = np.where(r > 0, np.exp(-np.square(np.maximum(r, 0.0)) / (2.0 * k)), 1.0)
    slack = np.where(np.isinf(epsilon), 0.0, slack)
    return check.scalar_or_array(slack)


#: Largest k for the optimal composition bounds (memory and time grow like k).
OPTIMAL_MAX_K = 10**6


class _RandomizedResponse:
    """k randomized-response releases of epsilon0, the worst pure epsilon0-DP mechanism.

    The loss is L_i = (k - 2 i) epsilon0 with probability m_i = C(k, i) e^(-i e0) /
    (1 + e^-e0)^k, i.e. i ~ Binomial(k, 1 / (1 + e^e0)). Everything in log space:

    with A_n = sum_(i < n) m_i and T_n = delta(L_n), the positive recurrence
    T_n = e^-s T_(n-1) + (1 - e^-s) A_n (s = 2 epsilon0) becomes a cumulative logaddexp of
    ln A_j + j s; between grid points delta = (1 - z) A_n + z T_(n-1), z = e^(epsilon -
    L_(n-1)). No difference of large numbers, so k up to OPTIMAL_MAX_K is exact.
    """

    def __init__(self, epsilon0, k):
        i = np.arange(k + 1)
        self.k, self.epsilon0 = k, epsilon0
        self.losses = (k - 2 * i) * epsilon0
        self._negated = -self.losses
        log_masses = (
            special.gammaln(k + 1)
            - special.gammaln(i + 1)
            - special.gammaln(k - i + 1)
            - i * epsilon0
            - k * np.logaddexp(0.0, -epsilon0)
        )
        step = 2.0 * epsilon0
        self.log_above = np.concatenate([[-np.inf], np.logaddexp.accumulate(log_masses)])
        n = np.arange(1, k + 2)
        shrink = math.log(-math.expm1(-step))
        grown = np.logaddexp.accumulate(shrink + self.log_above[1:] + n * step)
        self.log_at_grid = np.concatenate([[-np.inf], grown - n * step])  # n = 0 .. k+1
        self.log_weighted = np.concatenate(
            [[-np.inf], np.logaddexp.accumulate(log_masses + i * step) - i * step]
        )  # ln sum_(i < n) m_i e^(-s (n - 1 - i)), n = 0 .. k+1

    def count_above(self, epsilon):
        """How many of the losses (decreasing) lie above epsilon."""
        return np.searchsorted(self._negated, -np.asarray(epsilon, dtype=float), side="left")

    def log_delta(self, epsilon):
        """ln delta_pure(epsilon) of the k randomized-response releases, in log space."""
        epsilon = np.asarray(epsilon, dtype=float)
        n = self.count_above(epsilon)
        last = self.losses[np.maximum(n - 1, 0)]
        with np.errstate(divide="ignore", invalid="ignore"):
            gap = np.minimum(epsilon - last, 0.0)
            result = np.logaddexp(
                np.log(-np.expm1(gap)) + self.log_above[n],
                gap + self.log_at_grid[np.maximum(n - 1, 0)],
            )
        return np.where(n > 0, result, -np.inf)

    def epsilon_for_log_delta(self, log_target):
        """Smallest epsilon >= 0 with log_delta(epsilon) <= log_target."""
        log_target = np.asarray(log_target, dtype=float)
        grid = self.log_at_grid[1 : self.k + 1]  # delta at L_n, n = 1..k, increasing
        n = np.searchsorted(grid, log_target, side="left") + 1
        n = np.clip(n, 1, self.k + 1)
        log_above = self.log_above[n]
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            log_z = log_above + np.log1p(-np.exp(log_target - log_above)) - self.log_weighted[n]
        epsilon = self.losses[n - 1] + np.minimum(np.nan_to_num(log_z, nan=0.0), 0.0)
        epsilon = np.maximum(epsilon, 0.0)
        return np.where(self.log_delta(0.0) <= log_target, 0.0, epsilon)


@functools.lru_cache(maxsize=64)
def _randomized_response(epsilon0, k):
    if k > OPTIMAL_MAX_K:
        raise ValueError(f"k must be <= {OPTIMAL_MAX_K} for the optimal composition, got {k}")
    if 2.0 * k * epsilon0 > 1e300:
        raise ValueError(
            f"k * epsilon0 must be below 5e299 for the optimal composition, got "
            f"epsilon0={epsilon0!r}, k={k}"
        )
    return _RandomizedResponse(epsilon0, k)


def _optimal_from_log_pure(delta0, k, log_pure):
    """1 - (1 - delta0)^k (1 - delta_pure), as two non-negative parts."""
    log_kept = k * math.log1p(-delta0)
    with np.errstate(under="ignore"):
        return -math.expm1(log_kept) + math.exp(log_kept) * np.exp(log_pure)


def optimal_delta(epsilon0, delta0, k, epsilon):
    """Exact delta(epsilon) of the k-fold composition of the worst (epsilon0, delta0)-DP mechanism.

    It is the best bound that holds for every such mechanism. Kairouz, Oh & Viswanath, "The
    composition theorem for differential privacy", 2015 (Theorem 3.3), for every epsilon in
    Murtagh & Vadhan, "The complexity of computing the optimal composition of differential
    privacy", 2016 (Theorem 1.5):
    delta = 1 - (1 - delta0)^k (1 - delta_pure(epsilon)), where
    delta_pure(epsilon) = sum_i C(k, i) max(0, e^((k - i) e0) - e^(epsilon + i e0)) / (1 + e^e0)^k,
    the delta of k randomized-response releases. The binomial sums are taken in log space
    (cumulative logaddexp), so k up to OPTIMAL_MAX_K is exact and fast.

    Args:
      epsilon0: epsilon of one release, > 0.
      delta0: delta of one release, in [0, 1).
      k: number of releases, >= 1.
      epsilon: epsilon(s) of the composition, >= 0; vectorised.

    Taught in: 08-add-up-privacy-losses.ipynb
    """
    epsilon0, delta0, k = checked_epsilon0(epsilon0), checked_delta0(delta0), checked_k(k)
    epsilon = check.epsilon(epsilon)
    log_pure = _randomized_response(epsilon0, k).log_delta(epsilon)
    result = _optimal_from_log_pure(delta0, k, log_pure)
    return check.scalar_or_array(np.clip(result, 0.0, 1.0))


def optimal_epsilon(epsilon0, delta0, k, delta):
    """Smallest epsilon >= 0 with ``optimal_delta(epsilon0, delta0, k, epsilon) <= delta``.

    It is inf where none is: delta below 1 - (1 - delta0)^k. Vectorised over delta.
    Solved exactly: between two consecutive losses (k - 2 i) epsilon0 the pure delta is
    (1 - z) A + z T with z = e^(epsilon - loss), solved for z in log space.

    Taught in: 08-add-up-privacy-losses.ipynb
    """
    epsilon0, delta0, k = checked_epsilon0(epsilon0), checked_delta0(delta0), checked_k(k)
    delta = check.probability_open("delta", delta)
    mechanism = _randomized_response(epsilon0, k)
    log_kept = k * math.log1p(-delta0)
    # The pure part may reach 1 - (1 - delta) / (1 - delta0)^k.
    with np.errstate(under="ignore", over="ignore", divide="ignore", invalid="ignore"):
        target = -np.expm1(np.log1p(-delta) - log_kept)
        log_target = np.log(target)
    reachable = target > 0
    epsilon = mechanism.epsilon_for_log_delta(np.where(reachable, log_target, 0.0))
    epsilon = np.where(reachable, epsilon, np.inf)

    # Never too small: step up while the delta as optimal_delta computes it is above.
    def too_small(value):
        """True where value's delta, as ``optimal_delta`` computes it, is above the target."""
        finite = np.isfinite(value)
        pure = mechanism.log_delta(np.where(finite, value, 0.0))
        return finite & (np.clip(_optimal_from_log_pure(delta0, k, pure), 0.0, 1.0) > delta)

    return check.scalar_or_array(step_up(epsilon, too_small))


def first_advanced_win(epsilon0, delta):
    """Smallest k at which advanced composition gives a smaller epsilon than basic composition.

    Advanced composition spends all the slack delta; basic composition gives k epsilon0.
    None if advanced never wins (e^epsilon0 >= 2).

    Advanced minus basic is sqrt(k) epsilon0 (sqrt(2 ln(1/delta)) - sqrt(k) (2 - e^epsilon0)):
    for e^epsilon0 >= 2 it is positive for every k; otherwise advanced wins exactly for
    k > 2 ln(1/delta) / (2 - e^epsilon0)^2, however large that is (near epsilon0 = ln 2,
    millions). The k from that closed form is checked, and moved by the few steps rounding
    may shift it, with ``basic`` and ``advanced`` themselves. Past 10^15 releases floats
    cannot tell k from k + 1 and the closed form's k is returned as it is; so it is where
    the bounds' rounding leaves no single first win within a few steps (k beyond 10^10,
    epsilon0 within 10^-5 of ln 2).

    Taught in: 08-add-up-privacy-losses.ipynb
    """

    epsilon0 = checked_epsilon0(epsilon0)
    delta = check.probability_open("delta", delta, scalar=True)

    def wins(releases):
        """True where advanced composition beats basic composition at these releases."""
        advanced_epsilon, _ = advanced(epsilon0, 0.0, releases, delta)
        basic_epsilon, _ = basic(epsilon0, 0.0, releases)
        return advanced_epsilon < basic_epsilon

    # 2 - e^epsilon0, exact near epsilon0 = ln 2 (and negative, not overflowing, far above).
    margin = -math.expm1(min(epsilon0, 1.0)) + 1.0
    if not margin > 0:
        return None
    boundary = 2.0 * -math.log(delta) / margin**2
    if boundary >= 1e15:
        return math.floor(boundary) + 1
    closed_form = releases = max(1, math.floor(boundary) + 1)
    for _ in range(8):
        if releases > 1 and wins(releases - 1):
            releases -= 1
        elif not wins(releases):
            releases += 1
        else:
            return releases
    return closed_form
