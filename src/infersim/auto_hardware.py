"""Hardware co-design: sweep the six hardware knobs, search the FULL parallelism space for each
candidate, and report every fitting pair, the latency-vs-cost Pareto frontier and a per-knob
sensitivity ranking.

How the sweep stays fast and small:

* The parallelism space depends on the topology only, so it is built once, and the
  knob-independent cost terms (:func:`infersim.cost.prepare`) are computed once for all
  candidates.
* Candidates are grouped by HBM capacity: the memory-fit mask is computed once per capacity and
  only fitting configs are evaluated (cheap rejection before the full cost).
* The knob-dependent stage evaluates blocks of candidates × configs as 2-D arrays of at most
  ``BLOCK_ELEMS`` elements (8 MB per float array), keeping per candidate only the ``top_k`` best
  pairs (``keep="best"`` / ``"topk"``) or, on request, every fitting pair (``keep="all"``).
* The Pareto frontier on (latency ↓, cost_score ↓) only ever contains a candidate's fastest pair
  (its other pairs have the same cost and are slower), so it is computed exactly from the
  per-candidate bests in O(n log n).
* ``executor``: any ``concurrent.futures.Executor``-compatible object (``submit(fn, *args)``
  returning futures with ``result()``), e.g. a Dask ``distributed.Client``, receives slices of
  the candidate list; results are merged in candidate order, so they equal the single-process ones.

``cost_score = Σ knob / _HW_KNOB_DEFAULTS[knob]`` (6.0 at the defaults) is a capability score,
not dollars.
"""
from __future__ import annotations

import itertools
import math
import time
from dataclasses import dataclass
from typing import Callable, Mapping, Sequence

import numpy as np

from . import cost
from .auto_explore import OBJECTIVES, evaluate_space, objective_score, rank_order
from .autosuggest import autosuggest
from .errors import InferSimError, choice, require
from .hardware import KNOBS, HardwareSpec
from .hardware_presets import GENERIC_SIP
from .model import ModelSpec
from .parallel import Parallelism
from .pareto import pareto_front
from .runtime import get_runtime
from .space import parallelism_space
from .workload import Workload

_HW_KNOB_DEFAULTS: dict[str, float] = GENERIC_SIP.knobs()
DEPTHS = ("two_stage", "balanced", "coarse", "custom")
KEEP = ("best", "topk", "all")
BLOCK_ELEMS = 1 << 20
_MULTIPLIERS = {"two_stage": (1.0,), "balanced": (1.0, 2.0), "coarse": (0.5, 1.0, 2.0)}


@dataclass(frozen=True)
class HardwareCandidate:
    pe_hbm_gb: float
    bw_hbm_gbs: float
    peak_tflops_f16: float
    bw_intra_gbs: float
    bw_inter_gbs: float
    bw_intersip_gbs: float

    @property
    def cost_score(self) -> float:
        return sum(getattr(self, k) / _HW_KNOB_DEFAULTS[k] for k in KNOBS)

    def knobs(self) -> dict[str, float]:
        return {k: getattr(self, k) for k in KNOBS}

    def to_hardware(self, base: HardwareSpec) -> HardwareSpec:
        return base.with_knobs(**self.knobs())

    def doubled(self, knob: str) -> "HardwareCandidate":
        return HardwareCandidate(**{**self.knobs(), knob: 2 * getattr(self, knob)})


@dataclass(frozen=True)
class JointScore:
    hw: HardwareCandidate
    par: Parallelism
    total_latency_ns: float
    cost_score: float
    mem_per_pe_bytes: float
    pes: int

    def to_dict(self) -> dict:
        return {**{f"hw_{k}": v for k, v in self.hw.knobs().items()}, **self.par.to_dict(),
                "pes": self.pes, "total_latency_ms": self.total_latency_ns / 1e6,
                "cost_score": self.cost_score, "mem_per_pe_gb": self.mem_per_pe_bytes / 1e9}


@dataclass(frozen=True)
class SensitivityRow:
    knob: str
    baseline_latency_ns: float
    doubled_latency_ns: float
    rel_speedup: float


@dataclass(frozen=True)
class JointResult:
    model: str
    workload: Workload
    depth: str
    objective: str
    n_hardware: int
    n_parallel: int            # valid parallelism configs searched per candidate
    n_evals: int               # (candidate, config) pairs costed (after the memory pruning)
    total_joint: int           # pairs that fit
    all_scores: list[JointScore]
    pareto_scores: list[JointScore]
    sensitivity: list[SensitivityRow]
    elapsed_s: float
    sensitivity_s: float

    @property
    def best(self) -> JointScore:
        return self.all_scores[0]


# ----- enumeration ------------------------------------------------------------------------------
def enumerate_hardware(depth: str = "balanced", custom: Mapping[str, Sequence[float]] | None = None,
                       base: Mapping[str, float] | None = None) -> list[HardwareCandidate]:
    """Candidates for a depth: two_stage 1, balanced 2^6 = 64 (1x, 2x per knob), coarse 3^6 = 729
    (0.5x, 1x, 2x). ``custom`` maps knobs to explicit value lists (absent knobs stay at the base)."""
    choice("depth", depth, DEPTHS)
    base = dict(_HW_KNOB_DEFAULTS if base is None else base)
    if depth == "custom":
        require(custom is not None and len(custom) > 0,
                f"depth 'custom' needs a grid: a value list for some of {', '.join(KNOBS)}")
        unknown = set(custom) - set(KNOBS)
        require(not unknown, f"unknown knobs {sorted(unknown)}; valid: {', '.join(KNOBS)}")
        axes = []
        for k in KNOBS:
            vals = list(custom.get(k, [base[k]]))
            require(len(vals) > 0, f"empty value list for {k}: the sweep would have no candidates")
            for v in vals:
                require(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
                        and v > 0, f"{k} values must be positive numbers, got {v!r}")
            axes.append(sorted(set(float(v) for v in vals)))
    else:
        require(custom is None, "a custom grid needs depth='custom'")
        axes = [[m * base[k] for m in _MULTIPLIERS[depth]] for k in KNOBS]
    return [HardwareCandidate(*vals) for vals in itertools.product(*axes)]


# ----- the sweep worker (module level so executors can pickle it) --------------------------------
def _sweep_slice(model: ModelSpec, base_hw: HardwareSpec, wl: Workload, knob_rows: np.ndarray,
                 objective: str, keep: str, top_k: int, runtime=None):
    """Evaluate candidates ``knob_rows`` (H × 6) over the full space. Returns per candidate the
    kept (config index, latency, mem) arrays, best first, and the number of fitting configs."""
    space, _ = parallelism_space(model, base_hw, wl)
    terms = cost.prepare(model, base_hw, space, wl)
    pes = space.pes.astype(float)
    H = len(knob_rows)
    kept: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = [None] * H  # type: ignore[list-item]
    n_fit = np.zeros(H, dtype=np.int64)
    i_hbm = KNOBS.index("pe_hbm_gb")
    for cap in np.unique(knob_rows[:, i_hbm]):
        rows = np.flatnonzero(knob_rows[:, i_hbm] == cap)
        fit = np.flatnonzero(terms.fits(float(cap)))
        n_fit[rows] = len(fit)
        if not len(fit):
            for r in rows:
                kept[r] = (np.empty(0, np.int64), np.empty(0), np.empty(0))
            continue
        sub = terms.take(fit)
        block = max(1, BLOCK_ELEMS // len(fit))
        for s in range(0, len(rows), block):
            rb = rows[s:s + block]
            knobs = {k: knob_rows[rb, j][:, None] for j, k in enumerate(KNOBS)}
            res = cost.evaluate(sub, knobs, runtime=runtime, breakdown=False)
            lat = np.broadcast_to(res["total_ns"], (len(rb), len(fit)))
            per = np.broadcast_to(res["period_ns"], (len(rb), len(fit)))
            for i, r in enumerate(rb):
                row, prow = lat[i], per[i]
                if keep == "all":
                    sel = np.arange(len(fit))
                else:
                    k = min(top_k, len(fit))
                    # rank fully only the shortlist: argpartition on the objective, then sort
                    score = objective_score(objective, row, pes[fit], prow)
                    sel = np.argpartition(score, k - 1)[:k] if k < len(fit) else np.arange(len(fit))
                sel = sel[rank_order(objective, row[sel], pes[fit][sel], sub.mem_bytes[sel], prow[sel])]
                kept[r] = (fit[sel], row[sel].copy(), sub.mem_bytes[sel].copy())
    return kept, n_fit


def _search_policy(model, hw: HardwareSpec, wl: Workload, depth: str, runtime=None):
    """(latency, Parallelism) of the config the depth's policy picks on ``hw``, or None."""
    if depth == "two_stage":
        try:
            s = autosuggest(model, hw, wl, runtime)
        except InferSimError:
            return None
        return s.result.total_latency_ns, s.par
    space, lat, _, _, _ = evaluate_space(model, hw, wl, runtime=runtime)
    if np.all(np.isnan(lat)):
        return None
    i = int(np.nanargmin(lat))
    return float(lat[i]), space.config(i)


def joint_explore(model: ModelSpec, s_kv: int = 131072, mode: str = "decode", depth: str = "balanced",
                  batch: int = 1, base_hw: HardwareSpec | None = None, objective: str = "latency",
                  progress: Callable[[int, int], None] | None = None, *, s_q: int | None = None,
                  custom: Mapping[str, Sequence[float]] | None = None, keep: str = "best",
                  top_k: int = 1, executor=None, n_slices: int | None = None,
                  sensitivity: bool = True, runtime=None) -> JointResult:
    """Co-design sweep (see the module docstring).

    ``keep``: "best" (each candidate's best pair), "topk" (its ``top_k`` best) or "all" (every
    fitting pair; memory grows with the grid). ``all_scores`` is sorted by latency."""
    choice("objective", objective, OBJECTIVES)
    choice("keep", keep, KEEP)
    require(top_k >= 1, f"top_k must be >= 1, got {top_k}")
    if keep == "best":
        top_k = 1
    t0 = time.perf_counter()
    runtime = get_runtime(runtime)
    wl = Workload(mode=mode, s_kv=s_kv, batch=batch, s_q=s_q)
    base_hw = base_hw or GENERIC_SIP
    base_knobs = base_hw.knobs()
    cands = enumerate_hardware(depth, custom, base=base_knobs)
    space, counts = parallelism_space(model, base_hw, wl)

    scores: list[JointScore] = []
    n_evals = total_joint = 0
    if depth == "two_stage":
        try:
            s = autosuggest(model, cands[0].to_hardware(base_hw), wl, runtime)
        except InferSimError as exc:
            raise InferSimError(f"impossible sweep: {exc}") from None
        r = s.result
        scores.append(JointScore(cands[0], s.par, r.total_latency_ns, cands[0].cost_score,
                                 r.mem_per_pe_bytes, r.pes_used))
        n_evals, total_joint = counts.valid, s.n_fitting
        if progress:
            progress(1, 1)
    else:
        knob_rows = np.array([[getattr(c, k) for k in KNOBS] for c in cands], dtype=float)
        n_slices = n_slices or (8 if executor is not None else 1)
        bounds = np.linspace(0, len(cands), min(n_slices, len(cands)) + 1).astype(int)
        slices = [(a, b) for a, b in zip(bounds[:-1], bounds[1:]) if b > a]
        args = [(model, base_hw, wl, knob_rows[a:b], objective, keep, top_k, runtime)
                for a, b in slices]
        if executor is None:
            results = []
            for (_, b), arg in zip(slices, args):
                results.append(_sweep_slice(*arg))
                if progress:
                    progress(b, len(cands))
        else:
            futures = [executor.submit(_sweep_slice, *arg) for arg in args]
            results = []
            for (_, b), fut in zip(slices, futures):
                results.append(fut.result())
                if progress:
                    progress(b, len(cands))
        for (a, _), (kept, n_fit) in zip(slices, results):
            for j, (idx, lat, mem) in enumerate(kept):
                c = cands[a + j]
                cs = c.cost_score
                for i, t, m in zip(idx.tolist(), lat.tolist(), mem.tolist()):
                    p = space.config(i)
                    scores.append(JointScore(c, p, t, cs, m, p.pes))
            n_fit_sum = int(n_fit.sum())
            total_joint += n_fit_sum
            n_evals += n_fit_sum
    if not scores:
        raise InferSimError(
            f"impossible sweep: no (hardware, parallelism) pair of {len(cands)} candidates x "
            f"{counts.valid} configs fits {model.name} {mode} at s_kv={s_kv}, batch={batch}")
    scores.sort(key=lambda s: (s.total_latency_ns, s.cost_score, s.pes))
    # frontier from each candidate's fastest pair (the only pair of a candidate that can be on it)
    fastest: dict[HardwareCandidate, int] = {}
    for i, s in enumerate(scores):
        fastest.setdefault(s.hw, i)
    idx = np.fromiter(fastest.values(), dtype=np.int64)
    lat = np.array([scores[i].total_latency_ns for i in idx])
    cst = np.array([scores[i].cost_score for i in idx])
    pareto = [scores[i] for i in idx[pareto_front(lat, cst)]]
    elapsed = time.perf_counter() - t0

    t1 = time.perf_counter()
    sens = _sensitivity(model, base_hw, wl, scores[0], depth, runtime) if sensitivity else []
    return JointResult(model=model.name, workload=wl, depth=depth, objective=objective,
                       n_hardware=len(cands), n_parallel=counts.valid, n_evals=n_evals,
                       total_joint=total_joint, all_scores=scores, pareto_scores=pareto,
                       sensitivity=sens, elapsed_s=elapsed, sensitivity_s=time.perf_counter() - t1)


def _sensitivity(model, base_hw, wl, best: JointScore, depth: str, runtime=None) -> list[SensitivityRow]:
    """Double each knob of the fastest hardware, re-search parallelism, compare latencies."""
    base_lat = best.total_latency_ns
    rows = []
    for knob in KNOBS:
        hw2 = best.hw.doubled(knob).to_hardware(base_hw)
        found = _search_policy(model, hw2, wl, depth, runtime)
        new = base_lat if found is None else found[0]
        rows.append(SensitivityRow(knob, base_lat, new, base_lat / new - 1.0))
    rows.sort(key=lambda r: -r.rel_speedup)
    return rows
