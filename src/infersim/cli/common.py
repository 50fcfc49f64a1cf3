"""Shared pieces of the command-line interface: console, formatting, common arguments."""
from __future__ import annotations

import argparse
import json
import math
import os
import re
import sys
from dataclasses import replace

from rich.console import Console

from infersim.errors import InferSimError, printable, require, short_repr, warn
from infersim.loaders.hf_model import model_from_hf_config
from infersim.presets.hardware_presets import DEFAULT_HW, resolve_hardware
from infersim.presets.model_presets import DEFAULT_MODEL, get_model
from infersim.report.fmt import fmt_gb, fmt_time  # noqa: F401  (fmt_gb: shared with the commands)
from infersim.specs.hardware import MAX_PES, HardwareSpec
from infersim.specs.model import ModelSpec
from infersim.specs.workload import MAX_TOKENS, MODES, Workload


# wide enough for the ranked tables when stdout is a pipe or a file (rich defaults to 80 there);
# no markup: names from files and exports are printed as they are ("[/]" in a name is text, not a
# tag that crashes the run), styles are passed as ``style=``
class _Console(Console):
    def on_broken_pipe(self) -> None:
        """rich's own handler exits with status 1 (``infersim presets | head`` "failed"); raise
        instead, so that the CLI's BrokenPipeError handler ends the run with status 0."""
        self.quiet = True
        raise BrokenPipeError


console = _Console(width=None if sys.stdout.isatty() else 150, markup=False)
# ----- formatting helpers ---------------------------------------------------------------------
#: One formatter for times everywhere (CLI, UI, exports): three significant digits, s/ms/µs.
fmt_ns = fmt_time




def emit_json(obj) -> None:
    sys.stdout.write(json.dumps(obj, indent=2, default=str) + "\n")


# ----- argument parsing: one-line errors, typed values -------------------------------------------
def one_line(message: object) -> str:
    """``message`` as a single line of printable characters (the CLI promises exactly one
    ``error:``/``warning:`` line, and a user string in it must not repaint the terminal)."""
    return " ".join(printable(str(message)).split())


class ArgumentParser(argparse.ArgumentParser):
    """argparse whose errors are one line, ``error: argument --tp: expected an integer ...``,
    with exit status 2: never the multi-line ``usage:`` block (``-h`` still prints it).
    Sub-command parsers inherit the class (``add_subparsers`` uses ``type(self)``)."""

    def error(self, message: str):
        self.exit(2, f"error: {one_line(message)}\n")


_INT = re.compile(r"[+-]?[0-9]+")
MAX_DEGREE = 2**20   # TP/PP/DP/CP/EP: far above any system, small enough for exact arithmetic


def int_in(lo: int, hi: int):
    """argparse ``type=``: an integer in ``lo..hi``. Anything else (``eight``, ``nan``, ``2.5``,
    a 400-digit number) is one ``ArgumentTypeError`` naming the range, without ``int()``
    ever seeing an over-long string (no OverflowError, no digit-limit ValueError)."""
    def parse(text: str) -> int:
        s = text.strip()
        # the length test comes first: int() never sees a 400-digit (or 5000-digit) string
        if not _INT.fullmatch(s) or len(s.lstrip("+-0")) > len(str(hi)) or not lo <= int(s) <= hi:
            raise argparse.ArgumentTypeError(f"expected an integer in {lo}..{hi}, got {short_repr(text)}")
        return int(s)

    parse.__name__ = "integer"
    return parse


def positive_int(max_value: int = MAX_TOKENS):
    """argparse ``type=``: an integer in ``1..max_value``."""
    return int_in(1, max_value)


def finite_float(text: str) -> float:
    """argparse ``type=``: a finite number (``nan``, ``inf`` and words rejected)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {short_repr(text)}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"expected a finite number, got {short_repr(text)}")
    return value


def output_file(text: str) -> str:
    """argparse ``type=``: a file path we can create: checked before a long run, not after."""
    if not text or os.path.isdir(text):
        raise argparse.ArgumentTypeError(f"{short_repr(text)} is a directory, expected a file path"
                                         if text else "expected a file path, got ''")
    parent = os.path.dirname(os.path.abspath(text))
    if not os.path.isdir(parent):
        raise argparse.ArgumentTypeError(f"directory {short_repr(parent)} does not exist")
    if os.path.exists(text):     # say so: a user's earlier results are replaced
        warn(f"{short_repr(text)} exists and will be overwritten")
    return text


def parquet_file(text: str) -> str:
    """argparse ``type=``: an :func:`output_file` named ``.parquet`` (or ``.pq``): ``--out
    rows.csv`` would write Parquet bytes into a file every CSV reader then chokes on."""
    if not text.lower().endswith((".parquet", ".pq")):
        raise argparse.ArgumentTypeError(f"{short_repr(text)}: --out writes Parquet; name the file "
                                         ".parquet (or write CSV with --csv)")
    return output_file(text)


# ----- shared arguments -----------------------------------------------------------------------
def add_model_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--model", default=None, help=f"model preset (default {DEFAULT_MODEL!r})")
    p.add_argument("--config", help="HuggingFace config.json to load instead of a preset (text_config, "
                                    "quantization_config and family defaults are read; see docs/models.md)")
    p.add_argument("--weight-dtype", help="override every weight's dtype: bf16, fp16, fp8, int8, "
                                          "int4 (AWQ/GPTQ group 128), mxfp4, fp4 (NVFP4)")
    p.add_argument("--kv-dtype", help="override the KV-cache dtype")
    p.add_argument("--act-dtype", help="override the activation dtype")
    p.add_argument("--head-dtype", help="the embedding's and LM head's dtype (default: 16-bit beside quantised "
                                        "weights, as checkpoints ship them; gpt-fast/torchao quantise it too)")


def add_workload_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--mode", default="decode", help=f"one of {', '.join(MODES)}")
    p.add_argument("--s-kv", type=positive_int(), default=131072, help="context length (tokens)")
    p.add_argument("--s-q", type=positive_int(), default=None, help="prefill: new tokens (default s_kv)")
    p.add_argument("--batch", type=positive_int(), default=1)


def add_hw_args(p: argparse.ArgumentParser, help: str = "hardware") -> None:
    p.add_argument("--hw", default=DEFAULT_HW,
                   help=f"{help}: a preset name (default {DEFAULT_HW!r}) or a JSON/TOML/YAML hardware "
                        "file (docs/hardware.md)")
    p.add_argument("--nodes", type=int_in(1, MAX_PES), default=None,
                   help="scale the hardware to N nodes / SiPs (n_sips = N), e.g. four H100 nodes")


def add_runtime_arg(p: argparse.ArgumentParser) -> None:
    from infersim.presets.runtime_presets import DEFAULT_RUNTIME, RUNTIMES

    p.add_argument("--runtime", default=DEFAULT_RUNTIME,
                   help=f"software runtime: a profile ({', '.join(RUNTIMES)}; default {DEFAULT_RUNTIME}) "
                        "or a TOML/JSON/YAML runtime file (docs/runtime.md): launch path, kernel gaps, "
                        "host launches, per-step and per-sequence host cost")



def add_request_args(p: argparse.ArgumentParser) -> None:
    """The deployment and request shape every serving command takes: runtime, model, hardware,
    mean input / output tokens and the prefix-cache hit fraction."""
    add_runtime_arg(p)
    add_model_args(p)
    add_hw_args(p)
    p.add_argument("--isl", type=positive_int(), default=2048, help="mean input tokens per request")
    p.add_argument("--osl", type=positive_int(), default=512, help="mean output tokens per request")
    p.add_argument("--prefix-hit", type=finite_float, default=0.0, help="fraction of the prompt in a prefix cache")

def load_model(args) -> ModelSpec:
    """The ``--config`` file (it wins over ``--model``, with a warning when both are given) or the
    ``--model`` preset, with any ``--*-dtype`` override (an empty one is an error)."""
    if args.config:
        if args.model is not None:
            warn(f"--config {args.config} is used; --model {args.model!r} is ignored")
        model = model_from_hf_config(args.config)
    else:
        model = get_model(DEFAULT_MODEL if args.model is None else args.model)   # '' is an error, not the default
    head = getattr(args, "head_dtype", None)
    if (args.weight_dtype, args.kv_dtype, args.act_dtype, head) != (None, None, None, None):
        model = model.with_dtypes(args.weight_dtype, args.act_dtype, args.kv_dtype, head=head)
    return model


def load_workload(args, model: ModelSpec | None = None) -> Workload:
    """The workload; warns when ``--s-kv`` exceeds the model's trained context."""
    wl = Workload(mode=args.mode, s_kv=args.s_kv, batch=args.batch, s_q=args.s_q)
    if model is not None:
        model.check_context(wl.s_kv)
    return wl


def load_hardware(args) -> HardwareSpec:
    """``--hw`` (a preset name or a hardware file) scaled to ``--nodes`` SiPs when given."""
    hw = resolve_hardware(args.hw)
    nodes = getattr(args, "nodes", None)
    if nodes is not None:
        require(1 <= nodes <= MAX_PES, f"--nodes must be an integer in 1..{MAX_PES:,}, got {nodes}")
        hw = replace(hw, name=f"{hw.name}, {nodes} nodes" if nodes != hw.n_sips else hw.name, n_sips=nodes)
    return hw


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
    """A rich progress bar driven by ``callback(done, total)``; a no-op when quiet or when stderr
    is not a terminal (a log or a pipe: there a transient bar leaves only a blank line, which
    would break the one-line ``error:`` contract)."""
    from contextlib import nullcontext

    from rich.progress import BarColumn, Progress, TaskProgressColumn, TimeElapsedColumn

    if quiet or not sys.stderr.isatty():
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


def local_workers(n: int | None):
    """A context manager yielding an executor of ``n`` single-thread worker processes, or None
    (run in this process) for ``n`` None or 1: a Dask ``LocalCluster`` client when the ``dask``
    extra is installed, else a ``concurrent.futures.ProcessPoolExecutor`` (same answers)."""
    from contextlib import contextmanager, nullcontext

    if not n or n <= 1:
        return nullcontext(None)

    @contextmanager
    def _pool():
        try:
            from distributed import Client, LocalCluster
        except ImportError:
            from concurrent.futures import ProcessPoolExecutor

            with ProcessPoolExecutor(n) as ex:
                yield ex
            return
        with LocalCluster(n_workers=n, threads_per_worker=1, processes=True, dashboard_address=None,
                          silence_logs=50) as cluster, Client(cluster) as client:
            yield client
    return _pool()
