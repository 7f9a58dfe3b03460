"""Independent values of lesson 08's exercises: mpmath closed forms and brute force."""

import mpmath

# Evaluated at the 40 digits tests/conftest.py gives every test (never set here: an
# import would change them for the tests that run after it).


def _gaussian_delta(epsilon, sigma, k):
    """Balle & Wang's delta of k Gaussian releases (sensitivity 1), at 40 digits."""
    r = mpmath.sqrt(k) / mpmath.mpf(sigma)
    epsilon = mpmath.mpf(epsilon)
    return mpmath.ncdf(r / 2 - epsilon / r) - mpmath.exp(epsilon) * mpmath.ncdf(
        -r / 2 - epsilon / r
    )


def _laplace_mean(epsilon0, k):
    """k times the mean loss of one Laplace release, integrated over its outputs."""
    b = 1 / mpmath.mpf(epsilon0)
    density = lambda x: mpmath.exp(-abs(x) / b) / (2 * b)  # noqa: E731
    loss = lambda x: (abs(x - 1) - abs(x)) / b  # noqa: E731
    return k * mpmath.quad(lambda x: density(x) * loss(x), [-mpmath.inf, 0, 1, mpmath.inf])


def _first_win(epsilon0, delta):
    """The first k with epsilon0 sqrt(2k ln 1/delta) + k epsilon0 (e^epsilon0 - 1) < k epsilon0."""
    e0, log_inverse = mpmath.mpf(epsilon0), mpmath.log(1 / mpmath.mpf(delta))
    k = 1
    while not e0 * mpmath.sqrt(2 * k * log_inverse) + k * e0 * mpmath.expm1(e0) < k * e0:
        k += 1
    return k


INDEPENDENT = {
    "08.delta-of-eight": lambda: _gaussian_delta(1, 4, 8),
    "08.mean-loss": lambda: _laplace_mean(0.5, 20),
}

INDEPENDENT_FUNCTIONS = {
    "08.first-win": _first_win,
}
