"""Hardware presets from vendor datasheets, plus the generic SiP system co-design starts from.

Bandwidths are per PE per direction (NVLink 4 "900 GB/s" is 450 GB/s each way), TFLOPS are dense
(no 2:4 sparsity). Datasheets: NVIDIA H100 / H200 / HGX B200 product briefs, AMD Instinct MI300X
data sheet; InfiniBand NDR at 400 Gb/s = 50 GB/s per GPU.
"""
from __future__ import annotations

from dataclasses import replace

from .errors import InferSimError
from .hardware import HardwareSpec

GENERIC_SIP = HardwareSpec(
    # A hypothetical chiplet system: each PE is a compute die with two HBM3E stacks; four PEs
    # form a cube over die-to-die links, four cubes a SiP, four SiPs the system (64 PEs, 3 TB).
    # Sized so that Llama 3.1 70B decode at 128K context fits with room for every parallelism.
    name="Generic SiP (default)",
    pe_hbm_gb=48.0, bw_hbm_gbs=2000.0, peak_tflops_f16=500.0,
    bw_intra_gbs=600.0, bw_inter_gbs=300.0, bw_intersip_gbs=100.0,
    pes_per_cube=4, cubes_per_sip=4, n_sips=4,
    alpha_intra_ns=300.0, alpha_inter_ns=800.0, alpha_intersip_ns=2500.0,
    kernel_overhead_ns=500.0, link_eff=0.85,
    source="infersim default co-design baseline (hypothetical)",
)


def _gpu_node(name, hbm_gb, hbm_gbs, tflops, nvlink_gbs, nodes=1, ib_gbs=50.0, alpha_nvl=700.0,
              fp8=2.0, source=""):
    return HardwareSpec(
        name=name, pe_hbm_gb=hbm_gb, bw_hbm_gbs=hbm_gbs, peak_tflops_f16=tflops,
        bw_intra_gbs=nvlink_gbs, bw_inter_gbs=nvlink_gbs, bw_intersip_gbs=ib_gbs,
        pes_per_cube=8, cubes_per_sip=1, n_sips=nodes,
        alpha_intra_ns=alpha_nvl, alpha_inter_ns=alpha_nvl, alpha_intersip_ns=5000.0,
        fp8_speedup=fp8, kernel_overhead_ns=2000.0, link_eff=0.80, source=source)


_H100 = _gpu_node("H100-SXM x8", 80.0, 3350.0, 989.0, 450.0,
                  source="NVIDIA H100 SXM5: 80 GB HBM3, 3.35 TB/s, 989 TFLOPS bf16, NVLink 4 900 GB/s")
_A100 = _gpu_node("A100-SXM x8", 80.0, 2039.0, 312.0, 300.0, fp8=1.0,
                  source="NVIDIA A100 SXM4 80GB: 2,039 GB/s HBM2e, 312 TFLOPS bf16, NVLink 3 600 GB/s, no fp8")

#: Uncalibrated specs (generic efficiency curves) that ``infersim.validate`` fits against.
BASE_GPU_SPECS: dict[str, HardwareSpec] = {"hopper": _H100, "ampere": _A100}
#: Per family: (compute-efficiency scale, memory-efficiency scale, kernel overhead ns), fitted by
#: ``infersim validate --refit`` on the train rows of its published measurements (docs/validation.md).
#: The published rows are TensorRT-LLM v0.5/v0.6 (2023) runs, so the fitted launch overhead
#: (~20 us per kernel) reflects that runtime, not a CUDA-graph-captured modern stack.
CALIBRATION: dict[str, tuple[float, float, float]] = {
    "hopper": (0.65, 1.1, 20000.0),
    "ampere": (0.95, 1.1, 20000.0),
}
FAMILY_PRESETS = {"hopper": ("H100-SXM x8", "H100-SXM 2x8 (IB)", "H200 x8"), "ampere": ("A100-SXM x8",)}


def calibrate(hw: HardwareSpec, compute_scale: float, memory_scale: float,
              kernel_overhead_ns: float) -> HardwareSpec:
    """``hw`` with its efficiency curves scaled (capped at 1) and its launch overhead set."""
    scale = lambda table, s: tuple((x, min(1.0, e * s)) for x, e in table)  # noqa: E731
    return replace(hw, compute_eff=scale(hw.compute_eff, compute_scale),
                   memory_eff=scale(hw.memory_eff, memory_scale), kernel_overhead_ns=kernel_overhead_ns)


def _family_of(name: str) -> str | None:
    return next((f for f, names in FAMILY_PRESETS.items() if name in names), None)


_RAW = [
    GENERIC_SIP,
    _H100,
    _gpu_node("H100-SXM 2x8 (IB)", 80.0, 3350.0, 989.0, 450.0, nodes=2,
              source="two DGX H100 nodes, 8x 400 Gb/s InfiniBand NDR per node"),
    _A100,
    _gpu_node("H200 x8", 141.0, 4800.0, 989.0, 450.0,
              source="NVIDIA H200 SXM: 141 GB HBM3e, 4.8 TB/s, 989 TFLOPS bf16, NVLink 4"),
    _gpu_node("B200 x8", 180.0, 8000.0, 2250.0, 900.0,
              source="NVIDIA HGX B200: 180 GB HBM3e, 8 TB/s, 2.25 PFLOPS bf16 dense, NVLink 5 1.8 TB/s "
                     "(uncalibrated)"),
    _gpu_node("MI300X x8", 192.0, 5300.0, 1307.4, 448.0, alpha_nvl=1500.0,
              source="AMD Instinct MI300X: 192 GB HBM3, 5.3 TB/s, 1307 TFLOPS fp16, "
                     "7 Infinity Fabric links x 64 GB/s (uncalibrated)"),
]
HW_PRESETS: dict[str, HardwareSpec] = {
    h.name: calibrate(h, *CALIBRATION[_family_of(h.name)]) if _family_of(h.name) else h for h in _RAW}

DEFAULT_HW = GENERIC_SIP.name


def get_hardware(name: str) -> HardwareSpec:
    try:
        return HW_PRESETS[name]
    except KeyError:
        raise InferSimError(
            f"unknown hardware preset {name!r}; valid: {', '.join(HW_PRESETS)}") from None
