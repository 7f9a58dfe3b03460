"""Noise calibration: the documents' sigmas and the exact delta they give."""

import math

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dplearn import calibration, privacy_loss
from tests import oracle


def test_document_values():
    assert calibration.gaussian_sigma_analytic(1, 1e-5) == pytest.approx(3.730631634816, rel=1e-12)
    assert calibration.gaussian_sigma_classic(1, 1e-5) == pytest.approx(
        4.844805262605389, rel=1e-15
    )
    assert calibration.laplace_scale(math.log(3)) == pytest.approx(1 / math.log(3), rel=1e-15)
    assert calibration.laplace_scale(0.5, 3.0) == pytest.approx(6.0)


@pytest.mark.parametrize("delta", [1e-12, 1e-8, 1e-5, 1e-3, 0.1])
@pytest.mark.parametrize("epsilon", [0.01, 0.1, 1.0, 5.0, 20.0])
def test_analytic_sigma_is_the_smallest_that_works(epsilon, delta):
    """At the analytic sigma the exact delta (mpmath, 60 digits) is the target delta."""
    sigma = calibration.gaussian_sigma_analytic(epsilon, delta, 2.0)
    assert math.isfinite(sigma) and sigma > 0
    exact = oracle.gaussian_delta(epsilon, mpmath.mpf(sigma), 2.0)
    assert float(exact) == pytest.approx(delta, rel=1e-9)
    # A slightly smaller sigma breaks the guarantee; a slightly larger one keeps it.
    assert oracle.gaussian_delta(epsilon, mpmath.mpf(sigma) * (1 - 1e-7), 2.0) > delta
    assert oracle.gaussian_delta(epsilon, mpmath.mpf(sigma) * (1 + 1e-7), 2.0) < delta


def test_analytic_sigma_scales_with_sensitivity_and_vectorises():
    one = calibration.gaussian_sigma_analytic(0.5, 1e-6)
    assert calibration.gaussian_sigma_analytic(0.5, 1e-6, 7.0) == pytest.approx(7 * one, rel=1e-13)
    many = calibration.gaussian_sigma_analytic(np.array([0.5, 1.0]), np.array([1e-6, 1e-5]))
    np.testing.assert_allclose(many, [one, 3.730631634816], rtol=1e-12)


@pytest.mark.parametrize("seed", range(3))
def test_whole_curves_match_one_point_at_a_time(seed):
    """The vectorised solver and the broadcast closed form, against scalar calls."""
    rng = np.random.default_rng(seed)
    epsilons = np.exp(rng.uniform(np.log(0.01), np.log(20), 40))
    sigmas = np.exp(rng.uniform(np.log(0.05), np.log(200), 40))
    one_by_one = [
        privacy_loss.gaussian(s).log_delta(e) for s, e in zip(sigmas, epsilons, strict=True)
    ]
    np.testing.assert_allclose(
        privacy_loss.gaussian_log_delta(epsilons, 1 / sigmas), one_by_one, rtol=1e-14
    )
    delta = float(np.exp(rng.uniform(np.log(1e-12), np.log(0.9))))
    curve = calibration.gaussian_sigma_analytic(epsilons, delta)
    one_by_one = [calibration.gaussian_sigma_analytic(e, delta) for e in epsilons]
    np.testing.assert_allclose(curve, one_by_one, rtol=1e-12)
    exact = [
        float(oracle.gaussian_delta(e, mpmath.mpf(s))) for e, s in zip(epsilons, curve, strict=True)
    ]
    np.testing.assert_allclose(exact, delta, rtol=1e-9)


def test_analytic_sigma_against_dp_accounting():
    plm = pytest.importorskip("dp_accounting.pld.privacy_loss_mechanism")
    for epsilon, delta in [(1.0, 1e-5), (0.2, 1e-8), (8.0, 1e-3)]:
        sigma = calibration.gaussian_sigma_analytic(epsilon, delta)
        theirs = plm.GaussianPrivacyLoss(sigma).get_delta_for_epsilon(epsilon)
        assert theirs == pytest.approx(delta, rel=1e-8)


@settings(max_examples=60, deadline=None)
@given(epsilon=st.floats(0.01, 20.0), log10_delta=st.floats(-12.0, -1.0))
def test_analytic_never_exceeds_classic_where_classic_is_proved(epsilon, log10_delta):
    delta = 10.0**log10_delta
    analytic = calibration.gaussian_sigma_analytic(epsilon, delta)
    assert math.isfinite(analytic) and analytic > 0
    if epsilon < 1:
        # Dwork & Roth's theorem holds for epsilon < 1, so the tight sigma is no larger.
        assert analytic <= calibration.gaussian_sigma_classic(epsilon, delta)


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: calibration.laplace_scale(0.0), "epsilon"),
        (lambda: calibration.laplace_scale(1.0, -2.0), "sensitivity"),
        (lambda: calibration.gaussian_sigma_classic(math.nan, 1e-5), "epsilon"),
        (lambda: calibration.gaussian_sigma_classic(1.0, 1.0), "delta"),
        (lambda: calibration.gaussian_sigma_analytic(1.0, 0.0), "delta"),
        (lambda: calibration.gaussian_sigma_analytic(math.inf, 1e-5), "epsilon"),
        (lambda: calibration.gaussian_sigma_analytic(1.0, 1e-5, math.nan), "sensitivity"),
    ],
)
def test_bad_input_names_the_parameter(call, name):
    with pytest.raises(ValueError, match=name):
        call()


# --- At the edges of the domain (the contract of tests/test_contract.py) ---------------

EDGE_DELTAS = [1e-300, 1e-200, 1e-100, 1e-30, 1e-12, 1e-5, 0.1, 0.5, 0.9, 1 - 1e-6, 1 - 1e-12]
EDGE_EPSILONS = [1e-8, 1e-3, 0.1, 1.0, 10.0, 100.0, 1e3]


@pytest.mark.parametrize("delta", EDGE_DELTAS, ids=lambda d: f"{d:.3g}")
def test_analytic_sigma_at_the_edges_matches_mpmath(delta):
    """delta from 1e-300 to 1 - 1e-12: at the returned sigma the exact delta (mpmath, as many
    digits as the cancellation needs) is the target to 1e-12 relative, and so is 1 - delta
    (the sigma is the smallest, not only a safe one); the package's own delta is <= the
    target (the safe side)."""
    epsilons = np.array(EDGE_EPSILONS)
    sigmas = calibration.gaussian_sigma_analytic(epsilons, delta)
    for epsilon, sigma in zip(epsilons, sigmas, strict=True):
        pair = privacy_loss.gaussian(sigma)
        assert pair.delta(epsilon) <= delta
        exact = mpmath.exp(oracle.gaussian_log_delta_exact(epsilon, pair.ratio))
        assert float(exact) == pytest.approx(delta, rel=1e-12), epsilon
        with mpmath.workdps(60):
            target_complement = 1 - mpmath.mpf(delta)
            assert float(1 - exact) == pytest.approx(float(target_complement), rel=1e-9)


def test_analytic_sigma_with_the_smallest_delta_returns_at_once():
    """gaussian_sigma_analytic(1.0, 5e-324) returns, without a warning (pytest turns each
    into an error): at so small a delta a start value can overflow and a bracket loop never
    end."""
    sigma = calibration.gaussian_sigma_analytic(1.0, 5e-324)
    pair = privacy_loss.gaussian(sigma)
    assert pair.delta(1.0) <= 5e-324 and pair.log_delta(1.0) <= math.log(5e-324)
    exact = oracle.gaussian_log_delta_exact(1.0, pair.ratio)
    assert float(exact) == pytest.approx(math.log(5e-324), rel=1e-12)


@pytest.mark.parametrize("epsilon", [1e-6, 0.3, 1.0, 8.0, 1e3])
@pytest.mark.parametrize("delta", [1e-300, 1e-9, 0.3, 1 - 1e-14])
def test_analytic_sigma_is_on_the_safe_side_and_the_smallest(epsilon, delta):
    """The package's delta at the returned sigma is <= delta, not a hair above the target,
    and one ulp less noise (a few for rounding) is not."""
    for sensitivity in [1.0, 3.0, 1e-5]:
        sigma = calibration.gaussian_sigma_analytic(epsilon, delta, sensitivity)
        assert privacy_loss.gaussian(sigma, sensitivity).delta(epsilon) <= delta
        smaller = privacy_loss.gaussian(sigma * (1 - 1e-13), sensitivity)
        assert smaller.log_delta(epsilon) > math.log(delta)


def test_delta_near_one_alone_or_in_an_array():
    """Within 1e-14 of 1 the sigma gives 1 - delta to 1e-9, and is the same whatever the
    other elements of the same call."""
    delta = 1 - 1e-14
    epsilons = np.array([1.0, 1e-6, 50.0, 0.3])
    curve = calibration.gaussian_sigma_analytic(epsilons, delta)
    for epsilon, sigma in zip(epsilons, curve, strict=True):
        assert calibration.gaussian_sigma_analytic(epsilon, delta) == sigma
        exact = mpmath.exp(oracle.gaussian_log_delta_exact(epsilon, 1 / sigma))
        assert float(1 - exact) == pytest.approx(1e-14, rel=1e-9)


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: calibration.laplace_scale(1e-320), "epsilon"),
        (lambda: calibration.laplace_scale(1.0, 1e-320 * 1e-4), "sensitivity"),
        (lambda: calibration.gaussian_sigma_classic(1e-320, 1e-5), "epsilon"),
        (lambda: calibration.gaussian_sigma_analytic(5e-324, 5e-324), "delta"),
        (lambda: calibration.gaussian_sigma_analytic(1e308, 0.5), "epsilon"),
        (lambda: calibration.gaussian_sigma_analytic(1.0, 1e-5, 1e308), "sensitivity"),
        (lambda: calibration.gaussian_sigma_analytic("1.0", 1e-5), "epsilon"),
        (lambda: calibration.gaussian_sigma_analytic(1.0, True), "delta"),
    ],
)
def test_results_outside_the_floats_are_refused_by_name(call, name):
    """Overflow warnings escaped from laplace_scale(1e-320) and others."""
    with pytest.raises(ValueError, match=name):
        call()


def test_laplace_scale_is_on_the_safe_side():
    for epsilon, sensitivity in [(0.1, 0.3), (3.0, 7.0), (1e-300, 1e-10), (1.0, 1e-310)]:
        scale = calibration.laplace_scale(epsilon, sensitivity)
        assert privacy_loss.laplace(scale, sensitivity).max_loss <= epsilon
    epsilons = np.array([0.1, 3.0, 0.7])
    curve = calibration.laplace_scale(epsilons, 0.3)
    assert [calibration.laplace_scale(e, 0.3) for e in epsilons] == list(curve)


def test_classic_sigma_for_a_subnormal_delta():
    sigma = calibration.gaussian_sigma_classic(1.0, 5e-324)
    expected = mpmath.sqrt(2 * mpmath.log(mpmath.mpf(1.25) / mpmath.mpf(5e-324)))
    assert sigma == pytest.approx(float(expected), rel=1e-14)


@pytest.mark.parametrize(
    "function",
    [calibration.gaussian_sigma_analytic, calibration.gaussian_sigma_classic],
)
def test_epsilon_and_delta_of_shapes_that_do_not_broadcast_are_named(function):
    epsilon, delta = np.array([0.5, 1.0]), np.array([1e-5, 1e-6, 1e-7])
    with pytest.raises(ValueError, match=r"epsilon \(2,\), delta \(3,\)"):
        function(epsilon, delta)
    # Shapes that broadcast still give one sigma per pair.
    sigmas = function(epsilon[:, None], delta[None, :])
    assert np.shape(sigmas) == (2, 3)
    assert sigmas[1, 0] == function(1.0, 1e-5)
