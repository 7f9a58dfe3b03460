"""Figures FREQ-1 to FREQ-5: counting d categories when each user adds their own noise.

FREQ-1 draws each protocol's variance per user against the number of categories d and
the crossover d = 3e^epsilon + 2; FREQ-2 what the server sees of one user, every report's
probability under two values and its privacy loss; FREQ-3 the standard deviation of a
count against n, local against central; FREQ-4 the estimates of seeded runs, negative
and fractional, and two post-processings into a histogram with their bias; FREQ-5 the
exact variance with the true count c against a seeded simulation. Every p, q, variance,
report probability, privacy loss, report and estimate comes from
``dplearn.local_frequency`` (Wang, Blocki, Li & Jha, "Locally differentially private
protocols for frequency estimation", USENIX Security 2017; Erlingsson, Pihur & Korolova,
"RAPPOR: randomized aggregatable privacy-preserving ordinal response", CCS 2014; Near &
Abuah, "Programming differential privacy", chapter 13); this module draws them.

FREQ-4's users: a skewed distribution over eight categories, shares 40, 20, 12, 8, 7, 6,
4 and 3 per cent (``TRUE_SHARES``), held exactly (n times each share users in each).

Taught in: 17-count-categories-with-local-noise.ipynb
"""

from __future__ import annotations

import functools
import math

import numpy as np
from matplotlib import transforms
from matplotlib.font_manager import FontProperties
from matplotlib.lines import Line2D
from matplotlib.markers import MarkerStyle
from matplotlib.patches import Patch
from matplotlib.path import Path
from matplotlib.textpath import TextPath
from matplotlib.ticker import NullLocator
from scipy import stats

from dplearn import local_frequency
from dplearn.figures.controls import COUNT, EPSILON, Choice, Control, listed
from dplearn.figures.explorers import Explorer, register
from dplearn.figures.legends import legend_below, legend_beside, style_handle
from dplearn.figures.limits import follow_limits, roomy, setting_mark
from dplearn.figures.style import BAD_COLOR, BLUE, GREEN, GREY, GUIDE_GREY, ORANGE, PURPLE
from dplearn.figures.text import (
    TICK_GAP_POINTS,
    MovingXAxis,
    Note,
    static_xlabel,
)
from dplearn.language import N_, ngettext
from dplearn.language import gettext as _

__all__ = [
    "PROTOCOL_NAMES",
    "TRUE_SHARES",
    "NEAR_ABUAH",
    "VarianceAgainstCategories",
    "ServerView",
    "LocalAgainstCentral",
    "PostProcessing",
    "ExactVariance",
    "estimate_runs",
    "simulated_estimates",
]

# ---------------------------------------------------------------------------
# The protocols, as the buttons name them
# ---------------------------------------------------------------------------

DIRECT = N_("direct")
SYMMETRIC = N_("symmetric unary")
OPTIMISED = N_("optimised unary")
HASHING = N_("local hashing")
#: Button word -> the core's protocol name (``local_frequency.PROTOCOLS``).
PROTOCOL_NAMES = {
    DIRECT: "direct",
    SYMMETRIC: "symmetric unary",
    OPTIMISED: "optimized unary",
    HASHING: "optimized local hashing",
}
#: Each protocol's line: colour, line style and marker (never colour alone).
STYLES = {
    "direct": dict(color=BLUE, ls="-", marker="o"),
    "symmetric unary": dict(color=ORANGE, ls="--", marker="s"),
    "optimized unary": dict(color=GREEN, ls="-", marker="^"),
    "optimized local hashing": dict(color=PURPLE, ls=":", marker="v"),
}
#: The legends' long names.
LONG_NAMES = {
    "direct": N_("direct encoding (generalised randomised response)"),
    "symmetric unary": N_("symmetric unary encoding (basic RAPPOR)"),
    "optimized unary": N_("optimised unary encoding"),
    "optimized local hashing": N_("optimised local hashing, g = round(e^ε + 1)"),
}
#: Each protocol's name at the start of a sentence (the descriptions).
SPOKEN_NAMES = {
    "direct": N_("Direct encoding"),
    "symmetric unary": N_("Symmetric unary encoding"),
    "optimized unary": N_("Optimised unary encoding"),
    "optimized local hashing": N_("Optimised local hashing"),
}
PROTOCOL = Choice(
    N_("protocol"), tuple(PROTOCOL_NAMES), description=N_("how each user randomises a category")
)
FREQUENCY_EPSILON = EPSILON.replace(minimum=0.1, maximum=5.0)
CATEGORY_STEPS = (2, 3, 4, 6, 8, 10, 12, 16, 24, 32, 64, 128, 256, 512, 1024)
CATEGORIES = listed(
    Control(N_("categories $d$"), 2, 1024, integer=True, description=N_("number of categories d")),
    CATEGORY_STEPS,
)


# ---------------------------------------------------------------------------
# FREQ-1: variance per user against the number of categories
# ---------------------------------------------------------------------------

#: FREQ-1's and FREQ-3's axis of d: whole numbers, about even on a log scale.
CATEGORY_GRID = np.unique(np.round(np.geomspace(2, 1024, 300))).astype(int)
#: The d at which FREQ-1's description reads direct encoding off.
QUOTED_CATEGORIES = (2, 4, 16, 1024)


@register
class VarianceAgainstCategories(Explorer):
    """FREQ-1: each protocol's variance per user, Var[c-hat]/n at c = 0, against d.

    ``local_frequency.variance_per_user``: direct encoding's (e^epsilon + d - 2) /
    (e^epsilon - 1)^2 grows with d, unary encoding's (symmetric e^(epsilon/2) /
    (e^(epsilon/2) - 1)^2, optimised 4e^epsilon / (e^epsilon - 1)^2) does not; optimised
    local hashing has optimised unary encoding's variance when its g = e^epsilon + 1, and
    a few per cent more with g rounded to a whole number. Direct encoding is the better
    one while d < 3e^epsilon + 2 (``local_frequency.crossover_categories``, dotted). Log
    axes; marks at the slider's d.

    Taught in: 17-count-categories-with-local-noise.ipynb
    """

    figure_id = "FREQ-1"
    title = N_("Variance per user against the number of categories")
    controls = {"epsilon": FREQUENCY_EPSILON, "categories": CATEGORIES}
    defaults = {"epsilon": 1.0, "categories": 4}
    figsize = (10.0, 4.0)

    def _build(self):
        ax = self.axes = self.figure.subplots()
        self.curves, self.marks = {}, {}
        widths = {"optimized unary": 3.0, "optimized local hashing": 1.6}
        for name, style in STYLES.items():
            (self.curves[name],) = ax.plot(
                [], [], color=style["color"], ls=style["ls"], lw=widths.get(name, 2.0)
            )
            self.marks[name] = setting_mark(ax, style["color"], style["marker"])
        (self.crossover,) = ax.plot([], [], color=GREY, ls=(0, (1, 2)), lw=1.6)
        self.crossing = setting_mark(ax, BAD_COLOR, "*")
        self.crossing.set_markersize(14)
        (self.here,) = ax.plot([], [], color=GUIDE_GREY, lw=0.8)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlim(1.7, 1250)
        ax.set_ylim(1e-3, 1e6)
        ax.set_xticks([2, 4, 8, 16, 32, 64, 128, 256, 512, 1024])
        ax.set_xticklabels(["2", "4", "8", "16", "32", "64", "128", "256", "512", "1024"])
        ax.minorticks_off()
        ax.set_xlabel(_("number of categories $d$"))
        ax.set_ylabel(_(r"variance per user, Var$[\hat c]/n$ at $c=0$"))
        ax.set_title(_("FREQ-1 · which protocol counts d categories best"))
        legend_beside(
            ax,
            [
                *(
                    style_handle(style, _(LONG_NAMES[name]), widths.get(name, 2.0))
                    for name, style in STYLES.items()
                ),
                Line2D(
                    [],
                    [],
                    color=GREY,
                    ls=(0, (1, 2)),
                    marker="*",
                    mfc=BAD_COLOR,
                    mec="black",
                    ms=11,
                    label=_(r"crossover $d=3e^\varepsilon+2$"),
                ),  # fmt: skip
            ],
            fontsize=8.5,
        )
        self.moving(*self.curves.values(), *self.marks.values(), self.crossover, self.crossing)
        self.moving(self.here)

    def _apply(self, epsilon, categories):
        variances = {
            name: local_frequency.variance_per_user(name, epsilon, CATEGORY_GRID) for name in STYLES
        }
        here = {
            name: float(local_frequency.variance_per_user(name, epsilon, categories))
            for name in STYLES
        }
        for name in STYLES:
            self.curves[name].set_data(CATEGORY_GRID, variances[name])
            self.marks[name].set_data([categories], [here[name]])
        crossover = float(local_frequency.crossover_categories(epsilon))
        level = here["optimized unary"]
        self.crossover.set_data([crossover, crossover], [1e-3, 1e6])
        self.crossing.set_data([crossover], [level])
        self.here.set_data([categories, categories], [1e-3, 1e6])
        quoted = local_frequency.variance_per_user("direct", epsilon, np.array(QUOTED_CATEGORIES))
        self.state = dict(
            epsilon=epsilon,
            categories=categories,
            here=here,
            crossover=crossover,
            quoted=tuple(float(v) for v in quoted),
            buckets=int(local_frequency.local_hashing(epsilon)[2]),
        )

    def numbers(self):
        """The readout beside FREQ-1: each protocol's variance per user at d, the crossover."""
        s, here = self.state, self.state["here"]
        return {
            N_(r"crossover $d=3e^\varepsilon+2$"): s["crossover"],
            N_("direct encoding at $d$"): here["direct"],
            N_("symmetric unary encoding"): here["symmetric unary"],
            N_("optimised unary encoding"): here["optimized unary"],
            N_("optimised local hashing, $g$ whole"): here["optimized local hashing"],
        }

    def description(self):
        """FREQ-1 in words for a reader who cannot see it, with the current numbers."""
        s, here = self.state, self.state["here"]
        return _(
            "Variance per user Var[ĉ]/n at c = 0 against d, log axes, at ε = {epsilon:.3g}: "
            "optimised unary encoding {optimised:.5f} and symmetric {symmetric:.5f} for every "
            "d; optimised local hashing has optimised unary's variance ({hashing:.5f} with "
            "g = {buckets} buckets). Direct encoding grows with d: {two:.5f} at d = 2, "
            "{four:.5f} at 4, {sixteen:.5f} at 16, {many:.5f} at 1024; it is better while "
            "d < 3e^ε + 2 = {crossover:.4f} (dotted). At d = {categories}: {direct:.5f}."
        ).format(
            epsilon=s["epsilon"],
            optimised=here["optimized unary"],
            symmetric=here["symmetric unary"],
            hashing=here["optimized local hashing"],
            buckets=s["buckets"],
            two=s["quoted"][0],
            four=s["quoted"][1],
            sixteen=s["quoted"][2],
            many=s["quoted"][3],
            crossover=s["crossover"],
            categories=s["categories"],
            direct=here["direct"],
        )


# ---------------------------------------------------------------------------
# FREQ-2: what the server sees
# ---------------------------------------------------------------------------

#: Near & Abuah's unary encoding (chapter 13): p = 0.75, q = 0.25, symmetric at epsilon = ln 9.
NEAR_ABUAH = N_("Near & Abuah: p = ¾, q = ¼")
NEAR_ABUAH_P, NEAR_ABUAH_Q = 0.75, 0.25
REPORT_EPSILON = EPSILON.replace(
    minimum=0.1, maximum=3.0, applies_when={"protocol": tuple(PROTOCOL_NAMES)}
)
REPORT_CATEGORIES = listed(
    Control(N_("categories $d$"), 2, 5, integer=True, description=N_("number of categories d")),
    (2, 3, 4, 5),
    applies_when={"protocol": (DIRECT, SYMMETRIC, OPTIMISED, NEAR_ABUAH)},
)
#: FREQ-2's privacy-loss axis: beyond the largest epsilon offered (3) and ln 9.
LOSS_AXIS = (-3.6, 3.6)
#: FREQ-2's probability axis (log): every report's probability at every setting offered
#: lies inside (the least, 2.5e-6, is optimised unary encoding's at d = 5, epsilon = 3).
PROBABILITY_AXIS = (1e-6, 2.0)
#: The most reports FREQ-2 shows: 2^5 bit vectors (local hashing has at most 21 buckets
#: at epsilon = 3); one label artist each.
MOST_REPORTS = 32
#: Points between the report axis and its title: room for a bit vector of 5 bits upright.
LABEL_ROOM = 40.0


@functools.lru_cache(maxsize=256)
def _report_marker(text, rotated):
    """A marker drawing a report's name under the axis, upright when rotated: (style, size).

    Like ``dplearn.figures.text.tick_marker`` (glyph outlines, centred, hung below y = 0),
    in a monospaced font, turned a quarter to read upwards when rotated.
    """
    size = 8.0 if rotated else 9.0
    path = TextPath((0.0, 0.0), text, size=size, prop=FontProperties(family="monospace"))
    vertices = path.vertices.copy()
    if rotated:
        vertices = np.column_stack([-vertices[:, 1], vertices[:, 0]])
    (left, _bottom), (right, top) = vertices.min(axis=0), vertices.max(axis=0)
    vertices[:, 0] -= (left + right) / 2.0
    vertices[:, 1] -= top + TICK_GAP_POINTS
    extent = float(np.abs(vertices).max())
    return MarkerStyle(Path(vertices, path.codes)), 2.0 * extent


def _report_labels(name, reports):
    """Each report as the server sees it: a category (1..d), a bit vector, or a bucket."""
    if name in ("symmetric unary", "optimized unary"):
        return ["".join("1" if bit else "0" for bit in row) for row in reports]
    if name == "direct":
        return [str(int(report) + 1) for report in reports]
    return [str(int(report)) for report in reports]


@register
class ServerView(Explorer):
    """FREQ-2: one user's report, its probability under two values, and its privacy loss.

    Every report of the protocol (``local_frequency.report_probabilities``): a category
    for direct encoding, one of the 2^d bit vectors for unary encoding, a bucket of one
    hash for local hashing. Top: P[report | value 1] and P[report | value 2]; bottom:
    their log-ratio, the privacy loss of each report, its largest marked; the worst over
    every report and pair of values by enumeration (``local_frequency.worst_privacy_loss``,
    ``unary_worst_privacy_loss`` for Near & Abuah's p = 0.75, q = 0.25, which is symmetric
    unary encoding at epsilon = ``unary_epsilon(0.75, 0.25)`` = ln 9).

    Taught in: 17-count-categories-with-local-noise.ipynb
    """

    figure_id = "FREQ-2"
    title = N_("What the server sees: each report's probability and privacy loss")
    controls = {
        "protocol": Choice(
            N_("protocol"),
            (*PROTOCOL_NAMES, NEAR_ABUAH),
            description=N_("how each user randomises a category"),
        ),
        "epsilon": REPORT_EPSILON,
        "categories": REPORT_CATEGORIES,
    }
    defaults = {"protocol": OPTIMISED, "epsilon": 1.0, "categories": 4}
    figsize = (10.0, 4.8)

    def _build(self):
        top, bottom = self.axes = self.figure.subplots(
            2, 1, sharex=True, gridspec_kw={"height_ratios": [1.3, 1]}
        )
        common = dict(baseline=PROBABILITY_AXIS[0] / 10)
        self.first = top.stairs(
            [1.0], [0.0, 1.0], fill=True, color=BLUE, alpha=0.35, hatch="//", ec=BLUE, lw=0,
            **common,
        )  # fmt: skip
        self.second = top.stairs([1.0], [0.0, 1.0], color=ORANGE, ls="--", lw=2, **common)
        top.set_yscale("log")
        top.set_ylim(*PROBABILITY_AXIS)
        top.set_ylabel(_("P[report | value], log scale"))
        top.set_title(_("FREQ-2 · one user's report: what the server sees"))
        (self.stems,) = bottom.plot([], [], color="0.3", lw=1.2)
        (self.losses,) = bottom.plot([], [], color="0.2", ls="none", marker="o", ms=5)
        (self.upper,) = bottom.plot([0.0, 1.0], [1.0, 1.0], color=BAD_COLOR, ls="--", lw=1.2)
        (self.lower,) = bottom.plot([0.0, 1.0], [-1.0, -1.0], color=BAD_COLOR, ls="--", lw=1.2)
        self.worst = setting_mark(bottom, BAD_COLOR, "*")
        self.worst.set_markersize(15)
        bottom.axhline(0.0, color=GUIDE_GREY, lw=0.8, zorder=0.5)
        bottom.set_xlim(0.0, 1.0)
        bottom.set_ylim(*LOSS_AXIS)
        bottom.set_ylabel(_("privacy loss"))
        # The reports' names change with the protocol and d: drawn as cached glyph markers
        # under the axis (one per report, as a tick label would be), not as tick labels,
        # which would be laid out and rasterised again on every change.
        bottom.xaxis.set_major_locator(NullLocator())
        bottom.xaxis.set_minor_locator(NullLocator())
        below = transforms.blended_transform_factory(bottom.transData, bottom.transAxes)
        self.labels = []
        for _index in range(MOST_REPORTS):
            (label,) = bottom.plot(
                [], [], ls="none", color="black", mew=0, transform=below, clip_on=False
            )
            label.set_in_layout(False)
            self.labels.append(label)
        self.label_texts = [None] * MOST_REPORTS
        bottom.set_xlabel(
            _("report: a category, a bit vector (one bit per category 1 … d) or a bucket"),
            labelpad=LABEL_ROOM,
        )
        legend_beside(
            top,
            [
                Patch(fc=BLUE, alpha=0.35, hatch="//", ec=BLUE, label=_("value 1")),
                Line2D([], [], color=ORANGE, ls="--", lw=2, label=_("value 2")),
            ],
        )
        legend_beside(
            bottom,
            [
                Line2D(
                    [], [], color="0.2", marker="o", label=_("ln P[r | 1] / P[r | 2]")
                ),  # fmt: skip
                Line2D([], [], color=BAD_COLOR, ls="--", label=r"$\pm\varepsilon$"),
                Line2D(
                    [],
                    [],
                    color=BAD_COLOR,
                    marker="*",
                    ms=12,
                    ls="none",
                    mec="black",
                    label=_("largest"),
                ),  # fmt: skip
            ],
        )
        self.moving(
            self.first, self.second, self.stems, self.losses, self.upper, self.lower, self.worst
        )
        self.moving(*self.labels)

    def _setting(self, protocol, epsilon, categories):
        """(core protocol name, epsilon, d) of a button and the sliders."""
        if protocol == NEAR_ABUAH:
            epsilon = float(local_frequency.unary_epsilon(NEAR_ABUAH_P, NEAR_ABUAH_Q))
            return "symmetric unary", epsilon, categories
        return PROTOCOL_NAMES[protocol], epsilon, categories

    def _name_reports(self, name, reports, positions):
        """Each report's name under its bar; a marker is made only where the name changes."""
        rotated = name in ("symmetric unary", "optimized unary") and len(positions) > 8
        for index, label in enumerate(self.labels):
            if index >= len(positions):
                label.set_data([], [])
                continue
            text = _report_labels(name, reports[index : index + 1])[0]
            if self.label_texts[index] != (text, rotated):
                marker, size = _report_marker(text, rotated)
                label.set_marker(marker)
                label.set_markersize(size)
                self.label_texts[index] = (text, rotated)
            label.set_data([positions[index]], [0.0])

    def _apply(self, protocol, epsilon, categories):
        name, epsilon, categories = self._setting(protocol, epsilon, categories)
        reports, probabilities = local_frequency.report_probabilities(name, epsilon, categories)
        first, second = probabilities[:, 0], probabilities[:, 1]
        losses = np.log(first) - np.log(second)
        count = len(first)
        # The reports share the axis' width [0, 1]: its limits never change.
        edges = np.linspace(0.0, 1.0, count + 1)
        positions = (edges[:-1] + edges[1:]) / 2
        self.first.set_data(first, edges)
        self.second.set_data(second, edges)
        self._name_reports(name, reports, positions)
        self.losses.set_data(positions, losses)
        stems = np.column_stack([positions, positions, np.full(count, np.nan)]).ravel()
        heights = np.column_stack([np.zeros(count), losses, np.full(count, np.nan)]).ravel()
        self.stems.set_data(stems, heights)
        self.upper.set_ydata([epsilon, epsilon])
        self.lower.set_ydata([-epsilon, -epsilon])
        largest = int(np.argmax(losses))
        self.worst.set_data([positions[largest]], [losses[largest]])
        if protocol == NEAR_ABUAH:
            p, q = NEAR_ABUAH_P, NEAR_ABUAH_Q
            worst = local_frequency.unary_worst_privacy_loss(p, q, categories)
        else:
            p, q = local_frequency.protocol_parameters(name, epsilon, categories)
            worst = local_frequency.worst_privacy_loss(name, epsilon, categories)
        self.state = dict(
            protocol=protocol,
            name=name,
            epsilon=epsilon,
            categories=categories,
            reports=count,
            p=float(p),
            q=float(q),
            worst=float(worst),
            largest=_report_labels(name, reports[largest : largest + 1])[0],
            variance=float(local_frequency.variance_per_user(name, epsilon, categories)),
            optimised=float(
                local_frequency.variance_per_user("optimized unary", epsilon, categories)
            ),
        )

    def numbers(self):
        """The readout beside FREQ-2: p, q, epsilon, the worst loss and the variances."""
        s = self.state
        return {
            N_("reports the server can see"): s["reports"],
            "$p$": s["p"],
            "$q$": s["q"],
            r"$\varepsilon$": s["epsilon"],
            N_("worst privacy loss, by enumeration"): s["worst"],
            N_("variance per user"): s["variance"],
            N_("optimised unary at this ε"): s["optimised"],
        }

    def description(self):
        """FREQ-2 in words for a reader who cannot see it, with the current numbers."""
        s = self.state
        # Russian's plural forms follow the number: ngettext, though English has one here.
        count = s["reports"]
        kinds = {
            "direct": ngettext("{reports} category", "{reports} categories", count),
            "symmetric unary": ngettext("{reports} bit vector", "{reports} bit vectors", count),
            "optimized unary": ngettext("{reports} bit vector", "{reports} bit vectors", count),
            "optimized local hashing": ngettext(
                "{reports} bucket of one hash", "{reports} buckets of one hash", count
            ),
        }
        return _(
            "{protocol}, d = {categories}, ε = {epsilon:.5g} (p = {p:.4g}, q = {q:.4g}): the "
            "server sees one of {kinds}. Bars: each report's probability when the value is "
            "category 1 (hatched) or 2 (dashed); below, their log-ratio, the report's privacy "
            "loss. The worst over every report and pair of values, by enumeration, is "
            "{worst:.6g} (star at {largest}). Variance per user {variance:.5g}; optimised "
            "unary encoding at this ε: {optimised:.5g}."
        ).format(
            protocol=(
                _("Near & Abuah's unary encoding (symmetric at ε = ln 9)")
                if s["protocol"] == NEAR_ABUAH
                else _(SPOKEN_NAMES[s["name"]])
            ),
            categories=s["categories"],
            epsilon=s["epsilon"],
            p=s["p"],
            q=s["q"],
            kinds=kinds[s["name"]].format(reports=s["reports"]),
            worst=s["worst"],
            largest=s["largest"],
            variance=s["variance"],
            optimised=s["optimised"],
        )


# ---------------------------------------------------------------------------
# FREQ-3: local against central
# ---------------------------------------------------------------------------

USERS = Control(N_("users $n$"), 100.0, 1e7, log=True, description=N_("number of users"))
#: FREQ-3's axis of n.
USER_GRID = np.unique(np.round(np.geomspace(100, 1e7, 200)))


@register
class LocalAgainstCentral(Explorer):
    """FREQ-3: the standard deviation of a count against n, each local protocol and central.

    Local: sqrt(n times ``local_frequency.variance_per_user``), the count's error at c = 0,
    growing like sqrt(n); central: a trusted curator's Laplace noise of scale 1/epsilon on
    the count (lesson 05), variance 2/epsilon^2 whatever n
    (``local_frequency.central_variance``). Lesson 00's INTRO-4 compared the two for one
    yes/no question; here for d categories. Log-log; marks at the slider's n (rounded).

    Taught in: 17-count-categories-with-local-noise.ipynb
    """

    figure_id = "FREQ-3"
    title = N_("Local against central: the error of a count against n")
    controls = {"epsilon": FREQUENCY_EPSILON, "categories": CATEGORIES, "users": USERS}
    defaults = {"epsilon": 1.0, "categories": 4, "users": 10_000.0}
    figsize = (10.0, 4.0)

    def _build(self):
        ax = self.axes = self.figure.subplots()
        self.curves, self.marks = {}, {}
        for name, style in STYLES.items():
            (self.curves[name],) = ax.plot(
                [], [], color=style["color"], ls=style["ls"], lw=3.0 if name == "optimized unary"
                else 2.0,
            )  # fmt: skip
            self.marks[name] = setting_mark(ax, style["color"], style["marker"])
        (self.central,) = ax.plot([], [], color="0.15", ls=(0, (6, 2, 1, 2)), lw=2)
        self.central_mark = setting_mark(ax, "0.15", "D")
        (self.here,) = ax.plot([], [], color=GUIDE_GREY, lw=0.8)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlim(70, 1.4e7)
        ax.set_ylim(0.1, 3e6)
        ax.set_xlabel(_("number of users $n$"))
        ax.set_ylabel(_("standard deviation of a count"))
        ax.set_title(_("FREQ-3 · local noise against one central Laplace noise (same ε)"))
        legend_beside(
            ax,
            [
                *(style_handle(style, _(LONG_NAMES[name])) for name, style in STYLES.items()),
                Line2D(
                    [],
                    [],
                    color="0.15",
                    ls=(0, (6, 2, 1, 2)),
                    marker="D",
                    lw=2,
                    label=_("central: Laplace, variance 2/ε²"),
                ),  # fmt: skip
            ],
            fontsize=8.5,
        )
        self.moving(*self.curves.values(), *self.marks.values(), self.central)
        self.moving(self.central_mark, self.here)

    def _apply(self, epsilon, categories, users):
        people = max(1, int(round(users)))
        variance = {}
        for name in STYLES:
            per_user = float(local_frequency.variance_per_user(name, epsilon, categories))
            self.curves[name].set_data(USER_GRID, np.sqrt(USER_GRID * per_user))
            variance[name] = people * per_user
            self.marks[name].set_data([people], [math.sqrt(variance[name])])
        central = float(local_frequency.central_variance(epsilon))
        self.central.set_data([70, 1.4e7], [math.sqrt(central)] * 2)
        self.central_mark.set_data([people], [math.sqrt(central)])
        self.here.set_data([people, people], [0.1, 3e6])
        self.state = dict(
            epsilon=epsilon, categories=categories, users=people, variance=variance, central=central
        )

    def numbers(self):
        """The readout beside FREQ-3: each count's variance at n, local and central."""
        s, variance = self.state, self.state["variance"]
        return {
            N_("users $n$"): s["users"],
            N_("variance, optimised unary (local)"): variance["optimized unary"],
            N_("variance, symmetric unary (local)"): variance["symmetric unary"],
            N_("variance, direct encoding (local)"): variance["direct"],
            N_("variance, optimised local hashing (local)"): variance["optimized local hashing"],
            N_(r"variance, central Laplace $2/\varepsilon^2$"): s["central"],
            N_("local / central standard deviation"): math.sqrt(
                variance["optimized unary"] / s["central"]
            ),
        }

    def description(self):
        """FREQ-3 in words for a reader who cannot see it, with the current numbers."""
        s, variance = self.state, self.state["variance"]
        return _(
            "The standard deviation of one count against the number of users n, log axes, at "
            "ε = {epsilon:.3g}: each local protocol's grows like √n, the central Laplace "
            "count's stays √2/ε. At n = {users:,}, d = {categories}: variance "
            "{optimised:,.0f} with optimised unary encoding, {symmetric:,.0f} symmetric, "
            "{direct:,.0f} direct, {hashing:,.0f} local hashing, against {central:.4g} "
            "central: a standard deviation {ratio:.4g} times larger."
        ).format(
            epsilon=s["epsilon"],
            users=s["users"],
            categories=s["categories"],
            optimised=variance["optimized unary"],
            symmetric=variance["symmetric unary"],
            direct=variance["direct"],
            hashing=variance["optimized local hashing"],
            central=s["central"],
            ratio=math.sqrt(variance["optimized unary"] / s["central"]),
        )


# ---------------------------------------------------------------------------
# FREQ-4: estimates across seeded runs, and two post-processings
# ---------------------------------------------------------------------------

#: FREQ-4's true distribution over eight categories: skewed, with rare categories.
TRUE_SHARES = (0.40, 0.20, 0.12, 0.08, 0.07, 0.06, 0.04, 0.03)
#: Seeded runs per setting, and their seed.
RUNS, RUN_SEED = 100, 17
CLIP, PROJECT = N_("clip and renormalise"), N_("project onto the simplex")
#: FREQ-4's right panel, after each post-processing.
DONE_TITLES = {CLIP: N_("clipped and renormalised"), PROJECT: N_("projected onto the simplex")}
POST_PROCESSING = Choice(
    N_("post-processing"), (CLIP, PROJECT), description=N_("how estimates become a histogram")
)


def true_counts(users):
    """The users in each category of ``TRUE_SHARES`` (n a multiple of 100)."""
    return np.array([round(users * share) for share in TRUE_SHARES])


def _run(reports, run, users):
    """The reports of one run (users run * n to (run + 1) * n) of reports of many runs."""
    rows = slice(run * users, (run + 1) * users)
    if isinstance(reports, local_frequency.HashedReports):
        return local_frequency.HashedReports(
            reports.multipliers[rows], reports.offsets[rows], reports.buckets[rows],
            reports.hash_range,
        )  # fmt: skip
    return reports[rows]


@functools.lru_cache(maxsize=32)
def estimate_runs(epsilon, users):
    """Each protocol's estimates c-hat in RUNS seeded runs, raw and made histograms.

    Each run perturbs the same users (``true_counts``) afresh
    (``local_frequency.perturb``, every run's users at once, seed ``RUN_SEED``) and
    estimates every count (``local_frequency.estimate_counts``); the rows are then made
    histograms of n users by ``local_frequency.clip_and_renormalise`` and
    ``local_frequency.project_onto_simplex``. The four protocols are run together, so
    that a click on another protocol finds its runs ready.

    Returns:
      {protocol: {"raw": ..., CLIP: ..., PROJECT: ...}}, each a RUNS x 8 array of counts.
    """
    categories = len(TRUE_SHARES)
    values = np.tile(np.repeat(np.arange(categories), true_counts(users)), RUNS)
    runs = {}
    for protocol in local_frequency.PROTOCOLS:
        rng = np.random.default_rng(RUN_SEED)
        reports = local_frequency.perturb(values, protocol, epsilon, categories, rng=rng)
        raw = np.array(
            [
                local_frequency.estimate_counts(
                    _run(reports, run, users), protocol, epsilon, categories
                )
                for run in range(RUNS)
            ]
        )
        runs[protocol] = {
            "raw": raw,
            CLIP: local_frequency.clip_and_renormalise(raw, users),
            PROJECT: local_frequency.project_onto_simplex(raw, users),
        }
    return runs


def _errors(shares):
    """(bias on the rarest category, root mean square error over all) of estimated shares."""
    truth = np.array(TRUE_SHARES)
    bias = float(shares[:, -1].mean() - truth[-1])
    return bias, float(np.sqrt(np.mean((shares - truth) ** 2)))


@register
class PostProcessing(Explorer):
    """FREQ-4: estimated shares of RUNS seeded runs, raw and made a histogram.

    Eight categories with the shares ``TRUE_SHARES`` (bars); left, the unbiased
    estimates c-hat/n of each run (dots; negative and fractional counts among them);
    right, the same runs clipped and renormalised or projected onto the simplex (both
    sum to n and are >= 0, both biased: the rare categories rise). Diamonds: the mean
    over the runs. Readout: the share of negative raw estimates, and for each kind the
    bias on the rarest category (3 %) and the root mean square error over all
    (``estimate_runs``; epsilon and n move on release).

    Taught in: 17-count-categories-with-local-noise.ipynb
    """

    figure_id = "FREQ-4"
    title = N_("Estimates across seeded runs, and two post-processings")
    controls = {
        "epsilon": listed(FREQUENCY_EPSILON.replace(on_release=True), (0.25, 0.5, 1.0, 2.0, 4.0)),
        "users": listed(
            Control(
                N_("users $n$"),
                500,
                10_000,
                integer=True,
                description=N_("number of users"),
                on_release=True,
            ),
            (500, 1000, 2000, 5000, 10_000),
        ),
        "protocol": PROTOCOL,
        "post_processing": POST_PROCESSING,
    }
    defaults = {"epsilon": 1.0, "users": 1000, "protocol": OPTIMISED, "post_processing": PROJECT}
    figsize = (10.0, 4.4)

    def _build(self):
        left, right = self.axes = self.figure.subplots(1, 2, sharey=True)
        categories = len(TRUE_SHARES)
        self.positions = np.arange(1, categories + 1)
        jitter = np.random.default_rng(RUN_SEED).uniform(-0.28, 0.28, (RUNS, categories))
        self.dot_x = (self.positions + jitter).ravel()
        truth_x = np.column_stack(
            [self.positions - 0.4, self.positions + 0.4, np.full(categories, np.nan)]
        ).ravel()
        truth_y = np.repeat(TRUE_SHARES, 3)
        truth_y[2::3] = np.nan
        self.dots, self.means = {}, {}
        for ax, side, color, marker in ((left, "raw", BLUE, "o"), (right, "done", GREEN, "s")):
            ax.axhline(0.0, color=GUIDE_GREY, lw=0.8, zorder=0.5)
            ax.plot(truth_x, truth_y, color="black", lw=2.2, zorder=2.5)
            (self.dots[side],) = ax.plot(
                [], [], ls="none", marker=marker, ms=1.8, color=color, mew=0
            )
            (self.means[side],) = ax.plot(
                [], [], ls="none", marker="D", ms=7, mfc="white", mec=BAD_COLOR, mew=1.6, zorder=3
            )
            ax.set_xticks(self.positions, [f"{100 * share:g} %" for share in TRUE_SHARES])
            ax.set_xlim(0.4, categories + 0.6)
            ax.set_xlabel(_("category (its true share)"))
        left.set_ylabel(_(r"estimated share $\hat c/n$"))
        left.set_title(_("FREQ-4 · unbiased estimates: negative, fractional"))
        right.set_title(_("made a histogram: each ≥ 0, summing to 1"))
        # The post-processing's name changes with a click: glyph markers, not a title.
        self.note = Note(right, 0.98, 0.97, ha="right", va="top")
        # Its box is a marker with its own face and edge; its line colour shows nowhere.
        self.note.box.set_color("black")
        legend_below(
            self.figure,
            [],
            handles=[
                Line2D([], [], color="black", lw=2.2, label=_("true share")),
                Line2D([], [], ls="none", marker="o", color=BLUE, label=_("raw estimate, a run")),
                Line2D(
                    [], [], ls="none", marker="s", color=GREEN, label=_("post-processed, a run")
                ),  # fmt: skip
                Line2D(
                    [],
                    [],
                    ls="none",
                    marker="D",
                    mfc="white",
                    mec=BAD_COLOR,
                    mew=1.6,
                    label=_("mean over {runs} runs").format(runs=RUNS),
                ),  # fmt: skip
            ],
        )
        self.moving(*self.dots.values(), *self.means.values(), *self.note.artists)

    def _apply(self, epsilon, users, protocol, post_processing):
        every = estimate_runs(epsilon, users)
        runs = every[PROTOCOL_NAMES[protocol]]
        raw, done = runs["raw"] / users, runs[post_processing] / users
        self.dots["raw"].set_data(self.dot_x, raw.ravel())
        self.dots["done"].set_data(self.dot_x, done.ravel())
        self.means["raw"].set_data(self.positions, raw.mean(axis=0))
        self.means["done"].set_data(self.positions, done.mean(axis=0))
        # Limits for every protocol at once: a click on another one keeps them.
        low = min(float(kind["raw"].min()) for kind in every.values()) / users
        high = max(float(kind[name].max()) for kind in every.values() for name in kind) / users
        bottom = -roomy(-1.05 * low) if low < -0.01 else -0.01
        follow_limits(self, self.axes[0], ylim=(bottom, roomy(1.05 * high)), count=8)
        self.note.set_text(_(DONE_TITLES[post_processing]))
        errors = {name: _errors(runs[name] / users) for name in ("raw", CLIP, PROJECT)}
        self.state = dict(
            epsilon=epsilon,
            users=users,
            protocol=protocol,
            post_processing=post_processing,
            negative=float(np.mean(raw < 0)),
            fractional=float(np.mean(raw != np.round(raw * users) / users)),
            errors=errors,
        )

    def numbers(self):
        """The readout beside FREQ-4: negative estimates, each kind's bias and error."""
        s, errors = self.state, self.state["errors"]
        return {
            N_("share of negative estimates"): s["negative"],
            N_("raw: bias on the rarest category"): errors["raw"][0],
            N_("raw: root mean square error"): errors["raw"][1],
            N_("clipped: bias on the rarest category"): errors[CLIP][0],
            N_("clipped: root mean square error"): errors[CLIP][1],
            N_("projected: bias on the rarest category"): errors[PROJECT][0],
            N_("projected: root mean square error"): errors[PROJECT][1],
        }

    def description(self):
        """FREQ-4 in words for a reader who cannot see it, with the current numbers."""
        s, errors = self.state, self.state["errors"]
        return _(
            "{protocol}, ε = {epsilon:g}: {runs} seeded runs of {users:,} users in eight "
            "categories from 40 % down to 3 %. Left, the unbiased estimates of the shares: "
            "{negative:.1%} are negative. Right, {post_processing}. On the rarest category "
            "(3 %) the bias is {raw:+.4f} raw, {clip:+.4f} clipped and renormalised, "
            "{project:+.4f} projected; root mean square errors {raw_error:.4f}, "
            "{clip_error:.4f}, {project_error:.4f}."
        ).format(
            runs=RUNS,
            users=s["users"],
            protocol=_(SPOKEN_NAMES[PROTOCOL_NAMES[s["protocol"]]]),
            epsilon=s["epsilon"],
            negative=s["negative"],
            post_processing=_(DONE_TITLES[s["post_processing"]]),
            raw=errors["raw"][0],
            clip=errors[CLIP][0],
            project=errors[PROJECT][0],
            raw_error=errors["raw"][1],
            clip_error=errors[CLIP][1],
            project_error=errors[PROJECT][1],
        )


# ---------------------------------------------------------------------------
# FREQ-5: the exact variance with the true count
# ---------------------------------------------------------------------------

#: FREQ-5's setting: d categories, n users, and the simulated runs with their seed.
EXACT_CATEGORIES, EXACT_USERS = 4, 1000
SIMULATED_RUNS, SIMULATION_SEED = 10_000, 5
#: Most bins of FREQ-5's histogram, and the top of its relative density axis.
MOST_BINS = 80
RELATIVE_TOP = 1.35


@functools.lru_cache(maxsize=1)
def _uniforms():
    """Two fixed rows of uniforms: each run's draw from its two binomials (see below)."""
    return np.random.default_rng(SIMULATION_SEED).random((2, SIMULATED_RUNS))


def _binomial_quantiles(uniforms, trials, probability):
    """Binomial(trials, probability) quantiles of uniforms, by a search in its cdf."""
    cdf = stats.binom.cdf(np.arange(trials + 1), trials, probability)
    return np.minimum(np.searchsorted(cdf, uniforms, side="left"), trials)


def simulated_estimates(p, q, users, count):
    """SIMULATED_RUNS seeded runs of n reports: (the supports of v, c-hat) of each run.

    The supports of the category are Binomial(c, p) + Binomial(n - c, q) whatever the
    protocol; each run draws its two by inverting their cdf at two fixed uniforms, so
    moving a slider moves the same runs.
    """
    first, second = _uniforms()
    supports = _binomial_quantiles(first, count, p) + _binomial_quantiles(second, users - count, q)
    return supports, (supports - users * q) / (p - q)


@register
class ExactVariance(Explorer):
    """FREQ-5: c-hat's exact variance with the true count c, against a seeded simulation.

    n = 1000 users, d = 4 categories, c of them holding the category counted; the
    protocol's p and q (``local_frequency.protocol_parameters``) and the exact variance
    Var[c-hat] = n q (1 - q)/(p - q)^2 + c (1 - p - q)/(p - q)
    (``local_frequency.frequency_variance``). Histogram: c-hat - c over SIMULATED_RUNS
    seeded runs (``simulated_estimates``), on bins that follow c-hat's lattice of steps
    1/(p - q); curve: the normal density of that variance.

    Taught in: 17-count-categories-with-local-noise.ipynb
    """

    figure_id = "FREQ-5"
    title = N_("The exact variance with the true count, against a simulation")
    controls = {
        "epsilon": FREQUENCY_EPSILON,
        "count": COUNT.replace(maximum=EXACT_USERS, description=N_("users holding the category")),
        "protocol": PROTOCOL,
    }
    defaults = {"epsilon": 1.0, "count": 300, "protocol": DIRECT}
    figsize = (10.0, 3.9)

    def _build(self):
        ax = self.axes = self.figure.subplots()
        self.histogram = ax.stairs(
            [0.0], [-0.5, 0.5], fill=True, color=BLUE, alpha=0.35, hatch="//", ec=BLUE, lw=0
        )
        (self.density,) = ax.plot([], [], color=ORANGE, lw=2.2)
        (self.spread,) = ax.plot([], [], color=BAD_COLOR, ls="--", lw=1.2)
        # The x-axis follows the spread at every setting: its numbers are glyph markers
        # (``MovingXAxis``); the density is drawn relative to the normal's peak, so that
        # the y-axis never changes.
        self.x_axis = MovingXAxis(ax, self.moving)
        static_xlabel(ax, _(r"estimate minus true count, $\hat c - c$"))
        ax.set_ylim(0.0, RELATIVE_TOP)
        ax.set_ylabel(_("density, the normal's peak = 1"))
        ax.set_title(
            _("FREQ-5 · {runs:,} seeded runs of n = {users} users, and Var[ĉ]").format(
                runs=SIMULATED_RUNS, users=EXACT_USERS
            )
        )
        legend_beside(
            ax,
            [
                Patch(
                    fc=BLUE, alpha=0.35, hatch="//", ec=BLUE, label=_("simulated runs")
                ),  # fmt: skip
                Line2D([], [], color=ORANGE, lw=2.2, label=_("normal, variance Var[ĉ]")),
                Line2D([], [], color=BAD_COLOR, ls="--", label=_("± one standard deviation")),
            ],
        )
        self.moving(self.histogram, self.density, self.spread)

    def _apply(self, epsilon, count, protocol):
        name = PROTOCOL_NAMES[protocol]
        p, q = local_frequency.protocol_parameters(name, epsilon, EXACT_CATEGORIES)
        p, q = float(p), float(q)
        variance = float(local_frequency.frequency_variance(p, q, EXACT_USERS, count))
        deviation = math.sqrt(variance)
        half = roomy(4.0 * deviation)
        self.x_axis.set_limits(-half, half)
        # Densities times the normal's peak height: its peak at 1 whatever the variance.
        peak = 1.0 / math.sqrt(2 * math.pi * variance)
        supports, estimates = simulated_estimates(p, q, EXACT_USERS, count)
        gap = p - q
        # Bins of a whole number of c-hat's steps 1/(p - q), centred on its values.
        centre = EXACT_USERS * q + gap * count
        lowest = math.floor(centre - gap * half)
        highest = math.ceil(centre + gap * half)
        width = max(1, math.ceil((highest - lowest) / MOST_BINS))
        support_edges = np.arange(lowest - 0.5, highest + width, width)
        counts, _unused = np.histogram(supports, bins=support_edges)
        edges = (support_edges - EXACT_USERS * q) / gap - count
        self.histogram.set_data(counts / (SIMULATED_RUNS * width / gap) / peak, edges)
        errors = np.linspace(-half, half, 401)
        self.density.set_data(errors, stats.norm.pdf(errors, scale=deviation) / peak)
        self.spread.set_data(
            [-deviation, -deviation, np.nan, deviation, deviation],
            [0, RELATIVE_TOP, np.nan, 0, RELATIVE_TOP],
        )
        self.state = dict(
            epsilon=epsilon,
            count=count,
            protocol=protocol,
            p=p,
            q=q,
            variance=variance,
            users_part=EXACT_USERS * q * (1 - q) / gap**2,
            count_part=count * (1 - p - q) / gap,
            simulated=float(np.var(estimates)),
            mean=float(np.mean(estimates) - count),
        )

    def numbers(self):
        """The readout beside FREQ-5: p, q, the exact variance, its two parts, the runs'."""
        s = self.state
        return {
            "$p$": s["p"],
            "$q$": s["q"],
            N_(r"exact Var$[\hat c]$"): s["variance"],
            N_("of which the n users"): s["users_part"],
            N_("of which the true count c"): s["count_part"],
            N_("variance of the runs"): s["simulated"],
            N_(r"mean of the runs' $\hat c - c$"): s["mean"],
        }

    def description(self):
        """FREQ-5 in words for a reader who cannot see it, with the current numbers."""
        s = self.state
        return _(
            "{protocol}, d = 4, ε = {epsilon:.3g}, n = 1000 users of whom c = {count} hold "
            "the category: p = {p:.10f}, q = {q:.10f}. The exact variance Var[ĉ] = "
            "{variance:.6f} is {users_part:.6f} from the n users plus {count_part:.6f} from "
            "c; the histogram of ĉ − c over {runs:,} seeded runs has variance {simulated:.2f} "
            "and follows the normal density of Var[ĉ] (curve; dashed, ± one standard "
            "deviation)."
        ).format(
            protocol=_(SPOKEN_NAMES[PROTOCOL_NAMES[s["protocol"]]]),
            epsilon=s["epsilon"],
            count=s["count"],
            p=s["p"],
            q=s["q"],
            variance=s["variance"],
            users_part=s["users_part"],
            count_part=s["count_part"],
            runs=SIMULATED_RUNS,
            simulated=s["simulated"],
        )
