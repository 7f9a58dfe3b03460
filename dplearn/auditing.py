"""What an attacker can do against (epsilon, delta), and what an attack proves about epsilon.

A membership attacker sees what a mechanism released (published means, a trained model) and
tests "was this example in the data?". Its test has a false-positive rate alpha (it says
"member" of an example that was not in) and a true-positive rate (it says "member" of one
that was). Differential privacy caps the second given the first:

- ``max_true_positive_rate``: what (epsilon, delta)-DP allows, min(1, e^epsilon alpha +
  delta, 1 - e^-epsilon (1 - delta - alpha)) (Kairouz, Oh & Viswanath, "The composition
  theorem for differential privacy", ICML 2015);
- ``dp_sgd_max_true_positive_rate``: what a DP-SGD run allows, from its whole privacy
  profile delta(epsilon) (the PLD of ``dplearn.accounting``): the intersection of the
  regions of every (epsilon, delta(epsilon)) it satisfies, its trade-off curve (Dong, Roth &
  Su, "Gaussian differential privacy", JRSS-B 2022), tighter than any one of them.

Auditing turns this around: run an attack many times, count its errors, and get a lower
bound on epsilon that holds with a stated confidence, to set beside the accountant's upper
bound:

- ``epsilon_lower_bound``: from the four counts of N trials, with Clopper-Pearson bounds on
  both error rates (Jagielski, Ullman & Oprea, "Auditing differentially private machine
  learning: how private is private SGD?", NeurIPS 2020);
- ``one_run_epsilon_lower_bound``: from the guesses about m canaries in one training run
  (Steinke, Nasr & Jagielski, "Privacy auditing with one (1) training run", NeurIPS 2023).

And the attacks, seeded: membership from published means (``tracing_scores``, after Homer
et al. 2008 and Dwork, Smith, Steinke, Ullman & Vadhan 2015), the strongest attacker on
DP-SGD (``gradient_canary_scores``: it sees every noisy step) and a black-box attacker that
sees only the final model of lesson 11's training (``black_box_canary_scores``).

Stored scores: the black-box attacker's 12,000 models of lesson 14's figures (5,000 with the
canary and 5,000 without, seed 1403; 1,000 and 1,000 for calibration, seed 1404) take about
14 s of CPU to train, in every process that shows the lesson. Their scores come with the
package instead, in ``dplearn/data/black_box_scores.npz``, with the setting they belong to
(trials, seed, ``LESSON11_RUN``, the split's seed); ``black_box_canary_scores`` reads them for
exactly those settings and trains the models for any other. After a change to the trainer,
the canaries, the run or the figures' seeds, write them again with

    python -m dplearn.auditing --write-scores

(``tests/test_auditing_scores.py`` trains them afresh and fails if the file differs.)

Taught in: 14-attack-the-model.ipynb
"""

from __future__ import annotations

import functools
import math
from typing import NamedTuple

import numpy as np
from scipy import optimize, special, stats

from dplearn import _stored_scores as _stored_scores_file
from dplearn import _validation as check
from dplearn import accounting, calibration, training
from dplearn._many_models import train_many as _train_many

__all__ = [
    "max_true_positive_rate",
    "epsilon_lower_bound",
    "one_run_epsilon_lower_bound",
    "clopper_pearson_upper",
    "dp_sgd_privacy_profile",
    "dp_sgd_max_true_positive_rate",
    "Scores",
    "roc",
    "true_positive_rate_at",
    "audit_counts",
    "audit",
    "Audit",
    "AUDIT_FALSE_POSITIVE_RATES",
    "tracing_scores",
    "gradient_canary_scores",
    "black_box_canary_scores",
    "one_run_audit",
    "LESSON11_RUN",
]


# ----------------------------------------------------------------------------------------
# What (epsilon, delta) allows
# ----------------------------------------------------------------------------------------


def _confidence(confidence):
    return check.probability_open("confidence", confidence, scalar=True)


def _delta(delta):
    return check.probability_closed("delta", delta, scalar=True)


def max_true_positive_rate(epsilon, delta, false_positive_rate):
    """The highest true-positive rate any membership test can reach at a false-positive
    rate alpha against an (epsilon, delta)-DP mechanism:
    min(1, e^epsilon alpha + delta, 1 - e^-epsilon (1 - delta - alpha)).

    The second term: the test's "member" event has probability at most e^epsilon times
    its probability without the example, plus delta; the third: the same for its
    complement, the other way round (Kairouz, Oh & Viswanath 2015). Vectorised over all
    three arguments (numpy broadcasting).

    Args:
      epsilon: epsilon >= 0 (inf: no cap but 1).
      delta: delta in [0, 1].
      false_positive_rate: alpha in [0, 1].

    Taught in: 14-attack-the-model.ipynb
    """
    epsilon = check.epsilon(epsilon)
    delta = check.probability_closed("delta", delta)
    alpha = check.probability_closed("false_positive_rate", false_positive_rate)
    with np.errstate(over="ignore", invalid="ignore"):
        through_alpha = np.where(alpha > 0, np.exp(epsilon) * alpha, 0.0) + delta
        through_complement = 1.0 - np.exp(-epsilon) * (1.0 - delta - alpha)
    cap = np.minimum(np.minimum(through_alpha, through_complement), 1.0)
    return check.scalar_or_array(np.clip(cap, 0.0, 1.0))


# ----------------------------------------------------------------------------------------
# From counts to a lower bound on epsilon
# ----------------------------------------------------------------------------------------


def clopper_pearson_upper(successes, trials, level):
    """One-sided Clopper-Pearson upper bound on a rate: the p with
    P[Binomial(trials, p) <= successes] = 1 - level (1 when every trial succeeded).

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
    """A lower bound on epsilon from the outcomes of a membership attack (Jagielski, Ullman
    & Oprea 2020): max(ln((1 - delta - FNR+) / FPR+), ln((1 - delta - FPR+) / FNR+), 0).

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
    """A lower bound on epsilon from one training run with canaries (Steinke, Nasr &
    Jagielski, "Privacy auditing with one (1) training run", NeurIPS 2023).

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


# ----------------------------------------------------------------------------------------
# What a DP-SGD run allows: its privacy profile and trade-off curve
# ----------------------------------------------------------------------------------------

#: The epsilons (of either sign) at which a run's profile is read for its trade-off curve:
#: steps of 0.002 within [-8, 8], of 0.01 out to -40 and 40. Only the bounds at these
#: epsilons are taken, so the true-positive cap is never too low (the safe side).
_PROFILE_EPSILONS = np.unique(
    np.concatenate(
        [np.arange(-40, -8, 0.01), np.arange(-8, 8, 0.002), np.arange(8, 40.001, 0.01)]
    ).round(10)
)


@functools.lru_cache(maxsize=32)
def _profile(rate, sigma, steps, grid_width):
    distribution, _ = accounting._compose((rate, sigma, grid_width, "remove", True), steps)
    deltas = np.clip(distribution._lattice.hockey(_PROFILE_EPSILONS), 0.0, 1.0)
    epsilons = _PROFILE_EPSILONS.copy()
    epsilons.flags.writeable = deltas.flags.writeable = False
    return epsilons, deltas


def dp_sgd_privacy_profile(sampling_rate, noise_multiplier, steps, grid_width=None):
    """delta(epsilon) = sup_S P[run in S | with x] - e^epsilon P[run in S | without x] of a
    DP-SGD run, for epsilon of either sign (a fixed list from -40 to 40), from the
    pessimistic PLD of the remove direction (``dplearn.accounting``): the example x is in
    the first data set.

    Returns:
      (epsilons, deltas): two read-only arrays.

    Taught in: 14-attack-the-model.ipynb
    """
    rate, sigma, steps, _ = accounting._inputs(sampling_rate, noise_multiplier, steps, 0.5)
    h = accounting.DEFAULT_GRID_WIDTH if grid_width is None else accounting._grid_width(grid_width)
    return _profile(rate, sigma, steps, h)


def dp_sgd_max_true_positive_rate(
    sampling_rate, noise_multiplier, steps, false_positive_rate, grid_width=None
):
    """The highest true-positive rate at a false-positive rate alpha that any membership
    test can reach against a DP-SGD run: one minus its trade-off curve.

    Any test S has P[S | member] <= e^epsilon P[S | non-member] + delta(epsilon) at every
    real epsilon, with delta(epsilon) the run's profile (``dp_sgd_privacy_profile``), and
    the smallest of these bounds is reached by the likelihood-ratio test (Neyman-Pearson;
    Dong, Roth & Su 2022, Proposition 2.12): so the cap is
    min over epsilon of min(1, e^epsilon alpha + delta(epsilon)). The profile is the
    accountant's pessimistic one and the minimum is taken over a fine list of epsilons, so
    the cap is never below the exact one. Vectorised over alpha.

    Args:
      sampling_rate, noise_multiplier, steps: the run (``dplearn.accounting``).
      false_positive_rate: alpha in [0, 1].
      grid_width: the PLD's h (None: 1e-4).

    Taught in: 14-attack-the-model.ipynb
    """
    alpha = check.probability_closed("false_positive_rate", false_positive_rate)
    epsilons, deltas = dp_sgd_privacy_profile(sampling_rate, noise_multiplier, steps, grid_width)
    caps = _caps(epsilons, deltas, np.atleast_1d(alpha).ravel())
    return check.scalar_or_array(caps.reshape(np.shape(alpha)))


def _caps(epsilons, deltas, alphas):
    """min over the profile of min(1, e^epsilon alpha + delta(epsilon)), in blocks."""
    growth = np.exp(epsilons)
    result = np.empty(alphas.size)
    for start in range(0, alphas.size, 64):
        block = alphas[start : start + 64, None]
        caps = np.min(growth[None, :] * block + deltas[None, :], axis=1)
        result[start : start + 64] = np.minimum(caps, 1.0)
    return np.clip(result, 0.0, 1.0)


# ----------------------------------------------------------------------------------------
# Scores of attacks, ROC points and counts
# ----------------------------------------------------------------------------------------


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
    """The attack's true-positive rate when its threshold lets through at most a share
    ``false_positive_rate`` of the non-members (the empirical ROC read at alpha).

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


def audit_counts(scores, threshold):
    """(true positives, false negatives, false positives, true negatives) of the guess
    "member" when the score exceeds ``threshold``.

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
    """Audits with an attack's scores: picks a threshold on separate calibration scores (the
    one whose bound is largest there, among ``AUDIT_FALSE_POSITIVE_RATES``), then counts
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


# ----------------------------------------------------------------------------------------
# Membership from published means (tracing)
# ----------------------------------------------------------------------------------------


def tracing_scores(people, attributes, epsilon, delta, data_sets, *, rng):
    """Scores of the tracing attack on published means (Homer et al. 2008; Dwork, Smith,
    Steinke, Ullman & Vadhan, "Robust traceability from trace amounts", FOCS 2015).

    Each data set holds ``people`` rows of ``attributes`` bits, attribute j being 1 with a
    probability p_j drawn uniformly from [0.1, 0.9]; the means of the columns are
    published, exactly (epsilon inf) or with Gaussian noise calibrated to (epsilon, delta)
    (sensitivity sqrt(d) / n: one person swapped moves each mean by at most 1/n). The
    attacker holds a reference sample of as many people from the same population, with
    means r, and scores a target y by <y - r, published means - r>: a member pulls the
    means towards itself. Every person of each data set is a member target; as many fresh
    people are the non-member targets.

    Args:
      people: n, a whole number in [2, 10000].
      attributes: d, a whole number in [1, 100000].
      epsilon: > 0, or inf for exact means.
      delta: in (0, 1) (unused for exact means).
      data_sets: how many data sets are drawn (a whole number >= 1).
      rng: a numpy.random.Generator.

    Taught in: 14-attack-the-model.ipynb
    """
    people = check.whole("people", people, minimum=2, maximum=10_000)
    attributes = check.whole("attributes", attributes, minimum=1, maximum=100_000)
    data_sets = check.whole("data_sets", data_sets, minimum=1, maximum=10_000)
    if people * attributes * data_sets > 50_000_000:
        raise ValueError("people * attributes * data_sets must be at most 50,000,000")
    epsilon = check.epsilon(epsilon, scalar=True)
    if epsilon == 0:
        raise ValueError("epsilon must be > 0 (inf for exact means), got 0.0")
    delta = check.probability_open("delta", delta, scalar=True)
    rng = check.generator(rng)
    sigma = 0.0
    if math.isfinite(epsilon):
        sigma = float(
            calibration.gaussian_sigma_analytic(epsilon, delta, math.sqrt(attributes) / people)
        )
    members, non_members = [], []
    for _ in range(data_sets):
        frequencies = rng.uniform(0.1, 0.9, attributes)
        rows, outsiders, sample = (rng.random((3, people, attributes)) < frequencies).astype(float)
        reference = sample.mean(axis=0)
        published = rows.mean(axis=0) + sigma * rng.standard_normal(attributes)
        direction = published - reference
        offset = reference @ direction
        members.append(rows @ direction - offset)
        non_members.append(outsiders @ direction - offset)
    return Scores(np.concatenate(members), np.concatenate(non_members))


# ----------------------------------------------------------------------------------------
# The strongest attacker on DP-SGD: a gradient canary, every step observed
# ----------------------------------------------------------------------------------------


def gradient_canary_scores(sampling_rate, noise_multiplier, steps, trials, *, rng):
    """Scores of the strongest attacker on a DP-SGD run (Nasr et al., "Tight auditing of
    differentially private machine learning", 2023).

    The canary's clipped gradient has norm C and points in a direction no other gradient
    touches; the attacker sees every noisy step. Along that direction step t shows
    x_t = b_t + sigma z_t (in units of C), with z_t standard normal and b_t = 1 with
    probability q if the canary is in the data, 0 otherwise; nothing else in the run
    depends on it, so the run is simulated on that coordinate alone. The score is the
    log-likelihood ratio sum_t ln(1 - q + q e^((2 x_t - 1) / (2 sigma^2))), the best test
    (Neyman-Pearson) of in against out.

    Args:
      sampling_rate: q in (0, 1].
      noise_multiplier: sigma > 0.
      steps: T, a whole number >= 1.
      trials: runs with the canary in, and as many without (a whole number >= 1).
      rng: a numpy.random.Generator.

    Taught in: 14-attack-the-model.ipynb
    """
    rate, sigma, steps, _ = accounting._inputs(sampling_rate, noise_multiplier, steps, 0.5)
    trials = check.whole("trials", trials, minimum=1, maximum=1_000_000)
    if trials * steps > 100_000_000:
        raise ValueError("trials * steps must be at most 100,000,000")
    rng = check.generator(rng)
    log_keep = math.log1p(-rate) if rate < 1 else -math.inf
    log_rate = math.log(rate)
    scores = np.zeros((2, trials))
    block = max(1, 2_000_000 // (2 * trials))
    for start in range(0, steps, block):
        width = min(block, steps - start)
        observed = sigma * rng.standard_normal((2, trials, width))
        observed[0] += rng.random((trials, width)) < rate
        scores += np.sum(
            np.logaddexp(log_keep, log_rate + (2.0 * observed - 1.0) / (2.0 * sigma * sigma)),
            axis=2,
        )
    return Scores(scores[0], scores[1])


# ----------------------------------------------------------------------------------------
# A black-box attacker on lesson 11's model
# ----------------------------------------------------------------------------------------


class _Run(NamedTuple):
    sampling_rate: float
    noise_multiplier: float
    clip_norm: float
    epochs: int
    learning_rate: float


#: Lesson 11's private run on the breast cancer data (expected batch 32 of its 427 training
#: examples, sigma 4, C 1, 30 epochs, step size 0.5), with its split seed.
LESSON11_RUN = _Run(32 / 427, 4.0, 1.0, 30, 0.5)
_SPLIT_SEED = 2026


@functools.lru_cache(maxsize=1)
def _breast_cancer():
    return training.breast_cancer(rng=np.random.default_rng(_SPLIT_SEED))


def _canaries(data, count, rng):
    """Canary examples: far out (norm 8) in random directions of the features, each with a
    random label, so that only its own presence teaches the model its label."""
    directions = rng.standard_normal((count, data.dimension - 1))
    directions *= 8.0 / np.linalg.norm(directions, axis=1, keepdims=True)
    features = np.column_stack([directions, np.ones(count)])
    return features, (rng.random(count) < 0.5).astype(float)


def _losses(weights, features, labels):
    scores = weights @ features.T
    return np.logaddexp(0.0, scores) - labels * scores


@functools.lru_cache(maxsize=8)
def _black_box(trials, seed, run):
    stored = _stored_scores().get(_stored_scores_file.key(_setting(trials, seed, run)))
    if stored is not None:
        return stored
    return _train_black_box(trials, seed, run)


def _train_black_box(trials, seed, run):
    """(members' scores, non-members' scores): ``trials`` models trained with the canary,
    then as many without, all from one generator seeded with ``seed``."""
    rng = np.random.default_rng(seed)
    data = _breast_cancer()
    canary_features, canary_labels = _canaries(data, 1, rng)
    inside = np.zeros((2 * trials, 1), dtype=bool)
    inside[:trials] = True
    weights = _train_many(data, canary_features, canary_labels, inside, run, rng)
    scores = -_losses(weights, canary_features, canary_labels)[:, 0]
    return scores[:trials], scores[trials:]


#: The (trials, seed) settings of lesson 14's figures and notebook whose scores come with the
#: package (``dplearn.figures.auditing``'s BLACK_BOX_TRIALS and _SEED, then its calibration's).
STORED_SETTINGS = ((5000, 1403), (1000, 1404))


def _setting(trials, seed, run):
    """Everything the black-box scores depend on, as stored with them."""
    run = _Run(*run)._asdict()
    return {"trials": int(trials), "seed": int(seed), "run": run, "split_seed": _SPLIT_SEED}


@functools.lru_cache(maxsize=1)
def _stored_scores():
    """The stored scores (none if the file is missing: then every setting is trained)."""
    path = _stored_scores_file.BLACK_BOX_PATH
    return _stored_scores_file.read(path) if path.exists() else {}


def write_stored_scores(path=_stored_scores_file.BLACK_BOX_PATH, settings=STORED_SETTINGS):
    """Train the models of every (trials, seed) of ``settings`` on ``LESSON11_RUN`` afresh
    and write their scores, with their settings, to ``path``."""
    entries = []
    for trials, seed in settings:
        setting = _setting(trials, seed, LESSON11_RUN)
        entries.append((setting, *_train_black_box(trials, seed, LESSON11_RUN)))
    _stored_scores_file.write(path, entries)


def black_box_canary_scores(trials, *, seed, run=LESSON11_RUN):
    """Scores of a black-box attacker on lesson 11's training: ``trials`` models trained
    with a canary example and as many without; the score is minus the canary's loss on
    the final model (a model that saw the canary fits it better). Cached per setting; the
    settings of lesson 14 (``STORED_SETTINGS``) are read from the scores stored with the
    package, the same numbers without training (see the module's docstring).

    The canary lies far out (norm 8) in a random direction of the standardised features,
    with a random label. The models are lesson 11's private run (``LESSON11_RUN``) on its
    breast cancer split; each draws its own batches and noise. They are trained together
    (``_train_many``): 1,000 models in about 1 s, 10,000 in about 12 s on the course's
    busy 2-core machine.

    Args:
      trials: a whole number in [1, 5000].
      seed: the seed of the runs' generator (a whole number).
      run: the training setting, ``LESSON11_RUN`` or one like it.

    Taught in: 14-attack-the-model.ipynb
    """
    trials = check.whole("trials", trials, minimum=1, maximum=5000)
    seed = check.whole("seed", seed, minimum=0)
    members, non_members = _black_box(trials, seed, _Run(*run))
    return Scores(members.copy(), non_members.copy())


class OneRunAudit(NamedTuple):
    """The outcome of a one-run audit.

    Attributes:
      canaries: m, how many canaries were drawn (each put in with probability 1/2).
      guesses: r, how many the auditor guessed about.
      correct: v, how many of those guesses were right.
      epsilon: the lower bound (``one_run_epsilon_lower_bound``).
    """

    canaries: int
    guesses: int
    correct: int
    epsilon: float


@functools.lru_cache(maxsize=8)
def _one_run(canaries, seed, run):
    rng = np.random.default_rng(seed)
    data = _breast_cancer()
    features, labels = _canaries(data, canaries, rng)
    inside = rng.random((1, canaries)) < 0.5
    weights = _train_many(data, features, labels, inside, run, rng)
    return -_losses(weights, features, labels)[0], inside[0]


def one_run_audit(canaries, guesses, *, seed, confidence=0.95, run=LESSON11_RUN):
    """Steinke, Nasr & Jagielski's audit of ONE seeded run of lesson 11's model: m canaries,
    each in with probability 1/2; the r canaries with the most extreme scores are guessed
    (the r/2 best fitted "in", the r/2 worst fitted "out"); the bound at delta = 0.

    Taught in: 14-attack-the-model.ipynb
    """
    canaries = check.whole("canaries", canaries, minimum=2, maximum=2000)
    guesses = check.whole("guesses", guesses, minimum=2, maximum=canaries)
    seed = check.whole("seed", seed, minimum=0)
    scores, inside = _one_run(canaries, seed, _Run(*run))
    order = np.argsort(scores)
    high = order[canaries - guesses // 2 :]
    low = order[: guesses - guesses // 2]
    correct = int(inside[high].sum() + (~inside[low]).sum())
    epsilon = one_run_epsilon_lower_bound(guesses, correct, 0.0, confidence)
    return OneRunAudit(canaries, guesses, correct, epsilon)


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(
        prog="python -m dplearn.auditing",
        description="Write the black-box scores of lesson 14 stored with the package.",
    )
    parser.add_argument(
        "--write-scores", action="store_true", help="train the models and write their scores"
    )
    if parser.parse_args().write_scores:
        write_stored_scores()
        print(f"wrote {_stored_scores_file.BLACK_BOX_PATH}")
    else:
        parser.print_help()
