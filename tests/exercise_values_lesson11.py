"""Independent values of lesson 11's exercises: closed forms, and dp_accounting's PLD
accountant for the epochs a budget affords."""

import math

import mpmath

# Evaluated at the 40 digits tests/conftest.py gives every test (never set here: an
# import would change them for the tests that run after it).


def _conversion(rho, alpha, delta):
    """Balle et al. 2020, Theorem 21, at 40 digits."""
    rho, alpha, delta = (mpmath.mpf(v) for v in (rho, alpha, delta))
    return rho + mpmath.log(1 - 1 / alpha) - (mpmath.log(delta) + mpmath.log(alpha)) / (alpha - 1)


def _affordable_epochs_by_dp_accounting(rate, sigma, delta, target):
    """The largest whole number of epochs whose epsilon, by dp_accounting's PLD accountant
    (Poisson-sampled Gaussian, add or remove one, h = 1e-4), is at most target; one epoch
    is 1/q steps, rounded up at the end of the run."""
    from dp_accounting import dp_event
    from dp_accounting.pld import pld_privacy_accountant

    def epsilon(epochs):
        steps = math.ceil(epochs / rate - 1e-9)
        accountant = pld_privacy_accountant.PLDAccountant(value_discretization_interval=1e-4)
        event = dp_event.PoissonSampledDpEvent(rate, dp_event.GaussianDpEvent(sigma))
        accountant.compose(dp_event.SelfComposedDpEvent(event, steps))
        return accountant.get_epsilon(delta)

    low, high = 1, 100
    assert epsilon(low) <= target < epsilon(high)
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (middle, high) if epsilon(middle) <= target else (low, middle)
    return low


INDEPENDENT = {
    "11.rdp-adds": lambda: 100 * 8 / (2 * 4**2),
    "11.rdp-to-epsilon": lambda: _conversion("0.5", 10, "1e-5"),
    "11.epochs-afford": lambda: _affordable_epochs_by_dp_accounting(256 / 60000, 1.1, 1e-5, 2.0),
}
