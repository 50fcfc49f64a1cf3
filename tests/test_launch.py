"""Launch commands parse with each engine's documented argument names.

DOCUMENTED is this test's own table (not the code's): every flag an emitted command may use, as
the engine documents it, whether it takes a value, and where the spelling was read. Each emitted
command is split with shlex and parsed by an argparse parser built from that table alone, so a
misspelt or undocumented flag, a missing value or a stray token fails."""
import argparse
import json
import shlex
from dataclasses import replace

import pytest

from infersim import Parallelism
from infersim.errors import InferSimError
from infersim.hardware_presets import HW_PRESETS
from infersim.model_presets import PRESETS
from infersim.serving import Request, sla_search
from infersim.serving.launch import ENGINES, Launch, answer_commands, command_lines
from infersim.specs.speculation import Speculation

VLLM_SRC = "vllm-project/vllm vllm/engine/arg_utils.py (EngineArgs.add_cli_args), commit 99d7eb5"
SGL_SRC = "docs.sglang.io/advanced_features/server_arguments"
SGL_SPEC = "docs.sglang.io/advanced_features/speculative_decoding"
SGL_PD = "docs.sglang.io/advanced_features/pd_disaggregation"
TRT_SRC = "nvidia.github.io/TensorRT-LLM/1.0.0/commands/trtllm-serve (Options)"

#: engine → (program tokens, {flag: (takes a value, documented at)}).
DOCUMENTED = {
    "vllm": (["vllm", "serve"], {
        "--tensor-parallel-size": (True, VLLM_SRC), "--pipeline-parallel-size": (True, VLLM_SRC),
        "--data-parallel-size": (True, VLLM_SRC), "--decode-context-parallel-size": (True, VLLM_SRC),
        "--enable-expert-parallel": (False, VLLM_SRC), "--max-num-seqs": (True, VLLM_SRC),
        "--max-model-len": (True, VLLM_SRC), "--max-num-batched-tokens": (True, VLLM_SRC),
        "--gpu-memory-utilization": (True, VLLM_SRC), "--kv-cache-dtype": (True, VLLM_SRC),
        "--quantization": (True, VLLM_SRC), "--speculative-config": (True, VLLM_SRC),
        "--kv-transfer-config": (True, VLLM_SRC)}),
    "sglang": (["python", "-m", "sglang.launch_server"], {
        "--model-path": (True, SGL_SRC), "--tp-size": (True, SGL_SRC), "--pp-size": (True, SGL_SRC),
        "--dp-size": (True, SGL_SRC), "--ep-size": (True, SGL_SRC), "--enable-dp-attention": (False, SGL_SRC),
        "--max-running-requests": (True, SGL_SRC), "--context-length": (True, SGL_SRC),
        "--chunked-prefill-size": (True, SGL_SRC), "--mem-fraction-static": (True, SGL_SRC),
        "--kv-cache-dtype": (True, SGL_SRC), "--quantization": (True, SGL_SRC),
        "--speculative-algorithm": (True, SGL_SPEC), "--speculative-num-steps": (True, SGL_SPEC),
        "--speculative-eagle-topk": (True, SGL_SPEC), "--speculative-num-draft-tokens": (True, SGL_SPEC),
        "--speculative-draft-model-path": (True, SGL_SPEC), "--disaggregation-mode": (True, SGL_PD)}),
    "trtllm": (["trtllm-serve"], {
        "--backend": (True, TRT_SRC), "--tp_size": (True, TRT_SRC), "--pp_size": (True, TRT_SRC),
        "--ep_size": (True, TRT_SRC), "--max_batch_size": (True, TRT_SRC), "--max_seq_len": (True, TRT_SRC),
        "--max_num_tokens": (True, TRT_SRC), "--kv_cache_free_gpu_memory_fraction": (True, TRT_SRC),
        "--extra_llm_api_options": (True, TRT_SRC)}),
}
#: Documented values of the enumerated flags.
VALUES = {"--kv-cache-dtype": {"fp8", "fp8_e4m3", "fp8_e5m2", "auto"}, "--quantization": {"fp8"},
          "--speculative-algorithm": {"EAGLE", "EAGLE3", "STANDALONE", "NGRAM"},
          "--disaggregation-mode": {"prefill", "decode"}, "--backend": {"pytorch"}}
#: vLLM SpeculativeConfig keys and methods (vllm/config/speculative.py, v0.11).
VLLM_SPEC_KEYS = {"method", "num_speculative_tokens", "model"}
VLLM_SPEC_METHODS = {"eagle", "eagle3", "mtp", "draft_model", "deepseek_mtp", "ngram", "medusa"}


def parse(engine: str, command: str) -> argparse.Namespace:
    """Parse one emitted command with a parser of the documented flags only."""
    program, flags = DOCUMENTED[engine]
    tokens = shlex.split(command)
    assert tokens[:len(program)] == program, command
    p = argparse.ArgumentParser(exit_on_error=False, allow_abbrev=False, add_help=False)
    if engine != "sglang":
        p.add_argument("model")
    for flag, (takes_value, _) in flags.items():
        p.add_argument(flag, action="store" if takes_value else "store_true")
    ns, rest = p.parse_known_args(tokens[len(program):])
    assert not rest, f"undocumented {engine} arguments {rest} in: {command}"
    for flag in VALUES:
        v = getattr(ns, flag.lstrip("-").replace("-", "_"), None)
        if flag in flags and isinstance(v, str):
            assert v in VALUES[flag], (flag, v)
    return ns


def _command(lines):
    return [ln for ln in lines if ln.split(" ")[0] in ("vllm", "python", "trtllm-serve")]


DS = replace(PRESETS["DeepSeek-V3"].model, weight_dtype="fp8", kv_dtype="fp8")
L70 = PRESETS["Llama 3.1 70B"].model
CASES = [
    ("dense TP", Launch(L70, Parallelism(tp=4), 64, 4096, 8192, 0.9)),
    ("TP PP DP", Launch(L70, Parallelism(tp=2, pp=2, dp=2), 64, 4096, 8192, 0.9)),
    ("CP", Launch(L70, Parallelism(tp=4, cp=2), 4, 131072, 8192, 0.9)),
    ("MoE EP DP-attention fp8", Launch(DS, Parallelism(tp=8, dp=2, ep=16), 256, 4096, 4096, 0.85)),
    ("MTP", Launch(DS, Parallelism(tp=8), 32, 4096, 8192, 0.85, Speculation("mtp", 2))),
    ("EAGLE", Launch(L70, Parallelism(tp=4), 16, 4096, 8192, 0.9, Speculation("eagle", 3),
                     draft_id="yuhuili/EAGLE-LLaMA3.1-Instruct-70B")),
    ("draft model", Launch(L70, Parallelism(tp=8), 8, 4096, 8192, 0.9,
                           Speculation("draft", 4, draft_model=PRESETS["Llama 3.1 8B"].model))),
    ("prefill pool", Launch(L70, Parallelism(tp=8), 8, 4096, 8192, 0.9, Speculation("eagle", 3), role="prefill")),
    ("decode pool", Launch(L70, Parallelism(tp=4), 128, 4096, 8192, 0.9, Speculation("mtp", 1), role="decode")),
]


@pytest.mark.parametrize("engine", list(DOCUMENTED))
@pytest.mark.parametrize("case,launch", CASES, ids=[c for c, _ in CASES])
def test_emitted_commands_parse_with_documented_flags(engine, case, launch):
    lines = command_lines(engine, launch)
    cmds = _command(lines)
    assert len(cmds) == 1, lines
    ns = parse(engine, cmds[0])
    p = launch.par
    adp = launch.model.is_moe and p.ep > 1 and p.dp > 1
    tp = p.tp * p.dp if adp and engine != "vllm" else p.tp
    per = -(-launch.batch // p.dp)
    if engine == "vllm":
        assert (int(ns.tensor_parallel_size), ns.max_num_seqs, ns.max_model_len) == (tp, str(per), str(launch.context))
        assert int(ns.data_parallel_size or 1) == p.dp and int(ns.pipeline_parallel_size or 1) == p.pp
        assert ns.enable_expert_parallel == (p.ep > 1)
        assert int(ns.decode_context_parallel_size or 1) == p.cp
        if launch.speculating:
            cfg = json.loads(ns.speculative_config)
            assert set(cfg) <= VLLM_SPEC_KEYS and cfg["method"] in VLLM_SPEC_METHODS
            assert cfg["num_speculative_tokens"] == launch.speculation.k
        else:
            assert ns.speculative_config is None
        assert (ns.kv_transfer_config is not None) == bool(launch.role)
    elif engine == "sglang":
        assert int(ns.tp_size) == tp and int(ns.dp_size or 1) == p.dp and int(ns.ep_size or 1) == p.ep
        assert ns.enable_dp_attention == adp and int(ns.max_running_requests) == per * p.dp
        assert ns.model_path == launch.repo and ns.disaggregation_mode == (launch.role or None)
        if launch.speculating:
            k = launch.speculation.k
            assert (int(ns.speculative_num_steps), int(ns.speculative_num_draft_tokens)) == (k, k + 1)
        else:
            assert ns.speculative_algorithm is None
    else:
        assert int(ns.tp_size) == tp and int(ns.pp_size or 1) == p.pp and int(ns.ep_size or 1) == p.ep
        assert int(ns.max_batch_size) == per and ns.model == launch.repo
        yaml = "\n".join(lines)
        assert ("speculative_config:" in yaml) == launch.speculating
        assert (ns.extra_llm_api_options is not None) == ("<<'EOF'" in yaml)
    notes = [ln for ln in lines if ln.startswith("#")]
    assert notes[0].startswith("# " + ENGINES[engine].name)


def test_code_tables_use_only_documented_spellings():
    """Every flag the code's tables hold is one the engine documents (the table in this test)."""
    for engine, e in ENGINES.items():
        documented = DOCUMENTED[engine][1]
        assert set(e.flags.values()) <= set(documented), engine
        assert e.version and e.source


def test_prefill_pool_does_not_speculate():
    x = Launch(L70, Parallelism(tp=8), 8, 4096, 8192, 0.9, Speculation("eagle", 3), role="prefill")
    assert not x.speculating
    assert "--speculative" not in " ".join(command_lines("sglang", x))


def test_answer_commands_follow_the_answer():
    """The aggregated answer gives one command; a disaggregated one a prefill and a decode pool."""
    hw, req = HW_PRESETS["H100-SXM x8"], Request(2048, 512)
    agg = sla_search(L70, hw, req, tpot_ms=30, disaggregated=False, speculation=Speculation("eagle", 3))
    for engine in DOCUMENTED:
        cmds = _command(answer_commands(engine, agg, L70))
        ns = parse(engine, cmds[0])
        assert len(cmds) == 1
        assert int(getattr(ns, "tp_size", None) or getattr(ns, "tensor_parallel_size", 0)) == agg.best.par.tp
    dis = sla_search(L70, hw, req, tpot_ms=30)
    if dis.disaggregated and dis.disaggregated.tok_s_per_pe > dis.best.tok_s_per_pe:
        lines = answer_commands("sglang", dis, L70)
        modes = [parse("sglang", c).disaggregation_mode for c in _command(lines)]
        assert modes == ["prefill", "decode"]
    with pytest.raises(InferSimError, match="valid choices: vllm, sglang, trtllm"):
        command_lines("tgi", CASES[0][1])


def test_cli_serve_emits_the_launch_command(capsys):
    from infersim.cli import main

    args = ["serve", "--model", "Llama 3.1 70B", "--hw", "H100-SXM x8", "--tpot-ms", "30", "--no-disagg",
            "--speculative", "eagle:3:0.8", "--emit", "vllm", "--draft-id", "my/eagle-head", "--json"]
    assert main(args) == 0
    out = json.loads(capsys.readouterr().out)
    assert "eagle k=3 α=0.8" in out["answer"][0] and out["speculation"]["tokens_per_step"] == pytest.approx(2.952)
    ns = parse("vllm", _command(out["launch"]["vllm"])[0])
    assert json.loads(ns.speculative_config) == {"method": "eagle", "num_speculative_tokens": 3,
                                                 "model": "my/eagle-head"}
    assert int(ns.tensor_parallel_size) == out["best"]["par"]["tp"]
    assert int(ns.max_num_seqs) == out["best"]["batch"]
    assert main(args[:-1] + ["--engine", "trtllm"]) == 0          # --engine is an alias of --emit
    assert "trtllm-serve meta-llama/Llama-3.1-70B" in capsys.readouterr().out


@pytest.mark.parametrize("bad,msg", [(["--speculative", "medusa:2"], "valid choices: mtp, eagle, draft"),
                                     (["--speculative", "eagle:two"], "a number or 'auto'"),
                                     (["--speculative", "draft:2"], "needs draft_model"),
                                     (["--draft-model", "Llama 3.1 8B"], "needs --speculative draft")])
def test_cli_serve_bad_speculation_is_one_line(capsys, bad, msg):
    from infersim.cli import main

    assert main(["serve", *bad]) == 2
    err = capsys.readouterr().err.strip()
    assert msg in err and "\n" not in err and "Traceback" not in err
