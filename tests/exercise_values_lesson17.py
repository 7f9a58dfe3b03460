"""Independent values of lesson 17's exercises and of each anticipated slip, written in
mpmath from Wang, Blocki, Li & Jha's formulas ("Locally differentially private protocols
for frequency estimation", USENIX Security 2017): p and q of each protocol, the estimate's
exact variance, the crossover of direct and optimised unary encoding; the histogram's
post-processings from their definitions."""

import mpmath

# Evaluated at the 40 digits tests/conftest.py gives every test (never set here: an
# import would change them for the tests that run after it).


def _direct(epsilon, categories):
    """Generalised randomised response: weight e^epsilon for the own value, 1 for each other."""
    weight = mpmath.exp(mpmath.mpf(epsilon))
    total = weight + categories - 1
    return weight / total, 1 / total


def _optimised_unary(epsilon):
    return mpmath.mpf(1) / 2, 1 / (mpmath.exp(mpmath.mpf(epsilon)) + 1)


def _variance(p, q, n, c):
    """Var of (Binomial(c, p) + Binomial(n - c, q) - n q) / (p - q), term by term."""
    return (c * p * (1 - p) + (n - c) * q * (1 - q)) / (p - q) ** 2


def _unary_epsilon(p, q):
    p, q = mpmath.mpf(p), mpmath.mpf(q)
    return mpmath.log(p / q) + mpmath.log((1 - q) / (1 - p))


def _largest_direct_winner(epsilon):
    """The largest whole d with (e^eps + d - 2)/(e^eps - 1)^2 < 4 e^eps/(e^eps - 1)^2, by search."""
    weight = mpmath.exp(mpmath.mpf(epsilon))
    d = 2
    while weight + (d + 1) - 2 < 4 * weight:
        d += 1
    return d


_ESTIMATES, _N = [-12, 40, 75, -3, 100], 200


def _clip_and_renormalise(estimates, total):
    clipped = [max(mpmath.mpf(x), 0) for x in estimates]
    return [x * total / sum(clipped) for x in clipped]


def _projection(estimates, total):
    """max(x - theta, 0) summing to total, theta found by bisection."""
    low, high = min(estimates) - total, max(estimates)
    low, high = mpmath.mpf(low), mpmath.mpf(high)
    for _halving in range(200):
        theta = (low + high) / 2
        if sum(max(x - theta, 0) for x in estimates) > total:
            low = theta
        else:
            high = theta
    return [max(x - (low + high) / 2, 0) for x in estimates]


def _count_variance(swapped=False):
    p, q = _optimised_unary(2)
    if swapped:
        p, q = q, p
    return _variance(p, q, 5000, 1000)


def _per_user_direct(epsilon, categories):
    """n q (1 - q) / (p - q)^2 over n at c = 0, from p and q (not the closed form)."""
    p, q = _direct(epsilon, categories)
    return _variance(p, q, 1, 0)


INDEPENDENT = {
    "17.direct-q": lambda: _direct(2, 8)[1],
    "17.unary-epsilon": lambda: _unary_epsilon("0.8", "0.3"),
    "17.count-variance": _count_variance,
    "17.crossover": lambda: _largest_direct_winner("1.5"),
    "17.clip-renormalise": lambda: _clip_and_renormalise(_ESTIMATES, _N)[4],
}
INDEPENDENT_FUNCTIONS = {
    "17.direct-variance": _per_user_direct,
}

#: Each anticipated slip's value: {exercise id: {hint id: value}} (a function for a
#: function exercise).
SLIPS = {
    "17.direct-q": {
        "p-for-q": lambda: _direct(2, 8)[0],
        "any-other": lambda: 7 * _direct(2, 8)[1],
        "d-not-d-minus-one": lambda: 1 / (mpmath.exp(2) + 8),
        "unary-q": lambda: _optimised_unary(2)[1],
    },
    "17.unary-epsilon": {
        "log-p-over-q": lambda: mpmath.log(mpmath.mpf(8) / 3),
        "zeros-only": lambda: mpmath.log(mpmath.mpf(7) / 2),
        "twice-log-p-over-q": lambda: 2 * mpmath.log(mpmath.mpf(8) / 3),
    },
    "17.count-variance": {
        "per-user": lambda: _count_variance() / 5000,
        "count-forgotten": lambda: _variance(*_optimised_unary(2), 5000, 0),
        "p-q-swapped": lambda: _count_variance(swapped=True),
        "standard-deviation": lambda: mpmath.sqrt(_count_variance()),
    },
    "17.crossover": {
        "wrong-way": lambda: _largest_direct_winner("1.5") + 1,
        "not-rounded": lambda: 3 * mpmath.exp(mpmath.mpf("1.5")) + 2,
        "without-two": lambda: mpmath.floor(3 * mpmath.exp(mpmath.mpf("1.5"))),
    },
    "17.clip-renormalise": {
        "not-renormalised": lambda: mpmath.mpf(100),
        "projection": lambda: _projection(_ESTIMATES, _N)[4],
        "share": lambda: _clip_and_renormalise(_ESTIMATES, 1)[4],
    },
    "17.direct-variance": {
        "p-q-swapped": lambda epsilon, categories: (
            _direct(epsilon, categories)[0]
            * (1 - _direct(epsilon, categories)[0])
            / (_direct(epsilon, categories)[0] - _direct(epsilon, categories)[1]) ** 2
        ),
        "d-not-d-minus-one": lambda epsilon, categories: _per_user_direct(epsilon, categories + 1),
        "not-divided": lambda epsilon, categories: (
            _direct(epsilon, categories)[1] * (1 - _direct(epsilon, categories)[1])
        ),
    },
}
