"""Attention block: QKV projection, attention core, O projection and the layer norms, with the
TP all-reduce of the O projection, the KV sequence-shard combine, the CP combine and the CP ring.

Per layer and per PE (b sequences per replica, T new tokens each, ctx = s_kv):

======================  ====================================================================
QKV projection          weights h·(n_q·d/tp + 2·d·kv_heads_pe), flops 2·t·h·cols
                        (MLA: down-projections replicated, up-projections sharded by head)
attention core          flops b·pairs·q_heads_pe·flops_per_pair_head / (seq_split·cp), bytes:
                        KV read of ctx/(seq_split·cp) tokens (pass-KV: ctx/seq_split, every
                        chunk visits) once per query tile of Q_TILE of the queries that visit
                        it (pass-KV: the rank's T/cp; pass-Q: all T, each rank's KV chunk is
                        visited by every query chunk), plus Q/O traffic. Sliding and chunked
                        layers see their window: pairs and ctx are layer averages
                        (``ModelSpec.attention_pairs``, ``ModelSpec.kv_layer_tokens``)
O projection            weights n_q·d/tp·h; all-reduce of t·h over TP
norms + residuals       10·t·h activation bytes (two norms, two residual adds)
CP ring                 (cp−1) steps, each sending a local KV chunk (pass-KV) or query chunk
                        (pass-Q) and launching a block attention; hidden under that block's
                        attention except in pass-Q decode, where each step waits for its
                        queries (Meta's Table 8)
CP combine (pass-Q)     an all-to-all returns the partial O, m, l to the queries' owners.
                        Decode shards the batch round-robin over the CP ranks, padded to a
                        multiple of cp (Meta's batched ring pass-Q, arXiv 2411.01783 sec. 3.6)
KV sharded by sequence  all-gather of the queries of all heads, reduce-scatter of O, m, l
======================  ====================================================================
"""
from __future__ import annotations

import numpy as np

from infersim.cost import collectives as coll
from infersim.cost.geometry import Geometry, some, where
from infersim.cost.terms import Block, Ring
from infersim.specs.model import DTYPE_BYTES, ModelSpec

# Flash-attention query tile: KV blocks are re-read once per tile of queries in prefill.
Q_TILE = 128
# Softmax statistics m and l carried with each partial output row (fp32 each).
ML_BYTES = 8.0


def attn_wb(model: ModelSpec) -> float:
    """Bytes per attention-projection weight (their own dtype in an FFN-only quantised model)."""
    return float(DTYPE_BYTES[model.attn_proj_dtype])


def _qkv_projection(model: ModelSpec, g: Geometry, blk: Block):
    """Adds the QKV op; returns (weight bytes, q columns, kv columns) per PE."""
    h, L, wb, ab, tok_pe = float(model.hidden), float(model.n_layers), attn_wb(model), g.ab, g.tok_pe
    if model.is_mla:
        rope, lora = float(model.qk_rope_head_dim), float(model.kv_lora_rank)
        q_lora, nq = float(model.q_lora_rank), float(model.n_heads)
        q_dim, up_dim = float(model.q_dim), nq * (model.qk_nope_head_dim + model.v_head_dim)
        # down-projections replicated on every TP rank, up-projections sharded by head
        repl = h * (lora + rope) + (h * q_lora + q_lora if q_lora else 0.0) + lora
        shard = (q_lora if q_lora else h) * q_dim / g.tp + lora * up_dim / g.tp
        w_qkv = (repl + shard) * wb
        flops = 2 * tok_pe * (repl + shard)
        if g.prefill:      # decompress K and V of every cached token this PE attends over
            ctx_pe = g.b * g.kv_ctx / g.cp
            flops = 2 * tok_pe * (repl + (q_lora if q_lora else h) * q_dim / g.tp) \
                + 2 * ctx_pe * lora * up_dim / g.tp
        q_cols = kv_cols = q_dim / g.tp                # activation widths for the workspace
        blk.gemm(model, "qkv_proj", flops, w_qkv + tok_pe * (h + q_dim / g.tp + lora + rope) * ab, L, 4, attn=True)
        return w_qkv, q_cols, kv_cols
    d, nq, nkv = float(model.head_dim), float(model.n_heads), g.attn.nkv
    kv_proj_heads = where(g.kv_mode == 1, nkv / g.tp, np.maximum(nkv / g.tp, 1.0))
    q_cols = nq * d / g.tp
    kv_cols = 2.0 * d * kv_proj_heads
    bias = (q_cols + kv_cols) * wb if model.qkv_bias else 0.0
    w_qkv = h * (q_cols + kv_cols) * wb + bias
    blk.gemm(model, "qkv_proj", 2 * tok_pe * h * (q_cols + kv_cols),
             w_qkv + tok_pe * (h + q_cols + kv_cols) * ab, L, 2, attn=True)
    return w_qkv, q_cols, kv_cols


def _attention_core(model: ModelSpec, g: Geometry, blk: Block) -> np.ndarray:
    """Adds the attention op; returns the query rows whose O, m, l a PE holds (tok_q)."""
    a, L = g.attn, float(model.n_layers)
    attn_share = where(g.is_kv_ring & (not g.prefill), 1.0, 1.0 / g.cp)  # decode pass-KV: redundant
    # pass-Q decode serves every rank's padded share of the batch (geometry's tok_pe): at batch 1
    # every rank reads its whole KV chunk cp times (Meta, arXiv 2411.01783 sec. 4.3 and Table 8)
    b_att = g.b if g.prefill else where(g.q_split, g.tok_pe * g.cp / g.T, g.b)
    flops = b_att * g.pairs * g.qh_pe * a.flops_per_pair_head / g.seq_split * attn_share
    kv_tokens = g.kv_read_ctx / g.seq_split * where(g.is_kv_ring, 1.0, 1.0 / g.cp)
    # queries that visit each KV block a PE holds: pass-KV its own T/cp, pass-Q all T
    q_seq = where(g.ring == 1, g.T, g.T / g.cp) if g.prefill else g.T
    rect = g.pairs / (g.T * g.kv_read_ctx)          # causal (and window) fraction of the (q, kv) rectangle
    kv_passes = np.maximum(1.0, q_seq * rect / Q_TILE)
    kv_read = b_att * kv_tokens * g.kvh_pe * a.kv_width * g.kvb * kv_passes
    tok_q = where(g.ring == 1, g.tok_pe * g.cp, g.tok_pe)   # pass-Q: every rank's queries visit
    nbytes = (kv_read + 2.0 * tok_q * g.qh_pe * a.q_width * g.ab
              + g.tok_pe * g.kvh_pe * a.kv_width * g.kvb / g.seq_split)
    blk.op("attention", flops, nbytes, L, 1, dtype=model.attention_dtype(g.prefill), klass="attn")
    return tok_q


def _combines(model: ModelSpec, g: Geometry, blk: Block, tok_q) -> None:
    """KV sequence-shard combine inside TP and the pass-Q CP combine."""
    a, L = g.attn, float(model.n_layers)
    q_bytes = g.tok_pe * g.qh_pe * a.q_width * g.cb
    oml_bytes = g.tok_pe * g.qh_pe * (a.q_width * g.cb + ML_BYTES)
    seq_on = g.seq_split > 1
    if some(seq_on):
        seq_on = 1.0 * seq_on
        blk.comm("kv_seq_combine", (coll.all_gather(q_bytes * seq_on, g.lv_seq)
                                    + coll.reduce_scatter(oml_bytes * seq_on, g.lv_seq)).scale(L),
                 "all", 2 * L * seq_on)
    # pass-Q: a rank holds a partial O, m, l of every query that visited it; an all-to-all
    # returns them to the queries' owners (prefill and decode alike)
    qoml_on = (g.ring == 1) & (g.cp > 1)
    if some(qoml_on):
        qoml_on = 1.0 * qoml_on
        oml_all = tok_q * g.qh_pe * (a.q_width * g.cb + ML_BYTES) * qoml_on
        blk.comm("cp_combine", coll.all_to_all(oml_all, g.lv_cp).scale(L), "all", L * qoml_on)


def _ring(model: ModelSpec, g: Geometry, blk: Block) -> tuple[Ring, np.ndarray]:
    """Ring step payload: pass-KV sends a local KV chunk, pass-Q a local query chunk. Every step
    launches its transfer and a block-attention kernel. The block attention hides a step except
    in pass-Q decode, whose steps wait for their queries: Meta's Table 8 (arXiv 2411.01783, 128K,
    batch 1, CP2) measures the attention loop, the SendRecv and the All2All adding up
    (43.2 + 32.3 + 81.1 ≈ 157.7 µs per layer)."""
    a = g.attn
    kv_chunk = g.b * (g.kv_ctx / g.cp) / g.seq_split * g.kvh_pe * a.kv_width * g.kvb
    q_chunk = g.tok_pe * g.qh_pe * a.q_width * g.cb
    step_bytes = where(g.ring == 0, kv_chunk, q_chunk) * (g.cp > 1)
    hide = where((g.ring == 1) & (not g.prefill), 0.0, 1.0)
    ring = Ring("attention", coll.ring_step(step_bytes, g.lv_cp), (g.cp - 1.0) * float(model.n_layers), hide)
    blk.launches["all"] = blk.launches.get("all", 0.0) + 2.0 * ring.mult * (step_bytes > 0)
    return ring, where(g.is_kv_ring, 2.0 * kv_chunk, 0.0)


def attention(model: ModelSpec, g: Geometry) -> Block:
    blk = Block(g.n)
    h, L, a = float(model.hidden), float(model.n_layers), g.attn
    w_qkv, q_cols, kv_cols = _qkv_projection(model, g, blk)
    tok_q = _attention_core(model, g, blk)
    o_rows = float(model.attn_out_dim) / g.tp
    wb = attn_wb(model)
    w_o = o_rows * h * wb + (h * wb if model.dense_bias else 0.0)
    blk.gemm(model, "o_proj", 2 * g.tok_pe * o_rows * h, w_o + g.tok_pe * (o_rows + h) * g.ab, L, 1, attn=True)
    blk.op("norms", 10 * g.tok_pe * h, 10 * g.tok_pe * h * g.ab, L, 2, klass="elementwise")
    blk.comm("tp_allreduce", coll.all_reduce(g.tok_pe * h * g.cb, g.lv_tp).scale(L), "all",
             L * (g.tp > 1))
    _combines(model, g, blk, tok_q)
    blk.ring, ring_buf = _ring(model, g, blk)
    norm_w = (2.0 if model.norm == "rmsnorm" else 4.0) * h * g.wb
    blk.mem.per_layer["all"] = w_qkv + w_o + norm_w
    blk.mem.kv_per_layer = g.b_all * g.kv_ctx * g.kvh_pe * a.kv_width * g.kvb / (g.seq_split * g.cp)
    blk.mem.activations = [g.tok_pe * (2 * h + q_cols + kv_cols) * g.ab,
                           tok_q * g.qh_pe * (a.q_width * g.ab + ML_BYTES) * 2]
    blk.mem.buffers = ring_buf
    return blk
