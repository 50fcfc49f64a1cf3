"""``infersim capacity``: the fewest PEs serving a request rate at percentile TTFT/TPOT limits; and
the traffic arguments ``infersim serve --rate`` shares with it."""
from __future__ import annotations

from rich.table import Table
from rich.text import Text

from infersim.cli.common import (
    add_request_args,
    console,
    emit_json,
    finite_float,
    int_in,
    load_hardware,
    load_model,
    positive_int,
)
from infersim.errors import InferSimError, choice, require


def add_traffic_args(p, rate_required: bool = False) -> None:
    """Arrival process, length distributions, request count, seed and scheduler knobs."""
    from infersim.serving.scheduler import ADMISSIONS, POLICIES

    p.add_argument("--rate", type=finite_float, default=None, required=rate_required,
                   help="mean arrival rate (requests/s)")
    p.add_argument("--arrival", default=None, help="poisson | gamma:cv=X | concurrency:n=N | trace:FILE")
    p.add_argument("--isl-dist", default="fixed", help="input lengths: fixed | uniform:low=A,high=B | lognormal:sigma=S")
    p.add_argument("--osl-dist", default="fixed", help="output lengths, as --isl-dist")
    p.add_argument("--requests", type=positive_int(10_000_000), default=None,
                   help="requests to simulate (serve: default 2000; serve without --rate: an offline run "
                        "of that many requests submitted at once on the answer; capacity: per replica)")
    p.add_argument("--seed", type=int_in(0, 2**31 - 1), default=0)
    p.add_argument("--percentile", type=finite_float, default=99.0, help="latency percentile of the SLO")
    p.add_argument("--policy", default="decode-first", help=" | ".join(POLICIES))
    p.add_argument("--admission", default="prompt", help=" | ".join(ADMISSIONS))
    p.add_argument("--max-num-seqs", type=positive_int(1 << 20), default=256)
    p.add_argument("--max-num-batched-tokens", type=positive_int(1 << 24), default=8192)
    p.add_argument("--block-size", type=positive_int(1 << 12), default=16)


def parse_lengths(spec: str, mean: int):
    from infersim.serving.traffic import LENGTH_KINDS, Lengths

    kind, _, rest = spec.partition(":")
    choice("length distribution", kind, tuple(k for k in LENGTH_KINDS if k != "empirical"))
    kw: dict = {}
    for part in filter(None, rest.split(",")):
        k, _, v = part.partition("=")
        choice(f"{kind} option", k, ("low", "high", "sigma"))
        try:
            kw[k] = float(v) if k == "sigma" else int(v)
        except ValueError:
            raise InferSimError(f"length option {k} must be a number, got {v!r}") from None
    if kind == "uniform" and not kw:
        kw = {"low": max(1, mean // 2), "high": mean * 3 // 2}
    return Lengths(kind, mean=mean, **kw)


def load_traffic(args, n_default: int):
    from infersim.serving.traffic import Traffic, parse_arrival, trace_lengths

    arrival = parse_arrival(args.arrival or "poisson")
    require(0 < args.percentile < 100, f"--percentile must be in (0, 100), got {args.percentile:g}")
    require(args.rate is None or args.rate > 0, f"--rate must be > 0 req/s, got {args.rate:g}")
    kw = dict(rate_rps=args.rate, isl=parse_lengths(args.isl_dist, args.isl),
              osl=parse_lengths(args.osl_dist, args.osl), prefix_hit=args.prefix_hit, seed=args.seed, **arrival)
    if arrival["arrival"] == "trace":
        kw["isl"], kw["osl"] = trace_lengths(arrival["trace"])
        kw["n_requests"] = args.requests
    else:
        require(arrival["arrival"] == "concurrency" or args.rate is not None,
                f"--arrival {arrival['arrival']} needs --rate")
        kw["n_requests"] = args.requests or n_default
    return Traffic(**kw)


def load_scheduler(args):
    from infersim.serving.scheduler import Scheduler

    return Scheduler(policy=args.policy, max_num_seqs=args.max_num_seqs,
                     max_num_batched_tokens=args.max_num_batched_tokens, block_size=args.block_size,
                     admission=args.admission)


def add_parser(sub) -> None:
    p = sub.add_parser("capacity", help="fewest PEs serving a request rate at p99 TTFT/TPOT limits")
    add_request_args(p)
    p.add_argument("--ttft-p99-ms", type=finite_float, default=None, help="TTFT limit at --percentile (ms)")
    p.add_argument("--tpot-p99-ms", type=finite_float, default=None, help="TPOT limit at --percentile (ms)")
    add_traffic_args(p, rate_required=True)
    p.add_argument("--json", action="store_true")
    p.set_defaults(run=run)


def run(args) -> int:
    from infersim.serving.capacity import SAMPLE_REQUESTS, capacity_search

    model, hw = load_model(args), load_hardware(args)
    traffic = load_traffic(args, SAMPLE_REQUESTS)
    require(traffic.arrival in ("poisson", "gamma"), "capacity needs --arrival poisson or gamma:cv=X")
    r = capacity_search(model, hw, traffic, ttft_ms=args.ttft_p99_ms, tpot_ms=args.tpot_p99_ms,
                        percentile=args.percentile, runtime=args.runtime, scheduler=load_scheduler(args),
                        n_per_replica=args.requests or SAMPLE_REQUESTS)
    if args.json:
        emit_json(r.to_dict())
        return 0
    console.print(Text(r.answer(), style="bold"))
    t = Table(title=f"Deployments simulated ({len(r.tried)}; {r.n_configs} single-replica parallelisms, "
                    f"{r.n_pruned} pruned: a lone request misses the SLO)")
    for col in ("parallelism", "replicas", "PEs", f"p{r.percentile:g} TTFT ms", f"p{r.percentile:g} TPOT ms", "SLO"):
        t.add_column(col, justify="left" if col == "parallelism" else "right")
    for plan, ok in sorted(r.tried, key=lambda x: (x[0].pes, x[0].par.describe())):
        t.add_row(plan.par.describe(), str(plan.replicas), str(plan.pes), f"{plan.ttft_ms:,.0f}",
                  f"{plan.tpot_ms:.1f}", "meets" if ok else "-")
    console.print(t)
    console.print(f"searched in {r.elapsed_s:.2f} s")
    return 0
