"""What differential privacy allows a membership attacker: the highest true-positive rate.

A membership attacker tests "was this example in the data?" from what a mechanism released.
Its test has a false-positive rate alpha (it says "member" of an example that was not in)
and a true-positive rate (it says "member" of one that was). Differential privacy caps the
second given the first:

- ``max_true_positive_rate``: what (epsilon, delta)-DP allows, min(1, e^epsilon alpha +
  delta, 1 - e^-epsilon (1 - delta - alpha)) (Kairouz, Oh & Viswanath, "The composition
  theorem for differential privacy", ICML 2015);
- ``dp_sgd_max_true_positive_rate``: what a DP-SGD run allows, from its whole privacy
  profile delta(epsilon) (``dp_sgd_privacy_profile``, from the run's PLD in
  ``dplearn.accounting``): the intersection of the regions of every (epsilon,
  delta(epsilon)) it satisfies, its trade-off curve (Dong, Roth & Su, "Gaussian
  differential privacy", JRSS-B 2022), tighter than any one of them.

Taught in: 14-attack-the-model.ipynb
"""

from __future__ import annotations

import functools

import numpy as np

from dplearn import _validation as check
from dplearn import accounting

__all__ = ["max_true_positive_rate", "dp_sgd_privacy_profile", "dp_sgd_max_true_positive_rate"]


def max_true_positive_rate(epsilon, delta, false_positive_rate):
    """The highest true-positive rate any membership test reaches against (epsilon, delta)-DP.

    At a false-positive rate alpha the cap is
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


#: The epsilons (of either sign) at which a run's profile is read for its trade-off curve:
#: steps of 0.002 within [-8, 8], of 0.01 out to -40 and 40. Only the bounds at these
#: epsilons are taken, so the true-positive cap is never too low (the safe side).
_PROFILE_EPSILONS = np.unique(
    np.concatenate(
        [np.arange(-40, -8, 0.01), np.arange(-8, 8, 0.002), np.arange(8, 40.001, 0.01)]
    ).round(10)
)


@functools.lru_cache(maxsize=32)
def _profile(run, grid_width):
    distribution = accounting.dp_sgd_pld(*run, grid_width, direction="remove")
    deltas = np.asarray(distribution.hockey_stick(_PROFILE_EPSILONS))
    epsilons = _PROFILE_EPSILONS.copy()
    epsilons.flags.writeable = deltas.flags.writeable = False
    return epsilons, deltas


def dp_sgd_privacy_profile(sampling_rate, noise_multiplier, steps, grid_width=None):
    """The privacy profile delta(epsilon) of a DP-SGD run, for epsilon of either sign.

    delta(epsilon) = sup_S P[run in S | with x] - e^epsilon P[run in S | without x], at a
    fixed list of epsilons from -40 to 40, from the pessimistic PLD of the remove direction
    (``dplearn.accounting.dp_sgd_pld``): the example x is in the first data set.

    Args:
      sampling_rate, noise_multiplier, steps: the run (``dplearn.accounting.check_run``).
      grid_width: the PLD's h, in [1e-6, 1]; None for 1e-4.

    Returns:
      (epsilons, deltas): two read-only arrays.

    Taught in: 14-attack-the-model.ipynb
    """
    run = accounting.check_run(sampling_rate, noise_multiplier, steps)
    if grid_width is None:
        grid_width = accounting.DEFAULT_GRID_WIDTH
    return _profile(run, check.scalar("grid_width", grid_width))


def dp_sgd_max_true_positive_rate(
    sampling_rate, noise_multiplier, steps, false_positive_rate, grid_width=None
):
    """The highest true-positive rate any membership test reaches against a DP-SGD run.

    At a false-positive rate alpha: one minus the run's trade-off curve.

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
