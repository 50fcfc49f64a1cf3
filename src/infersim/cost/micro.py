"""The cost model on one kernel or one collective: what micro-benchmarks measure.

A GEMM (C = A·B with A of M×K activations, B of K×N weights, C of M×N) is one operator of the
cost model: ``flops = 2·M·N·K``, HBM bytes ``(M·K + M·N)·act + K·N·weight``, priced by the same
efficiency tables (:func:`infersim.cost.op_table`), kernel quality and roofline with imperfect
overlap (:func:`infersim.cost.evaluate.op_time`) as every GEMM of a model. A collective over
``ranks`` PEs placed contiguously on the hierarchy is the same :mod:`infersim.cost.collectives`
term a model's all-reduce is, plus the runtime's library latency per call. A stream copy of
``nbytes`` (read and write) is a memory-bound operator.

``infersim validate`` scores these against published micro-benchmarks (GEMM sweeps over M,
nccl-tests, STREAM-like copies); ``infersim measure`` writes the same shapes.
"""
from __future__ import annotations

import numpy as np

from infersim.cost import collectives as coll
from infersim.cost.evaluate import op_time, phase_times
from infersim.cost.terms import RawOp
from infersim.presets.runtime_presets import get_runtime
from infersim.specs.hardware import HardwareSpec
from infersim.specs.model import DTYPE_BYTES, gemm_dtype
from infersim.specs.parallel import group_levels

COLLECTIVES = {"all_reduce": coll.all_reduce, "all_gather": coll.all_gather, "reduce_scatter": coll.reduce_scatter}
#: bus bandwidth = algorithm bandwidth × this factor (nccl-tests' convention)
BUS_FACTOR = {"all_reduce": lambda p: 2.0 * (p - 1) / p, "all_gather": lambda p: (p - 1) / p,
              "reduce_scatter": lambda p: (p - 1) / p}


def gemm_op(m: int, n: int, k: int, weight_dtype: str = "bf16", act_dtype: str = "bf16") -> RawOp:
    """One GEMM as the cost model states it (output in 16-bit unless activations are wider)."""
    out = DTYPE_BYTES["bf16"] if act_dtype in ("fp8", "int8", "fp4") else DTYPE_BYTES[act_dtype]
    a, w = DTYPE_BYTES[act_dtype], DTYPE_BYTES[weight_dtype]
    return RawOp("gemm", np.array([2.0 * m * n * k]), np.array([m * k * a + m * n * out + k * n * w]), 1.0, 1,
                 dtype=gemm_dtype(weight_dtype, act_dtype), weight_dtype=weight_dtype)


def op_ns(hw: HardwareSpec, raw: RawOp, runtime=None) -> float:
    """Device time of one operator on ``hw`` (no kernel gap: a kernel timed on its own)."""
    from infersim.cost import op_table

    rt = get_runtime(runtime)
    tab = op_table(hw, [raw], 1)
    op = tab.op(0)
    tc, tm = phase_times(op, hw.peak_tflops_f16 * 1e3, hw.bw_hbm_gbs, rt)
    return float(op_time(tc, tm, op.kernels * hw.kernel_latency_ns * rt.launch_multiplier, hw.ridge_overlap,
                         tab.ramp_ns(hw)[0, 0])[0])


def gemm_ns(hw: HardwareSpec, m: int, n: int, k: int, weight_dtype: str = "bf16", act_dtype: str = "bf16",
            runtime=None) -> float:
    return op_ns(hw, gemm_op(m, n, k, weight_dtype, act_dtype), runtime)


def stream_ns(hw: HardwareSpec, nbytes: float) -> float:
    """A copy that moves ``nbytes`` (read plus write) through HBM."""
    raw = RawOp("copy", np.array([0.0]), np.array([float(nbytes)]), 1.0, 1, klass="elementwise")
    return op_ns(hw, raw)


def collective_ns(hw: HardwareSpec, kind: str, nbytes: float, ranks: int, runtime=None) -> float:
    """One ``kind`` collective of ``nbytes`` result per rank over ``ranks`` consecutive PEs:
    the link terms at the hardware's bandwidths and hops, plus the library's latency per call
    (``collective_ns`` inside a node, ``net_collective_ns`` across nodes)."""
    rt = get_runtime(runtime)
    levels = group_levels(np.array([1]), np.array([ranks]), hw.pes_per_cube, hw.pes_per_sip).astype(float)
    c = COLLECTIVES[kind](np.array([float(nbytes)]), levels)
    t = float(c.time_ns(hw.link_bw_gbs(), hw.link_alpha_ns(), hw.link_effs())[0])
    across = ranks > hw.pes_per_sip
    return t + (rt.net_collective_ns if across else rt.collective_ns)
