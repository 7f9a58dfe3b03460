"""Probability grids: the positions x in [0, 1] at which a figure draws a curve of x.

On the probability axis outputs are sorted by decreasing privacy loss, so position x
has the loss L(x) that an output set of probability x just reaches (the loss's
quantile function from the top). The curves there run off to infinity or to 0 at the
ends and have flat steps at the loss's atoms; these grids put their points where the
curves need them, so that a polygon through them has the drawn area to a known
accuracy. The figure modules of every lesson share them.

Taught in: 02-see-what-delta-means.ipynb, 08-add-up-privacy-losses.ipynb
"""

from __future__ import annotations

import numpy as np

__all__ = ["curve_positions", "probability_grid", "probability_positions"]


def probability_positions(upper, count=600):
    """Probability positions in [0, upper]: both ends included, dense near both.

    Near 0 the Gaussian loss grows like sqrt(2 ln(1/p)) and near p = 1 it falls as
    fast, so a quarter of the points are spaced geometrically towards each end (down
    to upper * 1e-12 from it); the rest are even. A polygon through them has the area
    under the curve to about 1e-5 (relative).

    Taught in: 02-see-what-delta-means.ipynb
    """
    upper = float(upper)
    quarter = count // 4
    ends = np.geomspace(1e-12, 1e-2, quarter)
    even = np.linspace(1e-2, 1.0 - 1e-2, count - 2 * quarter - 1)
    fractions = np.concatenate(([0.0], ends, even[1:-1], 1.0 - ends[::-1], [1.0]))
    return upper * fractions


def curve_positions(edge_count=120, middle_count=300, *, last=True):
    """Probability positions over the whole axis for a curve of e^L (or e^epsilon / e^L).

    edge_count positions are spaced geometrically towards each end, down to 1e-9 from it,
    where the curve runs off to infinity or to 0, and middle_count even ones lie between
    0.02 and 0.98.

    Args:
      edge_count: positions near each end.
      middle_count: even positions in the middle.
      last: include the position 1 itself.

    Taught in: 02-see-what-delta-means.ipynb, 08-add-up-privacy-losses.ipynb
    """
    edge = np.geomspace(1e-9, 0.02, edge_count)
    middle = np.linspace(0.02, 0.98, middle_count)
    return np.unique(np.concatenate(([0.0], edge, middle, 1 - edge, [1.0] if last else [])))


def probability_grid(pair, upper, count=600):
    """Probability positions in [0, upper] for drawing L(x) of a pair.

    They are the ends, and every corner of its quantile function (the flat steps of its
    atoms).

    Outputs are sorted by decreasing L, so an atom of value v and mass m fills the
    positions from P[L > v] to P[L > v] + m, where L(x) = v is flat; the curve through
    these points is exact on the steps and smooth in between.

    Taught in: 08-add-up-privacy-losses.ipynb
    """
    positions = [probability_positions(upper, count)]
    values, masses = pair.loss_atoms
    if len(values):
        starts = np.asarray(pair.loss_exceeds(np.maximum(values, 0.0)), dtype=float)
        # Atoms at negative values are never bad events (L > epsilon >= 0): leave them.
        starts = starts[values >= 0]
        ends = starts + masses[values >= 0]
        inside = np.concatenate((starts, ends))
        positions.append(inside[(inside > 0) & (inside < upper)])
    return np.unique(np.concatenate(positions))
