"""Figures MIA-1 to MIA-5 (lesson 14): their numbers are the core's, and their sentences
follow their sliders."""

import math

import numpy as np
import pytest

from dplearn import auditing
from dplearn.figures import auditing as figures

CLASSES = [
    figures.AttackerPlane,
    figures.TracingAttack,
    figures.CanaryAttacks,
    figures.BoundAgainstTrials,
    figures.OneRunBound,
]


@pytest.mark.parametrize("cls", CLASSES, ids=lambda cls: cls.figure_id)
def test_description_follows_every_slider(cls):
    explorer = cls()
    for name, control in cls.controls.items():
        before = explorer.description()
        numbers = explorer.numbers()
        low, high = control.ends
        explorer.update(**{name: high if explorer.params[name] != high else low})
        if explorer.numbers() != numbers:
            assert explorer.description() != before, name
        explorer.update(**{name: cls.defaults[name]})
    assert explorer.description().count(".") >= 1


def test_mia1_reads_its_caps_at_one_percent():
    explorer = figures.AttackerPlane()
    for epsilon, value in [(1.0, 0.0272), (2.38, 0.1081), (4.0, 0.546), (8.0, 0.9997)]:
        explorer.update(epsilon=epsilon)
        cap = explorer.numbers()["highest TPR, (ε, δ)-DP"]
        assert round(cap, len(str(value)) - 2) == value
        if epsilon >= 2.38:  # the run's own epsilon: its curve lies inside that region
            assert explorer.numbers()["lesson 11's run"] < cap
    assert "0.9997" in explorer.description()


def test_mia3_and_mia4_agree_with_the_core():
    explorer = figures.CanaryAttacks()
    run = auditing.LESSON11_RUN
    curve = auditing.dp_sgd_max_true_positive_rate(
        run.sampling_rate, run.noise_multiplier, figures.LESSON11_STEPS, 0.01
    )
    assert explorer.numbers()["the run's curve"] == curve
    explorer = figures.BoundAgainstTrials()
    epsilon = explorer.numbers()["accountant's ε"]
    assert 0 <= explorer.numbers()["ε proven, strongest"] <= epsilon
    assert 0 <= explorer.numbers()["ε proven, black box"] <= epsilon
    for confidence in (0.8, 0.95, 0.999):
        for black_box in (False, True):
            trials, bounds = figures.audit_bounds(confidence, black_box)
            # Both attackers reach N = 10,000, and no audit proves more than the accountant.
            assert trials[0] == 20 and trials[-1] == 10_000
            assert np.all(bounds >= 0) and np.all(bounds <= epsilon)
    for n in (100, 1000, 10_000):
        explorer.update(trials=n)
        assert 0 <= explorer.numbers()["ε proven, black box"] <= epsilon
        assert f"N = {n:,}" in explorer.description()


def test_mia5_default_proves_0_958():
    explorer = figures.OneRunBound()
    assert round(explorer.numbers()["ε proven"], 3) == 0.958
    assert math.isfinite(explorer.numbers()["one run of the model: ε proven"])
