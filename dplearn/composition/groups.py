"""Groups and disjoint data: group privacy and parallel composition.

- ``group_privacy``: what an (epsilon, delta)-DP guarantee for one person says about a
  group of g people, by the chain of g neighbours between two data sets that differ in g
  people (Dwork & Roth, "The algorithmic foundations of differential privacy", 2014,
  Theorem 2.2 for delta = 0; the delta term summed along the chain):
  (g epsilon, delta (e^(g epsilon) - 1) / (e^epsilon - 1)), g delta at epsilon = 0.
- ``group_privacy_loose``: the often-quoted (g epsilon, g e^((g - 1) epsilon) delta),
  which bounds every step of the chain by its last and is never smaller.
- ``gaussian_group_delta``: the Gaussian mechanism's exact delta for a group: its
  sensitivity becomes g Delta.
- ``parallel_composition`` and ``count_noise_scales``: releases computed on disjoint parts
  of the data cost the largest of their epsilons, not their sum (McSherry, "Privacy
  integrated queries", SIGMOD 2009), so a histogram whose bins one person changes one of
  costs epsilon with Laplace(Delta / epsilon) per bin, where k counts that one person can
  all change need Laplace(k Delta / epsilon) each.

Taught in: 13-answer-many-queries-for-the-price-of-few.ipynb
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from dplearn import _validation as check
from dplearn import privacy_loss

__all__ = [
    "group_privacy",
    "group_privacy_loose",
    "gaussian_group_delta",
    "parallel_composition",
    "count_noise_scales",
    "CountNoiseScales",
]


def _checked_group(epsilon, delta, group_size):
    epsilon = check.finite("epsilon", epsilon, scalar=True)
    if epsilon < 0:
        raise ValueError(f"epsilon must be >= 0, got {epsilon!r}")
    delta = check.probability_closed("delta", delta, scalar=True)
    group_size = check.whole("group_size", group_size, minimum=1)
    return epsilon, delta, group_size


#: ln of the largest double: e^x overflows above it.
_LOG_LARGEST = math.log(np.finfo(float).max)


def _log_chain_factor(epsilon, group_size):
    """ln sum_(j < g) e^(j epsilon), for g epsilon so large that e^(g epsilon) overflows.

    The sum is ln((e^(g epsilon) - 1) / (e^epsilon - 1)).
    """
    return (
        (group_size - 1) * epsilon
        + math.log(-math.expm1(-group_size * epsilon))
        - math.log(-math.expm1(-epsilon))
    )


def group_privacy(epsilon, delta, group_size, *, capped=True):
    """The guarantee an (epsilon, delta)-DP mechanism gives a group of group_size people.

    Between data sets that differ in g people runs a chain of g neighbours; applying the
    guarantee along it gives P[A(D) in S] <= e^(g epsilon) P[A(D') in S] + delta
    (1 + e^epsilon + ... + e^((g - 1) epsilon)).

    Args:
      epsilon: the guarantee's epsilon for one person, >= 0 and finite.
      delta: its delta, in [0, 1].
      group_size: g, a whole number >= 1.
      capped: True caps the delta at 1; False returns the chain's sum as it is, which
        above 1 is no probability and no guarantee (a page may show how far past 1 it is).

    Returns:
      (g epsilon, min(1, delta (e^(g epsilon) - 1) / (e^epsilon - 1))); the delta is
      g delta at epsilon = 0.

    Taught in: 13-answer-many-queries-for-the-price-of-few.ipynb
    """
    epsilon, delta, group_size = _checked_group(epsilon, delta, group_size)
    ceiling = 1.0 if capped else math.inf
    if delta == 0:
        return group_size * epsilon, 0.0
    if epsilon == 0:
        return 0.0, min(ceiling, group_size * delta)
    if group_size * epsilon < 700:
        factor = math.expm1(group_size * epsilon) / math.expm1(epsilon)
        return group_size * epsilon, min(ceiling, delta * factor)
    log_delta = math.log(delta) + _log_chain_factor(epsilon, group_size)
    return group_size * epsilon, _exp_capped(log_delta, capped)


def _exp_capped(log_delta, capped):
    """e^log_delta, at most 1 when capped; infinite where it overflows a double."""
    if capped:
        return math.exp(min(log_delta, 0.0))
    return math.exp(log_delta) if log_delta < _LOG_LARGEST else math.inf


def group_privacy_loose(epsilon, delta, group_size, *, capped=True):
    """The often-quoted group guarantee (g epsilon, g e^((g - 1) epsilon) delta), capped at 1.

    Every term e^(j epsilon) of the chain's sum is bounded by the largest: never smaller
    than ``group_privacy``'s delta, and equal to it only for g = 1 or epsilon = 0.
    With capped=False the delta is returned as it is, above 1 too (as ``group_privacy``).

    Taught in: 13-answer-many-queries-for-the-price-of-few.ipynb
    """
    epsilon, delta, group_size = _checked_group(epsilon, delta, group_size)
    if delta == 0:
        return group_size * epsilon, 0.0
    log_delta = math.log(group_size) + (group_size - 1) * epsilon + math.log(delta)
    return group_size * epsilon, _exp_capped(log_delta, capped)


def gaussian_group_delta(sigma, group_size, epsilon, sensitivity=1.0):
    """The exact delta of the Gaussian mechanism for a group, at the group's g epsilon.

    g people change the answer by at most g Delta, so for the group the mechanism is the
    Gaussian pair of sensitivity g Delta (``dplearn.privacy_loss.gaussian``).

    Args:
      sigma: the noise's standard deviation, > 0.
      group_size: g, a whole number >= 1.
      epsilon: the epsilon of one person; the delta is taken at g epsilon (>= 0).
      sensitivity: Delta for one person, > 0.

    Taught in: 13-answer-many-queries-for-the-price-of-few.ipynb
    """
    group_size = check.whole("group_size", group_size, minimum=1)
    epsilon = check.epsilon(epsilon, scalar=True)
    sensitivity = check.positive("sensitivity", sensitivity, scalar=True)
    pair = privacy_loss.gaussian(sigma, group_size * sensitivity)
    return float(pair.delta(group_size * epsilon))


def parallel_composition(epsilons):
    """The epsilon of releases on disjoint parts of the data: the largest of theirs.

    One person's data sits in one part only, so only that part's release changes when
    they do (McSherry 2009). Compare the sum, ``basic`` composition's, for releases that
    may all see the same person.

    Args:
      epsilons: the epsilon of each release (a non-empty list, each >= 0).

    Taught in: 13-answer-many-queries-for-the-price-of-few.ipynb
    """
    values = check.epsilon(epsilons, "epsilons")
    if values.size == 0:
        raise ValueError("epsilons must hold at least one epsilon, got an empty list")
    return float(np.max(values))


class CountNoiseScales(NamedTuple):
    """Laplace scales per count for k counts at one overall epsilon (``count_noise_scales``).

    Attributes:
      disjoint: Delta / epsilon, when the counts are a histogram's bins (parallel
        composition).
      overlapping: k Delta / epsilon, when one person can change all k (basic
        composition).
    """

    disjoint: float
    overlapping: float


def count_noise_scales(epsilon, counts, sensitivity=1.0):
    """Laplace scales per count for k counts released at an overall epsilon.

    Returns:
      A ``CountNoiseScales`` (disjoint, overlapping): Delta / epsilon when the counts are
      the bins of a histogram, one person in one bin (parallel composition), k Delta /
      epsilon when one person can change all k of them (basic composition, epsilon / k
      each). The error of each count (its standard deviation) is sqrt(2) times its scale.

    Taught in: 13-answer-many-queries-for-the-price-of-few.ipynb
    """
    epsilon = check.positive("epsilon", epsilon, scalar=True)
    counts = check.whole("counts", counts, minimum=1)
    sensitivity = check.positive("sensitivity", sensitivity, scalar=True)
    return CountNoiseScales(sensitivity / epsilon, counts * sensitivity / epsilon)
