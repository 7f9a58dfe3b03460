"""Independent high-precision values for the core's tests, computed with mpmath.

Nothing here calls dplearn: each function evaluates a definition (an integral, a sum)
or a closed form from the literature at 60 digits, whatever precision the calling test
has set: a sum that cancels to exactly 0 at 60 digits leaves 1e-137 at 30.
"""

import mpmath


@mpmath.workdps(60)
def gaussian_delta(epsilon, sigma, sensitivity=1.0):
    """Balle & Wang (2018), Theorem 8: Phi(r/2 - eps/r) - e^eps Phi(-r/2 - eps/r)."""
    epsilon, r = mpmath.mpf(epsilon), mpmath.mpf(sensitivity) / mpmath.mpf(sigma)
    return mpmath.ncdf(r / 2 - epsilon / r) - mpmath.exp(epsilon) * mpmath.ncdf(
        -r / 2 - epsilon / r
    )


@mpmath.workdps(60)
def gaussian_delta_by_integration(epsilon, sigma, sensitivity=1.0):
    """E[max(0, 1 - e^(eps - L))] with L ~ N(mu, 2 mu), integrated numerically."""
    epsilon = mpmath.mpf(epsilon)
    mu = (mpmath.mpf(sensitivity) / sigma) ** 2 / 2
    spread = mpmath.sqrt(2 * mu)

    def integrand(loss):
        return mpmath.npdf(loss, mu, spread) * (1 - mpmath.exp(epsilon - loss))

    return mpmath.quad(integrand, [epsilon, epsilon + spread, mu + 40 * spread, mpmath.inf])


@mpmath.workdps(60)
def gaussian_loss_exceeds(epsilon, sigma, sensitivity=1.0):
    mu = (mpmath.mpf(sensitivity) / sigma) ** 2 / 2
    return mpmath.ncdf((mu - epsilon) / mpmath.sqrt(2 * mu))


@mpmath.workdps(60)
def laplace_delta_by_integration(epsilon, scale, sensitivity=1.0):
    """Integral of max(0, p1 - e^eps p2) over the output, p1 at 0, p2 at sensitivity."""
    b, shift, epsilon = mpmath.mpf(scale), mpmath.mpf(sensitivity), mpmath.mpf(epsilon)

    def gap(output):
        p1 = mpmath.exp(-abs(output) / b) / (2 * b)
        p2 = mpmath.exp(-abs(output - shift) / b) / (2 * b)
        return max(p1 - mpmath.exp(epsilon) * p2, 0)

    return mpmath.quad(gap, [-mpmath.inf, 0, (shift - epsilon * b) / 2, shift, mpmath.inf])


def discrete_laplace_pmf(k, scale):
    # At its callers' digits: inside mpmath.nsum they are more than 60.
    q = mpmath.exp(-1 / mpmath.mpf(scale))
    return (1 - q) / (1 + q) * q ** abs(k)


@mpmath.workdps(60)
def discrete_laplace_sums(epsilon, scale, sensitivity, reach=4000):
    """(delta, P[L > eps]) by summing over outputs -reach .. reach (the tails are negligible)."""
    epsilon = mpmath.mpf(epsilon)
    delta = exceeds = mpmath.mpf(0)
    for k in range(-reach, reach + 1):
        p1 = discrete_laplace_pmf(k, scale)
        p2 = discrete_laplace_pmf(k - sensitivity, scale)
        # A margin far below float precision, so that L = epsilon is not counted as L > epsilon.
        if p1 > mpmath.exp(epsilon) * p2 * (1 + mpmath.mpf(10) ** -40):
            delta += p1 - mpmath.exp(epsilon) * p2
            exceeds += p1
    return delta, exceeds


@mpmath.workdps(60)
def gaussian_log_delta_exact(epsilon, ratio):
    """ln delta of the Gaussian mechanism at the float ratio r = sensitivity / sigma given.

    Balle & Wang's closed form, evaluated with as many digits as the cancellation between
    its two terms needs: the precision grows until the difference keeps 40 digits.
    """
    for digits in (60, 150, 400, 1200):
        with mpmath.workdps(digits):
            epsilon_, r = mpmath.mpf(epsilon), mpmath.mpf(ratio)
            upper = r / 2 - epsilon_ / r
            first = mpmath.ncdf(upper)
            delta = first - mpmath.exp(epsilon_) * mpmath.ncdf(upper - r)
            if delta > 0 and delta > first * mpmath.mpf(10) ** (40 - digits):
                return mpmath.log(delta)
    raise ArithmeticError(f"no precision was enough for epsilon={epsilon}, ratio={ratio}")


@mpmath.workdps(60)
def discrete_laplace_delta(epsilon, scale, sensitivity):
    """sum over all outputs k of max(0, P1(k) - e^eps P2(k)), with mpmath.nsum for k <= 0.

    P1 is centred at 0 and P2 at the sensitivity; outputs k >= sensitivity have L <= 0.
    """
    epsilon = mpmath.mpf(epsilon)

    def gap(k):
        return discrete_laplace_pmf(k, scale) - mpmath.exp(epsilon) * discrete_laplace_pmf(
            k - sensitivity, scale
        )

    total = mpmath.mpf(0)
    left = mpmath.nsum(lambda j: gap(-j), [0, mpmath.inf])
    if left > 0:  # every k <= 0 has the same loss, so all their gaps share a sign
        total += left
    for k in range(1, sensitivity):
        total += max(gap(k), 0)
    return total


@mpmath.workdps(60)
def ulps_from(value, exact):
    """How many units in the last place the double value lies from the exact number.

    A value a correctly rounded function returns lies within 0.5 ulp; numpy's and the C
    library's log, exp and log1p differ from CPU to CPU by an ulp or so, so the tests
    state their tolerance in ulps against a 60-digit value rather than comparing bits.
    """
    import math

    value = float(value)
    return float(abs(mpmath.mpf(value) - mpmath.mpf(exact)) / math.ulp(value))
