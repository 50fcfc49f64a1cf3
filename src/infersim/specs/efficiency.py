"""Efficiency curves of a part from the maxima it reaches in measurements, and their calibration.

A table maps operator size to the fraction of peak reached; each is a generic size shape (small
GEMMs and short reads reach a lower fraction of peak) scaled to the part's measured maximum:
large bf16 / fp8 / fp4 GEMMs (cuBLASLt, TensorRT-LLM, hipBLASLt), HBM streaming (STREAM-like
copies, skinny GEMMs), GEMMs streaming 8-bit / int4 / fp4 weights at small batch, and attention
kernels (flash attention's compute at long prompts, decode attention's read of the KV cache).
"""
from __future__ import annotations

from dataclasses import replace

from infersim.specs.hardware import HardwareSpec

#: Efficiency shapes: fraction of a part's maximum efficiency by operator size. Compute: a GEMM
#: of 1 GFLOP reaches half the large-GEMM efficiency (H100 bf16 8192x8192, m=128: 0.33 of peak
#: vs 0.79 at m>=512, aiconfigurator measurements); memory: a 1 MB read reaches ~2/3 of the
#: streaming efficiency.
COMPUTE_SHAPE = ((1e6, 0.03), (1e8, 0.2), (1e9, 0.5), (1e10, 0.8), (1e11, 0.96), (1e12, 1.0))
MEMORY_SHAPE = ((1e4, 0.06), (1e5, 0.33), (1e6, 0.67), (1e7, 0.89), (1e8, 0.98), (1e9, 1.0))
#: Efficiency kinds: the table each maximum scales (``eff_max_<kind>`` in hardware files).
TABLE_OF = {"compute": "compute_eff", "compute_fp8": "compute_eff_fp8", "compute_fp4": "compute_eff_fp4",
            "memory": "memory_eff", "memory_fp8": "memory_eff_fp8", "memory_int4": "memory_eff_int4",
            "memory_fp4": "memory_eff_fp4", "attn_compute": "attn_compute_eff",
            "attn_memory": "attn_memory_eff"}
KIND_OF = {t: k for k, t in TABLE_OF.items()}
#: Physical ranges of the maxima (calibration and every preset must stay inside; tested).
EFF_BOUNDS = {"compute": (0.35, 0.92), "compute_fp8": (0.30, 0.85), "compute_fp4": (0.25, 0.85),
              "memory": (0.65, 0.95), "memory_fp8": (0.25, 0.95), "memory_int4": (0.25, 0.95),
              "memory_fp4": (0.20, 0.95), "attn_compute": (0.20, 0.85), "attn_memory": (0.30, 0.95)}
#: Maximum keys a hardware file may give instead of tables (``eff_max_<kind>`` → table).
MAX_KEYS = {f"eff_max_{k}": t for k, t in TABLE_OF.items()}


def _scale(shape, top: float) -> tuple[tuple[float, float], ...]:
    return tuple((x, round(e * top, 6)) for x, e in shape)


def shape_of(table: str) -> tuple[tuple[float, float], ...]:
    return MEMORY_SHAPE if "memory" in table else COMPUTE_SHAPE


def curves(compute: float, compute_fp8: float, memory: float, memory_fp8: float,
           compute_fp4: float | None = None) -> dict:
    """Efficiency tables from the maxima a part reaches (large GEMM bf16 / fp8 [/ fp4], HBM stream,
    8-bit-weight GEMV)."""
    out = {"compute_eff": _scale(COMPUTE_SHAPE, compute),
           "compute_eff_fp8": _scale(COMPUTE_SHAPE, compute_fp8),
           "memory_eff": _scale(MEMORY_SHAPE, memory),
           "memory_eff_fp8": _scale(MEMORY_SHAPE, memory_fp8)}
    if compute_fp4 is not None:
        out["compute_eff_fp4"] = _scale(COMPUTE_SHAPE, compute_fp4)
    return out


def scaled_factor(top: float, multiplier: float, kind: str) -> float:
    """The factor a table of maximum ``top`` is scaled by under a calibration ``multiplier``:
    the new maximum is ``top · multiplier`` clipped to the kind's physical range."""
    lo, hi = EFF_BOUNDS[kind]
    return min(max(top * multiplier, lo), hi) / top


def table_top(hw: HardwareSpec, kind: str) -> tuple[str, float] | None:
    """(table, its maximum) that calibrating ``kind`` scales on ``hw``: the kind's own table, or
    for an absent 8-bit/4-bit table the one it falls back to; None when the part has neither."""
    table = TABLE_OF[kind]
    if not getattr(hw, table):
        return None
    return table, max(e for _, e in getattr(hw, table))


def calibrate(hw: HardwareSpec, compute: float = 1.0, compute_fp8: float = 1.0, memory: float = 1.0,
              memory_fp8: float = 1.0, **more: float) -> HardwareSpec:
    """``hw`` with its efficiency tables scaled by the multipliers (any kind of
    :data:`TABLE_OF`), each maximum clipped to its physical range (``EFF_BOUNDS``); ``more`` may
    also set ``ridge_overlap`` and ``kernel_latency_ns`` (absolute values)."""
    mult = {"compute": compute, "compute_fp8": compute_fp8, "memory": memory, "memory_fp8": memory_fp8}
    absolute = {k: more.pop(k) for k in ("ridge_overlap", "kernel_latency_ns") if k in more}
    mult.update(more)
    out = {}
    for kind, s in mult.items():
        found = table_top(hw, kind)
        if found is None:
            continue
        table, top = found
        f = scaled_factor(top, s, kind)
        out[table] = tuple((x, e * f) for x, e in getattr(hw, table))
    return replace(hw, **out, **absolute)
