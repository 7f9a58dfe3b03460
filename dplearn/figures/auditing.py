"""Figures MIA-1 to MIA-5: what epsilon lets a membership attacker do, and auditing a run.

MIA-1 draws the attacker's plane (false-positive rate, true-positive rate) with the region
(epsilon, delta)-DP allows and the curves of two mechanisms; MIA-2 the tracing attack on
published means; MIA-3 both attackers of lesson 11's training run beside the run's own
curve and the range 5,000 runs of its exact test fall in; MIA-4 the lower bound an audit
proves against its number of trials; MIA-5 the one-run audit. Every number comes from
``dplearn.auditing``; this module only draws and caches. MIA-1 to MIA-3 draw the ROC on
log-log axes, the convention of Carlini, Chien, Nasr, Song, Terzis & Tramèr, "Membership
inference attacks from first principles", IEEE S&P 2022: the small false-positive rates
where membership matters are not squeezed flat.

Speed: the attacks are simulated once per setting and cached (the strongest attacker on
the canary's coordinate alone; the black-box attacker's 12,000 trained models, too slow
to train while a page loads, are read from the scores stored with the package, see
``dplearn.auditing``); sliders that need a new simulation or a new
accountant run act when released.

Taught in: 14-attack-the-model.ipynb
"""

from __future__ import annotations

import functools
import math

import numpy as np
from matplotlib.lines import Line2D
from matplotlib.patches import Patch, Polygon
from matplotlib.ticker import LinearLocator

from dplearn import accounting, auditing, calibration, composition, training
from dplearn.figures.controls import DELTA, EPSILON, Control, listed
from dplearn.figures.explorers import Explorer, register
from dplearn.figures.legends import legend_beside
from dplearn.figures.style import BAD_COLOR, BLUE, GUIDE_GREY, ORANGE, PURPLE
from dplearn.language import N_
from dplearn.language import gettext as _

__all__ = [
    "MNIST_RUN",
    "LESSON11_STEPS",
    "AttackerPlane",
    "TracingAttack",
    "CanaryAttacks",
    "BoundAgainstTrials",
    "OneRunBound",
]

#: Lesson 11's MNIST-sized run: q = 256/60000, sigma = 1.1, 60 epochs = 14,063 steps.
MNIST_RUN = (256 / 60000, 1.1, 14063)
#: Steps of lesson 11's breast cancer run (30 epochs at q = 32/427).
LESSON11_STEPS = int(
    training.steps_for_epochs(auditing.LESSON11_RUN.epochs, auditing.LESSON11_RUN.sampling_rate)
)
TARGET_DELTA = 1e-5
#: Seeds of the simulated attacks (audit trials, and the calibration runs that pick the
#: threshold), and how many trials of each kind.
STRONGEST_SEED, STRONGEST_CALIBRATION_SEED = 1401, 1402
STRONGEST_TRIALS, STRONGEST_CALIBRATION_TRIALS = 5000, 5000
# The black-box audit's settings are those whose scores come with the package.
BLACK_BOX_TRIALS, BLACK_BOX_SEED = auditing.BLACK_BOX_SETTING
BLACK_BOX_CALIBRATION_TRIALS, BLACK_BOX_CALIBRATION_SEED = auditing.BLACK_BOX_CALIBRATION_SETTING
TRACING_SEED, TRACING_PEOPLE, TRACING_DATA_SETS = 1405, 100, 20
ONE_RUN_SEED, ONE_RUN_CANARIES, ONE_RUN_GUESSES = 1406, 1000, 100

REGION_COLOR = "0.2"
GAUSSIAN_COLOR = BLUE
RUN_COLOR = ORANGE
STRONG_COLOR = BAD_COLOR
BLACK_BOX_COLOR = PURPLE
CHANCE_COLOR = GUIDE_GREY
MARK_COLOR = "black"

FPR_GRID = np.geomspace(1e-4, 1.0, 400)
#: The lowest true-positive rate the log-log ROC axes show (and the region's floor below it).
TPR_FLOOR = 1e-3


def _released(control):
    return control.replace(on_release=True)


FALSE_POSITIVE_RATE = Control(
    N_("FPR α"), 0.001, 0.5, log=True, description=N_("the attack's false-positive rate alpha")
)


#: The lesson's legends: beside the axes, a little smaller than the others.
_legend_beside = functools.partial(legend_beside, fontsize=8.5)


def _roc_axes(ax, title):
    """Log-log ROC axes (Carlini et al. 2022), from 0.1 % to 1 on both."""
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(1e-3, 1.0)
    ax.set_ylim(TPR_FLOOR, 1.0)
    ax.set_xlabel(_("false-positive rate α (log scale)"))
    ax.set_ylabel(_("true-positive rate (log scale)"))
    ax.set_title(title)
    ax.plot(FPR_GRID, FPR_GRID, color=CHANCE_COLOR, ls=":", lw=1)


@functools.lru_cache(maxsize=8)
def _run_curve(rate, sigma, steps):
    values = np.asarray(auditing.dp_sgd_max_true_positive_rate(rate, sigma, steps, FPR_GRID))
    values.setflags(write=False)
    return values


@functools.lru_cache(maxsize=64)
def _run_epsilon(rate, sigma, steps, delta):
    return float(accounting.dp_sgd_epsilon(rate, sigma, steps, delta))


def _gaussian_curve(epsilon, delta, alphas):
    """The Gaussian mechanism calibrated to (epsilon, delta): 1 - G_mu(alpha), mu = 1/sigma."""
    sigma = float(calibration.gaussian_sigma_analytic(epsilon, delta))
    return 1.0 - np.asarray(composition.gaussian_tradeoff(1.0 / sigma, alphas))


def _percent(value):
    return f"{100 * value:.3g} %"


# ---------------------------------------------------------------------------
# MIA-1: the attacker's plane
# ---------------------------------------------------------------------------


@register
class AttackerPlane(Explorer):
    """MIA-1: the (false-positive rate, true-positive rate) plane of a membership attacker.

    The region (epsilon, delta)-DP allows lies under min(1, e^epsilon alpha + delta,
    1 - e^-epsilon (1 - delta - alpha)); inside it, the Gaussian mechanism calibrated to the
    same (epsilon, delta). Lesson 11's DP-SGD run (q = 256/60000, sigma = 1.1, 14,063
    steps: epsilon 2.38 at delta 1e-5), from its PLD, does not move with the sliders: it
    lies inside the region only where the run is (epsilon, delta)-DP, and leaves it
    (above the cap) at a smaller epsilon. At alpha = 1 %, delta = 1e-5 the region allows
    0.0272, 0.1081, 0.546 and 0.9997 at epsilon = 1, 2.38, 4 and 8. Log-log axes.

    Taught in: 14-attack-the-model.ipynb
    """

    figure_id = "MIA-1"
    title = N_("What (epsilon, delta) lets a membership attacker do")
    controls = {
        "epsilon": EPSILON.replace(minimum=0.1, maximum=10.0),
        # By powers of ten, reading "1e-5" (a free slider's "1.000e-10" overflows its box).
        "delta": listed(DELTA, tuple(10.0**exponent for exponent in range(-10, -1))),
        "false_positive_rate": FALSE_POSITIVE_RATE,
    }
    defaults = {"epsilon": 2.38, "delta": TARGET_DELTA, "false_positive_rate": 0.01}
    figsize = (9.5, 4.0)

    def _build(self):
        ax = self.axes = self.figure.subplots()
        _roc_axes(ax, _("MIA-1 · the region (ε, δ)-DP allows, a Gaussian and a training run"))
        self.region = Polygon(np.zeros((3, 2)), closed=True, color=REGION_COLOR, alpha=0.12)
        ax.add_patch(self.region)
        (self.boundary,) = ax.plot([], [], color=REGION_COLOR, lw=2.2)
        (self.gaussian,) = ax.plot([], [], color=GAUSSIAN_COLOR, lw=1.8, ls="--")
        (self.run,) = ax.plot(FPR_GRID, _run_curve(*MNIST_RUN), color=RUN_COLOR, lw=1.8, ls="-.")
        (self.alpha_line,) = ax.plot([], [], color=MARK_COLOR, ls=":", lw=1)
        (self.region_mark,) = ax.plot([], [], "o", color=REGION_COLOR, ms=7, clip_on=False)
        (self.gaussian_mark,) = ax.plot([], [], "s", color=GAUSSIAN_COLOR, ms=6, clip_on=False)
        (self.run_mark,) = ax.plot([], [], "^", color=RUN_COLOR, ms=7, clip_on=False)
        self.moving(
            self.region,
            self.boundary,
            self.gaussian,
            self.alpha_line,
            self.region_mark,
            self.gaussian_mark,
            self.run_mark,
        )
        _legend_beside(
            ax,
            [
                Line2D([], [], color=REGION_COLOR, lw=2.2, marker="o", label=_("(ε, δ)-DP's cap")),
                Line2D(
                    [],
                    [],
                    color=GAUSSIAN_COLOR,
                    lw=1.8,
                    ls="--",
                    marker="s",
                    label=_("Gaussian mechanism\nat the same (ε, δ)"),
                ),
                Line2D(
                    [],
                    [],
                    color=RUN_COLOR,
                    lw=1.8,
                    ls="-.",
                    marker="^",
                    label=_("lesson 11's DP-SGD run\n(ε = 2.38 at δ = 1e-5)"),
                ),
                Line2D([], [], color=CHANCE_COLOR, ls=":", label=_("guessing")),
                Line2D([], [], color=MARK_COLOR, ls=":", label=_("the slider's α")),
            ],
        )

    def _apply(self, epsilon, delta, false_positive_rate):
        alpha = false_positive_rate
        caps = np.asarray(auditing.max_true_positive_rate(epsilon, delta, FPR_GRID))
        self.boundary.set_data(FPR_GRID, caps)
        floor = TPR_FLOOR / 10  # below the axes: the region reaches their bottom
        self.region.set_xy(
            np.vstack(
                [
                    np.column_stack([FPR_GRID, np.maximum(caps, floor)]),
                    [[1.0, floor], [FPR_GRID[0], floor]],
                ]
            )
        )
        self.gaussian.set_data(FPR_GRID, _gaussian_curve(epsilon, delta, FPR_GRID))
        region = auditing.max_true_positive_rate(epsilon, delta, alpha)
        gaussian = float(_gaussian_curve(epsilon, delta, alpha))
        run = float(auditing.dp_sgd_max_true_positive_rate(*MNIST_RUN, alpha))
        self.alpha_line.set_data([alpha, alpha], [0.0, 1.0])
        self.region_mark.set_data([alpha], [region])
        self.gaussian_mark.set_data([alpha], [gaussian])
        self.run_mark.set_data([alpha], [run])
        self.state = dict(
            epsilon=epsilon, delta=delta, alpha=alpha, region=region, gaussian=gaussian, run=run
        )
        self.state["run_outside"] = run > region * (1 + 1e-9)

    def numbers(self):
        """The readout beside MIA-1: the numbers it shows at the current setting."""
        s = self.state
        return {
            N_("highest TPR, (ε, δ)-DP"): s["region"],
            N_("Gaussian at (ε, δ)"): s["gaussian"],
            N_("lesson 11's run"): s["run"],
            N_("the run at this (ε, δ)"): (
                _("above the cap: not (ε, δ)-DP") if s["run_outside"] else _("within the cap")
            ),
        }

    def description(self):
        """MIA-1 in words for a reader who cannot see it, with the current numbers."""
        s = self.state
        verdict = (
            _("above the cap: the run is not DP at this (ε, δ).")
            if s["run_outside"]
            else _("within the cap.")
        )
        return _(
            "The attacker's plane: at a false-positive rate of {false_positive_rate}, "
            "({epsilon:.3g}, {delta:.2g})-DP lets a membership test reach a "
            "true-positive rate of at most {region:.4g} (solid line and circle); the "
            "Gaussian mechanism at the same (ε, δ) allows {gaussian:.4g} (dashed, "
            "square) and lesson 11's training run {run:.4g} (dash-dotted, triangle), "
            "{verdict} Both axes are on a log scale."
        ).format(
            false_positive_rate=_percent(s["alpha"]),
            epsilon=s["epsilon"],
            delta=s["delta"],
            region=s["region"],
            gaussian=s["gaussian"],
            run=s["run"],
            verdict=verdict,
        )


# ---------------------------------------------------------------------------
# MIA-2: tracing published means
# ---------------------------------------------------------------------------


@functools.lru_cache(maxsize=64)
def _tracing(attributes, epsilon):
    return auditing.tracing_scores(
        TRACING_PEOPLE,
        attributes,
        epsilon,
        TARGET_DELTA,
        TRACING_DATA_SETS,
        rng=np.random.default_rng(TRACING_SEED),
    )


@register
class TracingAttack(Explorer):
    """MIA-2: membership from published means (tracing), exact and with Gaussian noise.

    n = 100 people, d binary attributes; the attacker scores a target by
    <target - reference, published means - reference> (``dplearn.auditing.tracing_scores``),
    20 seeded data sets. The ROC with exact means and with noise calibrated to
    (epsilon, 1e-5), beside the cap (epsilon, 1e-5)-DP puts on any attack.

    Taught in: 14-attack-the-model.ipynb
    """

    figure_id = "MIA-2"
    title = N_("Membership from published means: the tracing attack")
    controls = {
        "epsilon": _released(EPSILON.replace(minimum=0.1, maximum=20.0)),
        "attributes": _released(
            Control(
                N_("attributes d"), 100, 3000, integer=True, description=N_("binary attributes")
            )
        ),
    }
    defaults = {"epsilon": 1.0, "attributes": 1000}
    figsize = (9.5, 4.0)

    def _build(self):
        ax = self.axes = self.figure.subplots()
        _roc_axes(ax, _("MIA-2 · tracing 100 people from the means of their attributes"))
        (self.cap,) = ax.plot([], [], color=REGION_COLOR, lw=2.0)
        (self.exact,) = ax.plot([], [], color=STRONG_COLOR, lw=1.8, drawstyle="steps-post")
        (self.noisy,) = ax.plot(
            [], [], color=GAUSSIAN_COLOR, lw=1.8, ls="--", drawstyle="steps-post"
        )
        (self.alpha_line,) = ax.plot([0.05, 0.05], [0, 1], color=MARK_COLOR, ls=":", lw=1)
        (self.exact_mark,) = ax.plot([], [], "o", color=STRONG_COLOR, ms=7, clip_on=False)
        (self.noisy_mark,) = ax.plot([], [], "s", color=GAUSSIAN_COLOR, ms=6, clip_on=False)
        self.moving(
            self.cap, self.exact, self.noisy, self.alpha_line, self.exact_mark, self.noisy_mark
        )
        _legend_beside(
            ax,
            [
                Line2D([], [], color=STRONG_COLOR, lw=1.8, marker="o", label=_("exact means")),
                Line2D(
                    [],
                    [],
                    color=GAUSSIAN_COLOR,
                    lw=1.8,
                    ls="--",
                    marker="s",
                    label=_("means + Gaussian noise\nat (ε, 1e-5)"),
                ),
                Line2D([], [], color=REGION_COLOR, lw=2.0, label=_("(ε, 1e-5)-DP's cap")),
                Line2D([], [], color=CHANCE_COLOR, ls=":", label=_("guessing")),
                Line2D([], [], color=MARK_COLOR, ls=":", label="α = 5 %"),
            ],
        )

    def _apply(self, epsilon, attributes):
        exact = _tracing(int(attributes), math.inf)
        noisy = _tracing(int(attributes), float(epsilon))
        self.exact.set_data(*auditing.roc(exact))
        self.noisy.set_data(*auditing.roc(noisy))
        self.cap.set_data(
            FPR_GRID, auditing.max_true_positive_rate(epsilon, TARGET_DELTA, FPR_GRID)
        )
        exact_tpr = auditing.true_positive_rate_at(exact, 0.05)
        noisy_tpr = auditing.true_positive_rate_at(noisy, 0.05)
        self.exact_mark.set_data([0.05], [exact_tpr])
        self.noisy_mark.set_data([0.05], [noisy_tpr])
        cap = auditing.max_true_positive_rate(epsilon, TARGET_DELTA, 0.05)
        self.state = dict(
            epsilon=epsilon, attributes=int(attributes), exact=exact_tpr, noisy=noisy_tpr, cap=cap
        )

    def numbers(self):
        """The readout beside MIA-2: the numbers it shows at the current setting."""
        s = self.state
        return {
            N_("TPR at 5 %, exact means"): s["exact"],
            N_("TPR at 5 %, noisy means"): s["noisy"],
            N_("cap of (ε, 1e-5)-DP"): s["cap"],
        }

    def description(self):
        """MIA-2 in words for a reader who cannot see it, with the current numbers."""
        s = self.state
        return _(
            "ROC curves of the tracing attack on 100 people with {attributes} attributes: "
            "at a false-positive rate of 5 % it finds {exact_rate} of the members "
            "from the exact means (solid, circle) and {noisy_rate} from means with "
            "noise at ε = {epsilon:.3g} (dashed, square), under the cap "
            "{cap_rate} that (ε, 1e-5)-DP allows. Both axes are on a log scale."
        ).format(
            attributes=s["attributes"],
            exact_rate=_percent(s["exact"]),
            noisy_rate=_percent(s["noisy"]),
            epsilon=s["epsilon"],
            cap_rate=_percent(s["cap"]),
        )


# ---------------------------------------------------------------------------
# MIA-3: both attackers of lesson 11's run beside its curve
# ---------------------------------------------------------------------------


@functools.lru_cache(maxsize=2)
def strongest_scores(calibration=False):
    """The strongest attacker's scores on lesson 11's breast cancer run (cached)."""
    run = auditing.LESSON11_RUN
    seed, trials = (
        (STRONGEST_CALIBRATION_SEED, STRONGEST_CALIBRATION_TRIALS)
        if calibration
        else (STRONGEST_SEED, STRONGEST_TRIALS)
    )
    return auditing.gradient_canary_scores(
        run.sampling_rate,
        run.noise_multiplier,
        LESSON11_STEPS,
        trials,
        rng=np.random.default_rng(seed),
    )


def black_box_scores(calibration=False):
    """The black-box attacker's scores on lesson 11's run (trained once, cached)."""
    if calibration:
        return auditing.black_box_canary_scores(
            BLACK_BOX_CALIBRATION_TRIALS, seed=BLACK_BOX_CALIBRATION_SEED
        )
    return auditing.black_box_canary_scores(BLACK_BOX_TRIALS, seed=BLACK_BOX_SEED)


def _lesson11_curve():
    run = auditing.LESSON11_RUN
    return _run_curve(run.sampling_rate, run.noise_multiplier, LESSON11_STEPS)


#: False-positive rates at which MIA-3's band is computed, and the fine grid of the run's
#: curve it interpolates (log-log) between.
BAND_GRID = np.geomspace(1e-3, 1.0, 90)
_FINE_GRID = np.geomspace(1e-7, 1.0, 1400)
#: The band's confidence: 99 times in 100 at each rate.
BAND_CONFIDENCE = 0.99


@functools.lru_cache(maxsize=1)
def _lesson11_fine_curve():
    run = auditing.LESSON11_RUN
    return np.asarray(
        auditing.dp_sgd_max_true_positive_rate(
            run.sampling_rate, run.noise_multiplier, LESSON11_STEPS, _FINE_GRID
        )
    )


def lesson11_curve_at(false_positive_rates):
    """The run's curve at any false-positive rates, interpolated log-log on a fine grid."""
    rates = np.clip(np.asarray(false_positive_rates, dtype=float), _FINE_GRID[0], 1.0)
    return np.exp(np.interp(np.log(rates), np.log(_FINE_GRID), np.log(_lesson11_fine_curve())))


@functools.lru_cache(maxsize=512)
def strongest_range(false_positive_rate, trials=STRONGEST_TRIALS):
    """Where the exact test's empirical TPR at alpha lands from ``trials`` runs of each kind.

    The central 99 % range (``auditing.sampling_interval`` of the run's curve).
    """
    return auditing.sampling_interval(
        lesson11_curve_at, false_positive_rate, trials, BAND_CONFIDENCE
    )


@functools.lru_cache(maxsize=1)
def _strongest_band():
    low, high = np.array([strongest_range(float(alpha)) for alpha in BAND_GRID]).T
    return np.maximum(low, TPR_FLOOR / 10), high


def lesson11_epsilon(delta=TARGET_DELTA):
    """The accountant's epsilon at delta of lesson 11's breast cancer run (PLD)."""
    run = auditing.LESSON11_RUN
    return _run_epsilon(run.sampling_rate, run.noise_multiplier, LESSON11_STEPS, delta)


@register
class CanaryAttacks(Explorer):
    """MIA-3: the strongest attacker and a black-box attacker of lesson 11's run.

    The run: DP-SGD of lesson 11's logistic regression on the breast cancer data (q =
    32/427, sigma = 4, C = 1, 401 steps). The strongest attacker sees every noisy step
    and a gradient canary (5,000 seeded runs with it, 5,000 without); its score is the
    likelihood ratio of exactly the pair the run's curve is drawn for (T steps of
    (1 - q) N(0, sigma^2) + q N(1, sigma^2) against N(0, sigma^2): the remove direction's
    PLD), so its ROC strays from the curve by sampling alone, within the shaded band where
    5,000 runs of each kind put it 99 times in 100 (``auditing.sampling_interval``). The
    black-box one sees only the final model and a canary example's loss (5,000 trained
    models with it, 5,000 without). Their empirical ROC beside the run's trade-off curve and
    the region of its (epsilon, 1e-5), on log-log axes.

    Taught in: 14-attack-the-model.ipynb
    """

    figure_id = "MIA-3"
    title = N_("Auditing a training run: the strongest attacker and a black-box one")
    controls = {"false_positive_rate": FALSE_POSITIVE_RATE}
    defaults = {"false_positive_rate": 0.01}
    figsize = (9.5, 4.0)

    def _build(self):
        ax = self.axes = self.figure.subplots()
        _roc_axes(ax, _("MIA-3 · two attackers of lesson 11's training run"))
        epsilon = lesson11_epsilon()
        ax.plot(
            FPR_GRID,
            auditing.max_true_positive_rate(epsilon, TARGET_DELTA, FPR_GRID),
            color=REGION_COLOR,
            lw=1.4,
            ls="--",
        )
        low, high = _strongest_band()
        ax.fill_between(BAND_GRID, low, high, color=STRONG_COLOR, alpha=0.15, lw=0)
        ax.plot(FPR_GRID, _lesson11_curve(), color=RUN_COLOR, lw=2.2)
        strongest, black_box = strongest_scores(), black_box_scores()
        ax.plot(*auditing.roc(strongest), color=STRONG_COLOR, lw=1.4, drawstyle="steps-post")
        ax.plot(
            *auditing.roc(black_box),
            color=BLACK_BOX_COLOR,
            lw=1.4,
            ls=":",
            drawstyle="steps-post",
        )
        (self.alpha_line,) = ax.plot([], [], color=MARK_COLOR, ls=":", lw=1)
        (self.curve_mark,) = ax.plot([], [], "^", color=RUN_COLOR, ms=8, clip_on=False)
        (self.strong_mark,) = ax.plot([], [], "o", color=STRONG_COLOR, ms=6, clip_on=False)
        (self.black_box_mark,) = ax.plot([], [], "s", color=BLACK_BOX_COLOR, ms=6, clip_on=False)
        self.moving(self.alpha_line, self.curve_mark, self.strong_mark, self.black_box_mark)
        _legend_beside(
            ax,
            [
                Line2D([], [], color=RUN_COLOR, lw=2.2, marker="^", label=_("the run's curve")),
                Line2D(
                    [],
                    [],
                    color=STRONG_COLOR,
                    lw=1.4,
                    marker="o",
                    label=_("strongest attacker\n(every step, 5,000 runs)"),
                ),
                Patch(
                    color=STRONG_COLOR,
                    alpha=0.15,
                    label=_("where 5,000 runs of\nthe exact test fall (99 %)"),
                ),
                Line2D(
                    [],
                    [],
                    color=BLACK_BOX_COLOR,
                    lw=1.4,
                    ls=":",
                    marker="s",
                    label=_("black-box attacker\n(final model, 5,000 runs)"),
                ),
                Line2D(
                    [],
                    [],
                    color=REGION_COLOR,
                    lw=1.4,
                    ls="--",
                    label=_("cap of (ε = {epsilon:.2f}, 1e-5)").format(epsilon=epsilon),
                ),
                Line2D([], [], color=CHANCE_COLOR, ls=":", label=_("guessing")),
            ],
        )

    def _apply(self, false_positive_rate):
        alpha = false_positive_rate
        run = auditing.LESSON11_RUN
        curve = float(
            auditing.dp_sgd_max_true_positive_rate(
                run.sampling_rate, run.noise_multiplier, LESSON11_STEPS, alpha
            )
        )
        low, high = strongest_range(float(alpha))
        strong = auditing.true_positive_rate_at(strongest_scores(), alpha)
        black_box = auditing.true_positive_rate_at(black_box_scores(), alpha)
        self.alpha_line.set_data([alpha, alpha], [0.0, 1.0])
        self.curve_mark.set_data([alpha], [curve])
        self.strong_mark.set_data([alpha], [strong])
        self.black_box_mark.set_data([alpha], [black_box])
        self.state = dict(
            alpha=alpha, curve=curve, strong=strong, black_box=black_box, low=low, high=high
        )

    def numbers(self):
        """The readout beside MIA-3: the numbers it shows at the current setting."""
        s = self.state
        return {
            N_("the run's curve"): s["curve"],
            N_("strongest attacker"): s["strong"],
            N_("5,000 runs of the exact test, 99 % range"): _("{low:.4f} to {high:.4f}").format(
                low=s["low"], high=s["high"]
            ),
            N_("black-box attacker"): s["black_box"],
        }

    def description(self):
        """MIA-3 in words for a reader who cannot see it, with the current numbers."""
        s = self.state
        band = (
            _(
                "inside the shaded range {low:.4f} to {high:.4f} where 5,000 runs of the "
                "exact test fall 99 times in 100"
            )
            if s["low"] <= s["strong"] <= s["high"]
            else _(
                "outside the shaded range {low:.4f} to {high:.4f} where 5,000 runs of the "
                "exact test fall 99 times in 100"
            )
        ).format(low=s["low"], high=s["high"])
        return _(
            "ROC curves of two attackers of lesson 11's run: at a false-positive rate of "
            "{false_positive_rate} the run's trade-off curve allows a true-positive rate of "
            "{curve:.4f} (solid, triangle); the attacker that sees every step reaches "
            "{strong:.4f} (red, circle), {band}; the one "
            "that sees only the final model {black_box:.4f} (dotted, square). Both axes "
            "are on a log scale."
        ).format(
            false_positive_rate=_percent(s["alpha"]),
            curve=s["curve"],
            strong=s["strong"],
            band=band,
            black_box=s["black_box"],
        )


# ---------------------------------------------------------------------------
# MIA-4: the lower bound against the number of trials
# ---------------------------------------------------------------------------

TRIAL_GRID = np.unique(np.round(np.geomspace(20, 10000, 25)).astype(int) // 2 * 2)


@functools.lru_cache(maxsize=64)
def audit_bounds(confidence, black_box=False):
    """The lower bounds of an attacker's audit of lesson 11's run against the number of trials.

    Returns:
      (trials, lower bounds) at each N of TRIAL_GRID that its trials allow (cached per
      confidence).
    """
    scores = black_box_scores() if black_box else strongest_scores()
    reference = black_box_scores(True) if black_box else strongest_scores(True)
    largest = 2 * min(scores.members.size, scores.non_members.size)
    trials = TRIAL_GRID[TRIAL_GRID <= largest]
    bounds = np.array(
        [
            auditing.audit(scores, reference, int(n), TARGET_DELTA, confidence).epsilon
            for n in trials
        ]
    )
    bounds.setflags(write=False)
    return trials, bounds


@register
class BoundAgainstTrials(Explorer):
    """MIA-4: the lower bound on epsilon an audit proves, against its number of trials N.

    Clopper-Pearson (Jagielski, Ullman & Oprea 2020) at delta = 1e-5, the threshold picked
    on separate calibration runs; both attackers up to N = 10,000 (the black-box one
    with 10,000 trained models); the accountant's epsilon above both.

    Taught in: 14-attack-the-model.ipynb
    """

    figure_id = "MIA-4"
    title = N_("From trials to epsilon: the audit's lower bound against N")
    controls = {
        "trials": Control(N_("trials N"), 20, 10000, integer=True, description=N_("audit trials")),
        "confidence": _released(
            Control(
                N_("confidence"), 0.8, 0.999, step=0.001, description=N_("the bound's confidence")
            )
        ),
    }
    defaults = {"trials": 1000, "confidence": 0.95}
    figsize = (9.5, 4.0)

    def _build(self):
        ax = self.axes = self.figure.subplots()
        ax.set_xscale("log")
        ax.set_xlim(15, 13000)
        self.epsilon = lesson11_epsilon()
        ax.set_ylim(0.0, 1.15 * self.epsilon)
        ax.set_xlabel(_("trials N (half with the canary, half without; log scale)"))
        ax.set_ylabel(_("ε proven (lower bound)"))
        ax.set_title(_("MIA-4 · what N trials prove about lesson 11's run, at δ = 1e-5"))
        ax.plot([15, 13000], [self.epsilon] * 2, color=RUN_COLOR, lw=2.0, ls="--")
        # A bound of 0 sits on the bottom spine: its markers are drawn whole over it (every
        # point lies within the axes' limits, so nothing unclipped leaves them).
        whole = dict(clip_on=False, in_layout=False)
        (self.strong,) = ax.plot([], [], color=STRONG_COLOR, lw=1.6, marker="o", ms=4, **whole)
        (self.black_box,) = ax.plot(
            [], [], color=BLACK_BOX_COLOR, lw=1.6, ls=":", marker="s", ms=4, **whole
        )
        (self.trials_line,) = ax.plot([], [], color=MARK_COLOR, ls=":", lw=1)
        (self.strong_mark,) = ax.plot([], [], "o", color=STRONG_COLOR, ms=8, **whole)
        (self.black_box_mark,) = ax.plot([], [], "s", color=BLACK_BOX_COLOR, ms=8, **whole)
        self.moving(
            self.strong, self.black_box, self.trials_line, self.strong_mark, self.black_box_mark
        )
        _legend_beside(
            ax,
            [
                Line2D(
                    [],
                    [],
                    color=RUN_COLOR,
                    lw=2.0,
                    ls="--",
                    label=_("the accountant's ε = {epsilon:.2f}").format(epsilon=self.epsilon),
                ),
                Line2D(
                    [], [], color=STRONG_COLOR, lw=1.6, marker="o", label=_("strongest attacker")
                ),
                Line2D(
                    [],
                    [],
                    color=BLACK_BOX_COLOR,
                    lw=1.6,
                    ls=":",
                    marker="s",
                    label=_("black-box attacker\n(a model trained per trial)"),
                ),
                Line2D([], [], color=MARK_COLOR, ls=":", label=_("the slider's N")),
            ],
        )

    def _apply(self, trials, confidence):
        trials = int(trials)
        strong_trials, strong = audit_bounds(float(confidence))
        black_trials, black = audit_bounds(float(confidence), black_box=True)
        self.strong.set_data(strong_trials, strong)
        self.black_box.set_data(black_trials, black)
        used = trials - trials % 2
        strong_here = _audit(False, used, float(confidence))
        black_here = _audit(True, used, float(confidence))
        self.trials_line.set_data([trials, trials], [0.0, 1.15 * self.epsilon])
        self.strong_mark.set_data([trials], [strong_here])
        self.black_box_mark.set_data([trials], [black_here])
        self.state = dict(
            trials=trials,
            confidence=confidence,
            strong=strong_here,
            black_box=black_here,
        )

    def numbers(self):
        """The readout beside MIA-4: the numbers it shows at the current setting."""
        s = self.state
        return {
            N_("ε proven, strongest"): s["strong"],
            N_("ε proven, black box"): s["black_box"],
            N_("accountant's ε"): self.epsilon,
        }

    def description(self):
        """MIA-4 in words for a reader who cannot see it, with the current numbers."""
        s = self.state
        return _(
            "The lower bound on ε that an audit proves with {confidence:.3g} confidence, "
            "against the number of trials: with N = {trials:,} the strongest attacker "
            "proves ε ≥ {strong:.3f} (red circles), the black-box attacker, with a "
            "model trained per trial, {black_box:.3f} (dotted squares); the "
            "accountant's ε is {accountant_epsilon:.3f} (dashed)."
        ).format(
            confidence=s["confidence"],
            trials=s["trials"],
            strong=s["strong"],
            black_box=s["black_box"],
            accountant_epsilon=self.epsilon,
        )


@functools.lru_cache(maxsize=512)
def _audit(black_box, trials, confidence):
    scores = black_box_scores() if black_box else strongest_scores()
    reference = black_box_scores(True) if black_box else strongest_scores(True)
    return auditing.audit(scores, reference, max(trials, 2), TARGET_DELTA, confidence).epsilon


# ---------------------------------------------------------------------------
# MIA-5: one training run
# ---------------------------------------------------------------------------

#: Shares of right guesses at which MIA-5's curve is computed: finer towards 1, where the
#: bound climbs steeply (a step of 1e-3 in 1 - v / r there).
SHARE_GRID = np.unique(
    np.concatenate([np.linspace(0.5, 0.9, 41), 1.0 - np.geomspace(0.1, 1e-3, 40), [1.0]])
)


#: The tops MIA-5's y-axis chooses among (the first above the curve's), each a multiple of
#: 4 quarter-steps that read well.
_ONE_RUN_TOPS = (1.0, 2.0, 3.0, 4.0, 6.0, 8.0)


@functools.lru_cache(maxsize=256)
def one_run_curve(guesses, confidence):
    """(share of right guesses, lower bound) at delta = 0 for r guesses (cached)."""
    correct = np.unique(np.round(SHARE_GRID * guesses).astype(int))
    bounds = np.array(
        [auditing.one_run_epsilon_lower_bound(guesses, int(v), 0.0, confidence) for v in correct]
    )
    shares = correct / guesses
    shares.setflags(write=False)
    bounds.setflags(write=False)
    return shares, bounds


@functools.lru_cache(maxsize=256)
def seeded_one_run(guesses=ONE_RUN_GUESSES, confidence=0.95):
    """The one-run audit of one seeded training of lesson 11's model (1,000 canaries).

    The model is trained once (cached); each r and confidence only re-reads its scores.
    """
    return auditing.one_run_audit(
        ONE_RUN_CANARIES, guesses, seed=ONE_RUN_SEED, confidence=confidence
    )


@register
class OneRunBound(Explorer):
    """MIA-5: auditing with one training run (Steinke, Nasr & Jagielski 2023).

    m canaries, each in with probability 1/2; the auditor guesses about r of them and v
    guesses are right; the lower bound on epsilon (delta = 0) against the share v / r
    right. At r = 100, 80 right, 95 %: epsilon >= 0.958. The star: one seeded run of
    lesson 11's model with 1,000 canaries, the same r guesses (the canaries join the 427
    training examples, each drawn into a batch with the run's q = 32/427, for the run's
    401 steps). The y-axis follows the curve's top.

    Taught in: 14-attack-the-model.ipynb
    """

    figure_id = "MIA-5"
    title = N_("Auditing with one training run")
    controls = {
        "guesses": _released(
            Control(
                N_("guesses r"),
                10,
                1000,
                integer=True,
                description=N_("canaries guessed about"),
            )
        ),
        "share_correct": Control(
            N_("share right"),
            0.5,
            1.0,
            step=0.01,
            description=N_("share of the guesses that are right"),
        ),
        "confidence": _released(
            Control(
                N_("confidence"), 0.8, 0.999, step=0.001, description=N_("the bound's confidence")
            )
        ),
    }
    defaults = {"guesses": 100, "share_correct": 0.8, "confidence": 0.95}
    figsize = (9.5, 4.0)

    def _build(self):
        ax = self.axes = self.figure.subplots()
        ax.set_xlim(0.5, 1.0)
        ax.set_xlabel(_("share of the r guesses that are right, v / r"))
        ax.set_ylabel(_("ε proven (lower bound, δ = 0)"))
        # Five ticks whatever the top, so that a new top only relabels them.
        ax.yaxis.set_major_locator(LinearLocator(5))
        ax.set_title(_("MIA-5 · one training run, m = 1,000 canaries, r guesses"))
        (self.curve,) = ax.plot([], [], color=STRONG_COLOR, lw=1.8)
        (self.share_line,) = ax.plot([], [], color=MARK_COLOR, ls=":", lw=1)
        (self.mark,) = ax.plot([], [], "o", color=STRONG_COLOR, ms=8, clip_on=False)
        (self.star,) = ax.plot(
            [], [], "*", color=BLACK_BOX_COLOR, ms=14, mec="black", mew=0.6, clip_on=False
        )
        self.moving(self.curve, self.share_line, self.mark, self.star)
        _legend_beside(
            ax,
            [
                Line2D(
                    [], [], color=STRONG_COLOR, lw=1.8, marker="o", label=_("bound at r guesses")
                ),
                Line2D(
                    [],
                    [],
                    color=BLACK_BOX_COLOR,
                    marker="*",
                    ls="none",
                    ms=12,
                    mec="black",
                    label=_("one run of lesson 11's\nmodel, the same r guesses"),
                ),
                Line2D([], [], color=MARK_COLOR, ls=":", label=_("the slider's share")),
            ],
        )

    def _apply(self, guesses, share_correct, confidence):
        guesses, confidence = int(guesses), float(confidence)
        shares, bounds = one_run_curve(guesses, confidence)
        top = next(t for t in _ONE_RUN_TOPS if t >= 1.05 * float(bounds.max()))
        if self.axes.get_ylim() != (0.0, top):
            # The axis follows the curve's top: its ticks are in the static layer.
            self.axes.set_ylim(0.0, top)
            self.figure.invalidate_axes(self.axes, "y")
        self.curve.set_data(shares, bounds)
        correct = int(round(share_correct * guesses))
        epsilon = auditing.one_run_epsilon_lower_bound(guesses, correct, 0.0, confidence)
        share = correct / guesses
        self.share_line.set_data([share, share], [0.0, top])
        self.mark.set_data([share], [epsilon])
        audit = seeded_one_run(guesses, confidence)
        self.star.set_data([audit.correct / audit.guesses], [audit.epsilon])
        self.state = dict(
            guesses=guesses, correct=correct, confidence=confidence, epsilon=epsilon, audit=audit
        )

    def numbers(self):
        """The readout beside MIA-5: the numbers it shows at the current setting."""
        s = self.state
        return {
            N_("right guesses v"): s["correct"],
            N_("ε proven"): s["epsilon"],
            N_("one run of the model: right guesses"): s["audit"].correct,
            N_("one run of the model: ε proven"): s["audit"].epsilon,
        }

    def description(self):
        """MIA-5 in words for a reader who cannot see it, with the current numbers."""
        s = self.state
        audit = s["audit"]
        return _(
            "The lower bound on ε from one training run against the share of right guesses: "
            "{correct} right out of {guesses} proves ε ≥ {epsilon:.3f} with "
            "{confidence:.3g} confidence (circle on the solid curve); one seeded run of "
            "lesson 11's model with {canaries:,} canaries got {run_correct} of the "
            "same {run_guesses} guesses right, proving ε ≥ {run_epsilon:.3f} (star)."
        ).format(
            correct=s["correct"],
            guesses=s["guesses"],
            epsilon=s["epsilon"],
            confidence=s["confidence"],
            canaries=audit.canaries,
            run_correct=audit.correct,
            run_guesses=audit.guesses,
            run_epsilon=audit.epsilon,
        )
