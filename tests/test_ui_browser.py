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
    page.get_by_role("button", name="Run co-design sweep").click()
    title = page.locator(".js-plotly-plot .gtitle", has_text="Pareto frontier")
    title.wait_for(timeout=60_000)
    assert page.locator(".js-plotly-plot .gtitle", has_text="Sensitivity").count() == 1
    # the frontier trace and the cloud of fitting pairs are drawn as SVG points
    assert page.locator(".js-plotly-plot .scatterlayer .point").count() >= 64
    shot = tmp_path / "codesign.png"
    page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 10_000
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
