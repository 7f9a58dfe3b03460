"""Sensitivity by enumeration, against closed forms and an independent brute force."""

import collections
import itertools
import math
from fractions import Fraction
from functools import partial

import numpy as np
import pytest

from dplearn import sensitivity as s

SMALL_UNIVERSE = (s.Row(0, "blue"), s.Row(30, "brown"), s.Row(60, "blue"), s.Row(90, "brown"))


def brute_force(query, universe, max_rows, notion, min_rows=0):
    """Δ in l1 and l2 over every pair of *ordered* data sets, neighbours decided by counting.

    Independent of the module: data sets are tuples from itertools.product, and two
    are neighbours when their multisets differ by one added row (add-remove) or by one
    row swapped for another at the same size (replace).
    """
    if notion == "replace":
        sizes = [max_rows]
    else:
        sizes = range(min_rows, max_rows + 1)
    data_sets = [rows for size in sizes for rows in itertools.product(universe, repeat=size)]
    largest_l1 = largest_l2 = 0.0
    for x, y in itertools.combinations(data_sets, 2):
        cx, cy = collections.Counter(x), collections.Counter(y)
        only_x, only_y = cx - cy, cy - cx
        if notion == "add-remove":
            close = sum(only_x.values()) + sum(only_y.values()) == 1
        else:
            close = sum(only_x.values()) == 1 and sum(only_y.values()) == 1
        if not close:
            continue
        fx, fy = np.atleast_1d(query(x)), np.atleast_1d(query(y))
        largest_l1 = max(largest_l1, float(np.abs(fx - fy).sum()))
        largest_l2 = max(largest_l2, float(np.sqrt(((fx - fy) ** 2).sum())))
    return largest_l1, largest_l2


@pytest.mark.parametrize("notion", ["add-remove", "replace"])
@pytest.mark.parametrize("name", list(s.EXAMPLE_QUERIES))
def test_global_sensitivity_matches_brute_force(name, notion):
    query = s.EXAMPLE_QUERIES[name]
    min_rows = 1 if "mean" in name else 0
    result = s.global_sensitivity(query, SMALL_UNIVERSE, 3, notion, min_rows=min_rows)
    l1, l2 = brute_force(query, SMALL_UNIVERSE, 3, notion, min_rows=min_rows)
    assert result.l1 == pytest.approx(l1, rel=1e-12)
    assert result.l2 == pytest.approx(l2, rel=1e-12)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("notion", ["add-remove", "replace"])
def test_sum_of_row_weights_has_the_closed_form_sensitivity(seed, notion):
    """f = sum of a weight vector per row: add-remove Δ = max |w|, replace Δ = max |w_a - w_b|."""
    rng = np.random.default_rng(seed)
    weights = {row: rng.normal(size=3) for row in SMALL_UNIVERSE}

    def query(rows):
        return np.sum([weights[row] for row in rows], axis=0) if rows else np.zeros(3)

    result = s.global_sensitivity(query, SMALL_UNIVERSE, 2, notion)
    if notion == "add-remove":
        l1 = max(np.abs(w).sum() for w in weights.values())
        l2 = max(np.linalg.norm(w) for w in weights.values())
    else:
        differences = [weights[a] - weights[b] for a in SMALL_UNIVERSE for b in SMALL_UNIVERSE]
        l1 = max(np.abs(d).sum() for d in differences)
        l2 = max(np.linalg.norm(d) for d in differences)
    assert result.l1 == pytest.approx(l1, rel=1e-12)
    assert result.l2 == pytest.approx(l2, rel=1e-12)


@pytest.mark.parametrize("upper", [15, 30, 45, 60, 75, 90])
def test_clipped_sum_sensitivity_is_the_clipping_bound(upper):
    query = partial(s.clipped_age_sum, upper=upper)
    for notion in ("add-remove", "replace"):
        assert s.global_sensitivity(query, notion=notion, max_rows=2).l1 == upper
    # Locally, the toy data set may not hold the extreme ages: its oldest is 75 and its
    # youngest 15, so above upper = 75 no replacement moves the sum by the full bound.
    clipped = [min(row.age, upper) for row in s.TOY_DATA]
    universe = [min(row.age, upper) for row in s.TOY_UNIVERSE]
    local_replace = max(abs(a - b) for a in clipped for b in universe)
    assert s.local_sensitivity(query, notion="replace").l1 == local_replace
    assert s.local_sensitivity(query, notion="add-remove").l1 == max(universe + clipped)
    assert (local_replace < upper) == (upper > 75)


@pytest.mark.parametrize("size", [1, 2, 3])
def test_mean_under_replace_moves_by_bound_over_n(size):
    result = s.global_sensitivity(s.mean_clipped_age, max_rows=size, notion="replace")
    assert result.l1 == pytest.approx(60 / size, rel=1e-12)


def test_mean_under_add_remove_moves_by_half_the_bound_from_one_row_to_two():
    result = s.global_sensitivity(s.mean_clipped_age, max_rows=3, notion="add-remove", min_rows=1)
    assert result.l1 == pytest.approx(30.0, rel=1e-12)
    assert len(result.worst_l1.neighbour) == 2


def test_local_mean_sensitivity_of_the_toy_data_by_hand():
    ages = [min(row.age, 60) for row in s.TOY_DATA]
    mean = Fraction(sum(ages), len(ages))
    added = [min(row.age, 60) for row in s.TOY_UNIVERSE]
    moves = [abs(Fraction(sum(ages) + a, len(ages) + 1) - mean) for a in added]
    moves += [abs(Fraction(sum(ages) - a, len(ages) - 1) - mean) for a in ages]
    add_remove = s.local_sensitivity(s.mean_clipped_age, notion="add-remove")
    assert add_remove.l1 == pytest.approx(float(max(moves)), rel=1e-12)
    replace = s.local_sensitivity(s.mean_clipped_age, notion="replace")
    assert replace.l1 == pytest.approx(60 / len(s.TOY_DATA), rel=1e-12)


@pytest.mark.parametrize(
    ("query", "add_remove", "replace"),
    [
        (s.count_blue_eyes, (1, 1), (1, 1)),
        (s.eye_colour_histogram, (1, 1), (2, math.sqrt(2))),
        (s.eye_and_age_counts, (2, math.sqrt(2)), (3, math.sqrt(3))),
    ],
)
def test_counts_and_histograms(query, add_remove, replace):
    for notion, expected in (("add-remove", add_remove), ("replace", replace)):
        for result in (
            s.local_sensitivity(query, notion=notion),
            s.global_sensitivity(query, notion=notion, max_rows=2),
        ):
            assert (result.l1, result.l2) == pytest.approx(expected, rel=1e-12), notion


def test_neighbour_counts_and_contents():
    universe, rows = s.TOY_UNIVERSE, s.TOY_DATA
    add_remove = list(s.neighbours(rows, universe, "add-remove"))
    replace = list(s.neighbours(rows, universe, "replace"))
    assert len(add_remove) == len(universe) + len(rows)
    assert len(replace) == len(rows) * (len(universe) - 1)
    assert len(list(s.neighbours(rows, universe, "both"))) == len(add_remove) + len(replace)
    base = collections.Counter(rows)
    for _, neighbour in add_remove:
        other = collections.Counter(neighbour)
        difference = (other - base) + (base - other)
        assert sum(difference.values()) == 1
    for _, neighbour in replace:
        assert len(neighbour) == len(rows)
        assert sum((collections.Counter(neighbour) - base).values()) == 1


def test_both_is_the_larger_of_the_two_notions():
    for query in s.EXAMPLE_QUERIES.values():
        both = s.local_sensitivity(query, notion="both")
        one = [s.local_sensitivity(query, notion=n) for n in ("add-remove", "replace")]
        assert both.l1 == max(r.l1 for r in one)
        assert both.l2 == max(r.l2 for r in one)


def test_local_never_exceeds_global_at_the_same_size():
    rows = s.TOY_DATA[:2]
    for query in s.EXAMPLE_QUERIES.values():
        local = s.local_sensitivity(query, rows, notion="replace")
        assert local.l1 <= s.global_sensitivity(query, max_rows=2, notion="replace").l1


def test_a_learners_own_query():
    def oldest_age(rows):
        return max((row.age for row in rows), default=0)

    result = s.local_sensitivity(oldest_age, notion="add-remove")
    # Adding a 90-year-old to a data set whose oldest is 75.
    assert result.l1 == 15
    assert result.worst_l1.description == "add (90, blue)"
    assert s.global_sensitivity(oldest_age, max_rows=2).l1 == 90


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: list(s.neighbours(s.TOY_DATA, notion="swap")), "notion must be one of"),
        (lambda: s.local_sensitivity(s.count_blue_eyes, universe=()), "universe must hold"),
        (lambda: s.local_sensitivity(lambda rows: float("nan")), "finite numbers"),
        (lambda: s.local_sensitivity(lambda rows: [[1, 2]]), "flat vector"),
        (lambda: s.local_sensitivity(lambda rows: list(range(len(rows)))), "one length"),
        (lambda: s.global_sensitivity(s.count_blue_eyes, max_rows=0), "max_rows"),
        (lambda: s.global_sensitivity(s.count_blue_eyes, max_rows=2, min_rows=3), "min_rows"),
    ],
)
def test_bad_input_names_the_parameter(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_enumerations_beyond_the_limit_are_refused_before_they_start():
    with pytest.raises(ValueError, match="max_rows=6"):
        s.global_sensitivity(s.count_blue_eyes, max_rows=6)
    with pytest.raises(ValueError, match="max_rows"):
        s.global_sensitivity(s.count_blue_eyes, max_rows=True)
    result = s.global_sensitivity(s.count_blue_eyes, max_rows=3, notion="both")
    assert result.pairs_checked == s._pair_count(len(s.TOY_UNIVERSE), 3, "both", 0)


def test_a_query_answer_that_is_not_a_number_is_named():
    for query in [lambda rows: None, lambda rows: "x", lambda rows: [[1], [2, 3]]]:
        with pytest.raises(ValueError, match="query must return a number"):
            s.local_sensitivity(query)
    # A yes/no query counts as 0/1.
    anyone_blue = s.global_sensitivity(lambda rows: any(r.eyes == "blue" for r in rows))
    assert anyone_blue.l1 == 1.0
