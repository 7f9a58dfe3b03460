"""Self-checking exercises: every lesson's questions, their checker, and the answer boxes.

Each lesson's exercises live in ``dplearn/exercises/lessonNN.py`` (its *bank*): for every
exercise its question, its reference (computed with the package, at check time), the
mistakes it anticipates (each a wrong computation with its own hint), and its worked
solution. ``load_all()`` finds every bank by its module name, so a new lesson's bank is
picked up without editing anything here.

In a notebook:

- ``show("02.delta-two")`` displays the answer box (an input, **Check**, the feedback,
  and **Show solution** once an answer was checked);
- ``check("02.delta-two", answer)`` checks an answer given from code and records it for
  the grader (``python -m dplearn.exercises grade``);
- ``solution("02.delta-two")`` shows the worked solution after a first attempt.

Three kinds of answer: a number (text such as ``ln(3)/2`` is read safely, see
``_expressions``), a choice (the option's letter) and a function (a Python callable, or a
formula typed as text), run on several inputs, edge cases included, against the reference.

The package by role: ``kinds`` (the exercise kinds and the constructors a bank uses),
``registry`` (finding the banks, ``check``/``show``/``solution``, the kernel's record of
attempts), ``_widget`` (the answer box), ``_expressions`` (the safe reader of typed
answers), ``notebook`` (writes a lesson's Exercises section) and ``grade`` (the grader).
This module re-exports the public names of ``kinds`` and ``registry``.

Taught in: the "Exercises" section of every lesson notebook.
"""

from dplearn.exercises import registry as _registry
from dplearn.exercises.kinds import (
    CORRECT,
    KINDS,
    MISTAKE,
    NO_ANSWER,
    NOT_YET,
    UNREADABLE,
    ChoiceExercise,
    Exercise,
    FunctionExercise,
    Mistake,
    NumberExercise,
    Result,
    Tolerance,
    absolute,
    choice,
    exact,
    function,
    mistake,
    number,
    relative,
    whole_number,
)
from dplearn.exercises.registry import (
    RECORD_VARIABLE,
    attempted,
    check,
    get,
    load_all,
    note_attempt,
    on_first_attempt,
    show,
    solution,
)

__all__ = [
    "Exercise",
    "NumberExercise",
    "ChoiceExercise",
    "FunctionExercise",
    "Mistake",
    "Result",
    "Tolerance",
    "relative",
    "absolute",
    "exact",
    "whole_number",
    "number",
    "choice",
    "function",
    "mistake",
    "load_all",
    "get",
    "check",
    "show",
    "solution",
    "attempted",
    "note_attempt",
    "on_first_attempt",
    "RECORD_VARIABLE",
    "KINDS",
    "CORRECT",
    "MISTAKE",
    "NOT_YET",
    "NO_ANSWER",
    "UNREADABLE",
]

# The kernel's record of attempts, by the name under which the tests empty it.
_ATTEMPTED = _registry._ATTEMPTED
