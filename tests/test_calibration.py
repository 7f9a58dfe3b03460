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
