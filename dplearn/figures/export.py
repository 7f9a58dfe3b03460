"""Exports every registered figure, at the document's setting, as PNG and SVG.

Usage: ``python -m dplearn.figures --out DIR [--dpi 150] [ID ...]``

Each figure object is built at its defaults (the setting of the source document) and
written to ``DIR/<figure id>.png`` and ``DIR/<figure id>.svg``, one line printed per
figure as it goes: slides and handouts get the same pictures the lessons show.

Taught in: every lesson notebook (their figures, for slides and print).
"""

from __future__ import annotations

import argparse
import pathlib
import sys

__all__ = ["export", "main"]


def export(out, figure_ids=None, dpi=150, stream=sys.stdout):
    """Writes the figures as PNG and SVG into out; returns the paths written.

    Args:
      out: folder to write into (created when missing).
      figure_ids: ids to export; None exports every registered figure.
      dpi: resolution of the PNG files.
      stream: where to print one line per figure.

    Raises:
      ValueError: when figure_ids names a figure that is not registered.
    """
    import matplotlib

    # Files, not screens: the widget backend of a notebook would make live canvases.
    matplotlib.use("Agg")
    from dplearn.figures.explorers import load_all

    explorers = load_all()
    selected = list(explorers) if figure_ids is None else list(figure_ids)
    unknown = [figure_id for figure_id in selected if figure_id not in explorers]
    if unknown:
        raise ValueError(f"figure_ids has unknown id {unknown[0]!r}; known: {list(explorers)}")
    out = pathlib.Path(out)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for figure_id in selected:
        explorer_class = explorers[figure_id]
        figure = explorer_class().figure
        png, svg = out / f"{figure_id}.png", out / f"{figure_id}.svg"
        # No dates or versions in the files, so that exports are reproducible.
        figure.savefig(png, format="png", dpi=dpi, metadata={"Software": None})
        figure.savefig(svg, format="svg", metadata={"Date": None, "Creator": None})
        written += [png, svg]
        print(
            f"{figure_id:<12} {png.name}, {svg.name}  {explorer_class.title}",
            file=stream,
            flush=True,
        )
    return written


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m dplearn.figures",
        description="Export every registered figure, at the document's setting, as PNG and SVG.",
    )
    parser.add_argument("--out", required=True, help="folder to write the files into")
    parser.add_argument("--dpi", type=float, default=150, help="resolution of the PNG files")
    parser.add_argument("figure_ids", nargs="*", help="figure ids to export (default: all)")
    args = parser.parse_args(argv)
    try:
        written = export(args.out, args.figure_ids or None, dpi=args.dpi)
    except ValueError as error:
        parser.error(str(error))
    print(f"{len(written) // 2} figures written to {args.out}")
    return 0
