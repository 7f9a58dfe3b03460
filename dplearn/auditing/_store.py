"""Scores of simulated attacks that come with the package, each with the setting it belongs to.

A file (numpy's .npz, no pickles) holds, for each stored setting, an attack's scores of
members and of non-members (float64), and one JSON string listing the settings in order.
A setting is a dict of plain numbers (trials, seeds, the training run); it is looked up by
its canonical JSON text, so a setting is found only when every number equals the stored
one (JSON writes floats by their shortest exact text). ``dplearn.auditing`` writes and
reads lesson 14's black-box scores through this module.
"""

from __future__ import annotations

import json
import pathlib

import numpy as np

#: The black-box attacker's scores of lesson 14 (``python -m dplearn.auditing --write-scores``).
BLACK_BOX_PATH = pathlib.Path(__file__).parents[1] / "data" / "black_box_scores.npz"


def key(setting):
    """The canonical text of a setting (a dict of numbers, strings and such dicts)."""
    return json.dumps(setting, sort_keys=True)


def read(path):
    """{canonical setting: (members, non-members)} of a file that ``write`` wrote."""
    with np.load(path, allow_pickle=False) as stored:
        settings = json.loads(str(stored["settings"]))
        return {
            key(setting): (stored[f"members_{index}"], stored[f"non_members_{index}"])
            for index, setting in enumerate(settings)
        }


def settings(path):
    """The settings a file holds, in order (dicts)."""
    with np.load(path, allow_pickle=False) as stored:
        return json.loads(str(stored["settings"]))


def write(path, entries):
    """Write [(setting, members, non-members)] to ``path`` (float64 scores)."""
    arrays = {"settings": np.array(json.dumps([setting for setting, _, _ in entries]))}
    for index, (_, members, non_members) in enumerate(entries):
        arrays[f"members_{index}"] = np.asarray(members, dtype=np.float64)
        arrays[f"non_members_{index}"] = np.asarray(non_members, dtype=np.float64)
    path = pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez(path, **arrays)
