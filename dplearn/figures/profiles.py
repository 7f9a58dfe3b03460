"""Figures COMP-3 and COMP-4: basic, advanced, optimal and exact composition of Laplace releases.

Lesson 08's bounds: privacy profiles delta(epsilon) of k Laplace releases from the exact
composition and from (epsilon0, delta0) alone (COMP-3), and epsilon at a fixed delta
against the number of releases (COMP-4). The setting, the controls and the base class are
those of ``dplearn.figures.composition``; every number comes from ``dplearn.composition``.

Taught in: 08-add-up-privacy-losses.ipynb
"""

from __future__ import annotations

import functools

import numpy as np
from matplotlib.lines import Line2D

from dplearn import composition, privacy_loss
from dplearn.composition import first_advanced_win
from dplearn.figures.composition import (
    ADVANCED_COLOR,
    BASIC_COLOR,
    DOCUMENT_EPSILON0,
    EPSILON0_CONTROL,
    EXACT_COLOR,
    LAPLACE_MAX_RELEASES,
    LAPLACE_RELEASES_CONTROL,
    OPTIMAL_COLOR,
    RELEASES_CONTROL,
    _CompositionFigure,
    legend_beside,
)
from dplearn.figures.controls import DELTA, EPSILON
from dplearn.figures.explorers import register, spoken
from dplearn.figures.sliders import exponent_control
from dplearn.figures.style import BAD_COLOR
from dplearn.figures.text import (
    Note,
    value_text,
)
from dplearn.language import N_
from dplearn.language import gettext as _

__all__ = [
    "PrivacyProfiles",
    "EpsilonAgainstReleases",
]


# ---------------------------------------------------------------------------

LAPLACE_EPSILON0 = EPSILON0_CONTROL.replace(label=N_(r"$\varepsilon_0$ per release"))


@register
class PrivacyProfiles(_CompositionFigure):
    """COMP-3: privacy profiles delta(epsilon) of k Laplace releases, log scale.

    Exact: the k-fold Laplace composition. Optimal: the k-fold composition of the worst
    epsilon0-DP mechanism (Kairouz, Oh & Viswanath 2015), the best any accountant can say
    knowing only that each release is epsilon0-DP. Advanced: Dwork, Rothblum & Vadhan's
    theorem, the smallest slack delta' with which it reaches epsilon. Basic: the single
    point (k epsilon0, 0). The star is where the advanced curve meets the basic point's
    epsilon: for every delta above it, advanced composition gives a smaller epsilon.

    Laplace only: the bounds start from a pure epsilon0 per release.

    Taught in: 08-add-up-privacy-losses.ipynb
    """

    figure_id = "COMP-3"
    title = N_("Privacy profiles: exact, optimal, advanced and basic composition")
    controls = {
        "epsilon0": LAPLACE_EPSILON0,
        "releases": LAPLACE_RELEASES_CONTROL,
        "epsilon": EPSILON.replace(minimum=0.01, maximum=200.0),
    }
    defaults = {"epsilon0": DOCUMENT_EPSILON0, "releases": 10, "epsilon": 0.75}
    figsize = (9.5, 3.7)
    floor = 1e-12
    points = 240

    def _create(self):
        ax = self.axes = self.figure.subplots()
        ax.set_yscale("log")
        (self.exact,) = ax.plot([], [], color=EXACT_COLOR, lw=2)
        (self.optimal,) = ax.plot([], [], color=OPTIMAL_COLOR, lw=2)
        (self.advanced,) = ax.plot([], [], color=ADVANCED_COLOR, lw=2)
        (self.basic,) = ax.plot([], [], color=BASIC_COLOR, lw=2, ls="--")
        (self.basic_point,) = ax.plot([], [], "v", color=BASIC_COLOR, ms=9, clip_on=False)
        (self.crossing,) = ax.plot([], [], "*", color=ADVANCED_COLOR, ms=13, mec="black", mew=0.6)
        (self.epsilon_line,) = ax.plot([], [], color=BAD_COLOR, ls=":", lw=1.2)
        (self.marks,) = ax.plot([], [], "o", color="black", ms=5, ls="none")
        self.note = Note(ax, 0.01, 0.03, ha="left", va="bottom")
        self.moving(
            self.exact,
            self.optimal,
            self.advanced,
            self.basic,
            self.basic_point,
            self.crossing,
            self.epsilon_line,
            self.marks,
            *self.note.artists,
        )
        self._moving_xaxis(ax)
        ax.set_ylim(self.floor, 2.0)
        ax.set_ylabel(r"$\delta(\varepsilon)$")
        self._static_xlabel(ax, _(r"$\varepsilon$ of the $k$ releases together"))
        ax.set_title(
            _(r"COMP-3 · privacy profiles of $k$ Laplace releases, each $\varepsilon_0$-DP")
        )
        handles = [
            Line2D([], [], color=EXACT_COLOR, lw=2, label=_(r"exact: $k \times$ Laplace")),
            Line2D(
                [],
                [],
                color=OPTIMAL_COLOR,
                lw=2,
                label=_(r"optimal: $k \times$ any $\varepsilon_0$-DP"),
            ),
            Line2D([], [], color=ADVANCED_COLOR, lw=2, label=_("advanced (DRV 2010)")),
            Line2D(
                [],
                [],
                color=BASIC_COLOR,
                lw=2,
                ls="--",
                marker="v",
                label=_(r"basic: $(k\varepsilon_0, 0)$"),
            ),
            Line2D(
                [],
                [],
                color=ADVANCED_COLOR,
                marker="*",
                ls="none",
                mec="black",
                ms=11,
                label=_("advanced meets basic"),
            ),
        ]
        legend_beside(ax, handles)
        # Where the two curves coincide on the log axis, the order (exact never above
        # optimal) cannot be seen: an inset draws exact / optimal, at most 1 everywhere.
        # Its x-axis is epsilon / (k epsilon0), so its ticks never move.
        # Lower left: the profiles stay above 1e-3 there; lines that cross pass behind it.
        inset = self.ratio_axes = ax.inset_axes([0.07, 0.1, 0.33, 0.34], zorder=5)
        inset.axhline(1.0, color=OPTIMAL_COLOR, lw=1)
        (self.ratio,) = inset.plot([], [], color=EXACT_COLOR, lw=1.5)
        self.moving(self.ratio)
        inset.set_xlim(0.0, 1.15)
        inset.set_ylim(0.0, 1.1)
        inset.set_xticks([0.0, 0.5, 1.0])
        inset.set_yticks([0.0, 0.5, 1.0])
        inset.tick_params(labelsize=8)
        inset.text(
            0.03,
            0.06,
            _(r"exact $\div$ optimal $\delta$, against $\varepsilon / (k\varepsilon_0)$"),
            transform=inset.transAxes,
            fontsize=8,
        )

    def _apply(self, epsilon0, releases, epsilon):
        k = int(releases)
        pair = privacy_loss.laplace(1.0 / epsilon0)
        composed = composition.compose(pair, k)
        basic_epsilon = composition.basic(epsilon0, 0.0, k)[0]
        right = 1.15 * max(basic_epsilon, 1e-9)
        grid = np.linspace(0.0, right, self.points)
        exact = np.asarray(composed.delta(grid), dtype=float)
        optimal = np.asarray(composition.optimal_delta(epsilon0, 0.0, k, grid), dtype=float)
        advanced = np.minimum(
            np.asarray(composition.advanced_delta(epsilon0, k, grid), dtype=float), 1.0
        )
        floor = self.floor / 10
        self.exact.set_data(grid, np.maximum(exact, floor))
        self.optimal.set_data(grid, np.maximum(optimal, floor))
        self.advanced.set_data(grid, np.maximum(advanced, floor))
        # Exact over optimal where the optimal delta is above the floor (0 beyond k eps0).
        positive = optimal > self.floor
        self.ratio.set_data(
            grid[positive] / max(basic_epsilon, 1e-9), exact[positive] / optimal[positive]
        )
        self.basic.set_data([basic_epsilon, basic_epsilon], [floor, 1.0])
        self.basic_point.set_data([basic_epsilon], [self.floor])
        crossing = float(composition.advanced_delta(epsilon0, k, basic_epsilon))
        self.crossing.set_data([basic_epsilon], [max(min(crossing, 1.0), floor)])
        self.crossing.set_visible(crossing < 1.0)
        self._set_moving_xlim(self.axes, 0.0, right)
        shown = min(epsilon, right)
        self.epsilon_line.set_data([shown, shown], [floor, 1.0])
        at = dict(
            exact=float(composed.delta(epsilon)),
            optimal=float(composition.optimal_delta(epsilon0, 0.0, k, epsilon)),
            advanced=min(float(composition.advanced_delta(epsilon0, k, epsilon)), 1.0),
            basic=0.0 if epsilon >= basic_epsilon else 1.0,
        )
        values = [at["exact"], at["optimal"], at["advanced"]]
        self.marks.set_data([shown] * 3, [max(v, floor) for v in values])
        self.note.set_text(
            _("ε = {epsilon} (off the axis →)").format(epsilon=value_text(epsilon))
            if epsilon > right
            else ""
        )
        self.state = dict(
            k=k,
            epsilon=epsilon,
            at=at,
            crossing=crossing,
            basic_epsilon=basic_epsilon,
            grid=grid,
            exact=exact,
            optimal=optimal,
            advanced=advanced,
        )

    def description(self):
        """COMP-3 in words for a reader who cannot see it, with the current numbers."""
        say, p = self.reader(), self.params
        return _(
            "Privacy profiles, δ against ε on a log scale, for k = {releases} Laplace releases "
            "of ε₀ = {epsilon0}: at ε = {epsilon} the exact δ is {exact_delta}, the optimal "
            "bound {optimal_delta}, advanced composition {advanced_delta}, while basic "
            "composition reaches δ = 0 only at ε = {basic_epsilon}. Advanced beats basic for "
            "δ above {crossing_delta}."
        ).format(
            releases=spoken(p["releases"]),
            epsilon0=spoken(p["epsilon0"]),
            epsilon=spoken(p["epsilon"]),
            exact_delta=say("exact"),
            optimal_delta=say("optimal"),
            advanced_delta=say("advanced ("),
            basic_epsilon=say("basic:"),
            crossing_delta=say("beats"),
        )

    def numbers(self):
        """The readout beside COMP-3: the numbers it shows at the current setting."""
        s = self.state
        return {
            N_(r"$\delta$ exact ($k$ × Laplace)"): s["at"]["exact"],
            N_(r"$\delta$ optimal ($k$ × any $\varepsilon_0$-DP)"): s["at"]["optimal"],
            N_(r"$\delta$ advanced (smallest $\delta'$)"): s["at"]["advanced"],
            N_(r"basic: $k\varepsilon_0$ ($\delta = 0$ from there)"): s["basic_epsilon"],
            N_(r"advanced beats basic for $\delta$ above"): s["crossing"],
        }


@register
class EpsilonAgainstReleases(_CompositionFigure):
    """COMP-4: epsilon at a fixed delta against the number of releases k (log-log).

    Basic grows like k; advanced like sqrt(k), plus k epsilon0 (e^epsilon0 - 1); the
    optimal composition of k epsilon0-DP releases and the exact k-fold Laplace lie below
    both. The exact curve stops at k = 100.

    Taught in: 08-add-up-privacy-losses.ipynb
    """

    figure_id = "COMP-4"
    title = N_("ε at a fixed δ against the number of releases")
    controls = {
        "epsilon0": LAPLACE_EPSILON0,
        "delta": exponent_control(DELTA.replace(minimum=1e-10, maximum=0.1)),
        "releases": RELEASES_CONTROL.replace(description=N_("the k marked on the curves")),
    }
    defaults = {"epsilon0": DOCUMENT_EPSILON0, "delta": 1e-5, "releases": 100}
    figsize = (9.5, 3.7)
    releases_grid = np.unique(np.round(np.geomspace(1, 1000, 20)).astype(int))
    exact_grid = np.array([1, 2, 5, 10, 20, 50, 100])
    exact_curve_steps = 100

    def _create(self):
        ax = self.axes = self.figure.subplots()
        ax.set_xscale("log")
        ax.set_yscale("log")
        (self.basic,) = ax.plot([], [], color=BASIC_COLOR, lw=2, ls="--")
        (self.advanced,) = ax.plot([], [], color=ADVANCED_COLOR, lw=2)
        (self.optimal,) = ax.plot([], [], color=OPTIMAL_COLOR, lw=2)
        (self.exact,) = ax.plot([], [], color=EXACT_COLOR, lw=2, marker="o", ms=3.5)
        (self.win,) = ax.plot([], [], color=ADVANCED_COLOR, ls=":", lw=1.2)
        (self.release_line,) = ax.plot([], [], color="black", ls=":", lw=1)
        (self.marks,) = ax.plot([], [], "o", color="black", ms=5, ls="none")
        # Beside the axes, under the legend: the k line (any k from 1 to 1000) and the
        # line where advanced wins cross every place inside the axes.
        self.note = Note(ax, 1.02, 0.0, ha="left", va="bottom")
        self.moving(
            self.basic,
            self.advanced,
            self.optimal,
            self.exact,
            self.win,
            self.release_line,
            self.marks,
            *self.note.artists,
        )
        # A margin beyond k = 1 and k = 1000, the slider's ends: a dot there shows whole.
        ax.set_xlim(1 / 1.05, 1000 * 1.05)
        ax.set_ylim(1e-3, 5e3)
        ax.set_xlabel(_(r"number of releases $k$"))
        ax.set_ylabel(_(r"$\varepsilon$ at $\delta$"))
        ax.set_title(
            _(
                r"COMP-4 · $\varepsilon$ at a fixed $\delta$: basic $\propto k$, "
                r"advanced $\propto \sqrt{k}$"
            )
        )
        handles = [
            Line2D([], [], color=BASIC_COLOR, lw=2, ls="--", label=_(r"basic $k\varepsilon_0$")),
            Line2D([], [], color=ADVANCED_COLOR, lw=2, label=_("advanced (DRV 2010)")),
            Line2D(
                [],
                [],
                color=OPTIMAL_COLOR,
                lw=2,
                label=_(r"optimal: $k \times$ any $\varepsilon_0$-DP"),
            ),
            Line2D(
                [],
                [],
                color=EXACT_COLOR,
                lw=2,
                marker="o",
                ms=3.5,
                label=_(r"exact: $k \times$ Laplace ($k \leq 100$)"),
            ),
            Line2D([], [], color=ADVANCED_COLOR, ls=":", label=_("advanced first beats basic")),
        ]
        legend_beside(ax, handles)

    @classmethod
    def _exact_curve(cls, pair, epsilon0, delta):
        """epsilon at delta of k Laplace releases for k in exact_grid, for drawing.

        Composing the closed form anew for each k is too slow for a curve of many k, so the
        curve is drawn from an accountant's pessimistic PLD on a grid of width
        epsilon0 / 100, composed by FFT for each k: it lies within 0.2 % of
        the exact curve (the tests check), far below the line width on these log axes.
        The marked point at the slider's k and the readout are the exact closed form.
        """
        single = composition.pld(pair, epsilon0 / cls.exact_curve_steps, pessimistic=True)
        return np.array(
            [float(single.self_compose(int(n)).epsilon_for_delta(delta)) for n in cls.exact_grid]
        )

    def _curves(self, epsilon0, delta):
        """The four curves and the first k at which advanced wins, for one (epsilon0, delta).

        Kept for the last few hundred (epsilon0, delta): a slider snaps to a grid of
        values, so moving k, or moving epsilon0 or delta back and forth, finds them again.
        """
        return _releases_curves(type(self), epsilon0, delta)

    def _apply(self, epsilon0, delta, releases):
        k = int(releases)
        grid = self.releases_grid
        basic, advanced, optimal, exact, win = self._curves(epsilon0, delta)
        floor = 1e-4
        self.basic.set_data(grid, basic)
        self.advanced.set_data(grid, advanced)
        self.optimal.set_data(grid, np.maximum(optimal, floor))
        self.exact.set_data(self.exact_grid, np.maximum(exact, floor))
        if win is not None and win <= 1000:
            self.win.set_data([win, win], [1e-3, 5e3])
            self.win.set_visible(True)
        else:
            self.win.set_visible(False)
        at = dict(
            basic=float(composition.basic(epsilon0, 0.0, k)[0]),
            advanced=float(composition.advanced(epsilon0, 0.0, k, delta)[0]),
            optimal=float(composition.optimal_epsilon(epsilon0, 0.0, k, delta)),
            exact=_exact_epsilon(epsilon0, k, delta) if k <= LAPLACE_MAX_RELEASES else float("nan"),
        )
        shown = [at["basic"], at["advanced"], at["optimal"]]
        if k <= LAPLACE_MAX_RELEASES:
            shown.append(at["exact"])
        self.release_line.set_data([k, k], [1e-3, 5e3])
        self.marks.set_data([k] * len(shown), np.maximum(shown, floor))
        if win is None:
            win_text = _("advanced never beats basic\n(ε₀ ≥ ln 2)")
        elif win > grid[-1]:
            win_text = _("advanced first beats basic\nat k = {releases} (beyond this axis)")
        else:
            win_text = _("advanced first beats basic\nat k = {releases}")
        self.note.set_text(win_text.format(releases=win))
        self.state = dict(
            k=k,
            delta=delta,
            at=at,
            win=win,
            basic=basic,
            advanced=advanced,
            optimal=optimal,
            exact=exact,
        )

    def description(self):
        """COMP-4 in words for a reader who cannot see it, with the current numbers."""
        say, p = self.reader(), self.params
        return _(
            "ε at δ = {delta} against the number of releases k, log-log, ε₀ = {epsilon0} each: "
            "at k = {releases} basic composition gives {basic_epsilon}, advanced "
            "{advanced_epsilon}, the optimal {optimal_epsilon} and exact Laplace "
            "{exact_epsilon}. Advanced first beats basic at k = {first_win}."
        ).format(
            delta=spoken(p["delta"]),
            epsilon0=spoken(p["epsilon0"]),
            releases=spoken(p["releases"]),
            basic_epsilon=say("ilon$ basic"),
            advanced_epsilon=say("ilon$ advanced"),
            optimal_epsilon=say("optimal"),
            exact_epsilon=say("exact"),
            first_win=say("first beats"),
        )

    def numbers(self):
        """The readout beside COMP-4: the numbers it shows at the current setting."""
        s = self.state
        exact = s["at"]["exact"]
        return {
            N_(r"$\varepsilon$ basic"): s["at"]["basic"],
            N_(r"$\varepsilon$ advanced"): s["at"]["advanced"],
            N_(r"$\varepsilon$ optimal ($k$ × any $\varepsilon_0$-DP)"): s["at"]["optimal"],
            N_(r"$\varepsilon$ exact ($k$ × Laplace)"): exact
            if np.isfinite(exact)
            else _("only for k ≤ 100"),
            N_(r"advanced first beats basic at $k$"): s["win"]
            if s["win"] is not None
            else _("never"),
        }


@functools.lru_cache(maxsize=256)
def _releases_curves(figure, epsilon0, delta):
    """COMP-4's curves against k for one (epsilon0, delta), read-only (shared by figures)."""
    pair = privacy_loss.laplace(1.0 / epsilon0)
    grid = figure.releases_grid
    curves = (
        np.asarray(composition.basic(epsilon0, 0.0, grid)[0], dtype=float),
        np.asarray(composition.advanced(epsilon0, 0.0, grid, delta)[0], dtype=float),
        np.array([composition.optimal_epsilon(epsilon0, 0.0, int(n), delta) for n in grid]),
        figure._exact_curve(pair, epsilon0, delta),
    )
    for curve in curves:
        curve.setflags(write=False)
    return (*curves, first_advanced_win(epsilon0, delta))


@functools.lru_cache(maxsize=1024)
def _exact_epsilon(epsilon0, k, delta):
    """Exact epsilon at delta of k Laplace releases of epsilon0 (the closed form)."""
    return float(
        composition.compose(privacy_loss.laplace(1.0 / epsilon0), k).epsilon_for_delta(delta)
    )
