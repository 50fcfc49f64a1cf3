"""Launch commands for a serving answer: the command line that runs the chosen deployment on vLLM
(``vllm serve``), SGLang (``python -m sglang.launch_server``) or TensorRT-LLM (``trtllm-serve``).

Each engine's mapping from infersim's deployment to its flags is one table (:data:`ENGINES`), with
the engine version and the file or page its spellings were checked against; only flags the engine
documents appear (tests/test_launch.py parses every emitted command against those spellings).

What maps to what, per replica of the deployment:

=====================  =========================  ============================  ====================================
infersim               vLLM                       SGLang                        TensorRT-LLM (trtllm-serve)
=====================  =========================  ============================  ====================================
tp, pp                 --tensor/pipeline-         --tp-size, --pp-size          --tp_size, --pp_size
                       parallel-size
dp (replicas)          --data-parallel-size       --dp-size                     one server per replica (no flag)
ep (MoE)               --enable-expert-parallel   --ep-size (+ DP attention:    --ep_size (+ attention DP:
                       (EP = TP·DP in vLLM)       --enable-dp-attention,        enable_attention_dp in the
                                                  --tp-size = tp·dp)            YAML, --tp_size = tp·dp)
cp (decode)            --decode-context-          not mapped (a note)           not mapped (a note)
                       parallel-size
sequences per replica  --max-num-seqs             --max-running-requests (·dp)  --max_batch_size
isl + osl              --max-model-len            --context-length              --max_seq_len
prompt chunk           --max-num-batched-tokens   --chunked-prefill-size        --max_num_tokens
runtime mem_fraction   --gpu-memory-utilization   --mem-fraction-static         --kv_cache_free_gpu_memory_fraction
fp8 weights            --quantization fp8         --quantization fp8            (an fp8 checkpoint; a note)
fp8 KV cache           --kv-cache-dtype fp8       --kv-cache-dtype fp8_e4m3     kv_cache_config.dtype (YAML)
speculation            --speculative-config JSON  --speculative-algorithm,      speculative_config (YAML in
                                                  -num-steps, -eagle-topk,      --extra_llm_api_options)
                                                  -num-draft-tokens,
                                                  -draft-model-path
disaggregated pools    --kv-transfer-config       --disaggregation-mode         cache_transceiver_config (YAML),
                       (NixlConnector)            prefill|decode                trtllm-serve disaggregated -c
=====================  =========================  ============================  ====================================
"""
from __future__ import annotations

import json
import shlex
from dataclasses import dataclass

from infersim.errors import choice
from infersim.presets.model_presets import hf_repo
from infersim.presets.runtime_presets import get_runtime
from infersim.specs.model import ModelSpec
from infersim.specs.parallel import Parallelism
from infersim.specs.speculation import Speculation


@dataclass(frozen=True)
class Engine:
    """An engine's program and its flag spellings (``flags``: infersim knob → flag)."""

    name: str
    program: str
    version: str
    source: str
    flags: dict


#: One mapping table per engine, with what it was checked against.
ENGINES: dict[str, Engine] = {
    "vllm": Engine(
        "vLLM", "vllm serve", "v0.11+",
        "vllm-project/vllm vllm/engine/arg_utils.py (add_cli_args; commit 99d7eb5) and "
        "docs.vllm.ai features/spec_decode",
        {"tp": "--tensor-parallel-size", "pp": "--pipeline-parallel-size", "dp": "--data-parallel-size",
         "cp": "--decode-context-parallel-size", "ep": "--enable-expert-parallel",
         "batch": "--max-num-seqs", "context": "--max-model-len", "chunk": "--max-num-batched-tokens",
         "mem_fraction": "--gpu-memory-utilization", "kv_dtype": "--kv-cache-dtype",
         "quantization": "--quantization", "speculative": "--speculative-config",
         "disagg": "--kv-transfer-config"}),
    "sglang": Engine(
        "SGLang", "python -m sglang.launch_server", "v0.5",
        "docs.sglang.io advanced_features/server_arguments, speculative_decoding and pd_disaggregation",
        {"model": "--model-path", "tp": "--tp-size", "pp": "--pp-size", "dp": "--dp-size",
         "ep": "--ep-size", "dp_attention": "--enable-dp-attention", "batch": "--max-running-requests",
         "context": "--context-length", "chunk": "--chunked-prefill-size",
         "mem_fraction": "--mem-fraction-static", "kv_dtype": "--kv-cache-dtype",
         "quantization": "--quantization", "spec_algorithm": "--speculative-algorithm",
         "spec_steps": "--speculative-num-steps", "spec_topk": "--speculative-eagle-topk",
         "spec_tokens": "--speculative-num-draft-tokens", "spec_model": "--speculative-draft-model-path",
         "disagg": "--disaggregation-mode"}),
    "trtllm": Engine(
        "TensorRT-LLM", "trtllm-serve", "1.0",
        "nvidia.github.io/TensorRT-LLM 1.0.0 commands/trtllm-serve (options) and "
        "llm-api MTPDecodingConfig / EagleDecodingConfig",
        {"tp": "--tp_size", "pp": "--pp_size", "ep": "--ep_size", "batch": "--max_batch_size",
         "context": "--max_seq_len", "chunk": "--max_num_tokens",
         "mem_fraction": "--kv_cache_free_gpu_memory_fraction", "backend": "--backend",
         "extra": "--extra_llm_api_options"}),
}
EMIT_CHOICES = tuple(ENGINES)

#: Speculation method → (vLLM method, SGLang algorithm, TRT-LLM decoding_type).
SPEC_NAMES = {"mtp": ("mtp", "EAGLE", "MTP"), "eagle": ("eagle", "EAGLE", "Eagle"),
              "draft": ("draft_model", "STANDALONE", "DraftTarget")}
#: Placeholder for a drafter checkpoint infersim cannot name (an EAGLE head's repository).
DRAFT_PLACEHOLDER = "<draft-checkpoint>"


@dataclass(frozen=True)
class Launch:
    """What one server runs: the model, one replica's parallelism, its limits and the drafter."""

    model: ModelSpec
    par: Parallelism
    batch: int                       # sequences in flight over all replicas
    context: int                     # isl + osl
    chunk_tokens: int
    mem_fraction: float
    speculation: Speculation | None = None
    role: str = ""                   # "", "prefill" or "decode" (a disaggregated pool)
    model_id: str | None = None      # HF repository or path; default: the preset's repository
    draft_id: str | None = None      # the drafter's checkpoint (EAGLE head, draft model)

    @property
    def repo(self) -> str:
        return self.model_id or hf_repo(self.model.name) or self.model.name

    @property
    def per_replica(self) -> int:
        return -(-self.batch // self.par.dp)

    @property
    def draft_repo(self) -> str:
        s = self.speculation
        if self.draft_id:
            return self.draft_id
        if s is not None and s.method == "draft":
            return hf_repo(s.draft_model.name) or s.draft_model.name
        return DRAFT_PLACEHOLDER

    @property
    def speculating(self) -> bool:
        return self.speculation is not None and bool(self.speculation.k) and self.role != "prefill"


def _vllm(x: Launch, f: dict) -> tuple[list[str], list[str], list[str]]:
    p, m = x.par, x.model
    args = [x.repo, f["tp"], str(p.tp)]
    args += [f["pp"], str(p.pp)] if p.pp > 1 else []
    args += [f["dp"], str(p.dp)] if p.dp > 1 else []
    args += [f["cp"], str(p.cp)] if p.cp > 1 else []
    args += [f["ep"]] if p.ep > 1 else []
    args += [f["batch"], str(x.per_replica), f["context"], str(x.context), f["chunk"], str(x.chunk_tokens),
             f["mem_fraction"], f"{x.mem_fraction:g}"]
    args += [f["kv_dtype"], "fp8"] if m.kv_dtype == "fp8" else []
    args += [f["quantization"], "fp8"] if m.weight_dtype == "fp8" else []
    notes = [f"# vLLM's expert parallelism spans TP x DP = {p.tp * p.dp} ranks (infersim ep={p.ep})"] \
        if p.ep > 1 and p.ep != p.tp * p.dp else []
    if x.speculating:
        s = x.speculation
        cfg = {"method": SPEC_NAMES[s.method][0], "num_speculative_tokens": s.k}
        if s.method != "mtp":
            cfg["model"] = x.draft_repo
        args += [f["speculative"], json.dumps(cfg, separators=(",", ":"))]
    if x.role:
        args += [f["disagg"], json.dumps({"kv_connector": "NixlConnector", "kv_role": "kv_both"},
                                         separators=(",", ":"))]
    return [], args, notes


def _sglang(x: Launch, f: dict) -> tuple[list[str], list[str], list[str]]:
    p, m = x.par, x.model
    dp_attention = _dp_attention(x)
    args = [f["model"], x.repo, f["tp"], str(p.tp * p.dp if dp_attention else p.tp)]
    args += [f["pp"], str(p.pp)] if p.pp > 1 else []
    args += [f["dp"], str(p.dp)] if p.dp > 1 else []
    args += [f["dp_attention"]] if dp_attention else []
    args += [f["ep"], str(p.ep)] if p.ep > 1 else []
    args += [f["batch"], str(x.per_replica * p.dp), f["context"], str(x.context), f["chunk"],
             str(x.chunk_tokens), f["mem_fraction"], f"{x.mem_fraction:g}"]
    args += [f["kv_dtype"], "fp8_e4m3"] if m.kv_dtype == "fp8" else []
    args += [f["quantization"], "fp8"] if m.weight_dtype == "fp8" else []
    notes = [f"# context parallelism (cp={p.cp}) has no SGLang flag here: the plan assumes it"] if p.cp > 1 else []
    if x.speculating:
        s = x.speculation
        args += [f["spec_algorithm"], SPEC_NAMES[s.method][1], f["spec_steps"], str(s.k),
                 f["spec_topk"], "1", f["spec_tokens"], str(s.k + 1)]
        args += [f["spec_model"], x.draft_repo] if s.method != "mtp" else []
    args += [f["disagg"], x.role] if x.role else []
    return [], args, notes


def _dp_attention(x: Launch) -> bool:
    """MoE with experts over the tp·dp ranks and replicated attention: SGLang's DP attention,
    TensorRT-LLM's attention DP (one server of tp·dp ranks)."""
    return x.model.is_moe and x.par.ep > 1 and x.par.dp > 1


def _trtllm_yaml(x: Launch) -> list[str]:
    """The ``--extra_llm_api_options`` YAML (attention DP, KV dtype, speculation, the
    disaggregated cache transceiver), or nothing."""
    lines = ["enable_attention_dp: true"] if _dp_attention(x) else []
    lines += ["kv_cache_config:", "  dtype: fp8"] if x.model.kv_dtype == "fp8" else []
    if x.speculating:
        s = x.speculation
        lines += ["speculative_config:", f"  decoding_type: {SPEC_NAMES[s.method][2]}"]
        if s.method == "mtp":
            lines += [f"  num_nextn_predict_layers: {s.k}"]
        else:
            lines += [f"  max_draft_len: {s.k}", f"  speculative_model_dir: {x.draft_repo}"]
    if x.role:
        lines += ["cache_transceiver_config:", "  backend: DEFAULT"]
    return lines


def _trtllm(x: Launch, f: dict) -> tuple[list[str], list[str], list[str]]:
    p, adp = x.par, _dp_attention(x)
    args = [x.repo, f["backend"], "pytorch", f["tp"], str(p.tp * p.dp if adp else p.tp)]
    args += [f["pp"], str(p.pp)] if p.pp > 1 else []
    args += [f["ep"], str(p.ep)] if p.ep > 1 else []
    args += [f["batch"], str(x.per_replica), f["context"], str(x.context), f["chunk"], str(x.chunk_tokens),
             f["mem_fraction"], f"{x.mem_fraction:g}"]
    notes = [f"# {p.dp} replicas: run this server {p.dp} times behind a load balancer"] \
        if p.dp > 1 and not adp else []
    notes += [f"# context parallelism (cp={p.cp}) is not mapped to a trtllm-serve flag"] if p.cp > 1 else []
    notes += ["# fp8 weights: serve an fp8 checkpoint (trtllm-serve reads its quantization)"] \
        if x.model.weight_dtype == "fp8" else []
    yaml = _trtllm_yaml(x)
    pre = []
    if yaml:
        name = f"extra-llm-api-{x.role or 'config'}.yaml"
        pre = [f"cat > {name} <<'EOF'", *yaml, "EOF"]
        args += [f["extra"], name]
    return pre, args, notes


_BUILDERS = {"vllm": _vllm, "sglang": _sglang, "trtllm": _trtllm}


def command_lines(engine: str, launch: Launch) -> list[str]:
    """The shell lines that start ``launch`` on ``engine``: comments (``#``), a config file where
    the engine takes one, then the command."""
    choice("engine", engine, EMIT_CHOICES)
    e = ENGINES[engine]
    pre, args, notes = _BUILDERS[engine](launch, e.flags)
    head = f"# {e.name} {e.version}" + (f", {launch.role} pool" if launch.role else "")
    return [head, *notes, *pre, e.program + " " + " ".join(shlex.quote(a) for a in args)]


def answer_commands(engine: str, result, model: ModelSpec, runtime=None, chunk_tokens: int = 8192,
                    model_id: str | None = None, draft_id: str | None = None) -> list[str]:
    """The command lines of an :class:`~infersim.serving.sla.SLAResult`'s answer: the winning
    deployment (the disaggregated prefill and decode pools when they win, as in the answer's
    first line), one command per replica set."""
    choice("engine", engine, EMIT_CHOICES)
    q, b, d = result.request, result.best, result.disaggregated
    frac = get_runtime(runtime or result.runtime).mem_fraction
    common = dict(model=model, context=q.isl + q.osl, chunk_tokens=chunk_tokens, mem_fraction=frac,
                  speculation=result.speculation, model_id=model_id, draft_id=draft_id)
    split_wins = result.split_wins()
    if split_wins:
        lines = command_lines(engine, Launch(par=d.prefill_par, batch=d.prefill_batch, role="prefill", **common))
        lines[0] += f" (x{d.n_prefill})"
        dec = command_lines(engine, Launch(par=d.decode_par, batch=d.decode_batch, role="decode", **common))
        dec[0] += f" (x{d.n_decode})"
        if engine == "trtllm":
            dec.append("# then: trtllm-serve disaggregated -c disagg_config.yaml (context and generation servers)")
        return lines + dec
    if b is None:
        return [f"# nothing meets the SLA: no {ENGINES[engine].name} command"]
    return command_lines(engine, Launch(par=b.par, batch=b.batch, **common))
