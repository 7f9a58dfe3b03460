"""Figures PLRV-4 to PLRV-9 and PLRV-PROOF: the Gaussian privacy loss, and what delta means.

The Gaussian half of the privacy loss figures (lesson 02): the densities and the loss of
Gaussian noise of variance 3 on the counts 1000 and 1001, e^L against the probability
position, delta_1 as the width of the bad events, delta_2 as an area, and the check on
discretised outputs that no set of outputs gives a larger delta than the bad events. The
setting, the controls and the base class are those of ``dplearn.figures.plrv`` (lessons 01
and 03); every number comes from ``dplearn.privacy_loss``.

Taught in: 02-see-what-delta-means.ipynb
"""

from __future__ import annotations

import numpy as np
from matplotlib import transforms
from matplotlib.patches import Polygon

from dplearn import _validation as check
from dplearn import privacy_loss
from dplearn.figures.controls import (
    EPSILON,
    SENSITIVITY,
    SIGMA,
)
from dplearn.figures.explorers import register, spoken
from dplearn.figures.grids import curve_positions
from dplearn.figures.legends import legend_below
from dplearn.figures.plrv import (
    _LOSS_CAP,
    _SUBSCRIPT_O,
    BAD_POSITIONS,
    COUNT,
    COUNT_D1,
    D1_COLOR,
    DELTA1_NAME,
    DELTA1_WIDTH_NAME,
    DELTA2_AREA_NAME,
    DELTA2_NAME,
    DOCUMENT_EPSILON,
    GAUSSIAN_EPSILON,
    GAUSSIAN_SIGMA,
    GAUSSIAN_SIGMA_CONTROL,
    MARK_COLORS,
    OUTPUT_LIMITS,
    POSITION_CONTROL,
    RATIO_TEXT,
    SENSITIVITY_CONTROL,
    RandomOutputSets,
    _capped_exp,
    _Figure,
    bad_event_region,
    delta_area_region,
    output_density_lines,
)
from dplearn.figures.style import (
    AREA_COLOR,
    BAD_COLOR,
    BLUE,
    GREEN,
    GREY,
    GUIDE_GREY,
    ORANGE,
    PURPLE,
    readable,
)
from dplearn.figures.text import value_text as _value_text
from dplearn.language import N_
from dplearn.language import gettext as _
from dplearn.privacy_loss import (
    discretise_outputs,
    output_at_position,
    set_deltas,
)

#: One colour per family of random output sets in PLRV-PROOF.
FAMILY_COLORS = (BLUE, ORANGE, GREEN, PURPLE, GREY)

__all__ = [
    "GaussianDensities",
    "GaussianLoss",
    "GaussianLossByProbability",
    "BadEventWidth",
    "TwoBadOutputs",
    "BadEventArea",
    "WorstSetCheck",
]


# ---------------------------------------------------------------------------
# Gaussian noise: PLRV-4 to PLRV-9 and the proof check
# ---------------------------------------------------------------------------


class _GaussianFigure(_Figure):
    """Shared parts of the Gaussian figures."""

    def _noise(self, sigma, sensitivity, count=COUNT_D1):
        return privacy_loss.gaussian(sigma, sensitivity, center=count)


@register
class GaussianDensities(_GaussianFigure):
    """PLRV-4: densities of A(D1) and A(D2) with Gaussian noise.

    Taught in: 02-see-what-delta-means.ipynb
    """

    figure_id = "PLRV-4"
    title = N_("Gaussian noise: two counts")
    controls = {
        "sigma": GAUSSIAN_SIGMA_CONTROL,
        "sensitivity": SENSITIVITY_CONTROL,
        "count": COUNT,
    }
    defaults = {"sigma": GAUSSIAN_SIGMA, "sensitivity": 1.0, "count": COUNT_D1}
    figsize = (9.0, 3.6)

    def _create(self):
        ax = self.axes = self.figure.subplots()
        self.grid = np.linspace(*OUTPUT_LIMITS, 1051)
        self.line_d1, self.line_d2 = output_density_lines(ax)
        self.moving(self.line_d1, self.line_d2)
        ax.set_xlim(*OUTPUT_LIMITS)
        ax.set_ylim(0, 0.85)
        ax.set_xlabel(_(r"output $O$ of the noisy count"))
        ax.set_ylabel(_("density"))
        ax.set_title(
            _(
                r"PLRV-4 · Gaussian noise: "
                r"$\Pr[\mathcal{A}(D_1) = O]$ and $\Pr[\mathcal{A}(D_2) = O]$"
            )
        )
        ax.legend(loc="upper right", fontsize=9)

    def _apply(self, sigma, sensitivity, count):
        noise = self._noise(sigma, sensitivity, count)
        self.noise = noise
        self.line_d1.set_data(self.grid, noise.density_d1(self.grid))
        self.line_d2.set_data(self.grid, noise.density_d2(self.grid))

    def description(self):
        """PLRV-4 in words for a reader who cannot see it, with the current numbers."""
        say, p = self.reader(), self.params
        return _(
            "The densities of two noisy counts, {count_d1} and {count_d2}, with Gaussian "
            "noise of standard deviation σ = {sigma} (variance {variance}): two bell curves "
            "that overlap the more, the larger σ is against their distance Δ = {sensitivity}."
        ).format(
            count_d1=say("D_1"),
            count_d2=say("D_2"),
            sigma=spoken(p["sigma"]),
            variance=say("sigma^2"),
            sensitivity=spoken(p["sensitivity"]),
        )

    def numbers(self):
        """The readout beside PLRV-4: the numbers it shows at the current setting."""
        return {
            r"$\sigma^2$": self.noise.sigma**2,
            N_(r"count of $D_1$"): self.noise.center,
            N_(r"count of $D_2$"): self.noise.center + self.noise.sensitivity,
        }


@register
class GaussianLoss(_GaussianFigure):
    """PLRV-5: L(O) for Gaussian noise, a straight unbounded line; beside it, L ~ N(mu, 2 mu).

    Taught in: 02-see-what-delta-means.ipynb
    """

    figure_id = "PLRV-5"
    title = N_("Gaussian noise: the privacy loss is a straight line")
    controls = {
        "sigma": GAUSSIAN_SIGMA_CONTROL,
        "sensitivity": SENSITIVITY_CONTROL,
        "count": COUNT,
        "epsilon": GAUSSIAN_EPSILON,
    }
    defaults = {
        "sigma": GAUSSIAN_SIGMA,
        "sensitivity": 1.0,
        "count": COUNT_D1,
        "epsilon": DOCUMENT_EPSILON,
    }
    figsize = (9.5, 3.8)
    loss_limits = (-4.0, 4.0)

    def _create(self):
        left, right = self.figure.subplots(1, 2, width_ratios=(3, 1), sharey=True)
        self.axes = (left, right)
        self.grid = np.linspace(*OUTPUT_LIMITS, 401)
        self.levels = np.linspace(*self.loss_limits, 801)
        for ax in (left, right):
            ax.axhline(0.0, color=GUIDE_GREY, lw=0.8)
        (self.loss_line,) = left.plot([], [], color=D1_COLOR, lw=2, label=r"$\mathcal{L}(O)$")
        (self.epsilon_line,) = left.plot(
            OUTPUT_LIMITS, [0, 0], color=BAD_COLOR, ls="--", lw=1.2, label=r"$\varepsilon$"
        )
        (self.density,) = right.plot([], [], color=D1_COLOR, lw=2)
        self.tail = right.add_patch(Polygon(np.zeros((3, 2)), color=BAD_COLOR, alpha=0.35))
        (self.epsilon_mark,) = right.plot([0, 2], [0, 0], color=BAD_COLOR, ls="--", lw=1.2)
        (self.mean_mark,) = right.plot([0, 2], [0, 0], color="black", ls=":", lw=1.2)
        self.note = left.text(0.01, 0.04, "", transform=left.transAxes, fontsize=9)
        self.moving(
            self.loss_line,
            self.epsilon_line,
            self.density,
            self.tail,
            self.epsilon_mark,
            self.mean_mark,
            self.note,
        )
        left.set_xlim(*OUTPUT_LIMITS)
        left.set_ylim(*self.loss_limits)
        left.set_xlabel(_(r"output $O$"))
        left.set_ylabel(_(r"privacy loss $\mathcal{L}(O)$"))
        left.set_title(_(r"PLRV-5 · $\mathcal{L}(O)$ is a straight, unbounded line"))
        left.legend(loc="upper right", fontsize=9)
        right.set_xlim(0, 1.5)
        right.set_xlabel(_(r"density of $\mathcal{L}$, $O \sim \mathcal{A}(D_1)$"))
        right.set_title(r"$\mathcal{L} \sim \mathcal{N}(\mu, 2\mu)$")

    def _apply(self, sigma, sensitivity, count, epsilon):
        noise = self._noise(sigma, sensitivity, count)
        exceeds = noise.loss_exceeds(epsilon)  # checks epsilon before anything changes
        mu = noise.loss_mean
        spread = np.sqrt(2.0 * mu)
        density = np.exp(-((self.levels - mu) ** 2) / (4.0 * mu)) / (spread * np.sqrt(2 * np.pi))
        tail = self.levels >= epsilon
        self.noise, self.epsilon = noise, epsilon
        self.loss_line.set_data(self.grid, noise.privacy_loss(self.grid))
        self.epsilon_line.set_ydata([epsilon, epsilon])
        self.density.set_data(density, self.levels)
        if tail.any():
            levels = np.concatenate(([epsilon], self.levels[tail]))
            width = np.concatenate(([np.interp(epsilon, self.levels, density)], density[tail]))
            outline = np.column_stack(
                (np.concatenate((width, [0.0, 0.0])), np.concatenate((levels, levels[[-1, 0]])))
            )
        else:
            outline = np.zeros((3, 2))
        self.tail.set_xy(outline)
        self.epsilon_mark.set_ydata([epsilon, epsilon])
        self.mean_mark.set_ydata([mu, mu])
        self.note.set_text(
            _("μ = {mu}, shaded Pr[ℒ > ε] = {probability}").format(
                mu=_value_text(mu), probability=_value_text(exceeds)
            )
        )

    def description(self):
        """PLRV-5 in words for a reader who cannot see it, with the current numbers."""
        say, p = self.reader(), self.params
        return _(
            "Left: the privacy loss L against the output for Gaussian noise σ = {sigma} "
            "around the count {count}: a straight line of slope {slope} that never levels "
            "off, so the loss is unbounded. Right: its distribution, normal with mean "
            "μ = {mu} and variance {variance}; it exceeds ε = {epsilon} with probability "
            "{probability}."
        ).format(
            sigma=spoken(p["sigma"]),
            count=spoken(p["count"]),
            slope=say("slope"),
            mu=say("mu ="),
            variance=say("variance"),
            epsilon=spoken(p["epsilon"]),
            probability=say("Pr"),
        )

    def numbers(self):
        """The readout beside PLRV-5: the numbers it shows at the current setting."""
        mu = self.noise.loss_mean
        return {
            r"$\mu = \Delta^2/(2\sigma^2)$": mu,
            N_(r"variance of $\mathcal{L}$: $2\mu$"): 2 * mu,
            N_(r"slope of $\mathcal{L}(O)$: $-\Delta/\sigma^2$"): -self.noise.sensitivity
            / self.noise.sigma**2,
            r"$\Pr[\mathcal{L} > \varepsilon]$": self.noise.loss_exceeds(self.epsilon),
            r"$\max \mathcal{L}$": _("∞ (unbounded)"),
        }


class _GaussianByProbability(_GaussianFigure):
    """Figures drawn against the probability position, with an e^L axis."""

    controls = {
        "epsilon": GAUSSIAN_EPSILON,
        "sigma": GAUSSIAN_SIGMA_CONTROL,
        "sensitivity": SENSITIVITY_CONTROL,
    }
    defaults = {"epsilon": DOCUMENT_EPSILON, "sigma": GAUSSIAN_SIGMA, "sensitivity": 1.0}
    figsize = (9.0, 3.8)
    top = 14.0

    def _build_curve(self, ax):
        # Dense near both ends, where e^L rises to infinity and falls to 0.
        self.positions = curve_positions(last=False)
        (self.curve,) = ax.plot([], [], color=D1_COLOR, lw=2, label=r"$e^{\mathcal{L}}$")
        (self.epsilon_line,) = ax.plot(
            [0, 1], [0, 0], color=BAD_COLOR, ls="--", lw=1.2, label=r"$e^{\varepsilon}$"
        )
        self.moving(self.curve, self.epsilon_line)
        ax.set_xlim(0, 1)
        ax.set_ylim(0, self.top)
        ax.set_xlabel(
            _(
                r"probability position $x$ "
                r"(outputs of $\mathcal{A}(D_1)$ sorted by decreasing $\mathcal{L}$)"
            )
        )
        ax.set_ylabel(r"$e^{\mathcal{L}}$")

    def _apply_curve(self, noise, epsilon):
        values = np.minimum(_capped_exp(noise.loss_quantile(self.positions)), 2 * self.top)
        self.curve.set_data(self.positions, values)
        self.epsilon_line.set_ydata([np.exp(epsilon)] * 2)


@register
class GaussianLossByProbability(_GaussianByProbability):
    """PLRV-6: e^L against probability for Gaussian noise: it shoots to infinity on the left.

    Taught in: 02-see-what-delta-means.ipynb
    """

    figure_id = "PLRV-6"
    title = N_("Gaussian noise: e^L against probability")

    def _create(self):
        ax = self.axes = self.figure.subplots()
        self._build_curve(ax)
        ax.set_title(
            _(
                r"PLRV-6 · Gaussian noise: "
                r"no line $e^{\varepsilon}$ stays above $e^{\mathcal{L}}$ everywhere"
            )
        )
        # Under the axes: at epsilon = 2.5 the line e^epsilon runs where a legend would.
        legend_below(self.figure, [ax])

    def _apply(self, epsilon, sigma, sensitivity):
        noise = self._noise(sigma, sensitivity)
        self.noise, self.epsilon = noise, epsilon
        self._apply_curve(noise, epsilon)

    def description(self):
        """PLRV-6 in words for a reader who cannot see it, with the current numbers."""
        say, p = self.reader(), self.params
        return _(
            "e to the loss against the probability position for Gaussian noise σ = {sigma}: "
            "it climbs without bound on the left, {ratio_at_0_01} at x = 0.01 and "
            "{ratio_at_0_001} at x = 0.001, far past the line e^ε = {ratio_epsilon}."
        ).format(
            sigma=spoken(p["sigma"]),
            ratio_at_0_01=say("0.01"),
            ratio_at_0_001=say("0.001"),
            ratio_epsilon=spoken(np.exp(p["epsilon"])),
        )

    def numbers(self):
        """The readout beside PLRV-6: the numbers it shows at the current setting."""
        return {
            N_(r"$e^{\mathcal{L}}$ at $x = 0.01$"): float(np.exp(self.noise.loss_quantile(0.01))),
            N_(r"$e^{\mathcal{L}}$ at $x = 0.001$"): float(np.exp(self.noise.loss_quantile(0.001))),
            N_(r"$e^{\mathcal{L}}$ as $x \to 0$"): "∞",
            r"$e^{\varepsilon}$": float(np.exp(self.epsilon)),
        }


@register
class BadEventWidth(_GaussianByProbability):
    """PLRV-7: delta_1 as the width of the bad events, where e^L > e^epsilon.

    Taught in: 02-see-what-delta-means.ipynb
    """

    figure_id = "PLRV-7"
    title = N_("δ₁: the width of the bad events")

    def _create(self):
        ax = self.axes = self.figure.subplots()
        self._build_curve(ax)
        self.band = ax.add_patch(
            Polygon(np.zeros((3, 2)), color=BAD_COLOR, alpha=0.4, lw=0, label=_("bad events"))
        )
        below = transforms.blended_transform_factory(ax.transData, ax.transAxes)
        (self.bracket,) = ax.plot([], [], color=BAD_COLOR, lw=2, marker="|", ms=12, transform=below)
        self.label = ax.text(0, 0, "", color=BAD_COLOR, fontsize=10)
        self.moving(self.band, self.bracket, self.label)
        ax.set_title(
            _(
                r"PLRV-7 · $\delta_1 = \Pr[\mathcal{L} > \varepsilon]$: "
                r"measure the width of the bad events"
            )
        )
        legend_below(self.figure, [ax])

    def _apply(self, epsilon, sigma, sensitivity):
        noise = self._noise(sigma, sensitivity)
        width = noise.loss_exceeds(epsilon)
        region = bad_event_region(noise, epsilon, self.top)
        self.noise, self.epsilon, self.width = noise, epsilon, width
        self._apply_curve(noise, epsilon)
        self.band.set_xy(region)
        self.bracket.set_data([0, width], [0.04, 0.04])
        # Where the bad events end (e^L crosses e^epsilon at x = delta_1): right of that
        # point and above the line, or left of it and below near the right edge. e^L falls
        # from left to right, so it passes through neither place.
        line = float(np.exp(epsilon))
        if width < 0.8:
            self.label.set_position((width + 0.01, line + 0.02 * self.top))
            self.label.set_ha("left")
            self.label.set_va("bottom")
        else:
            self.label.set_position((width - 0.01, line - 0.02 * self.top))
            self.label.set_ha("right")
            self.label.set_va("top")
        self.label.set_text(f"δ₁ = {_value_text(width)}")

    def description(self):
        """PLRV-7 in words for a reader who cannot see it, with the current numbers."""
        say, p = self.reader(), self.params
        return _(
            "e to the loss against the probability position for Gaussian noise σ = {sigma}, "
            "with the bad events shaded where it exceeds e^ε = {ratio_epsilon}: their width "
            "is δ₁ = {delta_1}."
        ).format(sigma=spoken(p["sigma"]), ratio_epsilon=say("e^{"), delta_1=say("delta_1"))

    def numbers(self):
        """The readout beside PLRV-7: the numbers it shows at the current setting."""
        return {
            DELTA1_NAME: self.width,
            r"$\varepsilon$": float(self.epsilon),
            r"$e^{\varepsilon}$": float(np.exp(self.epsilon)),
        }


@register
class TwoBadOutputs(_GaussianFigure):
    """PLRV-8: zoom on the bad events with two outputs: a little bad and catastrophic.

    Top: e^L against the probability position (log axis). Bottom: how much an output
    at that position weighs in delta_1 (1 for every bad event) and in delta_2
    (1 - e^(epsilon - L), near 0 just above the line, near 1 far above it).

    Taught in: 02-see-what-delta-means.ipynb
    """

    figure_id = "PLRV-8"
    title = N_("Two bad outputs: how bad is bad?")
    controls = {
        "epsilon": GAUSSIAN_EPSILON,
        "sigma": GAUSSIAN_SIGMA_CONTROL,
        "sensitivity": SENSITIVITY_CONTROL,
        "position1": POSITION_CONTROL.replace(label=N_(r"$x$ of $O_1$")),
        "position2": POSITION_CONTROL.replace(label=N_(r"$x$ of $O_2$")),
    }
    defaults = {
        "epsilon": DOCUMENT_EPSILON,
        "sigma": GAUSSIAN_SIGMA,
        "sensitivity": 1.0,
        "position1": BAD_POSITIONS[0],
        "position2": BAD_POSITIONS[1],
    }
    figsize = (9.0, 5.6)
    limits = (9e-5, 0.5)
    top = 14.0
    label_height = 1.2  # a label's height in units of e^L (a ninth of top)
    #: The readout's names of O1 and O2 (position, output, weight in delta_1, weight in
    #: delta_2), each whole so that it is translated as one.
    mark_names = (
        (
            N_("$O_1$: position $x$"),
            N_("$O_1$: output"),
            N_(r"$O_1$: weight in $\delta_1$"),
            N_(r"$O_1$: weight in $\delta_2$"),
        ),
        (
            N_("$O_2$: position $x$"),
            N_("$O_2$: output"),
            N_(r"$O_2$: weight in $\delta_1$"),
            N_(r"$O_2$: weight in $\delta_2$"),
        ),
    )

    def _create(self):
        upper, lower = self.figure.subplots(2, 1, sharex=True, height_ratios=(3, 2))
        self.axes = (upper, lower)
        self.positions = np.geomspace(*self.limits, 600)
        (self.curve,) = upper.plot([], [], color=D1_COLOR, lw=2, label=r"$e^{\mathcal{L}}$")
        (self.epsilon_line,) = upper.plot(
            self.limits, [0, 0], color=BAD_COLOR, ls="--", lw=1.2, label=r"$e^{\varepsilon}$"
        )
        self.band = upper.add_patch(
            Polygon(
                np.zeros((3, 2)),
                color=BAD_COLOR,
                alpha=0.15,
                lw=0,
                label=_(r"bad: $x < \delta_1$"),
            )
        )
        (self.width_weight,) = lower.plot(
            [], [], color=BAD_COLOR, lw=2, ls="--", label=_(r"weight in $\delta_1$ (1 if bad)")
        )
        (self.area_weight,) = lower.plot(
            [],
            [],
            color=AREA_COLOR,
            lw=2,
            label=_(r"weight in $\delta_2$: $\max(0,\ 1 - e^{\varepsilon}/e^{\mathcal{L}})$"),
        )
        self.marks = []
        for index, color in enumerate(MARK_COLORS[::2]):
            (dot,) = upper.plot([], [], "o", color=color, ms=8)
            (stem,) = upper.plot([], [], color=color, lw=2)
            label = upper.text(0, 0, "", color=readable(color), fontsize=9, ha="left", va="bottom")
            (weights,) = lower.plot([], [], "o", color=color, ms=7)
            self.marks.append((dot, stem, label, weights))
            self.moving(dot, stem, label, weights)
            del index
        self.moving(self.curve, self.epsilon_line, self.band, self.width_weight, self.area_weight)
        upper.set_xscale("log")
        # A margin beyond x = 1/2, the sliders' end, as below their start: a dot there
        # shows whole.
        upper.set_xlim(self.limits[0], self.limits[1] * 1.07)
        upper.set_ylim(0, self.top)
        upper.set_ylabel(r"$e^{\mathcal{L}}$")
        upper.set_title(
            _(
                r"PLRV-8 · zoom on the bad events: "
                r"$O_1$ a little above $e^{\varepsilon}$, $O_2$ far above"
            )
        )
        lower.set_ylim(-0.05, 1.15)
        lower.set_yticks([0.0, 0.5, 1.0])
        lower.set_xlabel(_(r"probability position $x$ (log scale)"))
        lower.set_ylabel(_("weight"))
        legend_below(self.figure, (upper, lower))

    def _apply(self, epsilon, sigma, sensitivity, position1, position2):
        noise = self._noise(sigma, sensitivity)
        width = noise.loss_exceeds(epsilon)
        curve = np.minimum(_capped_exp(noise.loss_quantile(self.positions)), 2 * self.top)
        area_weight = np.maximum(
            0.0, 1.0 - _capped_exp(epsilon - noise.loss_quantile(self.positions))
        )
        marked = np.array(
            [
                check.probability_open("position1", position1),
                check.probability_open("position2", position2),
            ]
        )
        losses = noise.loss_quantile(marked)
        self.noise, self.epsilon, self.width = noise, epsilon, width
        self.marked, self.losses = marked, losses
        self.outputs = output_at_position(noise, marked)
        self.curve.set_data(self.positions, curve)
        line = np.exp(epsilon)
        self.epsilon_line.set_ydata([line, line])
        right = min(max(width, self.limits[0]), self.limits[1])
        self.band.set_xy(
            [(self.limits[0], 0), (right, 0), (right, self.top), (self.limits[0], self.top)]
        )
        self.width_weight.set_data(self.positions, (self.positions < width).astype(float))
        self.area_weight.set_data(self.positions, area_weight)
        for index, (dot, stem, label, weights) in enumerate(self.marks):
            x, loss = marked[index], losses[index]
            value = min(np.exp(min(loss, _LOSS_CAP)), 2 * self.top)
            dot.set_data([x], [value])
            stem.set_data([x, x], [line, value])
            # Right of the mark and above it, or near the right edge left of it and below:
            # e^L falls from left to right, so it never passes there. Below, unless the
            # e^epsilon line runs just under the mark (then above, as on the right).
            right_side = x < 0.05
            label.set_ha("left" if right_side else "right")
            height = min(value, self.top * 0.8)
            below = not right_side and not (0 <= height - line < self.label_height)
            label.set_va("top" if below else "bottom")
            label.set_position((x * 1.12 if right_side else x / 1.12, height))
            label.set_text(f"{_SUBSCRIPT_O[index]}: ℒ = {loss:.3f}")
            in_width = 1.0 if loss > epsilon else 0.0
            in_area = max(0.0, 1.0 - np.exp(min(epsilon - loss, _LOSS_CAP)))
            weights.set_data([x, x], [in_width, in_area])

    def description(self):
        """PLRV-8 in words for a reader who cannot see it, with the current numbers."""
        say, p = self.reader(), self.params
        in_delta_2 = "$: weight in $\\delta_2$"
        return _(
            "Top: a zoom on the bad events of Gaussian noise (σ = {sigma}, ε = {epsilon}) "
            "with two outputs: O₁ at x = {position_1} where e^L = {ratio_1}, and O₂ at "
            "x = {position_2} where e^L = {ratio_2}. Bottom: each weighs 1 in "
            "δ₁ = {delta_1}, but {weight_1} and {weight_2} in δ₂ = {delta_2}: the further "
            "the loss is above ε, the more it counts."
        ).format(
            sigma=spoken(p["sigma"]),
            epsilon=spoken(p["epsilon"]),
            position_1=say("O_1$: position"),
            ratio_1=say("O_1$: $e"),
            position_2=say("O_2$: position"),
            ratio_2=say("O_2$: $e"),
            delta_1=say("delta_1 ="),
            weight_1=say(f"O_1{in_delta_2}"),
            weight_2=say(f"O_2{in_delta_2}"),
            delta_2=say("delta_2 ="),
        )

    def numbers(self):
        """The readout beside PLRV-8: the numbers it shows at the current setting."""
        result = {DELTA1_NAME: self.width, DELTA2_NAME: self.noise.delta(self.epsilon)}
        for index, (x, loss, output) in enumerate(
            zip(self.marked, self.losses, self.outputs, strict=True)
        ):
            name = f"$O_{index + 1}$"
            position_name, output_name, width_name, area_name = self.mark_names[index]
            result[position_name] = float(x)
            result[output_name] = float(output)
            result[rf"{name}: $\mathcal{{L}}$"] = float(loss)
            result[rf"{name}: $e^{{\mathcal{{L}}}}$"] = float(np.exp(min(loss, _LOSS_CAP)))
            result[width_name] = 1.0 if loss > self.epsilon else 0.0
            result[area_name] = float(max(0.0, -np.expm1(self.epsilon - loss)))
        return result


@register
class BadEventArea(_GaussianFigure):
    """PLRV-9: delta_2 as the area between e^epsilon / e^L and 1 over the bad events.

    Left: the whole probability axis; right: the same, zoomed on x < 0.1. The dashed
    box has width delta_1 and height 1 (area delta_1); the shaded part is delta_2.

    Taught in: 02-see-what-delta-means.ipynb
    """

    figure_id = "PLRV-9"
    title = N_("δ₂: the area of the bad events, weighted by how bad they are")
    controls = _GaussianByProbability.controls
    defaults = _GaussianByProbability.defaults
    figsize = (10.0, 4.0)
    top = 1.6
    zoom = 0.1

    def _create(self):
        whole, zoomed = self.figure.subplots(1, 2, sharey=True)
        self.axes = (whole, zoomed)
        self.positions = curve_positions()
        self.curves, self.areas, self.boxes = [], [], []
        for ax, right in ((whole, 1.0), (zoomed, self.zoom)):
            ax.axhline(1.0, color="0.4", lw=1)
            (curve,) = ax.plot([], [], color=D1_COLOR, lw=2, label=RATIO_TEXT)
            area = ax.add_patch(
                Polygon(
                    np.zeros((3, 2)),
                    color=AREA_COLOR,
                    alpha=0.45,
                    lw=0,
                    label=_(r"area $\delta_2$"),
                )
            )
            (box,) = ax.plot(
                [], [], color=BAD_COLOR, ls="--", lw=1.2, label=_(r"width $\delta_1$ $\times$ 1")
            )
            self.curves.append(curve)
            self.areas.append(area)
            self.boxes.append(box)
            self.moving(curve, area, box)
            ax.set_xlim(0, right)
            ax.set_xlabel(_(r"probability position $x$"))
        self.note = zoomed.text(0.62, 0.3, "", transform=zoomed.transAxes, fontsize=9)
        self.moving(self.note)
        whole.set_ylim(0, self.top)
        whole.set_ylabel(RATIO_TEXT)
        whole.set_title(_(r"PLRV-9 · $\delta_2$ = shaded area (whole axis)"))
        zoomed.set_title(_("zoom on $x < {zoom:g}$").format(zoom=self.zoom))
        zoomed.legend(loc="upper right", fontsize=9)

    def _apply(self, epsilon, sigma, sensitivity):
        noise = self._noise(sigma, sensitivity)
        width, delta = noise.loss_exceeds(epsilon), noise.delta(epsilon)
        curve = np.minimum(_capped_exp(epsilon - noise.loss_quantile(self.positions)), 2 * self.top)
        region = delta_area_region(noise, epsilon)
        self.noise, self.epsilon, self.width, self.delta = noise, epsilon, width, delta
        for curve_line, area, box in zip(self.curves, self.areas, self.boxes, strict=True):
            curve_line.set_data(self.positions, curve)
            area.set_xy(region)
            box.set_data([0, width, width, 0], [1, 1, 0, 0])
        self.note.set_text(f"δ₁ = {_value_text(width)}\nδ₂ = {_value_text(delta)}")

    def description(self):
        """PLRV-9 in words for a reader who cannot see it, with the current numbers."""
        say, p = self.reader(), self.params
        return _(
            "e^ε over e^L against the probability position (left whole, right zoomed on x "
            "below 0.1): a dashed box of width δ₁ = {delta_1} and the shaded area "
            "δ₂ = {delta_2} between the curve and 1 over the bad events, at ε = {epsilon} and "
            "σ = {sigma}. The area is {share} of the box: δ₂ weighs each output by how bad "
            "it is."
        ).format(
            delta_1=say("(width)"),
            delta_2=say("(area)"),
            epsilon=spoken(p["epsilon"]),
            sigma=spoken(p["sigma"]),
            share=say("/ "),
        )

    def numbers(self):
        """The readout beside PLRV-9: the numbers it shows at the current setting."""
        result = {
            DELTA1_WIDTH_NAME: self.width,
            DELTA2_AREA_NAME: self.delta,
            r"$\varepsilon$": float(self.epsilon),
        }
        if self.width > 0:
            result[r"$\delta_2 / \delta_1$"] = self.delta / self.width
        return result


@register
class WorstSetCheck(_GaussianFigure):
    """PLRV-PROOF: no set of outputs S gives a larger delta_S than S* = {O : L(O) > epsilon}.

    The outputs are cut into bins (``discretise_outputs``); for the worst set and for
    300 sets drawn once at random, delta_S = P[A(D1) in S] - e^epsilon P[A(D2) in S]
    is computed exactly over the bins and plotted relative to delta_2.

    Taught in: 02-see-what-delta-means.ipynb
    """

    figure_id = "PLRV-PROOF"
    title = N_("The worst set of outputs gives δ₂")
    controls = {
        "epsilon": EPSILON.replace(minimum=0.05, maximum=3.0),
        "sigma": SIGMA.replace(minimum=0.5, maximum=4.0),
        "sensitivity": SENSITIVITY.replace(minimum=0.5, maximum=2.0),
    }
    defaults = {"epsilon": DOCUMENT_EPSILON, "sigma": GAUSSIAN_SIGMA, "sensitivity": 1.0}
    figsize = (9.5, 4.2)
    bins = 800
    seed = 2020
    left = -1.0

    def __init__(self, *, rng=None, figure=None, **params):
        self.rng = rng if rng is not None else np.random.default_rng(self.seed)
        super().__init__(figure=figure, **params)

    def _create(self):
        ax = self.axes = self.figure.subplots()
        self.sets = RandomOutputSets(self.bins, rng=self.rng)
        rows = self.sets.family_rows()
        self.rows = rows + 1 + self.sets.jitter
        ax.axvline(1.0, color=BAD_COLOR, lw=1.5, ls="--")
        ax.axvline(0.0, color=GUIDE_GREY, lw=0.8)
        # One line of markers per family: markers of one colour draw much faster than a
        # scatter with a colour per point.
        self.family_rows = rows
        self.dots = [
            ax.plot([], [], "o", ms=3.5, color=FAMILY_COLORS[family], ls="none")[0]
            for family in range(len(self.sets.families))
        ]
        (self.worst,) = ax.plot([1.0], [0.0], "*", color=BAD_COLOR, ms=16)
        self.note = ax.text(
            0.01,
            0.99,
            "",
            transform=ax.transAxes,
            va="top",
            fontsize=9,
            bbox={"facecolor": "white", "alpha": 0.85, "edgecolor": "0.8"},
        )
        self.moving(*self.dots, self.worst, self.note)
        ax.set_yticks(
            range(len(self.sets.families) + 1),
            [
                _(r"worst set $S^* = \{O : \mathcal{L}(O) > \varepsilon\}$"),
                *(_(family) for family in self.sets.families),
            ],
        )
        ax.set_ylim(len(self.sets.families) + 0.6, -0.6)
        ax.set_xlim(self.left - 0.05, 1.2)
        ax.set_xlabel(
            _(r"$\delta_S / \delta_2$   (sets with $\delta_S \leq -\delta_2$ are drawn at $-1$)")
        )
        ax.set_title(
            _(
                r"PLRV-PROOF · $\delta_S = "
                r"\Pr[\mathcal{A}(D_1) \in S] - e^{\varepsilon} \Pr[\mathcal{A}(D_2) \in S]$:"
                r" none beats $\delta_2$ (dashed)"
            )
        )

    def _apply(self, epsilon, sigma, sensitivity):
        noise = self._noise(sigma, sensitivity)
        edges, mass_d1, mass_d2 = discretise_outputs(noise, epsilon, self.bins)
        worst = mass_d1 > np.exp(epsilon) * mass_d2
        worst_delta = set_deltas(mass_d1, mass_d2, epsilon, worst[None, :])[0]
        deltas = set_deltas(mass_d1, mass_d2, epsilon, self.sets.members(worst))
        delta = noise.delta(epsilon)
        self.noise, self.epsilon, self.delta = noise, epsilon, delta
        self.worst_delta, self.deltas, self.edges = worst_delta, deltas, edges
        ratios = np.clip(deltas / delta, self.left, None)
        for family, dots in enumerate(self.dots):
            chosen = self.family_rows == family
            dots.set_data(ratios[chosen], self.rows[chosen])
        self.worst.set_xdata([worst_delta / delta])
        self.note.set_text(
            _("worst set S*: {worst_delta:.8g}\nbest other: {best_other_delta:.8g}").format(
                worst_delta=worst_delta, best_other_delta=deltas.max()
            )
        )

    def description(self):
        """PLRV-PROOF in words for a reader who cannot see it, with the current numbers."""
        say, p = self.reader(), self.params
        return _(
            "δ_S of 300 random sets of outputs and of the worst set, the outputs whose loss "
            "exceeds ε = {epsilon} (σ = {sigma}): the worst set reaches δ₂ = {delta_2}, the "
            "largest random set {largest}, and a share {better} of the random sets does "
            "better."
        ).format(
            epsilon=spoken(p["epsilon"]),
            sigma=spoken(p["sigma"]),
            delta_2=say("delta_2 =", 4),
            largest=say("largest", 4),
            better=say("random sets with"),
        )

    def numbers(self):
        """The readout beside PLRV-PROOF: the numbers it shows at the current setting."""
        return {
            DELTA2_NAME: self.delta,
            N_(r"$\delta_S$ for the worst set $S^*$"): float(self.worst_delta),
            N_(r"largest $\delta_S$ of the random sets"): float(self.deltas.max()),
            # Beyond rounding: the sums over 800 bins carry errors of about 1e-15 delta.
            N_(r"random sets with $\delta_S > \delta_2$"): float(
                np.sum(self.deltas > self.delta * (1 + 1e-9))
            ),
        }
