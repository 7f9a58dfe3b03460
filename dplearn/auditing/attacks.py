"""Membership attacks, seeded: on published means and on every step of a DP-SGD run.

- ``tracing_scores``: membership from published means (after Homer et al. 2008 and Dwork,
  Smith, Steinke, Ullman & Vadhan 2015);
- ``gradient_canary_scores``: the strongest attacker on DP-SGD, which sees every noisy step
  (Nasr et al. 2023).

The black-box attacker on a trained model is in ``dplearn.auditing.black_box``.

Taught in: 14-attack-the-model.ipynb
"""

from __future__ import annotations

import math

import numpy as np

from dplearn import _validation as check
from dplearn import accounting, calibration
from dplearn.auditing.scores import Scores

__all__ = ["tracing_scores", "gradient_canary_scores"]


def tracing_scores(people, attributes, epsilon, delta, data_sets, *, rng):
    """Scores of the tracing attack on published means.

    After Homer et al. 2008 and Dwork, Smith, Steinke, Ullman & Vadhan, "Robust
    traceability from trace amounts", FOCS 2015.

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


def gradient_canary_scores(sampling_rate, noise_multiplier, steps, trials, *, rng):
    """Scores of the strongest attacker on a DP-SGD run, which sees every noisy step.

    Nasr et al., "Tight auditing of differentially private machine learning", 2023.

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
    rate, sigma, steps = accounting.check_run(sampling_rate, noise_multiplier, steps)
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
