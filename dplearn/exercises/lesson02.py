"""Exercises of lesson 02, "See what δ means": δ₁, δ₂ and the Gaussian mechanism.

Every reference and every anticipated mistake is computed with ``dplearn.privacy_loss``
when an answer is checked.

Taught in: 02-see-what-delta-means.ipynb
"""

import numpy as np
from scipy import special

from dplearn import privacy_loss
from dplearn.exercises import choice, function, mistake, number

# The setting of delta-two: noise of variance 4 (sigma = 2), epsilon = 1.
_VARIANCE, _EPSILON = 4.0, 1.0
_SIGMA = np.sqrt(_VARIANCE)


def _delta_without_exp(sigma, epsilon):
    """Balle & Wang's closed form with the factor e^epsilon dropped from its second term."""
    ratio = 1.0 / sigma
    return special.ndtr(ratio / 2 - epsilon / ratio) - special.ndtr(-ratio / 2 - epsilon / ratio)


def _epsilon_for_width(sigma, delta):
    """The epsilon at which delta_1 = P[L > epsilon] equals delta: r (r/2 - Phi^-1(delta))."""
    ratio = 1.0 / sigma
    return ratio * (ratio / 2 - special.ndtri(delta))


EXERCISES = [
    number(
        "02.delta-two",
        title="The $\\delta$ of a Gaussian mechanism",
        question=(
            "A count (sensitivity $\\Delta = 1$) is released with Gaussian noise of "
            "**variance** $\\sigma^2 = 4$. At $\\varepsilon = 1$, what is the smallest $\\delta$ "
            "for which this mechanism is $(\\varepsilon, \\delta)$-DP? The lesson gives Balle & "
            "Wang's formula for it under PLRV-9; the box takes it as typed, with `Phi` for "
            "$\\Phi$ and `e` for $e$ (or use the calculator under PLRV-9)."
        ),
        compute=lambda: privacy_loss.gaussian(_SIGMA).delta(_EPSILON),
        mistakes=[
            mistake(
                "width-not-area",
                "You computed δ₁ = Pr[ℒ > ε], the width of the bad events. The δ of the "
                "definition weighs each bad event by how bad it is: the area δ₂.",
                lambda: privacy_loss.gaussian(_SIGMA).loss_exceeds(_EPSILON),
            ),
            mistake(
                "variance-as-sigma",
                "You used the variance where the standard deviation belongs: the σ of the "
                "formula is √(σ²), not σ².",
                lambda: privacy_loss.gaussian(_VARIANCE).delta(_EPSILON),
            ),
            mistake(
                "dropped-exp-epsilon",
                "Your closed form lost the factor e^ε in front of its second Φ term: "
                "δ = Φ(Δ/2σ − εσ/Δ) − e^ε Φ(−Δ/2σ − εσ/Δ).",
                lambda: _delta_without_exp(_SIGMA, _EPSILON),
            ),
        ],
        solution=(
            "The smallest $\\delta$ of the definition is the area $\\delta_2$ of the bad events, "
            "$\\delta_2 = \\mathbb{E}[\\max(0, 1 - e^{\\varepsilon - \\mathcal{L}})]$, not their "
            "width $\\delta_1 = \\Pr[\\mathcal{L} > \\varepsilon]$.\n\n"
            "With $\\sigma = \\sqrt{4} = 2$ and $\\Delta = 1$ the loss is "
            "$\\mathcal{L} \\sim \\mathcal{N}(\\mu, 2\\mu)$ with $\\mu = \\Delta^2/(2\\sigma^2) = "
            "1/8$, and Balle & Wang's closed form gives\n\n"
            "$$\\delta_2 = \\Phi\\Big(\\frac{\\Delta}{2\\sigma} - \\frac{\\varepsilon\\sigma}"
            "{\\Delta}\\Big) - e^{\\varepsilon}\\,\\Phi\\Big(-\\frac{\\Delta}{2\\sigma} - "
            "\\frac{\\varepsilon\\sigma}{\\Delta}\\Big) = \\Phi(-1.75) - e\\,\\Phi(-2.25) "
            "\\approx 0.00683.$$\n\n"
            "The width at the same point, $\\delta_1 = \\Phi\\big(\\frac{\\Delta}{2\\sigma} - "
            "\\frac{\\varepsilon\\sigma}{\\Delta}\\big) = \\Phi(-1.75)$, is about 0.040: six "
            "times larger."
        ),
        from_code=(
            "`privacy_loss.gaussian(2.0).delta(1.0)` computes $\\delta_2$ at "
            "$\\sigma = 2$, $\\varepsilon = 1$; its method `loss_exceeds` gives the width."
        ),
    ),
    choice(
        "02.delta-order",
        title="Which $\\delta$ is larger?",
        question=(
            "For any mechanism and any $\\varepsilon$, how do the width "
            "$\\delta_1 = \\Pr[\\mathcal{L} > \\varepsilon]$ and the area "
            "$\\delta_2 = \\mathbb{E}[\\max(0, 1 - e^{\\varepsilon - \\mathcal{L}})]$ compare?"
        ),
        options={
            "a": "δ₁ ≤ δ₂, because δ₂ also counts the outputs with ℒ ≤ ε.",
            "b": "δ₂ ≤ δ₁, because each bad output adds only a fraction 1 − e^(ε − ℒ) < 1 "
            "of its probability.",
            "c": "δ₁ = δ₂ always: both measure the same bad outputs.",
            "d": "It depends on the mechanism: for Gaussian noise δ₂ ≤ δ₁, for others not.",
        },
        answer="b",
        hints={
            "a": (
                "good-events-count",
                "Look at the outputs with ℒ ≤ ε: what is max(0, 1 − e^(ε − ℒ)) for them?",
            ),
            "c": (
                "same-events-same-mass",
                "They sum over the same outputs, but with different weights: compare the "
                "weight 1 of δ₁ with the weight 1 − e^(ε − ℒ) of δ₂ for one bad output.",
            ),
            "d": (
                "depends-on-mechanism",
                "The comparison can be made output by output, whatever the mechanism: what "
                "is the largest weight 1 − e^(ε − ℒ) can take?",
            ),
        },
        praise="Equality needs every bad output to have ℒ = ∞: lesson 03.",
        solution=(
            "Write both as expectations over outputs drawn from $A(D_1)$:\n\n"
            "$$\\delta_1 = \\mathbb{E}[\\mathbf{1}\\{\\mathcal{L} > \\varepsilon\\}], \\qquad "
            "\\delta_2 = \\mathbb{E}[\\mathbf{1}\\{\\mathcal{L} > \\varepsilon\\}\\,"
            "(1 - e^{\\varepsilon - \\mathcal{L}})].$$\n\n"
            "An output with $\\mathcal{L} \\le \\varepsilon$ adds nothing to either. An output "
            "with $\\mathcal{L} > \\varepsilon$ adds $1$ to the first and $1 - e^{\\varepsilon - "
            "\\mathcal{L}} \\in (0, 1)$ "
            "to the second. So $\\delta_2 \\le \\delta_1$ for every mechanism, and they are "
            "close only when nearly all bad outputs have a very large $\\mathcal{L}$ "
            "($e^{\\varepsilon - \\mathcal{L}} \\approx 0$): distinguishing events, where "
            "$\\mathcal{L} = \\infty$, "
            "make them equal. At $\\sigma^2 = 3$, $\\varepsilon = \\ln 3$ the lesson found "
            "$\\delta_1 \\approx 5\\,\\delta_2$: most bad outputs are only a little bad."
        ),
    ),
    number(
        "02.epsilon-at-delta",
        title="The $\\varepsilon$ that a target $\\delta$ buys",
        question=(
            "Keep the lesson's noise, $\\sigma^2 = 3$ and $\\Delta = 1$. A data curator wants "
            "$\\delta = 10^{-5}$. What is the smallest $\\varepsilon$ for which the mechanism is "
            "$(\\varepsilon, 10^{-5})$-DP? Use the calculator under PLRV-9: it gives the exact "
            "$\\delta_2$ at any $\\varepsilon$, and $\\delta_2$ falls as $\\varepsilon$ grows, "
            "so narrow down the $\\varepsilon$ where it crosses $10^{-5}$."
        ),
        compute=lambda: privacy_loss.gaussian(np.sqrt(3.0)).epsilon_for_delta(1e-5),
        mistakes=[
            mistake(
                "width-not-area",
                "You found the ε where the width δ₁ = Pr[ℒ > ε] reaches 10⁻⁵. The target is "
                "the δ of the definition, the area δ₂, which is smaller at every ε.",
                lambda: _epsilon_for_width(np.sqrt(3.0), 1e-5),
            ),
            mistake(
                "variance-as-sigma",
                "You used σ² = 3 where the standard deviation belongs: σ = √3.",
                lambda: privacy_loss.gaussian(3.0).epsilon_for_delta(1e-5),
            ),
            mistake(
                "classic-formula",
                "That is the ε of the classic formula σ = √(2 ln(1.25/δ)) Δ/ε, solved for ε. "
                "It is a sufficient condition (proved for ε < 1), not the smallest ε: use "
                "the exact δ₂.",
                lambda: np.sqrt(2.0 * np.log(1.25 / 1e-5)) / np.sqrt(3.0),
            ),
        ],
        solution=(
            "$\\delta_2(\\varepsilon)$ falls as $\\varepsilon$ grows, so the smallest "
            "$\\varepsilon$ with $\\delta_2(\\varepsilon) \\le 10^{-5}$ is the root of "
            "$\\delta_2(\\varepsilon) = 10^{-5}$, with $\\sigma = \\sqrt 3$ (not 3):\n\n"
            "$$\\Phi\\Big(\\frac{1}{2\\sqrt 3} - \\sqrt 3\\,\\varepsilon\\Big) - e^{\\varepsilon}"
            "\\,\\Phi\\Big(-\\frac{1}{2\\sqrt 3} - \\sqrt 3\\,\\varepsilon\\Big) = 10^{-5} "
            "\\quad\\Longrightarrow\\quad \\varepsilon \\approx 2.341.$$\n\n"
            "Bisection finds the root: $\\delta_2$ is above $10^{-5}$ at $\\varepsilon = 2.3$ and "
            "below it at $2.4$, and so on. Asking the "
            "width $\\delta_1$ to be $10^{-5}$ instead would cost $\\varepsilon \\approx 2.63$: "
            "a guarantee stated with $\\delta_1$ overstates the loss."
        ),
        from_code="`privacy_loss.gaussian(np.sqrt(3)).epsilon_for_delta(1e-5)` finds the root.",
    ),
    function(
        "02.width-formula",
        title="$\\delta_1$ as a function of $\\varepsilon$ and $\\sigma$",
        question=(
            "The lesson showed that for Gaussian noise the privacy loss is normal, "
            "$\\mathcal{L} \\sim \\mathcal{N}(\\mu, 2\\mu)$ with $\\mu = \\Delta^2 / "
            "(2\\sigma^2)$. From "
            "that alone, write the width of the bad events $\\delta_1 = \\Pr[\\mathcal{L} > "
            "\\varepsilon]$ "
            "as a function `f(epsilon, sigma)` for $\\Delta = 1$. The box takes a formula "
            "(`Phi` is the standard normal CDF $\\Phi$); in JupyterLab's answer cell, any "
            "function of the two arguments."
        ),
        parameters=("epsilon", "sigma"),
        compute=lambda epsilon, sigma: privacy_loss.gaussian(sigma).loss_exceeds(epsilon),
        source="Phi((1/(2*sigma^2) - epsilon) * sigma)",
        cases=[
            (0.0, 1.0),
            (np.log(3.0), np.sqrt(3.0)),
            (1.0, 0.5),
            (0.5, 4.0),
            (3.0, 0.2),
            (0.1, 30.0),
        ],
        mistakes=[
            mistake(
                "variance-as-sd",
                "You divided by the variance 2μ of L; standardising divides by its "
                "standard deviation √(2μ).",
                lambda epsilon, sigma: special.ndtr(
                    (1 / (2 * sigma**2) - epsilon) / (1 / sigma**2)
                ),
                source="Phi((1/(2*sigma^2) - epsilon) * sigma^2)",
            ),
            mistake(
                "wrong-tail",
                "Your function gives Pr[ℒ ≤ ε], the good outputs. δ₁ is the other tail.",
                lambda epsilon, sigma: special.ndtr((epsilon - 1 / (2 * sigma**2)) * sigma),
                source="Phi((epsilon - 1/(2*sigma^2)) * sigma)",
            ),
            mistake(
                "mean-without-half",
                "Check your μ: Δ²/(2σ²), with the 2 — and the spread √(2μ) follows from it.",
                lambda epsilon, sigma: special.ndtr(
                    (1 / sigma**2 - epsilon) / np.sqrt(2 / sigma**2)
                ),
                source="Phi((1/sigma^2 - epsilon) / sqrt(2/sigma^2))",
            ),
        ],
        solution=(
            "Standardise $\\mathcal{L}$: with $\\mu = 1/(2\\sigma^2)$ its standard deviation is "
            "$\\sqrt{2\\mu} = 1/\\sigma$, so\n\n"
            "$$\\delta_1 = \\Pr[\\mathcal{L} > \\varepsilon] = \\Pr\\Big[Z > \\frac{\\varepsilon - "
            "\\mu}"
            "{\\sqrt{2\\mu}}\\Big] = \\Phi\\Big(\\frac{\\mu - \\varepsilon}{\\sqrt{2\\mu}}\\Big) "
            "= \\Phi\\Big(\\frac{1}{2\\sigma} - \\varepsilon\\sigma\\Big),$$\n\n"
            "using $\\Pr[Z > z] = \\Phi(-z)$. As a formula: "
            "`Phi((1/(2*sigma^2) - epsilon) * sigma)`. At $\\varepsilon = 0$ it is "
            "$\\Phi(1/(2\\sigma)) > 1/2$: more than half of the outputs have a positive loss."
        ),
    ),
]
