"""The lessons' exercises through the grader: each notebook run with answers put in.

Two runs per lesson notebook, each on a fresh kernel through
``dplearn.exercises.grade.grade_notebook``: the whole lesson with every reference answer
in its answer cell (the grader must give full marks), and the lesson's exercise cells
alone (its import cell and answer cells, which is all an answer's grading reads) with
one anticipated mistake per exercise (the grader must report that mistake's hint), the
last exercise left as shipped (no answer). The run as shipped is tests/test_notebooks.py's.
Then the grader on broken submissions: a cell that raises, a cell that runs too long, a
file that is no notebook, and the command line with --json.
"""

import json
import math
import os
import pathlib

import nbformat
import pytest

from dplearn import exercises
from dplearn.exercises import grade, notebook

ROOT = pathlib.Path(__file__).resolve().parents[1]
NOTEBOOK_DIR = pathlib.Path(os.environ.get("DPLEARN_NOTEBOOKS", ROOT / "notebooks"))
ALL = exercises.load_all()
NOTEBOOKS = [
    path
    for path in sorted(NOTEBOOK_DIR.glob("*.ipynb"))
    if any(item.lesson == notebook.lesson_of(path) for item in ALL.values())
]

pytestmark = pytest.mark.notebooks


@pytest.fixture(autouse=True)
def kernel_environment(monkeypatch):
    # As in tests/test_notebooks.py: the kernels must not inherit a plotting backend.
    monkeypatch.delenv("MPLBACKEND", raising=False)
    monkeypatch.delenv("PYTHONWARNINGS", raising=False)


def python_source(answer):
    """The answer as Python source for an answer cell."""
    if isinstance(answer, float):
        return repr(answer) if math.isfinite(answer) else f'float("{answer}")'
    return repr(answer)


def write_with_answers(path, tmp_path, answers, exercises_only=False):
    nb = nbformat.read(path, as_version=4)
    if exercises_only:
        tags = {notebook.answer_tag(key) for key in lesson_ids(path)}
        nb.cells = [
            cell
            for cell in nb.cells
            if cell.cell_type == "code"
            and (notebook.IMPORTS in cell.source or tags & set(cell.metadata.get("tags", [])))
        ]
    assert not notebook.inject(nb, answers), "an exercise has no answer cell"
    copy = tmp_path / path.name
    nbformat.write(nb, str(copy))
    return copy


def lesson_ids(path):
    return [key for key, item in ALL.items() if item.lesson == notebook.lesson_of(path)]


def reference_source(exercise):
    return exercise.source if exercise.kind == "function" else exercise.reference()


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda path: path.name)
def test_references_get_full_marks(path, tmp_path):
    ids = lesson_ids(path)
    answers = {key: python_source(reference_source(ALL[key])) for key in ids}
    result = grade.grade_notebook(write_with_answers(path, tmp_path, answers))
    assert result.status == "ran", result.problems
    assert [(item.id, item.verdict) for item in result.exercises] == [
        (key, "correct") for key in ids
    ], grade.format_table(result)
    assert result.score == result.total == len(ids)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda path: path.name)
def test_mistakes_get_their_hints(path, tmp_path):
    ids = lesson_ids(path)
    # Alternate between the first and the second mistake, so both kinds of slip are run.
    chosen = {key: ALL[key].mistakes[index % 2] for index, key in enumerate(ids[:-1])}
    answers = {key: python_source(item.answer()) for key, item in chosen.items()}
    result = grade.grade_notebook(write_with_answers(path, tmp_path, answers, exercises_only=True))
    assert result.status == "ran", result.problems
    reported = {item.id: (item.verdict, item.hint) for item in result.exercises}
    expected = {key: ("not yet", item.id) for key, item in chosen.items()}
    expected[ids[-1]] = ("no answer", None)
    assert reported == expected, grade.format_table(result)
    assert result.score == 0


def submission(tmp_path, name, *sources, answer=None):
    """A small notebook: the import cell, the given cells, and one answer cell."""
    exercise_id = next(iter(ALL))
    new = nbformat.v4
    cells = [new.new_code_cell(notebook.IMPORTS)]
    cells += [new.new_code_cell(source) for source in sources]
    cells.append(
        new.new_code_cell(
            f'answer = None\ncheck("{exercise_id}", answer)',
            metadata={"tags": [notebook.answer_tag(exercise_id)]},
        )
    )
    nb = new.new_notebook(cells=cells)
    if answer is not None:
        notebook.inject(nb, {exercise_id: answer})
    path = tmp_path / name
    nbformat.write(nb, str(path))
    return path, exercise_id


def test_a_cell_that_raises_is_reported_and_later_answers_still_count(tmp_path):
    exercise = next(iter(ALL.values()))
    answer = python_source(reference_source(exercise))
    path, exercise_id = submission(tmp_path, "broken.ipynb", "1 / 0", answer=answer)
    result = grade.grade_notebook(path)
    assert result.status == "ran with errors"
    assert any("ZeroDivisionError" in problem for problem in result.problems)
    assert [(item.id, item.verdict) for item in result.exercises] == [(exercise_id, "correct")]


def test_timeouts_unreadable_files_and_the_command_line(tmp_path, capsys):
    slow, exercise_id = submission(tmp_path, "slow.ipynb", "import time\ntime.sleep(60)")
    lesson = exercise_id[:2]
    # Named as a lesson notebook: the exercises of the lesson without a cell are counted.
    renamed = tmp_path / f"{lesson}-slow.ipynb"
    slow.rename(renamed)
    junk = tmp_path / "junk.ipynb"
    junk.write_text("{ not a notebook")
    report = tmp_path / "grades.json"
    code = grade.main([str(renamed), str(junk), "--timeout", "3", "--json", str(report)])
    assert code == 0
    printed = capsys.readouterr().out
    assert "timed out" in printed and "could not run" in printed, printed
    data = json.loads(report.read_text())
    first, second = data["notebooks"]
    assert first["status"] == "timed out" and second["status"] == "could not run"
    verdicts = {item["id"]: item["verdict"] for item in first["exercises"]}
    assert verdicts[exercise_id] == "not run"
    others = [key for key in ALL if key[:2] == lesson and key != exercise_id]
    assert all(verdicts[key] == "no answer cell" for key in others), verdicts
    assert first["score"] == 0 and first["total"] == 1 + len(others)
    assert second["exercises"] == [] and second["total"] == 0
