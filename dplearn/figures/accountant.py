"""Figures COMP-5 and COMP-6: how an accountant counts privacy, and the attacker's best test.

Lesson 09: an accountant's privacy loss distribution on a grid, rounded up and down into
a bracket around the exact epsilon (COMP-5), and the trade-off curves of k releases with
their Gaussian DP approximation (COMP-6). The setting, the controls and the base class
are those of ``dplearn.figures.composition`` (lesson 08); every number comes from
``dplearn.composition``.

Taught in: 09-count-privacy-with-an-accountant.ipynb
"""

from __future__ import annotations

import numpy as np
from matplotlib.lines import Line2D
from matplotlib.patches import Patch, Polygon
from scipy.optimize import elementwise

from dplearn import composition, privacy_loss
from dplearn.figures.composition import (
    CLT_COLOR,
    COMPOSED_EPSILON,
    EXACT_COLOR,
    LAPLACE_MAX_RELEASES,
    OPTIMAL_COLOR,
    RELEASES_CONTROL,
    SIGMA_CONTROL,
    SINGLE_COLOR,
    _CompositionFigure,
    clipped_note,
    composed_setting,
    mechanism_controls,
    mechanism_defaults,
    mechanism_pair,
)
from dplearn.figures.controls import Control, SteppedControl
from dplearn.figures.explorers import register, spoken
from dplearn.figures.legends import legend_below
from dplearn.figures.style import BAD_COLOR, GUIDE_GREY
from dplearn.figures.text import (
    Note,
)
from dplearn.language import N_
from dplearn.language import gettext as _

__all__ = [
    "AccountantBracket",
    "TradeOffCurves",
]


# ---------------------------------------------------------------------------
# COMP-5: how an accountant computes it (privacy loss distributions)
# ---------------------------------------------------------------------------


#: Grid widths COMP-5 offers: 1-2-5 steps; those up to 0.1 divide epsilon0 = 0.1.
GRID_WIDTHS = (0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5)
GRID_WIDTH_CONTROL = SteppedControl(
    N_("grid width $h$"),
    GRID_WIDTHS[0],
    GRID_WIDTHS[-1],
    description=N_("width of the accountant's loss grid"),
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
    maximum=LAPLACE_MAX_RELEASES, description=N_("number of releases (up to 100 here)")
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
    when h divides epsilon0 (the slider offers 1-2-5 widths, which divide the lesson's
    epsilon0 = 0.1); a note says when it does not.

    Taught in: 09-count-privacy-with-an-accountant.ipynb
    """

    figure_id = "COMP-5"
    title = N_("An accountant's PLD: a bracket around the exact δ")
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
        left.set_ylabel(_(r"$P[\mathcal{L} \leq \ell]$, one release"))
        self._static_xlabel(left, _(r"privacy loss $\ell$ of one release"))
        left.set_title(_(r"COMP-5 · one release on a grid of width $h$"))
        # Under the axes: at h = 0.5 the rounded CDFs step through the upper left.
        legend_below(
            self.figure,
            [],
            handles=[
                Line2D([], [], color="black", lw=1.5, label=_("exact")),
                Line2D([], [], color=BAD_COLOR, lw=1.3, label=_("rounded up (pessimistic)")),
                Line2D([], [], color=OPTIMAL_COLOR, lw=1.3, label=_("rounded down (optimistic)")),
                Line2D(
                    [],
                    [],
                    color=BAD_COLOR,
                    lw=2,
                    marker="o",
                    ms=3.5,
                    label=_("pessimistic above exact"),
                ),
                Line2D(
                    [],
                    [],
                    color=OPTIMAL_COLOR,
                    lw=2,
                    marker="o",
                    ms=3.5,
                    label=_("optimistic below exact"),
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
        right.set_xlabel(_(r"grid width $h$"))
        right.set_ylabel(_(r"$|\delta_{\mathrm{bound}} - \delta| \,/\, \delta$, $k$ releases"))
        right.set_title(_(r"after $k$ releases: the bracket shrinks with $h$"))

    def _bracket(self, pair, k, grid_width, epsilon):
        pessimistic = composition.pld(pair, grid_width, pessimistic=True).self_compose(k)
        optimistic = composition.pld(pair, grid_width, pessimistic=False).self_compose(k)
        return float(optimistic.delta(epsilon)), float(pessimistic.delta(epsilon))

    def _sweep(self, mechanism, sigma, epsilon0, k, epsilon, pair, widths):
        """The brackets at these widths.

        Those already computed at this setting are kept while only h moves (the finest grid
        costs the most).
        """
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
        notes = (
            [_("{releases} releases: 100 at most here").format(releases=releases)]
            if k != releases
            else []
        )
        if mechanism == "Laplace" and not grid_holds(epsilon0, grid_width):
            # The atoms at +-epsilon0 fall between grid points: the error jumps with h.
            notes.append(
                _("h = {grid_width:g} does not divide ε₀ = {epsilon0:.4g}").format(
                    grid_width=grid_width, epsilon0=epsilon0
                )
            )
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

    def description(self):
        """COMP-5 in words for a reader who cannot see it, with the current numbers."""
        say, p = self.reader(), self.params
        return _(
            "Left: one release's privacy loss, exact and rounded up or down to a grid of "
            "width h = {grid_width}; right: how far the accountant's δ lies above and below "
            "the exact δ against h. For k = {releases} {releases_phrase} at ε = {epsilon} "
            "the bracket runs from {optimistic} to {pessimistic} around the exact {exact}."
        ).format(
            grid_width=spoken(p["grid_width"]),
            releases=say("composed"),
            releases_phrase=self.releases_phrase(),
            epsilon=spoken(p["epsilon"]),
            optimistic=say("optimistic"),
            pessimistic=say("pessimistic"),
            exact=say("exact"),
        )

    def numbers(self):
        """The readout beside COMP-5: the numbers it shows at the current setting."""
        s = self.state
        return {
            N_(r"$k$ composed"): s["k"],
            N_(r"$\delta$ pessimistic (upper end)"): s["pessimistic"],
            N_(r"$\delta$ exact"): s["exact"],
            N_(r"$\delta$ optimistic (lower end)"): s["optimistic"],
            N_("bracket width"): s["pessimistic"] - s["optimistic"],
        }


# ---------------------------------------------------------------------------
# COMP-6: the hypothesis-test view (f-DP) and the CLT approximation
# ---------------------------------------------------------------------------

ALPHA_CONTROL = Control(
    N_(r"$\alpha$ (type I error)"),
    0.001,
    0.5,
    step=0.001,
    description=N_("the attacker's false-alarm rate"),
)


def band_between(x, lower, upper, where):
    """Vertices of the region between two curves over the x where ``where`` holds.

    Elsewhere the band has no height; where ``where`` holds nowhere, it is a flat sliver.
    """
    low = np.where(where, lower, upper)
    return np.column_stack((np.concatenate((x, x[::-1])), np.concatenate((low, upper[::-1]))))


def gap_scale(gap):
    """The value the gap panel's top tick stands for.

    It is the smallest of 1, 2, 5 times a power of ten at or above the largest positive
    gap (the red band then fills more than half the panel's upper half), or above the
    largest negative one when the CLT curve never lies above the exact curve (a gap of 0
    everywhere: 1).
    """
    gap = np.asarray(gap, dtype=float)
    largest = float(np.max(gap, initial=0.0))
    if largest <= 1e-12:
        largest = float(np.max(-gap, initial=0.0))
    if largest <= 1e-12:
        return 1.0
    power = 10.0 ** np.floor(np.log10(largest))
    return float(next(m * power for m in (1.0, 2.0, 5.0, 10.0) if m * power >= largest))


def signed_round_value(value):
    """A tick value such as +0.02 or −5e−5, short enough for the gap strip's labels."""
    text = f"{abs(value):g}"
    if "e" in text:
        mantissa, exponent = text.split("e")
        text = f"{mantissa}e{int(exponent)}"
    return ("+" if value > 0 else "−") + text.replace("-", "−")


def profile_crossings(exact, approximation, grid, exact_delta, approximate_delta, above):
    """Where the exact delta first and last exceeds the approximation's, and its largest ratio.

    The ratio is exact delta / approximate delta; all three are refined from the grid the
    figure draws.

    The readout quotes these to four digits, finer than the grid's step: each crossing is
    the root of exact delta - approximate delta between the grid points that bracket it,
    the largest ratio the maximum between the grid neighbours of its largest grid value
    (scipy's bracketing solvers, both crossings at once: a few vectorised evaluations).
    A band starting at the grid's first point, or ending at its last, ends there.

    Args:
      exact, approximation: pairs with a vectorised ``delta(epsilon)``.
      grid: increasing epsilons.
      exact_delta, approximate_delta: the deltas at the grid's epsilons.
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
    more than they do). That gap is a few hundredths at most, a few pixels on a unit
    square, so a strip below draws it magnified: CLT beta minus exact beta, its ticks at
    plus and minus a round value (``gap_scale``) written beside them, with the largest
    gap and its alpha. Right: the same comparison as privacy profiles, the exact delta
    divided by the CLT's; above 1 (red) the CLT's delta is too small: not a bound.

    Taught in: 09-count-privacy-with-an-accountant.ipynb
    """

    figure_id = "COMP-6"
    title = N_("The hypothesis-test view: trade-off curves and the CLT")
    controls = mechanism_controls("Laplace", alpha=ALPHA_CONTROL)
    defaults = mechanism_defaults("Laplace", epsilon0=0.5, releases=2, alpha=0.05)
    figsize = (10.0, 4.8)
    floor = 1e-10
    ratio_top = 1.6
    gap_top = 1.15  # the gap strip's y limit, in units of gap_scale

    def _create(self):
        grid = self.figure.add_gridspec(2, 2, width_ratios=(1, 1.3), height_ratios=(3, 1.1))
        tests = self.figure.add_subplot(grid[0, 0])
        gaps = self.figure.add_subplot(grid[1, 0], sharex=tests)
        profiles = self.figure.add_subplot(grid[:, 1])
        self.axes = (tests, profiles, gaps)
        alphas = np.concatenate((np.geomspace(1e-6, 1e-2, 60), np.linspace(0.01, 1.0, 200)[1:]))
        self.alphas = np.concatenate(([0.0], alphas))
        tests.plot([0, 1], [1, 0], color=GUIDE_GREY, lw=1)
        (self.single_curve,) = tests.plot([], [], color=SINGLE_COLOR, lw=1.2)
        self.above = tests.add_patch(Polygon(np.zeros((3, 2)), color=CLT_COLOR, alpha=0.35, lw=0))
        (self.exact_curve,) = tests.plot([], [], color=EXACT_COLOR, lw=2)
        (self.clt_curve,) = tests.plot([], [], color=CLT_COLOR, lw=1.5, ls="--")
        # (alpha, beta) lies in the unit square, on its edges at the sliders' ends: drawn
        # whole there (and kept out of the layout).
        (self.alpha_marks,) = tests.plot(
            [], [], "o", color="black", ms=5, ls="none", clip_on=False, in_layout=False
        )
        # The gap strip: CLT beta - exact beta in units of gap_scale, ticks at -1, 0, 1.
        gaps.axhline(0.0, color="0.4", lw=1)
        self.gap_band = gaps.add_patch(Polygon(np.zeros((3, 2)), color=CLT_COLOR, alpha=0.5, lw=0))
        (self.gap_line,) = gaps.plot([], [], color=CLT_COLOR, lw=1.2)
        self.gap_ticks = [
            Note(
                gaps,
                -0.02,
                (value + self.gap_top) / (2 * self.gap_top),
                ha="right",
                va="center",
                box=False,
            )
            for value in (1.0, -1.0)
        ]
        self.gap_note = Note(gaps, 1.0, 1.04, ha="right", va="bottom", box=False)
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
            self.gap_band,
            self.gap_line,
            *(artist for note in (*self.gap_ticks, self.gap_note) for artist in note.artists),
            self.below,
            self.ratio_line,
            *self.note.artists,
        )
        self._moving_xaxis(profiles)
        tests.set_xlim(0, 1)
        tests.set_ylim(0, 1)
        tests.tick_params(labelbottom=False)
        tests.set_ylabel(_(r"type II error $\beta(\alpha)$"))
        gaps.set_ylim(-self.gap_top, self.gap_top)
        # The ±scale labels are moving notes over tick labels as wide as the widest
        # (kept blank), so that the layout leaves them room.
        gaps.set_yticks([-1.0, 0.0, 1.0], ["−0.0005", "0", "−0.0005"])
        for label in gaps.get_yticklabels()[::2]:
            label.set_alpha(0.0)
        gaps.set_xlabel(_(r"type I error $\alpha$"))
        gaps.set_title(_(r"CLT $\beta$ − exact $\beta$"), loc="left", fontsize=9)
        tests.set_title(_(r"COMP-6 · the attacker's best tests"))
        tests.legend(
            handles=[
                Line2D([], [], color=EXACT_COLOR, lw=2, label=_(r"exact, $k$ releases")),
                Line2D([], [], color=CLT_COLOR, lw=1.5, ls="--", label=_(r"CLT: $G_\mu$")),
                Line2D([], [], color=SINGLE_COLOR, lw=1.2, label=_("one release")),
                Patch(color=CLT_COLOR, alpha=0.35, label=_("CLT above exact")),
            ],
            loc="upper right",
            fontsize=9,
        )
        profiles.set_ylim(0, self.ratio_top)
        profiles.set_ylabel(_(r"exact $\delta(\varepsilon)$ / CLT $\delta(\varepsilon)$"))
        self._static_xlabel(profiles, _(r"$\varepsilon$ of the $k$ releases"))
        profiles.set_title(_(r"above 1 the CLT's $\delta$ is too small: not a bound"))
        profiles.legend(
            handles=[
                Line2D([], [], color=EXACT_COLOR, lw=2, label=_("ratio")),
                Patch(color=CLT_COLOR, alpha=0.35, label=_(r"CLT $\delta$ below exact")),
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
        gap = clt_beta - exact_beta
        scale = gap_scale(gap)
        # Drawn in units of scale; a deeper negative gap runs off the strip's bottom.
        shown = np.clip(gap / scale, -1.5 * self.gap_top, 1.5 * self.gap_top)
        self.gap_line.set_data(self.alphas, shown)
        self.gap_band.set_xy(band_between(self.alphas, np.zeros_like(shown), shown, over))
        for note, sign in zip(self.gap_ticks, (1, -1), strict=True):
            note.set_text(signed_round_value(sign * scale))
        widest = int(np.argmax(gap))
        largest_gap = max(float(gap[widest]), 0.0)
        self.gap_note.set_text(
            _("largest {gap:.3g} at α = {alpha:.3g}").format(
                gap=largest_gap, alpha=self.alphas[widest]
            )
            if over.any()
            else _("CLT never above exact")
        )
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
            gap_scale=scale,
            largest_gap=largest_gap,
            largest_gap_alpha=float(self.alphas[widest]) if over.any() else float("nan"),
        )

    def description(self):
        """COMP-6 in words for a reader who cannot see it, with the current numbers."""
        say, p = self.reader(), self.params
        return _(
            "Left: trade-off curves, the attacker's smallest type II error β against the "
            "type I error α, for k = {releases} {releases_phrase}, exact and by the central "
            "limit theorem with μ = {mu}; at α = {alpha}, β is {beta_exact} exact and "
            "{beta_clt} by the CLT. Right: exact δ over the CLT's δ against ε, at most "
            "{largest_ratio}: above 1 the CLT's δ is too small."
        ).format(
            releases=spoken(p["releases"]),
            releases_phrase=self.releases_phrase(),
            mu=say("of the CLT"),
            alpha=spoken(p["alpha"]),
            beta_exact=say("$ exact"),
            beta_clt=say("$ CLT"),
            largest_ratio=say("largest exact"),
        )

    def numbers(self):
        """The readout beside COMP-6: the numbers it shows at the current setting."""
        s = self.state
        found = np.isfinite(s["first_below"])
        return {
            N_(r"$\mu$ of the CLT's $G_\mu$"): s["mu"],
            N_(r"$\beta(\alpha)$ exact"): s["beta_exact"],
            N_(r"$\beta(\alpha)$ CLT"): s["beta_clt"],
            N_(r"largest CLT $\beta$ − exact $\beta$"): s["largest_gap"],
            N_(r"CLT $\delta$ too small from $\varepsilon$"): (
                s["first_below"] if found else _("never")
            ),
            N_(r"… up to $\varepsilon$"): s["last_below"] if found else _("never"),
            N_(r"largest exact $\delta$ / CLT $\delta$"): s["ratio"],
        }
