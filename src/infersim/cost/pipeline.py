"""Pipeline block and the per-stage view: the (pp − 1) point-to-point sends of a micro-batch's
activations, how many layers of each kind the first and the last stage hold, and memory per PE
as that of the larger of the two.

Stages hold L/pp consecutive layers. DeepSeek's ``first_k_dense`` dense-FFN layers come first,
so a stage's weight and time are monotone in its index apart from the embedding (first stage)
and the LM head (last stage): the largest and the slowest stage is the first or the last, and
only those two are costed. Interleaved MoE layers (Llama 4 Maverick's every other layer) are
counted from the layer mask; their stages differ by at most one MoE layer, which the first and
the last stage bound as well unless pp splits the pattern unevenly in the middle.
"""
from __future__ import annotations

import numpy as np

from infersim.cost import collectives as coll
from infersim.cost.geometry import Geometry
from infersim.cost.terms import Block, Mem
from infersim.specs.model import ModelSpec


def pipeline(model: ModelSpec, g: Geometry) -> Block:
    blk = Block(g.n)
    blk.comm("pp_p2p", coll.p2p_chain(g.tok_pe * float(model.hidden) * g.cb, g.lv_pp), "pipe",
             2.0 * (g.pp - 1.0))
    return blk


def stage_layers(model: ModelSpec, pp: np.ndarray) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Layers of each kind in (the first, the last) stage: stage s holds layers [s·L/pp,
    (s+1)·L/pp) and counts the MoE layers of ``model.moe_layer_mask`` in that range (fractional
    layers where pp does not divide L)."""
    L = float(model.n_layers)
    Lp = L / pp
    # moe_upto(x): MoE layers among the first x layers, linear inside a layer
    cum = np.concatenate([[0.0], np.cumsum(np.asarray(model.moe_layer_mask, dtype=float))]) \
        if model.is_moe else np.zeros(model.n_layers + 1)
    moe_upto = lambda x: np.interp(x, np.arange(model.n_layers + 1.0), cum)  # noqa: E731
    moe_first, moe_last = moe_upto(Lp), cum[-1] - moe_upto(L - Lp)
    return {"all": (Lp, Lp), "dense": (Lp - moe_first, Lp - moe_last),
            "moe": (moe_first, moe_last)}


def stage_shares(model: ModelSpec, g: Geometry) -> tuple[dict, dict]:
    """Share of each kind's occurrences that runs in the first and in the last stage."""
    totals = {"all": float(model.n_layers), "dense": float(model.n_dense_layers),
              "moe": float(model.n_moe_layers)}
    first, last = {}, {}
    for kind, (f, la) in stage_layers(model, g.pp).items():
        t = totals[kind]
        first[kind] = f / t * g.ones() if t else np.zeros(g.n)
        last[kind] = la / t * g.ones() if t else np.zeros(g.n)
    single = (g.pp == 1).astype(float)
    first.update(first=np.ones(g.n), last=single, pipe=np.zeros(g.n))
    last.update(first=single, last=np.ones(g.n), pipe=np.zeros(g.n))
    return first, last


def memory_per_pe(model: ModelSpec, g: Geometry, mems: list[Mem]) -> dict[str, np.ndarray]:
    """The larger of the first and the last stage: its layers' weights and KV cache plus the
    once-per-model weights it holds, the largest live activation set and the resident buffers."""
    per_layer: dict[str, np.ndarray] = {}
    for m in mems:
        for kind, w in m.per_layer.items():
            per_layer[kind] = per_layer.get(kind, 0.0) + w
    layers = stage_layers(model, g.pp)
    kv = sum(m.kv_per_layer for m in mems)
    single = sum(m.single for m in mems)
    stages = []
    for s, once in ((0, sum(m.first for m in mems)), (1, sum(m.last for m in mems))):
        w = np.where(g.pp == 1, single, once)
        for kind, wk in per_layer.items():
            w = w + layers[kind][s] * wk
        stages.append((w * g.ones(), layers["all"][s] * kv * g.ones()))
    pick = stages[0][0] + stages[0][1] >= stages[1][0] + stages[1][1]
    acts = [a for m in mems for a in m.activations]
    workspace = np.maximum.reduce(acts) + sum(m.buffers for m in mems)
    return {"weights": np.where(pick, stages[0][0], stages[1][0]),
            "kv_cache": np.where(pick, stages[0][1], stages[1][1]),
            "workspace": workspace * g.ones()}
