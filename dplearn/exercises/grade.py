"""Grades submitted notebooks: runs each on a fresh kernel and re-checks its answers.

``python -m dplearn.exercises grade NOTEBOOK.ipynb ... [--json FILE] [--timeout S]``

For each notebook: one new kernel runs every cell (a cell that raises is reported and
the run goes on, so later answers still count); ``check(...)`` in the kernel appends each
answer given from code to a side file (``RECORD_VARIABLE``); this process reads the last
answer of each exercise and checks it again against its own reference. Answers given in
the answer boxes only are not graded (no one clicks Check in a batch run).

The exercises graded are those with an answer cell in the submission, every exercise of
the lesson for a lesson notebook (``NN-...ipynb``; a deleted answer cell counts as no
answer), and any other exercise the submission answered from code.

The submissions are code and run with the grader's rights: grade untrusted work in a
container or a throwaway account, not in your own.

Taught in: README, "Exercises in class and as an assignment".
"""

from __future__ import annotations

import argparse
import json
import math
import os
import pathlib
import sys
import tempfile
import time
import uuid
from dataclasses import asdict, dataclass, field

import nbformat

from dplearn import exercises
from dplearn.exercises import notebook as cells

__all__ = ["ExerciseGrade", "NotebookGrade", "grade_notebook", "main"]


@dataclass
class ExerciseGrade:
    """One exercise of one submission."""

    id: str
    verdict: str  # correct, not yet, no answer, not run, no answer cell, or what was
    # written that is not an answer: "not an option: z", "could not read", "not a function"
    hint: str | None = None
    message: str = ""


@dataclass
class NotebookGrade:
    """One submission: how its run went, and its exercises."""

    notebook: str
    status: str = "ran"  # ran, ran with errors, timed out, kernel died, could not run
    problems: list = field(default_factory=list)
    exercises: list = field(default_factory=list)
    seconds: float = 0.0

    @property
    def score(self):
        """Number of exercises answered correctly."""
        return sum(1 for item in self.exercises if item.verdict == "correct")

    @property
    def total(self):
        """Number of exercises graded."""
        return len(self.exercises)

    def as_dict(self):
        """The grade as plain data for JSON, with its score and total."""
        data = asdict(self)
        data.update(score=self.score, total=self.total)
        return data


def _error_lines(nb):
    found = []
    for index, cell in enumerate(nb.cells):
        for output in cell.get("outputs", []):
            if output.get("output_type") == "error":
                found.append(f"cell {index}: {output.get('ename')}: {output.get('evalue')}"[:300])
    return found


def kernel_config():
    """nbclient's configuration for a kernel that no other process can take the ports of.

    Over TCP, jupyter_client picks five free ports and lets them go before the kernel
    binds them; with several kernels starting at once (a class's submissions graded side
    by side, the test suite's workers) another process can take one in between, and the
    kernel dies at start ("Address already in use"). Where the system has them, the
    kernel talks over socket files of its own (ZeroMQ's ipc transport) instead, named
    by an absolute path: the kernel runs in the notebook's folder, its client here.
    """
    from traitlets.config import Config

    config = Config()
    if os.name == "posix":
        config.KernelManager.transport = "ipc"
        # Short: a socket's path may not be longer than about 100 characters.
        config.KernelManager.ip = os.path.join(
            tempfile.gettempdir(), f"dplearn-{uuid.uuid4().hex[:12]}"
        )
    return config


def _execute(nb, path, timeout, kernel_name, record_path):
    """Runs nb in place; returns (status, problems)."""
    from nbclient import NotebookClient
    from nbclient.exceptions import CellTimeoutError, DeadKernelError

    environment = {name: value for name, value in os.environ.items() if name != "MPLBACKEND"}
    environment[exercises.RECORD_VARIABLE] = str(record_path)
    client = NotebookClient(
        nb,
        timeout=timeout,
        kernel_name=kernel_name,
        allow_errors=True,
        resources={"metadata": {"path": str(path.parent)}},
        config=kernel_config(),
    )
    try:
        client.execute(env=environment)
    except CellTimeoutError:
        return "timed out", [f"a cell ran longer than {timeout:g} s"] + _error_lines(nb)
    except DeadKernelError as error:
        return "kernel died", [str(error)[:300]] + _error_lines(nb)
    except Exception as error:  # a broken submission must not stop the other gradings
        return "could not run", [f"{type(error).__name__}: {str(error)[:300]}"]
    problems = _error_lines(nb)
    return ("ran with errors" if problems else "ran"), problems


def _read_records(record_path):
    answers = {}
    if not record_path.exists():
        return answers
    for line in record_path.read_text(encoding="utf-8").splitlines():
        try:
            entry = json.loads(line)
            answers[str(entry["id"])] = entry.get("answer")
        except (ValueError, KeyError, TypeError):
            continue  # a line the kernel did not finish writing
    return answers


def grade_notebook(path, timeout=120, kernel_name="python3"):
    """Runs one submission on a fresh kernel and grades its answers.

    Args:
      path: the submitted .ipynb.
      timeout: seconds one cell may run before the run is stopped.
      kernel_name: the Jupyter kernel to run it with.

    Returns:
      A ``NotebookGrade``; it never raises for a broken submission.
    """
    path = pathlib.Path(path)
    grade = NotebookGrade(str(path))
    started = time.monotonic()
    try:
        nb = nbformat.read(path, as_version=4)
    except Exception as error:
        grade.status = "could not run"
        grade.problems = [f"not a readable notebook: {type(error).__name__}: {error}"[:300]]
        return grade
    bank = exercises.load_all()
    tagged = [item for item in cells.answer_cells(nb) if item in bank]
    lesson = cells.lesson_of(path)
    of_lesson = [item.id for item in bank.values() if item.lesson == lesson]
    with tempfile.TemporaryDirectory(prefix="dplearn-grade-") as folder:
        record_path = pathlib.Path(folder) / "answers.jsonl"
        grade.status, grade.problems = _execute(nb, path, timeout, kernel_name, record_path)
        answers = _read_records(record_path)
    # The answer cells, the lesson's exercises whose cells were deleted, and any other
    # exercise the submission answered from code (in lesson order).
    graded = set(tagged) | set(of_lesson) | (set(answers) & set(bank))
    for exercise_id in (item for item in bank if item in graded):
        if exercise_id in answers:
            result = bank[exercise_id].check_recorded(answers[exercise_id])
            verdict = ExerciseGrade(exercise_id, result.verdict, result.hint, result.message)
        elif exercise_id in tagged:
            verdict = ExerciseGrade(exercise_id, "not run", None, "its cell did not run")
        else:
            verdict = ExerciseGrade(
                exercise_id, "no answer cell", None, "its answer cell was deleted"
            )
        grade.exercises.append(verdict)
    grade.seconds = round(time.monotonic() - started, 1)
    return grade


def format_table(grade):
    """The text a teacher reads for one submission."""
    lines = [
        f"{grade.notebook}: {grade.score}/{grade.total} correct "
        f"({grade.status}, {grade.seconds:g} s)"
    ]
    lines += [f"  ! {problem}" for problem in grade.problems]
    if grade.exercises:
        width = max(len("exercise"), *(len(item.id) for item in grade.exercises))
        verdicts = max(14, *(len(item.verdict) for item in grade.exercises))
        lines.append(f"  {'exercise':<{width}}  {'verdict':<{verdicts}}  hint")
        for item in grade.exercises:
            lines.append(
                f"  {item.id:<{width}}  {item.verdict:<{verdicts}}  {item.hint or ''}".rstrip()
            )
    return "\n".join(lines)


def _json_safe(value):
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, dict):
        return {key: _json_safe(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_json_safe(item) for item in value]
    return value


def main(argv=None):
    """Command line: grade notebooks, print a table per notebook, optionally write JSON."""
    parser = argparse.ArgumentParser(
        prog="python -m dplearn.exercises grade",
        description="Run each notebook on a fresh kernel and grade the answers given from code.",
    )
    parser.add_argument("notebooks", nargs="+", type=pathlib.Path, help="submitted .ipynb files")
    parser.add_argument("--json", type=pathlib.Path, help="also write the grades to this file")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per cell (120)")
    parser.add_argument("--kernel", default="python3", help="kernel name (python3)")
    options = parser.parse_args(argv)
    grades = []
    for path in options.notebooks:
        grade = grade_notebook(path, options.timeout, options.kernel)
        grades.append(grade)
        print(format_table(grade), flush=True)
        print(flush=True)
    if len(grades) > 1:
        total = sum(grade.total for grade in grades)
        print(f"{len(grades)} notebooks, {sum(g.score for g in grades)}/{total} answers correct")
    if options.json:
        report = {"notebooks": [_json_safe(grade.as_dict()) for grade in grades]}
        options.json.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
