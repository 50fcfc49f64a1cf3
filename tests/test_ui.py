"""Every UI tab through Streamlit's AppTest (no browser): each opens on its recommendation card,
computes what the library computes, and the audit's bugs stay fixed."""
import re
import time

import pytest

pytest.importorskip("streamlit")

from infersim import Parallelism, Workload, simulate  # noqa: E402
from infersim.auto_explore import auto_explore  # noqa: E402
from infersim.hardware_presets import GENERIC_SIP, HW_PRESETS  # noqa: E402
from infersim.model_presets import PRESETS  # noqa: E402
from infersim.report.fmt import fmt_time  # noqa: E402
from ui_support import (  # noqa: E402
    TABS,
    card_text,
    charts,
    errors,
    first_child,
    frame,
    metric_values,
    new_app,
    open_tab,
    small_app,
    values,
)

H100 = HW_PRESETS["H100-SXM x8"]
L8B, L70B = PRESETS["Llama 3.1 8B"].model, PRESETS["Llama 3.1 70B"].model
HEADLINE = {"Simulate": "Answer:", "Explore": "Recommended (fastest):", "Co-design": "Recommended hardware:",
            "Serving": "Answer:", "Compare": "Nothing pinned yet."}


@pytest.fixture
def app():
    return small_app()


def test_every_tab_opens_on_its_recommendation_card(app):
    for name in TABS:
        open_tab(app, name)
        assert not app.exception, name
        assert not errors(app), (name, errors(app))
        first = first_child(app, name)
        assert first is not None and first.proto.id.endswith(f"rec_{name.lower().replace('-', '')}"), name
        assert card_text(app, name).startswith(f"**{HEADLINE[name]}**"), (name, card_text(app, name)[:80])
        # only the open tab ran: the others have no content
        others = [t for t in TABS if t != name]
        assert all(first_child(app, t) is None for t in others), name


def test_simulate_card_matches_simulate(app):
    for key, v in (("sim_tp", 2), ("sim_cp", 2), ("sim_scope", "TP+CP")):
        app.get_by_key(key).set_value(v)
    app.run()
    assert not app.exception and not errors(app)
    r = simulate(L8B, H100, Parallelism(tp=2, cp=2, ffn_shard_scope="TP+CP"), Workload("decode", s_kv=8192, batch=16))
    m = metric_values(app)
    assert m["Latency per token"] == fmt_time(r.total_latency_ns)
    assert m["Bound"] == r.bound
    assert m["Throughput (4 PEs)"].endswith("tok/s")
    assert "TP2 CP2 PP1 DP1" in card_text(app, "Simulate")
    table = frame(app, "component")
    unit_col = next(c for c in table.columns if c.startswith("time ("))
    scale = {"time (ms)": 1e6, "time (µs)": 1e3}[unit_col]
    assert table[unit_col].sum() * scale == pytest.approx(r.total_latency_ns)
    titles = charts(app)
    assert any(t.startswith("Roofline: TP2 CP2") for t in titles)           # the roofline per operator
    assert {"hbm", "ffn_allreduce"} <= {t["name"] for t in titles[f"TP2 CP2 PP1 DP1: {fmt_time(r.total_latency_ns)}"]["data"]}


def test_times_are_ms_or_us_never_ns(app):
    for name in ("Simulate", "Explore", "Co-design", "Serving"):
        open_tab(app, name)
        for label, value in metric_values(app).items():
            if re.search(r"\d", value) and ("atency" in label or label in ("TTFT", "TPOT")):
                assert re.fullmatch(r"[\d.,]+ (s|ms|µs)", value), (name, label, value)
        assert not re.search(r"\d ns\b", card_text(app, name)), name


def test_config_that_does_not_fit_shows_no_throughput():
    at = new_app(batch=64)                       # 70B, 128K context, batch 64 on TP8 of the SiP
    m = metric_values(at)
    assert m["Throughput (8 PEs)"] == "— cannot run"
    assert m["Latency per token if it fit"].endswith("ms")
    assert any(x.label == "Memory per PE" and "does NOT fit" in x.proto.delta for x in at.metric)
    text = card_text(at, "Simulate")
    assert text.startswith("**Does not fit:**") and "cannot run" in text and "tok/s" not in text.split("\n")[0]


def test_bad_context_is_an_error_not_the_old_result(app):
    """0 clamps to the field's minimum (1); a context beyond 2**31 tokens is still an error."""
    open_tab(app, "Explore")
    assert "Recommended" in card_text(app, "Explore")
    app.get_by_key("s_kv_decode").set_value(2**31 + 1)
    app.run()
    assert not app.exception
    assert any("s_kv must be an integer in 1.." in e for e in errors(app))
    assert "Recommended" not in card_text(app, "Explore")         # the stale answer is not shown
    open_tab(app, "Simulate")
    assert any("s_kv must be" in e for e in errors(app)) and not metric_values(app)


def test_every_control_has_a_tooltip(app):
    seen = 0
    for name in TABS:
        open_tab(app, name)
        if name == "Co-design":
            app.get_by_key("cd_depth").set_value("custom")
            app.run()
        for kind in ("selectbox", "number_input", "text_input", "radio", "checkbox", "button"):
            for widget in app.get(kind):
                assert widget.help, (name, kind, widget.label)
                seen += 1
    assert seen > 60


def test_explore_card_labels_fastest_and_least_memory(app):
    open_tab(app, "Explore")
    res = auto_explore(L8B, H100, Workload("decode", s_kv=8192, batch=16))
    text = card_text(app, "Explore")
    # issue 27: the title says "fastest" once ("Recommended (fastest): best by latency" was a slip)
    assert text.startswith(f"**Recommended (fastest):** {res.best.describe()}") and "best by latency" not in text
    assert "**Least memory per PE** (autosuggest, the most headroom, not the fastest)" in text
    # a saving within 3% of the memory is said to be no reason to switch (issue 27 item 3)
    assert "within 3%) and is" in text and "the recommended config is the pick" in text
    assert "1 PE," in text and "1 PEs" not in text
    assert "**Fewest PEs:**" in text
    scatter = charts(app)["Latency vs PEs used"]
    picks = {t["name"] for t in scatter["data"] if t.get("text")}
    assert picks == {"fastest", "least memory (autosuggest)", "fewest PEs"}
    table = frame(app, "rank")
    assert len(table) == 25 and list(table["rank"]) == list(range(1, 26))
    assert next(c for c in table.columns if c.startswith("latency (")) in ("latency (ms)", "latency (µs)")


def test_explore_objective_ranks_the_table(app):
    open_tab(app, "Explore")
    app.get_by_key("ex_objective").set_value("throughput")
    app.get_by_key("btn_ex_run").click()
    app.run()
    table = frame(app, "rank")
    assert list(table["tok/s"]) == sorted(table["tok/s"], reverse=True)
    assert "Recommended (best by throughput)" in card_text(app, "Explore")


@pytest.mark.parametrize("tab, target, run_key", [
    ("Explore", "infersim.search.auto_explore.auto_explore", "btn_ex_run"),
    ("Co-design", "infersim.codesign.auto_hardware.joint_explore", "btn_cd_run"),
    ("Serving", "infersim.serving.sla.sla_search", "btn_sv_run"),
])
def test_sweeps_run_only_on_their_button(app, monkeypatch, tab, target, run_key):
    import importlib

    mod_name, fn = target.rsplit(".", 1)
    mod = importlib.import_module(mod_name)
    calls, real = [], getattr(mod, fn)
    monkeypatch.setattr(mod, fn, lambda *a, **k: calls.append(1) or real(*a, **k))
    if tab == "Serving":
        import infersim.serving as serving
        monkeypatch.setattr(serving, "sla_search", getattr(mod, fn), raising=False)
    app.session_state["tab"] = tab
    app.run()
    if tab == "Serving":                                       # seconds for a 70B model: never on its own
        assert len(calls) == 0 and "Press Run serving search" in card_text(app, tab)
        app.get_by_key(run_key).click()
        app.run()
    assert len(calls) == 1                                     # the first visit answers at once
    before = card_text(app, tab)
    # widget changes on the tab and in the sidebar: no sweep, the result stays, marked stale
    changes = {"Explore": [("ex_objective", "throughput_per_pe"), ("ex_top", 5)],
               "Co-design": [("cd_objective", "throughput"), ("cd_depth", "custom"),
                             ("grid_peak_tflops_f16", "500, 1000, 2000")],
               "Serving": [("sv_tpot", 20.0), ("sv_isl", 1024)]}[tab] + [("batch", 8)]
    for key, value in changes:
        app.get_by_key(key).set_value(value)
        app.run()
        assert not app.exception
    assert len(calls) == 1
    assert card_text(app, tab).split("\n")[0] == before.split("\n")[0]      # the kept answer
    assert any("inputs changed" in w.value for w in app.warning)
    app.get_by_key(run_key).click()
    app.run()
    assert len(calls) == 2 and not any("inputs changed" in w.value for w in app.warning)
    open_tab(app, "Simulate")
    open_tab(app, tab)                                         # coming back shows the kept result
    assert len(calls) == 2


def test_codesign_objective_drives_picks_chart_and_sensitivity(app):
    from infersim.auto_hardware import joint_explore

    open_tab(app, "Co-design")
    lat = charts(app)
    assert "latency (ms) vs system cost of the PEs used ($)" in lat
    assert "Sensitivity of latency: one knob ×2 / ×0.5" in lat
    app.get_by_key("cd_objective").set_value("throughput_per_pe")
    app.get_by_key("btn_cd_run").click()
    app.run()
    c = charts(app)
    chart = c["throughput per PE (tok/s/PE) vs system cost of the PEs used ($)"]
    assert "Sensitivity of throughput per PE: one knob ×2 / ×0.5" in c
    ref = joint_explore(L8B, s_kv=8192, batch=16, depth="balanced", base_hw=H100, objective="throughput_per_pe")
    star = next(t for t in chart["data"] if t["name"] == "recommended")
    assert values(star["y"])[0] == pytest.approx(ref.pick.tokens_per_s_per_pe)   # the answer: cheapest within 1%
    assert max(values(chart["data"][0]["y"])) == pytest.approx(ref.best.tokens_per_s_per_pe)
    assert "best by throughput per pe" in card_text(app, "Co-design")
    assert "Throughput per PE (the objective)" in metric_values(app)          # a label, not the identifier
    sens = c["Sensitivity of throughput per PE: one knob ×2 / ×0.5"]
    assert values(sens["data"][0]["x"])[-1] == pytest.approx(100 * ref.sensitivity[0].rel_speedup)


def test_codesign_points_separate_and_hover_names_the_design(app):
    open_tab(app, "Co-design")
    spec = next(v for k, v in charts(app).items() if k.endswith("vs system cost of the PEs used ($)"))
    pts = spec["data"][0]
    assert len(values(pts["x"])) == 64
    assert len({(x, y) for x, y in zip(values(pts["x"]), values(pts["y"]))}) == 64   # one dot each
    assert spec["layout"]["meta"]["tied_points_spread"] > 0    # 8-GPU node: inter-node knobs tie
    for needle in ("HBM bandwidth (GB/s): ", "Peak fp16 (TFLOPS): ", "parallelism: ", "system cost ($): "):
        assert needle in pts["hovertemplate"]
    assert "hw_" not in pts["hovertemplate"] and pts["hovertemplate"].count("<br>") <= 7     # ≤ 8 fields
    table = frame(app, "system cost ($)")
    assert list(table.columns[:3]) == ["latency (ms)", "tok/s", "system cost ($)"]
    sens = next(v for k, v in charts(app).items() if k.startswith("Sensitivity"))
    labels = [t for tr in sens["data"] for t in tr["text"]]
    assert len(labels) == 12 and "0%" in labels                  # every bar labelled, zeros too
    caption = " ".join(c.value for c in app.caption)
    assert "the best pair of each of the 64 hardware candidates (64 rows) — of" in caption


def test_codesign_custom_grid_opens_on_a_grid_and_parses_safely(app):
    open_tab(app, "Co-design")
    app.get_by_key("cd_depth").set_value("custom")
    app.run()
    assert not errors(app)
    assert metric_values(app)["Hardware candidates"] == "9"        # ×½, ×1, ×2 of two knobs
    app.get_by_key("grid_bw_hbm_gbs").set_value("1,000")
    app.run()
    assert any("looks like a thousands separator" in e and "write 1000" in e for e in errors(app))
    app.get_by_key("grid_bw_hbm_gbs").set_value("lots")
    app.run()
    assert any("bad grid values for 'bw_hbm_gbs'" in e for e in errors(app))
    assert not app.exception


def test_huge_grid_is_sized_without_enumerating_and_refused(app):
    open_tab(app, "Co-design")
    app.get_by_key("cd_depth").set_value("custom")
    app.run()
    ten = ", ".join(str(v) for v in range(100, 1100, 100))
    for k in ("pe_hbm_gb", "bw_hbm_gbs", "peak_tflops_f16", "bw_intra_gbs", "bw_inter_gbs", "bw_intersip_gbs"):
        app.get_by_key(f"grid_{k}").set_value(ten)
    t0 = time.perf_counter()
    app.run()
    assert time.perf_counter() - t0 < 3.0
    assert any("1,000,000 hardware candidates, above the cap of 250,000" in e for e in errors(app))
    assert app.get_by_key("btn_cd_run").disabled
    t0 = time.perf_counter()
    app.get_by_key("cd_x").set_value("cost_score")               # a view change stays quick
    app.run()
    assert time.perf_counter() - t0 < 3.0


def test_serving_tab_answers_like_sla_search():
    from infersim.serving import Request, sla_search

    at = new_app(model="Llama 3.1 70B", hw="H100-SXM x8")
    open_tab(at, "Serving")
    assert not at.exception and not errors(at)
    ref = sla_search(L70B, H100, Request(2048, 512), ttft_ms=2000, tpot_ms=50)
    text = card_text(at, "Serving")
    d = ref.disaggregated
    assert d is not None and d.tok_s_per_pe > ref.best.tok_s_per_pe      # the split wins here
    assert f"serve disaggregated {d.ratio}" in text                        # so the answer leads with it
    assert f"best aggregated: {ref.best.par.describe()}" in text and f"at {ref.best.batch} concurrent" in text
    assert ref.comparison() in text
    m = metric_values(at)
    # issue 27: the tiles are the recommended (disaggregated) deployment's, and say so
    assert m["TPOT"] == fmt_time(d.tpot_ms * 1e6) and m["TTFT"] == fmt_time(d.ttft_ms * 1e6)
    assert m["PEs"] == f"{d.pes:,}" and f"**Disaggregated {d.ratio} (the answer)" in text
    pareto = charts(at)["Throughput vs interactivity: Llama 3.1 70B on H100-SXM x8"]
    assert {"Pareto frontier", "best (aggregated)", "disaggregated"} <= {t["name"] for t in pareto["data"]}
    assert pareto["layout"]["shapes"][0]["x0"] == pytest.approx(1000 / 50)      # the TPOT region
    assert len(frame(at, "meets SLA")) == len(ref.pareto)


def test_runtime_selector_changes_simulate_and_marks_sweeps_stale(app):
    open_tab(app, "Explore")
    app.get_by_key("runtime").set_value("eager")
    app.run()
    assert any("inputs changed" in w.value for w in app.warning)
    open_tab(app, "Simulate")
    eager = simulate(L8B, H100, Parallelism(tp=8), Workload("decode", s_kv=8192, batch=16), runtime="eager")
    assert metric_values(app)["Latency per token"] == fmt_time(eager.total_latency_ns)


def test_widget_values_survive_other_tabs(app):
    app.get_by_key("sim_tp").set_value(4)
    app.get_by_key("sim_kv").set_value("seq")
    app.run()
    for name in ("Explore", "Compare", "Simulate"):
        open_tab(app, name)
    assert app.get_by_key("sim_tp").value == 4 and app.get_by_key("sim_kv").value == "seq"
    assert "TP4 CP1 PP1 DP1" in card_text(app, "Simulate")


@pytest.mark.parametrize("key, value, needle", [
    ("sim_tp", 0, "tp must be an integer >= 1"),
    ("sim_tp", 32, "exceeds the 8 PEs"),
])
def test_bad_input_is_one_line_and_the_app_keeps_running(app, key, value, needle):
    app.get_by_key(key).set_value(value)
    app.run()
    assert not app.exception
    assert any(needle in e and "\n" not in e for e in errors(app)), errors(app)


def test_bad_serving_input_is_one_line(app):
    open_tab(app, "Serving")
    app.get_by_key("sv_hit").set_value(1.5)
    app.get_by_key("btn_sv_run").click()
    app.run()
    assert not app.exception
    assert any("prefix_hit must be a fraction in [0, 1)" in e for e in errors(app))


def test_generic_sip_default_still_simulates():
    at = new_app()
    r = simulate(L70B, GENERIC_SIP, Parallelism(tp=8), Workload("decode", s_kv=131072))
    assert metric_values(at)["Latency per token"] == fmt_time(r.total_latency_ns)


# ----- Co-design at a serving SLA (the Co-design tab's second mode) ----------------------------------
SLA_MODE = "serving SLA (tokens per $ at TTFT/TPOT)"
SLA_GRID = {"bw_hbm_gbs": [3350.0, 6700.0]}


def sla_app(grid: dict, **controls):
    """The small app's Co-design tab opened straight in SLA mode on a custom grid (one SLA run):
    isl 1024, osl 256, no TTFT limit, TPOT <= 20 ms unless ``controls`` say otherwise."""
    at = small_app()
    values = {"cd_mode": SLA_MODE, "cd_depth": "custom", "cs_isl": 1024, "cs_osl": 256, "cs_ttft": 0.0,
              "cs_tpot": 20.0, **controls}
    values.update({f"grid_{k}": ", ".join(f"{v:g}" for v in grid.get(k, ())) for k in
                   ("pe_hbm_gb", "bw_hbm_gbs", "peak_tflops_f16", "bw_intra_gbs", "bw_inter_gbs", "bw_intersip_gbs",
                    "pes_per_cube", "cubes_per_sip", "n_sips")})
    for k, v in values.items():
        at.session_state[k] = v
    return open_tab(at, "Co-design")


def sla_ref(grid: dict, objective: str = "tok_s_per_usd", tpot_ms=20.0, ttft_ms=None):
    from infersim.codesign.sla import codesign_sla
    from infersim.serving import Request

    return codesign_sla(L8B, Request(1024, 256), ttft_ms=ttft_ms, tpot_ms=tpot_ms, depth="custom", custom=grid,
                        base_hw=H100, objective=objective)


def test_sla_mode_card_is_first_and_answers_like_codesign_sla():
    from infersim.codesign.sla import sla_answer_lines
    from infersim.ui.tabs_codesign_sla import headline_text

    at = sla_app(SLA_GRID)
    assert not at.exception and not errors(at)
    first = first_child(at, "Co-design")
    assert first is not None and first.proto.id.endswith("rec_codesign")
    ref = sla_ref(SLA_GRID)
    line1, line2 = sla_answer_lines(ref.answer())
    text = card_text(at, "Co-design")
    assert text.startswith(f"**Answer:** {headline_text(ref, line1)}")
    assert "HBM 85.52 GB at " in text and "HBM GB" not in text              # words with units, no jargon
    assert f"**{line2.replace('double peak_tflops_f16', 'double Peak fp16')}**" in text and "TPOT ≤ 20 ms" in text
    assert "Why that lever: each knob ×2 alone" in text                      # the lever has its reason and "2 of 2 hardware candidates meet it" in text
    assert "s_kv = isl + osl/2 = 1,152" in text                     # what Open in Simulate simulates
    b = ref.best
    m = metric_values(at)
    assert m["Hardware candidates"] == "2" and m["TPOT"] == fmt_time(b.point.tpot_ms * 1e6)
    assert m["Objective: tokens per $ (tok/$)"] == f"{b.tok_s_per_usd / 1e6:.1f}M"      # e.g. 28.5M (fits the tile)
    table = frame(at, "deployment")
    assert list(table.columns[:12]) == ["rank", "tok/$", "HBM per PE (GB)", "HBM bandwidth (GB/s)",
                                        "Peak fp16 (TFLOPS)", "Intra-cube link (GB/s)", "Inter-cube link (GB/s)",
                                        "Inter-SiP link (GB/s)", "deployment", "batch", "TTFT (ms)", "TPOT (ms)"]
    assert list(table.columns[12:14]) == ["tok/s/PE", "capex ($)"]
    assert table["HBM bandwidth (GB/s)"].tolist() == [d.hw.bw_hbm_gbs for d in ref.designs]
    assert table["tok/$"][0] == pytest.approx(b.tok_s_per_usd) and table["capex ($)"][0] == pytest.approx(b.capex_usd)
    for kind in ("selectbox", "number_input", "text_input", "radio", "button"):     # every new control explained
        assert all(wdg.help for wdg in at.get(kind)), kind


def test_sla_objective_drives_pick_axis_and_sensitivity():
    from infersim.codesign.sla import SLA_OBJECTIVES, sla_answer_lines
    from infersim.report.plots import SLA_AXIS
    from infersim.ui.tabs_codesign_sla import headline_text

    grid = {"peak_tflops_f16": [989.0, 1978.0, 3956.0], "bw_hbm_gbs": [3350.0, 6700.0]}
    at = sla_app(grid)
    picks = set()
    for objective in SLA_OBJECTIVES:
        before = next(iter(charts(at)))
        at.get_by_key("cs_objective").set_value(objective)
        at.run()
        if objective != "tok_s_per_usd":       # the kept result is marked stale, its chart unchanged
            assert any("inputs changed" in x.value for x in at.warning) and next(iter(charts(at))) == before
        at.get_by_key("btn_cs_run").click()
        at.run()
        assert not at.exception and not errors(at) and not any("inputs changed" in x.value for x in at.warning)
        ref = sla_ref(grid, objective)
        unit = SLA_OBJECTIVES[objective][1]
        c = charts(at)
        chart = c[f"Llama 3.1 8B: {unit} at the SLA vs deployment capex"]
        assert chart["layout"]["yaxis"]["title"]["text"] == SLA_AXIS[objective]
        star = next(t for t in chart["data"] if t["name"] == "best")
        assert values(star["y"])[0] == pytest.approx(ref.best.value(objective))
        assert max(values(chart["data"][0]["y"])) == pytest.approx(ref.best.value(objective))
        assert card_text(at, "Co-design").startswith(f"**Answer:** {headline_text(ref, sla_answer_lines(ref.answer())[0])}")
        from infersim.report.labels import label
        sens = c[f"Sensitivity of {label(objective)}: knob ×2 / ×0.5"]
        doubled = next(t for t in sens["data"] if t["name"] == "×2")
        assert values(doubled["x"])[-1] == pytest.approx(100 * ref.sensitivity[0].gain_doubled)
        assert {t["name"] for t in sens["data"]} == {"×2", "×0.5"}
        picks.add(tuple(ref.best.hw.knobs().values()))
    assert len(picks) > 1                                         # the objective changed the pick


def test_sla_mode_without_limits_is_one_line():
    at = sla_app(SLA_GRID, cs_tpot=0.0)                           # no result yet: only the message
    assert not at.exception
    assert errors(at) == ["set a TTFT or a TPOT limit (or both): an SLA co-design needs at least one"]
    assert at.get_by_key("btn_cs_run").disabled and not at.get("plotly_chart")
    at.get_by_key("cs_tpot").set_value(20.0)                      # valid now: the mode's first answer
    at.run()
    assert not errors(at) and card_text(at, "Co-design").startswith("**Answer:** HBM 85.52 GB at")
    at.get_by_key("cs_tpot").set_value(0.0)                       # after a run: message, result kept as stale
    at.run()
    assert not at.exception and len(errors(at)) == 1 and any("inputs changed" in x.value for x in at.warning)


def test_sla_mode_impossible_sla_and_big_grid_are_stated():
    at = sla_app(SLA_GRID, cs_tpot=0.01)
    assert not at.exception and not errors(at)
    text = card_text(at, "Co-design")
    assert text.startswith("**Answer:** no candidate meets the SLA") and "Nearest miss (does NOT meet the SLA): TP" in text
    # issue 27 item 13: the next step names the limit the nearest miss needs (rounded up)
    ref = sla_ref(SLA_GRID, tpot_ms=0.01)
    m = next(d.miss for d in ref.designs if d.miss is not None)
    import math
    assert f"**Next step:** relax TPOT to ≥ {math.ceil(m.tpot_ms * 10) / 10:,g} ms" in text
    assert not at.get("plotly_chart") and len(frame(at, "deployment")) == 2
    ten = ", ".join(str(v) for v in range(100, 1100, 100))
    for k in ("peak_tflops_f16", "bw_intra_gbs", "pe_hbm_gb"):
        at.get_by_key(f"grid_{k}").set_value(ten)
    t0 = time.perf_counter()
    at.run()
    assert time.perf_counter() - t0 < 3.0                         # refused before any search
    assert metric_values(at)["Hardware candidates"] == "–" and at.get_by_key("btn_cs_run").disabled
    assert [e for e in errors(at) if "the grid has 2,000 hardware candidates" in e and "UI stops at 1,000" in e
            and "--max-candidates 2000" in e]


def test_sla_mode_runs_only_on_its_button(monkeypatch):
    from infersim.codesign import sla as sla_codesign

    calls, real = [], sla_codesign.codesign_sla
    monkeypatch.setattr(sla_codesign, "codesign_sla", lambda *a, **k: calls.append(1) or real(*a, **k))
    at = sla_app(SLA_GRID)
    assert len(calls) == 1                                        # the mode's first visit answers at once
    first_line = card_text(at, "Co-design").split("\n")[0]
    timings = []
    for key, value in (("cs_tpot", 30.0), ("cs_isl", 2048), ("cs_batching", "static"), ("batch", 8)):
        t0 = time.perf_counter()
        at.get_by_key(key).set_value(value)
        at.run()
        timings.append(time.perf_counter() - t0)
        assert not at.exception
    assert len(calls) == 1 and max(timings) < 3.0
    assert card_text(at, "Co-design").split("\n")[0] == first_line and any("inputs changed" in x.value for x in at.warning)
    at.get_by_key("btn_cs_run").click()
    at.run()
    assert len(calls) == 2 and "static batching" in card_text(at, "Co-design")
    for mode in ("one step (latency/throughput…)", SLA_MODE):      # the kept result survives the other mode
        at.get_by_key("cd_mode").set_value(mode)
        at.run()
    assert len(calls) == 2 and not any("inputs changed" in x.value for x in at.warning)


# ----- issue 27: edited hardware is named, inputs have minimums, a bad value keeps the results ------
def test_sidebar_minimums_clamp_instead_of_blanking_the_app(app):
    """HBM 0 and batch 0 (reachable with the − button) clamp to the field's minimum: no error."""
    from infersim.specs.hardware import KNOB_RANGE

    key = f"knob_bw_hbm_gbs_{H100.name}"
    app.get_by_key(key).set_value(0.0)
    app.get_by_key("batch").set_value(0)
    app.run()
    assert not app.exception and not errors(app)
    assert app.get_by_key(key).value == KNOB_RANGE[0] and app.get_by_key("batch").value == 1


def test_edited_hardware_is_named_and_resets(app):
    key = f"knob_bw_hbm_gbs_{H100.name}"
    app.get_by_key(key).set_value(6700.0)
    app.run()
    name = "H100-SXM x8, edited: HBM 6,700 GB/s"
    assert f"on {name}:" in card_text(app, "Simulate")
    assert any(c.value.startswith(f"Llama 3.1 8B: 8.03 B params · {name}: 8 PEs") for c in app.caption)
    r = simulate(L8B, H100.with_knobs(bw_hbm_gbs=6700.0), Parallelism(tp=8), Workload("decode", s_kv=8192, batch=16))
    assert metric_values(app)["Latency per token"] == fmt_time(r.total_latency_ns)     # same physics
    app.get_by_key("btn_hw_reset").click()
    app.run()
    assert app.get_by_key(key).value == H100.bw_hbm_gbs and "edited" not in card_text(app, "Simulate")


def test_invalid_sidebar_value_keeps_the_last_good_results(app):
    """An upload prompt (no file yet) is a message in the sidebar; the tabs keep answering."""
    before = card_text(app, "Simulate")
    app.get_by_key("hw").set_value("Upload hardware file…")
    app.run()
    assert not app.exception
    assert any("upload a hardware file" in e for e in errors(app))
    assert any("A sidebar value is invalid" in x.value for x in app.warning)
    assert card_text(app, "Simulate").split("\n")[0] == before.split("\n")[0]


def test_serving_traffic_section_answers_like_simulate_traffic():
    """Issue 21: under the Serving answer, the best deployment served at a request rate — the
    same numbers as simulate_traffic, answer first, then the CDF and the queue/KV timeline."""
    from infersim.serving import Request, Traffic, simulate_traffic, sla_search
    from infersim.serving.answer import traffic_lines

    at = new_app(model="Llama 3.1 8B", hw="H100-SXM x8")
    open_tab(at, "Serving")
    assert not at.exception and not errors(at)
    at.get_by_key("tr_rate").set_value(4.0)
    at.get_by_key("tr_n").set_value(500)
    at.get_by_key("btn_tr_run").click()
    at.run()
    assert not at.exception and not errors(at)
    ref = sla_search(L8B, H100, Request(2048, 512), ttft_ms=2000, tpot_ms=50)
    tr = simulate_traffic(L8B, H100, ref.best.par, Traffic(rate_rps=4.0, n_requests=500, isl=2048, osl=512))
    box = at.get_by_key("tr_box")
    text = "\n".join(e.value for e in box.get("markdown"))
    head = traffic_lines(tr)[0]
    assert f"**Under traffic:** {head}" in text and "p99 TTFT" in head and "at 4 req/s (poisson)" in head
    figs = charts(at)
    cdf = figs["Latency of 500 requests at 4 req/s (poisson)"]
    assert len(cdf["data"]) == 2 and "Queue, batch and KV cache over time" in figs
    assert any(s.get("line", {}).get("dash") == "dash" for s in cdf["layout"]["shapes"])     # the SLO lines


def test_a_first_visit_sweep_stops_past_its_budget():
    """The budget is checked between chunks: a sweep still running past it stops with what it did
    (the card then asks for Run and says why); one that finishes, or one with no budget, runs on."""
    from infersim.ui.state import OverBudget, budget_progress

    seen = []
    progress = budget_progress(0.0, lambda done, total: seen.append((done, total)))
    time.sleep(0.01)
    with pytest.raises(OverBudget, match=r"8 of 64 candidates in \d"):
        progress(8, 64)
    progress(64, 64)                                 # the last chunk: done, nothing to stop
    budget_progress(None)(8, 64)                     # a run the user asked for has no budget
    assert seen == [(8, 64), (64, 64)]


def test_head_dtype_in_the_sidebar():
    """Weights in fp8 keep a 16-bit embedding and LM head unless the sidebar says otherwise: the
    card's latency follows simulate() with the head in each dtype."""
    wl, par = Workload("decode", s_kv=8192, batch=16), Parallelism(tp=1)
    got = {}
    for head in ("as the model", "fp8"):
        at = new_app(model="Llama 3.1 8B", hw="H100-SXM x8", s_kv_decode=8192, batch=16, wdtype="fp8", hdtype=head)
        at.get_by_key("sim_tp").set_value(1)
        at.run()
        assert not at.exception and not errors(at)
        got[head] = metric_values(at)["Latency per token"]
    for head, spec in (("as the model", L8B.with_dtypes(weight="fp8")), ("fp8", L8B.with_dtypes(weight="fp8", head="fp8"))):
        assert got[head] == fmt_time(simulate(spec, H100, par, wl).total_latency_ns)
    assert got["as the model"] != got["fp8"]
