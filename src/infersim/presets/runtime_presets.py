"""Runtime profiles, shipped as data files ``presets/runtime/*.toml`` (one per software stack, each
with its ``source`` and whether its numbers are measured, fitted or assumed), with the fitted
values of ``calibration.toml`` applied; and the resolution of a ``--runtime`` name or file.

Profiles: ``cuda-graphs`` (the default: graph-captured stacks in general), ``vllm``, ``sglang``,
``trtllm`` (each engine's own profile, as released today), ``vllm-0.13`` (vLLM 0.8-0.13, which
scheduled synchronously: async scheduling is the default from 0.14), ``eager`` (PyTorch eager from Python, unfused),
``python-fused`` and ``cpp-nographs`` (fused kernels launched without graphs from Python or C++),
``trtllm-2023`` (TensorRT-LLM's 2023 session runtime, for its 2023 tables), ``vllm-v0`` and
``sglang-0.4`` (vLLM's V0 engine and SGLang before 0.4.5: their engines' host loops, with the
Triton fused-MoE kernels of early 2025, for reproducing that era's MoE benchmarks). Scenarios for stacks
that do not ship yet (``scenario = true`` in their file; never calibrated, their numbers assumed):
``megakernel`` (a persistent mega-kernel decoder) and ``dataflow`` (a dataflow-compiled decoder):
both remove most per-kernel gaps, so the co-design can ask which knob matters once the compiler
fuses the layer. The field meanings and the step formula are in :mod:`infersim.specs.runtime`.
"""
from __future__ import annotations

import os
from dataclasses import replace
from importlib import resources

from infersim.errors import InferSimError
from infersim.loaders.hardware_files import _parse
from infersim.loaders.runtime_files import read_runtime_mapping, runtime_from_mapping
from infersim.presets.calibration import group
from infersim.specs.registry import Registry
from infersim.specs.runtime import Runtime

DEFAULT_RUNTIME = "cuda-graphs"


#: Profiles that describe a stack that does not ship yet (never calibrated; numbers assumed).
SCENARIO_RUNTIMES: set[str] = set()


def _profile_files() -> dict[str, dict]:
    folder = resources.files("infersim") / "presets" / "runtime"
    out: dict[str, dict] = {}
    for entry in sorted(folder.iterdir(), key=lambda p: p.name):
        if entry.name.endswith(".toml"):
            d = _parse(entry.read_text(encoding="utf-8"), ".toml", f"presets/runtime/{entry.name}")
            if d.get("name") in out:
                raise InferSimError(f"duplicate runtime profile {d.get('name')!r} in {entry.name}")
            if d.pop("scenario", False) is True:
                SCENARIO_RUNTIMES.add(d["name"])
            out[d["name"]] = d
    return out


def _profile(d: dict, where: str) -> Runtime:
    """A profile from its file, which states every field (the file names it in errors)."""
    try:
        return Runtime(graph_captured=d.get("launch") == "graph", **d)
    except (InferSimError, TypeError) as exc:
        raise InferSimError(f"{where}: {exc}") from None


#: The profiles as their files state them (the priors of the fit), before calibration.
BASE_RUNTIMES: dict[str, Runtime] = {n: _profile(d, f"presets/runtime/{n}") for n, d in _profile_files().items()}


def calibrated(rt: Runtime) -> Runtime:
    """``rt`` with the fitted values ``calibration.toml`` holds for its profile."""
    fitted = group("runtime", rt.name)
    return replace(rt, **fitted) if fitted else rt


#: Every profile, calibrated (dict-like: ``RUNTIMES[name]``; one-line errors naming the valid ones).
RUNTIMES: Registry[Runtime] = Registry("runtime")
for _name, _rt in BASE_RUNTIMES.items():
    RUNTIMES.register(_name, lambda r=_rt: calibrated(r))


def get_runtime(runtime: "str | Runtime | None") -> Runtime:
    """A runtime from a profile name, a :class:`Runtime`, or None (the default)."""
    if runtime is None:
        return RUNTIMES.get(DEFAULT_RUNTIME)
    if isinstance(runtime, Runtime):
        return runtime
    if isinstance(runtime, str):
        return RUNTIMES.get(runtime)
    raise InferSimError(f"runtime must be a name ({', '.join(RUNTIMES)}) or a Runtime, got {runtime!r}"[:300])


def is_runtime_file(ref: str) -> bool:
    return ref not in RUNTIMES and (ref.lower().endswith((".json", ".toml", ".yaml", ".yml"))
                                    or os.path.sep in ref)


def read_runtime_file(path: str | os.PathLike) -> Runtime:
    """A user runtime file (docs/runtime.md); ``base`` names a profile it starts from."""
    return runtime_from_mapping(read_runtime_mapping(path), os.path.basename(str(path)), get_runtime)


def resolve_runtime(ref: "str | Runtime | None") -> Runtime:
    """A profile name, a runtime file path, a :class:`Runtime` or None (the default)."""
    if isinstance(ref, str) and is_runtime_file(ref):
        return read_runtime_file(ref)
    try:
        return get_runtime(ref)
    except InferSimError as exc:
        raise InferSimError(f"{exc} (or a .toml/.json/.yaml runtime file)") from None


__all__ = ["DEFAULT_RUNTIME", "BASE_RUNTIMES", "SCENARIO_RUNTIMES", "RUNTIMES", "get_runtime", "resolve_runtime",
           "read_runtime_file", "is_runtime_file", "calibrated"]
