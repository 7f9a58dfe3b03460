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
    assert numbers["largest |loss|"] <= numbers[r"$\varepsilon$"]


def test_many_3_losses_stay_in_the_band_at_every_neighbour():
    explorer = figures.AboveThresholdLaw()
    for neighbour in figures.NEIGHBOURS:
        for epsilon in (0.1, 1.0, 5.0):
            explorer.update(neighbour=neighbour, epsilon=epsilon, threshold=2.0)
            assert np.all(np.abs(explorer.state["losses"]) <= epsilon * (1 + 1e-9))


def test_many_2_and_many_4_and_many_5_read_out_the_core():
    group = figures.GroupPrivacy().numbers()
    assert group[r"chain bound $\delta_g$"] == composition.group_privacy(1, 1e-6, 5)[1]
    broken = figures.BrokenVariants(queries=50).numbers()
    assert broken["no stop: worst loss"] == pytest.approx(sv.worst_loss("no stop", 50, 1.0))
    assert broken["releases the answer: worst loss"] == 12.25
    assert broken["no answer noise: worst loss"] == np.inf
    assert broken["AboveThreshold, same pair"] <= 1.0
    sparse = figures.SparseSavings().numbers()
    assert sparse["Sparse then publish: noise per answer"] == 10.0
    assert sparse["all m published: noise per answer"] == 1000.0
