"""Hardware co-design: sweep the six hardware knobs (and, in custom grids, the system size),
search the FULL parallelism space of every candidate under one objective, and report every kept
pair, the Pareto frontiers, the answer, sensitivity at a design point and "what it takes".

One objective (:mod:`infersim.search.objectives`: latency, throughput, throughput_per_pe,
tok_s_per_usd, tok_s_per_w) drives everything: each candidate's pick, the order of
``all_scores`` (so ``best``), the performance axis of both frontiers, and the sensitivity
re-search.

How the sweep stays fast and small:

* Candidates are flat arrays (:mod:`.codesign.grid`), capped at ``max_candidates`` (default
  250,000; raise it explicitly).
* Per topology the parallelism space and the knob-independent terms are built once per process
  (cached), per HBM capacity only fitting configs are kept, and each candidate's pick comes from
  an exact bound-pruned search that costs a few dozen configs instead of all of them
  (:mod:`.codesign.search`); ``keep="all"`` costs every fitting pair.
* Slices return flat arrays assembled with NumPy (:mod:`.codesign.results`); ``all_scores`` is a
  lazy sequence of :class:`JointScore` over them.
* ``progress(done, total)`` is called after every block of candidates (locally) or every slice
  (executor). ``executor``: any object with ``submit(fn, *args)`` returning futures with
  ``result()`` (a ``concurrent.futures`` executor, a Dask ``distributed.Client``); results are
  identical to the local ones.

Cost: ``cost_score = Σ knob / _HW_KNOB_DEFAULTS[knob]`` (6.0 at the defaults) is the seed's
per-PE capability score; ``JointScore.system_cost_usd`` / ``system_power_w`` are the dollars and
watts of the PEs a pair uses (:mod:`infersim.codesign.economics`). ``pareto_scores`` is the frontier on
(objective, cost_score), ``pareto_usd_scores`` on (objective, system_cost_usd).
"""
from __future__ import annotations

import itertools
import time
from dataclasses import dataclass, field
from typing import Callable, Mapping, Sequence

import numpy as np

from infersim.codesign.answer import answer as _answer
from infersim.codesign.economics import Economics
from infersim.codesign.grid import DEPTHS, MAX_CANDIDATES, check_cap, grid_axes, grid_rows, grid_size, rows_at
from infersim.codesign.levers import Lever, all_levers
from infersim.codesign.results import ScoreList, assemble, frontiers, tolerance_pick
from infersim.codesign.search import (
    BLOCK_ELEMS,
    SliceResult,
    SweepContext,
    run_range,
    search_range,
    static_terms,
    topology_hw,
)
from infersim.codesign.sensitivity import (
    Requirement,
    SensitivityRow,
    default_target,
    what_it_takes,
    what_two_take,
)
from infersim.codesign.sensitivity import sensitivity as _sensitivity
from infersim.codesign.types import (
    _HW_KNOB_DEFAULTS,
    SYSTEM_KNOBS,
    HardwareCandidate,
    JointScore,
)
from infersim.errors import InferSimError, choice, require
from infersim.presets.hardware_presets import GENERIC_SIP, as_hardware
from infersim.presets.model_presets import as_model
from infersim.presets.runtime_presets import get_runtime
from infersim.search.autosuggest import autosuggest
from infersim.search.objectives import get_objective
from infersim.search.space import parallelism_space
from infersim.specs.hardware import KNOBS, HardwareSpec
from infersim.specs.model import ModelSpec
from infersim.specs.parallel import FIELDS, ParArrays
from infersim.specs.workload import Workload

__all__ = ["HardwareCandidate", "JointScore", "JointResult", "SensitivityRow", "Requirement",
           "_HW_KNOB_DEFAULTS", "enumerate_hardware", "joint_explore", "DEPTHS", "KEEP",
           "MAX_CANDIDATES", "BLOCK_ELEMS"]

KEEP = ("best", "topk", "all")


@dataclass(frozen=True)
class JointResult:
    model: str
    workload: Workload
    depth: str
    objective: str
    n_hardware: int
    n_parallel: int            # valid parallelism configs per candidate (largest topology)
    n_evals: int               # (candidate, config) pairs actually costed
    total_joint: int           # pairs that fit (all of them were searched)
    all_scores: Sequence[JointScore]
    pareto_scores: list[JointScore]
    sensitivity: list[SensitivityRow]
    elapsed_s: float
    sensitivity_s: float
    pareto_usd_scores: list[JointScore] = field(default_factory=list)
    requirements: list[Requirement] = field(default_factory=list)
    design_point: HardwareCandidate | None = None
    design_value: float = float("nan")
    target_value: float = float("nan")
    economics: Economics = field(default_factory=Economics)
    context: SweepContext | None = field(default=None, repr=False, compare=False)
    levers: list[Lever] = field(default_factory=list)
    combination: Requirement | None = None
    tolerance: float = 0.0
    pick_index: int = 0

    @property
    def best(self) -> JointScore:
        """The pair with the best objective (the fastest, under ``latency``)."""
        return self.all_scores[0]

    @property
    def pick(self) -> JointScore:
        """The answer: the cheapest pair (system capex) whose objective is within ``tolerance``
        of the best (see :func:`tolerance_pick`); ``best`` itself when ``tolerance`` is 0."""
        return self.all_scores[self.pick_index]

    @property
    def software(self) -> list[Lever]:
        """The software levers at the design point, best first."""
        return [lv for lv in self.levers if lv.kind == "software"]

    def answer(self) -> dict:
        """The recommendation: hardware, parallelism, performance, $ and W, the bound and the
        next knob to buy (see :mod:`infersim.codesign.answer`)."""
        return _answer(self)

    TABLES = ("all", "pareto", "pareto_usd", "sensitivity", "requirements", "levers")

    def to_pandas(self, which: str = "all"):
        """One table: ``all`` kept pairs (best first), the ``pareto`` (objective vs cost_score)
        or ``pareto_usd`` (objective vs system $) frontier, the ``sensitivity`` rows or the
        ``requirements`` ("what it takes"). Pair tables have hardware (``hw_*``), parallelism,
        latency, throughput and economics columns, units in the names."""
        from infersim.report.frames import columns_frame, frame

        choice("table", which, self.TABLES)
        if which in ("sensitivity", "requirements", "levers"):
            return frame([vars(r) for r in getattr(self, which)])
        idx = None if which == "all" else [self.all_scores.index_of(s) for s in (
            self.pareto_scores if which == "pareto" else self.pareto_usd_scores)]
        return columns_frame(self.all_scores.columns(idx))

    def to_parquet(self, path, which: str = "all") -> str:
        """:meth:`to_pandas` written as Parquet (the format for sweeps of 10^5+ pairs)."""
        from infersim.report.frames import to_parquet

        return to_parquet(self.to_pandas(which), path)

    def plot(self, kind: str = "pareto"):
        """``pareto``: every kept pair and the frontier, the objective against system capex;
        ``sensitivity``: the gain of each knob doubled at the design point."""
        from infersim.report import plots

        choice("plot", kind, ("pareto", "sensitivity"))
        if kind == "sensitivity":
            return plots.sensitivity_bar(self.sensitivity)
        y = "total_latency_ms"
        frames = [self.to_pandas("all"), self.to_pandas("pareto_usd")]
        if self.objective != "latency":      # the axis says what is plotted, with its unit
            y = f"{self.objective} ({get_objective(self.objective).unit})"
            frames = [f.rename(columns={"objective_value": y}) for f in frames]
        return plots.codesign_pareto(*frames, x="system_cost_usd", y=y)


# ----- enumeration ------------------------------------------------------------------------------
def enumerate_hardware(depth: str = "balanced", custom: Mapping[str, Sequence[float]] | None = None,
                       base: Mapping[str, float] | None = None,
                       max_candidates: int | None = None) -> list[HardwareCandidate]:
    """Candidates for a depth: two_stage 1, balanced 2^6 = 64 (1x, 2x per knob), coarse 3^6 = 729
    (0.5x, 1x, 2x). ``custom`` maps knobs (the six, plus ``pes_per_cube``, ``cubes_per_sip``,
    ``n_sips``) to value lists; absent knobs stay at the base."""
    base = dict(_HW_KNOB_DEFAULTS if base is None else base)
    base_topo = tuple(getattr(GENERIC_SIP, k) for k in SYSTEM_KNOBS)
    axes = grid_axes(depth, custom, base, base_topo)
    check_cap(grid_size(axes), max_candidates)
    knob_rows, topo_rows = grid_rows(axes)
    named = _named_topology(depth, custom)
    return [HardwareCandidate(*map(float, k), **{n: int(t[i]) for i, n in enumerate(SYSTEM_KNOBS)
                                                  if n in named})
            for k, t in zip(knob_rows, topo_rows)]


def _named_topology(depth: str, custom) -> tuple[str, ...]:
    return tuple(k for k in SYSTEM_KNOBS if depth == "custom" and custom and k in custom)


# ----- argument checks --------------------------------------------------------------------------
def _int_arg(name: str, value, allow_none: bool = False) -> None:
    if allow_none and value is None:
        return
    require(isinstance(value, (int, np.integer)) and not isinstance(value, bool) and value >= 1,
            f"{name} must be an integer >= 1, got {value!r}")


def _check_args(objective, keep, top_k, executor, n_slices, progress, economics) -> None:
    get_objective(objective)
    choice("keep", keep, KEEP)
    _int_arg("top_k", top_k)
    _int_arg("n_slices", n_slices, allow_none=True)
    require(executor is None or callable(getattr(executor, "submit", None)),
            f"executor must be None or an object with submit(fn, *args) (a concurrent.futures "
            f"executor or a distributed.Client), got {executor!r}")
    require(progress is None or callable(progress), f"progress must be callable(done, total), got {progress!r}")
    require(economics is None or isinstance(economics, Economics),
            f"economics must be an infersim.codesign.economics.Economics, got {type(economics).__name__}")


# ----- the sweep --------------------------------------------------------------------------------
def _two_stage(ctx: SweepContext, axes) -> tuple[SliceResult, int]:
    """The two_stage policy: autosuggest's pick on the single (base) candidate."""
    knob_rows, topo_rows = rows_at(axes, [0])
    hw = topology_hw(ctx.base_hw, tuple(int(x) for x in topo_rows[0])).with_knobs(
        **dict(zip(KNOBS, map(float, knob_rows[0]))))
    try:
        s = autosuggest(ctx.model, hw, ctx.wl, ctx.runtime)
    except InferSimError as exc:
        raise InferSimError(f"impossible sweep: {exc}") from None
    space, _ = static_terms(ctx.model, hw, ctx.wl)
    one = ParArrays.from_configs([s.par], ctx.wl)
    i = int(np.flatnonzero(np.all([getattr(space, f) == getattr(one, f)[0] for f in FIELDS], axis=0))[0])
    r = s.result
    arr = lambda v, t=float: np.array([v], dtype=t)  # noqa: E731
    res = SliceResult(cand=arr(0, np.int64), config=arr(i, np.int64), pes=arr(r.pes_used, np.int64),
                      latency_ns=arr(r.total_latency_ns), period_ns=arr(r.period_ns),
                      mem_bytes=arr(r.mem_per_pe_bytes), n_fit=s.n_fitting, n_costed=0)
    return res, parallelism_space(ctx.model, hw, ctx.wl)[1].valid


def _run_local(ctx, axes, n, progress) -> list[SliceResult]:
    done = [0]

    def step(k: int) -> None:
        done[0] += k
        progress(done[0], n)
    return [search_range(ctx, axes, 0, n, step if progress else None)]


def executor_width(executor) -> int:
    """Default slices for an executor: one per worker thread when it says how many (a Dask
    ``Client.nthreads()``, a ``concurrent.futures`` pool's ``_max_workers``), else 8. Fewer,
    larger slices pay the per-task overhead and the shortlist costs fewest times."""
    try:
        if callable(getattr(executor, "nthreads", None)):
            return max(1, int(sum(executor.nthreads().values())))
        return max(1, int(getattr(executor, "_max_workers")))
    except Exception:        # noqa: BLE001 — any other executor: a fixed count
        return 8


def _run_executor(ctx, axes, n, executor, n_slices, progress) -> list[SliceResult]:
    """Contiguous ranges of the grid (candidates of one HBM capacity stay together); each task
    carries the axes and its range, and generates its candidates itself."""
    bounds = np.linspace(0, n, min(n_slices, n) + 1).astype(int)
    slices = [(int(a), int(b)) for a, b in zip(bounds[:-1], bounds[1:]) if b > a]
    futures = [executor.submit(run_range, ctx, axes, a, b) for a, b in slices]
    bad = [f for f in futures if not callable(getattr(f, "result", None))]
    if bad:
        raise InferSimError(f"executor.submit returned {type(bad[0]).__name__}, not a future with .result() "
                            "(use a concurrent.futures or dask.distributed executor)")
    out = []
    for (_, b), fut in zip(slices, futures):
        part = fut.result()
        if not isinstance(part, SliceResult):
            raise InferSimError(f"an executor task returned {type(part).__name__}, not the SliceResult of "
                                "run_range (the executor must return what the submitted function returns)")
        out.append(part)
        if progress:
            progress(b, n)
    return out


def _design(design_point, pick: JointScore, best: JointScore, base_hw: HardwareSpec) -> HardwareCandidate:
    """The design point: None/"pick" (the answer's hardware, :attr:`JointResult.pick`), "best"
    (the hardware of the best objective), "base", a HardwareCandidate, or a mapping of knobs (the
    rest from the base hardware)."""
    if design_point is None or (isinstance(design_point, str) and design_point == "pick"):
        return pick.hw
    if isinstance(design_point, str) and design_point == "best":
        return best.hw
    if isinstance(design_point, str) and design_point == "base":
        return HardwareCandidate(**base_hw.knobs())
    if isinstance(design_point, HardwareCandidate):
        return design_point
    require(isinstance(design_point, Mapping),
            f"design_point must be 'pick', 'best', 'base', a HardwareCandidate or a knob mapping, "
            f"got {design_point!r}")
    axes = grid_axes("custom", {k: [v] for k, v in design_point.items()}, base_hw.knobs(),
                     tuple(getattr(base_hw, k) for k in SYSTEM_KNOBS))
    vals = dict(zip(KNOBS + SYSTEM_KNOBS, (a[0] for a in axes)))
    topo = {k: vals[k] for k in SYSTEM_KNOBS if k in design_point}
    return HardwareCandidate(**{k: vals[k] for k in KNOBS}, **topo)


def joint_explore(model: ModelSpec, s_kv: int = 131072, mode: str = "decode", depth: str = "balanced",
                  batch: int = 1, base_hw: HardwareSpec | None = None, objective: str = "latency",
                  progress: Callable[[int, int], None] | None = None, *, s_q: int | None = None,
                  custom: Mapping[str, Sequence[float]] | None = None, keep: str = "best",
                  top_k: int = 1, executor=None, n_slices: int | None = None,
                  sensitivity: bool = True, runtime=None, economics: Economics | None = None,
                  design_point=None, target: float | None = None, target_gain: float = 2.0,
                  max_candidates: int | None = None, tolerance: float = 0.01) -> JointResult:
    """Co-design sweep (see the module docstring).

    ``keep``: "best" (each candidate's best pair), "topk" (its ``top_k`` best) or "all" (every
    fitting pair; memory grows with the grid). ``all_scores`` is sorted by the objective.
    ``tolerance`` (default 1%): the answer (:attr:`JointResult.pick`) is the cheapest pair (system
    capex) whose objective is within that fraction of the best. ``design_point`` (default: the
    pick) is where sensitivity, the levers and "what it takes" are measured; ``target``
    (objective units) or ``target_gain`` (default 2x better than the design point) sets what
    "what it takes" must reach."""
    _check_args(objective, keep, top_k, executor, n_slices, progress, economics)
    require(isinstance(tolerance, (int, float)) and not isinstance(tolerance, bool)
            and 0 <= tolerance < 1, f"tolerance must be a fraction in [0, 1), got {tolerance!r}")
    require(isinstance(target_gain, (int, float)) and not isinstance(target_gain, bool) and target_gain > 0,
            f"target_gain must be a number > 0, got {target_gain!r}")
    obj = get_objective(objective)
    econ = economics or Economics()
    t0 = time.perf_counter()
    wl = Workload(mode=mode, s_kv=s_kv, batch=batch, s_q=s_q)
    model = as_model(model)
    base_hw = GENERIC_SIP if base_hw is None else as_hardware(base_hw)
    axes = grid_axes(depth, custom, base_hw.knobs(), tuple(getattr(base_hw, k) for k in SYSTEM_KNOBS))
    n = grid_size(axes)
    check_cap(n, max_candidates)
    rt = get_runtime(runtime)
    ctx = SweepContext(rt.model_for(model), base_hw, wl, objective, keep, 1 if keep == "best" else top_k, rt)
    if depth == "two_stage":
        part, n_evals = _two_stage(ctx, axes)
        parts = [part]
        if progress:
            progress(1, 1)
    elif executor is None:
        parts = _run_local(ctx, axes, n, progress)
    else:
        parts = _run_executor(ctx, axes, n, executor, n_slices or executor_width(executor), progress)
    total_joint = sum(r.n_fit for r in parts)
    if depth != "two_stage":
        n_evals = sum(r.n_costed for r in parts)
    table = assemble(parts, axes, ctx, obj, econ)
    del parts
    topologies = itertools.product(*axes[len(KNOBS):])
    n_par = max(parallelism_space(model, topology_hw(base_hw, t), wl)[1].valid for t in topologies)
    if not len(table):
        raise InferSimError(
            f"impossible sweep: no (hardware, parallelism) pair of {n} candidates x "
            f"{n_par} configs fits {model.name} {mode} at s_kv={s_kv}, batch={batch}")
    scores = ScoreList(table, axes, _named_topology(depth, custom), ctx)
    cap_idx, usd_idx = frontiers(table, obj)
    pick = tolerance_pick(table, obj, tolerance)
    elapsed = time.perf_counter() - t0

    t1 = time.perf_counter()
    design = _design(design_point, scores[pick], scores[0], base_hw)
    sens, reqs, levers, combo, d_val, tgt = [], [], [], None, float("nan"), float("nan")
    two = depth == "two_stage"
    if sensitivity:
        sens, d_val, _ = _sensitivity(ctx, econ, design, two)
        levers = all_levers(ctx, econ, design, sens, d_val, two)
        tgt = default_target(obj, d_val, target_gain) if target is None else _target(target)
        reqs = what_it_takes(ctx, econ, design, d_val, tgt, two)
        if not any(q.multiplier is not None for q in reqs):
            combo = what_two_take(ctx, econ, design, tgt, two)
    return JointResult(model=model.name, workload=wl, depth=depth, objective=objective,
                       n_hardware=n, n_parallel=n_par, n_evals=int(n_evals),
                       total_joint=total_joint, all_scores=scores,
                       pareto_scores=[scores[int(i)] for i in cap_idx], sensitivity=sens,
                       elapsed_s=elapsed, sensitivity_s=time.perf_counter() - t1,
                       pareto_usd_scores=[scores[int(i)] for i in usd_idx], requirements=reqs,
                       design_point=design, design_value=d_val, target_value=tgt, economics=econ,
                       context=ctx, levers=levers, combination=combo, tolerance=float(tolerance),
                       pick_index=pick)


def _target(target) -> float:
    require(isinstance(target, (int, float, np.floating, np.integer)) and not isinstance(target, bool)
            and np.isfinite(target) and target > 0, f"target must be a positive number, got {target!r}")
    return float(target)
