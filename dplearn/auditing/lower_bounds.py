"""What a membership attack proves: lower bounds on epsilon that hold with a stated confidence.

Run an attack many times, count its errors, and get a lower bound on epsilon to set beside
the accountant's upper bound:

- ``epsilon_lower_bound``: from the four counts of N trials, with Clopper-Pearson bounds on
  both error rates (Jagielski, Ullman & Oprea, "Auditing differentially private machine
  learning: how private is private SGD?", NeurIPS 2020);
- ``one_run_epsilon_lower_bound``: from the guesses about m canaries in one training run
  (Steinke, Nasr & Jagielski, "Privacy auditing with one (1) training run", NeurIPS 2023).

Taught in: 14-attack-the-model.ipynb
"""

from __future__ import annotations

import math

import numpy as np
from scipy import optimize, special, stats

from dplearn import _validation as check

__all__ = ["clopper_pearson_upper", "epsilon_lower_bound", "one_run_epsilon_lower_bound"]


def _confidence(confidence):
    return check.probability_open("confidence", confidence, scalar=True)


def _delta(delta):
    return check.probability_closed("delta", delta, scalar=True)


def clopper_pearson_upper(successes, trials, level):
    """One-sided Clopper-Pearson upper bound on a rate.

    The p with P[Binomial(trials, p) <= successes] = 1 - level (1 when every trial
    succeeded).

    It is the level-quantile of Beta(successes + 1, trials - successes): with probability
    at least ``level`` the true rate is below it. Vectorised over successes.

    Args:
      successes: whole numbers in [0, trials].
      trials: a whole number >= 1.
      level: in (0, 1), e.g. 0.975.

    Taught in: 14-attack-the-model.ipynb
    """
    trials = check.whole("trials", trials, minimum=1)
    level = check.probability_open("level", level, scalar=True)
    successes = np.asarray(successes, dtype=float)
    if np.any((successes < 0) | (successes > trials) | (successes != np.floor(successes))):
        raise ValueError(f"successes must be whole numbers in [0, {trials}], got {successes!r}")
    return check.scalar_or_array(_upper(successes, trials, level))


def _upper(successes, trials, level):
    """The Clopper-Pearson upper bound, unchecked; 1 at level 1 (a confidence so close to 1
    that 1 - (1 - confidence) / 2 rounds to 1: only the trivial bound is that sure)."""
    below = (successes < trials) & (level < 1.0)
    upper = stats.beta.ppf(level, successes + 1.0, np.where(below, trials - successes, 1.0))
    return np.where(below, upper, 1.0)


def _count(name, value):
    return check.whole(name, value, minimum=0)


def epsilon_lower_bound(
    true_positives, false_negatives, false_positives, true_negatives, delta=0.0, confidence=0.95
):
    """A lower bound on epsilon from the four counts of a membership attack.

    max(ln((1 - delta - FNR+) / FPR+), ln((1 - delta - FPR+) / FNR+), 0) (Jagielski,
    Ullman & Oprea 2020).

    FPR+ and FNR+ are one-sided Clopper-Pearson upper bounds on the false-positive and the
    false-negative rates, each at level 1 - (1 - confidence) / 2, so that both hold at once
    with probability at least ``confidence``; then no (epsilon, delta)-DP mechanism with a
    smaller epsilon would have let the attack do as well (its region,
    ``max_true_positive_rate``, excludes the rates). 0 where the counts prove nothing.

    Args:
      true_positives: members the attack called members (a whole number >= 0).
      false_negatives: members it called non-members.
      false_positives: non-members it called members.
      true_negatives: non-members it called non-members.
      delta: the delta at which epsilon is bounded, in [0, 1].
      confidence: in (0, 1), e.g. 0.95.

    Returns:
      epsilon, a float >= 0 (inf only if both rates are bounded by 0, never here).

    Taught in: 14-attack-the-model.ipynb
    """
    positives = _count("true_positives", true_positives) + _count(
        "false_negatives", false_negatives
    )
    negatives = _count("false_positives", false_positives) + _count(
        "true_negatives", true_negatives
    )
    delta = _delta(delta)
    confidence = _confidence(confidence)
    if positives == 0:
        raise ValueError("true_positives + false_negatives must be >= 1 (no member was tested)")
    if negatives == 0:
        raise ValueError("false_positives + true_negatives must be >= 1 (no non-member was tested)")
    level = 1.0 - (1.0 - confidence) / 2.0
    fpr = float(_upper(float(false_positives), negatives, level))
    fnr = float(_upper(float(false_negatives), positives, level))
    return _bound_from_rates(fpr, fnr, delta)


def _bound_from_rates(fpr, fnr, delta):
    best = 0.0
    for numerator, denominator in ((1.0 - delta - fnr, fpr), (1.0 - delta - fpr, fnr)):
        if numerator > 0 and denominator > 0:
            best = max(best, math.log(numerator) - math.log(denominator))
    return best


def _one_run_p_value(epsilon, guesses, correct, delta, canaries):
    """The chance, under (epsilon, delta)-DP, of at least ``correct`` right guesses out of
    ``guesses`` (Steinke, Nasr & Jagielski 2023): P[Binomial(r, e^eps/(1 + e^eps)) >= v],
    plus, for delta > 0, 2 m delta max_i P[v - i <= Binomial < v] / i."""
    rate = special.expit(epsilon)
    p_value = float(stats.binom.sf(correct - 1, guesses, rate))
    if delta > 0 and correct > 0:
        below = stats.binom.pmf(np.arange(correct - 1, -1, -1), guesses, rate)
        spread = np.max(np.cumsum(below) / np.arange(1, correct + 1))
        p_value += 2.0 * canaries * delta * float(spread)
    return p_value


def one_run_epsilon_lower_bound(guesses, correct, delta=0.0, confidence=0.95, *, canaries=None):
    """A lower bound on epsilon from one training run with canaries.

    Steinke, Nasr & Jagielski, "Privacy auditing with one (1) training run", NeurIPS 2023.

    m canaries are each put in the training data with probability 1/2; after training the
    auditor guesses in or out for the r of them it is most confident about, and v guesses
    are right. An epsilon-DP run makes each guess right with probability at most
    e^epsilon / (1 + e^epsilon), whatever the others, so v right guesses have a p-value of
    at most P[Binomial(r, e^epsilon / (1 + e^epsilon)) >= v]; the bound is the largest
    epsilon at which that p-value is still at most 1 - confidence (found by a root finder).
    For delta > 0 their theorem adds 2 m delta max_i P[v - i <= Binomial < v] / i, which
    needs the number of canaries m.

    Args:
      guesses: r, a whole number >= 1.
      correct: v, a whole number in [0, r].
      delta: in [0, 1].
      confidence: in (0, 1).
      canaries: m >= r, required when delta > 0.

    Returns:
      epsilon >= 0 (0 where the guesses prove nothing; inf if every guess was right and
      the p-value of even epsilon = inf is below the level, which cannot happen: at most
      up to the bisection's end, 60).

    Taught in: 14-attack-the-model.ipynb
    """
    guesses = check.whole("guesses", guesses, minimum=1)
    correct = check.whole("correct", correct, minimum=0)
    if correct > guesses:
        raise ValueError(f"correct must be at most guesses ({guesses}), got {correct!r}")
    delta = _delta(delta)
    confidence = _confidence(confidence)
    if delta > 0:
        if canaries is None:
            raise ValueError("canaries (the number m of canaries) is needed when delta > 0")
        canaries = check.whole("canaries", canaries, minimum=guesses)
    level = 1.0 - confidence

    def excess(epsilon):
        return _one_run_p_value(epsilon, guesses, correct, delta, canaries or 0) - level

    if correct == 0 or excess(0.0) > 0:
        return 0.0
    top = 1.0
    while excess(top) <= 0:
        if top >= _ONE_RUN_MAX_EPSILON:
            return _ONE_RUN_MAX_EPSILON
        top = min(2.0 * top, _ONE_RUN_MAX_EPSILON)
    # The p-value grows with epsilon: the bound is where it crosses the level. The root
    # is kept on the side where the p-value is still below it (xtol far below display).
    root = optimize.brentq(excess, 0.0, top, xtol=1e-12, rtol=1e-12)
    while excess(root) > 0:
        root = math.nextafter(root, 0.0)
    return float(root)


#: The largest epsilon a one-run audit reports (every guess right with r large).
_ONE_RUN_MAX_EPSILON = 60.0
