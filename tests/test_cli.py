import json
import subprocess
import sys

import pytest

from infersim.cli import main


def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "infersim.cli", *args], capture_output=True, text=True)


def test_simulate_json(capsys):
    assert main(["simulate", "--tp", "8", "--mode", "decode", "--s-kv", "131072", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["fits"] is True and out["pes_used"] == 8
    assert out["total_latency_ns"] == pytest.approx(sum(out["breakdown_ns"].values()))


def test_head_dtype_flag(capsys):
    """An fp8 checkpoint keeps a 16-bit LM head unless --head-dtype says otherwise: Llama 3.1 8B's
    head is 128,256 x 4,096 values, so an fp8 one saves 525 MB of weights and of each decode step."""
    base = ["simulate", "--model", "Llama 3.1 8B", "--weight-dtype", "fp8", "--tp", "1", "--s-kv", "1024", "--json"]
    got = {}
    for head in (None, "fp8"):
        assert main(base + ([] if head is None else ["--head-dtype", head])) == 0
        got[head] = json.loads(capsys.readouterr().out)
    saved = got[None]["mem_breakdown_bytes"]["weights"] - got["fp8"]["mem_breakdown_bytes"]["weights"]
    assert saved == pytest.approx(128256 * 4096 * 2 * 1.0)        # embedding and head, 1 byte each saved
    assert got[None]["op_bytes"]["lm_head"] - got["fp8"]["op_bytes"]["lm_head"] == pytest.approx(128256 * 4096, rel=1e-3)
    assert got["fp8"]["total_latency_ns"] < got[None]["total_latency_ns"]
    assert main(base + ["--head-dtype", "fp7"]) == 2
    assert 'valid choices: "" (default), fp32' in capsys.readouterr().err


def test_simulate_table(capsys):
    assert main(["simulate", "--model", "Llama 3.1 8B", "--hw", "H100-SXM x8", "--tp", "2"]) == 0
    out = capsys.readouterr().out
    assert "Latency" in out and "fits" in out and "hbm" in out


def test_presets_json(capsys):
    assert main(["presets", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert "Llama 3.1 70B" in out["models"] and "H100-SXM x8" in out["hardware"]


@pytest.mark.parametrize("args, needle", [
    (["simulate", "--model", "nope"], "unknown model preset"),
    (["simulate", "--hw", "nope"], "unknown hardware preset"),
    (["simulate", "--tp", "3"], "valid tp: 1, 2, 4, 8"),
    (["simulate", "--s-kv", "-5"], "argument --s-kv: expected an integer in 1.."),
    (["simulate", "--kv-shard-mode", "rows"], "valid choices: head, seq, hybrid"),
    (["simulate", "--config", "/nonexistent/config.json"], "config.json not found"),
])
def test_bad_input_exits_2_without_traceback(args, needle):
    p = run_cli(*args)
    assert p.returncode == 2
    assert needle in p.stderr
    assert "Traceback" not in p.stderr
    assert len(p.stderr.strip().splitlines()) == 1


def test_malformed_config_file(tmp_path):
    bad = tmp_path / "config.json"
    bad.write_text("{oops")
    p = run_cli("simulate", "--config", str(bad))
    assert p.returncode == 2 and "malformed config.json" in p.stderr and "Traceback" not in p.stderr
