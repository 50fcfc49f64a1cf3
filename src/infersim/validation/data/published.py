"""Published measurements kept as data: ``published.jsonl``, one row per number with its setup.

Each line states the publication (``source``, ``title``, ``where``: URL or repository + path +
commit), the engine and its version, the model as its HuggingFace id, the GPU, GPU and node
counts, dtypes of weights and KV cache, the parallelism (tp, pp, ep, dp), how requests were
batched (``static`` or ``continuous``), the batch or the client's concurrency (0: the benchmark's
own maximum-throughput batch), input and output lengths, the metric and the value exactly as
published (unit conversions only, said in ``note``). A continuous line whose run is a stated
number of requests submitted at once (an offline benchmark: trtllm-bench's ``$num_requests``
table, vLLM's ``--num-prompts``) carries it as ``requests``; the run's last, partial wave is part
of the measurement (:func:`infersim.serving.model.finite_run`).

:func:`load` maps each line onto infersim: the model onto the preset of the same architecture
(a re-quantised or instruct checkpoint has its base model's shapes), the GPU and node count onto a
hardware preset, the dtypes onto a dtype code, the engine onto a runtime profile. A line
infersim cannot express (no preset for the part or the model, a metric it does not predict) is
kept and reported as excluded, with the reason, never silently dropped; so is a line whose
``exclude`` field gives a reason (a published number whose kernel path infersim does not model).
"""
from __future__ import annotations

import json
import re
from pathlib import Path

from infersim.validation.data.measurements import Source
from infersim.validation.rows import attn_code

PATH = Path(__file__).with_name("published.jsonl")

#: HuggingFace id -> the preset with its architecture (checkpoint re-quantisations keep shapes).
MODEL_PRESET = {
    "meta-llama/Llama-3.1-8B": "Llama 3.1 8B", "meta-llama/Llama-3.1-8B-Instruct": "Llama 3.1 8B",
    "nvidia/Llama-3.1-8B-Instruct-FP8": "Llama 3.1 8B", "meta-llama/Llama-3.1-70B": "Llama 3.1 70B",
    "meta-llama/Llama-3.1-70B-Instruct": "Llama 3.1 70B", "meta-llama/Llama-3.3-70B-Instruct": "Llama 3.1 70B",
    "nvidia/Llama-3.3-70B-Instruct-FP4": "Llama 3.1 70B", "nvidia/Llama-3.3-70B-Instruct-FP8": "Llama 3.1 70B",
    "meta-llama/Llama-3.1-405B": "Llama 3.1 405B", "meta-llama/Llama-3.1-405B-Instruct": "Llama 3.1 405B", "meta-llama/Llama-3.1-405B-FP8": "Llama 3.1 405B",
    "nvidia/Llama-3.1-405B-Instruct-FP4": "Llama 3.1 405B", "meta-llama/Llama-2-7b-hf": "Llama 2 7B",
    "meta-llama/Llama-2-13b-hf": "Llama 2 13B", "meta-llama/Llama-2-70b-hf": "Llama 2 70B",
    "meta-llama/Llama-2-70b-chat-hf": "Llama 2 70B",
    "mistralai/Mistral-7B-v0.1": "Mistral 7B", "mistralai/Mixtral-8x7B-v0.1": "Mixtral 8x7B",
    "mistralai/Mixtral-8x7B-Instruct-v0.1": "Mixtral 8x7B", "mistralai/Mixtral-8x22B-v0.1": "Mixtral 8x22B",
    "deepseek-ai/DeepSeek-V3": "DeepSeek-V3", "deepseek-ai/DeepSeek-R1": "DeepSeek-V3",
    "deepseek-ai/DeepSeek-R1-0528": "DeepSeek-V3", "nvidia/DeepSeek-R1-FP4": "DeepSeek-V3",
    "nvidia/DeepSeek-R1-0528-FP4": "DeepSeek-V3", "Qwen/Qwen2.5-72B-Instruct": "Qwen2.5 72B",
    "Qwen/Qwen3-235B-A22B": "Qwen3-235B-A22B", "Qwen/Qwen3-30B-A3B": "Qwen3-30B-A3B",
    "nvidia/Qwen3-30B-A3B-FP4": "Qwen3-30B-A3B", "nvidia/Qwen3-235B-A22B-FP4": "Qwen3-235B-A22B",
    "amd/Llama-3.1-70B-Instruct-FP8-KV": "Llama 3.1 70B", "amd/Llama-3.1-405B-Instruct-FP8-KV": "Llama 3.1 405B",
    "amd/Llama-3.1-8B-Instruct-FP8-KV": "Llama 3.1 8B", "nvidia/DeepSeek-R1-0528-NVFP4": "DeepSeek-V3",
    "openai/gpt-oss-120b": "gpt-oss-120b", "openai/gpt-oss-20b": "gpt-oss-20b",
    "lmsys/vicuna-7b-v1.5": "Llama 2 7B", "lmsys/vicuna-13b-v1.5": "Llama 2 13B",
    "meta-llama/Llama-2-7b-chat-hf": "Llama 2 7B", "meta-llama/Llama-2-13b-chat-hf": "Llama 2 13B",
    "TheBloke/Llama-2-13B-chat-GPTQ": "Llama 2 13B", "meta-llama/Meta-Llama-3-8B-Instruct": "Llama 3.1 8B",
    "neuralmagic/Meta-Llama-3-8B-Instruct-FP8": "Llama 3.1 8B", "codellama/CodeLlama-7b-hf": "Llama 2 7B",
    "Qwen/Qwen2.5-7B-Instruct": "Qwen2.5-7B-Instruct", "Qwen/Qwen2.5-7B-Instruct-GPTQ-Int8": "Qwen2.5-7B-Instruct",
    "Qwen/Qwen2.5-7B-Instruct-GPTQ-Int4": "Qwen2.5-7B-Instruct", "Qwen/Qwen2.5-72B-Instruct-GPTQ-Int8": "Qwen2.5 72B",
    "Qwen/Qwen2.5-72B-Instruct-GPTQ-Int4": "Qwen2.5 72B", "Qwen/Qwen2.5-72B-Instruct-AWQ": "Qwen2.5 72B",
    "Qwen/Qwen3-235B-A22B-Instruct-2507": "Qwen3-235B-A22B", "Qwen/Qwen3-235B-A22B-Instruct-2507-FP8": "Qwen3-235B-A22B",
    "Megatron-Turing NLG 530B": "Megatron-530B",      # no HuggingFace checkpoint
}
#: (GPU as published, nodes) -> hardware preset: one node is the 8-GPU platform.
GPU_PRESET = {
    ("H100-SXM-80GB", 1): "H100-SXM x8", ("H100-SXM-80GB", 2): "H100-SXM 2x8 (IB)",
    ("H100-SXM-80GB", 4): "H100-SXM 4x8 (IB)", ("H100-SXM-80GB", 8): "H100-SXM 8x8 (IB)",
    ("H200-SXM-141GB", 1): "H200 x8", ("H200-SXM-141GB", 2): "H200 2x8 (IB)", ("H200-SXM-141GB", 4): "H200 4x8 (IB)",
    ("A100-SXM4-80GB", 1): "A100-SXM x8", ("A100-SXM4-80GB", 2): "A100-SXM 2x8 (IB)",
    ("A100-SXM4-80GB", 4): "A100-SXM 4x8 (IB)", ("H100-SXM-96GB-500W", 1): "H100 96GB 500W x8",
    ("H100-SXM-96GB-500W", 2): "H100 96GB 500W 2x8 (RDMA)", ("H100-SXM-96GB-500W", 4): "H100 96GB 500W 4x8 (RDMA)",
    ("H100-SXM-96GB-500W", 8): "H100 96GB 500W 8x8 (RDMA)", ("H100-SXM-96GB-500W", 16): "H100 96GB 500W 16x8 (RDMA)",
    ("B200-SXM-180GB", 1): "B200 x8", ("B200-SXM-180GB", 2): "B200 2x8 (IB)",
    ("GB200-192GB", 1): "GB200 NVL72", ("MI300X-192GB", 1): "MI300X x8", ("MI325X", 1): "MI325X x8",
    ("MI355X", 1): "MI355X x8", ("L40S-48GB", 1): "L40S x8", ("H100-PCIe-80GB", 1): "H100 PCIe x8",
    ("H20-96GB", 1): "H20 x8", ("GH200-96GB", 1): "GH200 96GB x1", ("A10G-24GB", 1): "A10G x4", ("RTX-4090-24GB", 1): "RTX 4090 x2",
}
#: (weights, KV cache) dtypes -> infersim dtype code (activations follow the weights' GEMM path).
DTYPE_CODE = {("bf16", "bf16"): "16", ("fp16", "fp16"): "16", ("fp8", "fp8"): "fp8", ("fp8", "bf16"): "fp8kv16",
              ("bf16", "fp8"): "16kv8", ("fp4", "fp8"): "fp4", ("fp4", "bf16"): "fp4kv16",
              ("int4", "bf16"): "int4wo", ("int4", "fp8"): "int4kv8", ("int8", "bf16"): "int8wo",
              ("int4", "fp16"): "int4wo", ("int8", "fp16"): "int8wo"}


def dtype_code(d: dict) -> str | None:
    """The infersim dtype code of a published line, its attention projections' own dtype
    (``attn_weights_dtype``) included (None: not modelled)."""
    code = DTYPE_CODE.get((d["weights_dtype"], d["kv_dtype"]))
    return None if code is None else attn_code(code, d.get("attn_weights_dtype"))


#: engine name prefix -> runtime profile.
ENGINE_RUNTIME = (("tensorrt-llm", "trtllm"), ("trt-llm", "trtllm"), ("nim", "trtllm"), ("vllm", "vllm"), ("rocm/vllm", "vllm"),
                  ("sglang", "sglang"), ("transformers", "eager"), ("gpt-fast", "cuda-graphs"),
                  ("autoawq", "python-fused"), ("tinychat", "python-fused"),
                  ("llama.cpp 2024-01", "cpp-nographs"), ("fastertransformer", "cpp-nographs"),
                  ("pytorch (meta internal", "cuda-graphs"))


#: Earlier releases with their own profiles: runtime -> (its version in an engine string, then
#: (the first release after the tier, the tier's profile) from the oldest). vLLM's V0 engine
#: (< 0.8) and SGLang before 0.4.5 ran the routed experts with the Triton fused-MoE kernel;
#: vLLM 0.8-0.13 scheduled synchronously (async scheduling is the default from 0.14.0).
EARLIER_RELEASES = {"vllm": (re.compile(r"vllm[ _v]*(\d+)\.(\d+)(?:\.(\d+))?"),
                             (((0, 8, 0), "vllm-v0"), ((0, 14, 0), "vllm-0.13"))),
                    "sglang": (re.compile(r"sglang[ _v]*(\d+)\.(\d+)(?:\.(\d+))?"), (((0, 4, 5), "sglang-0.4"),))}


def runtime_of_engine(engine: str) -> str:
    """The runtime profile of an engine string: its engine's, or an earlier release's tier (an
    engine string with no version, e.g. a nightly image, is the current release)."""
    e = engine.lower()
    rt = next((rt for prefix, rt in ENGINE_RUNTIME if e.startswith(prefix)), "")
    if rt in EARLIER_RELEASES:
        pattern, tiers = EARLIER_RELEASES[rt]
        found = pattern.search(e)
        version = tuple(int(x or 0) for x in found.groups()) if found else None
        if "v0 engine" in e:
            return tiers[0][1]
        for first_after, earlier in tiers:
            if version is not None and version < first_after:
                return earlier
    return rt


def read(path: Path = PATH) -> list[dict]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _metric(d: dict) -> tuple[str, float, str]:
    """(infersim metric, value, why not) for a line: continuous rows report the deployment's
    output tokens/s (``tok_s_total``); a total (input + output) rate is converted by osl / (isl + osl)."""
    m, v = d["metric"], float(d["value"])
    if d["batching"] == "continuous":
        if m == "output_tok_s_total":
            return "tok_s_total", v, ""
        if m == "tok_s_total":
            return "tok_s_total", v * d["osl"] / (d["isl"] + d["osl"]), ""
        return (m, v, "") if m in ("tpot_ms", "ttft_ms") else (m, v, f"metric {m} not predicted for served rows")
    return m, v, ""


def setup_reason(d: dict, presets: set[str], hardware: set[str]) -> str:
    """Why a published line's model, hardware or dtypes cannot be expressed ("" when they can):
    shared by the fitted rows and the serving-under-load rows."""
    model = MODEL_PRESET.get(d["model"])
    hw = GPU_PRESET.get((d["gpu"], d.get("nodes", 1)))
    if model is None or model not in presets:
        return f"no model preset for {d['model']}"
    if hw is None or hw not in hardware:
        return f"no hardware preset for {d.get('nodes', 1)} node(s) of {d['gpu']}"
    if dtype_code(d) is None:
        return f"dtypes {d['weights_dtype']}/{d['kv_dtype']} not modelled"
    return ""


def _row_reason(d: dict, presets: set[str], hardware: set[str]) -> str:
    if d.get("exclude"):
        return d["exclude"]
    if (why := setup_reason(d, presets, hardware)):
        return why
    if d["batching"] == "static" and (int(d["batch_or_concurrency"]) < 1 or int(d["osl"]) < 1):
        return "a static row needs its batch and output length"
    if not runtime_of_engine(d["engine"]):
        return f"no runtime profile for {d['engine']}"
    return _metric(d)[2]


def load(presets: set[str], hardware: set[str]) -> tuple[dict[str, Source], list[tuple[dict, str]]]:
    """(sources, [(row fields for a Measurement, exclusion reason or "")]) from the data file."""
    sources: dict[str, Source] = {}
    rows, seen = [], set()
    # a number published directly comes before one converted from another metric
    for d in sorted(read(), key=lambda d: d["metric"] != "output_tok_s_total"):
        src = d["source"]
        if src not in sources:
            sources[src] = Source(f"{d['title']} ({d['engine']})", d["where"], runtime_of_engine(d["engine"]) or "trtllm",
                                  "used")
        reason = _row_reason(d, presets, hardware)
        metric, value, _ = _metric(d)
        fields = dict(source=src, model=MODEL_PRESET.get(d["model"], ""),
                      hw=GPU_PRESET.get((d["gpu"], d.get("nodes", 1)), ""),
                      dtypes=dtype_code(d) or "16", tp=int(d["tp"]),
                      batch=int(d["batch_or_concurrency"]), isl=int(d["isl"]), osl=int(d["osl"]), metric=metric,
                      value=value, pp=int(d.get("pp", 1)), ep=int(d.get("ep", 1)), dp=int(d.get("dp", 1)),
                      batching=d["batching"], cp=int(d.get("cp", 1)), requests=int(d.get("requests", 0)),
                      head=d.get("head_dtype", ""))
        key = tuple(sorted((k, v) for k, v in fields.items() if k != "value"))
        if not reason and key in seen:
            reason = "the same setup as another row of this source (the number restated, or an older release)"
        seen.add(key)
        rows.append((fields, reason))
    return sources, rows
