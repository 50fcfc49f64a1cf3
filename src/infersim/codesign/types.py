"""The co-design value types: a hardware candidate and a scored (hardware, parallelism) pair."""
from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from infersim.presets.hardware_presets import GENERIC_SIP
from infersim.specs.hardware import KNOBS, HardwareSpec
from infersim.specs.parallel import Parallelism

_HW_KNOB_DEFAULTS: dict[str, float] = GENERIC_SIP.knobs()
#: System-size knobs a custom grid may add (None on a candidate: the base hardware's value).
TOPOLOGY_KNOBS: tuple[str, ...] = ("pes_per_cube", "cubes_per_sip", "n_sips")
#: A second memory tier per PE (HardwareSpec fields: capacity in GB, GB/s per direction), holding
#: the KV cache HBM cannot (see :mod:`infersim.codesign.tier`); 0 GB = none.
TIER_KNOBS: tuple[str, ...] = ("unified_mem_gb", "bw_unified_gbs")
#: Every per-system axis of a grid: candidates that differ in one are different HardwareSpecs.
SYSTEM_KNOBS: tuple[str, ...] = TOPOLOGY_KNOBS + TIER_KNOBS


@dataclass(frozen=True, slots=True)
class HardwareCandidate:
    """Six knobs per PE and, optionally, the system size (None: the base hardware's).

    ``cost_score = Σ knob / _HW_KNOB_DEFAULTS[knob]`` over the six knobs (6.0 at the defaults):
    a capability score per PE, not dollars (see ``JointScore.system_cost_usd``)."""

    pe_hbm_gb: float
    bw_hbm_gbs: float
    peak_tflops_f16: float
    bw_intra_gbs: float
    bw_inter_gbs: float
    bw_intersip_gbs: float
    pes_per_cube: int | None = None
    cubes_per_sip: int | None = None
    n_sips: int | None = None
    unified_mem_gb: int | None = None
    bw_unified_gbs: int | None = None

    @property
    def cost_score(self) -> float:
        return sum(getattr(self, k) / _HW_KNOB_DEFAULTS[k] for k in KNOBS)

    def knobs(self) -> dict[str, float]:
        return {k: getattr(self, k) for k in KNOBS}

    def topology_overrides(self) -> dict[str, int]:
        return {k: getattr(self, k) for k in SYSTEM_KNOBS if getattr(self, k) is not None}

    def topology_of(self, base: HardwareSpec) -> tuple[int, int, int]:
        return tuple(getattr(self, k) or getattr(base, k) for k in TOPOLOGY_KNOBS)  # type: ignore

    def system_of(self, base: HardwareSpec) -> tuple[int, ...]:
        """(pes_per_cube, cubes_per_sip, n_sips, unified_mem_gb, bw_unified_gbs) on ``base``."""
        return self.topology_of(base) + tuple(
            int(getattr(base, k) if getattr(self, k) is None else getattr(self, k)) for k in TIER_KNOBS)

    def to_hardware(self, base: HardwareSpec) -> HardwareSpec:
        hw = base.with_knobs(**self.knobs())
        topo = self.topology_overrides()
        return replace(hw, **topo) if topo else hw

    def scaled(self, knob: str, factor: float) -> "HardwareCandidate":
        return replace(self, **{knob: factor * getattr(self, knob)})

    def doubled(self, knob: str) -> "HardwareCandidate":
        return self.scaled(knob, 2)


@dataclass(frozen=True, slots=True)
class JointScore:
    """One (hardware, parallelism) pair: latency, steady-state period and throughput, and the
    cost and power of the ``pes`` PEs it uses (``system_cost_usd`` capex, ``system_power_w``
    system power, ``tco_usd_per_h`` amortised capex + energy per hour of service; see
    :mod:`infersim.codesign.economics`); ``objective_value`` is the run's objective in its unit."""

    hw: HardwareCandidate
    par: Parallelism
    total_latency_ns: float
    cost_score: float
    mem_per_pe_bytes: float
    pes: int
    period_ns: float = math.nan
    tokens_per_s: float = math.nan
    system_cost_usd: float = math.nan
    system_power_w: float = math.nan
    tco_usd_per_h: float = math.nan
    objective_value: float = math.nan

    @property
    def tokens_per_s_per_pe(self) -> float:
        return self.tokens_per_s / self.pes

    @property
    def tokens_per_usd(self) -> float:
        """Tokens per dollar of TCO."""
        return self.tokens_per_s * 3600.0 / self.tco_usd_per_h

    @property
    def tokens_per_j(self) -> float:
        """Tokens per joule of system energy (= tokens/s per W)."""
        return self.tokens_per_s / self.system_power_w

    def to_dict(self) -> dict:
        topo = {f"hw_{k}": v for k, v in self.hw.topology_overrides().items()}
        return {**{f"hw_{k}": v for k, v in self.hw.knobs().items()}, **topo, **self.par.to_dict(),
                "pes": self.pes, "total_latency_ms": self.total_latency_ns / 1e6,
                "cost_score": self.cost_score, "mem_per_pe_gb": self.mem_per_pe_bytes / 1e9,
                "period_ms": self.period_ns / 1e6, "tokens_per_s": self.tokens_per_s,
                "tokens_per_s_per_pe": self.tokens_per_s_per_pe,
                "system_cost_usd": self.system_cost_usd, "system_power_w": self.system_power_w,
                "tco_usd_per_h": self.tco_usd_per_h, "tokens_per_usd": self.tokens_per_usd,
                "tokens_per_j": self.tokens_per_j, "objective_value": self.objective_value}


def candidate_rows(cands, base: HardwareSpec) -> tuple[np.ndarray, np.ndarray]:
    """(knob rows (n, 6) in ``KNOBS`` order, system rows (n, 5) in ``SYSTEM_KNOBS`` order) of
    candidates on ``base``: the arrays the cost model and the economics take."""
    knobs = np.array([[getattr(c, k) for k in KNOBS] for c in cands], dtype=float)
    topo = np.array([c.system_of(base) for c in cands], dtype=np.int64)
    return knobs, topo
