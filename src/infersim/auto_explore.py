"""Parallelism explorer: evaluate the FULL parallelism space of one hardware in vectorized chunks.

Pipeline (cheap rejections first, as DESIGN.md §4 asks): the space is built already divisible
and de-duplicated (:mod:`infersim.space`); :func:`infersim.cost.prepare` computes memory per PE
with the rest of the configuration terms; configs that do not fit are dropped before the
knob-dependent evaluation; the survivors are ranked by the objective:

* ``latency``            step latency, lowest first;
* ``throughput``         tokens/s of the whole workload batch = batch·T / latency, highest first;
* ``throughput_per_pe``  tokens/s divided by the PEs the config uses, highest first.

Ties are broken by fewer PEs, then lower memory per PE.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable

import numpy as np

from . import cost
from .errors import InferSimError, choice
from .hardware import HardwareSpec
from .model import ModelSpec
from .parallel import ParArrays, Parallelism
from .simulate import SimResult, simulate
from .space import SpaceCounts, parallelism_space
from .workload import Workload

OBJECTIVES = ("latency", "throughput", "throughput_per_pe")
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
    mem_per_pe_bytes: np.ndarray
    pes: np.ndarray
    counts: SpaceCounts
    n_fitting: int
    elapsed_s: float
    best_result: SimResult | None

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
        return self.workload.tokens / (self.latency_ns * 1e-9)

    @property
    def evals_per_s(self) -> float:
        return self.n_valid / self.elapsed_s if self.elapsed_s > 0 else float("inf")

    def rows(self, top: int | None = None) -> list[dict]:
        """The ranked configs as plain dicts (table, CSV and JSON output)."""
        n = len(self.configs) if top is None else min(top, len(self.configs))
        tps = self.tokens_per_s
        out = []
        for i in range(n):
            p = self.configs.config(i)
            out.append({"rank": i + 1, **p.to_dict(), "pes": int(self.pes[i]),
                        "latency_ms": float(self.latency_ns[i]) / 1e6,
                        "tokens_per_s": float(tps[i]), "tokens_per_s_per_pe": float(tps[i] / self.pes[i]),
                        "mem_per_pe_gb": float(self.mem_per_pe_bytes[i]) / 1e9})
        return out


def objective_score(objective: str, latency_ns: np.ndarray, pes: np.ndarray) -> np.ndarray:
    """Lower is better for every objective (throughputs enter negated)."""
    if objective == "latency":
        return latency_ns
    thr = 1.0 / latency_ns
    return -(thr / pes if objective == "throughput_per_pe" else thr)


def rank_order(objective: str, latency_ns, pes, mem) -> np.ndarray:
    return np.lexsort((mem, pes, objective_score(objective, latency_ns, pes)))


def evaluate_space(model: ModelSpec, hw: HardwareSpec, wl: Workload, chunk: int = CHUNK,
                   progress: Callable[[int, int], None] | None = None):
    """Every valid config: (configs, latency_ns with NaN where memory does not fit, mem, counts)."""
    space, counts = parallelism_space(model, hw, wl)
    n = len(space)
    lat = np.full(n, np.nan)
    mem = np.empty(n)
    for start in range(0, n, chunk):
        stop = min(n, start + chunk)
        part = space if (start, stop) == (0, n) else space.take(slice(start, stop))
        terms = cost.prepare(model, hw, part, wl)
        mem[start:stop] = terms.mem_bytes
        fit = terms.fits(hw.pe_hbm_gb)
        n_fit = int(fit.sum())
        if n_fit > (stop - start) // 2:
            # mostly fitting: costing the few misfits is cheaper than copying the terms
            t = cost.evaluate(terms, breakdown=False)["total_ns"]
            lat[start:stop] = np.where(fit, t, np.nan)
        elif n_fit:
            idx = np.flatnonzero(fit)
            lat[start + idx] = cost.evaluate(terms.take(idx), breakdown=False)["total_ns"]
        if progress:
            progress(stop, n)
    return space, lat, mem, counts


def auto_explore(model: ModelSpec, hw: HardwareSpec, workload: Workload, objective: str = "latency",
                 top: int | None = None, chunk: int = CHUNK,
                 progress: Callable[[int, int], None] | None = None,
                 with_best_result: bool = True) -> ExploreResult:
    """Search the full parallelism space of ``hw``; return the fitting configs ranked best-first.

    ``top`` keeps only the best ``top`` configs in the result (counts still cover everything)."""
    choice("objective", objective, OBJECTIVES)
    if top is not None and top < 1:
        raise InferSimError(f"top must be >= 1, got {top}")
    t0 = time.perf_counter()
    space, lat, mem, counts = evaluate_space(model, hw, workload, chunk, progress)
    fit = np.flatnonzero(~np.isnan(lat))
    pes = space.pes[fit]
    order = fit[rank_order(objective, lat[fit], pes, mem[fit])]
    if top is not None:
        order = order[:top]
    elapsed = time.perf_counter() - t0
    configs = space.take(order)
    best = None
    if with_best_result and len(order):
        best = simulate(model, hw, configs.config(0), workload)
    return ExploreResult(model=model.name, hardware=hw.name, workload=workload, objective=objective,
                         configs=configs, latency_ns=lat[order], mem_per_pe_bytes=mem[order],
                         pes=space.pes[order], counts=counts, n_fitting=len(fit),
                         elapsed_s=elapsed, best_result=best)
