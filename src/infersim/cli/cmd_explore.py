"""``infersim explore``."""
from __future__ import annotations

from rich.table import Table

from infersim.cli.common import (
    add_hw_args,
    add_model_args,
    add_runtime_arg,
    add_workload_args,
    console,
    emit_json,
    fmt_ns,
    load_hardware,
    load_model,
    load_workload,
    output_file,
    parquet_file,
    positive_int,
    progress_bar,
    write_csv,
)
from infersim.errors import InferSimError
from infersim.search.objectives import OBJECTIVES


def add_parser(sub) -> None:
    p = sub.add_parser("explore", help="search the full parallelism space of one hardware")
    add_runtime_arg(p)
    add_model_args(p)
    add_hw_args(p)
    add_workload_args(p)
    p.add_argument("--top", type=positive_int(), default=20, help="rows printed (default 20)")
    p.add_argument("--objective", default="latency",
                   help=" | ".join(OBJECTIVES) + " (on one hardware the $ and W objectives "
                        "rank like throughput_per_pe)")
    p.add_argument("--csv", type=output_file,
                   help="write every fitting config, ranked, to this CSV file")
    p.add_argument("--out", type=parquet_file, help="write every fitting config, ranked, as Parquet")
    p.add_argument("--json", action="store_true")
    p.set_defaults(run=run)


def run(args) -> int:
    from infersim.search.auto_explore import auto_explore
    from infersim.search.autosuggest import autosuggest

    model, hw = load_model(args), load_hardware(args)
    wl = load_workload(args, model)
    with progress_bar("exploring parallelism", args.json) as cb:
        res = auto_explore(model, hw, wl, objective=args.objective, progress=cb, runtime=args.runtime)
    if res.n_fitting == 0:
        raise InferSimError(f"no parallelism of {model.name} fits {hw.name} for this workload "
                            f"({res.n_valid} valid configs tried)")
    sug = autosuggest(model, hw, wl, runtime=args.runtime)
    from infersim.verdict import explore_verdict, simulate_verdict

    answer = explore_verdict(res, sug) + simulate_verdict(model, hw, res.best_result)[1:]
    rows = res.rows(args.top)
    if args.csv:
        write_csv(args.csv, res.rows())
    if args.out:
        res.to_parquet(args.out)
    if args.json:
        emit_json({"answer": answer, "model": model.name, "hardware": hw.name, "objective": args.objective,
                   "n_enumerated": res.n_enumerated, "n_valid": res.n_valid,
                   "n_fitting": res.n_fitting, "elapsed_s": res.elapsed_s, "top": rows,
                   "best_breakdown_ns": res.best_result.breakdown_ns,
                   "autosuggest": {"memory_min": sug.par.to_dict(), "reason": sug.reason,
                                   "fewest_pes": sug.fewest_pes.to_dict(),
                                   "fewest_pes_reason": sug.fewest_pes_reason}})
        return 0
    console.print(answer[0], style="bold")
    for line in answer[1:]:
        console.print(line)
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
    console.print(f"autosuggest (least memory): {sug.par.describe()} {sug.par.kv_shard_mode} — {sug.reason}")
    console.print(f"autosuggest (fewest PEs): {sug.fewest_pes.describe()} — {sug.fewest_pes_reason}")
    return 0
