"""``infersim validate``."""
from __future__ import annotations

from rich.table import Table

from infersim.cli.common import console, emit_json, output_file


def add_parser(sub) -> None:
    p = sub.add_parser("validate", help="compare predictions with published measurements")
    p.add_argument("--refit", action="store_true", help="fit the calibration afresh on the train rows")
    p.add_argument("--write-docs", metavar="PATH", type=output_file,
                   help="write the error table as Markdown to PATH")
    p.add_argument("--rows", action="store_true", help="also print every row")
    p.add_argument("--json", action="store_true")
    p.set_defaults(run=run)


def run(args) -> int:
    from infersim.validation.serving import run_serving_validation
    from infersim.validation.validate import run_validation, write_docs

    rep = run_validation(refit=args.refit)
    serving = run_serving_validation()
    if args.write_docs:
        write_docs(rep, args.write_docs, serving)
    if args.json:
        emit_json({**rep.to_dict(), "serving": serving.to_dict()})
        return 0
    console.print(f"[bold]Held-out median |error| {100 * rep.median_abs_error('test'):.1f}%[/] "
                  f"(test sources, never fitted); train {100 * rep.median_abs_error('train'):.1f}%; "
                  f"before calibration {100 * rep.median_abs_error('test', False):.1f}% held out")
    t = Table(title="Per source")
    for col in ("source", "split", "runtime", "rows", "excluded", "median |error|", "before calibration"):
        t.add_column(col, justify="left" if col in ("source", "split", "runtime") else "right")
    for s in rep.by_source():
        t.add_row(s["source"], s["split"], s["runtime"], str(s["rows"]), str(s["excluded_rows"]),
                  f"{100 * s['median_abs_error']:.1f}%", f"{100 * s['median_abs_error_prior']:.1f}%")
    console.print(t)
    t = Table(title="Fitted parameters" + (" (refit)" if rep.fit else " (stored)"))
    t.add_column("parameter")
    t.add_column("value", justify="right")
    for k, v in rep.params.items():
        t.add_row(k, f"{v:.4g}")
    console.print(t)
    console.print(f"[bold]Serving (continuous batching, never fitted): median |error| "
                  f"{100 * serving.median_abs_error():.1f}%[/] over {len(serving.scored())} rows")
    t = Table(title="Serving, per source")
    for col in ("source", "rows", "scored", "median |error|"):
        t.add_column(col, justify="left" if col == "source" else "right")
    for s in serving.by_source():
        t.add_row(s["source"], str(s["rows"]), str(s["scored"]), f"{100 * s['median_abs_error']:.1f}%")
    console.print(t)
    if args.rows:
        t = Table(title="Predicted vs published measurements")
        for col in ("row", "split", "measured", "before", "calibrated", "error"):
            t.add_column(col, justify="right" if col not in ("row", "split") else "left")
        for r in rep.rows:
            t.add_row(r.row.id, r.row.split, f"{r.row.value:,.2f} {r.row.unit}", f"{r.predicted_prior:,.2f}",
                      f"{r.predicted:,.2f}", f"{100 * r.error:+.1f}%")
        console.print(t)
    return 0
