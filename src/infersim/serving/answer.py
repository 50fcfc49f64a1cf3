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
