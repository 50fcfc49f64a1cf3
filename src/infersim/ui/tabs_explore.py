"""Explore: the full parallelism space of one hardware. The card names the best config by the
objective (and, labelled as what they are, the least-memory and fewest-PE picks); the search
runs on its button only and its result stays until the next Run."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from infersim.exports import Run, compute, dumps, to_export
from infersim.report import plots as charts
from infersim.report.fmt import fmt_gb, fmt_rate, fmt_time, time_unit
from infersim.report.labels import label
from infersim.search.auto_explore import OBJECTIVES
from infersim.ui import pins, state
from infersim.ui import widgets as w
from infersim.ui.inputs import Inputs

TAB = "explore"


def _run(inp: Inputs, objective: str, card, budget_s: float | None = None) -> dict:
    run = Run("explore", inp.model, inp.hw, inp.runtime,
              {"workload": inp.workload_dict(), "objective": objective})
    bar, report = w.progress(card, "searching the full parallelism space")
    try:
        out = compute(run, progress=state.budget_progress(budget_s, report))
    finally:
        bar.empty()
    return dict(run=run, outcome=out, hw=inp.hw, base_hw=inp.base_hw, model=inp.model)


def _pick_label(objective: str) -> str:
    return "fastest" if objective == "latency" else f"best by {label(objective)}"


#: A memory saving below this share of the recommended config's memory per PE is no reason to
#: pick another config (it is within the model's error of the memory estimate).
MEMORY_TOLERANCE = 0.03


def _memory_trade(ex, sug) -> str:
    """What the least-memory pick trades: when it saves less than :data:`MEMORY_TOLERANCE` of the
    recommended config's memory, say the recommended one is the pick (it is as roomy, and faster)."""
    best_b, least_b = float(ex.mem_per_pe_bytes[0]), float(sug.result.mem_per_pe_bytes)
    saved = best_b - least_b
    slower = sug.result.total_latency_ns / ex.latency_ns[0] - 1
    if saved <= 0 or saved >= MEMORY_TOLERANCE * best_b or slower <= 0:
        return ""
    return (f" — saves only {saved / 1e6:,.0f} MB per PE ({saved / best_b:.1%}, within {MEMORY_TOLERANCE:.0%}) and is "
            f"{slower:.0%} slower: the recommended config is the pick")


def _card(card, res: dict, note=lambda: None) -> None:
    run, out = res["run"], res["outcome"]
    ex, sug = out.result, out.extras["suggestion"]
    best, objective = ex.configs.config(0), run.inputs["objective"]
    head = out.answer[0]
    if head.startswith("best by ") and ": " in head:      # the title already says by what
        head = head.split(": ", 1)[1]
    w.headline(card, f"Recommended ({_pick_label(objective)}):", head)
    note()
    w.metrics(card, [("Latency", fmt_time(ex.latency_ns[0])), ("Throughput", fmt_rate(ex.tokens_per_s[0])),
                     ("Per PE", fmt_rate(ex.tokens_per_s[0] / ex.pes[0], "tok/s")),
                     ("Memory per PE", fmt_gb(ex.mem_per_pe_bytes[0]))])
    card.markdown(f"**Limited by:** {w.words(out.answer[-1])}")
    card.markdown(f"**Least memory per PE** (autosuggest, the most headroom, not the fastest): "
                  f"{pins.par_text(sug.par)} — {fmt_gb(sug.result.mem_per_pe_bytes)} per PE, "
                  f"{fmt_time(sug.result.total_latency_ns)}{_memory_trade(ex, sug)}.  \n**Fewest PEs:** "
                  f"{pins.par_text(sug.fewest_pes)} — {w.plural(sug.fewest_pes_result.pes_used, 'PE')}, "
                  f"{fmt_time(sug.fewest_pes_result.total_latency_ns)}.")
    row = card.container(horizontal=True)
    row.button("Open in Simulate", key="btn_ex_open_best", on_click=state.open_in_simulate,
                args=(best.to_dict(),), kwargs={"note": f"Explore's {_pick_label(objective)} config"},
                help="Fill the Simulate tab's controls with the recommended config.")
    pin = pins.from_sim("Explore", ex.best_result, res["hw"], res["base_hw"])
    row.button("Pin to Compare", key="btn_ex_pin_best", on_click=state.add_pin, args=(pin,), icon=":material/push_pin:",
                help="Keep the recommended config for the Compare tab.")
    w.download_json(row, lambda: dumps(to_export(run, out)), "infersim-explore.json", "dl_ex_json")


def _table(ex, top: int) -> pd.DataFrame:
    rows = ex.rows(top)
    unit, div = time_unit([r["latency_ms"] * 1e6 for r in rows])
    return pd.DataFrame([{"rank": r["rank"], "parallelism": f"TP{r['tp']} CP{r['cp']} PP{r['pp']} DP{r['dp']}"
                          + (f" EP{r['ep']}" if r["ep"] > 1 else ""),
                          "kv shard": r["kv_shard_mode"], "FFN scope": r["ffn_shard_scope"],
                          "placement TP/CP": f"{r['tp_placement']}/{r['cp_placement']}",
                          "ring": r["cp_ring_variant"] if r["cp"] > 1 else "-", "micro-batches": r["microbatches"],
                          "PEs": r["pes"], f"latency ({unit})": r["latency_ms"] * 1e6 / div,
                          "tok/s": r["tokens_per_s"], "tok/s per PE": r["tokens_per_s_per_pe"],
                          "GB per PE": r["mem_per_pe_gb"]} for r in rows])


def _row_actions(res: dict, top: int) -> None:
    ex = res["outcome"].result
    n = min(top, len(ex.configs))
    c = st.columns([3, 1, 1])
    rank = w.select(c[0], "Row", list(range(1, n + 1)), "ex_row", help_key="row",
                    format_func=lambda k: f"#{k} {pins.par_text(ex.configs.config(k - 1))} — "
                                          f"{fmt_time(ex.latency_ns[k - 1])}")
    par = ex.configs.config(rank - 1)
    c[1].button("Open in Simulate", key="btn_ex_open_row", on_click=state.open_in_simulate,
                args=(par.to_dict(),), kwargs={"note": f"Explore row #{rank}"},
                help="Fill the Simulate tab's controls with this row.")
    c[2].button("Pin row", key="btn_ex_pin_row", on_click=_pin_row, args=(res, rank - 1), icon=":material/push_pin:",
                help="Keep this row for the Compare tab.")


def _pin_row(res: dict, i: int) -> None:
    from infersim import simulate

    ex = res["outcome"].result
    r = simulate(res["model"], res["hw"], ex.configs.config(i), ex.workload, runtime=ex.runtime)
    state.add_pin(pins.from_sim("Explore", r, res["hw"], res["base_hw"]))


def _details(res: dict, top: int) -> None:
    run, out = res["run"], res["outcome"]
    ex, sug = out.result, out.extras["suggestion"]
    st.caption(f"{ex.n_enumerated:,} configs enumerated → {ex.n_valid:,} valid → {ex.n_fitting:,} fit "
               f"{ex.hardware}; full space searched in {ex.elapsed_s * 1e3:.0f} ms")
    df = ex.to_pandas()
    label = _pick_label(run.inputs["objective"])
    picks = {label: df.iloc[0].to_dict(),
             "least memory (autosuggest)": {"pes": sug.result.pes_used,
                                            "latency_ms": sug.result.total_latency_ns / 1e6},
             "fewest PEs": {"pes": sug.fewest_pes_result.pes_used,
                            "latency_ms": sug.fewest_pes_result.total_latency_ns / 1e6}}
    st.plotly_chart(charts.explore_scatter(df, picks), key="fig_ex_scatter")
    table = _table(ex, top)
    st.dataframe(table, hide_index=True, key="tbl_ex",
                 column_config={c: st.column_config.NumberColumn(format="%.3f" if "latency" in c else "%.4g")
                                for c in table.columns if c.startswith("latency") or c in
                                ("tok/s", "tok/s per PE", "GB per PE")})
    _row_actions(res, top)
    w.download_csv(st, f"Download every fitting config (CSV, {ex.n_fitting:,} rows)",
                   lambda: df.to_csv(index=False), "infersim-explore.csv", "dl_ex_csv",
                   help=f"All {ex.n_fitting:,} fitting configs ranked by {run.inputs['objective']}, one per row.")


def render(inp: Inputs) -> None:
    card = w.card(TAB)
    if (msg := state.flash()):
        card.caption(msg)
    c = st.columns([2, 1, 1])
    objective = w.select(c[0], "Objective", OBJECTIVES, "ex_objective", help_key="objective", format_func=label)
    top = int(w.number(c[1], "Rows shown", "ex_top", 25, help_key="ex_top", step=1, min_value=1,
                       max_value=500))
    clicked = c[2].button("Run explore", key="btn_ex_run", type="primary",
                          help="Search the full parallelism space with the sidebar's inputs.")
    if inp.wl is None:
        card.error(inp.wl_error)
        return
    stamp = inp.stamp(objective=objective)
    if clicked:
        state.run_and_store(TAB, stamp, lambda: _run(inp, objective, card))
        state.ran(TAB)
    else:                                            # first visit: answer at once if it is quick
        state.first_visit(TAB, stamp, lambda budget: _run(inp, objective, card, budget))
    shown = w.shown_result(card, TAB, stamp, "Run explore")
    if shown is None:
        if state.get_result(TAB) is None:
            w.ask_to_run(card, TAB, "Run explore", "it searches every parallelism config")
        return
    res, note = shown
    _card(card, res, note)
    _details(res, top)
    w.scroll_into_view(TAB)
