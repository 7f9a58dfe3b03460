"""The numerical core's contract, for any input.

Every public function of privacy_loss, calibration, mechanisms, sensitivity, optimality
and floating_point, called with parameters drawn over the whole float range (tiny,
huge, subnormal, near 0 and 1 for probabilities, inf, NaN) and with values of the wrong
type (strings, booleans, None, arrays where one number is expected), either

- returns a correct result: never NaN, in range, on the safe side for calibrations,
  the same for an element alone as inside an array; or
- raises a ValueError whose message names the parameter;

within a hard time limit per call, and with every warning an error. The accuracy of the
numbers themselves is checked against mpmath in the modules' own tests.

The examples are derandomized (the same ones on every run) and bounded in number, so
that the file stays quick beside the rest of the suite.
"""

from __future__ import annotations

import contextlib
import math
import signal
import warnings
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from dplearn import calibration, floating_point, mechanisms, optimality, privacy_loss, sensitivity

#: The contract promises well under a second per call on an idle machine (the benchmarks
#: measure it); this limit only catches a hang, so it leaves room for a machine whose
#: cores are shared many times over.
CALL_LIMIT = 30.0

settings.register_profile(
    "contract",
    max_examples=150,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
CONTRACT = settings.get_profile("contract")


class CallTimeout(AssertionError):
    """A call ran past CALL_LIMIT: the contract promises bounded time."""


@contextlib.contextmanager
def time_limit(seconds):
    """Interrupts the block with CallTimeout after ``seconds`` (SIGALRM, main thread)."""

    def interrupt(signum, frame):
        raise CallTimeout(f"call ran longer than {seconds} s")

    previous = signal.signal(signal.SIGALRM, interrupt)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def call(function, *args, names, **kwargs):
    """function(*args, **kwargs) under the contract: returns (result, None) or (None, error).

    Only a ValueError naming one of ``names`` is an acceptable failure; any other
    exception, any warning and any call longer than CALL_LIMIT fails the test.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with time_limit(CALL_LIMIT):
            try:
                return function(*args, **kwargs), None
            except ValueError as error:
                message = str(error)
                assert any(name in message for name in names), (
                    f"{function.__name__}: the message {message!r} names none of {names}"
                )
                return None, error


def check_array_matches_alone(function, values, result, **kwargs):
    """Each element gives, bit for bit, the answer it gets alone."""
    for value, element in zip(np.ravel(values), np.ravel(result), strict=True):
        alone, error = call(function, float(value), names=("",), **kwargs)
        assert error is None
        assert np.array_equal(alone, element, equal_nan=True), (value, alone, element)


def test_the_harness_catches_hangs_warnings_and_unnamed_errors():
    """The checks above can fail: a hang, a warning, an error naming nothing."""

    def hang():
        while True:
            pass

    with pytest.raises(CallTimeout):
        with time_limit(0.2):
            hang()
    with pytest.raises(RuntimeWarning):
        call(lambda: np.float64(1e308) * 10.0, names=("x",))
    with pytest.raises(AssertionError, match="names none of"):
        call(lambda: (_ for _ in ()).throw(ValueError("bad input")), names=("epsilon",))


# --- Strategies ------------------------------------------------------------------------

TINY = np.finfo(float).tiny
HUGE = np.finfo(float).max
EDGE_FLOATS = [
    0.0,
    -0.0,
    5e-324,
    1e-320,
    TINY,
    1e-300,
    1e-154,
    1e-30,
    1e-16,
    2.0**-53,
    1e-8,
    0.5,
    1.0 - 2.0**-53,
    1.0,
    1.0 + 2.0**-52,
    2.0,
    math.log(3),
    37.0,
    709.8,
    1e8,
    1e16,
    1e154,
    1e300,
    HUGE,
    math.inf,
    -math.inf,
    math.nan,
    -1.0,
    -1e-300,
]

#: Any double, with the edges of the float range drawn often.
any_float = st.one_of(st.sampled_from(EDGE_FLOATS), st.floats(allow_nan=True))
#: A positive finite double over the whole range, log-uniform-ish.
positive_float = st.one_of(
    st.sampled_from([x for x in EDGE_FLOATS if 0 < x < math.inf]),
    st.floats(min_value=5e-324, max_value=HUGE),
    st.floats(-320.0, 308.0).map(lambda power: 10.0**power),
)
#: A moderate positive number: what a lesson's slider offers, and a bit beyond.
moderate = st.floats(-8.0, 8.0).map(lambda power: 10.0**power)
#: A probability in (0, 1), with the ends drawn often (1e-300 and 1 - 1e-16 as well).
probability = st.one_of(
    st.sampled_from([5e-324, 1e-320, TINY, 1e-300, 1e-12, 0.5, 1 - 1e-12, 1 - 1e-14, 1 - 2**-53]),
    st.floats(0.0, 1.0, exclude_min=True, exclude_max=True),
    st.floats(-323.0, -0.01).map(lambda power: 10.0**power),
    st.floats(-16.0, -0.01).map(lambda power: 1.0 - 10.0**power),
)
#: Values that are not numbers at all, or not one number.
not_a_number = st.one_of(
    st.sampled_from(["1.0", "", "nan", b"1", True, False, np.True_, None, 1j, [1.0, 2.0]]),
    st.lists(st.floats(0.1, 10.0), min_size=2, max_size=3),
    st.text(max_size=3),
)
#: Every way of writing one number: Python and numpy scalars, 0-d arrays.
spellings = [float, np.float64, np.float32, np.asarray, lambda x: np.asarray([x]).reshape(())]


# --- Types: the same rules everywhere -------------------------------------------------

PAIR_MAKERS = [
    (privacy_loss.laplace, ("scale", "sensitivity")),
    (privacy_loss.gaussian, ("sigma", "sensitivity")),
    (privacy_loss.discrete_laplace, ("scale", "sensitivity")),
    (lambda scale, count: privacy_loss.thresholded_laplace(scale, 5.0, count), ("scale", "count")),
]

SCALAR_CALLS = [
    (calibration.laplace_scale, (1.0, 1.0), ("epsilon", "sensitivity")),
    (calibration.gaussian_sigma_classic, (1.0, 1e-5, 1.0), ("epsilon", "delta", "sensitivity")),
    (calibration.gaussian_sigma_analytic, (1.0, 1e-5, 1.0), ("epsilon", "delta", "sensitivity")),
    (calibration.classic_crossing_epsilon, (1e-5,), ("delta",)),
    (calibration.crossover_dimension, (1.0, 1e-5), ("epsilon", "delta")),
    (
        mechanisms.within_tolerance_probability,
        (1.0, 1.0, 5),
        ("epsilon", "sensitivity", "tolerance"),
    ),
    (mechanisms.central_interval, (5.0, 0.8), ("scale", "coverage")),
    (optimality.truncated_geometric, (4, 1.0), ("n", "epsilon")),
    (optimality.binomial_prior, (4, 0.3), ("n", "p")),
    (floating_point.textbook_laplace, (0.0, 1.0, [5]), ("value", "scale")),
    (floating_point.discrete_laplace_pmf, ([0, 1], 2.0), ("values", "scale")),
    (floating_point.discrete_gaussian_pmf, ([0, 1], 2.0), ("values", "sigma_squared")),
]


@pytest.mark.parametrize(("make", "names"), PAIR_MAKERS, ids=lambda x: getattr(x, "__name__", x))
@given(bad=not_a_number, position=st.integers(0, 1))
@CONTRACT
def test_pairs_reject_what_is_not_one_number(make, names, bad, position):
    args = [1.0, 1]
    args[position] = bad
    result, error = call(make, *args, names=(names[position],))
    assert error is not None, f"{make.__name__}{tuple(args)} accepted {bad!r}"


@pytest.mark.parametrize(("make", "names"), PAIR_MAKERS, ids=lambda x: getattr(x, "__name__", x))
@pytest.mark.parametrize("spell", spellings)
def test_pairs_accept_every_spelling_of_a_number(make, names, spell):
    reference = make(2.0, 1)
    pair = make(spell(2.0), spell(1) if make is not privacy_loss.discrete_laplace else 1)
    assert pair.delta(0.5) == reference.delta(0.5)


@pytest.mark.parametrize("spell", spellings)
def test_every_spelling_of_a_number_gives_the_same_answer(spell):
    # Values exact in float32 too, so that every spelling is the same number.
    for function, args in [
        (calibration.laplace_scale, (0.5, 2.0)),
        (calibration.gaussian_sigma_classic, (0.5, 0.25, 2.0)),
        (calibration.gaussian_sigma_analytic, (0.5, 0.25, 2.0)),
        (privacy_loss.gaussian_log_delta, (0.5, 0.25)),
        (floating_point.discrete_gaussian_pmf, (3.0, 2.0)),
    ]:
        assert function(*map(spell, args)) == function(*args), function.__name__
    matrix = optimality.truncated_geometric(3, spell(0.5))
    assert np.array_equal(matrix, optimality.truncated_geometric(3, 0.5))


@pytest.mark.parametrize(
    ("function", "args", "names"), SCALAR_CALLS, ids=lambda x: getattr(x, "__name__", repr(x))
)
@given(bad=not_a_number, position=st.integers(0, 2))
@CONTRACT
def test_bad_types_are_named(function, args, names, bad, position):
    position = min(position, len(names) - 1)
    args = list(args)
    if function in (floating_point.discrete_laplace_pmf, floating_point.discrete_gaussian_pmf):
        position = 1  # the values may be an array
    args[position] = bad
    result, error = call(function, *args, names=(names[position],))
    # Arrays are fine for the calibrations' parameters (curves), not for scalars elsewhere.
    vector_ok = function.__module__ == "dplearn.calibration" and isinstance(bad, list)
    if not vector_ok:
        assert error is not None, f"{function.__name__}{tuple(args)} accepted {bad!r}"


def test_documented_type_examples():
    """One of each: an array, a string, a boolean where one number is expected."""
    for call_ in [
        lambda: privacy_loss.gaussian([1.0, 2.0]),
        lambda: privacy_loss.gaussian("1.0"),
        lambda: privacy_loss.discrete_laplace(1.0, True),
    ]:
        with pytest.raises(ValueError, match="sigma|sensitivity"):
            call_()
    assert privacy_loss.gaussian(np.float32(2.0)).delta(1.0) == privacy_loss.gaussian(2.0).delta(
        1.0
    )
    assert privacy_loss.gaussian(np.array(2.0)).sigma == 2.0


# --- Privacy loss pairs ---------------------------------------------------------------

EPSILONS = np.array([0.0, 5e-324, 1e-300, 1e-12, 1e-3, 0.5, 1.0, 10.0, 1e3, 1e8, 1e300, math.inf])


def check_pair(pair, epsilons, probabilities, outputs, consistency=1e-13):
    names = ("epsilon", "delta", "p", "output")
    log_delta, error = call(pair.log_delta, epsilons, names=names)
    assert error is None
    delta, _ = call(pair.delta, epsilons, names=names)
    width, _ = call(pair.loss_exceeds, epsilons, names=names)
    assert not np.any(np.isnan(log_delta)) and np.all(log_delta <= 0)
    assert not np.any(np.isnan(delta)) and np.all((delta >= 0) & (delta <= 1))
    assert not np.any(np.isnan(width)) and np.all((width >= 0) & (width <= 1))
    with np.errstate(under="ignore"):
        np.testing.assert_allclose(delta, np.exp(log_delta), rtol=consistency, atol=0)
    # delta_1 >= delta_2, and both fall as epsilon grows.
    assert np.all(width >= delta * (1 - 1e-12))
    order = np.argsort(epsilons, kind="stable")
    sorted_log = log_delta[order]
    before, after = sorted_log[:-1], sorted_log[1:]
    finite = np.isfinite(before)
    rises = after[finite] - before[finite]
    assert np.all(np.isneginf(after[~finite]))
    assert np.all(rises <= 1e-12 * np.abs(before[finite]) + 1e-13), (pair, epsilons[order])
    for method, result in [
        (pair.log_delta, log_delta),
        (pair.delta, delta),
        (pair.loss_exceeds, width),
    ]:
        check_array_matches_alone(method, epsilons, result)

    quantiles, error = call(pair.loss_quantile, probabilities, names=names)
    assert error is None and not np.any(np.isnan(quantiles))
    check_array_matches_alone(pair.loss_quantile, probabilities, quantiles)
    bound = pair.max_loss
    assert np.all(quantiles <= bound) and np.all(quantiles[np.isfinite(quantiles)] >= -bound)

    if outputs.size == 0:
        return
    losses, error = call(pair.privacy_loss, outputs, names=names)
    if error is None:
        assert not np.any(np.isnan(losses))
        for density in (pair.density_d1, pair.density_d2):
            values, error = call(density, outputs, names=names)
            assert error is None and not np.any(np.isnan(values)) and np.all(values >= 0)


@given(
    scale=positive_float,
    sensitivity=positive_float,
    epsilons=st.lists(any_float.map(abs), min_size=1, max_size=4),
    probabilities=st.lists(st.one_of(probability, st.sampled_from([0.0, 1.0])), max_size=4),
    outputs=st.lists(st.floats(allow_nan=False, allow_infinity=False), max_size=4),
    family=st.sampled_from(["laplace", "gaussian", "discrete_laplace", "thresholded_laplace"]),
)
@CONTRACT
def test_pairs_at_any_parameters(scale, sensitivity, epsilons, probabilities, outputs, family):
    if family == "discrete_laplace":
        sensitivity = max(1.0, float(np.floor(min(sensitivity, 2.0**53))))
        outputs = [float(np.floor(x)) for x in outputs]
    make = getattr(privacy_loss, family)
    names = ("scale", "sigma", "sensitivity", "count")
    if family == "thresholded_laplace":
        pair, error = call(make, scale, 5.0, sensitivity, names=names)
    else:
        pair, error = call(make, scale, sensitivity, names=names)
    if error is not None:
        return
    epsilons = np.concatenate([EPSILONS, np.array(epsilons, dtype=float)])
    epsilons = epsilons[~np.isnan(epsilons)]
    check_pair(pair, epsilons, np.array(probabilities, dtype=float), np.array(outputs))


@given(
    family=st.sampled_from(["laplace", "gaussian", "discrete_laplace", "thresholded_laplace"]),
    scale=st.one_of(moderate, positive_float),
    delta=probability,
)
@CONTRACT
def test_epsilon_for_delta_is_safe(family, scale, delta):
    make = getattr(privacy_loss, family)
    arguments = (scale, 5.0) if family == "thresholded_laplace" else (scale,)
    pair, error = call(make, *arguments, names=("scale", "sigma"))
    if error is not None:
        return
    epsilon, error = call(pair.epsilon_for_delta, delta, names=("delta",))
    assert error is None
    assert epsilon >= 0 and not math.isnan(epsilon)
    if epsilon == math.inf:
        # No epsilon reaches delta: inf is the truth (a distinguishing event).
        assert pair.delta(HUGE) > delta
    else:
        assert pair.delta(epsilon) <= delta


@given(epsilon=any_float, ratio=any_float)
@CONTRACT
def test_gaussian_log_delta_at_any_ratio(epsilon, ratio):
    result, error = call(
        privacy_loss.gaussian_log_delta, epsilon, ratio, names=("epsilon", "ratio")
    )
    if error is None:
        assert result <= 0 and not math.isnan(result)


def test_pairs_at_extreme_parameters():
    """discrete_laplace(1e-3, 1).delta(800) and gaussian(1e8)'s delta are numbers, not NaN
    (0 * inf, and two erfcx values rounded to a negative difference, would give NaN)."""
    assert privacy_loss.discrete_laplace(1e-3, 1).delta(800.0) == pytest.approx(1.0, rel=1e-15)
    pair = privacy_loss.gaussian(1e8)
    epsilons = np.geomspace(1e-12, 1e3, 200)
    log_deltas = pair.log_delta(epsilons)
    # delta itself underflows to 0 from epsilon = 1e-5 on; its log stays finite.
    assert np.all(np.isfinite(log_deltas)) and np.all(np.diff(log_deltas) < 0)
    assert np.all(pair.delta(epsilons) >= 0)


# --- Calibration ----------------------------------------------------------------------


@given(
    epsilon=st.one_of(positive_float, any_float),
    sensitivity=st.one_of(positive_float, any_float),
)
@example(epsilon=1.0, sensitivity=HUGE)
@CONTRACT
def test_laplace_scale_is_safe(epsilon, sensitivity):
    scale, error = call(
        calibration.laplace_scale, epsilon, sensitivity, names=("epsilon", "sensitivity")
    )
    if error is not None:
        return
    assert 0 < scale < math.inf
    pair = privacy_loss.laplace(scale, sensitivity)
    assert pair.max_loss <= epsilon and pair.delta(epsilon) == 0.0
    if scale >= TINY:
        assert scale == pytest.approx(sensitivity / epsilon, rel=4 * 2.0**-52)


@given(
    epsilon=st.one_of(positive_float, any_float),
    delta=st.one_of(probability, any_float),
    sensitivity=st.one_of(moderate, positive_float),
)
@CONTRACT
def test_classic_sigma_is_finite_or_refused(epsilon, delta, sensitivity):
    sigma, error = call(
        calibration.gaussian_sigma_classic,
        epsilon,
        delta,
        sensitivity,
        names=("epsilon", "delta", "sensitivity"),
    )
    if error is None:
        assert 0 < sigma < math.inf


def check_analytic(epsilon, delta, sensitivity):
    sigma, error = call(
        calibration.gaussian_sigma_analytic,
        epsilon,
        delta,
        sensitivity,
        names=("epsilon", "delta", "sensitivity"),
    )
    if error is not None:
        return None
    assert 0 < sigma < math.inf
    pair = privacy_loss.gaussian(sigma, sensitivity)
    assert pair.delta(epsilon) <= delta, "the calibration must be on the safe side"
    assert pair.log_delta(epsilon) <= math.log(delta)
    if 1e-300 <= delta <= 0.5 and sigma > 1e-290 and sensitivity > 1e-290:
        # ... and not more than rounding above the smallest sigma.
        smaller = privacy_loss.gaussian(sigma * (1 - 1e-9), sensitivity)
        assert smaller.log_delta(epsilon) > math.log(delta)
    return sigma


@given(
    epsilon=st.one_of(positive_float, any_float),
    delta=st.one_of(probability, any_float),
    sensitivity=st.one_of(moderate, positive_float),
)
@CONTRACT
def test_analytic_sigma_is_safe_and_smallest(epsilon, delta, sensitivity):
    check_analytic(epsilon, delta, sensitivity)


@given(
    epsilons=st.lists(st.one_of(moderate, positive_float), min_size=2, max_size=5),
    delta=probability,
)
@CONTRACT
def test_analytic_sigma_of_an_element_alone_equals_it_in_an_array(epsilons, delta):
    epsilons = np.array(epsilons)
    curve, error = call(
        calibration.gaussian_sigma_analytic, epsilons, delta, names=("epsilon", "delta")
    )
    if error is None:
        check_array_matches_alone(calibration.gaussian_sigma_analytic, epsilons, curve, delta=delta)


def test_calibrations_at_extreme_deltas():
    # The smallest delta: an overflowing start or an unbounded bracket loop would hang here
    # and flood warnings.
    sigma = check_analytic(1.0, 5e-324, 1.0)
    assert sigma == pytest.approx(38.3, rel=1e-2)
    # Within 1e-14 of 1, alone and beside other elements: the same, right answer.
    near_one = 1 - 1e-14
    alone = calibration.gaussian_sigma_analytic(1.0, near_one)
    inside = calibration.gaussian_sigma_analytic(np.array([1.0, 1e-6, 50.0]), near_one)
    assert inside[0] == alone
    complement = -math.expm1(privacy_loss.gaussian(alone).log_delta(1.0))
    assert complement == pytest.approx(1 - near_one, rel=1e-9)
    # No overflow warning, a clear error instead.
    with pytest.raises(ValueError, match="epsilon"):
        calibration.laplace_scale(1e-320)


# --- Mechanisms -----------------------------------------------------------------------


@given(
    value=st.one_of(any_float, st.integers(-(2**60), 2**60)),
    epsilon=st.one_of(positive_float, any_float),
    sensitivity=st.one_of(moderate, positive_float, st.integers(1, 2**60)),
    which=st.sampled_from(["laplace", "gaussian", "geometric", "inverse"]),
)
@CONTRACT
def test_mechanisms_return_noisy_finite_answers(value, epsilon, sensitivity, which):
    rng = np.random.default_rng(0)
    names = ("value", "epsilon", "delta", "sensitivity", "scale", "loc")
    if which == "laplace":
        result, error = call(
            mechanisms.laplace_mechanism, value, epsilon, sensitivity, rng=rng, names=names
        )
    elif which == "gaussian":
        result, error = call(
            mechanisms.gaussian_mechanism, value, epsilon, 1e-6, sensitivity, rng=rng, names=names
        )
    elif which == "geometric":
        result, error = call(
            mechanisms.geometric_mechanism, value, epsilon, sensitivity, rng=rng, names=names
        )
    else:
        result, error = call(
            mechanisms.sample_laplace_inverse_cdf, epsilon, value, rng=rng, size=3, names=names
        )
    if error is None:
        assert np.all(np.isfinite(result))


def test_geometric_mechanism_refuses_an_epsilon_it_cannot_sample():
    """With epsilon = 1e-30 both geometric draws saturated and the true value came back."""
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="epsilon"):
        mechanisms.geometric_mechanism(1000, 1e-30, rng=rng)
    # At the smallest epsilon accepted the noise is still noise: spread about 2**40.
    noise = mechanisms.geometric_mechanism(np.zeros(200, dtype=int), 2.0**-40, rng=rng)
    assert np.count_nonzero(noise) >= 199 and np.std(noise) > 2.0**38


# --- Optimality -----------------------------------------------------------------------


@given(
    n=st.one_of(st.integers(-2, 12), st.sampled_from([True, 2.0, 41, 10**6])),
    epsilon=st.one_of(moderate, any_float, st.sampled_from([10.0, 10.5])),
    loss=st.sampled_from([*optimality.LOSSES, "other"]),
)
@CONTRACT
def test_optimality_at_any_parameters(n, epsilon, loss):
    names = ("n", "epsilon", "loss", "prior", "tolerance")
    matrix, error = call(optimality.truncated_geometric, n, epsilon, names=names)
    if error is not None:
        return
    assert np.all((matrix >= 0) & (matrix <= 1))
    np.testing.assert_allclose(matrix.sum(axis=1), 1.0, rtol=1e-12)
    # exp(-epsilon) underflows beyond epsilon = 745: the off-diagonal answers become 0.
    assert optimality.is_differentially_private(matrix, epsilon) or epsilon > 745
    losses, error = call(optimality.loss_matrix, n, loss, names=names)
    if error is not None:
        return
    prior = optimality.uniform_prior(n)
    comparison, error = call(optimality.compare, prior, losses, epsilon, names=names)
    if error is None:
        assert comparison.optimal.expected_loss <= comparison.geometric.expected_loss + 1e-8
        assert abs(comparison.gap) < 1e-6
        assert optimality.is_differentially_private(comparison.optimal.matrix, epsilon, 1e-7)


@given(
    size=st.integers(1, 5),
    entries=st.lists(any_float, min_size=25, max_size=25),
    losses=st.lists(st.one_of(any_float, st.just(HUGE)), min_size=25, max_size=25),
    epsilon=any_float,
)
@example(size=2, entries=[0.5] * 25, losses=[HUGE, -HUGE, HUGE, HUGE] + [0.0] * 21, epsilon=1.0)
@example(size=2, entries=[0.5] * 25, losses=[HUGE] * 25, epsilon=1.0)
@CONTRACT
def test_mechanism_matrices_at_any_values(size, entries, losses, epsilon):
    """Any matrix: a ValueError naming it, or an answer (inf where the loss sum overflows)."""
    matrix = np.array(entries[: size * size]).reshape(size, size)
    if size > 1 and np.all(np.isfinite(matrix)):
        # Half the draws are made row-stochastic, so that the computations are reached.
        matrix = np.minimum(np.abs(matrix), 1e300) + 1.0
        matrix = matrix / matrix.sum(axis=1, keepdims=True)
    losses = np.array(losses[: size * size]).reshape(size, size)
    prior = np.full(size, 1.0 / size)
    names = ("matrix", "prior", "losses", "epsilon", "tolerance")
    for function, args in [
        (optimality.is_differentially_private, (matrix, epsilon)),
        (optimality.expected_loss, (matrix, prior, losses)),
        (optimality.best_remap, (matrix, prior, losses)),
    ]:
        result, error = call(function, *args, names=names)
        if error is None and function is optimality.expected_loss:
            assert not math.isnan(result)


def test_is_differentially_private_with_infinite_factors():
    matrix = optimality.truncated_geometric(3, 1.0)
    assert optimality.is_differentially_private(matrix, math.inf)
    assert optimality.is_differentially_private(matrix, 800.0)
    assert not optimality.is_differentially_private(np.eye(2), 800.0)


# --- Sensitivity ----------------------------------------------------------------------


@given(
    max_rows=st.one_of(st.integers(-1, 8), st.sampled_from([True, 2.0, "2", None])),
    min_rows=st.one_of(st.integers(-1, 3), st.just(False)),
    notion=st.sampled_from([*sensitivity.NOTIONS, "swap"]),
)
@example(max_rows=1, min_rows=1, notion="add-remove")
@settings(CONTRACT, max_examples=30)
def test_global_sensitivity_is_bounded(max_rows, min_rows, notion):
    result, error = call(
        sensitivity.global_sensitivity,
        sensitivity.count_blue_eyes,
        max_rows=max_rows,
        notion=notion,
        min_rows=min_rows,
        names=("max_rows", "min_rows", "notion"),
    )
    if error is None:
        assert result.l1 == 1.0 and 0 < result.pairs_checked <= sensitivity.MAX_PAIRS


# --- Floating point -------------------------------------------------------------------


@given(
    value=any_float,
    scale=st.one_of(positive_float, any_float),
    draws=st.lists(st.integers(0, floating_point.DRAW_COUNT - 1), min_size=1, max_size=4),
)
@CONTRACT
def test_textbook_sampler_at_any_parameters(value, scale, draws):
    names = ("value", "scale", "draws", "outputs")
    outputs, error = call(floating_point.textbook_laplace, value, scale, draws, names=names)
    if error is not None:
        return
    finite = np.array(draws) > 0
    assert np.all(np.isfinite(outputs[finite]))
    first, error = call(
        floating_point.first_draw_at_least, value, scale, outputs[finite], names=names
    )
    assert error is None
    assert np.all(first <= np.array(draws)[finite])
    reachable, error = call(floating_point.is_reachable, value, scale, outputs, names=names)
    assert error is None and np.all(reachable[finite])


@given(
    gamma=st.one_of(
        st.floats(allow_nan=True),
        st.fractions(min_value=0, max_value=50),
        st.sampled_from(["0.5", "x", True, None, 10**6, Fraction(1, 10**40)]),
    )
)
@CONTRACT
def test_bernoulli_exp_minus_at_any_gamma(gamma):
    result, error = call(
        floating_point.bernoulli_exp_minus, gamma, rng=np.random.default_rng(0), names=("gamma",)
    )
    assert error is not None or isinstance(result, bool)


@given(
    scale=st.one_of(
        st.fractions(min_value=Fraction(1, 10**30), max_value=10**6),
        st.sampled_from([2**50, 2**51, 0, -1, "2.5", "x", True, math.inf, math.nan, 1e-300]),
    ),
    which=st.sampled_from(["laplace", "gaussian"]),
)
@settings(CONTRACT, max_examples=40)
def test_exact_samplers_at_any_scale(scale, which):
    rng = np.random.default_rng(0)
    if which == "laplace":
        samples, error = call(
            floating_point.sample_discrete_laplace, scale, rng=rng, size=5, names=("scale",)
        )
    else:
        samples, error = call(
            floating_point.sample_discrete_gaussian,
            scale,
            rng=rng,
            size=5,
            names=("sigma_squared",),
        )
    if error is None:
        assert samples.dtype == np.int64 and samples.shape == (5,)


@given(
    values=st.lists(st.integers(-(10**6), 10**6), min_size=1, max_size=4),
    scale=st.one_of(positive_float, any_float),
)
@CONTRACT
def test_exact_pmfs_at_any_scale(values, scale):
    for pmf, name in [
        (floating_point.discrete_laplace_pmf, "scale"),
        (floating_point.discrete_gaussian_pmf, "sigma_squared"),
    ]:
        result, error = call(pmf, values, scale, names=(name, "values"))
        if error is None:
            assert np.all((result >= 0) & (result <= 1))


def test_exact_pmfs_sum_to_one_at_the_edges():
    support = np.arange(-4000, 4001)
    for sigma_squared in [1e-300, 0.1, 3.99, 4.0, 1e4]:
        total = floating_point.discrete_gaussian_pmf(support, sigma_squared).sum()
        assert total == pytest.approx(1.0, rel=1e-12), sigma_squared
    assert floating_point.discrete_gaussian_pmf(0, 1e300) > 0


# --- Composition ----------------------------------------------------------------------

try:
    from dplearn import composition
except ImportError:  # the module arrives with lessons 08 and 09
    composition = None

needs_composition = pytest.mark.skipif(composition is None, reason="no dplearn.composition")


COMPOSITION_NAMES = ("scale", "sigma", "sensitivity", "k", "pair", "epsilon0")


@needs_composition
@given(
    family=st.sampled_from(["laplace", "gaussian", "discrete_laplace"]),
    scale=st.one_of(moderate, positive_float),
    k=st.one_of(st.integers(1, 40), st.sampled_from([0, -1, 250, 251, 10**6, True, 2.5, "3"])),
    delta=probability,
)
@example(family="gaussian", scale=1e6, k=1, delta=1e-5)
@settings(CONTRACT, max_examples=60)
def test_composed_pairs_at_any_parameters(family, scale, k, delta):
    pair, error = call(getattr(privacy_loss, family), scale, names=COMPOSITION_NAMES)
    if error is not None:
        return
    composed, error = call(composition.compose, pair, k, names=COMPOSITION_NAMES)
    if error is not None:
        return
    # delta and log_delta are separate closed forms here: consistent to 1e-12.
    probabilities = np.array([0.0, 1e-300, 0.5, 1 - 1e-16, 1.0])
    check_pair(composed, EPSILONS, probabilities, np.array([]), consistency=1e-12)
    epsilon, error = call(composed.epsilon_for_delta, delta, names=("delta",))
    assert error is None and epsilon >= 0
    if epsilon < math.inf:
        assert composed.delta(epsilon) <= delta, "epsilon_for_delta must be on the safe side"
    else:
        assert composed.delta(HUGE) > delta


@needs_composition
@given(
    epsilon0=st.one_of(moderate, any_float),
    delta0=st.one_of(st.just(0.0), probability, any_float),
    k=st.one_of(st.integers(1, 2000), st.sampled_from([0, True, 1.5, 10**9])),
    target=st.one_of(probability, any_float),
)
@example(epsilon0=1000.0, delta0=0.0, k=1, target=0.5)
@CONTRACT
def test_composition_bounds_at_any_parameters(epsilon0, delta0, k, target):
    names = ("epsilon0", "delta0", "k", "epsilon", "delta", "delta_slack")
    bound, error = call(composition.basic, epsilon0, delta0, k, names=names)
    if error is not None:
        return
    assert not any(math.isnan(x) for x in bound)
    advanced, error = call(composition.advanced, epsilon0, delta0, k, target, names=names)
    if error is None:
        assert not any(np.isnan(x) for x in advanced)
    slack, error = call(composition.advanced_delta, epsilon0, k, EPSILONS, names=names)
    if error is None:
        assert not np.any(np.isnan(slack)) and np.all((slack >= 0) & (slack <= 1))
    deltas, error = call(composition.optimal_delta, epsilon0, delta0, k, EPSILONS, names=names)
    if error is None:
        assert not np.any(np.isnan(deltas)) and np.all((deltas >= 0) & (deltas <= 1))
        assert np.all(np.diff(deltas) <= 1e-12)
    epsilon, error = call(composition.optimal_epsilon, epsilon0, delta0, k, target, names=names)
    if error is None:
        assert epsilon >= 0 and not math.isnan(epsilon)
        if epsilon < math.inf:
            reached, _ = call(composition.optimal_delta, epsilon0, delta0, k, epsilon, names=names)
            assert reached <= target, "optimal_epsilon must be on the safe side"


@needs_composition
@given(
    mu=st.one_of(moderate, any_float),
    alphas=st.lists(st.one_of(probability, st.sampled_from([0.0, 1.0])), min_size=1, max_size=5),
    family=st.sampled_from(["laplace", "gaussian", "discrete_laplace"]),
    k=st.integers(1, 30),
)
@example(mu=1000.0, alphas=[0.5], family="discrete_laplace", k=1)
@CONTRACT
def test_tradeoff_curves_at_any_parameters(mu, alphas, family, k):
    alphas = np.sort(np.array(alphas))
    beta, error = call(composition.gaussian_tradeoff, mu, alphas, names=("mu", "alpha"))
    if error is None:
        assert not np.any(np.isnan(beta)) and np.all((beta >= 0) & (beta <= 1))
        assert np.all(np.diff(beta) <= 1e-15)
    if not 1e-3 <= mu <= 1e3:
        return
    pair, error = call(
        composition.compose, getattr(privacy_loss, family)(1.0 / mu), k, names=("scale",)
    )
    if error is not None:
        return
    beta, error = call(composition.tradeoff, pair, alphas, names=("alpha",))
    assert error is None
    assert not np.any(np.isnan(beta)) and np.all((beta >= 0) & (beta <= 1))
    assert np.all(np.diff(beta) <= 1e-12)
    gap, error = call(
        composition.clt_gap,
        getattr(privacy_loss, family)(1.0 / mu),
        k,
        alphas,
        names=("k", "alpha"),
    )
    if error is None:
        assert not np.any(np.isnan(gap))


@needs_composition
@given(
    family=st.sampled_from(["laplace", "gaussian", "discrete_laplace"]),
    scale=moderate,
    grid_width=st.one_of(st.floats(1e-4, 1.0), positive_float, any_float),
    k=st.integers(1, 20),
)
@example(family="laplace", scale=1.0, grid_width=5e-324, k=1)
@example(family="gaussian", scale=1.0, grid_width=1e308, k=3)
@settings(CONTRACT, max_examples=30)
def test_privacy_loss_distributions_at_any_grid(family, scale, grid_width, k):
    names = ("grid_width", "tail_mass", "k", "scale", "sigma")
    pair, error = call(getattr(privacy_loss, family), scale, names=names)
    if error is not None:
        return
    bracket, error = call(composition.pld_bracket, pair, k, grid_width, names=names)
    if error is not None:
        return
    for epsilon in [0.0, 0.5, 5.0]:
        low, high = bracket.optimistic.delta(epsilon), bracket.pessimistic.delta(epsilon)
        exact = composition.compose(pair, k).delta(epsilon)
        assert not math.isnan(low) and not math.isnan(high)
        assert low <= exact * (1 + 1e-9) + 1e-12 and exact <= high * (1 + 1e-9) + 1e-12


@given(
    scale=st.one_of(moderate, positive_float),
    first_draw=st.one_of(
        st.integers(0, floating_point.DRAW_COUNT - 1),
        st.sampled_from([-1, floating_point.DRAW_COUNT, 2.5, True]),
    ),
    count=st.one_of(st.integers(1, 64), st.sampled_from([0, 2**17, True])),
    value=st.one_of(st.sampled_from([0.0, 1.0, 3000.0, 1e16]), any_float),
)
@example(scale=1.0, first_draw=0, count=2, value=HUGE)
@settings(CONTRACT, max_examples=60)
def test_leak_windows_at_any_parameters(scale, first_draw, count, value):
    names = ("scale", "first_draw", "count", "value", "outputs")
    window, error = call(floating_point.leak_window, scale, first_draw, count, value, names=names)
    if error is None:
        assert window["outputs"].size == count
        assert window["impossible"].dtype == bool
    fraction, error = call(
        floating_point.impossible_fraction_near, scale, [0.5, 3.0], 8, value, names=names
    )
    if error is None:
        assert np.all((fraction >= 0) & (fraction <= 1))
    draws = np.arange(1, 200, dtype=np.int64) * 2**44
    estimate, error = call(
        floating_point.distinguishing_probability, scale, draws, value, names=names
    )
    if error is None:
        assert 0 <= estimate[0] <= 1 and not math.isnan(estimate[1])


@given(
    uniform=st.one_of(st.floats(-0.5, 0.5), any_float, not_a_number),
    sensitivity=st.one_of(moderate, positive_float),
    epsilon=st.one_of(moderate, positive_float),
)
@example(uniform=0.5, sensitivity=5e-324, epsilon=10.0)
@CONTRACT
def test_post_noisy_digit_at_any_parameters(uniform, sensitivity, epsilon):
    names = ("uniform", "sensitivity", "epsilon")
    digit, error = call(floating_point.post_noisy_digit, uniform, sensitivity, epsilon, names=names)
    if error is None:
        # The post's formula gives +-inf at U = +-1/2, as the lesson shows; never NaN.
        assert not np.any(np.isnan(digit))


@needs_composition
@pytest.mark.parametrize("k", [1, 2])
def test_optimal_composition_at_the_largest_epsilon0(k):
    names = ("epsilon0", "delta0", "k", "epsilon", "delta")
    deltas, error = call(composition.optimal_delta, HUGE, 0.0, k, EPSILONS, names=names)
    assert error is not None or not np.any(np.isnan(deltas))
    epsilon, error = call(composition.optimal_epsilon, HUGE, 0.0, k, 5e-324, names=names)
    assert error is not None or not math.isnan(epsilon)


@needs_composition
@given(
    family=st.sampled_from(["laplace", "gaussian", "discrete_laplace"]),
    scale=st.floats(-1.0, 1.5).map(lambda power: 10.0**power),
    grid_width=st.sampled_from([1e-3, 1e-2, 0.1, 1.0]),
    k=st.integers(1, 30),
    delta=st.one_of(probability, st.sampled_from([1e-10, 1e-5, 0.1])),
)
@settings(CONTRACT, max_examples=40)
def test_privacy_loss_distributions_bracket_the_exact_answers(family, scale, grid_width, k, delta):
    """On grids the lessons use: the bracket holds the exact delta and epsilon, and the
    pessimistic epsilon is safe for the exact composition."""
    pair = getattr(privacy_loss, family)(scale)
    names = ("grid_width", "k", "delta", "epsilon")
    bracket, error = call(composition.pld_bracket, pair, k, grid_width, names=names)
    if error is not None:
        return
    exact = composition.compose(pair, k)
    epsilons = np.array([0.0, 0.5, 2.0, 10.0])
    (low, high), error = call(bracket.delta, epsilons, names=names)
    truth = exact.delta(epsilons)
    assert np.all(low <= truth * (1 + 1e-9) + 1e-12) and np.all(truth <= high * (1 + 1e-9) + 1e-12)
    width, error = call(bracket.width, epsilons, names=names)
    assert error is None and np.all(width >= -1e-12)
    (optimistic, pessimistic), error = call(bracket.epsilon_for_delta, delta, names=names)
    assert error is None and not math.isnan(optimistic) and not math.isnan(pessimistic)
    if pessimistic < math.inf:
        assert exact.delta(pessimistic) <= delta * (1 + 1e-9) + 1e-15


@needs_composition
def test_gaussian_dp_mu_names_a_pair_it_cannot_take():
    for pair in [privacy_loss.laplace(1.0), "gaussian", None]:
        with pytest.raises(ValueError, match="pair"):
            composition.gaussian_dp_mu(pair)
    assert composition.gaussian_dp_mu(privacy_loss.gaussian(2.0)) == 0.5


@needs_composition
@given(
    epsilon0=st.one_of(moderate, any_float, st.sampled_from([math.log(2), 0.6931, 1e300])),
    delta=st.one_of(probability, any_float),
)
@CONTRACT
def test_first_advanced_win_at_any_parameters(epsilon0, delta):
    names = ("epsilon0", "delta")
    first, error = call(composition.first_advanced_win, epsilon0, delta, names=names)
    if error is not None:
        return
    if math.exp(min(epsilon0, 1.0)) >= 2:
        assert first is None
        return
    assert isinstance(first, int) and first >= 1
    if first < 10**6:
        # The first win: advanced beats basic at k = first, not at first - 1.
        def wins(k):
            advanced = composition.advanced(epsilon0, 0.0, k, delta)[0]
            return advanced < composition.basic(epsilon0, 0.0, k)[0]

        assert wins(first) and (first == 1 or not wins(first - 1))


# --- Lesson 00: randomised response and the two attacks ---------------------------------

from dplearn import attacks  # noqa: E402
from dplearn import randomized_response as randomized  # noqa: E402

#: A truth probability t over (1/2, 1), its ends drawn often, and values outside.
truth_probability = st.one_of(
    st.sampled_from([0.5, 0.5 + 2**-53, 0.5 + 1e-12, 0.75, 1 - 1e-12, 1 - 2**-53, 1.0]),
    st.floats(0.5, 1.0),
    any_float,
    not_a_number,
)


@given(
    t=truth_probability,
    epsilons=st.lists(any_float.map(abs), min_size=1, max_size=4),
    probabilities=st.lists(st.one_of(probability, st.sampled_from([0.0, 1.0])), max_size=4),
    deltas=st.lists(st.one_of(probability, any_float), max_size=3),
)
@example(t=1 - 2**-53, epsilons=[36.7], probabilities=[0.5], deltas=[1e-300])
@CONTRACT
def test_randomized_response_at_any_truth_probability(t, epsilons, probabilities, deltas):
    pair, error = call(privacy_loss.randomized_response, t, names=("truth_probability",))
    if error is not None:
        return
    assert 0.5 < pair.truth_probability < 1 and math.isfinite(pair.max_loss)
    epsilons = np.concatenate([EPSILONS, np.array(epsilons, dtype=float)])
    epsilons = epsilons[~np.isnan(epsilons)]
    check_pair(pair, epsilons, np.array(probabilities, dtype=float), np.array([0.0, 1.0]))
    names = ("delta",)
    for delta in deltas:
        epsilon, error = call(pair.epsilon_for_delta, delta, names=names)
        if error is None:
            assert not math.isnan(epsilon) and epsilon >= 0
            assert pair.delta(epsilon) <= delta
    values, masses = pair.loss_atoms
    assert masses.sum() == pytest.approx(1.0, rel=1e-15) and values[0] == pair.max_loss


@given(
    proportion=st.one_of(st.sampled_from([0.0, 1.0, 0.3]), probability, any_float, not_a_number),
    n=st.one_of(st.sampled_from([1, 1000, 2**53, 1e300]), st.integers(-3, 10**9), any_float),
    t=truth_probability,
    epsilon=st.one_of(moderate, positive_float, any_float),
)
@example(proportion=0.3, n=1000, t=0.75, epsilon=math.log(3))
@CONTRACT
def test_randomized_response_errors_at_any_parameters(proportion, n, t, epsilon):
    names = ("proportion", "n", "truth_probability", "epsilon")
    for function, args in [
        (randomized.local_standard_error, (proportion, n, t)),
        (randomized.local_noise_standard_error, (n, t)),
        (randomized.sampling_standard_error, (proportion, n)),
        (randomized.central_standard_error, (n, epsilon)),
        (randomized.report_probability, (proportion, t)),
        (randomized.truth_probability_for_epsilon, (epsilon,)),
    ]:
        value, error = call(function, *args, names=names)
        if error is None:
            assert not np.any(np.isnan(value)) and np.all(np.asarray(value) >= 0), function
    for truth in (0.75, t):
        reports, error = call(
            randomized.randomize, [0, 1, 1], truth, rng=np.random.default_rng(0), names=names
        )
        if error is None:
            estimate, error = call(randomized.estimate_proportion, reports, truth, names=names)
            assert error is None and math.isfinite(estimate)


@given(
    rows=st.integers(1, 12),
    columns=st.integers(1, 12),
    entry=st.one_of(st.sampled_from([0, 1]), any_float, not_a_number),
    scale=st.one_of(st.sampled_from([0.0, 1.0, 1e300, HUGE]), any_float),
    seed=st.integers(0, 2**32),
)
@example(rows=3, columns=2, entry=1, scale=HUGE, seed=0)
@settings(CONTRACT, max_examples=80)
def test_reconstruction_at_any_input(rows, columns, entry, scale, seed):
    rng = np.random.default_rng(seed)
    queries = rng.integers(0, 2, (rows, columns)).astype(object)
    queries[0, 0] = entry
    with np.errstate(over="ignore"):
        answers = rng.uniform(-1, 1, rows) * (scale if isinstance(scale, float) else 1.0)
    names = ("queries", "answers")
    bits, error = call(attacks.reconstruct, queries.tolist(), answers, names=names)
    if error is None:
        assert bits.shape == (columns,) and set(np.unique(bits)) <= {0, 1}
    names = ("n", "m", "noise_bound", "seed")
    fraction, error = call(
        attacks.mean_fraction_recovered, columns, rows, scale, [seed], names=names
    )
    if error is None:
        assert 0.0 <= fraction <= 1.0


@given(
    prior=st.one_of(probability, any_float, not_a_number),
    difference=st.one_of(st.sampled_from([0.0, 0.5, 1.0, 1e300, -1e300]), any_float),
    epsilon=st.one_of(moderate, positive_float, any_float),
)
@example(prior=0.5, difference=1e300, epsilon=HUGE)
@CONTRACT
def test_differencing_at_any_parameters(prior, difference, epsilon):
    names = ("prior", "difference", "epsilon")
    ratio, error = call(attacks.differencing_log_ratio, difference, epsilon, names=names)
    if error is None:
        assert not math.isnan(ratio) and abs(ratio) <= epsilon
    density, error = call(attacks.difference_density, difference, epsilon, names=names)
    if error is None:
        assert not math.isnan(density) and density >= 0
    posterior, error = call(attacks.differencing_posterior, prior, difference, epsilon, names=names)
    if error is None:  # vectorised over the prior (a list of priors is fine)
        assert np.all((posterior >= 0.0) & (posterior <= 1.0))
    band, error = call(attacks.posterior_band, prior, epsilon, names=names)
    if error is None:
        low, high = np.asarray(band[0]), np.asarray(band[1])
        prior = np.asarray(prior, dtype=float)
        assert not np.any(np.isnan(low)) and not np.any(np.isnan(high))
        # Both edges are probabilities around the prior (equal to it, rounded, at 0).
        assert np.all((low >= 0) & (high <= 1) & (low <= high))
        slack = 1e-12 * prior + 2e-323
        assert np.all(low <= prior + slack) and np.all(high >= prior - slack)


# --- Lessons 10 and 11: subsampling, Rényi DP, DP-SGD accounting ------------------------

from dplearn import accounting, renyi, subsampling  # noqa: E402

SUBSAMPLING_NAMES = ("scale", "sigma", "sensitivity", "rate", "pair")
#: Sampling rates: the ends of (0, 1], a slider's values, and bad ones.
rate_strategy = st.one_of(
    st.sampled_from([5e-324, 1e-300, 1e-12, 256 / 60000, 0.01, 0.5, 1 - 2**-53, 1.0]),
    st.floats(-12.0, 0.0).map(lambda power: 10.0**power),
    any_float,
    not_a_number,
)


@given(
    family=st.sampled_from(["laplace", "gaussian"]),
    scale=st.one_of(moderate, positive_float),
    sensitivity=st.one_of(st.just(1.0), moderate),
    rate=rate_strategy,
    epsilons=st.lists(any_float.map(abs), max_size=3),
    probabilities=st.lists(st.one_of(probability, st.sampled_from([0.0, 1.0])), max_size=3),
    outputs=st.lists(st.floats(-1e6, 1e6), max_size=3),
    delta=probability,
)
@example(
    family="gaussian",
    scale=1.1,
    sensitivity=1.0,
    rate=256 / 60000,
    epsilons=[],
    probabilities=[],
    outputs=[],
    delta=1e-5,
)
@settings(CONTRACT, max_examples=40)
def test_subsampled_pairs_at_any_parameters(
    family, scale, sensitivity, rate, epsilons, probabilities, outputs, delta
):
    mechanism, error = call(
        getattr(privacy_loss, family), scale, sensitivity, names=SUBSAMPLING_NAMES
    )
    if error is not None:
        return
    pair, error = call(subsampling.poisson, mechanism, rate, names=SUBSAMPLING_NAMES)
    if error is not None:
        return
    epsilons = np.concatenate([EPSILONS, np.array(epsilons, dtype=float)])
    epsilons = epsilons[~np.isnan(epsilons)]
    probabilities = np.array(probabilities, dtype=float)
    check_pair(pair, epsilons, probabilities, np.array(outputs))
    check_pair(pair.remove, epsilons, probabilities, np.array(outputs))
    # The add side's loss is unbounded below: its deltas alone (check_pair's quantile
    # bound assumes a symmetric range).
    log_delta, error = call(pair.add.log_delta, epsilons, names=("epsilon",))
    assert error is None and not np.any(np.isnan(log_delta)) and np.all(log_delta <= 0)
    order = np.argsort(epsilons)
    assert np.all(np.diff(pair.add.delta(epsilons[order])) <= 1e-300)
    # Subsampling never hurts: the subsampled delta is at most the mechanism's.
    for side in (pair, pair.remove, pair.add):
        assert np.all(side.delta(epsilons) <= mechanism.delta(epsilons) * (1 + 1e-12) + 1e-300)
        epsilon, error = call(side.epsilon_for_delta, delta, names=("delta",))
        assert error is None and epsilon >= 0 and not math.isnan(epsilon)
        if epsilon < math.inf:
            assert side.delta(epsilon) <= delta, "epsilon_for_delta must be on the safe side"
    # (To the rounding of epsilon itself: the two answers come by different paths.)
    assert pair.epsilon_for_delta(delta) <= mechanism.epsilon_for_delta(delta) * (1 + 1e-12) + 4e-15
    assert pair.max_loss <= mechanism.max_loss * (1 + 1e-12) + 1e-300


@given(epsilon=st.one_of(any_float, st.lists(any_float.map(abs), max_size=3)), rate=rate_strategy)
@example(epsilon=1.0, rate=0.01)
@CONTRACT
def test_amplified_epsilon_at_any_parameters(epsilon, rate):
    amplified, error = call(subsampling.amplified_epsilon, epsilon, rate, names=("epsilon", "rate"))
    if error is not None:
        return
    values, amplified = np.asarray(epsilon, dtype=float), np.asarray(amplified)
    assert not np.any(np.isnan(amplified))
    with np.errstate(over="ignore", invalid="ignore"):
        assert np.all((amplified >= 0) & (amplified <= np.nextafter(values, np.inf)))
        ordered = amplified.ravel()[np.argsort(values.ravel())]
        assert np.all(ordered[1:] >= ordered[:-1])
    delta, error = call(subsampling.amplified_delta, 0.5, rate, names=("delta", "rate"))
    assert error is None and 0 <= delta <= 0.5


@given(
    family=st.sampled_from(["gaussian", "laplace", "subsampled"]),
    scale=st.one_of(moderate, positive_float),
    rate=st.one_of(st.sampled_from([1e-9, 256 / 60000, 0.3, 1.0]), st.floats(0.0, 1.0)),
    alphas=st.lists(
        st.one_of(st.floats(1.0, 300.0), st.integers(2, 2000), any_float, not_a_number),
        min_size=1,
        max_size=3,
    ),
)
@example(family="subsampled", scale=1.1, rate=256 / 60000, alphas=[1.5, 32, 1024])
@example(family="subsampled", scale=1e-3, rate=0.5, alphas=[10000, 99.5])
# D_alpha past the largest double (inf, without a warning), and the orders and scales at
# which parts of the closed forms overflow although D_alpha does not.
@example(family="gaussian", scale=1e-5, rate=1e-9, alphas=[1e300, 1e301, 2.0])
@example(family="laplace", scale=1e-300, rate=1.0, alphas=[2.0, 1e10, 1.7e308])
@example(family="subsampled", scale=1e-152, rate=0.3, alphas=[1024, 10000])
@example(family="subsampled", scale=1e156, rate=0.3, alphas=[1.5, 99.5])
@settings(CONTRACT, max_examples=40)
def test_rdp_at_any_parameters(family, scale, rate, alphas):
    names = ("scale", "sigma", "rate", "alpha", "pair")
    if family == "laplace":
        pair, error = call(privacy_loss.laplace, scale, names=names)
    else:
        pair, error = call(privacy_loss.gaussian, scale, names=names)
        if error is None and family == "subsampled":
            pair, error = call(subsampling.poisson, pair, rate, names=names)
    if error is not None:
        return
    values, error = call(renyi.rdp, pair, alphas, names=names)
    if error is not None:
        return
    values = np.ravel(values)
    assert not np.any(np.isnan(values)) and np.all(values >= 0)
    # D_alpha does not decrease with alpha (inf, past the largest double, included).
    order = np.argsort(np.ravel(np.asarray(alphas, dtype=float)))
    ordered = values[order]
    assert np.all(ordered[:-1] <= ordered[1:] * (1 + 1e-12))
    epsilon, error = call(renyi.to_epsilon, alphas, values, 1e-5, names=("alphas", "delta"))
    assert error is None and epsilon >= 0 and not math.isnan(epsilon)


@given(
    alphas=st.lists(st.one_of(st.floats(1.0, 1e4), any_float), min_size=1, max_size=4),
    values=st.lists(st.one_of(st.floats(0.0, 1e3), any_float), min_size=1, max_size=4),
    delta=st.one_of(probability, any_float, not_a_number),
)
@CONTRACT
def test_rdp_conversion_at_any_input(alphas, values, delta):
    names = ("alphas", "rdp_values", "delta")
    epsilon, error = call(renyi.to_epsilon, alphas, values, delta, names=names)
    if error is not None:
        return
    assert epsilon >= 0 and not math.isnan(epsilon)
    order, error = call(renyi.best_order, alphas, values, delta, names=names)
    assert error is None and order in [float(a) for a in alphas]


@given(
    rate=rate_strategy,
    sigma=st.one_of(st.floats(-3.0, 3.0).map(lambda power: 10.0**power), any_float),
    steps=st.one_of(st.integers(1, 3000), st.sampled_from([0, -1, 2.5, True, "3", 10**8])),
    delta=st.one_of(probability, any_float),
    method=st.sampled_from(["pld", "rdp", "prv"]),
)
@example(rate=256 / 60000, sigma=1.1, steps=3000, delta=1e-5, method="pld")
@example(rate=1.0, sigma=1e-3, steps=3000, delta=1e-5, method="pld")
@settings(CONTRACT, max_examples=60)
def test_dp_sgd_epsilon_at_any_parameters(rate, sigma, steps, delta, method):
    names = ("sampling_rate", "noise_multiplier", "steps", "delta", "method", "grid_width")
    grid = {"grid_width": 1e-2} if method == "pld" else {}
    epsilon, error = call(
        accounting.dp_sgd_epsilon, rate, sigma, steps, delta, method=method, names=names, **grid
    )
    if error is not None:
        return
    assert epsilon >= 0 and not math.isnan(epsilon)
    if method == "pld":
        bracket, error = call(
            accounting.dp_sgd_bracket, rate, sigma, steps, delta, names=names, **grid
        )
        assert error is None
        assert bracket.optimistic <= bracket.pessimistic == epsilon
        # One step: the bracket holds the exact subsampled Gaussian's epsilon.
        if steps == 1:
            exact = subsampling.poisson(privacy_loss.gaussian(sigma), rate).epsilon_for_delta(delta)
            assert bracket.optimistic <= exact <= bracket.pessimistic


# --- The PLD solver: the smallest grid epsilon whose delta meets the target ------------


def check_smallest_epsilon(delta, losses, epsilon, target):
    """delta(epsilon) <= target, and no grid loss in [0, epsilon) meets the target too."""
    assert epsilon >= 0 and not math.isnan(epsilon)
    if epsilon == math.inf:
        assert delta(HUGE) > target
        return
    assert delta(epsilon) <= target, (epsilon, delta(epsilon), target)
    lower = losses[(losses >= 0) & (losses < epsilon)]
    if lower.size:
        assert delta(lower.max()) > target, (epsilon, lower.max(), target)


@given(
    indices=st.lists(st.integers(-40, 6000), min_size=1, max_size=6, unique=True),
    weights=st.lists(st.floats(0.01, 1.0), min_size=6, max_size=6),
    infinity=st.sampled_from([0.0, 0.1, 1e-9, 0.3]),
    grid_width=st.sampled_from([1.0, 0.5, 3.0, 1e-3]),
    extra=st.lists(probability, max_size=3),
)
@example(
    indices=[5000, 4000, 3000],
    weights=[0.2, 0.1, 0.7, 1, 1, 1],
    infinity=0.1,
    grid_width=1.0,
    extra=[0.4],
)
@settings(CONTRACT, max_examples=100)
@needs_composition
def test_pld_epsilon_for_delta_is_the_smallest_safe_grid_epsilon(
    indices, weights, infinity, grid_width, extra
):
    """Targets equal to cumulative masses from the top (plus the +inf mass) drawn on purpose:
    there delta is flat at the target over a stretch of the grid."""
    indices = np.sort(np.array(indices))[::-1]
    raw = np.array(weights[: indices.size])
    masses_from_top = raw / raw.sum() * (1.0 - infinity)
    lowest = int(indices.min())
    masses = np.zeros(int(indices.max()) - lowest + 1)
    masses[indices - lowest] = masses_from_top
    distribution = composition.PrivacyLossDistribution(
        grid_width, lowest, masses, infinity, True, 1e-15
    )
    losses = distribution.losses
    targets = np.concatenate([infinity + np.cumsum(masses_from_top), extra])
    targets = targets[(targets > 0) & (targets < 1)]
    for target in targets:
        epsilon, error = call(distribution.epsilon_for_delta, target, names=("delta",))
        assert error is None
        check_smallest_epsilon(distribution.delta, losses, epsilon, target)
    # delta is continuous at +inf: the +inf mass is what no epsilon covers.
    assert distribution.delta(math.inf) == distribution.delta(1e308) == pytest.approx(infinity)


@given(
    scale=st.floats(0.05, 20.0),
    sensitivity=st.integers(1, 4),
    k=st.integers(1, 12),
    position=st.integers(0, 30),
)
@example(scale=0.2, sensitivity=2, k=3, position=1)
@settings(CONTRACT, max_examples=40)
@needs_composition
def test_composed_discrete_laplace_epsilon_at_cumulative_masses(scale, sensitivity, k, position):
    composed = composition.compose(privacy_loss.discrete_laplace(scale, sensitivity), k)
    values, masses = composed.loss_atoms
    order = np.argsort(values)[::-1]
    cumulative = np.cumsum(np.asarray(masses)[order])
    target = float(cumulative[min(position, cumulative.size - 1)])
    if not 0 < target < 1:
        return
    epsilon, error = call(composed.epsilon_for_delta, target, names=("delta",))
    assert error is None
    check_smallest_epsilon(composed.delta, np.asarray(values, dtype=float), epsilon, target)
