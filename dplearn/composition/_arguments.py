"""The argument checks that every section of ``dplearn.composition`` shares.

Each raises a ValueError naming the parameter and the value (``dplearn._validation``);
the common cases (a plain int k, a plain positive float) pass straight through, without
array conversions, since an accountant calls them on every composition.

Taught in: 08-add-up-privacy-losses.ipynb, 09-count-privacy-with-an-accountant.ipynb
"""

from __future__ import annotations

import math

import numpy as np

from dplearn import _validation as check

__all__ = [
    "checked_delta0",
    "checked_epsilon0",
    "checked_k",
    "checked_ks",
    "checked_positive",
    "checked_real",
]


def checked_k(k):
    """k as an int, when it is a whole number >= 1."""
    if type(k) is int and k >= 1:  # the common case, without array conversions
        return k
    return check.positive_integer("k", k)


def checked_positive(name, value):
    """check.positive for one number (a plain float > 0 passes straight through)."""
    if type(value) is float and 0.0 < value < math.inf:
        return value
    return check.positive(name, value, scalar=True)


def checked_real(name, value):
    """Any real number or array (infinities allowed), not NaN."""
    array = check.float_array(name, value)
    if np.any(np.isnan(array)):
        raise ValueError(f"{name} must not be NaN, got {value!r}")
    return array


def checked_epsilon0(epsilon0):
    """epsilon0 as a float, when it is a single number > 0."""
    return check.positive("epsilon0", epsilon0, scalar=True)


def checked_delta0(delta0):
    """delta0 as a float, when it is a single number in [0, 1)."""
    value = check.scalar("delta0", delta0)
    if not 0 <= value < 1:
        raise ValueError(f"delta0 must be a single number in [0, 1), got {delta0!r}")
    return value


def checked_ks(k):
    """k as an int, or an array of whole numbers >= 1 (for the bounds drawn against k)."""
    array = check.number("k", k)
    if array.ndim == 0:
        return checked_k(k)
    bad = ~np.isfinite(array) | (array != np.floor(array)) | (array < 1)
    if np.any(bad):
        raise ValueError(f"k must be whole numbers >= 1, got {check.describe(array[bad])}")
    return array
