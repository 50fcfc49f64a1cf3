"""The scalar front door: ``simulate(model, hw, par, workload) -> SimResult``.

It validates the inputs, then runs the vectorized cost model (:mod:`infersim.cost`) on arrays of
length one, so the scalar and vectorized paths are the same code.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from . import cost
from .hardware import HardwareSpec
from .model import ModelSpec
from .parallel import ParArrays, Parallelism
from .workload import Workload


@dataclass(frozen=True)
class SimResult:
    """One configuration's step latency (ns) with its breakdown by component (summing to the
    total), memory per PE with its parts, and ``bound``: which of compute, memory (HBM) and
    communication (every collective, p2p and exposed ring time) takes longest; kernel-launch
    overhead is reported as its own component."""

    model: str
    hardware: str
    par: Parallelism
    workload: Workload
    total_latency_ns: float
    breakdown_ns: dict[str, float]
    mem_per_pe_bytes: float
    mem_breakdown_bytes: dict[str, float]
    mem_capacity_bytes: float
    fits: bool
    bound: str
    pes_used: int
    op_times_ns: dict[str, float] = field(default_factory=dict)

    @property
    def tokens_per_s(self) -> float:
        """Tokens produced (decode) or processed (prefill) per second by the whole batch."""
        return self.workload.tokens / (self.total_latency_ns * 1e-9)

    @property
    def tokens_per_s_per_pe(self) -> float:
        return self.tokens_per_s / self.pes_used

    def to_dict(self) -> dict:
        return {
            "model": self.model, "hardware": self.hardware, "parallelism": self.par.to_dict(),
            "workload": {"mode": self.workload.mode, "s_kv": self.workload.s_kv,
                         "batch": self.workload.batch, "s_q": self.workload.new_tokens},
            "total_latency_ns": self.total_latency_ns, "breakdown_ns": self.breakdown_ns,
            "mem_per_pe_bytes": self.mem_per_pe_bytes, "mem_breakdown_bytes": self.mem_breakdown_bytes,
            "mem_capacity_bytes": self.mem_capacity_bytes, "fits": self.fits, "bound": self.bound,
            "pes_used": self.pes_used, "tokens_per_s": self.tokens_per_s,
            "op_times_ns": self.op_times_ns,
        }


def simulate(model: ModelSpec, hw: HardwareSpec, par: Parallelism, workload: Workload) -> SimResult:
    """Latency, breakdown and memory of one configuration (see :mod:`infersim.cost`)."""
    par.validate(model, hw, workload)
    arrays = ParArrays.from_configs([par], workload.mode)
    terms = cost.prepare(model, hw, arrays, workload)
    res = cost.evaluate(terms)
    scalar = lambda a: float(a[0])  # noqa: E731
    resolved = arrays.config(0)
    return SimResult(
        model=model.name, hardware=hw.name, par=resolved, workload=workload,
        total_latency_ns=scalar(res["total_ns"]),
        breakdown_ns={c: scalar(res[c]) for c in cost.COMPONENTS},
        mem_per_pe_bytes=scalar(terms.mem_bytes),
        mem_breakdown_bytes={k: scalar(v) for k, v in terms.mem_parts.items()},
        mem_capacity_bytes=hw.usable_bytes(),
        fits=bool(res["fits"][0]),
        bound=str(cost.bound_of(res)[0]),
        pes_used=par.pes,
        op_times_ns={k: scalar(v) for k, v in res["op_times_ns"].items()},
    )
