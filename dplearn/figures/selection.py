"""Figures SEL-1 to SEL-5: choosing privately, and what selections cost.

SEL-1 draws the exponential mechanism's selection probabilities on two neighbours and
each candidate's privacy loss; SEL-2 the chance that report-noisy-max picks the best
candidate with each of three noises; SEL-3 the range of a selection's privacy loss;
SEL-4 four ways of paying for k selections; SEL-5 a private median. Every number comes
from ``dplearn.selection``, ``dplearn.zcdp`` and ``dplearn.composition``; this module
only draws.

Taught in: 12-choose-privately.ipynb
"""

from __future__ import annotations

import functools

import numpy as np
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from dplearn import composition, datasets, privacy_loss, selection, zcdp
from dplearn.figures.controls import DELTA, EPSILON, Choice, Control
from dplearn.figures.explorers import Explorer, register
from dplearn.figures.legends import legend_beside, style_handle
from dplearn.figures.sliders import exponent_control
from dplearn.figures.style import BAD_COLOR, BLUE, GREEN, GREY, GUIDE_GREY, ORANGE, PURPLE
from dplearn.language import N_, filled
from dplearn.language import gettext as _

__all__ = [
    "SCORES",
    "ExponentialMechanism",
    "NoisyMax",
    "BoundedRange",
    "ManySelections",
    "PrivateMedian",
]

#: The candidates' scores of lesson 12's figures (docs/figures.md): five candidates, the best 30.
SCORES = (30.0, 28.0, 20.0, 12.0, 10.0)
D1_COLOR = BLUE
D2_COLOR = ORANGE
LOSS_COLOR = "0.2"
BAND_COLOR = BAD_COLOR
NOISE_STYLES = {
    "laplace": dict(color=PURPLE, ls="--", marker="s", label=N_("Laplace noise")),
    "gumbel": dict(color=BLUE, ls="-", marker="o", label=N_("Gumbel = exponential mechanism")),
    "exponential": dict(
        color=GREEN, ls=":", marker="^", label=N_("exponential = permute-and-flip")
    ),
}

SELECTION_EPSILON = EPSILON.replace(minimum=0.05, maximum=10.0)
SCORE_SENSITIVITY = Control(
    r"$\Delta u$", 0.5, 5.0, log=True, description=N_("how much one person moves any score")
)
RUNNER_UP = Control(
    N_("score $u_2$"), 10.0, 30.0, step=0.5, description=N_("score of the second candidate")
)
SCORE_KIND = Choice(
    N_("scores"),
    (N_("general"), N_("monotone")),
    description=N_("monotone: all scores move one way"),
)


#: The accuracy readout's beta: the picked score is within the bound with probability 1 - beta.
BETA = 0.05


def _scores(runner_up):
    return (SCORES[0], float(runner_up), *SCORES[2:])


def _percent(value):
    return f"{value:.4f}"


#: The lesson's legends: beside the axes, a little smaller and farther out than the others.
_legend_beside = functools.partial(legend_beside, bbox_to_anchor=(1.02, 1.0), fontsize=8.5)


def _curves_and_marks(ax, styles):
    """A curve and a mark (the slider's setting) for each series of styles, drawn empty."""
    curves, marks = {}, {}
    for name, style in styles.items():
        (curves[name],) = ax.plot([], [], color=style["color"], ls=style["ls"], lw=2)
        (marks[name],) = ax.plot(
            [], [], color=style["color"], marker=style["marker"], ls="none", ms=8, mec="black",
            mew=0.6, clip_on=False,
        )  # fmt: skip
        # Unclipped: at a slider's end the mark sits on the spine, whole.
    return curves, marks


# ---------------------------------------------------------------------------
# SEL-1: the exponential mechanism on two neighbours, and each candidate's loss
# ---------------------------------------------------------------------------


@register
class ExponentialMechanism(Explorer):
    """SEL-1: the exponential mechanism's probabilities on D1 and D2, and each loss.

    D2 is the worst neighbour of D1, and the privacy loss of each candidate lies inside
    +-epsilon.

    D1 has the scores (30, u2, 20, 12, 10); D2 is the neighbour (every score moved by at
    most Delta u, all one way when monotone) that makes some candidate's loss largest. The
    losses are drawn and read out in units of epsilon; the readout also gives the accuracy
    bound of ``selection.accuracy_bound`` at beta = 5 %.

    Taught in: 12-choose-privately.ipynb
    """

    figure_id = "SEL-1"
    title = N_("The exponential mechanism: selection probabilities and their privacy loss")
    controls = {
        "epsilon": SELECTION_EPSILON,
        "sensitivity": SCORE_SENSITIVITY,
        "runner_up": RUNNER_UP,
        "kind": SCORE_KIND,
    }
    defaults = {"epsilon": 1.0, "sensitivity": 1.0, "runner_up": 28.0, "kind": "general"}
    figsize = (10.0, 3.7)
    width = 0.38

    def _build(self):
        left, right = self.figure.subplots(1, 2, width_ratios=(1.25, 1))
        self.axes = (left, right)
        positions = np.arange(len(SCORES))
        self.first_bars = left.bar(
            positions - self.width / 2, np.zeros(5), self.width, color=D1_COLOR
        ).patches
        self.second_bars = left.bar(
            positions + self.width / 2,
            np.zeros(5),
            self.width,
            color=D2_COLOR,
            hatch="//",
            edgecolor="white",
        ).patches
        left.set_xticks(positions, [f"{i + 1}" for i in positions])
        left.set_xlim(-0.6, 4.6)
        left.set_ylim(0, 1.0)
        left.set_xlabel(_("candidate r"))
        left.set_ylabel(_("P[r is picked]"))
        left.set_title(_("SEL-1 · selection probabilities"))
        left.legend(
            handles=[
                Patch(fc=D1_COLOR, label=_("D1: scores u")),
                Patch(fc=D2_COLOR, hatch="//", ec="white", label=_("D2: worst neighbour")),
            ],
            loc="upper right",
            fontsize=8.5,
        )
        right.axhline(0.0, color=GUIDE_GREY, lw=0.8)
        (self.upper,) = right.plot([-0.5, 4.5], [1, 1], color=BAND_COLOR, ls="--", lw=1.2)
        (self.lower,) = right.plot([-0.5, 4.5], [-1, -1], color=BAND_COLOR, ls="--", lw=1.2)
        (self.losses,) = right.plot(positions, np.zeros(5), "o-", color=LOSS_COLOR, lw=1.0, ms=7)
        right.set_xticks(positions, [f"{i + 1}" for i in positions])
        right.set_xlim(-0.5, 4.5)
        right.set_ylim(-1.15, 1.15)
        right.set_xlabel(_("candidate r"))
        right.set_ylabel(_(r"loss / $\varepsilon$"))
        right.set_title(_(r"privacy loss $\ln(P_1[r]/P_2[r])$, in units of $\varepsilon$"))
        _legend_beside(
            right,
            [
                Line2D([], [], color=LOSS_COLOR, marker="o", label=_("loss of each candidate")),
                Line2D([], [], color=BAND_COLOR, ls="--", label=r"$\pm\varepsilon$"),
            ],
        )
        self.moving(*self.first_bars, *self.second_bars, self.losses, self.upper, self.lower)

    def _apply(self, epsilon, sensitivity, runner_up, kind):
        scores = _scores(runner_up)
        monotone = kind == "monotone"
        lowest, highest, _lowest_pair, neighbour, _highest_pair = selection.worst_neighbours(
            scores, epsilon, sensitivity, monotone
        )
        first = selection.exponential_mechanism(scores, epsilon, sensitivity, monotone)
        second = selection.exponential_mechanism(neighbour, epsilon, sensitivity, monotone)
        for bar, height in zip(self.first_bars, first, strict=True):
            bar.set_height(height)
        for bar, height in zip(self.second_bars, second, strict=True):
            bar.set_height(height)
        pair = selection.loss_pair(scores, neighbour, epsilon, "gumbel", sensitivity, monotone)
        self.losses.set_ydata(pair.losses / epsilon)
        self.state = dict(
            first=first,
            epsilon=epsilon,
            lowest=lowest / epsilon,
            highest=highest / epsilon,
            neighbour=neighbour,
            monotone=monotone,
            bound=selection.accuracy_bound(len(scores), epsilon, BETA, sensitivity, monotone),
        )

    def numbers(self):
        """The readout beside SEL-1: the numbers it shows at the current setting.

        The losses are in units of epsilon, as on the right-hand axes.
        """
        s = self.state
        numbers = {f"$P_1[{r + 1}]$": float(p) for r, p in enumerate(s["first"])}
        numbers[N_(r"largest loss / $\varepsilon$, any neighbour")] = s["highest"]
        numbers[N_(r"smallest loss / $\varepsilon$, any neighbour")] = s["lowest"]
        bound = filled(N_("error bound at {percent:g} % (score units)"), percent=(1 - BETA) * 100)
        numbers[bound] = s["bound"]
        return numbers

    def description(self):
        """SEL-1 in words for a reader who cannot see it, with the current numbers."""
        s = self.state
        probabilities = ", ".join(_percent(p) for p in s["first"])
        if s["monotone"]:
            bars = _(
                "Bars: the exponential mechanism picks the five candidates with probabilities "
                "{probabilities} on D1 (blue), and differently on the neighbour D2 (orange, "
                "hatched) that moves the scores all one way."
            )
        else:
            bars = _(
                "Bars: the exponential mechanism picks the five candidates with probabilities "
                "{probabilities} on D1 (blue), and differently on the neighbour D2 (orange, "
                "hatched) that moves the scores apart."
            )
        return _(
            "{bars} "
            "Dots: each candidate's privacy loss in units of ε; over every neighbour it lies "
            "between {lowest:.4f}ε and {highest:.4f}ε, inside ±ε (ε = "
            "{epsilon:g}). With probability at least {percent:g} % the picked "
            "score is within {bound:.2f} of the best."
        ).format(
            bars=bars.format(probabilities=probabilities),
            lowest=s["lowest"],
            highest=s["highest"],
            epsilon=s["epsilon"],
            percent=(1 - BETA) * 100,
            bound=s["bound"],
        )


# ---------------------------------------------------------------------------
# SEL-2: the chance of picking the best, with three noises, against epsilon
# ---------------------------------------------------------------------------


@functools.lru_cache(maxsize=64)
def best_curves(runner_up, sensitivity, epsilons):
    """P[best] against epsilon for each noise (cached: a score slider redraws them)."""
    scores = _scores(runner_up)
    return {
        noise: np.array(
            [selection.win_probability(scores, e, noise, sensitivity) for e in epsilons]
        )
        for noise in selection.NOISES
    }


@register
class NoisyMax(Explorer):
    """SEL-2: report-noisy-max with Laplace, Gumbel and exponential noise.

    The noise has scale 2 Delta u / epsilon; the figure shows the exact probability of
    picking the best candidate against epsilon. Gumbel noise gives the exponential
    mechanism, exponential noise permute-and-flip, which is never below it.

    Taught in: 12-choose-privately.ipynb
    """

    figure_id = "SEL-2"
    title = N_("Report-noisy-max: the chance of picking the best, with three noises")
    controls = {
        "epsilon": SELECTION_EPSILON,
        "runner_up": RUNNER_UP.replace(on_release=True),
        "sensitivity": SCORE_SENSITIVITY.replace(on_release=True),
    }
    defaults = {"epsilon": 1.0, "runner_up": 28.0, "sensitivity": 1.0}
    figsize = (10.0, 3.6)
    grid = tuple(float(e) for e in np.geomspace(0.05, 10.0, 25))

    def _build(self):
        ax = self.axes = self.figure.subplots()
        self.curves, self.marks = _curves_and_marks(ax, NOISE_STYLES)
        (self.here,) = ax.plot([1, 1], [0, 1.05], color=GREY, lw=0.8, ls="-.")
        ax.set_xscale("log")
        ax.set_xlim(self.grid[0], self.grid[-1])
        ax.set_ylim(0.0, 1.05)
        ax.set_xlabel(_(r"$\varepsilon$ (noise scale $2\Delta u/\varepsilon$)"))
        ax.set_ylabel(_("P[the best candidate is picked]"))
        ax.set_title(_("SEL-2 · report-noisy-max at scores (30, $u_2$, 20, 12, 10)"))
        _legend_beside(
            ax,
            [style_handle(style, _(style["label"])) for style in NOISE_STYLES.values()]
            + [Line2D([], [], color=GREY, ls="-.", lw=0.8, label=_(r"slider's $\varepsilon$"))],
        )
        self.moving(*self.curves.values(), *self.marks.values(), self.here)

    def _apply(self, epsilon, runner_up, sensitivity):
        curves = best_curves(float(runner_up), float(sensitivity), self.grid)
        scores = _scores(runner_up)
        here = {}
        for noise in selection.NOISES:
            self.curves[noise].set_data(self.grid, curves[noise])
            here[noise] = selection.win_probability(scores, epsilon, noise, sensitivity)
            self.marks[noise].set_data([epsilon], [here[noise]])
        self.here.set_xdata([epsilon, epsilon])
        self.state = dict(here=here, epsilon=epsilon)

    def numbers(self):
        """The readout beside SEL-2: the numbers it shows at the current setting."""
        here = self.state["here"]
        return {
            N_("P[best], Laplace"): here["laplace"],
            N_("P[best], Gumbel (exp. mechanism)"): here["gumbel"],
            N_("P[best], exponential (permute-and-flip)"): here["exponential"],
        }

    def description(self):
        """SEL-2 in words for a reader who cannot see it, with the current numbers."""
        here = self.state["here"]
        if here["exponential"] >= max(here.values()):
            values = _(
                "At ε = {epsilon:.3g} it is {laplace:.4f} with "
                "Laplace noise (dashed, squares), {gumbel:.4f} with Gumbel noise, the "
                "exponential mechanism (solid, circles), and {exponential:.4f} with "
                "exponential noise, permute-and-flip (dotted, triangles), the highest."
            )
        else:
            values = _(
                "At ε = {epsilon:.3g} it is {laplace:.4f} with "
                "Laplace noise (dashed, squares), {gumbel:.4f} with Gumbel noise, the "
                "exponential mechanism (solid, circles), and {exponential:.4f} with "
                "exponential noise, permute-and-flip (dotted, triangles)."
            )
        return _(
            "Three curves of the chance that report-noisy-max picks the best candidate, "
            "against ε. {values}"
        ).format(values=values.format(epsilon=self.state["epsilon"], **here))


# ---------------------------------------------------------------------------
# SEL-3: bounded range
# ---------------------------------------------------------------------------

MECHANISMS = (N_("exponential mechanism"), N_("permute-and-flip"), N_("randomised response"))


@register
class BoundedRange(Explorer):
    """SEL-3: the privacy loss of each output on a pair of neighbours, for three mechanisms.

    All three are epsilon-DP. Two candidates have scores (0, s) on D1 and (-Delta u,
    s + Delta u) on D2, the pair on which the exponential mechanism's range is reached:
    its losses span exactly epsilon; permute-and-flip's span more; randomised response
    (two answers, truth told with probability e^epsilon / (1 + e^epsilon)) spans 2 epsilon.

    Taught in: 12-choose-privately.ipynb
    """

    figure_id = "SEL-3"
    title = N_("Bounded range: a selection's privacy loss spans at most epsilon")
    controls = {
        "epsilon": SELECTION_EPSILON.replace(maximum=5.0),
        "gap": Control(
            N_("score gap $s$"), -4.0, 4.0, step=0.25, description=N_("u_2 - u_1 on D1")
        ),
    }
    defaults = {"epsilon": 1.0, "gap": 0.0}
    figsize = (10.0, 3.6)

    def _build(self):
        ax = self.axes = self.figure.subplots()
        positions = np.arange(len(MECHANISMS))
        self.spans = [
            # Full colour, so that the range stands out 3:1 from the white; the black
            # points keep a white rim where they sit on it.
            ax.plot([p, p], [0, 0], color=color, lw=6, solid_capstyle="butt")[0]
            for p, color in zip(positions, (BLUE, GREEN, PURPLE), strict=True)
        ]
        self.points = [
            ax.plot([p, p], [0, 0], marker=marker, ls="none", color="black", mec="white", ms=8)[0]
            for p, marker in zip(positions, ("o", "^", "s"), strict=True)
        ]
        (self.upper,) = ax.plot([-0.5, 2.5], [1, 1], color=BAND_COLOR, ls="--", lw=1.2)
        (self.lower,) = ax.plot([-0.5, 2.5], [-1, -1], color=BAND_COLOR, ls="--", lw=1.2)
        ax.axhline(0.0, color=GUIDE_GREY, lw=0.8, zorder=1)
        ax.set_xticks(positions, [_(mechanism) for mechanism in MECHANISMS])
        ax.set_xlim(-0.5, 2.5)
        ax.set_ylim(-1.2, 1.2)
        ax.set_ylabel(_(r"privacy loss / $\varepsilon$"))
        ax.set_title(_("SEL-3 · the loss of each output, and the range it spans"))
        _legend_beside(
            ax,
            [
                Line2D([], [], color="black", marker="o", ls="none", label=_("loss of an output")),
                Line2D([], [], color=GREY, lw=6, label=_("its range")),
                Line2D([], [], color=BAND_COLOR, ls="--", label=r"$\pm\varepsilon$"),
            ],
        )
        self.moving(*self.spans, *self.points, self.upper, self.lower)

    def _apply(self, epsilon, gap):
        first, second = [0.0, gap], [-1.0, gap + 1.0]
        pairs = [
            selection.loss_pair(first, second, epsilon, "gumbel"),
            selection.loss_pair(first, second, epsilon, "exponential"),
            privacy_loss.randomized_response(float(np.exp(epsilon) / (1.0 + np.exp(epsilon)))),
        ]
        ranges = []
        for position, (pair, span, points) in enumerate(
            zip(pairs, self.spans, self.points, strict=True)
        ):
            values = pair.loss_atoms[0] / epsilon
            span.set_data([position, position], [values.min(), values.max()])
            points.set_data(np.full(values.size, position), values)
            ranges.append(float(values.max() - values.min()))
        self.state = dict(epsilon=epsilon, ranges=ranges, gap=gap)

    def numbers(self):
        """The readout beside SEL-3: the ranges, in units of epsilon as on the axes."""
        ranges = self.state["ranges"]
        return {
            N_(r"range / $\varepsilon$, exponential mechanism"): ranges[0],
            N_(r"range / $\varepsilon$, permute-and-flip"): ranges[1],
            N_(r"range / $\varepsilon$, randomised response"): ranges[2],
        }

    def description(self):
        """SEL-3 in words for a reader who cannot see it, with the current numbers."""
        ranges, epsilon = self.state["ranges"], self.state["epsilon"]
        return _(
            "For each mechanism at ε = {epsilon:.3g}, the privacy loss of each output (marks) "
            "and the range they span (bars), in units of ε. The exponential mechanism's "
            "losses span {exponential_range:.4f}ε, exactly ε; permute-and-flip's span "
            "{permute_range:.4f}ε; randomised response's span {response_range:.4f}ε, which is 2ε."
        ).format(
            epsilon=epsilon,
            exponential_range=ranges[0],
            permute_range=ranges[1],
            response_range=ranges[2],
        )


# ---------------------------------------------------------------------------
# SEL-4: paying for k selections
# ---------------------------------------------------------------------------

WAYS = {
    "basic": dict(color="0.4", ls="-", marker="D", label=N_(r"basic: $k\varepsilon$")),
    "advanced": dict(color=ORANGE, ls="--", marker="s", label=N_("advanced composition")),
    "generic": dict(
        color=PURPLE, ls="-.", marker="v", label=N_(r"zCDP, $\rho = \varepsilon^2/2$ each")
    ),
    "bounded": dict(
        color=BLUE, ls="-", marker="o", label=N_(r"zCDP, bounded range, $\varepsilon^2/8$")
    ),
}


def total_epsilons(epsilon, delta, ks):
    """epsilon at delta after each k of the four ways, as arrays."""
    ks = np.asarray(ks)
    return {
        "basic": ks * epsilon,
        "advanced": np.asarray(composition.advanced(epsilon, 0.0, ks, delta)[0]),
        "generic": np.asarray(zcdp.to_epsilon(ks * zcdp.pure_rho(epsilon), delta)),
        "bounded": np.asarray(zcdp.to_epsilon(ks * zcdp.bounded_range_rho(epsilon), delta)),
    }


@register
class ManySelections(Explorer):
    """SEL-4: epsilon at delta after k selections of epsilon each.

    Three bounds: basic composition, advanced composition, and zCDP with rho =
    epsilon^2 / 2 (any epsilon-DP mechanism) or epsilon^2 / 8 (a bounded-range one, such
    as the exponential mechanism), converted as in lesson 11 (minimised over the orders).

    Taught in: 12-choose-privately.ipynb
    """

    figure_id = "SEL-4"
    title = N_("Paying for many selections: four ways")
    controls = {
        "k": Control(N_("selections $k$"), 1, 1000, integer=True, log=True, description="k"),
        "epsilon": EPSILON.replace(
            label=N_(r"$\varepsilon$ each"),
            minimum=0.01,
            maximum=1.0,
            description=N_("per selection"),
        ),
        "delta": exponent_control(DELTA.replace(minimum=1e-10, maximum=1e-2), digits=1),
    }
    defaults = {"k": 100, "epsilon": 0.1, "delta": 1e-6}
    figsize = (10.0, 3.6)
    ks = np.unique(np.geomspace(1, 1000, 80).round())

    def _build(self):
        ax = self.axes = self.figure.subplots()
        self.curves, self.marks = _curves_and_marks(ax, WAYS)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlim(1, 1000)
        ax.set_ylim(1e-2, 1e3)
        ax.set_xlabel(_("number of selections $k$"))
        ax.set_ylabel(_(r"total $\varepsilon$ at $\delta$"))
        ax.set_title(_(r"SEL-4 · $\varepsilon$ after $k$ selections"))
        _legend_beside(
            ax,
            [style_handle(style, _(style["label"])) for style in WAYS.values()],
        )
        self.moving(*self.curves.values(), *self.marks.values())

    def _apply(self, k, epsilon, delta):
        curves = total_epsilons(epsilon, delta, self.ks)
        here = {way: float(value) for way, value in total_epsilons(epsilon, delta, k).items()}
        for way in WAYS:
            self.curves[way].set_data(self.ks, curves[way])
            self.marks[way].set_data([k], [here[way]])
        self.state = dict(here=here, k=k, epsilon=epsilon, delta=delta)

    def numbers(self):
        """The readout beside SEL-4: the numbers it shows at the current setting."""
        here = self.state["here"]
        return {
            N_(r"basic $k\varepsilon$"): here["basic"],
            N_("advanced"): here["advanced"],
            N_(r"zCDP, generic ($\varepsilon^2/2$)"): here["generic"],
            N_(r"zCDP, bounded range ($\varepsilon^2/8$)"): here["bounded"],
        }

    def description(self):
        """SEL-4 in words for a reader who cannot see it, with the current numbers."""
        s, here = self.state, self.state["here"]
        return _(
            "Total ε at δ = {delta:.3g} after k selections of ε = {epsilon:.3g} "
            "each, four ways. At k = {k}: basic composition {basic:.2f} "
            "(grey, diamonds), advanced {advanced:.2f} (dashed, squares), zCDP for "
            "any ε-DP mechanism {generic:.2f} (dash-dot, triangles) and for a "
            "bounded-range one {bounded:.2f} (blue, circles), the smallest."
        ).format(delta=s["delta"], epsilon=s["epsilon"], k=s["k"], **here)


# ---------------------------------------------------------------------------
# SEL-5: a private median
# ---------------------------------------------------------------------------

#: The candidates: 4.0 to 8.5 cm by 0.1 cm.
CANDIDATES = np.round(np.arange(40, 86) / 10.0, 1)
#: Seed of the Laplace histogram's draws (the exponential mechanism's law is exact).
HISTOGRAM_SEED = 12
HISTOGRAM_DRAWS = 4000


@functools.lru_cache(maxsize=1)
def _column():
    values = datasets.sepal_lengths()
    return values, float(np.median(values))


@functools.lru_cache(maxsize=256)
def histogram_law(epsilon):
    """The Laplace histogram median's frequencies over the candidates (seeded draws)."""
    values, _median = _column()
    draws = selection.sample_histogram_quantile(
        values, CANDIDATES, epsilon, rng=np.random.default_rng(HISTOGRAM_SEED), size=HISTOGRAM_DRAWS
    )
    index = np.searchsorted(CANDIDATES, np.round(draws, 1))
    return np.bincount(index, minlength=CANDIDATES.size) / HISTOGRAM_DRAWS


def median_errors(epsilon):
    """Expected |answer - true median| in cm of the exponential mechanism and a Laplace histogram.

    The exponential mechanism's comes from its exact law, the Laplace histogram's from its
    seeded frequencies.
    """
    values, median = _column()
    law = selection.quantile_probabilities(values, CANDIDATES, epsilon)
    distance = np.abs(CANDIDATES - median)
    return float(law @ distance), float(histogram_law(epsilon) @ distance), law


@register
class PrivateMedian(Explorer):
    """SEL-5: the median sepal length of Fisher's 150 iris flowers, privately.

    Bars: the exact law of the exponential mechanism over the candidates 4.0 to 8.5 cm (score:
    minus the distance in rank from the middle); steps: how often a median read off a
    Laplace histogram (noise 1 / epsilon per 0.1 cm bin) lands on each candidate.

    Taught in: 12-choose-privately.ipynb
    """

    figure_id = "SEL-5"
    title = N_("A private median: the exponential mechanism against a Laplace histogram")
    controls = {"epsilon": EPSILON.replace(minimum=0.02, maximum=5.0)}
    defaults = {"epsilon": 0.2}
    figsize = (10.0, 3.7)

    def _build(self):
        ax = self.axes = self.figure.subplots()
        _values, median = _column()
        self.bars = ax.bar(CANDIDATES, np.zeros(CANDIDATES.size), 0.08, color=D1_COLOR).patches
        (self.steps,) = ax.step([], [], where="mid", color="tab:red", lw=1.8, ls="--")
        ax.axvline(median, color="black", lw=1.0, ls=":")
        ax.set_xlim(CANDIDATES[0] - 0.1, CANDIDATES[-1] + 0.1)
        ax.set_ylim(0, 1.0)
        ax.set_xlabel(_("released median sepal length (cm)"))
        ax.set_ylabel(_("probability"))
        ax.set_title(_("SEL-5 · a private median of 150 iris flowers"))
        true_median = _("true median {median:.1f} cm").format(median=median)
        _legend_beside(
            ax,
            [
                Patch(fc=D1_COLOR, label=_("exponential mechanism (exact)")),
                Line2D([], [], color="tab:red", ls="--", lw=1.8, label=_("Laplace histogram")),
                Line2D([], [], color="black", ls=":", label=true_median),
            ],
        )
        self.moving(*self.bars, self.steps)

    def _apply(self, epsilon):
        mechanism_error, histogram_error, law = median_errors(epsilon)
        for bar, height in zip(self.bars, law, strict=True):
            bar.set_height(height)
        self.steps.set_data(CANDIDATES, histogram_law(epsilon))
        top = max(float(law.max()), float(histogram_law(epsilon).max()))
        self.state = dict(
            epsilon=epsilon,
            mechanism_error=mechanism_error,
            histogram_error=histogram_error,
            top=top,
        )

    def numbers(self):
        """The readout beside SEL-5: the numbers it shows at the current setting."""
        s = self.state
        return {
            N_("mean error, exponential mechanism (cm)"): s["mechanism_error"],
            N_("mean error, Laplace histogram (cm)"): s["histogram_error"],
        }

    def description(self):
        """SEL-5 in words for a reader who cannot see it, with the current numbers."""
        s = self.state
        if s["mechanism_error"] < s["histogram_error"]:
            verdict = _("the exponential mechanism wins here.")
        else:
            verdict = _("the Laplace histogram wins here.")
        return _(
            "At ε = {epsilon:.3g}, the exponential mechanism's median (bars) misses the "
            "true 5.8 cm by {mechanism_error:.3f} cm on average, the Laplace "
            "histogram's (dashed steps) by {histogram_error:.3f} cm: {verdict}"
        ).format(
            epsilon=s["epsilon"],
            mechanism_error=s["mechanism_error"],
            histogram_error=s["histogram_error"],
            verdict=verdict,
        )
