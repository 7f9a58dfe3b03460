"""Exercises of lesson 00, "See why answers need noise": the attacks, the band, and
randomised response.

References and anticipated mistakes are computed with ``dplearn.attacks``,
``dplearn.privacy_loss`` and ``dplearn.randomized_response`` when an answer is checked.
Every exercise can be answered from the page alone: the numbers it needs are in its
question, and the box takes formulas such as ln(4) or (0.4 - 0.25)/0.5.

Taught in: 00-see-why-answers-need-noise.ipynb
"""

import math

from dplearn import attacks, privacy_loss
from dplearn import randomized_response as local
from dplearn.exercises import absolute, choice, mistake, number

_LN3 = math.log(3.0)

# 00.two-releases: even prior, two releases of epsilon = ln 3 each.
_PRIOR = 0.5

# 00.biased-coin: heads (probability 0.6) tells the truth, tails a fair second coin.
_HEADS = 0.6
_TRUTH = _HEADS + (1.0 - _HEADS) / 2.0

# 00.estimate: 1000 people, fair coins, 400 yes reports.
_PEOPLE, _YES, _FAIR = 1000, 400, 0.75

# 00.local-versus-central: n = 10,000, pi = 0.3, fair coins (epsilon = ln 3).
_LARGE_N, _SHARE = 10_000, 0.3


def _probability(odds):
    return odds / (1.0 + odds)


def _highest_posterior(releases):
    """The largest probability `releases` releases of ln 3 each allow, from an even prior."""
    return float(attacks.posterior_band(_PRIOR, releases * _LN3)[1])


def _estimate(reports_yes, people, *, subtract, divide):
    return (reports_yes / people - subtract) / divide


def _ratio(local_sd, central_sd):
    return local_sd / central_sd


EXERCISES = [
    number(
        "00.two-releases",
        title="How sure two releases can make an attacker",
        question=(
            "An attacker gives Alice even chances, a probability of $0.5$, of having the "
            "disease. Two counts about her are published, each with noise that makes it "
            "$\\varepsilon$-DP with $\\varepsilon = \\ln 3$, and their privacy losses add. "
            "What is the **highest** probability the attacker can give to Alice having the "
            "disease after seeing both?"
        ),
        compute=lambda: _highest_posterior(2),
        tolerance=absolute(0.001),
        mistakes=[
            mistake(
                "one-release",
                "That is what one release allows. The two losses add: the odds can move by "
                "e^ε twice, by e^(2ε) in all.",
                lambda: _highest_posterior(1),
            ),
            mistake(
                "odds-not-probability",
                "That is the attacker's odds, not a probability: turn odds o into a "
                "probability with o / (1 + o).",
                lambda: 1.0 * math.exp(2.0 * _LN3),
            ),
            mistake(
                "doubled-factor",
                "Adding the two losses multiplies the factors on the odds: e^ε · e^ε, not 2 · e^ε.",
                lambda: _probability(2.0 * math.exp(_LN3)),
            ),
            mistake(
                "probability-times-factor",
                "The factor e^(2ε) multiplies the odds, not the probability: 0.5 × 9 is not "
                "a probability at all.",
                lambda: _PRIOR * math.exp(2.0 * _LN3),
            ),
        ],
        solution=(
            "The prior odds are $0.5 / 0.5 = 1$. Each release moves them by at most "
            "$e^{\\varepsilon} = 3$, and two releases, whose losses add, by at most "
            "$e^{2\\varepsilon} = 9$:\n\n"
            "$$\\text{odds} \\le 1 \\cdot 9 = 9, \\qquad "
            "\\Pr[\\text{has it}] \\le \\frac{9}{1 + 9} = 0.9.$$\n\n"
            "One release alone allows $3/4 = 0.75$. Lesson 08 shows why the losses of "
            "independent releases add."
        ),
    ),
    number(
        "00.biased-coin",
        title="The $\\varepsilon$ of a biased coin",
        question=(
            "A survey runs the coin version of randomised response with a **biased** first "
            "coin: it lands heads with probability $0.6$. On heads the person answers "
            "truthfully; on tails they flip a second, fair coin and answer yes on heads, no "
            "on tails. What $\\varepsilon$ does this give?"
        ),
        compute=lambda: privacy_loss.randomized_response(_TRUTH).max_loss,
        mistakes=[
            mistake(
                "heads-as-truth",
                "The truth probability t is not 0.6: on tails the second coin also gives the "
                "true answer half of the time. Add that share to 0.6 first.",
                lambda: privacy_loss.randomized_response(_HEADS).max_loss,
            ),
            mistake(
                "no-log",
                "That is the ratio t / (1 − t) of the two report probabilities: ε is its "
                "natural log.",
                lambda: _TRUTH / (1.0 - _TRUTH),
            ),
            mistake(
                "decimal-log",
                "That is a base-10 log. ε is a natural log (ln), as in e^ε.",
                lambda: math.log10(_TRUTH / (1.0 - _TRUTH)),
            ),
            mistake(
                "log-of-t",
                "That is ln t, the log of one probability, and it is negative: ε compares "
                "the two chances of a yes report, t when the truth is yes and 1 − t when it "
                "is no.",
                lambda: math.log(_TRUTH),
            ),
        ],
        solution=(
            "A report is the truth on heads, and on tails when the second coin happens to "
            "agree with the truth:\n\n"
            "$$t = 0.6 + 0.4 \\cdot \\tfrac12 = 0.8, \\qquad "
            "\\varepsilon = \\ln \\frac{t}{1 - t} = \\ln \\frac{0.8}{0.2} = \\ln 4 \\approx "
            "1.386.$$\n\n"
            "A fair first coin gives $t = 3/4$ and $\\ln 3$; a coin more likely to say "
            "heads protects less, since more reports are the plain truth."
        ),
    ),
    number(
        "00.estimate",
        title="Estimate a share from randomised answers",
        question=(
            "$1000$ people answer a yes/no question with the two fair coins "
            "($t = 3/4$). $400$ of the reports are yes. What is the unbiased estimate "
            "$\\hat\\pi$ of the share of people whose true answer is yes?"
        ),
        compute=lambda: local.estimate_proportion([1] * _YES + [0] * (_PEOPLE - _YES), _FAIR),
        tolerance=absolute(0.001),
        mistakes=[
            mistake(
                "raw-share",
                "That is the share of yes reports. A quarter of all reports are yes only "
                "because of the coins: take that out, then rescale.",
                lambda: _YES / _PEOPLE,
            ),
            mistake(
                "no-rescale",
                "You took out the coins' yes answers but did not divide by 2t − 1: each "
                "true yes raises the chance of a yes report by 2t − 1 only.",
                lambda: _estimate(_YES, _PEOPLE, subtract=1 - _FAIR, divide=1.0),
            ),
            mistake(
                "subtracted-t",
                "Subtract 1 − t, the chance that a person whose true answer is no reports "
                "yes, not t.",
                lambda: _estimate(_YES, _PEOPLE, subtract=_FAIR, divide=2 * _FAIR - 1),
            ),
            mistake(
                "divided-by-t",
                "Divide by 2t − 1, how much a true yes raises the chance of a yes report "
                "(from 1 − t to t), not by t.",
                lambda: _estimate(_YES, _PEOPLE, subtract=1 - _FAIR, divide=_FAIR),
            ),
        ],
        solution=(
            "A report is yes with probability $q = (1 - t) + \\pi(2t - 1)$: the no-sayers' "
            "reports are yes with probability $1 - t$, and each true yes adds $2t - 1$. "
            "Solve for $\\pi$ with $q$ estimated by the share of yes reports, $0.4$:\n\n"
            "$$\\hat\\pi = \\frac{0.4 - (1 - 3/4)}{2 \\cdot 3/4 - 1} = \\frac{0.15}{0.5} = "
            "0.3.$$"
        ),
    ),
    number(
        "00.local-versus-central",
        title="The price of local noise at $n = 10\\,000$",
        question=(
            "Keep the lesson's setting, fair coins ($t = 3/4$, so $\\varepsilon = \\ln 3$) and "
            "a true share $\\pi = 0.3$, but ask $n = 10\\,000$ people. The lesson's standard "
            "error of the randomised-response estimate is "
            "$\\sqrt{q(1-q)/n}\\,/\\,(2t - 1)$ with $q = (1 - t) + \\pi(2t - 1)$; a central "
            "Laplace count at the same $\\varepsilon$ adds $\\sqrt 2/(n\\varepsilon)$. How many "
            "times larger is the first?"
        ),
        compute=lambda: _ratio(
            local.local_standard_error(_SHARE, _LARGE_N, _FAIR),
            local.central_standard_error(_LARGE_N, _LN3),
        ),
        mistakes=[
            mistake(
                "no-root-two",
                "A Laplace noise of scale 1/ε has standard deviation √2/ε, not 1/ε: keep "
                "the √2 in the central error.",
                lambda: _ratio(
                    local.local_standard_error(_SHARE, _LARGE_N, _FAIR), 1.0 / (_LARGE_N * _LN3)
                ),
            ),
            mistake(
                "not-rescaled",
                "You left out the division by 2t − 1 in the local error: rescaling the share "
                "of yes reports into an estimate of π multiplies its error by 1 / (2t − 1).",
                lambda: _ratio(
                    local.local_standard_error(_SHARE, _LARGE_N, _FAIR) * (2 * _FAIR - 1),
                    local.central_standard_error(_LARGE_N, _LN3),
                ),
            ),
            mistake(
                "coins-only",
                "You kept only the coins' share of the local error. The lesson's error also "
                "holds the sampling part, π(1 − π)/n inside the root: use q(1 − q).",
                lambda: _ratio(
                    local.local_noise_standard_error(_LARGE_N, _FAIR),
                    local.central_standard_error(_LARGE_N, _LN3),
                ),
            ),
            mistake(
                "lesson-n",
                "That is the ratio the lesson printed at n = 1000. Here n = 10 000: both "
                "errors shrink as n grows, but not equally fast.",
                lambda: _ratio(
                    local.local_standard_error(_SHARE, 1000, _FAIR),
                    local.central_standard_error(1000, _LN3),
                ),
            ),
            mistake(
                "variance-ratio",
                "That is the ratio of the variances. Compare standard errors, the square roots.",
                lambda: (
                    _ratio(
                        local.local_standard_error(_SHARE, _LARGE_N, _FAIR),
                        local.central_standard_error(_LARGE_N, _LN3),
                    )
                    ** 2
                ),
            ),
        ],
        solution=(
            "With $t = 3/4$ and $\\pi = 0.3$, $q = 0.25 + 0.3 \\cdot 0.5 = 0.4$, so\n\n"
            "$$\\text{local} = \\frac{\\sqrt{0.4 \\cdot 0.6 / 10\\,000}}{0.5} \\approx 0.00980, "
            "\\qquad \\text{central} = \\frac{\\sqrt 2}{10\\,000 \\ln 3} \\approx 0.000129,$$\n\n"
            "about 76 times smaller. At $n = 1000$ the factor was 24: it grows like "
            "$\\sqrt n$, since the local error falls like $1/\\sqrt n$ and the central one "
            "like $1/n$."
        ),
    ),
    choice(
        "00.stop-reconstruction",
        title="How much noise stops reconstruction?",
        question=(
            "A data set holds one secret bit for each of $n = 100$ people. An analyst may ask "
            '$m = 400$ questions of the form "how many people of this group have a 1?", and '
            "each answer is off by at most $E$. Which noise size stops the linear-program "
            "attack of the lesson, so that it does little better than guessing?"
        ),
        options={
            "a": "E = 0.5: the answers are no longer exact.",
            "b": "E = 1: every answer may be off by one whole person.",
            "c": "E well above √n = 10, such as 40: then the attack gets little more than the "
            "half of the bits that guessing gets.",
            "d": "No E below n = 100 helps: any error smaller than the whole data set leaks "
            "every bit.",
        },
        answer="c",
        hints={
            "a": (
                "inexact-is-enough",
                "Look at INTRO-2 at E = 0.5: inexact answers still give away almost every "
                "bit, because 400 answers pin the bits down together.",
            ),
            "b": (
                "one-person",
                "One person's bit moves a count by 1, but many answers together average "
                "errors away: read INTRO-2 at E = 1.",
            ),
            "d": (
                "need-whole-data",
                "Read INTRO-2 at E = 40, less than half of n: how many bits does the attack "
                "still get right, against the half that guessing gives?",
            ),
        },
        praise="Noise of size about √n per answer is where the attack falls off its cliff.",
        solution=(
            "The attack's share of recovered bits (INTRO-2, averaged over five attacks) is "
            "near 1 while $E \\ll \\sqrt n$, drops through the cliff around "
            "$E \\approx \\sqrt n = 10$, and is little above $\\tfrac12$, guessing, once "
            "$E \\gg \\sqrt n$. So each answer needs an error of order $\\sqrt n$ or more. "
            "With Laplace noise of scale $E$ on each of the $m$ answers, basic composition "
            "gives $\\varepsilon = m / E$ for all of them: $400 / 10 = 40$, no privacy at "
            "all. Accurate answers to many questions cannot all be private."
        ),
    ),
]
