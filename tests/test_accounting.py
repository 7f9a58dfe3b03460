"""DP-SGD accounting: the PLD bracket around exact values, dp_accounting's PLD and RDP
accountants as oracles, and the numbers lesson 11 quotes (docs/figures.md, SGD-1, SGD-3)."""

import logging
import sys
import warnings

import numpy as np
import pytest

from dplearn import accounting, privacy_loss, subsampling
from tests.test_composition import EXTENDED_REFERENCE, composition_errors

RATE = 256 / 60000
EPOCH_STEPS = {15: 3516, 60: 14063}


def test_the_lesson_numbers():
    # SGD-1: 60 epochs at h = 1e-4 is dp_accounting's pessimistic 2.38178; 15 epochs 1.134.
    epsilon = accounting.dp_sgd_epsilon(RATE, 1.1, 14063, 1e-5)
    assert epsilon == pytest.approx(2.38178, abs=5e-6)
    assert accounting.dp_sgd_epsilon(RATE, 1.1, 14063, 1e-5, grid_width=1e-3) == pytest.approx(
        2.39062, abs=5e-6
    )
    assert accounting.dp_sgd_epsilon(RATE, 1.1, 3516, 1e-5) == pytest.approx(1.134, abs=5e-4)
    # SGD-3: RDP 2.5967 against PLD 2.3818 (9 % more); sigma = 4, q = 0.01, 10,000 steps.
    rdp = accounting.dp_sgd_epsilon(RATE, 1.1, 14063, 1e-5, method="rdp")
    assert rdp == pytest.approx(2.5967, abs=5e-5)
    assert rdp / epsilon - 1 == pytest.approx(0.09, abs=0.005)
    assert accounting.dp_sgd_epsilon(0.01, 4.0, 10000, 1e-5, method="rdp") == pytest.approx(
        1.0355, abs=5e-5
    )
    assert accounting.dp_sgd_epsilon(0.01, 4.0, 10000, 1e-5) == pytest.approx(0.947, abs=5e-4)


def test_against_dp_accounting():
    import dp_accounting
    from dp_accounting.pld import privacy_loss_distribution

    logging.getLogger().setLevel(logging.ERROR)
    for rate, sigma, steps in [(RATE, 1.1, 14063), (0.01, 4.0, 10000), (0.05, 0.9, 300)]:
        event = dp_accounting.PoissonSampledDpEvent(rate, dp_accounting.GaussianDpEvent(sigma))
        # At fractional orders dp_accounting's series can be 1e-3 high (alpha = 3.2 for
        # the third setting, where ours agrees with mpmath to 1e-14, tests/test_renyi.py):
        # default orders where its optimum is an order it computes well, integers else.
        orders = None if steps >= 10000 else list(range(2, 65))
        rdp = dp_accounting.rdp.RdpAccountant(orders)
        rdp.compose(event, steps)
        assert accounting.dp_sgd_epsilon(
            rate, sigma, steps, 1e-5, method="rdp", orders=orders
        ) == pytest.approx(rdp.get_epsilon(1e-5), rel=1e-6)
        for grid_width in (1e-3, 1e-4) if steps < 14063 else (1e-3,):
            pld = dp_accounting.pld.PLDAccountant(value_discretization_interval=grid_width)
            pld.compose(event, steps)
            theirs = pld.get_epsilon(1e-5)
            # The same connect-the-dots PLD: the same pessimistic epsilon but for the tails
            # each library cuts.
            ours = accounting.dp_sgd_epsilon(rate, sigma, steps, 1e-5, grid_width=grid_width)
            assert ours == pytest.approx(theirs, rel=2e-6)
            optimistic = privacy_loss_distribution.from_gaussian_mechanism(
                sigma,
                sampling_prob=rate,
                value_discretization_interval=grid_width,
                pessimistic_estimate=False,
            ).self_compose(steps)
            bracket = accounting.dp_sgd_bracket(rate, sigma, steps, 1e-5, grid_width=grid_width)
            # Both brackets hold the exact epsilon: they overlap, and ours is no wider (but
            # for the 1e-7 relative between the two pessimistic values).
            their_optimistic = optimistic.get_epsilon_for_delta(1e-5)
            assert bracket.optimistic <= theirs
            assert their_optimistic <= bracket.pessimistic
            assert bracket.width <= (theirs - their_optimistic) * (1 + 1e-6)


@pytest.mark.parametrize(
    ("sigma", "steps"), [(1.0, 1), (1.0, 10), (3.0, 100), (0.7, 1000), (30.0, 5000)]
)
def test_rate_one_brackets_the_exact_composed_gaussian(sigma, steps):
    # Without subsampling, T steps are one Gaussian of sigma / sqrt(T): exact.
    exact = privacy_loss.gaussian(sigma / np.sqrt(steps)).epsilon_for_delta(1e-5)
    bracket = accounting.dp_sgd_bracket(1.0, sigma, steps, 1e-5, grid_width=1e-3)
    assert bracket.optimistic <= exact <= bracket.pessimistic
    assert bracket.pessimistic - exact <= 1e-3 * np.sqrt(steps)


@pytest.mark.parametrize(
    ("rate", "sigma"), [(0.01, 1.0), (0.3, 0.8), (0.9, 2.0), (0.999, 1.0), (RATE, 1.1)]
)
def test_one_step_brackets_the_exact_subsampled_gaussian(rate, sigma):
    exact = subsampling.poisson(privacy_loss.gaussian(sigma), rate).epsilon_for_delta(1e-5)
    for grid_width in (1e-2, 1e-3):
        bracket = accounting.dp_sgd_bracket(rate, sigma, 1, 1e-5, grid_width=grid_width)
        assert bracket.optimistic <= exact <= bracket.pessimistic
        assert bracket.width <= grid_width


def test_finer_grids_narrow_the_bracket_around_the_same_value():
    wide = accounting.dp_sgd_bracket(RATE, 1.1, 3516, 1e-5, grid_width=1e-3)
    narrow = accounting.dp_sgd_bracket(RATE, 1.1, 3516, 1e-5, grid_width=1e-4)
    assert narrow.width < wide.width
    assert max(wide.optimistic, narrow.optimistic) <= min(wide.pessimistic, narrow.pessimistic)


def test_epsilon_grows_with_steps_and_falls_with_noise():
    steps = [1, 10, 100, 1000, 5000]
    values = [accounting.dp_sgd_epsilon(0.01, 1.0, t, 1e-6, grid_width=1e-3) for t in steps]
    assert np.all(np.diff(values) > 0)
    sigmas = [0.6, 1.0, 2.0, 5.0]
    values = [accounting.dp_sgd_epsilon(0.01, s, 1000, 1e-6, grid_width=1e-3) for s in sigmas]
    assert np.all(np.diff(values) < 0)


def test_bad_input_is_named():
    good = dict(sampling_rate=0.01, noise_multiplier=1.0, steps=100, delta=1e-5)
    for name, bad in [
        ("sampling_rate", 0.0),
        ("sampling_rate", 1.2),
        ("noise_multiplier", -1.0),
        ("noise_multiplier", np.nan),
        ("steps", 0),
        ("steps", 2.5),
        ("delta", 0.0),
        ("delta", 1.0),
    ]:
        with pytest.raises(ValueError, match=name):
            accounting.dp_sgd_epsilon(**{**good, name: bad})
        with pytest.raises(ValueError, match=name):
            accounting.dp_sgd_bracket(**{**good, name: bad})
    with pytest.raises(ValueError, match="method"):
        accounting.dp_sgd_epsilon(**good, method="prv")
    with pytest.raises(ValueError, match="orders"):
        accounting.dp_sgd_epsilon(**good, method="rdp", orders=[0.5, 2])
    with pytest.raises(ValueError, match="orders"):
        accounting.dp_sgd_epsilon(**good, orders=[2, 3])
    with pytest.raises(ValueError, match="grid_width"):
        accounting.dp_sgd_epsilon(**good, grid_width=0.0)


def test_a_slider_move_on_steps_reuses_the_one_step_pld(monkeypatch):
    # What makes a move of SGD's steps slider fast (timed by `bash tasks.sh bench`, not
    # here: a busy machine would fail a clock): the one-step PLDs and their transforms
    # are built once, and moving the number of steps builds none again (only the inverse
    # transform of each new run is taken).
    engine = sys.modules["dplearn.composition._fft"]
    accounting.dp_sgd_bracket(RATE, 1.1, 14063, 1e-5)
    cached = (
        accounting._direction_range,
        accounting._connect_the_dots_step,
        accounting._one_step,
        accounting._row,
    )
    built = [function.cache_info().misses for function in cached]
    transforms = []
    transform = engine.transform
    monkeypatch.setattr(
        engine,
        "transform",
        lambda *args, **kwargs: transforms.append(1) or transform(*args, **kwargs),
    )
    inverses = []
    inverse = engine.inverse
    monkeypatch.setattr(
        engine, "inverse", lambda *args, **kwargs: inverses.append(1) or inverse(*args, **kwargs)
    )
    for steps in range(14000, 14010):
        accounting.dp_sgd_bracket(RATE, 1.1, steps, 1e-5)
    assert [function.cache_info().misses for function in cached] == built
    assert not transforms and inverses


def test_no_warnings_and_finite_at_extremes():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for rate, sigma, steps in [
            (1e-6, 0.5, 10),
            (1.0, 50.0, 3),
            (0.5, 0.3, 2),
            (0.01, 1e3, 10**5),
        ]:
            bracket = accounting.dp_sgd_bracket(rate, sigma, steps, 1e-6, grid_width=1e-2)
            assert 0.0 <= bracket.optimistic <= bracket.pessimistic < np.inf
            assert np.isfinite(accounting.dp_sgd_epsilon(rate, sigma, steps, 1e-6, method="rdp"))


@pytest.mark.parametrize(("rate", "sigma"), [(RATE, 1.1), (0.01, 4.0), (0.2, 0.8)])
def test_mean_preserving_rounding_keeps_the_mean_loss(rate, sigma):
    """The lower bound's one-step PLD has the exact mean loss (the KL divergence, by mpmath),
    never more: its rounding errors have mean <= 0."""
    import mpmath

    q, s = mpmath.mpf(rate), mpmath.mpf(sigma)
    with mpmath.workdps(30):

        def integrand(o):
            mixture = (1 - q) * mpmath.npdf(o, 0, s) + q * mpmath.npdf(o, 1, s)
            return mixture * mpmath.log(1 - q + q * mpmath.exp((2 * o - 1) / (2 * s**2)))

        exact = float(mpmath.quad(integrand, [-mpmath.inf, -10 * s, 0, 1, 10 * s, mpmath.inf]))
    for grid_width in (1e-3, 1e-4):
        step = accounting._one_step(rate, sigma, grid_width, "remove")
        losses = (step.lowest + np.arange(step.balanced.size)) * grid_width
        mean = float(np.dot(step.balanced, losses))
        rounded_down = float(np.dot(step.optimistic, losses))
        assert mean <= exact + 1e-15
        # Within the margin on the up-probabilities (1e-7 h) and the cells rounded down.
        assert exact - mean <= 1e-3 * (exact - rounded_down) + 1e-7 * grid_width


def test_one_engine_transforms_every_pld():
    # Lesson 09's PLDs and lesson 11's DP-SGD runs are composed by the same code: the
    # package takes Fourier transforms in two places only, composition._fft's transform
    # and inverse (DCTs of the exact Laplace law's interpolation are no composition).
    import ast
    import pathlib

    package = pathlib.Path(accounting.__file__).parent
    transforms = {"fft", "ifft", "rfft", "irfft", "rfftn", "irfftn", "fftn", "ifftn", "hfft"}
    found = set()
    for path in package.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for function in ast.walk(tree):
            if not isinstance(function, ast.FunctionDef):
                continue
            for node in ast.walk(function):
                if (
                    isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Attribute)
                    and node.func.attr in transforms
                ):
                    found.add((path.relative_to(package).as_posix(), function.name))
    assert found == {("composition/_fft.py", "transform"), ("composition/_fft.py", "inverse")}


# ----------------------------------------------------------------------------------------
# The lower end: a true lower bound, as narrow as prv_accountant's +-0.01
# ----------------------------------------------------------------------------------------

LESSON_11_RUN = (RATE, 1.1, 14063, 1e-5)


def test_the_lower_end_is_within_two_hundredths_of_the_upper_one():
    # Lesson 11's 60 epochs: the pessimistic end is dp_sgd_epsilon's value, unchanged, and
    # the lower end (mean-keeping rounding on h / 3, Bernstein's eta) lies within 0.02.
    bracket = accounting.dp_sgd_bracket(*LESSON_11_RUN)
    assert bracket.pessimistic == accounting.dp_sgd_epsilon(*LESSON_11_RUN)
    assert bracket.pessimistic == pytest.approx(2.38177935, abs=5e-8)
    assert 0.0 < bracket.width <= 0.02
    assert bracket.width == bracket.pessimistic - bracket.optimistic
    assert bracket.grid_width == 1e-4


def test_the_rounding_eta_is_half_the_textbook_one_or_less():
    # Hoeffding given the exact losses: ranges h, not 2h, so eta = h sqrt(T ln(1/beta) / 2);
    # Bernstein from the variance (about h^2 / 6) is smaller still at many steps.
    steps, grid_width, beta = 14063, 1e-4, 1e-12
    textbook = grid_width * np.sqrt(2 * steps * np.log(1 / beta))
    assert accounting._rounding_eta(steps, grid_width, grid_width**2 / 4, 0.0, beta) == (
        pytest.approx(textbook / 2, rel=1e-12)
    )
    step = accounting._one_step(RATE, 1.1, grid_width, "remove")
    assert grid_width**2 / 6 < step.rounding_variance < grid_width**2 / 5.9
    assert 0.0 <= step.rounding_bias <= 1e-6
    with_variance = accounting._rounding_eta(
        steps, grid_width, step.rounding_variance, step.rounding_bias, beta
    )
    assert with_variance < 0.85 * textbook / 2


@pytest.mark.parametrize(("rate", "sigma"), [(0.3, 0.8), (RATE, 1.1)])
def test_the_rounding_variance_bounds_a_fine_integral(rate, sigma):
    # E[u (1 - u)] h^2, u the place of the exact loss in its cell, by the trapezoid rule
    # on 2 million points in z (relative error ~1e-5): the quadrature's bound is above it.
    grid_width = 1e-2
    pair = subsampling.poisson(privacy_loss.gaussian(sigma), rate)
    r = 1 / sigma
    z = np.linspace(-12.0, 12.0 + r, 2_000_001)
    density = (1 - rate) * np.exp(-z * z / 2) + rate * np.exp(-((z - r) ** 2) / 2)
    density /= np.sqrt(2 * np.pi)
    loss = np.logaddexp(np.log1p(-rate), np.log(rate) + r * z - r * r / 2)
    place = loss / grid_width - np.floor(loss / grid_width)
    spread = np.trapezoid(density * place * (1 - place), z) * grid_width**2
    step = accounting._one_step(rate, sigma, grid_width, "remove")
    assert pair.remove.max_loss > 0
    assert spread <= step.rounding_variance <= spread * (1 + 2e-3) + 1e-12


@pytest.mark.parametrize("steps", [1, 2, 3, 5, 10, 20, 200, 3000])
@pytest.mark.parametrize("sigma", [0.8, 3.0])
def test_rate_one_lower_ends_lie_below_the_exact_epsilon(steps, sigma):
    # Without subsampling the run is one Gaussian of sigma / sqrt(T): its epsilon in closed
    # form (to ~1e-12). Both lower bounds (rounding down on h / 2 and the mean-keeping
    # one, whichever the bracket takes) lie below it, with no tolerance but 1e-12.
    exact = privacy_loss.gaussian(sigma / np.sqrt(steps)).epsilon_for_delta(1e-5)
    for grid_width in (1e-2, 1e-3):
        bracket = accounting.dp_sgd_bracket(1.0, sigma, steps, 1e-5, grid_width=grid_width)
        assert bracket.optimistic <= exact + 1e-12 <= bracket.pessimistic + 2e-12
        balanced = accounting._balanced_lower_epsilon(1.0, sigma, steps, 1e-5, grid_width, "remove")
        assert balanced <= exact + 1e-12
        # ... and within the rounding's eta (plus its beta's cost) of it.
        assert exact - balanced <= 0.05 + 3 * grid_width * np.sqrt(steps)


def _mp_hockey(x, rate, sigma, side):
    """One step's delta(x) in one direction, for any real x, at mpmath's precision."""
    import mpmath

    q, s = mpmath.mpf(rate), mpmath.mpf(sigma)
    tail = lambda t: mpmath.ncdf(-t)  # noqa: E731
    e = mpmath.exp(x)
    if side == "remove":  # P = (1 - q) N(0, s^2) + q N(1, s^2), Q = N(0, s^2)
        if e <= 1 - q:
            return 1 - e
        cut = s**2 * mpmath.log((e - (1 - q)) / q) + mpmath.mpf(1) / 2  # L > x: o > cut
        return (1 - q) * tail(cut / s) + q * tail((cut - 1) / s) - e * tail(cut / s)
    if 1 / e <= 1 - q:  # P = N(0, s^2), Q = (1 - q) N(0, s^2) + q N(1, s^2)
        return mpmath.mpf(0)
    cut = s**2 * mpmath.log((1 / e - (1 - q)) / q) + mpmath.mpf(1) / 2  # L > x: o < cut
    return mpmath.ncdf(cut / s) - e * (
        (1 - q) * mpmath.ncdf(cut / s) + q * mpmath.ncdf((cut - 1) / s)
    )


def _mp_two_step_delta(epsilon, rate, sigma, side):
    """delta(epsilon) of two steps: E over the first output of one step's delta(epsilon - L)."""
    import mpmath

    q, s = mpmath.mpf(rate), mpmath.mpf(sigma)
    sign = 1 if side == "remove" else -1

    def integrand(o):
        ratio = 1 - q + q * mpmath.exp((2 * o - 1) / (2 * s**2))
        density = (
            (1 - q) * mpmath.npdf(o, 0, s) + q * mpmath.npdf(o, 1, s)
            if side == "remove"
            else mpmath.npdf(o, 0, s)
        )
        return density * _mp_hockey(epsilon - sign * mpmath.log(ratio), rate, sigma, side)

    # Split where the inner delta's argument crosses the smallest (largest) loss of the
    # direction: the integrand's second derivative jumps there.
    edge = epsilon - sign * mpmath.log(1 - q)
    ratio = mpmath.exp(sign * edge)
    points = [-mpmath.inf, -12 * s, -3 * s, 0, 1, 3 * s, 12 * s, mpmath.inf]
    if ratio > 1 - q:
        points.append(s**2 * mpmath.log((ratio - (1 - q)) / q) + mpmath.mpf(1) / 2)
    return mpmath.quad(integrand, sorted(points))


@pytest.mark.parametrize(("rate", "sigma"), [(0.3, 0.8), (0.05, 0.6)])
def test_two_step_lower_ends_lie_below_mpmaths_exact_epsilon(rate, sigma):
    # Two steps of the subsampled Gaussian at 50 digits (a one-dimensional integral of the
    # one-step delta in closed form): delta at each lower end is at least the target (so
    # the exact epsilon is not below it) and at the upper end at most the target.
    import mpmath

    delta = 1e-5
    with mpmath.workdps(50):
        bracket = accounting.dp_sgd_bracket(rate, sigma, 2, delta, grid_width=1e-3)
        for side in ("remove", "add"):
            balanced = accounting._balanced_lower_epsilon(rate, sigma, 2, delta, 1e-3, side)
            assert _mp_two_step_delta(balanced, rate, sigma, side) >= delta
            assert _mp_two_step_delta(bracket.pessimistic, rate, sigma, side) <= delta
        assert (
            max(
                _mp_two_step_delta(bracket.optimistic, rate, sigma, side)
                for side in ("remove", "add")
            )
            >= delta
        )


@pytest.mark.parametrize(("rate", "sigma"), [(0.3, 0.8), (RATE, 1.1)])
def test_one_step_mean_keeping_lower_ends_lie_below_the_exact_epsilon(rate, sigma):
    # One step: the exact epsilon in closed form (dplearn.subsampling, checked against
    # mpmath in tests/test_subsampling.py); the mean-keeping bound of each side below it.
    pair = subsampling.poisson(privacy_loss.gaussian(sigma), rate)
    for side, direction in (("remove", pair.remove), ("add", pair.add)):
        exact = float(direction.epsilon_for_delta(1e-5))
        for grid_width in (1e-2, 1e-3, 1e-4):
            lower = accounting._balanced_lower_epsilon(rate, sigma, 1, 1e-5, grid_width, side)
            assert lower <= exact + 1e-12


def test_dp_accountings_pessimistic_value_lies_in_the_bracket():
    import dp_accounting

    logging.getLogger().setLevel(logging.ERROR)
    rate, sigma, steps, delta = LESSON_11_RUN
    event = dp_accounting.PoissonSampledDpEvent(rate, dp_accounting.GaussianDpEvent(sigma))
    pld = dp_accounting.pld.PLDAccountant(value_discretization_interval=1e-4)
    pld.compose(event, steps)
    theirs = pld.get_epsilon(delta)  # 2.3817788
    bracket = accounting.dp_sgd_bracket(*LESSON_11_RUN)
    # Within ours up to round-off (the two pessimistic values differ by 1e-7 relative).
    assert bracket.optimistic <= theirs <= bracket.pessimistic * (1 + 1e-6)


def test_prv_accountants_interval_overlaps_the_bracket():
    prv_accountant = pytest.importorskip("prv_accountant")
    rate, sigma, steps, delta = LESSON_11_RUN
    accountant = prv_accountant.PRVAccountant(
        prvs=prv_accountant.PoissonSubsampledGaussianMechanism(
            noise_multiplier=sigma, sampling_probability=rate
        ),
        max_self_compositions=steps,
        eps_error=0.01,
        delta_error=delta / 1000,
    )
    low, estimate, high = accountant.compute_epsilon(delta=delta, num_self_compositions=[steps])
    bracket = accounting.dp_sgd_bracket(*LESSON_11_RUN)
    assert low <= bracket.pessimistic and bracket.optimistic <= high
    # The same epsilon to the 0.01 prv_accountant promises, with a narrower interval.
    assert abs(estimate - bracket.pessimistic) <= 0.01
    assert bracket.width < high - low


@pytest.mark.skipif(not EXTENDED_REFERENCE, reason="long double is no finer than double here")
@pytest.mark.parametrize("rounding", [True, False, "balanced"])
def test_a_training_runs_round_off_stays_within_its_bound(rounding):
    # 14,063 steps raise the one-step transform to a power that multiplies its relative
    # round-off by 14,063; the Chernoff window holds no stretch of zeros that would show
    # it. Against the same cyclic composition in long double (h = 1e-3, so that the
    # reference is quick), each mass and their sum are within the bounds.
    rate, sigma, steps, grid_width = 256 / 60000, 1.1, 14_063, 1e-3
    accounting._grid_extent(rate, sigma, grid_width, "remove")
    row = accounting._row(rate, sigma, grid_width, "remove", rounding)
    low, high = accounting._window(row, steps, accounting._WINDOW_TAIL)
    # (Without the power's terms, with numpy's AVX-512 code, the bound on each mass was
    # up to 180 times too small here, and the bound on their sum 76 times.)
    errors, bounds, _ = composition_errors(row.distribution, steps, low, high - low + 1)
    assert errors[0] <= bounds[0] and errors[1] <= bounds[1]
