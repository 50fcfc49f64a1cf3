"""Serving at the request level: ``from infersim.serving import Request, serve, sla_search``.

The model of one deployment (TTFT, TPOT, tokens/s under static or continuous batching) is in
:mod:`infersim.serving_model`; the search over every (parallelism, batch) for an SLA, the
throughput-vs-interactivity frontier and disaggregated prefill/decode are in :mod:`infersim.sla`.
This module gathers both for users (docs/serving.md).
"""
from .serving_model import (BATCHING, DEFAULT_CHUNK_TOKENS, Request, ServeResult, ServingMetrics,
                            evaluate_serving, serve)
from .sla import SLAResult, ServingPoint, best_disaggregated, sla_search

__all__ = ["Request", "serve", "ServeResult", "ServingMetrics", "evaluate_serving", "sla_search",
           "SLAResult", "ServingPoint", "best_disaggregated", "BATCHING", "DEFAULT_CHUNK_TOKENS"]
