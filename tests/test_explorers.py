"""Every registered figure object, swept over its sliders' whole ranges.

New figures are picked up by themselves: a class registered in a lesson module of
``dplearn/figures/`` is tested here without another line.
"""

import math

import numpy as np
import pytest
from matplotlib.figure import Figure

from dplearn.figures.explorers import LayeredFigure, load_all
from tests import shared_explorers

EXPLORERS = load_all()
pytestmark = pytest.mark.skipif(not EXPLORERS, reason="no figure module registered yet")


def settings(explorer_class, count=4, seed=7):
    """Each control alone at its minimum, maximum and random points, then all together."""
    rng = np.random.default_rng(seed)
    for name, control in explorer_class.controls.items():
        for value in control.sample(count, rng):
            yield {name: value}
    for _ in range(count):
        yield {
            name: control.sample(3, rng)[-1] for name, control in explorer_class.controls.items()
        }


def pixels(figure):
    figure.canvas.draw()
    return np.asarray(figure.canvas.buffer_rgba()).copy()


def pixels_a_full_draw_paints_otherwise(figure, layered):
    """A mask of the pixels where a full draw differs from the layered draw's pixels."""
    figure.use_layers = False
    try:
        full = pixels(figure)
    finally:
        figure.use_layers = True
    return (layered != full).any(axis=-1)


@pytest.fixture(params=list(EXPLORERS), ids=list(EXPLORERS))
def explorer(request):
    return EXPLORERS[request.param]()


@pytest.mark.parametrize("figure_id", list(EXPLORERS))
def test_identity(figure_id):
    explorer = shared_explorers.at(figure_id)
    assert explorer.figure_id and explorer.title
    assert set(explorer.controls) <= set(explorer.defaults)
    for name, control in explorer.controls.items():
        assert control.offers(explorer.defaults[name]), name


def test_updates_in_place_over_every_slider_range(explorer):
    """No exception, no warning (pytest turns them into errors), no artist added; and
    back at its defaults, the figure shows what it showed before any slider moved:
    what a setting draws and says does not depend on the settings before it (the
    layout tests reuse one figure for all their settings on that ground)."""
    start = pixels(explorer.figure)
    numbers, description = explorer.numbers(), explorer.description()
    count = len(explorer.figure.findobj())
    for params in settings(type(explorer)):
        explorer.update(**params)
        pixels(explorer.figure)
        assert len(explorer.figure.findobj()) == count, params
        for name, value in explorer.numbers().items():
            assert isinstance(value, str) or not math.isnan(value), (name, params)
    explorer.update(**explorer.defaults)
    different = (pixels(explorer.figure) != start).any(axis=-1)
    assert not different.any(), f"back at the defaults, {different.sum()} pixels differ"
    assert explorer.numbers() == numbers
    assert explorer.description() == description


def test_layered_draw_paints_what_a_full_draw_paints(explorer):
    figure = explorer.figure
    assert isinstance(figure, LayeredFigure) and figure.moving_artists
    for params in list(settings(type(explorer), count=3, seed=11))[::2]:
        explorer.update(**params)
        different = pixels_a_full_draw_paints_otherwise(figure, pixels(figure))
        assert not different.any(), f"{params}: {different.sum()} pixels differ"


@pytest.mark.parametrize("legend_inside", [False, True])
def test_a_change_of_limits_repaints_its_axes_on_the_kept_frame(legend_inside, monkeypatch):
    """Only the axes whose limits changed are painted again, over the frame kept from the
    first draw; the picture is the full draw's, including the other axes, the legends and
    the tick labels of the axis that did not move. A legend over the axes' area cannot
    stay in the frame: then the static layer takes a full draw, with the same picture."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    figure = LayeredFigure(figsize=(6.0, 3.0), dpi=80)
    FigureCanvasAgg(figure)
    left, right = figure.subplots(1, 2)
    figure.subplots_adjust(top=0.75, bottom=0.15, wspace=0.3)
    (line,) = left.plot([0, 1], [0, 1], label="moving", zorder=10)
    right.plot([0, 1], [1, 0], label="static")
    left.set_title("left")
    left.legend(loc="upper left" if legend_inside else "lower left", bbox_to_anchor=(0, 1.1))
    if legend_inside:
        left.get_legend().set_bbox_to_anchor(None)
    figure.legend(handles=right.get_lines(), loc="upper right")
    figure.mark_moving(line)
    pixels(figure)
    full_draws = []
    whole = Figure.draw
    monkeypatch.setattr(Figure, "draw", lambda *args: full_draws.append(1) or whole(*args))
    for top in (2.0, 30.0, 0.5):
        left.set_ylim(0.0, top)
        figure.invalidate_axes(left, "y")
        line.set_data([0, 1], [0, top / 2])
        frame = list(figure._frame_cache.values())
        full_draws.clear()
        layered = pixels(figure)
        if top != 2.0:
            assert list(figure._frame_cache.values()) == frame  # the frame was kept
            assert len(full_draws) == (1 if legend_inside else 0)
        different = pixels_a_full_draw_paints_otherwise(figure, layered)
        assert not different.any(), f"top {top}: {different.sum()} pixels differ"
    assert figure.following_axes == {left: {"y"}}


def test_moving_a_slider_changes_the_picture(explorer):
    before = pixels(explorer.figure)
    changed = False
    for name, control in explorer.controls.items():
        low, high = control.ends
        target = high if explorer.params[name] != high else low
        explorer.update(**{name: target})
        changed |= bool((pixels(explorer.figure) != before).any())
    assert changed or not explorer.controls


@pytest.mark.parametrize("figure_id", list(EXPLORERS))
def test_bad_slider_values_are_named_and_change_nothing(figure_id):
    explorer = shared_explorers.at(figure_id)
    before = dict(explorer.params)
    numbers = explorer.numbers()
    for name, control in explorer.controls.items():
        for value in control.bad_values():
            with pytest.raises(ValueError, match=name):
                explorer.update(**{name: value})
            assert explorer.params == before, (name, value)
            assert explorer.numbers().keys() == numbers.keys()


@pytest.mark.parametrize("figure_id", list(EXPLORERS))
def test_unknown_parameter_is_rejected(figure_id):
    explorer = shared_explorers.at(figure_id)
    with pytest.raises(ValueError, match="no parameter 'bogus'"):
        explorer.update(bogus=1.0)


def test_figures_come_in_course_order():
    sections = list(dict.fromkeys(figure_id.partition("-")[0] for figure_id in EXPLORERS))
    assert sections == [
        "INTRO",
        "PLRV",
        "MECH",
        "NOISE",
        "COMP",
        "SUB",
        "SGD",
        "SEL",
        "MANY",
        "MIA",
        "LOCAL",
        "REL",
        "FREQ",
    ]
    for section in sections:
        numbers = [
            int(figure_id.partition("-")[2])
            for figure_id in EXPLORERS
            if figure_id.startswith(f"{section}-") and figure_id.partition("-")[2].isdigit()
        ]
        assert numbers == list(range(1, len(numbers) + 1)), section


def test_importing_the_package_registers_every_figure():
    import subprocess
    import sys

    code = (
        "import dplearn.figures\n"
        "from dplearn.figures.explorers import REGISTRY\n"
        "print(' '.join(sorted(REGISTRY)))\n"
    )
    env = {"MPLBACKEND": "Agg", "PATH": "/usr/bin:/bin"}
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == sorted(EXPLORERS)
