"""Composition: the privacy loss of k releases, exactly, bounded, and as accountants compute it.

Run a mechanism k times with fresh, independent noise on the same neighbouring data sets
and publish every output: the density of the k outputs is the product of the k densities,
so the privacy loss of the k outputs is the *sum* L = L_1 + ... + L_k of the single-release
losses. Everything here is about the law of that sum:

- ``compose(pair, k)``: the exact k-fold composition of a pair from ``dplearn.privacy_loss``,
  with the same interface (``delta``, ``loss_exceeds``, ``loss_quantile``, ...).
  Gaussian: the Gaussian pair with sigma / sqrt(k). Laplace: a closed form (atoms plus
  exponentially tilted Irwin-Hall pieces, derived in ``ComposedLaplace``). Discrete
  Laplace: an exact convolution on its lattice.
- ``basic``, ``advanced``, ``optimal_delta``, ``optimal_epsilon``: what can be said from
  (epsilon0, delta0) alone (Dwork, Rothblum & Vadhan, "Boosting and differential privacy",
  2010; Kairouz, Oh & Viswanath, "The composition theorem for differential privacy", 2015;
  Murtagh & Vadhan, "The complexity of computing the optimal composition of differential
  privacy", 2016).
- ``pld``: a privacy loss distribution on a grid of width h, rounded up (pessimistic) or
  down (optimistic), composed by FFT, as in Meiser & Mohammadi ("Tight on budget?", 2018),
  Koskela, Jalko & Honkela ("Computing tight differential privacy guarantees using FFT",
  2020) and Google's dp_accounting; optionally the tighter pessimistic PLD of Doroshenko,
  Ghazi, Kamath, Kumar & Manurangsi ("Connect the dots", 2022).
- ``tradeoff``, ``gaussian_tradeoff``, ``gaussian_dp_mu``, ``clt_mu``: the hypothesis-test
  view (Dong, Roth & Su, "Gaussian differential privacy", 2019).

Conventions: A(D1) is the reference distribution, L = ln(dA(D1) / dA(D2)) with outputs drawn
from A(D1); delta(epsilon) = E[max(0, 1 - exp(epsilon - L))] (the area, delta_2) and
loss_exceeds(epsilon) = P[L > epsilon] (the width, delta_1).

Taught in: 08-add-up-privacy-losses.ipynb, 09-count-privacy-with-an-accountant.ipynb
"""

from __future__ import annotations

import collections
import functools
import math
import threading

import numpy as np
from scipy import fft, signal, special, stats

from dplearn import _validation as check
from dplearn import privacy_loss

__all__ = [
    "ComposedPair",
    "ComposedGaussian",
    "ComposedLaplace",
    "ComposedDiscreteLaplace",
    "compose",
    "laplace_epsilon_for_delta",
    "basic",
    "advanced",
    "advanced_delta",
    "optimal_delta",
    "optimal_epsilon",
    "first_advanced_win",
    "PrivacyLossDistribution",
    "PLDBracket",
    "pld",
    "pld_bracket",
    "gaussian_tradeoff",
    "tradeoff",
    "gaussian_dp_mu",
    "clt_mu",
    "clt_gap",
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
#: Largest PLD (number of grid points) built or composed.
PLD_MAX_POINTS = 2**23


def _k(k):
    if type(k) is int and k >= 1:  # the common case, without array conversions
        return k
    return check.positive_integer("k", k)


def _positive(name, value):
    """check.positive for one number (a plain float > 0 passes straight through)."""
    if type(value) is float and 0.0 < value < math.inf:
        return value
    return check.positive(name, value, scalar=True)


def _real(name, value):
    """Any real number or array (infinities allowed), not NaN."""
    array = check._as_float_array(name, value)
    if np.any(np.isnan(array)):
        raise ValueError(f"{name} must not be NaN, got {value!r}")
    return array


# ----------------------------------------------------------------------------------------
# Exact k-fold composition
# ----------------------------------------------------------------------------------------


class ComposedPair(privacy_loss.PrivacyLossPair):
    """The k-fold composition of a single-release pair: L is the sum of k independent losses.

    Subclasses supply, for any real x, ``_exceeds(x)`` = P[L > x] under A(D1),
    ``_exceeds_d2(x)`` = P[L > x] under A(D2) and ``_hockey(x)`` =
    E[max(0, 1 - exp(x - L))] (delta, extended to negative x); the public methods check
    their arguments and call them.

    Attributes:
      base: the single-release pair.
      k: the number of releases.

    Taught in: 08-add-up-privacy-losses.ipynb
    """

    def __init__(self, base, k):
        self.base = base
        self.k = _k(k)

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
        return check.scalar_or_array(self._clean(self._hockey(epsilon)))

    def log_delta(self, epsilon):
        """Natural log of ``delta(epsilon)``; -inf where delta is 0."""
        epsilon = check.epsilon(epsilon)
        with np.errstate(divide="ignore"):
            return check.scalar_or_array(np.log(self._clean(self._hockey(epsilon))))

    def loss_exceeds(self, epsilon):
        """delta_1 = P[L > epsilon] with outputs drawn from A(D1), vectorised.

        Args:
          epsilon: loss level(s), >= 0.
        """
        epsilon = check.epsilon(epsilon)
        return check.scalar_or_array(self._clean(self._exceeds(epsilon)))

    def loss_cdf(self, x):
        """P[L <= x] under A(D1), for any real x, vectorised."""
        x = _real("x", x)
        return check.scalar_or_array(self._clean(1.0 - self._exceeds(x)))

    def loss_quantile(self, p):
        """L at probability position p in [0, 1], outputs sorted by decreasing L.

        The smallest value q with P[L > q] <= p (so atoms give flat steps), vectorised.
        """
        p = check.probability_closed("p", p)
        return check.scalar_or_array(self._quantile(p))

    # The continuous part of L, for discretising it (``pld``) ---------------------------

    _continuous_median = 0.0

    def _continuous_range(self, tail_mass):
        """Where the continuous part lives (NaN, NaN if there is none)."""
        return -self.max_loss, self.max_loss

    def _atoms_exceeding(self, x):
        values, masses = self.loss_atoms
        x = np.asarray(x, dtype=float)
        return np.einsum("...i,i->...", (values > x[..., None]).astype(float), masses)

    def _continuous_exceeds(self, x):
        return np.maximum(self._exceeds(x) - self._atoms_exceeding(x), 0.0)

    def _continuous_cdf(self, x):
        total = 1.0 - float(self.loss_atoms[1].sum())
        return np.maximum(total - self._continuous_exceeds(x), 0.0)

    def _at_most(self, x):
        """P[L <= x] under A(D1) (subclasses sum it from the bottom where they can)."""
        return 1.0 - self._exceeds(x)

    def _quantile_from_bottom(self, alpha):
        """Smallest t with P[L <= t] >= alpha (subclasses: exact for tiny alpha)."""
        return self._quantile(1.0 - np.asarray(alpha, dtype=float))

    def _clean(self, value):
        return np.clip(np.nan_to_num(np.asarray(value, dtype=float), nan=0.0), 0.0, 1.0)

    def _quantile(self, p):
        """Bisection on P[L > q] = p over the support, all positions at once."""
        p = np.asarray(p, dtype=float)
        low, high = self._support
        low = np.full(p.shape, low)
        high = np.full(p.shape, high)
        for _ in range(64):
            middle = 0.5 * (low + high)
            above = self._exceeds(middle) > p
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
        """Tight delta at epsilon: the closed form of the Gaussian pair with sigma / sqrt(k),
        Phi(r/2 - epsilon/r) - e^epsilon Phi(-r/2 - epsilon/r), r = sqrt(k) sensitivity / sigma
        (Balle & Wang, "Improving the Gaussian mechanism for differential privacy", 2018),
        as ``privacy_loss`` evaluates it for every epsilon and sigma."""
        return self.equivalent.delta(epsilon)

    def log_delta(self, epsilon):
        """ln delta, accurate where delta itself underflows."""
        return self.equivalent.log_delta(epsilon)

    def epsilon_for_delta(self, delta):
        """Smallest epsilon >= 0 whose delta is <= delta: the equivalent pair's root, then
        stepped by ulps to the smallest epsilon whose delta, as ``delta`` computes it, is
        not above the target."""
        epsilon = np.atleast_1d(np.asarray(self.equivalent.epsilon_for_delta(delta), float))
        target = np.atleast_1d(check.probability_open("delta", delta))
        for _ in range(64):
            high = np.isfinite(epsilon) & (np.asarray(self.delta(epsilon)) > target)
            if not np.any(high):
                break
            epsilon = np.where(high, np.nextafter(epsilon, np.inf), epsilon)
        for _ in range(64):  # and down while this delta allows it: the smallest such epsilon
            lower = np.maximum(np.nextafter(epsilon, 0.0), 0.0)
            fine = np.isfinite(epsilon) & (epsilon > 0) & (np.asarray(self.delta(lower)) <= target)
            if not np.any(fine):
                break
            epsilon = np.where(fine, lower, epsilon)
        return check.scalar_or_array(epsilon.reshape(np.shape(delta)))

    def loss_quantile(self, p):
        """L at probability position p: k mu - sqrt(2 k mu) Phi^-1(p)."""
        return self.equivalent.loss_quantile(p)

    def loss_density(self, x):
        """Density of L ~ N(k mu, 2 k mu) at x."""
        x = _real("x", x)
        r = self._ratio
        with np.errstate(under="ignore", over="ignore"):
            density = np.exp(-0.5 * ((x - self.loss_mean) / r) ** 2) / (r * math.sqrt(2 * np.pi))
        return check.scalar_or_array(density)

    def loss_cdf(self, x):
        """P[L <= x] = Phi((x - k mu) / sqrt(2 k mu))."""
        x = _real("x", x)
        return check.scalar_or_array(self._continuous_cdf(x))

    def _exceeds(self, x):
        with np.errstate(over="ignore", invalid="ignore"):  # tiny ratio: +-inf, Phi is 0 or 1
            return special.ndtr((self.loss_mean - x) / self._ratio)

    _continuous_exceeds = _exceeds

    def _continuous_cdf(self, x):
        with np.errstate(over="ignore", invalid="ignore"):
            return special.ndtr((x - self.loss_mean) / self._ratio)

    _at_most = _continuous_cdf

    @property
    def _continuous_median(self):
        return self.loss_mean

    def _continuous_range(self, tail_mass):
        spread = -special.ndtri(tail_mass) * self._ratio
        return self.loss_mean - spread, self.loss_mean + spread

    def _exceeds_d2(self, x):
        # Under A(D2) the loss is N(-k mu, 2 k mu).
        with np.errstate(over="ignore", invalid="ignore"):
            return special.ndtr((-self.loss_mean - x) / self._ratio)

    def _hockey(self, x):
        x = np.asarray(x, dtype=float)
        result = np.empty(x.shape)
        positive = x >= 0
        result[positive] = np.exp(privacy_loss.gaussian_log_delta(x[positive], self._ratio))
        # Below 0: delta(x) = P1[L > x] - e^x P2[L > x], with no cancellation to fear.
        negative = ~positive
        with np.errstate(under="ignore", over="ignore"):
            result[negative] = self._exceeds(x[negative]) - np.exp(x[negative]) * (
                self._exceeds_d2(x[negative])
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
            _SingleLaplaceTables(self.epsilon0)
            if self.k == 1
            else _LaplaceTables(self.epsilon0, self.k)
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
        return self.k * _laplace_kl(self.epsilon0)

    @property
    def _single_loss_std(self):
        return 2.0 * self.epsilon0 * math.sqrt(_laplace_w_variance(self.epsilon0))

    @property
    def _support(self):
        return -self.max_loss, self.max_loss

    def _exceeds(self, t):
        return self._tables.exceeds(t)

    def _exceeds_d2(self, t):
        return self._tables.exceeds_d2(t)

    def _hockey(self, t):
        return self._tables.hockey(t)

    def _quantile(self, p):
        return self._tables.quantile(p)

    def _continuous_exceeds(self, x):
        return self._tables.w_below(self._tables._x(x))

    def _continuous_cdf(self, x):
        return self._tables.w_above(self._tables._x(x))

    def loss_cdf(self, x):
        """P[L <= x] under A(D1), for any real x (summed from the bottom: exact in the
        lower tail too)."""
        x = _real("x", x)
        return check.scalar_or_array(self._clean(self._tables.at_most(x)))

    def _at_most(self, x):
        return self._tables.at_most(x)

    def _quantile_from_bottom(self, alpha):
        return self._tables.quantile_from_bottom(alpha)

    def loss_density(self, x):
        """Density of the continuous part of L at x (the atoms excluded)."""
        x = _real("x", x)
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
            self._clean(_LaplaceClosedForm(self.epsilon0, self.k).exceeds(epsilon))
        )

    def closed_form_delta(self, epsilon):
        """delta(epsilon) from the closed form (exact for k <= 12); vectorised."""
        epsilon = check.epsilon(epsilon)
        return check.scalar_or_array(
            self._clean(_LaplaceClosedForm(self.epsilon0, self.k).hockey(epsilon))
        )


@functools.lru_cache(maxsize=32)
def _closed_form_table(k):
    """A(m, j) = C(k, m) [z^j] (1 - z)^m (1 + z)^(k - m), m = 1..k (rows), j = 0..k, from
    exact integers."""
    table = np.zeros((k, k + 1))
    for m in range(1, k + 1):
        row = [0] * (k + 1)
        for i in range(m + 1):
            for c in range(k - m + 1):
                row[i + c] += (-1) ** i * math.comb(m, i) * math.comb(k - m, c)
        table[m - 1] = [math.comb(k, m) * value for value in row]
    return table


class _LaplaceClosedForm:
    """The closed form of ``ComposedLaplace``'s docstring, evaluated as written."""

    def __init__(self, epsilon0, k):
        self.epsilon0, self.k = epsilon0, k
        self.table = _closed_form_table(k)
        self.orders = np.arange(1, k + 1, dtype=float)
        self.binomials = np.array([math.comb(k, j) for j in range(k + 1)], dtype=float)
        self.log_scale = -k * math.log(2.0) - np.arange(k + 1) * epsilon0

    def _pieces(self, t):
        e0 = self.epsilon0
        with np.errstate(over="ignore", invalid="ignore"):
            x = (self.k * e0 - np.asarray(t, dtype=float)) / (2.0 * e0)
        x = np.clip(np.nan_to_num(x, nan=0.0), -1.0, self.k + 1.0)
        gaps = x[..., None] - np.arange(self.k + 1)
        inside = gaps > 0
        y = e0 * np.where(inside, gaps, 0.0)
        return inside, y, special.gammainc(self.orders, y[..., None])

    def _atom_gaps(self, t):
        """t - L_j for the atoms L_j = (k - 2 j) epsilon0, compared as loss values."""
        losses = (self.k - 2 * np.arange(self.k + 1)) * self.epsilon0
        return np.asarray(t, dtype=float)[..., None] - losses

    def exceeds(self, t):
        inside, y, incomplete = self._pieces(t)
        continuous = np.einsum("...jm,mj->...j", incomplete, self.table)
        atoms = np.where(self._atom_gaps(t) < 0, self.binomials, 0.0)
        terms = atoms + np.where(inside, continuous, 0.0)
        return np.einsum("...j,j->...", terms, np.exp(self.log_scale))

    def hockey(self, t):
        inside, y, incomplete = self._pieces(t)
        log_k = _log_exp_gamma_integral(self.orders, y[..., None])
        with np.errstate(under="ignore"):
            weighted = incomplete - np.exp(log_k - 2.0 * y[..., None])
        continuous = np.einsum("...jm,mj->...j", weighted, self.table)
        gaps = self._atom_gaps(t)
        with np.errstate(invalid="ignore"):
            atoms = np.where(gaps < 0, self.binomials * -np.expm1(np.minimum(gaps, 0.0)), 0.0)
        terms = atoms + np.where(inside, continuous, 0.0)
        return np.einsum("...j,j->...", terms, np.exp(self.log_scale))


def _log_exp_gamma_integral(m, y):
    """ln K(m, y), K(m, y) = int_0^y e^g g^(m-1) / (m-1)! dg = y^m / m! 1F1(m; m+1; y).

    Through scipy's hyp1f1 up to y = 500; beyond, the finite asymptotic sum
    e^y sum_i (-1)^i y^(m-1-i) / (m-1-i)! (the rest is below e^-y relative).
    """
    m, y = np.broadcast_arrays(np.asarray(m, dtype=float), np.asarray(y, dtype=float))
    result = np.full(y.shape, -np.inf)
    small = (y > 0) & (y <= 500.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        result[small] = (
            m[small] * np.log(y[small])
            - special.gammaln(m[small] + 1)
            + np.log(special.hyp1f1(m[small], m[small] + 1, y[small]))
        )
    large = y > 500.0
    if np.any(large):
        mm, yy = m[large], y[large]
        total = np.zeros(yy.shape)
        term = np.ones(yy.shape)
        for i in range(int(mm.max())):
            total += np.where(i < mm, term, 0.0)
            term = term * -(mm - 1 - i) / yy
        result[large] = yy + (mm - 1) * np.log(yy) - special.gammaln(mm) + np.log(total)
    return result


_PIECES = collections.OrderedDict()  # (epsilon0, k) -> pieces, least recently used first
_PIECES_KEPT = 48


def _tilted_pieces(epsilon0, k):
    """Cached ``_tilted_pieces_uncached``."""
    key = (epsilon0, k)
    if key in _PIECES:
        _PIECES.move_to_end(key)
        return _PIECES[key]
    _PIECES[key] = pieces = _tilted_pieces_uncached(epsilon0, k)
    while len(_PIECES) > _PIECES_KEPT:
        _PIECES.popitem(last=False)
    return pieces


def _tilted_pieces_uncached(epsilon0, k):
    """The continuous part of nu^(*k), nu = (delta_0 + delta_1) / 2 + (epsilon0 / 2) U(0, 1).

    The law of W under A(D1) is e^(-epsilon0 w) nu(dw) (one release), so the k-fold law is
    e^(-epsilon0 w) nu^(*k)(dw), and nu^(*k) is piecewise polynomial of degree k - 1 on
    the unit intervals [n, n + 1]. Each piece is kept in the Bernstein basis, whose
    coefficients here are all >= 0: a convolution step (nu^(*k) = nu^(*(k-1)) * nu) only
    adds, averages (degree elevation) and takes partial sums (integration) of them, so
    no cancellation occurs at any k. Each piece carries a log scale (no overflow).

    Returns:
      (coefficients (k, k), log_scales (k,)): piece n is
      exp(log_scales[n]) sum_i coefficients[n, i] C(k-1, i) s^i (1 - s)^(k-1-i), s = w - n.
    """
    if k * math.log(2.0 + epsilon0) < 600.0:
        return _tilted_pieces_plain(epsilon0, k)
    if epsilon0 not in _TILTED_CHECKPOINTS and len(_TILTED_CHECKPOINTS) >= 8:
        # Keep the memory bounded: forget the oldest epsilon0.
        _TILTED_CHECKPOINTS.pop(next(iter(_TILTED_CHECKPOINTS)))
    checkpoints = _TILTED_CHECKPOINTS.setdefault(epsilon0, {})
    start = max((size for size in checkpoints if size <= k), default=None)
    if start is None:
        start, state = 1, (np.ones((1, 1)), np.array([math.log(epsilon0 / 2.0)]))
    else:
        state = checkpoints[start]
    for size in range(start + 1, k + 1):
        state = _tilted_step(epsilon0, *state)
        if size % _CHECKPOINT_EVERY == 0:
            checkpoints[size] = state
    return state


def _tilted_pieces_plain(epsilon0, k, keep=()):
    """``_tilted_pieces`` for the normalised nu / (1 + epsilon0 / 2) in plain floats, without
    per-piece scales: exact as long as its smallest piece, about (2 + epsilon0)^-k, stays far
    above the float range's end (k ln(2 + epsilon0) < 600), and several times faster.

    nu is symmetric about 1/2, so nu^(*k) is symmetric about k / 2 (piece k - 1 - n is piece
    n reversed): only the lower half of the pieces is carried through the steps.
    """
    atom = 1.0 / (2.0 + epsilon0)  # nu-tilde: atoms `atom` at 0 and 1, and a uniform
    uniform = epsilon0 / (2.0 + epsilon0)  # of mass `uniform` on (0, 1)
    half = np.full((1, 1), uniform)  # pieces 0 .. ceil(size / 2) - 1
    atoms = np.array([atom, atom])  # atoms of nu-tilde^(*size) at 0..size
    for size in range(2, k + 1):
        old = size - 1
        needed = (size + 1) // 2  # new pieces 0 .. needed - 1
        if needed > half.shape[0]:  # the middle old piece, as the mirror of its twin
            half = np.vstack([half, half[old - needed][::-1]])
        b = half[:needed]
        weights = np.arange(old + 1) / old
        elevated = np.zeros((needed, old + 1))
        elevated[:, 1:] = (atom * weights[1:]) * b
        elevated[:, :-1] += (atom * (1.0 - weights[:-1])) * b
        below = np.zeros((needed, old + 1))  # partial sums of b below i
        np.cumsum(b, axis=1, out=below[:, 1:])
        above = np.zeros((needed, old + 1))  # partial sums from i, summed from the right
        np.cumsum(b[:, ::-1], axis=1, out=above[:, -2::-1])
        scale = uniform / old
        new = np.empty((needed, size))
        new[:] = (uniform * atoms[:needed])[:, None]  # an atom of the sum, then the uniform
        new += elevated  # this release's W = 0 ...
        new += scale * below  # ... or its uniform reaching back into piece n
        new[1:] += elevated[:-1]  # W = 1 ...
        new[1:] += scale * above[:-1]  # ... or the uniform reaching over from piece n - 1
        half = new
        atoms = atom * (np.concatenate([atoms, [0.0]]) + np.concatenate([[0.0], atoms]))
        if size in keep and size < k:
            _PIECES[(epsilon0, size)] = _unfold(half, size, epsilon0)
    return _unfold(half, k, epsilon0)


def _unfold(half, k, epsilon0):
    """All k pieces from the lower half (piece k - 1 - n is piece n reversed)."""
    coefficients = np.empty((k, k))
    coefficients[: half.shape[0]] = half
    mirrored = k - half.shape[0]
    coefficients[half.shape[0] :] = half[:mirrored][::-1, ::-1]
    log_scales = np.full(k, k * math.log1p(epsilon0 / 2.0))
    return coefficients, log_scales


_TILTED_CHECKPOINTS = {}
_CHECKPOINT_EVERY = 8


def _tilted_step(epsilon0, coefficients, log_scales):
    """nu^(*size) from nu^(*(size - 1)), both as (Bernstein coefficients, log scales)."""
    size = coefficients.shape[0] + 1
    old = size - 1  # old pieces, each with `old` coefficients (degree old - 1)
    b = coefficients
    i = np.arange(old + 1)
    padded = np.zeros((old, old + 2))
    padded[:, 1:-1] = b
    # Degree elevation: c_i = (i / old) b_(i-1) + (1 - i / old) b_i.
    elevated = (i / old) * padded[:, :-1][:, : old + 1] + (1 - i / old) * padded[:, 1:]
    cumulative = np.concatenate([np.zeros((old, 1)), np.cumsum(b, axis=1)], axis=1)
    low = cumulative / old  # int_0^t: partial sums below i
    # int_t^1: partial sums from i, summed from the right end (no difference of sums).
    high = np.concatenate([np.cumsum(b[:, ::-1], axis=1)[:, ::-1], np.zeros((old, 1))], 1) / old
    # Atoms of nu^(*old): C(old, j) / 2^old at j = 0..old; each convolved with
    # (epsilon0 / 2) U(0, 1) adds a constant on piece j.
    j = np.arange(old + 1)
    log_atoms = (
        special.gammaln(old + 1)
        - special.gammaln(j + 1)
        - special.gammaln(old - j + 1)
        - old * math.log(2.0)
        + math.log(epsilon0 / 2.0)
    )
    # New piece n: from old piece n (same place), old piece n - 1 (shifted by the
    # atom at 1 or reaching over from the uniform) and the atom at n.
    same = 0.5 * elevated + 0.5 * epsilon0 * low
    shifted = 0.5 * elevated + 0.5 * epsilon0 * high
    scale_same = np.concatenate([log_scales, [-np.inf]])
    scale_shifted = np.concatenate([[-np.inf], log_scales])
    new_scale = np.maximum(np.maximum(scale_same, scale_shifted), log_atoms)
    with np.errstate(under="ignore"):
        weight_same = np.exp(scale_same - new_scale)[:, None]
        weight_shifted = np.exp(scale_shifted - new_scale)[:, None]
        weight_atom = np.exp(log_atoms - new_scale)[:, None]
    new = np.zeros((size, size))
    new[:-1] += weight_same[:-1] * same
    new[1:] += weight_shifted[1:] * shifted
    new += weight_atom
    peak = new.max(axis=1)
    coefficients = new / peak[:, None]
    log_scales = new_scale + np.log(peak)
    return coefficients, log_scales


@functools.lru_cache(maxsize=64)
def _bernstein_basis(degree, size, cell=0, cells=1):
    """B_i^degree(s) (columns i = 0..degree) at the Chebyshev points of cell ``cell`` of
    [0, 1] cut into ``cells`` equal cells (rows)."""
    sigma = (np.cos(np.pi * (np.arange(size) + 0.5) / size) + 1.0) / 2.0
    s = (cell + sigma) / cells
    basis = stats.binom.pmf(np.arange(degree + 1)[None, :], degree, s[:, None])
    basis.setflags(write=False)
    return basis


def _chebyshev_coefficients(values):
    """Chebyshev coefficients (last axis) from values at the Chebyshev points of the first
    kind, cos(pi (j + 1/2) / M), j = 0..M-1."""
    size = values.shape[-1]
    coefficients = fft.dct(values, type=2, axis=-1) / size
    coefficients[..., 0] /= 2.0
    return coefficients


@functools.lru_cache(maxsize=64)
def _chebyshev_nodes(points):
    """Chebyshev points of the first kind cos(pi (j + 1/2) / P) and their barycentric
    weights (-1)^j sin(pi (j + 1/2) / P) (Berrut & Trefethen, "Barycentric Lagrange
    interpolation", 2004)."""
    angles = np.pi * (np.arange(points) + 0.5) / points
    nodes, weights = np.cos(angles), (-1.0) ** np.arange(points) * np.sin(angles)
    nodes.setflags(write=False)
    weights.setflags(write=False)
    return nodes, weights


def _integral_values(values):
    """Values at the Chebyshev points of int_0^tau f, from f's values there (tau = (u + 1)
    / 2), and the whole integral int_0^1 f. The degree-P term the integration adds
    vanishes at the P points and is below round-off when P leaves room (it does here)."""
    points = values.shape[-1]
    coefficients = _chebyshev_integral(_chebyshev_coefficients(values))
    total = coefficients.sum(axis=-1)  # T_m(1) = 1
    return _chebyshev_values(coefficients[..., :points]), total


def _chebyshev_integral(coefficients):
    """Coefficients of int_0^tau, tau = (u + 1) / 2, of a Chebyshev series in u (last
    axis), one degree more: b_m = (c'_(m-1) - c_(m+1)) / (2 m), c'_0 = 2 c_0, then b_0 so
    that the integral is 0 at u = -1 (numpy's chebint, without its loop over terms)."""
    shape = coefficients.shape[:-1]
    size = coefficients.shape[-1]
    padded = np.concatenate([coefficients, np.zeros(shape + (2,))], axis=-1)
    previous = padded[..., : size + 1].copy()
    previous[..., 0] *= 2.0
    m = np.arange(1, size + 1)
    result = np.empty(shape + (size + 1,))
    result[..., 1:] = (previous[..., :size] - padded[..., 2 : size + 2]) / (2.0 * m)
    result[..., 0] = -(result[..., 1:] * (-1.0) ** m).sum(axis=-1)
    return 0.5 * result


def _chebyshev_values(coefficients):
    """Values at the Chebyshev points of the first kind of Chebyshev series (last axis,
    as many points as coefficients), by a type-III DCT."""
    halved = coefficients.copy()
    halved[..., 1:] /= 2.0
    return fft.dct(halved, type=3, axis=-1)


def _barycentric(nodes, weights, tables, rows, u):
    """The interpolants through ``tables[rows]`` (values at ``nodes``) at u, one row per
    point, by the second barycentric formula: stable at Chebyshev points, and the same
    arithmetic for a point alone or in an array."""
    u = np.asarray(u, dtype=float)
    difference = u[..., None] - nodes
    difference = np.where(difference == 0.0, 1e-300, difference)  # exactly on a node
    ratio = weights / difference
    total = ratio.sum(axis=-1)
    return [(ratio * table[rows]).sum(axis=-1) / total for table in tables]


def _smallest_safe(delta, epsilon, target, top):
    """The smallest epsilon in [0, top] with delta(epsilon) <= target, from a close guess:
    ulp steps up, then down, and where a few steps do not settle it, bisection on the
    floats themselves (their bit patterns are ordered), which ends in 64 steps."""
    epsilon = np.asarray(epsilon, dtype=float).copy()
    for _ in range(8):
        high = delta(epsilon) > target
        if not np.any(high):
            break
        epsilon = np.where(high, np.nextafter(epsilon, np.inf), epsilon)
    for _ in range(8):
        lower = np.maximum(np.nextafter(epsilon, 0.0), 0.0)
        fine = (epsilon > 0) & (delta(lower) <= target)
        if not np.any(fine):
            break
        epsilon = np.where(fine, lower, epsilon)
    lower = np.maximum(np.nextafter(epsilon, 0.0), 0.0)
    unsettled = (delta(epsilon) > target) | ((epsilon > 0) & (delta(lower) <= target))
    if np.any(unsettled):
        # Bracket: low has delta > target (or is -1 for "none"), high has delta <= target.
        good = delta(epsilon) <= target
        high = np.where(good, epsilon, top).view(np.int64).copy()
        low = np.where(good, -1, epsilon.view(np.int64))
        low = np.where(good & (delta(np.zeros_like(epsilon)) <= target), -1, low)
        for _ in range(70):
            if not np.any(high - low > 1):
                break
            middle = np.maximum(low + (high - low) // 2, 0)
            value = delta(middle.view(np.float64))
            moving = high - low > 1
            high = np.where(moving & (value <= target), middle, high)
            low = np.where(moving & (value > target), middle, low)
        epsilon = np.where(unsettled, high.view(np.float64), epsilon)
    return epsilon


class _LaplaceTables:
    """P[L > t], delta(t), the density and the quantile of k Laplace releases, from the
    Bernstein pieces of ``_tilted_pieces``.

    On each unit piece the law of W is an exact polynomial times e^(-epsilon0 w). Each
    piece is split into S = ceil(epsilon0) cells, so that the exponential varies by at
    most a factor e per cell, and on each cell the integrals the methods need are
    tabulated once at Chebyshev points (degree k + 32 + 3 epsilon0 / S), evaluated by
    barycentric interpolation: accurate to a few ulps of each cell's mass.
    """

    def __init__(self, epsilon0, k):
        self.epsilon0, self.k = epsilon0, k
        self.sub = max(1, int(math.ceil(epsilon0)))
        self.cells = k * self.sub
        self.rate = epsilon0 / self.sub  # the exponential's rate in a cell's own variable
        coefficients, log_scales = _tilted_pieces(epsilon0, k)
        points = k + 32 + int(math.ceil(3.0 * self.rate))
        self.nodes, self.node_weights = _chebyshev_nodes(points)
        sigma = (self.nodes + 1.0) / 2.0
        # (k, S, points): each piece's polynomial at each cell's nodes (einsum, not BLAS).
        values = np.stack(
            [
                np.einsum("ni,mi->nm", coefficients, _bernstein_basis(k - 1, points, q, self.sub))
                for q in range(self.sub)
            ],
            axis=1,
        ).reshape(self.cells, points)
        cell = np.arange(self.cells)
        self.log_factor = np.repeat(log_scales, self.sub) - epsilon0 * cell / self.sub
        with np.errstate(under="ignore"):
            self.factor = np.exp(self.log_factor)
        rate = self.rate
        # Per cell, at the nodes: the density g (per unit of W), its integral F from the
        # cell's start, R = int e^(2 rate sigma) dF, and C = int_0^sigma e^(2 rate s) F ds,
        # with which E(sigma) = 2 rate e^(-2 rate sigma) C(sigma), a sum of positive terms.
        self.density_values = values * np.exp(-rate * sigma)
        lower, lower_total = _integral_values(self.density_values)
        self.lower_values = lower / self.sub
        self._sigma = sigma
        self.spread_values, spread_total = _integral_values(
            self.lower_values * np.exp(2.0 * rate * sigma)
        )
        cell_mass = self.factor * np.maximum(lower_total, 0.0) / self.sub
        # E_c(1), for the recurrence over cells.
        self._whole = self.factor * 2.0 * rate * math.exp(-2.0 * rate) * np.maximum(spread_total, 0)
        self._cdf_grid = None
        self._finish(cell_mass)

    @functools.cached_property
    def raised_values(self):
        """R_c at the nodes: int_0^sigma e^(2 rate s) dF_c(s) (for Newton slopes only)."""
        raised, _ = _integral_values(self.density_values * np.exp(2.0 * self.rate * self._sigma))
        return raised / self.sub

    @property
    def cdf_grid(self):
        """F_c at 17 equally spaced points of every cell (where quantiles start)."""
        if self._cdf_grid is None:
            grid = np.linspace(-1.0, 1.0, 17)
            rows = np.broadcast_to(np.arange(self.cells)[:, None], (self.cells, grid.size))
            (cdf,) = _barycentric(self.nodes, self.node_weights, [self.lower_values], rows, grid)
            cdf = self.factor[:, None] * np.maximum(cdf, 0.0)
            cdf[:, 0], cdf[:, -1] = 0.0, self.cell_mass
            self._cdf_grid = cdf
        return self._cdf_grid

    def _finish(self, cell_mass):
        """Cumulative sums over cells and atoms, and delta at the cells' edges."""
        epsilon0, k = self.epsilon0, self.k
        self.cell_mass = cell_mass
        # Atoms of W: C(k, j) e^(-j epsilon0) / 2^k at j.
        j = np.arange(k + 1)
        log_atoms = (
            special.gammaln(k + 1)
            - special.gammaln(j + 1)
            - special.gammaln(k - j + 1)
            - k * math.log(2.0)
            - j * epsilon0
        )
        with np.errstate(under="ignore"):
            self.atoms = np.exp(log_atoms)
        self.below = np.concatenate([[0.0], np.cumsum(cell_mass)])  # cells before c
        self.beyond = np.concatenate([np.cumsum(cell_mass[::-1])[::-1], [0.0]])  # from c
        self.atoms_before = np.concatenate([[0.0], np.cumsum(self.atoms)])  # j < n
        self.atoms_from = np.concatenate([np.cumsum(self.atoms[::-1])[::-1], [0.0]])  # j >= n
        # delta of the continuous part at each cell's start x = c / S, by the positive
        # recurrence T_(c+1) = e^(-2 rate) T_c + (1 - e^(-2 rate)) below[c] + E_c(1).
        whole = getattr(self, "_whole", None)
        if whole is None:
            whole = self._in_piece_delta(np.arange(self.cells), np.ones(self.cells))
        decay = math.exp(-2.0 * self.rate)
        drive = -math.expm1(-2.0 * self.rate) * self.below[:-1] + whole
        self.at_cells = np.concatenate([[0.0], signal.lfilter([1.0], [1.0, -decay], drive)])
        self.lattice = _Lattice(k, epsilon0, self.atoms, stride=2)
        # delta at every cell's start (the atoms' deltas where the cell starts on one).
        starts = np.arange(self.cells + 1)
        losses = k * epsilon0 - 2.0 * epsilon0 * starts / self.sub
        losses[:: self.sub] = self.lattice.losses  # exactly the atoms
        self.delta_at_cells = np.maximum.accumulate(self.lattice.hockey(losses) + self.at_cells)

    def _evaluate(self, tables, c, sigma):
        return _barycentric(self.nodes, self.node_weights, tables, c, 2.0 * sigma - 1.0)

    def _partial(self, c, sigma):
        """F_c(sigma): the A(D1) mass of W from cell c's start to sigma (in [0, 1])."""
        (lower,) = self._evaluate([self.lower_values], c, sigma)
        return self.factor[c] * np.maximum(lower, 0.0)

    def _piece_density(self, c, sigma):
        """The A(D1) density of W, per unit of W, at sigma in cell c."""
        (density,) = self._evaluate([self.density_values], c, sigma)
        return self.factor[c] * np.maximum(density, 0.0)

    def _in_piece_delta(self, c, sigma):
        """E_c(sigma) = int (1 - e^(-2 e0 (x - w))) dP(w) over cell c up to x: E' = 2 rate
        (F - E), so E(sigma) = 2 rate e^(-2 rate sigma) int_0^sigma e^(2 rate s) F(s) ds."""
        (spread,) = self._evaluate([self.spread_values], c, sigma)
        with np.errstate(under="ignore"):
            decay = np.exp(-2.0 * self.rate * sigma)
        return self.factor[c] * 2.0 * self.rate * decay * np.maximum(spread, 0.0)

    def _in_piece_delta_slope(self, c, sigma):
        """d E_c / d sigma = 2 rate e^(-2 rate sigma) int_0^sigma e^(2 rate s) dF(s)."""
        (raised,) = self._evaluate([self.raised_values], c, sigma)
        with np.errstate(under="ignore"):
            decay = np.exp(-2.0 * self.rate * sigma)
        return self.factor[c] * 2.0 * self.rate * decay * np.maximum(raised, 0.0)

    def epsilon_for(self, target):
        """Smallest epsilon >= 0 with hockey(epsilon) <= target, for an array of targets.

        delta is known at every cell's start; within the cell that brackets the target,
        delta(x) = (1 - z) U + z D_c + E_c(sigma), z = e^(-2 rate sigma), is solved by
        safeguarded Newton steps, then stepped to the safe side by ulps.
        """
        target = np.asarray(target, dtype=float)
        k, e0, sub = self.k, self.epsilon0, self.sub
        known = self.delta_at_cells  # increasing in c
        c = np.clip(np.searchsorted(known, target, side="right") - 1, 0, self.cells - 1)
        upper = self.atoms_before[c // sub + 1] + self.below[c]
        lower = known[c]
        end = known[c + 1]
        with np.errstate(divide="ignore", invalid="ignore"):
            sigma = np.clip(np.nan_to_num((target - lower) / (end - lower), nan=1.0), 0.0, 1.0)

        def gap(sigma):
            with np.errstate(under="ignore"):
                z = np.exp(-2.0 * self.rate * sigma)
            value = (1.0 - z) * upper + z * lower + self._in_piece_delta(c, sigma) - target
            slope = 2.0 * self.rate * z * np.maximum(upper - lower, 0.0)
            return value, slope + self._in_piece_delta_slope(c, sigma)

        low, high = np.zeros(sigma.shape), np.ones(sigma.shape)
        done = np.zeros(sigma.shape, dtype=bool)  # an element stops on its own: the same
        for _ in range(40):  # answer alone or in an array
            value, slope = gap(sigma)
            low = np.where(value < 0, sigma, low)
            high = np.where(value >= 0, sigma, high)
            with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
                step = sigma - value / slope
            newton = np.isfinite(step) & (step >= low) & (step <= high)
            new = np.where(newton, step, 0.5 * (low + high))
            new = np.where(done, sigma, new)
            done |= (np.abs(new - sigma) <= 1e-15) | (high - low <= 1e-15)
            sigma = new
            if np.all(done):
                break
        epsilon = np.maximum(k * e0 - 2.0 * e0 * (c + sigma) / sub, 0.0)
        epsilon = np.where(self.hockey(np.zeros(1)) <= target, 0.0, epsilon)
        return _smallest_safe(self.hockey, epsilon, target, k * e0)

    def _locate(self, x):
        """Cell index c in 0..cells (cells: past the last one) and offset sigma >= 0."""
        scaled = np.clip(np.asarray(x, dtype=float), 0.0, None) * self.sub
        c = np.minimum(np.floor(scaled), self.cells).astype(np.int64)
        return c, scaled - c

    def _x(self, t):
        with np.errstate(over="ignore", invalid="ignore"):
            x = (self.k * self.epsilon0 - np.asarray(t, dtype=float)) / (2.0 * self.epsilon0)
        # t = -inf gives x = inf, t = inf gives -inf: both are clipped where used.
        return np.clip(x, -1.0, self.k + 1.0)

    def w_below(self, x):
        """Continuous part of P[W < x] under A(D1)."""
        x = np.asarray(x, dtype=float)
        c, sigma = self._locate(x)
        inside = c < self.cells
        row = np.minimum(c, self.cells - 1)
        partial = self._partial(row, np.minimum(sigma, 1.0))
        below = self.below[c] + np.where(inside, partial, 0.0)
        return np.where(x > 0, below, 0.0)

    def w_above(self, x):
        """Continuous part of P[W > x] under A(D1), summed from the top (no cancellation
        with 1)."""
        c, sigma = self._locate(x)
        inside = c < self.cells
        row = np.minimum(c, self.cells - 1)
        done = self._partial(row, np.minimum(sigma, 1.0))
        rest = np.maximum(self.cell_mass[row] - done, 0.0)
        return np.where(inside, self.beyond[np.minimum(c + 1, self.cells)] + rest, 0.0)

    def exceeds(self, t):
        """P[L > t] under A(D1)."""
        t = np.asarray(t, dtype=float)
        return self.lattice.exceeds(t) + self.w_below(self._x(t))

    def at_most(self, t):
        """P[L <= t] under A(D1), from the bottom of the law."""
        t = np.asarray(t, dtype=float)
        x = self._x(t)
        # Atoms with j >= x, i.e. loss (k - 2 j) e0 <= t.
        atoms = self.lattice.masses.sum() - self.lattice.exceeds(t)
        atoms = np.where(x <= self.k / 2, atoms, self._atoms_at_or_above(x))
        return np.maximum(atoms, 0.0) + self.w_above(x)

    def _on_atom(self, x):
        """x, with values within rounding of a whole number put on it.

        A threshold on an atom, such as a loss taken from ``loss_atoms``, gives an x a few
        ulps off the atom's whole index (0.9999999999999998 for 1); counting atoms with
        ceil or floor must not then take in, or leave out, the atom itself.
        """
        nearest = np.round(x)
        close = np.abs(x - nearest) <= 16 * np.finfo(float).eps * (self.k + 1.0)
        return np.where(close, nearest, x)

    def _atoms_at_or_above(self, x):
        first = np.clip(np.ceil(self._on_atom(x)), 0, self.k + 1).astype(np.int64)
        return self.atoms_from[np.minimum(first, self.k + 1)]

    def exceeds_d2(self, t):
        """P[L > t] under A(D2) = P[L < -t] under A(D1) (the pair is symmetric)."""
        t = np.asarray(t, dtype=float)
        x = self._x(-t)  # L < -t  <=>  W > x
        first = np.clip(np.floor(self._on_atom(x)) + 1, 0, self.k + 1).astype(np.int64)
        return self.atoms_from[first] + self.w_above(x)

    def hockey(self, t):
        """delta(t) = E[max(0, 1 - e^(t - L))] for any real t."""
        t = np.asarray(t, dtype=float)
        x = self._x(t)
        c, sigma = self._locate(x)
        row = np.minimum(c, self.cells - 1)
        inside = c < self.cells
        in_cell = np.where(inside, self._in_piece_delta(row, np.minimum(sigma, 1.0)), 0.0)
        with np.errstate(under="ignore"):
            decay = np.exp(-2.0 * self.rate * sigma)
        continuous = (
            -np.expm1(-2.0 * self.rate * sigma) * self.below[c] + decay * (self.at_cells[c])
        )
        continuous = np.where(x > 0, continuous + in_cell, 0.0)
        return self.lattice.hockey(t) + continuous

    def density(self, t):
        """Density of the continuous part of L at t."""
        x = self._x(t)
        c, sigma = self._locate(x)
        row = np.minimum(c, self.cells - 1)
        inside = (x > 0) & (x < self.k)
        value = self._piece_density(row, np.minimum(sigma, 1.0))
        # dP/dt = g(x) |dx/dt|, |dx/dt| = 1 / (2 epsilon0).
        return np.where(inside, np.maximum(value, 0.0) / (2.0 * self.epsilon0), 0.0)

    def quantile(self, p):
        """Smallest t with P[L > t] <= p."""
        p = np.asarray(p, dtype=float)
        k, e0, sub = self.k, self.epsilon0, self.sub
        starts = np.arange(self.cells + 1)
        on_integer = starts % sub == 0
        before = self.atoms_before[-(-starts // sub)] + self.below  # P[W < c / S]
        after = before + np.where(on_integer, self.atoms[np.minimum(starts // sub, k)], 0.0)
        c = np.clip(np.searchsorted(before, p, side="right") - 1, 0, self.cells)
        on_atom = (p <= after[c]) | (c >= self.cells)
        row = np.minimum(c, self.cells - 1)
        sigma = self._solve_partial(row, np.where(on_atom, 0.0, p - after[c]), skip=on_atom)
        x = np.where(on_atom, c, c + sigma) / sub
        atom = self.lattice.losses[np.clip(c // sub, 0, k)]  # exactly the atoms' values
        return np.where(on_atom, atom, k * e0 - 2.0 * e0 * x)

    def quantile_from_bottom(self, alpha):
        """Smallest t with P[L <= t] >= alpha, from the bottom of the law: the same as
        ``quantile(1 - alpha)``, but exact for alpha far below the float spacing of 1."""
        alpha = np.asarray(alpha, dtype=float)
        k, e0, sub = self.k, self.epsilon0, self.sub
        starts = np.arange(self.cells + 1)
        on_integer = starts % sub == 0
        atom_here = np.where(on_integer, self.atoms[np.minimum(starts // sub, k)], 0.0)
        # at_or_above[c] = P[W >= c / S]: the atoms from ceil(c / S) on and the cells from c.
        at_or_above = self.atoms_from[-(-starts // sub)] + self.beyond
        count = np.searchsorted(-at_or_above, -alpha, side="right")  # entries >= alpha
        c = np.clip(count - 1, 0, self.cells)
        # Inside cell c, P[W >= x] = P[W > c / S] - F_c(sigma): the largest x keeping it
        # >= alpha has F_c(sigma) = P[W > c / S] - alpha.
        room = at_or_above[c] - atom_here[c] - alpha
        on_start = (room <= 0) | (c >= self.cells)
        row = np.minimum(c, self.cells - 1)
        sigma = self._solve_partial(row, np.where(on_start, 0.0, room), skip=on_start)
        x = np.where(on_start, c, c + sigma) / sub
        atom = self.lattice.losses[np.clip(c // sub, 0, k)]
        exact = on_start & (c % sub == 0)
        return np.where(exact, atom, k * e0 - 2.0 * e0 * x)

    def _solve_partial(self, row, target, skip=False):
        """sigma in [0, 1] with F_row(sigma) = target (not solved where ``skip``)."""
        # Start from the tabulated within-cell CDF, then safeguarded Newton steps.
        grid = self.cdf_grid[row]  # (..., G) at sigma = 0, 1/(G-1), ..., 1
        last = grid.shape[-1] - 1
        cell = np.clip(np.sum(grid < target[..., None], axis=-1) - 1, 0, last - 1)
        left = np.take_along_axis(grid, cell[..., None], axis=-1)[..., 0]
        right = np.take_along_axis(grid, cell[..., None] + 1, axis=-1)[..., 0]
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            share = np.clip(np.nan_to_num((target - left) / (right - left)), 0.0, 1.0)
        low, high = cell / last, (cell + 1) / last
        sigma = low + share / last
        done = np.broadcast_to(skip, sigma.shape).copy()
        for _ in range(12):
            value = self._partial(row, sigma) - target
            low = np.where(value < 0, sigma, low)
            high = np.where(value >= 0, sigma, high)
            slope = self._piece_density(row, sigma) / self.sub
            with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
                step = sigma - value / slope
            good = (step >= low) & (step <= high)
            new_sigma = np.where(good, step, 0.5 * (low + high))
            new_sigma = np.where(done, sigma, new_sigma)  # each element stops on its own
            done |= (np.abs(new_sigma - sigma) <= 1e-15) | (high - low <= 4e-15)
            sigma = new_sigma
            if np.all(done):
                break
        return sigma


class _SingleLaplaceTables(_LaplaceTables):
    """One Laplace release: the same interface, one cell, its integrals in closed form
    (F(x) = (1 - e^(-e0 x)) / 2, E(x) = (1 - e^(-e0 x))^2 / 2)."""

    def __init__(self, epsilon0):
        self.epsilon0, self.k = epsilon0, 1
        self.sub, self.cells, self.rate = 1, 1, epsilon0
        self._finish(np.array([-0.5 * math.expm1(-epsilon0)]))

    def _partial(self, c, sigma):
        return -0.5 * np.expm1(-self.epsilon0 * sigma)

    def _piece_density(self, c, sigma):
        return 0.5 * self.epsilon0 * np.exp(-self.epsilon0 * sigma)

    def _in_piece_delta(self, c, sigma):
        return 0.5 * np.expm1(-self.epsilon0 * sigma) ** 2

    def _in_piece_delta_slope(self, c, sigma):
        return self.epsilon0 * np.exp(-self.epsilon0 * sigma) * -np.expm1(-self.epsilon0 * sigma)

    def _solve_partial(self, row, target, skip=False):
        with np.errstate(divide="ignore", invalid="ignore"):
            sigma = -np.log1p(-2.0 * np.asarray(target, dtype=float)) / self.epsilon0
        return np.clip(np.nan_to_num(sigma, nan=1.0, posinf=1.0), 0.0, 1.0)


def _laplace_kl(epsilon0):
    """epsilon0 + e^-epsilon0 - 1, without cancellation for small epsilon0."""
    if epsilon0 < 1e-3:
        return epsilon0**2 * (0.5 - epsilon0 * (1 / 6 - epsilon0 * (1 / 24 - epsilon0 / 120)))
    return epsilon0 + math.expm1(-epsilon0)


def _laplace_w_moment(epsilon0, n):
    """E[W^n] for W of one release (atoms 1/2 at 0 and e^-e0/2 at 1, density e0/2 e^-e0 w)."""
    if epsilon0 < 1e-6:
        integral = 1.0 / (n + 1) - epsilon0 / (n + 2)
    else:
        integral = math.factorial(n) * special.gammainc(n + 1, epsilon0) / epsilon0 ** (n + 1)
    return 0.5 * math.exp(-epsilon0) + 0.5 * epsilon0 * integral


def _laplace_w_variance(epsilon0):
    first = _laplace_w_moment(epsilon0, 1)
    return max(_laplace_w_moment(epsilon0, 2) - first**2, 0.0)


class _Lattice:
    """A loss on the grid L_i = top - step * i (i = 0 .. N - 1) with masses p_i under A(D1),
    plus an atom at +inf: delta, P[L > x] and the inverse of delta in closed form.

    Between grid points delta(x) = (1 - z) S_n + z T_(n-1), z = e^(x - L_(n-1)), where n
    losses exceed x, S_n = p_0 + ... + p_(n-1) and T_n = delta(L_n) obeys the positive
    recurrence T_n = e^-step T_(n-1) + (1 - e^-step) S_n: no difference of large numbers.
    """

    def __init__(self, top_index, unit, masses, infinity_mass=0.0, stride=1):
        # L_i = (top_index - stride i) unit: whole multiples, so that a loss on the
        # lattice compares exactly with the same value computed elsewhere.
        self.masses = np.asarray(masses, dtype=float)
        self.infinity_mass = float(infinity_mass)
        self.step = float(stride * unit)
        self.losses = (top_index - stride * np.arange(self.masses.size)) * float(unit)
        self.top = float(self.losses[0]) if self.masses.size else 0.0
        decay = math.exp(-self.step)
        self._negated = -self.losses  # increasing, for searchsorted
        self.above = np.concatenate([[0.0], np.cumsum(self.masses)])
        self.at_grid = np.maximum.accumulate(
            signal.lfilter([-math.expm1(-self.step)], [1.0, -decay], self.above)
        )
        # weighted[n] = sum_{i < n} p_i e^(-(L_i - L_(n-1))): the A(D2) mass of the n
        # largest losses is weighted[n] e^(-L_(n-1)).
        self.weighted = signal.lfilter([1.0], [1.0, -decay], np.concatenate([[0.0], self.masses]))

    def count_above(self, x):
        """How many grid losses are > x (an array of ints)."""
        return np.searchsorted(self._negated, -np.asarray(x, dtype=float), side="left")

    def _last(self, n):
        return self.losses[np.clip(n - 1, 0, None)]

    def exceeds(self, x):
        """P[L > x] under A(D1), the mass at +inf included."""
        x = np.asarray(x, dtype=float)
        return self.above[self.count_above(x)] + np.where(x < np.inf, self.infinity_mass, 0.0)

    def at_most(self, x):
        """P[L <= x] under A(D1), summed from the lowest loss up."""
        n = self.count_above(x)
        return self._from_bottom[n]

    def quantile_from_bottom(self, alpha):
        """Smallest grid loss q with P[L <= q] >= alpha."""
        bottom = self._from_bottom[:-1]  # decreasing: P[L <= L_n], n = 0..N-1
        count = np.searchsorted(-bottom, -np.asarray(alpha, dtype=float), side="right")
        return self.losses[np.clip(count - 1, 0, self.masses.size - 1)]

    @functools.cached_property
    def _from_bottom(self):
        # _from_bottom[n] = sum of masses with index >= n (the losses <= L_n), from the end.
        return np.concatenate([np.cumsum(self.masses[::-1])[::-1], [0.0]])

    def exceeds_d2(self, x):
        """P[L > x] under A(D2): the finite losses only (+inf has no A(D2) mass)."""
        n = self.count_above(x)
        with np.errstate(over="ignore", under="ignore", invalid="ignore"):
            value = self.weighted[n] * np.exp(-self._last(n))
        return np.where(n > 0, value, 0.0)

    def hockey(self, x):
        """delta(x) = E[max(0, 1 - e^(x - L))], for any real x."""
        x = np.asarray(x, dtype=float)
        n = self.count_above(x)
        gap = np.minimum(x - self._last(n), 0.0)
        with np.errstate(under="ignore", invalid="ignore"):
            z = np.exp(gap)
            finite = -np.expm1(gap) * self.above[n] + z * self.at_grid[np.clip(n - 1, 0, None)]
        finite = np.where(n > 0, np.nan_to_num(finite, nan=0.0), 0.0)
        return finite + np.where(x < np.inf, self.infinity_mass, 0.0)

    def epsilon_for_delta(self, delta):
        """Smallest epsilon >= 0 with hockey(epsilon) <= delta (inf where none), vectorised."""
        delta = np.asarray(delta, dtype=float)
        target = delta - self.infinity_mass
        size = self.masses.size
        n = np.searchsorted(self.at_grid[1:], target, side="left") + 1
        n = np.clip(n, 1, max(size, 1))
        above = self.above[n]
        with np.errstate(divide="ignore", invalid="ignore"):
            z = (above - target) / self.weighted[n]
            epsilon = self._last(n) + np.log(z)
        epsilon = np.nan_to_num(epsilon, nan=np.inf, posinf=np.inf, neginf=0.0)
        epsilon = np.where(target == 0, max(self.top, 0.0), epsilon)
        epsilon = np.where(target < 0, np.inf, epsilon)
        epsilon = np.where(self.hockey(0.0) <= delta, 0.0, np.maximum(epsilon, 0.0))
        # A root in floating point may sit an ulp low: step up until delta is not above.
        step = np.spacing(np.maximum(epsilon, np.finfo(float).tiny))
        for _ in range(200):
            high = np.isfinite(epsilon) & (self.hockey(epsilon) > delta)
            if not np.any(high):
                break
            epsilon = np.where(high, epsilon + step, epsilon)
            step = step * 2.0
        return epsilon


class ComposedDiscreteLaplace(ComposedPair):
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
        self._lattice = _Lattice(self.k * sensitivity, 1.0 / base.scale, masses, stride=2)

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
        values, masses = self.loss_atoms
        spread = np.einsum("i,i->", (values - self.loss_mean) ** 2, masses)
        return float(np.sqrt(max(spread, 0.0)))

    @property
    def _support(self):
        return -self.max_loss, self.max_loss

    def _continuous_range(self, tail_mass):
        return np.nan, np.nan

    def loss_density(self, x):
        """No continuous part: zeros."""
        return check.scalar_or_array(np.zeros(np.shape(_real("x", x))))

    def _exceeds(self, x):
        return self._lattice.exceeds(x)

    def _exceeds_d2(self, x):
        return self._lattice.exceeds_d2(x)

    def _hockey(self, x):
        return self._lattice.hockey(x)

    def _at_most(self, x):
        return self._lattice.at_most(x)

    def _quantile_from_bottom(self, alpha):
        return self._lattice.quantile_from_bottom(alpha)

    def loss_cdf(self, x):
        """P[L <= x] under A(D1), summed from the lowest loss up (exact in the lower tail)."""
        x = _real("x", x)
        return check.scalar_or_array(self._clean(self._lattice.at_most(x)))

    def _epsilon_for_one_delta(self, delta):
        return float(self._lattice.epsilon_for_delta(delta))

    def _quantile(self, p):
        lattice = self._lattice
        # Smallest q with P[L > q] <= p: the lattice loss where the cumulative mass first
        # reaches p from the top.
        n = np.searchsorted(lattice.above[1:], np.asarray(p), side="left")
        n = np.clip(n, 0, lattice.masses.size - 1)
        return lattice.losses[n]


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
    raise ValueError(
        f"pair must be a Laplace, Gaussian or discrete Laplace pair, got {pair!r} "
        "(composition of this pair is not supported)"
    )


def compose(pair, k):
    """The exact k-fold composition of a single-release pair.

    Args:
      pair: a pair from ``dplearn.privacy_loss``: ``laplace``, ``gaussian`` or
        ``discrete_laplace`` (others raise a ValueError).
      k: number of releases, a whole number >= 1.

    Returns:
      A ``ComposedPair`` with the interface of the single-release pairs.

    Taught in: 08-add-up-privacy-losses.ipynb, 09-count-privacy-with-an-accountant.ipynb
    """
    k = _k(k)
    if isinstance(pair, ComposedPair):
        return compose(pair.base, pair.k * k)
    if not isinstance(pair, privacy_loss.PrivacyLossPair):
        raise ValueError(f"pair must be a pair from dplearn.privacy_loss, got {pair!r}")
    return _compose_cached(pair, k)


def laplace_epsilon_for_delta(epsilon0, k, delta):
    """Exact epsilon at delta of k Laplace releases of epsilon0 (sensitivity / scale),
    for an array of k: one convolution pass serves every k (each k's law is a step of
    the next one's), then ``ComposedLaplace.epsilon_for_delta`` for each.

    Args:
      epsilon0: epsilon of one release, > 0 (the pair ``laplace(1 / epsilon0)``).
      k: numbers of releases, whole numbers in 1..LAPLACE_MAX_K (array or one).
      delta: the target delta, in (0, 1).

    Returns:
      epsilon for each k (an array like k, or a float).

    Taught in: 08-add-up-privacy-losses.ipynb
    """
    epsilon0 = _epsilon0(epsilon0)
    ks = np.asarray(_ks(k))
    delta = check.probability_open("delta", delta, scalar=True)
    if np.any(ks > LAPLACE_MAX_K):
        raise ValueError(
            f"k must be <= {LAPLACE_MAX_K}, got {check._describe(ks[ks > LAPLACE_MAX_K])}"
        )
    pair = privacy_loss.laplace(1.0 / epsilon0)
    wanted = sorted({int(value) for value in ks.ravel()})
    largest = wanted[-1]
    if (
        (pair.max_loss, largest) not in _PIECES
        and largest * math.log(2.0 + pair.max_loss) < 600.0
        and pair.max_loss <= LAPLACE_MAX_EPSILON0
    ):
        _PIECES[(pair.max_loss, largest)] = _tilted_pieces_plain(
            pair.max_loss, largest, keep=frozenset(wanted)
        )
    values = {n: compose(pair, n).epsilon_for_delta(delta) for n in wanted}
    result = np.array([values[int(value)] for value in ks.ravel()], dtype=float)
    return check.scalar_or_array(result.reshape(ks.shape))


# ----------------------------------------------------------------------------------------
# Bounds from (epsilon0, delta0) alone
# ----------------------------------------------------------------------------------------


def _epsilon0(epsilon0):
    return check.positive("epsilon0", epsilon0, scalar=True)


def _delta0(delta0):
    value = check.scalar("delta0", delta0)
    if not 0 <= value < 1:
        raise ValueError(f"delta0 must be a single number in [0, 1), got {delta0!r}")
    return value


def _ks(k):
    """k as an int, or an array of whole numbers >= 1 (for the bounds drawn against k)."""
    array = check.number("k", k)
    if array.ndim == 0:
        return _k(k)
    bad = ~np.isfinite(array) | (array != np.floor(array)) | (array < 1)
    if np.any(bad):
        raise ValueError(f"k must be whole numbers >= 1, got {check._describe(array[bad])}")
    return array


def basic(epsilon0, delta0, k):
    """Basic composition: k releases of an (epsilon0, delta0)-DP mechanism are
    (k epsilon0, k delta0)-DP (Dwork, McSherry, Nissim & Smith, "Calibrating noise to
    sensitivity in private data analysis", 2006).

    Args:
      epsilon0: epsilon of one release, > 0.
      delta0: delta of one release, in [0, 1).
      k: number of releases, a whole number >= 1 or an array of them.

    Returns:
      (epsilon, delta), delta capped at 1 (arrays if k is one).

    Taught in: 08-add-up-privacy-losses.ipynb
    """
    epsilon0, delta0, k = _epsilon0(epsilon0), _delta0(delta0), _ks(k)
    if np.ndim(k) == 0:
        return k * epsilon0, min(k * delta0, 1.0)
    return k * epsilon0, np.minimum(k * delta0, 1.0)


def advanced(epsilon0, delta0, k, delta_slack):
    """Advanced composition (Dwork, Rothblum & Vadhan, "Boosting and differential privacy",
    2010, Theorem III.3): k releases of an (epsilon0, delta0)-DP mechanism are
    (epsilon', k delta0 + delta_slack)-DP with
    epsilon' = epsilon0 sqrt(2 k ln(1 / delta_slack)) + k epsilon0 (e^epsilon0 - 1).

    Args:
      epsilon0: epsilon of one release, > 0.
      delta0: delta of one release, in [0, 1).
      k: number of releases, >= 1 (or an array of them, broadcast with delta_slack).
      delta_slack: the extra delta', in (0, 1); vectorised.

    Returns:
      (epsilon', k delta0 + delta_slack).

    Taught in: 08-add-up-privacy-losses.ipynb
    """
    epsilon0, delta0, k = _epsilon0(epsilon0), _delta0(delta0), _ks(k)
    slack = check.probability_open("delta_slack", delta_slack)
    with np.errstate(over="ignore"):  # epsilon0 >= 710: the bound is infinite
        epsilon = epsilon0 * np.sqrt(2.0 * k * -np.log(slack)) + k * epsilon0 * np.expm1(epsilon0)
    return check.scalar_or_array(epsilon), check.scalar_or_array(np.minimum(k * delta0 + slack, 1))


def advanced_delta(epsilon0, k, epsilon):
    """The smallest slack delta' with which ``advanced`` reaches epsilon (1 where it never
    does: epsilon <= k epsilon0 (e^epsilon0 - 1)); vectorised over epsilon.

    From epsilon = epsilon0 sqrt(2 k ln(1/delta')) + k epsilon0 (e^epsilon0 - 1):
    delta' = exp(-r^2 / (2 k)) with r = epsilon / epsilon0 - k (e^epsilon0 - 1) > 0.

    Taught in: 08-add-up-privacy-losses.ipynb
    """
    epsilon0, k = _epsilon0(epsilon0), _k(k)
    epsilon = check.epsilon(epsilon)
    with np.errstate(over="ignore", invalid="ignore"):
        r = epsilon / epsilon0 - k * np.expm1(epsilon0)
        slack = np.where(r > 0, np.exp(-np.square(np.maximum(r, 0.0)) / (2.0 * k)), 1.0)
    slack = np.where(np.isinf(epsilon), 0.0, slack)
    return check.scalar_or_array(slack)


#: Largest k for the optimal composition bounds (memory and time grow like k).
OPTIMAL_MAX_K = 10**6


class _RandomizedResponse:
    """k randomized-response releases of epsilon0, the worst pure epsilon0-DP mechanism:
    the loss is L_i = (k - 2 i) epsilon0 with probability m_i = C(k, i) e^(-i e0) /
    (1 + e^-e0)^k, i.e. i ~ Binomial(k, 1 / (1 + e^e0)). Everything in log space:

    with A_n = sum_(i < n) m_i and T_n = delta(L_n), the positive recurrence
    T_n = e^-s T_(n-1) + (1 - e^-s) A_n (s = 2 epsilon0) becomes a cumulative logaddexp of
    ln A_j + j s; between grid points delta = (1 - z) A_n + z T_(n-1), z = e^(epsilon -
    L_(n-1)). No difference of large numbers, so k up to OPTIMAL_MAX_K is exact.
    """

    def __init__(self, epsilon0, k):
        i = np.arange(k + 1)
        self.k, self.epsilon0 = k, epsilon0
        self.losses = (k - 2 * i) * epsilon0
        self._negated = -self.losses
        log_masses = (
            special.gammaln(k + 1)
            - special.gammaln(i + 1)
            - special.gammaln(k - i + 1)
            - i * epsilon0
            - k * np.logaddexp(0.0, -epsilon0)
        )
        step = 2.0 * epsilon0
        self.log_above = np.concatenate([[-np.inf], np.logaddexp.accumulate(log_masses)])
        n = np.arange(1, k + 2)
        shrink = math.log(-math.expm1(-step))
        grown = np.logaddexp.accumulate(shrink + self.log_above[1:] + n * step)
        self.log_at_grid = np.concatenate([[-np.inf], grown - n * step])  # n = 0 .. k+1
        self.log_weighted = np.concatenate(
            [[-np.inf], np.logaddexp.accumulate(log_masses + i * step) - i * step]
        )  # ln sum_(i < n) m_i e^(-s (n - 1 - i)), n = 0 .. k+1

    def count_above(self, epsilon):
        return np.searchsorted(self._negated, -np.asarray(epsilon, dtype=float), side="left")

    def log_delta(self, epsilon):
        epsilon = np.asarray(epsilon, dtype=float)
        n = self.count_above(epsilon)
        last = self.losses[np.maximum(n - 1, 0)]
        with np.errstate(divide="ignore", invalid="ignore"):
            gap = np.minimum(epsilon - last, 0.0)
            result = np.logaddexp(
                np.log(-np.expm1(gap)) + self.log_above[n],
                gap + self.log_at_grid[np.maximum(n - 1, 0)],
            )
        return np.where(n > 0, result, -np.inf)

    def epsilon_for_log_delta(self, log_target):
        """Smallest epsilon >= 0 with log_delta(epsilon) <= log_target."""
        log_target = np.asarray(log_target, dtype=float)
        grid = self.log_at_grid[1 : self.k + 1]  # delta at L_n, n = 1..k, increasing
        n = np.searchsorted(grid, log_target, side="left") + 1
        n = np.clip(n, 1, self.k + 1)
        log_above = self.log_above[n]
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            log_z = log_above + np.log1p(-np.exp(log_target - log_above)) - self.log_weighted[n]
        epsilon = self.losses[n - 1] + np.minimum(np.nan_to_num(log_z, nan=0.0), 0.0)
        epsilon = np.maximum(epsilon, 0.0)
        return np.where(self.log_delta(0.0) <= log_target, 0.0, epsilon)


@functools.lru_cache(maxsize=64)
def _randomized_response(epsilon0, k):
    if k > OPTIMAL_MAX_K:
        raise ValueError(f"k must be <= {OPTIMAL_MAX_K} for the optimal composition, got {k}")
    if 2.0 * k * epsilon0 > 1e300:
        raise ValueError(
            f"k * epsilon0 must be below 5e299 for the optimal composition, got "
            f"epsilon0={epsilon0!r}, k={k}"
        )
    return _RandomizedResponse(epsilon0, k)


def _optimal_from_log_pure(delta0, k, log_pure):
    """1 - (1 - delta0)^k (1 - delta_pure), as two non-negative parts."""
    log_kept = k * math.log1p(-delta0)
    with np.errstate(under="ignore"):
        return -math.expm1(log_kept) + math.exp(log_kept) * np.exp(log_pure)


def optimal_delta(epsilon0, delta0, k, epsilon):
    """Exact delta(epsilon) of the k-fold composition of the worst (epsilon0, delta0)-DP
    mechanism, the best bound that holds for every such mechanism.

    Kairouz, Oh & Viswanath, "The composition theorem for differential privacy", 2015
    (Theorem 3.3), for every epsilon in Murtagh & Vadhan, "The complexity of computing the
    optimal composition of differential privacy", 2016 (Theorem 1.5):
    delta = 1 - (1 - delta0)^k (1 - delta_pure(epsilon)), where
    delta_pure(epsilon) = sum_i C(k, i) max(0, e^((k - i) e0) - e^(epsilon + i e0)) / (1 + e^e0)^k,
    the delta of k randomized-response releases. The binomial sums are taken in log space
    (cumulative logaddexp), so k up to OPTIMAL_MAX_K is exact and fast.

    Args:
      epsilon0: epsilon of one release, > 0.
      delta0: delta of one release, in [0, 1).
      k: number of releases, >= 1.
      epsilon: epsilon(s) of the composition, >= 0; vectorised.

    Taught in: 08-add-up-privacy-losses.ipynb
    """
    epsilon0, delta0, k = _epsilon0(epsilon0), _delta0(delta0), _k(k)
    epsilon = check.epsilon(epsilon)
    log_pure = _randomized_response(epsilon0, k).log_delta(epsilon)
    result = _optimal_from_log_pure(delta0, k, log_pure)
    return check.scalar_or_array(np.clip(result, 0.0, 1.0))


def optimal_epsilon(epsilon0, delta0, k, delta):
    """Smallest epsilon >= 0 with ``optimal_delta(epsilon0, delta0, k, epsilon) <= delta``
    (inf where none is: delta below 1 - (1 - delta0)^k); vectorised over delta.

    Solved exactly: between two consecutive losses (k - 2 i) epsilon0 the pure delta is
    (1 - z) A + z T with z = e^(epsilon - loss), solved for z in log space.

    Taught in: 08-add-up-privacy-losses.ipynb
    """
    epsilon0, delta0, k = _epsilon0(epsilon0), _delta0(delta0), _k(k)
    delta = check.probability_open("delta", delta)
    mechanism = _randomized_response(epsilon0, k)
    log_kept = k * math.log1p(-delta0)
    # The pure part may reach 1 - (1 - delta) / (1 - delta0)^k.
    with np.errstate(under="ignore", over="ignore", divide="ignore", invalid="ignore"):
        target = -np.expm1(np.log1p(-delta) - log_kept)
        log_target = np.log(target)
    reachable = target > 0
    epsilon = mechanism.epsilon_for_log_delta(np.where(reachable, log_target, 0.0))
    epsilon = np.where(reachable, epsilon, np.inf)
    # Never too small: step up while the delta as optimal_delta computes it is above.
    step = np.spacing(np.maximum(epsilon, np.finfo(float).tiny))
    for _ in range(200):
        finite = np.isfinite(epsilon)
        value = _optimal_from_log_pure(
            delta0, k, mechanism.log_delta(np.where(finite, epsilon, 0.0))
        )
        high = finite & (np.clip(value, 0.0, 1.0) > delta)
        if not np.any(high):
            break
        epsilon = np.where(high, epsilon + step, epsilon)
        step = step * 2.0
    return check.scalar_or_array(epsilon)


def first_advanced_win(epsilon0, delta):
    """Smallest k at which advanced composition (all the slack delta) gives a smaller
    epsilon than basic composition, k epsilon0; None if it never does (e^epsilon0 >= 2).

    Advanced minus basic is sqrt(k) epsilon0 (sqrt(2 ln(1/delta)) - sqrt(k) (2 - e^epsilon0)):
    for e^epsilon0 >= 2 it is positive for every k; otherwise advanced wins exactly for
    k > 2 ln(1/delta) / (2 - e^epsilon0)^2, however large that is (near epsilon0 = ln 2,
    millions). The k from that closed form is checked, and moved by the few steps rounding
    may shift it, with ``basic`` and ``advanced`` themselves. Past 10^15 releases floats
    cannot tell k from k + 1 and the closed form's k is returned as it is; so it is where
    the bounds' rounding leaves no single first win within a few steps (k beyond 10^10,
    epsilon0 within 10^-5 of ln 2).

    Taught in: 08-add-up-privacy-losses.ipynb
    """

    epsilon0 = _epsilon0(epsilon0)
    delta = check.probability_open("delta", delta, scalar=True)

    def wins(releases):
        advanced_epsilon, _ = advanced(epsilon0, 0.0, releases, delta)
        basic_epsilon, _ = basic(epsilon0, 0.0, releases)
        return advanced_epsilon < basic_epsilon

    # 2 - e^epsilon0, exact near epsilon0 = ln 2 (and negative, not overflowing, far above).
    margin = -math.expm1(min(epsilon0, 1.0)) + 1.0
    if not margin > 0:
        return None
    boundary = 2.0 * -math.log(delta) / margin**2
    if boundary >= 1e15:
        return math.floor(boundary) + 1
    closed_form = releases = max(1, math.floor(boundary) + 1)
    for _ in range(8):
        if releases > 1 and wins(releases - 1):
            releases -= 1
        elif not wins(releases):
            releases += 1
        else:
            return releases
    return closed_form


# ----------------------------------------------------------------------------------------
# Privacy loss distributions, as accountants build them
# ----------------------------------------------------------------------------------------


class PrivacyLossDistribution:
    """The privacy loss under A(D1) discretised on the grid i * grid_width, plus +inf.

    Built by ``pld``; ``compose`` and ``self_compose`` convolve by FFT (scipy.fft). With
    ``pessimistic`` rounding every loss goes up to the next grid point (and mass cut from
    the top of a tail goes to +inf), so delta is never below the exact one; optimistic
    rounding goes down (mass cut from the bottom is dropped), so delta is never above it.
    (Meiser & Mohammadi, "Tight on budget? Tight bounds for r-fold approximate differential
    privacy", 2018; Koskela, Jalko & Honkela, "Computing tight differential privacy
    guarantees using FFT", 2020.)

    Attributes:
      grid_width: h, the spacing of the grid.
      pessimistic: True for rounding up, False for rounding down.
      lowest_index: the grid index of masses[0] (its loss is lowest_index * grid_width).
      masses: probabilities under A(D1) of the finite grid losses, in increasing loss.
      infinity_mass: P[L = +inf], kept apart.
      tail_mass: the mass a composition may cut from each end of the support.

    Taught in: 09-count-privacy-with-an-accountant.ipynb
    """

    def __init__(self, grid_width, lowest_index, masses, infinity_mass, pessimistic, tail_mass):
        self.grid_width = float(grid_width)
        self.lowest_index = int(lowest_index)
        self.masses = np.asarray(masses, dtype=float)
        self.infinity_mass = float(infinity_mass)
        self.pessimistic = bool(pessimistic)
        self.tail_mass = float(tail_mass)
        self._lattice_cache = None

    @property
    def _lattice(self):
        # Built on the first query: composing never needs it.
        if self._lattice_cache is None:
            top = self.lowest_index + self.masses.size - 1
            self._lattice_cache = _Lattice(
                top, self.grid_width, self.masses[::-1], self.infinity_mass
            )
        return self._lattice_cache

    def __repr__(self):
        kind = "pessimistic" if self.pessimistic else "optimistic"
        return (
            f"PrivacyLossDistribution({kind}, grid_width={self.grid_width}, "
            f"{self.masses.size} points from {self.losses[0]:.6g}, "
            f"infinity_mass={self.infinity_mass:.3g})"
        )

    @property
    def losses(self):
        """The grid losses of ``masses``, increasing."""
        return (self.lowest_index + np.arange(self.masses.size)) * self.grid_width

    def delta(self, epsilon):
        """delta(epsilon) of this PLD, exact for the discretised law; vectorised."""
        epsilon = check.epsilon(epsilon)
        return check.scalar_or_array(np.clip(self._lattice.hockey(epsilon), 0.0, 1.0))

    def loss_exceeds(self, epsilon):
        """P[L > epsilon] of the discretised law; vectorised."""
        epsilon = check.epsilon(epsilon)
        return check.scalar_or_array(np.clip(self._lattice.exceeds(epsilon), 0.0, 1.0))

    def epsilon_for_delta(self, delta):
        """Smallest epsilon >= 0 with delta(epsilon) <= delta (inf where none)."""
        delta = check.probability_open("delta", delta)
        return check.scalar_or_array(self._lattice.epsilon_for_delta(delta))

    def _check_partner(self, other):
        if not isinstance(other, PrivacyLossDistribution):
            raise ValueError(f"other must be a PrivacyLossDistribution, got {other!r}")
        if other.grid_width != self.grid_width:
            raise ValueError(
                f"other must have grid_width {self.grid_width}, got {other.grid_width}"
            )
        if other.pessimistic != self.pessimistic:
            raise ValueError("other must be rounded the same way (pessimistic or optimistic)")

    def compose(self, other):
        """The PLD of this mechanism and ``other`` run on the same data (by FFT)."""
        self._check_partner(other)
        size = self.masses.size + other.masses.size - 1
        _check_size(size)
        length = _fft_length(size)
        dtype = _transform_dtype(length)
        product = fft.rfft(self.masses.astype(dtype), length) * fft.rfft(
            other.masses.astype(dtype), length
        )
        masses = fft.irfft(product, length)[:size]
        infinity = (
            self.infinity_mass + other.infinity_mass - self.infinity_mass * other.infinity_mass
        )
        return self._truncated(self.lowest_index + other.lowest_index, masses, infinity)

    def self_compose(self, k):
        """The PLD of k runs: one transform, a k-th power, one inverse transform.

        When the k-fold support would exceed 2**21 grid points (many releases of a wide
        loss), by repeated squaring instead, cutting tails of tail_mass after each step:
        the mass then lives on about sqrt(k) times one release's width, not k times.
        """
        k = _k(k)
        if k == 1:
            return self
        size = k * (self.masses.size - 1) + 1
        if size > _ONE_SHOT_POINTS:
            result, power = None, self
            while True:
                if k & 1:
                    result = power if result is None else result.compose(power)
                k >>= 1
                if not k:
                    return result
                power = power.compose(power)
        length = _fft_length(size)
        spectrum = fft.rfft(self.masses.astype(_transform_dtype(length)), length)
        masses = fft.irfft(_integer_power(spectrum, k), length)[:size]
        infinity = -math.expm1(k * math.log1p(-self.infinity_mass))
        return self._truncated(k * self.lowest_index, masses, infinity)

    def _truncated(self, lowest_index, masses, infinity_mass, scratch=False):
        """Bound the FFT round-off and cut tails of at most tail_mass, on the safe side.

        Every mass the transform returns is within ``noise`` of the true one (estimated
        from the negative values it returns where the truth is ~0, and from the round-off
        of the largest mass). A pessimistic PLD puts size * noise on +inf (which raises
        delta at least as much as any mass can), an optimistic one subtracts noise from
        every mass, so that neither bound is crossed by round-off. ``masses`` is changed in
        place; with ``scratch`` (a work array) the kept part is copied out.
        """
        size = masses.size
        largest = float(masses.max(initial=0.0))
        noise = max(
            4.0 * float(-masses.min(initial=0.0)),
            # The round-off of a transform of length n is about eps log2(n) times the
            # largest entry (measured: at most that much against exact convolutions).
            2.0 * float(np.finfo(masses.dtype).eps) * math.log2(max(size, 2)) * largest,
        )
        # The transform's output is the caller's own array: changed in place below.
        masses = masses.astype(float, copy=False)
        if self.pessimistic:
            np.maximum(masses, 0.0, out=masses)
            infinity_mass = infinity_mass + size * noise
        else:
            masses -= noise
            np.maximum(masses, 0.0, out=masses)
        # The cut points lie before the first (after the last) mass above tail_mass, so
        # only those ends need summing.
        heavy = masses > self.tail_mass
        if heavy.any():
            start, end = int(np.argmax(heavy)), size - 1 - int(np.argmax(heavy[::-1]))
        else:
            start = end = int(np.argmax(masses))
        first, below = _cut(masses[: start + 1], self.tail_mass)
        cut_from_top, above = _cut(masses[end:][::-1], self.tail_mass)  # from the top
        last = size - 1 - cut_from_top
        if first > min(last, size - 1) or last < 0:  # nothing would be left: keep one point
            first = last = max(min(last, size - 1), 0)
            first = min(first, last)
            below = float(masses[:first].sum())
            above = float(masses[last + 1 :].sum())
        kept = masses[first : last + 1]
        if scratch:
            kept = kept.copy()
        if self.pessimistic:
            kept[0] += below  # rounded up to the lowest kept loss
            infinity_mass = infinity_mass + above  # rounded up to +inf
        else:
            kept[-1] += above  # rounded down to the highest kept loss; below is dropped
        return PrivacyLossDistribution(
            self.grid_width,
            lowest_index + first,
            kept,
            min(infinity_mass, 1.0),
            self.pessimistic,
            self.tail_mass,
        )


def _cut(masses, limit):
    """How many of the first masses (>= 0) can be cut with a sum <= limit, and that sum.

    Summed in blocks of 64, then within the one block where the limit falls: the few
    thousand masses of a PLD's far tails need not be summed one by one.
    """
    block = 64
    whole = masses.size // block * block
    before, offset = 0.0, 0
    if whole >= 4 * block:
        running = np.cumsum(masses[:whole].reshape(-1, block).sum(axis=1))
        blocks = int(np.searchsorted(running, limit, side="right"))
        if blocks:
            before, offset = float(running[blocks - 1]), blocks * block
    end = offset + block if offset < whole and whole >= 4 * block else masses.size
    partial = before + np.cumsum(masses[offset:end])
    count = int(np.searchsorted(partial, limit, side="right"))
    return offset + count, (float(partial[count - 1]) if count else before)


_ONE_SHOT_POINTS = 2**21


def _fft_length(size):
    """A fast transform length >= size: 2^a, 3 2^a or 5 2^a if one is no longer than
    scipy's next_fast_len (these measured fastest), else next_fast_len."""
    fast = fft.next_fast_len(size, real=True)
    candidates = [factor * 2 ** max(math.ceil(math.log2(size / factor)), 0) for factor in (1, 3, 5)]
    candidates = [length for length in candidates if length >= size]
    best = min(candidates)
    return best if best <= fast * 1.02 else fast


#: From this transform length on, PLDs are transformed in extended precision (long double):
#: the round-off bound, about n eps log2(n) times the largest mass, would otherwise rival
#: the bracket's width on fine grids. Shorter transforms stay in double (3x faster).
_EXTENDED_FROM = 2**18


def _transform_dtype(length):
    return np.longdouble if length >= _EXTENDED_FROM else np.float64


def _integer_power(values, k, out=None):
    """values ** k by repeated squaring (much faster than a complex pow), overwriting
    ``values`` (the caller's own spectrum) to save allocations; into ``out`` if given."""
    result = None
    power = values
    while True:
        if k & 1:
            if result is None:
                if out is not None:
                    result = out
                    np.copyto(result, power)
                else:
                    result = power.copy() if k > 1 else power
            else:
                result *= power
        k >>= 1
        if not k:
            return result
        np.square(power, out=power)


def _check_size(size):
    if size > PLD_MAX_POINTS:
        raise ValueError(
            f"grid_width is too fine for this composition: {size} grid points "
            f"(at most {PLD_MAX_POINTS}); take a larger grid_width or fewer releases"
        )


def pld(pair, grid_width, *, pessimistic=True, tail_mass=1e-15, connect_dots=False):
    """The privacy loss distribution of a pair on the grid i * grid_width.

    Args:
      pair: a pair from ``dplearn.privacy_loss`` (Laplace, Gaussian, discrete Laplace) or
        a ``ComposedPair``.
      grid_width: h > 0, the spacing of the loss grid.
      pessimistic: round losses up (True: delta is an upper bound) or down (False: a
        lower bound).
      tail_mass: the probability that may be cut from each end of an unbounded loss
        (Gaussian) and after each composition, in (0, 1e-3]; cut mass goes to +inf
        (pessimistic) or is dropped (optimistic).
      connect_dots: for a pessimistic PLD, instead of rounding each loss up, take the
        grid PLD whose delta equals the exact delta at every grid point and is linear in
        e^epsilon in between (Doroshenko, Ghazi, Kamath, Kumar & Manurangsi, "Connect the
        dots: tighter discrete approximations of privacy loss distributions", 2022; the
        default of dp_accounting). Still an upper bound (delta is convex in e^epsilon),
        about twice as tight.

    Returns:
      A ``PrivacyLossDistribution``.

    Taught in: 09-count-privacy-with-an-accountant.ipynb
    """
    grid_width, tail_mass = _pld_options(grid_width, pessimistic, tail_mass, connect_dots)
    return _pld(_single_release_law(pair), grid_width, pessimistic, tail_mass, connect_dots)


def _pld_options(grid_width, pessimistic, tail_mass, connect_dots):
    """The checked grid_width and tail_mass of ``pld`` (ValueError naming a bad one)."""
    grid_width = _positive("grid_width", grid_width)
    # Beyond these the grid's own arithmetic (points = range / h, losses = i * h) leaves
    # the floats; every useful grid lies far inside (the size limit refuses fine ones).
    if not 1e-100 <= grid_width <= 1e100:
        raise ValueError(f"grid_width must lie in [1e-100, 1e100], got {grid_width!r}")
    if not isinstance(pessimistic, bool | np.bool_):
        raise ValueError(f"pessimistic must be True or False, got {pessimistic!r}")
    tail_mass = _positive("tail_mass", tail_mass)
    if tail_mass > 1e-3:
        raise ValueError(f"tail_mass must be <= 1e-3, got {tail_mass!r}")
    if not isinstance(connect_dots, bool | np.bool_):
        raise ValueError(f"connect_dots must be True or False, got {connect_dots!r}")
    return grid_width, tail_mass


def _pld(composed, grid_width, pessimistic, tail_mass, connect_dots):
    """``pld`` of the law ``composed`` (a ComposedPair or _OneLaplace), options checked."""
    if pessimistic and connect_dots:
        return _connect_the_dots(composed, grid_width, tail_mass)
    low, high = composed._continuous_range(tail_mass)
    values, atom_masses = composed.loss_atoms
    points = [values]
    if np.isfinite(low):
        points.append(np.array([low, high]))
    points = np.concatenate(points)
    lowest = int(math.floor(points.min() / grid_width)) - 1
    highest = int(math.ceil(points.max() / grid_width)) + 1
    size = highest - lowest + 1
    _check_size(size)
    grid = (lowest + np.arange(size)) * grid_width
    masses = np.zeros(size)
    infinity = 0.0
    # Atoms: each to its grid neighbour above (pessimistic) or below (optimistic).
    if values.size:
        index = _grid_index(values, grid_width, lowest, up=pessimistic)
        np.add.at(masses, index, atom_masses)
    if np.isfinite(low):
        # The continuous part, cell by cell: (grid[i-1], grid[i]] goes to grid[i] when
        # rounding up, [grid[i], grid[i+1]) to grid[i] when rounding down.
        edges = np.minimum(np.maximum(grid, low), high)
        if isinstance(composed, _OneLaplace):
            cells = composed._cell_masses(edges)
        else:
            middle = composed._continuous_median
            upper = composed._continuous_exceeds(edges)
            lower = composed._continuous_cdf(edges)
            cells = np.where(edges[:-1] >= middle, upper[:-1] - upper[1:], lower[1:] - lower[:-1])
            cells = np.maximum(cells, 0.0)
        # Beyond [low, high] (a cut range): nothing for one Laplace release.
        beyond = not isinstance(composed, _OneLaplace)
        if pessimistic:
            masses[1:] += cells
            if beyond:
                masses[0] += float(composed._continuous_cdf(np.array(low)))
                infinity += float(composed._continuous_exceeds(np.array(high)))
        else:
            masses[:-1] += cells
            if beyond:
                top = _grid_index(np.array([high]), grid_width, lowest, up=False)[0]
                masses[top] += float(composed._continuous_exceeds(np.array(high)))
    keep = np.flatnonzero(masses > 0)
    first, last = (keep[0], keep[-1]) if keep.size else (0, 0)
    return PrivacyLossDistribution(
        grid_width, lowest + first, masses[first : last + 1], infinity, pessimistic, tail_mass
    )


def _single_release_law(pair):
    """The law ``pld`` discretises: a Laplace release in closed form, else the composed pair."""
    if isinstance(pair, ComposedPair):
        return pair
    if isinstance(pair, privacy_loss.LaplaceNoise) and pair.max_loss <= LAPLACE_MAX_EPSILON0:
        return _OneLaplace(pair.max_loss)
    return compose(pair, 1)


class _OneLaplace:
    """One Laplace release of epsilon0, with what ``pld`` needs in closed form.

    With W = (epsilon0 - L) / (2 epsilon0) in [0, 1] (as in ``ComposedLaplace``): atoms
    1/2 at L = epsilon0 and e^-epsilon0 / 2 at L = -epsilon0, and in between W has density
    (epsilon0 / 2) e^(-epsilon0 w), so that the continuous part has P[L > t] =
    (1 - e^(-epsilon0 x)) / 2 and P[L <= t] = (e^(-epsilon0 x) - e^-epsilon0) / 2 at
    x = (epsilon0 - t) / (2 epsilon0), and delta(t) = 1 - e^(-epsilon0 x) = 1 - e^((t -
    epsilon0) / 2) on [-epsilon0, epsilon0] (1 - e^t below, 0 above).
    """

    _continuous_median = 0.0

    def __init__(self, epsilon0):
        self.epsilon0 = epsilon0
        self.loss_atoms = (
            np.array([epsilon0, -epsilon0]),
            np.array([0.5, 0.5 * math.exp(-epsilon0)]),
        )

    def _continuous_range(self, tail_mass):
        return -self.epsilon0, self.epsilon0

    def _w(self, t):
        w = (self.epsilon0 - np.asarray(t, dtype=float)) / (2.0 * self.epsilon0)
        return np.minimum(np.maximum(w, 0.0), 1.0)

    def _cell_masses(self, edges):
        """P[a < L <= b] of the continuous part for each pair of neighbouring (sorted)
        edges in [-epsilon0, epsilon0]: e^(-e0 w_b) (1 - e^(-(b - a) / 2)) / 2, with no
        difference of nearly equal numbers."""
        low, high = edges[:-1], edges[1:]
        return -0.5 * np.exp(-self.epsilon0 * self._w(high)) * np.expm1(0.5 * (low - high))

    def _continuous_exceeds(self, t):
        return -0.5 * np.expm1(-self.epsilon0 * self._w(t))

    def _continuous_cdf(self, t):
        # Summed from the bottom: e^(-e0 w) (1 - e^(-e0 (1 - w))) / 2, no cancellation.
        w = self._w(t)
        return -0.5 * np.exp(-self.epsilon0 * w) * np.expm1(-self.epsilon0 * (1.0 - w))

    def _hockey(self, t):
        t = np.asarray(t, dtype=float)
        inside = -np.expm1(-self.epsilon0 * self._w(t))
        return np.where(t < -self.epsilon0, -np.expm1(np.minimum(t, 0.0)), inside)


def _connect_the_dots(composed, grid_width, tail_mass):
    """The pessimistic grid PLD whose delta is the exact one at each grid loss L_i = i h.

    With d_i = delta(L_i) and D_i = d_(i+1) - d_i, a grid PLD has delta linear in
    y = e^epsilon between grid points with slope -sum_(j > i) p_j e^(-L_j); matching the
    d_i gives p_i = (D_i - e^h D_(i-1)) / (e^h - 1) inside, p_top = -e^h D_(top-1) /
    (e^h - 1), +inf mass d_top, and the lowest point takes the rest, so that delta
    follows the chord to (y = 0, delta = 1) below the grid.
    """
    values, _ = composed.loss_atoms
    low, high = composed._continuous_range(tail_mass)
    ends = [values.min(), values.max()] if values.size else []
    if np.isfinite(low):
        ends += [low, high]
    lowest = int(math.floor(min(ends) / grid_width))
    highest = int(math.ceil(max(ends) / grid_width))
    size = highest - lowest + 1
    _check_size(size)
    if size < 2:
        lowest, size = lowest - 1, 2
    losses = (lowest + np.arange(size)) * grid_width
    exact = composed._hockey(losses)
    exact = np.minimum(np.maximum(np.where(np.isnan(exact), 0.0, exact), 0.0), 1.0)
    exact = np.minimum.accumulate(exact)  # delta never increases with epsilon
    steps = np.diff(exact)  # D_i <= 0
    growth = math.expm1(grid_width)
    masses = np.empty(size)
    masses[1:-1] = (steps[1:] - math.exp(grid_width) * steps[:-1]) / growth
    masses[-1] = -math.exp(grid_width) * steps[-1] / growth
    masses = np.maximum(masses, 0.0)
    infinity = float(exact[-1])
    masses[0] = max(1.0 - infinity - masses[1:].sum(), 0.0)
    keep = np.flatnonzero(masses > 0)
    first, last = (keep[0], keep[-1]) if keep.size else (0, 0)
    return PrivacyLossDistribution(
        grid_width, lowest + first, masses[first : last + 1], infinity, True, tail_mass
    )


def _grid_index(values, grid_width, lowest, *, up):
    """Index (from ``lowest``) of the grid point at or above (up) / below each value."""
    if values.size <= 4:  # the atoms of one release: the same arithmetic, without arrays
        return np.array(
            [_one_grid_index(float(value), grid_width, up) - lowest for value in values.ravel()],
            dtype=np.int64,
        ).reshape(values.shape)
    raw = np.ceil(values / grid_width) if up else np.floor(values / grid_width)
    if up:
        raw = np.where(raw * grid_width < values, raw + 1, raw)
        raw = np.where((raw - 1) * grid_width >= values, raw - 1, raw)
    else:
        raw = np.where(raw * grid_width > values, raw - 1, raw)
        raw = np.where((raw + 1) * grid_width <= values, raw + 1, raw)
    return raw.astype(np.int64) - lowest


def _one_grid_index(value, grid_width, up):
    raw = math.ceil(value / grid_width) if up else math.floor(value / grid_width)
    if up:
        raw = raw + 1 if raw * grid_width < value else raw
        raw = raw - 1 if (raw - 1) * grid_width >= value else raw
    else:
        raw = raw - 1 if raw * grid_width > value else raw
        raw = raw + 1 if (raw + 1) * grid_width <= value else raw
    return raw


class PLDBracket:
    """The optimistic and pessimistic PLDs of k releases: the exact delta lies between.

    Attributes:
      optimistic: the PLD rounded down (its delta is a lower bound).
      pessimistic: the PLD rounded up (its delta is an upper bound).

    Taught in: 09-count-privacy-with-an-accountant.ipynb
    """

    def __init__(self, optimistic, pessimistic):
        self.optimistic = optimistic
        self.pessimistic = pessimistic

    @property
    def grid_width(self):
        """h, the spacing of both grids."""
        return self.pessimistic.grid_width

    def delta(self, epsilon):
        """(lower, upper) bounds on the exact delta at epsilon."""
        return self.optimistic.delta(epsilon), self.pessimistic.delta(epsilon)

    def epsilon_for_delta(self, delta):
        """(lower, upper) bounds on the exact epsilon at delta."""
        return self.optimistic.epsilon_for_delta(delta), self.pessimistic.epsilon_for_delta(delta)

    def width(self, epsilon):
        """pessimistic delta - optimistic delta at epsilon."""
        low, high = self.delta(epsilon)
        return check.scalar_or_array(np.asarray(high) - np.asarray(low))


def pld_bracket(pair, k, grid_width, *, tail_mass=1e-15, connect_dots=False):
    """Optimistic and pessimistic PLDs of k releases of ``pair`` on a grid of width h
    (``connect_dots``: as in ``pld``, for the pessimistic one).

    Returns:
      A ``PLDBracket`` (``.optimistic``, ``.pessimistic``, ``.delta``, ``.epsilon_for_delta``).

    Taught in: 09-count-privacy-with-an-accountant.ipynb
    """
    k = _k(k)
    grid_width, tail_mass = _pld_options(grid_width, True, tail_mass, connect_dots)
    law = _single_release_law(pair)
    optimistic = _pld(law, grid_width, False, tail_mass, False)
    pessimistic = _pld(law, grid_width, True, tail_mass, connect_dots)
    return PLDBracket(*_self_compose_both(optimistic, pessimistic, k))


def _self_compose_both(optimistic, pessimistic, k):
    """Both PLDs of a bracket composed k times, by one transform of a two-row array.

    Set on one common grid (zeros where one PLD has no point), the two rows go through
    the same arithmetic as two separate ``self_compose`` calls, so the same round-off
    bound holds for each; one batched transform is ~1.5x faster than two (pocketfft runs
    both rows through its vector lanes together).
    """
    if k == 1:
        return optimistic, pessimistic
    lowest = min(optimistic.lowest_index, pessimistic.lowest_index)
    width = (
        max(
            distribution.lowest_index + distribution.masses.size
            for distribution in (optimistic, pessimistic)
        )
        - lowest
    )
    size = k * (width - 1) + 1
    length = _fft_length(size)
    if size > _ONE_SHOT_POINTS or _transform_dtype(length) is not np.float64:
        return optimistic.self_compose(k), pessimistic.self_compose(k)
    rows, spectrum, power, output = _workspace(length)
    rows.fill(0.0)
    for row, distribution in zip(rows, (optimistic, pessimistic), strict=True):
        start = distribution.lowest_index - lowest
        row[start : start + distribution.masses.size] = distribution.masses
    # numpy's pocketfft (single-threaded, as scipy.fft with workers=1) writes into the
    # given arrays: no fresh pages to fault in on every call.
    np.fft.rfft(rows, axis=-1, out=power)
    _integer_power(power, k, out=spectrum)
    np.fft.irfft(spectrum, length, axis=-1, out=output)
    return tuple(
        distribution._truncated(
            k * lowest,
            row,
            -math.expm1(k * math.log1p(-distribution.infinity_mass)),
            scratch=True,
        )
        for row, distribution in zip(output[:, :size], (optimistic, pessimistic), strict=True)
    )


_WORKSPACE = threading.local()
#: Longest transform whose work arrays are kept between brackets (4 arrays of 2 x 2**16
#: doubles, 4 MB); longer ones are allocated each time.
_WORKSPACE_MAX_LENGTH = 2**16


def _workspace(length):
    """Work arrays of this thread for a two-row transform of ``length`` (reused)."""
    kept = getattr(_WORKSPACE, "arrays", None)
    if kept is not None and kept[0].shape[1] == length:
        return kept
    half = length // 2 + 1
    arrays = (
        np.empty((2, length)),
        np.empty((2, half), dtype=complex),
        np.empty((2, half), dtype=complex),
        np.empty((2, length)),
    )
    if length <= _WORKSPACE_MAX_LENGTH:
        _WORKSPACE.arrays = arrays
    return arrays


# ----------------------------------------------------------------------------------------
# The hypothesis-test view (f-DP)
# ----------------------------------------------------------------------------------------


def gaussian_tradeoff(mu, alpha):
    """G_mu(alpha) = Phi(Phi^-1(1 - alpha) - mu): the type II error of the best test at
    type I error alpha between N(0, 1) and N(mu, 1) (Dong, Roth & Su, "Gaussian
    differential privacy", 2019, Definition 2.7); vectorised over alpha.

    Args:
      mu: mu >= 0 (mu = sensitivity / sigma for one Gaussian release; inf: a perfect test).
      alpha: type I error(s) in [0, 1].

    Taught in: 09-count-privacy-with-an-accountant.ipynb
    """
    mu = check.scalar("mu", mu)
    if not mu >= 0:
        raise ValueError(f"mu must be a number >= 0, got {mu!r}")
    alpha = check.probability_closed("alpha", alpha)
    if math.isinf(mu):  # a perfect test: no type II error once any type I error is allowed
        return check.scalar_or_array(np.where(alpha > 0, 0.0, 1.0))
    # -Phi^-1(alpha) rather than Phi^-1(1 - alpha): exact for tiny alpha.
    with np.errstate(over="ignore"):
        beta = special.ndtr(-special.ndtri(alpha) - float(mu))
    return check.scalar_or_array(beta)


def tradeoff(pair, alpha):
    """The trade-off curve beta(alpha) of the pair: the smallest type II error of a test
    of A(D1) against A(D2) whose type I error is at most alpha (Neyman-Pearson: reject
    A(D1) on the outputs of lowest privacy loss, randomising on an atom), vectorised.

    With t the loss at probability position 1 - alpha,
    beta = P_D2[L > t] + e^-t (1 - alpha - P_D1[L > t]). Exact for the pairs ``compose``
    supports, composed or not.

    Args:
      pair: a pair from ``dplearn.privacy_loss`` or a ``ComposedPair``.
      alpha: type I error(s) in [0, 1].

    Taught in: 09-count-privacy-with-an-accountant.ipynb
    """
    composed = pair if isinstance(pair, ComposedPair) else compose(pair, 1)
    alpha = check.probability_closed("alpha", alpha)
    if isinstance(composed, ComposedGaussian):
        return gaussian_tradeoff(composed._ratio, alpha)
    # The threshold, the loss at position 1 - alpha: from the bottom for small alpha, where
    # 1 - alpha would round away alpha's digits.
    small = alpha < 0.5
    threshold = np.where(
        small,
        composed._quantile_from_bottom(np.where(small, alpha, 0.5)),
        composed._quantile(np.where(small, 0.5, 1.0 - alpha)),
    )
    finite = np.isfinite(threshold)
    safe = np.where(finite, threshold, 0.0)
    # The randomised part: only on an atom, the share of its mass the test still rejects
    # on, P[L <= t] - alpha, summed from the bottom of the law (exact for tiny alpha).
    on_atom = np.isin(safe, composed.loss_atoms[0])
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        level = np.where(on_atom, np.maximum(composed._at_most(safe) - alpha, 0.0), 0.0)
        beta = composed._exceeds_d2(safe) + np.where(level > 0, np.exp(-safe) * level, 0.0)
    beta = np.where(alpha <= 0, 1.0, np.where(alpha >= 1, 0.0, beta))
    return check.scalar_or_array(np.clip(beta, 0.0, 1.0 - alpha * 0))


def gaussian_dp_mu(pair):
    """The mu with which a Gaussian pair (one release or k) is exactly mu-GDP:
    sensitivity / sigma, times sqrt(k) for k releases (Dong, Roth & Su 2019).

    Taught in: 09-count-privacy-with-an-accountant.ipynb
    """
    if isinstance(pair, privacy_loss.GaussianNoise):
        return pair.ratio
    if isinstance(pair, ComposedGaussian):
        return pair._ratio
    raise ValueError(f"pair must be a Gaussian pair (composed or not), got {pair!r}")


def clt_mu(pair, k):
    """The mu of the central-limit approximation G_mu of k releases of ``pair``.

    Dong, Roth & Su, "Gaussian differential privacy", 2019, the central limit theorem of
    section 3: mu = 2 k kl / sqrt(k (kappa2 - kl^2)), where for a pair kl = E[L] (the KL
    divergence) and kappa2 - kl^2 = Var[L] under A(D1); so mu = 2 sqrt(k) E[L] / sd(L).
    Exact for the Gaussian; for others an approximation, not a bound (``clt_gap``).

    Taught in: 09-count-privacy-with-an-accountant.ipynb
    """
    k = _k(k)
    single = pair if isinstance(pair, ComposedPair) else compose(pair, 1)
    if single.loss_std <= 0:
        # No spread: every output has the same (positive) loss, a perfect test exists.
        return math.inf if single.loss_mean > 0 else 0.0
    return 2.0 * math.sqrt(k) * single.loss_mean / single.loss_std


def clt_gap(pair, k, alpha):
    """G_mu(alpha) - exact beta(alpha) for k releases, with mu = ``clt_mu(pair, k)``:
    negative where the CLT curve lies below the exact trade-off curve; vectorised.

    Taught in: 09-count-privacy-with-an-accountant.ipynb
    """
    k = _k(k)
    exact = tradeoff(compose(pair, k), alpha)
    return check.scalar_or_array(
        np.asarray(gaussian_tradeoff(clt_mu(pair, k), alpha)) - np.asarray(exact)
    )
