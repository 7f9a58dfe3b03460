"""Axis limits that follow a figure's data in round steps, and the mark of a slider's setting.

A figure changes in place: a slider move redraws only its moving artists, unless an axis's
limits change, which repaints that axes in the static layer. Limits that follow the
data in round steps (1, 1.5, 2, 3, 5, 7 times a power of ten) change on few moves, and a
fixed number of round ticks keeps the same artists whatever the limits.

Taught in: 15-go-beyond-global-sensitivity.ipynb, 16-release-a-histogram-then-synthetic-data.ipynb,
17-count-categories-with-local-noise.ipynb
"""

from __future__ import annotations

import math

import numpy as np

from dplearn.figures.text import round_ticks, tick_text

__all__ = ["TICKS", "follow_limits", "roomy", "setting_mark", "steady_ticks"]

#: Ticks on an axis whose limits follow the data: always as many, so that no artist is added.
TICKS = 6


def setting_mark(ax, color, marker):
    """An empty, unclipped mark of one series at the slider's setting (set its data later)."""
    (mark,) = ax.plot(
        [], [], color=color, marker=marker, ls="none", ms=8, mec="black", mew=0.6, clip_on=False
    )
    return mark


def roomy(value):
    """The smallest of 1, 1.5, 2, 3, 5, 7 times a power of ten at or above value (> 0)."""
    power = 10.0 ** math.floor(math.log10(value))
    return next(m * power for m in (1.0, 1.5, 2.0, 3.0, 5.0, 7.0, 10.0) if m * power >= value)


def steady_ticks(low, high, whole=False, count=TICKS):
    """count round ticks from low on (steps of 1, 2, 2.5 or 5 times a power of ten), labelled.

    Always count of them, those past high outside the view: a figure that changes in place
    keeps the same artists. With whole, the step is at least 1.
    """
    ticks = round_ticks(low, high, count)
    step = ticks[1] - ticks[0]
    if whole and step < 1:
        step = 1.0
        ticks = np.ceil(low) + step * np.arange(count)
    return ticks, [tick_text(tick, step) for tick in ticks]


def follow_limits(explorer, ax, xlim=None, ylim=None, *, whole_x=False, count=TICKS):
    """Sets limits and round ticks where they change; the next draw repaints those axes.

    Args:
      explorer: the figure object (its ``LayeredFigure`` repaints the axes).
      ax: the axes.
      xlim, ylim: the new limits, or None to keep them.
      whole_x: the x-axis counts whole things (ticks at whole numbers, half a step of room).
      count: the number of ticks.
    """
    changed = ""
    # Ticks first: setting ticks past the limits widens the view, the limits then narrow it.
    if xlim is not None and tuple(ax.get_xlim()) != tuple(xlim):
        inner = (xlim[0] + 0.5, xlim[1] - 0.5) if whole_x else xlim
        ax.set_xticks(*steady_ticks(*inner, whole_x, count))
        ax.set_xlim(*xlim)
        changed += "x"
    if ylim is not None and tuple(ax.get_ylim()) != tuple(ylim):
        ax.set_yticks(*steady_ticks(*ylim, count=count))
        ax.set_ylim(*ylim)
        changed += "y"
    if changed:
        explorer.figure.invalidate_axes(ax, changed)
