"""Exact k-fold composition: the law of L = L_1 + ... + L_k for the pairs it supports.

``compose(pair, k)`` returns a ``ComposedPair`` with the interface of the single-release
pairs of ``dplearn.privacy_loss`` (``delta``, ``loss_exceeds``, ``loss_quantile``, ...).
Gaussian: the Gaussian pair with sigma / sqrt(k). Laplace: a closed form (atoms plus
exponentially tilted Irwin-Hall pieces, derived in ``ComposedLaplace``; its numerics are
in ``_laplace``). Discrete Laplace: an exact convolution on its lattice.

Taught in: 08-add-up-privacy-losses.ipynb, 09-count-privacy-with-an-accountant.ipynb
"""

from __future__ import annotations

import functools
import math

import numpy as np
from scipy import special, stats

from dplearn import _validation as check
from dplearn import privacy_loss
from dplearn._safe_side import settle_by_ulps
from dplearn.composition._arguments import checked_epsilon0, checked_k, checked_ks, checked_real
from dplearn.composition._laplace import (
    PIECES,
    LaplaceClosedForm,
    LaplaceTables,
    SingleLaplaceTables,
    laplace_kl,
    laplace_w_variance,
    tilted_pieces_plain,
)
from dplearn.composition.law import Lattice, LossLaw

__all__ = [
    "ComposedPair",
    "ComposedGaussian",
    "ComposedLaplace",
    "ComposedDiscreteLaplace",
    "ComposedRandomizedResponse",
    "ComposedSelection",
    "compose",
    "laplace_epsilon_for_delta",
    "LAPLACE_CLOSED_FORM_MAX_K",
    "LAPLACE_MAX_K",
    "LAPLACE_MAX_EPSILON0",
    "DISCRETE_LAPLACE_MAX_POINTS",
]


#: Largest k for which the Laplace closed form is used (its alternating sums are checked
#: against mpmath to 1e-9 up to here); above it, the exact piecewise-polynomial tables.
LAPLACE_CLOSED_FORM_MAX_K = 12


#: Largest k for which a composed Laplace pair is offered at all.
LAPLACE_MAX_K = 250


#: Largest epsilon0 = sensitivity / scale for which a composed Laplace pair is offered.
LAPLACE_MAX_EPSILON0 = 200.0


#: Largest lattice (k * sensitivity + 1 points) convolved exactly for the discrete Laplace.
DISCRETE_LAPLACE_MAX_POINTS = 200_001


class ComposedPair(LossLaw, privacy_loss.PrivacyLossPair):
    """The k-fold composition of a single-release pair: L is the sum of k independent losses.

    Subclasses supply the ``LossLaw`` interface (``exceeds``, ``exceeds_d2``, ``hockey``,
    ``loss_atoms``, ...: unchecked, for any real x); the public methods of a pair
    (``delta``, ``loss_exceeds``, ``loss_quantile``, ...) check their arguments and call
    them. ``quantile_from_top`` here bisects over the subclass's ``_support``.

    Attributes:
      base: the single-release pair.
      k: the number of releases.

    Taught in: 08-add-up-privacy-losses.ipynb
    """

    def __init__(self, base, k):
        self.base = base
        self.k = checked_k(k)

    def __repr__(self):
        return f"{type(self).__name__}(base={self.base!r}, k={self.k})"

    def __eq__(self, other):
        return type(other) is type(self) and (other.base, other.k) == (self.base, self.k)

    def __hash__(self):
        return hash((type(self), self.base, self.k))

    @property
    def max_loss(self):
        """k times the single-release maximum (inf for the Gaussian)."""
        return self.k * self.base.max_loss

    @property
    def loss_std(self):
        """Standard deviation of L under A(D1): sqrt(k) times one release's."""
        return math.sqrt(self.k) * self._single_loss_std

    @property
    def max_loss_probability(self):
        """P[L = max_loss] (0 where the maximum is infinite)."""
        values, masses = self.loss_atoms
        top = values == self.max_loss
        return float(masses[top].sum()) if np.isfinite(self.max_loss) else 0.0

    # The public interface -----------------------------------------------------------

    def delta(self, epsilon):
        """Tight delta (delta_2) of the k-fold composition at epsilon, vectorised.

        Args:
          epsilon: privacy budget(s), >= 0.
        """
        epsilon = check.epsilon(epsilon)
        return check.scalar_or_array(self._clean(self.hockey(epsilon)))

    def log_delta(self, epsilon):
        """Natural log of ``delta(epsilon)``; -inf where delta is 0."""
        epsilon = check.epsilon(epsilon)
        with np.errstate(divide="ignore"):
            return check.scalar_or_array(np.log(self._clean(self.hockey(epsilon))))

    def loss_exceeds(self, epsilon):
        """delta_1 = P[L > epsilon] with outputs drawn from A(D1), vectorised.

        Args:
          epsilon: loss level(s), >= 0.
        """
        epsilon = check.epsilon(epsilon)
        return check.scalar_or_array(self._clean(self.exceeds(epsilon)))

    def loss_cdf(self, x):
        """P[L <= x] under A(D1), for any real x, vectorised."""
        x = checked_real("x", x)
        return check.scalar_or_array(self._clean(1.0 - self.exceeds(x)))

    def loss_quantile(self, p):
        """L at probability position p in [0, 1], outputs sorted by decreasing L.

        The smallest value q with P[L > q] <= p (so atoms give flat steps), vectorised.
        """
        p = check.probability_closed("p", p)
        return check.scalar_or_array(self.quantile_from_top(p))

    def _clean(self, value):
        return np.clip(np.nan_to_num(np.asarray(value, dtype=float), nan=0.0), 0.0, 1.0)

    def quantile_from_top(self, p):
        """Bisection on P[L > q] = p over ``_support``, all positions at once."""
        p = np.asarray(p, dtype=float)
        low, high = self._support
        low = np.full(p.shape, low)
        high = np.full(p.shape, high)
        for _ in range(64):
            middle = 0.5 * (low + high)
            above = self.exceeds(middle) > p
            low = np.where(above, middle, low)
            high = np.where(above, high, middle)
        return high


class ComposedGaussian(ComposedPair):
    """k Gaussian releases: exactly the Gaussian pair with sigma / sqrt(k), for every k.

    The loss of one release is N(mu, 2 mu) with mu = (sensitivity / sigma)**2 / 2; a sum of
    k independent ones is N(k mu, 2 k mu), the loss of sigma / sqrt(k).

    Taught in: 08-add-up-privacy-losses.ipynb
    """

    def __init__(self, base, k):
        super().__init__(base, k)
        self.equivalent = privacy_loss.gaussian(base.sigma / math.sqrt(self.k), base.sensitivity)
        self._ratio = self.equivalent.ratio

    max_loss = np.inf
    max_loss_probability = 0.0

    @property
    def loss_mean(self):
        """E[L] = k (sensitivity / sigma)**2 / 2, k times the KL divergence."""
        return self._ratio**2 / 2.0

    @property
    def loss_std(self):
        """sqrt(k) sensitivity / sigma."""
        return self._ratio

    @property
    def loss_atoms(self):
        """No atoms: (empty values, empty masses)."""
        return np.empty(0), np.empty(0)

    @property
    def _support(self):
        spread = 40.0 * self._ratio
        return self.loss_mean - spread, self.loss_mean + spread

    def delta(self, epsilon):
        """Tight delta at epsilon, in the closed form of the Gaussian pair with sigma / sqrt(k).

        Phi(r/2 - epsilon/r) - e^epsilon Phi(-r/2 - epsilon/r), r = sqrt(k) sensitivity / sigma
        (Balle & Wang, "Improving the Gaussian mechanism for differential privacy", 2018),
        as ``privacy_loss`` evaluates it for every epsilon and sigma.
        """
        return self.equivalent.delta(epsilon)

    def log_delta(self, epsilon):
        """ln delta, accurate where delta itself underflows."""
        return self.equivalent.log_delta(epsilon)

    def epsilon_for_delta(self, delta):
        """Smallest epsilon >= 0 whose delta is <= delta.

        The equivalent pair's root, then stepped by ulps to the smallest epsilon whose delta,
        as ``delta`` computes it, is not above the target.
        """
        epsilon = np.atleast_1d(np.asarray(self.equivalent.epsilon_for_delta(delta), float))
        target = np.atleast_1d(check.probability_open("delta", delta))
        epsilon = settle_by_ulps(epsilon, self.delta, target, 64)
        return check.scalar_or_array(epsilon.reshape(np.shape(delta)))

    def loss_quantile(self, p):
        """L at probability position p: k mu - sqrt(2 k mu) Phi^-1(p)."""
        return self.equivalent.loss_quantile(p)

    def loss_density(self, x):
        """Density of L ~ N(k mu, 2 k mu) at x."""
        x = checked_real("x", x)
        r = self._ratio
        with np.errstate(under="ignore", over="ignore"):
            density = np.exp(-0.5 * ((x - self.loss_mean) / r) ** 2) / (r * math.sqrt(2 * np.pi))
        return check.scalar_or_array(density)

    def loss_cdf(self, x):
        """P[L <= x] = Phi((x - k mu) / sqrt(2 k mu))."""
        x = checked_real("x", x)
        return check.scalar_or_array(self.continuous_cdf(x))

    def exceeds(self, x):
        """P[L > x] under A(D1) = Phi((k mu - x) / sqrt(2 k mu))."""
        with np.errstate(over="ignore", invalid="ignore"):  # tiny ratio: +-inf, Phi is 0 or 1
            return special.ndtr((self.loss_mean - x) / self._ratio)

    continuous_exceeds = exceeds

    def continuous_cdf(self, x):
        """P[L <= x] under A(D1): all of L is continuous."""
        with np.errstate(over="ignore", invalid="ignore"):
            return special.ndtr((x - self.loss_mean) / self._ratio)

    at_most = continuous_cdf

    @property
    def continuous_median(self):
        """The mean of L, where the normal law is split for ``cell_masses``."""
        return self.loss_mean

    def continuous_range(self, tail_mass):
        """The mean of L plus and minus the spread that leaves tail_mass at each end."""
        spread = -special.ndtri(tail_mass) * self._ratio
        return self.loss_mean - spread, self.loss_mean + spread

    def exceeds_d2(self, x):
        """P[L > x] under A(D2), where L ~ N(-k mu, 2 k mu)."""
        # Under A(D2) the loss is N(-k mu, 2 k mu).
        with np.errstate(over="ignore", invalid="ignore"):
            return special.ndtr((-self.loss_mean - x) / self._ratio)

    def hockey(self, x):
        """delta(x), for every real x (negative x too)."""
        x = np.asarray(x, dtype=float)
        result = np.empty(x.shape)
        positive = x >= 0
        result[positive] = np.exp(privacy_loss.gaussian_log_delta(x[positive], self._ratio))
        # Below 0: delta(x) = P1[L > x] - e^x P2[L > x], with no cancellation to fear.
        negative = ~positive
        with np.errstate(under="ignore", over="ignore"):
            result[negative] = self.exceeds(x[negative]) - np.exp(x[negative]) * (
                self.exceeds_d2(x[negative])
            )
        return result


def _binomial(n, i):
    return math.comb(n, i) if 0 <= i <= n else 0


class ComposedLaplace(ComposedPair):
    """k Laplace releases of epsilon0 = sensitivity / scale, exactly.

    Derivation. Write one release's loss as L_1 = epsilon0 - 2 epsilon0 W with W in [0, 1]:
    under A(D1), W = 0 with probability 1/2 (the noise lands on the near side), W = 1 with
    probability e^-epsilon0 / 2 (beyond the far answer), and in between W has density
    (epsilon0 / 2) e^(-epsilon0 w). The k-fold loss is L = k epsilon0 - 2 epsilon0 S with
    S = W_1 + ... + W_k. Expanding the product of k such laws by how many W's are 0, 1 or
    continuous (m of them), the continuous ones sum to an exponentially tilted Irwin-Hall
    law; inclusion-exclusion over the unit cube gives, with x = (k epsilon0 - t) /
    (2 epsilon0), Y_j = epsilon0 (x - j), P(m, y) the regularised lower incomplete gamma
    function and K(m, y) = int_0^y e^g g^(m-1) / (m-1)! dg = y^m / m! 1F1(m; m+1; y):

        P[L > t]  = 2^-k sum_{j < x} e^(-j e0) [C(k, j) + sum_m A(m, j) P(m, Y_j)],
        delta(t)  = 2^-k sum_{j < x} e^(-j e0) [C(k, j) (1 - e^(-2 Y_j))
                                     + sum_m A(m, j) (P(m, Y_j) - e^(-2 Y_j) K(m, Y_j))],

    where A(m, j) = C(k, m) [z^j] (1 - z)^m (1 + z)^(k - m) (``closed_form_delta``,
    ``closed_form_exceeds``). The atoms of L sit at (k - 2 j) epsilon0 with masses
    C(k, j) e^(-j epsilon0) / 2^k; the maximum k epsilon0 has probability 2^-k. Under A(D2),
    L has the law of -L under A(D1).

    Exactness. The closed form's sums over j alternate: it agrees with mpmath to 1e-9
    relative (in fact ~1e-13) for k <= 12 (LAPLACE_CLOSED_FORM_MAX_K) and loses digits
    beyond. The methods (``delta``, ``loss_exceeds``, ``loss_cdf``, ``loss_density``,
    ``loss_quantile``, ``epsilon_for_delta``) evaluate the same law without alternating
    sums, for every k <= LAPLACE_MAX_K (250) and sensitivity / scale <= 200: the tilted law
    e^(epsilon0 w) P[S in dw] is a piecewise polynomial on the unit intervals, built by k
    convolutions in the Bernstein basis (all coefficients >= 0, so no cancellation), and
    each piece's integrals are tabulated once at Chebyshev points (cells of width
    1 / ceil(epsilon0)); delta and P[L > t] then carry relative errors of ~1e-13 (checked
    against mpmath for k up to 100 and epsilon0 up to 20).

    Taught in: 08-add-up-privacy-losses.ipynb
    """

    def __init__(self, base, k):
        super().__init__(base, k)
        if self.k > LAPLACE_MAX_K:
            raise ValueError(
                f"k must be <= {LAPLACE_MAX_K} for an exact composed Laplace pair, got {k} "
                "(use pld_bracket for more releases)"
            )
        self.epsilon0 = base.max_loss
        if self.epsilon0 > LAPLACE_MAX_EPSILON0:
            raise ValueError(
                f"sensitivity / scale must be <= {LAPLACE_MAX_EPSILON0} for a composed Laplace "
                f"pair, got {self.epsilon0!r}"
            )
        self._tables = (
            SingleLaplaceTables(self.epsilon0)
            if self.k == 1
            else LaplaceTables(self.epsilon0, self.k)
        )

    @property
    def max_loss(self):
        """k epsilon0."""
        return self.k * self.epsilon0

    @property
    def max_loss_probability(self):
        """P[L = k epsilon0] = 2^-k: every noise lands on the near side."""
        return 2.0**-self.k

    @property
    def loss_atoms(self):
        """Atoms at (k - 2 j) epsilon0, masses C(k, j) e^(-j epsilon0) / 2^k, j = 0..k."""
        lattice = self._tables.lattice
        return lattice.losses.copy(), lattice.masses.copy()

    @property
    def loss_mean(self):
        """E[L] = k (epsilon0 + e^-epsilon0 - 1), k times the KL divergence."""
        return self.k * laplace_kl(self.epsilon0)

    @property
    def _single_loss_std(self):
        return 2.0 * self.epsilon0 * math.sqrt(laplace_w_variance(self.epsilon0))

    @property
    def _support(self):
        return -self.max_loss, self.max_loss

    def exceeds(self, t):
        """P[L > t] under A(D1), from the tables."""
        return self._tables.exceeds(t)

    def exceeds_d2(self, t):
        """P[L > t] under A(D2), from the tables."""
        return self._tables.exceeds_d2(t)

    def hockey(self, t):
        """delta(t), for every real t, from the tables."""
        return self._tables.hockey(t)

    def quantile_from_top(self, p):
        """Smallest q with P[L > q] <= p, from the tables."""
        return self._tables.quantile(p)

    def continuous_exceeds(self, x):
        """P[L > x, L not an atom]: the continuous part of W below x's position."""
        return self._tables.w_below(self._tables.position(x))

    def continuous_cdf(self, x):
        """P[L <= x, L not an atom]: the continuous part of W above x's position."""
        return self._tables.w_above(self._tables.position(x))

    def loss_cdf(self, x):
        """P[L <= x] under A(D1), for any real x.

        Summed from the bottom: exact in the lower tail too.
        """
        x = checked_real("x", x)
        return check.scalar_or_array(self._clean(self._tables.at_most(x)))

    def at_most(self, x):
        """P[L <= x] under A(D1), summed from the bottom by the tables."""
        return self._tables.at_most(x)

    def quantile_from_bottom(self, alpha):
        """Smallest t with P[L <= t] >= alpha, exact for tiny alpha."""
        return self._tables.quantile_from_bottom(alpha)

    def loss_density(self, x):
        """Density of the continuous part of L at x (the atoms excluded)."""
        x = checked_real("x", x)
        return check.scalar_or_array(self._tables.density(x))

    def epsilon_for_delta(self, delta):
        """Smallest epsilon >= 0 whose delta is <= delta, vectorised.

        delta is known exactly at the atoms (k - 2 j) epsilon0; between the two that
        bracket the target, Newton steps within one piece, then a step to the safe side if
        round-off left delta a hair above the target.

        Args:
          delta: target delta(s), in (0, 1).
        """
        target = check.probability_open("delta", delta)
        epsilon = self._tables.epsilon_for(np.atleast_1d(target))
        return check.scalar_or_array(epsilon.reshape(target.shape))

    # The closed form, term by term -------------------------------------------------

    def closed_form_exceeds(self, epsilon):
        """P[L > epsilon] from the closed form (exact for k <= 12); vectorised."""
        epsilon = check.epsilon(epsilon)
        return check.scalar_or_array(
            self._clean(LaplaceClosedForm(self.epsilon0, self.k).exceeds(epsilon))
        )

    def closed_form_delta(self, epsilon):
        """delta(epsilon) from the closed form (exact for k <= 12); vectorised."""
        epsilon = check.epsilon(epsilon)
        return check.scalar_or_array(
            self._clean(LaplaceClosedForm(self.epsilon0, self.k).hockey(epsilon))
        )


class _LatticeComposition(ComposedPair):
    """A composition whose loss lives on a lattice, ``self._lattice``.

    The ``Lattice`` is set by the subclass: delta, P[L > x] and the quantiles are sums over
    its atoms.
    """

    @property
    def loss_atoms(self):
        """The lattice values (decreasing) and their masses under A(D1)."""
        return self._lattice.losses.copy(), self._lattice.masses.copy()

    @property
    def loss_mean(self):
        """E[L] = k times the KL divergence of one release."""
        values, masses = self.loss_atoms
        return float(np.einsum("i,i->", values, masses))

    @property
    def loss_std(self):
        """Standard deviation of L under A(D1), over the lattice's atoms."""
        values, masses = self.loss_atoms
        spread = np.einsum("i,i->", (values - self.loss_mean) ** 2, masses)
        return float(np.sqrt(max(spread, 0.0)))

    @property
    def _support(self):
        return -self.max_loss, self.max_loss

    def continuous_range(self, tail_mass):
        """(NaN, NaN): no continuous part."""
        return np.nan, np.nan

    def loss_density(self, x):
        """No continuous part: zeros."""
        return check.scalar_or_array(np.zeros(np.shape(checked_real("x", x))))

    def exceeds(self, x):
        """P[L > x] under A(D1), summed over the lattice."""
        return self._lattice.exceeds(x)

    def exceeds_d2(self, x):
        """P[L > x] under A(D2), summed over the lattice."""
        return self._lattice.exceeds_d2(x)

    def hockey(self, x):
        """delta(x), in the lattice's closed form."""
        return self._lattice.hockey(x)

    def at_most(self, x):
        """P[L <= x] under A(D1), summed from the lowest loss up."""
        return self._lattice.at_most(x)

    def quantile_from_bottom(self, alpha):
        """Smallest t with P[L <= t] >= alpha, from the lowest loss up."""
        return self._lattice.quantile_from_bottom(alpha)

    def loss_cdf(self, x):
        """P[L <= x] under A(D1), summed from the lowest loss up (exact in the lower tail)."""
        x = checked_real("x", x)
        return check.scalar_or_array(self._clean(self._lattice.at_most(x)))

    def _epsilon_for_one_delta(self, delta):
        return float(self._lattice.epsilon_for_delta(delta))

    def quantile_from_top(self, p):
        """Smallest q with P[L > q] <= p: a lattice loss."""
        lattice = self._lattice
        # Smallest q with P[L > q] <= p: the lattice loss where the cumulative mass first
        # reaches p from the top.
        n = np.searchsorted(lattice.above[1:], np.asarray(p), side="left")
        n = np.clip(n, 0, lattice.masses.size - 1)
        return lattice.losses[n]


class ComposedDiscreteLaplace(_LatticeComposition):
    """k discrete Laplace releases, by exact convolution on the loss lattice.

    One release's loss is (sensitivity - 2 o) / scale for o = 0..sensitivity (o <= 0 and
    o >= sensitivity clipped to the ends), so the k-fold loss lives on the lattice
    (k sensitivity - 2 O) / scale, O = 0..k sensitivity, and its masses are a k-fold
    discrete convolution, computed directly (no FFT, so tiny masses keep their precision).
    Offered for k * sensitivity < DISCRETE_LAPLACE_MAX_POINTS.

    Taught in: 08-add-up-privacy-losses.ipynb
    """

    def __init__(self, base, k):
        super().__init__(base, k)
        points = self.k * base.sensitivity + 1
        if self.k * base.max_loss > 1e300:
            raise ValueError(
                f"k * sensitivity / scale must be below 1e300 for a composed discrete Laplace "
                f"pair, got scale={base.scale!r}, k={k}"
            )
        if points > DISCRETE_LAPLACE_MAX_POINTS:
            raise ValueError(
                f"k must be <= {(DISCRETE_LAPLACE_MAX_POINTS - 1) // base.sensitivity} for a "
                f"composed discrete Laplace pair of sensitivity {base.sensitivity}, got {k}"
            )
        q = base.ratio
        sensitivity = base.sensitivity
        o = np.arange(sensitivity + 1)
        single = (1.0 - q) / (1.0 + q) * q**o
        single[0] = 1.0 / (1.0 + q)
        single[-1] = q**sensitivity / (1.0 + q)
        masses = _convolve_power(single, self.k)
        self._lattice = Lattice(self.k * sensitivity, 1.0 / base.scale, masses, stride=2)


class ComposedRandomizedResponse(_LatticeComposition):
    """k randomised responses: the simplest composition, a binomial lattice.

    One response's loss is +epsilon (probability t) or -epsilon, epsilon = ln(t / (1 - t)),
    so k of them have L = (k - 2 O) epsilon with O ~ Binomial(k, 1 - t) the number of
    -epsilon's: the lattice of lesson 08's optimal composition (Kairouz, Oh and
    Viswanath 2015), its masses the binomial law's (scipy's, to a few ulps even in the
    tails, in time linear in k). Offered for k < DISCRETE_LAPLACE_MAX_POINTS.

    Taught in: 00-see-why-answers-need-noise.ipynb, 08-add-up-privacy-losses.ipynb
    """

    def __init__(self, base, k):
        super().__init__(base, k)
        if self.k + 1 > DISCRETE_LAPLACE_MAX_POINTS:
            raise ValueError(
                f"k must be <= {DISCRETE_LAPLACE_MAX_POINTS - 1} for composed randomised "
                f"response, got {k}"
            )
        t = base.truth_probability
        # 1 - t is exact for t in [1/2, 1] (Sterbenz).
        masses = stats.binom.pmf(np.arange(self.k + 1), self.k, 1.0 - t)
        self._lattice = Lattice(self.k, base.max_loss, masses, stride=2)


#: Most atoms an exact composition of selections keeps (k-fold sums of a few losses).
SELECTION_MAX_ATOMS = 200_000


class ComposedSelection(ComposedPair):
    """k selections (``privacy_loss.SelectionPair``): a loss with finitely many atoms.

    The k-fold loss takes every sum of k single losses; its atoms are built by k - 1
    outer sums, merging sums equal to 1e-12 into their largest (the safe side), with
    masses under both A(D1) and A(D2) multiplied in log space. Offered while there are at
    most SELECTION_MAX_ATOMS of them; beyond, ``pld_bracket`` composes the single
    selection on a grid.

    Taught in: 12-choose-privately.ipynb
    """

    def __init__(self, base, k):
        super().__init__(base, k)
        values, log_d1, log_d2 = base._values, base._log_masses, base._log_masses_d2
        for _ in range(self.k - 1):
            sums = (values[:, None] + base._values[None, :]).ravel()
            first = (log_d1[:, None] + base._log_masses[None, :]).ravel()
            second = (log_d2[:, None] + base._log_masses_d2[None, :]).ravel()
            order = np.argsort(-sums, kind="stable")
            sums, first, second = sums[order], first[order], second[order]
            # A new atom wherever a sum is clearly below the previous one.
            gaps = sums[:-1] - sums[1:]
            new = np.concatenate([[True], gaps > 1e-12 * np.maximum(1.0, np.abs(sums[1:]))])
            starts = np.flatnonzero(new)
            if starts.size > SELECTION_MAX_ATOMS:
                raise ValueError(
                    f"k must be small enough that the composed selection has at most "
                    f"{SELECTION_MAX_ATOMS} loss values, got k={k} (use pld_bracket)"
                )
            values = sums[starts]
            group = np.cumsum(new) - 1
            log_d1 = _grouped_logsumexp(first, group, starts.size)
            log_d2 = _grouped_logsumexp(second, group, starts.size)
        self._values, self._log_masses, self._log_masses_d2 = values, log_d1, log_d2

    @property
    def loss_atoms(self):
        """The loss values (decreasing) and their masses under A(D1)."""
        return self._values.copy(), np.exp(self._log_masses)

    @property
    def loss_mean(self):
        """E[L] = k times one selection's KL divergence."""
        return self.k * self.base.loss_mean

    @property
    def _single_loss_std(self):
        values, masses = self.base.loss_atoms
        return float(np.sqrt(max(np.dot((values - self.base.loss_mean) ** 2, masses), 0.0)))

    @property
    def _support(self):
        return float(self._values[-1]), float(self._values[0])

    def continuous_range(self, tail_mass):
        """(NaN, NaN): no continuous part."""
        return np.nan, np.nan

    def loss_density(self, x):
        """No continuous part: zeros."""
        return check.scalar_or_array(np.zeros(np.shape(checked_real("x", x))))

    def exceeds(self, x):
        """P[L > x] under A(D1), summed over the atoms."""
        x = np.asarray(x, dtype=float)
        return ((self._values > x[..., None]) * np.exp(self._log_masses)).sum(axis=-1)

    def exceeds_d2(self, x):
        """P[L > x] under A(D2), summed over the atoms."""
        x = np.asarray(x, dtype=float)
        return ((self._values > x[..., None]) * np.exp(self._log_masses_d2)).sum(axis=-1)

    def hockey(self, x):
        """delta(x), summed over the atoms in log space."""
        with np.errstate(under="ignore"):
            return np.exp(privacy_loss.atoms_log_delta(self._values, self._log_masses, x))

    def quantile_from_top(self, p):
        """Smallest q with P[L > q] <= p: one of the loss values."""
        masses = np.exp(self._log_masses)
        above = np.concatenate([[0.0], np.cumsum(masses)[:-1]])
        index = np.searchsorted(above, np.asarray(p, dtype=float), side="right") - 1
        return self._values[np.clip(index, 0, self._values.size - 1)]


def _grouped_logsumexp(log_values, group, count):
    """logsumexp of log_values within each group (0 .. count - 1), in one pass."""
    peak = np.full(count, -np.inf)
    np.maximum.at(peak, group, log_values)
    safe_peak = np.where(np.isfinite(peak), peak, 0.0)
    with np.errstate(under="ignore"):
        totals = np.zeros(count)
        np.add.at(totals, group, np.exp(log_values - safe_peak[group]))
    with np.errstate(divide="ignore"):
        return np.log(totals) + safe_peak


def _convolve_power(single, k):
    """The k-fold convolution of a probability vector with itself, by repeated squaring."""
    result = np.array([1.0])
    power = single
    while True:
        if k & 1:
            result = np.convolve(result, power)
        k >>= 1
        if not k:
            return result
        power = np.convolve(power, power)


@functools.lru_cache(maxsize=128)
def _compose_cached(pair, k):
    if isinstance(pair, privacy_loss.GaussianNoise):
        return ComposedGaussian(pair, k)
    if isinstance(pair, privacy_loss.LaplaceNoise):
        return ComposedLaplace(pair, k)
    if isinstance(pair, privacy_loss.DiscreteLaplaceNoise):
        return ComposedDiscreteLaplace(pair, k)
    if isinstance(pair, privacy_loss.RandomizedResponse):
        return ComposedRandomizedResponse(pair, k)
    if isinstance(pair, privacy_loss.SelectionPair):
        return ComposedSelection(pair, k)
    raise ValueError(
        f"pair must be a Laplace, Gaussian, discrete Laplace, randomised response or "
        "selection pair, "
        f"got {pair!r} "
        "(composition of this pair is not supported)"
    )


def compose(pair, k):
    """The exact k-fold composition of a single-release pair.

    Args:
      pair: a pair from ``dplearn.privacy_loss``: ``laplace``, ``gaussian``,
        ``discrete_laplace``, ``randomized_response`` or a ``SelectionPair`` (others
        raise a ValueError).
      k: number of releases, a whole number >= 1.

    Returns:
      A ``ComposedPair`` with the interface of the single-release pairs.

    Taught in: 08-add-up-privacy-losses.ipynb, 09-count-privacy-with-an-accountant.ipynb
    """
    k = checked_k(k)
    if isinstance(pair, ComposedPair):
        return compose(pair.base, pair.k * k)
    if not isinstance(pair, privacy_loss.PrivacyLossPair):
        raise ValueError(f"pair must be a pair from dplearn.privacy_loss, got {pair!r}")
    return _compose_cached(pair, k)


def laplace_epsilon_for_delta(epsilon0, k, delta):
    """Exact epsilon at delta of k Laplace releases of epsilon0, for an array of k.

    epsilon0 is sensitivity / scale. One convolution pass serves every k (each k's law is a
    step of the next one's), then ``ComposedLaplace.epsilon_for_delta`` for each.

    Args:
      epsilon0: epsilon of one release, > 0 (the pair ``laplace(1 / epsilon0)``).
      k: numbers of releases, whole numbers in 1..LAPLACE_MAX_K (array or one).
      delta: the target delta, in (0, 1).

    Returns:
      epsilon for each k (an array like k, or a float).

    Taught in: 08-add-up-privacy-losses.ipynb
    """
    epsilon0 = checked_epsilon0(epsilon0)
    ks = np.asarray(checked_ks(k))
    delta = check.probability_open("delta", delta, scalar=True)
    if np.any(ks > LAPLACE_MAX_K):
        raise ValueError(
            f"k must be <= {LAPLACE_MAX_K}, got {check.describe(ks[ks > LAPLACE_MAX_K])}"
        )
    pair = privacy_loss.laplace(1.0 / epsilon0)
    wanted = sorted({int(value) for value in ks.ravel()})
    largest = wanted[-1]
    if (
        (pair.max_loss, largest) not in PIECES
        and largest * math.log(2.0 + pair.max_loss) < 600.0
        and pair.max_loss <= LAPLACE_MAX_EPSILON0
    ):
        PIECES[(pair.max_loss, largest)] = tilted_pieces_plain(
            pair.max_loss, largest, keep=frozenset(wanted)
        )
    values = {n: compose(pair, n).epsilon_for_delta(delta) for n in wanted}
    result = np.array([values[int(value)] for value in ks.ravel()], dtype=float)
    return check.scalar_or_array(result.reshape(ks.shape))
