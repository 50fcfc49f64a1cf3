"""Command-line interface: ``infersim {presets,simulate,explore,codesign,ui}`` (``--json`` on each).

Bad input prints one line ``error: ...`` to stderr and exits with status 2, never a traceback.
"""
from __future__ import annotations

import argparse
import json
import sys
from typing import Callable

from rich.console import Console
from rich.table import Table

from .errors import InferSimError
from .hardware_presets import DEFAULT_HW, HW_PRESETS, get_hardware
from .model import ModelSpec
from .model_presets import DEFAULT_MODEL, PRESETS, get_model
from .parallel import (CP_PLACEMENTS, CP_RING_VARIANTS, FFN_SHARD_SCOPES, KV_SHARD_MODES,
                       TP_PLACEMENTS, Parallelism)
from .workload import MODES, Workload

# wide enough for the ranked tables when stdout is a pipe or a file (rich defaults to 80 there)
console = Console(width=None if sys.stdout.isatty() else 150)
COMMANDS: dict[str, Callable] = {}


def command(fn: Callable) -> Callable:
    COMMANDS[fn.__name__.removeprefix("cmd_")] = fn
    return fn


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
    from .runtime import DEFAULT_RUNTIME, RUNTIMES

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
@command
def cmd_presets(args) -> int:
    models = {n: {"params": p.model.param_count(), "published_params": p.published_params,
                  "source": p.source} for n, p in PRESETS.items()}
    hws = {n: {**h.knobs(), "n_pes": h.n_pes, "source": h.source} for n, h in HW_PRESETS.items()}
    if args.json:
        emit_json({"models": models, "hardware": hws})
        return 0
    t = Table(title="Model presets")
    for col in ("name", "params", "layers", "hidden", "heads/kv", "ffn", "vocab"):
        t.add_column(col)
    for n, p in PRESETS.items():
        m = p.model
        t.add_row(n, f"{m.param_count() / 1e9:.2f} B", str(m.n_layers), str(m.hidden),
                  f"{m.n_heads}/{m.n_kv_heads}", str(m.ffn_hidden or m.moe_ffn_hidden), str(m.vocab))
    console.print(t)
    t = Table(title="Hardware presets")
    for col in ("name", "PEs", "HBM GB", "HBM GB/s", "TFLOPS", "intra/inter/SiP GB/s"):
        t.add_column(col)
    for n, h in HW_PRESETS.items():
        t.add_row(n, f"{h.n_pes} ({h.pes_per_cube}x{h.cubes_per_sip}x{h.n_sips})", f"{h.pe_hbm_gb:g}",
                  f"{h.bw_hbm_gbs:g}", f"{h.peak_tflops_f16:g}",
                  f"{h.bw_intra_gbs:g}/{h.bw_inter_gbs:g}/{h.bw_intersip_gbs:g}")
    console.print(t)
    return 0


@command
def cmd_simulate(args) -> int:
    from .simulate import simulate

    model, hw, wl = load_model(args), get_hardware(args.hw), load_workload(args)
    par = Parallelism(tp=args.tp, pp=args.pp, dp=args.dp, cp=args.cp, ep=args.ep,
                      kv_shard_mode=args.kv_shard_mode, ffn_shard_scope=args.ffn_shard_scope,
                      tp_placement=args.tp_placement, cp_placement=args.cp_placement,
                      cp_ring_variant=args.cp_ring_variant)
    r = simulate(model, hw, par, wl, runtime=args.runtime)
    if args.json:
        emit_json(r.to_dict())
        return 0
    console.print(f"[bold]{model.name}[/] on [bold]{hw.name}[/], {r.par.describe()}, "
                  f"{wl.mode} s_kv={wl.s_kv} batch={wl.batch}")
    t = Table(title=f"Latency {fmt_ns(r.total_latency_ns)} ({r.bound}-bound, {r.pes_used} PEs)")
    t.add_column("component")
    t.add_column("time", justify="right")
    t.add_column("share", justify="right")
    for name, v in sorted(r.breakdown_ns.items(), key=lambda kv: -kv[1]):
        if v > 0:
            t.add_row(name, fmt_ns(v), f"{100 * v / r.total_latency_ns:.1f}%")
    console.print(t)
    if r.bound == "overhead":
        from .cost import RUNTIME_COMPONENTS
        share = sum(r.breakdown_ns[c] for c in RUNTIME_COMPONENTS + ("kernel_floor",))
        console.print(f"note: per-kernel and per-step overhead is the largest share "
                      f"({100 * share / r.total_latency_ns:.0f}%) under the {r.runtime} runtime")
    verdict = "[green]fits[/]" if r.fits else "[red]does NOT fit[/]"
    parts = ", ".join(f"{k} {fmt_gb(v)}" for k, v in r.mem_breakdown_bytes.items())
    console.print(f"Memory per PE {fmt_gb(r.mem_per_pe_bytes)} of {fmt_gb(r.mem_capacity_bytes)} usable "
                  f"({parts}): {verdict}")
    console.print(f"Throughput {r.tokens_per_s:,.1f} tokens/s ({r.tokens_per_s_per_pe:,.2f} per PE)")
    return 0


def write_csv(path: str, rows: list[dict]) -> None:
    import csv

    if not rows:
        raise InferSimError(f"nothing to write to {path}: no rows")
    try:
        with open(path, "w", newline="", encoding="utf-8") as fh:
            w = csv.DictWriter(fh, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows(rows)
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


@command
def cmd_explore(args) -> int:
    from .auto_explore import auto_explore
    from .autosuggest import autosuggest

    model, hw, wl = load_model(args), get_hardware(args.hw), load_workload(args)
    if args.top < 1:
        raise InferSimError(f"--top must be >= 1, got {args.top}")
    with progress_bar("exploring parallelism", args.json) as cb:
        res = auto_explore(model, hw, wl, objective=args.objective, progress=cb, runtime=args.runtime)
    if res.n_fitting == 0:
        raise InferSimError(f"no parallelism of {model.name} fits {hw.name} for this workload "
                            f"({res.n_valid} valid configs tried)")
    sug = autosuggest(model, hw, wl, runtime=args.runtime)
    rows = res.rows(args.top)
    if args.csv:
        write_csv(args.csv, res.rows())
    if args.json:
        emit_json({"model": model.name, "hardware": hw.name, "objective": args.objective,
                   "n_enumerated": res.n_enumerated, "n_valid": res.n_valid,
                   "n_fitting": res.n_fitting, "elapsed_s": res.elapsed_s, "top": rows,
                   "best_breakdown_ns": res.best_result.breakdown_ns,
                   "autosuggest": {"memory_min": sug.par.to_dict(), "reason": sug.reason,
                                   "fewest_pes": sug.fewest_pes.to_dict(),
                                   "fewest_pes_reason": sug.fewest_pes_reason}})
        return 0
    t = Table(title=f"{model.name} on {hw.name}: {wl.mode} s_kv={wl.s_kv} batch={wl.batch} "
                    f"— top {len(rows)} of {res.n_fitting} fitting by {args.objective}")
    for col in ("#", "TP", "CP", "PP", "DP", "kv shard", "FFN", "TP/CP place", "ring", "PEs",
                "latency", "tok/s", "GB/PE"):
        t.add_column(col, justify="right")
    for r in rows:
        t.add_row(str(r["rank"]), str(r["tp"]), str(r["cp"]), str(r["pp"]), str(r["dp"]),
                  r["kv_shard_mode"], r["ffn_shard_scope"], f"{r['tp_placement']}/{r['cp_placement']}",
                  r["cp_ring_variant"] if r["cp"] > 1 else "-", str(r["pes"]),
                  fmt_ns(r["latency_ms"] * 1e6), f"{r['tokens_per_s']:,.1f}", f"{r['mem_per_pe_gb']:.2f}")
    console.print(t)
    console.print(f"{res.n_enumerated} enumerated, {res.n_valid} valid, {res.n_fitting} fit; "
                  f"searched in {res.elapsed_s * 1e3:.1f} ms ({res.evals_per_s:,.0f} configs/s)")
    b = res.best_result
    console.print("Best breakdown: " + ", ".join(
        f"{k} {fmt_ns(v)}" for k, v in sorted(b.breakdown_ns.items(), key=lambda kv: -kv[1]) if v > 0))
    console.print(f"autosuggest (memory-minimum): {sug.par.describe()} {sug.par.kv_shard_mode} — {sug.reason}")
    console.print(f"autosuggest (fewest PEs): {sug.fewest_pes.describe()} — {sug.fewest_pes_reason}")
    return 0


def parse_grid(text: str | None) -> dict[str, list[float]] | None:
    """``--grid "bw_hbm_gbs=2000,4000;peak_tflops_f16=500,1000"`` → {knob: [values]}."""
    if not text:
        return None
    grid: dict[str, list[float]] = {}
    for part in filter(None, (p.strip() for p in text.split(";"))):
        key, sep, vals = part.partition("=")
        if not sep:
            raise InferSimError(f"bad --grid entry {part!r}; expected knob=v1,v2,...")
        try:
            grid[key.strip()] = [float(v) for v in vals.split(",") if v.strip()]
        except ValueError:
            raise InferSimError(f"bad --grid values for {key.strip()!r}: {vals!r}") from None
    return grid


@command
def cmd_codesign(args) -> int:
    from .auto_hardware import enumerate_hardware, joint_explore
    from .hardware import KNOBS

    model = load_model(args)
    base = get_hardware(args.hw)
    grid = parse_grid(args.grid)
    enumerate_hardware(args.depth, grid, base=base.knobs())   # reject a bad sweep before starting
    with progress_bar(f"co-design sweep ({args.depth})", args.json) as cb:
        res = joint_explore(model, s_kv=args.s_kv, mode=args.mode, depth=args.depth, batch=args.batch,
                            s_q=args.s_q, base_hw=base, objective=args.objective, progress=cb,
                            custom=grid, keep="topk" if args.top_k > 1 else "best",
                            top_k=args.top_k, runtime=args.runtime)
    if args.csv:
        write_csv(args.csv, [s.to_dict() for s in res.all_scores])
    summary = {
        "model": model.name, "base_hw": base.name, "depth": args.depth, "mode": args.mode,
        "s_kv": args.s_kv, "batch": args.batch, "n_hardware": res.n_hardware,
        "n_parallel_per_hw": res.n_parallel, "n_evals": res.n_evals, "total_joint": res.total_joint,
        "elapsed_s": res.elapsed_s, "sensitivity_s": res.sensitivity_s,
        "best": res.best.to_dict(),
        "pareto": [s.to_dict() for s in res.pareto_scores],
        "sensitivity": [vars(r) for r in res.sensitivity],
    }
    if args.json:
        emit_json(summary)
        return 0
    console.print(f"[bold]Co-design[/] {model.name}, {args.mode} s_kv={args.s_kv} batch={args.batch}, "
                  f"depth {args.depth}: {res.n_hardware} hardware x {res.n_parallel} parallelism configs, "
                  f"{res.total_joint:,} fitting pairs in {res.elapsed_s:.2f} s "
                  f"({res.n_evals / max(res.elapsed_s, 1e-9):,.0f} evals/s)")
    t = Table(title=f"Pareto frontier: latency vs cost_score ({len(res.pareto_scores)} points)")
    short = {"pe_hbm_gb": "HBM GB", "bw_hbm_gbs": "HBM GB/s", "peak_tflops_f16": "TFLOPS",
             "bw_intra_gbs": "intra", "bw_inter_gbs": "inter", "bw_intersip_gbs": "SiP"}
    for col in ("latency", "cost", *short.values(), "parallelism", "PEs"):
        t.add_column(col, justify="right")
    for s in res.pareto_scores:
        t.add_row(fmt_ns(s.total_latency_ns), f"{s.cost_score:.2f}",
                  *(f"{getattr(s.hw, k):g}" for k in KNOBS),
                  f"{s.par.describe()} {s.par.kv_shard_mode}/{s.par.ffn_shard_scope}", str(s.pes))
    console.print(t)
    t = Table(title="Sensitivity: double one knob of the fastest hardware, re-search parallelism")
    for col in ("rank", "knob", "baseline", "doubled", "speedup"):
        t.add_column(col, justify="right")
    for i, r in enumerate(res.sensitivity, 1):
        t.add_row(str(i), r.knob, fmt_ns(r.baseline_latency_ns), fmt_ns(r.doubled_latency_ns),
                  f"{100 * r.rel_speedup:+.1f}%")
    console.print(t)
    b = res.best
    console.print(f"Best hardware: {', '.join(f'{k}={v:g}' for k, v in b.hw.knobs().items())} "
                  f"(cost_score {b.cost_score:.2f}) with {b.par.describe()} "
                  f"{b.par.kv_shard_mode}/{b.par.ffn_shard_scope}: {fmt_ns(b.total_latency_ns)}")
    return 0


@command
def cmd_validate(args) -> int:
    from .validate import run_validation, write_docs

    rep = run_validation(refit=args.refit)
    if args.write_docs:
        write_docs(rep, args.write_docs)
    if args.json:
        emit_json(rep.to_dict())
        return 0
    console.print(f"[bold]Held-out median |error| {100 * rep.median_abs_error('test'):.1f}%[/] "
                  f"(test sources, never fitted); train {100 * rep.median_abs_error('train'):.1f}%; "
                  f"before calibration {100 * rep.median_abs_error('test', False):.1f}% held out")
    t = Table(title="Per source")
    for col in ("source", "split", "runtime", "rows", "excluded", "median |error|", "before calibration"):
        t.add_column(col, justify="left" if col in ("source", "split", "runtime") else "right")
    for s in rep.by_source():
        t.add_row(s["source"], s["split"], s["runtime"], str(s["rows"]), str(s["excluded_rows"]),
                  f"{100 * s['median_abs_error']:.1f}%", f"{100 * s['median_abs_error_prior']:.1f}%")
    console.print(t)
    t = Table(title="Fitted parameters" + (" (refit)" if rep.fit else " (stored)"))
    t.add_column("parameter")
    t.add_column("value", justify="right")
    for k, v in rep.params.items():
        t.add_row(k, f"{v:.4g}")
    console.print(t)
    if args.rows:
        t = Table(title="Predicted vs published measurements")
        for col in ("row", "split", "measured", "before", "calibrated", "error"):
            t.add_column(col, justify="right" if col not in ("row", "split") else "left")
        for r in rep.rows:
            t.add_row(r.row.id, r.row.split, f"{r.row.value:,.2f} {r.row.unit}", f"{r.predicted_prior:,.2f}",
                      f"{r.predicted:,.2f}", f"{100 * r.error:+.1f}%")
        console.print(t)
    return 0


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="infersim", description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="command", required=True)

    p = sub.add_parser("presets", help="list model and hardware presets")
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("simulate", help="latency and memory of one configuration")
    add_runtime_arg(p)
    add_model_args(p)
    add_hw_args(p)
    add_workload_args(p)
    for k in ("tp", "pp", "dp", "cp", "ep"):
        p.add_argument(f"--{k}", type=int, default=1)
    p.add_argument("--kv-shard-mode", default="head", help=f"one of {', '.join(KV_SHARD_MODES)}")
    p.add_argument("--ffn-shard-scope", default="TP", help=f"one of {', '.join(FFN_SHARD_SCOPES)}")
    p.add_argument("--tp-placement", default="cube", help=f"one of {', '.join(TP_PLACEMENTS)}")
    p.add_argument("--cp-placement", default="pe", help=f"one of {', '.join(CP_PLACEMENTS)}")
    p.add_argument("--cp-ring-variant", default=None,
                   help=f"one of {', '.join(CP_RING_VARIANTS)} (default: qoml in decode, kv in prefill)")
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("explore", help="search the full parallelism space of one hardware")
    add_runtime_arg(p)
    add_model_args(p)
    add_hw_args(p)
    add_workload_args(p)
    p.add_argument("--top", type=int, default=20)
    p.add_argument("--objective", default="latency",
                   help="latency | throughput | throughput_per_pe")
    p.add_argument("--csv", help="write every fitting config, ranked, to this CSV file")
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("codesign", help="hardware co-design sweep: Pareto frontier and sensitivity")
    add_runtime_arg(p)
    add_model_args(p)
    add_workload_args(p)
    p.add_argument("--hw", default=DEFAULT_HW, help="base hardware (topology, latencies, efficiencies)")
    p.add_argument("--depth", default="balanced", help="two_stage | balanced | coarse | custom")
    p.add_argument("--grid", help='custom grid, e.g. "bw_hbm_gbs=2000,4000;peak_tflops_f16=250,500"')
    p.add_argument("--objective", default="latency", help="latency | throughput | throughput_per_pe")
    p.add_argument("--top-k", type=int, default=1, help="pairs kept per hardware candidate")
    p.add_argument("--csv", help="write the kept (hardware, parallelism) pairs to this CSV file")
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("validate", help="compare predictions with published measurements")
    p.add_argument("--refit", action="store_true", help="fit the calibration afresh on the train rows")
    p.add_argument("--write-docs", metavar="PATH", help="write the error table as Markdown to PATH")
    p.add_argument("--rows", action="store_true", help="also print every row")
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("ui", help="start the Streamlit UI on 127.0.0.1")
    p.add_argument("--port", type=int, default=8501)
    p.add_argument("--json", action="store_true", help="print the URL as JSON and keep serving")
    return ap


@command
def cmd_ui(args) -> int:
    import os
    import subprocess
    from importlib import resources

    try:
        import streamlit  # noqa: F401
    except ImportError:
        raise InferSimError("the UI needs the 'ui' extra: pip install 'infersim[ui]'") from None
    app = str(resources.files("infersim") / "ui" / "app.py")
    url = f"http://127.0.0.1:{args.port}"
    if args.json:
        emit_json({"url": url})
    else:
        console.print(f"infersim UI on {url}")
    cmd = [sys.executable, "-m", "streamlit", "run", app, "--server.address", "127.0.0.1",
           "--server.port", str(args.port), "--server.headless", "true",
           "--browser.gatherUsageStats", "false"]
    return subprocess.call(cmd, env={**os.environ, "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false"})


def main(argv: list[str] | None = None) -> int:
    ap = build_parser()
    args = ap.parse_args(argv)
    try:
        return COMMANDS[args.command](args)
    except InferSimError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
