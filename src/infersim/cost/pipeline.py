"""Pipeline block and the per-stage view: the (pp − 1) point-to-point sends of a micro-batch's
activations, how many layers of each kind the first and the last stage hold, and memory per PE
as that of the larger of the two.

Stages hold L/pp consecutive layers. Layer kinds sit in order (DeepSeek's ``first_k_dense``
dense-FFN layers come first), so a stage's weight and time are monotone in its index apart from
the embedding (first stage) and the LM head (last stage): the largest and the slowest stage is
always the first or the last, and only those two are costed.
"""
from __future__ import annotations

import numpy as np

from .. import collectives as coll
from ..model import ModelSpec
from .geometry import Geometry
from .terms import Block, Mem


def pipeline(model: ModelSpec, g: Geometry) -> Block:
    blk = Block(g.n)
    blk.comm("pp_p2p", coll.p2p_chain(g.tok_pe * float(model.hidden) * g.cb, g.lv_pp), "pipe",
             2.0 * (g.pp - 1.0))
    return blk


def stage_layers(model: ModelSpec, pp: np.ndarray) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Layers of each kind in (the first, the last) stage."""
    L, L_dense = float(model.n_layers), float(model.n_dense_layers)
    Lp = L / pp
    dense_first = np.minimum(L_dense, Lp)
    dense_last = np.clip(L_dense - (pp - 1.0) * Lp, 0.0, Lp)
    return {"all": (Lp, Lp), "dense": (dense_first, dense_last),
            "moe": (Lp - dense_first, Lp - dense_last)}


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
