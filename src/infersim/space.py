"""The full parallelism space for one model, hardware topology and workload, built with NumPy.

Enumeration (``raw``): every combination of

    tp   powers of two that divide n_heads (and divide or are divided by n_kv_heads)
    cp   powers of two up to the PE count (and ≤ s_kv)
    pp   divisors of the layer count
    dp   powers of two ≤ batch (a replica without a sequence would idle)
    ep   MoE only: powers of two dividing n_experts and the tp·cp·dp ranks
    kv_shard_mode × ffn_shard_scope × tp_placement × cp_placement × cp_ring_variant  (3·2·2·2·2 = 48)

with tp·cp·pp·dp ≤ PEs. Pruning (``valid``) then removes configs that are moot or equivalent:

* cp = 1: the ring variant and the FFN scope do nothing (kept: the mode default, "TP");
* tp = 1: there is no KV sharding inside TP (kept: "head");
* n_kv_heads ≥ tp: "hybrid" is "head" (kept: "head"); MLA's single latent: "hybrid" is "seq";
* placements that put every group on the same link levels as another placement (e.g. any
  placement when all groups but one have size 1) are equivalent: the configs are keyed by the link
  levels each group spans and only the first placement (default order first) is kept.

For Llama 3.1 70B on the default 64-PE system at batch 1 this gives 100 degree tuples, 4,800 raw
and 1,260 valid configs; at batch 8 (DP up to 8) 225 tuples, 10,800 raw, 2,738 valid
(``tests/test_explore.py`` checks these and the per-knob counts on a small system by hand). The
seed system's ~28,800 counted DP replicas beyond the batch and equivalent placements too; here
those are removed before evaluation, not evaluated and discarded.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from .hardware import HardwareSpec, Topology
from .model import ModelSpec
from .parallel import (CP_RING_VARIANTS, FIELDS, ParArrays, default_ring_variant, group_levels,
                       mesh_strides, valid_pp, valid_tp)
from .workload import Workload


@dataclass(frozen=True)
class SpaceCounts:
    raw: int          # every combination with tp·cp·pp·dp ≤ PEs
    valid: int        # after removing moot and equivalent combinations
    degree_tuples: int  # distinct (tp, cp, pp, dp, ep)


def _pow2_upto(n: int) -> list[int]:
    out, v = [], 1
    while v <= n:
        out.append(v)
        v *= 2
    return out


def degree_options(model: ModelSpec, hw: HardwareSpec | Topology, wl: Workload) -> dict[str, list[int]]:
    n = hw.n_pes
    pow2 = _pow2_upto(n)
    opts = {
        "tp": [t for t in valid_tp(model) if t in pow2],
        "cp": [c for c in pow2 if c <= wl.s_kv],
        "pp": [p for p in valid_pp(model) if p <= n],
        "dp": [d for d in pow2 if d <= wl.batch],
        "ep": [e for e in pow2 if model.is_moe and model.n_experts % e == 0] or [1],
    }
    return opts


@lru_cache(maxsize=64)
def _space_cached(model: ModelSpec, hw_like: Topology, wl: Workload) -> tuple[ParArrays, SpaceCounts]:
    opts = degree_options(model, hw_like, wl)
    grids = np.meshgrid(*(np.asarray(opts[k]) for k in ("tp", "cp", "pp", "dp", "ep")), indexing="ij")
    tp, cp, pp, dp, ep = (g.ravel() for g in grids)
    ok = tp * cp * pp * dp <= hw_like.n_pes
    if model.is_moe:
        ok &= (tp * cp * dp) % ep == 0
    tp, cp, pp, dp, ep = tp[ok], cp[ok], pp[ok], dp[ok], ep[ok]
    n_deg = len(tp)
    # knob grid: 3 kv modes x 2 scopes x 2 tp placements x 2 cp placements x 2 ring variants
    kv, sc, tpl, cpl, rv = (g.ravel() for g in np.meshgrid(
        np.arange(3), np.arange(2), np.arange(2), np.arange(2), np.arange(2), indexing="ij"))
    n_knob = len(kv)
    rep = lambda a: np.repeat(a, n_knob)  # noqa: E731
    til = lambda a: np.tile(a, n_deg)     # noqa: E731
    cols = {"tp": rep(tp), "cp": rep(cp), "pp": rep(pp), "dp": rep(dp), "ep": rep(ep),
            "kv_shard_mode": til(kv), "ffn_shard_scope": til(sc), "tp_placement": til(tpl),
            "cp_placement": til(cpl), "cp_ring_variant": til(rv)}
    raw = len(cols["tp"])

    # canonicalise moot knobs, then drop duplicates (first occurrence = default placement)
    default_ring = CP_RING_VARIANTS.index(default_ring_variant(wl.mode))
    single_cp = cols["cp"] == 1
    cols["cp_ring_variant"] = np.where(single_cp, default_ring, cols["cp_ring_variant"])
    cols["ffn_shard_scope"] = np.where(single_cp, 0, cols["ffn_shard_scope"])
    kvm = cols["kv_shard_mode"]
    kvm = np.where(cols["tp"] == 1, 0, kvm)
    kvm = np.where((kvm == 2) & (model.kv_cache_heads >= cols["tp"]), 0, kvm)
    kvm = np.where((kvm == 2) & (model.kv_cache_heads == 1), 1, kvm)   # one KV stream: hybrid = seq
    cols["kv_shard_mode"] = kvm
    par = ParArrays(**{f: cols[f] for f in FIELDS})
    strides = mesh_strides(par)
    ppc_, pps = hw_like.pes_per_cube, hw_like.pes_per_sip
    levels = [group_levels(strides[d], getattr(par, d), ppc_, pps) for d in ("tp", "cp", "pp")]
    # the sequence-shard subgroup inside TP has levels of its own; the dp group never talks
    seq_split = np.select([kvm == 1, kvm == 2],
                          [par.tp, par.tp // np.minimum(par.tp, model.kv_cache_heads)], 1)
    levels.append(group_levels(strides["tp"], seq_split, ppc_, pps))
    if model.is_moe:     # the EP / expert-slice split of the tp·cp·dp group
        levels.append(group_levels(strides["dp"], par.dp, ppc_, pps))
    key = np.column_stack([cols[f] for f in ("tp", "cp", "pp", "dp", "ep", "kv_shard_mode",
                                             "ffn_shard_scope", "cp_ring_variant")]
                          + [lv.T for lv in levels])
    _, first = np.unique(key, axis=0, return_index=True)
    first.sort()
    valid = par.take(first)
    return valid, SpaceCounts(raw=raw, valid=len(first), degree_tuples=n_deg)


def parallelism_space(model: ModelSpec, hw: HardwareSpec, wl: Workload) -> tuple[ParArrays, SpaceCounts]:
    """All valid, non-equivalent configs (cached per model, topology and workload)."""
    return _space_cached(model, hw.topology, wl)
