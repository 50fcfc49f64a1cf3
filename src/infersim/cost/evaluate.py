"""Stage 2 of the cost model: latencies from the terms and the hardware knobs."""
from __future__ import annotations

import numpy as np

from ..hardware import HardwareSpec
from .terms import COMM_COMPONENTS, COMPONENTS, Terms


def knob_values(hw: HardwareSpec, knobs: dict | None = None) -> dict:
    """The six knobs of ``hw``, overridden by ``knobs`` (scalars or arrays over candidates)."""
    vals = hw.knobs()
    if knobs:
        vals.update(knobs)
    return vals


def evaluate(terms: Terms, knobs: dict | None = None, breakdown: bool = True) -> dict:
    """Stage 2: latency (ns) of every config for the given knob values.

    Returns ``total_ns``, ``fits`` and, with ``breakdown``, one array per component in
    :data:`COMPONENTS` (they sum to ``total_ns``) and ``op_times_ns`` (each operator's roofline
    time, launch overhead excluded). Knob arrays of shape ``(H, 1)`` give ``(H, N)`` results."""
    hw = terms.hw
    k = knob_values(hw, knobs)
    flops_per_ns = np.asarray(k["peak_tflops_f16"]) * 1e3
    bw = np.asarray(k["bw_hbm_gbs"])
    bws = (k["bw_intra_gbs"], k["bw_inter_gbs"], k["bw_intersip_gbs"])
    alphas = hw.link_alpha_ns()

    compute = hbm = 0.0
    attn_t = None
    op_times = {}
    for i, op in enumerate(terms.ops):
        tc = op.f / flops_per_ns
        tm = op.m / bw
        if i == terms.attn_index:
            attn_t = np.maximum(tc, tm)
        if breakdown:
            c_dom = tc >= tm
            compute = compute + np.where(c_dom, tc, 0.0) * op.mult
            hbm = hbm + np.where(c_dom, 0.0, tm) * op.mult
            op_times[op.name] = np.maximum(tc, tm) * op.mult
        else:
            compute = compute + np.maximum(tc, tm) * op.mult

    step = terms.ring_step.time_ns(bws, alphas, hw.link_eff)
    ring = terms.ring_mult * np.maximum(0.0, step - attn_t / terms.cp)
    fits = terms.fits(np.asarray(k["pe_hbm_gb"]))

    if not breakdown:
        total = compute + terms.overhead_ns + ring + terms.comm_total.time_ns(bws, alphas, hw.link_eff)
        return {"total_ns": total, "fits": fits}
    out = {"compute": compute, "hbm": hbm, "overhead": terms.overhead_ns + 0.0 * bw}
    for name in COMM_COMPONENTS:
        out[name] = terms.comms[name].time_ns(bws, alphas, hw.link_eff)
    out["cp_ring"] = ring
    total = 0.0
    for name in COMPONENTS:
        total = total + out[name]
    out["total_ns"] = total
    out["fits"] = fits
    out["op_times_ns"] = op_times
    return out


def bound_of(result: dict) -> np.ndarray:
    """'compute', 'memory' or 'comm': which of the three sums dominates each config."""
    comm = sum(result[c] for c in COMM_COMPONENTS) + result["cp_ring"]
    stacked = np.stack(np.broadcast_arrays(result["compute"], result["hbm"], comm))
    return np.array(["compute", "memory", "comm"])[np.argmax(stacked, axis=0)]
