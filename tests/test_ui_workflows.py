"""UI workflows through AppTest: pin from every tab and compare, open any row in Simulate,
exports that re-run, and uploads that are parsed as content."""
import json
from importlib import resources

import pytest

pytest.importorskip("streamlit")

from infersim import Parallelism, Workload, simulate  # noqa: E402
from infersim.auto_explore import auto_explore  # noqa: E402
from infersim.cli import main as cli_main  # noqa: E402
from infersim.exports import Run, compute, dumps, to_export  # noqa: E402
from infersim.hardware_presets import HW_PRESETS  # noqa: E402
from infersim.model_presets import PRESETS  # noqa: E402
from infersim.report.fmt import fmt_time  # noqa: E402
from ui_support import card_text, charts, errors, frame, metric_values, new_app, open_tab, small_app, values  # noqa: E402

H100 = HW_PRESETS["H100-SXM x8"]
L8B = PRESETS["Llama 3.1 8B"].model
WL = Workload("decode", s_kv=8192, batch=16)
MYCHIP = resources.files("infersim").joinpath("..", "..", "docs", "examples", "mychip.toml")


@pytest.fixture
def app():
    return small_app()


def test_pin_simulate_and_an_explore_row_then_compare(app):
    app.get_by_key("btn_pin_sim").click()
    app.run()
    assert "pinned to Compare" in card_text(app, "Simulate")
    open_tab(app, "Explore")
    app.get_by_key("ex_row").set_value(2)
    app.run()
    app.get_by_key("btn_ex_pin_row").click()
    app.run()
    row2 = auto_explore(L8B, H100, WL).configs.config(1)
    open_tab(app, "Compare")
    assert not app.exception and not errors(app)
    table = frame(app, "from")
    assert list(table["from"]) == ["Simulate", "Explore"]
    assert table["parallelism"][0].startswith("TP8 CP1 PP1 DP1") and table["parallelism"][1].startswith(row2.describe())
    sim8 = simulate(L8B, H100, Parallelism(tp=8), WL)
    ex2 = simulate(L8B, H100, row2, WL)
    assert table["latency (ms)"].tolist() == pytest.approx([sim8.total_latency_ns / 1e6, ex2.total_latency_ns / 1e6])
    fast = 1 if sim8.total_latency_ns <= ex2.total_latency_ns else 2
    assert card_text(app, "Compare").startswith(f"**Fastest:** #{fast} ")
    bars = charts(app)["Latency breakdown, one scale"]
    assert all(len(t["y"]) == 2 for t in bars["data"])             # every component: both pins, one axis
    assert {t.get("xaxis", "x") for t in bars["data"]} == {"x"}
    mem = charts(app)["Memory per PE"]
    assert len(values(mem["data"][0]["x"])) == 2
    # remove one, then clear
    app.get_by_key("cmp_pin").set_value(table["pin"][0])
    app.get_by_key("btn_cmp_remove").click()
    app.run()
    assert len(frame(app, "from")) == 1
    app.get_by_key("btn_cmp_clear").click()
    app.run()
    assert card_text(app, "Compare").startswith("**Nothing pinned yet.**")


def test_open_an_explore_row_in_simulate(app):
    open_tab(app, "Explore")
    app.get_by_key("ex_row").set_value(3)
    app.run()
    app.get_by_key("btn_ex_open_row").click()
    app.run()
    row3 = auto_explore(L8B, H100, WL)
    par = row3.configs.config(2)
    assert app.session_state["tab"] == "Simulate"
    assert "opened in Simulate: Explore row #3" in card_text(app, "Simulate")
    assert (app.get_by_key("sim_tp").value, app.get_by_key("sim_cp").value, app.get_by_key("sim_pp").value,
            app.get_by_key("sim_kv").value) == (par.tp, par.cp, par.pp, par.kv_shard_mode)
    assert metric_values(app)["Latency per token"] == fmt_time(row3.latency_ns[2])


def test_open_a_codesign_design_in_simulate_and_pin_it(app):
    from infersim.auto_hardware import joint_explore

    open_tab(app, "Co-design")
    app.get_by_key("btn_cd_open_best").click()
    app.run()
    ref = joint_explore(L8B, s_kv=8192, batch=16, depth="balanced", base_hw=H100).best
    assert app.session_state["tab"] == "Simulate" and not errors(app)
    for k, v in ref.hw.knobs().items():
        assert app.get_by_key(f"knob_{k}_{H100.name}").value == pytest.approx(v)
    assert metric_values(app)["Latency per token"] == fmt_time(ref.total_latency_ns)
    open_tab(app, "Co-design")
    app.get_by_key("btn_cd_pin_best").click()
    app.run()
    open_tab(app, "Compare")
    table = frame(app, "from")
    assert table["from"].tolist() == ["Co-design"]
    assert table["capex ($)"][0] == pytest.approx(ref.system_cost_usd)


def test_pin_serving_answers(app):
    open_tab(app, "Serving")
    res = app.session_state["_res_serving"]["outcome"].result
    app.get_by_key("btn_sv_pin").click()
    app.run()
    if res.disaggregated is not None:
        app.get_by_key("btn_sv_pin_dis").click()
        app.run()
    open_tab(app, "Compare")
    table = frame(app, "from")
    assert table["TTFT (ms)"][0] == pytest.approx(res.best.ttft_ms)
    assert table["tok/s per PE"][0] == pytest.approx(res.best.tok_s_per_pe)
    assert len(table) == 1 + (res.disaggregated is not None)


@pytest.mark.parametrize("tab, kind", [("Simulate", "simulate"), ("Explore", "explore"),
                                       ("Co-design", "codesign"), ("Serving", "serve")])
def test_every_tab_exports_what_it_depends_on_and_reruns(app, tmp_path, capsys, tab, kind):
    open_tab(app, tab)
    assert app.get("download_button")
    if kind == "simulate":     # Simulate keeps no sweep result: rebuild its Run from the controls
        job = Run("simulate", L8B, H100, "cuda-graphs",
                  {"workload": {"mode": "decode", "s_kv": 8192, "batch": 16, "s_q": None},
                   "parallelism": Parallelism(tp=8).to_dict()})
        out = compute(job)
        assert card_text(app, tab).startswith(f"**Answer:** {out.answer[0]}")
    else:
        stored = app.session_state[f"_res_{ {'serve': 'serving'}.get(kind, kind)}"]
        job, out = stored["run"], stored["outcome"]
    export = json.loads(dumps(to_export(job, out)))
    assert export["model"] == json.loads(json.dumps(L8B.to_dict()))            # the full spec
    assert export["hardware"]["bw_hbm_gbs"] == H100.bw_hbm_gbs and export["hardware"]["compute_eff"]
    assert export["runtime"] == "cuda-graphs" and export["infersim_version"]
    assert {"workload", "objective", "depth", "grid", "request", "parallelism"} & set(export)
    if kind in ("explore", "codesign", "serve"):
        assert export["objective"]
    path = tmp_path / f"{kind}.json"
    path.write_text(dumps(export))
    assert cli_main(["rerun", str(path)]) == 0
    printed = capsys.readouterr().out
    assert "Same answer as the export." in printed and out.answer[0][:40] in " ".join(printed.split())


def test_compare_reruns_an_uploaded_export_and_pins_it(app):
    job = Run("simulate", L8B, H100, "cuda-graphs",
              {"workload": {"mode": "decode", "s_kv": 8192, "batch": 16, "s_q": None},
               "parallelism": Parallelism(tp=2).to_dict()})
    data = dumps(to_export(job, compute(job))).encode()
    open_tab(app, "Compare")
    app.get_by_key("export_upload").set_value(("tp2.json", data, "application/json"))
    app.run()
    assert not app.exception and not errors(app)
    assert "re-ran the simulate export tp2.json: same answer as the export; pinned" in card_text(app, "Compare")
    table = frame(app, "from")
    assert table["from"].tolist() == ["Export"] and table["parallelism"][0].startswith("TP2 CP1 PP1 DP1")
    app.run()                                                     # not pinned again on the next rerun
    assert len(frame(app, "from")) == 1


def test_malformed_export_upload_is_one_line(app):
    open_tab(app, "Compare")
    app.get_by_key("export_upload").set_value(("x.json", b'{"format": "something else"}', "application/json"))
    app.run()
    assert not app.exception
    assert errors(app) == ['x.json: not an infersim export (no "format": "infersim-export"); export one from '
                           "the UI's Download result (JSON)"]


def _upload_hw(content: bytes, name: str):
    at = new_app(hw="Upload hardware file…")
    assert any("upload a hardware file" in e for e in errors(at))
    at.get_by_key("hw_upload").set_value((name, content, "application/toml"))
    at.run()
    assert not at.exception
    return at


def test_uploaded_hardware_file_is_parsed_as_content(touched):
    at = _upload_hw(MYCHIP.read_bytes(), "mychip.toml")
    assert not errors(at)
    assert any("MyChip x8 x4" in c.value for c in at.caption)
    assert "MyChip x8 x4" in card_text(at, "Simulate")
    touched.clear()
    messages = []
    for content in (b"/etc/passwd", b"/nonexistent/chip.toml"):     # an existing and a missing path
        messages.append(errors(_upload_hw(content, "chip.toml")))
    assert all(len(m) == 1 and m[0].startswith("chip.toml: cannot parse TOML:") for m in messages)
    assert "root:" not in str(messages)
    assert "/etc/passwd" not in touched and "/nonexistent/chip.toml" not in touched


def test_bad_hardware_upload_is_one_line():
    at = _upload_hw(b'{"name": "x", "source": "t"}', "x.json")
    assert len(errors(at)) == 1 and "x.json: missing hardware field" in errors(at)[0]


# ----- Co-design at a serving SLA ------------------------------------------------------------------
SLA_GRID = {"bw_hbm_gbs": [3350.0, 6700.0]}


def sla_app():
    """Co-design opened straight in SLA mode: 8B on H100 x8, HBM bandwidth 3350/6700, 1024+256
    tokens, TPOT <= 20 ms."""
    at = small_app()
    for k, v in {"cd_mode": "serving SLA (tokens per $ at TTFT/TPOT)", "cd_depth": "custom", "cs_isl": 1024,
                 "cs_osl": 256, "cs_ttft": 0.0, "cs_tpot": 20.0, "grid_bw_hbm_gbs": "3350, 6700",
                 "grid_peak_tflops_f16": ""}.items():
        at.session_state[k] = v
    return open_tab(at, "Co-design")


def sla_best():
    from infersim.codesign.sla import codesign_sla
    from infersim.serving import Request

    return codesign_sla(L8B, Request(1024, 256), tpot_ms=20, depth="custom", custom=SLA_GRID, base_hw=H100).best


def test_open_the_sla_codesign_best_in_simulate_and_pin_it():
    at = sla_app()
    b = sla_best()
    at.get_by_key("btn_cs_open").click()
    at.run()
    assert at.session_state["tab"] == "Simulate" and not errors(at)
    assert "opened in Simulate: SLA co-design best" in card_text(at, "Simulate")
    for k, v in b.hw.knobs().items():
        assert at.get_by_key(f"knob_{k}_{H100.name}").value == pytest.approx(v)
    par = b.point.par
    assert (at.get_by_key("sim_tp").value, at.get_by_key("sim_cp").value, at.get_by_key("sim_pp").value) == \
        (par.tp, par.cp, par.pp)
    assert at.get_by_key("batch").value == b.point.batch and at.get_by_key("s_kv_decode").value == 1024 + 128
    step = simulate(L8B, b.hw.to_hardware(H100), par, Workload("decode", s_kv=1152, batch=b.point.batch))
    assert metric_values(at)["Latency per token"] == fmt_time(step.total_latency_ns)
    open_tab(at, "Co-design")
    at.get_by_key("btn_cs_pin").click()
    at.run()
    assert "pinned to Compare: Co-design SLA:" in card_text(at, "Co-design")
    open_tab(at, "Compare")
    table = frame(at, "from")
    assert table["from"].tolist() == ["Co-design SLA"]
    assert table["TPOT (ms)"][0] == pytest.approx(b.point.tpot_ms) and table["capex ($)"][0] == pytest.approx(b.capex_usd)
    assert table["tok/s per PE"][0] == pytest.approx(b.point.tok_s_per_pe)


def test_sla_codesign_exports_and_reruns(tmp_path, capsys):
    at = sla_app()
    assert at.get_by_key("dl_cs_json") is not None
    stored = at.session_state["_res_codesign_sla"]
    job, out = stored["run"], stored["outcome"]
    export = json.loads(dumps(to_export(job, out)))
    assert export["kind"] == "codesign_sla" and export["hardware"]["name"] == H100.name
    assert (export["request"], export["ttft_ms"], export["tpot_ms"], export["grid"]) == \
        ({"isl": 1024, "osl": 256, "prefix_hit": 0.0}, None, 20.0, {"bw_hbm_gbs": [3350.0, 6700.0]})
    from infersim.ui.tabs_codesign_sla import headline_text  # the card names the knobs in words

    res = at.session_state["_res_codesign_sla"]["outcome"].result
    assert card_text(at, "Co-design").split("\n")[0] == f"**Answer:** {headline_text(res, export['answer'][0])}"
    path = tmp_path / "sla.json"
    path.write_text(dumps(export))
    assert cli_main(["rerun", str(path)]) == 0
    printed = " ".join(capsys.readouterr().out.split())
    assert "Same answer as the export." in printed and out.answer[1] in printed
    open_tab(at, "Compare")                                      # Compare re-runs it and pins the best
    at.get_by_key("export_upload").set_value(("sla.json", path.read_bytes(), "application/json"))
    at.run()
    assert not at.exception and not errors(at)
    assert "re-ran the codesign_sla export sla.json: same answer as the export; pinned" in card_text(at, "Compare")
    assert frame(at, "from")["TPOT (ms)"][0] == pytest.approx(sla_best().point.tpot_ms)
