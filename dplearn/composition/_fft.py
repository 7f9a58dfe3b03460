"""The Fourier transforms behind ``pld``: where privacy loss distributions are transformed.

``pld`` composes a PLD by transforming its masses, raising the transform to the k-th power
and transforming back. That method fits in three lines; this module holds what makes it
fast and keeps it sound. Every composition of the package (``compose``, ``self_compose``,
the brackets of ``pld_bracket`` and the DP-SGD runs of ``dplearn.accounting``) goes
through ``transform`` and ``inverse`` here, so that the choice of precision and the bound
on round-off below hold for all of them. The tricks, and why each is safe:

- Transform lengths (``fft_length``). A cyclic convolution of a length at least the
  support of the result equals the linear one, and zero padding to a longer length
  changes nothing but the round-off (which ``round_off`` bounds). (A shorter length
  wraps the mass outside its window into it: ``pld`` takes one only where ``_tails``
  bounds that mass, and accounts for it.) So any length will do,
  and we take one whose factors are 2, 3 and 5 only, the lengths the FFT runs fastest at.
  A transform kept for many k is taken at one of few lengths (``few``), so that one serves
  every neighbouring k whose support fits.
- Kept transforms (``kept_transform``). A PLD's transform does not depend on k: a slider
  that moves k needs only a new power and an inverse transform. Kept transforms are
  read-only (the power works on a copy); only the latest ``SPECTRA_KEPT`` over all PLDs
  are kept, since each may be tens of megabytes; ``forget_spectra`` drops them all.
- Long double (``extended``). The round-off of a transform of length n is about
  eps log2(n) times its largest entry; from ``EXTENDED_FROM`` on, in double, it would rival
  the bracket's width on fine grids, so those lengths are transformed in long double
  (machine eps 2^-63 on x86, against 2^-52). Shorter ones stay in double, about 3x faster.
  ``round_off`` reads eps from the output's own type, so the bound holds either way; an
  optimistic caller, whose bound only loses a little tightness to a larger round-off, may
  ask for double at any length (``double``).
- Integer powers (``integer_power``). z^k by repeated squaring takes about 2 log2(k)
  complex multiplications and no logarithm or exponential per entry (as a complex pow
  does); its round-off shows in the inverse transform's output, where ``round_off``
  bounds it.
- The round-off bounds (``round_off``). Where the true mass is about 0, what the inverse
  transform returns is round-off: four times its most negative value bounds the noise
  of each mass, and so does 2 eps log2(n) times the largest mass. A k-th power
  multiplies the relative round-off of the transform by k: a slow wave over the whole
  window, which shows as negative masses only where the window holds a stretch of zeros
  (a window shorter than the support may hold none). So each mass is also bounded by
  k eps times the largest, and the sum of all n errors by k eps log2(n) / 2. Measured
  against the same compositions in long double (Laplace and Gaussian PLDs on grids of
  1e-2 to 1e-4, k from 2 to 3,000, and DP-SGD's 14,063 steps; whole transforms and
  windows; with numpy's SIMD code and without): the worst error of a mass is 0.54 of
  k eps times the largest, the worst sum 0.16 of k eps log2(n). Without the power's
  terms, windows erred up to 46 times the bound and DP-SGD's steps 180 times. The tests
  hold a sample of these cases to the bounds. A pessimistic caller puts the bound on the
  sum on +inf (no masses can raise delta more); an optimistic one subtracts the bound on
  each mass from every mass, so neither bound is crossed by round-off.
- Two rows at once (``self_compose_rows``). The optimistic and pessimistic PLDs of a
  bracket go through one transform of a two-row array: each row takes exactly the
  arithmetic of a separate transform, so the same round-off bound holds, and one batched
  transform is ~1.5x faster than two (pocketfft runs both rows through its vector lanes
  together); its transform does not depend on k and can be kept for the next (``kept``).
  The work arrays are kept per thread (``WORKSPACE``, a ``threading.local``: two threads
  never share one) up to ``WORKSPACE_MAX_LENGTH``, so that repeated brackets fault in no
  fresh pages of memory; longer ones are allocated each time.

numpy's pocketfft runs single-threaded and writes into a given ``out`` array.

Taught in: 09-count-privacy-with-an-accountant.ipynb
"""

from __future__ import annotations

import collections
import functools
import math
import threading

import numpy as np
from scipy import fft

__all__ = [
    "EXTENDED_FROM",
    "SPECTRA_KEPT",
    "WORKSPACE",
    "WORKSPACE_MAX_LENGTH",
    "extended",
    "fft_length",
    "forget_spectra",
    "integer_power",
    "inverse",
    "kept_transform",
    "round_off",
    "self_compose_rows",
    "transform",
]

#: From this transform length on, PLDs are transformed in extended precision (long double).
EXTENDED_FROM = 2**18
#: How many transforms of PLDs are kept (on their PLDs), the latest taken.
SPECTRA_KEPT = 32
#: Longest transform whose work arrays are kept between brackets (4 arrays of 2 x 2**16
#: doubles, 4 MB); longer ones are allocated each time.
WORKSPACE_MAX_LENGTH = 2**16
#: The work arrays of each thread (attribute ``arrays``), for ``self_compose_rows``.
WORKSPACE = threading.local()

_SPECTRA_ORDER = collections.deque()
_SPECTRA_LOCK = threading.Lock()


@functools.lru_cache(maxsize=1024)
def fft_length(size, few=False):
    """A fast transform length at least ``size``.

    2^a, 3 2^a or 5 2^a if one is no longer than scipy's next_fast_len (these measured
    fastest), else next_fast_len.

    Args:
      size: the least length, >= 1.
      few: take the first of 2^a, 3 2^a and 5 2^a always (a few lengths serve every size).

    Returns:
      The length, an int >= size.
    """
    candidates = [factor * 2 ** max(math.ceil(math.log2(size / factor)), 0) for factor in (1, 3, 5)]
    best = min(length for length in candidates if length >= size)
    if few:
        return best
    fast = fft.next_fast_len(size, real=True)
    return best if best <= fast * 1.02 else fast


def extended(length):
    """Whether transforms of this length are taken in long double (from ``EXTENDED_FROM``).

    Args:
      length: the transform length.

    Returns:
      True for long double, False for double.
    """
    return length >= EXTENDED_FROM


def transform(masses, length, out=None, double=False):
    """The real FFT of masses (rows on the last axis), zero-padded to ``length``.

    Taken in the precision that length needs (``extended``), or in double.

    Args:
      masses: a real array, one PLD's masses per row.
      length: the transform length, at least the last axis of ``masses``.
      out: a complex array of length // 2 + 1 on the last axis to write into, or None.
      double: take it in double at any length (for a caller whose bound tolerates the
        larger round-off that ``round_off`` then reports).

    Returns:
      The transform (``out`` if given).
    """
    dtype = np.longdouble if extended(length) and not double else np.float64
    return np.fft.rfft(masses.astype(dtype, copy=False), length, out=out)


def inverse(spectrum, length=None, out=None):
    """The inverse of ``transform``.

    Args:
      spectrum: the transform (rows on the last axis).
      length: the length of the real output on the last axis.
      out: a real array to write into, or None.

    Returns:
      The real masses (``out`` if given).
    """
    return np.fft.irfft(spectrum, length, out=out)


def kept_transform(masses, kept, length, double=False):
    """The transform of ``masses`` at ``length``, kept in ``kept`` for the next call.

    Only the last ``SPECTRA_KEPT`` transforms taken are kept, over all PLDs: each may be
    tens of megabytes. A kept transform is read-only.

    Args:
      masses: one PLD's masses.
      kept: that PLD's dict of kept transforms, by length and precision (updated here).
      length: the transform length.
      double: as for ``transform``.

    Returns:
      The read-only transform.
    """
    key = (length, double)
    if key not in kept:
        spectrum = transform(masses, length, double=double)
        spectrum.flags.writeable = False
        kept[key] = spectrum
        with _SPECTRA_LOCK:
            _SPECTRA_ORDER.append((kept, key))
            while len(_SPECTRA_ORDER) > SPECTRA_KEPT:
                oldest, oldest_key = _SPECTRA_ORDER.popleft()
                oldest.pop(oldest_key, None)
    return kept[key]


def forget_spectra():
    """Drop every kept transform of every PLD (for cold benchmarks)."""
    with _SPECTRA_LOCK:
        while _SPECTRA_ORDER:
            kept, key = _SPECTRA_ORDER.popleft()
            kept.pop(key, None)


def integer_power(values, k, out=None):
    """values ** k by repeated squaring (much faster than a complex pow).

    Squares ``values`` in place up to the lowest power of two in k, which then collects
    the product; the higher powers are squared in ``out``. No copy is taken.

    Args:
      values: the caller's own spectrum, overwritten to save allocations.
      k: the power, an int >= 1.
      out: a work array of the shape of ``values``, or None (one is allocated if needed).

    Returns:
      values ** k, in ``values`` (the array returned, whatever ``out``).
    """
    while not k & 1:
        np.square(values, out=values)
        k >>= 1
    k >>= 1
    if not k:
        return values
    power = np.square(values, out=out)
    while True:
        if k & 1:
            values *= power
        k >>= 1
        if not k:
            return values
        np.square(power, out=power)


def round_off(masses, power=1):
    """Bounds on the round-off of the masses that an inverse transform returned.

    Each mass: the largest of four times the most negative value (where the truth is ~0,
    what is seen is round-off), 2 eps log2(n) times the largest mass (the round-off of a
    transform of length n is about eps log2(n) times its largest entry) and k eps times
    the largest mass (a k-th power multiplies the transform's relative round-off by k).
    All n together: n times the first two, or k eps log2(n) / 2 if larger. Measured
    against compositions in long double: see the module's docstring.

    Args:
      masses: what ``inverse`` returned (n masses).
      power: k, the power the transform was raised to (1 for a product of two).

    Returns:
      (each, total): floats >= 0, bounds on the error of each mass and on their sum.
    """
    # The ufuncs' own reductions: ndarray.max goes through a Python-level wrapper.
    largest = float(np.maximum.reduce(masses, initial=0.0))
    eps = float(np.finfo(masses.dtype).eps)
    bits = math.log2(max(masses.size, 2))
    seen = max(4.0 * float(-np.minimum.reduce(masses, initial=0.0)), 2.0 * eps * bits * largest)
    each = max(seen, power * eps * largest)
    total = max(masses.size * seen, 0.5 * power * eps * bits)
    return each, total


def self_compose_rows(rows, k, length, kept=None):
    """The k-fold cyclic self-convolution of each of two rows, by one batched transform.

    Only for lengths transformed in double (``extended`` false). The result is a work
    array of this thread, overwritten by the next call.

    Args:
      rows: two (start, masses) pairs: each row's masses, placed from index start.
      k: the number of compositions, an int >= 1.
      length: the transform length, at least the k-fold support of each row.
      kept: the rows' dict of kept transforms by length, or None. Updated here: the
        first call at a length marks it (None), the second keeps a read-only copy of the
        transform for the next k (a single bracket copies nothing).

    Returns:
      A (2, length) array of the composed masses of each row.
    """
    padded, spectrum, power, output = _workspace(length)
    if kept is not None and kept.get(length) is not None:
        np.copyto(power, kept[length])
    else:
        # padded is all zeros between calls: each call zeroes what it wrote, whatever
        # happens. The transforms write into the given arrays: no fresh pages to fault in
        # on every call.
        try:
            for row, (start, masses) in zip(padded, rows, strict=True):
                row[start : start + masses.size] = masses
            transform(padded, length, out=power)
        finally:
            for row, (start, masses) in zip(padded, rows, strict=True):
                row[start : start + masses.size] = 0.0
        if kept is not None:
            kept[length] = power.copy() if length in kept else None
            if kept[length] is not None:
                kept[length].flags.writeable = False
    inverse(integer_power(power, k, out=spectrum), length, out=output)
    return output


def _workspace(length):
    """Work arrays of this thread for a two-row transform of ``length`` (reused)."""
    kept = getattr(WORKSPACE, "arrays", None)
    if kept is not None and kept[0].shape[1] == length:
        return kept
    half = length // 2 + 1
    arrays = (
        np.zeros((2, length)),
        np.empty((2, half), dtype=complex),
        np.empty((2, half), dtype=complex),
        np.empty((2, length)),
    )
    if length <= WORKSPACE_MAX_LENGTH:
        WORKSPACE.arrays = arrays
    return arrays
