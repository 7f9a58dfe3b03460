"""Exercises of lesson 06, "Calibrate Gaussian noise": classic against analytic σ, ℓ1 and ℓ2.

References and mistakes are computed with ``dplearn.calibration`` (the classic formula
and the exact, analytic σ of Balle & Wang 2018).

Taught in: 06-calibrate-gaussian-noise.ipynb
"""

import functools

import numpy as np
from scipy import optimize

from dplearn import calibration
from dplearn.exercises import choice, mistake, number

_DELTA = 1e-6
_COORDINATES, _PEOPLE, _EPSILON = 100, 1000, 1.0


def _classic_over_analytic(epsilon, delta):
    return calibration.gaussian_sigma_classic(epsilon, delta) / calibration.gaussian_sigma_analytic(
        epsilon, delta
    )


@functools.cache  # a root of root-finders: solved once per kernel, on first use
def _epsilon_where_ratio_is(target, delta, low, high):
    return optimize.brentq(
        lambda epsilon: _classic_over_analytic(epsilon, delta) - target, low, high, xtol=1e-10
    )


def _averages_sensitivity(norm):
    """Sensitivity of 100 averages of values in [0, 1] over 1000 people (replace)."""
    per_coordinate = np.full(_COORDINATES, 1.0 / _PEOPLE)  # one person moves each mean by 1/n
    return float(np.linalg.norm(per_coordinate, ord=norm))


EXERCISES = [
    number(
        "06.ten-percent",
        title="Where the classic $\\sigma$ wastes 10 %",
        question=(
            "For $\\delta = 10^{-6}$, at which $\\varepsilon$ is the classic "
            "$\\sigma = \\sqrt{2\\ln(1.25/\\delta)}/\\varepsilon$ exactly 10 % larger than the "
            "analytic $\\sigma$? The calculator under MECH-4 gives both $\\sigma$ and their "
            "ratio at any $\\varepsilon$ and $\\delta$: the ratio falls as $\\varepsilon$ grows, "
            "so narrow down the $\\varepsilon$ where it crosses 1.1."
        ),
        compute=lambda: _epsilon_where_ratio_is(1.1, _DELTA, 0.01, 8.0),
        mistakes=[
            mistake(
                "lesson-delta",
                "Check your δ: the lesson's figures use 10⁻⁵, this question 10⁻⁶.",
                lambda: _epsilon_where_ratio_is(1.1, 1e-5, 0.01, 8.0),
            ),
            mistake(
                "inverted-ratio",
                "You found where the analytic σ is 10 % above the classic one, past the "
                "crossing, where the classic σ is too small.",
                lambda: _epsilon_where_ratio_is(1 / 1.1, _DELTA, 9.0, 60.0),
            ),
        ],
        solution=(
            "The ratio $r(\\varepsilon) = \\sigma_{\\text{classic}}/\\sigma_{\\text{analytic}}$ "
            "falls from large values at small $\\varepsilon$ to 1 at the crossing (about 8.8 "
            "at $\\delta = 10^{-6}$). Solve\n\n"
            "$$r(\\varepsilon) = \\frac{\\sqrt{2\\ln(1.25/\\delta)}/\\varepsilon}"
            "{\\sigma_{\\text{analytic}}(\\varepsilon, \\delta)} = 1.1$$\n\n"
            "by bisection on a bracket where $r - 1.1$ changes sign (above 1.1 at "
            "$\\varepsilon = 4$, below it at $\\varepsilon = 5$; halve the bracket, keep the "
            "half where the sign changes): $\\varepsilon \\approx 4.33$. "
            "Below it the classic formula wastes more than 10 % of the noise, far more than "
            "the textbook's $\\varepsilon < 1$ condition suggests."
        ),
    ),
    choice(
        "06.crossover-epsilon",
        title="Why $\\varepsilon$ cancels in the classic crossover",
        question=(
            "With the classic $\\sigma$, Laplace and Gaussian noise per coordinate are equal "
            "at $d^* = \\ln(1.25/\\delta)$, whatever $\\varepsilon$ is; with the analytic "
            "$\\sigma$, $d^*$ moves with $\\varepsilon$. Why?"
        ),
        options={
            "a": "Gaussian noise does not depend on ε, only on δ.",
            "b": "Both classic standard deviations are proportional to 1/ε, so ε cancels "
            "when they are set equal; the analytic σ is not proportional to 1/ε.",
            "c": "The classic formula only holds for ε < 1, where d* cannot move.",
            "d": "The clipping bound c absorbs ε.",
        },
        answer="b",
        hints={
            "a": (
                "gaussian-ignores-epsilon",
                "Write the classic σ out: where does ε appear in √(2 ln(1.25/δ))·Δ/ε?",
            ),
            "c": (
                "proof-condition",
                "The condition ε < 1 is about when the classic σ is proved valid; d* is "
                "algebra on two formulas, whatever ε is.",
            ),
            "d": (
                "clip-absorbs",
                "c cancels too, but it is not where ε goes: compare how each standard "
                "deviation scales with ε.",
            ),
        },
        praise="The analytic σ·ε grows with ε, which moves d*.",
        solution=(
            "With $\\ell_1$ sensitivity $dc$ and $\\ell_2$ sensitivity $\\sqrt d\\,c$:\n\n"
            "$$\\mathrm{sd}_{\\text{Laplace}} = \\frac{\\sqrt2\\,d\\,c}{\\varepsilon}, \\qquad "
            "\\sigma_{\\text{classic}} = \\frac{\\sqrt d\\,c\\sqrt{2\\ln(1.25/\\delta)}}"
            "{\\varepsilon}.$$\n\n"
            "Setting them equal, $c$ and $\\varepsilon$ cancel: $\\sqrt d = "
            "\\sqrt{\\ln(1.25/\\delta)}$, so $d^* = \\ln(1.25/\\delta)$. The analytic "
            "$\\sigma$ is $\\sqrt d\\,c\\,s(\\varepsilon, \\delta)$ with $\\varepsilon s$ not "
            "constant, so $d^* = (\\varepsilon s)^2/2$ moves with $\\varepsilon$."
        ),
    ),
    number(
        "06.averages-l2",
        title="Sensitivity of 100 averages",
        question=(
            "A query returns 100 averages over a data set of $n = 1000$ people; each person "
            "contributes a value in $[0, 1]$ to every one of them. Under the **replace** "
            "notion (the size $n$ is public), what is the query's $\\ell_2$ sensitivity?"
        ),
        compute=lambda: _averages_sensitivity(2),
        mistakes=[
            mistake(
                "l1-not-l2",
                "You added the 100 changes: that is the ℓ1 sensitivity, for Laplace noise.",
                lambda: _averages_sensitivity(1),
            ),
            mistake(
                "forgot-n",
                "An average divides by n: one person moves each average by at most 1/n, not 1.",
                lambda: _averages_sensitivity(2) * _PEOPLE,
            ),
        ],
        solution=(
            "Replacing one person moves each average by at most $1/n$ (one term of the sum "
            "changes by at most 1, and the sum is divided by $n$). All 100 coordinates can "
            "move at once, so the change vector is at most $(1/n, \\dots, 1/n)$:\n\n"
            "$$\\Delta_2 = \\sqrt{100}\\cdot\\frac{1}{1000} = 0.01, \\qquad "
            "\\Delta_1 = \\frac{100}{1000} = 0.1.$$\n\n"
            "A person touches every coordinate, so $\\ell_2$ is $\\sqrt{d}$ times smaller than "
            "$\\ell_1$ here: the case where Gaussian noise wins."
        ),
    ),
    number(
        "06.averages-sigma",
        title="Gaussian noise for the 100 averages",
        question=(
            "For the same 100 averages, at $\\varepsilon = 1$ and $\\delta = 10^{-6}$: what "
            "standard deviation per coordinate does the smallest valid Gaussian noise have?"
        ),
        compute=lambda: calibration.gaussian_sigma_analytic(
            _EPSILON, _DELTA, _averages_sensitivity(2)
        ),
        mistakes=[
            mistake(
                "l1-sensitivity",
                "Gaussian noise is calibrated to the ℓ2 sensitivity; you used the ℓ1 one.",
                lambda: calibration.gaussian_sigma_analytic(
                    _EPSILON, _DELTA, _averages_sensitivity(1)
                ),
            ),
            mistake(
                "classic-sigma",
                "That is the classic formula's σ. The smallest valid σ is the analytic one, "
                "which is smaller at this ε.",
                lambda: calibration.gaussian_sigma_classic(
                    _EPSILON, _DELTA, _averages_sensitivity(2)
                ),
            ),
            mistake(
                "laplace-instead",
                "That is the standard deviation of Laplace noise for the ℓ1 sensitivity, "
                "√2·Δ₁/ε: the question asks for Gaussian noise.",
                lambda: np.sqrt(2) * calibration.laplace_scale(_EPSILON, _averages_sensitivity(1)),
            ),
        ],
        solution=(
            "Gaussian noise is calibrated to $\\Delta_2 = 0.01$. The smallest valid $\\sigma$ "
            "solves $\\delta(\\sigma) = 10^{-6}$ exactly (Balle & Wang):\n\n"
            "$$\\sigma = \\Delta_2 \\cdot s(1, 10^{-6}) \\approx 0.01 \\times 4.22 "
            "\\approx 0.0422,$$\n\n"
            "with $s(1, 10^{-6})$ the analytic $\\sigma$ for sensitivity 1 (MECH-4's "
            "calculator at $\\varepsilon = 1$, $\\delta = 10^{-6}$). The classic formula "
            "would give $0.053$, and Laplace noise for $\\Delta_1 = 0.1$ a standard deviation "
            "of $\\sqrt2 \\cdot 0.1 \\approx 0.141$: more than three times the Gaussian one."
        ),
    ),
]
