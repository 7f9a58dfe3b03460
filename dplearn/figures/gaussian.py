"""Figures MECH-4 and MECH-5: the Gaussian mechanism, calibrated and against Laplace noise.

Lesson 06: the classic calibration sigma = sqrt(2 ln(1.25/delta)) / epsilon against the
smallest valid sigma and the exact delta it gives (MECH-4), and the noise per coordinate
of the Laplace and Gaussian mechanisms against the number of coordinates (MECH-5). Every
number comes from ``dplearn.calibration`` and ``dplearn.privacy_loss``; the mechanisms
of lessons 04 and 05 are drawn in ``dplearn.figures.mechanisms``.

Taught in: 06-calibrate-gaussian-noise.ipynb
"""

from __future__ import annotations

import numpy as np
from matplotlib.patches import Polygon
from matplotlib.ticker import NullFormatter
from scipy import stats

from dplearn import _validation as check
from dplearn import privacy_loss
from dplearn.calibration import (
    classic_crossing_epsilon,
    crossover_dimension,
    gaussian_sigma_analytic,
    gaussian_sigma_classic,
)
from dplearn.figures.controls import (
    DELTA,
    EPSILON,
    SENSITIVITY,
    Control,
)
from dplearn.figures.explorers import Explorer, register, spoken
from dplearn.figures.legends import legend_below
from dplearn.figures.mechanisms import (
    D1_COLOUR,
    GAUSSIAN_COLOUR,
    LAPLACE_COLOUR,
)
from dplearn.figures.sliders import exponent_control
from dplearn.language import N_
from dplearn.language import gettext as _

__all__ = [
    "GaussianCalibration",
    "DimensionNoise",
]


# --------------------------------------------------------------------------- MECH-4


@register
class GaussianCalibration(Explorer):
    """Figure MECH-4: the classic Gaussian calibration against the exact one.

    Left: sigma against epsilon, classic (dashed) and analytic (solid, the smallest
    sigma whose exact delta is the target). Right: the exact delta the classic sigma
    actually gives, against the promised delta (the horizontal line): below it the
    calibration holds, above it it breaks. The shaded ε < 1 is what the textbook proof
    covers; the dotted line is where the calibration really stops holding.

    Taught in: 06-calibrate-gaussian-noise.ipynb
    """

    figure_id = "MECH-4"
    title = N_("Gaussian mechanism: where the classic σ holds, wastes noise, and breaks")
    controls = {
        "epsilon": EPSILON.replace(minimum=0.05, maximum=20.0),
        "delta": exponent_control(DELTA),
        "sensitivity": SENSITIVITY.replace(label=r"$\Delta f$"),
    }
    defaults = {"epsilon": 1.0, "delta": 1e-5, "sensitivity": 1.0}
    figsize = (12.0, 3.9)
    epsilon_range = (0.05, 20.0)

    def _build(self):
        self.grid = np.geomspace(*self.epsilon_range, 90)
        self._curves_for = None
        sigma_ax, waste_ax, delta_ax = self.axes = self.figure.subplots(1, 3)
        for ax in self.axes:
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_xlim(*self.epsilon_range)
            ax.axvspan(self.epsilon_range[0], 1.0, color="0.9", zorder=0)
            ax.set_xlabel(r"$\varepsilon$")
        sigma_ax.text(
            0.06, 2e-3, _("$\\varepsilon < 1$: what the\ntextbook proof covers"), fontsize=9
        )
        (self.classic_line,) = sigma_ax.plot(
            [], [], "--", color=D1_COLOUR, label=_(r"classic $\sigma$")
        )
        (self.analytic_line,) = sigma_ax.plot(
            [], [], color="C3", label=_(r"analytic $\sigma$ (exact)")
        )
        # The dots mark the slider's epsilon, which reaches the axes' ends: drawn whole
        # there, and kept out of the layout, which they would otherwise widen.
        (self.classic_dot,) = sigma_ax.plot(
            [], [], "o", color=D1_COLOUR, clip_on=False, in_layout=False
        )
        (self.analytic_dot,) = sigma_ax.plot(
            [], [], "o", color="C3", clip_on=False, in_layout=False
        )
        self.sigma_crossing = sigma_ax.axvline(1.0, color="black", linestyle=":", linewidth=1.2)
        sigma_ax.set_ylim(1e-3, 1e4)
        sigma_ax.set_ylabel(r"$\sigma$")
        sigma_ax.set_title(
            _(r"$\sigma$: classic formula and the smallest valid $\sigma$"), fontsize=10
        )

        waste_ax.axhline(1.0, color="black", linewidth=1, zorder=1.5)
        waste_ax.axhspan(1.0, 30.0, color="C2", alpha=0.08)
        waste_ax.axhspan(0.3, 1.0, color="C3", alpha=0.08)
        # At the top and bottom edges, where the ratio curve never goes.
        waste_ax.text(0.06, 27.0, _("above 1: more noise than needed"), fontsize=9, va="top")
        waste_ax.text(0.06, 0.33, _("below 1: too little noise"), fontsize=9, va="bottom")
        (self.waste_line,) = waste_ax.plot([], [], color="black", lw=1.8)
        (self.waste_dot,) = waste_ax.plot(
            [], [], "o", color="black", clip_on=False, in_layout=False
        )
        self.waste_crossing = waste_ax.axvline(1.0, color="black", linestyle=":", linewidth=1.2)
        waste_ax.set_ylim(0.3, 30.0)
        # Plain ratios: powers of ten alone leave the curve's 1.1 to 2 unreadable.
        ratio_ticks = [0.5, 1.0, 2.0, 5.0, 10.0, 20.0]
        waste_ax.set_yticks(ratio_ticks, labels=[f"{tick:g}" for tick in ratio_ticks])
        waste_ax.yaxis.set_minor_formatter(NullFormatter())
        waste_ax.set_ylabel(_(r"classic $\sigma$ $\div$ analytic $\sigma$"))
        waste_ax.set_title(_(r"how much noise the classic $\sigma$ wastes"), fontsize=10)

        (self.exact_line,) = delta_ax.plot(
            [], [], color=D1_COLOUR, label=_(r"exact $\delta$ of the classic $\sigma$")
        )
        (self.target_line,) = delta_ax.plot(
            self.epsilon_range,
            [1e-5, 1e-5],
            color="black",
            linewidth=1,
            ls="--",
            label=_(r"promised $\delta$"),
        )
        (self.exact_dot,) = delta_ax.plot(
            [], [], "o", color=D1_COLOUR, clip_on=False, in_layout=False
        )
        self.delta_crossing = delta_ax.axvline(
            1.0,
            color="black",
            linestyle=":",
            linewidth=1.2,
            label=_("where it starts to break"),
        )
        delta_ax.set_ylim(1e-19, 3.0)
        delta_ax.set_ylabel(r"$\delta$")
        delta_ax.set_title(
            _(r"exact $\delta$ of the classic $\sigma$, against the promise"), fontsize=10
        )
        legend_below(self.figure, (sigma_ax, delta_ax))
        self.moving(self.classic_line, self.analytic_line, self.classic_dot, self.analytic_dot)
        self.moving(self.sigma_crossing, self.exact_line, self.target_line, self.exact_dot)
        self.moving(self.delta_crossing)
        self.moving(self.waste_line, self.waste_dot, self.waste_crossing)

    def _apply(self, epsilon, delta, sensitivity):
        classic = gaussian_sigma_classic(epsilon, delta, sensitivity)
        analytic = gaussian_sigma_analytic(epsilon, delta, sensitivity)
        exact = privacy_loss.gaussian(classic, sensitivity).delta(epsilon)
        crossing = classic_crossing_epsilon(delta)
        grid = self.grid
        # The curves depend on delta and sensitivity only: an epsilon move reuses them.
        if self._curves_for != (delta, sensitivity):
            classic_grid = gaussian_sigma_classic(grid, delta, sensitivity)
            analytic_grid = gaussian_sigma_analytic(grid, delta, sensitivity)
            exact_grid = np.exp(privacy_loss.gaussian_log_delta(grid, sensitivity / classic_grid))
            self._curves = classic_grid, analytic_grid, exact_grid
            self._curves_for = (delta, sensitivity)
        classic_grid, analytic_grid, exact_grid = self._curves
        self.values = {
            "classic": classic,
            "analytic": analytic,
            "exact": exact,
            "delta": float(delta),
            "crossing": crossing,
        }
        self.classic_line.set_data(grid, classic_grid)
        self.analytic_line.set_data(grid, analytic_grid)
        self.classic_dot.set_data([epsilon], [classic])
        self.analytic_dot.set_data([epsilon], [analytic])
        self.sigma_crossing.set_xdata([crossing, crossing])
        self.waste_line.set_data(grid, classic_grid / analytic_grid)
        self.waste_dot.set_data([epsilon], [classic / analytic])
        self.waste_crossing.set_xdata([crossing, crossing])
        self.exact_line.set_data(grid, exact_grid)
        self.target_line.set_ydata([delta, delta])
        self.exact_dot.set_data([epsilon], [exact])
        self.delta_crossing.set_xdata([crossing, crossing])

    def description(self):
        """MECH-4 in words for a reader who cannot see it, with the current numbers."""
        say, p = self.reader(), self.params
        classic = "classic $\\sigma$"
        return _(
            "Left: σ against ε for Δf = {sensitivity} and δ = {delta}: at ε = {epsilon} the "
            "classic σ (dashed) is {classic_sigma} against the analytic {analytic_sigma} (extra "
            "noise {extra_noise}). Right: the exact δ the classic σ gives, {exact_delta}; "
            "promise kept: {promise_kept}; the classic σ breaks above ε = {breaking_epsilon}."
        ).format(
            sensitivity=spoken(p["sensitivity"]),
            delta=spoken(p["delta"]),
            epsilon=spoken(p["epsilon"]),
            classic_sigma=say(classic),
            analytic_sigma=say("analytic"),
            extra_noise=say("extra noise"),
            exact_delta=say("exact $"),
            promise_kept=say("keeps"),
            breaking_epsilon=say("breaks"),
        )

    def numbers(self):
        """The readout beside MECH-4: the numbers it shows at the current setting."""
        v = self.values
        extra = 100 * (v["classic"] / v["analytic"] - 1)
        return {
            N_(r"classic $\sigma$"): v["classic"],
            N_(r"analytic $\sigma$"): v["analytic"],
            N_(r"extra noise of the classic $\sigma$"): f"{extra:+.1f} %",
            N_(r"exact $\delta$ at the classic $\sigma$"): v["exact"],
            N_(r"promised $\delta$"): v["delta"],
            N_(r"classic $\sigma$ keeps its promise"): _("yes")
            if v["exact"] <= v["delta"]
            else _("no"),
            N_(r"it breaks above $\varepsilon$ ="): v["crossing"],
        }


# --------------------------------------------------------------------------- MECH-5


_LEVEL = 0.9  # the shapes drawn enclose 90 % of the noise


@register
class DimensionNoise(Explorer):
    """Figure MECH-5: per-coordinate noise against the dimension, and its shape in 2-D.

    Left: standard deviation per coordinate of Laplace noise (l1 sensitivity d c)
    and Gaussian noise (l2 sensitivity sqrt(d) c, analytic sigma; classic dashed)
    against d, with the crossover dimension. Right: 400 seeded samples of each noise
    for d = 2 and the regions holding 90 % of it: a diamond (Laplace: |z1| + |z2| is
    Gamma(2, b)) and a circle (Gaussian: |z|^2 / sigma^2 is chi-squared with 2
    degrees of freedom), in units of c / ε.

    Taught in: 06-calibrate-gaussian-noise.ipynb
    """

    figure_id = "MECH-5"
    title = N_("Many coordinates: Laplace (ℓ1) against Gaussian (ℓ2) noise")
    controls = {
        "epsilon": EPSILON.replace(minimum=0.1, maximum=10.0),
        "delta": exponent_control(DELTA),
        "bound": SENSITIVITY.replace(label="$c$", description=N_("per-coordinate bound")),
        "dimension": Control("$d$", 1, 300, integer=True, description=N_("number of coordinates")),
    }
    defaults = {"epsilon": 1.0, "delta": 1e-5, "bound": 1.0, "dimension": 10}
    figsize = (11.0, 4.2)
    dimension_range = (1, 300)
    samples = 400
    box = 26.0

    def __init__(self, *, rng=None, figure=None, **params):
        self.rng = np.random.default_rng(5) if rng is None else check.generator(rng)
        super().__init__(figure=figure, **params)

    def resample(self):
        """New noise draws (standard Laplace and standard normal pairs), kept until the next."""
        self.unit_laplace = self.rng.laplace(size=(self.samples, 2))
        self.unit_normal = self.rng.standard_normal(size=(self.samples, 2))

    def _build(self):
        self.resample()
        self.dims = np.geomspace(*self.dimension_range, 100)
        line_ax, shape_ax = self.axes = self.figure.subplots(
            1, 2, gridspec_kw={"width_ratios": [1.35, 1.0]}
        )
        (self.laplace_line,) = line_ax.plot(
            [], [], color=LAPLACE_COLOUR, ls="-.", label=_(r"Laplace, $\ell_1$")
        )
        (self.gauss_line,) = line_ax.plot(
            [], [], color=GAUSSIAN_COLOUR, label=_(r"Gaussian, $\ell_2$ (analytic $\sigma$)")
        )
        (self.classic_line,) = line_ax.plot(
            [], [], "--", color=GAUSSIAN_COLOUR, linewidth=1, label=_(r"Gaussian, classic $\sigma$")
        )
        # At the slider's dimension, which reaches the axes' ends: drawn whole there (and
        # kept out of the layout).
        (self.laplace_dot,) = line_ax.plot(
            [], [], "o", color=LAPLACE_COLOUR, clip_on=False, in_layout=False
        )
        (self.gauss_dot,) = line_ax.plot(
            [], [], "o", color=GAUSSIAN_COLOUR, clip_on=False, in_layout=False
        )
        self.crossover_line = line_ax.axvline(
            1.0,
            color="black",
            linestyle=":",
            linewidth=1.2,
            label=_(r"crossover $d^*$ (analytic $\sigma$)"),
        )
        line_ax.set_xscale("log")
        line_ax.set_yscale("log")
        line_ax.set_xlim(*self.dimension_range)
        line_ax.set_ylim(1e-2, 1e5)
        line_ax.set_xlabel(_("dimension $d$"))
        line_ax.set_ylabel(_("noise standard deviation per coordinate"))
        line_ax.set_title(
            _(r"per-coordinate noise: Laplace $\propto d$, Gaussian $\propto \sqrt{d}$"),
            fontsize=10,
        )

        (self.laplace_points,) = shape_ax.plot(
            [], [], ".", ms=2.5, color=LAPLACE_COLOUR, alpha=0.9, label=_("Laplace samples")
        )
        (self.gauss_points,) = shape_ax.plot(
            [], [], "+", ms=3, color=GAUSSIAN_COLOUR, alpha=0.9, label=_("Gaussian samples")
        )
        self.diamond = Polygon(np.zeros((4, 2)), closed=True, fill=False, lw=2)
        self.diamond.set_edgecolor(LAPLACE_COLOUR)
        shape_ax.add_patch(self.diamond)
        angles = np.linspace(0, 2 * np.pi, 121)
        self.circle_unit = np.column_stack([np.cos(angles), np.sin(angles)])
        (self.circle,) = shape_ax.plot([], [], color=GAUSSIAN_COLOUR, lw=2)
        shape_ax.set_xlim(-self.box, self.box)
        shape_ax.set_ylim(-self.box, self.box)
        shape_ax.set_aspect("equal")
        shape_ax.set_xlabel(_(r"noise on coordinate 1 (units of $c / \varepsilon$)"))
        shape_ax.set_ylabel(_(r"noise on coordinate 2 (units of $c / \varepsilon$)"))
        shape_ax.set_title(_(r"$d = 2$: 90 % regions, diamond vs circle"), fontsize=10)
        legend_below(self.figure, (line_ax, shape_ax), ncols=3, markerscale=3)
        self.moving(self.laplace_line, self.gauss_line, self.classic_line)
        self.moving(self.laplace_dot, self.gauss_dot, self.crossover_line)
        self.moving(self.laplace_points, self.gauss_points, self.diamond, self.circle)

    def _apply(self, epsilon, delta, bound, dimension):
        dimension = check.positive_integer("dimension", dimension)
        unit_sigma = gaussian_sigma_analytic(epsilon, delta)
        unit_classic = gaussian_sigma_classic(epsilon, delta)
        bound = float(check.positive("bound", bound))
        dims = self.dims
        laplace_sd = np.sqrt(2.0) * dims * bound / epsilon
        gauss_sd = np.sqrt(dims) * bound * unit_sigma
        classic_sd = np.sqrt(dims) * bound * unit_classic
        crossover = crossover_dimension(epsilon, delta)
        # d = 2, in units of c / epsilon: Laplace scale 2, Gaussian sigma sqrt(2) epsilon s.
        laplace_scale_2d = 2.0
        sigma_2d = np.sqrt(2.0) * epsilon * unit_sigma
        diamond_radius = laplace_scale_2d * stats.gamma.ppf(_LEVEL, 2)
        circle_radius = sigma_2d * np.sqrt(stats.chi2.ppf(_LEVEL, 2))
        self.values = {
            "laplace": float(np.sqrt(2.0) * dimension * bound / epsilon),
            "gauss": float(np.sqrt(dimension) * bound * unit_sigma),
            "crossover": crossover,
            "classic_crossover": crossover_dimension(epsilon, delta, "classic"),
            "l1": dimension * bound,
            "l2": float(np.sqrt(dimension) * bound),
        }
        self.laplace_line.set_data(dims, laplace_sd)
        self.gauss_line.set_data(dims, gauss_sd)
        self.classic_line.set_data(dims, classic_sd)
        self.laplace_dot.set_data([dimension], [self.values["laplace"]])
        self.gauss_dot.set_data([dimension], [self.values["gauss"]])
        shown = min(max(crossover, self.dimension_range[0]), self.dimension_range[1])
        self.crossover_line.set_xdata([shown, shown])
        points = self.unit_laplace * laplace_scale_2d
        self.laplace_points.set_data(points[:, 0], points[:, 1])
        points = self.unit_normal * sigma_2d
        self.gauss_points.set_data(points[:, 0], points[:, 1])
        self.diamond.set_xy(
            diamond_radius * np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0], [0.0, -1.0]])
        )
        circle = self.circle_unit * circle_radius
        self.circle.set_data(circle[:, 0], circle[:, 1])

    def description(self):
        """MECH-5 in words for a reader who cannot see it, with the current numbers."""
        say, p = self.reader(), self.params
        return _(
            "Left: noise per coordinate against the dimension d: at d = {dimension} (bound "
            "c = {bound}, ε = {epsilon}, δ = {delta}) Laplace noise has standard deviation "
            "{laplace_sd} and Gaussian {gaussian_sd}; Gaussian is smaller beyond d = "
            "{crossover}. Right: samples of each in two dimensions, a diamond for Laplace and "
            "a circle for Gaussian."
        ).format(
            dimension=spoken(p["dimension"]),
            bound=spoken(p["bound"]),
            epsilon=spoken(p["epsilon"]),
            delta=spoken(p["delta"]),
            laplace_sd=say("Laplace sd"),
            gaussian_sd=say("Gaussian sd"),
            crossover=say("analytic"),
        )

    def numbers(self):
        """The readout beside MECH-5: the numbers it shows at the current setting."""
        v = self.values
        return {
            N_(r"$\ell_1$ sensitivity $d \cdot c$"): v["l1"],
            N_(r"$\ell_2$ sensitivity $\sqrt{d} \cdot c$"): v["l2"],
            N_("Laplace sd per coordinate"): v["laplace"],
            N_("Gaussian sd per coordinate"): v["gauss"],
            N_(r"crossover $d^*$ (analytic $\sigma$)"): v["crossover"],
            N_(r"crossover $d^*$ (classic $\sigma$) $= \ln(1.25/\delta)$"): v["classic_crossover"],
        }
