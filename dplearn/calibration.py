"""Noise scales from a privacy budget: how much noise a mechanism needs.

Taught in: 05-add-laplace-and-geometric-noise.ipynb, 06-calibrate-gaussian-noise.ipynb
"""

from __future__ import annotations

import numpy as np

from dplearn import _validation as check
from dplearn.privacy_loss import gaussian_log_delta

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
    Vectorised: a whole curve over epsilon costs about as much as one point.

    Args:
      epsilon: privacy budget(s), > 0.
      delta: allowed failure mass(es), in (0, 1).
      sensitivity: l2 sensitivity of the query, > 0.
    """
    epsilon = check.positive("epsilon", epsilon)
    delta = check.probability_open("delta", delta)
    sensitivity = check.positive("sensitivity", sensitivity)
    epsilon, delta = np.broadcast_arrays(epsilon, delta)
    # The exact delta depends on sensitivity / sigma only: solve for sensitivity 1.
    unit = _unit_sigma_analytic(epsilon.ravel(), delta.ravel()).reshape(epsilon.shape)
    return check.scalar_or_array(sensitivity * unit)


def _unit_sigma_analytic(epsilon, delta, max_steps=200):
    """Root of ln delta(sigma) = ln target in u = ln sigma: Newton, kept in a bracket.

    In u, d ln(delta)/du = -r phi(a) / delta with r = 1/sigma and a = r/2 - epsilon/r
    (the two Gaussian terms of the derivative combine, as e^epsilon phi(a - r) = phi(a)).
    A step that leaves the bracket is replaced by bisection, so it always converges.
    """
    log_target = np.log(delta)

    def gap(log_sigma):
        return gaussian_log_delta(epsilon, np.exp(-log_sigma)) - log_target

    # delta falls from 1 to 0 as sigma grows: widen a bracket around the classic sigma.
    classic = np.log(np.sqrt(2.0 * np.log(1.25 / delta)) / epsilon)
    lower, upper = classic - 1.0, classic + 1.0
    while np.any(low := gap(lower) <= 0):
        lower = np.where(low, lower - 2.0, lower)
    while np.any(high := gap(upper) > 0):
        upper = np.where(high, upper + 2.0, upper)
    log_sigma = (lower + upper) / 2.0
    for _ in range(max_steps):
        value = gap(log_sigma)
        too_little_noise = value > 0
        lower = np.where(too_little_noise, log_sigma, lower)
        upper = np.where(too_little_noise, upper, log_sigma)
        ratio = np.exp(-log_sigma)
        a = ratio / 2.0 - epsilon / ratio
        log_slope = np.log(ratio) - a**2 / 2.0 - 0.5 * np.log(2.0 * np.pi) - (value + log_target)
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            newton = log_sigma + value / np.exp(log_slope)
        inside = np.isfinite(newton) & (newton >= lower) & (newton <= upper)
        step = np.where(inside, newton, (lower + upper) / 2.0)
        # Converged when the step or the gap is at rounding level (1e-13 in ln delta is
        # 1e-12 in delta); steps of a few ulps can otherwise go on forever.
        done = (
            np.abs(step - log_sigma) <= 4 * np.finfo(float).eps * np.maximum(1.0, np.abs(step))
        ) | (np.abs(value) <= 1e-13 * np.maximum(1.0, np.abs(log_target)))
        log_sigma = np.where(np.abs(value) == 0, log_sigma, step)
        if np.all(done):
            break
    return np.exp(log_sigma)
