"""Issue #11, CLI and API edges: every bad input of the fuzz report (CLI flags, API arguments)
is one clean rejection. CLI: exit status 2, exactly one ``error:`` line naming the flag, no
traceback, no argparse ``usage:`` block, within 10 s. API: :class:`InferSimError` naming the field.
"""
import argparse
import math
import subprocess
import sys
import warnings
from dataclasses import replace

import pytest

from infersim import InferSimError, InferSimWarning, Workload
from infersim.cli import cmd_presets, main
from infersim.cli.common import finite_float, int_in, output_file, positive_int
from infersim.hardware_presets import GENERIC_SIP
from infersim.specs.hardware import HardwareSpec

DIGITS_400 = "9" * 400
DIGITS_5000 = "9" * 5000          # beyond Python's int-to-str limit (4300 digits)


def run_cli(*args, timeout=10):
    """The CLI as a new user runs it: a fresh interpreter; ``timeout`` proves it does not hang."""
    return subprocess.run([sys.executable, "-m", "infersim.cli", *args], capture_output=True,
                          text=True, timeout=timeout, check=False)


def assert_one_error_line(p, needle):
    lines = p.stderr.splitlines()
    assert p.returncode == 2, p.stderr
    assert len(lines) == 1, p.stderr          # not even a blank line left by a progress bar
    assert lines[0].startswith("error: "), lines[0]
    assert needle in lines[0], lines[0]
    for text in (p.stdout, p.stderr):
        assert "Traceback" not in text and "usage:" not in text


CLI_CASES = [
    # 400-digit integers used to reach the cost model and die with OverflowError
    (["simulate", "--s-kv", DIGITS_400], "--s-kv"),
    (["simulate", "--batch", DIGITS_400], "--batch"),
    (["explore", "--s-kv", DIGITS_400], "--s-kv"),
    (["codesign", "--batch", DIGITS_400], "--batch"),
    (["simulate", "--s-kv", DIGITS_5000], "--s-kv"),
    (["simulate", "--tp", DIGITS_400], "--tp"),
    # argparse used to print its usage block for these
    (["simulate", "--tp", "eight"], "argument --tp: expected an integer"),
    (["simulate", "--s-kv", "nan"], "argument --s-kv: expected an integer"),
    (["simulate", "--pp", "2.5"], "--pp"),
    (["simulate", "--dp", "0"], "--dp"),
    (["simulate", "--cp", "-2"], "--cp"),
    (["simulate", "--ep", "inf"], "--ep"),
    (["simulate", "--s-q", "abc", "--mode", "prefill"], "--s-q"),
    (["simulate", "--s-kv", "-5"], "--s-kv"),
    (["simulate", "--batch", "0"], "--batch"),
    (["simulate", "--s-kv", str(2**31 + 1)], "--s-kv"),
    (["explore", "--top", "2.5"], "--top"),
    (["explore", "--top", "0"], "--top"),
    (["codesign", "--top-k", "nan"], "--top-k"),
    (["codesign", "--top-k", "-1"], "--top-k"),
    (["simulate", "--s-kv"], "--s-kv"),
    (["simulate", "--no-such-flag"], "unrecognized arguments"),
    (["no-such-command"], "invalid choice"),
    ([], "required: command"),
    # ui --port out of range used to crash inside Streamlit's bind()
    (["ui", "--port", "70000"], "argument --port: expected an integer in 1..65535"),
    (["ui", "--port", "-1"], "--port"),
    (["ui", "--port", "0"], "--port"),
    (["ui", "--port", "http"], "--port"),
    # errors raised while a sweep runs (stderr a pipe: no progress bar, so no stray blank line)
    (["explore", "--objective", "fast"], "unknown objective 'fast'"),
    (["codesign", "--objective", "fast"], "unknown objective 'fast'"),
    (["codesign", "--mode", "prefill", "--s-q", "10", "--s-kv", "5"], "s_q"),
    # output paths are checked before the (possibly long) run, not after it
    (["validate", "--write-docs", "/nonexistent/dir/v.md"], "--write-docs"),
    (["explore", "--csv", "/nonexistent/dir/out.csv"], "--csv"),
]


@pytest.mark.parametrize("args, needle", CLI_CASES, ids=lambda v: " ".join(v)[:40] if isinstance(v, list) else None)
def test_cli_bad_input_is_one_error_line(args, needle):
    assert_one_error_line(run_cli(*args), needle)


@pytest.mark.parametrize("cmd, flag", [("validate", "--write-docs"), ("codesign", "--csv"),
                                        ("explore", "--csv")])
def test_cli_output_path_naming_a_directory(tmp_path, cmd, flag):
    p = run_cli(cmd, flag, str(tmp_path))
    assert_one_error_line(p, "is a directory")


def test_cli_good_input_still_runs():
    p = run_cli("simulate", "--tp", "8", "--s-kv", "+0131072", "--json")
    assert p.returncode == 0 and p.stderr == ""
    assert '"pes_used": 8' in p.stdout


# ----- in-process: exit statuses, warnings, unexpected exceptions ------------------------------
def test_main_returns_2_for_argparse_errors_and_0_for_help(capsys):
    assert main(["simulate", "--tp", "eight"]) == 2
    assert capsys.readouterr().err == "error: argument --tp: expected an integer in 1..1048576, got 'eight'\n"
    assert main(["-h"]) == 0
    assert "usage:" in capsys.readouterr().out      # help still prints the usage, on stdout


def test_infersim_warning_is_one_warning_line(monkeypatch, capsys):
    def run(args):
        warnings.warn("s_kv 1000000 exceeds the model's max_position 131072", InferSimWarning)
        print("result")
        return 0

    monkeypatch.setattr(cmd_presets, "run", run)
    assert main(["presets"]) == 0
    out = capsys.readouterr()
    assert out.out == "result\n"
    assert out.err == "warning: s_kv 1000000 exceeds the model's max_position 131072\n"


def test_unexpected_exception_is_one_internal_error_line(monkeypatch, capsys):
    def run(args):
        raise RuntimeError("boom\nsecond line")

    monkeypatch.setattr(cmd_presets, "run", run)
    monkeypatch.delenv("INFERSIM_DEBUG", raising=False)
    assert main(["presets"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith("error: internal error: RuntimeError: boom second line (please report")
    monkeypatch.setenv("INFERSIM_DEBUG", "1")               # developers get the traceback
    with pytest.raises(RuntimeError, match="boom"):
        main(["presets"])


def test_typed_argument_parsers():
    assert int_in(1, 65535)("8501") == 8501
    assert positive_int(8)(" +0008 ") == 8
    for bad in ("", "eight", "nan", "1e3", "2.5", "-1", "0", "9", DIGITS_5000):
        with pytest.raises(argparse.ArgumentTypeError, match=r"expected an integer in 1\.\.8"):
            positive_int(8)(bad)
    assert finite_float("2.5") == 2.5
    for bad in ("nan", "inf", "-Infinity", "two"):
        with pytest.raises(argparse.ArgumentTypeError, match="expected a"):
            finite_float(bad)
    with pytest.raises(argparse.ArgumentTypeError, match="expected a file path"):
        output_file("")


# ----- API ---------------------------------------------------------------------------------------
API_CASES = [
    (lambda: Workload(s_kv=10**400), "s_kv must be an integer in 1..2147483648"),
    (lambda: Workload(s_kv=10**5000), "s_kv"),
    (lambda: Workload(batch=10**400), "batch"),
    (lambda: Workload(s_kv=2**31 + 1), "s_kv"),
    (lambda: Workload(mode="prefill", s_kv=8, s_q=10**400), "s_q"),
    (lambda: replace(GENERIC_SIP, fp8_speedup="2"), "fp8_speedup must be a finite number"),
    (lambda: replace(GENERIC_SIP, pe_hbm_gb=10**400), "pe_hbm_gb must be a finite number"),
    (lambda: replace(GENERIC_SIP, bw_hbm_gbs=math.nan), "bw_hbm_gbs"),
    (lambda: replace(GENERIC_SIP, name=5), "hardware name"),
    (lambda: replace(GENERIC_SIP, compute_eff=(("big", 0.5),)), "compute_eff sizes and efficiencies"),
    (lambda: replace(GENERIC_SIP, compute_eff=((1e6, math.nan),)), "compute_eff"),
    (lambda: replace(GENERIC_SIP, memory_eff=((math.inf, 0.5),)), "memory_eff"),
    (lambda: replace(GENERIC_SIP, compute_eff=[(1e6, 0.5)]), "compute_eff must be a tuple"),
    (lambda: replace(GENERIC_SIP, compute_eff=((1e6,),)), "compute_eff must be a tuple"),
    (lambda: replace(GENERIC_SIP, compute_eff=5), "compute_eff must be a tuple"),
    (lambda: replace(GENERIC_SIP, memory_eff_fp8=((1e6, None),)), "memory_eff_fp8"),
    (lambda: HardwareSpec.from_dict({**GENERIC_SIP.to_dict(), "compute_eff": [["big", 0.5]]}),
     "compute_eff"),
    (lambda: HardwareSpec.from_dict({**GENERIC_SIP.to_dict(), "memory_eff": [[1e6]]}), "memory_eff"),
]


@pytest.mark.parametrize("make, needle", API_CASES)
def test_api_bad_argument_raises_infersim_error(make, needle):
    with pytest.raises(InferSimError) as exc:
        make()
    assert needle in str(exc.value)
    assert "\n" not in str(exc.value) and len(str(exc.value)) < 300


def test_auto_explore_rejects_fractional_top():
    from infersim.auto_explore import auto_explore
    from infersim.model_presets import PRESETS

    with pytest.raises(InferSimError, match="top must be an integer"):
        auto_explore(PRESETS["Llama 3.1 8B"].model, GENERIC_SIP, Workload(s_kv=4096), top=2.5)


def test_upper_bounds_are_inclusive():
    assert Workload(s_kv=2**31, batch=2**31).s_kv == 2**31
    assert replace(GENERIC_SIP, compute_eff=((1e6, 0.5), (1e9, 1))).compute_eff[1] == (1e9, 1)
