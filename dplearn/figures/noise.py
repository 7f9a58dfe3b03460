"""Figures NOISE-1 to NOISE-4 and NOISE-LEAK: noisy numeric queries in practice.

Every figure draws its random numbers once, with a seeded numpy Generator, as noise of
scale 1; sliders rescale that same noise. ``resample(rng)`` draws afresh (the notebook's
"draw again" button).

Taught in: 07-add-noise-in-practice.ipynb
"""

from __future__ import annotations

import numpy as np
from scipy import stats

from dplearn import _validation as check
from dplearn import floating_point
from dplearn.figures.controls import EPSILON, SCALE, SENSITIVITY, Choice, Control
from dplearn.figures.explorers import Explorer, register, spoken
from dplearn.figures.legends import legend_below
from dplearn.figures.style import BAD_COLOR, BLUE, ORANGE
from dplearn.language import N_, filled
from dplearn.language import gettext as _
from dplearn.mechanisms import (
    central_interval,
    sample_laplace_inverse_cdf,
    within_tolerance_probability,
)

__all__ = [
    "InverseCdfSampling",
    "OneDimensionalQuery",
    "TwoDimensionalQuery",
    "SeabornHistogram",
    "FloatingPointLeak",
    "kde_curve",
]

FIRST_COLOR, SECOND_COLOR, IMPOSSIBLE_COLOR, EXACT_COLOR = BLUE, ORANGE, BAD_COLOR, "black"
#: NOISE-LEAK's readout name of the share of outputs only one answer can give.
INFINITE_LOSS_NAME = N_(r"$\Pr[\mathcal{L} = \infty]$ (Monte Carlo)")


def kde_curve(data, grid, bw_adjust=1.0):
    """The Gaussian kernel density seaborn's kdeplot draws (Scott's rule times bw_adjust).

    Taught in: 07-add-noise-in-practice.ipynb
    """
    data = np.asarray(data, dtype=float)
    values, counts = np.unique(data, return_counts=True)
    bandwidth = data.size ** (-1.0 / 5.0) * bw_adjust * data.std(ddof=1)
    offsets = (np.asarray(grid, dtype=float)[:, None] - values[None, :]) / bandwidth
    kernel = np.exp(-0.5 * offsets**2) / (bandwidth * np.sqrt(2.0 * np.pi))
    return kernel @ counts / data.size


class _SeededExplorer(Explorer):
    """An explorer whose random draws come from a seeded Generator, once."""

    seed = 2026

    def __init__(self, *, rng=None, figure=None, **params):
        self._rng = rng if rng is not None else np.random.default_rng(self.seed)
        self._draw(self._rng)
        super().__init__(figure=figure, **params)

    def _build(self):
        self._build_artists()

    def _build_artists(self):
        raise NotImplementedError

    def _draw(self, rng):
        raise NotImplementedError

    def resample(self, rng):
        """Draws new noise from rng and shows it at the current setting."""
        self._draw(rng)
        self.update()
        return self

    def draw_again_button(self, view, rng):
        """A "draw again" button under view (this figure's ``explore``): new noise from rng."""
        import ipywidgets as widgets

        button = widgets.Button(description=_("draw again"))

        def draw_again(_button):
            self.resample(rng)
            view.refresh()

        button.on_click(draw_again)
        return button


@register
class InverseCdfSampling(_SeededExplorer):
    """NOISE-1: Laplace noise by the inverse CDF, and its histogram against the density.

    Taught in: 07-add-noise-in-practice.ipynb
    """

    figure_id = "NOISE-1"
    title = N_("Laplace samples by the inverse CDF against the density")
    controls = {
        "scale": SCALE.replace(minimum=0.5, maximum=5.0),
        "samples": Control(
            N_("samples $n$"), 100, 20000, integer=True, description=N_("samples drawn")
        ),
    }
    defaults = {"scale": 1.0, "samples": 1000}
    figsize = (10.0, 3.8)
    limit = 12.0

    def _draw(self, rng):
        self._standard = sample_laplace_inverse_cdf(rng=rng, size=self.controls["samples"].maximum)

    def _build_artists(self):
        self._edges = np.linspace(-self.limit, self.limit, 97)
        self._grid = np.linspace(-self.limit, self.limit, 801)
        self._uniform = np.linspace(-0.5, 0.5, 2001)[1:-1]
        map_axes, hist_axes = self.figure.subplots(1, 2, width_ratios=[1, 1.6])
        self._map = self.moving(map_axes.plot([], [], color=FIRST_COLOR, lw=2)[0])
        map_axes.axvline(-0.5, color=IMPOSSIBLE_COLOR, ls=":", lw=1, zorder=1.5)
        map_axes.axvline(0.5, color=IMPOSSIBLE_COLOR, ls=":", lw=1, zorder=1.5)
        # The curve rises through the origin, so the upper left and lower right stay empty.
        map_axes.text(
            0.03,
            0.75 * self.limit,
            r"$U \to +1/2$: $X \to +\infty$",
            fontsize=9,
            color=IMPOSSIBLE_COLOR,
        )
        map_axes.text(
            0.03,
            -0.85 * self.limit,
            _(
                r"$U = -1/2$: $\ln 0$, $X = -\infty$"
                "\n(np.random.random()\n− 0.5 can return\nexactly −1/2)"
            ),
            fontsize=9,
            color=IMPOSSIBLE_COLOR,
        )
        map_axes.set(
            xlim=(-0.55, 0.55),
            ylim=(-self.limit, self.limit),
            xlabel=_("uniform draw $U$"),
            ylabel=_(r"noise $X = -b\,\mathrm{sgn}(U)\,\ln(1 - 2|U|)$"),
            title=_("inverse CDF: $U$ on the open interval $(-1/2, 1/2)$"),
        )
        self._bars = self.moving(
            hist_axes.stairs(
                np.zeros(len(self._edges) - 1),
                self._edges,
                fill=True,
                color=FIRST_COLOR,
                alpha=0.45,
                label=_("histogram of the samples"),
            )
        )
        self._density = self.moving(
            hist_axes.plot([], [], color=EXACT_COLOR, lw=1.5, label=_("Laplace density"))[0]
        )
        hist_axes.set(
            xlim=(-self.limit, self.limit),
            ylim=(0, 1.1),
            xlabel=_("noise $X$"),
            ylabel=_("density"),
            title=_(r"samples against the density ($\mu = 0$)"),
        )
        hist_axes.legend(loc="upper right", fontsize=9)

    def _apply(self, *, scale, samples):
        scale = float(check.positive("scale", scale))
        samples = check.whole("samples", samples, 1, self._standard.size)
        noise = self._standard[:samples] * scale
        counts = np.histogram(noise, self._edges)[0]
        heights = counts / (samples * np.diff(self._edges))
        uniform = self._uniform
        mapped = -scale * np.sign(uniform) * np.log1p(-2.0 * np.abs(uniform))
        density = stats.laplace.pdf(self._grid, scale=scale)
        self._fit = stats.kstest(noise, stats.laplace(scale=scale).cdf)
        self._outside = float(np.mean(np.abs(noise) > self.limit))
        self._noise = noise
        self._bars.set_data(heights)
        self._map.set_data(uniform, mapped)
        self._density.set_data(self._grid, density)

    def description(self):
        """NOISE-1 in words for a reader who cannot see it, with the current numbers."""
        say, p = self.reader(), self.params
        return _(
            "Left: the inverse CDF that turns uniform draws into Laplace noise of scale "
            "b = {scale}; right: a histogram of {samples} samples "
            "against the density. Their mean absolute value is {mean_absolute} (exact: b), "
            "and a Kolmogorov-Smirnov test gives p = {p_value}."
        ).format(
            scale=spoken(p["scale"]),
            samples=say("samples"),
            mean_absolute=say("mean"),
            p_value=say("p-value"),
        )

    def numbers(self):
        """The readout beside NOISE-1: the numbers it shows at the current setting."""
        post = floating_point.post_noisy_digit(-0.5)
        return {
            N_("samples"): self.params["samples"],
            N_("KS test p-value"): float(self._fit.pvalue),
            N_("KS statistic"): float(self._fit.statistic),
            N_(r"mean $|X|$ (exact: $b$)"): float(np.mean(np.abs(self._noise))),
            N_("share outside the plot"): self._outside,
            N_("post's rounded noise at $U = -1/2$"): post,
        }


@register
class OneDimensionalQuery(_SeededExplorer):
    """NOISE-2: a sum that should be 3000, answered with rounded Laplace noise.

    Taught in: 07-add-noise-in-practice.ipynb
    """

    figure_id = "NOISE-2"
    title = N_("How many noisy answers land within the tolerance")
    controls = {
        "epsilon": EPSILON.replace(minimum=0.1, maximum=5.0),
        "sensitivity": SENSITIVITY.replace(minimum=0.5, maximum=5.0),
        "tolerance": Control(N_("tolerance"), 0, 20, integer=True, description=N_("allowed error")),
        "answers": Control(
            N_("answers $n$"), 10, 300, integer=True, description=N_("noisy answers")
        ),
    }
    defaults = {"epsilon": 1.0, "sensitivity": 1.0, "tolerance": 5, "answers": 100}
    figsize = (10.0, 3.8)
    true_answer = 3000
    experiments = 1000
    reach = 40
    most_misses = 30

    def _draw(self, rng):
        shape = (self.experiments, self.controls["answers"].maximum)
        self._standard = sample_laplace_inverse_cdf(rng=rng, size=shape)

    def _build_artists(self):
        answers_axes, count_axes = self.figure.subplots(1, 2)
        truth = self.true_answer
        self._edges = np.arange(truth - self.reach - 0.5, truth + self.reach + 1.5)
        self._band = self.moving(
            answers_axes.axvspan(
                truth - 5.5, truth + 5.5, color="0.6", alpha=0.3, label=_("within tolerance")
            )
        )
        self._bars = self.moving(
            answers_axes.stairs(
                np.zeros(len(self._edges) - 1),
                self._edges,
                fill=True,
                color=FIRST_COLOR,
                alpha=0.7,
                label=_("noisy answers (one experiment)"),
            )
        )
        answers_axes.axvline(truth, color=EXACT_COLOR, lw=1, label=_("true answer 3000"))
        answers_axes.set(
            xlim=(truth - self.reach - 0.5, truth + self.reach + 0.5),
            ylim=(0, 1.0),
            xlabel=_("rounded noisy answer"),
            ylabel=_("share of the answers"),
            title=_("one experiment: $n$ rounded noisy answers"),
        )
        # Misses (answers outside the tolerance) on a fixed axis; the last bin holds
        # every count from ``most_misses`` up.
        self._miss_edges = np.arange(self.most_misses + 2) - 0.5
        self._frequency = self.moving(
            count_axes.stairs(
                np.zeros(self.most_misses + 1),
                self._miss_edges,
                fill=True,
                color=FIRST_COLOR,
                alpha=0.45,
                label=_("{experiments} simulated experiments").format(experiments=self.experiments),
            )
        )
        # Probabilities of 0 and 1 lie on the axes' bottom and top: drawn whole there (and
        # kept out of the layout).
        (self._pmf,) = count_axes.plot(
            [],
            [],
            "o",
            color=EXACT_COLOR,
            ms=4,
            label=_("exact binomial probability"),
            clip_on=False,
            in_layout=False,
        )
        self.moving(self._pmf)
        self._shown = self.moving(
            count_axes.axvline(
                0.0, color=SECOND_COLOR, lw=1.5, label=_("the experiment on the left")
            )
        )
        count_axes.set(
            xlim=(-0.5, self.most_misses + 0.5),
            ylim=(0, 1.0),
            xticks=[0, 5, 10, 15, 20, 25, self.most_misses],
            xticklabels=["0", "5", "10", "15", "20", "25", f"≥{self.most_misses}"],
            xlabel=_("answers outside the tolerance (misses)"),
            ylabel=_("probability"),
            title=_("misses over repeated experiments"),
        )
        # Under the axes: the true answer's line runs up the middle of the left one, and
        # the experiment's line moves across the right one.
        legend_below(self.figure, [answers_axes, count_axes], ncols=3)

    def _apply(self, *, epsilon, sensitivity, tolerance, answers):
        epsilon = float(check.positive("epsilon", epsilon))
        sensitivity = float(check.positive("sensitivity", sensitivity))
        tolerance = check.whole("tolerance", tolerance, 0)
        answers = check.whole("answers", answers, 1, self._standard.shape[1])
        scale = sensitivity / epsilon
        noise = np.rint(self._standard[:, :answers] * scale)
        inside = np.abs(noise) <= tolerance
        counts = inside.sum(axis=1)
        probability = within_tolerance_probability(epsilon, sensitivity, tolerance)
        shown = self.true_answer + noise[0]
        histogram = np.histogram(shown, self._edges)[0]
        top = self.most_misses
        misses = np.minimum(answers - counts, top)
        frequency = np.bincount(misses, minlength=top + 1) / self.experiments
        # Misses are Binomial(n, 1 - p); the last point is the whole upper tail.
        pmf = stats.binom.pmf(np.arange(top + 1), answers, 1.0 - probability)
        pmf[top] = stats.binom.sf(top - 1, answers, 1.0 - probability)
        all_inside = float(stats.binom.pmf(answers, answers, probability))
        self._values = dict(
            scale=scale,
            probability=probability,
            shown=int(counts[0]),
            answers=answers,
            mean=float(counts.mean()),
            off_plot=int(np.sum(np.abs(noise[0]) > self.reach)),
            all_inside=all_inside,
            observed_all=float(np.mean(counts == answers)),
        )
        self._band.set_x(self.true_answer - tolerance - 0.5)
        self._band.set_width(2 * tolerance + 1)
        self._bars.set_data(histogram / answers)
        self._frequency.set_data(frequency)
        self._pmf.set_data(np.arange(top + 1), pmf)
        self._shown.set_xdata([misses[0]] * 2)

    def description(self):
        """NOISE-2 in words for a reader who cannot see it, with the current numbers."""
        say, p = self.reader(), self.params
        return _(
            "Left: a histogram of noisy answers to a sum of 3000 (Laplace noise of scale "
            "{scale}, rounded), with the tolerance plus or minus "
            "{tolerance} marked: {within} landed within. "
            "Right: how many answers miss, over many simulated experiments, against the exact "
            "binomial chances; one answer is within with chance {probability}, all "
            "{answers} at once with {all_probability}."
        ).format(
            scale=say("noise scale"),
            tolerance=spoken(p["tolerance"]),
            within=say("this experiment"),
            probability=say("exact $"),
            answers=spoken(p["answers"]),
            all_probability=say("within], exact"),
        )

    def numbers(self):
        """The readout beside NOISE-2: the numbers it shows at the current setting."""
        v = self._values
        return {
            N_(r"noise scale $b = \Delta/\varepsilon$"): v["scale"],
            N_(r"exact $\Pr$[within tolerance]"): v["probability"],
            N_("answers within (this experiment)"): _count_of(v["shown"], v["answers"]),
            N_(r"expected count $n \cdot p$"): v["answers"] * v["probability"],
            N_("mean count over experiments"): v["mean"],
            N_(r"$\Pr$[all $n$ within], exact"): v["all_inside"],
            N_(r"$\Pr$[all $n$ within], simulated"): v["observed_all"],
            N_("answers beyond the plot"): v["off_plot"],
            N_("the post saw"): _count_of(99, 100),
        }


@register
class TwoDimensionalQuery(_SeededExplorer):
    """NOISE-3: a query returning (3000, 10): the same absolute noise on both coordinates.

    Taught in: 07-add-noise-in-practice.ipynb
    """

    figure_id = "NOISE-3"
    title = N_("Two coordinates, one budget: absolute and relative error")
    controls = {
        "epsilon": EPSILON.replace(minimum=0.1, maximum=5.0),
        "share": Control(
            N_("ε share of 2nd"),
            0.05,
            0.95,
            step=0.01,
            description=N_("share of epsilon for the 10"),
        ),
        "sensitivity_first": SENSITIVITY.replace(
            label=N_(r"$\Delta$ of 1st"),
            minimum=0.5,
            maximum=10.0,
            description=N_("sensitivity of the 3000"),
        ),
        "sensitivity_second": SENSITIVITY.replace(
            label=N_(r"$\Delta$ of 2nd"),
            minimum=0.5,
            maximum=10.0,
            description=N_("sensitivity of the 10"),
        ),
    }
    defaults = {"epsilon": 1.0, "share": 0.2, "sensitivity_first": 4.0, "sensitivity_second": 1.0}
    figsize = (11.0, 3.8)
    true_answers = (3000, 10)
    draws = 1000
    reach = 100

    def _draw(self, rng):
        self._standard = sample_laplace_inverse_cdf(rng=rng, size=(2, self.draws))

    def _build_artists(self):
        first_axes, second_axes, error_axes = self.figure.subplots(
            1, 3, width_ratios=[1.2, 1.2, 0.8]
        )
        self._edges = []
        self._bars = []
        for axes, truth, color, name in (
            (first_axes, self.true_answers[0], FIRST_COLOR, _("1st coordinate (true 3000)")),
            (second_axes, self.true_answers[1], SECOND_COLOR, _("2nd coordinate (true 10)")),
        ):
            # Bins of five whole numbers, one centred on the true value.
            edges = np.arange(truth - self.reach - 2.5, truth + self.reach + 3.0, 5.0)
            self._edges.append(edges)
            self._bars.append(
                self.moving(
                    axes.stairs(np.zeros(len(edges) - 1), edges, fill=True, color=color, alpha=0.6)
                )
            )
            axes.axvline(truth, color=EXACT_COLOR, lw=1)
            axes.set(
                xlim=(truth - self.reach, truth + self.reach),
                # A bin 5 wide holds at most all the mass: density <= 1/5.
                ylim=(0, 0.21),
                xlabel=_("rounded noisy answer"),
                ylabel=_("density"),
                title=name,
            )
        second_axes.axvline(0, color=IMPOSSIBLE_COLOR, lw=1, ls=":", label=_("zero"))
        self._interval = self.moving(
            second_axes.axvspan(0, 1, color="0.8", zorder=0.5, label=_("central interval"))
        )
        second_axes.legend(loc="upper right", fontsize=9)
        positions = np.arange(2)
        self._error_bars = list(
            error_axes.bar(
                positions,
                [1e-3, 1e-3],
                bottom=1e-5,
                color=[FIRST_COLOR, SECOND_COLOR],
                alpha=0.6,
                label=_("observed"),
            )
        )
        self.moving(*self._error_bars)
        (self._exact_error,) = error_axes.plot(
            positions, [1e-3, 1e-3], "_", color=EXACT_COLOR, ms=30, mew=2, label=_("exact")
        )
        self.moving(self._exact_error)
        error_axes.set(
            yscale="log",
            ylim=(1e-4, 20),
            xlim=(-0.6, 1.6),
            xticks=positions,
            xticklabels=["3000", "10"],
            ylabel=_("mean $|$error$|$ / true value"),
            title=_("relative error"),
        )
        # The 30-point bar marker is wider than a legend handle: scaled down, it stays
        # in its frame instead of running from the spine into the label.
        error_axes.legend(loc="upper left", fontsize=9, markerscale=0.6)

    def _apply(self, *, epsilon, share, sensitivity_first, sensitivity_second):
        epsilon = float(check.positive("epsilon", epsilon))
        share = float(check.probability_open("share", share))
        sensitivities = (
            float(check.positive("sensitivity_first", sensitivity_first)),
            float(check.positive("sensitivity_second", sensitivity_second)),
        )
        budgets = (epsilon * (1.0 - share), epsilon * share)
        scales = [s / e for s, e in zip(sensitivities, budgets, strict=True)]
        answers = [
            truth + np.rint(scale * noise)
            for truth, scale, noise in zip(self.true_answers, scales, self._standard, strict=True)
        ]
        heights = [
            np.histogram(a, edges)[0] / (a.size * np.diff(edges))
            for a, edges in zip(answers, self._edges, strict=True)
        ]
        exact_error = [
            _mean_abs_rounded_laplace(scale) / truth
            for scale, truth in zip(scales, self.true_answers, strict=True)
        ]
        observed_error = [
            float(np.mean(np.abs(a - truth)) / truth)
            for a, truth in zip(answers, self.true_answers, strict=True)
        ]
        half_width, coverage = central_interval(scales[1])
        second = self.true_answers[1]
        self._values = dict(
            scales=scales,
            budgets=budgets,
            exact_error=exact_error,
            observed_error=observed_error,
            interval=(second - half_width, second + half_width, coverage),
            extremes=(float(answers[1].min()), float(answers[1].max())),
            negative=float(np.mean(answers[1] < 0)),
        )
        for bars, h in zip(self._bars, heights, strict=True):
            bars.set_data(h)
        for bar, error in zip(self._error_bars, observed_error, strict=True):
            bar.set_height(max(error, 1e-5) - 1e-5)
        self._exact_error.set_ydata(exact_error)
        self._interval.set_x(second - half_width - 0.5)
        self._interval.set_width(2 * half_width + 1)

    def description(self):
        """NOISE-3 in words for a reader who cannot see it, with the current numbers."""
        say, p = self.reader(), self.params
        return _(
            "A query returning 3000 and 10 with the budget ε = {epsilon} split "
            "{split}: noise of scale {scales} on the two, so the relative "
            "error is {first_error} on the first and {second_error} on the "
            "second, whose answers run from {answer_range}, a share "
            "{negative} of them below zero."
        ).format(
            epsilon=spoken(p["epsilon"]),
            split=say("spent"),
            scales=say("scale of"),
            first_error=say("1st (exact)"),
            second_error=say("2nd (exact)"),
            answer_range=say("min to max"),
            negative=say("negative"),
        )

    def numbers(self):
        """The readout beside NOISE-3: the numbers it shows at the current setting."""
        v = self._values
        low, high, coverage = v["interval"]
        budgets = f"{v['budgets'][0]:.3g} / {v['budgets'][1]:.3g}"
        central = filled(N_("2nd: central {coverage:.1%}"), coverage=coverage)
        return {
            N_(r"$\varepsilon$ spent on 1st / 2nd"): budgets,
            N_("scale of 1st / 2nd"): f"{v['scales'][0]:.3g} / {v['scales'][1]:.3g}",
            N_("relative error 1st (exact)"): v["exact_error"][0],
            N_("relative error 2nd (exact)"): v["exact_error"][1],
            N_("relative error 2nd (observed)"): v["observed_error"][1],
            central: _span(low, high),
            N_("2nd: observed min to max"): _span(
                f"{v['extremes'][0]:.0f}", f"{v['extremes'][1]:.0f}"
            ),
            N_("2nd: share of negative answers"): v["negative"],
            N_("the post says (2nd)"): _span(2, 16),
        }


#: histplot's two ways of binning: `bins` bins of equal width, or ``discrete=True``.
BINNING = Choice(
    N_("binning"),
    (N_("equal width"), N_("one per integer")),
    description=N_("histplot: bins of equal width, or discrete=True"),
)


@register
class SeabornHistogram(_SeededExplorer):
    """NOISE-4: what seaborn's histplot(stat="density") and kdeplot draw, in place.

    ``binning="equal width"`` is histplot(bins=bins); ``"one per integer"`` is
    histplot(discrete=True), one bin centred on each whole number (``bins`` is then
    unused, and its slider hidden).

    Taught in: 07-add-noise-in-practice.ipynb
    """

    figure_id = "NOISE-4"
    title = N_("Histogram and kernel density of the noisy answers (seaborn's current API)")
    controls = {
        "bins": Control(
            N_("bins"),
            3,
            20,
            integer=True,
            description="histplot bins",
            applies_when={"binning": "equal width"},
        ),
        "binning": BINNING,
        "bw_adjust": Control("bw_adjust", 0.25, 4.0, log=True, description="kdeplot bw_adjust"),
    }
    defaults = {"bins": 10, "binning": "equal width", "bw_adjust": 1.0}
    figsize = (7.0, 3.8)
    answers = 100

    def _draw(self, rng):
        self.data = 3000 + np.rint(sample_laplace_inverse_cdf(rng=rng, size=self.answers))

    def _build_artists(self):
        axes = self.figure.subplots()
        low, high = self.data.min(), self.data.max()
        self._grid = np.linspace(low - 4, high + 4, 400)
        peak = max(
            [np.max(kde_curve(self.data, self._grid, self.controls["bw_adjust"].minimum))]
            + [
                np.max(np.histogram(self.data, bins, density=True)[0])
                for bins in range(3, self.controls["bins"].maximum + 1)
            ]
            + [np.max(np.histogram(self.data, self._discrete_edges(), density=True)[0])]
        )
        self._bars = self.moving(
            axes.stairs(
                [0.0],
                [low, high],
                fill=True,
                color=FIRST_COLOR,
                alpha=0.45,
                label='histplot(stat="density")',
            )
        )
        self._curve = self.moving(
            axes.plot([], [], color=FIRST_COLOR, lw=2, label="kdeplot(bw_adjust=…)")[0]
        )
        axes.set(
            xlim=(self._grid[0], self._grid[-1]),
            ylim=(0, 1.08 * peak),
            xlabel=_("noisy answer (true answer 3000)"),
            ylabel=_("density"),
            title=_(r"100 rounded noisy answers, $\varepsilon = 1$"),
        )
        axes.legend(loc="upper right", fontsize=9)

    def _discrete_edges(self):
        """seaborn's discrete=True: bins of width 1 centred on each whole number."""
        return np.arange(self.data.min() - 0.5, self.data.max() + 1.0)

    def _apply(self, *, bins, binning, bw_adjust):
        bins = check.whole("bins", bins, 1)
        discrete = BINNING.check("binning", binning) == "one per integer"
        bw_adjust = float(check.positive("bw_adjust", bw_adjust))
        heights, edges = np.histogram(
            self.data, self._discrete_edges() if discrete else bins, density=True
        )
        curve = kde_curve(self.data, self._grid, bw_adjust)
        self._bars.set_data(heights, edges)
        self._curve.set_data(self._grid, curve)
        self._bin_width = float(edges[1] - edges[0])
        self._bandwidth = float(self.data.size ** (-0.2) * bw_adjust * self.data.std(ddof=1))

    def description(self):
        """NOISE-4 in words for a reader who cannot see it, with the current numbers."""
        say, p = self.reader(), self.params
        return _(
            "A density histogram of {answers} noisy answers, binned "
            "{binning} with bins {bin_width} wide, and a kernel density curve "
            "of bandwidth {bandwidth} (bw_adjust {bw_adjust}); the "
            "answers take {distinct} distinct values."
        ).format(
            answers=say("answers"),
            binning=_(p["binning"]),
            bin_width=say("bin width"),
            bandwidth=say("bandwidth"),
            bw_adjust=spoken(p["bw_adjust"]),
            distinct=say("distinct"),
        )

    def numbers(self):
        """The readout beside NOISE-4: the numbers it shows at the current setting."""
        return {
            N_("answers"): self.answers,
            N_("bin width"): self._bin_width,
            N_("kernel bandwidth (Scott × bw_adjust)"): self._bandwidth,
            N_("distinct values"): int(np.unique(self.data).size),
        }


@register
class FloatingPointLeak(_SeededExplorer):
    """NOISE-LEAK: doubles from a true answer of 0 that an answer of 1 can never produce.

    Taught in: 07-add-noise-in-practice.ipynb
    """

    figure_id = "NOISE-LEAK"
    title = N_("Floating-point Laplace noise: outputs that reveal the answer")
    controls = {
        "epsilon": EPSILON.replace(minimum=0.25, maximum=4.0),
        "position": Control(
            N_("output near"), -5.0, 10.0, step=0.05, description=N_("where the zoom sits")
        ),
    }
    defaults = {"epsilon": 1.0, "position": 2.0}
    figsize = (11.0, 3.8)
    window = 32
    curve_window = 64
    monte_carlo = 2000

    def _draw(self, rng):
        self._draws = rng.integers(0, floating_point.DRAW_COUNT, size=self.monte_carlo)
        self._by_scale = {}

    def _build_artists(self):
        zoom_axes, share_axes = self.figure.subplots(1, 2)
        self._neighbour = self.moving(
            zoom_axes.plot(
                [], [], "|", color=SECOND_COLOR, ms=14, mew=1, label=_("reachable from answer 1")
            )[0]
        )
        self._possible = self.moving(
            zoom_axes.plot(
                [],
                [],
                "o",
                color=FIRST_COLOR,
                ms=6,
                mfc="none",
                label=_("from 0, also from 1"),
            )[0]
        )
        self._impossible = self.moving(
            zoom_axes.plot(
                [],
                [],
                "X",
                color=IMPOSSIBLE_COLOR,
                ms=7,
                label=_(r"from 0, never from 1 ($\mathcal{L} = \infty$)"),
            )[0]
        )
        zoom_axes.set(
            xlim=(-0.03, 1.03),
            ylim=(-0.6, 2.0),
            yticks=[0, 1],
            yticklabels=[_("answer 1"), _("answer 0")],
            xlabel=_("position inside the window of 32 consecutive outputs from 0"),
            title=_("the doubles each answer can output, zoomed"),
        )
        zoom_axes.legend(loc="upper center", fontsize=9, ncols=2, handletextpad=0.2)
        self._positions = np.linspace(-5.0, 10.0, 46)
        (self._curve,) = share_axes.plot(
            [],
            [],
            color=IMPOSSIBLE_COLOR,
            lw=1.5,
            label=_(r"local share of $\mathcal{L} = \infty$"),
        )
        self.moving(self._curve)
        self._overall = self.moving(
            share_axes.axhline(
                0.5,
                color=EXACT_COLOR,
                ls="--",
                lw=1,
                label=_(r"overall $\Pr[\mathcal{L} = \infty]$"),
            )
        )
        self._marker = self.moving(
            share_axes.axvline(0.0, color="0.5", lw=1, ls=":", label=_("zoom"))
        )
        share_axes.set(
            xlim=(-5, 10),
            ylim=(0, 1.2),
            xlabel=_("output (true answer 0; neighbour 1)"),
            ylabel=_("share of outputs"),
            title=_("outputs from 0 that 1 cannot produce"),
        )
        # Under the axes: the zoom's line crosses every height of this one.
        legend_below(self.figure, [share_axes], columnspacing=1.0, handlelength=1.5)

    def _apply(self, *, epsilon, position):
        epsilon = float(check.positive("epsilon", epsilon))
        position = float(check.finite("position", position))
        scale = 1.0 / epsilon
        start = int(floating_point.first_draw_at_least(0.0, scale, [position])[0])
        start = min(start, floating_point.DRAW_COUNT - self.window)
        window = floating_point.leak_window(scale, start, self.window)
        outputs = window["outputs"]
        low, width = outputs[0], outputs[-1] - outputs[0]
        width = width if width > 0 else 1.0
        # The curve and the estimate depend on epsilon only: keep them while the zoom moves.
        if self._by_scale.get("scale") != scale:
            self._by_scale = {
                "scale": scale,
                "curve": floating_point.impossible_fraction_near(
                    scale, self._positions, self.curve_window
                ),
                "estimate": floating_point.distinguishing_probability(scale, self._draws),
            }
        curve = self._by_scale["curve"]
        overall, error = self._by_scale["estimate"]
        impossible = window["impossible"]
        self._values = dict(
            scale=scale,
            overall=overall,
            error=error,
            impossible=int(impossible.sum()),
            low=float(low),
            high=float(outputs[-1]),
            neighbour=int(window["neighbour_draws"].size),
        )
        relative = (outputs - low) / width
        self._possible.set_data(relative[~impossible], np.ones(np.sum(~impossible)))
        self._impossible.set_data(relative[impossible], np.ones(np.sum(impossible)))
        neighbour = (window["neighbour_outputs"] - low) / width
        self._neighbour.set_data(neighbour, np.zeros(neighbour.size))
        self._curve.set_data(self._positions, curve)
        self._overall.set_ydata([overall, overall])
        self._marker.set_xdata([position, position])

    def description(self):
        """NOISE-LEAK in words for a reader who cannot see it, with the current numbers."""
        say, p = self.reader(), self.params
        return _(
            "Floating-point outputs of Laplace noise (ε = {epsilon}) near "
            "{position}: of the doubles in the window, {impossible} "
            "can come from a true answer of 0 but never from 1, so seeing one gives the "
            "answer away. Such outputs have probability about {probability}, so δ "
            "is at least {delta}."
        ).format(
            epsilon=spoken(p["epsilon"]),
            position=spoken(p["position"]),
            impossible=say("impossible"),
            probability=say("Monte Carlo"),
            delta=say("at least"),
        )

    def numbers(self):
        """The readout beside NOISE-LEAK: the numbers it shows at the current setting."""
        v = self._values
        return {
            N_(r"scale $b = 1/\varepsilon$"): v["scale"],
            INFINITE_LOSS_NAME: v["overall"],
            N_("its standard error"): v["error"],
            N_(r"so $\delta$ is at least"): v["overall"],
            N_("zoom window from"): f"{v['low']:.17g}",
            N_("zoom window to"): f"{v['high']:.17g}",
            N_("window: outputs impossible from 1"): _count_of(v["impossible"], self.window),
            N_("draws of 1 landing in the window"): v["neighbour"],
        }


def _count_of(count, total):
    """The readout's "count of total" (a value, in the current language)."""
    return _("{count} of {total}").format(count=count, total=total)


def _span(low, high):
    """The readout's "low to high" (a range of values, in the current language)."""
    return _("{low} to {high}").format(low=low, high=high)


def _mean_abs_rounded_laplace(scale):
    """E|rint(X)| for X ~ Lap(scale): sum over k >= 1 of P[|X| >= k - 1/2]."""
    # A geometric series: the sum of exp(-(k - 1/2) / b) is exp(-1/(2b)) / (1 - exp(-1/b)).
    return float(np.exp(-0.5 / scale) / -np.expm1(-1.0 / scale))
