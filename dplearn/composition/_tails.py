"""Where the k-fold composition of a grid PLD lives: a window, and the mass outside it.

The k-fold composition of a PLD with N grid points spans k (N - 1) + 1 points, but for
large k nearly all of its mass lies on about sqrt(k) times one release's spread. A cyclic
transform shorter than the whole span returns, at each position, the composed mass at
every index congruent to it, so the mass outside a window of the transform's length
wraps around into it. ``composed_window`` finds a window whose mass outside each end is
at most a given bound, by Chernoff's bound on a sum of k independent grid losses (the
method of Google's dp_accounting, ``compute_self_convolve_bounds``; Koskela, Jalko &
Honkela, "Computing tight differential privacy guarantees using FFT", 2020, bound the
same error). What the callers in ``pld`` do with the wrapped mass so that neither end of a
bracket crosses the exact delta is said there (``PrivacyLossDistribution._truncated``).

Chernoff's bound, for masses p_i >= 0 at grid indices i (a sub-probability where a PLD
holds mass at +inf) and any lambda > 0: the k-fold composed mass at indices >= t is at
most e^(-lambda t) M(lambda)^k, with M(lambda) = sum_i p_i e^(lambda i) (Markov's
inequality on e^(lambda S)), and at indices <= t at most e^(lambda t) M(-lambda)^k. Every
lambda gives a valid bound; a few around the one that is best for a Gaussian of the same
variance are tried, and the tightest kept.

Taught in: 09-count-privacy-with-an-accountant.ipynb
"""

from __future__ import annotations

import functools
import math

import numpy as np

__all__ = ["composed_window"]

#: The orders tried, as multiples of the order that is best for a Gaussian of the same
#: variance: every order gives a valid bound; these three find windows as short as nine
#: between 1/4 and 4 do for the lessons' compositions, at less cost.
_ORDER_FACTORS = np.array([math.sqrt(0.5), 1.0, math.sqrt(2.0)])
#: The same, for the upper tail (+) and then the lower tail (-).
_SIGNED_FACTORS = np.concatenate((_ORDER_FACTORS, -_ORDER_FACTORS))
#: Largest |lambda (i - centre)| taken: e^600 neither overflows nor, over the masses, loses
#: more than round-off to underflow.
_LARGEST_EXPONENT = 600.0
_EPS = float(np.finfo(float).eps)


@functools.lru_cache(maxsize=16)
def _grid(size):
    """For grid indices i = 0 .. size - 1: the rows 1, i, i^2, and i - centre."""
    points = np.arange(size, dtype=float)
    powers = np.stack((np.ones(size), points, points * points))
    centred = points - (size - 1) / 2.0
    for array in (powers, centred):
        array.flags.writeable = False
    return powers, centred


def composed_window(masses, k, outside):
    """The indices of the k-fold composition of ``masses`` outside which lies <= ``outside``.

    Args:
      masses: one PLD's finite masses (>= 0, not all 0), at grid indices 0 .. N - 1; or
        several PLDs' masses of one length, one per row (one call for all).
      k: the number of compositions, an int >= 1.
      outside: the mass allowed beyond each end of the window, in (0, 1).

    Returns:
      (low, high), ints with 0 <= low <= high <= k (N - 1): the composed masses at
      indices below low sum to at most ``outside``, and so do those above high (the
      whole support, 0 and k (N - 1), for a law of one point). For rows, a list of them,
      one per row.
    """
    rows = masses if masses.ndim == 2 else masses[None, :]
    size = rows.shape[1]
    top = k * (size - 1)
    powers, centred = _grid(size)
    # Ufuncs throughout: on arrays this small, numpy's Python-level wrappers (sum, mean,
    # einsum) and a BLAS call cost more than the arithmetic, most of all from cold caches.
    totals, firsts, seconds = np.add.reduce(rows[:, None, :] * powers, axis=2).T
    means = firsts / totals
    variances = seconds / totals - means * means
    spread = variances[variances > 0.0]
    if not spread.size:  # every law one point (or its variance lost to round-off)
        return [(0, top)] * rows.shape[0] if np.ndim(masses) == 2 else (0, top)
    # With S = the composed index, c the grid's centre and lambda of either sign, the
    # composed mass at sign(lambda) (S - k mean) >= t is at most exp(k log M(lambda) -
    # k lambda (mean - c) - |lambda| t), M(lambda) = sum_i p_i e^(lambda (i - c)): it is
    # <= outside from t = (k (log M(lambda) - lambda (mean - c)) - log outside) / |lambda|.
    # One set of orders serves every row (any order gives a valid bound), around the best
    # for a Gaussian, and kept where no exponential overflows.
    log_outside = math.log(outside)
    best = math.sqrt(-2.0 * log_outside * spread.size / (k * float(np.add.reduce(spread))))
    centre = (size - 1) / 2.0
    largest = _LARGEST_EXPONENT / max(centre, 1.0)
    orders = np.clip(best * _SIGNED_FACTORS, -largest, largest)
    exponentials = np.exp(orders[:, None] * centred)
    moments = np.add.reduce(rows[:, None, :] * exponentials, axis=2)  # all terms > 0
    log_moments = np.log(moments) - orders * (means - centre)[:, None]
    # Round-off: each sum is off by ~N eps relatively, each exponent by ~600 eps, k times
    # over; the bound is taken that much (and a factor 2) smaller, so that round-off cannot
    # make it too small. What remains, ~k N eps of an index, is far inside the index added
    # at each end.
    slack = math.log(2.0) + 8.0 * k * (size + 1000) * _EPS
    reaches = (k * log_moments + (slack - log_outside)) / np.abs(orders)
    # The tightest order of each tail, per row: (rows, 2) reaches above and below.
    tightest = np.minimum.reduce(reaches.reshape(rows.shape[0], 2, -1), axis=2).tolist()
    windows = []
    every = zip(means.tolist(), variances.tolist(), tightest, strict=True)
    for mean, variance, (above, below) in every:
        if not variance > 0.0:  # one point, or a variance lost to round-off: the whole
            windows.append((0, top))
            continue
        # One index more at each end: the window is closed, and k mean + t is a float.
        low = max(math.floor(k * mean - below) - 1, 0)
        high = min(math.ceil(k * mean + above) + 1, top)
        windows.append((low, high) if low <= high else (0, top))
    return windows if np.ndim(masses) == 2 else windows[0]
