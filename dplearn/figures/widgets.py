"""Sliders wired to a figure object: the one call a notebook makes per figure.

The box ``explore`` returns is laid out for a projector (1280 × 720): controls in two
columns when there are more than three, and the readout beside the figure when the two
fit side by side, else beside the controls, in as many columns as it needs. Names in
the readout may hold formulas (``$\\delta_2$``): they are typeset once; the numbers
beside them change on every slider move and are plain HTML, so moving a slider never
asks the browser to typeset again.

A figure's title and its readout's names are defined once, at import, in English (the
descriptions find the numbers by pieces of those names); they are translated
(``dplearn.language.gettext``) here, where they are shown.

Taught in: every lesson notebook.
"""

from __future__ import annotations

import base64
import html
import io
import math

import ipywidgets as widgets

from dplearn._environment import in_app_mode
from dplearn.figures import page_access, widget_models
from dplearn.language import gettext as _

__all__ = [
    "describe",
    "explore",
    "format_number",
    "numbers_table",
    "DescribedFigure",
    "Exploration",
    "FigureText",
    "Readout",
]

#: Width a Voilà page at 1280 px gives a figure and what sits beside it (px).
PAGE_WIDTH = 1230
#: Width of one column of the readout (px): a name and its number.
READOUT_COLUMN_WIDTH = 300
#: Width of one column of controls (px), as ``Control.slider`` lays them out.
CONTROL_COLUMN_WIDTH = 400
#: Height of a control row and of a readout row (px), as Voilà and JupyterLab draw them.
CONTROL_ROW_HEIGHT = 32
READOUT_ROW_HEIGHT = 21
#: Controls beyond this many go in two columns.
ONE_COLUMN_CONTROLS = 3

#: A figure wider than the notebook's column (JupyterLab at 1280 px with its file
#: browser open leaves about 840 px; the widest figures are 1000 px) scales down to the
#: column's width instead of running under the panel's right edge. ipympl sizes its
#: canvases in pixels with inline styles, so the rules need !important; the figures take
#: no mouse input, so a scaled canvas loses nothing. Where the figure fits (Voilà at
#: 1280 px) nothing changes.
FIT_STYLE = (
    "<style>"
    ".dplearn-exploration .jupyter-matplotlib,"
    ".dplearn-exploration .jupyter-matplotlib-figure,"
    ".dplearn-exploration .jupyter-matplotlib-canvas-container"
    "{max-width:100%;min-width:0}"
    ".dplearn-exploration .jupyter-matplotlib-canvas-div,"
    ".dplearn-exploration .jupyter-matplotlib-canvas-div canvas"
    "{max-width:100% !important;height:auto !important}"
    # Both canvases are absolutely placed: the image's keeps its place in the flow, so
    # that the box takes the scaled height (the other, on top, follows it).
    ".dplearn-exploration .jupyter-matplotlib-canvas-div canvas:first-child"
    "{position:relative !important}"
    "</style>"
)

_ROW_STYLE = (
    f"height:{READOUT_ROW_HEIGHT}px;line-height:{READOUT_ROW_HEIGHT}px;"
    "white-space:nowrap;overflow:hidden"
)


def format_number(value):
    """Four significant digits, or a readable word for the edge values."""
    if isinstance(value, str):
        return value
    if value != value:
        return _("undefined")
    if value in (float("inf"), float("-inf")):
        return "∞" if value > 0 else "−∞"
    if value != 0 and (abs(value) < 1e-3 or abs(value) >= 1e5):
        mantissa, exponent = f"{value:.4e}".split("e")
        return f"{mantissa} × 10<sup>{int(exponent)}</sup>"
    return f"{value:.4g}"


def _flat(number_html):
    # An exponent must not make its row taller than the name beside it.
    raised = "vertical-align:baseline;position:relative;top:-0.45em;font-size:75%"
    return number_html.replace("<sup>", f"<sup style='{raised}'>")


def _escape_name(name):
    # A readout name in the current language. Names may hold $…$ formulas: keep them
    # whole for MathJax, escape the rest.
    return html.escape(_(name), quote=False)


def _figure_name(explorer):
    """What a screen reader calls the figure: "Figure PLRV-7: " and its title."""
    return _("Figure {figure_id}: {title}").format(
        figure_id=explorer.figure_id, title=_(explorer.title)
    )


def numbers_table(numbers):
    """HTML table of name -> number: the readout as one piece (exports, static pages)."""
    rows = "".join(
        f"<tr><td style='padding-right:1em'>{_escape_name(name)}</td>"
        f"<td style='font-family:monospace'>{format_number(value)}</td></tr>"
        for name, value in numbers.items()
    )
    return f"<table>{rows}</table>"


class Readout(widgets.HBox):
    """The numbers beside a figure: typeset names, plain numbers, in columns of rows.

    Each column is two widgets with rows of one fixed height: the names (``HTMLMath``,
    set once) and the numbers (``HTML``, set on every move).
    """

    def __init__(self, numbers, columns=1):
        self.columns = max(1, int(columns))
        self._names = None
        self._name_views, self._value_views = [], []
        super().__init__([])
        self.add_class("dplearn-readout")
        self.show(numbers)

    def _chunks(self, items):
        per_column = math.ceil(len(items) / self.columns) if items else 0
        return [items[i : i + per_column] for i in range(0, len(items), per_column or 1)]

    def show(self, numbers):
        """Shows numbers: only the numbers change, unless the names did."""
        self._numbers = dict(numbers)
        names = list(numbers)
        if names != self._names:
            self._names = names
            self._name_views, self._value_views, children = [], [], []
            for chunk in self._chunks(names):
                rows = "".join(f"<div style='{_ROW_STYLE}'>{_escape_name(n)}</div>" for n in chunk)
                name_view = widgets.HTMLMath(
                    rows,
                    layout=widget_models.layout(margin="0 1em 0 0"),
                    style=widget_models.style(widgets.HTMLMath),
                )
                value_view = widgets.HTML(
                    "",
                    layout=widget_models.layout(margin="0 2em 0 0"),
                    style=widget_models.style(widgets.HTML),
                )
                self._name_views.append(name_view)
                self._value_views.append(value_view)
                children.append(
                    widgets.HBox([name_view, value_view], layout=widget_models.layout())
                )
            self.children = children
        for chunk, value_view in zip(self._chunks(names), self._value_views, strict=True):
            value_view.value = "".join(
                f"<div style='{_ROW_STYLE};font-family:monospace'>"
                f"{_flat(format_number(numbers[name]))}</div>"
                for name in chunk
            )

    @property
    def value(self):
        """The readout as one HTML table (names and numbers), for a static page."""
        return numbers_table(self._numbers)


def _layout(explorer, controls, entries):
    """Where the readout goes and how many columns controls and readout take.

    The readout goes beside the figure when both fit the page's width; otherwise above
    the figure, beside the controls, with the columns that make that row the lowest.

    Returns (readout_beside_figure, control_columns, readout_columns).
    """
    width, height = (size * explorer.figure.dpi for size in explorer.figure.get_size_inches())
    many = controls > ONE_COLUMN_CONTROLS
    if width + READOUT_COLUMN_WIDTH <= PAGE_WIDTH and entries * READOUT_ROW_HEIGHT <= height:
        return True, 2 if many else 1, 1
    best = None
    for control_columns in (1, 2) if many else (1,):
        control_rows = math.ceil(controls / control_columns)
        free = PAGE_WIDTH - control_columns * CONTROL_COLUMN_WIDTH
        for readout_columns in range(1, max(1, free // READOUT_COLUMN_WIDTH) + 1):
            readout_rows = math.ceil(entries / readout_columns)
            row = max(control_rows * CONTROL_ROW_HEIGHT, readout_rows * READOUT_ROW_HEIGHT)
            choice = (row, control_columns + readout_columns, control_columns, readout_columns)
            best = min(best or choice, choice)
    return False, best[2], best[3]


def _description_table(explorer):
    """The figure in words and numbers: its description, then its readout as a table."""
    rows = "".join(
        f"<tr><th scope='row' style='text-align:left;padding-right:1em;font-weight:normal'>"
        f"{_escape_name(name)}</th><td style='font-family:monospace'>{format_number(value)}</td>"
        "</tr>"
        for name, value in explorer.numbers().items()
    )
    return (
        f"<p>{html.escape(explorer.description(), quote=False)}</p>"
        "<table><caption style='text-align:left'>"
        + _("Numbers of figure {figure_id}").format(figure_id=explorer.figure_id)
        + f"</caption>{rows}</table>"
    )


class FigureText(widgets.VBox):
    """The figure for readers who do not see it: a description and a table on request.

    A visually hidden name and description (``name``, ``description``) that the page
    script (``dplearn.figures.page_access``) ties to the figure as an image's name and
    description; and a "Table" toggle that shows, to everyone, the description and the
    figure's numbers in a table. The description follows every move of a control; the
    table, typeset, only while it is shown.
    """

    def __init__(self, explorer):
        self.explorer = explorer
        self.name = widgets.HTML(
            html.escape(_figure_name(explorer), quote=False),
            layout=widget_models.layout(),
            style=widget_models.style(widgets.HTML),
        )
        self.name.add_class("dplearn-figure-name")
        self.name.add_class(page_access.VISUALLY_HIDDEN)
        self.description = widgets.HTML(
            "", layout=widget_models.layout(), style=widget_models.style(widgets.HTML)
        )
        self.description.add_class("dplearn-figure-description")
        self.description.add_class(page_access.VISUALLY_HIDDEN)
        self.toggle = widgets.ToggleButton(
            value=False,
            description=_("Table"),
            tooltip=_("Show the figure's description and its numbers as text"),
            layout=widget_models.layout(width="8em"),
            style=widget_models.style(widgets.ToggleButton),
        )
        self.toggle.add_class("dplearn-table-toggle")
        # Its own layout: opening the table changes it.
        self.table = widgets.HTMLMath(
            "",
            layout=widgets.Layout(display="none"),
            style=widget_models.style(widgets.HTMLMath),
        )
        self.table.add_class("dplearn-figure-table")
        self.toggle.observe(lambda change: self.show(), names="value")
        super().__init__(
            [self.toggle, self.table, self.name, self.description], layout=widget_models.layout()
        )
        self.add_class("dplearn-figure-text")
        self.show()

    def show(self):
        """Shows the explorer's current description (and table, when it is open)."""
        text = html.escape(self.explorer.description(), quote=False)
        if self.description.value != text:
            self.description.value = text
        if self.toggle.value:
            self.table.value = _description_table(self.explorer)
            self.table.layout.display = None
        elif self.table.layout.display != "none":
            self.table.layout.display = "none"


class Exploration(widgets.VBox):
    """Controls, a figure and its numbers; shown as a PNG where widgets cannot run."""

    def __init__(self, explorer, sliders, readout, view, *, beside=False, control_columns=1):
        self.explorer = explorer
        self.sliders = sliders
        self.readout = readout
        self.view = view
        controls = list(sliders.values())
        if control_columns > 1:
            controls_box = widgets.GridBox(
                controls,
                layout=widget_models.layout(
                    grid_template_columns=f"repeat({control_columns}, max-content)",
                    grid_gap="0 1em",
                    align_content="flex-start",
                ),
            )
        else:
            controls_box = widgets.VBox(controls, layout=widget_models.layout())
        controls_box.add_class("dplearn-controls")
        readout.layout.margin = "0 0 0 1em"
        # Wrapping: where the page is narrower than Voilà's at 1280 px (JupyterLab with
        # its file browser open), the readout moves below instead of off the page.
        row = dict(align_items="flex-start", flex_flow="row wrap")
        if beside:
            # The figure keeps its own width, so the readout sits right beside it.
            view.layout.flex = "0 0 auto"
            children = [
                controls_box,
                widgets.HBox([view, readout], layout=widget_models.layout(**row)),
            ]
        else:
            children = [
                widgets.HBox([controls_box, readout], layout=widget_models.layout(**row)),
                view,
            ]
        if _is_live_canvas(view):
            # The canvas never grows past the box (see FIT_STYLE).
            view.layout.max_width = "100%"
        else:
            view.add_class("dplearn-static-figure")
        # After the figure, so that the controls and the figure stay children 0 and 1.
        self.text = FigureText(explorer)
        self.fit_style = widgets.HTML(
            FIT_STYLE,
            layout=widget_models.layout(display="none"),
            style=widget_models.style(widgets.HTML),
        )
        super().__init__([*children, self.text, self.fit_style])
        self.add_class("dplearn-exploration")
        # How each control shows when it applies (buttons lay out as a flex row).
        self._displays = {name: control.layout.display for name, control in sliders.items()}
        self.show_applicable_controls()
        # In an app, the page shows the figure before the kernel has drawn it for the
        # page (see embed_image); in JupyterLab the figure is live at once.
        self._page_waiting = _is_live_canvas(view) and in_app_mode()
        if self._page_waiting:
            view.on_msg(self._on_view_message)
            self.embed_image()

    def embed_image(self):
        """Puts a PNG of the figure as it stands into its canvas's widget state.

        A page that Voilà serves asks the kernel for every widget's state when it
        connects, and ipympl shows the PNG of that state (its ``_data_url``) as soon as
        the canvas appears. Without it each canvas stays blank until the kernel has
        answered the page's first "refresh", one figure after another: a wait the reader
        sees on a page of several figures. The kernel's own image replaces this one
        as it arrives; both show the same figure at the same size.
        """
        canvas = self.view
        figure = self.explorer.figure
        buffer = io.BytesIO()
        figure.savefig(buffer, format="png", dpi=figure.dpi)
        image = base64.b64encode(buffer.getvalue()).decode("ascii")
        canvas._data_url = f"data:image/png;base64,{image}"
        # The canvas's size in CSS pixels: the page lays the canvas out from it before
        # the kernel has sent a size of its own.
        width, height = figure.bbox.size
        canvas._size = (float(width), float(height))

    def _on_view_message(self, _canvas, content, _buffers):
        # The page's canvas is ready: from now on the kernel draws for it.
        if content.get("type") == "initialized":
            self._page_waiting = False

    def show_applicable_controls(self):
        """Hides every control that does not apply to the current choices, shows the rest.

        A control's ``applies_when`` (``dplearn.figures.controls``) says under which
        options of a choice it changes the figure; elsewhere it would be a slider that
        does nothing, so it is not shown (``layout.display = "none"``).
        """
        for name, control in self.sliders.items():
            shown = self.explorer.applies(name)
            display = self._displays[name] if shown else "none"
            if control.layout.display != display:
                control.layout.display = display

    def refresh(self):
        """Shows the explorer's current numbers and draws its figure again.

        Call it after changing the explorer from code (a new random draw, say).
        """
        self.show_applicable_controls()
        self.readout.show(self.explorer.numbers())
        self.text.show()
        canvas = self.explorer.figure.canvas
        if self.view is canvas:
            # Draw now: with ipympl, draw_idle only asks the browser to ask the kernel
            # for a draw, a round trip that doubled the delay a learner feels.
            canvas.draw()
            if self._page_waiting:
                # A later cell changed the figure before any page was there to see it.
                self.embed_image()
        else:
            from IPython.display import display

            with self.view:
                self.view.clear_output(wait=True)
                display(self.explorer.figure)

    def _repr_mimebundle_(self, **kwargs):
        bundle = super()._repr_mimebundle_(**kwargs) or {}
        buffer = io.BytesIO()
        self.explorer.figure.savefig(buffer, format="png")
        image = base64.b64encode(buffer.getvalue()).decode("ascii")
        bundle["image/png"] = image
        bundle["text/html"] = (
            f"{numbers_table(self.explorer.numbers())}"
            f"<img src='data:image/png;base64,{image}' "
            f"alt='{html.escape(self.explorer.description(), quote=True)}'/>"
        )
        return bundle

    def _ipython_display_(self):
        # The page script first: it names the figure and its sliders (dplearn.figures.page_access).
        from IPython.display import display

        page_access.show_script_once()
        display(self._repr_mimebundle_(), raw=True)


class DescribedFigure(widgets.VBox):
    """A figure that no slider moves, with a name and a description for screen readers.

    The page script (``dplearn.figures.page_access``) makes its canvas an image named by
    ``title`` and described by ``text``; a static copy of the page gets a PNG with the
    description as alt text.
    """

    def __init__(self, figure, title, text):
        self.figure = figure
        canvas = figure.canvas
        if isinstance(canvas, widgets.DOMWidget):
            view = canvas
        else:
            from IPython.display import display

            view = widgets.Output()
            view.add_class("dplearn-static-figure")
            with view:
                display(figure)
        self.view = view
        name = widgets.HTML(html.escape(title, quote=False))
        description = widgets.HTML(html.escape(text, quote=False))
        name.add_class("dplearn-figure-name")
        description.add_class("dplearn-figure-description")
        for hidden in (name, description):
            hidden.add_class(page_access.VISUALLY_HIDDEN)
        self.text = text
        super().__init__([view, name, description])
        # The page script treats it as it treats the figure of an Exploration.
        self.add_class("dplearn-exploration")

    def _repr_mimebundle_(self, **kwargs):
        bundle = super()._repr_mimebundle_(**kwargs) or {}
        buffer = io.BytesIO()
        self.figure.savefig(buffer, format="png")
        image = base64.b64encode(buffer.getvalue()).decode("ascii")
        bundle["image/png"] = image
        bundle["text/html"] = (
            f"<img src='data:image/png;base64,{image}' alt='{html.escape(self.text, quote=True)}'/>"
        )
        return bundle

    def _ipython_display_(self):
        from IPython.display import display

        page_access.show_script_once()
        display(self._repr_mimebundle_(), raw=True)


def describe(figure, text, title=None):
    """A plain matplotlib figure (one a cell draws once) with its description.

    Create the figure under ``plt.ioff()``, so that pyplot does not show it by itself,
    and end the cell with ``describe(fig, "What it shows...")``.

    Args:
      figure: the matplotlib figure.
      text: one or two sentences: what is drawn and what to notice.
      title: what to call it; by default the title of its first axes.
    """
    if not text or not text.strip():
        raise ValueError(f"text must describe the figure, got {text!r}")
    if title is None:
        titles = [axes.get_title() for axes in figure.axes if axes.get_title()]
        title = _("Figure: {title}").format(title=titles[0]) if titles else _("Figure")
    return DescribedFigure(figure, title, text)


def _is_live_canvas(view):
    # An ipympl canvas (a widget that carries the image it was embedded with).
    return isinstance(view, widgets.DOMWidget) and view.has_trait("_data_url")


def explore(explorer, **values):
    """Controls for every control of explorer, moving its figure in place.

    Args:
      explorer: an ``dplearn.figures.explorers.Explorer``.
      **values: starting values that differ from the explorer's current ones.

    Returns:
      An ``Exploration``: the controls on top, the figure below, its numbers beside
      the figure or beside the controls (whichever keeps the box within a projector's
      screen).
    """
    if values:
        explorer.update(**values)
    canvas = explorer.figure.canvas
    if isinstance(canvas, widgets.DOMWidget):
        view = canvas
    else:
        # Inline backend: show a fresh PNG of the same figure after every change.
        view = widgets.Output()
    numbers = explorer.numbers()
    beside, control_columns, readout_columns = _layout(
        explorer, len(explorer.controls), len(numbers)
    )
    readout = Readout(numbers, readout_columns)
    sliders = {
        name: control.slider(explorer.params[name], name)
        for name, control in explorer.controls.items()
    }
    exploration = Exploration(
        explorer, sliders, readout, view, beside=beside, control_columns=control_columns
    )

    def follow(name):
        def on_change(change):
            explorer.update(**{name: change["new"]})
            exploration.refresh()

        return on_change

    for name, slider in sliders.items():
        slider.observe(follow(name), names="value")
    if view is not canvas:
        exploration.refresh()
    return exploration
