"""Published measurements infersim is validated and calibrated against, each with its source.

Each row: (source, model preset, hardware preset, dtypes, tp, batch, input tokens, output tokens,
metric, published value). ``dtypes``: "16" (bf16/fp16 weights, activations and KV), "fp8"
(weights, activations and KV cache in fp8, TensorRT-LLM / Quark FP8-KV style), "fp8wo" (fp8
weight-only), "int8wo" (int8
weight-only: bf16 activations and KV), "16kv8" (bf16 weights, fp8 KV cache). Metrics:

* ``decode_tok_s_per_seq`` — generated tokens per second of one sequence = osl / (prefill(isl) +
  (osl − 1) decode steps);
* ``tpot_ms`` — one decode step at the mean context isl + osl/2;
* ``ttft_ms`` — one prefill of isl tokens for the batch;
* ``e2e_latency_ms`` — prefill(isl) + (osl − 1) decode steps at the mean context (static batch);
* ``throughput_tok_s_per_gpu`` / ``output_tok_s_total`` — batch · osl / e2e latency (per GPU).

Decode time is linear in the context, so the mean context gives the exact sum of the steps.
Transcribed from the stored copies named in ``SOURCES`` (file and commit, or URL); nothing is
derived except the stated unit conversions (seconds → ms). A row whose source is excluded, or
which has a note in ``EXCLUDED_ROWS``, is shown in the report but neither fitted nor scored.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Source:
    title: str
    where: str            # URL, or repository + path + commit
    runtime: str          # infersim runtime profile that reproduces its software stack
    split: str            # "used" | "excluded" (with the reason in ``note``)
    note: str = ""
    #: its rows' embedding and LM head dtype (``Measurement.head``): "weights" where the quantiser
    #: converts every Linear, the LM head included (gpt-fast, torchao); "" = 16-bit
    head: str = ""


SOURCES: dict[str, Source] = {
    "gptfast_readme": Source(
        "gpt-fast README (PyTorch team), batch 1, A100-80GB power-limited to 330 W, torch.compile "
        "reduce-overhead (CUDA graphs), custom intra-node all-reduce",
        "github.com/pytorch-labs/gpt-fast README.md @ c9f683edd4f89d3e81ed8f52387e866a245e3226",
        "cuda-graphs", "used", head="weights"),
    "gptfast_blog_eager": Source(
        "PyTorch blog 'Accelerating Generative AI with PyTorch II: GPT, Fast', starting point: a "
        "simple eager implementation, Llama-2-7B, batch 1, A100-80GB at 330 W",
        "https://pytorch.org/blog/accelerating-generative-ai-2/ ('Starting Point (25.5 tok/s)')",
        "eager", "used"),
    "trtllm_v0.5_lowlat": Source(
        "TensorRT-LLM v0.5.0 performance.md, Low Latency table (batch 1, 1st token latency)",
        "github.com/NVIDIA/TensorRT-LLM docs/source/performance.md (release v0.5.0)",
        "trtllm-2023", "used"),
    "trtllm_v0.6.1_thr": Source(
        "TensorRT-LLM performance.md (data v0.6.1), Peak Throughput table, gptSessionBenchmark "
        "static batching, output tok/s per GPU",
        "github.com/NVIDIA/TensorRT-LLM docs/source/performance.md (data v0.6.1)",
        "trtllm-2023", "used"),
    "trtllm_blog_h100vsa100": Source(
        "TensorRT-LLM blog 'H100 has 4.6x A100 performance', GPT-J 6B, H100 FP8 vs A100 FP16; "
        "batch-1 rows give no output length (128 assumed)",
        "github.com/NVIDIA/TensorRT-LLM docs/source/blogs/H100vsA100.md @ "
        "15ed78097ea2c14b3831ca017935a32dec54476e", "trtllm-2023", "used"),
    "gptfast_mixtral_readme": Source(
        "gpt-fast mixtral-moe README, batch 1, A100-80GB (330 W), torch.compile",
        "github.com/pytorch-labs/gpt-fast mixtral-moe/README.md @ "
        "48328fbe8ffc24fd14ddb59c8dfcce3a0291100f", "cuda-graphs", "used", head="weights"),
    "torchao_quant_readme_a100": Source(
        "torchao quantization README, single A100-80GB, batch 1, torch.compile generate.py",
        "github.com/pytorch/ao torchao/quantization/README.md @ "
        "53b6b787bb035f1abc3c4804dd22c09ee41e7a0d", "cuda-graphs", "used", head="weights"),
    "torchao_quant_readme_h100": Source(
        "torchao quantization README, single 'NVIDIA-H100', batch 1",
        "github.com/pytorch/ao torchao/quantization/README.md @ "
        "ce7af7e06cc47bf22a3f15f4f90e1ac866501a73", "cuda-graphs", "excluded",
        "H100 variant not stated: the implied 1.9 TB/s is 57% of the SXM part's 3.35 TB/s but "
        "95% of the PCIe part's 2.0 TB/s; two vLLM sources measure ~6.45 ms, not 7.9 ms", head="weights"),
    "trtllm_perf_v0.9.0": Source(
        "TensorRT-LLM v0.9.0 performance.md ('All data was generated using version 0.9.0'): "
        "batch-1 first-token latency and static-batch throughput, H100/H200 FP8, A100 FP16",
        "github.com/NVIDIA/TensorRT-LLM docs/source/performance.md (release v0.9.0)",
        "trtllm-2023", "used"),
    "trtllm_blog_h200launch": Source(
        "TensorRT-LLM blog 'H200 launch', Llama-2-13B FP8 on one H200, static batch "
        "(the 70B rows were relabelled between versions of the page and are left out)",
        "github.com/NVIDIA/TensorRT-LLM docs/source/blogs/H200launch.md @ "
        "1555478c1b417a0b34de05209862ea5a2ab9add1", "trtllm-2023", "used"),
    "trtllm_blog_falcon180b_h200": Source(
        "TensorRT-LLM blog 'Falcon-180B on a single H200', Llama-2-70B FP8 TP1 rows (v0.7a)",
        "github.com/NVIDIA/TensorRT-LLM docs/source/blogs/Falcon180B-H200.md @ "
        "3c44cb974badec8966108b16054a99c0923e410d", "trtllm-2023", "used"),
    "vllm_blog_fp8_kvcache": Source(
        "vLLM blog 'FP8 KV cache' (v0.19.1): zero-context intercept of the ITL fit at "
        "concurrency 1 (H100, B200), and median ITL at concurrency 8 with ~20k-token inputs",
        "github.com/vllm-project/vllm-project.github.io _posts/2026-04-22-fp8-kvcache.md @ "
        "5ffe2dd543a30f34309d71d8374803612223e9fb", "vllm", "used"),
    "vllm_ci": Source(
        "vLLM nightly performance benchmark, latency tests: static batch 8, 32 input and 128 "
        "output tokens, end-to-end latency (builds 9523 A100, 9555 H100, 9513 H200; release not "
        "stated: synchronous scheduling, as in every release before 0.14)",
        "https://buildkite.com/vllm/performance-benchmark/builds/9523, /9555, /9513",
        "vllm-0.13", "used"),
    "inferencebench_vllm_h100": Source(
        "InferenceBench concurrency sweep, vLLM 0.21.0 on H100 80GB HBM3, p50 TPOT at "
        "concurrency 1 ('chatbot-short' lengths not stated: 512 in / 256 out assumed)",
        "https://yobitelcomm.github.io/bench/recipes/concurrency-sweep/", "vllm", "used"),
    "rocm_vllm_devdocker_v0.10.0": Source(
        "ROCm vLLM dev-docker README (vLLM v0.10.0, ROCm 6.4.1, AITER), MI300X static-batch "
        "latency, FP8 weights and KV (published in seconds)",
        "github.com/ROCm/vllm docs/dev-docker/README.md @ 040de12d45c16d6de6ad386cc57dd68b8c5b805e",
        "vllm-0.13", "used"),
    "oci_blog_mi300x_llama31_405b": Source(
        "Oracle Cloud blog, Llama 3.1 405B FP8 on 8x MI300X with vLLM benchmark_latency, "
        "128 in / 128 out (published in seconds; TP8 assumed: one instance on 8 GPUs; 2024: vLLM's "
        "V0 engine)",
        "https://blogs.oracle.com/cloud-infrastructure/serving-llama-31-405b-model-with-amd-mi300x-gpus",
        "vllm-v0", "used"),
    "nemo_llama2_inference": Source(
        "NeMo Framework Llama-2 inference performance (TensorRT-LLM engines), 128 in / 20 out",
        "https://docs.nvidia.com/nemo-framework/user-guide/latest/performance/llama.html",
        "trtllm-2023", "excluded",
        "internally inconsistent (13B TP1 faster than 7B TP1 on A100; 13B TP4 slower at batch 1 "
        "than at 2), questioned in NVIDIA/NeMo discussion #8455"),
    "gptfast_readme_2023-11": Source(
        "gpt-fast README before the custom intra-node all-reduce (TP rows with NCCL)",
        "github.com/pytorch-labs/gpt-fast README.md @ d2c5d8223fd00ab5ce469d8fdd93a7de78fb8b4a",
        "cuda-graphs", "excluded",
        "NCCL all-reduce of that PyTorch nightly: a software collective cost the hardware link "
        "latencies do not describe (the same box ran TP8 1.8x faster after the custom all-reduce)", head="weights"),
}

_MISTRAL_V09 = ("Mistral 7B decode in TensorRT-LLM v0.9 did not get its GQA advantage: in the same "
                "table it decodes no faster than Llama-2-7B (MHA), whose KV cache is 4x larger, as "
                "when a kernel re-reads the KV cache per query head (cf. the pre-XQA rows)")
_MIXTRAL_FP8_V09 = ("TensorRT-LLM v0.9's FP8 Mixtral: in the same table its H100 FP8 first-token "
                    "latency is only 1.8x A100 FP16 (4.3x for Llama-2-7B), so its MoE path did not "
                    "run as FP8 GEMMs")

#: Rows shown but neither fitted nor scored, with the reason, keyed (source, model, hardware,
#: tp, batch, isl, osl); the reason must be visible in the source itself, not in infersim's error.
EXCLUDED_ROWS: dict[tuple, str] = {
    ("trtllm_v0.6.1_thr", "Llama 2 70B", "H100-SXM x8", 4, 480, 128, 2048):
        "pre-XQA kernel re-reads GQA KV per query head",
    ("trtllm_v0.6.1_thr", "Llama 2 70B", "H100-SXM x8", 2, 64, 2048, 2048):
        "pre-XQA kernel re-reads GQA KV per query head",
    **{("trtllm_perf_v0.9.0", "Mistral 7B", hw, 1, b, isl, osl): _MISTRAL_V09
       for hw, b, isl, osl in [(h, b, i, o) for h in ("H100-SXM x8", "H200 x8", "A100-SXM x8")
                               for b, i, o in ((896, 128, 128), (120, 128, 2048), (84, 2048, 128),
                                               (64, 2048, 128), (56, 2048, 2048))]},
    **{("trtllm_perf_v0.9.0", "Mixtral 8x7B", hw, 2, b, isl, osl): _MIXTRAL_FP8_V09
       for hw in ("H100-SXM x8", "H200 x8")
       for b, isl, osl in ((1, 128, 1), (1, 2048, 1), (1024, 128, 128), (512, 128, 128),
                           (256, 128, 2048), (128, 128, 2048), (64, 2048, 128), (64, 2048, 2048),
                           (32, 2048, 2048))},
}

# (source, model, hardware, dtypes, tp, batch, isl, osl, metric, value)
ROWS: list[tuple] = [
    ('gptfast_blog_eager', 'Llama 2 7B', 'A100-SXM x8', '16', 1, 1, 5, 200, 'decode_tok_s_per_seq', 25.5),
    ('trtllm_v0.5_lowlat', 'GPT-J 6B', 'H100-SXM x8', 'fp8', 1, 1, 128, 1, 'ttft_ms', 7.0),
    ('trtllm_v0.5_lowlat', 'GPT-J 6B', 'H100-SXM x8', 'fp8', 1, 1, 2048, 1, 'ttft_ms', 29.0),
    ('trtllm_v0.5_lowlat', 'Llama 2 7B', 'H100-SXM x8', 'fp8', 1, 1, 128, 1, 'ttft_ms', 7.0),
    ('trtllm_v0.5_lowlat', 'Llama 2 7B', 'H100-SXM x8', 'fp8', 1, 1, 2048, 1, 'ttft_ms', 36.0),
    ('trtllm_v0.5_lowlat', 'Llama 2 70B', 'H100-SXM x8', 'fp8', 4, 1, 128, 1, 'ttft_ms', 26.0),
    ('trtllm_v0.5_lowlat', 'Llama 2 70B', 'H100-SXM x8', 'fp8', 4, 1, 2048, 1, 'ttft_ms', 109.0),
    ('trtllm_v0.5_lowlat', 'GPT-J 6B', 'A100-SXM x8', '16', 1, 1, 128, 1, 'ttft_ms', 12.0),
    ('trtllm_v0.5_lowlat', 'GPT-J 6B', 'A100-SXM x8', '16', 1, 1, 2048, 1, 'ttft_ms', 129.0),
    ('trtllm_v0.5_lowlat', 'Llama 2 7B', 'A100-SXM x8', '16', 1, 1, 128, 1, 'ttft_ms', 16.0),
    ('trtllm_v0.5_lowlat', 'Llama 2 7B', 'A100-SXM x8', '16', 1, 1, 2048, 1, 'ttft_ms', 133.0),
    ('trtllm_v0.5_lowlat', 'Llama 2 70B', 'A100-SXM x8', '16', 4, 1, 128, 1, 'ttft_ms', 47.0),
    ('trtllm_v0.5_lowlat', 'Llama 2 70B', 'A100-SXM x8', '16', 4, 1, 2048, 1, 'ttft_ms', 377.0),
    ('trtllm_v0.6.1_thr', 'GPT-J 6B', 'H100-SXM x8', 'fp8', 1, 1024, 128, 128, 'throughput_tok_s_per_gpu', 26150.0),
    ('trtllm_v0.6.1_thr', 'GPT-J 6B', 'H100-SXM x8', 'fp8', 1, 120, 128, 2048, 'throughput_tok_s_per_gpu', 8011.0),
    ('trtllm_v0.6.1_thr', 'GPT-J 6B', 'H100-SXM x8', 'fp8', 1, 64, 2048, 128, 'throughput_tok_s_per_gpu', 2551.0),
    ('trtllm_v0.6.1_thr', 'GPT-J 6B', 'H100-SXM x8', 'fp8', 1, 64, 2048, 2048, 'throughput_tok_s_per_gpu', 3327.0),
    ('trtllm_v0.6.1_thr', 'Llama 2 7B', 'H100-SXM x8', 'fp8', 1, 768, 128, 128, 'throughput_tok_s_per_gpu', 19694.0),
    ('trtllm_v0.6.1_thr', 'Llama 2 7B', 'H100-SXM x8', 'fp8', 1, 112, 128, 2048, 'throughput_tok_s_per_gpu', 6818.0),
    ('trtllm_v0.6.1_thr', 'Llama 2 7B', 'H100-SXM x8', 'fp8', 1, 80, 2048, 128, 'throughput_tok_s_per_gpu', 2244.0),
    ('trtllm_v0.6.1_thr', 'Llama 2 7B', 'H100-SXM x8', 'fp8', 1, 48, 2048, 2048, 'throughput_tok_s_per_gpu', 2740.0),
    ('trtllm_v0.6.1_thr', 'Llama 2 70B', 'H100-SXM x8', 'fp8', 2, 1024, 128, 128, 'throughput_tok_s_per_gpu', 2657.0),
    ('trtllm_v0.6.1_thr', 'Llama 2 70B', 'H100-SXM x8', 'fp8', 4, 480, 128, 2048, 'throughput_tok_s_per_gpu', 1486.0),
    ('trtllm_v0.6.1_thr', 'Llama 2 70B', 'H100-SXM x8', 'fp8', 2, 96, 2048, 128, 'throughput_tok_s_per_gpu', 306.0),
    ('trtllm_v0.6.1_thr', 'Llama 2 70B', 'H100-SXM x8', 'fp8', 2, 64, 2048, 2048, 'throughput_tok_s_per_gpu', 547.0),
    ('trtllm_v0.6.1_thr', 'GPT-J 6B', 'A100-SXM x8', '16', 1, 512, 128, 128, 'throughput_tok_s_per_gpu', 6374.0),
    ('trtllm_v0.6.1_thr', 'GPT-J 6B', 'A100-SXM x8', '16', 1, 60, 2048, 128, 'throughput_tok_s_per_gpu', 670.0),
    ('trtllm_v0.6.1_thr', 'Llama 2 7B', 'A100-SXM x8', '16', 1, 384, 128, 128, 'throughput_tok_s_per_gpu', 5586.0),
    ('trtllm_v0.6.1_thr', 'Llama 2 7B', 'A100-SXM x8', '16', 1, 60, 128, 2048, 'throughput_tok_s_per_gpu', 1928.0),
    ('trtllm_v0.6.1_thr', 'Llama 2 7B', 'A100-SXM x8', '16', 1, 52, 2048, 128, 'throughput_tok_s_per_gpu', 591.0),
    ('gptfast_readme', 'Llama 2 7B', 'A100-SXM x8', '16', 1, 1, 5, 200, 'decode_tok_s_per_seq', 104.9),
    ('gptfast_readme', 'Llama 2 7B', 'A100-SXM x8', 'int8wo', 1, 1, 5, 200, 'decode_tok_s_per_seq', 155.58),
    ('gptfast_readme', 'Llama 2 70B', 'A100-SXM x8', 'int8wo', 1, 1, 5, 200, 'decode_tok_s_per_seq', 19.13),
    ('gptfast_readme', 'Llama 3.1 8B', 'A100-SXM x8', '16', 1, 1, 5, 200, 'decode_tok_s_per_seq', 93.89),
    ('gptfast_readme', 'Llama 3.1 8B', 'A100-SXM x8', 'int8wo', 1, 1, 5, 200, 'decode_tok_s_per_seq', 137.64),
    ('gptfast_readme', 'Llama 3.1 70B', 'A100-SXM x8', 'int8wo', 1, 1, 5, 200, 'decode_tok_s_per_seq', 18.04),
    ('gptfast_readme', 'Llama 2 7B', 'A100-SXM x8', '16', 2, 1, 5, 200, 'decode_tok_s_per_seq', 168.84),
    ('gptfast_readme', 'Llama 2 7B', 'A100-SXM x8', '16', 4, 1, 5, 200, 'decode_tok_s_per_seq', 254.02),
    ('gptfast_readme', 'Llama 2 7B', 'A100-SXM x8', '16', 8, 1, 5, 200, 'decode_tok_s_per_seq', 328.43),
    ('gptfast_readme', 'Llama 2 70B', 'A100-SXM x8', '16', 2, 1, 5, 200, 'decode_tok_s_per_seq', 21.32),
    ('gptfast_readme', 'Llama 2 70B', 'A100-SXM x8', '16', 4, 1, 5, 200, 'decode_tok_s_per_seq', 38.01),
    ('gptfast_readme', 'Llama 2 70B', 'A100-SXM x8', '16', 8, 1, 5, 200, 'decode_tok_s_per_seq', 62.5),
    ('gptfast_readme', 'Llama 3.1 8B', 'A100-SXM x8', '16', 2, 1, 5, 200, 'decode_tok_s_per_seq', 149.1),
    ('gptfast_readme', 'Llama 3.1 8B', 'A100-SXM x8', '16', 4, 1, 5, 200, 'decode_tok_s_per_seq', 217.21),
    ('gptfast_readme', 'Llama 3.1 8B', 'A100-SXM x8', '16', 8, 1, 5, 200, 'decode_tok_s_per_seq', 276.01),
    ('gptfast_readme', 'Llama 3.1 70B', 'A100-SXM x8', '16', 2, 1, 5, 200, 'decode_tok_s_per_seq', 16.03),
    ('gptfast_readme', 'Llama 3.1 70B', 'A100-SXM x8', '16', 4, 1, 5, 200, 'decode_tok_s_per_seq', 37.45),
    ('gptfast_readme', 'Llama 3.1 70B', 'A100-SXM x8', '16', 8, 1, 5, 200, 'decode_tok_s_per_seq', 58.78),
    ('gptfast_readme', 'Llama 2 70B', 'A100-SXM x8', 'int8wo', 8, 1, 5, 200, 'decode_tok_s_per_seq', 80.44),
    ('gptfast_readme', 'Llama 3.1 70B', 'A100-SXM x8', 'int8wo', 8, 1, 5, 200, 'decode_tok_s_per_seq', 75.58),
    ('gptfast_readme', 'Llama 3.1 405B', 'A100-SXM x8', 'int8wo', 8, 1, 5, 200, 'decode_tok_s_per_seq', 15.6),
    ('gptfast_readme_2023-11', 'Llama 2 7B', 'A100-SXM x8', '16', 8, 1, 5, 200, 'decode_tok_s_per_seq', 179.27),
    ('gptfast_readme_2023-11', 'Llama 2 70B', 'A100-SXM x8', '16', 8, 1, 5, 200, 'decode_tok_s_per_seq', 47.25),
    ('gptfast_readme_2023-11', 'Llama 2 70B', 'A100-SXM x8', '16', 2, 1, 5, 200, 'decode_tok_s_per_seq', 20.53),
    ('gptfast_readme_2023-11', 'Llama 2 70B', 'A100-SXM x8', '16', 4, 1, 5, 200, 'decode_tok_s_per_seq', 34.15),
    ('gptfast_mixtral_readme', 'Mixtral 8x7B', 'A100-SXM x8', '16', 2, 1, 5, 200, 'decode_tok_s_per_seq', 96.67),
    ('gptfast_mixtral_readme', 'Mixtral 8x7B', 'A100-SXM x8', '16', 4, 1, 5, 200, 'decode_tok_s_per_seq', 155.35),
    ('gptfast_mixtral_readme', 'Mixtral 8x7B', 'A100-SXM x8', '16', 8, 1, 5, 200, 'decode_tok_s_per_seq', 227.82),
    ('gptfast_mixtral_readme', 'Mixtral 8x7B', 'A100-SXM x8', 'int8wo', 1, 1, 5, 200, 'decode_tok_s_per_seq', 97.92),
    ('gptfast_mixtral_readme', 'Mixtral 8x7B', 'A100-SXM x8', 'int8wo', 2, 1, 5, 200, 'decode_tok_s_per_seq', 155.03),
    ('gptfast_mixtral_readme', 'Mixtral 8x7B', 'A100-SXM x8', 'int8wo', 4, 1, 5, 200, 'decode_tok_s_per_seq', 216.87),
    ('gptfast_mixtral_readme', 'Mixtral 8x7B', 'A100-SXM x8', 'int8wo', 8, 1, 5, 200, 'decode_tok_s_per_seq', 279.35),
    ('torchao_quant_readme_a100', 'Llama 2 7B', 'A100-SXM x8', '16', 1, 1, 6, 200, 'decode_tok_s_per_seq', 107.38),
    ('torchao_quant_readme_a100', 'Llama 2 7B', 'A100-SXM x8', 'int8wo', 1, 1, 6, 200, 'decode_tok_s_per_seq', 170.83),
    ('torchao_quant_readme_a100', 'Llama 3.1 8B', 'A100-SXM x8', '16', 1, 1, 6, 200, 'decode_tok_s_per_seq', 95.64),
    ('torchao_quant_readme_a100', 'Llama 3.1 8B', 'A100-SXM x8', 'int8wo', 1, 1, 6, 200, 'decode_tok_s_per_seq', 153.03),
    ('torchao_quant_readme_h100', 'Llama 3.1 8B', 'H100-SXM x8', '16', 1, 1, 6, 200, 'decode_tok_s_per_seq', 126.9),
    ('torchao_quant_readme_h100', 'Llama 3.1 8B', 'H100-SXM x8', 'int8wo', 1, 1, 6, 200, 'decode_tok_s_per_seq', 198.85),
    ('torchao_quant_readme_h100', 'Llama 3.1 8B', 'H100-SXM x8', 'fp8wo', 1, 1, 6, 200, 'decode_tok_s_per_seq', 178.46),
    ('torchao_quant_readme_h100', 'Llama 3.1 8B', 'H100-SXM x8', 'fp8', 1, 1, 6, 200, 'decode_tok_s_per_seq', 116.4),
    ('trtllm_perf_v0.9.0', 'GPT-J 6B', 'H200 x8', 'fp8', 1, 1, 128, 1, 'ttft_ms', 5.0),
    ('trtllm_perf_v0.9.0', 'GPT-J 6B', 'H200 x8', 'fp8', 1, 1, 2048, 1, 'ttft_ms', 23.5),
    ('trtllm_perf_v0.9.0', 'Mistral 7B', 'H200 x8', 'fp8', 1, 1, 128, 1, 'ttft_ms', 5.9),
    ('trtllm_perf_v0.9.0', 'Mistral 7B', 'H200 x8', 'fp8', 1, 1, 2048, 1, 'ttft_ms', 31.7),
    ('trtllm_perf_v0.9.0', 'Mixtral 8x7B', 'H200 x8', 'fp8', 2, 1, 128, 1, 'ttft_ms', 12.1),
    ('trtllm_perf_v0.9.0', 'Mixtral 8x7B', 'H200 x8', 'fp8', 2, 1, 2048, 1, 'ttft_ms', 87.7),
    ('trtllm_perf_v0.9.0', 'Llama 2 7B', 'H200 x8', 'fp8', 1, 1, 128, 1, 'ttft_ms', 5.7),
    ('trtllm_perf_v0.9.0', 'Llama 2 7B', 'H200 x8', 'fp8', 1, 1, 2048, 1, 'ttft_ms', 30.2),
    ('trtllm_perf_v0.9.0', 'Llama 2 70B', 'H200 x8', 'fp8', 4, 1, 128, 1, 'ttft_ms', 17.8),
    ('trtllm_perf_v0.9.0', 'Llama 2 70B', 'H200 x8', 'fp8', 4, 1, 2048, 1, 'ttft_ms', 103.0),
    ('trtllm_perf_v0.9.0', 'GPT-J 6B', 'H100-SXM x8', 'fp8', 1, 1, 128, 1, 'ttft_ms', 5.5),
    ('trtllm_perf_v0.9.0', 'GPT-J 6B', 'H100-SXM x8', 'fp8', 1, 1, 2048, 1, 'ttft_ms', 23.8),
    ('trtllm_perf_v0.9.0', 'Mistral 7B', 'H100-SXM x8', 'fp8', 1, 1, 128, 1, 'ttft_ms', 6.5),
    ('trtllm_perf_v0.9.0', 'Mistral 7B', 'H100-SXM x8', 'fp8', 1, 1, 2048, 1, 'ttft_ms', 32.4),
    ('trtllm_perf_v0.9.0', 'Mixtral 8x7B', 'H100-SXM x8', 'fp8', 2, 1, 128, 1, 'ttft_ms', 13.4),
    ('trtllm_perf_v0.9.0', 'Mixtral 8x7B', 'H100-SXM x8', 'fp8', 2, 1, 2048, 1, 'ttft_ms', 89.5),
    ('trtllm_perf_v0.9.0', 'Llama 2 7B', 'H100-SXM x8', 'fp8', 1, 1, 128, 1, 'ttft_ms', 6.3),
    ('trtllm_perf_v0.9.0', 'Llama 2 7B', 'H100-SXM x8', 'fp8', 1, 1, 2048, 1, 'ttft_ms', 30.8),
    ('trtllm_perf_v0.9.0', 'Llama 2 70B', 'H100-SXM x8', 'fp8', 4, 1, 128, 1, 'ttft_ms', 19.6),
    ('trtllm_perf_v0.9.0', 'Llama 2 70B', 'H100-SXM x8', 'fp8', 8, 1, 2048, 1, 'ttft_ms', 85.1),
    ('trtllm_perf_v0.9.0', 'GPT-J 6B', 'A100-SXM x8', '16', 1, 1, 128, 1, 'ttft_ms', 14.8),
    ('trtllm_perf_v0.9.0', 'GPT-J 6B', 'A100-SXM x8', '16', 1, 1, 2048, 1, 'ttft_ms', 136.4),
    ('trtllm_perf_v0.9.0', 'Mistral 7B', 'A100-SXM x8', '16', 1, 1, 128, 1, 'ttft_ms', 16.3),
    ('trtllm_perf_v0.9.0', 'Mistral 7B', 'A100-SXM x8', '16', 1, 1, 2048, 1, 'ttft_ms', 139.6),
    ('trtllm_perf_v0.9.0', 'Mixtral 8x7B', 'A100-SXM x8', '16', 2, 1, 128, 1, 'ttft_ms', 23.8),
    ('trtllm_perf_v0.9.0', 'Mixtral 8x7B', 'A100-SXM x8', '16', 2, 1, 2048, 1, 'ttft_ms', 160.9),
    ('trtllm_perf_v0.9.0', 'Llama 2 7B', 'A100-SXM x8', '16', 1, 1, 128, 1, 'ttft_ms', 16.2),
    ('trtllm_perf_v0.9.0', 'Llama 2 7B', 'A100-SXM x8', '16', 1, 1, 2048, 1, 'ttft_ms', 132.4),
    ('trtllm_perf_v0.9.0', 'Llama 2 70B', 'A100-SXM x8', '16', 4, 1, 128, 1, 'ttft_ms', 45.6),
    ('trtllm_perf_v0.9.0', 'Llama 2 70B', 'A100-SXM x8', '16', 8, 1, 2048, 1, 'ttft_ms', 249.2),
    ('trtllm_perf_v0.9.0', 'Mistral 7B', 'H200 x8', 'fp8', 1, 896, 128, 128, 'throughput_tok_s_per_gpu', 20460),
    ('trtllm_perf_v0.9.0', 'Mistral 7B', 'H200 x8', 'fp8', 1, 120, 128, 2048, 'throughput_tok_s_per_gpu', 8950),
    ('trtllm_perf_v0.9.0', 'Mistral 7B', 'H200 x8', 'fp8', 1, 64, 2048, 128, 'throughput_tok_s_per_gpu', 2423),
    ('trtllm_perf_v0.9.0', 'Mistral 7B', 'H200 x8', 'fp8', 1, 56, 2048, 2048, 'throughput_tok_s_per_gpu', 3867),
    ('trtllm_perf_v0.9.0', 'Mixtral 8x7B', 'H200 x8', 'fp8', 2, 1024, 128, 128, 'throughput_tok_s_per_gpu', 5444),
    ('trtllm_perf_v0.9.0', 'Mixtral 8x7B', 'H200 x8', 'fp8', 2, 256, 128, 2048, 'throughput_tok_s_per_gpu', 4973),
    ('trtllm_perf_v0.9.0', 'Mixtral 8x7B', 'H200 x8', 'fp8', 2, 64, 2048, 128, 'throughput_tok_s_per_gpu', 605),
    ('trtllm_perf_v0.9.0', 'Mixtral 8x7B', 'H200 x8', 'fp8', 2, 64, 2048, 2048, 'throughput_tok_s_per_gpu', 1821),
    ('trtllm_perf_v0.9.0', 'Llama 2 7B', 'H200 x8', 'fp8', 1, 896, 128, 128, 'throughput_tok_s_per_gpu', 20618),
    ('trtllm_perf_v0.9.0', 'Llama 2 7B', 'H200 x8', 'fp8', 1, 120, 128, 2048, 'throughput_tok_s_per_gpu', 8348),
    ('trtllm_perf_v0.9.0', 'Llama 2 7B', 'H200 x8', 'fp8', 1, 64, 2048, 128, 'throughput_tok_s_per_gpu', 2391),
    ('trtllm_perf_v0.9.0', 'Llama 2 7B', 'H200 x8', 'fp8', 1, 56, 2048, 2048, 'throughput_tok_s_per_gpu', 3522),
    ('trtllm_perf_v0.9.0', 'Llama 2 70B', 'H200 x8', 'fp8', 1, 1024, 128, 128, 'throughput_tok_s_per_gpu', 3989),
    ('trtllm_perf_v0.9.0', 'Llama 2 70B', 'H200 x8', 'fp8', 2, 512, 128, 2048, 'throughput_tok_s_per_gpu', 3963),
    ('trtllm_perf_v0.9.0', 'Llama 2 70B', 'H200 x8', 'fp8', 1, 64, 2048, 128, 'throughput_tok_s_per_gpu', 418),
    ('trtllm_perf_v0.9.0', 'Llama 2 70B', 'H200 x8', 'fp8', 1, 64, 2048, 2048, 'throughput_tok_s_per_gpu', 1458),
    ('trtllm_perf_v0.9.0', 'Mistral 7B', 'H100-SXM x8', 'fp8', 1, 896, 128, 128, 'throughput_tok_s_per_gpu', 20404),
    ('trtllm_perf_v0.9.0', 'Mistral 7B', 'H100-SXM x8', 'fp8', 1, 120, 128, 2048, 'throughput_tok_s_per_gpu', 8623),
    ('trtllm_perf_v0.9.0', 'Mistral 7B', 'H100-SXM x8', 'fp8', 1, 84, 2048, 128, 'throughput_tok_s_per_gpu', 2405),
    ('trtllm_perf_v0.9.0', 'Mistral 7B', 'H100-SXM x8', 'fp8', 1, 56, 2048, 2048, 'throughput_tok_s_per_gpu', 3731),
    ('trtllm_perf_v0.9.0', 'Mixtral 8x7B', 'H100-SXM x8', 'fp8', 2, 512, 128, 128, 'throughput_tok_s_per_gpu', 5255),
    ('trtllm_perf_v0.9.0', 'Mixtral 8x7B', 'H100-SXM x8', 'fp8', 2, 128, 128, 2048, 'throughput_tok_s_per_gpu', 3408),
    ('trtllm_perf_v0.9.0', 'Mixtral 8x7B', 'H100-SXM x8', 'fp8', 2, 64, 2048, 128, 'throughput_tok_s_per_gpu', 588),
    ('trtllm_perf_v0.9.0', 'Mixtral 8x7B', 'H100-SXM x8', 'fp8', 2, 32, 2048, 2048, 'throughput_tok_s_per_gpu', 1317),
    ('trtllm_perf_v0.9.0', 'Llama 2 7B', 'H100-SXM x8', 'fp8', 1, 896, 128, 128, 'throughput_tok_s_per_gpu', 19854),
    ('trtllm_perf_v0.9.0', 'Llama 2 7B', 'H100-SXM x8', 'fp8', 1, 120, 128, 2048, 'throughput_tok_s_per_gpu', 6944),
    ('trtllm_perf_v0.9.0', 'Llama 2 7B', 'H100-SXM x8', 'fp8', 1, 84, 2048, 128, 'throughput_tok_s_per_gpu', 2163),
    ('trtllm_perf_v0.9.0', 'Llama 2 7B', 'H100-SXM x8', 'fp8', 1, 56, 2048, 2048, 'throughput_tok_s_per_gpu', 2826),
    ('trtllm_perf_v0.9.0', 'Llama 2 70B', 'H100-SXM x8', 'fp8', 2, 1024, 128, 128, 'throughput_tok_s_per_gpu', 3214),
    ('trtllm_perf_v0.9.0', 'Llama 2 70B', 'H100-SXM x8', 'fp8', 4, 512, 128, 2048, 'throughput_tok_s_per_gpu', 2725),
    ('trtllm_perf_v0.9.0', 'Llama 2 70B', 'H100-SXM x8', 'fp8', 2, 96, 2048, 128, 'throughput_tok_s_per_gpu', 346),
    ('trtllm_perf_v0.9.0', 'Llama 2 70B', 'H100-SXM x8', 'fp8', 2, 64, 2048, 2048, 'throughput_tok_s_per_gpu', 1011),
    ('trtllm_perf_v0.9.0', 'Mistral 7B', 'A100-SXM x8', '16', 1, 896, 128, 128, 'throughput_tok_s_per_gpu', 6251),
    ('trtllm_perf_v0.9.0', 'Mistral 7B', 'A100-SXM x8', '16', 1, 120, 128, 2048, 'throughput_tok_s_per_gpu', 3776),
    ('trtllm_perf_v0.9.0', 'Mistral 7B', 'A100-SXM x8', '16', 1, 64, 2048, 128, 'throughput_tok_s_per_gpu', 698),
    ('trtllm_perf_v0.9.0', 'Mistral 7B', 'A100-SXM x8', '16', 1, 56, 2048, 2048, 'throughput_tok_s_per_gpu', 1576),
    ('trtllm_perf_v0.9.0', 'Mixtral 8x7B', 'A100-SXM x8', '16', 2, 512, 128, 128, 'throughput_tok_s_per_gpu', 2842),
    ('trtllm_perf_v0.9.0', 'Mixtral 8x7B', 'A100-SXM x8', '16', 2, 128, 128, 2048, 'throughput_tok_s_per_gpu', 1724),
    ('trtllm_perf_v0.9.0', 'Mixtral 8x7B', 'A100-SXM x8', '16', 2, 64, 2048, 128, 'throughput_tok_s_per_gpu', 319),
    ('trtllm_perf_v0.9.0', 'Mixtral 8x7B', 'A100-SXM x8', '16', 2, 32, 2048, 2048, 'throughput_tok_s_per_gpu', 801),
    ('trtllm_perf_v0.9.0', 'Llama 2 7B', 'A100-SXM x8', '16', 1, 256, 128, 128, 'throughput_tok_s_per_gpu', 5390),
    ('trtllm_perf_v0.9.0', 'Llama 2 7B', 'A100-SXM x8', '16', 1, 32, 128, 2048, 'throughput_tok_s_per_gpu', 1484),
    ('trtllm_perf_v0.9.0', 'Llama 2 7B', 'A100-SXM x8', '16', 1, 32, 2048, 128, 'throughput_tok_s_per_gpu', 533),
    ('trtllm_perf_v0.9.0', 'Llama 2 7B', 'A100-SXM x8', '16', 1, 16, 2048, 2048, 'throughput_tok_s_per_gpu', 603),
    ('trtllm_perf_v0.9.0', 'Llama 2 70B', 'A100-SXM x8', '16', 4, 1024, 128, 128, 'throughput_tok_s_per_gpu', 686),
    ('trtllm_perf_v0.9.0', 'Llama 2 70B', 'A100-SXM x8', '16', 8, 512, 128, 2048, 'throughput_tok_s_per_gpu', 684),
    ('trtllm_perf_v0.9.0', 'Llama 2 70B', 'A100-SXM x8', '16', 4, 96, 2048, 128, 'throughput_tok_s_per_gpu', 80),
    ('trtllm_perf_v0.9.0', 'Llama 2 70B', 'A100-SXM x8', '16', 4, 64, 2048, 2048, 'throughput_tok_s_per_gpu', 289),
    ('trtllm_blog_h100vsa100', 'GPT-J 6B', 'H100-SXM x8', 'fp8', 1, 1, 128, 128, 'decode_tok_s_per_seq', 185),
    ('trtllm_blog_h100vsa100', 'GPT-J 6B', 'A100-SXM x8', '16', 1, 1, 128, 128, 'decode_tok_s_per_seq', 111),
    ('trtllm_blog_h100vsa100', 'GPT-J 6B', 'H100-SXM x8', 'fp8', 1, 64, 128, 128, 'output_tok_s_total', 10907),
    ('trtllm_blog_h100vsa100', 'GPT-J 6B', 'A100-SXM x8', '16', 1, 64, 128, 128, 'output_tok_s_total', 3679),
    ('trtllm_blog_h100vsa100', 'GPT-J 6B', 'H100-SXM x8', 'fp8', 1, 64, 128, 128, 'ttft_ms', 102),
    ('trtllm_blog_h100vsa100', 'GPT-J 6B', 'A100-SXM x8', '16', 1, 64, 128, 128, 'ttft_ms', 481),
    ('trtllm_blog_h200launch', 'Llama 2 13B', 'H200 x8', 'fp8', 1, 1024, 128, 128, 'throughput_tok_s_per_gpu', 11819),
    ('trtllm_blog_h200launch', 'Llama 2 13B', 'H200 x8', 'fp8', 1, 128, 128, 2048, 'throughput_tok_s_per_gpu', 4750),
    ('trtllm_blog_h200launch', 'Llama 2 13B', 'H200 x8', 'fp8', 1, 64, 2048, 128, 'throughput_tok_s_per_gpu', 1349),
    ('trtllm_blog_falcon180b_h200', 'Llama 2 70B', 'H200 x8', 'fp8', 1, 960, 128, 128, 'throughput_tok_s_per_gpu', 3803),
    ('trtllm_blog_falcon180b_h200', 'Llama 2 70B', 'H200 x8', 'fp8', 1, 192, 128, 2048, 'throughput_tok_s_per_gpu', 2941),
    ('trtllm_blog_falcon180b_h200', 'Llama 2 70B', 'H200 x8', 'fp8', 1, 96, 128, 4096, 'throughput_tok_s_per_gpu', 1946),
    ('nemo_llama2_inference', 'Llama 2 7B', 'A100-SXM x8', '16', 1, 1, 128, 20, 'e2e_latency_ms', 234.0),
    ('nemo_llama2_inference', 'Llama 2 7B', 'H100-SXM x8', '16', 1, 1, 128, 20, 'e2e_latency_ms', 153.8),
    ('nemo_llama2_inference', 'Llama 2 7B', 'A100-SXM x8', '16', 1, 8, 128, 20, 'e2e_latency_ms', 329.5),
    ('nemo_llama2_inference', 'Llama 2 7B', 'H100-SXM x8', '16', 1, 8, 128, 20, 'e2e_latency_ms', 199.2),
    ('nemo_llama2_inference', 'Llama 2 7B', 'A100-SXM x8', '16', 2, 1, 128, 20, 'e2e_latency_ms', 171.7),
    ('nemo_llama2_inference', 'Llama 2 7B', 'H100-SXM x8', '16', 2, 1, 128, 20, 'e2e_latency_ms', 128.6),
    ('nemo_llama2_inference', 'Llama 2 7B', 'A100-SXM x8', '16', 2, 8, 128, 20, 'e2e_latency_ms', 237.6),
    ('nemo_llama2_inference', 'Llama 2 7B', 'H100-SXM x8', '16', 2, 8, 128, 20, 'e2e_latency_ms', 156.2),
    ('nemo_llama2_inference', 'Llama 2 7B', 'A100-SXM x8', '16', 4, 1, 128, 20, 'e2e_latency_ms', 143.7),
    ('nemo_llama2_inference', 'Llama 2 7B', 'H100-SXM x8', '16', 4, 1, 128, 20, 'e2e_latency_ms', 107.4),
    ('nemo_llama2_inference', 'Llama 2 7B', 'A100-SXM x8', '16', 4, 8, 128, 20, 'e2e_latency_ms', 196.4),
    ('nemo_llama2_inference', 'Llama 2 7B', 'H100-SXM x8', '16', 4, 8, 128, 20, 'e2e_latency_ms', 134.6),
    ('nemo_llama2_inference', 'Llama 2 7B', 'A100-SXM x8', '16', 8, 1, 128, 20, 'e2e_latency_ms', 136.5),
    ('nemo_llama2_inference', 'Llama 2 7B', 'H100-SXM x8', '16', 8, 1, 128, 20, 'e2e_latency_ms', 97.6),
    ('nemo_llama2_inference', 'Llama 2 7B', 'A100-SXM x8', '16', 8, 8, 128, 20, 'e2e_latency_ms', 181.9),
    ('nemo_llama2_inference', 'Llama 2 7B', 'H100-SXM x8', '16', 8, 8, 128, 20, 'e2e_latency_ms', 129.1),
    ('nemo_llama2_inference', 'Llama 2 13B', 'A100-SXM x8', '16', 1, 1, 128, 20, 'e2e_latency_ms', 142.5),
    ('nemo_llama2_inference', 'Llama 2 13B', 'H100-SXM x8', '16', 1, 1, 128, 20, 'e2e_latency_ms', 86.4),
    ('nemo_llama2_inference', 'Llama 2 13B', 'A100-SXM x8', '16', 1, 8, 128, 20, 'e2e_latency_ms', 282.6),
    ('nemo_llama2_inference', 'Llama 2 13B', 'H100-SXM x8', '16', 1, 8, 128, 20, 'e2e_latency_ms', 146.7),
    ('nemo_llama2_inference', 'Llama 2 13B', 'A100-SXM x8', '16', 2, 1, 128, 20, 'e2e_latency_ms', 100.4),
    ('nemo_llama2_inference', 'Llama 2 13B', 'H100-SXM x8', '16', 2, 1, 128, 20, 'e2e_latency_ms', 69.7),
    ('nemo_llama2_inference', 'Llama 2 13B', 'A100-SXM x8', '16', 4, 1, 128, 20, 'e2e_latency_ms', 207.8),
    ('nemo_llama2_inference', 'Llama 2 13B', 'H100-SXM x8', '16', 4, 1, 128, 20, 'e2e_latency_ms', 61.4),
    ('vllm_blog_fp8_kvcache', 'Llama 3.1 8B', 'H100-SXM x8', '16', 1, 1, 64, 128, 'tpot_ms', 6.44),
    ('vllm_blog_fp8_kvcache', 'Llama 3.1 8B', 'B200 x8', '16', 1, 1, 64, 128, 'tpot_ms', 3.93),
    ('vllm_blog_fp8_kvcache', 'Llama 3.1 8B', 'H100-SXM x8', '16', 1, 8, 20000, 2000, 'tpot_ms', 15.18),
    ('vllm_blog_fp8_kvcache', 'Llama 3.1 8B', 'H100-SXM x8', '16kv8', 1, 8, 20000, 2000, 'tpot_ms', 12.93),
    ('vllm_ci', 'Llama 3.1 8B', 'A100-SXM x8', '16', 1, 8, 32, 128, 'e2e_latency_ms', 1579.27),
    ('vllm_ci', 'Llama 3.1 70B', 'A100-SXM x8', '16', 4, 8, 32, 128, 'e2e_latency_ms', 3990.59),
    ('vllm_ci', 'Mixtral 8x7B', 'A100-SXM x8', '16', 2, 8, 32, 128, 'e2e_latency_ms', 3643.84),
    ('vllm_ci', 'Llama 3.1 8B', 'H100-SXM x8', '16', 1, 8, 32, 128, 'e2e_latency_ms', 997.542),
    ('vllm_ci', 'Llama 3.1 70B', 'H100-SXM x8', '16', 4, 8, 32, 128, 'e2e_latency_ms', 2444.47),
    ('vllm_ci', 'Mixtral 8x7B', 'H100-SXM x8', '16', 2, 8, 32, 128, 'e2e_latency_ms', 2326.97),
    ('vllm_ci', 'Llama 3.1 8B', 'H200 x8', '16', 1, 8, 32, 128, 'e2e_latency_ms', 834.059),
    ('vllm_ci', 'Llama 3.1 70B', 'H200 x8', '16', 4, 8, 32, 128, 'e2e_latency_ms', 2075.08),
    ('vllm_ci', 'Mixtral 8x7B', 'H200 x8', '16', 2, 8, 32, 128, 'e2e_latency_ms', 1921.1),
    ('inferencebench_vllm_h100', 'Llama 3.1 8B', 'H100-SXM x8', '16', 1, 1, 512, 256, 'tpot_ms', 6.48),
    ('rocm_vllm_devdocker_v0.10.0', 'Llama 3.1 70B', 'MI300X x8', 'fp8', 8, 1, 128, 2048, 'e2e_latency_ms', 17236.0),
    ('rocm_vllm_devdocker_v0.10.0', 'Llama 3.1 70B', 'MI300X x8', 'fp8', 8, 2, 128, 2048, 'e2e_latency_ms', 18057.0),
    ('rocm_vllm_devdocker_v0.10.0', 'Llama 3.1 70B', 'MI300X x8', 'fp8', 8, 4, 128, 2048, 'e2e_latency_ms', 18450.0),
    ('rocm_vllm_devdocker_v0.10.0', 'Llama 3.1 70B', 'MI300X x8', 'fp8', 8, 8, 128, 2048, 'e2e_latency_ms', 19677.0),
    ('rocm_vllm_devdocker_v0.10.0', 'Llama 3.1 70B', 'MI300X x8', 'fp8', 8, 16, 128, 2048, 'e2e_latency_ms', 22072.0),
    ('rocm_vllm_devdocker_v0.10.0', 'Llama 3.1 70B', 'MI300X x8', 'fp8', 8, 32, 128, 2048, 'e2e_latency_ms', 24932.0),
    ('rocm_vllm_devdocker_v0.10.0', 'Llama 3.1 70B', 'MI300X x8', 'fp8', 8, 64, 128, 2048, 'e2e_latency_ms', 33287.0),
    ('rocm_vllm_devdocker_v0.10.0', 'Llama 3.1 70B', 'MI300X x8', 'fp8', 8, 128, 128, 2048, 'e2e_latency_ms', 46484.0),
    ('rocm_vllm_devdocker_v0.10.0', 'Llama 3.1 70B', 'MI300X x8', 'fp8', 8, 1, 2048, 2048, 'e2e_latency_ms', 17500.0),
    ('rocm_vllm_devdocker_v0.10.0', 'Llama 3.1 70B', 'MI300X x8', 'fp8', 8, 8, 2048, 2048, 'e2e_latency_ms', 20161.0),
    ('rocm_vllm_devdocker_v0.10.0', 'Llama 3.1 70B', 'MI300X x8', 'fp8', 8, 32, 2048, 2048, 'e2e_latency_ms', 25966.0),
    ('rocm_vllm_devdocker_v0.10.0', 'Llama 3.1 70B', 'MI300X x8', 'fp8', 8, 128, 2048, 2048, 'e2e_latency_ms', 52394.0),
    ('rocm_vllm_devdocker_v0.10.0', 'Llama 3.1 405B', 'MI300X x8', 'fp8', 8, 1, 128, 2048, 'e2e_latency_ms', 48453.0),
    ('rocm_vllm_devdocker_v0.10.0', 'Llama 3.1 405B', 'MI300X x8', 'fp8', 8, 8, 128, 2048, 'e2e_latency_ms', 54226.0),
    ('rocm_vllm_devdocker_v0.10.0', 'Llama 3.1 405B', 'MI300X x8', 'fp8', 8, 32, 128, 2048, 'e2e_latency_ms', 68901.0),
    ('rocm_vllm_devdocker_v0.10.0', 'Llama 3.1 405B', 'MI300X x8', 'fp8', 8, 128, 128, 2048, 'e2e_latency_ms', 117027.0),
    ('rocm_vllm_devdocker_v0.10.0', 'Llama 3.1 405B', 'MI300X x8', 'fp8', 8, 1, 2048, 2048, 'e2e_latency_ms', 48362.0),
    ('oci_blog_mi300x_llama31_405b', 'Llama 3.1 405B', 'MI300X x8', 'fp8', 8, 1, 128, 128, 'e2e_latency_ms', 3530.0),
    ('oci_blog_mi300x_llama31_405b', 'Llama 3.1 405B', 'MI300X x8', 'fp8', 8, 8, 128, 128, 'e2e_latency_ms', 3974.0),
    ('oci_blog_mi300x_llama31_405b', 'Llama 3.1 405B', 'MI300X x8', 'fp8', 8, 32, 128, 128, 'e2e_latency_ms', 5130.0),
    ('oci_blog_mi300x_llama31_405b', 'Llama 3.1 405B', 'MI300X x8', 'fp8', 8, 128, 128, 128, 'e2e_latency_ms', 10340.0),
    ('oci_blog_mi300x_llama31_405b', 'Llama 3.1 405B', 'MI300X x8', 'fp8', 8, 256, 128, 128, 'e2e_latency_ms', 17750.0),
]
