"""Figures SEL-1 to SEL-5 show lesson 12's numbers (docs/figures.md), and their descriptions
follow the sliders."""

import matplotlib
import pytest

matplotlib.use("Agg")

from dplearn.figures import selection as figures  # noqa: E402


def test_sel_1_shows_its_probabilities_and_the_worst_loss():
    explorer = figures.ExponentialMechanism()
    numbers = explorer.numbers()
    shown = [round(numbers[f"$P_1[{r}]$"], 4) for r in range(1, 6)]
    assert shown == [0.7274, 0.2676, 0.0049, 0.0001, 0.0]
    assert -1.0 <= numbers["smallest loss over all neighbours"] < 0
    assert 0 < numbers["largest loss over all neighbours"] <= 1.0
    assert "0.7274, 0.2676, 0.0049, 0.0001, 0.0000" in explorer.description()


def test_sel_2_shows_the_three_noises():
    numbers = figures.NoisyMax().numbers()
    assert [round(value, 4) for value in numbers.values()] == [0.7213, 0.7274, 0.8135]


def test_sel_3_ranges():
    numbers = figures.BoundedRange().numbers()
    assert numbers["range, exponential mechanism"] == pytest.approx(1.0, rel=1e-12)
    assert numbers["range, permute-and-flip"] > 1.4
    assert numbers["range, randomised response"] == pytest.approx(2.0, rel=1e-12)


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
