"""Pins for the Compare tab: plain dicts built from any tab's result, with what Compare shows
(latency, throughput, memory, breakdown, cost) and what "open in Simulate" needs to restore
the configuration (parallelism, hardware knobs and system size, workload)."""
from __future__ import annotations

import math

from infersim import HardwareSpec, ModelSpec, Parallelism, Workload, simulate
from infersim.codesign.answer import hardware_phrase
from infersim.codesign.economics import hardware_economics
from infersim.presets.hardware_presets import HW_PRESETS
from infersim.ui.inputs import EDITED, renamed


def capex_per_pe(hw: HardwareSpec, base_hw: HardwareSpec | None = None) -> float:
    """Capex of one PE from the sourced cost model, anchored on the preset's published price."""
    preset = hw.name.split(EDITED)[0]        # an edited spec is anchored on its preset's price
    anchor = base_hw or (HW_PRESETS[preset] if preset in HW_PRESETS else hw)
    return hardware_economics(hw, anchor)["capex_usd"]


def par_text(par: Parallelism) -> str:
    extra = [par.kv_shard_mode, par.ffn_shard_scope]
    if par.cp > 1:
        extra.append(par.cp_ring_variant or "default ring")
    return f"{par.describe()} ({'/'.join(extra)})"


def wl_dict(wl: Workload) -> dict:
    return {"mode": wl.mode, "s_kv": wl.s_kv, "batch": wl.batch, "s_q": wl.s_q}


def wl_text(wl: dict) -> str:
    sq = f", s_q {wl['s_q']:,}" if wl.get("s_q") else ""
    return f"{wl['mode']} {wl['s_kv']:,} tok, batch {wl['batch']}{sq}"


def from_sim(source: str, r, hw: HardwareSpec, base_hw: HardwareSpec | None = None, **extra) -> dict:
    """A pin from a :class:`~infersim.simulate.SimResult` on ``hw``; ``extra`` overrides fields
    (serving pins put TTFT, TPOT and the deployment's tokens/s there)."""
    fits = bool(r.fits)
    pin = {
        "source": source, "label": f"{source}: {r.par.describe()} on {hw.name}",
        "model": r.model, "hardware": hw.name, "parallelism": par_text(r.par), "par": r.par.to_dict(),
        "workload": wl_dict(r.workload), "runtime": r.runtime,
        "latency_ms": r.total_latency_ns / 1e6,
        "tok_s": r.tokens_per_s if fits else math.nan,           # a config that cannot run has no speed
        "tok_s_per_pe": r.tokens_per_s_per_pe if fits else math.nan,
        "pes": int(r.pes_used), "mem_gb": r.mem_per_pe_bytes / 1e9, "usable_gb": r.mem_capacity_bytes / 1e9,
        "fits": fits, "bound": r.bound, "breakdown_ns": dict(r.breakdown_ns),
        "mem_parts": dict(r.mem_breakdown_bytes),
        "capex_usd": capex_per_pe(hw, base_hw) * r.pes_used,
        "hw_base": (base_hw or hw).name, "hw_knobs": hw.knobs(),
        "hw_topology": {k: getattr(hw, k) for k in ("pes_per_cube", "cubes_per_sip", "n_sips")},
        "ttft_ms": math.nan, "tpot_ms": math.nan,
    }
    pin.update(extra)
    return pin


def from_serving(source: str, model: ModelSpec, hw: HardwareSpec, base_hw: HardwareSpec, runtime: str,
                 par: Parallelism, batch: int, request, metrics: dict, label: str) -> dict:
    """A pin for a serving deployment: its decode step at the mean context gives the breakdown
    and memory; TTFT, TPOT and tokens/s are the deployment's (``metrics``)."""
    wl = Workload("decode", s_kv=request.isl + max(request.osl // 2, 1), batch=int(batch))
    r = simulate(model, hw, par, wl, runtime=runtime)
    return from_sim(source, r, hw, base_hw, label=f"{source}: {label} on {hw.name}",
                    latency_ms=metrics["tpot_ms"], tok_s=metrics["tok_s"],
                    tok_s_per_pe=metrics["tok_s_per_pe"], pes=int(metrics["pes"]),
                    capex_usd=capex_per_pe(hw, base_hw) * int(metrics["pes"]),
                    ttft_ms=metrics["ttft_ms"], tpot_ms=metrics["tpot_ms"])



def from_sla_design(source: str, model: ModelSpec, base_hw: HardwareSpec, runtime: str, request,
                    design, preset: HardwareSpec | None = None) -> dict:
    """A pin for a design of an SLA co-design that meets the SLA (a ``ServingDesign``): its
    hardware built on ``base_hw``, its deployment's decode step at the mean context, TTFT, TPOT,
    tokens/s and the deployment's capex (the co-design's own numbers)."""
    p = design.point
    knobs = hardware_phrase(design.hw.knobs())
    hw = design.hw.to_hardware(base_hw)
    if preset is not None:      # named for its edits (never a preset's bare name for an edited spec)
        hw = renamed(hw, preset)
    pin = from_serving(source, model, hw, base_hw, runtime, p.par, p.batch, request, p.to_dict(), "")
    return {**pin, "label": f"{source}: {p.par.describe()} batch {p.batch} on {knobs}",
            "capex_usd": design.capex_usd}
