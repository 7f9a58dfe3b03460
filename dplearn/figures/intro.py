"""Figures INTRO-1 to INTRO-5: why answers need noise (lesson 00).

INTRO-1, differencing: two exact counts give one person away; with Laplace noise the
attacker's odds move by a bounded factor. INTRO-2, reconstruction (Dinur & Nissim): the
share of n secret bits a linear program recovers from m noisy subset counts, against
the noise's size E. INTRO-3, randomised response and its two-valued privacy loss.
INTRO-4, what local noise costs against a central count. INTRO-5, the definition of
epsilon-DP as a band around the attacker's prior.

Every number comes from the core (``dplearn.attacks``, ``dplearn.randomized_response``,
``dplearn.privacy_loss``); the figures only arrange them.

Taught in: 00-see-why-answers-need-noise.ipynb
"""

from __future__ import annotations

import functools
import math

import numpy as np
from matplotlib.patches import Polygon, Rectangle
from scipy import stats

from dplearn import attacks, privacy_loss
from dplearn import randomized_response as local
from dplearn.figures.controls import EPSILON, Control
from dplearn.figures.explorers import Explorer, register, spoken
from dplearn.figures.style import BLUE, GREEN, GUIDE_GREY, ORANGE, PURPLE
from dplearn.language import N_, filled
from dplearn.language import gettext as _

__all__ = [
    "DifferencingAttack",
    "Reconstruction",
    "RandomizedResponseLoss",
    "LocalNoiseCost",
    "DefinitionBand",
    "RECONSTRUCTION_N",
    "RECONSTRUCTION_M",
    "RECONSTRUCTION_SEEDS",
    "CURVE_NOISE_BOUNDS",
    "reconstruction_curve",
    "FAIR_COINS",
    "DOCUMENT_EPSILON",
]

#: The lesson's settings.
DOCUMENT_EPSILON = float(np.log(3.0))
FAIR_COINS = 0.75
RECONSTRUCTION_N, RECONSTRUCTION_M = 100, 400
RECONSTRUCTION_SEEDS = tuple(range(5))
#: The noise sizes of INTRO-2's curve, each averaged over RECONSTRUCTION_SEEDS: roughly
#: even on its log axis, closer together on the cliff, and holding the three values the
#: lesson prints (0.5, sqrt(n) = 10, 40). The curve is smooth: joined by straight lines,
#: these nine points stay within 0.02 of the average at every slider step from 0.5 to 40
#: (within 0.005 on average), the size of the five seeds' own scatter.
CURVE_NOISE_BOUNDS = (0.5, 1.5, 3, 5, 7, 10, 15, 25, 40)
#: INTRO-2's slider moves E in steps of this size (each step's attack is solved once).
NOISE_STEP = 0.5

YES_COLOR, NO_COLOR = "tab:red", "tab:blue"
D1_COLOR, D2_COLOR = BLUE, ORANGE
BOUND_COLOR = "0.45"
BAND_COLOR = GREEN
LOCAL_COLOR, CENTRAL_COLOR = PURPLE, GREEN

PRIOR = Control(
    N_("prior $p$"), 0.01, 0.99, step=0.01, description=N_("the attacker's prior probability")
)
COUNT_EPSILON = EPSILON.replace(
    label=N_(r"$\varepsilon$ per count"),
    minimum=0.05,
    maximum=5.0,
    description=N_("each count's budget"),
)
# A new E can need a new LP, too slow to solve at every step of a drag: the figure follows
# the slider on release.
NOISE_BOUND = Control(
    N_("noise size $E$"),
    0.5,
    40.0,
    step=NOISE_STEP,
    description=N_("largest error of an answer"),
    on_release=True,
)
TRUTH = Control(N_("truth prob. $t$"), 0.51, 0.99, step=0.01, description=N_("P[report = truth]"))
CLAIM = Control(
    N_(r"claimed $\varepsilon'$"),
    0.0,
    5.0,
    step=0.01,
    description=N_("an epsilon to check the loss against"),
)
PEOPLE = Control(N_("people $n$"), 10.0, 1e6, log=True, description=N_("number of people asked"))
PROPORTION = Control(
    N_(r"true share $\pi$"), 0.0, 1.0, step=0.01, description=N_("share of yes answers")
)
DEFINITION_EPSILON = EPSILON.replace(minimum=0.05, maximum=5.0)
#: INTRO-4's half-widths for the surveys' estimates: the first that holds three local
#: standard errors is shown (a step changes the axis rarely, and by a factor of two).
SPREADS = (0.15, 0.3, 0.6, 1.25, 2.5, 5.0, 10.0, 20.0, 40.0)


def _percent(value):
    return f"{100.0 * value:.0f} %"


def _short(value):
    return f"{value:.3g}"


class _Figure(Explorer):
    """Titles and legends stay in the cached static layer (see ``plrv._Figure``)."""

    def _build(self):
        self._create()

    def _create(self):
        raise NotImplementedError


# --------------------------------------------------------------------------- INTRO-1


@register
class DifferencingAttack(_Figure):
    """INTRO-1: two counts, with and without Alice, and what their difference tells.

    Exact counts differ by Alice's answer: the attacker is sure. With Laplace noise of
    scale 1/epsilon on each count, the difference D is Alice's answer plus noise; the
    attacker's probability moves from the prior p to the posterior by the factor
    g(D - 1) / g(D) on the odds, inside the band that two epsilon-DP releases allow
    (odds times e^(+-2 epsilon)). The noise is one seeded draw, rescaled by 1/epsilon.

    Taught in: 00-see-why-answers-need-noise.ipynb
    """

    figure_id = "INTRO-1"
    title = N_("Differencing: two counts give one person away, unless they are noisy")
    controls = {"epsilon": COUNT_EPSILON, "prior": PRIOR}
    defaults = {"epsilon": DOCUMENT_EPSILON, "prior": 0.5}
    # 8.4 inches leave the readout beside it room for its longest numbers (4.5398e-5 at
    # epsilon = 5): at 9 it would wrap below the figure while a slider moves.
    figsize = (8.4, 3.6)
    #: The two standard Laplace draws behind the noisy counts (seed 2005).
    NOISE = tuple(np.random.default_rng(2005).laplace(0.0, 1.0, 2))
    limits = (-6.0, 8.0)
    #: The vertical lines' top: below the two rows of the legend.
    line_top = 1.05

    def _create(self):
        left, right = self.figure.subplots(1, 2, gridspec_kw={"width_ratios": [1.5, 1]})
        self.grid = np.linspace(*self.limits, 701)
        (self.has_line,) = left.plot([], [], color=YES_COLOR, lw=2, label=_("if Alice has it"))
        # Dash-dotted, so that the two curves differ by more than colour ("dashed" is the
        # noisy D seen, in the lesson's words).
        (self.not_line,) = left.plot(
            [], [], color=NO_COLOR, lw=2, ls="-.", label=_("if she has not")
        )
        # Both vertical lines stop below the legend, which spans the top of the axes.
        left.plot(
            [1.0, 1.0],
            [0.0, self.line_top],
            color="0.3",
            ls=":",
            lw=1.2,
            label=_("exact counts: $D = 1$"),
            zorder=1.5,
        )
        (self.seen,) = left.plot([], [], color="k", lw=1.5, ls="--", label=_("noisy $D$ seen"))
        # A D beyond the axis (small epsilon spreads the noise) is said at the edge it
        # lies beyond, never drawn at the edge as if it were there.
        self.off_axis = left.text(
            0, 0.55, "", fontsize=8.5, va="center", bbox=dict(fc="white", ec="0.6", lw=0.6)
        )
        self.moving(self.has_line, self.not_line, self.seen, self.off_axis)
        left.set_xlim(*self.limits)
        left.set_ylim(0, 1.4)
        left.set_xlabel(_("$D$ = count of everyone − count without Alice"))
        left.set_ylabel(_("likelihood (peak = 1)"))
        left.set_title(_("INTRO-1 · what the attacker sees"), fontsize=10)
        left.legend(loc="upper left", fontsize=8, ncols=2)

        names = [_("before"), _("after exact\ncounts"), _("after noisy\ncounts")]
        self.band = right.add_patch(
            Rectangle((1.62, 0.0), 0.76, 1.0, color=BAND_COLOR, alpha=0.25, lw=0)
        )
        self.bars = right.bar(
            range(3), [0.5, 1.0, 0.5], color=["0.6", "0.25", "tab:red"], width=0.6
        )
        # Moving text costs more to draw than all the rest: only the two labels that
        # change move (the band's edges are in the readout).
        self.labels = [right.text(i, 0.0, "", ha="center", va="bottom", fontsize=9) for i in (0, 2)]
        right.text(1, 1.01, "100 %", ha="center", va="bottom", fontsize=9)
        self.moving(self.band, self.bars[0], self.bars[2], *self.labels)
        right.set_xticks(range(3), names, fontsize=9)
        right.set_xlim(-0.6, 2.6)
        right.set_ylim(0, 1.12)
        right.set_ylabel(_("P[Alice has it]"))
        right.set_title(_("belief (green: what 2ε allows)"), fontsize=10)

    def _apply(self, epsilon, prior):
        first, second = self.NOISE
        difference = 1.0 + (first - second) / epsilon
        peak = attacks.difference_density(0.0, epsilon)
        self.has_line.set_data(
            self.grid, attacks.difference_density(self.grid - 1.0, epsilon) / peak
        )
        self.not_line.set_data(self.grid, attacks.difference_density(self.grid, epsilon) / peak)
        low_edge, high_edge = self.limits
        inside = low_edge <= difference <= high_edge
        if inside:
            self.seen.set_data([difference, difference], [0.0, self.line_top])
        else:
            self.seen.set_data([], [])
        if inside:
            self.off_axis.set_text("")
        elif difference > high_edge:
            self.off_axis.set_x(high_edge - 0.2)
            self.off_axis.set_ha("right")
            self.off_axis.set_text(
                _("noisy $D$ = {difference:.1f},\nbeyond the axis →").format(difference=difference)
            )
        else:
            self.off_axis.set_x(low_edge + 0.2)
            self.off_axis.set_ha("left")
            self.off_axis.set_text(
                _("← noisy $D$ = {difference:.1f},\nbeyond the axis").format(difference=difference)
            )
        posterior = attacks.differencing_posterior(prior, difference, epsilon)
        low, high = attacks.posterior_band(prior, 2.0 * epsilon)
        self.epsilon, self.prior, self.difference = epsilon, prior, difference
        self.posterior, self.low, self.high = posterior, low, high
        self.factor = math.exp(attacks.differencing_log_ratio(difference, epsilon))
        for index, value in ((0, prior), (2, posterior)):
            self.bars[index].set_height(value)
        for label, value in zip(self.labels, (prior, posterior), strict=True):
            label.set_y(value + 0.01)
            label.set_text(_percent(value))
        self.band.set_y(low)
        self.band.set_height(high - low)

    def description(self):
        """INTRO-1 in words for a reader who cannot see it, with the current numbers."""
        say, p = self.reader(), self.params
        return _(
            "Left: the density of the noisy difference D of two counts if Alice has the trait "
            "and if she has not, with the D = {seen} seen (noise at ε = "
            "{epsilon} per count). Right: the attacker's belief that she has it "
            "moves from the prior {prior} to {posterior}, inside the band "
            "from {lowest} to {highest} that the two releases allow; without "
            "noise the attacker would be certain."
        ).format(
            seen=say("seen"),
            epsilon=spoken(p["epsilon"]),
            prior=say("prior"),
            posterior=say("posterior P"),
            lowest=say("lowest"),
            highest=say("highest"),
        )

    def numbers(self):
        """The readout beside INTRO-1: the numbers it shows at the current setting."""
        return {
            N_(r"$\varepsilon$ per count"): self.epsilon,
            N_("prior $p$"): self.prior,
            N_("noisy difference $D$ seen"): self.difference,
            N_(r"factor on the odds, $g(D-1)/g(D)$"): self.factor,
            N_("posterior P[Alice has it]"): self.posterior,
            N_(r"lowest posterior $2\varepsilon$ allows"): self.low,
            N_(r"highest posterior $2\varepsilon$ allows"): self.high,
        }


# --------------------------------------------------------------------------- INTRO-2


@functools.lru_cache(maxsize=8)
def reconstruction_curve(n=RECONSTRUCTION_N, m=RECONSTRUCTION_M, seeds=RECONSTRUCTION_SEEDS):
    """(noise bounds, mean fraction recovered) of INTRO-2's curve, computed once.

    Taught in: 00-see-why-answers-need-noise.ipynb
    """
    bounds = np.array(CURVE_NOISE_BOUNDS, dtype=float)
    means = np.array([attacks.mean_fraction_recovered(n, m, bound, seeds) for bound in bounds])
    return bounds, means


@register
class Reconstruction(_Figure):
    """INTRO-2: the share of secret bits the LP recovers, against the noise size E.

    Left: averaged over five attacks (seeds 0 to 4) at n = 100, m = 400, at the nine
    noise sizes of CURVE_NOISE_BOUNDS (45 LPs, solved when the figure is first built),
    with the first of them (seed 0) at the slider's E. Right: that attack's 100 bits, right or
    wrong. E moves in steps of 0.5; each step's attack is solved the first time the
    slider stops there (one LP, kept while the kernel runs; the curve's own E
    values are already solved), and the slider updates the figure on release. A value
    set from code is taken to the nearest step (the readout shows the E used).

    Taught in: 00-see-why-answers-need-noise.ipynb
    """

    figure_id = "INTRO-2"
    title = N_("Reconstruction: how many secret bits m noisy answers give away")
    controls = {"noise_bound": NOISE_BOUND}
    defaults = {"noise_bound": math.sqrt(RECONSTRUCTION_N)}
    figsize = (9.0, 3.6)
    SEED = 0

    def _create(self):
        n, m = RECONSTRUCTION_N, RECONSTRUCTION_M
        left, right = self.figure.subplots(1, 2, gridspec_kw={"width_ratios": [1.9, 1]})
        bounds, means = reconstruction_curve()
        self.curve = (bounds, means)
        left.plot(
            bounds,
            means,
            color="0.25",
            lw=1.5,
            marker="o",
            ms=3.5,
            label=_("average of {attacks} attacks, {values} values of $E$").format(
                attacks=len(RECONSTRUCTION_SEEDS), values=len(bounds)
            ),
        )
        root = math.sqrt(n)
        # Up to the curve's top only: the legend spans the axes' top above it.
        left.plot(
            [root, root],
            [0.35, 1.05],
            color="tab:red",
            ls="--",
            lw=1.2,
            label=rf"$E = \sqrt{{n}} = {root:g}$",
        )
        left.axhline(0.5, color=BOUND_COLOR, ls=":", lw=1.2, label=_("guessing: ½"))
        (self.marker,) = left.plot(
            [], [], "o", color=ORANGE, ms=9, mec="k", label=_("the first of those attacks")
        )
        self.marker_text = left.text(0, 0, "", fontsize=9, ha="left", va="bottom")
        self.moving(self.marker, self.marker_text)
        left.set_xscale("log")
        left.set_xlim(0.4, 50)
        left.set_ylim(0.35, 1.3)
        left.set_xlabel(_("noise size $E$ (each answer off by up to $E$)"))
        left.set_ylabel(_("share of bits recovered"))
        left.set_title(
            _("INTRO-2 · LP attack on n = {bits} bits, m = {answers} answers").format(
                bits=n, answers=m
            ),
            fontsize=10,
        )
        left.legend(loc="upper right", fontsize=8, ncols=2)
        side = int(math.isqrt(n))
        self.side = side
        self.image = right.imshow(
            np.zeros((side, side)), cmap=_BITS_MAP, vmin=0, vmax=3, interpolation="nearest"
        )
        self.moving(self.image)
        right.set_xticks([])
        right.set_yticks([])
        right.set_title(_("first attack's bits (red, pink: wrong)"), fontsize=10)

    def _attack(self, bound):
        # Cached by attacks.reconstruction_trial: a step already visited only draws.
        return attacks.reconstruction_trial(
            RECONSTRUCTION_N, RECONSTRUCTION_M, bound, seed=self.SEED
        )

    def _apply(self, noise_bound):
        step = round(noise_bound / NOISE_STEP) * NOISE_STEP
        bound = float(np.clip(step, NOISE_BOUND.minimum, NOISE_BOUND.maximum))
        secret, recovered = self._attack(bound)
        right = secret == recovered
        # 0, 1: a 0 or a 1 recovered; 2, 3: a 0 or a 1 missed.
        codes = np.where(right, secret, 2 + secret).reshape(self.side, self.side)
        self.image.set_data(codes)
        fraction = float(np.mean(right))
        self.bound, self.fraction = bound, fraction
        self.marker.set_data([bound], [fraction])
        # Right of the dot, or left of it near the axis' right end (it would run into
        # the grid of bits beside).
        if bound <= 15.0:
            self.marker_text.set_position((bound * 1.1, fraction + 0.015))
            self.marker_text.set_ha("left")
        else:
            self.marker_text.set_position((bound / 1.1, fraction + 0.015))
            self.marker_text.set_ha("right")
        self.marker_text.set_text(_percent(fraction))

    def description(self):
        """INTRO-2 in words for a reader who cannot see it, with the current numbers."""
        say = self.reader()
        return _(
            "Left: the share of 100 secret bits an attack recovers from 400 noisy answers, "
            "against the noise size E, from {smallest_noise} at E = 0.5 down to "
            "{largest_noise} at E = 40 (half would be a coin toss). Right: the bits of "
            "one attack at E = {noise_bound}, of which a share {recovered} "
            "is right."
        ).format(
            smallest_noise=say("E = 0.5"),
            largest_noise=say("E = 40"),
            noise_bound=say("used"),
            recovered=say("first attack"),
        )

    def numbers(self):
        """The readout beside INTRO-2: the numbers it shows at the current setting."""
        bounds, means = self.curve
        root, m = math.sqrt(RECONSTRUCTION_N), RECONSTRUCTION_M

        def mean_at(value):
            return float(means[list(bounds).index(value)])

        return {
            N_("noise size $E$ used"): self.bound,
            N_("bits recovered, first attack"): self.fraction,
            N_(r"average at $E = 0.5$"): mean_at(0.5),
            filled(N_(r"average at $E = \sqrt{{n}} = {root:g}$"), root=root): mean_at(root),
            N_(r"average at $E = 40$"): mean_at(40.0),
            N_(r"$\varepsilon$ per answer, Laplace of scale $E$"): 1.0 / self.bound,
            filled(N_(r"basic composition, $m = {answers}$ answers"), answers=m): m / self.bound,
        }


def _bits_colormap():
    from matplotlib.colors import ListedColormap

    # A 0 recovered, a 1 recovered, a 0 missed, a 1 missed.
    return ListedColormap(["#d9d9d9", "#404040", "#f4a582", "#b2182b"])


_BITS_MAP = _bits_colormap()


# --------------------------------------------------------------------------- INTRO-3


@register
class RandomizedResponseLoss(_Figure):
    """INTRO-3: randomised response's two report laws and its two-valued privacy loss.

    Left: P[report yes] and P[report no] when the true answer is yes (D1) or no (D2).
    Right: the privacy loss L under D1, +epsilon with probability t and -epsilon with
    1 - t, against a claimed epsilon'; delta(epsilon') = t (1 - e^(epsilon' - epsilon)).

    Taught in: 00-see-why-answers-need-noise.ipynb
    """

    figure_id = "INTRO-3"
    title = N_("Randomised response: two reports, two values of the privacy loss")
    controls = {"truth_probability": TRUTH, "claimed_epsilon": CLAIM}
    defaults = {"truth_probability": FAIR_COINS, "claimed_epsilon": 0.5}
    figsize = (9.0, 3.6)
    #: Height of the bars' labels: above every bar (at most 0.99) and the dashed line (1).
    label_height = 1.03

    def _create(self):
        left, right = self.figure.subplots(1, 2)
        width = 0.36
        self.d1_bars = left.bar(
            np.array([0, 1]) - width / 2,
            [0.5, 0.5],
            width,
            color=D1_COLOR,
            label=_("true answer yes ($D_1$)"),
        )
        self.d2_bars = left.bar(
            np.array([0, 1]) + width / 2,
            [0.5, 0.5],
            width,
            color=D2_COLOR,
            label=_("true answer no ($D_2$)"),
        )
        self.moving(*self.d1_bars, *self.d2_bars)
        left.set_xticks([0, 1], [_('report "yes"'), _('report "no"')])
        left.set_xlim(-0.6, 1.6)
        left.set_ylim(0, 1.25)
        left.set_ylabel(_("probability"))
        left.set_title(_("INTRO-3 · what a report looks like"), fontsize=10)
        left.legend(loc="upper right", fontsize=8)

        self.atoms = right.bar([1.0, -1.0], [0.75, 0.25], 0.22, color=["tab:red", "tab:blue"])
        # Above the top of the claimed epsilon's line, "+" on the right of its bar and "-"
        # on the left of its: they never meet, however close the two bars come.
        self.atom_labels = [
            right.text(0, self.label_height, "", ha=side, va="bottom", fontsize=8)
            for side in ("left", "right")
        ]
        (self.claim_line,) = right.plot(
            [0, 0], [0, 1.0], color="k", ls="--", lw=1.2, label=_(r"claimed $\varepsilon'$")
        )
        # epsilon and delta(epsilon') are in the readout: moving text is the costly part.
        self.moving(*self.atoms, *self.atom_labels, self.claim_line)
        right.axvline(0.0, color=GUIDE_GREY, lw=0.8, zorder=0.5)
        right.set_xlim(-5.2, 5.2)
        right.set_ylim(0, 1.35)
        right.set_xlabel(_(r"privacy loss $\mathcal{L}$ of the report"))
        right.set_ylabel(_(r"probability under $D_1$"))
        right.set_title(_(r"$\mathcal{L}$ takes two values: $\pm\varepsilon$"), fontsize=10)
        right.legend(loc="upper right", fontsize=8)

    def _apply(self, truth_probability, claimed_epsilon):
        pair = privacy_loss.randomized_response(truth_probability)
        t = pair.truth_probability
        heights = (t, 1.0 - t, 1.0 - t, t)
        for bar, height in zip((*self.d1_bars, *self.d2_bars), heights, strict=True):
            bar.set_height(height)
        values, masses = pair.loss_atoms
        for bar, label, value, mass in zip(
            self.atoms, self.atom_labels, values, masses, strict=True
        ):
            bar.set_x(value - bar.get_width() / 2)
            bar.set_height(mass)
            # Outward from the middle; inward near the axis' ends, where it would run out.
            outward = abs(value) < 3.0
            label.set_ha("left" if (value > 0) == outward else "right")
            label.set_x(value + np.sign(value) * bar.get_width() / 2 * (1 if outward else -1))
            label.set_text(f"{'+' if value > 0 else '−'}ε: {mass:.2f}")
        shown = min(claimed_epsilon, 5.2)
        self.claim_line.set_xdata([shown, shown])
        self.pair, self.claimed_epsilon = pair, claimed_epsilon
        self.delta = pair.delta(claimed_epsilon)

    def description(self):
        """INTRO-3 in words for a reader who cannot see it, with the current numbers."""
        say = self.reader()
        return _(
            "Left: the chances of reporting yes or no when the true answer is yes or no, "
            "at truth probability t = {truth_probability}. Right: the privacy loss "
            "takes two values, plus ε = {epsilon} with probability "
            "{plus_probability} and minus ε with {minus_probability}; against the claimed "
            "ε' = {claimed_epsilon} it is larger with probability {exceeds_probability}, "
            "and δ(ε') = {delta}."
        ).format(
            truth_probability=say("truth probability"),
            epsilon=say("ln(t"),
            plus_probability=say("= +"),
            minus_probability=say("= -"),
            claimed_epsilon=say("claimed"),
            exceeds_probability=say("> "),
            delta=say("delta("),
        )

    def numbers(self):
        """The readout beside INTRO-3: the numbers it shows at the current setting."""
        pair = self.pair
        return {
            N_("truth probability $t$"): pair.truth_probability,
            r"$\varepsilon = \ln(t/(1-t))$": pair.max_loss,
            r"$\Pr[\mathcal{L} = +\varepsilon]$": pair.truth_probability,
            r"$\Pr[\mathcal{L} = -\varepsilon]$": 1.0 - pair.truth_probability,
            N_(r"claimed $\varepsilon'$"): self.claimed_epsilon,
            r"$\Pr[\mathcal{L} > \varepsilon']$": pair.loss_exceeds(self.claimed_epsilon),
            r"$\delta(\varepsilon')$": self.delta,
        }


# --------------------------------------------------------------------------- INTRO-4


@register
class LocalNoiseCost(_Figure):
    """INTRO-4: the error of a proportion estimated locally and centrally, against n.

    The local estimate comes from randomised answers, the central one from a Laplace count
    at the same epsilon.

    Left: standard errors, log-log: local like 1/sqrt(n), central like 1/n; dotted, the
    sampling error any survey of n people has. Right: 200 simulated estimates of each
    kind at the slider's n, from draws made once (binomial quantiles of fixed uniforms,
    fixed standard Laplace draws), so moving a slider moves the same surveys.
    n is used rounded to a whole number.

    Taught in: 00-see-why-answers-need-noise.ipynb
    """

    figure_id = "INTRO-4"
    title = N_("What local noise costs: error against n, local and central")
    controls = {"n": PEOPLE, "truth_probability": TRUTH, "proportion": PROPORTION}
    defaults = {"n": 1000.0, "truth_probability": FAIR_COINS, "proportion": 0.3}
    figsize = (9.0, 3.6)
    SURVEYS = 200

    def _create(self):
        left, right = self.figure.subplots(1, 2, gridspec_kw={"width_ratios": [1.25, 1]})
        self.grid = np.unique(np.round(np.logspace(1, 6, 200)))
        (self.local_line,) = left.plot(
            [], [], color=LOCAL_COLOR, lw=2, label=_("local: randomised response")
        )
        (self.central_line,) = left.plot(
            [], [], color=CENTRAL_COLOR, lw=2, ls="--", label=_("central: Laplace count")
        )
        (self.sampling_line,) = left.plot(
            [], [], color=BOUND_COLOR, lw=1.2, ls=":", label=_("sampling alone")
        )
        (self.points,) = left.plot([], [], "o", color="k", ms=5)
        (self.n_line,) = left.plot([], [], color="0.5", lw=0.8)
        self.moving(
            self.local_line, self.central_line, self.sampling_line, self.points, self.n_line
        )
        left.set_xscale("log")
        left.set_yscale("log")
        # A little beyond the slider's ends, so that the markers of n = 10 or 10^6 show whole.
        left.set_xlim(7, 1.4e6)
        # Room above the largest error (about 8, at n = 10 and t = 0.51) for the legend.
        left.set_ylim(1e-7, 300)
        left.set_xlabel(_("number of people $n$"))
        left.set_ylabel(_(r"standard error of the share"))
        left.set_title(_("INTRO-4 · error against $n$ (same ε)"), fontsize=10)
        # Upper right, where the errors of many people are small; the marker of n is a
        # segment between its two points only, so that it never runs through the legend.
        left.legend(loc="upper right", fontsize=8)

        rng = np.random.default_rng(1965)
        self.uniform_local = rng.random(self.SURVEYS)
        self.uniform_sample = rng.random(self.SURVEYS)
        self.laplace = rng.laplace(0.0, 1.0, self.SURVEYS)
        self.jitter = rng.uniform(-0.18, 0.18, self.SURVEYS)
        (self.local_dots,) = right.plot([], [], "o", color=LOCAL_COLOR, ms=3, alpha=0.9)
        (self.central_dots,) = right.plot([], [], "o", color=CENTRAL_COLOR, ms=3, alpha=0.9)
        self.moving(self.local_dots, self.central_dots)
        right.axvline(0.0, color="k", lw=0.8, zorder=1.5)
        right.set_xlim(-SPREADS[0], SPREADS[0])
        right.set_ylim(-0.6, 1.6)
        right.set_yticks([0, 1], [_("central"), _("local")])
        right.set_xlabel(_(r"estimate − true share $\pi$"))
        right.set_title(
            _("{surveys} surveys of $n$ people each").format(surveys=self.SURVEYS), fontsize=10
        )

    def _apply(self, n, truth_probability, proportion):
        people = max(1, int(round(n)))
        t = privacy_loss.randomized_response(truth_probability).truth_probability
        epsilon = privacy_loss.randomized_response(t).max_loss
        local_sd = local.local_standard_error(proportion, self.grid, t)
        central_sd = local.central_standard_error(self.grid, epsilon)
        sampling_sd = local.sampling_standard_error(proportion, self.grid)
        self.local_line.set_data(self.grid, local_sd)
        self.central_line.set_data(self.grid, central_sd)
        # A share of 0 or 1 has no sampling error: nothing to draw on a log axis.
        self.sampling_line.set_data(self.grid, np.where(sampling_sd > 0, sampling_sd, np.nan))
        self.people, self.t, self.proportion, self.epsilon = people, t, proportion, epsilon
        self.local_sd = local.local_standard_error(proportion, people, t)
        self.central_sd = local.central_standard_error(people, epsilon)
        self.sampling_sd = local.sampling_standard_error(proportion, people)
        self.noise_sd = local.local_noise_standard_error(people, t)
        self.points.set_data([people, people], [self.local_sd, self.central_sd])
        self.n_line.set_data([people, people], [self.central_sd, self.local_sd])
        # "sampling alone" is not drawn where it is 0 (a share of 0 or 1): its legend says so.
        sampling_label = (
            _("sampling alone") if 0.0 < proportion < 1.0 else _("sampling alone: 0 here")
        )
        legend = self.local_line.axes.get_legend()
        if legend.get_texts()[2].get_text() != sampling_label:
            legend.get_texts()[2].set_text(sampling_label)
            self.figure.invalidate_static_layer()
        q = local.report_probability(proportion, t)
        yes_reports = stats.binom.ppf(self.uniform_local, people, q)
        local_estimates = (yes_reports / people - (1.0 - t)) / (2.0 * t - 1.0)
        counts = stats.binom.ppf(self.uniform_sample, people, proportion)
        central_estimates = (counts + self.laplace / epsilon) / people
        # The axis holds three local standard errors: estimates never pile up at its edges.
        spread = next(
            (value for value in SPREADS if value >= 3.0 * max(self.local_sd, self.central_sd)),
            SPREADS[-1],
        )
        axes = self.local_dots.axes
        if axes.get_xlim()[1] != spread:
            axes.set_xlim(-spread, spread)
            self.figure.invalidate_axes(axes, "x")
        self.spread = spread
        edge = spread * 0.99
        self.local_dots.set_data(
            np.clip(local_estimates - proportion, -edge, edge), 1.0 + self.jitter
        )
        self.central_dots.set_data(
            np.clip(central_estimates - proportion, -edge, edge), self.jitter
        )

    def description(self):
        """INTRO-4 in words for a reader who cannot see it, with the current numbers."""
        say, p = self.reader(), self.params
        return _(
            "Left: the error of an estimated share against the number of people n, on log "
            "axes: local randomised answers fall like one over the square root of n, a "
            "central Laplace count like one over n. At n = {people} and "
            "ε = {epsilon} the local error is {local_error} and the central "
            "{central_error}, {ratio} times smaller; right: 200 "
            "simulated estimates of each kind around the true share {proportion}."
        ).format(
            people=say("people"),
            epsilon=say("ln(t"),
            local_error=say("local: sd"),
            central_error=say("central:"),
            ratio=say("local / central"),
            proportion=spoken(p["proportion"]),
        )

    def numbers(self):
        """The readout beside INTRO-4: the numbers it shows at the current setting."""
        return {
            N_("people $n$"): self.people,
            r"$\varepsilon = \ln(t/(1-t))$": self.epsilon,
            N_(r"local: sd of $\hat\pi$"): self.local_sd,
            N_("of which sampling alone"): self.sampling_sd,
            N_("of which the coins"): self.noise_sd,
            N_(r"central: $\sqrt{2}/(n\varepsilon)$"): self.central_sd,
            N_("local / central"): self.local_sd / self.central_sd,
        }


# --------------------------------------------------------------------------- INTRO-5


@register
class DefinitionBand(_Figure):
    """INTRO-5: epsilon-DP as a band around the attacker's prior.

    Whatever the output, the attacker's posterior lies between the prior odds times
    e^-epsilon and times e^epsilon.

    Left: posterior probability against prior probability; right: the same in log odds,
    where the band is a strip of half-width epsilon around the diagonal.

    Taught in: 00-see-why-answers-need-noise.ipynb
    """

    figure_id = "INTRO-5"
    title = N_("The definition as a band around the attacker's prior")
    controls = {"epsilon": DEFINITION_EPSILON, "prior": PRIOR}
    defaults = {"epsilon": DOCUMENT_EPSILON, "prior": 0.5}
    figsize = (9.0, 3.6)
    log_limit = 6.0

    def _create(self):
        left, right = self.figure.subplots(1, 2)
        self.priors = np.linspace(1e-4, 1 - 1e-4, 401)
        self.band = left.add_patch(
            Polygon(
                np.zeros((3, 2)),
                color=BAND_COLOR,
                alpha=0.3,
                lw=0,
                label=_(r"allowed by $\varepsilon$-DP"),
            )
        )
        left.plot([0, 1], [0, 1], color="0.4", lw=1, ls=":", label=_("learns nothing"))
        (self.segment,) = left.plot(
            [], [], color="k", lw=2, marker="o", ms=5, label=_("at the prior $p$")
        )
        self.moving(self.band, self.segment)
        # A little room around [0, 1]: the dots of a prior near 0 or 1 show whole.
        left.set_xlim(-0.03, 1.03)
        left.set_ylim(-0.03, 1.03)
        left.set_aspect("equal")
        left.set_xlabel(_(r"prior $\Pr[D = D_1]$"))
        left.set_ylabel(_(r"posterior $\Pr[D = D_1 \mid O]$"))
        left.set_title(_("INTRO-5 · the band, in probabilities"), fontsize=10)
        left.legend(loc="upper left", fontsize=8)

        limit = self.log_limit
        self.log_band = right.add_patch(
            Polygon(np.zeros((3, 2)), color=BAND_COLOR, alpha=0.3, lw=0)
        )
        right.plot([-limit, limit], [-limit, limit], color="0.4", lw=1, ls=":")
        (self.log_segment,) = right.plot([], [], color="k", lw=2, marker="o", ms=5)
        self.moving(self.log_band, self.log_segment)
        right.set_xlim(-limit, limit)
        right.set_ylim(-limit, limit)
        right.set_aspect("equal")
        right.set_xlabel(_("prior log odds"))
        right.set_ylabel(_("posterior log odds"))
        right.set_title(_(r"in log odds: a strip $\pm\varepsilon$ wide"), fontsize=10)

    def _apply(self, epsilon, prior):
        low, high = attacks.posterior_band(self.priors, epsilon)
        self.band.set_xy(
            np.column_stack(
                [
                    np.concatenate([self.priors, self.priors[::-1]]),
                    np.concatenate([low, high[::-1]]),
                ]
            )
        )
        limit = self.log_limit
        self.log_band.set_xy(
            [
                (-limit, -limit - epsilon),
                (limit, limit - epsilon),
                (limit, limit + epsilon),
                (-limit, -limit + epsilon),
            ]
        )
        edge_low, edge_high = attacks.posterior_band(prior, epsilon)
        self.segment.set_data([prior, prior], [edge_low, edge_high])
        log_odds = math.log(prior) - math.log1p(-prior)
        self.log_segment.set_data([log_odds, log_odds], [log_odds - epsilon, log_odds + epsilon])
        self.epsilon, self.prior, self.low, self.high = epsilon, prior, edge_low, edge_high

    def description(self):
        """INTRO-5 in words for a reader who cannot see it, with the current numbers."""
        say, p = self.reader(), self.params
        return _(
            "The posteriors ε-DP allows against the attacker's prior, as probabilities (left) "
            "and log odds (right, a strip of half-width ε = {epsilon} around "
            "the diagonal). At prior {prior}, whatever the output, the posterior "
            "stays between {lowest} and {highest}."
        ).format(
            epsilon=spoken(p["epsilon"]),
            prior=say("prior $p$"),
            lowest=say("lowest"),
            highest=say("highest"),
        )

    def numbers(self):
        """The readout beside INTRO-5: the numbers it shows at the current setting."""
        odds = self.prior / (1.0 - self.prior)
        return {
            r"$\varepsilon$": self.epsilon,
            r"$e^{\varepsilon}$": math.exp(self.epsilon),
            N_("prior $p$"): self.prior,
            N_("prior odds"): odds,
            N_("lowest posterior allowed"): self.low,
            N_("highest posterior allowed"): self.high,
        }
