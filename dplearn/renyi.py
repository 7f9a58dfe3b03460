"""Rényi differential privacy: the moments of the privacy loss, and their conversion to delta.

The Rényi divergence of order alpha > 1 of A(D1) from A(D2) is

    D_alpha = ln E_D2[(p1 / p2)^alpha] / (alpha - 1) = ln E_D1[e^((alpha - 1) L)] / (alpha - 1),

a scaled log moment generating function of the privacy loss L. A mechanism is
(alpha, rho)-RDP when D_alpha <= rho on every pair of neighbours (Mironov, "Rényi
differential privacy", CSF 2017), and because the losses of independent releases add,
the D_alpha of k releases is k times one release's. ``to_epsilon`` turns RDP values at a
list of orders into an (epsilon, delta) guarantee.

Taught in: 11-account-for-a-training-run.ipynb
"""

from __future__ import annotations

import functools
import math

import numpy as np
from scipy import special

from dplearn import _validation as check
from dplearn import privacy_loss, subsampling

__all__ = [
    "DEFAULT_ORDERS",
    "rdp",
    "to_epsilon",
    "best_order",
    "epsilon_from_rdp",
    "order_epsilons",
]

#: The orders at which accountants evaluate RDP by default: dp_accounting's own list
#: (1.1 to 10.9 by 0.1, 11 to 63, then 128, 256, 512 and 1024).
DEFAULT_ORDERS = tuple(
    [round(1.0 + x / 10.0, 1) for x in range(1, 100)] + list(range(11, 64)) + [128, 256, 512, 1024]
)


def rdp(pair, alpha):
    """Rényi divergence D_alpha of a pair: the larger of its two directions.

    - Gaussian (sigma, sensitivity): alpha r**2 / 2 with r = sensitivity / sigma
      (Mironov 2017, Proposition 7).
    - Laplace (scale b, epsilon0 = sensitivity / b): ln(alpha / (2 alpha - 1)
      e^((alpha - 1) epsilon0) + (alpha - 1) / (2 alpha - 1) e^(-alpha epsilon0)) /
      (alpha - 1) (Mironov 2017, Table II).
    - The Poisson-subsampled Gaussian (``subsampling.poisson(gaussian(sigma), q)`` or its
      ``.remove`` side): at integer alpha the binomial sum
      ln sum_k C(alpha, k) (1 - q)^(alpha - k) q^k e^((k**2 - k) r**2 / 2) / (alpha - 1),
      summed in log space; at other alpha the same moment by adaptive quadrature of
      E_Q[(P / Q)^alpha]. The remove direction (mixture against one normal) is the larger
      one (Mironov, Talwar & Zhang, "Rényi differential privacy of the sampled Gaussian
      mechanism", 2019, Theorem 4).
    - A selection (``privacy_loss.SelectionPair``, lesson 12): the sum over the candidates
      ln sum_r P1[r]^alpha P2[r]^(1 - alpha) / (alpha - 1), in log space.

    Args:
      pair: a pair as above.
      alpha: order(s), finite and > 1.

    Taught in: 11-account-for-a-training-run.ipynb
    """
    alpha = check.orders("alpha", alpha)
    if isinstance(pair, privacy_loss.GaussianNoise):
        # Beyond the largest double (alpha = 1e300 at sigma = 1e-5) D_alpha rounds to inf.
        with np.errstate(over="ignore"):
            return check.scalar_or_array(alpha * pair.ratio**2 / 2.0)
    if isinstance(pair, privacy_loss.LaplaceNoise):
        return check.scalar_or_array(_laplace_rdp(alpha, pair.max_loss))
    if isinstance(pair, subsampling.PoissonSubsampled | subsampling.SubsampledRemove) and (
        isinstance(pair.mechanism, privacy_loss.GaussianNoise)
    ):
        ratio, rate = pair.mechanism.ratio, pair.rate
        _check_subsampled_orders(alpha, ratio, rate)
        values = np.array([_subsampled_gaussian_rdp(rate, ratio, float(a)) for a in alpha.flat])
        return check.scalar_or_array(values.reshape(alpha.shape))
    if isinstance(pair, privacy_loss.SelectionPair):
        return check.scalar_or_array(_selection_rdp(pair, alpha))
    raise ValueError(
        "pair must be a Gaussian or Laplace pair, a Poisson-subsampled Gaussian "
        f"(subsampling.poisson(gaussian(sigma), rate)) or a selection pair, got {pair!r}"
    )


def _selection_rdp(pair, alpha):
    """max over the two directions of ln sum_r P1[r]^alpha P2[r]^(1 - alpha) / (alpha - 1).

    Summed in log space over the candidates (the selection pair of lesson 12).
    """
    first = np.array(pair.log_probabilities_d1)
    second = np.array(pair.log_probabilities_d2)
    orders = np.asarray(alpha, dtype=float)[..., None]
    with np.errstate(invalid="ignore"):
        forward = special.logsumexp(orders * first + (1.0 - orders) * second, axis=-1)
        backward = special.logsumexp(orders * second + (1.0 - orders) * first, axis=-1)
    divergence = np.maximum(forward, backward) / (orders[..., 0] - 1.0)
    return np.maximum(np.nan_to_num(divergence, nan=np.inf), 0.0)


#: Largest order of the subsampled Gaussian (its binomial sum has alpha + 1 terms).
MAX_SUBSAMPLED_ORDER = 10_000


def _check_subsampled_orders(alpha, ratio, rate):
    """Orders the subsampled Gaussian's sum and quadrature handle in bounded time."""
    too_large = alpha > MAX_SUBSAMPLED_ORDER
    if np.any(too_large):
        raise ValueError(
            f"alpha must be at most {MAX_SUBSAMPLED_ORDER} for a subsampled Gaussian, got "
            f"{check.describe(alpha[too_large])}"
        )
    if rate == 1.0:
        return
    # A fractional order needs panels of width s / 2 over [-14 s, alpha + 14 s].
    fractional = (alpha != np.floor(alpha)) & ((alpha + 28.0 / ratio) * 2.0 * ratio > _MAX_PANELS)
    if np.any(fractional):
        raise ValueError(
            "alpha must be a whole number or at most "
            f"{_MAX_PANELS / (2.0 * ratio) - 28.0 / ratio:.4g} at this sigma, got "
            f"{check.describe(alpha[fractional])}"
        )


def _laplace_rdp(alpha, epsilon0):
    """Mironov's closed form of the Laplace mechanism's Rényi divergence, through expm1.

    Its two terms cancel to first order in epsilon0; by its series
    alpha e^2 / 2 - alpha e^3 / 6 where alpha e < 1e-5.

    Where alpha e >= 1 it is written as epsilon0 + ln(w1 + w2 e^(-(2 alpha - 1) epsilon0)) /
    (alpha - 1), w1 = alpha / (2 alpha - 1) and w2 = (alpha - 1) / (2 alpha - 1), which
    never exceeds epsilon0: multiplied out, (alpha - 1) epsilon0 would overflow at
    epsilon0 = 1e300, and 2 alpha - 1 at alpha = 1e308, though D_alpha is finite there.
    """
    # Each branch sees only the orders where it is used (a harmless stand-in elsewhere).
    # The bounds are written as epsilon0 < c / alpha, since alpha epsilon0 may overflow.
    use_series = epsilon0 < 1e-5 / alpha
    use_moderate = ~use_series & (epsilon0 < 1.0 / alpha)
    small = np.where(use_series, epsilon0, 0.0)
    series = alpha * small**2 / 2.0 - alpha * small**3 / 6.0
    order = np.where(use_moderate, alpha, 2.0)
    moderate_epsilon = np.where(use_moderate, epsilon0, 0.25)
    excess = (
        order * np.expm1((order - 1.0) * moderate_epsilon)
        + (order - 1.0) * np.expm1(-order * moderate_epsilon)
    ) / (2.0 * order - 1.0)
    moderate = np.log1p(excess) / (order - 1.0)
    # ln w1 = -ln(1 + (alpha - 1) / alpha): no 2 alpha - 1 to overflow, and every digit
    # kept near alpha = 1, where alpha - 1 is exact.
    log_keep = -np.log1p((alpha - 1.0) / alpha)
    log_flip = np.log(alpha - 1.0) - np.log(alpha) + log_keep
    with np.errstate(over="ignore"):
        # An exponent beyond the largest double is inf, and its term e^-inf = 0, exactly
        # as wanted: the term is below e^-745 long before.
        decay = (2.0 - 1.0 / alpha) * alpha * epsilon0
    large = epsilon0 + np.logaddexp(log_keep, log_flip - decay) / (alpha - 1.0)
    result = np.where(use_series, series, np.where(use_moderate, moderate, large))
    return np.maximum(result, 0.0)


@functools.lru_cache(maxsize=4096)
def _subsampled_gaussian_rdp(rate, ratio, alpha):
    """D_alpha of the remove direction, one order (cached: sliders ask again and again)."""
    if rate == 1.0:
        return alpha * ratio**2 / 2.0
    if alpha == math.floor(alpha):
        log_moment = _log_moment_integer(rate, ratio, int(alpha))
        if log_moment == math.inf:
            # The moment's largest exponent, (alpha**2 - alpha) r**2 / 2, passed the largest
            # double: then D_alpha is the Gaussian's alpha r**2 / 2 (at least 1e304, while
            # the weights' logarithms change it by less than 1e7), or inf beyond it.
            return alpha * ratio**2 / 2.0
        return log_moment / (alpha - 1.0)
    return _log_moment_by_quadrature(rate, ratio, alpha) / (alpha - 1.0)


def _log_moment_integer(rate, ratio, alpha):
    """ln E_Q[(P / Q)^alpha] at integer alpha, summed in log space.

    From the binomial expansion of (1 - q + q e^l)^alpha and
    E_Q[e^(k l)] = e^((k**2 - k) r**2 / 2).

    Written as ln(1 + sum_k w_k (e^((k**2 - k) r**2 / 2) - 1)), w_k the binomial weights
    (which sum to 1): every term is >= 0, so that a moment of 1 + 1e-20 keeps its digits.
    """
    k = np.arange(2, alpha + 1, dtype=float)
    log_binomial = (
        special.gammaln(alpha + 1.0) - special.gammaln(k + 1.0) - special.gammaln(alpha - k + 1.0)
    )
    with np.errstate(over="ignore"):
        # inf at a huge ratio and order: the moment is then inf too (see the caller).
        exponent = (k * k - k) * ratio**2 / 2.0
    with np.errstate(divide="ignore"):
        log_keep = math.log1p(-rate) if rate < 1.0 else -math.inf
        log_weights = log_binomial + np.where(alpha - k > 0, (alpha - k) * log_keep, 0.0)
        log_weights = log_weights + k * math.log(rate)
        # ln(e^c - 1) = c + ln(1 - e^-c), both parts accurate for tiny and huge c.
        log_excess = exponent + np.log(-np.expm1(-exponent))
    total = float(special.logsumexp(log_weights + log_excess))
    return float(np.logaddexp(0.0, total)) if total > -30.0 else math.log1p(math.exp(total))


def _log_moment_by_quadrature(rate, ratio, alpha):
    """ln E_Q[(P / Q)^alpha] for any alpha > 1, by composite Gauss-Legendre quadrature.

    In units of the sensitivity (output o, noise s = 1 / r): Q = N(0, s**2) and
    P / Q = 1 + x, x = q (e^l - 1), l = (2 o - 1) / (2 s**2). Since (a + b)^alpha <=
    2^(alpha - 1) (a^alpha + b^alpha), the integrand lies below two Gaussian bumps of width
    s, one at 0 (the (1 - q)^alpha term) and one at alpha (the q^alpha e^(alpha l) term):
    outside [-14 s, alpha + 14 s] it is below e^-98 of the total. Panels of width s / 2
    with 8 nodes each integrate such bumps to the last digit (checked against mpmath in the
    tests). The integrand is rescaled by its largest value, so that nothing overflows.
    Where the moment is within 1e-3 of 1 it is summed as 1 + E_Q[(1 + x)^alpha - 1 -
    alpha x] instead (E_Q[x] = 0): a positive integrand, so no digit is lost to 1.
    """
    s = 1.0 / ratio
    low, high = -14.0 * s, alpha + 14.0 * s
    panels = min(int(math.ceil((high - low) / (0.5 * s))), _MAX_PANELS)
    width = (high - low) / panels
    nodes = (low + width * (np.arange(panels)[:, None] + _PANEL_NODES[None, :])).ravel()
    weights = np.tile(_PANEL_WEIGHTS * width, panels)
    # Through nodes / s, since s * s overflows at sigma = 1e156 (a valid, if odd, sigma).
    standard = nodes / s
    ell = (standard - 0.5 / s) / s
    log_normal = -standard * standard / 2.0 - math.log(s) - 0.5 * math.log(2.0 * math.pi)
    with np.errstate(over="ignore", under="ignore"):
        loss = np.logaddexp(math.log1p(-rate), math.log(rate) + ell)
        log_values = alpha * loss + log_normal
        peak = float(log_values.max())
        total = peak + math.log(float(np.dot(weights, np.exp(log_values - peak))))
        if total > 1e-3:
            return total
        x = rate * np.expm1(np.minimum(ell, 700.0))
        power = alpha * np.log1p(x)
        direct = np.expm1(np.minimum(power, 700.0)) - alpha * x
        # (1 + x)^alpha - 1 - alpha x = sum_(j >= 2) C(alpha, j) x^j for small x.
        series = np.zeros_like(x)
        coefficient, term = 1.0, np.ones_like(x)
        for j in range(1, 8):
            coefficient *= (alpha - j + 1.0) / j
            term = term * x
            if j >= 2:
                series += coefficient * term
        excess = np.where(np.abs(x) < 1e-3, series, direct)
        excess = np.maximum(excess, 0.0)
        integral = float(np.dot(weights, excess * np.exp(log_normal)))
    return math.log1p(integral)


_PANEL_NODES, _PANEL_WEIGHTS = np.polynomial.legendre.leggauss(8)
_PANEL_NODES, _PANEL_WEIGHTS = (_PANEL_NODES + 1.0) / 2.0, _PANEL_WEIGHTS / 2.0
#: At most this many panels per order (alpha / s up to ~10**5): beyond, they widen.
_MAX_PANELS = 200_000


def order_epsilons(alphas, rdp_values, delta):
    """The epsilon at delta of each order, for solvers: no argument checks.

    The formula of ``epsilon_from_rdp`` (Balle et al. 2020, Theorem 21, as dp_accounting
    does), on float arrays already checked and broadcast (orders > 1, values >= 0, delta in
    (0, 1)); a search over the orders calls it many times on the same inputs.

    Args:
      alphas: float array of orders.
      rdp_values: float array of D_alpha, the shape of ``alphas``.
      delta: a float in (0, 1).

    Returns:
      A float array of epsilons (inf at orders <= 1.01).
    """
    epsilons = np.full(alphas.shape, np.inf)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        # delta >= sqrt(1 - e^-rho) already holds at epsilon = 0: D_alpha >= KL, and the
        # total variation distance is at most sqrt(1 - e^-KL) (Bretagnolle-Huber).
        trivial = delta**2 + np.expm1(-rdp_values) > 0
        usable = alphas > 1.01  # the bound is unstable as alpha -> 1, and useless there
        formula = (
            rdp_values
            + np.log1p(-1.0 / alphas)
            - (math.log(delta) + np.log(alphas)) / (alphas - 1.0)
        )
    epsilons = np.where(usable, formula, epsilons)
    epsilons = np.where(trivial, 0.0, epsilons)
    epsilons = np.where(np.isposinf(rdp_values) & ~trivial, np.inf, epsilons)
    return epsilons


def epsilon_from_rdp(alphas, rdp_values, delta):
    """The epsilon at delta of each order's RDP value, elementwise (``to_epsilon`` per order).

    Args:
      alphas: orders, each finite and > 1 (an array broadcast against ``rdp_values``).
      rdp_values: D_alpha at those orders, >= 0 (inf allowed).
      delta: target delta, in (0, 1).

    Returns:
      An array of the broadcast shape (a float for scalars): inf at orders <= 1.01, 0 where
      delta is met at epsilon = 0. It may be negative; ``to_epsilon`` clips its minimum at 0.

    Raises:
      ValueError: for an order <= 1, a negative or NaN value, or delta outside (0, 1).

    Taught in: 11-account-for-a-training-run.ipynb
    """
    alphas = check.orders("alphas", alphas)
    values = check.number("rdp_values", rdp_values)
    bad = np.isnan(values) | (values < 0)
    if np.any(bad):
        raise ValueError(f"rdp_values must be >= 0 and not NaN, got {check.describe(values[bad])}")
    delta = check.probability_open("delta", delta, scalar=True)
    try:
        alphas, values = np.broadcast_arrays(alphas, values)
    except ValueError:
        raise ValueError(
            f"rdp_values of shape {values.shape} do not match alphas of shape {alphas.shape}"
        ) from None
    return check.scalar_or_array(order_epsilons(alphas, values, delta))


def _conversion_inputs(alphas, rdp_values, delta):
    alphas = np.atleast_1d(check.orders("alphas", alphas)).ravel()
    values = np.atleast_1d(check.number("rdp_values", rdp_values)).ravel()
    bad = np.isnan(values) | (values < 0)
    if np.any(bad):
        raise ValueError(f"rdp_values must be >= 0 and not NaN, got {check.describe(values[bad])}")
    if values.shape != alphas.shape:
        raise ValueError(
            f"rdp_values must have one value per order: got {values.size} for {alphas.size} alphas"
        )
    delta = check.probability_open("delta", delta, scalar=True)
    return alphas, values, delta


def to_epsilon(alphas, rdp_values, delta):
    """The epsilon at delta that RDP values give, minimised over the orders.

    For each order, epsilon = rho + ln(1 - 1/alpha) - (ln delta + ln alpha) / (alpha - 1)
    (Balle, Barthe, Gaboardi, Hsu & Sato, "Hypothesis testing interpretations and Rényi
    differential privacy", AISTATS 2020, Theorem 21); 0 where delta >= sqrt(1 - e^-rho)
    already; orders <= 1.01 are not used (inf), as in dp_accounting's RdpAccountant. The
    result is the smallest over the orders, never below 0.

    Args:
      alphas: orders, each finite and > 1.
      rdp_values: D_alpha at those orders, >= 0 (inf allowed).
      delta: target delta, in (0, 1).

    Taught in: 11-account-for-a-training-run.ipynb
    """
    alphas, values, delta = _conversion_inputs(alphas, rdp_values, delta)
    return float(max(np.min(order_epsilons(alphas, values, delta)), 0.0))


def best_order(alphas, rdp_values, delta):
    """The order at which ``to_epsilon`` attains its minimum (the first one on a tie).

    It takes the arguments of ``to_epsilon``.

    Taught in: 11-account-for-a-training-run.ipynb
    """
    alphas, values, delta = _conversion_inputs(alphas, rdp_values, delta)
    return float(alphas[int(np.argmin(order_epsilons(alphas, values, delta)))])
