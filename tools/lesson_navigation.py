"""Writes the navigation bar at the top and bottom of every lesson notebook, and the contents.

The bar reads "← previous · Contents · next →", and the line under it links the same
lesson in the course's other languages (notebooks/zh/, notebooks/ru/). The bar links the
neighbouring notebooks (found by file name, NN-verb-phrase.ipynb, in number order, and
named by the first heading of each) and the course's contents page, notebooks/index.ipynb.
Every link is relative to the notebooks' folder (``02-see-what-delta-means.ipynb``,
``index.ipynb``), so the same link works in JupyterLab, in Voilà (``tasks.sh present``
serves that folder, Binder serves ``voila/render/notebooks/``) and on GitHub. The contents
page is written whole from the lessons: one line per lesson, its title (the lesson's
heading) and what it teaches (the "What you will learn" cell of its row in the README's
table of lessons, else the first item of its "You'll learn" list). It stands on the first
line of the title cell, above the "# NN · Title" heading, and alone in the notebook's last
cell, which is tagged "navigation" (the title cell is not: other tools insert cells before
that tag). The script rewrites nothing else (in the title cell, only the lines above the
heading), and it writes a notebook only when its bar changes, so running it twice changes
nothing. A new lesson gets its bar, and its neighbours their link to it, by running it
again:

    python tools/lesson_navigation.py           # rewrite what is out of date
    python tools/lesson_navigation.py --check   # exit 1, naming the notebooks, if any is

The contents page is rewritten with the bars, by the same rule (only when it changes).

The footer cell takes the id of its position ("0", "1", ... as nbstripout numbers cells),
so that a stripped notebook stays stripped; no other cell moves or changes its id.
"""

import argparse
import copy
import pathlib
import re
import sys

import nbformat

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
from dplearn.language import LANGUAGES  # noqa: E402  (the repository's own package)

ROOT = pathlib.Path(__file__).resolve().parents[1]
NOTEBOOK_DIR = ROOT / "notebooks"
TAG = "navigation"
FOOTER_ID = "navigation-footer"
INDEX_NAME = "index.ipynb"
CONTENTS = f"[Contents]({INDEX_NAME})"
README = ROOT / "README.md"
LESSON_NAME = re.compile(r"\d\d-[a-z0-9]+(-[a-z0-9]+)*\.ipynb")


def lessons(folder=NOTEBOOK_DIR):
    """The lesson notebooks of folder, in teaching order (their names sort by number)."""
    return sorted(
        path for path in pathlib.Path(folder).glob("*.ipynb") if LESSON_NAME.fullmatch(path.name)
    )


def is_navigation(cell):
    return TAG in cell.get("metadata", {}).get("tags", [])


def title_index(nb, name):
    """Index of the title cell: the first markdown cell with a level-1 heading."""
    for index, cell in enumerate(nb.cells):
        if cell.cell_type == "markdown" and any(
            line.startswith("# ") for line in cell.source.splitlines()
        ):
            return index
    raise ValueError(f"{name} has no level-1 heading ('# NN · Title') to name it by")


def title(nb, name):
    """The first level-1 heading of a notebook, e.g. "01 · Measure the privacy loss ..."."""
    cell = nb.cells[title_index(nb, name)]
    return next(line for line in cell.source.splitlines() if line.startswith("# "))[2:].strip()


def link_text(text):
    """A title made safe inside [...] of a markdown link."""
    return re.sub(r"([\[\]\\])", r"\\\1", text)


def navigation_line(previous, following):
    """The bar: previous and following are (file name, title) or None."""
    parts = []
    if previous:
        parts.append(f"[← {link_text(previous[1])}]({previous[0]})")
    parts.append(CONTENTS)
    if following:
        parts.append(f"[{link_text(following[1])} →]({following[0]})")
    return " · ".join(parts)


def edition_link(name, language, current="en"):
    """The link from the current edition's copy of a notebook to language's copy."""
    to_english = "" if current == "en" else "../"
    return f"{to_english}{name}" if language == "en" else f"{to_english}{language}/{name}"


def languages_line(name, current="en"):
    """The line linking a notebook's editions: its own language in bold, the others as links.

    The English notebooks are in notebooks/, the others in notebooks/<code>/ (written by
    tools/translate.py), under the same file names.
    """
    return " · ".join(
        f"**{language.name}**"
        if code == current
        else f"[{language.name}]({edition_link(name, code, current)})"
        for code, language in LANGUAGES.items()
    )


def navigation_sources(paths):
    """{file name: (header, footer source)} for the lessons at paths, in order.

    The header is the bar, then the line of links to the lesson in the other languages.
    """
    named = [(path.name, title(nbformat.read(path, as_version=4), path.name)) for path in paths]
    sources = {}
    for index, (name, _) in enumerate(named):
        previous = named[index - 1] if index > 0 else None
        following = named[index + 1] if index + 1 < len(named) else None
        line = navigation_line(previous, following)
        sources[name] = (f"{line}\n\n{languages_line(name)}", f"---\n\n{line}")
    return sources


def tagged(metadata, tag=True):
    """A copy of a cell's metadata with the navigation tag added (or taken away)."""
    metadata = dict(metadata)
    tags = [t for t in metadata.get("tags", []) if t != TAG] + ([TAG] if tag else [])
    if tags:
        metadata["tags"] = tags
    else:
        metadata.pop("tags", None)
    return metadata


def with_navigation(nb, name, header, footer):
    """The notebook's cells with the header above the title and the footer last.

    Every other cell keeps its place, id and content. A footer found elsewhere (cells
    added after it) moves back to the end.
    """
    cells = [copy.deepcopy(cell) for cell in nb.cells]
    footers = [
        i for i, cell in enumerate(cells) if is_navigation(cell) and i != title_index(nb, name)
    ]
    old_footer = cells[footers[-1]] if footers else None
    cells = [cell for i, cell in enumerate(cells) if i not in footers]
    index = title_index(nbformat.v4.new_notebook(cells=cells), name)
    title_cell = cells[index]
    lines = title_cell.source.splitlines()
    heading = next(i for i, line in enumerate(lines) if line.startswith("# "))
    title_cell.source = "\n".join([header, "", *lines[heading:]])
    title_cell.metadata = tagged(title_cell.get("metadata", {}), tag=False)
    # The id nbstripout would give it, unless another cell holds that one.
    used = {cell.get("id") for cell in cells}
    footer_id = next(
        i
        for i in (str(len(cells)), old_footer and old_footer.get("id"), FOOTER_ID)
        if i not in used
    )
    footer_cell = nbformat.v4.new_markdown_cell(footer, id=footer_id)
    footer_cell.metadata = tagged(old_footer.get("metadata", {}) if old_footer else {})
    return [*cells, footer_cell]


def same_cells(old, new):
    def key(cell):
        return (cell.cell_type, cell.get("id"), cell.source, cell.get("metadata", {}))

    return [key(c) for c in old] == [key(c) for c in new]


def update(paths, check=False):
    """Brings the navigation of every lesson at paths up to date; returns the stale ones."""
    stale = []
    for name, (header, footer) in navigation_sources(paths).items():
        path = next(p for p in paths if p.name == name)
        # Read again just before writing: other people may be editing the notebook.
        nb = nbformat.read(path, as_version=4)
        cells = with_navigation(nb, name, header, footer)
        if same_cells(nb.cells, cells):
            continue
        stale.append(path)
        if not check:
            nb.cells = cells
            nbformat.write(nb, path)
    return stale


# The contents page ----------------------------------------------------------------------

INDEX_INTRO = """# Contents · Differential privacy, one lesson at a time

These lessons teach differential privacy with figures that move: every slider changes a
figure in place, and every number on the page is computed, exactly, by the `dplearn`
package. Take them in order: each lesson uses what the ones before it taught.

In JupyterLab, open a lesson and run all its cells (**Run → Run All Cells**); as an app
(Voilà), a lesson opens ready, with prose, sliders and figures and no code. The bar at the
top and bottom of every lesson, "← previous · Contents · next →", leads to its neighbours
and back to this page."""

INDEX_OUTRO = """## Exercises

Every lesson ends with exercises that check themselves: type a number or a formula, or pick
an option, then press **Check**. A wrong answer that matches a common slip gets a hint about
that slip; **Show solution** opens a worked solution after a first attempt."""


def _readme_summaries(readme=README):
    """{file name: "What you will learn" cell} of the README's table of lessons."""
    summaries = {}
    if not pathlib.Path(readme).is_file():
        return summaries
    for line in pathlib.Path(readme).read_text(encoding="utf-8").splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        link = re.search(r"\]\(notebooks/([^)]+\.ipynb)\)", line)
        if line.startswith("|") and link and len(cells) >= 3:
            summaries[link.group(1)] = cells[2]
    return summaries


def _first_learning(nb):
    """The first item of a lesson's "You'll learn" list, on one line ("" if it has none)."""
    for cell in nb.cells:
        if cell.cell_type != "markdown" or "You'll learn" not in cell.source:
            continue
        after = cell.source.split("You'll learn", 1)[1]
        item = re.search(r"^- (.+?)(?=^- |^\s*$|\Z)", after, re.M | re.S)
        if item:
            text = " ".join(item.group(1).split()).rstrip(";.,")
            return text[:1].upper() + text[1:] + "."
    return ""


def contents_line(name, lesson_title, summary):
    """One line of the contents: the lesson's title as a link, then what it teaches."""
    line = f"- **[{link_text(lesson_title)}]({name})**"
    return f"{line}: {summary}" if summary else line


def index_notebook(paths, readme=README):
    """The contents page for the lessons at paths, as a notebook (three markdown cells)."""
    summaries = _readme_summaries(readme)
    lines = []
    kernelspec = None
    for path in paths:
        nb = nbformat.read(path, as_version=4)
        kernelspec = kernelspec or nb.metadata.get("kernelspec")
        summary = summaries.get(path.name) or _first_learning(nb)
        lines.append(contents_line(path.name, title(nb, path.name), summary))
    start = ""
    if paths:
        first = title(nbformat.read(paths[0], as_version=4), paths[0].name)
        start = f"\n\nStart with [{link_text(first)} →]({paths[0].name})."
    cells = [
        nbformat.v4.new_markdown_cell(f"{languages_line(INDEX_NAME)}\n\n{INDEX_INTRO}", id="0"),
        nbformat.v4.new_markdown_cell("## Lessons\n\n" + "\n".join(lines) + start, id="1"),
        nbformat.v4.new_markdown_cell(INDEX_OUTRO, id="2"),
    ]
    index = nbformat.v4.new_notebook(cells=cells)
    index.metadata = {
        "kernelspec": kernelspec
        or {"display_name": "Python 3", "language": "python", "name": "python3"},
        "language_info": {"name": "python"},
    }
    return index


def update_index(paths, folder=NOTEBOOK_DIR, check=False, readme=README):
    """Writes folder/index.ipynb from the lessons at paths; returns [its path] if it was stale."""
    path = pathlib.Path(folder) / INDEX_NAME
    wanted = index_notebook(paths, readme)
    if path.is_file():
        old = nbformat.read(path, as_version=4)
        if same_cells(old.cells, wanted.cells) and old.metadata == wanted.metadata:
            return []
    if not check:
        nbformat.write(wanted, path)
    return [path]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", nargs="?", default=NOTEBOOK_DIR, type=pathlib.Path)
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if stale")
    args = parser.parse_args(argv)
    paths = lessons(args.folder)
    stale = update(paths, check=args.check)
    stale += update_index(paths, args.folder, check=args.check)
    for path in stale:
        print(f"{'out of date' if args.check else 'updated'}: {path.name}")
    return 1 if args.check and stale else 0


if __name__ == "__main__":
    sys.exit(main())
