"""The answer first: the recommended hardware, what it costs, what limits it, what to buy next."""
from __future__ import annotations

import math

from infersim.cost import BOUND_GROUPS
from infersim.report.fmt import fmt_price, fmt_time, fmt_usd  # noqa: F401  (re-exported for the CLI)
from infersim.search.objectives import get_objective
from infersim.simulate import simulate

SHORT = {"pe_hbm_gb": "HBM GB", "bw_hbm_gbs": "HBM GB/s", "peak_tflops_f16": "TFLOPS",
         "bw_intra_gbs": "intra", "bw_inter_gbs": "inter", "bw_intersip_gbs": "SiP"}
MIN_LEVER_GAIN = 0.005     # below +0.5% a knob is not worth naming


def answer(res) -> dict:
    """A :class:`~infersim.codesign.auto_hardware.JointResult`'s recommendation as a plain dict."""
    b, ctx = res.best, res.context
    sim = simulate(ctx.model, b.hw.to_hardware(ctx.base_hw), b.par, res.workload, ctx.runtime)
    total = sim.total_latency_ns
    shares = {g: sum(sim.breakdown_ns[c] for c in cs) / total for g, cs in BOUND_GROUPS.items()}
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


def answer_lines(ans: dict) -> tuple[str, str]:
    """The two answer lines: what to build (and what it costs), what limits it and what next."""
    hw = ans["hardware"]
    knobs = ", ".join(f"{SHORT[k]} {hw[k]:g}" for k in SHORT)
    size = f"{hw['pes_per_cube']}x{hw['cubes_per_sip']}x{hw['n_sips']}"
    mtok = f", {fmt_price(ans['usd_per_mtok'])}/M tok" if ans["usd_per_mtok"] is not None else ""
    pes = f"{ans['pes']} PE" + ("s" if ans["pes"] != 1 else "")
    first = (f"Answer: {knobs} ({size} PEs); {ans['parallelism']} on {pes}: "
             f"{fmt_time(ans['latency_ms'] * 1e6)}, {ans['tokens_per_s']:,.0f} tok/s "
             f"({ans['tokens_per_s_per_pe']:,.1f}/PE); {fmt_usd(ans['system_cost_usd'])} capex, "
             f"{ans['system_power_w'] / 1e3:,.2f} kW, ${ans['tco_usd_per_h']:,.2f}/h{mtok}")
    lever = ans["next_lever"]
    if lever is not None:
        obj = get_objective(ans["objective"])
        gain = (f"{100 * (1 - 1 / (1 + lever['gain'])):.1f}% lower latency" if not obj.maximise
                else f"{100 * lever['gain']:+.1f}% {obj.label}")
        nxt = (f"next lever: double {lever['knob']} ({gain}, elasticity {lever['elasticity']:.2f}, "
               f"{lever['capex_usd_per_pe']:+,.0f} $ per PE)")
    else:
        nxt = "no single knob doubled gains more than 0.5%"
    second = f"Limited by {ans['bound']} ({100 * ans['bound_share']:.0f}% of the step); {nxt}"
    return first, second

