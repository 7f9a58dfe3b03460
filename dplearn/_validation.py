"""Argument checks shared by the package: every bad value raises a ValueError naming it.

Type rules, the same for every check: Python and numpy numbers (int, float, Fraction,
Decimal, numpy scalars) and arrays of them are numbers; strings, booleans, None,
complex numbers and arrays of any of these are not. A check given ``scalar=True``
also rejects every array but a 0-d one, and returns a Python float.
"""

from __future__ import annotations

import numbers
import reprlib

import numpy as np

_SHORT = reprlib.Repr()
_SHORT.maxstring = 40
_SHORT.maxother = 40
_SHORT.maxlist = 6


def short(value):
    """A repr of value short enough for an error message (long lists and strings cut)."""
    return _SHORT.repr(value)


def _is_number(item):
    """True for a real number that is not a boolean (Python, numpy, Fraction, Decimal)."""
    return isinstance(item, numbers.Number | np.number) and not isinstance(
        item, bool | np.bool_ | complex | np.complexfloating
    )


def _not_a_number(name, value):
    return ValueError(f"{name} must be a number, got {short(value)}")


def float_array(name, value):
    """Checks the type rules and returns value as a float array (NaN and infinities pass)."""
    if isinstance(value, str | bytes | bool | np.bool_) or value is None:
        raise _not_a_number(name, value)
    try:
        raw = np.asarray(value)
    except (TypeError, ValueError):
        raise _not_a_number(name, value) from None
    kind = raw.dtype.kind
    if isinstance(value, list | tuple) and kind != "O":
        # numpy turns True into 1 inside a list of numbers: look at the items themselves.
        try:
            items = np.asarray(value, dtype=object).flat
        except (TypeError, ValueError):
            raise _not_a_number(name, value) from None
        if not all(_is_number(item) for item in items):
            raise _not_a_number(name, value)
    if kind == "O":
        # Python ints beyond int64, Fractions, Decimals, or a ragged mix: check each item.
        if not all(_is_number(item) for item in raw.flat):
            raise _not_a_number(name, value)
    elif kind not in "iuf":
        raise _not_a_number(name, value)
    try:
        return raw.astype(float)
    except OverflowError:
        raise ValueError(
            f"{name} must be a number within the float range, got {short(value)}"
        ) from None
    except (TypeError, ValueError):
        raise _not_a_number(name, value) from None


def describe(array):
    """The offending values of an array, short enough for an error message."""
    flat = np.ravel(array)
    return repr(float(flat[0])) if flat.size == 1 else np.array2string(flat, threshold=6)


def _result(name, value, array, scalar):
    if not scalar:
        return array
    if array.ndim != 0:
        raise ValueError(
            f"{name} must be a single number, got an array of shape {array.shape}: {short(value)}"
        )
    return float(array)


def number(name, value, *, scalar=False):
    """Checks only the type rules (NaN and infinities pass) and returns floats."""
    return _result(name, value, float_array(name, value), scalar)


def scalar(name, value):
    """Checks that value is one number (0-d arrays count) and returns it as a float."""
    return number(name, value, scalar=True)


def positive(name, value, *, scalar=False):
    """Checks that value is a finite number > 0 (scalar or array) and returns it as floats."""
    array = float_array(name, value)
    bad = ~np.isfinite(array) | (array <= 0)
    if np.any(bad):
        raise ValueError(f"{name} must be finite and > 0, got {describe(array[bad])}")
    return _result(name, value, array, scalar)


def positive_integer(name, value):
    """Checks that value is a whole number >= 1 and returns it as an int."""
    return whole(name, value, minimum=1)


def whole(name, value, minimum=None, maximum=None):
    """Checks that value is a whole number within [minimum, maximum] and returns an int."""
    low = "" if minimum is None else f" >= {minimum}"
    high = "" if maximum is None else f" and <= {maximum}"
    message = f"{name} must be a whole number{low}{high}, got {short(value)}"
    try:
        array = float_array(name, value)
    except ValueError:
        raise ValueError(message) from None
    if (
        array.ndim != 0
        or not np.isfinite(array)
        or array != np.floor(array)
        or (minimum is not None and array < minimum)
        or (maximum is not None and array > maximum)
    ):
        raise ValueError(message)
    # An exact int even beyond 2**53 when the value was an int to begin with.
    if isinstance(value, numbers.Integral | np.integer):
        return int(value)
    return int(array)


def generator(rng):
    """Checks that rng is a numpy.random.Generator, the only source of randomness here."""
    if not isinstance(rng, np.random.Generator):
        raise ValueError(
            f"rng must be a numpy.random.Generator (numpy.random.default_rng(seed)), got {rng!r}"
        )
    return rng


def finite(name, value, *, scalar=False):
    """Checks that value is finite (scalar or array) and returns it as floats."""
    array = float_array(name, value)
    if not np.all(np.isfinite(array)):
        raise ValueError(f"{name} must be finite, got {describe(array[~np.isfinite(array)])}")
    return _result(name, value, array, scalar)


def epsilon(value, name="epsilon", *, scalar=False):
    """Checks a privacy budget: >= 0 and not NaN (infinity is allowed: no guarantee)."""
    array = float_array(name, value)
    bad = np.isnan(array) | (array < 0)
    if np.any(bad):
        raise ValueError(f"{name} must be >= 0 and not NaN, got {describe(array[bad])}")
    return _result(name, value, array, scalar)


def probability_open(name, value, *, scalar=False):
    """Checks that value lies strictly inside (0, 1)."""
    array = float_array(name, value)
    bad = ~((array > 0) & (array < 1))
    if np.any(bad):
        raise ValueError(f"{name} must lie in (0, 1), got {describe(array[bad])}")
    return _result(name, value, array, scalar)


def probability_closed(name, value, *, scalar=False):
    """Checks that value lies in [0, 1]."""
    array = float_array(name, value)
    bad = ~((array >= 0) & (array <= 1))
    if np.any(bad):
        raise ValueError(f"{name} must lie in [0, 1], got {describe(array[bad])}")
    return _result(name, value, array, scalar)


def scalar_or_array(array):
    """Returns a Python float for 0-d results, the array otherwise."""
    return float(array) if np.ndim(array) == 0 else array


def finite_epsilon(value, name="epsilon", *, scalar=False):
    """Checks a privacy parameter that must be finite: >= 0, not NaN and not infinite."""
    array = epsilon(value, name)
    if not np.all(np.isfinite(array)):
        raise ValueError(
            f"{name} must be finite and >= 0, got {describe(array[~np.isfinite(array)])}"
        )
    return _result(name, value, array, scalar)


def vector(name, value):
    """Checks that value is a non-empty 1-d list of finite numbers and returns floats."""
    array = number(name, value)
    if array.ndim != 1 or array.size == 0:
        raise ValueError(f"{name} must be a non-empty list of numbers, got {short(value)}")
    bad = ~np.isfinite(array)
    if np.any(bad):
        raise ValueError(f"{name} must be finite (no NaN or inf), got {describe(array[bad])}")
    return array


def orders(name, value):
    """Checks Rényi orders: finite numbers > 1 (scalar or array), returned as floats."""
    array = number(name, value)
    bad = ~np.isfinite(array) | (array <= 1.0)
    if np.any(bad):
        raise ValueError(f"{name} must be finite and > 1, got {describe(array[bad])}")
    return array
