"""Independent values of lesson 14's exercises: the region's cap at 40 digits, and
Clopper-Pearson and one-run bounds from exact binomial sums solved by bisection."""

import mpmath

# Evaluated at the 40 digits tests/conftest.py gives every test (never set here: an
# import would change them for the tests that run after it).


def _cap(epsilon, delta, alpha):
    e, d, a = (mpmath.mpf(v) for v in (epsilon, delta, alpha))
    return min(1, mpmath.exp(e) * a + d, 1 - mpmath.exp(-e) * (1 - d - a))


def _bisect(falls, low=0, high=1, halvings=80):
    """The point of [low, high] where a decreasing function crosses 0."""
    low, high = mpmath.mpf(low), mpmath.mpf(high)
    for _ in range(halvings):
        middle = (low + high) / 2
        low, high = (middle, high) if falls(middle) > 0 else (low, middle)
    return (low + high) / 2


def _at_most(k, n, p):
    return sum(mpmath.binomial(n, i) * p**i * (1 - p) ** (n - i) for i in range(k + 1))


def _clopper_pearson_upper(k, n, level):
    return _bisect(lambda p: _at_most(k, n, p) - (1 - mpmath.mpf(level)))


def _jagielski(tp, fn, fp, tn, confidence):
    level = 1 - (1 - mpmath.mpf(confidence)) / 2
    fpr = _clopper_pearson_upper(fp, fp + tn, level)
    fnr = _clopper_pearson_upper(fn, tp + fn, level)
    return max(0, mpmath.log((1 - fnr) / fpr), mpmath.log((1 - fpr) / fnr))


def _one_run(guesses, correct, confidence):
    # The largest p with P[Binomial(r, p) >= v] <= 1 - confidence; the tail grows with p.
    level = 1 - mpmath.mpf(confidence)
    p = _bisect(lambda p: level - (1 - _at_most(correct - 1, guesses, p)))
    return mpmath.log(p / (1 - p))


INDEPENDENT = {
    "14.tpr-cap": lambda: _cap(4, "1e-5", "0.05"),
    "14.tpr-with-delta": lambda: _cap(1, "0.01", "0.02"),
    "14.clopper-pearson": lambda: _jagielski(250, 250, 5, 495, "0.95"),
    "14.one-run": lambda: _one_run(200, 140, "0.95"),
}
