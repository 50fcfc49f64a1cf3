"""Layer 4, the cost model: one vectorized implementation, evaluated over arrays of configurations.

Two stages, so that a co-design sweep pays for the configuration-dependent work once:

1. :func:`prepare` (model, hardware topology, configs, workload → :class:`Terms`): per PE and per
   operator the flops and bytes (already divided by the size-dependent efficiency), the per-level
   bytes and hops of every collective, the memory per PE. Nothing here depends on the six
   co-design knobs.
2. :func:`evaluate` (terms, knobs → latencies): the knobs (HBM capacity and bandwidth, peak
   FLOPs, the three link bandwidths) enter as scalars or as ``(H, 1)`` arrays that broadcast
   against the ``N`` configs, giving ``(H, N)`` results for H hardware candidates at once.

``simulate()`` is this code on one config: its geometry as NumPy scalars and its evaluation's sums
and pipeline on Python floats (:func:`evaluate_one`), the same formulas giving the same bits at about
half the cost of length-one arrays (tests/test_cost.py checks them bit for bit).

``prepare`` is an orchestrator: :func:`~infersim.cost.geometry.geometry` computes every share and
link level once; one pure function per block (:mod:`.attention`, :mod:`.ffn`, :mod:`.moe`,
:mod:`.head`, :mod:`.pipeline`) states its operators, collectives and memory; :func:`combine`
applies the hardware's efficiencies. The formulas are in each block's docstring.

Each operator costs ``max(flops/(peak·rate·eff_c), bytes/(bw·eff_m))``; operators whose compute
term dominates count as "compute", the others as "hbm" in the breakdown. The runtime
(:mod:`infersim.specs.runtime`) prices the kernel launches at evaluation; the pipeline turns one
micro-batch's traversal and the slowest stage into latency and throughput (:mod:`.evaluate`).

May import: :mod:`infersim.specs` and :mod:`infersim.errors` (collectives and expert occupancy
are part of this layer). Everything that predicts a time builds on it; it imports nothing above.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from infersim.cost import collectives as coll
from infersim.cost.attention import attention
from infersim.cost.evaluate import bound_of, evaluate, evaluate_one, knob_values
from infersim.cost.ffn import dense_ffn
from infersim.cost.geometry import Geometry, geometry
from infersim.cost.head import head
from infersim.cost.moe import moe
from infersim.cost.pipeline import memory_per_pe, pipeline, stage_shares
from infersim.cost.terms import (
    BOUND_GROUPS,
    COMM_COMPONENTS,
    COMPONENTS,
    KINDS,
    RUNTIME_COMPONENTS,
    Block,
    OpTable,
    RawOp,
    Terms,
    columns,
)
from infersim.specs.hardware import KNOBS, HardwareSpec, log_size
from infersim.specs.model import ModelSpec
from infersim.specs.parallel import ParArrays
from infersim.specs.workload import Workload

#: Fraction of its own tensor peak an fp8 flash attention reaches relative to a 16-bit one (the
#: part's ``attn_compute_eff`` is the 16-bit kernel's): FlashAttention-3 forward on H100 SXM
#: reaches ~1.2 PFLOPS in fp8 (0.61 of 1,979) against 740 TFLOPS in bf16 (0.75 of 989) (Shah et
#: al. 2024, arXiv:2407.08608, abstract): 0.81, i.e. fp8 attention is ~1.6x, not 2x, faster
#: (softmax and the fp8 transposes of V do not speed up with the tensor rate).
FP8_ATTN_EFF = 0.81


@dataclass(frozen=True)
class _OpKinds:
    """What a hardware makes of a list of operators, whatever the configs: each one's efficiency
    tables, the fp8 attention factor, tensor rate, occurrences and launches (cached per
    (hardware, operator signatures): every evaluation of a model states the same operators)."""

    order: tuple[int, ...]             # the operators in KINDS order (stable)
    ctables: tuple[str, ...]
    mtables: tuple[str, ...]
    crows: tuple[tuple[np.ndarray, np.ndarray, np.ndarray], ...]   # (log sizes, effs, the rows it prices)
    mrows: tuple[tuple[np.ndarray, np.ndarray, np.ndarray], ...]
    scale: np.ndarray                  # (ops, 1): fp8 attention factor · tensor rate · clock
    mult: np.ndarray                   # (ops, 1)
    kernels: np.ndarray                # (ops, 1)


@lru_cache(maxsize=256)
def _op_kinds(hw: HardwareSpec, sigs: tuple) -> _OpKinds:
    order = tuple(sorted(range(len(sigs)), key=lambda i: KINDS.index(sigs[i][0])))
    sigs = [sigs[i] for i in order]
    attn = [klass == "attn" for _, klass, *_ in sigs]
    ctables = tuple(hw.compute_table(s[2], a) for s, a in zip(sigs, attn))
    mtables = tuple(hw.memory_table(s[3], a) for s, a in zip(sigs, attn))
    fp8_attn = hw.speedup("fp8") > 1.0
    def col(values) -> np.ndarray:              # shared by every table built from the cache: read-only
        a = np.array(list(values), dtype=float).reshape(len(sigs), 1)
        a.setflags(write=False)
        return a
    attn_eff = col(FP8_ATTN_EFF if a and s[2] == "fp8" and fp8_attn else 1.0 for s, a in zip(sigs, attn))
    rows = lambda tables: tuple((*hw.log_table(t), np.array([i for i, x in enumerate(tables) if x == t], dtype=np.intp))  # noqa: E731
                                for t in dict.fromkeys(tables))
    scale = col(attn_eff * col(hw.tensor_rate(s[2]) for s in sigs) * hw.clock_fraction)
    return _OpKinds(order, ctables, mtables, rows(ctables), rows(mtables), scale,
                    col(s[4] for s in sigs), col(s[5] for s in sigs))


def _table_eff(rows, size: np.ndarray) -> np.ndarray:
    """Each row's efficiency at its ``size`` from the hardware table that prices it
    (``HardwareSpec.table_efficiency``: :func:`log_size` once, one interpolation per distinct
    table; ``rows``: :class:`_OpKinds`' (log sizes, efficiencies, row indices))."""
    lg = log_size(size)
    if len(rows) == 1:
        return np.interp(lg, rows[0][0], rows[0][1])
    eff = np.empty_like(size)
    for xs, ys, idx in rows:
        eff[idx] = np.interp(lg[idx], xs, ys)
    return eff


def op_table(hw: HardwareSpec, raws: list[RawOp], n: int) -> OpTable:
    """The operators with the hardware's size- and dtype-dependent efficiencies applied:
    ``f = flops / (eff_c · tensor rate · clock)``, ``m = bytes / eff_m`` (a grouped GEMM computes
    at the efficiency of each of its problems' size, since every tile holds one expert's few
    tokens, and streams at the efficiency of its total bytes, since one kernel keeps all of its
    experts' weight loads in flight; an fp8 attention at ``FP8_ATTN_EFF`` of the part's attention
    efficiency), stacked in :data:`KINDS` order (stable: a block's order stays)."""
    kinds = _op_kinds(hw, tuple((o.kind, o.klass, o.dtype, o.weight_dtype, o.mult, o.kernels) for o in raws))
    raws = [raws[i] for i in kinds.order]
    k = len(raws)
    flops, nbytes, problems = np.empty((k, n)), np.empty((k, n)), np.empty((k, n))
    for i, o in enumerate(raws):
        flops[i], nbytes[i], problems[i] = o.flops, o.nbytes, o.problems
    f = flops / (_table_eff(kinds.crows, flops / problems) * kinds.scale)
    m = nbytes / _table_eff(kinds.mrows, nbytes)
    return OpTable(tuple(o.name for o in raws), f, m, flops, nbytes, kinds.mult, kinds.kernels,
                   tuple(o.kind for o in raws), tuple(o.klass for o in raws), kinds.ctables, kinds.mtables)


def combine(model: ModelSpec, hw: HardwareSpec, par: ParArrays, g: Geometry,
            blocks: list[Block]) -> Terms:
    """Apply the hardware's size- and dtype-dependent efficiencies and tensor rates; group the
    collectives by (component, kind); count kernel launches by kind; memory per PE of the larger
    of the first and the last pipeline stage."""
    raws = [o for b in blocks for o in b.ops]
    per_kind = dict.fromkeys(KINDS, 0.0)
    for o in raws:
        per_kind[o.kind] += o.mult * o.kernels
    for b in blocks:
        for kind, launches in b.launches.items():
            per_kind[kind] = per_kind[kind] + launches
    kernels = dict(zip(KINDS, columns([per_kind[k] for k in KINDS], g.n)))
    rows = [r for b in blocks for r in b.comms]
    comms = coll.CommTable.of([(component, kind, c) for component, kind, c, _ in rows], KINDS)
    ring = next(b.ring for b in blocks if b.ring is not None)
    stages = stage_shares(model, g)
    parts = memory_per_pe(model, g, [b.mem for b in blocks])
    table = op_table(hw, raws, g.n)
    ring_mult, ring_hide, cp, m, pp, seqs = columns([ring.mult, ring.hide, g.cp, g.m, g.pp, g.b_all], g.n)
    return Terms(hw=hw, par=par, prefill=g.prefill, table=table,
                 attn_index=table.names.index(ring.op),
                 comms=comms,
                 ring_step=ring.step, ring_mult=ring_mult, ring_hide=ring_hide, cp=cp, m=m, pp=pp,
                 kernels=kernels, coll_calls=_collective_calls(rows, comms, g.n), stages=stages,
                 mem_bytes=parts["weights"] + parts["kv_cache"] + parts["workspace"],
                 seqs=seqs, mem_parts=parts)


def _collective_calls(rows: list, comms: coll.CommTable, n: int) -> dict:
    """Per kind, (calls inside a node, calls across nodes) per step of the blocks' collectives
    ``rows`` (component, kind, collective, calls): a collective spans SiPs (nodes) where it has
    hops at the SiP level. (N,) arrays, Python floats for one config (whole numbers: the sums
    are exact in any order)."""
    out: dict = {}
    for blk in comms.blocks:
        nets = blk.spans_sips()                             # (N,) bools, one reduction per block
        for i, x in zip(blk.rows, nets.ravel().tolist() if n == 1 else nets):
            kind, calls = rows[i][1], rows[i][3]
            if n == 1:
                calls = calls.item()
            local, across = out.get(kind, (0.0, 0.0))
            out[kind] = (local + calls * (1 - x), across + calls * x)
    return out


def blocks_of(model: ModelSpec, hw: HardwareSpec, par: ParArrays, wl: Workload):
    """The geometry and the blocks (they depend on the hardware's topology only), so that a
    calibration can :func:`combine` them with many efficiency tables."""
    g = geometry(model, hw.topology, par, wl)
    return g, [attention(model, g), dense_ffn(model, g), moe(model, g), head(model, g),
               pipeline(model, g)]


def prepare(model: ModelSpec, hw: HardwareSpec, par: ParArrays, wl: Workload) -> Terms:
    """Stage 1: hardware-knob-independent flops, bytes, collective terms and memory per PE."""
    g, blocks = blocks_of(model, hw, par, wl)
    return combine(model, hw, par, g, blocks)


__all__ = ["prepare", "evaluate", "evaluate_one", "bound_of", "BOUND_GROUPS", "knob_values", "Terms", "COMPONENTS",
           "COMM_COMPONENTS", "RUNTIME_COMPONENTS", "KNOBS"]
