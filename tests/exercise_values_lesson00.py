"""Independent values of lesson 00's exercises: the closed forms, at 40 digits."""

import mpmath

# Evaluated at the 40 digits tests/conftest.py gives every test (never set here: an
# import would change them for the tests that run after it).


def _two_releases():
    odds = mpmath.mpf(1) * mpmath.exp(2 * mpmath.log(3))
    return odds / (1 + odds)


def _local_over_central():
    t, share, n = mpmath.mpf(3) / 4, mpmath.mpf("0.3"), 10_000
    q = (1 - t) + share * (2 * t - 1)
    local = mpmath.sqrt(q * (1 - q) / n) / (2 * t - 1)
    central = mpmath.sqrt(2) / (n * mpmath.log(3))
    return local / central


INDEPENDENT = {
    "00.two-releases": _two_releases,
    "00.biased-coin": lambda: mpmath.log(4),
    "00.estimate": lambda: (mpmath.mpf("0.4") - mpmath.mpf("0.25")) / mpmath.mpf("0.5"),
    "00.local-versus-central": _local_over_central,
}
