"""Serving: which deployment serves requests of this shape within a TTFT/TPOT SLA, and does
splitting prefill and decode do better. The card is the answer (deployment, its numbers, what
stops a larger batch, aggregated vs disaggregated); the search runs on its button only."""
from __future__ import annotations

import time

import pandas as pd
import streamlit as st

from infersim import Workload, simulate
from infersim.exports import Run, compute, dumps, to_export
from infersim.report import plots as charts
from infersim.report.fmt import fmt_ms, fmt_rate, fmt_time
from infersim.report.labels import label
from infersim.serving import BATCHING, DEFAULT_CHUNK_TOKENS
from infersim.serving.sla import DEFAULT_BATCH_CAP, OBJECTIVES
from infersim.ui import pins, serving_traffic, state
from infersim.ui import widgets as w
from infersim.ui.inputs import Inputs

TAB = "serving"


def _controls() -> dict:
    c = st.columns(5)
    isl = int(w.number(c[0], "Input tokens (isl)", "sv_isl", 2048, help_key="isl", step=256))
    osl = int(w.number(c[1], "Output tokens (osl)", "sv_osl", 512, help_key="osl", step=64))
    ttft = float(w.number(c[2], "TTFT limit (ms, 0 = none)", "sv_ttft", 2000.0, help_key="ttft_ms", step=100.0))
    tpot = float(w.number(c[3], "TPOT limit (ms, 0 = none)", "sv_tpot", 50.0, help_key="tpot_ms", step=5.0))
    hit = float(w.number(c[4], "Prefix-cache hit", "sv_hit", 0.0, help_key="prefix_hit", step=0.05,
                         format="%.2f"))
    c = st.columns(5)
    objective = w.select(c[0], "Objective", OBJECTIVES, "sv_objective", help_key="sv_objective", format_func=label)
    batching = w.select(c[1], "Batching", BATCHING, "sv_batching", help_key="batching")
    chunk = int(w.number(c[2], "Chunk tokens", "sv_chunk", DEFAULT_CHUNK_TOKENS, help_key="chunk_tokens",
                         step=1024))
    cap = int(w.number(c[3], "Batch cap", "sv_cap", DEFAULT_BATCH_CAP, help_key="batch_cap", step=128))
    disagg = w.checkbox(c[4], "Disaggregated too", "sv_disagg", True, help_key="disaggregated")
    return {"request": {"isl": isl, "osl": osl, "prefix_hit": hit}, "ttft_ms": ttft or None,
            "tpot_ms": tpot or None, "objective": objective, "batching": batching, "chunk_tokens": chunk,
            "batch_cap": cap, "disaggregated": disagg}


def _run(inp: Inputs, params: dict, card) -> dict:
    run = Run("serve", inp.model, inp.hw, inp.runtime, params)
    with card, st.spinner("searching deployments (parallelism × batch) and prefill/decode splits"):
        t0 = time.perf_counter()
        out = compute(run)
    return dict(run=run, outcome=out, hw=inp.hw, base_hw=inp.base_hw, model=inp.model,
                wall_s=time.perf_counter() - t0)


def _pin_best(res: dict) -> None:
    r, run = res["outcome"].result, res["run"]
    b = r.best
    state.add_pin(pins.from_serving("Serving", res["model"], res["hw"], res["base_hw"], run.runtime, b.par,
                                    b.batch, r.request, b.to_dict(), f"{b.par.describe()} batch {b.batch}"))


def _pin_disagg(res: dict) -> None:
    r, run = res["outcome"].result, res["run"]
    d = r.disaggregated
    state.add_pin(pins.from_serving("Serving", res["model"], res["hw"], res["base_hw"], run.runtime,
                                    d.decode_par, d.decode_batch, r.request, d.to_dict(),
                                    f"disaggregated {d.ratio} (decode {d.decode_par.describe()})"))


def _card(card, res: dict, note=lambda: None) -> None:
    run, out = res["run"], res["outcome"]
    r = out.result
    w.headline(card, "Answer:" if r.best else "No deployment meets the SLA:", out.answer[0])
    note()
    _tiles(card, r, res)
    for line in out.answer[1:]:
        card.markdown(f"**{w.words(line)}**" if line.startswith("limited") else w.words(line))
    if r.best is None and r.disaggregated is None and r.nearest_miss is not None:
        m = r.nearest_miss
        card.markdown("**Next step:** " + w.relax_text(r.ttft_limit_ms, r.tpot_limit_ms, m.ttft_ms, m.tpot_ms)
                      + " (what the nearest miss needs), or add PEs / pick faster hardware.")
    row = card.container(horizontal=True)
    if r.best is not None:
        b = r.best
        wl = {"mode": "decode", "s_kv": r.request.isl + max(r.request.osl // 2, 1), "batch": b.batch, "s_q": None}
        row.button("Open in Simulate", key="btn_sv_open", on_click=state.open_in_simulate,
                    args=(b.par.to_dict(), None, None, None, wl),
                    kwargs={"note": "the best deployment's decode step at the mean context"},
                    help="Simulate the best deployment's decode step (batch, mean context) in detail.")
        row.button("Pin best", key="btn_sv_pin", on_click=_pin_best, args=(res,), icon=":material/push_pin:",
                    help="Keep the best aggregated deployment for the Compare tab.")
    if r.disaggregated is not None:
        row.button("Pin disaggregated", key="btn_sv_pin_dis", on_click=_pin_disagg, args=(res,), icon=":material/push_pin:",
                    help="Keep the disaggregated deployment (its decode pool's step) for Compare.")
    w.download_json(row, lambda: dumps(to_export(run, out)), "infersim-serve.json", "dl_sv_json")


def tiles(r) -> tuple[str, list[tuple]]:
    """(which deployment, its tiles): the numbers of the deployment the headline recommends (the
    disaggregated one when it is the answer), or of the nearest miss, labelled as such."""
    if r.split_wins():
        d = r.disaggregated
        return (f"Disaggregated {d.ratio} (the answer): prefill {d.prefill_par.describe()} × {d.n_prefill}, "
                f"decode {d.decode_par.describe()} × {d.n_decode}",
                [("tok/s per PE", fmt_rate(d.tok_s_per_pe, "")), ("TTFT", fmt_ms(d.ttft_ms)),
                 ("TPOT", fmt_ms(d.tpot_ms)), ("tok/s per user", fmt_rate(d.tok_s_per_user, "")),
                 ("PEs", f"{d.pes:,}")])
    shown = r.best or r.nearest_miss
    if shown is None:
        return "", []
    what = (f"Aggregated {shown.par.describe()} (the answer)" if r.best is not None else
            f"Nearest miss, does NOT meet the SLA: {shown.par.describe()}")
    return what, [("tok/s per PE", fmt_rate(shown.tok_s_per_pe, "")), ("TTFT", fmt_ms(shown.ttft_ms)),
                  ("TPOT", fmt_ms(shown.tpot_ms)), ("tok/s per user", fmt_rate(shown.tok_s_per_user, "")),
                  ("Concurrent sequences", f"{shown.batch:,}")]


def _tiles(card, r, res: dict) -> None:
    what, items = tiles(r)
    if items:
        card.caption(f"**{what}**")
        w.metrics(card, items)
    if r.best is not None and not r.split_wins():
        b = r.best
        wl = Workload("decode", s_kv=r.request.isl + max(r.request.osl // 2, 1), batch=int(b.batch))
        step = w.guarded(card, simulate, res["model"], res["hw"], b.par, wl, runtime=res["run"].runtime)
        if step is not None and step.band:
            card.caption(f"Error band of its decode step (batch {b.batch}, mean context): "
                         f"{step.band.describe(step.total_latency_ns, fmt_time)}.")


def answer_table(side: pd.DataFrame) -> pd.DataFrame:
    """The aggregated and disaggregated deployments side by side in words: labelled columns, numbers
    rounded as the CLI prints them, an empty cell (not "None") where a field does not apply."""
    keep = [c for c in ("deployment", "tp", "cp", "pp", "dp", "batch", "pes", "ttft_ms", "tpot_ms", "tok_s",
                        "tok_s_per_pe", "tok_s_per_user", "kv_transfer_ms", "link") if c in side.columns]
    fmt = {"ttft_ms": "{:,.0f}", "tpot_ms": "{:.1f}", "tok_s": "{:,.0f}", "tok_s_per_pe": "{:,.1f}",
           "tok_s_per_user": "{:.1f}", "kv_transfer_ms": "{:.2f}"}
    out = pd.DataFrame()
    for c in keep:
        col = side[c]
        out[label(c) if c != "kv_transfer_ms" else "KV transfer (ms)"] = [
            "" if v is None or (isinstance(v, float) and v != v) else (fmt[c].format(v) if c in fmt else str(v))
            for v in col]
    return out


def _details(res: dict) -> None:
    r = res["outcome"].result
    st.caption(f"{r.n_evaluated:,} (parallelism, batch) pairs evaluated, {r.n_meeting:,} meet the SLA; "
               f"{r.batching} batching, {r.runtime} runtime; answered in {w.wall(res.get('wall_s', r.elapsed_s))}. The sidebar's "
               "model, hardware and runtime apply; its workload does not (the request shape does).")
    st.plotly_chart(charts.interactivity_pareto(r), key="fig_sv_pareto")
    side = r.to_pandas("best")
    if len(side):
        st.subheader("Aggregated vs disaggregated")
        st.caption(r.comparison())
        st.dataframe(answer_table(side), hide_index=True, key="tbl_sv_answer")
    st.subheader(f"Pareto frontier ({len(r.pareto)} deployments)")
    front = pd.DataFrame([{"parallelism": pins.par_text(p.par), "PEs": p.pes, "batch": p.batch,
                           "tok/s per user": p.tok_s_per_user, "tok/s per PE": p.tok_s_per_pe, "tok/s": p.tok_s,
                           "TTFT (ms)": p.ttft_ms, "TPOT (ms)": p.tpot_ms, "meets SLA": p.meets_sla}
                          for p in r.pareto])
    st.dataframe(front, hide_index=True, key="tbl_sv_pareto",
                 column_config={c: st.column_config.NumberColumn(format="%.1f")
                                for c in ("tok/s per user", "tok/s per PE", "tok/s", "TTFT (ms)", "TPOT (ms)")})


def render(inp: Inputs) -> None:
    card = w.card(TAB)
    if (msg := state.flash()):
        card.caption(msg)
    params = w.guarded(card, _controls)
    clicked = st.button("Run serving search", key="btn_sv_run", type="primary", disabled=params is None,
                        help="Search every (parallelism, batch) deployment and the prefill/decode splits.")
    if params is not None:
        stamp = inp.stamp(with_workload=False, **params)
        if clicked:        # never on its own: the search takes seconds for a 70B model
            state.run_and_store(TAB, stamp, lambda: _run(inp, params, card))
            state.ran(TAB)
    else:
        stamp = None
    shown = w.shown_result(card, TAB, stamp, "Run serving search")
    if shown is None:
        if state.get_result(TAB) is None:
            w.ask_to_run(card, TAB, "Run serving search", "it searches every (parallelism, batch) deployment and "
                         "the prefill/decode splits (a few seconds for a 70B model)")
        return
    res, note = shown
    _card(card, res, note)
    serving_traffic.render(res)
    _details(res)
    w.scroll_into_view(TAB)
