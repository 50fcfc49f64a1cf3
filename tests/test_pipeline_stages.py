"""Pipeline stages: memory per PE is the heaviest stage's and the period the slowest stage's,
over every stage (not only the first and the last), checked against a brute force over stages
built from each layer's own kind on random layer masks and attention patterns."""
from dataclasses import replace

import numpy as np
import pytest

from infersim import Parallelism, Workload, simulate
from infersim.cost import blocks_of
from infersim.cost.pipeline import stage_counts
from infersim.presets.hardware_presets import get_hardware
from infersim.presets.model_presets import get_model
from infersim.specs.parallel import ParArrays

HW = get_hardware("GB200 NVL72")


def _model(rng):
    """A Mixtral-shaped MoE with a random dense prefix, MoE step and full/sliding layer pattern."""
    base = get_model("Mixtral 8x7B")
    L = int(rng.choice([12, 24, 36]))
    step = int(rng.choice([1, 2, 3]))
    k = int(rng.integers(0, L - step))
    types = tuple(rng.choice(["full", "sliding"], size=L))
    return replace(base, name="random-stages", n_layers=L, first_k_dense=k, moe_layer_step=step,
                   ffn_hidden=14336, layer_types=types, sliding_window=1024)


def _brute_memory(model, par: Parallelism, wl: Workload) -> float:
    """Weights + KV cache of the heaviest stage, layer by layer from the blocks' per-layer units."""
    g, blocks = blocks_of(model, HW, ParArrays.from_configs([par], wl), wl)
    mems = [b.mem for b in blocks]
    unit = {k: float(np.ravel(sum(m.per_layer.get(k, 0.0) for m in mems))[0]) for k in ("all", "dense", "moe")}
    kv_mean = float(np.ravel(sum(m.kv_per_layer for m in mems))[0])
    first, last = (float(np.ravel(sum(getattr(m, f) for m in mems))[0]) for f in ("first", "last"))
    span = [min(wl.s_kv, model.sliding_window) if t == "sliding" else wl.s_kv for t in model.layer_types]
    n = model.n_layers // par.pp
    best = 0.0
    for s in range(par.pp):
        total = first if s == 0 else 0.0
        total += last if s == par.pp - 1 else 0.0
        for i in range(s * n, (s + 1) * n):
            total += unit["all"] + (unit["moe"] if model.layer_is_moe(i) else unit["dense"])
            total += kv_mean * span[i] / np.mean(span)
        best = max(best, total)
    return best


@pytest.mark.parametrize("seed", range(12))
def test_memory_is_the_heaviest_stage_over_every_stage(seed):
    rng = np.random.default_rng(seed)
    model = _model(rng)
    pp = int(rng.choice([d for d in (2, 3, 4, 6, 12) if model.n_layers % d == 0]))
    par, wl = Parallelism(tp=2, pp=pp), Workload("decode", s_kv=65536, batch=4)
    r = simulate(model, HW, par, wl)
    got = r.mem_breakdown_bytes["weights"] + r.mem_breakdown_bytes["kv_cache"]
    assert got == pytest.approx(_brute_memory(model, par, wl), rel=1e-9)


@pytest.mark.parametrize("seed", range(12))
def test_stage_counts_equal_the_layers_each_stage_holds(seed):
    rng = np.random.default_rng(100 + seed)
    model = _model(rng)
    for pp in (d for d in (1, 2, 3, 4, 6) if model.n_layers % d == 0):
        c, n = stage_counts(model, pp, 8192.0), model.n_layers // pp
        mask = np.array(model.moe_layer_mask)
        assert c["moe"].tolist() == pytest.approx([mask[s * n:(s + 1) * n].sum() for s in range(pp)])
        assert c["all"].tolist() == pytest.approx([n] * pp)


def test_interleaved_moe_at_one_layer_a_stage_holds_an_moe_layer():
    """45 layers, MoE every other layer (dense first and last): at PP45 the first and the last
    stage hold dense layers, the heaviest a MoE layer — memory and period are a MoE stage's."""
    base = get_model("Mixtral 8x7B")
    m = replace(base, name="interleaved-45", n_layers=45, moe_layer_step=2, ffn_hidden=14336)
    wl = Workload("decode", s_kv=4096)
    deep = simulate(m, HW, Parallelism(pp=45), wl)
    all_moe = replace(m, moe_layer_step=1, ffn_hidden=0)               # every stage an MoE layer
    dense = replace(m, n_experts=0, n_experts_per_tok=0, moe_layer_step=1, moe_ffn_hidden=0)  # all dense
    g, blocks = blocks_of(m, HW, ParArrays.from_configs([Parallelism(pp=45)], wl), wl)
    moe_layer = sum(float(np.ravel(b.mem.per_layer.get(k, 0.0))[0]) for b in blocks for k in ("all", "moe"))
    assert deep.mem_breakdown_bytes["weights"] == pytest.approx(moe_layer, rel=1e-9)
    # no embedding or head in the heaviest stage: lighter than the all-MoE model's end stages
    assert deep.mem_breakdown_bytes["weights"] < simulate(all_moe, HW, Parallelism(pp=45), wl).mem_breakdown_bytes["weights"]
    # the slowest stage streams two experts (top-2 of 8): slower than any stage of the dense model
    assert deep.period_ns > 1.15 * simulate(dense, HW, Parallelism(pp=45), wl).period_ns
