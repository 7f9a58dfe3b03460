"""Lesson 17's figures FREQ-1 to FREQ-5 read out the lesson's numbers and follow every slider."""

import math

import numpy as np
import pytest

from dplearn import local_frequency
from dplearn.figures import local_frequency as figures
from dplearn.figures.controls import Choice
from dplearn.figures.explorers import pick
from tests import shared_explorers

IDS = ("FREQ-1", "FREQ-2", "FREQ-3", "FREQ-4", "FREQ-5")
CLASSES = {
    "FREQ-1": figures.VarianceAgainstCategories,
    "FREQ-2": figures.ServerView,
    "FREQ-3": figures.LocalAgainstCentral,
    "FREQ-4": figures.PostProcessing,
    "FREQ-5": figures.ExactVariance,
}


def test_the_buttons_name_the_cores_protocols():
    assert sorted(figures.PROTOCOL_NAMES.values()) == sorted(local_frequency.PROTOCOLS)
    assert sum(figures.TRUE_SHARES) == pytest.approx(1.0)
    assert list(figures.TRUE_SHARES) == sorted(figures.TRUE_SHARES, reverse=True)


def test_freq1_reads_out_the_lessons_variances():
    explorer = shared_explorers.at("FREQ-1")
    numbers = explorer.numbers()
    assert pick(numbers, "optimised unary") == pytest.approx(3.68269, abs=5e-6)
    assert pick(numbers, "symmetric unary") == pytest.approx(3.91770, abs=5e-6)
    assert pick(numbers, "direct encoding at") == pytest.approx(1.59807, abs=5e-6)
    assert pick(numbers, "crossover") == pytest.approx(10.1548, abs=5e-5)
    assert pick(numbers, "local hashing") == pytest.approx(
        local_frequency.variance_per_user("optimized local hashing", 1.0, 4)
    )
    text = explorer.description()
    for quoted in ("3.68269", "3.91770", "0.92067", "1.59807", "5.66243", "347.06889", "10.1548"):
        assert quoted in text, quoted
    assert "optimised local hashing has optimised unary's variance" in text


def test_freq1_marks_the_crossover_on_the_optimised_line():
    explorer = shared_explorers.at("FREQ-1", epsilon=2.0)
    crossover = 3 * math.exp(2.0) + 2
    x, y = explorer.crossing.get_data()
    assert x[0] == pytest.approx(crossover)
    assert y[0] == pytest.approx(local_frequency.variance_per_user("optimized unary", 2.0, 4))


def test_freq2_enumerates_optimised_unary_encoding():
    explorer = shared_explorers.at("FREQ-2")
    numbers = explorer.numbers()
    assert pick(numbers, "reports") == 16
    assert pick(numbers, "worst privacy loss") == pytest.approx(1.0, abs=1e-12)
    assert pick(numbers, "$p$") == 0.5
    assert pick(numbers, "$q$") == pytest.approx(1 / (math.e + 1))
    heights = explorer.first.get_data().values
    assert heights.sum() == pytest.approx(1.0)
    assert explorer.losses.get_data()[1].max() == pytest.approx(1.0)
    assert "is 1 (star" in explorer.description()


def test_freq2_near_and_abuah_is_symmetric_unary_at_ln_9():
    explorer = shared_explorers.at("FREQ-2", protocol=figures.NEAR_ABUAH)
    numbers = explorer.numbers()
    assert pick(numbers, r"$\varepsilon$") == pytest.approx(math.log(9))
    assert pick(numbers, "worst privacy loss") == pytest.approx(math.log(9))
    assert pick(numbers, "variance per user") == pytest.approx(0.75)
    assert pick(numbers, "optimised unary at") == pytest.approx(0.5625)
    assert (pick(numbers, "$p$"), pick(numbers, "$q$")) == (0.75, 0.25)
    text = explorer.description()
    for quoted in ("2.19722", "0.75", "0.5625", "ln 9"):
        assert quoted in text, quoted


def test_freq3_reads_out_local_against_central():
    explorer = shared_explorers.at("FREQ-3")
    numbers = explorer.numbers()
    assert pick(numbers, "optimised unary") == pytest.approx(36826.94, abs=0.01)
    assert pick(numbers, "central Laplace") == pytest.approx(2.0)
    assert pick(numbers, "users") == 10_000
    text = explorer.description()
    assert "36,827" in text and "against 2 central" in text


def test_freq4_runs_are_the_cores_estimates_and_histograms():
    explorer = shared_explorers.at("FREQ-4")
    runs = figures.estimate_runs(1.0, 1000)["optimized unary"]
    raw = runs["raw"]
    assert raw.shape == (figures.RUNS, 8)
    assert (raw < 0).any() and (raw != np.round(raw)).any()
    for name in (figures.CLIP, figures.PROJECT):
        assert (runs[name] >= 0).all()
        assert runs[name].sum(axis=1) == pytest.approx(np.full(figures.RUNS, 1000.0))
    numbers = explorer.numbers()
    assert pick(numbers, "negative") == pytest.approx(np.mean(raw < 0))
    # The raw estimates are unbiased: their mean is within three standard errors of the truth.
    variance = local_frequency.frequency_variance(0.5, 1 / (math.e + 1), 1000, 30)
    assert abs(pick(numbers, "raw: bias")) < 3 * math.sqrt(variance / figures.RUNS) / 1000
    # Both post-processings raise the rarest category.
    assert pick(numbers, "clipped: bias") > 0 and pick(numbers, "projected: bias") > 0
    truth = np.array(figures.TRUE_SHARES)
    expected = np.sqrt(np.mean((runs[figures.CLIP] / 1000 - truth) ** 2))
    assert pick(numbers, "clipped: root") == pytest.approx(expected)
    assert f"{pick(numbers, 'negative'):.1%}" in explorer.description()


def test_freq5_reads_out_the_exact_variance_and_the_runs_follow_it():
    explorer = shared_explorers.at("FREQ-5")
    numbers = explorer.numbers()
    assert pick(numbers, "$p$") == pytest.approx(0.4753668864, abs=5e-11)
    assert pick(numbers, "$q$") == pytest.approx(0.1748777045, abs=5e-11)
    assert pick(numbers, "exact") == pytest.approx(1947.253393, abs=5e-7)
    assert pick(numbers, "n users") + pick(numbers, "true count") == pytest.approx(
        pick(numbers, "exact")
    )
    # 10,000 runs: the sample variance is within 5 % of the exact one, the mean near 0.
    assert pick(numbers, "variance of the runs") == pytest.approx(1947.25, rel=0.05)
    assert abs(pick(numbers, "mean of the runs")) < 3 * math.sqrt(1947.25 / 1e4)
    text = explorer.description()
    for quoted in ("0.4753668864", "0.1748777045", "1947.253393"):
        assert quoted in text, quoted


def test_freq5_symmetric_unary_does_not_depend_on_the_count():
    # Symmetric unary encoding has p + q = 1: the count's term vanishes.
    numbers = shared_explorers.at("FREQ-5", protocol=figures.SYMMETRIC, count=700).numbers()
    assert pick(numbers, "true count") == pytest.approx(0.0, abs=1e-9)


def test_freq5_histogram_is_a_density():
    explorer = shared_explorers.at("FREQ-5", epsilon=5.0, count=1000, protocol=figures.OPTIMISED)
    data = explorer.histogram.get_data()
    # Drawn relative to the normal's peak 1 / sqrt(2 pi Var).
    peak = 1 / math.sqrt(2 * math.pi * pick(explorer.numbers(), "exact"))
    assert np.sum(data.values * peak * np.diff(data.edges)) == pytest.approx(1.0, abs=0.01)


@pytest.mark.parametrize("figure_id", IDS)
def test_every_control_at_its_ends_builds_and_updates(figure_id):
    explorer_class = CLASSES[figure_id]
    for name, control in explorer_class.controls.items():
        for value in control.ends:
            explorer = explorer_class(**{name: value})
            explorer.figure.canvas.draw()
            assert explorer.description().endswith(".")
            assert all(np.isfinite(v) for v in explorer.numbers().values())


@pytest.mark.parametrize("figure_id", IDS)
def test_every_slider_changes_the_figure_and_its_description(figure_id):
    explorer_class = CLASSES[figure_id]
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
        assert explorer.description() != text, (figure_id, name)
        if name != "post_processing":
            assert explorer.numbers() != numbers, (figure_id, name)
