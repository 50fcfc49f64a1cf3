"""Issue #11, the sweep's share: bad input is one InferSimError line (API) or one ``error:`` line
and exit 2 (CLI); progress streams from inside the sweep; a candidate cap; compact slices;
the Dask path returns identical results."""
import pickle
from dataclasses import replace

import numpy as np
import pytest

from infersim import InferSimError, Workload, cost
from infersim.auto_explore import auto_explore
from infersim.auto_hardware import MAX_CANDIDATES, enumerate_hardware, joint_explore
from infersim.cli import main
from infersim.codesign.grid import grid_axes, grid_size
from infersim.codesign.search import SliceResult, run_range, static_terms
from infersim.hardware_presets import GENERIC_SIP
from infersim.search.space import parallelism_space

GRID_15K = {k: [v * m for m in (0.5, 0.75, 1.0, 1.5, 2.0)] for k, v in GENERIC_SIP.knobs().items()}


def one_line(exc_info) -> str:
    msg = str(exc_info.value)
    assert "\n" not in msg and msg
    return msg


@pytest.fixture(scope="module")
def small_terms(llama8b):
    wl = Workload("decode", s_kv=4096)
    space, _ = parallelism_space(llama8b, GENERIC_SIP, wl)
    return cost.prepare(llama8b, GENERIC_SIP, space.take(np.arange(5)), wl)


@pytest.mark.parametrize("kwargs, needle", [
    (dict(depth="custom", custom={"bw_hbm_gbs": 2000.0}), "custom grid values for bw_hbm_gbs must be a list"),
    (dict(depth="custom", custom={"bw_hbm_gbs": "2000"}), "must be a list of numbers"),
    (dict(executor="dask"), "executor must be None or an object with submit"),
    (dict(keep="topk", top_k=2.5), "top_k must be an integer >= 1, got 2.5"),
    (dict(n_slices=-1), "n_slices must be an integer >= 1, got -1"),
    (dict(n_slices=0), "n_slices must be an integer >= 1, got 0"),
    (dict(progress="bar"), "progress must be callable"),
    (dict(max_candidates=10), "above the cap of 10; pass max_candidates=64"),
    (dict(max_candidates=0), "max_candidates must be an integer in 1..1,000,000"),
    (dict(design_point={"flux": 1.0}), "unknown knobs"),
    (dict(target=-3.0), "target must be a positive number"),
    (dict(target_gain=0), "target_gain must be a number > 0"),
])
def test_joint_explore_bad_arguments_are_one_line(llama8b, kwargs, needle):
    kw = dict(s_kv=4096, depth="balanced", sensitivity=True)
    kw.update(kwargs)
    with pytest.raises(InferSimError, match=needle) as e:
        joint_explore(llama8b, **kw)
    one_line(e)


@pytest.mark.parametrize("kwargs, needle", [
    (dict(chunk=0), "chunk must be an integer >= 1"),
    (dict(chunk=2.5), "chunk must be an integer >= 1"),
    (dict(top=2.5), "top must be an integer >= 1, got 2.5"),
])
def test_auto_explore_bad_arguments_are_one_line(llama8b, kwargs, needle):
    with pytest.raises(InferSimError, match=needle) as e:
        auto_explore(llama8b, GENERIC_SIP, Workload("decode", s_kv=4096), **kwargs)
    one_line(e)


def test_hardware_spec_fp8_speedup_string_is_one_line():
    with pytest.raises(InferSimError, match="fp8_speedup must be a finite number") as e:
        replace(GENERIC_SIP, fp8_speedup="2")
    one_line(e)


def test_hardware_spec_bad_efficiency_table_is_one_line():
    with pytest.raises(InferSimError, match="compute_eff"):
        replace(GENERIC_SIP, compute_eff=(("big", 0.5),))


@pytest.mark.parametrize("knobs, needle", [
    ({"bw_hbm_gbs": -1.0}, "knob bw_hbm_gbs must be a finite number > 0, got -1.0"),
    ({"bw_hbm_gbs": np.array([[1000.0], [np.nan]])}, "knob bw_hbm_gbs must be a finite number > 0, got nan"),
    ({"bw_hbm_gb": 1.0}, "unknown hardware knobs ['bw_hbm_gb']; valid: pe_hbm_gb"),
    ({"peak_tflops_f16": "fast"}, "knob peak_tflops_f16 must be a number"),
])
def test_cost_evaluate_rejects_bad_knobs(small_terms, knobs, needle):
    with pytest.raises(InferSimError, match=needle.replace("[", r"\[").replace("]", r"\]")) as e:
        cost.evaluate(small_terms, knobs, breakdown=False)
    one_line(e)


def test_numpy_grid_values_are_accepted():
    as_np = enumerate_hardware("custom", {"bw_hbm_gbs": [np.int64(2000), np.float64(4000.0)],
                                          "n_sips": [np.int64(2)]})
    plain = enumerate_hardware("custom", {"bw_hbm_gbs": [2000, 4000], "n_sips": [2]})
    assert as_np == plain and len(plain) == 2
    assert all(isinstance(c.bw_hbm_gbs, float) and c.n_sips == 2 for c in as_np)


def test_local_progress_streams_per_block(llama70b):
    calls = []
    r = joint_explore(llama70b, s_kv=131072, depth="custom", custom=GRID_15K, sensitivity=False,
                      progress=lambda done, total: calls.append((done, total)))
    assert r.n_hardware == 15_625
    assert len(calls) >= 10
    done = [d for d, _ in calls]
    assert done == sorted(done) and done[-1] == 15_625 and {t for _, t in calls} == {15_625}


def test_candidate_cap_and_explicit_override(llama8b):
    assert MAX_CANDIDATES == 250_000
    with pytest.raises(InferSimError, match="pass max_candidates=729") as e:
        enumerate_hardware("coarse", max_candidates=100)
    one_line(e)
    r = joint_explore(llama8b, s_kv=4096, depth="balanced", max_candidates=64, sensitivity=False)
    assert r.n_hardware == 64
    huge = {k: list(range(1, 11)) for k in ("bw_hbm_gbs", "peak_tflops_f16", "bw_intra_gbs",
                                           "bw_inter_gbs", "bw_intersip_gbs", "pe_hbm_gb")}
    with pytest.raises(InferSimError, match="1,000,000 hardware candidates, above the cap of 250,000"):
        joint_explore(llama8b, depth="custom", custom=huge)


def test_slices_are_compact_flat_arrays(llama70b):
    ctx = joint_explore(llama70b, s_kv=131072, depth="balanced", sensitivity=False).context
    axes = grid_axes("custom", GRID_15K, GENERIC_SIP.knobs(), (4, 4, 4))
    n = grid_size(axes)
    res = run_range(ctx, axes, 0, n // 4)
    assert isinstance(res, SliceResult)
    for f in ("cand", "config", "pes", "latency_ns", "period_ns", "mem_bytes"):
        a = getattr(res, f)
        assert isinstance(a, np.ndarray) and a.ndim == 1 and len(a) == n // 4
    assert len(pickle.dumps(res)) < 64 * (n // 4)            # ~48 bytes per candidate, no objects


def test_dask_two_workers_identical_and_static_terms_built_once(llama70b):
    distributed = pytest.importorskip("distributed")
    local = joint_explore(llama70b, s_kv=131072, depth="custom", custom=GRID_15K, sensitivity=False)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        runs = [joint_explore(llama70b, s_kv=131072, depth="custom", custom=GRID_15K, executor=client,
                              sensitivity=False) for _ in range(2)]
        builds = client.run(lambda: static_terms.cache_info().misses)
    t = local.all_scores.table
    for r in runs:
        u = r.all_scores.table
        for col in ("cand", "config", "latency_ns", "period_ns", "system_cost_usd", "objective_value"):
            assert np.array_equal(getattr(t, col), getattr(u, col)), col
        assert [s.hw for s in r.pareto_usd_scores] == [s.hw for s in local.pareto_usd_scores]
        assert r.total_joint == local.total_joint
    assert set(builds.values()) == {1}                      # one topology, built once per worker


@pytest.mark.parametrize("argv, needle", [
    (["--depth", "custom", "--grid", "bw_hbm_gbs=1000,2000;bw_hbm_gbs=3000"], "--grid names bw_hbm_gbs twice"),
    (["--depth", "custom", "--grid", "bw_hbm_gbs=fast"], "bad --grid values for 'bw_hbm_gbs'"),
    (["--depth", "custom", "--grid", "n_sips=2.5"], "n_sips values must be integers in 1..1,048,576"),
    (["--depth", "custom"], "needs a grid"),
    (["--objective", "cheapest"], "unknown objective 'cheapest'"),
    (["--depth", "coarse", "--max-candidates", "100"], "pass max_candidates=729"),
    (["--design-point", "bw_hbm_gbs=1000,2000"], "--design-point takes one value per knob"),
    (["--design-point", "warp=9"], "unknown knobs"),
    (["--target", "-1"], "--target must be > 0"),
    (["--top-k", "0"], "argument --top-k: expected an integer in 1.."),
])
def test_cli_bad_codesign_input_is_one_error_line(capsys, argv, needle):
    assert main(["codesign", "--model", "Llama 3.1 8B", "--s-kv", "4096", *argv]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: ") and needle in err[0]
