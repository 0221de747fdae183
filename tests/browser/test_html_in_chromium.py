"""The HTML report in a real headless Chromium: it renders, the timeline is drawn, the console is clean.

Debian's ``chromium`` and ``chromium-driver`` packages and selenium (the ``browser`` extra) are
needed; without them the tests skip, unless ``KAFKADIAG_REQUIRE_BROWSER=1`` (CI) makes that a
failure. The browser runs with a fresh profile and everything that would reach the network off, so
that a page that tried to fetch anything would show it as a console error or a resource entry.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.report.hostile import case_with_hostile_line

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
CASES = [str(ROOT / "fixtures" / "cases" / "seed-two-instances" / "input"),
         str(ROOT / "fixtures" / "cases" / "mixed-2.4.1" / "input")]
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage", "--window-size=1280,1000")


def _missing() -> str:
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (pip install -e '.[browser]')"
    for path in (CHROMIUM, CHROMEDRIVER):
        if not os.access(path, os.X_OK):
            return f"{path} not found (apt-get install chromium chromium-driver)"
    return ""


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    reason = _missing()
    if reason:
        if os.environ.get("KAFKADIAG_REQUIRE_BROWSER") == "1":
            pytest.fail(reason)
        pytest.skip(reason)
    os.environ.setdefault("SE_OFFLINE", "true")  # selenium must not look for drivers online
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={tmp_path_factory.mktemp('profile')}")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(60)
    yield driver
    driver.quit()


def _report(tmp_path: Path, *inputs: str) -> Path:
    out = tmp_path / "report.html"
    proc = subprocess.run([sys.executable, "-m", "kafkadiag.cli", "analyze", "--fail-on", "never", "--format", "html",
                           "-o", str(out), *inputs], capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    return out


def _open(driver, page: Path) -> float:
    """Load the page; returns the seconds until its load event."""
    driver.get_log("browser")  # drop what an earlier page left
    started = time.monotonic()
    driver.get(page.as_uri())
    return time.monotonic() - started


def _non_blank(png: bytes) -> tuple[int, float]:
    """(colours, share of pixels that are not white) of a screenshot."""
    from PIL import Image

    image = Image.open(io.BytesIO(png)).convert("RGB")
    counts = image.getcolors(maxcolors=image.width * image.height) or []
    white = sum(n for n, colour in counts if colour == (255, 255, 255))
    return len(counts), 1 - white / (image.width * image.height)


def test_the_report_renders_with_its_timelines_and_a_clean_console(browser, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By

    page = _report(tmp_path, *CASES)
    seconds = _open(browser, page)
    assert browser.title == "kafkadiag analyze report"
    articles = browser.find_elements(By.CSS_SELECTOR, "article.finding")
    assert len(articles) == 10 and articles[0].get_attribute("id") == "finding-EXP001-1"
    assert "Root causes first" in browser.find_element(By.ID, "summary").text
    assert "transaction.timeout.ms=80000" in browser.find_element(By.ID, "config-changes").text
    figures = browser.find_elements(By.CSS_SELECTOR, "figure.timeline")
    assert len(figures) == 7
    for figure in figures:
        svg = figure.find_element(By.TAG_NAME, "svg")
        assert svg.is_displayed() and svg.size["width"] > 600 and svg.size["height"] > 100, svg.size
    # The picture of the fenced id, on screen: a screenshot of it has the coordinator's colours and the markers.
    enricher = browser.find_element(By.ID, "timeline-2-order-enricher")
    browser.execute_script("arguments[0].scrollIntoView()", enricher)
    shot = enricher.find_element(By.TAG_NAME, "svg").screenshot_as_png
    colours, inked = _non_blank(shot)
    assert colours > 50 and inked > 0.10, (colours, inked)
    (tmp_path / "timeline.png").write_bytes(shot)
    browser.save_screenshot(str(tmp_path / "page.png"))
    # Nothing was fetched and nothing complained.
    resources = browser.execute_script("return performance.getEntriesByType('resource').map(e => e.name)")
    assert resources == []
    errors = [e for e in browser.get_log("browser") if e["level"] in ("SEVERE", "WARNING")]
    assert errors == []
    assert seconds < 10
    print(json.dumps({"page_bytes": page.stat().st_size, "load_seconds": round(seconds, 2), "svg_colours": colours,
                      "svg_inked": round(inked, 3)}))


def test_hostile_input_neither_runs_nor_fetches(browser, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By

    case = case_with_hostile_line(tmp_path / "case", "<script>window.pwned = 1</script>"
                                  "<img src=\"https://example.invalid/x.png\" onerror=\"window.pwned = 2\">")
    _open(browser, _report(tmp_path, str(case)))
    assert browser.execute_script("return window.pwned === undefined")
    assert "<script>window.pwned = 1</script>" in browser.find_element(By.ID, "findings").text
    assert browser.find_elements(By.CSS_SELECTOR, "#findings img, #findings script") == []
    assert len(browser.find_elements(By.CSS_SELECTOR, "figure.timeline svg")) == 1
    assert browser.execute_script("return performance.getEntriesByType('resource').length") == 0
    assert [e for e in browser.get_log("browser") if e["level"] == "SEVERE"] == []
