"""The pinned (model, hardware, parallelism, workload) cases of ``goldens/cost_goldens.json``.

Each case is named; ``pin_goldens.py`` records every breakdown component, memory part and
operator time of each. Goldens pin values (a refactor must reproduce them to rtol 1e-12); hand
cases and published measurements prove them. Refresh a golden only by name, in a commit that says
which physics changed.
"""
from __future__ import annotations

from infersim import Parallelism, Workload

G = "Generic SiP (default)"
H = "H100-SXM x8"
H2 = "H100-SXM 2x8 (IB)"
M = "MI300X x8"
P = Parallelism

# name: (model preset, hardware preset, Parallelism kwargs, Workload kwargs)
CASES: dict[str, tuple[str, str, dict, dict]] = {
    "70b-decode-tp8-128k": ("Llama 3.1 70B", G, dict(tp=8), dict(mode="decode", s_kv=131072)),
    "70b-decode-tp32-cp2-hybrid-tpcp": ("Llama 3.1 70B", G, dict(tp=32, cp=2, kv_shard_mode="hybrid",
                                        ffn_shard_scope="TP+CP"), dict(mode="decode", s_kv=131072)),
    "70b-decode-tp16-seq": ("Llama 3.1 70B", G, dict(tp=16, kv_shard_mode="seq"), dict(mode="decode", s_kv=65536)),
    "70b-decode-tp16-head": ("Llama 3.1 70B", G, dict(tp=16, kv_shard_mode="head"), dict(mode="decode", s_kv=65536)),
    "70b-decode-cp4-kvring": ("Llama 3.1 70B", G, dict(tp=8, cp=4, cp_ring_variant="kv"), dict(mode="decode", s_kv=131072)),
    "70b-decode-cp4-spread": ("Llama 3.1 70B", G, dict(tp=8, cp=4, cp_placement="spread"), dict(mode="decode", s_kv=131072)),
    "70b-decode-tpspread": ("Llama 3.1 70B", G, dict(tp=8, cp=2, tp_placement="spread"), dict(mode="decode", s_kv=32768)),
    "70b-decode-pp4-dp2-b8": ("Llama 3.1 70B", G, dict(tp=4, pp=4, dp=2), dict(mode="decode", s_kv=8192, batch=8)),
    "70b-prefill-tp8-cp8-kv": ("Llama 3.1 70B", G, dict(tp=8, cp=8), dict(mode="prefill", s_kv=32768)),
    "70b-prefill-tp4-cp16-qoml": ("Llama 3.1 70B", G, dict(tp=4, cp=16, cp_ring_variant="qoml"), dict(mode="prefill", s_kv=32768)),
    "70b-prefill-chunk-qoml": ("Llama 3.1 70B", G, dict(tp=8, cp=8, cp_ring_variant="qoml"), dict(mode="prefill", s_kv=131072, s_q=256)),
    "70b-prefill-tpcp-scope": ("Llama 3.1 70B", G, dict(tp=8, cp=4, ffn_shard_scope="TP+CP"), dict(mode="prefill", s_kv=16384, batch=2)),
    "70b-h100-tp8-decode": ("Llama 3.1 70B", H, dict(tp=8), dict(mode="decode", s_kv=8192)),
    "70b-h100-tp8-decode-b64": ("Llama 3.1 70B", H, dict(tp=4, dp=2), dict(mode="decode", s_kv=4096, batch=64)),
    "70b-h100-tp4-pp2-b64": ("Llama 3.1 70B", H, dict(tp=4, pp=2), dict(mode="decode", s_kv=4096, batch=64)),
    "70b-h100x2-tp8-cp2": ("Llama 3.1 70B", H2, dict(tp=8, cp=2), dict(mode="prefill", s_kv=65536)),
    "70b-h100x2-tp16": ("Llama 3.1 70B", H2, dict(tp=16), dict(mode="decode", s_kv=32768, batch=4)),
    "8b-h100-tp1-decode": ("Llama 3.1 8B", H, dict(), dict(mode="decode", s_kv=4096)),
    "8b-h100-tp1-prefill": ("Llama 3.1 8B", H, dict(), dict(mode="prefill", s_kv=2048)),
    "8b-h100-tp8-decode": ("Llama 3.1 8B", H, dict(tp=8), dict(mode="decode", s_kv=4096)),
    "8b-mi300x-tp1-decode-b32": ("Llama 3.1 8B", M, dict(), dict(mode="decode", s_kv=8192, batch=32)),
    "70b-mi300x-tp8-decode": ("Llama 3.1 70B", M, dict(tp=8), dict(mode="decode", s_kv=8192)),
    "405b-generic-tp16-pp3": ("Llama 3.1 405B", G, dict(tp=16, pp=3), dict(mode="decode", s_kv=32768)),
    "gptj-prefill-tp2-cp4-dp4": ("GPT-J 6B", G, dict(tp=2, cp=4, dp=4), dict(mode="prefill", s_kv=2048, batch=6)),
    "gpt3-decode-tp8-pp8": ("GPT-3 175B", G, dict(tp=8, pp=8), dict(mode="decode", s_kv=2048, batch=16)),
    "mixtral-h100-tp8": ("Mixtral 8x7B", H, dict(tp=8), dict(mode="decode", s_kv=4096)),
    "mixtral-h100-tp8-ep8": ("Mixtral 8x7B", H, dict(tp=8, ep=8), dict(mode="decode", s_kv=4096)),
    "mixtral-h100-tp2-ep2-b32": ("Mixtral 8x7B", H, dict(tp=2, dp=4, ep=8), dict(mode="decode", s_kv=4096, batch=32)),
    "mixtral-prefill-ep4": ("Mixtral 8x7B", G, dict(tp=4, cp=2, ep=4), dict(mode="prefill", s_kv=8192)),
    "dsv3-decode-tp8-ep16": ("DeepSeek-V3", G, dict(tp=8, dp=2, ep=16), dict(mode="decode", s_kv=32768, batch=2)),
    "dsv3-decode-tp16-ep16-seq": ("DeepSeek-V3", G, dict(tp=16, ep=16, kv_shard_mode="seq"), dict(mode="decode", s_kv=65536)),
    "dsv3-prefill-tp8-cp4-ep32": ("DeepSeek-V3", G, dict(tp=8, cp=4, ep=32), dict(mode="prefill", s_kv=8192)),
    "dsv3-decode-b128-tp8-dp8": ("DeepSeek-V3", G, dict(tp=8, dp=8, ep=64), dict(mode="decode", s_kv=4096, batch=128)),
    "dsv3-pp61": ("DeepSeek-V3", G, dict(pp=61), dict(mode="decode", s_kv=126976, batch=128)),
    "qwen3moe-tp4-ep8-b16": ("Qwen3-235B-A22B", G, dict(tp=4, dp=2, ep=8), dict(mode="decode", s_kv=16384, batch=16)),
    "qwen3moe-prefill-tp8-cp2": ("Qwen3-235B-A22B", G, dict(tp=8, cp=2, ep=16), dict(mode="prefill", s_kv=16384)),
    "qwen25-72b-tp8-decode": ("Qwen2.5 72B", H, dict(tp=8), dict(mode="decode", s_kv=16384, batch=8)),
    "mistral7b-decode-seq": ("Mistral 7B", G, dict(tp=16, kv_shard_mode="seq"), dict(mode="decode", s_kv=32768)),
    "llama2-70b-a100-tp4-prefill": ("Llama 2 70B", "A100-SXM x8", dict(tp=4), dict(mode="prefill", s_kv=2048)),
    "llama2-7b-b200-decode": ("Llama 2 7B", "B200 x8", dict(tp=1), dict(mode="decode", s_kv=4096, batch=64)),
}


def build(name: str):
    from infersim.hardware_presets import HW_PRESETS
    from infersim.model_presets import PRESETS

    model, hw, par, wl = CASES[name]
    return PRESETS[model].model, HW_PRESETS[hw], P(**par), Workload(**wl)
