"""``infersim codesign``: the answer first (recommended hardware, parallelism, performance, $ and
W; what limits it and the next knob to buy), then the Pareto frontier, sensitivity and "what it
takes" tables. ``--json`` puts an ``answer`` object first."""
from __future__ import annotations

import math

from rich.table import Table
from rich.text import Text

from infersim.cli.codesign_sla import run_sla
from infersim.cli.common import (
    add_hw_args,
    add_model_args,
    add_runtime_arg,
    add_workload_args,
    console,
    emit_json,
    finite_float,
    fmt_ns,
    int_in,
    load_hardware,
    load_model,
    local_workers,
    output_file,
    parquet_file,
    positive_int,
    progress_bar,
    write_csv,
)
from infersim.codesign.answer import (
    COST_SCORE_TEXT,
    SHORT,
    UNITS_TEXT,
    answer_lines,
    fmt_usd,
    requirement_line,
)
from infersim.codesign.grid import (
    MAX_CANDIDATES_LIMIT,
    MAX_SLA_CANDIDATES,
    MAX_SLA_CANDIDATES_LIMIT,
    parse_grid,
)
from infersim.errors import InferSimError, choice, require
from infersim.search.objectives import OBJECTIVES, get_objective

#: The SLA co-design's names for the same objectives (one set of names with and without an SLA).
OBJECTIVE_ALIASES = {"tok_s": "throughput", "tok_s_per_pe": "throughput_per_pe"}


def add_parser(sub) -> None:
    p = sub.add_parser("codesign", help="hardware co-design sweep: answer, Pareto frontier, sensitivity")
    add_runtime_arg(p)
    add_model_args(p)
    add_workload_args(p)
    add_hw_args(p, help="base hardware (topology, latencies, efficiencies)")
    p.add_argument("--depth", default="balanced", help="two_stage | balanced | coarse | custom")
    p.add_argument("--grid", help='custom grid, e.g. "bw_hbm_gbs=2000,4000;peak_tflops_f16=250,500;'
                                  'n_sips=1,2,4" (system size: pes_per_cube, cubes_per_sip, n_sips)')
    p.add_argument("--objective", default=None,
                   help=" | ".join(OBJECTIVES) + " (default latency; tok_s and tok_s_per_pe are read as "
                        "throughput and throughput_per_pe); with an SLA: tok_s_per_usd (default) | "
                        "tok_s_per_w | throughput_per_pe | throughput")
    p.add_argument("--top-k", type=positive_int(), default=1, help="pairs kept per hardware candidate")
    p.add_argument("--design-point", default="pick",
                   help='where to measure the levers: pick (the answer) | best (the best objective) | '
                        'base | "knob=value;..." (rest from --hw)')
    p.add_argument("--tolerance", type=finite_float, default=1.0,
                   help="percent: the answer is the cheapest design within this of the best objective "
                        "(default 1; 0 = the best)")
    p.add_argument("--target", type=finite_float,
                   help="'what it takes' target: latency in ms, else the objective's unit "
                        "(default: twice as good as the design point)")
    p.add_argument("--max-candidates", type=int_in(1, MAX_CANDIDATES_LIMIT),
                   help=f"raise the candidate cap (default 250,000; SLA: {MAX_SLA_CANDIDATES:,}), at most "
                        f"{MAX_CANDIDATES_LIMIT:,} (SLA: {MAX_SLA_CANDIDATES_LIMIT:,})")
    p.add_argument("--csv", type=output_file, help="write the kept (hardware, parallelism) pairs to this CSV file")
    p.add_argument("--out", type=parquet_file,
                   help="write the kept pairs (with --tpot-ms/--ttft-ms: the candidates) as Parquet")
    g = p.add_argument_group("co-design at a serving SLA (any limit switches the sweep to it)")
    g.add_argument("--ttft-ms", type=finite_float, help="time-to-first-token limit (ms)")
    g.add_argument("--tpot-ms", type=finite_float, help="time-per-output-token limit (ms)")
    g.add_argument("--isl", type=positive_int(), default=2048, help="input tokens per request")
    g.add_argument("--osl", type=positive_int(), default=512, help="output tokens per request")
    g.add_argument("--batching", default="continuous", help="continuous | static")
    g.add_argument("--rate", type=finite_float, default=None,
                   help="target requests/s: each design states the replicas, PEs and $/h that serve it at the "
                        "SLA (steady state); --objective rate_per_usd ranks by the fewest dollars for it")
    g.add_argument("--disaggregated", action="store_true",
                   help="also the best pair of different prefill and decode parts (one per pool)")
    p.add_argument("--workers", type=int_in(1, 256), default=1,
                   help="worker processes for the sweep (a local Dask cluster when the dask extra is "
                        "installed, else a process pool); same answers as one process")
    p.add_argument("--json", action="store_true")
    p.set_defaults(run=run)


def _design_point(text: str):
    if text in ("pick", "best", "base"):
        return text
    grid = parse_grid(text, option="--design-point") or {}
    multi = [k for k, v in grid.items() if len(v) != 1]
    require(not multi, f"--design-point takes one value per knob; {', '.join(multi)} has several")
    return {k: v[0] for k, v in grid.items()}


def fmt_value(objective: str, v: float) -> str:
    """An objective value in its display unit."""
    if not math.isfinite(v):
        return "-"
    if objective == "latency":
        return fmt_ns(v)
    unit = get_objective(objective).label
    return f"{v:,.3f} {unit}" if abs(v) < 100 else f"{v:,.0f} {unit}"


def _summary(args, model, base, res, ans) -> dict:
    return {
        "answer": ans,
        "model": model.name, "base_hw": base.name, "depth": args.depth, "mode": args.mode,
        "s_kv": args.s_kv, "batch": args.batch, "objective": res.objective,
        "n_hardware": res.n_hardware, "n_parallel_per_hw": res.n_parallel, "n_evals": res.n_evals,
        "total_joint": res.total_joint, "elapsed_s": res.elapsed_s, "sensitivity_s": res.sensitivity_s,
        "economics": res.economics.to_dict(),
        "best": res.best.to_dict(), "pick": res.pick.to_dict(), "tolerance": res.tolerance,
        "pareto": [s.to_dict() for s in res.pareto_scores],
        "pareto_usd": [s.to_dict() for s in res.pareto_usd_scores],
        "design_point": {**res.design_point.knobs(), **res.design_point.topology_overrides()},
        "design_value": res.design_value,
        "sensitivity": [vars(r) for r in res.sensitivity],
        "levers": [vars(lv) for lv in res.levers],
        "cost_score": COST_SCORE_TEXT,
        "what_it_takes": {"target_value": res.target_value,
                          "rows": [vars(r) for r in res.requirements],
                          "combination": vars(res.combination) if res.combination else None},
    }


#: Flags of the step co-design that the SLA co-design (--ttft-ms/--tpot-ms) has no use for, with
#: their defaults: given with a limit, they are an error instead of being silently ignored.
STEP_ONLY = {"mode": "decode", "s_kv": 131072, "s_q": None, "batch": 1, "design_point": "pick",
             "target": None, "top_k": 1}
#: ... and the SLA flags the step co-design ignores.
SLA_ONLY = {"isl": 2048, "osl": 512, "batching": "continuous", "rate": None}


def _check_flags(args, sla: bool) -> None:
    """Refuse flags the chosen sweep would ignore (one line naming them)."""
    unused = STEP_ONLY if sla else SLA_ONLY
    given = [f"--{k.replace('_', '-')}" for k, d in unused.items() if getattr(args, k) != d]
    if given:
        other = "the step co-design (without --ttft-ms/--tpot-ms)" if sla else \
            "the SLA co-design (with --ttft-ms or --tpot-ms)"
        raise InferSimError(f"{', '.join(given)} only applies to {other}; drop it or switch sweeps")


def run(args) -> int:
    from infersim.codesign.auto_hardware import joint_explore
    from infersim.codesign.grid import DEPTHS, check_cap, grid_axes, grid_size
    from infersim.codesign.types import TOPOLOGY_KNOBS

    sla = args.ttft_ms is not None or args.tpot_ms is not None
    _check_flags(args, sla)
    model = load_model(args)
    base = load_hardware(args)
    model.check_context(args.isl + args.osl if sla else args.s_kv)
    grid = parse_grid(args.grid)
    choice("depth", args.depth, DEPTHS)
    # reject a bad or oversized grid before starting (sizes only: no candidate is built)
    axes = grid_axes(args.depth, grid, base.knobs(), tuple(getattr(base, k) for k in TOPOLOGY_KNOBS))
    if sla:
        check_cap(grid_size(axes), args.max_candidates, MAX_SLA_CANDIDATES, MAX_SLA_CANDIDATES_LIMIT,
                  "an SLA co-design")
        return run_sla(args, model, base, grid)
    check_cap(grid_size(axes), args.max_candidates)
    obj = get_objective("latency" if args.objective is None else OBJECTIVE_ALIASES.get(args.objective, args.objective))
    require(0 <= args.tolerance < 100, f"--tolerance is a percentage in [0, 100), got {args.tolerance:g}")
    design = _design_point(args.design_point)
    if isinstance(design, dict):     # its values checked now, not after the sweep
        grid_axes("custom", {k: [v] for k, v in design.items()}, base.knobs(),
                  tuple(getattr(base, k) for k in TOPOLOGY_KNOBS))
    target = None
    if args.target is not None:
        require(math.isfinite(args.target) and args.target > 0, f"--target must be > 0, got {args.target:g}")
        target = args.target * 1e6 if obj.name == "latency" else args.target
    with progress_bar(f"co-design sweep ({args.depth})", args.json) as cb, local_workers(args.workers) as ex:
        res = joint_explore(model, s_kv=args.s_kv, mode=args.mode, depth=args.depth, batch=args.batch,
                            s_q=args.s_q, base_hw=base, objective=obj.name, progress=cb,
                            custom=grid, keep="topk" if args.top_k > 1 else "best",
                            top_k=args.top_k, runtime=args.runtime, design_point=design, target=target,
                            max_candidates=args.max_candidates, tolerance=args.tolerance / 100, executor=ex)
    ans = res.answer()
    if args.out:
        res.to_parquet(args.out)
    if args.csv:
        write_csv(args.csv, (s.to_dict() for s in res.all_scores.iter_transient()))
    if args.json:
        emit_json(_summary(args, model, base, res, ans))
        return 0
    first, second = answer_lines(ans)
    console.print(Text.assemble(("Answer:", "bold"), first.removeprefix("Answer:")), highlight=False,
                  soft_wrap=True)
    console.print(second, highlight=False, soft_wrap=True)
    req = requirement_line(ans)
    if req:
        console.print(req, highlight=False, soft_wrap=True)
    how = ("memory-first pick on the base hardware (autosuggest), not a search"
           if args.depth == "two_stage" else f"{res.total_joint:,} fitting pairs searched")
    console.print(f"Co-design {model.name}, {args.mode} s_kv={args.s_kv} batch={args.batch}, depth "
                  f"{args.depth}, objective {obj.name}: {res.n_hardware:,} hardware x {res.n_parallel:,} "
                  f"parallelism configs, {how} in {res.elapsed_s:.2f} s "
                  f"({res.n_evals:,} costed after pruning)")
    _print_pareto(res)
    console.print(COST_SCORE_TEXT, highlight=False, soft_wrap=True)
    _print_levers(res)
    return 0


def _print_pareto(res) -> None:
    from infersim.specs.hardware import KNOBS

    t = Table(title=f"Pareto frontier: {res.objective} vs system cost ($) ({len(res.pareto_usd_scores)} "
                    f"points; on {res.objective} vs cost_score: {len(res.pareto_scores)} points; {UNITS_TEXT})")
    lead = () if res.objective == "latency" else (res.objective,)
    for col in (*lead, "latency", "tok/s", "capex", "power", "cost_score", *SHORT.values(),
                "parallelism", "PEs"):
        t.add_column(col, justify="right")
    for s in res.pareto_usd_scores:
        value = () if res.objective == "latency" else (fmt_value(res.objective, s.objective_value),)
        t.add_row(*value, fmt_ns(s.total_latency_ns),
                  f"{s.tokens_per_s:,.0f}", fmt_usd(s.system_cost_usd), f"{s.system_power_w / 1e3:,.1f} kW",
                  f"{s.cost_score:.2f}", *(f"{getattr(s.hw, k):g}" for k in KNOBS),
                  f"{s.par.describe()} {s.par.kv_shard_mode}/{s.par.ffn_shard_scope}", str(s.pes))
    console.print(t)


LEVER_ROWS = 12


def _print_levers(res) -> None:
    """Hardware and software levers at the design point, ranked by gain (the answer's next
    lever is the first row)."""
    if not res.levers:
        return
    t = Table(title=f"Levers at the design point ({fmt_value(res.objective, res.design_value)}), hardware "
                    f"and software, best first: each change alone, parallelism re-searched under "
                    f"{res.objective}")
    for col in ("rank", "kind", "change", "x0.5", "x2", "after", "gain", "elasticity", "+$/PE"):
        t.add_column(col, justify="left" if col == "change" else "right")
    for i, lv in enumerate(res.levers[:LEVER_ROWS], 1):
        capex = f"{lv.capex_usd_per_pe:+,.0f}" if math.isfinite(lv.capex_usd_per_pe) else "-"
        el = f"{lv.elasticity:.2f}" if math.isfinite(lv.elasticity) else "-"
        t.add_row(str(i), lv.kind, lv.action, fmt_value(res.objective, lv.halved_value),
                  fmt_value(res.objective, lv.doubled_value), fmt_value(res.objective, lv.value),
                  f"{100 * lv.gain:+.1f}%", el, capex)
    console.print(t)
    if len(res.levers) > LEVER_ROWS:
        console.print(f"{len(res.levers) - LEVER_ROWS} more levers (each gaining less) in --json", highlight=False)
