"""Poisson subsampling: exact add and remove deltas against mpmath integrals of the two
output densities (mixture against one distribution), at 50 digits."""

import warnings

import mpmath
import numpy as np
import pytest

from dplearn import privacy_loss, subsampling

RATE = 256 / 60000


@mpmath.workdps(50)
def mixture_delta(epsilon, rate, sigma, direction, kind="gaussian"):
    """Integral of p1 - e^eps p2 over the outputs where it is positive, for the subsampled
    mechanism (p at 0 without the person, the mixture with), at 50 digits. The density
    ratio mixture / base = 1 - q + q e^l(o) grows with o, so that set is a half-line
    beyond the crossing point, found from l(o) = ln((e^(+-eps) - 1 + q) / q)."""
    q, s, e = mpmath.mpf(rate), mpmath.mpf(sigma), mpmath.mpf(epsilon)

    def base(o, centre):
        if kind == "gaussian":
            return mpmath.npdf(o, centre, s)
        return mpmath.exp(-abs(o - centre) / s) / (2 * s)

    def mixture(o):
        return (1 - q) * base(o, 0) + q * base(o, 1)

    def output_of(level):
        # l(o) = (2 o - 1) / (2 s^2) (Gaussian), clip((2 o - 1) / s, +-1 / s) (Laplace).
        if kind == "gaussian":
            return s**2 * level + mpmath.mpf(1) / 2
        if abs(level) >= 1 / s:
            return None
        return (s * level + 1) / 2

    if direction == "remove":
        level = mpmath.log((mpmath.exp(e) - 1 + q) / q)
        crossing = output_of(level)
        if crossing is None:
            return mpmath.mpf(0)

        def gap(o):
            return mixture(o) - mpmath.exp(e) * base(o, 0)

        ends = [crossing, mpmath.inf]
    else:
        inner = (mpmath.exp(-e) - 1 + q) / q
        if inner <= 0:
            return mpmath.mpf(0)
        level = mpmath.log(inner)
        crossing = output_of(level)
        if crossing is None:
            # The ratio never gets that low: the Laplace's flat left part is all of it.
            return mpmath.mpf(0)

        def gap(o):
            return base(o, 0) - mpmath.exp(e) * mixture(o)

        ends = [-mpmath.inf, crossing]
    steps = [mpmath.mpf(2) ** k * s / 64 for k in range(0, 14)]
    if ends[1] == mpmath.inf:
        points = [crossing + step for step in steps]
    else:
        points = [crossing - step for step in reversed(steps)]
    kinks = [mpmath.mpf(0), mpmath.mpf(1)] if kind == "laplace" else []
    inside = [x for x in kinks if (x > crossing) == (ends[1] == mpmath.inf) and x != crossing]
    pieces = sorted(set([ends[0], crossing, *points, *inside, ends[1]]))
    return mpmath.quad(gap, pieces, maxdegree=10)


@pytest.mark.parametrize(("rate", "sigma"), [(RATE, 1.1), (0.01, 4.0), (0.3, 0.7), (0.05, 2.0)])
@pytest.mark.parametrize("epsilon", [0.0, 0.002, 0.05, 0.5, 1.5])
def test_gaussian_deltas_match_mpmath(rate, sigma, epsilon):
    pair = subsampling.poisson(privacy_loss.gaussian(sigma), rate)
    for direction in ("remove", "add"):
        exact = mixture_delta(epsilon, rate, sigma, direction)
        ours = getattr(pair, direction).delta(epsilon)
        if exact == 0:
            assert ours == 0.0
        else:
            assert ours == pytest.approx(float(exact), rel=1e-9, abs=0)
    assert pair.delta(epsilon) == max(pair.remove.delta(epsilon), pair.add.delta(epsilon))


@pytest.mark.parametrize(("rate", "scale"), [(0.1, 1.0), (0.02, 0.5), (0.5, 3.0)])
@pytest.mark.parametrize("epsilon", [0.0, 0.01, 0.1, 0.6])
def test_laplace_deltas_match_mpmath(rate, scale, epsilon):
    pair = subsampling.poisson(privacy_loss.laplace(scale), rate)
    for direction in ("remove", "add"):
        exact = mixture_delta(epsilon, rate, scale, direction, kind="laplace")
        ours = getattr(pair, direction).delta(epsilon)
        if exact < 1e-40:
            assert ours < 1e-30
        else:
            assert ours == pytest.approx(float(exact), rel=1e-9, abs=0)


def test_remove_loss_is_the_lesson_formula():
    sigma, sensitivity, rate = 1.3, 2.0, 0.2
    pair = subsampling.poisson(privacy_loss.gaussian(sigma, sensitivity), rate)
    outputs = np.linspace(-5, 8, 27)
    with mpmath.workdps(40):
        expected = [
            float(
                mpmath.log(
                    1
                    - mpmath.mpf(rate)
                    + rate
                    * mpmath.exp((2 * mpmath.mpf(o) - sensitivity) * sensitivity / (2 * sigma**2))
                )
            )
            for o in outputs
        ]
    np.testing.assert_allclose(pair.privacy_loss(outputs), expected, rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(pair.add.privacy_loss(outputs), -np.array(expected), atol=1e-15)
    mixture = (1 - rate) * privacy_loss.gaussian(sigma).density_d1(outputs) + rate * (
        privacy_loss.gaussian(sigma, sensitivity).density_d2(outputs)
    )
    np.testing.assert_allclose(pair.density_with(outputs), mixture, rtol=1e-14)
    np.testing.assert_allclose(
        np.log(pair.density_with(outputs) / pair.density_without(outputs)), expected, atol=1e-12
    )


def test_loss_exceeds_and_quantiles_against_mpmath():
    sigma, rate = 1.1, 0.05
    pair = subsampling.poisson(privacy_loss.gaussian(sigma), rate)
    q, s = mpmath.mpf(rate), mpmath.mpf(sigma)
    for epsilon in [0.0, 0.01, 0.2, 1.0]:
        with mpmath.workdps(40):
            e = mpmath.mpf(epsilon)
            # Remove: outputs above o* under the mixture; add: below o_* under N(0, s^2).
            shifted = mpmath.log(1 + (mpmath.exp(e) - 1) / q)
            o_star = s**2 * shifted + mpmath.mpf(1) / 2
            remove = (1 - q) * (1 - mpmath.ncdf(o_star / s)) + q * (
                1 - mpmath.ncdf((o_star - 1) / s)
            )
            inner = (mpmath.exp(-e) - 1 + q) / q
            add = (
                mpmath.ncdf((s**2 * mpmath.log(inner) + mpmath.mpf(1) / 2) / s) if inner > 0 else 0
            )
        assert pair.remove.loss_exceeds(epsilon) == pytest.approx(float(remove), rel=1e-11)
        assert pair.add.loss_exceeds(epsilon) == pytest.approx(float(add), rel=1e-11, abs=1e-300)
    positions = np.array([1e-6, 0.01, 0.3, 0.5, 0.9, 0.999999])
    losses = pair.remove.loss_quantile(positions)
    # P[L > L_p] = p: the quantile inverts loss_exceeds, evaluated from the other side.
    outputs = pair.remove.output_quantile(positions)
    with mpmath.workdps(40):
        survival = [
            float(
                (1 - q) * (1 - mpmath.ncdf(mpmath.mpf(o) / s))
                + q * (1 - mpmath.ncdf((mpmath.mpf(o) - 1) / s))
            )
            for o in outputs
        ]
    np.testing.assert_allclose(survival, positions, rtol=1e-10)
    np.testing.assert_allclose(losses, pair.privacy_loss(outputs), rtol=1e-14)
    assert np.all(np.diff(losses) <= 0)
    assert pair.loss_quantile(0.0) == np.inf
    assert pair.loss_quantile(1.0) == pytest.approx(np.log1p(-rate))
    assert pair.add.loss_quantile(0.0) == pytest.approx(-np.log1p(-rate))


def test_rate_one_is_the_mechanism_itself():
    for mechanism in (privacy_loss.gaussian(0.8), privacy_loss.laplace(1.5)):
        pair = subsampling.poisson(mechanism, 1.0)
        epsilons = np.array([0.0, 0.1, 0.5, 2.0])
        np.testing.assert_allclose(pair.delta(epsilons), mechanism.delta(epsilons), rtol=1e-13)
        np.testing.assert_allclose(pair.add.delta(epsilons), mechanism.delta(epsilons), rtol=1e-13)
        assert pair.epsilon_for_delta(1e-3) == pytest.approx(
            mechanism.epsilon_for_delta(1e-3), rel=1e-12
        )


def test_amplification_bound_and_the_lesson_number():
    assert subsampling.amplified_epsilon(1.0, 0.01) == pytest.approx(0.0170369, abs=5e-8)
    with mpmath.workdps(40):
        for epsilon in [1e-8, 0.3, 1.0, 5.0, 700.0, 1e4]:
            for rate in [1e-6, 0.01, 0.5, 1.0]:
                e = mpmath.mpf(epsilon)
                exact = e + mpmath.log(rate + (1 - mpmath.mpf(rate)) * mpmath.exp(-e))
                assert subsampling.amplified_epsilon(epsilon, rate) == pytest.approx(
                    float(exact), rel=1e-14
                )
    assert subsampling.amplified_epsilon(np.inf, 0.1) == np.inf
    assert subsampling.amplified_delta(1e-5, 0.01) == pytest.approx(1e-7)
    # The bound holds for the subsampled Laplace, and is tight for its pure epsilon.
    mechanism = privacy_loss.laplace(1.0 / 0.7)
    pair = subsampling.poisson(mechanism, 0.05)
    assert pair.max_loss == pytest.approx(subsampling.amplified_epsilon(0.7, 0.05), rel=1e-14)
    assert pair.delta(pair.max_loss) == 0.0
    # The subsampled Gaussian's exact delta at the bound's epsilon lies below q delta.
    gaussian = privacy_loss.gaussian(1.0)
    sub = subsampling.poisson(gaussian, 0.01)
    for epsilon in [0.5, 1.0, 2.0]:
        assert sub.delta(subsampling.amplified_epsilon(epsilon, 0.01)) <= 0.01 * gaussian.delta(
            epsilon
        ) * (1 + 1e-12)


def test_epsilon_for_delta_inverts_both_sides():
    pair = subsampling.poisson(privacy_loss.gaussian(1.1), RATE)
    for target in [1e-3, 1e-5, 1e-9, 1e-14]:
        epsilon = pair.epsilon_for_delta(target)
        assert pair.delta(epsilon) <= target
        assert pair.delta(epsilon * (1 - 1e-9)) > target
    # Above delta(0) the answer is 0; the add side stays below its largest loss.
    assert pair.epsilon_for_delta(0.01) == 0.0
    assert pair.add.epsilon_for_delta(1e-4) < pair.add.max_loss


def test_bad_rates_and_pairs_are_named():
    gaussian = privacy_loss.gaussian(1.0)
    for bad in [0.0, -0.1, 1.5, np.nan, np.inf, "0.1", None, [0.1, 0.2]]:
        with pytest.raises(ValueError, match="rate"):
            subsampling.poisson(gaussian, bad)
        with pytest.raises(ValueError, match="rate"):
            subsampling.amplified_epsilon(1.0, bad)
    with pytest.raises(ValueError, match="pair"):
        subsampling.poisson(privacy_loss.thresholded_laplace(1.0, 5.0), 0.1)
    with pytest.raises(ValueError, match="epsilon"):
        subsampling.amplified_epsilon(-1.0, 0.1)


def test_no_warnings_at_extremes():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for sigma in [0.05, 1.0, 1e3]:
            for rate in [1e-9, 0.5, 1.0]:
                pair = subsampling.poisson(privacy_loss.gaussian(sigma), rate)
                epsilons = np.array([0.0, 1e-12, 1e-3, 1.0, 50.0, 800.0, np.inf])
                for side in pair.directions:
                    values = side.delta(epsilons)
                    assert np.all(np.isfinite(values))
                    assert np.all(np.diff(values) <= 0)
                    assert np.all(np.isfinite(side.loss_exceeds(epsilons)))
                assert np.all(np.isfinite(pair.log_delta(epsilons[:-1])))
