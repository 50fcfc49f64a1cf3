"""``infersim codesign``."""
from __future__ import annotations

from rich.table import Table

from .common import (
    add_hw_args,
    add_model_args,
    add_runtime_arg,
    add_workload_args,
    console,
    emit_json,
    fmt_ns,
    load_hardware,
    load_model,
    output_file,
    parse_grid,
    positive_int,
    progress_bar,
    write_csv,
)


def add_parser(sub) -> None:
    p = sub.add_parser("codesign", help="hardware co-design sweep: Pareto frontier and sensitivity")
    add_runtime_arg(p)
    add_model_args(p)
    add_workload_args(p)
    add_hw_args(p, help="base hardware (topology, latencies, efficiencies)")
    p.add_argument("--depth", default="balanced", help="two_stage | balanced | coarse | custom")
    p.add_argument("--grid", help='custom grid, e.g. "bw_hbm_gbs=2000,4000;peak_tflops_f16=250,500"')
    p.add_argument("--objective", default="latency", help="latency | throughput | throughput_per_pe")
    p.add_argument("--top-k", type=positive_int(), default=1, help="pairs kept per hardware candidate")
    p.add_argument("--csv", type=output_file,
                   help="write the kept (hardware, parallelism) pairs to this CSV file")
    p.add_argument("--json", action="store_true")
    p.set_defaults(run=run)


def run(args) -> int:
    from ..auto_hardware import enumerate_hardware, joint_explore
    from ..hardware import KNOBS

    model = load_model(args)
    base = load_hardware(args)
    model.check_context(args.s_kv)
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
