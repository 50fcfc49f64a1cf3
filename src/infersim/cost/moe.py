"""MoE block: router, routed experts over the G = tp·cp·dp ranks (= ep × etp), shared experts.

The layer waits for the busiest EP rank, so it is costed at the expected maximum over the ep
ranks (:mod:`infersim.cost.occupancy`), not the mean: of the token-expert pairs a rank serves (mean
n·k/ep) and of the distinct experts it must read (mean E/ep·(1−(1−k/E)^n)). At batch-1 decode
Mixtral's two active experts each sit whole on one of 8 EP ranks, so the busiest rank reads a
whole expert where TP8 reads 1/8 of both. All-to-all dispatch and combine over EP (the busiest rank receives its maximum
share), gather/reduce-scatter over the etp expert slices; shared experts run as a dense FFN.
"""
from __future__ import annotations

import numpy as np

from infersim.cost import collectives as coll
from infersim.cost.ffn import ffn_allreduce, ffn_ops
from infersim.cost.geometry import Geometry, where
from infersim.cost.occupancy import busiest_rank_experts, busiest_rank_pairs
from infersim.cost.terms import Block
from infersim.specs.model import DTYPE_BYTES, ModelSpec


def split_levels(levels: np.ndarray, inner: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Split a group's per-level counts into an inner subgroup of ``inner`` consecutive members
    (filling the fastest level first) and the outer subgroup that strides over it."""
    inner = np.asarray(inner, dtype=np.int64)
    g_in = np.empty_like(levels)
    rem = inner
    for lvl in range(levels.shape[0]):
        g_in[lvl] = np.minimum(rem, levels[lvl])
        rem = -(-rem // g_in[lvl])
    return g_in, -(-levels // g_in)


def _token_movement(model: ModelSpec, g: Geometry, n_tok, etp,
                    imbalance) -> list[tuple[coll.Comm, np.ndarray]]:
    """The G ranks form ep teams of etp ranks; a team hosts E/ep experts, each sliced etp ways.
    A token visits the teams holding its k experts (p_team = 1 − (1 − 1/ep)^k of them each):
    all-to-all dispatch and combine over EP of each rank's 1/G share of the tokens; inside a team
    the slices gather the inputs they do not already hold (tokens of other TP groups) and
    reduce-scatter their partial outputs; finally the TP replicas of a token (TP·CP where every
    CP rank holds every token: pass-KV decode) gather its result. Where that reduce-scatter and
    gather span the same ranks and tokens (ep = 1, dp = 1, and cp = 1 where CP splits the
    tokens) they are one all-reduce and may take its cheaper
    algorithms, exactly as the dense FFN's. The dispatch and combine carry ``imbalance``
    (busiest / mean pairs) times the mean share. Each collective comes with the kernels it
    launches per layer: only the collectives that run (ep > 1 for the all-to-all, dp > 1 for
    the gather of missing inputs, etp > 1 for the reduce-scatter, a TP group for the gather)."""
    h, k, ab = float(model.hidden), float(model.n_experts_per_tok), g.cb
    G = g.tp * g.cp * g.dp
    lv_G = (g.lv_tp.g * g.lv_cp.g * g.lv_dp.g).astype(np.int64)
    lv_etp, lv_ep = split_levels(lv_G, etp.astype(np.int64))
    # np.power, not **: on one config's NumPy scalar ** takes C's pow, which can differ from the
    # array loop in the last bit (the same formula must give the same bits for one config or many)
    p_team = 1.0 - np.power(1.0 - 1.0 / g.ep, k)
    team_tok = n_tok * p_team
    a2a = coll.all_to_all(n_tok / G * g.ep * p_team * h * ab * imbalance, lv_ep).scale(2.0)
    missing = team_tok * (1.0 - g.tok / n_tok) * h * ab
    lv_back = g.lv_rep
    split = (coll.reduce_scatter(team_tok * h * ab * (etp > 1), lv_etp)
             + coll.all_gather(g.tok_pe * h * ab, lv_back))
    fused = coll.all_reduce(g.tok_pe * h * ab, lv_back)
    one_group = (g.ep == 1) & (g.dp == 1) & ((g.cp == 1) | ~g.q_split)
    back = lv_back.g.prod(axis=0) > 1               # the token's replicas span more than one PE
    return [(a2a, 2.0 * (g.ep > 1)),
            (coll.all_gather(missing, lv_etp), 1.0 * ((etp > 1) & (g.dp > 1))),
            (coll.Comm.where(one_group, fused, split),
             where(one_group, 1.0 * back, 1.0 * (etp > 1) + back))]


def moe(model: ModelSpec, g: Geometry) -> Block:
    blk = Block(g.n)
    if not model.is_moe:
        return blk
    h, L_moe, wb, ab = float(model.hidden), float(model.n_moe_layers), g.wb, g.ab
    E, k, fe = model.n_experts, model.n_experts_per_tok, float(model.moe_ffn_hidden)
    m = float(model.n_ffn_mats)
    w_shared, _ = ffn_ops(model, g, blk, "shared_expert", model.n_shared_experts * fe, L_moe, "moe")
    if model.n_shared_experts:
        ffn_allreduce(model, g, blk, L_moe, "moe")
    blk.gemm(model, "router", 2 * g.tok_pe * h * E, h * E * wb + g.tok_pe * (h + E) * ab, L_moe, 2, "moe")
    G = g.tp * g.cp * g.dp
    etp = G / g.ep
    n_tok = g.dp * g.tok                            # distinct tokens in the group this step
    assign = busiest_rank_pairs(n_tok, k, g.ep)     # token-expert pairs on the busiest rank
    touched = busiest_rank_experts(n_tok, k, E, g.ep)   # experts the busiest rank reads
    w_expert = m * h * fe * DTYPE_BYTES[model.expert_dtype]
    # a grouped GEMM over the experts the rank touches: each expert's GEMM has only its own
    # tokens (M = pairs / experts), so it computes at the efficiency of that size, not the sum's;
    # its weight loads stream as one kernel's (the efficiency of the total bytes)
    blk.gemm(model, "moe_experts", 2 * assign * m * h * fe / etp,
             touched * w_expert / etp + assign * (2 * h + m * fe / etp) * ab, L_moe, 3, "moe",
             experts=True, problems=touched)
    imbalance = assign / (n_tok * k / g.ep)
    for c, n_kernels in _token_movement(model, g, n_tok, etp, imbalance):
        blk.comm("ep_alltoall", c.scale(L_moe), "moe", n_kernels * L_moe)
    blk.mem.per_layer["moe"] = (E / g.ep) * w_expert / etp + w_shared + h * E * wb
    blk.mem.activations = [assign * (h + m * fe / etp) * ab * g.ones()]
    return blk
