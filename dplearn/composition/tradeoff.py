"""The hypothesis-test view (f-DP): trade-off curves, Gaussian DP and its CLT.

``tradeoff``, ``gaussian_tradeoff``, ``gaussian_dp_mu``, ``clt_mu``, ``clt_gap`` (Dong, Roth
& Su, "Gaussian differential privacy", 2019). The curves are read from the law of L
(``law.LossLaw``) of a pair composed by ``exact.compose``.

Taught in: 09-count-privacy-with-an-accountant.ipynb
"""

from __future__ import annotations

import math

import numpy as np
from scipy import special

from dplearn import _validation as check
from dplearn import privacy_loss
from dplearn.composition._arguments import checked_k
from dplearn.composition.exact import ComposedGaussian, ComposedPair, compose

__all__ = [
    "gaussian_tradeoff",
    "tradeoff",
    "gaussian_dp_mu",
    "clt_mu",
    "clt_gap",
]


def gaussian_tradeoff(mu, alpha):
    """G_mu(alpha) = Phi(Phi^-1(1 - alpha) - mu): the trade-off curve of mu-GDP.

    It is the type II error of the best test at type I error alpha between N(0, 1) and
    N(mu, 1) (Dong, Roth & Su, "Gaussian differential privacy", 2019, Definition 2.7);
    vectorised over alpha.

    Args:
      mu: mu >= 0 (mu = sensitivity / sigma for one Gaussian release; inf: a perfect test).
      alpha: type I error(s) in [0, 1].

    Taught in: 09-count-privacy-with-an-accountant.ipynb
    """
    mu = check.scalar("mu", mu)
    if not mu >= 0:
        raise ValueError(f"mu must be a number >= 0, got {mu!r}")
    alpha = check.probability_closed("alpha", alpha)
    if math.isinf(mu):  # a perfect test: no type II error once any type I error is allowed
        return check.scalar_or_array(np.where(alpha > 0, 0.0, 1.0))
    # -Phi^-1(alpha) rather than Phi^-1(1 - alpha): exact for tiny alpha.
    with np.errstate(over="ignore"):
        beta = special.ndtr(-special.ndtri(alpha) - float(mu))
    return check.scalar_or_array(beta)


def tradeoff(pair, alpha):
    """The trade-off curve beta(alpha) of the pair, vectorised.

    beta(alpha) is the smallest type II error of a test of A(D1) against A(D2) whose type I
    error is at most alpha (Neyman-Pearson: reject A(D1) on the outputs of lowest privacy
    loss, randomising on an atom).

    With t the loss at probability position 1 - alpha,
    beta = P_D2[L > t] + e^-t (1 - alpha - P_D1[L > t]). Exact for the pairs ``compose``
    supports, composed or not.

    Args:
      pair: a pair from ``dplearn.privacy_loss`` or a ``ComposedPair``.
      alpha: type I error(s) in [0, 1].

    Taught in: 09-count-privacy-with-an-accountant.ipynb
    """
    composed = pair if isinstance(pair, ComposedPair) else compose(pair, 1)
    alpha = check.probability_closed("alpha", alpha)
    if isinstance(composed, ComposedGaussian):
        return gaussian_tradeoff(composed.equivalent.ratio, alpha)
    # The threshold, the loss at position 1 - alpha: from the bottom for small alpha, where
    # 1 - alpha would round away alpha's digits.
    small = alpha < 0.5
    threshold = np.where(
        small,
        composed.quantile_from_bottom(np.where(small, alpha, 0.5)),
        composed.quantile_from_top(np.where(small, 0.5, 1.0 - alpha)),
    )
    finite = np.isfinite(threshold)
    safe = np.where(finite, threshold, 0.0)
    # The randomised part: only on an atom, the share of its mass the test still rejects
    # on, P[L <= t] - alpha, summed from the bottom of the law (exact for tiny alpha).
    on_atom = np.isin(safe, composed.loss_atoms[0])
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        level = np.where(on_atom, np.maximum(composed.at_most(safe) - alpha, 0.0), 0.0)
        beta = composed.exceeds_d2(safe) + np.where(level > 0, np.exp(-safe) * level, 0.0)
    beta = np.where(alpha <= 0, 1.0, np.where(alpha >= 1, 0.0, beta))
    return check.scalar_or_array(np.clip(beta, 0.0, 1.0 - alpha * 0))


def gaussian_dp_mu(pair):
    """The mu with which a Gaussian pair (one release or k) is exactly mu-GDP.

    It is sensitivity / sigma, times sqrt(k) for k releases (Dong, Roth & Su 2019).

    Taught in: 09-count-privacy-with-an-accountant.ipynb
    """
    if isinstance(pair, privacy_loss.GaussianNoise):
        return pair.ratio
    if isinstance(pair, ComposedGaussian):
        return pair.equivalent.ratio
    raise ValueError(f"pair must be a Gaussian pair (composed or not), got {pair!r}")


def clt_mu(pair, k):
    """The mu of the central-limit approximation G_mu of k releases of ``pair``.

    Dong, Roth & Su, "Gaussian differential privacy", 2019, the central limit theorem of
    section 3: mu = 2 k kl / sqrt(k (kappa2 - kl^2)), where for a pair kl = E[L] (the KL
    divergence) and kappa2 - kl^2 = Var[L] under A(D1); so mu = 2 sqrt(k) E[L] / sd(L).
    Exact for the Gaussian; for others an approximation, not a bound (``clt_gap``).

    Taught in: 09-count-privacy-with-an-accountant.ipynb
    """
    k = checked_k(k)
    single = pair if isinstance(pair, ComposedPair) else compose(pair, 1)
    if single.loss_std <= 0:
        # No spread: every output has the same (positive) loss, a perfect test exists.
        return math.inf if single.loss_mean > 0 else 0.0
    return 2.0 * math.sqrt(k) * single.loss_mean / single.loss_std


def clt_gap(pair, k, alpha):
    """G_mu(alpha) - exact beta(alpha) for k releases, with mu = ``clt_mu(pair, k)``; vectorised.

    It is negative where the CLT curve lies below the exact trade-off curve.

    Taught in: 09-count-privacy-with-an-accountant.ipynb
    """
    k = checked_k(k)
    exact = tradeoff(compose(pair, k), alpha)
    return check.scalar_or_array(
        np.asarray(gaussian_tradeoff(clt_mu(pair, k), alpha)) - np.asarray(exact)
    )
