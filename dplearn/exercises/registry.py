"""Finding the banks, checking answers from code, and the kernel's record of attempts.

``load_all()`` finds every bank (``dplearn/exercises/lessonNN.py``) by its module name, so
a new lesson's bank is picked up without editing anything; ``get`` returns one exercise.
``check``, ``show`` and ``solution`` are what a notebook calls. The record: this kernel
remembers which exercises were attempted (an attempt opens the worked solution, see
``attempted``, ``note_attempt`` and ``on_first_attempt``, through which the answer boxes
learn of attempts made from code), and ``check`` appends every answer to the file that
``RECORD_VARIABLE`` names, for the grader (``dplearn.exercises.grade``).

Taught in: the "Exercises" section of every lesson notebook.
"""

from __future__ import annotations

import importlib
import json
import os
import pkgutil
import re

from dplearn.language import gettext as _

__all__ = [
    "RECORD_VARIABLE",
    "attempted",
    "check",
    "get",
    "load_all",
    "note_attempt",
    "on_first_attempt",
    "show",
    "solution",
]

#: When this environment variable names a file, ``check`` appends every answer to it as
#: one JSON line: the grader's side channel (``dplearn.exercises.grade``).
RECORD_VARIABLE = "DPLEARN_EXERCISE_RECORD"


_BANKS = None
_ATTEMPTED = set()


def _discover():
    import dplearn.exercises as package

    found = {}
    for module_info in sorted(pkgutil.iter_modules(package.__path__), key=lambda m: m.name):
        match = re.fullmatch(r"lesson(\d\d)", module_info.name)
        if not match:
            continue
        module = importlib.import_module(f"{package.__name__}.{module_info.name}")
        for exercise in module.EXERCISES:
            if exercise.id[:2] != match.group(1):
                raise ValueError(f"{exercise.id} sits in {module_info.name}.py, not its lesson's")
            if exercise.id in found:
                raise ValueError(f"two exercises share the id {exercise.id}")
            found[exercise.id] = exercise
    return found


def load_all():
    """Every exercise of every lesson bank: {exercise id: Exercise}, in lesson order."""
    global _BANKS
    if _BANKS is None:
        _BANKS = _discover()
    return dict(_BANKS)


def get(exercise_id):
    """The exercise with this id; a ValueError names the unknown id and close ones."""
    exercises = load_all()
    if exercise_id not in exercises:
        import difflib

        close = difflib.get_close_matches(str(exercise_id), exercises, n=3)
        also = f" (did you mean {', '.join(close)}?)" if close else ""
        raise ValueError(f"no exercise has the id {exercise_id!r}{also}")
    return exercises[exercise_id]


def _record(result):
    path = os.environ.get(RECORD_VARIABLE)
    if not path:
        return
    entry = {"id": result.exercise_id, "status": result.status, "answer": result.recorded}
    with open(path, "a", encoding="utf-8") as record:
        record.write(json.dumps(entry) + "\n")


#: Called with an exercise id after its first attempt (the answer boxes open their
#: Show solution button, even when the attempt came from code).
_ON_FIRST_ATTEMPT = []


def attempted(exercise_id):
    """True once this kernel has seen a readable answer to the exercise (right or wrong)."""
    return exercise_id in _ATTEMPTED


def on_first_attempt(listener):
    """Calls listener(exercise_id) after each exercise's first attempt in this kernel."""
    _ON_FIRST_ATTEMPT.append(listener)


def note_attempt(result):
    """Remembers, for this kernel, that an exercise was attempted (opens its solution)."""
    if result.attempted and result.exercise_id not in _ATTEMPTED:
        _ATTEMPTED.add(result.exercise_id)
        for listener in _ON_FIRST_ATTEMPT:
            listener(result.exercise_id)


def check(exercise_id, answer):
    """Checks an answer given from code; shows the feedback and records it for grading.

    Args:
      exercise_id: "NN.short-name", as the notebook's answer cell names it.
      answer: a number, a letter, a function, or text; None means "not answered yet".

    Returns:
      A ``Result`` (displayed as one line of feedback).
    """
    result = get(exercise_id).check(answer)
    note_attempt(result)
    _record(result)
    return result


def show(exercise_id):
    """The answer box of one exercise, for a notebook cell to display."""
    return get(exercise_id).widget()


class _Markdown:
    """Markdown that notebooks render (with its formulas) and consoles print as text."""

    def __init__(self, text):
        self.text = text

    def _repr_markdown_(self):
        return self.text

    def __str__(self):
        return self.text

    __repr__ = __str__


def solution(exercise_id):
    """The worked solution, once this kernel has seen an attempt at the exercise.

    It ends with its "from code" line, unless the kernel runs in the app.
    """
    exercise = get(exercise_id)
    if not attempted(exercise_id):
        return _Markdown(
            _(
                "*The worked solution of {id} opens after your first attempt: check an answer "
                "in its box or with `check(...)`, right or wrong, then ask again.*"
            ).format(id=exercise_id)
        )
    return _Markdown(exercise.shown_solution())
