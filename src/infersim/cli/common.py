"""Shared pieces of the command-line interface: console, formatting, common arguments."""
from __future__ import annotations

import argparse
import json
import sys

from rich.console import Console

from ..errors import InferSimError
from ..hardware_presets import DEFAULT_HW
from ..model import ModelSpec
from ..model_presets import DEFAULT_MODEL, get_model
from ..workload import MODES, Workload

# wide enough for the ranked tables when stdout is a pipe or a file (rich defaults to 80 there)
console = Console(width=None if sys.stdout.isatty() else 150)
# ----- formatting helpers ---------------------------------------------------------------------
def fmt_ns(ns: float) -> str:
    if ns >= 1e9:
        return f"{ns / 1e9:.3f} s"
    if ns >= 1e6:
        return f"{ns / 1e6:.3f} ms"
    if ns >= 1e3:
        return f"{ns / 1e3:.2f} us"
    return f"{ns:.0f} ns"


def fmt_gb(nbytes: float) -> str:
    return f"{nbytes / 1e9:.2f} GB"


def emit_json(obj) -> None:
    sys.stdout.write(json.dumps(obj, indent=2, default=str) + "\n")


# ----- shared arguments -----------------------------------------------------------------------
def add_model_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--model", default=DEFAULT_MODEL, help=f"model preset (default {DEFAULT_MODEL!r})")
    p.add_argument("--config", help="HuggingFace config.json to load instead of a preset")
    p.add_argument("--weight-dtype", help="override the weight dtype (bf16, fp8, int8, int4)")
    p.add_argument("--kv-dtype", help="override the KV-cache dtype")
    p.add_argument("--act-dtype", help="override the activation dtype")


def add_workload_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--mode", default="decode", help=f"one of {', '.join(MODES)}")
    p.add_argument("--s-kv", type=int, default=131072, help="context length (tokens)")
    p.add_argument("--s-q", type=int, default=None, help="prefill: new tokens (default s_kv)")
    p.add_argument("--batch", type=int, default=1)


def add_hw_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--hw", default=DEFAULT_HW, help=f"hardware preset (default {DEFAULT_HW!r})")


def add_runtime_arg(p: argparse.ArgumentParser) -> None:
    from ..runtime import DEFAULT_RUNTIME, RUNTIMES

    p.add_argument("--runtime", default=DEFAULT_RUNTIME,
                   help=f"software runtime: {', '.join(RUNTIMES)} (default {DEFAULT_RUNTIME}): "
                        "kernel gaps, host launches, per-step cost")


def load_model(args) -> ModelSpec:
    model = ModelSpec.from_hf_config(args.config) if args.config else get_model(args.model)
    if args.weight_dtype or args.kv_dtype or args.act_dtype:
        model = model.with_dtypes(args.weight_dtype, args.act_dtype, args.kv_dtype)
    return model


def load_workload(args) -> Workload:
    return Workload(mode=args.mode, s_kv=args.s_kv, batch=args.batch, s_q=args.s_q)


# ----- commands -------------------------------------------------------------------------------
def write_csv(path: str, rows) -> None:
    """Write dict rows (a list or any iterable, consumed once) with the first row's keys."""
    import csv

    it = iter(rows)
    first = next(it, None)
    if first is None:
        raise InferSimError(f"nothing to write to {path}: no rows")
    try:
        with open(path, "w", newline="", encoding="utf-8") as fh:
            w = csv.DictWriter(fh, fieldnames=list(first))
            w.writeheader()
            w.writerow(first)
            w.writerows(it)
    except OSError as exc:
        raise InferSimError(f"cannot write {path}: {exc.strerror}") from None


def progress_bar(description: str, quiet: bool):
    """A rich progress bar driven by ``callback(done, total)``; a no-op when quiet."""
    from contextlib import nullcontext

    from rich.progress import BarColumn, Progress, TaskProgressColumn, TimeElapsedColumn

    if quiet:
        return nullcontext(None)

    class _Bar:
        def __enter__(self):
            self.p = Progress("[progress.description]{task.description}", BarColumn(),
                              TaskProgressColumn(), TimeElapsedColumn(), console=Console(stderr=True),
                              transient=True)
            self.p.__enter__()
            self.task = self.p.add_task(description, total=None)
            return self.update

        def update(self, done: int, total: int) -> None:
            self.p.update(self.task, completed=done, total=total)

        def __exit__(self, *exc):
            return self.p.__exit__(*exc)

    return _Bar()


def parse_grid(text: str | None, option: str = "--grid") -> dict[str, list[float]] | None:
    """``--grid "bw_hbm_gbs=2000,4000;peak_tflops_f16=500,1000"`` → {knob: [values]}; a knob
    named twice is an error (the second list would silently replace the first)."""
    if not text:
        return None
    grid: dict[str, list[float]] = {}
    for part in filter(None, (p.strip() for p in text.split(";"))):
        key, sep, vals = part.partition("=")
        key = key.strip()
        if not sep:
            raise InferSimError(f"bad {option} entry {part!r}; expected knob=v1,v2,...")
        if key in grid:
            raise InferSimError(f"{option} names {key} twice; give each knob once, e.g. {key}=1,2,3")
        try:
            grid[key] = [float(v) for v in vals.split(",") if v.strip()]
        except ValueError:
            raise InferSimError(f"bad {option} values for {key!r}: {vals!r}") from None
    return grid
