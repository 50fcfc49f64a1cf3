"""Benchmark: where users wait (issue #23's targets), printed in one run on this machine.

    python bench/bench_speed.py                      # every case, each in its own process
    python bench/bench_speed.py --case simulate      # one case in this process

Cases (each line states its target):

* ``machine``     what two processes get from this machine at once: a pure-Python loop and NumPy on
                  32 MB arrays, each run alone and then two side by side (the ceiling of any
                  2-worker speed-up here: memory-bound NumPy does not scale past the memory bus);
* ``simulate``    one ``simulate()`` call, Llama 3.1 70B TP8 decode on H100-SXM x8: median µs of
                  1,000 calls of one config, and of 1,000 distinct configs (batch × context
                  × TP vary, so no result can be reused) (target <= 300 µs);
* ``sla_balanced`` / ``sla_coarse``  ``codesign_sla`` for Llama 3.1 70B, 2048+512 tokens, TPOT <= 50 ms
                  at ``--depth balanced`` (64 candidates) and ``coarse`` (729): wall and the
                  process's peak RSS (targets: 2 s / 20 s, < 300 MB);
* ``sla_dask``    the coarse SLA co-design on a Dask ``LocalCluster`` of 2 single-thread worker
                  processes, cold (fresh workers) and warm, against the local wall, results checked
                  identical (target: local / Dask >= 1.6);
* ``grid1m``      the CLI on a 10^6-candidate grid (10 values per knob): wall and peak RSS of the
                  child process (targets: < 20 s, < 300 MB).
"""
from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time

from _cases import peak_rss_mb, run_cases

CASES = ("machine", "simulate", "sla_balanced", "sla_coarse", "sla_dask", "grid1m")


def _median_us(fn, args_list) -> float:
    for a in args_list[:20]:
        fn(*a)
    ts = []
    for a in args_list:
        t = time.perf_counter()
        fn(*a)
        ts.append(time.perf_counter() - t)
    return statistics.median(ts) * 1e6


def _loop_py() -> float:
    t, s = time.perf_counter(), 0
    for i in range(6_000_000):
        s += i
    return time.perf_counter() - t


def _loop_numpy() -> float:
    import numpy as np

    a, t = np.random.rand(4_000_000), time.perf_counter()
    for _ in range(200):
        a = a * 1.0001 + 0.1
    return time.perf_counter() - t


def case_machine() -> None:
    from concurrent.futures import ProcessPoolExecutor

    parts = []
    with ProcessPoolExecutor(2) as ex:
        for name, fn in (("pure Python", _loop_py), ("NumPy 32 MB arrays", _loop_numpy)):
            solo = ex.submit(fn).result()
            t0 = time.perf_counter()
            both = [f.result() for f in [ex.submit(fn), ex.submit(fn)]]
            parts.append(f"{name} x{2 * solo / (time.perf_counter() - t0):.2f}")
            del both
    print(f"machine: two processes at once give {', '.join(parts)} the work of one (2.00 = two free cores)")


def case_simulate() -> None:
    from infersim import Parallelism, Workload, simulate
    from infersim.hardware_presets import get_hardware
    from infersim.model_presets import get_model

    m, hw = get_model("Llama 3.1 70B"), get_hardware("H100-SXM x8")
    one = [(m, hw, Parallelism(tp=8), Workload(mode="decode", s_kv=4096, batch=16))] * 1000
    many = [(m, hw, Parallelism(tp=tp), Workload(mode="decode", s_kv=s, batch=b))
            for tp in (2, 4, 8) for s in (1024, 2048, 4096, 8192, 16384) for b in range(1, 68)][:1000]
    print(f"simulate: {_median_us(simulate, one):.0f} us/call one config, "
          f"{_median_us(simulate, many):.0f} us/call over {len(many)} distinct configs "
          f"(medians; target <= 300 us)")


def _sla(depth: str, executor=None):
    from infersim.codesign.sla import codesign_sla
    from infersim.model_presets import get_model
    from infersim.serving import Request

    t0 = time.perf_counter()
    r = codesign_sla(get_model("Llama 3.1 70B"), Request(2048, 512), tpot_ms=50, depth=depth, executor=executor)
    return r, time.perf_counter() - t0


def _key(r) -> list:
    return [(d.hw, d.point) for d in r.designs] + [(lv.name, lv.value) for lv in r.levers]


def case_sla(depth: str) -> None:
    r, wall = _sla(depth)
    target = {"balanced": 2.0, "coarse": 20.0}[depth]
    print(f"sla_{depth}: {len(r.designs)} candidates, {r.n_meeting} meet the SLA; wall {wall:.2f} s "
          f"(target {target:g} s); peak RSS {peak_rss_mb():.0f} MB (target < 300 MB)")


def case_sla_dask() -> None:
    from distributed import Client, LocalCluster

    _sla("balanced")                                     # warm this process's imports
    local, t_local = _sla("coarse")
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                      silence_logs=50) as cluster, Client(cluster) as client:
        cold, t_cold = _sla("coarse", client)
        warm, t_warm = _sla("coarse", client)
    same = all(_key(x) == _key(local) for x in (cold, warm))
    print(f"sla_dask: coarse SLA co-design local {t_local:.2f} s, Dask 2x1 cold {t_cold:.2f} s "
          f"(x{t_local / t_cold:.2f}), warm {t_warm:.2f} s (x{t_local / t_warm:.2f}; target >= 1.6); "
          f"identical results: {same}")


def case_grid1m() -> None:
    grid = ";".join(f"{k}={','.join(str(round(v * 8.0 ** (i / 9) / 2, 3)) for i in range(10))}"
                    for k, v in _base_knobs().items())
    cmd = [sys.executable, "-m", "infersim", "codesign", "--depth", "custom", "--grid", grid,
           "--max-candidates", "1000000", "--json"]
    t0 = time.perf_counter()
    out = subprocess.run(cmd, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - t0
    rss = peak_rss_mb(children=True)
    status = "ok" if out.returncode == 0 else f"exit {out.returncode}: {out.stderr.strip()[-200:]}"
    print(f"grid1m: CLI on 10^6 candidates {wall:.1f} s (target < 20 s), peak RSS {rss:.0f} MB "
          f"(target < 300 MB); {status}")


def _base_knobs() -> dict:
    from infersim.hardware_presets import GENERIC_SIP

    return GENERIC_SIP.knobs()


def run_case(case: str) -> None:
    if case == "machine":
        case_machine()
    elif case == "simulate":
        case_simulate()
    elif case in ("sla_balanced", "sla_coarse"):
        case_sla(case.removeprefix("sla_"))
    elif case == "sla_dask":
        case_sla_dask()
    elif case == "grid1m":
        case_grid1m()


def main() -> None:
    if "--case" not in sys.argv:
        print(f"{os.cpu_count()} CPUs")
    run_cases(__file__, CASES, run_case)


if __name__ == "__main__":
    main()
