"""Embedding (first stage) and LM head (last stage), once per step.

The vocab-parallel embedding gathers one row per token and all-reduces it over TP; the LM head
computes the logits of the last token of each sequence (V/tp columns per PE) and all-gathers
them over TP. Both are in ``ModelSpec.head_dtype`` (16-bit in quantised checkpoints).
"""
from __future__ import annotations

from infersim.cost import collectives as coll
from infersim.cost.geometry import Geometry
from infersim.cost.terms import Block
from infersim.specs.model import DTYPE_BYTES, ModelSpec


def head(model: ModelSpec, g: Geometry) -> Block:
    blk = Block(g.n)
    # the embedding and LM head in their own dtype (16-bit in quantised checkpoints)
    h, V, wb, ab = float(model.hidden), float(model.vocab), DTYPE_BYTES[model.head_dtype], g.ab
    blk.op("embedding", 0.0, g.tok_pe * h * (wb + ab), 1.0, 1, "first", klass="elementwise")
    head_tok = g.head_tok                            # logits of the last token of each sequence
    blk.gemm(model, "lm_head", 2 * head_tok * h * V / g.tp,
             V * h / g.tp * wb + head_tok * (h + V / g.tp) * ab, 1.0, 2, "last", head=True)
    on = g.tp > 1
    blk.comm("tp_allreduce", coll.all_reduce(g.tok_pe * h * g.cb, g.lv_tp), "first", 1.0 * on)
    blk.comm("lm_head_gather", coll.all_gather(head_tok * V * g.cb, g.lv_tp), "last", 1.0 * on)
    emb = (model.embedding_params() / g.tp) * wb
    blk.mem.single = emb + (0.0 if model.tied_embeddings else V * h / g.tp * wb)
    blk.mem.first = emb
    blk.mem.last = V * h / g.tp * wb                 # a tied head is copied to the last stage
    blk.mem.buffers = g.b * V / g.tp * 4.0           # fp32 logits
    return blk
