"""A user's own measurements, in the schema of infersim's published data (docs/calibrate.md).

One row per measured number, as JSONL (``published.jsonl``'s fields), CSV (the same fields as
columns) or Parquet, or an engine benchmark's own result file (:mod:`.importers`). The fields:

* ``model``: a model preset name, a HuggingFace id the published data maps onto a preset
  (:data:`~infersim.validation.data.published.MODEL_PRESET`), or a path to a ``config.json``;
* ``hw`` (a hardware preset name or hardware file) or ``gpu`` + ``nodes`` (as the published data
  names GPUs); ``--hw`` overrides both (one machine is calibrated at a time);
* ``weights_dtype`` / ``kv_dtype`` (bf16, fp16, fp8, int8, int4, fp4) or ``dtypes`` (an infersim
  code: 16, fp8, fp8kv16, 16kv8, ...); default bf16 / bf16;
* ``tp``, ``pp``, ``ep``, ``dp`` (default 1); ``batching`` (``continuous``, the default, or
  ``static``); ``batch_or_concurrency`` (or ``concurrency`` / ``batch``; 0 = the benchmark's
  maximum-throughput batch); ``isl``, ``osl``;
* ``metric`` and ``value``: continuous rows ``output_tok_s_total`` (or ``tok_s_total``: input +
  output tokens/s), ``tpot_ms``, ``ttft_ms``; static rows also ``decode_tok_s_per_seq``,
  ``e2e_latency_ms``, ``throughput_tok_s_per_gpu``;
* ``engine`` (vllm, sglang, tensorrt-llm, ...: picks the base runtime profile unless ``--runtime``
  names one) and ``source`` (default: the file name); other fields (``title``, ``note``, ...) are kept
  as comments. A row infersim cannot predict (another metric) is skipped with a warning; a malformed
  row is a one-line error naming its line.
"""
from __future__ import annotations

import csv
import io
import json
import math
import os
from dataclasses import dataclass
from functools import lru_cache

from infersim.errors import InferSimError, short_repr, warn
from infersim.loaders.files import read_text_capped
from infersim.loaders.hf_model import model_from_hf_config
from infersim.presets.hardware_presets import resolve_hardware
from infersim.presets.model_presets import PRESETS
from infersim.presets.runtime_presets import RUNTIMES, resolve_runtime
from infersim.specs.hardware import HardwareSpec
from infersim.specs.model import WEIGHT_DTYPES
from infersim.specs.runtime import Runtime
from infersim.validation.data.published import (
    DTYPE_CODE,
    GPU_PRESET,
    MODEL_PRESET,
    _metric,
    runtime_of_engine,
)
from infersim.validation.rows import ATTN_CODES, DTYPES, Measurement, attn_code

MAX_FILE_BYTES = 16 * 1024 * 1024
MAX_ROWS = 2000
SUFFIXES = (".jsonl", ".ndjson", ".json", ".csv", ".parquet", ".pq")
INT_FIELDS = ("tp", "cp", "pp", "ep", "dp", "batch_or_concurrency", "isl", "osl", "nodes")


@dataclass(frozen=True)
class UserData:
    """Rows ready for the fit, with the one machine and stack they were measured on."""

    rows: list[Measurement]
    hw: HardwareSpec
    runtime: Runtime
    where: str
    skipped: list[tuple[int, str]]


def read_records(path: str | os.PathLike) -> list[dict]:
    """The file's rows as dicts: the calibrate schema, or an engine's result file converted by
    :func:`infersim.validation.importers.detect` (vLLM, SGLang, trtllm-bench, genai-perf)."""
    from infersim.validation import importers

    where = os.path.basename(str(path))
    suffix = os.path.splitext(str(path))[1].lower()
    if suffix not in SUFFIXES:
        raise InferSimError(f"{where}: measurements are {', '.join(SUFFIXES)} files")
    if not os.path.isfile(path):
        raise InferSimError(f"measurements file not found: {path}")
    if suffix in (".parquet", ".pq"):
        try:
            import pandas as pd
            records = pd.read_parquet(path).to_dict("records")
        except ImportError:
            raise InferSimError(f"{where}: reading Parquet needs pandas and pyarrow; write CSV instead") from None
        except Exception as exc:   # a corrupt file: pyarrow's own error, on one line
            raise InferSimError(f"{where}: not a readable Parquet file ({type(exc).__name__})") from None
    else:
        text = read_text_capped(path, MAX_FILE_BYTES, "measurements file").removeprefix("\ufeff")
        records = importers.detect(text, suffix, where)
        if records is None:
            records = _csv(text, where) if suffix == ".csv" else _json_lines(text, where)
    if not records:
        raise InferSimError(f"{where}: no measurement rows")
    if len(records) > MAX_ROWS:
        raise InferSimError(f"{where}: {len(records)} rows; at most {MAX_ROWS} per calibration")
    return records


def _json_lines(text: str, where: str) -> list[dict]:
    stripped = text.strip()
    if stripped.startswith("["):      # a JSON array of rows
        try:
            data = json.loads(stripped)
        except json.JSONDecodeError as exc:
            raise InferSimError(f"{where}: not valid JSON ({exc.msg} at line {exc.lineno})") from None
        if not all(isinstance(d, dict) for d in data):
            raise InferSimError(f"{where}: expected a list of rows (JSON objects)")
        return data
    out = []
    for i, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            d = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InferSimError(f"{where} line {i}: not valid JSON ({exc.msg})") from None
        if not isinstance(d, dict):
            raise InferSimError(f"{where} line {i}: expected a JSON object, got {type(d).__name__}")
        out.append(d)
    return out


def _csv(text: str, where: str) -> list[dict]:
    reader = csv.DictReader(io.StringIO(text))
    if not reader.fieldnames or "value" not in reader.fieldnames:
        raise InferSimError(f"{where}: a CSV of measurements needs a header row with at least "
                            "model, metric, value (docs/calibrate.md)")
    return [{k: v for k, v in row.items() if k and v not in (None, "")} for row in reader]


def _int(d: dict, key: str, default: int, where: str) -> int:
    v = d.get(key, default)
    try:
        f = float(v)
    except (TypeError, ValueError):
        f = float("nan")
    if isinstance(v, bool) or not math.isfinite(f) or f != int(f) or f < 0 or f > 2**31:
        raise InferSimError(f"{where}: {key} must be a non-negative integer, got {short_repr(v)}")
    return int(f)


@lru_cache(maxsize=64)
def _config_model(path: str):
    return model_from_hf_config(path)


def _model(name, where: str):
    """(model name, spec or None) of a row's ``model``: a preset, a mapped HF id or a config.json."""
    if not isinstance(name, str) or not name:
        raise InferSimError(f"{where}: missing 'model' (a preset name, a HuggingFace id or a config.json path)")
    if name in PRESETS:
        return name, None
    if name in MODEL_PRESET:
        return MODEL_PRESET[name], None
    if name.lower().endswith(".json") and os.path.isfile(name):
        spec = _config_model(os.path.abspath(name))
        return spec.name or os.path.basename(name), spec
    raise InferSimError(f"{where}: unknown model {short_repr(name)}: give a preset name (infersim presets), "
                        "a HuggingFace id the presets map, or a path to a config.json")


def _hw_ref(d: dict, where: str) -> str | None:
    if d.get("hw"):
        return str(d["hw"])
    if d.get("gpu"):
        key = (str(d["gpu"]), _int(d, "nodes", 1, where))
        if key in GPU_PRESET:
            return GPU_PRESET[key]
        return str(d["gpu"])          # perhaps a preset name or a file
    return None


def _dtypes(d: dict, where: str) -> str:
    if d.get("dtypes") is not None:
        code = str(d["dtypes"])
        if code not in DTYPES:
            raise InferSimError(f"{where}: dtypes {short_repr(code)} unknown; valid: {', '.join(DTYPES)}")
        return code
    pair = (str(d.get("weights_dtype", "bf16")).lower(), str(d.get("kv_dtype", d.get("weights_dtype", "bf16"))).lower())
    pair = tuple("bf16" if p == "fp16" else p for p in pair)
    if pair not in DTYPE_CODE:
        raise InferSimError(f"{where}: weights/KV dtypes {pair[0]}/{pair[1]} not modelled; valid pairs: "
                            + ", ".join(f"{w}/{k}" for w, k in DTYPE_CODE))
    attn = d.get("attn_weights_dtype")
    attn = None if attn is None else ("bf16" if str(attn).lower() == "fp16" else str(attn).lower())
    code = attn_code(DTYPE_CODE[pair], attn)
    if code is None:
        raise InferSimError(f"{where}: attention weights in {attn} with {pair[0]}/{pair[1]} elsewhere are not "
                            "modelled; valid: " + ", ".join(f"{DTYPES[b][0]}/{DTYPES[b][2]} with {a} attention"
                                                            for b, a in ATTN_CODES.values()))
    return code


def _row(d: dict, where: str, model: tuple, hw_name: str, source: str) -> Measurement | str:
    """A Measurement from one record, or the reason infersim cannot predict it."""
    for key in ("metric", "value"):
        if key not in d:
            raise InferSimError(f"{where}: missing '{key}' (fields: docs/calibrate.md)")
    try:
        value = float(d["value"])
    except (TypeError, ValueError):
        value = float("nan")
    if not (math.isfinite(value) and value > 0):
        raise InferSimError(f"{where}: value must be a positive number, got {short_repr(d['value'])}")
    batching = str(d.get("batching", "continuous"))
    if batching not in ("static", "continuous"):
        raise InferSimError(f"{where}: batching must be static or continuous, got {short_repr(batching)}")
    conc = d.get("batch_or_concurrency", d.get("concurrency", d.get("batch", 0 if batching == "continuous" else 1)))
    if conc is None:
        raise InferSimError(f"{where}: the file does not say the benchmark's concurrency: pass --concurrency N")
    ints = {k: _int({**d, "batch_or_concurrency": conc}, k, 1, where) for k in ("tp", "cp", "pp", "ep", "dp")}
    batch = _int({"batch_or_concurrency": conc}, "batch_or_concurrency", 0, where)
    isl, osl = (_int(d, k, -1, where) if k in d else -1 for k in ("isl", "osl"))
    if isl < 1 or osl < 1:
        raise InferSimError(f"{where}: isl and osl (input and output tokens per request) must be positive integers")
    if min(ints.values()) < 1:
        raise InferSimError(f"{where}: tp, cp, pp, ep and dp must be at least 1")
    if batching == "static" and batch < 1:
        return "a static row needs its batch (batch_or_concurrency >= 1)"
    requests = _int(d, "requests", 0, where)
    if requests and batching != "continuous":
        raise InferSimError(f"{where}: requests (a finite run of requests submitted at once) needs continuous batching")
    metric, value, why = _metric({**d, "batching": batching, "isl": isl, "osl": osl, "value": value})
    if why:
        return why
    from infersim.validation.rows import CONTINUOUS_METRICS, STATIC_METRICS
    ok = STATIC_METRICS if batching == "static" else CONTINUOUS_METRICS
    if metric not in ok:
        return f"metric {metric} not predicted for {batching} rows (valid: {', '.join(ok)})"
    name, spec = model
    return Measurement(source, name, hw_name, _dtypes(d, where), ints["tp"], batch, isl, osl, metric, value,
                       pp=ints["pp"], ep=ints["ep"], dp=ints["dp"], batching=batching, spec=spec, cp=ints["cp"],
                       requests=requests, head=_head_dtype(d, where))


def _head_dtype(d: dict, where: str) -> str:
    """``head_dtype``: the embedding's and LM head's dtype ("" = 16-bit beside quantised weights,
    "weights" = the weights' own, or a dtype)."""
    head = str(d.get("head_dtype") or "").lower()
    valid = ("", "weights") + WEIGHT_DTYPES
    if head not in valid:
        raise InferSimError(f"{where}: head_dtype {short_repr(head)} unknown; valid: {', '.join(valid[1:])}")
    return head


def _one(refs: set, what: str, where: str, flag: str) -> str | None:
    refs = {r for r in refs if r}
    if len(refs) > 1:
        raise InferSimError(f"{where}: rows name {len(refs)} {what}s ({', '.join(sorted(refs)[:4])}): calibrate one "
                            f"machine and stack at a time (split the file, or pass {flag})")
    return next(iter(refs), None)


def user_data(records: list[dict], where: str, hw: str | HardwareSpec | None = None,
              runtime: str | Runtime | None = None, defaults: dict | None = None) -> UserData:
    """The records as Measurements on one base hardware and runtime: ``hw`` / ``runtime``
    (a name, file or spec) when given, else the one the rows name (``engine`` picks the
    profile; ``cuda-graphs`` when none does). ``defaults`` fill fields rows leave out."""
    defaults = defaults or {}
    # a field a file leaves empty (None) takes the command line's value
    recs = [{**defaults, **{k: v for k, v in r.items() if v is not None or k not in defaults}} for r in records]
    if hw is None:
        ref = _one({_hw_ref(r, f"{where} row {i}") for i, r in enumerate(recs, 1)}, "hardware", where, "--hw")
        if ref is None:
            raise InferSimError(f"{where}: no row names its hardware (hw or gpu): pass --hw PRESET|FILE")
        hw = ref
    base_hw = resolve_hardware(hw) if isinstance(hw, str) else hw
    if runtime is None:
        engines = {runtime_of_engine(str(r["engine"])) or str(r["engine"]) for r in recs if r.get("engine")}
        runtime = _one(engines, "engine", where, "--runtime")
        if runtime is None:
            warn(f"{where}: no row names its engine: starting from the 'cuda-graphs' profile (pass --runtime)")
            runtime = "cuda-graphs"
        elif runtime not in RUNTIMES:
            raise InferSimError(f"{where}: no runtime profile for engine {short_repr(runtime)}: pass --runtime "
                                f"({', '.join(RUNTIMES)} or a runtime file)")
    base_rt = resolve_runtime(runtime) if isinstance(runtime, str) else runtime
    rows, skipped = [], []
    for i, r in enumerate(recs, 1):
        at = f"{where} row {i}"
        got = _row(r, at, _model(r.get("model"), at), base_hw.name, str(r.get("source") or where))
        if isinstance(got, str):
            skipped.append((i, got))
        else:
            rows.append(got)
    if skipped:
        warn(f"{where}: {len(skipped)} row(s) skipped, e.g. row {skipped[0][0]}: {skipped[0][1]}")
    if not rows:
        raise InferSimError(f"{where}: none of the {len(recs)} rows can be predicted (row {skipped[0][0]}: "
                            f"{skipped[0][1]})")
    return UserData(rows, base_hw, base_rt, where, skipped)


def load_user_data(path: str | os.PathLike, hw=None, runtime=None, defaults: dict | None = None) -> UserData:
    """:func:`read_records` then :func:`user_data`."""
    return user_data(read_records(path), os.path.basename(str(path)), hw, runtime, defaults)
