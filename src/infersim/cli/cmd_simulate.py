"""``infersim simulate``."""
from __future__ import annotations

from rich.table import Table
from rich.text import Text

from infersim.cli.common import (
    MAX_DEGREE,
    add_hw_args,
    add_model_args,
    add_runtime_arg,
    add_workload_args,
    console,
    emit_json,
    fmt_gb,
    fmt_ns,
    load_hardware,
    load_model,
    load_workload,
    positive_int,
)
from infersim.specs.parallel import (
    CP_PLACEMENTS,
    CP_RING_VARIANTS,
    FFN_SHARD_SCOPES,
    KV_SHARD_MODES,
    TP_PLACEMENTS,
    Parallelism,
)


def add_parser(sub) -> None:
    p = sub.add_parser("simulate", help="latency and memory of one configuration")
    add_runtime_arg(p)
    add_model_args(p)
    add_hw_args(p)
    add_workload_args(p)
    for k in ("tp", "pp", "dp", "cp", "ep"):
        p.add_argument(f"--{k}", type=positive_int(MAX_DEGREE), default=1)
    p.add_argument("--kv-shard-mode", default="head", help=f"one of {', '.join(KV_SHARD_MODES)}")
    p.add_argument("--ffn-shard-scope", default="TP", help=f"one of {', '.join(FFN_SHARD_SCOPES)}")
    p.add_argument("--tp-placement", default="cube", help=f"one of {', '.join(TP_PLACEMENTS)}")
    p.add_argument("--cp-placement", default="pe", help=f"one of {', '.join(CP_PLACEMENTS)}")
    p.add_argument("--cp-ring-variant", default=None,
                   help=f"one of {', '.join(CP_RING_VARIANTS)} (default: qoml in decode, kv in prefill)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(run=run)


def run(args) -> int:
    from infersim.simulate import simulate

    model, hw = load_model(args), load_hardware(args)
    wl = load_workload(args, model)
    par = Parallelism(tp=args.tp, pp=args.pp, dp=args.dp, cp=args.cp, ep=args.ep,
                      kv_shard_mode=args.kv_shard_mode, ffn_shard_scope=args.ffn_shard_scope,
                      tp_placement=args.tp_placement, cp_placement=args.cp_placement,
                      cp_ring_variant=args.cp_ring_variant)
    r = simulate(model, hw, par, wl, runtime=args.runtime)
    from infersim.verdict import simulate_verdict

    answer = simulate_verdict(model, hw, r)
    if args.json:
        emit_json({"answer": answer, **r.to_dict()})
        return 0
    console.print(answer[0], style="bold")
    console.print(answer[1])
    t = Table(title=f"Latency {fmt_ns(r.total_latency_ns)} ({r.bound}-bound, {r.pes_used} PEs)")
    t.add_column("component")
    t.add_column("time", justify="right")
    t.add_column("share", justify="right")
    for name, v in sorted(r.breakdown_ns.items(), key=lambda kv: -kv[1]):
        if v > 0:
            t.add_row(name, fmt_ns(v), f"{100 * v / r.total_latency_ns:.1f}%")
    console.print(t)
    verdict = ("fits", "green") if r.fits else ("does NOT fit", "red")
    parts = ", ".join(f"{k} {fmt_gb(v)}" for k, v in r.mem_breakdown_bytes.items())
    console.print(Text.assemble(f"Memory per PE {fmt_gb(r.mem_per_pe_bytes)} of {fmt_gb(r.mem_capacity_bytes)} "
                                f"usable ({parts}): ", verdict))
    console.print(f"Throughput {r.tokens_per_s:,.1f} tokens/s ({r.tokens_per_s_per_pe:,.2f} per PE)")
    return 0
