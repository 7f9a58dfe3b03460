"""Tick numbers of a moving x-axis (dplearn/figures/text.py): readable at every scale.

A label is read back by an independent parser (fixed decimals, or m×10ᵏ with Unicode
superscripts) and must land within half a step of its tick; labels on one axis differ;
no label is a run of zeros.
"""

import re

import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from dplearn.figures import text

_SUPERSCRIPTS = dict(zip("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789-", strict=True))
_SCIENTIFIC = re.compile(r"^(−?)(\d+(?:\.\d+)?)×10([⁻]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+)$")
_FIXED = re.compile(r"^−?\d+(?:\.\d+)?$")


def read_label(label):
    """The number a reader sees in a tick label."""
    found = _SCIENTIFIC.match(label)
    if found:
        sign, mantissa, power = found.groups()
        exponent = int("".join(_SUPERSCRIPTS[c] for c in power))
        return (-1 if sign else 1) * float(mantissa) * 10.0**exponent
    assert _FIXED.match(label), label
    return float(label.replace("−", "-"))


VIEWS = [
    (0.0, 7e-18),  # COMP-2's delta_1 at large epsilon
    (-3e-12, 1e-12),
    (2e-9, 2.6e-9),
    (0.0, 6e-5),
    (-3e-4, 7e-3),
    (-1.08, 1.08),
    (4.2, 4.3),
    (0.0, 2300.0),
    (0.0, 3e8),
    (1e7, 1.01e7),
    (-5e15, 1e15),
]


@pytest.mark.parametrize("low, high", VIEWS)
def test_labels_read_back_to_their_ticks_and_differ(low, high):
    ticks = text.round_ticks(low, high)
    step = ticks[1] - ticks[0]
    # Steps of the view's own size: at least three ticks inside it, at any scale.
    assert ((ticks >= low) & (ticks <= high)).sum() >= 3, ticks
    labels = [text.tick_text(tick, step) for tick in ticks]
    assert len(set(labels)) == len(labels), labels
    for tick, label in zip(ticks, labels, strict=True):
        assert abs(read_label(label) - tick) <= 1e-9 * step + 1e-12 * abs(tick), (tick, label)
        assert "-" not in label  # a true minus sign
        assert "0000" not in label, label  # never a run of zeros to count
        assert len(label) <= 10, label


def test_tiny_and_huge_numbers_are_powers_of_ten():
    assert text.tick_text(5e-18, 1e-18) == "5×10⁻¹⁸"
    assert text.tick_text(5e-18, 1e-13) == "5×10⁻¹⁸"  # not 0.0000000000000
    assert text.tick_text(-2.5e-18, 2.5e-18) == "−2.5×10⁻¹⁸"
    assert text.tick_text(1.25e-17, 2.5e-18) == "1.25×10⁻¹⁷"
    assert text.tick_text(2.5e7, 5e6) == "2.5×10⁷"
    assert text.tick_text(3e8, 1e8) == "3×10⁸"
    # 9.96e-18 at one decimal of its power is 1.0e-17, written in the next power.
    assert text.tick_text(9.96e-18, 5e-19) == "1×10⁻¹⁷"
    # Zero, and a float's rounding error away from it, is 0 on such an axis.
    assert text.tick_text(0.0, 1e-18) == "0"
    assert text.tick_text(3e-34, 1e-18) == "0"
    # Between the two, fixed decimals.
    assert text.tick_text(0.25, 0.05) == "0.25"
    assert text.tick_text(-0.0001, 1e-4) == "−0.0001"
    assert text.tick_text(-1e-12, 0.5) == "0.0"
    assert text.tick_text(2300.0, 500.0) == "2300"


@pytest.mark.parametrize("step", [0.0, -1.0, float("nan"), float("inf")])
def test_a_step_that_is_not_positive_is_refused(step):
    with pytest.raises(ValueError, match="step"):
        text.tick_text(1.0, step)


def test_superscript_glyphs_draw_and_are_cached_by_the_string():
    label = text.tick_text(-2.5e-18, 2.5e-18)
    marker, size = text.tick_marker(label)
    assert size > 0 and len(marker.get_path().vertices) > 0
    # The same string is the same cached marker; a different power is another one.
    assert text.tick_marker(label)[0] is marker
    assert text.tick_marker(text.tick_text(-2.5e-17, 2.5e-17))[0] is not marker
    # Wider than the mantissa alone: the power of ten is drawn, not dropped.
    assert size > text.tick_marker("−2.5")[1]


def test_moving_axis_writes_tiny_ticks_readably():
    figure = Figure(figsize=(6, 3))
    FigureCanvasAgg(figure)
    ax = figure.add_subplot()
    axis = text.MovingXAxis(ax, moving=lambda *artists: None)
    axis.set_limits(0.0, 7e-18)
    shown = [axis._texts[label] for label in axis.labels if len(label.get_xdata())]
    assert shown == ["0", "2×10⁻¹⁸", "4×10⁻¹⁸", "6×10⁻¹⁸"]
    figure.canvas.draw()  # Agg draws the superscripts without a missing-glyph warning
    axis.set_limits(-1.08, 1.08)
    shown = [axis._texts[label] for label in axis.labels if len(label.get_xdata())]
    assert shown == ["−1.0", "−0.5", "0.0", "0.5", "1.0"]
    assert np.allclose(ax.get_xlim(), (-1.08, 1.08))
