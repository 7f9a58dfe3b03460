"""Figures COMP-1 to COMP-6: the numbers they show and the geometry they draw.

Expected values come from outside dplearn: normal tails, binomial sums, moments and root
finding with mpmath at 40 digits, closed forms written out here (the Laplace trade-off
curve, Dwork-Rothblum-Vadhan and Kairouz-Oh-Viswanath as printed in the papers), brute
force over k, and Google's dp_accounting, whose pessimistic
and optimistic PLDs must bracket what a figure calls exact. Shaded regions are measured
from the drawn vertices (shoelace area, widths), not from the numbers used to build them.
"""

import math

import matplotlib
import mpmath
import numpy as np
import pytest

matplotlib.use("Agg")

from dplearn.figures import accountant  # noqa: E402
from dplearn.figures import composition as figures  # noqa: E402
from dplearn.figures.controls import Choice  # noqa: E402
from dplearn.figures.explorers import load_all  # noqa: E402
from dplearn.figures.text import value_text  # noqa: E402

MPMATH_DIGITS = 40  # each test's mpmath precision (tests/conftest.py)
EXPLORERS = load_all()
DELTA = r"$\delta(\varepsilon)$"
EXCEEDS = r"$\delta_1 = \Pr[\mathcal{L} > \varepsilon]$"


def make(figure_id, **params):
    return EXPLORERS[figure_id](**params)


# Independent values -----------------------------------------------------------------------


def gaussian_delta(epsilon, sigma, k=1):
    """Balle & Wang's delta of k Gaussian releases (sensitivity 1), in mpmath."""
    r = mpmath.sqrt(k) / mpmath.mpf(sigma)
    epsilon = mpmath.mpf(epsilon)
    return float(
        mpmath.ncdf(r / 2 - epsilon / r) - mpmath.exp(epsilon) * mpmath.ncdf(-r / 2 - epsilon / r)
    )


def gaussian_exceeds(epsilon, sigma, k=1):
    r = mpmath.sqrt(k) / mpmath.mpf(sigma)
    return float(mpmath.ncdf(r / 2 - mpmath.mpf(epsilon) / r))


def laplace_moments(epsilon0):
    """Mean and variance of one Laplace release's loss (scale 1/epsilon0, sensitivity 1),
    integrating over the outputs x of A(D1) = Lap(0, b)."""
    b = 1 / mpmath.mpf(epsilon0)

    def density(x):
        return mpmath.exp(-abs(x) / b) / (2 * b)

    def loss(x):
        return (abs(x - 1) - abs(x)) / b

    pieces = [-mpmath.inf, 0, 1, mpmath.inf]
    mean = mpmath.quad(lambda x: density(x) * loss(x), pieces)
    second = mpmath.quad(lambda x: density(x) * loss(x) ** 2, pieces)
    return mean, second - mean**2


def kov_delta(epsilon0, k, epsilon):
    """Kairouz, Oh & Viswanath's optimal delta of k pure epsilon0-DP releases, in mpmath."""
    e0, epsilon = mpmath.mpf(epsilon0), mpmath.mpf(epsilon)
    total = mpmath.mpf(0)
    for i in range(k + 1):
        gap = mpmath.exp((k - i) * e0) - mpmath.exp(epsilon + i * e0)
        if gap > 0:
            total += mpmath.binomial(k, i) * gap
    return float(total / (1 + mpmath.exp(e0)) ** k)


def drv_slack(epsilon0, k, epsilon):
    """The delta' at which DRV's epsilon' = epsilon0 sqrt(2k ln 1/delta') + k epsilon0
    (e^epsilon0 - 1) equals epsilon, by root finding."""
    e0 = mpmath.mpf(epsilon0)

    def gap(log_slack):
        return e0 * mpmath.sqrt(-2 * k * log_slack) + k * e0 * mpmath.expm1(e0) - epsilon

    if gap(mpmath.mpf("-1e-30")) >= 0:
        return 1.0
    return float(
        mpmath.exp(mpmath.findroot(gap, (mpmath.mpf(-1e4), mpmath.mpf("-1e-30")), solver="bisect"))
    )


def dp_accounting_bracket(mechanism, parameter, k, grid_width):
    """(optimistic, pessimistic) PLDs of dp_accounting for k releases."""
    from dp_accounting.pld import privacy_loss_distribution as plds

    build = plds.from_laplace_mechanism if mechanism == "Laplace" else plds.from_gaussian_mechanism
    return tuple(
        build(
            parameter, 1.0, pessimistic_estimate=kind, value_discretization_interval=grid_width
        ).self_compose(k)
        for kind in (False, True)
    )


def polygon_area(vertices):
    x, y = np.asarray(vertices, dtype=float).T
    return 0.5 * abs(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1)))


# Shared helpers ---------------------------------------------------------------------------


def test_releases_are_clipped_for_laplace_only():
    assert figures.releases_used("Laplace", 1000) == figures.LAPLACE_MAX_RELEASES == 100
    assert figures.releases_used("Laplace", 37) == 37
    assert figures.releases_used("Gaussian", 1000) == 1000


COMP_IDS = [f"COMP-{n}" for n in range(1, 7)]


@pytest.mark.parametrize("figure_id", COMP_IDS)
def test_first_slider_moves_the_figure_at_the_default_setting(figure_id):
    """The mechanism toggle comes first, then the slider of the mechanism it opens with."""
    explorer = make(figure_id)
    names = list(explorer.controls)
    sliders = [n for n in names if not isinstance(explorer.controls[n], Choice)]
    if "mechanism" in names:
        assert names[0] == "mechanism"
        active = "sigma" if explorer.defaults["mechanism"] == "Gaussian" else "epsilon0"
        assert sliders[0] == active
    before = explorer.numbers()
    control = explorer.controls[sliders[0]]
    value = explorer.params[sliders[0]]
    other = control.maximum if value < control.maximum / 2 else control.minimum
    after = explorer.update(**{sliders[0]: other}).numbers()
    assert any(before[key] != after[key] for key in before), (figure_id, sliders[0])


@pytest.mark.parametrize("low, high", [(-1.08, 1.08), (0.0, 2300.0), (-3e-4, 7e-3), (4.2, 4.3)])
def test_round_ticks_cover_the_view_with_a_fixed_count(low, high):
    ticks = figures.round_ticks(low, high)
    assert ticks.size == figures.TICK_COUNT
    assert ticks[0] >= low and ticks[0] - low < ticks[1] - ticks[0]
    assert ticks[-1] >= high
    shown = (ticks >= low) & (ticks <= high)
    assert shown.sum() >= 3
    labels = [figures.tick_text(t, ticks[1] - ticks[0]) for t in ticks]
    assert len(set(labels)) == len(labels), labels  # enough decimals to tell them apart
    assert all("-" not in label for label in labels)  # a true minus sign


def test_first_advanced_win_against_brute_force():
    for epsilon0, delta in [(0.1, 1e-5), (0.05, 1e-6), (0.3, 1e-3), (0.5, 1e-8)]:
        e0 = mpmath.mpf(epsilon0)
        k = 1
        while not (
            e0 * mpmath.sqrt(2 * k * mpmath.log(1 / mpmath.mpf(delta))) + k * e0 * mpmath.expm1(e0)
            < k * e0
        ):
            k += 1
        assert figures.first_advanced_win(epsilon0, delta) == k
    assert figures.first_advanced_win(0.1, 1e-5) == 29
    # e^epsilon0 >= 2: the linear term alone reaches k epsilon0, advanced never wins.
    assert figures.first_advanced_win(0.7, 1e-5) is None


def test_advanced_beats_basic_exactly_past_the_closed_form_boundary():
    """Advanced < basic iff k > 2 ln(1/delta) / (2 - e^epsilon0)^2, checked against the core's
    own bounds on both sides of the boundary, from small epsilon0 to just below ln 2."""
    from dplearn import composition

    def wins(epsilon0, delta, k):
        return (
            composition.advanced(epsilon0, 0.0, k, delta)[0]
            < composition.basic(epsilon0, 0.0, k)[0]
        )

    rng = np.random.default_rng(8)
    settings = list(zip(rng.uniform(0.01, 0.69, 200), 10 ** rng.uniform(-10, -1, 200), strict=True))
    settings += [(0.693, 1e-5), (0.6931, 1e-10), (0.69314, 1e-10)]
    for epsilon0, delta in settings:
        # The boundary in mpmath, away from float rounding.
        boundary = 2 * mpmath.log(1 / mpmath.mpf(delta)) / (2 - mpmath.exp(epsilon0)) ** 2
        first = int(mpmath.floor(boundary)) + 1
        if first > 10**10:
            # The bounds' rounding (ulp of k epsilon0) exceeds what one more release changes.
            assert figures.first_advanced_win(epsilon0, delta) == pytest.approx(first, rel=1e-9)
            continue
        assert not wins(epsilon0, delta, first - 1) or first == 1
        assert wins(epsilon0, delta, first) and wins(epsilon0, delta, 2 * first)
        assert figures.first_advanced_win(epsilon0, delta) == first
    assert figures.first_advanced_win(0.6931, 1e-10) > 10**6


def test_comp4_says_where_advanced_first_wins_beyond_the_axis():
    figure = make("COMP-4", epsilon0=0.69, delta=1e-5)
    e0 = mpmath.mpf(0.69)
    first = int(mpmath.floor(2 * mpmath.log(10**5) / (2 - mpmath.exp(e0)) ** 2)) + 1
    assert first > 1000
    assert figure.numbers()[r"advanced first beats basic at $k$"] == first
    assert (
        figure.note.get_text() == f"advanced first beats basic\nat k = {first} (beyond this axis)"
    )
    assert not figure.win.get_visible()
    figure.update(epsilon0=0.1)
    assert figure.note.get_text() == "advanced first beats basic\nat k = 29"
    assert figure.win.get_visible() and figure.win.get_xdata()[0] == 29
    figure.update(epsilon0=0.7)
    assert figure.note.get_text() == "advanced never beats basic\n(ε₀ ≥ ln 2)"
    assert figure.numbers()[r"advanced first beats basic at $k$"] == "never"


# COMP-1 -----------------------------------------------------------------------------------


def test_comp1_numbers_at_the_default_setting():
    figure = make("COMP-1")  # Laplace, epsilon0 = 0.1, k = 10, epsilon = 0.5
    numbers = figure.numbers()
    mean, variance = laplace_moments(0.1)
    assert numbers[r"$k$ composed"] == 10
    assert numbers[r"$\mathbb{E}[\mathcal{L}] = k\,\mathrm{KL}$"] == pytest.approx(
        float(10 * mean), rel=1e-12
    )
    assert float(10 * mean) == pytest.approx(10 * (0.1 + math.exp(-0.1) - 1), rel=1e-12)
    assert numbers[r"$\mathrm{sd}(\mathcal{L})$"] == pytest.approx(
        float(mpmath.sqrt(10 * variance)), rel=1e-10
    )
    assert numbers[r"$\max \mathcal{L}$"] == pytest.approx(1.0, rel=1e-15)
    assert numbers[r"$\Pr[\mathcal{L} = \max \mathcal{L}]$"] == 2.0**-10
    optimistic, pessimistic = dp_accounting_bracket("Laplace", 10.0, 10, 1e-4)
    delta = numbers[DELTA]
    assert optimistic.get_delta_for_epsilon(0.5) <= delta <= pessimistic.get_delta_for_epsilon(0.5)
    assert 0 < delta < numbers[EXCEEDS] < 1


@pytest.mark.parametrize(
    "sigma, k, epsilon", [(math.sqrt(3), 10, 1.0), (5.0, 100, 0.5), (1.0, 1, 2.0)]
)
def test_comp1_gaussian_is_one_release_with_sigma_over_sqrt_k(sigma, k, epsilon):
    figure = make("COMP-1", mechanism="Gaussian", sigma=sigma, releases=k, epsilon=epsilon)
    numbers = figure.numbers()
    mu = k / (2 * sigma**2)
    assert numbers[r"$\mathbb{E}[\mathcal{L}] = k\,\mathrm{KL}$"] == pytest.approx(mu, rel=1e-12)
    assert numbers[r"$\mathrm{sd}(\mathcal{L})$"] == pytest.approx(math.sqrt(2 * mu), rel=1e-12)
    assert numbers[r"$\max \mathcal{L}$"] == math.inf
    assert numbers[r"$\Pr[\mathcal{L} = \max \mathcal{L}]$"] == 0
    assert numbers[DELTA] == pytest.approx(gaussian_delta(epsilon, sigma, k), rel=1e-9)
    assert numbers[EXCEEDS] == pytest.approx(gaussian_exceeds(epsilon, sigma, k), rel=1e-9)


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"mechanism": "Gaussian", "releases": 40, "epsilon": 3.0},
        {"epsilon0": 0.5, "releases": 3, "epsilon": 0.7},
        {"epsilon0": 0.05, "releases": 1000, "epsilon": 2.0},
    ],
)
def test_comp1_red_part_has_the_probability_delta_1(params):
    """The histogram is probability per bin: the red part, read back in probability, lies
    between P[L > right edge of epsilon's bin] and P[L > its left edge]."""
    figure = make("COMP-1", **params)
    state = figure.state
    edges, mass = state["edges"], state["composed_mass"]
    bins = np.diff(edges)
    red = figure.bad.get_xy()
    # In units of the drawn heights (mass / max mass) and bin widths.
    probability = polygon_area(red) / bins[0] * mass.max()
    epsilon = state["epsilon"]
    index = np.searchsorted(edges, epsilon, side="right") - 1
    composed = state["composed"]
    if 0 <= index < len(bins):
        upper = composed.loss_exceeds(max(edges[index], 0.0))
        lower = composed.loss_exceeds(edges[index + 1])
        assert lower - 1e-9 <= probability <= upper + 1e-9
    # The whole histogram holds the mass within the window.
    assert mass.sum() == pytest.approx(
        float(composed.loss_cdf(edges[-1]) - composed.loss_cdf(edges[0])), abs=1e-12
    )
    assert mass.sum() > 1 - 1e-5
    # The lines sit where the numbers say.
    assert figure.mean_line.get_xdata()[0] == pytest.approx(composed.loss_mean)
    if np.isfinite(composed.max_loss):
        assert figure.max_line.get_xdata()[0] == pytest.approx(composed.max_loss)


def test_comp1_says_when_laplace_clips_k():
    figure = make("COMP-1", mechanism="Laplace", releases=1000)
    assert figure.numbers()[r"$k$ composed"] == 100
    assert "Laplace stops at 100" in figure.note.get_text()
    figure.update(mechanism="Gaussian")
    assert figure.numbers()[r"$k$ composed"] == 1000
    assert "stops" not in figure.note.get_text()


# COMP-2 -----------------------------------------------------------------------------------


def test_comp2_default_value():
    numbers = make("COMP-2").numbers()  # Gaussian, sigma = sqrt 3, k = 10, epsilon = 1
    assert numbers[r"$\delta(\varepsilon)$ (area)"] == pytest.approx(0.4466107227909262, rel=1e-12)
    assert numbers[r"$\delta(\varepsilon)$ (area)"] == pytest.approx(
        gaussian_delta(1.0, math.sqrt(3), 10), rel=1e-12
    )
    assert numbers[r"$\delta_1 = \Pr[\mathcal{L} > \varepsilon]$ (width)"] == pytest.approx(
        gaussian_exceeds(1.0, math.sqrt(3), 10), rel=1e-12
    )


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"releases": 100, "sigma": 5.0, "epsilon": 2.0},
        {"mechanism": "Laplace", "epsilon0": 0.1, "releases": 2, "epsilon": 0.1},
        {"mechanism": "Laplace", "epsilon0": 0.3, "releases": 10, "epsilon": 1.0},
        {"mechanism": "Laplace", "epsilon0": 1.0, "releases": 3, "epsilon": 0.5},
    ],
)
def test_comp2_shaded_area_is_delta_and_the_box_is_delta_1_wide(params):
    figure = make("COMP-2", **params)
    numbers = figure.numbers()
    delta = numbers[r"$\delta(\varepsilon)$ (area)"]
    width = numbers[r"$\delta_1 = \Pr[\mathcal{L} > \varepsilon]$ (width)"]
    # The zoom (second axes) is drawn in units of delta_1: there the box is 1 wide.
    for area, box, unit in zip(figure.areas, figure.boxes, (1.0, width), strict=True):
        assert polygon_area(area.get_xy()) * unit == pytest.approx(delta, rel=2e-4)
        x, y = box.get_data()
        assert (max(x) - min(x)) * unit == pytest.approx(width, rel=1e-12)
        assert max(y) == 1
    assert delta <= width


@pytest.mark.parametrize("epsilon", [1.0, 8.0, 17.0])
def test_comp2_zoom_is_in_units_of_delta_1_whatever_its_size(epsilon):
    """At large epsilon delta_1 is about 1e-17: the zoom still shows the bad events over
    [0, 1.25] delta_1, with fixed ticks (ticks at 1e-17 positions would collide)."""
    figure = make("COMP-2", epsilon=epsilon)
    zoomed = figure.axes[1]
    assert zoomed.get_xlim() == (0.0, 1.25)
    assert list(zoomed.get_xticks()) == [0.0, 0.25, 0.5, 0.75, 1.0, 1.25]
    x, _ = figure.boxes[1].get_data()
    assert max(x) == pytest.approx(1.0)


def test_comp2_laplace_two_releases_values():
    figure = make("COMP-2", mechanism="Laplace", epsilon0=0.1, releases=2, epsilon=0.1)
    assert figure.numbers()[r"$\delta(\varepsilon)$ (area)"] == pytest.approx(
        0.024989839886768141, rel=1e-9
    )
    figure.update(epsilon=0.01)
    optimistic, pessimistic = dp_accounting_bracket("Laplace", 10.0, 2, 1e-5)
    delta = figure.numbers()[r"$\delta(\varepsilon)$ (area)"]
    assert (
        optimistic.get_delta_for_epsilon(0.01) <= delta <= pessimistic.get_delta_for_epsilon(0.01)
    )


# COMP-3 -----------------------------------------------------------------------------------


def test_comp3_numbers_at_the_default_setting():
    figure = make("COMP-3")  # epsilon0 = 0.1, k = 10, epsilon = 0.75
    numbers = figure.numbers()
    assert numbers[r"$\delta$ optimal ($k$ × any $\varepsilon_0$-DP)"] == pytest.approx(
        kov_delta(0.1, 10, 0.75), rel=1e-10
    )
    assert numbers[r"$\delta$ advanced (smallest $\delta'$)"] == pytest.approx(
        drv_slack(0.1, 10, 0.75), rel=1e-9
    )
    assert numbers[r"basic: $k\varepsilon_0$ ($\delta = 0$ from there)"] == pytest.approx(1.0)
    assert numbers[r"advanced beats basic for $\delta$ above"] == pytest.approx(
        drv_slack(0.1, 10, 1.0), rel=1e-9
    )
    optimistic, pessimistic = dp_accounting_bracket("Laplace", 10.0, 10, 1e-4)
    exact = numbers[r"$\delta$ exact ($k$ × Laplace)"]
    assert (
        optimistic.get_delta_for_epsilon(0.75) <= exact <= pessimistic.get_delta_for_epsilon(0.75)
    )


@pytest.mark.parametrize(
    "params", [{}, {"epsilon0": 0.5, "releases": 30}, {"epsilon0": 0.02, "releases": 100}]
)
def test_comp3_curves_are_ordered_exact_optimal_advanced(params):
    figure = make("COMP-3", **params)
    state = figure.state
    exact, optimal, advanced = state["exact"], state["optimal"], state["advanced"]
    assert np.all(exact <= optimal * (1 + 1e-9) + 1e-15)
    assert np.all(optimal <= advanced * (1 + 1e-9) + 1e-15)
    # The basic point sits at k epsilon0, the star on the advanced curve there.
    k, epsilon0 = state["k"], figure.params["epsilon0"]
    assert figure.basic.get_xdata()[0] == pytest.approx(k * epsilon0)
    x, y = figure.crossing.get_data()
    assert x[0] == pytest.approx(k * epsilon0)
    assert y[0] == pytest.approx(
        max(drv_slack(epsilon0, k, k * epsilon0), figure.floor / 10), rel=1e-9
    )


# COMP-4 -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "k, basic, advanced, optimal, exact",
    [
        (10, 1.0, 1.62259804746, None, (0.98996231115, 0.98996231115)),
        (100, 10.0, 5.85023509294, 4.3067913725165, (4.2203249647, 4.2203473256)),
    ],
)
def test_comp4_values_at_ten_and_a_hundred_releases(k, basic, advanced, optimal, exact):
    figure = make("COMP-4", releases=k)  # epsilon0 = 0.1, delta = 1e-5
    numbers = figure.numbers()
    assert numbers[r"$\varepsilon$ basic"] == pytest.approx(basic, rel=1e-12)
    assert numbers[r"$\varepsilon$ advanced"] == pytest.approx(advanced, rel=1e-11)
    if optimal is not None:
        assert numbers[r"$\varepsilon$ optimal ($k$ × any $\varepsilon_0$-DP)"] == pytest.approx(
            optimal, rel=1e-12
        )
    low, high = exact
    value = numbers[r"$\varepsilon$ exact ($k$ × Laplace)"]
    assert low - 1e-10 <= value <= high + 1e-10
    assert numbers[r"advanced first beats basic at $k$"] == 29


@pytest.mark.parametrize(
    "params", [{}, {"epsilon0": 0.5, "delta": 1e-8}, {"epsilon0": 0.01, "delta": 0.05}]
)
def test_comp4_curves_are_ordered_and_optimal_is_kov(params):
    figure = make("COMP-4", **params)
    state = figure.state
    epsilon0, delta = figure.params["epsilon0"], figure.params["delta"]
    grid = figure.releases_grid
    assert np.all(state["optimal"] <= np.minimum(state["basic"], state["advanced"]) * (1 + 1e-9))
    exact_grid = figure.exact_grid
    optimal_there = np.interp(exact_grid, grid, state["optimal"])
    on_grid = np.isin(exact_grid, grid)
    assert np.all(state["exact"][on_grid] <= optimal_there[on_grid] * (1 + 1e-9))
    # The optimal epsilon is the KOV root at delta: just above it the KOV delta is below.
    for k, epsilon in zip(grid[::9], state["optimal"][::9], strict=True):
        assert kov_delta(epsilon0, int(k), epsilon) <= delta * (1 + 1e-9)
        if epsilon > 1e-6:
            assert kov_delta(epsilon0, int(k), epsilon * (1 - 1e-6)) > delta


def test_comp4_exact_is_only_drawn_up_to_100_releases():
    figure = make("COMP-4", releases=500)
    assert figure.numbers()[r"$\varepsilon$ exact ($k$ × Laplace)"] == "only for k ≤ 100"
    assert figure.exact.get_xdata().max() == 100


# COMP-5 -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"grid_width": 0.01},
        {"mechanism": "Gaussian", "releases": 10, "epsilon": 1.0, "grid_width": 0.02},
        {"mechanism": "Gaussian", "sigma": 5.0, "releases": 100, "epsilon": 0.5},
    ],
)
def test_comp5_bracket_holds_the_exact_delta(params):
    figure = make("COMP-5", **params)
    numbers = figure.numbers()
    low = numbers[r"$\delta$ optimistic (lower end)"]
    exact = numbers[r"$\delta$ exact"]
    high = numbers[r"$\delta$ pessimistic (upper end)"]
    assert low <= exact <= high
    assert numbers["bracket width"] == pytest.approx(high - low)
    mechanism = figure.params["mechanism"]
    epsilon = figure.params["epsilon"]
    k = figure.state["k"]
    if mechanism == "Gaussian":
        assert exact == pytest.approx(gaussian_delta(epsilon, figure.params["sigma"], k), rel=1e-9)
    parameter = 1 / figure.params["epsilon0"] if mechanism == "Laplace" else figure.params["sigma"]
    optimistic, pessimistic = dp_accounting_bracket(mechanism, parameter, k, 1e-4)
    assert optimistic.get_delta_for_epsilon(epsilon) <= exact * (1 + 1e-9) + 1e-15
    assert exact <= pessimistic.get_delta_for_epsilon(epsilon) * (1 + 1e-9) + 1e-15


def test_comp5_bracket_narrows_with_the_grid():
    figure = make("COMP-5")
    widths, brackets = figure.state["widths"], figure.state["brackets"]
    spread = brackets[:, 1] - brackets[:, 0]
    order = np.argsort(widths)
    assert np.all(np.diff(spread[order]) > 0)  # coarser grid, wider bracket
    exact = figure.state["exact"]
    assert np.all(brackets[:, 0] <= exact) and np.all(exact <= brackets[:, 1])


def test_comp5_slider_shows_the_width_it_uses():
    """The grid-width slider offers listed widths and hands the figure exactly the one
    its readout shows (a log slider would give 0.005012 while showing 0.005)."""
    control = accountant.AccountantBracket.controls["grid_width"]
    slider = control.slider(0.01, "grid_width")
    figure = make("COMP-5")
    for label, value in slider.options:
        slider.value = value
        assert slider.label == label == f"{value:g}"
        figure.update(grid_width=slider.value)
        assert figure.state["grid_width"] == float(label)
    for between in (0.005012, 0.0075, 0.3):
        with pytest.raises(ValueError, match="grid_width"):
            figure.update(grid_width=between)


def test_comp5_error_halves_with_h_on_grids_that_divide_epsilon0():
    # epsilon0 = 0.1: every offered width up to 0.1 divides it.
    figure = make("COMP-5", grid_width=0.005)
    widths, brackets = figure.state["widths"], figure.state["brackets"]
    exact = figure.state["exact"]
    aligned = [i for i, width in enumerate(widths) if width <= 0.1]
    assert all(accountant.grid_holds(0.1, widths[i]) for i in aligned)
    upper = (brackets[aligned, 1] - exact) / exact
    lower = (exact - brackets[aligned, 0]) / exact
    assert np.all(np.diff(upper) > 0) and np.all(np.diff(lower) > 0)  # wider h, more error
    # Halving h from 0.01 to 0.005 halves both errors, to within 10 %.
    at = {float(widths[i]): (u, low) for i, u, low in zip(aligned, upper, lower, strict=True)}
    for side in (0, 1):
        assert at[0.01][side] / at[0.005][side] == pytest.approx(2.0, rel=0.1)


def test_comp5_says_when_the_grid_misses_plus_minus_epsilon0():
    figure = make("COMP-5")
    assert "divide" not in figure.note.get_text()
    figure.update(epsilon0=0.137)
    assert "does not divide" in figure.note.get_text()
    assert not accountant.grid_holds(0.137, 0.01) and accountant.grid_holds(0.1, 0.02)
    figure.update(mechanism="Gaussian")  # no atoms: any grid will do
    assert "divide" not in figure.note.get_text()


def test_comp5_rounded_cdfs_bracket_the_exact_cdf():
    """Rounding losses up moves mass right (a lower CDF), rounding down moves it left."""
    figure = make("COMP-5", mechanism="Gaussian", grid_width=0.1)
    single = figure.state["single"]
    for rounded, sign in ((figure.state["rounded_up"], -1), (figure.state["rounded_down"], 1)):
        losses, cdf = accountant.rounded_loss_cdf(rounded)
        exact = np.asarray(single.loss_cdf(losses))
        assert np.all(sign * (cdf - exact) >= -1e-12)
        assert np.allclose(np.diff(losses), 0.1)


# COMP-6 -----------------------------------------------------------------------------------


@pytest.mark.parametrize("sigma, k", [(math.sqrt(3), 10), (5.0, 1000), (1.0, 1)])
def test_comp6_gaussian_releases_are_exactly_g_mu(sigma, k):
    figure = make("COMP-6", mechanism="Gaussian", sigma=sigma, releases=k, alpha=0.05)
    numbers = figure.numbers()
    mu = math.sqrt(k) / sigma
    assert numbers[r"$\mu$ of the CLT's $G_\mu$"] == pytest.approx(mu, rel=1e-12)
    beta = float(mpmath.ncdf(-mpmath.sqrt(2) * mpmath.erfinv(2 * mpmath.mpf("0.05") - 1) - mu))
    assert numbers[r"$\beta(\alpha)$ exact"] == pytest.approx(beta, rel=1e-9)
    assert numbers[r"$\beta(\alpha)$ CLT"] == pytest.approx(beta, rel=1e-9)
    np.testing.assert_allclose(
        figure.exact_curve.get_ydata(), figure.clt_curve.get_ydata(), rtol=1e-12, atol=1e-15
    )


def test_comp6_one_laplace_release_is_its_closed_form_tradeoff():
    """One Laplace release of epsilon0: beta = 1 - e^e0 alpha for alpha <= e^-e0 / 2,
    e^-e0 / (4 alpha) up to 1/2, e^-e0 (1 - alpha) beyond (reject D1 for large outputs)."""
    epsilon0 = 0.5
    figure = make("COMP-6", mechanism="Laplace", epsilon0=epsilon0, releases=1)
    alphas = figure.alphas
    corner = math.exp(-epsilon0) / 2
    expected = np.where(
        alphas <= corner,
        1 - math.exp(epsilon0) * alphas,
        np.where(
            alphas <= 0.5,
            math.exp(-epsilon0) / (4 * np.maximum(alphas, 1e-300)),
            math.exp(-epsilon0) * (1 - alphas),
        ),
    )
    np.testing.assert_allclose(figure.exact_curve.get_ydata(), expected, rtol=1e-9, atol=1e-12)


def test_comp6_laplace_clt_mu_and_where_it_is_not_a_bound():
    figure = make("COMP-6")  # Laplace, epsilon0 = 0.5, k = 2
    numbers = figure.numbers()
    mean, variance = laplace_moments(0.5)
    mu = 2 * math.sqrt(2) * float(mean / mpmath.sqrt(variance))
    assert numbers[r"$\mu$ of the CLT's $G_\mu$"] == pytest.approx(mu, rel=1e-10)
    # The exact profile against dp_accounting; the CLT's delta is a Gaussian delta with
    # sensitivity / sigma = mu, in mpmath.
    optimistic, pessimistic = dp_accounting_bracket("Laplace", 2.0, 2, 1e-4)
    grid, exact, clt = figure.state["grid"], figure.state["exact_delta"], figure.state["clt_delta"]
    for epsilon, value, approximation in list(zip(grid, exact, clt, strict=True))[::20]:
        epsilon = float(epsilon)
        assert optimistic.get_delta_for_epsilon(epsilon) <= value * (1 + 1e-9) + 1e-15
        assert value <= pessimistic.get_delta_for_epsilon(epsilon) * (1 + 1e-9) + 1e-15
        assert approximation == pytest.approx(gaussian_delta(epsilon, 1 / mu), rel=1e-9)
    # The red band spans exactly the epsilons where the CLT's delta is below the exact one,
    # and there the ratio drawn is above 1.
    below = clt < exact * (1 - 1e-9)
    first = numbers[r"CLT $\delta$ too small from $\varepsilon$"]
    last = numbers[r"… up to $\varepsilon$"]
    start, end = np.flatnonzero(below)[[0, -1]]
    assert grid[start - 1] < first <= grid[start] and grid[end] <= last < grid[end + 1]
    assert 0 < first < last < 2 * 0.5
    # Where the CLT is too small, the exact delta from dp_accounting's optimistic end (a
    # lower bound) is still above the CLT's mpmath delta at the middle of the band.
    middle = float(grid[below][below.sum() // 2])
    assert optimistic.get_delta_for_epsilon(middle) > gaussian_delta(middle, 1 / mu)
    ratio = numbers[r"largest exact $\delta$ / CLT $\delta$"]
    assert float(np.max(exact / clt)) <= ratio < float(np.max(exact / clt)) * (1 + 1e-5)
    x, y = figure.ratio_line.get_data()
    assert np.all(y[below] > 1)
    assert polygon_area(figure.below.get_xy()) > 0


def two_laplace_delta(epsilon, epsilon0):
    """delta(epsilon) of two Laplace releases of epsilon0 (sensitivity 1), in mpmath.

    One release's loss under A(D1) = Lap(0, 1/epsilon0): +epsilon0 with probability 1/2
    (outputs below 0), -epsilon0 with probability e^-epsilon0 / 2 (above 1), and
    epsilon0 (1 - 2u) for an output u in (0, 1), of density epsilon0 / 2 e^(-epsilon0 u).
    Integrating (1 - e^(t - L))+ against that law gives one release's delta(t):
    1 - e^t below -epsilon0, 1 - e^((t - epsilon0) / 2) up to epsilon0, 0 above. Two
    releases: delta(epsilon) = E[delta_1(epsilon - L1)], integrated with its kinks as
    breakpoints.
    """
    e0, epsilon = mpmath.mpf(epsilon0), mpmath.mpf(epsilon)

    def single(t):
        if t <= -e0:
            return -mpmath.expm1(t)
        return -mpmath.expm1((t - e0) / 2) if t < e0 else mpmath.mpf(0)

    def given(first):
        return single(epsilon - first)

    # epsilon - e0 (1 - 2u) = +-e0 at u = (2 e0 - epsilon) / (2 e0) and -epsilon / (2 e0).
    kink = 1 - epsilon / (2 * e0)
    points = [0, kink, 1] if 0 < kink < 1 else [0, 1]
    continuous = mpmath.quad(
        lambda u: e0 / 2 * mpmath.exp(-e0 * u) * given(e0 * (1 - 2 * u)), points
    )
    return given(e0) / 2 + mpmath.exp(-e0) / 2 * given(-e0) + continuous


def test_comp6_crossings_are_the_roots_of_exact_minus_clt_delta():
    """At the default (two Laplace releases of 0.5) the readout's band ends are where the
    exact delta equals the CLT's, found in mpmath from the integral and the moments."""
    figure = make("COMP-6")
    numbers = figure.numbers()
    mean, variance = laplace_moments(0.5)
    mu = 2 * mpmath.sqrt(2) * mean / mpmath.sqrt(variance)

    def clt_delta(epsilon):
        return mpmath.ncdf(mu / 2 - epsilon / mu) - mpmath.exp(epsilon) * mpmath.ncdf(
            -mu / 2 - epsilon / mu
        )

    with mpmath.workdps(15):
        assert two_laplace_delta(0.3, 0.5) == pytest.approx(0.171991494580512, rel=1e-12)
        roots = [
            float(
                mpmath.findroot(
                    lambda e: two_laplace_delta(e, 0.5) - clt_delta(e),
                    bracket,
                    solver="anderson",
                    tol=1e-24,
                )
            )
            for bracket in [(0.14, 0.16), (0.76, 0.78)]
        ]
    assert roots == pytest.approx([0.1476358, 0.7711647], abs=1e-6)
    first = numbers[r"CLT $\delta$ too small from $\varepsilon$"]
    last = numbers[r"… up to $\varepsilon$"]
    assert [first, last] == pytest.approx(roots, abs=1e-9)
    assert value_text(first) == "0.1476" and value_text(last) == "0.7712"
    # The largest ratio: at the figure's value no mpmath ratio on a fine grid nearby is
    # larger (the grid drawn has steps of 1/299).
    ratio = numbers[r"largest exact $\delta$ / CLT $\delta$"]
    with mpmath.workdps(15):
        nearby = [
            two_laplace_delta(e, 0.5) / clt_delta(mpmath.mpf(e))
            for e in np.linspace(0.5525, 0.5555, 7)
        ]
    assert float(max(nearby)) <= ratio * (1 + 1e-9)
    assert ratio == pytest.approx(float(max(nearby)), rel=1e-7)


def test_comp6_gaussian_shows_no_red():
    figure = make("COMP-6", mechanism="Gaussian", releases=50)
    assert figure.numbers()[r"CLT $\delta$ too small from $\varepsilon$"] == "never"
    assert polygon_area(figure.below.get_xy()) == pytest.approx(0, abs=1e-12)
    assert polygon_area(figure.gap_band.get_xy()) == pytest.approx(0, abs=1e-12)
    assert figure.gap_note.get_text() == "CLT never above exact"


def test_comp6_beta_at_alpha_against_the_profile():
    """f(alpha) = sup over epsilon of 1 - delta(epsilon) - e^epsilon alpha (the dual of the
    privacy profile), with delta from dp_accounting's bracket on a fine grid of epsilon."""
    figure = make("COMP-6", mechanism="Laplace", epsilon0=0.5, releases=5, alpha=0.1)
    beta = figure.numbers()[r"$\beta(\alpha)$ exact"]
    optimistic, pessimistic = dp_accounting_bracket("Laplace", 2.0, 5, 1e-4)
    grid = np.linspace(0, 2.5, 2501)
    lower = max(1 - pessimistic.get_delta_for_epsilon(e) - math.exp(e) * 0.1 for e in grid)
    assert lower - 1e-9 <= beta
    upper = max(1 - optimistic.get_delta_for_epsilon(e) - math.exp(e) * 0.1 for e in grid)
    assert beta <= upper + 2e-3  # a grid step of 1e-3 in epsilon


def test_comp4_drawn_exact_curve_is_within_two_tenths_of_a_percent_of_the_closed_form():
    from dplearn import composition, privacy_loss

    for epsilon0, delta in [(0.1, 1e-5), (1.5, 1e-8), (0.01, 0.01)]:
        figure = make("COMP-4", epsilon0=epsilon0, delta=delta)
        drawn = figure.state["exact"]
        pair = privacy_loss.laplace(1 / epsilon0)
        exact = np.array(
            [composition.compose(pair, int(k)).epsilon_for_delta(delta) for k in figure.exact_grid]
        )
        assert np.all(drawn >= exact * (1 - 1e-12))  # a pessimistic accountant's curve
        np.testing.assert_allclose(drawn, exact, rtol=2e-3)


@pytest.mark.parametrize("ha, va", [("left", "top"), ("right", "bottom")])
def test_note_box_holds_its_lines_on_the_side_of_its_point(ha, va):
    (glyphs, glyph_size), (box, box_size) = figures.note_markers("two lines\nof text →", ha, va)
    # Marker paths are drawn at markersize / (2 max |vertex|): 1 point per unit here.
    text = glyphs.get_transform().transform(glyphs.get_path().vertices) * glyph_size
    frame = box.get_transform().transform(box.get_path().vertices) * box_size
    (left, bottom), (right, top) = frame.min(axis=0), frame.max(axis=0)
    assert (text.min(axis=0) > (left, bottom)).all() and (text.max(axis=0) < (right, top)).all()
    # The box touches the note's point from the side it is aligned on.
    assert np.isclose(left if ha == "left" else right, 0.0, atol=1e-9)
    assert np.isclose(top if va == "top" else bottom, 0.0, atol=1e-9)
    assert 2 * figures.NOTE_SIZE < top - bottom < 4 * figures.NOTE_SIZE  # two lines


def test_note_hides_when_empty_and_says_what_it_was_given():
    figure = make("COMP-4")
    assert figure.note.get_text() == "advanced first beats basic\nat k = 29"
    assert len(figure.note.glyphs.get_xdata()) == 1
    figure.note.set_text("")
    assert figure.note.get_text() == ""
    assert len(figure.note.glyphs.get_xdata()) == len(figure.note.box.get_xdata()) == 0


@pytest.mark.parametrize(
    "params", [{}, {"epsilon0": 0.01}, {"epsilon0": 2.0, "releases": 100}, {"releases": 1}]
)
def test_comp3_inset_shows_exact_never_above_optimal(params):
    """Where the two profiles coincide on the log axis, the inset's exact / optimal
    shows the order: at most 1 everywhere, and it is the two drawn curves' ratio."""
    figure = make("COMP-3", **params)
    x, ratio = (np.asarray(values, dtype=float) for values in figure.ratio.get_data())
    assert ratio.size > 10
    assert np.all(ratio <= 1.0 + 1e-9) and np.all(ratio > 0.0)
    state = figure.state
    positive = state["optimal"] > figure.floor
    assert np.allclose(ratio, state["exact"][positive] / state["optimal"][positive])
    assert np.allclose(x * state["basic_epsilon"], state["grid"][positive])


def test_comp6_gap_strip_shows_where_the_clt_curve_lies_above_the_exact_one():
    """At the default (two Laplace releases of 0.5) the CLT curve is above the exact one
    by under 0.02 of the unit square: the strip draws the gap in units of a round scale,
    so its red band covers a readable area, exactly where the drawn curves say."""
    figure = make("COMP-6")
    figure.figure.canvas.draw()
    alphas = figure.alphas
    gap = figure.state["clt_beta"] - figure.state["exact_beta"]
    scale = figure.state["gap_scale"]
    assert scale == 0.02  # the largest gap, 0.0164, rounded up to 1, 2 or 5 x 10^k
    assert gap.max() / scale > 0.5
    # The band in pixels: its area, and its height, a good part of the strip's.
    band = figure.gap_band.get_transform().transform(figure.gap_band.get_xy())
    assert polygon_area(band) > 300
    strip = figure.gap_band.axes.bbox
    assert np.ptp(band[:, 1]) > 0.25 * strip.height
    # Its region: height gap / scale where the CLT curve is above the exact one, none elsewhere.
    xy = figure.gap_band.get_xy()
    n = len(alphas)
    np.testing.assert_array_equal(xy[:n, 0], alphas)
    np.testing.assert_array_equal(xy[n:, 0], alphas[::-1])
    height = xy[n:, 1][::-1] - xy[:n, 1]
    over = gap > 1e-12
    np.testing.assert_allclose(height[over], gap[over] / scale, rtol=1e-12)
    assert np.all(height[~over] == 0)
    # The G_mu drawn at the widest gap is Phi(Phi^-1(1 - alpha) - mu), in mpmath.
    widest = int(np.argmax(gap))
    mu = figure.state["mu"]
    alpha = mpmath.mpf(float(alphas[widest]))
    clt = float(mpmath.ncdf(mpmath.sqrt(2) * mpmath.erfinv(1 - 2 * alpha) - mu))
    assert figure.state["clt_beta"][widest] == pytest.approx(clt, rel=1e-9)
    numbers = figure.numbers()
    assert numbers[r"largest CLT $\beta$ − exact $\beta$"] == pytest.approx(0.0164, abs=5e-5)
    assert figure.gap_note.get_text() == (f"largest {gap[widest]:.3g} at α = {alphas[widest]:.3g}")
    assert [note.get_text() for note in figure.gap_ticks] == ["+0.02", "−0.02"]


@pytest.mark.parametrize(
    "params", [{"epsilon0": 0.01}, {"epsilon0": 0.01, "releases": 100}, {"releases": 1}]
)
def test_comp6_gap_strip_is_readable_at_small_gaps(params):
    """However small the gap, its peak reaches past half the strip's upper half."""
    figure = make("COMP-6", **params)
    gap = figure.state["clt_beta"] - figure.state["exact_beta"]
    assert 0.5 < gap.max() / figure.state["gap_scale"] <= 1.0
    assert polygon_area(figure.gap_band.get_xy()) > 0


def test_comp6_gap_strip_says_when_the_clt_is_never_above():
    figure = make("COMP-6", mechanism="Laplace", epsilon0=2.0)
    assert figure.gap_note.get_text() == "CLT never above exact"
    assert polygon_area(figure.gap_band.get_xy()) == pytest.approx(0, abs=1e-12)
    assert figure.numbers()[r"largest CLT $\beta$ − exact $\beta$"] == 0.0
