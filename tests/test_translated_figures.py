"""Every figure speaks Chinese and Russian: its words translated, every glyph drawn.

With ``set_language("zh")`` a figure's title, axis labels, legend, description and readout
names come from the catalog, and its Chinese words are drawn in a CJK font (pytest turns
matplotlib's "Glyph … missing from font(s)" warning into an error, and the test fails on
mathtext's logged "does not have a glyph"). Russian is checked the
same way for Cyrillic words.
"""

import re

import matplotlib
import pytest

from dplearn import language
from dplearn.figures import fonts
from dplearn.figures.explorers import load_all
from dplearn.language import gettext as _

EXPLORERS = load_all()
SCRIPT = {"zh": re.compile(r"[\u4e00-\u9fff]"), "ru": re.compile(r"[А-Яа-яЁё]")}
#: Words outside formulas: what must be in the reader's script when present.
_MATH = re.compile(r"\$[^$]*\$")
_WORD = re.compile(r"[A-Za-z]{3,}")


@pytest.fixture(params=["zh", "ru"])
def speaking(request):
    with matplotlib.rc_context():
        language.set_language(request.param)
        try:
            yield request.param
        finally:
            language.set_language("en")


def texts_of(figure):
    """Every piece of text drawn in a figure: axes titles, labels and legends."""
    for axes in figure.axes:
        for location in ("left", "center", "right"):
            yield axes.get_title(location)
        yield axes.get_xlabel()
        yield axes.get_ylabel()
        legend = axes.get_legend()
        if legend is not None:
            yield from (text.get_text() for text in legend.get_texts())
    for legend in figure.legends:
        yield from (text.get_text() for text in legend.get_texts())


def has_words(text):
    """True if text has a word outside formulas (abbreviations such as PLD and ids aside).

    A label that is code a learner types (``histplot(stat="density")``) is no word either.
    """
    if re.match(r"[a-z_]+\(", text):
        return False
    return any(not word.isupper() for word in _WORD.findall(_MATH.sub(" ", text)))


@pytest.mark.skipif(fonts.cjk_font() is None, reason="no CJK font (bash tasks.sh installs one)")
@pytest.mark.parametrize("figure_id", sorted(EXPLORERS))
def test_figure_is_drawn_in_the_readers_language(figure_id, speaking, caplog):
    script = SCRIPT[speaking]
    explorer = EXPLORERS[figure_id]()
    explorer.figure.canvas.draw()  # a missing glyph warns, and the warning fails the test
    # mathtext (a label with a formula) logs its missing glyphs instead of warning.
    missing = [record.getMessage() for record in caplog.records if "glyph" in record.getMessage()]
    assert not missing, missing
    worded = [text for text in texts_of(explorer.figure) if text and has_words(text)]
    untranslated = [text for text in worded if not script.search(text)]
    assert not untranslated, f"{figure_id} ({speaking}): {untranslated}"
    assert script.search(_(explorer.title)), explorer.title
    assert script.search(explorer.description()), explorer.description()
    names = [name for name in explorer.numbers() if has_words(name)]
    assert all(script.search(_(name)) for name in names), names


def test_chinese_gets_a_cjk_font_before_dejavu_sans():
    with matplotlib.rc_context():
        language.set_language("zh")
        try:
            family = matplotlib.rcParams["font.family"]
        finally:
            language.set_language("en")
    assert family[-1] == "DejaVu Sans"
    if fonts.cjk_font() is not None:
        assert family == [fonts.cjk_font(), "DejaVu Sans"]


def test_without_a_cjk_font_the_package_says_so(monkeypatch):
    monkeypatch.setattr(fonts, "cjk_font", lambda: None)
    monkeypatch.setattr(fonts, "_warned", False)
    with matplotlib.rc_context(), pytest.warns(UserWarning, match="no CJK font found"):
        try:
            language.set_language("zh")
        finally:
            language.set_language("en")
