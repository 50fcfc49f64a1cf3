"""Regenerate the example notebooks' source cells (outputs come from executing them:
``jupyter nbconvert --execute --inplace`` or the test suite's nbclient run)."""
from pathlib import Path

import nbformat as nbf

HERE = Path(__file__).parent
md, code = nbf.v4.new_markdown_cell, nbf.v4.new_code_cell
KERNEL = {"name": "python3", "display_name": "Python 3", "language": "python"}


def serving() -> nbf.NotebookNode:
    nb = nbf.v4.new_notebook()
    nb.cells = [
        md("# Serving Llama 3.1 70B under an SLA\n\n"
           "Which deployment of one 8×H100 node serves requests of 2,048 input and 512 output tokens with "
           "the most tokens/s per GPU while every user sees TTFT ≤ 2 s and TPOT ≤ 50 ms — and would "
           "splitting prefill and decode onto separate GPUs do better? (See `docs/serving.md` for the "
           "batching model.)"),
        code("from infersim import Parallelism\n"
             "from infersim.hardware_presets import HW_PRESETS\n"
             "from infersim.model_presets import PRESETS\n"
             "from infersim.serving import Request, serve, sla_search\n\n"
             "model = PRESETS['Llama 3.1 70B'].model\n"
             "hw = HW_PRESETS['H100-SXM x8']\n"
             "request = Request(isl=2048, osl=512)"),
        md("One deployment first: tensor parallelism over the 8 GPUs, at a few concurrencies."),
        code("import pandas as pd\n"
             "pd.concat([serve(model, hw, Parallelism(tp=8), request, batch=b).to_pandas() for b in (1, 16, 64, 256)])"
             "[['batch', 'ttft_ms', 'tpot_ms', 'tok_s', 'tok_s_per_pe', 'tok_s_per_user', 'fits']]"),
        md("Now every parallelism config of the node × every batch that fits, in one search:"),
        code("result = sla_search(model, hw, request, ttft_ms=2000, tpot_ms=50)\n"
             "b = result.best\n"
             "print(f'best: {b.par.describe()} on {b.pes} GPUs at batch {b.batch}: {b.tok_s_per_pe:,.0f} tok/s per GPU, '\n"
             "      f'TTFT {b.ttft_ms:,.0f} ms, TPOT {b.tpot_ms:.1f} ms')\n"
             "print('limited by', result.limit)\n"
             "print(result.comparison())\n"
             "print(f'{result.n_evaluated:,} (parallelism, batch) pairs in {result.elapsed_s * 1e3:.0f} ms')"),
        code("result.to_pandas('best')[['deployment', 'tok_s_per_pe', 'ttft_ms', 'tpot_ms', 'pes']]"),
        md("The throughput-vs-interactivity frontier: every deployment on it is the fastest per GPU for "
           "its per-user speed."),
        code("result.plot()"),
    ]
    return nb


def codesign() -> nbf.NotebookNode:
    nb = nbf.v4.new_notebook()
    nb.cells = [
        md("# Co-designing a hypothetical chip for Llama 3.1 70B\n\n"
           "The default *Generic SiP* is a 64-PE chiplet system (4 PEs per cube, 4 cubes per SiP, 4 SiPs). "
           "Which of its six knobs — HBM capacity and bandwidth, compute, and the three link levels — "
           "should we spend on? We sweep them, search every parallelism for each candidate, and ask two "
           "questions: the fastest decode step at 32K context, and the cheapest way to serve 2K/512 "
           "requests at TPOT ≤ 50 ms. (See `docs/codesign.md` for the search and the cost model.)"),
        code("from infersim.auto_hardware import joint_explore\n"
             "from infersim.codesign.answer import answer_lines\n"
             "from infersim.model_presets import PRESETS\n"
             "from infersim.serving import Request\n"
             "from infersim.codesign.sla import codesign_sla, sla_answer_lines\n\n"
             "model = PRESETS['Llama 3.1 70B'].model"),
        md("## 1. Latency of one decode step\n\n`balanced` tries every knob at 1× and 2× (64 candidates)."),
        code("res = joint_explore(model, s_kv=32768, mode='decode', depth='balanced', objective='latency')\n"
             "first, second = answer_lines(res.answer())\n"
             "lever = res.answer()['next_lever']\n"
             "print('recommended:', first.removeprefix('Answer: '))\n"
             "print(second)\n"
             "print('next knob:', lever['knob'] if lever else 'none (overhead-bound)')\n"
             "print(f'{res.n_hardware} candidates x {res.n_parallel:,} configs, {res.total_joint:,} fitting pairs, '\n"
             "      f'{res.elapsed_s:.2f} s')"),
        code("res.to_pandas('sensitivity')[['knob', 'rel_speedup', 'rel_gain_halved', 'elasticity', "
             "'doubled_capex_usd_per_pe']]"),
        md("Latency against what the system costs: the frontier is the set of designs nothing beats on both."),
        code("res.plot()"),
        md("## 2. Tokens per dollar at a serving SLA\n\n"
           "Now each candidate gets its best deployment (parallelism × batch, continuous batching) that meets "
           "TPOT ≤ 50 ms, and candidates are ranked by tokens per dollar of total cost of ownership. "
           "A smaller grid keeps this notebook fast: HBM bandwidth and compute at 1× and 2×."),
        code("sla = codesign_sla(model, Request(isl=2048, osl=512), tpot_ms=50, depth='custom',\n"
             "                   custom={'bw_hbm_gbs': [2000, 4000], 'peak_tflops_f16': [500, 1000]})\n"
             "first, second = sla_answer_lines(sla.answer())\n"
             "print('recommended:', first.removeprefix('Answer: '))\n"
             "print(second)\n"
             "print('next knob:', sla.sensitivity[0].knob, f'({100 * sla.sensitivity[0].gain_doubled:+.0f}% tok/$)')"),
        code("sla.to_pandas()[['rank', 'hw_bw_hbm_gbs', 'hw_peak_tflops_f16', 'parallelism', 'batch', "
             "'tpot_ms', 'tok_s_per_pe', 'tok_s_per_usd', 'capex_usd']]"),
        code("sla.plot()"),
        md("For sweeps of 10⁵–10⁶ candidates, `res.to_parquet('pairs.parquet')` writes every kept pair "
           "(`infersim codesign --out pairs.parquet` does the same from the shell)."),
    ]
    return nb


if __name__ == "__main__":
    for name, build in (("serving_70b_sla", serving), ("codesign_hypothetical_chip", codesign)):
        nb = build()
        nb.metadata["kernelspec"] = KERNEL
        nbf.write(nb, HERE / f"{name}.ipynb")
