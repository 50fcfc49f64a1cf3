"""MoE block: router, routed experts over the G = tp·cp·dp ranks (= ep × etp), shared experts.

Each EP rank serves n·k/ep token-expert pairs and reads only the experts the step touches,
E/ep·(1−(1−k/E)^n) of its E/ep; all-to-all dispatch and combine over EP, gather/reduce-scatter
over the etp expert slices; shared experts run as a dense FFN (sharded like it).
"""
from __future__ import annotations

import numpy as np

from .. import collectives as coll
from ..model import ModelSpec
from .ffn import ffn_allreduce, ffn_ops
from .geometry import Geometry
from .terms import Block


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


def _token_movement(model: ModelSpec, g: Geometry, n_tok, etp) -> coll.Comm:
    """The G ranks form ep teams of etp ranks; a team hosts E/ep experts, each sliced etp ways.
    A token visits the teams holding its k experts (p_team = 1 − (1 − 1/ep)^k of them each):
    all-to-all dispatch and combine over EP of each rank's 1/G share of the tokens; inside a team
    the slices gather the inputs they do not already hold (tokens of other TP groups) and
    reduce-scatter their partial outputs; finally the TP (decode: TP·CP) replicas of a token
    gather its result. With ep = 1 and G = tp this is exactly the dense FFN's all-reduce."""
    h, k, ab = float(model.hidden), float(model.n_experts_per_tok), g.ab
    G = g.tp * g.cp * g.dp
    lv_G = (g.lv_tp * g.lv_cp * g.lv_dp).astype(np.int64)
    lv_etp, lv_ep = split_levels(lv_G, etp.astype(np.int64))
    p_team = 1.0 - (1.0 - 1.0 / g.ep) ** k
    team_tok = n_tok * p_team
    a2a = coll.all_to_all(n_tok / G * g.ep * p_team * h * ab, lv_ep).scale(2.0)
    missing = team_tok * (1.0 - g.tok / n_tok) * h * ab
    slices = (coll.all_gather(missing, lv_etp)
              + coll.reduce_scatter(team_tok * h * ab * (etp > 1), lv_etp))
    back = coll.all_gather(g.tok_pe * h * ab, g.lv_tp if g.prefill else g.lv_tpcp)
    return a2a + slices + back


def moe(model: ModelSpec, g: Geometry) -> Block:
    blk = Block()
    if not model.is_moe:
        blk.comms["ep_alltoall"] = coll.Comm.zeros(g.n)
        return blk
    h, L_moe, wb, ab = float(model.hidden), float(model.n_moe_layers), g.wb, g.ab
    E, k, fe = float(model.n_experts), float(model.n_experts_per_tok), float(model.moe_ffn_hidden)
    m = float(model.n_ffn_mats)
    w_shared, _ = ffn_ops(model, g, blk, "shared_expert", model.n_shared_experts * fe, L_moe)
    if model.n_shared_experts:
        blk.comms["ffn_allreduce"] = ffn_allreduce(model, g, L_moe)
    blk.op("router", 2 * g.tok_pe * h * E, h * E * wb + g.tok_pe * (h + E) * ab, L_moe, 2, g.n)
    etp = g.tp * g.cp * g.dp / g.ep
    n_tok = g.dp * g.tok                            # distinct tokens in the group this step
    assign = n_tok * k / g.ep                       # token-expert pairs per EP rank
    touched = (E / g.ep) * (1.0 - (1.0 - k / E) ** n_tok)   # expected distinct local experts
    w_expert = m * h * fe * wb
    blk.op("moe_experts", 2 * assign * m * h * fe / etp,
           touched * w_expert / etp + assign * (2 * h + m * fe / etp) * ab, L_moe, 3, g.n)
    blk.comms["ep_alltoall"] = _token_movement(model, g, n_tok, etp).scale(L_moe)
    blk.mem.per_layer["moe"] = (E / g.ep) * w_expert / etp + w_shared + h * E * wb
    blk.mem.activations = [assign * (h + m * fe / etp) * ab * g.ones()]
    return blk
