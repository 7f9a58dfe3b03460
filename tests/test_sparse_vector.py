"""The sparse vector technique (dplearn.sparse_vector), group privacy and parallel
composition (dplearn.composition.groups): lesson 13's numbers.

Independent values: mpmath quadrature of the same integrals written out from the
algorithms' definitions (at 30 digits), seeded simulations of the algorithms, and brute
force over every outcome where there are few.
"""

import itertools
import math

import mpmath
import numpy as np
import pytest
from hypothesis import Phase, example, given, settings
from hypothesis import strategies as st

from dplearn import calibration, composition
from dplearn import sparse_vector as sv
from tests import oracle

#: MANY-3's setting, and its law to 5 digits as docs/figures.md and lesson 13 print it.
MANY_3 = dict(answers=[1, 3, 8, 2, 12], threshold=10, epsilon=1)
MANY_3_LAW = [0.06841, 0.0965, 0.26448, 0.03583, 0.31492, 0.21985]


# ---------------------------------------------------------------- mpmath oracles


def _laplace_cdf(x, scale):
    """P[Lap(scale) < x] in mpmath."""
    x = mpmath.mpf(x)
    return mpmath.exp(x / scale) / 2 if x < 0 else 1 - mpmath.exp(-x / scale) / 2


def _laplace_density(x, scale):
    return mpmath.exp(-abs(mpmath.mpf(x)) / scale) / (2 * scale)


@mpmath.workdps(30)
def above_threshold_law(answers, threshold, epsilon, sensitivity=1):
    """Algorithm 1 of Dwork & Roth, integrated over the noisy threshold t by mpmath."""
    epsilon, sensitivity = mpmath.mpf(epsilon), mpmath.mpf(sensitivity)
    rho, nu = 2 * sensitivity / epsilon, 4 * sensitivity / epsilon
    kinks = sorted({mpmath.mpf(threshold), *map(mpmath.mpf, answers)})
    points = [-mpmath.inf, *kinks, mpmath.inf]
    law = []
    for stop in range(len(answers) + 1):

        def integrand(t, stop=stop):
            value = _laplace_density(t - threshold, rho)
            for answer in answers[:stop]:
                value *= _laplace_cdf(t - answer, nu)
            if stop < len(answers):
                value *= 1 - _laplace_cdf(t - answers[stop], nu)
            return value

        law.append(mpmath.quad(integrand, points))
    return law


# ---------------------------------------------------------------- AboveThreshold


def test_many_3_law():
    law = sv.above_threshold_probabilities(**MANY_3)
    assert law.shape == (6,)
    for value, quoted in zip(law, MANY_3_LAW, strict=True):
        assert round(value, 5) == pytest.approx(quoted, abs=1e-12)


@pytest.mark.parametrize(
    ("answers", "threshold", "epsilon", "sensitivity"),
    [
        ([1, 3, 8, 2, 12], 10, 1, 1),
        ([0.5], -2, 0.3, 1),
        ([4, 4, 4, 4], 4, 2, 0.5),
        ([30, -5, 12, 10.5], 10, 0.1, 2),
        ([-40, -30, 50], 0, 5, 1),
    ],
)
def test_law_matches_mpmath_quadrature(answers, threshold, epsilon, sensitivity):
    law = sv.above_threshold_probabilities(answers, threshold, epsilon, sensitivity)
    expected = above_threshold_law(answers, threshold, epsilon, sensitivity)
    for value, truth in zip(law, expected, strict=True):
        assert abs(value - float(truth)) < 1e-10
        if truth > 1e-200:  # and every probability to 1e-9 relative, for the losses
            assert value == pytest.approx(float(truth), rel=1e-9)
    assert law.sum() == pytest.approx(1.0, abs=1e-12)


def test_law_matches_a_seeded_simulation():
    rng = np.random.default_rng(2026)
    draws = 400_000
    outcomes = sv.sample_above_threshold(**MANY_3, rng=rng, size=draws)
    frequencies = np.bincount(outcomes, minlength=6) / draws
    law = sv.above_threshold_probabilities(**MANY_3)
    # Five standard errors of a frequency: a correct sampler fails once in millions.
    assert np.all(np.abs(frequencies - law) < 5 * np.sqrt(law * (1 - law) / draws))


def test_the_sampler_is_seeded():
    first = sv.sample_above_threshold(**MANY_3, rng=np.random.default_rng(5), size=50)
    second = sv.sample_above_threshold(**MANY_3, rng=np.random.default_rng(5), size=50)
    assert np.array_equal(first, second)


def test_tiny_probabilities_keep_their_relative_accuracy():
    # Answers far above the threshold: a late stop needs every earlier one to fall below.
    answers = [30.0] * 6
    logs = sv.above_threshold_log_probabilities(answers, 0, 1)
    expected = above_threshold_law(answers, 0, 1)
    assert logs[5] < math.log(1e-7)
    for value, truth in zip(logs, expected, strict=True):
        assert value == pytest.approx(float(mpmath.log(truth)), rel=1e-10, abs=1e-9)


@settings(max_examples=12, deadline=None)
# Stopping at query 39 here needs the noisy threshold 80 of its scales above T: an
# integral cut at 60 gives ln P = -103.07 where mpmath gives -80.753.
@example(queries=42, seed=0, threshold=0.0, epsilon=4.0, sensitivity=0.5)
@given(
    queries=st.integers(1, 50),
    seed=st.integers(0, 2**32 - 1),
    threshold=st.floats(-5, 15),
    epsilon=st.floats(0.05, 4),
    sensitivity=st.sampled_from([0.5, 1.0, 3.0]),
)
def test_every_outcome_loss_is_within_epsilon_for_neighbours(
    queries, seed, threshold, epsilon, sensitivity
):
    """The promise of AboveThreshold: |ln(P[o | D1] / P[o | D2])| <= epsilon for every o."""
    rng = np.random.default_rng(seed)
    first = rng.uniform(-10, 20, queries)
    # The neighbour moves every answer by up to the sensitivity, many to the very edge.
    shift = rng.choice([-1.0, 1.0], queries) * np.where(
        rng.random(queries) < 0.7, 1.0, rng.random(queries)
    )
    second = first + sensitivity * shift
    losses = sv.above_threshold_losses(first, second, threshold, epsilon, sensitivity)
    assert np.all(np.abs(losses) <= epsilon * (1 + 1e-9) + 1e-10), losses


# ---------------------------------------------------------------- the broken variants


def test_no_answer_noise_has_an_impossible_outcome_on_one_neighbour():
    pair = sv.counterexample("no answer noise", 2)
    first = sv.no_answer_noise_probabilities(pair.answers, pair.threshold, 1.0)
    second = sv.no_answer_noise_probabilities(pair.neighbour_answers, pair.threshold, 1.0)
    outcome = pair.outcome
    assert first[outcome] == 0.0 and second[outcome] > 0.1
    assert sv.worst_loss("no answer noise", 2, 1.0) == math.inf
    assert np.all(np.isinf(sv.worst_losses("no answer noise", 1.0)[1:]))
    # A private variant would allow P[o | D2] <= e^epsilon P[o | D1] = 0: the simulation
    # of the variant itself finds the outcome on D2 and never on D1.
    rng = np.random.default_rng(3)
    for answers, seen in ((pair.answers, False), (pair.neighbour_answers, True)):
        noisy_threshold = pair.threshold + rng.laplace(0, 2.0, 20_000)
        stops_at_two = (answers[0] < noisy_threshold) & (answers[1] >= noisy_threshold)
        assert stops_at_two.any() == seen


def test_no_answer_noise_law_against_its_definition():
    answers, threshold = [1.0, 3.0, 8.0, 2.0, 12.0], 10.0
    law = sv.no_answer_noise_probabilities(answers, threshold, 1.0)
    noisy = threshold + np.random.default_rng(8).laplace(0, 2.0, 400_000)
    above = np.asarray(answers)[None, :] >= noisy[:, None]
    outcome = np.where(above.any(axis=1), np.argmax(above, axis=1), 5)
    frequencies = np.bincount(outcome, minlength=6) / noisy.size
    assert np.all(np.abs(frequencies - law) < 5 * np.sqrt(law * (1 - law) / noisy.size) + 1e-12)


@mpmath.workdps(30)
def _no_stop_probability(answers, outcome, threshold, epsilon):
    rho, nu = 2 / mpmath.mpf(epsilon), 4 / mpmath.mpf(epsilon)

    def integrand(t):
        value = _laplace_density(t - threshold, rho)
        for answer, above in zip(answers, outcome, strict=True):
            below = _laplace_cdf(t - answer, nu)
            value *= (1 - below) if above else below
        return value

    kinks = sorted({mpmath.mpf(threshold), *map(mpmath.mpf, answers)})
    return mpmath.quad(integrand, [-mpmath.inf, *kinks, mpmath.inf])


def test_no_stop_loss_grows_without_bound():
    losses = sv.worst_losses("no stop", 1.0)
    assert losses.shape == (50,)
    assert np.all(np.diff(losses) > 0)
    assert losses[0] < 1.0 < losses[5] and losses[49] > 10.0  # 11.2 at m = 50
    # The same numbers one by one, and against mpmath at m = 12.
    for queries in (1, 7, 50):
        assert sv.worst_loss("no stop", queries, 1.0) == pytest.approx(
            losses[queries - 1], rel=1e-10
        )
    pair = sv.counterexample("no stop", 12)
    truth = mpmath.log(
        _no_stop_probability(pair.answers, pair.outcome, pair.threshold, 1)
        / _no_stop_probability(pair.neighbour_answers, pair.outcome, pair.threshold, 1)
    )
    assert losses[11] == pytest.approx(float(truth), rel=1e-9)


def test_no_stop_outcome_is_the_worst_of_all_outcomes():
    for queries in (2, 5, 8):
        pair = sv.counterexample("no stop", queries)
        outcomes, first = sv.no_stop_probabilities(pair.answers, pair.threshold, 1.0)
        _, second = sv.no_stop_probabilities(pair.neighbour_answers, pair.threshold, 1.0)
        assert first.sum() == pytest.approx(1.0, abs=1e-12)
        losses = np.log(first / second)
        assert np.max(losses) == pytest.approx(sv.worst_loss("no stop", queries, 1.0), rel=1e-9)
        assert np.array_equal(outcomes[np.argmax(losses)], pair.outcome)


@pytest.mark.parametrize("queries", [2, 6, 20])
def test_released_answer_loss_is_its_closed_form(queries):
    pair = sv.counterexample("released answer", queries)
    stop, value = pair.outcome
    densities = [
        sv.released_answer_log_density(answers, stop, value, pair.threshold, 1.0)
        for answers in (pair.answers, pair.neighbour_answers)
    ]
    assert densities[0] - densities[1] == pytest.approx((queries - 1) / 4, rel=1e-9, abs=1e-12)
    assert sv.worst_loss("released answer", queries, 1.0) == (queries - 1) / 4
    if queries > 5:
        assert densities[0] - densities[1] > 1.0  # beyond the claimed epsilon = 1


def test_released_answer_density_integrates_to_the_stop_probability():
    answers, threshold = [1.0, 3.0, 8.0], 5.0
    law = sv.above_threshold_probabilities(answers, threshold, 1.0)
    from scipy import integrate

    stop = 1
    mass, _ = integrate.quad(
        lambda v: math.exp(sv.released_answer_log_density(answers, stop, v, threshold, 1.0)),
        -80,
        100,
        points=[threshold, *answers],
        epsrel=1e-9,
    )
    assert mass == pytest.approx(law[stop], rel=1e-7)


@pytest.mark.parametrize("variant", ["no stop", "released answer"])
def test_above_threshold_stays_within_epsilon_on_the_variants_pairs(variant):
    for queries in (1, 10, 50):
        pair = sv.counterexample(variant, queries)
        worst = sv.above_threshold_worst_loss(
            pair.answers, pair.neighbour_answers, pair.threshold, 1.0
        )
        assert worst <= 1.0 + 1e-9


# ---------------------------------------------------------------- Sparse


def test_sparse_with_one_positive_is_above_threshold():
    law = sv.sparse_probabilities(**MANY_3, positives=1)
    at = sv.above_threshold_probabilities(**MANY_3)
    assert law[()] == pytest.approx(at[-1], abs=1e-12)
    for index in range(5):
        assert law[(index,)] == pytest.approx(at[index], abs=1e-12)


def test_sparse_law_by_brute_force_and_simulation():
    answers, threshold, epsilon, positives = [9.0, 12.0, 4.0, 11.0], 10.0, 2.0, 2
    law = sv.sparse_probabilities(answers, threshold, epsilon, positives)
    expected = {
        found
        for size in range(positives + 1)
        for found in itertools.combinations(range(len(answers)), size)
    }
    assert set(law) == expected
    assert sum(law.values()) == pytest.approx(1.0, abs=1e-12)
    # Positions (0, 2): AboveThreshold at epsilon / 2 stops at query 1, then again on the
    # remaining queries at their first one.
    share = epsilon / positives
    first = sv.above_threshold_probabilities(answers, threshold, share)[0]
    second = sv.above_threshold_probabilities(answers[1:], threshold, share)[1]
    assert law[(0, 2)] == pytest.approx(first * second, rel=1e-12)
    rng = np.random.default_rng(11)
    draws = 8_000
    counts = {}
    for _ in range(draws):
        found = sv.sample_sparse(answers, threshold, epsilon, positives, rng=rng)
        counts[found] = counts.get(found, 0) + 1
    for found, probability in law.items():
        error = 5 * math.sqrt(probability * (1 - probability) / draws) + 1e-9
        assert abs(counts.get(found, 0) / draws - probability) < error, found


def test_sparse_noise_scales_of_many_5():
    scales = sv.sparse_noise_scales(1000, 5, 1.0)
    assert scales._asdict() == dict(
        threshold=10.0,
        comparison=20.0,
        comparison_when_publishing=40.0,
        released=10.0,
        all_answers=1000.0,
    )


@pytest.mark.parametrize(("queries", "positives", "epsilon"), [(1000, 5, 1.0), (100, 100, 0.3)])
def test_sparse_noise_scales_spend_the_same_epsilon_as_answering_all(queries, positives, epsilon):
    """Each release's epsilon, read back from its noise scales, is the whole budget.

    Sparse alone: c runs of AboveThreshold whose answers get 4 / epsilon_run. Sparse then
    publishing: those runs at the answer scale with half the budget, plus c Laplace answers
    at their own scale. Answering all: m Laplace answers.
    """
    scales = sv.sparse_noise_scales(queries, positives, epsilon)
    assert positives * 4 / scales.comparison == pytest.approx(epsilon, rel=1e-15)
    assert positives * 2 / scales.threshold == pytest.approx(epsilon, rel=1e-15)
    spent = positives * 4 / scales.comparison_when_publishing + positives / scales.released
    assert spent == pytest.approx(epsilon, rel=1e-15)
    assert queries / scales.all_answers == pytest.approx(epsilon, rel=1e-15)


def test_above_threshold_accuracy_is_dwork_and_roths_margin():
    alpha = sv.above_threshold_accuracy(1000, 0.05, 1.0)
    assert alpha == pytest.approx(8 * float(mpmath.log(1000) + mpmath.log(40)), rel=1e-14)
    # The margin holds in a seeded simulation: answers at T - alpha never stop it first.
    answers = np.concatenate([np.full(999, 10 - alpha), [10 + alpha]])
    outcomes = sv.sample_above_threshold(answers, 10, 1.0, rng=np.random.default_rng(4), size=400)
    assert np.mean(outcomes == 999) >= 0.95


# ---------------------------------------------------------------- group privacy


@mpmath.workdps(50)
def _group_delta(epsilon, delta, group_size):
    epsilon, delta = mpmath.mpf(epsilon), mpmath.mpf(delta)
    return delta * mpmath.fsum(mpmath.exp(j * epsilon) for j in range(group_size))


@pytest.mark.parametrize("group_size", [1, 2, 5, 30])
@pytest.mark.parametrize("epsilon", [1.0, 1e-9, 0.3, 20.0])
def test_group_privacy_against_mpmath(epsilon, group_size):
    delta = 1e-6
    group_epsilon, group_delta = composition.group_privacy(epsilon, delta, group_size)
    assert group_epsilon == group_size * epsilon
    truth = min(_group_delta(epsilon, delta, group_size), 1)
    assert group_delta == pytest.approx(float(truth), rel=1e-14)
    _, loose = composition.group_privacy_loose(epsilon, delta, group_size)
    loose_truth = min(group_size * mpmath.exp((group_size - 1) * mpmath.mpf(epsilon)) * delta, 1)
    assert loose == pytest.approx(float(loose_truth), rel=1e-14)
    assert loose >= group_delta
    _, uncapped = composition.group_privacy(epsilon, delta, group_size, capped=False)
    assert uncapped == pytest.approx(float(_group_delta(epsilon, delta, group_size)), rel=1e-14)
    _, loose_uncapped = composition.group_privacy_loose(epsilon, delta, group_size, capped=False)
    loose_sum = group_size * mpmath.exp((group_size - 1) * mpmath.mpf(epsilon)) * delta
    # e^(ln of the bound): the rounding of a logarithm of 560 costs about 1e-13.
    assert loose_uncapped == pytest.approx(float(loose_sum), rel=1e-13)


def test_uncapped_group_delta_of_many_2_try_it_and_its_overflow():
    """MANY-2's Try it (epsilon = 2, g = 10): the chain's sum is 75.9, capped to 1."""
    chain = composition.group_privacy(2, 1e-6, 10, capped=False)[1]
    assert chain == pytest.approx(float(_group_delta(2, 1e-6, 10)), rel=1e-14)
    assert round(chain, 1) == 75.9 and composition.group_privacy(2, 1e-6, 10)[1] == 1.0
    assert composition.group_privacy(800, 1e-6, 3, capped=False)[1] == math.inf
    assert composition.group_privacy_loose(800, 1e-6, 3, capped=False)[1] == math.inf
    assert composition.group_privacy(0, 0.3, 5, capped=False)[1] == pytest.approx(1.5)


def test_group_privacy_numbers_of_many_2():
    assert composition.group_privacy(1, 1e-6, 2)[1] == pytest.approx(3.718281828459045e-06)
    assert composition.group_privacy(1, 1e-6, 5)[1] == pytest.approx(8.579102488372e-05)
    assert composition.group_privacy(0, 1e-6, 5) == (0.0, pytest.approx(5e-6, rel=1e-15))
    assert composition.group_privacy(800, 1e-300, 3)[1] == 1.0  # no overflow
    sigma = calibration.gaussian_sigma_analytic(1, 1e-6)
    for group_size in (2, 5):
        exact = composition.gaussian_group_delta(sigma, group_size, 1)
        truth = oracle.gaussian_delta(group_size, sigma, group_size)
        assert exact == pytest.approx(float(truth), rel=1e-12)
        assert exact < composition.group_privacy(1, 1e-6, group_size)[1]


def test_parallel_composition():
    assert composition.parallel_composition([0.5, 1.0, 0.25]) == 1.0
    assert composition.count_noise_scales(0.5, 10) == (2.0, 20.0)
    assert composition.count_noise_scales(1.0, 1) == (1.0, 1.0)


# ---------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: sv.above_threshold_probabilities([1, 2], 1, -1), "epsilon"),
        (lambda: sv.above_threshold_probabilities([], 1, 1), "answers"),
        (lambda: sv.above_threshold_probabilities([1, 2], float("nan"), 1), "threshold"),
        (lambda: sv.above_threshold_probabilities([1, float("nan")], 1, 1), "answers"),
        (lambda: sv.above_threshold_probabilities([1, 2], 1, 1, sensitivity=0), "sensitivity"),
        (lambda: sv.sample_above_threshold([1], 1, 1, rng=3), "rng"),
        (lambda: sv.above_threshold_losses([1, 2], [1, 4], 1, 1), "neighbour_answers"),
        (lambda: sv.sparse_probabilities([1, 2], 1, 1, 3), "positives"),
        (lambda: sv.counterexample("no threshold", 3), "variant"),
        (lambda: sv.worst_losses("no stop", 1, max_queries=0), "max_queries"),
        (lambda: composition.group_privacy(-1, 1e-6, 2), "epsilon"),
        (lambda: composition.group_privacy(1, 1e-6, 0), "group_size"),
        (lambda: composition.group_privacy(1, 1e-6, 1.5), "group_size"),
        (lambda: composition.group_privacy(1, 2, 2), "delta"),
        (lambda: composition.parallel_composition([]), "epsilons"),
        (lambda: composition.count_noise_scales(1, 0), "counts"),
        (lambda: sv.above_threshold_accuracy(10, 1.5, 1), "beta"),
    ],
)
def test_bad_input_is_named(call, name):
    with pytest.raises(ValueError, match=name):
        call()


# ---------------------------------------------------------------- any input


_WIDE = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.floats(-1e6, 1e6),
    st.sampled_from([0.0, -0.0, 5e-324, 1e-300, 1e300, -1e308]),
)


@settings(max_examples=25, deadline=None, derandomize=True, phases=[Phase.explicit, Phase.generate])
@given(
    answers=st.lists(_WIDE, min_size=0, max_size=6),
    threshold=_WIDE,
    epsilon=_WIDE,
    sensitivity=_WIDE,
)
def test_any_input_gives_a_law_or_a_named_error(answers, threshold, epsilon, sensitivity):
    try:
        law = sv.above_threshold_probabilities(answers, threshold, epsilon, sensitivity)
    except ValueError as error:
        assert any(
            name in str(error) for name in ("answers", "threshold", "epsilon", "sensitivity")
        ), error
        return
    assert law.shape == (len(answers) + 1,)
    assert np.all((law >= 0) & (law <= 1 + 1e-12)) and law.sum() == pytest.approx(1, abs=1e-9)


@settings(max_examples=40, deadline=None, derandomize=True, phases=[Phase.explicit, Phase.generate])
@given(epsilon=_WIDE, delta=_WIDE, group_size=st.one_of(st.integers(-3, 10**9), _WIDE))
def test_group_privacy_at_any_input(epsilon, delta, group_size):
    for function in (composition.group_privacy, composition.group_privacy_loose):
        try:
            group_epsilon, group_delta = function(epsilon, delta, group_size)
        except ValueError as error:
            assert any(name in str(error) for name in ("epsilon", "delta", "group_size")), error
            continue
        assert 0 <= group_delta <= 1 and group_epsilon >= 0 and not math.isnan(group_epsilon)
        assert group_delta >= min(1.0, delta) * (1 - 1e-12)
