"""Figures SUB-1 and SUB-2: the numbers they show and the curves they draw.

Expected values come from outside dplearn: the subsampled Gaussian's two directions in
closed form at 40 digits with mpmath (each side's bad events are one half-line of outputs),
the mixture and its loss written out here with numpy, the published number of the
amplification bound (q = 0.01, epsilon = 1: 0.0170369), and Google's dp_accounting, whose
pessimistic and optimistic PLDs of the subsampled Gaussian must bracket the exact delta.
"""

import math

import matplotlib
import mpmath
import numpy as np
import pytest

matplotlib.use("Agg")

from dplearn.figures import subsampling as figures  # noqa: E402
from dplearn.figures.explorers import load_all  # noqa: E402
from tests.exercise_values_lesson10 import gaussian_delta, subsampled_gaussian_sides  # noqa: E402

EXPLORERS = load_all()
SETTINGS = [
    dict(rate=0.1, sigma=1.0, epsilon=1.0),
    dict(rate=0.01, sigma=0.5, epsilon=0.3),
    dict(rate=0.5, sigma=2.0, epsilon=0.05),
    dict(rate=1.0, sigma=1.0, epsilon=0.5),
    dict(rate=0.001, sigma=0.3, epsilon=4.0),
]


def test_both_figures_are_registered_with_the_documents_settings():
    assert EXPLORERS["SUB-1"] is figures.SubsampledGaussian
    assert EXPLORERS["SUB-2"] is figures.AmplificationBound
    assert figures.AmplificationBound.defaults == {"rate": 0.01, "sigma": 1.0, "epsilon": 1.0}
    for figure_id in ("SUB-1", "SUB-2"):
        rate = EXPLORERS[figure_id].controls["rate"]
        assert rate.minimum > 0 and rate.maximum == 1.0 and rate.log


# SUB-1 -----------------------------------------------------------------------------------


@pytest.mark.parametrize("setting", SETTINGS)
def test_sub1_deltas_are_the_closed_forms_on_both_sides(setting):
    figure = figures.SubsampledGaussian(**setting)
    numbers = figure.numbers()
    remove, add = subsampled_gaussian_sides(setting["epsilon"], setting["sigma"], setting["rate"])
    assert numbers[r"$\delta(\varepsilon)$, remove side"] == pytest.approx(float(remove), rel=1e-9)
    assert numbers[r"$\delta(\varepsilon)$, add side"] == pytest.approx(
        float(add), rel=1e-9, abs=1e-300
    )
    assert numbers[r"$\delta(\varepsilon)$ = the larger"] == pytest.approx(
        float(max(remove, add)), rel=1e-9
    )
    assert numbers[r"$\delta(\varepsilon)$ without subsampling"] == pytest.approx(
        float(gaussian_delta(setting["epsilon"], setting["sigma"])), rel=1e-9
    )
    top = numbers[r"add side's largest loss $-\ln(1-q)$"]
    assert top == (
        math.inf if setting["rate"] == 1 else pytest.approx(-math.log1p(-setting["rate"]))
    )


@pytest.mark.parametrize("setting", SETTINGS[:3])
def test_sub1_draws_the_mixture_the_normal_and_both_losses(setting):
    figure = figures.SubsampledGaussian(**setting)
    q, sigma, epsilon = setting["rate"], setting["sigma"], setting["epsilon"]
    z, mixture = (np.asarray(v) for v in figure.with_person.get_data())
    _, normal = (np.asarray(v) for v in figure.without.get_data())
    phi = np.exp(-(z**2) / 2) / math.sqrt(2 * math.pi)
    shifted = np.exp(-((z - 1 / sigma) ** 2) / 2) / math.sqrt(2 * math.pi)
    np.testing.assert_allclose(normal, phi, rtol=1e-12, atol=1e-300)
    np.testing.assert_allclose(mixture, (1 - q) * phi + q * shifted, rtol=1e-12, atol=1e-300)
    # The shaded runs where the person was kept hold q of the probability.
    kept = figure.kept.get_xy()
    half = z.size
    area = np.trapezoid(kept[:half, 1], kept[:half, 0])
    assert area == pytest.approx(q, rel=1e-4)
    # The loss, written out: ln(1 - q + q e^((2o - 1) / (2 sigma^2))), o = z sigma.
    low, high = figure.loss_limits
    expected = np.log1p(q * np.expm1((2 * z * sigma - 1) / (2 * sigma**2)))
    _, remove = figure.remove_loss.get_data()
    _, add = figure.add_loss.get_data()
    np.testing.assert_allclose(
        remove, np.clip(expected, low - 0.5, high + 0.5), rtol=1e-9, atol=1e-12
    )
    np.testing.assert_allclose(
        add, np.clip(-expected, low - 0.5, high + 0.5), rtol=1e-9, atol=1e-12
    )
    # Red exactly where the loss exceeds epsilon, on each side.
    for bad, loss in ((figure.remove_bad, remove), (figure.add_bad, add)):
        _, drawn = bad.get_data()
        np.testing.assert_array_equal(np.isfinite(drawn), loss > epsilon)
    assert figure.epsilon_line.get_ydata()[0] == epsilon


def test_sub1_at_rate_one_is_the_mechanism_itself():
    figure = figures.SubsampledGaussian(rate=1.0, sigma=1.5, epsilon=0.7)
    numbers = figure.numbers()
    exact = float(gaussian_delta(0.7, 1.5))
    for key in ("remove side", "add side", "= the larger"):
        assert numbers[
            r"$\delta(\varepsilon)$, " + key
            if key != "= the larger"
            else r"$\delta(\varepsilon)$ = the larger"
        ] == pytest.approx(exact, rel=1e-9)


@pytest.mark.parametrize("setting", SETTINGS[:3])
def test_sub1_delta_lies_in_dp_accountings_bracket(setting):
    from dp_accounting.pld import privacy_loss_distribution as plds

    q, sigma, epsilon = setting["rate"], setting["sigma"], setting["epsilon"]
    ends = [
        plds.from_gaussian_mechanism(
            sigma, pessimistic_estimate=kind, value_discretization_interval=1e-4, sampling_prob=q
        ).get_delta_for_epsilon(epsilon)
        for kind in (False, True)
    ]
    delta = figures.SubsampledGaussian(**setting).numbers()[r"$\delta(\varepsilon)$ = the larger"]
    assert ends[0] * (1 - 1e-9) <= delta <= ends[1] * (1 + 1e-9)
    assert ends[1] - ends[0] < 0.01 * delta


# SUB-2 -----------------------------------------------------------------------------------


def sub2_numbers(**setting):
    return figures.AmplificationBound(**setting).numbers()


EPSILON_PRIME = r"bound: $\varepsilon' = \ln(1 + q(e^{\varepsilon} - 1))$"
DELTA_PRIME = r"bound: $\delta' = q\,\delta(\varepsilon)$"
EXACT_AT_PRIME = r"exact $\delta(\varepsilon')$, subsampled"
EXACT_HERE = r"exact $\delta(\varepsilon)$ at the slider's $\varepsilon$"
FACTOR = r"there below $\delta'$ by a factor"


def test_sub2_prints_the_documents_amplified_epsilon():
    numbers = sub2_numbers()
    assert round(numbers[EPSILON_PRIME], 7) == 0.0170369
    expected = mpmath.log(1 + mpmath.mpf("0.01") * mpmath.expm1(1))
    assert numbers[EPSILON_PRIME] == pytest.approx(float(expected), rel=1e-14)


@pytest.mark.parametrize("setting", SETTINGS)
def test_sub2_the_bound_is_tight_on_the_profile_and_loose_for_one_guarantee(setting):
    numbers = sub2_numbers(**setting)
    q, sigma, epsilon = setting["rate"], setting["sigma"], setting["epsilon"]
    q_mp = mpmath.mpf(q)
    prime = mpmath.log(1 + q_mp * mpmath.expm1(epsilon))
    bound = q_mp * gaussian_delta(epsilon, sigma)
    assert numbers[DELTA_PRIME] == pytest.approx(float(bound), rel=1e-9)
    # At epsilon' the exact delta (remove side, the larger) is the bound itself.
    remove, add = subsampled_gaussian_sides(prime, sigma, q)
    assert remove == pytest.approx(bound, rel=1e-20)
    assert numbers[EXACT_AT_PRIME] == pytest.approx(float(max(remove, add)), rel=1e-9)
    if bound > 0:
        assert numbers[r"exact $\delta(\varepsilon')$ / $\delta'$"] == pytest.approx(1, rel=1e-9)
    assert numbers[r"add side $\delta(\varepsilon')$"] == pytest.approx(
        float(add), rel=1e-9, abs=1e-300
    )
    # At the slider's epsilon one guarantee says delta', the truth is far smaller.
    here = max(subsampled_gaussian_sides(epsilon, sigma, q))
    assert numbers[EXACT_HERE] == pytest.approx(float(here), rel=1e-9, abs=1e-300)
    if here > 0:
        assert numbers[FACTOR] == pytest.approx(float(bound / here), rel=1e-8)
        assert numbers[FACTOR] >= 1 - 1e-12


def test_sub2_curves_are_the_profiles_and_the_bound_lies_on_the_exact_one():
    figure = figures.AmplificationBound(rate=0.05, sigma=0.8, epsilon=2.0)
    x, y = (np.asarray(v) for v in figure.bound.get_data())
    grid, exact = (np.asarray(v) for v in figure.exact.get_data())
    for index in (0, 60, 130, 200):
        epsilon0 = mpmath.mpf(float(figure.grid[index]))
        expected_x = mpmath.log(1 + mpmath.mpf("0.05") * mpmath.expm1(epsilon0))
        assert x[index] == pytest.approx(float(expected_x), rel=1e-12)
        expected_y = mpmath.mpf("0.05") * gaussian_delta(epsilon0, 0.8)
        if expected_y > 1e-13:
            assert y[index] == pytest.approx(float(expected_y), rel=1e-9)
            # The same point on the exact profile.
            assert max(subsampled_gaussian_sides(expected_x, 0.8, 0.05)) == pytest.approx(
                expected_y, rel=1e-15
            )
    for index in (10, 100, 180):
        expected = max(subsampled_gaussian_sides(float(grid[index]), 0.8, 0.05))
        if expected > 1e-13:
            assert exact[index] == pytest.approx(float(expected), rel=1e-9)


def test_sub2_marks_the_guarantee_and_where_the_bound_sends_it():
    figure = figures.AmplificationBound(rate=0.1, sigma=1.0, epsilon=1.0)
    numbers = figure.numbers()
    assert figure.start.get_data()[0][0] == 1.0
    assert figure.end.get_data()[0][0] == pytest.approx(numbers[EPSILON_PRIME])
    assert figure.end.get_data()[1][0] == pytest.approx(numbers[DELTA_PRIME])
    x, y = figure.promise.get_data()
    assert y[0] == y[1] == pytest.approx(numbers[DELTA_PRIME])
    assert x[1] == figure.x_limits[1]
    _, (bottom, top) = figure.gap.get_data()
    assert bottom == pytest.approx(numbers[EXACT_HERE]) and top == pytest.approx(
        numbers[DELTA_PRIME]
    )
