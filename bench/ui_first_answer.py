"""Wall time from a fresh open of the UI to the first answer (Simulate's card), printed.

    python bench/ui_first_answer.py [--runs 3]

Starts ``streamlit run`` on a loopback port (server start is not counted: ``infersim ui``
starts once), then for each run opens a new browser context and times ``goto`` → the card's
"Limited by" line. The first run includes the server's first script run (imports of the tabs'
modules, the first simulate); later runs are a second user's fresh open.
"""
from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "docs" / "screenshots"))
from make_screenshots import FLAGS, streamlit_server  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium")
    args = ap.parse_args(argv)
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp, streamlit_server(Path(tmp) / "log") as url, \
            sync_playwright() as p:
        browser = p.chromium.launch(executable_path=args.chromium, args=FLAGS, headless=True)
        for i in range(args.runs):
            ctx = browser.new_context(viewport={"width": 1440, "height": 900})
            page = ctx.new_page()
            t0 = time.perf_counter()
            page.goto(url, wait_until="domcontentloaded")
            page.locator(".st-key-rec_simulate").get_by_text("Limited by").wait_for(timeout=120_000)
            t1 = time.perf_counter()
            page.locator(".js-plotly-plot").first.wait_for(timeout=120_000)
            t2 = time.perf_counter()
            print(f"open {i + 1}: first answer {t1 - t0:.2f} s, first chart {t2 - t0:.2f} s"
                  + (" (server's first script run)" if i == 0 else ""))
            ctx.close()
        browser.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
