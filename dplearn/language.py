"""The language the figures, widgets and exercises speak: English, 中文 or Русский.

The English words in the package are the source. Their translations live in gettext
catalogs beside the lessons, ``locale/<folder>/LC_MESSAGES/dplearn.po`` (``bash tasks.sh
translate`` extracts the words and merges them in; translators fill in the catalogs).
A lesson's first cell in a translated edition calls ``set_language("zh")``; everything
drawn or written after that asks ``gettext`` (imported as ``_``) for its words.

Strings that are built once, at import (an exercise's question, a figure's title, a
slider's label), stay English where they are defined and are translated where they are
shown; a string marked ``N_("…")`` is one of those. A translation that is missing, or
marked fuzzy because its English changed, falls back to the English.

What a language changes beyond words (a CJK font for the figures, the page's ``lang``
attribute) belongs to the figures: ``dplearn.figures.fonts`` listens (``on_change``).

Taught in: every lesson notebook of the 中文 and Русский editions (its first cell).
"""

from __future__ import annotations

import functools
import os
import pathlib
import warnings
from typing import NamedTuple

__all__ = [
    "LANGUAGES",
    "Language",
    "N_",
    "catalog_path",
    "current",
    "filled",
    "gettext",
    "ngettext",
    "on_change",
    "set_language",
]


class Language(NamedTuple):
    """One language of the course."""

    code: str  #: the name ``set_language`` takes, and the edition's folder in notebooks/
    folder: str  #: the catalog's folder in locale/ (gettext's locale name)
    tag: str  #: the page's ``lang`` attribute (BCP 47)
    name: str  #: the language's name in itself, for the bar of links between editions


LANGUAGES = {
    "en": Language("en", "en", "en", "English"),
    "zh": Language("zh", "zh_CN", "zh-Hans", "中文"),
    "ru": Language("ru", "ru", "ru", "Русский"),
}

#: Where the catalogs are: the repository's locale/ (DPLEARN_LOCALE overrides).
LOCALE_DIR = pathlib.Path(
    os.environ.get("DPLEARN_LOCALE", pathlib.Path(__file__).resolve().parents[1] / "locale")
)
DOMAIN = "dplearn"

_current = LANGUAGES["en"]


def current() -> Language:
    """The language set last (English until ``set_language`` is called)."""
    return _current


def catalog_path(language, domain=DOMAIN):
    """The catalog file of one language and domain (``dplearn`` or ``lessons``)."""
    return LOCALE_DIR / LANGUAGES[language].folder / "LC_MESSAGES" / f"{domain}.po"


def _plural_index(code, count):
    # gettext's Plural-Forms of each catalog, as Python.
    if code == "zh":
        return 0
    if code == "ru":
        if count % 10 == 1 and count % 100 != 11:
            return 0
        if 2 <= count % 10 <= 4 and not 12 <= count % 100 <= 14:
            return 1
        return 2
    return 0 if count == 1 else 1


@functools.cache
def _translations(code):
    """{(msgid, msgid_plural or None): msgstr or [msgstr per plural form]} of one catalog."""
    if code == "en":
        return {}
    path = catalog_path(code)
    if not path.exists():
        message = f"no catalog for {code!r} at {path}: the package speaks English"
        warnings.warn(message, stacklevel=4)
        return {}
    import polib  # only when a translated edition runs

    table = {}
    for entry in polib.pofile(str(path)):
        if entry.obsolete or entry.fuzzy or entry.msgctxt:
            continue
        if entry.msgid_plural:
            forms = [entry.msgstr_plural[index] for index in sorted(entry.msgstr_plural)]
            if all(forms):
                table[(entry.msgid, entry.msgid_plural)] = forms
        elif entry.msgstr:
            table[(entry.msgid, None)] = entry.msgstr
    return table


class Filled(str):
    """An English template filled in at import that translates as its template.

    A label such as "q = batch size / 60000", built once from a constant, is not in the
    catalog; ``filled(N_("q = batch size / {size}"), size=60000)`` is that same string for
    every English use, and ``gettext`` translates the template, then fills it in.
    """

    __slots__ = ("template", "values")

    def __new__(cls, template, values):
        text = super().__new__(cls, template.format(**values))
        text.template, text.values = template, values
        return text


def filled(template: str, **values) -> Filled:
    """template.format(**values), which ``gettext`` translates through its template."""
    return Filled(template, values)


def gettext(message: str) -> str:
    """message in the current language (the English when it has no translation yet)."""
    if _current.code == "en":
        return message
    if isinstance(message, Filled):
        return gettext(message.template).format(**message.values)
    return _translations(_current.code).get((message, None), message)


_ = gettext


def ngettext(singular: str, plural: str, count) -> str:
    """The form of a message that fits count, in the current language.

    Russian has three forms ("1 шаг", "2 шага", "5 шагов"), Chinese one, English two.
    """
    english = singular if count == 1 else plural
    if _current.code == "en":
        return english
    forms = _translations(_current.code).get((singular, plural))
    if forms is None:
        return english
    return forms[min(_plural_index(_current.code, int(count)), len(forms) - 1)]


def N_(message: str) -> str:
    """Marks a string for the catalog without translating it: it is translated where shown."""
    return message


#: Functions called with the new ``Language`` by ``set_language`` (the figures' fonts,
#: the page's lang attribute): the numbers layer knows nothing of pages or fonts.
_listeners = []


def on_change(listener):
    """Calls listener(language) after every ``set_language``; returns listener."""
    _listeners.append(listener)
    return listener


def set_language(language: str) -> None:
    """Makes the figures, widgets and exercises speak a language: "en", "zh" or "ru".

    Call it before the first figure. With ``dplearn.figures`` imported, it also picks a
    font that draws the language and sets the page's ``lang`` attribute, so that a screen
    reader reads the page in that language.

    Raises:
      ValueError: if language is not one of ``LANGUAGES``.
    """
    global _current
    if language not in LANGUAGES:
        raise ValueError(f"language must be one of {sorted(LANGUAGES)}, got {language!r}")
    _current = LANGUAGES[language]
    _translations(language)  # read the catalog now: a figure's first draw stays quick
    for listener in _listeners:
        listener(_current)
