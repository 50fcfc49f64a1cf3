"""Blocks and terms: what the cost blocks return and what ``evaluate`` consumes.

A block (attention, dense FFN, MoE, embedding/LM head, pipeline) is a pure function of the model
and the :class:`~infersim.cost.geometry.Geometry`; it never sees the hardware. It returns a
:class:`Block`: its operators with raw flops and bytes per PE, its collectives as
knob-independent :class:`~infersim.cost.collectives.Comm` terms and its memory. Each operator and
collective has a *kind* saying where its occurrences sit along the pipeline (``KINDS``), so the
slowest stage and the largest stage can be found. :func:`infersim.cost.combine` applies the
hardware's size- and dtype-dependent efficiencies once and assembles :class:`Terms`.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from infersim.cost import collectives as coll
from infersim.cost.geometry import some
from infersim.cost.runs import runs
from infersim.presets.runtime_presets import get_runtime
from infersim.specs.hardware import HardwareSpec
from infersim.specs.parallel import ParArrays

COMM_COMPONENTS = ("tp_allreduce", "ffn_allreduce", "kv_seq_combine", "cp_combine",
                   "ep_alltoall", "pp_p2p", "lm_head_gather", "collective_calls")
RUNTIME_COMPONENTS = ("kernel_gaps", "host_launch", "step_fixed", "seq_host")
#: Device time of kernels beyond their roofline: kernels too small to reach it take the hardware's
#: kernel_latency_ns at least, and every GEMM kernel adds its gemm_ramp_ns (pipeline fill and
#: drain): per-kernel cost like the runtime's, but on the device.
FLOOR_COMPONENT = "kernel_floor"
#: Operator classes run by GEMM kernels (dense and grouped MoE): each kernel pays ``gemm_ramp_ns``.
GEMM_KLASSES = ("gemm", "moe")
COMPONENTS = (("compute", "hbm", FLOOR_COMPONENT) + COMM_COMPONENTS + ("cp_ring", "pp_bubble")
              + RUNTIME_COMPONENTS)
#: How the breakdown groups into the four bounds a step can be (``bound_of``, verdicts, answers);
#: pipeline bubbles belong to none of them.
BOUND_GROUPS = {"compute": ("compute",), "memory": ("hbm",), "comm": COMM_COMPONENTS + ("cp_ring",),
                "overhead": RUNTIME_COMPONENTS + (FLOOR_COMPONENT,)}
#: Where occurrences sit: every layer, dense-FFN layers, MoE layers, once on the first stage
#: (embedding), once on the last stage (LM head), or between stages (pipeline sends).
KINDS = ("all", "dense", "moe", "first", "last", "pipe")


def columns(values: list, n: int) -> np.ndarray:
    """Per-config values (scalars, or (N,) arrays) as the rows of one (len(values), N) array
    (one config's geometry holds scalars: its terms are (1,) arrays all the same)."""
    out = np.empty((len(values), n))
    for i, v in enumerate(values):
        out[i] = v
    return out


@dataclass
class RawOp:
    """One operator as a block states it: raw ``flops`` and ``nbytes`` per PE per occurrence
    (an (N,) array, or a scalar shared by every config), ``mult`` occurrences per micro-batch
    traversal, ``kernels`` launches per occurrence, computed in ``dtype``."""

    name: str
    flops: np.ndarray | float
    nbytes: np.ndarray | float
    mult: float
    kernels: int
    kind: str = "all"
    dtype: str = "bf16"          # the data type the operator computes in
    weight_dtype: str = "bf16"   # the data type of the weights it streams (HBM efficiency)
    klass: str = "gemm"          # "gemm", "attn" (attention kernels), "moe" (routed experts) or "elementwise"
    problems: np.ndarray | float = 1.0   # independent GEMM problems in the op (a grouped GEMM's experts)


@dataclass
class Ring:
    """The CP ring of the attention operator ``op``: ``mult`` steps, each ``step`` bytes/hops,
    overlapped with ``hide`` (1 or 0) times 1/cp of that operator's time."""

    op: str
    step: coll.Comm
    mult: np.ndarray
    hide: np.ndarray


@dataclass
class Mem:
    """Memory a block needs per PE. Weights per layer by layer kind ("all" layers, "dense" FFN
    layers, "moe" layers), once-per-model weights by where they sit with and without a pipeline,
    the KV cache per layer, activation sets (the largest one is live) and buffers."""

    per_layer: dict[str, np.ndarray] = field(default_factory=dict)
    single: np.ndarray | float = 0.0      # once-per-model weights when pp = 1
    first: np.ndarray | float = 0.0       # ... held by the first stage when pp > 1
    last: np.ndarray | float = 0.0        # ... held by the last stage when pp > 1
    kv_per_layer: np.ndarray | float = 0.0
    activations: list = field(default_factory=list)
    buffers: np.ndarray | float = 0.0


@dataclass
class Block:
    n: int
    ops: list[RawOp] = field(default_factory=list)
    comms: list[tuple[str, str, coll.Comm, np.ndarray]] = field(default_factory=list)
    launches: dict[str, np.ndarray] = field(default_factory=dict)
    mem: Mem = field(default_factory=Mem)
    ring: Ring | None = None

    def op(self, name, flops, nbytes, mult, kernels, kind: str = "all", dtype: str = "bf16",
           weight_dtype: str = "bf16", klass: str = "gemm", problems=None) -> None:
        problems = 1.0 if problems is None else np.maximum(problems, 1.0)   # None: one GEMM problem
        self.ops.append(RawOp(name, flops, nbytes, mult, kernels, kind, dtype, weight_dtype, klass, problems))

    def gemm(self, model, name, flops, nbytes, mult, kernels, kind: str = "all",
             experts: bool = False, problems=None, attn: bool = False, head: bool = False) -> None:
        """A weight GEMM of ``model``: computes in its GEMM dtype, streams its weight dtype
        (``experts``: the routed experts' dtypes, e.g. gpt-oss's MXFP4; ``attn``: the attention
        projections', e.g. bf16 in an FFN-only fp8 checkpoint; ``head``: the LM head's, 16-bit in
        quantised checkpoints). ``problems``: a grouped GEMM of that many independent GEMMs
        (experts), each computing as efficiently as its own size (``op_table``)."""
        if head:
            self.op(name, flops, nbytes, mult, kernels, kind, model.head_gemm_dtype, model.head_dtype)
        elif experts:
            self.op(name, flops, nbytes, mult, kernels, kind, model.expert_gemm_dtype, model.expert_dtype,
                    klass="moe", problems=problems)
        elif attn:
            self.op(name, flops, nbytes, mult, kernels, kind, model.attn_proj_gemm_dtype, model.attn_proj_dtype)
        else:
            self.op(name, flops, nbytes, mult, kernels, kind, model.gemm_dtype, model.weight_dtype)

    def comm(self, component: str, comm: coll.Comm, kind: str, launches) -> None:
        """A collective of ``component`` at ``kind`` positions, ``launches`` kernels per step. One
        that no config calls, sends a byte over or takes a hop in is not kept: its rows would add
        0 to every sum."""
        launches = np.asarray(launches, dtype=float)
        if not (some(launches) or some(comm.c) or some(comm.k)):
            return
        self.comms.append((component, kind, comm, launches))
        self.launches[kind] = self.launches.get(kind, 0.0) + launches


@dataclass
class Op:
    """One operator: efficiency-scaled flops ``f`` and bytes ``m`` per PE per occurrence,
    ``mult`` occurrences per micro-batch traversal, ``kernels`` launches per occurrence."""

    name: str
    f: np.ndarray
    m: np.ndarray
    mult: float
    kernels: int
    kind: str
    flops: np.ndarray       # raw, for the physical-floor check and reports
    nbytes: np.ndarray
    klass: str = "gemm"     # which runtime efficiency applies: "gemm", "attn", "moe" or "elementwise"
    ctable: str = "compute_eff"   # the hardware efficiency tables ``f`` and ``m`` were scaled by
    mtable: str = "memory_eff"



@dataclass
class OpTable:
    """Every operator of N configs stacked, so that evaluation prices them in one broadcast:
    efficiency-scaled ``f`` and ``m`` and raw ``flops`` and ``nbytes`` per PE per occurrence as
    (ops, N) arrays; ``mult`` (occurrences per traversal) and ``kernels`` (launches per
    occurrence) as (ops, 1) columns. Operators of one kind are consecutive, in :data:`KINDS`
    order, so every kind's sum is one accumulation (``kind_runs``)."""

    names: tuple[str, ...]
    f: np.ndarray
    m: np.ndarray
    flops: np.ndarray
    nbytes: np.ndarray
    mult: np.ndarray
    kernels: np.ndarray
    kinds: tuple[str, ...]
    klasses: tuple[str, ...]      # which runtime efficiency applies: "gemm", "attn", "moe" or "elementwise"
    ctables: tuple[str, ...]      # the hardware efficiency tables ``f`` and ``m`` were scaled by
    mtables: tuple[str, ...]

    def __post_init__(self):
        self.kind_runs = runs(self.kinds)
        #: launches per occurrence of the GEMM kernels (dense and grouped MoE), (ops, 1): each pays
        #: the hardware's ``gemm_ramp_ns``
        self.gemm_kernels = np.where(np.isin(np.array(self.klasses), GEMM_KLASSES)[:, None], self.kernels, 0)

    def ramp_ns(self, hw: HardwareSpec) -> np.ndarray:
        """Each operator's GEMM ramp on ``hw``, (ops, 1): ``gemm_kernels · gemm_ramp_ns``."""
        return self.gemm_kernels * hw.gemm_ramp_ns

    def __len__(self) -> int:
        return len(self.names)

    def op(self, i: int) -> Op:
        return Op(self.names[i], self.f[i], self.m[i], float(self.mult[i, 0]), int(self.kernels[i, 0]),
                  self.kinds[i], self.flops[i], self.nbytes[i], self.klasses[i], self.ctables[i],
                  self.mtables[i])

    def take(self, idx) -> "OpTable":
        return replace(self, f=self.f[:, idx], m=self.m[:, idx], flops=self.flops[:, idx],
                       nbytes=self.nbytes[:, idx])


def _take(v, idx):
    return v[idx] if isinstance(v, np.ndarray) and v.ndim else v


@dataclass
class Terms:
    """Everything about N configs that does not depend on the six hardware knobs or the runtime."""

    hw: HardwareSpec
    par: ParArrays
    prefill: bool
    table: OpTable
    attn_index: int
    comms: coll.CommTable         # every collective, with its component and kind
    ring_step: coll.Comm          # per ring step, per layer
    ring_mult: np.ndarray         # (cp - 1) · layers
    ring_hide: np.ndarray         # 1: the block attention hides a step, 0: the step waits for it
    cp: np.ndarray
    m: np.ndarray                 # micro-batches
    pp: np.ndarray
    kernels: dict[str, np.ndarray]        # launches per micro-batch traversal, by kind
    coll_calls: dict[str, tuple]          # collective calls by kind: (in a node, across nodes), (N,) or floats
    stages: list[dict[str, np.ndarray]]   # per stage that can be the slowest: each kind's share in it
    mem_bytes: np.ndarray
    seqs: np.ndarray                      # sequences per replica a step advances (host work per sequence)
    mem_parts: dict[str, np.ndarray] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.par)

    @property
    def ops(self) -> list[Op]:
        """The operators one by one (views of :attr:`table`'s rows)."""
        return [self.table.op(i) for i in range(len(self.table))]

    def take(self, idx) -> "Terms":
        """The terms of a subset of the configs (e.g. those whose memory fits)."""
        sub = lambda d: {k: _take(v, idx) for k, v in d.items()}  # noqa: E731
        return Terms(hw=self.hw, par=self.par.take(idx), prefill=self.prefill,
                     table=self.table.take(idx), attn_index=self.attn_index,
                     comms=self.comms.take(idx),
                     ring_step=self.ring_step.take(idx), ring_mult=self.ring_mult[idx],
                     ring_hide=self.ring_hide[idx],
                     cp=self.cp[idx], m=self.m[idx], pp=self.pp[idx], kernels=sub(self.kernels),
                     coll_calls={k: (_take(a, idx), _take(b, idx)) for k, (a, b) in self.coll_calls.items()},
                     stages=[sub(st) for st in self.stages],
                     mem_bytes=self.mem_bytes[idx], seqs=self.seqs[idx], mem_parts=sub(self.mem_parts))

    def required_bytes(self, runtime=None) -> np.ndarray:
        """HBM capacity per PE each config asks of the device under ``runtime``'s memory basis."""
        p = self.mem_parts
        return get_runtime(runtime).required_bytes(p["weights"], p["kv_cache"], p["workspace"])

    def fits(self, pe_hbm_gb, runtime=None) -> np.ndarray:
        """Memory-fit mask for one HBM capacity (or an array of them) under ``runtime`` (the
        cheap rejection before the full cost)."""
        return self.required_bytes(runtime) <= np.asarray(pe_hbm_gb, dtype=float) * 1e9
