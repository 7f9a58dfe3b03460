"""dplearn.composition against values derived independently: mpmath at high precision
(its own convolution of the single-release laws, numerical integration, brute-force
binomial sums), numerical integration over the outputs themselves, and Google's
dp_accounting as an oracle whose PLD brackets must contain the exact values."""

from __future__ import annotations

import functools
import math
import sys
import warnings

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dplearn import composition, privacy_loss

# ----------------------------------------------------------------------------------------
# Independent references in mpmath
# ----------------------------------------------------------------------------------------


@functools.cache
def mp_laplace_law(epsilon0, k, dps):
    """The law of W = W_1 + ... + W_k under A(D1), where one release's loss is
    epsilon0 - 2 epsilon0 W_i: atoms a_j at W = j and, on each [n, n + 1], the continuous
    density e^(-epsilon0 w) R_n(w - n) with R_n a polynomial (local monomials, mpmath).

    Built by k convolutions with the law of one W_i (atoms 1/2 at 0 and e^-epsilon0 / 2
    at 1, density (epsilon0 / 2) e^(-epsilon0 u) on (0, 1)), exactly, at dps digits.
    """
    with mp.workdps(dps):
        e0 = mp.mpf(epsilon0)
        half, far = mp.mpf(1) / 2, mp.exp(-e0) / 2
        atoms, pieces = [half, far], [[e0 / 2]]
        for size in range(2, k + 1):
            old_atoms, old_pieces = atoms, pieces
            atoms = [mp.mpf(0)] * (size + 1)
            for j, mass in enumerate(old_atoms):
                atoms[j] += half * mass
                atoms[j + 1] += far * mass
            pieces = [[mp.mpf(0)] * size for _ in range(size)]
            for n, target in enumerate(pieces):
                if n < len(old_pieces):  # W_i = 0, or W_i continuous reaching back into n
                    for m, c in enumerate(old_pieces[n]):
                        target[m] += half * c
                        target[m + 1] += e0 / 2 * c / (m + 1)
                if 1 <= n <= len(old_pieces):  # W_i = 1, or reaching from piece n - 1
                    total = mp.mpf(0)
                    for m, c in enumerate(old_pieces[n - 1]):
                        target[m] += half * c
                        total += c / (m + 1)
                        target[m + 1] -= e0 / 2 * c / (m + 1)
                    target[0] += e0 / 2 * total
                if n < len(old_atoms):  # an atom of the sum, then W_i continuous
                    target[0] += e0 / 2 * old_atoms[n] * mp.exp(e0 * n)
        return e0, tuple(atoms), tuple(tuple(p) for p in pieces)


def _mp_laplace_integral(epsilon0, k, epsilon, dps, weight):
    e0, atoms, pieces = mp_laplace_law(epsilon0, k, dps)
    with mp.workdps(dps):
        epsilon = mp.mpf(epsilon)
        x = (k * e0 - epsilon) / (2 * e0)
        total = mp.mpf(0)
        for j, mass in enumerate(atoms):
            loss = (k - 2 * j) * e0
            if loss > epsilon:
                total += mass * weight(loss - epsilon)
        for n, coefficients in enumerate(pieces):
            if n >= x:
                break

            def integrand(s, n=n, coefficients=coefficients):
                loss = k * e0 - 2 * e0 * (n + s)
                density = mp.exp(-e0 * (n + s)) * mp.polyval(list(coefficients), s, asc=True)
                return weight(loss - epsilon) * density

            total += mp.quad(integrand, [0, min(mp.mpf(1), x - n)], method="gauss-legendre")
        return total


def mp_laplace_delta(epsilon0, k, epsilon, dps=40):
    """delta(epsilon) = E[max(0, 1 - e^(epsilon - L))] of k Laplace releases, in mpmath."""
    return _mp_laplace_integral(epsilon0, k, epsilon, dps, lambda gap: 1 - mp.exp(-gap))


def mp_laplace_exceeds(epsilon0, k, epsilon, dps=40):
    """P[L > epsilon] of k Laplace releases, in mpmath."""
    return _mp_laplace_integral(epsilon0, k, epsilon, dps, lambda gap: mp.mpf(1))


def mp_gaussian_delta(ratio, epsilon):
    """Balle & Wang's closed form at 40 digits: Phi(r/2 - e/r) - e^e Phi(-r/2 - e/r)."""
    with mp.workdps(40):
        r, e = mp.mpf(ratio), mp.mpf(epsilon)
        return mp.ncdf(r / 2 - e / r) - mp.exp(e) * mp.ncdf(-r / 2 - e / r)


def mp_optimal_delta(epsilon0, delta0, k, epsilon):
    """Kairouz-Oh-Viswanath / Murtagh-Vadhan by brute force over the binomial, at 50 digits."""
    with mp.workdps(50):
        e0, e = mp.mpf(epsilon0), mp.mpf(epsilon)
        total = mp.mpf(0)
        for i in range(k + 1):
            term = mp.exp((k - i) * e0) - mp.exp(e + i * e0)
            if term > 0:
                total += mp.binomial(k, i) * term
        pure = total / (1 + mp.exp(e0)) ** k
        kept = (1 - mp.mpf(delta0)) ** k
        return (1 - kept) + kept * pure


def mp_discrete_laplace_masses(scale, sensitivity, k):
    """Masses of O = o_1 + ... + o_k (one release: o <= 0, o in 1..sensitivity-1 or
    o >= sensitivity, clipped), by convolution at 50 digits; L = (k sensitivity - 2 O) / scale."""
    with mp.workdps(50):
        q = mp.exp(-1 / mp.mpf(scale))
        single = [q**o * (1 - q) / (1 + q) for o in range(sensitivity + 1)]
        single[0] = 1 / (1 + q)
        single[-1] = q**sensitivity / (1 + q)
        law = [mp.mpf(1)]
        for _ in range(k):
            new = [mp.mpf(0)] * (len(law) + sensitivity)
            for i, a in enumerate(law):
                for o, b in enumerate(single):
                    new[i + o] += a * b
            law = new
        return law


def mp_lattice_delta(scale, sensitivity, k, epsilon):
    law = mp_discrete_laplace_masses(scale, sensitivity, k)
    with mp.workdps(50):
        total = mp.mpf(0)
        for index, mass in enumerate(law):
            loss = (k * sensitivity - 2 * index) / mp.mpf(scale)
            if loss > epsilon:
                total += mass * (1 - mp.exp(mp.mpf(epsilon) - loss))
        return total


def relative(a, b):
    return abs(float(a) / float(b) - 1.0)


# ----------------------------------------------------------------------------------------
# Lessons 08 and 09's settings: COMP-2's ten Gaussian releases, two and a hundred Laplace
# ----------------------------------------------------------------------------------------


def test_gaussian_values_of_comp_2():
    composed = composition.compose(privacy_loss.gaussian(math.sqrt(3.0)), 10)
    assert composed.delta(1.0) == pytest.approx(0.4466107227909262, rel=1e-13)
    assert composed.epsilon_for_delta(1e-5) == pytest.approx(8.940357025390596, rel=1e-12)
    assert composition.compose(privacy_loss.gaussian(5.0), 100).delta(0.0) == pytest.approx(
        0.6826894921370859, rel=1e-13
    )


def test_laplace_values_of_two_releases():
    composed = composition.compose(privacy_loss.laplace(10.0), 2)
    assert composed.delta(0.0) == pytest.approx(0.049920711062242448, rel=1e-13)
    assert composed.delta(0.1) == pytest.approx(0.024989839886768141, rel=1e-13)
    assert composed.closed_form_delta(0.0) == pytest.approx(0.049920711062242448, rel=1e-13)
    assert composed.closed_form_delta(0.1) == pytest.approx(0.024989839886768141, rel=1e-13)


def test_epsilon_at_fixed_delta_for_ten_and_a_hundred_releases():
    delta = 1e-5
    assert composition.basic(0.1, 0.0, 10) == pytest.approx((1.0, 0.0))
    assert composition.basic(0.1, 0.0, 100) == pytest.approx((10.0, 0.0))
    assert composition.advanced(0.1, 0.0, 10, delta)[0] == pytest.approx(1.62259804746, rel=1e-11)
    assert composition.advanced(0.1, 0.0, 100, delta)[0] == pytest.approx(5.85023509294, rel=1e-11)
    assert composition.optimal_epsilon(0.1, 0.0, 100, delta) == pytest.approx(
        4.3067913725165, rel=1e-13
    )
    ten = composition.compose(privacy_loss.laplace(10.0), 10)
    assert ten.epsilon_for_delta(delta) == pytest.approx(0.98996231115, rel=1e-10)
    hundred = composition.compose(privacy_loss.laplace(10.0), 100).epsilon_for_delta(delta)
    assert 4.2203249647 <= hundred <= 4.2203473256


# ----------------------------------------------------------------------------------------
# Exact composition against mpmath
# ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("sigma", [0.3, 1.0, math.sqrt(3.0), 20.0])
@pytest.mark.parametrize("k", [1, 2, 10, 1000])
def test_gaussian_composition_is_the_gaussian_with_sigma_over_sqrt_k(sigma, k):
    composed = composition.compose(privacy_loss.gaussian(sigma), k)
    ratio = math.sqrt(k) / sigma
    for epsilon in [0.0, 0.3, 1.0, 5.0, 30.0]:
        reference = mp_gaussian_delta(ratio, epsilon)
        if reference > 1e-300:
            assert relative(composed.delta(epsilon), reference) < 1e-12
    assert composed.loss_mean == pytest.approx(k / (2 * sigma**2), rel=1e-14)
    assert composed.loss_std == pytest.approx(math.sqrt(k) / sigma, rel=1e-14)
    assert composition.gaussian_dp_mu(composed) == pytest.approx(ratio, rel=1e-14)


LAPLACE_CASES = [(0.1, k) for k in (1, 2, 3, 5, 8, 12)] + [(1.0, 4), (1.0, 12), (3.0, 7)]


@pytest.mark.parametrize(("epsilon0", "k"), LAPLACE_CASES)
def test_laplace_closed_form_and_tables_match_mpmath_up_to_twelve_releases(epsilon0, k):
    composed = composition.compose(privacy_loss.laplace(1.0 / epsilon0), k)
    top = k * epsilon0
    epsilons = [0.0, 0.013, epsilon0, 0.37 * top, 0.71 * top, 0.999 * top]
    for epsilon in [value for value in epsilons if value < top]:
        delta = mp_laplace_delta(epsilon0, k, epsilon)
        exceeds = mp_laplace_exceeds(epsilon0, k, epsilon)
        assert relative(composed.closed_form_delta(epsilon), delta) < 1e-9
        assert relative(composed.delta(epsilon), delta) < 1e-11
        assert relative(composed.closed_form_exceeds(epsilon), exceeds) < 1e-9
        assert relative(composed.loss_exceeds(epsilon), exceeds) < 1e-11
    assert composed.delta(top) == 0.0
    assert composed.loss_exceeds(top) == 0.0


@pytest.mark.parametrize(("epsilon0", "k", "dps"), [(0.1, 30, 60), (0.5, 60, 80)])
def test_laplace_tables_match_mpmath_for_many_releases(epsilon0, k, dps):
    composed = composition.compose(privacy_loss.laplace(1.0 / epsilon0), k)
    top = k * epsilon0
    for epsilon in [0.0, 0.21 * top, 0.5 * top, 0.9 * top]:
        assert (
            relative(composed.delta(epsilon), mp_laplace_delta(epsilon0, k, epsilon, dps)) < 1e-10
        )
        assert (
            relative(composed.loss_exceeds(epsilon), mp_laplace_exceeds(epsilon0, k, epsilon, dps))
            < 1e-10
        )


def test_laplace_closed_form_range_is_documented():
    assert composition.LAPLACE_CLOSED_FORM_MAX_K >= 12


def test_laplace_composition_moments_and_atoms():
    epsilon0, k = 0.1, 10
    composed = composition.compose(privacy_loss.laplace(10.0), k)
    assert composed.max_loss == pytest.approx(k * epsilon0)
    assert composed.max_loss_probability == 2.0**-k
    values, masses = composed.loss_atoms
    assert values[0] == pytest.approx(k * epsilon0) and masses[0] == pytest.approx(2.0**-k)
    for j in range(k + 1):
        expected = math.comb(k, j) * math.exp(-j * epsilon0) / 2**k
        assert masses[j] == pytest.approx(expected, rel=1e-13)
    # E[L] = k KL(Lap(0, b) || Lap(1, b)) = k (e0 + e^-e0 - 1); its variance from mpmath.
    assert composed.loss_mean == pytest.approx(k * (epsilon0 + math.exp(-epsilon0) - 1), rel=1e-13)
    with mp.workdps(40):
        e0 = mp.mpf(epsilon0)
        second = (e0**2) * (1 + mp.exp(-e0)) / 2 + mp.quad(
            lambda loss: loss**2 * mp.exp(-e0 / 2 + loss / 2) / 4, [-e0, e0]
        )
        variance = second - (e0 + mp.exp(-e0) - 1) ** 2
    assert composed.loss_std == pytest.approx(math.sqrt(k * float(variance)), rel=1e-12)
    # Total probability: atoms plus the integral of the density, between atoms (where it
    # is smooth) by Gauss-Legendre.
    nodes, weights = np.polynomial.legendre.leggauss(64)
    edges = np.sort(values)
    continuous = 0.0
    for left, right in zip(edges[:-1], edges[1:], strict=True):
        points = (left + right) / 2 + (right - left) / 2 * nodes
        continuous += (right - left) / 2 * weights @ composed.loss_density(points)
    assert continuous + masses.sum() == pytest.approx(1.0, abs=1e-14)


def test_laplace_cdf_density_and_quantile_agree():
    composed = composition.compose(privacy_loss.laplace(2.0), 9)
    x = np.linspace(-4.0, 4.0, 81)
    assert np.allclose(
        composed.loss_cdf(x) + composed.loss_exceeds(np.abs(x)) * 0, composed.loss_cdf(x)
    )
    values, masses = composed.loss_atoms
    # Away from atoms, the density is the derivative of the CDF.
    points = np.array([-3.1, -1.7, 0.3, 1.2, 3.3])
    step = 1e-6
    slope = (composed.loss_cdf(points + step) - composed.loss_cdf(points - step)) / (2 * step)
    assert np.allclose(slope, composed.loss_density(points), rtol=1e-6)
    # The quantile inverts P[L > q] = p on the continuous part and sits on atoms otherwise.
    p = np.linspace(0.0, 1.0, 201)
    q = composed.loss_quantile(p)
    assert np.all(np.diff(q) <= 1e-12)
    exceeds = composed.loss_exceeds(np.maximum(q, 0.0))
    positive = q > 0
    assert np.all(exceeds[positive] <= p[positive] + 1e-12)
    assert composed.loss_quantile(0.0) == composed.max_loss
    assert composed.loss_quantile(1.0) == -composed.max_loss
    # CDF from the bottom agrees with 1 - P[L > x] where both are accurate.
    middle = np.linspace(0.05, 4.0, 30)
    assert np.allclose(composed.loss_cdf(middle), 1 - composed.exceeds(middle), atol=1e-14)


@pytest.mark.parametrize(("scale", "sensitivity", "k"), [(2.0, 1, 8), (5.0, 3, 6), (0.7, 2, 10)])
def test_discrete_laplace_composition_matches_mpmath(scale, sensitivity, k):
    composed = composition.compose(privacy_loss.discrete_laplace(scale, sensitivity), k)
    top = k * sensitivity / scale
    for epsilon in [0.0, 0.1, 0.4 * top, 0.8 * top]:
        assert (
            relative(composed.delta(epsilon), mp_lattice_delta(scale, sensitivity, k, epsilon))
            < 1e-12
        )


def test_discrete_laplace_composition_by_brute_force_over_outputs():
    scale, k = 1.5, 3
    pair = privacy_loss.discrete_laplace(scale, 1)
    outputs = np.arange(-60, 62)
    p1, p2 = pair.density_d1(outputs), pair.density_d2(outputs)
    joint1 = p1[:, None, None] * p1[None, :, None] * p1[None, None, :]
    joint2 = p2[:, None, None] * p2[None, :, None] * p2[None, None, :]
    composed = composition.compose(pair, k)
    for epsilon in [0.0, 0.5, 1.2]:
        brute = np.maximum(joint1 - math.exp(epsilon) * joint2, 0.0).sum()
        assert composed.delta(epsilon) == pytest.approx(brute, rel=1e-12)


def test_two_laplace_releases_by_integration_over_both_outputs():
    # delta(0) is the total variation distance of the two product laws of (o1, o2),
    # integrated in mpmath over both outputs, split where the integrand has kinks.
    b = 10.0
    with mp.workdps(20):

        def density(o, centre):
            return mp.exp(-abs(o - centre) / b) / (2 * b)

        def inner(o1):
            # p1(o1) p1(o2) > p2(o1) p2(o2) iff l(o2) > -l(o1), l(o) = (|o - 1| - |o|) / b;
            # l falls from 1/b to -1/b on [0, 1], so the kink is at o2 = (1 + b l(o1)) / 2.
            loss = (abs(o1 - 1) - abs(o1)) / b
            kink = (1 + b * loss) / 2
            cuts = sorted({mp.mpf(0), mp.mpf(1), min(max(kink, mp.mpf(0)), mp.mpf(1))})
            a1, a2 = density(o1, 0), density(o1, 1)

            def integrand(o2):
                return max(a1 * density(o2, 0) - a2 * density(o2, 1), 0)

            return mp.quad(integrand, [-mp.inf, *cuts, mp.inf])

        total = mp.quad(inner, [-mp.inf, 0, 1, mp.inf])
    assert composition.compose(privacy_loss.laplace(b), 2).delta(0.0) == pytest.approx(
        float(total), rel=1e-12
    )


def test_delta_one_is_at_least_delta_two():
    for pair, k in [
        (privacy_loss.laplace(10.0), 10),
        (privacy_loss.laplace(0.5), 3),
        (privacy_loss.gaussian(2.0), 7),
        (privacy_loss.discrete_laplace(3.0, 2), 5),
    ]:
        composed = composition.compose(pair, k)
        epsilon = np.linspace(0.0, 1.2 * min(composed.max_loss, 12.0), 97)
        assert np.all(composed.loss_exceeds(epsilon) >= composed.delta(epsilon))


def test_one_release_is_the_pair_itself():
    for pair in [
        privacy_loss.laplace(0.7),
        privacy_loss.gaussian(1.3),
        privacy_loss.discrete_laplace(2.0, 2),
    ]:
        composed = composition.compose(pair, 1)
        epsilon = np.linspace(0.0, 3.0, 31)
        assert np.allclose(composed.delta(epsilon), pair.delta(epsilon), rtol=1e-12, atol=1e-15)
        assert np.allclose(composed.loss_exceeds(epsilon), pair.loss_exceeds(epsilon), atol=1e-15)


def test_composing_a_composition_multiplies_k():
    pair = privacy_loss.laplace(4.0)
    assert composition.compose(composition.compose(pair, 3), 4) == composition.compose(pair, 12)


# ----------------------------------------------------------------------------------------
# Bounds from (epsilon0, delta0)
# ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("epsilon0", "delta0", "k"),
    [(0.1, 0.0, 10), (0.1, 0.0, 100), (0.5, 1e-6, 30), (1.0, 0.0, 1000)],
)
def test_optimal_delta_matches_brute_force(epsilon0, delta0, k):
    epsilons = np.array([0.0, 0.5, 2.0, 0.5 * k * epsilon0, 0.9 * k * epsilon0])
    ours = composition.optimal_delta(epsilon0, delta0, k, epsilons)
    for value, epsilon in zip(ours, epsilons, strict=True):
        reference = mp_optimal_delta(epsilon0, delta0, k, epsilon)
        if reference == 0:
            assert value == 0.0
        else:
            assert relative(value, reference) < 1e-12
    # Alone or in an array, the same answer.
    assert composition.optimal_delta(epsilon0, delta0, k, float(epsilons[2])) == ours[2]


def test_optimal_epsilon_inverts_optimal_delta():
    for epsilon0, delta0, k in [(0.1, 0.0, 10), (0.1, 0.0, 100), (0.3, 1e-7, 250)]:
        for delta in [1e-10, 1e-5, 0.01, 0.3]:
            epsilon = composition.optimal_epsilon(epsilon0, delta0, k, delta)
            if epsilon == math.inf:
                assert delta < -math.expm1(k * math.log1p(-delta0))
                continue
            assert composition.optimal_delta(epsilon0, delta0, k, epsilon) <= delta
            if epsilon > 0:
                below = epsilon * (1 - 1e-9)
                assert composition.optimal_delta(epsilon0, delta0, k, below) > delta
    # delta below 1 - (1 - delta0)^k cannot be reached.
    assert composition.optimal_epsilon(0.1, 1e-3, 10, 1e-3) == math.inf


def test_orderings_exact_optimal_advanced_basic():
    delta = 1e-5
    for k in [10, 100]:
        exact = composition.compose(privacy_loss.laplace(10.0), k).epsilon_for_delta(delta)
        optimal = composition.optimal_epsilon(0.1, 0.0, k, delta)
        advanced = composition.advanced(0.1, 0.0, k, delta)[0]
        basic = composition.basic(0.1, 0.0, k)[0]
        assert exact <= optimal <= basic
        assert optimal <= advanced
    # Advanced beats basic from k > 2 ln(1/delta') / (2 - e^e0)^2 on (28.8 here).
    first = next(k for k in range(1, 1000) if composition.advanced(0.1, 0.0, k, delta)[0] < 0.1 * k)
    assert first == math.ceil(2 * math.log(1 / delta) / (2 - math.exp(0.1)) ** 2) == 29
    # Delta side: exact <= optimal at every epsilon.
    epsilon = np.linspace(0.0, 3.0, 31)
    exact_delta = composition.compose(privacy_loss.laplace(10.0), 100).delta(epsilon)
    assert np.all(exact_delta <= composition.optimal_delta(0.1, 0.0, 100, epsilon) * (1 + 1e-12))


def test_advanced_delta_inverts_advanced():
    for k in [10, 100, 1000]:
        for slack in [1e-9, 1e-5, 0.1]:
            epsilon = composition.advanced(0.1, 0.0, k, slack)[0]
            assert composition.advanced_delta(0.1, k, epsilon) == pytest.approx(slack, rel=1e-9)
    assert composition.advanced_delta(0.1, 100, 0.5) == 1.0  # below k e0 (e^e0 - 1)


# ----------------------------------------------------------------------------------------
# Privacy loss distributions
# ----------------------------------------------------------------------------------------

BRACKET_CASES = [
    (privacy_loss.gaussian(math.sqrt(3.0)), [1, 10, 40]),
    (privacy_loss.laplace(10.0), [1, 5, 12, 100]),
    (privacy_loss.laplace(1.0), [3, 12]),
    (privacy_loss.discrete_laplace(3.0, 2), [1, 7]),
]


@pytest.mark.parametrize(("pair", "ks"), BRACKET_CASES, ids=lambda v: type(v).__name__)
@pytest.mark.parametrize("grid_width", [1e-2, 1e-3])
@pytest.mark.parametrize("connect_dots", [False, True])
def test_pld_bracket_contains_the_exact_delta(pair, ks, grid_width, connect_dots):
    for k in ks:
        exact_pair = composition.compose(pair, k)
        top = min(exact_pair.max_loss, 12.0)
        epsilon = np.linspace(0.0, top, 25)
        bracket = composition.pld_bracket(pair, k, grid_width, connect_dots=connect_dots)
        low, high = bracket.delta(epsilon)
        exact = exact_pair.delta(epsilon)
        slack = 1e-12 * exact + 1e-15  # grid losses that are exactly on an atom
        assert np.all(low <= exact + slack), (k, epsilon[low > exact + slack])
        assert np.all(exact <= high + slack), (k, epsilon[exact > high + slack])
        eps_low, eps_high = bracket.epsilon_for_delta(1e-5)
        exact_epsilon = exact_pair.epsilon_for_delta(1e-5)
        assert eps_low <= exact_epsilon * (1 + 1e-12) and exact_epsilon <= eps_high * (1 + 1e-12)


def test_pld_bracket_narrows_with_the_grid():
    pair = privacy_loss.laplace(10.0)
    widths = [composition.pld_bracket(pair, 20, h).width(0.5) for h in (1e-2, 1e-3, 1e-4)]
    assert widths[0] > widths[1] > widths[2] > 0


def test_heterogeneous_composition_of_gaussians():
    # Two Gaussian releases compose to the Gaussian with 1 / sigma^2 = 1 / s1^2 + 1 / s2^2.
    first, second = privacy_loss.gaussian(1.0), privacy_loss.gaussian(2.0)
    exact = privacy_loss.gaussian(1.0 / math.sqrt(1.0 + 0.25))
    epsilon = np.linspace(0.0, 4.0, 21)
    for pessimistic in (False, True):
        h = 1e-3
        composed = composition.pld(first, h, pessimistic=pessimistic).compose(
            composition.pld(second, h, pessimistic=pessimistic)
        )
        values = composed.delta(epsilon)
        if pessimistic:
            assert np.all(values >= exact.delta(epsilon) * (1 - 1e-12))
        else:
            assert np.all(values <= exact.delta(epsilon) * (1 + 1e-12))
        assert np.allclose(values, exact.delta(epsilon), rtol=2e-2)
    with pytest.raises(ValueError, match="grid_width"):
        composition.pld(first, 1e-3).compose(composition.pld(second, 1e-2))
    with pytest.raises(ValueError, match="pessimistic"):
        composition.pld(first, 1e-3).compose(composition.pld(second, 1e-3, pessimistic=False))


def test_pld_layout():
    distribution = composition.pld(privacy_loss.laplace(10.0), 1e-3)
    assert distribution.grid_width == 1e-3
    assert distribution.losses[0] == pytest.approx(-0.1)
    assert distribution.losses[-1] == pytest.approx(0.1)
    assert distribution.masses.sum() + distribution.infinity_mass == pytest.approx(1.0, abs=1e-14)
    gaussian = composition.pld(privacy_loss.gaussian(1.0), 1e-2)
    assert 0 < gaussian.infinity_mass <= 1e-15


@pytest.mark.parametrize("scale", [10.0, 1.0, 0.3, 0.01])
@pytest.mark.parametrize("grid_width", [1e-3, 0.013])
@pytest.mark.parametrize("pessimistic", [False, True])
def test_one_laplace_pld_masses_match_mpmath(scale, grid_width, pessimistic):
    # Each grid point holds the continuous mass of its cell, (i-1, i] h rounding up or
    # [i, i+1) h rounding down, from the CDF (e^(-e0 w) - e^-e0) / 2 at w = (e0 - t) / (2 e0),
    # plus the atoms 1/2 at e0 and e^-e0 / 2 at -e0 (e0 and the grid points as the floats
    # the PLD uses, so that an atom on a grid point is placed the same way).
    pair = privacy_loss.laplace(scale)
    distribution = composition.pld(pair, grid_width, pessimistic=pessimistic)
    indices = distribution.lowest_index + np.arange(distribution.masses.size)
    with mp.workdps(40):
        e0 = mp.mpf(pair.max_loss)

        def cdf(t):
            w = (e0 - min(max(t, -e0), e0)) / (2 * e0)
            return (mp.exp(-e0 * w) - mp.exp(-e0)) / 2

        atoms = [(e0, mp.mpf(1) / 2), (-e0, mp.exp(-e0) / 2)]
        every = max(1, indices.size // 300)  # both ends and ~300 points between
        chosen = np.unique(np.concatenate([indices[::every], indices[:3], indices[-3:]]))
        for index in chosen:
            mass = distribution.masses[index - distribution.lowest_index]
            near = [mp.mpf(float(i * grid_width)) for i in (index - 1, index, index + 1)]
            low, high = (near[0], near[1]) if pessimistic else (near[1], near[2])
            expected = cdf(high) - cdf(low)
            for value, atom in atoms:
                if (low < value <= high) if pessimistic else (low <= value < high):
                    expected += atom
            assert float(mass) == pytest.approx(float(expected), rel=1e-12, abs=1e-300)


def test_bracket_transform_matches_separate_compositions():
    # The bracket composes both PLDs in one two-row transform on kept work arrays: where
    # both lie on the same grid points, the same numbers as two self_compose calls,
    # whatever the lengths before (the Gaussian's two PLDs do not: it only runs between,
    # to change the length of the work arrays).
    cases = [
        (privacy_loss.laplace(10.0), 100, 1e-3),
        (privacy_loss.discrete_laplace(1.0), 7, 1e-2),
        (privacy_loss.laplace(10.0), 100, 1e-3),
        (privacy_loss.laplace(1.0), 3, 1e-2),
    ]
    composition.pld_bracket(privacy_loss.gaussian(2.0), 30, 1e-3)
    for pair, k, grid_width in cases:
        for connect_dots in (False, True):
            bracket = composition.pld_bracket(pair, k, grid_width, connect_dots=connect_dots)
            separate = (
                composition.pld(pair, grid_width, pessimistic=False).self_compose(k),
                composition.pld(pair, grid_width, connect_dots=connect_dots).self_compose(k),
            )
            for ours, reference in zip(
                (bracket.optimistic, bracket.pessimistic), separate, strict=True
            ):
                assert ours.lowest_index == reference.lowest_index
                np.testing.assert_array_equal(ours.masses, reference.masses)
                assert ours.infinity_mass == reference.infinity_mass
                assert ours.pessimistic == reference.pessimistic


def test_a_move_of_k_reuses_one_releases_transform_and_gives_the_same_bracket(monkeypatch):
    # One Laplace release's two grid PLDs are kept, and their two-row transform from the
    # second bracket at a length on: then a bracket for another k takes no forward
    # transform, and gives bit for bit what a bracket from nothing gives.
    import sys

    pair, grid_width, ks = privacy_loss.laplace(10.0), 1e-3, (100, 99, 7)
    fresh = {}
    for k in ks:
        composition._ONE_RELEASE_BRACKETS.clear()
        fresh[k] = composition.pld_bracket(pair, k, grid_width, connect_dots=True)
    for k in ks + ks:
        composition.pld_bracket(pair, k, grid_width, connect_dots=True)

    def refuse(*args, **kwargs):
        raise AssertionError("a forward transform was taken again")

    monkeypatch.setattr(sys.modules["dplearn.composition._fft"], "transform", refuse)
    for k in (99, 100, 7, 100):
        kept = composition.pld_bracket(pair, k, grid_width, connect_dots=True)
        for ours, reference in zip(
            (kept.optimistic, kept.pessimistic),
            (fresh[k].optimistic, fresh[k].pessimistic),
            strict=True,
        ):
            assert ours.lowest_index == reference.lowest_index
            np.testing.assert_array_equal(ours.masses, reference.masses)
            assert ours.infinity_mass == reference.infinity_mass
    monkeypatch.undo()
    # Another release builds its own.
    kept_before = len(composition._ONE_RELEASE_BRACKETS)
    composition.pld_bracket(privacy_loss.laplace(5.0), 100, grid_width, connect_dots=True)
    assert len(composition._ONE_RELEASE_BRACKETS) == kept_before + 1


# ----------------------------------------------------------------------------------------
# dp_accounting as an oracle
# ----------------------------------------------------------------------------------------


def _dp_accounting_bracket(kind, parameter, k, grid_width):
    from dp_accounting.pld import privacy_loss_distribution as plds

    build = {
        "laplace": plds.from_laplace_mechanism,
        "gaussian": plds.from_gaussian_mechanism,
        "discrete_laplace": plds.from_discrete_laplace_mechanism,
    }[kind]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import logging

        logging.getLogger().setLevel(logging.ERROR)
        optimistic = build(
            parameter, pessimistic_estimate=False, value_discretization_interval=grid_width
        ).self_compose(k)
        pessimistic = build(
            parameter, pessimistic_estimate=True, value_discretization_interval=grid_width
        ).self_compose(k)
    return optimistic, pessimistic


@pytest.mark.parametrize(
    ("kind", "parameter", "pair", "k"),
    [
        ("laplace", 10.0, privacy_loss.laplace(10.0), 10),
        ("laplace", 10.0, privacy_loss.laplace(10.0), 100),
        ("laplace", 1.0, privacy_loss.laplace(1.0), 7),
        ("gaussian", math.sqrt(3.0), privacy_loss.gaussian(math.sqrt(3.0)), 10),
        ("discrete_laplace", 1 / 3.0, privacy_loss.discrete_laplace(3.0), 9),
    ],
)
def test_dp_accounting_brackets_the_exact_values(kind, parameter, pair, k):
    optimistic, pessimistic = _dp_accounting_bracket(kind, parameter, k, 1e-4)
    composed = composition.compose(pair, k)
    epsilon = np.linspace(0.0, min(composed.max_loss, 10.0) * 0.95, 12)
    low = np.asarray(optimistic.get_delta_for_epsilon(epsilon))
    high = np.asarray(pessimistic.get_delta_for_epsilon(epsilon))
    exact = composed.delta(epsilon)
    assert np.all(low <= exact * (1 + 1e-9) + 1e-15)
    assert np.all(exact <= high * (1 + 1e-9) + 1e-15)
    exact_epsilon = composed.epsilon_for_delta(1e-5)
    assert optimistic.get_epsilon_for_delta(1e-5) <= exact_epsilon * (1 + 1e-12)
    assert exact_epsilon <= pessimistic.get_epsilon_for_delta(1e-5) * (1 + 1e-12)


def test_our_bracket_is_no_wider_than_dp_accounting():
    optimistic, pessimistic = _dp_accounting_bracket("laplace", 10.0, 100, 1e-3)
    ours = composition.pld_bracket(privacy_loss.laplace(10.0), 100, 1e-3, connect_dots=True)
    epsilon = np.array([0.5, 1.0, 2.0, 3.0, 4.0])
    theirs = np.asarray(pessimistic.get_delta_for_epsilon(epsilon)) - np.asarray(
        optimistic.get_delta_for_epsilon(epsilon)
    )
    assert np.all(ours.width(epsilon) <= theirs * (1 + 1e-6))


# ----------------------------------------------------------------------------------------
# The hypothesis-test view
# ----------------------------------------------------------------------------------------


def test_gaussian_tradeoff_is_g_mu():
    alpha = np.linspace(0.0, 1.0, 101)
    with mp.workdps(30):
        mu = mp.mpf(1.3)
        expected = [
            mp.ncdf(-mp.sqrt(2) * mp.erfinv(2 * mp.mpf(a) - 1) - mu) if 0 < a < 1 else 1 - a
            for a in alpha
        ]
    assert np.allclose(
        composition.gaussian_tradeoff(1.3, alpha), np.array(expected, float), atol=1e-15
    )
    composed = composition.compose(privacy_loss.gaussian(2.0), 9)
    assert np.allclose(
        composition.tradeoff(composed, alpha), composition.gaussian_tradeoff(1.5, alpha)
    )


def test_laplace_tradeoff_of_one_release():
    # Dong, Roth & Su (2019): f(a) = 1 - e^e0 a, then e^-e0 / (4 a), then e^-e0 (1 - a).
    epsilon0 = 0.8
    alpha = np.linspace(0.0, 1.0, 201)
    knee = math.exp(-epsilon0) / 2
    expected = np.where(
        alpha < knee,
        1 - math.exp(epsilon0) * alpha,
        np.where(
            alpha <= 0.5,
            math.exp(-epsilon0) / (4 * np.maximum(alpha, 1e-300)),
            math.exp(-epsilon0) * (1 - alpha),
        ),
    )
    assert np.allclose(
        composition.tradeoff(privacy_loss.laplace(1 / epsilon0), alpha), expected, atol=1e-14
    )


@pytest.mark.parametrize(
    ("pair", "k"),
    [
        (privacy_loss.laplace(2.0), 6),
        (privacy_loss.laplace(10.0), 5),
        (privacy_loss.laplace(20.0), 5),
        (privacy_loss.discrete_laplace(1.5), 4),
    ],
)
def test_tradeoff_and_delta_are_dual(pair, k):
    # delta(epsilon) = max over alpha of 1 - alpha - e^epsilon f(alpha) (Dong, Roth & Su,
    # Proposition 2.12), checked on a fine alpha grid: a test independent of how the
    # trade-off curve is computed.
    composed = composition.compose(pair, k)
    alpha = np.linspace(0.0, 1.0, 200001)
    beta = composition.tradeoff(composed, alpha)
    assert np.all(np.diff(beta) <= 1e-15)
    for epsilon in [0.0, 0.4, 1.0, 2.0]:
        dual = np.max(1 - alpha - math.exp(epsilon) * beta)
        assert dual == pytest.approx(composed.delta(epsilon), abs=2e-5)
        assert dual <= composed.delta(epsilon) + 1e-12


@pytest.mark.parametrize(
    ("epsilon0", "k", "alpha", "expected"),
    [
        # Neyman-Pearson in mpmath at 50 digits, randomising on the atoms: the law of the
        # sum as atoms plus Irwin-Hall pieces, integrated with incomplete gamma functions.
        (0.1, 5, 0.05, 0.9253307268),
        (0.1, 5, 0.1, 0.8578377864),
        (0.1, 10, 0.01, 0.9787089283),
        (0.1, 10, 0.1, 0.8349352633),
        (0.5, 2, 0.05, 0.8640859086),
    ],
)
def test_laplace_tradeoff_when_the_threshold_sits_on_an_atom(epsilon0, k, alpha, expected):
    # At these settings the threshold is an atom of the loss, whose index comes out a few
    # ulps off a whole number: counting the atom on the wrong side drives beta to 1.
    composed = composition.compose(privacy_loss.laplace(1 / epsilon0), k)
    assert composition.tradeoff(composed, alpha) == pytest.approx(expected, abs=2e-10)


@pytest.mark.parametrize("epsilon0", [0.05, 0.1, 0.3, 1.0])
@pytest.mark.parametrize("k", [2, 5, 10, 30])
def test_more_releases_never_make_the_attacker_s_test_worse(epsilon0, k):
    # beta falls with alpha, and k releases are at least as easy to tell apart as one.
    pair = privacy_loss.laplace(1 / epsilon0)
    alpha = np.linspace(0.0, 1.0, 4001)
    beta = composition.tradeoff(composition.compose(pair, k), alpha)
    assert np.all(np.diff(beta) <= 1e-12)
    assert np.all(beta <= composition.tradeoff(pair, alpha) + 1e-12)


def test_clt_mu_and_where_the_clt_falls_below():
    gaussian = privacy_loss.gaussian(2.0)
    assert composition.clt_mu(gaussian, 16) == pytest.approx(2.0, rel=1e-14)
    epsilon0, k = 1.0, 10
    laplace = privacy_loss.laplace(1 / epsilon0)
    composed = composition.compose(laplace, 1)
    assert composition.clt_mu(laplace, k) == pytest.approx(
        2 * math.sqrt(k) * composed.loss_mean / composed.loss_std, rel=1e-14
    )
    alpha = np.linspace(0.0, 1.0, 1001)
    gap = composition.clt_gap(laplace, k, alpha)
    # An approximation, not a bound: it is below the exact curve somewhere.
    assert np.min(gap) < -1e-3
    assert abs(gap[0]) < 1e-15 and abs(gap[-1]) < 1e-15


# ----------------------------------------------------------------------------------------
# Bad input, and the contract of tests/test_contract.py
# ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: composition.compose(privacy_loss.laplace(1.0), 0), "k"),
        (lambda: composition.compose(privacy_loss.laplace(1.0), 2.5), "k"),
        (lambda: composition.compose(privacy_loss.laplace(1.0), True), "k"),
        (lambda: composition.compose(privacy_loss.laplace(1.0), "3"), "k"),
        (lambda: composition.compose(privacy_loss.thresholded_laplace(1.0, 5.0), 2), "pair"),
        (lambda: composition.compose("laplace", 2), "pair"),
        (lambda: composition.compose(privacy_loss.laplace(1.0), 10**6), "k"),
        (lambda: composition.compose(privacy_loss.laplace(1.0), 3).delta(-0.1), "epsilon"),
        (lambda: composition.compose(privacy_loss.gaussian(1.0), 3).delta(np.nan), "epsilon"),
        (lambda: composition.compose(privacy_loss.laplace(1.0), 3).epsilon_for_delta(0.0), "delta"),
        (lambda: composition.compose(privacy_loss.laplace(1.0), 3).epsilon_for_delta(1.0), "delta"),
        (lambda: composition.compose(privacy_loss.laplace(1.0), 3).loss_quantile(1.5), "p"),
        (lambda: composition.basic(0.0, 0.0, 3), "epsilon0"),
        (lambda: composition.basic(1.0, 1.0, 3), "delta0"),
        (lambda: composition.advanced(1.0, 0.0, 3, 0.0), "delta_slack"),
        (lambda: composition.advanced(1.0, 0.0, -1, 0.1), "k"),
        (lambda: composition.optimal_delta(1.0, 0.0, 3, -1.0), "epsilon"),
        (lambda: composition.optimal_epsilon(1.0, 0.0, 3, 2.0), "delta"),
        (lambda: composition.optimal_epsilon(np.array([1.0, 2.0]), 0.0, 3, 0.1), "epsilon0"),
        (lambda: composition.pld(privacy_loss.laplace(1.0), 0.0), "grid_width"),
        (lambda: composition.pld(privacy_loss.laplace(1.0), -1e-3), "grid_width"),
        (
            lambda: composition.pld(privacy_loss.laplace(1.0), 1e-3, pessimistic="yes"),
            "pessimistic",
        ),
        (lambda: composition.pld(privacy_loss.laplace(1.0), 1e-9), "grid_width"),
        (lambda: composition.pld_bracket(privacy_loss.laplace(1.0), 0, 1e-3), "k"),
        (lambda: composition.gaussian_tradeoff(-1.0, 0.5), "mu"),
        (lambda: composition.tradeoff(privacy_loss.laplace(1.0), 1.5), "alpha"),
        (lambda: composition.gaussian_dp_mu(privacy_loss.laplace(1.0)), "pair"),
        (lambda: composition.clt_mu(privacy_loss.laplace(1.0), 0), "k"),
    ],
)
def test_bad_input_names_the_parameter(call, name):
    with pytest.raises(ValueError, match=name):
        call()


PAIRS = st.sampled_from(["laplace", "gaussian", "discrete_laplace"])


@settings(max_examples=60, deadline=None)
@given(
    kind=PAIRS,
    parameter=st.floats(0.05, 30.0),
    k=st.integers(1, 60),
    epsilon=st.floats(0.0, 1e3, allow_subnormal=True),
)
def test_contract_no_nan_no_warning_same_alone_or_in_an_array(kind, parameter, k, epsilon):
    build = {
        "laplace": lambda: privacy_loss.laplace(parameter),
        "gaussian": lambda: privacy_loss.gaussian(parameter),
        "discrete_laplace": lambda: privacy_loss.discrete_laplace(parameter),
    }[kind]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        composed = composition.compose(build(), k)
        alone = composed.delta(epsilon)
        together = composed.delta(np.array([0.0, epsilon, 2 * epsilon]))
        assert together[1] == alone
        assert 0.0 <= alone <= 1.0 and not math.isnan(alone)
        exceeds = composed.loss_exceeds(epsilon)
        assert alone <= exceeds + 1e-15 and 0.0 <= exceeds <= 1.0
        assert 0.0 <= composed.loss_cdf(-epsilon) <= 1.0
        quantile = composed.loss_quantile(np.array([0.0, 0.3, 1.0]))
        assert not np.any(np.isnan(quantile))
        target = composed.epsilon_for_delta(1e-6)
        assert target >= 0 and not math.isnan(target)
        if math.isfinite(target):
            assert composed.delta(target) <= 1e-6


@settings(max_examples=40, deadline=None)
@given(
    epsilon0=st.floats(1e-3, 5.0),
    k=st.integers(1, 1000),
    epsilon=st.floats(0.0, 1e4),
    delta=st.floats(1e-300, 0.999),
)
def test_bounds_contract(epsilon0, k, epsilon, delta):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        value = composition.optimal_delta(epsilon0, 0.0, k, epsilon)
        assert 0.0 <= value <= 1.0
        assert composition.optimal_delta(epsilon0, 0.0, k, np.array([epsilon]))[0] == value
        target = composition.optimal_epsilon(epsilon0, 0.0, k, delta)
        assert target >= 0
        if math.isfinite(target):
            assert composition.optimal_delta(epsilon0, 0.0, k, target) <= delta
        slack = composition.advanced_delta(epsilon0, k, epsilon)
        assert 0.0 <= slack <= 1.0


# ----------------------------------------------------------------------------------------
# Wide ranges and the helpers the figures use
# ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(("epsilon0", "k"), [(5.0, 9), (10.0, 5), (20.0, 11), (2.0, 12)])
def test_laplace_with_a_large_epsilon0_matches_the_closed_form(epsilon0, k):
    # Large epsilon0: the exponential varies fast within a piece (cut into cells); the
    # closed form's alternating sums are benign there (each term is e^(-j e0) smaller).
    composed = composition.compose(privacy_loss.laplace(1.0 / epsilon0), k)
    top = k * epsilon0
    epsilon = np.array([0.0, 0.3, 0.31 * top, 0.77 * top, 0.999 * top])
    assert np.allclose(composed.delta(epsilon), composed.closed_form_delta(epsilon), rtol=1e-11)
    assert np.allclose(
        composed.loss_exceeds(epsilon), composed.closed_form_exceeds(epsilon), rtol=1e-11
    )
    reference = mp_laplace_delta(epsilon0, k, float(epsilon[3]))
    assert relative(composed.delta(epsilon[3]), reference) < 1e-11


def test_laplace_lower_tail_against_mpmath():
    # P[L <= x] far below the mean, summed from the bottom: no 1 - (almost 1).
    epsilon0, k = 1.0, 10
    composed = composition.compose(privacy_loss.laplace(1.0), k)
    for x in [-9.5, -7.0, -3.3]:
        below = 1 - mp_laplace_exceeds(epsilon0, k, x, dps=50)
        assert relative(composed.loss_cdf(x), below) < 1e-11


def test_laplace_epsilon_for_many_k_is_the_same_as_one_by_one():
    ks = np.array([1, 2, 5, 17, 40, 100])
    together = composition.laplace_epsilon_for_delta(0.1, ks, 1e-5)
    alone = [
        composition.compose(privacy_loss.laplace(10.0), int(k)).epsilon_for_delta(1e-5) for k in ks
    ]
    assert np.array_equal(together, alone)
    assert together[-1] == pytest.approx(
        composition.compose(privacy_loss.laplace(10.0), 100).epsilon_for_delta(1e-5)
    )
    with pytest.raises(ValueError, match="k"):
        composition.laplace_epsilon_for_delta(0.1, [0, 3], 1e-5)


def test_epsilon_for_delta_is_the_smallest_safe_epsilon():
    for pair, k in [
        (privacy_loss.laplace(10.0), 100),
        (privacy_loss.laplace(0.05), 11),
        (privacy_loss.gaussian(1.0), 7),
    ]:
        composed = composition.compose(pair, k)
        targets = np.array([1e-300, 1e-30, 1e-12, 1e-6, 0.01, 0.2, 0.9])
        epsilon = composed.epsilon_for_delta(targets)
        assert np.all(composed.delta(epsilon) <= targets)
        below = np.nextafter(epsilon, 0.0)
        smallest = (
            (epsilon == 0) | (composed.delta(below) > targets) | (epsilon == composed.max_loss)
        )
        assert np.all(smallest)


def test_bounds_over_arrays_of_k():
    ks = np.array([1, 10, 100, 1000])
    epsilon, delta = composition.basic(0.1, 1e-6, ks)
    assert np.allclose(epsilon, 0.1 * ks) and np.allclose(delta, 1e-6 * ks)
    epsilon, delta = composition.advanced(0.1, 0.0, ks, 1e-5)
    for value, k in zip(epsilon, ks, strict=True):
        assert value == composition.advanced(0.1, 0.0, int(k), 1e-5)[0]


def test_many_gaussian_releases_by_repeated_squaring():
    # 1000 releases on a fine grid: the one-shot transform would need 16 million points,
    # so the PLD is squared with cuts; the bracket still holds the exact value.
    pair = privacy_loss.gaussian(1.0)
    bracket = composition.pld_bracket(pair, 1000, 1e-3)
    exact = composition.compose(pair, 1000)
    epsilon = np.array([600.0, 630.0, 640.0])
    low, high = bracket.delta(epsilon)
    assert np.all(low <= exact.delta(epsilon) * (1 + 1e-12))
    assert np.all(exact.delta(epsilon) <= high * (1 + 1e-12))
    assert bracket.pessimistic.masses.size < 10**6


def test_optimal_composition_for_a_million_releases():
    epsilon = composition.optimal_epsilon(1e-3, 0.0, 10**6, 1e-5)
    assert composition.optimal_delta(1e-3, 0.0, 10**6, epsilon) <= 1e-5
    assert composition.optimal_delta(1e-3, 0.0, 10**6, epsilon * (1 - 1e-9)) > 1e-5
    # Below the advanced bound, above the CLT-like sqrt(2 k ln(1/delta)) e0 heuristic's half.
    assert epsilon < composition.advanced(1e-3, 0.0, 10**6, 1e-5)[0]


def test_tradeoff_is_its_own_inverse_down_to_tiny_alpha():
    # The Laplace and discrete Laplace pairs are symmetric, so f(f(alpha)) = alpha; with
    # 100 releases the curve reaches alpha = 1e-30 at beta ~ 1e-3, far from 1 - alpha.
    for pair, k in [(privacy_loss.laplace(1.0), 100), (privacy_loss.discrete_laplace(1.0), 50)]:
        composed = composition.compose(pair, k)
        alpha = np.array([1e-30, 1e-12, 1e-6, 1e-3, 0.1, 0.3, 0.5])
        beta = composition.tradeoff(composed, alpha)
        back = composition.tradeoff(composed, beta)
        assert np.allclose(back[1:], alpha[1:], rtol=1e-8)
        assert np.all(np.diff(beta) < 0)


def test_the_bracket_at_a_fine_grid():
    # 100 releases of epsilon0 = 0.1 on a grid of 1e-5 (transforms in long double): the
    # bracket [4.2203249647, 4.2203473256], to 1e-10, around the exact value.
    bracket = composition.pld_bracket(privacy_loss.laplace(10.0), 100, 1e-5, connect_dots=True)
    low, high = bracket.epsilon_for_delta(1e-5)
    exact = composition.compose(privacy_loss.laplace(10.0), 100).epsilon_for_delta(1e-5)
    assert low <= exact <= high
    assert low == pytest.approx(4.2203249647, abs=1e-9)
    assert high == pytest.approx(4.2203473256, abs=1e-9)


# ----------------------------------------------------------------------------------------
# Windows shorter than the k-fold support
# ----------------------------------------------------------------------------------------


def _composed_by_convolution(masses, k):
    """The k-fold composition by direct sums of products (positive terms: no cancellation)."""
    composed = np.array([1.0])
    for _ in range(k):
        composed = np.convolve(composed, masses)
    return composed


@pytest.mark.parametrize(
    ("pair", "grid_width", "k"),
    [
        (privacy_loss.laplace(10.0), 1e-2, 60),
        (privacy_loss.gaussian(1.0), 5e-2, 30),
        (privacy_loss.discrete_laplace(3.0, 2), 1e-2, 40),
        (privacy_loss.laplace(1.0), 2e-2, 25),
    ],
    ids=["laplace", "gaussian", "discrete_laplace", "laplace_wide"],
)
@pytest.mark.parametrize("pessimistic", [False, True])
def test_the_chernoff_window_leaves_at_most_outside_beyond_each_end(
    pair, grid_width, k, pessimistic
):
    from dplearn.composition import _tails

    masses = composition.pld(pair, grid_width, pessimistic=pessimistic).masses
    composed = _composed_by_convolution(masses, k)
    for outside in (1e-4, 1e-9, 1e-15, 1e-18):
        low, high = _tails.composed_window(masses, k, outside)
        assert 0 <= low <= high <= composed.size - 1
        assert composed[:low].sum() <= outside
        assert composed[high + 1 :].sum() <= outside
        # Not the whole support for nothing: a twentieth narrower at its lower end, the
        # window leaves more than outside below it where the bound is not at the support.
        if outside == 1e-4:
            assert composed[: low + (high - low) // 20].sum() > 0.1 * outside
    # Rows in one call: each row's window holds its own bound, and is the one a call for
    # that row alone finds (to an index: one set of orders serves both rows).
    rows = np.stack([masses, masses[::-1]])
    for row, (low, high) in zip(rows, _tails.composed_window(rows, k, 1e-9), strict=True):
        row_composed = _composed_by_convolution(row, k)
        assert row_composed[:low].sum() <= 1e-9 and row_composed[high + 1 :].sum() <= 1e-9
        alone = _tails.composed_window(row.copy(), k, 1e-9)
        assert abs(low - alone[0]) <= 1 and abs(high - alone[1]) <= 1
    # A law of one point is composed on its whole (one-point) support.
    assert _tails.composed_window(np.array([1.0]), k, 1e-9) == (0, 0)


def test_the_chernoff_window_of_a_spike_with_far_atoms():
    # Nearly all mass on one point, a little at both far ends: the Gaussian's best order
    # would overflow the exponentials, so smaller ones are taken; the bound still holds.
    from dplearn.composition import _tails

    masses = np.zeros(2001)
    masses[[0, 1000, 2000]] = [1e-12, 1.0 - 2e-12, 1e-12]
    for k in (2, 5):
        composed = _composed_by_convolution(masses, k)
        for outside in (1e-9, 1e-13):
            low, high = _tails.composed_window(masses, k, outside)
            assert composed[:low].sum() <= outside
            assert composed[high + 1 :].sum() <= outside


def test_a_window_that_wraps_mass_around_keeps_the_bracket_sound(monkeypatch):
    # With a million times more mass allowed outside the window than the lessons allow
    # (more than the tails cut), the mass the shorter transform wraps into it is far above
    # round-off and the cuts: both ends must still hold the exact delta.
    pld_module = sys.modules["dplearn.composition.pld"]
    pair, k, grid_width, tail_mass = privacy_loss.laplace(10.0), 100, 1e-3, 1e-15
    exact = composition.compose(pair, k)
    epsilon = np.linspace(0.0, 9.5, 96)
    monkeypatch.setattr(pld_module, "_OUTSIDE_FRACTION", 1e6)
    composition._ONE_RELEASE_BRACKETS.clear()
    single = composition.pld(pair, grid_width, pessimistic=False, tail_mass=tail_mass)
    ((start, count, outside),) = pld_module._windows([single], k)
    assert outside == 1e-9 and count < 0.8 * (k * (single.masses.size - 1) + 1)
    bracket = composition.pld_bracket(pair, k, grid_width, tail_mass=tail_mass)
    low, high = bracket.delta(epsilon)
    assert np.all(low <= exact.delta(epsilon) * (1 + 1e-12))
    assert np.all(exact.delta(epsilon) <= high * (1 + 1e-12))
    composition._ONE_RELEASE_BRACKETS.clear()


@pytest.mark.parametrize("pessimistic", [False, True])
def test_each_end_answers_for_the_mass_wrapped_into_its_window(pessimistic):
    # A k-fold composition, wrapped as a cyclic transform shorter than its support wraps
    # it: the window drops the support's low end (optimistic case: that mass lands on the
    # highest losses, where delta weighs it most) or its high end (pessimistic case: that
    # mass lands on the lowest losses, where it weighs nothing). Truncating with the
    # wrapped mass as ``outside`` must keep each end on its side of the exact composition's
    # delta; without its correction, each end crosses it by about the wrapped mass.
    pair, k, grid_width, tail_mass = privacy_loss.gaussian(2.0), 12, 1e-2, 1e-6
    single = composition.pld(pair, grid_width, pessimistic=pessimistic, tail_mass=tail_mass)
    full = _composed_by_convolution(single.masses, k)
    lowest = k * single.lowest_index
    exact = composition.PrivacyLossDistribution(
        grid_width, lowest, full, 0.0, pessimistic, tail_mass
    )
    # The window leaves 1e-9 of the composed mass out (a thousandth of tail_mass, as
    # ``_windows`` does), all at one end.
    running = np.cumsum(full if not pessimistic else full[::-1])
    left_out = int(np.searchsorted(running, 1e-9, side="right"))
    outside = float(running[left_out - 1])
    assert 1e-10 < outside <= 1e-9
    start = left_out if not pessimistic else 0
    count = full.size - left_out
    window = full[start : start + count].copy()
    beyond = np.r_[np.arange(0, start), np.arange(start + count, full.size)]
    np.add.at(window, (beyond - start) % count, full[beyond])
    truncated = single._truncated(lowest + start, window, 0.0, outside=outside)
    epsilon = np.linspace(0.0, (lowest + full.size - 1) * grid_width, 200)
    ours, truth = truncated.delta(epsilon), exact.delta(epsilon)
    # Round-off: sums of ~6,000 masses in another order; the wrapped mass weighs ~1e-9.
    if pessimistic:
        assert np.all(ours >= truth - 1e-14)
    else:
        assert np.all(ours <= truth + 1e-14)
        # The top mass could pay the correction whole (it was not clipped at 0).
        assert truncated.masses[-1] > 2 * outside


#: Long double carries 11 more bits than double on x86 (eps 2^-63): enough for a reference
#: of what a composition in double rounds off.
EXTENDED_REFERENCE = float(np.finfo(np.longdouble).eps) < 1e-18


def composed_in_long_double(masses, k, length):
    """The k-fold cyclic self-convolution of ``masses`` at this transform length, in long
    double: the same arithmetic as a composition in double, 2048 times finer."""
    from scipy import fft

    padded = np.zeros(length, dtype=np.longdouble)
    padded[: masses.size] = masses
    spectrum = fft.rfft(padded)
    power = np.ones_like(spectrum)
    while k:
        if k & 1:
            power = power * spectrum
        spectrum = spectrum * spectrum
        k >>= 1
    return fft.irfft(power, length)


def composition_errors(distribution, k, first, size):
    """How far a k-fold composition's window ``first`` .. ``first + size - 1``, taken in
    double, is from the same in long double, and what ``round_off`` allows.

    Returns:
      ((largest error of a mass, sum of the errors), (each, total) bounds with the power's
      terms, the same without them).
    """
    from dplearn.composition import _fft

    masses = distribution.composed_window(k, first, size, keep_transform=False, double=True)
    length = max(_fft.fft_length(size), _fft.fft_length(distribution.masses.size))
    reference = composed_in_long_double(distribution.masses, k, length)
    start = (first - k * distribution.lowest_index) % length
    error = np.abs(masses - np.roll(reference, -start)[:size].astype(float))
    errors = (float(error.max()), float(error.sum()))
    return errors, _fft.round_off(masses, power=k), _fft.round_off(masses)


@pytest.mark.skipif(not EXTENDED_REFERENCE, reason="long double is no finer than double here")
def test_the_round_off_bounds_hold_for_the_kth_power():
    # The k-th power multiplies the transform's relative round-off by k, a slow wave over
    # the window. A whole transform has a stretch of zeros where it shows as negative
    # masses; a window shorter than the support has none, and without the power's terms
    # the bounds were exceeded there (up to 46 times at k = 3,000).
    pld_module = sys.modules["dplearn.composition.pld"]
    cases = [
        (privacy_loss.laplace(10.0), 1e-2, 100),
        (privacy_loss.laplace(10.0), 1e-2, 1000),
        (privacy_loss.laplace(10.0), 1e-2, 3000),
        (privacy_loss.laplace(10.0), 1e-3, 100),
        (privacy_loss.laplace(10.0), 1e-3, 300),
        (privacy_loss.laplace(1.0), 1e-2, 100),
        (privacy_loss.laplace(1.0), 1e-2, 1000),
        (privacy_loss.gaussian(3.0), 1e-2, 100),
        (privacy_loss.gaussian(20.0), 1e-3, 10),
    ]
    beyond_old = []
    for pair, grid_width, k in cases:
        for pessimistic in (False, True):
            single = composition.pld(pair, grid_width, pessimistic=pessimistic)
            ((start, count, _),) = pld_module._windows([single], k)
            first = k * single.lowest_index + start
            errors, bounds, old = composition_errors(single, k, first, count)
            where = (pair, grid_width, k, pessimistic)
            assert errors[0] <= bounds[0] and errors[1] <= bounds[1], (where, errors, bounds)
            beyond_old.append(max(errors[0] / old[0], errors[1] / old[1]))
    # Not vacuous: without the power's terms some windows err far beyond the bounds.
    assert max(beyond_old) > 5.0


def test_the_lessons_bracket_takes_a_window_shorter_than_its_support():
    pld_module = sys.modules["dplearn.composition.pld"]
    pair, k, grid_width = privacy_loss.laplace(10.0), 100, 1e-3
    both = [
        composition.pld(pair, grid_width, pessimistic=False),
        composition.pld(pair, grid_width, connect_dots=True),
    ]
    windows = pld_module._windows(both, k)
    support = k * (both[0].masses.size - 1) + 1
    for start, count, outside in windows:
        assert count < 0.85 * support and outside == 1e-18
        assert 0 <= start <= support - count
    assert windows[0][1] == windows[1][1]  # one two-row transform


def test_tail_cuts_match_a_plain_running_sum():
    # The cut sums by blocks and stretches; a plain running sum over the whole array says
    # how many masses fit under the limit, and their sum.
    cut = sys.modules["dplearn.composition.pld"]._cut
    rng = np.random.default_rng(3)
    for trial in range(400):
        size = int(rng.integers(1, 30_000))
        masses = rng.random(size) * 10.0 ** rng.uniform(-20, -12, size)
        if trial % 3 == 0:
            masses = np.sort(masses)[::-1].copy()
        limit = 10.0 ** rng.uniform(-18, -9)
        running = np.cumsum(masses)
        count = int(np.searchsorted(running, limit, side="right"))
        ours_count, ours_sum = cut(masses, limit)
        assert ours_count == count
        assert ours_sum <= limit
        assert ours_sum == pytest.approx(running[count - 1] if count else 0.0, rel=1e-12)
