"""Noise scales from a privacy budget: how much noise a mechanism needs.

Taught in: 05-add-laplace-and-geometric-noise.ipynb, 06-calibrate-gaussian-noise.ipynb
"""

from __future__ import annotations

import numpy as np
from scipy import optimize

from dplearn import _validation as check
from dplearn.privacy_loss import GaussianNoise

__all__ = ["laplace_scale", "gaussian_sigma_classic", "gaussian_sigma_analytic"]


def laplace_scale(epsilon, sensitivity=1.0):
    """Scale b = sensitivity / epsilon of the Laplace mechanism (pure epsilon-DP).

    Args:
      epsilon: privacy budget, > 0.
      sensitivity: l1 sensitivity of the query, > 0.
    """
    epsilon = check.positive("epsilon", epsilon)
    sensitivity = check.positive("sensitivity", sensitivity)
    return check.scalar_or_array(sensitivity / epsilon)


def gaussian_sigma_classic(epsilon, delta, sensitivity=1.0):
    """The textbook sigma = sensitivity * sqrt(2 ln(1.25 / delta)) / epsilon.

    Dwork & Roth (2014), Theorem A.1, prove it for epsilon < 1 only; the lessons show
    with the exact delta where it holds beyond that and where it fails.

    Args:
      epsilon: privacy budget, > 0.
      delta: allowed failure mass, in (0, 1).
      sensitivity: l2 sensitivity of the query, > 0.
    """
    epsilon = check.positive("epsilon", epsilon)
    delta = check.probability_open("delta", delta)
    sensitivity = check.positive("sensitivity", sensitivity)
    return check.scalar_or_array(sensitivity * np.sqrt(2.0 * np.log(1.25 / delta)) / epsilon)


def gaussian_sigma_analytic(epsilon, delta, sensitivity=1.0):
    """Smallest sigma for which the Gaussian mechanism is (epsilon, delta)-DP.

    Solves exact delta(sigma) = delta (Balle & Wang 2018, "Improving the Gaussian
    mechanism", Theorem 8) in log space, so tiny deltas and large sigmas stay exact.

    Args:
      epsilon: privacy budget, > 0.
      delta: allowed failure mass, in (0, 1).
      sensitivity: l2 sensitivity of the query, > 0.
    """
    epsilon = check.positive("epsilon", epsilon)
    delta = check.probability_open("delta", delta)
    sensitivity = check.positive("sensitivity", sensitivity)
    solve = np.vectorize(_unit_sigma_analytic, otypes=[float])
    # The exact delta depends on sensitivity / sigma only: solve for sensitivity 1.
    return check.scalar_or_array(sensitivity * solve(epsilon, delta))


def _unit_sigma_analytic(epsilon, delta):
    log_target = np.log(delta)

    def gap(log_sigma):
        return GaussianNoise(np.exp(log_sigma)).log_delta(epsilon) - log_target

    # delta falls from 1 to 0 as sigma grows: widen a bracket around the classic sigma.
    lower = upper = np.log(np.sqrt(2.0 * np.log(1.25 / delta)) / epsilon)
    while gap(lower) <= 0:
        lower -= 1.0
    while gap(upper) > 0:
        upper += 1.0
    log_sigma = optimize.brentq(gap, lower, upper, xtol=1e-14, rtol=4 * np.finfo(float).eps)
    return float(np.exp(log_sigma))
