"""The runtime: software overheads of the serving stack, kept apart from the hardware.

A step (one micro-batch through the pipeline) costs

    step = max(device, host) + step_fixed
    device = Σ operator and collective times + launches · kernel_gap        (on the GPU)
    host   = launches · host_launch    if the step is launched kernel by kernel, else 0
    launches = kernels of the cost model · launch_multiplier

* ``kernel_gap_ns`` — idle device time between consecutive kernels (launch latency, the
  ramp-down of one kernel and ramp-up of the next); paid even when a CUDA graph replays the step.
* ``host_launch_ns`` — CPU time to launch one kernel from the framework (Python dispatch plus the
  driver call). Exposed only without graph capture, and only when the host falls behind the
  device: a step takes max(device time, host time).
* ``step_fixed_ns`` — once per step: scheduling, input preparation, sampling, synchronisation.
* ``gemm_efficiency`` — the fraction of the hardware's measured GEMM efficiency (measured with
  current libraries) this stack's kernels reach: 1.0 for current stacks; TensorRT-LLM's 2023 fp8
  GEMMs were slower than today's cuBLASLt ones.
* ``mem_fraction`` — the fraction of each PE's HBM the stack lets weights, KV cache and
  workspace use; the rest is its CUDA context, communicator buffers, allocator slack and
  fragmentation (vLLM's ``gpu_memory_utilization`` defaults to 0.90, SGLang's
  ``mem_fraction_static`` is 0.79–0.88, TensorRT-LLM gives the KV cache 0.90 of what is free
  after the weights). Memory fit is therefore a property of the runtime, not the hardware.
* ``launch_multiplier`` — kernels actually launched per kernel of the cost model. The cost model
  counts fused kernels (one RMSNorm, one rotary+QKV epilogue, one SwiGLU); an eager PyTorch
  decoder layer runs each of those as several elementwise kernels (~4x as many launches).

Never folded into one per-kernel constant: at batch 1 a graph-captured decode runs close to the
HBM floor while an eager one is host-bound, and a fitted per-kernel constant cannot say which.

Profiles (the calibrated values are fitted in :mod:`infersim.validation.validate` on published measurements
and bounded by the ranges in ``BOUNDS``; see docs/validation.md):

* ``cuda-graphs`` (default) — graph-captured decode as in current TensorRT-LLM, vLLM, SGLang and
  torch.compile(mode="reduce-overhead").
* ``eager`` — kernels launched one by one from Python (PyTorch eager, HuggingFace generate).
* ``trtllm-2023`` — TensorRT-LLM v0.5/v0.6's C++ session runtime without CUDA graphs, for
  reproducing the 2023 performance tables.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, fields

import numpy as np

from infersim.errors import InferSimError, require
from infersim.specs.registry import Registry

#: Physically plausible range of each parameter; presets and fits must stay inside.
BOUNDS: dict[str, tuple[float, float]] = {
    "kernel_gap_ns": (0.0, 6_000.0),
    "host_launch_ns": (0.0, 40_000.0),
    "step_fixed_ns": (0.0, 5_000_000.0),
    "launch_multiplier": (1.0, 8.0),
    "gemm_efficiency": (0.5, 1.0),
    "mem_fraction": (0.5, 1.0),
}


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

    def __post_init__(self) -> None:
        require(bool(self.name), "runtime name must not be empty")
        for f, (lo, hi) in BOUNDS.items():
            v = getattr(self, f)
            unit = " ns" if f.endswith("_ns") else ""
            require(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
                    and lo <= v <= hi, f"{f} must be a number in [{lo:g}, {hi:g}]{unit}, got {v!r}")
        require(isinstance(self.graph_captured, bool),
                f"graph_captured must be true or false, got {self.graph_captured!r}")

    def usable_bytes(self, pe_hbm_gb):
        """HBM bytes per PE for weights, KV cache and workspace: mem_fraction · capacity
        (``pe_hbm_gb`` a scalar or an array of co-design candidates)."""
        return self.mem_fraction * np.asarray(pe_hbm_gb, dtype=float) * 1e9

    def to_dict(self) -> dict:
        return {f.name: getattr(self, f.name) for f in fields(self)}


RUNTIMES: Registry[Runtime] = Registry("runtime")
for _rt in (
    Runtime("cuda-graphs", kernel_gap_ns=3000.0, host_launch_ns=0.0, step_fixed_ns=0.0,
            graph_captured=True, launch_multiplier=1.3830,
            source="calibrated on graph-captured decode measurements (docs/validation.md)"),
    Runtime("eager", kernel_gap_ns=3000.0, host_launch_ns=33690.0,
            step_fixed_ns=0.0, graph_captured=False, launch_multiplier=4.0, mem_fraction=0.95,
            source="device gap and fixed cost as cuda-graphs; host launch: PyTorch eager per-op "
                   "dispatch + cudaLaunchKernel, fitted on gpt-fast's eager baseline "
                   "(Llama-2-7B, A100, 25.5 tok/s); ~4 unfused kernels per fused one; no "
                   "pre-reserved KV pool, so 0.95 of HBM (CUDA context, allocator caching)"),
    Runtime("trtllm-2023", kernel_gap_ns=3000.0, host_launch_ns=5000.0,
            step_fixed_ns=2090694.0, graph_captured=False,
            gemm_efficiency=1.0000,
            source="TensorRT-LLM v0.5/v0.6 C++ session runtime (no CUDA graphs), fitted on its "
                   "2023 performance tables (docs/validation.md)"),
):
    RUNTIMES.register(_rt.name, _rt)

DEFAULT_RUNTIME = "cuda-graphs"


def get_runtime(runtime: "str | Runtime | None") -> Runtime:
    """A runtime from a name, a :class:`Runtime`, or None (the default)."""
    if runtime is None:
        return RUNTIMES.get(DEFAULT_RUNTIME)
    if isinstance(runtime, Runtime):
        return runtime
    if isinstance(runtime, str):
        return RUNTIMES.get(runtime)
    raise InferSimError(f"runtime must be a name ({', '.join(RUNTIMES)}) or a Runtime, got {runtime!r}")


__all__ = ["BOUNDS", "Runtime", "RUNTIMES", "DEFAULT_RUNTIME", "get_runtime"]
