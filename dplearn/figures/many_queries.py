"""Figures MANY-1 to MANY-5: many queries for the price of few.

Parallel composition (MANY-1), group privacy (MANY-2), the sparse vector technique's
AboveThreshold and its exact law (MANY-3), variants of it that are not private (MANY-4),
and what Sparse saves against answering every query (MANY-5). Every number comes from
``dplearn.composition`` (groups and disjoint data) and ``dplearn.sparse_vector``; this
module only draws.

Taught in: 13-answer-many-queries-for-the-price-of-few.ipynb
"""

from __future__ import annotations

import functools
import math

import numpy as np
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.ticker import FixedLocator, NullLocator

from dplearn import calibration, composition
from dplearn import sparse_vector as sv
from dplearn.figures.controls import DELTA, EPSILON, Choice, Control
from dplearn.figures.explorers import Explorer, register
from dplearn.figures.legends import legend_beside
from dplearn.figures.sliders import exponent_control
from dplearn.figures.style import BAD_COLOR, BLUE, GREEN, GUIDE_GREY, ORANGE, PURPLE
from dplearn.language import N_
from dplearn.language import gettext as _

__all__ = [
    "ParallelComposition",
    "GroupPrivacy",
    "AboveThresholdLaw",
    "BrokenVariants",
    "SparseSavings",
    "ANSWERS",
]

#: MANY-3's answers on D1 (the data set docs/figures.md gives for MANY-3).
ANSWERS = (1.0, 3.0, 8.0, 2.0, 12.0)

FIRST_COLOR = BLUE
SECOND_COLOR = ORANGE
BOUND_COLOR = BAD_COLOR
GOOD_COLOR = GREEN
PLAIN_COLOR = "0.35"


def _scientific(value):
    """A number for a sentence: 4 significant digits, 'infinite' for inf."""
    if value == np.inf:
        return _("infinite")
    return f"{value:.4g}"


# ---------------------------------------------------------------------------
# MANY-1: parallel composition
# ---------------------------------------------------------------------------


@register
class ParallelComposition(Explorer):
    """MANY-1: the noise per count at an overall epsilon, disjoint bins against overlap.

    A histogram whose k bins are disjoint (one person in one bin) costs epsilon in all
    with Laplace(1 / epsilon) in every bin (parallel composition); k counts that one
    person can all change cost k epsilon at that noise, or need Laplace(k / epsilon) each
    for epsilon in all. Drawn: the error of each count (the noise's standard deviation,
    sqrt(2) times its scale) against k, sensitivity 1.

    Taught in: 13-answer-many-queries-for-the-price-of-few.ipynb
    """

    figure_id = "MANY-1"
    title = N_("Parallel composition: disjoint bins cost one epsilon, overlapping counts k")
    controls = {
        "epsilon": EPSILON.replace(
            label=N_(r"$\varepsilon$ (overall)"),
            minimum=0.05,
            maximum=5.0,
            description=N_("privacy budget for all the counts together"),
        ),
        "counts": Control(
            N_("counts $k$"), 1, 50, integer=True, description=N_("number of counts released")
        ),
    }
    defaults = {"epsilon": 1.0, "counts": 10}
    figsize = (9.5, 3.6)
    ks = np.arange(1, 51)

    def _build(self):
        ax = self.axes = self.figure.subplots()
        ax.set_yscale("log")
        (self.disjoint,) = ax.plot([], [], color=FIRST_COLOR, lw=2)
        (self.overlapping,) = ax.plot([], [], color=SECOND_COLOR, lw=2, ls="--")
        (self.disjoint_mark,) = ax.plot([], [], "o", color=FIRST_COLOR, ms=8, mec="black")
        (self.overlapping_mark,) = ax.plot([], [], "s", color=SECOND_COLOR, ms=8, mec="black")
        (self.here,) = ax.plot([], [], color=PLAIN_COLOR, lw=1, ls=":")
        self.moving(
            self.disjoint, self.overlapping, self.here, self.disjoint_mark, self.overlapping_mark
        )
        ax.set_xlim(0, 51)
        ax.set_ylim(0.1, 3000)
        ax.set_xlabel(_("number of counts $k$"))
        ax.set_ylabel(_("error of each count (standard deviation)"))
        ax.set_title(_(r"MANY-1 · the noise each count needs for $\varepsilon$ in all"))
        legend_beside(
            ax,
            [
                Line2D(
                    [],
                    [],
                    color=FIRST_COLOR,
                    lw=2,
                    marker="o",
                    mec="black",
                    label=_("disjoint bins:\nLaplace$(1/\\varepsilon)$ each"),
                ),
                Line2D(
                    [],
                    [],
                    color=SECOND_COLOR,
                    lw=2,
                    ls="--",
                    marker="s",
                    mec="black",
                    label=_("overlapping counts:\nLaplace$(k/\\varepsilon)$ each"),
                ),
                Line2D([], [], color=PLAIN_COLOR, lw=1, ls=":", label=_("the slider's $k$")),
            ],
        )

    def _apply(self, epsilon, counts):
        disjoint, overlapping = composition.count_noise_scales(epsilon, counts)
        root2 = np.sqrt(2.0)
        self.disjoint.set_data(self.ks, np.full(self.ks.size, root2 * disjoint))
        self.overlapping.set_data(self.ks, root2 * self.ks / epsilon)
        self.disjoint_mark.set_data([counts], [root2 * disjoint])
        self.overlapping_mark.set_data([counts], [root2 * overlapping])
        self.here.set_data([counts, counts], [0.1, 3000])
        self.state = dict(
            epsilon=epsilon,
            counts=counts,
            disjoint=disjoint,
            overlapping=overlapping,
            spent=composition.parallel_composition([epsilon] * counts),
        )

    def numbers(self):
        """The readout beside MANY-1: the numbers it shows at the current setting."""
        s = self.state
        return {
            N_("Laplace scale per bin, disjoint"): s["disjoint"],
            N_("Laplace scale per count, overlapping"): s["overlapping"],
            N_("error per bin, disjoint"): np.sqrt(2.0) * s["disjoint"],
            N_("error per count, overlapping"): np.sqrt(2.0) * s["overlapping"],
            N_(r"$\varepsilon$ of the histogram (parallel)"): s["spent"],
            N_(r"$\varepsilon$ of overlapping counts at the bins' noise"): (
                s["counts"] * s["epsilon"]
            ),
        }

    def description(self):
        """MANY-1 in words for a reader who cannot see it, with the current numbers."""
        s = self.state
        return _(
            "Error of each count against the number of counts k at an overall epsilon of "
            "{epsilon:.4g}: disjoint bins keep {disjoint_error:.4g} whatever "
            "k is, while {counts} overlapping counts need "
            "{overlapping_error:.4g} each, {counts} times as much."
        ).format(
            epsilon=s["epsilon"],
            disjoint_error=np.sqrt(2) * s["disjoint"],
            counts=s["counts"],
            overlapping_error=np.sqrt(2) * s["overlapping"],
        )


# ---------------------------------------------------------------------------
# MANY-2: group privacy
# ---------------------------------------------------------------------------


def _decades_around(values):
    """Log-axis limits at whole decades around values, half a decade of room each side.

    The room keeps a marker at a power of ten (delta at g = 1) whole inside the axes.
    """
    low = math.floor(math.log10(float(np.min(values))) - 0.5)
    high = math.ceil(math.log10(float(np.max(values))) + 0.5)
    return 10.0**low, 10.0**high


def _below(ratio):
    """The Gaussian's exact delta against the chain's, in words."""
    if math.isclose(ratio, 1.0, rel_tol=1e-9):
        return _("equal to the chain bound")
    return _("{ratio:.3g} times below the chain bound").format(ratio=ratio)


def _decade_ticks(axis, low, high, count):
    """Puts exactly count major ticks on a log axis, at decades within [low, high].

    Every other decade (or fewer) when there are too many, and the rest below low, where
    they are not drawn: the figure keeps the same number of tick artists at every setting
    (it changes in place). No minor ticks, for the same reason.
    """
    decades = range(math.ceil(math.log10(low) - 1e-9), math.floor(math.log10(high) + 1e-9) + 1)
    step = 1
    while len([exponent for exponent in decades if exponent % step == 0]) > count:
        step += 1
    # Multiples of the step: 10^0 (delta = 1, a bound's end) keeps its label.
    shown = [10.0**exponent for exponent in decades if exponent % step == 0]
    hidden = [low / 10.0 ** (index + 1) for index in range(count - len(shown))]
    axis.set_major_locator(FixedLocator(hidden[::-1] + shown))
    axis.set_minor_locator(NullLocator())


@functools.lru_cache(maxsize=256)
def _analytic_sigma(epsilon, delta):
    return float(calibration.gaussian_sigma_analytic(epsilon, delta))


@register
class GroupPrivacy(Explorer):
    """MANY-2: the delta a group of g gets from one person's (epsilon, delta), three ways.

    Red, solid: the chain of g neighbours, delta (e^(g epsilon) - 1) / (e^epsilon - 1).
    Purple, dashed: the often-quoted g e^((g - 1) epsilon) delta. Green, dotted: the exact
    delta at g epsilon of the Gaussian mechanism calibrated to (epsilon, delta) for one
    person, whose sensitivity for the group is g. The two bounds are drawn and read out
    as they are, past 1 too, where the hatched band says they guarantee nothing; the
    y-axis follows the three curves at every setting.

    Taught in: 13-answer-many-queries-for-the-price-of-few.ipynb
    """

    figure_id = "MANY-2"
    title = N_("Group privacy: what one person's guarantee says about a group of g")
    controls = {
        "epsilon": EPSILON.replace(
            minimum=0.05, maximum=2.0, description=N_("one person's epsilon")
        ),
        "delta": exponent_control(
            DELTA.replace(minimum=1e-10, maximum=1e-3, description=N_("one person's delta"))
        ),
        "group": Control(
            N_("group size $g$"), 1, 10, integer=True, description=N_("people in the group")
        ),
    }
    defaults = {"epsilon": 1.0, "delta": 1e-6, "group": 5}
    figsize = (10.0, 3.7)
    groups = np.arange(1, 11)

    def _build(self):
        ax = self.axes = self.figure.subplots()
        ax.set_yscale("log")
        (self.chain,) = ax.plot([], [], color=BOUND_COLOR, lw=2, marker="o", ms=4)
        (self.loose,) = ax.plot([], [], color=PURPLE, lw=1.6, ls="--", marker="^", ms=4)
        (self.exact,) = ax.plot([], [], color=GOOD_COLOR, lw=2, ls=":", marker="s", ms=4)
        (self.chain_mark,) = ax.plot([], [], "o", color=BOUND_COLOR, ms=10, mec="black")
        (self.exact_mark,) = ax.plot([], [], "s", color=GOOD_COLOR, ms=10, mec="black")
        (self.gap,) = ax.plot([], [], color="black", lw=1.2)
        self.moving(self.chain, self.loose, self.exact, self.gap, self.chain_mark, self.exact_mark)
        ax.axhspan(1.0, 1e20, fc="none", ec=GUIDE_GREY, hatch="xx", lw=0.0)
        ax.axhline(1.0, color=GUIDE_GREY, lw=1.0)
        ax.set_xlim(0.5, 10.5)
        ax.set_xlabel(_("group size $g$"))
        ax.set_ylabel(_(r"$\delta$ for the group, at $g\varepsilon$"))
        ax.set_title(_(r"MANY-2 · a group of $g$: $(g\varepsilon,\ \delta_g)$"))
        legend_beside(
            ax,
            [
                Line2D(
                    [],
                    [],
                    color=BOUND_COLOR,
                    lw=2,
                    marker="o",
                    label=_(r"chain: $\delta\,\frac{e^{g\varepsilon}-1}{e^{\varepsilon}-1}$"),
                ),
                Line2D(
                    [],
                    [],
                    color=PURPLE,
                    lw=1.6,
                    ls="--",
                    marker="^",
                    label=_(r"often quoted: $g\,e^{(g-1)\varepsilon}\delta$"),
                ),
                Line2D(
                    [],
                    [],
                    color=GOOD_COLOR,
                    lw=2,
                    ls=":",
                    marker="s",
                    label=_("Gaussian, exact\n(sensitivity $g$)"),
                ),
                Line2D([], [], color="black", lw=1.2, label=_("gap at the slider's $g$")),
                Patch(
                    fc="none",
                    ec=GUIDE_GREY,
                    hatch="xx",
                    label=_("$\\delta$ above 1:\nno guarantee"),
                ),
            ],
        )

    def _apply(self, epsilon, delta, group):
        sigma = _analytic_sigma(epsilon, delta)
        chain = np.array(
            [composition.group_privacy(epsilon, delta, g, capped=False)[1] for g in self.groups]
        )
        loose = np.array(
            [
                composition.group_privacy_loose(epsilon, delta, g, capped=False)[1]
                for g in self.groups
            ]
        )
        exact = np.array([composition.gaussian_group_delta(sigma, g, epsilon) for g in self.groups])
        # A delta that underflows to 0 is drawn at the floor, below the axis.
        floor = 1e-300
        self.chain.set_data(self.groups, np.maximum(chain, floor))
        self.loose.set_data(self.groups, np.maximum(loose, floor))
        self.exact.set_data(self.groups, np.maximum(exact, floor))
        here_chain, here_exact = chain[group - 1], exact[group - 1]
        self.chain_mark.set_data([group], [max(here_chain, floor)])
        self.exact_mark.set_data([group], [max(here_exact, floor)])
        self.gap.set_data([group, group], [max(here_exact, floor), max(here_chain, floor)])
        shown = np.concatenate([chain, loose, exact])
        limits = _decades_around(shown[shown > 0])
        if limits != tuple(self.axes.get_ylim()):
            self.axes.set_ylim(*limits)
            _decade_ticks(self.axes.yaxis, *limits, count=9)
            self.figure.invalidate_axes(self.axes, "y")
        self.state = dict(
            epsilon=epsilon,
            delta=delta,
            group=group,
            sigma=sigma,
            chain=float(here_chain),
            loose=float(loose[group - 1]),
            exact=float(here_exact),
        )

    def numbers(self):
        """The readout beside MANY-2: the numbers it shows at the current setting."""
        s = self.state
        return {
            N_(r"group's $\varepsilon = g\varepsilon$"): s["group"] * s["epsilon"],
            N_(r"chain bound $\delta_g$ (above 1: no guarantee)"): s["chain"],
            N_(r"often quoted $g e^{(g-1)\varepsilon}\delta$"): s["loose"],
            N_(r"Gaussian $\sigma$ for one person"): s["sigma"],
            N_(r"Gaussian exact $\delta$ at $g\varepsilon$"): s["exact"],
            N_("chain bound / exact"): s["chain"] / s["exact"] if s["exact"] > 0 else np.inf,
        }

    def description(self):
        """MANY-2 in words for a reader who cannot see it, with the current numbers."""
        s = self.state
        no_guarantee = _(", above 1: no guarantee at all") if s["chain"] > 1 else ""
        return _(
            "Delta for a group of g people against g, from one person's epsilon "
            "{epsilon:.4g} and delta {delta:.3g}. At g = {group} the chain "
            "bound gives {chain:.4g}{no_guarantee}, the often-quoted bound "
            "{loose:.4g}, and the Gaussian mechanism's exact delta is "
            "{exact:.4g}, {exact_against_chain}."
        ).format(
            epsilon=s["epsilon"],
            delta=s["delta"],
            group=s["group"],
            chain=s["chain"],
            no_guarantee=no_guarantee,
            loose=s["loose"],
            exact=s["exact"],
            exact_against_chain=_below(s["chain"] / s["exact"]),
        )


# ---------------------------------------------------------------------------
# MANY-3: AboveThreshold's exact law on two neighbours
# ---------------------------------------------------------------------------

#: MANY-3's neighbours: how D2's answers differ from D1's (sensitivity 1).
NEIGHBOURS = {
    N_("all down"): np.array([-1.0, -1.0, -1.0, -1.0, -1.0]),
    N_("all up"): np.array([1.0, 1.0, 1.0, 1.0, 1.0]),
    N_("mixed"): np.array([1.0, 1.0, 1.0, 1.0, -1.0]),
}


@register
class AboveThresholdLaw(Explorer):
    """MANY-3: P[stop at query k] on D1 and D2, and each outcome's privacy loss.

    D1's answers are (1, 3, 8, 2, 12); D2 moves each by the sensitivity 1: all down, all
    up, or the first four up and the last down (mixed). Left: the exact law of
    AboveThreshold's outcome on each. Right: the privacy loss ln(P[o | D1] / P[o | D2]) of
    every outcome, inside the band from -epsilon to epsilon whatever the setting.

    Taught in: 13-answer-many-queries-for-the-price-of-few.ipynb
    """

    figure_id = "MANY-3"
    title = N_("AboveThreshold: the exact law of where it stops, and every outcome's loss")
    controls = {
        "epsilon": EPSILON.replace(minimum=0.1, maximum=5.0),
        "threshold": Control(
            N_("threshold $T$"), 0.0, 20.0, step=0.5, description=N_("the threshold T")
        ),
        "neighbour": Choice(
            "$D_2$", tuple(NEIGHBOURS), description=N_("how the neighbour's answers differ")
        ),
    }
    defaults = {"epsilon": 1.0, "threshold": 10.0, "neighbour": "mixed"}
    figsize = (10.0, 3.8)
    labels = ("1", "2", "3", "4", "5", N_("none"))
    #: The readout's keys for D1's law, one per outcome of ``labels``.
    stop_keys = (
        N_("$D_1$: stop at 1"),
        N_("$D_1$: stop at 2"),
        N_("$D_1$: stop at 3"),
        N_("$D_1$: stop at 4"),
        N_("$D_1$: stop at 5"),
        N_("$D_1$: none above"),
    )

    def _build(self):
        left, right = self.figure.subplots(1, 2, width_ratios=(1.25, 1))
        self.axes = (left, right)
        x = np.arange(6)
        shown_labels = [_(label) for label in self.labels]
        self.first_bars = left.bar(x - 0.2, np.zeros(6), 0.4, color=FIRST_COLOR, label="$D_1$")
        self.second_bars = left.bar(
            x + 0.2, np.zeros(6), 0.4, color=SECOND_COLOR, hatch="//", ec="black", lw=0.5
        )
        left.set_xticks(x, shown_labels)
        left.set_xlim(-0.6, 5.6)
        left.set_ylim(0, 1.0)
        left.set_xlabel(_("AboveThreshold stops at query"))
        left.set_ylabel(_("probability"))
        left.set_title(_("MANY-3 · where it stops, exactly"))
        left.legend(
            handles=[
                Patch(fc=FIRST_COLOR, label=_("$D_1$: answers 1, 3, 8, 2, 12")),
                Patch(fc=SECOND_COLOR, hatch="//", ec="black", label=_("$D_2$: a neighbour")),
            ],
            loc="upper left",
            fontsize=8.5,
        )
        right.axhline(0.0, color=GUIDE_GREY, lw=0.8)
        self.band = right.fill_between([-0.6, 5.6], [-1, -1], [1, 1], color=GOOD_COLOR, alpha=0.15)
        (self.upper,) = right.plot([-0.6, 5.6], [1, 1], color=GOOD_COLOR, ls="--", lw=1.2)
        (self.lower,) = right.plot([-0.6, 5.6], [-1, -1], color=GOOD_COLOR, ls="--", lw=1.2)
        (self.stems,) = right.plot([], [], color=PLAIN_COLOR, lw=1.5)
        (self.losses,) = right.plot([], [], "D", color=PLAIN_COLOR, ms=7, mec="black")
        self.moving(self.band, self.upper, self.lower, self.stems, self.losses)
        self.moving(*self.first_bars.patches, *self.second_bars.patches)
        right.set_xticks(x, shown_labels)
        right.set_xlim(-0.6, 5.6)
        right.set_ylim(-5.5, 5.5)
        right.set_xlabel(_("outcome"))
        right.set_ylabel(_(r"privacy loss $\ln(P_1/P_2)$ (nats)"))
        right.set_title(_(r"each outcome's loss, within $\pm\varepsilon$"))
        legend_beside(
            right,
            [
                Line2D(
                    [],
                    [],
                    color=PLAIN_COLOR,
                    marker="D",
                    mec="black",
                    lw=1.5,
                    label=_("loss of the outcome"),
                ),
                Line2D([], [], color=GOOD_COLOR, ls="--", lw=1.2, label=r"$\pm\varepsilon$"),
            ],
        )

    def _apply(self, epsilon, threshold, neighbour):
        first = np.array(ANSWERS)
        second = first + NEIGHBOURS[neighbour]
        log_first = sv.above_threshold_log_probabilities(first, threshold, epsilon)
        log_second = sv.above_threshold_log_probabilities(second, threshold, epsilon)
        p_first, p_second = np.exp(log_first), np.exp(log_second)
        for bar, height in zip(self.first_bars.patches, p_first, strict=True):
            bar.set_height(height)
        for bar, height in zip(self.second_bars.patches, p_second, strict=True):
            bar.set_height(height)
        losses = log_first - log_second
        x = np.arange(6)
        self.losses.set_data(x, losses)
        self.stems.set_data(
            np.repeat(x, 3).astype(float),
            np.column_stack([np.zeros(6), losses, np.full(6, np.nan)]).ravel(),
        )
        self.band.set_verts(
            [np.array([[-0.6, -epsilon], [5.6, -epsilon], [5.6, epsilon], [-0.6, epsilon]])]
        )
        self.upper.set_ydata([epsilon, epsilon])
        self.lower.set_ydata([-epsilon, -epsilon])
        self.state = dict(
            epsilon=epsilon,
            threshold=threshold,
            neighbour=neighbour,
            first=p_first,
            second=p_second,
            losses=losses,
        )

    def numbers(self):
        """The readout beside MANY-3: the numbers it shows at the current setting."""
        s = self.state
        table = dict(zip(self.stop_keys, s["first"], strict=True))
        worst = int(np.argmax(np.abs(s["losses"])))
        table[N_("largest |loss| (nats)")] = float(np.abs(s["losses"][worst]))
        table[N_("at the outcome")] = _(self.labels[worst])
        table[N_(r"$\varepsilon$ (nats)")] = s["epsilon"]
        table[N_(r"largest |loss| in units of $\varepsilon$")] = float(
            np.abs(s["losses"][worst]) / s["epsilon"]
        )
        return table

    def description(self):
        """MANY-3 in words for a reader who cannot see it, with the current numbers."""
        s = self.state
        worst = int(np.argmax(np.abs(s["losses"])))
        law = ", ".join(f"{value:.4g}" for value in s["first"])
        return _(
            "Probability that AboveThreshold stops at each of the 5 queries or at none, on "
            "D1 and on a neighbour D2 ({neighbour}), at threshold {threshold:g} and "
            "epsilon {epsilon:.4g}; on D1: {law}. Every outcome's privacy loss lies "
            "within plus or minus epsilon: the largest, at outcome {outcome}, is "
            "{largest_loss:.4g}."
        ).format(
            neighbour=_(s["neighbour"]),
            threshold=s["threshold"],
            epsilon=s["epsilon"],
            law=law,
            outcome=_(self.labels[worst]),
            largest_loss=abs(s["losses"][worst]),
        )


# ---------------------------------------------------------------------------
# MANY-4: broken variants against AboveThreshold
# ---------------------------------------------------------------------------

MAX_QUERIES = 50
#: Numbers of queries at which AboveThreshold's worst loss is drawn on the no-stop pair.
ABOVE_THRESHOLD_QUERIES = (1, 2, 5, 10, 20, 35, 50)


@functools.lru_cache(maxsize=64)
def _above_threshold_on_pair(variant, queries, epsilon):
    pair = sv.counterexample(variant, queries)
    return sv.above_threshold_worst_loss(
        pair.answers, pair.neighbour_answers, pair.threshold, epsilon
    )


@register
class BrokenVariants(Explorer):
    """MANY-4: the worst privacy loss against m, in units of the claimed epsilon.

    Each broken variant on the pair of neighbours built for it (``sparse_vector.
    counterexample``): "no stop" (orange, solid) and "released answer" (purple, dashed)
    grow without bound; "no answer noise" is infinite from m = 2 (off the chart, said in
    the legend). AboveThreshold on the no-stop pair (green diamonds) stays at or below
    1, the epsilon it promises.

    Taught in: 13-answer-many-queries-for-the-price-of-few.ipynb
    """

    figure_id = "MANY-4"
    title = N_("Broken sparse-vector variants: their privacy loss grows with the queries")
    controls = {
        "epsilon": EPSILON.replace(
            label=N_(r"$\varepsilon$ (claimed)"),
            minimum=0.1,
            maximum=3.0,
            on_release=True,
            description=N_("the epsilon each variant claims"),
        ),
        "queries": Control(
            N_("queries $m$"),
            1,
            MAX_QUERIES,
            integer=True,
            on_release=True,
            description=N_("number of queries asked"),
        ),
    }
    defaults = {"epsilon": 1.0, "queries": 20}
    figsize = (10.0, 3.8)
    ms = np.arange(1, MAX_QUERIES + 1)

    def _build(self):
        ax = self.axes = self.figure.subplots()
        (self.no_stop,) = ax.plot([], [], color=SECOND_COLOR, lw=2)
        (self.released,) = ax.plot([], [], color=PURPLE, lw=2, ls="--")
        # AboveThreshold's loss and a worst loss at one query are 0, on the bottom spine: their
        # markers are drawn whole over it (every value up to m = 50 lies within the y limits).
        whole = dict(clip_on=False, in_layout=False)
        (self.above,) = ax.plot([], [], "D", color=GOOD_COLOR, ms=6, mec="black", ls=":", **whole)
        (self.promise,) = ax.plot([0, MAX_QUERIES + 1], [1, 1], color=GOOD_COLOR, lw=1.2)
        (self.here,) = ax.plot([], [], color=PLAIN_COLOR, lw=1, ls=":")
        (self.marks,) = ax.plot([], [], "o", color="black", ms=6, **whole)
        self.moving(self.promise, self.no_stop, self.released, self.above, self.here, self.marks)
        ax.set_xlim(0, MAX_QUERIES + 1)
        ax.set_ylim(0, 14)
        ax.set_xlabel(_("number of queries $m$"))
        ax.set_ylabel(_(r"worst loss, in units of claimed $\varepsilon$"))
        ax.set_title(
            _("MANY-4 · the worst outcome's privacy loss, on neighbours built to break it")
        )
        legend_beside(
            ax,
            [
                Line2D([], [], color=SECOND_COLOR, lw=2, label=_("no stop after a positive")),
                Line2D([], [], color=PURPLE, lw=2, ls="--", label=_("releases the noisy answer")),
                Line2D(
                    [],
                    [],
                    color="none",
                    label=_("no noise on the answers:\n$\\infty$ from $m = 2$ (off the chart)"),
                ),
                Line2D(
                    [],
                    [],
                    color=GOOD_COLOR,
                    marker="D",
                    mec="black",
                    ls=":",
                    label=_("AboveThreshold,\nsame neighbours"),
                ),
                Line2D([], [], color=GOOD_COLOR, lw=1.2, label=_(r"the promise: $\varepsilon$")),
                Line2D(
                    [], [], color="black", marker="o", ls="none", label=_("at the slider's $m$")
                ),
            ],
        )

    def _apply(self, epsilon, queries):
        no_stop = sv.worst_losses("no stop", epsilon, MAX_QUERIES)
        released = sv.worst_losses("released answer", epsilon, MAX_QUERIES)
        above = np.array(
            [_above_threshold_on_pair("no stop", m, epsilon) for m in ABOVE_THRESHOLD_QUERIES]
        )
        self.no_stop.set_data(self.ms, no_stop / epsilon)
        self.released.set_data(self.ms, released / epsilon)
        self.above.set_data(ABOVE_THRESHOLD_QUERIES, above / epsilon)
        self.here.set_data([queries, queries], [0, 14])
        at_queries = _above_threshold_on_pair("no stop", queries, epsilon)
        self.marks.set_data(
            [queries] * 3,
            [no_stop[queries - 1] / epsilon, released[queries - 1] / epsilon, at_queries / epsilon],
        )
        first_over = {
            name: int(np.argmax(values > epsilon)) + 1 if np.any(values > epsilon) else None
            for name, values in (("no stop", no_stop), ("released", released))
        }
        self.state = dict(
            epsilon=epsilon,
            queries=queries,
            no_stop=float(no_stop[queries - 1]),
            released=float(released[queries - 1]),
            no_noise=sv.worst_loss("no answer noise", queries, epsilon),
            above=at_queries,
            first_over=first_over,
        )

    def numbers(self):
        """The readout beside MANY-4: the numbers it shows at the current setting."""
        s = self.state
        unit = s["epsilon"]
        return {
            N_(r"claimed $\varepsilon$ (nats)"): s["epsilon"],
            N_(r"worst loss in units of $\varepsilon$: no stop"): s["no_stop"] / unit,
            N_(r"worst loss in units of $\varepsilon$: releases the answer"): s["released"] / unit,
            N_(r"worst loss in units of $\varepsilon$: no answer noise"): s["no_noise"] / unit,
            N_(r"worst loss in units of $\varepsilon$: AboveThreshold"): s["above"] / unit,
            N_(r"no stop passes $\varepsilon$ from $m$ ="): (
                s["first_over"]["no stop"] or _("never")
            ),
            N_(r"release passes $\varepsilon$ from $m$ ="): (
                s["first_over"]["released"] or _("never")
            ),
        }

    def description(self):
        """MANY-4 in words for a reader who cannot see it, with the current numbers."""
        s = self.state
        unit = s["epsilon"]
        return _(
            "Worst privacy loss of three broken sparse-vector variants against the number of "
            "queries, in units of the claimed epsilon {epsilon:.4g}, each on neighbours "
            "built to break it. At m = {queries}: no stop "
            "{no_stop}, releasing the noisy answer "
            "{released}, no answer noise "
            "{no_noise}; AboveThreshold on the same neighbours "
            "{above_threshold}, within its epsilon."
        ).format(
            epsilon=s["epsilon"],
            queries=s["queries"],
            no_stop=_scientific(s["no_stop"] / unit),
            released=_scientific(s["released"] / unit),
            no_noise=_scientific(s["no_noise"] / unit),
            above_threshold=_scientific(s["above"] / unit),
        )


# ---------------------------------------------------------------------------
# MANY-5: what Sparse saves
# ---------------------------------------------------------------------------


def _compared(ratio):
    """How Sparse's noise compares with answering all: "20 times smaller", "2 times larger"."""
    if math.isclose(ratio, 1.0, rel_tol=1e-12):
        return _("the same")
    if ratio > 1.0:
        return _("{ratio:.4g} times smaller").format(ratio=ratio)
    return _("{ratio:.4g} times larger").format(ratio=1.0 / ratio)


@register
class SparseSavings(Explorer):
    """MANY-5: noise scales of Sparse against answering every query, as c grows, like for like.

    Both panels spend epsilon in all and compare what releases the same thing. Left, which
    c queries are above the threshold: Sparse (Dwork & Roth, Algorithm 2) with the whole
    epsilon puts Laplace(4c / epsilon) on every answer it compares (solid), against
    answering all m with Laplace(m / epsilon) each and comparing those with the threshold
    (dotted, flat in c): Sparse wins while c < m/4. Right, those queries and their
    answers: Sparse with epsilon / 2 compares with Laplace(8c / epsilon) (dash-dot) and
    the c answers published with the other half get Laplace(2c / epsilon) (dashed),
    against all m at m / epsilon: its published answers win while c < m/2, its search
    while c < m/8. The x-axis runs to c = m, the most positives there can be.
    Sensitivity 1.

    Taught in: 13-answer-many-queries-for-the-price-of-few.ipynb
    """

    figure_id = "MANY-5"
    title = N_("What sparse vector saves: noise that grows with c, not with m")
    controls = {
        "queries": Control(
            N_("queries $m$"), 100, 5000, integer=True, description=N_("number of queries asked")
        ),
        "positives": Control(
            N_("positives $c$"),
            1,
            100,
            integer=True,
            description=N_("queries above the threshold"),
        ),
        "epsilon": EPSILON.replace(minimum=0.1, maximum=5.0),
    }
    defaults = {"queries": 1000, "positives": 5, "epsilon": 1.0}
    figsize = (10.0, 3.8)
    #: Points per curve, from c = 1 to c = m.
    points = 200

    def _build(self):
        find, publish = self.figure.subplots(1, 2, sharey=True)
        self.axes = (find, publish)
        (self.comparison,) = find.plot([], [], color=FIRST_COLOR, lw=2)
        (self.find_all,) = find.plot([], [], color=BOUND_COLOR, lw=2, ls=":")
        (self.find_marks,) = find.plot([], [], "o", color="black", ms=6)
        (self.find_crossing,) = find.plot([], [], "X", color=GOOD_COLOR, ms=10, mec="black")
        (self.publishing_comparison,) = publish.plot([], [], color=PURPLE, lw=2, ls="-.")
        (self.released,) = publish.plot([], [], color=GOOD_COLOR, lw=2, ls="--")
        (self.publish_all,) = publish.plot([], [], color=BOUND_COLOR, lw=2, ls=":")
        (self.publish_marks,) = publish.plot([], [], "o", color="black", ms=6)
        (self.publish_crossings,) = publish.plot(
            [], [], "X", color=GOOD_COLOR, ms=10, mec="black", ls="none"
        )
        self.moving(
            self.comparison,
            self.find_all,
            self.publishing_comparison,
            self.released,
            self.publish_all,
            self.find_marks,
            self.publish_marks,
            self.find_crossing,
            self.publish_crossings,
        )
        for ax in self.axes:
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_xlabel(_("positives $c$ (up to $m$)"))
        find.set_ylabel(_("Laplace scale on each answer"))
        find.set_title(_(r"MANY-5 · which $c$ are above, $\varepsilon$ in all"), fontsize=10)
        publish.set_title(_(r"which $c$, and their answers, $\varepsilon$ in all"), fontsize=10)
        legend_beside(
            publish,
            [
                Line2D(
                    [],
                    [],
                    color=FIRST_COLOR,
                    lw=2,
                    label=_("Sparse at $\\varepsilon$:\ncompared, $4c/\\varepsilon$"),
                ),
                Line2D(
                    [],
                    [],
                    color=PURPLE,
                    lw=2,
                    ls="-.",
                    label=_("Sparse at $\\varepsilon/2$:\ncompared, $8c/\\varepsilon$"),
                ),
                Line2D(
                    [],
                    [],
                    color=GOOD_COLOR,
                    lw=2,
                    ls="--",
                    label=_("$c$ answers at $\\varepsilon/2$:\npublished, $2c/\\varepsilon$"),
                ),
                Line2D(
                    [],
                    [],
                    color=BOUND_COLOR,
                    lw=2,
                    ls=":",
                    label=_("all $m$ answered at $\\varepsilon$:\n$m/\\varepsilon$ each"),
                ),
                Line2D(
                    [], [], color="black", marker="o", ls="none", label=_("at the slider's $c$")
                ),
                Line2D(
                    [],
                    [],
                    color=GOOD_COLOR,
                    marker="X",
                    mec="black",
                    ls="none",
                    label=_("where Sparse\nstops winning"),
                ),
            ],
            fontsize=8.5,
        )

    def _apply(self, queries, positives, epsilon):
        cs = np.geomspace(1, queries, self.points)
        scales = sv.sparse_noise_scales(queries, positives, epsilon)
        flat = np.full(cs.size, scales.all_answers)
        self.comparison.set_data(cs, 4.0 * cs / epsilon)
        self.find_all.set_data(cs, flat)
        self.publishing_comparison.set_data(cs, 8.0 * cs / epsilon)
        self.released.set_data(cs, 2.0 * cs / epsilon)
        self.publish_all.set_data(cs, flat)
        self.find_marks.set_data([positives] * 2, [scales.comparison, scales.all_answers])
        self.publish_marks.set_data(
            [positives] * 3,
            [scales.comparison_when_publishing, scales.released, scales.all_answers],
        )
        self.find_crossing.set_data([queries / 4], [scales.all_answers])
        self.publish_crossings.set_data([queries / 8, queries / 2], [scales.all_answers] * 2)
        # Half a decade of room beyond the curves' ends, so no end or mark is clipped.
        limits = (
            10.0 ** (np.log10(2.0 / epsilon) - 0.5),
            10.0 ** (np.log10(8.0 * queries / epsilon) + 0.5),
        )
        xlimits = (10.0**-0.15, 10.0 ** (math.log10(queries) + 0.15))
        if xlimits != tuple(self.axes[0].get_xlim()) or limits != tuple(self.axes[0].get_ylim()):
            for ax in self.axes:
                ax.set_xlim(*xlimits)
                _decade_ticks(ax.xaxis, *xlimits, count=4)
            self.axes[0].set_ylim(*limits)
            _decade_ticks(self.axes[0].yaxis, *limits, count=8)  # shared by both panels
            for ax in self.axes:
                self.figure.invalidate_axes(ax)
        self.state = dict(scales=scales, queries=queries, positives=positives, epsilon=epsilon)

    def numbers(self):
        """The readout beside MANY-5: the numbers it shows at the current setting."""
        s = self.state
        scales = s["scales"]
        return {
            N_(r"which $c$: Sparse at $\varepsilon$, threshold noise"): scales.threshold,
            N_(r"which $c$: Sparse at $\varepsilon$, compared answers"): scales.comparison,
            N_(r"with answers: Sparse at $\varepsilon/2$, compared"): (
                scales.comparison_when_publishing
            ),
            N_(r"with answers: $c$ published at $\varepsilon/2$"): scales.released,
            N_(r"all $m$ answered at $\varepsilon$: each"): scales.all_answers,
            N_("which c: Sparse's noise against all m"): _compared(
                scales.all_answers / scales.comparison
            ),
            N_("published: Sparse's noise against all m"): _compared(
                scales.all_answers / scales.released
            ),
            N_("Sparse finds with less noise while c <"): s["queries"] / 4,
            N_("Sparse publishes with less noise while c <"): s["queries"] / 2,
        }

    def description(self):
        """MANY-5 in words for a reader who cannot see it, with the current numbers."""
        s = self.state
        scales = s["scales"]
        return _(
            "Laplace noise scale on each answer against the number of positives c, for "
            "{queries} queries and epsilon {epsilon:.4g} in all. At c = "
            "{positives}, to find which queries are above the threshold Sparse compares "
            "answers with {comparison:.4g} against {all_answers:.4g} for "
            "answering all, {comparison_against_all}; to publish "
            "their answers too it puts {released:.4g} on each, "
            "{released_against_all}, and searches with "
            "{comparison_when_publishing:.4g}. Sparse finds with less noise while c is "
            "below {finds_below:g} and publishes with less while c is below "
            "{publishes_below:g}."
        ).format(
            queries=s["queries"],
            epsilon=s["epsilon"],
            positives=s["positives"],
            comparison=scales.comparison,
            all_answers=scales.all_answers,
            comparison_against_all=_compared(scales.all_answers / scales.comparison),
            released=scales.released,
            released_against_all=_compared(scales.all_answers / scales.released),
            comparison_when_publishing=scales.comparison_when_publishing,
            finds_below=s["queries"] / 4,
            publishes_below=s["queries"] / 2,
        )
