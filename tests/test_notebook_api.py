"""Results as DataFrames and Parquet, and the shared Plotly helpers (docs/guide.md)."""
import pytest

pd = pytest.importorskip("pandas", reason="needs the [data] extra (pandas, pyarrow)")

from infersim import InferSimError, Parallelism, Workload, simulate
from infersim.auto_explore import auto_explore
from infersim.hardware_presets import HW_PRESETS
from infersim.report import plots
from infersim.serving import Request, serve, sla_search

H100 = HW_PRESETS["H100-SXM x8"]


@pytest.fixture(scope="module")
def sim(llama8b):
    return simulate(llama8b, H100, Parallelism(tp=2), Workload("prefill", s_kv=4096))


@pytest.fixture(scope="module")
def explored(llama8b):
    return auto_explore(llama8b, H100, Workload("decode", s_kv=8192, batch=8))


@pytest.fixture(scope="module")
def sla(llama8b):
    return sla_search(llama8b, H100, Request(1024, 256), ttft_ms=500, tpot_ms=30)


def test_sim_result_tables(sim):
    bd = sim.to_pandas()
    assert list(bd.columns) == ["component", "time_ms", "share_pct"]
    assert bd["time_ms"].sum() == pytest.approx(sim.total_latency_ns / 1e6)
    ops = sim.to_pandas("ops")
    assert {"operator", "time_us", "gflop", "hbm_mb", "flop_per_byte"} <= set(ops.columns)
    row = ops.set_index("operator").loc["ffn_up_gate"]
    assert row["gflop"] * 1e9 == pytest.approx(sim.op_flops["ffn_up_gate"])
    assert sim.to_pandas("memory")["gb"].sum() == pytest.approx(sim.mem_per_pe_bytes / 1e9)
    with pytest.raises(InferSimError, match="valid choices: breakdown, ops, memory"):
        sim.to_pandas("nope")


def test_explore_round_trips_through_parquet(explored, tmp_path):
    df = explored.to_pandas()
    assert len(df) == explored.n_fitting
    assert {"latency_ms", "period_ms", "tokens_per_s", "mem_per_pe_gb", "kv_shard_mode"} <= set(df.columns)
    assert list(df["latency_ms"]) == sorted(df["latency_ms"])
    back = pd.read_parquet(explored.to_parquet(tmp_path / "explore.parquet"))
    pd.testing.assert_frame_equal(back, df, check_dtype=False)
    with pytest.raises(InferSimError, match="does not exist"):
        explored.to_parquet(tmp_path / "missing" / "x.parquet")


def test_serving_tables_round_trip(sla, llama8b, tmp_path):
    pareto = sla.to_pandas()
    assert len(pareto) == len(sla.pareto)
    assert {"tp", "batch", "ttft_ms", "tpot_ms", "tok_s_per_pe", "tok_s_per_user"} <= set(pareto.columns)
    back = pd.read_parquet(sla.to_parquet(tmp_path / "pareto.parquet"))
    pd.testing.assert_frame_equal(back, pareto, check_dtype=False)
    best = sla.to_pandas("best")
    assert best["deployment"].iloc[0] == "best"
    one = serve(llama8b, H100, Parallelism(tp=1), Request(1024, 256), batch=16).to_pandas()
    assert len(one) == 1 and one["batch"].iloc[0] == 16


def _titles(fig):
    return fig.layout.xaxis.title.text, fig.layout.yaxis.title.text


def test_plot_helpers_have_traces_and_unit_titles(sim, explored, sla):
    fig = sim.plot()
    assert {t.name for t in fig.data} >= {"compute"} and _titles(fig)[0] == "time (ms)"
    fig = sim.plot("memory")
    assert {t.name for t in fig.data} == {"weights", "kv_cache", "workspace"}
    assert _titles(fig)[0] == "memory per PE (GB)"
    fig = sim.plot("roofline", hw=H100)
    assert {t.name for t in fig.data} == {"bf16 roof", "fp8 roof", "operators"}
    assert "flop per HBM byte" in _titles(fig)[0] and "TFLOP/s" in _titles(fig)[1]
    ops = next(t for t in fig.data if t.name == "operators")
    assert "ffn_up_gate" in ops.text
    fig = explored.plot()
    assert _titles(fig) == ("PEs used", "latency (ms)")
    assert any(t.name.startswith("TP") for t in fig.data) and any(t.name.startswith("CP") for t in fig.data)
    assert "parallelism: " in fig.data[0].hovertemplate           # one field: "TP8 CP1 PP1 DP1 (head, TP)"
    assert fig.data[0].customdata[0][-1].startswith("TP") and "(" in fig.data[0].customdata[0][-1]
    fig = sla.plot()
    assert _titles(fig) == ("tokens/s per user", "tokens/s per PE")
    assert {"Pareto frontier", "best (aggregated)"} <= {t.name for t in fig.data}
    fig = plots.breakdown_bars({"a": sim.breakdown_ns, "b": sim.breakdown_ns})
    assert all(len(t.x) == 2 for t in fig.data)
    with pytest.raises(InferSimError, match="needs the hardware"):
        sim.plot("roofline")
