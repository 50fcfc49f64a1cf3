"""One objective drives the co-design: per-candidate pick, best, frontiers, sensitivity, what it takes;
the pruned search equals costing every pair; system-size knobs."""
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from infersim import InferSimError, Workload
from infersim.auto_explore import OBJECTIVES as EXPLORE_OBJECTIVES
from infersim.auto_explore import auto_explore, objective_score
from infersim.auto_hardware import HardwareCandidate, enumerate_hardware, joint_explore
from infersim.codesign.economics import hardware_economics
from infersim.codesign.search import static_terms
from infersim.hardware_presets import GENERIC_SIP
from infersim.model_presets import PRESETS
from infersim.search.objectives import OBJECTIVES, Perf, get_objective
from infersim.specs.hardware import KNOBS

ALL = OBJECTIVES.names()
GRID = {"bw_hbm_gbs": [1000, 4000], "peak_tflops_f16": [250, 1000], "pe_hbm_gb": [24, 96],
        "bw_intra_gbs": [150, 600], "bw_inter_gbs": [100, 900], "bw_intersip_gbs": [25, 100]}


def first_per_candidate(res, k=1):
    """Each candidate's first k kept pairs, from the result table (candidate position -> pairs)."""
    t = res.all_scores.table
    out = {}
    for c, cfg, lat in zip(t.cand.tolist(), t.config.tolist(), t.latency_ns.tolist()):
        if len(out.setdefault(c, [])) < k:
            out[c].append((cfg, lat))
    return out


def test_registry_is_the_one_list_of_objectives():
    assert ALL == ["latency", "throughput", "throughput_per_pe", "tok_s_per_usd", "tok_s_per_w"]
    assert list(EXPLORE_OBJECTIVES) == ALL
    with pytest.raises(InferSimError, match="valid choices: latency, throughput") as e:
        get_objective("cheapest")
    assert "\n" not in str(e.value)
    with pytest.raises(InferSimError, match="unknown objective"):
        joint_explore(PRESETS["Llama 3.1 8B"].model, depth="two_stage", objective="fastest")


@pytest.mark.parametrize("name", ALL)
def test_config_score_orders_one_hardware_like_its_value(name):
    rng = np.random.default_rng(7)
    lat = rng.uniform(1e6, 1e8, 500)
    per = lat * rng.uniform(0.3, 1.0, 500)
    pes = rng.choice([1, 2, 4, 8, 16, 64], 500)
    obj = get_objective(name)
    value = obj.value(Perf(lat, per, pes, 16, usd_per_h_per_pe=0.7, power_w_per_pe=650.0))
    assert np.array_equal(np.argsort(obj.config_score(lat, per, pes), kind="stable"),
                          np.argsort(obj.score(value), kind="stable"))
    assert np.array_equal(objective_score(name, lat, pes, per), obj.config_score(lat, per, pes))


@pytest.fixture(scope="module")
def llama8b_runs(llama8b):
    return {o: joint_explore(llama8b, s_kv=8192, batch=16, depth="balanced", objective=o) for o in ALL}


@pytest.mark.parametrize("name", ALL)
def test_best_is_the_optimum_of_every_kept_pair(llama8b_runs, name):
    r = llama8b_runs[name]
    obj = get_objective(name)
    scores = [obj.score(s.objective_value) for s in r.all_scores]
    assert scores == sorted(scores)                           # all_scores sorted by the objective
    assert r.best is r.all_scores[0]
    vals = [s.objective_value for s in r.all_scores]
    assert r.best.objective_value == (max(vals) if obj.maximise else min(vals))


@pytest.mark.parametrize("name", ["latency", "throughput", "throughput_per_pe"])
def test_each_pick_matches_the_explorer_under_the_objective(llama8b_runs, llama8b, name):
    r = llama8b_runs[name]
    wl = Workload("decode", s_kv=8192, batch=16)
    for s in r.all_scores[:6]:
        ex = auto_explore(llama8b, s.hw.to_hardware(GENERIC_SIP), wl, objective=name, top=1,
                          with_best_result=False)
        assert ex.best == s.par
        assert ex.latency_ns[0] == s.total_latency_ns and ex.period_ns[0] == s.period_ns


def test_issue_13_throughput_per_pe_case(llama8b_runs):
    """8B decode at 8K, batch 16: the best is the max over all pairs and the knobs a memory-bound
    single-PE decode does not use show (almost) no sensitivity."""
    r = llama8b_runs["throughput_per_pe"]
    assert r.best.tokens_per_s_per_pe == max(s.tokens_per_s_per_pe for s in r.all_scores)
    sens = {row.knob: row for row in r.sensitivity}
    for knob in ("pe_hbm_gb", "peak_tflops_f16", "bw_intersip_gbs"):
        assert abs(sens[knob].rel_speedup) < 0.10
    assert r.sensitivity[0].knob == "bw_hbm_gbs"
    for row in r.sensitivity:
        assert row.objective == "throughput_per_pe"
        assert row.baseline_value == pytest.approx(r.best.objective_value, rel=1e-12)
        assert row.rel_speedup == pytest.approx(row.doubled_value / row.baseline_value - 1)


@pytest.mark.parametrize("name", ALL)
def test_frontiers_use_the_objective_axis(llama8b_runs, name):
    r = llama8b_runs[name]
    obj = get_objective(name)
    ids = {id(s) for s in r.all_scores}
    for front, cost in ((r.pareto_scores, "cost_score"), (r.pareto_usd_scores, "system_cost_usd")):
        assert front and all(id(p) in ids for p in front)
        pts = [(float(obj.score(s.objective_value)), getattr(s, cost)) for s in r.all_scores]
        for p in front:
            x, y = float(obj.score(p.objective_value)), getattr(p, cost)
            assert not any(a <= x and b <= y and (a < x or b < y) for a, b in pts)
    best_cost = min(s.system_cost_usd for s in r.all_scores)
    assert min(p.system_cost_usd for p in r.pareto_usd_scores) == best_cost


@pytest.mark.parametrize("model, kw", [
    ("Llama 3.1 70B", dict(s_kv=32768, batch=4)),
    ("Mixtral 8x7B", dict(s_kv=8192, batch=2)),
    ("Llama 3.1 8B", dict(s_kv=4096, mode="prefill", batch=2)),
])
@pytest.mark.parametrize("name", ["latency", "throughput", "tok_s_per_usd"])
def test_pruned_search_equals_costing_every_pair(model, kw, name):
    m = PRESETS[model].model
    grid = {**GRID, "n_sips": [1, 4], "bw_inter_gbs": [300]}
    fast = joint_explore(m, depth="custom", custom=grid, objective=name, sensitivity=False, **kw)
    full = joint_explore(m, depth="custom", custom=grid, objective=name, sensitivity=False, keep="all", **kw)
    top = joint_explore(m, depth="custom", custom=grid, objective=name, sensitivity=False, keep="topk",
                        top_k=3, **kw)
    assert first_per_candidate(fast) == first_per_candidate(full)
    assert first_per_candidate(top, 3) == first_per_candidate(full, 3)
    assert fast.total_joint == full.total_joint == len(full.all_scores)
    assert fast.n_evals < full.n_evals / 4                    # the pruning does prune


def test_sensitivity_at_a_design_point_with_elasticity(llama70b):
    design = {"bw_hbm_gbs": 3000.0, "peak_tflops_f16": 800.0}
    r = joint_explore(llama70b, s_kv=32768, depth="balanced", objective="throughput", design_point=design)
    d = r.design_point
    assert d == HardwareCandidate(**{**GENERIC_SIP.knobs(), **design})
    wl = Workload("decode", s_kv=32768)
    ex = auto_explore(llama70b, d.to_hardware(GENERIC_SIP), wl, objective="throughput", top=1,
                      with_best_result=False)
    assert r.design_value == pytest.approx(float(wl.tokens / (ex.period_ns[0] * 1e-9)), rel=1e-12)
    for row in r.sensitivity:
        hw2 = d.doubled(row.knob).to_hardware(GENERIC_SIP)
        ex2 = auto_explore(llama70b, hw2, wl, objective="throughput", top=1, with_best_result=False)
        assert row.doubled_value == pytest.approx(wl.tokens / (ex2.period_ns[0] * 1e-9), rel=1e-12)
        if math.isfinite(row.halved_value):
            assert row.elasticity == pytest.approx(math.log(row.doubled_value / row.halved_value) / math.log(4))
            assert row.rel_gain_halved <= 1e-12               # halving never helps throughput
    base = joint_explore(llama70b, s_kv=32768, depth="balanced", design_point="base", sensitivity=True)
    assert base.design_point == HardwareCandidate(**GENERIC_SIP.knobs())
    with pytest.raises(InferSimError, match="design_point"):
        joint_explore(llama70b, s_kv=32768, depth="two_stage", design_point=3)


def test_what_it_takes_is_minimal_within_its_resolution(llama70b):
    r = joint_explore(llama70b, s_kv=32768, depth="balanced", objective="throughput_per_pe",
                      design_point="base", target_gain=1.5)
    assert r.target_value == pytest.approx(r.design_value * 1.5)
    req = {q.knob: q for q in r.requirements}
    hbm = req["bw_hbm_gbs"]
    assert hbm.multiplier is not None and 1.0 < hbm.multiplier <= 16
    assert hbm.knob_value == pytest.approx(GENERIC_SIP.bw_hbm_gbs * hbm.multiplier)
    assert hbm.reached_value >= r.target_value
    assert req["pe_hbm_gb"].multiplier is None                # capacity alone never gets there
    wl = Workload("decode", s_kv=32768)

    def value_at(mult):
        hw = r.design_point.scaled("bw_hbm_gbs", mult).to_hardware(GENERIC_SIP)
        ex = auto_explore(llama70b, hw, wl, objective="throughput_per_pe", top=1, with_best_result=False)
        return float(ex.tokens_per_s[0] / ex.pes[0])
    assert value_at(hbm.multiplier) >= r.target_value
    assert value_at(hbm.multiplier / 2 ** (0.5 / 8) / 1.001) < r.target_value   # 4.4% resolution


def test_system_size_knobs_rebuild_the_space_per_topology(llama8b):
    grid = {"n_sips": [1, 2], "pes_per_cube": [2, 4], "bw_hbm_gbs": [2000, 4000]}
    assert len(enumerate_hardware("custom", grid)) == 8
    before = static_terms.cache_info().misses
    r = joint_explore(llama8b, s_kv=8192, batch=8, depth="custom", custom=grid, objective="throughput",
                      sensitivity=False)
    after = static_terms.cache_info().misses
    assert after - before <= 4                               # one build per topology at most
    joint_explore(llama8b, s_kv=8192, batch=8, depth="custom", custom=grid, objective="throughput",
                  sensitivity=False)
    assert static_terms.cache_info().misses == after          # cached by topology
    assert len(r.all_scores) == 8
    wl = Workload("decode", s_kv=8192, batch=8)
    for s in r.all_scores:
        assert s.hw.n_sips in (1, 2) and s.hw.pes_per_cube in (2, 4) and s.hw.cubes_per_sip is None
        hw = s.hw.to_hardware(GENERIC_SIP)
        assert (hw.pes_per_cube, hw.n_sips) == (s.hw.pes_per_cube, s.hw.n_sips)
        assert s.pes <= hw.n_pes
        ex = auto_explore(llama8b, hw, wl, objective="throughput", top=1, with_best_result=False)
        assert ex.best == s.par and ex.period_ns[0] == s.period_ns
        per_pe = hardware_economics(hw, GENERIC_SIP)
        assert s.system_cost_usd == pytest.approx(s.pes * per_pe["capex_usd"], rel=1e-12)
    assert r.best.tokens_per_s == max(s.tokens_per_s for s in r.all_scores)
    with pytest.raises(InferSimError, match="n_sips values must be integers in 1..1,048,576, got 2.5"):
        enumerate_hardware("custom", {"n_sips": [2.5]})


def test_two_stage_keeps_the_autosuggest_policy_and_reports_the_objective(llama70b):
    r = joint_explore(llama70b, depth="two_stage", objective="tok_s_per_w", sensitivity=False)
    s = r.best
    assert s.objective_value == pytest.approx(s.tokens_per_s / s.system_power_w, rel=1e-12)
    assert s.cost_score == pytest.approx(6.0) and set(s.hw.knobs()) == set(KNOBS)


def test_cli_prints_the_answer_first(capsys, tmp_path):
    import json

    from infersim.cli import main

    args = ["codesign", "--model", "Llama 3.1 8B", "--s-kv", "8192", "--batch", "16",
            "--objective", "throughput_per_pe"]
    assert main(args) == 0
    lines = [ln for ln in capsys.readouterr().out.splitlines() if ln.strip()]
    assert lines[0].startswith("Answer: ") and "tok/s" in lines[0] and "capex" in lines[0]
    assert any(ln.startswith("Limited by memory") and "hardware lever: double HBM bandwidth" in ln
               for ln in lines[1:4])
    out = tmp_path / "pairs.csv"
    assert main(args + ["--json", "--csv", str(out), "--design-point", "base", "--target", "2000"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert next(iter(doc)) == "answer"
    assert doc["answer"]["tokens_per_s_per_pe"] == pytest.approx(doc["pick"]["tokens_per_s_per_pe"])
    assert doc["design_point"]["bw_hbm_gbs"] == GENERIC_SIP.bw_hbm_gbs
    assert doc["what_it_takes"]["target_value"] == 2000
    assert len(doc["sensitivity"]) == 6 and len(doc["pareto_usd"]) >= 1
    assert len(out.read_text().splitlines()) == 65


@settings(max_examples=12, deadline=None)
@given(data=st.data())
def test_pruned_search_equals_brute_force_on_random_grids(data):
    model = PRESETS[data.draw(st.sampled_from(["Llama 3.1 8B", "Mixtral 8x7B", "DeepSeek-V3"]))].model
    knobs = data.draw(st.lists(st.sampled_from(KNOBS), min_size=1, max_size=3, unique=True))
    grid = {k: data.draw(st.lists(st.sampled_from([0.25, 0.5, 1.0, 3.0]), min_size=1, max_size=3,
                                  unique=True).map(lambda ms, k=k: [GENERIC_SIP.knobs()[k] * m for m in ms]))
            for k in knobs}
    if data.draw(st.booleans()):
        grid["n_sips"] = [1, 2]
    kw = dict(s_kv=data.draw(st.sampled_from([2048, 16384])), batch=data.draw(st.sampled_from([1, 4])),
              mode=data.draw(st.sampled_from(["decode", "prefill"])))
    name = data.draw(st.sampled_from(ALL))
    try:
        fast = joint_explore(model, depth="custom", custom=grid, objective=name, sensitivity=False, **kw)
    except InferSimError as exc:
        assert "impossible sweep" in str(exc)
        return
    full = joint_explore(model, depth="custom", custom=grid, objective=name, sensitivity=False,
                         keep="all", **kw)
    assert first_per_candidate(fast) == first_per_candidate(full)
