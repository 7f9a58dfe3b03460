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
  exact epsilon. ``dp_sgd_bracket`` also gives the optimistic value (losses rounded down,
  never above the exact epsilon), so the exact epsilon lies inside a known bracket.
- ``method="rdp"``: T times the Rényi DP of one step at a list of orders (Mironov, Talwar &
  Zhang 2019), converted to (epsilon, delta) by Balle et al. 2020 (``dplearn.renyi``).

Neighbours add or remove one example; epsilon is the larger of the two directions.

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
from dplearn import composition, privacy_loss, renyi, subsampling

__all__ = ["PLDEpsilonBracket", "dp_sgd_epsilon", "dp_sgd_bracket", "DEFAULT_GRID_WIDTH"]

#: Grid width h of the PLD accountant by default (dp_accounting's default too).
DEFAULT_GRID_WIDTH = 1e-4
#: Probability each one-step PLD may leave off its tails (accounted for, on the safe side).
_TAIL_MASS = 1e-15
#: Probability each composed PLD's window may leave off each end (accounted for).
_WINDOW_TAIL = 1e-14
_MAX_POINTS = 2**23


class PLDEpsilonBracket(NamedTuple):
    """Bounds on the exact epsilon of a run: optimistic <= exact <= pessimistic.

    Attributes:
      optimistic: a lower bound (losses rounded down on the grid).
      pessimistic: an upper bound (the connect-the-dots grid PLD); ``dp_sgd_epsilon``'s
        value.
      width: pessimistic - optimistic.
      grid_width: the grid width h used.
    """

    optimistic: float
    pessimistic: float
    width: float
    grid_width: float


def _inputs(sampling_rate, noise_multiplier, steps, delta):
    rate = check.scalar("sampling_rate", sampling_rate)
    if not 0.0 < rate <= 1.0:
        raise ValueError(f"sampling_rate must lie in (0, 1], got {sampling_rate!r}")
    sigma = check.positive("noise_multiplier", noise_multiplier, scalar=True)
    if not 1e-3 <= sigma <= 1e6:
        raise ValueError(f"noise_multiplier must lie in [1e-3, 1e6], got {noise_multiplier!r}")
    steps = check.whole("steps", steps, minimum=1, maximum=10**7)
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
        alphas = renyi._orders("orders", alphas.tolist())
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
    """Optimistic and pessimistic epsilon of a DP-SGD run on one grid: the exact epsilon
    lies between them.

    Args: as for ``dp_sgd_epsilon`` (method "pld").

    Returns:
      A ``PLDEpsilonBracket`` (optimistic, pessimistic, width, grid_width).

    Taught in: 11-account-for-a-training-run.ipynb
    """
    rate, sigma, steps, delta = _inputs(sampling_rate, noise_multiplier, steps, delta)
    h = DEFAULT_GRID_WIDTH if grid_width is None else _grid_width(grid_width)
    return _bracket(rate, sigma, steps, delta, h, pessimistic_only=False)


# ----------------------------------------------------------------------------------------
# One step on the grid
# ----------------------------------------------------------------------------------------


class _OneStep(NamedTuple):
    """One direction's one-step PLDs on the grid L_i = (lowest + i) h."""

    lowest: int
    pessimistic: np.ndarray  # connect-the-dots masses
    pessimistic_infinity: float
    optimistic: np.ndarray  # rounded-down masses (a sub-probability)


def _standard_outputs(direction, losses):
    """z = (o - c) / sigma of the output whose loss is each grid loss (monotone)."""
    pair = direction.mechanism
    r = pair.ratio
    q = direction.rate
    if isinstance(direction, subsampling.SubsampledRemove):
        ell = subsampling._remove_shift(losses, q)
    else:
        _, v = subsampling._add_parts(losses, q)
        ell = -v
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
    """Grid-index range [low, high] holding the loss, but for tails of tail_mass."""
    h_free_low, h_free_high = None, None
    q = direction.rate
    if isinstance(direction, subsampling.SubsampledRemove):
        h_free_low = direction.min_loss
        # The top: where delta has fallen below tail_mass (the pessimistic PLD's +inf mass).
        upper = 1.0
        while direction._hockey(np.array([upper]))[0] > tail_mass:
            upper *= 2.0
        lower = 0.0
        for _ in range(60):
            middle = 0.5 * (lower + upper)
            if direction._hockey(np.array([middle]))[0] > tail_mass:
                lower = middle
            else:
                upper = middle
        h_free_high = upper
    else:
        h_free_high = direction.max_loss
        # The bottom: the loss of the output beyond which N(0, 1) leaves tail_mass.
        z = -special.ndtri(tail_mass)
        r = direction.mechanism.ratio
        h_free_low = float(-np.logaddexp(math.log1p(-q), math.log(q) + r * z - r * r / 2.0))
    return h_free_low, h_free_high


@functools.lru_cache(maxsize=64)
def _one_step(rate, sigma, grid_width, side):
    """The one-step PLDs of one direction ("remove" or "add"), cached per (q, sigma, h)."""
    pair = subsampling.poisson(privacy_loss.gaussian(sigma), rate)
    direction = pair.remove if side == "remove" else pair.add
    low, high = _loss_range(direction, _TAIL_MASS)
    lowest = int(math.floor(low / grid_width))
    highest = int(math.ceil(high / grid_width))
    if highest - lowest + 1 > _MAX_POINTS // 4:
        raise ValueError(
            f"grid_width must be larger for this noise_multiplier: {highest - lowest + 1} "
            f"grid points for one step at grid_width={grid_width!r}"
        )
    if highest - lowest < 2:
        highest = lowest + 2
    index = np.arange(lowest, highest + 1)
    losses = index * grid_width
    # Connect the dots: the grid PLD whose delta is the exact one at every grid loss.
    exact = direction._hockey(losses)
    exact = np.minimum.accumulate(exact)
    steps_between = np.diff(exact)
    growth = math.expm1(grid_width)
    pessimistic = np.empty(losses.size)
    pessimistic[1:-1] = (steps_between[1:] - math.exp(grid_width) * steps_between[:-1]) / growth
    pessimistic[-1] = -math.exp(grid_width) * steps_between[-1] / growth
    pessimistic = np.maximum(pessimistic, 0.0)
    infinity = float(exact[-1])
    pessimistic[0] = max(1.0 - infinity - pessimistic[1:].sum(), 0.0)
    # Rounded down: the mass of [L_i, L_(i+1)) to L_i, all above the top to the top;
    # below the bottom (the add side's unbounded tail) dropped.
    z = _standard_outputs(direction, losses)
    r = pair.mechanism.ratio
    if side == "remove":
        z = np.concatenate([z, [np.inf]])
        cells = (1.0 - rate) * _normal_cell(z[:-1], z[1:], 0.0) + rate * _normal_cell(
            z[:-1], z[1:], r
        )
    else:
        # Losses decrease with z: [L_i, L_(i+1)) is z in (z_(i+1), z_i].
        z = np.concatenate([z, [-np.inf]])
        cells = _normal_cell(z[1:], z[:-1], 0.0)
    return _OneStep(lowest, pessimistic, infinity, cells)


# ----------------------------------------------------------------------------------------
# T steps: one windowed transform
# ----------------------------------------------------------------------------------------

_TILTS = np.geomspace(1e-3, 1e4, 120)


def _window(lowest, masses, grid_width, steps, tail):
    """Grid indices [low, high] outside which T steps leave at most ``tail`` each side
    (Chernoff: P[S >= x] <= E[e^(t S)] e^(-t x) for every t > 0)."""
    losses = (lowest + np.arange(masses.size)) * grid_width
    with np.errstate(divide="ignore"):
        log_masses = np.log(masses)
    log_tail = math.log(tail)
    up = special.logsumexp(log_masses[None, :] + _TILTS[:, None] * losses[None, :], axis=1)
    down = special.logsumexp(log_masses[None, :] - _TILTS[:, None] * losses[None, :], axis=1)
    high = np.min((steps * up - log_tail) / _TILTS)
    low = np.max(-(steps * down - log_tail) / _TILTS)
    total = steps * (masses.size - 1)
    low_index = max(int(math.floor(low / grid_width)), steps * lowest)
    high_index = min(int(math.ceil(high / grid_width)), steps * lowest + total)
    return low_index, high_index


def _fft_length(size):
    candidates = [factor * 2 ** max(math.ceil(math.log2(size / factor)), 0) for factor in (1, 3)]
    return min(length for length in candidates if length >= size)


def _compose(lowest, masses, infinity, steps, grid_width, pessimistic):
    """T-fold composition of a one-step PLD in a window, as a PrivacyLossDistribution,
    plus the slack to add to the target delta (the optimistic side's wrapped mass)."""
    low, high = _window(lowest, masses, grid_width, steps, _WINDOW_TAIL)
    size = high - low + 1
    if size > _MAX_POINTS:
        raise ValueError(
            f"steps too many for grid_width={grid_width!r}: {size} grid points after composing"
        )
    length = _fft_length(size)
    if masses.size > length:
        raise ValueError("grid too coarse for the window")  # pragma: no cover
    spectrum = np.fft.rfft(masses, length)
    composed = np.fft.irfft(spectrum**steps, length)
    # Index j of the composed law sits at (j - steps * lowest) mod length.
    start = (low - steps * lowest) % length
    composed = np.roll(composed, -start)[:size]
    largest = float(composed.max(initial=0.0))
    noise = max(
        4.0 * float(-composed.min(initial=0.0)),
        2.0 * np.finfo(float).eps * math.log2(length) * largest,
    )
    infinity_total = -math.expm1(steps * math.log1p(-infinity)) if infinity < 1 else 1.0
    if pessimistic:
        composed = np.maximum(composed, 0.0)
        # Mass above the window wraps to lower losses: it lowers delta by at most its size.
        infinity_total = min(infinity_total + size * noise + _WINDOW_TAIL, 1.0)
        slack = 0.0
    else:
        composed = np.maximum(composed - noise, 0.0)
        # Mass below the window wraps to higher losses: it raises delta by at most this.
        slack = _WINDOW_TAIL
    distribution = composition.PrivacyLossDistribution(
        grid_width, low, composed, infinity_total, pessimistic, _TAIL_MASS
    )
    return distribution, slack


_RESULTS = collections.OrderedDict()
_RESULTS_KEPT = 256


def _bracket(rate, sigma, steps, delta, grid_width, pessimistic_only):
    key = (rate, sigma, steps, delta, grid_width, pessimistic_only)
    if key in _RESULTS:
        _RESULTS.move_to_end(key)
        return _RESULTS[key]
    upper, lower = 0.0, 0.0
    for side in ("remove", "add"):
        step = _one_step(rate, sigma, grid_width, side)
        pessimistic, _ = _compose(
            step.lowest, step.pessimistic, step.pessimistic_infinity, steps, grid_width, True
        )
        upper = max(upper, float(pessimistic.epsilon_for_delta(delta)))
        if not pessimistic_only:
            optimistic, slack = _compose(
                step.lowest, step.optimistic, 0.0, steps, grid_width, False
            )
            target = delta + slack
            side_lower = float(optimistic.epsilon_for_delta(target)) if target < 1 else 0.0
            lower = max(lower, side_lower)
    result = PLDEpsilonBracket(
        lower if not pessimistic_only else math.nan, upper, upper - lower, grid_width
    )
    _RESULTS[key] = result
    while len(_RESULTS) > _RESULTS_KEPT:
        _RESULTS.popitem(last=False)
    return result
