"""Choosing privately: the exponential mechanism, report-noisy-max and permute-and-flip.

A selection releases *which* of k candidates is best, not a number. Each candidate r has
a score u_r computed from the data, with sensitivity Delta u (one person changes any
score by at most Delta u). With a = epsilon / (2 Delta u), or epsilon / Delta u when the
scores are *monotone* (on neighbours they all move in the same direction):

- the exponential mechanism (McSherry & Talwar 2007) picks r with probability
  proportional to e^(a u_r);
- report-noisy-max adds independent noise of scale 1 / a (2 Delta u / epsilon) to every
  score and reports the index of the largest: with Gumbel noise it *is* the exponential
  mechanism (Durfee & Rogers 2019), with exponential noise it is permute-and-flip (Ding,
  Kifer, Saravanan-Wang & Zhang 2021), with Laplace noise it is neither;
- permute-and-flip (McKenna & Sheldon 2020) visits the candidates in a random order and
  stops at r with probability e^(a (u_r - u*)), u* the best score.

Every function here gives the *exact* probability that each candidate is picked: the
exponential mechanism in closed form, in log space (no overflow, whatever the scores);
permute-and-flip as p_r times the integral over t in [0, 1] of the product over s != r of
(1 - p_s t), p_s = e^(a (u_s - u*)) (a polynomial, integrated exactly by Gauss-Legendre
nodes, every term positive); Laplace noise by one adaptive integral per candidate
(scipy's ``quad``, to 1e-12). The samplers draw by each mechanism's own definition
(``rng``: a seeded ``numpy.random.Generator``), and ``loss_pair`` gives the privacy loss
of a selection on two neighbouring score vectors as a pair of ``dplearn.privacy_loss``,
which ``dplearn.composition`` composes. ``quantile_probabilities`` is a private median
(or quantile) by the exponential mechanism over a grid of candidates.

Taught in: 12-choose-privately.ipynb
"""

from __future__ import annotations

import functools
import math
from typing import NamedTuple

import numpy as np
from scipy import integrate, special

from dplearn import _validation as check
from dplearn.privacy_loss import SelectionPair

__all__ = [
    "NOISES",
    "noise_scale",
    "exponential_mechanism",
    "exponential_mechanism_log",
    "accuracy_bound",
    "report_noisy_max",
    "win_probability",
    "permute_and_flip",
    "sample_exponential_mechanism",
    "sample_report_noisy_max",
    "sample_permute_and_flip",
    "loss_pair",
    "worst_neighbours",
    "WorstNeighbours",
    "quantile_scores",
    "quantile_probabilities",
    "sample_quantile",
    "sample_histogram_quantile",
    "clipped_histogram_means",
    "ClippedHistogram",
    "SelectionPair",
]

#: The noises report-noisy-max adds: Laplace, Gumbel (= the exponential mechanism) and
#: exponential (= permute-and-flip).
NOISES = ("laplace", "gumbel", "exponential")


# ---------------------------------------------------------------------------
# Argument checks
# ---------------------------------------------------------------------------


def _monotone(monotone):
    if not isinstance(monotone, bool | np.bool_):
        raise ValueError(f"monotone must be True or False, got {monotone!r}")
    return bool(monotone)


def _noise(noise):
    if noise not in NOISES:
        raise ValueError(f"noise must be one of {NOISES}, got {noise!r}")
    return noise


def _rate(epsilon, sensitivity, monotone):
    """a = epsilon / (2 Delta u), or epsilon / Delta u for monotone scores (checked)."""
    epsilon = check.finite_epsilon(epsilon, scalar=True)
    sensitivity = check.positive("sensitivity", sensitivity, scalar=True)
    return epsilon / sensitivity if _monotone(monotone) else epsilon / (2.0 * sensitivity)


def noise_scale(epsilon, sensitivity=1.0, monotone=False):
    """Scale of report-noisy-max's noise: 2 Delta u / epsilon (Delta u / epsilon when monotone).

    It is inf at epsilon = 0.

    Taught in: 12-choose-privately.ipynb
    """
    rate = _rate(epsilon, sensitivity, monotone)
    return math.inf if rate == 0 else 1.0 / rate


# ---------------------------------------------------------------------------
# The exponential mechanism (= report-noisy-max with Gumbel noise)
# ---------------------------------------------------------------------------


def exponential_mechanism_log(scores, epsilon, sensitivity=1.0, monotone=False):
    """ln P[r] of the exponential mechanism: a u_r - ln sum_s e^(a u_s).

    Written a (u_r - u*) - ln sum_s e^(a (u_s - u*)), u* the best score, so that nothing
    overflows: scores of 10^4 at epsilon = 10 (e^25000 is beyond the doubles) give exact
    probabilities.

    Taught in: 12-choose-privately.ipynb
    """
    scores = check.vector("scores", scores)
    rate = _rate(epsilon, sensitivity, monotone)
    return _exponential_log(scores, rate)


def _exponential_log(scores, rate):
    # Differences from the best score first: exact where scores are close (Sterbenz), so
    # only the product by the rate rounds, not a product of 10^4 that is then cancelled.
    exponents = rate * (scores - scores.max())
    return exponents - special.logsumexp(exponents)


def exponential_mechanism(scores, epsilon, sensitivity=1.0, monotone=False):
    """The exponential mechanism's selection probabilities.

    P[r] is proportional to e^(epsilon u_r / (2 Delta u)) (e^(epsilon u_r / Delta u) when
    ``monotone``).

    Args:
      scores: the candidates' scores u, a non-empty list of finite numbers.
      epsilon: privacy budget, >= 0 (0 picks uniformly).
      sensitivity: Delta u, > 0: how much one person can change any score.
      monotone: True when on neighbours all scores move in the same direction.

    Returns:
      An array of m probabilities that sum to 1.

    Taught in: 12-choose-privately.ipynb
    """
    return np.exp(exponential_mechanism_log(scores, epsilon, sensitivity, monotone))


def accuracy_bound(candidates, epsilon, beta, sensitivity=1.0, monotone=False):
    """How far below the best score the exponential mechanism's pick may fall.

    With probability at least 1 - beta the picked candidate's score is above
    u* - (2 Delta u / epsilon)(ln m + ln(1 / beta)), u* the best of the m candidates'
    scores (McSherry & Talwar 2007; Dwork & Roth, "The algorithmic foundations of
    differential privacy", Theorem 3.11); Delta u / epsilon replaces 2 Delta u / epsilon
    when ``monotone``. It holds because the m candidates scoring at most u* - t together
    weigh at most m e^(-a t) times the best's weight, a = epsilon / (2 Delta u). The error
    grows with ln m, whatever the scores.

    Args:
      candidates: m, the number of candidates, a whole number >= 1.
      epsilon: privacy budget, > 0.
      beta: the allowed probability of a worse pick, in (0, 1).
      sensitivity: Delta u, > 0.
      monotone: True when on neighbours all scores move in the same direction.

    Returns:
      The error bound, in the scores' units.

    Raises:
      ValueError: when candidates is not a whole number >= 1, epsilon is not > 0, or beta
        is not in (0, 1).

    Taught in: 12-choose-privately.ipynb
    """
    candidates = check.positive_integer("candidates", candidates)
    beta = check.probability_open("beta", beta, scalar=True)
    scale = noise_scale(epsilon, sensitivity, monotone)
    if math.isinf(scale):
        raise ValueError("epsilon must be > 0 for an accuracy bound, got 0.0")
    return scale * (math.log(candidates) + math.log(1.0 / beta))


# ---------------------------------------------------------------------------
# Permute-and-flip (= report-noisy-max with exponential noise)
# ---------------------------------------------------------------------------


@functools.lru_cache(maxsize=32)
def _gauss_legendre(nodes):
    """Gauss-Legendre nodes and weights on [0, 1]."""
    x, w = special.roots_legendre(nodes)
    return (x + 1.0) / 2.0, w / 2.0


#: Below this, 1 - p t is 1 to the last bit for every t: such candidates leave the product.
_NEGLIGIBLE = 1e-18


def _permute_and_flip_log(scores, rate):
    """ln P[r] of permute-and-flip, r = 0 .. m - 1.

    P[r] = p_r E[prod over the candidates visited before r of (1 - p_s)]. In a uniform
    random order the set visited before r has size j with the weight j! (m - 1 - j)! / m!
    = integral of t^j (1 - t)^(m - 1 - j) dt, so P[r] = p_r I_r with I_r the integral over
    [0, 1] of prod_(s != r) (1 - p_s t): a polynomial of degree m - 1 in t, positive on
    [0, 1], which Gauss-Legendre with more than m / 2 nodes integrates exactly.
    """
    log_flip = rate * (scores - scores.max())  # ln p_r <= 0
    flip = np.exp(log_flip)
    relevant = flip > _NEGLIGIBLE
    degree = int(relevant.sum())
    nodes = 8
    while 2 * nodes - 1 < degree:
        nodes *= 2
    t, weights = _gauss_legendre(nodes)
    # log(1 - p_s t) at every node (rows) for the relevant candidates (columns).
    factors = np.log1p(-np.outer(t, flip[relevant]))
    total = factors.sum(axis=1)
    log_integral = np.empty(scores.size)
    # Candidates outside the product: the whole product of the relevant ones.
    log_integral[~relevant] = special.logsumexp(total, b=weights)
    log_integral[relevant] = special.logsumexp(total[:, None] - factors, b=weights[:, None], axis=0)
    return log_flip + log_integral


def permute_and_flip(scores, epsilon, sensitivity=1.0, monotone=False):
    """Permute-and-flip's selection probabilities (McKenna & Sheldon 2020), exactly.

    The mechanism visits the candidates in a uniformly random order and stops at r with
    probability p_r = e^(epsilon (u_r - u*) / (2 Delta u)) (epsilon / Delta u when
    ``monotone``), u* the best score; the best candidates have p = 1, so it always stops.

    It takes the arguments of ``exponential_mechanism``.

    Returns:
      An array of m probabilities that sum to 1.

    Taught in: 12-choose-privately.ipynb
    """
    scores = check.vector("scores", scores)
    rate = _rate(epsilon, sensitivity, monotone)
    return np.exp(_permute_and_flip_log(scores, rate))


# ---------------------------------------------------------------------------
# Report-noisy-max with Laplace noise: one integral per candidate
# ---------------------------------------------------------------------------


def _log_laplace_cdf(z):
    """ln P[X <= z] for X ~ Laplace(0, 1)."""
    z = np.asarray(z, dtype=float)
    with np.errstate(over="ignore"):
        return np.where(z < 0, z - math.log(2.0), np.log1p(-0.5 * np.exp(-np.abs(z))))


#: Beyond |x| = _REACH scales the Laplace density is below e^-_REACH of its peak.
_REACH = 40.0


@functools.lru_cache(maxsize=4096)
def _laplace_win(gaps):
    """P[candidate r wins] for report-noisy-max with Laplace(1) noise.

    gaps = (u_r - u_s) / scale for the other candidates s: the integral over the noise x of
    r of its density e^(-|x|) / 2 times prod_s P[X_s < x + gap_s].
    """
    gaps = np.array(gaps)
    if gaps.size == 0:
        return 1.0

    def integrand(x):
        """Density of r's noise at x times the chance that every other noise lies below."""
        return 0.5 * math.exp(-abs(x) + float(_log_laplace_cdf(x + gaps).sum()))

    kinks = -gaps[np.abs(gaps) < _REACH]
    points = np.unique(np.concatenate([[0.0], kinks]))
    value, _ = integrate.quad(
        integrand, -_REACH, _REACH, points=points, epsabs=1e-13, epsrel=1e-12, limit=400
    )
    return value


def _laplace_probabilities(scores, rate):
    if rate == 0:
        return np.full(scores.size, 1.0 / scores.size)
    standardised = scores * rate  # scores in units of the noise's scale
    probabilities = np.empty(scores.size)
    for r in range(scores.size):
        gaps = np.delete(standardised[r] - standardised, r)
        probabilities[r] = _laplace_win(tuple(float(g) for g in gaps))
    return probabilities


def report_noisy_max(scores, epsilon, noise, sensitivity=1.0, monotone=False):
    """The exact probability that each candidate wins report-noisy-max.

    Noise of scale 2 Delta u / epsilon (Delta u / epsilon when ``monotone``) is added to
    every score and the index of the largest noisy score is reported.

    - ``"gumbel"``: the exponential mechanism's probabilities (the Gumbel-max identity).
    - ``"exponential"``: permute-and-flip's (Ding et al. 2021).
    - ``"laplace"``: for each candidate, the integral of its noise density times the
      chance that every other noisy score lies below, by scipy's ``quad`` with the kinks
      of the integrand as breakpoints, to 1e-12 absolute.

    Args:
      scores, epsilon, sensitivity, monotone: as for ``exponential_mechanism``.
      noise: "laplace", "gumbel" or "exponential".

    Returns:
      An array of m probabilities.

    Taught in: 12-choose-privately.ipynb
    """
    noise = _noise(noise)
    if noise == "gumbel":
        return exponential_mechanism(scores, epsilon, sensitivity, monotone)
    if noise == "exponential":
        return permute_and_flip(scores, epsilon, sensitivity, monotone)
    scores = check.vector("scores", scores)
    return _laplace_probabilities(scores, _rate(epsilon, sensitivity, monotone))


def win_probability(scores, epsilon, noise, sensitivity=1.0, monotone=False):
    """P[the best candidate is reported] by report-noisy-max (ties: the first best).

    The same number as ``report_noisy_max(...)[best]``, with one integral instead of m for
    Laplace noise (figures draw it against epsilon).

    Taught in: 12-choose-privately.ipynb
    """
    noise = _noise(noise)
    scores = check.vector("scores", scores)
    best = int(np.argmax(scores))
    if noise != "laplace":
        return float(report_noisy_max(scores, epsilon, noise, sensitivity, monotone)[best])
    rate = _rate(epsilon, sensitivity, monotone)
    if rate == 0:
        return 1.0 / scores.size
    standardised = scores * rate
    gaps = np.delete(standardised[best] - standardised, best)
    return float(_laplace_win(tuple(float(g) for g in gaps)))


def _log_probabilities(scores, epsilon, noise, sensitivity, monotone):
    scores = check.vector("scores", scores)
    rate = _rate(epsilon, sensitivity, monotone)
    if noise == "gumbel":
        return _exponential_log(scores, rate)
    if noise == "exponential":
        return _permute_and_flip_log(scores, rate)
    with np.errstate(divide="ignore"):
        return np.log(_laplace_probabilities(scores, rate))


# ---------------------------------------------------------------------------
# Samplers: each mechanism by its own definition
# ---------------------------------------------------------------------------


def _size(size):
    return 1 if size is None else check.positive_integer("size", size)


def _one_or_many(draws, size):
    return int(draws[0]) if size is None else draws


def sample_exponential_mechanism(
    scores, epsilon, sensitivity=1.0, monotone=False, *, rng, size=None
):
    """Draws of the exponential mechanism, by inverse-CDF sampling.

    It samples from the mechanism's log-space probabilities, never from e^(a u) itself,
    which overflows.

    Returns:
      One index (size None) or an array of ``size`` indices.

    Taught in: 12-choose-privately.ipynb
    """
    probabilities = exponential_mechanism(scores, epsilon, sensitivity, monotone)
    rng = check.generator(rng)
    draws = rng.choice(probabilities.size, size=_size(size), p=probabilities / probabilities.sum())
    return _one_or_many(draws, size)


def sample_report_noisy_max(
    scores, epsilon, noise, sensitivity=1.0, monotone=False, *, rng, size=None
):
    """Draws of report-noisy-max: the index of the largest noisy score.

    Noise of scale 2 Delta u / epsilon (Delta u / epsilon when monotone) is added to every
    score.

    Taught in: 12-choose-privately.ipynb
    """
    noise = _noise(noise)
    scores = check.vector("scores", scores)
    rate = _rate(epsilon, sensitivity, monotone)
    rng = check.generator(rng)
    count = _size(size)
    if rate == 0:
        return _one_or_many(rng.integers(scores.size, size=count), size)
    shape = (count, scores.size)
    draw = {"laplace": rng.laplace, "gumbel": rng.gumbel}.get(noise)
    noises = rng.exponential(1.0, shape) if draw is None else draw(0.0, 1.0, shape)
    # In units of the noise's scale, so that a huge scale loses no score's digits.
    return _one_or_many(np.argmax(scores * rate + noises, axis=1), size)


def sample_permute_and_flip(scores, epsilon, sensitivity=1.0, monotone=False, *, rng, size=None):
    """Draws of permute-and-flip by its definition: a random order, a coin for each.

    Taught in: 12-choose-privately.ipynb
    """
    scores = check.vector("scores", scores)
    rate = _rate(epsilon, sensitivity, monotone)
    rng = check.generator(rng)
    flip = np.exp(rate * (scores - scores.max()))
    draws = np.empty(_size(size), dtype=int)
    for index in range(draws.size):
        for candidate in rng.permutation(scores.size):
            if rng.random() < flip[candidate]:
                draws[index] = candidate
                break
    return _one_or_many(draws, size)


# ---------------------------------------------------------------------------
# The privacy loss of a selection
# ---------------------------------------------------------------------------


def _neighbours(scores, neighbour_scores, sensitivity, monotone):
    scores = check.vector("scores", scores)
    neighbour = check.vector("neighbour_scores", neighbour_scores)
    if neighbour.shape != scores.shape:
        raise ValueError(
            f"neighbour_scores must have one score per candidate ({scores.size}), "
            f"got {neighbour.size}"
        )
    sensitivity = check.positive("sensitivity", sensitivity, scalar=True)
    change = neighbour - scores
    slack = 1e-12 * sensitivity
    if np.any(np.abs(change) > sensitivity + slack):
        raise ValueError(
            f"neighbour_scores must differ from scores by at most the sensitivity "
            f"{sensitivity!r} in each candidate, got changes {check.describe(change)}"
        )
    if _monotone(monotone) and np.any(change > slack) and np.any(change < -slack):
        raise ValueError(
            "neighbour_scores must move every score in the same direction when monotone, "
            f"got changes {check.describe(change)}"
        )
    return scores, neighbour


def loss_pair(scores, neighbour_scores, epsilon, noise, sensitivity=1.0, monotone=False):
    """The privacy loss of report-noisy-max on two neighbouring score vectors, as a pair.

    ``noise="gumbel"`` is the exponential mechanism, ``"exponential"`` permute-and-flip.
    The pair (``dplearn.privacy_loss.SelectionPair``) offers ``delta``, ``loss_atoms``,
    ``epsilon_for_delta`` and the rest, and ``dplearn.composition`` composes it.

    Args:
      scores: u on D1; neighbour_scores: u on D2, each within sensitivity of u (all in one
        direction when monotone).
      epsilon, noise, sensitivity, monotone: as for ``report_noisy_max``.

    Taught in: 12-choose-privately.ipynb
    """
    noise = _noise(noise)
    scores, neighbour = _neighbours(scores, neighbour_scores, sensitivity, monotone)
    first = _log_probabilities(scores, epsilon, noise, sensitivity, monotone)
    second = _log_probabilities(neighbour, epsilon, noise, sensitivity, monotone)
    names = {"gumbel": "exponential mechanism", "exponential": "permute-and-flip"}
    return SelectionPair(first, second, name=names.get(noise, "report-noisy-max, Laplace"))


def _corners(scores, sensitivity, monotone, candidate, upward):
    """The neighbour that pushes candidate's loss furthest up (upward) or down.

    The exponential mechanism's loss of r, a (u_r - u'_r) - ln sum e^(a u) + ln sum
    e^(a u'), falls as u'_r grows and rises as any other u'_s grows: its extremes over the
    box of neighbours lie at corners. For monotone scores the box is one of two half-boxes
    (all up or all down), each with its own corner.
    """
    others = np.ones(scores.size, dtype=bool)
    others[candidate] = False
    sign = 1.0 if upward else -1.0
    if not monotone:
        change = np.where(others, sign, -sign) * sensitivity
        return [scores + change]
    up = np.where(others, sensitivity if upward else 0.0, 0.0 if upward else sensitivity)
    down = np.where(others, 0.0 if upward else -sensitivity, -sensitivity if upward else 0.0)
    return [scores + up, scores + down]


class WorstNeighbours(NamedTuple):
    """The extremes of the exponential mechanism's privacy loss over neighbours and outputs.

    Attributes:
      lowest: the smallest loss, >= -epsilon.
      highest: the largest loss, <= epsilon.
      lowest_neighbour: the neighbouring scores at which the lowest occurs.
      highest_neighbour: the neighbouring scores at which the highest occurs.
      candidates: (the candidate of the lowest, the candidate of the highest).
    """

    lowest: float
    highest: float
    lowest_neighbour: np.ndarray
    highest_neighbour: np.ndarray
    candidates: tuple


def worst_neighbours(scores, epsilon, sensitivity=1.0, monotone=False):
    """The exponential mechanism's largest and smallest privacy loss over neighbours and outputs.

    The neighbours are every neighbour of ``scores`` (every score moved by at most Delta u;
    all in one direction when monotone); the outputs are every output.

    Returns:
      A ``WorstNeighbours``: the loss lies in [lowest, highest], within
      [-epsilon, epsilon].

    Taught in: 12-choose-privately.ipynb
    """
    scores = check.vector("scores", scores)
    sensitivity = check.positive("sensitivity", sensitivity, scalar=True)
    monotone = _monotone(monotone)
    first = exponential_mechanism_log(scores, epsilon, sensitivity, monotone)
    best = {True: (-np.inf, None, None), False: (np.inf, None, None)}
    for upward in (True, False):
        for candidate in range(scores.size):
            for neighbour in _corners(scores, sensitivity, monotone, candidate, upward):
                second = exponential_mechanism_log(neighbour, epsilon, sensitivity, monotone)
                loss = float(first[candidate] - second[candidate])
                value = best[upward][0]
                if (loss > value) if upward else (loss < value):
                    best[upward] = (loss, neighbour, candidate)
    (lowest, low_neighbour, low_at), (highest, high_neighbour, high_at) = best[False], best[True]
    return WorstNeighbours(lowest, highest, low_neighbour, high_neighbour, (low_at, high_at))


# ---------------------------------------------------------------------------
# A private median (or quantile) by the exponential mechanism
# ---------------------------------------------------------------------------


def quantile_scores(values, candidates, quantile=0.5):
    """Each candidate c's score: minus its distance in rank from the quantile.

    The score is -|(1 - q) #{x < c} - q #{x > c}|; for the median, half the gap between the
    counts below and above. Adding or removing one value changes it by at most max(q, 1 - q).

    Taught in: 12-choose-privately.ipynb
    """
    values = check.vector("values", values)
    candidates = check.vector("candidates", candidates)
    quantile = check.probability_open("quantile", quantile, scalar=True)
    ordered = np.sort(values)
    below = np.searchsorted(ordered, candidates, side="left")
    above = values.size - np.searchsorted(ordered, candidates, side="right")
    return -np.abs((1.0 - quantile) * below - quantile * above)


def quantile_probabilities(values, candidates, epsilon, quantile=0.5):
    """The exact output law of the private quantile.

    It is the exponential mechanism over the candidates with ``quantile_scores``, sensitivity
    max(q, 1 - q) (add or remove one value).

    Args:
      values: the column, a non-empty list of finite numbers.
      candidates: the grid of possible answers (finite numbers).
      epsilon: privacy budget, >= 0.
      quantile: q in (0, 1); 0.5 is the median.

    Taught in: 12-choose-privately.ipynb
    """
    quantile = check.probability_open("quantile", quantile, scalar=True)
    scores = quantile_scores(values, candidates, quantile)
    return exponential_mechanism(scores, epsilon, sensitivity=max(quantile, 1.0 - quantile))


def sample_quantile(values, candidates, epsilon, quantile=0.5, *, rng, size=None):
    """Draws of the private quantile: candidates picked by the exponential mechanism.

    Taught in: 12-choose-privately.ipynb
    """
    candidates = check.vector("candidates", candidates)
    probabilities = quantile_probabilities(values, candidates, epsilon, quantile)
    rng = check.generator(rng)
    picks = rng.choice(candidates.size, size=_size(size), p=probabilities / probabilities.sum())
    draws = candidates[picks]
    return float(draws[0]) if size is None else draws


def sample_histogram_quantile(values, candidates, epsilon, quantile=0.5, *, rng, size=None):
    """Draws of a quantile read off a Laplace histogram, the additive-noise alternative.

    Each value is counted at its nearest candidate (the candidates, sorted, are the bins'
    centres); every count gets Laplace noise of scale 1 / epsilon (adding or removing one
    value changes one count by 1); negative counts are set to 0, and the answer is the
    first candidate where the noisy counts, summed from the left, reach the quantile of
    their total.

    Taught in: 12-choose-privately.ipynb
    """
    values, candidates, epsilon = _histogram_inputs(values, candidates, epsilon)
    quantile = check.probability_open("quantile", quantile, scalar=True)
    rng = check.generator(rng)
    counts = _bin_counts(values, candidates)
    count = _size(size)
    noisy = np.maximum(counts + rng.laplace(0.0, 1.0 / epsilon, (count, candidates.size)), 0.0)
    running = np.cumsum(noisy, axis=1)
    index = np.argmax(running >= quantile * running[:, -1:], axis=1)
    draws = candidates[index]
    return float(draws[0]) if size is None else draws


def _histogram_inputs(values, candidates, epsilon):
    """(values, sorted candidates, epsilon > 0) of a Laplace histogram, checked."""
    values = check.vector("values", values)
    candidates = np.sort(check.vector("candidates", candidates))
    epsilon = check.finite_epsilon(epsilon, scalar=True)
    if epsilon == 0:
        raise ValueError("epsilon must be > 0 for a Laplace histogram, got 0.0")
    return values, candidates, epsilon


def _bin_counts(values, candidates):
    """How many values lie nearest each of the sorted candidates (the bins' centres)."""
    edges = (candidates[1:] + candidates[:-1]) / 2.0
    return np.bincount(np.searchsorted(edges, values), minlength=candidates.size)


class ClippedHistogram(NamedTuple):
    """A histogram's true counts and their means after Laplace noise, negatives set to 0.

    Attributes:
      counts: the values counted at their nearest candidate.
      means: each noisy count's expected value, count + (b/2) e^(-count/b), b = 1/epsilon.
    """

    counts: np.ndarray
    means: np.ndarray


def clipped_histogram_means(values, candidates, epsilon):
    """Why a median read off a Laplace histogram is biased: the clipped counts' means.

    A count c with Laplace noise of scale b = 1/epsilon, set to 0 when negative, is on
    average c + (b/2) e^(-c/b): every bin gains, an empty one b/2. Where the grid has
    more candidates on one side of the median, more of that mass lies there, and the
    released median moves that way.

    Args:
      values: the column, a non-empty list of finite numbers.
      candidates: the grid (the bins' centres), as for ``sample_histogram_quantile``.
      epsilon: privacy budget, > 0.

    Returns:
      A ``ClippedHistogram`` (counts, means), in the candidates' sorted order.

    Taught in: 12-choose-privately.ipynb
    """
    values, candidates, epsilon = _histogram_inputs(values, candidates, epsilon)
    counts = _bin_counts(values, candidates)
    scale = 1.0 / epsilon
    return ClippedHistogram(counts, counts + scale / 2.0 * np.exp(-counts / scale))
