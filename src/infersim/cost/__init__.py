"""The cost model: one vectorized implementation, evaluated over arrays of configurations.

Two stages, so that a co-design sweep pays for the configuration-dependent work once:

1. :func:`prepare` (model, hardware topology, configs, workload → :class:`Terms`): per PE and per
   operator the flops and bytes (already divided by the size-dependent efficiency), the per-level
   bytes and hops of every collective, the memory per PE. Nothing here depends on the six
   co-design knobs.
2. :func:`evaluate` (terms, knobs → latencies): the knobs (HBM capacity and bandwidth, peak
   FLOPs, the three link bandwidths) enter as scalars or as ``(H, 1)`` arrays that broadcast
   against the ``N`` configs, giving ``(H, N)`` results for H hardware candidates at once.

``simulate()`` is this code on arrays of length one.

``prepare`` is an orchestrator: :func:`~infersim.cost.geometry.geometry` computes every share and
link level once; one pure function per block (:mod:`.attention`, :mod:`.ffn`, :mod:`.moe`,
:mod:`.head`, :mod:`.pipeline`) states its operators, collectives and memory; :func:`combine`
applies the hardware's efficiencies. The formulas are in each block's docstring.

Each operator costs ``max(flops/(peak·eff_c), bytes/(bw·eff_m)) + kernels·overhead``; operators
whose compute term dominates count as "compute", the others as "hbm" in the breakdown.
"""
from __future__ import annotations

import numpy as np

from .. import collectives as coll
from ..hardware import KNOBS, HardwareSpec
from ..model import ModelSpec
from ..parallel import ParArrays
from ..workload import Workload
from .attention import attention
from .evaluate import bound_of, evaluate, knob_values
from .ffn import dense_ffn
from .geometry import Geometry, geometry
from .head import head
from .moe import moe
from .pipeline import memory_per_pe, pipeline
from .terms import COMM_COMPONENTS, COMPONENTS, Block, Op, Terms


def _rate(dtype: str, hw: HardwareSpec) -> float:
    """Tensor throughput multiplier of the GEMM input dtype relative to fp16/bf16."""
    return {"fp8": hw.fp8_speedup, "int8": hw.int8_speedup, "fp32": 0.5}.get(dtype, 1.0)


def combine(model: ModelSpec, hw: HardwareSpec, par: ParArrays, g: Geometry,
            blocks: list[Block]) -> Terms:
    """Apply the hardware's size-dependent efficiencies and dtype rate; sum the collectives of
    each component; memory per PE from every block's parts."""
    rate = _rate(model.act_dtype, hw)
    ops = [Op(o.name, o.flops / (hw.compute_efficiency(o.flops) * rate),
              o.nbytes / hw.memory_efficiency(o.nbytes), o.mult, o.kernels, o.flops, o.nbytes)
           for b in blocks for o in b.ops]
    comms: dict[str, coll.Comm] = {name: coll.Comm.zeros(g.n) for name in COMM_COMPONENTS}
    for b in blocks:
        for name, c in b.comms.items():
            comms[name] = comms[name] + c
    comm_total = coll.Comm.zeros(g.n)
    for c in comms.values():
        comm_total = comm_total + c
    ring = next(b.ring for b in blocks if b.ring is not None)
    overhead = np.zeros(g.n)
    for op in ops:
        overhead = overhead + op.mult * op.kernels * hw.kernel_overhead_ns
    parts = memory_per_pe(model, g, [b.mem for b in blocks])
    mem = parts["weights"] + parts["kv_cache"] + parts["workspace"]
    return Terms(hw=hw, par=par, ops=ops, attn_index=[o.name for o in ops].index(ring.op),
                 comms=comms, comm_total=comm_total, ring_step=ring.step, ring_mult=ring.mult,
                 cp=g.cp, overhead_ns=overhead, mem_bytes=mem, mem_parts=parts)


def prepare(model: ModelSpec, hw: HardwareSpec, par: ParArrays, wl: Workload) -> Terms:
    """Stage 1: hardware-knob-independent flops, bytes, collective terms and memory per PE."""
    g = geometry(model, hw.topology, par, wl)
    blocks = [attention(model, g), dense_ffn(model, g), moe(model, g), head(model, g),
              pipeline(model, g)]
    return combine(model, hw, par, g, blocks)


__all__ = ["prepare", "evaluate", "bound_of", "knob_values", "Terms", "COMPONENTS", "KNOBS"]
