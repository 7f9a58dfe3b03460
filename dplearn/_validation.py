"""Argument checks shared by the package: every bad value raises a ValueError naming it."""

from __future__ import annotations

import numpy as np


def _as_float_array(name, value):
    try:
        array = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number, got {value!r}") from None
    return array


def _describe(array):
    """The offending values of an array, short enough for an error message."""
    flat = np.ravel(array)
    return repr(float(flat[0])) if flat.size == 1 else np.array2string(flat, threshold=6)


def positive(name, value):
    """Checks that value is a finite number > 0 (scalar or array) and returns it as floats."""
    array = _as_float_array(name, value)
    bad = ~np.isfinite(array) | (array <= 0)
    if np.any(bad):
        raise ValueError(f"{name} must be finite and > 0, got {_describe(array[bad])}")
    return array


def positive_integer(name, value):
    """Checks that value is a whole number >= 1 and returns it as an int."""
    return whole(name, value, minimum=1)


def whole(name, value, minimum=None, maximum=None):
    """Checks that value is a whole number within [minimum, maximum] and returns an int."""
    array = _as_float_array(name, value)
    low = "" if minimum is None else f" >= {minimum}"
    high = "" if maximum is None else f" and <= {maximum}"
    if (
        array.ndim != 0
        or not np.isfinite(array)
        or array != np.floor(array)
        or (minimum is not None and array < minimum)
        or (maximum is not None and array > maximum)
    ):
        raise ValueError(f"{name} must be a whole number{low}{high}, got {value!r}")
    return int(array)


def generator(rng):
    """Checks that rng is a numpy.random.Generator, the only source of randomness here."""
    if not isinstance(rng, np.random.Generator):
        raise ValueError(
            f"rng must be a numpy.random.Generator (numpy.random.default_rng(seed)), got {rng!r}"
        )
    return rng


def finite(name, value):
    """Checks that value is finite (scalar or array) and returns it as floats."""
    array = _as_float_array(name, value)
    if not np.all(np.isfinite(array)):
        raise ValueError(f"{name} must be finite, got {_describe(array[~np.isfinite(array)])}")
    return array


def epsilon(value, name="epsilon"):
    """Checks a privacy budget: >= 0 and not NaN (infinity is allowed: no guarantee)."""
    array = _as_float_array(name, value)
    bad = np.isnan(array) | (array < 0)
    if np.any(bad):
        raise ValueError(f"{name} must be >= 0 and not NaN, got {_describe(array[bad])}")
    return array


def probability_open(name, value):
    """Checks that value lies strictly inside (0, 1)."""
    array = _as_float_array(name, value)
    bad = ~((array > 0) & (array < 1))
    if np.any(bad):
        raise ValueError(f"{name} must lie in (0, 1), got {_describe(array[bad])}")
    return array


def probability_closed(name, value):
    """Checks that value lies in [0, 1]."""
    array = _as_float_array(name, value)
    bad = ~((array >= 0) & (array <= 1))
    if np.any(bad):
        raise ValueError(f"{name} must lie in [0, 1], got {_describe(array[bad])}")
    return array


def scalar_or_array(array):
    """Returns a Python float for 0-d results, the array otherwise."""
    return float(array) if np.ndim(array) == 0 else array
