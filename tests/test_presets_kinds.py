"""Hardware files that say what parts are (fp32-accumulate rate, int4 / fp4 rates, unified
memory, family and part defaults) and the presets added with them (docs/hardware.md)."""
import math
from dataclasses import replace

import pytest

from infersim import Parallelism, Workload, simulate
from infersim.errors import InferSimError
from infersim.hardware_presets import HW_PRESETS, read_hardware_file
from infersim.loaders.hardware_files import KIND_DEFAULTS
from infersim.model_presets import PRESETS
from infersim.specs.hardware import HardwareSpec

NEW_HW = ["H100-PCIe x8", "H20 x8", "A10G x1", "A10G x4", "B200 4x8 (IB)", "MI355X x8", "L40S x8",
          "RTX 4090 x1", "RTX 4090 x2"]
TP1 = Parallelism(tp=1, pp=1, dp=1, cp=1)
H100_KNOBS = """name = "my H100"
source = "test: the H100 SXM datasheet numbers"
pe_hbm_gb = 85.52
bw_hbm_gbs = 3350.0
peak_tflops_f16 = 989.0
bw_intra_gbs = 450.0
bw_inter_gbs = 450.0
bw_intersip_gbs = 50.0
alpha_intra_ns = 2000.0
alpha_inter_ns = 2000.0
alpha_intersip_ns = 10000.0
link_eff = 0.80
"""


def write(tmp_path, text, name="hw.toml"):
    p = tmp_path / name
    p.write_text(text)
    return p


@pytest.mark.parametrize("name", NEW_HW)
def test_new_presets_simulate_llama_8b_decode(name):
    r = simulate(PRESETS["Llama 3.1 8B"].model, HW_PRESETS[name], TP1, Workload(mode="decode", s_kv=4096))
    assert r.fits and math.isfinite(r.total_latency_ns) and r.total_latency_ns > 0
    # a single-GPU decode step streams at least the 16 GB of weights once
    hw = HW_PRESETS[name]
    assert r.total_latency_ns >= PRESETS["Llama 3.1 8B"].model.weight_bytes() / hw.bw_hbm_gbs


@pytest.mark.parametrize("line,ref", [('family = "hopper"', "H100-SXM x8"), ('part = "H100"', "H100-SXM x8")])
def test_user_file_naming_a_family_predicts_as_its_preset(tmp_path, line, ref):
    spec, origin = read_hardware_file(write(tmp_path, H100_KNOBS + line + "\n"))
    preset = HW_PRESETS[ref]
    for f in KIND_DEFAULTS:
        assert getattr(spec, f) == getattr(preset, f), f
        assert origin[f].endswith("(H100-SXM x8) default"), origin[f]
    assert spec.family == "hopper"
    model = PRESETS["Llama 3.1 70B"].model
    for wl in (Workload(mode="decode", s_kv=8192, batch=8), Workload(mode="prefill", s_kv=4096)):
        par = Parallelism(tp=8, pp=1, dp=1, cp=1)
        a, b = simulate(model, spec, par, wl), simulate(model, preset, par, wl)
        assert a.total_latency_ns == b.total_latency_ns and a.breakdown_ns == b.breakdown_ns


def test_user_file_without_family_keeps_the_generic_curves(tmp_path):
    spec, origin = read_hardware_file(write(tmp_path, H100_KNOBS))
    assert spec.memory_eff == HardwareSpec.__dataclass_fields__["memory_eff"].default
    assert origin["memory_eff_fp8"] == "default" and spec.memory_eff_fp8 == ()
    # with the family, GEMMs streaming 8-bit weights get hopper's calibrated table (0.85-based), not
    # the generic curve a file without a family falls back to (the 16-bit streaming one, 0.90)
    fam, _ = read_hardware_file(write(tmp_path, H100_KNOBS + 'family = "hopper"\n', "h.toml"))
    assert fam.memory_eff_fp8 == HW_PRESETS["H100-SXM x8"].memory_eff_fp8
    assert max(e for _, e in fam.memory_eff_fp8) < max(e for _, e in getattr(spec, spec.memory_table("fp8"))) == 0.9


def test_user_maxima_win_over_family_defaults(tmp_path):
    spec, origin = read_hardware_file(write(tmp_path, H100_KNOBS + 'family = "hopper"\neff_max_memory = 0.7\n'))
    assert max(e for _, e in spec.memory_eff) == 0.7 and origin["memory_eff"] == "from eff_max_memory"
    assert spec.compute_eff == HW_PRESETS["H100-SXM x8"].compute_eff


def test_presets_without_maxima_take_their_family_calibrated_alike():
    h20, h100 = HW_PRESETS["H20 x8"], HW_PRESETS["H100-SXM x8"]
    for f in KIND_DEFAULTS:
        assert getattr(h20, f) == getattr(h100, f), f
    assert HW_PRESETS["RTX 4090 x1"].memory_eff == HW_PRESETS["L40S x8"].memory_eff


def test_consumer_fp32_accumulate_halves_the_tensor_rate():
    g = HW_PRESETS["RTX 4090 x1"]
    assert g.tensor_rate("bf16") == 0.5 and g.tensor_rate("fp8") == 1.0    # 165.2 and 330.3 of 330.3
    assert g.tensor_rate("int8") == 2.0 and g.tensor_rate("int4") == 4.0     # int32 accumulate: full rate
    assert g.compute_table("fp8") == "compute_eff_fp8"      # the fp8 units exist even at half rate
    full = replace(g, fp32_acc_rate=1.0)
    wl = Workload(mode="prefill", s_kv=8192)
    a, b = simulate(PRESETS["Llama 3.1 8B"].model, g, TP1, wl), simulate(PRESETS["Llama 3.1 8B"].model, full, TP1, wl)
    assert a.bound == "compute"
    # compute-bound prefill: twice the time at half the rate (the HBM part of each op overlaps less)
    assert 1.9 < a.breakdown_ns["compute"] / b.breakdown_ns["compute"] <= 2.0
    assert 1.85 < a.total_latency_ns / b.total_latency_ns <= 2.0


def test_four_bit_rates():
    b200, mi355, a10g = HW_PRESETS["B200 x8"], HW_PRESETS["MI355X x8"], HW_PRESETS["A10G x1"]
    assert b200.tensor_rate("mxfp4") == b200.tensor_rate("fp4") == 4.0
    assert mi355.tensor_rate("mxfp4") == 4.0 and mi355.compute_table("mxfp4") == "compute_eff_fp4"
    assert a10g.tensor_rate("int4") == 4.0 and a10g.tensor_rate("fp8") == 1.0
    assert HW_PRESETS["H100-SXM x8"].tensor_rate("int4") == 1.0      # Hopper has no int4 tensor cores


def test_h100_pcie_is_nvlink_pairs_over_pcie():
    h = HW_PRESETS["H100-PCIe x8"]
    assert (h.pes_per_cube, h.cubes_per_sip, h.bw_intra_gbs, h.bw_inter_gbs) == (2, 4, 300.0, 64.0)
    assert h.peak_tflops_f16 == 756.0 and h.family == "hopper"


def test_unified_memory_fields(tmp_path):
    spec, _ = read_hardware_file(write(tmp_path, H100_KNOBS + "unified_mem_gb = 480.0\nbw_unified_gbs = 450.0\n"))
    assert (spec.unified_mem_gb, spec.bw_unified_gbs) == (480.0, 450.0)
    # capacity for offload only: the step model does not change
    wl = Workload(mode="decode", s_kv=4096)
    base, _ = read_hardware_file(write(tmp_path, H100_KNOBS, "b.toml"))
    m = PRESETS["Llama 3.1 8B"].model
    assert simulate(m, spec, TP1, wl).total_latency_ns == simulate(m, base, TP1, wl).total_latency_ns


@pytest.mark.parametrize("extra,match", [
    ('family = "volta"', "unknown family 'volta'; valid: hopper"),
    ('part = "H900"', "unknown part 'H900'; valid: generic, H100"),
    ("part = 3", "part must be the name of a part"),
    ("fp32_acc_rate = 2.0", "fp32_acc_rate must be in \\(0, 1\\]"),
    ("fp32_acc_rate = 0", "fp32_acc_rate must be > 0"),
    ("int4_speedup = -1", "int4_speedup must be > 0"),
    ("unified_mem_gb = 480.0", "unified_mem_gb needs bw_unified_gbs"),
    ('bw_unified_gbs = "fast"', "bw_unified_gbs must be a number"),
])
def test_bad_values_are_one_line_errors(tmp_path, extra, match):
    with pytest.raises(InferSimError, match=match) as e:
        read_hardware_file(write(tmp_path, H100_KNOBS + extra + "\n"))
    assert "\n" not in str(e.value) and str(e.value).startswith("hw.toml")
