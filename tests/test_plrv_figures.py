"""Figures PLRV-1 to PLRV-10, PLRV-ODDS and PLRV-PROOF: the numbers they show and draw.

Expected values are derived here independently of dplearn: densities, integrals and
normal tails evaluated with mpmath at 50 digits, Monte Carlo with a seed, and brute
force over every set of a few bins. The shaded regions are measured from the drawn
polygons' vertices (width; shoelace area), not from the numbers used to build them.
"""

import itertools
import math
import re

import matplotlib
import mpmath
import numpy as np
import pytest

matplotlib.use("Agg")

from dplearn import privacy_loss  # noqa: E402
from dplearn.figures import delta as delta_figures  # noqa: E402
from dplearn.figures import plrv  # noqa: E402
from dplearn.figures.explorers import load_all  # noqa: E402

MPMATH_DIGITS = 50  # each test's mpmath precision (tests/conftest.py)
EXPLORERS = load_all()
LN3 = math.log(3.0)
EXCEEDS = r"$\Pr[\mathcal{L} > \varepsilon]$"


def ratio_name(index):
    """The readout's name of P[A(D1) = O_i] / P[A(D2) = O_i] in PLRV-1."""
    return rf"$\Pr[\mathcal{{A}}(D_1) = O_{index}] / \Pr[\mathcal{{A}}(D_2) = O_{index}]$"


# (epsilon, sigma, sensitivity): the document's setting and others across the sliders.
GAUSSIAN_SETTINGS = [
    (LN3, math.sqrt(3.0), 1.0),
    (0.5, 1.0, 1.0),
    (2.0, 0.7, 2.0),
    (0.1, 3.0, 0.5),
    (1.5, 2.0, 4.0),
    (0.05, 0.5, 4.0),
]


def laplace_density(output, center, scale):
    output, center, scale = map(mpmath.mpf, (output, center, scale))
    return mpmath.exp(-abs(output - center) / scale) / (2 * scale)


def gaussian_density(output, center, sigma):
    return mpmath.npdf(mpmath.mpf(output), mpmath.mpf(center), mpmath.mpf(sigma))


def gaussian_exceeds(epsilon, sigma, sensitivity):
    """P[L > eps] from the outputs: L(o) > eps iff o < center + Delta/2 - eps sigma^2 / Delta."""
    sigma, sensitivity, epsilon = map(mpmath.mpf, (sigma, sensitivity, epsilon))
    boundary = sensitivity / 2 - epsilon * sigma**2 / sensitivity
    return mpmath.ncdf(boundary / sigma)


def gaussian_delta(epsilon, sigma, sensitivity):
    """Integral over outputs of max(0, p1 - e^eps p2): the definition, not a closed form."""
    sigma, sensitivity, epsilon = map(mpmath.mpf, (sigma, sensitivity, epsilon))
    boundary = sensitivity / 2 - epsilon * sigma**2 / sensitivity

    def gap(output):
        return gaussian_density(output, 0, sigma) - mpmath.exp(epsilon) * gaussian_density(
            output, sensitivity, sigma
        )

    return mpmath.quad(gap, [-mpmath.inf, boundary - 10 * sigma, boundary - sigma, boundary])


def shoelace(vertices):
    x, y = np.asarray(vertices, dtype=float).T
    return 0.5 * abs(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1)))


def figure_text(explorer):
    return " ".join(text.get_text() for text in explorer.figure.findobj(matplotlib.text.Text))


def make(figure_id, **params):
    return EXPLORERS[figure_id](**params)


def test_every_figure_of_the_lesson_is_registered():
    expected = {f"PLRV-{n}" for n in range(1, 11)} | {"PLRV-ODDS", "PLRV-PROOF"}
    assert expected <= set(EXPLORERS)
    # Lesson 02's Gaussian figures in their own module, the rest beside the shared setting.
    lesson02 = {f"PLRV-{n}" for n in range(4, 10)} | {"PLRV-PROOF"}
    for figure_id in expected:
        module = "dplearn.figures.delta" if figure_id in lesson02 else "dplearn.figures.plrv"
        assert EXPLORERS[figure_id].__module__ == module


# --- Laplace: PLRV-1 to PLRV-3 ---------------------------------------------------------


@pytest.mark.parametrize("scale, sensitivity", [(1 / LN3, 1.0), (0.5, 2.0), (3.0, 0.25)])
def test_plrv1_odds_ratios_are_the_density_ratios(scale, sensitivity):
    explorer = make("PLRV-1", scale=scale, sensitivity=sensitivity)
    count = plrv.COUNT_D1
    numbers = explorer.numbers()
    for index, output in enumerate(plrv.MARKED_OUTPUTS, start=1):
        expected = laplace_density(output, count, scale) / laplace_density(
            output, count + sensitivity, scale
        )
        shown = numbers[ratio_name(index)]
        assert shown == pytest.approx(float(expected), rel=1e-12)


def test_plrv1_shows_three_one_and_a_third_at_the_document_setting():
    explorer = make("PLRV-1")
    ratios = [explorer.numbers()[ratio_name(i)] for i in (1, 2, 3)]
    assert ratios == pytest.approx([3.0, 1.0, 1.0 / 3.0], rel=1e-12)
    text = figure_text(explorer)
    assert "O₁: ×3" in text and "O₂: ×1" in text and "O₃: ÷3" in text
    # The dots sit on the two densities.
    dots = explorer.marks[0][1].get_ydata()
    assert dots[0] == pytest.approx(float(laplace_density(999, 1000, 1 / LN3)), rel=1e-12)
    assert dots[1] == pytest.approx(float(laplace_density(999, 1001, 1 / LN3)), rel=1e-12)


def test_plrv1_outputs_read_the_same_on_slider_text_marker_and_table():
    """O2 = 1000.5: the slider's readout, the table and the marker all say 1000.5
    (the slider's four significant digits read 1001, the table's 1000)."""
    explorer = make("PLRV-1")
    control = explorer.controls["output2"]
    slider = control.slider(explorer.params["output2"], "output2")
    assert format(slider.value, slider.readout_format.lstrip("~")) == "1000.5"
    assert explorer.numbers()["$O_2$"] == "1000.5"
    assert explorer.marks[1][0].get_xdata()[0] == 1000.5
    assert "count" not in explorer.controls  # the marks cannot be left behind


def test_plrv1_marked_output_slider_moves_its_mark():
    explorer = make("PLRV-1", output2=1005.0)
    assert explorer.marks[1][0].get_xdata()[0] == 1005.0
    expected = laplace_density(1005, 1000, 1 / LN3) / laplace_density(1005, 1001, 1 / LN3)
    assert explorer.numbers()[ratio_name(2)] == pytest.approx(float(expected))


def test_plrv2_loss_never_exceeds_ln3():
    explorer = make("PLRV-2")
    outputs, loss = explorer.loss_line.get_data()
    expected = [
        float(mpmath.log(laplace_density(o, 1000, 1 / LN3) / laplace_density(o, 1001, 1 / LN3)))
        for o in outputs[::50]
    ]
    assert loss[::50] == pytest.approx(expected, abs=1e-12)
    assert loss.max() <= LN3 + 1e-12 and loss.min() >= -LN3 - 1e-12
    assert loss.max() == pytest.approx(LN3, rel=1e-12)  # reached on the flat part
    numbers = explorer.numbers()
    assert numbers[r"$\max \mathcal{L} = \Delta / b$"] == pytest.approx(LN3, rel=1e-14)
    assert numbers[EXCEEDS] == 0.0 and numbers[r"$\delta(\varepsilon)$"] == 0.0
    assert "≤ ε" in explorer.verdict.get_text()
    assert explorer.above.get_xdata().size == 0


def test_plrv2_a_smaller_scale_exceeds_epsilon():
    explorer = make("PLRV-2", scale=0.5)
    # L > ln 3 where the output o - 1000 < (1 - 0.5 ln 3) / 2, under Laplace(1000, 0.5).
    cut = (1 - 0.5 * mpmath.log(3)) / 2
    expected = 1 - mpmath.exp(-cut / mpmath.mpf(0.5)) / 2
    assert explorer.numbers()[EXCEEDS] == pytest.approx(float(expected), rel=1e-12)
    assert "> ε" in explorer.verdict.get_text()
    assert explorer.above.get_xdata().size > 0


@pytest.mark.parametrize("scale, sensitivity", [(1 / LN3, 1.0), (0.5, 2.0), (3.0, 0.5)])
def test_plrv3_step_widths_are_probabilities_of_the_three_parts(scale, sensitivity):
    explorer = make("PLRV-3", scale=scale, sensitivity=sensitivity)
    numbers = explorer.numbers()
    # Top: outputs at or below D1's count; bottom: at or above D2's; by the Laplace CDF.
    bottom = mpmath.exp(-mpmath.mpf(sensitivity) / scale) / 2
    assert numbers[r"top step ($e^{\mathcal{L}} = e^{\Delta/b}$): width"] == pytest.approx(
        0.5, rel=1e-14
    )
    assert numbers[r"bottom step ($e^{\mathcal{L}} = e^{-\Delta/b}$): width"] == pytest.approx(
        float(bottom), rel=1e-12
    )
    assert numbers["middle part: width"] == pytest.approx(float(0.5 - bottom), rel=1e-12)
    # The same widths by Monte Carlo: a seeded sample of A(D1) (count 0), split where
    # the loss is flat: at or below D1's count, at or above D2's.
    rng = np.random.default_rng(3)
    outputs = rng.laplace(0.0, scale, 400_000)
    tolerance = 4 * math.sqrt(0.25 / outputs.size)
    assert np.mean(outputs <= 0) == pytest.approx(0.5, abs=tolerance)
    assert np.mean(outputs >= sensitivity) == pytest.approx(float(bottom), abs=tolerance)


def test_plrv3_widths_match_the_jumps_of_the_core_quantile():
    explorer = make("PLRV-3")
    top, middle, bottom = explorer.widths
    assert (top, middle, bottom) == pytest.approx((1 / 2, 1 / 3, 1 / 6), rel=1e-12)
    noise = explorer.noise
    below_top = np.nextafter(top, 0)
    assert noise.loss_quantile(below_top) == pytest.approx(LN3, rel=1e-12)
    assert noise.loss_quantile(top + 1e-9) < LN3
    assert noise.loss_quantile(1 - bottom) == pytest.approx(-LN3, rel=1e-9)
    assert noise.loss_exceeds(LN3 * (1 - 1e-12)) == pytest.approx(top, rel=1e-9)
    labels = [label.get_text() for _, label in explorer.brackets]
    assert "1/2" in labels[0] and "1/3" in labels[1] and "1/6" in labels[2]
    x, y = explorer.curve.get_data()
    assert y.max() == pytest.approx(3.0, rel=1e-12) and y.min() == pytest.approx(1 / 3, rel=1e-12)


# --- The attacker's odds -----------------------------------------------------------------


@pytest.mark.parametrize("prior_odds", [0.01, 0.25, 1.0, 7.0, 100.0])
def test_odds_are_prior_times_the_density_ratio(prior_odds):
    explorer = make("PLRV-ODDS", prior_odds=prior_odds)
    numbers = explorer.numbers()
    for index, output in enumerate(plrv.MARKED_OUTPUTS, start=1):
        ratio = laplace_density(output, 1000, 1 / LN3) / laplace_density(output, 1001, 1 / LN3)
        expected = float(prior_odds * ratio)
        assert numbers[f"posterior odds after $O_{index}$"] == pytest.approx(expected, rel=1e-12)
        # Bayes' rule on probabilities gives the same: P[D1 | O] / P[D2 | O].
        prior = mpmath.mpf(prior_odds) / (1 + prior_odds)
        p1 = prior * laplace_density(output, 1000, 1 / LN3)
        p2 = (1 - prior) * laplace_density(output, 1001, 1 / LN3)
        assert numbers[f"posterior odds after $O_{index}$"] == pytest.approx(float(p1 / p2))
    heights = [bar.get_height() + 1.0 for bar in explorer.bars]
    assert heights == pytest.approx(np.clip(explorer.odds, *explorer.limits).tolist(), rel=1e-12)


def test_odds_at_even_prior_are_three_one_and_a_third():
    explorer = make("PLRV-ODDS")
    assert explorer.odds == pytest.approx([1.0, 3.0, 1.0, 1.0 / 3.0], rel=1e-12)
    text = figure_text(explorer)
    assert "3 : 1" in text and "1 : 3" in text
    assert explorer.numbers()[r"$\Pr[D = D_1]$ after $O_1$"] == pytest.approx(0.75, rel=1e-12)


# --- Gaussian: PLRV-4 to PLRV-9 ----------------------------------------------------------


def test_plrv4_densities_sit_at_the_two_counts():
    explorer = make("PLRV-4", count=1003, sensitivity=2.0)
    for line, center in ((explorer.line_d1, 1003), (explorer.line_d2, 1005)):
        x, y = line.get_data()
        assert x[np.argmax(y)] == pytest.approx(center, abs=0.03)
        assert y.max() == pytest.approx(float(gaussian_density(0, 0, math.sqrt(3))), rel=1e-4)
    assert explorer.numbers()[r"$\sigma^2$"] == pytest.approx(3.0, rel=1e-12)


@pytest.mark.parametrize("epsilon, sigma, sensitivity", GAUSSIAN_SETTINGS[:4])
def test_plrv5_loss_is_normal_with_mean_mu_and_variance_two_mu(epsilon, sigma, sensitivity):
    explorer = make("PLRV-5", epsilon=epsilon, sigma=sigma, sensitivity=sensitivity)
    numbers = explorer.numbers()
    mu = sensitivity**2 / (2 * sigma**2)
    assert numbers[r"$\mu = \Delta^2/(2\sigma^2)$"] == pytest.approx(mu, rel=1e-12)
    assert numbers[r"variance of $\mathcal{L}$: $2\mu$"] == pytest.approx(2 * mu, rel=1e-12)
    rng = np.random.default_rng(5)
    samples = rng.normal(1000.0, sigma, 400_000)
    d1 = -((samples - 1000.0) ** 2) / (2 * sigma**2)
    d2 = -((samples - 1000.0 - sensitivity) ** 2) / (2 * sigma**2)
    loss = d1 - d2
    spread = math.sqrt(2 * mu)
    assert loss.mean() == pytest.approx(mu, abs=5 * spread / math.sqrt(loss.size))
    assert loss.var() == pytest.approx(2 * mu, rel=0.01)
    assert numbers[EXCEEDS] == pytest.approx(
        float(gaussian_exceeds(epsilon, sigma, sensitivity)), rel=1e-9
    )
    x, y = explorer.loss_line.get_data()
    assert np.diff(y) / np.diff(x) == pytest.approx(-sensitivity / sigma**2, rel=1e-9)


def test_plrv6_curve_shoots_up_on_the_left():
    explorer = make("PLRV-6")
    x, y = explorer.curve.get_data()
    assert x[0] == 0.0 and y[0] >= explorer.top  # off the top of the axes at x = 0
    assert np.all(np.diff(y) <= 1e-12)
    z = mpmath.sqrt(2) * mpmath.erfinv(2 * mpmath.mpf("0.001") - 1)  # Phi^-1(0.001)
    expected = mpmath.exp(mpmath.mpf(1) / 6 - z / mpmath.sqrt(3))
    assert explorer.numbers()[r"$e^{\mathcal{L}}$ at $x = 0.001$"] == pytest.approx(
        float(expected), rel=1e-9
    )


@pytest.mark.parametrize("epsilon, sigma, sensitivity", GAUSSIAN_SETTINGS)
def test_plrv7_drawn_band_is_delta1_wide(epsilon, sigma, sensitivity):
    explorer = make("PLRV-7", epsilon=epsilon, sigma=sigma, sensitivity=sensitivity)
    vertices = explorer.band.get_xy()
    width = vertices[:, 0].max() - vertices[:, 0].min()
    expected = float(gaussian_exceeds(epsilon, sigma, sensitivity))
    assert width == pytest.approx(expected, rel=1e-3, abs=1e-12)
    assert width == pytest.approx(explorer.numbers()[plrv.DELTA1_NAME], rel=1e-12)
    # The band lies above the line e^epsilon: it shades only the bad events.
    assert vertices[:, 1].min() == pytest.approx(math.exp(epsilon), rel=1e-12)
    bracket = explorer.bracket.get_xdata()
    assert bracket[1] - bracket[0] == pytest.approx(expected, rel=1e-9)


def test_plrv7_document_value_and_its_label():
    explorer = make("PLRV-7")
    expected = mpmath.ncdf(-(mpmath.log(3) - mpmath.mpf(1) / 6) / mpmath.sqrt(mpmath.mpf(1) / 3))
    assert explorer.width == pytest.approx(float(expected), rel=1e-12)
    assert round(explorer.width, 4) == 0.0532  # the document's "about 0.054" is a rounding slip
    assert f"δ₁ = {float(expected):.4g}" in explorer.label.get_text()


def test_plrv8_two_outputs_losses_and_weights():
    explorer = make("PLRV-8")
    numbers = explorer.numbers()
    sigma = mpmath.sqrt(3)
    for index, position in enumerate(plrv.BAD_POSITIONS, start=1):
        z = mpmath.sqrt(2) * mpmath.erfinv(2 * mpmath.mpf(position) - 1)
        output = 1000 + sigma * z
        loss = mpmath.log(
            gaussian_density(output, 1000, sigma) / gaussian_density(output, 1001, sigma)
        )
        assert numbers[f"$O_{index}$: output"] == pytest.approx(float(output), rel=1e-12)
        assert numbers[rf"$O_{index}$: $\mathcal{{L}}$"] == pytest.approx(float(loss), rel=1e-9)
        assert numbers[rf"$O_{index}$: weight in $\delta_1$"] == 1.0
        assert numbers[rf"$O_{index}$: weight in $\delta_2$"] == pytest.approx(
            float(1 - 3 / mpmath.exp(loss)), rel=1e-9
        )
        weights = explorer.marks[index - 1][3].get_ydata()
        assert weights == pytest.approx([1.0, float(1 - 3 / mpmath.exp(loss))], rel=1e-9)
    # O1 is a little above the line, O2 far above it.
    assert (
        0
        < numbers[r"$O_1$: weight in $\delta_2$"]
        < 0.1
        < 0.5
        < numbers[r"$O_2$: weight in $\delta_2$"]
    )
    assert (
        numbers[r"$O_1$: $\mathcal{L}$"] > LN3
        and numbers[r"$O_2$: $e^{\mathcal{L}}$"] > 1.9 * numbers[r"$O_1$: $e^{\mathcal{L}}$"]
    )
    assert numbers[r"$O_2$: weight in $\delta_2$"] > 10 * numbers[r"$O_1$: weight in $\delta_2$"]


def test_plrv8_an_output_outside_the_bad_events_weighs_nothing():
    explorer = make("PLRV-8", position1=0.3)
    numbers = explorer.numbers()
    assert numbers[r"$O_1$: $\mathcal{L}$"] < LN3
    assert (
        numbers[r"$O_1$: weight in $\delta_1$"] == 0.0
        and numbers[r"$O_1$: weight in $\delta_2$"] == 0.0
    )


@pytest.mark.parametrize("epsilon, sigma, sensitivity", GAUSSIAN_SETTINGS)
def test_plrv9_drawn_area_is_delta2(epsilon, sigma, sensitivity):
    explorer = make("PLRV-9", epsilon=epsilon, sigma=sigma, sensitivity=sensitivity)
    expected = float(gaussian_delta(epsilon, sigma, sensitivity))
    for area in explorer.areas:
        assert shoelace(area.get_xy()) == pytest.approx(expected, rel=1e-3)
    assert explorer.numbers()[plrv.DELTA2_AREA_NAME] == pytest.approx(expected, rel=1e-9)
    # The dashed box is delta_1 wide and 1 high: its area is delta_1.
    box_x = explorer.boxes[0].get_xdata()
    assert max(box_x) == pytest.approx(float(gaussian_exceeds(epsilon, sigma, sensitivity)))


def test_plrv9_document_values():
    explorer = make("PLRV-9")
    numbers = explorer.numbers()
    delta = float(gaussian_delta(LN3, math.sqrt(3), 1.0))
    assert numbers[plrv.DELTA2_AREA_NAME] == pytest.approx(delta, rel=1e-12)
    assert round(delta, 3) == 0.011  # the document's "about 0.011"
    assert f"δ₂ = {delta:.4g}" in explorer.note.get_text()
    assert numbers[r"$\delta_2 / \delta_1$"] < 0.25


def test_area_grid_is_fine_enough_for_a_hard_case():
    noise = plrv.privacy_loss.gaussian(0.5, 4.0)  # delta_1 and delta_2 both near 1
    vertices = plrv.delta_area_region(noise, 0.05)
    assert shoelace(vertices) == pytest.approx(float(gaussian_delta(0.05, 0.5, 4.0)), rel=1e-4)
    positions = plrv.probability_positions(0.25)
    assert positions[0] == 0.0 and positions[-1] == 0.25 and np.all(np.diff(positions) > 0)


# --- The worst set: PLRV-PROOF -------------------------------------------------------------


@pytest.mark.parametrize("epsilon, sigma, sensitivity", GAUSSIAN_SETTINGS[:4])
def test_proof_worst_set_gives_delta2_and_no_random_set_beats_it(epsilon, sigma, sensitivity):
    explorer = make("PLRV-PROOF", epsilon=epsilon, sigma=sigma, sensitivity=sensitivity)
    expected = float(gaussian_delta(epsilon, sigma, sensitivity))
    assert explorer.worst_delta == pytest.approx(expected, rel=1e-9)
    assert explorer.deltas.size == 300
    assert np.all(explorer.deltas <= expected * (1 + 1e-9))
    assert explorer.numbers()[r"random sets with $\delta_S > \delta_2$"] == 0.0
    # Some random sets come close (the ones near the worst set), so the check is not idle.
    assert explorer.deltas.max() > 0.5 * expected


def test_proof_worst_bins_are_exactly_the_outputs_with_loss_above_epsilon():
    noise = plrv.privacy_loss.gaussian(math.sqrt(3), 1.0, center=1000)
    edges, mass_d1, mass_d2 = privacy_loss.discretise_outputs(noise, LN3)
    worst = mass_d1 > 3.0 * mass_d2
    lower, upper = edges[:-1], edges[1:]
    # Every output of a worst bin has L > eps (L falls with the output: check right edges).
    assert np.all(noise.privacy_loss(upper[worst]) >= LN3 - 1e-9)
    assert np.all(noise.privacy_loss(lower[~worst]) <= LN3 + 1e-9)
    assert mass_d1.sum() == pytest.approx(1.0, rel=1e-12)
    assert mass_d2.sum() == pytest.approx(1.0, rel=1e-12)
    # Bin masses against mpmath.
    for index in (0, 200, 401, 801):
        a, b = (mpmath.mpf(edges[index]), mpmath.mpf(edges[index + 1]))
        expected = mpmath.ncdf((b - 1000) / mpmath.sqrt(3)) - mpmath.ncdf(
            (a - 1000) / mpmath.sqrt(3)
        )
        assert mass_d1[index] == pytest.approx(float(expected), rel=1e-9)


def test_proof_brute_force_over_every_set_of_a_coarse_discretisation():
    """With 10 bins there are 4096 sets: the best is the worst set, and it is <= delta_2."""
    noise = plrv.privacy_loss.gaussian(math.sqrt(3), 1.0)
    _, mass_d1, mass_d2 = privacy_loss.discretise_outputs(noise, LN3, bins=10, reach=3.0)
    members = np.array(list(itertools.product([False, True], repeat=mass_d1.size)))
    deltas = privacy_loss.set_deltas(mass_d1, mass_d2, LN3, members)
    best = members[np.argmax(deltas)]
    assert np.array_equal(best, mass_d1 > 3.0 * mass_d2)
    exact = float(gaussian_delta(LN3, math.sqrt(3), 1.0))
    # The boundary is a bin edge, so even this coarse grid gives delta_2 exactly.
    assert deltas.max() == pytest.approx(exact, rel=1e-9)
    # A grid with no edge on the boundary loses a little, never gains.
    shifted = plrv.privacy_loss.gaussian(math.sqrt(3), 1.0)
    _, d1, d2 = privacy_loss.discretise_outputs(shifted, LN3 + 0.3, bins=10, reach=3.0)
    coarse_best = privacy_loss.set_deltas(d1, d2, LN3, (d1 > 3.0 * d2)[None, :])[0]
    assert coarse_best < exact


def test_proof_random_sets_are_drawn_once_and_reproducible():
    first = make("PLRV-PROOF")
    again = EXPLORERS["PLRV-PROOF"](rng=np.random.default_rng(delta_figures.WorstSetCheck.seed))
    assert np.array_equal(first.deltas, again.deltas)
    members = first.sets.members(np.arange(802) < 401)
    first.update(epsilon=0.5)
    assert np.array_equal(first.sets.members(np.arange(802) < 401), members)


# --- Distinguishing events: PLRV-10 --------------------------------------------------------


@pytest.mark.parametrize("epsilon", [0.05, LN3, 2.0, 5.0])
def test_plrv10_delta1_equals_delta2_equals_the_publication_probability(epsilon):
    explorer = make("PLRV-10", epsilon=epsilon)
    expected = float(mpmath.mpf(1) / 2 * mpmath.mpf(3) ** -4)
    numbers = explorer.numbers()
    assert numbers[plrv.DELTA1_NAME] == pytest.approx(expected, rel=1e-12)
    assert numbers[plrv.DELTA2_NAME] == pytest.approx(expected, rel=1e-12)
    for area in explorer.areas:
        assert shoelace(area.get_xy()) == pytest.approx(expected, rel=1e-12)
    x, y = explorer.curves[0].get_data()
    assert list(x) == pytest.approx([0, expected, expected, 1], rel=1e-12)
    assert list(y) == [0, 0, 1, 1]


@pytest.mark.parametrize("threshold, scale", [(3.0, 1 / LN3), (10.0, 3.0), (1.0, 0.5)])
def test_plrv10_threshold_and_scale(threshold, scale):
    explorer = make("PLRV-10", threshold=threshold, scale=scale)
    # P[1 + Lap(scale) >= threshold] from the Laplace density, by integration.
    expected = mpmath.quad(
        lambda output: laplace_density(output, 1, scale), [threshold, threshold + 1, mpmath.inf]
    )
    assert explorer.numbers()[plrv.DELTA2_NAME] == pytest.approx(float(expected), rel=1e-9)
    assert shoelace(explorer.areas[0].get_xy()) == pytest.approx(float(expected), rel=1e-9)


# --- Every figure: the numbers drawn are the numbers reported ------------------------------


def numbers_in(text):
    return [float(match) for match in re.findall(r"-?\d+(?:\.\d+)?(?:e[-+]?\d+)?", text)]


def shows(text, value, rel=1e-3):
    """Whether text contains value, as printed to 4 significant digits or more."""
    return any(math.isclose(number, value, rel_tol=rel) for number in numbers_in(text))


def test_labels_on_the_figures_show_the_reported_numbers():
    plrv5 = make("PLRV-5")
    assert shows(plrv5.note.get_text(), plrv5.numbers()[EXCEEDS])
    assert shows(plrv5.note.get_text(), 1 / 6)
    for epsilon, sigma in [(0.5, 1.0), (LN3, math.sqrt(3)), (2.0, 0.7)]:
        plrv9 = make("PLRV-9", epsilon=epsilon, sigma=sigma)
        assert shows(plrv9.note.get_text(), float(gaussian_delta(epsilon, sigma, 1.0)))
        assert shows(plrv9.note.get_text(), float(gaussian_exceeds(epsilon, sigma, 1.0)))
    for threshold in (3.0, 7.0, 15.0):
        plrv10 = make("PLRV-10", threshold=threshold)
        published = float(mpmath.exp(-(threshold - 1) * mpmath.log(3)) / 2)
        assert shows(plrv10.note.get_text(), published)
    proof = make("PLRV-PROOF")
    assert shows(proof.note.get_text(), float(gaussian_delta(LN3, math.sqrt(3), 1.0)), rel=1e-7)
    plrv8 = make("PLRV-8")
    assert shows(plrv8.marks[1][2].get_text(), plrv8.numbers()[r"$O_2$: $\mathcal{L}$"])
    plrv2 = make("PLRV-2", scale=0.5)
    assert shows(plrv2.verdict.get_text(), 2.0)  # max L = 1 / 0.5


@pytest.mark.parametrize(
    "figure_id, name, value",
    [("PLRV-7", "sigma", -1.0), ("PLRV-1", "scale", 0.0), ("PLRV-8", "position1", 1.5)],
)
def test_bad_input_names_the_parameter_and_keeps_the_figure(figure_id, name, value):
    explorer = make(figure_id)
    before = explorer.numbers()
    with pytest.raises(ValueError, match=name):
        explorer.update(**{name: value})
    assert explorer.numbers() == before


@pytest.mark.parametrize("figure_id", [f for f in EXPLORERS if f.startswith("PLRV")])
def test_document_values_sit_on_the_slider_grid(figure_id):
    """A browser snaps sliders to their steps: the document's values must be steps."""
    explorer_class = EXPLORERS[figure_id]
    for name, control in explorer_class.controls.items():
        value = explorer_class.defaults[name]
        slider = control.slider(value, name)
        if control.integer:
            continue
        position = (math.log10(value) if control.log else value) - slider.min
        steps = position / slider.step
        assert steps == pytest.approx(round(steps), abs=1e-6), (name, value)
        assert control.minimum <= value <= control.maximum


@pytest.mark.parametrize("threshold", [1.0, 2.0, 3.0, 5.0, 9.0, 14.0])
def test_plrv10_zoom_follows_the_published_mass(threshold):
    """The published block fills between 1/12.5 and 2/5 of the zoom (a fixed zoom on
    x < 0.02 would be one solid block at threshold 3), and the ticks cover the zoom."""
    explorer = make("PLRV-10", threshold=threshold)
    published = explorer.mechanism.published_probability
    right = explorer.axes[1].get_xlim()[1]
    assert right == explorer.zoom
    assert published / right <= 0.4 or right == 1.0
    assert published / right >= 0.08 or right == 1e-6
    ticks = [x for x in explorer.zoom_axis.marks.get_xdata() if np.isfinite(x)]
    assert min(ticks) == 0.0 and max(ticks) >= 0.5 * right
