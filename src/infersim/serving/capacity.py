"""Capacity planning under traffic: the highest request rate a deployment sustains at a percentile
SLO (``max_rate``), and the fewest PEs (a replica's parallelism × replicas) that serve a target rate
at that SLO (``capacity_search``).

Both rest on the steady-state bound of :mod:`infersim.serving.model`: a replica with ``B`` sequences
in flight (the most ``max_num_seqs`` and its KV cache allow) delivers at most
``λ_sat = tok_s(B) / mean osl`` requests/s (``saturation_rps``); no queue can beat it. So

* ``max_rate`` bisects the rate in (0, λ_sat] with the traffic simulator (latency percentiles grow
  with the rate: the arrivals of one seed at another rate are the same requests at scaled times);
* ``capacity_search`` takes every single-replica parallelism of the SLA search's space
  (:func:`infersim.serving.sla.serving_space`, the best variant per (tp, pp, cp, ep) by λ_sat),
  prunes those whose lone request already breaks the SLO (TTFT of a prompt alone, TPOT of batch 1),
  and visits the rest by their lower bound ``⌈rate / λ_sat⌉ · PEs``, stopping when the bound reaches
  the best found. For R replicas behind a round-robin balancer one replica sees every R-th arrival
  of the target stream, which is what is simulated; R grows from its lower bound until the SLO holds.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field, replace

import numpy as np

from infersim.errors import require
from infersim.presets.runtime_presets import get_runtime
from infersim.serving.load import simulate_traffic
from infersim.serving.model import Request, evaluate_serving
from infersim.serving.scheduler import Scheduler
from infersim.serving.sla import limit_ms, max_batch, serving_space
from infersim.serving.traffic import Requests, Traffic
from infersim.specs.hardware import HardwareSpec
from infersim.specs.model import ModelSpec
from infersim.specs.parallel import Parallelism, ParArrays
from infersim.specs.workload import Workload

SAMPLE_REQUESTS = 2000      # requests per replica simulated for one SLO check


def mean_request(traffic: Traffic) -> Request:
    """The mean request shape of the traffic (the steady-state model's input)."""
    reqs = traffic.sample()
    return Request(max(int(round(reqs.isl.mean())), 1), max(int(round(reqs.osl.mean())), 1),
                   prefix_hit=traffic.prefix_hit)


def saturation_rps(model, hw, configs: ParArrays, request: Request, sched: Scheduler, runtime=None):
    """λ_sat per config (requests/s of the whole config, all replicas), the batch it is reached at,
    and the lone-request TTFT and TPOT (ns) (one array evaluation each)."""
    cap = sched.max_num_seqs * configs.dp
    bmax = np.minimum(max_batch(model, hw, configs, request, cap=int(cap.max()), runtime=runtime), cap)
    ok = bmax >= configs.dp
    b = np.where(ok, bmax, configs.dp)
    sat = evaluate_serving(model, hw, configs, b, request, runtime)
    alone = evaluate_serving(model, hw, configs, configs.dp, request, runtime, batching="static")
    return np.where(ok, sat["tok_s"] / request.osl, 0.0), b, alone["ttft_ns"], alone["tpot_ns"]


def _meets(r, ttft_ms, tpot_ms, q) -> tuple[bool, float, float]:
    ttft, tpot = r.percentile_ms("ttft", q), r.percentile_ms("tpot", q)
    ok = (ttft_ms is None or ttft <= ttft_ms) and (tpot_ms is None or not tpot > tpot_ms)
    return ok, ttft, tpot


@dataclass(frozen=True)
class RatePoint:
    rate_rps: float
    ttft_ms: float           # at the percentile
    tpot_ms: float
    meets: bool


@dataclass(frozen=True)
class MaxRate:
    """The highest rate meeting the SLO (0 when even a lone request misses it)."""

    par: Parallelism
    rate_rps: float
    saturation_rps: float
    percentile: float
    points: list = field(default_factory=list)       # every rate simulated
    elapsed_s: float = 0.0


def max_rate(model: ModelSpec, hw: HardwareSpec, par: Parallelism, traffic: Traffic, ttft_ms=None,
             tpot_ms=None, percentile: float = 99, runtime=None, scheduler: Scheduler | None = None,
             rel_tol: float = 0.02) -> MaxRate:
    """Bisect the rate of ``traffic``'s arrival process in (0, λ_sat] to ``rel_tol``."""
    t0 = time.perf_counter()
    ttft_ms, tpot_ms = limit_ms("ttft_ms", ttft_ms), limit_ms("tpot_ms", tpot_ms)
    require(0 < percentile < 100, f"percentile must be in (0, 100), got {percentile!r}")
    sched, rt = scheduler or Scheduler(), get_runtime(runtime)
    require(traffic.arrival in ("poisson", "gamma", "trace"), "max_rate needs an open-loop arrival process")
    req = mean_request(traffic)
    wl = Workload("decode", s_kv=req.isl + req.osl, batch=par.dp)
    sat = float(saturation_rps(model, hw, ParArrays.from_configs([par], wl), req, sched, rt)[0][0])
    points, lo, hi = [], 0.0, sat
    rate = sat
    while sat > 0 and (hi - lo) > rel_tol * hi:
        r = simulate_traffic(model, hw, par, traffic.with_rate(rate), rt, sched)
        ok, ttft, tpot = _meets(r, ttft_ms, tpot_ms, percentile)
        points.append(RatePoint(rate, ttft, tpot, ok))
        lo, hi = (rate, hi) if ok else (lo, rate)
        if ok and rate == sat:
            break
        rate = (lo + hi) / 2 if lo > 0 else hi / 4
        if not ok and lo == 0 and hi < sat * 1e-3:
            break
    return MaxRate(par=par, rate_rps=lo, saturation_rps=sat, percentile=percentile,
                   points=sorted(points, key=lambda p: p.rate_rps), elapsed_s=time.perf_counter() - t0)


def _replica_traffic(traffic: Traffic, replicas: int, n_per_replica: int) -> Traffic:
    """The stream one of ``replicas`` round-robin replicas sees: every R-th request of the target."""
    reqs = replace(traffic, n_requests=replicas * n_per_replica, duration_s=None).sample()
    sl = slice(0, None, replicas)
    return Traffic(arrival="trace", trace=Requests(reqs.arrival_ns[sl], reqs.isl[sl], reqs.osl[sl]),
                   prefix_hit=traffic.prefix_hit, seed=traffic.seed)


@dataclass(frozen=True)
class CapacityPlan:
    """A replica's parallelism, how many replicas, and what they deliver at the target rate."""

    par: Parallelism
    replicas: int
    pes: int
    ttft_ms: float               # at the percentile
    tpot_ms: float
    saturation_rps: float        # of all replicas (the steady-state bound)

    def to_dict(self) -> dict:
        return {"par": self.par.to_dict(), "parallelism": self.par.describe(), "replicas": self.replicas,
                "pes": self.pes, "ttft_ms": self.ttft_ms, "tpot_ms": self.tpot_ms,
                "saturation_rps": self.saturation_rps}


@dataclass(frozen=True)
class CapacityResult:
    model: str
    hardware: str
    rate_rps: float
    percentile: float
    ttft_limit_ms: float | None
    tpot_limit_ms: float | None
    best: CapacityPlan | None               # None: no replica meets the SLO even alone
    tried: list                             # every (plan, meets) simulated
    n_configs: int                          # single-replica parallelisms considered
    n_pruned: int                           # of them: a lone request already misses the SLO
    elapsed_s: float

    def answer(self) -> str:
        sla = ", ".join(s for s in (f"p{self.percentile:g} TTFT ≤ {self.ttft_limit_ms:g} ms" if self.ttft_limit_ms
                                    else "", f"p{self.percentile:g} TPOT ≤ {self.tpot_limit_ms:g} ms"
                                    if self.tpot_limit_ms else "") if s) or "no SLO"
        head = f"{self.model} at {self.rate_rps:g} req/s, {sla}: "
        b = self.best
        if b is None:
            return head + "nothing meets the SLO (a lone request already misses it on every parallelism)"
        return (head + f"{b.par.describe()} x {b.replicas} replicas on {b.pes} {self.hardware} PEs: "
                f"p{self.percentile:g} TTFT {b.ttft_ms:,.0f} ms, p{self.percentile:g} TPOT {b.tpot_ms:.1f} ms; "
                f"saturates at {b.saturation_rps:,.1f} req/s")

    def to_dict(self) -> dict:
        return {"answer": self.answer(), "model": self.model, "hardware": self.hardware, "rate_rps": self.rate_rps,
                "percentile": self.percentile, "ttft_limit_ms": self.ttft_limit_ms,
                "tpot_limit_ms": self.tpot_limit_ms, "best": self.best.to_dict() if self.best else None,
                "tried": [{**p.to_dict(), "meets": ok} for p, ok in self.tried], "n_configs": self.n_configs,
                "n_pruned": self.n_pruned, "elapsed_s": self.elapsed_s}


def _units(model, hw, req, sched, rt, ttft_ms, tpot_ms):
    """Single-replica configs, the best variant per (tp, pp, cp, ep) by λ_sat, with λ_sat, and how
    many were pruned because a lone request misses the SLO."""
    space = serving_space(model, hw, req, single_replica=True)
    sat, _, ttft1, tpot1 = saturation_rps(model, hw, space, req, sched, rt)
    alone_ok = (sat > 0) & (ttft1 <= (ttft_ms or np.inf) * 1e6) & (tpot1 <= (tpot_ms or np.inf) * 1e6)
    keys = np.stack([space.tp, space.pp, space.cp, space.ep], axis=1)
    best: dict = {}
    for i in np.flatnonzero(alone_ok):
        k = tuple(keys[i])
        if k not in best or sat[i] > sat[best[k]]:
            best[k] = i
    idx = np.asarray(sorted(best.values()), dtype=np.int64)
    return space.take(idx), sat[idx], int((sat > 0).sum() - alone_ok.sum())


def capacity_search(model: ModelSpec, hw: HardwareSpec, traffic: Traffic, ttft_ms=None, tpot_ms=None,
                    percentile: float = 99, runtime=None, scheduler: Scheduler | None = None,
                    max_replicas: int = 4096, n_per_replica: int = SAMPLE_REQUESTS) -> CapacityResult:
    """The fewest PEs serving ``traffic`` (its rate is the target) at the percentile SLO (see the
    module docstring)."""
    t0 = time.perf_counter()
    ttft_ms, tpot_ms = limit_ms("ttft_ms", ttft_ms), limit_ms("tpot_ms", tpot_ms)
    require(0 < percentile < 100, f"percentile must be in (0, 100), got {percentile!r}")
    require(traffic.arrival in ("poisson", "gamma"), "capacity_search needs poisson or gamma arrivals at a rate")
    sched, rt = scheduler or Scheduler(), get_runtime(runtime)
    req = mean_request(traffic)
    units, sat, pruned = _units(model, hw, req, sched, rt, ttft_ms, tpot_ms)
    r_min = np.maximum(np.ceil(traffic.rate_rps / np.maximum(sat, 1e-30)), 1).astype(np.int64)
    bound = r_min * units.pes
    best, tried = None, []
    for i in np.argsort(bound, kind="stable"):
        if best is not None and bound[i] >= best.pes or r_min[i] > max_replicas:
            break
        par, pes1 = units.config(int(i)), int(units.pes[i])
        cap_r = max_replicas if best is None else min(max_replicas, (best.pes - 1) // pes1)
        plan = _fewest_replicas(model, hw, par, traffic, int(r_min[i]), cap_r, float(sat[i]), pes1,
                                (ttft_ms, tpot_ms, percentile), rt, sched, n_per_replica, tried)
        if plan is not None and (best is None or plan.pes < best.pes):
            best = plan
    return CapacityResult(model=model.name, hardware=hw.name, rate_rps=float(traffic.rate_rps),
                          percentile=percentile, ttft_limit_ms=ttft_ms, tpot_limit_ms=tpot_ms, best=best,
                          tried=tried, n_configs=len(units) + pruned, n_pruned=pruned,
                          elapsed_s=time.perf_counter() - t0)


def _fewest_replicas(model, hw, par, traffic, r_lo, r_cap, sat1, pes1, slo, rt, sched, n_rep, tried):
    """Smallest R in [r_lo, r_cap] meeting the SLO: R = r_lo, then growing steps, then bisection."""
    ttft_ms, tpot_ms, q = slo
    memo: dict = {}

    def check(r: int):
        if r not in memo:
            res = simulate_traffic(model, hw, par, _replica_traffic(traffic, r, n_rep), rt, sched)
            ok, ttft, tpot = _meets(res, ttft_ms, tpot_ms, q)
            memo[r] = (ok, CapacityPlan(par, r, r * pes1, ttft, tpot, r * sat1))
            tried.append((memo[r][1], ok))
        return memo[r]

    if r_lo > r_cap:
        return None
    lo, step = r_lo, 1
    if check(lo)[0]:
        return memo[lo][1]
    hi = lo + step
    while hi <= r_cap and not check(hi)[0]:
        lo, step = hi, step * 2
        hi = lo + step
    if hi > r_cap:
        hi = r_cap
        if hi <= lo or not check(hi)[0]:
            return None
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if check(mid)[0] else (mid, hi)
    return memo[hi][1]


__all__ = ["max_rate", "capacity_search", "saturation_rps", "MaxRate", "CapacityResult", "CapacityPlan"]
