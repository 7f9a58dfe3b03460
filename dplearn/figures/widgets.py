"""Sliders wired to a figure object: the one call a notebook makes per figure.

Taught in: every lesson notebook.
"""

from __future__ import annotations

import base64
import html
import io

import ipywidgets as widgets

__all__ = ["explore", "format_number", "numbers_table"]


def format_number(value):
    """Four significant digits, or a readable word for the edge values."""
    if isinstance(value, str):
        return value
    if value != value:
        return "undefined"
    if value in (float("inf"), float("-inf")):
        return "∞" if value > 0 else "−∞"
    if value != 0 and (abs(value) < 1e-3 or abs(value) >= 1e5):
        mantissa, exponent = f"{value:.4e}".split("e")
        return f"{mantissa} × 10<sup>{int(exponent)}</sup>"
    return f"{value:.4g}"


def numbers_table(numbers):
    """HTML table of name -> number, the readout beside a figure."""
    rows = "".join(
        f"<tr><td style='padding-right:1em'>{html.escape(name)}</td>"
        f"<td style='font-family:monospace'>{format_number(value)}</td></tr>"
        for name, value in numbers.items()
    )
    return f"<table>{rows}</table>"


class Exploration(widgets.VBox):
    """Sliders, a figure and its numbers; shown as a PNG where widgets cannot run."""

    def __init__(self, explorer, sliders, readout, view):
        self.explorer = explorer
        self.sliders = sliders
        self.readout = readout
        super().__init__([widgets.HBox([widgets.VBox(list(sliders.values())), readout]), view])

    def _repr_mimebundle_(self, **kwargs):
        bundle = super()._repr_mimebundle_(**kwargs) or {}
        buffer = io.BytesIO()
        self.explorer.figure.savefig(buffer, format="png")
        image = base64.b64encode(buffer.getvalue()).decode("ascii")
        bundle["image/png"] = image
        bundle["text/html"] = (
            f"{self.readout.value}<img src='data:image/png;base64,{image}' "
            f"alt='{html.escape(self.explorer.title)}'/>"
        )
        return bundle


def explore(explorer, **values):
    """Sliders for every control of explorer, moving its figure in place.

    Args:
      explorer: an ``dplearn.figures.explorers.Explorer``.
      **values: starting values that differ from the explorer's current ones.

    Returns:
      A widget: sliders and the numbers on top, the figure below.
    """
    if values:
        explorer.update(**values)
    canvas = explorer.figure.canvas
    if isinstance(canvas, widgets.DOMWidget):
        view = canvas
    else:
        # Inline backend: show a fresh PNG of the same figure after every change.
        view = widgets.Output()
    readout = widgets.HTML(numbers_table(explorer.numbers()))
    sliders = {
        name: control.slider(explorer.params[name], name)
        for name, control in explorer.controls.items()
    }

    def redraw():
        readout.value = numbers_table(explorer.numbers())
        if view is canvas:
            # Draw now: with ipympl, draw_idle only asks the browser to ask the kernel
            # for a draw, a round trip that doubled the delay a learner feels.
            canvas.draw()
        else:
            from IPython.display import display

            with view:
                view.clear_output(wait=True)
                display(explorer.figure)

    def follow(name):
        def on_change(change):
            explorer.update(**{name: change["new"]})
            redraw()

        return on_change

    for name, slider in sliders.items():
        slider.observe(follow(name), names="value")
    if view is not canvas:
        redraw()
    return Exploration(explorer, sliders, readout, view)
