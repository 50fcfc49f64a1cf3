"""Plotly figures for notebooks and the UI: one implementation, pure functions of results.

Every figure has axis titles with units and hover text that names the full configuration.
``plot(result)`` picks the natural figure for any result type (``result.plot()`` calls it).
Needs the ``ui`` extra (plotly, pandas).
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from infersim.cost import COMPONENTS
from infersim.errors import InferSimError

if TYPE_CHECKING:
    import plotly.graph_objects as go

# one colour per breakdown component, stable across charts
COMPONENT_COLOURS = {
    "compute": "#1f77b4", "hbm": "#ff7f0e", "kernel_floor": "#aec7e8", "tp_allreduce": "#2ca02c",
    "ffn_allreduce": "#98df8a", "kv_seq_combine": "#9467bd", "cp_combine": "#c5b0d5",
    "ep_alltoall": "#8c564b", "pp_p2p": "#e377c2", "lm_head_gather": "#bcbd22", "cp_ring": "#d62728",
    "collective_calls": "#dbdb8d",
    "pp_bubble": "#f7b6d2", "kernel_gaps": "#7f7f7f", "host_launch": "#c7c7c7", "step_fixed": "#17becf",
    "seq_host": "#9edae5",
}
CP_SYMBOLS = ("circle", "square", "diamond", "triangle-up", "cross", "x", "star", "hexagon", "pentagon",
              "triangle-down", "hourglass", "star-square", "triangle-left", "bowtie", "hexagram")
OTHER_CP_SYMBOL = "asterisk-open"


def _tick_text(v: float, unit: str = "", money: bool = False) -> str:
    """A whole tick label: ``50 ms``, ``0.2 ms``, ``$100k``, ``$2.5M``, ``2,000`` (never the bare
    leading digit Plotly writes between decades)."""
    for at, suffix in ((1e9, "G"), (1e6, "M"), (1e4, "k")):
        if abs(v) >= at:
            v, sfx = v / (at if at != 1e4 else 1e3), suffix
            break
    else:
        sfx = ""
    num = f"{v:,.0f}" if abs(v) >= 100 else f"{v:.3g}"
    text = f"${num}{sfx}" if money else f"{num}{sfx}"
    return f"{text} {unit}".rstrip()


def _label(field: str) -> str:
    from infersim.report.labels import label

    return label(field)


def log_axis(values, unit: str = "", money: bool = False, **kw) -> dict:
    """A log axis whose every tick is labelled in full with its unit: ticks at 1-2-5 × 10^k over
    the data (1-3 × 10^k past three decades, powers of ten past six; every mantissa below one
    decade). ``kw`` are more axis settings (title, …)."""
    v = np.asarray([x for x in np.ravel(np.asarray(values, dtype=float)) if np.isfinite(x) and x > 0])
    axis = dict(type="log", **kw)
    if not len(v):
        return axis
    lo, hi = float(v.min()), float(v.max())
    decades = math.log10(hi / lo) if hi > lo else 0.0
    mantissas = ((1, 2, 3, 4, 5, 6, 7, 8, 9) if decades < 1 else (1, 2, 5) if decades <= 3 else
                 (1, 3) if decades <= 6 else (1,))
    ticks = [float(f"{m * 10.0 ** k:.6g}") for k in range(math.floor(math.log10(lo)) - 1, math.ceil(math.log10(hi)) + 1)
             for m in mantissas]
    ticks = [t for t in ticks if lo / 1.25 <= t <= hi * 1.25] or [lo, hi]
    axis.update(tickvals=ticks, ticktext=[_tick_text(t, unit, money) for t in ticks])
    return axis


def _go():
    try:
        import plotly.graph_objects as go
    except ImportError:
        raise InferSimError("plots need the 'ui' extra: pip install 'infersim[ui]'") from None
    return go


def breakdown_bars(breakdowns: dict[str, dict[str, float]], title: str = "Latency breakdown") -> "go.Figure":
    """One stacked horizontal bar per labelled breakdown (ms), all on one scale."""
    go = _go()
    fig = go.Figure()
    labels = list(breakdowns)
    for name in COMPONENTS:
        vals = [breakdowns[label].get(name, 0.0) / 1e6 for label in labels]
        if any(v > 0 for v in vals):
            fig.add_trace(go.Bar(x=vals, y=labels, name=name, orientation="h",
                                 marker_color=COMPONENT_COLOURS[name],
                                 hovertemplate=f"{name}: %{{x:.4g}} ms<extra>%{{y}}</extra>"))
    # legend on the right: below the bars it would cover the axis title of a short chart
    fig.update_layout(barmode="stack", title=title, xaxis_title="time (ms)", yaxis=dict(automargin=True),
                      height=max(280, 140 + 45 * len(labels)), margin=dict(l=10, r=10, t=50, b=40),
                      legend=dict(traceorder="normal", font=dict(size=11)))
    return fig


def breakdown_bar(breakdown_ns: dict[str, float], title: str) -> "go.Figure":
    """One configuration's latency, stacked by component (ms)."""
    return breakdown_bars({"latency": breakdown_ns}, title)


def memory_bar(parts_bytes: dict[str, float], usable_bytes: float, hbm_bytes: float) -> "go.Figure":
    """Memory per PE stacked by part, against the usable and the physical capacity (GB)."""
    go = _go()
    fig = go.Figure()
    colours = {"weights": "#1f77b4", "kv_cache": "#ff7f0e", "workspace": "#2ca02c"}
    for k, v in parts_bytes.items():
        fig.add_trace(go.Bar(x=[v / 1e9], y=["per PE"], name=k, orientation="h", marker_color=colours.get(k),
                             hovertemplate=f"{k}: %{{x:.2f}} GB<extra></extra>"))
    fig.add_vline(x=usable_bytes / 1e9, line_dash="dash", line_color="black",
                  annotation_text="usable", annotation_position="top")
    fig.add_vline(x=hbm_bytes / 1e9, line_color="red", annotation_text="HBM", annotation_position="bottom")
    fig.update_layout(barmode="stack", title="Memory per PE", xaxis_title="memory per PE (GB)", height=280,
                      margin=dict(l=10, r=10, t=50, b=40), legend=dict(traceorder="normal"))
    return fig


def memory_bars(parts: dict[str, dict[str, float]], usable: dict[str, float] | None = None,
                title: str = "Memory per PE") -> "go.Figure":
    """Memory per PE of several labelled configurations on one scale (GB), stacked by part,
    each with a tick at its usable capacity."""
    go = _go()
    fig = go.Figure()
    labels = list(parts)
    colours = {"weights": "#1f77b4", "kv_cache": "#ff7f0e", "workspace": "#2ca02c"}
    names = list(dict.fromkeys(k for p in parts.values() for k in p))
    for k in names:
        fig.add_trace(go.Bar(x=[parts[lab].get(k, 0.0) / 1e9 for lab in labels], y=labels, name=k,
                             orientation="h", marker_color=colours.get(k),
                             hovertemplate=f"{k}: %{{x:.2f}} GB<extra>%{{y}}</extra>"))
    if usable:
        fig.add_trace(go.Scatter(x=[usable[lab] / 1e9 for lab in labels if lab in usable],
                                 y=[lab for lab in labels if lab in usable], mode="markers",
                                 name="usable capacity", marker=dict(symbol="line-ns-open", size=26,
                                                                     line_width=3, color="black"),
                                 hovertemplate="usable: %{x:.1f} GB<extra>%{y}</extra>"))
    fig.update_layout(barmode="stack", title=title, xaxis_title="memory per PE (GB)",
                      yaxis=dict(automargin=True), height=max(280, 140 + 45 * len(labels)),
                      margin=dict(l=10, r=10, t=50, b=40), legend=dict(traceorder="normal"))
    return fig


def _spread_ties(x: np.ndarray, y: np.ndarray, log_x: bool) -> tuple[np.ndarray, int]:
    """x positions that pull apart points with the same (x, y): candidates that differ only in a
    knob the deployment does not use (an 8-GPU node's inter-node links) cost and perform the
    same; each gets its own dot, in a small cluster, so each can be hovered. Returns the new x
    and how many points were moved."""
    x = np.asarray(x, dtype=float)
    out, moved = x.copy(), 0
    keys = np.round(np.c_[np.log10(np.maximum(x, 1e-300)), np.log10(np.maximum(np.abs(y), 1e-300))], 6)
    _, inverse, counts = np.unique(keys, axis=0, return_inverse=True, return_counts=True)
    span = (np.nanmax(x) - np.nanmin(x)) or max(abs(float(np.nanmax(x))), 1.0)
    for g in np.flatnonzero(counts > 1):
        idx = np.flatnonzero(inverse.ravel() == g)
        offsets = np.arange(len(idx)) - (len(idx) - 1) / 2
        out[idx] = x[idx] * (1 + 0.006 * offsets) if log_x else x[idx] + 0.004 * span * offsets
        moved += len(idx)
    return out, moved


def codesign_scatter(points, frontier, x: str, y: str, x_title: str, y_title: str,
                     colour: str = "pes", log_x: bool = True, best=None) -> "go.Figure":
    """Co-design pairs ``y`` against ``x`` (DataFrames of ``JointScore.to_dict()`` rows): each
    point coloured by ``colour`` (a hardware knob or the PEs used), ties pulled apart (see
    :func:`_spread_ties`; hover shows the true values), the frontier drawn, ``best`` (a row
    dict) starred; hover names every hardware knob, the parallelism and the numbers."""
    go = _go()
    fig = go.Figure()
    # the knobs the candidates differ in, the one they are coloured by first
    hw_cols = tuple(c for c in points.columns if c.startswith("hw_") and points[c].nunique() > 1)
    hw_cols = tuple(dict.fromkeys(([colour] if colour in hw_cols else []) + list(hw_cols)))
    num_cols = (y, x, "total_latency_ms", "tokens_per_s", "pes")
    custom, hover = _config_hover(points, num_cols + hw_cols)
    xs, moved = _spread_ties(points[x].values, points[y].values, log_x)
    fig.add_trace(go.Scatter(
        x=xs, y=points[y], mode="markers", name="hardware candidates", customdata=custom,
        marker=dict(size=9, opacity=0.8, color=points[colour], colorscale="Viridis", showscale=True,
                    colorbar=dict(title=_label(colour), thickness=12), line=dict(width=0.5, color="#333")),
        hovertemplate=hover + "<extra></extra>"))
    if len(frontier):
        f = frontier.sort_values(x)
        fig.add_trace(go.Scatter(x=f[x], y=f[y], mode="lines", name="Pareto frontier", hoverinfo="skip",
                                 line=dict(shape="hv", color="#d62728", width=2)))
    if best is not None:
        fig.add_trace(go.Scatter(x=[best[x]], y=[best[y]], mode="markers", name="recommended",
                                 marker=dict(size=20, symbol="star", color="#d62728",
                                             line=dict(width=1, color="black")),
                                 hovertemplate="recommended<extra></extra>"))
    money = x.endswith("_usd")
    xaxis = log_axis(points[x], money=money, title=x_title) if log_x else dict(title=x_title, type="linear")
    fig.update_layout(title=f"{y_title} vs {x_title}", xaxis=xaxis,
                      yaxis_title=y_title, height=500, legend=dict(orientation="h", y=-0.2),
                      title_font_size=15, meta={"tied_points_spread": moved})     # fits a 1280-wide column
    return fig


def roofline(result, hw) -> "go.Figure":
    """Each operator of a :class:`~infersim.simulate.SimResult` at its arithmetic intensity
    (flops per HBM byte) and attained rate (TFLOP/s), under the hardware's roofs:
    min(peak, bandwidth × intensity) for bf16 and, where the part has it, fp8."""
    go = _go()
    fig = go.Figure()
    names = [n for n, t in result.op_times_ns.items() if t > 0 and result.op_flops.get(n, 0) > 0]
    ai = np.array([result.op_flops[n] / max(result.op_bytes[n], 1.0) for n in names])
    rate = np.array([result.op_flops[n] / result.op_times_ns[n] / 1e3 for n in names])   # TFLOP/s
    lo, hi = (min(ai.min(), 1.0) / 2, max(ai.max(), 1e4) * 2) if len(names) else (0.1, 1e4)
    xs = np.logspace(math.log10(lo), math.log10(hi), 200)
    bw_tb = hw.bw_hbm_gbs / 1e3
    for label, peak in (("bf16 roof", hw.peak_tflops_f16), ("fp8 roof", hw.peak_tflops_f16 * hw.fp8_speedup)):
        if label == "fp8 roof" and hw.fp8_speedup <= 1:
            continue
        fig.add_trace(go.Scatter(x=xs, y=np.minimum(peak, bw_tb * xs), mode="lines", name=label,
                                 line=dict(dash="dash" if "fp8" in label else "solid", color="#555"),
                                 hovertemplate="%{y:.0f} TFLOP/s at %{x:.3g} flop/B<extra>" + label + "</extra>"))
    # labels alternate above / below along the intensity axis so that neighbours do not overlap
    order = np.argsort(ai) if len(names) else np.array([], dtype=int)
    where = np.empty(len(names), dtype=object)
    where[order] = [("top center", "bottom center", "middle right", "middle left")[i % 4] for i in range(len(names))]
    fig.add_trace(go.Scatter(x=ai, y=rate, mode="markers+text", text=names, textposition=list(where),
                             name="operators", marker=dict(size=10, color="#d62728"),
                             customdata=[[result.op_times_ns[n] / 1e3] for n in names],
                             hovertemplate="%{text}: %{y:.1f} TFLOP/s at %{x:.3g} flop/B, "
                                           "%{customdata[0]:.3g} µs per step<extra></extra>"))
    fig.update_layout(title=f"Roofline: {result.par.describe()} on {result.hardware}",
                      xaxis=log_axis([lo, hi], title="arithmetic intensity (flop per HBM byte)"),
                      yaxis=log_axis(np.r_[rate, hw.peak_tflops_f16], title="attained rate (TFLOP/s per PE)"),
                      height=460)
    return fig


#: the most fields a hover shows (issue 27: a hover of 25 raw fields is unreadable)
MAX_HOVER_FIELDS = 8


def _par_strings(df) -> np.ndarray:
    """One "TP8 CP1 PP1 DP1 (EP2, head/TP+CP)" string per row: the parallelism as a single hover field."""
    def one(r) -> str:
        extra = [f"EP{int(r['ep'])}"] if "ep" in r and r["ep"] > 1 else []
        extra += [str(r[c]) for c in ("kv_shard_mode", "ffn_shard_scope") if c in r]
        return (f"TP{int(r['tp'])} CP{int(r['cp'])} PP{int(r['pp'])} DP{int(r['dp'])}"
                + (f" ({', '.join(extra)})" if extra else ""))
    return np.array([one(r) for r in df.to_dict("records")], dtype=object)


def _config_hover(df, cols) -> tuple[np.ndarray, str]:
    """customdata and a hovertemplate fragment: the parallelism as one field (when the frame has
    it), then the first of ``cols`` up to :data:`MAX_HOVER_FIELDS` in all, each with its human
    label (:mod:`infersim.report.labels`) and numbers to four significant digits."""
    from infersim.report.labels import label

    par = all(c in df.columns for c in ("tp", "cp", "pp", "dp"))
    cols = [c for c in dict.fromkeys(cols) if c in df.columns and c not in PAR_COLS]
    cols = cols[:MAX_HOVER_FIELDS - par]
    numeric = {c for c in cols if df[c].dtype.kind in "fi"}
    parts = [f"{label(c)}: %{{customdata[{i}]{':,.4~g' if c in numeric else ''}}}" for i, c in enumerate(cols)]
    data = df[cols].to_numpy(dtype=object) if cols else np.empty((len(df), 0), dtype=object)
    if par:
        parts.append(f"parallelism: %{{customdata[{len(cols)}]}}")
        data = np.c_[data, _par_strings(df)]
    return data, "<br>".join(parts)


PAR_COLS = ("tp", "cp", "pp", "dp", "ep", "microbatches", "kv_shard_mode", "ffn_shard_scope",
            "tp_placement", "cp_placement", "cp_ring_variant")


def _pe_ticks(pes) -> list[int]:
    """Ticks at the PE counts used, not only the powers of two: every one when they fit, else
    the extremes and powers of two first, then the others wherever ~0.07 decades are free."""
    used = sorted(set(int(v) for v in pes))
    if len(used) <= 16:
        return used
    pow2 = [t for t in used if t & (t - 1) == 0]
    order = [used[0], used[-1]] + pow2 + sorted(set(used) - set(pow2), key=lambda t: (t % 8 != 0, t))
    keep: list[int] = []
    for t in order:
        if t not in keep and all(abs(math.log10(t) - math.log10(k)) >= 0.07 for k in keep):
            keep.append(t)
    return sorted(keep)


def _cp_symbols(cps) -> tuple[dict, list[tuple[str, str]]]:
    """A distinct shape per CP degree while the shapes last; the largest degrees beyond them
    share one shape and one legend entry naming their range (a shape never means two things)."""
    own = list(cps[:len(CP_SYMBOLS)])
    symbol = {cp: CP_SYMBOLS[i] for i, cp in enumerate(own)}
    legend = [(f"CP{cp}", symbol[cp]) for cp in own]
    rest = list(cps[len(CP_SYMBOLS):])
    if rest:
        symbol.update({cp: OTHER_CP_SYMBOL for cp in rest})
        legend.append((f"CP{rest[0]}–{rest[-1]}", OTHER_CP_SYMBOL))
    return symbol, legend


def explore_scatter(df, picks: dict | None = None) -> "go.Figure":
    """Latency vs PEs used (both log): colour = TP degree, marker shape = CP degree. The legend
    has one colour swatch per TP and one grey shape per CP (legend-only entries: a data trace's
    legend icon would show its first point's shape); ``picks`` maps a label ("fastest",
    "least memory") to a row dict to ring."""
    go = _go()
    fig = go.Figure()
    cps = sorted(df["cp"].unique())
    symbol, cp_legend = _cp_symbols(cps)
    custom, hover = _config_hover(df, PAR_COLS + ("mem_per_pe_gb",))
    palette = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
               "#bcbd22", "#17becf")
    tps = sorted(df["tp"].unique())
    colour = {tp: palette[i % len(palette)] for i, tp in enumerate(tps)}
    for tp in tps:
        m = (df["tp"] == tp).values
        fig.add_trace(go.Scatter(
            x=df["pes"][m], y=df["latency_ms"][m], mode="markers", name=f"TP{tp}", showlegend=False,
            legendgroup=f"tp{tp}", customdata=custom[m],
            marker=dict(size=9, opacity=0.8, color=colour[tp], symbol=[symbol[c] for c in df["cp"][m]],
                        line=dict(width=0.5, color="#333")),
            hovertemplate="%{y:.4g} ms on %{x} PEs<br>" + hover + "<extra></extra>"))
    for tp in tps:      # legend: colour = TP
        fig.add_trace(go.Scatter(x=[None], y=[None], mode="markers", name=f"TP{tp}", legendgroup=f"tp{tp}",
                                 legendgrouptitle_text="TP (colour)" if tp == tps[0] else None,
                                 marker=dict(size=10, color=colour[tp], symbol="square")))
    for name, sym in cp_legend:      # legend: shape = CP
        fig.add_trace(go.Scatter(x=[None], y=[None], mode="markers", name=name, legendgroup="cp",
                                 legendgrouptitle_text="CP (shape)",
                                 marker=dict(size=10, color="#888", symbol=sym)))
    for i, (label, row) in enumerate((picks or {}).items()):
        colour = ("#d62728", "#2ca02c", "#9467bd")[i % 3]
        fig.add_trace(go.Scatter(x=[row["pes"]], y=[row["latency_ms"]], mode="markers+text", name=label,
                                 text=[label], textposition=("bottom left", "top left", "middle right")[i % 3],
                                 textfont=dict(color=colour, size=13), legendrank=1,
                                 marker=dict(size=22, symbol="circle-open", line_width=3, color=colour),
                                 hovertemplate=f"{label}: %{{y:.4g}} ms on %{{x}} PEs<extra></extra>"))
    fig.update_layout(title="Latency vs PEs used", xaxis_title="PEs used", yaxis_title="latency (ms)",
                      xaxis=dict(type="log", tickvals=_pe_ticks(df["pes"])),
                      yaxis=log_axis(df["latency_ms"], "ms"), height=520,
                      legend=dict(font=dict(size=11), tracegroupgap=4))
    return fig


def _signed_pct(v: float) -> str:
    return "0%" if abs(v) < 0.05 else f"{v:+.1f}%"


def sensitivity_bar(rows, objective: str | None = None) -> "go.Figure":
    """Gain of the objective when one knob doubles (and, where measured, halves), ranked; every
    bar is labelled, 0% included, and the range leaves room for the labels."""
    go = _go()
    knobs = [getattr(r, "label", None) or _label(r.knob) for r in rows][::-1]
    doubled = [100 * r.rel_speedup for r in rows][::-1]
    halved = [100 * getattr(r, "rel_gain_halved", math.nan) for r in rows][::-1]
    fig = go.Figure()
    series = [("×2", doubled, "#1f77b4")]
    if any(math.isfinite(v) for v in halved):
        series.append(("×0.5", halved, "#ff7f0e"))
    for name, vals, colour in series:
        fig.add_trace(go.Bar(x=vals, y=knobs, orientation="h", name=name, marker_color=colour,
                             text=[_signed_pct(v) if math.isfinite(v) else "n/a" for v in vals],
                             textposition="outside", cliponaxis=False,
                             hovertemplate="%{y} " + name + ": %{x:+.2f}%<extra></extra>"))
    finite = [v for _, vals, _ in series for v in vals if math.isfinite(v)] or [0.0]
    lo, hi = min(min(finite), 0.0), max(max(finite), 0.0)
    pad = 0.3 * ((hi - lo) or 1.0)
    what = _label(objective) if objective else "the objective"
    fig.update_layout(title=f"Sensitivity of {what}: one knob ×2 / ×0.5",
                      xaxis=dict(title=f"{what} improvement (%)", range=[lo - (pad if lo < 0 else 0.05 * pad),
                                                                    hi + pad], zeroline=True),
                      yaxis=dict(automargin=True), barmode="group",
                      height=180 + (45 if len(series) > 1 else 30) * len(knobs),
                      margin=dict(l=10, r=40, t=50, b=40), legend=dict(orientation="h", y=-0.25))
    return fig


def interactivity_pareto(sla) -> "go.Figure":
    """Throughput vs interactivity of an :class:`~infersim.serving.sla.SLAResult`: tokens/s per PE
    against tokens/s per user, the frontier drawn, the SLA region shaded (per-user speed at
    least 1000 / TPOT limit), frontier points coloured by whether they meet the whole SLA (TTFT
    too), the best and the disaggregated deployment marked."""
    go = _go()
    fig = go.Figure()
    pts = sla.pareto
    fig.add_trace(go.Scatter(
        x=[p.tok_s_per_user for p in pts], y=[p.tok_s_per_pe for p in pts], mode="lines+markers",
        name="Pareto frontier", line=dict(shape="hv", color="#1f77b4"),
        marker=dict(size=8, color=["#2ca02c" if p.meets_sla else "#aaaaaa" for p in pts],
                    line=dict(width=1, color="#1f77b4")),
        customdata=[[p.par.describe(), p.batch, p.ttft_ms, p.tpot_ms, p.pes,
                     "meets the SLA" if p.meets_sla else "misses the SLA"] for p in pts],
        hovertemplate="%{customdata[0]} (%{customdata[4]} PEs), batch %{customdata[1]}<br>"
                      "%{x:.1f} tok/s/user, %{y:.1f} tok/s/PE<br>TTFT %{customdata[2]:,.0f} ms, "
                      "TPOT %{customdata[3]:.1f} ms: %{customdata[5]}<extra></extra>"))
    top = max([p.tok_s_per_user for p in pts] + [1]) * 1.1
    if sla.tpot_limit_ms and 1000.0 / sla.tpot_limit_ms < top:
        fig.add_vrect(x0=1000.0 / sla.tpot_limit_ms, x1=top,
                      fillcolor="green", opacity=0.08, line_width=0,
                      annotation_text=f"TPOT ≤ {sla.tpot_limit_ms:g} ms", annotation_position="top left")
    elif sla.tpot_limit_ms:     # an impossible TPOT: say where it lies, keep the axis on the data
        fig.add_annotation(x=1, xref="paper", y=1, yref="paper", xanchor="right", showarrow=False,
                           text=f"TPOT ≤ {sla.tpot_limit_ms:g} ms needs ≥ {1000.0 / sla.tpot_limit_ms:,.0f} "
                                "tok/s per user: beyond every deployment →")
    for label, p, colour in (("best (aggregated)", sla.best, "#d62728"),
                             ("disaggregated", sla.disaggregated, "#2ca02c")):
        if p is not None:
            fig.add_trace(go.Scatter(x=[p.tok_s_per_user], y=[p.tok_s_per_pe], mode="markers", name=label,
                                     marker=dict(size=16, symbol="star", color=colour),
                                     hovertemplate=f"{label}: %{{x:.1f}} tok/s/user, %{{y:.1f}} tok/s/PE"
                                                   "<extra></extra>"))
    fig.update_layout(title=f"Throughput vs interactivity: {sla.model} on {sla.hardware}",
                      xaxis_title="tokens/s per user", yaxis_title="tokens/s per PE", height=460)
    return fig


def plot(result, **kw) -> "go.Figure":
    """The natural figure of any result: its own ``plot()`` (breakdown for a simulation,
    latency vs PEs for an exploration, the frontier for a sweep or an SLA search). This module
    knows figures, not result types: each result picks its figure here."""
    if not callable(getattr(result, "plot", None)):
        raise InferSimError(f"no natural plot for {type(result).__name__}")
    return result.plot(**kw)


def codesign_pareto(all_df, pareto_df, x: str = "cost_score", y: str = "total_latency_ms") -> "go.Figure":
    """Every kept (hardware, parallelism) pair and the frontier, ``y`` against ``x``; hover names
    the hardware knobs and the parallelism of each point."""
    go = _go()
    fig = go.Figure()
    hw_cols = [c for c in all_df.columns if c.startswith("hw_")]
    for df, name, style in ((all_df, "pairs", dict(size=7, color="#9ab", opacity=0.6)),
                            (pareto_df.sort_values(x), "Pareto frontier", dict(size=10, color="#d62728"))):
        custom, hover = _config_hover(df, tuple(hw_cols) + PAR_COLS + ("pes",))
        fig.add_trace(go.Scatter(
            x=df[x], y=df[y], name=name, customdata=custom,
            mode="markers" if name == "pairs" else "lines+markers", marker=style,
            line=dict(shape="hv", color="#d62728", width=2) if name != "pairs" else None,
            hovertemplate=f"{x} %{{x:.4g}}, {y} %{{y:.4g}}<br>" + hover + "<extra></extra>"))
    fig.update_layout(title=f"Pareto frontier: {y} vs {x}", xaxis_title=x, yaxis_title=y, height=480)
    return fig


#: SLA co-design objective → its axis title (the unit in brackets)
SLA_AXIS = {"tok_s_per_usd": "tokens per $ of TCO (tok/$)", "tok_s_per_w": "tokens/s per W of system power (tok/s/W)",
            "tok_s_per_pe": "tokens/s per PE (tok/s/PE)", "tok_s": "tokens/s of the system, filled with replicas (tok/s)"}
_SHORT_KNOBS = {"pe_hbm_gb": "HBM GB", "bw_hbm_gbs": "HBM GB/s", "peak_tflops_f16": "TFLOPS",
                "bw_intra_gbs": "intra GB/s", "bw_inter_gbs": "inter GB/s", "bw_intersip_gbs": "SiP GB/s"}


def _sla_hover(designs, objective: str, unit: str) -> tuple[list, str]:
    """customdata rows and the hover template of SLA co-design points: every knob (and the
    system size a grid varies), the deployment, its latencies, tokens/s, capex, the objective."""
    rows = []
    for d in designs:
        p = d.point
        knobs = ", ".join(f"{_SHORT_KNOBS.get(k, k)} {v:,g}" for k, v in d.hw.knobs().items())
        topo = ", ".join(f"{k} {v}" for k, v in d.hw.topology_overrides().items())
        rows.append([knobs + (f"<br>{topo}" if topo else ""), p.par.describe(), p.batch, p.pes, p.ttft_ms,
                     p.tpot_ms, p.tok_s, p.tok_s_per_pe, d.capex_usd, d.value(objective)])
    hover = ("%{customdata[0]}<br>%{customdata[1]} at batch %{customdata[2]} on %{customdata[3]} PE(s)<br>"
             "TTFT %{customdata[4]:,.0f} ms, TPOT %{customdata[5]:.1f} ms<br>%{customdata[6]:,.0f} tok/s "
             "(%{customdata[7]:,.1f}/PE), capex $%{customdata[8]:,.0f}<br><b>%{customdata[9]:,.4g} " + unit + "</b>")
    return rows, hover


def sla_codesign(res) -> "go.Figure":
    """SLA co-design: each hardware candidate meeting the SLA, its objective against its
    deployment's capex, the frontier drawn, the best starred; ties pulled apart so each can be
    hovered (hover shows the true values and names the knobs and the deployment)."""
    go = _go()
    ok = sorted((d for d in res.designs if d.point), key=lambda d: d.capex_usd)
    y_title = SLA_AXIS.get(res.objective, res.unit)
    capex = np.array([d.capex_usd for d in ok], dtype=float)
    log_x = len(ok) > 1 and capex.max() / capex.min() >= 10
    fig = go.Figure()
    moved = 0
    if ok:
        xs, moved = _spread_ties(capex, np.array([d.value(res.objective) for d in ok]), log_x)
        custom, hover = _sla_hover(ok, res.objective, res.unit)
        fig.add_trace(go.Scatter(x=xs, y=[d.value(res.objective) for d in ok], mode="markers",
                                 name="hardware candidates", customdata=custom,
                                 marker=dict(size=9, color="#9ab", line=dict(width=0.5, color="#333")),
                                 hovertemplate=hover + "<extra></extra>"))
    front = sorted(res.pareto(), key=lambda d: d.capex_usd)
    fig.add_trace(go.Scatter(x=[d.capex_usd for d in front], y=[d.value(res.objective) for d in front],
                             mode="lines+markers", name="Pareto frontier", hoverinfo="skip",
                             marker=dict(size=6, color="#d62728"), line=dict(shape="hv", color="#d62728")))
    if res.best is not None:
        b = res.best
        fig.add_trace(go.Scatter(x=[b.capex_usd], y=[b.value(res.objective)], mode="markers", name="best",
                                 marker=dict(size=18, symbol="star", color="#2ca02c", line=dict(width=1, color="black")),
                                 hovertemplate=f"best: %{{y:,.4g}} {res.unit} at $%{{x:,.0f}}<extra></extra>"))
    fig.update_layout(title=f"{res.model}: {res.unit} at the SLA vs deployment capex",
                      xaxis=log_axis(capex, money=True, title="deployment capex ($)") if log_x else
                      dict(title="deployment capex ($)", type="linear"),
                      yaxis_title=y_title, height=480, legend=dict(orientation="h", y=-0.2),
                      title_font_size=15, meta={"tied_points_spread": moved})
    return fig


def sla_sensitivity(res) -> "go.Figure":
    """Gain of the SLA co-design's objective when one knob of the best hardware is doubled and
    halved (the deployment searched again under the SLA); a change that misses the SLA is
    labelled so, not drawn as −100%."""
    go = _go()
    rows = res.sensitivity[::-1]
    knobs = [_label(r.knob) for r in rows]
    fig = go.Figure()
    for name, gains, values, colour in (("×2", [r.gain_doubled for r in rows], [r.doubled_value for r in rows], "#1f77b4"),
                                        ("×0.5", [r.gain_halved for r in rows], [r.halved_value for r in rows], "#ff7f0e")):
        ok = [math.isfinite(v) for v in values]
        vals = [100 * g if m else 0.0 for g, m in zip(gains, ok)]
        fig.add_trace(go.Bar(x=vals, y=knobs, orientation="h", name=name, marker_color=colour,
                             text=[_signed_pct(v) if m else "misses SLA" for v, m in zip(vals, ok)],
                             textposition="outside", cliponaxis=False,
                             hovertemplate="%{y} " + name + ": %{text}<extra></extra>"))
    finite = [v for tr in fig.data for v in tr.x] or [0.0]
    lo, hi = min(min(finite), 0.0), max(max(finite), 0.0)
    pad = 0.3 * ((hi - lo) or 1.0)
    fig.update_layout(title=f"Sensitivity of {_label(res.objective)}: knob ×2 / ×0.5",
                      xaxis=dict(title=f"{res.unit} change (%)", range=[lo - (pad if lo < 0 else 0.05 * pad), hi + pad],
                                 zeroline=True),
                      yaxis=dict(automargin=True), barmode="group", height=180 + 45 * len(rows),
                      margin=dict(l=10, r=40, t=50, b=40), legend=dict(orientation="h", y=-0.25))
    return fig


def traffic_cdf(r, ttft_ms: float | None = None, tpot_ms: float | None = None) -> "go.Figure":
    """TTFT and TPOT of every request of a :class:`~infersim.serving.load.TrafficResult` as
    cumulative distributions (share of requests at or below each latency), the SLO limits as
    dashed lines: where a curve crosses its line is the share of requests meeting it."""
    from plotly.subplots import make_subplots

    go = _go()
    fig = make_subplots(rows=1, cols=2, subplot_titles=("time to first token", "time per output token"))
    for col, (metric, limit) in enumerate((("ttft", ttft_ms), ("tpot", tpot_ms)), start=1):
        v = np.sort(r.values_ms(metric))
        share = np.arange(1, len(v) + 1) / max(len(v), 1) * 100
        fig.add_trace(go.Scatter(x=v, y=share, mode="lines", name=metric.upper(), showlegend=False,
                                 hovertemplate=f"{metric.upper()} ≤ %{{x:,.1f}} ms: %{{y:.1f}}% of requests<extra></extra>"),
                      row=1, col=col)
        if limit:
            fig.add_vline(x=limit, line_dash="dash", line_color="#d62728", row=1, col=col,
                          annotation_text=f"SLO {limit:g} ms", annotation_position="bottom right")
        fig.update_xaxes(title_text=f"{metric.upper()} (ms)", row=1, col=col)
    fig.update_yaxes(title_text="requests at or below (%)", range=[0, 101], row=1, col=1)
    fig.update_layout(title=f"Latency of {r.n:,} requests at {r.traffic.rate_text()}", height=340,
                      margin=dict(l=10, r=10, t=60, b=40))
    return fig


def traffic_timeline(r) -> "go.Figure":
    """Requests waiting and running, and the KV cache's occupancy, over the simulated time (the
    first replica: replicas see the same traffic, round-robin)."""
    from plotly.subplots import make_subplots

    go = _go()
    tl = r.timeline
    one = tl["replica"] == 0
    t = tl["t_ns"][one] * 1e-9
    fig = make_subplots(specs=[[{"secondary_y": True}]])
    for key, name in (("waiting", "waiting (queue)"), ("running", "running (in the batch)")):
        fig.add_trace(go.Scatter(x=t, y=tl[key][one], mode="lines", name=name, line_shape="hv",
                                 hovertemplate=f"{name}: %{{y:,.0f}} at %{{x:.1f}} s<extra></extra>"))
    occ = tl["kv_tokens"][one] / max(r.kv_capacity_tokens, 1) * 100
    fig.add_trace(go.Scatter(x=t, y=occ, mode="lines", name="KV cache used (%)", line=dict(dash="dot"),
                             hovertemplate="KV cache %{y:.0f}% at %{x:.1f} s<extra></extra>"), secondary_y=True)
    fig.update_xaxes(title_text="time (s)")
    fig.update_yaxes(title_text="requests per replica", secondary_y=False)
    fig.update_yaxes(title_text="KV cache used (%)", range=[0, 105], tickvals=[0, 25, 50, 75, 100],
                     showgrid=False, secondary_y=True)
    fig.update_layout(title="Queue, batch and KV cache over time", height=340, margin=dict(l=10, r=10, t=60, b=40),
                      legend=dict(orientation="h", y=-0.25))
    return fig
