"""Colours that mean the same thing in every lesson's figures, and that everyone can tell apart.

A reader who has learnt in lesson 02 that red marks the bad events (privacy loss above
epsilon) and purple the area delta sees the same colours for the same things in lessons
08 and 09. Colours that belong to one topic stay in its module.

The palette is chosen so that every line stands out from the white background by a
contrast ratio of at least 3 (WCAG 2.1, graphics), and every two of its colours stay
apart, by a CIEDE2000 difference of at least 10, for normal vision and for simulated
protanopia, deuteranopia and tritanopia (Machado, Oliveira & Fernandes 2009): matplotlib's
own orange against its green, for one, is 1.3 apart for a protanope. Text drawn in a
series' colour takes ``readable(colour)``, the same hue darkened to a contrast of 4.5.
tests/test_figure_colours.py checks every figure.

Taught in: 02-see-what-delta-means.ipynb, 08-add-up-privacy-losses.ipynb
"""

import numpy as np
from matplotlib.colors import to_hex, to_rgb

__all__ = [
    "AREA_COLOR",
    "BAD_COLOR",
    "BLUE",
    "ORANGE",
    "GREEN",
    "PURPLE",
    "GREY",
    "GUIDE_GREY",
    "readable",
]

#: The palette (matplotlib's blue and red; a darker orange, a bluish green, a dark purple,
#: and a grey, so that all pass the checks above).
BLUE = "#1f77b4"
ORANGE = "#e07000"
GREEN = "#009e73"
PURPLE = "#762a83"
GREY = "#737373"
#: Reference lines (zero, one, the diagonal): light, yet 3:1 against white.
GUIDE_GREY = "0.55"

#: The bad events: outputs whose privacy loss exceeds epsilon, and epsilon itself.
BAD_COLOR = "#d62728"
#: The area delta(epsilon) = E[max(0, 1 - e^(epsilon - L))].
AREA_COLOR = PURPLE


def _luminance(rgb):
    # WCAG 2.1 relative luminance.
    rgb = np.asarray(rgb, dtype=float)
    linear = np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
    return float(linear @ [0.2126, 0.7152, 0.0722])


def readable(colour, ratio=4.5):
    """colour, darkened as little as needed for text on white: contrast >= ratio."""
    rgb = np.asarray(to_rgb(colour))
    scale = 1.0
    while (1.05) / (_luminance(rgb * scale) + 0.05) < ratio:
        scale -= 0.01
    return to_hex(rgb * scale)
