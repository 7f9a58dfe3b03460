"""Moving text: numbers and notes that change on every slider move, drawn cheaply.

Laying out and rasterising a matplotlib Text costs more than the rest of a frame, and
mathtext parses every new string again. So text that moves with a slider is plain
Unicode (ℒ for the privacy loss), drawn as glyph outlines (``TextPath``) used as a
marker and cached per string: Agg stamps a marker from its cache. This module has the
pieces a figure needs for that: ``value_text`` (a number for a label), ``Note`` (a line
or two in the axes, optionally on a white box), and ``MovingXAxis`` (an x-axis whose
limits change on every update, its tick numbers drawn as markers). Titles, axis labels
and legends stay mathtext in the cached static layer (``static_xlabel``).

The glyphs come from matplotlib's font list (``font.family``), which
``dplearn.figures.fonts`` sets for the lesson's language: DejaVu Sans, then a CJK font for
Chinese. ``TextPath`` takes each character from the first font of the list that has it, as
a Text does, so a Chinese note draws its Latin letters and digits in DejaVu Sans and its
Chinese ones in the CJK font. The caches are kept per font list, so that a string drawn
before the language changed is drawn again in the new fonts.

Taught in: 08-add-up-privacy-losses.ipynb, 09-count-privacy-with-an-accountant.ipynb
(and the labels of every figure of lessons 01-03)
"""

from __future__ import annotations

import functools

import matplotlib
import numpy as np
from matplotlib import transforms
from matplotlib.font_manager import FontProperties
from matplotlib.markers import MarkerStyle
from matplotlib.path import Path
from matplotlib.textpath import TextPath
from matplotlib.ticker import NullLocator

__all__ = [
    "NOTE_PAD",
    "NOTE_SIZE",
    "TICK_COUNT",
    "TICK_GAP_POINTS",
    "TICK_HUGE",
    "TICK_TINY",
    "MovingXAxis",
    "Note",
    "note_markers",
    "round_ticks",
    "static_xlabel",
    "tick_marker",
    "tick_text",
    "value_text",
]


def value_text(value):
    """A number for a label in the axes: 4 significant digits, scientific when tiny, ∞."""
    if not np.isfinite(value):
        return "∞"
    if value != 0 and abs(value) < 1e-3:
        return f"{value:.3e}"
    return f"{value:.4g}"


#: Gap between the axis and the top of its tick numbers, in points.
TICK_GAP_POINTS = 4.5
#: Ticks on an x-axis whose limits move (the same number on every update).
TICK_COUNT = 7


def round_ticks(low, high, count=TICK_COUNT):
    """count evenly spaced round values from the first at or above low.

    Their step is 1, 2, 2.5 or 5 times a power of ten; together they reach past high.
    """
    low, high = float(low), float(high)
    # A view of no width (to rounding) gets ticks at the scale of its values; any other
    # view keeps steps of its own size, even one 1e-17 wide.
    scale = max(abs(low), abs(high))
    span = high - low if high - low > 1e-12 * scale else (scale or 1.0)
    raw = span / (count - 2)
    power = 10.0 ** np.floor(np.log10(raw))
    step = next(m * power for m in (1.0, 2.0, 2.5, 5.0, 10.0) if m * power >= raw)
    start = np.ceil(low / step) * step
    return start + step * np.arange(count)


def _font_family():
    """matplotlib's font list as it stands (the language's), as a hashable cache key."""
    family = matplotlib.rcParams["font.family"]
    return (family,) if isinstance(family, str) else tuple(family)


def tick_marker(text):
    """A marker drawing text like a tick label, hung below its point: (style, size).

    The glyph outlines (``TextPath``, in points) are centred horizontally and put below
    y = 0 with a small gap; a marker of size 2 * max |vertex| draws them at scale 1.
    """
    return _tick_marker(text, _font_family())


@functools.lru_cache(maxsize=512)
def _tick_marker(text, family):
    """``tick_marker`` in the fonts of family, cached per text and font list."""
    size = matplotlib.rcParams["xtick.labelsize"]
    if isinstance(size, str):
        size = FontProperties(size=size).get_size_in_points()
    font = FontProperties(family=list(family), size=size)
    path = TextPath((0.0, 0.0), text, size=size, prop=font)
    vertices = path.vertices.copy()
    (left, _bottom), (right, top) = vertices.min(axis=0), vertices.max(axis=0)
    vertices[:, 0] -= (left + right) / 2.0
    vertices[:, 1] -= top + TICK_GAP_POINTS
    shaped = Path(vertices, path.codes)
    extent = float(np.abs(vertices).max())
    return MarkerStyle(shaped), 2.0 * extent


#: Steps below this or at and above ``TICK_HUGE`` write their ticks as m×10ᵏ.
TICK_TINY = 1e-4
TICK_HUGE = 1e6
_SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


def _decimals(step):
    """How many decimals tell apart numbers that step apart."""
    decimals = max(0, int(-np.floor(np.log10(step) + 1e-9)))
    if not np.isclose(round(step, decimals), step, rtol=1e-9, atol=0):
        decimals += 1
    return decimals


def tick_text(value, step):
    """A tick label with as many digits as the step needs, and a true minus sign.

    Fixed decimals for steps from TICK_TINY to TICK_HUGE ("0.25", "−3", "2300"); beyond,
    a mantissa times a power of ten ("5×10⁻¹⁸", "2.5×10⁷"), since fourteen zeros or
    digits cannot be read at a glance. The same value and step always give the same
    string, so ``tick_marker`` caches its glyphs by it.
    """
    value, step = float(value), float(step)
    if not (np.isfinite(step) and step > 0):
        raise ValueError(f"step must be a positive number, got {step!r}")
    magnitude = abs(value)
    if TICK_TINY <= step < TICK_HUGE and magnitude < 10 * TICK_HUGE:
        text = f"{value:.{_decimals(step)}f}"
        if float(text) == 0:
            text = text.lstrip("-")
        return text.replace("-", "−")
    # A tick a float's rounding error away from zero is zero.
    if not np.isfinite(value) or magnitude <= 1e-9 * step:
        return "0" if np.isfinite(value) else value_text(value)
    exponent = int(np.floor(np.log10(magnitude)))
    decimals = _decimals(step / 10.0**exponent)
    mantissa = round(magnitude / 10.0**exponent, decimals)
    if mantissa >= 10:  # 9.96 at one decimal is 10.0: 1.0 of the next power
        exponent += 1
        mantissa = round(mantissa / 10, decimals)
    digits = f"{mantissa:.{decimals}f}"
    if "." in digits:
        digits = digits.rstrip("0").rstrip(".")
    sign = "−" if value < 0 else ""
    return f"{sign}{digits}×10{str(exponent).translate(_SUPERSCRIPT)}"


#: Size of the notes written into the axes, in points.
NOTE_SIZE = 9.0
#: Space between a note's text and the edge of its box, in points.
NOTE_PAD = 2.7


def note_markers(text, ha, va, size=NOTE_SIZE, pad=NOTE_PAD):
    """Markers drawing a note's lines and its box, aligned on their point.

    Returns a pair of (style, size): the text's, then the box's.

    A note's text changes with the sliders, and a Text artist lays out and rasterises its
    glyphs again on every frame (most of a COMP figure's draw). Glyph outlines
    (``TextPath``) drawn as a marker cost a fraction of that, and the cache keeps them per
    string. ha is "left" or "right", va "top" or "bottom": the side of the box that
    touches the point.
    """
    return _note_markers(text, ha, va, size, pad, _font_family())


@functools.lru_cache(maxsize=256)
def _note_markers(text, ha, va, size, pad, family):
    """``note_markers`` in the fonts of family, cached per note and font list."""
    font = FontProperties(family=list(family), size=size)
    line_height = 1.2 * size
    parts = []
    for row, line in enumerate(text.split("\n")):
        path = TextPath((0.0, 0.0), line, size=size, prop=font, usetex=False)
        vertices = path.vertices.copy()
        if vertices.size == 0:
            continue
        vertices[:, 1] -= row * line_height
        parts.append(Path(vertices, path.codes))
    if not parts:
        return None
    shape = Path.make_compound_path(*parts)
    vertices = shape.vertices.copy()
    (left, bottom), (right, top) = vertices.min(axis=0), vertices.max(axis=0)
    # The box reaches pad beyond the glyphs, down to the lowest descender of the last line.
    bottom = min(bottom, -(len(parts) - 1) * line_height - 0.25 * size)
    top = max(top, 0.75 * size)
    width, height = right - left + 2 * pad, top - bottom + 2 * pad
    shift_x = -left + pad if ha == "left" else -(right + pad)
    shift_y = -(top + pad) if va == "top" else -bottom + pad
    vertices += (shift_x, shift_y)
    corner_x = 0.0 if ha == "left" else -width
    corner_y = -height if va == "top" else 0.0
    box = Path.unit_rectangle().transformed(
        transforms.Affine2D().scale(width, height).translate(corner_x, corner_y)
    )

    def marker(path):
        extent = float(np.abs(path.vertices).max())
        return MarkerStyle(path), 2.0 * extent

    return marker(Path(vertices, shape.codes)), marker(box)


class Note:
    """A line or two of plain text in the axes that changes on every update.

    It is drawn as markers (see ``note_markers``), optionally on a white box.

    Static text stays a matplotlib Text (mathtext, in the cached layer); this is for the
    moving words only, so it takes plain Unicode.
    """

    def __init__(self, ax, x, y, *, ha="left", va="top", box=True):
        self.ha, self.va, self._text = ha, va, ""
        common = dict(ls="none", transform=ax.transAxes, clip_on=False, zorder=6)
        (self.box,) = ax.plot([], [], mfc="white", mec="0.8", mew=1.0, alpha=0.85, **common)
        (self.glyphs,) = ax.plot([], [], color="black", mew=0, **common)
        self.box.set_visible(box)
        for artist in self.artists:
            # Constrained layout would make room for the largest marker it has seen.
            artist.set_in_layout(False)
        self.position = (x, y)

    @property
    def artists(self):
        """The two lines drawn: the box, then the glyphs."""
        return self.box, self.glyphs

    def get_text(self):
        """The text shown, as ``Text.get_text`` gives it."""
        return self._text

    def set_text(self, text):
        """Shows text in place of the current one; an empty text hides the note."""
        text = str(text)
        if text == self._text:
            return
        self._text = text
        markers = note_markers(text, self.ha, self.va) if text.strip() else None
        if markers is None:
            for artist in self.artists:
                artist.set_data([], [])
            return
        for artist, (style, size) in zip((self.glyphs, self.box), markers, strict=True):
            artist.set_marker(style)
            artist.set_markersize(size)
            artist.set_data([self.position[0]], [self.position[1]])


class MovingXAxis:
    """An x-axis of ``ax`` whose limits change on every update, drawn cheaply.

    Matplotlib's own axis would lay out its ticks, labels and their bounding boxes
    again on every frame, and rasterising text glyphs costs more than the rest of the
    figure. So its ticks are switched off and this draws TICK_COUNT tick marks (one
    line) and their numbers as markers shaped like the text (``tick_marker``), which
    Agg stamps from a cache; ``set_limits`` places them. The axis title is a static
    text below them (``static_xlabel``).

    Args:
      ax: the axes.
      moving: the figure's ``Explorer.moving``, called once with the new artists.
    """

    def __init__(self, ax, moving):
        self.ax = ax
        ax.xaxis.set_major_locator(NullLocator())
        ax.xaxis.set_minor_locator(NullLocator())
        below = transforms.blended_transform_factory(ax.transData, ax.transAxes)
        self.labels = [
            ax.plot([], [], ls="none", color="black", mew=0, transform=below, clip_on=False)[0]
            for _tick in range(TICK_COUNT)
        ]
        (self.marks,) = ax.plot([], [], color="black", lw=0.8, transform=below, clip_on=False)
        self._texts = {}
        moving(self.marks, *self.labels)

    def set_limits(self, low, high):
        """Sets the x limits and the ticks at round values between them."""
        self.ax.set_xlim(low, high)
        ticks = round_ticks(low, high, TICK_COUNT)
        shown = (ticks >= low) & (ticks <= high)
        step = ticks[1] - ticks[0]
        x = np.repeat(ticks[shown], 3)
        y = np.tile([0.0, -0.018, np.nan], int(shown.sum()))
        self.marks.set_data(x, y)
        for tick, visible, label in zip(ticks, shown, self.labels, strict=True):
            if visible:
                text = tick_text(tick, step)
                # A new marker style costs more than the rest: only when the number changes.
                if self._texts.get(label) != text:
                    marker, size = tick_marker(text)
                    label.set_marker(marker)
                    label.set_markersize(size)
                    self._texts[label] = text
                label.set_data([tick], [0.0])
            else:
                label.set_data([], [])


def static_xlabel(ax, text):
    """The title of a ``MovingXAxis``: static text (mathtext welcome) below its numbers."""
    ax.text(0.5, -0.12, text, transform=ax.transAxes, ha="center", va="top", fontsize=10)
