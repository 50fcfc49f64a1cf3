"""Blocks and terms: what the cost blocks return and what ``evaluate`` consumes.

A block (attention, dense FFN, MoE, embedding/LM head, pipeline) is a pure function of the model
and the :class:`~infersim.cost.geometry.Geometry`; it never sees the hardware. It returns a
:class:`Block`: its operators with raw flops and bytes per PE, its collectives as
knob-independent :class:`~infersim.collectives.Comm` terms, and its memory. :func:`combine`
applies the hardware's size-dependent efficiencies once and assembles :class:`Terms`.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .. import collectives as coll
from ..hardware import HardwareSpec
from ..parallel import ParArrays

COMM_COMPONENTS = ("tp_allreduce", "ffn_allreduce", "kv_seq_combine", "cp_combine",
                   "ep_alltoall", "pp_p2p", "lm_head_gather")
COMPONENTS = ("compute", "hbm", "overhead") + COMM_COMPONENTS + ("cp_ring",)


@dataclass
class RawOp:
    """One operator as a block states it: raw ``flops`` and ``nbytes`` per PE per occurrence,
    ``mult`` occurrences per step (e.g. the layer count), ``kernels`` launches per occurrence."""

    name: str
    flops: np.ndarray
    nbytes: np.ndarray
    mult: float
    kernels: int


@dataclass
class Ring:
    """The CP ring of the attention operator ``op``: ``mult`` steps, each ``step`` bytes/hops,
    overlapped with 1/cp of that operator's time."""

    op: str
    step: coll.Comm
    mult: np.ndarray


@dataclass
class Mem:
    """Memory a block needs per PE. Weights per layer by layer kind ("all" layers, "dense" FFN
    layers, "moe" layers), once-per-model weights by where they sit with and without a pipeline,
    the KV cache of the whole model, activation sets (the largest one is live) and buffers."""

    per_layer: dict[str, np.ndarray] = field(default_factory=dict)
    single: np.ndarray | float = 0.0      # once-per-model weights when pp = 1
    first: np.ndarray | float = 0.0       # ... held by the first stage when pp > 1
    last: np.ndarray | float = 0.0        # ... held by the last stage when pp > 1
    kv_cache: np.ndarray | float = 0.0
    activations: list = field(default_factory=list)
    buffers: np.ndarray | float = 0.0


@dataclass
class Block:
    ops: list[RawOp] = field(default_factory=list)
    comms: dict[str, coll.Comm] = field(default_factory=dict)
    mem: Mem = field(default_factory=Mem)
    ring: Ring | None = None

    def op(self, name, flops, nbytes, mult, kernels, n: int) -> None:
        ones = np.ones(n)
        self.ops.append(RawOp(name, np.asarray(flops, dtype=np.float64) * ones,
                              np.asarray(nbytes, dtype=np.float64) * ones, mult, kernels))


@dataclass
class Op:
    """One operator: efficiency-scaled flops ``f`` and bytes ``m`` per PE per occurrence,
    ``mult`` occurrences per step, ``kernels`` launches per occurrence."""

    name: str
    f: np.ndarray
    m: np.ndarray
    mult: float
    kernels: int
    flops: np.ndarray       # raw, for the physical-floor check and reports
    nbytes: np.ndarray


@dataclass
class Terms:
    """Everything about N configs that does not depend on the six hardware knobs."""

    hw: HardwareSpec
    par: ParArrays
    ops: list[Op]
    attn_index: int
    comms: dict[str, coll.Comm]
    comm_total: coll.Comm
    ring_step: coll.Comm          # per ring step, per layer
    ring_mult: np.ndarray         # (cp - 1) · layers
    cp: np.ndarray
    overhead_ns: np.ndarray
    mem_bytes: np.ndarray
    mem_parts: dict[str, np.ndarray] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.par)

    def take(self, idx) -> "Terms":
        """The terms of a subset of the configs (e.g. those whose memory fits)."""
        ops = [Op(o.name, o.f[idx], o.m[idx], o.mult, o.kernels, o.flops[idx], o.nbytes[idx])
               for o in self.ops]
        return Terms(hw=self.hw, par=self.par.take(idx), ops=ops, attn_index=self.attn_index,
                     comms={k: c.take(idx) for k, c in self.comms.items()},
                     comm_total=self.comm_total.take(idx), ring_step=self.ring_step.take(idx),
                     ring_mult=self.ring_mult[idx], cp=self.cp[idx],
                     overhead_ns=self.overhead_ns[idx], mem_bytes=self.mem_bytes[idx],
                     mem_parts={k: v[idx] for k, v in self.mem_parts.items()})

    def fits(self, pe_hbm_gb: float) -> np.ndarray:
        """Memory-fit mask for one HBM capacity (the cheap rejection before the full cost)."""
        return self.mem_bytes <= self.hw.usable_bytes(pe_hbm_gb)
