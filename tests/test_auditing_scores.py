"""Lesson 14's black-box scores stored with the package: trained afresh they are the same
numbers, they belong to the setting the figures and the notebook ask for, and the figures
read the same from them as from training."""

import fnmatch
import json
import re
from pathlib import Path

import numpy as np
import pytest

from dplearn import auditing
from dplearn.auditing import _store, black_box
from dplearn.figures import auditing as figures

ROOT = Path(__file__).resolve().parents[1]
PATH = _store.BLACK_BOX_PATH
FIGURE_SETTINGS = [
    (figures.BLACK_BOX_TRIALS, figures.BLACK_BOX_SEED),
    (figures.BLACK_BOX_CALIBRATION_TRIALS, figures.BLACK_BOX_CALIBRATION_SEED),
]


#: One training for the whole suite: under pytest-xdist the module's tests stay on one
#: worker, and the fixture is session-wide (pytest ends a module's fixtures whenever
#: xdist runs another module's test in between).
pytestmark = pytest.mark.xdist_group("black-box-scores")


@pytest.fixture(scope="session")
def trained():
    """{(trials, seed): (members, non-members)} of the figures' settings, trained afresh by
    the package's own trainer (the only test that trains all 12,000 models)."""
    return {
        (trials, seed): black_box._train_black_box(trials, seed, auditing.LESSON11_RUN)
        for trials, seed in FIGURE_SETTINGS
    }


def test_stored_scores_are_what_training_gives(trained):
    stored = _store.read(PATH)
    assert len(stored) == len(trained)
    for (trials, seed), (members, non_members) in trained.items():
        key = _store.key(black_box._setting(trials, seed, auditing.LESSON11_RUN))
        stored_members, stored_non_members = stored[key]
        assert stored_members.dtype == stored_non_members.dtype == np.float64
        assert stored_members.shape == stored_non_members.shape == (trials,)
        # Not equality: the models' 1,200 steps of matrix products may round differently
        # in the last bits on another processor (numpy picks its BLAS code by CPU). A score
        # is minus a loss log(1 + e^s) - y s, which near 0 is the difference of two numbers
        # of size |s| <= 40: a last-bit change in s moves it by about 1e-14, hence atol.
        np.testing.assert_allclose(stored_members, members, rtol=1e-9, atol=1e-11)
        np.testing.assert_allclose(stored_non_members, non_members, rtol=1e-9, atol=1e-11)


def test_stored_setting_is_what_the_figures_and_notebook_ask_for():
    expected = [
        {
            "trials": trials,
            "seed": seed,
            "run": auditing.LESSON11_RUN._asdict(),
            "split_seed": black_box._SPLIT_SEED,
        }
        for trials, seed in FIGURE_SETTINGS
    ]
    # Compared as JSON text: a float differs from the stored one if its shortest text does.
    assert json.dumps(_store.settings(PATH)) == json.dumps(expected)
    assert list(auditing.STORED_SETTINGS) == FIGURE_SETTINGS
    notebook = (ROOT / "notebooks" / "14-attack-the-model.ipynb").read_text(encoding="utf-8")
    calls = re.findall(r"black_box_canary_scores\((\d+), seed=(\d+)\)", notebook)
    assert calls, "the notebook does not call black_box_canary_scores(N, seed=S) as this test reads"
    assert {(int(trials), int(seed)) for trials, seed in calls} <= set(FIGURE_SETTINGS)


def test_the_figures_settings_are_read_not_trained(monkeypatch):
    def no_training(*args):
        raise AssertionError(f"trained the black-box models of {args}")

    monkeypatch.setattr(black_box, "_train_black_box", no_training)
    black_box._black_box.cache_clear()
    try:
        for trials, seed in FIGURE_SETTINGS:
            scores = auditing.black_box_canary_scores(trials, seed=seed)
            assert scores.members.shape == scores.non_members.shape == (trials,)
        # Any other setting is trained.
        with pytest.raises(AssertionError, match="trained"):
            auditing.black_box_canary_scores(figures.BLACK_BOX_TRIALS, seed=1)
    finally:
        black_box._black_box.cache_clear()


def _readouts():
    """(numbers, description) of MIA-3 and MIA-4 at several slider settings."""
    found = []
    for cls, settings in [
        (figures.CanaryAttacks, [{"false_positive_rate": a} for a in (0.001, 0.01, 0.1, 0.5)]),
        (
            figures.BoundAgainstTrials,
            [{"trials": n, "confidence": c} for n in (20, 1000, 10000) for c in (0.8, 0.999)],
        ),
    ]:
        explorer = cls()
        for params in settings:
            explorer.update(**params)
            found.append((explorer.numbers(), explorer.description()))
    return found


def _clear_figure_caches():
    black_box._black_box.cache_clear()
    figures.audit_bounds.cache_clear()
    figures._audit.cache_clear()


def test_figures_read_the_same_from_stored_and_trained_scores(trained, monkeypatch):
    _clear_figure_caches()
    try:
        from_file = _readouts()
        monkeypatch.setattr(black_box, "_stored_scores", dict)
        monkeypatch.setattr(
            black_box, "_train_black_box", lambda trials, seed, run: trained[(trials, seed)]
        )
        _clear_figure_caches()
        from_training = _readouts()
    finally:
        monkeypatch.undo()
        _clear_figure_caches()
    assert [text for _, text in from_file] == [text for _, text in from_training]
    for (file_numbers, _), (training_numbers, _) in zip(from_file, from_training, strict=True):
        assert file_numbers.keys() == training_numbers.keys()
        for name, value in file_numbers.items():
            if isinstance(value, str):  # a readout in words, such as a range
                assert value == training_numbers[name], name
            else:
                assert value == pytest.approx(training_numbers[name], rel=1e-9, abs=1e-12), name


def test_the_package_data_is_listed_for_the_wheel():
    """Every data file of the package matches a pattern of MANIFEST.in (setuptools puts
    only those into the wheel)."""
    patterns = []
    for line in (ROOT / "MANIFEST.in").read_text(encoding="utf-8").splitlines():
        words = line.split()
        if words[:1] == ["recursive-include"]:
            patterns += [f"{words[1]}/**/{pattern}" for pattern in words[2:]]
            patterns += [f"{words[1]}/{pattern}" for pattern in words[2:]]
        elif words[:1] == ["include"]:
            patterns += words[1:]
    data = [
        path.relative_to(ROOT).as_posix()
        for path in (ROOT / "dplearn").rglob("*")
        if path.is_file() and path.suffix not in {".py", ".pyc"}
    ]
    assert PATH.relative_to(ROOT).as_posix() in data
    missing = [name for name in data if not any(fnmatch.fnmatch(name, p) for p in patterns)]
    assert not missing, f"package data the wheel would leave out: {missing}"
