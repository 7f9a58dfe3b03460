"""Every number lessons 08 to 11 print, recomputed: the record behind
``test_lesson_numbers_08_11.py``.

Three sources: the output of the lessons' code cells (run here as the lesson runs them, the
figure and exercise cells left out), what each figure's readout and description say
(``numbers()`` and ``description()``) at its defaults and with each control at both
ends, and the reference answers of the lessons' exercises. Texts are kept as the lesson
prints them; readout numbers as floats (the readout prints them with ``format_number``).

Run as a script to write the record from the code as it is:
``python -m tests.lesson_numbers_08_11`` (from the repository's root).
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import pathlib

import matplotlib
import nbformat

matplotlib.use("Agg")

ROOT = pathlib.Path(__file__).resolve().parents[1]
RECORD = pathlib.Path(__file__).resolve().parent / "data" / "lesson_numbers_08_11.json"
LESSONS = ("08", "09", "10", "11")
#: Figure sections of lessons 08-09 (COMP), 10 (SUB) and 11 (SGD).
SECTIONS = ("COMP-", "SUB-", "SGD-")
#: The calculators lessons 08 and 09 show.
CALCULATORS = ("GaussianDelta", "LaplaceBracket")


def _printing_cells(prefix):
    (path,) = (ROOT / "notebooks").glob(f"{prefix}-*.ipynb")
    notebook = nbformat.read(path, as_version=4)
    for cell in notebook.cells:
        if cell.cell_type != "code" or cell.metadata.get("tags"):
            continue  # exercise cells are tagged
        source = "\n".join(
            line
            for line in cell.source.splitlines()
            if not line.startswith("%") and "explore(" not in line and ".widget()" not in line
        )
        yield source


def cell_outputs(prefix):
    """The printed output of each code cell of a lesson, in order."""
    namespace = {"__name__": "__lesson__"}
    outputs = []
    for source in _printing_cells(prefix):
        stream = io.StringIO()
        with contextlib.redirect_stdout(stream):
            exec(compile(source, f"lesson {prefix}", "exec"), namespace)  # noqa: S102
        if stream.getvalue():
            outputs.append(stream.getvalue())
    return outputs


def _settings(explorer_class):
    """Defaults, then each control alone at both of its ends."""
    yield {}
    for name, control in explorer_class.controls.items():
        for value in control.ends:
            yield {name: value}


def _plain(value):
    if isinstance(value, str | bool):
        return value
    value = float(value)
    return value if math.isfinite(value) else repr(value)


def figure_readouts():
    """figure id -> list of (setting, numbers, description), one per setting."""
    from dplearn.figures.explorers import load_all

    result = {}
    for figure_id, explorer_class in load_all().items():
        if not figure_id.startswith(SECTIONS):
            continue
        explorer = explorer_class()
        rows = []
        for setting in _settings(explorer_class):
            explorer.update(**{**explorer_class.defaults, **setting})
            numbers = {name: _plain(value) for name, value in explorer.numbers().items()}
            rows.append([_plain_setting(setting), numbers, explorer.description()])
        result[figure_id] = rows
    return result


def _plain_setting(setting):
    return {name: _plain(value) for name, value in setting.items()}


def calculator_readouts():
    """calculator name -> its numbers at its default boxes and each box at both ends."""
    from dplearn.figures import calculators

    result = {}
    for name in CALCULATORS:
        calculator = getattr(calculators, name)()
        rows = []
        settings = [{}] + [
            {key: end}
            for key, box in calculator.boxes.items()
            if not box.options
            for end in (box.minimum, box.maximum)
        ]
        for setting in settings:
            try:
                numbers = {k: _plain(v) for k, v in calculator.numbers(**setting).items()}
            except ValueError as error:
                numbers = {"error": str(error)}
            rows.append([_plain_setting(setting), numbers])
        result[name] = rows
    return result


def exercise_references():
    """exercise id -> its reference answer (numbers only: choices and functions aside)."""
    from dplearn.exercises import NumberExercise, load_all

    result = {}
    for exercise_id, exercise in load_all().items():
        if exercise_id.split(".")[0] in LESSONS and isinstance(exercise, NumberExercise):
            result[exercise_id] = _plain(exercise.reference())
    return result


def core_values():
    """The accountants' numbers the lessons' cells print, unrounded (lessons 09 and 11)."""
    from dplearn import accounting, composition, privacy_loss, training

    laplace = privacy_loss.laplace(10.0)
    values = {}
    for grid_width in (1e-2, 1e-3, 1e-4):
        bracket = composition.pld_bracket(laplace, 100, grid_width)
        low, high = bracket.delta(4.2203)
        values[f"09 bracket h={grid_width:g} delta(4.2203)"] = [low, high]
        values[f"09 bracket h={grid_width:g} epsilon(1e-5)"] = list(bracket.epsilon_for_delta(1e-5))
    for pessimistic in (True, False):
        single = composition.pld(laplace, 0.01, pessimistic=pessimistic)
        values[f"09 pld h=0.01 pessimistic={pessimistic} two releases delta(0.1)"] = single.compose(
            single
        ).delta(0.1)
    rate, sigma, delta = 256 / 60000, 1.1, 1e-5
    runs = [(rate, sigma, training.steps_for_epochs(epochs, rate)) for epochs in (15, 60)]
    runs += [(256 / 60000, 1.1, 14063), (0.01, 4.0, 10_000), (32 / 427, 4.0, 401)]
    for run in runs:
        values[f"11 dp_sgd_epsilon {run}"] = accounting.dp_sgd_epsilon(*run, delta)
        values[f"11 dp_sgd_epsilon h=1e-3 {run}"] = accounting.dp_sgd_epsilon(
            *run, delta, grid_width=1e-3
        )
        values[f"11 dp_sgd_bracket {run}"] = list(accounting.dp_sgd_bracket(*run, delta)[:2])
    return {
        name: _plain(value) if not isinstance(value, list) else value
        for name, value in values.items()
    }


def observed():
    return {
        "core": core_values(),
        "cells": {prefix: cell_outputs(prefix) for prefix in LESSONS},
        "figures": figure_readouts(),
        "calculators": calculator_readouts(),
        "exercises": exercise_references(),
    }


if __name__ == "__main__":
    RECORD.parent.mkdir(exist_ok=True)
    RECORD.write_text(json.dumps(observed(), indent=1, ensure_ascii=False) + "\n")
    print(f"wrote {RECORD}")
