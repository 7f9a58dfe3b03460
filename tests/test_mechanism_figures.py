"""Figures MECH-1 to MECH-5: the numbers they show, against the core and independent sums."""

import math

import matplotlib

matplotlib.use("Agg")

import mpmath  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from scipy import stats  # noqa: E402

from dplearn import calibration, optimality, privacy_loss  # noqa: E402
from dplearn import sensitivity as s  # noqa: E402
from dplearn.figures import gaussian as gf  # noqa: E402
from dplearn.figures import mechanisms as mf  # noqa: E402

MPMATH_DIGITS = 50  # each test's mpmath precision (tests/conftest.py)


def exact_gaussian_delta(sigma, epsilon, sensitivity=1.0):
    """Balle & Wang's tight delta in 50-digit arithmetic, written out independently."""
    r = mpmath.mpf(sensitivity) / mpmath.mpf(sigma)
    epsilon = mpmath.mpf(epsilon)
    return mpmath.ncdf(r / 2 - epsilon / r) - mpmath.exp(epsilon) * mpmath.ncdf(
        -r / 2 - epsilon / r
    )


def classic_sigma(epsilon, delta, sensitivity=1.0):
    return mpmath.mpf(sensitivity) * mpmath.sqrt(2 * mpmath.log(1.25 / mpmath.mpf(delta))) / epsilon


# --------------------------------------------------------------------------- MECH-1


@pytest.mark.parametrize("upper", [15, 40, 60, 90])
def test_mech1_numbers_are_the_local_sensitivities(upper):
    figure = mf.NeighbourDifferences(upper=upper)
    numbers = figure.numbers()

    def query(rows):
        return s.clipped_age_sum(rows, upper=upper)

    for notion, label in (("add-remove", "add/remove"), ("replace", "replace")):
        expected = s.local_sensitivity(query, notion=notion)
        assert numbers[rf"$\ell_1$ sensitivity, {label} (local)"] == expected.l1
        assert numbers[rf"$\ell_2$ sensitivity, {label} (local)"] == expected.l2
    # By hand: the largest clipped age against 0, or the biggest swap on the toy rows.
    assert numbers[r"$\ell_1$ sensitivity, add/remove (local)"] == min(upper, 90)


def test_mech1_bars_show_every_neighbour():
    figure = mf.NeighbourDifferences(s.eye_and_age_counts, name="eye and age counts")
    assert figure.controls == {}  # the query takes no clipping bound: no slider
    bars = figure.bars["replace"]
    heights = [path.vertices[:, 1].max() for path in bars.get_paths()]
    pairs = s.neighbour_pairs(s.eye_and_age_counts, notion="replace")
    assert heights == pytest.approx([pair.l1 for pair in pairs])
    assert figure.numbers()[r"$\ell_1$ sensitivity, replace (local)"] == 3
    assert figure.numbers()[r"$\ell_2$ sensitivity, replace (local)"] == pytest.approx(math.sqrt(3))


def test_mech1_rejects_a_query_that_is_not_callable():
    with pytest.raises(ValueError, match="query must be callable"):
        mf.NeighbourDifferences(query=5)


# --------------------------------------------------------------------------- MECH-2


@pytest.mark.parametrize(("epsilon", "sensitivity"), [(1.0, 1.0), (0.1, 5.0), (5.0, 0.5)])
def test_mech2_ratio_stays_in_the_band_and_touches_it(epsilon, sensitivity):
    figure = mf.LaplaceRatio(epsilon=epsilon, sensitivity=sensitivity)
    z, ratio = figure.ratio_line.get_data()
    scale = sensitivity / epsilon
    expected = stats.laplace.pdf(z, 0, scale) / stats.laplace.pdf(z, sensitivity, scale)
    np.testing.assert_allclose(ratio, expected, rtol=1e-9)
    assert ratio.max() == pytest.approx(math.exp(epsilon), rel=1e-12)
    assert ratio.min() == pytest.approx(math.exp(-epsilon), rel=1e-12)
    # Tight exactly where the proof's triangle inequality is an equality.
    np.testing.assert_allclose(ratio[z <= 0], math.exp(epsilon), rtol=1e-12)
    np.testing.assert_allclose(ratio[z >= sensitivity], math.exp(-epsilon), rtol=1e-12)
    inside = (z > 1e-9) & (z < sensitivity - 1e-9)
    assert np.all((ratio[inside] < math.exp(epsilon)) & (ratio[inside] > math.exp(-epsilon)))
    numbers = figure.numbers()
    assert numbers[mf.SCALE_NAME] == pytest.approx(scale, rel=1e-15)


# --------------------------------------------------------------------------- MECH-3


@pytest.mark.parametrize(
    ("epsilon", "loss"), [(1.0, "absolute"), (0.2, "squared"), (3.0, "beyond tolerance")]
)
def test_mech3_lp_and_remapped_geometric_agree(epsilon, loss):
    figure = mf.GeometricOptimality(epsilon=epsilon, loss=loss)
    numbers = figure.numbers()
    assert numbers["geometric + best remap"] == pytest.approx(
        numbers["LP optimum (expected loss)"], rel=1e-7
    )
    assert numbers["truncated geometric, as is"] >= numbers["LP optimum (expected loss)"]
    assert numbers["largest ratio"] == pytest.approx(math.exp(epsilon), rel=1e-12)
    # The LP curve and the remapped points coincide at every epsilon of the grid.
    _, optima = figure.lp_curve.get_data()
    _, remapped = figure.remap_curve.get_data()
    np.testing.assert_allclose(remapped, optima, rtol=1e-7)


def test_mech3_pmf_is_the_discrete_laplace():
    figure = mf.GeometricOptimality(epsilon=0.7, sensitivity=2)
    pmf = figure.stems_y.get_ydata()[1::3]  # (foot, top, break) per integer
    expected = stats.dlaplace.pmf(figure.outputs - 2, 0.7 / 2)
    np.testing.assert_allclose(pmf, expected, rtol=1e-12)
    assert optimality.is_differentially_private(
        optimality.truncated_geometric(8, 0.7), 0.7, tolerance=1e-15
    )


# --------------------------------------------------------------------------- MECH-4


@pytest.mark.parametrize("delta", [1e-12, 1e-8, 1e-5, 1e-3, 0.1])
def test_classic_calibration_breaks_exactly_at_the_crossing(delta):
    crossing = calibration.classic_crossing_epsilon(delta)

    def exact_at_classic(epsilon):
        return exact_gaussian_delta(classic_sigma(epsilon, delta), epsilon)

    assert float(exact_at_classic(crossing)) == pytest.approx(delta, rel=1e-9)
    assert exact_at_classic(crossing * (1 - 1e-6)) < delta
    assert exact_at_classic(crossing * (1 + 1e-6)) > delta
    # The core agrees at the crossing, too.
    sigma = calibration.gaussian_sigma_classic(crossing, delta)
    assert privacy_loss.gaussian(sigma).delta(crossing) == pytest.approx(delta, rel=1e-9)


def test_the_articles_eps_below_one_is_only_sufficient():
    """At δ = 1e-5 the classic σ holds well beyond ε = 1 and fails for large ε."""
    delta = 1e-5
    crossing = calibration.classic_crossing_epsilon(delta)
    assert 8.0 < crossing < 9.0
    for epsilon in (0.1, 0.9, 1.5, 3.0, 6.0, 8.0):
        assert exact_gaussian_delta(classic_sigma(epsilon, delta), epsilon) < delta, epsilon
    for epsilon in (9.0, 12.0, 20.0):
        assert exact_gaussian_delta(classic_sigma(epsilon, delta), epsilon) > delta, epsilon


def test_mech4_numbers_come_from_the_core():
    figure = gf.GaussianCalibration(epsilon=2.0, delta=1e-6, sensitivity=3.0)
    numbers = figure.numbers()
    classic = calibration.gaussian_sigma_classic(2.0, 1e-6, 3.0)
    analytic = calibration.gaussian_sigma_analytic(2.0, 1e-6, 3.0)
    assert numbers[r"classic $\sigma$"] == classic
    assert numbers[r"analytic $\sigma$"] == analytic
    exact = float(exact_gaussian_delta(classic, 2.0, 3.0))
    assert numbers[r"exact $\delta$ at the classic $\sigma$"] == pytest.approx(exact, rel=1e-9)
    assert numbers[r"classic $\sigma$ keeps its promise"] == "yes"
    assert (
        numbers[r"extra noise of the classic $\sigma$"]
        == f"{100 * (classic / analytic - 1):+.1f} %"
    )
    figure.update(epsilon=15.0)
    assert figure.numbers()[r"classic $\sigma$ keeps its promise"] == "no"


# --------------------------------------------------------------------------- MECH-5


def analytic_sigma_mpmath(epsilon, delta):
    """Unit-sensitivity analytic sigma, solved in 50-digit arithmetic."""
    return mpmath.findroot(
        lambda log_sigma: (
            mpmath.log(exact_gaussian_delta(mpmath.exp(log_sigma), epsilon)) - mpmath.log(delta)
        ),
        mpmath.log(calibration.gaussian_sigma_analytic(epsilon, delta)),
    )


@pytest.mark.parametrize(
    ("epsilon", "delta"), [(1.0, 1e-5), (0.1, 1e-12), (10.0, 0.1), (3.0, 1e-8)]
)
def test_crossover_dimension_against_an_independent_solution(epsilon, delta):
    sigma = mpmath.exp(analytic_sigma_mpmath(epsilon, delta))
    expected = float((epsilon * sigma) ** 2 / 2)
    assert calibration.crossover_dimension(epsilon, delta) == pytest.approx(expected, rel=1e-9)
    assert calibration.crossover_dimension(epsilon, delta, "classic") == pytest.approx(
        math.log(1.25 / delta), rel=1e-12
    )
    # Brute force: the first whole d at which Gaussian noise per coordinate is smaller.
    first = next(
        d
        for d in range(1, 10_000)
        if calibration.gaussian_sigma_analytic(epsilon, delta, math.sqrt(d))
        < math.sqrt(2) * calibration.laplace_scale(epsilon, d)
    )
    assert first == math.floor(expected) + 1


def test_mech5_noise_is_drawn_once_and_rescaled():
    figure = gf.DimensionNoise(rng=np.random.default_rng(3))
    unit_laplace = figure.unit_laplace.copy()
    for epsilon, delta in ((1.0, 1e-5), (0.2, 1e-9), (7.0, 0.05)):
        figure.update(epsilon=epsilon, delta=delta)
        x, y = figure.gauss_points.get_data()
        sigma = math.sqrt(2) * epsilon * calibration.gaussian_sigma_analytic(epsilon, delta)
        np.testing.assert_allclose(np.column_stack([x, y]) / sigma, figure.unit_normal)
        x, y = figure.laplace_points.get_data()
        np.testing.assert_allclose(np.column_stack([x, y]) / 2.0, unit_laplace)
    again = gf.DimensionNoise(rng=np.random.default_rng(3))
    np.testing.assert_array_equal(again.unit_laplace, unit_laplace)


def test_mech5_regions_hold_ninety_percent():
    """Monte Carlo with a seed: the diamond and the circle each hold 90 % of their noise."""
    figure = gf.DimensionNoise(epsilon=1.0, delta=1e-5)
    rng = np.random.default_rng(11)
    radius_l1 = np.abs(figure.diamond.get_xy()[:, 0]).max()
    laplace = rng.laplace(scale=2.0, size=(200_000, 2))
    assert np.mean(np.abs(laplace).sum(axis=1) <= radius_l1) == pytest.approx(0.9, abs=0.003)
    x, y = figure.circle.get_data()
    sigma = math.sqrt(2) * calibration.gaussian_sigma_analytic(1.0, 1e-5)
    gauss = rng.normal(scale=sigma, size=(200_000, 2))
    radius = np.hypot(x, y).max()
    assert np.mean(np.hypot(*gauss.T) <= radius) == pytest.approx(0.9, abs=0.003)


def test_mech5_numbers():
    figure = gf.DimensionNoise(epsilon=0.5, delta=1e-6, bound=2.0, dimension=16)
    numbers = figure.numbers()
    assert numbers[r"$\ell_1$ sensitivity $d \cdot c$"] == 32.0
    assert numbers[r"$\ell_2$ sensitivity $\sqrt{d} \cdot c$"] == 8.0
    assert numbers["Laplace sd per coordinate"] == pytest.approx(math.sqrt(2) * 32 / 0.5)
    sigma = calibration.gaussian_sigma_analytic(0.5, 1e-6, 8.0)
    assert numbers["Gaussian sd per coordinate"] == pytest.approx(sigma, rel=1e-12)
    with pytest.raises(ValueError, match="rng"):
        gf.DimensionNoise(rng=3)


@pytest.mark.parametrize(
    ("make", "params", "match"),
    [
        (mf.NeighbourDifferences, {"upper": -5}, "upper"),
        (mf.LaplaceRatio, {"epsilon": 0.0}, "epsilon"),
        (mf.LaplaceRatio, {"sensitivity": -1.0}, "sensitivity"),
        (mf.GeometricOptimality, {"loss": 2}, "loss"),
        (mf.GeometricOptimality, {"loss": "cubed"}, "loss"),
        (mf.GeometricOptimality, {"sensitivity": 1.5}, "sensitivity"),
        (gf.GaussianCalibration, {"delta": 1.5}, "delta"),
        (gf.DimensionNoise, {"dimension": 0}, "dimension"),
        (gf.DimensionNoise, {"bound": float("nan")}, "bound"),
    ],
)
def test_bad_values_raise_and_leave_the_figure_as_it_was(make, params, match):
    figure = make()
    before = dict(figure.params)
    numbers = figure.numbers()
    with pytest.raises(ValueError, match=match):
        figure.update(**params)
    assert figure.params == before
    assert figure.numbers() == numbers


def test_crossing_rejects_a_delta_outside_the_unit_interval():
    with pytest.raises(ValueError, match="delta must lie in"):
        calibration.classic_crossing_epsilon(1.0)
    with pytest.raises(ValueError, match="calibration"):
        calibration.crossover_dimension(1.0, 1e-5, "tight")
