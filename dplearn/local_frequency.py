"""Frequency oracles: counting d categories when each user adds their own noise.

Randomised response (lesson 00) hides one yes/no answer; deployed local differential
privacy counts one of d categories per user. Every protocol here is a *pure* frequency
oracle (Wang, Blocki, Li & Jha, "Locally differentially private protocols for frequency
estimation", USENIX Security 2017): a report *supports* a set of categories, with

    p = P[report supports v | the user's value is v],
    q = P[report supports v | the user's value is another category],

so that among n users of whom c hold v, the count of supports of v is
Binomial(c, p) + Binomial(n - c, q), and

    c-hat = (supports - n q) / (p - q)

is unbiased, with the exact variance

    Var[c-hat] = n q (1 - q) / (p - q)^2 + c (1 - p - q) / (p - q).

The protocols (``PROTOCOLS``), each epsilon-locally-DP:

- direct encoding, or generalised randomised response ("direct"): report the true
  category with probability p = e^epsilon / (e^epsilon + d - 1), each other one with
  q = 1 / (e^epsilon + d - 1) (Kairouz, Bonawitz & Ramage, "Discrete distribution
  estimation under local privacy", ICML 2016); with d = 2 it is lesson 00's randomised
  response with t = p;
- unary encoding: the value as a one-hot vector of d bits, its 1 kept with probability p
  and each 0 turned into 1 with probability q, independently. Symmetric ("symmetric
  unary", basic RAPPOR: Erlingsson, Pihur & Korolova, "RAPPOR: randomized aggregatable
  privacy-preserving ordinal response", CCS 2014) has p = e^(epsilon/2) / (e^(epsilon/2) + 1),
  q = 1 - p; optimised ("optimized unary", Wang et al.) has p = 1/2, q = 1 / (e^epsilon + 1).
  Its epsilon is ln(p (1 - q) / ((1 - p) q)): Near & Abuah's "Programming differential
  privacy" (chapter 13) use p = 0.75, q = 0.25, which is symmetric unary encoding at
  epsilon = ln 9;
- optimised local hashing ("optimized local hashing", Wang et al.): each user hashes their
  value into g = round(e^epsilon + 1) buckets with a hash function of their own, drawn from
  a universal family, and reports the hash and the bucket by direct encoding over the g
  buckets. A report supports every category that hashes to the reported bucket, so
  p = e^epsilon / (e^epsilon + g - 1) and q = 1 / g. Its report has log2(g) bits (and the
  hash's seed) where unary encoding's has d.

Direct encoding's variance per user, (e^epsilon + d - 2) / (e^epsilon - 1)^2, grows with d;
optimised unary encoding's, 4 e^epsilon / (e^epsilon - 1)^2, does not: direct encoding is
the better one while d < 3 e^epsilon + 2. Optimised local hashing's equals optimised unary
encoding's when g = e^epsilon + 1 exactly; with g rounded to a whole number it is
(e^epsilon + g - 1)^2 / ((e^epsilon - 1)^2 (g - 1)), at most 25/24 times it (at
epsilon = ln 1.5, where g steps from 2 to 3), 1.0024 times at epsilon = 1 (g = 4).

The hash family of local hashing is h(x) = ((a x + b) mod P) mod g with the Mersenne prime
P = 2^31 - 1, a drawn uniformly from 1..P-1 and b from 0..P-1 for each user: two distinct
categories land in the same bucket with probability ``collision_probability(g)``, within
1 / P of 1/g, so the estimate's bias is below n / P (under 5e-10 per user).

The estimates can be negative and need not sum to n. Two post-processings make them a
histogram: ``clip_and_renormalise`` (negative counts to 0, then rescaled to the total) and
``project_onto_simplex`` (the closest histogram in Euclidean distance: Duchi,
Shalev-Shwartz, Singer & Chandra, "Efficient projections onto the l1-ball for learning in
high dimensions", ICML 2008; Wang & Carreira-Perpiñán, "Projection onto the probability
simplex", 2013); both are biased. A trusted curator instead adds Laplace noise of scale
1/epsilon to each count: variance 2/epsilon^2, whatever n (``central_variance``).

The samplers draw from ``rng``, a seeded ``numpy.random.Generator``, for all users at once.

Taught in: 17-count-categories-with-local-noise.ipynb
"""

from __future__ import annotations

import itertools
import math
from typing import NamedTuple

import numpy as np
from scipy import special

from dplearn import _validation as check
from dplearn import calibration

__all__ = [
    "PROTOCOLS",
    "HASH_PRIME",
    "generalized_randomized_response",
    "unary_encoding",
    "local_hashing",
    "collision_probability",
    "unary_epsilon",
    "protocol_parameters",
    "report_bits",
    "frequency_variance",
    "variance_per_user",
    "crossover_categories",
    "central_variance",
    "report_probabilities",
    "worst_privacy_loss",
    "unary_worst_privacy_loss",
    "HashedReports",
    "perturb",
    "support_counts",
    "estimate_counts",
    "clip_and_renormalise",
    "project_onto_simplex",
]

#: The protocols, by the names the figures and sliders use.
PROTOCOLS = ("direct", "symmetric unary", "optimized unary", "optimized local hashing")

#: The prime of local hashing's universal family, 2^31 - 1 (a x + b fits in 64 bits).
HASH_PRIME = 2**31 - 1

#: Largest number of buckets local hashing samples (epsilon up to about 11): beyond it the
#: family's collision probability would drift from 1/g by more than g / P = 3e-5.
_MAX_BUCKETS = 2**16

#: Largest d whose 2^d bit vectors are enumerated for unary encoding.
_MAX_ENUMERATED = 16

#: Random numbers drawn at once for unary encoding's bits: bounds the memory of large n d.
_CHUNK_ENTRIES = 2_000_000


# ---------------------------------------------------------------------------
# Argument checks
# ---------------------------------------------------------------------------


def _epsilon(value):
    return check.positive("epsilon", value)


def _categories(value):
    """d: whole numbers >= 2 (an array gives a curve), as an int or an int array."""
    array = check.number("categories", value)
    bad = ~np.isfinite(array) | (array != np.floor(array)) | (array < 2)
    if np.any(bad):
        raise ValueError(f"categories must be whole numbers >= 2, got {check.describe(array[bad])}")
    return int(array) if array.ndim == 0 else array.astype(np.int64)


def _one_category_count(value):
    return check.whole("categories", value, minimum=2)


def _protocol(protocol):
    if protocol not in PROTOCOLS:
        raise ValueError(f"protocol must be one of {PROTOCOLS}, got {check.short(protocol)}")
    return protocol


def _distinct(p, q):
    """p and q in [0, 1] with p != q (else no report says anything about the count)."""
    p = check.probability_closed("p", p)
    q = check.probability_closed("q", q)
    same = np.broadcast_to(p == q, np.broadcast_shapes(np.shape(p), np.shape(q)))
    if np.any(same):
        raise ValueError(
            f"q must differ from p (p = q: the reports carry no information), "
            f"got p = q = {check.describe(np.broadcast_to(q, same.shape)[same])}"
        )
    return p, q


def _values(values, categories):
    """The users' categories: a non-empty 1-d array of whole numbers in 0..d-1."""
    array = check.finite("values", values)
    if array.ndim != 1 or array.size == 0:
        raise ValueError(f"values must be a non-empty 1-d array, got shape {array.shape}")
    bad = (array != np.floor(array)) | (array < 0) | (array > categories - 1)
    if np.any(bad):
        raise ValueError(
            f"values must be whole numbers in 0..{categories - 1} (the categories), "
            f"got {check.describe(array[bad])}"
        )
    return array.astype(np.int64)


def _buckets(epsilon):
    """g = round(e^epsilon + 1), halves rounded up, as floats."""
    with np.errstate(over="ignore"):
        g = np.floor(np.exp(epsilon) + 1.5)
    if np.any(~np.isfinite(g)):
        raise ValueError(
            f"epsilon must be below 709 for local hashing (g = round(e^epsilon + 1) "
            f"overflows), got {check.describe(epsilon[~np.isfinite(g)])}"
        )
    return g


# ---------------------------------------------------------------------------
# Each protocol's p and q
# ---------------------------------------------------------------------------


def generalized_randomized_response(epsilon, categories):
    """Direct encoding's (p, q): e^epsilon / (e^epsilon + d - 1) and 1 / (e^epsilon + d - 1).

    Computed as 1 / (1 + (d - 1) e^-epsilon) and e^-epsilon / (1 + (d - 1) e^-epsilon), which
    neither overflow nor lose digits for large epsilon. Vectorised over epsilon and
    categories (broadcast).

    Args:
      epsilon: privacy budget(s), finite and > 0.
      categories: d, the number of categories, whole numbers >= 2.

    Returns:
      (p, q): floats, or arrays of the broadcast shape.

    Raises:
      ValueError: naming epsilon or categories.

    Taught in: 17-count-categories-with-local-noise.ipynb
    """
    epsilon = _epsilon(epsilon)
    categories = _categories(categories)
    shrink = np.exp(-epsilon)
    denominator = 1.0 + (categories - 1) * shrink
    return check.scalar_or_array(1.0 / denominator), check.scalar_or_array(shrink / denominator)


def unary_encoding(epsilon, optimized=False):
    """Unary encoding's (p, q): symmetric (basic RAPPOR) or optimised.

    Symmetric: p = e^(epsilon/2) / (e^(epsilon/2) + 1), q = 1 - p. Optimised (Wang et al.):
    p = 1/2, q = 1 / (e^epsilon + 1). Both are exactly epsilon-DP (``unary_epsilon``), for
    every number of categories. Vectorised over epsilon.

    Args:
      epsilon: privacy budget(s), finite and > 0.
      optimized: True for optimised unary encoding.

    Returns:
      (p, q): floats, or arrays shaped like epsilon.

    Taught in: 17-count-categories-with-local-noise.ipynb
    """
    epsilon = _epsilon(epsilon)
    # expit(x) = 1 / (1 + e^-x), without overflow for large epsilon.
    if optimized:
        p, q = np.full_like(epsilon, 0.5), special.expit(-epsilon)
    else:
        p, q = special.expit(epsilon / 2.0), special.expit(-epsilon / 2.0)
    return check.scalar_or_array(p), check.scalar_or_array(q)


def local_hashing(epsilon, optimized=True):
    """Local hashing's (p, q, g): g buckets, p = e^epsilon / (e^epsilon + g - 1), q = 1/g.

    Optimised (Wang et al.): g = round(e^epsilon + 1), the whole number nearest to the g
    that minimises the variance (halves rounded up); binary local hashing otherwise, g = 2.
    p is the probability of reporting one's own bucket; q = 1/g that of a report
    supporting another category (its bucket is one of g, drawn by a universal hash). The
    report is the hash and a bucket: log2(g) bits besides the hash's seed. Vectorised over
    epsilon.

    Args:
      epsilon: privacy budget(s), finite and > 0 (below 709 when optimized).
      optimized: True for optimised local hashing, False for g = 2.

    Returns:
      (p, q, g): floats, or arrays shaped like epsilon (g holds whole numbers).

    Taught in: 17-count-categories-with-local-noise.ipynb
    """
    epsilon = _epsilon(epsilon)
    g = _buckets(epsilon) if optimized else np.full_like(epsilon, 2.0)
    p, _ = generalized_randomized_response(epsilon, g)
    return check.scalar_or_array(p), check.scalar_or_array(1.0 / g), check.scalar_or_array(g)


def collision_probability(buckets):
    """P[h(x) = h(x')] for two distinct categories under this module's universal hash.

    h(x) = ((a x + b) mod P) mod g, with a uniform on 1..P-1 and b on 0..P-1, sends two
    distinct x, x' (below P) to a uniform pair of distinct residues mod P; they share a
    bucket when both are in one residue class mod g. Exact, in integer arithmetic, then
    rounded once to a float: within 1 / P of 1/g.

    Args:
      buckets: g, a whole number in 2..2^16.

    Taught in: 17-count-categories-with-local-noise.ipynb
    """
    g = check.whole("buckets", buckets, minimum=2, maximum=_MAX_BUCKETS)
    size, larger = divmod(HASH_PRIME, g)
    # `larger` classes hold size + 1 residues, the other g - larger hold size.
    pairs = larger * (size + 1) * size + (g - larger) * size * (size - 1)
    return pairs / (HASH_PRIME * (HASH_PRIME - 1))


def unary_epsilon(p, q):
    """The epsilon of unary encoding with probabilities (p, q): ln(p (1 - q) / ((1 - p) q)).

    Two values change two bits; the report that has the first one's bit and not the
    second's is the most telling. Vectorised over p and q.

    Args:
      p: P[bit of the user's own category is 1], in [0, 1].
      q: P[another category's bit is 1], in [0, 1], below p.

    Returns:
      epsilon (infinite when p = 1 or q = 0).

    Taught in: 17-count-categories-with-local-noise.ipynb
    """
    p, q = _distinct(p, q)
    if np.any(p < q):
        raise ValueError(f"q must be below p, got q = {check.describe(q)}, p = {check.describe(p)}")
    with np.errstate(divide="ignore"):
        loss = np.log(p) + np.log1p(-q) - np.log1p(-p) - np.log(q)
    return check.scalar_or_array(loss)


def protocol_parameters(protocol, epsilon, categories):
    """(p, q) of a protocol of ``PROTOCOLS`` at epsilon with d categories.

    For local hashing, q = 1/g (a report supports another category with that
    probability), whatever d is. Vectorised over epsilon and categories (broadcast).

    Args:
      protocol: one of ``PROTOCOLS``.
      epsilon: privacy budget(s), finite and > 0.
      categories: d, whole numbers >= 2.

    Raises:
      ValueError: naming protocol, epsilon or categories.

    Taught in: 17-count-categories-with-local-noise.ipynb
    """
    protocol = _protocol(protocol)
    epsilon = _epsilon(epsilon)
    categories = _categories(categories)
    if protocol == "direct":
        return generalized_randomized_response(epsilon, categories)
    shape = np.broadcast_shapes(np.shape(epsilon), np.shape(categories))
    if protocol == "optimized local hashing":
        p, q, _ = local_hashing(epsilon)
    else:
        p, q = unary_encoding(epsilon, optimized=protocol == "optimized unary")
    return tuple(check.scalar_or_array(np.broadcast_to(x, shape).copy()) for x in (p, q))


def report_bits(protocol, epsilon, categories):
    """Bits of one report: log2(d) for direct encoding, d for unary, log2(g) for hashing.

    Local hashing's report also carries its hash's seed (two numbers below 2^31 here),
    which a shared seed schedule could replace; it is not counted.

    Args:
      protocol: one of ``PROTOCOLS``.
      epsilon: privacy budget(s), finite and > 0.
      categories: d, whole numbers >= 2.

    Taught in: 17-count-categories-with-local-noise.ipynb
    """
    protocol = _protocol(protocol)
    epsilon = _epsilon(epsilon)
    categories = _categories(categories)
    if protocol == "direct":
        bits = np.log2(categories) + 0.0 * epsilon
    elif protocol == "optimized local hashing":
        bits = np.log2(_buckets(epsilon)) + 0.0 * categories
    else:
        bits = categories + 0.0 * epsilon
    return check.scalar_or_array(np.asarray(bits, dtype=float))


# ---------------------------------------------------------------------------
# Variance
# ---------------------------------------------------------------------------


def frequency_variance(p, q, users, count=0):
    """Var[c-hat] = n q (1 - q) / (p - q)^2 + c (1 - p - q) / (p - q), exactly.

    The variance of (supports - n q) / (p - q) when c of the n users hold the category:
    supports = Binomial(c, p) + Binomial(n - c, q). Vectorised over every argument
    (broadcast).

    Args:
      p: P[a report supports the user's own category], in [0, 1].
      q: P[a report supports another category], in [0, 1], not p.
      users: n, whole numbers >= 1.
      count: c, the true count, whole numbers in [0, n].

    Raises:
      ValueError: naming p, q (when p = q), users or count.

    Taught in: 17-count-categories-with-local-noise.ipynb
    """
    p, q = _distinct(p, q)
    users = check.number("users", users)
    bad = ~np.isfinite(users) | (users != np.floor(users)) | (users < 1)
    if np.any(bad):
        raise ValueError(f"users must be whole numbers >= 1, got {check.describe(users[bad])}")
    count = check.number("count", count)
    bad = ~np.isfinite(count) | (count != np.floor(count)) | (count < 0)
    if np.any(bad):
        raise ValueError(f"count must be whole numbers >= 0, got {check.describe(count[bad])}")
    if np.any(count > users):
        raise ValueError(
            f"count must not exceed users, got count = {check.describe(count)}, "
            f"users = {check.describe(users)}"
        )
    gap = p - q
    variance = users * q * (1.0 - q) / gap**2 + count * (1.0 - p - q) / gap
    return check.scalar_or_array(variance)


def variance_per_user(protocol, epsilon, categories):
    """Var[c-hat] / n at c = 0 of a protocol: q (1 - q) / (p - q)^2, in closed form.

    With t = e^-epsilon, so that large epsilon neither overflows nor loses digits:

    - direct: (e^epsilon + d - 2) / (e^epsilon - 1)^2 = t (1 + (d - 2) t) / (1 - t)^2;
    - symmetric unary: e^(epsilon/2) / (e^(epsilon/2) - 1)^2;
    - optimised unary: 4 e^epsilon / (e^epsilon - 1)^2 = 4 t / (1 - t)^2;
    - optimised local hashing: (e^epsilon + g - 1)^2 / ((e^epsilon - 1)^2 (g - 1)).

    Vectorised over epsilon and categories (broadcast).

    Args:
      protocol: one of ``PROTOCOLS``.
      epsilon: privacy budget(s), finite and > 0.
      categories: d, whole numbers >= 2.

    Taught in: 17-count-categories-with-local-noise.ipynb
    """
    protocol = _protocol(protocol)
    epsilon = _epsilon(epsilon)
    categories = _categories(categories)
    if protocol == "symmetric unary":
        epsilon = epsilon / 2.0
    t = np.exp(-epsilon)
    spread = -np.expm1(-epsilon)  # 1 - t, with all its digits for small epsilon
    if protocol == "direct":
        variance = t * (1.0 + (categories - 2) * t) / spread**2
    elif protocol == "symmetric unary":
        variance = t / spread**2 + 0.0 * categories
    elif protocol == "optimized unary":
        variance = 4.0 * t / spread**2 + 0.0 * categories
    else:
        g = _buckets(epsilon)
        variance = (1.0 + (g - 1.0) * t) ** 2 / (spread**2 * (g - 1.0)) + 0.0 * categories
    return check.scalar_or_array(np.asarray(variance, dtype=float))


def crossover_categories(epsilon):
    """3 e^epsilon + 2: direct encoding has the smaller variance while d is below it.

    Where (e^epsilon + d - 2) / (e^epsilon - 1)^2 = 4 e^epsilon / (e^epsilon - 1)^2.
    Vectorised over epsilon.

    Args:
      epsilon: privacy budget(s), finite and > 0.

    Taught in: 17-count-categories-with-local-noise.ipynb
    """
    epsilon = _epsilon(epsilon)
    return check.scalar_or_array(3.0 * np.exp(epsilon) + 2.0)


def central_variance(epsilon, sensitivity=1.0):
    """2 (sensitivity / epsilon)^2: the variance of a count released with Laplace noise.

    The trusted curator's alternative (lesson 05): one noise on the count, whatever n is.

    Args:
      epsilon: privacy budget(s), finite and > 0.
      sensitivity: l1 sensitivity, 1 for a count.

    Taught in: 17-count-categories-with-local-noise.ipynb
    """
    scale = np.asarray(calibration.laplace_scale(epsilon, sensitivity))
    return check.scalar_or_array(2.0 * scale**2)


# ---------------------------------------------------------------------------
# Every report and its probabilities, and the worst privacy loss
# ---------------------------------------------------------------------------


def _unary_table(p, q, categories):
    """Every bit vector (rows) and ln P[vector | value] (columns: the d values)."""
    if categories > _MAX_ENUMERATED:
        raise ValueError(
            f"categories must be at most {_MAX_ENUMERATED} to enumerate its 2^d reports, "
            f"got {categories}"
        )
    vectors = np.array(list(itertools.product((False, True), repeat=categories)))
    with np.errstate(divide="ignore"):
        other = np.where(vectors, np.log(q), np.log1p(-q))  # each bit as another category's
        own = np.where(vectors, np.log(p), np.log1p(-p))  # each bit as the user's own
    # ln P[vector | v] = sum of the other bits' terms, with bit v's own term instead.
    log_probabilities = other.sum(axis=1, keepdims=True) - other + own
    return vectors, log_probabilities


def report_probabilities(protocol, epsilon, categories):
    """Every report of a protocol and its probability under each of the d values.

    - direct: the reports are the categories 0..d-1; P[r | v] = p if r = v, q otherwise;
    - unary: the reports are the 2^d bit vectors (d at most 16), P[r | v] the product of
      each bit's probability;
    - local hashing: the reports are the buckets 0..g-1 for one hash, h(v) = v mod g;
      P[r | v] = p' if r = h(v), 1 / (e^epsilon + g - 1) otherwise. A report's hash is drawn
      independently of v, so its probability cancels in every ratio, and a hash that puts
      two values in different buckets (this one, for v, v' < g) has the largest ratios.

    Args:
      protocol: one of ``PROTOCOLS``.
      epsilon: privacy budget, finite and > 0.
      categories: d, a whole number >= 2.

    Returns:
      (reports, probabilities): the reports (an int array, or a bool matrix with one bit
      vector per row) and a matrix of P[report | value], one row per report, one column
      per value; each column sums to 1.

    Taught in: 17-count-categories-with-local-noise.ipynb
    """
    reports, log_probabilities = _report_table(protocol, epsilon, categories)
    return reports, np.exp(log_probabilities)


def _report_table(protocol, epsilon, categories):
    protocol = _protocol(protocol)
    epsilon = check.positive("epsilon", epsilon, scalar=True)
    categories = _one_category_count(categories)
    if protocol in ("symmetric unary", "optimized unary"):
        p, q = unary_encoding(epsilon, optimized=protocol == "optimized unary")
        return _unary_table(p, q, categories)
    if protocol == "direct":
        size, bucket = categories, np.arange(categories)
    else:
        size = int(_buckets(np.asarray(epsilon)))
        bucket = np.arange(categories) % size
    p, q = generalized_randomized_response(epsilon, size)
    reports = np.arange(size)
    hit = reports[:, None] == bucket[None, :]
    return reports, np.where(hit, math.log(p), math.log(q))


def _worst(log_probabilities):
    """max over reports and pairs of values of |ln P[r | v] - ln P[r | v']|."""
    spread = log_probabilities.max(axis=1) - log_probabilities.min(axis=1)
    return float(spread.max())


def worst_privacy_loss(protocol, epsilon, categories):
    """The largest |ln P[r | v] / P[r | v']| over every report r and values v, v'.

    By enumeration of ``report_probabilities`` (in logarithms): it equals epsilon for
    every protocol here, which is what makes each epsilon-locally-DP.

    Args:
      protocol: one of ``PROTOCOLS``.
      epsilon: privacy budget, finite and > 0.
      categories: d, a whole number >= 2 (at most 16 for unary encoding).

    Taught in: 17-count-categories-with-local-noise.ipynb
    """
    return _worst(_report_table(protocol, epsilon, categories)[1])


def unary_worst_privacy_loss(p, q, categories):
    """The worst privacy loss of unary encoding with any (p, q), by enumerating 2^d reports.

    Near & Abuah's p = 0.75, q = 0.25 give ln 9; it equals ``unary_epsilon(p, q)``.

    Args:
      p: P[bit of the user's own category is 1], in [0, 1].
      q: P[another category's bit is 1], in [0, 1].
      categories: d, a whole number in 2..16.

    Returns:
      The loss (infinite when some report is possible under one value only).

    Taught in: 17-count-categories-with-local-noise.ipynb
    """
    p = check.probability_closed("p", p, scalar=True)
    q = check.probability_closed("q", q, scalar=True)
    categories = _one_category_count(categories)
    _, log_probabilities = _unary_table(p, q, categories)
    possible = np.isfinite(log_probabilities).any(axis=1)
    log_probabilities = log_probabilities[possible]
    if np.any(~np.isfinite(log_probabilities)):
        return math.inf
    return _worst(log_probabilities)


# ---------------------------------------------------------------------------
# Seeded reports, supports and estimates
# ---------------------------------------------------------------------------


class HashedReports(NamedTuple):
    """Local hashing's reports: each user's hash (a, b) and reported bucket.

    Attributes:
      multipliers: a of each user's hash h(x) = ((a x + b) mod P) mod g, in 1..P-1.
      offsets: b of each user's hash, in 0..P-1.
      buckets: each user's reported bucket, in 0..g-1.
      hash_range: g, the number of buckets.
    """

    multipliers: np.ndarray
    offsets: np.ndarray
    buckets: np.ndarray
    hash_range: int


def _hash(multipliers, offsets, values, hash_range):
    """((a x + b) mod P) mod g, elementwise; a x + b < 2^62 fits an int64."""
    return (multipliers * values + offsets) % HASH_PRIME % hash_range


def _other_category(true, size, rng):
    """A category drawn uniformly among the size - 1 that are not true, for each user."""
    other = rng.integers(0, size - 1, true.size)
    return other + (other >= true)


def perturb(values, protocol, epsilon, categories, *, rng):
    """Each user's report of their category under a protocol, for all users at once.

    Args:
      values: the users' categories, a 1-d array of whole numbers in 0..d-1.
      protocol: one of ``PROTOCOLS``.
      epsilon: privacy budget, finite and > 0 (at most about 11 for local hashing, whose
        g must stay below 2^16).
      categories: d, a whole number >= 2.
      rng: a numpy.random.Generator.

    Returns:
      direct: an int array of reported categories; unary: an n x d bool matrix;
      local hashing: ``HashedReports``.

    Raises:
      ValueError: naming values, protocol, epsilon, categories or rng.

    Taught in: 17-count-categories-with-local-noise.ipynb
    """
    protocol = _protocol(protocol)
    epsilon = check.positive("epsilon", epsilon, scalar=True)
    categories = _one_category_count(categories)
    values = _values(values, categories)
    rng = check.generator(rng)
    n = values.size
    if protocol == "direct":
        p, _ = generalized_randomized_response(epsilon, categories)
        keep = rng.random(n) < p
        return np.where(keep, values, _other_category(values, categories, rng))
    if protocol == "optimized local hashing":
        p, _, g = local_hashing(epsilon)
        g = int(g)
        if g > _MAX_BUCKETS:
            raise ValueError(
                f"epsilon must be below ln(2^16 - 0.5) = 11.09 to sample local hashing "
                f"(g = round(e^epsilon + 1) <= 2^16), got {epsilon!r}"
            )
        if categories > HASH_PRIME:
            raise ValueError(f"categories must be at most 2^31 - 1 to hash, got {categories}")
        multipliers = rng.integers(1, HASH_PRIME, n)
        offsets = rng.integers(0, HASH_PRIME, n)
        own = _hash(multipliers, offsets, values, g)
        keep = rng.random(n) < p
        buckets = np.where(keep, own, _other_category(own, g, rng))
        return HashedReports(multipliers, offsets, buckets, g)
    p, q = unary_encoding(epsilon, optimized=protocol == "optimized unary")
    bits = np.empty((n, categories), dtype=bool)
    rows = max(1, _CHUNK_ENTRIES // categories)
    for start in range(0, n, rows):
        stop = min(n, start + rows)
        bits[start:stop] = rng.random((stop - start, categories)) < q
    bits[np.arange(n), values] = rng.random(n) < p
    return bits


def _check_reports(reports, protocol, categories):
    """The reports as arrays of the protocol's kind, with a ValueError naming reports."""
    if protocol == "optimized local hashing":
        if not isinstance(reports, HashedReports):
            raise ValueError(
                f"reports must be HashedReports (from perturb) for local hashing, "
                f"got {check.short(reports)}"
            )
        return reports
    array = np.asarray(reports)
    if protocol == "direct":
        if array.ndim != 1 or array.dtype.kind not in "iu":
            raise ValueError(f"reports must be a 1-d int array, got {check.short(reports)}")
        bad = (array < 0) | (array >= categories)
        if np.any(bad):
            raise ValueError(
                f"reports must be categories in 0..{categories - 1}, "
                f"got {check.describe(array[bad])}"
            )
        return array
    if array.ndim != 2 or array.shape[1] != categories or array.dtype.kind not in "biu":
        raise ValueError(
            f"reports must be an n x {categories} matrix of bits, got {check.short(reports)}"
        )
    return array


def support_counts(reports, protocol, categories):
    """How many reports support each category.

    - direct: the reports equal to it;
    - unary: the vectors whose bit for it is 1;
    - local hashing: the reports whose hash sends it to the reported bucket.

    Args:
      reports: what ``perturb`` returned for this protocol.
      protocol: one of ``PROTOCOLS``.
      categories: d, a whole number >= 2.

    Returns:
      An int array of d counts.

    Taught in: 17-count-categories-with-local-noise.ipynb
    """
    protocol = _protocol(protocol)
    categories = _one_category_count(categories)
    reports = _check_reports(reports, protocol, categories)
    if protocol == "direct":
        return np.bincount(reports, minlength=categories)
    if protocol != "optimized local hashing":
        return reports.sum(axis=0, dtype=np.int64)
    counts = np.empty(categories, dtype=np.int64)
    for category in range(categories):
        hashed = _hash(reports.multipliers, reports.offsets, category, reports.hash_range)
        counts[category] = np.count_nonzero(hashed == reports.buckets)
    return counts


def estimate_counts(reports, protocol, epsilon, categories):
    """The unbiased estimates c-hat = (supports - n q) / (p - q), one per category.

    Args:
      reports: what ``perturb`` returned for this protocol at this epsilon.
      protocol: one of ``PROTOCOLS``.
      epsilon: privacy budget the reports were made with, finite and > 0.
      categories: d, a whole number >= 2.

    Returns:
      A float array of d estimates (some may be negative; they need not sum to n).

    Taught in: 17-count-categories-with-local-noise.ipynb
    """
    supports = support_counts(reports, protocol, categories)
    p, q = protocol_parameters(protocol, epsilon, categories)
    if protocol == "optimized local hashing":
        users = reports.buckets.size
        if reports.hash_range != int(local_hashing(epsilon)[2]):
            raise ValueError(
                f"epsilon must be the one the reports were made with: its g is "
                f"{int(local_hashing(epsilon)[2])}, the reports' {reports.hash_range}"
            )
    else:
        users = len(reports)
    return (supports - users * q) / (p - q)


# ---------------------------------------------------------------------------
# Post-processing into a histogram
# ---------------------------------------------------------------------------


def _histogram_inputs(estimates, total):
    estimates = check.finite("estimates", estimates)
    if estimates.ndim not in (1, 2) or estimates.shape[-1] == 0:
        raise ValueError(
            f"estimates must be a non-empty 1-d array (or one row per run), "
            f"got shape {estimates.shape}"
        )
    total = check.finite("total", total, scalar=True)
    if total < 0:
        raise ValueError(f"total must be >= 0, got {total!r}")
    return estimates, total


def clip_and_renormalise(estimates, total):
    """Negative estimates set to 0, then all scaled to sum to total.

    When no estimate is positive, total is shared equally. Works on each row of a matrix
    of runs.

    Args:
      estimates: c-hat, a 1-d array (or a matrix with one row per run).
      total: the sum to reach (n), finite and >= 0.

    Returns:
      An array shaped like estimates, >= 0, each row summing to total.

    Taught in: 17-count-categories-with-local-noise.ipynb
    """
    estimates, total = _histogram_inputs(estimates, total)
    clipped = np.maximum(estimates, 0.0)
    sums = clipped.sum(axis=-1, keepdims=True)
    even = np.full_like(clipped, total / clipped.shape[-1])
    with np.errstate(invalid="ignore", divide="ignore"):
        scaled = clipped * (total / sums)
    return np.where(sums > 0, scaled, even)


def project_onto_simplex(estimates, total):
    """The Euclidean projection onto {x >= 0, sum x = total}: max(c-hat - theta, 0).

    The sort-based algorithm (Duchi, Shalev-Shwartz, Singer & Chandra 2008; Wang &
    Carreira-Perpiñán 2013): with u the estimates sorted in decreasing order, rho is the
    largest j with u_j > (u_1 + ... + u_j - total) / j, and theta = (u_1 + ... + u_rho -
    total) / rho. Works on each row of a matrix of runs.

    Args:
      estimates: c-hat, a 1-d array (or a matrix with one row per run).
      total: the sum to reach (n), finite and >= 0.

    Returns:
      An array shaped like estimates, >= 0, each row summing to total (to rounding).

    Taught in: 17-count-categories-with-local-noise.ipynb
    """
    estimates, total = _histogram_inputs(estimates, total)
    rows = np.atleast_2d(estimates)
    decreasing = -np.sort(-rows, axis=-1)
    excess = np.cumsum(decreasing, axis=-1) - total
    j = np.arange(1, rows.shape[-1] + 1)
    # The condition holds for j = 1 and for a prefix of j: rho is the count of its Trues.
    rho = np.count_nonzero(decreasing * j > excess, axis=-1)
    theta = excess[np.arange(rows.shape[0]), rho - 1] / rho
    projected = np.maximum(rows - theta[:, None], 0.0)
    return projected.reshape(estimates.shape)
