"""The sparse vector technique: AboveThreshold, Sparse, and variants that are not private.

AboveThreshold (Dwork & Roth, "The algorithmic foundations of differential privacy",
2014, Algorithm 1) asks queries of sensitivity Delta one after another and stops at the
first whose answer looks above a threshold T: it draws one noisy threshold
T + Lap(2 Delta / epsilon), adds fresh Lap(4 Delta / epsilon) noise to every answer, and
stops at the first noisy answer at or above the noisy threshold. It is epsilon-DP however
many queries it asks. Its outcome is the index of that query, or "none above".

Everything here is exact. Given the noisy threshold t, the answers' noises are
independent, so P[stop at k | t] = prod_(i < k) F_i(t) (1 - F_k(t)) with F_i the Laplace
distribution function of answer i's noisy value; the law is one integral of these over
the density of t (``scipy.integrate.quad_vec``, breakpoints at the Laplace kinks: the
threshold and every answer). Each outcome's integrand is scaled by its own largest value
first, so that every probability, however small, has about 1e-12 relative accuracy: the
privacy loss ln(P[k | D1] / P[k | D2]) of each outcome is then exact to about 1e-11.

Outcomes are numbered 0 .. m - 1 (stop at query 1 .. m) and m (none above), the order of
``above_threshold_probabilities``.

Variants that Lyu, Su & Li ("Understanding the sparse vector technique for differential
privacy", PVLDB 2017) show are not private for any epsilon, each with a pair of
neighbouring answer vectors built to break it (``counterexample``) and the privacy loss of
its worst outcome against the number of queries m (``worst_loss``):

- ``"no answer noise"``: the answers are compared without noise. From m = 2 an outcome
  has probability 0 on one neighbour and not on the other: the loss is infinite.
- ``"no stop"``: every query gets its above/below answer, with no limit on the number of
  positives. The loss grows about linearly with m.
- ``"released answer"``: the noisy answer of the query it stops at is published too. For
  outputs below every answer and the threshold, the loss is exactly (m - 1) epsilon / 4.

Sparse (Dwork & Roth, Algorithm 2) finds up to c queries above the threshold by running
AboveThreshold c times with epsilon / c each, a fresh noisy threshold after each positive.

Taught in: 13-answer-many-queries-for-the-price-of-few.ipynb
"""

from __future__ import annotations

import itertools
import math
from typing import NamedTuple

import numpy as np
from scipy import integrate

from dplearn import _validation as check

__all__ = [
    "VARIANTS",
    "above_threshold_probabilities",
    "above_threshold_log_probabilities",
    "above_threshold_losses",
    "sample_above_threshold",
    "noise_scales",
    "NoiseScales",
    "no_answer_noise_probabilities",
    "no_stop_log_probability",
    "no_stop_probabilities",
    "released_answer_log_density",
    "counterexample",
    "Counterexample",
    "worst_loss",
    "worst_losses",
    "above_threshold_worst_loss",
    "sparse_probabilities",
    "sample_sparse",
    "sparse_noise_scales",
    "SparseNoiseScales",
    "above_threshold_accuracy",
]

#: The broken variants of ``counterexample`` and ``worst_loss``.
VARIANTS = ("no answer noise", "no stop", "released answer")

#: Noisy thresholds farther than this many threshold scales beyond every kink (T and the
#: answers) add less than e^-60 / 2 = 4.4e-27 of any outcome's mass: the integrals stop
#: there. An outcome that needs the threshold far from T (stopping at query 39 when the
#: answers before it reach 80 threshold scales up) has its mass out there, so the range
#: follows the answers, not T alone.
_REACH = 60.0
#: Answers farther than this many threshold scales from T count as there: an outcome that
#: needs the noisy threshold beyond it has probability below e^-10000.
_FAR = 1e4


def _range(kinks):
    """The interval of u to integrate over: every kink, and _REACH beyond the outermost."""
    return min(-_REACH, kinks[0] - _REACH), max(_REACH, kinks[-1] + _REACH)


_LOG_HALF = math.log(0.5)


# ---------------------------------------------------------------------------
# Arguments
# ---------------------------------------------------------------------------


def _checked(answers, threshold, epsilon, sensitivity):
    answers = check.vector("answers", answers)
    threshold = check.finite("threshold", threshold, scalar=True)
    epsilon = check.positive("epsilon", epsilon, scalar=True)
    sensitivity = check.positive("sensitivity", sensitivity, scalar=True)
    _check_ratio(epsilon, sensitivity)
    return answers, threshold, epsilon, sensitivity


def _check_ratio(epsilon, sensitivity):
    """The noise scales 2 and 4 sensitivity / epsilon must be normal positive doubles."""
    ratio = sensitivity / epsilon
    if not 1e-300 <= ratio <= 1e300:
        raise ValueError(
            f"sensitivity / epsilon must lie in [1e-300, 1e300] for the noise scales, got "
            f"sensitivity={sensitivity!r}, epsilon={epsilon!r}"
        )


class NoiseScales(NamedTuple):
    """The Laplace scales of AboveThreshold (``noise_scales``).

    Attributes:
      threshold: the threshold's noise scale, 2 Delta / epsilon.
      answer: each answer's noise scale, 4 Delta / epsilon.
    """

    threshold: float
    answer: float


def noise_scales(epsilon, sensitivity=1.0):
    """The noise scales of AboveThreshold: 2 Delta / epsilon and 4 Delta / epsilon.

    Returns:
      A ``NoiseScales`` (threshold, answer).

    Taught in: 13-answer-many-queries-for-the-price-of-few.ipynb
    """
    epsilon = check.positive("epsilon", epsilon, scalar=True)
    sensitivity = check.positive("sensitivity", sensitivity, scalar=True)
    _check_ratio(epsilon, sensitivity)
    return NoiseScales(2.0 * sensitivity / epsilon, 4.0 * sensitivity / epsilon)


# ---------------------------------------------------------------------------
# Laplace pieces, in log space
# ---------------------------------------------------------------------------


def _log_below(x, scale):
    """ln P[Lap(scale) < x], elementwise (stable in both tails)."""
    z = np.asarray(x, dtype=float) / scale
    return np.where(z < 0, _LOG_HALF + np.minimum(z, 0.0), np.log1p(-0.5 * np.exp(-np.abs(z))))


def _log_above(x, scale):
    """ln P[Lap(scale) >= x]."""
    return _log_below(-np.asarray(x, dtype=float), scale)


def _log_density(x, scale):
    return -np.abs(np.asarray(x, dtype=float)) / scale - math.log(2.0 * scale)


def _log_standard_density(u):
    """ln of the standard Laplace density at u: the threshold's noise in units of its scale."""
    return -np.abs(u) - math.log(2.0)


def _kinks(points, threshold, scale, low, high):
    """Points (answers, outputs) in units of the threshold's scale from T, within [low, high]."""
    with np.errstate(over="ignore"):
        units = (np.asarray(points, dtype=float) - threshold) / scale
    return np.unique(np.clip(np.append(units, 0.0), low, high))


def _integrate_logs(log_integrand, size, low, high, kinks):
    """ln of the integrals over u in [low, high] of exp(log_integrand(u)) (a vector of size).

    The variable u is the noisy threshold's distance from T in units of its scale, so the
    integrals are of order one whatever epsilon and the sensitivity are. Each component is
    divided by its largest value on a fine grid first (found in log space), so quad's
    absolute tolerance is a relative one for every component.
    """
    with np.errstate(over="ignore"):  # answers far out give infinite gaps: exact limits
        return _integrate_logs_here(log_integrand, size, low, high, kinks)


def _integrate_logs_here(log_integrand, size, low, high, kinks):
    grid = np.unique(np.concatenate([np.linspace(low, high, 2001), kinks]))
    peak = np.max(log_integrand(grid[:, None]), axis=0)  # log_integrand broadcasts over u
    finite = np.isfinite(peak)
    shift = np.where(finite, peak, 0.0)

    def scaled(u):
        """The integrand at u, divided by e^shift so that its peak is 1."""
        with np.errstate(under="ignore"):
            return np.exp(log_integrand(u) - shift)

    inner = [point for point in kinks if low < point < high]
    if size == 1:  # one integral: quad's compiled loop is several times faster
        value, _ = integrate.quad(
            lambda u: float(scaled(u)[0]),
            low,
            high,
            points=inner or None,
            epsabs=1e-14,
            epsrel=1e-13,
            limit=200 + 2 * len(inner),
        )
        value = np.array([value])
    else:
        value, _ = integrate.quad_vec(
            scaled, low, high, points=inner or None, epsabs=1e-14, epsrel=1e-13, norm="max"
        )
    with np.errstate(divide="ignore"):
        result = np.log(np.maximum(value, 0.0)) + shift
    return np.where(finite, result, -np.inf)


# ---------------------------------------------------------------------------
# AboveThreshold
# ---------------------------------------------------------------------------


def _above_threshold_logs(answers, threshold, epsilon, sensitivity):
    threshold_scale, answer_scale = 2.0 * sensitivity / epsilon, 4.0 * sensitivity / epsilon
    size = answers.size
    with np.errstate(over="ignore"):
        offsets = threshold - answers  # t - answer i at u = 0, t = T + threshold_scale u

    def log_integrand(u):  # u: a number, or a column of them
        """ln of the threshold noise's density at u times each outcome's probability."""
        gaps = offsets + threshold_scale * u
        below = _log_below(gaps, answer_scale)  # noisy answer i < t
        above = _log_above(gaps, answer_scale)
        before = np.cumsum(below, axis=-1)  # every answer up to i below t
        stops = above + np.concatenate([np.zeros_like(before[..., :1]), before[..., :-1]], -1)
        outcomes = np.concatenate([stops, before[..., -1:]], axis=-1)
        return _log_standard_density(u) + outcomes

    kinks = _kinks(answers, threshold, threshold_scale, -_FAR, _FAR)
    return _integrate_logs(log_integrand, size + 1, *_range(kinks), kinks)


def above_threshold_log_probabilities(answers, threshold, epsilon, sensitivity=1.0):
    """ln of ``above_threshold_probabilities`` (relative accuracy about 1e-12 each)."""
    return _above_threshold_logs(*_checked(answers, threshold, epsilon, sensitivity))


def above_threshold_probabilities(answers, threshold, epsilon, sensitivity=1.0):
    """The exact law of AboveThreshold's outcome (Dwork & Roth 2014, Algorithm 1).

    Noisy threshold T + Lap(2 Delta / epsilon); every answer gets Lap(4 Delta / epsilon);
    the algorithm stops at the first noisy answer at or above the noisy threshold.

    Args:
      answers: the m true answers, in the order asked (a non-empty list of numbers).
      threshold: T, a finite number.
      epsilon: the privacy budget, > 0.
      sensitivity: Delta, the sensitivity of every query, > 0.

    Returns:
      An array of m + 1 probabilities: stopping at query 1 .. m, then none above. They
      sum to 1 within 1e-12; each is within 1e-10 (absolute) of the truth.

    Taught in: 13-answer-many-queries-for-the-price-of-few.ipynb
    """
    logs = above_threshold_log_probabilities(answers, threshold, epsilon, sensitivity)
    return np.exp(logs)


def above_threshold_losses(answers, neighbour_answers, threshold, epsilon, sensitivity=1.0):
    """The privacy loss ln(P[o | D1] / P[o | D2]) of every outcome o of AboveThreshold.

    Args:
      answers, neighbour_answers: the answers on two neighbouring data sets (the same length;
        each pair of answers differs by at most the sensitivity).

    Returns:
      m + 1 losses, in the order of ``above_threshold_probabilities``.

    Taught in: 13-answer-many-queries-for-the-price-of-few.ipynb
    """
    first = check.vector("answers", answers)
    second = check.vector("neighbour_answers", neighbour_answers)
    _check_neighbours(first, second, sensitivity)
    return above_threshold_log_probabilities(
        first, threshold, epsilon, sensitivity
    ) - above_threshold_log_probabilities(second, threshold, epsilon, sensitivity)


def _check_neighbours(first, second, sensitivity):
    sensitivity = check.positive("sensitivity", sensitivity, scalar=True)
    if first.shape != second.shape:
        raise ValueError(
            f"neighbour_answers must have as many answers as answers ({first.size}), "
            f"got {second.size}"
        )
    gap = float(np.max(np.abs(first - second)))
    if gap > sensitivity * (1 + 1e-12):
        raise ValueError(
            "neighbour_answers must differ from answers by at most the sensitivity "
            f"{sensitivity:g} in every query, got a difference of {gap:g}"
        )


def sample_above_threshold(answers, threshold, epsilon, sensitivity=1.0, *, rng, size=None):
    """Runs AboveThreshold with noise from rng; returns the outcome of each run.

    Returns:
      One outcome (size None) or an int array of ``size`` outcomes, numbered as
      ``above_threshold_probabilities``: k - 1 for a stop at query k, m for none above.

    Taught in: 13-answer-many-queries-for-the-price-of-few.ipynb
    """
    answers, threshold, epsilon, sensitivity = _checked(answers, threshold, epsilon, sensitivity)
    rng = check.generator(rng)
    count = 1 if size is None else check.positive_integer("size", size)
    threshold_scale, answer_scale = noise_scales(epsilon, sensitivity)
    noisy_threshold = threshold + rng.laplace(0.0, threshold_scale, count)
    noisy = answers + rng.laplace(0.0, answer_scale, (count, answers.size))
    above = noisy >= noisy_threshold[:, None]
    outcomes = np.where(above.any(axis=1), np.argmax(above, axis=1), answers.size)
    return int(outcomes[0]) if size is None else outcomes


# ---------------------------------------------------------------------------
# The broken variants
# ---------------------------------------------------------------------------


def no_answer_noise_probabilities(answers, threshold, epsilon, sensitivity=1.0):
    """The law of AboveThreshold without noise on the answers (only the threshold's).

    It stops at query k when max(answers before k) < T + Lap(2 Delta / epsilon) <= answer
    k: a difference of two values of the threshold's distribution function, in closed form.

    Returns:
      m + 1 probabilities, numbered as ``above_threshold_probabilities``.

    Taught in: 13-answer-many-queries-for-the-price-of-few.ipynb
    """
    answers, threshold, epsilon, sensitivity = _checked(answers, threshold, epsilon, sensitivity)
    scale = 2.0 * sensitivity / epsilon
    highest_before = np.maximum.accumulate(np.concatenate([[-np.inf], answers]))[:-1]

    def cdf(x):
        """P[T + threshold noise <= x]."""
        return np.exp(_log_below(x - threshold, scale))

    stops = np.maximum(cdf(answers) - cdf(highest_before), 0.0)
    return np.append(stops, 1.0 - cdf(np.max(answers)))


def _no_stop_logs(answers, outcomes, threshold, epsilon, sensitivity):
    """ln P[outcome] for each row of outcomes (True: reported above), one integral."""
    threshold_scale, answer_scale = 2.0 * sensitivity / epsilon, 4.0 * sensitivity / epsilon
    outcomes = np.asarray(outcomes, dtype=bool)
    weights = np.ones(answers.size)
    if len(outcomes) == 1:
        # Queries with the same answer and the same reported side are the same factor:
        # one factor each, raised to its count (many queries, few distinct answers).
        pairs, weights = np.unique(
            np.column_stack([answers, outcomes[0]]), axis=0, return_counts=True
        )
        answers, outcomes = pairs[:, 0], pairs[None, :, 1].astype(bool)

    with np.errstate(over="ignore"):
        offsets = threshold - answers

    def log_integrand(u):  # u: a number, or a column of them
        """ln of the threshold noise's density at u times the outcomes' probabilities."""
        gaps = offsets + threshold_scale * np.asarray(u)[..., None]
        below = _log_below(gaps, answer_scale)
        above = _log_above(gaps, answer_scale)
        return _log_standard_density(u) + (np.where(outcomes, above, below) * weights).sum(axis=-1)

    kinks = _kinks(answers, threshold, threshold_scale, -_FAR, _FAR)
    return _integrate_logs(log_integrand, len(outcomes), *_range(kinks), kinks)


def no_stop_log_probability(answers, outcome, threshold, epsilon, sensitivity=1.0):
    """ln P[outcome] for AboveThreshold's noise run on every query, without stopping.

    Args:
      outcome: one boolean per query, True where the query is reported above.

    Taught in: 13-answer-many-queries-for-the-price-of-few.ipynb
    """
    answers, threshold, epsilon, sensitivity = _checked(answers, threshold, epsilon, sensitivity)
    outcome = np.asarray(outcome, dtype=bool)
    if outcome.shape != answers.shape:
        raise ValueError(f"outcome must hold one True/False per answer ({answers.size})")
    return float(_no_stop_logs(answers, outcome[None, :], threshold, epsilon, sensitivity)[0])


#: Most queries for which ``no_stop_probabilities`` lists all 2^m outcomes.
NO_STOP_MAX_QUERIES = 12


def no_stop_probabilities(answers, threshold, epsilon, sensitivity=1.0):
    """The law of all 2^m outcomes of the no-stop variant (m <= NO_STOP_MAX_QUERIES).

    Returns:
      (outcomes, probabilities): a (2^m, m) boolean array and the 2^m probabilities.

    Taught in: 13-answer-many-queries-for-the-price-of-few.ipynb
    """
    answers, threshold, epsilon, sensitivity = _checked(answers, threshold, epsilon, sensitivity)
    if answers.size > NO_STOP_MAX_QUERIES:
        raise ValueError(
            f"answers must hold at most {NO_STOP_MAX_QUERIES} queries for the whole law, "
            f"got {answers.size}"
        )
    outcomes = np.array(list(itertools.product([False, True], repeat=answers.size)))
    logs = _no_stop_logs(answers, outcomes, threshold, epsilon, sensitivity)
    return outcomes, np.exp(logs)


def released_answer_log_density(answers, stop, value, threshold, epsilon, sensitivity=1.0):
    """ln of the density of the output (stop at query stop + 1, its noisy answer = value).

    The variant publishes the noisy answer of the query it stops at. Given the noisy
    threshold t <= value, the earlier noisy answers are below t and the stopping one is
    value: the density is Lap density(value - answer) times an integral over t <= value.

    Taught in: 13-answer-many-queries-for-the-price-of-few.ipynb
    """
    answers, threshold, epsilon, sensitivity = _checked(answers, threshold, epsilon, sensitivity)
    stop = check.whole("stop", stop, minimum=0, maximum=answers.size - 1)
    value = check.finite("value", value, scalar=True)
    threshold_scale, answer_scale = 2.0 * sensitivity / epsilon, 4.0 * sensitivity / epsilon
    earlier = answers[:stop]
    with np.errstate(over="ignore"):
        offsets = threshold - earlier
        top = (value - threshold) / threshold_scale  # t <= value, in units

    def log_integrand(u):  # u: a number, or a column of them
        """ln of the threshold noise's density at u times P[every earlier answer below]."""
        gaps = offsets + threshold_scale * u
        below = _log_below(gaps, answer_scale).sum(axis=-1, keepdims=True)
        return _log_standard_density(u) + below + np.zeros(np.shape(u))

    if top == -np.inf:
        return -math.inf
    # Beyond REACH scales from T the threshold's density is negligible; below a low value
    # the window follows it down.
    high = min(top, _REACH)
    low = min(-_REACH, high - 2 * _REACH)
    kinks = _kinks(earlier, threshold, threshold_scale, low, high)
    log_mass = _integrate_logs(log_integrand, 1, low, high, kinks)[0]
    return float(log_mass + _log_density(value - answers[stop], answer_scale))


class Counterexample(NamedTuple):
    """Neighbouring answers built to break a variant of AboveThreshold (``counterexample``).

    Attributes:
      answers: the answers on D1.
      neighbour_answers: the answers on D2, each within 1 of its partner.
      threshold: T.
      outcome: the outcome whose privacy loss grows with the number of queries.
    """

    answers: np.ndarray
    neighbour_answers: np.ndarray
    threshold: float
    outcome: object


def counterexample(variant, queries):
    """A pair of neighbouring answer vectors built to break a variant (sensitivity 1).

    Returns:
      A ``Counterexample``. Its outcome is an index of ``above_threshold_probabilities``
      (``"no answer noise"``), a boolean vector (``"no stop"``), or (stop index, released
      value) (``"released answer"``).

    - no answer noise: D1 = (1, 0, 0, ...), D2 = (0, 1, 0, ...), T = 0.5, outcome "stop
      at query 2": it needs answer 1 < noisy threshold <= answer 2, impossible on D1.
    - no stop: D1 = (0, ..., 0, 1, ..., 1), D2 its mirror (1, ..., 1, 0, ..., 0),
      T = 0.5, outcome (below, ..., below, above, ..., above): each query moves the odds
      the same way, and one shift of the threshold cannot explain them all.
    - released answer: D1 = (0, ..., 0, 0), D2 = (1, ..., 1, 0), T = 0, outcome (stop at
      query m, value -10): below the threshold no shift of it can explain why the m - 1
      earlier answers stayed below.

    Taught in: 13-answer-many-queries-for-the-price-of-few.ipynb
    """
    if variant not in VARIANTS:
        raise ValueError(f"variant must be one of {list(VARIANTS)}, got {variant!r}")
    queries = check.positive_integer("queries", queries)
    if variant == "no answer noise":
        first, second = np.zeros(queries), np.zeros(queries)
        first[0] = 1.0
        if queries > 1:
            second[1] = 1.0
        return Counterexample(first, second, 0.5, min(1, queries - 1))
    if variant == "no stop":
        low = queries // 2
        first = np.concatenate([np.zeros(low), np.ones(queries - low)])
        return Counterexample(first, 1.0 - first, 0.5, first.astype(bool))
    first = np.zeros(queries)
    second = np.concatenate([np.ones(queries - 1), [0.0]])
    return Counterexample(first, second, 0.0, (queries - 1, -10.0))


def worst_loss(variant, queries, epsilon):
    """The privacy loss of the outcome ``counterexample`` builds, exactly (sensitivity 1).

    Infinite for "no answer noise" from 2 queries on; for "released answer"
    (queries - 1) epsilon / 4 (its closed form, checked by quadrature in the tests).

    Taught in: 13-answer-many-queries-for-the-price-of-few.ipynb
    """
    pair = counterexample(variant, queries)
    epsilon = check.positive("epsilon", epsilon, scalar=True)
    first, second, threshold, outcome = pair
    if variant == "no answer noise":
        p1 = no_answer_noise_probabilities(first, threshold, epsilon)[outcome]
        p2 = no_answer_noise_probabilities(second, threshold, epsilon)[outcome]
        with np.errstate(divide="ignore"):
            return float(np.log(p2) - np.log(p1)) if p1 < p2 else float(np.log(p1 / p2))
    if variant == "no stop":
        return no_stop_log_probability(
            first, outcome, threshold, epsilon
        ) - no_stop_log_probability(second, outcome, threshold, epsilon)
    # Below the threshold and every answer the density is a product of exponentials:
    # the two differ by e^((queries - 1) / (4 / epsilon)), the earlier answers' shift.
    return (queries - 1) * epsilon / 4.0


def worst_losses(variant, epsilon, max_queries=50):
    """``worst_loss`` at m = 1 .. max_queries, all at once (one integral for "no stop").

    Returns:
      An array of max_queries losses.

    Taught in: 13-answer-many-queries-for-the-price-of-few.ipynb
    """
    if variant not in VARIANTS:
        raise ValueError(f"variant must be one of {list(VARIANTS)}, got {variant!r}")
    epsilon = check.positive("epsilon", epsilon, scalar=True)
    max_queries = check.positive_integer("max_queries", max_queries)
    queries = np.arange(1, max_queries + 1)
    if variant == "released answer":
        return (queries - 1) * epsilon / 4.0
    if variant == "no answer noise":
        first = worst_loss(variant, 1, epsilon)
        return np.where(queries == 1, first, np.inf)
    # The pair of ``counterexample``: on D1, low = m // 2 answers 0 reported below and
    # the others 1 reported above; on D2 the answers are swapped. Every m is one component.
    threshold_scale, answer_scale = 2.0 / epsilon, 4.0 / epsilon
    low = (queries // 2).astype(float)
    high = queries - low

    def log_integrand(u):  # u: a number, or a column of them; t = 0.5 + threshold_scale u
        """ln of the threshold noise's density at u times each pair side's outcome."""
        t = 0.5 + threshold_scale * u
        first = low * _log_below(t, answer_scale) + high * _log_above(t - 1.0, answer_scale)
        second = low * _log_below(t - 1.0, answer_scale) + high * _log_above(t, answer_scale)
        return _log_standard_density(u) + np.concatenate([first, second], axis=-1)

    kinks = _kinks([0.0, 1.0], 0.5, threshold_scale, -_REACH, _REACH)
    logs = _integrate_logs(log_integrand, 2 * max_queries, -_REACH, _REACH, kinks)
    return logs[:max_queries] - logs[max_queries:]


def above_threshold_worst_loss(answers, neighbour_answers, threshold, epsilon, sensitivity=1.0):
    """The largest |privacy loss| over AboveThreshold's outcomes on a pair of neighbours.

    Taught in: 13-answer-many-queries-for-the-price-of-few.ipynb
    """
    losses = above_threshold_losses(answers, neighbour_answers, threshold, epsilon, sensitivity)
    return float(np.max(np.abs(losses)))


# ---------------------------------------------------------------------------
# Sparse: c positives
# ---------------------------------------------------------------------------


def _checked_positives(positives, size):
    return check.whole("positives", positives, minimum=1, maximum=size)


def sparse_probabilities(answers, threshold, epsilon, positives, sensitivity=1.0):
    """The exact law of Sparse (Dwork & Roth 2014, Algorithm 2, delta = 0).

    AboveThreshold with epsilon / c (c = positives) is run on the queries; after each
    positive the threshold is drawn afresh and the search goes on from the next query,
    until c positives or the queries run out. Each run is independent of the others, so
    the law of the positives' positions is a product of AboveThreshold laws on suffixes.

    Returns:
      {positions: probability}, positions a tuple of the 0-based indices reported above
      (at most c of them), every possible tuple listed.

    Taught in: 13-answer-many-queries-for-the-price-of-few.ipynb
    """
    answers, threshold, epsilon, sensitivity = _checked(answers, threshold, epsilon, sensitivity)
    positives = _checked_positives(positives, answers.size)
    share = epsilon / positives
    laws = {
        start: above_threshold_probabilities(answers[start:], threshold, share, sensitivity)
        for start in range(answers.size)
    }
    law = {}

    def extend(found, start, probability):
        """Adds to the law every way to go on from ``start`` with ``found`` so far."""
        if len(found) == positives or start == answers.size:
            law[found] = law.get(found, 0.0) + probability
            return
        steps = laws[start]
        law[found] = law.get(found, 0.0) + probability * steps[-1]  # none above from here
        for offset, step in enumerate(steps[:-1]):
            extend((*found, start + offset), start + offset + 1, probability * step)

    extend((), 0, 1.0)
    return law


def sample_sparse(answers, threshold, epsilon, positives, sensitivity=1.0, *, rng):
    """One run of Sparse with noise from rng: the tuple of 0-based positive positions.

    Taught in: 13-answer-many-queries-for-the-price-of-few.ipynb
    """
    answers, threshold, epsilon, sensitivity = _checked(answers, threshold, epsilon, sensitivity)
    positives = _checked_positives(positives, answers.size)
    rng = check.generator(rng)
    threshold_scale, answer_scale = noise_scales(epsilon / positives, sensitivity)
    found = []
    noisy_threshold = threshold + rng.laplace(0.0, threshold_scale)
    for index, answer in enumerate(answers):
        if answer + rng.laplace(0.0, answer_scale) >= noisy_threshold:
            found.append(index)
            if len(found) == positives:
                break
            noisy_threshold = threshold + rng.laplace(0.0, threshold_scale)
    return tuple(found)


def above_threshold_accuracy(queries, beta, epsilon, sensitivity=1.0):
    """The margin alpha within which AboveThreshold may err, with probability beta.

    Dwork & Roth 2014, Theorem 3.24: with probability at least 1 - beta, AboveThreshold
    on m queries stops at no query whose answer is below T - alpha, and passes no query
    whose answer is above T + alpha before it stops, for
    alpha = 8 Delta (ln m + ln(2 / beta)) / epsilon. Answers farther than alpha from T
    are classified right; a threshold is chosen with that margin in mind.

    Taught in: 13-answer-many-queries-for-the-price-of-few.ipynb
    """
    queries = check.positive_integer("queries", queries)
    beta = check.probability_open("beta", beta, scalar=True)
    epsilon = check.positive("epsilon", epsilon, scalar=True)
    sensitivity = check.positive("sensitivity", sensitivity, scalar=True)
    return 8.0 * sensitivity * (math.log(queries) + math.log(2.0 / beta)) / epsilon


class SparseNoiseScales(NamedTuple):
    """What finding c positives among m queries costs in noise (``sparse_noise_scales``).

    Two releases, each against answering all m queries at the same total epsilon:
    finding which c queries are above the threshold (Sparse with the whole epsilon), and
    finding them and publishing their answers (Sparse with epsilon / 2, the c answers
    with the other half).

    Attributes:
      threshold: Sparse's threshold noise scale with the whole budget, 2 c Delta / epsilon.
      comparison: Sparse's noise scale on every answer it compares with the whole budget,
        4 c Delta / epsilon.
      comparison_when_publishing: the same with half the budget, when the c answers are
        published too: 8 c Delta / epsilon.
      released: the noise scale of each of the c answers published with the other half of
        the budget (epsilon / (2 c) each): 2 c Delta / epsilon.
      all_answers: the Laplace scale on each of the m answers published at the same total
        epsilon (basic composition), m Delta / epsilon; comparing them with the threshold
        finds the positives, and publishing them publishes their answers.
    """

    threshold: float
    comparison: float
    comparison_when_publishing: float
    released: float
    all_answers: float


def sparse_noise_scales(queries, positives, epsilon, sensitivity=1.0):
    """What finding c positives among m queries costs in noise, against answering all m.

    Returns:
      A ``SparseNoiseScales`` (threshold, comparison, comparison_when_publishing,
      released, all_answers).

    Taught in: 13-answer-many-queries-for-the-price-of-few.ipynb
    """
    queries = check.positive_integer("queries", queries)
    positives = check.whole("positives", positives, minimum=1, maximum=queries)
    epsilon = check.positive("epsilon", epsilon, scalar=True)
    sensitivity = check.positive("sensitivity", sensitivity, scalar=True)
    whole = noise_scales(epsilon / positives, sensitivity)
    half = noise_scales(epsilon / (2 * positives), sensitivity)
    return SparseNoiseScales(
        threshold=whole.threshold,
        comparison=whole.answer,
        comparison_when_publishing=half.answer,
        released=2.0 * positives * sensitivity / epsilon,
        all_answers=queries * sensitivity / epsilon,
    )
