"""``infersim codesign --tpot-ms/--ttft-ms``: co-design at a serving SLA (answer first: the
hardware and deployment that serve the request shape within the limits for the most of the
objective, what limits it, the next knob; then the ranked candidates and the sensitivity)."""
from __future__ import annotations

from rich.table import Table
from rich.text import Text

from infersim.cli.common import console, emit_json, local_workers, progress_bar, write_csv
from infersim.codesign.answer import SHORT, fmt_usd
from infersim.codesign.sla import SLA_ALIASES, codesign_sla, objective_spec, pools_line, sla_answer_lines
from infersim.serving import Request
from infersim.specs.hardware import KNOBS

TOP_ROWS = 15


def run_sla(args, model, base, grid) -> int:
    objective = "tok_s_per_usd" if args.objective is None else SLA_ALIASES.get(args.objective, args.objective)
    request = Request(args.isl, args.osl)
    with progress_bar(f"SLA co-design ({args.depth})", args.json) as cb, local_workers(args.workers) as ex:
        res = codesign_sla(model, request, args.ttft_ms, args.tpot_ms, depth=args.depth, custom=grid,
                           base_hw=base, objective=objective, runtime=args.runtime,
                           batching=args.batching, progress=cb, max_candidates=args.max_candidates,
                           disaggregated=args.disaggregated, executor=ex, rate_rps=args.rate)
    if args.out:
        res.to_parquet(args.out)
    if args.csv:
        rows = [d.record() for d in res.designs]
        keys = list(dict.fromkeys(k for r in rows for k in r))   # a grid's system sizes vary per design
        write_csv(args.csv, ({k: r.get(k, "") for k in keys} for r in rows))
    if args.json:
        emit_json({"answer": res.answer(), "model": model.name, "base_hw": base.name,
                   "request": {"isl": args.isl, "osl": args.osl}, "ttft_ms": args.ttft_ms,
                   "tpot_ms": args.tpot_ms, "objective": objective, "n_hardware": len(res.designs),
                   "n_meeting": res.n_meeting, "elapsed_s": res.elapsed_s,
                   "designs": [d.record() for d in res.designs],
                   "sensitivity": [vars(s) for s in res.sensitivity],
                   "levers": [vars(lv) for lv in res.levers]})
        return 0
    first, second = sla_answer_lines(res.answer())
    console.print(Text.assemble(("Answer:", "bold"), first.removeprefix("Answer:")), highlight=False,
                  soft_wrap=True)
    console.print(second, highlight=False, soft_wrap=True)
    pools = pools_line(res.answer())
    if pools:
        console.print(pools, highlight=False, soft_wrap=True)
    console.print(f"SLA co-design {model.name}, {args.isl}+{args.osl} tokens, TTFT <= {args.ttft_ms or '-'} ms, "
                  f"TPOT <= {args.tpot_ms or '-'} ms, objective {objective}: {res.n_meeting} of "
                  f"{len(res.designs)} hardware candidates meet it ({res.elapsed_s:.1f} s)")
    _print_designs(res)
    _print_sensitivity(res)
    return 0


def _print_designs(res) -> None:
    unit = objective_spec(res.objective)[1]
    t = Table(title=f"Hardware candidates by {res.objective} at the SLA (top {TOP_ROWS})")
    for col in ("rank", unit, *SHORT.values(), "deployment", "batch", "TTFT ms", "TPOT ms",
                "tok/s/PE", "capex"):
        t.add_column(col, justify="right")
    for i, d in enumerate(res.designs[:TOP_ROWS], 1):
        p = d.point or d.miss
        value = f"{d.value(res.objective):,.4g}" if d.point else "misses SLA"
        t.add_row(str(i), value, *(f"{getattr(d.hw, k):g}" for k in KNOBS),
                  p.par.describe() if p else "-", str(p.batch) if p else "-",
                  f"{p.ttft_ms:,.0f}" if p else "-", f"{p.tpot_ms:.1f}" if p else "-",
                  f"{d.tok_s_per_pe:,.1f}" if d.point else "-", fmt_usd(d.capex_usd) if d.point else "-")
    console.print(t)


def _print_sensitivity(res) -> None:
    if not res.sensitivity:
        return
    t = Table(title=f"Sensitivity at the best hardware: one knob x2 / x0.5, deployment re-searched "
                    f"under the SLA ({res.objective})")
    for col in ("knob", "gain x2", "gain x0.5"):
        t.add_column(col, justify="right")
    for r in res.sensitivity:
        t.add_row(r.knob, f"{100 * r.gain_doubled:+.1f}%", f"{100 * r.gain_halved:+.1f}%")
    console.print(t)
