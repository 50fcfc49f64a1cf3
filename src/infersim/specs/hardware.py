"""Hardware specification: PEs with their own HBM, grouped into cubes and SiPs.

Topology (three link levels, index 0..2 everywhere in the cost model):

    level 0  intra-cube   ``pes_per_cube`` PEs, ``bw_intra_gbs`` per PE per direction, ``alpha_intra_ns``
    level 1  inter-cube   ``cubes_per_sip`` cubes, ``bw_inter_gbs`` per PE per direction, ``alpha_inter_ns``
    level 2  inter-SiP    ``n_sips`` SiPs, ``bw_intersip_gbs`` per PE per direction, ``alpha_intersip_ns``

An 8-GPU H100 node maps to one cube of 8 (NVLink), one cube per SiP, and SiPs = nodes (InfiniBand).
Bandwidths are per PE and per direction, so an all-reduce over a level moves data at that rate.

Achievable rates are speed of light times a utilisation that depends on the operator size
(small GEMVs and short transfers reach a lower fraction of peak than large ones) and, for
compute, on the GEMM data type (fp8 tensor cores reach a lower fraction of their doubled peak
than bf16 ones):

    t_op = max(flops / (peak · rate(dtype) · eff_c[dtype](flops)), bytes / (bw_hbm · eff_m(bytes)),
               kernels · kernel_latency) + gemm_kernels · gemm_ramp

``kernel_latency_ns`` is the least device time a kernel takes however small its work (launch
inside the GPU, ramp-up of the first wave, a DRAM round trip, drain): the smallest bf16 GEMM
measured on A100/H100 takes 2.5 us, on B200 1.7 us (aiconfigurator's NVIDIA-collected sweeps).
``gemm_ramp_ns`` is what a GEMM kernel of any size spends beyond that roofline (its pipeline's
fill and drain: the first tiles' loads, the last wave's tail), added once per GEMM kernel (dense
and grouped MoE), measured as the median excess of a skinny-GEMM sweep (m = 1-32, 8-537 MB of bf16 weights) over
the part's own roofline at the sweep's streaming rate: H100 1.4 us, H200 3.0, B200 3.3, A100 5.6
(TensorRT-LLM's GEMMs in aiconfigurator's gemm_perf.parquet @ 095f58a51); 0 where not measured.

``eff_c`` and ``eff_m`` are piecewise-linear in log10(size), given by small per-preset tables that
calibration fits within physical bounds (``eff_m`` never above what stream benchmarks reach on
that part). Kernel launch and scheduling overheads are software: they live in
:mod:`infersim.specs.runtime`, not here. Units: GB = 1e9 bytes, GB/s = bytes per ns, TFLOPS = 1e3
flops per ns.
"""
from __future__ import annotations

import difflib
import math
from dataclasses import MISSING, dataclass, fields, replace
from functools import lru_cache
from typing import Any, Mapping

import numpy as np

from infersim.errors import _CONTROL, InferSimError, check_name, positive, require, short_repr

#: The six co-design knobs (docs/physics.md, section 1).
KNOBS: tuple[str, ...] = (
    "pe_hbm_gb", "bw_hbm_gbs", "peak_tflops_f16", "bw_intra_gbs", "bw_inter_gbs", "bw_intersip_gbs",
)

# Generic efficiency curves (size → fraction of peak), typical of GPU GEMM/GEMV libraries:
# a 1 GFLOP GEMM reaches ~40 % of peak, a 100 GFLOP one ~75 %; a 64 KB read ~20 % of HBM
# bandwidth, a 64 MB read ~88 %.
DEFAULT_COMPUTE_EFF: tuple[tuple[float, float], ...] = (
    (1e6, 0.02), (1e8, 0.15), (1e9, 0.40), (1e10, 0.60), (1e11, 0.75), (1e12, 0.80))
DEFAULT_MEMORY_EFF: tuple[tuple[float, float], ...] = (
    (1e4, 0.05), (1e5, 0.30), (1e6, 0.60), (1e7, 0.80), (1e8, 0.88), (1e9, 0.90))


#: Quantised weight dtypes whose GEMMs stream at their own efficiency: 8-bit at ``memory_eff_fp8``,
#: 4-bit integer (AWQ/GPTQ) at ``memory_eff_int4``, 4-bit float (NVFP4/MXFP4) at ``memory_eff_fp4``
#: (each falling back to the 8-bit table, then to ``memory_eff``).
SUB16_WEIGHTS = ("fp8", "int8", "int4", "fp4", "mxfp4")
WEIGHT_MEMORY_TABLE = {"fp8": "memory_eff_fp8", "int8": "memory_eff_fp8", "int4": "memory_eff_int4",
                       "fp4": "memory_eff_fp4", "mxfp4": "memory_eff_fp4"}
EFF_TABLES = ("compute_eff", "compute_eff_fp8", "memory_eff", "memory_eff_fp8", "compute_eff_fp4",
              "memory_eff_int4", "memory_eff_fp4", "attn_compute_eff", "attn_memory_eff")
#: GPU families a hardware file may name (``family``): the architecture whose engines and kernels a
#: part shares, so a file naming one gets the efficiency defaults of that family's reference preset
#: (:mod:`infersim.presets.hardware_presets`); "" = none (the generic curves).
FAMILIES = ("hopper", "ampere", "ada", "blackwell", "cdna3", "cdna4")
#: Tensor formats that accumulate in integers (int32, full rate on every part); the floating-point
#: ones (16-bit, fp8, fp4) accumulate in fp32 in every engine and run at ``fp32_acc_rate``.
INTEGER_DTYPES = ("int8", "int4")
#: Largest topology accepted (an NVL72 rack is 72 PEs, a TPU v5p pod 8,960): nothing downstream
#: enumerates a million-PE space for hours.
MAX_PES = 1_048_576
#: Sane ranges of the numeric fields (by name prefix; the six knobs under "knob"): wide enough
#: for any hypothetical part (a petabyte of HBM, 10^12 GB/s), narrow enough that no product of
#: them overflows to inf or underflows to 0 (``peak_tflops_f16=1e-300`` gave NaN sensitivities).
KNOB_RANGE = (1e-3, 1e12)
_RANGE = {"knob": KNOB_RANGE, "alpha": (0.0, 1e12), "kerne": (0.0, 1e12), "gemm_": (0.0, 1e12),
          "fp8_s": (1e-3, 1e3), "int8_": (1e-3, 1e3), "fp4_s": (1e-3, 1e3), "link_": (1e-3, 1.0)}


@dataclass(frozen=True)
class Topology:
    """The PE / cube / SiP hierarchy alone: all the parallelism space depends on."""

    pes_per_cube: int
    cubes_per_sip: int
    n_sips: int

    @property
    def pes_per_sip(self) -> int:
        return self.pes_per_cube * self.cubes_per_sip

    @property
    def n_pes(self) -> int:
        return self.pes_per_sip * self.n_sips


@dataclass(frozen=True)
class HardwareSpec:
    """A multi-PE inference system. See the module docstring for the hierarchy and units."""

    name: str
    pe_hbm_gb: float
    bw_hbm_gbs: float
    peak_tflops_f16: float
    bw_intra_gbs: float
    bw_inter_gbs: float
    bw_intersip_gbs: float
    pes_per_cube: int = 8
    cubes_per_sip: int = 1
    n_sips: int = 1
    alpha_intra_ns: float = 1000.0
    alpha_inter_ns: float = 2000.0
    alpha_intersip_ns: float = 5000.0
    fp8_speedup: float = 2.0          # fp8 tensor rate / fp16 rate (1.0 = no fp8 units)
    int8_speedup: float = 2.0
    fp4_speedup: float = 1.0          # fp4 (NVFP4 / MXFP4) tensor rate / fp16 rate (1.0 = no fp4 units; B200 4.0)
    int4_speedup: float = 1.0         # int4 tensor rate / fp16 rate (1.0 = none; Ampere/Ada 4.0)
    fp32_acc_rate: float = 1.0        # float tensor rate with fp32 accumulate / with fp16 (GeForce 0.5)
    link_eff: float = 0.80            # achievable fraction of link bandwidth in collectives (scale-up levels)
    link_eff_intersip: float = 0.86   # ... between SiPs, NCCL over an RDMA network (see link_effs)
    kernel_latency_ns: float = 2000.0  # minimum device time of one kernel (ramp-up, drain)
    gemm_ramp_ns: float = 0.0         # a GEMM kernel's time beyond its roofline (pipeline fill and drain); 0 = not measured
    compute_eff: tuple[tuple[float, float], ...] = DEFAULT_COMPUTE_EFF        # 16-bit GEMMs
    compute_eff_fp8: tuple[tuple[float, float], ...] = ()   # 8-bit (fp8/int8); () = compute_eff
    memory_eff: tuple[tuple[float, float], ...] = DEFAULT_MEMORY_EFF
    memory_eff_fp8: tuple[tuple[float, float], ...] = ()    # GEMMs streaming 8-bit weights
    compute_eff_fp4: tuple[tuple[float, float], ...] = ()   # fp4 GEMMs; () = compute_eff_fp8
    memory_eff_int4: tuple[tuple[float, float], ...] = ()   # GEMMs streaming int4 weights; () = the fp8 table
    memory_eff_fp4: tuple[tuple[float, float], ...] = ()    # GEMMs streaming fp4 weights; () = the fp8 table
    attn_compute_eff: tuple[tuple[float, float], ...] = ()  # attention kernels (flash); () = compute_eff
    attn_memory_eff: tuple[tuple[float, float], ...] = ()   # decode attention over the KV cache; () = memory_eff
    ridge_overlap: float = 1.0        # share of an op's shorter phase (compute or memory) hidden under the longer
    unified_mem_gb: float = 0.0       # host memory each PE addresses coherently (GH200 Grace: 480 GB); 0 = none
    bw_unified_gbs: float = 0.0       # its bandwidth per PE per direction (NVLink-C2C 450 GB/s)
    tdp_w: float = 0.0                # board power the clocks are specified at (0 = unknown)
    power_cap_w: float = 0.0          # a power limit below it (0 = none): compute clocks drop, HBM does not
    family: str = ""                  # calibration family ("hopper", "ampere", ...) or "" (none)
    source: str = ""

    def __post_init__(self) -> None:
        check_name("hardware", self.name)
        for f in ("source", "family"):
            v = getattr(self, f)
            require(isinstance(v, str) and not _CONTROL.search(v) and len(v) <= 10_000,
                    lambda: f"{f} must be a string of printable characters, got {short_repr(v)}")
        for f in KNOBS + ("alpha_intra_ns", "alpha_inter_ns", "alpha_intersip_ns", "kernel_latency_ns", "gemm_ramp_ns",
                          "fp8_speedup", "int8_speedup", "fp4_speedup", "int4_speedup", "fp32_acc_rate",
                          "link_eff", "link_eff_intersip"):
            value = getattr(self, f)
            require(_is_finite_real(value), lambda: f"{f} must be a finite number, got {short_repr(value)}")
            positive(f, value, allow_zero=f.startswith(("alpha", "kernel", "gemm_ramp")))
            lo, hi = _RANGE.get(f[:5], _RANGE["knob"])
            require(value == 0 or lo <= value <= hi,
                    lambda: f"{f} must be in {lo:g}..{hi:g}, got {short_repr(value)} (outside any real or "
                    "hypothetical part: products with it overflow or underflow)")
        for f in ("pes_per_cube", "cubes_per_sip", "n_sips"):
            value = getattr(self, f)
            require(isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= MAX_PES,
                    lambda: f"{f} must be an integer in 1..{MAX_PES:,}, got {short_repr(value)}")
        require(self.n_pes <= MAX_PES, f"the system has {self.n_pes:,} PEs; at most {MAX_PES:,} are supported")
        for f in ("link_eff", "link_eff_intersip"):
            require(0 < getattr(self, f) <= 1, f"{f} must be in (0, 1], got {getattr(self, f)}")
        require(self.fp32_acc_rate <= 1, "fp32_acc_rate must be in (0, 1] (the fp32-accumulate rate as a fraction "
                                         f"of the fp16-accumulate peak: 0.5 on GeForce parts), got {self.fp32_acc_rate}")
        for f in ("unified_mem_gb", "bw_unified_gbs"):
            v = getattr(self, f)
            require(_is_finite_real(v) and 0 <= v <= 1e7,
                    lambda: f"{f} must be a number in [0, 1e7], got {short_repr(v)}")
        require(self.unified_mem_gb == 0 or self.bw_unified_gbs > 0,
                "unified_mem_gb needs bw_unified_gbs: say how fast the PE reaches that memory")
        require(_is_finite_real(self.ridge_overlap) and 0 <= self.ridge_overlap <= 1,
                lambda: f"ridge_overlap must be a fraction in [0, 1], got {short_repr(self.ridge_overlap)}")
        for f in ("tdp_w", "power_cap_w"):
            v = getattr(self, f)
            require(_is_finite_real(v) and 0 <= v <= 1e5,
                    lambda: f"{f} must be watts in [0, 100000], got {short_repr(v)}")
        require(self.power_cap_w == 0 or self.tdp_w > 0,
                "power_cap_w needs tdp_w: the cap lowers the clocks relative to the board power they are rated at")
        require(isinstance(self.family, str) and self.family in ("",) + FAMILIES,
                lambda: f"unknown family {short_repr(self.family)}; valid: {', '.join(FAMILIES)} (or \"\" for none)")
        for tname in EFF_TABLES:
            _check_eff_table(tname, getattr(self, tname))

    # ----- topology ----------------------------------------------------------------------------
    @property
    def topology(self) -> Topology:
        return Topology(self.pes_per_cube, self.cubes_per_sip, self.n_sips)

    @property
    def pes_per_sip(self) -> int:
        return self.topology.pes_per_sip

    @property
    def n_pes(self) -> int:
        return self.topology.n_pes

    def knobs(self) -> dict[str, float]:
        return {k: float(getattr(self, k)) for k in KNOBS}

    def link_bw_gbs(self) -> tuple[float, float, float]:
        return self.bw_intra_gbs, self.bw_inter_gbs, self.bw_intersip_gbs

    def link_alpha_ns(self) -> tuple[float, float, float]:
        return self.alpha_intra_ns, self.alpha_inter_ns, self.alpha_intersip_ns

    def link_effs(self) -> tuple[float, float, float]:
        """Achievable fraction of each level's link bandwidth in collectives: ``link_eff`` on the
        scale-up links (NVLink / xGMI all-reduce bus bandwidth, 0.71-0.80 of the link),
        ``link_eff_intersip`` between SiPs, where NCCL's network transport over RDMA reaches more
        of the NIC's line rate (2-node A100 with 4 HDR NICs per node: all-reduce bus bandwidth
        86 of 100 GB/s, NVIDIA/nccl issue 1048; 3 nodes: 85 average, 96 peak, nccl-tests 119)."""
        return self.link_eff, self.link_eff, self.link_eff_intersip

    @property
    def clock_fraction(self) -> float:
        """Compute clock under the power cap relative to the rated clock: dynamic power scales as
        C·V²·f and, in the DVFS range, V with f, so P ∝ f³ and f/f_max = (cap / TDP)^(1/3)
        (an A100 at 330 of 400 W: 0.94). Tensor-core FLOP/s follow the clock; HBM bandwidth does
        not (its own clock domain)."""
        if not self.power_cap_w or self.power_cap_w >= self.tdp_w:
            return 1.0
        return float((self.power_cap_w / self.tdp_w) ** (1.0 / 3.0))

    # ----- efficiency curves -------------------------------------------------------------------
    def compute_table(self, dtype: str = "bf16", attn: bool = False) -> str:
        """The efficiency table a ``dtype`` operator computes at. 8-bit GEMMs use
        ``compute_eff_fp8`` where the part has faster 8-bit units; without them (A100's fp8) they
        run on the 16-bit path at its efficiency. fp4 GEMMs use ``compute_eff_fp4`` (else the
        8-bit table) where the part has fp4 units (B200), the 16-bit path where it has none.
        Attention kernels use ``attn_compute_eff`` when the part states it."""
        if attn and self.attn_compute_eff:
            return "attn_compute_eff"
        if dtype in ("fp4", "mxfp4", "int4") and self.speedup(dtype) > 1.0:
            return next(t for t in ("compute_eff_fp4", "compute_eff_fp8", "compute_eff") if getattr(self, t))
        if dtype in ("fp8", "int8") and self.compute_eff_fp8 and self.speedup(dtype) > 1.0:
            return "compute_eff_fp8"
        return "compute_eff"

    def memory_table(self, weight_dtype: str = "bf16", attn: bool = False) -> str:
        """The efficiency table an operator streaming ``weight_dtype`` weights reads HBM at:
        GEMMs streaming 8-bit or narrower weights (dequantised, or on low-precision tensor cores
        at small batch) reach a lower fraction in today's libraries (``memory_eff_fp8``, and
        ``memory_eff_int4`` / ``memory_eff_fp4`` where stated); decode attention over the KV cache
        reads at ``attn_memory_eff`` when stated."""
        if attn and self.attn_memory_eff:
            return "attn_memory_eff"
        own = WEIGHT_MEMORY_TABLE.get(weight_dtype)
        for t in (own, "memory_eff_fp8") if own else ():
            if getattr(self, t):
                return t
        return "memory_eff"

    def table_efficiency(self, table: str, size: np.ndarray) -> np.ndarray:
        """The efficiency table ``table`` (a field name) at ``size``, log-linear between its points
        and flat beyond its ends."""
        return _interp_log(size, getattr(self, table))

    def log_table(self, table: str) -> tuple[np.ndarray, np.ndarray]:
        """(log10 sizes, efficiencies) of the efficiency table ``table``: ``table_efficiency`` is
        ``np.interp(log_size(size), *log_table(table))``."""
        return _log_table(getattr(self, table))

    def compute_efficiency(self, flops: np.ndarray, dtype: str = "bf16", attn: bool = False) -> np.ndarray:
        """Achievable fraction of the ``dtype`` tensor peak for an operator of ``flops`` (per PE),
        from :meth:`compute_table`."""
        return self.table_efficiency(self.compute_table(dtype, attn), flops)

    def speedup(self, dtype: str) -> float:
        """The ``dtype`` tensor units' rate relative to the 16-bit ones at the same accumulate
        (``fp8_speedup``, ...; NVFP4 and MXFP4 share ``fp4_speedup``: every part with either runs
        both at one rate; fp32 activations run TF32 at half the 16-bit rate)."""
        return {"fp8": self.fp8_speedup, "int8": self.int8_speedup, "fp4": self.fp4_speedup,
                "mxfp4": self.fp4_speedup, "int4": self.int4_speedup, "fp32": 0.5}.get(dtype, 1.0)

    def tensor_rate(self, dtype: str) -> float:
        """Tensor throughput of a GEMM in ``dtype`` relative to ``peak_tflops_f16``:
        ``speedup(dtype) · fp32_acc_rate`` for floating-point formats (engines accumulate bf16,
        fp8 and fp4 GEMMs and attention in fp32, which GeForce parts run at half the
        fp16-accumulate rate their datasheet headlines: RTX 4090 330 → 165 TFLOPS, Ada
        whitepaper), ``speedup(dtype)`` for integer ones (int32 accumulate at full rate)."""
        rate = self.speedup(dtype)
        return rate if dtype in INTEGER_DTYPES else rate * self.fp32_acc_rate

    def memory_efficiency(self, nbytes: np.ndarray, weight_dtype: str = "bf16", attn: bool = False) -> np.ndarray:
        """Achievable fraction of HBM bandwidth for an operator moving ``nbytes`` (per PE), from
        :meth:`memory_table`."""
        return self.table_efficiency(self.memory_table(weight_dtype, attn), nbytes)

    def with_knobs(self, **knobs: float) -> "HardwareSpec":
        unknown = set(knobs) - set(KNOBS)
        require(not unknown, f"unknown hardware knobs {sorted(unknown)}; valid: {', '.join(KNOBS)}")
        return replace(self, **knobs)

    def without_knobs(self) -> "HardwareSpec":
        """This spec with its six knobs at 1: all that the knob-free stage of the cost model (the
        parallelism space, ``cost.prepare``) depends on, so a cache key for that stage (memoised:
        a sweep asks for it once per step it prices, and building a spec re-validates it)."""
        return _knob_free(self)

    def to_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "HardwareSpec":
        """A spec from field names and values (efficiency tables as lists of [size, eff] pairs);
        unknown and missing fields are one-line errors that suggest the nearest valid name."""
        check_keys(d, where="hardware spec")
        missing = [f for f in required_fields() if f not in d]
        require(not missing, f"hardware spec: missing field '{missing[0] if missing else ''}' "
                             f"(required: {', '.join(required_fields())})")
        kw = {k: table_from(k, v) if k in EFF_TABLES else v for k, v in d.items()}
        return cls(**kw)


def field_names() -> list[str]:
    return [f.name for f in fields(HardwareSpec)]


def required_fields() -> list[str]:
    return [f.name for f in fields(HardwareSpec) if f.default is MISSING and f.default_factory is MISSING]


def check_keys(d: Any, where: str, extra: tuple[str, ...] = ()) -> None:
    """Reject a non-mapping or unknown keys, suggesting the nearest valid key."""
    if not isinstance(d, Mapping):
        raise InferSimError(f"{where}: expected a table of hardware fields, got {type(d).__name__}")
    valid = field_names() + list(extra)
    if "usable_mem_frac" in d:
        raise InferSimError(f"{where}: usable_mem_frac is a property of the software, not the chip: "
                            "it is the runtime's mem_fraction now (infersim.specs.runtime); drop the key")
    for key in d:
        if key not in valid:
            near = difflib.get_close_matches(str(key), valid, n=1, cutoff=0.6)
            hint = f"did you mean '{near[0]}'? " if near else ""
            raise InferSimError(f"{where}: unknown hardware field {short_repr(key)}; {hint}valid: "
                                f"{', '.join(valid)}")


def table_from(name: str, value: Any) -> tuple[tuple[float, float], ...]:
    """An efficiency table from a list of [size, efficiency] pairs (numbers, finite)."""
    ok = isinstance(value, (list, tuple)) and all(
        isinstance(p, (list, tuple)) and len(p) == 2
        and all(isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) for x in p)
        for p in value)
    if not ok:
        raise InferSimError(f"{name} must be a list of [size, efficiency] number pairs, got {short_repr(value)}")
    return tuple((float(x), float(e)) for x, e in value)


def _is_finite_real(value) -> bool:
    """A finite int or float (not a bool, not a string); an int too large for a float is not."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    try:
        return math.isfinite(value)
    except OverflowError:
        return False


def _check_eff_table(name: str, table) -> None:
    """An efficiency table is a tuple of (size, efficiency) tuples (hashable: the log tables are
    cached on it), sizes positive and strictly increasing, efficiencies in (0, 1]. A valid table
    is checked once (a sweep rebuilds the spec per candidate with the same tables)."""
    try:
        _valid_eff_table(name, table)
    except TypeError:                   # unhashable: not a tuple of tuples, reported below
        _eff_table_errors(name, table)


@lru_cache(maxsize=1024)
def _valid_eff_table(name: str, table) -> None:
    _eff_table_errors(name, table)      # raises on an invalid table (exceptions are not cached)


def _eff_table_errors(name: str, table) -> None:
    pairs = isinstance(table, tuple) and all(isinstance(p, tuple) and len(p) == 2 for p in table)
    require(pairs, lambda: f"{name} must be a tuple of (size, efficiency) pairs, got {short_repr(table)}")
    require(len(table) >= 1 or name not in ("compute_eff", "memory_eff"), f"{name} table must not be empty")
    bad = [v for p in table for v in p if not _is_finite_real(v)]
    if bad:
        raise InferSimError(f"{name} sizes and efficiencies must be finite numbers, got {short_repr(bad[0])}")
    xs = [float(x) for x, _ in table]
    require(all(x > 0 for x in xs) and xs == sorted(xs) and len(set(xs)) == len(xs),
            f"{name} sizes must be positive and strictly increasing")
    require(all(0 < float(e) <= 1 for _, e in table), f"{name} efficiencies must be in (0, 1]")


@lru_cache(maxsize=1024)
def _knob_free(hw: HardwareSpec) -> HardwareSpec:
    return replace(hw, **{k: 1.0 for k in KNOBS})


@lru_cache(maxsize=256)
def _log_table(table) -> tuple[np.ndarray, np.ndarray]:
    xs, ys = np.log10([x for x, _ in table]), np.array([e for _, e in table], dtype=float)
    xs.setflags(write=False)            # cached and shared (log_table): read-only
    ys.setflags(write=False)
    return xs, ys


def log_size(size) -> np.ndarray:
    """The efficiency tables' abscissa: log10 of an operator's size (flops or bytes), at least 1."""
    return np.log10(np.maximum(np.asarray(size, dtype=float), 1.0))


def _interp_log(size: np.ndarray, table) -> np.ndarray:
    return np.interp(log_size(size), *_log_table(table))
