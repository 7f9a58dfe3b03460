"""The floating-point leak, checked by enumerating draws; the exact integer samplers."""

from fractions import Fraction

import mpmath
import numpy as np
import pytest
from scipy import stats

from dplearn import floating_point as fp

UNIT = 2.0**-53


def post_formula(value, scale, uniform_minus_half):
    """The blog post's expression, written out again for comparison."""
    u = uniform_minus_half
    with np.errstate(divide="ignore"):
        return value - scale * np.sign(u) * np.log(1.0 - 2 * np.abs(u))


def test_draws_are_what_generator_random_returns():
    rng = np.random.default_rng(3)
    uniform = rng.random(5000)
    draws = (uniform * 2.0**53).astype(np.int64)
    assert np.array_equal(draws * UNIT, uniform)  # random() is k * 2**-53, exactly
    for value, scale in [(0.0, 1.0), (1.0, 0.37), (3000.0, 5.0)]:
        expected = post_formula(value, scale, uniform - 0.5)
        assert np.array_equal(fp.textbook_laplace(value, scale, draws), expected)


def test_the_posts_interval_slip():
    # random() can return 0.0, so U = -1/2 and ln 0 appears.
    assert fp.textbook_laplace(0.0, 1.0, [0])[0] == -np.inf
    assert fp.post_noisy_digit(-0.5) == -np.inf
    assert fp.post_noisy_digit(0.5) == np.inf  # (-1/2, 1/2] is wrong at the top too
    assert np.isfinite(fp.post_noisy_digit(0.5 - 2.0**-53))
    assert fp.post_noisy_digit(0.0) == 0.0


def brute_neighbour_outputs(value, scale, low_output, high_output, margin=4096):
    """Every output of ``value`` whose draw lies near the inverse-CDF estimate, plus a
    check that the enumerated draws reach beyond [low_output, high_output] on both sides
    (so, the output being monotone in the draw, no other draw can land inside)."""

    def estimate(output):
        noise = (output - value) / scale
        if noise >= 0:
            return int(fp.DRAW_COUNT - 2.0**52 * np.exp(-noise))
        return int(2.0**52 * np.exp(noise))

    first = max(estimate(low_output) - margin, 0)
    last = min(estimate(high_output) + margin, fp.DRAW_COUNT - 1)
    draws = np.arange(first, last + 1, dtype=np.int64)
    outputs = fp.textbook_laplace(value, scale, draws)
    assert np.all(np.diff(outputs) >= 0), "the output must not decrease along the draws"
    assert outputs[0] < low_output and outputs[-1] > high_output, "window too small"
    return outputs


@pytest.mark.parametrize(
    "scale, position", [(1.0, 2.0), (1.0, -3.0), (1.0, 0.4), (0.5, 6.0), (4.0, -1.0)]
)
def test_outputs_impossible_from_the_neighbour_by_enumeration(scale, position):
    start = int(fp.first_draw_at_least(0.0, scale, [position])[0])
    window = fp.leak_window(scale, start, 2048)
    outputs = window["outputs"]
    assert np.all(np.diff(outputs) >= 0)
    impossible = outputs[window["impossible"]]
    assert impossible.size > 0
    neighbour = brute_neighbour_outputs(1.0, scale, outputs[0], outputs[-1])
    # Each impossible output: no draw of the neighbour produces it.
    assert not np.isin(impossible, neighbour).any()
    # And the others are produced, so the mask is exactly right.
    assert np.isin(outputs[~window["impossible"]], neighbour).all()
    # The window's own enumeration of the neighbour agrees with the brute one.
    inside = neighbour[(neighbour >= outputs[0]) & (neighbour <= outputs[-1])]
    assert np.array_equal(np.unique(window["neighbour_outputs"]), np.unique(inside))


def test_reachability_by_bisection_matches_enumeration():
    rng = np.random.default_rng(11)
    draws = rng.integers(1, fp.DRAW_COUNT, size=60)
    for scale in (0.25, 1.0, 3.0):
        outputs = fp.textbook_laplace(0.0, scale, draws)
        found = fp.is_reachable(1.0, scale, outputs)
        for output, reachable in zip(outputs, found, strict=True):
            neighbour = brute_neighbour_outputs(1.0, scale, output, output, margin=64)
            assert reachable == bool(np.isin(output, neighbour))
        # Its own outputs are always reachable from the same answer.
        assert fp.is_reachable(0.0, scale, outputs).all()


def test_distinguishing_probability_is_large_at_every_epsilon():
    rng = np.random.default_rng(5)
    draws = rng.integers(0, fp.DRAW_COUNT, size=3000)
    for epsilon in (0.25, 1.0, 4.0):
        estimate, error = fp.distinguishing_probability(1.0 / epsilon, draws)
        assert 0 < error < 0.02
        # Most outputs reveal the true answer: delta is at least this, whatever epsilon.
        assert estimate - 4 * error > 0.5, epsilon


def test_rounding_the_answer_removes_most_of_the_leak():
    # The post rounds its noisy answer: integers near the centre come from both inputs.
    uniform = np.linspace(-0.5, 0.5, 200001)[1:-1]
    from_zero = set(fp.post_noisy_digit(uniform).tolist())
    from_one = set((1 + fp.post_noisy_digit(uniform)).tolist())
    assert set(range(-5, 6)) <= from_zero & from_one


# --- exact samplers ----------------------------------------------------------------


@pytest.mark.parametrize("gamma", [Fraction(0), Fraction(3, 10), Fraction(1), Fraction(17, 10)])
def test_bernoulli_exp_minus(gamma):
    rng = np.random.default_rng(21)
    trials = 20000
    hits = sum(fp.bernoulli_exp_minus(gamma, rng=rng) for _ in range(trials))
    p = float(mpmath.exp(-mpmath.mpf(gamma.numerator) / gamma.denominator))
    error = np.sqrt(p * (1 - p) / trials)
    assert abs(hits / trials - p) <= 4 * error + 1e-12


def chi_square_p_value(samples, pmf, reach):
    """Chi-square p-value of integer samples against pmf(k), tails pooled beyond reach."""
    support = np.arange(-reach, reach + 1)
    observed = np.array([np.sum(samples == k) for k in support] + [np.sum(np.abs(samples) > reach)])
    probabilities = np.array([pmf(k) for k in support])
    expected = np.append(probabilities, 1.0 - probabilities.sum()) * samples.size
    return stats.chisquare(observed, expected).pvalue


def exact_discrete_gaussian_pmf(sigma_squared):
    """Independent exact pmf: the normaliser is Jacobi's theta_3(0, exp(-1/(2 sigma^2)))."""
    variance = mpmath.mpf(sigma_squared.numerator) / sigma_squared.denominator
    normaliser = mpmath.jtheta(3, 0, mpmath.exp(-1 / (2 * variance)))
    return lambda k: float(mpmath.exp(-(mpmath.mpf(k) ** 2) / (2 * variance)) / normaliser)


@pytest.mark.parametrize("sigma_squared", [Fraction(4), Fraction(1, 2), Fraction(25, 3)])
def test_discrete_gaussian_matches_its_pmf(sigma_squared):
    samples = fp.sample_discrete_gaussian(sigma_squared, rng=np.random.default_rng(8), size=12000)
    exact = exact_discrete_gaussian_pmf(sigma_squared)
    reach = int(3 * np.sqrt(float(sigma_squared))) + 1
    assert chi_square_p_value(samples, exact, reach) > 1e-3
    # The package's float pmf agrees with the independent one.
    ks = np.arange(-reach, reach + 1)
    assert np.allclose(fp.discrete_gaussian_pmf(ks, float(sigma_squared)), [exact(k) for k in ks])
    # Variance within a few standard errors of the exact one.
    variance = sum(k * k * exact(k) for k in range(-60, 61))
    fourth = sum(k**4 * exact(k) for k in range(-60, 61))
    error = np.sqrt((fourth - variance**2) / samples.size)
    assert abs(np.mean(samples.astype(float) ** 2) - variance) < 4 * error


def test_chi_square_check_can_fail():
    samples = fp.sample_discrete_gaussian(4, rng=np.random.default_rng(8), size=12000)
    wrong = exact_discrete_gaussian_pmf(Fraction(9, 2))
    assert chi_square_p_value(samples, wrong, 7) < 1e-6


@pytest.mark.parametrize("scale", [1, Fraction(5, 2), "0.7"])
def test_discrete_laplace_matches_its_pmf(scale):
    samples = fp.sample_discrete_laplace(scale, rng=np.random.default_rng(4), size=12000)
    b = float(Fraction(scale))
    ratio = np.exp(-1.0 / b)

    def exact(k):
        return (1 - ratio) / (1 + ratio) * ratio ** abs(k)

    assert chi_square_p_value(samples, exact, int(4 * b) + 1) > 1e-3
    assert np.allclose(
        fp.discrete_laplace_pmf(np.arange(-9, 10), b), [exact(k) for k in range(-9, 10)]
    )
    assert np.isclose(fp.discrete_laplace_pmf(np.arange(-400, 401), b).sum(), 1.0)


def test_uniform_below_large_bounds():
    rng = np.random.default_rng(2)
    bound = 3 * 2**70 + 5
    values = [fp._uniform_below(bound, rng) for _ in range(4000)]
    assert all(0 <= v < bound for v in values)
    # Mean of a uniform on [0, bound) is (bound - 1) / 2; standard error bound / sqrt(12 n).
    assert abs(np.mean([v / bound for v in values]) - 0.5) < 4 / np.sqrt(12 * 4000)


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: fp.textbook_laplace(0.0, -1.0, [1]), "scale"),
        (lambda: fp.textbook_laplace(0.0, 1.0, [-1]), "draws"),
        (lambda: fp.textbook_laplace(0.0, 1.0, [0.5]), "draws"),
        (
            lambda: fp.sample_discrete_gaussian(0, rng=np.random.default_rng(), size=3),
            "sigma_squared",
        ),
        (lambda: fp.sample_discrete_laplace(1, rng=np.random.default_rng(), size=0), "size"),
        (lambda: fp.sample_discrete_laplace(1, rng=1, size=3), "rng"),
        (lambda: fp.bernoulli_exp_minus(-1, rng=np.random.default_rng()), "gamma"),
        (lambda: fp.post_noisy_digit(0.1, epsilon=0), "epsilon"),
    ],
)
def test_bad_input_names_the_parameter(call, name):
    with pytest.raises(ValueError, match=name):
        call()


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda rng: fp.bernoulli_exp_minus(True, rng=rng), "gamma"),
        (lambda rng: fp.bernoulli_exp_minus(float("nan"), rng=rng), "gamma"),
        (lambda rng: fp.bernoulli_exp_minus("x", rng=rng), "gamma"),
        (lambda rng: fp.sample_discrete_laplace(2**51, rng=rng, size=3), "scale"),
        (lambda rng: fp.sample_discrete_gaussian(float("inf"), rng=rng, size=3), "sigma_squared"),
        (lambda rng: fp.textbook_laplace(0.0, 1e308, [3]), "scale"),
        (lambda rng: fp.leak_window(1.0, 0, 10**9), "count"),
        (lambda rng: fp.first_draw_at_least(0.0, 1.0, [float("nan")]), "outputs"),
        (lambda rng: fp.post_noisy_digit(0.75), "uniform"),
        (lambda rng: fp.distinguishing_probability(1.0, []), "draws"),
        (lambda rng: fp.discrete_laplace_pmf(0.5, 1.0), "values"),
    ],
)
def test_values_the_samplers_cannot_serve_are_named(call, name):
    with pytest.raises(ValueError, match=name):
        call(np.random.default_rng(0))


def test_discrete_gaussian_pmf_of_a_huge_variance_is_immediate():
    """The normaliser sums by Poisson summation: 80 sigma of support would hang at 1e300."""
    value = fp.discrete_gaussian_pmf(0, 1e300)
    assert value == pytest.approx(1 / float(mpmath.sqrt(2 * mpmath.pi * mpmath.mpf(1e300))))
    assert fp.discrete_gaussian_pmf(np.arange(-60, 61), 4.0).sum() == pytest.approx(1, rel=1e-14)
