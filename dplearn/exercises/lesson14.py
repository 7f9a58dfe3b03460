"""Exercises of lesson 14, "Attack the model": what (epsilon, delta) caps, what audits prove.

References and anticipated mistakes are computed with ``dplearn.auditing`` when an answer is
checked; the settings differ from the lesson's printed ones, so that its numbers are no
answers. The last solution quotes MIA-4's audits of lesson 11's run (0.247 at N = 1,000,
0.281 at N = 10,000, the accountant's 1.506); tests/test_exercises_lesson14.py recomputes
them.

Taught in: 14-attack-the-model.ipynb
"""

import math

from scipy import stats

from dplearn import auditing
from dplearn.exercises import absolute, choice, mistake, number, relative

# tpr-cap: epsilon = 4, delta = 1e-5, a false-positive rate of 5 %.
_EPSILON, _DELTA, _ALPHA = 4.0, 1e-5, 0.05
# tpr-with-delta: epsilon = 1, delta = 0.01, a false-positive rate of 2 %.
_EPSILON2, _DELTA2, _ALPHA2 = 1.0, 0.01, 0.02
# clopper-pearson: 500 members and 500 non-members; 250 members and 5 non-members flagged.
_TP, _FN, _FP, _TN = 250, 250, 5, 495
# one-run: 200 guesses, 140 right, 95 %, delta = 0.
_GUESSES, _CORRECT = 200, 140


def _point_estimate_bound():
    tpr, fpr = _TP / (_TP + _FN), _FP / (_FP + _TN)
    return max(math.log(tpr / fpr), math.log((1 - fpr) / (1 - tpr)))


def _one_rate_bound():
    """Clopper-Pearson on the false-positive rate only, the observed false-negative rate."""
    fpr = auditing.clopper_pearson_upper(_FP, _FP + _TN, 0.975)
    return math.log((1 - _FN / (_TP + _FN)) / fpr)


def _unsplit_bound():
    """Both Clopper-Pearson bounds at 95 % each (the confidence not shared between them)."""
    fpr = auditing.clopper_pearson_upper(_FP, _FP + _TN, 0.95)
    fnr = auditing.clopper_pearson_upper(_FN, _TP + _FN, 0.95)
    return max(math.log((1 - fnr) / fpr), math.log((1 - fpr) / fnr))


EXERCISES = [
    number(
        "14.tpr-cap",
        title="The highest true-positive rate at $\\varepsilon = 4$",
        question=(
            "A model is $(\\varepsilon, \\delta)$-DP with $\\varepsilon = 4$ and "
            "$\\delta = 10^{-5}$. A membership attack may wrongly accuse **5 %** of the "
            "people who were not in the training data. What is the highest share of the "
            "people who were in it that the attack can find (its true-positive rate)? "
            "Give it to three decimals."
        ),
        compute=lambda: auditing.max_true_positive_rate(_EPSILON, _DELTA, _ALPHA),
        # Three decimals of the answer; a slip of 54.6 is matched to 0.1 % too.
        tolerance=relative(0.001, absolute=0.0005),
        mistakes=[
            mistake(
                "odds-factor-alone",
                "That is e^ε alone: the factor by which DP lets the attacker's odds grow, "
                "not a rate. A true-positive rate is a share of the members, between 0 and "
                "1: put the false-positive rate and δ into the bounds.",
                lambda: math.exp(_EPSILON),
            ),
            mistake(
                "no-cap",
                "A rate above 1 cannot be: e^ε·α + δ is only one of the bounds. The test's "
                "other answer, 'not a member', is an event too, and DP bounds it the other "
                "way round.",
                lambda: math.exp(_EPSILON) * _ALPHA + _DELTA,
            ),
            mistake(
                "one-only",
                "1 would be a perfect attack. Apply the bound to the complement as well: "
                "1 − TPR ≥ e^−ε (1 − δ − α).",
                lambda: 1.0,
            ),
            mistake(
                "linear",
                "ε is not a ratio of rates: the bound multiplies the false-positive rate by "
                "e^ε, not by ε.",
                lambda: _EPSILON * _ALPHA + _DELTA,
            ),
        ],
        solution=(
            "Any test's 'member' event $S$ has "
            "$\\mathrm{TPR} = P[S \\mid \\text{in}] \\le e^{\\varepsilon} "
            "P[S \\mid \\text{out}] + \\delta = e^4 \\times 0.05 + 10^{-5} \\approx 2.73$, "
            "which says nothing. Its complement gives "
            "$1 - \\alpha \\le e^{\\varepsilon}(1 - \\mathrm{TPR}) + \\delta$, so "
            "$$\\mathrm{TPR} \\le 1 - e^{-4}(1 - 10^{-5} - 0.05) \\approx 0.9826.$$ "
            "At $\\varepsilon = 4$ an attack allowed 5 % false accusations may find 98 % "
            "of the members."
        ),
    ),
    number(
        "14.tpr-with-delta",
        title="What $\\delta$ adds",
        question=(
            "A release is $(1, 0.01)$-DP: $\\varepsilon = 1$ and a large "
            "$\\delta = 0.01$. What is the highest true-positive rate of a membership "
            "attack whose false-positive rate is **2 %**? Give it to three decimals."
        ),
        compute=lambda: auditing.max_true_positive_rate(_EPSILON2, _DELTA2, _ALPHA2),
        tolerance=absolute(0.0005),
        mistakes=[
            mistake(
                "larger-bound",
                "That is the bound through the complement, 'not a member'. Both bounds hold "
                "at once, so the cap is the smaller of them, not the larger.",
                lambda: 1.0 - math.exp(-_EPSILON2) * (1.0 - _DELTA2 - _ALPHA2),
            ),
            mistake(
                "no-delta",
                "You left out δ: the bound is e^ε·α + δ, and δ = 0.01 is half as much as "
                "the false-positive rate here.",
                lambda: math.exp(_EPSILON2) * _ALPHA2,
            ),
            mistake(
                "delta-inside",
                "δ is added after multiplying by e^ε, not before.",
                lambda: math.exp(_EPSILON2) * (_ALPHA2 + _DELTA2),
            ),
            mistake(
                "linear",
                "ε is not a ratio of rates: the bound multiplies the false-positive rate by "
                "e^ε, not by ε.",
                lambda: _EPSILON2 * _ALPHA2 + _DELTA2,
            ),
        ],
        solution=(
            "The three bounds are $1$, $e^{1} \\times 0.02 + 0.01 \\approx 0.0644$ and "
            "$1 - e^{-1}(1 - 0.01 - 0.02) \\approx 0.643$; the smallest is "
            "$$\\mathrm{TPR} \\le e \\times 0.02 + 0.01 \\approx 0.0644.$$ Without "
            "$\\delta$ it would be $0.0544$: at a small false-positive rate $\\delta$ is "
            "added in full, which is why $\\delta$ must be far below one over the number "
            "of people."
        ),
    ),
    number(
        "14.clopper-pearson",
        title="From an audit's counts to a lower bound on $\\varepsilon$",
        question=(
            "An audit trains 1,000 models, 500 with a canary and 500 without, and attacks "
            "each. The attack says 'member' for 250 of the 500 models with the canary and "
            "for 5 of the 500 without. Which lower bound on $\\varepsilon$ (at "
            "$\\delta = 0$) does it prove with 95 % confidence, with Clopper–Pearson bounds "
            "on both error rates as in the lesson? Two decimals are enough (a rounding to "
            "one decimal is accepted too)."
        ),
        compute=lambda: auditing.epsilon_lower_bound(_TP, _FN, _FP, _TN),
        # 2.98 and 3.0 (2.978 to one decimal) pass; the slips 3.071 and 3.096 stay apart.
        tolerance=absolute(0.023),
        mistakes=[
            mistake(
                "one-rate-bounded",
                "You bounded the false-positive rate but used the observed false-negative "
                "rate as it is. A lucky run can flatter either rate: give both an upper "
                "confidence bound.",
                _one_rate_bound,
            ),
            mistake(
                "point-estimate",
                "That is ln(TPR/FPR) from the observed rates: a point estimate, which a "
                "lucky run can push above the true ε. A proof needs upper confidence "
                "bounds on the error rates.",
                _point_estimate_bound,
            ),
            mistake(
                "unsplit-confidence",
                "Both bounds must hold at once: give each 1 − 0.05/2 = 97.5 %, not 95 %.",
                _unsplit_bound,
            ),
        ],
        solution=(
            "The observed rates are $\\mathrm{FPR} = 5/500 = 1\\%$ and "
            "$\\mathrm{FNR} = 250/500 = 50\\%$. Each gets a one-sided Clopper–Pearson upper "
            "bound at $97.5\\%$ (so that both hold with probability $95\\%$): "
            "$\\mathrm{FPR}^+ \\approx 0.0232$, the $0.975$-quantile of "
            "$\\mathrm{Beta}(6, 495)$, and $\\mathrm{FNR}^+ \\approx 0.5447$. Then "
            "$$\\varepsilon \\ge \\ln\\frac{1 - \\mathrm{FNR}^+}{\\mathrm{FPR}^+} "
            "\\approx \\ln\\frac{0.4553}{0.0232} \\approx 2.98,$$ well below the point "
            "estimate $\\ln(0.5/0.01) \\approx 3.91$."
        ),
    ),
    number(
        "14.one-run",
        title="One training run, 200 guesses",
        question=(
            "An auditor trains **one** model with 1,000 canaries, each put in the data "
            "with probability $\\frac{1}{2}$. It then guesses in or out for 200 of them, "
            "and **140** guesses are right. Which lower bound on $\\varepsilon$ (at $\\delta = 0$, "
            "95 % confidence) does the one-run audit of Steinke, Nasr and Jagielski prove? "
            "Give it to two decimals."
        ),
        compute=lambda: auditing.one_run_epsilon_lower_bound(_GUESSES, _CORRECT),
        tolerance=absolute(0.01),
        mistakes=[
            mistake(
                "point-estimate",
                "That is the log-odds of the observed share right, ln(140/60): a point "
                "estimate. The bound is the largest ε under which 140 or more right "
                "guesses would still be unlikely (at most 5 %).",
                lambda: math.log(_CORRECT / (_GUESSES - _CORRECT)),
            ),
            mistake(
                "probability-not-odds",
                "That is a probability of a right guess, not an ε: an ε-DP run lets each "
                "guess be right with probability e^ε/(1 + e^ε), so take the log-odds.",
                lambda: float(stats.beta.ppf(0.05, _CORRECT, _GUESSES - _CORRECT + 1)),
            ),
        ],
        solution=(
            "An $\\varepsilon$-DP run makes each guess right with probability at most "
            "$p = e^\\varepsilon/(1 + e^\\varepsilon)$, whatever the other guesses, so "
            "the number right is at most $\\mathrm{Binomial}(200, p)$ in the tail. The "
            "bound is the largest $\\varepsilon$ with "
            "$P[\\mathrm{Binomial}(200, p) \\ge 140] \\le 0.05$: $p \\approx 0.6422$, "
            "$$\\varepsilon \\ge \\ln\\frac{0.6422}{0.3578} \\approx 0.585,$$ less than "
            "the point estimate $\\ln(140/60) \\approx 0.847$."
        ),
    ),
    choice(
        "14.what-an-audit-proves",
        title="What an audit's number means",
        question=(
            "The accountant reports $\\varepsilon = 1.5$ at $\\delta = 10^{-5}$ for a "
            "training run. An audit of the same training, with a black-box attack, proves "
            "$\\varepsilon \\ge 0.2$ with 95 % confidence. What follows?"
        ),
        options={
            "a": "The run's true ε is 0.2: the accountant overstates it by a factor 7.5.",
            "b": "The run is not (ε, δ)-DP for any ε below 0.2 (with 95 % confidence); its "
            "true ε lies somewhere from 0.2 to 1.5, and a stronger attack might prove more.",
            "c": "The accountant must be wrong, since the two numbers differ.",
            "d": "Every person's membership can be guessed with probability at most 0.2.",
        },
        answer="b",
        hints={
            "a": (
                "lower-bound-as-epsilon",
                "An audit gives a lower bound: it shows what one attack achieves, not what "
                "every attack could. Another attack might achieve more.",
            ),
            "c": (
                "bounds-differ",
                "A lower bound below an upper bound contradicts nothing; only a lower bound "
                "above the accountant's ε would show a bug.",
            ),
            "d": (
                "epsilon-as-probability",
                "ε is not a probability: it caps the ratio e^ε between how often an "
                "attack flags members and non-members.",
            ),
        },
        praise="An audit bounds ε from below, the accountant from above; the truth is between.",
        solution=(
            "The accountant's $\\varepsilon = 1.5$ is an upper bound: no attack can do "
            "better than $(1.5, 10^{-5})$-DP allows. The audit's $0.2$ is a lower bound: "
            "this attack's counts would be unlikely (below 5 %) under any "
            "$\\varepsilon < 0.2$. So the true $\\varepsilon$ of the training lies in "
            "$[0.2, 1.5]$. A weak attack (black-box, few trials) proves little, and so "
            "does the strongest one: on lesson 11's run (MIA-3, MIA-4) the attacker that "
            "sees every step reaches the run's trade-off curve, yet its audit proves only "
            "$\\varepsilon \\ge 0.247$ with $N = 1{,}000$ trials and $0.281$ with "
            "$N = 10{,}000$, far below the accountant's $1.506$: that $\\varepsilon$ is "
            "spent at false-positive rates no affordable number of trials can see. An "
            "audit can find a bug (a bound above $1.5$), never prove privacy."
        ),
    ),
]
