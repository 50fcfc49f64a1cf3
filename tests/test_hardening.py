"""Issue #24 (correctness and hardening): every case of the stress report replayed. A CLI case
either ends with exit status 2 and exactly one ``error:`` line on stderr (no traceback) in a
fresh interpreter within 10 s and under 1 GB, or gives the correct answer (asserted). The API
cases raise :class:`InferSimError` (one line), never AttributeError / TypeError.

Not here: items 1 (pipeline memory of the heaviest stage: cost/pipeline.py, the cost model's
physics) and 2 (tok/$ monotone in every price: the economics' anchoring), left to their owners.
"""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from infersim import InferSimError, InferSimWarning
from infersim.hardware_presets import HW_PRESETS
from infersim.model_presets import PRESETS
from infersim.search.space import MAX_SPACE_CONFIGS, _ceil_quotients, microbatch_options
from infersim.serving import Request, sla_search
from infersim.specs.hardware import HardwareSpec
from infersim.specs.workload import Workload

PRESET_DIR = os.path.join(os.path.dirname(__file__), "..", "src", "infersim", "presets", "hardware")
H100_FILE = os.path.join(PRESET_DIR, "10_h100_sxm_x8.toml")
GB = 2**30


def run_cli(*args, cwd=None, timeout=10):
    """The CLI in a fresh interpreter: (exit status, stdout, stderr, the child's own peak RSS in
    bytes); the timeout is a hang guard (a hang raises TimeoutExpired), not a speed assertion.
    The peak is the child's VmHWM, read every 10 ms while it runs: its rusage maxrss would carry
    this (large) pytest process's, which Linux keeps across the child's exec."""
    import threading
    import time

    p = subprocess.Popen([sys.executable, "-m", "infersim", *args], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, cwd=cwd)
    streams = {"out": [], "err": []}
    readers = [threading.Thread(target=lambda f=f, k=k: streams[k].append(f.read()))
               for f, k in ((p.stdout, "out"), (p.stderr, "err"))]
    for t in readers:
        t.start()
    end, peak = time.monotonic() + timeout, 0
    while True:
        peak = max(peak, _hwm_bytes(p.pid))
        pid, status, _ = os.wait4(p.pid, os.WNOHANG)
        if pid:
            break
        if time.monotonic() > end:
            p.kill()
            os.wait4(p.pid, 0)
            p.returncode = -9
            raise subprocess.TimeoutExpired(p.args, timeout)
        time.sleep(0.01)
    p.returncode = os.waitstatus_to_exitcode(status)
    for t in readers:
        t.join()
    return p.returncode, "".join(streams["out"]), "".join(streams["err"]), peak


def _hwm_bytes(pid: int) -> int:
    """Peak resident memory of a running process (its VmHWM; 0 once it has exited)."""
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def assert_one_error(result, needle: str) -> None:
    rc, out, err, peak = result
    lines = err.splitlines()
    assert rc == 2, err
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    assert needle in lines[0], lines[0]
    assert "Traceback" not in out + err and "\x1b" not in err
    assert peak < GB, f"{peak / GB:.2f} GB"


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """The malformed inputs of the report, written once."""
    d = tmp_path_factory.mktemp("hardening")
    h100 = open(H100_FILE, encoding="utf-8").read()
    own = "".join(line for line in h100.splitlines(True) if not line.startswith("part"))  # a user's file
    (d / "bomb.yaml").write_text("a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [" + ", ".join([f"*{chr(97 + i)}"] * 9) + "]\n" for i in range(9)))
    (d / "shadow.yaml").write_text("root:$6$saltsalt$hashhashhash: 19000\n")
    (d / "million.toml").write_text(own.replace("n_sips = 1\n", "n_sips = 125000\n"))
    (d / "latency.toml").write_text(own.replace("kernel_latency_ns = 2500.0", "kernel_latency_ns = 1e308"))
    (d / "tiny.json").write_text(json.dumps({"base": "H100-SXM x8", "source": "s", "peak_tflops_f16": 1e-300}))
    (d / "ansi.json").write_text(json.dumps({"base": "H100-SXM x8", "source": "s",
                                             "name": "evil [/] \x1b[31mred\x1b]0;t\x07"}))
    (d / "copy.toml").write_text(h100)                                      # a copy of a shipped preset
    (d / "nosource.toml").write_text("".join(line for line in own.splitlines(True) if not line.startswith("source")))
    (d / "bom.toml").write_bytes(b"\xef\xbb\xbf" + own.encode())
    os.mkfifo(d / "fifo.json")
    return d


# (case id, argv, the one error line must contain)
CLI_ERRORS = [
    ("explore batch 1e9", ["explore", "--batch", "1000000000", "--s-kv", "4096"], "exceeds the limit of 2,000,000"),
    ("explore batch 1e6", ["explore", "--batch", "1000000", "--s-kv", "4096"], "narrow it"),
    ("serve 64 nodes", ["serve", "--nodes", "64", "--tpot-ms", "30"], "exceeds the limit of 2,000,000"),
    ("serve 131072 nodes", ["serve", "--nodes", "131072"], "at most 1,048,576"),
    ("explore 10^6 PEs", ["explore", "--hw", "{d}/million.toml", "--s-kv", "4096"], "exceeds the limit"),
    ("grid n_sips 1..300", ["codesign", "--depth", "custom", "--grid", "n_sips=1..300"], "bad --grid values"),
    ("grid 300 n_sips", ["codesign", "--depth", "custom", "--grid",
                         "n_sips=" + ",".join(map(str, range(1, 301)))], "above the limit of 64"),
    ("max-candidates 2^31", ["codesign", "--max-candidates", "2147483648"], "--max-candidates: expected an integer"),
    ("sla grid 117,649", ["codesign", "--tpot-ms", "50", "--depth", "custom", "--grid",
                          ";".join(f"{k}=1,2,3,4,5,6,7" for k in ("pe_hbm_gb", "bw_hbm_gbs", "peak_tflops_f16",
                                                                   "bw_intra_gbs", "bw_inter_gbs", "bw_intersip_gbs"))],
     "117,649 hardware candidates, above the limit of 10,000"),
    ("sla --design-point", ["codesign", "--tpot-ms", "50", "--design-point", "base"], "--design-point only applies"),
    ("sla --target", ["codesign", "--tpot-ms", "50", "--target", "3"], "--target only applies"),
    ("sla --mode", ["codesign", "--tpot-ms", "50", "--mode", "prefill"], "--mode only applies"),
    ("sla --s-kv", ["codesign", "--tpot-ms", "50", "--s-kv", "4096"], "--s-kv only applies"),
    ("step --isl", ["codesign", "--isl", "100"], "--isl only applies to the SLA"),
    ("objective ''", ["codesign", "--objective", ""], "unknown objective ''"),
    ("sla objective ''", ["codesign", "--objective", "", "--tpot-ms", "50"], "unknown objective ''"),
    ("grid 1e-300", ["codesign", "--depth", "custom", "--grid", "peak_tflops_f16=1e-300"],
     "peak_tflops_f16 values must be numbers in 0.001..1e+12"),
    ("design point 1e-300", ["codesign", "--design-point", "peak_tflops_f16=1e-300"],
     "peak_tflops_f16 values must be numbers in 0.001..1e+12"),
    ("kernel latency 1e308", ["simulate", "--hw", "{d}/latency.toml", "--s-kv", "4096"],
     "kernel_latency_ns must be in 0..1e+12"),
    ("peak 1e-300 file", ["simulate", "--hw", "{d}/tiny.json", "--s-kv", "4096"], "peak_tflops_f16 must be in"),
    ("yaml bomb simulate", ["simulate", "--hw", "{d}/bomb.yaml"], "YAML aliases"),
    ("yaml bomb presets", ["presets", "--hw", "{d}/bomb.yaml"], "YAML aliases"),
    ("not a hardware file", ["simulate", "--hw", "{d}/shadow.yaml"], "does not look like a hardware file"),
    ("rerun fifo", ["rerun", "{d}/fifo.json"], "is not a regular file"),
    ("rerun /dev/zero", ["rerun", "/dev/zero"], "is not a regular file"),
    ("--out rows.csv", ["explore", "--s-kv", "4096", "--out", "{d}/rows.csv"], "--out writes Parquet"),
    ("non-divisible TP", ["simulate", "--model", "Llama 3.1 8B", "--s-kv", "4096", "--tp", "3"],
     "tp (3) must divide n_heads (32)"),
    ("negative context", ["simulate", "--s-kv", "-5"], "--s-kv: expected an integer"),
    ("empty model name", ["simulate", "--model", "", "--s-kv", "4096"], "unknown model preset ''"),
    ("nodes 1_000", ["simulate", "--nodes", "1_000", "--s-kv", "4096"], "--nodes: expected an integer"),
]


@pytest.mark.parametrize("argv, needle", [c[1:] for c in CLI_ERRORS], ids=[c[0] for c in CLI_ERRORS])
def test_cli_case_is_one_error_line(files, argv, needle):
    assert_one_error(run_cli(*[a.replace("{d}", str(files)) for a in argv]), needle)


def test_a_secret_file_is_not_echoed(files):
    rc, out, err, _ = run_cli("simulate", "--hw", f"{files}/shadow.yaml")
    assert "hash" not in err and "root" not in err


def test_hardware_file_names_are_printed_as_text(files):
    """ANSI escapes stripped, rich markup ("[/]") printed as text, not a MarkupError."""
    rc, out, err, _ = run_cli("simulate", "--hw", f"{files}/ansi.json", "--s-kv", "4096", "--tp", "8")
    assert rc == 0, err
    assert "evil [/] red" in out and "\x1b" not in out and "\x07" not in out


@pytest.mark.parametrize("name, warning", [("copy.toml", ""), ("nosource.toml", "no 'source'"), ("bom.toml", "")])
def test_a_users_first_hardware_file_loads(files, name, warning):
    """A copy of a shipped preset (its ``part`` names the kind of part: docs/hardware.md), one
    without ``source``, one with a UTF-8 BOM: they load (a warning names what is missing) and give
    the preset's topology."""
    rc, out, err, _ = run_cli("simulate", "--hw", f"{files}/{name}", "--s-kv", "4096", "--tp", "8", "--json")
    assert rc == 0, err
    lines = err.splitlines()
    if warning:
        assert len(lines) == 1 and lines[0].startswith("warning: ") and warning in lines[0]
    else:
        assert lines == []
    assert json.loads(out)["pes_used"] == 8


def test_presets_into_a_closed_pipe_exits_0():
    """``infersim presets | head -1``: the reader leaving is not a failure."""
    p = subprocess.Popen([sys.executable, "-m", "infersim", "presets"], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    p.stdout.readline()
    p.stdout.close()
    assert p.wait(timeout=10) == 0
    assert p.stderr.read() == b""


def test_overwriting_an_output_file_says_so(files):
    out = files / "rows.csv"
    out.write_text("old")
    rc, _, err, _ = run_cli("explore", "--s-kv", "4096", "--top", "1", "--csv", str(out))
    assert rc == 0 and "will be overwritten" in err and len(err.splitlines()) == 1
    assert out.read_text().startswith("rank,")


def test_sla_codesign_writes_its_csv(files):
    out = files / "sla.csv"
    rc, _, err, _ = run_cli("codesign", "--model", "Llama 3.1 8B", "--tpot-ms", "50", "--isl", "512", "--osl",
                            "128", "--depth", "custom", "--grid", "bw_hbm_gbs=2000,4000", "--csv", str(out),
                            timeout=60)
    assert rc == 0, err
    lines = out.read_text().splitlines()
    assert lines[0].startswith("hw_pe_hbm_gb,") and len(lines) == 3      # header + 2 candidates


# ----- the search space: exact micro-batch options, bounded size ---------------------------------
def test_ceil_quotients_equal_the_brute_force():
    for b in list(range(1, 600)) + [997, 1024, 4099]:
        assert _ceil_quotients(b).tolist() == sorted({-(-b // q) for q in range(1, b + 1)})
    assert len(_ceil_quotients(10**9)) == 63245          # 2·√b values, not a loop over 10^9


def test_microbatch_options_unchanged_for_prefill_chunks():
    wl = Workload("prefill", s_kv=1024, batch=6)
    assert microbatch_options(6, 2, wl) == [1, 2, 3, 6, 12, 24, 48]   # ⌈6/q⌉ plus b·c, c = 2, 4, 8


def test_space_cap_is_an_error_before_allocation():
    from infersim.search.space import parallelism_space

    with pytest.raises(InferSimError, match=f"{MAX_SPACE_CONFIGS:,}"):
        parallelism_space(PRESETS["Llama 3.1 8B"].model, HW_PRESETS["H100-SXM 8x8 (IB)"],
                          Workload("decode", s_kv=4096, batch=10**9))


# ----- serving: the batch cap is per replica ----------------------------------------------------
def test_batch_cap_is_per_replica(llama8b):
    """DP8 under a cap of 4 sequences per engine holds 32, not 4; the limit names the cap."""
    from infersim.serving.sla import max_batch
    from infersim.specs.parallel import Parallelism, ParArrays

    hw, req = HW_PRESETS["H100-SXM x8"], Request(isl=512, osl=128)
    configs = ParArrays.from_configs([Parallelism(tp=1, dp=8), Parallelism(tp=8)],
                                     Workload("decode", s_kv=640, batch=8))
    assert max_batch(llama8b, hw, configs, req, cap=4).tolist() == [32, 4]
    r = sla_search(llama8b, hw, req, batch_cap=4, disaggregated=False)
    assert r.best.batch == 4 * r.best.par.dp
    assert r.limit.startswith("batch cap: 4 sequences per replica")


# ----- API edges: one-line InferSimError, names accepted where specs are expected ------------------
def _explore_result():
    from infersim.auto_explore import auto_explore
    return auto_explore(PRESETS["Llama 3.1 8B"].model, HW_PRESETS["H100-SXM x8"], Workload("decode", 4096))


class _NoneExecutor:
    def submit(self, *a, **kw):
        return None


class _IntExecutor:
    class _F:
        def result(self):
            return 3

    def submit(self, *a, **kw):
        return self._F()


def _joint(**kw):
    from infersim.auto_hardware import joint_explore
    return joint_explore(PRESETS["Llama 3.1 8B"].model, s_kv=4096, sensitivity=False, **kw)


def _sla(model="Llama 3.1 8B", hw="H100-SXM x8", **kw):
    return sla_search(model, hw, Request(isl=512, osl=128), tpot_ms=50, disaggregated=kw.pop("disagg", False), **kw)


def _codesign_sla(model, **kw):
    from infersim.codesign.sla import codesign_sla
    return codesign_sla(model, Request(isl=512, osl=128), tpot_ms=50, **kw)


def _evaluate(batches):
    from infersim.serving.model import evaluate_serving
    from infersim.serving.sla import serving_space
    m, hw, req = PRESETS["Llama 3.1 8B"].model, HW_PRESETS["H100-SXM x8"], Request(isl=512, osl=128)
    return evaluate_serving(m, hw, serving_space(m, hw, req).take(np.arange(3)), batches, req)


API_ERRORS = [
    ("to_parquet(None)", lambda: _explore_result().to_parquet(None), "needs a file path"),
    ("executor submit None", lambda: _joint(executor=_NoneExecutor(), n_slices=2), "not a future"),
    ("executor result int", lambda: _joint(executor=_IntExecutor(), n_slices=2), "not the SliceResult"),
    ("sla tuple model", lambda: _sla(model=(PRESETS["Llama 3.1 8B"].model,)), "model must be a ModelSpec"),
    ("sla tuple hardware", lambda: _sla(hw=(1, 2)), "hardware must be a HardwareSpec"),
    ("sla batch_cap=True", lambda: _sla(batch_cap=True), "batch_cap must be an integer"),
    ("sla disaggregated='yes'", lambda: _sla(disagg="yes"), "disaggregated must be true or false"),
    ("codesign_sla tuple", lambda: _codesign_sla((1,)), "model must be a ModelSpec"),
    ("codesign_sla economics", lambda: _codesign_sla("Llama 3.1 8B", economics="cheap"), "economics must be"),
    ("joint economics", lambda: _joint(economics="cheap"), "economics must be"),
    ("evaluate_serving strings", lambda: _evaluate("x"), "batches must be integers"),
    ("evaluate_serving zero", lambda: _evaluate([1, 0, 2]), "batches must be integers"),
    ("hardware name with ESC", lambda: HardwareSpec(**{**HW_PRESETS["H100-SXM x8"].to_dict(), "name": "a\x1b[31m"}),
     "must not contain control characters"),
    ("knob 1e-300", lambda: HW_PRESETS["H100-SXM x8"].with_knobs(peak_tflops_f16=1e-300), "must be in 0.001..1e+12"),
    ("max_candidates 10^12", lambda: _joint(max_candidates=10**12), "max_candidates must be an integer in 1..1,000,000"),
]


@pytest.mark.parametrize("call, needle", [c[1:] for c in API_ERRORS], ids=[c[0] for c in API_ERRORS])
def test_api_edge_is_a_one_line_error(call, needle):
    with pytest.raises(InferSimError) as exc:
        call()
    assert needle in str(exc.value) and "\n" not in str(exc.value)


def test_api_accepts_preset_names(llama8b):
    by_name = _sla("Llama 3.1 8B", "H100-SXM x8")
    by_spec = _sla(llama8b, HW_PRESETS["H100-SXM x8"])
    assert (by_name.best.batch, by_name.best.tok_s) == (by_spec.best.batch, by_spec.best.tok_s)
    assert _evaluate([1, 2, 4])["batch"].tolist() == [1.0, 2.0, 4.0]      # a list batch works


# ----- exports: re-run under the caps of the front end ------------------------------------------
def _sla_export(**inputs) -> str:
    from infersim.exports import FORMAT, FORMAT_VERSION
    m, hw = PRESETS["Llama 3.1 8B"].model, HW_PRESETS["H100-SXM x8"]
    d = {"format": FORMAT, "format_version": FORMAT_VERSION, "kind": "codesign_sla", "runtime": "cuda-graphs",
         "model": m.to_dict(), "hardware": hw.to_dict(), "request": {"isl": 512, "osl": 128},
         "ttft_ms": None, "tpot_ms": 50.0, "objective": "tok_s_per_usd", "depth": "coarse", "grid": None,
         "batching": "continuous", **inputs}
    return json.dumps(d, default=list)


def test_ui_reruns_exports_under_its_own_caps():
    from infersim.exports import rerun

    with pytest.raises(InferSimError, match="the UI runs at most 1,000 candidates"):
        rerun(_sla_export(max_candidates=10**12), "x.json", front_end="ui")
    with pytest.raises(InferSimError, match="max_candidates must be an integer in 1..10,000"):
        rerun(_sla_export(max_candidates=10**12), "x.json")          # the CLI: the library's limit
    with pytest.raises(InferSimError, match="117,649 hardware candidates"):
        rerun(_sla_export(depth="custom", grid={k: [1, 2, 3, 4, 5, 6, 7] for k in (
            "pe_hbm_gb", "bw_hbm_gbs", "peak_tflops_f16", "bw_intra_gbs", "bw_inter_gbs", "bw_intersip_gbs")}),
            "x.json", front_end="ui")


def test_export_with_string_flag_is_refused():
    from infersim.exports import FORMAT, FORMAT_VERSION, rerun
    m, hw = PRESETS["Llama 3.1 8B"].model, HW_PRESETS["H100-SXM x8"]
    d = {"format": FORMAT, "format_version": FORMAT_VERSION, "kind": "serve", "runtime": "cuda-graphs",
         "model": m.to_dict(), "hardware": hw.to_dict(), "request": {"isl": 512, "osl": 128}, "ttft_ms": None,
         "tpot_ms": 50.0, "objective": "tok_s_per_pe", "batching": "continuous", "chunk_tokens": 2048,
         "batch_cap": 2048, "disaggregated": "yes"}
    with pytest.raises(InferSimError, match="disaggregated must be true or false"):
        rerun(json.dumps(d, default=list), "x.json")


# ----- loaders ----------------------------------------------------------------------------------
def test_hardware_text_with_bom_and_warning_matches_the_cli_loader(files):
    """The UI's upload path and the CLI's file path read the same bytes the same way."""
    from infersim.presets.hardware_presets import read_hardware_file, spec_from_text

    with pytest.warns(InferSimWarning, match="no 'source'"):
        a = spec_from_text(b"\xef\xbb\xbf" + (files / "nosource.toml").read_bytes(), "nosource.toml")
    with pytest.warns(InferSimWarning, match="no 'source'"):
        b = read_hardware_file(files / "nosource.toml")[0]
    assert a == b and a.n_pes == 8
    c = spec_from_text(b"\xef\xbb\xbf" + (files / "copy.toml").read_bytes(), "copy.toml")
    assert c == read_hardware_file(files / "copy.toml")[0]


def test_numpy_integer_degrees_give_a_plain_json_result():
    """A notebook that builds its configs from NumPy arrays passes np.int64 degrees: the result
    carries plain ints (its config and PE count) and its dict serialises to JSON."""
    from infersim import Parallelism, Workload, simulate

    m, hw = PRESETS["Llama 3.1 8B"].model, HW_PRESETS["H100-SXM x8"]
    wl = Workload("decode", s_kv=4096, batch=4)
    r = simulate(m, hw, Parallelism(tp=np.int64(4), dp=np.int64(2)), wl)
    assert type(r.par.tp) is int and type(r.pes_used) is int and r.pes_used == 8
    d = json.loads(json.dumps(r.to_dict()))
    assert d["parallelism"]["tp"] == 4 and d["pes_used"] == 8
    assert r.total_latency_ns == simulate(m, hw, Parallelism(tp=4, dp=2), wl).total_latency_ns
