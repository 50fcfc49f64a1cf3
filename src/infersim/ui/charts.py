"""Plotly figures for the UI (pure functions of results, so they are testable without a browser)."""
from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from ..cost import COMPONENTS

# one colour per breakdown component, stable across charts
COMPONENT_COLOURS = {
    "compute": "#1f77b4", "hbm": "#ff7f0e", "kernel_floor": "#aec7e8", "tp_allreduce": "#2ca02c",
    "ffn_allreduce": "#98df8a", "kv_seq_combine": "#9467bd", "cp_combine": "#c5b0d5",
    "ep_alltoall": "#8c564b", "pp_p2p": "#e377c2", "lm_head_gather": "#bcbd22", "cp_ring": "#d62728",
    "pp_bubble": "#f7b6d2", "kernel_gaps": "#7f7f7f", "host_launch": "#c7c7c7", "step_fixed": "#17becf",
}


def breakdown_bar(breakdown_ns: dict[str, float], title: str) -> go.Figure:
    """One horizontal bar stacked by component (ms)."""
    fig = go.Figure()
    for name in COMPONENTS:
        v = breakdown_ns.get(name, 0.0)
        if v > 0:
            fig.add_trace(go.Bar(x=[v / 1e6], y=["latency"], name=name, orientation="h",
                                 marker_color=COMPONENT_COLOURS[name],
                                 hovertemplate=f"{name}: %{{x:.4f}} ms<extra></extra>"))
    fig.update_layout(barmode="stack", title=title, xaxis_title="ms", height=240,
                      margin=dict(l=10, r=10, t=50, b=40), legend=dict(orientation="h", y=-0.45))
    return fig


def memory_bar(parts_bytes: dict[str, float], capacity_bytes: float, hbm_bytes: float) -> go.Figure:
    """Memory per PE stacked by part, against the usable and the physical capacity (GB)."""
    fig = go.Figure()
    colours = {"weights": "#1f77b4", "kv_cache": "#ff7f0e", "workspace": "#2ca02c"}
    for k, v in parts_bytes.items():
        fig.add_trace(go.Bar(x=[v / 1e9], y=["per PE"], name=k, orientation="h",
                             marker_color=colours.get(k), hovertemplate=f"{k}: %{{x:.2f}} GB<extra></extra>"))
    fig.add_vline(x=capacity_bytes / 1e9, line_dash="dash", line_color="black",
                  annotation_text="usable", annotation_position="top")
    fig.add_vline(x=hbm_bytes / 1e9, line_color="red", annotation_text="HBM", annotation_position="bottom")
    fig.update_layout(barmode="stack", title="Memory per PE", xaxis_title="GB", height=220,
                      margin=dict(l=10, r=10, t=50, b=40), legend=dict(orientation="h", y=-0.5))
    return fig


CP_SYMBOLS = ("circle", "square", "diamond", "triangle-up", "cross", "x", "star", "hexagon", "pentagon")


def explore_scatter(df: pd.DataFrame, pick: dict | None) -> go.Figure:
    """Latency vs PEs used: colour = TP degree, marker shape = CP degree; autosuggest ringed."""
    fig = go.Figure()
    cps = sorted(df["cp"].unique())
    symbol = {cp: CP_SYMBOLS[i % len(CP_SYMBOLS)] for i, cp in enumerate(cps)}
    for tp, g in df.groupby("tp", sort=True):
        fig.add_trace(go.Scatter(
            x=g["pes"], y=g["latency_ms"], mode="markers", name=f"TP{tp}", legendgroup="tp",
            marker=dict(size=8, opacity=0.75, symbol=[symbol[c] for c in g["cp"]]),
            customdata=g[["cp", "pp", "dp", "kv_shard_mode", "ffn_shard_scope"]].values,
            hovertemplate=("%{y:.3f} ms on %{x} PEs<br>CP%{customdata[0]} PP%{customdata[1]} "
                           "DP%{customdata[2]} %{customdata[3]} / %{customdata[4]}<extra>TP" f"{tp}</extra>")))
    for cp in cps:   # legend entries for the shapes
        fig.add_trace(go.Scatter(x=[None], y=[None], mode="markers", name=f"CP{cp}", legendgroup="cp",
                                 marker=dict(size=8, color="#777", symbol=symbol[cp])))
    if pick is not None:
        fig.add_trace(go.Scatter(x=[pick["pes"]], y=[pick["latency_ms"]], mode="markers",
                                 name="autosuggest (memory-min)",
                                 marker=dict(size=20, symbol="circle-open", color="red", line_width=3)))
    ticks = [2 ** i for i in range(0, 11) if 2 ** i <= max(df["pes"].max(), 1) * 2]
    fig.update_layout(title="Latency vs PEs used", xaxis_title="PEs used", yaxis_title="latency (ms)",
                      xaxis=dict(type="log", tickvals=ticks), yaxis_type="log", height=500)
    return fig


def pareto_scatter(all_df: pd.DataFrame, pareto_df: pd.DataFrame) -> go.Figure:
    """Every kept (hardware, parallelism) pair, with the latency-vs-cost frontier drawn."""
    fig = go.Figure()
    fig.add_trace(go.Scatter(
        x=all_df["cost_score"], y=all_df["total_latency_ms"], mode="markers", name="fitting pairs",
        marker=dict(size=6, color="#9ab", opacity=0.6),
        hovertemplate="cost %{x:.2f}: %{y:.3f} ms<extra></extra>"))
    front = pareto_df.sort_values("cost_score")
    fig.add_trace(go.Scatter(
        x=front["cost_score"], y=front["total_latency_ms"], mode="lines+markers", name="Pareto frontier",
        line=dict(shape="hv", color="#d62728", width=2), marker=dict(size=9, color="#d62728"),
        hovertemplate="cost %{x:.2f}: %{y:.3f} ms<extra>frontier</extra>"))
    fig.update_layout(title="Pareto frontier: latency vs cost_score", xaxis_title="cost_score (Σ knob/default)",
                      yaxis_title="latency (ms)", height=460)
    return fig


def sensitivity_bar(rows: list) -> go.Figure:
    """Speedup from doubling each knob of the fastest hardware, ranked."""
    knobs = [r.knob for r in rows][::-1]
    vals = [100 * r.rel_speedup for r in rows][::-1]
    fig = go.Figure(go.Bar(x=vals, y=knobs, orientation="h", marker_color="#1f77b4",
                           text=[f"{v:+.1f}%" for v in vals], textposition="auto",
                           hovertemplate="%{y}: %{x:.2f}%<extra></extra>"))
    fig.update_layout(title="Sensitivity: speedup when one knob is doubled", xaxis_title="speedup (%)",
                      height=340, margin=dict(l=10, r=10, t=50, b=40))
    return fig
