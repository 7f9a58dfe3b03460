"""One explorer per figure, shared by the tests of a process that look at a figure at a
setting and need no new one.

Building an explorer lays its figure out (constrained layout, once), which costs more
than drawing it, and the suite looks at the 54 figures several hundred times. What a
figure draws, reads out and says at a setting does not depend on the settings before it
(``tests/test_explorers.py`` holds every figure to that), so such a test takes the
shared explorer, set to its defaults and the test's own values.
"""

import functools

from dplearn.figures.explorers import load_all

EXPLORERS = load_all()


@functools.cache
def _built(figure_id):
    return EXPLORERS[figure_id]()


def at(figure_id, **params):
    """The shared explorer of figure_id, at its defaults but for params."""
    return _built(figure_id).update(**{**EXPLORERS[figure_id].defaults, **params})
