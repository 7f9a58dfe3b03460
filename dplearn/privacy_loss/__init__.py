"""The privacy loss random variable of one mechanism on two neighbouring data sets.

Each object here describes the two output distributions A(D1) and A(D2) of one
mechanism, with A(D1) centred at ``center`` and A(D2) at ``center + sensitivity``.
The privacy loss of an output o is L(o) = ln(P[A(D1) = o] / P[A(D2) = o]), and with
o drawn from A(D1) it is a random variable. Everything the lessons quote about it is a
closed form here:

- ``loss_exceeds(epsilon)``: P[L > epsilon], the *width* of the bad events (delta_1).
- ``delta(epsilon)``: E[max(0, 1 - exp(epsilon - L))], the *area* (delta_2), which is the
  smallest delta with P[A(D1) in S] <= exp(epsilon) P[A(D2) in S] + delta for every S.
- ``loss_quantile(p)``: L at probability position p in [0, 1], outputs sorted by
  decreasing L: the x-axis of the figures that plot L against probability.

All methods take numpy arrays and broadcast; a scalar argument gives a float, and an
element gives the same answer alone or inside an array. Parameters are single numbers;
outputs must be finite. Accuracy, checked against mpmath at 60+ digits in the tests:
``log_delta`` within 1e-13 * max(1, |ln delta|) of the truth for every epsilon and every
sensitivity / sigma (Gaussian) or scale (Laplace, discrete Laplace) the objects accept;
``delta`` to 1e-12 relative where it is a normal double (below 2.2e-308 it loses
digits as a subnormal, and rounds to 0 below 5e-324, while its log stays exact).

The package, one family a module (``from dplearn import privacy_loss`` gives them all):

- ``_pair``: ``PrivacyLossPair``, the base class, and the checks and pieces the families
  share.
- ``_laplace``: Laplace, discrete Laplace (geometric) and thresholded Laplace noise.
- ``_gaussian``: Gaussian noise, ``gaussian_log_delta`` and the closed forms behind it
  that calibration's solver calls (``gaussian_log_delta_terms``, ``gaussian_tail_point``).
- ``_randomized_response``: randomised response.
- ``_selection``: a selection among finitely many candidates (lesson 12), and
  ``atoms_log_delta``, the delta of any loss with finitely many atoms.
- ``_events``: what an output or a set of outputs tells: the attacker's posterior odds,
  binned outputs and the delta of each set of bins.

Taught in: 01-measure-privacy-loss.ipynb, 02-see-what-delta-means.ipynb,
03-spot-distinguishing-events.ipynb
"""

from dplearn.privacy_loss._events import discretise_outputs, posterior_odds, set_deltas
from dplearn.privacy_loss._gaussian import (
    GAUSSIAN_RATIO_RANGE,
    GaussianNoise,
    gaussian,
    gaussian_log_delta,
    gaussian_log_delta_terms,
    gaussian_tail_point,
    output_at_position,
)
from dplearn.privacy_loss._laplace import (
    DiscreteLaplaceNoise,
    LaplaceNoise,
    ThresholdedLaplace,
    discrete_laplace,
    laplace,
    laplace_step_widths,
    thresholded_laplace,
)
from dplearn.privacy_loss._pair import PrivacyLossPair
from dplearn.privacy_loss._randomized_response import RandomizedResponse, randomized_response
from dplearn.privacy_loss._selection import SelectionPair, atoms_log_delta

__all__ = [
    "PrivacyLossPair",
    "LaplaceNoise",
    "GaussianNoise",
    "DiscreteLaplaceNoise",
    "ThresholdedLaplace",
    "laplace",
    "gaussian",
    "discrete_laplace",
    "thresholded_laplace",
    "gaussian_log_delta",
    "gaussian_log_delta_terms",
    "gaussian_tail_point",
    "GAUSSIAN_RATIO_RANGE",
    "RandomizedResponse",
    "randomized_response",
    "SelectionPair",
    "atoms_log_delta",
    "laplace_step_widths",
    "output_at_position",
    "posterior_odds",
    "discretise_outputs",
    "set_deltas",
]
