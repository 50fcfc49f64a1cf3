"""Benchmark: hardware co-design sweep, Llama 3.1 70B decode at 128K (prints wall time, pairs
searched per second, pairs costed after pruning, peak traced memory).

    python bench/bench_codesign.py [--depth balanced coarse] [--objective latency tok_s_per_usd]

Every candidate searches the FULL parallelism space (exactly: the bound-pruned search returns the
same picks as costing every pair). "searched" counts the fitting (candidate, config) pairs,
"costed" the ones actually evaluated. Wall times are the median of ``--repeat`` runs of
``joint_explore`` with its defaults: the sweep, the cost model, sensitivity (x2 and x0.5 per knob,
re-searched), every software lever (runtime overheads x0.5/x2, each runtime profile, fp8, speculative
decoding, batch) and "what it takes" (with the two-knob combination when no knob alone reaches it). Memory is measured in one extra run under tracemalloc (which
slows it, so it is not timed). Target: coarse (729 candidates) < 0.5 s.
"""
from __future__ import annotations

import argparse
import resource
import statistics
import time
import tracemalloc

from infersim.auto_hardware import joint_explore
from infersim.model_presets import PRESETS


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--depth", nargs="+", default=["balanced", "coarse"])
    ap.add_argument("--objective", nargs="+", default=["latency", "tok_s_per_usd"])
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    model = PRESETS["Llama 3.1 70B"].model
    joint_explore(model, depth="two_stage")                      # warm caches and imports
    for objective in args.objective:
        for depth in args.depth:
            runs = []
            for _ in range(args.repeat):
                t0 = time.perf_counter()
                r = joint_explore(model, s_kv=131072, mode="decode", depth=depth, objective=objective)
                runs.append((time.perf_counter() - t0, r.elapsed_s, r.sensitivity_s))
            wall, sweep, sens = (statistics.median(x) for x in zip(*runs))
            tracemalloc.start()
            joint_explore(model, s_kv=131072, mode="decode", depth=depth, objective=objective)
            peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
            print(f"{depth:9s} {objective:14s}: {r.n_hardware} hardware x {r.n_parallel} configs, "
                  f"{r.total_joint:,} fitting pairs searched, {r.n_evals:,} costed; wall {wall:.3f} s "
                  f"(sweep {sweep:.3f} s + levers/what-it-takes {sens:.3f} s; median of "
                  f"{args.repeat}) = {r.total_joint / sweep:,.0f} pairs searched/s; "
                  f"peak traced memory {peak / 2**20:.0f} MiB")
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"process peak RSS {rss:.0f} MiB")


if __name__ == "__main__":
    main()
