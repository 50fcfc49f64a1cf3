"""The answer first: the recommended hardware, what it costs, what limits it, and the next lever —
the largest of every hardware and software lever at it (:mod:`.levers`), in words.

The recommended pair is :attr:`~infersim.codesign.auto_hardware.JointResult.pick`: the cheapest
design whose objective is within the run's tolerance (default 1%) of the best, and the answer says
what the best costs. ``two_stage`` is not a search: its answer is labelled a memory-first pick
(the base hardware with autosuggest's memory-minimum parallelism).
"""
from __future__ import annotations

import math

from infersim.codesign.levers import next_levers
from infersim.cost import BOUND_GROUPS
from infersim.report.fmt import fmt_price, fmt_time, fmt_usd  # noqa: F401  (re-exported for the CLI)
from infersim.search.objectives import get_objective
from infersim.simulate import simulate

#: Column headers of the six knobs with their units: HBM per PE; link GB/s per PE per direction
#: (tables say so in their title, :data:`UNITS_TEXT`); TFLOPS dense bf16 per PE.
SHORT = {"pe_hbm_gb": "HBM GB", "bw_hbm_gbs": "HBM GB/s", "peak_tflops_f16": "TFLOPS dense",
         "bw_intra_gbs": "intra GB/s", "bw_inter_gbs": "inter GB/s",
         "bw_intersip_gbs": "SiP GB/s"}
UNITS_TEXT = "HBM per PE; link GB/s per PE per direction; TFLOPS dense bf16 per PE"


def hardware_phrase(knobs: dict) -> str:
    """A design's six knobs in words with units, one phrase for every front end: ``HBM 96 GB at
    4,000 GB/s, fp16 1,000 TFLOPS, links 600 / 200 / 50 GB/s (intra-cube / inter-cube /
    inter-SiP)`` (per PE; link bandwidth per direction; dense fp16/bf16); other keys (topology
    overrides) are appended."""
    k = knobs
    text = (f"HBM {k['pe_hbm_gb']:,g} GB at {k['bw_hbm_gbs']:,g} GB/s, fp16 {k['peak_tflops_f16']:,g} TFLOPS, "
            f"links {k['bw_intra_gbs']:,g} / {k['bw_inter_gbs']:,g} / {k['bw_intersip_gbs']:,g} GB/s "
            "(intra-cube / inter-cube / inter-SiP)")
    extra = [f"{n.replace('_', ' ')} {v}" for n, v in k.items() if n not in SHORT and v is not None]
    return text + (f", {', '.join(extra)}" if extra else "")


MIN_LEVER_GAIN = 0.005     # below +0.5% a lever is not worth naming
COST_SCORE_TEXT = ("cost_score = the sum over the six knobs of knob / generic-SiP default (6.0 at the "
                   "defaults): a capability score per PE, not dollars (capex is in $)")
#: Overhead components in words a newcomer follows.
OVERHEAD_WORDS = {"kernel_gaps": "gaps between kernels",
                  "kernel_floor": "each kernel's fill and drain",
                  "host_launch": "host launching kernels", "step_fixed": "host work per step",
                  "seq_host": "host work per sequence"}
BOUND_WORDS = {"overhead": "per-kernel and software overhead (time the device is not computing or moving data "
                           "at full rate)",
               "memory": "memory bandwidth (reading weights and KV cache from HBM)",
               "compute": "compute", "comm": "communication between PEs"}


def _lever_dict(lv) -> dict | None:
    if lv is None:
        return None
    return {"name": lv.name, "kind": lv.kind, "action": lv.action, "gain": lv.gain, "value": lv.value,
            "elasticity": lv.elasticity, "capex_usd_per_pe": lv.capex_usd_per_pe,
            "knob": lv.name.split(" ")[0] if lv.kind == "hardware" else None}


def _alternative(res) -> dict | None:
    """What the best-objective pair costs more than the pick (None when the pick is the best)."""
    p, b = res.pick, res.best
    if p is b:
        return None
    return {"objective_value": b.objective_value, "latency_ms": b.total_latency_ns / 1e6,
            "system_cost_usd": b.system_cost_usd, "extra_cost": b.system_cost_usd / p.system_cost_usd - 1}


def _requirement(res) -> dict | None:
    reqs = [q for q in res.requirements if q.multiplier is not None]
    if not res.requirements:
        return None
    best = min(reqs, key=lambda q: q.multiplier, default=None)
    c = res.combination
    return {"target_value": res.target_value, "single": None if best is None else vars(best),
            "unreachable": [q.knob for q in res.requirements if q.multiplier is None],
            "combination": None if c is None else vars(c)}


def answer(res) -> dict:
    """A :class:`~infersim.codesign.auto_hardware.JointResult`'s recommendation as a plain dict."""
    b, ctx = res.pick, res.context
    sim = simulate(ctx.model, b.hw.to_hardware(ctx.base_hw), b.par, res.workload, ctx.runtime)
    total = sim.total_latency_ns
    shares = {g: sum(sim.breakdown_ns[c] for c in cs) / total for g, cs in BOUND_GROUPS.items()}
    overhead = {c: sim.breakdown_ns[c] / total for c in BOUND_GROUPS["overhead"]}
    top, other = next_levers(res.levers, MIN_LEVER_GAIN)
    mtok = b.tco_usd_per_h / (b.tokens_per_s * 3600.0) * 1e6
    return {
        "objective": res.objective, "objective_value": b.objective_value,
        "policy": "memory-first pick (not a search)" if res.depth == "two_stage" else "search",
        "tolerance": res.tolerance, "fastest": _alternative(res),
        "hardware": {**b.hw.knobs(), **{k: v for k, v in zip(
            ("pes_per_cube", "cubes_per_sip", "n_sips"), b.hw.topology_of(ctx.base_hw))}},
        "parallelism": f"{b.par.describe()} {b.par.kv_shard_mode}/{b.par.ffn_shard_scope}",
        "pes": b.pes, "latency_ms": b.total_latency_ns / 1e6, "tokens_per_s": b.tokens_per_s,
        "tokens_per_s_per_pe": b.tokens_per_s_per_pe,
        "system_cost_usd": b.system_cost_usd, "system_power_w": b.system_power_w,
        "tco_usd_per_h": b.tco_usd_per_h, "usd_per_mtok": mtok if math.isfinite(mtok) else None,
        "bound": sim.bound, "bound_share": shares.get(sim.bound, math.nan), "overhead_shares": overhead,
        "next_lever": _lever_dict(top), "other_lever": _lever_dict(other),
        "what_it_takes": _requirement(res),
    }


def fmt_objective(objective: str, v: float) -> str:
    if objective == "latency":
        return fmt_time(v)
    obj = get_objective(objective)
    return f"{v:,.3g} {obj.label}" if abs(v) < 100 else f"{v:,.0f} {obj.label}"


def _gain_text(objective: str, lever: dict) -> str:
    obj = get_objective(objective)
    if obj.maximise:
        return f"{100 * lever['gain']:+.1f}% {obj.label}"
    return f"{100 * (1 - 1 / (1 + lever['gain'])):.1f}% lower latency"


def lever_text(objective: str, lever: dict) -> str:
    """"cut the gap between kernels (3,306 -> 1,653 ns per kernel): 21% lower latency"."""
    cost = ""
    if lever["kind"] == "hardware" and math.isfinite(lever["capex_usd_per_pe"]):
        cost = f", {lever['capex_usd_per_pe']:+,.0f} $ per PE"
    return (f"{lever['action']}: {_gain_text(objective, lever)} "
            f"({fmt_objective(objective, lever['value'])}{cost})")


def _why(ans: dict) -> str:
    words = BOUND_WORDS.get(ans["bound"], ans["bound"])
    why = f"Limited by {words}: {100 * ans['bound_share']:.0f}% of the step"
    if ans["bound"] == "overhead":
        parts = sorted(ans["overhead_shares"].items(), key=lambda kv: -kv[1])
        named = [f"{OVERHEAD_WORDS.get(c, c)} {100 * s:.0f}%" for c, s in parts if s >= 0.05]
        if named:
            why += f" ({', '.join(named)})"
    return why


def answer_lines(ans: dict) -> tuple[str, str]:
    """The two answer lines: what to build (and what it costs, and what the best would cost);
    what limits it and the next lever (the largest of hardware and software), then the best lever
    of the other kind."""
    hw = ans["hardware"]
    knobs = hardware_phrase({k: hw[k] for k in SHORT})
    size = f"{hw['pes_per_cube']}x{hw['cubes_per_sip']}x{hw['n_sips']}"
    mtok = f", {fmt_price(ans['usd_per_mtok'])}/M tok" if ans["usd_per_mtok"] is not None else ""
    pes = f"{ans['pes']} PE" + ("s" if ans["pes"] != 1 else "")
    label = "Answer (memory-first pick, not a search):" if ans["policy"] != "search" else "Answer:"
    first = (f"{label} {knobs}, {size} PEs; {ans['parallelism']} on {pes}: "
             f"{fmt_time(ans['latency_ms'] * 1e6)}, {ans['tokens_per_s']:,.0f} tok/s "
             f"({ans['tokens_per_s_per_pe']:,.1f}/PE); {fmt_usd(ans['system_cost_usd'])} capex, "
             f"{ans['system_power_w'] / 1e3:,.2f} kW, ${ans['tco_usd_per_h']:,.2f}/h{mtok}")
    f = ans["fastest"]
    if f is not None:
        best = "the fastest" if ans["objective"] == "latency" else f"the best ({ans['objective']})"
        first += (f"; the cheapest within {100 * ans['tolerance']:g}% of the best: {best}, "
                  f"{fmt_objective(ans['objective'], f['objective_value'])}, costs "
                  f"{100 * f['extra_cost']:.0f}% more ({fmt_usd(f['system_cost_usd'])})")
    lever, other = ans["next_lever"], ans["other_lever"]
    if lever is None:
        nxt = "no lever, hardware or software, gains more than 0.5%"
    else:
        nxt = f"next lever ({lever['kind']}): {lever_text(ans['objective'], lever)}"
        if other is not None:
            nxt += f"; best {other['kind']} lever: {lever_text(ans['objective'], other)}"
        else:
            nxt += f"; no {'software' if lever['kind'] == 'hardware' else 'hardware'} lever gains more than 0.5%"
    return first, f"{_why(ans)}. {nxt[0].upper()}{nxt[1:]}"


def requirement_line(ans: dict) -> str | None:
    """"What it takes" in one line: the single knob that reaches the target with the smallest
    multiple, or that none does and the pair of knobs that does (if any)."""
    w = ans.get("what_it_takes")
    if not w:
        return None
    tgt = fmt_objective(ans["objective"], w["target_value"])
    s, c = w["single"], w["combination"]
    if s is not None:
        return (f"What it takes to reach {tgt}: {s['knob']} x{s['multiplier']:.2f} alone "
                f"({s['knob_value']:,.4g}, reaches {fmt_objective(ans['objective'], s['reached_value'])})")
    line = f"What it takes to reach {tgt}: no hardware knob alone reaches it within x16"
    if c is not None:
        a, b = c["knob"].split("+")
        return line + (f"; {a} and {b} together x{c['multiplier']:.2f} do "
                       f"({fmt_objective(ans['objective'], c['reached_value'])})")
    return line + ", nor any two together: the rest of the step is outside these knobs (see the levers)"
