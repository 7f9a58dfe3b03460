"""Figures PLRV-1 to PLRV-3, PLRV-ODDS and PLRV-10: the privacy loss random variable.

The Laplace figures of lesson 01 and the distinguishing events of lesson 03 are here, with
the setting, controls, shaded regions and base class that the Gaussian figures of lesson 02
(PLRV-4 to PLRV-9, PLRV-PROOF, in ``dplearn.figures.delta``) share. Every figure is an
``Explorer`` (artists built once, changed in place). The numbers they show come from
``dplearn.privacy_loss`` (the discretised outputs on which a reader checks that the worst
set of outputs gives exactly delta_2, too); the helpers below only turn them into things
to draw (the shaded regions, on the grids of ``dplearn.figures.grids``).

The lessons' setting: counts 1000 (D1, the true one) and 1001 (D2), Laplace noise
of scale 1/ln 3 or Gaussian noise of variance 3, epsilon = ln 3.

Taught in: 01-measure-privacy-loss.ipynb, 02-see-what-delta-means.ipynb,
03-spot-distinguishing-events.ipynb
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from matplotlib import transforms
from matplotlib.patches import Polygon

from dplearn import privacy_loss
from dplearn.figures.controls import (
    EPSILON,
    PRIOR_ODDS,
    SCALE,
    SENSITIVITY,
    SIGMA,
    THRESHOLD,
    Control,
)
from dplearn.figures.explorers import Explorer, register, spoken
from dplearn.figures.grids import probability_positions
from dplearn.figures.sliders import exponent_control
from dplearn.figures.style import (
    AREA_COLOR,
    BAD_COLOR,
    BLUE,
    GREEN,
    GREY,
    GUIDE_GREY,
    ORANGE,
    readable,
)
from dplearn.figures.text import MovingXAxis, static_xlabel
from dplearn.figures.text import value_text as _value_text
from dplearn.language import N_
from dplearn.language import gettext as _
from dplearn.privacy_loss import (
    laplace_step_widths,
    posterior_odds,
)

__all__ = [
    "COUNT_D1",
    "DOCUMENT_EPSILON",
    "LAPLACE_SCALE",
    "GAUSSIAN_SIGMA",
    "MARKED_OUTPUTS",
    "BAD_POSITIONS",
    "probability_positions",
    "bad_event_region",
    "delta_area_region",
    "RandomOutputSets",
]

#: The lessons' setting.
COUNT_D1 = 1000
DOCUMENT_EPSILON = float(np.log(3.0))
LAPLACE_SCALE = 1.0 / DOCUMENT_EPSILON
GAUSSIAN_SIGMA = float(np.sqrt(3.0))
MARKED_OUTPUTS = (999.0, 1000.5, 1003.0)
#: Probability positions of PLRV-8's two bad outputs: a little bad, catastrophic.
BAD_POSITIONS = (0.045, 0.002)
CATEGORY_THRESHOLD = 5.0
CATEGORY_COUNT = 1.0

D1_COLOR = BLUE
D2_COLOR = ORANGE
MARK_COLORS = (GREEN, GREY, "#8c564b")

# Output axes show D1's count +-10: the count slider moves both curves inside it.
OUTPUT_LIMITS = (990.0, 1011.0)
COUNT = Control(N_(r"count of $D_1$"), 995, 1005, integer=True, description=N_("true count in D1"))
LAPLACE_SCALE_CONTROL = SCALE.replace(minimum=0.25, maximum=5.0)
GAUSSIAN_SIGMA_CONTROL = SIGMA.replace(minimum=0.5, maximum=5.0)
SENSITIVITY_CONTROL = SENSITIVITY.replace(minimum=0.25, maximum=4.0)
# e^epsilon must stay on the e^L axes (their top is 14).
GAUSSIAN_EPSILON = EPSILON.replace(minimum=0.05, maximum=2.5)


@dataclass(frozen=True)
class DecimalControl(Control):
    """A linear slider whose readout shows ``decimals`` decimals, as the figure uses it.

    With the default readout (four significant digits) an output of 1000.5 reads "1001"
    on the slider while the figure, the text and the table use 1000.5.
    """

    decimals: int = 1

    def slider(self, value, name=None):
        """The slider of ``Control``, its readout showing ``decimals`` decimals."""
        slider = super().slider(value, name)
        slider.readout_format = f".{self.decimals}f"
        return slider

    def shown(self, value):
        """The value as the slider and the readout show it."""
        return f"{float(value):.{self.decimals}f}"


OUTPUT_CONTROL = DecimalControl(
    N_(r"output $O$"), *OUTPUT_LIMITS, step=0.1, description=N_("a marked output"), decimals=1
)
# Read out in e-notation: the default readout wrote 1e-4 as "0.0001000", past its box.
POSITION_CONTROL = exponent_control(
    Control(
        N_(r"position $x$"),
        1e-4,
        0.5,
        log=True,
        description=N_("probability position of a marked output"),
    ),
    digits=3,
)
# Names shared by several readouts and labels (mathtext in figures, MathJax in readouts).
DELTA1_NAME = r"$\delta_1 = \Pr[\mathcal{L} > \varepsilon]$"
DELTA2_NAME = r"$\delta_2 = \delta(\varepsilon)$"
DELTA1_WIDTH_NAME = N_(r"$\delta_1 = \Pr[\mathcal{L} > \varepsilon]$ (width)")
DELTA2_AREA_NAME = N_(r"$\delta_2 = \mathbb{E}[\max(0, 1 - e^{\varepsilon - \mathcal{L}})]$ (area)")
RATIO_TEXT = r"$e^{\varepsilon}/e^{\mathcal{L}}$"
CAPPED_RATIO_TEXT = r"$\min(1,\ e^{\varepsilon}/e^{\mathcal{L}})$"
# Text that moves with a slider is plain Unicode (ℒ for the privacy loss): mathtext
# parses every new string again, which costs more than a whole frame.
_SUBSCRIPT_O = ("O₁", "O₂", "O₃")
# A display cap for e^L: large enough to leave every axes, small enough never to overflow.
_LOSS_CAP = 40.0


def _capped_exp(values, cap=_LOSS_CAP):
    with np.errstate(over="ignore"):
        return np.exp(np.clip(values, -cap, cap))


def output_density_lines(ax):
    """The two empty output-density lines of A(D1) and A(D2), labelled, on ax."""
    (line_d1,) = ax.plot([], [], color=D1_COLOR, lw=2, label=_(r"$\mathcal{A}(D_1)$: true count"))
    (line_d2,) = ax.plot(
        [], [], color=D2_COLOR, lw=2, ls="--", label=_(r"$\mathcal{A}(D_2)$: count + $\Delta$")
    )
    return line_d1, line_d2


def bad_event_region(noise, epsilon, top):
    """Vertices of the bad events of PLRV-7: between e^L and e^epsilon where e^L > e^epsilon.

    x is the probability position, from 0 to delta_1 = P[L > epsilon] (so the width of
    the region is delta_1); y runs from e^epsilon up to e^L, cut at ``top``.

    Taught in: 02-see-what-delta-means.ipynb
    """
    width = noise.loss_exceeds(epsilon)
    positions = probability_positions(width, 200)
    curve = np.minimum(_capped_exp(noise.loss_quantile(positions)), top)
    line = np.exp(min(epsilon, _LOSS_CAP))
    curve = np.maximum(curve, line)
    x = np.concatenate((positions, positions[::-1]))
    y = np.concatenate((curve, np.full(positions.shape, line)))
    return np.column_stack((x, y))


def delta_area_region(noise, epsilon, count=600):
    """Vertices of PLRV-9's shaded region: between e^epsilon/e^L and 1 over the bad events.

    Its area is the integral over p in [0, delta_1] of 1 - e^(epsilon - L(p)), which is
    delta_2 = ``noise.delta(epsilon)``.

    Taught in: 02-see-what-delta-means.ipynb
    """
    width = noise.loss_exceeds(epsilon)
    positions = probability_positions(width, count)
    curve = np.minimum(_capped_exp(epsilon - noise.loss_quantile(positions)), 1.0)
    x = np.concatenate((positions, positions[::-1]))
    y = np.concatenate((curve, np.ones(positions.shape)))
    return np.column_stack((x, y))


class RandomOutputSets:
    """Many sets of bins drawn once, in families, to compare with the worst set.

    Families: cuts {O < c} with c near the boundary; the worst set with bins removed;
    the worst set with bins added; random intervals; random bins of the window. The
    random numbers are drawn here, once; ``members(worst)`` builds the sets for a
    given worst set, so moving a slider reuses the same draws.

    Taught in: 02-see-what-delta-means.ipynb
    """

    #: The families' names, English (``N_``): the figure that shows them translates them.
    families = (
        N_(r"cut $\{O < c\}$, $c$ near the boundary"),
        N_("worst set minus random bins"),
        N_("worst set plus random bins"),
        N_("random interval of bins"),
        N_("random bins"),
    )

    def __init__(self, bins, per_family=60, *, rng):
        size = bins + 2  # the two tail bins too
        self.size = size
        self.per_family = per_family
        index = np.arange(size)
        middle = size // 2
        cuts = middle + np.rint(rng.normal(0.0, bins / 16, per_family)).astype(int)
        cuts[cuts == middle] += 1  # that cut is the worst set itself
        self._cuts = index[None, :] < np.clip(cuts, 1, size - 1)[:, None]
        # The worst set is the bins left of the middle edge (see discretise_outputs):
        # each of these sets drops at least one of them, or adds at least one other.
        rows = np.arange(per_family)
        self._keep = rng.uniform(size=(per_family, size)) < rng.uniform(0.6, 1.0, (per_family, 1))
        self._keep[rows, rng.integers(0, middle, per_family)] = False
        self._add = rng.uniform(size=(per_family, size)) < rng.uniform(0.0, 0.05, (per_family, 1))
        self._add[rows, rng.integers(middle, size, per_family)] = True
        ends = np.sort(rng.integers(0, size, (per_family, 2)), axis=1)
        self._intervals = (index[None, :] >= ends[:, :1]) & (index[None, :] <= ends[:, 1:])
        self._random = rng.uniform(size=(per_family, size)) < 0.5
        self.jitter = rng.uniform(-0.3, 0.3, len(self.families) * per_family)

    def members(self, worst):
        """Boolean array (families * per_family, bins + 2) of the sets, given the worst set."""
        worst = np.asarray(worst, dtype=bool)[None, :]
        return np.concatenate(
            (
                self._cuts,
                worst & self._keep,
                worst | self._add,
                self._intervals,
                self._random,
            )
        )

    def family_rows(self):
        """Row (0, 1, ...) of each set's family, for a strip plot."""
        return np.repeat(np.arange(len(self.families)), self.per_family)


def _factor_text(ratio):
    """How odds move: "×3" for a ratio of 3, "÷3" for 1/3."""
    if ratio >= 1:
        return f"×{_value_text(ratio)}"
    return f"÷{_value_text(1.0 / ratio)}"


def _odds_text(odds):
    """Odds as "3 : 1" or "1 : 3"."""
    if odds >= 1:
        return f"{_value_text(odds)} : 1"
    return f"1 : {_value_text(1.0 / odds)}"


def _fraction_text(value):
    """A width as a simple fraction when it is one (1/3), else 4 significant digits."""
    fraction = Fraction(value).limit_denominator(12)
    if fraction.denominator > 1 and abs(value - fraction) < 1e-9:
        return f"{fraction} = {value:.4g}"
    return f"{value:.4g}"


class _Figure(Explorer):
    """Explorer whose artists are created in ``_create``.

    Titles and legends stay in the cached static layer (the base class puts them
    below the moving artists): drawing text is most of the cost of a frame, so legends
    sit where the curves rarely go.
    """

    def _build(self):
        self._create()

    def _create(self):
        raise NotImplementedError


# ---------------------------------------------------------------------------
# Laplace noise: PLRV-1 to PLRV-3 and the attacker's odds
# ---------------------------------------------------------------------------


class _LaplaceOutputs(_Figure):
    """Shared parts of the figures drawn against the output of the Laplace mechanism."""

    def _noise(self, scale, sensitivity, count):
        return privacy_loss.laplace(scale, sensitivity, center=count)


@register
class LaplaceDensities(_LaplaceOutputs):
    """PLRV-1: densities of A(D1) and A(D2) with three outputs and the odds they give.

    D1's count stays at 1000: the three outputs are where the text puts them, and only
    their distances to the two counts matter (a count slider would move the curves away
    from the marks, which would then all read the same factor).

    Taught in: 01-measure-privacy-loss.ipynb
    """

    figure_id = "PLRV-1"
    title = N_("Laplace noise: two counts, three outputs")
    controls = {
        "scale": LAPLACE_SCALE_CONTROL,
        "sensitivity": SENSITIVITY_CONTROL,
        "output1": OUTPUT_CONTROL.replace(label=r"$O_1$"),
        "output2": OUTPUT_CONTROL.replace(label=r"$O_2$"),
        "output3": OUTPUT_CONTROL.replace(label=r"$O_3$"),
    }
    defaults = {
        "scale": LAPLACE_SCALE,
        "sensitivity": 1.0,
        "output1": MARKED_OUTPUTS[0],
        "output2": MARKED_OUTPUTS[1],
        "output3": MARKED_OUTPUTS[2],
    }
    figsize = (9.0, 3.8)

    def _create(self):
        ax = self.axes = self.figure.subplots()
        self.grid = np.linspace(*OUTPUT_LIMITS, 1051)
        self.line_d1, self.line_d2 = output_density_lines(ax)
        self.marks = []
        # Labels in a row just above the axes, x in data units, y in axes units: inside,
        # the densities' peaks (2 at the smallest scale) would run through them.
        above = transforms.blended_transform_factory(ax.transData, ax.transAxes)
        # Staggered rows, so that labels of nearby outputs do not overlap.
        self.rows = (1.015, 1.085, 1.015)
        for color, row in zip(MARK_COLORS, self.rows, strict=True):
            (stem,) = ax.plot([], [], color=color, lw=1, ls=":", transform=above)
            (dots,) = ax.plot([], [], "o", color=color, ms=6)
            label = ax.text(
                0,
                row,
                "",
                color=readable(color),
                ha="center",
                va="bottom",
                fontsize=9,
                transform=above,
            )
            self.marks.append((stem, dots, label))
            self.moving(stem, dots, label)
        self.moving(self.line_d1, self.line_d2)
        ax.set_xlim(*OUTPUT_LIMITS)
        # A margin below 0: a dot at a density near 0 shows whole.
        ax.set_ylim(-0.03, 1.2)
        ax.set_xlabel(_(r"output $O$ of the noisy count"))
        ax.set_ylabel(_("density"))
        ax.set_title(
            _(
                r"PLRV-1 · Laplace noise: "
                r"$\Pr[\mathcal{A}(D_1) = O]$ and $\Pr[\mathcal{A}(D_2) = O]$"
            ),
            pad=30,  # room for the two rows of labels
        )
        ax.legend(loc="upper right", fontsize=9)

    def _apply(self, scale, sensitivity, output1, output2, output3):
        noise = self._noise(scale, sensitivity, COUNT_D1)
        d1, d2 = noise.density_d1(self.grid), noise.density_d2(self.grid)
        outputs = np.array([output1, output2, output3], dtype=float)
        o_d1, o_d2 = noise.density_d1(outputs), noise.density_d2(outputs)
        ratios = _capped_exp(noise.privacy_loss(outputs))
        self.noise, self.outputs, self.ratios = noise, outputs, ratios
        self.line_d1.set_data(self.grid, d1)
        self.line_d2.set_data(self.grid, d2)
        for index, (stem, dots, label) in enumerate(self.marks):
            stem.set_data([outputs[index]] * 2, [0, 1])
            dots.set_data([outputs[index]] * 2, [o_d1[index], o_d2[index]])
            # Near an edge of the axes the label leans inwards, inside the figure.
            label.set_x(outputs[index])
            if outputs[index] > OUTPUT_LIMITS[1] - 2.0:
                label.set_ha("right")
            elif outputs[index] < OUTPUT_LIMITS[0] + 2.0:
                label.set_ha("left")
            else:
                label.set_ha("center")
            label.set_text(f"{_SUBSCRIPT_O[index]}: {_factor_text(ratios[index])}")

    def description(self):
        """PLRV-1 in words for a reader who cannot see it, with the current numbers."""
        say, p = self.reader(), self.params
        return _(
            "The densities of two noisy counts, 1000 and {count_d2}, with Laplace noise of "
            "scale b = {scale}, and three outputs marked. The ratio of the two densities is "
            "{ratio_1} at {output_1}, {ratio_2} at {output_2} and {ratio_3} at {output_3}: "
            "never beyond e^ε with ε = Δ/b = {epsilon}."
        ).format(
            count_d2=spoken(1000 + p["sensitivity"]),
            scale=spoken(p["scale"]),
            ratio_1=say("= O_1]"),
            output_1=say("$O_1$"),
            ratio_2=say("= O_2]"),
            output_2=say("$O_2$"),
            ratio_3=say("= O_3]"),
            output_3=say("$O_3$"),
            epsilon=say("varepsilon"),
        )

    def numbers(self):
        """The readout beside PLRV-1: the numbers it shows at the current setting."""
        result = {r"$\varepsilon = \Delta / b$": self.noise.max_loss}
        for index, output in enumerate(self.outputs):
            name = f"O_{index + 1}"
            # As the slider shows it (1000.5, not the table's four digits, 1000).
            result[f"${name}$"] = OUTPUT_CONTROL.shown(output)
            result[rf"$\Pr[\mathcal{{A}}(D_1) = {name}] / \Pr[\mathcal{{A}}(D_2) = {name}]$"] = (
                float(self.ratios[index])
            )
        return result


@register
class LaplaceLoss(_LaplaceOutputs):
    """PLRV-2: L(O) against the output: flat at +Delta/b, a diagonal, flat at -Delta/b.

    Taught in: 01-measure-privacy-loss.ipynb
    """

    figure_id = "PLRV-2"
    title = N_("Laplace noise: the privacy loss of each output")
    controls = {
        "scale": LAPLACE_SCALE_CONTROL,
        "sensitivity": SENSITIVITY_CONTROL,
        "count": COUNT,
        "epsilon": EPSILON.replace(minimum=0.05, maximum=5.0),
    }
    defaults = {
        "scale": LAPLACE_SCALE,
        "sensitivity": 1.0,
        "count": COUNT_D1,
        "epsilon": DOCUMENT_EPSILON,
    }
    figsize = (9.0, 3.6)

    def _create(self):
        ax = self.axes = self.figure.subplots()
        self.grid = np.linspace(*OUTPUT_LIMITS, 1051)
        ax.axhline(0.0, color=GUIDE_GREY, lw=0.8)
        (self.loss_line,) = ax.plot([], [], color=D1_COLOR, lw=2, label=r"$\mathcal{L}(O)$")
        (self.epsilon_line,) = ax.plot(
            OUTPUT_LIMITS, [0, 0], color=BAD_COLOR, ls="--", lw=1.2, label=r"$\varepsilon$"
        )
        (self.above,) = ax.plot(
            [], [], color=BAD_COLOR, lw=3, label=r"$\mathcal{L}(O) > \varepsilon$"
        )
        self.verdict = ax.text(
            0.01, 0.04, "", transform=ax.transAxes, fontsize=9, va="bottom", ha="left"
        )
        self.moving(self.loss_line, self.epsilon_line, self.above, self.verdict)
        ax.set_xlim(*OUTPUT_LIMITS)
        ax.set_ylim(-3.5, 3.5)
        ax.set_xlabel(_(r"output $O$  (left: helps the attacker most)"))
        ax.set_ylabel(_(r"privacy loss $\mathcal{L}(O)$"))
        ax.set_title(
            r"PLRV-2 · $\mathcal{L}(O) = "
            r"\ln\left(\Pr[\mathcal{A}(D_1) = O]\ /\ \Pr[\mathcal{A}(D_2) = O]\right)$"
        )
        ax.legend(loc="upper right", fontsize=9)

    def _apply(self, scale, sensitivity, count, epsilon):
        noise = self._noise(scale, sensitivity, count)
        loss = noise.privacy_loss(self.grid)
        exceeds = noise.loss_exceeds(epsilon)
        self.noise, self.epsilon, self.exceeds = noise, epsilon, exceeds
        self.loss_line.set_data(self.grid, loss)
        self.epsilon_line.set_ydata([epsilon, epsilon])
        bad = loss > epsilon
        self.above.set_data(self.grid[bad], loss[bad])
        if exceeds == 0:
            verdict = _("max ℒ = {max_loss} ≤ ε = {epsilon}")
        else:
            verdict = _("max ℒ = {max_loss} > ε = {epsilon}")
        self.verdict.set_text(
            verdict.format(max_loss=_value_text(noise.max_loss), epsilon=_value_text(epsilon))
        )

    def description(self):
        """PLRV-2 in words for a reader who cannot see it, with the current numbers."""
        say, p = self.reader(), self.params
        return _(
            "The privacy loss L against the output for Laplace noise of scale b = {scale}: "
            "flat at plus Δ/b = {max_loss} left of the count {count}, a straight slope "
            "between the two counts, flat at minus {max_loss} beyond. Against the line "
            "ε = {epsilon} the loss is larger with probability {probability}, so "
            "δ(ε) = {delta}."
        ).format(
            scale=spoken(p["scale"]),
            max_loss=say("max"),
            count=spoken(p["count"]),
            epsilon=spoken(p["epsilon"]),
            probability=say("Pr"),
            delta=say("delta("),
        )

    def numbers(self):
        """The readout beside PLRV-2: the numbers it shows at the current setting."""
        return {
            r"$\max \mathcal{L} = \Delta / b$": self.noise.max_loss,
            r"$\varepsilon$": float(self.epsilon),
            r"$\Pr[\mathcal{L} > \varepsilon]$": self.exceeds,
            r"$\delta(\varepsilon)$": self.noise.delta(self.epsilon),
        }


@register
class LaplaceLossByProbability(_Figure):
    """PLRV-3: e^L against the probability position: three parts of widths 1/2, 1/3, 1/6.

    Taught in: 01-measure-privacy-loss.ipynb
    """

    figure_id = "PLRV-3"
    title = N_("Laplace noise: e^L against probability")
    # Delta/b stays at most 4 here, so that both steps e^(+-Delta/b) stay on the axes.
    controls = {
        "scale": LAPLACE_SCALE_CONTROL.replace(minimum=0.5),
        "sensitivity": SENSITIVITY_CONTROL.replace(maximum=2.0),
        "epsilon": EPSILON.replace(minimum=0.05, maximum=1.6),
    }
    defaults = {"scale": LAPLACE_SCALE, "sensitivity": 1.0, "epsilon": DOCUMENT_EPSILON}
    figsize = (9.0, 3.8)
    #: The e^L axis (log scale): e^(+-4) with room for the brackets above.
    ratio_limits = (np.exp(-4.0) / 1.5, np.exp(4.0) * 6.0)

    def _create(self):
        ax = self.axes = self.figure.subplots()
        (self.curve,) = ax.plot([], [], color=D1_COLOR, lw=2, label=r"$e^{\mathcal{L}}$")
        (self.epsilon_line,) = ax.plot(
            [0, 1], [1, 1], color=BAD_COLOR, ls="--", lw=1.2, label=r"$e^{\varepsilon}$"
        )
        # Brackets along the top: x in data units, y in axes units.
        above = transforms.blended_transform_factory(ax.transData, ax.transAxes)
        self.brackets = []
        for color in MARK_COLORS:
            (bracket,) = ax.plot([], [], color=color, lw=2, marker="|", ms=10, transform=above)
            label = ax.text(
                0,
                0.9,
                "",
                color=readable(color),
                transform=above,
                ha="center",
                va="top",
                fontsize=9,
            )
            self.brackets.append((bracket, label))
            self.moving(bracket, label)
        self.moving(self.curve, self.epsilon_line)
        ax.set_xlim(0, 1)
        # Log scale: x3 and /3 are the same length, and every step the sliders reach fits.
        ax.set_yscale("log")
        ax.set_ylim(*self.ratio_limits)
        ax.set_xlabel(
            _(
                r"probability position $x$ "
                r"(outputs of $\mathcal{A}(D_1)$ sorted by decreasing $\mathcal{L}$)"
            )
        )
        ax.set_ylabel(_(r"$e^{\mathcal{L}}$  (how much the odds move)"))
        ax.set_title(
            _(
                r"PLRV-3 · $e^{\mathcal{L}}$ as a random variable: "
                r"width on the $x$-axis is probability"
            )
        )
        # Below the top step (e^L >= 1 for x < 1/2): the curve never passes there.
        ax.legend(loc="lower left", fontsize=9)

    def _apply(self, scale, sensitivity, epsilon):
        noise = privacy_loss.laplace(scale, sensitivity)
        widths = laplace_step_widths(noise)
        corners = np.cumsum((0.0, *widths))
        positions = np.unique(np.concatenate((np.linspace(0, 1, 801), corners)))
        self.noise, self.widths, self.epsilon = noise, widths, epsilon
        self.curve.set_data(positions, _capped_exp(noise.loss_quantile(positions)))
        self.epsilon_line.set_ydata([np.exp(epsilon)] * 2)
        for index, (bracket, label) in enumerate(self.brackets):
            left, right = corners[index], corners[index + 1]
            bracket.set_data([left, right], [0.94, 0.94])
            middle = (left + right) / 2
            # A narrow part near an edge: its label leans inwards, inside the axes.
            if middle > 0.92:
                label.set_x(right - 0.005)
                label.set_ha("right")
            elif middle < 0.08:
                label.set_x(left + 0.005)
                label.set_ha("left")
            else:
                label.set_x(middle)
                label.set_ha("center")
            label.set_text(_fraction_text(widths[index]))

    def description(self):
        """PLRV-3 in words for a reader who cannot see it, with the current numbers."""
        say, p = self.reader(), self.params
        return _(
            "e to the loss against the probability position for Laplace noise: a top step "
            "at {max_ratio} of width {top_width}, a middle part of width {middle_width}, a "
            "bottom step of width {bottom_width}, and the line e^ε at ε = {epsilon}. The "
            "loss exceeds ε with probability {probability}."
        ).format(
            max_ratio=say("max e"),
            top_width=say("top step"),
            middle_width=say("middle"),
            bottom_width=say("bottom"),
            epsilon=spoken(p["epsilon"]),
            probability=say("Pr"),
        )

    def numbers(self):
        """The readout beside PLRV-3: the numbers it shows at the current setting."""
        top, middle, bottom = self.widths
        return {
            N_(r"top step ($e^{\mathcal{L}} = e^{\Delta/b}$): width"): top,
            N_("middle part: width"): middle,
            N_(r"bottom step ($e^{\mathcal{L}} = e^{-\Delta/b}$): width"): bottom,
            r"$\max e^{\mathcal{L}}$": float(np.exp(self.noise.max_loss)),
            r"$\Pr[\mathcal{L} > \varepsilon]$": self.noise.loss_exceeds(self.epsilon),
        }


@register
class AttackerOdds(_LaplaceOutputs):
    """PLRV-ODDS: the attacker's odds of D1 against D2, before and after seeing O1, O2, O3.

    Taught in: 01-measure-privacy-loss.ipynb
    """

    figure_id = "PLRV-ODDS"
    title = N_("The attacker's odds before and after an output")
    controls = {
        "prior_odds": PRIOR_ODDS,
        "scale": LAPLACE_SCALE_CONTROL,
        "sensitivity": SENSITIVITY_CONTROL,
    }
    defaults = {"prior_odds": 1.0, "scale": LAPLACE_SCALE, "sensitivity": 1.0}
    figsize = (9.0, 3.8)
    limits = (1e-4, 1e4)
    #: The readout's names after O1, O2, O3, each whole so that it is translated as one.
    after_names = (
        (N_("posterior odds after $O_1$"), N_(r"$\Pr[D = D_1]$ after $O_1$")),
        (N_("posterior odds after $O_2$"), N_(r"$\Pr[D = D_1]$ after $O_2$")),
        (N_("posterior odds after $O_3$"), N_(r"$\Pr[D = D_1]$ after $O_3$")),
    )

    def _create(self):
        ax = self.axes = self.figure.subplots()
        ax.set_yscale("log")
        ax.axhline(1.0, color="0.5", lw=1)
        names = [
            _("before any output"),
            _(r"after $O_1 = 999$"),
            _(r"after $O_2 = 1000.5$"),
            _(r"after $O_3 = 1003$"),
        ]
        colors = ["0.55", *MARK_COLORS]
        self.bars = ax.bar(range(4), [1.0] * 4, bottom=1.0, color=colors, width=0.6)
        self.labels = [
            ax.text(index, 1.0, "", ha="center", va="bottom", fontsize=9) for index in range(4)
        ]
        self.moving(*self.bars, *self.labels)
        ax.set_xticks(range(4), names)
        ax.set_xlim(-0.6, 3.6)
        ax.set_ylim(*self.limits)
        ax.set_ylabel(_(r"odds $\Pr[D = D_1] : \Pr[D = D_2]$"))
        ax.set_title(_(r"PLRV-ODDS · posterior odds = prior odds $\times\ e^{\mathcal{L}(O)}$"))

    def _apply(self, prior_odds, scale, sensitivity):
        noise = self._noise(scale, sensitivity, COUNT_D1)
        losses = noise.privacy_loss(np.array(MARKED_OUTPUTS))
        odds = np.concatenate(([prior_odds], posterior_odds(prior_odds, losses)))
        self.noise, self.prior_odds, self.losses, self.odds = noise, prior_odds, losses, odds
        shown = np.clip(odds, *self.limits)
        for bar, label, value, top in zip(self.bars, self.labels, odds, shown, strict=True):
            bar.set_height(top - 1.0)
            label.set_position((bar.get_x() + bar.get_width() / 2, top))
            label.set_va("bottom" if value >= 1 else "top")
            label.set_text(_odds_text(value))

    def description(self):
        """PLRV-ODDS in words for a reader who cannot see it, with the current numbers."""
        say, p = self.reader(), self.params
        return _(
            "The attacker's odds of D₁ against D₂, {prior_odds} before any output, and after "
            "each of three outputs (Laplace scale {scale}): {odds_1} after O₁, {odds_2} after "
            "O₂ and {odds_3} after O₃. As chances of D₁: {chance_1}, {chance_2} and "
            "{chance_3}."
        ).format(
            prior_odds=say("prior odds"),
            scale=spoken(p["scale"]),
            odds_1=say("odds after $O_1"),
            odds_2=say("odds after $O_2"),
            odds_3=say("odds after $O_3"),
            chance_1=say("D_1]$ after $O_1"),
            chance_2=say("D_1]$ after $O_2"),
            chance_3=say("D_1]$ after $O_3"),
        )

    def numbers(self):
        """The readout beside PLRV-ODDS: the numbers it shows at the current setting."""
        result = {N_("prior odds"): float(self.prior_odds)}
        for index, (loss, odds) in enumerate(zip(self.losses, self.odds[1:], strict=True)):
            odds_name, chance_name = self.after_names[index]
            result[rf"$\mathcal{{L}}(O_{index + 1})$"] = float(loss)
            result[odds_name] = float(odds)
            result[chance_name] = float(odds / (1.0 + odds))
        return result


# ---------------------------------------------------------------------------
# Distinguishing events: PLRV-10
# ---------------------------------------------------------------------------


@register
class DistinguishingEvents(_Figure):
    """PLRV-10: thresholding; every published count is a distinguishing event (L = inf).

    e^epsilon / e^L (capped at 1, the part that counts in delta) is 0 on the published
    outputs and 1 elsewhere, so the area delta_2 equals the width delta_1.

    Taught in: 03-spot-distinguishing-events.ipynb
    """

    figure_id = "PLRV-10"
    title = N_("Distinguishing events: δ₁ = δ₂")
    controls = {
        # The threshold first: it is what changes delta here; epsilon does not.
        "threshold": THRESHOLD,
        "scale": LAPLACE_SCALE_CONTROL,
        "epsilon": EPSILON.replace(minimum=0.05, maximum=5.0),
    }
    defaults = {
        "epsilon": DOCUMENT_EPSILON,
        "threshold": CATEGORY_THRESHOLD,
        "scale": LAPLACE_SCALE,
    }
    figsize = (10.0, 4.0)
    #: The zoom's widths: the smallest that holds 2.5 times the published mass is shown.
    zooms = (*(float(f"{m * 10.0**e:g}") for e in range(-6, 0) for m in (1, 2, 5)), 1.0)
    zoom = 0.02

    @classmethod
    def zoom_for(cls, published):
        """The zoom's right end: the published block fills at most 40 % of it."""
        return next((zoom for zoom in cls.zooms if zoom >= 2.5 * published), 1.0)

    def _create(self):
        whole, zoomed = self.figure.subplots(1, 2, sharey=True)
        self.axes = (whole, zoomed)
        self.curves, self.areas = [], []
        for ax, right in ((whole, 1.0), (zoomed, self.zoom)):
            ax.axhline(1.0, color="0.4", lw=1)
            (curve,) = ax.plot([], [], color=D1_COLOR, lw=2, label=CAPPED_RATIO_TEXT)
            area = ax.add_patch(
                Polygon(
                    np.zeros((3, 2)),
                    color=AREA_COLOR,
                    alpha=0.45,
                    lw=0,
                    label=r"$\delta_1 = \delta_2$",
                )
            )
            self.curves.append(curve)
            self.areas.append(area)
            self.moving(curve, area)
            ax.set_xlim(0, right)
        whole.set_xlabel(_(r"probability position $x$"))
        # The zoom follows the published mass (a fixed x < 0.02 would be one solid block
        # at threshold 3): its ticks move with it.
        self.zoom_axis = MovingXAxis(zoomed, self.moving)
        static_xlabel(zoomed, _(r"probability position $x$ (zoom)"))
        # Above the ratio's cap at 1, left of the legend: the curve's step and its level
        # beyond the step (anywhere from 0 to 1) never reach there.
        self.note = zoomed.text(
            0.03,
            0.97,
            "",
            transform=zoomed.transAxes,
            va="top",
            fontsize=9,
            bbox={"facecolor": "white", "alpha": 0.9, "edgecolor": "0.8"},
        )
        self.moving(self.note)
        whole.set_ylim(0, 1.3)
        whole.set_ylabel(CAPPED_RATIO_TEXT)
        whole.set_title(_("PLRV-10 · thresholding (whole axis)"))
        zoomed.set_title(_(r"zoom on the published counts, $\mathcal{L} = \infty$"))
        zoomed.legend(loc="upper right", fontsize=9)

    def _apply(self, epsilon, threshold, scale):
        mechanism = privacy_loss.thresholded_laplace(scale, threshold, CATEGORY_COUNT)
        published = mechanism.published_probability
        width, delta = mechanism.loss_exceeds(epsilon), mechanism.delta(epsilon)
        # Capped at 1: above 1 a point adds nothing to delta (max(0, 1 - e^(eps - L)) = 0).
        rest = min(1.0, float(np.exp(min(epsilon - mechanism.absent_loss, _LOSS_CAP))))
        self.mechanism, self.epsilon, self.width, self.delta = mechanism, epsilon, width, delta
        for curve, area in zip(self.curves, self.areas, strict=True):
            curve.set_data([0, published, published, 1], [0, 0, rest, rest])
            area.set_xy([(0, 0), (published, 0), (published, 1), (0, 1)])
        self.zoom = self.zoom_for(published)
        self.zoom_axis.set_limits(0.0, self.zoom)
        delta_1, delta_2 = _value_text(width), _value_text(delta)
        if delta_1 == delta_2:
            note = _("at ε = {epsilon:.3g}:\nδ₁ = δ₂ = {delta_1}")
        else:
            note = _("at ε = {epsilon:.3g}:\nδ₁ = {delta_1}, δ₂ = {delta_2}")
        self.note.set_text(note.format(epsilon=epsilon, delta_1=delta_1, delta_2=delta_2))

    def description(self):
        """PLRV-10 in words for a reader who cannot see it, with the current numbers."""
        say, p = self.reader(), self.params
        return _(
            "e^ε over e^L, capped at 1, against the probability position for a count "
            "published only at or above the threshold {threshold} (Laplace scale {scale}, "
            "ε = {epsilon}): it is 0 over the published outputs, an event of probability "
            "{published} with infinite loss, and 1 elsewhere, so the area δ₂ = {delta_2} "
            "equals the width δ₁ = {delta_1}."
        ).format(
            threshold=spoken(p["threshold"]),
            scale=spoken(p["scale"]),
            epsilon=spoken(p["epsilon"]),
            published=say("threshold"),
            delta_2=say("delta_2"),
            delta_1=say("delta_1"),
        )

    def numbers(self):
        """The readout beside PLRV-10: the numbers it shows at the current setting."""
        return {
            N_(r"$\Pr[\text{count} + \mathrm{Lap}(b) \geq \text{threshold}]$"): (
                self.mechanism.published_probability
            ),
            DELTA1_NAME: self.width,
            DELTA2_NAME: self.delta,
            N_(r"$\mathcal{L}$ of a published count"): "∞",
            N_(r"$\mathcal{L}$ of “absent”"): self.mechanism.absent_loss,
        }
