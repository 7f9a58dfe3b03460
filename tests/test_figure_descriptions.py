"""Every figure says what it shows in words, and the words follow its sliders.

A reader who cannot see a figure (a screen reader, a Braille display) gets its
``description()``: the widgets name the figure's box with it and read it out when a
control moves, and a static copy of the page carries it as the image's alt text. New
figures are picked up by themselves from the registry.
"""

import re
from pathlib import Path

import numpy as np
import pytest

from dplearn.figures.explorers import Explorer, load_all, pick, spoken
from tests import shared_explorers

EXPLORERS = load_all()
CATALOGUE = Path(__file__).resolve().parents[1] / "docs" / "figures.md"
#: Longest description (characters): two sentences, not a page to listen to.
LONGEST = 600


@pytest.fixture(params=list(EXPLORERS), ids=list(EXPLORERS))
def explorer(request):
    return shared_explorers.at(request.param)


def test_every_catalogued_figure_is_registered():
    # The catalogue names its figures in backquotes or as headings; the registry must
    # hold each one, or a figure of the lessons would have no description.
    catalogue = CATALOGUE.read_text(encoding="utf-8")
    for figure_id in EXPLORERS:
        assert re.search(rf"\b{re.escape(figure_id)}\b", catalogue), figure_id


def test_every_figure_has_a_description_of_its_own(explorer):
    assert type(explorer).description is not Explorer.description, explorer.figure_id
    text = explorer.description()
    assert isinstance(text, str) and 40 <= len(text) <= LONGEST, (len(text), text)
    # Written to be read aloud: no formula markup, no undefined numbers.
    assert not re.search(r"[$\\{}]|\bnan\b|undefined", text), text
    assert text.endswith("."), text


def _settings_to_try(explorer_class, rng):
    """Each control alone at both ends and at one random point."""
    for name, control in explorer_class.controls.items():
        for value in [*control.ends, *control.sample(3, rng)[2:]]:
            yield name, value


def _same(first, second):
    if first.keys() != second.keys():
        return False
    for name in first:
        a, b = first[name], second[name]
        if isinstance(a, str) or isinstance(b, str):
            if a != b:
                return False
        elif not (a == b or (np.isnan(a) and np.isnan(b))):
            return False
    return True


def test_description_follows_every_control_that_changes_the_numbers(explorer):
    rng = np.random.default_rng(24)
    start_params = dict(explorer.params)
    start_numbers, start_text = explorer.numbers(), explorer.description()
    moved = 0
    for name, value in _settings_to_try(type(explorer), rng):
        if value == start_params[name]:
            continue
        explorer.update(**{name: value})
        text = explorer.description()
        assert not re.search(r"[$\\{}]|\bnan\b", text), (name, value, text)
        if not _same(explorer.numbers(), start_numbers):
            moved += 1
            assert text != start_text, f"{name} = {value!r} changes the numbers, not the text"
        explorer.update(**start_params)
    # The test would pass vacuously for a figure whose numbers never move.
    assert moved or not explorer.controls, explorer.figure_id


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (0.0, "0"),
        (3, "3"),
        (1.0986122886681098, "1.1"),
        (0.05324450154085015, "0.0532"),
        (1e-05, "1 × 10^-5"),
        (1.1079678776230188e-05, "1.11 × 10^-5"),
        (464627.7715574283, "4.65 × 10^5"),
        (float("inf"), "infinity"),
        ("99 of 100", "99 of 100"),
        ("∞ (unbounded)", "infinity (unbounded)"),
    ],
)
def test_numbers_are_spoken_as_plain_text(value, text):
    assert spoken(value) == text


def test_pick_reads_one_readout_entry_by_a_piece_of_its_name():
    numbers = {"$\\delta_1$": 0.1, "$\\delta_2$ (area)": 0.2, "prior": 0.5}
    assert pick(numbers, "prior") == 0.5
    assert pick(numbers, "(area)") == 0.2
    with pytest.raises(KeyError, match="2 readout names"):
        pick(numbers, "delta")
    with pytest.raises(KeyError, match="0 readout names"):
        pick(numbers, "posterior")
