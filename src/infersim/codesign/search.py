"""Exact per-candidate search of the full parallelism space, pruned by lower bounds.

For one topology and one HBM capacity, the N fitting configs are ranked for H candidates that
differ in (peak TFLOPS, HBM bandwidth) and the three link bandwidths. Costing every pair is H·N
evaluations; this search costs a few per candidate and returns the same picks:

1. **Lower bound.** A config's latency and period never grow when a link gets faster
   (collective and ring-step times fall with bandwidth; the exposed ring and the pipeline are
   non-decreasing in them), and every objective's ``config_score`` is non-decreasing in latency
   and period. So for each distinct (peak, HBM bandwidth) pair ``p``, the score at the fastest
   links of the topology's candidates, ``LB_p[c]``, bounds config ``c``'s score on every
   candidate with that pair from below. Capacity only decides which configs fit, so the bounds
   are computed once per topology, on the configs that fit its largest capacity.
2. **Shortlist.** ``U`` = the union over pairs of the ``K`` configs of lowest ``LB_p``. Every
   candidate is costed on ``U``; its best (top-k: k-th best) score there is ``UB_h``.
3. **Proof.** A config with ``LB_p[c] > UB_h`` cannot beat or tie that pick. When at most ``K``
   configs have ``LB_p[c] <= UB_h`` they are all in ``U`` and the pick is exact; otherwise the
   candidate is costed again on ``U`` plus those configs.

Picks and ties follow the brute-force ranking (score, latency, PEs, memory, config order), so
the result equals costing every pair (``tests/test_codesign_objectives.py`` checks it). On
Llama 3.1 70B decode at 128K, ``U`` holds ~25 of ~3,000 configs and step 3 is rare.

The static terms (parallelism space and :func:`infersim.cost.prepare`) are cached per process
(:func:`static_terms`), so an executor's worker builds them once, not once per task.
``keep="all"`` costs every fitting pair (no pruning).
"""
from __future__ import annotations

import ctypes
import os
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Callable

import numpy as np

from infersim import cost
from infersim.codesign import tier
from infersim.codesign.grid import grid_size, rows_at
from infersim.codesign.types import SYSTEM_KNOBS
from infersim.search.objectives import Objective, get_objective
from infersim.search.space import parallelism_space
from infersim.specs.hardware import KNOBS, HardwareSpec
from infersim.specs.model import ModelSpec
from infersim.specs.runtime import Runtime
from infersim.specs.workload import Workload

K_SHORTLIST = 8        # configs per (peak, bw) pair in the shortlist
ROWS_PER_BLOCK = 1024  # candidates per evaluation block (and per progress call)
CHUNK_CANDIDATES = 1 << 16  # candidates generated from the grid at a time
BLOCK_ELEMS = 1 << 20  # (candidates x configs) per evaluation: 8 MB per float array
REL_TOL = 1e-9         # bounds and scores come from different float expressions
_I_PAIR = [KNOBS.index("peak_tflops_f16"), KNOBS.index("bw_hbm_gbs")]
_I_LINKS = [KNOBS.index(k) for k in ("bw_intra_gbs", "bw_inter_gbs", "bw_intersip_gbs")]
_I_CAP = KNOBS.index("pe_hbm_gb")
_I_BW = KNOBS.index("bw_hbm_gbs")


@dataclass(frozen=True)
class SweepContext:
    """Everything a slice of the sweep needs besides its candidates (small; pickled per task)."""

    model: ModelSpec
    base_hw: HardwareSpec
    wl: Workload
    objective: str
    keep: str
    top_k: int
    runtime: Runtime


@dataclass
class SliceResult:
    """Kept pairs of a slice as flat arrays (``cand``: the candidate's row of the input, or its
    grid position for :func:`search_range`), the fitting pairs and the pairs costed."""

    cand: np.ndarray
    config: np.ndarray
    pes: np.ndarray
    latency_ns: np.ndarray
    period_ns: np.ndarray
    mem_bytes: np.ndarray
    n_fit: int
    n_costed: int

    @classmethod
    def concat(cls, parts: list["SliceResult"]) -> "SliceResult":
        cols = {f: (getattr(parts[0], f) if len(parts) == 1 else
                    np.concatenate([getattr(p, f) for p in parts])) for f in _ARRAYS}
        return cls(**cols, n_fit=sum(p.n_fit for p in parts), n_costed=sum(p.n_costed for p in parts))


_ARRAYS = ("cand", "config", "pes", "latency_ns", "period_ns", "mem_bytes")


def unique_rows(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct rows of a 2-D array (lexicographic order) and each row's index among them;
    a lexsort on the columns, much faster than ``np.unique(axis=0)`` on few columns."""
    order = np.lexsort(a.T[::-1])
    s = a[order]
    new = np.ones(len(a), dtype=bool)
    new[1:] = np.any(s[1:] != s[:-1], axis=1)
    inverse = np.empty(len(a), dtype=np.int64)
    inverse[order] = np.cumsum(new) - 1
    return s[new], inverse


def topology_hw(base: HardwareSpec, topo: tuple[int, ...]) -> HardwareSpec:
    """``base`` with a candidate's system axes (``SYSTEM_KNOBS``; a 3-tuple: the topology only)."""
    names = SYSTEM_KNOBS[:len(topo)]
    current = tuple(getattr(base, k) for k in names)
    if tuple(topo) == current:
        return base
    vals = {k: (float(v) if k in SYSTEM_KNOBS[3:] else int(v)) for k, v in zip(names, topo)}
    return replace(base, **vals)


@lru_cache(maxsize=8)     # topologies, and the levers' model and batch variants of one sweep
def static_terms(model: ModelSpec, hw: HardwareSpec, wl: Workload):
    """(space, terms) of a topology: built once per process (sweeps visit topologies in turn)."""
    space, _ = parallelism_space(model, hw, wl)
    return space, cost.prepare(model, hw, space, wl)


@lru_cache(maxsize=64)
def fitting(model: ModelSpec, hw: HardwareSpec, wl: Workload, cap_gb: float,
            runtime: Runtime) -> np.ndarray:
    """Indices (into the topology's space) of the configs that fit ``cap_gb`` per PE under
    ``runtime``'s memory fraction (with a memory tier: whose KV cache beyond the HBM fits it)."""
    terms = static_terms(model, hw, wl)[1]
    if tier.has_tier(hw):
        return np.flatnonzero(tier.fits(terms, cap_gb, runtime))
    return np.flatnonzero(terms.fits(cap_gb, runtime))


def _cost(ctx: SweepContext, obj: Objective, terms, knobs: np.ndarray, bound: bool = False):
    """(score, latency, period), each (rows, configs), of ``terms`` on candidate rows ``knobs``;
    with a memory tier the KV traffic over it is added, except for a lower ``bound`` (the tier
    only adds time, so the tier-free time bounds it from below)."""
    kn = {k: knobs[:, j:j + 1] for j, k in enumerate(KNOBS)}
    r = cost.evaluate(terms, kn, runtime=ctx.runtime, breakdown=False)
    lat, per = r["total_ns"], r["period_ns"]
    if not bound and tier.has_tier(terms.hw):
        extra = tier.extra_ns(terms, knobs[:, _I_CAP:_I_CAP + 1], knobs[:, _I_BW:_I_BW + 1], ctx.runtime)
        lat, per = lat + extra, per + extra
    return obj.config_score(lat, per, terms.par.pes), lat, per


def _rank(sc, lat, pes, mem, k: int) -> np.ndarray:
    """Per row, the columns of its ``k`` best configs (brute-force order, stable in columns)."""
    shape = sc.shape
    keys = (np.broadcast_to(mem, shape), np.broadcast_to(pes, shape), lat, sc)
    return np.lexsort(keys, axis=-1)[:, :k]


class _Bounds:
    """Lower bounds of one topology: every (peak, bw) pair of its candidates × every config of
    the space (capacity only decides which fit), at the fastest links of those candidates.
    Computed on first use."""

    def __init__(self, ctx: SweepContext, obj: Objective, knobs: np.ndarray, terms):
        self.ctx, self.obj, self.terms = ctx, obj, terms
        self.pairs, self.pair_of = unique_rows(knobs[:, _I_PAIR])
        self.links_max = knobs[:, _I_LINKS].max(axis=0)
        self._lb: np.ndarray | None = None

    def _compute(self) -> np.ndarray:
        rows = np.empty((len(self.pairs), len(KNOBS)))
        rows[:, _I_PAIR] = self.pairs
        rows[:, _I_LINKS] = self.links_max
        rows[:, _I_CAP] = 1.0                   # capacity does not enter latency or period
        step = max(1, BLOCK_ELEMS // len(self.terms))
        return np.concatenate([_cost(self.ctx, self.obj, self.terms, rows[s:s + step], bound=True)[0]
                               for s in range(0, len(rows), step)])

    def for_rows(self, rows: np.ndarray, fit: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
        """(pair index per row, LB of those pairs on the configs ``fit``, LB evaluations spent)."""
        spent = 0
        if self._lb is None:
            self._lb = self._compute()
            spent = self._lb.size
        used, local = np.unique(self.pair_of[rows], return_inverse=True)
        return local.ravel(), self._lb[np.ix_(used, fit)], spent


class _Group:
    """One (topology, capacity) group: shortlist, and the exact pick per candidate. Configs are
    addressed by their position in ``fit`` (indices into the topology's ``terms``)."""

    def __init__(self, ctx: SweepContext, obj: Objective, terms, fit: np.ndarray, knobs: np.ndarray,
                 bounds: _Bounds, rows: np.ndarray):
        self.ctx, self.obj, self.terms, self.fit, self.knobs = ctx, obj, terms, fit, knobs
        self.k = ctx.top_k
        self.pes, self.mem = terms.par.pes[fit], terms.mem_bytes[fit]
        self.K = max(K_SHORTLIST, self.k)
        self.n_costed = 0
        if len(fit) <= self.K:          # small space: the shortlist is everything
            self.short = np.arange(len(fit))
        else:
            self.pair_of, self.lb, self.n_costed = bounds.for_rows(rows, fit)
            self.short = np.unique(np.argpartition(self.lb, self.K - 1, axis=1)[:, :self.K])
            self.lb_sorted = np.sort(self.lb, axis=1)
        self.short_terms = terms.take(fit[self.short])

    def _pick(self, rows: np.ndarray, cols: np.ndarray, terms) -> tuple:
        """Cost ``rows`` on configs ``cols`` (sorted positions in ``fit``), keep the best."""
        sc, lat, per = _cost(self.ctx, self.obj, terms, self.knobs[rows])
        self.n_costed += sc.size
        top = _rank(sc, lat, self.pes[cols], self.mem[cols], self.k)
        r = np.repeat(np.arange(len(rows)), top.shape[1])
        c = top.ravel()
        ok = np.isfinite(sc[r, c])
        return sc, (rows[r[ok]], cols[c[ok]], lat[r[ok], c[ok]], per[r[ok], c[ok]])

    def _needs_more(self, rows: np.ndarray, sc: np.ndarray) -> np.ndarray:
        """Per row, how many configs have a bound at or below its k-th best shortlist score."""
        kth = np.partition(sc, min(self.k, sc.shape[1]) - 1, axis=1)[:, min(self.k, sc.shape[1]) - 1]
        thr = kth + REL_TOL * np.abs(kth)
        count = np.empty(len(rows), dtype=np.int64)
        for p in np.unique(self.pair_of[rows]):
            at = self.pair_of[rows] == p
            count[at] = np.searchsorted(self.lb_sorted[p], thr[at], side="right")
        return count

    def _widen(self, rows: np.ndarray, count: np.ndarray) -> list[tuple]:
        """Step 3: cost rows whose bound admits configs outside the shortlist on U ∪ those."""
        out = []
        for p in np.unique(self.pair_of[rows]):
            at = self.pair_of[rows] == p
            extra = np.argsort(self.lb[p], kind="stable")[:int(count[at].max())]
            cols = np.union1d(self.short, extra)
            out.append(self._pick(rows[at], cols, self.terms.take(self.fit[cols]))[1])
        return out

    def search(self, progress: Callable[[int], None] | None) -> list[tuple]:
        parts = []
        n, m = len(self.knobs), len(self.short)
        step = max(1, min(ROWS_PER_BLOCK, BLOCK_ELEMS // m))
        for s in range(0, n, step):
            rows = np.arange(s, min(n, s + step))
            sc, picked = self._pick(rows, self.short, self.short_terms)
            if m == len(self.fit):
                parts.append(picked)
            else:
                count = self._needs_more(rows, sc)
                exact = count <= self.K
                parts.append(tuple(a[exact[picked[0] - s]] for a in picked))
                if not exact.all():
                    parts.extend(self._widen(rows[~exact], count[~exact]))
            if progress:
                progress(len(rows))
        return parts


def _all_pairs(ctx, obj, sub, knobs, progress) -> tuple[list[tuple], int]:
    """keep="all": every fitting pair of every candidate, each candidate's best first."""
    parts, n, costed = [], len(sub), 0
    step = max(1, min(ROWS_PER_BLOCK, BLOCK_ELEMS // n))
    cols = np.arange(n)
    for s in range(0, len(knobs), step):
        rows = np.arange(s, min(len(knobs), s + step))
        sc, lat, per = _cost(ctx, obj, sub, knobs[rows])
        costed += sc.size
        order = _rank(sc, lat, sub.par.pes, sub.mem_bytes, n)
        r = np.repeat(np.arange(len(rows)), n)
        c = order.ravel()
        ok = np.isfinite(sc[r, c])
        parts.append((rows[r[ok]], cols[c[ok]], lat[r[ok], c[ok]], per[r[ok], c[ok]]))
        if progress:
            progress(len(rows))
    return parts, costed


def search_slice(ctx: SweepContext, knob_rows: np.ndarray, topo_rows: np.ndarray,
                 progress: Callable[[int], None] | None = None) -> SliceResult:
    """Each candidate's kept pairs (``ctx.keep``/``top_k`` under ``ctx.objective``).
    ``progress(n)`` is called after every block with the number of candidates it finished."""
    obj = get_objective(ctx.objective)
    n_fit = costed = 0
    cols: list[list[np.ndarray]] = [[] for _ in _ARRAYS]
    topos, topo_of = unique_rows(topo_rows)
    for t, topo in enumerate(topos):
        in_topo = np.flatnonzero(topo_of == t)
        knobs_t = knob_rows if len(topos) == 1 else knob_rows[in_topo]
        hw = topology_hw(ctx.base_hw, tuple(int(x) for x in topo))
        space, terms = static_terms(ctx.model, hw, ctx.wl)
        bounds = _Bounds(ctx, obj, knobs_t, terms)
        for cap in np.unique(knobs_t[:, _I_CAP]):
            at = np.flatnonzero(knobs_t[:, _I_CAP] == cap)
            fit = fitting(ctx.model, hw, ctx.wl, float(cap), ctx.runtime)
            n_fit += len(fit) * len(at)
            if not len(fit):
                if progress:
                    progress(len(at))
                continue
            if ctx.keep == "all":
                parts, c = _all_pairs(ctx, obj, terms.take(fit), knobs_t[at], progress)
            else:
                group = _Group(ctx, obj, terms, fit, knobs_t[at], bounds, at)
                parts, c = group.search(progress), group.n_costed
            costed += c
            for r, cfg, lat, per in parts:
                conf = fit[cfg]
                for lst, arr in zip(cols, (in_topo[at[r]], conf, space.pes[conf], lat, per,
                                           terms.mem_bytes[conf])):
                    lst.append(arr)
    cat = [np.concatenate(c) if c else np.empty(0) for c in cols]
    return SliceResult(cand=cat[0].astype(np.int64), config=cat[1].astype(np.int64),
                       pes=cat[2].astype(np.int64), latency_ns=cat[3], period_ns=cat[4],
                       mem_bytes=cat[5], n_fit=int(n_fit), n_costed=int(costed))


def search_range(ctx: SweepContext, axes: list[list], start: int, stop: int,
                 progress: Callable[[int], None] | None = None) -> SliceResult:
    """Candidates ``start``..``stop`` of the grid ``axes``: topology by topology (the system-size
    axes vary fastest, so a topology's candidates are every ``n_topo``-th position), generated
    and searched ``CHUNK_CANDIDATES`` at a time; ``cand`` is the grid position."""
    n_topo = grid_size(axes[len(KNOBS):])
    parts = []
    for t in range(n_topo):
        idx_t = np.arange(start + (t - start) % n_topo, stop, n_topo)
        for a in range(0, len(idx_t), CHUNK_CANDIDATES):
            idx = idx_t[a:a + CHUNK_CANDIDATES]
            res = search_slice(ctx, *rows_at(axes, idx), progress)
            res.cand = idx[res.cand]
            parts.append(res)
    return SliceResult.concat(parts) if parts else SliceResult.concat([_empty()])


def _empty() -> SliceResult:
    z = np.empty(0)
    return SliceResult(cand=z.astype(np.int64), config=z.astype(np.int64), pes=z.astype(np.int64),
                       latency_ns=z, period_ns=z, mem_bytes=z, n_fit=0, n_costed=0)


def run_range(ctx: SweepContext, axes: list[list], start: int, stop: int) -> SliceResult:
    """Executor entry point (module level, picklable; the task carries the axes, not rows)."""
    adaptive_malloc_once()
    return search_range(ctx, axes, start, stop)


_MALLOC_DONE: list[bool] = []


def adaptive_malloc_once() -> None:
    """Undo a worker's fixed malloc trim threshold, once per process.

    Dask's nanny starts workers with ``MALLOC_TRIM_THRESHOLD_=65536``. Setting it switches off
    glibc's adaptive thresholds, so every NumPy temporary above 128 KB is a fresh ``mmap`` that
    page-faults in again and the heap top is trimmed after each block: the sweep ran 2-3x slower
    in such a worker than in the client (0.13 s vs 0.05 s for 7,800 candidates, measured). Where
    that variable is set, set the thresholds glibc would otherwise adapt to (mmap 32 MB, trim
    64 MB). A no-op elsewhere (variable unset, not glibc)."""
    if _MALLOC_DONE or "MALLOC_TRIM_THRESHOLD_" not in os.environ:
        return
    _MALLOC_DONE.append(True)
    try:
        libc = ctypes.CDLL("libc.so.6")
        libc.mallopt(-3, 32 << 20)     # M_MMAP_THRESHOLD
        libc.mallopt(-1, 64 << 20)     # M_TRIM_THRESHOLD
    except (OSError, AttributeError):
        pass
