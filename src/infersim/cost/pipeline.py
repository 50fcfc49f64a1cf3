"""Pipeline block: the (pp − 1) point-to-point sends of a micro-batch's activations between
stages, and memory per PE from the stages' layers and once-per-model weights."""
from __future__ import annotations

import numpy as np

from .. import collectives as coll
from ..model import ModelSpec
from .geometry import Geometry
from .terms import Block, Mem


def pipeline(model: ModelSpec, g: Geometry) -> Block:
    blk = Block()
    blk.comms["pp_p2p"] = coll.p2p_chain(g.tok_pe * float(model.hidden) * g.ab, g.lv_pp)
    return blk


def memory_per_pe(model: ModelSpec, g: Geometry, mems: list[Mem]) -> dict[str, np.ndarray]:
    """Weights of a stage (L/pp layers of each kind, plus the once-per-model weights), the KV
    cache of its layers, the largest live activation set and the resident buffers."""
    per_layer: dict[str, np.ndarray] = {}
    for m in mems:
        for kind, w in m.per_layer.items():
            per_layer[kind] = per_layer.get(kind, 0.0) + w
    layers = {"all": float(model.n_layers), "dense": float(model.n_dense_layers),
              "moe": float(model.n_moe_layers)}
    weights = 0.0
    for kind, w in per_layer.items():
        weights = weights + layers[kind] / g.pp * w
    single = sum(m.single for m in mems)
    first, last = sum(m.first for m in mems), sum(m.last for m in mems)
    weights = weights + np.where(g.pp == 1, single, np.maximum(first, last))
    kv = sum(m.kv_cache for m in mems) / g.pp
    acts = [a for m in mems for a in m.activations]
    workspace = np.maximum.reduce(acts) + sum(m.buffers for m in mems)
    return {"weights": weights * g.ones(), "kv_cache": kv * g.ones(), "workspace": workspace * g.ones()}
