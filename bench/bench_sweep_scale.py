"""Benchmark: co-design sweeps at scale (issue #11 targets), Llama 3.1 70B decode at 128K, batch 1.

    python bench/bench_sweep_scale.py                 # every case, each in its own process
    python bench/bench_sweep_scale.py --case grid1m   # one case in this process

Cases (each prints wall time, candidates/s, progress calls and the process's peak RSS):

* ``local15k``  5^6 = 15,625 candidates (0.5x..2x of each knob), single process;
* ``dask15k``   the same grid on a Dask ``LocalCluster`` of 2 single-thread worker processes,
                timed cold (first sweep: workers import infersim and build the static terms) and
                warm (15 runs alternating with local ones), checked identical to the local
                result; prints the median ratio dask / local (target <= 0.9);
* ``grid1m``    10^6 candidates (10 values per knob), keep="best" (targets: < 45 s, < 500 MB RSS).
"""
from __future__ import annotations

import inspect
import time

import numpy as np
from _cases import peak_rss_mb, run_cases

from infersim.auto_hardware import joint_explore
from infersim.codesign.grid import MAX_CANDIDATES_LIMIT
from infersim.hardware_presets import GENERIC_SIP
from infersim.model_presets import PRESETS
from infersim.specs.hardware import KNOBS

MODEL = PRESETS["Llama 3.1 70B"].model
CASES = ("local15k", "dask15k", "grid1m")
REPEAT = 5
PAIRED = 15


def grid(n_values: int) -> dict[str, list[float]]:
    base = GENERIC_SIP.knobs()
    mult = np.geomspace(0.5, 2.0, n_values) if n_values <= 5 else np.geomspace(0.5, 4.0, n_values)
    return {k: [round(float(base[k] * m), 3) for m in mult] for k in KNOBS}


def sweep(custom, **kw):
    calls = []
    if "max_candidates" in inspect.signature(joint_explore).parameters:
        kw["max_candidates"] = MAX_CANDIDATES_LIMIT          # the grid1m case is 10^6, the most a sweep runs
    t0 = time.perf_counter()
    r = joint_explore(MODEL, s_kv=131072, depth="custom", custom=custom, sensitivity=False,
                      progress=lambda done, total: calls.append(done), **kw)
    return r, time.perf_counter() - t0, len(calls)


def summary(r) -> list:
    return [(s.hw, s.par, s.total_latency_ns) for s in r.all_scores]


def run_case(case: str) -> None:
    if case == "local15k":
        sweep(grid(2))                                        # warm imports and caches
        runs = [sweep(grid(5)) for _ in range(REPEAT)]
        r, _, calls = runs[0]
        wall = float(np.median([t for _, t, _ in runs]))
        print(f"local15k: {r.n_hardware:,} candidates in {wall:.3f} s (median of {REPEAT}) "
              f"({r.n_hardware / wall:,.0f} cand/s, {r.n_evals / wall:,.0f} evals/s), "
              f"{calls} progress calls; peak RSS {peak_rss_mb():.0f} MB")
    elif case == "dask15k":
        distributed = __import__("distributed")
        sweep(grid(2))
        local, _, _ = sweep(grid(5))
        with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                      dashboard_address=None) as cluster, \
                distributed.Client(cluster) as client:
            cold = sweep(grid(5), executor=client)
            pairs = []                       # alternate local / dask: drift hits both alike
            for _ in range(PAIRED):
                t_l = sweep(grid(5))[1]
                r, t_d, calls = sweep(grid(5), executor=client)
                pairs.append((t_l, t_d, r))
        same = all(summary(r) == summary(local) for r in [cold[0]] + [p[2] for p in pairs])
        t_local = float(np.median([p[0] for p in pairs]))
        t_warm = float(np.median([p[1] for p in pairs]))
        ratio = float(np.median([p[1] / p[0] for p in pairs]))
        print(f"dask15k: local {t_local:.3f} s, dask 2x1 warm {t_warm:.3f} s (medians of {PAIRED} "
              f"alternating runs; median ratio dask/local {ratio:.2f}); cold {cold[1]:.3f} s "
              f"({cold[1] / t_local:.2f}x: workers import infersim and build the static terms); "
              f"{calls} progress calls; identical results: {same}")
    elif case == "grid1m":
        r, wall, calls = sweep(grid(10))
        b = r.all_scores[0]
        print(f"grid1m: {r.n_hardware:,} candidates, {r.n_evals:,} pairs costed in {wall:.1f} s "
              f"({r.n_hardware / wall:,.0f} cand/s), {calls} progress calls, "
              f"best {b.total_latency_ns / 1e6:.3f} ms; peak RSS {peak_rss_mb():.0f} MB")


def main() -> None:
    run_cases(__file__, CASES, run_case)


if __name__ == "__main__":
    main()
