"""The privacy loss of a selection: one of finitely many candidates, on two neighbours.

A selection mechanism (the exponential mechanism, report-noisy-max, permute-and-flip)
outputs the index r of a candidate. On neighbouring data sets D1 and D2 it picks r with
probabilities P1[r] and P2[r], so its privacy loss takes one value per candidate,
L(r) = ln(P1[r] / P2[r]), with probability P1[r]: a loss with finitely many atoms.
``SelectionPair`` holds the two vectors of log-probabilities (so that probabilities far
below the smallest double keep their loss) and offers what every pair offers.

Taught in: 12-choose-privately.ipynb
"""

from __future__ import annotations

import numpy as np
from scipy import special

from dplearn import _validation as check
from dplearn.privacy_loss._pair import PrivacyLossPair


def atoms_log_delta(values, log_masses, x):
    """ln delta(x) of a loss with finitely many atoms, for any real x (arrays).

    delta(x) = sum over atoms with L > x of P1 (1 - e^(x - L)), with P1 = e^log_masses.

    Summed in log space: each term is e^(ln P1 + ln(1 - e^(x - L))), so that no term is
    a difference of nearly equal numbers and tiny deltas keep their digits. An atom at
    L = +inf counts fully.
    """
    x = np.asarray(x, dtype=float)
    flat = x.reshape(-1)
    result = np.empty(flat.shape)
    for index, point in enumerate(flat):
        above = values > point
        if not np.any(above):
            result[index] = -np.inf
            continue
        with np.errstate(divide="ignore", over="ignore"):
            gap = np.where(np.isinf(values[above]), -np.inf, point - values[above])
            terms = log_masses[above] + np.log(-np.expm1(gap))
        result[index] = special.logsumexp(terms)
    return result.reshape(x.shape)


class SelectionPair(PrivacyLossPair):
    """The two output laws of a selection on neighbours D1 and D2.

    Outputs are candidate indices 0 .. k - 1; candidate r is picked with probability
    P1[r] = e^(log_probabilities_d1[r]) on D1 and P2[r] on D2. The loss of r is
    ln P1[r] - ln P2[r] (+inf where only D1 can pick it; candidates neither can pick are
    dropped). ``delta`` is summed in log space over the atoms, exactly up to rounding.

    Attributes:
      log_probabilities_d1, log_probabilities_d2: tuples of floats, one per candidate.
      name: what mechanism made the pair (for its repr).

    Taught in: 12-choose-privately.ipynb
    """

    def __init__(self, log_probabilities_d1, log_probabilities_d2, name="selection"):
        first = check.number("log_probabilities_d1", log_probabilities_d1).reshape(-1)
        second = check.number("log_probabilities_d2", log_probabilities_d2).reshape(-1)
        if first.size == 0 or first.shape != second.shape:
            raise ValueError(
                "log_probabilities_d1 and log_probabilities_d2 must be non-empty and of one "
                f"length, got {first.size} and {second.size}"
            )
        for label, array in (("log_probabilities_d1", first), ("log_probabilities_d2", second)):
            if np.any(np.isnan(array) | (array > 1e-9) | np.isposinf(array)):
                raise ValueError(f"{label} must be logs of probabilities (<= 0), got {array!r}")
            total = special.logsumexp(array)
            if not abs(total) < 1e-9:
                raise ValueError(
                    f"{label} must be the logs of probabilities that sum to 1, got a sum of "
                    f"{np.exp(total)!r}"
                )
        self.log_probabilities_d1 = tuple(float(v) for v in first)
        self.log_probabilities_d2 = tuple(float(v) for v in second)
        self.name = str(name)
        with np.errstate(invalid="ignore"):
            losses = np.where(np.isneginf(first), np.nan, first - second)
        self._losses = losses
        keep = ~np.isneginf(first)
        order = np.argsort(-losses[keep], kind="stable")
        self._values = losses[keep][order]
        self._log_masses = first[keep][order]
        self._log_masses_d2 = second[keep][order]

    def __repr__(self):
        return f"SelectionPair({self.name}, {len(self.log_probabilities_d1)} candidates)"

    def __eq__(self, other):
        return type(other) is type(self) and (
            other.log_probabilities_d1,
            other.log_probabilities_d2,
        ) == (self.log_probabilities_d1, self.log_probabilities_d2)

    def __hash__(self):
        return hash((type(self), self.log_probabilities_d1, self.log_probabilities_d2))

    @property
    def candidates(self):
        """How many candidates the selection chooses among."""
        return len(self.log_probabilities_d1)

    @property
    def probabilities_d1(self):
        """P1[r] for every candidate r."""
        return np.exp(np.array(self.log_probabilities_d1))

    @property
    def probabilities_d2(self):
        """P2[r] for every candidate r."""
        return np.exp(np.array(self.log_probabilities_d2))

    @property
    def losses(self):
        """L(r) for every candidate r (NaN where neither data set can pick r)."""
        return self._losses.copy()

    @property
    def max_loss(self):
        """The largest loss of a candidate D1 can pick."""
        return float(self._values[0])

    @property
    def min_loss(self):
        """The smallest loss of a candidate D1 can pick."""
        return float(self._values[-1])

    @property
    def loss_range(self):
        """max_loss - min_loss: at most epsilon for a bounded-range mechanism."""
        return self.max_loss - self.min_loss

    @property
    def loss_atoms(self):
        """The loss values (decreasing) and their masses under A(D1)."""
        return self._values.copy(), np.exp(self._log_masses)

    @property
    def loss_atoms_d2(self):
        """The same loss values and their masses under A(D2)."""
        return self._values.copy(), np.exp(self._log_masses_d2)

    @property
    def loss_mean(self):
        """E[L] under A(D1): the KL divergence of P1 from P2."""
        values, masses = self.loss_atoms
        if np.isposinf(values[0]):
            return np.inf
        return float(np.dot(values, masses))

    def _outputs(self, output):
        output = check.finite("output", output)
        bad = (output != np.floor(output)) | (output < 0) | (output >= self.candidates)
        if np.any(bad):
            raise ValueError(
                f"output must be candidate indices 0 .. {self.candidates - 1}, got "
                f"{check.describe(output[bad])}"
            )
        return output.astype(int)

    def density_d1(self, output):
        """P1[output]."""
        return check.scalar_or_array(self.probabilities_d1[self._outputs(output)])

    def density_d2(self, output):
        """P2[output]."""
        return check.scalar_or_array(self.probabilities_d2[self._outputs(output)])

    def privacy_loss(self, output):
        """L(output) = ln P1[output] - ln P2[output]."""
        return check.scalar_or_array(self._losses[self._outputs(output)])

    def log_delta(self, epsilon):
        """ln delta(epsilon), summed in log space over the candidates; -inf where it is 0."""
        epsilon = check.epsilon(epsilon)
        return check.scalar_or_array(atoms_log_delta(self._values, self._log_masses, epsilon))

    def loss_exceeds(self, epsilon):
        """P[L > epsilon] under A(D1)."""
        epsilon = check.epsilon(epsilon)
        return check.scalar_or_array(self.exceeds(epsilon))

    def loss_cdf(self, x):
        """P[L <= x] under A(D1), for any real x."""
        x = check.number("x", x)
        if np.any(np.isnan(x)):
            raise ValueError(f"x must not be NaN, got {check.describe(x[np.isnan(x)])}")
        values, masses = self.loss_atoms
        below = (values[None, :] <= x.reshape(-1)[:, None]) * masses[None, :]
        return check.scalar_or_array(np.clip(below.sum(axis=1), 0.0, 1.0).reshape(x.shape))

    def loss_quantile(self, p):
        """The smallest q with P[L > q] <= p (outputs sorted by decreasing L)."""
        p = check.probability_closed("p", p)
        return check.scalar_or_array(self.quantile_from_top(p))

    # What ``dplearn.composition`` reads of a law (``LossLaw``): unchecked, any real x.

    def exceeds(self, x):
        """P[L > x] under A(D1)."""
        values, masses = self.loss_atoms
        x = np.asarray(x, dtype=float)
        return ((values > x[..., None]) * masses).sum(axis=-1)

    def exceeds_d2(self, x):
        """P[L > x] under A(D2)."""
        values, masses = self.loss_atoms_d2
        x = np.asarray(x, dtype=float)
        return ((values > x[..., None]) * masses).sum(axis=-1)

    def hockey(self, x):
        """delta(x) for any real x."""
        with np.errstate(under="ignore"):
            return np.exp(atoms_log_delta(self._values, self._log_masses, x))

    def quantile_from_top(self, p):
        """The smallest atom q with P[L > q] <= p."""
        values, masses = self.loss_atoms
        # P[L > values[i]] = masses[0] + ... + masses[i - 1]: increasing in i.
        above = np.concatenate([[0.0], np.cumsum(masses)[:-1]])
        index = np.searchsorted(above, np.asarray(p, dtype=float), side="right") - 1
        return values[np.clip(index, 0, values.size - 1)]
