"""Sensitivity of a query, computed by brute force over neighbouring data sets.

A data set is a tuple of rows drawn from a finite *universe* of possible rows. Two
data sets are neighbours under one of two notions, and the choice changes the answer:

- ``"add-remove"`` (unbounded DP): y is x with one row added or one row removed.
  The size of the data set is itself private.
- ``"replace"`` (bounded DP): y is x with one row replaced by another row of the
  universe. Both data sets have the same, public, size n.
- ``"both"``: either of the two.

The sensitivity of f is Δf = max |f(x) - f(y)| over neighbouring x, y; for a vector
answer the distance is the l1 norm (for Laplace noise) or the l2 norm (for Gaussian
noise). Two maxima are computed here:

- ``local_sensitivity(query, rows)``: over the neighbours of one data set. It is what
  one data set can tell, and it can be smaller than Δf.
- ``global_sensitivity(query, universe, ...)``: over every data set of the universe up
  to a given size, and all their neighbours. This is the Δf of the definition,
  restricted to the data sets enumerated.

Any Python callable that takes a tuple of rows and returns a number or a sequence of
numbers is a query.

Taught in: 04-compute-sensitivity.ipynb
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from dplearn import _validation as check

__all__ = [
    "NOTIONS",
    "Row",
    "TOY_UNIVERSE",
    "TOY_DATA",
    "Pair",
    "Sensitivity",
    "neighbours",
    "neighbour_pairs",
    "local_sensitivity",
    "global_sensitivity",
    "count_blue_eyes",
    "clipped_age_sum",
    "mean_clipped_age",
    "eye_colour_histogram",
    "eye_and_age_counts",
    "EXAMPLE_QUERIES",
]

NOTIONS = ("add-remove", "replace", "both")


class Row(NamedTuple):
    """One person in the toy data sets: an age in years and an eye colour.

    Taught in: 04-compute-sensitivity.ipynb
    """

    age: int
    eyes: str


#: Every row a toy data set may hold: 7 ages times 2 eye colours.
TOY_UNIVERSE = tuple(
    Row(age, eyes) for age in (0, 15, 30, 45, 60, 75, 90) for eyes in ("blue", "brown")
)

#: The toy data set of the lesson: five people.
TOY_DATA = (
    Row(30, "blue"),
    Row(45, "brown"),
    Row(15, "brown"),
    Row(75, "blue"),
    Row(60, "brown"),
)


def _check_notion(notion):
    if notion not in NOTIONS:
        raise ValueError(f"notion must be one of {NOTIONS}, got {notion!r}")
    return notion


def _check_universe(universe):
    universe = tuple(universe)
    if not universe:
        raise ValueError("universe must hold at least one possible row, got an empty one")
    return universe


def neighbours(rows, universe=TOY_UNIVERSE, notion="add-remove") -> Iterator[tuple[str, tuple]]:
    """Every neighbour of a data set, with a few words saying how it differs.

    Args:
      rows: the data set, a sequence of rows.
      universe: every row a data set may hold.
      notion: "add-remove", "replace" or "both" (see the module docstring).

    Yields:
      (description, neighbour) pairs; the neighbour is a tuple of rows.

    Taught in: 04-compute-sensitivity.ipynb
    """
    _check_notion(notion)
    rows = tuple(rows)
    universe = _check_universe(universe)
    if notion in ("add-remove", "both"):
        for row in universe:
            yield f"add {_describe(row)}", (*rows, row)
        for index, row in enumerate(rows):
            yield f"remove {_describe(row)}", rows[:index] + rows[index + 1 :]
    if notion in ("replace", "both"):
        for index, row in enumerate(rows):
            for other in universe:
                if other != row:
                    neighbour = (*rows[:index], other, *rows[index + 1 :])
                    yield f"{_describe(row)} → {_describe(other)}", neighbour


def _describe(row):
    if isinstance(row, Row):
        return f"({row.age}, {row.eyes})"
    return repr(row)


def _answer(query, rows):
    """The query's answer as a tuple of floats (one float for a number)."""
    answer = query(rows)
    try:
        # A yes/no query counts as 0/1 (the type rules reject booleans as parameters).
        array = np.asarray(answer)
        value = check.number("query", array.astype(float) if array.dtype.kind == "b" else array)
    except (TypeError, ValueError):
        raise ValueError(
            f"query must return a number or a flat vector of numbers, got {answer!r} "
            f"on the data set {rows!r}"
        ) from None
    if value.ndim > 1:
        raise ValueError(f"query must return a number or a flat vector, got shape {value.shape}")
    if not np.all(np.isfinite(value)):
        raise ValueError(
            f"query must return finite numbers, got {value!r} on the data set {rows!r}"
        )
    return tuple(value.ravel().tolist())


@dataclass(frozen=True)
class Pair:
    """One neighbouring pair (x, y) and how far apart f puts them.

    Attributes:
      description: how y differs from x, in words.
      neighbour: the data set y.
      answer_x: f(x), a tuple of floats (one float for a number-valued query).
      answer_y: f(y), the same.
      l1: |f(x) - f(y)| in the l1 norm (the sum of absolute differences).
      l2: |f(x) - f(y)| in the l2 norm (the Euclidean distance).

    Taught in: 04-compute-sensitivity.ipynb
    """

    description: str
    neighbour: tuple
    answer_x: tuple
    answer_y: tuple
    l1: float
    l2: float


def _pair(description, neighbour, answer_x, answer_y):
    if len(answer_y) != len(answer_x):
        raise ValueError(
            f"query must return answers of one length, got {len(answer_x)} and {len(answer_y)}"
        )
    differences = [abs(a - b) for a, b in zip(answer_x, answer_y, strict=True)]
    return Pair(
        description,
        neighbour,
        answer_x,
        answer_y,
        math.fsum(differences),
        math.sqrt(math.fsum(d * d for d in differences)),
    )


def neighbour_pairs(query, rows=TOY_DATA, universe=TOY_UNIVERSE, notion="add-remove"):
    """f(x) and f(y) for the data set x = rows and each of its neighbours y.

    Args:
      query: a callable taking a tuple of rows, returning a number or a flat vector.
      rows: the data set x.
      universe: every row a data set may hold.
      notion: "add-remove", "replace" or "both".

    Returns:
      A list of ``Pair``, one per neighbour.

    Taught in: 04-compute-sensitivity.ipynb
    """
    rows = tuple(rows)
    answer_x = _answer(query, rows)
    return [
        _pair(description, neighbour, answer_x, _answer(query, neighbour))
        for description, neighbour in neighbours(rows, universe, notion)
    ]


@dataclass(frozen=True)
class Sensitivity:
    """The largest distance between neighbours' answers, in l1 and l2, and where it is.

    Taught in: 04-compute-sensitivity.ipynb
    """

    l1: float
    l2: float
    worst_l1: Pair | None
    worst_l2: Pair | None
    notion: str
    pairs_checked: int

    def __str__(self):
        return (
            f"l1 sensitivity {self.l1:.6g}, l2 sensitivity {self.l2:.6g} "
            f"({self.pairs_checked} neighbouring pairs, {self.notion})"
        )


def _summarise(pairs, notion):
    """Keeps only the worst pairs, so that large enumerations stay small in memory."""
    worst_l1 = worst_l2 = None
    count = 0
    for pair in pairs:
        count += 1
        if worst_l1 is None or pair.l1 > worst_l1.l1:
            worst_l1 = pair
        if worst_l2 is None or pair.l2 > worst_l2.l2:
            worst_l2 = pair
    if count == 0:
        return Sensitivity(0.0, 0.0, None, None, notion, 0)
    return Sensitivity(worst_l1.l1, worst_l2.l2, worst_l1, worst_l2, notion, count)


def local_sensitivity(query, rows=TOY_DATA, universe=TOY_UNIVERSE, notion="add-remove"):
    """max |f(rows) - f(y)| over the neighbours y of one data set.

    This is a lower bound on Δf: another data set may have neighbours farther apart.

    Args:
      query: a callable taking a tuple of rows, returning a number or a flat vector.
      rows: the data set.
      universe: every row a data set may hold.
      notion: "add-remove", "replace" or "both".

    Returns:
      A ``Sensitivity`` (l1, l2, and the pairs that reach them).

    Taught in: 04-compute-sensitivity.ipynb
    """
    return _summarise(neighbour_pairs(query, rows, universe, notion), notion)


def global_sensitivity(
    query: Callable[[tuple], float | Sequence[float]],
    universe=TOY_UNIVERSE,
    max_rows=3,
    notion="add-remove",
    min_rows=0,
):
    """Δf = max |f(x) - f(y)| over all neighbouring data sets of the universe.

    Data sets are multisets of rows (order does not matter). With "add-remove" they
    have min_rows .. max_rows rows (y is x plus one row, both in that range); with
    "replace" they all have exactly max_rows rows.

    At most ``MAX_PAIRS`` neighbouring pairs are enumerated (about half a second): larger
    enumerations raise a ValueError before they start.

    The true Δf ranges over data sets of every size; this function sees sizes up to
    max_rows only. For counts, clipped sums and histograms the worst pair already
    appears with one row, so the value is exact; for a mean it depends on the size
    (the worst pair the result holds says which size reached it).

    Args:
      query: a callable taking a tuple of rows, returning a number or a flat vector.
      universe: every row a data set may hold.
      max_rows: largest data set enumerated, >= 1.
      notion: "add-remove", "replace" or "both".
      min_rows: smallest data set enumerated (1 for a query undefined on no rows).

    Returns:
      A ``Sensitivity`` over every pair enumerated.

    Taught in: 04-compute-sensitivity.ipynb
    """
    _check_notion(notion)
    universe = _check_universe(universe)
    if not _is_int(max_rows) or max_rows < 1:
        raise ValueError(f"max_rows must be a whole number >= 1, got {max_rows!r}")
    if not _is_int(min_rows) or not 0 <= min_rows <= max_rows:
        raise ValueError(f"min_rows must be a whole number in [0, max_rows], got {min_rows!r}")
    pairs = _pair_count(len(universe), int(max_rows), notion, int(min_rows))
    if pairs == 0:
        raise ValueError(
            f"min_rows={min_rows!r} and max_rows={max_rows!r} leave no neighbouring pairs "
            f"({notion}: adding a row needs sizes k and k + 1 within the range)"
        )
    if pairs > MAX_PAIRS:
        raise ValueError(
            f"max_rows={max_rows!r} with a universe of {len(universe)} rows gives {pairs} "
            f"neighbouring pairs ({notion}); at most {MAX_PAIRS} are enumerated "
            "(about half a second): lower max_rows or the universe"
        )
    return _summarise(_all_pairs(query, universe, int(max_rows), notion, int(min_rows)), notion)


#: Most neighbouring pairs ``global_sensitivity`` enumerates: enough for the toy queries,
#: few enough that one enumeration keeps a notebook responsive.
MAX_PAIRS = 50_000


def _is_int(value):
    return isinstance(value, int | np.integer) and not isinstance(value, bool | np.bool_)


def _pair_count(size, max_rows, notion, min_rows):
    """How many pairs ``_all_pairs`` yields, from the multiset counts C(size + k - 1, k)."""

    def multisets(k, items=size):
        """C(items + k - 1, k): the multisets of k rows from ``items`` (0 for k < 0)."""
        return math.comb(items + k - 1, k) if k >= 0 else 0

    count = 0
    if notion in ("add-remove", "both"):
        count += size * sum(multisets(k) for k in range(min_rows, max_rows))
    if notion in ("replace", "both"):
        # Each row of the universe is replaced, in the multisets holding it, by every later row.
        holding = multisets(max_rows) - multisets(max_rows, size - 1)
        count += holding * size * (size - 1) // 2
    return count


def _all_pairs(query, universe, max_rows, notion, min_rows):
    if notion in ("add-remove", "both"):
        # Each unordered pair once: x of size k, y = x plus one row of the universe.
        for size in range(min_rows, max_rows):
            for rows in itertools.combinations_with_replacement(universe, size):
                answer_x = _answer(query, rows)
                for row in universe:
                    bigger = (*rows, row)
                    description = f"add {_describe(row)} to {_describe_set(rows)}"
                    yield _pair(description, bigger, answer_x, _answer(query, bigger))
    if notion in ("replace", "both"):
        for rows in itertools.combinations_with_replacement(universe, max_rows):
            answer_x = _answer(query, rows)
            # Replacing either copy of a repeated row gives the same multiset.
            for index in sorted({rows.index(row) for row in rows}):
                # Each unordered pair once: replace a row by one later in the universe.
                for other in universe[universe.index(rows[index]) + 1 :]:
                    changed = (*rows[:index], other, *rows[index + 1 :])
                    description = (
                        f"{_describe(rows[index])} → {_describe(other)} in {_describe_set(rows)}"
                    )
                    yield _pair(description, changed, answer_x, _answer(query, changed))


def _describe_set(rows):
    return "{" + ", ".join(_describe(row) for row in rows) + "}"


# Example queries on the toy rows. Each takes a tuple of rows.


def count_blue_eyes(rows):
    """How many people have blue eyes: Δ = 1 (add-remove and replace).

    Taught in: 04-compute-sensitivity.ipynb
    """
    return sum(1 for row in rows if row.eyes == "blue")


def clipped_age_sum(rows, upper=60):
    """Sum of ages clipped to [0, upper]: Δ = upper (add-remove and replace).

    Clipping is what bounds the sensitivity: without it one person aged 120 could
    move the sum by 120.

    Taught in: 04-compute-sensitivity.ipynb
    """
    return sum(min(max(row.age, 0), upper) for row in rows)


def mean_clipped_age(rows, upper=60):
    """Mean of ages clipped to [0, upper]; 0 for no rows.

    With "replace" and n rows, Δ = upper / n. With "add-remove" the size changes
    too: a data set of one person aged upper and the same plus a person aged 0 give
    upper and upper / 2, so Δ = upper / 2 over data sets of one or two rows.

    Taught in: 04-compute-sensitivity.ipynb
    """
    if not rows:
        return 0.0
    return clipped_age_sum(rows, upper) / len(rows)


def eye_colour_histogram(rows):
    """(blue, brown) counts of the rows.

    l1 Δ = 1 for add-remove, 2 for replace (one count down, another up); l2 Δ = 1 and
    sqrt(2).

    Taught in: 04-compute-sensitivity.ipynb
    """
    blue = count_blue_eyes(rows)
    return (blue, len(rows) - blue)


def eye_and_age_counts(rows, age_threshold=50):
    """(blue-eyed, brown-eyed, aged >= 50) counts: a person falls in two of the three.

    Add-remove: l1 Δ = 2, l2 Δ = sqrt(2). Replace (a blue-eyed 60-year-old becomes a
    brown-eyed 30-year-old): l1 Δ = 3, l2 Δ = sqrt(3).

    Taught in: 04-compute-sensitivity.ipynb
    """
    blue, brown = eye_colour_histogram(rows)
    return (blue, brown, sum(1 for row in rows if row.age >= age_threshold))


#: Name -> query, in the order the lesson takes them.
EXAMPLE_QUERIES = {
    "count of blue eyes": count_blue_eyes,
    "clipped age sum": clipped_age_sum,
    "mean clipped age": mean_clipped_age,
    "eye-colour histogram": eye_colour_histogram,
    "eye and age counts": eye_and_age_counts,
}
