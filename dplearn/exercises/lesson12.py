"""Exercises of lesson 12, "Choose privately": the exponential mechanism, its monotone
factor, Gumbel noise read as the exponential mechanism, zCDP's rho and its epsilon, and
which selection is bounded range.

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
# gumbel-max: Gumbel noise of scale b = 4 on the scores (30, 28, 20), Delta u = 1.
_GUMBEL_SCORES, _GUMBEL_SCALE = (30.0, 28.0, 20.0), 4.0
# rho-to-epsilon: a total rho of 0.5 at delta = 1e-6.
_RHO, _DELTA = 0.5, 1e-6


def _first(scores, epsilon, monotone):
    return float(selection.exponential_mechanism(scores, epsilon, monotone=monotone)[0])


def _selections_rho():
    return _SELECTIONS * zcdp.bounded_range_rho(_SELECTION_EPSILON)


def _releases_rho():
    return _RELEASES * zcdp.gaussian_rho(_SIGMA)


def _total_rho():
    return _selections_rho() + _releases_rho()


def _gumbel_epsilon():
    """The epsilon of Gumbel noise of scale b = 2 Delta u / epsilon, Delta u = 1."""
    return 2.0 / _GUMBEL_SCALE


def _simple_epsilon(rho, log_inverse_delta):
    return rho + 2.0 * math.sqrt(rho * log_inverse_delta)


EXERCISES = [
    number(
        "12.em-probability",
        title="The exponential mechanism's favourite",
        question=(
            "Three candidates have scores $u = (10, 8, 5)$ with sensitivity $\\Delta u = 1$ "
            "(the scores are not monotone). With what probability does the exponential "
            "mechanism at $\\varepsilon = 1$ pick the first one? Give it to three decimal "
            "places."
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
            mistake(
                "candidate-forgotten",
                "That is the first candidate's share between the first two only: the sum "
                "in the denominator runs over all three candidates, the one scored 5 too.",
                lambda: _first(_SCORES[:2], _EPSILON, False),
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
            "the monotone factor, pick the first option? Give it to three decimal places."
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
            "(sensitivity 1) with $\\sigma = 5$. What is its total $\\rho$ in zCDP? Give "
            "it to two decimal places."
        ),
        compute=_total_rho,
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
                lambda: _selections_rho() + _RELEASES / (2 * _SIGMA),
            ),
            mistake(
                "selections-only",
                "That is the fifty selections' ρ alone: the ten Gaussian releases are part "
                "of the same analysis, and their ρ adds to it.",
                _selections_rho,
            ),
            mistake(
                "releases-only",
                "That is the ten Gaussian releases' ρ alone: the fifty selections are part "
                "of the same analysis, and their ρ adds to it.",
                _releases_rho,
            ),
            mistake(
                "gaussian-without-the-2",
                "The Gaussian's ρ is Δ²/(2σ²): the 2 in the denominator is missing.",
                lambda: _selections_rho() + _RELEASES / _SIGMA**2,
            ),
            mistake(
                "negative",
                "ρ is never negative: every release adds a positive amount to the total. "
                "Check the sign.",
                lambda: -_total_rho(),
            ),
        ],
        solution=(
            "Each selection: $\\rho = \\varepsilon^2/8 = 0.04/8 = 0.005$, fifty of them "
            "$0.25$. Each Gaussian release: $\\rho = \\Delta^2/(2\\sigma^2) = 1/50 = 0.02$, "
            "ten of them $0.2$. zCDP adds ρ: $$\\rho = 0.25 + 0.2 = 0.45.$$"
        ),
    ),
    number(
        "12.gumbel-max",
        title="Gumbel noise, read as the exponential mechanism",
        question=(
            "A library adds independent Gumbel noise of scale $b = 4$ to each of three "
            "scores $(30, 28, 20)$, whose sensitivity is $\\Delta u = 1$ (not monotone), "
            "and reports the index of the largest noisy score. With what probability does "
            "it report the first candidate? Give it to three decimal places."
        ),
        compute=lambda: _first(_GUMBEL_SCORES, _gumbel_epsilon(), False),
        mistakes=[
            mistake(
                "scale-as-epsilon",
                "You used b as ε. The scale is b = 2Δu/ε: find ε from b first.",
                lambda: _first(_GUMBEL_SCORES, _GUMBEL_SCALE, False),
            ),
            mistake(
                "scale-as-rate",
                "You took ε = 1/b. The scale is b = 2Δu/ε, so ε = 2Δu/b, and the weights "
                "e^(ε·u/(2Δu)) are e^(u/b).",
                lambda: _first(_GUMBEL_SCORES, 1.0 / _GUMBEL_SCALE, False),
            ),
            mistake(
                "monotone-factor",
                "You used the monotone exponent ε·u/Δu, twice the right one: these scores "
                "are not monotone, and the noise's scale fixes the exponent.",
                lambda: _first(_GUMBEL_SCORES, _gumbel_epsilon(), True),
            ),
            mistake(
                "candidate-forgotten",
                "The denominator sums over all three candidates, the one scored 20 too.",
                lambda: _first(_GUMBEL_SCORES[:2], _gumbel_epsilon(), False),
            ),
            mistake(
                "epsilon-given",
                "That is ε, the privacy of the release. The question asks for the chance "
                "that the first candidate is reported.",
                _gumbel_epsilon,
            ),
        ],
        solution=(
            "Report-noisy-max with Gumbel noise is the exponential mechanism (the "
            "Gumbel-max trick): candidate $r$ wins with probability proportional to "
            "$e^{u_r/b}$. Here $b = 2\\Delta u/\\varepsilon = 4$, so $\\varepsilon = 0.5$ and "
            "$$P[1] = \\frac{1}{1 + e^{-2/4} + e^{-10/4}} = \\frac{1}{1 + e^{-0.5} + "
            "e^{-2.5}} \\approx 0.5922.$$ No sum of $e^{u/b}$ is needed to draw it; it is "
            "needed only to compute the probability."
        ),
    ),
    number(
        "12.rho-to-epsilon",
        title="From $\\rho$ to $(\\varepsilon, \\delta)$",
        question=(
            "An analysis spends $\\rho = 0.5$ in all, composed in zCDP. What "
            "$\\varepsilon$ does it guarantee at $\\delta = 10^{-6}$, by Bun and Steinke's "
            "conversion "
            "$\\varepsilon = \\rho + 2\\sqrt{\\rho \\ln(1/\\delta)}$? Give it to two "
            "decimal places."
        ),
        compute=lambda: zcdp.simple_epsilon(_RHO, _DELTA),
        mistakes=[
            mistake(
                "log-ten",
                "You took the logarithm in base 10. The formula's ln is the natural "
                "logarithm: ln(10^6) is about 13.8, not 6.",
                lambda: _simple_epsilon(_RHO, -math.log10(_DELTA)),
            ),
            mistake(
                "no-two",
                "The square root is multiplied by 2.",
                lambda: _RHO + math.sqrt(_RHO * -math.log(_DELTA)),
            ),
            mistake(
                "rho-left-out",
                "The formula starts with ρ itself, then adds the square-root term.",
                lambda: 2.0 * math.sqrt(_RHO * -math.log(_DELTA)),
            ),
            mistake(
                "rho-outside-the-root",
                "ρ goes under the square root, with ln(1/δ): 2√(ρ·ln(1/δ)).",
                lambda: _RHO + 2.0 * _RHO * math.sqrt(-math.log(_DELTA)),
            ),
            mistake(
                "tighter-conversion",
                "That is the tighter conversion, minimised over the Rényi orders (the "
                "lesson's first formula). Right as a guarantee; the question asks for the "
                "simpler formula's ε, a little larger.",
                lambda: zcdp.to_epsilon(_RHO, _DELTA),
            ),
        ],
        solution=(
            "$\\ln(1/\\delta) = \\ln 10^6 \\approx 13.816$, so "
            "$$\\varepsilon = 0.5 + 2\\sqrt{0.5 \\times 13.816} \\approx 0.5 + 5.257 "
            "\\approx 5.76.$$ The conversion minimised over the orders gives "
            "$\\varepsilon \\approx 5.22$ at the same $\\delta$: the simpler formula is a "
            "little larger, as the lesson says, and still a valid guarantee."
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
