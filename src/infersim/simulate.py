"""The scalar front door: ``simulate(model, hw, par, workload, runtime=None) -> SimResult``.

It validates the inputs, then runs the vectorized cost model (:mod:`infersim.cost`) on one config
(:func:`infersim.cost.evaluate_one`: NumPy scalars and Python floats where a sweep has arrays), so
the scalar and vectorized paths are the same code and give the same bits.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from infersim import cost
from infersim.cost.bands import Band, band_for, regime
from infersim.presets.runtime_presets import get_runtime
from infersim.specs.hardware import HardwareSpec
from infersim.specs.model import ModelSpec
from infersim.specs.parallel import Parallelism, ParArrays
from infersim.specs.runtime import Runtime
from infersim.specs.workload import Workload


@dataclass(frozen=True)
class SimResult:
    """One configuration's latency (ns) with its breakdown by component (summing to the
    total), its steady-state period and throughput, memory per PE (the largest pipeline stage)
    with its parts, and ``bound``: which of compute, memory (HBM), communication (every
    collective, p2p and exposed ring time) and runtime overhead (kernel gaps, exposed host
    launches, the fixed per-step cost) takes longest.

    Decode: ``total_latency_ns`` is the time between a sequence's tokens (TPOT). Prefill: the
    time until the whole batch's prompts are processed. ``period_ns``: time per batch in steady
    state (with micro-batches in flight, PP prefill starts a new batch every m stage times)."""

    model: str
    hardware: str
    runtime: str
    par: Parallelism
    workload: Workload
    total_latency_ns: float
    period_ns: float
    breakdown_ns: dict[str, float]
    mem_per_pe_bytes: float
    mem_breakdown_bytes: dict[str, float]
    mem_capacity_bytes: float
    fits: bool
    bound: str
    pes_used: int
    op_times_ns: dict[str, float] = field(default_factory=dict)
    op_flops: dict[str, float] = field(default_factory=dict)     # per PE per step
    op_bytes: dict[str, float] = field(default_factory=dict)     # HBM bytes per PE per step
    runtime_spec: Runtime | None = None                          # the runtime itself (``runtime`` is its name)
    band: Band | None = None          # where published rows of this regime fell (infersim.cost.bands)

    @property
    def latency_band_ns(self) -> tuple[float, float] | None:
        """The latency's error band: ~80 % of held-out published rows of this regime measured
        inside it (None when no band is known)."""
        return self.band.of(self.total_latency_ns) if self.band else None

    @property
    def tokens_per_s(self) -> float:
        """Tokens produced (decode) or processed (prefill) per second by the deployment in
        steady state: batch · new tokens / period."""
        return self.workload.tokens / (self.period_ns * 1e-9)

    @property
    def tokens_per_s_per_pe(self) -> float:
        return self.tokens_per_s / self.pes_used

    def to_dict(self) -> dict:
        return {
            "model": self.model, "hardware": self.hardware, "runtime": self.runtime,
            "parallelism": self.par.to_dict(),
            "workload": {"mode": self.workload.mode, "s_kv": self.workload.s_kv,
                         "batch": self.workload.batch, "s_q": self.workload.new_tokens},
            "total_latency_ns": self.total_latency_ns, "period_ns": self.period_ns,
            "breakdown_ns": self.breakdown_ns,
            "mem_per_pe_bytes": self.mem_per_pe_bytes, "mem_breakdown_bytes": self.mem_breakdown_bytes,
            "mem_capacity_bytes": self.mem_capacity_bytes, "fits": self.fits, "bound": self.bound,
            "pes_used": self.pes_used, "tokens_per_s": self.tokens_per_s,
            "op_times_ns": self.op_times_ns, "op_flops": self.op_flops, "op_bytes": self.op_bytes,
            "latency_band_ns": list(self.latency_band_ns) if self.band else None,
            "band_regime": self.band.regime if self.band else None,
        }

    def to_pandas(self, table: str = "breakdown"):
        """``breakdown`` (component, time_ms, share_pct), ``ops`` (operator, time_us, gflop,
        hbm_mb, flop_per_byte) or ``memory`` (part, gb) as a DataFrame."""
        from infersim.report.frames import frame

        if table == "breakdown":
            return frame([{"component": k, "time_ms": v / 1e6, "share_pct": 100 * v / self.total_latency_ns}
                          for k, v in self.breakdown_ns.items()])
        if table == "ops":
            return frame([{"operator": n, "time_us": t / 1e3, "gflop": self.op_flops.get(n, 0.0) / 1e9,
                           "hbm_mb": self.op_bytes.get(n, 0.0) / 1e6,
                           "flop_per_byte": self.op_flops.get(n, 0.0) / max(self.op_bytes.get(n, 0.0), 1.0)}
                          for n, t in self.op_times_ns.items()])
        if table == "memory":
            return frame([{"part": k, "gb": v / 1e9} for k, v in self.mem_breakdown_bytes.items()])
        from infersim.errors import choice
        choice("table", table, ("breakdown", "ops", "memory"))

    def plot(self, kind: str = "breakdown", hw=None):
        """``breakdown`` bar, ``memory`` bar or ``roofline`` (needs ``hw``) as a Plotly figure."""
        from infersim.errors import choice, require
        from infersim.report import plots
        from infersim.report.fmt import fmt_time

        choice("kind", kind, ("breakdown", "memory", "roofline"))
        if kind == "memory":
            return plots.memory_bar(self.mem_breakdown_bytes, self.mem_capacity_bytes,
                                    self.mem_capacity_bytes)
        if kind == "roofline":
            require(hw is not None, "the roofline needs the hardware: result.plot('roofline', hw=hw)")
            return plots.roofline(self, hw)
        return plots.breakdown_bar(self.breakdown_ns, f"{self.par.describe()}: {fmt_time(self.total_latency_ns)}")


def simulate(model: ModelSpec, hw: HardwareSpec, par: Parallelism, workload: Workload,
             runtime=None) -> SimResult:
    """Latency, breakdown and memory of one configuration (see :mod:`infersim.cost`);
    ``runtime`` is a profile name (``infersim.runtime.RUNTIMES``), a ``Runtime`` or None (default)."""
    rt = get_runtime(runtime)
    model = rt.model_for(model)
    par.validate(model, hw, workload)
    config = par.resolved(workload)
    arrays = ParArrays.from_configs([config], workload)
    terms = cost.prepare(model, hw, arrays, workload)
    res = cost.evaluate_one(terms, runtime=rt)          # Python floats
    if not all(type(getattr(config, f)) is int for f in ("tp", "pp", "dp", "cp", "ep", "microbatches")):
        config = arrays.config(0)           # NumPy integers given: the result carries plain ints
    parts = {k: float(v[0]) for k, v in terms.mem_parts.items()}
    return SimResult(
        model=model.name, hardware=hw.name, runtime=rt.name, par=config, workload=workload,
        total_latency_ns=res["total_ns"], period_ns=res["period_ns"],
        breakdown_ns={c: res[c] for c in cost.COMPONENTS},
        mem_per_pe_bytes=float(terms.mem_bytes[0]),
        mem_breakdown_bytes=parts,
        mem_capacity_bytes=float(rt.capacity_for(parts["weights"], parts["workspace"], hw.pe_hbm_gb)),
        fits=res["fits"],
        bound=str(cost.bound_of(res)),
        pes_used=config.pes,
        op_times_ns=res["op_times_ns"],
        op_flops=dict(zip(terms.table.names, (terms.table.flops[:, 0] * terms.table.mult[:, 0]).tolist())),
        op_bytes=dict(zip(terms.table.names, (terms.table.nbytes[:, 0] * terms.table.mult[:, 0]).tolist())),
        runtime_spec=rt,
        band=step_band(hw, rt, config, workload),
    )


def step_band(hw: HardwareSpec, rt: Runtime, par: Parallelism, workload: Workload) -> Band | None:
    """The error band of one step of ``par`` on ``hw`` under ``rt`` (:mod:`infersim.cost.bands`)."""
    reg = regime("prefill" if workload.is_prefill else "decode", -(-workload.batch // par.dp), hw.family,
                 rt.launch, par.pes > hw.pes_per_sip)
    return band_for(reg)
