"""A second memory tier per PE: memory beside the HBM (LPDDR5X behind NVLink-C2C on Grace-class
parts, CXL-attached DDR, host DRAM over PCIe) that holds the KV cache the HBM cannot.

The tier is two :class:`~infersim.specs.hardware.HardwareSpec` fields, ``unified_mem_gb`` (capacity
per PE) and ``bw_unified_gbs`` (GB/s per PE per direction); the step model does not read them, so
the co-design composes them with its outputs (memory parts and step time), with no second cost
formula:

* **placement**: weights, workspace and as much KV cache as fits stay in HBM (the runtime's memory
  basis decides what fits, :meth:`~infersim.specs.runtime.Runtime.capacity_for`); the rest of the
  KV cache, ``spill = max(0, KV − HBM room)``, lives in the tier. A config fits when its weights
  and workspace fit the HBM and ``spill ≤ mem_fraction · unified_mem_gb``.
* **traffic**: a decode step reads each PE's whole KV cache once (a prefill step writes the new
  tokens' share, at most the same bytes), so the spilled bytes cross the tier link once per step
  and stage; a token visits every pipeline stage in turn:

      extra = pp · spill · (1 / (bw_unified · link_eff) − 1 / (bw_hbm · max memory efficiency))

  (bytes per ns = GB/s), clipped at 0: the spilled bytes are read at the tier's speed instead of
  the HBM's, in series with the rest of the step (no overlap assumed; KV offload engines such as
  vLLM's and LMCache's stream blocks ahead, which this bound ignores). More tier bandwidth or HBM
  capacity never makes a config slower; the tier never makes one faster than all-HBM.

Sources for the tiers a grid explores: NVIDIA GH200 (480 GB LPDDR5X per Grace, NVLink-C2C
450 GB/s per direction); CXL 2.0 x16 memory expanders (~64 GB/s per direction, e.g. Samsung CMM-D);
PCIe 5.0 x16 host memory (~55 GB/s measured per direction).
"""
from __future__ import annotations

import numpy as np

from infersim.specs.hardware import HardwareSpec


def has_tier(hw: HardwareSpec) -> bool:
    return hw.unified_mem_gb > 0


def spill_bytes(terms, cap_gb, runtime) -> np.ndarray:
    """KV bytes per PE beyond the HBM's room (``cap_gb`` a scalar or an (H, 1) column); inf
    where the weights and workspace alone do not fit."""
    p = terms.mem_parts
    w, a, kv = p["weights"], p["workspace"], p["kv_cache"]
    room = runtime.capacity_for(w, a, cap_gb) - w - a
    return np.where(room < 0, np.inf, np.maximum(kv - np.maximum(room, 0.0), 0.0))


def fits(terms, cap_gb, runtime) -> np.ndarray:
    """Configs whose weights and workspace fit the HBM and whose spilled KV fits the tier."""
    tier_bytes = runtime.mem_fraction * terms.hw.unified_mem_gb * 1e9
    return spill_bytes(terms, cap_gb, runtime) <= tier_bytes


def extra_ns(terms, cap_gb, bw_hbm_gbs, runtime) -> np.ndarray:
    """Step time the tier adds (see the module): (H, N) for (H, 1) capacity and bandwidth."""
    hw = terms.hw
    spill = spill_bytes(terms, cap_gb, runtime)
    spill = np.where(np.isfinite(spill), spill, 0.0)      # does not fit: never picked anyway
    hbm_eff = max(e for _, e in hw.memory_eff)
    per_byte = 1.0 / (hw.bw_unified_gbs * hw.link_eff) - 1.0 / (np.asarray(bw_hbm_gbs) * hbm_eff)
    return terms.pp * spill * np.maximum(per_byte, 0.0)
