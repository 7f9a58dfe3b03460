"""One legend under a figure's axes, where no curve a slider can move will ever pass.

A legend inside the axes sits where the data is at one setting and is crossed at
another (the epsilon line of MECH-3, the crossing of MECH-4, the crossover of MECH-5).
``legend_below`` gathers the labelled artists of the given axes into one row under them,
laid out once by constrained layout (``loc="outside lower center"``).
``legend_beside`` puts one to the right of an axes; ``style_handle`` is the entry of a
series drawn from a style dict.

Taught in: 02-see-what-delta-means.ipynb, 04-compute-sensitivity.ipynb,
05-add-laplace-and-geometric-noise.ipynb, 06-calibrate-gaussian-noise.ipynb,
08-add-up-privacy-losses.ipynb, 09-count-privacy-with-an-accountant.ipynb
"""

from __future__ import annotations

from matplotlib.lines import Line2D

__all__ = ["legend_below", "legend_beside", "style_handle"]


def legend_below(figure, axes, *, handles=(), ncols=None, **options):
    """A figure legend of every labelled artist of ``axes`` (first label wins), below them.

    Args:
      figure: the matplotlib figure.
      axes: the axes whose artists it lists, in order.
      handles: artists to list first (proxies such as ``Line2D([], [], label=...)``).
      ncols: columns (default: all entries in one row).
      options: passed to ``Figure.legend`` (markerscale, ...).

    Returns:
      The legend.
    """
    labels = [handle.get_label() for handle in handles]
    handles = list(handles)
    for ax in axes:
        for handle, label in zip(*ax.get_legend_handles_labels(), strict=True):
            if label not in labels:
                handles.append(handle)
                labels.append(label)
    options = {"fontsize": 9, "frameon": False, **options}
    return figure.legend(
        handles, labels, loc="outside lower center", ncols=ncols or len(labels), **options
    )


def legend_beside(ax, handles, **options):
    """The legend to the right of the axes, its top level with theirs (options: ax.legend's).

    Outside the axes it covers no data, so it goes under every curve (zorder 0): a layered
    figure then draws it once, in its static layer, instead of again on every slider move.
    """
    placed = {"loc": "upper left", "bbox_to_anchor": (1.01, 1.0), "fontsize": 9}
    legend = ax.legend(handles=handles, **{**placed, **options})
    legend.set_zorder(0)
    return legend


def style_handle(style, label, lw=2.0):
    """A legend entry for a series drawn in style (a dict with its color, ls and marker)."""
    return Line2D(
        [], [], color=style["color"], ls=style["ls"], marker=style["marker"], lw=lw, label=label
    )
