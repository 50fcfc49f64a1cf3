"""Drive every UI tab with Streamlit's AppTest (no browser): widgets set, values asserted."""
import base64
import json
from importlib import resources

import numpy as np
import pytest

pytest.importorskip("streamlit")
from streamlit.testing.v1 import AppTest  # noqa: E402

from infersim import Parallelism, Workload, simulate  # noqa: E402
from infersim.hardware import KNOBS  # noqa: E402
from infersim.hardware_presets import GENERIC_SIP  # noqa: E402
from infersim.model_presets import PRESETS  # noqa: E402

APP = str(resources.files("infersim") / "ui" / "app.py")


@pytest.fixture
def app():
    import streamlit as st

    st.cache_data.clear()
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    assert not at.exception
    return at


def charts(at):
    return {json.loads(c.proto.spec)["layout"]["title"]["text"]: json.loads(c.proto.spec)
            for c in at.get("plotly_chart")}


def values(arr):
    """Plotly 6 ships numeric arrays as base64 {'dtype', 'bdata'}; lists stay lists."""
    if isinstance(arr, dict) and "bdata" in arr:
        return np.frombuffer(base64.b64decode(arr["bdata"]), dtype=arr["dtype"]).tolist()
    return list(arr)


def frame(at, first_col):
    return next(d.value for d in at.dataframe if list(d.value.columns)[0] == first_col)


def test_simulate_tab_matches_simulate(app):
    app.selectbox(key="sim_tp").set_value(8)
    app.selectbox(key="sim_cp").set_value(8)
    app.selectbox(key="sim_scope").set_value("TP+CP")
    app.run()
    assert not app.exception and not app.error
    r = simulate(PRESETS["Llama 3.1 70B"].model, GENERIC_SIP,
                 Parallelism(tp=8, cp=8, ffn_shard_scope="TP+CP"), Workload("decode", s_kv=131072))
    metrics = {m.label: m.value for m in app.metric}
    assert metrics["Latency"] == f"{r.total_latency_ns / 1e6:.3f} ms"
    assert metrics["Bound"] == r.bound
    bar = charts(app)[f"TP8 CP8 PP1 DP1 — {r.total_latency_ns / 1e6:.3f} ms"]
    names = {t["name"] for t in bar["data"]}
    assert {"hbm", "ffn_allreduce", "cp_combine"} <= names
    table = frame(app, "component")
    assert table["ms"].sum() == pytest.approx(r.total_latency_ns / 1e6)


def test_simulate_bad_parallelism_shows_message_and_app_keeps_working(app):
    app.selectbox(key="model").set_value("Llama 2 7B")       # 32 heads
    app.selectbox(key="sim_tp").set_value(64)
    app.run()
    assert not app.exception
    assert any("must divide n_heads" in e.value for e in app.error)
    assert len(frame(app, "rank")) > 0                        # Explore tab still rendered


def test_explore_tab(app):
    app.selectbox(key="ex_objective").set_value("throughput")
    app.number_input(key="ex_top").set_value(10)
    app.run()
    assert not app.exception
    table = frame(app, "rank")
    assert len(table) == 10
    assert list(table["tokens_per_s"]) == sorted(table["tokens_per_s"], reverse=True)
    scatter = charts(app)["Latency vs PEs used"]
    assert any(t["name"] == "autosuggest (least memory)" for t in scatter["data"])
    assert any("autosuggest" in i.value for i in app.info)


def test_codesign_tab_balanced(app, monkeypatch):
    import infersim.auto_hardware as ah

    calls = []
    real = ah.joint_explore
    monkeypatch.setattr(ah, "joint_explore", lambda *a, **k: calls.append(1) or real(*a, **k))
    app.button(key="cd_run").click().run()
    assert not app.exception and not app.error
    pareto = frame(app, "hw_pe_hbm_gb")
    assert len(pareto) >= 1
    c = charts(app)
    sens = c["Sensitivity: speedup when one knob changes"]
    assert sorted(sens["data"][0]["y"]) == sorted(KNOBS)
    assert sens["data"][0]["y"][-1] == "bw_hbm_gbs"          # top bar (plotted bottom-up)
    front = c["Pareto frontier: total_latency_ms vs cost_score"]
    assert {t["name"] for t in front["data"]} == {"pairs", "Pareto frontier"}
    assert len(values(front["data"][0]["x"])) == 64
    assert min(values(front["data"][1]["y"])) == pytest.approx(min(values(front["data"][0]["y"])))
    assert len(frame(app, "knob")) == 6
    assert len(app.get("download_button")) == 2
    # changing a view re-renders from the cache: same objects, no new sweep
    app.number_input(key="ex_top").set_value(5)
    app.run()
    assert len(frame(app, "hw_pe_hbm_gb")) == len(pareto)
    assert len(calls) == 1


def test_codesign_custom_grid_and_errors(app):
    app.selectbox(key="cd_depth").set_value("custom").run()
    app.text_input(key="grid_bw_hbm_gbs").set_value("1000,2000")
    app.text_input(key="grid_peak_tflops_f16").set_value("250, 500, 1000")
    app.run()
    assert {m.label: m.value for m in app.metric}["Hardware candidates"] == "6"
    app.button(key="cd_run").click().run()
    assert not app.exception
    assert len(frame(app, "hw_pe_hbm_gb")) >= 1
    # an impossible sweep (nothing fits) and a malformed grid are messages, not crashes
    app.text_input(key="grid_pe_hbm_gb").set_value("0.5")
    app.run()
    assert not app.exception
    assert any("impossible sweep" in e.value for e in app.error)
    app.text_input(key="grid_pe_hbm_gb").set_value("lots")
    app.run()
    assert any("must be numbers" in e.value for e in app.error)
    assert {m.label for m in app.metric} >= {"Latency"}      # Simulate tab still alive


def test_bad_hardware_edit_is_a_message(app):
    app.number_input(key=f"knob_bw_hbm_gbs_{GENERIC_SIP.name}").set_value(0.0)
    app.run()
    assert not app.exception
    assert any("bw_hbm_gbs must be > 0" in e.value for e in app.error)


def test_simulate_moe_with_expert_parallel(app):
    app.selectbox(key="model").set_value("Mixtral 8x7B")
    app.run()
    app.selectbox(key="sim_tp").set_value(8)
    app.number_input(key="sim_ep").set_value(8)
    app.run()
    assert not app.exception and not app.error
    names = {t["name"] for spec in charts(app).values() for t in spec["data"] if "name" in t}
    assert "ep_alltoall" in names


def test_runtime_selector_changes_the_simulation(app):
    app.selectbox(key="sim_tp").set_value(8)
    app.selectbox(key="runtime").set_value("eager")
    app.run()
    assert not app.exception and not app.error
    eager = simulate(PRESETS["Llama 3.1 70B"].model, GENERIC_SIP, Parallelism(tp=8),
                     Workload("decode", s_kv=131072), runtime="eager")
    graphs = simulate(PRESETS["Llama 3.1 70B"].model, GENERIC_SIP, Parallelism(tp=8),
                      Workload("decode", s_kv=131072))
    metrics = {m.label: m.value for m in app.metric}
    assert metrics["Latency"] == f"{eager.total_latency_ns / 1e6:.3f} ms"
    assert eager.total_latency_ns > graphs.total_latency_ns
