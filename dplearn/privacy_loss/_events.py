"""What one output, or a set of outputs, tells the two neighbours apart by.

An attacker who sees an output of privacy loss L multiplies their odds of D1 against D2
by e^L (``posterior_odds``). A set of outputs S separates them by
delta_S = P[A(D1) in S] - e^epsilon P[A(D2) in S]; on Gaussian outputs cut into bins
(``discretise_outputs``), ``set_deltas`` gives delta_S of any sets of bins, and the worst
set, the bins where L > epsilon, gives delta_2 exactly.

Taught in: 01-measure-privacy-loss.ipynb, 02-see-what-delta-means.ipynb
"""

from __future__ import annotations

import numpy as np
from scipy import special


def posterior_odds(prior_odds, loss):
    """The attacker's odds of D1 against D2 after an output of privacy loss ``loss``.

    Bayes' rule: posterior odds = prior odds * P[A(D1) = O] / P[A(D2) = O] = prior * e^L.

    Taught in: 01-measure-privacy-loss.ipynb
    """
    return prior_odds * np.exp(loss)


def _interval_mass(lower, upper):
    """P[lower < Z <= upper] for a standard normal Z, accurate in both tails."""
    left = special.ndtr(upper) - special.ndtr(lower)
    right = special.ndtr(-lower) - special.ndtr(-upper)
    return np.where(upper <= 0, left, right)


def discretise_outputs(noise, epsilon, bins=800, reach=4.0):
    """Gaussian outputs cut into bins, with the bin edges fine around the output where L = epsilon.

    The edges run over that output +- ``reach`` sigma (one of them exactly on it); two
    more bins hold the tails. Grouping outputs into bins is post-processing, so no set
    of bins can give a larger delta_S than the exact delta_2.

    Args:
      noise: a ``privacy_loss.GaussianNoise``.
      epsilon: the epsilon of the check.
      bins: number of bins between the two tails (even).
      reach: half width of the binned window, in sigmas.

    Returns:
      (edges, mass_d1, mass_d2): bins + 3 edges (the outer ones infinite) and the
      probability of each of the bins + 2 bins under A(D1) and A(D2).

    Taught in: 02-see-what-delta-means.ipynb
    """
    sigma, sensitivity = noise.sigma, noise.sensitivity
    boundary = noise.center + sensitivity / 2.0 - epsilon * sigma**2 / sensitivity
    inner = boundary + sigma * np.linspace(-reach, reach, bins + 1)
    edges = np.concatenate(([-np.inf], inner, [np.inf]))
    standard_d1 = (edges - noise.center) / sigma
    standard_d2 = standard_d1 - sensitivity / sigma
    mass_d1 = _interval_mass(standard_d1[:-1], standard_d1[1:])
    mass_d2 = _interval_mass(standard_d2[:-1], standard_d2[1:])
    return edges, mass_d1, mass_d2


def set_deltas(mass_d1, mass_d2, epsilon, members):
    """delta_S = P[A(D1) in S] - e^epsilon P[A(D2) in S] for each set S of bins.

    Args:
      mass_d1, mass_d2: probability of each bin under A(D1) and A(D2).
      epsilon: the epsilon of the check.
      members: boolean array (sets, bins): which bins each set holds.

    Taught in: 02-see-what-delta-means.ipynb
    """
    gap = mass_d1 - np.exp(epsilon) * mass_d2
    return np.asarray(members, dtype=float) @ gap
