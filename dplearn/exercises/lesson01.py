"""Exercises of lesson 01, "Measure the privacy loss of one output": L(O) and the odds.

The setting is the lesson's: a count of 1000 in D1 and 1001 in D2, Laplace noise of
scale 1/ln 3. References and mistakes are computed with ``dplearn.privacy_loss``.

Taught in: 01-measure-privacy-loss.ipynb
"""

import numpy as np
from scipy import optimize, stats

from dplearn import privacy_loss
from dplearn.exercises import absolute, choice, mistake, number

_SCALE = 1 / np.log(3.0)
_COUNT = 1000.0


def _noise(sensitivity=1.0):
    return privacy_loss.laplace(_SCALE, sensitivity, center=_COUNT)


def _output_with_loss(loss):
    """The output between the two counts whose privacy loss is ``loss``."""
    noise = _noise()
    return optimize.brentq(
        lambda output: noise.privacy_loss(output) - loss, _COUNT, _COUNT + 1.0, xtol=1e-12
    )


def _output_with_slope_one(loss):
    """The slip: L taken as (midpoint - O)/b, half the true slope 2/b."""
    return _COUNT + 0.5 - loss * _SCALE


def _probability_of_d1(prior_odds, factor):
    odds = prior_odds * factor
    return odds / (1.0 + odds)


def _factor_at(output):
    return np.exp(_noise().privacy_loss(output))


def _mass_between(low, high, sensitivity=2.0):
    """P[low < A(D1) < high] for the Laplace mechanism of the lesson."""
    noise = _noise(sensitivity)
    law = stats.laplace(loc=noise.center, scale=noise.scale)
    return law.cdf(high) - law.cdf(low)


EXERCISES = [
    number(
        "01.odds-times-two",
        title="The output that doubles the odds",
        question=(
            "Keep the lesson's setting: $D_1$ has 1000 blue-eyed people, $D_2$ has 1001, and "
            "the noise is Laplace of scale $b = 1/\\ln 3$. Which output $O$ moves the "
            "attacker's odds of $D_1$ against $D_2$ by a factor of exactly $\\times 2$? Give "
            "$O$ to three decimals."
        ),
        compute=lambda: _output_with_loss(np.log(2.0)),
        tolerance=absolute(0.002),
        mistakes=[
            mistake(
                "half-slope",
                "Between the two counts L(O) falls by 2/b per unit of O, not 1/b: both "
                "distances |O − 1000| and |O − 1001| change as O moves.",
                lambda: _output_with_slope_one(np.log(2.0)),
            ),
            mistake(
                "wrong-direction",
                "Your output divides the odds by 2: it favours D2. Which side of the "
                "midpoint 1000.5 are the outputs that favour D1 on?",
                lambda: _output_with_loss(-np.log(2.0)),
            ),
        ],
        advice="Write L(O) for 1000 ≤ O ≤ 1001 and solve L(O) = ln 2.",
        solution=(
            "The odds move by $e^{\\mathcal{L}(O)}$, so we need $\\mathcal{L}(O) = \\ln 2$. "
            "Between the counts, $|O - 1000| = O - 1000$ and $|O - 1001| = 1001 - O$:\n\n"
            "$$\\mathcal{L}(O) = \\frac{|O - 1001| - |O - 1000|}{b} = "
            "(2001 - 2O)\\ln 3.$$\n\n"
            "Setting it to $\\ln 2$ gives $O = 1000.5 - \\frac{\\ln 2}{2 \\ln 3} \\approx "
            "1000.185$: a little to the $D_1$ side of the midpoint, where $\\mathcal{L}$ runs "
            "from $\\ln 3$ at 1000 down to $-\\ln 3$ at 1001. Check: at $O = 1000.185$, "
            "$(2001 - 2O)\\ln 3 = 0.63 \\ln 3 \\approx 0.692 \\approx \\ln 2$."
        ),
    ),
    number(
        "01.posterior",
        title="From prior odds to a probability",
        question=(
            "An attacker thinks $D_1$ is unlikely: their prior odds are $1 : 9$ for $D_1$ "
            "against $D_2$. They see the output $O_1 = 999$. What probability do they now give "
            "to $D_1$?"
        ),
        compute=lambda: _probability_of_d1(1.0 / 9.0, _factor_at(999.0)),
        tolerance=absolute(0.001),
        mistakes=[
            mistake(
                "odds-not-probability",
                "That is the posterior *odds* of D1 against D2. A probability is "
                "odds / (1 + odds).",
                lambda: (1.0 / 9.0) * _factor_at(999.0),
            ),
            mistake(
                "probability-times-factor",
                "Bayes' rule multiplies the odds by e^L, not the probability: 0.1 × 3 is "
                "not a posterior.",
                lambda: 0.1 * _factor_at(999.0),
            ),
            mistake(
                "ignored-prior",
                "That is the posterior of an attacker who started at even odds, 1 : 1. This "
                "one starts at 1 : 9 against D1: multiply those prior odds by e^ℒ.",
                lambda: _probability_of_d1(1.0, _factor_at(999.0)),
            ),
            mistake(
                "divided-by-factor",
                "999 is below both counts, where Laplace noise makes D1 the likelier source: "
                "the odds of D1 go up, not down.",
                lambda: _probability_of_d1(1.0 / 9.0, 1.0 / _factor_at(999.0)),
            ),
        ],
        solution=(
            "Posterior odds are prior odds times $e^{\\mathcal{L}(O)}$. At $O_1 = 999$, below "
            "both counts, $\\mathcal{L} = \\Delta / b = \\ln 3$, so the factor is 3:\n\n"
            "$$\\frac{\\Pr[D_1 \\mid O_1]}{\\Pr[D_2 \\mid O_1]} = \\frac19 \\cdot 3 = \\frac13, "
            "\\qquad \\Pr[D_1 \\mid O_1] = \\frac{1/3}{1 + 1/3} = \\frac14.$$\n\n"
            "The attacker went from 10 % to 25 %: a factor of 3 on the odds is less than a "
            "factor of 3 on the probability, and it can never push a probability past 1."
        ),
    ),
    number(
        "01.middle-width",
        title="The sloped part when $\\Delta = 2$",
        question=(
            "Now $D_2$ has 1002 blue-eyed people ($\\Delta = 2$), with the same scale "
            "$b = 1/\\ln 3$. In the PLRV-3 picture (outputs of $\\mathcal A(D_1)$ sorted by "
            "decreasing $\\mathcal{L}$, probability on the x-axis), how wide is the middle "
            "part, where $e^{\\mathcal{L}}$ slides down between its two flat steps?"
        ),
        compute=lambda: _mass_between(_COUNT, _COUNT + 2.0),
        mistakes=[
            mistake(
                "sensitivity-one",
                "That is the middle width for Δ = 1. With D2 at 1002, the sloped part "
                "covers every output between the two counts.",
                lambda: _mass_between(_COUNT, _COUNT + 1.0, sensitivity=1.0),
            ),
            mistake(
                "bottom-step",
                "That is the width of the bottom step, the outputs at or above 1002.",
                lambda: 1.0 - _mass_between(-np.inf, _COUNT + 2.0),
            ),
            mistake(
                "top-step",
                "That is the top step, the outputs at or below 1000: half of A(D1), whatever Δ is.",
                lambda: _mass_between(-np.inf, _COUNT),
            ),
            mistake(
                "forgot-half",
                "Check the Laplace tail: for x ≥ 0, Pr[X > x] = ½ e^(−x/b), not e^(−x/b). "
                "The noise is positive only half of the time.",
                lambda: 2.0 * _mass_between(_COUNT, _COUNT + 2.0),
            ),
        ],
        solution=(
            "$\\mathcal{L}(O)$ is flat at $+\\Delta/b$ for $O \\le 1000$, flat at $-\\Delta/b$ "
            "for $O \\ge 1002$, and slopes in between. The middle width is the probability "
            "that $\\mathcal A(D_1) = 1000 + \\mathrm{Lap}(b)$ lands in $(1000, 1002)$:\n\n"
            "$$\\Pr[0 < X < 2] = \\tfrac12\\bigl(1 - e^{-2/b}\\bigr) = \\tfrac12(1 - 3^{-2}) = "
            "\\tfrac49.$$\n\n"
            "The top step keeps its width $\\tfrac12$ and the bottom step shrinks to "
            "$\\tfrac12 \\cdot 3^{-2} = \\tfrac1{18}$; the three add up to 1."
        ),
    ),
    choice(
        "01.why-bounded",
        title="Why the Laplace loss is bounded",
        question=(
            "For Laplace noise, $|\\mathcal{L}(O)| \\le \\Delta / b$ for **every** output $O$. "
            "Which argument proves it?"
        ),
        options={
            "a": "The Laplace density is at most 1/(2b), so no ratio of densities can be large.",
            "b": "Outputs far from both counts are so unlikely that they do not count.",
            "c": "| |O − 1001| − |O − 1000| | ≤ |1001 − 1000| = Δ (triangle inequality), and "
            "L(O) is that difference divided by b.",
            "d": "The noise is symmetric around the true count, so gains and losses cancel.",
        },
        answer="c",
        hints={
            "a": (
                "bounded-density",
                "Gaussian densities are bounded too, and their privacy loss is not: a bound "
                "on each density says nothing about their ratio.",
            ),
            "b": (
                "unlikely-outputs",
                "The claim is for every output, however unlikely. Far to the left, what is "
                "L(O) exactly?",
            ),
            "d": (
                "symmetric-noise",
                "Gaussian noise is symmetric as well, with an unbounded loss. Write L(O) out "
                "and look at the two distances in it.",
            ),
        },
        praise="The bound is reached for every O ≤ 1000: ε = Δ/b is exact.",
        solution=(
            "With Laplace densities $\\frac1{2b}e^{-|O - \\mu|/b}$ the constants cancel in "
            "the ratio:\n\n$$\\mathcal{L}(O) = \\frac{|O - 1001| - |O - 1000|}{b}.$$\n\n"
            "By the triangle inequality, $\\bigl||O - 1001| - |O - 1000|\\bigr| \\le "
            "|1001 - 1000| = \\Delta$, so $|\\mathcal{L}(O)| \\le \\Delta/b$ for every $O$. "
            "Nothing about probabilities is used: the bound holds output by output, which is "
            "what $\\varepsilon$-DP asks. It is tight: for $O \\le 1000$ the difference is "
            "exactly $\\Delta$."
        ),
    ),
]
