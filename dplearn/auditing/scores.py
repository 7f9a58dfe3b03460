"""Attack scores, their ROC points and an audit that turns them into a bound on epsilon.

An attack gives every target a score, higher for "more likely a member" (``Scores``). A
threshold on the scores is a test; ``roc`` gives every threshold's rates, and ``audit``
picks a threshold on separate calibration scores and bounds epsilon from its counts
(``lower_bounds.epsilon_lower_bound``). ``sampling_interval`` says how far an empirical
ROC point of the exact likelihood-ratio test strays from the test's trade-off curve.

Taught in: 14-attack-the-model.ipynb
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from scipy import stats

from dplearn import _validation as check
from dplearn.auditing.lower_bounds import epsilon_lower_bound

__all__ = [
    "Scores",
    "roc",
    "true_positive_rate_at",
    "sampling_interval",
    "audit_counts",
    "audit",
    "Audit",
    "AUDIT_FALSE_POSITIVE_RATES",
]


class Scores(NamedTuple):
    """An attack's scores: a higher score means "more likely a member".

    Attributes:
      members: scores of targets that were in the data.
      non_members: scores of targets that were not.
    """

    members: np.ndarray
    non_members: np.ndarray


def roc(scores):
    """(false-positive rates, true-positive rates) of every threshold, from (0, 0) to (1, 1).

    Taught in: 14-attack-the-model.ipynb
    """
    thresholds = np.sort(np.concatenate([scores.members, scores.non_members]))[::-1]
    members = np.sort(scores.members)
    non_members = np.sort(scores.non_members)
    tpr = (members.size - np.searchsorted(members, thresholds, side="left")) / members.size
    fpr = (non_members.size - np.searchsorted(non_members, thresholds, side="left")) / (
        non_members.size
    )
    return np.concatenate([[0.0], fpr, [1.0]]), np.concatenate([[0.0], tpr, [1.0]])


def true_positive_rate_at(scores, false_positive_rate):
    """The attack's true-positive rate at a false-positive rate alpha, empirically.

    Its threshold lets through at most a share ``false_positive_rate`` of the non-members
    (the empirical ROC read at alpha).

    Taught in: 14-attack-the-model.ipynb
    """
    alpha = check.probability_closed("false_positive_rate", false_positive_rate, scalar=True)
    threshold = _threshold(scores.non_members, alpha)
    return float(np.mean(scores.members > threshold))


def _threshold(non_members, alpha):
    """The smallest threshold t with P[non-member score > t] <= alpha, empirically."""
    ordered = np.sort(non_members)[::-1]
    allowed = int(math.floor(alpha * ordered.size + 1e-9))
    if allowed >= ordered.size:
        return -np.inf
    return float(ordered[allowed])


#: Equal-probability nodes over the false-positive rate a threshold really has.
_SAMPLING_NODES = 400


def sampling_interval(true_positive_rate, false_positive_rate, trials, confidence=0.95):
    """Where ``true_positive_rate_at`` lands for the exact likelihood-ratio test, at one rate.

    An attack whose score is the likelihood ratio of its two hypotheses (the best test,
    Neyman-Pearson) has, at every threshold, the true-positive rate its trade-off curve
    gives at the threshold's false-positive rate. Read empirically from ``trials`` members
    and as many non-members, the point at alpha strays two ways: the threshold is the
    (k + 1)-th largest non-member score, k = floor(alpha n), whose true false-positive rate
    U is Beta(k + 1, n - k) (an order statistic of n uniforms), and the members above it
    are Binomial(n, curve(U)). The interval is the central ``confidence`` range of that
    mixture, by quadrature over ``_SAMPLING_NODES`` equal-probability quantiles of U.

    Args:
      true_positive_rate: the test's curve, a function of an array of false-positive rates
        returning the true-positive rates (e.g. ``dp_sgd_max_true_positive_rate`` of a run).
      false_positive_rate: alpha in [0, 1].
      trials: n, members and as many non-members (a whole number >= 1).
      confidence: in (0, 1).

    Returns:
      (low, high): true-positive rates; the empirical one lies in [low, high] with
      probability at least ``confidence`` (up to the quadrature).

    Taught in: 14-attack-the-model.ipynb
    """
    alpha = check.probability_closed("false_positive_rate", false_positive_rate, scalar=True)
    trials = check.whole("trials", trials, minimum=1)
    confidence = check.probability_open("confidence", confidence, scalar=True)
    allowed = int(math.floor(alpha * trials + 1e-9))
    if allowed >= trials:
        return 1.0, 1.0
    levels = (np.arange(_SAMPLING_NODES) + 0.5) / _SAMPLING_NODES
    rates = stats.beta.ppf(levels, allowed + 1, trials - allowed)
    curve = np.clip(np.asarray(true_positive_rate(rates), dtype=float), 0.0, 1.0)

    def below(count):
        """P[members above the threshold <= count], averaged over U."""
        return float(np.mean(stats.binom.cdf(count, trials, curve)))

    def quantile(level):
        """The smallest count whose probability of not being exceeded reaches level."""
        low, high = -1, trials  # below(-1) = 0 < level <= 1 = below(trials)
        while high - low > 1:
            middle = (low + high) // 2
            low, high = (middle, high) if below(middle) < level else (low, middle)
        return high

    tail = (1.0 - confidence) / 2.0
    return quantile(tail) / trials, quantile(1.0 - tail) / trials


def audit_counts(scores, threshold):
    """The four counts of the guess "member" when the score exceeds ``threshold``.

    Returns:
      (true positives, false negatives, false positives, true negatives).

    Taught in: 14-attack-the-model.ipynb
    """
    true_positives = int(np.sum(scores.members > threshold))
    false_positives = int(np.sum(scores.non_members > threshold))
    return (
        true_positives,
        scores.members.size - true_positives,
        false_positives,
        scores.non_members.size - false_positives,
    )


#: The false-positive rates among which an audit picks its threshold (on calibration runs).
AUDIT_FALSE_POSITIVE_RATES = (0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.3)


#: The fewest false positives an audit's threshold is expected to let through.
_FEWEST_EXPECTED = 10


class Audit(NamedTuple):
    """An audit's outcome: the threshold, the four counts and the lower bound on epsilon."""

    threshold: float
    true_positives: int
    false_negatives: int
    false_positives: int
    true_negatives: int
    epsilon: float


def audit(scores, calibration, trials=None, delta=0.0, confidence=0.95):
    """Bounds epsilon from an attack's scores, with a threshold picked on calibration runs.

    It picks a threshold on separate calibration scores (the one whose bound is largest
    there, among ``AUDIT_FALSE_POSITIVE_RATES``), then counts
    the first trials / 2 members and non-members of ``scores`` against it and bounds
    epsilon (``epsilon_lower_bound``). Choosing the threshold on other runs keeps the
    bound's confidence honest: the counts it is computed from did not choose it.

    Args:
      scores: the audit's ``Scores``.
      calibration: ``Scores`` of other runs, to pick the threshold.
      trials: N, how many scores are used (half members, half non-members); None for all.
      delta, confidence: as for ``epsilon_lower_bound``.

    Taught in: 14-attack-the-model.ipynb
    """
    if trials is None:
        half = min(scores.members.size, scores.non_members.size)
    else:
        trials = check.whole("trials", trials, minimum=2)
        half = trials // 2
        if half > min(scores.members.size, scores.non_members.size):
            raise ValueError(
                f"trials must be at most twice the scores of each kind, got {trials!r}"
            )
    used = Scores(scores.members[:half], scores.non_members[:half])
    best = (0.0, _threshold(calibration.non_members, AUDIT_FALSE_POSITIVE_RATES[-1]))
    for alpha in AUDIT_FALSE_POSITIVE_RATES:
        if alpha * half < _FEWEST_EXPECTED:
            continue  # a handful of false positives: the counts would decide by luck
        threshold = _threshold(calibration.non_members, alpha)
        # Judged at the audit's size: the calibration runs' rates, as counts of N trials.
        tp, fn, fp, tn = audit_counts(calibration, threshold)
        positives, negatives = tp + fn, fp + tn
        guess = epsilon_lower_bound(
            round(tp * half / positives),
            half - round(tp * half / positives),
            round(fp * half / negatives),
            half - round(fp * half / negatives),
            delta,
            confidence,
        )
        if guess > best[0]:
            best = (guess, threshold)
    counts = audit_counts(used, best[1])
    return Audit(best[1], *counts, epsilon_lower_bound(*counts, delta, confidence))
