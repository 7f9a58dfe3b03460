"""Exports every registered figure, at the lesson's setting, as PNG and SVG.

Usage: ``python -m dplearn.figures --out DIR [--dpi 150] [ID ...]``

Each figure object is built at its defaults (the setting its lesson opens with) and
written to ``DIR/<figure id>.png`` and ``DIR/<figure id>.svg``, one line printed per
figure as it goes: slides and handouts get the same pictures the lessons show.

``python -m dplearn.figures --animate ID --out FILE.gif [--control NAME] [--frames N]``
writes one figure as an animated GIF while one of its sliders sweeps its range and
back (the README's opening picture is one: regenerate it when the figure changes).

Taught in: every lesson notebook (their figures, for slides and print).
"""

from __future__ import annotations

import argparse
import pathlib
import sys

from dplearn.language import gettext as _

__all__ = ["export", "animate", "sweep", "main"]


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
            f"{figure_id:<12} {png.name}, {svg.name}  {_(explorer_class.title)}",
            file=stream,
            flush=True,
        )
    return written


def sweep(control, start, frames):
    """Values for an animation: from start to the control's ends and back to start.

    The slider goes up to its maximum, down to its minimum and back to where it began
    (evenly on a log scale for log controls), so the animation loops without a jump.
    Options of a ``Choice`` are shown in turn.
    """
    import numpy as np

    if frames < 4:
        raise ValueError(f"frames must be at least 4, got {frames!r}")
    if not hasattr(control, "minimum"):
        options = list(control.options)
        first = options.index(start) if start in options else 0
        return [options[(first + index) % len(options)] for index in range(frames)]
    low, high = control.minimum, control.maximum
    scale = (np.log, np.exp) if control.log else (lambda v: v, lambda v: v)
    forward, back = scale
    a, lo, hi = forward(start), forward(low), forward(high)
    # A path start -> high -> low -> start, cut into frames evenly along its length.
    legs = np.array([hi - a, hi - lo, a - lo])
    length = legs.sum()
    steps = np.arange(frames) * length / frames
    values = np.where(
        steps < legs[0],
        a + steps,
        np.where(steps < legs[0] + legs[1], hi - (steps - legs[0]), lo + (steps - legs[:2].sum())),
    )
    return [control.clip(back(value)) for value in values]


def _caption(text, width, dpi):
    """A white strip with text (mathtext allowed) in it, width pixels wide, as an image."""
    import numpy as np
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from PIL import Image

    strip = Figure(figsize=(width / dpi, 0.32), dpi=dpi)
    FigureCanvasAgg(strip)
    strip.text(0.01, 0.5, text, va="center", ha="left", fontsize=11)
    strip.canvas.draw()
    return Image.fromarray(np.asarray(strip.canvas.buffer_rgba())).convert("RGB")


def animate(figure_id, out, control=None, frames=36, dpi=80, duration_ms=120, span=None):
    """Writes one figure as an animated GIF while one slider sweeps; returns the path.

    Args:
      figure_id: a registered figure id, such as "PLRV-9".
      out: the GIF file to write (its folder is created when missing).
      control: the parameter to sweep; by default the figure's first control.
      frames: number of frames (at least 4).
      dpi: resolution; 80 keeps a 10-inch figure 800 px wide and the file small.
      duration_ms: how long each frame shows.
      span: (low, high), a part of the slider's range to sweep; by default all of it.

    Raises:
      ValueError: for an unknown figure id or control name, or too few frames.
    """
    import matplotlib

    matplotlib.use("Agg")
    import numpy as np
    from PIL import Image

    from dplearn.figures.explorers import load_all

    explorers = load_all()
    if figure_id not in explorers:
        raise ValueError(f"figure_id must be one of {list(explorers)}, got {figure_id!r}")
    explorer = explorers[figure_id]()
    if not explorer.controls:
        raise ValueError(f"figure {figure_id} has no control to sweep")
    name = control if control is not None else next(iter(explorer.controls))
    if name not in explorer.controls:
        raise ValueError(f"control must be one of {list(explorer.controls)}, got {name!r}")
    figure = explorer.figure
    figure.set_dpi(dpi)
    chosen = explorer.controls[name]
    if span is not None:
        low, high = (float(value) for value in span)
        if not (chosen.offers(low) and chosen.offers(high) and low < high):
            raise ValueError(
                f"span must be two increasing values the {name} slider offers "
                f"({chosen.minimum:g} to {chosen.maximum:g}), got {tuple(span)!r}"
            )
        chosen = chosen.replace(minimum=low, maximum=high)
        explorer.update(**{name: chosen.clip(explorer.params[name])})
    images = []
    for value in sweep(chosen, explorer.params[name], frames):
        explorer.update(**{name: value})
        figure.canvas.draw()
        frame = Image.fromarray(np.asarray(figure.canvas.buffer_rgba())).convert("RGB")
        shown = _(value) if isinstance(value, str) else f"{value:.3g}"
        words = _("slider {label} = {value}").format(label=_(chosen.label), value=shown)
        caption = _caption(words, frame.width, dpi)
        both = Image.new("RGB", (frame.width, frame.height + caption.height), "white")
        both.paste(frame, (0, 0))
        both.paste(caption, (0, frame.height))
        images.append(both)
    # One palette for every frame (taken from all of them), so colours do not flicker.
    strip = Image.new("RGB", (images[0].width, images[0].height * len(images)))
    for index, image in enumerate(images):
        strip.paste(image, (0, index * image.height))
    palette = strip.quantize(colors=96, method=Image.Quantize.MEDIANCUT)
    frames_out = [image.quantize(palette=palette, dither=Image.Dither.NONE) for image in images]
    # The commonest colour is the background: make it exactly white again.
    colours = frames_out[0].getpalette()
    _count, background = max(frames_out[0].getcolors(maxcolors=256))
    colours[3 * background : 3 * background + 3] = [255, 255, 255]
    for frame in frames_out:
        frame.putpalette(colours)
    out = pathlib.Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    frames_out[0].save(
        out,
        format="GIF",
        save_all=True,
        append_images=frames_out[1:],
        duration=duration_ms,
        loop=0,
        optimize=True,
        disposal=1,
    )
    return out


def main(argv=None):
    """The command line ``python -m dplearn.figures``: exports figures, or one as a GIF.

    Returns:
      0, the exit status.
    """
    parser = argparse.ArgumentParser(
        prog="python -m dplearn.figures",
        description="Export every registered figure, at the document's setting, as PNG and SVG;"
        " or, with --animate, one figure as a GIF while a slider sweeps.",
    )
    parser.add_argument(
        "--out", required=True, help="folder to write the files into (with --animate: the GIF)"
    )
    parser.add_argument("--dpi", type=float, default=None, help="resolution (150; GIF 80)")
    parser.add_argument("--animate", metavar="ID", help="write this figure as an animated GIF")
    parser.add_argument("--control", help="with --animate: the slider to sweep (its first)")
    parser.add_argument("--frames", type=int, default=36, help="with --animate: frames")
    parser.add_argument(
        "--range",
        nargs=2,
        type=float,
        metavar=("LOW", "HIGH"),
        help="with --animate: sweep only this part of the slider's range",
    )
    parser.add_argument("figure_ids", nargs="*", help="figure ids to export (default: all)")
    args = parser.parse_args(argv)
    if args.animate:
        try:
            path = animate(
                args.animate,
                args.out,
                args.control,
                args.frames,
                dpi=args.dpi or 80,
                span=args.range,
            )
        except ValueError as error:
            parser.error(str(error))
        print(f"{args.animate}: {args.frames} frames written to {path}")
        return 0
    try:
        written = export(args.out, args.figure_ids or None, dpi=args.dpi or 150)
    except ValueError as error:
        parser.error(str(error))
    print(f"{len(written) // 2} figures written to {args.out}")
    return 0
