"""Co-design at a serving SLA: every candidate's deployment is the SLA search's, the economics
turn it into tokens per dollar and per watt by hand-checkable formulas, the objective decides
the pick, an impossible SLA says so; JointResult tables and Parquet; the CLI."""
import json
import math

import pytest

from infersim import InferSimError
from infersim.auto_hardware import joint_explore
from infersim.cli import main
from infersim.codesign.economics import hardware_economics
from infersim.codesign.sla import SLA_OBJECTIVES, codesign_sla, sla_answer_lines
from infersim.hardware_presets import get_hardware
from infersim.model_presets import get_model
from infersim.serving import Request
from infersim.serving.sla import sla_search

H100 = get_hardware("H100-SXM x8")
M8 = get_model("Llama 3.1 8B")
REQ = Request(1024, 256)
GRID = {"peak_tflops_f16": [989.0, 1978.0, 3956.0], "bw_hbm_gbs": [3350.0, 6700.0]}


@pytest.fixture(scope="module")
def runs():
    return {obj: codesign_sla(M8, REQ, tpot_ms=20, depth="custom", custom=GRID, base_hw=H100,
                              objective=obj, sensitivity=obj == "tok_s_per_usd")
            for obj in SLA_OBJECTIVES}


def test_each_candidate_gets_the_sla_search_answer(runs):
    res = runs["tok_s_per_usd"]
    assert len(res.designs) == 6 and res.n_meeting == 6
    for d in res.designs[:3]:
        direct = sla_search(M8, d.hw.to_hardware(H100), REQ, tpot_ms=20, disaggregated=False,
                            single_replica=True).best
        assert d.point.tok_s_per_pe == pytest.approx(direct.tok_s_per_pe)
        assert d.point.tpot_ms <= 20 and d.point.par.dp == 1


def test_economics_by_hand(runs):
    d = runs["tok_s_per_usd"].best
    econ = hardware_economics(d.hw.to_hardware(H100), H100)
    assert d.usd_per_h_per_pe == pytest.approx(econ["usd_per_h"])
    assert d.tok_s_per_usd == pytest.approx(d.point.tok_s_per_pe * 3600 / econ["usd_per_h"])
    assert d.tok_s_per_w == pytest.approx(d.point.tok_s_per_pe / econ["system_w"])
    assert d.capex_usd == pytest.approx(d.point.pes * econ["capex_usd"])


def test_objective_orders_the_hardware(runs):
    for obj, res in runs.items():
        vals = [d.value(obj) for d in res.designs if d.point]
        assert vals == sorted(vals, reverse=True), obj
    # faster compute costs watts: per watt prefers the middle compute, per PE the fastest
    assert runs["tok_s_per_pe"].best.hw.peak_tflops_f16 == 3956.0
    assert runs["tok_s_per_w"].best.hw.peak_tflops_f16 == 1978.0
    assert runs["tok_s_per_w"].best.hw != runs["tok_s_per_pe"].best.hw


def test_sensitivity_and_answer_follow_the_objective(runs):
    res = runs["tok_s_per_usd"]
    assert {s.knob for s in res.sensitivity} == set(H100.knobs())
    gains = [s.gain_doubled for s in res.sensitivity]
    assert gains == sorted(gains, reverse=True)
    ans = res.answer()
    assert ans["meets_sla"] and ans["objective"] == "tok_s_per_usd"
    assert ans["usd_per_mtok"] == pytest.approx(1e6 / res.best.tok_s_per_usd)
    assert ans["next_lever"]["knob"] == res.sensitivity[0].knob


def test_impossible_sla_is_stated():
    res = codesign_sla(M8, REQ, tpot_ms=0.01, depth="custom", custom={"bw_hbm_gbs": [3350.0]},
                       base_hw=H100)
    assert res.best is None and res.n_meeting == 0 and not res.sensitivity
    assert not res.answer()["meets_sla"] and res.designs[0].miss is not None


def test_needs_a_limit_and_a_known_objective():
    with pytest.raises(InferSimError, match="TTFT or a TPOT limit"):
        codesign_sla(M8, REQ, base_hw=H100)
    with pytest.raises(InferSimError, match="valid choices"):
        codesign_sla(M8, REQ, tpot_ms=20, objective="latency", base_hw=H100)
    # bad limits or batching are one error, not "nothing fits" on every candidate
    for kw, needle in ((dict(tpot_ms="x"), "tpot_ms must be a positive number"),
                       (dict(tpot_ms=-1), "tpot_ms must be a positive number"),
                       (dict(tpot_ms=20, ttft_ms=math.nan), "ttft_ms must be a positive number"),
                       (dict(tpot_ms=20, batching="nope"), "unknown batching 'nope'")):
        with pytest.raises(InferSimError, match=needle):
            codesign_sla(M8, REQ, depth="custom", custom={"bw_hbm_gbs": [3350.0]}, base_hw=H100, **kw)


def test_tables_and_parquet(runs, tmp_path):
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    res = runs["tok_s_per_usd"]
    df = res.to_pandas()
    assert list(df["rank"]) == list(range(1, 7)) and df["tok_s_per_usd"].is_monotonic_decreasing
    back = pd.read_parquet(res.to_parquet(tmp_path / "sla.parquet"))
    assert back.shape == df.shape and back["hw_peak_tflops_f16"].tolist() == df["hw_peak_tflops_f16"].tolist()
    fig = res.plot()
    assert fig.layout.xaxis.title.text == "deployment capex ($)" and len(fig.data) == 3


@pytest.fixture(scope="module")
def joint():
    return joint_explore(M8, s_kv=4096, mode="decode", depth="balanced", objective="tok_s_per_usd")


@pytest.mark.parametrize("which", ["all", "pareto", "pareto_usd", "sensitivity", "requirements"])
def test_joint_result_tables_round_trip(joint, which, tmp_path):
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    df = joint.to_pandas(which)
    n = {"all": len(joint.all_scores), "pareto": len(joint.pareto_scores),
         "pareto_usd": len(joint.pareto_usd_scores), "sensitivity": len(joint.sensitivity),
         "requirements": len(joint.requirements)}[which]
    assert len(df) == n
    back = pd.read_parquet(joint.to_parquet(tmp_path / f"{which}.parquet", which))
    pd.testing.assert_frame_equal(back, df, check_dtype=False)


def test_joint_frame_rows_equal_the_scores(joint):
    df = joint.to_pandas("pareto_usd")
    for row, s in zip(df.to_dict("records"), joint.pareto_usd_scores):
        d = s.to_dict()
        for k, v in d.items():
            assert row[k] == (pytest.approx(v) if isinstance(v, float) and math.isfinite(v) else v), k
    fig = joint.plot()
    assert fig.layout.yaxis.title.text == "tok_s_per_usd (tok/$)" and fig.layout.xaxis.title.text == "system_cost_usd"


def test_cli_sla_codesign_json_and_parquet(tmp_path, capsys):
    pytest.importorskip("pyarrow")
    out = tmp_path / "c.parquet"
    assert main(["codesign", "--model", "Llama 3.1 8B", "--hw", "H100-SXM x8", "--depth", "custom",
                 "--grid", "bw_hbm_gbs=3350,6700", "--isl", "1024", "--osl", "256", "--tpot-ms", "20",
                 "--json", "--out", str(out)]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert list(doc)[0] == "answer" and doc["answer"]["meets_sla"] and doc["objective"] == "tok_s_per_usd"
    assert doc["answer"]["tpot_ms"] <= 20 and len(doc["designs"]) == 2 and out.stat().st_size > 0
    assert main(["codesign", "--model", "Llama 3.1 8B", "--hw", "H100-SXM x8", "--tpot-ms", "20",
                 "--objective", "latency"]) == 2
    assert "valid choices" in capsys.readouterr().err


def test_total_throughput_fills_the_system_with_replicas(runs):
    """tok_s ranks the whole 8-GPU system: floor(8 / replica PEs) replicas of the deployment."""
    for d in runs["tok_s"].designs:
        assert d.system_pes == 8
        assert d.value("tok_s") == pytest.approx((8 // d.point.pes) * d.point.tok_s)


def test_an_executor_gives_the_local_answers(runs):
    """Chunks of candidates, then the sensitivity's and each lever's searches, submitted to an
    executor: the same designs, sensitivity and levers as the local run (a process pool, as a
    Dask worker would be: the tasks and their answers must pickle)."""
    from concurrent.futures import ProcessPoolExecutor

    local = runs["tok_s_per_usd"]
    with ProcessPoolExecutor(2) as ex:
        dist = codesign_sla(M8, REQ, tpot_ms=20, depth="custom", custom=GRID, base_hw=H100, executor=ex)
    assert dist.designs == local.designs and dist.sensitivity == local.sensitivity
    assert dist.levers == local.levers and len(dist.levers) > len(local.sensitivity)


def test_guided_chunks_cover_every_candidate_once():
    """Locally chunks of CHUNK; on an executor guided chunks that shrink towards CHUNK, so the
    slowest worker ends on a small one (729 candidates on 2 workers: 26 tasks, not 92)."""
    from infersim.codesign.sla import CHUNK, _chunk_bounds
    for n, workers in ((729, 2), (729, 16), (20, 0), (7, 4), (1, 1), (0, 2)):
        starts, ends = _chunk_bounds(n, workers)
        sizes = [b - a for a, b in zip(starts, ends)]
        assert starts == ([0] + ends[:-1] if n else []) and (not ends or ends[-1] == n) and sum(sizes) == n
        assert all(x >= y for x, y in zip(sizes, sizes[1:]))        # non-increasing
        assert all(x >= CHUNK for x in sizes[:-1]) and (not workers or not sizes or sizes[0] >= n // (4 * workers))
    assert len(_chunk_bounds(729, 2)[0]) == 26 and len(_chunk_bounds(729, 0)[0]) == -(-729 // CHUNK)


def test_a_bad_executor_is_one_line():
    with pytest.raises(InferSimError, match="executor must be None or an object with submit"):
        codesign_sla(M8, REQ, tpot_ms=20, depth="custom", custom=GRID, base_hw=H100, executor="dask")

    class Wrong:                    # returns something that is not the answers of the chunk
        def submit(self, fn, *args):
            from concurrent.futures import Future
            f = Future()
            f.set_result(None)
            return f
    with pytest.raises(InferSimError, match="not the 6 answers of answer_chunk"):
        codesign_sla(M8, REQ, tpot_ms=20, depth="custom", custom=GRID, base_hw=H100, executor=Wrong())


def test_a_target_rate_ranks_the_fleets_by_their_dollars():
    """Issue 21: with rate_rps each design states the whole replicas that serve the rate at the
    SLA (⌈rate·osl / tok_s⌉, by hand) and their $/h; rate_per_usd ranks by the fewest dollars,
    which differs from tok/$ where a faster part needs a whole extra replica."""
    res = codesign_sla(M8, REQ, tpot_ms=20, depth="custom", custom=GRID, base_hw=H100, objective="rate_per_usd",
                       rate_rps=50.0)
    for d in res.designs:
        n = math.ceil(50.0 * REQ.osl / d.point.tok_s)
        assert d.replicas_for_rate == n and d.usd_per_h_for_rate == pytest.approx(n * d.point.pes * d.usd_per_h_per_pe)
        assert d.rate_per_usd == pytest.approx(50.0 / d.usd_per_h_for_rate)
    dollars = [d.usd_per_h_for_rate for d in res.designs]
    assert dollars == sorted(dollars)
    first = sla_answer_lines(res.answer())[0]
    b = res.best
    assert f"serves 50 req/s with {b.replicas_for_rate} replica" in first and f"${b.usd_per_h_for_rate:,.2f}/h" in first
    rec = b.record()
    assert rec["pes_for_rate"] == b.replicas_for_rate * b.point.pes and rec["rate_rps"] == 50.0
    # the sensitivity is measured in the rate objective too: a knob x2 is the fleet of the doubled part
    top = res.sensitivity[0]
    doubled = b.hw.scaled(top.knob, 2.0)
    again = codesign_sla(M8, REQ, tpot_ms=20, depth="custom", base_hw=H100, objective="rate_per_usd", rate_rps=50.0,
                         custom={k: [v] for k, v in doubled.knobs().items()}, sensitivity=False)
    assert top.doubled_value == pytest.approx(again.best.rate_per_usd)
    assert top.gain_doubled == pytest.approx(again.best.rate_per_usd / b.rate_per_usd - 1.0)
    with pytest.raises(InferSimError, match="give rate_rps="):
        codesign_sla(M8, REQ, tpot_ms=20, depth="custom", custom=GRID, base_hw=H100, objective="rate_per_usd")
    with pytest.raises(InferSimError, match="rate_rps must be a positive number of requests per second"):
        codesign_sla(M8, REQ, tpot_ms=20, depth="custom", custom=GRID, base_hw=H100, rate_rps=-1.0)


def test_cli_rate_flag(capsys):
    grid = "peak_tflops_f16=989,1978;bw_hbm_gbs=3350,6700"
    assert main(["codesign", "--model", "Llama 3.1 8B", "--hw", "H100-SXM x8", "--isl", "1024", "--osl", "256",
                 "--tpot-ms", "20", "--depth", "custom", "--grid", grid, "--rate", "50", "--objective",
                 "rate_per_usd", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    ans = out["answer"]
    assert ans["rate_rps"] == 50.0 and ans["replicas_for_rate"] == out["designs"][0]["replicas_for_rate"] >= 1
    assert out["objective"] == "rate_per_usd" and ans["unit"] == "req/s per $/h"
    assert main(["codesign", "--model", "Llama 3.1 8B", "--rate", "50"]) == 2          # no SLA: the flag is an error
    assert "--rate" in capsys.readouterr().err
