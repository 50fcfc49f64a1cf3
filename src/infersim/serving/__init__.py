"""Layer 8, serving at the request level: ``from infersim.serving import Request, serve, sla_search``.

The model of one deployment (TTFT, TPOT, tokens/s under static or continuous batching) is in
:mod:`.model`; the search over every (parallelism, batch) for an SLA, the throughput-vs-interactivity
frontier and disaggregated prefill/decode are in :mod:`.sla`; the answer in words in :mod:`.answer`;
speculative decoding in :mod:`.speculative`; the engines' launch commands in :mod:`.launch`.
This module gathers them for users (docs/serving.md).

May import: :mod:`infersim.search`, :mod:`infersim.simulate` and every layer below them; never the
layers above it (co-design, validation, the front ends).
"""
from infersim.serving.model import (
    BATCHING,
    DEFAULT_CHUNK_TOKENS,
    Request,
    ServeResult,
    ServingMetrics,
    evaluate_serving,
    serve,
)
from infersim.serving.sla import ServingPoint, SLAResult, best_disaggregated, sla_search
from infersim.specs.speculation import Speculation

__all__ = ["Request", "serve", "ServeResult", "ServingMetrics", "evaluate_serving", "sla_search",
           "SLAResult", "ServingPoint", "best_disaggregated", "BATCHING", "DEFAULT_CHUNK_TOKENS",
           "Speculation"]
