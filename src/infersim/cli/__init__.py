"""Command-line interface: ``infersim {presets,simulate,explore,codesign,serve,capacity,validate,calibrate,measure,ui,rerun}``
(``--json`` on each). One module per command (``cmd_*.py``), shared pieces in ``common.py``.
A front end: it may import anything of infersim except :mod:`infersim.ui` (a sibling); nothing
imports it but ``python -m infersim``.

What the user sees on stderr, always one line:

* bad input (a flag of the wrong type or range, an unknown preset, an impossible parallelism,
  a malformed ``config.json``): ``error: ...``, exit status 2;
* legal but suspicious input (:class:`~infersim.errors.InferSimWarning`): ``warning: ...``, and
  the command carries on;
* a bug in infersim (any other exception): ``error: internal error: <type>: <message> (please
  report ...)``, exit status 1. The traceback is hidden because a user cannot act on it, but a
  developer can: ``INFERSIM_DEBUG=1`` re-raises it.
"""
from __future__ import annotations

import argparse
import os
import sys
import warnings

from infersim.cli import (
    cmd_calibrate,
    cmd_capacity,
    cmd_codesign,
    cmd_explore,
    cmd_measure,
    cmd_presets,
    cmd_rerun,
    cmd_serve,
    cmd_simulate,
    cmd_ui,
    cmd_validate,
)
from infersim.cli.common import ArgumentParser, console, fmt_gb, fmt_ns, one_line  # noqa: F401  (public helpers)
from infersim.codesign.grid import parse_grid  # noqa: F401  (public helper)
from infersim.errors import InferSimError, InferSimWarning

COMMAND_MODULES = (cmd_presets, cmd_simulate, cmd_explore, cmd_codesign, cmd_serve, cmd_capacity, cmd_validate,
                   cmd_calibrate, cmd_measure, cmd_ui, cmd_rerun)


def build_parser() -> argparse.ArgumentParser:
    ap = ArgumentParser(prog="infersim", description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="command", required=True)
    for mod in COMMAND_MODULES:
        mod.add_parser(sub)
    return ap


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """``warnings.showwarning`` replacement: one line, no source location or code excerpt."""
    prefix = "" if issubclass(category, InferSimWarning) else f"{category.__name__}: "
    print(f"warning: {prefix}{one_line(message)}", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    """Run one command; return the exit status (also for argparse errors and ``-h``)."""
    with warnings.catch_warnings():   # restores the caller's warning state (tests call main())
        warnings.showwarning = _show_warning
        warnings.filterwarnings("default", category=InferSimWarning)
        try:
            args = build_parser().parse_args(argv)
        except SystemExit as exc:     # ArgumentParser.error already printed its one line
            return 0 if exc.code is None else exc.code
        return _run(args)


def _run(args) -> int:
    """``args.run(args)`` with every failure turned into one stderr line and an exit status."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("always", InferSimWarning)
            warnings.showwarning = _show_warning
            if isinstance(getattr(args, "runtime", None), str):    # --runtime NAME|FILE, once for every command
                from infersim.presets.runtime_presets import resolve_runtime
                args.runtime = resolve_runtime(args.runtime)
            return args.run(args)
    except InferSimError as exc:
        print(f"error: {one_line(exc)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:           # `infersim presets | head`: the reader left; not an error
        _discard_stdout()
        return 0
    except Exception as exc:          # a bug: say so in one line, keep the traceback for developers
        if os.environ.get("INFERSIM_DEBUG"):
            raise
        msg = one_line(exc)
        msg = msg if len(msg) <= 200 else msg[:197] + "..."
        print(f"error: internal error: {type(exc).__name__}: {msg} "
              "(please report it; INFERSIM_DEBUG=1 shows the traceback)", file=sys.stderr)
        return 1


def _discard_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's final flush cannot raise again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
