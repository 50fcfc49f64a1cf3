"""The serving-under-load section of ``infersim validate``: published request-rate rows
(validation/data/published_load.jsonl) mapped onto presets and predicted by the traffic simulator."""
import json
from dataclasses import replace
from statistics import median

import pytest

from infersim import Parallelism, Workload
from infersim.cli import main
from infersim.hardware_presets import HW_PRESETS
from infersim.model_presets import PRESETS
from infersim.simulate import simulate
from infersim.validation.data import published_load as pl
from infersim.validation.rows import DTYPES
from infersim.validation.under_load import LoadReport, LoadResult, predict, run_load_validation


@pytest.fixture(scope="module")
def section() -> LoadReport:
    return run_load_validation()


def test_every_line_is_mapped_or_says_why():
    lines = pl.read()
    loaded = pl.load(set(PRESETS), set(HW_PRESETS))
    assert len(loaded) == len(lines) > 200
    for d, row, why in loaded:
        assert (row is None) == bool(why), d
        for k in ("source", "title", "where", "engine", "model", "gpu", "metric", "stat", "value", "note"):
            assert d[k] not in (None, ""), (k, d)
        if row is not None:
            assert row.model in PRESETS and row.hw in HW_PRESETS and row.dtypes in DTYPES
            assert row.traffic.rate_rps == d["rate_rps"] and row.traffic.n_requests == d["n_requests"]
            assert row.metric in pl.METRICS and row.value > 0
    # the MLPerf Server lines are kept, with the reason they cannot be predicted
    why = {w for d, r, w in loaded if d["source"].startswith("mlperf")}
    assert why and all("mean input length" in w for w in why)
    assert len({d["source"] for d, r, _ in loaded if r is not None}) >= 2


def test_reasons_for_lines_that_cannot_be_expressed():
    d = next(d for d in pl.read() if not d.get("exclude"))
    ok = (set(PRESETS), set(HW_PRESETS))
    assert pl._reason(d, *ok) == ""
    assert "no hardware preset" in pl._reason({**d, "gpu": "TPU-v5e"}, *ok)
    assert "no model preset" in pl._reason({**d, "model": "org/unknown"}, *ok)
    assert "stat p9x" in pl._reason({**d, "stat": "p9x"}, *ok)
    assert "not predicted" in pl._reason({**d, "metric": "goodput"}, *ok)


def test_lognormal_lengths_have_the_published_means():
    """ShareGPT rows: the clipped lognormal's median is solved so its clipped mean is the published one."""
    d = next(d for d in pl.read() if d.get("lengths", {}).get("kind") == "lognormal")
    for which in ("isl", "osl"):
        lens = pl.lengths_of(d, which)
        assert lens.kind == "lognormal" and lens.mean < d[which]          # the median sits below the mean
        assert pl.sample_mean(lens) == pytest.approx(d[which], rel=0.01)


def test_uniform_lengths_span_the_range_ratio():
    """A client's random lengths within ±range_ratio of the stated length (vllm bench's --random-range-ratio):
    uniform on [n(1-r), n(1+r)], mean n; the published rows of that kind map so."""
    d = {"isl": 20000, "osl": 2000, "lengths": {"kind": "uniform", "range_ratio": 0.15}}
    isl, osl = pl.lengths_of(d, "isl"), pl.lengths_of(d, "osl")
    assert (isl.kind, isl.low, isl.high) == ("uniform", 17000, 23000) and (osl.low, osl.high) == (1700, 2300)
    assert pl.sample_mean(isl) == pytest.approx(20000, rel=0.002) and osl.max == 2300
    rows = [(d, row) for d, row, _ in pl.load(set(PRESETS), set(HW_PRESETS))
            if row is not None and d.get("lengths", {}).get("kind") == "uniform"]
    assert rows
    for d, row in rows:
        t = row.traffic
        assert t.isl.kind == "uniform" and t.isl.low < d["isl"] < t.isl.high and t.arrival == d["arrival"]


def test_vanishing_rate_ttft_is_the_lone_prefill():
    """Hand check: at 0.001 req/s every request is alone, so TTFT = one prefill of its prompt and TPOT = the
    batch-1 decode step at the mean context, both from ``simulate``."""
    d = next(d for d in pl.read() if d["source"].startswith("trtllm") and d["isl"] == 202 and d["tp"] == 1)
    row = pl.to_row({**d, "rate_rps": 0.001, "n_requests": 20})
    w, a, kv = DTYPES[row.dtypes]
    model = PRESETS[row.model].model.with_dtypes(weight=w, act=a, kv=kv)
    hw, par = HW_PRESETS[row.hw], Parallelism(tp=row.tp)
    ttft = simulate(model, hw, par, Workload("prefill", s_kv=202, batch=1), row.runtime).total_latency_ns / 1e6
    tpot = simulate(model, hw, par, Workload("decode", s_kv=202 + 107, batch=1), row.runtime).total_latency_ns / 1e6
    assert predict([replace(row, metric="ttft_ms", stat="median")])[0] == pytest.approx(ttft, rel=0.01)
    assert predict([replace(row, metric="tpot_ms", stat="median")])[0] == pytest.approx(tpot, rel=0.02)


def test_per_source_medians_are_the_rows_medians(section):
    d = section.to_dict()
    assert d["fitted"] is False and d["rows_predicted"] == len(d["rows"]) > 200
    errs = {}
    for r in d["rows"]:
        assert r["error"] == pytest.approx(r["predicted"] / r["measured"] - 1)
        errs.setdefault(r["source"], []).append(r["error"])
    for s in d["by_source"]:
        e = errs.get(s["source"], [])
        assert s["rows"] == len(e)
        if e:
            assert s["median_abs_error"] == pytest.approx(median(abs(x) for x in e))
            assert s["median_signed_error"] == pytest.approx(median(e))
    every = [x for e in errs.values() for x in e]
    assert d["median_abs_error"] == pytest.approx(median(abs(x) for x in every))
    assert sum(s["not_expressed"] for s in d["by_source"]) == len(d["not_expressed"]) > 0


def test_section_is_deterministic(section):
    rows = [r.row for r in section.results[:12]]
    assert predict(rows) == [r.predicted for r in section.results[:12]]


def test_queue_beyond_saturation_raises_ttft(section):
    """Invariant of the predictions: on one deployment and length pair, mean TTFT does not fall as the
    rate rises (the same seeds give the same requests at scaled times)."""
    by_setup: dict = {}
    for r in section.results:
        t = r.row.traffic
        if r.row.metric == "ttft_ms" and r.row.stat == "mean" and t.rate_rps is not None:
            key = (r.row.source, r.row.model, r.row.hw, r.row.runtime, r.row.scheduler, t.isl, t.osl)
            by_setup.setdefault(key, []).append((t.rate_rps, r.predicted))
    assert len(by_setup) >= 4
    for pts in by_setup.values():
        vals = [p for _, p in sorted(pts)]
        assert all(b >= a * 0.999 for a, b in zip(vals, vals[1:])), pts


def test_load_result_error_sign():
    row = pl.to_row(next(d for d in pl.read() if not d.get("exclude")))
    assert LoadResult(row, row.value * 1.5).error == pytest.approx(0.5)


def test_cli_validate_json_has_the_section(capsys):
    assert main(["validate", "--quick", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    sec = out["serving_under_load"]
    assert sec["fitted"] is False and sec["rows_predicted"] == len(sec["rows"])
    assert main(["validate", "--quick", "--json", "--no-load"]) == 0
    assert "serving_under_load" not in json.loads(capsys.readouterr().out)
