"""Simulate: one configuration. The card says how fast it is (or that it cannot run), what
bounds it and which hardware knob to double; below it the controls, the breakdown, memory,
the roofline per operator and the tables (times in ms or µs)."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from infersim import Parallelism
from infersim.exports import Run, compute, dumps, to_export
from infersim.report import plots as charts
from infersim.report.fmt import fmt_gb, fmt_pct, fmt_rate, fmt_time, time_unit
from infersim.specs.parallel import (
    CP_PLACEMENTS,
    CP_RING_VARIANTS,
    FFN_SHARD_SCOPES,
    KV_SHARD_MODES,
    TP_PLACEMENTS,
)
from infersim.ui import pins, state
from infersim.ui import widgets as w
from infersim.ui.inputs import Inputs
from infersim.verdict import KNOB_WORDS, knob_gains


def controls() -> Parallelism:
    c = st.columns(6)
    deg = {}
    for col, (f, label) in zip(c, (("tp", "TP"), ("cp", "CP"), ("pp", "PP"), ("dp", "DP"), ("ep", "EP"))):
        deg[f] = int(w.number(col, label, f"sim_{f}", 8 if f == "tp" else 1, help_key=f, step=1))
    mb = int(w.number(c[5], "Micro-batches", "sim_mb", 0, help_key="microbatches", step=1))
    c = st.columns(5)
    kv = w.select(c[0], "KV shard mode", KV_SHARD_MODES, "sim_kv", help_key="kv_shard_mode")
    scope = w.select(c[1], "FFN shard scope", FFN_SHARD_SCOPES, "sim_scope", help_key="ffn_shard_scope")
    tpl = w.select(c[2], "TP placement", TP_PLACEMENTS, "sim_tpl", help_key="tp_placement")
    cpl = w.select(c[3], "CP placement", CP_PLACEMENTS, "sim_cpl", help_key="cp_placement")
    # a ring variant means nothing without a ring: disabled (and ignored) at CP = 1
    ring = w.select(c[4], "CP ring variant", ("default",) + CP_RING_VARIANTS, "sim_ring",
                    help_key="cp_ring_variant", disabled=deg["cp"] == 1)
    if deg["cp"] == 1:
        ring = "default"
    return Parallelism(**deg, kv_shard_mode=kv, ffn_shard_scope=scope, tp_placement=tpl, cp_placement=cpl,
                       cp_ring_variant=None if ring == "default" else ring,
                       microbatches=mb if mb > 0 else None)


def _card(card, inp: Inputs, run: Run, out) -> None:
    r = out.result
    w.headline(card, "Answer:" if r.fits else "Does not fit:", out.answer[0])
    usable = f"{fmt_gb(r.mem_capacity_bytes)} usable"
    w.metrics(card, [
        ("Latency" + (" per token" if r.workload.mode == "decode" else "") + ("" if r.fits else " if it fit"),
         fmt_time(r.total_latency_ns)),
        (f"Throughput ({w.plural(r.pes_used, 'PE')})", fmt_rate(r.tokens_per_s) if r.fits else "— cannot run"),
        ("Memory per PE", fmt_gb(r.mem_per_pe_bytes), f"fits in {usable}" if r.fits else
         f"does NOT fit in {usable}", "normal" if r.fits else "inverse"),
        ("Bound", r.bound)])
    card.markdown(f"**Limited by:** {w.words(out.answer[1])}")
    if r.fits and r.bound != "overhead":
        gains = [(k, g) for k, g in sorted(knob_gains(inp.model, inp.hw, r).items(), key=lambda kv: -kv[1])
                 if g > 0.005][:3]
        card.caption("Doubling one knob, same config: " + (", ".join(
            f"{KNOB_WORDS[k]} {fmt_pct(-g)} latency" for k, g in gains) or "no knob gains more than 0.5%"))
    _best_hint(card, inp, r)
    pin = pins.from_sim("Simulate", r, inp.hw, inp.base_hw)
    row = card.container(horizontal=True)
    row.button("Pin to Compare", key="btn_pin_sim", on_click=state.add_pin, args=(pin,), icon=":material/push_pin:",
                help="Keep this configuration for the Compare tab.")
    w.download_json(row, lambda: dumps(to_export(run, out)), "infersim-simulate.json", "dl_sim_json")


def _best_hint(card, inp: Inputs, r) -> None:
    """Point at Explore's best for the same inputs when it is faster (no hidden sweep here)."""
    res = state.get_result("explore")
    if not res or "error" in res or res["stamp"] != inp.stamp(objective="latency"):
        return
    ex = res["outcome"].result
    if len(ex.configs) and ex.latency_ns[0] < 0.995 * r.total_latency_ns:
        best = ex.configs.config(0)
        card.info(f"Explore's fastest config for these inputs: {pins.par_text(best)}, "
                  f"{fmt_time(ex.latency_ns[0])} ({fmt_pct(r.total_latency_ns / ex.latency_ns[0] - 1)} "
                  "faster than this one).")
        card.button("Open Explore's fastest here", key="btn_sim_best", on_click=state.open_in_simulate,
                    args=(best.to_dict(),), kwargs={"note": "Explore's fastest"},
                    help="Fill the controls with Explore's fastest configuration.")


def _details(inp: Inputs, r) -> None:
    left, right = st.columns(2)
    left.plotly_chart(charts.breakdown_bar(r.breakdown_ns, f"{r.par.describe()}: {fmt_time(r.total_latency_ns)}"),
                      key="fig_sim_breakdown")
    right.plotly_chart(charts.memory_bar(r.mem_breakdown_bytes, r.mem_capacity_bytes, inp.hw.pe_hbm_gb * 1e9),
                       key="fig_sim_memory")
    unit, div = time_unit([r.total_latency_ns])
    table = pd.DataFrame([{"component": k, f"time ({unit})": v / div, "share %": 100 * v / r.total_latency_ns}
                          for k, v in r.breakdown_ns.items() if v > 0]).sort_values(f"time ({unit})",
                                                                                     ascending=False)
    left.dataframe(table, hide_index=True, key="tbl_sim_breakdown",
                   column_config={f"time ({unit})": st.column_config.NumberColumn(format="%.3f"),
                                  "share %": st.column_config.NumberColumn(format="%.1f")})
    right.plotly_chart(charts.roofline(r, inp.hw), key="fig_sim_roofline")
    ops = r.to_pandas("ops").rename(columns={"time_us": "time (µs)", "hbm_mb": "HBM (MB)",
                                            "gflop": "GFLOP", "flop_per_byte": "flop per byte"})
    with st.expander("Operators: time, work and arithmetic intensity per PE per step"):
        st.dataframe(ops, hide_index=True, key="tbl_sim_ops",
                     column_config={c: st.column_config.NumberColumn(format="%.3g")
                                    for c in ops.columns if c != "operator"})


def render(inp: Inputs) -> None:
    card = w.card("simulate")
    if (msg := state.flash()):
        card.caption(msg)
    par = w.guarded(card, controls)
    if par is None:
        return
    if inp.wl is None:
        card.error(inp.wl_error)
        return
    run = Run("simulate", inp.model, inp.hw, inp.runtime,
              {"workload": inp.workload_dict(), "parallelism": par.to_dict()})
    out = w.guarded(card, compute, run)
    if out is None:
        return
    _card(card, inp, run, out)
    _details(inp, out.result)
