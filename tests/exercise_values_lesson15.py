"""Independent values of lesson 15's exercises: local sensitivities at distance k from the
order statistics, smooth sensitivity, distance to instability and propose-test-release's
Laplace tails, written from the papers' formulas in mpmath."""

import mpmath

# Evaluated at the 40 digits tests/conftest.py gives every test (never set here: an
# import would change them for the tests that run after it).


def _sensitivity_at(values, distance, lower, upper):
    """A^(k) of the median: the widest gap x_(m+t) - x_(m+t-k-1), 0 <= t <= k + 1.

    Written from the definition of Nissim, Raskhodnikova & Smith: k changes can move the
    values below or above the median to the bounds, so the neighbours' medians span the
    sorted values (padded with lower below and upper above) k + 1 places apart.
    """
    ordered = sorted(values)
    n = len(ordered)
    median = (n + 1) // 2

    def value(i):
        if i < 1:
            return mpmath.mpf(lower)
        if i > n:
            return mpmath.mpf(upper)
        return mpmath.mpf(ordered[i - 1])

    return max(value(median + t) - value(median + t - distance - 1) for t in range(distance + 2))


def _smooth(values, beta, lower, upper):
    beta = mpmath.mpf(beta)
    return max(
        mpmath.exp(-k * beta) * _sensitivity_at(values, k, lower, upper)
        for k in range(len(values) + 1)
    )


def _distance(values, bound, lower, upper):
    k = 0
    while _sensitivity_at(values, k, lower, upper) <= bound:
        k += 1
    return k


def _pass(gamma, epsilon, delta):
    """P[gamma + Lap(1/epsilon) > ln(1/(2 delta))/epsilon], both cases of the Laplace tail."""
    gamma, epsilon, delta = (mpmath.mpf(v) for v in (gamma, epsilon, delta))
    margin = epsilon * gamma + mpmath.log(2 * delta)
    return mpmath.exp(margin) / 2 if margin <= 0 else 1 - mpmath.exp(-margin) / 2


def _ptr_within(t, gamma, bound, epsilon_test, epsilon_release, delta):
    return _pass(gamma, epsilon_test, delta) * (
        1 - mpmath.exp(-mpmath.mpf(t) * mpmath.mpf(epsilon_release) / bound)
    )


INDEPENDENT = {
    # Cauchy scale 6 S*/epsilon at beta = epsilon / 6, epsilon = 2.
    "15.smooth-cauchy": lambda: 3 * _smooth((30, 38, 40, 43, 55), mpmath.mpf(1) / 3, 0, 100),
    # beta = epsilon / (2 ln(2/delta)) = 1 / ln(2e6).
    "15.smooth-laplace": lambda: _smooth(
        (22, 35, 41, 44, 48, 60, 75), 1 / mpmath.log(2 * mpmath.mpf(10) ** 6), 0, 100
    ),
    "15.distance": lambda: _distance((42, 39, 45, 38, 42, 44, 39, 43, 40), 3, 0, 100),
    # 1/2 e^(-epsilon T) with T = ln(2/delta)/(2 epsilon), over delta: 1/(2 sqrt(2 delta)).
    "15.published-ptr": lambda: 1 / (2 * mpmath.sqrt(2 * mpmath.mpf("1e-8"))),
    "15.same-epsilon": lambda: _ptr_within(2, 33, 2, "0.5", "0.5", "1e-6"),
    "15.aggregate-noise": lambda: mpmath.mpf(120) / (30 * mpmath.mpf("0.5")),
}
INDEPENDENT_FUNCTIONS = {
    "15.ptr-pass": _pass,
}
