"""Figures INTRO-1 to INTRO-5 (lesson 00): the numbers they show and what they draw.

Expected values are derived here independently of dplearn: the differencing posterior
by Bayes' rule on a numerical convolution of two Laplace densities (mpmath), the
reconstruction shares with a primal LP written in tests/test_attacks.py, randomised
response's loss and delta from its two report distributions, the standard errors from
the binomial law, and the band from the odds. What is drawn is read back from the
artists (bar heights, line data, image pixels' codes, polygon vertices).
"""

import math

import matplotlib
import mpmath
import numpy as np
import pytest

matplotlib.use("Agg")

from dplearn import attacks  # noqa: E402
from dplearn.figures import intro  # noqa: E402
from dplearn.figures.explorers import load_all  # noqa: E402
from tests import oracle  # noqa: E402
from tests.test_attacks import convolved_density, independent_fractions  # noqa: E402

LN3 = math.log(3.0)
INTRO_IDS = [f"INTRO-{number}" for number in range(1, 6)]


def test_all_five_are_registered():
    registered = load_all()
    for figure_id in INTRO_IDS:
        assert figure_id in registered
        cls = registered[figure_id]
        assert cls.__module__ == "dplearn.figures.intro" and cls.figure_id == figure_id


# --------------------------------------------------------------------------- INTRO-1


@pytest.mark.parametrize(("epsilon", "prior"), [(LN3, 0.5), (0.2, 0.1), (3.0, 0.9), (1.0, 0.01)])
def test_differencing_posterior_and_band(epsilon, prior):
    figure = intro.DifferencingAttack(epsilon=epsilon, prior=prior)
    numbers = figure.numbers()
    first, second = np.random.default_rng(2005).laplace(0.0, 1.0, 2)
    seen = 1.0 + (first - second) / epsilon
    assert numbers["noisy difference $D$ seen"] == pytest.approx(seen, rel=1e-14)
    with mpmath.workdps(30):
        factor = convolved_density(seen - 1, epsilon) / convolved_density(seen, epsilon)
        odds = mpmath.mpf(prior) / (1 - mpmath.mpf(prior)) * factor
        posterior = float(odds / (1 + odds))
    assert numbers[r"factor on the odds, $g(D-1)/g(D)$"] == pytest.approx(float(factor), rel=1e-11)
    assert numbers["posterior P[Alice has it]"] == pytest.approx(posterior, rel=1e-11)
    # Never more than e^epsilon: inside the band of two releases (e^(2 epsilon)).
    assert math.exp(-epsilon) <= numbers[r"factor on the odds, $g(D-1)/g(D)$"] <= math.exp(epsilon)
    prior_odds = prior / (1 - prior)
    high = prior_odds * math.exp(2 * epsilon) / (1 + prior_odds * math.exp(2 * epsilon))
    low = prior_odds * math.exp(-2 * epsilon) / (1 + prior_odds * math.exp(-2 * epsilon))
    assert numbers[r"highest posterior $2\varepsilon$ allows"] == pytest.approx(high, rel=1e-13)
    assert numbers[r"lowest posterior $2\varepsilon$ allows"] == pytest.approx(low, rel=1e-13)
    # What is drawn: the bars, the band and the two curves' ratio at the seen D.
    assert figure.bars[0].get_height() == pytest.approx(prior)
    assert figure.bars[1].get_height() == 1.0
    assert figure.bars[2].get_height() == pytest.approx(posterior, rel=1e-11)
    assert figure.band.get_y() == pytest.approx(low) and figure.band.get_height() == pytest.approx(
        high - low
    )
    x, has_it = figure.has_line.get_data()
    _, has_not = figure.not_line.get_data()
    if figure.limits[0] < seen < figure.limits[1]:
        ratio = np.interp(seen, x, has_it) / np.interp(seen, x, has_not)
        assert ratio == pytest.approx(float(factor), rel=2e-3)


def test_differencing_at_the_lesson_setting():
    numbers = intro.DifferencingAttack().numbers()
    assert numbers[r"lowest posterior $2\varepsilon$ allows"] == pytest.approx(0.1)
    assert numbers[r"highest posterior $2\varepsilon$ allows"] == pytest.approx(0.9)
    assert 0.5 < numbers["posterior P[Alice has it]"] < 0.75


# --------------------------------------------------------------------------- INTRO-2


def test_reconstruction_shares_against_the_primal_lp():
    numbers = intro.Reconstruction().numbers()
    assert numbers[r"average at $E = 0.5$"] == pytest.approx(independent_fractions(0.5), abs=0.02)
    assert numbers[r"average at $E = \sqrt{n} = 10$"] == pytest.approx(
        independent_fractions(10.0), abs=0.02
    )
    assert numbers[r"average at $E = 40$"] == pytest.approx(independent_fractions(40.0), abs=0.02)
    assert numbers[r"average at $E = 0.5$"] >= 0.98
    assert 0.6 <= numbers[r"average at $E = \sqrt{n} = 10$"] <= 0.8
    assert numbers[r"average at $E = 40$"] <= 0.65


@pytest.mark.parametrize("noise_bound", [0.5, 3.0, 10.0, 22.5, 40.0])
def test_reconstruction_picture_is_the_attack(noise_bound):
    figure = intro.Reconstruction(noise_bound=noise_bound)
    numbers = figure.numbers()
    codes = np.asarray(figure.image.get_array())
    assert codes.shape == (10, 10)
    # Codes 0 and 1: a bit recovered; 2 and 3: missed.
    share = float(np.mean(codes < 2))
    assert numbers["bits recovered, first attack"] == share
    assert figure.marker.get_data()[1][0] == share
    assert numbers["noise size $E$ used"] == noise_bound
    assert numbers[r"$\varepsilon$ per answer, Laplace of scale $E$"] == pytest.approx(
        1 / noise_bound
    )
    assert numbers["basic composition, $m = 400$ answers"] == pytest.approx(400 / noise_bound)


def test_reconstruction_takes_a_value_from_code_to_the_nearest_step():
    figure = intro.Reconstruction(noise_bound=9.8)
    assert figure.numbers()["noise size $E$ used"] == 10.0
    figure.update(noise_bound=1000.0)
    assert figure.numbers()["noise size $E$ used"] == 40.0


def test_reconstruction_curve_holds_the_printed_values_and_says_what_it_averages():
    bounds = intro.CURVE_NOISE_BOUNDS
    assert list(bounds) == sorted(bounds) and len(set(bounds)) == len(bounds)
    assert {0.5, math.sqrt(intro.RECONSTRUCTION_N), 40.0} <= set(bounds)
    figure = intro.Reconstruction()
    line = next(line for line in figure.figure.axes[0].lines if line.get_marker() == "o")
    x, y = line.get_data()
    assert list(x) == list(bounds)
    assert list(y) == [
        attacks.mean_fraction_recovered(100, 400, bound, intro.RECONSTRUCTION_SEEDS)
        for bound in bounds
    ]
    assert line.get_label() == f"average of 5 attacks, {len(bounds)} values of $E$"


@pytest.mark.parametrize("noise_bound", [2.0, 6.0, 8.5, 12.0, 20.0])
def test_reconstruction_curve_between_its_points(noise_bound):
    """Joined by straight lines (on its log axis), the curve stays within the seeds'
    own scatter of the average at slider steps where it was not computed."""
    assert noise_bound not in intro.CURVE_NOISE_BOUNDS
    x, y = intro.reconstruction_curve()
    drawn = np.interp(math.log(noise_bound), np.log(x), y)
    average = attacks.mean_fraction_recovered(100, 400, noise_bound, intro.RECONSTRUCTION_SEEDS)
    assert drawn == pytest.approx(average, abs=0.02)


def test_reconstruction_solves_the_curve_when_built_and_a_step_when_first_shown():
    attacks._trial.cache_clear()
    intro.reconstruction_curve.cache_clear()
    figure = intro.Reconstruction()
    curve_attacks = len(intro.CURVE_NOISE_BOUNDS) * len(intro.RECONSTRUCTION_SEEDS)
    # The default E = sqrt(n) is on the curve: seed 0's attack there is already solved.
    assert attacks._trial.cache_info().currsize == curve_attacks
    figure.update(noise_bound=12.5)
    assert attacks._trial.cache_info().currsize == curve_attacks + 1
    figure.update(noise_bound=3.0)
    figure.update(noise_bound=12.5)
    assert attacks._trial.cache_info().currsize == curve_attacks + 1
    secret, recovered = attacks.reconstruction_trial(100, 400, 12.5, seed=0)
    assert figure.numbers()["bits recovered, first attack"] == np.mean(secret == recovered)


def test_reconstruction_slider_updates_on_release():
    slider = intro.Reconstruction.controls["noise_bound"].slider(10.0, "noise_bound")
    assert slider.continuous_update is False
    assert slider.value == 10.0 and slider.step == intro.NOISE_STEP


# --------------------------------------------------------------------------- INTRO-3


@pytest.mark.parametrize(("t", "claim"), [(0.75, 0.5), (0.75, 0.0), (0.6, 0.3), (0.99, 4.0)])
def test_randomized_response_figure(t, claim):
    figure = intro.RandomizedResponseLoss(truth_probability=t, claimed_epsilon=claim)
    numbers = figure.numbers()
    with mpmath.workdps(30):
        epsilon = mpmath.log(mpmath.mpf(t) / (1 - mpmath.mpf(t)))
        delta = max(mpmath.mpf(0), t - mpmath.exp(claim) * (1 - mpmath.mpf(t)))
    assert numbers[r"$\varepsilon = \ln(t/(1-t))$"] == pytest.approx(float(epsilon), rel=1e-14)
    assert numbers[r"$\delta(\varepsilon')$"] == pytest.approx(float(delta), rel=1e-12, abs=1e-15)
    heights = [bar.get_height() for bar in (*figure.d1_bars, *figure.d2_bars)]
    assert heights == pytest.approx([t, 1 - t, 1 - t, t])
    centres = [bar.get_x() + bar.get_width() / 2 for bar in figure.atoms]
    assert centres == pytest.approx([float(epsilon), -float(epsilon)], rel=1e-12)
    assert [bar.get_height() for bar in figure.atoms] == pytest.approx([t, 1 - t])


def test_fair_coins_are_lesson_one_epsilon():
    numbers = intro.RandomizedResponseLoss().numbers()
    # ln 3 within an ulp: log1p's last bit differs from CPU to CPU.
    assert oracle.ulps_from(numbers[r"$\varepsilon = \ln(t/(1-t))$"], mpmath.log(3)) <= 1
    assert numbers[r"$\delta(\varepsilon')$"] == pytest.approx(0.75 * (1 - math.exp(0.5) / 3))


# --------------------------------------------------------------------------- INTRO-4


def test_local_cost_at_the_lesson_setting():
    numbers = intro.LocalNoiseCost().numbers()
    q = 0.25 + 0.3 * 0.5
    assert numbers[r"local: sd of $\hat\pi$"] == pytest.approx(math.sqrt(q * (1 - q) / 1000) / 0.5)
    assert numbers[r"central: $\sqrt{2}/(n\varepsilon)$"] == pytest.approx(
        math.sqrt(2) / (1000 * LN3)
    )
    local_sd = numbers[r"local: sd of $\hat\pi$"]
    central_sd = numbers[r"central: $\sqrt{2}/(n\varepsilon)$"]
    assert f"{local_sd:.4f}" == "0.0310" and f"{central_sd:.5f}" == "0.00129"
    assert round(numbers["local / central"]) == 24


def test_local_cost_lines_have_slopes_one_half_and_one():
    figure = intro.LocalNoiseCost(proportion=0.4, truth_probability=0.8)
    for line, slope in [(figure.local_line, -0.5), (figure.central_line, -1.0)]:
        x, y = line.get_data()
        fitted = np.polyfit(np.log(x), np.log(y), 1)[0]
        assert fitted == pytest.approx(slope, abs=1e-9)


@pytest.mark.parametrize("n", [300.0, 1000.0, 20000.0])
def test_simulated_surveys_spread_as_the_standard_errors(n):
    figure = intro.LocalNoiseCost(n=n)
    numbers = figure.numbers()
    local_errors = figure.local_dots.get_xdata()
    central_errors = figure.central_dots.get_xdata()
    inside = np.abs(local_errors) < figure.spread * 0.99
    if inside.all():
        # 200 surveys: the sample sd is within about 5 % of the truth (one sd); allow 25 %.
        assert np.std(local_errors, ddof=1) == pytest.approx(
            numbers[r"local: sd of $\hat\pi$"], rel=0.25
        )
    central_sd = math.hypot(
        numbers[r"central: $\sqrt{2}/(n\varepsilon)$"], math.sqrt(0.3 * 0.7 / n)
    )
    assert np.std(central_errors, ddof=1) == pytest.approx(central_sd, rel=0.25)


# --------------------------------------------------------------------------- INTRO-5


@pytest.mark.parametrize(("epsilon", "prior"), [(LN3, 0.5), (0.1, 0.2), (2.0, 0.95)])
def test_definition_band(epsilon, prior):
    figure = intro.DefinitionBand(epsilon=epsilon, prior=prior)
    numbers = figure.numbers()
    odds = prior / (1 - prior)
    assert numbers["highest posterior allowed"] == pytest.approx(
        odds * math.exp(epsilon) / (1 + odds * math.exp(epsilon)), rel=1e-13
    )
    assert numbers["lowest posterior allowed"] == pytest.approx(
        odds * math.exp(-epsilon) / (1 + odds * math.exp(-epsilon)), rel=1e-13
    )
    vertices = figure.band.get_xy()
    # Every vertex of the drawn band: posterior odds = prior odds times e^(+-epsilon).
    x, y = vertices[:, 0], vertices[:, 1]
    inner = (x > 0.01) & (x < 0.99)
    factors = np.log(y[inner] / (1 - y[inner])) - np.log(x[inner] / (1 - x[inner]))
    assert np.allclose(np.abs(factors), epsilon, rtol=1e-9)
    _, (bottom, top) = figure.log_segment.get_data()
    assert top - bottom == pytest.approx(2 * epsilon)


def test_definition_at_lesson_one_setting():
    numbers = intro.DefinitionBand().numbers()
    assert numbers["lowest posterior allowed"] == pytest.approx(0.25)
    assert numbers["highest posterior allowed"] == pytest.approx(0.75)
    assert numbers[r"$e^{\varepsilon}$"] == pytest.approx(3.0)
