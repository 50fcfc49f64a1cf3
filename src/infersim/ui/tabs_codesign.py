"""Co-design: sweep hardware candidates under one objective. The card is the recommended
hardware and deployment with its cost, what limits it and the knob to buy next. The sweep
runs on its button only (and once on the first visit); the grid size is shown without
enumerating the grid, and a grid above the cap is refused before it runs. A mode switch under
the card turns the tab into co-design at a serving SLA (``tabs_codesign_sla``)."""
from __future__ import annotations

import time

import numpy as np
import pandas as pd
import streamlit as st

from infersim import InferSimError, simulate
from infersim.codesign.answer import SHORT, hardware_phrase
from infersim.codesign.grid import DEPTHS, MAX_CANDIDATES
from infersim.codesign.types import TOPOLOGY_KNOBS
from infersim.exports import Run, compute, dumps, to_export
from infersim.report import plots as charts
from infersim.report.fmt import fmt_big, fmt_rate, fmt_time, fmt_usd
from infersim.report.labels import label
from infersim.search.objectives import OBJECTIVES, get_objective
from infersim.ui import pins, state, tabs_codesign_sla
from infersim.ui import widgets as w
from infersim.ui.codesign_grid import candidates, edge_notes, grid_inputs
from infersim.ui.inputs import Inputs, knob_text, renamed

TAB = "codesign"
MODES = ("one step (latency/throughput…)", "serving SLA (tokens per $ at TTFT/TPOT)")
MAX_POINTS = 4000        # pairs drawn on the chart (all of them up to this; then best + a spread)
#: objective → (column of JointResult.to_pandas(), axis title)
AXIS = {"latency": ("total_latency_ms", "latency (ms)"), "throughput": ("tokens_per_s", "throughput (tok/s)"),
        "throughput_per_pe": ("tokens_per_s_per_pe", "throughput per PE (tok/s/PE)"),
        "tok_s_per_usd": ("tokens_per_usd", "tokens per $ of TCO"),
        "tok_s_per_w": ("tokens_per_j", "tokens per joule (tok/s per W)")}
COST_AXES = {"system cost ($)": ("system_cost_usd", "system cost of the PEs used ($)", True),
             "cost_score": ("cost_score", "cost_score (Σ knob/default per PE)", False)}


# ----- controls ---------------------------------------------------------------------------------
def _controls(inp: Inputs):
    c = st.columns(4)
    depth = w.select(c[0], "Depth", DEPTHS, "cd_depth", "balanced", help_key="depth")
    objective = w.select(c[1], "Objective", OBJECTIVES.names(), "cd_objective", help_key="cd_objective",
                         format_func=label)
    xaxis = w.select(c[2], "Cost axis", list(COST_AXES), "cd_x", help_key="cd_x")
    design = w.select(c[3], "Sensitivity at", ["best", "base"], "cd_design", help_key="design_point")
    grid = grid_inputs(inp.hw) if depth == "custom" else {}
    if depth == "custom" and not grid:
        raise InferSimError("the custom grid is empty: give values for at least one knob")
    return depth, objective, xaxis, design, grid


# ----- running and keeping the result -------------------------------------------------------------
def _frames(res) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """(points drawn, dollar frontier, cost_score frontier) as DataFrames, built once per Run."""
    n = len(res.all_scores)
    idx = np.arange(n) if n <= MAX_POINTS else np.unique(np.concatenate(
        [np.arange(MAX_POINTS // 4), np.linspace(0, n - 1, MAX_POINTS - MAX_POINTS // 4).astype(int)]))
    pts = pd.DataFrame(res.all_scores.columns(idx))
    return pts, res.to_pandas("pareto_usd"), res.to_pandas("pareto")


def _run(inp: Inputs, depth: str, objective: str, design: str, grid: dict, card,
         budget_s: float | None = None) -> dict:
    run = Run("codesign", inp.model, inp.hw, inp.runtime,
              {"workload": inp.workload_dict(), "objective": objective, "depth": depth,
               "grid": grid if depth == "custom" else None, "design_point": design})
    bar, report = w.progress(card, "sweeping hardware candidates")
    t0 = time.perf_counter()
    try:
        out = compute(run, progress=state.budget_progress(budget_s, report))
    finally:
        bar.empty()
    wall_s = time.perf_counter() - t0
    pts, usd, cap = _frames(out.result)
    return dict(run=run, outcome=out, answer=out.result.answer(), points=pts, usd=usd, cap=cap,
                hw=inp.hw, base_hw=inp.base_hw, model=inp.model, wall_s=wall_s)


# ----- the card -----------------------------------------------------------------------------------
def _hw_text(ans: dict) -> str:
    hw = ans["hardware"]
    return (f"{hardware_phrase({k: hw[k] for k in SHORT})}, "
            f"{hw['pes_per_cube']}×{hw['cubes_per_sip']}×{hw['n_sips']} PEs")


def fmt_objective(objective: str, value: float) -> str:
    """The objective's value in words that fit a tile: ``2.87 ms``, ``75.4k tok/$``."""
    obj = get_objective(objective)
    return fmt_time(value) if objective == "latency" else fmt_big(value, obj.label)


#: objective → the tile's label (never the identifier)
OBJECTIVE_WORDS = {"latency": "Latency (the objective)", "throughput": "Throughput (the objective)",
                   "throughput_per_pe": "Throughput per PE (the objective)",
                   "tok_s_per_usd": "Tokens per $ (the objective)", "tok_s_per_w": "Tokens per joule (the objective)"}


def _card(card, res: dict, note=lambda: None) -> None:
    run, out, ans = res["run"], res["outcome"], res["answer"]
    jr, b = out.result, out.result.pick
    w.headline(card, "Recommended hardware:", _hw_text(ans))
    note()
    words = OBJECTIVE_WORDS.get(jr.objective, jr.objective).split(' (')[0].lower()
    how = ("memory-first pick on the base hardware, not a search" if jr.depth == "two_stage" else
           f"best by {words}" if jr.pick is jr.best else
           f"the cheapest within {100 * jr.tolerance:g}% of the best by {words}")
    card.markdown(f"**Deploy:** {ans['parallelism']} on {w.plural(ans['pes'], 'PE')} ({how})")
    tiles = [] if jr.objective == "latency" else [
        (OBJECTIVE_WORDS.get(jr.objective, jr.objective), fmt_objective(jr.objective, b.objective_value))]
    w.metrics(card, tiles + [("Latency" + (" (the objective)" if jr.objective == "latency" else ""),
                               fmt_time(b.total_latency_ns)), ("Throughput", fmt_rate(b.tokens_per_s)),
                              ("System cost", fmt_usd(b.system_cost_usd)),
                              ("Power", f"{b.system_power_w / 1e3:,.2f} kW")])
    card.markdown(f"**{w.words(out.answer[1])}**")
    if (band := _band(res, b)):
        card.caption(f"Error band of the latency: {band}.")
    if (cheaper := _cheaper_within_tolerance(jr)):
        card.info(cheaper, icon=":material/savings:")
    for line in _edges(res):
        card.warning(line, icon=":material/open_in_full:")
    card.caption(f"{jr.n_hardware:,} hardware candidates × {jr.n_parallel:,} parallelism configs: "
                 f"{jr.total_joint:,} fitting pairs searched ({jr.n_evals:,} costed after pruning), answered in "
                 f"{w.wall(res.get('wall_s', jr.elapsed_s))}; TCO ${b.tco_usd_per_h:,.2f}/h. The cost basis: "
                 "docs/codesign.md (published price of the base part, scaled by its knobs).")
    row = card.container(horizontal=True)
    _point_buttons(row, row, res, b, "best")
    w.download_json(row, lambda: dumps(to_export(run, out)), "infersim-codesign.json", "dl_cd_json")


#: Differences in the objective below this are within the model's error (its bands are ±10–20%).
PICK_TOLERANCE = 0.03


def _cheaper_within_tolerance(jr) -> str:
    """The runner-up an architect should see: the cheapest frontier design whose objective is within
    :data:`PICK_TOLERANCE` of the best's and costs at least that much less."""
    b, obj = jr.best, get_objective(jr.objective)
    # only a design cheaper than the one the card already shows (the pick within jr.tolerance)
    near = [s for s in jr.pareto_usd_scores if s.system_cost_usd < (1 - PICK_TOLERANCE) * jr.pick.system_cost_usd
            and obj.gain(s.objective_value, b.objective_value) >= -PICK_TOLERANCE]
    if not near:
        return ""
    s = min(near, key=lambda s: s.system_cost_usd)
    loss = -obj.gain(s.objective_value, b.objective_value)
    knobs = ", ".join(knob_text(k, v) for k, v in s.hw.knobs().items() if v != getattr(b.hw, k))
    return (f"Within {PICK_TOLERANCE:.0%} of the best, for {fmt_usd(s.system_cost_usd)} instead of "
            f"{fmt_usd(b.system_cost_usd)} ({1 - s.system_cost_usd / b.system_cost_usd:.0%} cheaper): "
            f"{knobs or 'the same knobs'}, {s.par.describe()} on {w.plural(s.pes, 'PE')}, "
            f"{fmt_objective(jr.objective, s.objective_value)} ({'only ' if loss > 0 else ''}"
            f"{abs(loss):.1%} {'worse' if loss > 0 else 'better'}). The difference is below the model's error: "
            "the cheaper design is as good an answer (the frontier row picker below opens it).")


def _band(res: dict, score) -> str:
    """The recommended design's latency band (published rows like it), from its simulation."""
    run = res["run"]
    r = w.guarded(st, simulate, res["model"], score.hw.to_hardware(res["hw"]), score.par, run.workload(),
                  runtime=run.runtime)
    return r.band.describe(r.total_latency_ns, fmt_time) if r is not None and r.band else ""


def _edges(res: dict) -> list[str]:
    """"Widen the grid" notes for a custom grid whose answer sits at an edge (the sensitivity is
    at the best design only: at the base it says nothing about the answer's edge)."""
    jr, run = res["outcome"].result, res["run"]
    if run.inputs.get("depth") != "custom" or run.inputs.get("design_point") != "best":
        return []
    gains = {r.knob: (r.rel_speedup, r.rel_gain_halved) for r in jr.sensitivity}
    return edge_notes(run.inputs.get("grid"), jr.best.hw.knobs(), gains)


def _point_buttons(open_col, pin_col, res: dict, score, tag: str) -> None:
    base, run = res["hw"], res["run"]
    topo = dict(zip(TOPOLOGY_KNOBS, score.hw.topology_of(base)))
    # the sidebar's keys are the preset's (the base may carry an edited name)
    open_col.button("Open in Simulate", key=f"btn_cd_open_{tag}", on_click=state.open_in_simulate,
                    args=(score.par.to_dict(), res["base_hw"].name, score.hw.knobs(), topo, run.inputs["workload"]),
                    kwargs={"note": f"co-design {tag}: hardware knobs and parallelism"},
                    help="Fill Simulate's controls and the sidebar's knobs with this design.")
    pin_col.button("Pin to Compare", key=f"btn_cd_pin_{tag}", on_click=_pin, args=(res, score), icon=":material/push_pin:",
                   help="Keep this design for the Compare tab.")


def _pin(res: dict, score) -> None:
    base, run = res["hw"], res["run"]
    hw = renamed(score.hw.to_hardware(base), res["base_hw"])
    r = simulate(res["model"], hw, score.par, run.workload(), runtime=run.runtime)
    knobs = hardware_phrase(score.hw.knobs())
    state.add_pin(pins.from_sim("Co-design", r, hw, res["base_hw"], capex_usd=score.system_cost_usd,
                                label=f"Co-design: {score.par.describe()} on {knobs}"))


# ----- charts and tables ----------------------------------------------------------------------------
def _chart(res: dict, xaxis: str) -> None:
    jr = res["outcome"].result
    y, y_title = AXIS[jr.objective]
    x, x_title, log_x = COST_AXES[xaxis]
    frontier = res["usd"] if x == "system_cost_usd" else res["cap"]
    left, right = st.columns([3, 2])
    n = len(jr.all_scores)
    colour = _colour_by(left, res)
    fig = charts.codesign_scatter(res["points"], frontier, x, y, x_title, y_title, colour=colour, log_x=log_x,
                                  best=jr.pick.to_dict())
    left.plotly_chart(fig, key="fig_cd_pareto")
    ties = fig.layout.meta["tied_points_spread"]
    if ties:
        left.caption(f"{ties} candidates tie with another on both axes (they differ only in knobs this "
                     "deployment does not use): their dots are spread slightly so each can be hovered.")
    if n > len(res["points"]):
        left.caption(f"drawn: {len(res['points']):,} of the {n:,} kept pairs (the best {MAX_POINTS // 4:,} "
                     "and an even spread of the rest); the frontier uses all of them")
    right.plotly_chart(charts.sensitivity_bar(jr.sensitivity, jr.objective), key="fig_cd_sensitivity")


def _colour_by(where, res: dict) -> str:
    """Colour the points by a second dimension; default: the knob that matters most here (the
    top of the sensitivity ranking), so the candidates' bands are told apart."""
    pts, jr = res["points"], res["outcome"].result
    varying = [c for c in pts.columns if c.startswith("hw_") and pts[c].nunique() > 1]
    options = varying + (["pes"] if pts["pes"].nunique() > 1 else [])
    if not options:
        return "pes"
    top = next((f"hw_{r.knob}" for r in jr.sensitivity if f"hw_{r.knob}" in options), options[0])
    return w.select(where, "Colour the points by", options, "cd_colour", top, help_key="cd_colour",
                    format_func=label)


def _frontier_table(res: dict, xaxis: str) -> pd.DataFrame:
    jr = res["outcome"].result
    scores = jr.pareto_usd_scores if COST_AXES[xaxis][0] == "system_cost_usd" else jr.pareto_scores
    rows = []
    for s in scores:
        row = {} if jr.objective == "latency" else {jr.objective: s.objective_value}
        row.update({"latency (ms)": s.total_latency_ns / 1e6, "tok/s": s.tokens_per_s,
                    "system cost ($)": s.system_cost_usd, "power (kW)": s.system_power_w / 1e3,
                    "cost_score": s.cost_score, "PEs": s.pes, "parallelism": pins.par_text(s.par)})
        row.update({SHORT[k]: v for k, v in s.hw.knobs().items()})
        row.update({k: v for k, v in zip(TOPOLOGY_KNOBS, s.hw.topology_of(res["hw"]))})
        rows.append(row)
    return pd.DataFrame(rows)


def _tables(res: dict, xaxis: str) -> None:
    jr = res["outcome"].result
    scores = jr.pareto_usd_scores if COST_AXES[xaxis][0] == "system_cost_usd" else jr.pareto_scores
    st.subheader(f"Pareto frontier: {label(jr.objective)} vs {xaxis} ({len(scores)} designs)")
    st.dataframe(_frontier_table(res, xaxis), hide_index=True, key="tbl_cd_frontier",
                 column_config={"latency (ms)": st.column_config.NumberColumn(format="%.3f"),
                                "tok/s": st.column_config.NumberColumn(format="%.1f"),
                                "system cost ($)": st.column_config.NumberColumn(format="localized", step=1),
                                "power (kW)": st.column_config.NumberColumn(format="%.2f")})
    c = st.columns([3, 1, 1])
    i = w.select(c[0], "Frontier row", list(range(len(scores))), "cd_row", 0, help_key="row",
                 format_func=lambda k: f"#{k + 1} {scores[k].par.describe()}, "
                                       f"{fmt_time(scores[k].total_latency_ns)}, {fmt_usd(scores[k].system_cost_usd)}")
    _point_buttons(c[1], c[2], res, scores[i], "row")
    d = jr.design_point
    st.subheader(f"Sensitivity at the {res['run'].inputs['design_point']} hardware "
                 f"({fmt_objective(jr.objective, jr.design_value)}): one knob ×0.5 / ×2, parallelism "
                 f"re-searched under {label(jr.objective)}")
    st.dataframe(pd.DataFrame([{"knob": label(r.knob), "value": getattr(d, r.knob),
                                "×0.5": fmt_objective(jr.objective, r.halved_value),
                                "×2": fmt_objective(jr.objective, r.doubled_value),
                                "gain ×2 (%)": 100 * r.rel_speedup, "gain ×0.5 (%)": 100 * r.rel_gain_halved,
                                "elasticity": r.elasticity, "+$ per PE ×2": r.doubled_capex_usd_per_pe}
                               for r in jr.sensitivity]), hide_index=True, key="tbl_cd_sensitivity",
                 column_config={c: st.column_config.NumberColumn(format="%.1f")
                                for c in ("gain ×2 (%)", "gain ×0.5 (%)")})
    if jr.requirements:
        st.caption(f"What it takes: each knob alone, to reach {fmt_objective(jr.objective, jr.target_value)}")
        st.dataframe(pd.DataFrame([{"knob": label(q.knob), "needed": q.knob_value, "× design": q.multiplier,
                                    "reaches": fmt_objective(jr.objective, q.reached_value)
                                    if q.reached_value else "not reachable by ×16"}
                                   for q in jr.requirements]), hide_index=True, key="tbl_cd_requirements")


def _downloads(res: dict) -> None:
    jr = res["outcome"].result
    n = len(jr.all_scores)
    what = (f"the best pair of each of the {jr.n_hardware:,} hardware candidates ({n:,} rows) — of "
            f"{jr.total_joint:,} fitting pairs searched")
    w.download_csv(st, f"Download kept pairs (CSV, {n:,} rows)",
                   lambda: jr.to_pandas("all").to_csv(index=False),
                   "infersim-codesign-pairs.csv", "dl_cd_csv", help=f"One row per kept pair: {what}.")
    st.caption(f"CSV: {what}.")


def render(inp: Inputs) -> None:
    card = w.card(TAB)
    if (msg := state.flash()):
        card.caption(msg)
    if w.radio(st, "Co-design for", MODES, "cd_mode", horizontal=True) == MODES[1]:
        tabs_codesign_sla.render(inp, card)
        return
    ctl = w.guarded(card, _controls, inp)
    n = w.guarded(card, candidates, inp, ctl[0], ctl[4]) if ctl else None
    c = st.columns([1, 1, 3])
    c[0].metric("Hardware candidates", "–" if n is None else f"{n:,}",
                help=f"Grid size, computed from the value lists (cap {MAX_CANDIDATES:,}).")
    clicked = c[1].button("Run co-design sweep", key="btn_cd_run", type="primary",
                          disabled=n is None or inp.wl is None,
                          help="Sweep every candidate (each searches the full parallelism space).")
    if inp.wl is None:
        card.error(inp.wl_error)
        return
    stamp = None
    if ctl is not None and n is not None:
        depth, objective, _, design, grid = ctl
        stamp = inp.stamp(depth=depth, objective=objective, design=design,
                          grid=grid if depth == "custom" else None)
        if clicked:
            state.run_and_store(TAB, stamp, lambda: _run(inp, depth, objective, design, grid, card))
            state.ran(TAB)
        else:                                        # first visit: answer at once if it is quick
            state.first_visit(TAB, stamp, lambda budget: _run(inp, depth, objective, design, grid, card, budget))
    shown = w.shown_result(card, TAB, stamp, "Run co-design sweep")
    if shown is None:
        if state.get_result(TAB) is None:
            w.ask_to_run(card, TAB, "Run co-design sweep", f"it sweeps {n or 0:,} hardware candidates, each "
                         "searching the full parallelism space")
        return
    res, note = shown
    xaxis = st.session_state.get("cd_x", "system cost ($)")
    _card(card, res, note)
    _chart(res, xaxis)
    _tables(res, xaxis)
    _downloads(res)
    w.scroll_into_view(TAB)
