"""Figures COMP-1 to COMP-6: composition, or what happens when several answers are published.

Run a mechanism k times with fresh noise on the same data and publish every answer: the
attacker's privacy loss is the sum L = L_1 + ... + L_k of the single losses, because the
density of the k outputs is the product of the single densities and the log of a product
of ratios is the sum of their logs. Every number drawn or quoted here comes from
``dplearn.composition`` (exact k-fold composition, the bounds from (epsilon0, delta0),
privacy loss distributions, trade-off curves); this module only turns them into artists.

The setting is the one of the earlier lessons: a count, sensitivity 1, Gaussian noise of
standard deviation sigma or Laplace noise of scale 1/epsilon0 (so one release is
epsilon0-DP). A toggle picks the mechanism. The k slider runs to 1000; Laplace figures
clip it at 100 (the largest k for which the core composes Laplace noise in a slider move)
and say so in the figure.

Moving text (the notes and tick numbers written into the axes) is plain Unicode, not
mathtext, drawn as glyph outlines cached per string (``dplearn.figures.text``): it is
drawn on every frame, and laying out and rasterising text there would take most of the
frame budget. Titles, axis labels and legends are mathtext and stay in the cached static
layer.

Taught in: 08-add-up-privacy-losses.ipynb, 09-count-privacy-with-an-accountant.ipynb
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np
from matplotlib import transforms
from matplotlib.lines import Line2D
from matplotlib.patches import Patch, Polygon
from scipy.optimize import elementwise

from dplearn import composition, privacy_loss
from dplearn.composition import first_advanced_win
from dplearn.figures.controls import DELTA, EPSILON, SIGMA, Choice, Control
from dplearn.figures.explorers import Explorer, register
from dplearn.figures.grids import curve_positions, probability_grid
from dplearn.figures.legends import legend_below
from dplearn.figures.sliders import exponent_control
from dplearn.figures.style import AREA_COLOR, BAD_COLOR
from dplearn.figures.text import (
    NOTE_SIZE,
    TICK_COUNT,
    MovingXAxis,
    Note,
    note_markers,
    round_ticks,
    static_xlabel,
    tick_text,
    value_text,
)

__all__ = [
    "MECHANISM",
    "LAPLACE_MAX_RELEASES",
    "mechanism_pair",
    "releases_used",
    "loss_histogram",
    "step_outline",
    "mechanism_controls",
    "mechanism_defaults",
    "composed_setting",
    "NOTE_SIZE",
    "Note",
    "TICK_COUNT",
    "first_advanced_win",
    "note_markers",
    "probability_grid",
    "round_ticks",
    "tick_text",
    "LossesAdd",
    "ComposedLossByProbability",
    "PrivacyProfiles",
    "EpsilonAgainstReleases",
    "AccountantBracket",
    "TradeOffCurves",
]

#: The Laplace figures compose at most this many releases (the k slider is clipped).
LAPLACE_MAX_RELEASES = 100

MECHANISM = Choice("mechanism", ("Gaussian", "Laplace"), description="noise added to each release")
SIGMA_CONTROL = SIGMA.replace(
    label=r"$\sigma$",
    minimum=0.5,
    maximum=50.0,
    description="Gaussian noise per release",
)
EPSILON0_CONTROL = Control(
    r"$\varepsilon_0$",
    0.01,
    2.0,
    log=True,
    description="epsilon of one Laplace release, sensitivity / scale",
)
RELEASES_CONTROL = Control(
    "$k$ releases",
    1,
    1000,
    integer=True,
    description=f"number of releases (Laplace figures use at most {LAPLACE_MAX_RELEASES})",
)
#: epsilon of the k releases together, for the figures with a mechanism toggle.
COMPOSED_EPSILON = EPSILON.replace(minimum=0.01, maximum=20.0)
LAPLACE_RELEASES_CONTROL = RELEASES_CONTROL.replace(
    maximum=LAPLACE_MAX_RELEASES, description="number of Laplace releases"
)

SINGLE_COLOR = "0.45"
COMPOSED_COLOR = "tab:blue"
BASIC_COLOR = "tab:gray"
ADVANCED_COLOR = "tab:orange"
OPTIMAL_COLOR = "tab:green"
EXACT_COLOR = "tab:blue"
CLT_COLOR = "tab:red"

# The document's setting for the Gaussian (variance 3, lesson 02) and the Laplace
# setting (scale 10, so epsilon0 = 0.1).
DOCUMENT_SIGMA = float(np.sqrt(3.0))
DOCUMENT_EPSILON0 = 0.1


def mechanism_pair(mechanism, sigma, epsilon0):
    """The single-release pair of ``dplearn.privacy_loss`` the toggle picks (sensitivity 1).

    Taught in: 08-add-up-privacy-losses.ipynb
    """
    if mechanism == "Gaussian":
        return privacy_loss.gaussian(sigma)
    return privacy_loss.laplace(1.0 / epsilon0)


def releases_used(mechanism, releases):
    """The k a figure composes: the slider's k, clipped at LAPLACE_MAX_RELEASES for Laplace.

    Taught in: 08-add-up-privacy-losses.ipynb
    """
    if mechanism == "Laplace":
        return min(int(releases), LAPLACE_MAX_RELEASES)
    return int(releases)


def mechanism_controls(opening, *, sigma=None, releases=None, **more):
    """The controls of a figure with a mechanism toggle: the toggle, then the slider of
    the mechanism the figure opens with (so the first slider moves it), the other
    mechanism's, the k slider, and more in order.
    """
    # Each mechanism's slider shows only while that mechanism is chosen.
    sliders = {
        "sigma": (sigma or SIGMA_CONTROL).replace(applies_when={"mechanism": "Gaussian"}),
        "epsilon0": EPSILON0_CONTROL.replace(applies_when={"mechanism": "Laplace"}),
    }
    active = "sigma" if opening == "Gaussian" else "epsilon0"
    other = "epsilon0" if active == "sigma" else "sigma"
    return {
        "mechanism": MECHANISM,
        active: sliders[active],
        other: sliders[other],
        "releases": releases or RELEASES_CONTROL,
        **more,
    }


def mechanism_defaults(opening, *, epsilon0=None, releases=10, **more):
    """The opening setting of a figure with a mechanism toggle: the document's sigma and
    epsilon0 (or the given one), k releases, and more."""
    return {
        "mechanism": MECHANISM.check("opening", opening),
        "sigma": DOCUMENT_SIGMA,
        "epsilon0": DOCUMENT_EPSILON0 if epsilon0 is None else epsilon0,
        "releases": releases,
        **more,
    }


def composed_setting(mechanism, sigma, epsilon0, releases):
    """(single-release pair, the k composed, the k-fold pair) of a figure's setting."""
    pair = mechanism_pair(mechanism, sigma, epsilon0)
    k = releases_used(mechanism, releases)
    return pair, k, composition.compose(pair, k)


def clipped_note(k, releases, *, slider=False):
    """What a note says when Laplace clips the slider's k (nothing when it does not)."""
    if k == releases:
        return ""
    return f"slider {releases}; Laplace stops at {k}" if slider else f"Laplace stops at {k}"


def ratio_curve(epsilon, losses):
    """e^epsilon / e^L at each loss, its exponent clipped to +-50 (far off any axis)."""
    with np.errstate(over="ignore"):
        return np.exp(np.clip(epsilon - np.asarray(losses, dtype=float), -50, 50))


def legend_beside(ax, handles):
    """The legend to the right of the axes, its top level with theirs."""
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=9)


def loss_histogram(pair, edges):
    """P[edges[i] < L <= edges[i+1]] for a pair with ``loss_cdf``: atoms and density alike.

    Taught in: 08-add-up-privacy-losses.ipynb
    """
    cdf = np.asarray(pair.loss_cdf(edges), dtype=float)
    return np.clip(np.diff(cdf), 0.0, None)


def step_outline(edges, heights):
    """Vertices (n, 2) of the filled step polygon of a histogram, closed along y = 0."""
    x = np.repeat(edges, 2)
    y = np.concatenate(([0.0], np.repeat(heights, 2), [0.0]))
    return np.column_stack((x, y))


def clip_outline_right(edges, heights, start):
    """Vertices of the part of a histogram's step polygon right of x = start."""
    edges = np.asarray(edges, dtype=float)
    heights = np.asarray(heights, dtype=float)
    index = int(np.searchsorted(edges, start, side="right")) - 1
    if index < 0:
        return step_outline(edges, heights)
    if index >= heights.size:
        return np.zeros((3, 2))
    right = edges[index + 1 :]
    tail = step_outline(right, heights[index + 1 :])[:-1] if right.size > 1 else np.empty((0, 2))
    return np.vstack(
        (
            [[start, 0.0], [start, heights[index]], [right[0], heights[index]]],
            tail[1:] if tail.size else tail,
            [[edges[-1], 0.0]],
        )
    )


class _CompositionFigure(Explorer):
    """Shared parts: the mechanism toggle, its single-release pair and the clipped k."""

    def _build(self):
        self._create()

    def _create(self):
        raise NotImplementedError

    def _moving_xaxis(self, ax):
        """Gives ax an x-axis whose limits change on every update (``MovingXAxis``)."""
        self._moving_axes = getattr(self, "_moving_axes", {})
        self._moving_axes[ax] = MovingXAxis(ax, self.moving)

    def _set_moving_xlim(self, ax, low, high):
        """Sets the x limits of a ``_moving_xaxis`` and its ticks at round values."""
        self._moving_axes[ax].set_limits(low, high)

    def _static_xlabel(self, ax, text):
        static_xlabel(ax, text)


# ---------------------------------------------------------------------------
# COMP-1: losses add
# ---------------------------------------------------------------------------


@register
class LossesAdd(_CompositionFigure):
    """COMP-1: the distribution of L for one release and for k releases.

    Gaussian noise: L ~ N(k mu, 2 k mu), one release with sigma / sqrt(k). Laplace noise:
    atoms and a continuous part; L never exceeds k epsilon0, and reaches it only when
    every answer lands at or below the true count (probability 2**-k). The mean grows like k, the
    spread like sqrt(k). Each curve is the probability of L in each of 120 bins (atoms
    fall in one bin), scaled to its highest bin; the red part is L > epsilon, of
    probability delta_1.

    Taught in: 08-add-up-privacy-losses.ipynb
    """

    figure_id = "COMP-1"
    title = "Losses add: the privacy loss of one release and of k releases"
    controls = mechanism_controls("Laplace", epsilon=COMPOSED_EPSILON)
    defaults = mechanism_defaults("Laplace", epsilon=0.5)
    figsize = (9.5, 3.6)
    bins = 120

    def _create(self):
        ax = self.axes = self.figure.subplots()
        self.single = ax.add_patch(
            Polygon(np.zeros((3, 2)), closed=True, fill=False, ec=SINGLE_COLOR, lw=1.5)
        )
        self.composed = ax.add_patch(
            Polygon(np.zeros((3, 2)), closed=True, fc=COMPOSED_COLOR, alpha=0.35, lw=0)
        )
        self.outline = ax.add_patch(
            Polygon(np.zeros((3, 2)), closed=True, fill=False, ec=COMPOSED_COLOR, lw=1.2)
        )
        self.bad = ax.add_patch(
            Polygon(np.zeros((3, 2)), closed=True, fc=BAD_COLOR, alpha=0.55, lw=0)
        )
        above = transforms.blended_transform_factory(ax.transData, ax.transAxes)
        (self.epsilon_line,) = ax.plot(
            [0, 0], [0, 0.9], color=BAD_COLOR, ls="--", lw=1.2, transform=above
        )
        (self.mean_line,) = ax.plot(
            [0, 0], [0, 0.9], color="black", ls=":", lw=1.2, transform=above
        )
        (self.max_line,) = ax.plot(
            [0, 0], [0, 0.9], color=COMPOSED_COLOR, ls="-.", lw=1.2, transform=above
        )
        self.note = Note(ax, 0.01, 0.97, ha="left", va="top", box=False)
        self.moving(
            self.single,
            self.composed,
            self.outline,
            self.bad,
            self.epsilon_line,
            self.mean_line,
            self.max_line,
            *self.note.artists,
        )
        self._moving_xaxis(ax)
        ax.set_ylim(0, 1.12)
        ax.set_yticks([])
        ax.set_ylabel("probability per bin\n(scaled to its top)", fontsize=9)
        self._static_xlabel(ax, r"privacy loss $\ell$ of all the answers together")
        ax.set_title(r"COMP-1 · losses add: $\mathcal{L} = \mathcal{L}_1 + \cdots + \mathcal{L}_k$")
        handles = [
            Patch(fill=False, ec=SINGLE_COLOR, lw=1.5, label="one release"),
            Patch(fc=COMPOSED_COLOR, alpha=0.35, ec=COMPOSED_COLOR, label=r"$k$ releases"),
            Patch(fc=BAD_COLOR, alpha=0.55, label=r"$\mathcal{L} > \varepsilon$: $\delta_1$"),
            Line2D([], [], color=BAD_COLOR, ls="--", label=r"$\varepsilon$"),
            Line2D([], [], color="black", ls=":", label=r"$E[\mathcal{L}]$"),
            Line2D(
                [], [], color=COMPOSED_COLOR, ls="-.", label=r"$\max\mathcal{L} = k\varepsilon_0$"
            ),
        ]
        legend_beside(ax, handles)

    def _apply(self, mechanism, sigma, epsilon0, releases, epsilon):
        pair, k, composed = composed_setting(mechanism, sigma, epsilon0, releases)
        single = composition.compose(pair, 1)
        exceeds = composed.loss_exceeds(epsilon)
        delta = composed.delta(epsilon)
        # The window: five standard deviations around both means, within the support,
        # and the bound k epsilon0 of the Laplace loss.
        reach = 5.0
        low = min(
            single.loss_mean - reach * single.loss_std,
            composed.loss_mean - reach * composed.loss_std,
        )
        high = max(
            single.loss_mean + reach * single.loss_std,
            composed.loss_mean + reach * composed.loss_std,
        )
        if np.isfinite(composed.max_loss):
            low = max(min(low, -single.max_loss), -composed.max_loss)
            high = composed.max_loss
        margin = 0.04 * (high - low)
        low, high = low - margin, high + margin
        edges = np.linspace(low, high, self.bins + 1)
        single_mass = loss_histogram(single, edges)
        composed_mass = loss_histogram(composed, edges)
        single_outline = step_outline(edges, single_mass / single_mass.max())
        composed_outline = step_outline(edges, composed_mass / composed_mass.max())
        self.single.set_xy(single_outline)
        self.composed.set_xy(composed_outline)
        self.outline.set_xy(composed_outline)
        self.bad.set_xy(clip_outline_right(edges, composed_mass / composed_mass.max(), epsilon))
        self._set_moving_xlim(self.axes, low, high)
        shown_epsilon = min(max(epsilon, low), high)
        self.epsilon_line.set_xdata([shown_epsilon] * 2)
        arrow = " (beyond the axis →)" if epsilon > high else ""
        self.mean_line.set_xdata([composed.loss_mean] * 2)
        finite = np.isfinite(composed.max_loss)
        self.max_line.set_visible(finite)
        if finite:
            self.max_line.set_xdata([composed.max_loss] * 2)
            bound = f"max L = {value_text(composed.max_loss)}, P = "
            bound += value_text(composed.max_loss_probability)
        else:
            bound = "max L = ∞"
        clipped = clipped_note(k, releases, slider=True)
        # The numbers are in the readout beside the figure; the note only says what
        # the picture cannot (text costs more to draw than all the curves).
        self.note.set_text("\n".join(line for line in (clipped, arrow.strip()) if line))
        self.state = dict(
            pair=pair,
            composed=composed,
            k=k,
            epsilon=epsilon,
            exceeds=exceeds,
            delta=delta,
            edges=edges,
            composed_mass=composed_mass,
            single_mass=single_mass,
        )

    def numbers(self):
        s = self.state
        composed = s["composed"]
        return {
            r"$k$ composed": s["k"],
            r"$\mathbb{E}[\mathcal{L}] = k\,\mathrm{KL}$": composed.loss_mean,
            r"$\mathrm{sd}(\mathcal{L})$": composed.loss_std,
            r"$\max \mathcal{L}$": composed.max_loss,
            r"$\Pr[\mathcal{L} = \max \mathcal{L}]$": composed.max_loss_probability,
            r"$\delta_1 = \Pr[\mathcal{L} > \varepsilon]$": s["exceeds"],
            r"$\delta(\varepsilon)$": s["delta"],
        }


# ---------------------------------------------------------------------------
# COMP-2: the composed privacy loss on the probability axis
# ---------------------------------------------------------------------------


def delta_region(pair, epsilon, count=600):
    """Vertices of the area between e^epsilon / e^L(x) and 1 over the bad events x < delta_1.

    Its area is delta(epsilon) (the tests measure it).

    Taught in: 08-add-up-privacy-losses.ipynb
    """
    positions = probability_grid(pair, float(pair.loss_exceeds(epsilon)), count)
    return region_vertices(positions, pair.loss_quantile(positions), epsilon)


def region_vertices(positions, losses, epsilon):
    """The region of ``delta_region`` from positions in [0, delta_1] and L at each."""
    curve = np.minimum(ratio_curve(epsilon, losses), 1.0)
    x = np.concatenate((positions, positions[::-1]))
    y = np.concatenate((curve, np.ones(np.shape(positions))))
    return np.column_stack((x, y))


def polygon_area(vertices):
    """Area of a simple polygon (shoelace formula), for checking shaded areas."""
    x, y = np.asarray(vertices, dtype=float).T
    return 0.5 * abs(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1)))


@register
class ComposedLossByProbability(_CompositionFigure):
    """COMP-2: e^epsilon / e^L of k releases against the probability position; the area
    between the curve and 1 (over the bad events) is delta(epsilon) of k releases.

    Left: the whole probability axis. Right: zoom on the bad events, x < 1.25 delta_1.
    The grey curve is one release, for comparison. The dashed box is delta_1 wide and 1
    high: its area is delta_1.

    Taught in: 08-add-up-privacy-losses.ipynb
    """

    figure_id = "COMP-2"
    title = "k releases on the probability axis: δ is still an area"
    controls = mechanism_controls("Gaussian", epsilon=COMPOSED_EPSILON)
    defaults = mechanism_defaults("Gaussian", epsilon=1.0)
    figsize = (10.0, 3.7)
    top = 1.6

    def _create(self):
        whole, zoomed = self.figure.subplots(1, 2, sharey=True)
        self.axes = (whole, zoomed)
        self.positions = curve_positions(edge_count=40, middle_count=120)
        self.curves, self.singles, self.areas, self.boxes = [], [], [], []
        for ax in (whole, zoomed):
            ax.axhline(1.0, color="0.4", lw=1)
            (single,) = ax.plot([], [], color=SINGLE_COLOR, lw=1.2)
            (curve,) = ax.plot([], [], color=COMPOSED_COLOR, lw=2)
            area = ax.add_patch(Polygon(np.zeros((3, 2)), color=AREA_COLOR, alpha=0.45, lw=0))
            (box,) = ax.plot([], [], color=BAD_COLOR, ls="--", lw=1.2)
            self.curves.append(curve)
            self.singles.append(single)
            self.areas.append(area)
            self.boxes.append(box)
            self.moving(single, curve, area, box)
        self.note = Note(zoomed, 0.97, 0.5, ha="right", va="top")
        self.moving(*self.note.artists)
        # The zoom is in units of delta_1, so its ticks never move: at large epsilon
        # delta_1 is 4e-18, and ticks at such positions collided and were cut.
        zoomed.set_xlim(0.0, 1.25)
        zoomed.set_xticks([0.0, 0.25, 0.5, 0.75, 1.0, 1.25])
        whole.set_xlim(0, 1)
        whole.set_ylim(0, self.top)
        whole.set_ylabel(r"$e^{\varepsilon}/e^{\mathcal{L}}$")
        whole.set_xlabel(r"probability position $x$")
        zoomed.set_xlabel(r"probability position in units of $\delta_1$: $x / \delta_1$")
        whole.set_title(r"COMP-2 · $k$ releases: $\delta(\varepsilon)$ = shaded area")
        zoomed.set_title(r"zoom on the bad events")
        handles = [
            Line2D(
                [],
                [],
                color=COMPOSED_COLOR,
                lw=2,
                label=r"$e^{\varepsilon}/e^{\mathcal{L}}$, $k$ releases",
            ),
            Line2D([], [], color=SINGLE_COLOR, lw=1.2, label="one release"),
            Patch(color=AREA_COLOR, alpha=0.45, label=r"area $\delta$"),
            Line2D([], [], color=BAD_COLOR, ls="--", label=r"width $\delta_1$ $\times$ 1"),
        ]
        # Under the axes: the curves reach every corner of the whole axis at some setting.
        legend_below(self.figure, [], handles=handles)

    def _apply(self, mechanism, sigma, epsilon0, releases, epsilon):
        pair, k, composed = composed_setting(mechanism, sigma, epsilon0, releases)
        width = float(composed.loss_exceeds(epsilon))
        delta = float(composed.delta(epsilon))
        # The zoom's unit: delta_1 (1e-3 of the axis when there is no bad event).
        unit = width if width > 0 else 1e-3
        right = min(1.25 * unit, 1.0)
        # One call for every position drawn: the region, the whole axis, the zoom.
        bad = probability_grid(composed, width, 300)
        extra = np.linspace(width, right, 40)
        losses = composed.loss_quantile(np.concatenate((bad, self.positions, extra)))
        bad_losses = losses[: bad.size]
        whole_losses = losses[bad.size : bad.size + self.positions.size]
        region = region_vertices(bad, bad_losses, epsilon)
        curve = ratio_curve(epsilon, whole_losses)
        single = ratio_curve(epsilon, pair.loss_quantile(self.positions))
        zoom_curve = ratio_curve(epsilon, np.concatenate((bad_losses, losses[-extra.size :])))
        curve, single = np.minimum(curve, 2 * self.top), np.minimum(single, 2 * self.top)
        zoom_positions = np.concatenate((bad, extra))
        zoom_curve = np.minimum(zoom_curve, 2 * self.top)
        for index, (line, single_line, area, box) in enumerate(
            zip(self.curves, self.singles, self.areas, self.boxes, strict=True)
        ):
            scale = 1.0 if index == 0 else unit
            if index == 0:
                line.set_data(self.positions, curve)
            else:
                line.set_data(zoom_positions / unit, zoom_curve)
            single_line.set_data(self.positions / scale, single)
            area.set_xy(region / np.array([scale, 1.0]))
            box.set_data(np.array([0, width, width, 0]) / scale, [1, 1, 0, 0])
        self.note.set_text(clipped_note(k, releases))
        self.state = dict(
            composed=composed, k=k, epsilon=epsilon, width=width, delta=delta, region=region
        )

    def numbers(self):
        s = self.state
        result = {
            r"$k$ composed": s["k"],
            r"$\delta_1 = \Pr[\mathcal{L} > \varepsilon]$ (width)": s["width"],
            r"$\delta(\varepsilon)$ (area)": s["delta"],
        }
        result[r"$\delta / \delta_1$"] = s["delta"] / s["width"] if s["width"] > 0 else 0.0
        return result


# ---------------------------------------------------------------------------
# COMP-3 and COMP-4: basic, advanced, optimal and exact composition (Laplace)
# ---------------------------------------------------------------------------

LAPLACE_EPSILON0 = EPSILON0_CONTROL.replace(label=r"$\varepsilon_0$ per release")


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
    title = "Privacy profiles: exact, optimal, advanced and basic composition"
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
        self._static_xlabel(ax, r"$\varepsilon$ of the $k$ releases together")
        ax.set_title(r"COMP-3 · privacy profiles of $k$ Laplace releases, each $\varepsilon_0$-DP")
        handles = [
            Line2D([], [], color=EXACT_COLOR, lw=2, label=r"exact: $k \times$ Laplace"),
            Line2D(
                [],
                [],
                color=OPTIMAL_COLOR,
                lw=2,
                label=r"optimal: $k \times$ any $\varepsilon_0$-DP",
            ),
            Line2D([], [], color=ADVANCED_COLOR, lw=2, label="advanced (DRV 2010)"),
            Line2D(
                [],
                [],
                color=BASIC_COLOR,
                lw=2,
                ls="--",
                marker="v",
                label=r"basic: $(k\varepsilon_0, 0)$",
            ),
            Line2D(
                [],
                [],
                color=ADVANCED_COLOR,
                marker="*",
                ls="none",
                mec="black",
                ms=11,
                label="advanced meets basic",
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
            r"exact $\div$ optimal $\delta$, against $\varepsilon / (k\varepsilon_0)$",
            transform=inset.transAxes,
            fontsize=8,
        )

    def _apply(self, epsilon0, releases, epsilon):
        k = int(releases)
        pair = privacy_loss.laplace(1.0 / epsilon0)
        composed = composition.compose(pair, k)
        basic_epsilon, _ = composition.basic(epsilon0, 0.0, k)
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
        arrow = " (off the axis →)" if epsilon > right else ""
        self.note.set_text(f"ε = {value_text(epsilon)}{arrow}" if arrow else "")
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

    def numbers(self):
        s = self.state
        return {
            r"$\delta$ exact ($k$ × Laplace)": s["at"]["exact"],
            r"$\delta$ optimal ($k$ × any $\varepsilon_0$-DP)": s["at"]["optimal"],
            r"$\delta$ advanced (smallest $\delta'$)": s["at"]["advanced"],
            r"basic: $k\varepsilon_0$ ($\delta = 0$ from there)": s["basic_epsilon"],
            r"advanced beats basic for $\delta$ above": s["crossing"],
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
    title = "ε at a fixed δ against the number of releases"
    controls = {
        "epsilon0": LAPLACE_EPSILON0,
        "delta": exponent_control(DELTA.replace(minimum=1e-10, maximum=0.1)),
        "releases": RELEASES_CONTROL.replace(description="the k marked on the curves"),
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
        self.note = Note(ax, 0.99, 0.03, ha="right", va="bottom")
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
        ax.set_xlim(1, 1000)
        ax.set_ylim(1e-3, 5e3)
        ax.set_xlabel(r"number of releases $k$")
        ax.set_ylabel(r"$\varepsilon$ at $\delta$")
        ax.set_title(
            r"COMP-4 · $\varepsilon$ at a fixed $\delta$: basic $\propto k$, "
            r"advanced $\propto \sqrt{k}$"
        )
        handles = [
            Line2D([], [], color=BASIC_COLOR, lw=2, ls="--", label=r"basic $k\varepsilon_0$"),
            Line2D([], [], color=ADVANCED_COLOR, lw=2, label="advanced (DRV 2010)"),
            Line2D(
                [],
                [],
                color=OPTIMAL_COLOR,
                lw=2,
                label=r"optimal: $k \times$ any $\varepsilon_0$-DP",
            ),
            Line2D(
                [],
                [],
                color=EXACT_COLOR,
                lw=2,
                marker="o",
                ms=3.5,
                label=r"exact: $k \times$ Laplace ($k \leq 100$)",
            ),
            Line2D([], [], color=ADVANCED_COLOR, ls=":", label="advanced first beats basic"),
        ]
        legend_beside(ax, handles)

    @classmethod
    def _exact_curve(cls, pair, epsilon0, delta):
        """epsilon at delta of k Laplace releases for k in exact_grid, for drawing.

        Composing the closed form anew for each k costs a few milliseconds per k, so the
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
            win_text = "advanced never beats basic (ε₀ ≥ ln 2)"
        elif win > grid[-1]:
            win_text = f"advanced first beats basic at k = {win} (beyond this axis)"
        else:
            win_text = f"advanced first beats basic at k = {win}"
        self.note.set_text(win_text)
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

    def numbers(self):
        s = self.state
        exact = s["at"]["exact"]
        return {
            r"$\varepsilon$ basic": s["at"]["basic"],
            r"$\varepsilon$ advanced": s["at"]["advanced"],
            r"$\varepsilon$ optimal ($k$ × any $\varepsilon_0$-DP)": s["at"]["optimal"],
            r"$\varepsilon$ exact ($k$ × Laplace)": exact
            if np.isfinite(exact)
            else "only for k ≤ 100",
            r"advanced first beats basic at $k$": s["win"] if s["win"] is not None else "never",
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


# ---------------------------------------------------------------------------
# COMP-5: how an accountant computes it (privacy loss distributions)
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class SteppedControl(Control):
    """A slider over a few listed values, each shown as typed and used exactly as shown.

    A log slider moves in steps of its exponent, so it hands the figure values such as
    0.005012 while a reader takes them for 0.005; a grid width must divide the loss
    +-epsilon0 of one Laplace release, and 0.005012 does not divide 0.1. This slider
    offers only ``values`` (a ``SelectionSlider``, its readout the value itself).
    """

    values: tuple = ()

    def __post_init__(self):
        super().__post_init__()
        values = tuple(sorted(float(v) for v in self.values))
        if len(values) < 2 or values[0] != self.minimum or values[-1] != self.maximum:
            raise ValueError(f"values must run from minimum to maximum, got {self.values!r}")
        object.__setattr__(self, "values", values)

    def check(self, name, value):
        """The listed value equal to value (as a number or its text), else a ValueError."""
        number = super().check(name, value)
        for offered in self.values:
            if abs(number - offered) <= 1e-12 * offered:
                return offered
        listed = ", ".join(f"{v:g}" for v in self.values)
        raise ValueError(f"{name} must be one of {listed}, got {value!r}")

    def offers(self, value):
        return any(abs(float(value) - offered) <= 1e-12 * offered for offered in self.values)

    def clip(self, value):
        """The listed value nearest to value (on a log scale)."""
        value = min(max(float(value), self.minimum), self.maximum)
        return min(self.values, key=lambda offered: abs(np.log(offered / value)))

    def sample(self, count, rng):
        inner = rng.choice(len(self.values), size=count - 2)
        return [self.minimum, self.maximum, *(self.values[i] for i in inner)]

    def bad_values(self):
        # Between two listed values: a width the figure must refuse, not round.
        return super().bad_values() + [float(np.sqrt(self.values[0] * self.values[1]))]

    def label_of(self, value):
        """The text the slider shows for a listed value."""
        return f"{value:g}"

    def slider(self, value, name=None):
        import ipywidgets as widgets

        value = self.clip(value)
        slider = widgets.SelectionSlider(
            options=[(self.label_of(v), v) for v in self.values],
            value=value,
            description=self.label,
            continuous_update=True,
            tooltip=self.description or name or self.label,
            layout=widgets.Layout(width="30em"),
            style={"description_width": "8em"},
        )
        # ipywidgets leaves the label empty when the value is the first option.
        slider.label = self.label_of(value)
        return slider


#: Grid widths COMP-5 offers: 1-2-5 steps; those up to 0.1 divide epsilon0 = 0.1.
GRID_WIDTHS = (0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5)
GRID_WIDTH_CONTROL = SteppedControl(
    "grid width $h$",
    GRID_WIDTHS[0],
    GRID_WIDTHS[-1],
    description="width of the accountant's loss grid",
    values=GRID_WIDTHS,
)


def grid_holds(epsilon0, grid_width):
    """Whether epsilon0 is a whole number of grid widths (to 1e-9 of a width).

    Then the atoms of one Laplace release's loss at +-epsilon0 sit on grid points, and
    only the continuous part between them is rounded: the bracket halves with h.

    Taught in: 09-count-privacy-with-an-accountant.ipynb
    """
    steps = epsilon0 / grid_width
    return bool(abs(steps - round(steps)) <= 1e-9 * max(1.0, steps))


# The FFT composes about k R / h grid points for a loss spread over R: these ranges keep
# every slider move within a few hundred thousand points.
ACCOUNTANT_RELEASES = RELEASES_CONTROL.replace(
    maximum=LAPLACE_MAX_RELEASES, description="number of releases (up to 100 here)"
)
ACCOUNTANT_SIGMA = SIGMA_CONTROL.replace(minimum=1.0)


def rounded_loss_cdf(pld):
    """(losses, P[L <= loss]) of a privacy loss distribution's grid, its mass at +inf apart.

    Taught in: 09-count-privacy-with-an-accountant.ipynb
    """
    return np.asarray(pld.losses, dtype=float), np.cumsum(np.asarray(pld.masses, dtype=float))


@register
class AccountantBracket(_CompositionFigure):
    """COMP-5: the privacy loss distribution (PLD) of an accountant, and its bracket.

    Left: one release's loss on a grid of width h: its exact CDF, the CDF with every loss
    rounded up to the grid (pessimistic) and rounded down (optimistic). Right: after
    composing the k rounded PLDs by FFT, how far the pessimistic delta lies above the
    exact one and the optimistic below it, relative to the exact delta, for a range of
    grid widths; the dotted line is the slider's h. Both shrink in proportion to h
    when h divides epsilon0 (the slider offers 1-2-5 widths, which divide the document's
    epsilon0 = 0.1); a note says when it does not.

    Taught in: 09-count-privacy-with-an-accountant.ipynb
    """

    figure_id = "COMP-5"
    title = "An accountant's PLD: a bracket around the exact δ"
    controls = mechanism_controls(
        "Laplace",
        sigma=ACCOUNTANT_SIGMA,
        releases=ACCOUNTANT_RELEASES,
        epsilon=COMPOSED_EPSILON,
        grid_width=GRID_WIDTH_CONTROL,
    )
    defaults = mechanism_defaults("Laplace", releases=100, epsilon=4.2203, grid_width=0.01)
    figsize = (10.0, 3.7)
    sweep = np.array(GRID_WIDTHS)
    error_limits = (1e-4, 30.0)

    def _create(self):
        left, right = self.figure.subplots(1, 2, width_ratios=(1, 1.1))
        self.axes = (left, right)
        (self.exact_cdf,) = left.plot([], [], color="black", lw=1.5)
        (self.pessimistic_cdf,) = left.plot([], [], color=BAD_COLOR, lw=1.3, drawstyle="steps-post")
        (self.optimistic_cdf,) = left.plot(
            [], [], color=OPTIMAL_COLOR, lw=1.3, drawstyle="steps-post"
        )
        self._moving_xaxis(left)
        left.set_ylim(-0.02, 1.02)
        left.set_ylabel(r"$P[\mathcal{L} \leq \ell]$, one release")
        self._static_xlabel(left, r"privacy loss $\ell$ of one release")
        left.set_title(r"COMP-5 · one release on a grid of width $h$")
        # Under the axes: at h = 0.5 the rounded CDFs step through the upper left.
        legend_below(
            self.figure,
            [],
            handles=[
                Line2D([], [], color="black", lw=1.5, label="exact"),
                Line2D([], [], color=BAD_COLOR, lw=1.3, label="rounded up (pessimistic)"),
                Line2D([], [], color=OPTIMAL_COLOR, lw=1.3, label="rounded down (optimistic)"),
                Line2D(
                    [],
                    [],
                    color=BAD_COLOR,
                    lw=2,
                    marker="o",
                    ms=3.5,
                    label="pessimistic above exact",
                ),
                Line2D(
                    [],
                    [],
                    color=OPTIMAL_COLOR,
                    lw=2,
                    marker="o",
                    ms=3.5,
                    label="optimistic below exact",
                ),
            ],
        )
        right.set_xscale("log")
        right.set_yscale("log")
        (self.upper_error,) = right.plot([], [], color=BAD_COLOR, lw=2, marker="o", ms=3.5)
        (self.lower_error,) = right.plot([], [], color=OPTIMAL_COLOR, lw=2, marker="o", ms=3.5)
        (self.width_line,) = right.plot([1, 1], [1, 1], color="black", ls=":", lw=1.2)
        (self.marks,) = right.plot([], [], "o", color="black", ms=6, ls="none")
        self.note = Note(right, 0.02, 0.97, ha="left", va="top")
        self.moving(
            self.exact_cdf,
            self.pessimistic_cdf,
            self.optimistic_cdf,
            self.upper_error,
            self.lower_error,
            self.width_line,
            self.marks,
            *self.note.artists,
        )
        right.set_xlim(GRID_WIDTH_CONTROL.minimum / 1.3, GRID_WIDTH_CONTROL.maximum * 1.3)
        right.set_ylim(*self.error_limits)
        right.set_xlabel(r"grid width $h$")
        right.set_ylabel(r"$|\delta_{\mathrm{bound}} - \delta| \,/\, \delta$, $k$ releases")
        right.set_title(r"after $k$ releases: the bracket shrinks with $h$")

    def _bracket(self, pair, k, grid_width, epsilon):
        pessimistic = composition.pld(pair, grid_width, pessimistic=True).self_compose(k)
        optimistic = composition.pld(pair, grid_width, pessimistic=False).self_compose(k)
        return float(optimistic.delta(epsilon)), float(pessimistic.delta(epsilon))

    def _sweep(self, mechanism, sigma, epsilon0, k, epsilon, pair, widths):
        """The brackets at these widths; those already computed at this setting are kept
        while only h moves (the finest grid costs the most)."""
        key = (mechanism, sigma if mechanism == "Gaussian" else epsilon0, k, epsilon)
        if getattr(self, "_sweep_key", None) != key:
            self._sweep_key, self._sweep_cache = key, {}
        cache = self._sweep_cache
        for width in widths:
            if width not in cache:
                cache[width] = self._bracket(pair, k, width, epsilon)
        return np.array([cache[width] for width in widths])

    def _apply(self, mechanism, sigma, epsilon0, releases, epsilon, grid_width):
        pair = mechanism_pair(mechanism, sigma, epsilon0)
        # Both mechanisms stop at 100 releases here (the FFT's size grows with k).
        k = min(int(releases), LAPLACE_MAX_RELEASES)
        composed = composition.compose(pair, k)
        exact = float(composed.delta(epsilon))
        # One release on the grid.
        single = composition.compose(pair, 1)
        rounded_up = composition.pld(pair, grid_width, pessimistic=True)
        rounded_down = composition.pld(pair, grid_width, pessimistic=False)
        low = float(single.loss_quantile(1 - 1e-3))
        high = float(single.loss_quantile(1e-3))
        if np.isfinite(single.max_loss):
            low, high = -single.max_loss, single.max_loss
        margin = 0.1 * (high - low) + grid_width
        low, high = low - margin, high + margin
        levels = np.linspace(low, high, 400)
        self.exact_cdf.set_data(levels, single.loss_cdf(levels))
        for line, rounded in (
            (self.pessimistic_cdf, rounded_up),
            (self.optimistic_cdf, rounded_down),
        ):
            losses, cdf = rounded_loss_cdf(rounded)
            inside = (losses >= low) & (losses <= high)
            line.set_data(
                np.concatenate(([low], losses[inside], [high])),
                np.concatenate(
                    (
                        [0.0 if not inside[0] else cdf[inside][0] * 0],
                        cdf[inside],
                        [cdf[inside][-1] if inside.any() else 1.0],
                    )
                ),
            )
        self._set_moving_xlim(self.axes[0], low, high)
        # After k releases, at the slider's width and every coarser one it offers.
        grid_width = GRID_WIDTH_CONTROL.check("grid_width", grid_width)
        widths = self.sweep[self.sweep >= grid_width]
        brackets = self._sweep(mechanism, sigma, epsilon0, k, epsilon, pair, widths)
        optimistic, pessimistic = brackets[:, 0], brackets[:, 1]
        here = int(np.flatnonzero(widths == grid_width)[0])
        floor, top = self.error_limits
        if exact > 0:
            upper = np.clip((pessimistic - exact) / exact, floor / 10, top * 10)
            lower = np.clip((exact - optimistic) / exact, floor / 10, top * 10)
            self.upper_error.set_data(widths, upper)
            self.lower_error.set_data(widths, lower)
            self.marks.set_data([grid_width] * 2, [upper[here], lower[here]])
        else:
            for line in (self.upper_error, self.lower_error, self.marks):
                line.set_data([], [])
        self.width_line.set_data([grid_width] * 2, [floor, top])
        notes = [f"{releases} releases: 100 at most here"] if k != releases else []
        if mechanism == "Laplace" and not grid_holds(epsilon0, grid_width):
            # The atoms at +-epsilon0 fall between grid points: the error jumps with h.
            notes.append(f"h = {grid_width:g} does not divide ε₀ = {epsilon0:.4g}")
        self.note.set_text("\n".join(notes))
        self.state = dict(
            k=k,
            epsilon=epsilon,
            exact=exact,
            grid_width=grid_width,
            optimistic=optimistic[here],
            pessimistic=pessimistic[here],
            widths=widths,
            brackets=brackets,
            rounded_up=rounded_up,
            rounded_down=rounded_down,
            single=single,
        )

    def numbers(self):
        s = self.state
        return {
            r"$k$ composed": s["k"],
            r"$\delta$ pessimistic (upper end)": s["pessimistic"],
            r"$\delta$ exact": s["exact"],
            r"$\delta$ optimistic (lower end)": s["optimistic"],
            "bracket width": s["pessimistic"] - s["optimistic"],
        }


# ---------------------------------------------------------------------------
# COMP-6: the hypothesis-test view (f-DP) and the CLT approximation
# ---------------------------------------------------------------------------

ALPHA_CONTROL = Control(
    r"$\alpha$ (type I error)",
    0.001,
    0.5,
    step=0.001,
    description="the attacker's false-alarm rate",
)


def band_between(x, lower, upper, where):
    """Vertices of the region between two curves over the x where ``where`` holds
    (elsewhere the band has no height); a flat sliver when it holds nowhere."""
    low = np.where(where, lower, upper)
    return np.column_stack((np.concatenate((x, x[::-1])), np.concatenate((low, upper[::-1]))))


def profile_crossings(exact, approximation, grid, exact_delta, approximate_delta, above):
    """Where the exact delta first and last exceeds the approximation's, and the largest
    ratio exact delta / approximate delta, refined from the grid the figure draws.

    The readout quotes these to four digits, finer than the grid's step: each crossing is
    the root of exact delta - approximate delta between the grid points that bracket it,
    the largest ratio the maximum between the grid neighbours of its largest grid value
    (scipy's bracketing solvers, both crossings at once: a few vectorised evaluations).
    A band starting at the grid's first point, or ending at its last, ends there.

    Args:
      exact, approximation: pairs with a vectorised ``delta(epsilon)``.
      grid: increasing epsilons; exact_delta, approximate_delta: the deltas there.
      above: where (on the grid) the exact delta exceeds the approximation's.

    Returns:
      (first, last, largest ratio); NaN for both crossings if the band is empty.

    Taught in: 09-count-privacy-with-an-accountant.ipynb
    """

    def ratio(epsilon):
        return np.asarray(exact.delta(epsilon), dtype=float) / np.maximum(
            np.asarray(approximation.delta(epsilon), dtype=float), 1e-300
        )

    def gap(epsilon):
        return np.asarray(exact.delta(epsilon), dtype=float) - np.asarray(
            approximation.delta(epsilon), dtype=float
        )

    on_grid = exact_delta / np.maximum(approximate_delta, 1e-300)
    top = int(np.argmax(on_grid))
    largest = float(on_grid[top])
    if 0 < top < len(grid) - 1:
        best = elementwise.find_minimum(
            lambda epsilon: -ratio(epsilon),
            (grid[top - 1], grid[top], grid[top + 1]),
            tolerances={"frtol": 1e-12},
        )
        if best.success:
            largest = max(largest, -float(best.f_x))
    inside = np.flatnonzero(above)
    if inside.size == 0:
        return float("nan"), float("nan"), largest
    start, end = int(inside[0]), int(inside[-1])
    ends = [float(grid[start]), float(grid[end])]
    # A bracket needs a sign change of the gap (``above`` allows a relative tolerance).
    difference = exact_delta - approximate_delta
    brackets = [
        (index, outside, inside)
        for index, outside, inside in ((0, start - 1, start), (1, end + 1, end))
        if 0 <= outside < len(grid) and difference[outside] * difference[inside] < 0
    ]
    if brackets:
        index, outside, inside = map(np.array, zip(*brackets, strict=True))
        low = np.minimum(grid[outside], grid[inside])
        high = np.maximum(grid[outside], grid[inside])
        roots = elementwise.find_root(
            gap, (low, high), tolerances={"xatol": 1e-13, "xrtol": 4 * np.finfo(float).eps}
        )
        for i, root, success in zip(index, roots.x, roots.success, strict=True):
            if success:
                ends[i] = float(root)
    if start == 0:
        ends[0] = float(grid[0])
    if end == len(grid) - 1:
        ends[1] = float(grid[-1])
    return ends[0], ends[1], largest


@register
class TradeOffCurves(_CompositionFigure):
    """COMP-6: the attacker's best test between D1 and D2 after k releases, and the CLT.

    Left: trade-off curves beta(alpha), the smallest type II error of any test with type I
    error alpha (Dong, Roth & Su 2019): exact for k releases, the Gaussian G_mu of the
    central limit theorem, and one release. Gaussian noise: k releases are exactly G_mu
    with mu = sqrt(k) / sigma, so the curves coincide. Laplace noise: G_mu is only an
    approximation; red where it lies above the exact curve (it claims the attacker errs
    more than they do). Right: the same comparison as privacy profiles, the exact delta
    divided by the CLT's; above 1 (red) the CLT's delta is too small: not a bound.

    Taught in: 09-count-privacy-with-an-accountant.ipynb
    """

    figure_id = "COMP-6"
    title = "The hypothesis-test view: trade-off curves and the CLT"
    controls = mechanism_controls("Laplace", alpha=ALPHA_CONTROL)
    defaults = mechanism_defaults("Laplace", epsilon0=0.5, releases=2, alpha=0.05)
    figsize = (10.0, 3.9)
    floor = 1e-10
    ratio_top = 1.6

    def _create(self):
        tests, profiles = self.figure.subplots(1, 2, width_ratios=(1, 1.25))
        self.axes = (tests, profiles)
        alphas = np.concatenate((np.geomspace(1e-6, 1e-2, 60), np.linspace(0.01, 1.0, 200)[1:]))
        self.alphas = np.concatenate(([0.0], alphas))
        tests.plot([0, 1], [1, 0], color="0.75", lw=1)
        (self.single_curve,) = tests.plot([], [], color=SINGLE_COLOR, lw=1.2)
        self.above = tests.add_patch(Polygon(np.zeros((3, 2)), color=CLT_COLOR, alpha=0.35, lw=0))
        (self.exact_curve,) = tests.plot([], [], color=EXACT_COLOR, lw=2)
        (self.clt_curve,) = tests.plot([], [], color=CLT_COLOR, lw=1.5, ls="--")
        (self.alpha_marks,) = tests.plot([], [], "o", color="black", ms=5, ls="none")
        profiles.axhline(1.0, color="0.4", lw=1)
        self.below = profiles.add_patch(
            Polygon(np.zeros((3, 2)), color=CLT_COLOR, alpha=0.35, lw=0)
        )
        (self.ratio_line,) = profiles.plot([], [], color=EXACT_COLOR, lw=2)
        self.note = Note(profiles, 0.98, 0.04, ha="right", va="bottom")
        self.moving(
            self.single_curve,
            self.above,
            self.exact_curve,
            self.clt_curve,
            self.alpha_marks,
            self.below,
            self.ratio_line,
            *self.note.artists,
        )
        self._moving_xaxis(profiles)
        tests.set_xlim(0, 1)
        tests.set_ylim(0, 1)
        tests.set_aspect("equal")
        tests.set_xlabel(r"type I error $\alpha$")
        tests.set_ylabel(r"type II error $\beta(\alpha)$")
        tests.set_title(r"COMP-6 · the attacker's best tests")
        tests.legend(
            handles=[
                Line2D([], [], color=EXACT_COLOR, lw=2, label=r"exact, $k$ releases"),
                Line2D([], [], color=CLT_COLOR, lw=1.5, ls="--", label=r"CLT: $G_\mu$"),
                Line2D([], [], color=SINGLE_COLOR, lw=1.2, label="one release"),
                Patch(color=CLT_COLOR, alpha=0.35, label="CLT above exact"),
            ],
            loc="upper right",
            fontsize=9,
        )
        profiles.set_ylim(0, self.ratio_top)
        profiles.set_ylabel(r"exact $\delta(\varepsilon)$ / CLT $\delta(\varepsilon)$")
        self._static_xlabel(profiles, r"$\varepsilon$ of the $k$ releases")
        profiles.set_title(r"above 1 the CLT's $\delta$ is too small: not a bound")
        profiles.legend(
            handles=[
                Line2D([], [], color=EXACT_COLOR, lw=2, label="ratio"),
                Patch(color=CLT_COLOR, alpha=0.35, label=r"CLT $\delta$ below exact"),
            ],
            loc="upper right",
            fontsize=9,
        )

    def _apply(self, mechanism, sigma, epsilon0, releases, alpha):
        pair, k, composed = composed_setting(mechanism, sigma, epsilon0, releases)
        mu = float(composition.clt_mu(pair, k))
        exact_beta = np.asarray(composition.tradeoff(composed, self.alphas), dtype=float)
        clt_beta = np.asarray(composition.gaussian_tradeoff(mu, self.alphas), dtype=float)
        single_beta = np.asarray(composition.tradeoff(pair, self.alphas), dtype=float)
        self.exact_curve.set_data(self.alphas, exact_beta)
        self.clt_curve.set_data(self.alphas, clt_beta)
        self.single_curve.set_data(self.alphas, single_beta)
        over = clt_beta > exact_beta + 1e-12
        self.above.set_xy(band_between(self.alphas, exact_beta, clt_beta, over))
        beta_exact = float(composition.tradeoff(composed, alpha))
        beta_clt = float(composition.gaussian_tradeoff(mu, alpha))
        self.alpha_marks.set_data([alpha, alpha], [beta_exact, beta_clt])
        # Privacy profiles: G_mu is the Gaussian pair with sensitivity / sigma = mu. The
        # Laplace delta is 0 from k epsilon0 on; the Gaussian's falls below floor where
        # P[L > epsilon] does.
        clt_pair = privacy_loss.gaussian(1.0 / mu)
        if np.isfinite(composed.max_loss):
            right = float(composed.max_loss)
        else:
            right = float(composed.loss_quantile(self.floor))
        right = max(right, 0.1)
        grid = np.linspace(0.0, right, 300)
        exact_delta = np.asarray(composed.delta(grid), dtype=float)
        clt_delta = np.asarray(clt_pair.delta(grid), dtype=float)
        ratio = exact_delta / np.maximum(clt_delta, 1e-300)
        shown = np.minimum(ratio, 2 * self.ratio_top)
        below = ratio > 1.0 + 1e-9
        self.ratio_line.set_data(grid, shown)
        self.below.set_xy(band_between(grid, np.ones_like(grid), shown, below))
        self._set_moving_xlim(self.axes[1], 0.0, right)
        first, last, largest = profile_crossings(
            composed, clt_pair, grid, exact_delta, clt_delta, below
        )
        self.note.set_text(clipped_note(k, releases))
        self.state = dict(
            k=k,
            mu=mu,
            alpha=alpha,
            beta_exact=beta_exact,
            beta_clt=beta_clt,
            first_below=first,
            last_below=last,
            ratio=largest,
            grid=grid,
            exact_delta=exact_delta,
            clt_delta=clt_delta,
            exact_beta=exact_beta,
            clt_beta=clt_beta,
        )

    def numbers(self):
        s = self.state
        found = np.isfinite(s["first_below"])
        return {
            r"$\mu$ of the CLT's $G_\mu$": s["mu"],
            r"$\beta(\alpha)$ exact": s["beta_exact"],
            r"$\beta(\alpha)$ CLT": s["beta_clt"],
            r"CLT $\delta$ too small from $\varepsilon$": s["first_below"] if found else "never",
            r"… up to $\varepsilon$": s["last_below"] if found else "never",
            r"largest exact $\delta$ / CLT $\delta$": s["ratio"],
        }
