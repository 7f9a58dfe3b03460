"""Every lesson of the 中文 and Русский editions, opened in Voilà as a learner opens it.

One visit per page, served from the same folder as the English lessons (`tasks.sh present`
serves notebooks/, the editions under zh/ and ru/): the page's ``lang`` is the edition's,
its figures are drawn, their names and descriptions read to a screen reader are in the
edition's language, no error, warning or stderr text shows, and axe-core finds no
violation. The English visit (tests/test_browser.py) also moves every slider and answers
every box; an edition's shares that code, so its visit checks less.
"""

import pathlib
import re

import pytest

from dplearn import language
from tests.test_accessibility import ACCESS_COUNTS, AXE, audit
from tests.test_browser import CHROMIUM, NOTEBOOK_DIR, listen_to_console, wait_until_live

EDITIONS = [code for code in language.LANGUAGES if code != "en"]
PAGES = [
    (code, path) for code in EDITIONS for path in sorted((NOTEBOOK_DIR / code).glob("*.ipynb"))
]
SCRIPT = {"zh": r"[\u4e00-\u9fff]", "ru": r"[А-Яа-яЁё]"}

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed"),
]

#: Outputs a learner should never see on a lesson page.
BAD_OUTPUTS = """
() => Array.from(document.querySelectorAll(
  '[data-mime-type="application/vnd.jupyter.stderr"], .jp-OutputArea-output.jp-mod-error'
), element => element.textContent.slice(0, 300))
"""


def explored(path):
    return path.read_text(encoding="utf-8").count("explore(")


@pytest.mark.parametrize(
    ("code", "notebook"), PAGES, ids=[f"{code}/{path.name}" for code, path in PAGES]
)
def test_edition_in_voila(code, notebook, browser, voila_site, screenshots):
    page = browser.new_page()
    console = listen_to_console(page)
    try:
        page.goto(f"{voila_site.base}{code}/{notebook.name}", timeout=90_000)
        wait_until_live(page, notebook)
        tag = language.LANGUAGES[code].tag
        page.wait_for_function(f"() => document.documentElement.lang === {tag!r}", timeout=30_000)
        body = page.inner_text("body")
        assert re.search(SCRIPT[code], body), notebook.name
        for bad in ("Error displaying widget", "Traceback", "Warning:"):
            assert bad not in body, f"{code}/{notebook.name}: {bad!r} on the page"
        assert page.evaluate(BAD_OUTPUTS) == [], f"{code}/{notebook.name}"
        found = page.evaluate(ACCESS_COUNTS, None)
        assert len(found["figures"]) >= min(1, explored(notebook))
        for figure in found["figures"]:
            assert re.search(SCRIPT[code], figure["name"]), figure
            assert re.search(SCRIPT[code], figure["description"]), figure
        unnamed = [control for control in found["controls"] if not control["name"].strip()]
        assert not unnamed, unnamed
        page.screenshot(path=str(screenshots / f"voila-{code}-{pathlib.Path(notebook).stem}.png"))
        if AXE.is_file():
            violations = audit(page)
            assert violations == [], violations
    except AssertionError as error:
        tail = "\n  ".join(console[-30:])
        raise AssertionError(f"{error}\nthe page's console (last 30):\n  {tail}") from error
    finally:
        page.close()
