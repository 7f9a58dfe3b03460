"""Exercises of lesson 07, "Add noise to numeric queries in practice": rounding, budgets, U.

References and mistakes are computed with ``dplearn.calibration`` (Laplace scales) and
scipy's Laplace law, the distribution ``dplearn.mechanisms`` samples from.

Taught in: 07-add-noise-in-practice.ipynb
"""

import numpy as np
from scipy import optimize, stats

from dplearn import calibration
from dplearn.exercises import choice, function, mistake, number

_ANSWERS, _TOLERANCE, _CONFIDENCE = 100, 5, 0.95
_VALUES, _SENSITIVITIES = (3000.0, 10.0), (4.0, 1.0)


def _within(epsilon, half_width):
    """P[|X| < half_width] for X ~ Lap(1/epsilon): a rounded answer within the tolerance."""
    law = stats.laplace(scale=calibration.laplace_scale(epsilon, 1.0))
    return law.cdf(half_width) - law.cdf(-half_width)


def _smallest_epsilon(answers, half_width):
    """Smallest epsilon with P[all `answers` answers within] >= the confidence."""
    return optimize.brentq(
        lambda epsilon: _within(epsilon, half_width) ** answers - _CONFIDENCE,
        1e-3,
        50.0,
        xtol=1e-12,
    )


def _rounded_error(epsilon, k, low_offset=-0.5, high_offset=0.5):
    """P[rint(X) = k] for X ~ Lap(1/epsilon): the mass of [k - 1/2, k + 1/2]."""
    law = stats.laplace(scale=calibration.laplace_scale(epsilon, 1.0))
    return law.cdf(k + high_offset) - law.cdf(k + low_offset)


def _share_for_equal_relative_errors(values, sensitivities):
    """Share s of epsilon for the first coordinate making scale_i / value_i equal."""

    def gap(share):
        first = calibration.laplace_scale(share, sensitivities[0]) / values[0]
        second = calibration.laplace_scale(1.0 - share, sensitivities[1]) / values[1]
        return first - second

    return optimize.brentq(gap, 1e-9, 1.0 - 1e-9, xtol=1e-14)


EXERCISES = [
    number(
        "07.all-within",
        title="A budget for 100 answers within 5",
        question=(
            "As in NOISE-2, a sum whose true value is 3000 (sensitivity 1) is answered "
            "$n = 100$ times, each answer $\\mathrm{rint}(3000 + \\mathrm{Lap}(1/\\varepsilon))$ "
            "with its own noise. What is the smallest $\\varepsilon$ for which **all 100** "
            "answers lie within 5 of 3000 with probability at least 0.95?"
        ),
        compute=lambda: _smallest_epsilon(_ANSWERS, _TOLERANCE + 0.5),
        mistakes=[
            mistake(
                "one-answer",
                "That ε makes one answer land within 5 with probability 0.95. All 100 must, "
                "and their noises are independent.",
                lambda: _smallest_epsilon(1, _TOLERANCE + 0.5),
            ),
            mistake(
                "forgot-rounding",
                "Rounding widens the window: rint(3000 + X) is within 5 of 3000 when "
                "|X| < 5.5, not 5.",
                lambda: _smallest_epsilon(_ANSWERS, float(_TOLERANCE)),
            ),
        ],
        solution=(
            "One rounded answer is within 5 when $|X| < 5.5$, with probability "
            "$p = 1 - e^{-5.5\\varepsilon}$. The 100 noises are independent, so all are "
            "within with probability $p^{100}$. Solve $p^{100} = 0.95$:\n\n"
            "$$1 - e^{-5.5\\varepsilon} = 0.95^{1/100} \\iff \\varepsilon = "
            "\\frac{-\\ln\\bigl(1 - 0.95^{1/100}\\bigr)}{5.5} \\approx 1.377.$$\n\n"
            "Note what this costs: each of the 100 answers spends its own budget, so by "
            "sequential composition the 100 together are $100\\varepsilon$-DP."
        ),
    ),
    function(
        "07.rounded-error",
        title="The chance of being off by exactly $k$",
        question=(
            "An answer is released as $\\mathrm{rint}(v + \\mathrm{Lap}(1/\\varepsilon))$ for a "
            "whole number $v$. Write the probability that it is off by exactly $+k$, "
            "$\\Pr[\\mathrm{rint}(v + X) = v + k]$, for whole $k \\ge 1$, as a function "
            "`f(epsilon, k)`."
        ),
        parameters=("epsilon", "k"),
        compute=_rounded_error,
        source="1/2 * (exp(-(k - 1/2)*epsilon) - exp(-(k + 1/2)*epsilon))",
        cases=[(1.0, 1), (1.0, 3), (0.1, 1), (0.01, 50), (5.0, 1), (0.5, 20)],
        mistakes=[
            mistake(
                "density-not-mass",
                "That is the Laplace density at k. Rounding collects a whole interval of "
                "noise values into the answer v + k: integrate the density over it.",
                lambda epsilon, k: epsilon / 2 * np.exp(-epsilon * k),
                source="epsilon/2 * exp(-epsilon*k)",
            ),
            mistake(
                "both-directions",
                "You counted k and −k: that is P[|error| = k]. The question asks for an "
                "error of exactly +k.",
                lambda epsilon, k: 2 * _rounded_error(epsilon, k),
                source="exp(-(k - 1/2)*epsilon) - exp(-(k + 1/2)*epsilon)",
            ),
            mistake(
                "floor-not-round",
                "Your interval is [k, k + 1): that is truncation. rint rounds to the nearest "
                "whole number: which noise values end at v + k?",
                lambda epsilon, k: _rounded_error(epsilon, k, 0.0, 1.0),
                source="1/2 * (exp(-k*epsilon) - exp(-(k + 1)*epsilon))",
            ),
        ],
        solution=(
            "$\\mathrm{rint}(v + X) = v + k$ exactly when $k - \\tfrac12 \\le X < k + "
            "\\tfrac12$ (ties have probability 0). For $k \\ge 1$ this interval is on the "
            "positive side, where $\\Pr[X \\ge x] = \\tfrac12 e^{-\\varepsilon x}$:\n\n"
            "$$P = \\tfrac12\\bigl(e^{-(k - 1/2)\\varepsilon} - e^{-(k + 1/2)\\varepsilon}"
            "\\bigr) = e^{-k\\varepsilon}\\sinh(\\varepsilon/2).$$\n\n"
            "Each step further away multiplies the chance by $e^{-\\varepsilon}$: the rounded "
            "noise is exactly the discrete Laplace (geometric) distribution away from 0."
        ),
    ),
    number(
        "07.split-share",
        title="A budget split for equal relative errors",
        question=(
            "NOISE-3's pair $(3000, 10)$, with its own sensitivities $\\Delta_1 = 4$ and "
            "$\\Delta_2 = 1$, gets Laplace noise with $\\varepsilon_1 = s\\varepsilon$ for the "
            "first number and $\\varepsilon_2 = (1 - s)\\varepsilon$ for the second. Which "
            "share $s$ makes the two **relative** noise scales "
            "$\\frac{\\Delta_i/\\varepsilon_i}{v_i}$ equal?"
        ),
        compute=lambda: _share_for_equal_relative_errors(_VALUES, _SENSITIVITIES),
        mistakes=[
            mistake(
                "equal-absolute-scales",
                "That share makes the two absolute scales Δᵢ/εᵢ equal. Relative errors "
                "divide each scale by the size of its number.",
                lambda: _share_for_equal_relative_errors((1.0, 1.0), _SENSITIVITIES),
            ),
            mistake(
                "second-share",
                "That is the share of the second, small number, 1 − s. The question asks "
                "for the first number's share.",
                lambda: 1.0 - _share_for_equal_relative_errors(_VALUES, _SENSITIVITIES),
            ),
            mistake(
                "ignored-sensitivities",
                "The two numbers have different sensitivities, 4 and 1: the scale of "
                "coordinate i is Δᵢ/εᵢ.",
                lambda: _share_for_equal_relative_errors(_VALUES, (1.0, 1.0)),
            ),
        ],
        solution=(
            "Set the two relative scales equal and solve for $s$ ($\\varepsilon$ cancels):\n\n"
            "$$\\frac{4}{3000\\,s} = \\frac{1}{10\\,(1 - s)} \\iff 40(1 - s) = 3000\\,s "
            "\\iff s = \\frac{40}{3040} \\approx 0.0132.$$\n\n"
            "Almost all of the budget goes to the small number. Equal relative errors are "
            "not the best split for the *sum* of the relative errors (that one gives "
            "$\\varepsilon_i \\propto \\sqrt{\\Delta_i / v_i}$, printed in the lesson): "
            "equalising them lets the worse coordinate decide."
        ),
    ),
    choice(
        "07.open-interval",
        title="The draw that breaks the inverse CDF",
        question=(
            "A sampler draws a uniform number from a computer's random generator, which "
            "returns $k \\cdot 2^{-53}$ for a whole $k$ from $0$ to $2^{53} - 1$, subtracts "
            "$\\tfrac12$ to get $U$, and returns "
            "$X = \\mu - b\\,\\mathrm{sgn}(U)\\ln(1 - 2|U|)$. Which draw goes "
            "wrong, and what comes out?"
        ),
        options={
            "a": "U = 0 (k = 2⁵²): sgn(0) = 0 and the formula divides by zero.",
            "b": "U = +½: ln(1 − 1) = −∞, so X = +∞.",
            "c": "U = −½ (k = 0): ln(1 − 1) = −∞, so X = −∞, about once in 2⁵³ draws.",
            "d": "None: every U in [−½, ½) gives a finite X.",
        },
        answer="c",
        hints={
            "a": (
                "zero-draw",
                "At U = 0 nothing divides: sgn(0) = 0 and ln(1) = 0. What is X there?",
            ),
            "b": (
                "plus-half",
                "The generator's largest value is 1 − 2⁻⁵³, below 1: can U reach +½? Look at "
                "the other end of [−½, ½).",
            ),
            "d": (
                "interval-is-fine",
                "The formula needs |U| < ½. Is −½ in [−½, ½)?",
            ),
        },
        praise="The formula needs the open interval (−½, ½).",
        solution=(
            "$U = k\\,2^{-53} - \\tfrac12$ lies in $[-\\tfrac12, \\tfrac12)$: $+\\tfrac12$ is "
            "never reached, but $k = 0$ gives $U = -\\tfrac12$ and\n\n"
            "$$X = \\mu - b\\cdot(-1)\\cdot\\ln(1 - 2\\cdot\\tfrac12) = \\mu + b\\ln 0 = "
            "-\\infty,$$\n\n"
            "with probability $2^{-53}$ per draw. At $U = 0$ the sample is simply $\\mu$. The "
            "fix is a uniform on the open interval, e.g. the midpoints "
            "$(k + \\tfrac12)\\,2^{-53} - \\tfrac12$, as this package's inverse-CDF sampler "
            "does."
        ),
    ),
]
