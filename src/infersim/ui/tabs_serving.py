"""Serving: which deployment serves requests of this shape within a TTFT/TPOT SLA, and does
splitting prefill and decode do better. The card is the answer (deployment, its numbers, what
stops a larger batch, aggregated vs disaggregated); the search runs on its button only."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from infersim.exports import Run, compute, dumps, to_export
from infersim.report import plots as charts
from infersim.report.fmt import fmt_ms, fmt_rate
from infersim.serving import BATCHING, DEFAULT_CHUNK_TOKENS
from infersim.serving.sla import DEFAULT_BATCH_CAP, OBJECTIVES
from infersim.ui import pins, state
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
    objective = w.select(c[0], "Objective", OBJECTIVES, "sv_objective", help_key="sv_objective")
    batching = w.select(c[1], "Batching", BATCHING, "sv_batching", help_key="batching")
    chunk = int(w.number(c[2], "Chunk tokens", "sv_chunk", DEFAULT_CHUNK_TOKENS, help_key="chunk_tokens",
                         step=1024))
    cap = int(w.number(c[3], "Batch cap", "sv_cap", DEFAULT_BATCH_CAP, help_key="batch_cap", step=128))
    disagg = w.checkbox(c[4], "Search disaggregated", "sv_disagg", True, help_key="disaggregated")
    return {"request": {"isl": isl, "osl": osl, "prefix_hit": hit}, "ttft_ms": ttft or None,
            "tpot_ms": tpot or None, "objective": objective, "batching": batching, "chunk_tokens": chunk,
            "batch_cap": cap, "disaggregated": disagg}


def _run(inp: Inputs, params: dict) -> dict:
    run = Run("serve", inp.model, inp.hw, inp.runtime, params)
    with st.spinner("searching deployments (parallelism × batch) and prefill/decode splits"):
        out = compute(run)
    return dict(run=run, outcome=out, hw=inp.hw, base_hw=inp.base_hw, model=inp.model)


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
    shown = r.best or r.nearest_miss
    if shown is not None:
        w.metrics(card, [("tok/s per PE", fmt_rate(shown.tok_s_per_pe, "")), ("TTFT", fmt_ms(shown.ttft_ms)),
                         ("TPOT", fmt_ms(shown.tpot_ms)), ("tok/s per user", fmt_rate(shown.tok_s_per_user, "")),
                         ("Concurrent sequences", f"{shown.batch:,}")])
    for line in out.answer[1:]:
        card.markdown(f"**{line}**" if line.startswith("limited") else line)
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


def _details(res: dict) -> None:
    r = res["outcome"].result
    st.caption(f"{r.n_evaluated:,} (parallelism, batch) pairs evaluated, {r.n_meeting:,} meet the SLA; "
               f"{r.batching} batching, {r.runtime} runtime; searched in {r.elapsed_s:.2f} s. The sidebar's "
               "model, hardware and runtime apply; its workload does not (the request shape does).")
    st.plotly_chart(charts.interactivity_pareto(r), key="fig_sv_pareto")
    side = r.to_pandas("best")
    if len(side):
        st.subheader("Aggregated vs disaggregated")
        st.caption(r.comparison())
        keep = [c for c in ("deployment", "ratio", "tp", "cp", "pp", "dp", "batch", "pes", "ttft_ms", "tpot_ms",
                            "tok_s", "tok_s_per_pe", "tok_s_per_user", "kv_transfer_ms", "link") if c in side.columns]
        st.dataframe(side[keep], hide_index=True, key="tbl_sv_answer")
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
        if clicked or state.get_result(TAB) is None:     # first visit: answer at once
            state.run_and_store(TAB, stamp, lambda: _run(inp, params))
    else:
        stamp = None
    shown = w.shown_result(card, TAB, stamp, "Run serving search")
    if shown is None:
        return
    res, note = shown
    _card(card, res, note)
    _details(res)
