"""Privacy loss distributions (PLDs), as accountants build and compose them.

The method, in five steps (Meiser & Mohammadi, "Tight on budget? Tight bounds for r-fold
approximate differential privacy", 2018; Koskela, Jalko & Honkela, "Computing tight
differential privacy guarantees using FFT", 2020; Google's dp_accounting):

1. Round: put the privacy loss L of one release on the grid i * h, every loss rounded up
   (pessimistic: delta is never below the exact one) or down (optimistic: never above);
   ``pld``. The tighter pessimistic grid of Doroshenko, Ghazi, Kamath, Kumar & Manurangsi
   ("Connect the dots", 2022) matches the exact delta at every grid loss instead;
   ``connect_the_dots_pld``.
2. Transform: the masses on the grid, by FFT.
3. Power: the loss of k releases is the sum of k independent losses, whose masses are the
   k-fold convolution, whose transform is the k-th power.
4. Invert: the inverse FFT gives the masses of k releases on the same grid. Where
   Chernoff's bound leaves at most tail_mass / 1000 outside a window shorter than the
   whole k-fold support, the transforms take the window's length (``_tails``), and the
   mass they wrap into it is accounted for on the safe side (``_windows``).
5. Cut tails: a mass of at most tail_mass is cut from each end; a pessimistic PLD puts
   the top tail on +inf (the infinity mass) and the bottom tail on its lowest kept loss,
   an optimistic one drops the bottom tail and puts the top tail on its highest kept loss.

``PrivacyLossDistribution.compose`` and ``self_compose`` take steps 2 to 5;
``pld_bracket`` gives both roundings of k releases: the exact delta lies between
(``PLDBracket``). The laws it rounds are ``law.LossLaw``s. The same code composes the
DP-SGD runs of ``dplearn.accounting`` (``composed_window``, ``round_off_bound``). What
makes the transforms fast and their round-off safe (transform lengths, kept transforms,
long double, work arrays) is in ``_fft``.

Taught in: 09-count-privacy-with-an-accountant.ipynb
"""

from __future__ import annotations

import math

import numpy as np

from dplearn import _validation as check
from dplearn import privacy_loss
from dplearn.composition import _fft, _tails
from dplearn.composition._arguments import checked_k, checked_positive
from dplearn.composition.exact import LAPLACE_MAX_EPSILON0, ComposedPair, compose
from dplearn.composition.law import Lattice, LossLaw

__all__ = [
    "PrivacyLossDistribution",
    "PLDBracket",
    "pld",
    "pld_bracket",
    "connect_the_dots_pld",
    "clear_spectrum_cache",
    "round_off_bound",
    "PLD_MAX_POINTS",
]


#: Largest PLD (number of grid points) built or composed.
PLD_MAX_POINTS = 2**23
#: Largest k-fold support composed by one power; beyond it, by repeated squaring.
_ONE_SHOT_POINTS = 2**21
#: The mass a window shorter than the k-fold support may leave beyond each end, as a
#: fraction of tail_mass: it moves delta by a thousandth of what cutting the tails does.
_OUTSIDE_FRACTION = 1e-3
#: Shortest transform for which a shorter window is sought: below it the bound costs
#: about as much as the shorter transform saves.
_WINDOW_FROM = 2**12
#: Longest transform for which a shorter window is sought (see ``_windows``).
_WINDOW_TO = 2**16


# ----------------------------------------------------------------------------------------
# Step 1: round the loss of one release onto the grid
# ----------------------------------------------------------------------------------------


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
    law = _single_release_law(pair)
    return _rounded(law, grid_width, pessimistic, tail_mass, connect_dots)


def connect_the_dots_pld(law, grid_width, *, tail_mass=1e-15):
    """The pessimistic grid PLD whose delta is the exact one at every grid loss.

    What ``pld(..., connect_dots=True)`` builds, for any law of the loss: an accountant
    whose loss is no pair of ``dplearn.privacy_loss`` (one step of DP-SGD) describes it
    as a ``LossLaw`` and rounds it here (Doroshenko, Ghazi, Kamath, Kumar & Manurangsi,
    "Connect the dots: tighter discrete approximations of privacy loss distributions",
    2022). Between grid points its delta is linear in e^epsilon, so it is an upper bound
    (the exact delta is convex in e^epsilon).

    Args:
      law: a ``composition.LossLaw``, the loss of one release under A(D1).
      grid_width: h > 0, the spacing of the loss grid.
      tail_mass: the probability that may be cut from each end of an unbounded loss and
        after each composition, in (0, 1e-3].

    Returns:
      A pessimistic ``PrivacyLossDistribution``.

    Raises:
      ValueError: naming a bad argument, or a grid of more than ``PLD_MAX_POINTS`` points.

    Taught in: 09-count-privacy-with-an-accountant.ipynb
    """
    if not isinstance(law, LossLaw):
        raise ValueError(f"law must be a composition.LossLaw, got {law!r}")
    grid_width, tail_mass = _pld_options(grid_width, True, tail_mass, True)
    return _connect_the_dots(law, grid_width, tail_mass)


def _pld_options(grid_width, pessimistic, tail_mass, connect_dots):
    """The checked grid_width and tail_mass of ``pld`` (ValueError naming a bad one)."""
    grid_width = checked_positive("grid_width", grid_width)
    # Beyond these the grid's own arithmetic (points = range / h, losses = i * h) leaves
    # the floats; every useful grid lies far inside (the size limit refuses fine ones).
    if not 1e-100 <= grid_width <= 1e100:
        raise ValueError(f"grid_width must lie in [1e-100, 1e100], got {grid_width!r}")
    if not isinstance(pessimistic, bool | np.bool_):
        raise ValueError(f"pessimistic must be True or False, got {pessimistic!r}")
    tail_mass = checked_positive("tail_mass", tail_mass)
    if tail_mass > 1e-3:
        raise ValueError(f"tail_mass must be <= 1e-3, got {tail_mass!r}")
    if not isinstance(connect_dots, bool | np.bool_):
        raise ValueError(f"connect_dots must be True or False, got {connect_dots!r}")
    return grid_width, tail_mass


def _single_release_law(pair):
    """The law ``pld`` rounds: a Laplace release in closed form, else the composed pair."""
    if isinstance(pair, ComposedPair):
        return pair
    if isinstance(pair, privacy_loss.LaplaceNoise) and pair.max_loss <= LAPLACE_MAX_EPSILON0:
        return _OneLaplace(pair.max_loss)
    return compose(pair, 1)


def _rounded(law, grid_width, pessimistic, tail_mass, connect_dots):
    """The PLD of ``law`` (a ``LossLaw``) on the grid, every loss rounded up or down.

    Atoms go to their grid neighbour above (pessimistic) or below (optimistic); the
    continuous part goes cell by cell, (L_(i-1), L_i] to L_i when rounding up and
    [L_i, L_(i+1)) to L_i when rounding down. Options are checked by the caller.
    """
    if pessimistic and connect_dots:
        return _connect_the_dots(law, grid_width, tail_mass)
    low, high = law.continuous_range(tail_mass)
    values, atom_masses = law.loss_atoms
    ends = _ends(values, low, high)
    lowest = int(math.floor(min(ends) / grid_width)) - 1
    highest = int(math.ceil(max(ends) / grid_width)) + 1
    size = highest - lowest + 1
    _check_size(size)
    grid = (lowest + np.arange(size)) * grid_width
    masses = np.zeros(size)
    infinity = 0.0
    if 0 < values.size <= 4:  # the atoms of one release, one by one (as np.add.at would)
        for value, atom in zip(values.tolist(), atom_masses.tolist(), strict=True):
            masses[_one_grid_index(value, grid_width, pessimistic) - lowest] += atom
    elif values.size:
        index = _grid_index(values, grid_width, lowest, up=pessimistic)
        np.add.at(masses, index, atom_masses)
    if np.isfinite(low):
        edges = np.minimum(np.maximum(grid, low), high)
        cells = law.cell_masses(edges)
        # Beyond [low, high] (a cut range): nothing for one Laplace release.
        beyond = law.tails_cut
        if pessimistic:
            masses[1:] += cells
            if beyond:
                masses[0] += float(law.continuous_cdf(np.array(low)))
                infinity += float(law.continuous_exceeds(np.array(high)))
        else:
            masses[:-1] += cells
            if beyond:
                top = _grid_index(np.array([high]), grid_width, lowest, up=False)[0]
                masses[top] += float(law.continuous_exceeds(np.array(high)))
    first, last = _positive_range(masses)
    return PrivacyLossDistribution(
        grid_width, lowest + first, masses[first : last + 1], infinity, pessimistic, tail_mass
    )


def _ends(values, low, high):
    """The smallest and largest of the atoms and, if finite, the continuous range's ends."""
    ends = values.tolist() if values.size <= 4 else [values.min(), values.max()]
    if np.isfinite(low):
        ends += [low, high]
    return [min(ends), max(ends)]


def _positive_range(masses):
    """The first and last index of a mass > 0, (0, 0) if there is none."""
    if masses.size and masses[0] > 0 and masses[-1] > 0:  # a release rounded: most often
        return 0, masses.size - 1
    keep = np.flatnonzero(masses > 0)
    return (int(keep[0]), int(keep[-1])) if keep.size else (0, 0)


def _connect_the_dots(law, grid_width, tail_mass):
    """The pessimistic grid PLD whose delta is the exact one at each grid loss L_i = i h.

    With d_i = delta(L_i) and D_i = d_(i+1) - d_i, a grid PLD has delta linear in
    y = e^epsilon between grid points with slope -sum_(j > i) p_j e^(-L_j); matching the
    d_i gives p_i = (D_i - e^h D_(i-1)) / (e^h - 1) inside, p_top = -e^h D_(top-1) /
    (e^h - 1), +inf mass d_top, and the lowest point takes the rest, so that delta
    follows the chord to (y = 0, delta = 1) below the grid. Options are checked by the
    caller.
    """
    values, _ = law.loss_atoms
    low, high = law.continuous_range(tail_mass)
    ends = _ends(values, low, high)
    lowest = int(math.floor(min(ends) / grid_width))
    highest = int(math.ceil(max(ends) / grid_width))
    size = highest - lowest + 1
    _check_size(size)
    if size < 2:
        lowest, size = lowest - 1, 2
    losses = (lowest + np.arange(size)) * grid_width
    exact = law.hockey(losses)
    exact = np.minimum(np.fmax(exact, 0.0), 1.0)  # fmax: a NaN is taken as 0
    exact = np.minimum.accumulate(exact)  # delta never increases with epsilon
    steps = exact[1:] - exact[:-1]  # D_i <= 0
    growth = math.expm1(grid_width)
    masses = np.empty(size)
    masses[1:-1] = (steps[1:] - math.exp(grid_width) * steps[:-1]) / growth
    masses[-1] = -math.exp(grid_width) * steps[-1] / growth
    masses = np.maximum(masses, 0.0)
    infinity = float(exact[-1])
    masses[0] = max(1.0 - infinity - float(np.add.reduce(masses[1:])), 0.0)
    first, last = _positive_range(masses)
    return PrivacyLossDistribution(
        grid_width, lowest + first, masses[first : last + 1], infinity, True, tail_mass
    )


def _grid_index(values, grid_width, lowest, *, up):
    """Index (from ``lowest``) of the grid point at or above (up) / below each value.

    The quotient value / h is corrected by one where its rounding crossed a grid point,
    so that the point found is the right one in the grid's own arithmetic (i * h).
    """
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
    """``_grid_index`` of one float, from 0, in plain Python arithmetic."""
    raw = math.ceil(value / grid_width) if up else math.floor(value / grid_width)
    if up:
        raw = raw + 1 if raw * grid_width < value else raw
        raw = raw - 1 if (raw - 1) * grid_width >= value else raw
    else:
        raw = raw - 1 if raw * grid_width > value else raw
        raw = raw + 1 if (raw + 1) * grid_width <= value else raw
    return raw


def _check_size(size):
    """Refuse a grid of more than ``PLD_MAX_POINTS`` points (ValueError naming grid_width)."""
    if size > PLD_MAX_POINTS:
        raise ValueError(
            f"grid_width is too fine for this composition: {size} grid points "
            f"(at most {PLD_MAX_POINTS}); take a larger grid_width or fewer releases"
        )


# ----------------------------------------------------------------------------------------
# Steps 2 to 5: transform, power, invert, cut tails
# ----------------------------------------------------------------------------------------


class PrivacyLossDistribution:
    """The privacy loss under A(D1) discretised on the grid i * grid_width, plus +inf.

    Built by ``pld``; ``compose`` and ``self_compose`` convolve by FFT (numpy.fft). With
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
        self._spectra = {}  # transforms kept for ``composed_window``, by length and precision

    @property
    def _lattice(self):
        """The law as a ``Lattice``, which answers the queries (built on the first one)."""
        # Composing never needs it.
        if self._lattice_cache is None:
            top = self.lowest_index + self.masses.size - 1
            self._lattice_cache = Lattice(
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

    def hockey_stick(self, epsilon):
        """delta(epsilon) = E[max(0, 1 - e^(epsilon - L))] for every real epsilon; vectorised.

        Equal to ``delta`` for epsilon >= 0. Negative epsilons give the rest of the privacy
        profile, from which a trade-off curve is read (``dplearn.auditing``).

        Raises:
          ValueError: for a NaN epsilon.
        """
        epsilon = check.number("epsilon", epsilon)
        if np.any(np.isnan(epsilon)):
            raise ValueError("epsilon must not be NaN")
        return check.scalar_or_array(np.clip(self._lattice.hockey(epsilon), 0.0, 1.0))

    def loss_exceeds(self, epsilon):
        """P[L > epsilon] of the discretised law; vectorised."""
        epsilon = check.epsilon(epsilon)
        return check.scalar_or_array(np.clip(self._lattice.exceeds(epsilon), 0.0, 1.0))

    def epsilon_for_delta(self, delta):
        """Smallest epsilon >= 0 with delta(epsilon) <= delta (inf where none)."""
        delta = check.probability_open("delta", delta)
        return check.scalar_or_array(self._lattice.epsilon_for_delta(delta))

    def compose(self, other):
        """The PLD of this mechanism and ``other`` run on the same data (by FFT).

        Transform both, multiply, invert, cut tails.

        Args:
          other: a ``PrivacyLossDistribution`` on the same grid, rounded the same way.

        Returns:
          A ``PrivacyLossDistribution``.
        """
        self._check_partner(other)
        size = self.masses.size + other.masses.size - 1
        _check_size(size)
        length = _fft.fft_length(size)
        product = _fft.transform(self.masses, length) * _fft.transform(other.masses, length)
        masses = _fft.inverse(product, length)
        infinity = (
            self.infinity_mass + other.infinity_mass - self.infinity_mass * other.infinity_mass
        )
        return self._truncated(self.lowest_index + other.lowest_index, masses[:size], infinity)

    def self_compose(self, k):
        """The PLD of k runs: one transform, a k-th power, one inverse transform.

        When the k-fold support would exceed 2**21 grid points (many releases of a wide
        loss), by repeated squaring instead, cutting tails of tail_mass after each step:
        the mass then lives on about sqrt(k) times one release's width, not k times.

        Args:
          k: the number of runs, an int >= 1.

        Returns:
          A ``PrivacyLossDistribution``.
        """
        k = checked_k(k)
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
        ((start, count, outside),) = _windows([self], k)
        first = k * self.lowest_index + start
        masses = self.composed_window(k, first, count, keep_transform=False)
        infinity = -math.expm1(k * math.log1p(-self.infinity_mass))
        return self._truncated(first, masses, infinity, outside=outside, power=k)

    def composed_window(self, k, first, size, *, keep_transform=True, double=False):
        """The masses of the k-fold composition at grid indices first .. first + size - 1.

        One transform, its k-th power, one inverse transform, of a length of at least
        ``size`` and of one PLD's support; no tails cut and no round-off removed (see
        ``round_off_bound``). The transform is cyclic: where the window is narrower than
        the k-fold support (k (N - 1) + 1 points), the mass outside it wraps around into
        it, which the caller must account for; a window that holds the whole support
        receives none.

        Args:
          k: the number of compositions, an int >= 1.
          first: the grid index of the window's first point.
          size: the number of points of the window.
          keep_transform: keep this PLD's transform for the next call (a slider that
            changes k asks for it again).
          double: transform in double at any length (``_fft.transform``): for a caller
            whose bound tolerates the larger round-off (an optimistic one, which only
            loses a little tightness by subtracting it).

        Returns:
          The ``size`` masses, an array of floats (long doubles for long transforms).
        """
        # A kept transform is taken at one of few lengths, so that it serves the
        # neighbouring k too (a slider moving k takes no new transform).
        few = keep_transform
        length = max(_fft.fft_length(size, few=few), _fft.fft_length(self.masses.size, few=few))
        if keep_transform:
            spectrum = _fft.kept_transform(self.masses, self._spectra, length, double).copy()
        else:
            spectrum = _fft.transform(self.masses, length, double=double)
        composed = _fft.inverse(_fft.integer_power(spectrum, k), length)
        # Index j of the composed law sits at position (j - k lowest_index) mod length.
        start = (first - k * self.lowest_index) % length
        if start + size <= length:
            return composed[start : start + size]
        return np.roll(composed, -start)[:size]

    def _check_partner(self, other):
        """Refuse an ``other`` that is no PLD on this grid rounded this way (ValueError)."""
        if not isinstance(other, PrivacyLossDistribution):
            raise ValueError(f"other must be a PrivacyLossDistribution, got {other!r}")
        if other.grid_width != self.grid_width:
            raise ValueError(
                f"other must have grid_width {self.grid_width}, got {other.grid_width}"
            )
        if other.pessimistic != self.pessimistic:
            raise ValueError("other must be rounded the same way (pessimistic or optimistic)")

    def _truncated(
        self, lowest_index, masses, infinity_mass, scratch=False, outside=0.0, shift=None, power=1
    ):
        """Bound the FFT round-off and cut tails of at most tail_mass, on the safe side.

        Every mass the transform returns is within ``noise`` of the true one, and all
        are within ``total`` together (``round_off_bound``; ``power`` is the k its
        transform was raised to). A pessimistic PLD puts ``total`` on +inf (which raises
        delta at least as much as any masses can), an optimistic one subtracts noise from
        every mass, so that neither bound is crossed by round-off. ``masses`` is changed
        in place; with ``scratch`` (a work array) the kept part is copied out. With
        ``shift``, ``masses`` is a work array whose masses start at that position and wrap
        around: they are read in order into a new array as they are bounded, in one pass.

        ``outside`` bounds the composed mass beyond each end of a window shorter than the
        whole support (``_windows``), which the cyclic transform wrapped into it: each
        mass is its own plus some wrapped mass, at most 2 ``outside`` in all. Delta is
        sum_i p_i w_i(epsilon) + p_inf with weights w_i = (1 - e^(epsilon - L_i))_+ that
        grow with L_i. A pessimistic PLD puts ``outside`` on +inf for the mass above the
        window (the mass from below only moved up, raising delta). An optimistic one
        takes 2 ``outside`` from its highest kept loss, whose weight is the largest: that
        lowers delta by at least what the wrapped mass raised it. Its top mass is more
        than tail_mass (the cut stops below a mass that would take the tail past it), and
        ``_windows`` keeps ``outside`` a thousandth of tail_mass, so the mass stays >= 0.
        """
        size = masses.size
        noise, total = _fft.round_off(masses, power)  # the same for the masses in any order
        # The transform's output is the caller's own array: changed in place below.
        masses = masses.astype(float, copy=False)
        pieces = [(masses, masses)]
        if shift is not None:
            ordered = np.empty(size)
            pieces = [
                (masses[shift:], ordered[: size - shift]),
                (masses[:shift], ordered[size - shift :]),
            ]
            masses = ordered
        for source, target in pieces:
            if self.pessimistic:
                np.maximum(source, 0.0, out=target)
            else:
                np.subtract(source, noise, out=target)
                np.maximum(target, 0.0, out=target)
        if self.pessimistic:
            infinity_mass = infinity_mass + total
        first, below = _cut(masses, self.tail_mass)
        cut_from_top, above = _cut(masses[::-1], self.tail_mass)
        last = size - 1 - cut_from_top
        if first > last:  # nothing would be left: keep the largest mass
            first = last = int(np.argmax(masses))
            below = float(masses[:first].sum())
            above = float(masses[last + 1 :].sum())
        kept = masses[first : last + 1]
        if scratch:
            kept = kept.copy()
        if self.pessimistic:
            kept[0] += below  # rounded up to the lowest kept loss
            infinity_mass = infinity_mass + above + outside  # rounded up to +inf
        else:
            kept[-1] += above  # rounded down to the highest kept loss; below is dropped
            kept[-1] = max(kept[-1] - 2.0 * outside, 0.0)
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

    Summed by blocks of 64 over a first stretch of 4,096 masses, four times longer until
    the sum passes the limit (a PLD's tails are short next to its support: the whole is
    never summed for them), then one by one within the block where the limit falls.
    """
    block, stretch = 64, 4096
    while True:
        whole = min(stretch, masses.size) // block * block
        running = np.add.accumulate(np.add.reduce(masses[:whole].reshape(-1, block), axis=1))
        if (running.size and running[-1] > limit) or stretch >= masses.size:
            break
        stretch *= 4
    blocks = int(np.searchsorted(running, limit, side="right"))
    before = float(running[blocks - 1]) if blocks else 0.0
    partial = before + np.add.accumulate(masses[blocks * block : (blocks + 1) * block])
    count = int(np.searchsorted(partial, limit, side="right"))
    return blocks * block + count, (float(partial[count - 1]) if count else before)


def round_off_bound(masses, power=1):
    """Bounds on the round-off of the masses that a composition's transform returned.

    For masses taken straight from ``PrivacyLossDistribution.composed_window``: every one
    is within ``each`` of the exact k-fold composition's mass, and their errors sum to at
    most ``total`` (``_fft.round_off`` says how: where the truth is ~0 the transform
    returns round-off of either sign, and the k-th power multiplies it by k). A
    pessimistic caller puts ``total`` on +inf, an optimistic one subtracts ``each`` from
    every mass.

    Args:
      masses: the masses a transform returned (n of them), before any is changed.
      power: k, the number of compositions the transform's power took.

    Returns:
      (each, total), floats >= 0.

    Taught in: 09-count-privacy-with-an-accountant.ipynb
    """
    return _fft.round_off(masses, power)


def clear_spectrum_cache():
    """Drop the transforms kept on every PLD (for cold benchmarks).

    ``composed_window`` keeps each PLD's transform for the next k; after this call the
    next composition of every PLD transforms it again.

    Taught in: 09-count-privacy-with-an-accountant.ipynb
    """
    _fft.forget_spectra()


def _windows(distributions, k):
    """The part of each k-fold composition one transform computes: (start, count, outside).

    The whole support (start 0, count k (N - 1) + 1, nothing outside), unless a window
    with at most ``outside`` = tail_mass / 1000 of the composed mass beyond each end
    (``_tails.composed_window``) fits a shorter transform, for whole transforms of
    ``_WINDOW_FROM`` to ``_WINDOW_TO`` points: then a window as long as that transform,
    from ``start`` (relative to k lowest_index). ``_truncated`` accounts for the mass
    the transform wraps into it. PLDs of one size and tail_mass (a bracket's two) take
    one call of the bound.
    """
    sizes = [k * (d.masses.size - 1) + 1 for d in distributions]
    whole = [(0, size, 0.0) for size in sizes]
    longest = _fft.fft_length(max(sizes))
    # Longer supports keep their whole transform: the upper ends lesson 09 prints for
    # grids finer than 1e-3 rest, in their ninth digit, on its round-off allowance.
    if not _WINDOW_FROM <= longest <= _WINDOW_TO:
        return whole
    outsides = [d.tail_mass * _OUTSIDE_FRACTION for d in distributions]
    if len(set(sizes)) == 1 and len(set(outsides)) == 1:
        masses = np.array([d.masses for d in distributions])
        bounds = _tails.composed_window(masses, k, outsides[0])
    else:
        bounds = [
            _tails.composed_window(d.masses, k, outside)
            for d, outside in zip(distributions, outsides, strict=True)
        ]
    result = []
    for d, size, outside, (low, high), kept_whole in zip(
        distributions, sizes, outsides, bounds, whole, strict=True
    ):
        shorter = max(_fft.fft_length(high - low + 1), _fft.fft_length(d.masses.size))
        if shorter >= _fft.fft_length(size):
            result.append(kept_whole)
        else:
            result.append((min(low, size - shorter), shorter, outside))
    return result


# ----------------------------------------------------------------------------------------
# Both roundings at once: the bracket
# ----------------------------------------------------------------------------------------


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
    """Optimistic and pessimistic PLDs of k releases of ``pair`` on a grid of width h.

    Args:
      pair: a pair, as for ``pld``.
      k: the number of releases, an int >= 1.
      grid_width: h > 0, the spacing of the loss grid.
      tail_mass: as for ``pld``.
      connect_dots: as in ``pld``, for the pessimistic one.

    Returns:
      A ``PLDBracket`` (``.optimistic``, ``.pessimistic``, ``.delta``, ``.epsilon_for_delta``).

    Taught in: 09-count-privacy-with-an-accountant.ipynb
    """
    k = checked_k(k)
    grid_width, tail_mass = _pld_options(grid_width, True, tail_mass, connect_dots)
    law = _single_release_law(pair)
    key = None
    if isinstance(law, _OneLaplace):
        key = (law.epsilon0, grid_width, tail_mass, bool(connect_dots))
    kept = ONE_RELEASE_BRACKETS.get(key) if key is not None else None
    if kept is None:
        kept = (
            _rounded(law, grid_width, False, tail_mass, False),
            _rounded(law, grid_width, True, tail_mass, connect_dots),
            {},
        )
        if key is not None:
            ONE_RELEASE_BRACKETS[key] = kept
            while len(ONE_RELEASE_BRACKETS) > ONE_RELEASE_KEPT:
                ONE_RELEASE_BRACKETS.pop(next(iter(ONE_RELEASE_BRACKETS)))
    optimistic, pessimistic, spectra = kept
    return PLDBracket(*_self_compose_both(optimistic, pessimistic, k, spectra))


#: One Laplace release's two grid PLDs and their two-row transforms (by length), kept for
#: the next bracket of the same release and grid (a slider that moves k), the latest
#: ``ONE_RELEASE_KEPT`` of them: a dict, cleared for cold benchmarks.
ONE_RELEASE_BRACKETS = {}
ONE_RELEASE_KEPT = 8


def _self_compose_both(optimistic, pessimistic, k, spectra=None):
    """Both PLDs of a bracket composed k times, by one transform of a two-row array.

    Set on one common grid (zeros where one PLD has no point), the two rows go through
    the same arithmetic as two separate ``self_compose`` calls (``_fft.self_compose_rows``
    says why that is sound and faster); lengths past the one-shot limit or transformed in
    long double take two ``self_compose`` calls. ``spectra`` (a dict by length, or None)
    keeps the two-row transform for the next k: the transform of one release does not
    depend on k, only the power and the inverse transform do.
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
    length = _fft.fft_length(size)
    if size > _ONE_SHOT_POINTS or _fft.extended(length):
        return optimistic.self_compose(k), pessimistic.self_compose(k)
    both = (optimistic, pessimistic)
    offsets = [distribution.lowest_index - lowest for distribution in both]
    rows = [(offset, d.masses) for offset, d in zip(offsets, both, strict=True)]
    infinities = [-math.expm1(k * math.log1p(-d.infinity_mass)) for d in both]
    windows = _windows(both, k)
    if not any(outside for _, _, outside in windows):  # both whole: one common support
        composed = _fft.self_compose_rows(rows, k, length, kept=spectra)
        return tuple(
            distribution._truncated(k * lowest, row, infinity, scratch=True, power=k)
            for row, distribution, infinity in zip(
                composed[:, :size], both, infinities, strict=True
            )
        )
    # Shorter windows: one transform if both take the same length and both rows fit it.
    length = windows[0][1]
    fits = all(o + d.masses.size <= length for o, d in zip(offsets, both, strict=True))
    if windows[1][1] != length or not fits or _fft.extended(length):
        return optimistic.self_compose(k), pessimistic.self_compose(k)
    composed = _fft.self_compose_rows(rows, k, length, kept=spectra)
    result = []
    for row, distribution, offset, infinity, (start, _, outside) in zip(
        composed, both, offsets, infinities, windows, strict=True
    ):
        # Index j of this row's composition sits at position (j + k offset) mod length.
        shift = (start + k * offset) % length
        first = k * distribution.lowest_index + start
        result.append(
            distribution._truncated(first, row, infinity, outside=outside, shift=shift, power=k)
        )
    return tuple(result)


# ----------------------------------------------------------------------------------------
# The law of one Laplace release, in closed form
# ----------------------------------------------------------------------------------------


class _OneLaplace(LossLaw):
    """One Laplace release of epsilon0, with what ``pld`` needs in closed form.

    The ``LossLaw`` interface but ``exceeds``, ``exceeds_d2`` and the quantiles, which
    ``pld`` does not use. With W = (epsilon0 - L) / (2 epsilon0) in [0, 1] (as in
    ``ComposedLaplace``): atoms 1/2 at L = epsilon0 and e^-epsilon0 / 2 at L = -epsilon0,
    and in between W has density (epsilon0 / 2) e^(-epsilon0 w), so that the continuous
    part has P[L > t] = (1 - e^(-epsilon0 x)) / 2 and P[L <= t] = (e^(-epsilon0 x) -
    e^-epsilon0) / 2 at x = (epsilon0 - t) / (2 epsilon0), and delta(t) = 1 - e^(-epsilon0
    x) = 1 - e^((t - epsilon0) / 2) on [-epsilon0, epsilon0] (1 - e^t below, 0 above).
    """

    continuous_median = 0.0
    tails_cut = False

    def __init__(self, epsilon0):
        self.epsilon0 = epsilon0
        self.loss_atoms = (
            np.array([epsilon0, -epsilon0]),
            np.array([0.5, 0.5 * math.exp(-epsilon0)]),
        )

    def continuous_range(self, tail_mass):
        """[-epsilon0, epsilon0], whatever tail_mass: nothing lies beyond."""
        return -self.epsilon0, self.epsilon0

    def _w(self, t):
        """W = (epsilon0 - t) / (2 epsilon0), clipped to [0, 1]."""
        w = (self.epsilon0 - np.asarray(t, dtype=float)) / (2.0 * self.epsilon0)
        return np.minimum(np.maximum(w, 0.0), 1.0)

    def cell_masses(self, edges):
        """P[a < L <= b] of the continuous part for neighbouring (sorted) edges a, b.

        For edges in [-epsilon0, epsilon0]: e^(-e0 w_b) (1 - e^(-(b - a) / 2)) / 2, with no
        difference of nearly equal numbers.
        """
        low, high = edges[:-1], edges[1:]
        return -0.5 * np.exp(-self.epsilon0 * self._w(high)) * np.expm1(0.5 * (low - high))

    def continuous_exceeds(self, t):
        """P[L > t] of the continuous part: (1 - e^(-e0 w)) / 2."""
        return -0.5 * np.expm1(-self.epsilon0 * self._w(t))

    def continuous_cdf(self, t):
        """P[L <= t] of the continuous part, summed from the bottom (no cancellation)."""
        # e^(-e0 w) (1 - e^(-e0 (1 - w))) / 2.
        w = self._w(t)
        return -0.5 * np.exp(-self.epsilon0 * w) * np.expm1(-self.epsilon0 * (1.0 - w))

    def hockey(self, t):
        """delta(t) for any real t: 1 - e^((t - e0) / 2) inside, 1 - e^t below, 0 above."""
        t = np.asarray(t, dtype=float)
        inside = -np.expm1(-self.epsilon0 * self._w(t))
        return np.where(t < -self.epsilon0, -np.expm1(np.minimum(t, 0.0)), inside)
