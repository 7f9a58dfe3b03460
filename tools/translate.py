"""Keeps the course's 中文 and Русский editions in step with the English source.

`bash tasks.sh translate` runs it. The English notebooks and the package stay the source;
the translations live in gettext catalogs, two per language:

- ``locale/<folder>/LC_MESSAGES/lessons.po``: the lessons' prose. Each markdown cell is cut
  into blocks with markdown-it-py (a paragraph, a heading, a list item, a table, a display
  formula); every block with words in it is one entry, keyed by its English text, so a
  moved cell keeps its translation and a block used twice is translated once.
- ``locale/<folder>/LC_MESSAGES/dplearn.po``: the package's words, extracted by Babel from
  ``_()``, ``N_()`` and ``ngettext()`` calls, the exercises' texts (titles, options,
  hints, solutions; the questions are the notebooks' prose), read from the exercise banks
  themselves, and the ``_()`` calls of the lessons' code cells (a lesson's own figure).

A run (1) extracts both templates, ``locale/lessons.pot`` and ``locale/dplearn.pot``;
(2) merges them into each language's catalogs with Babel: an entry whose English changed
becomes fuzzy (with the old English beside it), a new one is empty, a gone one is dropped;
(3) writes ``notebooks/<code>/*.ipynb`` from the English notebooks and the catalogs: prose
translated block by block (the English kept where a translation is missing or fuzzy),
code cells unchanged, one first cell that selects the language, relative links rewritten
for the folder, and the navigation bar and contents rebuilt from the translated titles;
(4) fills the lessons table of ``README.zh-CN.md`` and ``README.ru.md``. A translator then
fills in the empty and fuzzy entries (removing the fuzzy flag) and runs it again.

    python tools/translate.py           # extract, merge, write the editions
    python tools/translate.py --check   # change nothing; exit 1, naming what is stale
"""

from __future__ import annotations

import argparse
import copy
import datetime
import importlib.util
import io
import json
import pathlib
import re
import sys

import nbformat
from babel.messages.catalog import Catalog
from babel.messages.extract import extract, extract_from_dir
from babel.messages.pofile import normalize, read_po, write_po
from markdown_it import MarkdownIt

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from dplearn.language import LANGUAGES  # noqa: E402  (the repository's own package)

_spec = importlib.util.spec_from_file_location(
    "lesson_navigation", ROOT / "tools" / "lesson_navigation.py"
)
navigation = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(navigation)

NOTEBOOK_DIR = ROOT / "notebooks"
LOCALE_DIR = ROOT / "locale"
PACKAGE_DIR = ROOT / "dplearn"
EDITIONS = tuple(code for code in LANGUAGES if code != "en")
PROJECT = "dplearn"
#: Fixed dates in the catalogs' headers, so that a run on unchanged sources writes the
#: same bytes (gettext's tools would stamp the time of every run).
CATALOG_DATE = datetime.datetime(2026, 12, 6, tzinfo=datetime.UTC)
#: The words of the navigation bar, translated through the lessons' catalog.
NAVIGATION_WORDS = ("Contents",)
#: The keywords Babel looks for in the package (ngettext: singular, plural).
KEYWORDS = {"_": None, "N_": None, "gettext": None, "ngettext": (1, 2)}
#: The first cell of a translated edition.
LANGUAGE_CELL = (
    "import dplearn\n"
    "import dplearn.figures  # the figures' font and the page's language follow the language\n"
    "\n"
    'dplearn.set_language("{code}")'
)
LANGUAGE_CELL_ID = "set-language"
#: The README of each edition: README.zh-CN.md, README.ru.md.
README_SUFFIX = {"zh": "zh-CN", "ru": "ru"}

_MARKDOWN = MarkdownIt("commonmark").enable("table")


# ------------------------------------------------------------------------ the prose


def blocks(markdown):
    """The markdown cut into [(text, translatable)] pieces that join back to it.

    Translatable pieces are top-level blocks (each item of a top-level list on its own)
    with words in them; the lines between them, code blocks and blocks of formulas or
    links alone are kept as they are.
    """
    lines = markdown.split("\n")
    spans = []
    tokens = _MARKDOWN.parse(markdown)
    for index, token in enumerate(tokens):
        if token.level != 0 or token.nesting == -1 or token.map is None:
            continue
        if token.type in ("bullet_list_open", "ordered_list_open"):
            spans.extend(
                (item.map[0], item.map[1], True)
                for item in tokens[index + 1 :]
                if item.type == "list_item_open"
                and item.level == 1
                and item.map
                and item.map[0] < token.map[1]
            )
            continue
        code = token.type in ("fence", "code_block", "hr")
        spans.append((token.map[0], token.map[1], not code))
    pieces, line = [], 0
    for start, end, text_block in display_formulas_whole(sorted(spans), lines):
        if start < line:  # a list item's lines already taken (lazy continuation)
            continue
        if start > line:
            pieces.append(("\n".join(lines[line:start]) + "\n", False))
        # A block's last lines may be blank inside a list: keep them outside the entry.
        while end > start + 1 and not lines[end - 1].strip():
            end -= 1
        text = "\n".join(lines[start:end])
        pieces.append((text, text_block and has_words(text)))
        pieces.append(("\n", False))
        line = end
    if pieces and line >= len(lines):
        pieces.pop()  # no newline after the last line
    elif line < len(lines):
        pieces.append(("\n".join(lines[line:]), False))
    assert "".join(text for text, _ in pieces) == markdown, "blocks must join to the cell"
    return pieces


def display_formulas_whole(spans, lines):
    """spans with those that cut a $$…$$ formula in two joined into one.

    markdown-it knows no formulas: a formula's line that starts with "- " or "1." reads
    to it as a list item, and the formula would reach the catalog in pieces.
    """
    joined = []
    for start, end, text_block in spans:
        if joined and "\n".join(lines[joined[-1][0] : joined[-1][1]]).count("$$") % 2:
            first, _end, first_text = joined.pop()
            joined.append((first, max(end, _end), first_text or text_block))
        else:
            joined.append((start, end, text_block))
    return joined


_NOT_WORDS = re.compile(r"\$\$.*?\$\$|\$[^$]*\$|`[^`]*`|\]\([^)]*\)|<[^>]*>|https?://\S+", re.S)


def has_words(text):
    """True if text holds a word outside formulas, code, link targets and HTML tags."""
    return bool(re.search(r"[^\W\d_]{2,}", _NOT_WORDS.sub(" ", text)))


def header_lines(cell):
    """Number of lines above a title cell's level-1 heading (the bar and the languages)."""
    lines = cell.source.split("\n")
    return next(i for i, line in enumerate(lines) if line.startswith("# "))


def notebooks(folder=NOTEBOOK_DIR):
    """The English notebooks: the lessons in order, then the contents page."""
    return [*navigation.lessons(folder), folder / navigation.INDEX_NAME]


def prose_cells(nb, name):
    """[(cell, markdown to translate)] of a notebook: its navigation left out."""
    found = []
    title = navigation.title_index(nb, name) if name != navigation.INDEX_NAME else None
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "markdown" or navigation.is_navigation(cell):
            continue
        source = cell.source
        if index == title or (name == navigation.INDEX_NAME and index == 0):
            source = "\n".join(source.split("\n")[header_lines(cell) :])
        found.append((cell, source))
    return found


def lessons_template(paths):
    """The lessons' template: every translatable block, located by notebook."""
    template = new_catalog(None)
    for word in NAVIGATION_WORDS:
        template.add(word, locations=[("tools/lesson_navigation.py", None)])
    for path in paths:
        nb = nbformat.read(path, as_version=4)
        for _cell, source in prose_cells(nb, path.name):
            for text, translatable in blocks(source):
                if translatable:
                    add(template, text, (f"notebooks/{path.name}", None))
    return template


# ---------------------------------------------------------------------- the package


def exercise_texts():
    """[(text, bank file)] of every exercise's learner-visible words, read from the banks."""
    from dplearn.exercises import registry

    found = []
    for exercise in registry.load_all().values():
        where = f"dplearn/exercises/lesson{exercise.lesson:02d}.py"
        # The question is shown by the notebook's markdown only (the lessons' catalog).
        texts = [
            exercise.title,
            exercise.solution,
            exercise.advice,
            exercise.from_code,
            getattr(exercise, "praise", ""),
            *(exercise.options or {}).values(),
            *(item.message for item in exercise.mistakes),
            getattr(getattr(exercise, "tolerance", None), "unit", ""),
        ]
        found.extend((text, where) for text in texts if text and has_words(text))
    return found


def package_template():
    """The package's template: Babel's extraction, then the exercises' texts."""
    template = new_catalog(None)
    method_map = [("**/__pycache__/**", "ignore"), ("**.py", "python")]
    for filename, _line, message, comments, context in extract_from_dir(
        str(PACKAGE_DIR), method_map=method_map, keywords=KEYWORDS, comment_tags=("Translators:",)
    ):
        location = (f"dplearn/{pathlib.Path(filename).as_posix()}", None)
        if isinstance(message, tuple):
            if not message[0]:
                continue
            add(template, message, location, comments, context)
        elif message:
            add(template, message, location, comments, context)
    for text, where in exercise_texts():
        add(template, text, (where, None))
    for path in notebooks():
        for cell in nbformat.read(path, as_version=4).cells:
            if cell.cell_type != "code":
                continue
            # IPython's magics are no Python: blank them for the extractor.
            source = re.sub(r"(?m)^\s*[%!].*$", "", cell.source).encode()
            for _line, message, comments, context in extract(
                "python", io.BytesIO(source), keywords=KEYWORDS
            ):
                if message:
                    add(template, message, (f"notebooks/{path.name}", None), comments, context)
    return template


# ------------------------------------------------------------------------ catalogs


def new_catalog(locale):
    return Catalog(
        locale=locale,
        project=PROJECT,
        version="0.1.0",
        creation_date=CATALOG_DATE,
        revision_date=CATALOG_DATE,
        copyright_holder="the dplearn authors",
        msgid_bugs_address="the repository's issues",
        last_translator="the dplearn translators",
        language_team="the dplearn translators",
        header_comment="# The dplearn course in another language (tools/translate.py writes it).",
        fuzzy=False,
    )


def add(catalog, message, location, comments=(), context=None):
    """Adds message with one more location (a message used twice is one entry)."""
    key = message[0] if isinstance(message, tuple) else message
    entry = catalog.get(key, context)
    if entry is None:
        catalog.add(message, locations=[location], auto_comments=comments, context=context)
    elif location not in entry.locations:
        entry.locations.append(location)


def catalog_text(catalog, template=False):
    """A catalog as the bytes of its .po (or .pot) file."""
    for message in catalog:
        # Babel guesses a format from the text ("5 % in" looks like %-formatting, and every
        # LaTeX brace like a {placeholder}), and msgfmt would hold translations to it; the
        # tests check the placeholders themselves.
        message.flags.discard("python-format")
        message.flags.discard("python-brace-format")
    buffer = io.BytesIO()
    write_po(
        buffer,
        catalog,
        width=76,
        ignore_obsolete=True,
        include_previous=False,
        include_lineno=False,
        omit_header=False,
    )
    return with_previous_english(buffer.getvalue(), catalog)


def with_previous_english(text, catalog):
    """The .po text with each fuzzy entry's old English as ``#| msgid`` lines.

    Babel's own ``include_previous`` wraps the quoted old English again as a comment, which
    breaks its quoting (gettext and polib then reject the file) whenever it spans lines;
    here it is written as a msgid is, each line behind ``#| ``.
    """
    blocks = text.decode("utf-8").split("\n\n")
    messages = [message for message in catalog if message.id]
    # The header first, one block per entry, and the empty rest after the last newline.
    if len(blocks) - 2 != len(messages) or not all(blocks[1:-1]) or blocks[-1]:
        raise ValueError("a catalog's entries and the blocks of its text do not match")
    for index, message in enumerate(messages, start=1):
        if not (message.fuzzy and message.previous_id):
            continue
        lines = blocks[index].split("\n")
        at = next(i for i, line in enumerate(lines) if line.startswith(("msgctxt ", "msgid ")))
        previous = []
        for keyword, old in zip(("msgid", "msgid_plural"), message.previous_id, strict=False):
            quoted = normalize(old, width=76).split("\n")
            previous += [f"#| {keyword} {quoted[0]}"] + [f"#| {line}" for line in quoted[1:]]
        blocks[index] = "\n".join(lines[:at] + previous + lines[at:])
    return "\n\n".join(blocks).encode("utf-8")


def merged(template, path, code):
    """The catalog at path brought up to date with template (fuzzy where English changed)."""
    folder = LANGUAGES[code].folder
    if path.exists():
        with path.open("rb") as file:
            catalog = read_po(file, locale=folder)
    else:
        catalog = new_catalog(folder)
    catalog.update(
        template, no_fuzzy_matching=False, update_header_comment=False, update_creation_date=False
    )
    catalog.revision_date = CATALOG_DATE
    catalog.creation_date = CATALOG_DATE
    catalog.fuzzy = False
    for message in catalog:
        if message.id and not message.fuzzy and message.previous_id:
            message.previous_id = []
    return catalog


def read_catalog(code, domain):
    path = catalog_path(code, domain)
    if not path.exists():
        return new_catalog(LANGUAGES[code].folder)
    with path.open("rb") as file:
        return read_po(file, locale=LANGUAGES[code].folder)


def catalog_path(code, domain):
    return LOCALE_DIR / LANGUAGES[code].folder / "LC_MESSAGES" / f"{domain}.po"


def translator(catalog):
    """A function English block -> its translation (the English if none, or fuzzy)."""
    table = {
        message.id: message.string
        for message in catalog
        if message.id and isinstance(message.id, str) and message.string and not message.fuzzy
    }
    return lambda text: table.get(text, text)


# ------------------------------------------------------------------------ editions

_LINK = re.compile(r"(\]\()([^)\s]+)(\))|((?:src|href)=\")([^\"]+)(\")")


def rewrite_links(markdown, edition_names):
    """Relative links of an English notebook's prose, made to work from notebooks/<code>/.

    A link to a notebook that has an edition stays (the edition's copy is beside it); any
    other relative link gains "../"; web addresses and anchors stay.
    """

    def fix(target):
        if re.match(r"[a-z][a-z0-9+.-]*:|#|/", target):
            return target
        file = target.split("#", 1)[0]
        if file in edition_names:
            return target
        return f"../{target}"

    def replace(match):
        if match.group(1):
            return match.group(1) + fix(match.group(2)) + match.group(3)
        return match.group(4) + fix(match.group(5)) + match.group(6)

    return _LINK.sub(replace, markdown)


def translate_markdown(source, translate):
    return "".join(
        translate(text) if translatable else text for text, translatable in blocks(source)
    )


def edition(nb, name, code, translate, edition_names):
    """The translated notebook (its navigation still the English one)."""
    nb = copy.deepcopy(nb)
    title = navigation.title_index(nb, name) if name != navigation.INDEX_NAME else 0
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "markdown" or navigation.is_navigation(cell):
            continue
        if index == title:
            lines = cell.source.split("\n")
            cut = header_lines(cell)
            body = translate_markdown("\n".join(lines[cut:]), translate)
            cell.source = "\n".join([*lines[:cut], rewrite_links(body, edition_names)])
        else:
            cell.source = rewrite_links(translate_markdown(cell.source, translate), edition_names)
    first = nbformat.v4.new_code_cell(LANGUAGE_CELL.format(code=code), id=LANGUAGE_CELL_ID)
    first.metadata = {"tags": ["language"]}
    nb.cells.insert(0, first)
    return nb


#: A link to a lesson in the contents: "[text](NN-name.ipynb)" (its arrow kept outside).
_LESSON_LINK = re.compile(r"\[((?:[^\]\\]|\\.)+?)( →)?(\]\()(\d\d-[^)\s]+\.ipynb)\)")


def with_edition_navigation(editions, code, translate):
    """Rebuilds each edition's bar and languages line from its translated titles."""
    lessons = [name for name in editions if name != navigation.INDEX_NAME]
    titles = {name: navigation.title(editions[name], name) for name in lessons}
    contents = f"[{translate('Contents')}]({navigation.INDEX_NAME})"
    for position, name in enumerate(lessons):
        previous = (lessons[position - 1], titles[lessons[position - 1]]) if position else None
        following = (
            (lessons[position + 1], titles[lessons[position + 1]])
            if position + 1 < len(lessons)
            else None
        )
        bar = navigation.navigation_line(previous, following).replace(navigation.CONTENTS, contents)
        header = f"{bar}\n\n{navigation.languages_line(name, code)}"
        nb = editions[name]
        nb.cells = navigation.with_navigation(nb, name, header, f"---\n\n{bar}")
    index = editions.get(navigation.INDEX_NAME)
    if index is not None:
        cell = index.cells[1]  # the first markdown cell, under the language cell
        lines = cell.source.split("\n")
        cut = header_lines(cell)
        cell.source = "\n".join(
            [navigation.languages_line(navigation.INDEX_NAME, code), "", *lines[cut:]]
        )
        # The contents name each lesson by its translated heading, as its bar does.
        for cell in index.cells:
            if cell.cell_type == "markdown":
                cell.source = _LESSON_LINK.sub(
                    lambda match: (
                        "["
                        + navigation.link_text(titles.get(match.group(4), match.group(1)))
                        + (match.group(2) or "")
                        + match.group(3)
                        + match.group(4)
                        + ")"
                    ),
                    cell.source,
                )


#: The course's repository on GitHub, as the README's Binder links name it.
BINDER = "https://mybinder.org/v2/gh/dplearn/dplearn/HEAD"
README_TABLE = re.compile(
    r"(<!-- lessons: tools/translate.py writes this table -->\n)(?:.*?\n)?"
    r"(<!-- end of lessons -->)",
    re.S,
)


def readme_rows(index, code):
    """The rows of a translated README's lessons table, from the edition's contents page."""
    rows = []
    lines = [
        line
        for cell in index.cells
        if cell.cell_type == "markdown"
        for line in cell.source.split("\n")
    ]
    for line in lines:
        match = re.match(r"- \*\*\[(.+?)\]\((\d\d)-([^)]+)\)\*\*(?:[:：]\s*(.*))?$", line)
        if not match:
            continue
        heading, number, rest, summary = match.groups()
        name = f"{number}-{rest}"
        title = heading.split(" · ", 1)[-1]
        quoted = f"notebooks%2F{code}%2F{name}"
        lab, app = f"{BINDER}?labpath={quoted}", f"{BINDER}?urlpath=voila%2Frender%2F{quoted}"
        launch = f"[Lab]({lab}) · [Voilà]({app})"
        rows.append(
            f"| {number} | [{title}](notebooks/{code}/{name}) | {summary or ''} | {launch} |"
        )
    return "\n".join(rows)


def with_readme_table(text, rows):
    """A README's text with the table between its markers replaced by rows."""
    return README_TABLE.sub(lambda match: match.group(1) + rows + "\n" + match.group(2), text)


def notebook_text(nb):
    return (json.dumps(nb, sort_keys=True, indent=1, ensure_ascii=False) + "\n").encode()


# ------------------------------------------------------------------------ the run


def outputs():
    """{path: bytes} of every file a run writes."""
    paths = notebooks()
    written = {}
    templates = {"lessons": lessons_template(paths), "dplearn": package_template()}
    for domain, template in templates.items():
        written[LOCALE_DIR / f"{domain}.pot"] = catalog_text(template)
    english = {path.name: nbformat.read(path, as_version=4) for path in paths}
    for code in EDITIONS:
        catalogs = {}
        for domain, template in templates.items():
            path = catalog_path(code, domain)
            catalogs[domain] = merged(template, path, code)
            written[path] = catalog_text(catalogs[domain])
        translate = translator(catalogs["lessons"])
        editions = {
            name: edition(nb, name, code, translate, set(english)) for name, nb in english.items()
        }
        with_edition_navigation(editions, code, translate)
        for name, nb in editions.items():
            written[NOTEBOOK_DIR / code / name] = notebook_text(nb)
        readme = ROOT / f"README.{README_SUFFIX[code]}.md"
        if readme.exists():
            rows = readme_rows(editions[navigation.INDEX_NAME], code)
            written[readme] = with_readme_table(readme.read_text(encoding="utf-8"), rows).encode()
    return written


def stale_files(written):
    """The paths whose file differs from what a run writes, and editions no run writes."""
    stale = [
        path for path, data in written.items() if not path.exists() or path.read_bytes() != data
    ]
    for code in EDITIONS:
        stale += [
            path for path in sorted((NOTEBOOK_DIR / code).glob("*.ipynb")) if path not in written
        ]
    return stale


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if stale")
    args = parser.parse_args(argv)
    written = outputs()
    stale = stale_files(written)
    for path in stale:
        print(f"{'out of date' if args.check else 'updated'}: {path.relative_to(ROOT)}")
        if not args.check:
            if path in written:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(written[path])
            else:
                path.unlink()
    return 1 if args.check and stale else 0


if __name__ == "__main__":
    sys.exit(main())
