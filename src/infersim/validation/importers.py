"""Importers: the result files engines' own benchmark tools write, as rows of the calibrate schema.

Each run becomes up to three continuous-batching rows (mean TPOT, mean TTFT, output tokens/s) at the
run's concurrency, with the mean input and output lengths of its requests (total tokens / completed
requests). Fields read (as each tool writes them):

* **vLLM** ``vllm bench serve`` / ``benchmark_serving.py --save-result`` (one JSON object):
  ``model_id``, ``max_concurrency`` (null with ``request_rate`` "inf": every prompt at once, so
  ``num_prompts``), ``completed``, ``total_input_tokens``, ``total_output_tokens``,
  ``output_throughput``, ``mean_ttft_ms``, ``mean_tpot_ms``.
* **SGLang** ``python -m sglang.bench_serving --output-file`` (JSONL, one run per line):
  ``backend``, ``max_concurrency``, ``completed``, ``total_input_tokens``, ``total_output_tokens``,
  ``output_throughput``, ``mean_ttft_ms``, ``mean_tpot_ms`` (no model id: pass ``--model``).
* **TensorRT-LLM** ``trtllm-bench ... --report_json`` (one JSON object):
  ``engine.model``, ``engine.dtype`` / ``quantization`` / ``kv_cache_dtype``,
  ``world_info.tp_size`` / ``pp_size`` / ``ep_size``, ``request_info.avg_input_length`` /
  ``avg_output_length`` / ``avg_num_concurrent_requests``,
  ``performance.system_output_throughput_tok_s``, and with streaming
  ``streaming_metrics.avg_ttft_ms`` / ``avg_tpot_ms``.
* **genai-perf / AIPerf** ``profile_export_genai_perf.csv`` (``Metric,avg,min,...`` then
  ``Metric,Value``): ``Time To First Token``, ``Inter Token Latency`` (its TPOT), ``Input/Output
  Sequence Length``, ``Output Token Throughput (per sec)``; the concurrency from ``--concurrency``
  or the artifacts name (``...-concurrency8``).

A run whose request rate is limited (no fixed concurrency) is not a steady state infersim predicts:
a one-line error says so. Fields a file lacks (model, TP, hardware) come from the command line.
"""
from __future__ import annotations

import csv
import io
import json
import re

from infersim.errors import InferSimError

#: per run metric -> (infersim metric, field)
SERVING_FIELDS = (("tpot_ms", "mean_tpot_ms"), ("ttft_ms", "mean_ttft_ms"), ("output_tok_s_total", "output_throughput"))


def _lengths(d: dict, where: str) -> tuple[int, int]:
    done = d.get("completed") or d.get("num_prompts")
    try:
        return round(float(d["total_input_tokens"]) / float(done)), round(float(d["total_output_tokens"]) / float(done))
    except (KeyError, TypeError, ValueError, ZeroDivisionError):
        raise InferSimError(f"{where}: a serving benchmark result needs completed, total_input_tokens and "
                            "total_output_tokens") from None


def serving_run(d: dict, engine: str, where: str) -> list[dict]:
    """Rows of one vLLM / SGLang serving benchmark run."""
    conc = d.get("max_concurrency")
    if conc is None:
        if str(d.get("request_rate", "inf")) not in ("inf", "Infinity"):
            raise InferSimError(f"{where}: a run at request rate {d['request_rate']} has no fixed concurrency; "
                                "calibrate from --max-concurrency runs (or request rate inf)")
        conc = d.get("num_prompts") or d.get("completed")
    isl, osl = _lengths(d, where)
    base = {"engine": engine, "batching": "continuous", "batch_or_concurrency": int(conc), "isl": isl, "osl": osl}
    if d.get("model_id"):
        base["model"] = d["model_id"]
    rows = [{**base, "metric": m, "value": d[f]} for m, f in SERVING_FIELDS if d.get(f) not in (None, 0)]
    if not rows:
        raise InferSimError(f"{where}: no mean_tpot_ms, mean_ttft_ms or output_throughput in the result")
    return rows


def _dtype(s, default: str = "bf16") -> str:
    s = str(s or "").lower()
    return ("fp4" if "fp4" in s else "fp8" if "fp8" in s else "int4" if "w4" in s or "int4" in s
            else "int8" if "w8" in s or "int8" in s else default)


def trtllm_report(d: dict, where: str) -> list[dict]:
    """Rows of a ``trtllm-bench --report_json`` report."""
    eng, world, req = d.get("engine", {}), d.get("world_info", {}), d.get("request_info", {})
    perf, stream = d.get("performance", {}), d.get("streaming_metrics") or {}
    try:
        isl, osl = round(float(req["avg_input_length"])), round(float(req["avg_output_length"]))
        conc = max(1, round(float(req["avg_num_concurrent_requests"])))
    except (KeyError, TypeError, ValueError):
        raise InferSimError(f"{where}: a trtllm-bench report needs request_info.avg_input_length, "
                            "avg_output_length and avg_num_concurrent_requests") from None
    base = {"engine": "tensorrt-llm", "batching": "continuous", "batch_or_concurrency": conc, "isl": isl, "osl": osl,
            "weights_dtype": _dtype(eng.get("quantization")), "kv_dtype": _dtype(eng.get("kv_cache_dtype")),
            **{k: int(world[f]) for k, f in (("tp", "tp_size"), ("pp", "pp_size"), ("ep", "ep_size")) if world.get(f)}}
    if eng.get("model"):
        base["model"] = eng["model"]
    vals = (("output_tok_s_total", perf.get("system_output_throughput_tok_s")),
            ("tpot_ms", stream.get("avg_tpot_ms")), ("ttft_ms", stream.get("avg_ttft_ms")))
    return [{**base, "metric": m, "value": v} for m, v in vals if v not in (None, 0)]


_GENAI = {"time to first token": "ttft_ms", "inter token latency": "tpot_ms",
          "output token throughput": "output_tok_s_total", "input sequence length": "isl",
          "output sequence length": "osl"}


def genai_perf_csv(text: str, where: str) -> list[dict]:
    """Rows of a genai-perf / AIPerf CSV export (the concurrency from the file name, else --concurrency)."""
    got: dict[str, float] = {}
    for row in csv.reader(io.StringIO(text)):
        if len(row) < 2 or row[0].strip().lower() == "metric":
            continue
        label = row[0].strip().lower()
        key = next((v for k, v in _GENAI.items() if label.startswith(k)), None)
        if key is None or key in got:
            continue
        try:
            value = float(row[1].replace(",", ""))
        except ValueError:
            continue
        got[key] = value / 1e6 if "(ns)" in label else value
    if "isl" not in got or "osl" not in got:
        raise InferSimError(f"{where}: a genai-perf CSV needs its Input and Output Sequence Length rows")
    m = re.search(r"concurrency[_-]?(\d+)", where)
    # None: not in the file (the command line's --concurrency, else a one-line error)
    base = {"batching": "continuous", "isl": round(got["isl"]), "osl": round(got["osl"]),
            "batch_or_concurrency": int(m.group(1)) if m else None}
    return [{**base, "metric": k, "value": got[k]} for k in ("tpot_ms", "ttft_ms", "output_tok_s_total") if k in got]


def _serving_like(d) -> bool:
    return isinstance(d, dict) and ("mean_tpot_ms" in d or "output_throughput" in d) and "total_output_tokens" in d


def detect(text: str, suffix: str, where: str) -> list[dict] | None:
    """The rows of an engine's benchmark result file, or None when ``text`` is not one (then it
    is read as rows of the calibrate schema)."""
    if suffix == ".csv":
        first = text.lstrip().split(",", 1)[0].strip().strip('"').lower()
        return genai_perf_csv(text, where) if first == "metric" else None
    if suffix == ".json":
        try:
            d = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InferSimError(f"{where}: not valid JSON ({exc.msg} at line {exc.lineno})") from None
        if isinstance(d, dict) and "performance" in d and "request_info" in d:
            return trtllm_report(d, where)
        if _serving_like(d):
            return serving_run(d, "sglang" if "sglang" in str(d.get("backend", "")) else "vllm", where)
        if isinstance(d, dict):
            raise InferSimError(f"{where}: a JSON object that is neither a vLLM / SGLang serving result nor a "
                                "trtllm-bench report (rows of the calibrate schema go in .jsonl or .csv)")
        return None
    lines = [ln for ln in text.splitlines() if ln.strip()]
    try:
        first = json.loads(lines[0]) if lines else None
    except json.JSONDecodeError:
        return None
    if not _serving_like(first):
        return None
    rows = []
    for i, line in enumerate(lines, 1):
        try:
            d = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InferSimError(f"{where} line {i}: not valid JSON ({exc.msg})") from None
        engine = "sglang" if "sglang" in str(d.get("backend", "sglang")) else "vllm"
        rows += serving_run(d, engine, f"{where} line {i}")
    return rows
