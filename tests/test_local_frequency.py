"""Frequency oracles (dplearn.local_frequency): lesson 17's numbers.

Independent values: mpmath at MPMATH_DIGITS digits (each protocol's p and q from its
definition, every report's probability enumerated, the binomial sums behind the variance),
seeded simulations of the reports (within STANDARD_ERRORS standard errors of the exact
law), scipy.optimize for the projection onto the simplex, lesson 00's randomised response,
and pure-ldp (Maddock's implementations of Wang et al.'s protocols) on the same reports.
"""

import importlib.util
import itertools
import math
import pathlib

import mpmath
import numpy as np
import pytest
from scipy import optimize

from dplearn import local_frequency as lf
from dplearn import randomized_response

MPMATH_DIGITS = 50

#: Simulated means and variances must lie within this many standard errors of the exact ones.
STANDARD_ERRORS = 4

#: Relative error allowed between a double computed here and its mpmath value.
RELATIVE = 1e-13

EPSILONS = (0.1, 0.5, 1.0, 2.5, 6.0)
SMALL_CATEGORIES = (2, 3, 4, 5)


@pytest.fixture(autouse=True)
def _digits():
    with mpmath.workdps(MPMATH_DIGITS):
        yield


def close(value, exact, relative=RELATIVE):
    return abs(value - float(exact)) <= relative * abs(float(exact))


# ---------------------------------------------------------------- mpmath oracles


def exact_parameters(protocol, epsilon, categories):
    """(p, q) of a protocol, in mpmath, from its definition."""
    e = mpmath.exp(mpmath.mpf(epsilon))
    if protocol == "direct":
        return e / (e + categories - 1), 1 / (e + categories - 1)
    if protocol == "symmetric unary":
        half = mpmath.sqrt(e)
        return half / (half + 1), 1 / (half + 1)
    if protocol == "optimized unary":
        return mpmath.mpf(1) / 2, 1 / (e + 1)
    g = int(mpmath.nint(e + 1))
    return e / (e + g - 1), mpmath.mpf(1) / g


def exact_variance(p, q, users, count):
    """Var[c-hat] from the binomial sums: (Var Bin(c, p) + Var Bin(n - c, q)) / (p - q)^2."""

    def binomial_variance(trials, probability):
        pmf = [
            mpmath.binomial(trials, k) * probability**k * (1 - probability) ** (trials - k)
            for k in range(trials + 1)
        ]
        mean = sum(k * weight for k, weight in enumerate(pmf))
        return sum(k * k * weight for k, weight in enumerate(pmf)) - mean**2

    return (binomial_variance(count, p) + binomial_variance(users - count, q)) / (p - q) ** 2


def enumerated_loss(probabilities):
    """max over reports and pairs of values of |ln P[r | v] / P[r | v']|, in mpmath."""
    worst = 0
    for row in probabilities:
        logs = [mpmath.log(probability) for probability in row]
        worst = max(worst, max(logs) - min(logs))
    return worst


def exact_report_table(protocol, epsilon, categories):
    """[P[r | v] for v in 0..d-1] for every report r, in mpmath.

    Local hashing's reports are (hash, bucket) for every function from the d categories to
    the g buckets, each hash with probability g^-d: a fully random hash.
    """
    p, q = exact_parameters(protocol, epsilon, categories)
    if protocol == "direct":
        return [[p if r == v else q for v in range(categories)] for r in range(categories)]
    if protocol in ("symmetric unary", "optimized unary"):
        return [
            [
                mpmath.fprod(
                    (p if i == v else q) if bit else (1 - (p if i == v else q))
                    for i, bit in enumerate(bits)
                )
                for v in range(categories)
            ]
            for bits in itertools.product((0, 1), repeat=categories)
        ]
    e = mpmath.exp(mpmath.mpf(epsilon))
    g = int(mpmath.nint(e + 1))
    weight = mpmath.mpf(g) ** -categories
    other = 1 / (e + g - 1)
    return [
        [weight * (p if hash_[v] == bucket else other) for v in range(categories)]
        for hash_ in itertools.product(range(g), repeat=categories)
        for bucket in range(g)
    ]


# ---------------------------------------------------------------- p and q


@pytest.mark.parametrize("protocol", lf.PROTOCOLS)
@pytest.mark.parametrize("epsilon", EPSILONS)
@pytest.mark.parametrize("categories", (2, 4, 16, 1024))
def test_parameters_match_their_definitions(protocol, epsilon, categories):
    p, q = lf.protocol_parameters(protocol, epsilon, categories)
    exact_p, exact_q = exact_parameters(protocol, epsilon, categories)
    assert close(p, exact_p) and close(q, exact_q)


def test_parameters_keep_their_digits_for_large_epsilon():
    p, q = lf.generalized_randomized_response(700.0, 10)
    e = mpmath.exp(700)
    assert close(p, e / (e + 9)) and close(q, 1 / (e + 9))
    _, q = lf.unary_encoding(700.0, optimized=True)
    assert close(q, 1 / (e + 1))
    assert close(
        lf.variance_per_user("optimized unary", 50.0, 3),
        4 * mpmath.exp(50) / (mpmath.exp(50) - 1) ** 2,
    )


def test_direct_encoding_with_two_categories_is_randomised_response():
    epsilons = np.array(EPSILONS)
    p, q = lf.generalized_randomized_response(epsilons, 2)
    truth = randomized_response.truth_probability_for_epsilon(epsilons)
    np.testing.assert_allclose(p, truth, rtol=1e-15)
    # 1 - t keeps only t's absolute rounding, about 1.1e-16; q keeps all its digits.
    np.testing.assert_allclose(q, 1 - truth, rtol=0, atol=2.5e-16)
    assert all(close(value, 1 / (1 + mpmath.exp(e))) for value, e in zip(q, EPSILONS, strict=True))


def test_local_hashing_rounds_g_and_its_report_has_log2_g_bits():
    for epsilon in EPSILONS:
        p, q, g = lf.local_hashing(epsilon)
        e = mpmath.exp(epsilon)
        assert g == int(mpmath.nint(e + 1)) and q == 1 / g
        assert close(p, e / (e + g - 1))
        assert lf.report_bits("optimized local hashing", epsilon, 1024) == math.log2(g)
    assert lf.local_hashing(1.0, optimized=False)[2] == 2
    assert lf.report_bits("direct", 1.0, 16) == 4 and lf.report_bits("optimized unary", 1, 16) == 16


def test_unary_encodings_are_exactly_epsilon():
    for epsilon in EPSILONS:
        for optimized in (False, True):
            p, q = lf.unary_encoding(epsilon, optimized=optimized)
            assert close(lf.unary_epsilon(p, q), epsilon)


def test_hash_family_collides_with_probability_one_over_g():
    prime = lf.HASH_PRIME
    for g in (2, 3):
        # Distinct residues u != u' mod P in one class mod g, counted class by class.
        sizes = [len(range(r, prime, g)) for r in range(g)]
        pairs = sum(size * (size - 1) for size in sizes)
        assert lf.collision_probability(g) == pairs / (prime * (prime - 1))
    for g in (2, 3, 4, 150, 2**16):
        assert abs(lf.collision_probability(g) - 1 / g) < 1 / prime
    # And by simulation: two categories under each user's own hash (a, b).
    rng = np.random.default_rng(17)
    reports = lf.perturb(np.zeros(200_000, dtype=int), "optimized local hashing", 1.0, 2, rng=rng)
    a, b = reports.multipliers, reports.offsets
    assert a.min() >= 1 and a.max() < prime and b.min() >= 0 and b.max() < prime
    share = np.mean(b % prime % 4 == (a + b) % prime % 4)
    assert abs(share - 0.25) < STANDARD_ERRORS * math.sqrt(0.25 * 0.75 / a.size)


# ---------------------------------------------------------------- lesson 17's numbers


def test_variance_per_user_at_epsilon_one():
    e = mpmath.e
    assert round(lf.variance_per_user("optimized unary", 1.0, 4), 5) == 3.68269
    assert round(lf.variance_per_user("symmetric unary", 1.0, 4), 5) == 3.91770
    direct = lf.variance_per_user("direct", 1.0, [2, 4, 16, 1024])
    np.testing.assert_array_equal(np.round(direct, 5), [0.92067, 1.59807, 5.66243, 347.06889])
    for categories, value in zip((2, 4, 16, 1024), direct, strict=True):
        assert close(value, (e + categories - 2) / (e - 1) ** 2)
    assert close(lf.variance_per_user("optimized unary", 1.0, 4), 4 * e / (e - 1) ** 2)
    assert round(lf.crossover_categories(1.0), 4) == 10.1548
    assert close(lf.crossover_categories(1.0), 3 * e + 2)


@pytest.mark.parametrize("protocol", lf.PROTOCOLS)
@pytest.mark.parametrize("epsilon", (1e-6, *EPSILONS, 40.0))
def test_variance_per_user_is_the_exact_variance_over_n(protocol, epsilon):
    p, q = exact_parameters(protocol, epsilon, 7)
    exact = q * (1 - q) / (p - q) ** 2
    assert close(lf.variance_per_user(protocol, epsilon, 7), exact, 1e-12)
    p, q = lf.protocol_parameters(protocol, epsilon, 7)
    if epsilon >= 0.1:  # p - q loses digits for tiny epsilon; the closed form does not
        assert close(lf.frequency_variance(p, q, 1), exact, 1e-12)


def test_direct_encoding_beats_optimised_unary_below_the_crossover():
    for epsilon in (0.5, 1.0, 2.0):
        crossover = lf.crossover_categories(epsilon)
        below, above = math.floor(crossover), math.ceil(crossover)
        optimised = lf.variance_per_user("optimized unary", epsilon, below)
        assert lf.variance_per_user("direct", epsilon, below) < optimised
        assert lf.variance_per_user("direct", epsilon, above) > optimised


def test_optimised_local_hashing_is_optimised_unary_up_to_the_rounding_of_g():
    epsilons = np.linspace(0.01, 8, 4001)
    ratio = lf.variance_per_user("optimized local hashing", epsilons, 2) / lf.variance_per_user(
        "optimized unary", epsilons, 2
    )
    assert np.all(ratio >= 1 - 1e-12) and np.all(ratio <= 25 / 24 + 1e-12)
    # Where e^epsilon + 1 is a whole number, g is exact and the two are equal.
    for g in (3, 5, 9):
        epsilon = math.log(g - 1)
        assert close(
            lf.variance_per_user("optimized local hashing", epsilon, 2),
            lf.variance_per_user("optimized unary", epsilon, 2),
            1e-12,
        )


def test_near_and_abuah_unary_encoding_is_symmetric_at_ln_9():
    assert round(lf.unary_epsilon(0.75, 0.25), 3) == 2.197
    assert close(lf.unary_epsilon(0.75, 0.25), mpmath.log(9))
    p, q = lf.unary_encoding(math.log(9))
    assert close(p, 0.75) and close(q, 0.25)
    assert close(lf.frequency_variance(0.75, 0.25, 1), 0.75)
    assert close(lf.variance_per_user("optimized unary", math.log(9), 4), 0.5625)
    for categories in SMALL_CATEGORIES:
        assert close(lf.unary_worst_privacy_loss(0.75, 0.25, categories), mpmath.log(9))


def test_local_against_central_at_ten_thousand_users():
    local = 10_000 * lf.variance_per_user("optimized unary", 1.0, 4)
    assert round(local) == 36_827
    assert lf.central_variance(1.0) == 2.0


def test_the_exact_variance_of_direct_encoding_with_its_true_count():
    p, q = lf.generalized_randomized_response(1.0, 4)
    exact_p, exact_q = exact_parameters("direct", 1.0, 4)
    assert round(p, 10) == 0.4753668864 and round(q, 10) == 0.1748777045
    assert close(p, exact_p) and close(q, exact_q)
    variance = lf.frequency_variance(p, q, 1000, 300)
    assert round(variance, 6) == 1947.253393
    closed = 1000 * exact_q * (1 - exact_q) / (exact_p - exact_q) ** 2 + 300 * (
        1 - exact_p - exact_q
    ) / (exact_p - exact_q)
    assert close(variance, closed)


# ---------------------------------------------------------------- variance and bias


@pytest.mark.parametrize("p, q", [(0.75, 0.25), (0.5, 0.2689414213699951), (0.3, 0.6)])
def test_frequency_variance_is_the_binomial_sums(p, q):
    users = 40
    counts = np.arange(users + 1)
    values = lf.frequency_variance(p, q, users, counts)
    for count in (0, 1, 17, 40):
        exact = exact_variance(mpmath.mpf(p), mpmath.mpf(q), users, count)
        assert close(values[count], exact, 1e-12)


def simulated_estimates(protocol, runs, users, count, categories, epsilon, seed):
    """runs x d estimates, each from its own users (count of them in category 0)."""
    values = np.tile(
        np.r_[np.zeros(count, int), 1 + np.arange(users - count) % (categories - 1)], runs
    )
    reports = lf.perturb(values, protocol, epsilon, categories, rng=np.random.default_rng(seed))
    if protocol == "direct":
        # Every run's supports at once, then the module's estimate on one run as a check.
        run = np.repeat(np.arange(runs), users)
        supports = np.bincount(run * categories + reports, minlength=runs * categories)
        supports = supports.reshape(runs, categories)
        p, q = lf.protocol_parameters(protocol, epsilon, categories)
        estimates = (supports - users * q) / (p - q)
        np.testing.assert_allclose(
            estimates[0], lf.estimate_counts(reports[:users], protocol, epsilon, categories)
        )
        return estimates
    if protocol == "optimized local hashing":
        runs_of = [
            lf.HashedReports(
                *(part[i * users : (i + 1) * users] for part in reports[:3]), reports[3]
            )
            for i in range(runs)
        ]
    else:
        runs_of = [reports[i * users : (i + 1) * users] for i in range(runs)]
    return np.array([lf.estimate_counts(r, protocol, epsilon, categories) for r in runs_of])


def check_against_exact(estimates, protocol, users, count, categories, epsilon):
    p, q = lf.protocol_parameters(protocol, epsilon, categories)
    column = estimates[:, 0]
    runs = column.size
    variance = lf.frequency_variance(p, q, users, count)
    # Unbiased: the mean within k standard errors of the true count.
    assert abs(column.mean() - count) < STANDARD_ERRORS * math.sqrt(variance / runs)
    # The sample variance's standard error, sqrt((m4 - s^4) / runs), from the sample itself.
    centred = column - column.mean()
    sample_variance = np.mean(centred**2)
    error = math.sqrt((np.mean(centred**4) - sample_variance**2) / runs)
    assert abs(sample_variance - variance) < STANDARD_ERRORS * error
    return sample_variance, variance


def test_direct_encoding_simulation_of_ten_thousand_runs_matches_the_exact_variance():
    estimates = simulated_estimates("direct", 10_000, 1000, 300, 4, 1.0, seed=5)
    sample_variance, variance = check_against_exact(estimates, "direct", 1000, 300, 4, 1.0)
    assert round(variance, 6) == 1947.253393
    assert abs(sample_variance / variance - 1) < 0.06


@pytest.mark.parametrize("protocol", lf.PROTOCOLS[1:])
def test_each_protocol_is_unbiased_with_its_exact_variance(protocol):
    estimates = simulated_estimates(protocol, 1500, 400, 120, 4, 1.0, seed=11)
    check_against_exact(estimates, protocol, 400, 120, 4, 1.0)
    # The other categories are unbiased too: category 1 holds ceil(280 / 3) users.
    p, q = lf.protocol_parameters(protocol, 1.0, 4)
    true = math.ceil(280 / 3)
    standard_error = math.sqrt(lf.frequency_variance(p, q, 400, true) / 1500)
    assert abs(estimates[:, 1].mean() - true) < STANDARD_ERRORS * standard_error


def test_reports_follow_their_protocol_and_many_users_are_fast_to_draw():
    rng = np.random.default_rng(3)
    values = rng.integers(0, 16, 100_000)
    for protocol in lf.PROTOCOLS:
        reports = lf.perturb(values, protocol, 1.0, 16, rng=rng)
        estimates = lf.estimate_counts(reports, protocol, 1.0, 16)
        assert estimates.shape == (16,)
        assert abs(estimates.sum() - 100_000) < 20 * math.sqrt(
            16 * 100_000 * lf.variance_per_user(protocol, 1.0, 16)
        )
    unary = lf.perturb(values, "optimized unary", 1.0, 16, rng=rng)
    assert unary.dtype == bool and unary.shape == (100_000, 16)
    own = unary[np.arange(values.size), values]
    assert abs(own.mean() - 0.5) < STANDARD_ERRORS * math.sqrt(0.25 / values.size)


def test_local_hashing_supports_count_every_category_its_hash_sends_to_the_bucket():
    rng = np.random.default_rng(8)
    values = rng.integers(0, 5, 300)
    reports = lf.perturb(values, "optimized local hashing", 2.0, 5, rng=rng)
    g = reports.hash_range
    expected = np.zeros(5, dtype=int)
    for a, b, bucket in zip(reports.multipliers, reports.offsets, reports.buckets, strict=True):
        for category in range(5):
            expected[category] += ((int(a) * category + int(b)) % (2**31 - 1)) % g == bucket
    np.testing.assert_array_equal(
        lf.support_counts(reports, "optimized local hashing", 5), expected
    )


# ---------------------------------------------------------------- privacy by enumeration


@pytest.mark.parametrize("protocol", lf.PROTOCOLS)
@pytest.mark.parametrize("categories", SMALL_CATEGORIES)
@pytest.mark.parametrize("epsilon", (0.5, 1.0))
def test_worst_privacy_loss_is_epsilon_by_enumerating_every_report(protocol, categories, epsilon):
    table = exact_report_table(protocol, epsilon, categories)
    for v in range(categories):
        assert abs(sum(row[v] for row in table) - 1) < mpmath.mpf(10) ** -40
    assert abs(enumerated_loss(table) - epsilon) < mpmath.mpf(10) ** -40
    assert close(lf.worst_privacy_loss(protocol, epsilon, categories), epsilon, 1e-12)
    reports, probabilities = lf.report_probabilities(protocol, epsilon, categories)
    assert len(reports) == probabilities.shape[0]
    np.testing.assert_allclose(probabilities.sum(axis=0), 1.0, rtol=1e-13)


def test_optimised_unary_with_four_categories_at_epsilon_one_loses_exactly_one():
    table = exact_report_table("optimized unary", 1, 4)
    assert len(table) == 16
    assert abs(enumerated_loss(table) - 1) < mpmath.mpf(10) ** -45
    assert close(lf.worst_privacy_loss("optimized unary", 1.0, 4), 1)
    reports, probabilities = lf.report_probabilities("optimized unary", 1.0, 4)
    exact = np.array([[float(x) for x in row] for row in table])
    np.testing.assert_allclose(probabilities, exact, rtol=1e-14)
    np.testing.assert_array_equal(reports.astype(int), list(itertools.product((0, 1), repeat=4)))


# ---------------------------------------------------------------- post-processing


def kkt_holds(estimates, projected, total):
    """x >= 0, sum x = total, and one theta with x = c - theta where x > 0, c <= theta else."""
    assert np.all(projected >= 0) and abs(projected.sum() - total) < 1e-9 * max(1, total)
    positive = projected > 0
    theta = (estimates - projected)[positive]
    assert np.ptp(theta) < 1e-9 * max(1, total)
    assert np.all(estimates[~positive] <= theta[0] + 1e-9 * max(1, total))


def test_projection_onto_the_simplex_is_the_closest_histogram():
    rng = np.random.default_rng(2)
    for categories in (2, 3, 5, 6):
        for _ in range(10):
            estimates = rng.normal(20, 30, categories)
            projected = lf.project_onto_simplex(estimates, 100)
            kkt_holds(estimates, projected, 100)
            best = optimize.minimize(
                lambda x, c=estimates: np.sum((x - c) ** 2),
                np.full(categories, 100 / categories),
                method="SLSQP",
                bounds=[(0, None)] * categories,
                constraints=[{"type": "eq", "fun": lambda x: x.sum() - 100}],
                options={"ftol": 1e-14, "maxiter": 500},
            )
            np.testing.assert_allclose(projected, best.x, atol=1e-5)


def test_post_processings_work_row_by_row_and_are_histograms():
    rng = np.random.default_rng(4)
    runs = rng.normal(250, 200, (50, 4))
    projected = lf.project_onto_simplex(runs, 1000)
    clipped = lf.clip_and_renormalise(runs, 1000)
    for row, one, other in zip(runs, projected, clipped, strict=True):
        np.testing.assert_allclose(one, lf.project_onto_simplex(row, 1000))
        kkt_holds(row, one, 1000)
        assert np.all(other >= 0) and abs(other.sum() - 1000) < 1e-9
        positive = np.maximum(row, 0)
        np.testing.assert_allclose(other, positive * 1000 / positive.sum())
    np.testing.assert_allclose(lf.clip_and_renormalise([-1.0, -2.0], 10), [5.0, 5.0])
    np.testing.assert_allclose(lf.project_onto_simplex([3.0, -1.0, 2.0, -5.0], 4), [2.5, 0, 1.5, 0])
    # A histogram already on the simplex is its own projection and its own renormalisation.
    np.testing.assert_allclose(lf.project_onto_simplex([1.0, 2.0, 7.0], 10), [1, 2, 7])
    np.testing.assert_allclose(lf.clip_and_renormalise([1.0, 2.0, 7.0], 10), [1, 2, 7])


# ---------------------------------------------------------------- pure-ldp


def pure_ldp_module(relative):
    """A module of pure-ldp loaded from its file.

    Importing ``pure_ldp.frequency_oracles`` imports its RAPPOR server, which needs
    statsmodels (not a declared dependency of pure-ldp); the protocols compared here do not.
    """
    pytest.importorskip("xxhash")
    spec = importlib.util.find_spec("pure_ldp")
    if spec is None:
        pytest.skip("pure-ldp is not installed")
    path = pathlib.Path(spec.origin).parent / relative
    module_spec = importlib.util.spec_from_file_location(f"_pure_ldp_{path.stem}", path)
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    return module


def identity(x):
    return x


@pytest.mark.parametrize("epsilon", (0.5, 1.0, 3.0))
def test_pure_ldp_has_the_same_parameters(epsilon):
    de = pure_ldp_module("frequency_oracles/direct_encoding/de_client.py")
    ue = pure_ldp_module("frequency_oracles/unary_encoding/ue_client.py")
    lh = pure_ldp_module("frequency_oracles/local_hashing/lh_client.py")
    for categories in (2, 4, 16):
        client = de.DEClient(epsilon, categories)
        assert close(client.p, lf.protocol_parameters("direct", epsilon, categories)[0], 1e-14)
        assert close(client.q, lf.protocol_parameters("direct", epsilon, categories)[1], 1e-14)
        for optimized, protocol in ((False, "symmetric unary"), (True, "optimized unary")):
            client = ue.UEClient(epsilon, categories, use_oue=optimized)
            p, q = lf.protocol_parameters(protocol, epsilon, categories)
            assert close(client.p, p, 1e-14) and close(client.q, q, 1e-14)
    client = lh.LHClient(epsilon, 16, use_olh=True)
    p, q, g = lf.local_hashing(epsilon)
    assert client.g == g and close(client.p, p, 1e-14)


@pytest.mark.parametrize("protocol", lf.PROTOCOLS)
def test_pure_ldp_estimates_the_same_counts_from_the_same_reports(protocol):
    epsilon, categories, users = 1.5, 5, 3000
    rng = np.random.default_rng(21)
    values = rng.integers(0, categories, users)
    reports = lf.perturb(values, protocol, epsilon, categories, rng=rng)
    ours = lf.estimate_counts(reports, protocol, epsilon, categories)
    if protocol == "direct":
        server = pure_ldp_module("frequency_oracles/direct_encoding/de_server.py").DEServer(
            epsilon, categories, index_mapper=identity
        )
        server.aggregate_all(reports.tolist())
    elif protocol == "optimized local hashing":
        # pure-ldp hashes with xxhash: its server takes our supports, not our hashes.
        server = pure_ldp_module("frequency_oracles/local_hashing/lh_server.py").LHServer(
            epsilon, categories, use_olh=True, index_mapper=identity
        )
        server.aggregated_data = lf.support_counts(reports, protocol, categories).astype(float)
        server.n = users
    else:
        server = pure_ldp_module("frequency_oracles/unary_encoding/ue_server.py").UEServer(
            epsilon, categories, use_oue=protocol == "optimized unary", index_mapper=identity
        )
        server.aggregate_all(reports.astype(int))
    server.check_and_update_estimates()
    np.testing.assert_allclose(ours, server.estimated_data, rtol=1e-12, atol=1e-9)


def test_pure_ldp_projects_onto_the_same_simplex():
    simplex = pure_ldp_module("core/prob_simplex.py")
    rng = np.random.default_rng(6)
    for _ in range(20):
        estimates = rng.normal(200, 300, 8)
        theirs = simplex.project_probability_simplex(estimates / 1000) * 1000
        np.testing.assert_allclose(lf.project_onto_simplex(estimates, 1000), theirs, atol=1e-9)


# ---------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: lf.generalized_randomized_response(1.0, 1), "categories"),
        (lambda: lf.generalized_randomized_response(1.0, 2.5), "categories"),
        (lambda: lf.protocol_parameters("direct", 1.0, [4, 1]), "categories"),
        (lambda: lf.generalized_randomized_response(0.0, 4), "epsilon"),
        (lambda: lf.unary_encoding(-1.0), "epsilon"),
        (lambda: lf.local_hashing(math.inf), "epsilon"),
        (lambda: lf.local_hashing(800.0), "epsilon"),
        (lambda: lf.frequency_variance(0.3, 0.3, 10), "q"),
        (lambda: lf.frequency_variance(1.2, 0.3, 10), "p"),
        (lambda: lf.frequency_variance(0.7, 0.3, 0), "users"),
        (lambda: lf.frequency_variance(0.7, 0.3, 10, 11), "count"),
        (lambda: lf.frequency_variance(0.7, 0.3, 10, -1), "count"),
        (lambda: lf.unary_epsilon(0.5, 0.5), "q"),
        (lambda: lf.variance_per_user("laplace", 1.0, 4), "protocol"),
        (lambda: lf.worst_privacy_loss("optimized unary", 1.0, 17), "categories"),
        (lambda: lf.perturb([0, 4], "direct", 1.0, 4, rng=np.random.default_rng(0)), "values"),
        (lambda: lf.perturb([0, -1], "direct", 1.0, 4, rng=np.random.default_rng(0)), "values"),
        (lambda: lf.perturb([0, 1.5], "direct", 1.0, 4, rng=np.random.default_rng(0)), "values"),
        (lambda: lf.perturb([0, 1], "unknown", 1.0, 4, rng=np.random.default_rng(0)), "protocol"),
        (lambda: lf.perturb([0, 1], "direct", 1.0, 4, rng=0), "rng"),
        (
            lambda: lf.perturb(
                [0], "optimized local hashing", 12.0, 4, rng=np.random.default_rng(0)
            ),
            "epsilon",
        ),
        (lambda: lf.support_counts([0, 5], "direct", 4), "reports"),
        (lambda: lf.support_counts(np.zeros((3, 2), bool), "optimized unary", 4), "reports"),
        (lambda: lf.support_counts([0, 1], "optimized local hashing", 4), "reports"),
        (lambda: lf.clip_and_renormalise([1.0, np.nan], 10), "estimates"),
        (lambda: lf.project_onto_simplex([1.0, 2.0], -1), "total"),
    ],
)
def test_bad_input_raises_a_value_error_naming_it(call, name):
    with pytest.raises(ValueError, match=rf"^{name} "):
        call()


def test_estimates_need_the_epsilon_of_the_reports():
    reports = lf.perturb([0, 1, 2], "optimized local hashing", 1.0, 3, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="^epsilon "):
        lf.estimate_counts(reports, "optimized local hashing", 3.0, 3)
