"""Co-design at a serving SLA: which hardware serves a request shape within TTFT/TPOT limits for
the most tokens per dollar (or per watt, per PE, or in total).

For every hardware candidate of the grid (:func:`~infersim.codesign.auto_hardware.enumerate_hardware`)
:func:`~infersim.serving.sla.sla_search` finds the best single-replica deployment (parallelism × batch,
continuous batching by default) meeting the SLA; the candidate's per-PE economics
(:func:`~infersim.codesign.economics.pe_economics`) turn its tokens/s per PE into tokens per dollar of TCO
and per watt of system power:

    tok/$ = tok_s_per_pe · 3600 / (TCO $ per PE-hour),    tok/s/W = tok_s_per_pe / (system W per PE)

Within one hardware the cost and power per PE are constant, so its best deployment under every
objective here is the one with the most tokens/s per PE (the SLA search's own objective); the
objective only orders the hardware. A replica is the deployment unit: more replicas multiply
tokens/s, cost and power alike; ``tok_s`` ranks the whole candidate system, filled with
replicas (⌊system PEs / replica PEs⌋ × the replica's tokens/s). Candidates where nothing meets the SLA rank last, with the
nearest miss. Sensitivity: each knob of the best candidate ×2 and ×0.5, searched again under
the same SLA and objective.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Callable, Mapping, Sequence

import numpy as np

from infersim.codesign.answer import MIN_LEVER_GAIN, fmt_price, hardware_phrase
from infersim.codesign.auto_hardware import HardwareCandidate, enumerate_hardware, executor_width
from infersim.codesign.disagg import PoolPair, codesign_pools
from infersim.codesign.economics import Economics, pe_economics
from infersim.codesign.grid import (
    MAX_CANDIDATES_LIMIT,
    MAX_SLA_CANDIDATES,
    MAX_SLA_CANDIDATES_LIMIT,
    check_cap,
    grid_axes,
    grid_size,
)
from infersim.codesign.levers import KNOB_WORDS, RUNTIME_WORDS, Lever, _runtime_variants
from infersim.codesign.search import adaptive_malloc_once
from infersim.codesign.types import TOPOLOGY_KNOBS, candidate_rows
from infersim.errors import choice, require
from infersim.presets.hardware_presets import GENERIC_SIP, as_hardware
from infersim.presets.model_presets import as_model
from infersim.presets.runtime_presets import RUNTIMES, SCENARIO_RUNTIMES, get_runtime
from infersim.serving import BATCHING, Request
from infersim.serving.sla import ServingPoint, limit_ms
from infersim.serving.sla_many import sla_search_many
from infersim.specs.hardware import KNOBS, HardwareSpec
from infersim.specs.model import ModelSpec

#: Hardware candidates searched together (progress is reported per chunk; bounds memory).
CHUNK = 8
#: On an executor, chunks are guided: each takes this share of the candidates still to submit per
#: worker (and at least CHUNK), so the first tasks are large (the scheduler's per-task cost is paid
#: a few dozen times, not once per 8 candidates) and the last ones small (whichever worker finishes
#: last waits on a small chunk, not a large one). Candidates' costs vary 10x across a grid.
GUIDED_SHARE = 4

#: Objectives of an SLA co-design: name → (ServingDesign attribute, unit).
SLA_OBJECTIVES = {"tok_s_per_usd": ("tok_s_per_usd", "tok/$"), "tok_s_per_w": ("tok_s_per_w", "tok/s/W"),
                  "tok_s_per_pe": ("tok_s_per_pe", "tok/s/PE"), "tok_s": ("tok_s_system", "tok/s")}
#: Objectives that need a target request rate (``rate_rps``): the fleet of replicas that serves it.
RATE_OBJECTIVES = {"rate_per_usd": ("rate_per_usd", "req/s per $/h")}
#: The sweep's names for the same objectives, accepted here too (one set of names with and
#: without an SLA).
SLA_ALIASES = {"throughput_per_pe": "tok_s_per_pe", "throughput": "tok_s"}
#: SLA objective → the per-PE cost :mod:`.disagg` prices pools by.
_POOL_OBJECTIVE = {"tok_s_per_usd": "tok_s_per_usd", "tok_s_per_w": "tok_s_per_w", "tok_s_per_pe": "throughput_per_pe"}


@dataclass(frozen=True)
class ServingDesign:
    """One hardware candidate: its best SLA-meeting single-replica deployment (``point``, None
    when nothing meets the SLA; ``miss`` is then the least violating fitting one) and its
    per-PE capex, system power and TCO per hour."""

    hw: HardwareCandidate
    point: ServingPoint | None
    miss: ServingPoint | None
    capex_usd_per_pe: float
    power_w_per_pe: float
    usd_per_h_per_pe: float
    limit: str = ""
    system_pes: int = 0             # PEs of the candidate system (replicas fill it)
    rate_rps: float = 0.0           # a target request rate (0: none) ...
    osl: int = 0                    # ... of requests of this many output tokens

    @property
    def replicas_for_rate(self) -> int:
        """Replicas that serve ``rate_rps`` at the SLA: ⌈rate / (tok_s / osl)⌉, each replica at its
        SLA-meeting batch in steady state (a bound: queueing under bursty arrivals needs more,
        :func:`infersim.serving.capacity_search` says how many); 0 without a rate or a point."""
        if not (self.point and self.rate_rps and self.osl):
            return 0
        return math.ceil(self.rate_rps * self.osl / self.point.tok_s - 1e-9)

    @property
    def usd_per_h_for_rate(self) -> float:
        """TCO per hour of the replicas that serve ``rate_rps``."""
        n = self.replicas_for_rate
        return n * self.point.pes * self.usd_per_h_per_pe if n else math.nan

    @property
    def rate_per_usd(self) -> float:
        """Requests/s served per $/h of the fleet that serves ``rate_rps`` (higher is better: the
        fewest dollars for the rate, replicas counted whole)."""
        return self.rate_rps / self.usd_per_h_for_rate if self.replicas_for_rate else math.nan

    @property
    def tok_s(self) -> float:
        return self.point.tok_s if self.point else math.nan

    @property
    def tok_s_system(self) -> float:
        """Tokens/s of the whole candidate system: as many replicas as fit, each at ``tok_s``."""
        return (self.system_pes // self.point.pes) * self.point.tok_s if self.point else math.nan

    @property
    def tok_s_per_pe(self) -> float:
        return self.point.tok_s_per_pe if self.point else math.nan

    @property
    def tok_s_per_usd(self) -> float:
        return self.tok_s_per_pe * 3600.0 / self.usd_per_h_per_pe

    @property
    def tok_s_per_w(self) -> float:
        return self.tok_s_per_pe / self.power_w_per_pe

    @property
    def capex_usd(self) -> float:
        """Capex of the deployment's PEs."""
        return self.point.pes * self.capex_usd_per_pe if self.point else math.nan

    def value(self, objective: str) -> float:
        return getattr(self, objective_spec(objective)[0])

    def record(self) -> dict:
        p = self.point or self.miss
        hw = {**self.hw.knobs(), **self.hw.topology_overrides()}
        return {**{f"hw_{k}": v for k, v in hw.items()}, "meets_sla": self.point is not None,
                "parallelism": p.par.describe() if p else "", "batch": p.batch if p else 0,
                "pes": p.pes if p else 0, "ttft_ms": p.ttft_ms if p else math.nan,
                "tpot_ms": p.tpot_ms if p else math.nan, "tok_s": self.tok_s,
                "tok_s_system": self.tok_s_system, "system_pes": self.system_pes,
                "tok_s_per_pe": self.tok_s_per_pe, "tok_s_per_usd": self.tok_s_per_usd,
                "tok_s_per_w": self.tok_s_per_w, "capex_usd": self.capex_usd,
                "capex_usd_per_pe": self.capex_usd_per_pe, "power_w_per_pe": self.power_w_per_pe,
                "usd_per_h_per_pe": self.usd_per_h_per_pe,
                **({"rate_rps": self.rate_rps, "replicas_for_rate": self.replicas_for_rate,
                    "pes_for_rate": self.replicas_for_rate * (p.pes if self.point else 0),
                    "usd_per_h_for_rate": self.usd_per_h_for_rate} if self.rate_rps else {})}


@dataclass(frozen=True)
class KnobEffect:
    """The objective at the best hardware with one knob ×2 and ×0.5 (relative gains, > 0 better)."""

    knob: str
    doubled_value: float
    halved_value: float
    gain_doubled: float
    gain_halved: float


@dataclass(frozen=True)
class SLACodesignResult:
    model: str
    base_hw: str
    runtime: str
    batching: str
    request: Request
    ttft_limit_ms: float | None
    tpot_limit_ms: float | None
    objective: str
    designs: list[ServingDesign]          # best first; those meeting no SLA last
    sensitivity: list[KnobEffect] = field(default_factory=list)
    n_meeting: int = 0
    elapsed_s: float = 0.0
    levers: list[Lever] = field(default_factory=list)
    pools: PoolPair | None = None        # different prefill and decode parts (disaggregated=True)

    @property
    def unit(self) -> str:
        return objective_spec(self.objective)[1]

    @property
    def best(self) -> ServingDesign | None:
        return self.designs[0] if self.designs and self.designs[0].point else None

    def pareto(self) -> list[ServingDesign]:
        """Meeting designs not beaten on both the objective and the deployment's capex."""
        from infersim.search.pareto import pareto_front

        ok = [d for d in self.designs if d.point]
        if not ok:
            return []
        idx = pareto_front(-np.array([d.value(self.objective) for d in ok]), np.array([d.capex_usd for d in ok]))
        return [ok[i] for i in idx]

    def answer(self) -> dict:
        """The recommendation first: hardware, deployment, its numbers, what limits it, the knob
        whose doubling gains most."""
        return sla_answer(self)

    def to_pandas(self, which: str = "designs"):
        """``designs`` (every candidate, ranked) or ``sensitivity``."""
        from infersim.report.frames import frame

        choice("table", which, ("designs", "sensitivity"))
        if which == "sensitivity":
            return frame([vars(s) for s in self.sensitivity])
        return frame([{"rank": i + 1, **d.record()} for i, d in enumerate(self.designs)])

    def to_parquet(self, path, which: str = "designs") -> str:
        from infersim.report.frames import to_parquet

        return to_parquet(self.to_pandas(which), path)

    def plot(self, kind: str = "pareto"):
        from infersim.report import plots

        choice("plot", kind, ("pareto", "sensitivity"))
        return plots.sla_codesign(self) if kind == "pareto" else plots.sla_sensitivity(self)


def answer_chunk(model, hws, request, ttft_ms, tpot_ms, rt, batching):
    """The SLA answers of one chunk of hardware candidates: the unit of work run locally or
    submitted to an executor (module-level, so a process or Dask worker can unpickle it; the
    worker's caches of serving spaces and prepared steps stay warm across its tasks; a Dask
    worker's fixed malloc threshold is undone first, see :func:`.search.adaptive_malloc_once`)."""
    adaptive_malloc_once()
    return sla_search_many(model, hws, request, ttft_ms, tpot_ms, runtime=rt, batching=batching)


def _chunk_bounds(n: int, workers: int) -> tuple[list[int], list[int]]:
    """(starts, ends) of the chunks of ``n`` candidates: :data:`CHUNK` each locally (``workers``
    0); on an executor of ``workers`` each chunk takes 1/(GUIDED_SHARE·workers) of what is left,
    at least CHUNK (729 candidates on 2 workers: 92, 80, 70, ... 8: 26 tasks)."""
    ends, left = [], n
    while left > 0:
        size = CHUNK if not workers else max(CHUNK, -(-left // (GUIDED_SHARE * workers)))
        left -= min(size, left)
        ends.append(n - left)
    return ([0] + ends[:-1] if ends else []), ends


def _search_all(model, jobs, request, ttft_ms, tpot_ms, batching, executor=None, progress=None):
    """One list of candidate answers per job ``(hardware specs, runtime)``; each job is split into
    chunks of :data:`CHUNK` candidates (on an executor guided ones, :func:`_chunk_bounds`). With an
    ``executor`` (``submit(fn, *args)`` → future) every
    chunk of every job is submitted at once, so independent searches (the sensitivity's
    candidates and each software lever) run side by side; results are gathered in order, so the
    answers are the local ones. ``progress(done, total)`` counts candidates per finished chunk."""
    total, done = sum(len(hws) for hws, _ in jobs), 0
    width = 0 if executor is None else executor_width(executor)
    tasks = [(j, hws[a:b], rt) for j, (hws, rt) in enumerate(jobs)
             for a, b in zip(*_chunk_bounds(len(hws), width))]
    futures = None
    if executor is not None:
        futures = [executor.submit(answer_chunk, model, hws, request, ttft_ms, tpot_ms, rt, batching)
                   for _, hws, rt in tasks]
    out: list[list] = [[] for _ in jobs]
    for i, (j, hws, rt) in enumerate(tasks):
        part = (futures[i].result() if futures is not None
                else answer_chunk(model, hws, request, ttft_ms, tpot_ms, rt, batching))
        require(isinstance(part, list) and len(part) == len(hws),
                f"an executor task returned {type(part).__name__}, not the {len(hws)} answers of "
                "answer_chunk (the executor must return what the submitted function returns)")
        out[j] += part
        done += len(hws)
        if progress is not None:
            progress(done, total)
    return out


def objective_spec(objective: str) -> tuple[str, str]:
    """(ServingDesign attribute, unit) of an SLA co-design objective."""
    return {**SLA_OBJECTIVES, **RATE_OBJECTIVES}[objective]


def _designs_from(cands, answers, base, econ, rate: tuple[float, int] = (0.0, 0)) -> list[ServingDesign]:
    """Each candidate's best deployment (its SLA answer) with its per-PE economics (and, with
    ``rate`` = (req/s, output tokens), the fleet that serves that rate)."""
    knobs, topo = candidate_rows(cands, base)
    pe = pe_economics(knobs, topo, base, econ)
    return [ServingDesign(c, a.best, a.nearest_miss, float(pe.capex_usd[i]), float(pe.system_w[i]),
                          float(pe.usd_per_h[i]), a.limit, int(np.prod(topo[i][:3])), *rate)
            for i, (c, a) in enumerate(zip(cands, answers))]


def _ranked(designs: list[ServingDesign], objective: str) -> list[ServingDesign]:
    key = lambda d: (d.point is None, -d.value(objective) if d.point else 0.0, d.capex_usd_per_pe)  # noqa: E731
    return sorted(designs, key=key)


def _sensitivity(res: list[ServingDesign], best: ServingDesign, objective: str) -> list[KnobEffect]:
    """Each knob's effect from the designs of :func:`_sensitivity_candidates` (in that order)."""
    v0 = best.value(objective)
    gain = lambda d: d.value(objective) / v0 - 1.0 if d.point else -1.0  # noqa: E731
    rows = [KnobEffect(k, res[2 * j].value(objective), res[2 * j + 1].value(objective),
                       gain(res[2 * j]), gain(res[2 * j + 1])) for j, k in enumerate(KNOBS)]
    return sorted(rows, key=lambda r: -r.gain_doubled)


def _sensitivity_candidates(best: ServingDesign) -> list[HardwareCandidate]:
    return [best.hw.scaled(k, f) for k in KNOBS for f in (2.0, 0.5)]


def _levers_at(model, base, best: ServingDesign, request, ttft_ms, tpot_ms, rt, batching, econ,
               objective, executor, rate=(0.0, 0)) -> tuple[list[KnobEffect], list[Lever]]:
    """The knob sensitivity and every lever (hardware and software) at the best design: the
    sensitivity's candidates and each software variant's search are independent jobs, searched
    together (side by side on an ``executor``)."""
    sens_cands, variants = _sensitivity_candidates(best), _software_variants(rt)
    best_hw = best.hw.to_hardware(base)
    jobs = [([c.to_hardware(base) for c in sens_cands], rt)] + [([best_hw], v[2]) for v in variants]
    answers = _search_all(model, jobs, request, ttft_ms, tpot_ms, batching, executor)
    sens = _sensitivity(_designs_from(sens_cands, answers[0], base, econ, rate), best, objective)
    soft = _software_levers(variants, [_designs_from([best.hw], a, base, econ, rate)[0] for a in answers[1:]],
                            best, objective)
    return sens, sorted(_hardware_levers(sens, best, objective) + soft, key=lambda lv: -lv.gain)


def codesign_sla(model: ModelSpec, request: Request, ttft_ms: float | None = None,
                 tpot_ms: float | None = None, depth: str = "balanced",
                 custom: Mapping[str, Sequence[float]] | None = None,
                 base_hw: HardwareSpec | None = None, objective: str = "tok_s_per_usd",
                 runtime=None, batching: str = "continuous", economics: Economics | None = None,
                 progress: Callable[[int, int], None] | None = None,
                 max_candidates: int | None = None, sensitivity: bool = True,
                 disaggregated: bool = False, executor=None, rate_rps: float | None = None) -> SLACodesignResult:
    """The hardware (of ``depth``'s grid around ``base_hw``) whose best deployment serves
    ``request`` within ``ttft_ms`` / ``tpot_ms`` for the most of ``objective`` (see the module
    docstring); designs ranked, the knob sensitivity and every lever (hardware and software) at
    the best one. ``disaggregated``: also the best pair of different prefill and decode parts
    (:mod:`infersim.codesign.disagg`; not for ``tok_s``, whose system is one part).
    ``executor``: any object with ``submit(fn, *args)`` returning futures (a ``concurrent.futures``
    executor, a Dask ``distributed.Client``): the candidates' chunks, then the sensitivity's and
    the levers' searches, run on it; the answers are the same as without it. ``rate_rps``: a
    target request rate — every design states the replicas, PEs and $/h that serve it at the
    SLA (steady state), and the ``rate_per_usd`` objective ranks by the fewest dollars for it."""
    objective = SLA_ALIASES.get(objective, objective)
    choice("objective", objective, tuple(SLA_OBJECTIVES) + tuple(RATE_OBJECTIVES) + tuple(SLA_ALIASES))
    require(rate_rps is None or (isinstance(rate_rps, (int, float)) and not isinstance(rate_rps, bool)
                                 and math.isfinite(rate_rps) and rate_rps > 0),
            f"rate_rps must be a positive number of requests per second, got {rate_rps!r}")
    require(objective not in RATE_OBJECTIVES or rate_rps is not None,
            f"objective {objective} ranks the fleets that serve a target rate: give rate_rps= (--rate)")
    require(ttft_ms is not None or tpot_ms is not None,
            "an SLA co-design needs a TTFT or a TPOT limit (ttft_ms=, tpot_ms=)")
    # checked here, once: a bad limit or batching inside the per-candidate search would read as
    # "not one sequence fits" on every candidate
    ttft_ms, tpot_ms = limit_ms("ttft_ms", ttft_ms), limit_ms("tpot_ms", tpot_ms)
    choice("batching", batching, BATCHING)
    require(isinstance(request, Request), f"request must be a Request, got {type(request).__name__}")
    require(progress is None or callable(progress), f"progress must be callable(done, total), got {progress!r}")
    require(economics is None or isinstance(economics, Economics),
            f"economics must be an infersim.codesign.economics.Economics, got {type(economics).__name__}")
    require(isinstance(sensitivity, (bool, np.bool_)), f"sensitivity must be true or false, got {sensitivity!r}")
    require(executor is None or callable(getattr(executor, "submit", None)),
            f"executor must be None or an object with submit(fn, *args) (a concurrent.futures executor or a "
            f"distributed.Client), got {executor!r}")
    model = as_model(model)
    base = GENERIC_SIP if base_hw is None else as_hardware(base_hw)
    rt, t0 = get_runtime(runtime), time.perf_counter()
    axes = grid_axes(depth, custom, base.knobs(), tuple(getattr(base, k) for k in TOPOLOGY_KNOBS))
    check_cap(grid_size(axes), max_candidates, MAX_SLA_CANDIDATES, MAX_SLA_CANDIDATES_LIMIT, "an SLA co-design")
    cands = enumerate_hardware(depth, custom, base=base.knobs(), max_candidates=MAX_CANDIDATES_LIMIT)
    answers = _search_all(model, [([c.to_hardware(base) for c in cands], rt)], request, ttft_ms, tpot_ms,
                          batching, executor, progress)[0]
    rate = (float(rate_rps or 0.0), int(request.osl))
    designs = _ranked(_designs_from(cands, answers, base, economics, rate), objective)
    n_meet = sum(d.point is not None for d in designs)
    sens, levers = [], []
    if sensitivity and n_meet:
        sens, levers = _levers_at(model, base, designs[0], request, ttft_ms, tpot_ms, rt, batching, economics,
                                  objective, executor, rate)
    pools = None
    if disaggregated and objective in _POOL_OBJECTIVE:
        pools = codesign_pools(model, request, cands, base, ttft_ms, tpot_ms, _POOL_OBJECTIVE[objective],
                               rt, economics)
    return SLACodesignResult(model=model.name, base_hw=base.name, runtime=rt.name, batching=batching,
                             request=request, ttft_limit_ms=ttft_ms, tpot_limit_ms=tpot_ms,
                             objective=objective, designs=designs, sensitivity=sens,
                             n_meeting=n_meet, elapsed_s=time.perf_counter() - t0, levers=levers,
                             pools=pools)


def _hardware_levers(sens: list[KnobEffect], best: ServingDesign, objective: str) -> list[Lever]:
    v0 = best.value(objective)
    out = []
    for r in sens:
        words, unit = KNOB_WORDS[r.knob]
        v = getattr(best.hw, r.knob)
        out.append(Lever(f"{r.knob} x2", "hardware", f"double {words} ({v:,.4g} -> {2 * v:,.4g} {unit})",
                         r.gain_doubled, r.doubled_value, v0, objective, halved_value=r.halved_value,
                         doubled_value=r.doubled_value))
    return out


def _software_variants(rt) -> list[tuple[str, str, object]]:
    """(name, action, runtime) of every software lever: the runtime's overheads x0.5 and each
    other runtime profile (see :mod:`infersim.codesign.levers`)."""
    variants = [(f"{f} x{getattr(h, f) / getattr(rt, f):.2g}",
                 f"cut {w} ({getattr(rt, f):,.4g} -> {getattr(h, f):,.4g} {u})", h)
                for f, w, u, h, _ in _runtime_variants(rt)]
    return variants + [(f"runtime {n}", f"switch the runtime to {n} ({RUNTIME_WORDS.get(n, n)}; "
                        + ("a stack that does not ship yet: assumed numbers" if n in SCENARIO_RUNTIMES
                           else f"{RUNTIMES[n].measured or 'assumed'} profile") + ")", RUNTIMES[n])
                       for n in RUNTIMES if n != rt.name and RUNTIMES[n] != rt]


def _software_levers(variants, designs: list[ServingDesign], best: ServingDesign, objective) -> list[Lever]:
    """Each software variant's lever from the best hardware's design searched again under it."""
    v0 = best.value(objective)
    out = []
    for (name, action, other), d in zip(variants, designs):
        v = d.value(objective) if d.point else math.nan
        out.append(Lever(name, "software", action, v / v0 - 1.0 if d.point else -1.0, v, v0, objective,
                         source=other.source))
    return out


def sla_answer(res) -> dict:
    """An :class:`~infersim.codesign.sla.SLACodesignResult`'s recommendation as a plain dict:
    the hardware, its deployment and numbers, what stops a larger batch, the next knob."""
    d = res.best
    unit = objective_spec(res.objective)[1]
    if d is None:
        near = next((x for x in res.designs if x.miss is not None), None)
        return {"objective": res.objective, "unit": unit, "meets_sla": False,
                "nearest": near.record() if near else None,
                "why": "no candidate meets the SLA" + (
                    f"; nearest: {hardware_phrase({**near.hw.knobs(), **near.hw.topology_overrides()})} with "
                    f"{near.miss.par.describe()} at batch {near.miss.batch}: TTFT {near.miss.ttft_ms:,.0f} ms, "
                    f"TPOT {near.miss.tpot_ms:.1f} ms" if near else "")}
    p = d.point
    from infersim.codesign.levers import next_levers

    lever, other = next_levers(res.levers, MIN_LEVER_GAIN)
    return {"objective": res.objective, "unit": unit, "meets_sla": True,
            "objective_value": d.value(res.objective),
            "hardware": {**d.hw.knobs(), **d.hw.topology_overrides()},
            "parallelism": p.par.describe(), "batch": p.batch, "pes": p.pes,
            "ttft_ms": p.ttft_ms, "tpot_ms": p.tpot_ms, "tok_s": p.tok_s, "tok_s_per_pe": p.tok_s_per_pe,
            "tok_s_per_usd": d.tok_s_per_usd, "tok_s_per_w": d.tok_s_per_w, "capex_usd": d.capex_usd,
            "usd_per_mtok": 1e6 / d.tok_s_per_usd, "limit": d.limit,
            **({k: d.record()[k] for k in ("rate_rps", "replicas_for_rate", "pes_for_rate", "usd_per_h_for_rate")}
               if d.rate_rps else {}),
            "next_lever": _lever(lever), "other_lever": _lever(other), "pools": _pools(res.pools)}


def _lever(lv) -> dict | None:
    if lv is None:
        return None
    return {"name": lv.name, "kind": lv.kind, "action": lv.action, "gain": lv.gain, "value": lv.value,
            "knob": lv.name.split(" ")[0] if lv.kind == "hardware" else None}


def _pools(pp: PoolPair | None) -> dict | None:
    if pp is None:
        return None
    from dataclasses import asdict

    return {**asdict(pp), "gain_over_same_part": pp.gain_over_same_part}


def sla_answer_lines(ans: dict) -> tuple[str, str]:
    """Two lines: the hardware and deployment that serve the SLA best; what limits it, what next."""
    if not ans["meets_sla"]:
        return ("Answer: " + ans["why"], "Relax the SLA or widen the grid (more HBM bandwidth or compute)")
    knobs = hardware_phrase(ans["hardware"])
    pes = f"{ans['pes']} PE" + ("s" if ans["pes"] != 1 else "")
    first = (f"Answer: {knobs}; {ans['parallelism']} at batch {ans['batch']} on {pes}: "
             f"TTFT {ans['ttft_ms']:,.0f} ms, TPOT {ans['tpot_ms']:.1f} ms, {ans['tok_s']:,.0f} tok/s "
             f"({ans['tok_s_per_pe']:,.1f}/PE), {ans['tok_s_per_usd']:,.0f} tok/$ "
             f"({fmt_price(ans['usd_per_mtok'])}/M tok), {ans['tok_s_per_w']:.2f} tok/s/W")
    if ans.get("rate_rps"):
        n = ans["replicas_for_rate"]
        pes = ans["pes_for_rate"]
        first += (f"; serves {ans['rate_rps']:g} req/s with {n} replica{'s' if n != 1 else ''} "
                  f"({pes:,} PE{'s' if pes != 1 else ''}, ${ans['usd_per_h_for_rate']:,.2f}/h, steady state)")
    lever, other = ans["next_lever"], ans["other_lever"]
    if lever is None:
        nxt = "no lever, hardware or software, gains more than 0.5%"
    else:
        nxt = f"next lever ({lever['kind']}): {lever['action']} ({100 * lever['gain']:+.1f}% {ans['unit']})"
        if other is not None:
            nxt += f"; best {other['kind']} lever: {other['action']} ({100 * other['gain']:+.1f}% {ans['unit']})"
    return first, f"Limited by {ans['limit']}; {nxt}"


def pools_line(ans: dict) -> str | None:
    """One line: the prefill part and the decode part of the best disaggregated deployment."""
    pp = ans.get("pools")
    if not ans.get("meets_sla") or pp is None:
        return None
    same = "the same part for both pools" if pp["prefill_hw"] == pp["decode_hw"] else (
        f"{100 * pp['gain_over_same_part']:+.1f}% over one part for both")
    return (f"Disaggregated, one part per pool: prefill on {hardware_phrase(pp['prefill_hw'])} "
            f"({pp['prefill_par']}, {pp['prefill_batch']} prompts per step), decode on "
            f"{hardware_phrase(pp['decode_hw'])} ({pp['decode_par']}, batch {pp['decode_batch']}): TTFT "
            f"{pp['ttft_ms']:,.0f} ms, TPOT {pp['tpot_ms']:.1f} ms, {pp['value']:,.4g} {ans['unit']} ({same})")
