"""Serving under traffic: requests replayed through the scheduler of every replica of a deployment,
with per-request TTFT, TPOT, ITL, end-to-end and queueing delay, their percentiles, throughput and
goodput (``simulate_traffic``).

A deployment ``par`` with ``dp`` replicas serves the traffic split round-robin over its replicas
(request i goes to replica i mod dp), each replica an independent engine
(:class:`~infersim.serving.scheduler.ReplicaSim`) whose step times come from one grid evaluation of
the cost model (:func:`~infersim.serving.step_grid.step_table`, memoised per deployment).

Definitions (as vLLM's ``benchmark_serving`` reports them): TTFT = first token − arrival;
TPOT = (e2e − TTFT) / (osl − 1); ITL = the gaps between a request's tokens (percentiles over all
tokens); queueing delay = first scheduled − arrival; throughput = output tokens / (last finish −
first arrival); goodput = requests meeting the SLO per second over the same span. Little's law
holds for the run: mean requests in the system (integrated over time by the event loop) =
arrival rate × mean time in the system.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from infersim.errors import require
from infersim.presets.runtime_presets import get_runtime
from infersim.serving.scheduler import ReplicaSim, Scheduler
from infersim.serving.step_grid import step_table
from infersim.serving.traffic import Traffic
from infersim.specs.hardware import HardwareSpec
from infersim.specs.model import ModelSpec
from infersim.specs.parallel import Parallelism
from infersim.specs.workload import Workload

METRICS = ("ttft", "tpot", "e2e", "queue", "itl")
PERCENTILES = (50, 90, 99)


@lru_cache(maxsize=64)
def _table(model, hw, par, rt, max_seqs, max_ctx, budget, ref_len):
    return step_table(model, hw, par, rt, max_seqs, max_ctx, budget, ref_len)


def deployment_table(model: ModelSpec, hw: HardwareSpec, par: Parallelism, runtime, sched: Scheduler,
                     max_ctx: int, ref_len: int):
    """The step table of one replica of ``par`` (memoised: a rate sweep evaluates the cost model
    once). The context grid spans the next power of two above ``max_ctx``."""
    ctx = 1 << max(int(max_ctx - 1).bit_length(), 1)
    budget = max(sched.max_num_batched_tokens, ref_len) if sched.policy == "static" else sched.max_num_batched_tokens
    return _table(model, hw, par, get_runtime(runtime), sched.max_num_seqs, ctx, budget, int(ref_len))


def _wpercentile(values: np.ndarray, weights: np.ndarray, q: float) -> float:
    """Weighted percentile (the value below which q % of the weight lies)."""
    if not len(values):
        return float("nan")
    order = np.argsort(values)
    cw = np.cumsum(weights[order])
    return float(values[order][min(np.searchsorted(cw, q / 100.0 * cw[-1]), len(cw) - 1)])


@dataclass(frozen=True)
class TrafficResult:
    """Per-request latencies (ns arrays), the ITL samples, the timelines and the summary."""

    model: str
    hardware: str
    par: Parallelism
    runtime: str
    scheduler: Scheduler
    traffic: Traffic
    arrival_ns: np.ndarray
    isl: np.ndarray
    osl: np.ndarray
    queue_ns: np.ndarray
    ttft_ns: np.ndarray
    tpot_ns: np.ndarray
    e2e_ns: np.ndarray
    preemptions: np.ndarray
    replica: np.ndarray
    itl_ns: np.ndarray = field(repr=False)
    itl_weight: np.ndarray = field(repr=False)
    timeline: dict = field(repr=False)           # t_ns, waiting, running, kv_tokens, tokens, replica
    mean_in_system: float = 0.0                  # time-averaged requests in the system (per deployment)
    kv_capacity_tokens: int = 0                  # per replica
    preempt_log: tuple = field(default=(), repr=False)
    elapsed_s: float = 0.0

    @property
    def n(self) -> int:
        return len(self.isl)

    @property
    def span_s(self) -> float:
        return float((np.max(self.arrival_ns + self.e2e_ns) - np.min(self.arrival_ns)) * 1e-9)

    @property
    def throughput_rps(self) -> float:
        return self.n / self.span_s

    @property
    def tok_s(self) -> float:
        """Output tokens per second over the run."""
        return float(self.osl.sum()) / self.span_s

    def steady_tok_s(self, lo: float = 0.2, hi: float = 0.8) -> float:
        """Output tokens/s between the ``lo`` and ``hi`` fractions of the run (excludes ramp-up
        and drain; per deployment: the replicas' rates summed)."""
        tl = self.timeline
        out = 0.0
        for r in np.unique(tl["replica"]):
            sel = tl["replica"] == r
            t, tok = tl["t_ns"][sel], tl["tokens"][sel]
            a, b = np.interp([lo * t[-1], hi * t[-1]], t, tok)
            out += (b - a) / ((hi - lo) * t[-1] * 1e-9)
        return float(out)

    def values_ms(self, metric: str) -> np.ndarray:
        require(metric in METRICS, f"unknown metric {metric!r}; valid: {', '.join(METRICS)}")
        if metric == "itl":
            return self.itl_ns / 1e6
        v = getattr(self, f"{metric}_ns") / 1e6
        return v[np.isfinite(v)]

    def percentile_ms(self, metric: str, q: float) -> float:
        """The q-th percentile of a metric in ms (ITL: over all tokens)."""
        if metric == "itl":
            return _wpercentile(self.itl_ns, self.itl_weight, q) / 1e6
        v = self.values_ms(metric)
        return float(np.percentile(v, q)) if len(v) else float("nan")

    def mean_ms(self, metric: str) -> float:
        if metric == "itl":
            w = self.itl_weight
            return float((self.itl_ns * w).sum() / w.sum()) / 1e6 if w.sum() else float("nan")
        v = self.values_ms(metric)
        return float(v.mean()) if len(v) else float("nan")

    def meets(self, ttft_ms: float | None = None, tpot_ms: float | None = None) -> np.ndarray:
        """Per request: TTFT and TPOT within the limits (a one-token request has no TPOT)."""
        ok = np.ones(self.n, dtype=bool)
        if ttft_ms is not None:
            ok &= self.ttft_ns <= ttft_ms * 1e6
        if tpot_ms is not None:
            ok &= ~(self.tpot_ns > tpot_ms * 1e6)
        return ok

    def goodput_rps(self, ttft_ms: float | None = None, tpot_ms: float | None = None) -> float:
        """Requests meeting the SLO per second."""
        return float(self.meets(ttft_ms, tpot_ms).sum()) / self.span_s

    def summary(self) -> dict:
        out = {"requests": self.n, "rate_rps": self.traffic.rate_rps, "span_s": self.span_s,
               "throughput_rps": self.throughput_rps, "tok_s": self.tok_s,
               "mean_in_system": self.mean_in_system, "preemptions": int(self.preemptions.sum()),
               "kv_capacity_tokens": self.kv_capacity_tokens}
        for m in METRICS:
            out[f"{m}_mean_ms"] = self.mean_ms(m)
            for q in PERCENTILES:
                out[f"{m}_p{q}_ms"] = self.percentile_ms(m, q)
        return out

    def to_dict(self) -> dict:
        return {"model": self.model, "hardware": self.hardware, "par": self.par.to_dict(),
                "runtime": self.runtime, "scheduler": vars(self.scheduler).copy(), **self.summary(),
                "elapsed_s": self.elapsed_s}

    def to_pandas(self, table: str = "requests"):
        """``requests`` (one row per request, ms) or ``timeline`` (queue, running, KV over time)."""
        from infersim.errors import choice
        from infersim.report.frames import columns_frame

        choice("table", table, ("requests", "timeline"))
        if table == "timeline":
            tl = self.timeline
            return columns_frame({"t_s": tl["t_ns"] * 1e-9, "replica": tl["replica"], "waiting": tl["waiting"],
                                  "running": tl["running"], "kv_tokens": tl["kv_tokens"],
                                  "kv_occupancy": tl["kv_tokens"] / max(self.kv_capacity_tokens, 1)})
        return columns_frame({"arrival_s": self.arrival_ns * 1e-9, "replica": self.replica, "isl": self.isl,
                              "osl": self.osl, "queue_ms": self.queue_ns / 1e6, "ttft_ms": self.ttft_ns / 1e6,
                              "tpot_ms": self.tpot_ns / 1e6, "e2e_ms": self.e2e_ns / 1e6,
                              "preemptions": self.preemptions})

    def to_parquet(self, path) -> str:
        from infersim.report.frames import to_parquet
        return to_parquet(self.to_pandas("requests"), path)

    def plot(self, kind: str = "cdf", ttft_ms: float | None = None, tpot_ms: float | None = None):
        """``cdf`` (TTFT and TPOT distributions with the SLO lines) or ``timeline`` (queue, batch
        and KV cache over time) as a Plotly figure."""
        from infersim.errors import choice
        from infersim.report import plots

        choice("kind", kind, ("cdf", "timeline"))
        return plots.traffic_cdf(self, ttft_ms, tpot_ms) if kind == "cdf" else plots.traffic_timeline(self)


def _merge(sims: list, dp: int, reqs) -> dict:
    """Per-request arrays in the traffic's order from the replicas' lists."""
    n = len(reqs)
    out = {k: np.empty(n) for k in ("arrival", "sched", "first", "done", "npre")}
    out["replica"] = np.arange(n) % dp
    for r, s in enumerate(sims):
        idx = np.arange(r, n, dp)
        for k, attr in (("arrival", "arr"), ("sched", "t_sched"), ("first", "t_first"), ("done", "t_done"),
                        ("npre", "npre")):
            out[k][idx] = getattr(s, attr)
    return out


def _timeline(sims: list) -> dict:
    cols = {"t_ns": "tl_t", "waiting": "tl_wait", "running": "tl_run", "kv_tokens": "tl_kv", "tokens": "tl_tok"}
    tl = {k: np.concatenate([np.asarray(getattr(s, a), dtype=float) for s in sims]) for k, a in cols.items()}
    tl["replica"] = np.concatenate([np.full(len(s.tl_t), r) for r, s in enumerate(sims)])
    return tl


def simulate_traffic(model: ModelSpec, hw: HardwareSpec, par: Parallelism, traffic: Traffic, runtime=None,
                     scheduler: Scheduler | None = None) -> TrafficResult:
    """Serve ``traffic`` on ``par`` (``dp`` replicas, round-robin) under ``scheduler`` (see the
    module docstring); deterministic in the traffic's seed."""
    t0 = time.perf_counter()
    sched = scheduler or Scheduler()
    rt = get_runtime(runtime)
    reqs = traffic.sample()
    n, dp = len(reqs), par.dp
    max_ctx = int((reqs.isl + reqs.osl).max())
    par.validate(model, hw, Workload("decode", s_kv=max_ctx, batch=max(dp, 1)))
    tb = deployment_table(model, hw, par, rt, sched, max_ctx, int(round(float((reqs.isl + reqs.osl).mean()))))
    cached = np.minimum(np.round(reqs.isl * traffic.prefix_hit).astype(np.int64), reqs.isl - 1)
    sims = []
    for r in range(dp):
        idx = np.arange(r, n, dp)
        conc = None if reqs.concurrency is None else max(1, (reqs.concurrency - r + dp - 1) // dp)
        sims.append(ReplicaSim(tb, sched, reqs.arrival_ns[idx], reqs.isl[idx], reqs.osl[idx], cached[idx],
                               conc).run())
    m = _merge(sims, dp, reqs)
    ttft, e2e = m["first"] - m["arrival"], m["done"] - m["arrival"]
    with np.errstate(invalid="ignore", divide="ignore"):
        tpot = np.where(reqs.osl > 1, (e2e - ttft) / (reqs.osl - 1), np.nan)
    span = float(np.max(m["done"]) - np.min(m["arrival"]))
    area = sum(s.area for s in sims)
    return TrafficResult(
        model=model.name, hardware=hw.name, par=par, runtime=rt.name, scheduler=sched, traffic=traffic,
        arrival_ns=m["arrival"], isl=reqs.isl, osl=reqs.osl, queue_ns=m["sched"] - m["arrival"],
        ttft_ns=ttft, tpot_ns=tpot, e2e_ns=e2e, preemptions=m["npre"].astype(np.int64), replica=m["replica"],
        itl_ns=np.concatenate([np.asarray(s.itl_v, dtype=float) for s in sims]),
        itl_weight=np.concatenate([np.asarray(s.itl_w, dtype=float) for s in sims]),
        timeline=_timeline(sims), mean_in_system=area / span if span > 0 else 0.0,
        kv_capacity_tokens=tb.kv_capacity_tokens, preempt_log=tuple(x for s in sims for x in s.preempt_log),
        elapsed_s=time.perf_counter() - t0)
