"""What every test module shares: no test leaves mpmath at another precision."""

import mpmath
import pytest


@pytest.fixture(autouse=True)
def _restore_mpmath_precision():
    # A test that sets mpmath.mp.dps would otherwise change the digits of every later
    # test's reference values, and so whether a tight tolerance holds.
    precision = mpmath.mp.prec
    yield
    mpmath.mp.prec = precision
