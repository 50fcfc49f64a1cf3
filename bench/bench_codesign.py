"""Benchmark: hardware co-design sweep, Llama 3.1 70B decode at 128K (prints wall time, evals/s,
peak memory).

    python bench/bench_codesign.py [--depth balanced coarse]

Every candidate searches the FULL parallelism space. "evals" counts (hardware, parallelism)
pairs costed after memory pruning; "space" counts candidates x valid configs.
"""
from __future__ import annotations

import argparse
import resource
import time
import tracemalloc

from infersim.auto_hardware import joint_explore
from infersim.model_presets import PRESETS


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--depth", nargs="+", default=["balanced", "coarse"])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    model = PRESETS["Llama 3.1 70B"].model
    joint_explore(model, depth="two_stage")                      # warm caches and imports
    for depth in args.depth:
        best = None
        for _ in range(args.repeat):
            tracemalloc.start()
            t0 = time.perf_counter()
            r = joint_explore(model, s_kv=131072, mode="decode", depth=depth)
            wall = time.perf_counter() - t0
            peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
            if best is None or wall < best[0]:
                best = (wall, r, peak)
        wall, r, peak = best
        space = r.n_hardware * r.n_parallel
        print(f"{depth:9s}: {r.n_hardware} hardware x {r.n_parallel} configs = {space:,} pairs, "
              f"{r.n_evals:,} costed, {r.total_joint:,} fit; wall {wall:.3f} s "
              f"(sweep {r.elapsed_s:.3f} s + sensitivity {r.sensitivity_s:.3f} s) = "
              f"{r.n_evals / r.elapsed_s:,.0f} evals/s; peak traced memory {peak / 2**20:.0f} MiB")
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"process peak RSS {rss:.0f} MiB")


if __name__ == "__main__":
    main()
