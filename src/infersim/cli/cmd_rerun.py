"""``infersim rerun EXPORT.json``: compute an exported result again (UI "Download result (JSON)")
and say whether the answer is the same."""
from __future__ import annotations

from infersim.cli.common import console, emit_json


def add_parser(sub) -> None:
    p = sub.add_parser("rerun", help="re-run a result exported from the UI (Download result (JSON))")
    p.add_argument("export", help="an export file written by the UI (JSON)")
    p.add_argument("--json", action="store_true", help="print the new export (same format) as JSON")
    p.set_defaults(run=run)


def run(args) -> int:
    import os

    from infersim.errors import InferSimError
    from infersim.exports import MAX_EXPORT_BYTES, rerun, runtime_label, to_export
    from infersim.loaders.files import read_text_capped

    if not os.path.exists(args.export):
        raise InferSimError(f"export file not found: {args.export}")
    if not os.path.isfile(args.export):     # a FIFO would block the read, /dev/zero never end it
        raise InferSimError(f"{args.export} is not a regular file (an export is a .json file)")
    text = read_text_capped(args.export, MAX_EXPORT_BYTES, "export file")
    job, out, old = rerun(text, os.path.basename(args.export))
    same = out.answer == old.get("answer")
    if args.json:
        emit_json({**to_export(job, out), "same_answer_as_export": same})
        return 0
    console.print(f"Re-run of a {job.kind} export (written by infersim {old.get('infersim_version')}): "
                  f"{job.model.name} on {job.hardware.name}, runtime {runtime_label(job.runtime)}", highlight=False)
    for i, line in enumerate(out.answer):
        console.print(line, style="bold" if i == 0 else None, highlight=False, soft_wrap=True)
    if same:
        console.print("Same answer as the export.")
    else:
        console.print("The answer differs from the export, which said:", highlight=False)
        for line in old.get("answer") or []:
            console.print(f"  {line}", highlight=False, soft_wrap=True)
    return 0
