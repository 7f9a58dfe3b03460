"""Noise samplers: the right distribution, seeded, and never an infinite sample."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

from dplearn import calibration, mechanisms


class FixedUniforms(np.random.Generator):
    """A Generator whose random() returns chosen values: the edges of [0, 1)."""

    def __init__(self, values):
        super().__init__(np.random.PCG64(0))
        self.values = np.asarray(values, dtype=float)

    def random(self, size=None, dtype=np.float64, out=None):
        return self.values.copy()


EDGE_UNIFORMS = [0.0, 2.0**-53, 0.5 - 2.0**-53, 0.5, 1.0 - 2.0**-53]


def test_inverse_cdf_sampler_is_finite_at_every_edge():
    """The draws that give ln 0 in the textbook formula give finite samples here."""
    samples = mechanisms.sample_laplace_inverse_cdf(2.0, rng=FixedUniforms(EDGE_UNIFORMS), size=5)
    assert np.all(np.isfinite(samples))
    # The most extreme samples: U = +-(1/2 - 2**-54), so |X| = b * 53 ln 2.
    assert samples[0] == pytest.approx(-2.0 * 53 * math.log(2), rel=1e-15)
    assert samples[-1] == pytest.approx(2.0 * 53 * math.log(2), rel=1e-15)
    with np.errstate(divide="ignore"):
        textbook = -np.sign(0.0 - 0.5) * np.log(1 - 2 * abs(0.0 - 0.5))
    assert math.isinf(textbook), "the post's own formula does give infinity at random() = 0"


@given(st.lists(st.integers(0, 2**53 - 1), min_size=1, max_size=50))
def test_inverse_cdf_sampler_is_symmetric_and_finite(ks):
    uniforms = np.array(ks, dtype=float) * 2.0**-53
    mirrored = (2.0**53 - 1 - np.array(ks, dtype=float)) * 2.0**-53
    x = mechanisms.sample_laplace_inverse_cdf(rng=FixedUniforms(uniforms), size=len(ks))
    y = mechanisms.sample_laplace_inverse_cdf(rng=FixedUniforms(mirrored), size=len(ks))
    assert np.all(np.isfinite(x)) and np.all(x != 0)
    np.testing.assert_array_equal(x, -y)


def test_inverse_cdf_sampler_has_the_laplace_distribution():
    rng = np.random.default_rng(2024)
    samples = mechanisms.sample_laplace_inverse_cdf(1.5, 3.0, rng=rng, size=200_000)
    assert stats.kstest(samples, stats.laplace(3.0, 1.5).cdf).pvalue > 1e-3
    # Mean and variance within four standard errors.
    n = samples.size
    assert abs(samples.mean() - 3.0) < 4 * math.sqrt(2 * 1.5**2 / n)
    assert samples.var() == pytest.approx(2 * 1.5**2, rel=4 * math.sqrt(5 / n))


def test_inverse_cdf_sampler_is_reproducible():
    first = mechanisms.sample_laplace_inverse_cdf(rng=np.random.default_rng(1), size=10)
    second = mechanisms.sample_laplace_inverse_cdf(rng=np.random.default_rng(1), size=10)
    np.testing.assert_array_equal(first, second)


def test_laplace_mechanism():
    rng = np.random.default_rng(5)
    noisy = mechanisms.laplace_mechanism(np.full(100_000, 3000.0), 0.5, 2.0, rng=rng)
    assert stats.kstest(noisy - 3000.0, stats.laplace(0, 4.0).cdf).pvalue > 1e-3
    assert isinstance(mechanisms.laplace_mechanism(1.0, 1.0, rng=rng), float)


def test_gaussian_mechanism_uses_the_calibrated_sigma():
    rng = np.random.default_rng(6)
    for calibration_name, expected in [
        ("analytic", calibration.gaussian_sigma_analytic(1.0, 1e-5, 2.0)),
        ("classic", calibration.gaussian_sigma_classic(1.0, 1e-5, 2.0)),
    ]:
        noisy = mechanisms.gaussian_mechanism(
            np.zeros(100_000), 1.0, 1e-5, 2.0, rng=rng, calibration=calibration_name
        )
        assert stats.kstest(noisy, stats.norm(0, expected).cdf).pvalue > 1e-3
    with pytest.raises(ValueError, match="calibration"):
        mechanisms.gaussian_mechanism(0.0, 1.0, 1e-5, rng=rng, calibration="loose")


def test_geometric_mechanism_has_the_discrete_laplace_pmf():
    rng = np.random.default_rng(7)
    epsilon, sensitivity = 0.8, 2
    noisy = mechanisms.geometric_mechanism(np.full(200_000, 10), epsilon, sensitivity, rng=rng)
    assert noisy.dtype.kind == "i"
    noise = noisy - 10
    ks = np.arange(-12, 13)
    observed = np.array([(noise == k).sum() for k in ks])
    expected = stats.dlaplace.pmf(ks, epsilon / sensitivity) * noise.size
    tails = noise.size - observed.sum(), noise.size - expected.sum()
    chi2 = stats.chisquare([*observed, tails[0]], [*expected, tails[1]])
    assert chi2.pvalue > 1e-3
    assert isinstance(mechanisms.geometric_mechanism(3, 1.0, rng=rng), int)


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda rng: mechanisms.sample_laplace_inverse_cdf(0.0, rng=rng, size=3), "scale"),
        (lambda rng: mechanisms.sample_laplace_inverse_cdf(1.0, math.nan, rng=rng, size=3), "loc"),
        (lambda rng: mechanisms.sample_laplace_inverse_cdf(rng=None, size=3), "rng"),
        (lambda rng: mechanisms.laplace_mechanism(1.0, -1.0, rng=rng), "epsilon"),
        (lambda rng: mechanisms.laplace_mechanism(math.inf, 1.0, rng=rng), "value"),
        (lambda rng: mechanisms.gaussian_mechanism(1.0, 1.0, 2.0, rng=rng), "delta"),
        (lambda rng: mechanisms.geometric_mechanism(1.5, 1.0, rng=rng), "value"),
        (lambda rng: mechanisms.geometric_mechanism(1e19, 1.0, rng=rng), "value"),
        (lambda rng: mechanisms.geometric_mechanism(1, 1.0, 0.5, rng=rng), "sensitivity"),
        (lambda rng: mechanisms.geometric_mechanism(1, 0.0, rng=rng), "epsilon"),
        (lambda rng: mechanisms.laplace_mechanism(1.0, 1.0, rng=np.random.RandomState(0)), "rng"),
    ],
)
def test_bad_input_names_the_parameter(call, name):
    with pytest.raises(ValueError, match=name):
        call(np.random.default_rng(0))


def test_geometric_mechanism_refuses_an_epsilon_whose_draws_saturate():
    """With epsilon ~ 1e-30 both geometric draws saturated at the int64 limit and the true
    value came back unchanged, with no error."""
    rng = np.random.default_rng(0)
    for epsilon, sensitivity in [(1e-30, 1), (1e-13, 1), (1e-3, 2**40)]:
        with pytest.raises(ValueError, match="epsilon"):
            mechanisms.geometric_mechanism(5, epsilon, sensitivity, rng=rng)
    noisy = mechanisms.geometric_mechanism(np.full(1000, 5), 2.0**-40, rng=rng)
    assert np.count_nonzero(noisy != 5) >= 995


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda rng: mechanisms.laplace_mechanism(1.0, [1.0, 2.0], rng=rng), "epsilon"),
        (lambda rng: mechanisms.laplace_mechanism(1.0, "1.0", rng=rng), "epsilon"),
        (lambda rng: mechanisms.laplace_mechanism(1.0, 1e-307, rng=rng), "epsilon"),
        (lambda rng: mechanisms.laplace_mechanism(1.7e308, 1.0, 1e307, rng=rng), "sensitivity"),
        (lambda rng: mechanisms.gaussian_mechanism(1.0, 1.0, True, rng=rng), "delta"),
        (lambda rng: mechanisms.geometric_mechanism(1, 1.0, True, rng=rng), "sensitivity"),
        (lambda rng: mechanisms.sample_laplace_inverse_cdf(rng=rng, size=-1), "size"),
        (lambda rng: mechanisms.sample_laplace_inverse_cdf(1e308, rng=rng, size=2), "scale"),
    ],
)
def test_values_the_samplers_cannot_serve_are_named(call, name):
    with pytest.raises(ValueError, match=name):
        call(np.random.default_rng(0))
