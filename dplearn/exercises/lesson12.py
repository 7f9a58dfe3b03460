"""Exercises of lesson 12, "Choose privately": the exponential mechanism, its monotone
factor, zCDP's rho and which noise gives which selection.

References and anticipated mistakes are computed with ``dplearn.selection`` and
``dplearn.zcdp`` when an answer is checked; the settings differ from the lesson's printed
ones, so that its numbers are no answers.

Taught in: 12-choose-privately.ipynb
"""

import math

from dplearn import selection, zcdp
from dplearn.exercises import choice, mistake, number

# em-probability: three candidates scored (10, 8, 5), Delta u = 1, epsilon = 1.
_SCORES, _EPSILON = (10.0, 8.0, 5.0), 1.0
# monotone-best: vote counts (50, 49, 46), epsilon = 0.5, monotone.
_COUNTS, _COUNT_EPSILON = (50.0, 49.0, 46.0), 0.5
# rho-adds: 50 selections at epsilon = 0.2 and 10 Gaussian releases of sigma = 5.
_SELECTIONS, _SELECTION_EPSILON, _RELEASES, _SIGMA = 50, 0.2, 10, 5.0


def _first(scores, epsilon, monotone):
    return float(selection.exponential_mechanism(scores, epsilon, monotone=monotone)[0])


EXERCISES = [
    number(
        "12.em-probability",
        title="The exponential mechanism's favourite",
        question=(
            "Three candidates have scores $u = (10, 8, 5)$ with sensitivity $\\Delta u = 1$ "
            "(the scores are not monotone). With what probability does the exponential "
            "mechanism at $\\varepsilon = 1$ pick the first one?"
        ),
        compute=lambda: _first(_SCORES, _EPSILON, False),
        mistakes=[
            mistake(
                "no-half",
                "You used e^(ε·u/Δu), the monotone factor. For scores that can move in "
                "opposite directions the exponent is ε·u/(2Δu): ε/2 belongs there.",
                lambda: _first(_SCORES, _EPSILON, True),
            ),
            mistake(
                "uniform",
                "That is one in three, the choice at ε = 0. At ε = 1 the better score weighs more.",
                lambda: 1.0 / 3.0,
            ),
            mistake(
                "weight-not-normalised",
                "That is the weight e^(ε·u/(2Δu)), u = 10, of the first candidate alone: divide it "
                "by the sum of the three weights.",
                lambda: math.exp(_EPSILON * _SCORES[0] / 2.0),
            ),
        ],
        solution=(
            "$P[r] \\propto e^{\\varepsilon u_r/(2\\Delta u)} = e^{u_r/2}$. Dividing by the "
            "first weight, $$P[1] = \\frac{1}{1 + e^{-1} + e^{-2.5}} \\approx 0.6897.$$ "
            "With the monotone factor (no 2) it would be $1/(1 + e^{-2} + e^{-5}) \\approx "
            "0.8756$: for scores that are not monotone that is not private at $\\varepsilon$."
        ),
    ),
    number(
        "12.monotone-best",
        title="Counting votes: the monotone factor",
        question=(
            "A poll picks the most popular of three options privately. Each option's score "
            "is its number of votes: adding or removing one voter changes one count by 1 "
            "and never moves two counts in opposite directions, so the scores are "
            "**monotone** with $\\Delta u = 1$. The counts are $(50, 49, 46)$. With what "
            "probability does the exponential mechanism at $\\varepsilon = 0.5$, using "
            "the monotone factor, pick the first option?"
        ),
        compute=lambda: _first(_COUNTS, _COUNT_EPSILON, True),
        mistakes=[
            mistake(
                "halved",
                "You used ε·u/(2Δu), the general factor. Monotone scores allow "
                "e^(ε·u/Δu), twice the exponent.",
                lambda: _first(_COUNTS, _COUNT_EPSILON, False),
            ),
            mistake(
                "doubled",
                "You doubled ε. The monotone exponent is ε·u/Δu, not 2ε·u/Δu.",
                lambda: _first(_COUNTS, 2 * _COUNT_EPSILON, True),
            ),
        ],
        solution=(
            "With monotone scores $P[r] \\propto e^{\\varepsilon u_r/\\Delta u} = e^{u_r/2}$: "
            "$$P[1] = \\frac{1}{1 + e^{-0.5} + e^{-2}} \\approx 0.5741.$$ The general "
            "factor would give $1/(1 + e^{-0.25} + e^{-1}) \\approx 0.4658$: the same "
            "privacy, a less accurate choice."
        ),
    ),
    number(
        "12.rho-adds",
        title="A budget in $\\rho$",
        question=(
            "An analysis makes **50** selections with the exponential mechanism at "
            "$\\varepsilon = 0.2$ each, and **10** Gaussian releases of a count "
            "(sensitivity 1) with $\\sigma = 5$. What is its total $\\rho$ in zCDP?"
        ),
        compute=lambda: (
            _SELECTIONS * zcdp.bounded_range_rho(_SELECTION_EPSILON)
            + _RELEASES * zcdp.gaussian_rho(_SIGMA)
        ),
        mistakes=[
            mistake(
                "generic-rho",
                "You charged each selection ε²/2, the price of any ε-DP mechanism. The "
                "exponential mechanism is bounded range: ε²/8.",
                lambda: (
                    _SELECTIONS * zcdp.pure_rho(_SELECTION_EPSILON)
                    + _RELEASES * zcdp.gaussian_rho(_SIGMA)
                ),
            ),
            mistake(
                "epsilons-added",
                "You added the selections' ε. In zCDP it is ρ that adds, and each "
                "selection costs ρ = ε²/8.",
                lambda: _SELECTIONS * _SELECTION_EPSILON + _RELEASES * zcdp.gaussian_rho(_SIGMA),
            ),
            mistake(
                "sigma-not-squared",
                "The Gaussian's ρ = Δ²/(2σ²): σ enters squared.",
                lambda: (
                    _SELECTIONS * zcdp.bounded_range_rho(_SELECTION_EPSILON)
                    + _RELEASES / (2 * _SIGMA)
                ),
            ),
        ],
        solution=(
            "Each selection: $\\rho = \\varepsilon^2/8 = 0.04/8 = 0.005$, fifty of them "
            "$0.25$. Each Gaussian release: $\\rho = \\Delta^2/(2\\sigma^2) = 1/50 = 0.02$, "
            "ten of them $0.2$. zCDP adds ρ: $$\\rho = 0.25 + 0.2 = 0.45.$$"
        ),
    ),
    choice(
        "12.which-noise",
        title="Which noise was it?",
        question=(
            "At SEL-1's scores $(30, 28, 20, 12, 10)$, $\\Delta u = 1$ and "
            "$\\varepsilon = 1$, report-noisy-max with noise of scale "
            "$2\\Delta u/\\varepsilon$ picked the best candidate with probability "
            "$0.7274$. Which noise did it add?"
        ),
        options={
            "a": "Laplace noise",
            "b": "Gumbel noise",
            "c": "exponential noise",
            "d": "it cannot be told from that probability",
        },
        answer="b",
        hints={
            "a": (
                "laplace",
                "Laplace noise gives 0.7213 there (SEL-2's readout): close, but lower.",
            ),
            "c": (
                "exponential",
                "Exponential noise is permute-and-flip: 0.8135 there, the highest of the three.",
            ),
            "d": (
                "cannot-tell",
                "The three noises give three different probabilities at that setting; "
                "SEL-2 reads them out.",
            ),
        },
        praise="Gumbel noise is the exponential mechanism: 0.7274, exactly SEL-1's bar.",
        solution=(
            "Report-noisy-max with Gumbel noise picks each candidate with exactly the "
            "exponential mechanism's probability, $1/(1 + e^{-1} + e^{-5} + e^{-9} + "
            "e^{-10}) \\approx 0.7274$ for the best. Laplace noise gives $0.7213$, "
            "exponential noise (permute-and-flip) $0.8135$."
        ),
    ),
    choice(
        "12.bounded-range",
        title="Which selection costs $\\varepsilon^2/8$?",
        question=(
            "A library offers three ways to pick a candidate at $\\varepsilon = 0.1$. An "
            "analyst runs one of them 100 times and accounts in zCDP. Which may be charged "
            "$\\rho = \\varepsilon^2/8$ per run, rather than $\\varepsilon^2/2$?"
        ),
        options={
            "a": "the exponential mechanism",
            "b": "permute-and-flip",
            "c": "report-noisy-max with Laplace noise",
            "d": "all three: every selection is bounded range",
        },
        answer="a",
        hints={
            "b": (
                "permute-and-flip",
                "Permute-and-flip is ε-DP but not bounded range: SEL-3 shows its losses "
                "spanning more than ε, so it pays ε²/2.",
            ),
            "c": (
                "laplace",
                "Laplace report-noisy-max is ε-DP, but nothing makes its loss span at most "
                "ε: charge it ε²/2.",
            ),
            "d": (
                "all-bounded",
                "SEL-3 shows a selection whose losses span more than ε: permute-and-flip.",
            ),
        },
        praise="Only the exponential mechanism's loss spans at most ε.",
        solution=(
            "The exponential mechanism's loss at an output $r$ is "
            "$\\varepsilon(u_r - u'_r)/(2\\Delta u)$ plus a constant, so over all outputs "
            "it spans at most $\\varepsilon$: it is $\\varepsilon$-bounded range, hence "
            "$\\varepsilon^2/8$-zCDP (Cesar & Rogers). Permute-and-flip, more accurate, "
            "spans up to about $1.5\\varepsilon$ on SEL-3's pair at $\\varepsilon = 1$ and "
            "is charged as a generic $\\varepsilon$-DP mechanism, $\\varepsilon^2/2$."
        ),
    ),
]
