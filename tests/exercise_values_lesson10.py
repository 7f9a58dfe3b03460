"""Independent values of lesson 10's exercises: mpmath closed forms of the subsampled Gaussian."""

import mpmath

# Evaluated at the 40 digits tests/conftest.py gives every test (never set here: an
# import would change them for the tests that run after it).


def subsampled_gaussian_delta(epsilon, sigma, rate, sensitivity=1):
    """delta(epsilon) of the Gaussian mechanism on a Poisson subsample: the larger side."""
    return max(subsampled_gaussian_sides(epsilon, sigma, rate, sensitivity))


def subsampled_gaussian_sides(epsilon, sigma, rate, sensitivity=1):
    """(remove, add): delta(epsilon) of each direction of the subsampled Gaussian.

    With the person the output is the mixture (1 - q) N(0, s^2) + q N(D, s^2), without them
    N(0, s^2); the loss ln(1 - q + q e^((2o - D) D / (2 s^2))) grows with the output o, so
    each direction's bad events are one half-line, cut where the loss equals +-epsilon.
    """
    eps, s, q, d = (mpmath.mpf(v) for v in (epsilon, sigma, rate, sensitivity))

    def upper(x):  # P[N(0, 1) > x]
        return mpmath.ncdf(-x)

    # Remove: o drawn from the mixture, bad when the loss exceeds epsilon.
    cut = s**2 / d * mpmath.log((mpmath.exp(eps) - 1 + q) / q) + d / 2
    mixture = (1 - q) * upper(cut / s) + q * upper((cut - d) / s)
    remove = mixture - mpmath.exp(eps) * upper(cut / s)
    # Add: o drawn from N(0, s^2), bad when minus the loss exceeds epsilon (needs
    # e^-epsilon > 1 - q, else the loss never gets there).
    inner = mpmath.exp(-eps) - 1 + q
    if inner <= 0:
        add = mpmath.mpf(0)
    else:
        cut = s**2 / d * mpmath.log(inner / q) + d / 2
        below = mpmath.ncdf(cut / s)
        add = below - mpmath.exp(eps) * ((1 - q) * below + q * mpmath.ncdf((cut - d) / s))
    return remove, add


def gaussian_delta(epsilon, sigma):
    """Balle & Wang's delta of one Gaussian release (sensitivity 1)."""
    r, eps = 1 / mpmath.mpf(sigma), mpmath.mpf(epsilon)
    return mpmath.ncdf(r / 2 - eps / r) - mpmath.exp(eps) * mpmath.ncdf(-r / 2 - eps / r)


def _bound_over_exact(sigma, epsilon, rate):
    """q delta_M(epsilon) over the subsampled Gaussian's exact delta at epsilon."""
    q = mpmath.mpf(rate)
    return q * gaussian_delta(epsilon, sigma) / subsampled_gaussian_delta(epsilon, sigma, rate)


INDEPENDENT = {
    "10.amplified-epsilon": lambda: mpmath.log(1 + mpmath.mpf("0.05") * mpmath.expm1(2)),
    "10.bound-overstates": lambda: _bound_over_exact(1, 1, "0.1"),
}

INDEPENDENT_FUNCTIONS = {
    "10.amplification-formula": lambda epsilon0, q: mpmath.log(
        1 + mpmath.mpf(q) * mpmath.expm1(mpmath.mpf(epsilon0))
    ),
}
