"""End to end: the real Streamlit server on a loopback port, driven by headless Chromium."""
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from importlib import resources

import pytest

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
pytestmark = pytest.mark.skipif(not os.path.exists(CHROMIUM),
                                reason="Debian chromium is not installed (apt-get install chromium)")
playwright = pytest.importorskip("playwright.sync_api")
pytest.importorskip("streamlit")

APP = str(resources.files("infersim") / "ui" / "app.py")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-quic", "--no-first-run", "--disable-component-update", "--disable-sync"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    port = free_port()
    log = tmp_path_factory.mktemp("server") / "streamlit.log"
    with open(log, "w") as fh:
        proc = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", APP, "--server.address", "127.0.0.1",
             "--server.port", str(port), "--server.headless", "true",
             "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"],
            stdout=fh, stderr=subprocess.STDOUT)
        url = f"http://127.0.0.1:{port}"
        deadline = time.time() + 60
        while time.time() < deadline:
            try:
                if urllib.request.urlopen(url + "/_stcore/health", timeout=2).read() == b"ok":
                    break
            except OSError:
                time.sleep(0.3)
        else:
            proc.terminate()
            pytest.fail(f"streamlit did not start: {log.read_text()[-2000:]}")
        yield url
        proc.terminate()
        proc.wait(timeout=20)


@pytest.fixture(scope="module")
def browser():
    with playwright.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        yield b
        b.close()


def test_codesign_tab_renders_pareto_chart(server, browser, tmp_path):
    page = browser.new_page(viewport={"width": 1500, "height": 1800})
    page.goto(server, wait_until="domcontentloaded")
    page.get_by_role("tab", name="Co-design").click()
    page.locator(".st-key-rec_codesign").get_by_text("Recommended hardware:").wait_for(timeout=60_000)
    title = page.locator(".js-plotly-plot .gtitle", has_text="vs system cost of the PEs used")
    title.wait_for(timeout=60_000)
    assert page.locator(".js-plotly-plot .gtitle", has_text="Sensitivity of latency").count() == 1
    # every hardware candidate is its own SVG point (64), plus the recommended star
    assert page.locator(".js-plotly-plot .scatterlayer .point").count() >= 65
    # another objective does not start a sweep: the answer stays, marked stale, until Run
    before = page.locator(".st-key-rec_codesign").inner_text().splitlines()[0]
    page.locator(".st-key-cd_objective").click()
    page.get_by_role("option", name="throughput_per_pe").click()
    page.get_by_text("The inputs changed since this result was computed").wait_for(timeout=30_000)
    assert page.locator(".st-key-rec_codesign").inner_text().splitlines()[0] == before
    page.get_by_role("button", name="Run co-design sweep").click()
    page.locator(".js-plotly-plot .gtitle", has_text="Sensitivity of throughput_per_pe").wait_for(timeout=60_000)
    assert page.get_by_text("The inputs changed since this result was computed").count() == 0
    shot = tmp_path / "codesign.png"
    page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 10_000
    page.close()


def _pin_current(page, expected: str) -> None:
    # while Streamlit re-renders, the previous run's button can still be in the page beside the
    # new one: wait until one is left, then click it
    button = page.get_by_role("button", name="Pin to Compare")
    for _ in range(300):
        if button.count() == 1:
            break
        page.wait_for_timeout(100)
    button.click()
    page.get_by_text(f"pinned to Compare: Simulate: {expected}").first.wait_for(timeout=30_000)


def test_pin_two_configs_and_compare(server, browser):
    """Pin TP8 and TP16 from Simulate; Compare names the faster and its table holds both."""
    from infersim import Parallelism, Workload, simulate
    from infersim.hardware_presets import GENERIC_SIP
    from infersim.model_presets import PRESETS

    page = browser.new_page(viewport={"width": 1440, "height": 1000})
    page.goto(server, wait_until="domcontentloaded")
    page.locator(".st-key-rec_simulate").get_by_text("Limited by").wait_for(timeout=60_000)
    _pin_current(page, "TP8 CP1 PP1 DP1")
    tp = page.get_by_label("TP", exact=True)
    tp.fill("16")
    tp.press("Enter")
    page.locator(".st-key-rec_simulate").get_by_text("with TP16 CP1 PP1 DP1").wait_for(timeout=30_000)
    _pin_current(page, "TP16 CP1 PP1 DP1")
    page.get_by_role("tab", name="Compare").click()
    card = page.locator(".st-key-rec_compare")
    card.get_by_text("Fastest:", exact=True).wait_for(timeout=30_000)
    wl, model = Workload("decode", s_kv=131072), PRESETS["Llama 3.1 70B"].model
    lat = {tp: simulate(model, GENERIC_SIP, Parallelism(tp=tp), wl).total_latency_ns / 1e6 for tp in (8, 16)}
    fastest = 2 if lat[16] < lat[8] else 1
    assert card.inner_text().splitlines()[0].startswith(f"Fastest: #{fastest} Simulate")
    with page.expect_download() as dl:
        page.get_by_role("button", name="Download the comparison (CSV, 2 rows)").click()
    import pandas as pd

    table = pd.read_csv(dl.value.path())
    assert table["parallelism"].str.split(" \\(").str[0].tolist() == ["TP8 CP1 PP1 DP1", "TP16 CP1 PP1 DP1"]
    assert table["latency (ms)"].tolist() == pytest.approx([lat[8], lat[16]])
    assert table["fits"].tolist() == [True, True]
    # the shared-scale breakdown draws both pins
    page.locator(".js-plotly-plot .gtitle", has_text="Latency breakdown, one scale").wait_for()
    assert page.locator(".js-plotly-plot .ytick", has_text="#2 Simulate: TP16").count() >= 1
    page.close()


def test_exported_json_reruns(server, browser, tmp_path):
    """Download the co-design result from the browser, re-run it with ``infersim rerun`` and
    through Compare's upload: same answer both ways."""
    import json

    page = browser.new_page(viewport={"width": 1440, "height": 1000})
    page.goto(server, wait_until="domcontentloaded")
    page.get_by_role("tab", name="Co-design").click()
    page.locator(".st-key-rec_codesign").get_by_text("Recommended hardware:").wait_for(timeout=60_000)
    with page.expect_download() as dl:
        page.get_by_role("button", name="Download result (JSON)").click()
    path = tmp_path / "codesign.json"
    dl.value.save_as(path)
    export = json.loads(path.read_text())
    assert {"model", "hardware", "workload", "runtime", "objective", "depth", "grid",
            "infersim_version"} <= set(export)
    done = subprocess.run([sys.executable, "-m", "infersim", "rerun", str(path)], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert "Same answer as the export." in done.stdout
    assert export["answer"][0] in " ".join(done.stdout.split())
    page.get_by_role("tab", name="Compare").click()
    page.locator('input[type="file"]').set_input_files(str(path))
    page.get_by_text("re-ran the codesign export codesign.json: same answer as the export; pinned").wait_for(
        timeout=60_000)
    page.close()


def test_malformed_config_upload_shows_message(server, browser, tmp_path):
    bad = tmp_path / "config.json"
    bad.write_text("{ this is not json")
    page = browser.new_page(viewport={"width": 1400, "height": 1200})
    page.goto(server, wait_until="domcontentloaded")
    sidebar = page.locator('[data-testid="stSidebar"]')
    sidebar.locator('[data-testid="stSelectbox"]').first.click()
    page.get_by_role("option", name="Upload config.json…").click()
    page.locator('input[type="file"]').set_input_files(str(bad))
    page.get_by_text("malformed config.json").first.wait_for(timeout=30_000)
    # the app is still alive: pick a preset again and the tabs come back
    sidebar.locator('[data-testid="stSelectbox"]').first.click()
    page.get_by_role("option", name="Llama 3.1 8B").click()
    page.get_by_role("tab", name="Simulate").wait_for(timeout=30_000)
    page.screenshot(path=str(tmp_path / "upload.png"), full_page=True)
    page.close()



def test_uploaded_path_string_is_content_not_a_server_file(server, browser, tmp_path):
    """Issue #11: a config.json whose content names a server file must be parsed as JSON text;
    an existing and a missing path give the same message, and the file is never shown."""
    messages = []
    for content in ("/etc/passwd", "/nonexistent/config.json"):
        f = tmp_path / "config.json"
        f.write_text(content)
        page = browser.new_page(viewport={"width": 1400, "height": 1200})   # a fresh session each
        page.goto(server, wait_until="domcontentloaded")
        sidebar = page.locator('[data-testid="stSidebar"]')
        sidebar.locator('[data-testid="stSelectbox"]').first.click()
        page.get_by_role("option", name="Upload config.json…").click()
        page.locator('input[type="file"]').set_input_files(str(f))
        # the verdict on the upload (not the "upload a config.json" prompt shown before it)
        alert = page.locator('[data-testid="stAlert"]', has_text=re.compile("malformed|not found")).first
        alert.wait_for(timeout=30_000)
        messages.append(alert.inner_text().strip())
        body = page.locator("body").inner_text()
        assert "root:" not in body and "not found" not in body
        page.close()
    assert messages[0] == messages[1] == "malformed config.json: Expecting value at line 1"
