"""Randomised response: noisy yes/no reports, and what they still tell about a proportion.

Each of n people holds a true answer, 1 (yes) or 0 (no), and reports it truthfully with
probability t (``truth_probability``), the other answer otherwise (Warner, 1965). No
report can be trusted, yet the proportion pi of true yes answers can be estimated: a
report is yes with probability q = (1 - t) + pi (2t - 1), so the mean report y-bar gives

    pi-hat = (y-bar - (1 - t)) / (2t - 1),

unbiased. When the n people are drawn from a population with a proportion pi of yes,
each report is an independent yes with probability q, and the standard error is

    sd(pi-hat) = sqrt(q (1 - q) / n) / (2t - 1)
               = sqrt([pi (1 - pi) + t (1 - t) / (2t - 1)^2] / n):

the survey's own sampling error plus the part the coins add, both shrinking like
1 / sqrt(n). A trusted curator who counts the true answers and adds Laplace noise of
scale 1 / epsilon (a count has sensitivity 1) adds only sqrt(2) / (n epsilon) to the
proportion, which shrinks like 1 / n (Figure INTRO-4).

Taught in: 00-see-why-answers-need-noise.ipynb
"""

from __future__ import annotations

import numpy as np
from scipy import special

from dplearn import _validation as check
from dplearn import privacy_loss

__all__ = [
    "truth_probability_for_epsilon",
    "coin_flip_reports",
    "randomize",
    "report_probability",
    "estimate_proportion",
    "local_standard_error",
    "local_noise_standard_error",
    "sampling_standard_error",
    "central_standard_error",
]


def _truth_probability(value):
    """Checks t through the privacy-loss pair, so that the rule and message are one."""
    return privacy_loss.randomized_response(value).truth_probability


def _answers(name, values):
    """A 1-d array of 0/1 answers (or reports), as floats, with a ValueError naming name."""
    array = check.finite(name, values)
    if array.ndim != 1 or array.size == 0:
        raise ValueError(
            f"{name} must be a non-empty 1-d array of 0s and 1s, got shape {array.shape}"
        )
    wrong = (array != 0) & (array != 1)
    if np.any(wrong):
        raise ValueError(
            f"{name} must hold only 0 (no) and 1 (yes), got {check.describe(array[wrong])}"
        )
    return array


def _people(n):
    """Checks n, the number of people: whole numbers >= 1 (an array gives a curve)."""
    array = check.positive("n", n)
    if np.any(array != np.floor(array)):
        raise ValueError(
            f"n must be whole numbers >= 1, got {check.describe(array[array != np.floor(array)])}"
        )
    if np.any(array < 1):
        raise ValueError(f"n must be whole numbers >= 1, got {check.describe(array[array < 1])}")
    return array


def truth_probability_for_epsilon(epsilon):
    """The t of randomised response that is exactly epsilon-DP: e^epsilon / (1 + e^epsilon).

    As a double, t keeps about 16 - log10(1/epsilon) digits of a tiny epsilon and
    16 - epsilon / ln 10 of a large one; beyond epsilon = 36.7, t rounds to 1 (refused).

    Args:
      epsilon: privacy budget(s), finite and > 0.

    Taught in: 00-see-why-answers-need-noise.ipynb
    """
    epsilon = check.positive("epsilon", epsilon)
    t = special.expit(epsilon)
    if np.any(t >= 1.0):
        raise ValueError(
            f"epsilon must be below 36.7, where e^epsilon / (1 + e^epsilon) rounds to 1, "
            f"got {check.describe(epsilon[t >= 1.0])}"
        )
    return check.scalar_or_array(t)


def coin_flip_reports(true_answers, *, rng):
    """Warner's two coins, as Dwork & Roth (2014, section 3.2) tell them.

    Flip a fair coin; heads, report the truth; tails, flip again and report yes on heads, no
    on tails. So a report is the truth with probability 3/4 (``randomize`` with t = 3/4).
    Dwork & Roth, "The algorithmic foundations of differential privacy", 2014.

    Args:
      true_answers: the people's true answers, a 1-d array of 0 (no) and 1 (yes).
      rng: a numpy.random.Generator.

    Returns:
      The reports, an int array of 0s and 1s.

    Taught in: 00-see-why-answers-need-noise.ipynb
    """
    answers = _answers("true_answers", true_answers)
    rng = check.generator(rng)
    first = rng.random(answers.size) < 0.5
    second = rng.random(answers.size) < 0.5
    return np.where(first, answers, second).astype(int)


def randomize(true_answers, truth_probability, *, rng):
    """Each true answer kept with probability t and flipped otherwise, independently.

    Args:
      true_answers: the people's true answers, a 1-d array of 0 (no) and 1 (yes).
      truth_probability: t, in (1/2, 1).
      rng: a numpy.random.Generator.

    Returns:
      The reports, an int array of 0s and 1s.

    Taught in: 00-see-why-answers-need-noise.ipynb
    """
    answers = _answers("true_answers", true_answers)
    t = _truth_probability(truth_probability)
    rng = check.generator(rng)
    keep = rng.random(answers.size) < t
    return np.where(keep, answers, 1.0 - answers).astype(int)


def report_probability(proportion, truth_probability):
    """q = P[a report is yes] = (1 - t) + proportion (2t - 1), vectorised over proportion.

    Args:
      proportion: pi, the share of true yes answers, in [0, 1].
      truth_probability: t, in (1/2, 1).

    Taught in: 00-see-why-answers-need-noise.ipynb
    """
    proportion = check.probability_closed("proportion", proportion)
    t = _truth_probability(truth_probability)
    return check.scalar_or_array((1.0 - t) + proportion * (2.0 * t - 1.0))


def estimate_proportion(reports, truth_probability):
    """The unbiased estimate pi-hat = (y-bar - (1 - t)) / (2t - 1) from the reports.

    It can fall outside [0, 1] (a few more no reports than the coins alone explain):
    it is left there, since clipping it would bias it.

    Args:
      reports: the randomised reports, a 1-d array of 0s and 1s.
      truth_probability: t, in (1/2, 1), the one the reports were made with.

    Taught in: 00-see-why-answers-need-noise.ipynb
    """
    reports = _answers("reports", reports)
    t = _truth_probability(truth_probability)
    return float((reports.mean() - (1.0 - t)) / (2.0 * t - 1.0))


def local_standard_error(proportion, n, truth_probability):
    """sd(pi-hat) = sqrt(q (1 - q) / n) / (2t - 1) of randomised response; vectorised over n.

    For n people drawn from a population with a proportion pi of yes (q from
    ``report_probability``).

    Args:
      proportion: pi, in [0, 1].
      n: number of people, whole numbers >= 1.
      truth_probability: t, in (1/2, 1).

    Taught in: 00-see-why-answers-need-noise.ipynb
    """
    q = report_probability(proportion, truth_probability)
    n = _people(n)
    t = _truth_probability(truth_probability)
    return check.scalar_or_array(np.sqrt(q * (1.0 - q) / n) / (2.0 * t - 1.0))


def local_noise_standard_error(n, truth_probability):
    """The coins' share of the error: sqrt(t (1 - t) / n) / (2t - 1), whatever pi is.

    It is sd(pi-hat) around the n people's own proportion (their answers held fixed):
    each report then has variance t (1 - t), yes or no.

    Args:
      n: number of people, whole numbers >= 1.
      truth_probability: t, in (1/2, 1).

    Taught in: 00-see-why-answers-need-noise.ipynb
    """
    n = _people(n)
    t = _truth_probability(truth_probability)
    return check.scalar_or_array(np.sqrt(t * (1.0 - t) / n) / (2.0 * t - 1.0))


def sampling_standard_error(proportion, n):
    """sqrt(pi (1 - pi) / n): the error of any survey of n people, even with true answers.

    Args:
      proportion: pi, in [0, 1].
      n: number of people, whole numbers >= 1.

    Taught in: 00-see-why-answers-need-noise.ipynb
    """
    proportion = check.probability_closed("proportion", proportion)
    n = _people(n)
    return check.scalar_or_array(np.sqrt(proportion * (1.0 - proportion) / n))


def central_standard_error(n, epsilon):
    """sqrt(2) / (n epsilon): the sd that Laplace noise adds to the proportion of yes answers.

    The noise has scale 1/epsilon and is added to the count of yes answers (a count has
    sensitivity 1); the proportion is count / n.

    Args:
      n: number of people, whole numbers >= 1.
      epsilon: privacy budget, finite and > 0.

    Taught in: 00-see-why-answers-need-noise.ipynb
    """
    n = _people(n)
    epsilon = check.positive("epsilon", epsilon)
    with np.errstate(over="ignore"):
        # Overflows to inf only for epsilon below about 1e-308: no useful accuracy there.
        return check.scalar_or_array(np.sqrt(2.0) / n / epsilon)
