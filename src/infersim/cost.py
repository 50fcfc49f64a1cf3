"""The cost model: one vectorized implementation, evaluated over arrays of configurations.

Two stages, so that a co-design sweep pays for the configuration-dependent work once:

1. :func:`prepare` (model, hardware topology, configs, workload → :class:`Terms`): per PE and per
   operator the flops and bytes (already divided by the size-dependent efficiency), the per-level
   bytes and hops of every collective, the memory per PE. Nothing here depends on the six
   co-design knobs.
2. :func:`evaluate` (terms, knobs → latencies): the knobs (HBM capacity and bandwidth, peak
   FLOPs, the three link bandwidths) enter as scalars or as ``(H, 1)`` arrays that broadcast
   against the ``N`` configs, giving ``(H, N)`` results for H hardware candidates at once.

``simulate()`` is this code on arrays of length one.

Per layer and per PE (b = sequences per DP replica, T new tokens per sequence, ctx = s_kv,
tokens per PE t = b·T/cp in prefill, b·T in decode where CP ranks share the new token):

======================  ====================================================================
QKV projection          weights h·(n_q·d/tp + 2·d·kv_heads_pe), flops 2·t·h·cols
attention core          flops 4·b·pairs·q_heads_pe·d / (seq_split·cp), bytes KV read of
                        ctx/(seq_split·cp) tokens (pass-KV: ctx/seq_split, every chunk visits)
O projection            weights n_q·d/tp·h; all-reduce of t·h over TP
FFN up/gate, down       weights m·h·f/g (g = tp, or tp·cp for scope TP+CP); all-reduce over g
norms + residuals       10·t·h activation bytes (two norms, two residual adds)
LM head (last stage)    weights V·h/tp for the last token of each sequence; logits all-gather
PP                      (pp−1) p2p sends of t·h activations
CP ring (pass-KV)       (cp−1) steps, each max(block attention, send of a local KV chunk)
CP ring (pass-Q)        prefill: (cp−1) steps sending Q chunks, then an all-to-all of O, m, l;
                        decode: the query is already on every CP rank, so only an all-gather
                        of the partial O, m, l
MoE layer               router h·E; routed experts over G = tp·cp·dp ranks = ep × etp: each EP
                        rank serves n·k/ep token-expert pairs and reads only the experts the
                        step touches, E/ep·(1−(1−k/E)^n) of its E/ep; all-to-all dispatch and
                        combine over EP, gather/reduce-scatter over the etp expert slices;
                        shared experts run as a dense FFN
MLA attention           cache = kv_lora + rope values per token shared by all heads (MQA-like);
                        decode runs the absorbed path (scores/values in the latent space:
                        2(r+ρ)+2r flops per pair per head), prefill decompresses K and V
======================  ====================================================================

Each operator costs ``max(flops/(peak·eff_c), bytes/(bw·eff_m)) + kernels·overhead``; operators
whose compute term dominates count as "compute", the others as "hbm" in the breakdown.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from . import collectives as coll
from .hardware import KNOBS, HardwareSpec
from .model import DTYPE_BYTES, ModelSpec
from .parallel import ParArrays, group_levels, mesh_strides
from .workload import Workload

# Flash-attention query tile: KV blocks are re-read once per tile of queries in prefill.
Q_TILE = 128
# Softmax statistics m and l carried with each partial output row (fp32 each).
ML_BYTES = 8.0

COMM_COMPONENTS = ("tp_allreduce", "ffn_allreduce", "kv_seq_combine", "cp_combine",
                   "ep_alltoall", "pp_p2p", "lm_head_gather")
COMPONENTS = ("compute", "hbm", "overhead") + COMM_COMPONENTS + ("cp_ring",)


def _rate(dtype: str, hw: HardwareSpec) -> float:
    """Tensor throughput multiplier of the GEMM input dtype relative to fp16/bf16."""
    return {"fp8": hw.fp8_speedup, "int8": hw.int8_speedup, "fp32": 0.5}.get(dtype, 1.0)


@dataclass
class Op:
    """One operator: efficiency-scaled flops ``f`` and bytes ``m`` per PE per occurrence,
    ``mult`` occurrences per step, ``kernels`` launches per occurrence."""

    name: str
    f: np.ndarray
    m: np.ndarray
    mult: float
    kernels: int
    flops: np.ndarray       # raw, for the physical-floor check and reports
    nbytes: np.ndarray


@dataclass
class Terms:
    """Everything about N configs that does not depend on the six hardware knobs."""

    hw: HardwareSpec
    par: ParArrays
    ops: list[Op]
    attn_index: int
    comms: dict[str, coll.Comm]
    comm_total: coll.Comm
    ring_step: coll.Comm          # per ring step, per layer
    ring_mult: np.ndarray         # (cp - 1) · layers
    cp: np.ndarray
    overhead_ns: np.ndarray
    mem_bytes: np.ndarray
    mem_parts: dict[str, np.ndarray] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.par)

    def take(self, idx) -> "Terms":
        """The terms of a subset of the configs (e.g. those whose memory fits)."""
        ops = [Op(o.name, o.f[idx], o.m[idx], o.mult, o.kernels, o.flops[idx], o.nbytes[idx])
               for o in self.ops]
        return Terms(hw=self.hw, par=self.par.take(idx), ops=ops, attn_index=self.attn_index,
                     comms={k: c.take(idx) for k, c in self.comms.items()},
                     comm_total=self.comm_total.take(idx), ring_step=self.ring_step.take(idx),
                     ring_mult=self.ring_mult[idx], cp=self.cp[idx],
                     overhead_ns=self.overhead_ns[idx], mem_bytes=self.mem_bytes[idx],
                     mem_parts={k: v[idx] for k, v in self.mem_parts.items()})

    def fits(self, pe_hbm_gb: float) -> np.ndarray:
        """Memory-fit mask for one HBM capacity (the cheap rejection before the full cost)."""
        return self.mem_bytes <= self.hw.usable_bytes(pe_hbm_gb)


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


def prepare(model: ModelSpec, hw: HardwareSpec, par: ParArrays, wl: Workload) -> Terms:
    """Stage 1: hardware-knob-independent flops, bytes, collective terms and memory per PE."""
    f64 = lambda a: np.asarray(a, dtype=np.float64)  # noqa: E731
    tp, pp, dp, cp, ep = (f64(getattr(par, k)) for k in ("tp", "pp", "dp", "cp", "ep"))
    kv_mode, scope, ring = par.kv_shard_mode, par.ffn_shard_scope, par.cp_ring_variant
    n = len(par)
    prefill = wl.is_prefill
    h, L, d = float(model.hidden), float(model.n_layers), float(model.head_dim)
    nq, V = float(model.n_heads), float(model.vocab)
    wb, ab, kvb = (DTYPE_BYTES[model.weight_dtype], DTYPE_BYTES[model.act_dtype],
                   DTYPE_BYTES[model.kv_dtype])
    rate = _rate(model.act_dtype, hw)
    L_dense, L_moe = float(model.n_dense_layers), float(model.n_moe_layers)

    # ----- attention geometry: GQA/MHA, or MLA's shared latent ---------------------------------
    if model.is_mla:
        # the cache holds one latent (kv_lora + rope) per token, shared by every head: like MQA
        # with a wide head. Decode uses the absorbed path (scores and values in latent space),
        # prefill decompresses K and V and runs ordinary attention.
        nkv = 1.0
        kv_width = float(model.kv_lora_rank + model.qk_rope_head_dim)
        qk = float(model.qk_nope_head_dim + model.qk_rope_head_dim)
        if prefill:
            flops_per_pair_head, q_width = 2.0 * qk + 2.0 * model.v_head_dim, qk
        else:
            flops_per_pair_head = 2.0 * kv_width + 2.0 * model.kv_lora_rank
            q_width = kv_width
    else:
        nkv = float(model.n_kv_heads)
        kv_width, flops_per_pair_head, q_width = 2.0 * d, 4.0 * d, d

    # ----- token and sequence shares -----------------------------------------------------
    b = np.ceil(wl.batch / dp)                      # sequences per DP replica
    T, ctx, pairs = float(wl.new_tokens), float(wl.s_kv), wl.attn_pairs
    tok = b * T                                     # tokens per replica
    tok_pe = tok / cp if prefill else tok           # tokens through dense ops per PE
    is_kv_ring = (ring == 0) & (cp > 1)

    # ----- KV sharding inside TP (see parallel.py) ---------------------------------------------
    kvg = np.minimum(nkv, tp)
    seq_split = np.select([kv_mode == 1, kv_mode == 2], [tp, tp / kvg], 1.0)
    kvh_pe = np.where(kv_mode == 1, nkv, np.maximum(nkv / tp, 1.0))
    qh_pe = np.select([kv_mode == 1, kv_mode == 2], [nq, nq / kvg], nq / tp)

    # ----- placement → link levels of each group -----------------------------------------------
    ppc, pps = hw.pes_per_cube, hw.pes_per_sip
    strides = mesh_strides(par)
    # float copies once: every collective below reads them
    lv_tp = group_levels(strides["tp"], par.tp, ppc, pps).astype(float)
    lv_cp = group_levels(strides["cp"], par.cp, ppc, pps).astype(float)
    lv_pp = group_levels(strides["pp"], par.pp, ppc, pps).astype(float)
    lv_tpcp = lv_tp * lv_cp                         # nested groups: levels multiply
    lv_seq = group_levels(strides["tp"], seq_split.astype(np.int64), ppc, pps).astype(float)
    ffn_tpcp = scope == 1
    lv_ffn = np.where(ffn_tpcp[None, :], lv_tpcp, lv_tp)
    g_ffn = np.where(ffn_tpcp, tp * cp, tp)

    ops: list[Op] = []

    def add_op(name, flops, nbytes, mult, kernels):
        flops, nbytes = f64(flops) * np.ones(n), f64(nbytes) * np.ones(n)
        ops.append(Op(name, flops / (hw.compute_efficiency(flops) * rate),
                      nbytes / hw.memory_efficiency(nbytes), mult, kernels, flops, nbytes))

    # ----- attention block ---------------------------------------------------------------------
    if model.is_mla:
        rope, lora = float(model.qk_rope_head_dim), float(model.kv_lora_rank)
        q_lora = float(model.q_lora_rank)
        q_dim, up_dim = float(model.q_dim), nq * (model.qk_nope_head_dim + model.v_head_dim)
        # down-projections replicated on every TP rank, up-projections sharded by head
        repl = h * (lora + rope) + (h * q_lora + q_lora if q_lora else 0.0) + lora
        shard = (q_lora if q_lora else h) * q_dim / tp + lora * up_dim / tp
        w_qkv = (repl + shard) * wb
        proj_flops = 2 * tok_pe * (repl + shard)
        if prefill:      # decompress K and V of every cached token this PE attends over
            ctx_pe = b * ctx / cp
            proj_flops = 2 * tok_pe * (repl + (q_lora if q_lora else h) * q_dim / tp) \
                + 2 * ctx_pe * lora * up_dim / tp
        q_cols = kv_cols = q_dim / tp                # activation widths for the workspace
        add_op("qkv_proj", proj_flops, w_qkv + tok_pe * (h + q_dim / tp + lora + rope) * ab, L, 4)
    else:
        kv_proj_heads = np.where(kv_mode == 1, nkv / tp, np.maximum(nkv / tp, 1.0))
        q_cols = nq * d / tp
        kv_cols = 2.0 * d * kv_proj_heads
        bias = (q_cols + kv_cols) * wb if model.qkv_bias else 0.0
        w_qkv = h * (q_cols + kv_cols) * wb + bias
        add_op("qkv_proj", 2 * tok_pe * h * (q_cols + kv_cols),
               w_qkv + tok_pe * (h + q_cols + kv_cols) * ab, L, 2)

    attn_share = np.where(is_kv_ring & (not prefill), 1.0, 1.0 / cp)   # decode pass-KV: redundant
    attn_flops = b * pairs * qh_pe * flops_per_pair_head / seq_split * attn_share
    kv_tokens = ctx / seq_split * np.where(is_kv_ring, 1.0, 1.0 / cp)
    q_seq = T / cp if prefill else T                # queries per sequence on a PE
    rect = pairs / (T * ctx)                        # causal fraction of the (q, kv) rectangle
    kv_passes = np.maximum(1.0, q_seq * rect / Q_TILE)
    kv_read = b * kv_tokens * kvh_pe * kv_width * kvb * kv_passes
    tok_q = np.where((ring == 1) & prefill, tok, tok_pe)   # pass-Q: every rank's queries visit
    attn_bytes = (kv_read + 2.0 * tok_q * qh_pe * q_width * ab
                  + tok_pe * kvh_pe * kv_width * kvb / seq_split)
    add_op("attention", attn_flops, attn_bytes, L, 1)
    attn_index = len(ops) - 1

    o_rows = float(model.attn_out_dim) / tp
    w_o = o_rows * h * wb + (h * wb if model.dense_bias else 0.0)
    add_op("o_proj", 2 * tok_pe * o_rows * h, w_o + tok_pe * (o_rows + h) * ab, L, 1)

    # ----- FFN: dense layers, and the shared experts of MoE layers, sharded over g_ffn ----------
    tok_ffn = np.where(ffn_tpcp & prefill, tok, tok_pe)
    m = float(model.n_ffn_mats)

    def dense_ffn(name, width, mult):
        f_pe = width / g_ffn
        w_up, w_down = (m - 1) * h * f_pe * wb, h * f_pe * wb
        if mult:
            add_op(f"{name}_up_gate", 2 * tok_ffn * (m - 1) * h * f_pe,
                   w_up + tok_ffn * (h + m * f_pe) * ab, mult, 2)
            add_op(f"{name}_down", 2 * tok_ffn * h * f_pe, w_down + tok_ffn * (f_pe + h) * ab, mult, 1)
        return w_up + w_down, f_pe

    w_ffn_dense, f_pe = dense_ffn("ffn", float(model.ffn_hidden), L_dense)
    w_moe_layer = np.zeros(n)
    moe_act = np.zeros(n)
    comms_moe = coll.Comm.zeros(n)
    if model.is_moe:
        E, k, fe = float(model.n_experts), float(model.n_experts_per_tok), float(model.moe_ffn_hidden)
        w_shared, _ = dense_ffn("shared_expert", model.n_shared_experts * fe, L_moe)
        add_op("router", 2 * tok_pe * h * E, h * E * wb + tok_pe * (h + E) * ab, L_moe, 2)
        # routed experts over the MoE group G = tp·cp·dp = ep (experts) × etp (expert slices)
        G = tp * cp * dp
        etp = G / ep
        n_tok = dp * tok                            # distinct tokens in the group this step
        assign = n_tok * k / ep                     # token-expert pairs per EP rank
        touched = (E / ep) * (1.0 - (1.0 - k / E) ** n_tok)   # expected distinct local experts
        w_expert = m * h * fe * wb
        add_op("moe_experts", 2 * assign * m * h * fe / etp,
               touched * w_expert / etp + assign * (2 * h + m * fe / etp) * ab, L_moe, 3)
        w_moe_layer = (E / ep) * w_expert / etp + w_shared + h * E * wb
        moe_act = assign * (h + m * fe / etp) * ab
        # Token movement. The G ranks form ep teams of etp ranks; a team hosts E/ep experts,
        # each sliced etp ways. A token visits the teams holding its k experts
        # (p_team = 1 - (1 - 1/ep)^k of them each): all-to-all dispatch and combine over EP of
        # each rank's 1/G share of the tokens; inside a team, the slices gather the inputs they
        # do not already hold (tokens of other TP groups) and reduce-scatter their partial
        # outputs; finally the TP (decode: TP·CP) replicas of a token gather its result. With
        # ep = 1 and G = tp this is exactly the dense FFN's all-reduce (reduce-scatter +
        # all-gather).
        lv_G = (lv_tp * lv_cp * group_levels(strides["dp"], par.dp, ppc, pps)).astype(np.int64)
        lv_etp, lv_ep = split_levels(lv_G, etp.astype(np.int64))
        p_team = 1.0 - (1.0 - 1.0 / ep) ** k
        team_tok = n_tok * p_team
        a2a = coll.all_to_all(n_tok / G * ep * p_team * h * ab, lv_ep).scale(2.0)
        missing = team_tok * (1.0 - tok / n_tok) * h * ab
        slices = (coll.all_gather(missing, lv_etp)
                  + coll.reduce_scatter(team_tok * h * ab * (etp > 1), lv_etp))
        back = coll.all_gather(tok_pe * h * ab, lv_tp if prefill else lv_tpcp)
        comms_moe = (a2a + slices + back).scale(L_moe)
    add_op("norms", 10 * tok_pe * h, 10 * tok_pe * h * ab, L, 2)

    # ----- once per step: embedding (first stage), LM head (last stage) -------------------------
    add_op("embedding", 0.0, tok_pe * h * (wb + ab), 1.0, 1)
    head_tok = b                                     # logits of the last token of each sequence
    add_op("lm_head", 2 * head_tok * h * V / tp, V * h / tp * wb + head_tok * (h + V / tp) * ab, 1.0, 2)

    # ----- collectives -------------------------------------------------------------------------
    act = tok_pe * h * ab
    ffn_layers = L_dense + (L_moe if model.n_shared_experts else 0.0)
    comms = {
        # O-projection all-reduce per layer, plus the vocab-parallel embedding's all-reduce
        "tp_allreduce": coll.all_reduce(act, lv_tp).scale(L + 1.0),
        "ffn_allreduce": coll.all_reduce(tok_ffn * h * ab, lv_ffn).scale(ffn_layers),
        "lm_head_gather": coll.all_gather(head_tok * V * ab, lv_tp),
        "pp_p2p": coll.p2p_chain(act, lv_pp),
        "ep_alltoall": comms_moe,
    }
    # prefill with FFN over tp·cp: the CP ranks first gather each other's tokens
    gather_in = coll.all_gather(np.where(ffn_tpcp & prefill, tok * h * ab, 0.0), lv_cp)
    comms["ffn_allreduce"] = comms["ffn_allreduce"] + gather_in.scale(ffn_layers)
    # KV sharded by sequence inside TP: gather all heads' queries, reduce-scatter O, m, l
    q_bytes = tok_pe * qh_pe * q_width * ab
    oml_bytes = tok_pe * qh_pe * (q_width * ab + ML_BYTES)
    seq_on = (seq_split > 1).astype(float)
    comms["kv_seq_combine"] = (coll.all_gather(q_bytes * seq_on, lv_seq)
                               + coll.reduce_scatter(oml_bytes * seq_on, lv_seq)).scale(L)
    # CP combine for pass-Q: decode all-gathers the partial O, m, l of every rank; prefill
    # returns them to the query owners with an all-to-all
    qoml_on = ((ring == 1) & (cp > 1)).astype(float)
    oml_all = tok * qh_pe * (q_width * ab + ML_BYTES) * qoml_on
    comms["cp_combine"] = (coll.all_to_all(oml_all, lv_cp) if prefill
                           else coll.all_gather(oml_all * cp, lv_cp)).scale(L)
    comm_total = coll.Comm.zeros(n)
    for c in comms.values():
        comm_total = comm_total + c

    # ring step payload: pass-KV sends a local KV chunk, pass-Q (prefill) a local query chunk
    kv_chunk = b * (ctx / cp) / seq_split * kvh_pe * kv_width * kvb
    q_chunk = tok_pe * qh_pe * q_width * ab if prefill else np.zeros(n)
    step_bytes = np.where(ring == 0, kv_chunk, q_chunk) * (cp > 1)
    ring_step = coll.ring_step(step_bytes, lv_cp)
    ring_mult = (cp - 1.0) * L

    overhead = np.zeros(n)
    for op in ops:
        overhead = overhead + op.mult * op.kernels * hw.kernel_overhead_ns

    # ----- memory per PE -----------------------------------------------------------------------
    Lp = L / pp
    norm_w = (2.0 if model.norm == "rmsnorm" else 4.0) * h * wb
    weights = (Lp * (w_qkv + w_o + norm_w)
               + (L_dense / pp) * w_ffn_dense + (L_moe / pp) * w_moe_layer)
    emb = (model.embedding_params() / tp) * wb
    head = 0.0 if model.tied_embeddings else V * h / tp * wb
    weights = weights + np.where(pp == 1, emb + head, np.maximum(emb, V * h / tp * wb))
    kv_cache = b * ctx * Lp * kvh_pe * kv_width * kvb / (seq_split * cp)
    ring_buf = np.where(is_kv_ring, 2.0 * kv_chunk, 0.0)
    workspace = np.maximum.reduce([
        tok_pe * (2 * h + q_cols + kv_cols) * ab,
        tok_ffn * (h + m * f_pe) * ab,
        tok_q * qh_pe * (q_width * ab + ML_BYTES) * 2,
        moe_act * np.ones(n),
    ]) + b * V / tp * 4.0 + ring_buf
    mem = weights + kv_cache + workspace

    return Terms(hw=hw, par=par, ops=ops, attn_index=attn_index, comms=comms,
                 comm_total=comm_total, ring_step=ring_step, ring_mult=ring_mult, cp=cp,
                 overhead_ns=overhead, mem_bytes=mem,
                 mem_parts={"weights": weights, "kv_cache": kv_cache, "workspace": workspace})


def knob_values(hw: HardwareSpec, knobs: dict | None = None) -> dict:
    """The six knobs of ``hw``, overridden by ``knobs`` (scalars or arrays over candidates)."""
    vals = hw.knobs()
    if knobs:
        vals.update(knobs)
    return vals


def evaluate(terms: Terms, knobs: dict | None = None, breakdown: bool = True) -> dict:
    """Stage 2: latency (ns) of every config for the given knob values.

    Returns ``total_ns``, ``fits`` and, with ``breakdown``, one array per component in
    :data:`COMPONENTS` (they sum to ``total_ns``) and ``op_times_ns`` (each operator's roofline
    time, launch overhead excluded). Knob arrays of shape ``(H, 1)`` give ``(H, N)`` results."""
    hw = terms.hw
    k = knob_values(hw, knobs)
    flops_per_ns = np.asarray(k["peak_tflops_f16"]) * 1e3
    bw = np.asarray(k["bw_hbm_gbs"])
    bws = (k["bw_intra_gbs"], k["bw_inter_gbs"], k["bw_intersip_gbs"])
    alphas = hw.link_alpha_ns()

    compute = hbm = 0.0
    attn_t = None
    op_times = {}
    for i, op in enumerate(terms.ops):
        tc = op.f / flops_per_ns
        tm = op.m / bw
        if i == terms.attn_index:
            attn_t = np.maximum(tc, tm)
        if breakdown:
            c_dom = tc >= tm
            compute = compute + np.where(c_dom, tc, 0.0) * op.mult
            hbm = hbm + np.where(c_dom, 0.0, tm) * op.mult
            op_times[op.name] = np.maximum(tc, tm) * op.mult
        else:
            compute = compute + np.maximum(tc, tm) * op.mult

    step = terms.ring_step.time_ns(bws, alphas, hw.link_eff)
    ring = terms.ring_mult * np.maximum(0.0, step - attn_t / terms.cp)
    fits = terms.fits(np.asarray(k["pe_hbm_gb"]))

    if not breakdown:
        total = compute + terms.overhead_ns + ring + terms.comm_total.time_ns(bws, alphas, hw.link_eff)
        return {"total_ns": total, "fits": fits}
    out = {"compute": compute, "hbm": hbm, "overhead": terms.overhead_ns + 0.0 * bw}
    for name in COMM_COMPONENTS:
        out[name] = terms.comms[name].time_ns(bws, alphas, hw.link_eff)
    out["cp_ring"] = ring
    total = 0.0
    for name in COMPONENTS:
        total = total + out[name]
    out["total_ns"] = total
    out["fits"] = fits
    out["op_times_ns"] = op_times
    return out


def bound_of(result: dict) -> np.ndarray:
    """'compute', 'memory' or 'comm': which of the three sums dominates each config."""
    comm = sum(result[c] for c in COMM_COMPONENTS) + result["cp_ring"]
    stacked = np.stack(np.broadcast_arrays(result["compute"], result["hbm"], comm))
    return np.array(["compute", "memory", "comm"])[np.argmax(stacked, axis=0)]


__all__ = ["prepare", "evaluate", "bound_of", "Terms", "COMPONENTS", "KNOBS"]
