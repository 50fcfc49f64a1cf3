"""The figures the UI and notebooks share: legends that show what they encode, labelled bars,
one scale for compared configs, co-design points that do not collapse."""
import math
from types import SimpleNamespace

import pytest

pd = pytest.importorskip("pandas", reason="needs the [ui] extra (pandas, plotly)")
pytest.importorskip("plotly", reason="needs the [ui] extra (pandas, plotly)")

from infersim import Workload
from infersim.auto_explore import auto_explore  # noqa: E402
from infersim.auto_hardware import joint_explore  # noqa: E402
from infersim.hardware_presets import GENERIC_SIP, HW_PRESETS  # noqa: E402
from infersim.report import plots  # noqa: E402
from infersim.report.fmt import fmt_big, fmt_ms, fmt_pct, fmt_rate, fmt_time, time_unit  # noqa: E402


def test_explore_legend_shows_colour_per_tp_and_shape_per_cp(llama70b):
    df = auto_explore(llama70b, GENERIC_SIP, Workload("decode", s_kv=32768)).to_pandas()
    fig = plots.explore_scatter(df, {"fastest": df.iloc[0].to_dict()})
    data = [t for t in fig.data if t.showlegend is False]
    legend_tp = [t for t in fig.data if t.legendgroup and t.legendgroup.startswith("tp") and t.showlegend is not False]
    legend_cp = [t for t in fig.data if t.legendgroup == "cp"]
    assert {t.name for t in legend_tp} == {f"TP{tp}" for tp in df["tp"].unique()}
    assert all(t.marker.symbol == "square" for t in legend_tp)                  # no CP shape on a TP entry
    assert len({t.marker.symbol for t in legend_cp}) == len(legend_cp) == 16   # a shape means one thing
    assert all(t.marker.color == "#888" for t in legend_cp)                    # no TP colour on a CP entry
    cps = sorted(df["cp"].unique())
    assert legend_cp[-1].name == f"CP{cps[15]}–{cps[-1]}"                     # the rest share one entry
    # the data points carry the CP shape of their own row
    shape = {t.name.removeprefix("CP"): t.marker.symbol for t in legend_cp}
    for t in data:
        rows = df[df["tp"] == int(t.name.removeprefix("TP"))]
        assert list(t.marker.symbol) == [shape.get(str(c), plots.OTHER_CP_SYMBOL) for c in rows["cp"]]
    ticks = fig.layout.xaxis.tickvals
    assert any(v & (v - 1) for v in ticks)                                      # not only powers of two
    assert {4, 8, 16, 32, 64} <= set(ticks) and set(ticks) <= set(df["pes"])
    assert next(t for t in fig.data if t.name == "fastest").text == ("fastest",)


def test_pe_ticks_keep_powers_of_two_and_others_where_room():
    assert plots._pe_ticks([1, 2, 3, 8]) == [1, 2, 3, 8]
    ticks = plots._pe_ticks(range(1, 1025))
    assert {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024} <= set(ticks)
    assert {3, 24, 48} <= set(ticks) and len(ticks) < 40


def test_sensitivity_bars_are_all_labelled_with_room():
    rows = [SimpleNamespace(knob="bw_hbm_gbs", rel_speedup=0.34, rel_gain_halved=-0.2),
            SimpleNamespace(knob="pe_hbm_gb", rel_speedup=0.0, rel_gain_halved=0.0),
            SimpleNamespace(knob="peak_tflops_f16", rel_speedup=0.001, rel_gain_halved=math.nan)]
    fig = plots.sensitivity_bar(rows, "tok_s_per_usd")
    assert fig.layout.title.text == "Sensitivity of tokens per $: one knob ×2 / ×0.5"
    doubled, halved = fig.data
    assert doubled.text == ("+0.1%", "0%", "+34.0%") and halved.text == ("n/a", "0%", "-20.0%")
    lo, hi = fig.layout.xaxis.range
    assert lo < -20 and hi > 34                                              # labels inside the plot area
    only_x2 = plots.sensitivity_bar([SimpleNamespace(knob="k", rel_speedup=0.0)])
    assert len(only_x2.data) == 1 and only_x2.data[0].text == ("0%",)


def test_codesign_scatter_spreads_ties_and_names_the_design(llama8b):
    res = joint_explore(llama8b, s_kv=8192, batch=16, depth="balanced", base_hw=HW_PRESETS["H100-SXM x8"])
    pts = pd.DataFrame([s.to_dict() for s in res.all_scores])
    fig = plots.codesign_scatter(pts, pd.DataFrame([s.to_dict() for s in res.pareto_usd_scores]),
                                 "system_cost_usd", "total_latency_ms", "system cost ($)", "latency (ms)",
                                 colour="hw_bw_hbm_gbs", best=res.best.to_dict())
    cloud = fig.data[0]
    assert len(set(zip(cloud.x, cloud.y))) == len(pts) == 64
    assert fig.layout.meta["tied_points_spread"] >= 32
    assert max(abs(x / c - 1) for x, c in zip(cloud.x, pts["system_cost_usd"])) < 0.2   # a small cluster
    # issue 27: at most 8 hover fields, human labels with units, the colour's knob among them
    fields = cloud.hovertemplate.removesuffix("<extra></extra>").split("<br>")
    assert len(fields) <= 8 and len(cloud.customdata[0]) == len(fields)
    assert {"latency (ms)", "system cost ($)", "HBM bandwidth (GB/s)", "parallelism"} <= {f.split(":")[0] for f in fields}
    assert "hw_" not in cloud.hovertemplate and "_" not in fig.data[0].marker.colorbar.title.text
    assert cloud.customdata[0][-1].startswith("TP")
    assert [t.name for t in fig.data] == ["hardware candidates", "Pareto frontier", "recommended"]


def test_compare_charts_share_one_scale(llama8b):
    from infersim import Parallelism, simulate

    hw = HW_PRESETS["H100-SXM x8"]
    a = simulate(llama8b, hw, Parallelism(tp=1), Workload("decode", s_kv=8192, batch=8))
    b = simulate(llama8b, hw, Parallelism(tp=8), Workload("decode", s_kv=8192, batch=8))
    fig = plots.breakdown_bars({"#1": a.breakdown_ns, "#2": b.breakdown_ns})
    assert {t.xaxis or "x" for t in fig.data} == {"x"} and all(t.y == ("#1", "#2") for t in fig.data)
    assert sum(t.x[0] for t in fig.data) == pytest.approx(a.total_latency_ns / 1e6)
    mem = plots.memory_bars({"#1": a.mem_breakdown_bytes, "#2": b.mem_breakdown_bytes},
                            {"#1": a.mem_capacity_bytes, "#2": b.mem_capacity_bytes})
    assert [t.name for t in mem.data][-1] == "usable capacity"
    assert sum(t.x[0] for t in mem.data[:-1]) == pytest.approx(a.mem_per_pe_bytes / 1e9)


def test_interactivity_pareto_marks_points_meeting_the_sla(llama8b):
    from infersim.serving import Request, sla_search

    sla = sla_search(llama8b, HW_PRESETS["H100-SXM x8"], Request(1024, 256), ttft_ms=500, tpot_ms=15)
    fig = plots.interactivity_pareto(sla)
    front = fig.data[0]
    assert list(front.marker.color) == ["#2ca02c" if p.meets_sla else "#aaaaaa" for p in sla.pareto]
    assert fig.layout.shapes[0].x0 == pytest.approx(1000 / 15)


def test_human_formats():
    assert [fmt_time(v) for v in (1.5e9, 17.43e6, 1.234e6, 456_700.0, 500.0)] == \
        ["1.50 s", "17.4 ms", "1.23 ms", "457 µs", "0.500 µs"]
    assert fmt_ms(50) == "50.0 ms" and fmt_time(math.nan) == "–"
    assert time_unit([2e6, 1e5]) == ("ms", 1e6) and time_unit([5e5]) == ("µs", 1e3)
    assert fmt_rate(11606.4) == "11,606 tok/s" and fmt_rate(7.17, "") == "7.17"
    assert (fmt_pct(0.34), fmt_pct(-0.025), fmt_pct(0.0001)) == ("+34%", "−2.5%", "0%")
    assert [fmt_big(v, "tok/$") for v in (29_583_494.4, 123_456, 99_999, 3.82, 2.5e9, math.nan)] == \
        ["29.6M tok/$", "123k tok/$", "99,999 tok/$", "3.82 tok/$", "2.50G tok/$", "–"]


def test_sla_codesign_figures_hover_ties_and_misses():
    from infersim.codesign.sla import KnobEffect, codesign_sla
    from infersim.model_presets import get_model
    from infersim.serving import Request

    h100 = HW_PRESETS["H100-SXM x8"]
    res = codesign_sla(get_model("Llama 3.1 8B"), Request(1024, 256), tpot_ms=20, depth="custom",
                       custom={"bw_hbm_gbs": [3350.0, 6700.0], "bw_inter_gbs": [450.0, 900.0]}, base_hw=h100,
                       sensitivity=False)
    fig = plots.sla_codesign(res)
    pts = fig.data[0]
    assert len(pts.x) == 4 and len(set(pts.x)) == 4                # inter-node links tie on one node: spread
    assert fig.layout.meta["tied_points_spread"] == 4
    assert fig.layout.yaxis.title.text == "tokens per $ of TCO (tok/$)"
    row = pts.customdata[0]
    assert "HBM GB/s" in row[0] and row[1].startswith("TP") and "TTFT" in pts.hovertemplate and "tok/$" in pts.hovertemplate
    assert sorted(row[9] for row in pts.customdata) == sorted(pts.y)        # hover shows the true objective
    fake = SimpleNamespace(objective="tok_s_per_usd", unit="tok/$", sensitivity=[
        KnobEffect("bw_hbm_gbs", 2.0, math.nan, 0.25, -1.0), KnobEffect("pe_hbm_gb", 1.0, 1.0, 0.0, 0.0)])
    sens = plots.sla_sensitivity(fake)
    halved = next(t for t in sens.data if t.name == "×0.5")
    assert list(halved.text) == ["0%", "misses SLA"] and list(halved.x) == [0.0, 0.0]     # not drawn as -100%
    assert list(next(t for t in sens.data if t.name == "×2").text) == ["0%", "+25.0%"]


def test_log_axes_label_every_tick_in_full():
    """Issue 27 item 4: 50 / 20 / 10 ms must not read "5, 2, 10"; a cost axis reads $50k … $2M."""
    lat = plots.log_axis([8.0, 55.0], "ms")
    assert lat["ticktext"][:3] == ["7 ms", "8 ms", "9 ms"] and "50 ms" in lat["ticktext"]
    assert all(t.endswith(" ms") for t in lat["ticktext"])
    cost = plots.log_axis([6e4, 3.3e6], money=True)
    assert cost["ticktext"] == ["$50k", "$100k", "$200k", "$500k", "$1M", "$2M"]
    assert plots.log_axis([0.3, 3e4])["ticktext"][6:9] == ["300", "1,000", "3,000"]
    for ax in (lat, cost):
        assert len(ax["tickvals"]) == len(ax["ticktext"]) >= 2
