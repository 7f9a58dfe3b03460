"""Figures SEL-1 to SEL-5 show lesson 12's numbers (docs/figures.md), and their descriptions
follow the sliders."""

import math

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")

from dplearn.figures import selection as figures  # noqa: E402


def test_sel_1_shows_its_probabilities_and_the_worst_loss():
    explorer = figures.ExponentialMechanism()
    numbers = explorer.numbers()
    shown = [round(numbers[f"$P_1[{r}]$"], 4) for r in range(1, 6)]
    assert shown == [0.7274, 0.2676, 0.0049, 0.0001, 0.0]
    assert -1.0 <= numbers[r"smallest loss / $\varepsilon$, any neighbour"] < 0
    assert 0 < numbers[r"largest loss / $\varepsilon$, any neighbour"] <= 1.0
    assert numbers["error bound at 95 % (score units)"] == pytest.approx(
        2 * math.log(5 / 0.05), rel=1e-14
    )
    assert "0.7274, 0.2676, 0.0049, 0.0001, 0.0000" in explorer.description()


def test_sel_1_losses_are_in_units_of_epsilon():
    """At epsilon = 3 the readout still lies within +-1: it reads as the axes do."""
    explorer = figures.ExponentialMechanism()
    explorer.update(epsilon=3.0)
    numbers = list(explorer.numbers().values())
    assert -1.0 <= numbers[6] < -0.9 and 0.9 < numbers[5] <= 1.0
    assert "between -1.0000ε and 1.0000ε, inside ±ε (ε = 3)" in explorer.description()


def test_sel_2_shows_the_three_noises():
    numbers = figures.NoisyMax().numbers()
    assert [round(value, 4) for value in numbers.values()] == [0.7213, 0.7274, 0.8135]


def test_sel_3_ranges():
    explorer = figures.BoundedRange()
    explorer.update(epsilon=2.0)
    em, pf, rr = explorer.numbers().values()
    assert em == pytest.approx(1.0, rel=1e-12)
    assert 1.0 < pf < 2.0
    assert rr == pytest.approx(2.0, rel=1e-12)
    assert "span 1.0000ε, exactly ε" in explorer.description()


def test_sel_4_shows_the_four_prices():
    numbers = list(figures.ManySelections().numbers().values())
    assert [round(value, 2) for value in numbers] == [10.0, 6.31, 5.22, 2.42]


def test_sel_5_errors_and_where_each_wins():
    explorer = figures.PrivateMedian()
    mechanism, histogram = explorer.numbers().values()
    assert mechanism < histogram
    explorer.update(epsilon=0.02)
    mechanism, histogram = explorer.numbers().values()
    assert mechanism > histogram
    assert "the Laplace histogram wins" in explorer.description()


def test_sel_5_the_lessons_printed_errors_are_the_readouts():
    """The notebook draws the histogram's medians with SEL-5's seed and count: one draw."""
    from dplearn import datasets, selection

    lengths = datasets.sepal_lengths()
    for epsilon in (0.02, 0.2):
        draws = selection.sample_histogram_quantile(
            lengths,
            figures.CANDIDATES,
            epsilon,
            rng=np.random.default_rng(figures.HISTOGRAM_SEED),
            size=figures.HISTOGRAM_DRAWS,
        )
        printed = np.abs(draws - np.median(lengths)).mean()
        assert printed == pytest.approx(figures.median_errors(epsilon)[1], abs=1e-12)


def test_marks_are_whole_at_the_sliders_ends():
    """SEL-2's and SEL-4's marks sit on the left spine at the smallest setting: unclipped."""
    for explorer in (figures.NoisyMax(), figures.ManySelections()):
        assert all(not mark.get_clip_on() for mark in explorer.marks.values())


@pytest.mark.parametrize(
    ("cls", "change"),
    [
        (figures.ExponentialMechanism, {"epsilon": 3.0}),
        (figures.NoisyMax, {"epsilon": 0.3}),
        (figures.BoundedRange, {"epsilon": 2.0}),
        (figures.ManySelections, {"k": 10}),
        (figures.PrivateMedian, {"epsilon": 1.0}),
    ],
)
def test_descriptions_follow_the_sliders(cls, change):
    explorer = cls()
    before = explorer.description()
    explorer.update(**change)
    after = explorer.description()
    assert before != after and after.strip()
