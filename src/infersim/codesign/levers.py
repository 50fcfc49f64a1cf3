"""Every lever at a design point, hardware and software, on one scale: the objective's gain.

A *lever* is one change an architect or a software team can make. Each is measured the same way
as the hardware sensitivity (:mod:`.sensitivity`): the run's objective at the design point with the
change applied, parallelism re-searched under the same policy, and ``gain`` = the objective's
relative improvement (latency: before/after − 1; higher-is-better objectives: after/before − 1).

* **hardware** — each of the six knobs ×2 (the sensitivity rows), and the scale-up domain ×2
  (``pes_per_cube`` doubled, ``cubes_per_sip`` halved: the same PEs, a larger NVLink-class
  domain).
* **software** — the runtime's overheads (:mod:`infersim.specs.runtime`), each ×0.5 and ×2 with
  its elasticity, the lever being ×0.5: the per-kernel gap (``kernel_gap_ns``), launches per layer
  (``launch_multiplier``: fusion), per-step host time (``step_fixed_ns``) and, where the step is
  not graph-captured, the host's per-kernel launch cost. Values are clipped to the runtime's
  physical bounds (:data:`~infersim.specs.runtime.BOUNDS`; launches never go below the cost model's
  fused count, 1.0), and the table states the value actually costed. Then: switching to each
  other runtime profile (``--runtime``; the mega-kernel and dataflow scenarios among them),
  weights or KV cache in fp8, speculative decoding (EAGLE, k = 3, the published acceptance rate:
  t_token = t_step / E, :mod:`infersim.serving.speculative`, at the design point's parallelism) and,
  for throughput objectives, twice the batch.

``elasticity`` of a software overhead = d ln(goodness) / d ln(1/overhead), the arc between the
×2 and ×0.5 values actually costed: 1.0 means halving the overhead doubles the objective.
The answer's next lever is the argmax of ``gain`` over all levers (:func:`next_levers`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from infersim.codesign.economics import Economics, pe_economics
from infersim.codesign.search import SweepContext, search_slice, static_terms, topology_hw
from infersim.codesign.sensitivity import SensitivityRow, point_values
from infersim.codesign.types import HardwareCandidate, candidate_rows
from infersim.presets.runtime_presets import RUNTIMES, SCENARIO_RUNTIMES
from infersim.search.objectives import get_objective
from infersim.specs.parallel import ParArrays
from infersim.specs.runtime import BOUNDS
from infersim.specs.speculation import Speculation

#: What each hardware knob is, in words, and its unit (GB/s are per PE and per direction).
KNOB_WORDS = {
    "pe_hbm_gb": ("HBM capacity", "GB per PE"),
    "bw_hbm_gbs": ("HBM bandwidth", "GB/s per PE"),
    "peak_tflops_f16": ("compute", "TFLOPS dense bf16 per PE"),
    "bw_intra_gbs": ("in-cube (scale-up) link bandwidth", "GB/s per PE per direction"),
    "bw_inter_gbs": ("cube-to-cube link bandwidth", "GB/s per PE per direction"),
    "bw_intersip_gbs": ("scale-out bandwidth", "GB/s per PE per direction"),
}
#: Runtime overheads a software team can cut: (field, words). ``host_launch_ns`` only counts
#: where the step is launched kernel by kernel (it is zero under a CUDA graph).
RUNTIME_FIELDS = (
    ("kernel_gap_ns", "the gap between kernels", "ns per kernel"),
    ("launch_multiplier", "kernel launches per layer (fuse kernels)", "x the cost model's fused count"),
    ("step_fixed_ns", "host time per step (scheduling, sampling)", "ns per step"),
    ("host_launch_ns", "host launch cost per kernel", "ns per kernel"),
    ("seq_ns", "host time per sequence per step", "ns per sequence"),
)
SPECULATION = Speculation("eagle", 3)
#: What each runtime profile is, in a few words.
RUNTIME_WORDS = {
    "cuda-graphs": "graph-captured decode", "vllm": "vLLM (async scheduling)", "sglang": "SGLang",
    "trtllm": "TensorRT-LLM", "vllm-0.13": "vLLM 0.8-0.13, synchronous scheduling",
    "eager": "PyTorch eager, unfused", "python-fused": "fused kernels launched from Python",
    "cpp-nographs": "fused kernels launched from C++ without graphs",
    "trtllm-2023": "TensorRT-LLM's 2023 runtime",
    "vllm-v0": "vLLM's V0 engine (< 0.8), Triton fused-MoE kernels",
    "sglang-0.4": "SGLang before 0.4.5, Triton fused-MoE kernels",
    "megakernel": "a persistent mega-kernel decoder: almost no gaps between kernels",
    "dataflow": "a dataflow-compiled decoder: no kernel boundaries",
}


@dataclass(frozen=True)
class Lever:
    """One change at the design point and what it does to the objective (see the module)."""

    name: str                      # e.g. "bw_hbm_gbs x2", "kernel_gap_ns x0.5", "runtime trtllm"
    kind: str                      # "hardware" or "software"
    action: str                    # the change in words, with units
    gain: float                    # the objective's relative gain (> 0: better)
    value: float                   # the objective with the lever applied
    baseline_value: float
    objective: str
    elasticity: float = math.nan
    capex_usd_per_pe: float = math.nan     # hardware: capex per PE the change adds
    halved_value: float = math.nan         # software overheads: the objective at x0.5 and x2
    doubled_value: float = math.nan
    source: str = ""


def _fmt(v: float) -> str:
    return f"{v:,.4g}" if abs(v) < 1e4 else f"{v:,.0f}"


def hardware_levers(rows: list[SensitivityRow], design: HardwareCandidate) -> list[Lever]:
    """The sensitivity rows as levers (each knob doubled)."""
    out = []
    for r in rows:
        words, unit = KNOB_WORDS[r.knob]
        v = getattr(design, r.knob)
        out.append(Lever(f"{r.knob} x2", "hardware", f"double {words} ({_fmt(v)} -> {_fmt(2 * v)} {unit})",
                         r.rel_speedup, r.doubled_value, r.baseline_value, r.objective, r.elasticity,
                         r.doubled_capex_usd_per_pe, halved_value=r.halved_value,
                         doubled_value=r.doubled_value))
    return out


def _values(ctx: SweepContext, econ, cands, two_stage: bool) -> np.ndarray:
    return point_values(ctx, econ, cands, two_stage)[0]


def _scale_up_lever(ctx, econ, design, v0, two_stage) -> list[Lever]:
    ppc, cps, sips = design.topology_of(ctx.base_hw)
    if cps % 2:
        return []
    bigger = replace(design, pes_per_cube=2 * ppc, cubes_per_sip=cps // 2)
    knobs, topo = candidate_rows([design, bigger], ctx.base_hw)
    capex = pe_economics(knobs, topo, ctx.base_hw, econ).capex_usd
    v = float(_values(ctx, econ, [bigger], two_stage)[0])
    obj = get_objective(ctx.objective)
    gain = obj.gain(v, v0) if math.isfinite(v) else -1.0
    return [Lever("pes_per_cube x2", "hardware",
                  f"double the scale-up domain ({ppc} -> {2 * ppc} PEs per cube, {cps} -> {cps // 2} "
                  f"cubes per SiP; same PEs)", gain, v, v0, obj.name,
                  capex_usd_per_pe=float(capex[1] - capex[0]))]


def _scaled_runtime(rt, field: str, factor: float):
    lo, hi = BOUNDS[field]
    return replace(rt, **{field: float(min(hi, max(lo, getattr(rt, field) * factor)))})


def _runtime_variants(rt):
    """(field, words, unit, runtime at x0.5, runtime at x2) of the overheads this runtime pays."""
    out = []
    for f, words, unit in RUNTIME_FIELDS:
        if getattr(rt, f) == 0 or (f == "host_launch_ns" and rt.graph_captured):
            continue
        half, double = _scaled_runtime(rt, f, 0.5), _scaled_runtime(rt, f, 2.0)
        if getattr(half, f) == getattr(rt, f) and getattr(double, f) == getattr(rt, f):
            continue
        out.append((f, words, unit, half, double))
    return out


def _arc(obj, v_lo, v_hi, x_lo, x_hi) -> float:
    """d ln(goodness) / d ln(1/x) between the overhead values x_lo < x_hi."""
    g_lo, g_hi = float(obj.goodness(v_lo)), float(obj.goodness(v_hi))
    if not (math.isfinite(g_lo) and math.isfinite(g_hi) and g_lo > 0 and g_hi > 0 and x_hi > x_lo > 0):
        return math.nan
    return math.log(g_lo / g_hi) / math.log(x_hi / x_lo)


def runtime_levers(ctx: SweepContext, econ, design, v0: float, two_stage: bool) -> list[Lever]:
    """Each runtime overhead x0.5 (the lever) and x2, and each other runtime profile."""
    obj, rt = get_objective(ctx.objective), ctx.runtime
    out = []
    for f, words, unit, half, double in _runtime_variants(rt):
        vh = float(_values(replace(ctx, runtime=half), econ, [design], two_stage)[0])
        vd = float(_values(replace(ctx, runtime=double), econ, [design], two_stage)[0])
        x0, xh, xd = getattr(rt, f), getattr(half, f), getattr(double, f)
        out.append(Lever(f"{f} x{xh / x0:.2g}", "software",
                         f"cut {words} ({_fmt(x0)} -> {_fmt(xh)} {unit})",
                         obj.gain(vh, v0) if math.isfinite(vh) else -1.0, vh, v0, obj.name,
                         _arc(obj, vh, vd, xh, xd), halved_value=vh, doubled_value=vd,
                         source=f"runtime {rt.name}: {f} = {_fmt(x0)}"))
    for name in RUNTIMES:
        other = RUNTIMES[name]
        # scenarios (stacks that do not ship, assumed numbers) are asked for by name, never
        # offered as the next lever: the answer names what a user can deploy
        if name == rt.name or other == rt or name in SCENARIO_RUNTIMES:
            continue
        v = float(_values(replace(ctx, runtime=other), econ, [design], two_stage)[0])
        how = f"{other.measured or 'assumed'} profile"
        out.append(Lever(f"runtime {name}", "software",
                         f"switch the runtime to {name} ({RUNTIME_WORDS.get(name, how)}; {how})",
                         obj.gain(v, v0) if math.isfinite(v) else -1.0, v, v0, obj.name,
                         source=other.source))
    return out


def _dtype_levers(ctx, econ, design, v0, two_stage) -> list[Lever]:
    obj, m, out = get_objective(ctx.objective), ctx.model, []
    wide = ("fp32", "bf16", "fp16")
    for field, words in (("weight_dtype", "weights"), ("kv_dtype", "KV cache")):
        if getattr(m, field) not in wide:
            continue
        fp8 = replace(m, **{field: "fp8"})
        v = float(_values(replace(ctx, model=fp8), econ, [design], two_stage)[0])
        out.append(Lever(f"{field} fp8", "software",
                         f"quantise the {words} to fp8 ({getattr(m, field)} -> fp8; check accuracy)",
                         obj.gain(v, v0) if math.isfinite(v) else -1.0, v, v0, obj.name,
                         source="fp8 rates and bytes of the cost model; accuracy not modelled"))
    return out


def _batch_lever(ctx, econ, design, v0, two_stage) -> list[Lever]:
    """Twice the sequences per step: a throughput lever (per-step latency only grows)."""
    obj = get_objective(ctx.objective)
    if not obj.maximise:
        return []
    wl = replace(ctx.wl, batch=2 * ctx.wl.batch)
    v = float(_values(replace(ctx, wl=wl), econ, [design], two_stage)[0])
    return [Lever("batch x2", "software", f"serve twice the sequences per step ({ctx.wl.batch} -> {wl.batch})",
                  obj.gain(v, v0) if math.isfinite(v) else -1.0, v, v0, obj.name)]


def _design_pick(ctx: SweepContext, design: HardwareCandidate):
    """(hardware, parallelism) of the design point's pick under the sweep's policy."""
    hw = design.to_hardware(ctx.base_hw)
    knobs, topo = candidate_rows([design], ctx.base_hw)
    res = search_slice(replace(ctx, keep="best", top_k=1), knobs, topo)
    if not len(res.cand):
        return hw, None
    space, _ = static_terms(ctx.model, topology_hw(ctx.base_hw, tuple(int(x) for x in topo[0])), ctx.wl)
    return hw, space.config(int(res.config[0]))


def _speculation_lever(ctx, econ, design, v0, par) -> list[Lever]:
    """Speculative decoding at the design point's parallelism: per-token time t_step / E, so
    every objective here (latency, or tokens per period) gains t_plain · E / t_step − 1."""
    from infersim.serving.speculative import step_ns
    from infersim.serving.steps import step

    wl = ctx.wl
    if wl.mode != "decode" or (wl.s_q or 1) != 1 or par is None:
        return []
    hw = design.to_hardware(ctx.base_hw)
    rows = ParArrays.from_configs([par], wl)
    t0 = float(step(ctx.model, hw, rows, wl, ctx.runtime)[0]["total_ns"][0])
    t, e = step_ns(ctx.model, hw, rows, wl, SPECULATION, ctx.runtime)
    speedup = t0 * e / float(t[0])
    obj = get_objective(ctx.objective)
    v = v0 * speedup if obj.maximise else v0 / speedup
    return [Lever("speculative eagle k=3", "software",
                  f"speculative decoding ({SPECULATION.describe()}; the drafter's memory not re-checked)",
                  speedup - 1.0, v, v0, obj.name,
                  source="EAGLE (Li et al. 2024) acceptance 0.75; E = (1 - a^(k+1)) / (1 - a)")]


def software_levers(ctx: SweepContext, econ: Economics, design: HardwareCandidate, v0: float,
                    two_stage: bool = False) -> list[Lever]:
    """Every software lever at the design point (see the module), sorted by gain."""
    out = runtime_levers(ctx, econ, design, v0, two_stage)
    out += _dtype_levers(ctx, econ, design, v0, two_stage)
    out += _batch_lever(ctx, econ, design, v0, two_stage)
    if not two_stage:
        out += _speculation_lever(ctx, econ, design, v0, _design_pick(ctx, design)[1])
    return sorted(out, key=lambda lv: -lv.gain)


def all_levers(ctx: SweepContext, econ: Economics, design: HardwareCandidate,
               rows: list[SensitivityRow], v0: float, two_stage: bool = False) -> list[Lever]:
    """Hardware and software levers together, sorted by gain (best first)."""
    out = hardware_levers(rows, design) + _scale_up_lever(ctx, econ, design, v0, two_stage)
    out += software_levers(ctx, econ, design, v0, two_stage)
    return sorted(out, key=lambda lv: -lv.gain)


def next_levers(levers: list[Lever], min_gain: float) -> tuple[Lever | None, Lever | None]:
    """(the lever with the largest gain, the best lever of the other kind), each None when it
    gains less than ``min_gain``."""
    best = max(levers, key=lambda lv: lv.gain, default=None)
    if best is None or best.gain <= min_gain:
        return None, None
    other = max((lv for lv in levers if lv.kind != best.kind), key=lambda lv: lv.gain, default=None)
    return best, (other if other is not None and other.gain > min_gain else None)
