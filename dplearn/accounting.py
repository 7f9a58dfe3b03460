"""The privacy of a DP-SGD training run: T steps of the Poisson-subsampled Gaussian.

DP-SGD (Abadi et al., "Deep learning with differential privacy", CCS 2016) takes T steps;
each step draws a Poisson batch of rate q, clips every example's gradient to norm C, sums
them and adds N(0, (sigma C)^2) noise in every coordinate. One step is the subsampled
Gaussian mechanism of noise multiplier sigma (sensitivity C, noise sigma C: only the
ratio matters), and the run is its T-fold composition. Two accountants:

- ``method="pld"``: the privacy loss distribution of one step on a grid of width h,
  composed T times by one FFT (as in dp_accounting's PLD accountant; Koskela, Jalko &
  Honkela 2020; the pessimistic grid PLD is the "connect the dots" one of Doroshenko,
  Ghazi, Kamath, Kumar & Manurangsi 2022). The result is pessimistic: never below the
  exact epsilon. ``dp_sgd_bracket`` also gives a lower bound, so the exact epsilon lies
  inside a known bracket. The grid PLDs are ``composition.PrivacyLossDistribution``s
  and are composed by its code, as lesson 09's are: one step's loss is a
  ``composition.LossLaw`` (``_StepLoss``) that ``composition.pld``'s connect-the-dots
  grid reads; only the window of the T-fold law (Chernoff bounds) and the two grids of
  the lower bound are this module's own.
- ``method="rdp"``: T times the Rényi DP of one step at a list of orders (Mironov, Talwar &
  Zhang 2019), converted to (epsilon, delta) by Balle et al. 2020 (``dplearn.renyi``).

Neighbours add or remove one example; epsilon is the larger of the two directions (the
add side is first bounded on a grid ten times coarser: where that bound is already below
the remove side's value, it cannot be the larger one).

How wide the bracket is: the pessimistic (connect-the-dots) PLD errs by a second-order
amount per step, so its epsilon is close to the exact one (2.38178 at h = 1e-4 and 2.39062
at h = 1e-3 for 14,063 steps at q = 256/60000, sigma = 1.1, delta = 1e-5, the same as
dp_accounting's). The lower bound rounds each loss to either end of its grid cell keeping
the cell's mean (Gopi, Lee & Wutschitz, "Numerical composition of differential privacy",
NeurIPS 2021), on a grid three times finer than h: [2.37157, 2.38178] there, 0.0102 wide,
against dp_accounting's own bracket [1.6786, 2.3818] at the same h (its optimistic PLD
rounds down, which moves the composed loss by about T h / 2) and prv_accountant's
[2.3715, 2.3918] at its eps_error = 0.01. For a few steps (while T h / 4 is below that
bound's eta) the lower bound rounds down on a grid of h / 2 instead. Mass that the grids
or the composed window leave off is accounted on the safe side (to +inf, or added to the
target delta): a delta below about T * 1e-14 is beyond what the grid resolves, and its
epsilon is inf.

Why the lower end is sound (no probability of failure): the mean-keeping split of a cell
equals, in law, rounding each exact loss L of the cell up with probability (L - L_i) / h
and down otherwise. So the rounded run is the exact run with an error e_j added to each
step's loss, where given the exact losses the e_j are independent, have mean <= 0 (the
up-probabilities are lowered by a margin that covers the quadrature) and each takes one
of two values h apart. Hoeffding's inequality given the losses, or Bernstein's with the
errors' variance (about h^2 / 6, integrated from the one-step law), bounds
P[e_1 + ... + e_T >= eta] by any beta chosen, and off that event the rounded run's
loss S~ is below S + eta. delta(epsilon) = E[max(0, 1 - e^(epsilon - S))] grows with S,
so delta~(epsilon + eta) <= delta(epsilon) + beta, and no epsilon below the lower end
epsilon~(delta + beta) - eta meets delta. The lower end is the best of a few beta
(fractions of delta), with the composition's round-off and window slack on the safe side.

Taught in: 11-account-for-a-training-run.ipynb
"""

from __future__ import annotations

import collections
import functools
import math
from typing import NamedTuple

import numpy as np
from scipy import special

from dplearn import _validation as check
from dplearn import privacy_loss, renyi, subsampling
from dplearn.composition.law import LossLaw
from dplearn.composition.pld import (
    PrivacyLossDistribution,
    clear_spectrum_cache,
    connect_the_dots_pld,
    round_off_bound,
)

__all__ = [
    "PLDEpsilonBracket",
    "DPSGDRun",
    "check_run",
    "dp_sgd_epsilon",
    "dp_sgd_bracket",
    "dp_sgd_pld",
    "DEFAULT_GRID_WIDTH",
]

#: Grid width h of the PLD accountant by default (dp_accounting's default too).
DEFAULT_GRID_WIDTH = 1e-4
#: Probability each one-step PLD may leave off its tails (accounted for, on the safe side).
_TAIL_MASS = 1e-15
#: Probability each composed PLD's window may leave off each end (accounted for).
_WINDOW_TAIL = 1e-14
#: Most grid points of one composed PLD, and of one step (so that one call's time is bounded).
_MAX_POINTS = 2**22
_MAX_STEP_POINTS = 2**19


class PLDEpsilonBracket(NamedTuple):
    """Bounds on the exact epsilon of a run: optimistic <= exact <= pessimistic.

    Attributes:
      optimistic: a lower bound (mean-preserving rounding on a finer grid, less eta; see
        the module for why it is sound).
      pessimistic: an upper bound (the connect-the-dots grid PLD); ``dp_sgd_epsilon``'s
        value.
      width: pessimistic - optimistic.
      grid_width: the grid width h used.
    """

    optimistic: float
    pessimistic: float
    width: float
    grid_width: float


class DPSGDRun(NamedTuple):
    """The setting of a DP-SGD run that its privacy depends on, checked (``check_run``).

    Attributes:
      sampling_rate: q, in (0, 1].
      noise_multiplier: sigma, in [1e-3, 1e6].
      steps: T, a whole number in [1, 10**7].
    """

    sampling_rate: float
    noise_multiplier: float
    steps: int


def check_run(sampling_rate, noise_multiplier, steps):
    """Checks the setting of a DP-SGD run the accountants accept.

    Args:
      sampling_rate: Poisson sampling rate q, in (0, 1].
      noise_multiplier: sigma, in [1e-3, 1e6].
      steps: T, a whole number in [1, 10**7].

    Returns:
      A ``DPSGDRun`` of floats and an int.

    Raises:
      ValueError: naming the first argument outside its range.
    """
    rate = check.scalar("sampling_rate", sampling_rate)
    if not 0.0 < rate <= 1.0:
        raise ValueError(f"sampling_rate must lie in (0, 1], got {sampling_rate!r}")
    sigma = check.positive("noise_multiplier", noise_multiplier, scalar=True)
    if not 1e-3 <= sigma <= 1e6:
        raise ValueError(f"noise_multiplier must lie in [1e-3, 1e6], got {noise_multiplier!r}")
    steps = check.whole("steps", steps, minimum=1, maximum=10**7)
    return DPSGDRun(rate, sigma, steps)


def _inputs(sampling_rate, noise_multiplier, steps, delta):
    rate, sigma, steps = check_run(sampling_rate, noise_multiplier, steps)
    delta = check.probability_open("delta", delta, scalar=True)
    return rate, sigma, steps, delta


def _grid_width(grid_width):
    h = check.positive("grid_width", grid_width, scalar=True)
    if not 1e-6 <= h <= 1.0:
        raise ValueError(f"grid_width must lie in [1e-6, 1], got {grid_width!r}")
    return h


def dp_sgd_epsilon(
    sampling_rate, noise_multiplier, steps, delta, method="pld", orders=None, grid_width=None
):
    """Epsilon at delta of a DP-SGD run: ``steps`` steps of the subsampled Gaussian.

    Args:
      sampling_rate: Poisson sampling rate q = batch size / data set size, in (0, 1].
      noise_multiplier: sigma, the noise standard deviation over the clipping norm, in
        [1e-3, 1e6].
      steps: number of steps T, a whole number in [1, 10**7].
      delta: target delta, in (0, 1).
      method: "pld" (pessimistic: never below the exact epsilon; ``dp_sgd_bracket`` gives
        the bracket around the exact value) or "rdp" (Rényi DP at ``orders``).
      orders: RDP orders (each > 1) for method "rdp"; None for ``renyi.DEFAULT_ORDERS``
        (dp_accounting's default list).
      grid_width: h for method "pld", in [1e-6, 1]; None for 1e-4.

    Returns:
      epsilon, a float (0 when delta is already met at epsilon = 0; inf if never).

    Taught in: 11-account-for-a-training-run.ipynb
    """
    rate, sigma, steps, delta = _inputs(sampling_rate, noise_multiplier, steps, delta)
    if method == "rdp":
        if grid_width is not None:
            raise ValueError(f"grid_width applies to method 'pld' only, got {grid_width!r}")
        alphas = np.asarray(renyi.DEFAULT_ORDERS if orders is None else orders, dtype=object)
        alphas = check.orders("orders", alphas.tolist())
        one_step = np.asarray(
            renyi.rdp(subsampling.poisson(privacy_loss.gaussian(sigma), rate), alphas)
        )
        return renyi.to_epsilon(alphas, steps * one_step, delta)
    if method != "pld":
        raise ValueError(f"method must be 'pld' or 'rdp', got {method!r}")
    if orders is not None:
        raise ValueError(f"orders applies to method 'rdp' only, got {orders!r}")
    h = DEFAULT_GRID_WIDTH if grid_width is None else _grid_width(grid_width)
    return _bracket(rate, sigma, steps, delta, h, pessimistic_only=True).pessimistic


def dp_sgd_bracket(sampling_rate, noise_multiplier, steps, delta, grid_width=None):
    """Optimistic and pessimistic epsilon of a DP-SGD run, around the exact one.

    The exact epsilon lies between them. It takes the arguments of ``dp_sgd_epsilon``
    (method "pld"). The pessimistic end is ``dp_sgd_epsilon``'s value on the grid of width
    h; the optimistic end is a true lower bound from mean-preserving rounding on a grid
    three times finer, less the bound eta on the summed rounding errors (see the module).
    At 14,063 steps of q = 256/60000, sigma = 1.1, delta = 1e-5 and h = 1e-4 the bracket
    is [2.37157, 2.38178], 0.0102 wide.

    Returns:
      A ``PLDEpsilonBracket`` (optimistic, pessimistic, width, grid_width).

    Taught in: 11-account-for-a-training-run.ipynb
    """
    rate, sigma, steps, delta = _inputs(sampling_rate, noise_multiplier, steps, delta)
    h = DEFAULT_GRID_WIDTH if grid_width is None else _grid_width(grid_width)
    return _bracket(rate, sigma, steps, delta, h, pessimistic_only=False)


def dp_sgd_pld(sampling_rate, noise_multiplier, steps, grid_width=None, direction="remove"):
    """The pessimistic privacy loss distribution of a DP-SGD run, in one direction.

    The PLD whose ``dp_sgd_epsilon`` is read: one step's connect-the-dots PLD on a grid of
    width h, composed T times in its Chernoff window, with every mass the window or the
    round-off leaves off moved to +inf (so its delta is never below the exact one).

    Args:
      sampling_rate, noise_multiplier, steps: the run, as for ``dp_sgd_epsilon``.
      grid_width: h, in [1e-6, 1]; None for 1e-4.
      direction: "remove" (the example is in the first data set) or "add".

    Returns:
      A ``composition.PrivacyLossDistribution`` (pessimistic).

    Raises:
      ValueError: for a run outside ``check_run``'s ranges, a bad grid_width or direction.

    Taught in: 14-attack-the-model.ipynb
    """
    rate, sigma, steps = check_run(sampling_rate, noise_multiplier, steps)
    h = DEFAULT_GRID_WIDTH if grid_width is None else _grid_width(grid_width)
    if direction not in ("remove", "add"):
        raise ValueError(f"direction must be 'remove' or 'add', got {direction!r}")
    distribution, _ = _compose((rate, sigma, h, direction, True), steps)
    return distribution


# ----------------------------------------------------------------------------------------
# One step on the grid
# ----------------------------------------------------------------------------------------


class _OneStep(NamedTuple):
    """One direction's one-step grid laws on L_i = (lowest + i) h, for the lower bound.

    Attributes:
      lowest: the grid index of the first mass.
      optimistic: the rounded-down masses (a sub-probability).
      balanced: rounded to either end of its cell, keeping each cell's mean.
      rounding_variance: an upper bound on E[e^2] of the balanced rounding's error e.
      rounding_bias: an upper bound on -E[e] (the up-probabilities' margin), >= 0.
    """

    lowest: int
    optimistic: np.ndarray
    balanced: np.ndarray
    rounding_variance: float
    rounding_bias: float


class _StepLoss(LossLaw):
    """The privacy loss of one direction of one step, as ``composition.pld`` reads a law.

    No atoms, the loss range of ``_loss_range`` and delta in closed form (what its
    connect-the-dots grid needs; the rounded-down and mean-keeping grids of the lower
    bound are built here, from the Gaussian's cells in z).
    """

    tails_cut = True

    def __init__(self, direction, loss_range):
        self.direction = direction
        self.max_loss = direction.max_loss
        self.loss_atoms = (np.empty(0), np.empty(0))
        self._range = loss_range

    def continuous_range(self, tail_mass):
        """The loss range this step's grid was built on, whatever tail_mass."""
        return self._range

    def hockey(self, x):
        """delta(x) of the direction, for every real x."""
        return self.direction.hockey_stick(np.asarray(x, dtype=float))


def _standard_outputs(direction, losses):
    """z = (o - c) / sigma of the output whose loss is each grid loss (monotone)."""
    pair = direction.mechanism
    r = pair.ratio
    ell = direction.base_loss(losses)
    with np.errstate(over="ignore", invalid="ignore"):
        z = ell / r + r / 2.0
    # Beyond the loss's range (below the remove side's smallest, above the add side's
    # largest loss) no output has that loss: z = -inf there.
    if isinstance(direction, subsampling.SubsampledRemove):
        return np.where(losses <= direction.min_loss, -np.inf, z)
    return np.where(losses >= direction.max_loss, -np.inf, z)


def _normal_cell(z_low, z_high, shift):
    """P[z_low < Z + shift <= z_high] for Z ~ N(0, 1), from the nearer tail (no cancellation)."""
    a, b = z_low - shift, z_high - shift
    upper = special.ndtr(-a) - special.ndtr(-b)
    lower = special.ndtr(b) - special.ndtr(a)
    return np.maximum(np.where(a > 0, upper, lower), 0.0)


def _loss_range(direction, tail_mass):
    """(low, high): the losses between which the grid runs.

    high: the smallest loss where delta has fallen to tail_mass (what the pessimistic PLD
    puts on +inf), at most the largest loss. low: the loss of the output beyond which
    N(0, 1) leaves only tail_mass (the optimistic PLD drops what lies below, the
    pessimistic one moves it up to the lowest grid point), at least the smallest loss.
    """
    q, r = direction.rate, direction.mechanism.ratio
    top = direction.max_loss
    # Two vectorised passes (a coarse geometric grid, then a fine one in the bracket
    # found): the first candidate whose delta is at most tail_mass.
    candidates = np.geomspace(1e-6, 1e7, 241)
    candidates = np.append(candidates[candidates < top], top if np.isfinite(top) else 1e8)
    meets = direction.hockey_stick(candidates) <= tail_mass
    first = int(np.argmax(meets)) if meets.any() else candidates.size - 1
    lower = candidates[first - 1] if first > 0 else 0.0
    fine = np.linspace(lower, candidates[first], 257)
    meets = direction.hockey_stick(fine) <= tail_mass
    upper = float(fine[int(np.argmax(meets))] if meets.any() else candidates[first])
    z = -float(special.ndtri(tail_mass))  # the remove side's far left is -z, the add's +z
    log_keep = math.log1p(-q) if q < 1.0 else -math.inf
    if isinstance(direction, subsampling.SubsampledRemove):
        low = float(np.logaddexp(log_keep, math.log(q) - r * z - r * r / 2.0))
        low = max(low, direction.min_loss)
    else:
        low = float(-np.logaddexp(log_keep, math.log(q) + r * z - r * r / 2.0))
    return low, upper


@functools.lru_cache(maxsize=64)
def _direction_range(rate, sigma, side):
    """(direction, (low, high)): one direction of one step and its loss range."""
    pair = subsampling.poisson(privacy_loss.gaussian(sigma), rate)
    direction = pair.remove if side == "remove" else pair.add
    return direction, _loss_range(direction, _TAIL_MASS)


def _step_indices(rate, sigma, grid_width, side):
    """(lowest, highest) grid indices that hold one step's loss range, unchecked."""
    _, (low, high) = _direction_range(rate, sigma, side)
    return int(math.floor(low / grid_width)), int(math.ceil(high / grid_width))


def _grid_extent(rate, sigma, grid_width, side):
    """(lowest, highest) grid indices of one step; a ValueError if too many.

    Checked for every grid a bracket needs before any is built, so that refusing is quick.
    """
    lowest, highest = _step_indices(rate, sigma, grid_width, side)
    if highest - lowest + 1 > _MAX_STEP_POINTS:
        raise ValueError(
            f"grid_width must be larger for this noise_multiplier: {highest - lowest + 1} "
            f"grid points for one step at grid_width={grid_width!r} (at most "
            f"{_MAX_STEP_POINTS})"
        )
    return lowest, max(highest, lowest + 2)


@functools.lru_cache(maxsize=64)
def _connect_the_dots_step(rate, sigma, grid_width, side):
    """One direction's connect-the-dots PLD of one step (the pessimistic one), cached.

    The grid PLD whose delta is the exact one at every grid loss, on the grid from
    floor(low / h) to ceil(high / h) (``composition.pld``'s own construction).
    """
    direction, loss_range = _direction_range(rate, sigma, side)
    _grid_extent(rate, sigma, grid_width, side)
    return connect_the_dots_pld(_StepLoss(direction, loss_range), grid_width, tail_mass=_TAIL_MASS)


@functools.lru_cache(maxsize=64)
def _one_step(rate, sigma, grid_width, side):
    """The lower bound's one-step grid laws of one direction, cached per (q, sigma, h)."""
    direction, _ = _direction_range(rate, sigma, side)
    lowest, highest = _grid_extent(rate, sigma, grid_width, side)
    losses = np.arange(lowest, highest + 1) * grid_width
    # Rounded down: the mass of [L_i, L_(i+1)) to L_i, all above the top to the top;
    # below the bottom (the add side's unbounded tail) dropped.
    z = _standard_outputs(direction, losses)
    r = direction.mechanism.ratio
    if side == "remove":
        z = np.concatenate([z, [np.inf]])
        cells = (1.0 - rate) * _normal_cell(z[:-1], z[1:], 0.0) + rate * _normal_cell(
            z[:-1], z[1:], r
        )
    else:
        # Losses decrease with z: [L_i, L_(i+1)) is z in (z_(i+1), z_i].
        z = np.concatenate([z, [-np.inf]])
        cells = _normal_cell(z[1:], z[:-1], 0.0)
    balanced, variance, bias = _balanced(direction, losses, z, cells, grid_width)
    return _OneStep(lowest, cells, balanced, variance, bias)


def _gauss_legendre(count):
    """Gauss-Legendre nodes and weights on [0, 1]."""
    nodes, weights = np.polynomial.legendre.leggauss(count)
    return (nodes + 1.0) / 2.0, weights / 2.0


#: Nodes and weights on [0, 1] for each cell's mean loss: 4 in cells at most
#: ``_CELL_NARROW`` wide in z (the loss nearly linear across them: 4 nodes, exact to
#: degree 7, move u by under 1e-10 there, far inside ``_UP_MARGIN``), else 8.
_CELL_NARROW = 0.05
_NARROW_NODES, _NARROW_WEIGHTS = _gauss_legendre(4)
_CELL_NODES, _CELL_WEIGHTS = _gauss_legendre(8)
#: Cells wider than this in z (or unbounded: the ends of the loss range, where the loss
#: flattens) are integrated on 40 panels over the last 20 units of z before their end.
_CELL_WIDEST = 0.5
_WIDE_PANELS = 40
_WIDE_SPAN = 20.0
#: Every up-probability is lowered by this much: the quadrature's error (far smaller)
#: can then only bias the rounding down, the safe side for a lower bound.
_UP_MARGIN = 1e-7
#: The rounding error's variance from the same quadrature is raised by this fraction
#: (the quadrature's relative error is far smaller).
_VARIANCE_MARGIN = 1e-3


def _balanced(direction, losses, z, cells, grid_width):
    """Each cell's mass split between its two grid ends so that its mean loss is kept.

    Mean-preserving rounding, as in Gopi, Lee & Wutschitz 2021, for the lower bound.

    Cell i holds the losses in [L_i, L_(i+1)) (z between z[i] and z[i + 1]); its mean loss
    m_i (Gauss-Legendre in z, density and loss in closed form: one panel of 8 nodes, or 40
    over the 20 units of z nearest the cell's finite end where it is wide or unbounded in
    z) sends the fraction (m_i - L_i) / h of its mass up to L_(i+1), the rest to L_i. The
    top cell, unbounded in loss, is rounded down.

    In law this is rounding each loss L of the cell up with probability u = (L - L_i) / h
    (lowered in proportion by the margin): the error e = L~ - L then has mean <= 0 given
    L and E[e^2 | L] <= h^2 (u (1 - u) + the lowering). Cells rounded down count with an
    error of 0 instead, which is larger than theirs (see ``_lower_epsilon``).

    Returns:
      (balanced masses, an upper bound on E[e^2], an upper bound on -E[e]).
    """
    q, r = direction.rate, direction.mechanism.ratio
    low_z, high_z = np.minimum(z[:-1], z[1:]), np.maximum(z[:-1], z[1:])
    with np.errstate(invalid="ignore"):
        width = high_z - low_z  # NaN where both ends are infinite: not usable
    usable = ~np.isnan(width) & (cells > 0) & (np.isfinite(low_z) | np.isfinite(high_z))
    usable[-1] = False
    start = np.where(np.isfinite(low_z), low_z, high_z - _WIDE_SPAN)
    end = np.where(np.isfinite(high_z), high_z, low_z + _WIDE_SPAN)
    start = np.maximum(start, end - _WIDE_SPAN)
    balanced = cells.copy()
    log_keep = math.log1p(-q) if q < 1.0 else -math.inf
    spread, lowered = 0.0, 0.0
    with np.errstate(invalid="ignore"):
        kinds = [
            (width <= _CELL_NARROW, _NARROW_NODES, _NARROW_WEIGHTS, 1),
            ((width > _CELL_NARROW) & (width <= _CELL_WIDEST), _CELL_NODES, _CELL_WEIGHTS, 1),
            (~(width <= _CELL_WIDEST), _CELL_NODES, _CELL_WEIGHTS, _WIDE_PANELS),
        ]
    for chosen, cell_nodes, cell_weights, panels in kinds:
        index = np.flatnonzero(usable & chosen)
        if not index.size:
            continue
        span = (end[index] - start[index]) / panels
        offsets = (np.arange(panels)[:, None] + cell_nodes[None, :]).ravel()
        nodes = start[index, None] + span[:, None] * offsets[None, :]
        weights_1d = np.tile(cell_weights, panels)[None, :]
        with np.errstate(divide="ignore", under="ignore"):
            remove_loss = np.logaddexp(log_keep, math.log(q) + r * nodes - r * r / 2.0)
            # The remove side's density (1 - q) phi(z) + q phi(z - r) is phi(z) e^L.
            if isinstance(direction, subsampling.SubsampledRemove):
                density = np.exp(remove_loss - nodes * nodes / 2.0)
                loss = remove_loss
            else:
                density = np.exp(-nodes * nodes / 2.0)
                loss = -remove_loss
        weights = density * weights_1d
        total = weights.sum(axis=1)
        good = total > 0
        divisor = np.where(good, total, 1.0)
        # u at each node, the position of its loss in the cell (0 at L_i, 1 at L_(i+1)).
        position = np.clip((loss - losses[index, None]) / grid_width, 0.0, 1.0)
        mean_position = np.where(good, (weights * position).sum(axis=1) / divisor, 0.0)
        spread_in_cell = np.where(
            good, (weights * position * (1.0 - position)).sum(axis=1) / divisor, 0.0
        )
        up = np.clip(mean_position - _UP_MARGIN, 0.0, 1.0)
        moved = cells[index] * np.where(good, up, 0.0)
        balanced[index] -= moved
        balanced[index + 1] += moved
        spread += float(np.dot(cells[index], spread_in_cell))
        lowered += float(np.dot(cells[index], np.abs(mean_position - up)))
    # E[e^2 | L] = h^2 (u (1 - u) + (u - p)(2u - 1)) for an up-probability p = lambda u:
    # at most h^2 (u (1 - u) + (u - p)). A relative margin covers the quadrature.
    variance = grid_width**2 * (spread + lowered) * (1.0 + _VARIANCE_MARGIN)
    return balanced, variance, lowered


# ----------------------------------------------------------------------------------------
# T steps: one windowed transform
# ----------------------------------------------------------------------------------------

#: Tilts t at which each one-step PLD's log moment generating function is kept, for the
#: Chernoff bounds that size the composed window (ratio 1.5 between neighbours: near its
#: best tilt the bound is flat, so the window is at most ~2 % wider than at the best t).
_TILTS = np.geomspace(1e-2, 1e3, 30)


class _Row(NamedTuple):
    """A one-step PLD ready to compose, and ln E[e^(t L)], ln E[e^(-t L)] of its finite part.

    The log moments are kept at ``_TILTS``.
    """

    distribution: PrivacyLossDistribution
    log_mgf_up: np.ndarray
    log_mgf_down: np.ndarray


def _log_mgf(losses, masses, sign):
    """ln sum_i p_i e^(sign t L_i) at every tilt, without overflow (shifted by the extreme loss)."""
    extreme = losses.max() if sign > 0 else losses.min()
    offsets = sign * (losses - extreme)  # <= 0
    result = np.empty(_TILTS.size)
    for start in range(0, _TILTS.size, 40):
        tilts = _TILTS[start : start + 40]
        with np.errstate(under="ignore"):
            sums = np.exp(np.multiply.outer(tilts, offsets)) @ masses
        result[start : start + 40] = sign * tilts * extreme + np.log(sums)
    return result


@functools.lru_cache(maxsize=64)
def _row(rate, sigma, grid_width, side, pessimistic):
    """One direction's one-step PLD.

    pessimistic: True for connect the dots, False for rounded down, "balanced" for the
    mean-keeping rounding.
    """
    if pessimistic is True:
        distribution = _connect_the_dots_step(rate, sigma, grid_width, side)
    else:
        step = _one_step(rate, sigma, grid_width, side)
        masses = step.optimistic if pessimistic is False else step.balanced
        keep = np.flatnonzero(masses > 0)
        first, last = (int(keep[0]), int(keep[-1])) if keep.size else (0, 0)
        distribution = PrivacyLossDistribution(
            grid_width,
            step.lowest + first,
            np.ascontiguousarray(masses[first : last + 1]),
            0.0,
            False,
            _TAIL_MASS,
        )
    losses, masses = distribution.losses, distribution.masses
    if pessimistic == "balanced":
        losses, masses = _spread(distribution, _MGF_SPREAD)
    return _Row(distribution, _log_mgf(losses, masses, 1.0), _log_mgf(losses, masses, -1.0))


#: The lower bound's fine one-step PLD is spread onto a grid this many times coarser
#: before its log moments are taken (``_spread``).
_MGF_SPREAD = 16


def _spread(distribution, factor):
    """(losses, masses): the PLD rounded at random to the grid ``factor`` times coarser.

    Each mass goes to its two coarse neighbours in the proportions that keep its mean: a
    mean-preserving spread, so E[e^(t L)] can only grow (e^(t L) is convex) and a Chernoff
    window from its moments, ``factor`` times cheaper, still holds for the fine PLD.
    """
    index = distribution.lowest_index + np.arange(distribution.masses.size)
    below = np.floor_divide(index, factor)
    up = (index - below * factor) / factor
    start = int(below[0])
    offsets = below - start
    size = int(offsets[-1]) + 2
    masses = np.bincount(
        offsets, weights=distribution.masses * (1.0 - up), minlength=size
    ) + np.bincount(offsets + 1, weights=distribution.masses * up, minlength=size)
    losses = (start + np.arange(size)) * (factor * distribution.grid_width)
    return losses, masses


def _window(row, steps, tail):
    """Grid indices [low, high] outside which T steps leave at most ``tail`` on each side.

    Chernoff: P[S >= x] <= E[e^(t S)] e^(-t x) = e^(T ln E[e^(t L)] - t x), t > 0.
    """
    log_tail = math.log(tail)
    high = float(np.min((steps * row.log_mgf_up - log_tail) / _TILTS))
    low = float(np.max(-(steps * row.log_mgf_down - log_tail) / _TILTS))
    one = row.distribution
    h = one.grid_width
    low_index = max(int(math.floor(low / h)), steps * one.lowest_index)
    high_index = min(int(math.ceil(high / h)), steps * (one.lowest_index + one.masses.size - 1))
    return low_index, max(high_index, low_index)


def _compose(row_key, steps, nonnegative_only=False):
    """T-fold composition of a one-step PLD in its Chernoff window, as a PrivacyLossDistribution.

    Returned with the slack to add to the target delta (optimistic side).

    The window [low, high] leaves at most _WINDOW_TAIL below and above; the transform is
    cyclic, so that mass wraps around into the window. Pessimistic: mass from above the
    window lands lower and lowers delta by at most its size, which goes to +inf; mass from
    below only raises delta. Optimistic: mass from below raises delta by at most its size,
    so the target delta is raised by it. The composition is ``composition.pld``'s (one
    transform of the one-step PLD, kept on it for the next number of steps), and so is
    the bound on its round-off.
    """
    one = _row(*row_key).distribution
    pessimistic = one.pessimistic
    if steps == 1:
        low, size, composed = one.lowest_index, one.masses.size, one.masses.copy()
        infinity = one.infinity_mass
    else:
        low, high = _window(_row(*row_key), steps, _WINDOW_TAIL)
        size = high - low + 1
        if size > _MAX_POINTS:
            raise ValueError(
                f"steps must be fewer at this grid_width: {size} grid points after composing"
            )
        # The optimistic side only subtracts the round-off: double precision at any
        # length loses it a little tightness (the pessimistic side keeps long double).
        composed = one.composed_window(steps, low, size, double=not pessimistic)
        infinity = (
            -math.expm1(steps * math.log1p(-one.infinity_mass)) if one.infinity_mass < 1 else 1.0
        )
    # The T-th power makes the transform's relative round-off about T times larger: the
    # bounds have a term for it (a window holds no stretch of zeros that would show it).
    noise, total = round_off_bound(composed, power=steps)
    wrapped = _WINDOW_TAIL if steps > 1 else 0.0
    if pessimistic:
        np.maximum(composed, 0.0, out=composed)
        infinity = min(infinity + total + wrapped, 1.0)
        slack = 0.0
    else:
        composed -= noise
        np.maximum(composed, 0.0, out=composed)
        slack = wrapped
    if nonnegative_only and low < 0:
        # delta(epsilon) for epsilon >= 0 depends only on the losses above 0: the rest is
        # left out of the distribution that answers (half the work of its solver).
        composed = composed[-low:] if -low < size else composed[-1:] * 0.0
        low = max(low, 0)
    distribution = PrivacyLossDistribution(
        one.grid_width, low, composed, infinity, pessimistic, _TAIL_MASS
    )
    return distribution, slack


def _epsilon(row_key, steps, delta):
    distribution, slack = _compose(row_key, steps, nonnegative_only=True)
    target = delta + slack
    if target >= 1.0:
        return 0.0
    return float(distribution.epsilon_for_delta(target))


_RESULTS = collections.OrderedDict()
_RESULTS_KEPT = 256
#: The add side is first bounded on a grid this many times coarser: where that bound is
#: already below the remove side's, the add side cannot be the larger one.
_COARSE = 10.0


#: The lower bound's mean-keeping grid is this many times finer than h (where its grids
#: fit under ``_MAX_STEP_POINTS`` and ``_MAX_POINTS``; else it is h).
_LOWER_REFINEMENT = 3
#: The failure probabilities beta tried, as fractions of delta: each gives a lower bound
#: epsilon~(delta + beta) - eta(beta), and the largest is kept.
_FAILURE_FRACTIONS = np.array([1e-1, 3e-2, 1e-2, 3e-3, 1e-3, 1e-4, 1e-6])


def _rounding_eta(steps, grid_width, variance, bias, beta):
    """The eta beyond which the T mean-keeping rounding errors add up with probability <= beta.

    The smaller of two bounds on P[e'_1 + ... + e'_T >= eta] for errors with mean <= 0,
    each within an interval of width h: Hoeffding's given the exact losses,
    exp(-2 eta^2 / (T h^2)), and Bernstein's from their variance v <= ``variance``,
    exp(-eta^2 / (2 (T v + b eta / 3))) with b = h (1 + bias) bounding e' - E[e'].
    """
    log_term = math.log(1.0 / beta)
    hoeffding = grid_width * math.sqrt(steps * log_term / 2.0)
    third = grid_width * (1.0 + bias) * log_term / 3.0
    bernstein = third + math.sqrt(third * third + 2.0 * log_term * steps * variance)
    return min(hoeffding, bernstein)


def _lower_row(rate, sigma, steps, grid_width, side):
    """The row key of the lower bound's mean-keeping one-step PLD: the finest grid that fits."""
    fine = grid_width / _LOWER_REFINEMENT
    lowest, highest = _step_indices(rate, sigma, fine, side)
    if highest - lowest + 1 <= _MAX_STEP_POINTS:
        key = (rate, sigma, fine, side, "balanced")
        low_index, high_index = _window(_row(*key), steps, _WINDOW_TAIL)
        if high_index - low_index + 1 <= _MAX_POINTS:
            return key
    return (rate, sigma, grid_width, side, "balanced")


def _balanced_lower_epsilon(rate, sigma, steps, delta, grid_width, side):
    """The lower bound from mean-keeping rounding (``_lower_epsilon``), best over beta."""
    key = _lower_row(rate, sigma, steps, grid_width, side)
    fine = key[2]
    step = _one_step(rate, sigma, fine, side)
    distribution, slack = _compose(key, steps, nonnegative_only=True)
    betas = delta * _FAILURE_FRACTIONS
    targets = delta + betas + slack
    usable = (targets < 1.0) & (betas > 0.0)
    if not usable.any():
        return 0.0
    shifted = np.asarray(distribution.epsilon_for_delta(targets[usable]), dtype=float)
    moments = (step.rounding_variance, step.rounding_bias)
    etas = np.array([_rounding_eta(steps, fine, *moments, beta) for beta in betas[usable]])
    return max(float(np.max(shifted - etas)), 0.0)


def _lower_epsilon(rate, sigma, steps, delta, grid_width, side):
    """A lower bound on one direction's exact epsilon.

    Few steps (while T h / 4, the mean shift of rounding down on h / 2, is below eta): the
    PLD rounded down on a grid of h / 2 (its delta is never above the exact one). Else the
    PLD rounded to either end of each cell keeping the cell's mean (``_balanced``), on a
    grid ``_LOWER_REFINEMENT`` times finer than h where it fits. In law that rounds each
    step's exact loss L_j up or down at random with mean <= L_j: given all the L_j, the
    errors e_j = L~_j - L_j are independent, have mean <= 0 and each takes one of two
    values h apart; cells rounded down whole (the top one, and the mass dropped below the
    grid) have e_j <= 0 and count as e'_j = 0 >= e_j. So P[sum e_j >= eta] <= beta for
    ``_rounding_eta`` (Hoeffding's bound given the L_j, or Bernstein's with the errors'
    variance, about h^2 / 6 against h^2 / 4 for Hoeffding's). Off that event the composed
    loss S~ is below S + eta, and 1 - e^(epsilon - s) grows with s, so delta~(epsilon + eta)
    <= delta(epsilon) + beta: any epsilon below epsilon~(delta + beta) - eta has
    delta(epsilon) > delta. The bound holds for every beta; the best of a few is kept.
    """
    fine = grid_width / _LOWER_REFINEMENT
    if steps * grid_width / 4.0 <= fine * math.sqrt(steps * math.log(1e3 / delta) / 3.0):
        return _epsilon((rate, sigma, grid_width / 2.0, side, False), steps, delta)
    return _balanced_lower_epsilon(rate, sigma, steps, delta, grid_width, side)


def _bracket(rate, sigma, steps, delta, grid_width, pessimistic_only):
    """Max over the two directions of the pessimistic epsilon and of the lower bound.

    The lower bound (``_lower_epsilon``) is left out when pessimistic_only.
    """
    key = (rate, sigma, steps, delta, grid_width, pessimistic_only)
    if key in _RESULTS:
        _RESULTS.move_to_end(key)
        return _RESULTS[key]
    coarse = min(grid_width * _COARSE, 1.0)
    for width, side in [(grid_width, "remove"), (coarse, "add")] + (
        [] if pessimistic_only else [(grid_width / 2.0, "remove")]
    ):
        _grid_extent(rate, sigma, width, side)
    upper = _epsilon((rate, sigma, grid_width, "remove", True), steps, delta)
    add_upper = _epsilon((rate, sigma, coarse, "add", True), steps, delta)
    if add_upper > upper:
        add_upper = _epsilon((rate, sigma, grid_width, "add", True), steps, delta)
    lower = math.nan
    if not pessimistic_only:
        lower = _lower_epsilon(rate, sigma, steps, delta, grid_width, "remove")
        if add_upper > lower:
            lower = max(lower, _lower_epsilon(rate, sigma, steps, delta, grid_width, "add"))
    upper = max(upper, add_upper)
    result = PLDEpsilonBracket(lower, upper, upper - lower, grid_width)
    _RESULTS[key] = result
    while len(_RESULTS) > _RESULTS_KEPT:
        _RESULTS.popitem(last=False)
    return result


def _clear_caches():
    """Forget every cached one-step PLD, its transforms and every result (for cold benchmarks)."""
    _direction_range.cache_clear()
    _connect_the_dots_step.cache_clear()
    _one_step.cache_clear()
    _row.cache_clear()
    clear_spectrum_cache()
    _RESULTS.clear()
