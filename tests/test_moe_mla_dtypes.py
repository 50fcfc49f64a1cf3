"""MoE + expert parallel, MLA, quantized data types."""
import numpy as np
import pytest

from conftest import IDEAL_RT, ideal_hw
from infersim import Parallelism, Workload, cost, simulate
from infersim.auto_explore import auto_explore
from infersim.auto_hardware import joint_explore
from infersim.cost.occupancy import busiest_rank_pairs
from infersim.hardware_presets import HW_PRESETS
from infersim.model_presets import PRESETS
from infersim.specs.parallel import ParArrays

MOE = [n for n, p in PRESETS.items() if p.published_active_params]


@pytest.mark.parametrize("name", MOE)
def test_moe_param_counts(name):
    p = PRESETS[name]
    assert p.model.is_moe
    assert p.model.param_count() == pytest.approx(p.published_params, rel=0.01)
    assert p.model.active_param_count() == pytest.approx(p.published_active_params, rel=0.02)


def op_bytes(model, hw, par, wl, name):
    terms = cost.prepare(model, hw, ParArrays.from_configs([par], wl), wl)
    return next(float(o.nbytes[0]) for o in terms.ops if o.name == name)


def test_moe_decode_reads_only_active_experts():
    m = PRESETS["Mixtral 8x7B"].model
    hw = ideal_hw(n_pes=8)
    expert = 3 * 4096 * 14336 * 2
    one = op_bytes(m, hw, Parallelism(), Workload("decode", s_kv=1024), "moe_experts")
    assert one == pytest.approx(2 * expert, rel=1e-3)             # top-2 of 8 at batch 1
    many = op_bytes(m, hw, Parallelism(), Workload("decode", s_kv=1024, batch=64), "moe_experts")
    # 64 tokens each pick 2 of 8: expected distinct experts 8·(1 − (6/8)^64) ≈ 8, plus the
    # activations of 128 token-expert pairs (in, out, and the 3 intermediate rows)
    acts = 128 * (2 * 4096 + 3 * 14336) * 2
    assert many == pytest.approx(8 * (1 - 0.75 ** 64) * expert + acts, rel=1e-9)
    r1 = simulate(m, hw, Parallelism(), Workload("decode", s_kv=1024), runtime=IDEAL_RT)
    dense_equiv = m.active_param_count() * 2 / hw.bw_hbm_gbs
    assert r1.total_latency_ns < 1.01 * (dense_equiv + 1024 * m.kv_bytes_per_token / hw.bw_hbm_gbs)


def test_ep_all_to_all_follows_formula():
    m = PRESETS["Mixtral 8x7B"].model
    hw = ideal_hw(n_pes=8)
    r = simulate(m, hw, Parallelism(dp=4, ep=4), Workload("decode", s_kv=1024, batch=4),
                 runtime=IDEAL_RT)
    # G = 4 ranks, etp = 1; each rank ships its token to the teams holding its 2 experts:
    # 4 teams x p_team = 1 - (3/4)^2 copies of 4096 bf16 values, dispatch + combine, scaled
    # by the busiest rank's share of the 8 token-expert pairs over its mean share (2)
    imbalance = float(busiest_rank_pairs(np.array([4.0]), 2, np.array([4.0]))[0]) / 2
    assert 1.2 < imbalance < 2.0
    n = 4 * (1 - 0.75 ** 2) * 4096 * 2 * imbalance
    pairwise = 3 / 4 * n / hw.bw_intra_gbs + 3 * hw.alpha_intra_ns
    bruck = 2 / 2 * n / hw.bw_intra_gbs + 2 * hw.alpha_intra_ns
    assert r.breakdown_ns["ep_alltoall"] == pytest.approx(32 * 2 * min(pairwise, bruck))


def test_ep_one_equals_dense_tp_allreduce():
    m = PRESETS["Mixtral 8x7B"].model
    hw = ideal_hw(n_pes=8)
    r = simulate(m, hw, Parallelism(tp=4), Workload("decode", s_kv=1024))
    per_layer_ar = r.breakdown_ns["tp_allreduce"] / 33          # 32 layers + embedding
    assert r.breakdown_ns["ep_alltoall"] == pytest.approx(32 * per_layer_ar)


def test_ep_splits_expert_memory():
    m = PRESETS["Mixtral 8x7B"].model
    hw = HW_PRESETS["H100-SXM x8"]
    wl = Workload("decode", s_kv=4096, batch=8)
    w1 = simulate(m, hw, Parallelism(dp=8, ep=1), wl).mem_breakdown_bytes["weights"]
    w8 = simulate(m, hw, Parallelism(dp=8, ep=8), wl).mem_breakdown_bytes["weights"]
    experts = 32 * 8 * 3 * 4096 * 14336 * 2
    # ep=1 slices every expert 8 ways, ep=8 places one whole expert per rank: same bytes
    assert w1 == pytest.approx(w8)
    assert w8 < m.weight_bytes() - experts * 7 / 8 + 1e6


def test_mla_kv_bytes_match_deepseek_v3():
    m = PRESETS["DeepSeek-V3"].model
    assert m.is_mla and m.kv_bytes_per_token == 61 * (512 + 64) * 2 == 70_272
    hw = HW_PRESETS["H200 x8"]
    wl = Workload("decode", s_kv=32768)
    fp8 = m.with_dtypes(weight="fp8")
    head = simulate(fp8, hw, Parallelism(tp=8), wl)
    seq = simulate(fp8, hw, Parallelism(tp=8, kv_shard_mode="seq"), wl)
    # the latent is shared by all heads: replicated on every TP rank unless split by sequence
    assert head.mem_breakdown_bytes["kv_cache"] == pytest.approx(32768 * 70_272)
    assert seq.mem_breakdown_bytes["kv_cache"] == pytest.approx(32768 * 70_272 / 8)
    assert seq.breakdown_ns["kv_seq_combine"] > 0


def test_mla_decode_reads_latent_not_full_kv():
    m = PRESETS["DeepSeek-V3"].model
    hw = ideal_hw(n_pes=8)
    kv_read = op_bytes(m, hw, Parallelism(), Workload("decode", s_kv=16384), "attention")
    latent = 16384 * 576 * 2
    assert latent <= kv_read < 1.05 * latent        # ~1 KB per token per layer, not 128 heads x 2 x 192


def test_fp8_weights_halve_decode_weight_traffic(llama70b):
    hw = ideal_hw()
    wl = Workload("decode", s_kv=1024)
    for name in ("qkv_proj", "o_proj", "ffn_up_gate", "ffn_down"):
        bf16 = op_bytes(llama70b, hw, Parallelism(), wl, name)
        fp8 = op_bytes(llama70b.with_dtypes(weight="fp8"), hw, Parallelism(), wl, name)
        assert fp8 / bf16 == pytest.approx(0.5, abs=0.002)
    # the LM head stays 16-bit in a quantised checkpoint unless its own dtype says otherwise
    bf16 = op_bytes(llama70b, hw, Parallelism(), wl, "lm_head")
    assert op_bytes(llama70b.with_dtypes(weight="fp8"), hw, Parallelism(), wl, "lm_head") == bf16
    head_fp8 = op_bytes(llama70b.with_dtypes(weight="fp8", head="fp8"), hw, Parallelism(), wl, "lm_head")
    assert head_fp8 / bf16 == pytest.approx(0.5, abs=0.002)
    # int4 weights, 16-bit embedding and head: by hand, 0.53125 B per other weight, 2 B per head one
    head = llama70b.embedding_params() + llama70b.lm_head_params()
    rest = llama70b.param_count() - head
    expect = (rest * (0.5 + 4 / 128) + head * 2) / (llama70b.param_count() * 2)
    int4 = simulate(llama70b.with_dtypes(weight="int4"), hw, Parallelism(), wl, IDEAL_RT).total_latency_ns
    bf16 = simulate(llama70b, hw, Parallelism(), wl, IDEAL_RT).total_latency_ns
    assert expect == pytest.approx(0.288, abs=0.002)
    assert int4 / bf16 == pytest.approx(expect, abs=0.01)     # decode at batch 1 streams the weights


def test_quantised_checkpoint_keeps_a_16_bit_head(llama8b):
    """Llama 3.1 8B in fp8 (ModelOpt, compressed-tensors, vLLM's fp8 all leave lm_head and the
    embedding unquantised): 6.98 G weights at 1 B plus 1.05 G embedding and head at 2 B."""
    fp8 = llama8b.with_dtypes(weight="fp8", act="fp8")
    assert (llama8b.head_dtype, fp8.head_dtype, fp8.head_gemm_dtype) == ("bf16", "bf16", "bf16")
    head = 2 * 128256 * 4096
    assert fp8.embedding_params() + fp8.lm_head_params() == head
    assert fp8.weight_bytes() == (fp8.param_count() - head) * 1 + head * 2
    assert fp8.weight_bytes() / 1e9 == pytest.approx(9.08, abs=0.01)
    assert fp8.with_dtypes(head="fp8").weight_bytes() == fp8.param_count()        # gpt-fast style
    assert fp8.with_dtypes(weight="bf16").head_weight_dtype == ""                 # a new weight dtype resets it
    assert llama8b.with_dtypes(weight="int4", act="fp16").head_dtype == "fp16"    # beside fp16 activations


def test_fp8_compute_rate_depends_on_hardware(llama8b):
    wl = Workload("prefill", s_kv=8192)
    fp8 = llama8b.with_dtypes(weight="fp8", act="fp8")
    for hw_name, speedup in (("H100-SXM x8", 2.0), ("A100-SXM x8", 1.0)):
        hw = HW_PRESETS[hw_name]
        arrays = ParArrays.from_configs([Parallelism()], wl)
        a = {o.name: o for o in cost.prepare(llama8b, hw, arrays, wl).ops}
        b = {o.name: o for o in cost.prepare(fp8, hw, arrays, wl).ops}
        for name in ("qkv_proj", "ffn_up_gate", "ffn_down"):
            # same flops; time ratio = the fp8 tensor-rate multiplier times the ratio of the
            # efficiencies fp8 and bf16 GEMMs of that size reach on this part
            flops = a[name].flops[0]
            assert flops == b[name].flops[0]
            eff = hw.compute_efficiency(flops, "fp8") / hw.compute_efficiency(flops, "bf16")
            assert a[name].f[0] / b[name].f[0] == pytest.approx(speedup * eff)
            # calibrated H100: fp8 prefill GEMMs in real stacks reach ~1.3x bf16 (not 2x)
            assert speedup * eff > 1.2 if speedup > 1 else speedup * eff == 1.0
        # with a bf16 KV cache the attention matmuls stay at the bf16 rate
        assert a["attention"].f[0] == b["attention"].f[0]
        t_bf16 = simulate(llama8b, hw, Parallelism(), wl).total_latency_ns
        t_fp8 = simulate(fp8, hw, Parallelism(), wl).total_latency_ns
        assert t_fp8 < t_bf16 if speedup > 1 else t_fp8 <= t_bf16


def test_explorer_and_codesign_sweep_ep_for_moe():
    m = PRESETS["Mixtral 8x7B"].model
    hw = HW_PRESETS["Generic SiP (default)"]
    res = auto_explore(m, hw, Workload("decode", s_kv=4096, batch=16))
    assert set(np.unique(res.configs.ep).tolist()) == {1, 2, 4, 8}
    assert res.best.ep >= 1 and res.n_fitting > 1000
    joint = joint_explore(m, s_kv=4096, batch=16, depth="balanced", sensitivity=False)
    assert len(joint.all_scores) == 64
    assert joint.n_parallel == res.n_valid                 # the sweep searches the EP axis too
    base = next(s for s in joint.all_scores if s.cost_score == pytest.approx(6.0))
    assert base.total_latency_ns == pytest.approx(res.latency_ns[0])


def test_ep_on_dense_model_is_rejected(llama8b, generic_hw):
    from infersim import InferSimError

    with pytest.raises(InferSimError, match="needs an MoE model"):
        simulate(llama8b, generic_hw, Parallelism(ep=2), Workload())
    with pytest.raises(InferSimError, match="must divide n_experts"):
        simulate(PRESETS["Mixtral 8x7B"].model, generic_hw, Parallelism(dp=16, ep=16),
                 Workload(batch=16))


def test_grouped_gemm_computes_per_expert_and_streams_as_one_kernel():
    """A grouped GEMM over 64 experts: its compute runs at the efficiency of one expert's FLOPs
    (each tile holds one expert's few tokens), its weight loads at the efficiency of the kernel's
    total bytes (one kernel keeps every expert's loads in flight), not of one expert's share."""
    hw = HW_PRESETS["H100-SXM x8"]
    flops, nbytes, experts = 2e10, 4e8, 64.0
    op = cost.terms.RawOp("moe_experts", np.array([flops]), np.array([nbytes]), 1.0, 3, klass="moe",
                          dtype="bf16", weight_dtype="bf16", problems=np.array([experts]))
    t = cost.op_table(hw, [op], 1)
    mem = hw.memory_table("bf16")
    assert t.m[0, 0] == pytest.approx(nbytes / float(hw.table_efficiency(mem, np.array([nbytes]))[0]))
    per_expert = float(hw.table_efficiency(mem, np.array([nbytes / experts]))[0])
    assert t.m[0, 0] < nbytes / per_expert                          # 6 MB per expert streams slower
    eff_c = float(hw.table_efficiency(hw.compute_table("bf16"), np.array([flops / experts]))[0])
    assert t.f[0, 0] == pytest.approx(flops / (eff_c * hw.tensor_rate("bf16") * hw.clock_fraction))
