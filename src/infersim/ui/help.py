"""Tooltip text for every control (one place, so each knob is explained the same way on every
tab). Wording follows docs/physics.md, docs/codesign.md and docs/serving.md."""
from __future__ import annotations

HELP: dict[str, str] = {
    # ----- sidebar: model ------------------------------------------------------------------------
    "model": "The model to price: a preset (a shipped HuggingFace config.json) or your own config.json.",
    "config_upload": "A HuggingFace config.json (at most 1 MB). It is parsed as content only, never "
                     "opened as a path on the server.",
    "wdtype": "Data type of the weights: 16-bit, fp8, int8 or int4 (AWQ/GPTQ group 128, dequantised to "
              "the activation type for the GEMM). 'as the model' keeps the checkpoint's own.",
    "kvdtype": "Data type of the KV cache: fp8/int8 halve its memory and the bytes attention reads.",
    "adtype": "Data type of the activations; a GEMM runs in the wider of its two operands' types "
              "(fp8 × fp8 uses the fp8 tensor rate).",
    "hdtype": "Data type of the embedding and LM head. 'as the model': 16-bit beside quantised weights, "
              "as ModelOpt, AWQ, GPTQ, bitsandbytes and vLLM's fp8 checkpoints ship them (Llama 3.1 8B's "
              "head is 1 GB in bf16); gpt-fast and torchao quantise it with the other weights.",
    # ----- sidebar: hardware ---------------------------------------------------------------------
    "hw": "The system: PEs with their own HBM, grouped into cubes (fast links) and SiPs / nodes "
          "(slower links). Presets are sourced data files; or upload your own hardware file.",
    "hw_upload": "A hardware file (.toml, .json, .yaml; at most 1 MB; schema in docs/hardware.md, e.g. "
                 "docs/examples/mychip.toml). Parsed as content only; 'base' may name a preset.",
    "pe_hbm_gb": "HBM capacity per PE (GB = 10⁹ bytes). The runtime lets weights, KV cache and "
                 "workspace use mem_fraction of it (0.90 for graph-captured stacks).",
    "bw_hbm_gbs": "HBM bandwidth per PE (GB/s). Decode at small batch streams every weight once per "
                  "token, so this usually sets decode latency.",
    "peak_tflops_f16": "Peak 16-bit tensor throughput per PE (TFLOP/s); fp8/int8 run at the part's "
                       "speed-up over it. Sets prefill and large-batch decode time.",
    "bw_intra_gbs": "Link bandwidth per PE per direction between the PEs of one cube (NVLink-class).",
    "bw_inter_gbs": "Link bandwidth per PE per direction between the cubes of one SiP.",
    "bw_intersip_gbs": "Link bandwidth per PE per direction between SiPs / nodes (InfiniBand-class).",
    "pes_per_cube": "PEs per cube: the group joined by the fastest (intra-cube) links.",
    "cubes_per_sip": "Cubes per SiP (node), joined by the inter-cube links.",
    "n_sips": "Number of SiPs / nodes, joined by the inter-SiP (scale-out) links.",
    # ----- sidebar: workload and runtime ---------------------------------------------------------
    "mode": "decode: each sequence produces one token attending to s_kv cached tokens (time per "
            "token). prefill: each sequence processes s_q new tokens (time to first token).",
    "s_kv": "Context length in tokens after the step (decode: tokens already in the KV cache). "
            "Must be at least 1.",
    "batch": "Sequences processed together in one step, over all data-parallel replicas.",
    "s_q": "Prefill only: new tokens per sequence; 0 means all of s_kv (no cached prefix).",
    "runtime": "Software stack: cuda-graphs = graph-captured decode (TensorRT-LLM, vLLM, SGLang); eager = "
               "kernels launched one by one from Python; trtllm-2023 = TensorRT-LLM v0.5/0.6. Sets "
               "kernel gaps, host launches, per-step cost and the usable HBM fraction.",
    # ----- Simulate: parallelism -------------------------------------------------------------------
    "tp": "Tensor parallelism: attention heads and FFN columns/rows split over TP PEs; costs an "
          "all-reduce of the activations after attention and after the FFN.",
    "cp": "Context parallelism: the sequence / KV cache split over CP PEs; costs a ring (prefill) or "
          "a combine of partial attention outputs (decode).",
    "pp": "Pipeline parallelism: layers split into PP stages (must divide the layer count); one "
          "token crosses every stage, so latency is the sum over stages.",
    "dp": "Data parallelism: the batch split over DP replicas (DP ≤ batch); weights are replicated.",
    "ep": "Expert parallelism (MoE only): experts spread over EP of the TP·CP·DP ranks, with an "
          "all-to-all dispatch and combine; the busiest rank sets the time.",
    "microbatches": "Pipeline micro-batches in flight (0 = the default, min(PP, sequences per "
                    "replica)). More keep the stages busy but re-read each stage's weights.",
    "kv_shard_mode": "How the KV cache is split inside the TP group. head: by KV head (replicated when "
                     "KV heads < TP). seq: by sequence over the whole TP group (gathers queries, "
                     "combines partial outputs). hybrid: by head, then by sequence inside the replicas.",
    "ffn_shard_scope": "TP: the FFN is split over the TP group. TP+CP: also over the CP ranks (they hold "
                       "the same token after the attention combine), cp× less FFN weight per PE at the "
                       "price of an all-reduce over the larger group.",
    "tp_placement": "Where the TP ranks sit. cube: inside one cube on the fastest links (default). "
                    "spread: CP ranks inside the cube, TP across cubes.",
    "cp_placement": "Where the CP ranks sit. pe: neighbouring PEs (default). spread: as far apart as "
                    "possible (outermost level).",
    "cp_ring_variant": "CP ring. kv (pass-KV, prefill default): KV chunks rotate around the ring, hidden "
                       "under the block attention when they can. qoml (pass-Q, decode default): queries "
                       "travel and partial outputs O, m, l come back; decode shards the batch over the CP ranks "
                       "(padded to a multiple of cp). default: by mode.",
    # ----- Explore ---------------------------------------------------------------------------------
    "objective": "What 'best' means. latency: time per step (decode: per token). throughput: tokens/s "
                 "of the deployment. throughput_per_pe: tokens/s per PE used. tok_s_per_usd: tokens per "
                 "dollar of TCO. tok_s_per_w: tokens per joule. On one hardware the $ and W objectives "
                 "rank like throughput_per_pe.",
    "ex_top": "How many ranked configs the table shows (the CSV holds every fitting config).",
    "row": "The row that 'Open in Simulate' and 'Pin to Compare' act on.",
    # ----- Co-design -------------------------------------------------------------------------------
    "depth": "Hardware candidates: two_stage = 1 (the base hardware, memory-first pick), balanced = 64 "
             "(×1, ×2 per knob), coarse = 729 (×0.5, ×1, ×2), custom = your value lists below "
             "(system size too). Every candidate searches the full parallelism space.",
    "cd_objective": "One objective drives every pick, the chart's axis, the frontier and the sensitivity: "
                    "latency, throughput, throughput_per_pe, tok_s_per_usd (tokens per $ of TCO) or "
                    "tok_s_per_w (tokens per joule).",
    "cd_x": "The chart's cost axis. system cost ($): capex of the PEs a pair uses (sourced cost model), "
            "which separates designs of different size. cost_score: the capability score Σ knob/default "
            "per PE (6.0 at the defaults; not dollars).",
    "cd_colour": "A second dimension for the points' colour: a hardware knob of the candidate (hw_...) or "
                 "the PEs its deployment uses. The default is the knob the sensitivity ranks first.",
    "design_point": "Where sensitivity and 'what it takes' are measured: the best hardware found, or the "
                    "base hardware from the sidebar ('I have X; which knob should I double?').",
    "grid": "Comma-separated values for this knob (e.g. 1000, 2000, 4000); empty = the base value. "
            "Write numbers without thousands separators (1000, not 1,000).",
    "cd_mode": "one step: the hardware that runs one step of the sidebar's workload best (latency, "
               "throughput, tokens per $ or per joule). serving SLA: the hardware whose best "
               "single-replica deployment serves requests of a shape (isl, osl) within TTFT/TPOT "
               "limits for the most tokens per $ (or per W, per PE, in total); the sidebar's workload "
               "does not apply there.",
    # ----- Co-design at a serving SLA ----------------------------------------------------------------
    "cs_ttft": "Time-to-first-token limit in ms (0 = no limit). An SLA co-design needs a TTFT or a TPOT "
               "limit, or both.",
    "cs_tpot": "Time-per-output-token limit in ms (0 = no limit); 1000 / TPOT is each user's tokens/s. "
               "An SLA co-design needs a TTFT or a TPOT limit, or both.",
    "cs_objective": "What ranks the hardware candidates, each at its best SLA-meeting single-replica "
                    "deployment: tok_s_per_usd (tokens per $ of TCO, capex amortised plus power), "
                    "tok_s_per_w (tokens/s per W of system power), tok_s_per_pe (tokens/s per PE) or "
                    "tok_s (tokens/s of one replica). It drives the pick, the chart's axis and the "
                    "sensitivity.",
    # ----- Serving ---------------------------------------------------------------------------------
    "isl": "Mean input (prompt) tokens per request.",
    "osl": "Mean output tokens per request.",
    "prefix_hit": "Fraction of the prompt already in a prefix cache (its KV is not recomputed), 0–0.99.",
    "ttft_ms": "Time-to-first-token limit in ms (0 = no limit).",
    "tr_rate": "Requests per second arriving at the deployment (open loop: they arrive whether or not "
               "earlier ones are done). The default is 80% of the deployment's steady-state saturation.",
    "tr_arrival": "poisson: independent arrivals at the rate; gamma: bursty arrivals whose gaps have the "
                  "coefficient of variation below (CV 1 is Poisson, larger is burstier).",
    "tr_cv": "Coefficient of variation of the gaps between arrivals (gamma arrivals only).",
    "tr_n": "Requests simulated (all of the SLA search's request shape); percentiles need a few thousand.",
    "tpot_ms": "Time-per-output-token limit in ms (0 = no limit); 1000 / TPOT is each user's tokens/s.",
    "sv_objective": "What the SLA search maximises among deployments that meet the SLA: tok_s_per_pe "
                    "(tokens/s per PE), tok_s (tokens/s of the deployment) or tok_s_per_user.",
    "batching": "continuous: in-flight batching with chunked prefill mixed into decode steps (vLLM, "
                "SGLang, TensorRT-LLM). static: a batch arrives together, is prefilled, then decoded.",
    "chunk_tokens": "Continuous batching: prompt tokens the scheduler mixes into one step (8192 as in "
                    "SGLang and vLLM V1).",
    "batch_cap": "Most sequences in flight the search tries (the KV capacity may stop it earlier).",
    "disaggregated": "Also search disaggregated serving: x prefill and y decode instances on the same "
                     "system, with the KV cache sent between them (xPyD).",
    # ----- Compare ---------------------------------------------------------------------------------
    "pin": "The pinned configuration that 'Open in Simulate' and 'Remove' act on.",
    "export_upload": "An export written by a 'Download result (JSON)' button: it is re-run with this "
                     "infersim and pinned (at most 1 MB, parsed as content).",
}
