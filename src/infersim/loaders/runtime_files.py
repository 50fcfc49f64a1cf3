"""Runtime files: a :class:`~infersim.specs.runtime.Runtime` written as TOML, JSON or YAML.

Schema (docs/runtime.md): the Runtime fields by name, flat —

    name = "my-stack"                # required
    launch = "graph"                 # graph | cpp | python
    kernel_gap_ns = 1200.0           # device idle between kernels
    host_launch_ns = 0.0             # host cost per launched kernel (cpp / python paths)
    launch_multiplier = 1.1          # kernels launched per cost-model kernel (fusion level)
    step_fixed_ns = 120000.0         # host work per step
    seq_ns = 3000.0                  # host work per sequence per step
    gemm_efficiency = 1.0            # fraction of the part's GEMM maxima the kernels reach
    attn_efficiency = 1.0            # ... and of its attention maximum
    moe_efficiency = 1.0             # ... and its routed experts' grouped GEMM, of the GEMM maxima
    fp8_context_fmha = false         # fp8 prompt attention with an fp8 KV cache (TensorRT-LLM)
    sliding_window = true            # applies a model's sliding window unasked (TensorRT-LLM: false)
    mem_fraction = 0.9               # HBM share weights + KV + workspace may use
    source = "measured on ..."       # where the numbers come from

plus ``base = "<profile>"`` to start from a shipped profile (the file's keys override it).
Missing fields take the base's values, or the ``cuda-graphs`` profile's when no base is named,
with a one-line warning naming them. Every mistake is a one-line error naming the file and field.
"""
from __future__ import annotations

import difflib
import os
from typing import Any, Callable, Mapping

from infersim.errors import InferSimError, warn
from infersim.loaders.files import read_text_capped
from infersim.loaders.hardware_files import MAX_HW_FILE_BYTES, SUFFIXES, _parse
from infersim.specs.runtime import Runtime, runtime_fields

#: Fields a file states; ``graph_captured`` follows from ``launch``.
FILE_FIELDS = tuple(f for f in runtime_fields() if f != "graph_captured")


def read_runtime_mapping(path: str | os.PathLike) -> dict:
    """The parsed contents of a .toml / .json / .yaml runtime file (at most 1 MiB, UTF-8)."""
    where = str(path)
    suffix = os.path.splitext(where)[1].lower()
    if suffix not in SUFFIXES:
        raise InferSimError(f"{where}: runtime files end in {', '.join(SUFFIXES)}")
    if not os.path.isfile(path):
        raise InferSimError(f"runtime file not found: {where}")
    return _parse(read_text_capped(path, MAX_HW_FILE_BYTES, "runtime file"), suffix, where)


def runtime_from_mapping(d: Mapping[str, Any], where: str,
                         resolve_base: Callable[[str], Runtime]) -> Runtime:
    """A runtime from a file's keys; ``base`` (or ``cuda-graphs``) fills the fields it omits."""
    for key in d:
        if key not in FILE_FIELDS + ("base",):
            near = difflib.get_close_matches(str(key), FILE_FIELDS, n=1, cutoff=0.6)
            hint = f"did you mean '{near[0]}'? " if near else ""
            raise InferSimError(f"{where}: unknown runtime field '{key}'; {hint}valid: {', '.join(FILE_FIELDS)}")
    if not isinstance(d.get("name"), str) or not d["name"].strip():
        raise InferSimError(f"{where}: missing 'name': give the runtime a name (e.g. name = \"my-stack\")")
    base_name = d.get("base", "cuda-graphs")
    if not isinstance(base_name, str):
        raise InferSimError(f"{where}: base must be the name of a runtime profile")
    base = resolve_base(base_name)
    missing = [f for f in FILE_FIELDS if f not in d and f not in ("name", "measured")]
    if missing and "base" not in d:
        warn(f"{where}: {', '.join(missing)} not given: taken from the '{base_name}' profile")
    kw = {**base.to_dict(), **{k: v for k, v in d.items() if k != "base"}}
    launch = kw["launch"]
    if launch not in ("graph", "cpp", "python"):
        raise InferSimError(f"{where}: launch must be graph, cpp or python, got {launch!r}"[:200])
    kw["graph_captured"] = launch == "graph"
    if not kw["graph_captured"] and "host_launch_ns" not in d and base.graph_captured:
        kw["host_launch_ns"] = {"cpp": 4000.0, "python": 12000.0}[launch]
    kw["measured"] = d.get("measured", "")
    if "source" not in d:
        kw["source"] = f"runtime file {where}"
    try:
        return Runtime(**kw)
    except InferSimError as exc:
        raise InferSimError(f"{where}: {exc}") from None
