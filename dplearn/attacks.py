"""Two attacks on exact (or nearly exact) answers: differencing and reconstruction.

Differencing. Two counts, "how many have the disease" over everyone and over everyone
but one named person, differ by that person's answer. With Laplace noise of scale
1/epsilon on each count, the difference D of the two noisy counts is the person's answer
plus the difference of two independent Laplace noises, whose density is

    g(z) = (epsilon / 4) (1 + epsilon |z|) e^(-epsilon |z|),

so the attacker's odds of "has it" move by g(D - 1) / g(D) (Bayes' rule), never by more
than e^epsilon either way; the guarantee of two epsilon-DP releases is e^(2 epsilon)
(their privacy losses add: basic composition).

Reconstruction (Dinur & Nissim, "Revealing information while preserving privacy",
PODS 2003). n people hold secret bits x; m queries each ask how many people of a random
subset hold a 1, and each answer is off by at most E. The linear program

    minimise  sum_i |(Q x)_i - a_i|   over x in [0, 1]^n

finds bits that explain the answers as well as possible; rounded, they are most of the
secret while E is well below sqrt(n), and little better than guessing once E is well
above it (Figure INTRO-2). It is solved here through its dual, which has n rows instead
of 2m: with HiGHS, and no presolve, several times faster than the textbook primal at
n = 100, m = 400 (``benchmarks/core.py`` times both):

    maximise  a . y - sum_j u_j   subject to  Q^T y <= u,  u >= 0,  -1 <= y <= 1;

the primal x is minus the dual values (marginals) of the n constraints Q^T y <= u.

Taught in: 00-see-why-answers-need-noise.ipynb
"""

from __future__ import annotations

import functools

import numpy as np
from scipy import optimize, sparse

from dplearn import _validation as check

__all__ = [
    "random_secret",
    "random_queries",
    "answer_with_noise",
    "relaxed_solution",
    "reconstruct",
    "fraction_recovered",
    "reconstruction_trial",
    "mean_fraction_recovered",
    "difference_density",
    "differencing_log_ratio",
    "differencing_posterior",
    "posterior_band",
]

#: Largest problem reconstruct accepts (n * m entries): beyond, one LP keeps a lesson waiting.
MAX_ENTRIES = 4_000_000


# --------------------------------------------------------------------------- checks


def _matrix(queries):
    array = check.finite("queries", queries)
    if array.ndim != 2 or array.shape[0] < 1 or array.shape[1] < 1:
        raise ValueError(
            f"queries must be an m x n matrix (m queries, n people), got shape {array.shape}"
        )
    wrong = (array != 0) & (array != 1)
    if np.any(wrong):
        raise ValueError(f"queries must hold only 0s and 1s, got {check.describe(array[wrong])}")
    if array.size > MAX_ENTRIES:
        raise ValueError(
            f"queries must have at most {MAX_ENTRIES} entries (m * n), got shape {array.shape}"
        )
    return array


def _bits(name, values):
    array = check.finite(name, values)
    if array.ndim != 1 or array.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-d array of bits, got shape {array.shape}")
    wrong = (array != 0) & (array != 1)
    if np.any(wrong):
        raise ValueError(f"{name} must hold only 0s and 1s, got {check.describe(array[wrong])}")
    return array


def _answers(answers, rows):
    array = check.finite("answers", answers)
    if array.shape != (rows,):
        raise ValueError(
            f"answers must hold one number per query ({rows}), got shape {array.shape}"
        )
    return array


def _noise_bound(noise_bound):
    value = check.finite("noise_bound", noise_bound, scalar=True)
    if value < 0:
        raise ValueError(f"noise_bound must be >= 0, got {noise_bound!r}")
    return value


# ----------------------------------------------------------------------- reconstruction


def random_secret(n, *, rng):
    """n secret bits, each 0 or 1 with probability 1/2.

    Args:
      n: number of people, a whole number >= 1.
      rng: a numpy.random.Generator.

    Taught in: 00-see-why-answers-need-noise.ipynb
    """
    n = check.positive_integer("n", n)
    return check.generator(rng).integers(0, 2, n)


def random_queries(n, m, *, rng):
    """m random subset queries on n people: an m x n matrix of 0/1, each entry 1 w.p. 1/2.

    Row i asks "how many people of subset i hold a 1?"; its exact answer is row i times x.

    Args:
      n: number of people, a whole number >= 1.
      m: number of queries, a whole number >= 1.
      rng: a numpy.random.Generator.

    Taught in: 00-see-why-answers-need-noise.ipynb
    """
    n = check.positive_integer("n", n)
    m = check.positive_integer("m", m)
    if n * m > MAX_ENTRIES:
        raise ValueError(f"m * n must be at most {MAX_ENTRIES}, got n={n}, m={m}")
    return check.generator(rng).integers(0, 2, (m, n))


def answer_with_noise(queries, secret, noise_bound, *, rng):
    """The exact counts Q x, each moved by independent uniform noise in [-E, E].

    Args:
      queries: an m x n matrix of 0s and 1s.
      secret: the n secret bits.
      noise_bound: E >= 0, the largest error of an answer.
      rng: a numpy.random.Generator.

    Taught in: 00-see-why-answers-need-noise.ipynb
    """
    queries = _matrix(queries)
    secret = _bits("secret", secret)
    if secret.size != queries.shape[1]:
        raise ValueError(
            f"secret must hold one bit per column of queries ({queries.shape[1]}), "
            f"got {secret.size}"
        )
    bound = _noise_bound(noise_bound)
    unit = check.generator(rng).uniform(-1.0, 1.0, queries.shape[0])
    return queries @ secret + bound * unit


def relaxed_solution(queries, answers):
    """The LP's x in [0, 1]^n minimising sum_i |(Q x)_i - a_i| (before rounding).

    Solved with scipy's HiGHS through the dual (module docstring). Where the optimum is
    not unique, this is one optimal point.

    Args:
      queries: an m x n matrix of 0s and 1s.
      answers: the m (noisy) answers.

    Taught in: 00-see-why-answers-need-noise.ipynb
    """
    queries = _matrix(queries)
    answers = _answers(answers, queries.shape[0])
    m, n = queries.shape
    # Scaled so that HiGHS's tolerances (about 1e-7) are relative to the answers' size.
    scale = max(1.0, float(np.max(np.abs(answers))))
    cost = np.concatenate([-answers / scale, np.full(n, 1.0 / scale)])
    rows = sparse.hstack(
        [sparse.csr_array(queries.T), -sparse.eye_array(n, format="csr")], format="csr"
    )
    bounds = [(-1.0, 1.0)] * m + [(0.0, None)] * n
    # Presolve finds nothing to remove in a dense random LP: skipping it halves the time.
    result = optimize.linprog(
        cost,
        A_ub=rows,
        b_ub=np.zeros(n),
        bounds=bounds,
        method="highs",
        options={"presolve": False},
    )

    if result.status != 0:  # pragma: no cover - the LP is always feasible and bounded
        raise RuntimeError(f"the reconstruction LP failed: {result.message}")
    return np.clip(-result.ineqlin.marginals * scale, 0.0, 1.0)


def reconstruct(queries, answers):
    """Dinur & Nissim's reconstruction: the LP's x rounded to bits (>= 1/2 gives 1).

    Args:
      queries: an m x n matrix of 0s and 1s (row i: who is in subset i).
      answers: the m answers, exact or noisy.

    Returns:
      The n recovered bits, an int array.

    Taught in: 00-see-why-answers-need-noise.ipynb
    """
    return (relaxed_solution(queries, answers) >= 0.5).astype(int)


def fraction_recovered(secret, recovered):
    """The share of positions where recovered equals secret.

    Taught in: 00-see-why-answers-need-noise.ipynb
    """
    secret = _bits("secret", secret)
    recovered = _bits("recovered", recovered)
    if recovered.shape != secret.shape:
        raise ValueError(
            f"recovered must have the shape of secret {secret.shape}, got {recovered.shape}"
        )
    return float(np.mean(secret == recovered))


@functools.lru_cache(maxsize=4096)
def _trial(n, m, noise_bound, seed):
    rng = np.random.default_rng(seed)
    secret = rng.integers(0, 2, n)
    queries = rng.integers(0, 2, (m, n))
    # The noise's shape is drawn once per seed: every E rescales the same draw.
    unit = rng.uniform(-1.0, 1.0, m)
    recovered = reconstruct(queries, queries @ secret + noise_bound * unit)
    recovered.flags.writeable = False
    secret.flags.writeable = False
    return secret, recovered


def reconstruction_trial(n, m, noise_bound, *, seed):
    """One attack from a seed: (secret, recovered bits), cached.

    From numpy.random.default_rng(seed): the secret, then the queries, then the shape
    of the noise, drawn in that order, so that every noise_bound E of one seed rescales
    the same noise (a slider over E moves one attack, not a new one each time).

    Args:
      n: number of people, a whole number >= 1.
      m: number of queries, a whole number >= 1.
      noise_bound: E >= 0.
      seed: a whole number >= 0.

    Taught in: 00-see-why-answers-need-noise.ipynb
    """
    n = check.positive_integer("n", n)
    m = check.positive_integer("m", m)
    if n * m > MAX_ENTRIES:
        raise ValueError(f"m * n must be at most {MAX_ENTRIES}, got n={n}, m={m}")
    bound = _noise_bound(noise_bound)
    seed = check.whole("seed", seed, minimum=0)
    return _trial(n, m, bound, seed)


def mean_fraction_recovered(n, m, noise_bound, seeds=range(5)):
    """The fraction recovered averaged over the attacks of several seeds.

    Args:
      n, m, noise_bound: as for ``reconstruction_trial``.
      seeds: the seeds, whole numbers >= 0 (five by default: 0 to 4).

    Taught in: 00-see-why-answers-need-noise.ipynb
    """
    seeds = list(seeds)
    if not seeds:
        raise ValueError("seeds must name at least one seed, got none")
    fractions = [
        fraction_recovered(*reconstruction_trial(n, m, noise_bound, seed=seed)) for seed in seeds
    ]
    return float(np.mean(fractions))


# ------------------------------------------------------------------------- differencing


def difference_density(difference, epsilon):
    """Density at z of the difference of two independent Laplace(1/epsilon) noises.

    It is (epsilon / 4) (1 + epsilon |z|) e^(-epsilon |z|).

    Args:
      difference: z, finite number(s).
      epsilon: each count's privacy budget, finite and > 0 (Laplace scale 1/epsilon).

    Taught in: 00-see-why-answers-need-noise.ipynb
    """
    z = check.finite("difference", difference)
    epsilon = check.positive("epsilon", epsilon)
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        distance = epsilon * np.abs(z)
        # (1 + d) e^-d through exp(log1p(d) - d), which is 0, not inf * 0, far out.
        tail = np.where(np.isfinite(distance), np.log1p(distance) - distance, -np.inf)
        density = epsilon / 4.0 * np.exp(tail)
    return check.scalar_or_array(density)


def differencing_log_ratio(difference, epsilon):
    """ln(g(D - 1) / g(D)): how far the noisy difference D moves the attacker's log odds.

    D is the difference of the two noisy counts; the log odds are those that the person has
    the disease. The result lies between -epsilon and epsilon.

    Args:
      difference: D, the first noisy count minus the second, finite number(s).
      epsilon: each count's privacy budget, finite and > 0.

    Taught in: 00-see-why-answers-need-noise.ipynb
    """
    z = check.finite("difference", difference)
    epsilon = check.positive("epsilon", epsilon)
    # |z| - |z - 1| = clip(2z - 1, -1, 1), exact even where z - 1 rounds to z.
    with np.errstate(over="ignore", invalid="ignore"):
        step = np.clip(2.0 * z - 1.0, -1.0, 1.0)
        shrink = np.log1p(epsilon * np.abs(z - 1.0)) - np.log1p(epsilon * np.abs(z))
        # Both distances overflow only far out, where the two logs agree (their
        # difference tends to 0).
        shrink = np.where(np.isfinite(shrink), shrink, 0.0)
        ratio = epsilon * step + shrink
    return check.scalar_or_array(np.clip(ratio, -epsilon, epsilon))


def _odds_to_probability(log_odds):
    # e^x / (1 + e^x) from whichever side keeps e^(+-x) finite: tiny priors keep
    # their digits down to the subnormals.
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        small = np.exp(np.minimum(log_odds, 0.0))
        return np.where(log_odds < 0, small / (1.0 + small), 1.0 / (1.0 + np.exp(-log_odds)))


def _log_odds(prior):
    prior = check.probability_open("prior", prior)
    return prior, np.log(prior) - np.log1p(-prior)


def differencing_posterior(prior, difference, epsilon):
    """The attacker's probability that the person has the disease after seeing D.

    Posterior odds = prior odds x g(D - 1) / g(D) (``differencing_log_ratio``).

    Args:
      prior: the attacker's probability before the answers, in (0, 1).
      difference: D, the first noisy count minus the second.
      epsilon: each count's privacy budget, finite and > 0.

    Taught in: 00-see-why-answers-need-noise.ipynb
    """
    _, log_odds = _log_odds(prior)
    ratio = differencing_log_ratio(difference, epsilon)
    return check.scalar_or_array(_odds_to_probability(log_odds + ratio))


def posterior_band(prior, epsilon):
    """The posteriors an epsilon-DP release allows: odds x e^-epsilon to odds x e^epsilon.

    For a prior probability p the edges are p e^(+-epsilon) / (p e^(+-epsilon) + 1 - p)
    (Figure INTRO-5; for two releases of epsilon each, pass 2 epsilon).

    Args:
      prior: the attacker's probability before the release, in (0, 1).
      epsilon: privacy budget(s), >= 0 (inf allows every posterior).

    Returns:
      (lowest, highest) posterior probabilities, vectorised.

    Taught in: 00-see-why-answers-need-noise.ipynb
    """
    _, log_odds = _log_odds(prior)
    epsilon = check.epsilon(epsilon)
    low = _odds_to_probability(log_odds - epsilon)
    high = _odds_to_probability(log_odds + epsilon)
    return check.scalar_or_array(low), check.scalar_or_array(high)
