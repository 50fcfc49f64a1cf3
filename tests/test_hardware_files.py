"""Hardware files (JSON/TOML/YAML), the data-file presets, fp4 rates and the CLI's --hw / --nodes."""
import json
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import yaml

from infersim import HardwareSpec, InferSimError
from infersim.cli import main
from infersim.hardware_presets import HW_PRESETS, MEASURED_MAX, read_hardware_file, resolve_hardware

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "docs" / "examples" / "mychip.toml"
PRESET_DIR = ROOT / "src" / "infersim" / "presets" / "hardware"


def as_plain(spec: HardwareSpec) -> dict:
    return {k: [list(p) for p in v] if isinstance(v, tuple) else v for k, v in spec.to_dict().items()}


def toml_text(d: dict) -> str:
    def val(v):
        if isinstance(v, str):
            return json.dumps(v)
        if isinstance(v, list):
            return "[" + ", ".join(f"[{x!r}, {e!r}]" for x, e in v) + "]"
        return repr(v)
    return "\n".join(f"{k} = {val(v)}" for k, v in d.items()) + "\n"


@pytest.mark.parametrize("suffix", [".json", ".toml", ".yaml"])
def test_round_trip_every_format(tmp_path, suffix):
    spec = HW_PRESETS["B200 x8"]
    d = as_plain(spec)
    path = tmp_path / f"chip{suffix}"
    path.write_text({".json": json.dumps, ".yaml": yaml.safe_dump, ".toml": toml_text}[suffix](d))
    assert read_hardware_file(path)[0] == spec


def test_docs_example_reads_with_provenance():
    spec, origin = read_hardware_file(EXAMPLE)
    assert (spec.name, spec.n_pes, spec.fp4_speedup) == ("MyChip x8 x4", 32, 4.0)
    assert max(e for _, e in spec.compute_eff) == 0.75 and max(e for _, e in spec.compute_eff_fp4) == 0.45
    assert origin["pe_hbm_gb"] == "file" and origin["link_eff"] == "default"
    assert origin["compute_eff"] == "from eff_max_compute"


def test_base_preset_with_overrides(tmp_path):
    path = tmp_path / "h100_96.toml"
    path.write_text('base = "H100-SXM x8"\nname = "H100 96GB"\npe_hbm_gb = 96.0\nsource = "what-if"\n')
    spec, origin = read_hardware_file(path)
    assert spec == replace(HW_PRESETS["H100-SXM x8"], name="H100 96GB", pe_hbm_gb=96.0, source="what-if")
    assert origin["bw_hbm_gbs"] == "base 'H100-SXM x8'"


BAD_FILES = [
    ("typo.toml", 'name = "x"\nsource = "s"\npe_hbm_gbs = 80\n', "unknown hardware field 'pe_hbm_gbs'; did you mean 'pe_hbm_gb'?"),
    ("missing.json", '{"name": "x", "source": "s", "pe_hbm_gb": 80}', "missing hardware field 'bw_hbm_gbs'"),
    ("nan.json", '{"base": "H100-SXM x8", "source": "s", "bw_hbm_gbs": NaN}', "bw_hbm_gbs must be a finite number"),
    ("string.yaml", 'base: H100-SXM x8\nsource: s\npe_hbm_gb: "80"\n', "pe_hbm_gb must be a finite number"),
    ("table.toml", 'base = "H100-SXM x8"\nsource = "s"\nmemory_eff = [1, 2]\n', "memory_eff must be a list of [size, efficiency]"),
    ("effmax.toml", 'base = "H100-SXM x8"\nsource = "s"\neff_max_memory = 1.5\n', "eff_max_memory must be a fraction"),
    ("both.toml", 'base = "H100-SXM x8"\nsource = "s"\neff_max_memory = 0.8\nmemory_eff = [[1e9, 0.8]]\n', "not both"),
    ("pes.toml", 'base = "H100-SXM x8"\nsource = "s"\nn_sips = 8.5\n', "n_sips must be an integer"),
    ("huge.toml", 'base = "H100-SXM x8"\nsource = "s"\nn_sips = 1000000\n', "at most 1,048,576"),
    ("syntax.toml", 'name = \n', "cannot parse TOML"),
    ("list.yaml", '- 1\n- 2\n', "top level must be a table"),
    ("chip.txt", 'name = "x"\n', "hardware files end in .json, .toml, .yaml, .yml"),
    ("basebad.toml", 'base = "H900"\nsource = "s"\n', "unknown hardware preset 'H900'"),
]


@pytest.mark.parametrize("fname, text, needle", BAD_FILES, ids=[b[0] for b in BAD_FILES])
def test_bad_hardware_files_are_one_line_errors(tmp_path, fname, text, needle):
    path = tmp_path / fname
    path.write_text(text)
    with pytest.raises(InferSimError) as exc:
        read_hardware_file(path)[0]
    assert needle in str(exc.value) and "\n" not in str(exc.value)


def test_bad_paths(tmp_path):
    (tmp_path / "big.json").write_bytes(b" " * (1024 * 1024 + 1))
    (tmp_path / "bin.toml").write_bytes(b"\xff\xfe\x00")
    for name, needle in (("big.json", "larger than 1 MiB"), ("bin.toml", "not UTF-8"), ("none.toml", "not found")):
        with pytest.raises(InferSimError, match=needle):
            read_hardware_file(tmp_path / name)[0]
    with pytest.raises(InferSimError, match=r"unknown hardware preset 'nope'.*or a \.toml"):
        resolve_hardware("nope")


def test_from_dict_suggests_and_requires():
    d = as_plain(HW_PRESETS["H100-SXM x8"])
    with pytest.raises(InferSimError, match="did you mean 'link_eff'"):
        HardwareSpec.from_dict({**d, "link_ef": 0.5})
    del d["bw_hbm_gbs"]
    with pytest.raises(InferSimError, match="missing field 'bw_hbm_gbs'"):
        HardwareSpec.from_dict(d)


# ----- presets as data files ------------------------------------------------------------------------
def test_every_preset_is_a_sourced_data_file():
    names = {tomlname.stem for tomlname in PRESET_DIR.glob("*.toml")}
    assert len(names) == len(HW_PRESETS) >= 15
    for name, h in HW_PRESETS.items():
        assert h.source.strip(), name
    for required in ("H200 2x8 (IB)", "H200 4x8 (IB)", "GB200 NVL72", "MI325X x8", "TPU v5p 4x4x4", "B200 2x8 (IB)"):
        assert required in HW_PRESETS


def test_gb200_nvl72_is_one_72_gpu_nvlink_domain():
    h = HW_PRESETS["GB200 NVL72"]
    assert (h.pes_per_cube, h.cubes_per_sip, h.n_sips, h.bw_intra_gbs) == (72, 1, 1, 900.0)
    assert h.tensor_rate("fp4") == 4.0 and MEASURED_MAX["GB200"][2] == 0.91


def test_multi_node_variants_repeat_their_base():
    for variant, base, n in (("H100-SXM 4x8 (IB)", "H100-SXM x8", 4), ("H200 2x8 (IB)", "H200 x8", 2),
                             ("B200 2x8 (IB)", "B200 x8", 2)):
        v, b = HW_PRESETS[variant], HW_PRESETS[base]
        assert v == replace(b, name=variant, n_sips=n, source=v.source)


def test_fp4_rate_and_efficiency():
    b200, h100 = HW_PRESETS["B200 x8"], HW_PRESETS["H100-SXM x8"]
    flops = np.array([1e12])
    assert b200.tensor_rate("fp4") == 4.0 and h100.tensor_rate("fp4") == 1.0
    assert b200.compute_efficiency(flops, "fp4")[0] == pytest.approx(0.43)         # NVFP4 3,864 / 9,000
    assert h100.compute_efficiency(flops, "fp4")[0] == h100.compute_efficiency(flops, "bf16")[0]
    no_fp4_table = replace(b200, compute_eff_fp4=())
    assert no_fp4_table.compute_efficiency(flops, "fp4")[0] == b200.compute_efficiency(flops, "fp8")[0]


# ----- CLI ------------------------------------------------------------------------------------------
def run_cli(*args, timeout=120):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    return subprocess.run([sys.executable, "-m", "infersim.cli", *args], capture_output=True, text=True,
                          timeout=timeout, env=env, cwd=ROOT)


def test_cli_simulate_with_a_hardware_file(capsys):
    assert main(["simulate", "--hw", str(EXAMPLE), "--tp", "8", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["pes_used"] == 8 and out["total_latency_ns"] > 0


def test_cli_codesign_with_a_hardware_file(capsys):
    assert main(["codesign", "--hw", str(EXAMPLE), "--depth", "two_stage", "--model", "Llama 3.1 8B",
                 "--s-kv", "8192", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["base_hw"] == "MyChip x8 x4"


def test_cli_nodes_scales_a_preset(capsys):
    assert main(["simulate", "--hw", "H100-SXM x8", "--nodes", "4", "--tp", "8", "--cp", "4", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["pes_used"] == 32


@pytest.mark.parametrize("value, needle", [("0", "argument --nodes: expected an integer in 1.."),
                                           ("two", "argument --nodes: expected an integer in 1..")])
def test_cli_bad_nodes_exit_2(value, needle):
    p = run_cli("simulate", "--hw", "H100-SXM x8", "--nodes", value)
    assert p.returncode == 2 and needle in p.stderr and "Traceback" not in p.stderr


def test_cli_presets_shows_how_a_file_was_read(capsys):
    assert main(["presets", "--hw", str(EXAMPLE), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["hardware"]
    assert rows["peak_tflops_f16"] == {"value": 1200.0, "from": "file"}
    assert rows["alpha_intra_ns"]["from"] == "file" and rows["link_eff"]["from"] == "default"
    assert main(["presets", "--hw", str(EXAMPLE)]) == 0
    assert "from eff_max_compute" in capsys.readouterr().out


def test_cli_bad_hardware_file_exits_2(tmp_path):
    bad = tmp_path / "chip.toml"
    bad.write_text('base = "H100-SXM x8"\nsource = "s"\nbw_hbm_gb = 1\n')
    p = run_cli("simulate", "--hw", str(bad))
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and "did you mean 'bw_hbm_gbs'" in p.stderr
