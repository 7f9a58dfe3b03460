"""Independent values of lesson 16's exercises and of their anticipated slips: range errors
counted bin by bin and node by node, the clipped count's mean by quadrature, MWEM's
selection from its scores, and its rho by adding each step's, written in mpmath from the
papers' formulas."""

import mpmath

# Evaluated at the 40 digits tests/conftest.py gives every test (never set here: an
# import would change them for the tests that run after it).


def _laplace_variance(scale):
    return 2 * mpmath.mpf(scale) ** 2


def _dyadic_cover(start, end, low, high):
    """How many maximal dyadic intervals of [low, high) make up [start, end), recursively."""
    if end <= low or high <= start:
        return 0
    if start <= low and high <= end:
        return 1
    middle = (low + high) // 2
    return _dyadic_cover(start, end, low, middle) + _dyadic_cover(start, end, middle, high)


def _levels(bins):
    """The tree's levels: the node sizes d, d/2, ..., 1."""
    count, size = 0, bins
    while size >= 1:
        count, size = count + 1, size // 2
    return count


_EPSILON = mpmath.mpf("0.5")
_RANGE = 27 - 5


def _histogram(sensitivity=1):
    return _RANGE * _laplace_variance(sensitivity / _EPSILON)


def _tree(sensitivity, nodes=None):
    nodes = _dyadic_cover(5, 27, 0, 32) if nodes is None else nodes
    return nodes * _laplace_variance(sensitivity / _EPSILON)


def _clipped_mean_excess(count, scale):
    """E[max(0, c + X)] - c for X ~ Lap(b), by quadrature of the Laplace density."""
    count, scale = mpmath.mpf(count), mpmath.mpf(scale)

    def density(x):
        return mpmath.exp(-abs(x) / scale) / (2 * scale)

    points = [-count, 0, mpmath.inf] if count > 0 else [0, mpmath.inf]
    return mpmath.quad(lambda x: (count + x) * density(x), points) - count


def _table(bias):
    return 1500 * bias(0) + 500 * bias(4)


def _selection(epsilon_selection, halved=True):
    """P[range of bins 2 and 3] when every range [i, j) of h weighs exp(eps s / 2)."""
    histogram = [30, 5, 10, 35]
    uniform = mpmath.mpf(sum(histogram)) / len(histogram)
    weights = {}
    for i in range(4):
        for j in range(i + 1, 5):
            score = abs(sum(histogram[i:j]) - (j - i) * uniform)
            exponent = mpmath.mpf(epsilon_selection) * score
            weights[(i, j)] = mpmath.exp(exponent / 2 if halved else exponent)
    return weights[(1, 3)] / sum(weights.values())


def _step_rho(epsilon_step):
    """An exponential mechanism (bounded range, eps^2/8) plus a Laplace measurement (eps^2/2)."""
    epsilon_step = mpmath.mpf(epsilon_step)
    return epsilon_step**2 / 8 + epsilon_step**2 / 2


def _run_rho(epsilon, rounds):
    return sum(_step_rho(mpmath.mpf(epsilon) / (2 * rounds)) for _unused in range(rounds))


def _converted(rho):
    rho = mpmath.mpf(rho)
    return rho + 2 * mpmath.sqrt(rho * mpmath.log(10**6))


INDEPENDENT = {
    "16.histogram-range": _histogram,
    "16.tree-range": lambda: _tree(_levels(32)),
    "16.clipped-count": lambda: _clipped_mean_excess(3, 2),
    "16.empty-cells": lambda: _table(lambda count: _clipped_mean_excess(count, 4)),
    "16.mwem-selection": lambda: _selection(mpmath.mpf(1) / 4),
    "16.mwem-rho": lambda: _run_rho(2, 10),
    "16.mwem-epsilon": lambda: _converted(_run_rho(1, 40)),
}
INDEPENDENT_FUNCTIONS = {
    "16.mwem-measurement": lambda epsilon, rounds: 1 / (mpmath.mpf(epsilon) / (2 * rounds)),
}

#: Each anticipated slip of a number exercise: (exercise id, hint id) -> its value.
SLIPS = {
    ("16.histogram-range", "one-bin"): lambda: _laplace_variance(1 / _EPSILON),
    ("16.histogram-range", "variance-without-two"): lambda: _RANGE / _EPSILON**2,
    ("16.histogram-range", "standard-deviation"): lambda: mpmath.sqrt(_histogram()),
    # The standard deviations added: (22 sqrt(8))^2.
    ("16.histogram-range", "deviations-added"): lambda: _RANGE**2 * _laplace_variance(2),
    ("16.tree-range", "tree-sensitivity-one"): lambda: _tree(1),
    ("16.tree-range", "levels-without-root"): lambda: _tree(mpmath.log(32, 2)),
    ("16.tree-range", "summed-leaves"): lambda: _tree(_levels(32), _RANGE),
    ("16.clipped-count", "no-bias"): lambda: 0,
    ("16.clipped-count", "bias-is-scale"): lambda: 2,
    ("16.clipped-count", "empty-cell-bias"): lambda: _clipped_mean_excess(0, 2),
    ("16.clipped-count", "bias-without-half"): lambda: 2 * mpmath.exp(-mpmath.mpf(3) / 2),
    ("16.empty-cells", "no-bias"): lambda: 0,
    ("16.empty-cells", "bias-is-scale"): lambda: _table(lambda count: 4),
    ("16.empty-cells", "all-cells-empty"): lambda: _table(lambda count: 2),
    ("16.empty-cells", "only-empty-cells"): lambda: 1500 * _clipped_mean_excess(0, 4),
    ("16.mwem-selection", "budget-not-split"): lambda: _selection(1),
    ("16.mwem-selection", "one-factor-two"): lambda: _selection(mpmath.mpf(1) / 4, False),
    ("16.mwem-selection", "largest-score"): lambda: 1,
    ("16.mwem-rho", "epsilons-added-first"): lambda: _step_rho(sum([mpmath.mpf("0.1")] * 10)),
    ("16.mwem-rho", "budget-not-split"): lambda: 10 * _step_rho(2),
    ("16.mwem-rho", "pure-selection"): lambda: 10 * 2 * mpmath.mpf("0.1") ** 2 / 2,
    ("16.mwem-rho", "one-round"): lambda: _step_rho(mpmath.mpf("0.1")),
    ("16.mwem-rho", "whole-run-pure"): lambda: mpmath.mpf(2) ** 2 / 2,
    ("16.mwem-epsilon", "rounds-converted-then-added"): lambda: (
        40 * _converted(_step_rho(mpmath.mpf(1) / 80))
    ),
    ("16.mwem-epsilon", "rho-not-converted"): lambda: _run_rho(1, 40),
    ("16.mwem-epsilon", "basic-composition"): lambda: 1,
    ("16.mwem-epsilon", "whole-run-pure"): lambda: _converted(mpmath.mpf(1) / 2),
}
