"""Stress the CLI with random malformed input (issue 24) and count what goes wrong.

    PYTHONPATH=src python bench/stress_cli.py [--n 200] [--seed 0] [--show]

Every case runs ``python -m infersim ...`` in a fresh interpreter and is classified:

* traceback   a Python traceback, an ``internal error`` line (exit 1) or any exit status but 0/2;
* silent      input that must be refused (an unknown preset, a negative size, NaN, a TP that divides
              no head count, an impossible sweep, a malformed file) exits 0 without an ``error:``
              or ``warning:`` line, or a run's JSON answer holds NaN/inf;
* hang        still running after 10 s (killed);
* blow-up     peak RSS above 1 GB (the child also runs under a 3 GB address-space limit);
* messy       a refusal that is not exactly one ``error:`` line (exit 2).

Prints the counts and, with ``--show``, every bad case. The target is 0 in every column.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import random
import resource
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, "..", "src")
PRESET_HW = os.path.join(SRC, "infersim", "presets", "hardware", "10_h100_sxm_x8.toml")
TIMEOUT_S = 10
RSS_LIMIT = 1 << 30
LLAMA = {"model_type": "llama", "hidden_size": 1024, "intermediate_size": 2816, "num_attention_heads": 16,
         "num_key_value_heads": 4, "num_hidden_layers": 8, "vocab_size": 32000,
         "max_position_embeddings": 1 << 20}
BAD_NUMBERS = ["-1", "0", "nan", "inf", "-inf", "1e308", "1.5", "", " ", "eight", "9" * 400,
               str(2**64), "0x10", "1_000"]
BAD_TOML_VALUES = ["-1", "nan", "inf", "1e308", "1e-300", "0", '"x"', "[1, 2]", "2e9"]
HUGE_JSON = [-1, 0, 1e308, -1e308, 2**63, 10**400, 1e-300, "12", [1], {"a": 1}, None, True]


def _limit_memory():
    resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))


def run(argv: list[str], cwd: str) -> dict:
    """One CLI run: exit status (or "hang"), stdout, stderr, this child's peak RSS (bytes, from
    wait4), seconds."""
    env = dict(os.environ, PYTHONPATH=os.path.abspath(SRC))
    t0 = time.perf_counter()
    p = subprocess.Popen([sys.executable, "-m", "infersim", *argv], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, env=env, cwd=cwd, preexec_fn=_limit_memory)
    chunks = {"out": b"", "err": b""}

    def drain(name, pipe):
        chunks[name] = pipe.read()

    readers = [threading.Thread(target=drain, args=(n, f)) for n, f in (("out", p.stdout), ("err", p.stderr))]
    for t in readers:
        t.start()
    fired = []
    timer = threading.Timer(TIMEOUT_S, lambda: (fired.append(1), p.kill()))
    timer.start()
    _, status, usage = os.wait4(p.pid, 0)
    timer.cancel()
    p.returncode = os.waitstatus_to_exitcode(status)     # reaped here: Popen must not wait again
    for t in readers:
        t.join()
    return {"rc": "hang" if fired else p.returncode, "out": chunks["out"].decode(errors="replace"),
            "err": chunks["err"].decode(errors="replace"), "rss": usage.ru_maxrss * 1024,
            "s": time.perf_counter() - t0}


# ----- case generators: (argv, must_fail, files to write {name: bytes}) ---------------------------
def g_bad_preset(r: random.Random):
    junk = r.choice(["Llama 9 999B", "", " ", "h100", "[/]", "\x1b[31mred", "../../etc/passwd", "é" * 50,
                     "x" * 5000, "H100-SXM x8 "])
    flag = r.choice(["--model", "--hw", "--runtime"])
    cmd = r.choice(["simulate", "explore", "serve"])
    return [cmd, flag, junk, "--s-kv", "4096"] if cmd != "serve" else [cmd, flag, junk], True, {}


def g_bad_tp(r: random.Random):
    tp = r.choice([3, 5, 6, 7, 9, 12, 24, 48, 100, 1000])
    model = r.choice(["Llama 3.1 8B", "Llama 3.1 70B", "Mixtral 8x7B"])
    return ["simulate", "--model", model, "--s-kv", "4096", "--tp", str(tp)], True, {}


def g_bad_size(r: random.Random):
    flag = r.choice(["--s-kv", "--batch", "--nodes", "--tp", "--pp", "--dp", "--cp", "--ep", "--s-q"])
    cmd = r.choice(["simulate", "explore"]) if flag in ("--s-kv", "--batch", "--nodes", "--s-q") else "simulate"
    return [cmd, flag, r.choice(BAD_NUMBERS), "--s-kv", "4096"] if flag != "--s-kv" else \
        [cmd, flag, r.choice(BAD_NUMBERS)], True, {}


def g_bad_config(r: random.Random):
    cfg = dict(LLAMA)
    key = r.choice(list(cfg) + ["torch_dtype", "quantization_config", "text_config", "layer_types"])
    kind = r.choice(["value", "missing", "text"])
    if kind == "missing" and key in cfg and key != "model_type":
        del cfg[key]
        text, must = json.dumps(cfg), key in ("hidden_size", "num_hidden_layers", "vocab_size",
                                              "num_attention_heads", "intermediate_size")
    elif kind == "text":
        text, must = r.choice(["", "{", "[]", "null", "NaN", "\x00\x01", "[" * 100_000, '{"a": 1}' * 3]), True
    else:
        v = r.choice(HUGE_JSON)
        cfg[key] = v
        text = json.dumps(cfg) if not (isinstance(v, int) and abs(v) > 2**64) else \
            json.dumps(cfg).replace(str(v), "9" * 400)
        must = key != "max_position_embeddings" and v not in (None,)
        must = must and not (key in ("torch_dtype", "quantization_config", "text_config", "layer_types")
                             and v is None)
    return ["simulate", "--config", "cfg.json", "--s-kv", "4096"], None if not must else True, \
        {"cfg.json": text.encode("utf-8", errors="replace")}


def g_bad_hw_file(r: random.Random):
    text = open(PRESET_HW, encoding="utf-8").read()
    lines = [ln for ln in text.splitlines() if ln and not ln.startswith("#")]
    kind = r.choice(["value", "key", "bomb", "binary", "empty", "deep", "bom", "suffix"])
    name, must = "hw.toml", True
    if kind == "value":
        i = r.randrange(len(lines))
        key = lines[i].split("=")[0].strip()
        lines[i] = f"{key} = {r.choice(BAD_TOML_VALUES)}"
        body = "\n".join(lines)
        must = None if key in ("name", "source", "part", "family", "fp4_speedup", "tdp_w", "power_cap_w",
                               "ridge_overlap", "alpha_intra_ns", "alpha_inter_ns", "alpha_intersip_ns",
                               "kernel_latency_ns", "n_sips", "cubes_per_sip", "pes_per_cube") else True
    elif kind == "key":
        body = "\n".join(lines + [f"{r.choice(['pe_hbm_gbs', 'speed', 'usable_mem_frac', '[/]'])} = 1"])
        body = body.replace("[/] = 1", '"[/]" = 1')
    elif kind == "bomb":
        name = "hw.yaml"
        body = "a: &a [x,x,x,x,x,x,x,x,x]\n" + "".join(
            f"{chr(98 + i)}: &{chr(98 + i)} [" + ",".join([f"*{chr(97 + i)}"] * 9) + "]\n" for i in range(9))
    elif kind == "binary":
        return ["simulate", "--hw", name], True, {name: bytes(range(256)) * 64}
    elif kind == "empty":
        body = ""
    elif kind == "deep":
        name, body = "hw.json", "[" * 100_000 + "]" * 100_000
    elif kind == "bom":
        return ["simulate", "--hw", name, "--s-kv", "4096", "--tp", "8", "--json"], False, \
            {name: b"\xef\xbb\xbf" + text.encode()}
    else:
        name, body = "hw.txt", text
    return ["simulate", "--hw", name, "--s-kv", "4096"], must, {name: body.encode()}


def g_impossible_sweep(r: random.Random):
    k = r.randrange(7)
    if k == 0:
        return ["explore", "--batch", str(r.choice([10**6, 10**8, 10**9, 2**31])), "--s-kv", "4096"], True, {}
    if k == 1:
        return ["serve", "--nodes", str(r.choice([64, 256, 4096, 131072]))], True, {}
    if k == 2:
        n = r.choice([65, 100, 300])
        return ["codesign", "--depth", "custom", "--grid", "n_sips=" + ",".join(map(str, range(1, n + 1)))], True, {}
    if k == 3:
        return ["codesign", "--max-candidates", str(r.choice([2**31, 10**7, 10**12]))], True, {}
    if k == 4:
        vals = ",".join(str(i) for i in range(1, r.choice([8, 12]) + 1))
        knobs = ("pe_hbm_gb", "bw_hbm_gbs", "peak_tflops_f16", "bw_intra_gbs", "bw_inter_gbs", "bw_intersip_gbs")
        return ["codesign", "--tpot-ms", "50", "--depth", "custom", "--grid",
                ";".join(f"{kn}={vals}" for kn in knobs)], True, {}
    if k == 5:
        nodes = r.choice([8192, 125000])
        return ["explore", "--hw", "H100-SXM x8", "--nodes", str(nodes), "--s-kv", "4096"], True, {}
    return ["codesign", "--depth", "custom", "--grid", f"peak_tflops_f16={r.choice(['1e-300', '1e308', '-5', '0'])}"], \
        True, {}


GENERATORS = [g_bad_preset, g_bad_tp, g_bad_size, g_bad_config, g_bad_hw_file, g_impossible_sweep]


def _nonfinite(obj) -> bool:
    if isinstance(obj, float):
        return not math.isfinite(obj)
    if isinstance(obj, dict):
        return any(_nonfinite(v) for v in obj.values())
    if isinstance(obj, list):
        return any(_nonfinite(v) for v in obj)
    return False


def classify(res: dict, must_fail) -> str:
    err_lines = res["err"].splitlines()
    if res["rc"] == "hang":
        return "hang"
    if res["rss"] > RSS_LIMIT:
        return "blow-up"
    if "Traceback" in res["out"] + res["err"] or res["rc"] not in (0, 2) or "internal error" in res["err"]:
        return "traceback"
    if res["rc"] == 2:
        errors = [ln for ln in err_lines if ln.startswith("error: ")]
        others = [ln for ln in err_lines if not ln.startswith(("error: ", "warning: "))]
        return "ok" if len(errors) == 1 and not others and err_lines[-1].startswith("error: ") else "messy"
    # exit 0
    if must_fail and not any(ln.startswith("warning: ") for ln in err_lines):
        return "silent"
    text = res["out"].strip()
    if text.startswith("{"):
        try:
            if _nonfinite(json.loads(text)):
                return "silent"
        except ValueError:
            return "silent"
    elif "nan" in text.lower().split() or " inf " in text:
        return "silent"
    return "ok"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=180, help="cases (default 180, 30 per generator)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--show", action="store_true", help="print every case that is not ok")
    args = ap.parse_args()
    r = random.Random(args.seed)
    counts = {k: 0 for k in ("ok", "traceback", "silent", "hang", "blow-up", "messy")}
    bad, t0, prev_rss = [], time.perf_counter(), 0
    with tempfile.TemporaryDirectory() as d:
        for i in range(args.n):
            gen = GENERATORS[i % len(GENERATORS)]
            argv, must_fail, files = gen(r)
            for name, data in files.items():
                with open(os.path.join(d, name), "wb") as fh:
                    fh.write(data)
            res = run(argv, d)
            kind = classify(res, must_fail)
            prev_rss = max(prev_rss, res["rss"])
            counts[kind] += 1
            if kind != "ok":
                bad.append((kind, gen.__name__, argv, res))
            for name in files:
                os.remove(os.path.join(d, name))
    print(f"{args.n} cases in {time.perf_counter() - t0:.0f} s (seed {args.seed}): "
          + ", ".join(f"{k} {v}" for k, v in counts.items()))
    print(f"peak RSS of any case: {prev_rss / 2**20:.0f} MB")
    if args.show:
        for kind, gen, argv, res in bad:
            print(f"[{kind}] {gen}: {' '.join(a[:80] for a in argv)[:300]}\n    rc={res['rc']} "
                  f"err={res['err'].strip()[-300:]!r}")
    return 0 if all(counts[k] == 0 for k in counts if k != "ok") else 1


if __name__ == "__main__":
    sys.exit(main())
