"""Rényi DP: closed forms and the subsampled Gaussian's moments against mpmath integrals,
dp_accounting's RDP accountant at the same orders, and the conversion to (epsilon, delta)."""

import math
import warnings

import mpmath
import numpy as np
import pytest

from dplearn import privacy_loss, renyi, subsampling

RATE = 256 / 60000


@mpmath.workdps(50)
def moment_by_integration(alpha, rate, sigma):
    """D_alpha of the mixture (1 - q) N(0, s^2) + q N(1, s^2) from N(0, s^2), integrated."""
    a, q, s = mpmath.mpf(alpha), mpmath.mpf(rate), mpmath.mpf(sigma)

    def integrand(o):
        ratio = 1 - q + q * mpmath.exp((2 * o - 1) / (2 * s**2))
        return mpmath.npdf(o, 0, s) * ratio**a

    # Two bumps, at 0 and near alpha: break the line at both and around them.
    points = sorted({-40 * s, -8 * s, 0, a / 2, a, a + 8 * s, a + 40 * s})
    total = mpmath.quad(integrand, [-mpmath.inf, *points, mpmath.inf], maxdegree=10)
    return mpmath.log(total) / (a - 1)


@pytest.mark.parametrize(
    ("rate", "sigma"), [(RATE, 1.1), (0.01, 4.0), (0.3, 0.7), (0.9, 2.0), (0.05, 0.5)]
)
@pytest.mark.parametrize("alpha", [1.1, 1.5, 2, 2.5, 3, 7.3, 12, 40])
def test_subsampled_gaussian_against_mpmath(rate, sigma, alpha):
    pair = subsampling.poisson(privacy_loss.gaussian(sigma), rate)
    exact = float(moment_by_integration(alpha, rate, sigma))
    assert renyi.rdp(pair, alpha) == pytest.approx(exact, rel=1e-10)


def test_closed_forms():
    sigma = 1.7
    alphas = np.array([1.01, 2.0, 5.5, 64.0])
    np.testing.assert_allclose(
        renyi.rdp(privacy_loss.gaussian(sigma, 2.0), alphas), alphas * 4 / (2 * sigma**2)
    )
    # Laplace, against its integral at 50 digits.
    scale = 0.8
    with mpmath.workdps(50):
        for alpha in [1.5, 2.0, 9.0]:
            a, b = mpmath.mpf(alpha), mpmath.mpf(scale)

            def integrand(o, a=a, b=b):
                p1 = mpmath.exp(-abs(o) / b) / (2 * b)
                p2 = mpmath.exp(-abs(o - 1) / b) / (2 * b)
                return p1**a * p2 ** (1 - a)

            total = mpmath.quad(integrand, [-mpmath.inf, 0, 1, mpmath.inf])
            exact = float(mpmath.log(total) / (a - 1))
            assert renyi.rdp(privacy_loss.laplace(scale), alpha) == pytest.approx(exact, rel=1e-12)
    # Rate 1: the Gaussian's own.
    pair = subsampling.poisson(privacy_loss.gaussian(sigma), 1.0)
    np.testing.assert_allclose(renyi.rdp(pair, alphas), alphas / (2 * sigma**2), rtol=1e-14)


def test_against_dp_accounting_at_the_same_orders():
    from dp_accounting.rdp import rdp_privacy_accountant

    for rate, sigma in [(RATE, 1.1), (0.01, 4.0), (0.2, 1.5)]:
        pair = subsampling.poisson(privacy_loss.gaussian(sigma), rate)
        # At integer orders dp_accounting sums the same binomial expansion. Its series for
        # fractional orders stops once a term is below e^-30, absolutely: for the first
        # setting that leaves it 2.4 % off at alpha = 1.1 and 8e-5 at 2.5, where the
        # values above agree with mpmath to 1e-10; fractional orders are pinned there.
        orders = [o for o in renyi.DEFAULT_ORDERS if o == int(o)]
        theirs = rdp_privacy_accountant._compute_rdp_poisson_subsampled_gaussian(
            rate, sigma, orders
        )
        np.testing.assert_allclose(renyi.rdp(pair, orders), theirs, rtol=1e-6)


def test_conversion_matches_dp_accounting():
    from dp_accounting.rdp import rdp_privacy_accountant

    rng = np.random.default_rng(7)
    for _ in range(30):
        orders = np.sort(rng.uniform(1.0, 80.0, size=12))
        values = rng.uniform(0.0, 5.0, size=12) * orders / 10
        delta = 10.0 ** rng.uniform(-12, -1)
        theirs, order = rdp_privacy_accountant.compute_epsilon(orders, values, delta)
        assert renyi.to_epsilon(orders, values, delta) == pytest.approx(theirs, rel=1e-12, abs=0)
        assert renyi.best_order(orders, values, delta) == order or theirs == 0


def test_sgd_3_numbers_and_dp_accounting_accountant():
    import dp_accounting
    from dp_accounting.rdp import rdp_privacy_accountant

    orders = np.array(renyi.DEFAULT_ORDERS, dtype=float)
    for rate, sigma, steps, expected in [(RATE, 1.1, 14063, 2.5967), (0.01, 4.0, 10000, 1.0355)]:
        pair = subsampling.poisson(privacy_loss.gaussian(sigma), rate)
        ours = renyi.to_epsilon(orders, steps * renyi.rdp(pair, orders), 1e-5)
        accountant = rdp_privacy_accountant.RdpAccountant()
        accountant.compose(
            dp_accounting.PoissonSampledDpEvent(rate, dp_accounting.GaussianDpEvent(sigma)), steps
        )
        assert ours == pytest.approx(accountant.get_epsilon(1e-5), rel=1e-6)
        assert ours == pytest.approx(expected, abs=5e-5)


def test_conversion_edges():
    # delta >= sqrt(1 - e^-rho): epsilon 0.
    assert renyi.to_epsilon([2.0], [1e-12], 0.1) == 0.0
    # Orders at most 1.01 are not used.
    assert renyi.to_epsilon([1.005], [0.5], 1e-5) == math.inf
    assert renyi.to_epsilon([2.0, 3.0], [np.inf, 0.5], 1e-5) < math.inf
    with pytest.raises(ValueError, match="alphas"):
        renyi.to_epsilon([1.0, 2.0], [0.1, 0.2], 1e-5)
    with pytest.raises(ValueError, match="rdp_values"):
        renyi.to_epsilon([2.0, 3.0], [0.1], 1e-5)
    with pytest.raises(ValueError, match="rdp_values"):
        renyi.to_epsilon([2.0], [-0.1], 1e-5)
    with pytest.raises(ValueError, match="delta"):
        renyi.to_epsilon([2.0], [0.1], 0.0)


def test_bad_input_is_named():
    with pytest.raises(ValueError, match="alpha"):
        renyi.rdp(privacy_loss.gaussian(1.0), 1.0)
    with pytest.raises(ValueError, match="alpha"):
        renyi.rdp(privacy_loss.gaussian(1.0), np.nan)
    with pytest.raises(ValueError, match="pair"):
        renyi.rdp(privacy_loss.discrete_laplace(1.0), 2.0)
    with pytest.raises(ValueError, match="pair"):
        renyi.rdp(subsampling.poisson(privacy_loss.laplace(1.0), 0.1), 2.0)


def test_monotone_in_alpha_and_no_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for rate, sigma in [(1e-6, 0.3), (0.5, 0.6), (RATE, 20.0), (1.0, 0.01)]:
            pair = subsampling.poisson(privacy_loss.gaussian(sigma), rate)
            values = renyi.rdp(pair, np.array([1.1, 1.5, 2.0, 3.0, 10.0, 64.0, 1024.0]))
            assert np.all(np.isfinite(values))
            assert np.all(np.diff(values) >= -1e-15 * np.abs(values[1:]))


@mpmath.workdps(60)
def laplace_closed_form(alpha, epsilon0):
    """Mironov's closed form at 60 digits."""
    a, e = mpmath.mpf(alpha), mpmath.mpf(epsilon0)
    total = a / (2 * a - 1) * mpmath.exp((a - 1) * e) + (a - 1) / (2 * a - 1) * mpmath.exp(-a * e)
    return mpmath.log(total) / (a - 1)


@pytest.mark.parametrize(
    ("scale", "alpha"),
    [
        # Near alpha = 1 the closed form's ln(total) / (alpha - 1) cancels: written as it
        # stands, in doubles, it keeps only nine digits.
        (0.8, 1.0000001),
        (1.0, 1.00001),
        (0.3, 1.001),
        (1.0, 64.0),
        # (alpha - 1) epsilon0 and 2 alpha - 1 overflow here, though D_alpha is finite.
        (1e-300, 2.0),
        (1e-300, 1e10),
        (1.0, 1.7e308),
        (1e-5, 1e300),
    ],
)
def test_laplace_at_extreme_orders_and_scales(scale, alpha):
    pair = privacy_loss.laplace(scale)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ours = renyi.rdp(pair, alpha)
    exact = laplace_closed_form(alpha, pair.max_loss)
    assert ours == pytest.approx(float(exact), rel=1e-14)


@mpmath.workdps(60)
def subsampled_binomial_sum(rate, ratio, alpha):
    """The integer-order moment's binomial sum at 60 digits, as D_alpha."""
    q, r = mpmath.mpf(rate), mpmath.mpf(ratio)
    terms = (
        mpmath.binomial(alpha, k)
        * (1 - q) ** (alpha - k)
        * q**k
        * mpmath.exp((k * k - k) * r**2 / 2)
        for k in range(alpha + 1)
    )
    return mpmath.log(mpmath.fsum(terms)) / (alpha - 1)


def test_orders_whose_divergence_passes_the_largest_double():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        # sigma = 1e-5 at alpha = 1e300: alpha r**2 / 2 = 5e309, past the largest double.
        assert mpmath.mpf(1e300) * mpmath.mpf(1e5) ** 2 / 2 > mpmath.mpf(np.finfo(float).max)
        assert renyi.rdp(privacy_loss.gaussian(1e-5), 1e300) == math.inf
        values = renyi.rdp(privacy_loss.gaussian(1e-5), [2.0, 1e300])
        assert values[0] == pytest.approx(1e10, rel=1e-15) and values[1] == math.inf
        # The subsampled sum's largest exponent overflows, D_alpha itself does not.
        for rate, alpha in [(0.3, 1024), (1e-9, 10000)]:
            pair = subsampling.poisson(privacy_loss.gaussian(1e-152), rate)
            exact = subsampled_binomial_sum(rate, pair.mechanism.ratio, alpha)
            assert renyi.rdp(pair, alpha) == pytest.approx(float(exact), rel=1e-15)
        # A huge sigma, where s * s overflows: D_alpha is about 1e-313, a subnormal the
        # quadrature does not resolve (it gives 0); never negative, NaN or a warning.
        pair = subsampling.poisson(privacy_loss.gaussian(1e156), 0.3)
        values = renyi.rdp(pair, [1.5, 99.5])
        assert np.all((values >= 0.0) & (values < 1e-300))
