"""NOISE-1 to NOISE-4 and NOISE-LEAK: exact numbers against independent ones."""

import pathlib

import matplotlib

matplotlib.use("Agg")

import mpmath  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
import seaborn as sns  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from scipy import stats  # noqa: E402

from dplearn import mechanisms  # noqa: E402
from dplearn.figures import noise as nf  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[1]


def rounded_laplace_pmf(k, scale):
    """P[rint(X) = k] for X ~ Lap(scale), with mpmath (ties have probability 0)."""
    b = mpmath.mpf(scale)

    def cdf(x):
        x = mpmath.mpf(x)
        return mpmath.exp(x / b) / 2 if x < 0 else 1 - mpmath.exp(-x / b) / 2

    return cdf(k + 0.5) - cdf(k - 0.5)


@pytest.mark.parametrize(
    "epsilon, sensitivity, tolerance", [(1, 1, 5), (0.3, 2, 0), (5, 0.5, 12), (0.1, 5, 20)]
)
def test_within_tolerance_probability_against_a_pmf_sum(epsilon, sensitivity, tolerance):
    scale = mpmath.mpf(sensitivity) / epsilon
    exact = mpmath.fsum(rounded_laplace_pmf(k, scale) for k in range(-tolerance, tolerance + 1))
    assert mechanisms.within_tolerance_probability(
        epsilon, sensitivity, tolerance
    ) == pytest.approx(float(exact), rel=1e-12, abs=1e-15)


def test_the_posts_number():
    assert mechanisms.within_tolerance_probability(1, 1, 5) == pytest.approx(
        1 - np.exp(-5.5), rel=1e-14
    )
    assert round(mechanisms.within_tolerance_probability(1, 1, 5), 4) == 0.9959


def test_within_tolerance_by_monte_carlo_with_the_posts_rounding():
    rng = np.random.default_rng(17)
    draws = 400_000
    noise = np.rint(rng.laplace(0.0, 2.0, draws))
    p = mechanisms.within_tolerance_probability(0.5, 1.0, 3)
    error = np.sqrt(p * (1 - p) / draws)
    assert abs(np.mean(np.abs(noise) <= 3) - p) < 4 * error


def test_noise2_counts_follow_the_binomial():
    explorer = nf.OneDimensionalQuery()
    for params in [{}, {"epsilon": 0.3, "tolerance": 2, "answers": 60}]:
        explorer.update(**params)
        v = explorer._values
        p, n = v["probability"], v["answers"]
        error = np.sqrt(n * p * (1 - p) / explorer.experiments)
        assert abs(v["mean"] - n * p) < 4 * error
        assert v["all_inside"] == pytest.approx(p**n, rel=1e-12)
        # The misses histogram and the exact probabilities each sum to one.
        assert explorer._frequency.get_data().values.sum() == pytest.approx(1.0)
        assert explorer._pmf.get_ydata().sum() == pytest.approx(1.0)


def test_noise2_resample_draws_new_noise_in_place():
    explorer = nf.OneDimensionalQuery()
    before = explorer._standard.copy()
    artists = len(explorer.figure.findobj())
    explorer.resample(np.random.default_rng(99))
    assert not np.array_equal(before, explorer._standard)
    assert len(explorer.figure.findobj()) == artists


@pytest.mark.parametrize("scale, coverage", [(5.0, 0.8), (1.0, 0.8), (0.2, 0.5), (37.0, 0.95)])
def test_central_interval_is_the_smallest(scale, coverage):
    half_width, probability = mechanisms.central_interval(scale, coverage)
    inside = mpmath.fsum(rounded_laplace_pmf(k, scale) for k in range(-half_width, half_width + 1))
    assert probability == pytest.approx(float(inside), rel=1e-12)
    assert probability >= coverage
    if half_width > 0:
        smaller = inside - rounded_laplace_pmf(half_width, scale) * 2
        assert smaller < coverage


def test_noise3_document_setting():
    explorer = nf.TwoDimensionalQuery()
    v = explorer._values
    # Sensitivities 4 and 1 with a fifth of the budget on the small coordinate: each
    # coordinate gets Lap(5/epsilon), the l1 Laplace mechanism of sensitivity 5.
    assert v["scales"] == pytest.approx([5.0, 5.0])
    assert sum(v["budgets"]) == pytest.approx(1.0)
    assert explorer._values["interval"] == (2, 18, pytest.approx(1 - np.exp(-8.5 / 5)))
    for scale in (5.0, 0.7, 20.0):
        exact = mpmath.fsum(abs(k) * rounded_laplace_pmf(k, scale) for k in range(-2000, 2001))
        assert nf._mean_abs_rounded_laplace(scale) == pytest.approx(float(exact), rel=1e-9)
    # The observed mean relative error sits within a few standard errors of the exact one.
    scale = v["scales"][1]
    second_moment = float(
        mpmath.fsum(k * k * rounded_laplace_pmf(k, scale) for k in range(-900, 901))
    )
    spread = np.sqrt(second_moment - nf._mean_abs_rounded_laplace(scale) ** 2) / 10
    assert abs(v["observed_error"][1] - v["exact_error"][1]) < 4 * spread / np.sqrt(explorer.draws)


def test_noise3_budget_split_composes():
    explorer = nf.TwoDimensionalQuery()
    explorer.update(epsilon=2.0, share=0.7, sensitivity_first=3.0, sensitivity_second=0.5)
    v = explorer._values
    assert sum(v["budgets"]) == pytest.approx(2.0)
    assert v["scales"] == pytest.approx([3.0 / 0.6, 0.5 / 1.4])


@pytest.mark.parametrize("bw_adjust", [0.5, 1.0, 2.5])
def test_kde_curve_is_what_seaborn_draws(bw_adjust):
    data = nf.SeabornHistogram().data
    figure = Figure()
    axes = figure.subplots()
    sns.kdeplot(x=data, bw_adjust=bw_adjust, ax=axes)
    grid, density = axes.lines[0].get_data()
    assert np.allclose(nf.kde_curve(data, grid, bw_adjust), density, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("params", [{"bins": 10}, {"bins": 7}, {"binning": "one per integer"}])
def test_histogram_is_what_seaborn_draws(params):
    explorer = nf.SeabornHistogram()
    explorer.update(**params)
    figure = Figure()
    axes = figure.subplots()
    discrete = params.get("binning") == "one per integer"
    options = {"discrete": True} if discrete else {"bins": params["bins"]}
    sns.histplot(x=explorer.data, stat="density", ax=axes, **options)
    heights = [patch.get_height() for patch in axes.patches]
    lefts = [patch.get_x() for patch in axes.patches]
    data = explorer._bars.get_data()
    assert np.allclose(data.values, heights)
    assert np.allclose(data.edges[:-1], lefts)


def test_noise1_sampler_passes_and_a_wrong_scale_fails():
    explorer = nf.InverseCdfSampling(samples=20000)
    assert explorer._fit.pvalue > 1e-3
    assert np.isinf(explorer.numbers()["post's rounded noise at $U = -1/2$"])
    wrong = stats.kstest(explorer._noise, stats.laplace(scale=1.1).cdf)
    assert wrong.pvalue < 1e-6
    mean_abs = np.mean(np.abs(explorer._noise))
    assert abs(mean_abs - 1.0) < 4 / np.sqrt(20000)  # E|X| = b, sd of |X| = b


def test_leak_figure_reports_a_large_delta():
    explorer = nf.FloatingPointLeak()
    numbers = explorer.numbers()
    assert numbers[nf.INFINITE_LOSS_NAME] - 4 * numbers["its standard error"] > 0.5
    assert explorer._impossible.get_xdata().size > 0


def test_no_deprecated_seaborn_call_anywhere():
    old_name = "dist" + "plot"  # built in pieces so this file does not match itself
    offenders = []
    for path in ROOT.rglob("*"):
        parts = set(path.relative_to(ROOT).parts)
        if parts & {".venv", ".git", "node_modules", ".ipynb_checkpoints"} or not path.is_file():
            continue
        if path.suffix not in {".py", ".ipynb", ".md", ".txt", ".cfg", ".toml", ".yml"}:
            continue
        if old_name in path.read_text(encoding="utf-8", errors="ignore"):
            offenders.append(str(path.relative_to(ROOT)))
    assert offenders == []


@pytest.mark.parametrize(
    "explorer_class, params, name",
    [
        (nf.InverseCdfSampling, {"scale": 0}, "scale"),
        (nf.InverseCdfSampling, {"samples": 30000}, "samples"),
        (nf.OneDimensionalQuery, {"epsilon": -1}, "epsilon"),
        (nf.OneDimensionalQuery, {"tolerance": 1.5}, "tolerance"),
        (nf.TwoDimensionalQuery, {"share": 1.0}, "share"),
        (nf.SeabornHistogram, {"bw_adjust": 0}, "bw_adjust"),
        (nf.SeabornHistogram, {"binning": 1}, "binning"),
        (nf.SeabornHistogram, {"discrete": 1}, "discrete"),
        (nf.FloatingPointLeak, {"position": float("nan")}, "position"),
    ],
)
def test_bad_values_raise_and_keep_the_figure(explorer_class, params, name):
    explorer = explorer_class()
    before = dict(explorer.params)
    with pytest.raises(ValueError, match=name):
        explorer.update(**params)
    assert explorer.params == before


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: mechanisms.within_tolerance_probability(-1.0, 1.0, 5), "epsilon"),
        (lambda: mechanisms.within_tolerance_probability(1.0, 0.0, 5), "sensitivity"),
        (lambda: mechanisms.within_tolerance_probability(1.0, 1.0, -3), "tolerance"),
        (lambda: mechanisms.within_tolerance_probability(1.0, 1.0, 2.5), "tolerance"),
        (lambda: mechanisms.central_interval(2.0, 1.0), "coverage"),
        (lambda: mechanisms.central_interval(-2.0), "scale"),
    ],
)
def test_helpers_name_their_bad_input(call, name):
    with pytest.raises(ValueError, match=name):
        call()


def test_histogram_binning_is_a_choice_of_words():
    explorer = nf.SeabornHistogram()
    assert explorer.controls["binning"].options == ("equal width", "one per integer")
    explorer.update(binning="one per integer")
    assert explorer.numbers()["bin width"] == 1.0
    # bins counts only for bins of equal width.
    assert explorer.update(bins=3).numbers()["bin width"] == 1.0
    assert explorer.update(binning="equal width").numbers()["bin width"] > 1.0
