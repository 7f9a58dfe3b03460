"""Exercises of lesson 16, "Release a histogram, then synthetic data": the error of a range
from the noisy histogram and from the binary tree, the bias of a count clipped at 0 and
what it does to a total, MWEM's selection probabilities, its Laplace scale and budget
(basic composition and zCDP), and which strategy wins on all ranges.

References and anticipated mistakes are computed with ``dplearn.query_release`` and
``dplearn.zcdp`` when an answer is checked; the settings differ from the lesson's printed
ones, so that its numbers are no answers.

Taught in: 16-release-a-histogram-then-synthetic-data.ipynb
"""

import math

import numpy as np

from dplearn import query_release as qr
from dplearn import zcdp
from dplearn.exercises import choice, function, mistake, number

# histogram-range and tree-range: the range [5, 27) of 22 bins among d = 32, epsilon = 0.5.
_BINS, _START, _END, _RANGE_EPSILON = 32, 5, 27, 0.5
# clipped-count: a true count c = 3 with Laplace noise of scale b = 2, clipped at 0.
_COUNT, _CLIP_SCALE = 3.0, 2.0
# empty-cells: 1,500 empty cells and 500 cells of count 4, Laplace scale 4 (epsilon = 0.25).
_EMPTY, _FULL, _FULL_COUNT, _TABLE_SCALE = 1500, 500, 4.0, 4.0
# mwem-selection: h on d = 4 bins (n = 80), A_1 uniform, all 10 ranges, epsilon = 1, T = 2.
_HISTOGRAM, _SELECTION_EPSILON, _SELECTION_ROUNDS = (30, 5, 10, 35), 1.0, 2
# mwem-rho: epsilon = 2 over T = 10 rounds.
_RHO_EPSILON, _RHO_ROUNDS = 2.0, 10
# mwem-epsilon: epsilon = 1 over T = 40 rounds, converted at delta = 1e-6.
_LONG_EPSILON, _LONG_ROUNDS, _DELTA = 1.0, 40, 1e-6


def _range_index(bins, start, end):
    """The row of the range [start, end) in ``range_workload(bins)``."""
    return start * bins - start * (start - 1) // 2 + (end - start - 1)


def _histogram_error():
    """The squared error of the range summed from bins with Laplace noise of scale 1/ε."""
    row = qr.range_workload(_BINS)[_range_index(_BINS, _START, _END)]
    return qr.workload_error(row[None, :], np.eye(_BINS), _RANGE_EPSILON)


def _cover(bins, start, end):
    """The tree's nodes (rows of ``tree_strategy``) inside [start, end) whose parent is not."""
    inside = [np.all(row[:start] == 0) and np.all(row[end:] == 0) for row in qr.tree_strategy(bins)]
    return [
        node
        for node, found in enumerate(inside)
        if found and not (node and inside[(node - 1) // 2])
    ]


def _tree_error(sensitivity, nodes=None):
    """Nodes times the variance 2 (Δ/ε)² of one node's Laplace noise."""
    if nodes is None:
        nodes = len(_cover(_BINS, _START, _END))
    return nodes * 2.0 * (sensitivity / _RANGE_EPSILON) ** 2


def _table_inflation(bias):
    """The expected inflation of the table's total when each cell of count c is off by bias(c)."""
    return _EMPTY * bias(0.0) + _FULL * bias(_FULL_COUNT)


def _picked(epsilon):
    """Round 1's probability of picking the range [1, 3) at the selection's budget epsilon."""
    histogram = np.asarray(_HISTOGRAM, dtype=float)
    synthetic = np.full(histogram.size, histogram.sum() / histogram.size)
    probabilities = qr.mwem_selection_probabilities(
        histogram, synthetic, qr.range_workload(histogram.size), epsilon
    )
    # The range [1, 3): the 2nd and 3rd bins.
    return probabilities[_range_index(histogram.size, 1, 3)]


def _round_rho(epsilon_round):
    """One round's rho: the exponential mechanism (bounded range) plus the Laplace measurement."""
    return zcdp.bounded_range_rho(epsilon_round) + zcdp.pure_rho(epsilon_round)


def _converted(rho):
    """Bun & Steinke's conversion of rho-zCDP to epsilon at delta = 1e-6."""
    return zcdp.simple_epsilon(rho, _DELTA)


EXERCISES = [
    number(
        "16.histogram-range",
        title="A range from the noisy histogram",
        question=(
            "A histogram of $d = 32$ bins is released with Laplace noise of scale "
            "$1/\\varepsilon$ on every bin, $\\varepsilon = 0.5$ (one record changes one bin "
            "by 1). The range of the 22 bins $5, 6, \\dots, 26$ (counted from 0) is answered "
            "by summing their noisy counts. What is its mean squared error (the variance of "
            "its noise)?"
        ),
        compute=_histogram_error,
        mistakes=[
            mistake(
                "one-bin",
                "That is the variance of one bin's noise. The range adds 22 independent "
                "noises, and their variances add.",
                lambda: _histogram_error() / (_END - _START),
            ),
            mistake(
                "variance-without-two",
                "A Laplace noise of scale b has variance 2b², not b²: the factor 2 is missing.",
                lambda: _histogram_error() / 2.0,
            ),
            mistake(
                "standard-deviation",
                "That is the standard deviation, the square root of the error asked for.",
                lambda: math.sqrt(_histogram_error()),
            ),
            mistake(
                "deviations-added",
                "You added the noises' standard deviations, as if the 22 noises were the "
                "same noise. They are independent: their variances add.",
                lambda: _histogram_error() * (_END - _START),
            ),
        ],
        solution=(
            "Each bin's noise is $\\mathrm{Lap}(1/0.5) = \\mathrm{Lap}(2)$, of variance "
            "$2 \\times 2^2 = 8$. The 22 noises are independent, so the range's variance is "
            "their sum: $$22 \\times \\frac{2}{\\varepsilon^2} = 22 \\times 8 = 176.$$ "
            "A range of length $L$ has variance $2L/\\varepsilon^2$: long ranges pay for every "
            "bin they sum, which is what the tree's nodes avoid."
        ),
    ),
    number(
        "16.tree-range",
        title="The same range from the binary tree",
        question=(
            "Over $d = 32$ bins the binary tree releases every dyadic interval "
            "$[k 2^j, (k + 1) 2^j)$ (the whole, the halves, the quarters, …, the single "
            "bins), each with Laplace noise scaled to the tree's $\\ell_1$ sensitivity at "
            "$\\varepsilon = 0.5$. The range of bins $5, 6, \\dots, 26$ (counted from 0) is "
            "answered by summing the fewest nodes that make it up, no least squares. What is "
            "its mean squared error?"
        ),
        compute=lambda: _tree_error(qr.tree_levels(_BINS)),
        mistakes=[
            mistake(
                "tree-sensitivity-one",
                "You gave each node Laplace noise of scale 1/ε. One record lies in one node "
                "of every level: the tree's sensitivity is its number of levels.",
                lambda: _tree_error(1.0),
            ),
            mistake(
                "levels-without-root",
                "You took log₂ d for the sensitivity. The tree has log₂ d + 1 levels: the "
                "root and the single bins both count.",
                lambda: _tree_error(math.log2(_BINS)),
            ),
            mistake(
                "summed-leaves",
                "You summed the range's single bins, the tree's last level. The tree's point "
                "is to use its largest nodes inside the range: a few per level.",
                lambda: _tree_error(qr.tree_levels(_BINS), _END - _START),
            ),
        ],
        solution=(
            "The tree has $\\log_2 32 + 1 = 6$ levels, and one record lies in one node of "
            "each: $\\Delta_1 = 6$, every node gets $\\mathrm{Lap}(6/0.5) = \\mathrm{Lap}(12)$ "
            "of variance $2 \\times 12^2 = 288$. The range $[5, 27)$ is made of its largest "
            "dyadic pieces $[5, 6), [6, 8), [8, 16), [16, 24), [24, 26), [26, 27)$: six "
            "nodes, so $$6 \\times 2\\left(\\frac{6}{0.5}\\right)^2 = 6 \\times 288 = 1728.$$ "
            "The noisy histogram answers the same range with error $176$: for one range of "
            "22 bins out of 32 the tree's larger noise costs more than the fewer terms save."
        ),
    ),
    number(
        "16.clipped-count",
        title="The bias of a count clipped at 0",
        question=(
            "A true count $c = 3$ is released as $c + \\mathrm{Lap}(b)$ with $b = 2$, and "
            "the result is clipped at 0 (a negative count is published as 0). By how much "
            "does the published count overshoot $c$ on average, "
            "$E[\\max(0, c + \\mathrm{Lap}(b))] - c$? Give it to three decimal places."
        ),
        compute=lambda: qr.clamp_bias(_COUNT, _CLIP_SCALE),
        mistakes=[
            mistake(
                "no-bias",
                "Clipping is post-processing: it keeps the privacy, but not the mean. It "
                "raises every negative outcome to 0, so the average moves up.",
                lambda: 0.0,
            ),
            mistake(
                "bias-is-scale",
                "That is b, the mean size of the noise. Only the outcomes below 0 are raised, "
                "and the noise reaches below −c less and less often as c grows against b.",
                lambda: _CLIP_SCALE,
            ),
            mistake(
                "empty-cell-bias",
                "That is the bias of an empty cell, c = 0. For c = 3 the noise must fall "
                "below −3 to be clipped, which happens with probability ½ e^(−c/b).",
                lambda: qr.clamp_bias(0.0, _CLIP_SCALE),
            ),
            mistake(
                "bias-without-half",
                "The Laplace tail below −c has mass ½ e^(−c/b): the ½ is missing.",
                lambda: 2.0 * qr.clamp_bias(_COUNT, _CLIP_SCALE),
            ),
        ],
        solution=(
            "Clipping changes the outcome only when the noise $X$ falls below $-c$, and then "
            "raises it by $-(c + X)$. Beyond $-c$ the Laplace tail is again exponential with "
            "mean overshoot $b$, and it has mass $\\tfrac12 e^{-c/b}$: "
            "$$E[\\max(0, c + X)] - c = \\frac{b}{2} e^{-c/b} = 1 \\times e^{-1.5} "
            "\\approx 0.223.$$ Small, but it never averages out: every clipped count errs "
            "upward."
        ),
    ),
    number(
        "16.empty-cells",
        title="Empty cells inflate a total",
        question=(
            "A table has 2,000 cells: 1,500 of them have true count 0 and 500 have true "
            "count 4. Each cell is released with Laplace noise of scale $b = 4$ "
            "($\\varepsilon = 0.25$) and clipped at 0. Then the published cells are added "
            "up. By how much does that total exceed the true total, $500 \\times 4 = 2000$, on "
            "average? Give "
            "it to the nearest whole number."
        ),
        compute=lambda: _table_inflation(lambda c: qr.clamp_bias(c, _TABLE_SCALE)),
        mistakes=[
            mistake(
                "no-bias",
                "Clipping at 0 keeps privacy but not the mean: each clipped cell is biased "
                "upward, and the biases of many cells add up.",
                lambda: 0.0,
            ),
            mistake(
                "bias-is-scale",
                "You took each cell's bias as b. A cell of count c overshoots by "
                "(b/2) e^(−c/b) on average.",
                lambda: _table_inflation(lambda c: _TABLE_SCALE),
            ),
            mistake(
                "all-cells-empty",
                "You gave every cell the bias of an empty one, b/2. A cell of count 4 is "
                "clipped less often: its bias has the factor e^(−c/b).",
                lambda: _table_inflation(lambda c: qr.clamp_bias(0.0, _TABLE_SCALE)),
            ),
            mistake(
                "only-empty-cells",
                "You counted the empty cells only. The cells of count 4 are clipped too, less "
                "often: add their bias.",
                lambda: _EMPTY * qr.clamp_bias(0.0, _TABLE_SCALE),
            ),
        ],
        solution=(
            "An empty cell overshoots by $b/2 = 2$; a cell of count 4 by "
            "$(b/2) e^{-c/b} = 2e^{-1} \\approx 0.736$. Summed: "
            "$$1500 \\times 2 + 500 \\times 2e^{-1} \\approx 3000 + 368 = 3368.$$ "
            "The total's own noise averages out, its bias does not: a release with many "
            "empty cells (the Census's blocks) overstates every total built from clipped "
            "cells."
        ),
    ),
    number(
        "16.mwem-selection",
        title="MWEM's first pick",
        question=(
            "MWEM runs $T = 2$ rounds at a total $\\varepsilon = 1$ on the histogram "
            "$h = (30, 5, 10, 35)$ of $n = 80$ records, with all 10 range queries over its 4 "
            "bins as the workload. Its first synthetic histogram is uniform, "
            "$A = (20, 20, 20, 20)$. The exponential mechanism scores each range $q$ by "
            "$|q(h) - q(A)|$ (sensitivity 1). With which probability does round 1 pick the "
            "range of the 2nd and 3rd bins (true answer 15)? Give it to three decimal places."
        ),
        compute=lambda: _picked(_SELECTION_EPSILON / (2 * _SELECTION_ROUNDS)),
        mistakes=[
            mistake(
                "budget-not-split",
                "You selected with the whole ε. Each of the T rounds selects and measures: "
                "the selection gets ε/(2T).",
                lambda: _picked(_SELECTION_EPSILON),
            ),
            mistake(
                "one-factor-two",
                "A factor 2 is missing: the selection's budget is ε/(2T), and the "
                "exponential mechanism weighs exp(ε₀ · score / 2).",
                lambda: _picked(_SELECTION_EPSILON / _SELECTION_ROUNDS),
            ),
            mistake(
                "largest-score",
                "The exponential mechanism does not always pick the worst-answered range: "
                "it picks every range with a probability that grows with its score.",
                lambda: 1.0,
            ),
        ],
        solution=(
            "The selection's budget is $\\varepsilon_0 = \\varepsilon/(2T) = 1/4$, and range "
            "$q$ gets weight $e^{\\varepsilon_0 s_q / 2} = e^{s_q/8}$. The scores of the "
            "ten ranges are: single bins $10, 15, 10, 15$; pairs $5, 25, 5$; triples $15, 10$; "
            "all four $0$. The range of the 2nd and 3rd bins ($15$ against $40$) scores $25$: "
            "$$P = \\frac{e^{25/8}}{3e^{10/8} + 3e^{15/8} + 2e^{5/8} + e^{25/8} + 1} "
            "\\approx \\frac{22.76}{57.53} \\approx 0.396.$$ "
            "The worst range is the likeliest pick, but far from certain at so small a "
            "budget."
        ),
    ),
    function(
        "16.mwem-measurement",
        title="MWEM's measurement noise",
        question=(
            "MWEM spends a total $\\varepsilon$ over $T$ rounds by basic composition, each "
            "round selecting one query with the exponential mechanism and measuring it with "
            "Laplace noise (sensitivity 1), the budget split equally among all these steps. "
            "Write the Laplace scale of each measurement as a function "
            "`f(epsilon, rounds)` of $\\varepsilon$ and $T$. The box takes a formula."
        ),
        parameters=("epsilon", "rounds"),
        compute=lambda epsilon, rounds: 2 * rounds / epsilon,
        source="2*rounds/epsilon",
        cases=[(1.0, 5), (0.5, 10), (2.0, 1), (0.1, 3), (4.0, 50)],
        mistakes=[
            mistake(
                "budget-not-split",
                "That is the scale of one measurement that spends the whole ε. The run "
                "makes 2T steps that share ε.",
                lambda epsilon, rounds: 1 / epsilon,
                source="1/epsilon",
            ),
            mistake(
                "selection-free",
                "You split ε over the T measurements only. The T selections read the data "
                "too: each measurement gets ε/(2T).",
                lambda epsilon, rounds: rounds / epsilon,
                source="rounds/epsilon",
            ),
            mistake(
                "budget-not-scale",
                "That is the measurement's budget ε₀. Laplace noise for sensitivity 1 at "
                "budget ε₀ has scale 1/ε₀.",
                lambda epsilon, rounds: epsilon / (2 * rounds),
                source="epsilon/(2*rounds)",
            ),
        ],
        solution=(
            "The run makes $2T$ steps that each read the data: $T$ selections and $T$ "
            "measurements. Split equally, each gets $\\varepsilon_0 = \\varepsilon/(2T)$, "
            "and a count of sensitivity 1 measured at $\\varepsilon_0$ needs "
            "$$\\mathrm{Lap}(1/\\varepsilon_0) = \\mathrm{Lap}(2T/\\varepsilon).$$ "
            "More rounds fix more queries, but each measurement is noisier: the number of "
            "rounds is a trade-off."
        ),
    ),
    number(
        "16.mwem-rho",
        title="MWEM in zCDP",
        question=(
            "MWEM runs $T = 10$ rounds with a total $\\varepsilon = 2$ (basic composition): "
            "each round's exponential mechanism and Laplace measurement each spend "
            "$\\varepsilon_0 = \\varepsilon/(2T)$. The exponential mechanism at "
            "$\\varepsilon_0$ is $\\varepsilon_0^2/8$-zCDP (bounded range), an "
            "$\\varepsilon_0$-DP Laplace measurement $\\varepsilon_0^2/2$-zCDP. What is the "
            "whole run's $\\rho$? Give it to four decimal places."
        ),
        compute=lambda: qr.mwem_rho(_RHO_EPSILON, _RHO_ROUNDS),
        mistakes=[
            mistake(
                "epsilons-added-first",
                "You added the rounds' ε first and converted the sum. Under zCDP it is the "
                "ρ of each step that adds: convert each step's ε₀, then add.",
                lambda: _round_rho(_RHO_EPSILON / 2),
            ),
            mistake(
                "budget-not-split",
                "You gave each step the whole ε. The steps share it: ε₀ = ε/(2T).",
                lambda: _RHO_ROUNDS * _round_rho(_RHO_EPSILON),
            ),
            mistake(
                "pure-selection",
                "You used ε₀²/2 for the exponential mechanism. Its privacy loss spans an "
                "interval of width ε₀ (bounded range): ε₀²/8.",
                lambda: _RHO_ROUNDS * 2 * zcdp.pure_rho(_RHO_EPSILON / (2 * _RHO_ROUNDS)),
            ),
            mistake(
                "one-round",
                "That is one round's ρ. Under composition the rounds' ρ add up.",
                lambda: _round_rho(_RHO_EPSILON / (2 * _RHO_ROUNDS)),
            ),
            mistake(
                "whole-run-pure",
                "That is ε²/2, the ρ of a mechanism that is merely ε-DP as a whole. Counting "
                "each step's ρ does better.",
                lambda: zcdp.pure_rho(_RHO_EPSILON),
            ),
        ],
        solution=(
            "Each step spends $\\varepsilon_0 = 2/20 = 0.1$. A round costs "
            "$\\varepsilon_0^2/8 + \\varepsilon_0^2/2 = 5\\varepsilon_0^2/8 = 0.00625$, and "
            "the ten rounds' $\\rho$ add: $$\\rho = 10 \\times 0.00625 = "
            "\\frac{5\\varepsilon^2}{32T} = 0.0625.$$ Adding up the selections' $\\varepsilon$ "
            "and the measurements' $\\varepsilon$ first and converting each sum would give "
            "ten times more."
        ),
    ),
    number(
        "16.mwem-epsilon",
        title="Many rounds: zCDP against basic composition",
        question=(
            "MWEM runs $T = 40$ rounds at a total $\\varepsilon = 1$ by basic composition "
            "(each selection and each measurement at $\\varepsilon_0 = \\varepsilon/(2T)$), "
            "which makes it $\\rho$-zCDP with $\\rho = 5\\varepsilon^2/(32T)$. Converted "
            "with $\\varepsilon' = \\rho + 2\\sqrt{\\rho \\ln(1/\\delta)}$ at "
            "$\\delta = 10^{-6}$, which $\\varepsilon'$ does the same run get? Give it to "
            "three decimal places."
        ),
        compute=lambda: _converted(qr.mwem_rho(_LONG_EPSILON, _LONG_ROUNDS)),
        mistakes=[
            mistake(
                "rounds-converted-then-added",
                "You converted each round to (ε, δ) and added the rounds' ε. Under zCDP "
                "the ρ add: add the rounds' ρ, then convert once.",
                lambda: _LONG_ROUNDS * _converted(_round_rho(_LONG_EPSILON / (2 * _LONG_ROUNDS))),
            ),
            mistake(
                "rho-not-converted",
                "That is ρ itself. ρ is no ε: convert it with ρ + 2√(ρ ln(1/δ)).",
                lambda: qr.mwem_rho(_LONG_EPSILON, _LONG_ROUNDS),
            ),
            mistake(
                "basic-composition",
                "That is the ε of basic composition, the budget the run was given. The "
                "question asks what its ρ converts to at δ.",
                lambda: _LONG_EPSILON,
            ),
            mistake(
                "whole-run-pure",
                "You converted ρ = ε²/2 of the whole run as one ε-DP mechanism. Its rounds' "
                "ρ add to 5ε²/(32T), far less.",
                lambda: _converted(zcdp.pure_rho(_LONG_EPSILON)),
            ),
        ],
        solution=(
            "$\\rho = 5 \\times 1^2/(32 \\times 40) = 0.00390625$ and "
            "$\\ln(10^6) \\approx 13.816$, so "
            "$$\\varepsilon' = 0.0039 + 2\\sqrt{0.0039 \\times 13.816} \\approx 0.0039 "
            "+ 0.4646 \\approx 0.469.$$ "
            "At $\\delta = 10^{-6}$ the run is about twice as private as basic composition "
            "says. With few rounds it is the other way round: at $T = 4$ the same conversion "
            "gives $1.51 > 1$, and basic composition's $\\varepsilon = 1$ is the better "
            "statement. zCDP pays off when many small steps add up."
        ),
    ),
    choice(
        "16.which-strategy",
        title="Histogram or tree?",
        question=(
            "All $d(d + 1)/2$ range queries over $d$ bins are to be answered at "
            "$\\varepsilon = 1$ with the least mean squared error. The binary tree with "
            "least squares has mean squared error $48.35$ at $d = 16$ and $615.2$ at "
            "$d = 2048$; summed node by node (no least squares), $123.9$ and $2594.1$. "
            "The noisy histogram (Laplace noise of scale $1/\\varepsilon$ on each bin) "
            "answers a range of $L$ bins with error $2L/\\varepsilon^2$, and the average "
            "range covers $(d + 2)/3$ bins. Which strategy should be used?"
        ),
        options={
            "a": (
                "The noisy histogram at d = 16, the tree with least squares at d = 2048: "
                "the histogram's average error grows like d, the tree's like (log d)³."
            ),
            "b": (
                "The tree at both: a range takes at most 2 log₂ d of its nodes, far fewer "
                "than the histogram's bins, so its error is always smaller."
            ),
            "c": (
                "The noisy histogram at both: least squares is post-processing, and "
                "post-processing cannot make answers more accurate."
            ),
            "d": (
                "The tree summed node by node at d = 2048: least squares only makes the "
                "answers agree with each other, it does not reduce their error."
            ),
        },
        answer="a",
        hints={
            "b": (
                "tree-sensitivity-one",
                "Fewer nodes, but noisier ones: one record lies in log₂ d + 1 nodes, so "
                "every node's noise is that many times larger. Compare the errors.",
            ),
            "c": (
                "least-squares-no-gain",
                "Post-processing cannot weaken privacy, but it can lower the error: least "
                "squares averages the tree's redundant measurements.",
            ),
            "d": (
                "consistency-only",
                "Least squares does reduce the error: compare the tree's two errors, with "
                "and without it, at d = 2048.",
            ),
        },
        praise=(
            "The histogram's error grows with the length of the range, the tree's with "
            "(log d)³: the tree wins once d is large."
        ),
        solution=(
            "The noisy histogram's average error is "
            "$2(d + 2)/(3\\varepsilon^2)$: $12$ at $d = 16$, and $1366.7$ at $d = 2048$. "
            "At $d = 16$ it beats the tree ($48.35$ with least squares, $123.9$ node by "
            "node): the tree's noise, of scale $(\\log_2 d + 1)/\\varepsilon = 5$, is "
            "too large for so few bins. At $d = 2048$ the tree with least squares "
            "($615.2$) wins, while summed node by node ($2594.1$) it still loses to the "
            "histogram. The histogram's error grows like $d$; the tree's like "
            "$(\\log_2 d + 1)^2$ times a number of nodes that grows like $\\log_2 d$, and "
            "least squares divides it by a constant factor."
        ),
    ),
]
