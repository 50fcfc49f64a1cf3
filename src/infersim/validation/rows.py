"""One published measurement and how infersim predicts it.

A :class:`Measurement` is one number of one source (:mod:`infersim.validation.data`) with its
exact setup: model preset, hardware preset, dtypes, parallelism, batch or concurrency, input and
output lengths and the metric. It is predicted through the public API, with the hardware and
runtime a parameter set gives (:func:`predict`):

* ``batching="static"`` rows (a batch prefilled together, then decoded together):
  ``ttft_ms`` one prefill of the batch; ``tpot_ms`` one decode step at the mean context;
  ``decode_tok_s_per_seq``, ``e2e_latency_ms`` and the throughputs prefill(isl) + (osl − 1)
  decode steps at the mean context (decode time is linear in the context, so this is the exact
  sum).
* ``batching="continuous"`` rows (in-flight batching, :mod:`infersim.serving.model`): batch =
  the client's concurrency, or 0 for a maximum-throughput benchmark, which runs the most
  full-length sequences that fit (capped at :data:`BATCH_CAP` per replica, or at a stated
  concurrency above it: ROCm's offline benchmarks set ``max_num_seqs`` = ``num_prompts`` =
  3200). Beyond the KV capacity requests queue and the deployment runs at its largest batch:
  TPOT and tokens/s saturate, while TTFT measures the queue, which the steady state does not
  have (those TTFT rows are shown, not scored).
  A row whose source states its run's request count (``requests``: an offline benchmark submits
  them all at once) is a finite run (:func:`infersim.serving.model.finite_run`): its last, partial
  wave of requests decodes at a smaller batch.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from infersim.presets.model_presets import PRESETS
from infersim.specs.model import ModelSpec
from infersim.specs.parallel import Parallelism, ParArrays
from infersim.specs.workload import Workload

#: dtype codes: weights / activations / KV cache.
DTYPES = {"16": ("bf16", "bf16", "bf16"), "fp8": ("fp8", "fp8", "fp8"), "int8wo": ("int8", "bf16", "bf16"),
          "fp8wo": ("fp8", "bf16", "bf16"), "16kv8": ("bf16", "bf16", "fp8"), "int4wo": ("int4", "bf16", "bf16"),
          "fp8kv16": ("fp8", "fp8", "bf16"), "fp4": ("fp4", "fp4", "fp8"), "fp4kv16": ("fp4", "fp4", "bf16"),
          "int4kv8": ("int4", "bf16", "fp8")}
#: codes whose attention projections keep another dtype than the other weights: code → (the code
#: of the other dtypes, the attention projections' dtype). FFN-only fp8: Meta's Llama 3.1 405B FP8.
#: FFN-only NVFP4: NVIDIA's DeepSeek-R1-FP4 and R1-0528-FP4 leave every ``self_attn`` module in
#: bf16 (their ``hf_quant_config.json`` excludes them; the "-v2" checkpoints "additionally quantize
#: the wo module"), as TensorRT-LLM's DeepSeek-R1 recipe states ("64x Attention Modules: bf16")
ATTN_CODES = {"fp8ffn": ("fp8kv16", "bf16"), "fp4ffn": ("fp4", "bf16"), "fp4ffnkv16": ("fp4kv16", "bf16")}
DTYPES.update({code: DTYPES[base] for code, (base, _) in ATTN_CODES.items()})


def attn_code(code: str, attn: str | None) -> str | None:
    """The code of ``code``'s dtypes with the attention projections in ``attn`` (None or the
    weights' own dtype: ``code`` itself; None where that mix is not modelled)."""
    if attn is None or attn == DTYPES[code][0]:
        return code
    return next((c for c, key in ATTN_CODES.items() if key == (code, attn)), None)
UNITS = {"decode_tok_s_per_seq": "tok/s", "tpot_ms": "ms", "ttft_ms": "ms", "e2e_latency_ms": "ms",
         "throughput_tok_s_per_gpu": "tok/s/GPU", "output_tok_s_total": "tok/s", "tok_s_total": "tok/s"}
STATIC_METRICS = ("decode_tok_s_per_seq", "tpot_ms", "ttft_ms", "e2e_latency_ms", "throughput_tok_s_per_gpu",
                  "output_tok_s_total")
CONTINUOUS_METRICS = ("tok_s_total", "tpot_ms", "ttft_ms")
BATCH_CAP = 2048          # trtllm-bench's largest batch


@dataclass(frozen=True)
class Measurement:
    source: str
    model: str
    hw: str
    dtypes: str
    tp: int
    batch: int
    isl: int
    osl: int
    metric: str
    value: float
    pp: int = 1
    ep: int = 1
    dp: int = 1
    batching: str = "static"         # or "continuous" (in-flight batching)
    #: context-parallel ranks (ring attention over the sequence; one TP group of tp PEs each)
    cp: int = 1
    #: a continuous row's run: its N requests submitted at once (0: the steady state, or not stated)
    requests: int = 0
    #: the model's shapes when ``model`` is not a preset (a user's config.json)
    spec: ModelSpec | None = field(default=None, compare=False, repr=False)
    #: the embedding's and LM head's dtype: "" = the model's default (16-bit beside quantised
    #: weights, as checkpoints ship them), "weights" = the weights' dtype (a quantiser that
    #: converts every Linear: gpt-fast, torchao), or a dtype (llama.cpp's 8-bit output tensor)
    head: str = ""

    def __post_init__(self) -> None:
        ok = STATIC_METRICS if self.batching == "static" else CONTINUOUS_METRICS
        if self.metric not in ok or self.dtypes not in DTYPES or (self.model not in PRESETS and self.spec is None):
            raise ValueError(f"bad measurement row {self}")

    @property
    def key(self) -> tuple:
        """(source, model, hardware, tp, batch, isl, osl): the row's key in ``EXCLUDED_ROWS``."""
        return (self.source, self.model, self.hw, self.tp, self.batch, self.isl, self.osl)

    @property
    def id(self) -> str:
        par = f"tp{self.tp}" + "".join(f"{k}{v}" for k, v in (("cp", self.cp), ("pp", self.pp), ("ep", self.ep), ("dp", self.dp))
                                       if v > 1)
        b = (f"b{self.batch}" if self.batching == "static" else f"c{self.batch}" if self.batch else "max")
        return f"{self.source}/{self.model}/{self.hw.split()[0]}/{self.dtypes}/{par}/{b}/{self.isl}-{self.osl}/{self.metric}"

    @property
    def unit(self) -> str:
        return UNITS[self.metric]

    @property
    def gpus(self) -> int:
        return self.tp * self.cp * self.pp * self.dp

    @cached_property
    def model_spec(self) -> ModelSpec:
        w, a, kv = DTYPES[self.dtypes]
        base = self.spec if self.spec is not None else PRESETS[self.model].model
        attn = ATTN_CODES.get(self.dtypes, (None, None))[1]
        head = w if self.head == "weights" else (self.head or None)
        return base.with_dtypes(weight=w, act=a, kv=kv, attn=attn, head=head)

    def par(self, batch: int | None = None, microbatches: int | None = None) -> Parallelism:
        kw = {"microbatches": microbatches} if microbatches else {}
        return Parallelism(tp=self.tp, cp=self.cp, pp=self.pp, dp=self.dp, ep=self.ep, **kw)

    # ----- static rows -------------------------------------------------------------------------
    def steps(self) -> list[tuple[Workload, float]]:
        """(workload, times it runs) whose latencies make up a static row's measured interval."""
        pre = Workload("prefill", s_kv=max(self.isl, 1), batch=self.batch)
        mid = Workload("decode", s_kv=self.isl + max(self.osl, 2) // 2, batch=self.batch)
        if self.metric == "ttft_ms":
            return [(pre, 1.0)]
        if self.metric == "tpot_ms":
            return [(mid, 1.0)]
        return [(pre, 1.0), (mid, self.osl - 1.0)]

    def metric_of(self, total_ns: float) -> float:
        """A static row's metric from the total time of its steps."""
        if self.metric in ("ttft_ms", "tpot_ms", "e2e_latency_ms"):
            return total_ns / 1e6
        tok_s = self.batch * self.osl / (total_ns * 1e-9)
        if self.metric == "decode_tok_s_per_seq":
            return tok_s / self.batch
        return tok_s / self.gpus if self.metric == "throughput_tok_s_per_gpu" else tok_s


def serving_batch(row: Measurement, hw, runtime) -> tuple[int, int]:
    """(batch the continuous row runs at, its KV capacity in full-length sequences)."""
    from infersim.serving.model import Request
    from infersim.serving.sla import max_batch

    wl = Workload("decode", s_kv=row.isl + row.osl, batch=max(row.batch, row.dp))
    configs = ParArrays.from_configs([row.par()], wl)
    limit = max(BATCH_CAP, -(-row.batch // max(row.dp, 1)))   # a stated concurrency is the engine's own cap
    cap = int(max_batch(row.model_spec, hw, configs, Request(row.isl, row.osl), limit, runtime)[0])
    return (cap if row.batch == 0 else min(row.batch, cap)), cap


def scored(row: Measurement, capacity: int) -> bool:
    """Whether a row is scored: a TTFT beyond the KV capacity measures a queue (shown, not scored)."""
    return capacity > 0 and not (row.batching == "continuous" and row.metric == "ttft_ms" and row.batch > capacity)


def predict(row: Measurement, hw, runtime, batch: int | None = None) -> float:
    """The row's metric through the public API (:func:`infersim.simulate`, or
    :func:`infersim.serving.model.evaluate_serving` for continuous rows)."""
    if row.batching == "static":
        from infersim.simulate import simulate

        total = sum(n * simulate(row.model_spec, hw, row.par(), wl, runtime).total_latency_ns
                    for wl, n in row.steps())
        return float(row.metric_of(total))
    from infersim.serving.model import Request, evaluate_serving

    batch = batch if batch is not None else serving_batch(row, hw, runtime)[0]
    if batch == 0:
        return float("nan")
    wl = Workload("decode", s_kv=row.isl + row.osl, batch=batch)
    m = 1 if row.pp == 1 else min(row.pp, batch)
    configs = ParArrays.from_configs([row.par(microbatches=m)], wl)
    res = evaluate_serving(row.model_spec, hw, configs, np.array([batch]), Request(row.isl, row.osl), runtime,
                           requests=row.requests)
    return float({"tok_s_total": res["tok_s"][0], "tpot_ms": res["tpot_ns"][0] / 1e6,
                  "ttft_ms": res["ttft_ns"][0] / 1e6}[row.metric])
