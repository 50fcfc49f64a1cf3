"""Speculative decoding: the verify step (decode with k+1 query tokens) against hand rooflines, the
expected tokens per step, the serving model built on them, and the co-design knob ranking."""
from dataclasses import replace

import pytest

from conftest import IDEAL_RT, ideal_hw
from infersim import Parallelism, Workload, simulate
from infersim.auto_hardware import joint_explore
from infersim.errors import InferSimError
from infersim.hardware_presets import HW_PRESETS
from infersim.model_presets import PRESETS
from infersim.serving import Request, serve, sla_search
from infersim.specs.speculation import DEFAULT_ALPHA, Speculation, tokens_per_step

H100 = HW_PRESETS["H100-SXM x8"]
REQ = Request(isl=2048, osl=512)


# ----- the verify step in the cost model ------------------------------------------------------
@pytest.mark.parametrize("name,par", [("Llama 3.1 70B", Parallelism(tp=4)),
                                      ("Mixtral 8x7B", Parallelism(tp=2, ep=2)),
                                      ("DeepSeek-V3", Parallelism(tp=8))])
def test_one_query_token_is_plain_decode_bit_for_bit(name, par):
    """s_q = 1 (k = 0) is the plain decode step: every component, op and memory part equal."""
    m = PRESETS[name].model
    a = simulate(m, HW_PRESETS["B200 x8"], par, Workload("decode", s_kv=8192, batch=8))
    b = simulate(m, HW_PRESETS["B200 x8"], par, Workload("decode", s_kv=8192, batch=8, s_q=1))
    assert a.total_latency_ns == b.total_latency_ns
    assert a.breakdown_ns == b.breakdown_ns and a.op_times_ns == b.op_times_ns
    assert a.mem_breakdown_bytes == b.mem_breakdown_bytes


@pytest.mark.parametrize("q", [2, 4, 8])
def test_verify_step_hand_roofline(llama8b, q):
    """On ideal hardware at tp = 1: every weight GEMM does q times the decode flops on the same
    weight bytes; attention does q·P + q(q+1)/2 (query, key) pairs per head instead of P, reading
    the KV cache once; the LM head computes logits of all q tokens."""
    m, hw, P, b = llama8b, ideal_hw(), 4096, 2
    dec = simulate(m, hw, Parallelism(), Workload("decode", s_kv=P, batch=b), runtime=IDEAL_RT)
    ver = simulate(m, hw, Parallelism(), Workload("decode", s_kv=P, batch=b, s_q=q), runtime=IDEAL_RT)
    for op in ("qkv_proj", "o_proj", "ffn_up_gate", "ffn_down", "lm_head"):
        assert ver.op_flops[op] == pytest.approx(q * dec.op_flops[op], rel=1e-12)
    L, d, nq = m.n_layers, m.head_dim, m.n_heads
    pairs = q * P + q * (q + 1) / 2
    assert ver.op_flops["attention"] == pytest.approx(b * L * nq * 4 * d * pairs, rel=1e-12)
    kv_read = b * L * (P + (q + 1) / 2) * m.n_kv_heads * 2 * d * 2     # one pass, bf16
    q_o = 2 * b * q * L * nq * d * 2 + b * q * L * m.n_kv_heads * 2 * d * 2
    assert ver.op_bytes["attention"] == pytest.approx(kv_read + q_o, rel=1e-12)
    # the weight bytes do not grow: a verify step is far cheaper than q decode steps
    w = 2.0 * (m.hidden * (nq + 2 * m.n_kv_heads) * d)
    assert ver.op_bytes["qkv_proj"] - dec.op_bytes["qkv_proj"] < 0.05 * w * L
    assert dec.total_latency_ns < ver.total_latency_ns < q * dec.total_latency_ns


def test_verify_rejects_bad_query_tokens():
    with pytest.raises(InferSimError, match="1..256"):
        Workload("decode", s_kv=128, s_q=0)
    with pytest.raises(InferSimError, match="1..256"):
        Workload("decode", s_kv=128, s_q=257)


# ----- expected tokens per step -------------------------------------------------------------
@pytest.mark.parametrize("alpha,k,expected", [(0.8, 4, 1 + 0.8 + 0.64 + 0.512 + 0.4096),
                                              (0.5, 1, 1.5), (0.0, 7, 1.0), (1.0, 5, 6.0),
                                              (0.85, 1, 1.85), (0.9, 3, 3.439)])
def test_tokens_per_step_formula(alpha, k, expected):
    """E = (1 − α^(k+1)) / (1 − α) = Σ_{i=0..k} α^i (Leviathan et al. 2023, eq. 1)."""
    assert tokens_per_step(alpha, k) == pytest.approx(expected, rel=1e-12)
    assert Speculation("eagle", k, alpha).tokens_per_step == pytest.approx(expected, rel=1e-12)


def test_tokens_per_step_monotone_and_bounded():
    for a in (0.3, 0.7, 0.95):
        es = [tokens_per_step(a, k) for k in range(0, 12)]
        assert all(x < y for x, y in zip(es, es[1:]))
        assert es[-1] < 1 / (1 - a)                  # the k → ∞ limit


def test_speculation_validation():
    with pytest.raises(InferSimError, match="valid choices: mtp, eagle, draft"):
        Speculation("medusa")
    with pytest.raises(InferSimError, match="0..16"):
        Speculation("eagle", 17)
    with pytest.raises(InferSimError, match=r"\[0, 1\]"):
        Speculation("eagle", 2, 1.5)
    with pytest.raises(InferSimError, match="needs draft_model"):
        Speculation("draft", 2)
    assert Speculation("mtp", 1).acceptance == DEFAULT_ALPHA["mtp"] == 0.85


# ----- serving ------------------------------------------------------------------------------
@pytest.mark.parametrize("batching", ["continuous", "static"])
@pytest.mark.parametrize("method", ["mtp", "eagle", "draft"])
def test_k0_serving_equals_plain_decode(llama70b, batching, method):
    draft = PRESETS["Llama 3.1 8B"].model if method == "draft" else None
    plain = serve(llama70b, H100, Parallelism(tp=4), REQ, batch=16, batching=batching)
    spec = serve(llama70b, H100, Parallelism(tp=4), REQ, batch=16, batching=batching,
                 speculation=Speculation(method, 0, draft_model=draft))
    for f in ("ttft_ms", "tpot_ms", "e2e_ms", "tok_s", "mem_per_pe_bytes", "fits"):
        assert getattr(spec, f) == getattr(plain, f), f


@pytest.mark.parametrize("batch", [1, 8, 64])
@pytest.mark.parametrize("k", [1, 3, 7])
@pytest.mark.parametrize("method", ["mtp", "eagle", "draft"])
def test_alpha_zero_never_beats_plain_decode(llama70b, batch, k, method):
    """With nothing accepted a step yields one token and costs a verify step plus k drafts."""
    draft = PRESETS["Llama 3.1 8B"].model if method == "draft" else None
    plain = serve(llama70b, H100, Parallelism(tp=4), REQ, batch=batch)
    spec = serve(llama70b, H100, Parallelism(tp=4), REQ, batch=batch,
                 speculation=Speculation(method, k, 0.0, draft))
    assert spec.tpot_ms > plain.tpot_ms and spec.tok_s < plain.tok_s
    assert spec.mem_per_pe_bytes > plain.mem_per_pe_bytes        # drafter weights and KV


def test_tpot_is_step_over_tokens_per_step(llama70b):
    """Static batching: TPOT = (k·t_draft + t_verify) / E, each step a cost-model step."""
    from infersim.serving.speculative import draft_ns, draft_spec
    from infersim.specs.parallel import ParArrays

    spec, par, b = Speculation("eagle", 3, 0.8), Parallelism(tp=4), 8
    r = serve(llama70b, H100, par, REQ, batch=b, batching="static", speculation=spec)
    s_kv = REQ.isl + REQ.osl // 2
    verify = simulate(llama70b, H100, par, Workload("decode", s_kv=s_kv, batch=b, s_q=4)).total_latency_ns
    rows = ParArrays.from_configs([par], Workload("decode", s_kv=s_kv, batch=b)).with_batch(b)
    t_draft = float(draft_ns(llama70b, H100, rows, Workload("decode", s_kv=s_kv, batch=b), spec,
                             __import__("infersim").runtime.get_runtime(None))[0])
    assert draft_spec(llama70b, spec).n_layers == 1
    assert r.tpot_ms * 1e6 == pytest.approx((3 * t_draft + verify) / spec.tokens_per_step, rel=1e-9)


def test_speculation_speeds_up_batch1_and_fades_with_batch(llama70b):
    """Memory-bound batch-1 decode gains most; at large batches the verify step turns compute-
    bound and the gain shrinks (the reason engines cap speculation by batch size)."""
    spec = Speculation("eagle", 3)
    gain = {b: serve(llama70b, H100, Parallelism(tp=4), REQ, batch=b).tpot_ms
            / serve(llama70b, H100, Parallelism(tp=4), REQ, batch=b, speculation=spec).tpot_ms
            for b in (1, 64, 256)}
    assert gain[1] > 2.0 and gain[1] <= spec.tokens_per_step
    assert gain[1] > gain[64] > gain[256]


def test_published_deepseek_v3_mtp_speedup():
    """DeepSeek-V3 report (arXiv 2412.19437, §5.4.3): MTP with one extra token, acceptance
    85-90 %, gives 1.8x tokens/s. At batch 1 on H200 (fp8 weights, as shipped) the model's
    speedup for α = 0.85 and 0.9 lies within 20 % of that and never above E."""
    ds = replace(PRESETS["DeepSeek-V3"].model, weight_dtype="fp8")
    hw, par = HW_PRESETS["H200 x8"], Parallelism(tp=8)
    plain = serve(ds, hw, par, REQ, batch=1)
    assert plain.fits
    for alpha in (0.85, 0.9):
        spec = Speculation("mtp", 1, alpha)
        r = serve(ds, hw, par, REQ, batch=1, speculation=spec)
        speedup = plain.tpot_ms / r.tpot_ms
        assert speedup == pytest.approx(1.8, rel=0.2) and speedup < spec.tokens_per_step


def test_sla_search_chooses_k(llama70b):
    """k = 'auto' searches k = 0..7: the answer is at least as good as any fixed k and as none."""
    kw = dict(tpot_ms=30, disaggregated=False)
    auto = sla_search(llama70b, H100, REQ, speculation=Speculation("eagle", None), **kw)
    assert auto.speculation is not None and auto.speculation.k >= 1
    for k in (None, 1, 5):
        other = sla_search(llama70b, H100, REQ, speculation=Speculation("eagle", k) if k else None, **kw)
        assert auto.best.tok_s_per_pe >= other.best.tok_s_per_pe
    with pytest.raises(InferSimError, match="needs a k"):
        serve(llama70b, H100, Parallelism(tp=4), REQ, speculation=Speculation("eagle", None))


# ----- co-design --------------------------------------------------------------------------------
def test_speculation_changes_codesign_knob_ranking():
    """Batch-1 decode of DeepSeek-V3 at 32K: the plain step is HBM-bound and peak FLOPs ranks
    behind the links; the MTP verify step (k = 3: 4 query tokens through MLA's absorbed attention,
    128 heads sharing one latent) turns compute-heavier and peak FLOPs moves up to second."""
    ds = PRESETS["DeepSeek-V3"].model
    rank = {}
    gain = {}
    for sq in (None, 4):
        r = joint_explore(ds, s_kv=32768, mode="decode", depth="two_stage", batch=1, s_q=sq)
        knobs = [s.knob for s in r.sensitivity]
        rank[sq] = knobs.index("peak_tflops_f16")
        gain[sq] = next(s.rel_speedup for s in r.sensitivity if s.knob == "peak_tflops_f16")
        assert knobs[0] == "bw_hbm_gbs"
    assert rank[4] < rank[None] and rank[4] == 1
    assert gain[4] > 5 * gain[None]
