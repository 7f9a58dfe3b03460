"""Every figure can be read without full colour vision and on a washed-out projector.

For every registered figure at its document setting:
- every line and marker stands out from its axes' background by a contrast ratio of
  at least 3 (WCAG 2.1, 1.4.11, graphics), every text by at least 4.5 (1.4.3);
- every two series colours (legend entries and labelled lines) differ by a CIEDE2000
  ΔE of at least ``THRESHOLD`` for normal vision and for simulated protanopia,
  deuteranopia and tritanopia (Machado, Oliveira & Fernandes 2009, severity 1).
The colour arithmetic is checked against published values first.

THRESHOLD = 10: about five times a just-noticeable difference (ΔE00 ≈ 2 for large patches
side by side); thin lines, far apart on a projected slide, need far more than the least
that is noticeable. The smallest pair is printed (pytest -s).
"""

import itertools

import numpy as np
import pytest
from matplotlib.colors import to_rgb, to_rgba

from dplearn.figures import style
from dplearn.figures.explorers import load_all
from tests import shared_explorers
from tests.colour_vision import (
    DEFICIENCIES,
    contrast,
    delta_e_2000,
    simulate,
    srgb_to_lab,
)

EXPLORERS = load_all()
THRESHOLD = 10.0
VISIONS = ("normal", *DEFICIENCIES)


def seen(rgb, vision):
    return np.asarray(rgb) if vision == "normal" else simulate(rgb, vision)


def difference(first, second, vision):
    return delta_e_2000(srgb_to_lab(seen(first, vision)), srgb_to_lab(seen(second, vision)))


def _on(rgba, background):
    return tuple(rgba[3] * np.asarray(rgba[:3]) + (1 - rgba[3]) * np.asarray(background))


def _first_colour(colour):
    colour = np.asarray(colour) if not isinstance(colour, str) else colour
    if isinstance(colour, np.ndarray) and colour.ndim == 2:
        return colour[0] if len(colour) else None
    return colour


def series_colours(figure):
    """Colour -> label of every legend entry and labelled line of the figure."""
    handles = []
    for axes in figure.axes:
        if axes.get_legend() is not None:
            handles += axes.get_legend().legend_handles
        handles += [
            line
            for line in axes.get_lines()
            if line.get_visible() and not line.get_label().startswith("_")
        ]
    for legend in figure.legends:
        handles += legend.legend_handles
    colours = {}
    for handle in handles:
        getter = getattr(handle, "get_color", None) or handle.get_facecolor
        colour = _first_colour(getter())
        if colour is None or to_rgba(colour)[3] == 0:
            continue
        rgb = tuple(np.round(to_rgba(colour)[:3], 4))
        colours.setdefault(rgb, handle.get_label())
    return colours


@pytest.mark.parametrize(
    ("lab1", "lab2", "expected"),
    [
        # Sharma, Wu & Dalal (2005), Table 1, pairs 1, 17 and 25.
        ((50.0, 2.6772, -79.7751), (50.0, 0.0, -82.7485), 2.0425),
        ((50.0, 2.5, 0.0), (73.0, 25.0, -18.0), 27.1492),
        ((60.2574, -34.0099, 36.2677), (60.4626, -34.1751, 39.4387), 1.2644),
    ],
)
def test_ciede2000_matches_the_published_test_data(lab1, lab2, expected):
    assert delta_e_2000(lab1, lab2) == pytest.approx(expected, abs=5e-5)


def test_colour_conversions_match_known_values():
    # sRGB red in CIELAB (D65), and WCAG's extreme contrast.
    np.testing.assert_allclose(srgb_to_lab((1, 0, 0)), (53.2408, 80.0925, 67.2032), atol=2e-3)
    np.testing.assert_allclose(srgb_to_lab((1, 1, 1)), (100, 0, 0), atol=1e-6)
    assert contrast((0, 0, 0)) == pytest.approx(21.0)
    # Dichromats see greys as greys (Machado's rows sum to 1).
    for deficiency in DEFICIENCIES:
        np.testing.assert_allclose(simulate((0.5, 0.5, 0.5), deficiency), 0.5, atol=1e-5)
    # The classic confusion: matplotlib's orange and green, for a protanope.
    assert difference(to_rgb("tab:orange"), to_rgb("tab:green"), "protanopia") < 2


def test_the_palette_passes_every_check():
    palette = [style.BLUE, style.ORANGE, style.GREEN, style.PURPLE, style.GREY, style.BAD_COLOR]
    for colour in [*palette, style.GUIDE_GREY]:
        assert contrast(to_rgb(colour)) >= 3.0, colour
        assert contrast(to_rgb(style.readable(colour))) >= 4.5, colour
    for first, second in itertools.combinations(palette, 2):
        for vision in VISIONS:
            assert difference(to_rgb(first), to_rgb(second), vision) >= THRESHOLD, (
                first,
                second,
                vision,
            )


@pytest.mark.parametrize("figure_id", list(EXPLORERS))
def test_lines_and_text_stand_out_from_the_background(figure_id):
    figure = shared_explorers.at(figure_id).figure
    figure.canvas.draw()
    low = []
    for axes in figure.axes:
        background = to_rgba(axes.get_facecolor())[:3]
        for line in axes.get_lines():
            if not line.get_visible() or (
                line.get_linewidth() == 0 and line.get_marker() in (None, "", "None", "none")
            ):
                continue
            colour = _on(to_rgba(line.get_color(), line.get_alpha()), background)
            if contrast(colour, background) < 3.0:
                low.append(("line", line.get_label(), line.get_color()))
        texts = [axes.title, axes.xaxis.label, axes.yaxis.label, *axes.texts]
        texts += axes.get_xticklabels() + axes.get_yticklabels()
        for text in texts:
            if not text.get_visible() or not text.get_text().strip() or text.get_alpha() == 0:
                continue
            box = text.get_bbox_patch()
            behind = background
            if box is not None and box.get_facecolor()[3] > 0:
                behind = _on(to_rgba(box.get_facecolor()), background)
            colour = _on(to_rgba(text.get_color(), text.get_alpha()), behind)
            if contrast(colour, behind) < 4.5:
                low.append(("text", text.get_text(), text.get_color()))
    assert not low, low


def test_series_colours_stay_apart_for_every_kind_of_colour_vision():
    smallest, failures = None, []
    for figure_id in EXPLORERS:
        colours = series_colours(shared_explorers.at(figure_id).figure)
        for (first, first_label), (second, second_label) in itertools.combinations(
            colours.items(), 2
        ):
            for vision in VISIONS:
                gap = difference(first, second, vision)
                pair = (gap, figure_id, vision, first_label, second_label)
                smallest = min(smallest or pair, pair)
                if gap < THRESHOLD:
                    failures.append(pair)
    print(f"smallest series colour difference (ΔE00): {smallest}")
    assert not failures, failures


@pytest.mark.parametrize("figure_id", list(EXPLORERS))
def test_series_differ_by_more_than_colour(figure_id):
    """Two labelled lines of one axes never share line style, marker and width."""
    figure = shared_explorers.at(figure_id).figure
    for axes in figure.axes:
        seen_styles = {}
        for line in axes.get_lines():
            if not line.get_visible() or line.get_label().startswith("_"):
                continue
            marker = line.get_marker()
            key = (
                line.get_linestyle(),
                None if marker in (None, "", "None", "none") else marker,
                round(line.get_linewidth(), 1),
            )
            assert key not in seen_styles, (seen_styles[key], line.get_label(), key)
            seen_styles[key] = line.get_label()
