"""Parallelism explorer: evaluate the FULL parallelism space of one hardware in vectorized chunks.

Pipeline (cheap rejections first, as DESIGN.md §4 asks): the space is built already divisible
and de-duplicated (:mod:`infersim.search.space`); :func:`infersim.cost.prepare` computes memory per PE
with the rest of the configuration terms; configs that do not fit are dropped before the
knob-dependent evaluation; the survivors are ranked by the objective:

* ``latency``            latency (decode: time per token; prefill: time to process the batch),
                         lowest first;
* ``throughput``         steady-state tokens/s of the whole workload batch = batch·T / period,
                         highest first (pipeline micro-batches raise it without changing latency);
* ``throughput_per_pe``  tokens/s divided by the PEs the config uses, highest first;
* ``tok_s_per_usd``, ``tok_s_per_w``  tokens per dollar / per joule: on one hardware the cost
                         and power per PE are constant, so they rank like ``throughput_per_pe``.

The objectives live in one registry (:mod:`infersim.search.objectives`). Ties are broken by lower
latency, fewer PEs, then lower memory per PE.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable

import numpy as np

from infersim import cost
from infersim.errors import InferSimError, choice
from infersim.presets.runtime_presets import get_runtime
from infersim.search.objectives import OBJECTIVES as _REGISTRY
from infersim.search.space import SpaceCounts, parallelism_space
from infersim.simulate import SimResult, simulate
from infersim.specs.hardware import HardwareSpec
from infersim.specs.model import ModelSpec
from infersim.specs.parallel import Parallelism, ParArrays
from infersim.specs.workload import Workload

OBJECTIVES = tuple(_REGISTRY.names())
CHUNK = 16384   # configs per vectorized call: fits the temporaries in cache (measured best of 1K-64K)


@dataclass(frozen=True)
class ExploreResult:
    """Fitting configs sorted best-first by ``objective`` (arrays aligned with ``configs``)."""

    model: str
    hardware: str
    workload: Workload
    objective: str
    configs: ParArrays
    latency_ns: np.ndarray
    period_ns: np.ndarray
    mem_per_pe_bytes: np.ndarray
    pes: np.ndarray
    counts: SpaceCounts
    n_fitting: int
    elapsed_s: float
    best_result: SimResult | None
    runtime: str = "cuda-graphs"

    @property
    def n_enumerated(self) -> int:
        return self.counts.raw

    @property
    def n_valid(self) -> int:
        return self.counts.valid

    @property
    def best(self) -> Parallelism | None:
        return self.configs.config(0) if len(self.configs) else None

    @property
    def tokens_per_s(self) -> np.ndarray:
        return self.workload.tokens / (self.period_ns * 1e-9)

    @property
    def evals_per_s(self) -> float:
        return self.n_valid / self.elapsed_s if self.elapsed_s > 0 else float("inf")

    def to_pandas(self):
        """Every fitting config, ranked: one column per knob, then pes, latency_ms, period_ms,
        tokens_per_s, tokens_per_s_per_pe, mem_per_pe_gb."""
        from infersim.report.frames import columns_frame

        cols = {"rank": np.arange(1, len(self.configs) + 1), **self.configs.columns(), "pes": self.pes,
                "latency_ms": self.latency_ns / 1e6, "period_ms": self.period_ns / 1e6,
                "tokens_per_s": self.tokens_per_s, "tokens_per_s_per_pe": self.tokens_per_s / self.pes,
                "mem_per_pe_gb": self.mem_per_pe_bytes / 1e9}
        return columns_frame(cols)

    def to_parquet(self, path) -> str:
        from infersim.report.frames import to_parquet
        return to_parquet(self.to_pandas(), path)

    def plot(self, **kw):
        """Latency against PEs used, every fitting config (``picks``: configs to ring)."""
        from infersim.report.plots import explore_scatter
        return explore_scatter(self.to_pandas(), **kw)

    def rows(self, top: int | None = None) -> list[dict]:
        """The ranked configs as plain dicts (table, CSV and JSON output)."""
        n = len(self.configs) if top is None else min(top, len(self.configs))
        tps = self.tokens_per_s
        out = []
        for i in range(n):
            p = self.configs.config(i)
            out.append({"rank": i + 1, **p.to_dict(), "pes": int(self.pes[i]),
                        "latency_ms": float(self.latency_ns[i]) / 1e6,
                        "period_ms": float(self.period_ns[i]) / 1e6,
                        "tokens_per_s": float(tps[i]), "tokens_per_s_per_pe": float(tps[i] / self.pes[i]),
                        "mem_per_pe_gb": float(self.mem_per_pe_bytes[i]) / 1e9})
        return out


def objective_score(objective: str, latency_ns: np.ndarray, pes: np.ndarray,
                    period_ns: np.ndarray | None = None) -> np.ndarray:
    """Lower is better for every objective (throughputs enter negated); throughput is one batch
    per period (the latency when no period is given). The formula is the objective's
    ``config_score`` (:mod:`infersim.search.objectives`)."""
    choice("objective", objective, OBJECTIVES)
    return _REGISTRY[objective].config_score(latency_ns, latency_ns if period_ns is None else period_ns,
                                             pes)


def rank_order(objective: str, latency_ns, pes, mem, period_ns=None) -> np.ndarray:
    score = objective_score(objective, latency_ns, pes, period_ns)
    return np.lexsort((mem, pes, latency_ns, score))


def evaluate_space(model: ModelSpec, hw: HardwareSpec, wl: Workload, chunk: int = CHUNK,
                   progress: Callable[[int, int], None] | None = None, runtime=None):
    """Every valid config: (configs, latency_ns and period_ns with NaN where memory does not
    fit, mem, counts)."""
    if isinstance(chunk, bool) or not isinstance(chunk, (int, np.integer)) or chunk < 1:
        raise InferSimError(f"chunk must be an integer >= 1 (configs per vectorized call), got {chunk!r}")
    space, counts = parallelism_space(model, hw, wl)
    n = len(space)
    lat, period = np.full(n, np.nan), np.full(n, np.nan)
    mem = np.empty(n)
    for start in range(0, n, chunk):
        stop = min(n, start + chunk)
        part = space if (start, stop) == (0, n) else space.take(slice(start, stop))
        terms = cost.prepare(model, hw, part, wl)
        mem[start:stop] = terms.mem_bytes
        fit = terms.fits(hw.pe_hbm_gb, runtime)
        n_fit = int(fit.sum())
        if n_fit > (stop - start) // 2:
            # mostly fitting: costing the few misfits is cheaper than copying the terms
            r = cost.evaluate(terms, runtime=runtime, breakdown=False)
            lat[start:stop] = np.where(fit, r["total_ns"], np.nan)
            period[start:stop] = np.where(fit, r["period_ns"], np.nan)
        elif n_fit:
            idx = np.flatnonzero(fit)
            r = cost.evaluate(terms.take(idx), runtime=runtime, breakdown=False)
            lat[start + idx], period[start + idx] = r["total_ns"], r["period_ns"]
        if progress:
            progress(stop, n)
    return space, lat, period, mem, counts


def auto_explore(model: ModelSpec, hw: HardwareSpec, workload: Workload, objective: str = "latency",
                 top: int | None = None, chunk: int = CHUNK,
                 progress: Callable[[int, int], None] | None = None,
                 with_best_result: bool = True, runtime=None) -> ExploreResult:
    """Search the full parallelism space of ``hw``; return the fitting configs ranked best-first.

    ``top`` keeps only the best ``top`` configs in the result (counts still cover everything);
    ``runtime`` is a name, a :class:`~infersim.specs.runtime.Runtime` or None (the default)."""
    choice("objective", objective, OBJECTIVES)
    if top is not None and (isinstance(top, bool) or not isinstance(top, (int, np.integer)) or top < 1):
        raise InferSimError(f"top must be an integer >= 1, got {top!r}")
    rt = get_runtime(runtime)
    model = rt.model_for(model)
    t0 = time.perf_counter()
    space, lat, period, mem, counts = evaluate_space(model, hw, workload, chunk, progress, rt)
    fit = np.flatnonzero(~np.isnan(lat))
    pes = space.pes[fit]
    order = fit[rank_order(objective, lat[fit], pes, mem[fit], period[fit])]
    if top is not None:
        order = order[:top]
    elapsed = time.perf_counter() - t0
    configs = space.take(order)
    best = None
    if with_best_result and len(order):
        best = simulate(model, hw, configs.config(0), workload, runtime=rt)
    return ExploreResult(model=model.name, hardware=hw.name, workload=workload, objective=objective,
                         configs=configs, latency_ns=lat[order], period_ns=period[order],
                         mem_per_pe_bytes=mem[order], pes=space.pes[order], counts=counts,
                         n_fitting=len(fit), elapsed_s=elapsed, best_result=best, runtime=rt.name)


__all__ = ["OBJECTIVES", "CHUNK", "ExploreResult", "objective_score", "rank_order", "evaluate_space",
           "auto_explore"]
