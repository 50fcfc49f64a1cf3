"""The runtime: software overheads of the serving stack, kept apart from the hardware.

A runtime is a set of parameters, not a name: how kernels are launched, how many are launched,
and what the host does once per step and once per sequence in it. A step (one micro-batch through
the pipeline) costs

    step   = max(device, host + overlap · work) + (1 − overlap) · work
    device = Σ operator and collective times + launches · kernel_gap        (on the GPU)
    host   = launches · host_launch    unless the step is replayed from a CUDA graph
    work   = step_fixed + seq · sequences                                 (host work per step)
    launches = kernels of the cost model · launch_multiplier

* ``launch`` — the launch path: ``graph`` (the step is captured once and replayed: the host costs
  nothing per kernel), ``cpp`` (kernels launched one by one from a C++ runtime: ~2-5 us of
  cudaLaunchKernel each) or ``python`` (launched from Python: framework dispatch plus the driver
  call, ~10-40 us each). ``graph_captured`` is ``launch == "graph"``.
* ``kernel_gap_ns`` — idle device time between consecutive kernels (the front end fetching the
  next kernel, the ramp-down of one and ramp-up of the next); paid even when a graph replays.
* ``host_launch_ns`` — CPU time to launch one kernel on the ``cpp`` or ``python`` path. Exposed
  only when the host falls behind the device: a step takes max(device time, host time).
* ``launch_multiplier`` — kernels actually launched per kernel of the cost model: the fusion
  level. The cost model counts fused kernels (one RMSNorm, one rotary+QKV epilogue, one SwiGLU);
  an eager PyTorch decoder layer runs each of those as several elementwise kernels (~4x).
* ``step_fixed_ns`` — host work once per step the device waits for: scheduling, input
  preparation, the sampler's launch, synchronisation.
* ``seq_ns`` — host work per sequence in the step: its scheduling and block-table update,
  sampling and detokenisation (vLLM's and SGLang's Python schedulers; ~1-20 us per sequence).
* ``host_overlap`` — the share of that per-step work done while the device runs the previous
  step (an asynchronous scheduler: SGLang's overlap scheduler, TensorRT-LLM's C++ executor, a
  graph-replay loop that does not wait for the device); 0 for a synchronous loop (schedule,
  launch, wait, sample). Set from the engine's design, not fitted.
* ``collective_ns`` / ``net_collective_ns`` — the collective library's own latency per call,
  beyond the link hops the hardware states: inside a node the engines' custom all-reduce
  (one IPC barrier, ~1-2 us) or NCCL (its kernel start and protocol: ~10-13 us at 8 GPUs),
  across nodes NCCL's network path.
* ``gemm_efficiency`` — the fraction of the hardware's measured GEMM efficiency this stack's
  kernels reach (1.0 for current libraries); ``attn_efficiency`` the same for attention kernels
  (FlashAttention-3 and TensorRT-LLM's XQA/FMHA reach the part's attention maximum, FA2 on
  Hopper about two thirds of it).
* ``moe_efficiency`` — the same for the routed experts' grouped GEMM (both phases: it streams the
  touched experts' weights and computes their tokens in one kernel), relative to the part's GEMM
  tables: 1.0 for current grouped-GEMM libraries (CUTLASS / DeepGEMM / TensorRT-LLM's MoE
  kernels); the Triton fused-MoE kernels of early-2025 stacks (vLLM V0, SGLang before 0.4.5)
  reach less, above all on DeepSeek's block-scaled FP8 experts (fitted: ``vllm-v0``, ``sglang-0.4``).
* ``fp8_context_fmha`` — with an fp8 KV cache, the prompt (context) attention runs as an fp8
  flash attention (Q, K, V quantised to fp8 E4M3, fp32 softmax): TensorRT-LLM's
  ``use_fp8_context_fmha``, which ``trtllm-bench build`` sets for FP8 and NVFP4 builds, whose KV
  cache it forces to fp8 (NVIDIA/TensorRT-LLM ``tensorrt_llm/bench/build/build.py`` @7eb710fa);
  its builder also turns it on whenever paged context FMHA meets an fp8 KV cache ("FP8 Context
  FMHA is enabled to support FP8 Paged Context FMHA", ``tensorrt_llm/builder.py``, a 2025 copy,
  commit not pinned), and the PyTorch backend's ``TrtllmAttention`` emits fp8 attention output
  for fp8/NVFP4-quantised models with an fp8 KV cache (``_torch/attention_backend/trtllm.py``).
  The attention op of a prefill step then computes at the
  fp8 tensor rate (``cost.FP8_ATTN_EFF`` of the part's attention efficiency); decode attention
  and a 16-bit KV cache are unchanged. Engines that dequantise an fp8 KV cache into a 16-bit
  FlashAttention (vLLM, SGLang by default) leave it off.
* ``sliding_window`` — whether the stack applies a model's sliding-window attention unasked
  (caching and attending to the last W tokens of a ``sliding`` layer). TensorRT-LLM does not:
  the KV cache keeps every token unless ``max_attention_window`` is given
  (``KvCacheConfig.max_attention_window``, default None, ``tensorrt_llm/llmapi/llm_args.py``), and
  its own runs turn the window on by passing it: "Add ``--max_attention_window_size 4096`` ...
  which enables the sliding window attention" for StarCoder2 (``examples/gpt/README.md``
  @59f41c06), ``--max_attention_window_size`` in its Mistral 7B v0.1 sliding-window tests
  (``tests/integration/defs/examples/test_mistral.py`` @1100b262). ``trtllm-bench`` passes none,
  so it runs Mistral 7B v0.1 with the full context in every layer: at 20K-token prompts about a
  fifth of the sequences fit, and decode attention reads the whole context. Off, a model's
  ``sliding`` layers run as ``full`` ones (``chunked`` layers are unchanged). vLLM and SGLang
  apply the window (on by default).
* ``mem_fraction`` — the fraction of each PE's HBM the stack lets weights, KV cache and
  workspace use; the rest is its CUDA context, communicator buffers, allocator slack and
  fragmentation (vLLM's ``gpu_memory_utilization`` defaults to 0.90, SGLang's
  ``mem_fraction_static`` is 0.79–0.88, TensorRT-LLM gives the KV cache 0.90 of what is free
  after the weights). Memory fit is therefore a property of the runtime, not the hardware.
* ``mem_basis`` — what ``mem_fraction`` is a fraction of: ``total`` (vLLM, SGLang: of the
  device's HBM) or ``free`` (TensorRT-LLM's ``kv_cache_free_gpu_mem_fraction``: of what is left
  after ``reserve_gb`` of context, the weights and the activation workspace, given to the KV
  cache). With large weights the two differ twofold in KV room.

Never folded into one per-kernel constant: at batch 1 a graph-captured decode runs close to the
HBM floor while an eager one is host-bound, and a fitted per-kernel constant cannot say which.
The profiles users pick by name (and their calibration) are presets:
:mod:`infersim.presets.runtime_presets`; a runtime file (TOML/JSON/YAML, docs/runtime.md) states
the same fields.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, fields, replace
from functools import lru_cache

import numpy as np

from infersim.errors import require, short_repr

LAUNCH_PATHS = ("graph", "cpp", "python")

#: Physically plausible range of each numeric parameter (ns where the name says so); presets,
#: files and fits must stay inside.
BOUNDS: dict[str, tuple[float, float]] = {
    "kernel_gap_ns": (0.0, 6_000.0),
    "host_launch_ns": (0.0, 60_000.0),
    "step_fixed_ns": (0.0, 20_000_000.0),
    "seq_ns": (0.0, 200_000.0),
    "launch_multiplier": (1.0, 8.0),
    "gemm_efficiency": (0.3, 1.0),
    "attn_efficiency": (0.3, 1.0),
    "moe_efficiency": (0.3, 1.0),
    "mem_fraction": (0.5, 1.0),
    "host_overlap": (0.0, 1.0),
    "reserve_gb": (0.0, 16.0),
    "collective_ns": (0.0, 100_000.0),
    "net_collective_ns": (0.0, 200_000.0),
}
#: Per launch path, the typical range of the host's per-kernel launch cost: the fit's bounds for
#: the profiles of each path (a spec may state any value in ``BOUNDS``, e.g. a free host).
HOST_LAUNCH_BOUNDS = {"graph": (0.0, 60_000.0), "cpp": (1_000.0, 15_000.0), "python": (5_000.0, 60_000.0)}


@dataclass(frozen=True)
class Runtime:
    name: str
    kernel_gap_ns: float
    host_launch_ns: float
    step_fixed_ns: float
    graph_captured: bool
    launch_multiplier: float = 1.0
    gemm_efficiency: float = 1.0
    mem_fraction: float = 0.90
    source: str = ""
    seq_ns: float = 0.0
    attn_efficiency: float = 1.0
    host_overlap: float = 0.0
    mem_basis: str = "total"     # "total" or "free" (see the module docstring)
    reserve_gb: float = 0.0      # with "free": CUDA context and library workspaces, GB per PE
    collective_ns: float = 0.0   # collective library latency per call inside a node
    net_collective_ns: float = 0.0   # ... per call across nodes
    launch: str = ""             # "" = derived from graph_captured ("graph" or "cpp")
    measured: str = ""           # "measured", "fitted" or "assumed": how its numbers are known
    fp8_context_fmha: bool = False   # fp8 prompt attention with an fp8 KV cache (see the module docstring)
    moe_efficiency: float = 1.0  # the routed experts' grouped-GEMM kernel quality (see the module docstring)
    sliding_window: bool = True  # applies a model's sliding-window layers unasked (see the module docstring)

    def __post_init__(self) -> None:
        require(isinstance(self.name, str) and bool(self.name),
                lambda: f"runtime name must be a non-empty string, got {short_repr(self.name)}")
        require(isinstance(self.sliding_window, bool),
                lambda: f"sliding_window must be true or false, got {short_repr(self.sliding_window)}")
        require(isinstance(self.fp8_context_fmha, bool),
                lambda: f"fp8_context_fmha must be true or false, got {short_repr(self.fp8_context_fmha)}")
        require(isinstance(self.graph_captured, bool),
                lambda: f"graph_captured must be true or false, got {short_repr(self.graph_captured)}")
        launch = self.launch or ("graph" if self.graph_captured else "cpp")
        require(launch in LAUNCH_PATHS,
                lambda: f"launch must be one of {', '.join(LAUNCH_PATHS)}, got {short_repr(launch)}")
        require((launch == "graph") == self.graph_captured,
                f"launch {launch!r} contradicts graph_captured={self.graph_captured}: a graph-captured "
                "runtime launches on the 'graph' path, any other on 'cpp' or 'python'")
        object.__setattr__(self, "launch", launch)
        for f, (lo, hi) in BOUNDS.items():
            check_number(f, getattr(self, f), lo, hi)
        require(self.mem_basis in ("total", "free"),
                lambda: f"mem_basis must be 'total' or 'free', got {short_repr(self.mem_basis)}")
        require(isinstance(self.source, str), lambda: f"source must be a string, got {short_repr(self.source)}")

    def usable_bytes(self, pe_hbm_gb):
        """HBM bytes per PE for weights, KV cache and workspace on the ``total`` basis:
        mem_fraction · capacity (``pe_hbm_gb`` a scalar or an array of co-design candidates)."""
        return self.mem_fraction * np.asarray(pe_hbm_gb, dtype=float) * 1e9

    def required_bytes(self, weights, kv, workspace):
        """HBM capacity per PE a need of (weights, KV cache, workspace) bytes asks of the device:
        ``(W + A + KV) / f`` on the ``total`` basis, ``reserve + W + A + KV / f`` on ``free``
        (the fraction applies to the KV cache's share of what is left). It fits when this is at
        most the capacity."""
        f = self.mem_fraction
        if self.mem_basis == "free":
            return self.reserve_gb * 1e9 + weights + workspace + kv / f
        return (weights + workspace + kv) / f

    def capacity_for(self, weights, workspace, pe_hbm_gb):
        """The bytes weights, KV cache and workspace may use together on a device of
        ``pe_hbm_gb`` (what ``required_bytes`` compares against, in the need's own units)."""
        c = np.asarray(pe_hbm_gb, dtype=float) * 1e9
        if self.mem_basis == "free":
            return weights + workspace + self.mem_fraction * np.maximum(c - self.reserve_gb * 1e9 - weights - workspace, 0.0)
        return self.mem_fraction * c

    def model_for(self, model):
        """``model`` as this runtime runs it: its sliding-window layers as full ones when the
        runtime does not apply the window, with fp8 prompt attention when the runtime uses fp8
        context FMHA and the model's KV cache is fp8 (``model`` itself otherwise)."""
        if not self.sliding_window and model.sliding_window:
            model = _full_attention(model)
        if self.fp8_context_fmha and model.kv_dtype == "fp8" and not model.fp8_context_attention:
            return _with_fp8_context(model)
        return model

    def host_ns_per_launch(self) -> float:
        """Host time per launched kernel: nothing when a graph replays the step."""
        return 0.0 if self.graph_captured else self.host_launch_ns * self.launch_multiplier

    def to_dict(self) -> dict:
        return {f.name: getattr(self, f.name) for f in fields(self)}


def check_number(name: str, v, lo: float, hi: float, where: str = "") -> None:
    unit = " ns" if name.endswith("_ns") else ""
    ok = isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and lo <= v <= hi
    require(ok, lambda: f"{name} must be a number in [{lo:g}, {hi:g}]{unit}{where}, got {short_repr(v)}")


def runtime_fields() -> list[str]:
    return [f.name for f in fields(Runtime)]


@lru_cache(maxsize=64)
def _full_attention(model):
    """``model`` with its sliding-window layers caching and attending to the whole sequence."""
    types = tuple("full" if t == "sliding" else t for t in model.layer_types)
    return replace(model, layer_types=() if set(types) == {"full"} else types, sliding_window=0)


@lru_cache(maxsize=256)
def _with_fp8_context(model):
    """``model`` with fp8 prompt attention, built once per model: every serving step asks for it,
    and building (validating) a spec costs more than the step's lookup in the step cache."""
    return replace(model, fp8_context_attention=True)


__all__ = ["BOUNDS", "HOST_LAUNCH_BOUNDS", "LAUNCH_PATHS", "Runtime", "runtime_fields"]

