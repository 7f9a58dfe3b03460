"""Exercises of lesson 15, "Go beyond global sensitivity": the smooth sensitivity of a
median under Cauchy and Laplace noise, the distance to instability, propose-test-release's
pass probability (and what a published threshold really gives), a fair comparison of
accuracies, and sample-and-aggregate's noise.

References and anticipated mistakes are computed with ``dplearn.local_sensitivity`` when
an answer is checked; the settings differ from the lesson's printed ones, so that its
numbers are no answers.

Taught in: 15-go-beyond-global-sensitivity.ipynb
"""

import math

from dplearn import local_sensitivity as ls
from dplearn.exercises import choice, function, mistake, number, whole_number

# smooth-cauchy: five ages in [0, 100], epsilon = 2, pure epsilon-DP (Cauchy noise).
_CAUCHY_AGES, _CAUCHY_EPSILON = (30, 38, 40, 43, 55), 2.0
# smooth-laplace: seven ages in [0, 100], (epsilon, delta) = (2, 1e-6) (Laplace noise).
_LAPLACE_AGES, _LAPLACE_EPSILON, _LAPLACE_DELTA = (22, 35, 41, 44, 48, 60, 75), 2.0, 1e-6
_LOWER, _UPPER = 0.0, 100.0
# distance: nine ages in [0, 100] and the proposed bound b = 3.
_DISTANCE_AGES, _BOUND = (42, 39, 45, 38, 42, 44, 39, 43, 40), 3.0
# published-ptr: Near & Abuah's threshold ln(2/delta) / (2 epsilon) at distance 0.
_PUBLISHED_EPSILON, _PUBLISHED_DELTA = 0.5, 1e-8
# same-epsilon: the lesson's 1,001 ages with b = 2 (gamma = 33), a total epsilon of 1
# split equally, delta = 1e-6, within t = 2 years.
_GAMMA, _PTR_BOUND, _PTR_EPSILON, _PTR_DELTA, _WITHIN = 33, 2.0, 1.0, 1e-6, 2.0
# aggregate-noise: 1,200 values in [0, 120], 30 blocks, epsilon = 0.5.
_VALUES, _WIDTH, _BLOCKS, _AGGREGATE_EPSILON = 1200, 120.0, 30, 0.5


def _cauchy_scale(sensitivity):
    """The Cauchy noise's scale, 6 S / epsilon, for a sensitivity S at smooth-cauchy's epsilon."""
    return ls.smooth_release_parameters(_CAUCHY_EPSILON).scale * sensitivity


def _cauchy_smooth():
    beta = ls.smooth_release_parameters(_CAUCHY_EPSILON).beta
    return ls.smooth_sensitivity(_CAUCHY_AGES, beta, _LOWER, _UPPER)[0]


def _laplace_smooth(beta):
    return ls.smooth_sensitivity(_LAPLACE_AGES, beta, _LOWER, _UPPER)[0]


def _distance(bound):
    return ls.distance_to_instability(_DISTANCE_AGES, bound, _LOWER, _UPPER)


def _pass_at(gamma, epsilon, threshold):
    return ls.ptr_pass_probability_at_threshold(gamma, epsilon, threshold)


def _near_abuah_threshold(epsilon, delta):
    return math.log(2.0 / delta) / (2.0 * epsilon)


def _dwork_roth_threshold(epsilon, delta):
    return math.log(1.0 / delta) / epsilon


def _passing_with(threshold):
    """The pass probability f(gamma, epsilon, delta) of a test against threshold(epsilon, delta)."""
    return lambda gamma, epsilon, delta: _pass_at(gamma, epsilon, threshold(epsilon, delta))


def _published_ratio(threshold):
    return _pass_at(0.0, _PUBLISHED_EPSILON, threshold) / _PUBLISHED_DELTA


def _ptr_within(epsilon_test, epsilon_release):
    return ls.ptr_within(_WITHIN, _GAMMA, _PTR_BOUND, epsilon_test, epsilon_release, _PTR_DELTA)


def _aggregate_scale(blocks):
    """The Laplace scale (upper - lower) / (blocks epsilon) of sample-and-aggregate."""
    return _WIDTH / (blocks * _AGGREGATE_EPSILON)


EXERCISES = [
    number(
        "15.smooth-cauchy",
        title="Cauchy noise for a median",
        question=(
            "Five ages $(30, 38, 40, 43, 55)$ are each known to lie in $[0, 100]$. Their "
            "median is released $\\varepsilon$-DP with $\\varepsilon = 2$ by smooth "
            "sensitivity: $\\beta = \\varepsilon/6$, and Cauchy noise of scale "
            "$6 S^*_\\beta/\\varepsilon$. Which scale does the Cauchy noise get? Give it to "
            "two decimal places."
        ),
        compute=lambda: _cauchy_scale(_cauchy_smooth()),
        mistakes=[
            mistake(
                "local-sensitivity",
                "You scaled the noise to the local sensitivity A^(0), the change one value "
                "can cause on this data set. Noise of that size tells about the data: the "
                "smooth bound takes the largest e^(−kβ) A^(k) over every k.",
                lambda: _cauchy_scale(
                    ls.local_sensitivity_at_distance(_CAUCHY_AGES, 0, _LOWER, _UPPER)
                ),
            ),
            mistake(
                "global-sensitivity",
                "You used the global sensitivity, the width of [0, 100]. Smooth sensitivity "
                "discounts the far data sets by e^(−kβ): take the largest e^(−kβ) A^(k).",
                lambda: _cauchy_scale(_UPPER - _LOWER),
            ),
            mistake(
                "smooth-not-scaled",
                "That is the smooth sensitivity S* itself. The Cauchy noise's scale is 6 S*/ε.",
                _cauchy_smooth,
            ),
        ],
        solution=(
            "With the ages sorted, the median is $x_3 = 40$, and $x_i = 0$ below the data, "
            "$x_i = 100$ above. $A^{(k)} = \\max_{0 \\le t \\le k+1} (x_{3+t} - x_{3+t-k-1})$ "
            "gives $A^{(0)}, \\dots, A^{(5)} = 3, 15, 60, 62, 70, 100$. At "
            "$\\beta = 2/6 = 1/3$ the discounted values $e^{-k/3} A^{(k)}$ are "
            "$3, 10.75, 30.81, 22.81, 18.45, 18.89$: the largest is at $k = 2$, "
            "$S^* \\approx 30.81$. The scale is "
            "$$\\frac{6 S^*}{\\varepsilon} = \\frac{6 \\times 30.805}{2} \\approx 92.42.$$ "
            "Scaled to the local sensitivity $A^{(0)} = 3$ it would be $9$: ten times less "
            "noise, and not private, since the noise's size itself depends on the data."
        ),
    ),
    number(
        "15.smooth-laplace",
        title="Smooth sensitivity with $\\delta$",
        question=(
            "Seven ages $(22, 35, 41, 44, 48, 60, 75)$ are each known to lie in "
            "$[0, 100]$; their local sensitivities at distance $k$ are "
            "$A^{(0)}, \\dots, A^{(7)} = 4, 16, 31, 56, 59, 65, 78, 100$. Their median is "
            "released $(\\varepsilon, \\delta)$-DP with $\\varepsilon = 2$, "
            "$\\delta = 10^{-6}$, by smooth sensitivity with Laplace noise of scale "
            "$2 S^*_\\beta/\\varepsilon$. What is the smooth sensitivity $S^*_\\beta$ at the "
            "$\\beta$ this release needs? Give it to two decimal places."
        ),
        compute=lambda: _laplace_smooth(
            ls.smooth_release_parameters(_LAPLACE_EPSILON, _LAPLACE_DELTA).beta
        ),
        mistakes=[
            mistake(
                "cauchy-beta",
                "You took β = ε/6, the smoothness of the Cauchy release (pure ε-DP). "
                "Laplace noise with δ needs its own β, which depends on δ.",
                lambda: _laplace_smooth(ls.smooth_release_parameters(_LAPLACE_EPSILON).beta),
            ),
            mistake(
                "log-without-two",
                "You took ln(1/δ) in β. The Laplace release's β has a 2 inside the "
                "logarithm: ln(2/δ).",
                lambda: _laplace_smooth(_LAPLACE_EPSILON / (2.0 * math.log(1.0 / _LAPLACE_DELTA))),
            ),
            mistake(
                "beta-without-two",
                "The denominator of β is 2 ln(2/δ): the factor 2 in front of the logarithm "
                "is missing.",
                lambda: _laplace_smooth(_LAPLACE_EPSILON / math.log(2.0 / _LAPLACE_DELTA)),
            ),
            mistake(
                "local-sensitivity",
                "That is A^(0), the local sensitivity. The smooth bound is the largest "
                "e^(−kβ) A^(k) over every k, the far data sets included.",
                lambda: ls.local_sensitivity_at_distance(_LAPLACE_AGES, 0, _LOWER, _UPPER),
            ),
            mistake(
                "global-sensitivity",
                "That is the global sensitivity, the width of [0, 100]: discount each "
                "A^(k) by e^(−kβ) before taking the largest.",
                lambda: _UPPER - _LOWER,
            ),
        ],
        solution=(
            "With $\\delta$ the smoothness is "
            "$\\beta = \\varepsilon/(2\\ln(2/\\delta)) = 2/(2\\ln(2 \\times 10^6)) "
            "= 1/14.509 \\approx 0.06892$. The discounted values "
            "$e^{-k\\beta} A^{(k)}$ for $k = 0, \\dots, 7$ are "
            "$4, 14.93, 27.01, 45.54, 44.78, 46.05, 51.58, 61.73$, so "
            "$$S^*_\\beta = e^{-7\\beta} \\times 100 \\approx 61.73.$$ "
            "So small a $\\beta$ barely discounts the far data sets: with seven values the "
            "largest term is the one at $A^{(7)} = 100$. The Cauchy release's "
            "$\\beta = \\varepsilon/6 = 1/3$ would give $20.60$, but it needs Cauchy noise "
            "of scale $6S^*/\\varepsilon$."
        ),
    ),
    number(
        "15.distance",
        title="How far to instability?",
        question=(
            "Nine ages $(42, 39, 45, 38, 42, 44, 39, 43, 40)$ lie in $[0, 100]$. "
            "Propose-test-release proposes the bound $b = 3$ on the local sensitivity of "
            "their median. What is the distance to instability $\\gamma$: the fewest "
            "values to change so that the local sensitivity exceeds $b$?"
        ),
        compute=lambda: _distance(_BOUND),
        mistakes=[
            mistake(
                "at-least-b",
                "You stopped at the first k whose A^(k) reaches b. The test asks for the "
                "local sensitivity to exceed b: A^(k) = b is still within the bound.",
                lambda: _distance(_BOUND - 0.5),
            ),
            mistake(
                "last-stable",
                "That is the largest k whose A^(k) is still at most b. γ counts the changes "
                "that push the local sensitivity above b.",
                lambda: _distance(_BOUND) - 1,
            ),
        ],
        tolerance=whole_number(),
        solution=(
            "Sorted: $38, 39, 39, 40, 42, 42, 43, 44, 45$; the median is $x_5 = 42$. From "
            "$A^{(k)} = \\max_{0 \\le t \\le k+1} (x_{5+t} - x_{5+t-k-1})$: "
            "$A^{(0)} = \\max(42 - 40, 42 - 42) = 2$, "
            "$A^{(1)} = \\max(42 - 39, 42 - 40, 43 - 42) = 3$, "
            "$A^{(2)} = \\max(42 - 39, 42 - 39, 43 - 40, 44 - 42) = 3$, "
            "$A^{(3)} = \\max(42 - 38, 42 - 39, 43 - 39, 44 - 40, 45 - 42) = 4$. "
            "The first $k$ with $A^{(k)} > 3$ is $k = 3$, so $$\\gamma = 3.$$ "
            "Changing three values can make the median jump by more than $b$; changing two "
            "cannot."
        ),
    ),
    function(
        "15.ptr-pass",
        title="The chance the test passes",
        question=(
            "Propose-test-release passes when $\\gamma + \\mathrm{Lap}(1/\\varepsilon)$ "
            "exceeds the threshold $T = \\ln(1/(2\\delta))/\\varepsilon$. For a distance "
            "$\\gamma$ at most $T$, write the probability that it passes as a function "
            "`f(gamma, epsilon, delta)`. The box takes a formula (`exp`, `ln`, `sqrt` are "
            "known)."
        ),
        parameters=("gamma", "epsilon", "delta"),
        compute=ls.ptr_pass_probability,
        source="delta*exp(epsilon*gamma)",
        cases=[
            (0.0, 1.0, 1e-6),
            (3.0, 0.5, 1e-6),
            (5.0, 1.0, 1e-5),
            (2.0, 0.1, 1e-3),
            (10.0, 0.5, 1e-8),
        ],
        mistakes=[
            mistake(
                "threshold-without-two",
                "You tested against ln(1/δ)/ε: the factor 2 inside the logarithm is "
                "missing, and the test then passes half as often as the threshold allows.",
                _passing_with(_dwork_roth_threshold),
                source="delta*exp(epsilon*gamma)/2",
            ),
            mistake(
                "published-threshold",
                "You tested against ln(2/δ)/(2ε), the threshold of a published "
                "implementation. The question's threshold is ln(1/(2δ))/ε.",
                _passing_with(_near_abuah_threshold),
                source="sqrt(delta/2)*exp(epsilon*gamma)/2",
            ),
            mistake(
                "refusal",
                "That is the chance the test refuses. It passes with the complement.",
                lambda gamma, epsilon, delta: 1.0 - ls.ptr_pass_probability(gamma, epsilon, delta),
                source="1 - delta*exp(epsilon*gamma)",
            ),
        ],
        solution=(
            "The Laplace noise $Z$ of scale $1/\\varepsilon$ exceeds $z \\ge 0$ with "
            "probability $\\tfrac12 e^{-\\varepsilon z}$. The test passes when "
            "$Z > T - \\gamma \\ge 0$:\n\n"
            "$$f(\\gamma, \\varepsilon, \\delta) = \\tfrac12 e^{-\\varepsilon(T - \\gamma)} "
            "= \\tfrac12 \\cdot 2\\delta \\cdot e^{\\varepsilon\\gamma} "
            "= \\delta\\, e^{\\varepsilon\\gamma}.$$\n\n"
            "At $\\gamma = 0$, a data set already past the bound, it is exactly $\\delta$: "
            "such a data set is released with probability at most $\\delta$, which is what "
            "the $\\delta$ of the guarantee pays for. The $2$ inside the logarithm cancels the "
            "$\\tfrac12$ of the Laplace tail."
        ),
    ),
    number(
        "15.published-ptr",
        title="What $\\delta$ does this published code give?",
        question=(
            "A textbook's propose-test-release (Near & Abuah, *Programming Differential "
            "Privacy*, chapter 7) passes when $\\gamma + \\mathrm{Lap}(1/\\varepsilon)$ "
            "exceeds $\\ln(2/\\delta)/(2\\varepsilon)$, and claims "
            "$(\\varepsilon, \\delta)$-DP. Run with $\\varepsilon = 0.5$ and "
            "$\\delta = 10^{-8}$, with what probability does its test pass on a data set "
            "at distance $\\gamma = 0$? Give that probability divided by $\\delta$ "
            "(three significant figures are enough)."
        ),
        compute=lambda: _published_ratio(
            _near_abuah_threshold(_PUBLISHED_EPSILON, _PUBLISHED_DELTA)
        ),
        mistakes=[
            mistake(
                "believed-claim",
                "That is the ratio the claim promises. Compute the Laplace tail beyond "
                "this code's threshold instead.",
                lambda: _published_ratio(ls.ptr_threshold(_PUBLISHED_EPSILON, _PUBLISHED_DELTA)),
            ),
            mistake(
                "other-threshold",
                "You used the threshold ln(1/δ)/ε of Dwork & Roth's book. This code's "
                "threshold is ln(2/δ)/(2ε): ε times it is half a logarithm.",
                lambda: _published_ratio(
                    _dwork_roth_threshold(_PUBLISHED_EPSILON, _PUBLISHED_DELTA)
                ),
            ),
            mistake(
                "tail-without-half",
                "The Laplace noise exceeds z with probability ½ e^(−εz): the ½ is missing.",
                lambda: (
                    2.0
                    * _published_ratio(_near_abuah_threshold(_PUBLISHED_EPSILON, _PUBLISHED_DELTA))
                ),
            ),
            mistake(
                "threshold-without-half",
                "You read the threshold as ln(2/δ)/ε. The code divides by 2ε: ε times the "
                "threshold is ½ ln(2/δ).",
                lambda: _published_ratio(math.log(2.0 / _PUBLISHED_DELTA) / _PUBLISHED_EPSILON),
            ),
        ],
        solution=(
            "At $\\gamma = 0$ the test passes when the noise exceeds "
            "$T = \\ln(2/\\delta)/(2\\varepsilon)$, with probability "
            "$$\\tfrac12 e^{-\\varepsilon T} = \\tfrac12 e^{-\\ln(2/\\delta)/2} "
            "= \\tfrac12\\sqrt{\\delta/2} = \\tfrac12\\sqrt{5 \\times 10^{-9}} "
            "\\approx 3.54 \\times 10^{-5},$$ "
            "about $3536\\,\\delta$, whatever $\\varepsilon$. The claimed $\\delta$ is "
            "broken by a factor $1/(2\\sqrt{2\\delta})$, which grows as $\\delta$ shrinks. "
            "The threshold $\\ln(1/(2\\delta))/\\varepsilon$ passes with probability exactly "
            "$\\delta$ here; Dwork & Roth's $\\ln(1/\\delta)/\\varepsilon$ with "
            "$\\delta/2$, safe and a little strict."
        ),
    ),
    number(
        "15.same-epsilon",
        title="Propose-test-release at the same $\\varepsilon$",
        question=(
            "For the lesson's 1,001 ages in $[0, 100]$, propose-test-release proposes "
            "$b = 2$; the data set's distance to instability is $\\gamma = 33$. The whole "
            "release must be $(\\varepsilon, \\delta)$-DP with $\\varepsilon = 1$ and "
            "$\\delta = 10^{-6}$, split equally between the test and the release. With what "
            "probability does it pass and land within $t = 2$ years of the true median? "
            "Give it to three decimal places."
        ),
        compute=lambda: _ptr_within(_PTR_EPSILON / 2, _PTR_EPSILON / 2),
        mistakes=[
            mistake(
                "test-for-free",
                "You gave the release the whole ε = 1 and did not count the test's ε: that "
                "is propose-test-release at ε = 1.5 in all. The test and the release share "
                "one budget.",
                lambda: _ptr_within(_PTR_EPSILON / 2, _PTR_EPSILON),
            ),
            mistake(
                "both-whole",
                "You ran the test and the release at ε = 1 each: that spends ε = 2 in all. "
                "Split the budget between them.",
                lambda: _ptr_within(_PTR_EPSILON, _PTR_EPSILON),
            ),
            mistake(
                "refusal-forgotten",
                "That is the chance that the release's Laplace noise stays within t. A "
                "refusal never lands within t: multiply by the chance the test passes.",
                lambda: ls.laplace_within(_WITHIN, _PTR_BOUND / (_PTR_EPSILON / 2)),
            ),
        ],
        solution=(
            "Each step gets $\\varepsilon = 0.5$. The threshold is "
            "$T = \\ln(1/(2\\delta))/0.5 \\approx 26.24 < 33$, so the test passes with "
            "probability $1 - \\tfrac12 e^{-0.5(33 - 26.24)} \\approx 0.9829$. The release "
            "adds $\\mathrm{Lap}(b/0.5) = \\mathrm{Lap}(4)$, within $2$ with probability "
            "$1 - e^{-2/4} \\approx 0.3935$. Together $$0.9829 \\times 0.3935 "
            "\\approx 0.387.$$ Compared with another method, this is the number to use: "
            "both at the same total $\\varepsilon$ and $\\delta$."
        ),
    ),
    choice(
        "15.fair-comparison",
        title="Which is more accurate?",
        question=(
            "A blog post releases the median of the lesson's 1,001 ages twice. Smooth "
            "sensitivity with Laplace noise at $(\\varepsilon, \\delta) = (1, 10^{-6})$ "
            "lands within one year with probability $0.35$. Propose-test-release with "
            "$b = 2$, its test at $\\varepsilon = 1$ and its release at $\\varepsilon = 1$, "
            "$\\delta = 10^{-6}$, lands within one year with probability $0.39$. The post "
            "concludes that propose-test-release is the more accurate. Which is right?"
        ),
        options={
            "a": (
                "The comparison is unfair: at the same total ε = 1, propose-test-release "
                "lands within one year less often than smooth sensitivity."
            ),
            "b": "The post is right: 0.39 is more than 0.35.",
            "c": (
                "The test's ε does not count: it only decides whether to answer, so both "
                "spend ε = 1."
            ),
            "d": (
                "They cannot be compared: one adds Laplace noise to a smooth bound, the "
                "other to a proposed bound."
            ),
        },
        answer="a",
        hints={
            "b": (
                "different-epsilon",
                "The two numbers come from different budgets: propose-test-release spent "
                "ε = 1 on its test and ε = 1 on its release. Compare at the same total ε.",
            ),
            "c": (
                "test-for-free",
                "The test reads the data: its ε adds to the release's by composition, so "
                "propose-test-release spent ε = 2.",
            ),
            "d": (
                "incomparable",
                "Both are (ε, δ)-DP releases of the same median: at the same ε and δ their "
                "chances of landing within one year compare directly.",
            ),
        },
        praise="Compared at the same total ε, smooth sensitivity's Laplace release wins.",
        solution=(
            "Propose-test-release with $\\varepsilon_{test} = \\varepsilon_{release} = 1$ is "
            "$(2, 10^{-6})$-DP: its $0.39$ is bought with twice the budget. Split "
            "$\\varepsilon = 1$ equally instead: the test passes with probability "
            "$\\approx 0.983$ ($\\gamma = 33$) and $\\mathrm{Lap}(2/0.5)$ lands within one "
            "year with probability $1 - e^{-1/4} \\approx 0.221$, together "
            "$\\approx 0.217$, below smooth sensitivity's $0.352$ at the same "
            "$(1, 10^{-6})$. Accuracies compare only at the same $\\varepsilon$ and "
            "$\\delta$."
        ),
    ),
    number(
        "15.aggregate-noise",
        title="Sample-and-aggregate's noise",
        question=(
            "Sample-and-aggregate splits 1,200 values at random into 30 disjoint blocks of "
            "40, computes a statistic on each block, clamps each result to $[0, 120]$ and "
            "releases their mean with Laplace noise, $\\varepsilon$-DP with "
            "$\\varepsilon = 0.5$. Which Laplace scale does the noise need?"
        ),
        compute=lambda: _aggregate_scale(_BLOCKS),
        mistakes=[
            mistake(
                "no-blocks",
                "That is the scale for one clamped result. One changed value changes one "
                "block's result, which moves the mean of the blocks by a fraction of the "
                "width only.",
                lambda: _aggregate_scale(1),
            ),
            mistake(
                "block-size",
                "You divided by the number of values in a block. A changed value moves one "
                "block's result, and the mean divides it by the number of blocks.",
                lambda: _aggregate_scale(_VALUES // _BLOCKS),
            ),
            mistake(
                "all-values",
                "You divided by the number of values, as for a mean of clamped values. "
                "Here the mean is over the blocks' results.",
                lambda: _aggregate_scale(_VALUES),
            ),
        ],
        solution=(
            "Changing one value changes one block, so one of the 30 clamped results, by "
            "at most the width $120$; their mean moves by at most $120/30 = 4$. The "
            "Laplace scale is that sensitivity over $\\varepsilon$: "
            "$$b = \\frac{120}{30 \\times 0.5} = 8.$$ "
            "More blocks mean less noise, but each block's statistic is computed on fewer "
            "values."
        ),
    ),
]
