"""``infersim validate``: leave-one-source-out error against published measurements."""
from __future__ import annotations

from rich.table import Table

from infersim.cli.common import console, emit_json, output_file


def add_parser(sub) -> None:
    p = sub.add_parser("validate", help="compare predictions with published measurements (leave one source out)")
    p.add_argument("--quick", action="store_true",
                   help="skip the leave-one-source-out fits: the stored calibration only (in-sample)")
    p.add_argument("--write-docs", metavar="PATH", type=output_file,
                   help="write the tables as Markdown to PATH (docs/validation.md)")
    p.add_argument("--write-calibration", action="store_true",
                   help="store the in-sample fit in the package's presets/calibration.toml (developers)")
    p.add_argument("--write-bands", action="store_true",
                   help="store the error bands in the package's cost/bands.json (developers)")
    p.add_argument("--no-load", action="store_true",
                   help="skip the serving-under-load section (published rates through the traffic simulator)")
    p.add_argument("--rows", action="store_true", help="also print every row")
    p.add_argument("--json", action="store_true")
    p.set_defaults(run=run)


def _pct(x: float, signed: bool = False) -> str:
    return "-" if x != x else (f"{100 * x:+.1f}%" if signed else f"{100 * x:.1f}%")


def run(args) -> int:
    from infersim.validation.docs import headline, targets, write_calibration, write_docs
    from infersim.validation.validate import run_validation

    rep = run_validation(refit=not args.quick, stored=args.quick)
    if not args.no_load:
        from infersim.validation.under_load import run_load_validation
        rep.load = run_load_validation()
    if args.write_calibration:
        write_calibration(rep)
    if args.write_bands:
        from infersim.validation.bands import write_bands
        write_bands(rep)
    if args.write_docs:
        write_docs(rep, args.write_docs)
    if args.json:
        emit_json(rep.to_dict())
        return 0
    console.print(headline(rep), style="bold", highlight=False)
    t = Table(title="Per source (LOSO: predicted by a fit that never saw the source)")
    for col in ("source", "runtime", "rows", "excluded", "LOSO |error|", "signed", "in-sample", "before"):
        t.add_column(col, justify="left" if col in ("source", "runtime") else "right")
    for s in rep.by_source():
        t.add_row(s["source"], s["runtime"], str(s["rows"]), str(s["excluded_rows"]),
                  _pct(s["median_abs_error"]), _pct(s["median_signed_error"], True),
                  _pct(s["median_abs_error_fit"]), _pct(s["median_abs_error_prior"]))
    console.print(t)
    t = Table(title="Fidelity targets (" + ("LOSO predictions)" if rep.loso_params else
                                             "in-sample: --quick skips the LOSO fits)"))
    for col in ("target", "measured", "goal", "met"):
        t.add_column(col)
    for c, v, g, ok in targets(rep):
        t.add_row(c, v, g, "yes" if ok else "no")
    console.print(t)
    from infersim.validation.fit import PARAMS
    bound, limit = set(rep.at_bound()), set(rep.at_physical_limit())
    t = Table(title="Fitted parameters (in-sample fit on every source)")
    for col in ("parameter", "value", "range", "at a bound", "rows it moves"):
        t.add_column(col, justify="left" if col in ("parameter", "range") else "right")
    for p in PARAMS:
        mark = "physical limit" if p.name in limit else "yes" if p.name in bound else ""
        t.add_row(p.name, f"{rep.params[p.name]:.4g}", f"[{p.lo:g}, {p.hi:g}]", mark,
                  str(rep.moved.get(p.name, "-")))
    console.print(t)
    if rep.load is not None:
        _print_load(rep.load, args.rows)
    if args.rows:
        t = Table(title="Predicted vs published measurements")
        for col in ("row", "measured", "before", "in-sample", "LOSO", "error"):
            t.add_column(col, justify="right" if col != "row" else "left")
        for r in rep.rows:
            t.add_row(r.row.id, f"{r.row.value:,.2f} {r.row.unit}", f"{r.predicted_prior:,.2f}",
                      f"{r.predicted_fit:,.2f}", f"{r.predicted_loso:,.2f}",
                      _pct(r.error, True) if r.scored else "not scored")
        console.print(t)
    return 0


def _print_load(load, rows: bool) -> None:
    from infersim.validation.docs import load_headline

    console.print(load_headline(load), style="bold", highlight=False)
    t = Table(title="Serving under load (traffic simulator, current calibration, not fitted)")
    for col in ("source", "engine", "rows", "not expressed", "median |error|", "signed"):
        t.add_column(col, justify="left" if col in ("source", "engine") else "right")
    for s in load.by_source():
        t.add_row(s["source"], s["engine"], str(s["rows"]), str(s["not_expressed"]), _pct(s["median_abs_error"]),
                  _pct(s["median_signed_error"], True))
    console.print(t)
    if rows:
        t = Table(title="Serving under load: predicted vs published")
        for col in ("row", "measured", "predicted", "error"):
            t.add_column(col, justify="right" if col != "row" else "left")
        for r in load.results:
            t.add_row(r.row.id, f"{r.row.value:,.1f}", f"{r.predicted:,.1f}", _pct(r.error, True))
        console.print(t)
