"""Co-design answers an architect can act on: every lever (hardware and software) on one scale,
the answer's next lever their argmax, the tolerance pick, what it takes in one line, the memory
tier and different prefill / decode parts changing the pick where they should."""
from dataclasses import replace

import numpy as np
import pytest

from infersim import InferSimError
from infersim.auto_hardware import joint_explore
from infersim.codesign.answer import MIN_LEVER_GAIN, answer_lines, requirement_line
from infersim.codesign.auto_hardware import enumerate_hardware
from infersim.codesign.disagg import codesign_pools
from infersim.codesign.sla import codesign_sla
from infersim.hardware_presets import GENERIC_SIP, HW_PRESETS
from infersim.model_presets import PRESETS
from infersim.presets.runtime_presets import RUNTIMES, SCENARIO_RUNTIMES
from infersim.search.objectives import OBJECTIVES, get_objective
from infersim.serving import Request
from infersim.specs.hardware import KNOBS

M8 = PRESETS["Llama 3.1 8B"].model
M70 = PRESETS["Llama 3.1 70B"].model


@pytest.fixture(scope="module")
def by_objective():
    return {o: joint_explore(M8, s_kv=8192, batch=16, depth="balanced", objective=o) for o in OBJECTIVES}


@pytest.mark.parametrize("objective", list(OBJECTIVES))
def test_next_lever_is_the_argmax_over_hardware_and_software(by_objective, objective):
    r = by_objective[objective]
    kinds = {lv.kind for lv in r.levers}
    assert kinds == {"hardware", "software"}
    names = {lv.name for lv in r.levers}
    assert {f"{k} x2" for k in KNOBS} <= names and "kernel_gap_ns x0.5" in names
    assert not {f"runtime {n}" for n in SCENARIO_RUNTIMES} & names      # scenarios are never a lever
    top = max(r.levers, key=lambda lv: lv.gain)
    ans = r.answer()
    assert ans["next_lever"]["name"] == top.name and ans["next_lever"]["gain"] == top.gain > MIN_LEVER_GAIN
    other = max((lv for lv in r.levers if lv.kind != top.kind), key=lambda lv: lv.gain)
    assert ans["other_lever"]["name"] == other.name
    assert [lv.gain for lv in r.levers] == sorted((lv.gain for lv in r.levers), reverse=True)
    # the hardware levers are the sensitivity rows; every lever's gain is its objective's gain
    obj = get_objective(objective)
    for row in r.sensitivity:
        lv = next(lv for lv in r.levers if lv.name == f"{row.knob} x2")
        assert lv.gain == row.rel_speedup and lv.value == row.doubled_value
    for lv in r.levers:
        assert lv.baseline_value == pytest.approx(r.design_value, rel=1e-12)
        if np.isfinite(lv.value):
            assert lv.gain == pytest.approx(obj.gain(lv.value, r.design_value), rel=1e-9, abs=1e-12)


def test_a_software_lever_is_the_sweep_under_that_runtime(by_objective):
    """The 'runtime trtllm' lever equals a sweep of the design point alone under trtllm, and the
    kernel-gap lever one under the runtime with half the gap."""
    r = by_objective["throughput"]
    grid = {k: [v] for k, v in r.design_point.knobs().items()}
    for name, rt in (("runtime trtllm", RUNTIMES["trtllm"]),
                     ("kernel_gap_ns x0.5", replace(RUNTIMES["cuda-graphs"],
                                                    kernel_gap_ns=RUNTIMES["cuda-graphs"].kernel_gap_ns / 2))):
        alone = joint_explore(M8, s_kv=8192, batch=16, depth="custom", custom=grid, objective="throughput",
                              runtime=rt, sensitivity=False)
        lv = next(lv for lv in r.levers if lv.name == name)
        assert lv.value == pytest.approx(alone.best.objective_value, rel=1e-12)


@pytest.fixture(scope="module")
def overhead_bound():
    """A stack with a 3 µs gap between kernels (an unfused, graph-launched engine): the 70B decode
    design is limited by those gaps, whatever the shipped calibration fits."""
    slow = replace(RUNTIMES["cuda-graphs"], kernel_gap_ns=3000.0)
    return joint_explore(M70, s_kv=8192, mode="decode", depth="balanced", runtime=slow)


def test_overhead_bound_answer_names_software_then_hardware(overhead_bound):
    r = overhead_bound
    ans = r.answer()
    assert ans["bound"] == "overhead" and ans["next_lever"]["kind"] == "software"
    assert ans["other_lever"]["kind"] == "hardware"
    first, second = answer_lines(ans)
    assert "Limited by per-kernel and software overhead" in second and "gaps between kernels" in second
    assert "Next lever (software)" in second and "best hardware lever: double" in second
    line = requirement_line(ans)        # one line, not a table of unreachable rows
    assert line.startswith("What it takes to reach") and "\n" not in line


def test_tolerance_pick_is_the_cheapest_within_tolerance(overhead_bound):
    r = overhead_bound
    best, pick = r.best, r.pick
    assert pick.total_latency_ns <= best.total_latency_ns * 1.01
    near = [s for s in r.all_scores if s.total_latency_ns <= best.total_latency_ns * 1.01]
    assert pick.system_cost_usd == min(s.system_cost_usd for s in near)
    assert pick.system_cost_usd < best.system_cost_usd          # here the 1% buys a cheaper design
    first = answer_lines(r.answer())[0]
    extra = best.system_cost_usd / pick.system_cost_usd - 1
    assert f"costs {100 * extra:.0f}% more" in first and "the fastest" in first
    assert r.design_point == pick.hw           # the levers are measured at the answer
    exact = joint_explore(M70, s_kv=8192, mode="decode", depth="balanced", tolerance=0.0, sensitivity=False)
    assert exact.pick is exact.best
    assert exact.answer()["fastest"] is None
    with pytest.raises(InferSimError, match="tolerance"):
        joint_explore(M8, s_kv=4096, depth="two_stage", tolerance=1.5)


def test_two_stage_is_labelled_a_memory_first_pick():
    r = joint_explore(M8, s_kv=8192, depth="two_stage")
    assert answer_lines(r.answer())[0].startswith("Answer (memory-first pick, not a search):")


def test_what_it_takes_combination_reaches_what_no_single_knob_does(overhead_bound):
    r = overhead_bound
    assert all(q.multiplier is None for q in r.requirements)
    c = r.combination
    if c is not None:       # a pair of knobs scaled together: its value reaches the target
        assert c.reached_value <= r.target_value and "+" in c.knob
    line = requirement_line(r.answer())
    assert "no hardware knob alone reaches it" in line


def test_memory_tier_changes_the_pick_when_kv_does_not_fit_hbm():
    """70B at 128K, 16 sequences on one 16-PE SiP (768 GB of HBM): the KV cache (~690 GB) and
    weights do not fit, so only candidates with a 480 GB tier serve it; at 8K everything fits
    in HBM and the cheaper candidate without a tier wins tokens per dollar."""
    base = replace(GENERIC_SIP, n_sips=1)
    grid = {"unified_mem_gb": [0, 480], "bw_unified_gbs": [450], "bw_hbm_gbs": [2000, 4000]}
    long = joint_explore(M70, s_kv=131072, batch=16, depth="custom", custom=grid, base_hw=base,
                         objective="tok_s_per_usd", sensitivity=False)
    assert long.pick.hw.unified_mem_gb == 480 and all(s.hw.unified_mem_gb == 480 for s in long.all_scores)
    with pytest.raises(InferSimError, match="impossible sweep"):
        joint_explore(M70, s_kv=131072, batch=16, depth="custom", base_hw=base, sensitivity=False,
                      custom={"bw_hbm_gbs": [2000, 4000]})
    short = joint_explore(M70, s_kv=8192, batch=16, depth="custom", custom=grid, base_hw=base,
                          objective="tok_s_per_usd", sensitivity=False)
    assert short.pick.hw.unified_mem_gb == 0
    # the tier's traffic is costed: a faster tier is never slower, and never faster than HBM
    fast = joint_explore(M70, s_kv=131072, batch=16, depth="custom", base_hw=base, sensitivity=False,
                         custom={**grid, "unified_mem_gb": [480], "bw_unified_gbs": [450, 900]})
    lat = {s.hw.bw_unified_gbs: s.total_latency_ns for s in fast.all_scores if s.hw.bw_hbm_gbs == 2000}
    assert lat[900] < lat[450]


def test_tier_grid_needs_a_bandwidth():
    with pytest.raises(InferSimError, match="bw_unified_gbs"):
        enumerate_hardware("custom", {"unified_mem_gb": [0, 480]})


def test_prefill_heavy_shape_picks_a_different_prefill_part():
    """A 16K-token prompt with 64 output tokens: the prefill pool (compute-bound) takes the part
    with twice the TFLOPS, the decode pool the cheaper one; a chat shape (512 in, 1,024 out)
    takes one part for both."""
    cands = enumerate_hardware("custom", {"peak_tflops_f16": [500, 1000], "bw_hbm_gbs": [2000, 4000]})
    heavy = codesign_pools(M8, Request(16384, 64), cands, GENERIC_SIP, ttft_ms=2000, tpot_ms=30)
    assert heavy.prefill_hw.peak_tflops_f16 == 1000 and heavy.decode_hw.peak_tflops_f16 == 500
    assert heavy.value >= heavy.same_part_value and heavy.ttft_ms <= 2000 and heavy.tpot_ms <= 30
    chat = codesign_pools(M8, Request(512, 1024), cands, GENERIC_SIP, ttft_ms=2000, tpot_ms=30)
    assert chat.prefill_hw == chat.decode_hw and chat.value == chat.same_part_value


def test_sla_codesign_levers_and_shared_objective_names():
    h100 = HW_PRESETS["H100-SXM x8"]
    req = Request(2048, 256)
    a = codesign_sla(M8, req, tpot_ms=20, depth="two_stage", base_hw=h100, objective="throughput_per_pe")
    b = codesign_sla(M8, req, tpot_ms=20, depth="two_stage", base_hw=h100, objective="tok_s_per_pe",
                     sensitivity=False)
    assert a.objective == "tok_s_per_pe" and a.best.tok_s_per_pe == b.best.tok_s_per_pe
    assert {lv.kind for lv in a.levers} == {"hardware", "software"}
    top = max(a.levers, key=lambda lv: lv.gain)
    assert a.answer()["next_lever"]["name"] == top.name


def test_scenario_runtimes_are_assumed_and_never_fitted():
    from infersim.validation.fit import ALL_PROFILES

    assert SCENARIO_RUNTIMES == {"megakernel", "dataflow"}
    for n in SCENARIO_RUNTIMES:
        rt = RUNTIMES[n]
        assert rt.measured == "assumed" and "scenario" in rt.source and n not in ALL_PROFILES
        assert rt.kernel_gap_ns < RUNTIMES["cuda-graphs"].kernel_gap_ns
