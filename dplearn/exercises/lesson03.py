"""Exercises of lesson 03, "Spot distinguishing events": thresholded noisy counts.

References and mistakes are computed with ``dplearn.privacy_loss.thresholded_laplace``
(and scipy's Laplace law for the slips).

Taught in: 03-spot-distinguishing-events.ipynb
"""

import numpy as np

from dplearn import privacy_loss
from dplearn.exercises import choice, function, mistake, number, relative, whole_number

_SCALE = 1 / np.log(3.0)
_EPSILON = np.log(3.0)
_TARGET = 1e-6


def _smallest_whole(meets):
    """The smallest whole threshold t >= 1 with meets(t)."""
    threshold = 1
    while not meets(threshold):
        threshold += 1
    return threshold


def _published(threshold, scale):
    return privacy_loss.thresholded_laplace(scale, float(threshold)).published_probability


def _absent_ratio(loss_of_absent):
    """e^epsilon / e^ℒ on the output "absent"."""
    return np.exp(_EPSILON - loss_of_absent)


_MECHANISM = privacy_loss.thresholded_laplace(_SCALE, 5.0)

EXERCISES = [
    number(
        "03.smallest-threshold",
        title="A threshold for $\\delta \\le 10^{-6}$",
        question=(
            "Keep the lesson's noise (Laplace, scale $1/\\ln 3$) and a category of one person "
            "that $D_2$ does not have. What is the smallest **whole-number** threshold for "
            "which the mechanism's $\\delta$ is at most $10^{-6}$?"
        ),
        compute=lambda: _smallest_whole(
            lambda t: privacy_loss.thresholded_laplace(_SCALE, float(t)).delta(_EPSILON) <= _TARGET
        ),
        tolerance=whole_number(),
        mistakes=[
            mistake(
                "forgot-half",
                "Pr[Lap(b) ≥ x] is ½·e^(−x/b): only the upper tail counts, half of the mass "
                "beyond distance x.",
                lambda: _smallest_whole(lambda t: 2 * _published(t, _SCALE) <= _TARGET),
            ),
            mistake(
                "distance-from-zero",
                "The category already holds 1 person: the noise has to cover the distance "
                "from 1 to the threshold, not from 0.",
                lambda: _smallest_whole(lambda t: 0.5 * np.exp(-t / _SCALE) <= _TARGET),
            ),
            mistake(
                "not-rounded-up",
                "That threshold solves δ = 10⁻⁶ exactly, but a threshold here is a whole "
                "number: which whole numbers keep δ at most 10⁻⁶?",
                lambda: 1.0 + np.log(0.5 / _TARGET) * _SCALE,
            ),
        ],
        advice="δ is the probability that the category is published at all.",
        solution=(
            "Every published count is a distinguishing event, so "
            "$\\delta = \\Pr[\\text{published}] = \\Pr[1 + \\mathrm{Lap}(b) \\ge t] = "
            "\\tfrac12 e^{-(t - 1)/b} = \\tfrac12 \\cdot 3^{-(t-1)}$, whatever "
            "$\\varepsilon$ is. We need\n\n"
            "$$\\tfrac12 \\cdot 3^{-(t-1)} \\le 10^{-6} \\iff t - 1 \\ge "
            "\\log_3(5 \\cdot 10^5) \\approx 11.94,$$\n\n"
            "so $t - 1 = 12$ and $t = 13$: $\\delta = \\tfrac12 \\cdot 3^{-12} \\approx "
            "9.4 \\cdot 10^{-7}$, while $t = 12$ leaves $\\tfrac12 \\cdot 3^{-11} \\approx "
            "2.8 \\cdot 10^{-6}$, too much."
        ),
    ),
    function(
        "03.published-probability",
        title="$\\delta$ as a function of the threshold",
        question=(
            "Write $\\delta$ of the thresholded count (one person in $D_1$, absent from $D_2$) "
            "as a function `f(threshold, scale)` of the threshold $t \\ge 1$ and the Laplace "
            "scale $b$."
        ),
        parameters=("threshold", "scale"),
        compute=_published,
        source="1/2 * exp(-(threshold - 1) / scale)",
        cases=[
            (1.0, 1.0),
            (5.0, _SCALE),
            (2.0, 0.5),
            (13.0, _SCALE),
            (40.0, 3.0),
            (1.5, 10.0),
        ],
        mistakes=[
            mistake(
                "forgot-half",
                "Only the upper tail of the noise publishes the category: Pr[Lap(b) ≥ x] is "
                "half of e^(−x/b).",
                lambda threshold, scale: np.exp(-(threshold - 1) / scale),
                source="exp(-(threshold - 1) / scale)",
            ),
            mistake(
                "distance-from-zero",
                "The noisy count starts at the true count 1, not at 0.",
                lambda threshold, scale: 0.5 * np.exp(-threshold / scale),
                source="1/2 * exp(-threshold / scale)",
            ),
            mistake(
                "rate-for-scale",
                "You multiplied by the scale: the Laplace density is e^(−|x|/b)/(2b), the "
                "scale divides.",
                lambda threshold, scale: 0.5 * np.exp(-(threshold - 1) * scale),
                source="1/2 * exp(-(threshold - 1) * scale)",
            ),
        ],
        solution=(
            "All published counts have $\\mathcal{L} = \\infty$, so $\\delta_1 = \\delta_2 = "
            "\\Pr[\\text{published}]$. The category is published when "
            "$1 + X \\ge t$ with $X \\sim \\mathrm{Lap}(b)$, and for $x \\ge 0$ the Laplace "
            "tail is $\\Pr[X \\ge x] = \\int_x^\\infty \\frac{1}{2b}e^{-u/b}\\,du = "
            "\\tfrac12 e^{-x/b}$:\n\n"
            "$$\\delta(t, b) = \\tfrac12\\, e^{-(t - 1)/b}, \\qquad t \\ge 1.$$\n\n"
            "At $t = 1$ it is $\\tfrac12$ (the noise is positive half of the time); a larger "
            "scale makes publication of a rare category more likely, not less."
        ),
    ),
    choice(
        "03.two-people",
        title="When both data sets have the category",
        question=(
            "A category has 2 people in $D_1$ and 1 person in $D_2$. Both mechanisms add the "
            "same Laplace noise (scale $1/\\ln 3$) and publish the category when its noisy "
            "count reaches 5. What is the smallest $\\delta$ for which this is "
            "$(\\ln 3, \\delta)$-DP?"
        ),
        options={
            "a": "δ = ½·3⁻⁴, as in the lesson: the published counts are distinguishing events.",
            "b": "δ = Pr[published under D1] − Pr[published under D2].",
            "c": "δ = 0: no output is impossible under D2, and dropping low counts is "
            "post-processing of a Laplace count (a rule applied to the noisy count alone, "
            "which never reads the data).",
            "d": "δ = Pr[published under D1]: every published count is a bad event.",
        },
        answer="c",
        hints={
            "a": (
                "published-means-distinguishing",
                "Can D2, with 1 person, produce a published count of 6.2? What is the "
                "density ratio there?",
            ),
            "b": (
                "difference-of-publication",
                "That compares the two chances of one set of outputs without the factor "
                "e^ε. Is Pr[published | D1] ≤ e^ε · Pr[published | D2] here?",
            ),
            "d": (
                "every-publication-bad",
                "A published count is bad only if ℒ > ε. Compute L at a published count: "
                "both densities are Laplace densities one unit apart.",
            ),
        },
        praise="Distinguishing events need an output the other data set cannot produce.",
        solution=(
            "Both data sets publish a count $c + X$ with $X \\sim \\mathrm{Lap}(b)$, "
            "$c = 2$ or $1$. A published value $o$ has\n\n"
            "$$\\mathcal{L}(o) = \\frac{|o - 1| - |o - 2|}{b} \\in [-1/b, 1/b] = "
            "[-\\ln 3, \\ln 3],$$\n\n"
            'finite, since $D_2$ can publish too. And "absent" is a set of noisy counts '
            "(those below 5), so the whole mechanism is the Laplace mechanism followed by a "
            "rule that does not look at the data: post-processing keeps $\\ln 3$-DP. "
            "Hence $\\delta = 0$. Thresholding creates distinguishing events only for a "
            "category that one of the data sets does not have at all."
        ),
    ),
    number(
        "03.absent-ratio",
        title="The value the figure caps",
        question=(
            "PLRV-10 caps $e^{\\varepsilon}/e^{\\mathcal{L}}$ at 1. At the lesson's setting "
            "(threshold 5, scale $1/\\ln 3$, $\\varepsilon = \\ln 3$), what is its true value "
            'on the output "absent"?'
        ),
        compute=lambda: _absent_ratio(_MECHANISM.absent_loss),
        tolerance=relative(0.001),
        mistakes=[
            mistake(
                "inverted-ratio",
                "You computed e^ℒ / e^ε, the inverse of what the figure plots.",
                lambda: 1.0 / _absent_ratio(_MECHANISM.absent_loss),
            ),
            mistake(
                "loss-of-absent-is-zero",
                "L(absent) is small but not 0: ln Pr[absent under D1], since D2 reports the "
                "category absent with probability 1.",
                lambda: _absent_ratio(0.0),
            ),
            mistake(
                "published-for-absent",
                "You used the probability of being published; 'absent' has the complementary "
                "probability under D1.",
                lambda: _absent_ratio(np.log(_MECHANISM.published_probability)),
            ),
            mistake(
                "capped-value",
                "1 is what the figure draws, after capping. The question asks for the value "
                "the cap hides: e^ε / e^ℒ with ℒ = ℒ(absent).",
                lambda: 1.0,
            ),
            mistake(
                "forgot-epsilon",
                "The figure plots e^ε / e^ℒ: the factor e^ε = 3 is missing.",
                lambda: np.exp(-_MECHANISM.absent_loss),
            ),
        ],
        solution=(
            "Under $D_2$ the category is always absent; under $D_1$ it is absent with "
            "probability $1 - \\tfrac1{162}$. So\n\n"
            "$$\\mathcal{L}(\\text{absent}) = \\ln \\frac{1 - 1/162}{1} \\approx -0.00619, "
            "\\qquad \\frac{e^{\\varepsilon}}{e^{\\mathcal{L}}} = \\frac{3}{1 - 1/162} = "
            "\\frac{486}{161} \\approx 3.019.$$\n\n"
            "It is above 1, and $\\delta_2 = \\mathbb E[\\max(0, 1 - e^{\\varepsilon - "
            "\\mathcal{L}})]$ only counts the part of the curve below 1: capping the curve at 1 "
            "changes the picture, not the area."
        ),
    ),
]
