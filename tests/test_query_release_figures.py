"""Lesson 16's figures REL-1 to REL-5 read out the lesson's numbers and follow every slider."""

import numpy as np
import pytest

from dplearn import query_release, zcdp
from dplearn.figures import query_release as figures
from dplearn.figures.controls import Choice
from dplearn.figures.explorers import pick
from tests import shared_explorers

IDS = ("REL-1", "REL-2", "REL-3", "REL-4", "REL-5")
CLASSES = {
    "REL-1": "StrategyErrors",
    "REL-2": "ClampingBias",
    "REL-3": "MWEMSteps",
    "REL-4": "MWEMCostAndError",
    "REL-5": "SyntheticRows",
}


def test_the_histogram_is_the_lessons():
    assert figures.HISTOGRAM == (2, 7, 15, 24, 22, 16, 9, 5)
    assert sum(figures.HISTOGRAM) == 100


@pytest.mark.parametrize(
    ("bins", "identity", "naive", "consistent"),
    [(8, 6.667, 57.78, 26.07), (64, 44.0, 407.12, 127.25), (256, 172.0, 979.57, 264.78)],
)
def test_rel1_reads_out_the_four_errors(bins, identity, naive, consistent):
    explorer = shared_explorers.at("REL-1", bins=bins)
    numbers = explorer.numbers()
    assert pick(numbers, "noisy histogram") == pytest.approx(identity, abs=5e-3)
    assert pick(numbers, "node by node") == pytest.approx(naive, abs=5e-3)
    assert pick(numbers, "least squares") == pytest.approx(consistent, abs=5e-3)
    assert pick(numbers, "directly") == query_release.direct_range_error(bins, 1.0)
    text = explorer.description()
    assert f"{consistent:.4g}" in text and f"{naive:.4g}" in text


def test_rel1_the_tree_overtakes_the_histogram_between_512_and_1024():
    numbers = shared_explorers.at("REL-1").numbers()
    assert pick(numbers, "directly") == 800.0
    assert pick(numbers, "smallest") == "noisy histogram (identity)"
    big = shared_explorers.at("REL-1", bins=1024)
    numbers = big.numbers()
    assert pick(numbers, "least squares") == pytest.approx(476.55, abs=5e-3)
    assert pick(numbers, "noisy histogram") == pytest.approx(684.0)
    assert pick(numbers, "smallest") == "binary tree, least squares"
    assert pick(shared_explorers.at("REL-1", bins=512).numbers(), "smallest") == (
        "noisy histogram (identity)"
    )
    assert "first beats the histogram at d = 1024" in big.description()
    # The errors scale as 1/epsilon^2.
    half = shared_explorers.at("REL-1", epsilon=0.5).numbers()
    assert pick(half, "noisy histogram") == pytest.approx(4 * 20 / 3)


def test_rel2_reads_out_the_clamping_bias():
    explorer = shared_explorers.at("REL-2")
    numbers = explorer.numbers()
    for count, bias in ((0, 0.5), (1, 0.18394), (2, 0.06767), (5, 0.00337)):
        assert pick(numbers, f"$c$ = {count}") == pytest.approx(bias, abs=5e-6)
    assert pick(numbers, "empty cells") == pytest.approx(1000 * 0.5)
    text = explorer.description()
    assert all(word in text for word in ("0.50000", "0.18394", "0.06767", "0.00337", "500"))
    numbers = shared_explorers.at("REL-2", scale=2.0, count=3, cells=10_000).numbers()
    assert pick(numbers, "the count") == pytest.approx(np.exp(-1.5))
    assert pick(numbers, "empty cells") == pytest.approx(10_000.0)


def test_rel3_round_one_selects_exactly():
    explorer = shared_explorers.at("REL-3")
    numbers = explorer.numbers()
    assert pick(numbers, "likeliest") == "[2, 6)"
    assert pick(numbers, "its score") == 27.0
    assert pick(numbers, "its probability") == pytest.approx(0.0559, abs=5e-5)
    uniform = np.full(8, 12.5)
    probabilities = query_release.mwem_selection_probabilities(
        figures.HISTOGRAM, uniform, query_release.range_workload(8), 0.1
    )
    assert explorer.probabilities.get_data().values.tolist() == probabilities.tolist()
    assert "[2, 6)" in explorer.description() and "0.0559" in explorer.description()


def test_rel3_follows_the_seeded_run():
    run = query_release.mwem(
        figures.HISTOGRAM,
        query_release.range_workload(8),
        1.0,
        5,
        rng=np.random.default_rng((figures.MWEM_SEED, 0)),
    )
    explorer = shared_explorers.at("REL-3", round=3)
    numbers = explorer.numbers()
    assert pick(numbers, "measurement") == run.measurements[2]
    assert explorer.after.get_data().values.tolist() == run.synthetic[3].tolist()
    queries = query_release.range_workload(8)
    assert pick(numbers, "on $A_t$") == pytest.approx(queries[run.selected[2]] @ run.synthetic[3])


def test_rel4_reads_out_rho_and_the_best_rounds():
    explorer = shared_explorers.at("REL-4")
    numbers = explorer.numbers()
    assert pick(numbers, r"zCDP $\rho$") == pytest.approx(0.03125)
    assert pick(numbers, "from zCDP") == pytest.approx(zcdp.to_epsilon(0.03125, 1e-6))
    assert pick(numbers, "worst query") == pytest.approx(4.0)
    errors = figures.max_errors(1.0, 5, "all ranges")
    assert pick(numbers, "at $T$, median") == pytest.approx(np.median(errors))
    medians = [np.median(figures.max_errors(1.0, t, "all ranges")) for t in figures.ROUNDS_GRID]
    assert pick(numbers, "best $T$") == figures.ROUNDS_GRID[int(np.argmin(medians))]
    assert "0.03125" in explorer.description()
    marginals = shared_explorers.at("REL-4", workload="one-way marginals", epsilon=2.0)
    assert pick(marginals.numbers(), "worst query") == pytest.approx(np.sqrt(2) / 2)


def test_rel5_answers_the_unasked_query():
    explorer = shared_explorers.at("REL-5")
    numbers = explorer.numbers()
    assert pick(numbers, "true rows") == 30.0
    count, released, clipped, from_mwem, from_noisy = figures.synthetic_rows(1.0, 5, "prefixes")
    assert pick(numbers, r"$\hat n$") == count == from_mwem.sum() == from_noisy.sum()
    assert pick(numbers, "MWEM's rows") == from_mwem[5:].sum() - 30
    assert pick(numbers, "noisy histogram's rows") == from_noisy[5:].sum() - 30
    assert pick(numbers, "before drawing rows") == pytest.approx(released[5:].sum())
    assert pick(numbers, "clipped noisy") == pytest.approx(clipped[5:].sum())
    assert released.sum() == pytest.approx(100) and clipped.sum() == pytest.approx(count)
    assert f"{count} rows" in explorer.description()


@pytest.mark.parametrize("figure_id", IDS)
def test_every_slider_changes_the_figure_and_its_description(figure_id):
    explorer_class = figures.__dict__[CLASSES[figure_id]]
    for name, control in explorer_class.controls.items():
        explorer = shared_explorers.at(figure_id)
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


@pytest.mark.parametrize("figure_id", IDS)
def test_every_figure_draws_at_the_ends_of_every_control(figure_id):
    explorer_class = figures.__dict__[CLASSES[figure_id]]
    for name, control in explorer_class.controls.items():
        values = control.options if isinstance(control, Choice) else control.ends
        for value in values:
            explorer = shared_explorers.at(figure_id, **{name: value})
            explorer.figure.canvas.draw()
            assert explorer.description()
            assert all(isinstance(v, str) or np.isfinite(v) for v in explorer.numbers().values()), (
                figure_id,
                name,
                value,
            )
