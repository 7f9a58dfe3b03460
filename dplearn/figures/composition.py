"""Figures COMP-1 and COMP-2: composition, or what happens when several answers are published.

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

The law of the sum is drawn here (COMP-1, COMP-2), with the setting, the controls and the
base class of every composition figure; the bounds of lesson 08 are drawn in
``dplearn.figures.profiles`` (COMP-3, COMP-4) and the accountant of lesson 09 in
``dplearn.figures.accountant`` (COMP-5, COMP-6).

Taught in: 08-add-up-privacy-losses.ipynb, 09-count-privacy-with-an-accountant.ipynb
"""

from __future__ import annotations

import numpy as np
from matplotlib import transforms
from matplotlib.lines import Line2D
from matplotlib.patches import Patch, Polygon

from dplearn import composition, privacy_loss
from dplearn.composition import first_advanced_win
from dplearn.figures.controls import EPSILON, SIGMA, Choice, Control
from dplearn.figures.explorers import Explorer, register, spoken
from dplearn.figures.grids import curve_positions, probability_grid
from dplearn.figures.legends import legend_below, legend_beside
from dplearn.figures.style import AREA_COLOR, BAD_COLOR, BLUE, GREEN, GREY, ORANGE
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
from dplearn.language import N_
from dplearn.language import gettext as _

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
]

#: The Laplace figures compose at most this many releases (the k slider is clipped).
LAPLACE_MAX_RELEASES = 100

MECHANISM = Choice(
    N_("mechanism"),
    (N_("Gaussian"), N_("Laplace")),
    description=N_("noise added to each release"),
)
SIGMA_CONTROL = SIGMA.replace(
    label=r"$\sigma$",
    minimum=0.5,
    maximum=50.0,
    description=N_("Gaussian noise per release"),
)
EPSILON0_CONTROL = Control(
    r"$\varepsilon_0$",
    0.01,
    2.0,
    log=True,
    description=N_("epsilon of one Laplace release, sensitivity / scale"),
)
RELEASES_CONTROL = Control(
    N_("$k$ releases"),
    1,
    1000,
    integer=True,
    # LAPLACE_MAX_RELEASES written out: the catalog holds the sentence as it is shown.
    description=N_("number of releases (Laplace figures use at most 100)"),
)
#: epsilon of the k releases together, for the figures with a mechanism toggle.
COMPOSED_EPSILON = EPSILON.replace(minimum=0.01, maximum=20.0)
LAPLACE_RELEASES_CONTROL = RELEASES_CONTROL.replace(
    maximum=LAPLACE_MAX_RELEASES, description=N_("number of Laplace releases")
)

SINGLE_COLOR = "0.45"
COMPOSED_COLOR = BLUE
BASIC_COLOR = GREY
ADVANCED_COLOR = ORANGE
OPTIMAL_COLOR = GREEN
EXACT_COLOR = BLUE
CLT_COLOR = BAD_COLOR

# The lessons' setting for the Gaussian (variance 3, lesson 02) and for the Laplace
# mechanism (scale 10, so epsilon0 = 0.1).
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
    """The controls of a figure with a mechanism toggle.

    In order: the toggle, then the slider of the mechanism the figure opens with (so the
    first slider moves it), the other mechanism's, the k slider, and more.
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
    """The opening setting of a figure with a mechanism toggle.

    It holds the lesson's sigma and epsilon0 (or the given one), k releases, and more.
    """
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
    if slider:
        return _("slider {slider_releases}; Laplace stops at {composed_releases}").format(
            slider_releases=releases, composed_releases=k
        )
    return _("Laplace stops at {composed_releases}").format(composed_releases=k)


def ratio_curve(epsilon, losses):
    """e^epsilon / e^L at each loss, its exponent clipped to +-50 (far off any axis)."""
    with np.errstate(over="ignore"):
        return np.exp(np.clip(epsilon - np.asarray(losses, dtype=float), -50, 50))


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

    def releases_phrase(self):
        """The releases composed, in words for a description: their noise and its size."""
        if self.params.get("mechanism", "Laplace") == "Gaussian":
            return _("Gaussian releases of σ = {sigma}").format(sigma=spoken(self.params["sigma"]))
        return _("Laplace releases of ε₀ = {epsilon0}").format(
            epsilon0=spoken(self.params["epsilon0"])
        )


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
    title = N_("Losses add: the privacy loss of one release and of k releases")
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
        ax.set_ylabel(_("probability per bin\n(scaled to its top)"), fontsize=9)
        self._static_xlabel(ax, _(r"privacy loss $\ell$ of all the answers together"))
        ax.set_title(
            _(r"COMP-1 · losses add: $\mathcal{L} = \mathcal{L}_1 + \cdots + \mathcal{L}_k$")
        )
        handles = [
            Patch(fill=False, ec=SINGLE_COLOR, lw=1.5, label=_("one release")),
            Patch(fc=COMPOSED_COLOR, alpha=0.35, ec=COMPOSED_COLOR, label=_(r"$k$ releases")),
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
        arrow = _("(beyond the axis →)") if epsilon > high else ""
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
        self.note.set_text("\n".join(line for line in (clipped, arrow) if line))
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

    def description(self):
        """COMP-1 in words for a reader who cannot see it, with the current numbers."""
        say, p = self.reader(), self.params
        return _(
            "The distribution of the privacy loss for one and for k = {releases} "
            "{releases_phrase}, red where it exceeds ε = {epsilon}: mean {mean}, spread "
            "{spread}, largest value {largest}. So δ₁ = {delta_1} and δ(ε) = {delta}; the "
            "mean grows like k, the spread like the square root of k."
        ).format(
            releases=say("composed"),
            releases_phrase=self.releases_phrase(),
            epsilon=spoken(p["epsilon"]),
            mean=say("mathbb{E}"),
            spread=say("sd"),
            largest=say("mathcal{L}$"),
            delta_1=say("delta_1"),
            delta=say("delta("),
        )

    def numbers(self):
        """The readout beside COMP-1: the numbers it shows at the current setting."""
        s = self.state
        composed = s["composed"]
        return {
            N_(r"$k$ composed"): s["k"],
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
    """COMP-2: e^epsilon / e^L of k releases against the probability position.

    The area between the curve and 1 (over the bad events) is delta(epsilon) of k releases.

    Left: the whole probability axis. Right: zoom on the bad events, x < 1.25 delta_1.
    The grey curve is one release, for comparison. The dashed box is delta_1 wide and 1
    high: its area is delta_1.

    Taught in: 08-add-up-privacy-losses.ipynb
    """

    figure_id = "COMP-2"
    title = N_("k releases on the probability axis: δ is still an area")
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
        # delta_1 is 4e-18, and ticks at such positions would collide and be cut.
        zoomed.set_xlim(0.0, 1.25)
        zoomed.set_xticks([0.0, 0.25, 0.5, 0.75, 1.0, 1.25])
        whole.set_xlim(0, 1)
        whole.set_ylim(0, self.top)
        whole.set_ylabel(r"$e^{\varepsilon}/e^{\mathcal{L}}$")
        whole.set_xlabel(_(r"probability position $x$"))
        zoomed.set_xlabel(_(r"probability position in units of $\delta_1$: $x / \delta_1$"))
        whole.set_title(_(r"COMP-2 · $k$ releases: $\delta(\varepsilon)$ = shaded area"))
        zoomed.set_title(_(r"zoom on the bad events"))
        handles = [
            Line2D(
                [],
                [],
                color=COMPOSED_COLOR,
                lw=2,
                label=_(r"$e^{\varepsilon}/e^{\mathcal{L}}$, $k$ releases"),
            ),
            Line2D([], [], color=SINGLE_COLOR, lw=1.2, label=_("one release")),
            Patch(color=AREA_COLOR, alpha=0.45, label=_(r"area $\delta$")),
            Line2D([], [], color=BAD_COLOR, ls="--", label=_(r"width $\delta_1$ $\times$ 1")),
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

    def description(self):
        """COMP-2 in words for a reader who cannot see it, with the current numbers."""
        say, p = self.reader(), self.params
        return _(
            "e^ε over e^L of k = {releases} {releases_phrase} against the probability "
            "position, left whole and right zoomed, with one release in grey: over the bad "
            "events, of width δ₁ = {width}, the area between the curve and 1 is "
            "δ(ε) = {area} at ε = {epsilon}."
        ).format(
            releases=say("composed"),
            releases_phrase=self.releases_phrase(),
            width=say("(width)"),
            area=say("(area)"),
            epsilon=spoken(p["epsilon"]),
        )

    def numbers(self):
        """The readout beside COMP-2: the numbers it shows at the current setting."""
        s = self.state
        result = {
            N_(r"$k$ composed"): s["k"],
            N_(r"$\delta_1 = \Pr[\mathcal{L} > \varepsilon]$ (width)"): s["width"],
            N_(r"$\delta(\varepsilon)$ (area)"): s["delta"],
        }
        result[r"$\delta / \delta_1$"] = s["delta"] / s["width"] if s["width"] > 0 else 0.0
        return result


# ---------------------------------------------------------------------------
# COMP-3 and COMP-4: basic, advanced, optimal and exact composition (Laplace)
