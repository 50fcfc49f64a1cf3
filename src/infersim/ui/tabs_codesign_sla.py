"""Co-design at a serving SLA (the Co-design tab's second mode): which hardware of the grid
serves requests of a shape within TTFT/TPOT limits for the most tokens per dollar (or per
watt, per PE, in total). The card is the answer of :func:`infersim.codesign.sla.codesign_sla`
(hardware, deployment, its numbers, what limits it, the next knob); then the objective against
deployment capex for every candidate, the sensitivity and the ranked candidates. The run goes
through :func:`infersim.exports.compute` (kind ``codesign_sla``), so the download re-runs with
``infersim rerun``; it runs on its button only (and once on the mode's first visit)."""
from __future__ import annotations

import math
import time

import pandas as pd
import streamlit as st

from infersim import InferSimError
from infersim.codesign.answer import fmt_price, hardware_phrase
from infersim.codesign.grid import DEPTHS
from infersim.codesign.sla import SLA_OBJECTIVES
from infersim.codesign.types import TOPOLOGY_KNOBS
from infersim.exports import Run, compute, dumps, to_export
from infersim.report import plots as charts
from infersim.report.fmt import fmt_big, fmt_ms, fmt_rate, fmt_usd
from infersim.report.labels import label
from infersim.serving import BATCHING, Request
from infersim.ui import pins, state
from infersim.ui import widgets as w
from infersim.ui.codesign_grid import candidates, edge_notes, grid_inputs
from infersim.ui.inputs import KNOB_LABELS, TOPO_LABELS, Inputs

TAB = "codesign_sla"
#: objective → the tile's label in words
SLA_WORDS = {"tok_s_per_usd": "Objective: tokens per $", "tok_s_per_w": "Objective: tokens/s per W",
             "tok_s_per_pe": "Objective: tokens/s per PE", "tok_s": "Objective: system tokens/s"}
#: One SLA search per candidate (~30 ms for 8B on 8 GPUs, ~0.2 s for 70B on 64 PEs): bigger
#: grids belong to the CLI (``infersim codesign --tpot-ms … --max-candidates N``).
MAX_SLA_CANDIDATES = 1000
NO_LIMIT = "set a TTFT or a TPOT limit (or both): an SLA co-design needs at least one"
#: to_pandas() columns → table headers (the objective's own column is named by its unit)
HEADERS = {"parallelism": "deployment", "batch": "batch", "pes": "PEs", "ttft_ms": "TTFT (ms)",
           "tpot_ms": "TPOT (ms)", "tok_s_per_pe": "tok/s/PE", "capex_usd": "capex ($)",
           "meets_sla": "meets SLA", "tok_s": "tok/s (replica)", "tok_s_system": "tok/s (system)", "tok_s_per_usd": "tok/$", "tok_s_per_w": "tok/s/W",
           "capex_usd_per_pe": "capex per PE ($)", "power_w_per_pe": "system W per PE",
           "usd_per_h_per_pe": "TCO $/h per PE"}


# ----- controls ---------------------------------------------------------------------------------
def _controls(inp: Inputs) -> dict:
    """The run's inputs (the ``codesign_sla`` export's); bad input raises one line."""
    c = st.columns(5)
    isl = int(w.number(c[0], "Input tokens (isl)", "cs_isl", 2048, help_key="isl", step=256))
    osl = int(w.number(c[1], "Output tokens (osl)", "cs_osl", 512, help_key="osl", step=64))
    ttft = float(w.number(c[2], "TTFT limit (ms, 0 = none)", "cs_ttft", 2000.0, step=100.0))
    tpot = float(w.number(c[3], "TPOT limit (ms, 0 = none)", "cs_tpot", 50.0, step=5.0))
    hit = float(w.number(c[4], "Prefix-cache hit", "cs_hit", 0.0, help_key="prefix_hit", step=0.05,
                         format="%.2f"))
    c = st.columns([2, 1, 1, 2])
    objective = w.select(c[0], "SLA objective", list(SLA_OBJECTIVES), "cs_objective",
                         format_func=lambda o: f"{label(o)} ({SLA_OBJECTIVES[o][1]})")
    batching = w.select(c[1], "Batching", BATCHING, "cs_batching", help_key="batching")
    depth = w.select(c[2], "Depth", DEPTHS, "cd_depth", "balanced", help_key="depth")
    grid = grid_inputs(inp.hw) if depth == "custom" else {}
    if depth == "custom" and not grid:
        raise InferSimError("the custom grid is empty: give values for at least one knob")
    if ttft <= 0 and tpot <= 0:
        raise InferSimError(NO_LIMIT)
    request = {"isl": isl, "osl": osl, "prefix_hit": hit}
    Request(**request)                      # a bad request shape is a message now, not after a run
    return {"request": request, "ttft_ms": ttft if ttft > 0 else None, "tpot_ms": tpot if tpot > 0 else None,
            "objective": objective, "depth": depth, "grid": grid if depth == "custom" else None,
            "batching": batching}


def _size(inp: Inputs, params: dict) -> int:
    """Grid size; above the SLA mode's cap is an error before any run."""
    n = candidates(inp, params["depth"], params["grid"] or {})
    if n > MAX_SLA_CANDIDATES:
        raise InferSimError(f"the grid has {n:,} hardware candidates; an SLA co-design runs one SLA search "
                            f"per candidate, so the UI stops at {MAX_SLA_CANDIDATES:,} (balanced: 64, coarse: "
                            f"729); run it with infersim codesign --tpot-ms … --max-candidates {n}")
    return n


def _run(inp: Inputs, params: dict, card, budget_s: float | None = None) -> dict:
    run = Run("codesign_sla", inp.model, inp.hw, inp.runtime, params)
    bar = card.progress(0.0, text="one SLA search per hardware candidate")   # where the answer will be

    def report(done: int, total: int) -> None:
        tail = " (then the sensitivity: 12 more)" if done == total else ""
        bar.progress(done / total, f"one SLA search per hardware candidate: {done:,}/{total:,}{tail}")

    t0 = time.perf_counter()
    try:
        out = compute(run, progress=state.budget_progress(budget_s, report))
    finally:
        bar.empty()
    return dict(run=run, outcome=out, hw=inp.hw, base_hw=inp.base_hw, model=inp.model,
                wall_s=time.perf_counter() - t0)


# ----- the card -----------------------------------------------------------------------------------
def _limits(r) -> str:
    parts = [f"TTFT ≤ {r.ttft_limit_ms:g} ms" if r.ttft_limit_ms else "",
             f"TPOT ≤ {r.tpot_limit_ms:g} ms" if r.tpot_limit_ms else ""]
    return " and ".join(p for p in parts if p)


def hardware_words(hw) -> str:
    """A candidate's knobs in words with units: ``HBM 96 GB at 4,000 GB/s, fp16 1,000 TFLOPS, links
    600 / 200 / 50 GB/s (intra-cube / inter-cube / inter-SiP)``."""
    return hardware_phrase(hw.knobs())


def headline_text(r, answer0: str) -> str:
    """The answer's first line with the hardware in words (the library's line names knobs tersely)."""
    if r.best is None or "; " not in answer0:
        return answer0.removeprefix("Answer: ")
    return f"{hardware_words(r.best.hw)}; {answer0.split('; ', 1)[1]}"


def lever_lines(r, answer1: str) -> tuple[str, str]:
    """(what limits it and the next lever, in words; why that lever: each knob ×2 alone)."""
    line = w.words(answer1)
    if not r.sensitivity:
        return line, ""
    gains = sorted(((s.gain_doubled, s.knob) for s in r.sensitivity if math.isfinite(s.gain_doubled)), reverse=True)
    why = ("Why that lever: each knob ×2 alone, the deployment searched again under the same SLA (its price and "
           "power counted): " + ", ".join(f"{KNOB_LABELS[k].split(' (')[0]} {g:+.1%}" for g, k in gains)
           + ". The limit is what stops a larger batch; the lever is what pays most per the objective.")
    return line, why


def replicas_line(r, base) -> str:
    """The system's other PEs: the answer is one replica; the rest of the system holds more."""
    b = r.best
    system = b.system_pes or b.hw.to_hardware(base).n_pes
    n = system // b.point.pes
    if n <= 1:
        return ""
    return (f"The deployment is one replica on {w.plural(b.point.pes, 'PE')} of the system's {system:,}: the other "
            f"{system - b.point.pes:,} hold {n - 1:,} more replica{'s' if n != 2 else ''} "
            f"({fmt_rate(b.tok_s_system)} for the whole system).")


def _card(card, res: dict, note=lambda: None) -> None:
    run, out = res["run"], res["outcome"]
    r = out.result
    w.headline(card, "Answer:", headline_text(r, out.answer[0]))
    note()
    b = r.best
    if b is not None:
        p = b.point
        # the unit in the label: a six-tile row leaves the value ~9 characters (issue 27: "2.96M t…")
        w.metrics(card, [(f"{SLA_WORDS.get(r.objective, r.unit)} ({r.unit})", fmt_big(b.value(r.objective))),
                         ("TTFT", fmt_ms(p.ttft_ms)), ("TPOT", fmt_ms(p.tpot_ms)),
                         ("tok/s per replica", fmt_rate(p.tok_s, "")),
                         ("$ per M tokens", fmt_price(1e6 / b.tok_s_per_usd)),
                         ("tok/s per W", f"{b.tok_s_per_w:.2f}")])
    line, why = lever_lines(r, out.answer[1])
    card.markdown(f"**{line}**")
    if why:
        card.caption(why)
    if b is not None and (more := replicas_line(r, res["hw"])):
        card.markdown(more)
    if b is not None:
        gains = {s.knob: (s.gain_doubled, s.gain_halved) for s in r.sensitivity}
        for note_line in edge_notes(run.inputs.get("grid"), b.hw.knobs(), gains):
            card.warning(note_line, icon=":material/open_in_full:")
    sens = f", plus {2 * len(r.sensitivity)} for the sensitivity" if r.sensitivity else ""
    card.caption(f"{r.model}, {r.request.isl:,}+{r.request.osl:,}-token requests, {_limits(r)}, {r.batching} "
                 f"batching: {r.n_meeting} of {len(r.designs)} hardware candidates meet it (one single-replica "
                 f"SLA search each{sens}; answered in {w.wall(res.get('wall_s', r.elapsed_s))}). The sidebar's "
                 "hardware is the base of the grid; its workload does not apply (the request shape does). "
                 "Prices: docs/codesign.md (the base part's published price, scaled by its knobs).")
    row = card.container(horizontal=True)
    if b is not None:
        row.button("Open in Simulate", key="btn_cs_open", on_click=state.open_in_simulate, args=_open_args(res),
                   kwargs={"note": "SLA co-design best: hardware knobs, deployment, its decode step"},
                   help="Set the sidebar's hardware knobs to the design's, the parallelism to its deployment's "
                        "and the workload to its decode step (batch, mean context).")
        row.button("Pin to Compare", key="btn_cs_pin", on_click=_pin, args=(res,), icon=":material/push_pin:",
                   help="Keep the best design (its deployment's TTFT, TPOT, tokens/s, capex) for Compare.")
    w.download_json(row, lambda: dumps(to_export(run, out)), "infersim-codesign-sla.json", "dl_cs_json")
    if b is not None:
        card.caption(f"Open in Simulate simulates one decode step of the deployment: batch {b.point.batch} "
                     f"(its concurrent sequences) at s_kv = isl + osl/2 = {r.request.decode_mean().s_kv:,} "
                     "(the mean context); TTFT and TPOT also count the prefill chunks mixed into the steps.")


def _open_args(res: dict) -> tuple:
    r, base = res["outcome"].result, res["hw"]
    b = r.best
    topo = dict(zip(TOPOLOGY_KNOBS, b.hw.topology_of(base)))
    wl = {"mode": "decode", "s_kv": r.request.decode_mean().s_kv, "batch": b.point.batch, "s_q": None}
    return b.point.par.to_dict(), res.get("base_hw", base).name, b.hw.knobs(), topo, wl


def _pin(res: dict) -> None:
    r, run = res["outcome"].result, res["run"]
    state.add_pin(pins.from_sla_design("Co-design SLA", res["model"], res["hw"], run.runtime, r.request, r.best,
                                       preset=res.get("base_hw")))


# ----- chart and tables -----------------------------------------------------------------------------
def _charts(res: dict) -> None:
    r = res["outcome"].result
    left, right = st.columns([3, 2])
    fig = charts.sla_codesign(r)
    left.plotly_chart(fig, key="fig_cs_pareto")
    miss = len(r.designs) - r.n_meeting
    notes = [f"{r.n_meeting} candidates meet the SLA and are drawn"]
    if miss:
        notes.append(f"{miss} miss it (not drawn; last in the table, with their nearest miss)")
    if fig.layout.meta["tied_points_spread"]:
        notes.append(f"{fig.layout.meta['tied_points_spread']} tie with another on both axes (they differ only "
                     "in knobs this deployment does not use): their dots are spread slightly")
    left.caption("; ".join(notes) + ".")
    if r.sensitivity:
        right.plotly_chart(charts.sla_sensitivity(r), key="fig_cs_sensitivity")
        right.caption("Each knob of the best hardware ×2 and ×0.5 alone, the deployment searched again under "
                      "the same SLA; the price of the knob counts in tok/$ and its power in tok/s/W.")


def designs_frame(r, base) -> pd.DataFrame:
    """The ranked candidates, key columns first: rank, the objective, the knobs (and the system
    size where the grid varies it), deployment, batch, TTFT, TPOT, tok/s/PE, capex; then the rest."""
    df = r.to_pandas()
    topo = pd.DataFrame([dict(zip(TOPOLOGY_KNOBS, d.hw.topology_of(base))) for d in r.designs])
    varying = [k for k in TOPOLOGY_KNOBS if len(topo) and topo[k].nunique() > 1]
    for k in varying:
        df[k] = topo[k].values
    knobs = [c for c in df.columns if c.startswith("hw_")] + varying
    lead = list(dict.fromkeys(["rank", r.objective, *knobs, "parallelism", "batch", "ttft_ms", "tpot_ms",
                               "tok_s_per_pe", "capex_usd", "meets_sla"]))
    df = df[lead + [c for c in df.columns if c not in lead]]
    names = {**HEADERS, **{f"hw_{k}": v for k, v in KNOB_LABELS.items()}, **TOPO_LABELS}
    return df.rename(columns=names)


def _tables(res: dict) -> None:
    r = res["outcome"].result
    st.subheader(f"Hardware candidates ranked by {label(r.objective)} ({r.unit}) at the SLA")
    table = designs_frame(r, res["hw"])
    fmt = {c: st.column_config.NumberColumn(format="%.1f") for c in ("TTFT (ms)", "TPOT (ms)", "tok/s/PE", "tok/s")}
    st.dataframe(table, hide_index=True, key="tbl_cs_designs",
                 column_config={**fmt, "capex ($)": st.column_config.NumberColumn(format="localized", step=1),
                                "tok/$": st.column_config.NumberColumn(format="%.4g")})
    w.download_csv(st, f"Download the candidates (CSV, {len(table):,} rows)", lambda: table.to_csv(index=False),
                   "infersim-codesign-sla.csv", "dl_cs_csv", help="The table above: every hardware candidate.")
    if r.sensitivity:
        b = r.best
        st.subheader(f"Sensitivity at the best hardware ({fmt_rate(b.value(r.objective), r.unit)})")
        val = lambda v: fmt_rate(v, r.unit) if math.isfinite(v) else "misses SLA"  # noqa: E731
        st.dataframe(pd.DataFrame([{"knob": label(s.knob), "value": getattr(b.hw, s.knob), "×2": val(s.doubled_value),
                                    "×0.5": val(s.halved_value), "gain ×2 (%)": 100 * s.gain_doubled,
                                    "gain ×0.5 (%)": 100 * s.gain_halved if math.isfinite(s.halved_value)
                                    else math.nan} for s in r.sensitivity]),
                     hide_index=True, key="tbl_cs_sensitivity",
                     column_config={c: st.column_config.NumberColumn(format="%.1f")
                                    for c in ("gain ×2 (%)", "gain ×0.5 (%)")})


def _nearest(card, r) -> None:
    """When nothing meets the SLA: the nearest miss's numbers, so the user sees how far off it is."""
    near = next((d for d in r.designs if d.miss is not None), None)
    if near is not None:
        m = near.miss
        card.warning(f"Nearest miss (does NOT meet the SLA): {m.par.describe()} at batch {m.batch} on "
                   f"{w.plural(m.pes, 'PE')} of {hardware_words(near.hw)} (capex "
                   f"{fmt_usd(near.capex_usd_per_pe * m.pes)}): TTFT {fmt_ms(m.ttft_ms)}, TPOT {fmt_ms(m.tpot_ms)} "
                   f"against {_limits(r)}.", icon=":material/block:")
        card.markdown("**Next step:** " + w.relax_text(r.ttft_limit_ms, r.tpot_limit_ms, m.ttft_ms, m.tpot_ms)
                      + ", or widen the grid (more HBM bandwidth or compute).")


def render(inp: Inputs, card) -> None:
    """The SLA mode under the Co-design tab's card (``card``, drawn first by the tab)."""
    params = w.guarded(card, _controls, inp)
    n = w.guarded(card, _size, inp, params) if params else None
    c = st.columns([1, 1, 3])
    c[0].metric("Hardware candidates", "–" if n is None else f"{n:,}",
                help=f"Grid size, computed from the value lists; one SLA search each (cap {MAX_SLA_CANDIDATES:,}).")
    clicked = c[1].button("Run SLA co-design", key="btn_cs_run", type="primary", disabled=n is None,
                          help="For every candidate, search the best single-replica deployment meeting the SLA.")
    stamp = None
    if n is not None:
        stamp = inp.stamp(with_workload=False, **params)
        if clicked:
            state.run_and_store(TAB, stamp, lambda: _run(inp, params, card))
            state.ran("codesign")
        else:                               # first visit of the mode: answer at once if it is quick
            state.first_visit(TAB, stamp, lambda budget: _run(inp, params, card, budget))
    shown = w.shown_result(card, TAB, stamp, "Run SLA co-design")
    if shown is None:
        if state.get_result(TAB) is None and n is not None:
            w.ask_to_run(card, TAB, "Run SLA co-design", f"one serving-SLA search for each of the {n:,} hardware "
                         "candidates")
        return
    res, note = shown
    _card(card, res, note)
    if res["outcome"].result.best is None:
        _nearest(card, res["outcome"].result)
    else:
        _charts(res)
    _tables(res)
    w.scroll_into_view("codesign")
