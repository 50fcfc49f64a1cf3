"""Layer 8, serving at the request level: ``from infersim.serving import Request, serve, sla_search``.

The model of one deployment (TTFT, TPOT, tokens/s under static or continuous batching) is in
:mod:`.model`; the search over every (parallelism, batch) for an SLA, the throughput-vs-interactivity
frontier and disaggregated prefill/decode are in :mod:`.sla`; the answer in words in :mod:`.answer`;
speculative decoding in :mod:`.speculative`; the engines' launch commands in :mod:`.launch`.
Under traffic (request-level simulation): arrivals and lengths in :mod:`.traffic`, the step-time grid
in :mod:`.step_grid`, the continuous-batching scheduler in :mod:`.scheduler`, the run and its percentiles
in :mod:`.load` (``simulate_traffic``), rate and capacity planning in :mod:`.capacity`.
This module gathers them for users (docs/serving.md).

May import: :mod:`infersim.search`, :mod:`infersim.simulate` and every layer below them; never the
layers above it (co-design, validation, the front ends).
"""
from infersim.serving.capacity import CapacityResult, MaxRate, capacity_search, max_rate  # noqa: E402
from infersim.serving.load import TrafficResult, simulate_traffic  # noqa: E402
from infersim.serving.model import (
    BATCHING,
    DEFAULT_CHUNK_TOKENS,
    Request,
    ServeResult,
    ServingMetrics,
    evaluate_serving,
    serve,
)
from infersim.serving.scheduler import Scheduler  # noqa: E402
from infersim.serving.sla import ServingPoint, SLAResult, best_disaggregated, sla_search
from infersim.serving.traffic import Lengths, Traffic, read_trace  # noqa: E402  (after sla: capacity uses it)
from infersim.specs.speculation import Speculation

__all__ = ["Request", "serve", "ServeResult", "ServingMetrics", "evaluate_serving", "sla_search",
           "SLAResult", "ServingPoint", "best_disaggregated", "BATCHING", "DEFAULT_CHUNK_TOKENS",
           "Traffic", "Lengths", "read_trace", "Scheduler", "simulate_traffic", "TrafficResult",
           "max_rate", "MaxRate", "capacity_search", "CapacityResult", "Speculation"]
