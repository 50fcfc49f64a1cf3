"""Dense FFN block (dense layers; MoE shared experts reuse :func:`ffn_ops`).

Per layer and per PE, the FFN of width f is sharded over g = tp (scope "TP") or tp·cp
(scope "TP+CP"): up/gate weights (m−1)·h·f/g, down h·f/g (m = 3 gated, 2 otherwise), flops
2·t·h·f/g per matrix, and an all-reduce of the t·h output over the g ranks. In prefill with scope
TP+CP, wherever the CP ranks split the tokens (prefill, pass-Q decode), they first all-gather each
other's tokens.
"""
from __future__ import annotations

from infersim.cost import collectives as coll
from infersim.cost.geometry import Geometry, some, where
from infersim.cost.terms import Block
from infersim.specs.model import ModelSpec


def ffn_ops(model: ModelSpec, g: Geometry, blk: Block, name: str, width: float, mult: float,
            kind: str):
    """Adds the up/gate and down ops of an FFN of ``width`` run ``mult`` times at ``kind``
    layers; returns (weight bytes per PE, width per PE)."""
    h, m, wb, ab, tok = float(model.hidden), float(model.n_ffn_mats), g.wb, g.ab, g.tok_ffn
    f_pe = width / g.g_ffn
    w_up, w_down = (m - 1) * h * f_pe * wb, h * f_pe * wb
    if mult and width:
        blk.gemm(model, f"{name}_up_gate", 2 * tok * (m - 1) * h * f_pe,
                 w_up + tok * (h + m * f_pe) * ab, mult, 2, kind)
        blk.gemm(model, f"{name}_down", 2 * tok * h * f_pe, w_down + tok * (f_pe + h) * ab, mult, 1, kind)
    return w_up + w_down, f_pe


def ffn_allreduce(model: ModelSpec, g: Geometry, blk: Block, layers: float, kind: str) -> None:
    """The FFN output all-reduce over its shard group, and with scope TP+CP over CP ranks that
    split the tokens the all-gather of each other's tokens, for ``layers`` layers."""
    h = float(model.hidden)
    gather_on = g.ffn_tpcp & g.q_split & (g.cp > 1)
    blk.comm("ffn_allreduce", coll.all_reduce(g.tok_ffn * h * g.cb, g.lv_ffn).scale(layers), kind,
             layers * (g.g_ffn > 1))
    if some(gather_on):
        gather_in = coll.all_gather(where(gather_on, g.tok * h * g.cb, 0.0), g.lv_cp)
        blk.comm("ffn_allreduce", gather_in.scale(layers), kind, layers * gather_on)


def dense_ffn(model: ModelSpec, g: Geometry) -> Block:
    blk = Block(g.n)
    layers = float(model.n_dense_layers)
    w, f_pe = ffn_ops(model, g, blk, "ffn", float(model.ffn_hidden), layers, "dense")
    if layers:
        ffn_allreduce(model, g, blk, layers, "dense")
    blk.mem.per_layer["dense"] = w
    blk.mem.activations = [g.tok_ffn * (float(model.hidden) + model.n_ffn_mats * f_pe) * g.ab]
    return blk
