"""The "Exercises" section of a lesson notebook, written from its lesson's bank.

The section is a heading cell, an import cell, and three cells per exercise: the
question (markdown), the answer box (``show("NN.name")``) and the answer cell for code
(``answer = None`` then ``check("NN.name", answer)``). Cells carry tags, so that tests
and the grader find them: ``exercises`` on the heading and import cells,
``exercise:NN.name`` on the question and the box, ``answer:NN.name`` on the answer cell.
Run ``nbstripout`` after ``sync``: as for every lesson, it strips outputs and numbers
the cell ids by position.

``sync(path)`` (``python -m dplearn.exercises sync NOTEBOOK ...``) rewrites the section
in place from the bank and leaves every other cell as it is; it places the section where
it was, or before a cell tagged ``navigation``, or at the end.

Taught in: the "Exercises" section of every lesson notebook.
"""

from __future__ import annotations

import pathlib
import re

import nbformat

from dplearn import exercises
from dplearn.language import N_

__all__ = [
    "SECTION_TAG",
    "answer_tag",
    "exercise_tag",
    "lesson_of",
    "section_cells",
    "is_section_cell",
    "answer_cells",
    "inject",
    "sync",
]

SECTION_TAG = "exercises"
NAVIGATION_TAG = "navigation"
HEADING = "## Exercises"

INTRODUCTION = (
    "## Exercises\n\n"
    "Each exercise has an answer box: type your answer, press **Check** and read the "
    "feedback. A wrong answer that matches a common slip gets a hint about that slip, "
    "without the answer; **Show solution** opens a worked solution once you have tried.\n\n"
    "In JupyterLab you can also answer from code: in the cell under each box, replace "
    "`None` by your answer (a number, a letter, or a function) and run the cell. "
    '`solution("…")` then shows the worked solution. A teacher grades the answers given '
    "in these cells (see the README)."
)
IMPORTS = "from dplearn.exercises import check, show, solution  # noqa: F401 - solution is yours"


def exercise_tag(exercise_id):
    """Tag of an exercise's question and answer-box cells."""
    return f"exercise:{exercise_id}"


def answer_tag(exercise_id):
    """Tag of an exercise's answer cell (the grader and the tests fill it in)."""
    return f"answer:{exercise_id}"


def lesson_of(path):
    """The lesson number of a notebook from its name (``02-see-what-delta-means``), or None."""
    match = re.match(r"(\d\d)-", pathlib.Path(path).name)
    return int(match.group(1)) if match else None


def _tags(cell):
    return list(cell.get("metadata", {}).get("tags", []))


def is_section_cell(cell):
    """True for a cell of the Exercises section (by its tags)."""
    return any(
        tag == SECTION_TAG or tag.startswith(("exercise:", "answer:")) for tag in _tags(cell)
    )


def _answer_source(exercise):
    # Code, English in every edition of the notebook (N_ keeps the words as they are).
    help_text = exercise.code_help(translate=N_)
    return f'answer = None  # replace None by {help_text}\ncheck("{exercise.id}", answer)'


def section_cells(lesson):
    """The cells of one lesson's Exercises section, from its bank."""
    chosen = [item for item in exercises.load_all().values() if item.lesson == lesson]
    if not chosen:
        raise ValueError(f"no exercise bank has exercises of lesson {lesson:02d}")
    new = nbformat.v4
    cells = [
        new.new_markdown_cell(INTRODUCTION, metadata={"tags": [SECTION_TAG]}),
        new.new_code_cell(IMPORTS, metadata={"tags": [SECTION_TAG]}),
    ]
    for number, item in enumerate(chosen, start=1):
        tag = {"tags": [exercise_tag(item.id)]}
        cells += [
            new.new_markdown_cell(
                f"### Exercise {number} · {item.title}\n\n{item.question}",
                metadata=dict(tag),
            ),
            new.new_code_cell(f'show("{item.id}")', metadata={"tags": tag["tags"]}),
            new.new_code_cell(
                _answer_source(item),
                metadata={"tags": [answer_tag(item.id)]},
            ),
        ]
    return cells


def answer_cells(nb):
    """{exercise id: cell} for every answer cell of a notebook, in order."""
    found = {}
    for cell in nb.cells:
        for tag in _tags(cell):
            if tag.startswith("answer:"):
                found[tag.removeprefix("answer:")] = cell
    return found


def inject(nb, answers):
    """Puts answers (exercise id -> Python source of the answer) into the answer cells.

    The first line of each answer cell, ``answer = None ...``, becomes ``answer = <source>``.
    Returns the list of ids that had no answer cell.
    """
    cells = answer_cells(nb)
    missing = []
    for exercise_id, source in answers.items():
        cell = cells.get(exercise_id)
        if cell is None:
            missing.append(exercise_id)
            continue
        lines = cell.source.split("\n")
        lines[0] = f"answer = {source}"
        cell.source = "\n".join(lines)
    return missing


def _cut_old_heading(cell):
    """Removes a plain-text "## Exercises" part from a cell that is not the section's."""
    if cell.cell_type != "markdown" or is_section_cell(cell):
        return False
    lines = cell.source.split("\n")
    for index, line in enumerate(lines):
        if line.strip() == HEADING:
            cell.source = "\n".join(lines[:index]).rstrip()
            return True
    return False


def _content(cell):
    return (cell.cell_type, cell.source, _tags(cell))


def sync(path):
    """Rewrites the Exercises section of the notebook at path from its bank.

    Returns True when the file changed.
    """
    path = pathlib.Path(path)
    lesson = lesson_of(path)
    if lesson is None:
        raise ValueError(f"cannot tell the lesson of {path.name}: name it NN-verb-phrase.ipynb")
    nb = nbformat.read(path, as_version=4)
    before = nbformat.writes(nb)
    emptied = {id(cell) for cell in nb.cells if _cut_old_heading(cell) and not cell.source.strip()}

    def stays(cell):
        return not is_section_cell(cell) and id(cell) not in emptied

    position = next((i for i, cell in enumerate(nb.cells) if is_section_cell(cell)), None)
    kept = [cell for cell in nb.cells if stays(cell)]
    if position is None:
        position = next(
            (i for i, cell in enumerate(kept) if NAVIGATION_TAG in _tags(cell)), len(kept)
        )
    else:
        position = sum(1 for cell in nb.cells[:position] if stays(cell))
    fresh = section_cells(lesson)
    current = [cell for cell in nb.cells if is_section_cell(cell)]
    if not emptied and [_content(cell) for cell in current] == [_content(cell) for cell in fresh]:
        # Same cells: keep their ids (nbstripout numbered them).
        fresh = current
    nb.cells = kept[:position] + fresh + kept[position:]
    if nbformat.writes(nb) == before:
        return False
    nbformat.validate(nb)
    nbformat.write(nb, str(path))
    return True
