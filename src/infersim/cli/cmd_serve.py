"""``infersim serve``: the best deployment for a request shape under a TTFT/TPOT SLA; with ``--rate``
(or ``--arrival``) the traffic simulation of one deployment instead: percentile TTFT/TPOT/E2E,
throughput and goodput at that rate."""
from __future__ import annotations

from rich.table import Table
from rich.text import Text

from infersim.cli.cmd_capacity import add_traffic_args, load_scheduler, load_traffic
from infersim.cli.common import (
    add_request_args,
    console,
    emit_json,
    finite_float,
    load_hardware,
    load_model,
    output_file,
    positive_int,
    write_csv,
)
from infersim.errors import require
from infersim.serving.answer import answer_lines, offline_line, traffic_lines


def add_parser(sub) -> None:
    from infersim.serving import BATCHING, DEFAULT_CHUNK_TOKENS
    from infersim.serving.launch import EMIT_CHOICES
    from infersim.serving.sla import DEFAULT_BATCH_CAP, OBJECTIVES

    p = sub.add_parser("serve", help="best deployment for requests under a TTFT/TPOT SLA")
    add_request_args(p)
    p.add_argument("--ttft-ms", type=finite_float, default=None, help="time-to-first-token limit (ms)")
    p.add_argument("--tpot-ms", type=finite_float, default=None, help="time-per-output-token limit (ms)")
    p.add_argument("--objective", default="tok_s_per_pe", help=" | ".join(OBJECTIVES))
    p.add_argument("--batching", default="continuous", help=" | ".join(BATCHING))
    p.add_argument("--chunk-tokens", type=positive_int(), default=DEFAULT_CHUNK_TOKENS,
                   help="prompt tokens per step under continuous batching")
    p.add_argument("--batch-cap", type=positive_int(), default=DEFAULT_BATCH_CAP, help="most sequences in flight")
    p.add_argument("--no-disagg", action="store_true", help="skip the disaggregated prefill/decode search")
    p.add_argument("--speculative", metavar="METHOD[:K[:ALPHA]]", default=None,
                   help="speculative decoding: mtp | eagle | draft, k drafted tokens (a number or 'auto', "
                        "default 3) and acceptance rate alpha (default: the method's published one), "
                        "e.g. mtp:1:0.85, eagle:auto")
    p.add_argument("--draft-model", default=None, help="draft model preset for --speculative draft:...")
    p.add_argument("--emit", "--engine", dest="emit", default=None, choices=EMIT_CHOICES,
                   help="print the launch command of the answer for this engine")
    p.add_argument("--model-id", default=None, help="HF repository or path in the launch command "
                                                    "(default: the preset's repository)")
    p.add_argument("--draft-id", default=None, help="drafter checkpoint (EAGLE head, draft model) "
                                                    "in the launch command")
    p.add_argument("--csv", type=output_file, help="write the Pareto frontier (with --rate: the requests) to this CSV")
    add_traffic_args(p)
    for k in ("tp", "pp", "dp", "cp", "ep"):
        p.add_argument(f"--{k}", type=positive_int(1024), default=None,
                       help="with --rate: the deployment (default: the SLA search's best)" if k == "tp" else None)
    p.add_argument("--json", action="store_true")
    p.set_defaults(run=run)


def parse_speculation(text: str | None, draft_model: str | None):
    """``METHOD[:K[:ALPHA]]`` → a Speculation (K a number or ``auto``); None without ``text``."""
    from infersim.presets.model_presets import get_model
    from infersim.specs.speculation import Speculation

    if text is None:
        require(draft_model is None, "--draft-model needs --speculative draft[:K[:ALPHA]]")
        return None
    parts = text.split(":")
    require(1 <= len(parts) <= 3 and parts[0], f"--speculative takes METHOD[:K[:ALPHA]], got {text!r}")
    k: int | None = 3
    if len(parts) > 1:
        require(parts[1] == "auto" or parts[1].isdigit(), f"--speculative K must be a number or 'auto', got {parts[1]!r}")
        k = None if parts[1] == "auto" else int(parts[1])
    alpha = finite_float(parts[2]) if len(parts) > 2 else None
    draft = get_model(draft_model) if draft_model else None
    return Speculation(parts[0], k, alpha, draft)


def run(args) -> int:
    from infersim.serving import Request
    from infersim.serving.launch import answer_commands
    from infersim.serving.sla import sla_search

    model, hw = load_model(args), load_hardware(args)
    if args.rate is not None or args.arrival is not None:
        return run_traffic(args, model, hw)
    spec = parse_speculation(args.speculative, args.draft_model)
    request = Request(isl=args.isl, osl=args.osl, prefix_hit=args.prefix_hit)
    r = sla_search(model, hw, request, ttft_ms=args.ttft_ms, tpot_ms=args.tpot_ms,
                   objective=args.objective, runtime=args.runtime, batching=args.batching,
                   chunk_tokens=args.chunk_tokens, batch_cap=args.batch_cap,
                   disaggregated=not args.no_disagg, speculation=spec)
    launch = answer_commands(args.emit, r, model, runtime=args.runtime, chunk_tokens=args.chunk_tokens,
                             model_id=args.model_id, draft_id=args.draft_id) if args.emit else None
    offline = _offline_run(args, model, hw, request, spec, r) if args.requests else None
    if args.csv:
        write_csv(args.csv, [{**p.par.to_dict(), **{k: v for k, v in p.to_dict().items() if k != "par"}}
                             for p in r.pareto])
    if args.json:
        lines = answer_lines(r) + ([offline_line(offline, r.best.tok_s)] if offline else [])
        emit_json({"answer": lines, **({"launch": {args.emit: launch}} if launch else {}),
                   **({"offline_run": offline.to_dict()} if offline else {}), **r.to_dict()})
        return 0
    for i, line in enumerate(answer_lines(r)):
        console.print(line, style="bold" if i == 0 else None)
    if offline:
        console.print(offline_line(offline, r.best.tok_s))
    elif args.requests:
        console.print(f"offline run of {args.requests:,} requests: not priced, no aggregated deployment meets the SLA")
    if launch:
        console.print(f"\nLaunch ({args.emit}):", style="bold")
        for line in launch:
            console.print(line, markup=False, highlight=False, soft_wrap=True)
    t = Table(title=f"Throughput vs interactivity: Pareto frontier ({len(r.pareto)} points of "
                    f"{r.n_evaluated:,} evaluated, {r.n_meeting:,} meet the SLA)")
    for col in ("parallelism", "PEs", "batch", "tok/s/user", "tok/s/PE", "tok/s", "TTFT ms", "TPOT ms", "SLA"):
        t.add_column(col, justify="left" if col == "parallelism" else "right")
    for p in r.pareto:
        t.add_row(p.par.describe(), str(p.pes), str(p.batch), f"{p.tok_s_per_user:.1f}",
                  f"{p.tok_s_per_pe:,.1f}", f"{p.tok_s:,.0f}", f"{p.ttft_ms:,.0f}", f"{p.tpot_ms:.1f}",
                  "meets" if p.meets_sla else "-")
    console.print(t)
    console.print(f"searched {r.n_evaluated:,} (parallelism, batch) pairs in {r.elapsed_s * 1e3:.0f} ms "
                  f"({r.batching} batching, {r.runtime} runtime)")
    return 0


def _offline_run(args, model, hw, request, spec, r):
    """``--requests N`` without ``--rate``: the answer's aggregated deployment serving N requests
    submitted at once (``serve(..., requests=N)``), or None when nothing meets the SLA."""
    from infersim.serving import serve

    require(args.batching == "continuous", "--requests without --rate prices an offline run of that many "
                                           "requests, which needs --batching continuous")
    if r.best is None:
        return None
    return serve(model, hw, r.best.par, request, batch=r.best.batch, runtime=args.runtime,
                 chunk_tokens=args.chunk_tokens, speculation=spec, requests=args.requests)


def _deployment(args, model, hw, request):
    """--tp/--pp/--cp/--ep/--dp, or the SLA search's best aggregated deployment."""
    from infersim.serving.sla import sla_search
    from infersim.specs.parallel import Parallelism

    degrees = {k: getattr(args, k) for k in ("tp", "pp", "dp", "cp", "ep") if getattr(args, k) is not None}
    if degrees:
        return Parallelism(**degrees), ""
    r = sla_search(model, hw, request, ttft_ms=args.ttft_ms, tpot_ms=args.tpot_ms, runtime=args.runtime,
                   disaggregated=False)
    pick = r.best or r.nearest_miss
    return pick.par, f"deployment: {pick.par.describe()}, the SLA search's best (choose with --tp/--pp/--cp/--dp)"


def run_traffic(args, model, hw) -> int:
    from infersim.serving import Request
    from infersim.serving.capacity import mean_request, saturation_rps
    from infersim.serving.load import simulate_traffic
    from infersim.specs.parallel import ParArrays
    from infersim.specs.workload import Workload

    traffic = load_traffic(args, 2000)
    sched = load_scheduler(args)
    req = mean_request(traffic) if traffic.arrival == "trace" else Request(args.isl, args.osl, args.prefix_hit)
    par, note = _deployment(args, model, hw, req)
    r = simulate_traffic(model, hw, par, traffic, runtime=args.runtime, scheduler=sched)
    cfg = ParArrays.from_configs([par], Workload("decode", s_kv=req.isl + req.osl, batch=par.dp))
    sat = float(saturation_rps(model, hw, cfg, req, sched, args.runtime)[0][0])
    lines = traffic_lines(r, sat, args.ttft_ms, args.tpot_ms, args.percentile) + ([note] if note else [])
    if args.csv:
        df = r.to_pandas("requests")
        write_csv(args.csv, df.to_dict("records"))
    if args.json:
        emit_json({"answer": lines, **r.to_dict(), "saturation_rps": sat})
        return 0
    for i, line in enumerate(lines):
        console.print(Text(line, style="bold") if i == 0 else line)
    t = Table(title="Latency under traffic (ms)")
    for col in ("metric", "mean", "p50", "p90", "p99"):
        t.add_column(col, justify="left" if col == "metric" else "right")
    for m, label in (("ttft", "TTFT"), ("tpot", "TPOT"), ("itl", "ITL"), ("e2e", "E2E"), ("queue", "queueing")):
        t.add_row(label, *(f"{v:,.1f}" for v in (r.mean_ms(m), *(r.percentile_ms(m, q) for q in (50, 90, 99)))))
    console.print(t)
    return 0
