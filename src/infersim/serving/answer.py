"""The serving answer in words, first: the winning deployment of an :class:`~infersim.serving.sla.SLAResult`
(disaggregated when it serves more tokens/s per PE), its numbers, what limits it, then the alternative.
The same lines in the CLI, the export and the UI."""
from __future__ import annotations


def _aggregated(b) -> str:
    return (f"{b.par.describe()} ({b.pes} PEs) at {b.batch} concurrent sequences: "
            f"{b.tok_s_per_pe:,.1f} tok/s per PE ({b.tok_s:,.0f} tok/s), TTFT {b.ttft_ms:,.0f} ms, "
            f"TPOT {b.tpot_ms:.1f} ms ({b.tok_s_per_user:.1f} tok/s per user)")


def _disaggregated(d) -> str:
    return (f"{d.ratio} = {d.n_prefill} x prefill {d.prefill_par.describe()} (batch {d.prefill_batch}) + "
            f"{d.n_decode} x decode {d.decode_par.describe()} (batch {d.decode_batch}): "
            f"{d.tok_s_per_pe:,.1f} tok/s per PE, TTFT {d.ttft_ms:,.0f} ms (KV transfer "
            f"{d.kv_transfer_ms:.2f} ms over {d.link}), TPOT {d.tpot_ms:.1f} ms")


def answer_lines(r) -> list[str]:
    """The answer first: the winning deployment (disaggregated when it serves more tokens/s per
    PE under that objective), its numbers, what limits it, then the alternative."""
    q, b, d = r.request, r.best, r.disaggregated
    sla = ", ".join(s for s in (f"TTFT ≤ {r.ttft_limit_ms:g} ms" if r.ttft_limit_ms else "",
                                f"TPOT ≤ {r.tpot_limit_ms:g} ms" if r.tpot_limit_ms else "") if s) or "no SLA"
    spec = getattr(r, "speculation", None)
    spec_s = f", speculative decoding {spec.describe()}" if spec else ""
    head = f"{r.model} on {r.hardware}, {q.isl} in / {q.osl} out{spec_s}, {sla}: "
    if b is None and d is None:
        lines = [head + "nothing meets the SLA"]
        if r.nearest_miss:
            m = r.nearest_miss
            lines.append(f"nearest miss (does NOT meet it): {m.par.describe()} at batch {m.batch}: "
                         f"TTFT {m.ttft_ms:,.0f} ms, TPOT {m.tpot_ms:.1f} ms")
        return lines
    split_wins = r.split_wins()
    if split_wins:
        lines = [head + "serve disaggregated " + _disaggregated(d), r.comparison()]
        if b is not None:
            lines.append(f"best aggregated: {_aggregated(b)}; limited by {r.limit}")
        return lines
    lines = [head + "serve with " + _aggregated(b), f"limited by {r.limit}"]
    if d is not None:
        lines.append(f"{r.comparison()}: disaggregated {_disaggregated(d)}")
    return lines


def offline_line(run, steady_tok_s: float) -> str:
    """One line for an offline run of ``run.requests`` requests submitted at once
    (:func:`infersim.serving.model.serve` with ``requests``): how long they take, and what the
    run's last, partial wave costs against the steady state."""
    s = run.makespan_s
    took = f"{s / 3600:.2f} h" if s >= 3600 else f"{s / 60:.1f} min" if s >= 60 else f"{s:.1f} s"
    loss = run.tok_s / steady_tok_s - 1.0
    why = ("whole waves: the steady state" if loss > -5e-4 else
           f"{loss:+.1%} against the steady state: its last wave runs part-full")
    return (f"offline run of {run.requests:,} requests submitted at once ({run.par.describe()} at "
            f"{run.batch} concurrent sequences): {took}, {run.tok_s:,.0f} tok/s ({why})")


def traffic_lines(r, saturation_rps: float | None = None, ttft_ms=None, tpot_ms=None, q: float = 99) -> list[str]:
    """The answer for a :class:`~infersim.serving.load.TrafficResult`: the deployment, the rate and
    the percentile latencies first, then what saturates it, goodput and preemptions."""
    par, tr = r.par, r.traffic
    reps = f" x {par.dp} replicas" if par.dp > 1 else ""
    unit = par.describe().replace(f" DP{par.dp}", "") if par.dp > 1 else par.describe()
    head = (f"{r.model} on {r.hardware}, {unit}{reps} ({par.pes} PEs) at {tr.rate_text()}: "
            f"p{q:g} TTFT {r.percentile_ms('ttft', q):,.0f} ms, p{q:g} TPOT {r.percentile_ms('tpot', q):.1f} ms, "
            f"p{q:g} E2E {r.percentile_ms('e2e', q) / 1e3:,.1f} s")
    second = f"throughput {r.throughput_rps:,.2f} req/s ({r.tok_s:,.0f} output tok/s)"
    if saturation_rps:
        second += f"; saturates at {saturation_rps:,.1f} req/s (steady-state bound)"
    if ttft_ms is not None or tpot_ms is not None:
        share = r.meets(ttft_ms, tpot_ms).mean() * 100
        second += f"; goodput {r.goodput_rps(ttft_ms, tpot_ms):,.2f} req/s ({share:.0f}% of requests meet the SLO)"
    third = (f"{r.n:,} requests, mean queueing {r.mean_ms('queue'):,.0f} ms, {int(r.preemptions.sum()):,} "
             f"preemptions (KV cache {r.kv_capacity_tokens:,} tokens per replica); simulated in {r.elapsed_s:.2f} s")
    return [head, second, third]
