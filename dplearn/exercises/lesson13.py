"""Exercises of lesson 13, "Answer many queries for the price of few": parallel
composition, AboveThreshold's noise, group privacy, and a broken variant's claim.

References and anticipated mistakes are computed with ``dplearn.composition`` (group
privacy, noise per count) and ``dplearn.sparse_vector`` (AboveThreshold's noise scales)
when an answer is checked; the settings differ from the lesson's printed ones, so that its
numbers are no answers.

Taught in: 13-answer-many-queries-for-the-price-of-few.ipynb
"""

import math

from dplearn import composition
from dplearn import sparse_vector as sv
from dplearn.exercises import choice, function, mistake, number

# histogram-noise: 12 disjoint bins at an overall epsilon of 0.25.
_BINS, _HISTOGRAM_EPSILON = 12, 0.25
# answer-noise: AboveThreshold at epsilon = 0.5 on queries of sensitivity 3.
_AT_EPSILON, _AT_SENSITIVITY = 0.5, 3.0
# group-delta: a (0.5, 1e-7)-DP mechanism and a family of 4.
_GROUP_EPSILON, _GROUP_DELTA, _GROUP = 0.5, 1e-7, 4


def _group_delta(epsilon, delta, g):
    return composition.group_privacy(epsilon, delta, int(round(g)))[1]


EXERCISES = [
    number(
        "13.histogram-noise",
        title="Noise for a histogram",
        question=(
            "A survey publishes a histogram of its respondents' ages in 12 bins (under 20, "
            "20 to 29, ...); every person is in exactly one bin, so adding or removing a "
            "person changes one count by 1. The whole histogram must be "
            "$\\varepsilon$-DP with $\\varepsilon = 0.25$. Which Laplace scale $b$ does "
            "each bin's count need?"
        ),
        compute=lambda: composition.count_noise_scales(_HISTOGRAM_EPSILON, _BINS)[0],
        mistakes=[
            mistake(
                "k-epsilon",
                "You split the budget over the 12 bins, as for counts that one person can "
                "all change. The bins are disjoint: a person changes only one of them, so "
                "each bin may use the whole budget (parallel composition).",
                lambda: composition.count_noise_scales(_HISTOGRAM_EPSILON, _BINS)[1],
            ),
            mistake(
                "epsilon-for-scale",
                "That is ε itself. The Laplace scale is the sensitivity divided by ε.",
                lambda: _HISTOGRAM_EPSILON,
            ),
            mistake(
                "l1-sensitivity-two",
                "You used sensitivity 2, the ℓ1 sensitivity of a histogram when one "
                "person's row is replaced (one bin down, another up). Here a person is "
                "added or removed: one count moves by 1.",
                lambda: 2 / _HISTOGRAM_EPSILON,
            ),
            mistake(
                "bins-for-scale",
                "That is the number of bins. The scale depends on how much one person can "
                "move one count and on ε, not on how many bins there are: with disjoint "
                "bins, divide the sensitivity of a count by ε.",
                lambda: _BINS,
            ),
        ],
        solution=(
            "A person's row falls in one bin, so two neighbouring data sets differ in one "
            "count, by 1. The 12 noisy counts are 12 Laplace mechanisms on disjoint parts "
            "of the data: by parallel composition (McSherry 2009) they cost the largest of "
            "their $\\varepsilon$'s, not the sum. Each bin gets "
            "$b = \\Delta/\\varepsilon = 1/0.25 = 4$. Counts that one person can all "
            "change would need $12/0.25 = 48$ each for the same $\\varepsilon$."
        ),
    ),
    number(
        "13.answer-noise",
        title="AboveThreshold's noise on the answers",
        question=(
            "AboveThreshold is run with $\\varepsilon = 0.5$ on queries of sensitivity "
            "$\\Delta = 3$. Which Laplace scale does the noise added to each query's "
            "answer have?"
        ),
        compute=lambda: sv.noise_scales(_AT_EPSILON, _AT_SENSITIVITY)[1],
        mistakes=[
            mistake(
                "swapped",
                "That is the threshold's noise. The answers get twice as much: the proof "
                "shifts the threshold by Δ and each answer by 2Δ, and pays half of ε for "
                "each.",
                lambda: sv.noise_scales(_AT_EPSILON, _AT_SENSITIVITY)[0],
            ),
            mistake(
                "no-sensitivity",
                "You left out the sensitivity: the scales are in units of Δ.",
                lambda: 4 / _AT_EPSILON,
            ),
            mistake(
                "laplace-mechanism",
                "Δ/ε is the Laplace mechanism's scale for one answer published once. "
                "AboveThreshold compares many answers with one noisy threshold and needs "
                "more noise on each.",
                lambda: _AT_SENSITIVITY / _AT_EPSILON,
            ),
            mistake(
                "halved-twice",
                "You gave the answers half of ε and then used AboveThreshold's answer scale "
                "with that half. The factor in that scale already pays for the half: the "
                "answers' ε/2 covers a shift of 2Δ, so halving ε again counts the half twice.",
                lambda: 4 * _AT_SENSITIVITY / (_AT_EPSILON / 2),
            ),
            mistake(
                "times-epsilon",
                "You multiplied by ε. A Laplace scale is a sensitivity divided by ε: the "
                "smaller ε, the more noise.",
                lambda: _AT_SENSITIVITY * _AT_EPSILON,
            ),
        ],
        solution=(
            "Dwork & Roth's Algorithm 1 draws the noisy threshold with "
            "$\\mathrm{Lap}(2\\Delta/\\varepsilon)$ and adds "
            "$\\mathrm{Lap}(4\\Delta/\\varepsilon)$ to every answer: "
            "$4 \\times 3/0.5 = 24$ (and $12$ on the threshold). In the proof, moving the "
            "threshold by $\\Delta$ costs $\\varepsilon/2$, and moving the answer it stops "
            "at by $2\\Delta$ (its own change plus the threshold's) costs the other "
            "$\\varepsilon/2$."
        ),
    ),
    number(
        "13.group-delta",
        title="A family's $\\delta$",
        question=(
            "A mechanism is $(\\varepsilon, \\delta)$-DP with $\\varepsilon = 0.5$ and "
            "$\\delta = 10^{-7}$ for one person. A family of 4 is in the data. By the "
            "chain of neighbours, the mechanism is $(4\\varepsilon, \\delta_4)$-DP for the "
            "family. What is $\\delta_4$? Give it to three significant figures (or as a "
            "formula)."
        ),
        compute=lambda: _group_delta(_GROUP_EPSILON, _GROUP_DELTA, _GROUP),
        mistakes=[
            mistake(
                "g-delta",
                "You multiplied δ by the group size. Along the chain each step's δ is "
                "carried through the later steps and multiplied by their factor e^ε: the "
                "terms are δ, e^ε δ, e^(2ε) δ, ...",
                lambda: _GROUP * _GROUP_DELTA,
            ),
            mistake(
                "loose",
                "That is g e^((g − 1)ε) δ, a valid but looser bound: it counts every step "
                "as the last. The chain gives the sum δ(1 + e^ε + ... + e^((g − 1)ε)).",
                lambda: composition.group_privacy_loose(_GROUP_EPSILON, _GROUP_DELTA, _GROUP)[1],
            ),
            mistake(
                "last-factor-only",
                "You kept only the first factor e^(gε) δ. The chain adds one δ term per "
                "step, each with its own power of e^ε.",
                lambda: math.exp(_GROUP * _GROUP_EPSILON) * _GROUP_DELTA,
            ),
            mistake(
                "one-persons-delta",
                "That is one person's δ. For the family it is larger: each of the 4 steps "
                "of the chain adds a δ term, and the later steps multiply it by e^ε.",
                lambda: _GROUP_DELTA,
            ),
        ],
        solution=(
            "Between data sets that differ in the 4 family members run 4 neighbouring "
            "steps. Applying $P[A(D_{i}) \\in S] \\le e^{\\varepsilon} P[A(D_{i+1}) \\in S] "
            "+ \\delta$ along them gives\n\n"
            "$$\\delta_4 = \\delta\\,(1 + e^{\\varepsilon} + e^{2\\varepsilon} + "
            "e^{3\\varepsilon}) = \\delta\\,\\frac{e^{4\\varepsilon} - 1}{e^{\\varepsilon} - 1}"
            " = 10^{-7} \\times \\frac{e^{2} - 1}{e^{0.5} - 1} \\approx 9.849 \\times "
            "10^{-7}.$$\n\n"
            "The often-quoted $g e^{(g-1)\\varepsilon}\\delta \\approx 1.793 \\times "
            "10^{-6}$ is valid but almost twice as large."
        ),
    ),
    function(
        "13.group-formula",
        title="Group privacy as a formula",
        question=(
            "Write the $\\delta$ that an $(\\varepsilon, \\delta)$-DP guarantee gives a "
            "group of $g$ people by the chain of $g$ neighbours, as a function "
            "`f(epsilon, delta, g)` (for $\\varepsilon > 0$). The box takes a formula "
            "(`exp`, `ln`, `expm1` are known)."
        ),
        parameters=("epsilon", "delta", "g"),
        compute=_group_delta,
        source="delta*(exp(g*epsilon) - 1)/(exp(epsilon) - 1)",
        cases=[
            (1.0, 1e-6, 2),
            (1.0, 1e-6, 5),
            (0.1, 1e-5, 10),
            (0.5, 1e-8, 3),
            (2.0, 1e-9, 1),
            (0.01, 1e-6, 20),
        ],
        mistakes=[
            mistake(
                "g-delta",
                "g δ holds only at ε = 0: each step's δ is multiplied by e^ε at every "
                "later step of the chain.",
                lambda epsilon, delta, g: g * delta,
                source="g*delta",
            ),
            mistake(
                "loose",
                "That is the often-quoted, looser bound: every step counted as the last. "
                "Sum the chain's terms instead.",
                lambda epsilon, delta, g: g * math.exp((g - 1) * epsilon) * delta,
                source="g*exp((g - 1)*epsilon)*delta",
            ),
        ],
        solution=(
            "The chain $D_0, D_1, \\dots, D_g$ of neighbours gives "
            "$P[A(D_0) \\in S] \\le e^{g\\varepsilon} P[A(D_g) \\in S] + \\delta "
            "\\sum_{j=0}^{g-1} e^{j\\varepsilon}$, so\n\n"
            "$$f(\\varepsilon, \\delta, g) = \\delta\\,\\frac{e^{g\\varepsilon} - 1}"
            "{e^{\\varepsilon} - 1},$$\n\n"
            "which is $g\\delta$ in the limit $\\varepsilon \\to 0$ and $\\delta$ at "
            "$g = 1$."
        ),
    ),
    choice(
        "13.broken-claim",
        title="A variant's claim",
        question=(
            "A paper proposes a variant of AboveThreshold: the same noisy threshold "
            "$T + \\mathrm{Lap}(2/\\varepsilon)$ and the same noise "
            "$\\mathrm{Lap}(4/\\varepsilon)$ on each answer (sensitivity 1), but it does "
            "not stop at the first answer above: it reports above or below for every one "
            "of the $m$ queries. It claims $\\varepsilon$-DP for any $m$, since the noise "
            "is AboveThreshold's. Which is true?"
        ),
        options={
            "a": "Its worst privacy loss grows with m: no single ε covers every m.",
            "b": "It is ε-DP, as claimed: the noise is the same as AboveThreshold's.",
            "c": "It is ε-DP when the answers are far from the threshold, so in practice.",
            "d": "It is 2ε-DP: one ε for the threshold and one for the answers.",
        },
        answer="a",
        hints={
            "b": (
                "believed-claim",
                "The noise is the same, but AboveThreshold's proof pays for one positive "
                "answer only. Compute the loss on neighbours built for the variant, as "
                "MANY-4 does, before believing the claim.",
            ),
            "c": (
                "typical-data",
                "A guarantee holds for every pair of neighbours, not for the data you "
                "expect: the bad pairs have answers near the threshold.",
            ),
            "d": (
                "constant-factor",
                "No constant factor is enough: MANY-4's loss keeps growing with m.",
            ),
        },
        praise="Only the first positive is paid for; every further one costs again.",
        solution=(
            "Lyu, Su & Li (2017) show such variants are not private for any fixed "
            "$\\varepsilon$. On the neighbours $D_1 = (0, \\dots, 0, 1, \\dots, 1)$ and "
            "$D_2 = (1, \\dots, 1, 0, \\dots, 0)$ with $T = 0.5$, the outcome (below on "
            "the first half, above on the second) is likelier on $D_1$ at every noisy "
            "threshold, and no one shift of the threshold explains all $m$ answers: at "
            "claimed $\\varepsilon = 1$ its privacy loss is $4.345$ at $m = 20$ and "
            "$11.22$ at $m = 50$ (MANY-4). AboveThreshold stops after the first "
            "positive, and that is what keeps its loss within $\\varepsilon$."
        ),
    ),
]
