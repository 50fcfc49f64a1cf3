"""``infersim ui``."""
from __future__ import annotations

import sys

from infersim.cli.common import console, emit_json, int_in
from infersim.errors import InferSimError


def add_parser(sub) -> None:
    p = sub.add_parser("ui", help="start the Streamlit UI on 127.0.0.1")
    p.add_argument("--port", type=int_in(1, 65535), default=8501, help="TCP port (default 8501)")
    p.add_argument("--json", action="store_true", help="print the URL as JSON and keep serving")
    p.set_defaults(run=run)


def run(args) -> int:
    import os
    import subprocess
    from importlib import resources

    try:
        import streamlit
    except ImportError:
        raise InferSimError("the UI needs the 'ui' extra: pip install 'infersim[ui]'") from None
    app = str(resources.files("infersim") / "ui" / "app.py")
    url = f"http://127.0.0.1:{args.port}"
    if args.json:
        emit_json({"url": url})
    else:
        console.print(f"infersim UI on {url}")
    cmd = [sys.executable, "-m", "streamlit", "run", app, "--server.address", "127.0.0.1",
           "--server.port", str(args.port), "--server.headless", "true",
           "--browser.gatherUsageStats", "false",
           # uploads (config.json, hardware file, export) are a few KB: refuse big ones before buffering
           "--server.maxUploadSize", "1"]
    return _serve(subprocess.Popen(cmd, env={**os.environ, "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false"}))


def _serve(child) -> int:
    """Wait for the Streamlit server; SIGTERM or SIGHUP to ``infersim ui`` stops it too (a plain
    ``subprocess.call`` died alone and left the server holding the port)."""
    import signal

    def stop(signum, frame):
        child.terminate()
        try:
            child.wait(timeout=10)
        except Exception:      # noqa: BLE001 — it would not stop: make it
            child.kill()
        raise SystemExit(128 + signum)

    old = {s: signal.signal(s, stop) for s in (signal.SIGTERM, signal.SIGHUP)}
    try:
        return child.wait()
    except KeyboardInterrupt:        # Ctrl-C reaches both; let the server finish its shutdown
        child.wait()
        raise
    finally:
        for s, h in old.items():
            signal.signal(s, h)
