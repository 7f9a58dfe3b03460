"""What a language changes beyond words: the figures' font and the page's ``lang``.

matplotlib's default font, DejaVu Sans, draws English and Russian but no Chinese. For
Chinese the first CJK font matplotlib finds (Noto Sans CJK and WenQuanYi on Linux,
PingFang or Microsoft YaHei on macOS and Windows) goes first in matplotlib's font list,
DejaVu Sans after it. First, because a label that mixes words and a formula
("输出 $O$") is laid out by mathtext, which draws the words in the first font of the list
and falls back to no other; a plain label falls back glyph by glyph to DejaVu Sans (ℒ, for
one). The CJK fonts draw Latin letters, digits and Greek too. Without a CJK font, the
package says so once, as a warning, instead of drawing empty boxes. The page's ``lang``
attribute tells a screen reader which voice to read the page in.

``dplearn.set_language`` calls ``use_language`` (this module listens for it from its
import on) and so does the import, for a language set before the figures were imported.

Taught in: every lesson notebook of the 中文 and Русский editions (its first cell).
"""

from __future__ import annotations

import functools
import warnings

import matplotlib
from matplotlib import font_manager

from dplearn import language

__all__ = ["CJK_FONTS", "cjk_font", "font_family", "page_language_script", "use_language"]

#: CJK fonts in the order tried: Linux packages first, then macOS's and Windows' own.
CJK_FONTS = (
    "Noto Sans CJK JP",  # Debian's fonts-noto-cjk: matplotlib sees the .ttc's first face
    "Noto Sans CJK SC",
    "Noto Sans SC",
    "WenQuanYi Micro Hei",
    "WenQuanYi Zen Hei",
    "Source Han Sans SC",
    "Source Han Sans CN",
    "PingFang SC",
    "Hiragino Sans GB",
    "Microsoft YaHei",
    "SimHei",
)

NO_CJK_FONT = (
    "no CJK font found: the figures' Chinese words would show as empty boxes. Install one "
    "(Debian or Ubuntu: apt-get install fonts-wqy-microhei; conda: conda install -c "
    "conda-forge font-ttf-noto-cjk), then restart the kernel."
)


@functools.cache
def cjk_font():
    """The name of the first of ``CJK_FONTS`` that matplotlib finds, or None."""
    available = {font.name for font in font_manager.fontManager.ttflist}
    return next((name for name in CJK_FONTS if name in available), None)


def font_family(code):
    """matplotlib's font list for a language code: for "zh" a CJK font, then DejaVu Sans."""
    if code == "zh" and cjk_font() is not None:
        return [cjk_font(), "DejaVu Sans"]
    return ["DejaVu Sans"]


_warned = False


def page_language_script(tag):
    """An ``IPython.display.Javascript`` that sets the page's ``lang`` attribute to tag."""
    import json

    from IPython.display import Javascript

    return Javascript(f"document.documentElement.lang = {json.dumps(tag)};")


def use_language(chosen):
    """Sets matplotlib's fonts for a ``language.Language``, and in a kernel the page's lang."""
    global _warned
    if chosen.code == "zh" and cjk_font() is None and not _warned:
        warnings.warn(NO_CJK_FONT, stacklevel=3)
        _warned = True
    matplotlib.rcParams["font.family"] = font_family(chosen.code)
    from IPython import get_ipython

    shell = get_ipython()
    if shell is not None and hasattr(shell, "kernel"):
        from IPython.display import display

        from dplearn.figures import page_access

        display(page_language_script(chosen.tag))
        # The page script also underlines the prose's links: a page without figures (the
        # contents) gets it here, since no figure shows it.
        page_access.show_script_once()


language.on_change(use_language)
if language.current().code != "en":
    use_language(language.current())
