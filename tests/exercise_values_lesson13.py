"""Independent values of lesson 13's exercises, from the definitions, in mpmath."""

import mpmath

# Evaluated at the 40 digits tests/conftest.py gives every test (never set here: an
# import would change them for the tests that run after it).


def chain_delta(epsilon, delta, group_size):
    """delta (1 + e^epsilon + ... + e^((g - 1) epsilon)): the chain of g neighbours."""
    epsilon, delta = mpmath.mpf(epsilon), mpmath.mpf(delta)
    return delta * mpmath.fsum(mpmath.exp(j * epsilon) for j in range(int(group_size)))


INDEPENDENT = {
    # 12 disjoint bins at epsilon = 0.25: each bin Laplace(1 / 0.25).
    "13.histogram-noise": lambda: 4,
    # AboveThreshold's answer noise 4 Delta / epsilon with Delta = 3, epsilon = 0.5.
    "13.answer-noise": lambda: 24,
    "13.group-delta": lambda: chain_delta("0.5", "1e-7", 4),
}
INDEPENDENT_FUNCTIONS = {
    "13.group-formula": chain_delta,
}
