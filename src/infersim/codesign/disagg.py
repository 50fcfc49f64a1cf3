"""Different hardware for the prefill and the decode pools of a disaggregated deployment: which
prefill part and which decode part serve a request shape within the SLA for the most of the
objective.

For every candidate of the grid, both pools are priced with the serving model's own rows
(:mod:`infersim.serving.sla`, no new step formula):

* a **prefill instance** (config × prompts per step) serves R_p = b_p / period_p requests/s; its
  TTFT is its prefill latency plus the KV transfer to the decode part, which crosses the scale-out
  network (two different parts never share a scale-up domain):
  t_kv = kv_cache_bytes(isl) / (PEs_p · min(scale-out GB/s of the two parts) · link_eff_intersip) + α;
* a **decode instance** (config × sequences) serves R_d = b_d / (osl · TPOT) requests/s.

Pools scale independently (as many instances of each as the traffic needs), so per request the
deployment spends ``PEs_p · c_p / R_p + PEs_d · c_d / R_d`` of a per-PE-second cost c (dollars of
TCO, watts, or PEs), and

    tok/$ = osl · 3600 / Σ_pools (PEs · TCO $ per PE-hour / R),   tok/s/W and tok/s/PE alike.

Per pair (prefill part, decode part) the cheapest instance of each pool meeting its limit is taken
(the prefill one per pair: the transfer depends on both parts). The pair maximising the objective
is the answer; the same-part pairs are the aggregated-hardware baseline of the comparison.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from infersim.codesign.economics import Economics, pe_economics
from infersim.codesign.types import HardwareCandidate, candidate_rows
from infersim.errors import choice, require
from infersim.presets.runtime_presets import get_runtime
from infersim.serving import Request
from infersim.serving.model import evaluate_serving
from infersim.serving.sla import DEFAULT_BATCH_CAP, _prefill_candidates, limit_ms, serving_rows

#: Objective → the per-PE cost a pool pays per second of service (array of the candidates).
COSTS = {"tok_s_per_usd": "usd_per_h", "tok_s_per_w": "system_w", "throughput_per_pe": None}


@dataclass(frozen=True)
class PoolPair:
    """The best prefill part and decode part (indices into ``candidates``) and their instances."""

    prefill_hw: HardwareCandidate
    decode_hw: HardwareCandidate
    prefill_par: str
    prefill_batch: int
    prefill_pes: int
    decode_par: str
    decode_batch: int
    decode_pes: int
    ttft_ms: float
    tpot_ms: float
    kv_transfer_ms: float
    objective: str
    value: float
    same_part_value: float           # the best pair with one part for both pools

    @property
    def gain_over_same_part(self) -> float:
        return self.value / self.same_part_value - 1 if self.same_part_value > 0 else math.inf


def _pools(model, hw, request, rt, ttft_ms, tpot_ms):
    """(prefill: latency ns, PEs, requests/ns; decode: PEs, requests/ns, TPOT ns, rows) of one part."""
    p_rows, p_lat, p_period = _prefill_candidates(model, hw, request, rt)
    keep = p_lat <= (ttft_ms or np.inf) * 1e6
    pre = (p_rows.take(np.flatnonzero(keep)), p_lat[keep], p_rows.pes[keep], p_rows.batch[keep] / p_period[keep])
    rows = serving_rows(model, hw, request, DEFAULT_BATCH_CAP, rt)[0]
    d = evaluate_serving(model, hw, rows, rows.batch, request, rt, "static")
    ok = d["fits"] & (d["decode_ns"] <= (tpot_ms or np.inf) * 1e6)
    d_rows = rows.take(np.flatnonzero(ok))
    dec = (d_rows, d_rows.pes, d_rows.batch / (request.osl * d["decode_ns"][ok]), d["decode_ns"][ok])
    return pre, dec


def codesign_pools(model, request: Request, candidates: list[HardwareCandidate], base_hw,
                   ttft_ms=None, tpot_ms=None, objective: str = "tok_s_per_usd", runtime=None,
                   economics: Economics | None = None) -> PoolPair | None:
    """The (prefill part, decode part) pair of ``candidates`` (see the module); None when no pair
    meets the SLA."""
    choice("objective", objective, tuple(COSTS))
    require(isinstance(request, Request), f"request must be a Request, got {type(request).__name__}")
    ttft_ms, tpot_ms = limit_ms("ttft_ms", ttft_ms), limit_ms("tpot_ms", tpot_ms)
    rt = get_runtime(runtime)
    knobs, topo = candidate_rows(candidates, base_hw)
    pe = pe_economics(knobs, topo, base_hw, economics)
    cost = np.ones(len(candidates)) if COSTS[objective] is None else getattr(pe, COSTS[objective])
    hws = [c.to_hardware(base_hw) for c in candidates]
    pools = [_pools(model, hw, request, rt, ttft_ms, tpot_ms) for hw in hws]
    kv_bytes = float(model.kv_cache_bytes(request.isl))
    best_dec = []
    for j, (_, (rows, pes, rate, tpot)) in enumerate(pools):     # decode: no partner dependence
        per_req = pes * cost[j] / rate if len(rows) else np.array([np.inf])
        k = int(np.argmin(per_req))
        best_dec.append((float(per_req[k]), k))
    best, same = None, 0.0
    for i, ((p_rows, lat, p_pes, p_rate), _) in enumerate(pools):
        if not len(p_rows):
            continue
        per_req_p = p_pes * cost[i] / p_rate
        for j, (per_req_d, k) in enumerate(best_dec):
            if not math.isfinite(per_req_d):
                continue
            hw_i, hw_j = hws[i], hws[j]
            bw = min(hw_i.bw_intersip_gbs, hw_j.bw_intersip_gbs) * hw_i.link_eff_intersip
            t_kv = kv_bytes / (p_pes * bw) + max(hw_i.alpha_intersip_ns, hw_j.alpha_intersip_ns)
            ok = lat + t_kv <= (ttft_ms or np.inf) * 1e6
            if not ok.any():
                continue
            m = int(np.flatnonzero(ok)[np.argmin(per_req_p[ok])])
            value = request.osl / (per_req_p[m] + per_req_d)       # tokens per (cost·ns)
            if i == j:
                same = max(same, value)
            if best is None or value > best[0]:
                best = (value, i, j, m, k, float(t_kv[m]))
    if best is None:
        return None
    value, i, j, m, k, t_kv = best
    scale = _unit_scale(objective)
    p_rows, lat = pools[i][0][0], pools[i][0][1]
    d_rows, tpot = pools[j][1][0], pools[j][1][3]
    return PoolPair(candidates[i], candidates[j], p_rows.config(m).describe(), int(p_rows.batch[m]),
                    int(p_rows.pes[m]), d_rows.config(k).describe(), int(d_rows.batch[k]),
                    int(d_rows.pes[k]), (float(lat[m]) + t_kv) / 1e6, float(tpot[k]) / 1e6, t_kv / 1e6,
                    objective, value * scale, same * scale)


def _unit_scale(objective: str) -> float:
    """tokens per (cost · ns) → the objective's unit: cost per hour ($) → tok/$; W → tok/s/W; PE → tok/s/PE."""
    return 3600e9 if objective == "tok_s_per_usd" else 1e9
