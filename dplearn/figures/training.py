"""Figures SGD-1 to SGD-4: the privacy of a training run, and a real one.

A DP-SGD run takes T steps, each the Gaussian mechanism of noise multiplier sigma on a
Poisson subsample of rate q = batch size / data set size (lesson 10); an epoch is 1/q
steps. SGD-1 to SGD-3 account for a run on a data set of 60,000 examples (the size of
MNIST, the setting of Abadi et al. 2016 and of the TensorFlow Privacy tutorial); SGD-4
trains a logistic regression on the breast cancer data that ships with scikit-learn
(``dplearn.training``). Every epsilon comes from ``dplearn.accounting`` and every Rényi
divergence from ``dplearn.renyi``; this module only draws and caches.

Speed: the accountant's epsilon for thousands of steps is cheap once the first run of a
setting has built its one-step PLD (the costly part), and every value here is cached, so
the epochs slider moves along cached curves. SGD-1 and SGD-3 draw their curves through
EPOCH_GRID with the accountant's default h = 1e-4 (one one-step PLD serves the curve and
the readout); SGD-4 needs an epsilon at every epoch of every run, and
takes them on a grid of width h = 1e-3, still pessimistic and within half a percent of
h = 1e-4 there (the tests check). Sliders that need new accountant runs (sigma, batch
size, delta, and SGD-4's clipping norm) update when released rather than while dragged.

Why over 800 lines: the four figures of one lesson share its sliders' listed values and
the accountant's cached curves; split SGD-4 (the real training run) into a module of its
own when lesson 11 gains a figure.

Taught in: 11-account-for-a-training-run.ipynb
"""

from __future__ import annotations

import functools

import numpy as np
from matplotlib.lines import Line2D
from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator

from dplearn import accounting, privacy_loss, renyi, subsampling, training
from dplearn.figures.controls import DELTA, SIGMA, Control, listed
from dplearn.figures.explorers import Explorer, register, spoken
from dplearn.figures.legends import legend_beside
from dplearn.figures.style import BLUE, GUIDE_GREY, ORANGE
from dplearn.language import N_, filled
from dplearn.language import gettext as _

__all__ = [
    "DATA_SET_SIZE",
    "EPOCH_GRID",
    "CURVE_GRID_WIDTH",
    "pld_epsilon",
    "pld_curve",
    "rdp_epsilon",
    "training_runs",
    "EpsilonAgainstEpochs",
    "RenyiDivergences",
    "RenyiAgainstPLD",
    "TrainingRun",
]

#: The data set size of SGD-1 to SGD-3 (MNIST's 60,000 training images).
DATA_SET_SIZE = 60_000
#: Epochs through which the PLD curves are drawn.
EPOCH_GRID = (1, 2, 5, 15, 30, 60, 100)
#: Grid width of the accountant for SGD-4's epsilon at every epoch (elsewhere: 1e-4).
CURVE_GRID_WIDTH = 1e-3
#: SGD-4: the data split and the runs' seeds, and its fixed learning rate.
SPLIT_SEED, RUN_SEED = 2026, 11
LEARNING_RATE = 0.5
MAX_TRAINING_EPOCHS = 40

PLD_COLOR = BLUE
RDP_COLOR = ORANGE
GAUSSIAN_COLOR = "0.5"
NON_PRIVATE_COLOR = "0.35"
MARK_COLOR = "black"


#: The noise multipliers offered: tenths up to 1.3 (the lesson's 1.1 and the TensorFlow
#: Privacy tutorial's 0.6 and 1.2), then steps that change epsilon visibly.
SIGMAS = (0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.1, 1.2, 1.3, 1.5, 1.7, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5)
SIGMAS += (5.0,)
#: SGD-4's noise multipliers go on to 20 (a model that learns little).
TRAINING_SIGMAS = SIGMAS + (6.0, 7.0, 8.0, 10.0, 12.0, 15.0, 20.0)
#: Expected batch sizes of SGD-1 to SGD-3: powers of two, and 600 (q = 0.01 exactly).
BATCH_SIZES = (16, 32, 64, 128, 256, 512, 600, 1024, 2048)
#: SGD-4's expected batch sizes (of 427 training examples): powers of two, and half.
TRAINING_BATCH_SIZES = (8, 16, 32, 64, 128, 213)
#: SGD-4's clipping norms: 1-2-5 steps.
CLIP_NORMS = (0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0)
#: Target deltas: powers of ten.
DELTAS = tuple(10.0**exponent for exponent in range(-10, -2))


def _released(control):
    """The control with a slider that updates the figure when released, not while dragged.

    For sliders whose every new value needs a fresh accountant run, too slow to repeat at
    every step of a drag: dragging would queue one run per value passed on the way.
    """
    return control.replace(on_release=True)


NOISE_MULTIPLIER = listed(
    _released(
        SIGMA.replace(
            label=N_(r"noise $\sigma$"),
            minimum=0.5,
            maximum=5.0,
            description=N_("noise standard deviation over the clipping norm"),
        )
    ),
    SIGMAS,
)
BATCH_SIZE = listed(
    _released(
        Control(
            N_("batch size"),
            16,
            2048,
            integer=True,
            description=filled(
                N_("expected batch size; q = batch size / {size}"), size=DATA_SET_SIZE
            ),
        )
    ),
    BATCH_SIZES,
)
TARGET_DELTA = listed(_released(DELTA.replace(minimum=1e-10, maximum=1e-3)), DELTAS)
EPOCHS = Control(
    N_("epochs"), 1, 100, integer=True, description=N_("epochs of the run (1/q steps each)")
)
ORDER = Control(N_(r"order $\alpha$"), 1.1, 256.0, log=True, description=N_("Rényi order alpha"))

DOCUMENT_SETTING = {"sigma": 1.1, "batch_size": 256, "delta": 1e-5, "epochs": 60}


#: SGD-4's epsilon axis has this many tick positions, whatever its span (those below the
#: axis are not drawn): a new run changes their places, never their number.
EPSILON_TICKS = 8


def _ticks_within(low, high):
    """EPSILON_TICKS tick positions around the range from low to high.

    They are the 1-2-5 values between low and high (every other one when there are too
    many), then values below low to make up the number.
    """
    first, last = int(np.floor(np.log10(low))), int(np.ceil(np.log10(high)))
    values = [m * 10.0**e for e in range(first, last + 1) for m in (1.0, 2.0, 5.0)]
    shown = [value for value in values if low <= value <= high]
    while len(shown) > EPSILON_TICKS:
        shown = shown[::2]
    hidden = [low / 10.0 ** (i + 1) for i in range(EPSILON_TICKS - len(shown))]
    return hidden[::-1] + shown


def _on_axis(xs, values, bottom, top, below, above):
    """values where they lie within [bottom, top], NaN elsewhere; triangles for the others.

    The triangles below and above (Line2D) mark, at the axis' foot or head, the x of each
    value beyond it.

    A clipped marker would sit at the edge as if that were its value; the readout holds the
    number, the triangle says that it is off the axis and on which side.
    """
    values = np.asarray(values, dtype=float)
    xs = np.broadcast_to(np.asarray(xs, dtype=float), values.shape)
    low, high = values < bottom, values > top
    # Just inside the log axis' ends, so that the triangles show whole.
    below.set_data(xs[low], np.full(int(low.sum()), bottom * (top / bottom) ** 0.03))
    above.set_data(xs[high], np.full(int(high.sum()), top / (top / bottom) ** 0.03))
    return np.where(low | high, np.nan, values)


def sampling_rate(batch_size):
    """q of SGD-1 to SGD-3: batch size / 60,000.

    Taught in: 11-account-for-a-training-run.ipynb
    """
    return int(batch_size) / DATA_SET_SIZE


@functools.lru_cache(maxsize=4096)
def pld_epsilon(rate, sigma, steps, delta, grid_width=None):
    """The PLD accountant's (pessimistic) epsilon, cached per setting.

    Taught in: 11-account-for-a-training-run.ipynb
    """
    return float(accounting.dp_sgd_epsilon(rate, sigma, int(steps), delta, grid_width=grid_width))


@functools.lru_cache(maxsize=4096)
def rdp_epsilon(rate, sigma, steps, delta):
    """The RDP accountant's epsilon at the default orders, cached per setting.

    Taught in: 11-account-for-a-training-run.ipynb
    """
    return float(accounting.dp_sgd_epsilon(rate, sigma, int(steps), delta, method="rdp"))


@functools.lru_cache(maxsize=512)
def pld_curve(rate, sigma, delta):
    """(epochs, epsilon) through EPOCH_GRID by the PLD accountant.

    Taught in: 11-account-for-a-training-run.ipynb
    """
    epochs = np.array(EPOCH_GRID, dtype=float)
    steps = training.steps_for_epochs(epochs, rate)
    values = np.array([pld_epsilon(rate, sigma, int(t), delta) for t in steps])
    values.setflags(write=False)
    return epochs, values


#: Epochs at which the RDP curve is drawn (it is cheap: 1/100 of a PLD run per point).
RDP_EPOCHS = np.unique(np.round(np.geomspace(1, 100, 40)).astype(int))


@functools.lru_cache(maxsize=512)
def rdp_curve(rate, sigma, delta):
    """(epochs, epsilon) by the RDP accountant at RDP_EPOCHS.

    Taught in: 11-account-for-a-training-run.ipynb
    """
    steps = training.steps_for_epochs(RDP_EPOCHS, rate)
    values = np.array([rdp_epsilon(rate, sigma, int(t), delta) for t in steps])
    values.setflags(write=False)
    return RDP_EPOCHS.astype(float), values


# ---------------------------------------------------------------------------
# SGD-1: epsilon of a run against its number of epochs
# ---------------------------------------------------------------------------


@register
class EpsilonAgainstEpochs(Explorer):
    """SGD-1: epsilon at delta of a DP-SGD run against its number of epochs, by PLD.

    T steps of the subsampled Gaussian composed by the PLD accountant of lesson 09. The
    curve runs through EPOCH_GRID; the marked point and the readout are at the slider's
    epochs. At q = 256/60000, sigma = 1.1, delta = 1e-5: 60 epochs
    (14,063 steps) give about 2.38, 15 epochs (3,516 steps) about 1.134.

    Taught in: 11-account-for-a-training-run.ipynb
    """

    figure_id = "SGD-1"
    title = N_("A training run's privacy: epsilon against the number of epochs")
    controls = {
        "epochs": EPOCHS,
        "sigma": NOISE_MULTIPLIER,
        "batch_size": BATCH_SIZE,
        "delta": TARGET_DELTA,
    }
    defaults = dict(DOCUMENT_SETTING)
    figsize = (9.0, 3.6)
    limits = (0.01, 200.0)

    def _build(self):
        ax = self.axes = self.figure.subplots()
        ax.set_xscale("log")
        ax.set_yscale("log")
        (self.curve,) = ax.plot([], [], color=PLD_COLOR, lw=2, marker="o", ms=4)
        (self.epoch_line,) = ax.plot([], [], color=MARK_COLOR, ls=":", lw=1)
        (self.mark,) = ax.plot([], [], "o", color=MARK_COLOR, ms=7)
        self.moving(self.curve, self.epoch_line, self.mark)
        ax.set_xlim(0.9, 110)
        ax.set_ylim(*self.limits)
        ax.set_xlabel(_("epochs (one epoch = 1/q steps)"))
        ax.set_ylabel(_(r"$\varepsilon$ at $\delta$"))
        ax.set_title(_(r"SGD-1 · $T$ noisy subsampled steps, composed by the PLD accountant"))
        accountant = _("PLD accountant")
        slider_epochs = _("the slider's epochs")
        legend_beside(
            ax,
            [
                Line2D([], [], color=PLD_COLOR, lw=2, marker="o", ms=4, label=accountant),
                Line2D([], [], color=MARK_COLOR, marker="o", ls=":", label=slider_epochs),
            ],
        )

    def _apply(self, epochs, sigma, batch_size, delta):
        rate = sampling_rate(batch_size)
        grid, curve = pld_curve(rate, sigma, delta)
        self.curve.set_data(grid, np.clip(curve, self.limits[0] / 2, self.limits[1] * 2))
        steps = training.steps_for_epochs(epochs, rate)
        epsilon = pld_epsilon(rate, sigma, steps, delta)
        self.epoch_line.set_data([epochs, epochs], list(self.limits))
        self.mark.set_data([epochs], [min(max(epsilon, self.limits[0]), self.limits[1])])
        self.state = dict(rate=rate, steps=steps, epsilon=epsilon, epochs=epochs)

    def description(self):
        """SGD-1 in words for a reader who cannot see it, with the current numbers."""
        say, p = self.reader(), self.params
        return _(
            "ε at δ = {delta} of a DP-SGD run against the number of epochs, by "
            "the PLD accountant (σ = {sigma}, batch size "
            "{batch_size}, sampling rate {sampling_rate}): "
            "{epochs} epochs, {steps} steps, give ε = {epsilon}."
        ).format(
            delta=spoken(p["delta"]),
            sigma=spoken(p["sigma"]),
            batch_size=spoken(p["batch_size"]),
            sampling_rate=say("sampling rate"),
            epochs=spoken(p["epochs"]),
            steps=say("steps"),
            epsilon=say("PLD"),
        )

    def numbers(self):
        """The readout beside SGD-1: the numbers it shows at the current setting."""
        s = self.state
        return {
            N_("sampling rate $q$"): s["rate"],
            N_("steps $T$"): f"{s['steps']:,}",
            N_(r"$\varepsilon$ by PLD"): s["epsilon"],
        }


# ---------------------------------------------------------------------------
# SGD-2: Rényi divergences, one step and T steps
# ---------------------------------------------------------------------------


@functools.lru_cache(maxsize=512)
def _one_step_rdp(rate, sigma):
    """D_alpha of one step at the default orders, read-only."""
    pair = subsampling.poisson(privacy_loss.gaussian(sigma), rate)
    values = np.asarray(renyi.rdp(pair, ORDERS), dtype=float)
    values.setflags(write=False)
    return values


#: The orders drawn: dp_accounting's default list.
ORDERS = np.array(renyi.DEFAULT_ORDERS, dtype=float)


def conversion(alphas, rdp_values, delta):
    """epsilon at delta from each order on its own (Balle et al. 2020, Theorem 21).

    It is rdp + ln(1 - 1/alpha) - (ln delta + ln alpha) / (alpha - 1), never below 0, and 0
    where delta >= sqrt(1 - e^-rdp) already; inf for orders at or below 1.01, which the
    accountant does not use. The same as ``dplearn.renyi.to_epsilon`` given one order at
    a time (the tests check), for all the orders at once.

    Taught in: 11-account-for-a-training-run.ipynb
    """
    alphas = np.asarray(alphas, dtype=float)
    values = np.asarray(rdp_values, dtype=float)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        formula = (
            values + np.log1p(-1.0 / alphas) - (np.log(delta) + np.log(alphas)) / (alphas - 1.0)
        )
        trivial = delta**2 + np.expm1(-values) > 0
    epsilons = np.where(alphas > 1.01, np.maximum(formula, 0.0), np.inf)
    return np.where(trivial, 0.0, epsilons)


@register
class RenyiDivergences(Explorer):
    """SGD-2: Rényi DP as the moments of the privacy loss, for one step and T steps.

    Left: D_alpha = ln E[e^((alpha - 1) L)] / (alpha - 1) against the order alpha, for one
    subsampled step (binomial sum at integer alpha), for T steps (T times as much: RDP
    adds under composition), and for one step of the Gaussian without subsampling,
    alpha / (2 sigma^2). Right: the epsilon at delta that each order gives for the T steps
    (the conversion of Balle et al. 2020); the accountant reports the smallest.

    Taught in: 11-account-for-a-training-run.ipynb
    """

    figure_id = "SGD-2"
    title = N_("Rényi DP: D_alpha against alpha, one step and T steps")
    controls = {
        "alpha": ORDER,
        "sigma": NOISE_MULTIPLIER,
        "batch_size": BATCH_SIZE,
        "epochs": EPOCHS,
        "delta": TARGET_DELTA,
    }
    defaults = {**DOCUMENT_SETTING, "alpha": 8.0}
    figsize = (10.0, 3.7)
    divergence_limits = (1e-7, 1e5)
    epsilon_limits = (0.5, 100.0)

    def _build(self):
        left, right = self.figure.subplots(1, 2)
        self.axes = (left, right)
        for ax in (left, right):
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_xlim(1.05, 300)
        (self.gaussian,) = left.plot([], [], color=GAUSSIAN_COLOR, lw=1.4, ls="--")
        (self.one,) = left.plot([], [], color=RDP_COLOR, lw=1.6)
        (self.many,) = left.plot([], [], color=RDP_COLOR, lw=2.6)
        (self.order_line,) = left.plot([], [], color=MARK_COLOR, ls=":", lw=1)
        (self.marks,) = left.plot([], [], "o", color=MARK_COLOR, ms=6, ls="none")
        (self.marks_below,) = left.plot([], [], "v", color=MARK_COLOR, ms=7, ls="none")
        (self.marks_above,) = left.plot([], [], "^", color=MARK_COLOR, ms=7, ls="none")
        left.set_ylim(*self.divergence_limits)
        left.set_xlabel(_(r"order $\alpha$"))
        left.set_ylabel(r"$D_\alpha$")
        left.set_title(_(r"SGD-2 · $D_\alpha$: one step and $T$ steps"))
        left.legend(
            handles=[
                Line2D([], [], color=RDP_COLOR, lw=2.6, label=_(r"$T$ steps: $T \times$ one")),
                Line2D([], [], color=RDP_COLOR, lw=1.6, label=_("one subsampled step")),
                Line2D(
                    [],
                    [],
                    color=GAUSSIAN_COLOR,
                    lw=1.4,
                    ls="--",
                    label=_(r"one step, no subsampling: $\alpha/(2\sigma^2)$"),
                ),
            ],
            loc="lower right",
            fontsize=8.5,
        )
        (self.epsilons,) = right.plot([], [], color=RDP_COLOR, lw=2)
        (self.best,) = right.plot([], [], "*", color=RDP_COLOR, ms=13, mec="black", mew=0.6)
        (self.here,) = right.plot([], [], "o", color=MARK_COLOR, ms=6)
        (self.here_line,) = right.plot([], [], color=MARK_COLOR, ls=":", lw=1)
        # At the axis' foot or head, at an order that reaches the axes' left end: whole
        # there, and left out of the layout, which they would otherwise widen.
        (self.right_below,) = right.plot(
            [], [], "v", color=MARK_COLOR, ms=7, ls="none", clip_on=False, in_layout=False
        )
        (self.right_above,) = right.plot(
            [], [], "^", color=MARK_COLOR, ms=7, ls="none", clip_on=False, in_layout=False
        )
        right.set_ylim(*self.epsilon_limits)
        right.set_xlabel(_(r"order $\alpha$"))
        right.set_ylabel(_(r"$\varepsilon$ at $\delta$ from this order"))
        right.set_title(_(r"$T$ steps: $\varepsilon$ from each order; the smallest is reported"))
        self.moving(
            self.gaussian,
            self.one,
            self.many,
            self.order_line,
            self.marks,
            self.epsilons,
            self.best,
            self.here,
            self.here_line,
            self.marks_below,
            self.marks_above,
            self.right_below,
            self.right_above,
        )

    def _apply(self, alpha, sigma, batch_size, epochs, delta):
        rate = sampling_rate(batch_size)
        steps = training.steps_for_epochs(epochs, rate)
        one = _one_step_rdp(rate, sigma)
        many = steps * one
        low, high = self.divergence_limits
        self.gaussian.set_data(ORDERS, ORDERS / (2 * sigma**2))
        self.one.set_data(ORDERS, np.clip(one, low / 10, high * 10))
        self.many.set_data(ORDERS, np.clip(many, low / 10, high * 10))
        pair = subsampling.poisson(privacy_loss.gaussian(sigma), rate)
        one_here = float(renyi.rdp(pair, alpha))
        many_here = steps * one_here
        self.order_line.set_data([alpha, alpha], [low, high])
        self.marks.set_data(
            [alpha, alpha],
            _on_axis(alpha, [one_here, many_here], low, high, self.marks_below, self.marks_above),
        )
        per_order = _per_order_epsilon(rate, sigma, steps, delta)
        best_index = int(np.argmin(per_order))
        bottom, top = self.epsilon_limits
        self.epsilons.set_data(ORDERS, np.clip(per_order, bottom / 10, top * 10))
        epsilon_here = float(renyi.to_epsilon([alpha], [many_here], delta))
        xs = [ORDERS[best_index], alpha]
        best, here = _on_axis(
            xs,
            [per_order[best_index], epsilon_here],
            bottom,
            top,
            self.right_below,
            self.right_above,
        )
        self.best.set_data([xs[0]], [best])
        self.here.set_data([alpha], [here])
        self.here_line.set_data([alpha, alpha], [bottom, top])
        self.state = dict(
            steps=steps,
            one=one_here,
            many=many_here,
            epsilon_here=epsilon_here,
            best_order=float(ORDERS[best_index]),
            best=float(per_order[best_index]),
        )

    def description(self):
        """SGD-2 in words for a reader who cannot see it, with the current numbers."""
        say, p = self.reader(), self.params
        return _(
            "Left: the Rényi divergence against its order α for one subsampled step, for "
            "all {steps} steps and for the Gaussian without subsampling; right: the "
            "ε at δ = {delta} each order gives. At α = {alpha}: "
            "{one_step} per step, {all_steps} over all steps, ε = "
            "{epsilon}; the best order {best_order} gives "
            "{reported}."
        ).format(
            steps=say("steps $T$"),
            delta=spoken(p["delta"]),
            alpha=spoken(p["alpha"]),
            one_step=say("one step"),
            all_steps=say(", $T$ steps"),
            epsilon=say("from this"),
            best_order=say("best order"),
            reported=say("reported"),
        )

    def numbers(self):
        """The readout beside SGD-2: the numbers it shows at the current setting."""
        s = self.state
        return {
            N_("steps $T$"): f"{s['steps']:,}",
            N_(r"$D_\alpha$, one step"): s["one"],
            N_(r"$D_\alpha$, $T$ steps"): s["many"],
            N_(r"$\varepsilon$ from this $\alpha$"): s["epsilon_here"],
            N_(r"best order $\alpha^*$"): s["best_order"],
            N_(r"$\varepsilon$ reported (at $\alpha^*$)"): s["best"],
        }


@functools.lru_cache(maxsize=512)
def _per_order_epsilon(rate, sigma, steps, delta):
    values = conversion(ORDERS, int(steps) * _one_step_rdp(rate, sigma), delta)
    values.setflags(write=False)
    return values


# ---------------------------------------------------------------------------
# SGD-3: what RDP loses against the PLD
# ---------------------------------------------------------------------------


@register
class RenyiAgainstPLD(Explorer):
    """SGD-3: epsilon at delta from RDP and from the PLD, against the number of epochs.

    The RDP one is converted and minimised over the orders.

    At the SGD-1 setting, 60 epochs: RDP 2.5967 against PLD 2.3818 (RDP 9 % more);
    sigma = 4, q = 0.01 (batch 600), 100 epochs = 10,000 steps: 1.0355 against 0.947.

    Taught in: 11-account-for-a-training-run.ipynb
    """

    figure_id = "SGD-3"
    title = N_("What RDP loses: epsilon from RDP and from the PLD over epochs")
    controls = {
        "epochs": EPOCHS,
        "sigma": NOISE_MULTIPLIER,
        "batch_size": BATCH_SIZE,
        "delta": TARGET_DELTA,
    }
    defaults = dict(DOCUMENT_SETTING)
    figsize = (10.0, 3.6)
    limits = (0.01, 200.0)
    ratio_limits = (0.95, 1.6)

    def _build(self):
        left, right = self.figure.subplots(1, 2, width_ratios=(1.4, 1))
        self.axes = (left, right)
        left.set_xscale("log")
        left.set_yscale("log")
        (self.rdp,) = left.plot([], [], color=RDP_COLOR, lw=2)
        (self.pld,) = left.plot([], [], color=PLD_COLOR, lw=2, marker="o", ms=4)
        (self.epoch_line,) = left.plot([], [], color=MARK_COLOR, ls=":", lw=1)
        (self.marks,) = left.plot([], [], "o", color=MARK_COLOR, ms=6, ls="none")
        left.set_xlim(0.9, 110)
        left.set_ylim(*self.limits)
        left.set_xlabel(_("epochs"))
        left.set_ylabel(_(r"$\varepsilon$ at $\delta$"))
        left.set_title(_(r"SGD-3 · RDP against the PLD"))
        left.legend(
            handles=[
                Line2D([], [], color=RDP_COLOR, lw=2, label=_("RDP, converted")),
                Line2D([], [], color=PLD_COLOR, lw=2, marker="o", ms=4, label="PLD"),
            ],
            loc="upper left",
            fontsize=9,
        )
        right.set_xscale("log")
        right.axhline(1.0, color=GUIDE_GREY, lw=0.8)
        (self.ratio,) = right.plot([], [], color="black", lw=1.8, marker="o", ms=4)
        (self.ratio_line,) = right.plot([], [], color=MARK_COLOR, ls=":", lw=1)
        (self.ratio_mark,) = right.plot([], [], "o", color=MARK_COLOR, ms=6)
        (self.below,) = left.plot([], [], "v", color=MARK_COLOR, ms=7, ls="none")
        (self.above,) = left.plot([], [], "^", color=MARK_COLOR, ms=7, ls="none")
        (self.ratio_below,) = right.plot([], [], "v", color=MARK_COLOR, ms=7, ls="none")
        (self.ratio_above,) = right.plot([], [], "^", color=MARK_COLOR, ms=7, ls="none")
        right.set_xlim(0.9, 110)
        right.set_ylim(*self.ratio_limits)
        right.set_xlabel(_("epochs"))
        right.set_ylabel(r"$\varepsilon_{\mathrm{RDP}} / \varepsilon_{\mathrm{PLD}}$")
        right.set_title(_("how much more RDP reports"))
        self.moving(
            self.rdp,
            self.pld,
            self.epoch_line,
            self.marks,
            self.ratio,
            self.ratio_line,
            self.ratio_mark,
            self.below,
            self.above,
            self.ratio_below,
            self.ratio_above,
        )

    def _apply(self, epochs, sigma, batch_size, delta):
        rate = sampling_rate(batch_size)
        grid, pld = pld_curve(rate, sigma, delta)
        rdp_grid, rdp = rdp_curve(rate, sigma, delta)
        low, high = self.limits
        self.pld.set_data(grid, np.clip(pld, low / 2, high * 2))
        self.rdp.set_data(rdp_grid, np.clip(rdp, low / 2, high * 2))
        rdp_on_grid = np.array(
            [rdp_epsilon(rate, sigma, int(t), delta) for t in training.steps_for_epochs(grid, rate)]
        )
        with np.errstate(divide="ignore", invalid="ignore"):
            ratios = np.where(pld > 0, rdp_on_grid / pld, np.nan)
        bottom, top = self.ratio_limits
        self.ratio.set_data(grid, np.clip(ratios, bottom - 1, top + 1))
        steps = training.steps_for_epochs(epochs, rate)
        pld_here = pld_epsilon(rate, sigma, steps, delta)
        rdp_here = rdp_epsilon(rate, sigma, steps, delta)
        marks = _on_axis(epochs, [pld_here, rdp_here], low, high, self.below, self.above)
        self.marks.set_data([epochs, epochs], marks)
        # Up to the higher dot only: the legend sits in the upper left, over the first epochs.
        reach = np.nanmax(marks) if np.any(np.isfinite(marks)) else high
        self.epoch_line.set_data([epochs, epochs], [low, reach])
        ratio = rdp_here / pld_here if pld_here > 0 else float("inf")
        self.ratio_line.set_data([epochs, epochs], [bottom, top])
        (shown,) = _on_axis(epochs, [ratio], bottom, top, self.ratio_below, self.ratio_above)
        self.ratio_mark.set_data([epochs], [shown])
        self.state = dict(steps=steps, pld=pld_here, rdp=rdp_here, ratio=ratio)

    def description(self):
        """SGD-3 in words for a reader who cannot see it, with the current numbers."""
        say, p = self.reader(), self.params
        return _(
            "ε at δ = {delta} against the number of epochs, from Rényi DP and "
            "from the PLD (σ = {sigma}, batch size {batch_size}): "
            "at {epochs} epochs, {steps} steps, RDP reports "
            "{rdp_epsilon} and the PLD {pld_epsilon}, {excess} more."
        ).format(
            delta=spoken(p["delta"]),
            sigma=spoken(p["sigma"]),
            batch_size=spoken(p["batch_size"]),
            epochs=spoken(p["epochs"]),
            steps=say("steps"),
            rdp_epsilon=say("by RDP", 4),
            pld_epsilon=say("by PLD", 4),
            excess=say("more by"),
        )

    def numbers(self):
        """The readout beside SGD-3: the numbers it shows at the current setting."""
        s = self.state
        return {
            N_("steps $T$"): f"{s['steps']:,}",
            N_(r"$\varepsilon$ by RDP"): s["rdp"],
            N_(r"$\varepsilon$ by PLD"): s["pld"],
            N_("RDP reports more by"): f"{(s['ratio'] - 1) * 100:.1f} %",
        }


# ---------------------------------------------------------------------------
# SGD-4: a real training run
# ---------------------------------------------------------------------------


@functools.lru_cache(maxsize=1)
def _data():
    return training.breast_cancer(rng=np.random.default_rng(SPLIT_SEED))


@functools.lru_cache(maxsize=256)
def training_runs(sigma, batch_size, clip_norm):
    """(DP-SGD run, non-private run) of SGD-4 for MAX_TRAINING_EPOCHS epochs, seeded.

    The epsilon per epoch is the PLD accountant's (h = 1e-3); it depends on sigma and the batch size
    only, so a new clipping norm reuses the accountant's cached values. Both runs draw the
    same batches.

    Taught in: 11-account-for-a-training-run.ipynb
    """
    data = _data()
    rate = int(batch_size) / data.size
    private = training.dp_sgd(
        data,
        sampling_rate=rate,
        noise_multiplier=sigma,
        clip_norm=clip_norm,
        epochs=MAX_TRAINING_EPOCHS,
        learning_rate=LEARNING_RATE,
        rng=np.random.default_rng(RUN_SEED),
        grid_width=CURVE_GRID_WIDTH,
    )
    return private, _baseline(batch_size)


@functools.lru_cache(maxsize=64)
def _baseline(batch_size):
    data = _data()
    return training.non_private_sgd(
        data,
        sampling_rate=int(batch_size) / data.size,
        epochs=MAX_TRAINING_EPOCHS,
        learning_rate=LEARNING_RATE,
        rng=np.random.default_rng(RUN_SEED),
    )


@register
class TrainingRun(Explorer):
    """SGD-4: DP-SGD of a logistic regression on real data, against the non-private model.

    The breast cancer data of scikit-learn (569 tumours, 30 features; 427 to train, 142
    to test), a seeded split and seeded runs. Left: test accuracy after each epoch, DP-SGD
    (per-example clipping to norm C, Gaussian noise sigma C on the sum, Poisson batches)
    and the same loop without clipping or noise. Right: test accuracy against the epsilon
    spent so far (delta = 1e-5), epoch by epoch.

    Taught in: 11-account-for-a-training-run.ipynb
    """

    figure_id = "SGD-4"
    title = N_("A real training run: test accuracy against epsilon, beside the non-private model")
    controls = {
        "epochs": Control(
            N_("epochs"), 1, MAX_TRAINING_EPOCHS, integer=True, description=N_("epochs trained")
        ),
        "sigma": NOISE_MULTIPLIER.replace(maximum=20.0, values=TRAINING_SIGMAS),
        "batch_size": listed(
            _released(
                Control(
                    N_("batch size"),
                    8,
                    213,
                    integer=True,
                    description=N_("expected batch size (of 427)"),
                )
            ),
            TRAINING_BATCH_SIZES,
        ),
        "clip_norm": listed(
            _released(
                Control(
                    N_("clip norm $C$"),
                    0.05,
                    10.0,
                    log=True,
                    description=N_("per-example clipping"),
                )
            ),
            CLIP_NORMS,
        ),
    }
    defaults = {"epochs": 30, "sigma": 4.0, "batch_size": 32, "clip_norm": 1.0}
    figsize = (10.0, 3.7)
    accuracy_limits = (0.5, 1.0)
    #: The epsilon axis spans the run's epsilons over all its epochs, with this much room
    #: on either side (a factor on the log axis): the dots spread over the axis, and
    #: moving the epochs never moves it.
    epsilon_room = 1.6
    epsilon_limits = (0.05, 50.0)
    delta = 1e-5

    def _build(self):
        left, right = self.figure.subplots(1, 2)
        self.axes = (left, right)
        (self.baseline,) = left.plot([], [], color=NON_PRIVATE_COLOR, lw=1.6, ls="--")
        (self.private,) = left.plot([], [], color=PLD_COLOR, lw=2)
        (self.epoch_line,) = left.plot([], [], color=MARK_COLOR, ls=":", lw=1)
        (self.mark,) = left.plot([], [], "o", color=MARK_COLOR, ms=6)
        left.set_xlim(0, MAX_TRAINING_EPOCHS + 0.5)
        left.set_ylim(*self.accuracy_limits)
        left.set_xlabel(_("epoch"))
        left.set_ylabel(_("test accuracy"))
        left.set_title(_("SGD-4 · DP-SGD against the non-private model"))
        left.legend(
            handles=[
                Line2D([], [], color=PLD_COLOR, lw=2, label="DP-SGD"),
                Line2D([], [], color=NON_PRIVATE_COLOR, lw=1.6, ls="--", label=_("non-private")),
            ],
            loc="lower right",
            fontsize=9,
        )
        right.set_xscale("log")
        # Over the span of one run (often less than a decade): ticks at 1, 2 and 5 times
        # powers of ten, written plainly, and no crowded labels between them.
        right.xaxis.set_major_formatter(FuncFormatter(lambda value, _position: f"{value:g}"))
        right.xaxis.set_minor_locator(NullLocator())
        (self.baseline_level,) = right.plot([], [], color=NON_PRIVATE_COLOR, lw=1.6, ls="--")
        (self.tradeoff,) = right.plot([], [], color=PLD_COLOR, lw=1.6, marker="o", ms=3)
        (self.tradeoff_mark,) = right.plot([], [], "o", color=MARK_COLOR, ms=7)
        right.set_xlim(*self.epsilon_limits)
        right.set_ylim(*self.accuracy_limits)
        right.set_xlabel(_(r"$\varepsilon$ spent so far ($\delta = 10^{-5}$, PLD accountant)"))
        right.set_ylabel(_("test accuracy"))
        right.set_title(_(r"accuracy against $\varepsilon$, epoch by epoch"))
        self.moving(
            self.baseline,
            self.private,
            self.epoch_line,
            self.mark,
            self.baseline_level,
            self.tradeoff,
            self.tradeoff_mark,
        )

    def _apply(self, epochs, sigma, batch_size, clip_norm):
        private, baseline = training_runs(sigma, batch_size, clip_norm)
        shown = slice(0, int(epochs))
        x = private.epochs[shown]
        self.private.set_data(x, private.test_accuracy[shown])
        self.baseline.set_data(baseline.epochs[shown], baseline.test_accuracy[shown])
        accuracy = float(private.test_accuracy[epochs - 1])
        # From the dot up: the legend sits in the lower right, below every accuracy drawn.
        self.epoch_line.set_data([epochs, epochs], [accuracy, self.accuracy_limits[1]])
        self.mark.set_data([epochs], [accuracy])
        run_epsilons = np.asarray(private.epsilon, dtype=float)
        limits = (
            float(run_epsilons.min()) / self.epsilon_room,
            float(run_epsilons.max()) * self.epsilon_room,
        )
        if limits != tuple(self.axes[1].get_xlim()):
            self.axes[1].xaxis.set_major_locator(FixedLocator(_ticks_within(*limits)))
            self.axes[1].set_xlim(*limits)
            self.figure.invalidate_axes(self.axes[1], "x")
        self.epsilon_limits = limits
        low, high = limits
        epsilons = np.clip(private.epsilon[shown], low, high)
        self.tradeoff.set_data(epsilons, private.test_accuracy[shown])
        self.tradeoff_mark.set_data([epsilons[-1]], [accuracy])
        level = float(baseline.test_accuracy[epochs - 1])
        self.baseline_level.set_data([low, high], [level, level])
        steps = int(private.steps[epochs - 1])
        self.state = dict(
            accuracy=accuracy,
            baseline=level,
            pld=float(private.epsilon[epochs - 1]),
            rdp=rdp_epsilon(private.sampling_rate, sigma, steps, self.delta),
            steps=steps,
            batch=float(np.mean(private.batch_sizes)),
        )

    def description(self):
        """SGD-4 in words for a reader who cannot see it, with the current numbers."""
        say, p = self.reader(), self.params
        return _(
            "Left: test accuracy after each of {epochs} epochs of DP-SGD "
            "(σ = {sigma}, batch size {batch_size}, clip norm "
            "{clip_norm}) and of the same training without privacy; right: "
            "accuracy against the ε spent. The private model reaches {private_accuracy} "
            "against {non_private_accuracy}, at ε = {pld_epsilon} by the PLD "
            "({rdp_epsilon} by RDP)."
        ).format(
            epochs=spoken(p["epochs"]),
            sigma=spoken(p["sigma"]),
            batch_size=spoken(p["batch_size"]),
            clip_norm=spoken(p["clip_norm"]),
            private_accuracy=say("DP-SGD"),
            non_private_accuracy=say("non-private"),
            pld_epsilon=say("by PLD"),
            rdp_epsilon=say("by RDP"),
        )

    def numbers(self):
        """The readout beside SGD-4: the numbers it shows at the current setting."""
        s = self.state
        return {
            N_("test accuracy, DP-SGD"): s["accuracy"],
            N_("test accuracy, non-private"): s["baseline"],
            N_(r"$\varepsilon$ by PLD ($h = 10^{-3}$)"): s["pld"],
            N_(r"$\varepsilon$ by RDP"): s["rdp"],
            N_("steps $T$"): f"{s['steps']:,}",
            N_("mean batch size drawn"): s["batch"],
        }
