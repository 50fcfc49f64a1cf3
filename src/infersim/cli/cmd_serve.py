"""``infersim serve``: the best deployment for a request shape under a TTFT/TPOT SLA."""
from __future__ import annotations

from rich.table import Table

from infersim.cli.common import (
    add_hw_args,
    add_model_args,
    add_runtime_arg,
    console,
    emit_json,
    finite_float,
    load_hardware,
    load_model,
    output_file,
    positive_int,
    write_csv,
)
from infersim.serving.answer import answer_lines


def add_parser(sub) -> None:
    from infersim.serving import BATCHING, DEFAULT_CHUNK_TOKENS
    from infersim.serving.sla import DEFAULT_BATCH_CAP, OBJECTIVES

    p = sub.add_parser("serve", help="best deployment for requests under a TTFT/TPOT SLA")
    add_runtime_arg(p)
    add_model_args(p)
    add_hw_args(p)
    p.add_argument("--isl", type=positive_int(), default=2048, help="mean input tokens per request")
    p.add_argument("--osl", type=positive_int(), default=512, help="mean output tokens per request")
    p.add_argument("--prefix-hit", type=finite_float, default=0.0, help="fraction of the prompt in a prefix cache")
    p.add_argument("--ttft-ms", type=finite_float, default=None, help="time-to-first-token limit (ms)")
    p.add_argument("--tpot-ms", type=finite_float, default=None, help="time-per-output-token limit (ms)")
    p.add_argument("--objective", default="tok_s_per_pe", help=" | ".join(OBJECTIVES))
    p.add_argument("--batching", default="continuous", help=" | ".join(BATCHING))
    p.add_argument("--chunk-tokens", type=positive_int(), default=DEFAULT_CHUNK_TOKENS,
                   help="prompt tokens per step under continuous batching")
    p.add_argument("--batch-cap", type=positive_int(), default=DEFAULT_BATCH_CAP, help="most sequences in flight")
    p.add_argument("--no-disagg", action="store_true", help="skip the disaggregated prefill/decode search")
    p.add_argument("--csv", type=output_file, help="write the Pareto frontier to this CSV file")
    p.add_argument("--json", action="store_true")
    p.set_defaults(run=run)


def run(args) -> int:
    from infersim.serving import Request
    from infersim.serving.sla import sla_search

    model, hw = load_model(args), load_hardware(args)
    request = Request(isl=args.isl, osl=args.osl, prefix_hit=args.prefix_hit)
    r = sla_search(model, hw, request, ttft_ms=args.ttft_ms, tpot_ms=args.tpot_ms,
                   objective=args.objective, runtime=args.runtime, batching=args.batching,
                   chunk_tokens=args.chunk_tokens, batch_cap=args.batch_cap,
                   disaggregated=not args.no_disagg)
    if args.csv:
        write_csv(args.csv, [{**p.par.to_dict(), **{k: v for k, v in p.to_dict().items() if k != "par"}}
                             for p in r.pareto])
    if args.json:
        emit_json({"answer": answer_lines(r), **r.to_dict()})
        return 0
    for i, line in enumerate(answer_lines(r)):
        console.print(line, style="bold" if i == 0 else None)
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
