"""Headless system Chromium for replay pages: used by tests/test_replay_browser.py, and run
alone it makes the README's screenshot of a replay step::

    hexlore run battlelore/spider_ford --seed 7 --html replay.html
    python tests/replay_browser.py replay.html 12 docs/replay_spider_ford_7.png

The flags keep the browser from the network and from any profile but a fresh one.
"""

from __future__ import annotations

import contextlib
import shutil
import sys
import tempfile
from pathlib import Path

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run",
         "--disable-component-update", "--disable-sync", "--hide-scrollbars", "--force-device-scale-factor=1",
         "--window-size=1400,900", "--font-render-hinting=none")


@contextlib.contextmanager
def chromium():
    """A selenium driver of the system's Chromium with a throw-away profile."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="hexlore-chromium-")
    options = webdriver.ChromeOptions()
    for flag in FLAGS + (f"--user-data-dir={profile}",):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(DRIVER), options=options)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def press(driver, key: str, times: int = 1) -> None:
    from selenium.webdriver.common.by import By

    body = driver.find_element(By.TAG_NAME, "body")
    for _ in range(times):
        body.send_keys(key)


def screenshot(driver, page: Path, step: int, out: Path) -> None:
    """``page`` opened, ``step`` steps taken with the Right arrow, the window saved as PNG."""
    from selenium.webdriver.common.keys import Keys

    driver.get(page.resolve().as_uri())
    press(driver, Keys.ARROW_RIGHT, step)
    driver.save_screenshot(str(out))


if __name__ == "__main__":
    with chromium() as browser:
        screenshot(browser, Path(sys.argv[1]), int(sys.argv[2]), Path(sys.argv[3]))
