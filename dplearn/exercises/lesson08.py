"""Exercises of lesson 08, "Add up privacy losses": k releases, their loss and their δ.

References and anticipated mistakes are computed with ``dplearn.composition`` (exact
composition and the bounds from epsilon0) and ``dplearn.privacy_loss`` when an answer is
checked; the settings differ from the lesson's, so that its printed numbers are no answers.

Taught in: 08-add-up-privacy-losses.ipynb
"""

import numpy as np

from dplearn import composition, privacy_loss
from dplearn.composition import first_advanced_win
from dplearn.exercises import choice, function, mistake, number

# delta-of-eight: eight Gaussian releases of sigma = 4 at epsilon = 1.
_SIGMA, _RELEASES, _EPSILON = 4.0, 8, 1.0
# mean-loss: twenty Laplace releases of epsilon0 = 0.5.
_LAPLACE_EPSILON0, _LAPLACE_RELEASES = 0.5, 20


def _gaussian(sigma):
    return privacy_loss.gaussian(sigma)


def _laplace_mean(epsilon0, releases):
    return composition.compose(privacy_loss.laplace(1.0 / epsilon0), releases).loss_mean


EXERCISES = [
    number(
        "08.delta-of-eight",
        title="$\\delta$ of eight Gaussian releases",
        question=(
            "A count (sensitivity $\\Delta = 1$) is published **eight** times, each time with "
            "fresh Gaussian noise of standard deviation $\\sigma = 4$. What is the smallest "
            "$\\delta$ for which the eight answers together are $(1, \\delta)$-DP? The box "
            "takes a formula, with `Phi` for $\\Phi$: this lesson says what the loss of "
            "$k$ Gaussian releases is, and lesson 02 gives the exact $\\delta$ of one "
            "Gaussian release (Balle & Wang's formula, under PLRV-9)."
        ),
        compute=lambda: composition.compose(_gaussian(_SIGMA), _RELEASES).delta(_EPSILON),
        mistakes=[
            mistake(
                "one-release",
                "You computed δ for one release. The attacker sees all eight answers, and "
                "their privacy losses add.",
                lambda: _gaussian(_SIGMA).delta(_EPSILON),
            ),
            mistake(
                "sigma-over-k",
                "You divided σ by k. Eight releases are one release with σ/√k: the mean "
                "Δ²/(2σ²) of the loss is multiplied by k, so σ² is divided by k, not σ.",
                lambda: _gaussian(_SIGMA / _RELEASES).delta(_EPSILON),
            ),
            mistake(
                "basic-split",
                "You added up eight single-release δ's at ε/8 each, as basic composition "
                "would: a valid bound, but far from the smallest δ.",
                lambda: _RELEASES * _gaussian(_SIGMA).delta(_EPSILON / _RELEASES),
            ),
            mistake(
                "width-not-area",
                "You computed δ₁ = Pr[ℒ > ε], the width of the bad events. The δ of the "
                "definition is their area, E[max(0, 1 − e^(ε − ℒ))].",
                lambda: composition.compose(_gaussian(_SIGMA), _RELEASES).loss_exceeds(_EPSILON),
            ),
            mistake(
                "one-delta-times-k",
                "Eight times one release's δ at ε = 1 is what basic composition promises, and "
                "for ε = 8, not 1. The eight losses add up: find the δ of their sum at ε = 1.",
                lambda: _RELEASES * _gaussian(_SIGMA).delta(_EPSILON),
            ),
        ],
        solution=(
            "The eight losses add, and a sum of eight independent "
            "$\\mathcal{N}(\\mu, 2\\mu)$ is $\\mathcal{N}(8\\mu, 16\\mu)$ with "
            "$\\mu = \\Delta^2 / (2\\sigma^2) = 1/32$: exactly the loss of **one** release with "
            "$\\sigma' = \\sigma/\\sqrt{8} = \\sqrt{2}$. Its tight $\\delta$ is Balle & Wang's "
            "closed form with $r = \\Delta/\\sigma' = 1/\\sqrt{2}$:\n\n"
            "$$\\delta = \\Phi\\Big(\\frac{r}{2} - \\frac{\\varepsilon}{r}\\Big) - "
            "e^{\\varepsilon}\\,\\Phi\\Big(-\\frac{r}{2} - \\frac{\\varepsilon}{r}\\Big) "
            "= \\Phi(-1.061) - e\\,\\Phi(-1.768) \\approx 0.0396.$$\n\n"
            "As typed in the box: `Phi(1/(2*sqrt(2)) - sqrt(2)) - e*Phi(-1/(2*sqrt(2)) - "
            "sqrt(2))`. One release alone would give about $3 \\times 10^{-6}$."
        ),
        from_code=(
            "`composition.compose(privacy_loss.gaussian(4.0), 8).delta(1.0)` composes the "
            "eight releases exactly."
        ),
    ),
    number(
        "08.mean-loss",
        title="The average privacy loss of twenty Laplace releases",
        question=(
            "Twenty releases of a count, each with Laplace noise of scale $b = 2$ "
            "($\\varepsilon_0 = \\Delta/b = 0.5$). What is the **mean** "
            "$\\mathbb{E}[\\mathcal{L}]$ of their total privacy loss, with the outputs drawn "
            "from $\\mathcal{A}(D_1)$?"
        ),
        compute=lambda: _laplace_mean(_LAPLACE_EPSILON0, _LAPLACE_RELEASES),
        mistakes=[
            mistake(
                "the-bound",
                "You gave the largest value the loss can take, kε₀. It is reached only when "
                "every answer lands below the true count (probability 2⁻ᵏ); the mean is far "
                "smaller.",
                lambda: _LAPLACE_RELEASES * _LAPLACE_EPSILON0,
            ),
            mistake(
                "one-release",
                "That is the mean loss of one release. Means add: multiply by the number of "
                "releases.",
                lambda: _laplace_mean(_LAPLACE_EPSILON0, 1),
            ),
            mistake(
                "sqrt-k",
                "You multiplied by √k: that is how the spread of the sum grows. The mean of a "
                "sum is the sum of the means.",
                lambda: np.sqrt(_LAPLACE_RELEASES) * _laplace_mean(_LAPLACE_EPSILON0, 1),
            ),
            mistake(
                "small-epsilon-approximation",
                "You used kε₀²/2, the small-ε₀ approximation of k times the KL divergence. At "
                "ε₀ = 0.5 it is off by more than the tolerance: use ε₀ + e^(−ε₀) − 1.",
                lambda: _LAPLACE_RELEASES * _LAPLACE_EPSILON0**2 / 2,
            ),
        ],
        solution=(
            "The mean of a sum is the sum of the means, and one release's mean loss is the "
            "Kullback–Leibler divergence between $\\mathcal{A}(D_1)$ and $\\mathcal{A}(D_2)$. "
            "For Laplace noise, writing the loss as a function of the output $x$ and "
            "integrating against $\\mathcal{A}(D_1)$ gives "
            "$\\mathrm{KL} = \\varepsilon_0 + e^{-\\varepsilon_0} - 1$. So\n\n"
            "$$\\mathbb{E}[\\mathcal{L}] = k\\,(\\varepsilon_0 + e^{-\\varepsilon_0} - 1) "
            "= 20\\,(0.5 + e^{-0.5} - 1) \\approx 2.131,$$\n\n"
            "a fifth of the bound $k\\varepsilon_0 = 10$."
        ),
    ),
    choice(
        "08.why-sqrt-k",
        title="Why does advanced composition grow like $\\sqrt{k}$?",
        question=(
            "Advanced composition says $k$ releases of an $\\varepsilon_0$-DP mechanism are "
            "$(\\varepsilon', \\delta')$-DP with "
            "$\\varepsilon' = \\varepsilon_0\\sqrt{2k\\ln(1/\\delta')} + "
            "k\\varepsilon_0(e^{\\varepsilon_0} - 1)$. Where does the $\\sqrt{k}$ come from?"
        ),
        options={
            "a": "Each release's noise is divided by √k, so each loss shrinks by √k.",
            "b": "The loss is a sum of k independent bounded terms, so it strays from its small "
            "mean only by about √k ε₀.",
            "c": "δ′ is spread over the k releases, each getting δ′/k, and ln(k/δ′) grows like √k.",
            "d": "The worst output has loss √k ε₀, because the signs of the k losses cancel "
            "on average.",
        },
        answer="b",
        hints={
            "a": (
                "noise-unchanged",
                "Nothing changes in each release: the same noise, the same ε₀. What changes "
                "is how many losses are added up.",
            ),
            "c": (
                "slack-not-split",
                "δ′ enters once, through ln(1/δ′), and a logarithm grows far slower than √k. "
                "Look at what is being bounded: a sum of k losses.",
            ),
            "d": (
                "worst-case-is-k",
                "The worst output still has loss kε₀ (every answer below the true count). Advanced "
                "composition pays δ′ to ignore such rare outputs: how far does a *typical* "
                "sum stray from its mean?",
            ),
        },
        praise="That concentration argument is Dwork, Rothblum & Vadhan's, via Azuma's inequality.",
        solution=(
            "Write $\\mathcal{L} = \\mathcal{L}_1 + \\dots + \\mathcal{L}_k$ with independent "
            "$|\\mathcal{L}_i| \\le \\varepsilon_0$. Each has a small mean, "
            "$\\mathbb{E}[\\mathcal{L}_i] \\le \\varepsilon_0(e^{\\varepsilon_0} - 1)$ "
            "(about $\\varepsilon_0^2$), so the mean of the sum is at most "
            "$k\\varepsilon_0(e^{\\varepsilon_0} - 1)$: the linear term. A sum of $k$ "
            "independent terms bounded by $\\varepsilon_0$ strays from its mean by more than "
            "$t$ with probability at most $e^{-t^2/(2k\\varepsilon_0^2)}$ (Azuma–Hoeffding). "
            "Setting that probability to $\\delta'$ gives "
            "$t = \\varepsilon_0\\sqrt{2k\\ln(1/\\delta')}$: the $\\sqrt{k}$ term. Outputs "
            "beyond mean $+ t$ are the $\\delta'$ that $(\\varepsilon', \\delta')$-DP allows."
        ),
    ),
    function(
        "08.first-win",
        title="When does advanced composition first beat basic?",
        question=(
            "Each release is $\\varepsilon_0$-DP and you may spend all of $\\delta$ as the slack "
            "$\\delta'$ of advanced composition. Write the **smallest number of releases** $k$ "
            "for which advanced composition gives a smaller $\\varepsilon$ than basic "
            "composition's $k\\varepsilon_0$, as a function `f(epsilon0, delta)` (assume "
            "$e^{\\varepsilon_0} < 2$). The box takes a formula (`floor`, `ln`, `exp`, `sqrt` "
            "are there); from code, any Python function."
        ),
        parameters=("epsilon0", "delta"),
        compute=lambda epsilon0, delta: first_advanced_win(epsilon0, delta),
        source="floor(2*ln(1/delta)/(2 - exp(epsilon0))^2) + 1",
        cases=[(0.1, 1e-5), (0.05, 1e-6), (0.3, 1e-3), (0.5, 1e-8), (0.01, 0.1), (0.6, 1e-4)],
        mistakes=[
            mistake(
                "no-linear-term",
                "You compared ε₀√(2k ln(1/δ)) with kε₀ and forgot advanced composition's "
                "second term, kε₀(e^ε₀ − 1): it eats into the gain and matters more as ε₀ "
                "grows.",
                lambda epsilon0, delta: np.floor(2 * np.log(1 / delta)) + 1,
                source="floor(2*ln(1/delta)) + 1",
            ),
            mistake(
                "last-loser",
                "Your formula gives the last k at which advanced composition does not win "
                "yet (the break-even point rounded down). The question asks for the first k "
                "that wins.",
                lambda epsilon0, delta: np.floor(
                    2 * np.log(1 / delta) / (2 - np.exp(epsilon0)) ** 2
                ),
                source="floor(2*ln(1/delta)/(2 - exp(epsilon0))^2)",
            ),
            mistake(
                "log10",
                "You used a base-10 logarithm; the ln in ln(1/δ′) is natural.",
                lambda epsilon0, delta: (
                    np.floor(2 * np.log10(1 / delta) / (2 - np.exp(epsilon0)) ** 2) + 1
                ),
                source="floor(2*log10(1/delta)/(2 - exp(epsilon0))^2) + 1",
            ),
        ],
        solution=(
            "Advanced beats basic when\n\n"
            "$$\\varepsilon_0\\sqrt{2k\\ln(1/\\delta)} + k\\varepsilon_0(e^{\\varepsilon_0} - 1) "
            "< k\\varepsilon_0 \\iff \\sqrt{2k\\ln(1/\\delta)} < k\\,(2 - e^{\\varepsilon_0}) "
            "\\iff k > \\frac{2\\ln(1/\\delta)}{(2 - e^{\\varepsilon_0})^2}$$\n\n"
            "(dividing by $\\varepsilon_0\\sqrt{k} > 0$, then squaring, which is safe when "
            "$e^{\\varepsilon_0} < 2$). The smallest whole $k$ strictly above the bound is "
            "$\\lfloor 2\\ln(1/\\delta)/(2 - e^{\\varepsilon_0})^2 \\rfloor + 1$. At "
            "$\\varepsilon_0 = 0.1$, $\\delta = 10^{-5}$ the bound is $28.8$, so $k = 29$, "
            "where COMP-4's dotted line stands. When $e^{\\varepsilon_0} \\ge 2$, the linear "
            "term alone reaches $k\\varepsilon_0$ and advanced composition never wins."
        ),
    ),
]
