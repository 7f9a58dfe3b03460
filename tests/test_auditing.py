"""Membership attacks and audits (lesson 14): the caps (epsilon, delta) and a DP-SGD run put on
an attacker, and the lower bounds on epsilon an audit proves, against independent values."""

import functools
import logging
import math

import mpmath
import numpy as np
import pytest

from dplearn import accounting, auditing, training
from dplearn.auditing import _many_models, black_box
from dplearn.auditing import scores as scores_module

MNIST_RATE = 256 / 60000


def _cap(epsilon, delta, alpha):
    """The region's cap, with mpmath at 40 digits."""
    with mpmath.workdps(40):
        e, d, a = mpmath.mpf(epsilon), mpmath.mpf(delta), mpmath.mpf(alpha)
        return float(min(1, mpmath.exp(e) * a + d, 1 - mpmath.exp(-e) * (1 - d - a)))


def test_mia1_caps_at_one_percent():
    # MIA-1's numbers (docs/figures.md), the region of Kairouz, Oh & Viswanath, "The
    # composition theorem for differential privacy" (2015): 0.0272, 0.1081, 0.546, 0.9997
    # at FPR 1 %, delta 1e-5.
    printed = {1.0: (0.0272, 4), 2.38: (0.1081, 4), 4.0: (0.546, 3), 8.0: (0.9997, 4)}
    for epsilon, (value, digits) in printed.items():
        cap = auditing.max_true_positive_rate(epsilon, 1e-5, 0.01)
        assert round(cap, digits) == value
        assert cap == pytest.approx(_cap(epsilon, 1e-5, 0.01), rel=1e-13)


def test_cap_against_mpmath_and_its_shape():
    alphas = np.array([0.0, 1e-9, 0.001, 0.2, 0.5, 0.9, 1.0])
    for epsilon in (0.0, 0.1, 1.0, 3.0, 20.0):
        for delta in (0.0, 1e-5, 0.1):
            caps = auditing.max_true_positive_rate(epsilon, delta, alphas)
            expected = [_cap(epsilon, delta, a) for a in alphas]
            np.testing.assert_allclose(caps, expected, rtol=1e-12, atol=1e-16)
            assert np.all(caps >= alphas - 1e-15) and np.all(caps <= 1.0)
    # e^epsilon alpha alone would exceed 1; the complement's bound keeps the cap below it.
    assert math.exp(8.0) * 0.5 > 1 > auditing.max_true_positive_rate(8.0, 0.0, 0.5)
    assert auditing.max_true_positive_rate(1.0, 0.5, 0.6) == 1.0
    assert auditing.max_true_positive_rate(math.inf, 0.0, 0.01) == 1.0


@functools.cache
def _clopper_pearson_mpmath(successes, trials, level):
    """The p with P[Binomial(n, p) <= k] = 1 - level: a root of the exact binomial sum."""
    with mpmath.workdps(40):

        def tail(p):
            return sum(
                mpmath.binomial(trials, i) * p**i * (1 - p) ** (trials - i)
                for i in range(successes + 1)
            ) - (1 - mpmath.mpf(level))

        # The sum falls as p grows: bisection, 64 halvings (far below a double's ulp).
        low, high = mpmath.mpf(0), mpmath.mpf(1)
        for _ in range(64):
            middle = (low + high) / 2
            low, high = (middle, high) if tail(middle) > 0 else (low, middle)
        return float((low + high) / 2)


def test_clopper_pearson_against_the_binomial_sum_and_the_incomplete_beta():
    for trials in (1, 2, 5, 12):
        for successes in range(trials):
            for level in (0.9, 0.975):
                ours = auditing.clopper_pearson_upper(successes, trials, level)
                assert ours == pytest.approx(
                    _clopper_pearson_mpmath(successes, trials, level), rel=1e-9
                )
                with mpmath.workdps(40):
                    # The same point through mpmath's regularised incomplete beta.
                    value = mpmath.betainc(successes + 1, trials - successes, 0, ours, True)
                assert float(value) == pytest.approx(level, rel=1e-9)
        assert auditing.clopper_pearson_upper(trials, trials, 0.975) == 1.0


def test_epsilon_lower_bound_by_hand_over_small_counts():
    level = 1 - 0.05 / 2
    for positives in (1, 3, 7):
        for negatives in (1, 6):
            for tp in range(positives + 1):
                for fp in range(negatives + 1):
                    fpr = _clopper_pearson_mpmath(fp, negatives, level) if fp < negatives else 1
                    fnr = _clopper_pearson_mpmath(positives - tp, positives, level) if tp > 0 else 1
                    for delta in (0.0, 1e-3):
                        candidates = [0.0]
                        for top, bottom in ((1 - delta - fnr, fpr), (1 - delta - fpr, fnr)):
                            if top > 0 and bottom > 0:
                                candidates.append(math.log(top / bottom))
                        ours = auditing.epsilon_lower_bound(
                            tp, positives - tp, fp, negatives - fp, delta
                        )
                        assert ours == pytest.approx(max(candidates), rel=1e-8, abs=1e-12)


def test_epsilon_lower_bound_grows_with_evidence_and_confidence_costs():
    # A perfect attack on N trials proves more as N grows, and less at higher confidence.
    bounds = [auditing.epsilon_lower_bound(n, 0, 0, n) for n in (10, 100, 1000, 10000)]
    assert all(a < b for a, b in zip(bounds, bounds[1:], strict=False))
    # ln((1 - FNR+) / FPR+) with both rates bounded by 1 - 0.025^(1/n).
    upper = 1 - 0.025 ** (1 / 1000)
    assert bounds[2] == pytest.approx(math.log((1 - upper) / upper), rel=1e-9)
    assert auditing.epsilon_lower_bound(1000, 0, 0, 1000, confidence=0.99) < bounds[2]
    # Coin tossing proves nothing.
    assert auditing.epsilon_lower_bound(500, 500, 500, 500) == 0.0


def test_one_run_bound_of_mia5_and_the_beta_quantile():
    # MIA-5's number (docs/figures.md), after Steinke, Nasr & Jagielski, "Privacy auditing
    # with one (1) training run" (2023): r = 100, v = 80, 95 %, delta = 0: epsilon >= 0.958.
    assert round(auditing.one_run_epsilon_lower_bound(100, 80), 3) == 0.958
    from scipy import special, stats

    # Independently: the largest p with P[Binomial(r, p) >= v] <= 1 - c is the Beta
    # (v, r - v + 1) quantile at 1 - c, and epsilon its log-odds.
    for guesses, correct, confidence in [(100, 80, 0.95), (10, 10, 0.9), (1000, 560, 0.95)]:
        quantile = stats.beta.ppf(1 - confidence, correct, guesses - correct + 1)
        expected = max(float(special.logit(quantile)), 0.0)
        ours = auditing.one_run_epsilon_lower_bound(guesses, correct, confidence=confidence)
        assert ours == pytest.approx(expected, rel=1e-8)
    assert auditing.one_run_epsilon_lower_bound(100, 50) == 0.0
    assert auditing.one_run_epsilon_lower_bound(100, 0) == 0.0


def test_one_run_bound_with_delta_against_mpmath():
    guesses, correct, canaries, delta = 100, 80, 1000, 1e-6
    ours = auditing.one_run_epsilon_lower_bound(guesses, correct, delta, canaries=canaries)
    no_delta = auditing.one_run_epsilon_lower_bound(guesses, correct)
    assert 0 < ours < no_delta
    with mpmath.workdps(40):
        p = 1 / (1 + mpmath.exp(-mpmath.mpf(ours)))

        def pmf(i):
            return mpmath.binomial(guesses, i) * p**i * (1 - p) ** (guesses - i)

        tail = sum(pmf(i) for i in range(correct, guesses + 1))
        spread = max(
            sum(pmf(j) for j in range(correct - i, correct)) / i for i in range(1, correct + 1)
        )
        p_value = float(tail + 2 * canaries * delta * spread)
    # The bound sits where the p-value meets 1 - confidence, from below.
    assert p_value == pytest.approx(0.05, rel=1e-7)
    assert p_value <= 0.05 * (1 + 1e-9)


def test_dp_sgd_curve_against_dp_accounting():
    from dp_accounting.pld import privacy_loss_distribution

    logging.getLogger().setLevel(logging.ERROR)
    alphas = np.array([1e-4, 1e-3, 0.01, 0.05, 0.2, 0.5])
    for rate, sigma, steps in [(32 / 427, 4.0, 400), (0.05, 0.9, 300)]:
        theirs = (
            privacy_loss_distribution.from_gaussian_mechanism(
                sigma, sampling_prob=rate, value_discretization_interval=1e-4, use_connect_dots=True
            )
            .self_compose(steps)
            ._pmf_remove
        )
        epsilons, deltas = auditing.dp_sgd_privacy_profile(rate, sigma, steps)
        their_deltas = np.array(theirs.get_delta_for_epsilon(epsilons))
        big = their_deltas > 1e-12
        # The same connect-the-dots PLD; the tails each library cuts differ by < 1e-11.
        np.testing.assert_allclose(deltas[big], their_deltas[big], rtol=1e-5, atol=1e-11)
        their_caps = [min(1.0, np.min(np.exp(epsilons) * a + their_deltas)) for a in alphas]
        ours = auditing.dp_sgd_max_true_positive_rate(rate, sigma, steps, alphas)
        np.testing.assert_allclose(ours, their_caps, rtol=1e-5)
        # Inside the region of the run's own (epsilon, delta) at delta = 1e-5.
        epsilon = accounting.dp_sgd_epsilon(rate, sigma, steps, 1e-5)
        assert np.all(ours <= auditing.max_true_positive_rate(epsilon, 1e-5, alphas) + 1e-12)


def test_mnist_run_curve_lies_below_the_region():
    cap = auditing.dp_sgd_max_true_positive_rate(MNIST_RATE, 1.1, 14063, 0.01)
    region = auditing.max_true_positive_rate(2.38178, 1e-5, 0.01)
    assert 0.01 < cap < region


def test_strongest_attacker_hits_the_curve():
    """Its empirical ROC points lie within their confidence intervals of the run's curve."""
    from scipy import stats

    rate, sigma, steps = 0.1, 1.0, 50
    scores = auditing.gradient_canary_scores(
        rate, sigma, steps, 20000, rng=np.random.default_rng(14)
    )
    n = scores.members.size
    for alpha in (0.01, 0.05, 0.1, 0.3, 0.6):
        threshold = scores_module._threshold(scores.non_members, alpha)
        tp, fn, fp, tn = auditing.audit_counts(scores, threshold)
        # Two-sided 99.9 % Clopper-Pearson intervals on both rates.
        fpr_low = stats.beta.ppf(0.0005, fp, tn + 1) if fp else 0.0
        fpr_high = stats.beta.ppf(0.9995, fp + 1, tn) if tn else 1.0
        tpr_low = stats.beta.ppf(0.0005, tp, fn + 1) if tp else 0.0
        tpr_high = stats.beta.ppf(0.9995, tp + 1, fn) if fn else 1.0
        curve_low, curve_high = auditing.dp_sgd_max_true_positive_rate(
            rate, sigma, steps, [fpr_low, fpr_high]
        )
        assert tpr_high >= curve_low, (alpha, tp / n, curve_low)
        assert tpr_low <= curve_high, (alpha, tp / n, curve_high)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_audits_never_exceed_the_accountant(seed):
    rate, sigma, steps, delta = 0.1, 1.0, 50, 1e-5
    epsilon = accounting.dp_sgd_epsilon(rate, sigma, steps, delta)
    rng = np.random.default_rng(seed)
    calibration = auditing.gradient_canary_scores(rate, sigma, steps, 2000, rng=rng)
    scores = auditing.gradient_canary_scores(rate, sigma, steps, 5000, rng=rng)
    result = auditing.audit(scores, calibration, delta=delta)
    assert 0.3 * epsilon < result.epsilon <= epsilon


def test_black_box_audit_stays_below_the_accountant():
    run = auditing.LESSON11_RUN
    epsilon = accounting.dp_sgd_epsilon(
        run.sampling_rate,
        run.noise_multiplier,
        training.steps_for_epochs(run.epochs, run.sampling_rate),
        1e-5,
    )
    scores = auditing.black_box_canary_scores(40, seed=1)
    calibration = auditing.black_box_canary_scores(40, seed=2)
    result = auditing.audit(scores, calibration, delta=1e-5)
    assert result.epsilon <= epsilon
    assert result.true_positives + result.false_negatives == 40
    # Cached: the same setting gives the same scores without training again.
    again = auditing.black_box_canary_scores(40, seed=1)
    np.testing.assert_array_equal(again.members, scores.members)
    with pytest.raises(ValueError, match="trials"):
        auditing.black_box_canary_scores(5001, seed=1)


@pytest.mark.parametrize("seed", [11, 12, 13])
def test_black_box_audits_of_many_models_never_exceed_the_accountant(seed):
    # Seeded runs of 1,000 trained models (500 of each kind) and 400 calibration models:
    # at every N the audit proves at most the accountant's epsilon.
    run = auditing.LESSON11_RUN
    steps = training.steps_for_epochs(run.epochs, run.sampling_rate)
    epsilon = accounting.dp_sgd_epsilon(run.sampling_rate, run.noise_multiplier, steps, 1e-5)
    scores = auditing.black_box_canary_scores(500, seed=seed)
    calibration = auditing.black_box_canary_scores(200, seed=seed + 100)
    for trials in (100, 400, 1000):
        for confidence in (0.8, 0.95):
            result = auditing.audit(scores, calibration, trials, 1e-5, confidence)
            assert 0 <= result.epsilon <= epsilon
            assert result.true_positives + result.false_negatives == trials // 2


def test_tracing_attack_needs_the_exact_means():
    exact = auditing.tracing_scores(100, 1000, math.inf, 1e-5, 5, rng=np.random.default_rng(0))
    noisy = auditing.tracing_scores(100, 1000, 1.0, 1e-5, 5, rng=np.random.default_rng(0))
    assert auditing.true_positive_rate_at(exact, 0.05) > 0.5
    tpr = auditing.true_positive_rate_at(noisy, 0.05)
    assert tpr < auditing.max_true_positive_rate(1.0, 1e-5, 0.05)


def test_one_run_audit_is_seeded_and_below_the_accountant():
    first = auditing.one_run_audit(200, 100, seed=5)
    assert first == auditing.one_run_audit(200, 100, seed=5)
    assert first.epsilon <= accounting.dp_sgd_epsilon(32 / 427, 4.0, 401, 1e-5)


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: auditing.max_true_positive_rate(1.0, 1e-5, 1.5), "false_positive_rate"),
        (lambda: auditing.max_true_positive_rate(1.0, -0.1, 0.5), "delta"),
        (lambda: auditing.max_true_positive_rate(-1.0, 0.0, 0.5), "epsilon"),
        (lambda: auditing.epsilon_lower_bound(-1, 3, 3, 3), "true_positives"),
        (lambda: auditing.epsilon_lower_bound(3, 3, -2, 3), "false_positives"),
        (lambda: auditing.epsilon_lower_bound(3, 3, 3, 3, confidence=1.0), "confidence"),
        (lambda: auditing.epsilon_lower_bound(3, 3, 3, 3, delta=2.0), "delta"),
        (lambda: auditing.one_run_epsilon_lower_bound(10, 11), "correct"),
        (lambda: auditing.one_run_epsilon_lower_bound(10, 5, confidence=0.0), "confidence"),
        (lambda: auditing.one_run_epsilon_lower_bound(-1, 0), "guesses"),
        (lambda: auditing.one_run_epsilon_lower_bound(10, 5, 1e-5), "canaries"),
        (lambda: auditing.dp_sgd_max_true_positive_rate(0.1, 1.0, 10, -0.5), "false_positive_rate"),
    ],
)
def test_bad_input_names_the_parameter(call, name):
    with pytest.raises(ValueError, match=name):
        call()


# The contract at any input: a result in range, or a ValueError naming the parameter.

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

ANY_FLOAT = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([0.0, 1.0, 1e-300, 1 - 1e-16, -0.0, 5e-324]),
)
COUNTS = st.integers(-3, 10**6)
ANY_SETTING = settings(max_examples=120, derandomize=True, database=None, deadline=None)


def _named(error, names):
    return any(name in str(error) for name in names)


@given(epsilon=ANY_FLOAT, delta=ANY_FLOAT, alpha=ANY_FLOAT)
@ANY_SETTING
def test_cap_at_any_input(epsilon, delta, alpha):
    try:
        cap = auditing.max_true_positive_rate(epsilon, delta, alpha)
    except ValueError as error:
        assert _named(error, ("epsilon", "delta", "false_positive_rate")), error
        return
    assert 0.0 <= cap <= 1.0 and cap >= min(alpha, 1.0) - 1e-12


@given(tp=COUNTS, fn=COUNTS, fp=COUNTS, tn=COUNTS, confidence=ANY_FLOAT)
@ANY_SETTING
def test_lower_bound_at_any_counts(tp, fn, fp, tn, confidence):
    names = ("true_positives", "false_negatives", "false_positives", "true_negatives")
    try:
        bound = auditing.epsilon_lower_bound(tp, fn, fp, tn, 0.0, confidence)
    except ValueError as error:
        assert _named(error, (*names, "confidence")), error
        return
    assert 0.0 <= bound < math.inf
    # Never more than what the same counts would prove at a lower confidence.
    if 0.5 < confidence < 1:
        assert bound <= auditing.epsilon_lower_bound(tp, fn, fp, tn, 0.0, 0.5) + 1e-9


@given(guesses=st.integers(-2, 5000), correct=st.integers(-2, 5000), confidence=ANY_FLOAT)
@ANY_SETTING
def test_one_run_bound_at_any_input(guesses, correct, confidence):
    try:
        bound = auditing.one_run_epsilon_lower_bound(guesses, correct, 0.0, confidence)
    except ValueError as error:
        assert _named(error, ("guesses", "correct", "confidence")), error
        return
    assert 0.0 <= bound <= 60.0


def _no_extras(data, models):
    return np.zeros((0, data.dimension)), np.zeros(0), np.zeros((models, 0), dtype=bool)


def test_models_trained_together_are_lesson_11s_run_without_sampling_or_noise():
    # With every example in every batch and no noise, both trainers are deterministic:
    # the same start, steps, clipping and step size must give the same weights.
    data = black_box._breast_cancer()
    for rate, clip_norm in ((1.0, 1.0), (1.0, 0.05)):
        run = auditing.TrainingRun(rate, 0.0, clip_norm, 3, 0.5)
        together = black_box._train_many(data, *_no_extras(data, 2), run, np.random.default_rng(0))
        alone = training._train(data, rate, 0.0, clip_norm, 3, 0.5, np.random.default_rng(0))[3]
        for weights in together:
            np.testing.assert_allclose(weights, alone, rtol=1e-11, atol=1e-13)


def _final_statistics(weights, data):
    """Per model: its logit on the first test example and its mean training loss."""
    scores = weights @ data.train_features.T
    losses = np.logaddexp(0.0, scores) - data.train_labels * scores
    return weights @ data.test_features[0], losses.mean(axis=1)


def test_models_trained_together_follow_lesson_11s_run():
    # The random streams differ (one generator for all models against two spawned ones per
    # run), so the final models' distributions are compared: a two-sample Kolmogorov-Smirnov
    # test between 150 seeded runs of lesson 11's trainer and 1,500 models trained together,
    # at the 0.001 level. A step size 20 % off is rejected at that level.
    from scipy import stats

    data = black_box._breast_cancer()
    run = auditing.LESSON11_RUN
    alone = np.array(
        [
            training._train(
                data,
                run.sampling_rate,
                run.noise_multiplier,
                run.clip_norm,
                run.epochs,
                run.learning_rate,
                np.random.default_rng(seed),
            )[3]
            for seed in range(150)
        ]
    )
    expected = _final_statistics(alone, data)

    def p_values(setting, seed):
        weights = black_box._train_many(
            data, *_no_extras(data, 1500), setting, np.random.default_rng(seed)
        )
        return [
            stats.ks_2samp(a, b).pvalue
            for a, b in zip(expected, _final_statistics(weights, data), strict=True)
        ]

    assert min(p_values(run, 11)) > 1e-3
    assert min(p_values(run._replace(learning_rate=0.4), 12)) < 1e-3


def test_bernoulli_successes_are_independent_draws():
    # Each place succeeds with probability q, independently: counts over 20,000 repetitions
    # of 50 places agree with Binomial(20000, q) at every place (within 5 standard
    # deviations), and the number per repetition has the variance of Binomial(50, q).
    rng = np.random.default_rng(3)
    rate, places, repeats = 0.07, 50, 20_000
    hits = np.zeros((repeats, places), dtype=bool)
    for row in hits:
        row[_many_models.bernoulli_successes(places, rate, rng)] = True
    spread = math.sqrt(repeats * rate * (1 - rate))
    assert np.all(np.abs(hits.sum(axis=0) - repeats * rate) < 5 * spread)
    sizes = hits.sum(axis=1)
    assert sizes.var() == pytest.approx(places * rate * (1 - rate), rel=0.05)
    everything = _many_models.bernoulli_successes(10, 1.0, rng)
    np.testing.assert_array_equal(everything, np.arange(10))
    # Many places at a high rate: sorted, distinct, within range, about half of them.
    many = _many_models.bernoulli_successes(1_000_000, 0.5, rng)
    assert np.all(np.diff(many) > 0) and many[-1] < 1_000_000
    assert abs(many.size - 500_000) < 5 * 500


def test_sampling_interval_covers_simulated_gaussian_tests():
    """N(mu, 1) against N(0, 1) scores read at alpha: the interval holds its share of draws."""
    from scipy import stats

    mu, trials, repeats = 1.0, 400, 4000
    curve = lambda rates: stats.norm.sf(stats.norm.isf(rates) - mu)  # noqa: E731
    rng = np.random.default_rng(1410)
    members = rng.standard_normal((repeats, trials)) + mu
    non_members = rng.standard_normal((repeats, trials))
    for alpha in (0.01, 0.1, 0.5):
        rates = np.array(
            [
                auditing.true_positive_rate_at(auditing.Scores(m, n), alpha)
                for m, n in zip(members, non_members, strict=True)
            ]
        )
        low, high = auditing.sampling_interval(curve, alpha, trials, 0.9)
        inside = np.mean((rates >= low) & (rates <= high))
        # At least 90 % (a discrete count's central range holds a little more), and not
        # much more: the interval is not padded.
        assert 0.89 <= inside <= 0.96, (alpha, inside)
        assert low <= float(curve(alpha)) <= high


def test_sampling_interval_edges_and_bad_input():
    curve = lambda rates: np.sqrt(rates)  # noqa: E731
    assert auditing.sampling_interval(curve, 1.0, 10) == (1.0, 1.0)
    low, high = auditing.sampling_interval(curve, 0.0, 100, 0.5)
    assert 0.0 <= low <= high <= 1.0
    for kwargs, name in [
        (dict(false_positive_rate=1.5), "false_positive_rate"),
        (dict(trials=0), "trials"),
        (dict(confidence=1.0), "confidence"),
    ]:
        arguments = dict(false_positive_rate=0.1, trials=100, confidence=0.95) | kwargs
        with pytest.raises(ValueError, match=name):
            auditing.sampling_interval(curve, **arguments)


def test_mia3_strongest_attacker_lies_within_its_intervals_of_the_drawn_curve():
    """The page's strongest attacker (seed 1401, 5,000 runs of each kind) against its curve.

    The curve MIA-3 draws is the exact trade-off of the attacker's own pair (T steps of
    (1 - q) N(0, sigma^2) + q N(1, sigma^2) against N(0, sigma^2)): at alpha = 0.1 %, 1 %
    and 10 % it lies inside the two-sided 99.9 % Clopper-Pearson interval of the
    attacker's true-positive count, and the count inside the 99.9 % range of
    ``sampling_interval`` (which adds the noise of the threshold's own false-positive rate).
    """
    from scipy import stats

    from dplearn import figures

    run = auditing.LESSON11_RUN
    steps = figures.auditing.LESSON11_STEPS
    scores = figures.auditing.strongest_scores()
    n = scores.members.size
    assert n == 5000 and steps == 401
    for alpha in (0.001, 0.01, 0.1):
        curve = float(
            auditing.dp_sgd_max_true_positive_rate(
                run.sampling_rate, run.noise_multiplier, steps, alpha
            )
        )
        positives = round(auditing.true_positive_rate_at(scores, alpha) * n)
        low = stats.beta.ppf(0.0005, positives, n - positives + 1)
        high = stats.beta.ppf(0.9995, positives + 1, n - positives)
        assert low <= curve <= high, (alpha, positives / n, curve)
        low, high = auditing.sampling_interval(figures.auditing.lesson11_curve_at, alpha, n, 0.999)
        assert low <= positives / n <= high, (alpha, positives / n, low, high)


def test_mia3_curve_is_the_attackers_own_pair_by_many_runs():
    """With 40,000 runs of each kind the likelihood-ratio attacker meets the drawn curve.

    The remove direction's PLD is the pair (with the canary, without it) the attacker
    tests; the points lie inside the 99.9 % sampling range at 40,000 runs.
    """
    from dplearn import figures

    run = auditing.LESSON11_RUN
    steps = figures.auditing.LESSON11_STEPS
    scores = auditing.gradient_canary_scores(
        run.sampling_rate, run.noise_multiplier, steps, 40000, rng=np.random.default_rng(1411)
    )
    for alpha in (0.001, 0.01, 0.1, 0.5):
        rate = auditing.true_positive_rate_at(scores, alpha)
        low, high = auditing.sampling_interval(
            figures.auditing.lesson11_curve_at, alpha, 40000, 0.999
        )
        assert low <= rate <= high, (alpha, rate, low, high)


def test_loss_threshold_scores_are_minus_each_examples_loss():
    data = black_box._breast_cancer()
    weights = np.random.default_rng(1412).standard_normal(data.dimension)
    scores = auditing.loss_threshold_scores(weights, data)
    assert scores.members.size == data.size
    assert scores.non_members.size == data.test_labels.size
    # Their means are lesson 11's loss, each example's by the definition written out.
    assert -scores.members.mean() == pytest.approx(
        training.logistic_loss(weights, data.train_features, data.train_labels), rel=1e-12
    )
    x, y = data.test_features[3], data.test_labels[3]
    p = 1 / (1 + math.exp(-(weights @ x)))
    assert -scores.non_members[3] == pytest.approx(-(y * math.log(p) + (1 - y) * math.log(1 - p)))
    with pytest.raises(ValueError, match="weights"):
        auditing.loss_threshold_scores(weights[:-1], data)
