"""Randomised response: the first mechanism, and the simplest privacy loss.

Taught in: 00-see-why-answers-need-noise.ipynb
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dplearn import _validation as check
from dplearn._validation import describe
from dplearn.privacy_loss._pair import (
    PrivacyLossPair,
)


@dataclass(frozen=True)
class RandomizedResponse(PrivacyLossPair):
    """Randomised response: each person reports their true yes/no answer with probability t.

    t is ``truth_probability``; with probability 1 - t the person reports the other answer.
    Outputs are reports, 1 (yes) or 0 (no). D1 is the data set where the person's true
    answer is yes, D2 the one where it is no, so P[A(D1) = 1] = t and P[A(D2) = 1] = 1 - t.
    The privacy loss takes two values: L(yes) = epsilon = ln(t / (1 - t)), with
    probability t under A(D1), and L(no) = -epsilon, with probability 1 - t
    (Figure INTRO-3). Hence delta(e) = t (1 - e^(e - epsilon)) for 0 <= e < epsilon and 0
    above. Warner's coin version (heads: the truth; tails: a second coin) has t = 3/4
    and epsilon = ln 3. Exact for every t in (1/2, 1), against the definition at 50
    digits, except within an ulp or two of max_loss: max_loss is ln(t / (1 - t))
    rounded to a double, and delta is 0 from there on.

    Taught in: 00-see-why-answers-need-noise.ipynb
    """

    truth_probability: float

    def __post_init__(self):
        t = check.scalar("truth_probability", self.truth_probability)
        if not 0.5 < t < 1.0:
            raise ValueError(
                "truth_probability must lie strictly between 1/2 and 1 (at 1/2 a report says "
                f"nothing, at 1 it is the truth), got {self.truth_probability!r}"
            )
        object.__setattr__(self, "truth_probability", t)

    @property
    def max_loss(self):
        """epsilon = ln(t / (1 - t)): the loss of a "yes" report, the pure DP epsilon."""
        t = self.truth_probability
        # t / (1 - t) = 1 + (2t - 1) / (1 - t), where 2t - 1 and 1 - t are exact for t in
        # [1/2, 1] (Sterbenz): one rounding in all, even where epsilon is tiny (t near 1/2).
        return float(np.log1p((2.0 * t - 1.0) / (1.0 - t)))

    @property
    def epsilon(self):
        """The same number as ``max_loss``: randomised response is epsilon-DP for it."""
        return self.max_loss

    @property
    def loss_atoms(self):
        """The loss values (decreasing), +epsilon and -epsilon, and their masses t, 1 - t."""
        t = self.truth_probability
        return np.array([self.max_loss, -self.max_loss]), np.array([t, 1.0 - t])

    @property
    def loss_mean(self):
        """E[L] = (2t - 1) epsilon under A(D1): the KL divergence of the two report laws."""
        return float((2.0 * self.truth_probability - 1.0) * self.max_loss)

    def _reports(self, output):
        output = check.finite("output", output)
        if np.any((output != 0) & (output != 1)):
            bad = output[(output != 0) & (output != 1)]
            raise ValueError(f"output must be reports 0 (no) or 1 (yes), got {describe(bad)}")
        return output

    def density_d1(self, output):
        """P[A(D1) = output]: t for a yes (1), 1 - t for a no (0)."""
        yes = self._reports(output) == 1
        t = self.truth_probability
        return check.scalar_or_array(np.where(yes, t, 1.0 - t))

    def density_d2(self, output):
        """P[A(D2) = output]: 1 - t for a yes (1), t for a no (0)."""
        yes = self._reports(output) == 1
        t = self.truth_probability
        return check.scalar_or_array(np.where(yes, 1.0 - t, t))

    def privacy_loss(self, output):
        """L(output): +epsilon for a yes report, -epsilon for a no."""
        yes = self._reports(output) == 1
        return check.scalar_or_array(np.where(yes, self.max_loss, -self.max_loss))

    def loss_quantile(self, p):
        """L at probability position p: +epsilon on [0, t), -epsilon on [t, 1]."""
        p = check.probability_closed("p", p)
        bound = self.max_loss
        return check.scalar_or_array(np.where(p < self.truth_probability, bound, -bound))

    def loss_cdf(self, x):
        """P[L <= x] under A(D1): 0 below -epsilon, 1 - t up to epsilon, 1 from there."""
        x = check.number("x", x)
        if np.any(np.isnan(x)):
            raise ValueError(f"x must not be NaN, got {describe(x[np.isnan(x)])}")
        bound, t = self.max_loss, self.truth_probability
        cdf = np.where(x < -bound, 0.0, np.where(x < bound, 1.0 - t, 1.0))
        return check.scalar_or_array(cdf)

    def loss_exceeds(self, epsilon):
        """P[L > epsilon]: t below the loss of a yes, 0 from there."""
        epsilon = check.epsilon(epsilon)
        width = np.where(epsilon < self.max_loss, self.truth_probability, 0.0)
        return check.scalar_or_array(width)

    def delta(self, epsilon):
        """Tight delta: t (1 - e^(epsilon - max_loss)) below max_loss, else 0.

        Only the yes report is a bad event (the no report's loss -max_loss < 0). In the
        lower half the same number is written (2t - 1) - (1 - t)(e^epsilon - 1), exact
        at epsilon = 0 (2t - 1, the total variation distance); near max_loss the error
        is that of max_loss itself, about 1e-16 * max_loss / (max_loss - epsilon)
        relative.
        """
        epsilon = check.epsilon(epsilon)
        t, top = self.truth_probability, self.max_loss
        with np.errstate(over="ignore", invalid="ignore"):
            low = (2.0 * t - 1.0) - (1.0 - t) * np.expm1(np.minimum(epsilon, top))
            high = t * -np.expm1(np.minimum(epsilon - top, 0.0))
            delta = np.where(epsilon <= top / 2.0, low, high)
        delta = np.where(epsilon < top, np.clip(delta, 0.0, 1.0), 0.0)
        return check.scalar_or_array(delta)

    def log_delta(self, epsilon):
        """ln delta; -inf at and above max_loss."""
        with np.errstate(divide="ignore"):
            return check.scalar_or_array(np.log(self.delta(epsilon)))

    def _epsilon_for_one_delta(self, delta):
        # delta(e) solved for e, from whichever form of ``delta`` is accurate there.
        t, top = self.truth_probability, self.max_loss
        if delta >= 2.0 * t - 1.0:
            return 0.0
        if delta >= t * -np.expm1(-top / 2.0):
            return float(np.log1p(((2.0 * t - 1.0) - delta) / (1.0 - t)))
        return max(top + float(np.log1p(-delta / t)), 0.0)


def randomized_response(truth_probability):
    """Neighbouring reports of randomised response (see ``RandomizedResponse``).

    Args:
      truth_probability: t = P[report = true answer], in (1/2, 1); epsilon = ln(t/(1 - t))
        (t = 3/4, the two fair coins, gives ln 3).

    Taught in: 00-see-why-answers-need-noise.ipynb
    """
    return RandomizedResponse(truth_probability)
