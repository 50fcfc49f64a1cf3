"""Hardware co-design sweep: enumeration, Pareto frontier, sensitivity, executors."""
import itertools
import json
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from infersim import InferSimError, Workload
from infersim.auto_explore import auto_explore
from infersim.auto_hardware import (
    _HW_KNOB_DEFAULTS,
    HardwareCandidate,
    JointScore,
    enumerate_hardware,
    joint_explore,
)
from infersim.cli import main
from infersim.hardware_presets import GENERIC_SIP
from infersim.search.pareto import pareto_front
from infersim.specs.hardware import KNOBS


def test_enumeration_counts_and_cost_score():
    assert len(enumerate_hardware("two_stage")) == 1
    assert len(enumerate_hardware("balanced")) == 64
    assert len(enumerate_hardware("coarse")) == 729
    assert enumerate_hardware("two_stage")[0].cost_score == pytest.approx(6.0)
    assert _HW_KNOB_DEFAULTS == GENERIC_SIP.knobs()
    scores = sorted(c.cost_score for c in enumerate_hardware("balanced"))
    assert scores[0] == pytest.approx(6.0) and scores[-1] == pytest.approx(12.0)
    coarse = enumerate_hardware("coarse")
    assert min(c.cost_score for c in coarse) == pytest.approx(3.0)
    assert len(set(coarse)) == 729
    grid = enumerate_hardware("custom", {"bw_hbm_gbs": [1000, 2000, 3000], "peak_tflops_f16": [250, 500]})
    assert len(grid) == 6 and {c.pe_hbm_gb for c in grid} == {_HW_KNOB_DEFAULTS["pe_hbm_gb"]}


@pytest.mark.parametrize("depth, custom, needle", [
    ("deep", None, "valid choices: two_stage, balanced, coarse, custom"),
    ("custom", None, "needs a grid"),
    ("custom", {"bw_hbm_gbs": []}, "empty value list"),
    ("custom", {"bw_hbm_gbs": [-1.0]}, "values must be numbers in 0.001..1e"),
    ("custom", {"flux": [1.0]}, "unknown knobs"),
])
def test_impossible_sweeps_rejected(depth, custom, needle):
    with pytest.raises(InferSimError, match=needle):
        enumerate_hardware(depth, custom)


def test_nothing_fits_is_a_clear_error(llama70b):
    with pytest.raises(InferSimError, match="impossible sweep"):
        joint_explore(llama70b, depth="custom", custom={"pe_hbm_gb": [0.5]})


@pytest.fixture(scope="module")
def balanced(llama70b):
    return joint_explore(llama70b, s_kv=131072, mode="decode", depth="balanced")


def test_balanced_result_structure(balanced):
    r = balanced
    assert r.n_hardware == 64 and len(r.all_scores) == 64      # best pair per candidate
    assert r.total_joint > 64 * 1000                            # full space, not a reduced one
    lats = [s.total_latency_ns for s in r.all_scores]
    assert lats == sorted(lats)
    assert all(isinstance(s, JointScore) for s in r.all_scores)
    ids = {id(s) for s in r.all_scores}
    assert all(id(p) in ids for p in r.pareto_scores)           # same objects
    for p in r.pareto_scores:                                   # non-dominated
        assert not any(q.total_latency_ns <= p.total_latency_ns and q.cost_score <= p.cost_score
                       and (q.total_latency_ns < p.total_latency_ns or q.cost_score < p.cost_score)
                       for q in r.all_scores)
    # every non-frontier point is dominated by some frontier point
    for q in r.all_scores:
        if q not in r.pareto_scores:
            assert any(p.total_latency_ns <= q.total_latency_ns and p.cost_score <= q.cost_score
                       for p in r.pareto_scores)


def test_best_matches_explorer_on_that_hardware(balanced, llama70b):
    b = balanced.best
    res = auto_explore(llama70b, b.hw.to_hardware(GENERIC_SIP), Workload("decode", s_kv=131072))
    assert res.latency_ns[0] == pytest.approx(b.total_latency_ns, rel=1e-12)


def test_sensitivity_decode_is_hbm_bandwidth(balanced):
    sens = balanced.sensitivity
    assert [r.knob for r in sens][0] == "bw_hbm_gbs"
    assert sorted(r.knob for r in sens) == sorted(KNOBS)
    assert all(r.rel_speedup >= -1e-12 for r in sens)           # doubling never hurts
    rs = [r.rel_speedup for r in sens]
    assert rs == sorted(rs, reverse=True)
    for r in sens:
        assert r.rel_speedup == pytest.approx(r.baseline_latency_ns / r.doubled_latency_ns - 1)


def test_sensitivity_long_prefill_is_peak_flops(llama70b):
    r = joint_explore(llama70b, s_kv=32768, mode="prefill", depth="balanced")
    assert r.sensitivity[0].knob == "peak_tflops_f16"


def test_each_knob_monotone_when_doubled(balanced):
    by_hw = {s.hw: s.total_latency_ns for s in balanced.all_scores}
    for c, lat in by_hw.items():
        for k in KNOBS:
            d = c.doubled(k)
            if d in by_hw:
                assert by_hw[d] <= lat * (1 + 1e-12)


def test_frontier_equals_brute_force_on_small_grid(llama70b):
    grid = {"bw_hbm_gbs": [1000, 2000, 4000], "peak_tflops_f16": [250, 500], "pe_hbm_gb": [24, 48],
            "bw_intra_gbs": [300, 600]}
    fast = joint_explore(llama70b, s_kv=65536, depth="custom", custom=grid, keep="all", sensitivity=False)
    wl = Workload("decode", s_kv=65536)
    points = []
    for vals in itertools.product(*grid.values()):
        knobs = dict(zip(grid, vals))
        cand = HardwareCandidate(**{**_HW_KNOB_DEFAULTS, **knobs})
        res = auto_explore(llama70b, cand.to_hardware(GENERIC_SIP), wl)
        assert res.n_fitting == sum(1 for s in fast.all_scores if s.hw == cand)
        points.append((float(res.latency_ns[0]), cand.cost_score, cand))
    lat = np.array([p[0] for p in points])
    cst = np.array([p[1] for p in points])
    brute = set()
    for i in range(len(points)):      # O(n^2) definition of non-dominated
        if not any(lat[j] <= lat[i] and cst[j] <= cst[i] and (lat[j] < lat[i] or cst[j] < cst[i])
                   for j in range(len(points))):
            brute.add(points[i][2])
    assert {s.hw for s in fast.pareto_scores} == brute
    assert fast.total_joint == len(fast.all_scores)


def test_pareto_front_function():
    x = np.array([3.0, 1.0, 2.0, 2.0, 4.0, 1.0])
    y = np.array([1.0, 5.0, 2.0, 3.0, 0.5, 6.0])
    assert sorted(pareto_front(x, y).tolist()) == [0, 1, 2, 4]


def test_two_stage_pairs_defaults_with_autosuggest(llama70b):
    from infersim.autosuggest import autosuggest

    r = joint_explore(llama70b, s_kv=131072, depth="two_stage")
    assert len(r.all_scores) == 1 and r.best.cost_score == pytest.approx(6.0)
    s = autosuggest(llama70b, GENERIC_SIP, Workload("decode", s_kv=131072))
    assert r.best.par == s.par
    assert r.pareto_scores[0] is r.best


def test_topk_and_all_keep(llama70b):
    top3 = joint_explore(llama70b, s_kv=32768, depth="balanced", keep="topk", top_k=3, sensitivity=False)
    assert len(top3.all_scores) == 64 * 3
    per_hw = {}
    for s in top3.all_scores:
        per_hw.setdefault(s.hw, []).append(s.total_latency_ns)
    assert all(len(v) == 3 for v in per_hw.values())


def test_executor_result_equals_single_process(llama70b):
    single = joint_explore(llama70b, s_kv=131072, depth="balanced", sensitivity=False)
    with ThreadPoolExecutor(2) as ex:
        multi = joint_explore(llama70b, s_kv=131072, depth="balanced", executor=ex, n_slices=5,
                              sensitivity=False)
    assert [(s.hw, s.par, s.total_latency_ns) for s in single.all_scores] == \
           [(s.hw, s.par, s.total_latency_ns) for s in multi.all_scores]
    assert multi.total_joint == single.total_joint


def test_dask_local_cluster_equals_single_process(llama70b):
    distributed = pytest.importorskip("distributed")
    grid = {"bw_hbm_gbs": [1000, 2000, 4000], "peak_tflops_f16": [250, 500, 1000],
            "bw_intra_gbs": [300, 600, 1200]}
    single = joint_explore(llama70b, s_kv=131072, depth="custom", custom=grid, sensitivity=False)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        multi = joint_explore(llama70b, s_kv=131072, depth="custom", custom=grid, executor=client,
                              sensitivity=False)
    assert [(s.hw, s.par, s.total_latency_ns) for s in single.all_scores] == \
           [(s.hw, s.par, s.total_latency_ns) for s in multi.all_scores]
    assert [s.hw for s in multi.pareto_scores] == [s.hw for s in single.pareto_scores]


def test_cli_codesign_json(capsys, tmp_path):
    out = tmp_path / "pairs.csv"
    assert main(["codesign", "--depth", "balanced", "--json", "--csv", str(out)]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["n_hardware"] == 64 and len(doc["sensitivity"]) == 6
    assert doc["sensitivity"][0]["knob"] == "bw_hbm_gbs"
    assert len(doc["pareto"]) >= 1
    assert len(out.read_text().splitlines()) == 65
    assert main(["codesign", "--depth", "two_stage"]) == 0
    assert "Pareto frontier" in capsys.readouterr().out
