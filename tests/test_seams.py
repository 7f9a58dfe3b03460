"""The public seams between modules, each against an independent computation.

What one module offers another is public API: ``accounting.dp_sgd_pld``, a PLD's
``hockey_stick``, ``renyi.epsilon_from_rdp`` and its unchecked ``order_epsilons``, the
subsampled directions' ``base_loss``, the Gaussian's terms for solvers,
``privacy_loss.atoms_log_delta`` and the shared checks of ``_validation``. These tests hold
each to its definition, by mpmath at 50 digits (MPMATH_DIGITS) or brute force.
"""

import math

import mpmath
import numpy as np
import pytest

from dplearn import _validation as check
from dplearn import accounting, composition, privacy_loss, renyi, subsampling

#: The digits of the reference values (tests/conftest.py sets them for each test).
MPMATH_DIGITS = 50


def test_hockey_stick_is_delta_at_nonnegative_epsilons_and_the_sum_everywhere():
    pld = composition.pld(privacy_loss.laplace(1.0), 1e-2, pessimistic=True)
    epsilons = np.array([-3.0, -1.0, -0.25, 0.0, 0.3, 0.9])
    expected = [
        float(
            sum(
                mpmath.mpf(float(mass)) * (1 - mpmath.exp(mpmath.mpf(float(epsilon)) - float(loss)))
                for mass, loss in zip(pld.masses, pld.losses, strict=True)
                if loss > epsilon
            )
            + pld.infinity_mass
        )
        for epsilon in epsilons
    ]
    np.testing.assert_allclose(pld.hockey_stick(epsilons), expected, rtol=1e-12, atol=1e-15)
    np.testing.assert_array_equal(pld.hockey_stick(epsilons[3:]), pld.delta(epsilons[3:]))
    with pytest.raises(ValueError, match="epsilon"):
        pld.hockey_stick(math.nan)


def test_dp_sgd_pld_gives_the_accountants_epsilon():
    run = (256 / 60000, 1.1, 2000)
    remove = accounting.dp_sgd_pld(*run)
    add = accounting.dp_sgd_pld(*run, direction="add")
    larger = max(remove.epsilon_for_delta(1e-5), add.epsilon_for_delta(1e-5))
    assert larger == pytest.approx(accounting.dp_sgd_epsilon(*run, 1e-5), rel=1e-9)
    assert remove.pessimistic and remove.grid_width == accounting.DEFAULT_GRID_WIDTH
    with pytest.raises(ValueError, match="direction"):
        accounting.dp_sgd_pld(*run, direction="both")
    with pytest.raises(ValueError, match="grid_width"):
        accounting.dp_sgd_pld(*run, grid_width=2.0)


@pytest.mark.parametrize(
    ("arguments", "name"),
    [
        ((0.0, 1.0, 10), "sampling_rate"),
        ((0.1, 1e7, 10), "noise_multiplier"),
        ((0.1, 1, 0), "steps"),
    ],
)
def test_check_run_names_the_bad_argument(arguments, name):
    with pytest.raises(ValueError, match=name):
        accounting.check_run(*arguments)
    assert accounting.check_run(0.5, 2, 7) == accounting.DPSGDRun(0.5, 2.0, 7)


def test_epsilon_from_rdp_is_balle_et_al_order_by_order():
    alphas = np.array([1.5, 2.0, 8.0, 64.0])
    values = np.array([0.01, 0.2, 1.0, 3.0])
    delta = 1e-6

    def exact(alpha, value):
        alpha, value = mpmath.mpf(alpha), mpmath.mpf(value)
        return (
            value + mpmath.log1p(-1 / alpha) - (mpmath.log(delta) + mpmath.log(alpha)) / (alpha - 1)
        )

    got = renyi.epsilon_from_rdp(alphas, values, delta)
    expected = [float(exact(a, v)) for a, v in zip(alphas, values, strict=True)]
    np.testing.assert_allclose(got, expected, rtol=1e-13)
    assert renyi.to_epsilon(alphas, values, delta) == pytest.approx(max(min(expected), 0.0))
    np.testing.assert_array_equal(renyi.order_epsilons(alphas, values, delta), got)
    grid = renyi.epsilon_from_rdp(alphas[None, :], values[:, None] * alphas[None, :], delta)
    assert grid.shape == (4, 4)
    with pytest.raises(ValueError, match="alphas"):
        renyi.epsilon_from_rdp([1.0], [0.1], delta)
    with pytest.raises(ValueError, match="rdp_values"):
        renyi.epsilon_from_rdp([2.0], [-0.1], delta)


@pytest.mark.parametrize("rate", [0.001, 0.3, 1.0])
def test_base_loss_inverts_each_directions_loss(rate):
    sigma = 1.3
    pair = subsampling.poisson(privacy_loss.gaussian(sigma), rate)
    outputs = np.linspace(-2.0, 3.0, 11)
    for direction in (pair.remove, pair.add):
        losses = np.asarray(direction.privacy_loss(outputs), dtype=float)
        inside = np.isfinite(losses) & (losses > direction.min_loss) & (losses < direction.max_loss)
        assert inside.sum() >= 5
        base = direction.base_loss(losses[inside])
        # The Gaussian pair's own loss at those outputs, (2o - 1) / (2 sigma^2) (mean 0 and 1).
        expected = [
            float((2 * mpmath.mpf(o) - 1) / (2 * mpmath.mpf(sigma) ** 2)) for o in outputs[inside]
        ]
        np.testing.assert_allclose(base, expected, rtol=1e-9, atol=1e-12)


def test_gaussian_terms_for_solvers_agree_with_the_checked_closed_form():
    epsilon = np.array([0.0, 0.5, 1.0, 5.0, 40.0])
    ratio = np.array([0.01, 0.5, 1.0, 3.0, 10.0])
    log_delta, relative = privacy_loss.gaussian_log_delta_terms(epsilon, ratio)
    np.testing.assert_array_equal(log_delta, privacy_loss.gaussian_log_delta(epsilon, ratio))
    for e, r, value, rest in zip(epsilon, ratio, log_delta, relative, strict=True):
        e, r = mpmath.mpf(e), mpmath.mpf(r)
        a = r / 2 - e / r
        delta = mpmath.ncdf(a) - mpmath.exp(e) * mpmath.ncdf(a - r)
        assert float(value) == pytest.approx(float(mpmath.log(delta)), rel=1e-12)
        density = mpmath.npdf(a)
        assert float(rest) == pytest.approx(
            float(mpmath.log(delta / density)), rel=1e-11, abs=1e-13
        )
        tail = privacy_loss.gaussian_tail_point(np.array(float(e)), np.array(float(r)))
        assert float(tail) == pytest.approx(float(a), rel=1e-15, abs=1e-300)
    low, high = privacy_loss.GAUSSIAN_RATIO_RANGE
    assert low == np.finfo(float).tiny and high == 1e154


def test_atoms_log_delta_is_the_sum_over_atoms():
    values = np.array([-1.0, 0.2, 0.7, math.inf])
    log_masses = np.log([0.4, 0.3, 0.2, 0.1])
    for x in (-2.0, 0.0, 0.5, 0.7, 5.0):
        expected = sum(
            mpmath.exp(mpmath.mpf(float(m))) * (1 if v == math.inf else 1 - mpmath.exp(x - v))
            for v, m in zip(values, log_masses, strict=True)
            if v > x
        )
        got = privacy_loss.atoms_log_delta(values, log_masses, np.array(x))
        assert float(got) == pytest.approx(float(mpmath.log(expected)), rel=1e-13)


def test_the_shared_checks_name_the_value():
    np.testing.assert_array_equal(check.vector("scores", [1, 2.5]), [1.0, 2.5])
    for bad in ([], [[1.0]], [1.0, math.nan], "x"):
        with pytest.raises(ValueError, match="scores"):
            check.vector("scores", bad)
    assert check.finite_epsilon(0.5, scalar=True) == 0.5
    with pytest.raises(ValueError, match="rho must be finite and >= 0"):
        check.finite_epsilon([0.1, math.inf], "rho")
    with pytest.raises(ValueError, match="orders must be finite and > 1"):
        check.orders("orders", [2.0, 1.0])
    assert check.short("x" * 100).endswith("'") and len(check.short("x" * 100)) < 50
    assert check.describe(np.array([3.0])) == "3.0"
