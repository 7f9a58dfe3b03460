"""Lessons 00, 10 and 11 in Chromium at 1280 × 720: a figure's readout keeps its place.

Every slider of every figure is sent to its ends with the keyboard (End, Home); after
each press the readout (the numbers beside or above the figure) must be where it was when
the page opened: a readout that grows with a long number (4.5398 × 10⁻⁵ in place of
0.6404) can wrap from beside the figure to below it in the middle of a drag. Each press
also has to change the number it moves: a slider that acts on release acts on a key.
Uses the session's Voilà server and Chromium (tests/conftest.py); marked e2e, like the
other browser tests.
"""

import time

import pytest

from tests.test_browser import NOTEBOOKS, wait_for_figures

LESSONS = [path for path in NOTEBOOKS if path.name[:2] in ("00", "10", "11")]
#: Pixels a readout may move by (rounding of the layout).
SLACK = 2

pytestmark = pytest.mark.e2e

PLACES = """
() => Array.from(document.querySelectorAll('.dplearn-exploration'), box => {
  const readout = box.querySelector('.dplearn-readout').getBoundingClientRect();
  return {left: Math.round(readout.left + window.scrollX),
          top: Math.round(readout.top - box.getBoundingClientRect().top),
          text: box.querySelector('.dplearn-readout').innerText,
          sliders: box.querySelectorAll('.noUi-handle').length};
})
"""


def _settled(page, index, before, seconds=20.0):
    """The places once figure index's readout text changed from before and its layout
    held still for two looks in a row (or time ran out)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        time.sleep(0.05)
        places = page.evaluate(PLACES)
        if places[index]["text"] != before:
            # The layout follows the text: wait until it stops moving.
            while time.monotonic() < deadline:
                time.sleep(0.1)
                again = page.evaluate(PLACES)
                if again == places:
                    return again
                places = again
    return page.evaluate(PLACES)


@pytest.mark.parametrize("notebook", LESSONS, ids=lambda path: path.name)
def test_readouts_keep_their_place_at_every_sliders_ends(notebook, browser, voila_site):
    page = browser.new_page()
    try:
        page.goto(voila_site.base + notebook.name, timeout=90_000)
        wait_for_figures(page, timeout_s=300)
        start = page.evaluate(PLACES)
        moved, silent = [], []
        for index, place in enumerate(start):
            box = page.locator(".dplearn-exploration").nth(index)
            for slider in range(place["sliders"]):
                for key in ("End", "Home"):
                    before = page.evaluate(PLACES)[index]["text"]
                    handle = box.locator(".noUi-handle").nth(slider)
                    handle.scroll_into_view_if_needed()
                    handle.focus()
                    value = handle.get_attribute("aria-valuenow")
                    page.keyboard.press(key)
                    if handle.get_attribute("aria-valuenow") == value:
                        # Already at that end: the key moves nothing, so no number waits
                        # to change (a dead slider is silent at both ends, see below).
                        silent.append((index, slider, key))
                        continue
                    now = _settled(page, index, before)[index]
                    if now["text"] == before:
                        silent.append((index, slider, key))
                    if (
                        abs(now["left"] - place["left"]) > SLACK
                        or abs(now["top"] - place["top"]) > SLACK
                    ):
                        moved.append((index, slider, key, place, now))
        assert not moved, f"{notebook.name}: readouts moved: {moved}"
        # A slider already at an end does not move on that key: only both keys silent
        # would be a dead slider.
        dead = {(i, s) for i, s, _ in silent if (i, s, "End") in silent and (i, s, "Home")}
        dead = {(i, s) for i, s in dead if (i, s, "Home") in silent}
        assert not dead, f"{notebook.name}: sliders whose keys change no number: {dead}"
    finally:
        page.close()
