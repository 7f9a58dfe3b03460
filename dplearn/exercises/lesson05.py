"""Exercises of lesson 05, "Add Laplace and geometric noise": pmfs, the LP, the remap.

References and mistakes are computed with ``dplearn.privacy_loss.discrete_laplace`` and
``dplearn.optimality`` (the linear program over all epsilon-DP mechanisms).

Taught in: 05-add-laplace-and-geometric-noise.ipynb
"""

import functools

import numpy as np

from dplearn import optimality, privacy_loss
from dplearn.exercises import choice, function, mistake, number, relative

_N, _EPSILON = 4, 0.5


@functools.cache  # two linear programs: solved once per kernel, on first use
def _comparison():
    prior = optimality.uniform_prior(_N)
    return optimality.compare(prior, optimality.loss_matrix(_N, "absolute"), _EPSILON)


def _truncated_at_zero(count, epsilon):
    """P[output 0 | true count] of the truncated geometric mechanism, n large enough."""
    n = int(count) + 3
    return optimality.truncated_geometric(n, epsilon)[int(count), 0]


EXERCISES = [
    number(
        "05.noise-zero",
        title="How often geometric noise is exactly 0",
        question=(
            "The geometric mechanism adds integer noise $Z$ with "
            "$\\Pr[Z = k] \\propto e^{-\\varepsilon |k| / \\Delta}$. For a count ($\\Delta = 1$) "
            "at $\\varepsilon = 1$, with what probability is the published count exactly the "
            "true one?"
        ),
        compute=lambda: privacy_loss.discrete_laplace(1.0).density_d1(0),
        mistakes=[
            mistake(
                "laplace-density",
                "That is the Laplace density at 0, ε/2. A density is not a probability: "
                "normalise e^(−ε|k|) over all integers k.",
                lambda: 1.0 / (2.0 * 1.0),
            ),
            mistake(
                "one-sided",
                "You normalised over k = 0, 1, 2, … only: the noise is two-sided, k runs "
                "over all integers.",
                lambda: 1.0 - np.exp(-1.0),
            ),
        ],
        solution=(
            "With $a = e^{-\\varepsilon} = e^{-1}$, the normalising sum over all integers is "
            "$\\sum_k a^{|k|} = 1 + 2\\frac{a}{1 - a} = \\frac{1 + a}{1 - a}$, so\n\n"
            "$$\\Pr[Z = 0] = \\frac{1 - a}{1 + a} = \\tanh(\\varepsilon/2) \\approx 0.462.$$\n\n"
            "More than half of the time the count is off, by "
            "$\\pm 1$ most often."
        ),
    ),
    number(
        "05.raw-gap",
        title="What the remap is worth",
        question=(
            "Take counts in $\\{0, \\dots, 4\\}$, a uniform prior, the absolute loss "
            "$\\ell(i, j) = |i - j|$ and $\\varepsilon = 0.5$. How much larger is the expected "
            "loss of the truncated geometric mechanism **used as it is** (no remap) than "
            "that of the best $\\varepsilon$-DP mechanism? Give the **difference** of the two "
            "expected losses. The calculator under MECH-3 solves the linear program for "
            "this setting."
        ),
        compute=lambda: _comparison().geometric.expected_loss - _comparison().optimal.expected_loss,
        tolerance=relative(0.005, absolute=1e-4),
        mistakes=[
            mistake(
                "remapped-gap",
                "That is the gap after the user's best remap, which the theorem says is 0. "
                "The question is about the mechanism as it is.",
                lambda: _comparison().gap,
            ),
            mistake(
                "loss-not-gap",
                "That is the geometric mechanism's own expected loss; the question asks how "
                "much it exceeds the LP optimum.",
                lambda: _comparison().geometric.expected_loss,
            ),
            mistake(
                "optimum-not-gap",
                "That is the LP optimum itself, the best expected loss. Subtract it from the "
                "geometric mechanism's.",
                lambda: _comparison().optimal.expected_loss,
            ),
        ],
        solution=(
            "The LP finds the best $\\varepsilon$-DP mechanism for this prior and loss, "
            "$L^* \\approx 0.941$. The truncated geometric mechanism on its own has expected "
            "loss $\\sum_i \\pi_i \\sum_j \\Pr[j \\mid i]\\,|i - j| \\approx 1.024$, so\n\n"
            "$$L_{\\text{geometric}} - L^* \\approx 0.083.$$\n\n"
            "The universal optimality theorem is about the geometric mechanism *followed by "
            "the user's best remap*: that remap (here, pulling the outputs 0 and 4 towards "
            "the middle) closes the gap exactly. At larger $\\varepsilon$ (try 1) the remap "
            "is the identity and the raw gap is 0."
        ),
        from_code=(
            "`comparison = optimality.compare(optimality.uniform_prior(4), "
            "optimality.loss_matrix(4, 'absolute'), 0.5)` solves the linear program; then "
            "`comparison.geometric.expected_loss - comparison.optimal.expected_loss`."
        ),
    ),
    choice(
        "05.remap-depends",
        title="What the remap may look at",
        question=(
            "Universal optimality: for every prior and every loss that grows with "
            "$|i - j|$, the truncated geometric mechanism followed by the user's best remap "
            "is as good as the best $\\varepsilon$-DP mechanism. What may that remap depend "
            "on, so that the result is still $\\varepsilon$-DP?"
        ),
        options={
            "a": "The true count, so that it can correct the noise.",
            "b": "The user's prior and loss, and the published output only.",
            "c": "Nothing: one remap is best for every user.",
            "d": "Only ε, since the mechanism depends on nothing else.",
        },
        answer="b",
        hints={
            "a": (
                "remap-reads-data",
                "A remap that reads the data is a new mechanism, not post-processing: "
                "could it keep the ratio bound e^ε between neighbours?",
            ),
            "c": (
                "one-remap-for-all",
                "Take two users with different priors: the best remap gives, for each "
                "output, the answer that minimises that user's own posterior expected loss.",
            ),
            "d": (
                "remap-only-epsilon",
                "The best answer to give for an output depends on what the user believes "
                "and what errors cost them, not only on the noise level.",
            ),
        },
        praise="That is why one published release serves every user at once.",
        solution=(
            "Post-processing keeps differential privacy only if it does not look at the "
            "data: for any remap $g$ and any set $S$,\n\n"
            "$$\\Pr[g(\\mathcal A(x)) \\in S] = \\Pr[\\mathcal A(x) \\in g^{-1}(S)] \\le "
            "e^{\\varepsilon}\\,\\Pr[\\mathcal A(y) \\in g^{-1}(S)].$$\n\n"
            "So the remap may use the output and anything that is not the data, such as "
            "the user's prior $\\pi$ and loss $\\ell$: for each output $j$ it answers the "
            "$y$ that minimises $\\sum_i \\pi_i \\Pr[j \\mid i]\\,\\ell(i, y)$. Different users "
            "remap differently, and the curator publishes one geometric release for all."
        ),
    ),
    function(
        "05.folded-tail",
        title="The end of the truncated mechanism",
        question=(
            "The truncated geometric mechanism on $\\{0, \\dots, n\\}$ reports every noisy "
            "count below 0 as 0. Write the probability that it outputs 0 when the true count "
            "is $i$ ($0 \\le i < n$), as a function `f(i, epsilon)`."
        ),
        parameters=("i", "epsilon"),
        compute=_truncated_at_zero,
        source="exp(-epsilon*i) / (1 + exp(-epsilon))",
        cases=[(0, 1.0), (1, 1.0), (3, 0.5), (2, 2.0), (10, 0.1), (0, 0.05)],
        mistakes=[
            mistake(
                "not-folded",
                "That is P[noise = −i], the output 0 alone. Every count below 0 is reported "
                "as 0 too: add their probabilities.",
                lambda i, epsilon: np.tanh(epsilon / 2) * np.exp(-epsilon * i),
                source="(1 - exp(-epsilon)) / (1 + exp(-epsilon)) * exp(-epsilon*i)",
            ),
            mistake(
                "one-weight-unnormalised",
                "e^(−εi) = a^i, with a = e^(−ε), is the weight of the single noise value −i, "
                "before normalising. The output is 0 for every noise value ≤ −i: add their "
                "weights, then divide by the sum of the weights over all integers.",
                lambda i, epsilon: np.exp(-epsilon * i),
                source="exp(-epsilon*i)",
            ),
            mistake(
                "tail-unnormalised",
                "Your tail sum a^i + a^(i+1) + … = a^i/(1 − a), with a = e^(−ε), is right; "
                "now normalise it: the weights a^|k| of all integers k sum to (1 + a)/(1 − a).",
                lambda i, epsilon: np.exp(-epsilon * i) / (1.0 - np.exp(-epsilon)),
                source="exp(-epsilon*i) / (1 - exp(-epsilon))",
            ),
        ],
        solution=(
            "With $a = e^{-\\varepsilon}$ the noise has $\\Pr[Z = k] = \\frac{1-a}{1+a}a^{|k|}$. "
            "The output is 0 when $i + Z \\le 0$, that is $Z \\le -i$:\n\n"
            "$$\\Pr[\\text{output } 0 \\mid i] = \\frac{1 - a}{1 + a}\\sum_{k \\ge i} a^k = "
            "\\frac{1 - a}{1 + a}\\cdot\\frac{a^i}{1 - a} = \\frac{a^i}{1 + a}.$$\n\n"
            "At $i = 0$ it is $\\frac{1}{1 + a}$, more than half: a true 0 is reported as 0 "
            "whenever the noise is not positive."
        ),
    ),
]
