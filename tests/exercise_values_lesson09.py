"""Independent values of lesson 09's exercises: dp_accounting's accountant and mpmath."""

import mpmath

# Evaluated at the 40 digits tests/conftest.py gives every test (never set here: an
# import would change them for the tests that run after it).


def _rounded_up_laplace_delta(scale, releases, grid_width, epsilon):
    """The pessimistic delta of k Laplace releases on a grid that rounds every loss up,
    built here from the loss's law (atoms at +-1/scale, the middle in between), composed by
    direct convolution with mpmath numbers."""
    epsilon0 = 1 / mpmath.mpf(scale)
    steps = int(mpmath.nint(epsilon0 / grid_width))
    assert abs(steps * grid_width - epsilon0) < 1e-12, "the grid must hold +-epsilon0"
    h = mpmath.mpf(grid_width)

    def exceeds(t):  # P[L > t] for one release, -epsilon0 <= t < epsilon0
        return 1 - mpmath.exp((t - epsilon0) / 2) / 2

    # Grid points -steps..steps; the mass of (x_{i-1}, x_i] goes to x_i.
    masses = [mpmath.exp(-epsilon0) / 2]  # the atom at -epsilon0
    for i in range(-steps + 1, steps + 1):
        low, high = (i - 1) * h, i * h
        cell = exceeds(low) - (exceeds(high) if i < steps else mpmath.mpf(1) / 2)
        masses.append(cell)
    masses[-1] += mpmath.mpf(1) / 2  # the atom at +epsilon0
    total = [mpmath.mpf(1)]
    for _ in range(releases):
        result = [mpmath.mpf(0)] * (len(total) + len(masses) - 1)
        for a, x in enumerate(total):
            if x:
                for b, y in enumerate(masses):
                    result[a + b] += x * y
        total = result
    lowest = -steps * releases
    return sum(
        mass * (1 - mpmath.exp(epsilon - (lowest + i) * h))
        for i, mass in enumerate(total)
        if (lowest + i) * h > epsilon
    )


INDEPENDENT = {
    "09.accountant-report": lambda: _rounded_up_laplace_delta(5, 20, 0.05, 1),
    "09.beta-at-alpha": lambda: mpmath.ncdf(
        -mpmath.sqrt(2) * mpmath.erfinv(2 * mpmath.mpf("0.05") - 1) - 1
    ),
}

INDEPENDENT_FUNCTIONS = {
    "09.gaussian-mu": lambda k, sigma: mpmath.sqrt(k) / mpmath.mpf(sigma),
}
