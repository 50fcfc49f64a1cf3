"""Benchmark: the request-level traffic simulator and capacity planning.

    python bench/bench_traffic.py

Prints wall time and peak RSS for (1) 10,000 Poisson requests (2048 in / 512 out) through
Llama 3.1 70B on TP8 (8x H100), cold (including the step-grid evaluation) and warm; (2) a sweep of
20 rates; (3) the capacity search for 70B on 8x H100 at 20 req/s, p99 TTFT <= 1 s, p99 TPOT <= 50 ms.
Targets: (1) < 1 s, (3) < 10 s.
"""
from __future__ import annotations

import time

import numpy as np
from _cases import peak_rss_mb

from infersim import Parallelism
from infersim.hardware_presets import HW_PRESETS
from infersim.model_presets import PRESETS
from infersim.serving import Traffic, capacity_search, simulate_traffic
from infersim.serving.load import _table


def main() -> None:
    model, hw = PRESETS["Llama 3.1 70B"].model, HW_PRESETS["H100-SXM x8"]
    par = Parallelism(tp=8)
    tr = Traffic(rate_rps=5, n_requests=10_000, isl=2048, osl=512)
    _table.cache_clear()
    t0 = time.perf_counter()
    r = simulate_traffic(model, hw, par, tr)
    cold = time.perf_counter() - t0
    t0 = time.perf_counter()
    simulate_traffic(model, hw, par, tr)
    warm = time.perf_counter() - t0
    print(f"10,000 requests, 70B TP8 on {hw.name} at 5 req/s: cold {cold:.3f} s (with the step grid), warm "
          f"{warm:.3f} s; p99 TTFT {r.percentile_ms('ttft', 99):,.0f} ms, p99 TPOT {r.percentile_ms('tpot', 99):.1f} ms; "
          f"peak RSS {peak_rss_mb():,.0f} MB")
    rates = np.linspace(0.5, 6.5, 20)
    t0 = time.perf_counter()
    for rate in rates:
        simulate_traffic(model, hw, par, Traffic(rate_rps=float(rate), n_requests=2000))
    print(f"rate sweep, 20 rates x 2,000 requests: {time.perf_counter() - t0:.2f} s")
    _table.cache_clear()
    t0 = time.perf_counter()
    c = capacity_search(model, hw, Traffic(rate_rps=20, n_requests=1000), ttft_ms=1000, tpot_ms=50)
    print(f"capacity search (cold): {time.perf_counter() - t0:.2f} s, {len(c.tried)} deployments simulated; "
          f"{c.answer()}")
    print(f"peak RSS {peak_rss_mb():,.0f} MB")


if __name__ == "__main__":
    main()
