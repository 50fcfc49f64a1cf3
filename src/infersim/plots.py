"""Plotly figures for notebooks and the UI: one implementation, pure functions of results.

Every figure has axis titles with units and hover text that names the full configuration.
``plot(result)`` picks the natural figure for any result type (``result.plot()`` calls it).
Needs the ``ui`` extra (plotly, pandas).
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from .cost import COMPONENTS
from .errors import InferSimError

if TYPE_CHECKING:
    import plotly.graph_objects as go

# one colour per breakdown component, stable across charts
COMPONENT_COLOURS = {
    "compute": "#1f77b4", "hbm": "#ff7f0e", "kernel_floor": "#aec7e8", "tp_allreduce": "#2ca02c",
    "ffn_allreduce": "#98df8a", "kv_seq_combine": "#9467bd", "cp_combine": "#c5b0d5",
    "ep_alltoall": "#8c564b", "pp_p2p": "#e377c2", "lm_head_gather": "#bcbd22", "cp_ring": "#d62728",
    "pp_bubble": "#f7b6d2", "kernel_gaps": "#7f7f7f", "host_launch": "#c7c7c7", "step_fixed": "#17becf",
}
CP_SYMBOLS = ("circle", "square", "diamond", "triangle-up", "cross", "x", "star", "hexagon", "pentagon")


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
    fig.update_layout(barmode="stack", title=title, xaxis_title="time (ms)",
                      height=200 + 40 * len(labels), margin=dict(l=10, r=10, t=50, b=40),
                      legend=dict(orientation="h", y=-0.3))
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
    fig.update_layout(barmode="stack", title="Memory per PE", xaxis_title="memory per PE (GB)", height=220,
                      margin=dict(l=10, r=10, t=50, b=40), legend=dict(orientation="h", y=-0.5))
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
    fig.add_trace(go.Scatter(x=ai, y=rate, mode="markers+text", text=names, textposition="top center",
                             name="operators", marker=dict(size=10, color="#d62728"),
                             customdata=[[result.op_times_ns[n] / 1e3] for n in names],
                             hovertemplate="%{text}: %{y:.1f} TFLOP/s at %{x:.3g} flop/B, "
                                           "%{customdata[0]:.1f} us per step<extra></extra>"))
    fig.update_layout(title=f"Roofline: {result.par.describe()} on {result.hardware}",
                      xaxis=dict(type="log", title="arithmetic intensity (flop per HBM byte)"),
                      yaxis=dict(type="log", title="attained rate (TFLOP/s per PE)"), height=460)
    return fig


def _config_hover(df, cols) -> tuple[np.ndarray, str]:
    """customdata and a hovertemplate fragment naming every column of the configuration."""
    cols = [c for c in cols if c in df.columns]
    parts = "<br>".join(f"{c}: %{{customdata[{i}]}}" for i, c in enumerate(cols))
    return df[cols].values, parts


PAR_COLS = ("tp", "cp", "pp", "dp", "ep", "microbatches", "kv_shard_mode", "ffn_shard_scope",
            "tp_placement", "cp_placement", "cp_ring_variant")


def explore_scatter(df, picks: dict | None = None) -> "go.Figure":
    """Latency vs PEs used (both log): colour = TP degree, marker = CP degree, one legend entry
    per degree; ``picks`` maps a label ("fastest", "least memory") to a row dict to ring."""
    go = _go()
    fig = go.Figure()
    cps = sorted(df["cp"].unique())
    symbol = {cp: CP_SYMBOLS[i % len(CP_SYMBOLS)] for i, cp in enumerate(cps)}
    custom, hover = _config_hover(df, PAR_COLS + ("mem_per_pe_gb",))
    for tp in sorted(df["tp"].unique()):
        m = (df["tp"] == tp).values
        fig.add_trace(go.Scatter(x=df["pes"][m], y=df["latency_ms"][m], mode="markers", name=f"TP{tp}",
                                 legendgroup="tp", legendgrouptitle_text="TP (colour)",
                                 marker=dict(size=8, opacity=0.75, symbol="circle"), customdata=custom[m],
                                 hovertemplate="%{y:.3f} ms on %{x} PEs<br>" + hover + "<extra></extra>"))
    for cp in cps:   # the shapes' legend: CP degree, shown in grey on its own
        m = (df["cp"] == cp).values
        fig.add_trace(go.Scatter(x=df["pes"][m], y=df["latency_ms"][m], mode="markers", name=f"CP{cp}",
                                 legendgroup="cp", legendgrouptitle_text="CP (shape)", hoverinfo="skip",
                                 marker=dict(size=8, color="rgba(0,0,0,0)", symbol=symbol[cp],
                                             line=dict(width=1, color="#555"))))
    for i, (label, row) in enumerate((picks or {}).items()):
        fig.add_trace(go.Scatter(x=[row["pes"]], y=[row["latency_ms"]], mode="markers", name=label,
                                 marker=dict(size=20, symbol="circle-open", line_width=3,
                                             color=("#d62728", "#2ca02c", "#9467bd")[i % 3])))
    ticks = sorted(set(int(v) for v in df["pes"].unique()))
    fig.update_layout(title="Latency vs PEs used", xaxis_title="PEs used", yaxis_title="latency (ms)",
                      xaxis=dict(type="log", tickvals=ticks if len(ticks) <= 16 else None),
                      yaxis_type="log", height=520)
    return fig


def sensitivity_bar(rows) -> "go.Figure":
    """Speedup from each knob change, ranked; every bar labelled, 0% included."""
    go = _go()
    knobs = [getattr(r, "label", None) or r.knob for r in rows][::-1]
    vals = [100 * r.rel_speedup for r in rows][::-1]
    fig = go.Figure(go.Bar(x=vals, y=knobs, orientation="h", marker_color="#1f77b4",
                           text=[f"{v:+.1f}%" for v in vals], textposition="outside", cliponaxis=False,
                           hovertemplate="%{y}: %{x:.2f}%<extra></extra>"))
    fig.update_layout(title="Sensitivity: speedup when one knob changes", xaxis_title="speedup (%)",
                      height=160 + 30 * len(knobs), margin=dict(l=10, r=40, t=50, b=40))
    return fig


def interactivity_pareto(sla) -> "go.Figure":
    """Throughput vs interactivity of an :class:`~infersim.sla.SLAResult`: tokens/s per PE
    against tokens/s per user, the frontier drawn, the SLA region shaded (per-user speed at
    least 1000 / TPOT limit), the best and the disaggregated deployment marked."""
    go = _go()
    fig = go.Figure()
    pts = sla.pareto
    fig.add_trace(go.Scatter(
        x=[p.tok_s_per_user for p in pts], y=[p.tok_s_per_pe for p in pts], mode="lines+markers",
        name="Pareto frontier", line=dict(shape="hv", color="#1f77b4"),
        customdata=[[p.par.describe(), p.batch, p.ttft_ms, p.tpot_ms] for p in pts],
        hovertemplate="%{customdata[0]}, batch %{customdata[1]}<br>%{x:.1f} tok/s/user, %{y:.1f} tok/s/PE"
                      "<br>TTFT %{customdata[2]:.0f} ms, TPOT %{customdata[3]:.1f} ms<extra></extra>"))
    if sla.tpot_limit_ms:
        fig.add_vrect(x0=1000.0 / sla.tpot_limit_ms, x1=max([p.tok_s_per_user for p in pts] + [1]) * 1.1,
                      fillcolor="green", opacity=0.08, line_width=0, annotation_text="meets TPOT")
    for label, p, colour in (("best (aggregated)", sla.best, "#d62728"),
                             ("disaggregated", sla.disaggregated, "#2ca02c")):
        if p is not None:
            fig.add_trace(go.Scatter(x=[p.tok_s_per_user], y=[p.tok_s_per_pe], mode="markers", name=label,
                                     marker=dict(size=16, symbol="star", color=colour)))
    fig.update_layout(title=f"Throughput vs interactivity: {sla.model} on {sla.hardware}",
                      xaxis_title="tokens/s per user", yaxis_title="tokens/s per PE", height=460)
    return fig


def plot(result, **kw) -> "go.Figure":
    """The natural figure for a result: breakdown (SimResult), latency-vs-PEs (ExploreResult),
    throughput-vs-interactivity (SLAResult), or the result's own ``figure()``."""
    from .auto_explore import ExploreResult
    from .simulate import SimResult
    from .sla import SLAResult

    if isinstance(result, SimResult):
        return breakdown_bar(result.breakdown_ns, f"{result.par.describe()}: {result.total_latency_ns / 1e6:.3f} ms")
    if isinstance(result, ExploreResult):
        return explore_scatter(result.to_pandas(), **kw)
    if isinstance(result, SLAResult):
        return interactivity_pareto(result)
    if hasattr(result, "figure"):
        return result.figure(**kw)
    raise InferSimError(f"no natural plot for {type(result).__name__}")


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


def sla_codesign(res) -> "go.Figure":
    """SLA co-design: each hardware candidate's objective against its deployment's capex, the
    frontier drawn, the best starred; hover names the knobs and the deployment."""
    from .sla_codesign import SLA_OBJECTIVES

    go = _go()
    ok = [d for d in res.designs if d.point]
    label = SLA_OBJECTIVES[res.objective][1]
    fig = go.Figure()
    for pts, name, style in ((ok, "hardware candidates", dict(size=8, color="#9ab")),
                             (res.pareto(), "Pareto frontier", dict(size=10, color="#d62728"))):
        pts = sorted(pts, key=lambda d: d.capex_usd)
        fig.add_trace(go.Scatter(
            x=[d.capex_usd for d in pts], y=[d.value(res.objective) for d in pts], name=name,
            mode="markers" if name != "Pareto frontier" else "lines+markers", marker=style,
            line=dict(shape="hv", color="#d62728") if name == "Pareto frontier" else None,
            customdata=[[", ".join(f"{k}={v:g}" for k, v in d.hw.knobs().items()),
                         d.point.par.describe(), d.point.batch, d.point.tpot_ms] for d in pts],
            hovertemplate="%{customdata[0]}<br>%{customdata[1]}, batch %{customdata[2]}, TPOT "
                          "%{customdata[3]:.1f} ms<br>$%{x:,.0f}: %{y:.4g} " + label + "<extra></extra>"))
    if res.best is not None:
        b = res.best
        fig.add_trace(go.Scatter(x=[b.capex_usd], y=[b.value(res.objective)], mode="markers", name="best",
                                 marker=dict(size=16, symbol="star", color="#2ca02c")))
    fig.update_layout(title=f"{res.model}: {label} at the SLA vs deployment capex",
                      xaxis_title="deployment capex ($)", yaxis_title=label, height=480)
    return fig


def sla_sensitivity(res) -> "go.Figure":
    """Gain of the SLA co-design's objective when one knob of the best hardware doubles."""
    go = _go()
    rows = res.sensitivity[::-1]
    vals = [100 * r.gain_doubled for r in rows]
    fig = go.Figure(go.Bar(x=vals, y=[r.knob for r in rows], orientation="h", marker_color="#1f77b4",
                           text=[f"{v:+.1f}%" for v in vals], textposition="outside", cliponaxis=False))
    fig.update_layout(title=f"Sensitivity of {res.objective} at the SLA: one knob doubled",
                      xaxis_title="gain (%)", height=160 + 30 * len(rows))
    return fig
