"""Exercises of lesson 10, "Amplify privacy by subsampling": the bound and the exact profile.

References and anticipated mistakes are computed with ``dplearn.subsampling`` (the
amplification bound, the exact subsampled Gaussian) and ``dplearn.privacy_loss`` when an
answer is checked; the settings differ from the lesson's printed ones, so that its
numbers are no answers.

Taught in: 10-amplify-privacy-by-subsampling.ipynb
"""

import math

from dplearn import privacy_loss, subsampling
from dplearn.exercises import choice, function, mistake, number

# amplified-epsilon: a pure epsilon0 = 2 mechanism on a Poisson subsample of rate 0.05.
_EPSILON0, _RATE = 2.0, 0.05
# bound-overstates: SUB-2 at sigma = 1, epsilon = 1 (its opening setting) with q = 0.1.
_SIGMA, _SUB2_EPSILON, _SUB2_RATE = 1.0, 1.0, 0.1


def _bound_and_exact(epsilon=_SUB2_EPSILON):
    """(the bound's delta', the subsampled Gaussian's exact delta at epsilon): bound-overstates.

    delta' holds at every epsilon from epsilon' on.
    """
    base = privacy_loss.gaussian(_SIGMA)
    bound = _SUB2_RATE * base.delta(_SUB2_EPSILON)
    exact = subsampling.poisson(base, _SUB2_RATE).delta(epsilon)
    return float(bound), float(exact)


def _amplified():
    return subsampling.amplified_epsilon(_SUB2_EPSILON, _SUB2_RATE)


EXERCISES = [
    number(
        "10.amplified-epsilon",
        title="$\\varepsilon$ after subsampling",
        question=(
            "A mechanism is $\\varepsilon_0$-DP with $\\varepsilon_0 = 2$ (and $\\delta = 0$). "
            "It is run on a Poisson subsample of the data set: each person is kept "
            "independently with probability $q = 0.05$, and nobody learns who was kept. "
            "Which $\\varepsilon$ does the amplification bound guarantee for the whole "
            "procedure?"
        ),
        compute=lambda: subsampling.amplified_epsilon(_EPSILON0, _RATE),
        mistakes=[
            mistake(
                "linear",
                "You multiplied ε₀ by q. That is the bound's first-order behaviour for small "
                "ε₀ only; at ε₀ = 2 the factor e^ε₀ − 1 is far from ε₀.",
                lambda: _RATE * _EPSILON0,
            ),
            mistake(
                "no-log",
                "You stopped at q(e^ε₀ − 1), the amount by which the odds factor exceeds 1. "
                "ε is the log of the factor 1 + q(e^ε₀ − 1).",
                lambda: _RATE * math.expm1(_EPSILON0),
            ),
            mistake(
                "no-minus-one",
                "You used q·e^ε₀ inside the log. The factor mixes 'not sampled' (ratio 1, "
                "probability 1 − q) with 'sampled' (ratio at most e^ε₀): 1 − q + q e^ε₀.",
                lambda: math.log1p(_RATE * math.exp(_EPSILON0)),
            ),
        ],
        solution=(
            "With probability $1 - q$ the person is not in the subsample and the output has "
            "the same law with or without them; with probability $q$ it is, and the density "
            "ratio is at most $e^{\\varepsilon_0}$. The mixture's ratio is at most "
            "$1 - q + q e^{\\varepsilon_0}$ (Balle, Barthe & Gaboardi 2018), so\n\n"
            "$$\\varepsilon = \\ln\\bigl(1 + q(e^{\\varepsilon_0} - 1)\\bigr) = "
            "\\ln(1 + 0.05 \\times 6.389) \\approx 0.2772.$$\n\n"
            "That is about $\\varepsilon_0/7$, not $q\\varepsilon_0 = 0.1$: for large "
            "$\\varepsilon_0$ subsampling buys less than the rate suggests."
        ),
    ),
    function(
        "10.amplification-formula",
        title="The amplification bound as a formula",
        question=(
            "Write the $\\varepsilon$ that the amplification bound gives to an "
            "$\\varepsilon_0$-DP mechanism run on a Poisson subsample of rate $q$, as a "
            "function `f(epsilon0, q)`. The box takes a formula (`exp`, `ln`, `log1p`, "
            "`expm1` are known)."
        ),
        parameters=("epsilon0", "q"),
        compute=lambda epsilon0, q: subsampling.amplified_epsilon(epsilon0, q),
        source="ln(1 + q*(exp(epsilon0) - 1))",
        cases=[(1.0, 0.01), (2.0, 0.05), (0.1, 0.5), (5.0, 0.001), (1.0, 1.0), (0.5, 0.2)],
        mistakes=[
            mistake(
                "linear",
                "q times ε₀ is only the bound's behaviour for small ε₀: try ε₀ = 5.",
                lambda epsilon0, q: q * epsilon0,
                source="q*epsilon0",
            ),
            mistake(
                "no-log",
                "That is how far the odds factor exceeds 1; ε is the log of the factor.",
                lambda epsilon0, q: q * math.expm1(epsilon0),
                source="q*(exp(epsilon0) - 1)",
            ),
            mistake(
                "no-minus-one",
                "The factor is 1 − q + q e^ε₀: not being sampled keeps the ratio at 1, "
                "with probability 1 − q.",
                lambda epsilon0, q: math.log1p(q * math.exp(epsilon0)),
                source="ln(1 + q*exp(epsilon0))",
            ),
        ],
        solution=(
            "The output density with the person is the mixture "
            "$(1 - q)\\,p_0 + q\\,p_1$, without them $p_0$, and $p_1 \\le e^{\\varepsilon_0} "
            "p_0$ (pure DP), so the ratio is at most $1 - q + q e^{\\varepsilon_0}$; the other "
            "direction gives the same bound. Hence\n\n"
            "$$f(\\varepsilon_0, q) = \\ln\\bigl(1 + q(e^{\\varepsilon_0} - 1)\\bigr),$$\n\n"
            "which is $\\varepsilon_0$ at $q = 1$ and about $q(e^{\\varepsilon_0} - 1)$ for "
            "small $q$. With $\\delta_0 > 0$ the same bound holds with $\\delta = q\\delta_0$."
        ),
    ),
    number(
        "10.bound-overstates",
        title="What one guarantee gives away",
        question=(
            "In SUB-2 keep $\\sigma = 1$ and $\\varepsilon = 1$ and set $q = 0.1$. The "
            "Gaussian mechanism is $(1, \\delta_0)$-DP with $\\delta_0 = \\delta(1)$, so "
            "the bound makes its subsampled version $(\\varepsilon', q\\delta_0)$-DP, "
            "$\\varepsilon' = \\ln(1 + q(e - 1))$; and a guarantee at $\\varepsilon'$ also "
            "holds at every larger $\\varepsilon$, so at $\\varepsilon = 1$ too. By what "
            "factor is the exact $\\delta(1)$ of the subsampled Gaussian smaller than "
            "$q\\delta_0$?"
        ),
        compute=lambda: _bound_and_exact()[0] / _bound_and_exact()[1],
        mistakes=[
            mistake(
                "inverted",
                "You divided the exact δ by the bound's: that is below 1. The question asks "
                "how many times smaller the exact δ is.",
                lambda: _bound_and_exact()[1] / _bound_and_exact()[0],
            ),
            mistake(
                "at-epsilon-prime",
                "You compared at ε′, where the bound is exact (its curve lies on the "
                "subsampled profile). Compare at ε = 1, where one guarantee is all the "
                "bound has.",
                lambda: _bound_and_exact()[0] / _bound_and_exact(_amplified())[1],
            ),
            mistake(
                "no-q",
                "You compared the exact δ with δ₀, the guarantee before subsampling. The "
                "bound promises q·δ₀ for the subsampled mechanism: compare with that.",
                lambda: privacy_loss.gaussian(_SIGMA).delta(_SUB2_EPSILON) / _bound_and_exact()[1],
            ),
            mistake(
                "unsubsampled",
                "You divided by the δ of the mechanism without subsampling, which only "
                "gives back q. The exact δ to compare with is the subsampled mechanism's.",
                lambda: _bound_and_exact()[0] / privacy_loss.gaussian(_SIGMA).delta(_SUB2_EPSILON),
            ),
        ],
        solution=(
            "Applied to every point of the mechanism's profile, the bound is exact for the "
            "subsampled Gaussian: $\\delta(\\varepsilon') = q\\,\\delta_0(\\varepsilon)$ on "
            "the remove side (Balle, Barthe & Gaboardi prove it is tight), which is the "
            "larger side here. What is lost is using **one** guarantee: "
            "$(\\varepsilon', q\\delta_0)$ with $\\varepsilon' \\approx 0.1586$ and "
            "$q\\delta_0 \\approx 0.01269$ says nothing better at $\\varepsilon = 1$, where "
            "the exact $\\delta(1)$ of the subsampled Gaussian is about $2.071 \\times "
            "10^{-4}$: about $61.3$ times smaller. SUB-2's readout shows both numbers."
        ),
    ),
    choice(
        "10.secret-sample",
        title="What amplification needs",
        question=(
            "A data set of 10,000 people is trained on in batches: each step keeps every "
            "person with probability $q = 0.01$. Which of these would **void** the "
            "amplification by subsampling?"
        ),
        options={
            "a": "Publishing, with the model, the list of people in each batch.",
            "b": "Drawing a fresh batch at every step instead of reusing one.",
            "c": "Letting the batch size vary from step to step (about 100 on average).",
            "d": "Adding the same Gaussian noise to each step as without subsampling.",
        },
        answer="a",
        hints={
            "b": (
                "fresh-batches",
                "Fresh, independent batches are what the accountant assumes: each step is "
                "one subsampled mechanism, and the steps compose.",
            ),
            "c": (
                "random-size",
                "A random batch size is what Poisson sampling gives; it is part of the "
                "analysis, not a threat to it.",
            ),
            "d": (
                "same-noise",
                "The noise is the mechanism the subsample is fed to; the amplification "
                "comes on top of it.",
            ),
        },
        praise="The gain comes from the attacker not knowing whether the person's data was used.",
        solution=(
            "The mixture $(1 - q)\\,p_0 + q\\,p_1$ describes the output only for an attacker "
            "who does not know whether the person was sampled. If the batches are published, "
            "the attacker knows it: for a step where the person was in the batch the loss is "
            "that of the mechanism itself (ratio up to $e^{\\varepsilon_0}$), and the "
            "amplification $\\ln(1 + q(e^{\\varepsilon_0} - 1))$ is lost. Random batch sizes "
            "and fresh batches are part of Poisson sampling; the noise is unchanged by it."
        ),
    ),
]
