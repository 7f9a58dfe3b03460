"""Composition: the privacy loss of k releases, exactly, bounded, and as accountants compute it.

Run a mechanism k times with fresh, independent noise on the same neighbouring data sets
and publish every output: the density of the k outputs is the product of the k densities,
so the privacy loss of the k outputs is the *sum* L = L_1 + ... + L_k of the single-release
losses. Everything here is about the law of that sum:

- ``compose(pair, k)``: the exact k-fold composition of a pair from ``dplearn.privacy_loss``,
  with the same interface (``delta``, ``loss_exceeds``, ``loss_quantile``, ...).
  Gaussian: the Gaussian pair with sigma / sqrt(k). Laplace: a closed form (atoms plus
  exponentially tilted Irwin-Hall pieces, derived in ``ComposedLaplace``). Discrete
  Laplace: an exact convolution on its lattice.
- ``basic``, ``advanced``, ``optimal_delta``, ``optimal_epsilon``: what can be said from
  (epsilon0, delta0) alone (Dwork, Rothblum & Vadhan, "Boosting and differential privacy",
  2010; Kairouz, Oh & Viswanath, "The composition theorem for differential privacy", 2015;
  Murtagh & Vadhan, "The complexity of computing the optimal composition of differential
  privacy", 2016).
- ``pld``: a privacy loss distribution on a grid of width h, rounded up (pessimistic) or
  down (optimistic), composed by FFT, as in Meiser & Mohammadi ("Tight on budget?", 2018),
  Koskela, Jalko & Honkela ("Computing tight differential privacy guarantees using FFT",
  2020) and Google's dp_accounting; optionally the tighter pessimistic PLD of Doroshenko,
  Ghazi, Kamath, Kumar & Manurangsi ("Connect the dots", 2022).
- ``tradeoff``, ``gaussian_tradeoff``, ``gaussian_dp_mu``, ``clt_mu``: the hypothesis-test
  view (Dong, Roth & Su, "Gaussian differential privacy", 2019).
- ``group_privacy``, ``parallel_composition``: what a guarantee for one person says for a
  group of g, and what releases on disjoint parts of the data cost (McSherry, "Privacy
  integrated queries", 2009).

Conventions: A(D1) is the reference distribution, L = ln(dA(D1) / dA(D2)) with outputs drawn
from A(D1); delta(epsilon) = E[max(0, 1 - exp(epsilon - L))] (the area, delta_2) and
loss_exceeds(epsilon) = P[L > epsilon] (the width, delta_1).

The package, one section a module (``from dplearn import composition`` gives them all):

- ``exact``: ``compose`` and the composed pairs (Gaussian, Laplace, discrete Laplace), with
  ``_laplace``, the Laplace closed form and tables behind ``ComposedLaplace``.
- ``bounds``: basic, advanced and optimal composition, ``first_advanced_win``.
- ``pld``: privacy loss distributions and their FFT composition, ``pld_bracket``.
- ``tradeoff``: trade-off curves, Gaussian DP, the CLT.
- ``groups``: group privacy (the chain bound, the looser one, the Gaussian's exact delta)
  and parallel composition.
- ``law``: ``LossLaw``, the interface through which ``pld`` and ``tradeoff`` read the law
  of L of any pair, and ``Lattice``, a law on a grid.
- ``_arguments``: the argument checks they share.

Taught in: 08-add-up-privacy-losses.ipynb, 09-count-privacy-with-an-accountant.ipynb,
13-answer-many-queries-for-the-price-of-few.ipynb
"""

from dplearn.composition import _fft, _laplace, exact
from dplearn.composition.bounds import (
    OPTIMAL_MAX_K,
    advanced,
    advanced_delta,
    basic,
    first_advanced_win,
    optimal_delta,
    optimal_epsilon,
)
from dplearn.composition.exact import (
    DISCRETE_LAPLACE_MAX_POINTS,
    LAPLACE_CLOSED_FORM_MAX_K,
    LAPLACE_MAX_EPSILON0,
    LAPLACE_MAX_K,
    ComposedDiscreteLaplace,
    ComposedGaussian,
    ComposedLaplace,
    ComposedPair,
    ComposedRandomizedResponse,
    ComposedSelection,
    compose,
    laplace_epsilon_for_delta,
)
from dplearn.composition.groups import (
    CountNoiseScales,
    count_noise_scales,
    gaussian_group_delta,
    group_privacy,
    group_privacy_loose,
    parallel_composition,
)
from dplearn.composition.law import Lattice, LossLaw
from dplearn.composition.pld import ONE_RELEASE_BRACKETS as _one_release_brackets
from dplearn.composition.pld import (
    PLD_MAX_POINTS,
    PLDBracket,
    PrivacyLossDistribution,
    pld,
    pld_bracket,
)
from dplearn.composition.tradeoff import (
    clt_gap,
    clt_mu,
    gaussian_dp_mu,
    gaussian_tradeoff,
    tradeoff,
)

__all__ = [
    "ComposedPair",
    "ComposedGaussian",
    "ComposedLaplace",
    "ComposedDiscreteLaplace",
    "ComposedRandomizedResponse",
    "ComposedSelection",
    "compose",
    "laplace_epsilon_for_delta",
    "basic",
    "advanced",
    "advanced_delta",
    "optimal_delta",
    "optimal_epsilon",
    "first_advanced_win",
    "PrivacyLossDistribution",
    "PLDBracket",
    "pld",
    "pld_bracket",
    "gaussian_tradeoff",
    "tradeoff",
    "gaussian_dp_mu",
    "clt_mu",
    "clt_gap",
    "group_privacy",
    "group_privacy_loose",
    "gaussian_group_delta",
    "parallel_composition",
    "count_noise_scales",
    "CountNoiseScales",
    "LossLaw",
    "Lattice",
    "LAPLACE_CLOSED_FORM_MAX_K",
    "LAPLACE_MAX_K",
    "LAPLACE_MAX_EPSILON0",
    "DISCRETE_LAPLACE_MAX_POINTS",
    "PLD_MAX_POINTS",
    "OPTIMAL_MAX_K",
]


# The caches kept for reuse, under the names by which the benchmarks empty them to time a
# cold start. (Here the names ``pld`` and ``tradeoff`` are the functions, not their modules.)
_PIECES = _laplace.PIECES
_compose_cached = exact._compose_cached
_WORKSPACE = _fft.WORKSPACE
_ONE_RELEASE_BRACKETS = _one_release_brackets
