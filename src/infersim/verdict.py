"""The answer first: one sentence of what a result is, one of what limits it and the next lever.

Ordered rules, the first that applies wins: a config that does not fit says so (and by how much);
otherwise the dominant share of the step is named with its top parts; then the lever — the one
hardware knob whose doubling saves the most time on this very config (re-costed, same
parallelism), or, when runtime overhead dominates, that the software stack is the lever. The
CLI, the UI and the JSON outputs all print these lines.
"""
from __future__ import annotations

import numpy as np

from infersim import cost
from infersim.presets.runtime_presets import get_runtime
from infersim.report.fmt import fmt_time
from infersim.simulate import SimResult
from infersim.specs.hardware import KNOBS, HardwareSpec
from infersim.specs.model import ModelSpec
from infersim.specs.parallel import ParArrays

KNOB_WORDS = {"pe_hbm_gb": "HBM capacity", "bw_hbm_gbs": "HBM bandwidth", "peak_tflops_f16": "peak FLOPs",
              "bw_intra_gbs": "intra-cube link bandwidth", "bw_inter_gbs": "inter-cube link bandwidth",
              "bw_intersip_gbs": "inter-SiP link bandwidth"}


def knob_gains(model: ModelSpec, hw: HardwareSpec, r: SimResult) -> dict[str, float]:
    """Fraction of the latency saved by doubling each knob alone (same config, re-costed)."""
    arrays = ParArrays.from_configs([r.par], r.workload)
    terms = cost.prepare(get_runtime(r.runtime_spec or r.runtime).model_for(model), hw, arrays, r.workload)
    base = hw.knobs()
    rows = np.array([[base[k] * (2.0 if k == knob else 1.0) for k in KNOBS] for knob in KNOBS])
    lat = cost.evaluate(terms, {k: rows[:, j][:, None] for j, k in enumerate(KNOBS)},
                        runtime=r.runtime_spec or r.runtime, breakdown=False)["total_ns"][:, 0]
    return {k: 1.0 - float(t) / r.total_latency_ns for k, t in zip(KNOBS, lat)}


def simulate_verdict(model: ModelSpec, hw: HardwareSpec, r: SimResult) -> list[str]:
    """Two lines: the answer (latency, config, memory) and what limits it with the next lever."""
    wl = r.workload
    what = f"{wl.mode} {wl.s_kv:,} tokens, batch {wl.batch}"
    mem = f"{r.mem_per_pe_bytes / 1e9:.1f}/{r.mem_capacity_bytes / 1e9:.1f} GB per PE"
    band = f" ({r.band.describe(r.total_latency_ns, fmt_time)})" if r.band else ""
    head = (f"{r.model} {what} on {r.hardware}: {fmt_time(r.total_latency_ns)}{band} "
            f"({r.tokens_per_s:,.0f} tok/s) with {r.par.describe()} ({r.pes_used} PEs), ")
    if not r.fits:
        return [head + f"does NOT fit: {mem}",
                "memory: more TP or PP (or a smaller dtype) spreads weights and KV over more PEs"]
    share = {g: sum(r.breakdown_ns[c] for c in comps) / r.total_latency_ns for g, comps in cost.BOUND_GROUPS.items()}
    top = sorted(((v, k) for k, v in r.breakdown_ns.items() if v > 0), reverse=True)[:2]
    parts = ", ".join(f"{k} {100 * v / r.total_latency_ns:.0f}%" for v, k in top)
    line = f"{r.bound}-bound ({100 * share[r.bound]:.0f}%: {parts})"
    if r.bound == "overhead":
        return [head + f"fits {mem}", line + f"; the lever is the software: the {r.runtime} runtime's "
                "per-kernel and per-step costs, or fewer, larger kernels (more batch per step)"]
    gains = knob_gains(model, hw, r)
    knob = max(gains, key=gains.get)
    lever = (f"doubling {KNOB_WORDS[knob]} saves {100 * gains[knob]:.0f}%" if gains[knob] > 0.005
             else "no single hardware knob helps by itself")
    return [head + f"fits {mem}", f"{line}; {lever}"]


def explore_verdict(res, least_memory=None) -> list[str]:
    """The explorer's answer: the best config by its objective, and the least-memory pick
    labelled as what it is."""
    if not len(res.configs):
        return [f"no parallelism of {res.model} fits {res.hardware} for this workload"]
    best = res.configs.config(0)
    obj = {"latency": fmt_time(res.latency_ns[0]),
           "throughput": f"{res.tokens_per_s[0]:,.0f} tok/s",
           "throughput_per_pe": f"{res.tokens_per_s[0] / res.pes[0]:,.1f} tok/s per PE"}[res.objective]
    lines = [f"best by {res.objective}: {best.describe()} ({int(res.pes[0])} PEs): {obj}, "
             f"{res.mem_per_pe_bytes[0] / 1e9:.1f} GB per PE — among {res.n_fitting:,} fitting of "
             f"{res.n_valid:,} configs"]
    if least_memory is not None:
        lines.append(f"least memory per PE: {least_memory.par.describe()} "
                     f"({least_memory.result.mem_per_pe_bytes / 1e9:.2f} GB per PE, "
                     f"{fmt_time(least_memory.result.total_latency_ns)}): the most headroom for "
                     "longer contexts or larger batches")
    return lines
