"""The privacy loss objects against the documents' numbers and independent computations."""

import math

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate

from dplearn import privacy_loss
from tests import oracle

LN3 = math.log(3)
SIGMAS = [0.05, 0.3, 1.0, math.sqrt(3), 7.0, 50.0]
SENSITIVITIES = [0.25, 1.0, 3.0]
EPSILONS = [0.0, 1e-3, 0.1, LN3, 2.0, 10.0, 100.0, 1000.0]


# --- The documents' numbers ------------------------------------------------------------


def test_gaussian_document_setting():
    """sigma^2 = 3, epsilon = ln 3: the document rounds delta_1 to 0.054 and delta_2 to 0.011."""
    pair = privacy_loss.gaussian(math.sqrt(3))
    assert pair.loss_exceeds(LN3) == pytest.approx(0.0532445015408501, rel=1e-13)
    assert pair.delta(LN3) == pytest.approx(0.0106240317332568, rel=1e-13)
    # The closed form of delta_1 behind PLRV-7 (docs/figures.md):
    # 1 - Phi((ln 3 - 1/6) / sqrt(1/3)).
    assert pair.loss_exceeds(LN3) == pytest.approx(
        float(
            1 - mpmath.ncdf((mpmath.log(3) - mpmath.mpf(1) / 6) / mpmath.sqrt(mpmath.mpf(1) / 3))
        ),
        rel=1e-13,
    )


def test_gaussian_loss_is_normal_mu_two_mu():
    pair = privacy_loss.gaussian(math.sqrt(3), 2.0)
    mu = 2.0**2 / (2 * 3)
    assert pair.loss_mean == pytest.approx(mu)
    # L at the median output (p = 1/2) is mu; one spread sqrt(2 mu) at p = Phi(-1).
    assert pair.loss_quantile(0.5) == pytest.approx(mu, abs=1e-14)
    assert pair.loss_quantile(float(mpmath.ncdf(-1))) == pytest.approx(mu + math.sqrt(2 * mu))
    assert pair.loss_quantile(0.0) == math.inf and pair.loss_quantile(1.0) == -math.inf


def test_laplace_document_setting():
    pair = privacy_loss.laplace(1 / LN3, center=1000)
    assert pair.max_loss == pytest.approx(LN3, rel=1e-15)
    # Odds ratios of the three outputs of PLRV-1.
    ratios = np.exp(pair.privacy_loss([999, 1000.5, 1003]))
    np.testing.assert_allclose(ratios, [3, 1, 1 / 3], rtol=1e-14)
    # PLRV-3: an atom of width 1/2 at ln 3, a middle part of 1/3, a tail of 1/6 at -ln 3.
    assert pair.loss_exceeds(LN3 * (1 - 1e-12)) == pytest.approx(0.5, rel=1e-9)
    assert pair.loss_exceeds(0.0) == pytest.approx(1 - 0.5 / math.sqrt(3), rel=1e-14)
    assert pair.loss_quantile(0.5) == pytest.approx(LN3, rel=1e-14)
    assert pair.loss_quantile(1 - 1 / 6) == pytest.approx(-LN3, rel=1e-12)
    assert pair.loss_quantile(0.5 + 1 / 3 / 2) == pytest.approx(
        LN3 + 2 * math.log(2 * (0.5 - 1 / 6)), rel=1e-12
    )
    middle = pair.loss_quantile(np.linspace(0.5, 5 / 6, 50))
    assert np.all(np.diff(middle) < 0), "the middle part is strictly decreasing"
    # Never exceeded: max L = ln 3, so delta is exactly 0 from epsilon = ln 3 on.
    assert pair.delta(LN3) == 0.0 and pair.loss_exceeds(LN3) == 0.0
    assert pair.privacy_loss(np.linspace(900, 1100, 10001)).max() == pytest.approx(LN3)


def test_thresholded_laplace_document_setting():
    pair = privacy_loss.thresholded_laplace(1 / LN3, threshold=5, count=1)
    expected = 0.5 * 3.0**-4
    assert expected == pytest.approx(0.00617283950617284, rel=1e-15)
    epsilons = np.array([0.0, 0.1, LN3, 5.0, 100.0])
    np.testing.assert_allclose(pair.delta(epsilons), expected, rtol=1e-13)
    np.testing.assert_allclose(pair.loss_exceeds(epsilons), expected, rtol=1e-13)
    assert pair.privacy_loss(6.0) == math.inf
    assert pair.privacy_loss(np.nan) == pytest.approx(math.log1p(-expected))
    assert pair.loss_quantile(0.006) == math.inf
    assert pair.loss_quantile(0.007) == pytest.approx(math.log1p(-expected))
    assert pair.epsilon_for_delta(0.01) == 0.0 and pair.epsilon_for_delta(0.001) == math.inf


# --- Independent high-precision values -----------------------------------------------


@pytest.mark.parametrize("sigma", SIGMAS)
@pytest.mark.parametrize("sensitivity", SENSITIVITIES)
def test_gaussian_delta_matches_mpmath(sigma, sensitivity):
    pair = privacy_loss.gaussian(sigma, sensitivity)
    log_deltas = pair.log_delta(np.array(EPSILONS))
    deltas = pair.delta(np.array(EPSILONS))
    for epsilon, log_delta, delta in zip(EPSILONS, log_deltas, deltas, strict=True):
        exact = oracle.gaussian_delta(epsilon, sigma, sensitivity)
        assert exact > 0
        assert log_delta == pytest.approx(float(mpmath.log(exact)), rel=1e-9, abs=1e-12), epsilon
        if exact > 1e-300:
            assert delta == pytest.approx(float(exact), rel=1e-9), epsilon
        else:
            assert delta == 0.0


def test_gaussian_log_delta_where_delta_underflows():
    pair = privacy_loss.gaussian(1.0)
    assert pair.delta(1000.0) == 0.0
    assert pair.log_delta(1000.0) == pytest.approx(-499514.85945184, rel=1e-12)
    exact = mpmath.log(oracle.gaussian_delta(1000, 1.0))
    assert pair.log_delta(1000.0) == pytest.approx(float(exact), rel=1e-12)


@pytest.mark.parametrize(("epsilon", "sigma"), [(0.0, 1.0), (LN3, math.sqrt(3)), (2.0, 0.7)])
def test_gaussian_closed_form_equals_its_definition(epsilon, sigma):
    """The closed form against the expectation E[max(0, 1 - e^(eps - L))], integrated."""
    exact = oracle.gaussian_delta_by_integration(epsilon, sigma)
    assert privacy_loss.gaussian(sigma).delta(epsilon) == pytest.approx(float(exact), rel=1e-10)


@pytest.mark.parametrize("sigma", SIGMAS)
def test_gaussian_loss_exceeds_matches_mpmath(sigma):
    pair = privacy_loss.gaussian(sigma, 2.0)
    for epsilon in [0.0, 0.5, LN3, 10.0]:
        exact = oracle.gaussian_loss_exceeds(epsilon, sigma, 2.0)
        assert pair.loss_exceeds(epsilon) == pytest.approx(float(exact), rel=1e-9, abs=1e-300)


@pytest.mark.parametrize(("scale", "sensitivity"), [(1 / LN3, 1.0), (0.3, 2.0), (5.0, 0.5)])
def test_laplace_delta_matches_integral(scale, sensitivity):
    pair = privacy_loss.laplace(scale, sensitivity)
    for epsilon in [0.0, 0.05, 0.5 * pair.max_loss, 0.999 * pair.max_loss]:
        exact = oracle.laplace_delta_by_integration(epsilon, scale, sensitivity)
        assert pair.delta(epsilon) == pytest.approx(float(exact), rel=1e-10)
        assert pair.log_delta(epsilon) == pytest.approx(float(mpmath.log(exact)), rel=1e-10)


@pytest.mark.parametrize(("scale", "sensitivity"), [(2.0, 3), (0.5, 1), (1 / LN3, 2), (7.0, 10)])
def test_discrete_laplace_matches_brute_force_sums(scale, sensitivity):
    pair = privacy_loss.discrete_laplace(scale, sensitivity)
    reach = int(60 * scale) + 60
    # Either side of max_loss, where P[L > epsilon] jumps (the atom of the outputs <= 0).
    edges = [pair.max_loss * (1 - 1e-9), pair.max_loss * (1 + 1e-9)]
    for epsilon in [0.0, 0.3 * pair.max_loss, 0.77 * pair.max_loss, *edges, 10.0]:
        delta, exceeds = oracle.discrete_laplace_sums(epsilon, scale, sensitivity, reach)
        assert pair.delta(epsilon) == pytest.approx(float(delta), rel=1e-11, abs=1e-15)
        assert pair.loss_exceeds(epsilon) == pytest.approx(float(exceeds), rel=1e-11, abs=1e-15)


def test_discrete_laplace_pmf_and_loss():
    pair = privacy_loss.discrete_laplace(2.0, 3, center=10)
    ks = np.arange(-200, 220)
    assert pair.density_d1(ks).sum() == pytest.approx(1.0, rel=1e-12)
    assert pair.density_d1(10) == pytest.approx(float(oracle.discrete_laplace_pmf(0, 2.0)))
    np.testing.assert_allclose(
        pair.privacy_loss(ks), np.log(pair.density_d1(ks) / pair.density_d2(ks)), atol=1e-12
    )
    with pytest.raises(ValueError, match="output must be whole numbers"):
        pair.privacy_loss(10.5)


# --- dp_accounting as an oracle (optional) ---------------------------------------------


def test_against_dp_accounting():
    plm = pytest.importorskip("dp_accounting.pld.privacy_loss_mechanism")
    epsilons = [0.0, 0.2, LN3, 3.0]
    for sigma, sensitivity in [(math.sqrt(3), 1.0), (0.8, 2.0)]:
        theirs = plm.GaussianPrivacyLoss(sigma, sensitivity=sensitivity)
        ours = privacy_loss.gaussian(sigma, sensitivity)
        for epsilon in epsilons:
            assert ours.delta(epsilon) == pytest.approx(
                theirs.get_delta_for_epsilon(epsilon), rel=1e-9
            )
    for scale, sensitivity in [(1 / LN3, 1.0), (0.5, 2.0)]:
        theirs = plm.LaplacePrivacyLoss(scale, sensitivity=sensitivity)
        ours = privacy_loss.laplace(scale, sensitivity)
        for epsilon in epsilons:
            assert ours.delta(epsilon) == pytest.approx(
                theirs.get_delta_for_epsilon(epsilon), rel=1e-9, abs=1e-15
            )
    for scale, sensitivity in [(2.0, 3), (0.4, 1)]:
        # dp_accounting's discrete Laplace parameter is a rate: 1 / scale.
        theirs = plm.DiscreteLaplacePrivacyLoss(1 / scale, sensitivity=sensitivity)
        ours = privacy_loss.discrete_laplace(scale, sensitivity)
        for epsilon in epsilons:
            assert ours.delta(epsilon) == pytest.approx(
                theirs.get_delta_for_epsilon(epsilon), rel=1e-9, abs=1e-15
            )


# --- Identities that hold for every pair -----------------------------------------------

PAIRS = [
    privacy_loss.laplace(1 / LN3),
    privacy_loss.laplace(0.7, 2.5, center=-3.0),
    privacy_loss.gaussian(math.sqrt(3)),
    privacy_loss.gaussian(0.4, 1.7),
    privacy_loss.discrete_laplace(2.0, 3),
]


@pytest.mark.parametrize("pair", PAIRS, ids=repr)
@pytest.mark.parametrize("epsilon", [0.0, 0.4, LN3])
def test_delta_is_the_area_on_the_probability_axis(pair, epsilon):
    """delta = integral over p in [0, 1] of max(0, 1 - e^eps / e^L(p)): Figure PLRV-9's area."""

    def height(p):
        return max(0.0, -math.expm1(epsilon - pair.loss_quantile(p)))

    width = pair.loss_exceeds(epsilon)
    points = [width] if 0 < width < 1 else None
    area, _ = integrate.quad(height, 0, 1, points=points, limit=200, epsabs=1e-13)
    assert area == pytest.approx(pair.delta(epsilon), rel=1e-7, abs=1e-12)


@pytest.mark.parametrize("pair", PAIRS, ids=repr)
def test_epsilon_for_delta_inverts_delta(pair):
    for epsilon in [0.05, 0.5, 1.0]:
        delta = pair.delta(epsilon)
        if 0 < delta < 1:
            assert pair.epsilon_for_delta(delta) == pytest.approx(epsilon, rel=1e-9)


@pytest.mark.parametrize(
    "pair",
    [*PAIRS, privacy_loss.laplace(0.7, 2.0), privacy_loss.gaussian(50.0, 0.3)],
    ids=repr,
)
@pytest.mark.parametrize("delta", [1e-300, 1e-12, 1e-6, 0.01, 0.2])
def test_epsilon_for_delta_never_reports_too_small_an_epsilon(pair, delta):
    epsilon = pair.epsilon_for_delta(delta)
    assert pair.delta(epsilon) <= delta
    if 0 < epsilon < math.inf:
        # ... and no more than a rounding step too large.
        assert pair.delta(epsilon * (1 - 1e-9)) > delta or pair.delta(0.0) <= delta


def test_epsilon_for_delta_of_gaussian_tiny_delta():
    pair = privacy_loss.gaussian(3.0)
    epsilon = pair.epsilon_for_delta(1e-12)
    assert pair.log_delta(epsilon) == pytest.approx(math.log(1e-12), rel=1e-12)
    np.testing.assert_allclose(
        pair.epsilon_for_delta(np.array([1e-3, 1e-6])),
        [pair.epsilon_for_delta(1e-3), pair.epsilon_for_delta(1e-6)],
    )


@settings(max_examples=150, deadline=None)
@given(
    sigma=st.floats(0.05, 50.0),
    sensitivity=st.floats(0.05, 20.0),
    epsilons=st.lists(st.floats(0.0, 1000.0), min_size=2, max_size=30),
)
def test_gaussian_delta_properties(sigma, sensitivity, epsilons):
    pair = privacy_loss.gaussian(sigma, sensitivity)
    epsilons = np.sort(np.array(epsilons))
    deltas = pair.delta(epsilons)
    log_deltas = pair.log_delta(epsilons)
    assert np.all(np.isfinite(log_deltas)) and np.all(log_deltas <= 0)
    assert np.all((deltas >= 0) & (deltas <= 1))
    # Non-increasing in epsilon (to the last bit of the log: 1e-13 relative).
    assert np.all(np.diff(log_deltas) <= 1e-13 * np.abs(log_deltas[1:]) + 1e-300)
    # The width of the bad events bounds their weighted area: delta_1 >= delta_2.
    assert np.all(pair.loss_exceeds(epsilons) >= deltas * (1 - 1e-12))


@settings(max_examples=100, deadline=None)
@given(
    scale=st.floats(0.05, 50.0),
    sensitivity=st.floats(0.05, 20.0),
    epsilon=st.floats(0.0, 100.0),
    p=st.floats(0.0, 1.0),
)
def test_laplace_properties(scale, sensitivity, epsilon, p):
    pair = privacy_loss.laplace(scale, sensitivity)
    delta = pair.delta(epsilon)
    assert 0.0 <= delta <= pair.loss_exceeds(epsilon) <= 1.0
    assert -pair.max_loss <= pair.loss_quantile(p) <= pair.max_loss
    assert pair.delta(epsilon + 0.1) <= delta


@settings(max_examples=100, deadline=None)
@given(
    scale=st.floats(0.05, 30.0),
    sensitivity=st.integers(1, 20),
    epsilons=st.lists(st.floats(0.0, 50.0), min_size=2, max_size=20),
)
def test_discrete_laplace_properties(scale, sensitivity, epsilons):
    pair = privacy_loss.discrete_laplace(scale, sensitivity)
    epsilons = np.sort(np.array(epsilons))
    deltas = pair.delta(epsilons)
    assert np.all((deltas >= 0) & (deltas <= 1))
    assert np.all(np.diff(deltas) <= 1e-15)
    assert np.all(pair.loss_exceeds(epsilons) >= deltas * (1 - 1e-12))


# --- Bad input -----------------------------------------------------------------------

BAD_POSITIVE = [0.0, -1.0, math.nan, math.inf]


@pytest.mark.parametrize("value", BAD_POSITIVE)
def test_bad_noise_parameters_are_named(value):
    for make, name in [
        (lambda v: privacy_loss.laplace(v), "scale"),
        (lambda v: privacy_loss.laplace(1.0, v), "sensitivity"),
        (lambda v: privacy_loss.gaussian(v), "sigma"),
        (lambda v: privacy_loss.gaussian(1.0, v), "sensitivity"),
        (lambda v: privacy_loss.discrete_laplace(v), "scale"),
        (lambda v: privacy_loss.discrete_laplace(1.0, v), "sensitivity"),
        (lambda v: privacy_loss.thresholded_laplace(v, 5.0), "scale"),
        (lambda v: privacy_loss.thresholded_laplace(1.0, 5.0, v), "count"),
    ]:
        with pytest.raises(ValueError, match=name):
            make(value)


def test_bad_epsilon_and_delta_are_named():
    for pair in [*PAIRS, privacy_loss.thresholded_laplace(1.0, 5.0)]:
        for method in (pair.delta, pair.log_delta, pair.loss_exceeds):
            for epsilon in [-0.1, math.nan, [0.5, -1.0]]:
                with pytest.raises(ValueError, match="epsilon must be >= 0"):
                    method(epsilon)
        for delta in [0.0, 1.0, -0.5, 2.0, math.nan]:
            with pytest.raises(ValueError, match="delta must lie in"):
                pair.epsilon_for_delta(delta)
        for p in [-0.1, 1.5, math.nan]:
            with pytest.raises(ValueError, match="p must lie in"):
                pair.loss_quantile(p)
    with pytest.raises(ValueError, match="sensitivity must be a whole number"):
        privacy_loss.discrete_laplace(1.0, 1.5)
    with pytest.raises(ValueError, match="threshold must be finite"):
        privacy_loss.thresholded_laplace(1.0, math.nan)
    with pytest.raises(ValueError, match="center must be finite"):
        privacy_loss.gaussian(1.0, center=math.inf)


def test_infinite_epsilon_gives_no_guarantee_but_no_nan():
    for pair in PAIRS:
        assert pair.delta(math.inf) == 0.0
        assert pair.loss_exceeds(math.inf) == 0.0


# --- Accuracy at the edges of the domain (the contract of tests/test_contract.py) ------

EDGE_RATIOS = [*np.geomspace(1e-8, 1e8, 17), 0.999, 1.0, 1.001]


def edge_epsilons(ratio):
    """Epsilons up to 1e3, with those where the closed form switches branches: a = 0
    (epsilon = r**2 / 2) and a = -12 (the far tail), just either side."""
    far = ratio * (ratio / 2 + 12)
    candidates = [0.0, 1e-300, 1e-12, 1e-6, 1e-3, 0.1, 1.0, 10.0, 100.0, 1e3]
    candidates += [ratio**2 / 2, far * (1 - 1e-12), far * (1 + 1e-12)]
    return np.array([e for e in candidates if e <= 1e3])


@pytest.mark.parametrize("ratio", EDGE_RATIOS, ids=lambda r: f"{r:.3g}")
def test_gaussian_delta_at_the_edges_matches_mpmath(ratio):
    """sigma / sensitivity from 1e-8 to 1e8, epsilon up to 1e3, against mpmath with as many
    digits as the cancellation needs (at least 60).

    ln delta: within 1e-13 of the truth, relative to max(1, |ln delta|) (measured: 1.5e-15).
    delta: within 1e-12 relative where it is a normal double (measured: 3e-14); looser
    than ln delta because exp multiplies ln delta's absolute error, up to 745 ulps.
    """
    pair = privacy_loss.gaussian(1 / ratio)
    epsilons = edge_epsilons(pair.ratio)
    log_deltas = pair.log_delta(epsilons)
    deltas = pair.delta(epsilons)
    for epsilon, log_delta, delta in zip(epsilons, log_deltas, deltas, strict=True):
        exact = oracle.gaussian_log_delta_exact(epsilon, pair.ratio)
        assert abs(log_delta - float(exact)) <= 1e-13 * max(1.0, abs(float(exact))), epsilon
        exact_delta = float(mpmath.exp(exact))
        if exact_delta >= np.finfo(float).tiny:
            assert delta == pytest.approx(exact_delta, rel=1e-12), epsilon


@pytest.mark.parametrize("ratio", [1e-300, 1e-150, 1e-20, 1e20, 1e150])
@pytest.mark.parametrize("epsilon", [0.0, 1e-300, 1e-30, 1.0, 1e30, 1e300])
def test_gaussian_log_delta_far_beyond_the_lessons(ratio, epsilon):
    """The same accuracy over the whole float range of ratio = sensitivity / sigma."""
    log_delta = privacy_loss.gaussian_log_delta(epsilon, ratio)
    exact = -math.inf if ratio / 2 - epsilon / ratio < -1e154 else None
    if exact is None:
        exact = float(oracle.gaussian_log_delta_exact(epsilon, ratio))
    if math.isinf(exact):
        assert log_delta == exact
    else:
        assert abs(log_delta - exact) <= 1e-13 * max(1.0, abs(exact))


def test_gaussian_delta_of_a_huge_sigma_is_not_nan():
    """gaussian(1e8).delta is a number where two erfcx values round to a negative difference."""
    pair = privacy_loss.gaussian(1e8)
    epsilons = np.geomspace(1e-12, 1.0, 60)
    for epsilon, log_delta in zip(epsilons, pair.log_delta(epsilons), strict=True):
        exact = float(oracle.gaussian_log_delta_exact(epsilon, pair.ratio))
        assert log_delta == pytest.approx(exact, rel=1e-13)


@pytest.mark.parametrize("scale", [1e-8, 1e-3, 1.0, 1e3, 1e8])
@pytest.mark.parametrize("sensitivity", [1.0, 7.0])
def test_laplace_delta_at_the_edges_matches_mpmath(scale, sensitivity):
    """1 - exp((epsilon - Delta/b) / 2) against the integral of max(0, p1 - e^eps p2)
    where quad can resolve it, and against the same closed form at 60 digits elsewhere
    (with Delta/b exact, also where epsilon is within 1e-9 of it): relative 1e-12
    (measured: a few ulps)."""
    pair = privacy_loss.laplace(scale, sensitivity)
    bound = pair.max_loss
    for epsilon in [0.0, 1e-12, 1e-3, 1.0, 1e3, bound * (1 - 1e-9), bound / 2]:
        if not 0 <= epsilon < bound or epsilon > 1e3:
            continue
        closed = -mpmath.expm1((mpmath.mpf(epsilon) - mpmath.mpf(sensitivity) / scale) / 2)
        assert pair.delta(epsilon) == pytest.approx(float(closed), rel=1e-12)
        assert pair.log_delta(epsilon) == pytest.approx(float(mpmath.log(closed)), rel=1e-12)
        if 1e-3 <= scale <= 1e3 and bound < 100:
            integral = oracle.laplace_delta_by_integration(epsilon, scale, sensitivity)
            assert pair.delta(epsilon) == pytest.approx(float(integral), rel=1e-9)


@pytest.mark.parametrize("scale", [1e-3, 0.05, 1.0, 30.0, 1e4])
@pytest.mark.parametrize("sensitivity", [1, 2, 5])
def test_discrete_laplace_delta_at_the_edges_matches_mpmath(scale, sensitivity):
    """The closed form against the sum over outputs (mpmath.nsum, 60 digits): relative
    1e-12, or 1e-300 absolute where delta underflows."""
    pair = privacy_loss.discrete_laplace(scale, sensitivity)
    bound = pair.max_loss
    epsilons = [0.0, 1e-9, 0.5, 1.0, 10.0, 800.0, 1e3, bound * (1 - 1e-12), bound * 0.5]
    for epsilon in epsilons:
        if epsilon > 1e3:
            continue
        exact = oracle.discrete_laplace_delta(epsilon, scale, sensitivity)
        assert pair.delta(epsilon) == pytest.approx(float(exact), rel=1e-12, abs=1e-300), epsilon


def test_discrete_laplace_delta_with_a_tiny_scale_is_not_nan():
    """discrete_laplace(1e-3, 1).delta(800) is 1 - e^-200, where 0 * inf would give NaN."""
    assert privacy_loss.discrete_laplace(1e-3, 1).delta(800.0) == pytest.approx(
        float(-mpmath.expm1(-200)), rel=1e-15
    )
    assert privacy_loss.discrete_laplace(1e-3, 3).delta(np.array([0.0, 800.0, 2999.0])) == (
        pytest.approx([1.0, 1.0, float(-mpmath.expm1(-1))], rel=1e-14)
    )


@pytest.mark.parametrize(
    ("make", "name"),
    [
        (lambda v: privacy_loss.gaussian(v), "sigma"),
        (lambda v: privacy_loss.gaussian(1.0, v), "sensitivity"),
        (lambda v: privacy_loss.laplace(v), "scale"),
        (lambda v: privacy_loss.discrete_laplace(1.0, v), "sensitivity"),
        (lambda v: privacy_loss.thresholded_laplace(1.0, v), "threshold"),
        (lambda v: privacy_loss.laplace(1.0, center=v), "center"),
    ],
)
@pytest.mark.parametrize("value", ["1.0", True, None, [1.0, 2.0], np.array([1.0, 2.0])])
def test_parameters_must_be_one_number(make, name, value):
    """An array, a string or a boolean where one number is expected: a ValueError naming it."""
    with pytest.raises(ValueError, match=name):
        make(value)


def test_parameters_whose_ratio_leaves_the_floats_are_named():
    with pytest.raises(ValueError, match="scale"):
        privacy_loss.laplace(1e-320, 1e10)
    with pytest.raises(ValueError, match="sigma"):
        privacy_loss.gaussian(1e300, 1e-10)
    with pytest.raises(ValueError, match="output"):
        privacy_loss.gaussian(1.0).privacy_loss(math.nan)
    # Far from both centres the loss is exactly +-max_loss, not lost to rounding.
    assert privacy_loss.laplace(1.0).privacy_loss([1e20, -1e20]) == pytest.approx([-1.0, 1.0])


# What one output, or a set of outputs, tells (Taught in: lessons 01 and 02) -------------


@pytest.mark.parametrize(("scale", "sensitivity"), [(1 / math.log(3), 1.0), (0.3, 2.0), (7.0, 0.5)])
def test_laplace_step_widths_are_the_atoms_of_the_loss(scale, sensitivity):
    noise = privacy_loss.laplace(scale, sensitivity, center=1000)
    top, middle, bottom = privacy_loss.laplace_step_widths(noise)
    # The atoms by their definition: P[A(D1) <= 1000] and P[A(D1) >= 1000 + sensitivity].
    b, d = mpmath.mpf(scale), mpmath.mpf(sensitivity)
    assert top == pytest.approx(0.5, rel=1e-15)
    assert bottom == pytest.approx(float(mpmath.exp(-d / b) / 2), rel=1e-14)
    assert middle == pytest.approx(float(1 - mpmath.exp(-d / b) / 2 - mpmath.mpf(1) / 2), rel=1e-13)
    # At the document's setting: 1/2, 1/3, 1/6.
    if sensitivity == 1.0:
        assert (top, middle, bottom) == pytest.approx((1 / 2, 1 / 3, 1 / 6), rel=1e-14)


@pytest.mark.parametrize("position", [1e-12, 0.002, 0.045, 0.5, 0.9])
def test_output_at_position_has_that_mass_below_it(position):
    noise = privacy_loss.gaussian(math.sqrt(3), 1.0, center=1000)
    output = privacy_loss.output_at_position(noise, position)
    below = mpmath.ncdf((mpmath.mpf(output) - 1000) / mpmath.sqrt(3))
    assert float(below) == pytest.approx(position, rel=1e-9)
    # L falls with the output, so the output at position p has the loss at position p.
    assert noise.privacy_loss(output) == pytest.approx(noise.loss_quantile(position), rel=1e-9)


def test_posterior_odds_is_bayes_rule_on_the_densities():
    noise = privacy_loss.laplace(1 / math.log(3), 1.0, center=1000)
    outputs = np.array([999.0, 1000.5, 1003.0])
    odds = privacy_loss.posterior_odds(2.0, noise.privacy_loss(outputs))
    by_bayes = 2.0 * noise.density_d1(outputs) / noise.density_d2(outputs)
    np.testing.assert_allclose(odds, by_bayes, rtol=1e-14)
    np.testing.assert_allclose(odds, [6.0, 2.0, 2.0 / 3.0], rtol=1e-14)
