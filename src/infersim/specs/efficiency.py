"""Efficiency curves of a part from the maxima it reaches in measurements, and their calibration.

A table maps operator size to the fraction of peak reached; each is a generic size shape (small
GEMMs and short reads reach a lower fraction of peak) scaled to the part's measured maximum:
large bf16 / fp8 / fp4 GEMMs (cuBLASLt, TensorRT-LLM, hipBLASLt), HBM streaming (STREAM-like
copies, skinny GEMMs) and GEMMs streaming 8-bit weights at small batch.
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
#: Physical ranges of the maxima (calibration and every preset must stay inside; tested).
EFF_BOUNDS = {"compute": (0.35, 0.92), "compute_fp8": (0.30, 0.85), "memory": (0.65, 0.95),
              "memory_fp8": (0.25, 0.95)}
TABLE_OF = {"compute": "compute_eff", "compute_fp8": "compute_eff_fp8", "memory": "memory_eff",
            "memory_fp8": "memory_eff_fp8"}
#: Maximum keys a hardware file may give instead of tables (``eff_max_<kind>`` → table).
MAX_KEYS = {"eff_max_compute": "compute_eff", "eff_max_compute_fp8": "compute_eff_fp8",
            "eff_max_memory": "memory_eff", "eff_max_memory_fp8": "memory_eff_fp8",
            "eff_max_compute_fp4": "compute_eff_fp4"}


def _scale(shape, top: float) -> tuple[tuple[float, float], ...]:
    return tuple((x, round(e * top, 6)) for x, e in shape)


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


def calibrate(hw: HardwareSpec, compute: float = 1.0, compute_fp8: float = 1.0, memory: float = 1.0,
              memory_fp8: float = 1.0) -> HardwareSpec:
    """``hw`` with its efficiency tables scaled by the multipliers, each maximum clipped to its
    physical range (``EFF_BOUNDS``)."""
    def scale(bound, s):
        table = getattr(hw, TABLE_OF[bound]) or getattr(hw, TABLE_OF[bound.removesuffix("_fp8")])
        top = max(e for _, e in table)
        target = min(max(top * s, EFF_BOUNDS[bound][0]), EFF_BOUNDS[bound][1])
        return tuple((x, e * target / top) for x, e in table)
    mult = {"compute": compute, "compute_fp8": compute_fp8, "memory": memory, "memory_fp8": memory_fp8}
    return replace(hw, **{TABLE_OF[b]: scale(b, s) for b, s in mult.items()})
