"""Exports that carry everything a result depends on, ``infersim rerun``, the grid-value parser
and hardware files read from uploaded content."""
import json

import pytest

from infersim import InferSimError, Parallelism
from infersim.cli import main as cli_main
from infersim.codesign.grid import parse_grid, parse_values
from infersim.exports import Run, compute, dumps, read_export, rerun, to_export
from infersim.hardware_presets import GENERIC_SIP, HW_PRESETS, spec_from_text
from infersim.loaders.hardware_files import MAX_HW_FILE_BYTES
from infersim.runtime import get_runtime

H100 = HW_PRESETS["H100-SXM x8"]
WL = {"mode": "decode", "s_kv": 8192, "batch": 16, "s_q": None}
SERVE = {"request": {"isl": 1024, "osl": 256, "prefix_hit": 0.0}, "ttft_ms": 1000.0, "tpot_ms": 40.0,
         "objective": "tok_s_per_pe", "batching": "continuous", "chunk_tokens": 8192, "batch_cap": 512,
         "disaggregated": True}
SLA_CD = {"request": {"isl": 1024, "osl": 256}, "ttft_ms": None, "tpot_ms": 20.0, "objective": "tok_s_per_usd",
          "depth": "custom", "grid": {"bw_hbm_gbs": [3350.0, 6700.0]}, "batching": "continuous"}


def runs(model):
    return {"simulate": Run("simulate", model, H100, "eager", {"workload": WL, "parallelism": {"tp": 2}}),
            "explore": Run("explore", model, H100, "cuda-graphs", {"workload": WL, "objective": "throughput"}),
            "codesign": Run("codesign", model, GENERIC_SIP, "cuda-graphs",
                            {"workload": WL, "objective": "tok_s_per_usd", "depth": "custom",
                             "grid": {"bw_hbm_gbs": [1000, 2000], "n_sips": [1, 2]}, "design_point": "base"}),
            "serve": Run("serve", model, H100, "cuda-graphs", SERVE),
            "codesign_sla": Run("codesign_sla", model, H100, "cuda-graphs", SLA_CD)}


@pytest.mark.parametrize("kind", ["simulate", "explore", "codesign", "serve", "codesign_sla"])
def test_export_round_trip_gives_the_same_answer(llama8b, kind):
    job = runs(llama8b)[kind]
    out = compute(job)
    text = dumps(to_export(job, out))
    d = json.loads(text)
    assert list(d)[:8] == ["format", "format_version", "infersim_version", "kind", "model", "hardware",
                           "runtime", next(iter(job.inputs))]
    assert d["model"]["hidden"] == llama8b.hidden and d["hardware"]["name"] == job.hardware.name
    job2, out2, _ = rerun(text)
    assert job2.model == llama8b and job2.hardware == job.hardware and job2.inputs == json.loads(json.dumps(job.inputs))
    assert out2.answer == out.answer


def test_export_of_a_custom_model_and_edited_hardware_round_trips(llama8b):
    model = llama8b.with_dtypes(weight="fp8", kv="fp8")
    hw = H100.with_knobs(bw_hbm_gbs=5000.0)
    job = Run("simulate", model, hw, "cuda-graphs", {"workload": WL, "parallelism": Parallelism(tp=4).to_dict()})
    job2, out2, _ = rerun(dumps(to_export(job, compute(job))))
    assert job2.model == model and job2.hardware == hw
    assert out2.answer == compute(job).answer


@pytest.mark.parametrize("text, needle", [
    ("{", "x.json: not JSON"),
    ("[1]", "x.json: not an infersim export"),
    ('{"format": "infersim-export", "format_version": 7}', "format_version 7; this infersim reads 1"),
    ('{"format": "infersim-export", "format_version": 1, "kind": "nope"}', "unknown export kind 'nope'"),
])
def test_malformed_exports_are_one_line(text, needle):
    with pytest.raises(InferSimError, match=needle.replace("(", r"\(")):
        read_export(text, "x.json")


def test_export_of_a_runtime_that_is_no_profile_keeps_its_fields(llama8b):
    """A runtime file (or an edited profile) is exported field by field and re-runs the same."""
    from dataclasses import replace

    job = runs(llama8b)["simulate"]
    mine = replace(get_runtime("vllm"), name="my-stack", seq_ns=9000.0)
    own = replace(job, runtime=mine)
    d = to_export(own, compute(own))
    assert d["runtime"]["seq_ns"] == 9000.0 and to_export(job, compute(job))["runtime"] == job.runtime
    again, _ = read_export(dumps(d), "x.json")
    assert again.runtime == mine and compute(again).answer == compute(own).answer


def test_export_with_bad_specs_or_inputs_is_one_line(llama8b):
    job = runs(llama8b)["simulate"]
    good = to_export(job, compute(job))
    for patch, needle in (({"model": {**good["model"], "colour": 1}}, "model: unknown field 'colour'"),
                          ({"model": {"name": "x"}}, "model: "),
                          ({"hardware": {**good["hardware"], "bw_hbm_gbs": -1}}, "hardware: bw_hbm_gbs must be > 0"),
                          ({"parallelism": None}, "missing input 'parallelism'"),
                          ({"runtime": 3}, "runtime must be a profile name or a table of runtime fields"),
                          ({"runtime": {**get_runtime(None).to_dict(), "name": "x", "kernel_gap_ns": -1}},
                           "runtime: kernel_gap_ns must be")):
        d = {**good, **patch}
        if patch.get("parallelism", 0) is None:
            del d["parallelism"]
        with pytest.raises(InferSimError, match=needle) as e:
            read_export(json.dumps(d), "x.json")
        assert "\n" not in str(e.value)
    bad = {**good, "parallelism": {"tp": 3}}
    with pytest.raises(InferSimError, match="x.json: tp .3. must divide n_heads"):
        rerun(json.dumps(bad), "x.json")


def test_cli_rerun(llama8b, tmp_path, capsys):
    job = runs(llama8b)["codesign"]
    path = tmp_path / "cd.json"
    path.write_text(dumps(to_export(job, compute(job))))
    assert cli_main(["rerun", str(path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["same_answer_as_export"] is True and out["kind"] == "codesign" and out["grid"]["n_sips"] == [1, 2]
    d = json.loads(path.read_text())
    d["answer"] = ["something else"]
    path.write_text(json.dumps(d))
    assert cli_main(["rerun", str(path)]) == 0
    assert "The answer differs from the export, which said:" in capsys.readouterr().out
    for content, needle in (("{", "error: cd.json: not JSON"), ("[]", "error: cd.json: not an infersim export")):
        path.write_text(content)
        assert cli_main(["rerun", str(path)]) == 2
        err = capsys.readouterr().err
        assert err.startswith(needle) and err.count("\n") == 1
    assert cli_main(["rerun", str(tmp_path / "missing.json")]) == 2
    assert capsys.readouterr().err == f"error: export file not found: {tmp_path / 'missing.json'}\n"


def test_codesign_sla_export_is_the_library_answer(llama8b):
    from infersim.codesign.sla import codesign_sla, sla_answer_lines
    from infersim.serving import Request

    job = runs(llama8b)["codesign_sla"]
    out = compute(job)
    ref = codesign_sla(llama8b, Request(1024, 256), tpot_ms=20, depth="custom",
                       custom={"bw_hbm_gbs": [3350.0, 6700.0]}, base_hw=H100)
    assert out.answer == list(sla_answer_lines(ref.answer())) and out.answer[0].startswith("Answer: ") and out.answer[0].startswith("Answer: HBM ") and " GB at " in out.answer[0]
    d = json.loads(dumps(to_export(job, out)))
    assert d["kind"] == "codesign_sla" and d["ttft_ms"] is None and d["grid"] == {"bw_hbm_gbs": [3350.0, 6700.0]}
    res = d["result"]
    assert res["n_hardware"] == 2 and res["n_meeting"] == ref.n_meeting
    assert res["best"]["tok_s_per_usd"] == pytest.approx(ref.best.tok_s_per_usd)
    assert res["best"]["hw_bw_hbm_gbs"] == ref.best.hw.bw_hbm_gbs and len(res["top"]) == 2
    assert [s["knob"] for s in res["sensitivity"]] == [s.knob for s in ref.sensitivity]
    assert res["answer"]["parallelism"] == ref.best.point.par.describe()


def test_cli_rerun_codesign_sla(llama8b, tmp_path, capsys):
    job = runs(llama8b)["codesign_sla"]
    out = compute(job)
    good = to_export(job, out)
    path = tmp_path / "sla.json"
    path.write_text(dumps(good))
    assert cli_main(["rerun", str(path)]) == 0
    printed = capsys.readouterr().out
    assert "Re-run of a codesign_sla export" in printed and "Same answer as the export." in printed
    assert out.answer[1] in " ".join(printed.split())
    for patch, needle in (({"objective": "latency"}, "error: sla.json: unknown objective 'latency'"),
                          ({"tpot_ms": None}, "error: sla.json: an SLA co-design needs a TTFT or a TPOT limit"),
                          ({"ttft_ms": "fast"}, "error: sla.json: ttft_ms must be a positive number"),
                          ({"batching": "eager"}, "error: sla.json: unknown batching 'eager'"),
                          ({"request": {"isl": 0, "osl": 256}}, "error: sla.json: request: isl must be an integer"),
                          ({"depth": "deep"}, "error: sla.json: unknown depth 'deep'")):
        path.write_text(dumps({**good, **patch}))
        assert cli_main(["rerun", str(path)]) == 2, patch
        err = capsys.readouterr().err
        assert err.startswith(needle) and err.count("\n") == 1, (patch, err)
    missing = {k: v for k, v in good.items() if k != "batching"}
    path.write_text(dumps(missing))
    assert cli_main(["rerun", str(path)]) == 2
    assert "codesign_sla export: missing input 'batching'" in capsys.readouterr().err


def test_grid_values_reject_thousands_separators():
    assert parse_values("1000, 2000,4e3", "bw") == [1000.0, 2000.0, 4000.0]
    assert parse_values("250,500", "tf") == [250.0, 500.0]          # commas still separate values
    for text, shown in (("1,000", "1000"), ("2,048, 4,096", "2048"), ("10,000,20,000", "10000")):
        with pytest.raises(InferSimError, match=f"looks like a thousands separator.*write {shown}$"):
            parse_values(text, "bw")
    assert parse_grid("bw_hbm_gbs=1000,2000;n_sips=1,4") == {"bw_hbm_gbs": [1000.0, 2000.0], "n_sips": [1.0, 4.0]}
    with pytest.raises(InferSimError, match="bad --grid values for 'bw_hbm_gbs': '1,000' looks like"):
        parse_grid("bw_hbm_gbs=1,000")


def test_cli_grid_with_a_thousands_separator_is_one_line(capsys):
    assert cli_main(["codesign", "--depth", "custom", "--grid", "bw_hbm_gbs=1,000,2,000"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "looks like a thousands separator" in err


def test_hardware_from_uploaded_content(tmp_path):
    toml = b'base = "H100-SXM x8"\nname = "H100 faster HBM"\nbw_hbm_gbs = 4000.0\nsource = "test"\n'
    hw = spec_from_text(toml, "fast.toml")
    assert hw.name == "H100 faster HBM" and hw.bw_hbm_gbs == 4000.0 and hw.pe_hbm_gb == H100.pe_hbm_gb
    js = json.dumps({"base": "H100-SXM x8", "n_sips": 2, "source": "test"}).encode()
    assert spec_from_text(js, "two.json").n_sips == 2
    assert spec_from_text(b"base: H100-SXM x8\nsource: test\n", "c.yaml").name == H100.name
    secret = tmp_path / "secret.toml"
    secret.write_bytes(toml)
    for data, name, needle in (
            (str(secret).encode(), "x.toml", "x.toml: cannot parse TOML"),      # a path is content, not a file
            (b"x", "chip.txt", "chip.txt: hardware files end in .json, .toml, .yaml, .yml"),
            (b" " * (MAX_HW_FILE_BYTES + 1), "big.json", "big.json is larger than 1 MiB"),
            (b"\xff\xfe", "bin.toml", "bin.toml is not UTF-8"),
            (b'source = "t"\nbase = "Nope"\n', "n.toml", "unknown hardware preset 'Nope'"),
            (b'source = "t"\nbase = "H100-SXM x8"\nbw_hbm = 1\n', "k.toml", "did you mean 'bw_hbm_gbs'")):
        with pytest.raises(InferSimError, match=needle) as e:
            spec_from_text(data, name)
        assert "\n" not in str(e.value)
