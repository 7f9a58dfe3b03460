"""Independent values of lesson 12's exercises: the closed forms at 40 digits."""

import mpmath

# Evaluated at the 40 digits tests/conftest.py gives every test (never set here: an
# import would change them for the tests that run after it).


def _first_of(scores, factor):
    """P[first] of the exponential mechanism with weights e^(factor * u)."""
    weights = [mpmath.exp(mpmath.mpf(factor) * u) for u in scores]
    return weights[0] / mpmath.fsum(weights)


INDEPENDENT = {
    "12.em-probability": lambda: _first_of((10, 8, 5), mpmath.mpf(1) / 2),
    "12.monotone-best": lambda: _first_of((50, 49, 46), mpmath.mpf("0.5")),
    "12.rho-adds": lambda: 50 * mpmath.mpf("0.2") ** 2 / 8 + 10 * mpmath.mpf(1) / (2 * 25),
    # Gumbel noise of scale 4 is the exponential mechanism with weights e^(u / 4).
    "12.gumbel-max": lambda: _first_of((30, 28, 20), mpmath.mpf(1) / 4),
    "12.rho-to-epsilon": lambda: (
        mpmath.mpf("0.5") + 2 * mpmath.sqrt(mpmath.mpf("0.5") * mpmath.log(mpmath.mpf(10) ** 6))
    ),
}
