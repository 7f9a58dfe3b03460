"""Exercises of lesson 09, "Count privacy with an accountant": PLDs, Gaussian DP, the CLT.

References and anticipated mistakes are computed with ``dplearn.composition`` (privacy
loss distributions, trade-off curves) when an answer is checked; the settings differ from
the lesson's, so that its printed numbers are no answers.

Taught in: 09-count-privacy-with-an-accountant.ipynb
"""

import numpy as np
from scipy import special

from dplearn import composition, privacy_loss
from dplearn.exercises import choice, function, mistake, number, relative

# accountant-report: 20 Laplace releases of epsilon0 = 0.2 on a grid of width 0.05, epsilon = 1.
_EPSILON0, _RELEASES, _GRID_WIDTH, _EPSILON = 0.2, 20, 0.05, 1.0
# beta-at-alpha: four Gaussian releases of sigma = 2, alpha = 0.05.
_SIGMA, _GAUSSIAN_RELEASES, _ALPHA = 2.0, 4, 0.05


def _laplace():
    return privacy_loss.laplace(1.0 / _EPSILON0)


def _accountant(pessimistic, releases=_RELEASES):
    single = composition.pld(_laplace(), _GRID_WIDTH, pessimistic=pessimistic)
    return single.self_compose(releases).delta(_EPSILON)


def _beta(mu):
    return composition.gaussian_tradeoff(mu, _ALPHA)


EXERCISES = [
    number(
        "09.accountant-report",
        title="What the accountant reports",
        question=(
            "An accountant like this lesson's puts one Laplace release of "
            "$\\varepsilon_0 = 0.2$ (scale $b = 5$) on a grid of width $h = 0.05$, moving "
            "each loss to a grid point next to it as COMP-5 does, composes **20** releases "
            "by FFT and reports the $\\delta$ at $\\varepsilon = 1$ that is guaranteed, "
            "whatever the rounding did. What does it report? The calculator under COMP-5 "
            "gives both roundings and the exact value at any setting."
        ),
        compute=lambda: _accountant(pessimistic=True),
        # Tight enough to tell the connect-the-dots bound (0.1 % above the exact value)
        # from the exact value, loose enough for four significant digits.
        tolerance=relative(0.0004),
        mistakes=[
            mistake(
                "optimistic",
                "You rounded the losses down (optimistic): that δ is never above the exact one, "
                "so it guarantees nothing. A guarantee rounds up.",
                lambda: _accountant(pessimistic=False),
            ),
            mistake(
                "connect-the-dots",
                "That is a valid upper bound too: Google's accountant places the grid masses "
                "by connect-the-dots by default and reports it (see the section on it). This "
                "accountant moves each loss to a grid point instead: which of its two "
                "roundings is the guarantee?",
                lambda: (
                    composition.pld(_laplace(), _GRID_WIDTH, connect_dots=True)
                    .self_compose(_RELEASES)
                    .delta(_EPSILON)
                ),
            ),
            mistake(
                "exact-not-reported",
                "That is the exact δ of 20 Laplace releases. An accountant on a grid of width "
                "0.05 cannot know it; what it can guarantee is its rounded-up value.",
                lambda: composition.compose(_laplace(), _RELEASES).delta(_EPSILON),
            ),
            mistake(
                "not-composed",
                "You read δ off one release's grid. Compose the 20 releases first.",
                lambda: _accountant(pessimistic=True, releases=1),
            ),
        ],
        solution=(
            "Rounding every loss **up** to the grid can only raise "
            "$\\delta(\\varepsilon) = \\mathbb{E}[\\max(0, 1 - e^{\\varepsilon - \\mathcal{L}})]$, "
            "which grows with every value of $\\mathcal{L}$; so the pessimistic PLD's $\\delta$ "
            "is an upper bound, and composing rounded-up losses keeps it one (a sum of "
            "rounded-up terms is at least the exact sum). The pessimistic $\\delta$ of 20 "
            "releases at $\\varepsilon = 1$ is about $0.0897$. The optimistic end, about "
            "$0.0759$, and the exact value, about $0.0826$, lie below it: at this coarse grid "
            "the bracket is about a sixth of the value, and it shrinks in proportion to $h$. "
            "Google's accountant, placing the masses by connect-the-dots, would report "
            "about $0.0827$: also an upper bound, and a tighter one."
        ),
    ),
    number(
        "09.beta-at-alpha",
        title="The attacker's best test after four Gaussian releases",
        question=(
            "Four releases of a count with Gaussian noise of $\\sigma = 2$ "
            "($\\Delta = 1$). The attacker uses the best test of $D_1$ against $D_2$ that "
            "wrongly rejects $D_1$ with probability $\\alpha = 0.05$. With what probability "
            "$\\beta$ does it fail to detect $D_2$?"
        ),
        compute=lambda: composition.tradeoff(
            composition.compose(privacy_loss.gaussian(_SIGMA), _GAUSSIAN_RELEASES), _ALPHA
        ),
        mistakes=[
            mistake(
                "one-release",
                "That is β after one release (μ = Δ/σ). Four releases are one release with "
                "σ/√4: μ grows like √k.",
                lambda: _beta(1.0 / _SIGMA),
            ),
            mistake(
                "mu-times-k",
                "You multiplied μ by k. Gaussian DP composes like σ/√k: μ is multiplied by "
                "√k, not k.",
                lambda: _beta(_GAUSSIAN_RELEASES / _SIGMA),
            ),
            mistake(
                "alpha-for-one-minus-alpha",
                "You used Φ⁻¹(α) where G_μ has Φ⁻¹(1 − α): that β belongs to a test that "
                "wrongly rejects D1 with probability 1 − α = 0.95.",
                lambda: float(
                    special.ndtr(special.ndtri(_ALPHA) - np.sqrt(_GAUSSIAN_RELEASES) / _SIGMA)
                ),
            ),
            mistake(
                "one-minus-alpha",
                "1 − α is the type II error of a test that ignores the outputs (guessing): "
                "the best test does better.",
                lambda: 1.0 - _ALPHA,
            ),
        ],
        solution=(
            "Four Gaussian releases are one release with $\\sigma/\\sqrt{4} = 1$, so they are "
            "exactly $G_\\mu$ with $\\mu = \\sqrt{k}\\,\\Delta/\\sigma = 1$ (Dong, Roth & Su). "
            "The best test's type II error at type I error $\\alpha$ is\n\n"
            "$$G_\\mu(\\alpha) = \\Phi\\bigl(\\Phi^{-1}(1 - \\alpha) - \\mu\\bigr) = "
            "\\Phi(1.645 - 1) \\approx 0.740,$$\n\n"
            "with $\\Phi^{-1}(0.95) \\approx 1.645$; the box takes `Phi(1.645 - 1)`. Guessing "
            "would leave $\\beta = 1 - \\alpha = 0.95$."
        ),
    ),
    choice(
        "09.clt-status",
        title="What the CLT's $G_\\mu$ is",
        question=(
            "For $k$ Laplace releases, the central limit theorem of Gaussian DP gives a "
            "curve $G_\\mu$ with $\\mu = 2\\sqrt{k}\\,\\mathbb{E}[\\mathcal{L}]/"
            "\\mathrm{sd}(\\mathcal{L})$. What may an accountant conclude from it?"
        ),
        options={
            "a": "That the k releases are μ-GDP: G_μ is a lower bound on the trade-off curve.",
            "b": "That the δ of G_μ is an upper bound on the exact δ, since Gaussian tails are "
            "heavier than the bounded Laplace loss.",
            "c": "Only an approximation: at some ε its δ can lie below the exact δ, so "
            "reporting it could promise more privacy than the releases give.",
            "d": "Nothing for Laplace noise: the theorem only applies to Gaussian noise.",
        },
        answer="c",
        hints={
            "a": (
                "approximation-not-bound",
                "Set COMP-6 to Laplace noise, k = 2 and ε₀ = 0.5 (the example printed above "
                "it) and look at the strip under its left panel, CLT β − exact β: a lower "
                "bound never rises above 0, yet the red humps do (by up to 0.016, near "
                "α = 0.15).",
            ),
            "b": (
                "tails-not-everywhere",
                "Heavier tails help far out, at large ε. Set COMP-6 to Laplace noise, k = 2 "
                "and ε₀ = 0.5, and look at its right panel at small and middle ε: which way "
                "does the ratio go?",
            ),
            "d": (
                "clt-is-general",
                "The central limit theorem is about sums of many independent losses, whatever "
                "the mechanism; for Gaussian noise there is nothing to approximate.",
            ),
        },
        praise="An accountant reports a bound, such as the pessimistic end of a PLD bracket.",
        solution=(
            "The theorem says that as $k \\to \\infty$ the trade-off curve of $k$ releases "
            "approaches $G_\\mu$; for finite $k$ it is an approximation, with an error that a "
            "Berry–Esseen bound controls but does not remove. In COMP-6, two Laplace releases "
            "of $\\varepsilon_0 = 0.5$ have an exact $\\delta(\\varepsilon)$ up to about 15 % "
            "*above* the CLT's for $\\varepsilon$ between about 0.15 and 0.77: reporting "
            "$G_\\mu$ there understates $\\delta$. At large $\\varepsilon$ the bounded Laplace "
            "loss gives $\\delta = 0$ while $G_\\mu$ does not, so the same approximation is "
            "conservative there: it errs in both directions, which is why it is not a bound."
        ),
    ),
    function(
        "09.gaussian-mu",
        title="$\\mu$ of $k$ Gaussian releases",
        question=(
            "Write the $\\mu$ for which $k$ releases with Gaussian noise of standard deviation "
            "$\\sigma$ (sensitivity $\\Delta = 1$) are exactly $\\mu$-GDP, as a function "
            "`f(k, sigma)`. The box takes a formula; in JupyterLab's answer cell, any "
            "function of the two arguments."
        ),
        parameters=("k", "sigma"),
        compute=lambda k, sigma: composition.gaussian_dp_mu(
            composition.compose(privacy_loss.gaussian(sigma), int(k))
        ),
        source="sqrt(k)/sigma",
        cases=[(1, 1.0), (4, 2.0), (10, np.sqrt(3.0)), (1000, 30.0), (2, 0.5), (100, 5.0)],
        mistakes=[
            mistake(
                "k-not-sqrt-k",
                "You multiplied by k. Gaussian DP parameters add in squares: "
                "μ² = μ₁² + … + μ_k², so μ grows like √k.",
                lambda k, sigma: k / sigma,
                source="k/sigma",
            ),
            mistake(
                "variance",
                "You divided by σ²: μ is Δ/σ, the distance between the two means in units of "
                "the standard deviation.",
                lambda k, sigma: np.sqrt(k) / sigma**2,
                source="sqrt(k)/sigma^2",
            ),
            mistake(
                "one-release",
                "That is μ of one release, Δ/σ. k releases are one release with σ/√k.",
                lambda k, sigma: 1.0 / sigma,
                source="1/sigma",
            ),
            mistake(
                "loss-mean",
                "That is the mean privacy loss kμ₁²/2 of k releases, not the μ of G_μ.",
                lambda k, sigma: k / (2 * sigma**2),
                source="k/(2*sigma^2)",
            ),
        ],
        solution=(
            "One release is $G_{\\Delta/\\sigma}$: the best test between "
            "$\\mathcal{N}(0, \\sigma^2)$ and $\\mathcal{N}(\\Delta, \\sigma^2)$ is the test "
            "between $\\mathcal{N}(0, 1)$ and $\\mathcal{N}(\\Delta/\\sigma, 1)$. $k$ releases "
            "are one release with $\\sigma/\\sqrt{k}$ (lesson 08), so they are exactly "
            "$G_\\mu$ with\n\n$$\\mu = \\frac{\\sqrt{k}\\,\\Delta}{\\sigma}.$$\n\n"
            "Equivalently, Gaussian DP composes as $\\mu = \\sqrt{\\mu_1^2 + \\dots + "
            "\\mu_k^2}$."
        ),
    ),
]
