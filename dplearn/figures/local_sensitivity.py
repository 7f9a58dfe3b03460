"""Figures LOCAL-1 to LOCAL-5: a median's noise scaled to its data set, made safe.

LOCAL-1 draws A^(k), the largest local sensitivity within k changes, and the smooth
sensitivity S* = max over k of e^(-k beta) A^(k); LOCAL-2 propose-test-release, its
distance to instability and its chance to pass against the proposed bound; LOCAL-3 the
chance that each of five private medians lands within t of the true one; LOCAL-4
sample-and-aggregate's error against its number of blocks; LOCAL-5 the leak of noise
scaled to the local sensitivity itself. Every number of a median's sensitivity, release
or chance to pass comes from ``dplearn.local_sensitivity`` (and the exponential
mechanism's law from ``dplearn.selection``); this module draws them.

The data sets (the "data set" buttons): lesson 04's five ages in [0, 90]; 1,001 ages
x_i = 20 + floor(0.06 i), i = 0..1000, in [0, 100], each age from 20 to 79 held by 16 or
17 people and one person aged 80; and 301 yearly incomes in thousands, skewed to the
right: log-normal (mu = 3.2, sigma = 0.6, seed 15), rounded to whole thousands and
clamped to [0, 100].

Taught in: 15-go-beyond-global-sensitivity.ipynb
"""

from __future__ import annotations

import functools
import math

import numpy as np
from matplotlib.lines import Line2D
from matplotlib.patches import Patch, Polygon

from dplearn import local_sensitivity, selection
from dplearn.figures.controls import DELTA, EPSILON, Choice, Control, listed
from dplearn.figures.explorers import Explorer, register, spoken
from dplearn.figures.legends import legend_below, legend_beside, style_handle
from dplearn.figures.limits import follow_limits, roomy, setting_mark
from dplearn.figures.style import BAD_COLOR, BLUE, GREEN, GREY, GUIDE_GREY, ORANGE, PURPLE
from dplearn.language import N_
from dplearn.language import gettext as _

__all__ = [
    "AGES",
    "MANY_AGES",
    "INCOMES",
    "DATA_SETS",
    "NEIGHBOUR_AGES",
    "SmoothSensitivity",
    "ProposeTestRelease",
    "MedianReleases",
    "SampleAndAggregate",
    "LeakyShortcut",
]

#: Lesson 04's five ages, in [0, 90].
AGES = (15.0, 30.0, 45.0, 60.0, 75.0)
#: 1,001 ages x_i = 20 + floor(0.06 i), i = 0..1000, in [0, 100]: median 50.
MANY_AGES = tuple(float(20 + math.floor(0.06 * i)) for i in range(1001))
#: The incomes' seed.
INCOME_SEED = 15
#: 301 yearly incomes in thousands: log-normal (mu 3.2, sigma 0.6), rounded, in [0, 100].
INCOMES = tuple(
    float(v)
    for v in np.clip(
        np.round(np.exp(np.random.default_rng(INCOME_SEED).normal(3.2, 0.6, 301))), 0, 100
    )
)
#: Data set name (the button's word) -> (values, lower, upper).
DATA_SETS = {
    N_("5 ages"): (AGES, 0.0, 90.0),
    N_("1,001 ages"): (MANY_AGES, 0.0, 100.0),
    N_("301 incomes"): (INCOMES, 0.0, 100.0),
}
#: LOCAL-5's neighbour of AGES: the median 45 replaced by 35.
NEIGHBOUR_AGES = (15.0, 30.0, 35.0, 60.0, 75.0)

DATA_SET = Choice(
    N_("data set"), tuple(DATA_SETS), description=N_("the column whose median is released")
)
LOCAL_EPSILON = EPSILON.replace(minimum=0.1, maximum=5.0)
LOCAL_DELTA = listed(DELTA, (1e-10, 1e-8, 1e-6, 1e-4, 1e-2))
CAUCHY, LAPLACE = N_("Cauchy, pure ε"), N_("Laplace, with δ")
NOISE = Choice(
    N_("noise"), (CAUCHY, LAPLACE), description=N_("Cauchy noise (pure ε) or Laplace noise (δ)")
)


@functools.lru_cache(maxsize=8)
def _sensitivities(data):
    values, lower, upper = DATA_SETS[data]
    return local_sensitivity.local_sensitivities(values, lower, upper)


@functools.lru_cache(maxsize=4096)
def _smooth(data, epsilon, delta):
    """(release parameters, S*, the k of the maximum) of a data set at a budget (cached)."""
    release = local_sensitivity.smooth_release_parameters(epsilon, delta)
    value, distance = local_sensitivity.smooth_sensitivity_of(_sensitivities(data), release.beta)
    return release, value, distance


@functools.lru_cache(maxsize=4096)
def _distance(data, bound):
    """Gamma, the distance to instability at a bound (cached: it needs no budget)."""
    values, lower, upper = DATA_SETS[data]
    return local_sensitivity.distance_to_instability(values, bound, lower, upper)


@functools.lru_cache(maxsize=8)
def _median(data):
    return local_sensitivity.order_statistic(DATA_SETS[data][0])


# ---------------------------------------------------------------------------
# LOCAL-1: A^(k) and the smooth sensitivity
# ---------------------------------------------------------------------------

#: The widths of LOCAL-1's window of k: the first one that holds the maximum well inside.
WINDOWS = (20, 50, 100, 200, 500, 1000)


@register
class SmoothSensitivity(Explorer):
    """LOCAL-1: A^(k) against k, e^(-k beta) A^(k), and S*, its maximum.

    Bars: A^(k), the largest local sensitivity of the median within k changes
    (``local_sensitivity.local_sensitivities``); line: e^(-k beta) A^(k); star: its
    maximum, the smooth sensitivity S* (``local_sensitivity.smooth_sensitivity``), at the
    beta of ``local_sensitivity.smooth_release_parameters``: epsilon / 6 for Cauchy noise
    of scale 6 S*/epsilon, epsilon / (2 ln(2/delta)) for Laplace noise of scale
    2 S*/epsilon. Every k is shown for the five ages; for larger data sets the first 20,
    or more when the maximum lies further.

    Taught in: 15-go-beyond-global-sensitivity.ipynb
    """

    figure_id = "LOCAL-1"
    title = N_("Smooth sensitivity: the local sensitivity within k changes, smoothed")
    controls = {
        "epsilon": LOCAL_EPSILON,
        "noise": NOISE,
        "delta": LOCAL_DELTA.replace(applies_when={"noise": LAPLACE}),
        "data": DATA_SET,
    }
    defaults = {"epsilon": 1.0, "noise": CAUCHY, "delta": 1e-6, "data": N_("5 ages")}
    figsize = (10.0, 3.8)

    def _build(self):
        ax = self.axes = self.figure.subplots()
        self.bars = ax.stairs([0.0], [-0.5, 0.5], fill=True, color=BLUE, alpha=0.45, edgecolor=BLUE)
        (self.smoothed,) = ax.plot([], [], color=ORANGE, ls="--", lw=1.8)
        # Dots on at most about 40 of the k, so that a wide window stays readable; drawn
        # whole over the spine where the curve is at 0.
        (self.smoothed_dots,) = ax.plot(
            [], [], color=ORANGE, ls="none", marker="o", ms=4, clip_on=False
        )
        (self.here,) = ax.plot([], [], color=GREY, ls=":", lw=1.2)
        self.star = setting_mark(ax, BAD_COLOR, "*")
        self.star.set_markersize(14)
        ax.set_xlabel(_("changes $k$ to the data set"))
        ax.set_ylabel(_("sensitivity"))
        ax.set_title(_("LOCAL-1 · the local sensitivity within $k$ changes, and $S^*$"))
        legend_beside(
            ax,
            [
                Patch(fc=BLUE, alpha=0.45, ec=BLUE, label=_("$A^{(k)}$: largest within $k$")),
                Line2D(
                    [],
                    [],
                    color=ORANGE,
                    ls="--",
                    marker="o",
                    ms=4,
                    label=_(r"$e^{-k\beta}A^{(k)}$"),
                ),  # fmt: skip
                Line2D(
                    [],
                    [],
                    color=BAD_COLOR,
                    marker="*",
                    ms=12,
                    ls="none",
                    mec="black",
                    label=_("its maximum $S^*$"),
                ),  # fmt: skip
            ],
        )
        self.moving(self.bars, self.smoothed, self.smoothed_dots, self.here, self.star)

    def _apply(self, epsilon, noise, delta, data):
        release, value, distance = _smooth(data, epsilon, delta if noise == LAPLACE else None)
        sensitivities = _sensitivities(data)
        n = sensitivities.size - 1
        width = (
            n
            if n <= WINDOWS[0]
            else min(n, next((w for w in WINDOWS if w >= 1.25 * distance + 2), n))
        )
        shown = sensitivities[: width + 1]
        ks = np.arange(width + 1)
        self.bars.set_data(shown, np.arange(width + 2) - 0.5)
        smoothed = np.exp(-ks * release.beta) * shown
        self.smoothed.set_data(ks, smoothed)
        every = max(1, width // 40)
        self.smoothed_dots.set_data(ks[::every], smoothed[::every])
        self.star.set_data([distance], [value])
        self.here.set_data([distance, distance], [0.0, value])
        follow_limits(
            self,
            self.axes,
            (-0.5, width + 0.5),
            (0.0, roomy(1.1 * max(float(shown.max()), 1.0))),
            whole_x=True,
        )
        self.state = dict(
            epsilon=epsilon,
            delta=delta,
            laplace=noise == LAPLACE,
            data=data,
            beta=release.beta,
            value=value,
            distance=distance,
            scale=release.scale * value,
            first=float(sensitivities[0]),
            last=float(shown[-1]),
            width=width,
        )

    def numbers(self):
        """The readout beside LOCAL-1: beta, S*, the k of the maximum and the noise scale."""
        s = self.state
        return {
            N_(r"smoothness $\beta$"): s["beta"],
            N_("smooth sensitivity $S^*$"): s["value"],
            N_("$k$ of the maximum"): s["distance"],
            N_("noise scale"): s["scale"],
        }

    def description(self):
        """LOCAL-1 in words for a reader who cannot see it, with the current numbers."""
        s = self.state
        if s["laplace"]:
            noise = _(
                "Laplace noise of scale 2S*/ε = {scale:.4g} (δ = {delta}, β = {beta:.4g})"
            ).format(scale=s["scale"], delta=spoken(s["delta"]), beta=s["beta"])
        else:
            noise = _("Cauchy noise of scale 6S*/ε = {scale:.4g} (pure ε, β = {beta:.4g})").format(
                scale=s["scale"], beta=s["beta"]
            )
        return _(
            "Bars: the largest local sensitivity of the median of the {data} within k "
            "changes, from {first:g} at k = 0 to {last:g} at k = {width}. Dashed: the same "
            "times e^(−kβ); its maximum, the smooth sensitivity S* = {value:.4f}, is at "
            "k = {distance} (star). At ε = {epsilon:.3g}: {noise}."
        ).format(
            data=_(s["data"]),
            first=s["first"],
            last=s["last"],
            width=s["width"],
            value=s["value"],
            distance=s["distance"],
            epsilon=s["epsilon"],
            noise=noise,
        )


# ---------------------------------------------------------------------------
# LOCAL-2: propose-test-release against the proposed bound
# ---------------------------------------------------------------------------

#: LOCAL-2's axis of bounds (log).
BOUND_AXIS = (0.25, 100.0)
#: The bounds b the slider offers.
BOUNDS = (0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 5.0, 7.5, 10.0, 15.0, 20.0, 30.0, 45.0, 60.0, 75.0, 90.0)
#: Where gamma = infinity is drawn on the symlog axis, and the axis' top.
INFINITE_LEVEL, DISTANCE_TOP = 3000.0, 5000.0


@functools.lru_cache(maxsize=8)
def distance_steps(data):
    """gamma(b) as steps over LOCAL-2's axis: (bounds where it changes, gamma from each on).

    gamma changes only where b passes a value of A^(k), so the core's
    ``distance_to_instability`` is asked at those values (and at the axis' left end).
    """
    values = np.unique(_sensitivities(data))
    low, high = BOUND_AXIS
    inner = values[(values > low) & (values < high)]
    bounds = np.concatenate([[low], inner, [high]])
    distances = np.array([_distance(data, float(b)) for b in bounds], dtype=float)
    return bounds, distances


def _shown_distance(distances):
    return np.where(np.isinf(distances), INFINITE_LEVEL, distances)


def _step_outline(xs, ys):
    """The corners of a steps-post curve through (xs, ys): each y held until the next x."""
    corners_x = np.repeat(xs, 2)[1:]
    corners_y = np.repeat(ys, 2)[:-1]
    return corners_x, corners_y


@register
class ProposeTestRelease(Explorer):
    """LOCAL-2: propose-test-release: P(pass) and gamma(b) against the proposed bound b.

    Top: the chance that the test passes, P[gamma(b) + Lap(1/epsilon_test) > T] with
    T = ln(1/(2 delta))/epsilon_test (``local_sensitivity.ptr_pass_probability``), the
    refusals (1 - P(pass)) shaded above it; bottom: gamma(b), the distance to instability
    (``local_sensitivity.distance_to_instability``), on a symlog axis with infinity (no
    data set in the bounds has local sensitivity above b) at its top, and T.

    Taught in: 15-go-beyond-global-sensitivity.ipynb
    """

    figure_id = "LOCAL-2"
    title = N_("Propose-test-release: the chance to pass against the proposed bound")
    controls = {
        "epsilon_test": LOCAL_EPSILON.replace(
            label=N_(r"$\varepsilon_{test}$"), description=N_("budget of the test")
        ),
        "delta": LOCAL_DELTA,
        "bound": listed(
            Control(N_("bound $b$"), 0.5, 90.0, description=N_("proposed bound b")), BOUNDS
        ),
        "data": DATA_SET,
    }
    defaults = {"epsilon_test": 0.5, "delta": 1e-6, "bound": 2.0, "data": N_("1,001 ages")}
    figsize = (10.0, 5.0)

    def _build(self):
        top, bottom = self.axes = self.figure.subplots(2, 1, sharex=True)
        top.set_xscale("log")
        top.set_xlim(*BOUND_AXIS)
        self.refused = Polygon(
            [[0, 0]], closed=True, fc=BAD_COLOR, alpha=0.15, hatch="//", ec=BAD_COLOR, lw=0
        )
        top.add_patch(self.refused)
        (self.passing,) = top.plot([], [], color=BLUE, lw=2, drawstyle="steps-post")
        (self.here_top,) = top.plot([], [], color=GREY, ls=":", lw=1.2)
        self.mark_top = setting_mark(top, BLUE, "o")
        (self.distances,) = bottom.plot([], [], color=PURPLE, lw=2, drawstyle="steps-post")
        (self.threshold,) = bottom.plot([], [], color=BAD_COLOR, ls="--", lw=1.4)
        (self.here_bottom,) = bottom.plot([], [], color=GREY, ls=":", lw=1.2)
        self.mark_bottom = setting_mark(bottom, PURPLE, "s")
        top.set_ylim(0.0, 1.05)
        top.set_ylabel(_("P(the test passes)"))
        top.set_title(_("LOCAL-2 · propose-test-release against the proposed bound $b$"))
        bottom.set_yscale("symlog", linthresh=1.0, linscale=0.5)
        bottom.set_ylim(0.0, DISTANCE_TOP)
        bottom.set_yticks(
            [0, 1, 10, 100, 1000, INFINITE_LEVEL], ["0", "1", "10", "100", "1000", "∞"]
        )
        bottom.minorticks_off()
        bottom.set_xlabel(_("proposed bound $b$ on the local sensitivity"))
        bottom.set_ylabel(_(r"distance $\gamma(b)$"))
        legend_beside(
            top,
            [
                Line2D([], [], color=BLUE, lw=2, label=_("P(pass)")),
                Patch(fc=BAD_COLOR, alpha=0.15, hatch="//", ec=BAD_COLOR, label=_("refused")),
                Line2D([], [], color=GREY, ls=":", label=_("slider's $b$")),
            ],
        )
        legend_beside(
            bottom,
            [
                Line2D([], [], color=PURPLE, lw=2, label=_(r"$\gamma(b)$")),
                Line2D([], [], color=BAD_COLOR, ls="--", label=_("threshold $T$")),
            ],
        )
        self.moving(
            self.refused,
            self.passing,
            self.here_top,
            self.mark_top,
            self.distances,
            self.threshold,
            self.here_bottom,
            self.mark_bottom,
        )

    def _apply(self, epsilon_test, delta, bound, data):
        bounds, distances = distance_steps(data)
        passing = np.asarray(local_sensitivity.ptr_pass_probability(distances, epsilon_test, delta))
        self.passing.set_data(bounds, passing)
        corners_x, corners_y = _step_outline(bounds, passing)
        low, high = BOUND_AXIS
        self.refused.set_xy(
            np.column_stack(
                [np.concatenate([corners_x, [high, low]]), np.concatenate([corners_y, [1.0, 1.0]])]
            )
        )
        self.distances.set_data(bounds, _shown_distance(distances))
        threshold = local_sensitivity.ptr_threshold(epsilon_test, delta)
        self.threshold.set_data([low, high], [threshold, threshold])
        distance = _distance(data, bound)
        here = local_sensitivity.ptr_pass_probability(distance, epsilon_test, delta)
        self.mark_top.set_data([bound], [here])
        self.here_top.set_data([bound, bound], [0.0, 1.05])
        self.mark_bottom.set_data([bound], [_shown_distance(np.array([distance]))[0]])
        self.here_bottom.set_data([bound, bound], [0.0, DISTANCE_TOP])
        self.state = dict(
            epsilon_test=epsilon_test,
            delta=delta,
            bound=bound,
            data=data,
            distance=float(distance),
            threshold=threshold,
            passing=float(here),
        )

    def numbers(self):
        """The readout beside LOCAL-2: gamma(b), the threshold T and P(pass) at the slider's b."""
        s = self.state
        return {
            N_(r"distance to instability $\gamma(b)$"): s["distance"],
            N_("threshold $T$"): s["threshold"],
            N_("P(pass) at $b$"): s["passing"],
        }

    def description(self):
        """LOCAL-2 in words for a reader who cannot see it, with the current numbers."""
        s = self.state
        return _(
            "For the median of the {data}: top, the chance that the test passes against the "
            "proposed bound b (refusals hatched above it); bottom, the distance to "
            "instability γ(b) in steps and the threshold T = {threshold:.4f} (dashed; "
            "ε test = {epsilon:.3g}, δ = {delta}). At b = {bound:g}: γ = {distance}, "
            "P(pass) = {passing}."
        ).format(
            data=_(s["data"]),
            threshold=s["threshold"],
            epsilon=s["epsilon_test"],
            delta=spoken(s["delta"]),
            bound=s["bound"],
            distance=spoken(s["distance"]),
            passing=spoken(s["passing"], 6),
        )


# ---------------------------------------------------------------------------
# LOCAL-3: five private medians, P(|error| <= t) against epsilon
# ---------------------------------------------------------------------------

#: LOCAL-3's epsilons (log axis).
EPSILON_GRID = tuple(float(e) for e in np.geomspace(0.1, 10.0, 21))
#: The bounds propose-test-release may propose; the best is taken at each epsilon.
PTR_BOUNDS = (0.5, 1.0, 1.5, 2.0, 3.0, 5.0, 10.0, 20.0, 30.0, 50.0, 90.0)
RELEASES = {
    "exponential": dict(color=BLUE, ls="-", marker="o", label=N_("exponential mechanism")),
    "laplace": dict(color=ORANGE, ls="--", marker="s", label=N_("smooth sensitivity, Laplace")),
    "cauchy": dict(color=PURPLE, ls="-.", marker="v", label=N_("smooth sensitivity, Cauchy")),
    "ptr": dict(color=GREEN, ls=":", marker="^", label=N_("propose-test-release, best $b$")),
    "blocks": dict(
        color=GREY,
        ls=(0, (6, 2, 1, 2, 1, 2)),
        marker="D",
        label=N_(r"sample-and-aggregate, $\sqrt{n}$ blocks (noise)"),
    ),  # fmt: skip
}


def _blocks(data):
    """The number of blocks of LOCAL-3's sample-and-aggregate: the whole number nearest sqrt(n)."""
    return max(1, round(math.sqrt(len(DATA_SETS[data][0]))))


@functools.lru_cache(maxsize=512)
def _exponential_law(data, epsilon):
    """The exponential mechanism's exact law over the whole numbers of [lower, upper]."""
    values, lower, upper = DATA_SETS[data]
    candidates = np.arange(lower, upper + 1.0)
    return candidates, selection.quantile_probabilities(values, candidates, epsilon)


def within_probabilities(data, epsilon, delta, t):
    """P(|release - median| <= t) of the five releases at one epsilon, and PTR's best b.

    Propose-test-release splits epsilon equally between its test and its release.
    Sample-and-aggregate's is its noise part only, Lap((upper - lower)/(k epsilon)) with
    k blocks: the bias of the blocks' medians is left out (LOCAL-4 shows it).
    """
    values, lower, upper = DATA_SETS[data]
    median = _median(data)
    candidates, law = _exponential_law(data, epsilon)
    laplace_release, laplace_value, _unused = _smooth(data, epsilon, delta)
    cauchy_release, cauchy_value, _unused = _smooth(data, epsilon, None)
    # ptr_within for every bound at once: P(pass) (1 - e^(-t epsilon_release / b)).
    bounds = np.array(PTR_BOUNDS)
    distances = np.array([_distance(data, b) for b in PTR_BOUNDS])
    passing = local_sensitivity.ptr_pass_probability(distances, epsilon / 2, delta)
    ptr = passing * local_sensitivity.laplace_within(t * (epsilon / 2) / bounds, 1.0)
    best = PTR_BOUNDS[int(np.argmax(ptr))]
    return {
        "exponential": float(law[np.abs(candidates - median) <= t].sum()),
        "laplace": local_sensitivity.laplace_within(t, laplace_release.scale * laplace_value),
        "cauchy": local_sensitivity.cauchy_within(t, cauchy_release.scale * cauchy_value),
        "ptr": float(ptr.max()),
        "blocks": local_sensitivity.laplace_within(t, (upper - lower) / (_blocks(data) * epsilon)),
    }, best


@functools.lru_cache(maxsize=256)
def within_curves(data, delta, t):
    """The five within-probabilities over LOCAL-3's epsilons (cached: t and delta redraw them)."""
    rows = [within_probabilities(data, e, delta, t)[0] for e in EPSILON_GRID]
    return {name: np.array([row[name] for row in rows]) for name in RELEASES}


@register
class MedianReleases(Explorer):
    """LOCAL-3: the chance that a private median lands within t, five ways, against epsilon.

    The exponential mechanism over the whole numbers of [lower, upper] (its exact law,
    ``selection.quantile_probabilities``); smooth sensitivity with Laplace noise at delta
    and with Cauchy noise (``local_sensitivity.laplace_within``, ``cauchy_within``);
    propose-test-release with epsilon split equally between test and release and the best
    b of a small list (``local_sensitivity.ptr_within``: a refusal never counts); and the
    noise part of sample-and-aggregate with the whole number of blocks nearest sqrt(n),
    Lap((upper - lower)/(k epsilon)), its blocks' bias left out.

    Taught in: 15-go-beyond-global-sensitivity.ipynb
    """

    figure_id = "LOCAL-3"
    title = N_("Five private medians: the chance to land within t")
    controls = {
        "epsilon": EPSILON.replace(minimum=0.1, maximum=10.0),
        "t": listed(
            Control(N_("error $t$"), 0.5, 20.0, description=N_("allowed error t")),
            (0.5, 1.0, 2.0, 3.0, 5.0, 10.0, 20.0),
        ),
        "delta": LOCAL_DELTA.replace(on_release=True),
        "data": DATA_SET,
    }
    defaults = {"epsilon": 1.0, "t": 1.0, "delta": 1e-6, "data": N_("1,001 ages")}
    figsize = (10.0, 3.9)

    def _build(self):
        ax = self.axes = self.figure.subplots()
        self.curves, self.marks = {}, {}
        for name, style in RELEASES.items():
            (self.curves[name],) = ax.plot([], [], color=style["color"], ls=style["ls"], lw=2)
            self.marks[name] = setting_mark(ax, style["color"], style["marker"])
        (self.here,) = ax.plot([], [], color=GUIDE_GREY, lw=0.8)
        ax.set_xscale("log")
        ax.set_xlim(EPSILON_GRID[0], EPSILON_GRID[-1])
        ax.set_ylim(0.0, 1.03)
        ax.set_xlabel(r"$\varepsilon$")
        ax.set_ylabel(_(r"P($|$error$|\leq t$)"))
        ax.set_title(_("LOCAL-3 · a private median within $t$ of the true one"))
        legend_beside(
            ax,
            [style_handle(style, _(style["label"])) for style in RELEASES.values()],
            fontsize=8.5,
        )
        self.moving(*self.curves.values(), *self.marks.values(), self.here)

    def _apply(self, epsilon, t, delta, data):
        curves = within_curves(data, delta, t)
        here, best = within_probabilities(data, epsilon, delta, t)
        for name in RELEASES:
            self.curves[name].set_data(EPSILON_GRID, curves[name])
            self.marks[name].set_data([epsilon], [here[name]])
        self.here.set_data([epsilon, epsilon], [0.0, 1.03])
        self.state = dict(
            epsilon=epsilon, t=t, delta=delta, data=data, here=here, best=best, blocks=_blocks(data)
        )

    def numbers(self):
        """The readout beside LOCAL-3: each release's P(|error| <= t) at the slider's epsilon."""
        here = self.state["here"]
        return {
            N_("within $t$, exponential mechanism"): here["exponential"],
            N_("within $t$, smooth sensitivity, Laplace"): here["laplace"],
            N_("within $t$, smooth sensitivity, Cauchy"): here["cauchy"],
            N_("within $t$, propose-test-release"): here["ptr"],
            N_("within $t$, sample-and-aggregate (noise)"): here["blocks"],
            N_("best bound $b$ of propose-test-release"): self.state["best"],
        }

    def description(self):
        """LOCAL-3 in words for a reader who cannot see it, with the current numbers."""
        s, here = self.state, self.state["here"]
        return _(
            "The chance that a private median of the {data} lands within {t:g} of the true "
            "one, against ε. At ε = {epsilon:.3g}, δ = {delta}: exponential mechanism "
            "{exponential:.6f} (solid); smooth sensitivity {laplace:.6f} with Laplace noise "
            "(dashed), {cauchy:.6f} with Cauchy (dash-dot); propose-test-release "
            "{ptr:.6f} at b = {best:g} (dotted); sample-and-aggregate's noise with "
            "{blocks} blocks {samples:.6f}."
        ).format(
            data=_(s["data"]),
            t=s["t"],
            epsilon=s["epsilon"],
            delta=spoken(s["delta"]),
            exponential=here["exponential"],
            laplace=here["laplace"],
            cauchy=here["cauchy"],
            ptr=here["ptr"],
            best=s["best"],
            blocks=s["blocks"],
            samples=here["blocks"],
        )


# ---------------------------------------------------------------------------
# LOCAL-4: sample-and-aggregate against the number of blocks
# ---------------------------------------------------------------------------

#: The seed of LOCAL-4's split.
SPLIT_SEED = 4


def _block_counts(n):
    """The numbers of blocks LOCAL-4 draws: every one up to 30, then about 40 on a log scale."""
    if n <= 30:
        return np.arange(1, n + 1)
    return np.unique(np.round(np.geomspace(1, n, 40)).astype(int))


@functools.lru_cache(maxsize=8)
def block_biases(data):
    """(block counts k, |mean of the clamped block medians - median|) on one seeded split each.

    The split is the core's own (``local_sensitivity.sample_and_aggregate``, seed
    ``SPLIT_SEED``): its statistic records each block's median, and the noise it adds is
    left out, so the bias is exact for that split.
    """
    values, lower, upper = DATA_SETS[data]
    median = _median(data)
    counts = _block_counts(len(values))
    biases = []
    for blocks in counts:
        medians = []

        def block_median(block, medians=medians):
            medians.append(local_sensitivity.order_statistic(block))
            return medians[-1]

        local_sensitivity.sample_and_aggregate(
            values, block_median, int(blocks), lower, upper, 1.0,
            rng=np.random.default_rng(SPLIT_SEED),
        )  # fmt: skip
        biases.append(abs(float(np.clip(medians, lower, upper).mean()) - median))
    return counts, np.array(biases)


@register
class SampleAndAggregate(Explorer):
    """LOCAL-4: sample-and-aggregate's error against its number of blocks k.

    On one seeded split per k: the bias, |mean of the k clamped block medians - the
    median|; the noise part, the standard deviation sqrt(2)(upper - lower)/(k epsilon) of
    the Laplace noise; and the root mean square error sqrt(bias^2 + noise^2) of the
    release on that split, whose smallest value marks the best k.

    Taught in: 15-go-beyond-global-sensitivity.ipynb
    """

    figure_id = "LOCAL-4"
    title = N_("Sample-and-aggregate: the error against the number of blocks")
    controls = {"epsilon": LOCAL_EPSILON, "data": DATA_SET}
    defaults = {"epsilon": 1.0, "data": N_("1,001 ages")}
    figsize = (10.0, 3.8)

    def _build(self):
        ax = self.axes = self.figure.subplots()
        (self.bias,) = ax.plot([], [], color=ORANGE, ls="none", marker="s", ms=5)
        (self.noise,) = ax.plot([], [], color=PURPLE, ls="--", lw=1.8)
        (self.total,) = ax.plot([], [], color=BLUE, ls="-", lw=2)
        self.best = setting_mark(ax, BAD_COLOR, "*")
        self.best.set_markersize(14)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlim(0.8, 1300)
        ax.set_ylim(0.01, 3000)
        ax.set_xlabel(_("number of blocks $k$"))
        ax.set_ylabel(_("error of the median"))
        ax.set_title(_("LOCAL-4 · sample-and-aggregate: bias of small blocks against noise"))
        legend_beside(
            ax,
            [
                Line2D([], [], color=ORANGE, ls="none", marker="s", label=_("bias of the split")),
                Line2D(
                    [],
                    [],
                    color=PURPLE,
                    ls="--",
                    label=_(r"noise $\sqrt{2}(u-l)/(k\varepsilon)$"),
                ),  # fmt: skip
                Line2D([], [], color=BLUE, lw=2, label=_("root mean square error")),
                Line2D(
                    [],
                    [],
                    color=BAD_COLOR,
                    marker="*",
                    ms=12,
                    ls="none",
                    mec="black",
                    label=_("best $k$"),
                ),  # fmt: skip
            ],
        )
        self.moving(self.bias, self.noise, self.total, self.best)

    def _apply(self, epsilon, data):
        _values, lower, upper = DATA_SETS[data]
        counts, biases = block_biases(data)
        noise = math.sqrt(2.0) * (upper - lower) / (counts * epsilon)
        total = np.hypot(biases, noise)
        best = int(np.argmin(total))
        # A bias of 0 has no place on a log axis: it is left out of the drawing.
        self.bias.set_data(counts, np.where(biases > 0, biases, np.nan))
        self.noise.set_data(counts, noise)
        self.total.set_data(counts, total)
        self.best.set_data([counts[best]], [total[best]])
        self.state = dict(
            epsilon=epsilon,
            data=data,
            blocks=int(counts[best]),
            total=float(total[best]),
            bias=float(biases[best]),
            noise=float(noise[best]),
        )

    def numbers(self):
        """The readout beside LOCAL-4: the best k, its error, bias and noise part."""
        s = self.state
        return {
            N_("best number of blocks $k$"): s["blocks"],
            N_("root mean square error at the best $k$"): s["total"],
            N_("bias of the split at the best $k$"): s["bias"],
            N_(r"noise part $\sqrt{2}(u-l)/(k\varepsilon)$"): s["noise"],
        }

    def description(self):
        """LOCAL-4 in words for a reader who cannot see it, with the current numbers."""
        s = self.state
        return _(
            "For the median of the {data} at ε = {epsilon:.3g}, against the number of blocks "
            "k (log scales): the bias of one seeded split (squares), the noise's standard "
            "deviation √2(u − l)/(kε) (dashed) and the root mean square error (solid). It is "
            "smallest at k = {blocks} (star): {total:.4g}, of which bias {bias:.4g} and "
            "noise {noise:.4g}."
        ).format(
            data=_(s["data"]),
            epsilon=s["epsilon"],
            blocks=s["blocks"],
            total=s["total"],
            bias=s["bias"],
            noise=s["noise"],
        )


# ---------------------------------------------------------------------------
# LOCAL-5: noise scaled to the local sensitivity leaks
# ---------------------------------------------------------------------------

#: LOCAL-5's outputs (axis and slider).
OUTPUT_AXIS = (-100.0, 200.0)


class LocalNoisePair:
    """The median plus Laplace noise of scale LS/epsilon on AGES (x) and NEIGHBOUR_AGES (x').

    With m, m' the medians and b = LS(x)/epsilon, b' = LS(x')/epsilon the scales, the
    privacy loss of an output o is L(o) = ln(b'/b) - |o - m|/b + |o - m'|/b'. It is
    piecewise linear with corners at m and m'; when b < b' its slopes on the far left and
    far right are 1/b - 1/b' > 0 and -(1/b - 1/b') < 0, so L falls without bound on both
    sides: outputs far out are ever likelier under x' than under x. The masses read out:
    P_x'[L(O) < -epsilon] (outputs x' gives more than e^epsilon times as often as x) and
    P_x[L(O) > epsilon] (the other way round), each a union of intervals of o found
    exactly from L's corners.
    """

    def __init__(self, epsilon):
        lower, upper = 0.0, 90.0
        self.epsilon = epsilon
        self.sensitivity = float(local_sensitivity.local_sensitivities(AGES, lower, upper)[0])
        self.neighbour_sensitivity = float(
            local_sensitivity.local_sensitivities(NEIGHBOUR_AGES, lower, upper)[0]
        )
        self.median = local_sensitivity.order_statistic(AGES)
        self.neighbour_median = local_sensitivity.order_statistic(NEIGHBOUR_AGES)
        self.scale = self.sensitivity / epsilon
        self.neighbour_scale = self.neighbour_sensitivity / epsilon

    def densities(self, outputs):
        """The output densities on x and on x' (Laplace)."""
        outputs = np.asarray(outputs, dtype=float)
        return (
            np.exp(-np.abs(outputs - self.median) / self.scale) / (2 * self.scale),
            np.exp(-np.abs(outputs - self.neighbour_median) / self.neighbour_scale)
            / (2 * self.neighbour_scale),
        )

    def loss(self, outputs):
        """L(o) = ln(p_x(o) / p_x'(o))."""
        outputs = np.asarray(outputs, dtype=float)
        return (
            math.log(self.neighbour_scale / self.scale)
            - np.abs(outputs - self.median) / self.scale
            + np.abs(outputs - self.neighbour_median) / self.neighbour_scale
        )

    def region(self, above, level):
        """The intervals of o where L(o) > level (above) or L(o) < level, as (start, end) pairs.

        On each linear piece between L's corners (and beyond them) the crossing is solved
        exactly; the pieces whose points satisfy the condition are joined.
        """
        corners = sorted({self.median, self.neighbour_median})
        edges = [-math.inf, *corners, math.inf]
        intervals = []
        for start, end in zip(edges[:-1], edges[1:], strict=True):
            # L on this piece is a + slope * o; its slope from two points inside it.
            left = start if math.isfinite(start) else end - 1.0
            right = end if math.isfinite(end) else start + 1.0
            slope = float(self.loss(right) - self.loss(left)) / (right - left)
            offset = float(self.loss(left)) - slope * left
            if slope == 0:
                holds = offset > level if above else offset < level
                piece = (start, end) if holds else None
            else:
                crossing = (level - offset) / slope
                wants_right = (slope > 0) == above
                low, high = (
                    (max(start, crossing), end) if wants_right else (start, min(end, crossing))
                )
                piece = (low, high) if low < high else None
            if piece is None:
                continue
            if intervals and intervals[-1][1] >= piece[0]:
                intervals[-1] = (intervals[-1][0], piece[1])
            else:
                intervals.append(piece)
        return intervals

    @staticmethod
    def _cdf(points, centre, scale):
        points = np.asarray(points, dtype=float)
        with np.errstate(over="ignore"):
            return np.where(
                points < centre,
                0.5 * np.exp(np.minimum(points - centre, 0.0) / scale),
                1.0 - 0.5 * np.exp(-np.maximum(points - centre, 0.0) / scale),
            )

    def mass(self, intervals, neighbour):
        """The probability of the intervals under the release on x' (neighbour) or on x."""
        centre, scale = (
            (self.neighbour_median, self.neighbour_scale)
            if neighbour
            else (self.median, self.scale)
        )
        return float(
            sum(
                self._cdf(end, centre, scale) - self._cdf(start, centre, scale)
                for start, end in intervals
            )
        )


@register
class LeakyShortcut(Explorer):
    """LOCAL-5: Laplace noise scaled to the local sensitivity: a loss without bound.

    The five ages x = (15, 30, 45, 60, 75) (local sensitivity 15, median 45) and their
    neighbour x' with 45 replaced by 35 (local sensitivity 25, median 35), each released
    as its median plus Laplace noise of scale LS/epsilon (``LocalNoisePair``). Left: the
    two output densities; right: the privacy loss L(o) = ln(p_x(o)/p_x'(o)) against the
    output, the band +-epsilon, and the outputs where |L| > epsilon shaded. Readout: L at
    the slider's output, P_x'[L < -epsilon] and P_x[L > epsilon].

    Taught in: 15-go-beyond-global-sensitivity.ipynb
    """

    figure_id = "LOCAL-5"
    title = N_("The leaky shortcut: noise scaled to the local sensitivity")
    controls = {
        "epsilon": LOCAL_EPSILON,
        "output": Control(
            N_("output $o$"),
            OUTPUT_AXIS[0],
            OUTPUT_AXIS[1],
            step=0.5,
            description=N_("a released value"),
        ),  # fmt: skip
    }
    defaults = {"epsilon": 1.0, "output": 120.0}
    figsize = (10.0, 3.8)
    outputs = np.linspace(*OUTPUT_AXIS, 601)

    def _build(self):
        left, right = self.axes = self.figure.subplots(1, 2)
        (self.first,) = left.plot([], [], color=BLUE, lw=2)
        (self.second,) = left.plot([], [], color=ORANGE, ls="--", lw=2)
        (self.here_left,) = left.plot([], [], color=GREY, ls=":", lw=1.2)
        left.set_xlim(*OUTPUT_AXIS)
        left.set_xlabel(_("released median $o$"))
        left.set_ylabel(_("density"))
        left.set_title(_("LOCAL-5 · noise of scale LS/ε on two neighbours"))
        self.below = Polygon([[0, 0]], closed=True, fc=BAD_COLOR, alpha=0.15, hatch="//", lw=0)
        self.above = Polygon([[0, 0]], closed=True, fc=PURPLE, alpha=0.15, hatch="\\\\", lw=0)
        right.add_patch(self.below)
        right.add_patch(self.above)
        (self.loss,) = right.plot([], [], color="0.2", lw=2)
        (self.upper,) = right.plot([], [], color=BAD_COLOR, ls="--", lw=1.2)
        (self.lower,) = right.plot([], [], color=BAD_COLOR, ls="--", lw=1.2)
        self.mark = setting_mark(right, "0.2", "o")
        right.set_xlim(*OUTPUT_AXIS)
        right.set_xlabel(_("released median $o$"))
        right.set_ylabel(_("privacy loss $L(o)$"))
        right.set_title(_("its privacy loss has no bound"))
        # One legend under both panels: inside either, a slider moves a curve under it.
        legend_below(
            self.figure,
            [],
            handles=[
                Line2D([], [], color=BLUE, lw=2, label=_("x: LS 15, median 45")),
                Line2D([], [], color=ORANGE, ls="--", lw=2, label=_("x′: LS 25, median 35")),
                Line2D([], [], color="0.2", lw=2, label=_(r"$L(o)=\ln(p_x(o)/p_{x'}(o))$")),
                Line2D([], [], color=BAD_COLOR, ls="--", label=r"$\pm\varepsilon$"),
                Patch(fc=BAD_COLOR, alpha=0.15, hatch="//", label=_(r"$L<-\varepsilon$")),
                Patch(fc=PURPLE, alpha=0.15, hatch="\\\\", label=_(r"$L>\varepsilon$")),
            ],
            ncols=3,
        )
        self.moving(
            self.first, self.second, self.here_left, self.below, self.above, self.loss,
            self.upper, self.lower, self.mark,
        )  # fmt: skip

    def _shade(self, patch, intervals, bottom, top):
        """Covers the intervals (clipped to the axis) from bottom to top with one polygon."""
        low, high = OUTPUT_AXIS
        corners = []
        for start, end in intervals:
            start, end = max(start, low), min(end, high)
            if start < end:
                corners += [(start, bottom), (start, top), (end, top), (end, bottom)]
        patch.set_xy(corners or [(low, bottom)])

    def _apply(self, epsilon, output):
        pair = LocalNoisePair(epsilon)
        first, second = pair.densities(self.outputs)
        self.first.set_data(self.outputs, first)
        self.second.set_data(self.outputs, second)
        top = roomy(1.1 * float(max(first.max(), second.max())))
        self.here_left.set_data([output, output], [0.0, top])
        follow_limits(self, self.axes[0], ylim=(0.0, top))
        losses = pair.loss(self.outputs)
        low, high = float(losses.min()), float(losses.max())
        margin = 0.1 * max(high - low, 2 * epsilon)
        bottom = -roomy(-(min(low, -epsilon) - margin))
        ceiling = roomy(max(high, epsilon) + margin)
        follow_limits(self, self.axes[1], ylim=(bottom, ceiling))
        self.loss.set_data(self.outputs, losses)
        self.upper.set_data(OUTPUT_AXIS, [epsilon, epsilon])
        self.lower.set_data(OUTPUT_AXIS, [-epsilon, -epsilon])
        below = pair.region(above=False, level=-epsilon)
        above = pair.region(above=True, level=epsilon)
        self._shade(self.below, below, bottom, ceiling)
        self._shade(self.above, above, bottom, ceiling)
        loss = float(pair.loss(output))
        self.mark.set_data([output], [loss])
        self.state = dict(
            epsilon=epsilon,
            output=output,
            loss=loss,
            below=pair.mass(below, neighbour=True),
            above=pair.mass(above, neighbour=False),
        )

    def numbers(self):
        """The readout beside LOCAL-5: L at the output, and the two masses beyond the band."""
        s = self.state
        return {
            N_("privacy loss $L(o)$ at the output"): s["loss"],
            N_(r"P on x′ of $L<-\varepsilon$"): s["below"],
            N_(r"P on x of $L>\varepsilon$"): s["above"],
        }

    def description(self):
        """LOCAL-5 in words for a reader who cannot see it, with the current numbers."""
        s = self.state
        return _(
            "The five ages (local sensitivity 15) and a neighbour (25) released with Laplace "
            "noise of scale LS/ε, ε = {epsilon:.3g}. The privacy loss falls without bound on "
            "both sides (right panel): at o = {output:g} it is {loss:.4g}. Outputs where "
            "it is below −ε have probability {below:.4g} on the neighbour, outputs above ε "
            "{above:.4g} on the five ages (shaded)."
        ).format(
            epsilon=s["epsilon"],
            output=s["output"],
            loss=s["loss"],
            below=s["below"],
            above=s["above"],
        )
