"""The law of the privacy loss L, as the sections of ``dplearn.composition`` share it.

Exact composition (``exact``), the accountant's grids (``pld``) and the trade-off curves
(``tradeoff``) all read the law of L under A(D1) through one interface, ``LossLaw``,
written down here: its methods take any real x (arrays in, arrays out), check nothing and
may return values a hair outside [0, 1]; the public methods of a pair (``delta``,
``loss_exceeds``, ...) check their arguments, call these and clean the results.
``Lattice`` is the law of a loss on an evenly spaced grid (plus +inf), in closed form:
the discrete Laplace, the Laplace tables' atoms and the PLDs are all one.

Taught in: 08-add-up-privacy-losses.ipynb, 09-count-privacy-with-an-accountant.ipynb
"""

from __future__ import annotations

import functools
import math

import numpy as np
from scipy import signal

from dplearn._safe_side import step_up

__all__ = ["Lattice", "LossLaw"]


class LossLaw:
    """What every law of L offers the other sections (a base class: subclasses override).

    Subclasses must supply the following.

      loss_atoms: (values, masses), the atoms of L under A(D1) (an attribute or property).
      exceeds(x): P[L > x] under A(D1); exceeds_d2(x): the same under A(D2).
      hockey(x): E[max(0, 1 - e^(x - L))], delta extended to negative x.
      quantile_from_top(p): the smallest q with P[L > q] <= p (atoms give flat steps).

    Given here from those (override where a closed form does better):
      at_most(x): P[L <= x], quantile_from_bottom(alpha): the smallest t with
      P[L <= t] >= alpha, for the lower tail (``tradeoff`` at tiny alpha).
      continuous_range(tail_mass), continuous_median, continuous_exceeds(x),
      continuous_cdf(x), cell_masses(edges), tails_cut: the part of L that is not atoms,
      which ``pld`` rounds onto its grid cell by cell.

    Taught in: 09-count-privacy-with-an-accountant.ipynb
    """

    #: Largest value L takes (inf where unbounded).
    max_loss: float
    #: Where the continuous part is split for ``cell_masses``: above it cells are
    #: differences of ``continuous_exceeds``, below of ``continuous_cdf``, so that neither
    #: tail is a difference of numbers near 1.
    continuous_median = 0.0
    #: True where ``continuous_range`` may cut tails (their mass lies outside it).
    tails_cut = True

    def exceeds(self, x):
        """P[L > x] under A(D1)."""
        raise NotImplementedError

    def exceeds_d2(self, x):
        """P[L > x] under A(D2)."""
        raise NotImplementedError

    def hockey(self, x):
        """E[max(0, 1 - e^(x - L))] under A(D1): delta extended to negative x."""
        raise NotImplementedError

    def quantile_from_top(self, p):
        """Smallest q with P[L > q] <= p (atoms give flat steps)."""
        raise NotImplementedError

    def at_most(self, x):
        """P[L <= x] under A(D1) (subclasses sum it from the bottom where they can)."""
        return 1.0 - self.exceeds(x)

    def quantile_from_bottom(self, alpha):
        """Smallest t with P[L <= t] >= alpha (subclasses: exact for tiny alpha)."""
        return self.quantile_from_top(1.0 - np.asarray(alpha, dtype=float))

    def continuous_range(self, tail_mass):
        """Where the continuous part lives, up to tail_mass at each end.

        (NaN, NaN) if there is none.
        """
        return -self.max_loss, self.max_loss

    def atoms_exceeding(self, x):
        """The mass of the atoms above x."""
        values, masses = self.loss_atoms
        x = np.asarray(x, dtype=float)
        return np.einsum("...i,i->...", (values > x[..., None]).astype(float), masses)

    def continuous_exceeds(self, x):
        """P[L > x, L not an atom]."""
        return np.maximum(self.exceeds(x) - self.atoms_exceeding(x), 0.0)

    def continuous_cdf(self, x):
        """P[L <= x, L not an atom]."""
        total = 1.0 - float(self.loss_atoms[1].sum())
        return np.maximum(total - self.continuous_exceeds(x), 0.0)

    def cell_masses(self, edges):
        """P[a < L <= b, L not an atom] for each pair of neighbouring (sorted) edges."""
        upper = self.continuous_exceeds(edges)
        lower = self.continuous_cdf(edges)
        cells = np.where(
            edges[:-1] >= self.continuous_median, upper[:-1] - upper[1:], lower[1:] - lower[:-1]
        )
        return np.maximum(cells, 0.0)


class Lattice:
    """A loss on the grid L_i = top - step * i (i = 0 .. N - 1), plus an atom at +inf.

    The masses p_i are those under A(D1); delta, P[L > x] and the inverse of delta are in
    closed form. Between grid points delta(x) = (1 - z) S_n + z T_(n-1), z = e^(x - L_(n-1)),
    where n losses exceed x, S_n = p_0 + ... + p_(n-1) and T_n = delta(L_n) obeys the
    positive recurrence T_n = e^-step T_(n-1) + (1 - e^-step) S_n: no difference of large
    numbers.
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
        """delta(x) = E[max(0, 1 - e^(x - L))], for any real x.

        The mass at +inf counts at every x, x = inf included: delta(inf) is the limit of
        delta(x) as x grows (what no epsilon, however large, covers), not a jump to 0.
        """
        x = np.asarray(x, dtype=float)
        n = self.count_above(x)
        gap = np.minimum(x - self._last(n), 0.0)
        with np.errstate(under="ignore", invalid="ignore"):
            z = np.exp(gap)
            finite = -np.expm1(gap) * self.above[n] + z * self.at_grid[np.clip(n - 1, 0, None)]
        finite = np.where(n > 0, np.nan_to_num(finite, nan=0.0), 0.0)
        return finite + self.infinity_mass

    def epsilon_for_delta(self, delta):
        """Smallest epsilon >= 0 with hockey(epsilon) <= delta (inf where none), vectorised."""
        delta = np.asarray(delta, dtype=float)
        target = delta - self.infinity_mass
        size = self.masses.size
        # The root lies in [L_n, L_(n-1)] for the first n whose delta(L_n) is *above* the
        # target: where delta(L_n) rounds to the target itself over a flat stretch (the
        # target a cumulative mass from the top), the delta there is at most the target
        # already and the root lies further down, at the end of the stretch.
        n = np.searchsorted(self.at_grid[1:], target, side="right") + 1
        n = np.clip(n, 1, max(size, 1))
        above = self.above[n]
        with np.errstate(divide="ignore", invalid="ignore"):
            # z = e^(epsilon - L_(n-1)) lies in [e^-step, 1] inside that interval (in
            # (0, 1] below the lowest loss, where the last interval has no lower end).
            floor = np.where(n < size, math.exp(-self.step), 0.0)
            z = np.clip((above - target) / self.weighted[n], floor, 1.0)
            epsilon = self._last(n) + np.log(z)
        epsilon = np.nan_to_num(epsilon, nan=np.inf, posinf=np.inf, neginf=0.0)
        epsilon = np.where(target == 0, max(self.top, 0.0), epsilon)
        epsilon = np.where(target < 0, np.inf, epsilon)
        epsilon = np.where(self.hockey(0.0) <= delta, 0.0, np.maximum(epsilon, 0.0))
        # A root in floating point may sit an ulp low: step up until delta is not above.
        epsilon = step_up(epsilon, lambda value: self.hockey(value) > delta)
        # ... and grid losses below it may meet the target already: where delta is flat
        # at the target over a stretch of the grid, the recurrence behind at_grid and
        # hockey's own sum may round to either side of it. The smallest grid loss >= 0
        # (below epsilon) whose delta meets the target is the answer: found by bisection
        # over the grid indices, delta being monotone.
        if size:
            finite = np.isfinite(epsilon)
            safe_epsilon = np.where(finite, epsilon, 0.0)
            first = np.searchsorted(self._negated, -safe_epsilon, side="right")  # L < eps
            last = np.searchsorted(self._negated, 0.0, side="right") - 1  # smallest L >= 0
            start = np.minimum(first, size - 1)
            usable = finite & (first <= last) & (self.losses[start] < safe_epsilon)
            usable &= self.hockey(self.losses[start]) <= delta
            # Invariant: delta(L_good) <= target; delta(L_bad) > target (or bad = last + 1).
            good, bad = start.copy(), np.full(start.shape, last + 1)
            while np.any(usable & (bad - good > 1)):
                middle = (good + bad) // 2
                meets = self.hockey(self.losses[np.minimum(middle, size - 1)]) <= delta
                move = usable & (bad - good > 1)
                good = np.where(move & meets, middle, good)
                bad = np.where(move & ~meets, middle, bad)
            found = self.losses[np.minimum(good, size - 1)]
            # The root may lie inside the interval below that grid loss: solve there.
            n = np.minimum(good + 1, size)
            with np.errstate(divide="ignore", invalid="ignore"):
                floor = np.where(n < size, math.exp(-self.step), 0.0)
                z = np.clip((self.above[n] - target) / self.weighted[n], floor, 1.0)
                inside = np.maximum(np.nan_to_num(found + np.log(z), nan=np.inf), 0.0)
            inside = step_up(np.minimum(inside, found), lambda v: self.hockey(v) > delta)
            found = np.minimum(found, inside)
            epsilon = np.where(usable, found, epsilon)
        return epsilon
