"""Geometry: every per-config share the cost blocks read, computed once per ``prepare``.

Nothing here depends on the hardware knobs; only the topology (which link levels each group
spans) enters. All arrays have shape ``(N,)`` (one value per config) or ``(3, N)`` (per link level);
for one config (``simulate()``) the ``(N,)`` values are NumPy scalars (:func:`where` picks between
them), the blocks' formulas being the same on either.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from infersim.cost.collectives import Levels
from infersim.specs.hardware import Topology
from infersim.specs.model import DTYPE_BYTES, ModelSpec
from infersim.specs.parallel import FIELDS, ParArrays, group_levels, mesh_strides
from infersim.specs.workload import Workload


@dataclass(frozen=True)
class AttnGeometry:
    """MHA/GQA or MLA, as the attention kernels see it.

    GQA: ``nkv`` KV heads of width ``2·d`` (K and V), 4·d flops per (query, key) pair per head.
    MLA: one latent per token shared by every head (like MQA with a wide head, width
    kv_lora + rope); decode runs the absorbed path (scores and values in latent space:
    2(r+ρ) + 2r flops per pair per head), prefill decompresses K and V (2·qk + 2·v flops)."""

    nkv: float
    kv_width: float
    flops_per_pair_head: float
    q_width: float

    @classmethod
    def of(cls, model: ModelSpec, prefill: bool) -> "AttnGeometry":
        if not model.is_mla:
            d = float(model.head_dim)
            return cls(float(model.n_kv_heads), 2.0 * d, 4.0 * d, d)
        kv_width = float(model.kv_lora_rank + model.qk_rope_head_dim)
        qk = float(model.qk_nope_head_dim + model.qk_rope_head_dim)
        if prefill:
            return cls(1.0, kv_width, 2.0 * qk + 2.0 * model.v_head_dim, qk)
        return cls(1.0, kv_width, 2.0 * kv_width + 2.0 * model.kv_lora_rank, kv_width)


@dataclass(frozen=True)
class Geometry:
    """Per-config token, head and sequence shares and the link levels of every group."""

    n: int
    prefill: bool
    attn: AttnGeometry
    wb: float                 # bytes per weight, activation, KV value, collective element
    ab: float
    kvb: float
    cb: float
    tp: np.ndarray
    pp: np.ndarray
    dp: np.ndarray
    cp: np.ndarray
    ep: np.ndarray
    kv_mode: np.ndarray       # 0 head, 1 seq, 2 hybrid
    ffn_tpcp: np.ndarray      # FFN sharded over tp·cp
    ring: np.ndarray          # 0 pass-KV, 1 pass-Q
    m: np.ndarray             # micro-batches in flight through the pipeline
    b_all: np.ndarray         # sequences per DP replica (their KV cache is resident)
    b: np.ndarray             # sequences per micro-batch
    chunks: np.ndarray        # prefill chunks per prompt (1 unless m > b_all)
    T: np.ndarray             # new tokens per sequence per micro-batch (a chunk in prefill)
    ctx: float                # context after the step
    kv_ctx: float             # tokens a layer caches, averaged over layers (windows capped)
    kv_read_ctx: float        # tokens a layer's attention reads per query pass, layer average
    pairs: np.ndarray         # (query, key) pairs per sequence per head per micro-batch per layer
    head_tok: np.ndarray      # LM-head rows per micro-batch (last token of each sequence; verify: all T)
    tok: np.ndarray           # tokens per micro-batch per replica
    q_split: np.ndarray       # the CP ranks split the tokens (prefill; pass-Q decode) or each holds all
    tok_pe: np.ndarray        # tokens through dense ops per PE (split over CP: tok/cp, decode padded)
    tok_ffn: np.ndarray       # tokens through the FFN per PE
    is_kv_ring: np.ndarray
    seq_split: np.ndarray     # KV sequence split inside TP (kv_shard_mode)
    kvh_pe: np.ndarray        # KV heads per PE
    qh_pe: np.ndarray         # query heads per PE
    g_ffn: np.ndarray         # ranks the FFN is sharded over
    lv_tp: Levels             # (3, N) members per level of each group, with their collectives' terms
    lv_cp: Levels
    lv_pp: Levels
    lv_tpcp: Levels
    lv_rep: Levels            # the ranks holding a replica of a token: TP (tokens split over CP), else TP·CP
    lv_seq: Levels
    lv_ffn: Levels
    lv_dp: Levels

    def ones(self) -> np.ndarray:
        return np.ones(self.n)


def _group_levels(par: ParArrays, seq_split: np.ndarray, ppc: int, pps: int) -> np.ndarray:
    """Every group's (TP, CP, PP, KV-sequence split, DP) members per link level in one call:
    (3 levels, 5 groups, N), floats."""
    strides = mesh_strides(par)
    return group_levels(np.stack([strides["tp"], strides["cp"], strides["pp"], strides["tp"], strides["dp"]]),
                        np.stack([par.tp, par.cp, par.pp, seq_split, par.dp]), ppc, pps).astype(float)


def _level_set(lv: np.ndarray, q_split, ffn_tpcp) -> dict[str, Levels]:
    """Every group's :class:`Levels` from :func:`_group_levels`' (3, 5, N) array: TP, CP, PP,
    the KV-sequence split and DP, and the groups built from them."""
    lv_tp, lv_cp = lv[:, 0], lv[:, 1]
    lv_tpcp = lv_tp * lv_cp                         # nested groups: levels multiply
    return dict(lv_tp=Levels(lv_tp), lv_cp=Levels(lv_cp), lv_pp=Levels(lv[:, 2]), lv_tpcp=Levels(lv_tpcp),
                lv_rep=Levels(where(_row(q_split), lv_tp, lv_tpcp)), lv_seq=Levels(lv[:, 3]),
                lv_ffn=Levels(where(_row(ffn_tpcp), lv_tpcp, lv_tp)), lv_dp=Levels(lv[:, 4]))


@lru_cache(maxsize=4096)
def _one_config_level_set(key: tuple, ppc: int, pps: int, q_split: bool, ffn_tpcp: bool) -> dict[str, Levels]:
    par = ParArrays(**{f: np.array([v], dtype=np.int64) for f, v in zip(FIELDS, key[:-1])})
    lv = _group_levels(par, np.array([key[-1]], dtype=np.int64), ppc, pps)
    levels = _level_set(lv, q_split, ffn_tpcp)
    for group in levels.values():           # cached and shared from call to call: read-only
        group.g.setflags(write=False)
    return levels


def _levels(par: ParArrays, seq_split, q_split, ffn_tpcp, ppc: int, pps: int) -> dict[str, Levels]:
    """:func:`_level_set` of :func:`_group_levels`; one config's (a ``simulate()`` call's) from a
    cache keyed by its fields: they depend on the parallelism and the topology only, not on the
    workload (its Levels keep their collectives' terms from call to call: read-only)."""
    if len(par) == 1:
        key = tuple(int(getattr(par, f)[0]) for f in FIELDS) + (int(seq_split),)
        return _one_config_level_set(key, ppc, pps, bool(q_split), bool(ffn_tpcp))
    return _level_set(_group_levels(par, seq_split.astype(np.int64), ppc, pps), q_split, ffn_tpcp)


def where(cond, a, b):
    """``np.where(cond, a, b)``; a scalar condition (one config's geometry) picks ``a`` or ``b``
    itself, without NumPy's call cost."""
    if isinstance(cond, np.ndarray):
        return np.where(cond, a, b)
    return a if cond else b


def some(mask) -> bool:
    """Whether ``mask`` (a scalar or an array: one config's, or N configs') has a non-zero
    element; a few elements are read as Python values (a sixth of ``ndarray.any``'s call cost).
    A block skips building a collective that no config runs (``Block.comm`` would drop it,
    after the cost of building it)."""
    if not isinstance(mask, np.ndarray):
        return bool(mask)
    return bool(mask.any()) if mask.size > 64 else any(mask.ravel().tolist())


def _row(x):
    """``x`` as a row that broadcasts against (3 levels, N) arrays (a scalar stays a scalar)."""
    return x[None, :] if np.ndim(x) else x


def geometry(model: ModelSpec, topo: Topology, par: ParArrays, wl: Workload) -> Geometry:
    """Shares and levels of ``par`` on ``topo`` for ``wl`` (see ``parallel.py`` for the knobs).

    One config (a ``simulate()`` call) gets NumPy scalars instead of (1,) arrays: the same
    formulas and bits, at a fraction of NumPy's per-call cost on arrays (the levels stay (3, 1))."""
    if len(par) == 1:
        f64 = lambda a: np.float64(a[0] if isinstance(a, np.ndarray) else a)  # noqa: E731
        pick = lambda a: a[0]  # noqa: E731
    else:
        f64, pick = (lambda a: np.asarray(a, dtype=np.float64)), (lambda a: a)  # noqa: E731
    tp, pp, dp, cp, ep = (f64(getattr(par, k)) for k in ("tp", "pp", "dp", "cp", "ep"))
    kv_mode, ring = pick(par.kv_shard_mode), pick(par.cp_ring_variant)
    prefill = wl.is_prefill
    attn = AttnGeometry.of(model, prefill)
    nq = float(model.n_heads)

    m = f64(par.microbatches)
    batch = f64(wl.batch if par.batch is None else par.batch)
    b_all = np.ceil(batch / dp)
    chunks = where(m > b_all, m / b_all, 1.0)
    b = where(m > b_all, 1.0, np.ceil(b_all / m))
    T = float(wl.new_tokens) / chunks
    tok = b * T
    # pass-Q decode (Meta's batched ring pass-Q, arXiv 2411.01783 sec. 3.6) shards the batch
    # round-robin over the CP ranks, padded to a multiple of cp (sec. 4.3); pass-KV decode
    # keeps every query on every rank
    q_split = pick(np.full(len(par), True)) if prefill else (ring == 1) & (cp > 1)
    tok_pe = tok / cp if prefill else where(q_split, np.ceil(b / cp) * T, tok)
    ffn_tpcp = pick(par.ffn_shard_scope) == 1
    # sliding / chunked layers cache and attend to fewer tokens: layer averages (model.py)
    L = float(model.n_layers)
    pairs = model.attention_pairs(wl.prefix_tokens, wl.new_tokens) / L
    kv_ctx = float(model.kv_layer_tokens(wl.s_kv)) / L

    kvg = np.minimum(attn.nkv, tp)
    seq, hybrid = kv_mode == 1, kv_mode == 2
    seq_split = where(seq, tp, where(hybrid, tp / kvg, 1.0))
    kvh_pe = where(seq, attn.nkv, np.maximum(attn.nkv / tp, 1.0))
    qh_pe = where(seq, nq, where(hybrid, nq / kvg, nq / tp))

    levels = _levels(par, seq_split, q_split, ffn_tpcp, topo.pes_per_cube, topo.pes_per_sip)
    return Geometry(
        n=len(par), prefill=prefill, attn=attn,
        wb=DTYPE_BYTES[model.weight_dtype], ab=DTYPE_BYTES[model.act_dtype],
        kvb=DTYPE_BYTES[model.kv_dtype], cb=DTYPE_BYTES[model.comm_dtype],
        tp=tp, pp=pp, dp=dp, cp=cp, ep=ep, kv_mode=kv_mode, ffn_tpcp=ffn_tpcp, ring=ring,
        m=m, b_all=b_all, b=b, chunks=chunks, T=T, ctx=float(wl.s_kv), kv_ctx=kv_ctx,
        # decode reads the KV once per query pass (pairs / T keys: exactly ``pairs`` at T = 1); a
        # verify step (T = k+1 > 1) takes logits of every query token, plain decode of the last
        kv_read_ctx=kv_ctx if prefill else pairs / float(wl.new_tokens), pairs=pairs / chunks,
        # a CP rank takes logits of its own sequences (prefill: the last chunk's rank)
        head_tok=b / chunks if prefill else tok_pe, tok=tok, q_split=q_split, tok_pe=tok_pe,
        tok_ffn=where(ffn_tpcp, tok, tok_pe),
        is_kv_ring=(ring == 0) & (cp > 1),
        seq_split=seq_split, kvh_pe=kvh_pe, qh_pe=qh_pe,
        g_ffn=where(ffn_tpcp, tp * cp, tp), **levels,
    )
