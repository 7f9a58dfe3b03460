"""Figures REL-1 to REL-5: release a histogram, then synthetic data.

REL-1 compares four ways of answering every range query of a histogram, by their exact
mean squared error against the number of bins d; REL-2 the upward bias of a noisy count
clamped at 0 and what it adds up to over many empty cells; REL-3 one run of MWEM round by
round; REL-4 what MWEM costs (epsilon, zCDP) and buys (its workload's largest error)
against its number of rounds T; REL-5 rows of synthetic data drawn from MWEM's histogram
and from the clipped noisy histogram, asked a query nobody asked before. Every error,
bias, probability and run comes from ``dplearn.query_release`` (and the zCDP conversion
from ``dplearn.zcdp``); this module draws them.

The data of REL-3 to REL-5: a histogram of n = 100 people over 8 bins,
h = (2, 7, 15, 24, 22, 16, 9, 5). Every seeded run uses ``numpy.random.default_rng``
with the seed (MWEM_SEED, run) or (SYNTHETIC_SEED, stage).

Taught in: 16-release-a-histogram-then-synthetic-data.ipynb
"""

from __future__ import annotations

import functools

import numpy as np
from matplotlib.lines import Line2D
from matplotlib.patches import Patch, Polygon, Rectangle

from dplearn import query_release, zcdp
from dplearn.figures.controls import EPSILON, SCALE, Choice, Control, listed
from dplearn.figures.explorers import Explorer, register, spoken
from dplearn.figures.legends import legend_below, legend_beside, style_handle
from dplearn.figures.limits import follow_limits, roomy, setting_mark
from dplearn.figures.style import BAD_COLOR, BLUE, GREEN, GREY, GUIDE_GREY, ORANGE, PURPLE
from dplearn.language import N_
from dplearn.language import gettext as _

__all__ = [
    "HISTOGRAM",
    "WORKLOADS",
    "BINS_GRID",
    "range_errors",
    "mwem_run",
    "max_errors",
    "error_curves",
    "converted_epsilons",
    "histogram_worst_error",
    "synthetic_rows",
    "StrategyErrors",
    "ClampingBias",
    "MWEMSteps",
    "MWEMCostAndError",
    "SyntheticRows",
]

#: The lesson's histogram: n = 100 people over 8 bins.
HISTOGRAM = (2.0, 7.0, 15.0, 24.0, 22.0, 16.0, 9.0, 5.0)
#: The workloads (the "workload" buttons): button word -> the core's workload of d bins.
WORKLOADS = {
    N_("all ranges"): query_release.range_workload,
    N_("prefixes"): query_release.prefix_workload,
    N_("one-way marginals"): query_release.marginal_workload,
}
WORKLOAD = Choice(N_("workload"), tuple(WORKLOADS), description=N_("the queries MWEM is asked"))
#: The budgets of the MWEM figures.
RELEASE_EPSILON = listed(EPSILON, (0.25, 0.5, 1.0, 2.0, 4.0))
#: MWEM's seeds.
MWEM_SEED, SYNTHETIC_SEED = 16, 1616


def _query_name(row):
    """A 0/1 query over contiguous bins, as the range "[i, j)" it counts."""
    inside = np.flatnonzero(row)
    return f"[{inside[0]}, {inside[-1] + 1})"


@functools.lru_cache(maxsize=8)
def _workload(name):
    """The core's workload of that name over the histogram's bins."""
    return WORKLOADS[name](len(HISTOGRAM))


# ---------------------------------------------------------------------------
# REL-1: four strategies for all ranges, against d
# ---------------------------------------------------------------------------

#: REL-1's numbers of bins: the powers of 2 from 2 to 4096.
BINS_GRID = tuple(2**k for k in range(1, 13))
#: REL-1's strategies: key -> style.
STRATEGIES = {
    "direct": dict(color=GREY, ls=":", marker="D", label=N_("each range answered directly")),
    "identity": dict(color=BLUE, ls="-", marker="o", label=N_("noisy histogram (identity)")),
    "naive": dict(color=ORANGE, ls="--", marker="s", label=N_("binary tree, node by node")),
    "consistent": dict(color=PURPLE, ls="-.", marker="^", label=N_("binary tree, least squares")),
}
#: REL-1's axis of errors (log); the direct strategy leaves it at the top.
ERROR_AXIS = (0.1, 1e6)


@functools.lru_cache(maxsize=1)
def range_errors():
    """Each strategy's mean squared error over all ranges at epsilon = 1, on BINS_GRID.

    The errors scale as 1 / epsilon^2, so one computation serves every epsilon.
    """
    return {
        "direct": np.array([query_release.direct_range_error(d, 1.0) for d in BINS_GRID]),
        "identity": np.array([query_release.identity_range_error(d, 1.0) for d in BINS_GRID]),
        "naive": np.array([query_release.tree_range_error(d, 1.0) for d in BINS_GRID]),
        "consistent": np.array(
            [query_release.tree_range_error(d, 1.0, consistent=True) for d in BINS_GRID]
        ),
    }


def _tree_overtakes():
    """The first d of BINS_GRID where the consistent tree beats the noisy histogram."""
    errors = range_errors()
    better = np.flatnonzero(errors["consistent"] < errors["identity"])
    return BINS_GRID[better[0]]


@register
class StrategyErrors(Explorer):
    """REL-1: the mean squared error of all d(d + 1)/2 range queries against d, four ways.

    Each range measured directly (``query_release.direct_range_error``), summed from the
    noisy histogram (``identity_range_error``), summed from the fewest nodes of the noisy
    binary tree or answered from all of them by least squares (``tree_range_error``,
    naive and consistent; Hay, Rastogi, Miklau & Suciu 2010). Log scales; the curves are
    computed once at epsilon = 1 and scaled by 1/epsilon^2.

    Taught in: 16-release-a-histogram-then-synthetic-data.ipynb
    """

    figure_id = "REL-1"
    title = N_("All range queries: the noisy histogram against the binary tree")
    controls = {
        "epsilon": EPSILON.replace(minimum=0.25, maximum=4.0),
        "bins": listed(
            Control(N_("bins $d$"), 2, 4096, integer=True, description=N_("number of bins d")),
            BINS_GRID,
        ),
    }
    defaults = {"epsilon": 1.0, "bins": 8}
    figsize = (10.0, 4.0)

    def _build(self):
        ax = self.axes = self.figure.subplots()
        self.curves, self.marks = {}, {}
        for name, style in STRATEGIES.items():
            (self.curves[name],) = ax.plot([], [], color=style["color"], ls=style["ls"], lw=2)
            self.marks[name] = setting_mark(ax, style["color"], style["marker"])
        (self.here,) = ax.plot([], [], color=GUIDE_GREY, lw=0.8)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlim(BINS_GRID[0] / 1.3, BINS_GRID[-1] * 1.3)
        ax.set_ylim(*ERROR_AXIS)
        ax.set_xticks(BINS_GRID, [f"{d}" for d in BINS_GRID])
        ax.minorticks_off()
        ax.set_xlabel(_("number of bins $d$"))
        ax.set_ylabel(_("mean squared error per range"))
        ax.set_title(_("REL-1 · all $d(d+1)/2$ ranges: four ways to answer them"))
        legend_beside(
            ax,
            [
                style_handle(style, _(style["label"]))
                for style in STRATEGIES.values()
            ],
            fontsize=8.5,
        )  # fmt: skip
        self.moving(*self.curves.values(), *self.marks.values(), self.here)

    def _apply(self, epsilon, bins):
        errors = range_errors()
        index = BINS_GRID.index(bins)
        scale = 1.0 / epsilon**2
        here = {}
        for name in STRATEGIES:
            curve = errors[name] * scale
            self.curves[name].set_data(BINS_GRID, curve)
            here[name] = float(curve[index])
            # Off the top (the direct strategy past d = 64) the readout still tells it.
            shown = here[name] <= ERROR_AXIS[1]
            self.marks[name].set_data([bins] if shown else [], [here[name]] if shown else [])
        self.here.set_data([bins, bins], list(ERROR_AXIS))
        winner = min(here, key=here.get)
        self.state = dict(epsilon=epsilon, bins=bins, here=here, winner=winner)

    def numbers(self):
        """The readout beside REL-1: the four errors at the slider's d, and the best one."""
        here = self.state["here"]
        return {
            N_("error, each range directly"): here["direct"],
            N_("error, noisy histogram"): here["identity"],
            N_("error, tree node by node"): here["naive"],
            N_("error, tree by least squares"): here["consistent"],
            N_("smallest error"): _(STRATEGIES[self.state["winner"]]["label"]),
        }

    def description(self):
        """REL-1 in words for a reader who cannot see it, with the current numbers."""
        s, here = self.state, self.state["here"]
        return _(
            "Mean squared error over all d(d + 1)/2 range queries against the number of bins "
            "d (log scales), at ε = {epsilon:.3g}. At d = {bins}: each range answered "
            "directly {direct} (dotted, it leaves the top of the plot fast), the noisy "
            "histogram {identity:.4g} (solid), the binary tree summed node by node "
            "{naive:.4g} (dashed), the tree with least squares {consistent:.4g} (dash-dot); "
            "the smallest is the {winner}. The tree with least squares first beats the "
            "histogram at d = {overtakes}: on the average range the histogram wins below."
        ).format(
            epsilon=s["epsilon"],
            bins=s["bins"],
            direct=spoken(here["direct"], 4),
            identity=here["identity"],
            naive=here["naive"],
            consistent=here["consistent"],
            winner=_(STRATEGIES[s["winner"]]["label"]),
            overtakes=_tree_overtakes(),
        )


# ---------------------------------------------------------------------------
# REL-2: the bias of clamping at 0
# ---------------------------------------------------------------------------

#: REL-2's true counts (axis and slider).
COUNT_AXIS = (0, 20)
#: REL-2's biases (log axis, fixed: a bias below it leaves at the bottom).
BIAS_AXIS = (1e-4, 10.0)
#: REL-2's numbers of empty cells (the slider's values and the log axis).
CELLS = (1, 3, 10, 30, 100, 300, 1000, 3000, 10_000)
CELLS_AXIS = (0.8, 12_500)
#: REL-2's inflations of a total (log axis).
INFLATION_AXIS = (0.01, 1e5)
#: The counts whose bias the readout lists.
LISTED_COUNTS = (0, 1, 2, 5)


def _above(values, low):
    """values with those below low (off a log axis) made NaN, so that no marker is cut."""
    values = np.asarray(values, dtype=float)
    return np.where(values >= low, values, np.nan)


@register
class ClampingBias(Explorer):
    """REL-2: E[max(0, c + Lap(b))] - c = (b/2) e^(-c/b) against c, and over empty cells.

    Left: the bias of a noisy count clamped at 0 (``query_release.clamp_bias``) against
    the true count c, on a log scale (a straight line of slope -1/b); right: the inflation
    of a total over many empty cells, each biased by b/2 (as the zero cells of the US
    Census 2020: Abowd et al., "The 2020 Census disclosure avoidance system TopDown
    algorithm", 2022), on log scales. Fixed axes: a slider moves only the curves.

    Taught in: 16-release-a-histogram-then-synthetic-data.ipynb
    """

    figure_id = "REL-2"
    title = N_("Clamping a noisy count at 0 biases it upward")
    controls = {
        "scale": SCALE.replace(minimum=0.1, maximum=10.0),
        "count": Control(
            N_("true count $c$"), *COUNT_AXIS, integer=True, description=N_("the true count")
        ),
        "cells": listed(
            Control(N_("empty cells"), 1, 10_000, integer=True,
                    description=N_("cells whose true count is 0")),
            CELLS,
        ),
    }  # fmt: skip
    defaults = {"scale": 1.0, "count": 0, "cells": 1000}
    figsize = (10.0, 3.8)
    counts = np.linspace(*COUNT_AXIS, 401)
    whole = np.arange(COUNT_AXIS[0], COUNT_AXIS[1] + 1)

    def _build(self):
        left, right = self.axes = self.figure.subplots(1, 2)
        (self.bias,) = left.plot([], [], color=BLUE, lw=2)
        # Drawn whole over the spine at c = 0.
        (self.whole_dots,) = left.plot(
            [], [], color=BLUE, ls="none", marker="o", ms=3.5, clip_on=False
        )
        self.mark_left = setting_mark(left, BAD_COLOR, "D")
        left.set_xlim(COUNT_AXIS[0] - 0.3, COUNT_AXIS[1] + 0.3)
        left.set_yscale("log")
        left.set_ylim(*BIAS_AXIS)
        left.set_xlabel(_("true count $c$"))
        left.set_ylabel(_("bias of the clamped count"))
        left.set_title(_(r"REL-2 · $E[\max(0, c + \mathrm{Lap}(b))] - c$"))
        (self.inflation,) = right.plot([], [], color=ORANGE, ls="--", lw=2)
        self.mark_right = setting_mark(right, BAD_COLOR, "s")
        right.set_xscale("log")
        right.set_yscale("log")
        right.set_xlim(*CELLS_AXIS)
        right.set_ylim(*INFLATION_AXIS)
        right.set_xlabel(_("empty cells summed"))
        right.set_ylabel(_("inflation of their total"))
        right.set_title(_("summed over empty cells: cells × b/2"))
        legend_below(
            self.figure,
            [],
            handles=[
                Line2D([], [], color=BLUE, lw=2, marker="o", ms=3.5,
                       label=_(r"bias $(b/2)e^{-c/b}$")),
                Line2D([], [], color=ORANGE, ls="--", lw=2, label=_("inflation of a total")),
                Line2D([], [], color=BAD_COLOR, marker="D", ls="none", mec="black",
                       label=_("the sliders' setting")),
            ],
        )  # fmt: skip
        self.moving(self.bias, self.whole_dots, self.mark_left, self.inflation, self.mark_right)

    def _apply(self, scale, count, cells):
        low = BIAS_AXIS[0]
        self.bias.set_data(self.counts, query_release.clamp_bias(self.counts, scale))
        self.whole_dots.set_data(
            self.whole, _above(query_release.clamp_bias(self.whole, scale), low)
        )
        bias = float(query_release.clamp_bias(count, scale))
        self.mark_left.set_data([count], _above([bias], low))
        per_cell = float(query_release.clamp_bias(0, scale))
        self.inflation.set_data(CELLS_AXIS, [CELLS_AXIS[0] * per_cell, CELLS_AXIS[1] * per_cell])
        self.mark_right.set_data([cells], [cells * per_cell])
        self.state = dict(
            scale=scale,
            count=count,
            cells=cells,
            bias=bias,
            listed=[float(query_release.clamp_bias(c, scale)) for c in LISTED_COUNTS],
            inflation=cells * per_cell,
        )

    def numbers(self):
        """The readout beside REL-2: the bias at c and at c = 0, 1, 2, 5; the inflation."""
        s = self.state
        listed_biases = dict(zip(LISTED_COUNTS, s["listed"], strict=True))
        return {
            N_("bias at the count $c$"): s["bias"],
            N_("bias at $c$ = 0"): listed_biases[0],
            N_("bias at $c$ = 1"): listed_biases[1],
            N_("bias at $c$ = 2"): listed_biases[2],
            N_("bias at $c$ = 5"): listed_biases[5],
            N_("inflation of the empty cells' total"): s["inflation"],
        }

    def description(self):
        """REL-2 in words for a reader who cannot see it, with the current numbers."""
        s = self.state
        zero, one, two, five = s["listed"]
        return _(
            "A noisy count c + Lap(b) clamped at 0 is too large on average by (b/2)e^(−c/b) "
            "(left, b = {scale:.3g}): {zero:.5f} at c = 0, {one:.5f} at c = 1, {two:.5f} at "
            "c = 2, {five:.5f} at c = 5, and {bias:.5g} at c = {count}. Summed over "
            "{cells} empty cells (right) the clamped counts add {inflation:.5g} to a total "
            "whose true value is 0."
        ).format(
            scale=s["scale"],
            zero=zero,
            one=one,
            two=two,
            five=five,
            bias=s["bias"],
            count=s["count"],
            cells=s["cells"],
            inflation=s["inflation"],
        )


# ---------------------------------------------------------------------------
# REL-3: MWEM round by round
# ---------------------------------------------------------------------------

#: REL-3's number of rounds.
STEP_ROUNDS = 5


def mwem_run(epsilon, rounds, workload, run=0):
    """One seeded run of MWEM on HISTOGRAM (``query_release.mwem``, seed (MWEM_SEED, run))."""
    return query_release.mwem(
        HISTOGRAM, _workload(workload), epsilon, rounds, rng=np.random.default_rng((MWEM_SEED, run))
    )


@register
class MWEMSteps(Explorer):
    """REL-3: MWEM step by step (Hardt, Ligett & McSherry, NeurIPS 2012).

    Left: the true histogram h (bars), the synthetic one before round t, A_(t-1) (dashed,
    A_0 uniform), and after it, A_t (solid); the query the exponential mechanism picked in
    round t (hatched) and its Laplace measurement m_t = q(h) + Lap(2T/epsilon), drawn per
    bin (m_t divided by the query's bins). Right: the exponential mechanism's exact
    probabilities of picking each query in round t (``mwem_selection_probabilities`` at
    epsilon/(2T), score |q(h) - q(A_(t-1))|, sensitivity 1), the queries side by side in
    the workload's order, the picked one starred. T = 5 rounds of one seeded run
    (``mwem_run``). The axes hold every round and workload at one epsilon, so that only a
    change of epsilon (on release) redraws them.

    Taught in: 16-release-a-histogram-then-synthetic-data.ipynb
    """

    figure_id = "REL-3"
    title = N_("MWEM round by round: select, measure, update")
    controls = {
        "epsilon": RELEASE_EPSILON.replace(on_release=True),
        "round": Control(
            N_("round $t$"), 1, STEP_ROUNDS, integer=True, description=N_("the round shown")
        ),
        "workload": WORKLOAD,
    }
    defaults = {"epsilon": 1.0, "round": 1, "workload": N_("all ranges")}
    figsize = (10.0, 4.2)

    def _build(self):
        left, right = self.axes = self.figure.subplots(1, 2)
        edges = np.arange(len(HISTOGRAM) + 1) - 0.5
        self.picked = Rectangle(
            (0, 0), 1, 1, transform=left.get_xaxis_transform(), fc=BAD_COLOR, alpha=0.12,
            hatch="//", ec=BAD_COLOR, lw=0, zorder=0.5,
        )  # fmt: skip
        left.add_patch(self.picked)
        left.stairs(HISTOGRAM, edges, fill=True, color=BLUE, alpha=0.35, edgecolor=BLUE)
        self.before = left.stairs(
            np.zeros(len(HISTOGRAM)), edges, color=ORANGE, ls="--", lw=2, baseline=None
        )
        self.after = left.stairs(
            np.zeros(len(HISTOGRAM)), edges, color=PURPLE, ls="-", lw=2, baseline=None
        )
        # Its marker at the middle of the query's bins, inside the axes whatever the query.
        (self.measured,) = left.plot([], [], color=BAD_COLOR, ls=":", lw=2.2)
        (self.measured_mark,) = left.plot([], [], color=BAD_COLOR, ls="none", marker="v", ms=7)
        left.set_xlim(edges[0], edges[-1])
        left.set_xticks(np.arange(len(HISTOGRAM)))
        left.set_xlabel(_("bin"))
        left.set_ylabel(_("count"))
        left.set_title(_("REL-3 · the true and the synthetic histogram"))
        # The queries share the axis [0, 1] whatever their number: a workload keeps the axes.
        self.probabilities = right.stairs([0.0], [0.0, 1.0], fill=True, color=GREEN, alpha=0.5)
        right.set_xlim(0.0, 1.0)
        right.set_xticks([])
        self.star = setting_mark(right, BAD_COLOR, "*")
        self.star.set_markersize(13)
        right.set_xlabel(_("the workload's queries, by start, then end"))
        right.set_ylabel(_("P(selected)"))
        right.set_title(_("the exponential mechanism's choice"))
        legend_below(
            self.figure,
            [],
            handles=[
                Patch(fc=BLUE, alpha=0.35, ec=BLUE, label=_("true $h$")),
                Line2D([], [], color=ORANGE, ls="--", lw=2, label=_("$A_{t-1}$ before")),
                Line2D([], [], color=PURPLE, lw=2, label=_("$A_t$ after")),
                Patch(fc=BAD_COLOR, alpha=0.12, hatch="//", label=_("picked query")),
                Line2D([], [], color=BAD_COLOR, ls=":", marker="v", lw=2,
                       label=_("measurement per bin")),
                Patch(fc=GREEN, alpha=0.5, label=_("P(selected)")),
                Line2D([], [], color=BAD_COLOR, marker="*", ls="none", ms=11, mec="black",
                       label=_("picked")),
            ],
            ncols=4,
        )  # fmt: skip
        self.moving(
            self.picked, self.before, self.after, self.measured, self.measured_mark,
            self.probabilities, self.star,
        )  # fmt: skip

    def _apply(self, epsilon, round, workload):
        queries = _workload(workload)
        run = _step_run(epsilon, workload)
        before, after = run.synthetic[round - 1], run.synthetic[round]
        probabilities = query_release.mwem_selection_probabilities(
            HISTOGRAM, before, queries, epsilon / (2 * STEP_ROUNDS)
        )
        picked = int(run.selected[round - 1])
        measurement = float(run.measurements[round - 1])
        inside = np.flatnonzero(queries[picked])
        start, end = int(inside[0]), int(inside[-1]) + 1
        self.picked.set_x(start - 0.5)
        self.picked.set_width(end - start)
        self.before.set_data(before)
        self.after.set_data(after)
        per_bin = measurement / (end - start)
        self.measured.set_data([start - 0.5, end - 0.5], [per_bin, per_bin])
        self.measured_mark.set_data([(start + end - 1) / 2], [per_bin])
        count = len(probabilities)
        self.probabilities.set_data(probabilities, np.linspace(0.0, 1.0, count + 1))
        self.star.set_data([(picked + 0.5) / count], [probabilities[picked]])
        top = int(np.argmax(probabilities))
        true_answers = queries @ np.asarray(HISTOGRAM)
        scores = np.abs(true_answers - queries @ before)
        low, high, most_likely = _step_extents(epsilon)
        follow_limits(self, self.axes[0], ylim=(_floor(low), roomy(1.1 * high)))
        follow_limits(self, self.axes[1], ylim=(0.0, roomy(1.15 * most_likely)))
        self.state = dict(
            epsilon=epsilon,
            round=round,
            workload=workload,
            top=_query_name(queries[top]),
            top_score=float(scores[top]),
            top_probability=float(probabilities[top]),
            picked=_query_name(queries[picked]),
            picked_score=float(scores[picked]),
            picked_probability=float(probabilities[picked]),
            true_answer=float(true_answers[picked]),
            before_answer=float(queries[picked] @ before),
            measurement=measurement,
            after_answer=float(queries[picked] @ after),
            queries=count,
        )

    def numbers(self):
        """The readout beside REL-3: the likeliest and the picked query, the measurement."""
        s = self.state
        return {
            N_("likeliest query"): s["top"],
            N_("its score"): s["top_score"],
            N_("its probability"): s["top_probability"],
            N_("picked query"): s["picked"],
            N_("picked query's probability"): s["picked_probability"],
            N_("picked query on $h$"): s["true_answer"],
            N_("picked query on $A_{t-1}$"): s["before_answer"],
            N_("measurement $m_t$"): s["measurement"],
            N_("picked query on $A_t$"): s["after_answer"],
        }

    def description(self):
        """REL-3 in words for a reader who cannot see it, with the current numbers."""
        s = self.state
        return _(
            "Round {round} of {rounds} of MWEM at ε = {epsilon:.3g} on the workload of "
            "{workload} ({queries} queries) of h = (2, 7, 15, 24, 22, 16, 9, 5). The exponential "
            "mechanism (ε/(2T) = {selection:.3g}, score |q(h) − q(A)|) gives the likeliest "
            "query {top} (score {top_score:.4g}) probability {top_probability:.4f} (right); "
            "it picked {picked} (probability {picked_probability:.4f}, hatched), whose "
            "answer is {true_answer:g} on h and {before_answer:.4g} on the synthetic "
            "histogram before the round (dashed). The measurement with Lap(2T/ε) noise is "
            "{measurement:.4g}; after the multiplicative-weights update the synthetic "
            "histogram (solid) answers {after_answer:.4g}."
        ).format(
            round=s["round"],
            rounds=STEP_ROUNDS,
            epsilon=s["epsilon"],
            workload=_(s["workload"]),
            queries=s["queries"],
            selection=s["epsilon"] / (2 * STEP_ROUNDS),
            top=s["top"],
            top_score=s["top_score"],
            top_probability=s["top_probability"],
            picked=s["picked"],
            picked_probability=s["picked_probability"],
            true_answer=s["true_answer"],
            before_answer=s["before_answer"],
            measurement=s["measurement"],
            after_answer=s["after_answer"],
        )


@functools.lru_cache(maxsize=64)
def _step_run(epsilon, workload):
    """REL-3's run: STEP_ROUNDS rounds, seed (MWEM_SEED, 0) (cached: the round slider)."""
    return mwem_run(epsilon, STEP_ROUNDS, workload)


@functools.lru_cache(maxsize=8)
def _step_extents(epsilon):
    """REL-3's extents at epsilon over every workload and round.

    The lowest and highest count drawn on the left (h, A_t, measurements per bin) and the
    largest selection probability.
    """
    low, high, most_likely = 0.0, float(np.max(HISTOGRAM)), 0.0
    for workload in WORKLOADS:
        queries, run = _workload(workload), _step_run(epsilon, workload)
        per_bin = run.measurements / queries[run.selected].sum(axis=1)
        low = min(low, float(per_bin.min()), float(run.synthetic.min()))
        high = max(high, float(per_bin.max()), float(run.synthetic.max()))
        for before in run.synthetic[:-1]:
            probabilities = query_release.mwem_selection_probabilities(
                HISTOGRAM, before, queries, epsilon / (2 * STEP_ROUNDS)
            )
            most_likely = max(most_likely, float(probabilities.max()))
    return low, high, most_likely


def _floor(value):
    """The bottom of an axis that must show value (<= 0): minus a roomy step below it."""
    return -roomy(1.1 * -value) if value < 0 else 0.0


# ---------------------------------------------------------------------------
# REL-4: what MWEM costs and buys, against T
# ---------------------------------------------------------------------------

#: REL-4's numbers of rounds (axis and slider).
ROUNDS_GRID = (1, 2, 3, 4, 5, 6, 8, 10, 12, 15, 20, 25, 30, 40)
#: The seeded runs at each T, and the quantiles of their band.
RUNS, BAND = 25, (0.1, 0.9)
#: The delta of the zCDP conversion.
CONVERSION_DELTA = 1e-6


def max_errors(epsilon, rounds, workload):
    """The workload's largest error |q(A) - q(h)| of MWEM's released histogram, per seeded run."""
    queries = _workload(workload)
    truth = queries @ np.asarray(HISTOGRAM)
    return np.array(
        [
            np.abs(queries @ mwem_run(epsilon, rounds, workload, run).average - truth).max()
            for run in range(RUNS)
        ]
    )


@functools.lru_cache(maxsize=32)
def error_curves(epsilon, workload):
    """(quantile BAND[0], median, quantile BAND[1]) of max_errors over ROUNDS_GRID."""
    rows = np.array([max_errors(epsilon, rounds, workload) for rounds in ROUNDS_GRID])
    low, middle, high = np.quantile(rows, (BAND[0], 0.5, BAND[1]), axis=1)
    return low, middle, high


@functools.lru_cache(maxsize=8)
def _error_top(epsilon):
    """REL-4's largest error at epsilon over every workload: a workload keeps the axes."""
    return max(
        max(
            float(error_curves(epsilon, workload)[2].max()),
            histogram_worst_error(epsilon, workload),
        )
        for workload in WORKLOADS
    )


@functools.lru_cache(maxsize=32)
def converted_epsilons(epsilon):
    """MWEM's epsilon at CONVERSION_DELTA through zCDP (``zcdp.to_epsilon``) over ROUNDS_GRID."""
    rhos = np.array([query_release.mwem_rho(epsilon, rounds) for rounds in ROUNDS_GRID])
    return np.asarray(zcdp.to_epsilon(rhos, CONVERSION_DELTA))


def histogram_worst_error(epsilon, workload):
    """The noisy histogram's root mean square error on its worst query of the workload.

    A query summing k bins of Lap(1/epsilon) noise errs by sqrt(2k)/epsilon: the mean
    squared error of the one-query workload (``query_release.workload_error`` with the
    identity strategy) for the query with most bins.
    """
    queries = _workload(workload)
    widest = queries[[int(np.argmax(queries.sum(axis=1)))]]
    return float(np.sqrt(query_release.workload_error(widest, np.eye(len(HISTOGRAM)), epsilon)))


@register
class MWEMCostAndError(Explorer):
    """REL-4: what MWEM costs (epsilon, zCDP) and buys (its largest error) against T.

    Left: MWEM's epsilon by basic composition (2T steps of epsilon/(2T)), and its zCDP
    rho = 5 epsilon^2/(32T) (``query_release.mwem_rho``) converted to epsilon at delta =
    1e-6 (``zcdp.to_epsilon``, lesson 12's converter). Right: the workload's largest
    error of MWEM's released histogram (the mean of A_1..A_T) over 25 seeded runs at each
    T (median, and a band from the 10 % to the 90 % quantile), beside the noisy histogram's
    root mean square error on its worst query, sqrt(2k)/epsilon, exact. The runs of all
    workloads are made when epsilon changes (on release), so that the axes hold them all.

    Taught in: 16-release-a-histogram-then-synthetic-data.ipynb
    """

    figure_id = "REL-4"
    title = N_("What MWEM costs and buys, against its number of rounds")
    controls = {
        "epsilon": RELEASE_EPSILON.replace(on_release=True),
        "rounds": listed(
            Control(N_("rounds $T$"), 1, 40, integer=True, description=N_("MWEM's rounds T")),
            ROUNDS_GRID,
        ),
        "workload": WORKLOAD,
    }
    defaults = {"epsilon": 1.0, "rounds": 5, "workload": N_("all ranges")}
    figsize = (10.0, 4.0)

    def _build(self):
        left, right = self.axes = self.figure.subplots(1, 2)
        (self.basic,) = left.plot([], [], color=BLUE, lw=2)
        (self.converted,) = left.plot([], [], color=PURPLE, ls="--", lw=2, marker="o", ms=3.5)
        self.mark_left = setting_mark(left, PURPLE, "o")
        left.set_xlabel(_("rounds $T$"))
        left.set_ylabel(r"$\varepsilon$")
        left.set_title(_("REL-4 · what MWEM costs"))
        self.band = Polygon([[1, 1]], closed=True, fc=ORANGE, alpha=0.2, hatch="\\\\", lw=0)
        right.add_patch(self.band)
        (self.median,) = right.plot([], [], color=ORANGE, lw=2, marker="s", ms=3.5)
        (self.histogram,) = right.plot([], [], color=BLUE, ls="-.", lw=2)
        self.mark_right = setting_mark(right, ORANGE, "s")
        self.best = setting_mark(right, BAD_COLOR, "*")
        self.best.set_markersize(13)
        right.set_xlabel(_("rounds $T$"))
        right.set_ylabel(_("largest error over the workload"))
        right.set_title(_("what it buys"))
        for ax in self.axes:
            ax.set_xscale("log")
            ax.set_xlim(0.9, 45)
            ax.set_xticks(ROUNDS_GRID[::2] + (40,), [f"{t}" for t in ROUNDS_GRID[::2] + (40,)])
            ax.minorticks_off()
        legend_below(
            self.figure,
            [],
            handles=[
                Line2D([], [], color=BLUE, lw=2, label=_("ε, basic composition")),
                Line2D([], [], color=PURPLE, ls="--", marker="o", ms=3.5, lw=2,
                       label=_("ε from zCDP at δ = 10⁻⁶")),
                Line2D([], [], color=ORANGE, marker="s", ms=3.5, lw=2,
                       label=_("MWEM, median of 25 runs")),
                Patch(fc=ORANGE, alpha=0.2, hatch="\\\\", label=_("10 % to 90 % of runs")),
                Line2D([], [], color=BLUE, ls="-.", lw=2,
                       label=_("noisy histogram, worst query's RMS")),
                Line2D([], [], color=BAD_COLOR, marker="*", ls="none", ms=11, mec="black",
                       label=_("best $T$")),
            ],
            ncols=3,
        )  # fmt: skip
        self.moving(
            self.basic, self.converted, self.mark_left, self.band, self.median, self.histogram,
            self.mark_right, self.best,
        )  # fmt: skip

    def _apply(self, epsilon, rounds, workload):
        index = ROUNDS_GRID.index(rounds)
        converted = converted_epsilons(epsilon)
        self.basic.set_data(ROUNDS_GRID, [epsilon] * len(ROUNDS_GRID))
        self.converted.set_data(ROUNDS_GRID, converted)
        self.mark_left.set_data([rounds], [converted[index]])
        follow_limits(self, self.axes[0], ylim=(0.0, roomy(1.05 * float(converted.max()))))
        low, middle, high = error_curves(epsilon, workload)
        self.band.set_xy(
            np.column_stack([ROUNDS_GRID + ROUNDS_GRID[::-1], np.concatenate([low, high[::-1]])])
        )
        self.median.set_data(ROUNDS_GRID, middle)
        histogram = histogram_worst_error(epsilon, workload)
        self.histogram.set_data([0.9, 45], [histogram, histogram])
        self.mark_right.set_data([rounds], [middle[index]])
        best = int(np.argmin(middle))
        self.best.set_data([ROUNDS_GRID[best]], [middle[best]])
        follow_limits(self, self.axes[1], ylim=(0.0, roomy(1.05 * _error_top(epsilon))))
        self.state = dict(
            epsilon=epsilon,
            rounds=rounds,
            workload=workload,
            rho=query_release.mwem_rho(epsilon, rounds),
            converted=float(converted[index]),
            median=float(middle[index]),
            low=float(low[index]),
            high=float(high[index]),
            best=ROUNDS_GRID[best],
            best_error=float(middle[best]),
            histogram=histogram,
        )

    def numbers(self):
        """The readout beside REL-4: rho, both epsilons, MWEM's error at T, the best T."""
        s = self.state
        return {
            N_(r"zCDP $\rho$"): s["rho"],
            N_(r"$\varepsilon$ by basic composition"): s["epsilon"],
            N_(r"$\varepsilon$ from zCDP at $\delta$ = 1e-6"): s["converted"],
            N_("MWEM's largest error at $T$, median"): s["median"],
            N_("MWEM's largest error at $T$, 10 %"): s["low"],
            N_("MWEM's largest error at $T$, 90 %"): s["high"],
            N_("best $T$"): s["best"],
            N_("MWEM's largest error at the best $T$"): s["best_error"],
            N_("noisy histogram, worst query's RMS error"): s["histogram"],
        }

    def description(self):
        """REL-4 in words for a reader who cannot see it, with the current numbers."""
        s = self.state
        return _(
            "MWEM at ε = {epsilon:.3g} (basic composition) with T = {rounds} rounds has zCDP "
            "ρ = 5ε²/(32T) = {rho:.5g}, which is ε = {converted:.4g} at δ = 10^-6 (left, "
            "dashed). Right, on the workload of {workload}: its largest error over 25 seeded "
            "runs has median {median:.4g} (10 % to 90 %: {low:.4g} to {high:.4g}); the median is "
            "smallest at T = {best} ({best_error:.4g}, star). The noisy histogram's root "
            "mean square error on its worst query is {histogram:.4g} (dash-dot)."
        ).format(
            epsilon=s["epsilon"],
            rounds=s["rounds"],
            rho=s["rho"],
            converted=s["converted"],
            workload=_(s["workload"]),
            median=s["median"],
            low=s["low"],
            high=s["high"],
            best=s["best"],
            best_error=s["best_error"],
            histogram=s["histogram"],
        )


# ---------------------------------------------------------------------------
# REL-5: rows of synthetic data, asked a new query
# ---------------------------------------------------------------------------

#: REL-5's numbers of rounds.
SYNTHETIC_ROUNDS = (1, 2, 3, 5, 10, 20)
#: REL-5's fixed axes: rows in one bin, and answers (at most the noisy count, about 100).
ROWS_AXIS, ANSWER_AXIS = (0.0, 40.0), (0.0, 120.0)


@functools.lru_cache(maxsize=256)
def synthetic_rows(epsilon, rounds, workload):
    """The noisy count; MWEM's and the clipped noisy histogram; per-bin counts of their rows.

    A noisy count n^ = max(0, round(n + Lap(1/epsilon))) rows are drawn
    (``query_release.sample_rows``) from MWEM's released histogram (T rounds at epsilon on
    the workload) and from the noisy histogram (Lap(1/epsilon) per bin) clipped at 0 and
    normalised (``clip_and_normalise``). Each stage has its own seeded generator, so that
    the noisy histogram does not change with T or the workload.
    """

    def generator(stage):
        return np.random.default_rng((SYNTHETIC_SEED, stage))

    total = float(np.sum(HISTOGRAM))
    count = max(0, round(total + generator(0).laplace(scale=1.0 / epsilon)))
    noisy = query_release.noisy_histogram(HISTOGRAM, epsilon, rng=generator(1))
    clipped = query_release.clip_and_normalise(noisy, count)
    released = query_release.mwem(
        HISTOGRAM, _workload(workload), epsilon, rounds, rng=generator(2)
    ).average
    bins = len(HISTOGRAM)
    from_mwem = np.bincount(
        query_release.sample_rows(released, count, rng=generator(3)), None, bins
    )
    from_noisy = np.bincount(
        query_release.sample_rows(clipped, count, rng=generator(4)), None, bins
    )
    return count, released, clipped, from_mwem, from_noisy


SOURCES = {
    "truth": dict(color=BLUE, hatch="", label=N_("true")),
    "mwem": dict(color=PURPLE, hatch="//", label=N_("MWEM's rows")),
    "noisy": dict(color=ORANGE, hatch="..", label=N_("noisy\nhistogram's rows")),
}


@register
class SyntheticRows(Explorer):
    """REL-5: rows of synthetic data from MWEM and from the noisy histogram, asked anew.

    Left: h (bars) and the per-bin counts of n^ rows drawn from MWEM's released histogram
    (solid) and from the noisy histogram clipped at 0 and normalised (dashed)
    (``synthetic_rows``); the bins of the query shaded. Right: the three answers to the
    query "rows in bins >= k", which MWEM was not asked (for the prefixes and the one-way
    marginals) and nobody chose the rows for.

    Taught in: 16-release-a-histogram-then-synthetic-data.ipynb
    """

    figure_id = "REL-5"
    title = N_("Synthetic rows, asked a query nobody asked")
    controls = {
        "epsilon": RELEASE_EPSILON,
        "rounds": listed(
            Control(N_("rounds $T$"), 1, 20, integer=True, description=N_("MWEM's rounds T")),
            SYNTHETIC_ROUNDS,
        ),
        "start": Control(
            N_("first bin $k$"), 1, len(HISTOGRAM) - 1, integer=True,
            description=N_("the query counts the rows in bins k and above"),
        ),
        "workload": WORKLOAD,
    }  # fmt: skip
    defaults = {"epsilon": 1.0, "rounds": 5, "start": 5, "workload": N_("prefixes")}
    figsize = (10.0, 4.0)

    def _build(self):
        left, right = self.axes = self.figure.subplots(
            1, 2, gridspec_kw={"width_ratios": (1.5, 1.0)}
        )
        edges = np.arange(len(HISTOGRAM) + 1) - 0.5
        self.asked = Rectangle(
            (0, 0), 1, 1, transform=left.get_xaxis_transform(), fc=GREY, alpha=0.15,
            hatch="xx", ec=GREY, lw=0, zorder=0.5,
        )  # fmt: skip
        left.add_patch(self.asked)
        left.stairs(HISTOGRAM, edges, fill=True, color=BLUE, alpha=0.35, edgecolor=BLUE)
        self.mwem = left.stairs(np.zeros(len(HISTOGRAM)), edges, color=PURPLE, lw=2, baseline=None)
        self.noisy = left.stairs(
            np.zeros(len(HISTOGRAM)), edges, color=ORANGE, ls="--", lw=2, baseline=None
        )
        left.set_xlim(edges[0], edges[-1])
        left.set_ylim(*ROWS_AXIS)
        left.set_xticks(np.arange(len(HISTOGRAM)))
        left.set_xlabel(_("bin"))
        left.set_ylabel(_("rows"))
        left.set_title(_("REL-5 · the rows drawn, per bin"))
        self.answers = right.bar(
            range(len(SOURCES)),
            [0.0] * len(SOURCES),
            color=[style["color"] for style in SOURCES.values()],
            hatch=[style["hatch"] for style in SOURCES.values()],
            alpha=0.6,
            edgecolor="black",
        )
        right.set_xticks(
            range(len(SOURCES)), [_(style["label"]) for style in SOURCES.values()], fontsize=8.5
        )
        right.set_xlim(-0.6, len(SOURCES) - 0.4)
        right.set_ylim(*ANSWER_AXIS)
        right.set_ylabel(_("rows in bins $\\geq k$"))
        right.set_title(_("the query nobody asked"))
        legend_below(
            self.figure,
            [],
            handles=[
                Patch(fc=BLUE, alpha=0.35, ec=BLUE, label=_("true $h$")),
                Line2D([], [], color=PURPLE, lw=2, label=_("MWEM's rows")),
                Line2D([], [], color=ORANGE, ls="--", lw=2, label=_("noisy histogram's rows")),
                Patch(fc=GREY, alpha=0.15, hatch="xx", label=_("bins $\\geq k$")),
            ],
        )
        self.moving(self.asked, self.mwem, self.noisy, *self.answers.patches)

    def _apply(self, epsilon, rounds, start, workload):
        count, released, clipped, from_mwem, from_noisy = synthetic_rows(epsilon, rounds, workload)
        self.asked.set_x(start - 0.5)
        self.asked.set_width(len(HISTOGRAM) - start)
        self.mwem.set_data(from_mwem)
        self.noisy.set_data(from_noisy)
        answers = {
            "truth": float(np.sum(HISTOGRAM[start:])),
            "mwem": float(from_mwem[start:].sum()),
            "noisy": float(from_noisy[start:].sum()),
        }
        for patch, answer in zip(self.answers.patches, answers.values(), strict=True):
            patch.set_height(answer)
        self.state = dict(
            epsilon=epsilon, rounds=rounds, start=start, workload=workload, count=count,
            answers=answers, released=float(released[start:].sum()),
            clipped=float(clipped[start:].sum()),
        )  # fmt: skip

    def numbers(self):
        """The readout beside REL-5: the noisy count, the true answer and each rows' error."""
        s, answers = self.state, self.state["answers"]
        return {
            N_(r"noisy count $\hat n$"): s["count"],
            N_("true rows in bins $\\geq k$"): answers["truth"],
            N_("error of MWEM's rows"): answers["mwem"] - answers["truth"],
            N_("error of the noisy histogram's rows"): answers["noisy"] - answers["truth"],
            N_("MWEM's histogram in bins $\\geq k$, before drawing rows"): s["released"],
            N_("clipped noisy histogram in bins $\\geq k$"): s["clipped"],
        }

    def description(self):
        """REL-5 in words for a reader who cannot see it, with the current numbers."""
        s, answers = self.state, self.state["answers"]
        return _(
            "{count} rows (a noisy count of the 100 people, ε = {epsilon:.3g}) drawn from "
            "MWEM's histogram (T = {rounds} rounds on the workload of {workload}; solid) and "
            "from the noisy histogram clipped at 0 and normalised (dashed), beside the true "
            "histogram (bars). Asked the rows in bins {start} and above, which the truth "
            "holds {truth:g} of: MWEM's rows say {mwem:g} (error {mwem_error:+g}), the noisy "
            "histogram's rows {noisy:g} (error {noisy_error:+g}). Before rows were drawn, "
            "MWEM's histogram held {released:.4g} there, the clipped noisy histogram "
            "{clipped:.4g}."
        ).format(
            count=s["count"],
            epsilon=s["epsilon"],
            rounds=s["rounds"],
            workload=_(s["workload"]),
            start=s["start"],
            truth=answers["truth"],
            mwem=answers["mwem"],
            mwem_error=answers["mwem"] - answers["truth"],
            noisy=answers["noisy"],
            noisy_error=answers["noisy"] - answers["truth"],
            released=s["released"],
            clipped=s["clipped"],
        )
