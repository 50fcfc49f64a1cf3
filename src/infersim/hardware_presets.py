"""Hardware presets from vendor datasheets, plus the generic SiP system co-design starts from.

Bandwidths are per PE per direction (NVLink 4 "900 GB/s" is 450 GB/s each way), TFLOPS are dense
(no 2:4 sparsity). Efficiency curves are physically derived: a generic size shape (small GEMMs
and short reads reach a lower fraction of peak) scaled to the maximum each part reaches in
published measurements — large bf16 and fp8 GEMMs (cuBLASLt / TensorRT-LLM / hipBLASLt) and HBM
streaming (STREAM-like copies and skinny GEMMs). Calibration (:mod:`infersim.validate`) may scale
those maxima per GPU family within ``EFF_BOUNDS``; uncalibrated parts keep their measured maxima,
so comparisons between vendors measure hardware, not fitting history. Software overheads are in
:mod:`infersim.runtime`, never here.

Link latencies (alpha): one synchronised hop of a collective. NVLink 4/NVSwitch ~2 us (TensorRT-LLM's
one-shot all-reduce on 8 H100: 3.2 us at 256 B, 3.5 us at 8 KB, including the launch gap);
NVLink 3 on A100 ~5 us (8.0 us at 8 KB); InfiniBand NDR ~10 us per inter-node hop (NCCL 2-node
small all-reduce ~25-46 us). Kernel latency (the least device time of any kernel): smallest bf16
GEMM 2.5 us on A100/H100/H200, 1.7 us on B200 (same aiconfigurator sweeps).
"""
from __future__ import annotations

from dataclasses import replace

from .errors import InferSimError
from .hardware import HardwareSpec

#: Efficiency shapes: fraction of a part's maximum efficiency by operator size. Compute: a GEMM
#: of 1 GFLOP reaches half the large-GEMM efficiency (H100 bf16 8192x8192, m=128: 0.33 of peak
#: vs 0.79 at m>=512, aiconfigurator measurements); memory: a 1 MB read reaches ~2/3 of the
#: streaming efficiency.
COMPUTE_SHAPE = ((1e6, 0.03), (1e8, 0.2), (1e9, 0.5), (1e10, 0.8), (1e11, 0.96), (1e12, 1.0))
MEMORY_SHAPE = ((1e4, 0.06), (1e5, 0.33), (1e6, 0.67), (1e7, 0.89), (1e8, 0.98), (1e9, 1.0))
#: Physical ranges of the maxima (calibration and every preset must stay inside; tested).
EFF_BOUNDS = {"compute": (0.35, 0.92), "compute_fp8": (0.30, 0.85), "memory": (0.65, 0.95),
              "memory_fp8": (0.25, 0.95)}
TABLE_OF = {"compute": "compute_eff", "compute_fp8": "compute_eff_fp8", "memory": "memory_eff",
            "memory_fp8": "memory_eff_fp8"}


def curves(compute: float, compute_fp8: float, memory: float, memory_fp8: float) -> dict:
    """Efficiency tables from the maxima a part reaches (large GEMM bf16 / fp8, HBM stream,
    8-bit-weight GEMV)."""
    scale = lambda shape, top: tuple((x, round(e * top, 6)) for x, e in shape)  # noqa: E731
    return {"compute_eff": scale(COMPUTE_SHAPE, compute),
            "compute_eff_fp8": scale(COMPUTE_SHAPE, compute_fp8),
            "memory_eff": scale(MEMORY_SHAPE, memory),
            "memory_eff_fp8": scale(MEMORY_SHAPE, memory_fp8)}


#: Measured maxima per part, as fractions of datasheet peak: (bf16 GEMM, fp8 GEMM, HBM stream,
#: HBM of GEMMs streaming 8-bit weights at small batch). Sources: aiconfigurator's NVIDIA-collected
#: GEMM sweeps (github.com/ai-dynamo/aiconfigurator @095f58a, systems/data), Azure
#: AI-benchmarking-guide STREAM results, and the per-part notes below.
MEASURED_MAX = {
    # H100: TRT-LLM bf16 8192^3 783 TFLOPS (0.79); cuBLASLt fp8 1290-1382 (0.65-0.70);
    # HBM: Azure STREAM triad 2.97 TB/s (0.887), bf16 skinny GEMM up to 3.09 (0.92);
    # fp8 GEMM m=1..64 on 8192x8192 (64 MB): 37-39 us = 1.7-1.8 TB/s (0.55)
    "H100": (0.79, 0.66, 0.89, 0.57),
    # H200: bf16 806 (0.815), fp8 1301-1366 (0.66-0.69); HBM STREAM 4.15 TB/s (0.865), skinny 0.90;
    # fp8 m=1..64: 30-32 us on 64 MB = 2.1-2.2 TB/s (0.45)
    "H200": (0.80, 0.66, 0.88, 0.46),
    # A100: bf16 263-294 TFLOPS (0.84-0.94); HBM STREAM 1.70 TB/s (0.834), skinny 1.78 (0.873);
    # no fp8: 8-bit weights are int8 weight-only, estimated at H100's fp8/bf16 GEMV ratio (0.64)
    "A100": (0.85, 0.85, 0.85, 0.55),
    # B200: bf16 1492 (0.66), fp8 2335-2517 (0.52-0.56); skinny-GEMM HBM 7.1 TB/s (0.89);
    # fp8 m=1..64: 26-28 us on 64 MB = 2.4-2.6 TB/s (0.32)
    "B200": (0.66, 0.54, 0.89, 0.32),
    # MI300X: torch.matmul bf16 548 (0.42), hipBLASLt fp8 1223 (0.47); HBM STREAM 4.13 TB/s (0.78);
    # 8-bit GEMV estimated at H100's fp8/bf16 ratio (0.64)
    "MI300X": (0.45, 0.47, 0.78, 0.50),
    # hypothetical chiplet PE: a mature GPU-class stack
    "generic": (0.80, 0.70, 0.90, 0.70),
}

GENERIC_SIP = HardwareSpec(
    # A hypothetical chiplet system: each PE is a compute die with two HBM3E stacks; four PEs
    # form a cube over die-to-die links, four cubes a SiP, four SiPs the system (64 PEs, 3 TB).
    # Sized so that Llama 3.1 70B decode at 128K context fits with room for every parallelism.
    name="Generic SiP (default)",
    pe_hbm_gb=48.0, bw_hbm_gbs=2000.0, peak_tflops_f16=500.0,
    bw_intra_gbs=600.0, bw_inter_gbs=300.0, bw_intersip_gbs=100.0,
    pes_per_cube=4, cubes_per_sip=4, n_sips=4,
    alpha_intra_ns=300.0, alpha_inter_ns=800.0, alpha_intersip_ns=2500.0,
    link_eff=0.85, **curves(*MEASURED_MAX["generic"]),
    source="infersim default co-design baseline (hypothetical)",
)


def _gpu_node(name, part, hbm_gb, hbm_gbs, tflops, nvlink_gbs, nodes=1, ib_gbs=50.0,
              alpha_nvl=2000.0, fp8=2.0, link_eff=0.80, kernel_ns=2500.0, source=""):
    return HardwareSpec(
        name=name, pe_hbm_gb=hbm_gb, bw_hbm_gbs=hbm_gbs, peak_tflops_f16=tflops,
        bw_intra_gbs=nvlink_gbs, bw_inter_gbs=nvlink_gbs, bw_intersip_gbs=ib_gbs,
        pes_per_cube=8, cubes_per_sip=1, n_sips=nodes,
        alpha_intra_ns=alpha_nvl, alpha_inter_ns=alpha_nvl, alpha_intersip_ns=10_000.0,
        fp8_speedup=fp8, link_eff=link_eff, kernel_latency_ns=kernel_ns, source=source,
        **curves(*MEASURED_MAX[part]))


_H100_SRC = ("NVIDIA H100 SXM5 datasheet: 80 GB HBM3, 3.35 TB/s, 989 TFLOPS bf16 dense, NVLink 4 "
             "900 GB/s (450 each way); DGX H100: 8x ConnectX-7 400 Gb/s NDR per node")
_H100 = _gpu_node("H100-SXM x8", "H100", 80.0, 3350.0, 989.0, 450.0, source=_H100_SRC)
_A100 = _gpu_node("A100-SXM x8", "A100", 80.0, 2039.0, 312.0, 300.0, fp8=1.0, ib_gbs=25.0,
                  alpha_nvl=5000.0, link_eff=0.74,
                  source="NVIDIA A100 SXM4 80GB datasheet: 2,039 GB/s HBM2e, 312 TFLOPS bf16, "
                         "NVLink 3 600 GB/s (300 each way), no fp8; DGX A100: 8x HDR 200 Gb/s; "
                         "NCCL all-reduce busbw 222-232 GB/s (0.74-0.77 of link); TensorRT-LLM "
                         "custom all-reduce 8 KB: 8.0 us (H100: 3.5 us)")
_H200 = _gpu_node("H200 x8", "H200", 141.0, 4800.0, 989.0, 450.0,
                  source="NVIDIA H200 SXM datasheet: 141 GB HBM3e, 4.8 TB/s, 989 TFLOPS bf16, NVLink 4")

#: Uncalibrated specs (measured maxima) that ``infersim.validate`` fits against, per family.
BASE_GPU_SPECS: dict[str, HardwareSpec] = {"hopper": _H100, "ampere": _A100}
#: Per family: multipliers of the measured (bf16 compute, fp8 compute, memory, 8-bit-weight
#: memory) maxima, fitted by ``infersim validate --refit`` on the train sources
#: (docs/validation.md); each resulting maximum stays inside ``EFF_BOUNDS``.
CALIBRATION: dict[str, tuple[float, float, float, float]] = {
    "hopper": (1.0, 0.7525, 1.0340, 1.2758),
    "ampere": (0.7785, 1.0, 1.0054, 1.1448),
}
FAMILY_PRESETS = {
    "hopper": ("H100-SXM x8", "H100-SXM 2x8 (IB)", "H100-SXM 4x8 (IB)", "H100-SXM 8x8 (IB)", "H200 x8"),
    "ampere": ("A100-SXM x8",),
}


def calibrate(hw: HardwareSpec, compute: float = 1.0, compute_fp8: float = 1.0, memory: float = 1.0,
              memory_fp8: float = 1.0) -> HardwareSpec:
    """``hw`` with its efficiency tables scaled by the multipliers, each maximum clipped to its
    physical range (``EFF_BOUNDS``)."""
    def scale(bound, s):
        table = getattr(hw, TABLE_OF[bound]) or getattr(hw, TABLE_OF[bound.removesuffix("_fp8")])
        top = max(e for _, e in table)
        target = min(max(top * s, EFF_BOUNDS[bound][0]), EFF_BOUNDS[bound][1])
        return tuple((x, e * target / top) for x, e in table)
    mult = {"compute": compute, "compute_fp8": compute_fp8, "memory": memory, "memory_fp8": memory_fp8}
    return replace(hw, **{TABLE_OF[b]: scale(b, s) for b, s in mult.items()})


def _family_of(name: str) -> str | None:
    return next((f for f, names in FAMILY_PRESETS.items() if name in names), None)


def _h100_nodes(n: int) -> HardwareSpec:
    return replace(_H100, name=f"H100-SXM {n}x8 (IB)", n_sips=n,
                   source=f"{n} DGX H100 nodes ({8 * n} GPUs), 8x 400 Gb/s InfiniBand NDR per node; "
                          + _H100_SRC)


_RAW = [
    GENERIC_SIP,
    _H100,
    _h100_nodes(2), _h100_nodes(4), _h100_nodes(8),
    _A100,
    _H200,
    _gpu_node("B200 x8", "B200", 180.0, 8000.0, 2250.0, 900.0, alpha_nvl=2500.0, kernel_ns=1700.0,
              source="NVIDIA HGX B200: 180 GB HBM3e, 8 TB/s, 2.25 PFLOPS bf16 dense, NVLink 5 1.8 TB/s "
                     "(900 each way); measured maxima, uncalibrated"),
    _gpu_node("MI300X x8", "MI300X", 192.0, 5300.0, 1307.4, 448.0, alpha_nvl=3000.0, link_eff=0.71,
              source="AMD Instinct MI300X data sheet: 192 GB HBM3, 5.3 TB/s, 1307 TFLOPS fp16, "
                     "7 Infinity Fabric links x 64 GB/s each way; RCCL busbw 317 GB/s (0.71); "
                     "measured maxima, uncalibrated"),
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
