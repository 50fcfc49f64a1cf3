"""Pipeline micro-batching, largest-stage memory, expert-parallel imbalance, the full space,
collective algorithms and the runtime: the physics that decides which deployment wins."""
import math
import os
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import IDEAL_RT, ideal_hw
from infersim import InferSimError, Parallelism, Workload, simulate
from infersim.auto_explore import auto_explore
from infersim.cost.occupancy import busiest_rank_experts, busiest_rank_pairs, expected_max_std_normal
from infersim.hardware_presets import HW_PRESETS
from infersim.model_presets import PRESETS
from infersim.runtime import RUNTIMES, Runtime
from infersim.specs.parallel import valid_pp, valid_tp

H100 = HW_PRESETS["H100-SXM x8"]
GENERIC = HW_PRESETS["Generic SiP (default)"]


# ----- pipeline micro-batching ---------------------------------------------------------------
def test_pipeline_throughput_matches_data_parallel(llama70b):
    """70B decode, batch 64, 4K, 8 H100: with 2 micro-batches in flight TP4·PP2 serves the batch
    as fast as TP4·DP2 (each stage reads half the weights for half the batch)."""
    wl = Workload("decode", s_kv=4096, batch=64)
    pp = simulate(llama70b, H100, Parallelism(tp=4, pp=2), wl)
    dp = simulate(llama70b, H100, Parallelism(tp=4, dp=2), wl)
    assert pp.par.microbatches == 2
    assert pp.tokens_per_s >= 0.93 * dp.tokens_per_s
    # one micro-batch: the stages take turns, so the KV reads of the whole batch are not spread
    # over both stages (weight reads are the same: with two micro-batches each stage re-reads
    # its weights for each of them)
    one = simulate(llama70b, H100, Parallelism(tp=4, pp=2, microbatches=1), wl)
    assert one.tokens_per_s < 0.95 * pp.tokens_per_s


def test_decode_latency_is_the_period_and_microbatches_change_it(llama70b):
    hw = ideal_hw(n_pes=8)
    wl = Workload("decode", s_kv=32768, batch=8)
    r1 = simulate(llama70b, hw, Parallelism(pp=4, microbatches=1), wl, IDEAL_RT)
    r4 = simulate(llama70b, hw, Parallelism(pp=4, microbatches=4), wl, IDEAL_RT)
    # one micro-batch: a token takes the sum of the stages, each reading its weights and the KV
    # of all 8 sequences; four: each stage serves 2 sequences at a time, re-reading its
    # weights per micro-batch, so the KV reads spread over the stages and the weights do not
    weights = llama70b.weight_bytes() - llama70b.embedding_params() * 2
    kv = 8 * 32768 * llama70b.kv_bytes_per_token
    assert r1.total_latency_ns == pytest.approx((weights + kv) / hw.bw_hbm_gbs, rel=0.01)
    # the last stage is the slowest: it also reads the LM head, once per micro-batch
    head = llama70b.vocab * llama70b.hidden * 2
    assert r4.total_latency_ns == pytest.approx((weights + 3 * head + kv / 4) / hw.bw_hbm_gbs, rel=0.01)
    assert r1.breakdown_ns["pp_bubble"] == 0
    assert r4.total_latency_ns == r4.period_ns < r1.total_latency_ns
    assert sum(r4.breakdown_ns.values()) == pytest.approx(r4.total_latency_ns)


def test_prefill_chunks_stream_through_the_pipeline(llama8b):
    hw = ideal_hw(n_pes=4)
    wl = Workload("prefill", s_kv=8192)
    whole = simulate(llama8b, hw, Parallelism(pp=4), wl, IDEAL_RT)
    chunked = simulate(llama8b, hw, Parallelism(pp=4, microbatches=8), wl, IDEAL_RT)
    # 8 chunks: the prompt is done after ~(pp + m - 1)/m of one stage pass per chunk
    assert chunked.total_latency_ns < 0.6 * whole.total_latency_ns
    assert chunked.breakdown_ns["pp_bubble"] > 0
    with pytest.raises(InferSimError, match="power of two"):
        simulate(llama8b, hw, Parallelism(pp=4, microbatches=3), wl)
    with pytest.raises(InferSimError, match="need a pipeline"):
        simulate(llama8b, hw, Parallelism(microbatches=2), Workload("decode", batch=4))


def test_uneven_pipeline_stages_report_the_largest():
    """DeepSeek-V3 over 61 stages: 58 stages hold a full MoE layer and set memory per PE."""
    m = PRESETS["DeepSeek-V3"].model
    r = simulate(m, GENERIC, Parallelism(pp=61), Workload("decode", s_kv=126976, batch=128))
    moe_layer = m.moe_layer_ffn_params()[0] + m.attn_params_per_layer() + m.norm_params_per_layer()
    head = m.vocab * m.hidden
    assert r.mem_breakdown_bytes["weights"] == pytest.approx((moe_layer + head) * 2, rel=1e-6)
    assert not r.fits and r.mem_per_pe_bytes > r.mem_capacity_bytes == 0.9 * GENERIC.pe_hbm_gb * 1e9


# ----- expert parallelism at the busiest rank ---------------------------------------------------
def test_expert_parallel_pays_for_the_busiest_rank():
    m = PRESETS["Mixtral 8x7B"].model
    wl = Workload("decode", s_kv=4096)
    tp8 = simulate(m, H100, Parallelism(tp=8), wl)
    ep8 = simulate(m, H100, Parallelism(tp=8, ep=8), wl)
    assert ep8.total_latency_ns >= 1.5 * tp8.total_latency_ns


def _monte_carlo(n, k, E, ep, trials=3000, seed=0):
    rng = np.random.default_rng(seed)
    pairs, experts = [], []
    for _ in range(trials):
        choice = np.argsort(rng.random((n, E)), axis=1)[:, :k]
        pairs.append(np.bincount((choice // (E // ep)).ravel(), minlength=ep).max())
        hit = np.zeros(E, bool)
        hit[choice.ravel()] = True
        experts.append(hit.reshape(ep, -1).sum(1).max())
    return np.mean(pairs), np.mean(experts)


@pytest.mark.parametrize("n, k, E, ep", [(1, 2, 8, 8), (16, 2, 8, 8), (64, 2, 8, 4),
                                         (128, 8, 256, 16), (32, 8, 256, 64), (1, 8, 256, 16)])
def test_busiest_rank_matches_monte_carlo(n, k, E, ep):
    mc_pairs, mc_experts = _monte_carlo(n, k, E, ep)
    assert float(busiest_rank_pairs(np.array([n]), k, np.array([ep]))[0]) == pytest.approx(mc_pairs, rel=0.10)
    assert float(busiest_rank_experts(np.array([n]), k, E, np.array([ep]))[0]) == \
        pytest.approx(mc_experts, rel=0.12)


def test_busiest_rank_is_the_mean_without_ep():
    assert busiest_rank_pairs(np.array([37.0]), 2, np.array([1.0]))[0] == 74.0
    assert busiest_rank_experts(np.array([3.0]), 2, 8, np.array([1.0]))[0] == pytest.approx(8 * (1 - 0.75 ** 3))
    assert expected_max_std_normal(2) == pytest.approx(1 / math.sqrt(math.pi), rel=1e-4)


# ----- the full space -----------------------------------------------------------------------------
def test_explorer_finds_non_power_of_two_configs():
    """GPT-J prefill 2048, batch 6: TP2 CP5 DP6 on 60 PEs beats every power-of-two config."""
    m = PRESETS["GPT-J 6B"].model
    wl = Workload("prefill", s_kv=2048, batch=6)
    res = auto_explore(m, GENERIC, wl)
    assert res.latency_ns[0] <= simulate(m, GENERIC, Parallelism(tp=2, cp=5, dp=6), wl).total_latency_ns
    assert res.latency_ns[0] < simulate(m, GENERIC, Parallelism(tp=4, cp=4, dp=4), wl).total_latency_ns


SETTINGS = settings(max_examples=int(os.environ.get("INFERSIM_HYPOTHESIS_EXAMPLES", 40)),
                    deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def accepted_config(draw):
    """A config simulate() accepts on a 16-PE system: any degree, any micro-batch count."""
    model = PRESETS[draw(st.sampled_from(["Llama 3.1 8B", "Mixtral 8x7B", "GPT-J 6B"]))].model
    hw = ideal_hw(n_pes=4, cubes_per_sip=2, n_sips=2, pe_hbm_gb=40.0, kernel_latency_ns=1000.0)
    mode = draw(st.sampled_from(["decode", "prefill"]))
    wl = Workload(mode, s_kv=draw(st.sampled_from([1024, 4096])), batch=draw(st.integers(1, 6)))
    tp = draw(st.sampled_from(valid_tp(model, 16)))
    cp = draw(st.integers(1, 16 // tp))
    pp = draw(st.sampled_from(valid_pp(model, 16 // (tp * cp))))
    dp = draw(st.integers(1, min(wl.batch, 16 // (tp * cp * pp))))
    b = -(-wl.batch // dp)
    m = 1 if pp == 1 else draw(st.sampled_from(list(range(1, b + 1)) + ([b * 2, b * 4] if mode == "prefill" else [])))
    ep = 1
    if model.is_moe:
        ep = draw(st.sampled_from([e for e in (1, 2, 4, 8) if (tp * cp * dp) % e == 0]))
    par = Parallelism(tp=tp, cp=cp, pp=pp, dp=dp, ep=ep, microbatches=m,
                      kv_shard_mode=draw(st.sampled_from(["head", "seq", "hybrid"])),
                      ffn_shard_scope=draw(st.sampled_from(["TP", "TP+CP"])),
                      cp_ring_variant=draw(st.sampled_from(["kv", "qoml"])))
    return model, hw, par, wl


@SETTINGS
@given(accepted_config(), st.sampled_from(["latency", "throughput"]))
def test_no_accepted_config_beats_the_explorer(case, objective):
    model, hw, par, wl = case
    try:
        r = simulate(model, hw, par, wl)
    except InferSimError:
        return
    if not r.fits:
        return
    best = auto_explore(model, hw, wl, objective=objective, with_best_result=False)
    if objective == "latency":
        assert best.latency_ns[0] <= r.total_latency_ns * (1 + 1e-9)
    else:
        assert best.tokens_per_s[0] >= r.tokens_per_s * (1 - 1e-9)


# ----- bound, runtime --------------------------------------------------------------------------
def test_bound_says_overhead_when_launches_dominate(llama8b):
    r = simulate(llama8b, H100, Parallelism(tp=8), Workload("decode", s_kv=512), runtime="eager")
    assert r.bound == "overhead"
    assert r.breakdown_ns["host_launch"] > 0.5 * r.total_latency_ns


def test_eager_with_free_host_equals_graph_capture(llama8b):
    g = RUNTIMES["cuda-graphs"]
    free = replace(g, name="free-host", graph_captured=False, launch="cpp", host_launch_ns=0.0)
    wl = Workload("decode", s_kv=2048, batch=4)
    a = simulate(llama8b, H100, Parallelism(tp=2), wl, runtime=free)
    b = simulate(llama8b, H100, Parallelism(tp=2), wl, runtime=g)
    assert a.total_latency_ns == pytest.approx(b.total_latency_ns, rel=1e-12)


def test_runtime_is_a_spec_of_its_own():
    assert not hasattr(H100, "kernel_overhead_ns")
    with pytest.raises(InferSimError, match="kernel_gap_ns must be"):
        Runtime("bad", -1.0, 0.0, 0.0, True)
    with pytest.raises(InferSimError, match="valid: cuda-graphs, vllm, vllm-0.13, vllm-v0, sglang, sglang-0.4, trtllm, eager, python-fused, cpp-nographs, trtllm-2023"):
        simulate(PRESETS["Llama 3.1 8B"].model, H100, Parallelism(), Workload(), runtime="turbo")


def test_collectives_reduce_in_16_bit(llama8b):
    """fp8 activations do not halve the all-reduce: stacks reduce in bf16."""
    wl = Workload("prefill", s_kv=4096)
    bf16 = simulate(llama8b, H100, Parallelism(tp=8), wl)
    fp8 = simulate(llama8b.with_dtypes(weight="fp8", act="fp8"), H100, Parallelism(tp=8), wl)
    assert fp8.breakdown_ns["tp_allreduce"] == pytest.approx(bf16.breakdown_ns["tp_allreduce"])
    fp8_comm = simulate(llama8b.with_dtypes(weight="fp8", act="fp8", comm="fp8"), H100,
                        Parallelism(tp=8), wl)
    assert fp8_comm.breakdown_ns["tp_allreduce"] < 0.6 * bf16.breakdown_ns["tp_allreduce"]


def test_pass_q_prefill_rereads_kv_for_every_query(llama70b):
    """Pass-Q prefill: each rank's KV chunk is visited by all T queries, tile by tile."""
    from infersim import cost
    from infersim.specs.parallel import ParArrays

    wl = Workload("prefill", s_kv=32768)
    hw = ideal_hw(n_pes=8)
    by = {}
    for ring in ("kv", "qoml"):
        arrays = ParArrays.from_configs([Parallelism(tp=1, cp=8, cp_ring_variant=ring)], wl)
        by[ring] = next(o for o in cost.prepare(llama70b, hw, arrays, wl).ops if o.name == "attention")
    # same flops; pass-Q's local KV (1/8 of it) is re-read by 8x the queries
    assert by["kv"].flops[0] == by["qoml"].flops[0]
    kv_bytes = lambda o: o.nbytes[0]  # noqa: E731
    assert kv_bytes(by["qoml"]) > kv_bytes(by["kv"]) * 0.9
