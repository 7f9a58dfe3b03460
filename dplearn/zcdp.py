"""Zero-concentrated differential privacy (zCDP): one number rho for many selections.

A mechanism is rho-zCDP when its Rényi divergence of every order alpha > 1 (lesson 11)
is at most rho alpha: D_alpha <= rho alpha (Bun & Steinke, "Concentrated differential
privacy", TCC 2016). Since Rényi divergences add under composition, so does rho. The
Gaussian mechanism is Delta^2 / (2 sigma^2)-zCDP with equality at every order; every
epsilon-DP mechanism is epsilon^2 / 2-zCDP; a bounded-range one (its privacy loss spans
an interval of width epsilon, as the exponential mechanism's does) is epsilon^2 / 8-zCDP
(Cesar & Rogers, "Bounding, concentrating, and truncating", ALT 2021).

Taught in: 12-choose-privately.ipynb
"""

from __future__ import annotations

import math

import numpy as np

from dplearn import _validation as check
from dplearn import renyi

__all__ = [
    "gaussian_rho",
    "pure_rho",
    "bounded_range_rho",
    "to_epsilon",
    "best_order",
    "simple_epsilon",
]


def gaussian_rho(sigma, sensitivity=1.0):
    """rho = Delta^2 / (2 sigma^2) of the Gaussian mechanism: its D_alpha is rho alpha.

    Taught in: 12-choose-privately.ipynb
    """
    sigma = check.positive("sigma", sigma, scalar=True)
    sensitivity = check.positive("sensitivity", sensitivity, scalar=True)
    return (sensitivity / sigma) ** 2 / 2.0


def pure_rho(epsilon):
    """rho = epsilon^2 / 2 of any epsilon-DP mechanism (Bun & Steinke 2016, Prop. 1.4).

    Taught in: 12-choose-privately.ipynb
    """
    epsilon = check.epsilon(epsilon, scalar=True)
    return epsilon**2 / 2.0


def bounded_range_rho(epsilon):
    """rho = epsilon^2 / 8 of an epsilon-bounded-range mechanism.

    Such as the exponential mechanism at epsilon (Cesar & Rogers, "Bounding, concentrating,
    and truncating: unifying privacy loss composition for data analytics", 2021).

    Taught in: 12-choose-privately.ipynb
    """
    epsilon = check.epsilon(epsilon, scalar=True)
    return epsilon**2 / 8.0


#: The orders searched: alpha - 1 from 10^-2 to 10^8, on a log scale.
_LOG_GAP_RANGE = (math.log(1e-2), math.log(1e8))
_GRID = np.linspace(*_LOG_GAP_RANGE, 401)
_GOLDEN = (math.sqrt(5.0) - 1.0) / 2.0


def _epsilon_at(log_gaps, rhos, delta):
    """Lesson 11's conversion (``renyi``) for D_alpha = rho alpha, elementwise.

    At the orders alpha = 1 + e^log_gaps.
    """
    alphas = 1.0 + np.exp(log_gaps)
    return renyi.order_epsilons(*np.broadcast_arrays(alphas, rhos * alphas), delta)


def _minimise(rhos, delta):
    """Smallest conversion over the orders for every rho at once.

    A grid in ln(alpha - 1) brackets the minimum, then golden-section search inside the
    bracket.
    """
    rhos = np.asarray(rhos, dtype=float).reshape(-1)
    values = _epsilon_at(_GRID[None, :], rhos[:, None], delta)
    best = np.argmin(values, axis=1)
    low = _GRID[np.maximum(best - 1, 0)]
    high = _GRID[np.minimum(best + 1, _GRID.size - 1)]
    # Golden-section search, all rhos in step; the conversion is unimodal in the order.
    left = high - _GOLDEN * (high - low)
    right = low + _GOLDEN * (high - low)
    f_left, f_right = _epsilon_at(left, rhos, delta), _epsilon_at(right, rhos, delta)
    for _ in range(60):
        move_right = f_left > f_right
        low = np.where(move_right, left, low)
        high = np.where(move_right, high, right)
        left, right = high - _GOLDEN * (high - low), low + _GOLDEN * (high - low)
        f_left, f_right = _epsilon_at(left, rhos, delta), _epsilon_at(right, rhos, delta)
    middle = (low + high) / 2.0
    refined = _epsilon_at(middle, rhos, delta)
    grid_best = values[np.arange(rhos.size), best]
    use_grid = grid_best <= refined
    epsilon = np.where(use_grid, grid_best, refined)
    order = 1.0 + np.exp(np.where(use_grid, _GRID[best], middle))
    epsilon = np.where(rhos == 0, 0.0, np.maximum(epsilon, 0.0))
    return epsilon, order


def to_epsilon(rho, delta):
    """The epsilon at delta of a rho-zCDP mechanism.

    Lesson 11's conversion of Rényi DP (``renyi.to_epsilon``: Balle et al. 2020) applied
    to D_alpha = rho alpha, minimised over every real order alpha > 1.

    Args:
      rho: the zCDP parameter(s), >= 0 (the sum of the parts' rho after composition);
        an array gives an array.
      delta: target delta, in (0, 1).

    Taught in: 12-choose-privately.ipynb
    """
    rho = check.finite_epsilon(rho, "rho")
    delta = check.probability_open("delta", delta, scalar=True)
    epsilon = _minimise(rho, delta)[0]
    return check.scalar_or_array(epsilon.reshape(np.shape(rho)))


def best_order(rho, delta):
    """The order alpha at which ``to_epsilon`` attains its minimum.

    Taught in: 12-choose-privately.ipynb
    """
    rho = check.finite_epsilon(rho, "rho", scalar=True)
    delta = check.probability_open("delta", delta, scalar=True)
    if rho == 0:
        raise ValueError("rho must be > 0 for a best order, got 0.0")
    return float(_minimise(rho, delta)[1][0])


def simple_epsilon(rho, delta):
    """rho + 2 sqrt(rho ln(1 / delta)): Bun & Steinke's simpler, looser conversion.

    Taught in: 12-choose-privately.ipynb
    """
    rho = check.finite_epsilon(rho, "rho", scalar=True)
    delta = check.probability_open("delta", delta, scalar=True)
    return rho + 2.0 * math.sqrt(rho * -math.log(delta))
