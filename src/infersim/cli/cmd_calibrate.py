"""``infersim calibrate``: fit the runtime and the hardware's efficiencies to a user's own measurements."""
from __future__ import annotations

from rich.table import Table

from infersim.cli.common import console, emit_json, output_file, positive_int


def add_parser(sub) -> None:
    p = sub.add_parser("calibrate", help="fit a runtime file and a hardware file to your own measurements "
                                         "(docs/calibrate.md)")
    p.add_argument("measurements", help="CSV / JSONL / Parquet rows in the calibrate schema, or an engine's "
                                        "benchmark result (vLLM, SGLang, trtllm-bench, genai-perf)")
    p.add_argument("--out", required=True, type=output_file,
                   help="runtime file to write (TOML); the hardware file goes beside it as NAME.hw.toml")
    p.add_argument("--hw-out", type=output_file, default=None, help="hardware file to write instead")
    p.add_argument("--hw", default=None, help="base hardware: a preset or a hardware file (default: the rows' hw/gpu)")
    p.add_argument("--runtime", default=None,
                   help="base runtime: a profile or a runtime file (default: the rows' engine)")
    p.add_argument("--model", default=None, help="model for rows that do not name one (engine benchmark files)")
    p.add_argument("--tp", type=positive_int(1 << 16), default=None, help="TP for rows that do not state it")
    p.add_argument("--concurrency", type=positive_int(1 << 24), default=None,
                   help="concurrency for runs whose file does not state it (genai-perf CSV)")
    p.add_argument("--rows", action="store_true", help="also print every row: measured, before, after, held out")
    p.add_argument("--json", action="store_true")
    p.set_defaults(run=run)


def _samples(args) -> int | None:
    """``infersim measure`` samples: the hardware file only (None when the file is not samples)."""
    from infersim.validation.measure import calibrate_samples, is_samples

    if not args.measurements.lower().endswith(".csv"):
        return None
    try:
        with open(args.measurements, encoding="utf-8", errors="replace") as f:
            head = f.readline()
    except OSError:
        return None
    if not is_samples(head):
        return None
    out = args.out
    hw_out = args.hw_out or (out[:-5] if out.lower().endswith(".toml") else out) + ".hw.toml"
    for line in calibrate_samples(args.measurements, args.hw, hw_out):
        console.print(line, highlight=False)
    return 0


def run(args) -> int:
    from infersim.validation.calibrate import calibrate_file

    done = _samples(args)
    if done is not None:
        return done

    defaults = {k: v for k, v in (("model", args.model), ("tp", args.tp),
                                               ("batch_or_concurrency", args.concurrency)) if v is not None}
    cal = calibrate_file(args.measurements, hw=args.hw, runtime=args.runtime, defaults=defaults)
    rt_path, hw_path = cal.write(args.out, args.hw_out)
    if args.json:
        emit_json({**cal.to_dict(), "runtime_file": rt_path, "hardware_file": hw_path})
        return 0
    answer = cal.answer()
    console.print(answer[0], style="bold", highlight=False)
    for line in answer[1:]:
        console.print(line, highlight=False)
    console.print(f"wrote {rt_path} (runtime) and {hw_path} (hardware): use them with "
                  f"--runtime {rt_path} --hw {hw_path}", highlight=False)
    if args.rows:
        t = Table(title=f"Rows ({cal.scheme}: 'held out' is predicted by a fit that did not see the row)")
        for col in ("row", "measured", "before", "after", "held out", "error held out"):
            t.add_column(col, justify="left" if col == "row" else "right")
        for r, b, a, h, s in zip(cal.rows, cal.before, cal.after, cal.held_out, cal.scored):
            t.add_row(r.id, f"{r.value:,.4g} {r.unit}", f"{b:,.4g}", f"{a:,.4g}", f"{h:,.4g}",
                      f"{100 * (h / r.value - 1):+.1f}%" if s else "not scored")
        console.print(t)
    return 0
