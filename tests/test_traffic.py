"""Serving under traffic: the request-level simulator's limits, invariants and hand-checked queues.

Deployments are Llama 3.1 70B on 8x H100 (the benchmark's case); the traffic is small enough that
each simulation takes a fraction of a second."""
import json
import math
from dataclasses import replace

import numpy as np
import pytest

from infersim import InferSimError, Parallelism, Workload, cost
from infersim.cli import main
from infersim.hardware_presets import HW_PRESETS
from infersim.model_presets import PRESETS
from infersim.presets.runtime_presets import get_runtime
from infersim.serving import (
    Lengths,
    Request,
    Scheduler,
    Traffic,
    capacity_search,
    max_rate,
    read_trace,
    serve,
    simulate_traffic,
)
from infersim.serving.sla import max_batch
from infersim.serving.step_grid import _replica_rows, step_table
from infersim.specs.parallel import ParArrays

MODEL = PRESETS["Llama 3.1 70B"].model
HW = HW_PRESETS["H100-SXM x8"]
TP8, TP4 = Parallelism(tp=8), Parallelism(tp=4)
REQ = Request(2048, 512)


def run(par=TP8, hw=HW, sched=None, **kw):
    kw.setdefault("isl", 2048)
    kw.setdefault("osl", 512)
    kw.setdefault("n_requests", 1500)
    return simulate_traffic(MODEL, hw, par, Traffic(**kw), scheduler=sched)


def pcts(r, metrics=("ttft", "tpot", "e2e")):
    return np.array([[r.percentile_ms(m, q) for q in (50, 90, 99)] for m in metrics])


# ---- the step grid ------------------------------------------------------------------------------
def test_step_grid_matches_direct_evaluation():
    """Off-grid decode steps within 1 % and prompt chunks within 3 % of the cost model itself."""
    rt = get_runtime(None)
    tb = step_table(MODEL, HW, TP4, rt, max_seqs=256, max_ctx=32768, budget=8192, ref_len=2560)
    rng = np.random.default_rng(0)
    for b, ctx in zip(rng.integers(1, 257, 12), rng.integers(100, 30000, 12)):
        rows = _replica_rows(TP4, np.array([b]), Workload("decode", s_kv=int(ctx)))
        direct = cost.evaluate(cost.prepare(MODEL, HW, rows, Workload("decode", s_kv=int(ctx))), runtime=rt,
                               breakdown=False)["total_ns"][0]
        assert tb.decode_ns(int(b), float(ctx)) == pytest.approx(direct, rel=0.01)
    one = _replica_rows(TP4, np.array([1]), Workload("decode", s_kv=1))
    for c, p in ((300, 0), (1500, 0), (3000, 5000), (8192, 20000)):
        wl = Workload("prefill", s_kv=c + p, s_q=c)
        direct = cost.evaluate(cost.prepare(MODEL, HW, one, wl), runtime=rt, breakdown=False)["total_ns"][0]
        assert tb.t_w_ns + c * tb.token_ns(c, p) == pytest.approx(direct, rel=0.03)


# ---- limits ---------------------------------------------------------------------------------------
def test_rate_to_zero_is_one_request_alone():
    """At a vanishing rate every request is alone: TTFT = its prefill, TPOT = the batch-1 step."""
    r = run(rate_rps=1e-3, n_requests=30)
    alone = serve(MODEL, HW, TP8, REQ, batch=1, batching="static")
    assert r.percentile_ms("ttft", 50) == pytest.approx(alone.ttft_ms, rel=0.01)
    assert r.percentile_ms("tpot", 50) == pytest.approx(alone.tpot_ms, rel=0.01)
    assert np.median(r.queue_ns) == 0 and r.preemptions.sum() == 0


@pytest.mark.parametrize("par,sched,batch", [
    (TP8, Scheduler(max_num_seqs=128), 128),                     # the scheduler's cap binds
    (TP4, Scheduler(max_num_seqs=4096, admission="reserve"), None),   # the KV cache binds
    (Parallelism(tp=4, dp=2), Scheduler(max_num_seqs=128), 256),
])
def test_saturation_equals_steady_state_maximum(par, sched, batch):
    """Far above capacity, the deployment delivers serve's steady-state tokens/s (within 5 %)."""
    if batch is None:
        cfg = ParArrays.from_configs([par], Workload("decode", s_kv=2560, batch=par.dp))
        batch = int(max_batch(MODEL, HW, cfg, REQ, cap=1 << 20)[0])
    steady = serve(MODEL, HW, par, REQ, batch=batch).tok_s
    r = run(par, sched=sched, rate_rps=100, n_requests=4000)
    assert r.steady_tok_s() == pytest.approx(steady, rel=0.05)


def test_littles_law():
    """Mean requests in the system (integrated by the event loop) = rate x mean time in system."""
    rate = 4.0
    r = run(rate_rps=rate, n_requests=12000)
    assert r.mean_in_system == pytest.approx(rate * r.e2e_ns.mean() * 1e-9, rel=0.02)
    closed = run(arrival="concurrency", concurrency=32, n_requests=1500)
    assert closed.mean_in_system == pytest.approx(32, rel=0.05)      # the clients, less the drain


def test_md1_mean_wait_matches_pollaczek_khinchine():
    """One sequence at a time, fixed lengths, Poisson arrivals: W = λ S² / (2 (1 − ρ))."""
    one = Scheduler(max_num_seqs=1)
    s = float(run(sched=one, rate_rps=1e-3, n_requests=2, isl=512, osl=64).e2e_ns[0]) * 1e-9
    lam = 0.5 / s
    r = run(sched=one, rate_rps=lam, n_requests=30000, isl=512, osl=64, seed=1)
    assert r.queue_ns.mean() * 1e-9 == pytest.approx(lam * s * s / (2 * (1 - lam * s)), rel=0.03)


# ---- invariants -----------------------------------------------------------------------------------
def test_percentiles_ordered_and_non_decreasing_in_rate():
    prev = None
    for rate in (0.5, 2, 4, 5, 5.5):
        p = pcts(run(rate_rps=rate))
        assert np.all(np.diff(p, axis=1) >= 0)                    # p50 <= p90 <= p99
        if prev is not None:
            assert np.all(p >= prev * (1 - 1e-9))
        prev = p


def test_more_hbm_never_raises_p99():
    """More bandwidth: every p99 falls. More capacity: p99 TTFT and E2E fall (TPOT may rise: the
    larger cache admits a larger, slower batch)."""
    prev = None
    for f in (1, 1.25, 1.5, 2):
        p = pcts(run(hw=replace(HW, bw_hbm_gbs=HW.bw_hbm_gbs * f), rate_rps=5))[:, 2]
        assert prev is None or np.all(p <= prev)
        prev = p
    prev = None
    for gb in (22, 24, 28, 40):
        r = run(hw=replace(HW, pe_hbm_gb=gb), sched=Scheduler(max_num_seqs=1024), rate_rps=3, isl=4096,
                osl=1024, n_requests=800)
        p = pcts(r, ("ttft", "e2e"))[:, 2]
        assert prev is None or np.all(p <= prev)
        prev = p


def test_preemption_only_when_kv_full():
    small = replace(HW, pe_hbm_gb=24)
    r = run(hw=small, sched=Scheduler(max_num_seqs=1024), rate_rps=3, isl=4096, osl=1024, n_requests=600)
    assert r.preemptions.sum() > 0 and len(r.preempt_log) == r.preemptions.sum()
    for _, used, need, cap in r.preempt_log:
        assert used + need > cap
    assert r.timeline["kv_tokens"].max() <= r.kv_capacity_tokens
    # the same traffic with a cache that never fills, and with whole-request reservation
    assert run(rate_rps=3, isl=4096, osl=1024, n_requests=600).preemptions.sum() == 0
    reserve = run(hw=small, sched=Scheduler(max_num_seqs=1024, admission="reserve"), rate_rps=3, isl=4096,
                  osl=1024, n_requests=600)
    assert reserve.preemptions.sum() == 0


@pytest.mark.parametrize("suffix", [".csv", ".jsonl"])
def test_trace_replay_is_deterministic(tmp_path, suffix):
    rng = np.random.default_rng(3)
    t = np.cumsum(rng.exponential(0.25, 300))
    rows = [{"arrival_s": float(a), "input_tokens": int(i), "output_tokens": int(o)}
            for a, i, o in zip(t, rng.integers(100, 4000, 300), rng.integers(10, 800, 300))]
    path = tmp_path / f"trace{suffix}"
    if suffix == ".csv":
        path.write_text("arrival_s,input_tokens,output_tokens\n"
                        + "".join(f"{r['arrival_s']},{r['input_tokens']},{r['output_tokens']}\n" for r in rows))
    else:
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    tr = read_trace(path)
    assert tr.isl.tolist() == [r["input_tokens"] for r in rows]
    a, b = (simulate_traffic(MODEL, HW, TP8, Traffic(arrival="trace", trace=read_trace(path), seed=7))
            for _ in range(2))
    for f in ("ttft_ns", "tpot_ns", "e2e_ns", "queue_ns"):
        assert np.array_equal(getattr(a, f), getattr(b, f), equal_nan=True)
    fast = simulate_traffic(MODEL, HW, TP8, Traffic(arrival="trace", trace=tr, rate_rps=40))
    assert fast.arrival_ns[-1] == pytest.approx(299 / 40 * 1e9)      # rescaled to the rate
    assert fast.percentile_ms("ttft", 99) > a.percentile_ms("ttft", 99)


def test_seeds_and_lengths():
    a, b, c = (Traffic(rate_rps=5, n_requests=500, isl=Lengths("lognormal", mean=1000, sigma=0.8), seed=s).sample()
               for s in (1, 1, 2))
    assert np.array_equal(a.arrival_ns, b.arrival_ns) and np.array_equal(a.isl, b.isl)
    assert not np.array_equal(a.isl, c.isl)
    assert np.median(a.isl) == pytest.approx(1000, rel=0.15)
    g = Traffic(rate_rps=5, arrival="gamma", cv=3, n_requests=20000).sample()
    gaps = np.diff(g.arrival_ns)
    assert gaps.mean() * 1e-9 == pytest.approx(0.2, rel=0.05) and gaps.std() / gaps.mean() == pytest.approx(3, rel=0.1)
    # common random numbers: the same requests at scaled times
    lo = Traffic(rate_rps=2, n_requests=50).sample()
    hi = Traffic(rate_rps=4, n_requests=50).sample()
    assert np.allclose(lo.arrival_ns, 2 * hi.arrival_ns)


def test_bursty_traffic_waits_longer_and_goodput():
    poisson = run(rate_rps=4)
    bursty = run(rate_rps=4, arrival="gamma", cv=4)
    assert bursty.percentile_ms("ttft", 99) > poisson.percentile_ms("ttft", 99)
    assert poisson.goodput_rps() == pytest.approx(poisson.throughput_rps)
    assert poisson.goodput_rps(ttft_ms=1, tpot_ms=1) == 0
    df = poisson.to_pandas()
    assert len(df) == poisson.n and {"ttft_ms", "tpot_ms", "e2e_ms", "queue_ms"} <= set(df.columns)
    assert set(poisson.to_pandas("timeline").columns) >= {"t_s", "waiting", "running", "kv_occupancy"}


def test_policies():
    """Prefill-first pauses decodes for prompts (lower TTFT, higher TPOT tail than decode-first);
    static batching waits for the whole batch (higher TTFT)."""
    dec = run(rate_rps=4)
    pre = run(rate_rps=4, sched=Scheduler(policy="prefill-first"))
    static = run(rate_rps=4, sched=Scheduler(policy="static"))
    assert pre.percentile_ms("itl", 99) > dec.percentile_ms("itl", 99)
    assert static.percentile_ms("ttft", 50) > dec.percentile_ms("ttft", 50)


# ---- capacity planning ----------------------------------------------------------------------------
def test_max_rate_is_the_slo_edge():
    tr = Traffic(rate_rps=1, n_requests=1500)
    m = max_rate(MODEL, HW, TP8, tr, ttft_ms=1000, tpot_ms=50)
    assert 0 < m.rate_rps < m.saturation_rps
    at = simulate_traffic(MODEL, HW, TP8, tr.with_rate(m.rate_rps))
    above = simulate_traffic(MODEL, HW, TP8, tr.with_rate(m.rate_rps * 1.1))
    assert at.percentile_ms("tpot", 99) <= 50 and at.percentile_ms("ttft", 99) <= 1000
    assert above.percentile_ms("tpot", 99) > 50 or above.percentile_ms("ttft", 99) > 1000


def test_capacity_search_fewest_pes():
    tr = Traffic(rate_rps=10, n_requests=1000)
    c = capacity_search(MODEL, HW, tr, ttft_ms=1000, tpot_ms=50, n_per_replica=1000)
    b = c.best
    assert b is not None and b.ttft_ms <= 1000 and b.tpot_ms <= 50
    assert b.saturation_rps >= 10 and b.pes == b.replicas * b.par.pes
    # one replica fewer failed, or the steady-state bound already asked for this many
    failing = [p for p, ok in c.tried if p.par == b.par and p.replicas == b.replicas - 1 and not ok]
    assert failing or b.replicas == math.ceil(10 / (b.saturation_rps / b.replicas))
    assert all(not ok for p, ok in c.tried if p.par == b.par and p.replicas < b.replicas)
    assert all(p.pes >= b.pes for p, ok in c.tried if ok)
    assert "replicas" in c.answer() and "saturates" in c.answer()
    none = capacity_search(MODEL, HW, tr, ttft_ms=1, n_per_replica=200)
    assert none.best is None and "nothing meets" in none.answer()


# ---- errors and front ends ------------------------------------------------------------------------
@pytest.mark.parametrize("kw,msg", [
    ({"rate_rps": None}, "rate_rps"), ({"rate_rps": 1, "arrival": "bursty"}, "valid choices"),
    ({"rate_rps": 1, "arrival": "gamma", "cv": 0}, "cv"), ({"arrival": "concurrency"}, "concurrency"),
    ({"rate_rps": 1, "n_requests": None}, "n_requests"), ({"rate_rps": 1, "isl": 0}, "positive"),
])
def test_bad_traffic_is_one_line(kw, msg):
    base = {"n_requests": 10}
    base.update(kw)
    with pytest.raises(InferSimError, match=msg):
        Traffic(**base)
    with pytest.raises(InferSimError, match="valid choices"):
        Scheduler(policy="fastest")


def test_request_larger_than_the_cache_is_rejected():
    with pytest.raises(InferSimError, match="does not fit the KV cache"):
        run(hw=replace(HW, pe_hbm_gb=18.5), rate_rps=1, isl=100_000, osl=10, n_requests=5)


def test_cli_serve_rate_and_capacity(capsys):
    assert main(["serve", "--model", "Llama 3.1 70B", "--hw", "H100-SXM x8", "--rate", "4", "--tp", "8",
                 "--requests", "500", "--ttft-ms", "1000", "--tpot-ms", "50", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["answer"][0].startswith("Llama 3.1 70B on H100-SXM x8, TP8")
    assert out["ttft_p99_ms"] >= out["ttft_p50_ms"] and out["requests"] == 500 and out["saturation_rps"] > 4
    assert main(["capacity", "--model", "Llama 3.1 70B", "--hw", "H100-SXM x8", "--rate", "8",
                 "--ttft-p99-ms", "1000", "--tpot-p99-ms", "50", "--requests", "500", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["best"]["pes"] >= 8 and "replicas" in out["answer"]


@pytest.mark.parametrize("argv,msg", [
    (["serve", "--rate", "4", "--arrival", "gamma:cv=x"], "cv must be a number"),
    (["serve", "--rate", "4", "--arrival", "burst"], "valid choices"),
    (["serve", "--arrival", "trace:/nonexistent.csv"], "not found"),
    (["serve", "--rate", "4", "--isl-dist", "zipf"], "valid choices"),
    (["capacity", "--rate", "5", "--arrival", "concurrency:n=4"], "poisson or gamma"),
])
def test_cli_bad_traffic_exits_2(capsys, argv, msg):
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error:") and msg in err and "\n" not in err


def test_cli_traffic_answers_print_as_text(capsys):
    """The answer line of serve --rate and capacity is printed bold, never as literal markup."""
    assert main(["serve", "--model", "Llama 3.1 8B", "--hw", "H100-SXM x8", "--rate", "4", "--tp", "1",
                 "--requests", "300"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Llama 3.1 8B on H100-SXM x8, TP1") and "[bold]" not in out and "[/]" not in out
    assert main(["capacity", "--model", "Llama 3.1 8B", "--hw", "H100-SXM x8", "--rate", "4",
                 "--ttft-p99-ms", "1000", "--tpot-p99-ms", "50", "--requests", "300"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Llama 3.1 8B at 4 req/s") and "[bold]" not in out and "[/]" not in out
