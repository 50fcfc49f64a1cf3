"""``infersim serve``: the best deployment for a request shape under a TTFT/TPOT SLA."""
from __future__ import annotations

from rich.table import Table

from .common import (
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


def add_parser(sub) -> None:
    from ..serving import BATCHING, DEFAULT_CHUNK_TOKENS
    from ..sla import DEFAULT_BATCH_CAP, OBJECTIVES

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


def _aggregated(b) -> str:
    return (f"{b.par.describe()} ({b.pes} PEs) at {b.batch} concurrent sequences: "
            f"{b.tok_s_per_pe:,.1f} tok/s per PE ({b.tok_s:,.0f} tok/s), TTFT {b.ttft_ms:,.0f} ms, "
            f"TPOT {b.tpot_ms:.1f} ms ({b.tok_s_per_user:.1f} tok/s per user)")


def _disaggregated(d) -> str:
    return (f"{d.ratio} = {d.n_prefill} x prefill {d.prefill_par.describe()} (batch {d.prefill_batch}) + "
            f"{d.n_decode} x decode {d.decode_par.describe()} (batch {d.decode_batch}): "
            f"{d.tok_s_per_pe:,.1f} tok/s per PE, TTFT {d.ttft_ms:,.0f} ms (KV transfer "
            f"{d.kv_transfer_ms:.2f} ms over {d.link}), TPOT {d.tpot_ms:.1f} ms")


def _answer(r) -> list[str]:
    """The answer first: the winning deployment (disaggregated when it serves more tokens/s per
    PE under that objective), its numbers, what limits it, then the alternative."""
    q, b, d = r.request, r.best, r.disaggregated
    sla = ", ".join(s for s in (f"TTFT ≤ {r.ttft_limit_ms:g} ms" if r.ttft_limit_ms else "",
                                f"TPOT ≤ {r.tpot_limit_ms:g} ms" if r.tpot_limit_ms else "") if s) or "no SLA"
    head = f"{r.model} on {r.hardware}, {q.isl} in / {q.osl} out, {sla}: "
    if b is None and d is None:
        lines = [head + "nothing meets the SLA"]
        if r.nearest_miss:
            m = r.nearest_miss
            lines.append(f"nearest miss (does NOT meet it): {m.par.describe()} at batch {m.batch}: "
                         f"TTFT {m.ttft_ms:,.0f} ms, TPOT {m.tpot_ms:.1f} ms")
        return lines
    split_wins = d is not None and r.objective == "tok_s_per_pe" and (b is None or d.tok_s_per_pe > b.tok_s_per_pe)
    if split_wins:
        lines = [head + "serve disaggregated " + _disaggregated(d), r.comparison()]
        if b is not None:
            lines.append(f"best aggregated: {_aggregated(b)}; limited by {r.limit}")
        return lines
    lines = [head + "serve with " + _aggregated(b), f"limited by {r.limit}"]
    if d is not None:
        lines.append(f"{r.comparison()}: disaggregated {_disaggregated(d)}")
    return lines


def run(args) -> int:
    from ..serving import Request
    from ..sla import sla_search

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
        emit_json({"answer": _answer(r), **r.to_dict()})
        return 0
    for i, line in enumerate(_answer(r)):
        console.print(f"[bold]{line}[/]" if i == 0 else line)
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
