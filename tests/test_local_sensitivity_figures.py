"""Lesson 15's figures LOCAL-1 to LOCAL-5 read out the lesson's numbers and follow every slider."""

import numpy as np
import pytest

from dplearn.figures import local_sensitivity as figures
from dplearn.figures.controls import Choice
from dplearn.figures.explorers import pick
from tests import shared_explorers

IDS = ("LOCAL-1", "LOCAL-2", "LOCAL-3", "LOCAL-4", "LOCAL-5")


def test_the_data_sets_are_the_lessons():
    assert figures.AGES == (15.0, 30.0, 45.0, 60.0, 75.0)
    assert len(figures.MANY_AGES) == 1001
    assert figures.MANY_AGES[0] == 20.0 and figures.MANY_AGES[-1] == 80.0
    assert figures.MANY_AGES[17] == 21.0
    assert len(figures.INCOMES) == 301
    assert min(figures.INCOMES) >= 0 and max(figures.INCOMES) <= 100
    # Skewed to the right: the mean above the median.
    assert np.mean(figures.INCOMES) > np.median(figures.INCOMES)


def test_local1_reads_out_the_ages_smooth_sensitivity():
    explorer = shared_explorers.at("LOCAL-1")
    assert explorer.bars.get_data().values.tolist() == [15.0, 30.0, 45.0, 60.0, 75.0, 90.0]
    numbers = explorer.numbers()
    assert pick(numbers, "$S^*$") == pytest.approx(39.1138, abs=5e-5)
    assert pick(numbers, "smoothness") == pytest.approx(1 / 6)
    assert pick(numbers, "of the maximum") == 5
    assert pick(numbers, "noise scale") == pytest.approx(6 * 39.11383876563704)
    explorer = shared_explorers.at("LOCAL-1", noise=figures.LAPLACE, delta=1e-6)
    numbers = explorer.numbers()
    assert pick(numbers, "$S^*$") == pytest.approx(75.7546, abs=5e-5)
    assert pick(numbers, "noise scale") == pytest.approx(2 * pick(numbers, "$S^*$"))
    assert "75.7546" in explorer.description()


def test_local1_shows_the_maximum_when_it_lies_past_the_first_twenty():
    explorer = shared_explorers.at(
        "LOCAL-1", data="1,001 ages", noise=figures.LAPLACE, delta=1e-10, epsilon=0.1
    )
    distance = pick(explorer.numbers(), "of the maximum")
    assert distance > 20
    assert explorer.axes.get_xlim()[1] > distance


@pytest.mark.parametrize(
    ("bound", "distance", "passing"), [(1.0, 16, 0.00298), (2.0, 33, 0.98294), (3.0, 50, 0.9999965)]
)
def test_local2_reads_out_the_test_on_the_many_ages(bound, distance, passing):
    numbers = shared_explorers.at("LOCAL-2", bound=bound).numbers()
    assert pick(numbers, "instability") == distance
    assert pick(numbers, "P(pass)") == pytest.approx(passing, rel=5e-4)
    assert pick(numbers, "threshold") == pytest.approx(26.2447, abs=5e-5)


def test_local3_reads_out_the_four_releases():
    numbers = shared_explorers.at("LOCAL-3").numbers()
    assert pick(numbers, "exponential mechanism") == pytest.approx(0.99999997, abs=5e-9)
    assert pick(numbers, "Laplace") == pytest.approx(0.352035, abs=5e-7)
    assert pick(numbers, "Cauchy") == pytest.approx(0.105137, abs=5e-7)
    assert pick(numbers, "within $t$, propose-test-release") == pytest.approx(0.217425, abs=5e-7)
    assert pick(numbers, "best bound") == 2.0


def test_local4_reads_out_the_noise_part_at_the_best_k():
    explorer = shared_explorers.at("LOCAL-4", data="301 incomes", epsilon=0.5)
    numbers = explorer.numbers()
    blocks = pick(numbers, "best number")
    assert pick(numbers, "noise part") == pytest.approx(np.sqrt(2) * 100 / (blocks * 0.5))
    assert pick(numbers, "root mean square") == pytest.approx(
        np.hypot(pick(numbers, "bias"), pick(numbers, "noise part"))
    )


def test_local5_loss_is_unbounded_and_the_masses_are_exact():
    explorer = shared_explorers.at("LOCAL-5", epsilon=1.0, output=200.0)
    pair = figures.LocalNoisePair(1.0)
    # Far right, the loss falls by 1/15 - 1/25 per unit of output.
    assert pick(explorer.numbers(), "at the output") == pytest.approx(
        np.log(25 / 15) - 155 / 15 + 165 / 25
    )
    assert pair.loss(1e6) < -1e4 and pair.loss(-1e6) < -1e4
    # The mass of L < -epsilon under x', against a fine numerical integral.
    outputs = np.linspace(-3000, 3000, 2_000_001)
    density = pair.densities(outputs)[1]
    inside = pair.loss(outputs) < -1.0
    expected = np.trapezoid(density * inside, outputs)
    assert pick(explorer.numbers(), "on x′") == pytest.approx(expected, abs=1e-5)
    small = figures.LocalNoisePair(0.2)
    above = small.region(above=True, level=0.2)
    density = small.densities(outputs)[0]
    expected = np.trapezoid(density * (small.loss(outputs) > 0.2), outputs)
    assert small.mass(above, neighbour=False) == pytest.approx(expected, abs=1e-5)


@pytest.mark.parametrize("figure_id", IDS)
def test_every_slider_changes_the_figure_and_its_description(figure_id):
    explorer_class = figures.__dict__[
        {
            "LOCAL-1": "SmoothSensitivity",
            "LOCAL-2": "ProposeTestRelease",
            "LOCAL-3": "MedianReleases",
            "LOCAL-4": "SampleAndAggregate",
            "LOCAL-5": "LeakyShortcut",
        }[figure_id]
    ]
    for name, control in explorer_class.controls.items():
        # A control that applies only under one option of a choice is tried under it.
        base = {choice: options[0] for choice, options in control.applies_when}
        explorer = shared_explorers.at(figure_id, **base)
        explorer.figure.canvas.draw()
        before = np.asarray(explorer.figure.canvas.buffer_rgba()).copy()
        text, numbers = explorer.description(), explorer.numbers()
        values = control.options if isinstance(control, Choice) else control.ends
        target = next(v for v in values if v != explorer.params[name])
        explorer.update(**{name: target})
        explorer.figure.canvas.draw()
        after = np.asarray(explorer.figure.canvas.buffer_rgba())
        assert (before != after).any(), (figure_id, name)
        assert explorer.numbers() != numbers, (figure_id, name)
        assert explorer.description() != text, (figure_id, name)
