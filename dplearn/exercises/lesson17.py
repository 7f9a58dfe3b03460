"""Exercises of lesson 17, "Count categories with local noise": direct encoding's p and q,
the epsilon of a unary encoding, the exact variance of a count estimate, which protocol
wins where, and what post-processing does to negative estimates.

References and anticipated mistakes are computed with ``dplearn.local_frequency`` when an
answer is checked; the settings differ from the lesson's printed ones, so that its numbers
are no answers.

Taught in: 17-count-categories-with-local-noise.ipynb
"""

import math

import numpy as np

from dplearn import local_frequency as lf
from dplearn.exercises import choice, function, mistake, number, relative, whole_number

# direct-q: direct encoding over d = 8 colours at epsilon = 2.
_DIRECT_EPSILON, _DIRECT_CATEGORIES = 2.0, 8
# unary-epsilon: a unary encoding keeps the user's bit with p = 0.8, sets another with q = 0.3.
_UNARY_P, _UNARY_Q = 0.8, 0.3
# count-variance: optimised unary encoding at epsilon = 2, n = 5,000 users, c = 1,000.
_VARIANCE_EPSILON, _USERS, _COUNT = 2.0, 5000, 1000
# crossover: epsilon = 1.5.
_CROSSOVER_EPSILON = 1.5
# clip-renormalise: five estimates from n = 200 users; the question asks for the fifth.
_ESTIMATES, _TOTAL, _ASKED = (-12.0, 40.0, 75.0, -3.0, 100.0), 200.0, 4


def _direct(epsilon=_DIRECT_EPSILON, categories=_DIRECT_CATEGORIES):
    """Direct encoding's (p, q)."""
    return lf.generalized_randomized_response(epsilon, categories)


def _optimised_variance(users, count, swapped=False):
    """Var[c-hat] of optimised unary encoding at count-variance's epsilon."""
    p, q = lf.unary_encoding(_VARIANCE_EPSILON, optimized=True)
    if swapped:
        p, q = q, p
    return lf.frequency_variance(p, q, users, count)


def _crossover(rounded=math.floor):
    return rounded(lf.crossover_categories(_CROSSOVER_EPSILON))


def _asked(histogram):
    return float(np.asarray(histogram)[_ASKED])


def _clipped():
    return np.maximum(np.asarray(_ESTIMATES), 0.0)


def _direct_per_user(epsilon, categories):
    """Direct encoding's Var[c-hat]/n at c = 0, q (1 - q) / (p - q)^2."""
    return lf.variance_per_user("direct", epsilon, categories)


def _direct_swapped(epsilon, categories):
    """p (1 - p) / (p - q)^2: the variance with p and q exchanged."""
    p, q = lf.generalized_randomized_response(epsilon, categories)
    return p * (1.0 - p) / (p - q) ** 2


def _direct_supports(epsilon, categories):
    """q (1 - q): the variance of one report's support, not divided by (p - q)^2."""
    _p, q = lf.generalized_randomized_response(epsilon, categories)
    return q * (1.0 - q)


EXERCISES = [
    number(
        "17.direct-q",
        title="Direct encoding's $q$",
        question=(
            "A survey asks each user for their favourite of $d = 8$ colours and collects "
            "it by direct encoding (generalised randomised response) at "
            "$\\varepsilon = 2$. What is $q$, the probability that a user whose colour is "
            "not blue reports blue? Give it to four decimal places."
        ),
        compute=lambda: _direct()[1],
        mistakes=[
            mistake(
                "p-for-q",
                "That is p, the probability of reporting one's own colour. q is the "
                "probability of reporting one particular other colour.",
                lambda: _direct()[0],
            ),
            mistake(
                "any-other",
                "That is the probability of reporting some other colour, any of the d − 1. "
                "q is the probability of one particular other colour: blue.",
                lambda: (_DIRECT_CATEGORIES - 1) * _direct()[1],
            ),
            mistake(
                "d-not-d-minus-one",
                "You divided by e^ε + d. The probabilities of the d reports sum to 1: "
                "e^ε for one's own colour and 1 for each of the d − 1 others.",
                lambda: _direct(categories=_DIRECT_CATEGORIES + 1)[1],
            ),
            mistake(
                "unary-q",
                "That is optimised unary encoding's q, 1/(e^ε + 1). Direct encoding sends "
                "one colour out of d, and its q depends on d.",
                lambda: lf.unary_encoding(_DIRECT_EPSILON, optimized=True)[1],
            ),
        ],
        solution=(
            "Direct encoding reports one's own colour with weight $e^\\varepsilon$ and each "
            "of the $d - 1$ others with weight $1$, so "
            "$$q = \\frac{1}{e^\\varepsilon + d - 1} = \\frac{1}{e^2 + 7} "
            "= \\frac{1}{14.389} \\approx 0.0695,$$ "
            "and $p = e^2/(e^2 + 7) \\approx 0.5135$. Their ratio $p/q = e^2$ is the "
            "worst privacy loss: a report of blue is $e^2$ times as likely from a user "
            "whose colour is blue as from one whose colour is not."
        ),
    ),
    number(
        "17.unary-epsilon",
        title="The $\\varepsilon$ of a unary encoding",
        question=(
            "A unary encoding turns a user's category into $d$ bits, one per category, and "
            "sends them with noise: the bit of the user's own category is 1 with "
            "probability $p = 0.8$, the bit of each other category with probability "
            "$q = 0.3$, independently. What is the smallest $\\varepsilon$ for which it is "
            "$\\varepsilon$-locally DP? Give it to two decimal places."
        ),
        compute=lambda: lf.unary_epsilon(_UNARY_P, _UNARY_Q),
        mistakes=[
            mistake(
                "log-p-over-q",
                "That is ln(p/q), the ratio of one bit's 1s. Two users with different "
                "values differ in two bits: the report with a 1 at one's category and a 0 "
                "at the other's adds the ratio of the 0s.",
                lambda: math.log(_UNARY_P / _UNARY_Q),
            ),
            mistake(
                "zeros-only",
                "That is ln((1 − q)/(1 − p)), the ratio of one bit's 0s. The two values "
                "differ in two bits: add the ratio of the 1s of the other bit.",
                lambda: math.log((1 - _UNARY_Q) / (1 - _UNARY_P)),
            ),
            mistake(
                "twice-log-p-over-q",
                "You counted ln(p/q) for each of the two bits that differ. One of them is "
                "a 1 in the report, the other a 0: a 0 has probabilities 1 − p and 1 − q.",
                lambda: 2 * math.log(_UNARY_P / _UNARY_Q),
            ),
        ],
        solution=(
            "Users with values $v$ and $v'$ differ in two bits. The most telling report "
            "has a 1 at $v$ and a 0 at $v'$: its probability is $p(1 - q)$ times the "
            "other bits' under $v$, and $q(1 - p)$ times the same under $v'$. So "
            "$$\\varepsilon = \\ln\\frac{p(1 - q)}{(1 - p)q} "
            "= \\ln\\frac{0.8 \\times 0.7}{0.2 \\times 0.3} = \\ln 9.333 \\approx 2.23.$$ "
            "Each bit alone would give only $\\ln(0.8/0.3) \\approx 0.98$ or "
            "$\\ln(0.7/0.2) \\approx 1.25$: the two add up."
        ),
    ),
    number(
        "17.count-variance",
        title="The variance of one count",
        question=(
            "$n = 5000$ users report their category by optimised unary encoding at "
            "$\\varepsilon = 2$ ($p = 1/2$, $q = 1/(e^\\varepsilon + 1)$); $c = 1000$ of "
            "them hold the category *blue*. The server estimates blue's count by "
            "$\\hat c = (\\text{supports} - nq)/(p - q)$. What is $\\mathrm{Var}[\\hat c]$, "
            "the variance of the estimated count? Give it to the nearest whole number."
        ),
        compute=lambda: _optimised_variance(_USERS, _COUNT),
        # The nearest whole number is within 0.5 of the exact 4620.3.
        tolerance=relative(0.0005),
        mistakes=[
            mistake(
                "per-user",
                "That is the variance per user, Var[ĉ]/n. The question asks for the "
                "variance of the whole count: multiply by the number of users.",
                lambda: _optimised_variance(_USERS, _COUNT) / _USERS,
            ),
            mistake(
                "count-forgotten",
                "That is the variance at c = 0. Its second term, c(1 − p − q)/(p − q), "
                "counts the users who hold blue.",
                lambda: _optimised_variance(_USERS, 0),
            ),
            mistake(
                "p-q-swapped",
                "You exchanged p and q. p = 1/2 is the probability that the user's own bit "
                "is 1; q, the smaller, that of another category's bit.",
                lambda: _optimised_variance(_USERS, _COUNT, swapped=True),
            ),
            mistake(
                "standard-deviation",
                "That is the standard deviation, the square root of the variance.",
                lambda: math.sqrt(_optimised_variance(_USERS, _COUNT)),
            ),
        ],
        solution=(
            "Here $q = 1/(e^2 + 1) \\approx 0.11920$ and $p - q \\approx 0.38080$. The "
            "supports are $\\mathrm{Binomial}(c, p) + \\mathrm{Binomial}(n - c, q)$, so "
            "$$\\mathrm{Var}[\\hat c] = \\frac{n q(1 - q)}{(p - q)^2} + "
            "\\frac{c(1 - p - q)}{p - q} \\approx \\frac{5000 \\times 0.10499}{0.14501} "
            "+ 1000 \\approx 3620.3 + 1000 = 4620.$$ "
            "With $p = 1/2$, $1 - p - q = p - q$: the second term is exactly $c$. Per user "
            "that is $0.924$; the standard deviation of the count is about $68$."
        ),
    ),
    choice(
        "17.which-protocol",
        title="Which protocol for 20 categories?",
        question=(
            "An app counts which of $d = 20$ categories each user picks, locally DP with "
            "$\\varepsilon = 2$. Which protocol gives each count the smallest variance?"
        ),
        options={
            "a": (
                "Direct encoding: 20 categories are fewer than 3e² + 2 ≈ 24.2, so its "
                "variance per user is the smallest."
            ),
            "b": (
                "Optimised unary encoding: it beats direct encoding whenever d is below "
                "3e^ε + 2 ≈ 24.2."
            ),
            "c": (
                "Optimised local hashing: its reports of log₂(e² + 1) ≈ 3.1 bits carry less "
                "noise than unary encoding's 20 bits."
            ),
            "d": (
                "Symmetric unary encoding (basic RAPPOR): p = 1 − q balances the noise of "
                "the 1s and the 0s."
            ),
        },
        answer="a",
        hints={
            "b": (
                "crossover-wrong-way",
                "You read the crossover the wrong way: direct encoding's variance grows "
                "with d, so it is the better one for few categories, below 3e^ε + 2.",
            ),
            "c": (
                "shorter-reports",
                "Optimised local hashing's reports are shorter, but its variance is "
                "optimised unary encoding's: compare that with direct encoding's at d = 20.",
            ),
            "d": (
                "symmetric",
                "Symmetric unary encoding spends ε/2 on each of the two bits that differ: "
                "its variance per user, e^(ε/2)/(e^(ε/2) − 1)², is the largest here.",
            ),
        },
        praise="Below d = 3e^ε + 2 direct encoding has the smallest variance.",
        solution=(
            "The variances per user (at $c = 0$) at $\\varepsilon = 2$: direct encoding "
            "$(e^2 + d - 2)/(e^2 - 1)^2 = 25.39/40.82 \\approx 0.622$; optimised unary "
            "encoding, and optimised local hashing with it, "
            "$4e^2/(e^2 - 1)^2 \\approx 0.724$; symmetric unary encoding "
            "$e/(e - 1)^2 \\approx 0.921$. Direct encoding wins while "
            "$e^2 + d - 2 < 4e^2$, that is $d < 3e^2 + 2 \\approx 24.2$. With $d = 25$ "
            "categories or more, optimised unary encoding (or local hashing, with shorter "
            "reports) would be the better."
        ),
    ),
    number(
        "17.crossover",
        title="Up to how many categories?",
        question=(
            "At $\\varepsilon = 1.5$, what is the largest number of categories $d$ for "
            "which direct encoding gives a count a smaller variance than optimised unary "
            "encoding does?"
        ),
        compute=_crossover,
        tolerance=whole_number("categories"),
        mistakes=[
            mistake(
                "wrong-way",
                "That is the first d at which optimised unary encoding is the better. The "
                "question asks for the last one at which direct encoding is.",
                lambda: _crossover(math.ceil),
            ),
            mistake(
                "not-rounded",
                "That is where the two variances are equal, 3e^ε + 2. d is a whole number "
                "of categories below it.",
                lambda: lf.crossover_categories(_CROSSOVER_EPSILON),
            ),
            mistake(
                "without-two",
                "You solved e^ε + d = 4e^ε. Direct encoding's variance per user is "
                "(e^ε + d − 2)/(e^ε − 1)²: mind the − 2.",
                lambda: math.floor(3 * math.exp(_CROSSOVER_EPSILON)),
            ),
        ],
        solution=(
            "Per user, direct encoding's variance is $(e^\\varepsilon + d - 2)/"
            "(e^\\varepsilon - 1)^2$ and optimised unary encoding's is "
            "$4e^\\varepsilon/(e^\\varepsilon - 1)^2$: the same denominator. Direct encoding "
            "is the better while $e^\\varepsilon + d - 2 < 4e^\\varepsilon$, that is "
            "$$d < 3e^{1.5} + 2 \\approx 3 \\times 4.4817 + 2 = 15.445,$$ "
            "so up to $d = 15$. From $16$ categories on, optimised unary encoding has the "
            "smaller variance."
        ),
    ),
    number(
        "17.clip-renormalise",
        title="Clip and renormalise",
        question=(
            "From $n = 200$ users' reports, a server estimates the counts of five categories "
            "as $(-12, 40, 75, -3, 100)$. It turns them into a histogram by clipping and "
            "renormalising: each negative estimate becomes 0, then all five are scaled by "
            "one factor so that they sum to $n$. What does the fifth category's estimate, "
            "$100$, become? Give it to two decimal places."
        ),
        compute=lambda: _asked(lf.clip_and_renormalise(_ESTIMATES, _TOTAL)),
        mistakes=[
            mistake(
                "not-renormalised",
                "You clipped the negative estimates but did not rescale: the estimates "
                "then sum to more than n = 200 users.",
                lambda: _asked(_clipped()),
            ),
            mistake(
                "projection",
                "That is the projection onto the simplex, which subtracts one amount from "
                "every positive estimate. Clipping and renormalising multiplies them by "
                "one factor.",
                lambda: _asked(lf.project_onto_simplex(_ESTIMATES, _TOTAL)),
            ),
            mistake(
                "share",
                "That is the fifth category's share of the histogram. The question asks for "
                "its count among the n = 200 users.",
                lambda: _asked(_clipped() / _clipped().sum()),
            ),
        ],
        solution=(
            "Clipping gives $(0, 40, 75, 0, 100)$, which sums to $215$: $15$ more than the "
            "$200$ users, the $-12$ and $-3$ dropped. Scaling by $200/215$ gives "
            "$$100 \\times \\frac{200}{215} \\approx 93.02,$$ "
            "and $(0, 37.21, 69.77, 0, 93.02)$ in all. The projection onto the simplex "
            "would instead subtract $15/3 = 5$ from each positive estimate: "
            "$(0, 35, 70, 0, 95)$. Both are histograms, and both are biased: the small "
            "categories are pushed up to at least $0$, and the large ones pay for it."
        ),
    ),
    choice(
        "17.drop-negatives",
        title="Dropping the negative estimates",
        question=(
            "$n = 5000$ users report one of $d = 50$ categories by direct encoding at "
            "$\\varepsilon = 1$. Nobody picked any of 40 rare categories, but the analyst "
            "does not know it. To count the users of the rare categories, the analyst "
            "drops each of their negative estimates (sets it to 0) and adds up the 40 "
            "estimates. What does dropping the negatives do to that sum?"
        ),
        options={
            "a": (
                "It biases the sum upward: each estimate is unbiased, its negative values "
                "balancing its positive ones; dropping only the negatives raises each "
                "category's mean, and the 40 biases add up."
            ),
            "b": (
                "Nothing on average: no count can be negative, so dropping the negative "
                "estimates only removes error."
            ),
            "c": (
                "It biases the sum downward: the dropped estimates stood for users who are "
                "then missing from the sum."
            ),
            "d": (
                "Nothing, once all 50 estimates are rescaled afterwards to sum to n = 5000 users."
            ),
        },
        answer="a",
        hints={
            "b": (
                "negatives-are-error",
                "The negative estimates are the half of the noise that balances the "
                "positive half. Dropping one side of the noise leaves the other.",
            ),
            "c": (
                "wrong-direction",
                "A dropped negative estimate is replaced by 0, a larger number: the sum "
                "can only grow.",
            ),
            "d": (
                "renormalised",
                "Rescaling makes the total of all 50 categories right, not the rare ones' "
                "part of it: the large categories pay for the rare ones' upward bias.",
            ),
        },
        praise="Clipping one side of unbiased noise leaves a bias, and biases add up.",
        solution=(
            "Each rare category's estimate has mean $0$ and variance "
            "$n(e + d - 2)/(e - 1)^2 = 5000 \\times 50.72/2.952 \\approx 85{,}900$: a "
            "standard deviation of about $293$ users, about half of the time below $0$. "
            "Setting the negatives to $0$ keeps the positive half: the estimate's mean is "
            "then about "
            "$293/\\sqrt{2\\pi} \\approx 117$. Over 40 categories the analyst reports "
            "$$40 \\times 117 \\approx 4700$$ users of rare categories that nobody "
            "picked, out of $5000$. Keep the negative estimates when adding counts up: "
            "the sum of unbiased estimates is unbiased."
        ),
    ),
    function(
        "17.direct-variance",
        title="Direct encoding's variance per user",
        question=(
            "Direct encoding at $\\varepsilon$ with $d$ categories has "
            "$p = e^\\varepsilon/(e^\\varepsilon + d - 1)$ and "
            "$q = 1/(e^\\varepsilon + d - 1)$. Write the variance per user of a count "
            "estimate, $\\mathrm{Var}[\\hat c]/n$, for a category nobody holds ($c = 0$), "
            "as a function `f(epsilon, categories)` of $\\varepsilon$ and $d$. The box "
            "takes a formula (`exp`, `ln`, `sqrt` are known)."
        ),
        parameters=("epsilon", "categories"),
        compute=_direct_per_user,
        source="(exp(epsilon) + categories - 2)/(exp(epsilon) - 1)^2",
        cases=[(0.5, 2), (1.5, 4), (2.0, 20), (1.0, 1000), (0.1, 3), (5.0, 100)],
        mistakes=[
            mistake(
                "p-q-swapped",
                "You exchanged p and q: the variance per user at c = 0 is q(1 − q)/(p − q)², "
                "with q the probability of supporting a category one does not hold.",
                _direct_swapped,
                source="exp(epsilon)*(categories - 1)/(exp(epsilon) - 1)^2",
            ),
            mistake(
                "d-not-d-minus-one",
                "Your p and q have e^ε + d in their denominator. The d reports' weights "
                "are e^ε for one's own category and 1 for each of the d − 1 others.",
                lambda epsilon, categories: _direct_per_user(epsilon, categories + 1),
                source="(exp(epsilon) + categories - 1)/(exp(epsilon) - 1)^2",
            ),
            mistake(
                "not-divided",
                "That is q(1 − q), the variance of one report's support. The estimate "
                "divides the supports by p − q: divide the variance by (p − q)².",
                _direct_supports,
                source="(exp(epsilon) + categories - 2)/(exp(epsilon) + categories - 1)^2",
            ),
        ],
        solution=(
            "At $c = 0$ the variance is $n q(1 - q)/(p - q)^2$. With "
            "$D = e^\\varepsilon + d - 1$: $q(1 - q) = (e^\\varepsilon + d - 2)/D^2$ and "
            "$p - q = (e^\\varepsilon - 1)/D$, so $D^2$ cancels:\n\n"
            "$$f(\\varepsilon, d) = \\frac{e^\\varepsilon + d - 2}{(e^\\varepsilon - 1)^2}.$$\n\n"
            "It grows linearly in $d$: at $\\varepsilon = 1$ it is $0.921$ for $d = 2$ "
            "(lesson 00's randomised response) and $347$ for $d = 1024$. Optimised unary "
            "encoding's $4e^\\varepsilon/(e^\\varepsilon - 1)^2$ does not depend on $d$."
        ),
    ),
]
