"""Noise scales from a privacy budget: how much noise a mechanism needs.

Every calibration here is on the safe side as the package itself evaluates it: the
Laplace scale b gives ``privacy_loss.laplace(b, sensitivity).max_loss <= epsilon``, and
the analytic sigma gives ``privacy_loss.gaussian(sigma, sensitivity).delta(epsilon) <=
delta``. Inputs whose answer lies outside the floats (a sigma beyond 1.8e308, or below
the smallest positive double) raise a ValueError that says so. Each element of an
array gets the same answer it would get alone.

Taught in: 05-add-laplace-and-geometric-noise.ipynb, 06-calibrate-gaussian-noise.ipynb
"""

from __future__ import annotations

import functools

import numpy as np
from scipy import optimize

from dplearn import _validation as check
from dplearn import privacy_loss
from dplearn._safe_side import step_up

__all__ = [
    "laplace_scale",
    "gaussian_sigma_classic",
    "gaussian_sigma_analytic",
    "classic_crossing_epsilon",
    "crossover_dimension",
]


def _broadcast(**named):
    """The arrays broadcast together, or a ValueError naming the parameters and shapes.

    numpy's own error ("shape mismatch: objects cannot be broadcast ...") names no
    parameter; a learner passing an epsilon curve and a delta curve of other lengths
    needs to know which two disagree.
    """
    try:
        return np.broadcast_arrays(*named.values())
    except ValueError:
        shapes = ", ".join(f"{name} {np.shape(value)}" for name, value in named.items())
        raise ValueError(
            f"{', '.join(named)} must have shapes that broadcast together, got {shapes}"
        ) from None


def _out_of_range(what, value, **inputs):
    given = ", ".join(f"{name}={check.describe(np.asarray(v))}" for name, v in inputs.items())
    return ValueError(f"{what} lies outside the float range ({value}) for {given}")


def _positive_double(what, result, **inputs):
    """result itself, or a ValueError naming the inputs where it overflowed or underflowed.

    It overflowed to infinity or underflowed to 0 there (inputs: name -> array of result's
    shape).
    """
    bad = ~np.isfinite(result) | (result == 0)
    if np.any(bad):
        raise _out_of_range(
            what,
            "above 1.8e308 or below 5e-324",
            **{name: value[bad] for name, value in inputs.items()},
        )
    return result


def laplace_scale(epsilon, sensitivity=1.0):
    """Scale b = sensitivity / epsilon of the Laplace mechanism (pure epsilon-DP).

    Exact to the last bit, rounded up where the division rounds down, so that
    sensitivity / b never exceeds epsilon; every epsilon and sensitivity whose ratio
    is a positive double.

    Args:
      epsilon: privacy budget, > 0.
      sensitivity: l1 sensitivity of the query, > 0.
    """
    epsilon = check.positive("epsilon", epsilon)
    sensitivity = check.positive("sensitivity", sensitivity)
    epsilon, sensitivity = _broadcast(epsilon=epsilon, sensitivity=sensitivity)
    with np.errstate(over="ignore", under="ignore"):
        scale = sensitivity / epsilon
    _positive_double(
        "the scale sensitivity / epsilon", scale, epsilon=epsilon, sensitivity=sensitivity
    )
    return check.scalar_or_array(step_up(scale, lambda b: sensitivity / b > epsilon))


def gaussian_sigma_classic(epsilon, delta, sensitivity=1.0):
    """The textbook sigma = sensitivity * sqrt(2 ln(1.25 / delta)) / epsilon.

    Dwork & Roth (2014), Theorem A.1, prove it for epsilon < 1 only; the lessons show
    with the exact delta where it holds beyond that and where it fails. The formula is
    evaluated to a few ulps for every delta in (0, 1), including subnormal ones.

    Args:
      epsilon: privacy budget, > 0.
      delta: allowed failure mass, in (0, 1).
      sensitivity: l2 sensitivity of the query, > 0.
    """
    epsilon = check.positive("epsilon", epsilon)
    delta = check.probability_open("delta", delta)
    sensitivity = check.positive("sensitivity", sensitivity)
    epsilon, delta, sensitivity = _broadcast(epsilon=epsilon, delta=delta, sensitivity=sensitivity)
    # ln(1.25 / delta) as a difference, so that a tiny delta does not overflow 1.25 / delta.
    factor = np.sqrt(2.0 * (np.log(1.25) - np.log(delta)))
    with np.errstate(over="ignore", under="ignore"):
        # The first order of the three products that neither overflows nor underflows.
        candidates = [
            sensitivity * factor / epsilon,
            sensitivity / epsilon * factor,
            sensitivity * (factor / epsilon),
        ]
    sigma = candidates[-1]
    for candidate in reversed(candidates[:-1]):
        sigma = np.where(np.isfinite(candidate) & (candidate > 0), candidate, sigma)
    _positive_double(
        "the classic sigma", sigma, epsilon=epsilon, delta=delta, sensitivity=sensitivity
    )
    return check.scalar_or_array(sigma)


def gaussian_sigma_analytic(epsilon, delta, sensitivity=1.0):
    """Smallest sigma for which the Gaussian mechanism is (epsilon, delta)-DP.

    Solves exact delta(sigma) = delta (Balle & Wang 2018, "Improving the Gaussian
    mechanism", Theorem 8) in log space, so tiny deltas and large sigmas stay exact,
    then steps sigma up by ulps until ``privacy_loss.gaussian(sigma, sensitivity)``
    gives a delta (and a log delta) no larger than the target. The result is within
    1e-14 relative (about 20 ulps at most, measured) of the smallest safe double, for
    every epsilon > 0 and delta in (0, 1) whose sensitivity / sigma lies in [2.2e-308,
    1e154]; other inputs raise a ValueError (only a delta below about 1e-308 with a tiny
    epsilon, or an epsilon above 5e307, fall outside). Vectorised: a whole curve over
    epsilon costs a few evaluations of the closed form, and each element gets the answer
    it gets alone.

    Args:
      epsilon: privacy budget(s), > 0.
      delta: allowed failure mass(es), in (0, 1).
      sensitivity: l2 sensitivity of the query, > 0.
    """
    epsilon = check.positive("epsilon", epsilon)
    delta = check.probability_open("delta", delta)
    sensitivity = check.positive("sensitivity", sensitivity)
    epsilon, delta, sensitivity = _broadcast(epsilon=epsilon, delta=delta, sensitivity=sensitivity)
    shape = epsilon.shape
    epsilon, delta, sensitivity = epsilon.ravel(), delta.ravel(), sensitivity.ravel()
    log_target = np.log(delta)
    ratio, found = _unit_ratio(epsilon, log_target)
    if not np.all(found):
        raise _out_of_range(
            "the analytic sigma",
            "sensitivity / sigma would lie outside [2.2e-308, 1e154]",
            epsilon=epsilon[~found],
            delta=delta[~found],
        )
    with np.errstate(over="ignore", under="ignore"):
        sigma = sensitivity / ratio
    _positive_double(
        "the analytic sigma", sigma, epsilon=epsilon, delta=delta, sensitivity=sensitivity
    )

    def too_small(sigma):
        """True where the delta of sigma is above the target."""
        # Exactly as GaussianNoise evaluates it: ratio = sensitivity / sigma.
        log_delta = privacy_loss.gaussian_log_delta_terms(epsilon, sensitivity / sigma)[0]
        with np.errstate(under="ignore"):
            return (log_delta > log_target) | (np.exp(log_delta) > delta)

    sigma = step_up(sigma, too_small)
    return check.scalar_or_array(sigma.reshape(shape))


# The unit-sensitivity ratio r = 1 / sigma is searched over all the ratios Gaussian noise
# accepts (in ln r).
_LOG_RATIO_LOW, _LOG_RATIO_HIGH = np.log(privacy_loss.GAUSSIAN_RATIO_RANGE)


def _unit_ratio(epsilon, log_target, max_steps=200):
    """Root r of ln delta(epsilon, r) = log_target in v = ln r: Newton, kept in a bracket.

    delta grows with r from 0 to 1, and d ln(delta)/dv = r phi(a) / delta with
    a = r/2 - epsilon/r (the two Gaussian terms of the derivative combine, as
    e^epsilon phi(a - r) = phi(a)). Newton works on sqrt(-2 ln delta) in c = -a (or on
    ln(-ln delta) in v, for targets above 1/2): both nearly straight. The bracket is the
    whole range [ln 2.2e-308, ln 1e154], fixed and finite; a Newton step that leaves it
    is replaced by bisection, so every element converges within about 100 steps (60 where
    delta jumps from 0 to 1 between neighbouring doubles, as for epsilon = 1e49). An
    element stops when its own step is at rounding level and is then left alone, so that
    it gets the same root alone or inside an array.

    Returns:
      (r, found): found is False where the root lies outside the bracket.
    """

    def gap(v, where):
        """ln delta - ln target at the log ratios v of the elements ``where``."""
        return (
            privacy_loss.gaussian_log_delta_terms(epsilon[where], np.exp(v))[0] - log_target[where]
        )

    def newton_step(v, where):
        """(ln delta - ln target, a Newton step on a near-straight function of ln delta)."""
        log_delta, relative = privacy_loss.gaussian_log_delta_terms(epsilon[where], np.exp(v))
        # d ln(delta) / dv = r phi(a) / delta, from ln(delta / phi(a)) computed without
        # cancellation.
        log_slope = v - relative
        target = log_target[where]
        eps = epsilon[where]
        # For targets below 1/2, Newton in c = epsilon/r - r/2 = -a on sqrt(-2 ln delta),
        # which is about c in the tail: nearly straight, where steps on ln delta in v
        # would creep (at epsilon = 1e197 the root sits 30 below sqrt(2 epsilon) = 4e98).
        # dc/dv = -(epsilon/r + r/2), so d sqrt(-2 ln delta)/dc = slope / (width (c + r)).
        tail = target < np.log(0.5)
        width = np.sqrt(-2.0 * log_delta)
        c = -privacy_loss.gaussian_tail_point(eps, np.exp(v))
        log_speed = np.logaddexp(np.log(eps) - v, v - np.log(2.0))
        c_next = c + (np.sqrt(-2.0 * target) - width) * np.exp(
            np.log(width) + log_speed - log_slope
        )
        # Back to v: r is the positive root of r**2/2 + c r - epsilon = 0.
        root = np.hypot(c_next, np.sqrt(2.0 * eps))
        v_next = np.where(
            c_next >= 0,
            np.log(2.0) + np.log(eps) - np.log(c_next + root),
            np.log(root - c_next),
        )
        tail_step = v_next - v
        # Near delta = 1, ln(-ln delta) is about -r**2/8: Newton on it in v.
        log_log = np.log(-log_delta)
        near_one_step = (log_log - np.log(-target)) * np.exp(log_log - log_slope)
        # Where delta rounds to 0 or 1 neither step means anything: bisect.
        usable = np.isfinite(log_delta) & (log_delta < 0)
        tail_step = np.where(usable, tail_step, np.nan)
        near_one_step = np.where(usable, near_one_step, np.nan)
        return log_delta - target, np.where(tail, tail_step, near_one_step)

    size = epsilon.size
    lower = np.full(size, _LOG_RATIO_LOW)
    upper = np.full(size, _LOG_RATIO_HIGH)
    with np.errstate(over="ignore", under="ignore", divide="ignore", invalid="ignore"):
        # The root lies inside unless delta is below delta(0, 2.2e-308) ~ 9e-309 (ln -709)
        # or epsilon is so large that even r = 1e154 falls short; only such elements are
        # checked, each on its own.
        doubtful = np.flatnonzero((log_target < -690.0) | (epsilon > 1e300))
        found = np.ones(size, dtype=bool)
        found[doubtful] = (gap(lower[doubtful], doubtful) <= 0) & (
            gap(upper[doubtful], doubtful) >= 0
        )
        # Start where a = r/2 - epsilon/r = -z with z = sqrt(2 ln(1.25 / delta)), the
        # classic calibration's tail point: r = 2 epsilon / (z + sqrt(z**2 + 2 epsilon)),
        # which is the classic r for small epsilon and sqrt(2 epsilon) for large; and
        # never below the lower bound that delta(0, r) <= r / sqrt(2 pi) gives.
        z = np.sqrt(2.0 * (np.log(1.25) - log_target))
        tail_point = np.log(2.0 * epsilon) - np.log(z + np.hypot(z, np.sqrt(2.0 * epsilon)))
        start = np.maximum(tail_point, log_target + 0.5 * np.log(2.0 * np.pi))
        v = np.clip(start, lower, upper)
        active = found.copy()
        for _ in range(max_steps):
            if not np.any(active):
                break
            index = np.flatnonzero(active)
            here = v[index]
            value, step_size = newton_step(here, index)
            too_much = value > 0
            lower[index] = np.where(too_much, lower[index], here)
            upper[index] = np.where(too_much, here, upper[index])
            newton = here + step_size
            low, high = lower[index], upper[index]
            rounding = 4.0 * np.spacing(np.maximum(np.abs(here), 0.5))
            # Converged when Newton's own step is at rounding level; otherwise take it if
            # it lands strictly inside the bracket (an end has been evaluated already:
            # where delta jumps between neighbouring doubles, Newton keeps pointing there).
            settled = (value == 0) | (np.abs(step_size) <= rounding)
            inside = np.isfinite(newton) & (newton > low) & (newton < high)
            step = np.where(inside, newton, (low + high) / 2.0)
            v[index] = np.where(settled, here, step)
            active[index] = ~(settled | (high - low <= rounding))
    return np.exp(v), found


@functools.lru_cache(maxsize=64)
def _crossing(delta):
    def gap(epsilon):
        """ln delta - ln target of the classic sigma at epsilon, by the exact delta."""
        sigma = gaussian_sigma_classic(epsilon, delta)
        return privacy_loss.gaussian(sigma).log_delta(epsilon) - np.log(delta)

    return float(optimize.brentq(gap, 1.0, 1000.0, xtol=1e-14, rtol=4 * np.finfo(float).eps))


def classic_crossing_epsilon(delta):
    """The epsilon beyond which the classic sigma gives more than the promised delta.

    The classic calibration sigma = Δ sqrt(2 ln(1.25/δ)) / ε is proved for ε < 1
    (Dwork & Roth 2014, Theorem A.1), a sufficient condition of that proof. With the
    exact delta (Balle & Wang 2018) it holds up to this epsilon and fails above it.
    Found by brentq on ln(exact delta) - ln(delta), between 1 and 1000.

    Args:
      delta: the promised delta, in (0, 1).

    Taught in: 06-calibrate-gaussian-noise.ipynb
    """
    delta = float(check.probability_open("delta", delta, scalar=True))

    # Cached: moving the epsilon slider keeps delta, and the crossing with it.
    return _crossing(delta)


def crossover_dimension(epsilon, delta, calibration="analytic"):
    """The dimension d* above which Gaussian noise is smaller per coordinate than Laplace.

    A query in R^d with every coordinate in [0, c] moves by at most d c in l1 and
    sqrt(d) c in l2. Laplace noise then has scale d c / ε and standard deviation
    sqrt(2) d c / ε per coordinate; Gaussian noise has sigma = sqrt(d) c s(ε, δ), with
    s the sigma for sensitivity 1. Equal at sqrt(d) = ε s / sqrt(2): d* = (ε s)^2 / 2,
    whatever c is. With the classic s, d* = ln(1.25 / δ), whatever ε is.

    Args:
      epsilon: privacy budget, > 0.
      delta: delta of the Gaussian mechanism, in (0, 1).
      calibration: "analytic" (exact, smallest sigma) or "classic".

    Taught in: 06-calibrate-gaussian-noise.ipynb
    """
    # One number each: d* is a single dimension (the sigmas below would take arrays).
    epsilon = check.positive("epsilon", epsilon, scalar=True)
    delta = check.probability_open("delta", delta, scalar=True)
    if calibration == "analytic":
        unit = gaussian_sigma_analytic(epsilon, delta)
    elif calibration == "classic":
        unit = gaussian_sigma_classic(epsilon, delta)
    else:
        raise ValueError(f"calibration must be 'analytic' or 'classic', got {calibration!r}")
    return float((epsilon * unit) ** 2 / 2.0)
