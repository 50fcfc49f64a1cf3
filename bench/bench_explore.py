"""Benchmark: full-space parallelism search for one hardware (prints wall time and configs/s).

    python bench/bench_explore.py

Two figures per workload: the explorer end to end (space, memory pruning, cost, ranking; warm
cache), and the raw cost-model rate on a large array (the space repeated), which is what the
co-design sweep scales with.
"""
from __future__ import annotations

import time

import numpy as np

from infersim import Workload, cost
from infersim.auto_explore import CHUNK, auto_explore
from infersim.hardware_presets import HW_PRESETS
from infersim.model_presets import PRESETS
from infersim.search.space import parallelism_space
from infersim.specs.parallel import concat


def best_of(fn, repeat=7):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main() -> None:
    model = PRESETS["Llama 3.1 70B"].model
    hw = HW_PRESETS["Generic SiP (default)"]
    for wl in (Workload("decode", s_kv=131072), Workload("prefill", s_kv=32768),
               Workload("decode", s_kv=131072, batch=8)):
        auto_explore(model, hw, wl)                              # warm the space cache
        t = best_of(lambda: auto_explore(model, hw, wl, with_best_result=False))
        space, counts = parallelism_space(model, hw, wl)
        big = concat([space] * max(1, 200_000 // len(space)))
        n = len(big)

        def raw_rate():
            for s in range(0, n, CHUNK):
                idx = np.arange(s, min(n, s + CHUNK))
                cost.evaluate(cost.prepare(model, hw, big.take(idx), wl), breakdown=False)

        t_raw = best_of(raw_rate, repeat=3)
        print(f"{wl.mode:7s} s_kv={wl.s_kv:6d} batch={wl.batch}: full space {counts.valid} configs "
              f"({counts.raw} enumerated) in {t * 1e3:.2f} ms = {counts.valid / t:,.0f} configs/s; "
              f"cost model on {n:,} configs: {n / t_raw:,.0f} evals/s")


if __name__ == "__main__":
    main()
