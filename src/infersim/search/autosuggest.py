"""Memory-first parallelism suggestion.

``autosuggest`` returns the config with the smallest memory per PE that fits (ties: fewer PEs,
then lower latency) — the most headroom for longer contexts or larger batches — and, as a second
pick, the fewest PEs that fit (ties: lower latency), the cheapest footprint that serves the
workload at all.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from infersim.errors import InferSimError
from infersim.search.auto_explore import evaluate_space
from infersim.simulate import SimResult, simulate
from infersim.specs.hardware import HardwareSpec
from infersim.specs.model import ModelSpec
from infersim.specs.parallel import Parallelism
from infersim.specs.workload import Workload


@dataclass(frozen=True)
class Suggestion:
    par: Parallelism
    result: SimResult
    reason: str
    fewest_pes: Parallelism
    fewest_pes_result: SimResult
    fewest_pes_reason: str
    n_fitting: int


def autosuggest(model: ModelSpec, hw: HardwareSpec, workload: Workload, runtime=None) -> Suggestion:
    space, lat, _, mem, counts = evaluate_space(model, hw, workload, runtime=runtime)
    fit = np.flatnonzero(~np.isnan(lat))
    if not len(fit):
        raise InferSimError(
            f"no parallelism of {model.name} fits {hw.name} ({hw.n_pes} PEs x {hw.pe_hbm_gb:g} GB) "
            f"for {workload.mode} at s_kv={workload.s_kv}, batch={workload.batch}; "
            f"smallest need is {mem.min() / 1e9:.1f} GB per PE")
    pes = space.pes[fit]
    i_mem = fit[np.lexsort((lat[fit], pes, mem[fit]))[0]]
    i_pes = fit[np.lexsort((mem[fit], lat[fit], pes))[0]]
    p_mem, p_pes = space.config(int(i_mem)), space.config(int(i_pes))
    best = simulate(model, hw, p_mem, workload, runtime)
    cap = best.mem_capacity_bytes / 1e9
    reason = (f"smallest memory per PE that fits: {mem[i_mem] / 1e9:.2f} GB of {cap:.1f} GB usable "
              f"({100 * mem[i_mem] / 1e9 / cap:.0f}%) among {len(fit)} fitting configs")
    reason_pes = (f"fewest PEs that fit: {int(space.pes[i_pes])} PEs at "
                  f"{mem[i_pes] / 1e9:.2f} GB per PE, fastest such config")
    return Suggestion(par=p_mem, result=best, reason=reason,
                      fewest_pes=p_pes, fewest_pes_result=simulate(model, hw, p_pes, workload, runtime),
                      fewest_pes_reason=reason_pes, n_fitting=len(fit))


__all__ = ["Suggestion", "autosuggest"]
