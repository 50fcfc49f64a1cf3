"""Regenerate the UI screenshots in this folder (1440×900, one per tab; Serving and the SLA
co-design are run with their button, as a user would).

    python docs/screenshots/make_screenshots.py [--out docs/screenshots] [--chromium /usr/bin/chromium]

Starts ``streamlit run`` on a free loopback port, drives it with Playwright in headless
Chromium (Debian's ``chromium``; Playwright's own browser download is not needed), pins two
configurations so that Compare has something to compare, and writes simulate.png, explore.png,
codesign.png, codesign-sla.png (the Co-design tab's serving-SLA mode), serving.png, compare.png
and a ``-charts`` view of each.
"""
from __future__ import annotations

import argparse
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from contextlib import contextmanager
from importlib import resources
from pathlib import Path

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-quic", "--no-first-run", "--disable-component-update", "--disable-sync"]
VIEWPORT = {"width": 1440, "height": 900}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def streamlit_server(log_path: Path):
    """A local ``streamlit run`` of the infersim app; yields its URL."""
    app = str(resources.files("infersim") / "ui" / "app.py")
    port = free_port()
    with open(log_path, "w") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", app, "--server.address", "127.0.0.1",
             "--server.port", str(port), "--server.headless", "true", "--browser.gatherUsageStats", "false",
             "--server.fileWatcherType", "none", "--server.maxUploadSize", "1"],
            stdout=log, stderr=subprocess.STDOUT)
        url = f"http://127.0.0.1:{port}"
        try:
            deadline = time.time() + 60
            while True:
                try:
                    if urllib.request.urlopen(url + "/_stcore/health", timeout=2).read() == b"ok":
                        break
                except OSError:
                    if time.time() > deadline:
                        raise RuntimeError(f"streamlit did not start: {log_path.read_text()[-2000:]}")
                    time.sleep(0.3)
            yield url
        finally:
            proc.terminate()
            proc.wait(timeout=20)


def open_tab(page, name: str, ready: str) -> None:
    """Click a tab and wait for its recommendation card and ``ready`` (a text on the tab)."""
    page.get_by_role("tab", name=name).click()
    page.locator(f".st-key-rec_{name.lower().replace('-', '')}").wait_for(timeout=60_000)
    page.get_by_text(ready).first.wait_for(timeout=120_000)
    page.wait_for_timeout(1500)          # let Plotly finish drawing


def shoot(page, out: Path, name: str, charts: bool = False) -> None:
    """The tab as it opens (``name``.png) and, with ``charts``, scrolled to its first chart
    (``name``-charts.png)."""
    page.mouse.move(5, 5)                # no hover label in the picture
    page.screenshot(path=str(out / f"{name}.png"))
    print("wrote", out / f"{name}.png")
    if charts:
        page.locator(".js-plotly-plot").first.scroll_into_view_if_needed()
        page.mouse.wheel(0, -60)
        page.wait_for_timeout(800)
        page.mouse.move(5, 5)
        page.screenshot(path=str(out / f"{name}-charts.png"))
        print("wrote", out / f"{name}-charts.png")
        page.mouse.wheel(0, -20000)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(Path(__file__).parent))
    ap.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium")
    args = ap.parse_args(argv)
    from playwright.sync_api import sync_playwright

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with streamlit_server(out / ".streamlit.log") as url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=args.chromium, args=FLAGS, headless=True)
        page = browser.new_page(viewport=VIEWPORT)
        page.goto(url, wait_until="domcontentloaded")
        for tab, ready, name in (("Simulate", "Limited by", "simulate"), ("Explore", "Least memory per PE", "explore")):
            open_tab(page, tab, ready)
            shoot(page, out, name, charts=True)
            page.get_by_role("button", name="Pin to Compare").click()      # something for Compare
            page.get_by_text("pinned to Compare").first.wait_for(timeout=30_000)
        open_tab(page, "Co-design", "Recommended hardware")
        shoot(page, out, "codesign", charts=True)
        page.get_by_text("serving SLA (tokens per $ at TTFT/TPOT)").click()      # the tab's second mode
        page.get_by_text("Press Run SLA co-design").first.wait_for(timeout=60_000)  # it never runs on its own
        page.get_by_role("button", name="Run SLA co-design").click()
        page.get_by_text("hardware candidates meet it").first.wait_for(timeout=600_000)
        page.wait_for_timeout(3000)          # the card scrolls into view after Run
        shoot(page, out, "codesign-sla", charts=True)
        page.get_by_text("one step (latency/throughput…)").click()
        open_tab(page, "Serving", "Press Run serving search")                     # it runs on its button
        page.get_by_role("button", name="Run serving search").click()
        page.get_by_text("Aggregated vs disaggregated").first.wait_for(timeout=180_000)
        page.wait_for_timeout(3000)          # the card scrolls into view after Run: shot as the user sees it
        shoot(page, out, "serving", charts=True)
        open_tab(page, "Compare", "Fastest:")
        shoot(page, out, "compare", charts=True)
        browser.close()
    os.remove(out / ".streamlit.log")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
