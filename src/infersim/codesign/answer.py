"""The answer first: the recommended hardware, what it costs, what limits it, what to buy next."""
from __future__ import annotations

import math

from ..cost import COMM_COMPONENTS
from ..simulate import simulate

#: How ``simulate``'s breakdown components group into the four bounds of ``cost.bound_of``.
GROUPS = {"compute": ("compute",), "memory": ("hbm",), "comm": COMM_COMPONENTS + ("cp_ring",),
          "overhead": ("kernel_gaps", "host_launch", "step_fixed", "kernel_floor")}
MIN_LEVER_GAIN = 0.005     # below +0.5% a knob is not worth naming


def answer(res) -> dict:
    """A :class:`~infersim.auto_hardware.JointResult`'s recommendation as a plain dict."""
    b, ctx = res.best, res.context
    sim = simulate(ctx.model, b.hw.to_hardware(ctx.base_hw), b.par, res.workload, ctx.runtime)
    total = sim.total_latency_ns
    shares = {g: sum(sim.breakdown_ns[c] for c in cs) / total for g, cs in GROUPS.items()}
    lever = next((r for r in res.sensitivity if r.rel_speedup > MIN_LEVER_GAIN), None)
    mtok = b.tco_usd_per_h / (b.tokens_per_s * 3600.0) * 1e6
    return {
        "objective": res.objective, "objective_value": b.objective_value,
        "hardware": {**b.hw.knobs(), **{k: v for k, v in zip(
            ("pes_per_cube", "cubes_per_sip", "n_sips"), b.hw.topology_of(ctx.base_hw))}},
        "parallelism": f"{b.par.describe()} {b.par.kv_shard_mode}/{b.par.ffn_shard_scope}",
        "pes": b.pes, "latency_ms": b.total_latency_ns / 1e6, "tokens_per_s": b.tokens_per_s,
        "tokens_per_s_per_pe": b.tokens_per_s_per_pe,
        "system_cost_usd": b.system_cost_usd, "system_power_w": b.system_power_w,
        "tco_usd_per_h": b.tco_usd_per_h, "usd_per_mtok": mtok if math.isfinite(mtok) else None,
        "bound": sim.bound, "bound_share": shares.get(sim.bound, math.nan),
        "next_lever": None if lever is None else {
            "knob": lever.knob, "gain": lever.rel_speedup, "elasticity": lever.elasticity,
            "capex_usd_per_pe": lever.doubled_capex_usd_per_pe},
    }
