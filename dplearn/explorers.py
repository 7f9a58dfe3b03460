"""Interactive figures as objects: artists created once, changed in place.

An ``Explorer`` subclass draws one figure of the lessons (its ``figure_id`` is the id
in LESSONS.md, such as "PLRV-7"). Its ``_build`` creates every artist once; its
``_apply(**params)`` only changes them (``set_data``, polygon vertices, text). Moving a
slider calls ``update``, which never adds or removes artists; redrawing is left to
the caller (``dplearn.widgets.explore`` asks the canvas for one idle redraw), so a
benchmark or a test can time exactly one draw per update.

Subclasses declare:
  figure_id: the LESSONS.md id.
  title: a short title for listings and exports.
  controls: parameter name -> ``dplearn.controls.Control`` (what sliders offer).
  defaults: parameter name -> value at the document's setting.
  figsize: figure size in inches.
"""

from __future__ import annotations

import matplotlib

from dplearn.controls import Control

__all__ = ["Explorer", "REGISTRY", "register", "new_figure", "freeze_layout"]

#: Figure id -> Explorer subclass, filled by ``register`` as lesson modules are imported.
REGISTRY: dict[str, type[Explorer]] = {}


def register(cls):
    """Class decorator: makes an explorer known to exports, tests and benchmarks."""
    if cls.figure_id in REGISTRY and REGISTRY[cls.figure_id] is not cls:
        raise ValueError(f"figure_id {cls.figure_id!r} is registered twice")
    REGISTRY[cls.figure_id] = cls
    return cls


def _widget_backend():
    return "ipympl" in matplotlib.get_backend() or matplotlib.get_backend() == "widget"


def new_figure(figsize, dpi=100):
    """A figure for an explorer.

    Under ipympl it comes from pyplot, whose canvas is a live widget; elsewhere (Agg in
    tests and exports, the inline backend) it is a plain Figure that pyplot does not
    track, so nothing leaks and nothing is shown twice.
    """
    if _widget_backend():
        import matplotlib.pyplot as plt

        with plt.ioff():
            figure = plt.figure(figsize=figsize, dpi=dpi)
        figure.canvas.header_visible = False
        figure.canvas.toolbar_visible = False
        figure.canvas.footer_visible = False
        figure.canvas.resizable = False
        return figure
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=figsize, dpi=dpi)
    FigureCanvasAgg(figure)
    return figure


def freeze_layout(figure):
    """Lays the figure out once (constrained layout) and keeps that layout.

    Constrained layout would otherwise run again on every draw, which costs more than
    the draw itself; the axes limits of the explorers are fixed, so one layout fits all.
    """
    figure.set_layout_engine("constrained")
    figure.draw_without_rendering()
    figure.set_layout_engine("none")


class Explorer:
    """Base class of the interactive figures (see the module docstring)."""

    figure_id: str = ""
    title: str = ""
    controls: dict[str, Control] = {}
    defaults: dict[str, float] = {}
    figsize: tuple[float, float] = (9.0, 3.6)

    def __init__(self, *, figure=None, **params):
        self._check_names(params)
        self.params = {**self.defaults, **params}
        self.figure = figure if figure is not None else new_figure(self.figsize)
        self._build()
        self.update()
        freeze_layout(self.figure)

    def _check_names(self, params):
        unknown = sorted(set(params) - set(self.defaults))
        if unknown:
            raise ValueError(
                f"{type(self).__name__} has no parameter {unknown[0]!r}; "
                f"it takes {sorted(self.defaults)}"
            )

    def update(self, **params):
        """Changes the figure in place to show params (the others keep their values).

        Raises:
          ValueError: for an unknown parameter name or an invalid value; the figure
            then keeps showing the previous setting.
        """
        self._check_names(params)
        merged = {**self.params, **params}
        self._apply(**merged)
        self.params = merged
        return self

    def numbers(self):
        """The numbers the lesson quotes beside this figure, at the current setting."""
        return {}

    def _build(self):
        raise NotImplementedError

    def _apply(self, **params):
        raise NotImplementedError
