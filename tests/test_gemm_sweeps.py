"""The uncalibrated hardware files against a published GEMM sweep: TensorRT-LLM's bf16 GEMMs as
aiconfigurator collected them (github.com/ai-dynamo/aiconfigurator @ 095f58a51,
systems/data/<part>/gemm/trtllm/<version>/gemm_perf.parquet, the fastest of its runs per shape;
H100/H200/B200 from 1.2.0rc5, A100 from 1.0.0). One GEMM (m x k activations, k x n weights) is
the cost model's own operator (:func:`infersim.cost.micro.gemm_ns`): its measured maxima, ridge
overlap, kernel floor and GEMM ramp, with no fitted multiplier."""
from dataclasses import replace

import pytest

from infersim.cost.micro import gemm_ns, stream_ns
from infersim.presets.hardware_presets import RAW_PRESETS

#: (preset, m, n, k, measured us)
SWEEP = [
    ("H100-SXM x8", 1, 4096, 4096, 16.0), ("H100-SXM x8", 1, 8192, 8192, 47.9),
    ("H100-SXM x8", 8, 16384, 8192, 95.1), ("H100-SXM x8", 32, 16384, 16384, 186.6),
    ("H100-SXM x8", 1024, 8192, 8192, 176.6), ("H100-SXM x8", 4096, 16384, 16384, 3244.8),
    ("H200 x8", 1, 4096, 4096, 12.7), ("H200 x8", 1, 8192, 8192, 34.7), ("H200 x8", 8, 16384, 8192, 64.3),
    ("H200 x8", 32, 16384, 16384, 125.9), ("H200 x8", 1024, 8192, 8192, 175.0),
    ("H200 x8", 4096, 16384, 16384, 3193.4),
    ("B200 x8", 1, 4096, 4096, 10.1), ("B200 x8", 1, 8192, 8192, 27.1), ("B200 x8", 8, 16384, 8192, 45.3),
    ("B200 x8", 32, 16384, 16384, 82.6), ("B200 x8", 1024, 8192, 8192, 94.7),
    ("B200 x8", 4096, 16384, 16384, 1340.8),
    ("A100-SXM x8", 1, 4096, 4096, 26.2), ("A100-SXM x8", 1, 8192, 8192, 88.0),
    ("A100-SXM x8", 8, 16384, 8192, 173.6), ("A100-SXM x8", 32, 16384, 16384, 336.6),
    ("A100-SXM x8", 1024, 8192, 8192, 532.2), ("A100-SXM x8", 4096, 16384, 16384, 8293.1),
]


@pytest.mark.parametrize("hw, m, n, k, measured_us", SWEEP)
def test_raw_presets_reproduce_tensorrt_llm_gemm_sweeps(hw, m, n, k, measured_us):
    """From weight streaming (m = 1) through the ridge to compute-bound (m = 4096): within 20%."""
    assert gemm_ns(RAW_PRESETS[hw], m, n, k) / 1e3 == pytest.approx(measured_us, rel=0.20)


def test_gemm_ramp_is_paid_once_per_gemm_kernel():
    """The ramp adds to a GEMM at any size and leaves a pure stream (no GEMM kernel) alone."""
    hw = RAW_PRESETS["H200 x8"]
    flat = replace(hw, gemm_ramp_ns=0.0)
    for m, n, k in ((1, 4096, 4096), (4096, 16384, 16384)):
        assert gemm_ns(hw, m, n, k) - gemm_ns(flat, m, n, k) == pytest.approx(hw.gemm_ramp_ns)
    assert hw.gemm_ramp_ns > 0 and stream_ns(hw, 1e9) == stream_ns(flat, 1e9)


def test_without_the_ramp_skinny_gemms_run_fast():
    """The ramp is the roofline's missing term: without it TensorRT-LLM's GEMVs of 32 and 128 MB of
    weights (m = 1) run 6-50% under their measured times on H200 and B200; with it each is closer."""
    for hw, m, n, k, us in SWEEP:
        if hw in ("H200 x8", "B200 x8") and m == 1:
            flat = gemm_ns(replace(RAW_PRESETS[hw], gemm_ramp_ns=0.0), m, n, k) / 1e3
            assert flat < 0.95 * us
            assert abs(gemm_ns(RAW_PRESETS[hw], m, n, k) / 1e3 - us) < us - flat
