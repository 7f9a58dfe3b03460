"""Lesson 13's figures (MANY-1 to MANY-5) show the core's numbers, and their text follows.

The general sweeps (every slider, layered drawing, layout) are tests/test_explorers.py's
and tests/test_figure_layout.py's; here each figure's readout is checked against the core
at the lesson's setting, and its description against its sliders.
"""

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

from dplearn import composition  # noqa: E402
from dplearn import sparse_vector as sv  # noqa: E402
from dplearn.figures import many_queries as figures  # noqa: E402

MOVES = {
    figures.ParallelComposition: {"counts": 40},
    figures.GroupPrivacy: {"group": 2},
    figures.AboveThresholdLaw: {"threshold": 4.0},
    figures.BrokenVariants: {"queries": 45},
    figures.SparseSavings: {"positives": 60},
}


@pytest.mark.parametrize("cls", list(MOVES), ids=lambda cls: cls.figure_id)
def test_description_follows_the_sliders(cls):
    explorer = cls()
    before = explorer.description()
    assert before.endswith(".") and len(before.split(". ")) <= 4
    explorer.update(**MOVES[cls])
    assert explorer.description() != before


def test_many_3_reads_out_its_law():
    numbers = figures.AboveThresholdLaw().numbers()
    law = [value for name, value in numbers.items() if name.startswith("$D_1$")]
    assert np.round(law, 5).tolist() == [0.06841, 0.0965, 0.26448, 0.03583, 0.31492, 0.21985]
    assert numbers["largest |loss| (nats)"] <= numbers[r"$\varepsilon$ (nats)"]
    ratio = numbers[r"largest |loss| in units of $\varepsilon$"]
    assert ratio == numbers["largest |loss| (nats)"] / numbers[r"$\varepsilon$ (nats)"] <= 1


def test_many_3_losses_stay_in_the_band_at_every_neighbour():
    explorer = figures.AboveThresholdLaw()
    for neighbour in figures.NEIGHBOURS:
        for epsilon in (0.1, 1.0, 5.0):
            explorer.update(neighbour=neighbour, epsilon=epsilon, threshold=2.0)
            assert np.all(np.abs(explorer.state["losses"]) <= epsilon * (1 + 1e-9))


def test_many_2_reads_out_the_chain_past_1_and_its_axis_follows_the_data():
    explorer = figures.GroupPrivacy()
    group = explorer.numbers()
    chain = r"chain bound $\delta_g$ (above 1: no guarantee)"
    assert group[chain] == composition.group_privacy(1, 1e-6, 5)[1]
    low, high = explorer.axes.get_ylim()
    assert 1e-7 <= low < 1e-6 and 1e-2 < high <= 1.0
    explorer.update(epsilon=2.0, group=10)
    group = explorer.numbers()
    assert group[chain] == composition.group_privacy(2, 1e-6, 10, capped=False)[1]
    assert round(group[chain], 1) == 75.9
    assert (
        group["chain bound / exact"]
        == group[chain] / group[r"Gaussian exact $\delta$ at $g\varepsilon$"]
    )
    assert "above 1: no guarantee" in explorer.description()
    assert explorer.axes.get_ylim()[1] > group[r"often quoted $g e^{(g-1)\varepsilon}\delta$"]
    explorer.update(epsilon=0.05, delta=1e-10, group=1)
    low, high = explorer.axes.get_ylim()
    assert 1e-11 <= low < 1e-10 and high <= 1e-8


def test_many_4_reads_out_losses_in_units_of_the_claimed_epsilon():
    broken = figures.BrokenVariants(queries=50).numbers()
    unit = r"worst loss in units of $\varepsilon$: "
    assert broken[unit + "no stop"] == pytest.approx(sv.worst_loss("no stop", 50, 1.0))
    assert broken[unit + "releases the answer"] == 12.25
    assert broken[unit + "no answer noise"] == np.inf
    assert broken[unit + "AboveThreshold"] <= 1.0
    at_three = figures.BrokenVariants(queries=50, epsilon=3.0).numbers()
    assert at_three[unit + "no stop"] == pytest.approx(sv.worst_loss("no stop", 50, 3.0) / 3)
    assert at_three[unit + "releases the answer"] == pytest.approx(12.25)
    assert at_three[r"no stop passes $\varepsilon$ from $m$ ="] == 6


def test_many_5_compares_like_for_like_and_says_which_side():
    explorer = figures.SparseSavings()
    sparse = explorer.numbers()
    assert sparse[r"which $c$: Sparse at $\varepsilon$, compared answers"] == 20.0
    assert sparse[r"with answers: Sparse at $\varepsilon/2$, compared"] == 40.0
    assert sparse[r"with answers: $c$ published at $\varepsilon/2$"] == 10.0
    assert sparse[r"all $m$ answered at $\varepsilon$: each"] == 1000.0
    assert sparse["which c: Sparse's noise against all m"] == "50 times smaller"
    assert sparse["published: Sparse's noise against all m"] == "100 times smaller"
    explorer.update(queries=100, positives=100)
    sparse = explorer.numbers()
    assert sparse["which c: Sparse's noise against all m"] == "4 times larger"
    assert sparse["published: Sparse's noise against all m"] == "2 times larger"
    explorer.update(positives=25)
    assert explorer.numbers()["which c: Sparse's noise against all m"] == "the same"
    # The x-axis ends at c = m, the most positives there can be.
    for ax in explorer.axes:
        assert 100 < ax.get_xlim()[1] < 200
    assert explorer.comparison.get_xdata()[-1] == pytest.approx(100)
