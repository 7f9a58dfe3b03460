"""Figures MECH-1 to MECH-3: sensitivity, and the Laplace and geometric mechanisms.

Every number comes from the core (``dplearn.privacy_loss``, ``dplearn.calibration``),
``dplearn.sensitivity`` and ``dplearn.optimality``; the figures only arrange them. The
Gaussian mechanism of lesson 06 (MECH-4, MECH-5) is drawn in ``dplearn.figures.gaussian``.

Taught in: 04-compute-sensitivity.ipynb, 05-add-laplace-and-geometric-noise.ipynb
"""

from __future__ import annotations

import inspect

import numpy as np
from matplotlib.collections import PolyCollection
from matplotlib.patches import Rectangle

from dplearn import _validation as check
from dplearn import optimality, privacy_loss, sensitivity
from dplearn.calibration import (
    laplace_scale,
)
from dplearn.figures.controls import (
    EPSILON,
    INTEGER_SENSITIVITY,
    SENSITIVITY,
    Choice,
    Control,
)
from dplearn.figures.explorers import Explorer, register, spoken
from dplearn.figures.legends import legend_below
from dplearn.figures.style import BLUE, GREEN, ORANGE, PURPLE
from dplearn.language import N_
from dplearn.language import gettext as _

__all__ = [
    "NeighbourDifferences",
    "LaplaceRatio",
    "GeometricOptimality",
]

D1_COLOUR, D2_COLOUR = BLUE, ORANGE
#: The readout's name of the Laplace scale.
SCALE_NAME = N_(r"scale $b = \Delta f / \varepsilon$")
LAPLACE_COLOUR, GAUSSIAN_COLOUR = GREEN, PURPLE
BOUND_COLOUR = "0.35"


# --------------------------------------------------------------------------- MECH-1


@register
class NeighbourDifferences(Explorer):
    """Figure MECH-1: |f(x) - f(y)| for the toy data set x and each of its neighbours y.

    Left: the 19 neighbours that add or remove one row; right: the 65 that replace one
    row. Bars are l1 distances, black ticks l2 distances (they differ for vector
    queries); the dashed line is the largest one, the local sensitivity.

    Args:
      query: a callable taking a tuple of rows (default: the clipped age sum). If it
        takes a keyword ``upper`` (a clipping bound), the slider c sets it.
      name: what to call the query in the title.
      rows: the data set x.
      universe: every row a data set may hold.

    Taught in: 04-compute-sensitivity.ipynb
    """

    figure_id = "MECH-1"
    title = N_("Sensitivity: |f(x) − f(y)| over the neighbours of a data set")
    controls = {
        "upper": Control(N_(r"clip $c$"), 15, 90, integer=True, description=N_("clipping bound"))
    }
    defaults = {"upper": 60}
    figsize = (10.0, 3.6)

    def __init__(self, query=None, *, name=None, rows=None, universe=None, figure=None, **params):
        self.query = sensitivity.clipped_age_sum if query is None else query
        if not callable(self.query):
            raise ValueError(f"query must be callable, got {self.query!r}")
        self.name = name or getattr(self.query, "__name__", "query").replace("_", " ")
        self.rows = sensitivity.TOY_DATA if rows is None else tuple(rows)
        self.universe = sensitivity.TOY_UNIVERSE if universe is None else tuple(universe)
        self.takes_bound = "upper" in inspect.signature(self.query).parameters
        self._cache = {}
        if not self.takes_bound:
            # A slider that changes nothing would only confuse: offer none.
            self.controls = {}
        super().__init__(figure=figure, **params)

    def _pairs(self, upper):
        # The slider offers whole ages: remember each answer, a slider comes back often.
        if upper not in self._cache:
            self._cache[upper] = self._compute_pairs(upper)
        return self._cache[upper]

    def _compute_pairs(self, upper):
        if self.takes_bound:

            def query(rows):
                return self.query(rows, upper=upper)
        else:
            query = self.query
        return {
            notion: sensitivity.neighbour_pairs(query, self.rows, self.universe, notion)
            for notion in ("add-remove", "replace")
        }

    def _build(self):
        control = type(self).controls["upper"]
        # Fixed axis: the largest difference over the slider's range (clipping is monotone).
        bounds = np.linspace(control.minimum, control.maximum, 5) if self.takes_bound else [None]
        highest = max(
            pair.l1 for upper in bounds for pairs in self._pairs(upper).values() for pair in pairs
        )
        top = 1.2 * highest if highest > 0 else 1.0
        first = self._pairs(self.defaults["upper"])
        self.axes = self.figure.subplots(
            1, 2, sharey=True, gridspec_kw={"width_ratios": [len(p) for p in first.values()]}
        )
        self.bars, self.l2_marks, self.max_lines = {}, {}, {}
        titles = {
            "add-remove": _("$f$ = {query}: add or remove one row").format(query=self.name),
            "replace": _("$f$ = the same: replace one row (size $n$ stays)"),
        }
        for ax, (notion, pairs) in zip(self.axes, first.items(), strict=True):
            positions = np.arange(len(pairs))
            # One collection for all bars: one draw call instead of one per rectangle.
            self.bars[notion] = PolyCollection(
                _bar_vertices(positions, np.zeros(len(pairs))), facecolors=D1_COLOUR
            )
            ax.add_collection(self.bars[notion])
            (self.l2_marks[notion],) = ax.plot(
                positions, np.zeros(len(pairs)), "_", color="black", markersize=6, label=r"$\ell_2$"
            )
            self.max_lines[notion] = ax.axhline(
                0.0,
                color="C3",
                linestyle="--",
                linewidth=1.2,
                label=_("largest: the local sensitivity"),
            )
            ax.set_xlim(-0.8, len(pairs) - 0.2)
            ax.set_ylim(0.0, top)
            ax.set_title(titles[notion], fontsize=10)
            ax.set_xlabel(
                _("neighbour $y$: one bar each")
                if notion == "add-remove"
                else _("neighbour $y$: one bar each, grouped by the row replaced")
            )
            centres, labels = _groups(pairs, notion)
            ax.set_xticks(centres, labels, fontsize=9)
            ax.tick_params(axis="x", length=0)
            self.moving(self.bars[notion], self.l2_marks[notion], self.max_lines[notion])
        self.axes[0].set_ylabel(_(r"$|f(x) - f(y)|$  (bars $\ell_1$, ticks $\ell_2$)"))
        legend_below(self.figure, self.axes[:1])

    def _apply(self, upper):
        if self.takes_bound:
            upper = float(check.positive("upper", upper))
        all_pairs = self._pairs(upper)
        self.result = {}
        for notion, pairs in all_pairs.items():
            l1 = np.array([pair.l1 for pair in pairs])
            l2 = np.array([pair.l2 for pair in pairs])
            worst = pairs[int(np.argmax(l1))]
            self.result[notion] = (float(l1.max()), float(l2.max()), worst)
        for notion, pairs in all_pairs.items():
            largest_l1, largest_l2, worst = self.result[notion]
            heights = np.array([pair.l1 for pair in pairs])
            self.bars[notion].set_verts(_bar_vertices(np.arange(len(pairs)), heights))
            # Every pair that reaches the maximum, not only the first one found.
            reaches = np.isclose(heights, largest_l1)
            self.bars[notion].set_facecolors(np.where(reaches, "C3", D1_COLOUR))
            self.l2_marks[notion].set_ydata([pair.l2 for pair in pairs])
            self.max_lines[notion].set_ydata([largest_l1, largest_l1])

    def description(self):
        """MECH-1 in words for a reader who cannot see it, with the current numbers."""
        say, p = self.reader(), self.params
        return _(
            "Bars: how much the query changes between the toy data set and each neighbour, "
            "left the neighbours that add or remove a row, right those that replace one; "
            "a dashed line marks the largest. At clip c = {clip} the local sensitivity is "
            "{add_remove_sensitivity} under add or remove ({add_remove_pair}) and "
            "{replace_sensitivity} under replace ({replace_pair})."
        ).format(
            clip=spoken(p["upper"]),
            add_remove_sensitivity=say("ell_1$ sensitivity, add"),
            add_remove_pair=say("pair, add"),
            replace_sensitivity=say("ell_1$ sensitivity, replace"),
            replace_pair=say("pair, replace"),
        )

    def numbers(self):
        """The readout beside MECH-1: the numbers it shows at the current setting."""
        add, replace = self.result["add-remove"], self.result["replace"]
        return {
            # One notion per readout column: at the page width the readout has two
            # columns of three.
            N_(r"$\ell_1$ sensitivity, add/remove (local)"): add[0],
            N_(r"$\ell_2$ sensitivity, add/remove (local)"): add[1],
            N_("a largest pair, add/remove"): add[2].description,
            N_(r"$\ell_1$ sensitivity, replace (local)"): replace[0],
            N_(r"$\ell_2$ sensitivity, replace (local)"): replace[1],
            N_("a largest pair, replace"): replace[2].description,
        }


def _stems(positions, heights, floor):
    """x and y of vertical segments from floor to each height, separated by NaNs."""
    nan = np.full(len(positions), np.nan)
    x = np.column_stack([positions, positions, nan]).ravel()
    y = np.column_stack([np.full(len(positions), floor), np.maximum(heights, floor), nan]).ravel()
    return x, y


def _bar_vertices(positions, heights, width=0.8):
    """Corners of one bar per position, for a PolyCollection."""
    left, right = positions - width / 2, positions + width / 2
    bottom = np.zeros_like(heights)
    corners = [(left, bottom), (left, heights), (right, heights), (right, bottom)]
    return np.stack([np.column_stack(corner) for corner in corners], axis=1)


def _groups(pairs, notion):
    """Tick positions and labels: one per run of neighbours that change the same row."""
    if notion == "add-remove":
        keys = [pair.description.split(" ", 1)[0] for pair in pairs]
    else:
        keys = [pair.description.split(" → ", 1)[0] for pair in pairs]
    centres, labels, start = [], [], 0
    for index in range(1, len(keys) + 1):
        if index == len(keys) or keys[index] != keys[start]:
            centres.append((start + index - 1) / 2.0)
            if notion == "add-remove":
                # The neighbours' first word, "add" or "remove", and how many there are.
                count = index - start
                label = _("add ({count})") if keys[start] == "add" else _("remove ({count})")
                labels.append(label.format(count=count))
            else:
                labels.append(f"{keys[start]} →")
            start = index
    return centres, labels


# --------------------------------------------------------------------------- MECH-2

_RATIO_LIMITS = (np.exp(-5.6), np.exp(5.6))


def _ratio_axis(ax):
    ax.set_yscale("log")
    ax.set_ylim(*_RATIO_LIMITS)
    ticks = [np.exp(k) for k in range(-5, 6)]
    ax.set_yticks(ticks, [f"$e^{{{k}}}$" if k else "1" for k in range(-5, 6)])
    ax.minorticks_off()


@register
class LaplaceRatio(Explorer):
    """Figure MECH-2: the Laplace mechanism's two output densities and their ratio.

    f(x) = 0 and f(y) = Δf; the noise scale is b = Δf / ε. The ratio
    p_x(z) / p_y(z) = exp((|z − Δf| − |z|) / b) stays in [e^−ε, e^ε], equals e^ε for
    every z <= f(x) and e^−ε for every z >= f(y) (the shaded parts: there the triangle
    inequality of the proof is an equality).

    Taught in: 05-add-laplace-and-geometric-noise.ipynb
    """

    figure_id = "MECH-2"
    title = N_("Laplace mechanism: the density ratio stays in [e^−ε, e^ε]")
    controls = {
        "epsilon": EPSILON.replace(minimum=0.1, maximum=5.0),
        "sensitivity": SENSITIVITY.replace(minimum=0.5, maximum=5.0, label=r"$\Delta f$"),
    }
    defaults = {"epsilon": 1.0, "sensitivity": 1.0}
    figsize = (10.0, 3.8)
    z_range = (-10.0, 15.0)

    def _build(self):
        self.z = np.linspace(*self.z_range, 1001)
        density_ax, ratio_ax = self.axes = self.figure.subplots(1, 2)
        (self.density_x,) = density_ax.plot(
            [], [], color=D1_COLOUR, label=r"$f(x) + \mathrm{Lap}(b)$"
        )
        (self.density_y,) = density_ax.plot(
            [], [], color=D2_COLOUR, ls="--", label=r"$f(y) + \mathrm{Lap}(b)$"
        )
        density_ax.set_yscale("log")
        density_ax.set_ylim(1e-4, 10.0)
        density_ax.set_xlim(*self.z_range)
        density_ax.set_xlabel(_("output $z$"))
        density_ax.set_ylabel(_("density (log scale)"))
        density_ax.set_title(_("output densities: two tents on a log scale"), fontsize=10)
        # Below the moving curves (zorder 2), so the static layer holds it whole.
        density_ax.axvline(0.0, color=D1_COLOUR, linewidth=0.8, linestyle=":", zorder=1.5)
        self.mark_y = density_ax.axvline(0.0, color=D2_COLOUR, linewidth=0.8, linestyle=":")

        _ratio_axis(ratio_ax)
        ratio_ax.set_xlim(*self.z_range)
        # f(x) = 0 whatever the sliders: the left region is static.
        height = _RATIO_LIMITS[1] - _RATIO_LIMITS[0]
        low = self.z_range[0]
        self.left_tight = Rectangle((low, _RATIO_LIMITS[0]), -low, height, alpha=0.15, zorder=0.7)
        self.right_tight = Rectangle(
            (0, _RATIO_LIMITS[0]), 0, 0, alpha=0.15, color=D2_COLOUR, zorder=0.8
        )
        self.left_tight.set_color(D1_COLOUR)
        ratio_ax.add_patch(self.left_tight)
        ratio_ax.add_patch(self.right_tight)
        (self.upper_bound,) = ratio_ax.plot(
            self.z_range,
            [1, 1],
            "--",
            color=BOUND_COLOUR,
            label=_(r"bounds $e^{\varepsilon}$ and $e^{-\varepsilon}$"),
        )
        (self.lower_bound,) = ratio_ax.plot(self.z_range, [1, 1], "--", color=BOUND_COLOUR)
        (self.ratio_line,) = ratio_ax.plot([], [], color="C3", linewidth=2, label=_("ratio"))
        legend_below(self.figure, (density_ax, ratio_ax))
        ratio_ax.set_xlabel(_("output $z$"))
        ratio_ax.set_ylabel(_("ratio $p_x(z) / p_y(z)$ (log scale)"))
        ratio_ax.set_title(
            _(
                r"ratio: $e^{\varepsilon}$ where $z \leq f(x)$, "
                r"$e^{-\varepsilon}$ where $z \geq f(y)$"
            ),
            fontsize=10,
        )
        self.moving(self.density_x, self.density_y, self.mark_y)
        self.moving(self.right_tight, self.upper_bound, self.lower_bound, self.ratio_line)

    def _apply(self, epsilon, sensitivity):
        scale = laplace_scale(epsilon, sensitivity)
        pair = privacy_loss.laplace(scale, sensitivity)
        density_x, density_y = pair.density_d1(self.z), pair.density_d2(self.z)
        loss = pair.privacy_loss(self.z)
        ratio = np.exp(loss)
        self.values = {
            "epsilon": float(epsilon),
            "sensitivity": float(sensitivity),
            "scale": scale,
            "max_ratio": float(ratio.max()),
            "min_ratio": float(ratio.min()),
        }
        low, high = self.z_range
        self.density_x.set_data(self.z, density_x)
        self.density_y.set_data(self.z, density_y)
        self.mark_y.set_xdata([sensitivity, sensitivity])
        self.ratio_line.set_data(self.z, ratio)
        height = _RATIO_LIMITS[1] - _RATIO_LIMITS[0]
        self.right_tight.set_bounds(sensitivity, _RATIO_LIMITS[0], high - sensitivity, height)
        bound = np.exp(epsilon)
        self.upper_bound.set_ydata([bound, bound])
        self.lower_bound.set_ydata([1 / bound, 1 / bound])

    def description(self):
        """MECH-2 in words for a reader who cannot see it, with the current numbers."""
        say, p = self.reader(), self.params
        upper = "$e^{\\varepsilon}$"
        return _(
            "Left: the two Laplace output densities, centred at 0 and Δf = {sensitivity}, of "
            "scale b = {scale} (ε = {epsilon}). Right: their ratio stays between e^-ε = "
            "{lower_bound} and e^ε = {upper_bound}, and reaches those bounds in the shaded "
            "parts outside the two centres."
        ).format(
            sensitivity=spoken(p["sensitivity"]),
            scale=say("scale"),
            epsilon=spoken(p["epsilon"]),
            lower_bound=say("e^{-"),
            upper_bound=say(upper),
        )

    def numbers(self):
        """The readout beside MECH-2: the numbers it shows at the current setting."""
        v = self.values
        return {
            SCALE_NAME: v["scale"],
            N_("largest ratio on the grid"): v["max_ratio"],
            r"$e^{\varepsilon}$": float(np.exp(v["epsilon"])),
            N_("smallest ratio on the grid"): v["min_ratio"],
            r"$e^{-\varepsilon}$": float(np.exp(-v["epsilon"])),
        }


# --------------------------------------------------------------------------- MECH-3


@register
class GeometricOptimality(Explorer):
    """Figure MECH-3: the geometric mechanism, its ratio bound, and its optimality.

    Left: the pmfs of f(x) + noise and f(y) + noise, noise two-sided geometric with
    P(k) proportional to e^(−ε|k|/Δ). Middle: their ratio at every integer, inside
    [e^−ε, e^ε]. Right: for a count in {0, ..., 8} with a Binomial(8, 0.3) prior, the
    expected loss of the best ε-DP mechanism (a linear program, solved at every ε on
    the grid and again at the slider's ε), of the truncated geometric mechanism as it
    is, and after the best remap of its output: the remapped points lie on the LP
    curve (Ghosh, Roughgarden & Sundararajan).

    Taught in: 05-add-laplace-and-geometric-noise.ipynb
    """

    figure_id = "MECH-3"
    title = N_("Geometric mechanism: ratio bound and universal optimality")
    controls = {
        "epsilon": EPSILON.replace(minimum=0.1, maximum=5.0),
        "sensitivity": INTEGER_SENSITIVITY.replace(maximum=5, label=r"$\Delta f$"),
        "loss": Choice(
            N_("loss"),
            (N_("absolute"), N_("squared"), N_("beyond tolerance")),
            N_("what a wrong answer j for the true count i costs"),
        ),
    }
    defaults = {"epsilon": 1.0, "sensitivity": 1, "loss": "absolute"}
    figsize = (12.0, 3.8)
    outputs = np.arange(-10, 16)
    count_range = 8
    #: Each loss's formula, for the figure's legend.
    loss_formulas = {
        "absolute": r"$|i - j|$",
        "squared": r"$(i - j)^2$",
        "beyond tolerance": r"$1$ if $|i - j| > 1$",
    }
    #: Loss name -> curves over epsilon (see ``_curve``), shared by every instance.
    _curves: dict[str, tuple] = {}

    @classmethod
    def prior(cls):
        """The prior over the true count: Binomial(8, 0.3)."""
        return optimality.binomial_prior(cls.count_range, 0.3)

    @classmethod
    def _curve(cls, loss):
        """Curves over epsilon for one loss, computed once: they do not depend on sliders.

        Returns (epsilons, LP optima, remapped geometric losses, dense epsilons,
        losses of the geometric mechanism as is).
        """
        name = loss
        if name not in cls._curves:
            prior = cls.prior()
            losses = optimality.loss_matrix(cls.count_range, name)
            epsilons = np.geomspace(0.1, 5.0, 15)
            optima = [
                optimality.optimal_mechanism(prior, losses, e).expected_loss for e in epsilons
            ]
            remapped = [
                optimality.best_remap(
                    optimality.truncated_geometric(cls.count_range, e), prior, losses
                ).expected_loss
                for e in epsilons
            ]
            dense = np.geomspace(0.1, 5.0, 40)
            raw = [
                optimality.expected_loss(
                    optimality.truncated_geometric(cls.count_range, e), prior, losses
                )
                for e in dense
            ]
            cls._curves[name] = (epsilons, np.array(optima), np.array(remapped), dense, raw)
        return cls._curves[name]

    def _build(self):
        pmf_ax, ratio_ax, loss_ax = self.axes = self.figure.subplots(
            1, 3, gridspec_kw={"width_ratios": [1.0, 1.0, 1.1]}
        )
        k = self.outputs
        # Stems as one line each, broken by NaNs, with a dot on top (the dot at the
        # stem's foot lies below the axes): much cheaper to draw than a collection.
        (self.stems_x,) = pmf_ax.plot([], [], "-o", ms=3, lw=2, color=D1_COLOUR)
        (self.stems_y,) = pmf_ax.plot([], [], "-s", ms=3, lw=2, color=D2_COLOUR)
        self.stems_x.set_label(_("$f(x) = 0$, plus noise"))
        self.stems_y.set_label(_(r"$f(y) = \Delta f$, plus noise"))
        pmf_ax.set_yscale("log")
        pmf_ax.set_ylim(1e-6, 1.5)
        pmf_ax.set_xlim(k[0] - 0.8, k[-1] + 0.8)
        pmf_ax.set_xlabel(_("output $z$ (an integer)"))
        pmf_ax.set_ylabel(_("probability (log scale)"))
        pmf_ax.set_title(_("geometric pmfs"), fontsize=10)

        _ratio_axis(ratio_ax)
        ratio_ax.set_xlim(k[0] - 0.8, k[-1] + 0.8)
        # Both bounds in one line, broken by a NaN.
        (self.bounds,) = ratio_ax.plot([], [], "--", color=BOUND_COLOUR)
        (self.ratio_dots,) = ratio_ax.plot(k, np.ones(k.size), "o", color="C3", ms=4)
        ratio_ax.set_xlabel(_("output $z$"))
        ratio_ax.set_ylabel(r"$\Pr[M(x) = z] / \Pr[M(y) = z]$")
        ratio_ax.set_title(_(r"ratio, with the bounds $e^{\pm\varepsilon}$"), fontsize=10)

        (self.lp_curve,) = loss_ax.plot(
            [], [], color="black", label=_(r"best $\varepsilon$-DP mechanism (LP)")
        )
        (self.raw_curve,) = loss_ax.plot(
            [], [], "--", color=D1_COLOUR, label=_("truncated geometric, as is")
        )
        (self.remap_curve,) = loss_ax.plot(
            [], [], "o", color="C3", ms=4, mfc="none", label=_("geometric + best remap")
        )
        (self.lp_now,) = loss_ax.plot([], [], "s", color="black", ms=7, mfc="none")
        # It stops below the loss note, which it would otherwise cross at every epsilon.
        self.epsilon_line = loss_ax.axvline(1.0, ymax=0.84, color=BOUND_COLOUR, linewidth=0.8)
        loss_ax.set_xscale("log")
        loss_ax.set_yscale("log")
        loss_ax.set_xlim(0.09, 5.5)
        loss_ax.set_ylim(1e-5, 30.0)
        loss_ax.set_xlabel(r"$\varepsilon$")
        loss_ax.set_ylabel(_("expected loss"))
        loss_ax.set_title(
            _("count in 0..{largest_count}, prior Binomial({largest_count}, 0.3)").format(
                largest_count=self.count_range
            ),
            fontsize=10,
        )
        # Says which loss the buttons chose: one of three strings, so mathtext parses
        # each once (matplotlib caches the layout) however often the loss changes.
        # On a white box above the curves and the epsilon line.
        self.loss_note = loss_ax.text(
            0.97,
            0.97,
            "",
            transform=loss_ax.transAxes,
            ha="right",
            va="top",
            fontsize=10,
            zorder=5,
            bbox={"facecolor": "white", "edgecolor": "0.8", "alpha": 0.9},
        )
        legend_below(self.figure, (pmf_ax, loss_ax), ncols=5)
        self.moving(self.stems_x, self.stems_y, self.bounds, self.ratio_dots)
        self.moving(self.lp_curve, self.raw_curve, self.remap_curve, self.lp_now, self.loss_note)
        # All three losses at build time (45 small LPs, once per kernel): no slider move waits.
        for loss in self.loss_formulas:
            self._curve(loss)
        self.moving(self.epsilon_line)

    def _apply(self, epsilon, sensitivity, loss):
        loss = type(self).controls["loss"].check("loss", loss)
        scale = laplace_scale(epsilon, sensitivity)
        pair = privacy_loss.discrete_laplace(scale, sensitivity)
        pmf_x, pmf_y = pair.density_d1(self.outputs), pair.density_d2(self.outputs)
        ratio = np.exp(pair.privacy_loss(self.outputs))
        prior = self.prior()
        losses = optimality.loss_matrix(self.count_range, loss)
        comparison = optimality.compare(prior, losses, epsilon)
        epsilons, optima, remapped_grid, dense, raw = self._curve(loss)
        self.comparison = comparison
        self.values = {"epsilon": float(epsilon), "max_ratio": float(ratio.max())}
        floor = 1e-7
        k = self.outputs
        self.stems_x.set_data(*_stems(k - 0.12, pmf_x, floor))
        self.stems_y.set_data(*_stems(k + 0.12, pmf_y, floor))
        bound = np.exp(epsilon)
        low, high = k[0] - 0.8, k[-1] + 0.8
        self.bounds.set_data(
            [low, high, np.nan, low, high], [bound, bound, np.nan, 1 / bound, 1 / bound]
        )
        self.ratio_dots.set_ydata(ratio)
        self.lp_curve.set_data(epsilons, optima)
        self.raw_curve.set_data(dense, raw)
        self.remap_curve.set_data(epsilons, remapped_grid)
        self.lp_now.set_data([epsilon], [comparison.optimal.expected_loss])
        self.epsilon_line.set_xdata([epsilon, epsilon])
        self.loss_note.set_text(
            _("loss: {loss}, {formula}").format(loss=_(loss), formula=self.loss_formulas[loss])
        )

    def description(self):
        """MECH-3 in words for a reader who cannot see it, with the current numbers."""
        say, p = self.reader(), self.params
        return _(
            "Left: the geometric mechanism's probabilities for two neighbouring counts "
            "(ε = {epsilon}, Δf = {sensitivity}); middle: their ratio at every integer, at "
            "most e^ε = {ratio_bound}. Right: the expected {loss} loss against ε: the best "
            "ε-DP mechanism {optimum}, the truncated geometric as it is {geometric}, and "
            "after the best remap {remapped}, which lies on the best."
        ).format(
            epsilon=spoken(p["epsilon"]),
            sensitivity=spoken(p["sensitivity"]),
            ratio_bound=say("$e^"),
            loss=_(p["loss"]),
            optimum=say("LP optimum"),
            geometric=say("as is"),
            remapped=say("best remap"),
        )

    def numbers(self):
        """The readout beside MECH-3: the numbers it shows at the current setting."""
        c = self.comparison
        return {
            N_("largest ratio"): self.values["max_ratio"],
            r"$e^{\varepsilon}$": float(np.exp(self.values["epsilon"])),
            N_("LP optimum (expected loss)"): c.optimal.expected_loss,
            N_("geometric + best remap"): c.remapped.expected_loss,
            N_("truncated geometric, as is"): c.geometric.expected_loss,
            N_("remapped − LP"): c.gap,
        }
