"""Interactive figures as objects: artists created once, changed in place.

An ``Explorer`` subclass draws one figure of the lessons (its ``figure_id`` is the id
in docs/figures.md, such as "PLRV-7"). Its ``_build`` creates every artist once; its
``_apply(**params)`` only changes them (``set_data``, polygon vertices, text). Moving a
slider calls ``update``, which never adds or removes artists; redrawing is left to
the caller (``dplearn.figures.widgets.explore`` draws the canvas once per slider move),
so a benchmark or a test can time exactly one draw per update.

Subclasses declare:
  figure_id: its id in docs/figures.md, the figure catalogue.
  title: a short title for listings and exports, marked ``N_`` and translated where
    shown (the widgets' figure name, the default description, the export's listing).
  controls: parameter name -> ``dplearn.figures.controls.Control`` (what sliders offer;
    a control's ``applies_when`` names the options of a choice under which it matters).
  defaults: parameter name -> value at the lesson's setting.
  figsize: figure size in inches.
"""

from __future__ import annotations

import matplotlib
from matplotlib.axis import Axis
from matplotlib.figure import Figure
from matplotlib.legend import Legend
from matplotlib.spines import Spine
from matplotlib.text import Text
from matplotlib.transforms import Bbox

from dplearn.figures.controls import Control
from dplearn.language import gettext as _

__all__ = [
    "Explorer",
    "LayeredFigure",
    "REGISTRY",
    "SECTIONS",
    "register",
    "load_all",
    "new_figure",
    "freeze_layout",
    "spoken",
    "pick",
]

#: Modules of dplearn.figures that hold no lesson figure.
_FRAMEWORK_MODULES = {
    "__main__",
    "controls",
    "explorers",
    "export",
    "grids",
    "limits",
    "style",
    "text",
    "widgets",
}

#: Figure id prefixes in the order the lessons teach them (lessons 00, 01-03, 04-06, 07,
#: 08-09, 10, 11, 12, 13, 14, 15, 16, 17).
SECTIONS = (
    "INTRO", "PLRV", "MECH", "NOISE", "COMP", "SUB", "SGD", "SEL", "MANY", "MIA", "LOCAL", "REL",
    "FREQ",
)  # fmt: skip

#: Figure id -> Explorer subclass, filled by ``register`` as lesson modules are imported.
REGISTRY: dict[str, type[Explorer]] = {}


def load_all():
    """Imports every lesson module of ``dplearn.figures`` and returns the full registry.

    A lesson module is any module of the package but the framework's own, so a new
    ``dplearn/figures/<topic>.py`` is found by itself. Figure ids sort by section in
    course order (``SECTIONS``: INTRO, PLRV, MECH, NOISE, COMP, SUB, SGD, SEL, MANY, MIA,
    LOCAL, REL, FREQ; a section not listed comes after them, by name), then by number.
    """
    import importlib
    import pkgutil

    from dplearn import figures

    for module in pkgutil.iter_modules(figures.__path__):
        if module.name not in _FRAMEWORK_MODULES:
            importlib.import_module(f"dplearn.figures.{module.name}")
    sections = {section: index for index, section in enumerate(SECTIONS)}

    def order(figure_id):
        # Numbered figures first (PLRV-1 ... PLRV-10), then the extra ones (PLRV-ODDS).
        section, _dash, number = figure_id.partition("-")
        numbered = number.isdigit()
        return (
            sections.get(section, len(sections)),
            section,
            not numbered,
            int(number) if numbered else 0,
            number,
        )

    return {figure_id: REGISTRY[figure_id] for figure_id in sorted(REGISTRY, key=order)}


def register(cls):
    """Class decorator: makes an explorer known to exports, tests and benchmarks."""
    if cls.figure_id in REGISTRY and REGISTRY[cls.figure_id] is not cls:
        raise ValueError(f"figure_id {cls.figure_id!r} is registered twice")
    REGISTRY[cls.figure_id] = cls
    return cls


class LayeredFigure(Figure):
    """A figure that renders its static layer once and redraws only what moves.

    Axes, ticks, labels and other artists that no slider changes form the static
    layer. On a raster canvas (Agg, ipympl, inline PNG) the first draw keeps a copy of
    that layer's pixels; every later draw restores the copy and draws the moving
    artists over it, plus any static artist stacked above them. The image is the one
    a full draw gives (the tests compare the two), at a fraction of the cost: most of
    a full draw is laying out tick labels that never change. Vector output (SVG, PDF)
    always takes the full draw.

    Axes whose limits follow the data (``invalidate_axes``) are repainted alone over a
    second cached layer, the frame: the rest of the static layer, legends and titles
    included, so that a change of limits costs a fraction of a full draw.
    """

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.moving_artists = []
        self.use_layers = True
        self._layer_cache = {}
        # Axes whose limits change -> which of "x", "y" (``invalidate_axes``), and the
        # static layer without what they repaint.
        self.following_axes = {}
        self._frame_cache = {}

    def mark_moving(self, *artists):
        """Declares artists that updates change: they are drawn on every frame.

        Their axes draw ticks and grid below everything else (``set_axisbelow``), so
        that the costly tick labels can stay in the static layer.
        """
        self.moving_artists.extend(artists)
        for artist in artists:
            if artist.axes is not None:
                artist.axes.set_axisbelow(True)
        self.invalidate_static_layer()

    def invalidate_static_layer(self):
        """Forgets the static pixels: call after changing static text or anything static."""
        self._layer_cache.clear()
        self._frame_cache.clear()

    def invalidate_axes(self, axes, which="xy"):
        """Forgets the static pixels of one axes: call after changing its limits or ticks.

        The next draw repaints only what such axes draw within the rest of the static
        layer (the frame, kept apart): their background, spines, ticks, static data, and
        the tick labels and label of each axis named in which. Their legends, titles and
        the labels of an axis whose limits stay put remain in the frame, as do the other
        axes, so a change of limits costs a fraction of a full draw.

        Args:
          axes: the axes whose limits changed.
          which: "x", "y" or "xy": the axis, or both, whose limits changed.
        """
        for name in which:
            group = axes.get_shared_x_axes() if name == "x" else axes.get_shared_y_axes()
            # Axes that share an axis take the same limits (siblings include axes itself).
            for each in group.get_siblings(axes):
                followed = self.following_axes.setdefault(each, set())
                if name not in followed:
                    followed.add(name)
                    self._frame_cache.clear()
        self._layer_cache.clear()

    def _framed(self, axes):
        """(artists of a following axes that stay in the frame, tick marks and grid lines).

        The frame keeps the axes' legends and titles, and each axis whose limits never
        change: whole where it draws nothing over the axes' area (no grid lines, tick
        marks pointing out), else its tick labels and label, the marks and lines of its
        ticks then being repainted with the axes' background.
        """
        titles = (axes.title, axes._left_title, axes._right_title)
        kept = [a for a in axes.get_children() if isinstance(a, Legend) or a in titles]
        marks = []
        for name, axis in (("x", axes.xaxis), ("y", axes.yaxis)):
            if name in self.following_axes[axes]:
                continue
            ticks = [*axis.majorTicks, *axis.minorTicks]
            if all(t._tickdir == "out" and not t.gridline.get_visible() for t in ticks):
                kept.append(axis)
                continue
            kept += [axis.label, axis.offsetText]
            for tick in ticks:
                kept += [tick.label1, tick.label2]
                marks += [tick.tick1line, tick.tick2line, tick.gridline]
        return kept, marks

    def _top_layer(self):
        """Artists drawn on every frame, axes by axes, in the order a full draw uses.

        That is every moving artist and every static one stacked above the lowest
        moving artist of its axes, so the frame is painted exactly as a full draw
        paints it.
        """
        moving = set(map(id, self.moving_artists))
        layer = []
        for axes in sorted(self.axes, key=lambda a: a.get_zorder()):
            children = [a for a in axes.get_children() if a is not axes.patch]
            lowest = min((a.get_zorder() for a in children if id(a) in moving), default=None)
            if lowest is None:
                continue
            on_top = [
                a
                for a in children
                if id(a) in moving or (a.get_zorder() > lowest and not isinstance(a, Axis))
            ]
            layer.extend(sorted(on_top, key=lambda a: a.get_zorder()))
        layer.extend(a for a in self.texts + self.artists if id(a) in moving)
        return layer

    def draw(self, renderer):
        """Draws the figure: the static layer from its cached pixels, then the moving artists.

        A full draw happens when layers are off, nothing moves, the renderer cannot copy
        pixels (vector output), or the draw is a dry run; the first draw at a size fills the
        cache.
        """
        if not (self.use_layers and self.moving_artists and hasattr(renderer, "copy_from_bbox")):
            return super().draw(renderer)
        if "draw_path" in vars(renderer):
            # A dry run with painting switched off (RendererBase._draw_disabled, used by
            # layout and tight bounding boxes): its canvas must not become the layer.
            return super().draw(renderer)
        top_layer = self._top_layer()
        key = (renderer.width, renderer.height, self.dpi)
        if key not in self._layer_cache:
            with _hidden(top_layer):
                moving = set(map(id, top_layer))
                if not (
                    self.following_axes
                    and self._draw_frame_and_following_axes(renderer, key, moving)
                ):
                    super().draw(renderer)
            _keep(self._layer_cache, key, renderer.copy_from_bbox(self.bbox))
        else:
            renderer.restore_region(self._layer_cache[key])
        for artist in top_layer:
            if artist.get_visible():
                artist.draw(renderer)
        for axes in self.axes:
            axes.stale = False
        self.stale = False

    def _draw_frame_and_following_axes(self, renderer, key, top_layer):
        """Paints the static layer as the frame (cached) plus the following axes drawn on it.

        The frame is the static layer without what the following axes repaint (see
        ``invalidate_axes``). Painting it first gives the pixels a full draw gives as long
        as nothing it holds overlaps what is repainted (checked after each repaint: where
        something does, the static layer takes a full draw; the tests compare the two).

        Returns:
          False when the static layer needs a full draw instead.
        """
        following = sorted(self.following_axes, key=lambda a: a.get_zorder())
        kept, marks = [], []
        for axes in following:
            axes_kept, axes_marks = self._framed(axes)
            kept += axes_kept
            marks += axes_marks
        if key not in self._frame_cache:
            # An axis whose labels stay in the frame is drawn there without its marks.
            skipped = set(map(id, kept)) | top_layer
            skipped |= {
                id(axes.xaxis) for axes in following if "x" not in self.following_axes[axes]
            }
            skipped |= {
                id(axes.yaxis) for axes in following if "y" not in self.following_axes[axes]
            }
            repainted = [
                a for axes in following for a in axes.get_children() if id(a) not in skipped
            ]
            with _hidden(repainted + marks):
                Figure.draw(self, renderer)
            beside = self._frame_extents(renderer, following)
            _keep(self._frame_cache, key, (renderer.copy_from_bbox(self.bbox), beside))
        pixels, beside = self._frame_cache[key]
        renderer.restore_region(pixels)
        with _hidden(kept):
            for axes in following:
                axes.draw(renderer)
        return not _overlap(self._repainted_extents(renderer, following), beside)

    def _frame_extents(self, renderer, following):
        """Where the frame paints beside the following axes (boxes in display pixels).

        That is their legends and titles, the figure's own legends and texts, and the
        other axes whole.
        """
        artists = [*self.legends, *self.texts]
        for axes in following:
            artists += [a for a in axes.get_children() if isinstance(a, Legend)]
            artists += [axes.title, axes._left_title, axes._right_title]
        boxes = [
            a.get_window_extent(renderer)
            for a in artists
            if a.get_visible() and not (isinstance(a, Text) and not a.get_text())
        ]
        boxes += [axes.get_tightbbox(renderer) for axes in self.axes if axes not in following]
        return [box for box in boxes if box is not None]

    def _repainted_extents(self, renderer, following):
        """Where the following axes repainted: their area, ticks, and the labels that move."""
        boxes = []
        for axes in following:
            # The area, a pixel more for the spines, and the tick marks' length on each
            # side where they show.
            (x0, y0), (x1, y1) = axes.bbox.padded(1.0).get_points()
            x_tick, y_tick = axes.xaxis.majorTicks[0], axes.yaxis.majorTicks[0]
            x_reach = x_tick.tick1line.get_markersize() * self.dpi / 72.0
            y_reach = y_tick.tick1line.get_markersize() * self.dpi / 72.0
            boxes.append(
                Bbox.from_extents(
                    x0 - y_reach * y_tick.tick1line.get_visible(),
                    y0 - x_reach * x_tick.tick1line.get_visible(),
                    x1 + y_reach * y_tick.tick2line.get_visible(),
                    y1 + x_reach * x_tick.tick2line.get_visible(),
                )
            )
            for name, axis in (("x", axes.xaxis), ("y", axes.yaxis)):
                if name not in self.following_axes[axes]:
                    continue
                # As just drawn: the label, and the labels of the ticks within the view.
                low, high = sorted(axis.get_view_interval())
                texts = [axis.label, axis.offsetText]
                for tick in [*axis.majorTicks, *axis.minorTicks]:
                    if low <= tick.get_loc() <= high:
                        texts += [tick.label1, tick.label2]
                boxes += [
                    text.get_window_extent(renderer)
                    for text in texts
                    if text.get_visible() and text.get_text()
                ]
        return boxes


def _overlap(boxes, others):
    """Whether any box of one list shares an area with any box of the other."""
    for box in boxes:
        for other in others:
            shared = Bbox.intersection(box, other)
            if shared is not None and shared.width > 0 and shared.height > 0:
                return True
    return False


class _hidden:
    """Within the block, the artists are invisible (each gets back its own visibility)."""

    def __init__(self, artists):
        self.artists = list(artists)

    def __enter__(self):
        self.shown = [artist.get_visible() for artist in self.artists]
        for artist in self.artists:
            artist.set_visible(False)

    def __exit__(self, *exc_info):
        for artist, visible in zip(self.artists, self.shown, strict=True):
            artist.set_visible(visible)


def _keep(cache, key, pixels):
    """Stores pixels under key, keeping at most one other size (another dpi, a HiDPI screen)."""
    while len(cache) > 1:
        cache.pop(next(iter(cache)))
    cache[key] = pixels


def spoken(value, digits=3):
    """A number as a screen reader should read it: plain text, ``digits`` significant.

    Very small or large values read as "1.06 × 10^-5"; text (a readout such as
    "99 of 100") is returned as it is, infinity as a word. The words are in the current
    language.
    """
    if isinstance(value, str):
        return value.replace("∞", _("infinity"))
    if isinstance(value, bool):
        return _("yes") if value else _("no")
    value = float(value)
    if value != value:
        return _("undefined")
    if abs(value) == float("inf"):
        return _("infinity") if value > 0 else _("minus infinity")
    if value == int(value) and abs(value) < 1e5:
        return f"{int(value):d}"
    if value != 0 and (abs(value) < 1e-3 or abs(value) >= 1e5):
        mantissa, exponent = f"{value:.{digits - 1}e}".split("e")
        if "." in mantissa:
            mantissa = mantissa.rstrip("0").rstrip(".")
        return f"{mantissa} × 10^{int(exponent)}"
    return f"{value:.{digits}g}"


def pick(numbers, fragment):
    """The one value of numbers (name -> number) whose name holds fragment.

    Descriptions read the figure's own readout (``Explorer.numbers``) by a piece of
    each name, so the sentence and the table beside the figure cannot disagree.

    Raises:
      KeyError: when no name, or more than one, holds fragment.
    """
    if fragment in numbers:
        return numbers[fragment]
    found = [name for name in numbers if fragment in name]
    if len(found) != 1:
        raise KeyError(f"{len(found)} readout names hold {fragment!r}: {list(numbers)}")
    return numbers[found[0]]


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
            figure = plt.figure(figsize=figsize, dpi=dpi, FigureClass=LayeredFigure)
        figure.canvas.header_visible = False
        figure.canvas.toolbar_visible = False
        figure.canvas.footer_visible = False
        figure.canvas.resizable = False
        # Until the browser reports its view ready, ipympl copies every drawn image into
        # the synced `_data_url` as bare base64, which the browser cannot load. Run All in
        # JupyterLab can have the kernel draw a figure before that report arrives, and the
        # browser then sizes the figure from a broken image and leaves it blank. The
        # lessons never need that copy (an Exploration carries its own PNG), so skip it.
        figure.canvas.syncing_data_url = False
        return figure
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    figure = LayeredFigure(figsize=figsize, dpi=dpi)
    FigureCanvasAgg(figure)
    return figure


def freeze_layout(figure):
    """Lays the figure out once (constrained layout) and keeps that layout.

    Constrained layout would otherwise run again on every draw, which costs more than
    the draw itself; the axes limits of the explorers are fixed, so one layout fits all.
    The layout sees every artist (layers off), and afterwards the figure has no layout
    engine at all, so that saving it runs no extra, unpainted draw.
    """
    layered = isinstance(figure, LayeredFigure)
    if layered:
        figure.use_layers = False
    try:
        figure.set_layout_engine("constrained")
        figure.draw_without_rendering()
    finally:
        if layered:
            figure.use_layers = True
    figure.set_layout_engine(None)
    if layered:
        figure.invalidate_static_layer()


def _lower_static_decorations(figure):
    """Puts static titles, legends, texts, spines and axes just below the moving artists.

    Above the moving artists (text at zorder 3, legends at 5, data at 1 to 2) they would
    be painted again on every frame, and drawing text costs more than all the data;
    below, they stay in the cached static layer. Figures place legends and notes where
    the data does not go, so the picture is the same.
    """
    moving = set(map(id, figure.moving_artists))
    for axes in figure.axes:
        levels = [a.get_zorder() for a in axes.get_children() if id(a) in moving]
        if not levels:
            continue
        lowest = min(levels)
        for artist in axes.get_children():
            if id(artist) in moving or artist.get_zorder() < lowest:
                continue
            if isinstance(artist, Legend | Text | Spine):
                artist.set_zorder(lowest - 0.05)
            elif isinstance(artist, Axis):
                # Ticks and grid too, should a moving artist sit as low as they do.
                artist.set_zorder(lowest - 0.1)


class Explorer:
    """Base class of the interactive figures (see the module docstring)."""

    figure_id: str = ""
    title: str = ""
    controls: dict[str, Control] = {}
    defaults: dict[str, float] = {}
    figsize: tuple[float, float] = (9.0, 3.6)

    def __init__(self, *, figure=None, **params):
        self._check_names(params)
        self.params = dict(self.defaults)
        self.figure = figure if figure is not None else new_figure(self.figsize)
        # A fixed title height: matplotlib otherwise moves titles by what the axes
        # hold at each draw, and the static layer must not depend on moving artists.
        with matplotlib.rc_context({"axes.titley": 1.0}):
            self._build()
        if isinstance(self.figure, LayeredFigure):
            _lower_static_decorations(self.figure)
        self.update(**params)
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
        params = {
            name: self.controls[name].check(name, value) if name in self.controls else value
            for name, value in params.items()
        }
        merged = {**self.params, **params}
        self._apply(**merged)
        self.params = merged
        return self

    def applies(self, name):
        """Whether control name changes the figure at the current setting.

        False for a control whose ``applies_when`` excludes the current option of a
        choice (the sigma of Gaussian noise while Laplace noise is chosen): the widgets
        hide it, and the tests check that every other control moves the figure.
        """
        return self.controls[name].applies(self.params)

    def moving(self, *artists):
        """Marks artists that ``_apply`` changes; returns the first, for chaining.

        Everything else in the figure is static and is rendered once (see
        ``LayeredFigure``). Call ``self.figure.invalidate_axes(axes, "y")`` in
        ``_apply`` when an update changes an axes' limits or ticks (``limits.follow_limits``
        does), ``self.figure.invalidate_static_layer()`` when it changes other static
        artists.
        """
        if isinstance(self.figure, LayeredFigure):
            self.figure.mark_moving(*artists)
        return artists[0] if artists else None

    def numbers(self):
        """The numbers the lesson quotes beside this figure, at the current setting."""
        return {}

    def description(self) -> str:
        """What the figure shows, for a reader who cannot see it: one or two sentences.

        Every lesson figure overrides this with a sentence of its own: what is drawn,
        what to notice, and the current numbers, so that the text follows the sliders
        (the widgets read it out when a control moves, and use it as the image's alt
        text). This default only names the figure.
        """
        return _("Figure {figure_id}: {title}.").format(
            figure_id=self.figure_id, title=_(self.title)
        )

    def reader(self):
        """A function fragment -> the spoken value of the readout entry holding it."""
        numbers = self.numbers()
        return lambda fragment, digits=3: spoken(pick(numbers, fragment), digits)

    def _build(self):
        raise NotImplementedError

    def _apply(self, **params):
        raise NotImplementedError
