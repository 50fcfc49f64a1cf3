"""Compare: configurations pinned from any tab (or re-run from an exported JSON) side by side:
latency and throughput, memory, cost, the breakdowns on one shared scale. The card says which
pin is fastest, which serves the most per PE and which is cheapest, and by how much."""
from __future__ import annotations

import math

import pandas as pd
import streamlit as st

from infersim.exports import rerun
from infersim.report import plots as charts
from infersim.report.fmt import fmt_ms, fmt_rate, fmt_usd
from infersim.ui import pins as pinlib
from infersim.ui import state
from infersim.ui import widgets as w

TAB = "compare"


def _name(p: dict) -> str:
    return f"#{p['id']} {p['label']}"


def _short(p: dict) -> str:
    """A chart label: pin number, where it came from, what it is (its label: a disaggregated and an
    aggregated pin of the same decode parallelism differ), cut to fit."""
    what = p["label"].removeprefix(f"{p['source']}: ").split(" on ")[0]
    what = what if len(what) <= 44 else what[:43] + "…"
    return f"#{p['id']} {p['source']}: {what}"


def _kind(p: dict) -> str:
    """What a pin's latency is: a serving deployment's TPOT, or one step of a workload."""
    wl = p["workload"]
    if not math.isnan(p.get("tpot_ms", math.nan)):
        return f"serving TPOT (batch {wl['batch']:,})"
    return f"{wl['mode']} step at batch {wl['batch']:,}, {wl['s_kv']:,} tokens"


def _card(card, pins: list[dict]) -> None:
    if not pins:
        w.headline(card, "Nothing pinned yet.", "Pin configurations with the Pin buttons on Simulate, "
                   "Explore, Co-design and Serving (or re-run an exported JSON below) to compare them here.")
        return
    ok = [p for p in pins if p["fits"]]
    if not ok:
        w.headline(card, "None of the pins fits in memory:", "they cannot run; see their memory below.")
        return
    fast = min(ok, key=lambda p: p["latency_ms"])
    eff = max(ok, key=lambda p: p["tok_s_per_pe"])
    cheap = min(ok, key=lambda p: p["capex_usd"])
    slow = max(ok, key=lambda p: p["latency_ms"])
    kinds = {(p["model"], _kind(p)) for p in ok}
    if len(ok) == 1:
        lead = f"{_name(fast)}: {fmt_ms(fast['latency_ms'])} ({_kind(fast)})"
    elif len(kinds) == 1:               # like with like: a ratio means something
        lead = (f"{_name(fast)}: {fmt_ms(fast['latency_ms'])} per {_kind(fast)}, "
                f"{slow['latency_ms'] / fast['latency_ms']:.2f}× faster than the slowest pin ({_name(slow)})")
    else:                               # a batch-1 step against a batch-108 TPOT: no ratio
        lead = (f"{_name(fast)}: {fmt_ms(fast['latency_ms'])} ({_kind(fast)}); the pins measure different "
                f"things ({'; '.join(sorted({k for _, k in kinds}))}), so no speed-up is given")
    w.headline(card, "Fastest:", lead)
    w.metrics(card, [(f"Fastest: pin #{fast['id']}", fmt_ms(fast["latency_ms"])),
                     (f"Most tok/s per PE: pin #{eff['id']}", fmt_rate(eff["tok_s_per_pe"])),
                     (f"Least capex: pin #{cheap['id']}", fmt_usd(cheap["capex_usd"])),
                     ("Pins", f"{len(pins)}", f"{len(pins) - len(ok)} do not fit" if len(ok) < len(pins) else None,
                      "inverse")])
    card.markdown(f"**Most tokens/s per PE:** {_name(eff)} ({fmt_rate(eff['tok_s_per_pe'], 'tok/s per PE')}); "
                  f"**least capex:** {_name(cheap)} ({fmt_usd(cheap['capex_usd'])}, {cheap['pes']} PEs).")
    if len({(p["model"], tuple(sorted(p["workload"].items()))) for p in pins}) > 1:
        card.caption("The pins differ in model or workload: their latencies answer different questions.")


def _table(pins: list[dict]) -> pd.DataFrame:
    """Every pin, one row, every column (the CSV)."""
    return pd.DataFrame([{
        "pin": p["id"], "from": p["source"], "model": p["model"], "hardware": p["hardware"],
        "parallelism": p["parallelism"], "workload": pinlib.wl_text(p["workload"]), "runtime": p["runtime"],
        "latency (ms)": p["latency_ms"], "tok/s": p["tok_s"], "tok/s per PE": p["tok_s_per_pe"],
        "PEs": p["pes"], "GB per PE": p["mem_gb"], "usable GB": p["usable_gb"], "fits": p["fits"],
        "bound": p["bound"], "capex ($)": p["capex_usd"],
        "TTFT (ms)": p["ttft_ms"], "TPOT (ms)": p["tpot_ms"]} for p in pins])


#: the on-screen order: what differs between pins first (numbers), then what they are
SHOWN = ("pin", "from", "latency (ms)", "tok/s", "tok/s per PE", "TTFT (ms)", "TPOT (ms)", "capex ($)", "PEs",
         "GB per PE", "fits", "bound", "parallelism", "hardware", "workload", "model", "runtime", "usable GB")


def shown_table(table: pd.DataFrame) -> tuple[pd.DataFrame, list[str]]:
    """(the table on screen, 'column: value' for the columns equal for every pin): the numbers first,
    and with two pins or more the columns that are the same for all of them said once, not repeated."""
    same = []
    cols = [c for c in SHOWN if c in table.columns]
    cols = [c for c in cols if table[c].notna().any()]      # TTFT/TPOT of step pins: nothing to show
    if len(table) > 1:
        for c in cols[2:]:
            vals = table[c].astype(str).unique()
            if len(vals) == 1:
                same.append(f"{c}: {vals[0]}")
        cols = [c for c in cols if not any(x.startswith(f"{c}: ") for x in same)]
    return table[cols], same


def _pin_export(up) -> None:
    """Re-run an uploaded export once (by upload id) and pin its recommended configuration."""
    done = st.session_state.setdefault("_exports_done", set())
    if up.file_id in done:
        return
    done.add(up.file_id)
    job, out, old = rerun(up.getvalue(), up.name, front_end="ui")
    same = "same answer as the export" if out.answer == old.get("answer") else "the answer differs from the export"
    r = out.result
    if job.kind == "simulate":
        pin = pinlib.from_sim("Export", r, job.hardware)
    elif job.kind == "explore":
        pin = pinlib.from_sim("Export", r.best_result, job.hardware)
    elif job.kind == "codesign":
        from infersim import simulate

        b = r.best
        hw = b.hw.to_hardware(job.hardware)
        pin = pinlib.from_sim("Export", simulate(job.model, hw, b.par, job.workload(), runtime=job.runtime), hw,
                              job.hardware, capex_usd=b.system_cost_usd)
    elif job.kind == "codesign_sla":
        if r.best is None:
            st.session_state["_flash"] = f"{up.name}: the re-run found no hardware meeting the SLA; nothing to pin"
            return
        pin = pinlib.from_sla_design("Export", job.model, job.hardware, job.runtime, r.request, r.best)
    else:
        if r.best is None:
            st.session_state["_flash"] = f"{up.name}: the re-run found no deployment meeting the SLA; nothing to pin"
            return
        b = r.best
        pin = pinlib.from_serving("Export", job.model, job.hardware, job.hardware, job.runtime, b.par, b.batch,
                                  r.request, b.to_dict(), f"{b.par.describe()} batch {b.batch}")
    state.add_pin({**pin, "label": f"{pin['label']} (re-run of {up.name})"})
    st.session_state["_flash"] = f"re-ran the {job.kind} export {up.name}: {same}; pinned"


def _charts(pins: list[dict]) -> None:
    left, right = st.columns(2)
    left.plotly_chart(charts.breakdown_bars({_short(p): p["breakdown_ns"] for p in pins},
                                            "Latency breakdown, one scale"), key="fig_cmp_breakdown")
    right.plotly_chart(charts.memory_bars({_short(p): p["mem_parts"] for p in pins},
                                          {_short(p): p["usable_gb"] * 1e9 for p in pins}), key="fig_cmp_memory")


def _actions(pins: list[dict]) -> None:
    c = st.columns([3, 1, 1, 1])
    ids = [p["id"] for p in pins]
    by_id = {p["id"]: p for p in pins}
    pid = w.select(c[0], "Pin", ids, "cmp_pin", ids[-1], help_key="pin", format_func=lambda i: _name(by_id[i]))
    p = by_id[pid]
    c[1].button("Open in Simulate", key="btn_cmp_open", on_click=state.open_in_simulate,
                args=(p["par"], p["hw_base"], p["hw_knobs"], p["hw_topology"], p["workload"]),
                kwargs={"note": _name(p)}, help="Fill the Simulate tab with this pin (uses the sidebar's model).")
    c[2].button("Remove", key="btn_cmp_remove", on_click=state.remove_pin, args=(pid,),
                help="Unpin this configuration.")
    c[3].button("Clear all", key="btn_cmp_clear", on_click=state.clear_pins, help="Unpin everything.")


def render(inp) -> None:
    card = w.card(TAB)
    up = w.guarded(card, w.uploader, st, "Re-run an exported result (JSON) and pin it", "export_upload",
                   ["json"], "export_upload")
    if up is not None:
        w.guarded(card, _pin_export, up)
    if (msg := state.flash()):
        card.caption(msg)
    pins = state.pins()
    _card(card, pins)
    if not pins:
        return
    table = _table(pins)
    shown, same = shown_table(table)
    st.dataframe(shown, hide_index=True, key="tbl_cmp",
                 column_config={c: st.column_config.NumberColumn(format="%.3f" if "ms" in c else "%.4g")
                                for c in ("latency (ms)", "tok/s", "tok/s per PE", "GB per PE", "usable GB",
                                          "TTFT (ms)", "TPOT (ms)")} | {
                     "capex ($)": st.column_config.NumberColumn(format="localized", step=1)})
    if same:
        st.caption("The same for every pin: " + "; ".join(same) + ".")
    if any(not math.isnan(p["ttft_ms"]) for p in pins):
        st.caption("Serving pins: latency = TPOT of the deployment; the breakdown is its decode step at the "
                   "mean context.")
    w.download_csv(st, f"Download the comparison (CSV, {len(pins)} rows)", lambda: table.to_csv(index=False),
                   "infersim-compare.csv", "dl_cmp_csv", help="The table above, one row per pin.")
    _charts(pins)
    _actions(pins)
