"""The full parallelism space for one model, hardware topology and workload, built with NumPy.

The space is every config :func:`infersim.simulate` accepts, up to equivalence. Enumeration
(``raw``): every combination of

    tp   divisors of n_heads that divide or are divided by n_kv_heads
    cp   1 … min(PEs, s_kv)
    pp   divisors of the layer count
    dp   1 … min(batch, PEs)
    ep   MoE only: divisors of n_experts that divide the tp·cp·dp ranks
    kv_shard_mode × ffn_shard_scope × tp_placement × cp_placement × cp_ring_variant  (3·2·2·2·2 = 48)

with tp·cp·pp·dp ≤ PEs; configs with pp > 1 are then repeated for each micro-batch count worth
trying. Of all m giving the same micro-batch size ⌈b/m⌉ (b = ⌈batch/dp⌉ sequences per replica)
only the smallest is kept: it re-reads the weights fewest times, so it dominates the others in
latency and throughput. Prefill also tries chunking each prompt into c = 2, 4, … chunks of at
least 128 tokens (m = b·c). Pruning (``valid``) then removes configs that are moot or equivalent:

* cp = 1: the ring variant and the FFN scope do nothing (kept: the mode default, "TP");
* tp = 1: there is no KV sharding inside TP (kept: "head");
* n_kv_heads ≥ tp: "hybrid" is "head" (kept: "head"); MLA's single latent: "hybrid" is "seq";
* placements that put every group on the same link levels as another placement are equivalent:
  the configs are keyed by the link levels each group spans and only the first placement
  (default order first) is kept.

Counts (``tests/test_explore.py`` checks them): Llama 3.1 70B decode on the default 64-PE system,
batch 1: 280 degree tuples, 13,440 raw, 3,464 valid configs; batch 8: 686 tuples, 76,800 raw,
20,649 valid. The power-of-two-only space of earlier versions had 100 tuples and 1,260 valid
configs at batch 1; non-power-of-two degrees win for e.g. GPT-J prefill on 60 of 64 PEs.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from infersim.errors import InferSimError
from infersim.specs.hardware import HardwareSpec, Topology
from infersim.specs.model import ModelSpec
from infersim.specs.parallel import (
    CP_RING_VARIANTS,
    FIELDS,
    MIN_CHUNK_TOKENS,
    ParArrays,
    default_ring_variant,
    divisors,
    group_levels,
    mesh_strides,
    valid_pp,
    valid_tp,
)
from infersim.specs.workload import Workload

#: Knob combinations per (degrees, micro-batches) row: kv_shard_mode × ffn_shard_scope ×
#: tp_placement × cp_placement × cp_ring_variant.
N_KNOB_COMBOS = 3 * 2 * 2 * 2 * 2
#: Most raw configs a space may have (~400 bytes each while it is built and de-duplicated, so
#: ~0.8 GB): the largest real searches (405B prefill on 256 PEs: 1.6 M) fit; a batch of 10^9 or
#: a million-PE system is refused up front instead of exhausting memory.
MAX_SPACE_CONFIGS = 2_000_000


@dataclass(frozen=True)
class SpaceCounts:
    raw: int          # every combination with tp·cp·pp·dp ≤ PEs (micro-batch counts included)
    valid: int        # after removing moot and equivalent combinations
    degree_tuples: int  # distinct (tp, cp, pp, dp, ep)


def degree_options(model: ModelSpec, hw: HardwareSpec | Topology, wl: Workload) -> dict[str, list[int]]:
    n = hw.n_pes
    return {
        "tp": valid_tp(model, n),
        "cp": list(range(1, min(n, wl.s_kv) + 1)),
        "pp": valid_pp(model, n),
        "dp": list(range(1, min(n, wl.batch) + 1)),
        "ep": divisors(model.n_experts, n) if model.is_moe else [1],
    }


def microbatch_options(b: int, pp: int, wl: Workload) -> list[int]:
    """Micro-batch counts worth trying for ``b`` sequences per replica: the smallest m of each
    distinct micro-batch size ⌈b/m⌉, and in prefill b·c for power-of-two chunk counts c."""
    if pp == 1:
        return [1]
    ms = _ceil_quotients(b).tolist()
    if wl.is_prefill:
        c = 2
        while wl.new_tokens // c >= MIN_CHUNK_TOKENS:
            ms.append(b * c)
            c *= 2
    return ms


def _ceil_quotients(b: int) -> np.ndarray:
    """The distinct values of ⌈b/q⌉ for q = 1 … b, ascending, in O(√b) (not a loop over b): for
    q ≤ r = ⌊√b⌋ each q may give a new value; beyond r consecutive values differ by at most 1
    (b/q − b/(q+1) < 1 once q(q+1) > b), so they fill 1 … ⌈b/(r+1)⌉ without gaps."""
    r = math.isqrt(b)
    q = np.arange(1, r + 1, dtype=np.int64)
    return np.union1d(-(-b // q), np.arange(1, -(-b // (r + 1)) + 1, dtype=np.int64))


def _check_size(n: int, what: str) -> None:
    """Refuse a space of more than :data:`MAX_SPACE_CONFIGS` raw configs (before it is built)."""
    if n > MAX_SPACE_CONFIGS:
        raise InferSimError(
            f"the parallelism space exceeds the limit of {MAX_SPACE_CONFIGS:,} configs (about 1 GB) "
            f"{what}; narrow it: a smaller batch, context or system (--batch, --s-kv, --nodes)")


def _degree_tuples(model: ModelSpec, topo: Topology, wl: Workload) -> dict[str, np.ndarray]:
    opts = degree_options(model, topo, wl)
    n = topo.n_pes
    rows, n_rows = [], 0
    for tp in opts["tp"]:
        for pp in opts["pp"]:
            if tp * pp > n:
                continue
            for dp in opts["dp"]:
                if tp * pp * dp > n:
                    break
                cps = np.asarray(opts["cp"][: n // (tp * pp * dp)])
                for ep in opts["ep"]:
                    ok = cps[(tp * cps * dp) % ep == 0]
                    n_rows += len(ok)
                    _check_size(n_rows * N_KNOB_COMBOS, "(counting the degree tuples alone)")
                    rows.append(np.column_stack([np.full(len(ok), tp), ok, np.full(len(ok), pp),
                                                 np.full(len(ok), dp), np.full(len(ok), ep)]))
    deg = np.concatenate(rows) if rows else np.empty((0, 5), dtype=np.int64)
    return {k: deg[:, i].astype(np.int64) for i, k in enumerate(("tp", "cp", "pp", "dp", "ep"))}


def _with_microbatches(d: dict[str, np.ndarray], wl: Workload) -> dict[str, np.ndarray]:
    b = -(-wl.batch // d["dp"])
    reps, ms, total = [], [], 0
    for i in range(len(b)):
        opts = microbatch_options(int(b[i]), int(d["pp"][i]), wl)
        reps.append(len(opts))
        total += len(opts)
        _check_size(total * N_KNOB_COMBOS, "(counting the micro-batch counts of pipeline configs)")
        ms.extend(opts)
    reps = np.asarray(reps)
    out = {k: np.repeat(v, reps) for k, v in d.items()}
    out["microbatches"] = np.asarray(ms, dtype=np.int64)
    return out


@lru_cache(maxsize=64)
def _space_cached(model: ModelSpec, topo: Topology, wl: Workload) -> tuple[ParArrays, SpaceCounts]:
    deg = _degree_tuples(model, topo, wl)
    n_deg = len(deg["tp"])
    deg = _with_microbatches(deg, wl)
    n_rows = len(deg["tp"])
    kv, sc, tpl, cpl, rv = (g.ravel() for g in np.meshgrid(
        np.arange(3), np.arange(2), np.arange(2), np.arange(2), np.arange(2), indexing="ij"))
    n_knob = len(kv)
    cols = {k: np.repeat(v, n_knob) for k, v in deg.items()}
    cols.update({"kv_shard_mode": np.tile(kv, n_rows), "ffn_shard_scope": np.tile(sc, n_rows),
                 "tp_placement": np.tile(tpl, n_rows), "cp_placement": np.tile(cpl, n_rows),
                 "cp_ring_variant": np.tile(rv, n_rows)})
    raw = len(cols["tp"])
    _canonicalise(cols, model, wl)
    par = ParArrays(**{f: cols[f] for f in FIELDS})
    key = np.column_stack([cols[f] for f in ("tp", "cp", "pp", "dp", "ep", "microbatches",
                                             "kv_shard_mode", "ffn_shard_scope", "cp_ring_variant")]
                          + [lv.T for lv in _levels(par, model, topo)])
    first = _first_of_each_row(key)
    return par.take(first), SpaceCounts(raw=raw, valid=len(first), degree_tuples=n_deg)


def _first_of_each_row(key: np.ndarray) -> np.ndarray:
    """Sorted indices of the first occurrence of each distinct row of a non-negative int matrix:
    what ``np.unique(key, axis=0, return_index=True)`` gives (sorted), ~10x faster. The columns
    are packed into as few 63-bit words as their bit widths allow, then a stable lexsort groups
    equal rows with their first occurrence in front."""
    if key.size and key.min() < 0:      # packing needs non-negative values
        _, first = np.unique(key, axis=0, return_index=True)
        return np.sort(first)
    bits = [max(1, int(c.max()).bit_length()) for c in key.T]
    words, word, used = [], np.zeros(len(key), dtype=np.int64), 0
    for j, b in enumerate(bits):
        if used + b > 63:
            words.append(word)
            word, used = np.zeros(len(key), dtype=np.int64), 0
        word = (word << b) | key[:, j].astype(np.int64)
        used += b
    words.append(word)
    order = np.lexsort(words[::-1])
    packed = np.column_stack(words)[order]
    new = np.ones(len(key), dtype=bool)
    new[1:] = np.any(packed[1:] != packed[:-1], axis=1)
    return np.sort(order[new])


def _canonicalise(cols: dict, model: ModelSpec, wl: Workload) -> None:
    """Set moot knobs to one canonical value so that equivalent configs become duplicates."""
    default_ring = CP_RING_VARIANTS.index(default_ring_variant(wl.mode))
    single_cp = cols["cp"] == 1
    cols["cp_ring_variant"] = np.where(single_cp, default_ring, cols["cp_ring_variant"])
    cols["ffn_shard_scope"] = np.where(single_cp, 0, cols["ffn_shard_scope"])
    kvm = np.where(cols["tp"] == 1, 0, cols["kv_shard_mode"])
    kvm = np.where((kvm == 2) & (model.kv_cache_heads >= cols["tp"]), 0, kvm)
    kvm = np.where((kvm == 2) & (model.kv_cache_heads == 1), 1, kvm)   # one KV stream: hybrid = seq
    cols["kv_shard_mode"] = kvm


def _levels(par: ParArrays, model: ModelSpec, topo: Topology) -> list[np.ndarray]:
    """The link levels every communicating group spans (the placement's only effect)."""
    strides = mesh_strides(par)
    ppc, pps = topo.pes_per_cube, topo.pes_per_sip
    levels = [group_levels(strides[d], getattr(par, d), ppc, pps) for d in ("tp", "cp", "pp")]
    kvm = par.kv_shard_mode
    seq_split = np.select([kvm == 1, kvm == 2],
                          [par.tp, par.tp // np.minimum(par.tp, model.kv_cache_heads)], 1)
    levels.append(group_levels(strides["tp"], seq_split, ppc, pps))
    if model.is_moe:     # the EP / expert-slice split of the tp·cp·dp group
        levels.append(group_levels(strides["dp"], par.dp, ppc, pps))
    return levels


def parallelism_space(model: ModelSpec, hw: HardwareSpec, wl: Workload) -> tuple[ParArrays, SpaceCounts]:
    """All valid, non-equivalent configs (cached per model, topology and workload)."""
    return _space_cached(model, hw.topology, wl)
