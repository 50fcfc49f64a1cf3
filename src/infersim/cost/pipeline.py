"""Pipeline block and the per-stage view: the (pp − 1) point-to-point sends of a micro-batch's
activations, how many layers of each kind every stage holds, and memory per PE as that of the
heaviest stage.

Stage s of pp holds layers [s·L/pp, (s+1)·L/pp) (fractional layers pro rata where pp does not
divide L). Layers differ by kind — dense or MoE FFN (DeepSeek's ``first_k_dense`` first, Llama 4
Maverick's every other layer, any ``moe_layer_mask``) and attention span (full, sliding or chunked
layers cache different contexts, ``layer_types``) — so stages differ in weights, KV cache and time,
and the first stage also holds the embedding, the last the LM head.

* memory per PE is that of the heaviest stage over **every** stage (weights + KV cache);
* the slowest stage, which sets the pipeline's period, is searched among the first, the last and
  the middle stages with the most and the fewest MoE layers: a middle stage's time is linear in
  its MoE-layer count (its layer count is fixed), so one of those two is the slowest middle stage.
"""
from __future__ import annotations

from functools import lru_cache, reduce

import numpy as np

from infersim.cost import collectives as coll
from infersim.cost.geometry import Geometry, some
from infersim.cost.runs import chain_sum
from infersim.cost.terms import Block, Mem, columns
from infersim.specs.model import ModelSpec


def pipeline(model: ModelSpec, g: Geometry) -> Block:
    blk = Block(g.n)
    if some(g.pp > 1):
        blk.comm("pp_p2p", coll.p2p_chain(g.tok_pe * float(model.hidden) * g.cb, g.lv_pp), "pipe",
                 2.0 * (g.pp - 1.0))
    return blk


def _cumulative(model: ModelSpec, context: float) -> dict[str, np.ndarray]:
    """Per kind, the count over the first x layers for x = 0..L: "all" layers, "moe" and "dense"
    FFN layers, and "kv" — each layer's cached tokens relative to the layer mean (so a stage's KV
    cache is its "kv" count times the mean layer's)."""
    L = model.n_layers
    moe = np.asarray(model.moe_layer_mask, dtype=float) if model.is_moe else np.zeros(L)
    span = np.array([float(np.asarray(model.attention_span(t, context))) for t in (model.layer_types or ("full",) * L)])
    kv = span / span.mean() if span.mean() > 0 else np.ones(L)
    cum = lambda v: np.concatenate([[0.0], np.cumsum(v)])  # noqa: E731
    return {"all": cum(np.ones(L)), "dense": cum(1.0 - moe), "moe": cum(moe), "kv": cum(kv)}


@lru_cache(maxsize=1024)
def stage_counts(model: ModelSpec, pp: int, context: float = 0.0) -> dict[str, np.ndarray]:
    """Per kind (see :func:`_cumulative`), the count in each of the ``pp`` stages: (pp,) arrays
    (cached: read them, do not write to them)."""
    L = float(model.n_layers)
    edges = np.arange(pp + 1) * L / pp
    grid = np.arange(model.n_layers + 1.0)
    return {k: np.diff(np.interp(edges, grid, c)) for k, c in _cumulative(model, context).items()}


def stage_layers(model: ModelSpec, pp: np.ndarray) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Layers of each kind in (the first, the last) stage, per config."""
    pp = np.asarray(pp, dtype=float)
    out = {k: (np.zeros(len(pp)), np.zeros(len(pp))) for k in ("all", "dense", "moe")}
    for p in np.unique(pp):
        sel, counts = pp == p, stage_counts(model, int(p))
        for k in out:
            out[k][0][sel], out[k][1][sel] = counts[k][0], counts[k][-1]
    return out


def _slowest_candidates(model: ModelSpec, p: int) -> np.ndarray:
    """The stages of ``p`` whose time can be the slowest: (first, last, the middle stage with
    the most MoE layers, the one with the fewest)."""
    moe = stage_counts(model, p)["moe"]
    mid = np.arange(1, p - 1) if p > 2 else np.array([0])
    return np.array([0, p - 1, mid[np.argmax(moe[mid])], mid[np.argmin(moe[mid])]])


SHARE_KINDS = ("all", "dense", "moe", "first", "last")


def stage_shares(model: ModelSpec, g: Geometry) -> list[dict]:
    """For each stage that can be the slowest (:func:`_slowest_candidates`), the share of each
    kind's occurrences that runs in it: a (candidate, kind) table per distinct pp, gathered."""
    pp = np.asarray(g.pp * g.ones(), dtype=float)
    if g.n == 1:                                   # one config (simulate): its pp's shares, cached
        return [dict(s) for s in _one_config_shares(model, int(pp[0]))]
    ps, inv = np.unique(pp, return_inverse=True)
    return _shares(model, ps, inv, g.n)


def _shares(model: ModelSpec, ps, inv: np.ndarray, n: int) -> list[dict]:
    """Each candidate stage's share of each kind for configs of pipeline depths ``ps[inv]``."""
    table = np.stack([_share_table(model, int(p)) for p in ps] or [np.zeros((4, len(SHARE_KINDS)))])
    out = []
    # without interleaved MoE layers a stage's MoE count grows along the pipeline: the first and the
    # last stage bound every middle one, and only they are carried (evaluation sums each one)
    for j in range(4 if model.moe_layer_step > 1 else 2):
        shares = {k: table[inv.ravel(), j, c] for c, k in enumerate(SHARE_KINDS)}
        shares["pipe"] = np.zeros(n)
        out.append(shares)
    return out


@lru_cache(maxsize=1024)
def _one_config_shares(model: ModelSpec, p: int) -> list[dict]:
    """:func:`_shares` of one config of ``p`` stages (cached: its arrays are read-only)."""
    out = _shares(model, np.array([float(p)]), np.zeros(1, dtype=np.int64), 1)
    for shares in out:
        for a in shares.values():
            a.setflags(write=False)
    return out


@lru_cache(maxsize=1024)
def _share_table(model: ModelSpec, p: int) -> np.ndarray:
    """(candidate stage, kind) shares for ``p`` stages (cached: read it, do not write to it)."""
    totals = np.array([model.n_layers, model.n_dense_layers, model.n_moe_layers], dtype=float)
    counts, picks = stage_counts(model, p), _slowest_candidates(model, p)
    layers = np.stack([counts[k][picks] for k in ("all", "dense", "moe")], axis=1)
    table = np.zeros((4, len(SHARE_KINDS)))
    table[:, :3] = np.divide(layers, totals, out=np.zeros_like(layers), where=totals > 0)
    table[:, 3], table[:, 4] = picks == 0, picks == p - 1
    return table


def _uneven(model: ModelSpec) -> bool:
    """Whether a middle stage can outweigh both end stages: interleaved MoE layers or layers of
    different attention spans (otherwise the end stages, which add the embedding or the head to
    the same or more MoE layers, are the heaviest)."""
    return model.moe_layer_step > 1 or len(set(model.layer_types)) > 1


@lru_cache(maxsize=1024)
def _stage_rows(model: ModelSpec, p: int, context: float, kinds: tuple[str, ...]) -> np.ndarray:
    """One row per stage: (holds the first-stage weights, the last's, its layer counts of each
    of ``kinds``, its KV count); stages repeat, so only the distinct rows are costed (sweeps hold
    10^6 configs). Cached: read it, do not write to it."""
    counts = stage_counts(model, p, context)
    is_first = np.arange(p) == 0
    is_last = np.arange(p) == p - 1
    rows = np.column_stack([is_first, is_last, *(counts[k] for k in kinds), counts["kv"]])
    return np.unique(rows, axis=0) if _uneven(model) else rows[[0, -1]]


def memory_per_pe(model: ModelSpec, g: Geometry, mems: list[Mem]) -> dict[str, np.ndarray]:
    """The heaviest stage over every stage: its layers' weights and KV cache (each layer's own
    attention span) plus the once-per-model weights it holds, the largest live activation set and
    the resident buffers."""
    per_layer: dict[str, np.ndarray] = {}
    for m in mems:
        for kind, w in m.per_layer.items():
            per_layer[kind] = per_layer.get(kind, 0.0) + w
    kinds = tuple(per_layer)
    kv = single = first = last = 0
    for m in mems:                              # each sum in the blocks' order (chain_sum's)
        kv, single, first, last = kv + m.kv_per_layer, single + m.single, first + m.first, last + m.last
    cols = columns([kv, single, first, last] + [per_layer[k] for k in kinds], g.n)
    acts = [a for m in mems for a in m.activations]
    workspace = reduce(np.maximum, acts) + chain_sum(m.buffers for m in mems)   # scalars or (N,) arrays
    ones = g.ones()
    if g.n == 1:                                # one config: its floats against its stages' rows
        p = int(g.pp)
        w, c = _heaviest(_stage_rows(model, p, g.ctx, kinds), p, *cols.ravel().tolist())
        return {"weights": w * ones, "kv_cache": c * ones, "workspace": workspace * ones}
    pp = np.asarray(g.pp * ones, dtype=float)
    weights, kv_cache = np.zeros(g.n), np.zeros(g.n)
    for p in np.unique(pp):
        sel = pp == p
        weights[sel], kv_cache[sel] = _heaviest(_stage_rows(model, int(p), g.ctx, kinds), int(p),
                                                *(col[sel] for col in cols))
    return {"weights": weights, "kv_cache": kv_cache, "workspace": workspace * ones}


def _heaviest(rows: np.ndarray, p: int, kv, single, first, last, *per_layer):
    """(weights, KV cache) of the heaviest of the stages ``rows`` (:func:`_stage_rows`) of ``p``
    stages, for per-config totals (floats, or (M,) arrays: (M, stages) terms):

        weights_s = once_s + Σ_kind layers_s,kind · w_kind,   kv_s = kv layers_s · kv,
        once_s = single (p = 1) or first · [s first] + last · [s last]"""
    outer = np.multiply.outer
    once = outer(single, np.ones(len(rows))) if p == 1 else outer(first, rows[:, 0]) + outer(last, rows[:, 1])
    w = once + sum(outer(v, rows[:, 2 + j]) for j, v in enumerate(per_layer))
    c = outer(kv, rows[:, -1])
    top = np.argmax(w + c, axis=-1)
    at = top if np.ndim(top) == 0 else (np.arange(len(top)), top)
    return w[at], c[at]
