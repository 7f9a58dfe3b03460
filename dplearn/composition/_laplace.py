"""The numerics behind ``ComposedLaplace``: a closed form for small k, exact tables for larger k.

The tables are piecewise polynomials (Bernstein and Chebyshev forms). The law of k Laplace
releases is atoms on the lattice (k - 2 j) epsilon0 plus pieces of exponentially tilted
Irwin-Hall densities between them. Up to LAPLACE_CLOSED_FORM_MAX_K the alternating sums of
the closed form are accurate (checked against mpmath); above it the pieces are built by exact
recurrences (``tilted_pieces_plain``), tabulated per cell (``LaplaceTables``) and inverted by
safeguarded Newton steps, then settled on the safe side by ulps. Nothing here is public:
``exact.ComposedLaplace`` is the interface.

Taught in: 08-add-up-privacy-losses.ipynb
"""

from __future__ import annotations

import collections
import functools
import math

import numpy as np
from scipy import fft, signal, special, stats

from dplearn._safe_side import settle_by_ulps
from dplearn.composition.law import Lattice


@functools.lru_cache(maxsize=32)
def _closed_form_table(k):
    """A(m, j) = C(k, m) [z^j] (1 - z)^m (1 + z)^(k - m), m = 1..k (rows), j = 0..k.

    Computed from exact integers.
    """
    table = np.zeros((k, k + 1))
    for m in range(1, k + 1):
        row = [0] * (k + 1)
        for i in range(m + 1):
            for c in range(k - m + 1):
                row[i + c] += (-1) ** i * math.comb(m, i) * math.comb(k - m, c)
        table[m - 1] = [math.comb(k, m) * value for value in row]
    return table


class LaplaceClosedForm:
    """The closed form of ``ComposedLaplace``'s docstring, evaluated as written."""

    def __init__(self, epsilon0, k):
        self.epsilon0, self.k = epsilon0, k
        self.table = _closed_form_table(k)
        self.orders = np.arange(1, k + 1, dtype=float)
        self.binomials = np.array([math.comb(k, j) for j in range(k + 1)], dtype=float)
        self.log_scale = -k * math.log(2.0) - np.arange(k + 1) * epsilon0

    def _pieces(self, t):
        e0 = self.epsilon0
        with np.errstate(over="ignore", invalid="ignore"):
            x = (self.k * e0 - np.asarray(t, dtype=float)) / (2.0 * e0)
        x = np.clip(np.nan_to_num(x, nan=0.0), -1.0, self.k + 1.0)
        gaps = x[..., None] - np.arange(self.k + 1)
        inside = gaps > 0
        y = e0 * np.where(inside, gaps, 0.0)
        return inside, y, special.gammainc(self.orders, y[..., None])

    def _atom_gaps(self, t):
        """t - L_j for the atoms L_j = (k - 2 j) epsilon0, compared as loss values."""
        losses = (self.k - 2 * np.arange(self.k + 1)) * self.epsilon0
        return np.asarray(t, dtype=float)[..., None] - losses

    def exceeds(self, t):
        """P[L > t] under A(D1), term by term."""
        inside, y, incomplete = self._pieces(t)
        continuous = np.einsum("...jm,mj->...j", incomplete, self.table)
        atoms = np.where(self._atom_gaps(t) < 0, self.binomials, 0.0)
        terms = atoms + np.where(inside, continuous, 0.0)
        return np.einsum("...j,j->...", terms, np.exp(self.log_scale))

    def hockey(self, t):
        """delta(t) = E[max(0, 1 - e^(t - L))] under A(D1), term by term."""
        inside, y, incomplete = self._pieces(t)
        log_k = _log_exp_gamma_integral(self.orders, y[..., None])
        with np.errstate(under="ignore"):
            weighted = incomplete - np.exp(log_k - 2.0 * y[..., None])
        continuous = np.einsum("...jm,mj->...j", weighted, self.table)
        gaps = self._atom_gaps(t)
        with np.errstate(invalid="ignore"):
            atoms = np.where(gaps < 0, self.binomials * -np.expm1(np.minimum(gaps, 0.0)), 0.0)
        terms = atoms + np.where(inside, continuous, 0.0)
        return np.einsum("...j,j->...", terms, np.exp(self.log_scale))


def _log_exp_gamma_integral(m, y):
    """ln K(m, y), K(m, y) = int_0^y e^g g^(m-1) / (m-1)! dg = y^m / m! 1F1(m; m+1; y).

    Through scipy's hyp1f1 up to y = 500; beyond, the finite asymptotic sum
    e^y sum_i (-1)^i y^(m-1-i) / (m-1-i)! (the rest is below e^-y relative).
    """
    m, y = np.broadcast_arrays(np.asarray(m, dtype=float), np.asarray(y, dtype=float))
    result = np.full(y.shape, -np.inf)
    small = (y > 0) & (y <= 500.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        result[small] = (
            m[small] * np.log(y[small])
            - special.gammaln(m[small] + 1)
            + np.log(special.hyp1f1(m[small], m[small] + 1, y[small]))
        )
    large = y > 500.0
    if np.any(large):
        mm, yy = m[large], y[large]
        total = np.zeros(yy.shape)
        term = np.ones(yy.shape)
        for i in range(int(mm.max())):
            total += np.where(i < mm, term, 0.0)
            term = term * -(mm - 1 - i) / yy
        result[large] = yy + (mm - 1) * np.log(yy) - special.gammaln(mm) + np.log(total)
    return result


PIECES = collections.OrderedDict()  # (epsilon0, k) -> pieces, least recently used first


_PIECES_KEPT = 48


def _tilted_pieces(epsilon0, k):
    """Cached ``_tilted_pieces_uncached``."""
    key = (epsilon0, k)
    if key in PIECES:
        PIECES.move_to_end(key)
        return PIECES[key]
    PIECES[key] = pieces = _tilted_pieces_uncached(epsilon0, k)
    while len(PIECES) > _PIECES_KEPT:
        PIECES.popitem(last=False)
    return pieces


def _tilted_pieces_uncached(epsilon0, k):
    """The continuous part of nu^(*k), nu = (delta_0 + delta_1) / 2 + (epsilon0 / 2) U(0, 1).

    The law of W under A(D1) is e^(-epsilon0 w) nu(dw) (one release), so the k-fold law is
    e^(-epsilon0 w) nu^(*k)(dw), and nu^(*k) is piecewise polynomial of degree k - 1 on
    the unit intervals [n, n + 1]. Each piece is kept in the Bernstein basis, whose
    coefficients here are all >= 0: a convolution step (nu^(*k) = nu^(*(k-1)) * nu) only
    adds, averages (degree elevation) and takes partial sums (integration) of them, so
    no cancellation occurs at any k. Each piece carries a log scale (no overflow).

    Returns:
      (coefficients (k, k), log_scales (k,)): piece n is
      exp(log_scales[n]) sum_i coefficients[n, i] C(k-1, i) s^i (1 - s)^(k-1-i), s = w - n.
    """
    if k * math.log(2.0 + epsilon0) < 600.0:
        return tilted_pieces_plain(epsilon0, k)
    if epsilon0 not in _TILTED_CHECKPOINTS and len(_TILTED_CHECKPOINTS) >= 8:
        # Keep the memory bounded: forget the oldest epsilon0.
        _TILTED_CHECKPOINTS.pop(next(iter(_TILTED_CHECKPOINTS)))
    checkpoints = _TILTED_CHECKPOINTS.setdefault(epsilon0, {})
    start = max((size for size in checkpoints if size <= k), default=None)
    if start is None:
        start, state = 1, (np.ones((1, 1)), np.array([math.log(epsilon0 / 2.0)]))
    else:
        state = checkpoints[start]
    for size in range(start + 1, k + 1):
        state = _tilted_step(epsilon0, *state)
        if size % _CHECKPOINT_EVERY == 0:
            checkpoints[size] = state
    return state


def tilted_pieces_plain(epsilon0, k, keep=()):
    """``_tilted_pieces`` for the normalised nu / (1 + epsilon0 / 2), in plain floats.

    Without per-piece scales it is exact as long as its smallest piece, about
    (2 + epsilon0)^-k, stays far above the float range's end (k ln(2 + epsilon0) < 600),
    and several times faster.

    nu is symmetric about 1/2, so nu^(*k) is symmetric about k / 2 (piece k - 1 - n is piece
    n reversed): only the lower half of the pieces is carried through the steps.
    """
    atom = 1.0 / (2.0 + epsilon0)  # nu-tilde: atoms `atom` at 0 and 1, and a uniform
    uniform = epsilon0 / (2.0 + epsilon0)  # of mass `uniform` on (0, 1)
    half = np.full((1, 1), uniform)  # pieces 0 .. ceil(size / 2) - 1
    atoms = np.array([atom, atom])  # atoms of nu-tilde^(*size) at 0..size
    for size in range(2, k + 1):
        old = size - 1
        needed = (size + 1) // 2  # new pieces 0 .. needed - 1
        if needed > half.shape[0]:  # the middle old piece, as the mirror of its twin
            half = np.vstack([half, half[old - needed][::-1]])
        b = half[:needed]
        weights = np.arange(old + 1) / old
        elevated = np.zeros((needed, old + 1))
        elevated[:, 1:] = (atom * weights[1:]) * b
        elevated[:, :-1] += (atom * (1.0 - weights[:-1])) * b
        below = np.zeros((needed, old + 1))  # partial sums of b below i
        np.cumsum(b, axis=1, out=below[:, 1:])
        above = np.zeros((needed, old + 1))  # partial sums from i, summed from the right
        np.cumsum(b[:, ::-1], axis=1, out=above[:, -2::-1])
        scale = uniform / old
        new = np.empty((needed, size))
        new[:] = (uniform * atoms[:needed])[:, None]  # an atom of the sum, then the uniform
        new += elevated  # this release's W = 0 ...
        new += scale * below  # ... or its uniform reaching back into piece n
        new[1:] += elevated[:-1]  # W = 1 ...
        new[1:] += scale * above[:-1]  # ... or the uniform reaching over from piece n - 1
        half = new
        atoms = atom * (np.concatenate([atoms, [0.0]]) + np.concatenate([[0.0], atoms]))
        if size in keep and size < k:
            PIECES[(epsilon0, size)] = _unfold(half, size, epsilon0)
    return _unfold(half, k, epsilon0)


def _unfold(half, k, epsilon0):
    """All k pieces from the lower half (piece k - 1 - n is piece n reversed)."""
    coefficients = np.empty((k, k))
    coefficients[: half.shape[0]] = half
    mirrored = k - half.shape[0]
    coefficients[half.shape[0] :] = half[:mirrored][::-1, ::-1]
    log_scales = np.full(k, k * math.log1p(epsilon0 / 2.0))
    return coefficients, log_scales


_TILTED_CHECKPOINTS = {}


_CHECKPOINT_EVERY = 8


def _tilted_step(epsilon0, coefficients, log_scales):
    """nu^(*size) from nu^(*(size - 1)), both as (Bernstein coefficients, log scales)."""
    size = coefficients.shape[0] + 1
    old = size - 1  # old pieces, each with `old` coefficients (degree old - 1)
    b = coefficients
    i = np.arange(old + 1)
    padded = np.zeros((old, old + 2))
    padded[:, 1:-1] = b
    # Degree elevation: c_i = (i / old) b_(i-1) + (1 - i / old) b_i.
    elevated = (i / old) * padded[:, :-1][:, : old + 1] + (1 - i / old) * padded[:, 1:]
    cumulative = np.concatenate([np.zeros((old, 1)), np.cumsum(b, axis=1)], axis=1)
    low = cumulative / old  # int_0^t: partial sums below i
    # int_t^1: partial sums from i, summed from the right end (no difference of sums).
    high = np.concatenate([np.cumsum(b[:, ::-1], axis=1)[:, ::-1], np.zeros((old, 1))], 1) / old
    # Atoms of nu^(*old): C(old, j) / 2^old at j = 0..old; each convolved with
    # (epsilon0 / 2) U(0, 1) adds a constant on piece j.
    j = np.arange(old + 1)
    log_atoms = (
        special.gammaln(old + 1)
        - special.gammaln(j + 1)
        - special.gammaln(old - j + 1)
        - old * math.log(2.0)
        + math.log(epsilon0 / 2.0)
    )
    # New piece n: from old piece n (same place), old piece n - 1 (shifted by the
    # atom at 1 or reaching over from the uniform) and the atom at n.
    same = 0.5 * elevated + 0.5 * epsilon0 * low
    shifted = 0.5 * elevated + 0.5 * epsilon0 * high
    scale_same = np.concatenate([log_scales, [-np.inf]])
    scale_shifted = np.concatenate([[-np.inf], log_scales])
    new_scale = np.maximum(np.maximum(scale_same, scale_shifted), log_atoms)
    with np.errstate(under="ignore"):
        weight_same = np.exp(scale_same - new_scale)[:, None]
        weight_shifted = np.exp(scale_shifted - new_scale)[:, None]
        weight_atom = np.exp(log_atoms - new_scale)[:, None]
    new = np.zeros((size, size))
    new[:-1] += weight_same[:-1] * same
    new[1:] += weight_shifted[1:] * shifted
    new += weight_atom
    peak = new.max(axis=1)
    coefficients = new / peak[:, None]
    log_scales = new_scale + np.log(peak)
    return coefficients, log_scales


@functools.lru_cache(maxsize=64)
def _bernstein_basis(degree, size, cell=0, cells=1):
    """B_i^degree(s) (columns i = 0..degree) at the Chebyshev points of one cell (rows).

    The cell is ``cell`` of [0, 1] cut into ``cells`` equal cells.
    """
    sigma = (np.cos(np.pi * (np.arange(size) + 0.5) / size) + 1.0) / 2.0
    s = (cell + sigma) / cells
    basis = stats.binom.pmf(np.arange(degree + 1)[None, :], degree, s[:, None])
    basis.setflags(write=False)
    return basis


def _chebyshev_coefficients(values):
    """Chebyshev coefficients (last axis) from values at the Chebyshev points of the first kind.

    The points are cos(pi (j + 1/2) / M), j = 0..M-1.
    """
    size = values.shape[-1]
    coefficients = fft.dct(values, type=2, axis=-1) / size
    coefficients[..., 0] /= 2.0
    return coefficients


@functools.lru_cache(maxsize=64)
def _chebyshev_nodes(points):
    """Chebyshev points of the first kind cos(pi (j + 1/2) / P) and their barycentric weights.

    The weights are (-1)^j sin(pi (j + 1/2) / P) (Berrut & Trefethen, "Barycentric Lagrange
    interpolation", 2004).
    """
    angles = np.pi * (np.arange(points) + 0.5) / points
    nodes, weights = np.cos(angles), (-1.0) ** np.arange(points) * np.sin(angles)
    nodes.setflags(write=False)
    weights.setflags(write=False)
    return nodes, weights


def _integral_values(values):
    """Values at the Chebyshev points of int_0^tau f, from f's values there, and int_0^1 f.

    tau = (u + 1) / 2. The degree-P term the integration adds vanishes at the P points and
    is below round-off when P leaves room (it does here).
    """
    points = values.shape[-1]
    coefficients = _chebyshev_integral(_chebyshev_coefficients(values))
    total = coefficients.sum(axis=-1)  # T_m(1) = 1
    return _chebyshev_values(coefficients[..., :points]), total


def _chebyshev_integral(coefficients):
    """Coefficients of int_0^tau, tau = (u + 1) / 2, of a Chebyshev series in u (last axis).

    One degree more: b_m = (c'_(m-1) - c_(m+1)) / (2 m), c'_0 = 2 c_0, then b_0 so that the
    integral is 0 at u = -1 (numpy's chebint, without its loop over terms).
    """
    shape = coefficients.shape[:-1]
    size = coefficients.shape[-1]
    padded = np.concatenate([coefficients, np.zeros(shape + (2,))], axis=-1)
    previous = padded[..., : size + 1].copy()
    previous[..., 0] *= 2.0
    m = np.arange(1, size + 1)
    result = np.empty(shape + (size + 1,))
    result[..., 1:] = (previous[..., :size] - padded[..., 2 : size + 2]) / (2.0 * m)
    result[..., 0] = -(result[..., 1:] * (-1.0) ** m).sum(axis=-1)
    return 0.5 * result


def _chebyshev_values(coefficients):
    """Values of Chebyshev series (last axis) at the Chebyshev points of the first kind.

    As many points as coefficients, by a type-III DCT.
    """
    halved = coefficients.copy()
    halved[..., 1:] /= 2.0
    return fft.dct(halved, type=3, axis=-1)


def _barycentric(nodes, weights, tables, rows, u):
    """The interpolants through ``tables[rows]`` (values at ``nodes``) at u, one row per point.

    By the second barycentric formula: stable at Chebyshev points, and the same arithmetic
    for a point alone or in an array.
    """
    u = np.asarray(u, dtype=float)
    difference = u[..., None] - nodes
    difference = np.where(difference == 0.0, 1e-300, difference)  # exactly on a node
    ratio = weights / difference
    total = ratio.sum(axis=-1)
    return [(ratio * table[rows]).sum(axis=-1) / total for table in tables]


def _smallest_safe(delta, epsilon, target, top):
    """The smallest epsilon in [0, top] with delta(epsilon) <= target, from a close guess.

    Ulp steps up, then down, and where a few steps do not settle it, bisection on the
    floats themselves (their bit patterns are ordered), which ends in 64 steps.
    """
    epsilon = settle_by_ulps(np.asarray(epsilon, dtype=float).copy(), delta, target, 8)
    lower = np.maximum(np.nextafter(epsilon, 0.0), 0.0)
    unsettled = (delta(epsilon) > target) | ((epsilon > 0) & (delta(lower) <= target))
    if np.any(unsettled):
        # Bracket: low has delta > target (or is -1 for "none"), high has delta <= target.
        good = delta(epsilon) <= target
        high = np.where(good, epsilon, top).view(np.int64).copy()
        low = np.where(good, -1, epsilon.view(np.int64))
        low = np.where(good & (delta(np.zeros_like(epsilon)) <= target), -1, low)
        for _ in range(70):
            if not np.any(high - low > 1):
                break
            middle = np.maximum(low + (high - low) // 2, 0)
            value = delta(middle.view(np.float64))
            moving = high - low > 1
            high = np.where(moving & (value <= target), middle, high)
            low = np.where(moving & (value > target), middle, low)
        epsilon = np.where(unsettled, high.view(np.float64), epsilon)
    return epsilon


class LaplaceTables:
    """P[L > t], delta(t), the density and the quantile of k Laplace releases.

    They come from the Bernstein pieces of ``_tilted_pieces``. On each unit piece the law
    of W is an exact polynomial times e^(-epsilon0 w). Each piece is split into
    S = ceil(epsilon0) cells, so that the exponential varies by at most a factor e per cell,
    and on each cell the integrals the methods need are tabulated once at Chebyshev points
    (degree k + 32 + 3 epsilon0 / S), evaluated by barycentric interpolation: accurate to a
    few ulps of each cell's mass.
    """

    def __init__(self, epsilon0, k):
        self.epsilon0, self.k = epsilon0, k
        self.sub = max(1, int(math.ceil(epsilon0)))
        self.cells = k * self.sub
        self.rate = epsilon0 / self.sub  # the exponential's rate in a cell's own variable
        coefficients, log_scales = _tilted_pieces(epsilon0, k)
        points = k + 32 + int(math.ceil(3.0 * self.rate))
        self.nodes, self.node_weights = _chebyshev_nodes(points)
        sigma = (self.nodes + 1.0) / 2.0
        # (k, S, points): each piece's polynomial at each cell's nodes (einsum, not BLAS).
        values = np.stack(
            [
                np.einsum("ni,mi->nm", coefficients, _bernstein_basis(k - 1, points, q, self.sub))
                for q in range(self.sub)
            ],
            axis=1,
        ).reshape(self.cells, points)
        cell = np.arange(self.cells)
        self.log_factor = np.repeat(log_scales, self.sub) - epsilon0 * cell / self.sub
        with np.errstate(under="ignore"):
            self.factor = np.exp(self.log_factor)
        rate = self.rate
        # Per cell, at the nodes: the density g (per unit of W), its integral F from the
        # cell's start, R = int e^(2 rate sigma) dF, and C = int_0^sigma e^(2 rate s) F ds,
        # with which E(sigma) = 2 rate e^(-2 rate sigma) C(sigma), a sum of positive terms.
        self.density_values = values * np.exp(-rate * sigma)
        lower, lower_total = _integral_values(self.density_values)
        self.lower_values = lower / self.sub
        self._sigma = sigma
        self.spread_values, spread_total = _integral_values(
            self.lower_values * np.exp(2.0 * rate * sigma)
        )
        cell_mass = self.factor * np.maximum(lower_total, 0.0) / self.sub
        # E_c(1), for the recurrence over cells.
        self._whole = self.factor * 2.0 * rate * math.exp(-2.0 * rate) * np.maximum(spread_total, 0)
        self._cdf_grid = None
        self._finish(cell_mass)

    @functools.cached_property
    def raised_values(self):
        """R_c at the nodes: int_0^sigma e^(2 rate s) dF_c(s) (for Newton slopes only)."""
        raised, _ = _integral_values(self.density_values * np.exp(2.0 * self.rate * self._sigma))
        return raised / self.sub

    @property
    def cdf_grid(self):
        """F_c at 17 equally spaced points of every cell (where quantiles start)."""
        if self._cdf_grid is None:
            grid = np.linspace(-1.0, 1.0, 17)
            rows = np.broadcast_to(np.arange(self.cells)[:, None], (self.cells, grid.size))
            (cdf,) = _barycentric(self.nodes, self.node_weights, [self.lower_values], rows, grid)
            cdf = self.factor[:, None] * np.maximum(cdf, 0.0)
            cdf[:, 0], cdf[:, -1] = 0.0, self.cell_mass
            self._cdf_grid = cdf
        return self._cdf_grid

    def _finish(self, cell_mass):
        """Cumulative sums over cells and atoms, and delta at the cells' edges."""
        epsilon0, k = self.epsilon0, self.k
        self.cell_mass = cell_mass
        # Atoms of W: C(k, j) e^(-j epsilon0) / 2^k at j.
        j = np.arange(k + 1)
        log_atoms = (
            special.gammaln(k + 1)
            - special.gammaln(j + 1)
            - special.gammaln(k - j + 1)
            - k * math.log(2.0)
            - j * epsilon0
        )
        with np.errstate(under="ignore"):
            self.atoms = np.exp(log_atoms)
        self.below = np.concatenate([[0.0], np.cumsum(cell_mass)])  # cells before c
        self.beyond = np.concatenate([np.cumsum(cell_mass[::-1])[::-1], [0.0]])  # from c
        self.atoms_before = np.concatenate([[0.0], np.cumsum(self.atoms)])  # j < n
        self.atoms_from = np.concatenate([np.cumsum(self.atoms[::-1])[::-1], [0.0]])  # j >= n
        # delta of the continuous part at each cell's start x = c / S, by the positive
        # recurrence T_(c+1) = e^(-2 rate) T_c + (1 - e^(-2 rate)) below[c] + E_c(1).
        whole = getattr(self, "_whole", None)
        if whole is None:
            whole = self._in_piece_delta(np.arange(self.cells), np.ones(self.cells))
        decay = math.exp(-2.0 * self.rate)
        drive = -math.expm1(-2.0 * self.rate) * self.below[:-1] + whole
        self.at_cells = np.concatenate([[0.0], signal.lfilter([1.0], [1.0, -decay], drive)])
        self.lattice = Lattice(k, epsilon0, self.atoms, stride=2)
        # delta at every cell's start (the atoms' deltas where the cell starts on one).
        starts = np.arange(self.cells + 1)
        losses = k * epsilon0 - 2.0 * epsilon0 * starts / self.sub
        losses[:: self.sub] = self.lattice.losses  # exactly the atoms
        self.delta_at_cells = np.maximum.accumulate(self.lattice.hockey(losses) + self.at_cells)

    def _evaluate(self, tables, c, sigma):
        return _barycentric(self.nodes, self.node_weights, tables, c, 2.0 * sigma - 1.0)

    def _partial(self, c, sigma):
        """F_c(sigma): the A(D1) mass of W from cell c's start to sigma (in [0, 1])."""
        (lower,) = self._evaluate([self.lower_values], c, sigma)
        return self.factor[c] * np.maximum(lower, 0.0)

    def _piece_density(self, c, sigma):
        """The A(D1) density of W, per unit of W, at sigma in cell c."""
        (density,) = self._evaluate([self.density_values], c, sigma)
        return self.factor[c] * np.maximum(density, 0.0)

    def _in_piece_delta(self, c, sigma):
        """E_c(sigma) = int (1 - e^(-2 e0 (x - w))) dP(w) over cell c up to x.

        E' = 2 rate (F - E), so E(sigma) = 2 rate e^(-2 rate sigma) int_0^sigma e^(2 rate s)
        F(s) ds.
        """
        (spread,) = self._evaluate([self.spread_values], c, sigma)
        with np.errstate(under="ignore"):
            decay = np.exp(-2.0 * self.rate * sigma)
        return self.factor[c] * 2.0 * self.rate * decay * np.maximum(spread, 0.0)

    def _in_piece_delta_slope(self, c, sigma):
        """d E_c / d sigma = 2 rate e^(-2 rate sigma) int_0^sigma e^(2 rate s) dF(s)."""
        (raised,) = self._evaluate([self.raised_values], c, sigma)
        with np.errstate(under="ignore"):
            decay = np.exp(-2.0 * self.rate * sigma)
        return self.factor[c] * 2.0 * self.rate * decay * np.maximum(raised, 0.0)

    def epsilon_for(self, target):
        """Smallest epsilon >= 0 with hockey(epsilon) <= target, for an array of targets.

        delta is known at every cell's start; within the cell that brackets the target,
        delta(x) = (1 - z) U + z D_c + E_c(sigma), z = e^(-2 rate sigma), is solved by
        safeguarded Newton steps, then stepped to the safe side by ulps.
        """
        target = np.asarray(target, dtype=float)
        k, e0, sub = self.k, self.epsilon0, self.sub
        known = self.delta_at_cells  # increasing in c
        c = np.clip(np.searchsorted(known, target, side="right") - 1, 0, self.cells - 1)
        upper = self.atoms_before[c // sub + 1] + self.below[c]
        lower = known[c]
        end = known[c + 1]
        with np.errstate(divide="ignore", invalid="ignore"):
            sigma = np.clip(np.nan_to_num((target - lower) / (end - lower), nan=1.0), 0.0, 1.0)

        def gap(sigma):
            """delta - target at offset sigma in cell c, and its slope (for Newton steps)."""
            with np.errstate(under="ignore"):
                z = np.exp(-2.0 * self.rate * sigma)
            value = (1.0 - z) * upper + z * lower + self._in_piece_delta(c, sigma) - target
            slope = 2.0 * self.rate * z * np.maximum(upper - lower, 0.0)
            return value, slope + self._in_piece_delta_slope(c, sigma)

        low, high = np.zeros(sigma.shape), np.ones(sigma.shape)
        done = np.zeros(sigma.shape, dtype=bool)  # an element stops on its own: the same
        for _ in range(40):  # answer alone or in an array
            value, slope = gap(sigma)
            low = np.where(value < 0, sigma, low)
            high = np.where(value >= 0, sigma, high)
            with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
                step = sigma - value / slope
            newton = np.isfinite(step) & (step >= low) & (step <= high)
            new = np.where(newton, step, 0.5 * (low + high))
            new = np.where(done, sigma, new)
            done |= (np.abs(new - sigma) <= 1e-15) | (high - low <= 1e-15)
            sigma = new
            if np.all(done):
                break
        epsilon = np.maximum(k * e0 - 2.0 * e0 * (c + sigma) / sub, 0.0)
        epsilon = np.where(self.hockey(np.zeros(1)) <= target, 0.0, epsilon)
        return _smallest_safe(self.hockey, epsilon, target, k * e0)

    def _locate(self, x):
        """Cell index c in 0..cells (cells: past the last one) and offset sigma >= 0."""
        scaled = np.clip(np.asarray(x, dtype=float), 0.0, None) * self.sub
        c = np.minimum(np.floor(scaled), self.cells).astype(np.int64)
        return c, scaled - c

    def position(self, t):
        """W's position x = (k epsilon0 - t) / (2 epsilon0) of a loss t, clipped to [-1, k + 1]."""
        with np.errstate(over="ignore", invalid="ignore"):
            x = (self.k * self.epsilon0 - np.asarray(t, dtype=float)) / (2.0 * self.epsilon0)
        # t = -inf gives x = inf, t = inf gives -inf: both are clipped where used.
        return np.clip(x, -1.0, self.k + 1.0)

    def w_below(self, x):
        """Continuous part of P[W < x] under A(D1)."""
        x = np.asarray(x, dtype=float)
        c, sigma = self._locate(x)
        inside = c < self.cells
        row = np.minimum(c, self.cells - 1)
        partial = self._partial(row, np.minimum(sigma, 1.0))
        below = self.below[c] + np.where(inside, partial, 0.0)
        return np.where(x > 0, below, 0.0)

    def w_above(self, x):
        """Continuous part of P[W > x] under A(D1), summed from the top.

        Summing from the top leaves no cancellation with 1.
        """
        c, sigma = self._locate(x)
        inside = c < self.cells
        row = np.minimum(c, self.cells - 1)
        done = self._partial(row, np.minimum(sigma, 1.0))
        rest = np.maximum(self.cell_mass[row] - done, 0.0)
        return np.where(inside, self.beyond[np.minimum(c + 1, self.cells)] + rest, 0.0)

    def exceeds(self, t):
        """P[L > t] under A(D1)."""
        t = np.asarray(t, dtype=float)
        return self.lattice.exceeds(t) + self.w_below(self.position(t))

    def at_most(self, t):
        """P[L <= t] under A(D1), from the bottom of the law."""
        t = np.asarray(t, dtype=float)
        x = self.position(t)
        # Atoms with j >= x, i.e. loss (k - 2 j) e0 <= t.
        atoms = self.lattice.masses.sum() - self.lattice.exceeds(t)
        atoms = np.where(x <= self.k / 2, atoms, self._atoms_at_or_above(x))
        return np.maximum(atoms, 0.0) + self.w_above(x)

    def _on_atom(self, x):
        """x, with values within rounding of a whole number put on it.

        A threshold on an atom, such as a loss taken from ``loss_atoms``, gives an x a few
        ulps off the atom's whole index (0.9999999999999998 for 1); counting atoms with
        ceil or floor must not then take in, or leave out, the atom itself.
        """
        nearest = np.round(x)
        close = np.abs(x - nearest) <= 16 * np.finfo(float).eps * (self.k + 1.0)
        return np.where(close, nearest, x)

    def _atoms_at_or_above(self, x):
        first = np.clip(np.ceil(self._on_atom(x)), 0, self.k + 1).astype(np.int64)
        return self.atoms_from[np.minimum(first, self.k + 1)]

    def exceeds_d2(self, t):
        """P[L > t] under A(D2) = P[L < -t] under A(D1) (the pair is symmetric)."""
        t = np.asarray(t, dtype=float)
        x = self.position(-t)  # L < -t  <=>  W > x
        first = np.clip(np.floor(self._on_atom(x)) + 1, 0, self.k + 1).astype(np.int64)
        return self.atoms_from[first] + self.w_above(x)

    def hockey(self, t):
        """delta(t) = E[max(0, 1 - e^(t - L))] for any real t."""
        t = np.asarray(t, dtype=float)
        x = self.position(t)
        c, sigma = self._locate(x)
        row = np.minimum(c, self.cells - 1)
        inside = c < self.cells
        in_cell = np.where(inside, self._in_piece_delta(row, np.minimum(sigma, 1.0)), 0.0)
        with np.errstate(under="ignore"):
            decay = np.exp(-2.0 * self.rate * sigma)
        continuous = (
            -np.expm1(-2.0 * self.rate * sigma) * self.below[c] + decay * (self.at_cells[c])
        )
        continuous = np.where(x > 0, continuous + in_cell, 0.0)
        return self.lattice.hockey(t) + continuous

    def density(self, t):
        """Density of the continuous part of L at t."""
        x = self.position(t)
        c, sigma = self._locate(x)
        row = np.minimum(c, self.cells - 1)
        inside = (x > 0) & (x < self.k)
        value = self._piece_density(row, np.minimum(sigma, 1.0))
        # dP/dt = g(x) |dx/dt|, |dx/dt| = 1 / (2 epsilon0).
        return np.where(inside, np.maximum(value, 0.0) / (2.0 * self.epsilon0), 0.0)

    def quantile(self, p):
        """Smallest t with P[L > t] <= p."""
        p = np.asarray(p, dtype=float)
        k, e0, sub = self.k, self.epsilon0, self.sub
        starts = np.arange(self.cells + 1)
        on_integer = starts % sub == 0
        before = self.atoms_before[-(-starts // sub)] + self.below  # P[W < c / S]
        after = before + np.where(on_integer, self.atoms[np.minimum(starts // sub, k)], 0.0)
        c = np.clip(np.searchsorted(before, p, side="right") - 1, 0, self.cells)
        on_atom = (p <= after[c]) | (c >= self.cells)
        row = np.minimum(c, self.cells - 1)
        sigma = self._solve_partial(row, np.where(on_atom, 0.0, p - after[c]), skip=on_atom)
        x = np.where(on_atom, c, c + sigma) / sub
        atom = self.lattice.losses[np.clip(c // sub, 0, k)]  # exactly the atoms' values
        return np.where(on_atom, atom, k * e0 - 2.0 * e0 * x)

    def quantile_from_bottom(self, alpha):
        """Smallest t with P[L <= t] >= alpha, from the bottom of the law.

        The same as ``quantile(1 - alpha)``, but exact for alpha far below the float spacing
        of 1.
        """
        alpha = np.asarray(alpha, dtype=float)
        k, e0, sub = self.k, self.epsilon0, self.sub
        starts = np.arange(self.cells + 1)
        on_integer = starts % sub == 0
        atom_here = np.where(on_integer, self.atoms[np.minimum(starts // sub, k)], 0.0)
        # at_or_above[c] = P[W >= c / S]: the atoms from ceil(c / S) on and the cells from c.
        at_or_above = self.atoms_from[-(-starts // sub)] + self.beyond
        count = np.searchsorted(-at_or_above, -alpha, side="right")  # entries >= alpha
        c = np.clip(count - 1, 0, self.cells)
        # Inside cell c, P[W >= x] = P[W > c / S] - F_c(sigma): the largest x keeping it
        # >= alpha has F_c(sigma) = P[W > c / S] - alpha.
        room = at_or_above[c] - atom_here[c] - alpha
        on_start = (room <= 0) | (c >= self.cells)
        row = np.minimum(c, self.cells - 1)
        sigma = self._solve_partial(row, np.where(on_start, 0.0, room), skip=on_start)
        x = np.where(on_start, c, c + sigma) / sub
        atom = self.lattice.losses[np.clip(c // sub, 0, k)]
        exact = on_start & (c % sub == 0)
        return np.where(exact, atom, k * e0 - 2.0 * e0 * x)

    def _solve_partial(self, row, target, skip=False):
        """sigma in [0, 1] with F_row(sigma) = target (not solved where ``skip``)."""
        # Start from the tabulated within-cell CDF, then safeguarded Newton steps.
        grid = self.cdf_grid[row]  # (..., G) at sigma = 0, 1/(G-1), ..., 1
        last = grid.shape[-1] - 1
        cell = np.clip(np.sum(grid < target[..., None], axis=-1) - 1, 0, last - 1)
        left = np.take_along_axis(grid, cell[..., None], axis=-1)[..., 0]
        right = np.take_along_axis(grid, cell[..., None] + 1, axis=-1)[..., 0]
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            share = np.clip(np.nan_to_num((target - left) / (right - left)), 0.0, 1.0)
        low, high = cell / last, (cell + 1) / last
        sigma = low + share / last
        done = np.broadcast_to(skip, sigma.shape).copy()
        for _ in range(12):
            value = self._partial(row, sigma) - target
            low = np.where(value < 0, sigma, low)
            high = np.where(value >= 0, sigma, high)
            slope = self._piece_density(row, sigma) / self.sub
            with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
                step = sigma - value / slope
            good = (step >= low) & (step <= high)
            new_sigma = np.where(good, step, 0.5 * (low + high))
            new_sigma = np.where(done, sigma, new_sigma)  # each element stops on its own
            done |= (np.abs(new_sigma - sigma) <= 1e-15) | (high - low <= 4e-15)
            sigma = new_sigma
            if np.all(done):
                break
        return sigma


class SingleLaplaceTables(LaplaceTables):
    """One Laplace release: the same interface, with one cell and its integrals in closed form.

    F(x) = (1 - e^(-e0 x)) / 2, E(x) = (1 - e^(-e0 x))^2 / 2.
    """

    def __init__(self, epsilon0):
        self.epsilon0, self.k = epsilon0, 1
        self.sub, self.cells, self.rate = 1, 1, epsilon0
        self._finish(np.array([-0.5 * math.expm1(-epsilon0)]))

    def _partial(self, c, sigma):
        return -0.5 * np.expm1(-self.epsilon0 * sigma)

    def _piece_density(self, c, sigma):
        return 0.5 * self.epsilon0 * np.exp(-self.epsilon0 * sigma)

    def _in_piece_delta(self, c, sigma):
        return 0.5 * np.expm1(-self.epsilon0 * sigma) ** 2

    def _in_piece_delta_slope(self, c, sigma):
        return self.epsilon0 * np.exp(-self.epsilon0 * sigma) * -np.expm1(-self.epsilon0 * sigma)

    def _solve_partial(self, row, target, skip=False):
        with np.errstate(divide="ignore", invalid="ignore"):
            sigma = -np.log1p(-2.0 * np.asarray(target, dtype=float)) / self.epsilon0
        return np.clip(np.nan_to_num(sigma, nan=1.0, posinf=1.0), 0.0, 1.0)


def laplace_kl(epsilon0):
    """epsilon0 + e^-epsilon0 - 1, without cancellation for small epsilon0."""
    if epsilon0 < 1e-3:
        return epsilon0**2 * (0.5 - epsilon0 * (1 / 6 - epsilon0 * (1 / 24 - epsilon0 / 120)))
    return epsilon0 + math.expm1(-epsilon0)


def _laplace_w_moment(epsilon0, n):
    """E[W^n] for W of one release (atoms 1/2 at 0 and e^-e0/2 at 1, density e0/2 e^-e0 w)."""
    if epsilon0 < 1e-6:
        integral = 1.0 / (n + 1) - epsilon0 / (n + 2)
    else:
        integral = math.factorial(n) * special.gammainc(n + 1, epsilon0) / epsilon0 ** (n + 1)
    return 0.5 * math.exp(-epsilon0) + 0.5 * epsilon0 * integral


def laplace_w_variance(epsilon0):
    """Variance of W for one release (L_1 = epsilon0 - 2 epsilon0 W), never below 0."""
    first = _laplace_w_moment(epsilon0, 1)
    return max(_laplace_w_moment(epsilon0, 2) - first**2, 0.0)
