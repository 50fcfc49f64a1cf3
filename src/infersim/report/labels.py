"""Human labels with units for the fields of results and specs: one table for the UI's tables,
controls and hover text and the plots' axes and colour bars (issue 27: no raw identifiers such as
``hw_bw_hbm_gbs`` on screen). Pure data, no imports."""
from __future__ import annotations

#: field → label (unit in parentheses). Hardware knobs appear bare and as ``hw_<knob>`` columns.
LABELS: dict[str, str] = {
    "pe_hbm_gb": "HBM per PE (GB)", "bw_hbm_gbs": "HBM bandwidth (GB/s)",
    "peak_tflops_f16": "Peak fp16 (TFLOPS)", "bw_intra_gbs": "Intra-cube link (GB/s)",
    "bw_inter_gbs": "Inter-cube link (GB/s)", "bw_intersip_gbs": "Inter-SiP link (GB/s)",
    "pes_per_cube": "PEs per cube", "cubes_per_sip": "Cubes per SiP", "n_sips": "SiPs (nodes)",
    "pes": "PEs used", "total_latency_ms": "latency (ms)", "latency_ms": "latency (ms)",
    "tokens_per_s": "throughput (tok/s)", "tokens_per_s_per_pe": "throughput per PE (tok/s)",
    "tokens_per_usd": "tokens per $ of TCO", "tokens_per_j": "tokens per joule",
    "system_cost_usd": "system cost ($)", "system_power_w": "system power (W)", "cost_score": "cost score",
    "ttft_ms": "TTFT (ms)", "tpot_ms": "TPOT (ms)", "tok_s": "tok/s", "tok_s_per_pe": "tok/s per PE",
    "tok_s_per_user": "tok/s per user", "tok_s_per_usd": "tokens per $", "tok_s_per_w": "tok/s per W",
    "capex_usd": "capex ($)", "batch": "batch (sequences)", "mem_per_pe_gb": "memory per PE (GB)",
    "tp": "TP", "cp": "CP", "pp": "PP", "dp": "DP", "ep": "EP", "microbatches": "micro-batches",
    "kv_shard_mode": "KV shard mode", "ffn_shard_scope": "FFN shard scope", "tp_placement": "TP placement",
    "cp_placement": "CP placement", "cp_ring_variant": "CP ring variant",
    # objectives (search, co-design, serving)
    "latency": "latency", "throughput": "throughput", "throughput_per_pe": "throughput per PE",
}


def label(field: str) -> str:
    """The label of ``field`` (``hw_<knob>`` as its knob); an unknown field with its underscores
    turned to spaces rather than shown raw."""
    return LABELS.get(field) or LABELS.get(field.removeprefix("hw_")) or field.replace("_", " ")
