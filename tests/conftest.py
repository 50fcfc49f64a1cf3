"""Shared fixtures: presets, an ideal hardware for hand calculations, random-config strategies."""
from __future__ import annotations

import builtins
import os

import pytest
from hypothesis import strategies as st

from infersim import HardwareSpec, Parallelism, Workload
from infersim.hardware_presets import HW_PRESETS
from infersim.model_presets import PRESETS
from infersim.runtime import Runtime
from infersim.specs.parallel import (
    CP_PLACEMENTS,
    CP_RING_VARIANTS,
    FFN_SHARD_SCOPES,
    KV_SHARD_MODES,
    TP_PLACEMENTS,
    valid_pp,
    valid_tp,
)

#: No software overhead at all: with ``ideal_hw`` latency is pure speed of light.
IDEAL_RT = Runtime("ideal", kernel_gap_ns=0.0, host_launch_ns=0.0, step_fixed_ns=0.0,
                   graph_captured=True, source="tests: no software overhead")


def ideal_hw(n_pes: int = 1, **kw) -> HardwareSpec:
    """Efficiency 1 everywhere: with ``IDEAL_RT`` latency is pure speed of light."""
    base = dict(name=f"ideal x{n_pes}", pe_hbm_gb=10_000.0, bw_hbm_gbs=1000.0, peak_tflops_f16=100.0,
                bw_intra_gbs=100.0, bw_inter_gbs=50.0, bw_intersip_gbs=10.0,
                pes_per_cube=n_pes, cubes_per_sip=1, n_sips=1,
                alpha_intra_ns=1000.0, alpha_inter_ns=2000.0, alpha_intersip_ns=4000.0,
                link_eff=1.0, link_eff_intersip=1.0, kernel_latency_ns=0.0,
                compute_eff=((1.0, 1.0),), memory_eff=((1.0, 1.0),))
    base.update(kw)
    return HardwareSpec(**base)


@pytest.fixture(scope="session")
def llama70b():
    return PRESETS["Llama 3.1 70B"].model


@pytest.fixture(scope="session")
def llama8b():
    return PRESETS["Llama 3.1 8B"].model


@pytest.fixture(scope="session")
def generic_hw():
    return HW_PRESETS["Generic SiP (default)"]


POW2 = [1, 2, 4, 8, 16, 32, 64]
MODEL_NAMES = ["Llama 3.1 8B", "Llama 3.1 70B", "Llama 2 7B", "Mistral 7B", "GPT-3 175B",
               "Mixtral 8x7B", "DeepSeek-V3", "Qwen3-235B-A22B"]
HW_NAMES = list(HW_PRESETS)


@st.composite
def scenario(draw, model_names=MODEL_NAMES, hw_names=HW_NAMES):
    """A random valid (model, hardware, parallelism, workload)."""
    model = PRESETS[draw(st.sampled_from(model_names))].model
    hw = HW_PRESETS[draw(st.sampled_from(hw_names))]
    mode = draw(st.sampled_from(["decode", "prefill"]))
    s_kv = draw(st.sampled_from([512, 4096, 32768, 131072] if mode == "decode" else [512, 2048, 8192]))
    s_q = None if mode == "decode" else draw(st.sampled_from([None, s_kv // 2, 128]))
    batch = draw(st.sampled_from([1, 2, 8, 32]))
    wl = Workload(mode=mode, s_kv=s_kv, batch=batch, s_q=s_q)
    tp = draw(st.sampled_from(valid_tp(model, hw.n_pes)))
    cp = draw(st.integers(1, hw.n_pes // tp))
    pp = draw(st.sampled_from(valid_pp(model, hw.n_pes // (tp * cp))))
    dp = draw(st.integers(1, min(batch, hw.n_pes // (tp * cp * pp))))
    b = -(-batch // dp)
    micro = None if pp == 1 else draw(st.sampled_from([None] + list(range(1, b + 1))))
    ep = 1
    if model.is_moe:
        ep = draw(st.sampled_from([e for e in POW2 if model.n_experts % e == 0
                                   and (tp * cp * dp) % e == 0]))
    par = Parallelism(
        tp=tp, cp=cp, pp=pp, dp=dp, ep=ep,
        kv_shard_mode=draw(st.sampled_from(KV_SHARD_MODES)),
        ffn_shard_scope=draw(st.sampled_from(FFN_SHARD_SCOPES)),
        tp_placement=draw(st.sampled_from(TP_PLACEMENTS)),
        cp_placement=draw(st.sampled_from(CP_PLACEMENTS)),
        cp_ring_variant=draw(st.sampled_from((None,) + CP_RING_VARIANTS)), microbatches=micro)
    return model, hw, par, wl


@pytest.fixture
def touched(monkeypatch):
    """Record every path the process opens or probes while the test runs (upload tests: content
    must never be read as a server path)."""
    seen: list[str] = []
    real_open, real_exists, real_stat = builtins.open, os.path.exists, os.stat

    def spy(real):
        def wrapped(path, *args, **kwargs):
            seen.append(os.fspath(path) if isinstance(path, (str, bytes, os.PathLike)) else str(path))
            return real(path, *args, **kwargs)
        return wrapped

    monkeypatch.setattr(builtins, "open", spy(real_open))
    monkeypatch.setattr(os.path, "exists", spy(real_exists))
    monkeypatch.setattr(os, "stat", spy(real_stat))
    return seen
