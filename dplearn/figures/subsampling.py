"""Figures SUB-1 and SUB-2: a Gaussian mechanism run on a Poisson subsample.

Poisson subsampling of rate q keeps every person independently with probability q, and
the mechanism sees only the kept ones. With the person in the data set, the output is the
mixture (1 - q) N(0, sigma^2) + q N(Delta, sigma^2) (left out, or kept); without them it is
N(0, sigma^2). Neighbours differ by adding or removing one person, so the privacy loss has
two directions (remove: outputs drawn from the mixture, L = ln(mixture / normal); add:
outputs drawn from the normal, L = ln(normal / mixture)), and delta(epsilon) is the larger
of the two. Every number comes from ``dplearn.subsampling``; this module only draws.

Sensitivity Delta = 1 throughout: in DP-SGD the sensitivity is the clipping norm C and the
noise sigma C, so only the ratio sigma = noise / sensitivity matters (lesson 11). The x
axis of SUB-1 is the output in units of the noise's standard deviation, o / sigma, so the
axes do not move with the sliders.

Taught in: 10-amplify-privacy-by-subsampling.ipynb
"""

from __future__ import annotations

import math

import numpy as np
from matplotlib import transforms
from matplotlib.lines import Line2D
from matplotlib.patches import Patch, Polygon

from dplearn import privacy_loss, subsampling
from dplearn.figures.controls import EPSILON, SIGMA, Control
from dplearn.figures.explorers import Explorer, register, spoken
from dplearn.figures.legends import legend_beside
from dplearn.figures.style import BAD_COLOR, BLUE, GREEN, GUIDE_GREY, ORANGE
from dplearn.language import N_
from dplearn.language import gettext as _

__all__ = ["RATE", "SubsampledGaussian", "AmplificationBound", "bound_curve"]

RATE = Control(
    N_("rate $q$"),
    0.001,
    1.0,
    log=True,
    description=N_("chance that each person is kept in the subsample"),
)
NOISE = SIGMA.replace(minimum=0.3, maximum=10.0, description=N_("noise sigma (sensitivity 1)"))

WITH_COLOR = BLUE
WITHOUT_COLOR = "0.35"
REMOVE_COLOR = BLUE
ADD_COLOR = ORANGE
BOUND_COLOR = GREEN
MECHANISM_COLOR = "0.45"


# ---------------------------------------------------------------------------
# SUB-1: the two output densities and the privacy loss on both sides
# ---------------------------------------------------------------------------


@register
class SubsampledGaussian(Explorer):
    """SUB-1: the subsampled Gaussian's two densities and its privacy loss, both sides.

    Left: the output's density without the person (one normal) and with them (the mixture
    (1 - q) N(0, sigma^2) + q N(1, sigma^2)); the shaded part is the q N(1, sigma^2) of the
    runs where the person was kept. Right: the privacy loss of each direction against the
    output, L(o) = ln(1 - q + q e^((2o - 1)/(2 sigma^2))) on the remove side and -L(o) on
    the add side; red where it exceeds epsilon. The add side's loss never exceeds
    -ln(1 - q): for small q it is bounded by about q.

    Taught in: 10-amplify-privacy-by-subsampling.ipynb
    """

    figure_id = "SUB-1"
    title = N_("The subsampled Gaussian: a mixture against one normal, and its privacy loss")
    controls = {
        "rate": RATE,
        "sigma": NOISE,
        "epsilon": EPSILON.replace(minimum=0.01, maximum=5.0),
    }
    defaults = {"rate": 0.1, "sigma": 1.0, "epsilon": 1.0}
    figsize = (10.0, 3.7)
    #: The x axis: output / sigma.
    standardised = np.linspace(-4.0, 7.5, 461)
    loss_limits = (-3.0, 6.0)

    def _build(self):
        left, right = self.figure.subplots(1, 2, width_ratios=(1, 1.15))
        self.axes = (left, right)
        (self.without,) = left.plot([], [], color=WITHOUT_COLOR, lw=1.6, ls="--")
        (self.with_person,) = left.plot([], [], color=WITH_COLOR, lw=2)
        self.kept = left.add_patch(
            Polygon(np.zeros((3, 2)), closed=True, fc=WITH_COLOR, alpha=0.25, lw=0)
        )
        left.set_xlim(self.standardised[0], self.standardised[-1])
        left.set_ylim(0, 0.45)
        left.set_xlabel(_(r"output $o/\sigma$ (units of the noise)"))
        left.set_ylabel(_("density"))
        left.set_title(_(r"SUB-1 · with the person: a mixture"))
        left.legend(
            handles=[
                Line2D([], [], color=WITH_COLOR, lw=2, label=_("with: mixture")),
                Line2D([], [], color=WITHOUT_COLOR, lw=1.6, ls="--", label=_("without: normal")),
                Patch(
                    fc=WITH_COLOR,
                    alpha=0.25,
                    label=_(r"$q\,\mathcal{N}(\Delta, \sigma^2)$: kept"),
                ),
            ],
            loc="upper right",
            fontsize=8.5,
        )

        right.axhline(0.0, color=GUIDE_GREY, lw=0.8)
        (self.remove_loss,) = right.plot([], [], color=REMOVE_COLOR, lw=2)
        (self.add_loss,) = right.plot([], [], color=ADD_COLOR, lw=2)
        (self.remove_bad,) = right.plot([], [], color=BAD_COLOR, lw=3.2)
        (self.add_bad,) = right.plot([], [], color=BAD_COLOR, lw=3.2)
        across = transforms.blended_transform_factory(right.transAxes, right.transData)
        (self.epsilon_line,) = right.plot(
            [0, 1], [1, 1], color=BAD_COLOR, ls=":", lw=1.2, transform=across
        )
        (self.add_top,) = right.plot(
            [0, 1], [0, 0], color=ADD_COLOR, ls=":", lw=1.0, transform=across
        )
        self.moving(
            self.without,
            self.with_person,
            self.kept,
            self.remove_loss,
            self.add_loss,
            self.remove_bad,
            self.add_bad,
            self.epsilon_line,
            self.add_top,
        )
        right.set_xlim(self.standardised[0], self.standardised[-1])
        right.set_ylim(*self.loss_limits)
        right.set_xlabel(_(r"output $o/\sigma$"))
        right.set_ylabel(_(r"privacy loss $\mathcal{L}(o)$"))
        right.set_title(_("its privacy loss, remove and add sides"))
        legend_beside(
            right,
            [
                Line2D([], [], color=REMOVE_COLOR, lw=2, label=_("remove: ln(with / without)")),
                Line2D([], [], color=ADD_COLOR, lw=2, label=_("add: ln(without / with)")),
                Line2D([], [], color=BAD_COLOR, lw=3.2, label=r"$\mathcal{L} > \varepsilon$"),
                Line2D([], [], color=BAD_COLOR, ls=":", lw=1.2, label=r"$\varepsilon$"),
                Line2D([], [], color=ADD_COLOR, ls=":", lw=1.0, label=_(r"add's top: $-\ln(1-q)$")),
            ],
        )

    def _apply(self, rate, sigma, epsilon):
        pair = subsampling.poisson(privacy_loss.gaussian(sigma), rate)
        remove, add = pair.remove, pair.add
        z = self.standardised
        outputs = z * sigma
        # Densities of o / sigma: sigma times the densities of o.
        without = sigma * np.asarray(remove.density_d2(outputs), dtype=float)
        mixture = sigma * np.asarray(remove.density_d1(outputs), dtype=float)
        kept = (
            rate * sigma * np.asarray(privacy_loss.gaussian(sigma).density_d2(outputs), dtype=float)
        )
        self.without.set_data(z, without)
        self.with_person.set_data(z, mixture)
        self.kept.set_xy(
            np.column_stack(
                (np.concatenate((z, z[::-1])), np.concatenate((kept, np.zeros(z.size))))
            )
        )
        low, high = self.loss_limits
        margin = 0.5
        remove_loss = np.clip(
            np.asarray(remove.privacy_loss(outputs), dtype=float), low - margin, high + margin
        )
        add_loss = np.clip(
            np.asarray(add.privacy_loss(outputs), dtype=float), low - margin, high + margin
        )
        self.remove_loss.set_data(z, remove_loss)
        self.add_loss.set_data(z, add_loss)
        self.remove_bad.set_data(z, np.where(remove_loss > epsilon, remove_loss, np.nan))
        self.add_bad.set_data(z, np.where(add_loss > epsilon, add_loss, np.nan))
        self.epsilon_line.set_ydata([epsilon, epsilon])
        top = float(add.max_loss)
        self.add_top.set_visible(bool(np.isfinite(top)) and top <= high)
        if np.isfinite(top):
            self.add_top.set_ydata([top, top])
        self.state = dict(
            pair=pair,
            epsilon=epsilon,
            remove_delta=float(remove.delta(epsilon)),
            add_delta=float(add.delta(epsilon)),
            delta=float(pair.delta(epsilon)),
            mechanism_delta=float(privacy_loss.gaussian(sigma).delta(epsilon)),
            add_top=top,
        )

    def description(self):
        """SUB-1 in words for a reader who cannot see it, with the current numbers."""
        say, p = self.reader(), self.params
        return _(
            "Left: the output's density without the person, one normal, and with them, a "
            "mixture that keeps the person with rate q = {rate} (σ = {sigma}); right: the "
            "privacy loss of both directions, red above ε = {epsilon}. The remove side gives "
            "δ(ε) = {remove_delta} and the add side {add_delta}, against {mechanism_delta} "
            "without subsampling; the add side's loss never exceeds {add_top}."
        ).format(
            rate=spoken(p["rate"]),
            sigma=spoken(p["sigma"]),
            epsilon=spoken(p["epsilon"]),
            remove_delta=say("remove side"),
            add_delta=say("$, add side"),
            mechanism_delta=say("without"),
            add_top=say("largest loss"),
        )

    def numbers(self):
        """The readout beside SUB-1: the numbers it shows at the current setting."""
        s = self.state
        return {
            N_(r"$\delta(\varepsilon)$, remove side"): s["remove_delta"],
            N_(r"$\delta(\varepsilon)$, add side"): s["add_delta"],
            N_(r"$\delta(\varepsilon)$ = the larger"): s["delta"],
            N_(r"$\delta(\varepsilon)$ without subsampling"): s["mechanism_delta"],
            N_(r"add side's largest loss $-\ln(1-q)$"): s["add_top"],
        }


# ---------------------------------------------------------------------------
# SUB-2: the amplification bound against the exact profile
# ---------------------------------------------------------------------------


def _power_of_ten(log_value):
    """e^log_value as the readout writes numbers ("2.5119 × 10^-1212").

    It serves values that a float cannot hold (it would show 0 or ∞).
    """
    if not np.isfinite(log_value):
        return "0" if log_value < 0 else "∞"
    exponent = math.floor(log_value / math.log(10.0))
    mantissa = math.exp(log_value - exponent * math.log(10.0))
    if mantissa >= 9.99995:  # rounds up to 10.0000
        mantissa, exponent = mantissa / 10.0, exponent + 1
    return f"{mantissa:.4f} × 10<sup>{exponent}</sup>"


def bound_curve(pair, rate, epsilons):
    """The amplification bound applied to every point of a mechanism's privacy profile.

    Each (epsilon0, delta(epsilon0)) guarantee of the mechanism becomes
    (ln(1 + q(e^epsilon0 - 1)), q delta(epsilon0)) on the subsample; returns the two
    arrays (x, y).

    Taught in: 10-amplify-privacy-by-subsampling.ipynb
    """
    epsilons = np.asarray(epsilons, dtype=float)
    x = np.asarray(subsampling.amplified_epsilon(epsilons, rate), dtype=float)
    y = rate * np.asarray(pair.delta(epsilons), dtype=float)
    return x, y


@register
class AmplificationBound(Explorer):
    """SUB-2: what the amplification bound makes of the mechanism's profile, and the truth.

    Grey: the Gaussian mechanism's privacy profile delta(epsilon) without subsampling.
    Green, dashed: the bound of Balle, Barthe & Gaboardi applied to each of its points,
    (epsilon, delta) -> (ln(1 + q(e^epsilon - 1)), q delta). Blue: the exact profile of the
    subsampled Gaussian (the larger of its two directions); orange: the add side alone.
    The marked guarantee is the mechanism's at the slider's epsilon, and where the bound
    sends it.

    Taught in: 10-amplify-privacy-by-subsampling.ipynb
    """

    figure_id = "SUB-2"
    title = N_("Amplification by subsampling: the bound against the exact profile")
    controls = {
        "rate": RATE,
        "sigma": NOISE,
        "epsilon": EPSILON.replace(
            label=N_(r"$\varepsilon$ (mechanism)"),
            minimum=0.01,
            maximum=10.0,
            description=N_("epsilon of the mechanism without subsampling"),
        ),
    }
    defaults = {"rate": 0.01, "sigma": 1.0, "epsilon": 1.0}
    figsize = (10.0, 3.8)
    # From below the smallest epsilon' the sliders give (q = 0.001, epsilon = 0.01: about
    # 1.0e-5), so that the star is never drawn at the axis' end instead of its place.
    x_limits = (5e-6, 20.0)
    y_limits = (1e-12, 2.0)
    grid = np.geomspace(4e-6, 30.0, 280)

    def _build(self):
        ax = self.axes = self.figure.subplots()
        ax.set_xscale("log")
        ax.set_yscale("log")
        (self.mechanism,) = ax.plot([], [], color=MECHANISM_COLOR, lw=1.6)
        (self.exact,) = ax.plot([], [], color=REMOVE_COLOR, lw=3.2, alpha=0.8)
        (self.add,) = ax.plot([], [], color=ADD_COLOR, lw=1.6)
        (self.bound,) = ax.plot([], [], color=BOUND_COLOR, lw=1.6, ls=(0, (4, 3)))
        (self.arrow,) = ax.plot([], [], color=BOUND_COLOR, lw=1.0, ls=":")
        (self.start,) = ax.plot([], [], "o", color=MECHANISM_COLOR, ms=7)
        (self.end,) = ax.plot([], [], "*", color=BOUND_COLOR, ms=14, mec="black", mew=0.6)
        (self.add_mark,) = ax.plot([], [], "o", color=ADD_COLOR, ms=6, mec="black", mew=0.5)
        (self.promise,) = ax.plot([], [], color=BOUND_COLOR, lw=1.2, ls=":")
        (self.gap,) = ax.plot([], [], color="black", lw=1.2)
        (self.exact_mark,) = ax.plot([], [], "o", color=REMOVE_COLOR, ms=7, mec="black", mew=0.6)
        # A marked value below the axis is not drawn at the floor as if it were there: a
        # triangle at the axis' foot says "below" (its number is in the readout).
        (self.below,) = ax.plot([], [], "v", color="black", ms=7)
        self.moving(
            self.below,
            self.mechanism,
            self.exact,
            self.add,
            self.bound,
            self.arrow,
            self.promise,
            self.gap,
            self.start,
            self.end,
            self.add_mark,
            self.exact_mark,
        )
        ax.set_xlim(*self.x_limits)
        ax.set_ylim(*self.y_limits)
        ax.set_xlabel(r"$\varepsilon$")
        ax.set_ylabel(r"$\delta(\varepsilon)$")
        ax.set_title(_("SUB-2 · the bound on every point of the profile, against the exact one"))
        legend_beside(
            ax,
            [
                Line2D([], [], color=MECHANISM_COLOR, lw=1.6, label=_("mechanism, no subsampling")),
                Line2D(
                    [],
                    [],
                    color=REMOVE_COLOR,
                    lw=3.2,
                    alpha=0.8,
                    label=_("subsampled, exact (larger side)"),
                ),
                Line2D([], [], color=ADD_COLOR, lw=1.6, label=_("subsampled, add side")),
                Line2D(
                    [],
                    [],
                    color=BOUND_COLOR,
                    lw=1.6,
                    ls=(0, (4, 3)),
                    label=_(r"bound: $(\ln(1+q(e^{\varepsilon}-1)),\ q\delta)$"),
                ),
                Line2D(
                    [],
                    [],
                    color=MECHANISM_COLOR,
                    marker="o",
                    ls="none",
                    label=_(r"mechanism at the slider's $\varepsilon$"),
                ),
                Line2D(
                    [],
                    [],
                    color=BOUND_COLOR,
                    marker="*",
                    ms=11,
                    mec="black",
                    ls=":",
                    label=_(
                        r"where the bound sends it; $\delta'$ holds for all $\geq \varepsilon'$"
                    ),
                ),
                Line2D(
                    [],
                    [],
                    color=REMOVE_COLOR,
                    marker="o",
                    mec="black",
                    ls="none",
                    label=_(r"exact at the slider's $\varepsilon$"),
                ),
                Line2D(
                    [],
                    [],
                    color="black",
                    marker="v",
                    ls="none",
                    label=_(r"a marked $\delta$ below $10^{-12}$ (readout)"),
                ),
            ],
        )

    def _apply(self, rate, sigma, epsilon):
        mechanism = privacy_loss.gaussian(sigma)
        pair = subsampling.poisson(mechanism, rate)
        floor = self.y_limits[0] / 10
        grid = self.grid
        self.mechanism.set_data(grid, np.maximum(np.asarray(mechanism.delta(grid)), floor))
        self.exact.set_data(grid, np.maximum(np.asarray(pair.delta(grid)), floor))
        add = np.asarray(pair.add.delta(grid), dtype=float)
        # Below the axis where it is 0 (beyond the add side's largest loss): the curve
        # runs down off the axes instead of stopping in mid-air.
        self.add.set_data(grid, np.maximum(add, floor))
        x, y = bound_curve(mechanism, rate, grid)
        self.bound.set_data(x, np.maximum(y, floor))
        amplified = float(subsampling.amplified_epsilon(epsilon, rate))
        mechanism_delta = float(mechanism.delta(epsilon))
        bound_delta = rate * mechanism_delta
        exact_delta = float(pair.delta(amplified))
        add_delta = float(pair.add.delta(amplified))
        low = self.x_limits[0]
        shown = max(amplified, low)
        bottom = self.y_limits[0]
        below = []

        def marked(x, value):
            """([x], [value]) where value is on the axis; else NaN, and a triangle below."""
            if value >= bottom:
                return [x], [value]
            below.append(x)
            return [x], [np.nan]

        self.start.set_data(*marked(epsilon, mechanism_delta))
        self.end.set_data(*marked(shown, bound_delta))
        self.arrow.set_data(
            [epsilon, shown], [max(mechanism_delta, floor), max(bound_delta, floor)]
        )
        # The add side's delta is often exactly 0 (beyond its largest loss): no mark then.
        self.add_mark.set_data(*marked(shown, add_delta) if add_delta > 0 else ([shown], [np.nan]))
        # One guarantee (epsilon', delta') also holds at every larger epsilon: the bound's
        # promise at the slider's epsilon, against the exact delta there.
        here = float(pair.delta(epsilon))
        high = self.x_limits[1]
        self.promise.set_data([shown, high], [max(bound_delta, floor)] * 2)
        self.gap.set_data([epsilon, epsilon], [max(here, floor), max(bound_delta, floor)])
        self.exact_mark.set_data(*marked(epsilon, here))
        self.below.set_data(below, [bottom * 1.8] * len(below))
        self.state = dict(
            amplified=amplified,
            mechanism_delta=mechanism_delta,
            bound_delta=bound_delta,
            exact_delta=exact_delta,
            add_delta=add_delta,
            remove_delta=float(pair.remove.delta(amplified)),
            epsilon=epsilon,
            exact_here=here,
            # In log space: far in the tail delta underflows to 0, its logarithm does not.
            log_exact_here=float(pair.log_delta(epsilon)),
            log_bound=float(np.log(rate) + mechanism.log_delta(epsilon)),
        )

    def description(self):
        """SUB-2 in words for a reader who cannot see it, with the current numbers."""
        say, p = self.reader(), self.params
        bound_delta = "bound: $\\delta'"
        return _(
            "Privacy profiles, δ against ε: the Gaussian mechanism (σ = {sigma}) without "
            "subsampling, the amplification bound at rate q = {rate}, and the exact "
            "subsampled profile. The guarantee at ε = {epsilon}, δ = {mechanism_delta}, goes "
            "to ε' = {amplified_epsilon} and δ' = {bound_delta}; the exact δ there is "
            "{exact_ratio} times the bound."
        ).format(
            sigma=spoken(p["sigma"]),
            rate=spoken(p["rate"]),
            epsilon=spoken(p["epsilon"]),
            mechanism_delta=say("mechanism:"),
            amplified_epsilon=say("ln(1 + q"),
            bound_delta=say(bound_delta),
            exact_ratio=say("/ $"),
        )

    def numbers(self):
        """The readout beside SUB-2: the numbers it shows at the current setting."""
        s = self.state
        bound, exact, here = s["bound_delta"], s["exact_delta"], s["exact_here"]
        return {
            N_(r"mechanism: $\delta(\varepsilon)$"): s["mechanism_delta"],
            N_(r"bound: $\varepsilon' = \ln(1 + q(e^{\varepsilon} - 1))$"): s["amplified"],
            N_(r"bound: $\delta' = q\,\delta(\varepsilon)$"): bound,
            N_(r"exact $\delta(\varepsilon')$, subsampled"): exact,
            # 1 up to rounding: the bound is tight on the remove side.
            N_(r"exact $\delta(\varepsilon')$ / $\delta'$"): exact / bound if bound > 0 else 1.0,
            N_(r"exact $\delta(\varepsilon)$ at the slider's $\varepsilon$"): (
                here if here > 0 else _power_of_ten(s["log_exact_here"])
            ),
            N_(r"there below $\delta'$ by a factor"): (
                bound / here if here > 0 else _power_of_ten(s["log_bound"] - s["log_exact_here"])
            ),
            N_(r"add side $\delta(\varepsilon')$"): s["add_delta"],
        }
