"""Privacy amplification by subsampling: a mechanism run on a Poisson subsample.

Poisson subsampling of rate q keeps each person of the data set independently with
probability q, and the mechanism sees only the subsample. Neighbouring data sets differ by
adding or removing one person x. If x is in the data, the output is the mixture
P = (1 - q) M(c) + q M(c + sensitivity) (x left out of the subsample, or kept); if not,
it is Q = M(c). Two directions of the privacy loss follow, both exact here:

- remove (``.remove``): L = ln(P / Q) with outputs drawn from P, for the Gaussian
  L(o) = ln(1 - q + q e^((2(o - c) - sensitivity) sensitivity / (2 sigma**2)));
- add (``.add``): L = ln(Q / P) with outputs drawn from Q, bounded by -ln(1 - q).

For every symmetric mechanism M (Gaussian, Laplace) the two deltas are closed forms of
M's own (Balle, Barthe & Gaboardi, "Privacy amplification by subsampling: tight analyses
via couplings and divergences", NeurIPS 2018, the advanced joint convexity of the hockey
stick divergence): with e^eps' = 1 + (e^eps - 1) / q,

    delta_remove(eps) = q delta_M(eps'),
    delta_add(eps) = (1 - (1 - q) e^eps) delta_M(v),  e^v = q e^eps / (1 - (1 - q) e^eps),

the second for eps < -ln(1 - q) (0 above). The pair returned by ``poisson`` reports the
larger of the two directions (``delta``, ``log_delta``, ``epsilon_for_delta``,
``loss_exceeds``, ``max_loss``), as dp_accounting's ADD_OR_REMOVE_ONE neighbouring
relation does; its output-level views (``privacy_loss``, ``density_d1``, ``density_d2``,
``loss_quantile``) are the remove side's; ``.remove`` and ``.add`` give each direction
as a pair of its own.

Taught in: 10-amplify-privacy-by-subsampling.ipynb, 11-account-for-a-training-run.ipynb
"""

from __future__ import annotations

import numpy as np
from scipy import optimize, special

from dplearn import _validation as check
from dplearn import privacy_loss

__all__ = [
    "SubsampledRemove",
    "SubsampledAdd",
    "PoissonSubsampled",
    "poisson",
    "amplified_epsilon",
    "amplified_delta",
]

_BISECTION_STEPS = 80


def _rate(rate):
    """The checked sampling rate: one number in (0, 1]."""
    value = check.scalar("rate", rate)
    if not 0.0 < value <= 1.0:
        raise ValueError(f"rate must lie in (0, 1], got {rate!r}")
    return value


def _mechanism(pair):
    if not isinstance(pair, privacy_loss.GaussianNoise | privacy_loss.LaplaceNoise):
        raise ValueError(
            "pair must be a Gaussian or Laplace pair from dplearn.privacy_loss "
            f"(gaussian(sigma), laplace(scale)), got {pair!r}"
        )
    return pair


def amplified_epsilon(epsilon, rate):
    """ln(1 + q (e^epsilon - 1)): the epsilon of an epsilon-DP mechanism on a Poisson subsample.

    q is the subsample's rate (Balle, Barthe & Gaboardi 2018, Theorem 8 for add/remove).
    Computed as log1p(q expm1(epsilon)) up to epsilon = 1 and as
    epsilon + ln(q + (1 - q) e^-epsilon) beyond (no overflow however large epsilon is;
    inf stays inf).

    Args:
      epsilon: privacy budget(s) of the mechanism, >= 0.
      rate: sampling rate q, in (0, 1].

    Taught in: 10-amplify-privacy-by-subsampling.ipynb
    """
    epsilon = check.epsilon(epsilon)
    rate = _rate(rate)
    return check.scalar_or_array(_amplified(epsilon, rate))


def _amplified(epsilon, rate):
    if rate == 1.0:
        return np.asarray(epsilon, dtype=float)
    with np.errstate(over="ignore", invalid="ignore"):
        small = np.minimum(epsilon, 1.0)
        near = np.log1p(rate * np.expm1(small))
        large = np.maximum(epsilon, 1.0)
        far = large + np.logaddexp(np.log(rate), np.log1p(-rate) - large)
        result = np.where(epsilon <= 1.0, near, far)
    return np.where(np.isinf(epsilon), np.inf, result)


def amplified_delta(delta, rate):
    """q delta: the delta of an (epsilon, delta)-DP mechanism on a Poisson subsample of rate q.

    Paired with ``amplified_epsilon`` (Balle, Barthe & Gaboardi 2018).

    Args:
      delta: delta(s) of the mechanism, in [0, 1].
      rate: sampling rate q, in (0, 1].

    Taught in: 10-amplify-privacy-by-subsampling.ipynb
    """
    delta = check.probability_closed("delta", delta)
    rate = _rate(rate)
    return check.scalar_or_array(rate * delta)


def _remove_shift(epsilon, rate):
    """eps' = ln(1 + (e^eps - 1) / q), for real eps > ln(1 - q) (arrays)."""
    if rate == 1.0:
        return np.asarray(epsilon, dtype=float)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        small = np.minimum(epsilon, 1.0)
        grown = np.expm1(small)
        # ln(1 + g / q) = ln g - ln q + ln(1 + q / g) once g > q: no overflow for tiny q.
        near = np.where(
            grown <= rate,
            np.log1p(grown / rate),
            np.log(grown) - np.log(rate) + np.log1p(rate / np.where(grown > 0, grown, 1.0)),
        )
        large = np.maximum(epsilon, 1.0)
        far = large - np.log(rate) + np.log1p(-(1.0 - rate) * np.exp(-large))
        result = np.where(epsilon <= 1.0, near, far)
    return np.where(np.isposinf(epsilon), np.inf, result)


def _add_parts(epsilon, rate):
    """(ln(1 - (1 - q) e^eps), v) with e^v = q e^eps / (1 - (1 - q) e^eps).

    For real eps < -ln(1 - q) (arrays; meaningless elsewhere).
    """
    if rate == 1.0:
        epsilon = np.asarray(epsilon, dtype=float)
        return np.zeros(epsilon.shape), epsilon
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        log_factor = np.log(-np.expm1(epsilon + np.log1p(-rate)))
        ratio = np.expm1(-epsilon) / rate
        # Two forms of v, each where it keeps its digits: near eps = 0 the first, near the
        # end -ln(1 - q) (where v grows without bound) the second.
        first = -np.log1p(np.maximum(ratio, -1.0))
        second = np.log(rate) + epsilon - log_factor
        v = np.where(ratio > -0.5, first, second)
    return log_factor, v


def _extended_delta(pair, x):
    """delta_M(x) for every real x.

    For x < 0, delta(-t) = 1 - e^-t + e^-t delta(t) (the complement of the bad set; the
    pair is symmetric).
    """
    x = np.asarray(x, dtype=float)
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        magnitude = np.abs(x)
        at = np.asarray(pair.delta(np.where(np.isnan(magnitude), 0.0, magnitude)), dtype=float)
        negative = -np.expm1(x) + np.exp(x) * at
        return np.where(x >= 0, at, np.where(np.isneginf(x), 1.0, negative))


def _d2_exceeds(pair, t):
    """P[L_M > t] with outputs drawn from M's D2, for t >= 0 (arrays).

    That is the bad set's mass under the other distribution.
    """
    t = np.asarray(t, dtype=float)
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        if isinstance(pair, privacy_loss.GaussianNoise):
            r = pair.ratio
            return special.ndtr(-r / 2.0 - t / r)
        bound = pair.max_loss
        inside = 0.5 * np.exp((-t - bound) / 2.0)
        return np.where(t >= bound, 0.0, inside)


def _survival(pair, offset):
    """P[M(c) - c > offset] (arrays; offset may be +-inf)."""
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        if isinstance(pair, privacy_loss.GaussianNoise):
            return special.ndtr(-offset / pair.sigma)
        b = pair.scale
        return np.where(offset >= 0, 0.5 * np.exp(-offset / b), -0.5 * np.expm1(offset / b) + 0.5)


def _inverse_survival(pair, p):
    """The offset whose survival probability is p (p in [0, 1]; +inf at 0, -inf at 1)."""
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        if isinstance(pair, privacy_loss.GaussianNoise):
            return -pair.sigma * special.ndtri(p)
        b = pair.scale
        return np.where(p <= 0.5, -b * np.log(2.0 * p), b * np.log(2.0 * (1.0 - p)))


class _Subsampled(privacy_loss.PrivacyLossPair):
    """What the two directions share: the mechanism, the rate, the two output densities."""

    def __init__(self, pair, rate):
        self.mechanism = _mechanism(pair)
        self.rate = _rate(rate)

    def __repr__(self):
        return f"{type(self).__name__}({self.mechanism!r}, rate={self.rate!r})"

    def __eq__(self, other):
        return (
            type(other) is type(self)
            and other.mechanism == self.mechanism
            and other.rate == self.rate
        )

    def __hash__(self):
        return hash((type(self).__name__, self.mechanism, self.rate))

    @property
    def sensitivity(self):
        """The mechanism's sensitivity."""
        return self.mechanism.sensitivity

    @property
    def center(self):
        """The mechanism's output centre without the person (c)."""
        return self.mechanism.center

    def density_with(self, output):
        """Density of the output when the person is in the data.

        It is the mixture (1 - q) M(c) + q M(c + sensitivity).
        """
        q = self.rate
        return check.scalar_or_array(
            (1.0 - q) * np.asarray(self.mechanism.density_d1(output))
            + q * np.asarray(self.mechanism.density_d2(output))
        )

    def density_without(self, output):
        """Density of the output when the person is not in the data: M(c)."""
        return self.mechanism.density_d1(output)

    def _remove_loss(self, output):
        """ln(P / Q)(output) = ln(1 - q + q e^l), l = ln(M(c + sens) / M(c))(output)."""
        ell = -np.asarray(self.mechanism.privacy_loss(output), dtype=float)
        q = self.rate
        with np.errstate(divide="ignore"):
            loss = np.logaddexp(np.log1p(-q) if q < 1.0 else -np.inf, np.log(q) + ell)
        # The ends come from amplified_epsilon and log1p: the same numbers to a few ulps
        # (or, for a tiny max_loss of the mechanism, more digits), clipped to them.
        bottom, top = self._loss_range_ends()
        return np.clip(loss, bottom, top)

    def _loss_range_ends(self):
        """(ln of P/Q at the smallest, at the largest output): the remove loss's range."""
        q = self.rate
        low = self.mechanism.max_loss
        with np.errstate(divide="ignore"):
            log_keep = np.log1p(-q) if q < 1.0 else -np.inf
            # ln(1 - q + q e^-m) = log1p(q expm1(-m)): exact for a tiny m too.
            bottom = float(np.log1p(q * np.expm1(-np.float64(low))))
            top = float(np.logaddexp(log_keep, np.log(q) + low))
        return bottom, min(top, float(_amplified(np.float64(low), q)))


class SubsampledRemove(_Subsampled):
    """The remove direction: D1 = (1 - q) M(c) + q M(c + sensitivity), D2 = M(c).

    L(o) = ln(1 - q + q e^l(o)) with l(o) = ln(M(c + sensitivity) / M(c))(o); exact
    delta(eps) = q delta_M(eps'), e^eps' = 1 + (e^eps - 1) / q (Balle, Barthe &
    Gaboardi 2018), hence also the exact inverse epsilon_for_delta(t) =
    amplified_epsilon(M.epsilon_for_delta(t / q), q).

    Taught in: 10-amplify-privacy-by-subsampling.ipynb
    """

    @property
    def max_loss(self):
        """ln(1 - q + q e^max_loss(M)): inf for the Gaussian."""
        return float(_amplified(np.float64(self.mechanism.max_loss), self.rate))

    @property
    def min_loss(self):
        """The smallest loss, ln(1 - q + q e^-max_loss(M)) (ln(1 - q) for the Gaussian)."""
        return self._loss_range_ends()[0]

    def density_d1(self, output):
        """Density of D1 (the mixture) at output."""
        return self.density_with(output)

    def density_d2(self, output):
        """Density of D2 = M(c) at output."""
        return self.density_without(output)

    def privacy_loss(self, output):
        """L(output) = ln(1 - q + q e^l(output)), increasing in the output."""
        return check.scalar_or_array(self._remove_loss(output))

    def log_delta(self, epsilon):
        """ln delta = ln q + ln delta_M(eps')."""
        epsilon = check.epsilon(epsilon)
        with np.errstate(divide="ignore"):
            inner = np.asarray(self.mechanism.log_delta(_remove_shift(epsilon, self.rate)))
            # At and above the largest loss nothing is left (eps' may round an ulp low).
            result = np.where(epsilon >= self.max_loss, -np.inf, np.log(self.rate) + inner)
            return check.scalar_or_array(result)

    def base_loss(self, loss):
        """The base pair's loss at the output where this direction's loss is ``loss``.

        The inverse of L = ln(1 - q + q e^l): l = ln(1 + (e^L - 1) / q), for checked arrays
        of real L > ln(1 - q) (no argument checks: accountants call it on whole grids).
        """
        return _remove_shift(loss, self.rate)

    def hockey_stick(self, x):
        """delta(x) for every real x (negative ones too): 1 - e^x at and below min_loss.

        No argument checks: accountants call it on whole grids of checked floats.
        """
        x = np.asarray(x, dtype=float)
        q = self.rate
        with np.errstate(over="ignore", under="ignore", invalid="ignore", divide="ignore"):
            inside = np.expm1(x) / q > -1.0
            shifted = _remove_shift(np.where(inside, x, 0.0), q)
            value = q * _extended_delta(self.mechanism, shifted)
            return np.clip(np.where(inside, value, -np.expm1(x)), 0.0, 1.0)

    def loss_exceeds(self, epsilon):
        """P[L > eps] = (1 - q) P_D2M[l_M > eps'] + q P_D1M[l_M > eps'] by the symmetry of M."""
        epsilon = check.epsilon(epsilon)
        shifted = _remove_shift(epsilon, self.rate)
        finite = np.where(np.isfinite(shifted), shifted, 0.0)
        width = (1.0 - self.rate) * _d2_exceeds(self.mechanism, finite) + self.rate * np.asarray(
            self.mechanism.loss_exceeds(finite)
        )
        width = np.where(np.isfinite(shifted), width, 0.0)
        return check.scalar_or_array(np.clip(width, 0.0, 1.0))

    def d2_loss_exceeds(self, epsilon):
        """P[L > eps] with outputs drawn from D2 = M(c): the bad set's mass under D2."""
        epsilon = check.epsilon(epsilon)
        shifted = _remove_shift(epsilon, self.rate)
        finite = np.where(np.isfinite(shifted), shifted, 0.0)
        width = _d2_exceeds(self.mechanism, finite)
        return check.scalar_or_array(np.where(np.isfinite(shifted), width, 0.0))

    def output_quantile(self, p):
        """The output o with P_D1[O > o] = p (outputs sorted by decreasing loss)."""
        p = check.probability_closed("p", p)
        q, pair = self.rate, self.mechanism
        # The mixture's survival lies between its two components', so its quantile lies
        # between theirs: bisection on that interval, all positions at once.
        base = _inverse_survival(pair, p)
        low = np.where(np.isfinite(base), base, 0.0)
        high = low + pair.sensitivity
        for _ in range(_BISECTION_STEPS):
            middle = 0.5 * (low + high)
            survival = (1.0 - q) * _survival(pair, middle) + q * _survival(
                pair, middle - pair.sensitivity
            )
            above = survival > p
            low = np.where(above, middle, low)
            high = np.where(above, high, middle)
        offset = np.where(np.isfinite(base), 0.5 * (low + high), base)
        return check.scalar_or_array(offset + pair.center)

    def loss_quantile(self, p):
        """L at probability position p under D1, outputs sorted by decreasing L."""
        output = np.asarray(self.output_quantile(p), dtype=float)
        bottom, top = self._loss_range_ends()
        with np.errstate(over="ignore", invalid="ignore"):
            finite = np.where(np.isfinite(output), output, 0.0)
            loss = np.where(
                np.isposinf(output),
                top,
                np.where(np.isneginf(output), bottom, self._remove_loss(finite)),
            )
        return check.scalar_or_array(loss)

    def _epsilon_for_one_delta(self, delta):
        inner_target = delta / self.rate
        if inner_target >= 1.0:
            return 0.0
        inner = float(self.mechanism.epsilon_for_delta(inner_target))
        return float(_amplified(np.float64(inner), self.rate))


class SubsampledAdd(_Subsampled):
    """The add direction: D1 = M(c), D2 = (1 - q) M(c) + q M(c + sensitivity).

    L(o) = -ln(1 - q + q e^l(o)) <= -ln(1 - q); exact delta(eps) =
    (1 - (1 - q) e^eps) delta_M(v) with e^v = q e^eps / (1 - (1 - q) e^eps) below
    max_loss, 0 above (Balle, Barthe & Gaboardi 2018).

    Taught in: 10-amplify-privacy-by-subsampling.ipynb
    """

    @property
    def max_loss(self):
        """-ln(1 - q + q e^-max_loss(M)): -ln(1 - q) for the Gaussian (inf at q = 1)."""
        return -self._loss_range_ends()[0]

    @property
    def min_loss(self):
        """The smallest loss, -ln(1 - q + q e^max_loss(M)) (-inf for the Gaussian)."""
        return -self._loss_range_ends()[1]

    def density_d1(self, output):
        """Density of D1 = M(c) at output."""
        return self.density_without(output)

    def density_d2(self, output):
        """Density of D2 (the mixture) at output."""
        return self.density_with(output)

    def privacy_loss(self, output):
        """L(output) = -ln(1 - q + q e^l(output)), decreasing in the output."""
        return check.scalar_or_array(-self._remove_loss(output))

    def log_delta(self, epsilon):
        """ln delta = ln(1 - (1 - q) e^eps) + ln delta_M(v); -inf at and above max_loss."""
        epsilon = check.epsilon(epsilon)
        below = epsilon < self.max_loss
        log_factor, v = _add_parts(np.where(below, epsilon, 0.0), self.rate)
        with np.errstate(divide="ignore", invalid="ignore"):
            inner = np.asarray(self.mechanism.log_delta(np.where(below, v, 0.0)))
            result = np.where(below, log_factor + inner, -np.inf)
        return check.scalar_or_array(result)

    def base_loss(self, loss):
        """The base pair's loss at the output where this direction's loss is ``loss``.

        The inverse of L = -ln(1 - q + q e^l): l = ln(1 + (e^-L - 1) / q), for checked
        arrays of real L < -ln(1 - q) (no argument checks: accountants call it on grids).
        """
        return -_add_parts(loss, self.rate)[1]

    def hockey_stick(self, x):
        """delta(x) for every real x; 0 at and above max_loss.

        No argument checks: accountants call it on whole grids of checked floats.
        """
        x = np.asarray(x, dtype=float)
        below = x < self.max_loss
        log_factor, v = _add_parts(np.where(below, x, 0.0), self.rate)
        with np.errstate(over="ignore", under="ignore", invalid="ignore"):
            value = np.exp(log_factor) * _extended_delta(self.mechanism, v)
        return np.clip(np.where(below, value, 0.0), 0.0, 1.0)

    def loss_exceeds(self, epsilon):
        """P[L > eps] = P_D1M[l_M > v]: the outputs of M(c) far enough below the centre."""
        epsilon = check.epsilon(epsilon)
        below = epsilon < self.max_loss
        _, v = _add_parts(np.where(below, epsilon, 0.0), self.rate)
        safe = np.where(below & np.isfinite(v), np.maximum(v, 0.0), 0.0)
        width = np.where(below, np.asarray(self.mechanism.loss_exceeds(safe)), 0.0)
        return check.scalar_or_array(np.clip(width, 0.0, 1.0))

    def d2_loss_exceeds(self, epsilon):
        """P[L > eps] with outputs drawn from D2 (the mixture)."""
        epsilon = check.epsilon(epsilon)
        below = epsilon < self.max_loss
        _, v = _add_parts(np.where(below, epsilon, 0.0), self.rate)
        safe = np.where(below & np.isfinite(v), np.maximum(v, 0.0), 0.0)
        q = self.rate
        # {L > eps} = {l < -v}: under M(c + sens) it is {l_M(D1 vs D2) > v} seen from D2.
        width = (1.0 - q) * np.asarray(self.mechanism.loss_exceeds(safe)) + q * _d2_exceeds(
            self.mechanism, safe
        )
        return check.scalar_or_array(np.clip(np.where(below, width, 0.0), 0.0, 1.0))

    def output_quantile(self, p):
        """The output o with P_D1[O < o] = p (outputs sorted by decreasing loss)."""
        p = check.probability_closed("p", p)
        offset = -np.asarray(_inverse_survival(self.mechanism, p), dtype=float)
        return check.scalar_or_array(offset + self.mechanism.center)

    def loss_quantile(self, p):
        """L at probability position p under D1, outputs sorted by decreasing L."""
        output = np.asarray(self.output_quantile(p), dtype=float)
        bottom, top = self._loss_range_ends()
        with np.errstate(over="ignore", invalid="ignore"):
            finite = np.where(np.isfinite(output), output, 0.0)
            loss = np.where(
                np.isneginf(output),
                -bottom,
                np.where(np.isposinf(output), -top, -self._remove_loss(finite)),
            )
        return check.scalar_or_array(loss)

    def _epsilon_for_one_delta(self, delta):
        if self.delta(0.0) <= delta:
            return 0.0
        top = self.max_loss
        if not np.isfinite(top):
            return super()._epsilon_for_one_delta(delta)
        target = np.log(delta)

        def gap(epsilon):
            """ln delta(epsilon) - ln target, clipped so that a zero delta gives a finite gap."""
            return max(float(self.log_delta(epsilon)), -1e300) - target

        return optimize.brentq(gap, 0.0, top, xtol=1e-15, rtol=4 * np.finfo(float).eps)


class PoissonSubsampled(privacy_loss.PrivacyLossPair):
    """A mechanism run on a Poisson subsample of rate q, add-or-remove-one neighbours.

    ``delta``, ``log_delta``, ``epsilon_for_delta``, ``loss_exceeds`` and ``max_loss``
    are the larger of the two directions ``remove`` and ``add`` (dp_accounting's
    ADD_OR_REMOVE_ONE); ``privacy_loss``, ``density_d1``, ``density_d2``,
    ``output_quantile`` and ``loss_quantile`` are the remove side's (``.add`` has the
    other's). ``density_with`` and ``density_without`` are the two output densities.
    At rate 1 every number is the mechanism's own.

    Attributes:
      mechanism: the pair of the mechanism on the whole data.
      rate: the sampling rate q.
      remove: the remove direction, a ``SubsampledRemove``.
      add: the add direction, a ``SubsampledAdd``.

    Taught in: 10-amplify-privacy-by-subsampling.ipynb, 11-account-for-a-training-run.ipynb
    """

    def __init__(self, pair, rate):
        self.remove = SubsampledRemove(pair, rate)
        self.add = SubsampledAdd(pair, rate)
        self.mechanism = self.remove.mechanism
        self.rate = self.remove.rate

    def __repr__(self):
        return f"PoissonSubsampled({self.mechanism!r}, rate={self.rate!r})"

    def __eq__(self, other):
        return (
            isinstance(other, PoissonSubsampled)
            and other.mechanism == self.mechanism
            and other.rate == self.rate
        )

    def __hash__(self):
        return hash(("PoissonSubsampled", self.mechanism, self.rate))

    @property
    def directions(self):
        """(remove, add)."""
        return self.remove, self.add

    @property
    def sensitivity(self):
        """The mechanism's sensitivity."""
        return self.mechanism.sensitivity

    @property
    def center(self):
        """The mechanism's output centre without the person (c)."""
        return self.mechanism.center

    @property
    def max_loss(self):
        """The larger of the two directions' largest losses."""
        return max(self.remove.max_loss, self.add.max_loss)

    def density_with(self, output):
        """Density of the output with the person in the data: the mixture."""
        return self.remove.density_with(output)

    def density_without(self, output):
        """Density of the output without the person: M(c)."""
        return self.remove.density_without(output)

    def density_d1(self, output):
        """The remove side's D1: the mixture."""
        return self.remove.density_d1(output)

    def density_d2(self, output):
        """The remove side's D2: M(c)."""
        return self.remove.density_d2(output)

    def privacy_loss(self, output):
        """The remove side's L(output) = ln(1 - q + q e^l(output))."""
        return self.remove.privacy_loss(output)

    def output_quantile(self, p):
        """The remove side's output at probability position p."""
        return self.remove.output_quantile(p)

    def loss_quantile(self, p):
        """The remove side's loss at probability position p."""
        return self.remove.loss_quantile(p)

    def log_delta(self, epsilon):
        """ln of the larger delta of the two directions."""
        return check.scalar_or_array(
            np.maximum(
                np.asarray(self.remove.log_delta(epsilon)), np.asarray(self.add.log_delta(epsilon))
            )
        )

    def loss_exceeds(self, epsilon):
        """The larger P[L > epsilon] of the two directions."""
        return check.scalar_or_array(
            np.maximum(
                np.asarray(self.remove.loss_exceeds(epsilon)),
                np.asarray(self.add.loss_exceeds(epsilon)),
            )
        )

    def _epsilon_for_one_delta(self, delta):
        return max(
            self.remove._safe_epsilon_for_one_delta(delta),
            self.add._safe_epsilon_for_one_delta(delta),
        )


def poisson(pair, rate):
    """The pair of ``pair``'s mechanism run on a Poisson subsample of rate q.

    Each person is kept independently with probability q; neighbours add or remove one
    person. Exact (closed forms through the mechanism's own delta) for the Gaussian and
    the Laplace (Balle, Barthe & Gaboardi, "Privacy amplification by subsampling", 2018).

    Args:
      pair: ``privacy_loss.gaussian(...)`` or ``privacy_loss.laplace(...)``.
      rate: sampling rate q, in (0, 1]; 1 is the mechanism itself.

    Returns:
      A ``PoissonSubsampled`` pair (``.remove``, ``.add``: each direction alone).

    Taught in: 10-amplify-privacy-by-subsampling.ipynb
    """
    return PoissonSubsampled(pair, rate)
