"""Randomised response: the privacy-loss pair, the sampler, the estimate and its error.

Expected values are derived here without the closed forms of dplearn: delta and the
loss's law from the two report distributions by the definition, at 50 digits with
mpmath; the estimate's standard error from the exact binomial law of the number of yes
reports, and from seeded simulations; the central count's error from the Laplace law's
second moment, integrated.
"""

import math

import mpmath
import numpy as np
import pytest
from scipy import stats

from dplearn import privacy_loss
from dplearn import randomized_response as rr
from tests import oracle

TRUTHS = [0.5 + 1e-9, 0.51, 0.6, 0.75, 0.9, 0.99, 1 - 1e-9]


def reports_law(t):
    """{report: (P under D1 = true yes, P under D2 = true no)} at 50 digits."""
    t = mpmath.mpf(t)
    return {1: (t, 1 - t), 0: (1 - t, t)}


def delta_by_definition(t, epsilon):
    """sum over reports of max(0, P1 - e^eps P2): the hockey-stick divergence itself."""
    with mpmath.workdps(50):
        total = mpmath.mpf(0)
        for p1, p2 in reports_law(t).values():
            total += max(mpmath.mpf(0), p1 - mpmath.exp(mpmath.mpf(epsilon)) * p2)
        return total


def losses_by_definition(t):
    with mpmath.workdps(50):
        return {report: mpmath.log(p1 / p2) for report, (p1, p2) in reports_law(t).items()}


@pytest.mark.parametrize("t", TRUTHS)
def test_epsilon_and_the_two_atoms(t):
    pair = privacy_loss.randomized_response(t)
    losses = losses_by_definition(t)
    assert pair.max_loss == pytest.approx(float(losses[1]), rel=4e-16)
    assert pair.epsilon == pair.max_loss
    values, masses = pair.loss_atoms
    assert values[0] == pair.max_loss and values[1] == -pair.max_loss
    assert masses.tolist() == [t, 1 - t]
    assert pair.privacy_loss(np.array([1, 0])).tolist() == [pair.max_loss, -pair.max_loss]
    assert pair.density_d1(1) == t and pair.density_d2(1) == 1 - t
    assert pair.density_d1(0) == 1 - t and pair.density_d2(0) == t
    kl = sum(p1 * mpmath.log(p1 / p2) for p1, p2 in reports_law(t).values())
    assert pair.loss_mean == pytest.approx(float(kl), rel=1e-12)


def test_fair_coins_give_lesson_one_epsilon():
    pair = privacy_loss.randomized_response(0.75)
    # ln 3 to the last bit would hold on one CPU only: log1p differs by an ulp between them.
    assert oracle.ulps_from(pair.max_loss, mpmath.log(3)) <= 1
    assert pair.delta(0.5) == pytest.approx(0.75 * (1 - math.exp(0.5) / 3), rel=1e-15)


@pytest.mark.parametrize("t", TRUTHS)
def test_delta_and_width_against_the_definition(t):
    pair = privacy_loss.randomized_response(t)
    top = pair.max_loss
    epsilons = np.array([0.0, 1e-300, 1e-12, top / 3, top / 2, top * (1 - 1e-9), top, top * 2, 50])
    deltas = pair.delta(epsilons)
    log_deltas = pair.log_delta(epsilons)
    widths = pair.loss_exceeds(epsilons)
    for epsilon, delta, log_delta, width in zip(epsilons, deltas, log_deltas, widths, strict=True):
        expected = delta_by_definition(t, epsilon)
        if epsilon == top:
            # The pair's own epsilon, a rounded ln(t / (1 - t)): delta is 0 there by its
            # convention, while the definition with the exact t leaves an ulp's worth.
            assert delta == 0 and log_delta == -math.inf and expected < 4e-16 * top
            assert width == 0
            continue
        if expected == 0:
            assert delta == 0 and log_delta == -math.inf
        else:
            # Near the top the rounding of max_loss itself sets the accuracy (documented).
            rel = 1e-14 + 4e-16 * top / (top - epsilon)
            assert delta == pytest.approx(float(expected), rel=rel, abs=0), epsilon
            log_expected = float(mpmath.log(expected))
            assert log_delta == pytest.approx(log_expected, rel=0, abs=rel), epsilon
        bad = sum(
            p1
            for report, (p1, _) in reports_law(t).items()
            if losses_by_definition(t)[report] > epsilon
        )
        assert width == pytest.approx(float(bad), rel=1e-15, abs=0), epsilon
    # The closed form the lesson quotes: t (1 - e^(eps' - eps)) below eps, 0 above.
    inside = epsilons < top
    np.testing.assert_allclose(deltas[inside], t * -np.expm1(epsilons[inside] - top), rtol=1e-14)


@pytest.mark.parametrize("t", TRUTHS)
def test_epsilon_for_delta_is_the_smallest_safe_epsilon(t):
    pair = privacy_loss.randomized_response(t)
    for target in [1e-12, 1e-6, 0.01, (2 * t - 1) / 2, 0.999 * (2 * t - 1), 2 * t - 1, 0.999]:
        epsilon = pair.epsilon_for_delta(target)
        assert pair.delta(epsilon) <= target
        if epsilon > 0:
            # Any smaller epsilon, by the definition at 50 digits, breaks the target.
            below = epsilon * (1 - 1e-9)
            assert delta_by_definition(t, below) > target
        else:
            assert delta_by_definition(t, 0.0) <= target * (1 + 1e-12)


def test_quantiles_and_cdf_sort_the_two_atoms():
    pair = privacy_loss.randomized_response(0.75)
    positions = np.array([0.0, 0.3, 0.75 - 1e-12, 0.75, 0.9, 1.0])
    # The atoms sit at max_loss exactly (a contract), which is ln 3 within an ulp.
    top = pair.max_loss
    assert pair.loss_quantile(positions).tolist() == [top, top, top, -top, -top, -top]
    xs = np.array([-5.0, -top, 0.0, top - 1e-12, top, 5.0])
    assert pair.loss_cdf(xs).tolist() == [0.0, 0.25, 0.25, 0.25, 1.0, 1.0]


@pytest.mark.parametrize("bad", [0.5, 0.4, 1.0, 1.5, -1.0, math.nan, math.inf, "0.75", True, None])
def test_bad_truth_probabilities_are_named(bad):
    with pytest.raises(ValueError, match="truth_probability"):
        privacy_loss.randomized_response(bad)


@pytest.mark.parametrize("bad", [2, -1, 0.5, math.nan])
def test_bad_reports_are_named(bad):
    pair = privacy_loss.randomized_response(0.75)
    for method in (pair.privacy_loss, pair.density_d1, pair.density_d2):
        with pytest.raises(ValueError, match="output"):
            method(bad)


# --------------------------------------------------------------------- reports, estimate


def test_randomize_keeps_each_answer_with_probability_t():
    rng = np.random.default_rng(15)
    answers = np.repeat([0, 1], 100_000)
    reports = rr.randomize(answers, 0.75, rng=rng)
    assert set(np.unique(reports)) <= {0, 1}
    kept = np.mean(reports == answers)
    # Binomial(200000, 3/4): sd 0.00097; five of them.
    assert abs(kept - 0.75) < 5 * math.sqrt(0.75 * 0.25 / answers.size)
    again = rr.randomize(answers, 0.75, rng=np.random.default_rng(15))
    assert np.array_equal(reports, again)


def test_the_two_coins_are_randomised_response_with_three_quarters():
    rng = np.random.default_rng(1965)
    answers = np.repeat([0, 1], 100_000)
    reports = rr.coin_flip_reports(answers, rng=rng)
    for truth in (0, 1):
        kept = np.mean(reports[answers == truth] == truth)
        assert abs(kept - 0.75) < 5 * math.sqrt(0.75 * 0.25 / 100_000)


def test_estimate_is_the_inverted_mean():
    reports = np.array([1, 1, 0, 1, 0, 0, 0, 1, 1, 0])
    # y-bar = 1/2: exactly the middle, whatever t is.
    assert rr.estimate_proportion(reports, 0.75) == pytest.approx(0.5, abs=1e-15)
    assert rr.estimate_proportion(np.ones(4), 0.75) == pytest.approx(1.5)
    assert rr.estimate_proportion(np.zeros(4), 0.75) == pytest.approx(-0.5)


def exact_sd_of_estimate(proportion, n, t):
    """sd of pi-hat from the exact Binomial(n, q) law of the number of yes reports."""
    q = (1 - t) + proportion * (2 * t - 1)
    k = np.arange(n + 1)
    masses = stats.binom.pmf(k, n, q)
    estimates = (k / n - (1 - t)) / (2 * t - 1)
    mean = np.dot(masses, estimates)
    assert mean == pytest.approx(proportion, abs=1e-12)  # unbiased
    return math.sqrt(np.dot(masses, (estimates - mean) ** 2))


@pytest.mark.parametrize(
    ("proportion", "n", "t"), [(0.3, 1000, 0.75), (0.0, 50, 0.6), (0.9, 7, 0.99), (0.5, 1, 0.51)]
)
def test_standard_error_against_the_binomial_law(proportion, n, t):
    assert rr.local_standard_error(proportion, n, t) == pytest.approx(
        exact_sd_of_estimate(proportion, n, t), rel=1e-10
    )
    # The decomposition the lesson prints: sampling part and coins' part add in squares.
    total = rr.local_standard_error(proportion, n, t)
    parts = math.hypot(
        rr.sampling_standard_error(proportion, n), rr.local_noise_standard_error(n, t)
    )
    assert total == pytest.approx(parts, rel=1e-13)


def test_noise_part_against_fixed_answers_by_convolution():
    """With the n answers held fixed, the yes count is a sum of Bernoulli(t) and
    Bernoulli(1 - t): its exact law by convolution, whatever the proportion."""
    t, yes, no = 0.7, 9, 21
    law = np.array([1.0])
    for q in [t] * yes + [1 - t] * no:
        law = np.convolve(law, [1 - q, q])
    n = yes + no
    estimates = (np.arange(n + 1) / n - (1 - t)) / (2 * t - 1)
    mean = np.dot(law, estimates)
    assert mean == pytest.approx(yes / n, abs=1e-12)
    sd = math.sqrt(np.dot(law, (estimates - mean) ** 2))
    assert rr.local_noise_standard_error(n, t) == pytest.approx(sd, rel=1e-10)


def test_standard_error_by_simulation():
    """Draw people from the population, randomise, estimate: 4000 surveys of 1000."""
    rng = np.random.default_rng(2026)
    estimates = []
    for _ in range(4000):
        answers = (rng.random(1000) < 0.3).astype(int)
        estimates.append(rr.estimate_proportion(rr.randomize(answers, 0.75, rng=rng), 0.75))
    estimates = np.array(estimates)
    expected = rr.local_standard_error(0.3, 1000, 0.75)
    assert abs(estimates.mean() - 0.3) < 4 * expected / math.sqrt(4000)
    # The sample sd of 4000 draws is within about 1.1 % (one sd) of the truth.
    assert estimates.std(ddof=1) == pytest.approx(expected, rel=0.05)


def test_the_lesson_numbers():
    local = rr.local_standard_error(0.3, 1000, 0.75)
    central = rr.central_standard_error(1000, math.log(3))
    # sqrt(0.4 * 0.6 / 1000) / (1/2) and sqrt(2) / (1000 ln 3), written out.
    assert local == pytest.approx(2 * math.sqrt(0.24 / 1000), rel=1e-14)
    assert central == pytest.approx(math.sqrt(2) / (1000 * math.log(3)), rel=1e-14)
    assert round(local, 4) == 0.0310 and round(central, 5) == 0.00129
    assert round(local / central) == 24


def test_central_error_is_the_laplace_sd_over_n():
    epsilon, n = 0.7, 250
    with mpmath.workdps(30):
        b = 1 / mpmath.mpf(epsilon)
        second_moment = mpmath.quad(
            lambda x: x**2 * mpmath.exp(-abs(x) / b) / (2 * b), [-mpmath.inf, 0, mpmath.inf]
        )
    assert rr.central_standard_error(n, epsilon) == pytest.approx(
        float(mpmath.sqrt(second_moment) / n), rel=1e-12
    )


def test_errors_fall_like_one_over_root_n_and_one_over_n():
    n = np.array([100, 10_000, 1_000_000])
    local = rr.local_standard_error(0.3, n, 0.75)
    central = rr.central_standard_error(n, math.log(3))
    np.testing.assert_allclose(local[:-1] / local[1:], 10.0, rtol=1e-12)
    np.testing.assert_allclose(central[:-1] / central[1:], 100.0, rtol=1e-12)


def test_truth_probability_for_epsilon_inverts_the_pair():
    # t is a double: near 1/2 and near 1 it keeps fewer digits of epsilon (ulp(t) / (2t - 1)
    # and ulp(1) / (1 - t) relative), 1e-10 at worst for these.
    for epsilon in [1e-6, 0.1, math.log(3), 5.0, 15.0]:
        t = rr.truth_probability_for_epsilon(epsilon)
        assert privacy_loss.randomized_response(t).max_loss == pytest.approx(epsilon, rel=1e-9)
    assert rr.truth_probability_for_epsilon(math.log(3)) == pytest.approx(0.75, rel=1e-15)


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: rr.randomize([0, 2], 0.75, rng=np.random.default_rng(0)), "true_answers"),
        (lambda: rr.randomize([[0, 1]], 0.75, rng=np.random.default_rng(0)), "true_answers"),
        (lambda: rr.randomize([0, 1], 0.4, rng=np.random.default_rng(0)), "truth_probability"),
        (lambda: rr.randomize([0, 1], 0.75, rng=0), "rng"),
        (lambda: rr.coin_flip_reports([], rng=np.random.default_rng(0)), "true_answers"),
        (lambda: rr.estimate_proportion([0.5], 0.75), "reports"),
        (lambda: rr.local_standard_error(1.5, 10, 0.75), "proportion"),
        (lambda: rr.local_standard_error(0.5, 10.5, 0.75), "n"),
        (lambda: rr.local_standard_error(0.5, 0, 0.75), "n"),
        (lambda: rr.central_standard_error(10, 0.0), "epsilon"),
        (lambda: rr.truth_probability_for_epsilon(math.inf), "epsilon"),
    ],
)
def test_bad_input_is_named(call, name):
    with pytest.raises(ValueError, match=name):
        call()


# ------------------------------------------------- k randomised responses, composed exactly


def binomial_sums(t, k, epsilon):
    """(delta, P[L > epsilon]) of k randomised responses by brute force at 50 digits: the
    sum over j (the number of -epsilon0 reports) of C(k, j) t^(k - j) (1 - t)^j, the loss
    being (k - 2 j) epsilon0, against the definition max(0, P1 - e^epsilon P2)."""
    with mpmath.workdps(50):
        t = mpmath.mpf(t)
        epsilon0 = mpmath.log(t / (1 - t))
        delta = exceeds = mpmath.mpf(0)
        for j in range(k + 1):
            p1 = mpmath.binomial(k, j) * t ** (k - j) * (1 - t) ** j
            loss = (k - 2 * j) * epsilon0
            p2 = p1 * mpmath.exp(-loss)
            delta += max(mpmath.mpf(0), p1 - mpmath.exp(epsilon) * p2)
            if loss > epsilon:
                exceeds += p1
        return float(delta), float(exceeds)


@pytest.mark.parametrize(
    ("t", "k"), [(0.75, 1), (0.75, 2), (0.75, 10), (0.6, 50), (0.99, 7), (0.51, 300)]
)
def test_composed_randomized_response_against_the_binomial_sum(t, k):
    from dplearn import composition

    pair = privacy_loss.randomized_response(t)
    composed = composition.compose(pair, k)
    epsilon0 = pair.max_loss
    assert composed.max_loss == pytest.approx(k * epsilon0, rel=1e-15)
    assert composed.loss_mean == pytest.approx(k * (2 * t - 1) * epsilon0, rel=1e-12)
    # Off the lattice points (k - 2 j) epsilon0 (where P[L > epsilon] jumps), by at least
    # 0.02 epsilon0, up to beyond the largest.
    epsilons = (np.arange(22) + 0.37) * (1.1 * k * epsilon0 / 22)
    deltas = composed.delta(epsilons)
    exceeds = composed.loss_exceeds(epsilons)
    for epsilon, delta, above in zip(epsilons, deltas, exceeds, strict=True):
        want_delta, want_above = binomial_sums(t, k, epsilon)
        assert delta == pytest.approx(want_delta, rel=1e-10, abs=1e-300)
        assert above == pytest.approx(want_above, rel=1e-10, abs=1e-300)
    # The worst epsilon0-DP mechanism k times: lesson 08's optimal composition.
    optimal = composition.optimal_delta(epsilon0, 0.0, k, epsilons)
    assert np.allclose(deltas, optimal, rtol=1e-9, atol=0.0)
    for target in (0.5, 1e-3, 1e-9):
        epsilon = composed.epsilon_for_delta(target)
        if epsilon > 0:
            assert composed.delta(epsilon) <= target
            assert binomial_sums(t, k, epsilon * (1 - 1e-9))[0] > target
        else:
            assert composed.delta(0.0) <= target


def test_one_composed_randomized_response_is_the_pair():
    from dplearn import composition

    pair = privacy_loss.randomized_response(0.75)
    epsilons = np.linspace(0.0, 1.2, 13)
    assert np.allclose(composition.compose(pair, 1).delta(epsilons), pair.delta(epsilons))
    with pytest.raises(ValueError, match="k must be <= 200000"):
        composition.compose(pair, 200_001)
