"""Figures SGD-1 to SGD-4: the numbers they show and the curves they draw.

Expected values come from outside dplearn: the numbers docs/figures.md gives (SGD-1's 2.38
and 1.134, SGD-3's 2.5967 against 2.3818 and 1.0355 against 0.947), Google's dp_accounting
(its PLD accountant's pessimistic epsilon, 2.38178 at h = 1e-4, and its RDP accountant at
the same orders), the subsampled Gaussian's Rényi divergence as a binomial sum in mpmath
at 40 digits, Balle et al.'s conversion written out, and an SGD-4 run trained again here.
"""

import math

import matplotlib
import mpmath
import numpy as np
import pytest

matplotlib.use("Agg")

from dplearn import accounting, renyi, training  # noqa: E402
from dplearn.figures import training as figures  # noqa: E402
from dplearn.figures.explorers import load_all  # noqa: E402

MPMATH_DIGITS = 40  # each test's mpmath precision (tests/conftest.py)
EXPLORERS = load_all()
PLD = r"$\varepsilon$ by PLD"
PLD_CURVE = r"$\varepsilon$ by PLD ($h = 10^{-3}$)"
RDP = r"$\varepsilon$ by RDP"
MNIST_RATE = 256 / 60000


def dp_accounting_pld_epsilon(rate, sigma, steps, delta):
    """dp_accounting's PLD accountant (h = 1e-4, pessimistic, add or remove one)."""
    from dp_accounting import dp_event
    from dp_accounting.pld import pld_privacy_accountant

    accountant = pld_privacy_accountant.PLDAccountant(value_discretization_interval=1e-4)
    event = dp_event.PoissonSampledDpEvent(rate, dp_event.GaussianDpEvent(sigma))
    accountant.compose(dp_event.SelfComposedDpEvent(event, steps))
    return accountant.get_epsilon(delta)


def dp_accounting_rdp_epsilon(rate, sigma, steps, delta, orders):
    from dp_accounting import dp_event
    from dp_accounting.rdp import rdp_privacy_accountant

    accountant = rdp_privacy_accountant.RdpAccountant(orders=list(orders))
    event = dp_event.PoissonSampledDpEvent(rate, dp_event.GaussianDpEvent(sigma))
    accountant.compose(dp_event.SelfComposedDpEvent(event, steps))
    return accountant.get_epsilon(delta)


def subsampled_gaussian_rdp(rate, sigma, alpha):
    """D_alpha of the mixture (1 - q) N(0, s^2) + q N(1, s^2) against N(0, s^2), integer
    alpha: ln sum_k C(alpha, k) (1 - q)^(alpha - k) q^k e^((k^2 - k) / (2 s^2)) / (alpha - 1)."""
    q, s = mpmath.mpf(rate), mpmath.mpf(sigma)
    total = mpmath.fsum(
        mpmath.binomial(alpha, k)
        * (1 - q) ** (alpha - k)
        * q**k
        * mpmath.exp((k * k - k) / (2 * s**2))
        for k in range(alpha + 1)
    )
    return mpmath.log(total) / (alpha - 1)


def test_the_four_figures_are_registered():
    assert [EXPLORERS[f"SGD-{n}"] for n in range(1, 5)] == [
        figures.EpsilonAgainstEpochs,
        figures.RenyiDivergences,
        figures.RenyiAgainstPLD,
        figures.TrainingRun,
    ]
    # The sliders that need a new accountant run update when released.
    for name in ("sigma", "batch_size", "delta"):
        slider = figures.EpsilonAgainstEpochs.controls[name].slider(
            figures.EpsilonAgainstEpochs.defaults[name]
        )
        assert slider.continuous_update is False, name
    epochs = figures.EpsilonAgainstEpochs.controls["epochs"].slider(60)
    assert epochs.continuous_update is True


# SGD-1 -----------------------------------------------------------------------------------


def test_sgd1_prints_the_documents_numbers():
    figure = figures.EpsilonAgainstEpochs()
    numbers = figure.numbers()
    assert numbers["steps $T$"] == "14,063"
    assert numbers["sampling rate $q$"] == MNIST_RATE
    assert round(numbers[PLD], 2) == 2.38
    # dp_accounting's pessimistic value at h = 1e-4: 2.38178.
    assert numbers[PLD] == pytest.approx(2.38178, abs=2e-5)
    assert numbers[PLD] == pytest.approx(
        dp_accounting_pld_epsilon(MNIST_RATE, 1.1, 14063, 1e-5), rel=1e-4
    )
    figure.update(epochs=15)
    numbers = figure.numbers()
    assert numbers["steps $T$"] == "3,516"
    assert round(numbers[PLD], 3) == 1.134


def test_sgd1_curve_runs_through_the_accountants_values_and_marks_the_slider():
    figure = figures.EpsilonAgainstEpochs(epochs=20, sigma=0.8, batch_size=512, delta=1e-6)
    x, y = (np.asarray(v) for v in figure.curve.get_data())
    np.testing.assert_array_equal(x, figures.EPOCH_GRID)
    rate = 512 / 60000
    for epochs, value in zip(x[[0, 3, 6]], y[[0, 3, 6]], strict=True):
        steps = math.ceil(epochs * 60000 / 512)
        assert value == pytest.approx(dp_accounting_pld_epsilon(rate, 0.8, steps, 1e-6), rel=2e-4)
    assert np.all(np.diff(y) > 0)
    mark_x, mark_y = figure.mark.get_data()
    assert mark_x[0] == 20 and mark_y[0] == pytest.approx(figure.numbers()[PLD])
    assert figure.numbers()["steps $T$"] == f"{math.ceil(20 * 60000 / 512):,}"


def test_sgd1_epochs_moves_need_no_new_curve(monkeypatch):
    figure = figures.EpsilonAgainstEpochs()
    figure.update(epochs=30)
    calls = []
    original = figures.pld_curve

    def counted(*args):
        calls.append(args)
        return original(*args)

    monkeypatch.setattr(figures, "pld_curve", counted)
    for epochs in (31, 45, 60):
        figure.update(epochs=epochs)
    assert {args for args in calls} == {(MNIST_RATE, 1.1, 1e-5)}
    # The curve itself is cached: the same object on every move.
    assert original(MNIST_RATE, 1.1, 1e-5)[1] is original(MNIST_RATE, 1.1, 1e-5)[1]


# SGD-2 -----------------------------------------------------------------------------------


def test_sgd2_one_step_is_the_binomial_sum_and_t_steps_add():
    figure = figures.RenyiDivergences(alpha=8.0, sigma=1.1, batch_size=256, epochs=60)
    orders, one = (np.asarray(v) for v in figure.one.get_data())
    _, many = (np.asarray(v) for v in figure.many.get_data())
    _, gaussian = (np.asarray(v) for v in figure.gaussian.get_data())
    for alpha in (2, 5, 8, 12, 32):
        index = int(np.flatnonzero(orders == alpha)[0])
        expected = float(subsampled_gaussian_rdp(MNIST_RATE, 1.1, alpha))
        assert one[index] == pytest.approx(expected, rel=1e-9)
        if 14063 * expected < figure.divergence_limits[1]:
            assert many[index] == pytest.approx(14063 * expected, rel=1e-9)
    np.testing.assert_allclose(gaussian, orders / (2 * 1.1**2), rtol=1e-14)
    # Subsampling never raises D_alpha above the Gaussian's.
    assert np.all(one <= gaussian * (1 + 1e-12))
    numbers = figure.numbers()
    assert numbers[r"$D_\alpha$, one step"] == pytest.approx(
        float(subsampled_gaussian_rdp(MNIST_RATE, 1.1, 8)), rel=1e-9
    )
    assert numbers[r"$D_\alpha$, $T$ steps"] == pytest.approx(
        14063 * numbers[r"$D_\alpha$, one step"], rel=1e-12
    )


def test_sgd2_per_order_epsilon_is_the_conversion_and_the_best_is_the_accountants():
    figure = figures.RenyiDivergences()
    orders, per_order = (np.asarray(v) for v in figure.epsilons.get_data())
    _, many = (np.asarray(v) for v in figure.many.get_data())
    one = figures._one_step_rdp(MNIST_RATE, 1.1)
    for index in (3, 40, 70, 100, 120):
        rho = mpmath.mpf(float(14063 * one[index]))
        alpha = mpmath.mpf(float(orders[index]))
        expected = (
            rho
            + mpmath.log(1 - 1 / alpha)
            - (mpmath.log(mpmath.mpf("1e-5")) + mpmath.log(alpha)) / (alpha - 1)
        )
        if expected < figure.epsilon_limits[1]:
            assert per_order[index] == pytest.approx(float(expected), rel=1e-9)
        assert figures.conversion([orders[index]], [14063 * one[index]], 1e-5)[0] == (
            pytest.approx(renyi.to_epsilon([orders[index]], [14063 * one[index]], 1e-5), rel=1e-12)
        )
    numbers = figure.numbers()
    assert numbers[r"$\varepsilon$ reported (at $\alpha^*$)"] == pytest.approx(2.5967, abs=1e-4)
    their = dp_accounting_rdp_epsilon(MNIST_RATE, 1.1, 14063, 1e-5, renyi.DEFAULT_ORDERS)
    assert numbers[r"$\varepsilon$ reported (at $\alpha^*$)"] == pytest.approx(their, rel=1e-6)
    assert numbers[r"best order $\alpha^*$"] == pytest.approx(8.1)


def test_the_vectorised_conversion_is_the_cores_one_order_at_a_time():
    rng = np.random.default_rng(4)
    alphas = np.concatenate(([1.01, 1.05, 1.1, 2.0, 64.0, 1024.0], rng.uniform(1.0, 300.0, 40)))
    values = np.concatenate(([0.5, 1e-12, 3.0, 0.0, 40.0, np.inf], rng.lognormal(-2, 3, 40)))
    for delta in (1e-5, 0.3):
        mine = figures.conversion(alphas, values, delta)
        for alpha, value, epsilon in zip(alphas, values, mine, strict=True):
            expected = renyi.to_epsilon([alpha], [value], delta) if alpha > 1 else None
            assert epsilon == pytest.approx(expected, rel=1e-12, abs=0), (alpha, value, delta)


# SGD-3 -----------------------------------------------------------------------------------


def test_sgd3_prints_the_documents_numbers():
    numbers = figures.RenyiAgainstPLD().numbers()
    assert round(numbers[RDP], 4) == 2.5967
    assert round(numbers[PLD], 4) == 2.3818
    assert numbers["RDP reports more by"] == "9.0 %"
    other = figures.RenyiAgainstPLD(sigma=4.0, batch_size=600, epochs=100).numbers()
    assert other["steps $T$"] == "10,000"
    assert round(other[RDP], 4) == 1.0355
    assert round(other[PLD], 3) == 0.947
    assert other[PLD] == pytest.approx(dp_accounting_pld_epsilon(0.01, 4.0, 10000, 1e-5), rel=1e-4)
    assert other[RDP] == pytest.approx(
        dp_accounting_rdp_epsilon(0.01, 4.0, 10000, 1e-5, renyi.DEFAULT_ORDERS), rel=1e-6
    )


def test_sgd3_rdp_lies_above_the_pld_at_every_epoch_drawn():
    figure = figures.RenyiAgainstPLD(sigma=2.0, batch_size=1024)
    grid, pld = (np.asarray(v) for v in figure.pld.get_data())
    _, ratios = (np.asarray(v) for v in figure.ratio.get_data())
    assert np.all(ratios > 1)
    rate = 1024 / 60000
    for epochs, value, ratio in zip(grid, pld, ratios, strict=True):
        steps = training.steps_for_epochs(epochs, rate)
        rdp = figures.rdp_epsilon(rate, 2.0, steps, 1e-5)
        assert ratio == pytest.approx(rdp / value, rel=1e-12)


# SGD-4 -----------------------------------------------------------------------------------


def test_sgd4_draws_the_seeded_runs_and_they_can_be_trained_again():
    figure = figures.TrainingRun(epochs=12, sigma=3.0, batch_size=64, clip_norm=0.5)
    data = training.breast_cancer(rng=np.random.default_rng(figures.SPLIT_SEED))
    again = training.dp_sgd(
        data,
        sampling_rate=64 / data.size,
        noise_multiplier=3.0,
        clip_norm=0.5,
        epochs=figures.MAX_TRAINING_EPOCHS,
        learning_rate=figures.LEARNING_RATE,
        rng=np.random.default_rng(figures.RUN_SEED),
        grid_width=figures.CURVE_GRID_WIDTH,
    )
    x, accuracy = (np.asarray(v) for v in figure.private.get_data())
    np.testing.assert_array_equal(x, np.arange(1, 13))
    np.testing.assert_array_equal(accuracy, again.test_accuracy[:12])
    epsilons, tradeoff = (np.asarray(v) for v in figure.tradeoff.get_data())
    np.testing.assert_array_equal(tradeoff, again.test_accuracy[:12])
    np.testing.assert_allclose(epsilons, np.clip(again.epsilon[:12], *figure.epsilon_limits))
    numbers = figure.numbers()
    assert numbers["test accuracy, DP-SGD"] == again.test_accuracy[11]
    assert numbers[PLD_CURVE] == again.epsilon[11]
    # On the coarser grid: still above the default grid's value, within 0.5 %.
    for index in (0, 11):
        fine = accounting.dp_sgd_epsilon(64 / data.size, 3.0, int(again.steps[index]), 1e-5)
        assert fine * (1 - 1e-6) <= again.epsilon[index] <= fine * 1.005
    assert numbers["steps $T$"] == f"{training.steps_for_epochs(12, 64 / data.size):,}"
    plain = training.non_private_sgd(
        data,
        sampling_rate=64 / data.size,
        epochs=figures.MAX_TRAINING_EPOCHS,
        learning_rate=figures.LEARNING_RATE,
        rng=np.random.default_rng(figures.RUN_SEED),
    )
    _, baseline = figure.baseline.get_data()
    np.testing.assert_array_equal(baseline, plain.test_accuracy[:12])
    assert numbers["test accuracy, non-private"] == plain.test_accuracy[11]
    assert numbers[RDP] > numbers[PLD_CURVE]


def test_sgd4_more_noise_costs_accuracy_and_buys_privacy():
    quiet = figures.TrainingRun(sigma=0.8).numbers()
    loud = figures.TrainingRun(sigma=20.0).numbers()
    assert loud[PLD_CURVE] < 0.5 < 5 < quiet[PLD_CURVE]
    assert loud["test accuracy, DP-SGD"] < quiet["test accuracy, DP-SGD"]
    assert quiet["test accuracy, non-private"] >= 0.95


def test_sgd4_epochs_and_clipping_moves_reuse_the_cached_runs(monkeypatch):
    figure = figures.TrainingRun()
    calls = []
    original = figures.training.dp_sgd

    def counted(*args, **kwargs):
        calls.append(kwargs)
        return original(*args, **kwargs)

    monkeypatch.setattr(figures.training, "dp_sgd", counted)
    for epochs in (1, 10, 40, 30):
        figure.update(epochs=epochs)
    assert calls == []
    figure.update(clip_norm=2.0)
    assert len(calls) == 1
