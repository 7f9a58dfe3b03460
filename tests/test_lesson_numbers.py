"""Numbers written into the prose of lessons 00, 02, 04, 06, 07 and 10 to 14 are the numbers the
package computes.

Each claim recomputes one number (from the core, or a figure's own constant) and formats it
the way the sentence writes it; the test finds that sentence in the lesson's markdown, so a
change of the data, a calibration or a figure that makes the prose wrong fails here.
A comparative claim ("faster than q", "within half a percent") is asserted on the numbers
before the sentence that makes it is looked for.
"""

import math
import pathlib
import re

import nbformat
import numpy as np
import pytest

from dplearn import (
    accounting,
    attacks,
    calibration,
    composition,
    datasets,
    mechanisms,
    privacy_loss,
    sensitivity,
    sparse_vector,
    subsampling,
    training,
)
from dplearn import randomized_response as local
from dplearn.figures import gaussian, intro, many_queries, noise, plrv
from dplearn.figures import training as training_figures

ROOT = pathlib.Path(__file__).resolve().parents[1]


def markdown(prefix):
    (path,) = (ROOT / "notebooks").glob(f"{prefix}-*.ipynb")
    nb = nbformat.read(path, as_version=4)
    text = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    return re.sub(r"\s+", " ", text)


def replace_local(upper):
    query = lambda rows: sensitivity.clipped_age_sum(rows, upper=upper)  # noqa: E731
    return sensitivity.local_sensitivity(query, notion="replace").l1


def oldest_age(rows):
    return max((row.age for row in rows), default=0)


def lesson02():
    # PLRV-8's two outputs: e^L at their probability positions, Gaussian noise of sigma^2 = 3.
    loss = privacy_loss.gaussian(plrv.GAUSSIAN_SIGMA, 1.0)
    odds = [float(np.exp(loss.loss_quantile(position))) for position in plrv.BAD_POSITIONS]
    assert 1.9 < odds[1] / odds[0] < 2.1, odds
    return [
        f"$O_1$ at probability position $x = {plrv.BAD_POSITIONS[0]:g}$",
        f"$O_2$ at $x = {plrv.BAD_POSITIONS[1]:g}$",
        f"it moves the odds by a factor of {odds[0]:.2f}, against $e^{{\\varepsilon}} = 3$",
        f"$O_2$ moves them by {odds[1]:.2f}, twice as much",
    ]


def lesson04():
    ages = sorted({row.age for row in sensitivity.TOY_UNIVERSE})
    data_ages = [row.age for row in sensitivity.TOY_DATA]
    add_remove = len(list(sensitivity.neighbours(sensitivity.TOY_DATA, notion="add-remove")))
    replace = len(list(sensitivity.neighbours(sensitivity.TOY_DATA, notion="replace")))
    # The largest c at which the replace panel still reaches c.
    full = max(c for c in range(15, 91) if replace_local(c) == c)
    assert all(replace_local(c) < c for c in range(full + 1, 91))
    local = {
        notion: sensitivity.local_sensitivity(oldest_age, notion=notion).l1
        for notion in ("add-remove", "replace")
    }
    assert len(set(local.values())) == 1
    overall = sensitivity.global_sensitivity(oldest_age, notion="replace", max_rows=2).l1
    histogram = {
        notion: sensitivity.global_sensitivity(
            sensitivity.eye_colour_histogram, notion=notion, max_rows=2
        ).l1
        for notion in ("add-remove", "replace")
    }
    return [
        f"any of {len(sensitivity.TOY_UNIVERSE)} possible people",
        f"(ages {ages[0]} to {ages[-1]})",
        f"the {add_remove} neighbours that add or remove a row; right: the {replace} that replace",
        rf"With $c \le {full}$ the largest bar is $c$",
        f"nobody younger than {min(data_ages)} or older than {max(data_ages)}",
        f"The local value is {local['replace']:g} (a {ages[-1]}-year-old joins a data set whose"
        f" oldest is {max(data_ages)}); the global one is {overall:g}.",
        f"$\\ell_1$ sensitivity {histogram['add-remove']:g} (add/remove) or"
        f" {histogram['replace']:g} (replace)",
    ]


def lesson06():
    crossing = calibration.classic_crossing_epsilon(1e-5)
    slider = gaussian.GaussianCalibration.controls["delta"]
    # The crossing over the delta slider: 60 settings, its two ends among them.
    crossings = np.array(
        [
            calibration.classic_crossing_epsilon(float(target))
            for target in np.geomspace(slider.minimum, slider.maximum, 60)
        ]
    )
    waste = calibration.gaussian_sigma_classic(0.05, 0.1) / calibration.gaussian_sigma_analytic(
        0.05, 0.1
    )
    assert waste > 10, waste
    assert calibration.classic_crossing_epsilon(1e-12) < 15
    return [
        f"holds up to $\\varepsilon \\approx {crossing:.1f}$ at this $\\delta$",
        f"between about {crossings.min():.1f} and {crossings.max():.1f} over the whole slider",
        r"(more than $10\times$ at $\varepsilon = 0.05$, $\delta = 0.1$)",
        f"(about {crossing:.1f} at $\\delta = 10^{{-5}}$",
        f"{gaussian.DimensionNoise.samples} random draws of each noise",
        "set $\\delta = 10^{-12}$ and $\\varepsilon = 15$: the readout says the classic",
    ]


def lesson07():
    p_within = mechanisms.within_tolerance_probability(epsilon=1, sensitivity=1, tolerance=5)
    assert abs((1 - p_within**100) - 1 / 3) < 0.01
    return [
        f"The figure draws {noise.InverseCdfSampling.controls['samples'].maximum:,}".replace(
            ",", " "
        ),
        f"repeats the experiment {noise.OneDimensionalQuery.experiments} times",
        "a third of all runs miss at least once",
        f"zooms on {noise.FloatingPointLeak.window} consecutive outputs",
        f"{p_within:.4f} in the post's setting",
    ]


def lesson12():
    from dplearn import composition, selection, zcdp
    from dplearn.figures import selection as selection_figures

    bounded = zcdp.to_epsilon(100 * zcdp.bounded_range_rho(0.1), 1e-6)
    pair = selection.loss_pair([0.0, 0.0], [-1.0, 1.0], 0.1, "gumbel")
    assert composition.compose(pair, 100).epsilon_for_delta(1e-6) < bounded
    lengths = datasets.sepal_lengths()
    candidates = selection_figures.CANDIDATES
    # Where the two medians' errors cross: between 0.04 and 0.05.
    low, high = (selection_figures.median_errors(e)[:2] for e in (0.04, 0.05))
    assert low[0] > low[1] and high[0] < high[1]
    claims = [
        f"That one pair needs less than the bounded-range ${bounded:.2f}$",
        f"all {candidates.size} counts",
        f"the {lengths.size} iris flowers",
        f"median {np.median(lengths):.1f} cm",
        f"from {candidates[0]:.1f} to {candidates[-1]:.1f} cm by 0.1 cm",
        f"over {selection_figures.HISTOGRAM_DRAWS:,} seeded draws",
        "wins from $\\varepsilon \\approx 0.05$ up",
    ]
    return claims + _lesson12_accuracy() + _lesson12_try_it() + _lesson12_histogram_bias()


def _lesson12_accuracy():
    """The accuracy theorem's numbers, and the overflow the floating-point paragraph shows."""
    from dplearn import selection

    bound = {m: selection.accuracy_bound(m, 1.0, 0.05) for m in (5, 50, 500, 5000)}
    best = {m: selection.exponential_mechanism([30.0] + [20.0] * (m - 1), 1.0)[0] for m in bound}
    assert bound[50] - bound[5] == pytest.approx(2 * math.log(10))
    with np.errstate(over="ignore", invalid="ignore"):
        weights = np.exp(10 * np.array([1e4, 1e4 - 0.5, 0.0]) / 2)
        naive = weights / weights.sum()
    assert np.isnan(naive[:2]).all() and naive[2] == 0 and np.isinf(weights[:2]).all()
    return [
        f"its five candidates, ${bound[5]:.2f}$ at $\\varepsilon = 1$ and $\\beta = 5\\,\\%$",
        f"$(2\\Delta u/\\varepsilon)\\ln 10$, ${bound[50] - bound[5]:.2f}$ at $\\varepsilon = 1$",
        f"falls from ${best[50]:.3f}$ to ${best[5000]:.3f}$",
        f"the bound, ${bound[5000]:.2f}$ at $m = 5000$",
    ]


def _lesson12_try_it():
    """SEL-1's Try it: the monotone exponent, and the tie it cannot break."""
    from dplearn import selection

    general = selection.exponential_mechanism([30, 28, 20, 12, 10], 1.0)
    monotone = selection.exponential_mechanism([30, 28, 20, 12, 10], 1.0, monotone=True)
    tie = selection.exponential_mechanism([30, 30, 20, 12, 10], 1.0)
    tie_monotone = selection.exponential_mechanism([30, 30, 20, 12, 10], 1.0, monotone=True)
    assert tie_monotone[2] < 1e-4 and tie_monotone[0] == tie_monotone[1]
    return [
        f"chance rises from ${general[0]:.4f}$ to ${monotone[0]:.4f}$",
        f"each picked\n  with probability ${tie[0]:.4f}$",
        f"chance falls from ${tie[2]:.4f}$ to below $0.0001$, and the two best share the rest, "
        f"${tie_monotone[0]:.4f}$ each",
    ]


def _lesson12_histogram_bias():
    """Why SEL-5's histogram median lands high: the clipped noise's mass, side by side."""
    from dplearn import selection
    from dplearn.figures import selection as selection_figures

    lengths = datasets.sepal_lengths()
    grid, median = selection_figures.CANDIDATES, float(np.median(lengths))
    counts, means = selection.clipped_histogram_means(lengths, grid, 0.2)
    added = means - counts
    middle = grid[np.argmax(np.cumsum(means) >= means.sum() / 2)]
    steps = selection_figures.histogram_law(0.2)
    law = selection.quantile_probabilities(lengths, grid, 0.2)
    assert grid[np.argmax(law)] == median
    return [
        f"at {grid[np.argmax(steps)]:.1f} cm at the opening $\\varepsilon = 0.2$",
        f"The flowers run from {lengths.min():.1f} to {lengths.max():.1f} cm, the grid from "
        f"{grid[0]:.1f} to {grid[-1]:.1f} cm: it has {(grid > median).sum()} candidates above the "
        f"true median and {(grid < median).sum()} below",
        f"grid's middle, {(grid[0] + grid[-1]) / 2:.2f} cm",
        f"an empty bin gains $1/(2\\varepsilon)$, {means[counts == 0][0]:.1f} at "
        "$\\varepsilon = 0.2$",
        f"adds {added.sum():.1f} counts' worth of noise to {lengths.size} flowers, "
        f"{added[grid > median].sum():.1f} above the median against "
        f"{added[grid < median].sum():.1f} below: the median of the mean counts moves to "
        f"{middle:.1f} cm",
        f"its law is centred on {median:.1f} cm",
    ]


def _power_of_ten(value):
    """value as the prose writes it: $8.579 \\times 10^{-5}$."""
    mantissa, exponent = f"{value:.3e}".split("e")
    return f"${mantissa} \\times 10^{{{int(exponent)}}}$"


def _sparse_side(ratio):
    """MANY-5's readout words for answering all's noise / Sparse's (figures' own helper)."""
    return many_queries._compared(ratio)


def lesson13():
    law = sparse_vector.above_threshold_probabilities([1, 3, 8, 2, 12], 10, 1)
    quoted = ["0.06841", "0.0965", "0.26448", "0.03583", "0.31492", "0.21985"]
    assert [f"{value:.5f}".rstrip("0") for value in law] == [q.rstrip("0") for q in quoted]
    sigma = calibration.gaussian_sigma_analytic(1, 1e-6)
    chain = composition.group_privacy(1, 1e-6, 5)[1]
    loose = composition.group_privacy_loose(1, 1e-6, 5)[1]
    exact = composition.gaussian_group_delta(sigma, 5, 1)
    no_stop = sparse_vector.worst_losses("no stop", 1.0)
    released = sparse_vector.worst_losses("released answer", 1.0)
    # MANY-2's Try it: epsilon = 2, g = 10, the chain's sum as it is (not capped at 1).
    chain_past_one = composition.group_privacy(2, 1e-6, 10, capped=False)[1]
    assert chain_past_one > 1 and composition.group_privacy(2, 1e-6, 10)[1] == 1
    exact_past_one = composition.gaussian_group_delta(
        calibration.gaussian_sigma_analytic(2, 1e-6), 10, 2
    )
    # The no-answer-noise pair at m = 1: D1 = (1), D2 = (0), T = 0.5, outcome "stop at 1".
    pair = sparse_vector.counterexample("no answer noise", 1)
    assert (pair.answers.tolist(), pair.neighbour_answers.tolist(), pair.threshold) == (
        [1.0],
        [0.0],
        0.5,
    )
    on_first = sparse_vector.no_answer_noise_probabilities(pair.answers, 0.5, 1.0)[0]
    on_second = sparse_vector.no_answer_noise_probabilities(pair.neighbour_answers, 0.5, 1.0)[0]
    assert on_first == pytest.approx(1 - math.exp(-0.25) / 2, rel=1e-14)
    one_query = sparse_vector.worst_loss("no answer noise", 1, 1.0)
    assert one_query == pytest.approx(math.log(on_first / on_second), rel=1e-14) and one_query < 0.5
    # MANY-4's Try it: the claimed epsilon at the slider's ends, 0.1 and 3.
    ends = {}
    for epsilon in (0.1, 3.0):
        units = sparse_vector.worst_losses("no stop", epsilon) / epsilon
        in_units = sparse_vector.worst_losses("released answer", epsilon) / epsilon
        assert int(np.argmax(in_units > 1)) + 1 == 6
        assert np.allclose(in_units, released, rtol=1e-15)  # (m - 1) / 4 whatever epsilon
        ends[epsilon] = (int(np.argmax(units > 1)) + 1, units[19])
    scales = sparse_vector.sparse_noise_scales(1000, 5, 1.0)
    # MANY-5's Try it at m = 100: where each of Sparse's noises passes answering all's.
    small = [sparse_vector.sparse_noise_scales(100, c, 1.0) for c in range(1, 101)]
    first_noisier = [
        next(c for c, s in enumerate(small, 1) if getattr(s, field) > s.all_answers)
        for field in ("comparison_when_publishing", "comparison", "released")
    ]
    assert first_noisier == [13, 26, 51]
    at_all = small[-1]
    # MANY-5's crosses: where each of Sparse's noises meets answering all's, as a share of m.
    large = [sparse_vector.sparse_noise_scales(1000, c, 1.0) for c in range(1, 1001)]
    meets = {
        field: 1000 // next(c for c, s in enumerate(large, 1) if getattr(s, field) >= s.all_answers)
        for field in ("comparison", "comparison_when_publishing", "released")
    }
    # Replace-one neighbours: a person moves between two bins, sensitivity 2.
    replace_one = composition.count_noise_scales(1.0, 10, sensitivity=2).disjoint
    return [
        f"$2\\varepsilon$-DP, and for $\\varepsilon$ in all each bin needs"
        f" $\\mathrm{{Lap}}({replace_one:g}/\\varepsilon)$",
        f"winning: $c = m/{meets['comparison']}$ on the left; $c = m/"
        f"{meets['comparison_when_publishing']}$ (its search) and $c = m/{meets['released']}$",
        ", ".join(f"${q}$" for q in quoted[:5]) + f" and ${quoted[5]}$",
        f"the chain gives {_power_of_ten(chain)}, the often-quoted bound {_power_of_ten(loose)}",
        f"exact $\\delta$ is {_power_of_ten(exact)}, ${chain / exact:.3f}$ times below the chain",
        f"passes it from $m = {int(np.argmax(no_stop > 1)) + 1}$ on and reaches "
        f"${no_stop[19]:.3f}$ at $m = 20$ and ${no_stop[49]:.2f}$ at $m = 50$",
        f"passes it from $m = {int(np.argmax(released > 1)) + 1}$ on and reaches "
        f"${released[49]:.2f}$ at $m = 50$",
        f"$\\alpha$ is ${sparse_vector.above_threshold_accuracy(1000, 0.05, 1.0):.2f}$",
        f"by the chain is ${chain_past_one:.2f}$, in the hatched band above 1",
        f"the Gaussian's exact $\\delta$, ${exact_past_one:.4g}$, is still a guarantee",
        f"At $\\varepsilon = 1$ that is ${on_first:.4f}$ against ${on_second:.4f}$, a loss of"
        f" ${one_query:.4f}$ nats",
        f"past 1 from $m = {int(np.argmax(released > 1)) + 1}$ on whatever $\\varepsilon$ is",
        f"at $\\varepsilon = 0.1$ it passes its $\\varepsilon$ from $m = {ends[0.1][0]}$ on and"
        f" reaches ${ends[0.1][1]:.3f}$ at $m = 20$ (the readout's $m$), at $\\varepsilon = 3$ from"
        f" $m = {ends[3.0][0]}$ on and ${ends[3.0][1]:.3f}$.",
        f"Sparse finds the positives with noise of scale {scales.comparison:g} against"
        f" {scales.all_answers:g}, {_sparse_side(scales.all_answers / scales.comparison)}".replace(
            " times smaller", " times less"
        ),
        f"publishes their answers with {scales.released:g} against {scales.all_answers:g},"
        f" {_sparse_side(scales.all_answers / scales.released)}".replace(
            " times smaller", " times less"
        ),
        f"from $c = {first_noisier[0]}$ Sparse's search at $\\varepsilon/2$ is noisier than"
        f" answering all 100, past $c = {first_noisier[1] - 1}$ so is its search with the whole"
        f" $\\varepsilon$, and past $c = {first_noisier[2] - 1}$ the answers it publishes",
        f"carry {_sparse_side(at_all.all_answers / at_all.comparison)}".replace(
            " times larger", " times more"
        )
        + " noise and its published answers "
        + _sparse_side(at_all.all_answers / at_all.released).replace(
            " times larger", " times more"
        ),
    ]


def _recovered(noise_bound):
    """INTRO-2's share of bits recovered at E, the mean over the lesson's five attacks."""
    return attacks.mean_fraction_recovered(
        intro.RECONSTRUCTION_N, intro.RECONSTRUCTION_M, noise_bound, intro.RECONSTRUCTION_SEEDS
    )


def lesson00():
    root_n = math.sqrt(intro.RECONSTRUCTION_N)
    shares = {bound: _recovered(bound) for bound in (0.5, root_n / 2, root_n, 4 * root_n)}
    # The order the prose tells: all, most, barely more than guessing's half.
    assert shares[0.5] == 1.0
    assert shares[0.5] > shares[root_n / 2] > shares[root_n] > shares[4 * root_n] > 0.5
    assert shares[4 * root_n] < 0.6  # "little better than guessing"
    ratio = local.local_standard_error(0.3, 1000, 0.75) / local.central_standard_error(
        1000, math.log(3)
    )
    people = ratio**2 * 1000
    # INTRO-1's draw: the factor on Alice's odds is within e^(+-epsilon), the band e^(2 epsilon).
    epsilon = intro.DOCUMENT_EPSILON
    noise_draw = np.array(intro.DifferencingAttack.NOISE) / epsilon
    difference = 1 + noise_draw[0] - noise_draw[1]
    factor = math.exp(attacks.differencing_log_ratio(difference, epsilon))
    assert math.exp(-epsilon) <= factor <= math.exp(epsilon)
    return [
        f"still let it get {shares[root_n]:.0%} of".replace("%", " %"),
        f"it takes $E = {4 * root_n:g}$ to bring it down to {shares[4 * root_n]:.0%}".replace(
            "%", " %"
        ),
        f"off by up to $\\sqrt{{n}} = {root_n:g}$",
        f"$\\sqrt{{n}}/2$ it still gets {shares[root_n / 2]:.0%} of them, off by up to"
        f" $\\sqrt{{n}}$ {shares[root_n]:.0%},".replace("%", " %"),
        f"$E = 4\\sqrt{{n}}$ it gets {shares[4 * root_n]:.0%})".replace("%", " %"),
        f"the ratio printed above times as many people: about {round(people, -4):,.0f}".replace(
            ",", " "
        ),
        "and her factor stays within $e^{\\pm\\varepsilon}$",
    ]


def lesson10():
    gaussian_mechanism = privacy_loss.gaussian(1.0)
    rates = (1.0, 0.1, 0.01, 0.001)
    epsilons = [
        subsampling.poisson(gaussian_mechanism, rate).epsilon_for_delta(1e-5) for rate in rates
    ]
    drops = [epsilons[i] / epsilons[i + 1] for i in range(3)]
    # "slowly at first and then faster than q itself": each tenfold cut divides epsilon by
    # more than the last, the first two by less than 10, the third by more.
    assert drops[0] < drops[1] < drops[2]
    assert drops[1] < 10 < drops[2]
    # The add side's bound -ln(1 - q): finite below q = 1, infinite at q = 1.
    assert math.isinf(subsampling.poisson(gaussian_mechanism, 1.0).add.max_loss)
    assert math.isfinite(subsampling.poisson(gaussian_mechanism, 0.999).add.max_loss)
    return [
        f"divides $\\varepsilon$ by {drops[0]:.1f}, the second by {drops[1]:.1f}, the third,"
        f" from 0.01 to 0.001, by {drops[2]:.1f}.",
        "For $q < 1$ the add side's loss is bounded, by $-\\ln(1 - q)$; at $q = 1$ it is not",
    ]


def lesson11():
    rate = 256 / 60000
    one_epoch = training.steps_for_epochs(1, rate)
    assert one_epoch == math.ceil(60000 / 256) == 235 and 60000 // 256 == 234
    # SGD-4's readout names its grid width; the prose says the same, and that it is
    # within half a percent of h = 1e-4 at the lesson's setting of SGD-4.
    (readout,) = [name for name in training_figures.TrainingRun().numbers() if "by PLD" in name]
    assert training_figures.CURVE_GRID_WIDTH == 1e-3 and "10^{-3}" in readout
    q = 32 / 427
    for epochs in (1, 10, 30):
        steps = training.steps_for_epochs(epochs, q)
        coarse = accounting.dp_sgd_epsilon(q, 4.0, steps, 1e-5, grid_width=1e-3)
        fine = accounting.dp_sgd_epsilon(q, 4.0, steps, 1e-5)
        assert fine <= coarse <= fine * 1.005, (epochs, coarse, fine)
    return [
        f"one epoch is $1/q = {1 / rate:g}$ steps",
        f"$\\lceil E/q \\rceil$ steps, {one_epoch} for one epoch",
        f"$\\lfloor 60000/256 \\rfloor = {60000 // 256}$ steps per epoch (it rounds"
        f" $1/q = {1 / rate:g}$ down",
        "it uses a coarser grid, $h = 10^{-3}$ (the readout says so): still pessimistic, and"
        " within half a percent of $h = 10^{-4}$",
    ]


def _percent(value, digits):
    """A rate as the prose writes it in per cent: 2.12 %."""
    return f"{100 * value:.{digits}f} %"


def lesson14():
    from dplearn import auditing
    from dplearn.figures import auditing as auditing_figures
    from dplearn.figures import training as training_figures_seeds

    mnist = auditing_figures.MNIST_RUN
    at_one_percent = {e: auditing.max_true_positive_rate(e, 1e-5, 0.01) for e in (1, 2.38, 4, 8)}
    mnist_run = auditing.dp_sgd_max_true_positive_rate(*mnist, 0.01)
    mnist_epsilon = accounting.dp_sgd_epsilon(*mnist, 1e-5)
    low_region = auditing.max_true_positive_rate(0.1, 1e-5, 0.01)
    # The largest epsilon at which the run's curve shows above the region within MIA-1's
    # axes (from alpha = 0.1 %): at their left edge, where e^epsilon alpha + delta binds.
    shown = np.geomspace(1e-3, 1.0, 400)
    mnist_curve = auditing.dp_sgd_max_true_positive_rate(*mnist, shown)
    visible = math.log((mnist_curve[0] - 1e-5) / 1e-3)
    for epsilon, outside in ((visible - 0.005, True), (visible + 0.005, False)):
        above = mnist_curve > auditing.max_true_positive_rate(epsilon, 1e-5, shown) * (1 + 1e-9)
        assert above.any() == outside, epsilon
    mnist_run_precise = float(mnist_run)
    assert mnist_run_precise > low_region  # outside the region at epsilon = 0.1
    run = auditing.LESSON11_RUN
    steps = auditing_figures.LESSON11_STEPS
    epsilon = auditing_figures.lesson11_epsilon()
    curve = {
        a: float(
            auditing.dp_sgd_max_true_positive_rate(
                run.sampling_rate, run.noise_multiplier, steps, a
            )
        )
        for a in (0.01, 0.1)
    }
    strongest, black_box = auditing_figures.strongest_scores(), auditing_figures.black_box_scores()
    strong = {a: auditing.true_positive_rate_at(strongest, a) for a in (0.01, 0.1)}
    assert all(strong[a] < curve[a] for a in strong)  # "below the curve"
    black = {a: auditing.true_positive_rate_at(black_box, a) for a in (0.01, 0.1)}
    # Yeom et al.'s attack on lesson 11's two breast cancer models, with its seeds.
    data = training.breast_cancer(rng=np.random.default_rng(training_figures_seeds.SPLIT_SEED))
    setting = dict(sampling_rate=32 / data.size, epochs=30, learning_rate=0.5)
    seed = training_figures_seeds.RUN_SEED
    plain = training.non_private_sgd(data, rng=np.random.default_rng(seed), **setting)
    private = training.dp_sgd(
        data, noise_multiplier=4.0, clip_norm=1.0, rng=np.random.default_rng(seed), **setting
    )
    yeom = {}
    for name, model in (("plain", plain), ("private", private)):
        losses = auditing.loss_threshold_scores(model.weights, data)
        mean_loss = -losses.members.mean()
        tp, fn, fp, tn = auditing.audit_counts(losses, -mean_loss)
        yeom[name] = (mean_loss, -losses.non_members.mean(), tp / (tp + fn), fp / (fp + tn))
    loss, test_loss, tpr, fpr = yeom["plain"]
    private_advantage = yeom["private"][2] - yeom["private"][3]
    private_fpr = yeom["private"][3]
    # Two standard errors of the private model's false-positive rate over the test set.
    spread = 2 * math.sqrt(private_fpr * (1 - private_fpr) / data.test_labels.size)
    assert abs(private_advantage) < 1.1 * spread
    # MIA-4: where the curve's best point proves the accountant's epsilon.
    alphas = np.geomspace(1e-7, 0.5, 2000)
    caps = auditing.dp_sgd_max_true_positive_rate(
        run.sampling_rate, run.noise_multiplier, steps, alphas
    )
    limits = np.log(np.maximum(caps - 1e-5, 1e-300) / alphas)
    assert round(float(limits.max()), 3) == round(epsilon, 3)
    assert round(float(alphas[np.argmax(limits)]) * 1e5) == 2
    one_run = auditing_figures.seeded_one_run()
    at_delta = auditing.one_run_epsilon_lower_bound(
        one_run.guesses, one_run.correct, 1e-5, canaries=one_run.canaries
    )
    return [
        f"$\\varepsilon = {epsilon:.3f}$ at $\\delta = 10^{{-5}}$. The question",
        f"{steps} steps",
        f"accountant reports $\\varepsilon = {mnist_epsilon:.2f}$ at $\\delta = 10^{{-5}}$, so",
        f"the region allows {low_region:.5f}, the run {mnist_run_precise:.5f}",
        f"below {visible:.2f} (at",
        f"between {visible:.2f} and {mnist_epsilon:.2f} the curve leaves the region only at",
        f"it finds at most {100 * at_one_percent[1]:.1f} %",
        f"the region allows about {100 * at_one_percent[2.38]:.0f} %",
        f"allows only about {100 * mnist_run_precise:.0f} % at 1 %",
        f"{at_one_percent[1]:.4f}, {at_one_percent[2.38]:.4f}, {at_one_percent[4]:.3f} and "
        f"{at_one_percent[8]:.4f} for $\\varepsilon$ = 1",
        f"the run's trade-off curve and the region of its $(\\varepsilon, 10^{{-5}})$, "
        f"$\\varepsilon = {epsilon:.3f}$",
        f"$T = {steps}$ steps",
        f"at 1 % it finds {_percent(strong[0.01], 2)} of the members where the curve allows "
        f"{_percent(curve[0.01], 2)}",
        f"at 1 % it finds {_percent(black[0.01], 2)} of the members where the curve allows "
        f"{_percent(curve[0.01], 2)}, at 10 % {_percent(black[0.1], 1)} where the curve "
        f"allows {_percent(curve[0.1], 1)}",
        f"its mean loss is {loss:.3f} on the training examples and {test_loss:.3f} on the test",
        f"calls {_percent(tpr, 1)} of the members and {_percent(fpr, 1)} of the non-members",
        f"an advantage of ${tpr - fpr:.3f}$",
        f"model's ${private_advantage:+.3f}$ is no leak",
        f"uncertain by about $\\pm {spread:.2f}$ (two standard errors)",
        f"the {data.size} training examples, the non-members the {data.test_labels.size} held-out",
        f"grows from 32 to about {run.sampling_rate * (data.size + one_run.canaries / 2):.0f}",
        f"so it is the same ${epsilon:.3f}$ at",
        f"right {one_run.correct} times in {one_run.guesses}",
        f"the bound is ${one_run.epsilon:.3f}$ at $\\delta = 0$",
        f"with $m = {one_run.canaries:,}$ canaries: ${at_delta:.3f}$".replace(",", "{,}"),
        f"prove $\\varepsilon \\ge {auditing.one_run_epsilon_lower_bound(100, 80):.3f}$",
        "at a false-positive rate of about two in a hundred thousand",
    ]


@pytest.mark.parametrize(
    ("prefix", "claims"),
    [
        ("00", lesson00),
        ("02", lesson02),
        ("04", lesson04),
        ("06", lesson06),
        ("07", lesson07),
        ("10", lesson10),
        ("11", lesson11),
        ("12", lesson12),
        ("13", lesson13),
        ("14", lesson14),
    ],
)
def test_prose_numbers_are_computed(prefix, claims):
    text = markdown(prefix)
    missing = [claim for claim in claims() if re.sub(r"\s+", " ", claim) not in text]
    assert not missing, f"lesson {prefix}: the prose does not say {missing}"
