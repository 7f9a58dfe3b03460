"""The lessons in a real browser: headless Chromium against Voilà and JupyterLab.

One Voilà server serves the notebooks folder, as `tasks.sh present` does, and each lesson
is visited once (a visit runs the notebook): Chromium, at a projector's 1280 × 720, opens
the page, waits for the figures, checks that the prose's formulas are typeset (MathJax
output present, no raw `$` left) and that every live figure's block, from the top of its
first control to the bottom of its figure, fits the screen (BLOCK_LIMIT_PX), moves every
slider shown with the keyboard and checks that the figure's pixels change, as the page
opens and after each of the figure's buttons (no dead slider: those that do not apply
to the buttons' choice are hidden). In the same visit it checks the navigation bars'
links (each lands on a page that its own visit finds live) and drives every answer box
(tests/test_browser_exercises.py). How long a key press takes to redraw is a benchmark,
not a test: `bash tasks.sh bench --classroom` reports it. One JupyterLab server, for a
copy of the folder, opens the first lesson and drives it the same way, lesson 01 with
the file browser open, and every navigation link. Screenshots (one per figure at
1280 × 720, and the whole page) go to $DPLEARN_SCREENSHOTS, or to a folder under
pytest's temporary directory.

The servers and Chromium are the session's (tests/conftest.py): one of each per test
process, stopped at its end. Chromium is Debian's (never downloaded by
Playwright); without it the module is skipped.
"""

import contextlib
import json
import os
import pathlib
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
NOTEBOOK_DIR = pathlib.Path(os.environ.get("DPLEARN_NOTEBOOKS", ROOT / "notebooks"))
sys.path.insert(0, str(ROOT / "hub"))
from rehearsal import KERNEL_TRANSPORT  # noqa: E402 - the lessons' servers start many kernels

#: The lessons (NN-verb-phrase.ipynb); the contents page, index.ipynb, is checked on its own.
NOTEBOOKS = sorted(
    path for path in NOTEBOOK_DIR.glob("*.ipynb") if re.fullmatch(r"\d\d-.+\.ipynb", path.name)
)
INDEX = NOTEBOOK_DIR / "index.ipynb"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
PRESSES = 24
GOAL_MS = 100.0
#: A classroom projector's screen, and the most a figure with its controls may take of it.
VIEWPORT = {"width": 1280, "height": 720}
BLOCK_LIMIT_PX = 680

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(
        CHROMIUM is None, reason="chromium is not installed (apt-get install chromium)"
    ),
]

# Runs in every page before its own scripts: counts the images drawn on each canvas and
# notes when the last key went down, so that latency is measured inside the page.
PAGE_PROBE = """
(() => {
  window.__lastKey = 0;
  document.addEventListener('keydown', () => { window.__lastKey = performance.now(); }, true);
  const drawImage = CanvasRenderingContext2D.prototype.drawImage;
  CanvasRenderingContext2D.prototype.drawImage = function (...args) {
    const result = drawImage.apply(this, args);
    const canvas = this.canvas;
    (canvas.__draws = canvas.__draws || []).push(performance.now());
    return result;
  };
})();
"""

# Tags every ipympl figure that sits in an explore() box with its first slider handle,
# and names it by the last heading above it (the headings carry the figure ids).
TAG_FIGURES = """
() => {
  const items = Array.from(document.querySelectorAll('h1, h2, h3, h4, .jupyter-matplotlib'));
  let heading = '';
  const found = [];
  for (const item of items) {
    if (!item.classList.contains('jupyter-matplotlib')) {
      heading = item.textContent.replace('¶', '').trim();
      continue;
    }
    const box = item.closest('.dplearn-exploration') || item.parentElement;
    const handle = box && box.querySelector('.noUi-handle');
    const canvas = item.querySelector('.jupyter-matplotlib-canvas-div canvas');
    if (!handle || !canvas) continue;
    const index = found.length;
    item.setAttribute('data-test-figure', index);
    handle.setAttribute('data-test-handle', index);
    // Every slider of the box: a slider may do nothing in some mode (a sigma slider
    // while the buttons chose Laplace noise), so the test can try the next one.
    const handles = Array.from(box.querySelectorAll('.noUi-handle'));
    handles.forEach((h, j) => h.setAttribute('data-test-slider', `${index}-${j}`));
    item.setAttribute('data-test-sliders', handles.length);
    canvas.setAttribute('data-test-canvas', index);
    found.push(heading);
  }
  return found;
}
"""

# Measures every explore() box: from the top of its first control (slider or buttons) to
# the bottom of its figure, the height a projector must show at once. Tags each box.
MEASURE_BLOCKS = """
() => {
  const items = Array.from(document.querySelectorAll('h1, h2, h3, h4, .jupyter-matplotlib'));
  let heading = '';
  const blocks = [];
  for (const item of items) {
    if (!item.classList.contains('jupyter-matplotlib')) {
      heading = item.textContent.replace('¶', '').trim();
      continue;
    }
    const box = item.closest('.dplearn-exploration') || item.parentElement;
    const control = box && box.querySelector('.widget-slider, .widget-toggle-buttons');
    if (!control) continue;
    box.setAttribute('data-test-block', blocks.length);
    const top = control.getBoundingClientRect().top;
    const bottom = item.getBoundingClientRect().bottom;
    const right = Math.max(...Array.from(box.querySelectorAll('*'),
                                         e => e.getBoundingClientRect().right));
    blocks.push({heading, height: Math.round(bottom - top), right: Math.round(right)});
  }
  return blocks;
}
"""

# The prose of the markdown cells as rendered, without code and typeset formulas: any `$`
# left in it is a formula MathJax did not typeset. Also counts MathJax's output elements.
PROSE_STATE = """
() => {
  const cells = Array.from(document.querySelectorAll('.jp-RenderedMarkdown'));
  const raw = [];
  for (const cell of cells) {
    const copy = cell.cloneNode(true);
    copy.querySelectorAll('code, pre, mjx-container, script, style').forEach(e => e.remove());
    const text = copy.textContent;
    const at = text.indexOf('$');
    if (at >= 0) raw.push(text.slice(Math.max(0, at - 40), at + 40).replace(/\\s+/g, ' '));
  }
  return {cells: cells.length, typeset: document.querySelectorAll('mjx-container').length, raw};
}
"""

# Runs every cell of the notebook JupyterLab has open, once its panel and kernel are ready
# (the notebook opens after the shell is restored: wait for its panel).
RUN_ALL_IN_LAB = """
async () => {
  const app = window.jupyterapp;
  await app.restored;
  let panel = app.shell.currentWidget;
  for (let tries = 0; !(panel && panel.sessionContext) && tries < 600; tries++) {
    await new Promise(resolve => setTimeout(resolve, 100));
    panel = app.shell.currentWidget;
  }
  await panel.context.ready;
  await panel.sessionContext.ready;
  await app.commands.execute('notebook:run-all-cells');
}
"""

# What a failed wait reports: each live figure's canvas (images drawn @ size), the cells'
# prompts (JupyterLab), and any error text on the page.
PAGE_STATE = """
() => {
  const canvases = Array.from(document.querySelectorAll('.jupyter-matplotlib'), figure => {
    const canvas = figure.querySelector('.jupyter-matplotlib-canvas-div canvas');
    return canvas ? `${(canvas.__draws || []).length}@${canvas.width}x${canvas.height}` : 'none';
  });
  const prompts = Array.from(document.querySelectorAll('.jp-InputPrompt'), e => e.textContent);
  const errors = Array.from(document.querySelectorAll('.jp-OutputArea-output'), e => e.innerText)
    .filter(text => /Error|Traceback/.test(text)).map(text => text.slice(0, 300));
  return {canvases, handles: document.querySelectorAll('.noUi-handle').length, prompts, errors};
}
"""


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def server_environment():
    # Kernels inherit the server's environment; MPLBACKEND would defeat `%matplotlib widget`.
    return {name: value for name, value in os.environ.items() if name != "MPLBACKEND"}


class Server:
    """A Jupyter server process on 127.0.0.1, stopped (with its kernels) on exit."""

    def __init__(self, command, port, log_path, cwd):
        self.port = port
        self.log = open(log_path, "w")  # noqa: SIM115 - closed in __exit__
        self.process = subprocess.Popen(
            command, cwd=cwd, env=server_environment(), stdout=self.log, stderr=subprocess.STDOUT
        )

    def __enter__(self):
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(
                    f"server exited with {self.process.returncode}: see {self.log.name}"
                )
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.5).close()
                return self
            except OSError:
                time.sleep(0.1)
        raise RuntimeError(f"server did not answer on port {self.port}: see {self.log.name}")

    def __exit__(self, *exc):
        self.process.terminate()
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=10)
        self.log.close()


@contextlib.contextmanager
def open_browser():
    """Debian's Chromium, headless at VIEWPORT, with PAGE_PROBE in every page; closed on exit.

    tests/conftest.py opens one for the whole session (the ``browser`` fixture).
    """
    from playwright.sync_api import sync_playwright

    profile = tempfile.mkdtemp(prefix="chromium-profile-")
    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            profile,
            executable_path=CHROMIUM,
            headless=True,
            viewport=VIEWPORT,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
            ],
        )
        context.add_init_script(PAGE_PROBE)
        try:
            yield context
        finally:
            context.close()
    shutil.rmtree(profile, ignore_errors=True)


CANVAS = "document.querySelector(`[data-test-canvas='${i}']`)"


def draws(page, index):
    return page.evaluate(f"i => ({CANVAS}.__draws || []).length", index)


def pixels(page, index):
    return page.evaluate(f"i => {CANVAS}.toDataURL()", index)


def wait_for_figures(page, timeout_s=240):
    """Waits until the page's explore() figures are all drawn and their number is stable.

    A lesson runs in about 10 s on a quiet machine; the suite's three browser workers, its
    hub and its busy-CPU test can make a page wait minutes for its kernel, so the wait is
    generous: a page that never draws still fails.
    """
    deadline = time.monotonic() + timeout_s
    stable_since, last = None, None
    while time.monotonic() < deadline:
        headings = page.evaluate(TAG_FIGURES)
        drawn = headings and all(draws(page, i) > 0 for i in range(len(headings)))
        if drawn and headings == last:
            if time.monotonic() - stable_since > 1.0:
                return headings
        else:
            stable_since, last = time.monotonic(), headings if drawn else None
        page.wait_for_timeout(200)
    raise AssertionError(
        f"no figure with sliders was drawn within {timeout_s} s: {page.evaluate(PAGE_STATE)}"
    )


def slider(page, index, number=0):
    """The handle of figure index's slider number (0: its first)."""
    return page.locator(f"[data-test-slider='{index}-{number}']")


def press(page, index, key, number=0):
    """Presses key on one of figure index's sliders; returns ms until its next image."""
    handle = slider(page, index, number)
    before = draws(page, index)
    handle.press(key)
    page.wait_for_function(
        f"([i, n]) => ({CANVAS}.__draws || []).length > n",
        arg=[index, before],
        timeout=30_000,
    )
    # The first image drawn after the key went down, both times read in the page.
    return page.evaluate(
        """i => { const c = document.querySelector(`[data-test-canvas='${i}']`);
                  return c.__draws.find(t => t >= window.__lastKey) - window.__lastKey; }""",
        index,
    )


def direction(page, index, number=0):
    """ArrowRight, or ArrowLeft when the slider already sits at its maximum."""
    handle = slider(page, index, number)
    now = float(handle.get_attribute("aria-valuenow"))
    top = float(handle.get_attribute("aria-valuemax"))
    return "ArrowLeft" if now >= top else "ArrowRight"


def slider_moves_figure(page, index, number, presses=10):
    """Whether pressing an arrow key (at most presses times) changes the figure's pixels."""
    handle = slider(page, index, number)
    handle.scroll_into_view_if_needed()
    key = direction(page, index, number)
    start_value = handle.get_attribute("aria-valuetext")
    start_pixels = pixels(page, index)
    for _ in range(presses):
        press(page, index, key, number)
        if pixels(page, index) != start_pixels:
            assert handle.get_attribute("aria-valuetext") != start_value
            return True
    return False


def assert_no_dead_slider(page, index, name):
    """Every slider shown moves the figure, as the page opens and after each button.

    Sliders that do not apply to the buttons' current choice are hidden
    (``applies_when``); each one shown must change the figure's pixels. Each button of
    the figure's toggles is clicked in turn, the shown sliders checked again, and the
    buttons the page opened with are clicked again at the end. Returns the first slider
    that moved the figure as the page opened.
    """
    figure = page.locator(f"[data-test-figure='{index}']")
    box = figure.locator("xpath=ancestor::*[contains(@class, 'dplearn-exploration')][1]")
    count = int(figure.get_attribute("data-test-sliders"))
    buttons = box.locator(".widget-toggle-buttons button")
    opened = [
        i for i in range(buttons.count()) if "mod-active" in buttons.nth(i).get_attribute("class")
    ]
    dead, first = [], None
    for state in [None, *range(buttons.count())]:
        if state is not None:
            if "mod-active" in buttons.nth(state).get_attribute("class"):
                continue
            before = draws(page, index)
            buttons.nth(state).click()
            page.wait_for_function(
                f"([i, n]) => ({CANVAS}.__draws || []).length > n", arg=[index, before]
            )
        where = "as opened" if state is None else f"after {buttons.nth(state).inner_text()!r}"
        shown = [n for n in range(count) if slider(page, index, n).is_visible()]
        assert shown, f"{name}: no slider shown {where}"
        for number in shown:
            if slider_moves_figure(page, index, number):
                first = number if first is None and state is None else first
            else:
                dead.append(f"slider {number} {where}")
    for i in opened:
        buttons.nth(i).click()
    assert not dead, f"{name}: sliders shown that do not move the figure: {dead}"
    return first


def measure_latency(page, index, number=0):
    """Milliseconds from key down to the new image, over PRESSES presses back and forth.

    Not a test: `bash tasks.sh bench --classroom` reports it (a timing depends on the
    machine; the tests only check that a key press changes the figure)."""
    key = direction(page, index, number)
    other = "ArrowLeft" if key == "ArrowRight" else "ArrowRight"
    slider(page, index, number).scroll_into_view_if_needed()
    return [press(page, index, key if turn % 2 == 0 else other, number) for turn in range(PRESSES)]


def assert_formulas_typeset(page, name, timeout_s=60):
    """Waits for MathJax to typeset the prose; fails on any formula left as raw `$`."""
    deadline = time.monotonic() + timeout_s
    while True:
        state = page.evaluate(PROSE_STATE)
        if state["typeset"] and not state["raw"]:
            return state
        if time.monotonic() > deadline:
            break
        page.wait_for_timeout(250)
    assert state["cells"], f"{name}: no rendered markdown cell"
    assert state["typeset"], f"{name}: no typeset formula (no mjx-container) on the page"
    raise AssertionError(f"{name}: raw $ left in the rendered prose: {state['raw'][:5]}")


def assert_blocks_fit(page, name, screenshots, where):
    """Every live figure's block fits the projector's screen; one screenshot per block."""
    page.set_viewport_size(VIEWPORT)
    blocks = page.evaluate(MEASURE_BLOCKS)
    assert blocks, f"{name}: no figure with controls to measure"
    stem = pathlib.Path(name).stem
    for index in range(len(blocks)):
        # The block's top at the top of the screen, as a teacher would scroll to it.
        page.locator(f"[data-test-block='{index}']").evaluate(
            "e => e.scrollIntoView({block: 'start'})"
        )
        page.screenshot(path=str(screenshots / f"{where}-{stem}-figure{index + 1}.png"))
    too_tall = [
        f"{block['heading']!r}: {block['height']} px"
        for block in blocks
        if block["height"] > BLOCK_LIMIT_PX
    ]
    assert not too_tall, (
        f"{name}: taller than {BLOCK_LIMIT_PX} px from first control to figure bottom at "
        f"{VIEWPORT['width']} px wide: {'; '.join(too_tall)}"
    )
    return blocks


def check_page(page, name, screenshots, where):
    """The lesson's figures drawn, its formulas typeset, its blocks within the screen, and
    every slider shown moving its figure; then a screenshot of the whole page."""
    headings = wait_for_figures(page)
    assert "Error displaying widget" not in page.inner_text("body"), name
    if where == "voila":
        assert_formulas_typeset(page, name)
        assert_blocks_fit(page, name, screenshots, where)
    for index, heading in enumerate(headings):
        assert_no_dead_slider(page, index, f"{name}, figure under {heading!r}")
    shot = screenshots / f"{where}-{pathlib.Path(name).stem}.png"
    if where == "voila":
        # Voilà scrolls an inner panel, so a full-page shot needs a window as tall as it.
        height = page.evaluate(
            "() => Math.max(...Array.from(document.querySelectorAll('*'), e => e.scrollHeight))"
        )
        page.set_viewport_size({"width": 1280, "height": min(int(height) + 40, 20_000)})
    else:
        page.locator("[data-test-figure='0']").scroll_into_view_if_needed()
    page.screenshot(path=str(shot))
    page.set_viewport_size(VIEWPORT)
    return headings


def listen_to_console(page):
    """A list that collects the page's console messages and uncaught errors."""
    console = []
    page.on("console", lambda message: console.append(f"{message.type}: {message.text}"))
    page.on("pageerror", lambda error: console.append(f"pageerror: {error}"))
    return console


def assert_bars_link_the_neighbours(page, index, base):
    """The lesson's header and footer bars link its neighbours and the contents page.

    Each target is a page that a test of its own opens live (every lesson's visit, and
    the contents page's), so a link that lands on a dead page fails there.
    """
    notebook = NOTEBOOKS[index]
    # The footer comes with the last cell: Voilà may still be running cells below.
    page.wait_for_function(f"() => ({NAVIGATION_LINKS})().bars.length >= 2", timeout=120_000)
    found = page.evaluate(NAVIGATION_LINKS)["bars"]
    assert len(found) == 2, f"{notebook.name}: {len(found)} navigation bars"
    assert found[0] == found[1], f"{notebook.name}: header and footer differ"
    targets = [href for _, href in found[0]]
    assert targets == [base + name for name in expected_bar(index)], targets


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda path: path.name)
def test_lesson_in_voila(notebook, browser, voila_site, screenshots):
    """One visit per lesson, served as `tasks.sh present` serves it: its figures and
    sliders, its navigation bars, every answer box answered wrongly and rightly, then
    the accessibility audit of the page as used (tests/test_accessibility.py)."""
    from tests.test_accessibility import audit_lesson
    from tests.test_browser_exercises import check_exercises

    page = browser.new_page()
    console = listen_to_console(page)
    try:
        page.goto(voila_site.base + notebook.name, timeout=90_000)
        check_page(page, notebook.name, screenshots, "voila")
        assert_bars_link_the_neighbours(page, NOTEBOOKS.index(notebook), voila_site.base)
        check_exercises(page, notebook, screenshots)
        audit_lesson(page, notebook)
    except AssertionError as error:
        # What the page's scripts said (a widget that failed to render says why there).
        tail = "\n  ".join(console[-40:])
        raise AssertionError(f"{error}\nthe page's console (last 40):\n  {tail}") from error
    finally:
        page.close()


#: Runs before the page's scripts: every 100 ms timer fires after 2.5 s instead, as on a
#: page starved of CPU, such as a hub's under load. The widget manager of
#: jupyterlab_widgets 3.0.17 sleeps 100 ms between looks for a widget model and gives up
#: after 2 s without a last look; when a late timer finds the page's widget state fetched,
#: the widget shows "Error displaying widget: model not found" for good.
LATE_TIMERS = """
(() => {
  const setTimeout = window.setTimeout;
  window.setTimeout = (handler, delay, ...rest) =>
    setTimeout(handler, delay === 100 ? 2500 : delay, ...rest);
})();
"""


def test_widgets_show_when_the_page_is_slow(browser, voila_site):
    """A lesson's widgets all show, with their figures drawn, when the page's timers
    come late (LATE_TIMERS), as they do on a busy machine."""
    page = browser.new_page()
    console = listen_to_console(page)
    try:
        page.add_init_script(LATE_TIMERS)
        page.goto(voila_site.base + NOTEBOOKS[3].name, timeout=90_000)
        wait_for_figures(page)
        text = page.inner_text("body")
        tail = "\n  ".join(console[-20:])
        assert "Error displaying widget" not in text, f"the page's console:\n  {tail}"
        assert "Loading widget" not in text
    finally:
        page.close()


def jupyterlab_server(tmp_path, lab_root):
    """A JupyterLab server for lab_root on a free port, with settings of its own.

    No news toast, and every cell rendered: in windowed mode, cells out of view have no
    live figure or answer box to check.
    """
    settings = tmp_path / "settings"
    for name, value in [
        ("apputils-extension/notification", {"fetchNews": "false"}),
        ("notebook-extension/tracker", {"windowingMode": "none"}),
    ]:
        path = settings / "@jupyterlab" / f"{name}.jupyterlab-settings"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(value))
    port = free_port()
    command = [
        sys.executable,
        "-m",
        "jupyter",
        "lab",
        "--no-browser",
        "--ServerApp.ip=127.0.0.1",
        f"--ServerApp.port={port}",
        "--ServerApp.port_retries=0",
        "--IdentityProvider.token=",
        "--ServerApp.password=",
        "--ServerApp.allow_root=True",
        f"--ServerApp.root_dir={lab_root}",
        "--LabApp.expose_app_in_browser=True",
        f"--LabApp.workspaces_dir={tmp_path / 'workspaces'}",
        f"--LabApp.user_settings_dir={settings}",
    ]
    return Server(command, port, tmp_path / "lab.log", cwd=lab_root)


def lab_folder_server(tmp_path):
    """JupyterLab for a copy of the notebooks folder (Lab autosaves what it runs: the clone
    keeps clean notebooks). ``address(workspace, path)`` opens path in a workspace of its
    own, so that one test's layout (an open file browser) never reaches another's.
    """
    lab_root = tmp_path / "lab"
    shutil.copytree(
        NOTEBOOK_DIR, lab_root / "notebooks", ignore=shutil.ignore_patterns(".ipynb_checkpoints")
    )
    server = jupyterlab_server(tmp_path, lab_root)

    def address(workspace, path=""):
        tree = f"/tree/{path}" if path else ""
        return f"http://127.0.0.1:{server.port}/lab/workspaces/{workspace}{tree}"

    server.address = address
    return server


@pytest.mark.skipif(not NOTEBOOKS, reason="no lesson notebook yet")
def test_first_lesson_in_jupyterlab(browser, screenshots, lab_site):
    notebook = NOTEBOOKS[0]
    page = browser.new_page()
    try:
        page.goto(lab_site.address("first-lesson", f"notebooks/{notebook.name}"), timeout=90_000)
        page.wait_for_function("() => window.jupyterapp", timeout=90_000)
        page.evaluate(RUN_ALL_IN_LAB)
        check_page(page, notebook.name, screenshots, "lab")
    finally:
        page.close()


# Where each figure's canvas lies against the part of the notebook panel one can see
# (its scroller, without its scroll bar), and whether the left sidebar is open.
FIGURES_IN_PANEL = """
() => {
  const panel = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden)');
  const scroller = panel.querySelector('.jp-WindowedPanel-outer') || panel;
  const area = scroller.getBoundingClientRect();
  const sidebar = document.querySelector('#jp-left-stack');
  const figures = Array.from(panel.querySelectorAll('.jupyter-matplotlib'), figure => {
    const canvas = figure.querySelector('.jupyter-matplotlib-canvas-div canvas');
    const box = canvas.getBoundingClientRect();
    return {left: box.left, right: box.right, width: box.width, height: box.height,
            pixels: [canvas.width, canvas.height]};
  });
  return {left: area.left, right: area.left + scroller.clientWidth, ratio: devicePixelRatio,
          sidebar: sidebar ? sidebar.getBoundingClientRect().width : 0, figures};
}
"""

LESSON_01 = NOTEBOOK_DIR / "01-measure-privacy-loss.ipynb"


@pytest.mark.skipif(not LESSON_01.is_file(), reason="no lesson 01")
def test_lesson_01_figures_fit_jupyterlab_with_the_file_browser_open(
    browser, screenshots, capsys, lab_site
):
    """At 1280 px with the file browser open, the notebook's column is narrower than the
    widest figures: each canvas must end inside the panel one can see, drawn whole (its
    height in proportion to its width) and at most scaled down, not cut."""
    page = browser.new_page()
    try:
        page.set_viewport_size(VIEWPORT)
        page.goto(lab_site.address("file-browser", f"notebooks/{LESSON_01.name}"), timeout=90_000)
        page.wait_for_function("() => window.jupyterapp", timeout=90_000)
        page.evaluate(
            "async () => { await window.jupyterapp.restored;"
            " await window.jupyterapp.commands.execute('filebrowser:activate'); }"
        )
        page.evaluate(RUN_ALL_IN_LAB)
        wait_for_figures(page)
        page.wait_for_timeout(500)  # the last canvas takes its size
        state = page.evaluate(FIGURES_IN_PANEL)
        page.locator("[data-test-figure='0']").scroll_into_view_if_needed()
        page.screenshot(path=str(screenshots / "lab-file-browser-01-figure1.png"))
    finally:
        page.close()
    assert state["sidebar"] > 150, f"the file browser is not open: {state['sidebar']} px"
    assert state["figures"], "no figure on the page"
    scales = []
    for number, figure in enumerate(state["figures"], start=1):
        where = f"figure {number} ({figure['left']:.0f}-{figure['right']:.0f} px)"
        assert figure["left"] >= state["left"] - 1, f"{where} starts left of the panel"
        assert figure["right"] <= state["right"] + 1, (
            f"{where} runs past the panel's visible right edge at {state['right']:.0f} px"
        )
        width, height = figure["pixels"]
        assert figure["height"] == pytest.approx(figure["width"] * height / width, abs=2), (
            f"{where} is not drawn whole: {figure['width']:.0f} x {figure['height']:.0f} px"
        )
        scales.append(figure["width"] * state["ratio"] / width)
    with capsys.disabled():
        print(
            f"\nlab, file browser open ({state['sidebar']:.0f} px): lesson 01's "
            f"{len(scales)} figures end by {state['right']:.0f} px, drawn at "
            f"{min(scales):.0%} to {max(scales):.0%} of their size"
        )


# --- Navigation: every previous / contents / next link, in Voilà and in JupyterLab ------

# The links of every navigation bar on the page ("← previous · Contents · next →"), bar by
# bar, each as [text, absolute address], and the contents page's list of lessons.
NAVIGATION_LINKS = """
() => {
  const isBar = a => a.textContent === 'Contents' || a.textContent.startsWith('← ')
                     || a.textContent.endsWith(' →');
  const bars = [];
  for (const paragraph of document.querySelectorAll('.jp-RenderedMarkdown p')) {
    const links = Array.from(paragraph.querySelectorAll('a'));
    if (links.length && links.some(a => a.textContent === 'Contents') && links.every(isBar)) {
      bars.push(links.map(a => [a.textContent, a.href]));
    }
  }
  const listed = Array.from(document.querySelectorAll('.jp-RenderedMarkdown li a'),
                            a => [a.textContent, a.href]);
  return {bars, listed};
}
"""


def voila_folder_server(tmp_path, *options):
    """A Voilà server for the whole notebooks folder, as `tasks.sh present` runs it."""
    port = free_port()
    command = [
        sys.executable,
        "-m",
        "voila",
        str(NOTEBOOK_DIR),
        "--no-browser",
        f"--port={port}",
        "--Voila.ip=127.0.0.1",
        *KERNEL_TRANSPORT,
        *options,
    ]
    return Server(command, port, tmp_path / "voila-folder.log", cwd=NOTEBOOK_DIR.parent)


def has_figures(notebook):
    return "explore(" in notebook.read_text(encoding="utf-8")


def wait_until_live(page, notebook, timeout_s=120):
    """Waits until the page of notebook is live: every figure drawn, or its title shown."""
    if has_figures(notebook):
        wait_for_figures(page, timeout_s)
    else:
        page.locator(".jp-RenderedMarkdown h1").first.wait_for(timeout=timeout_s * 1000)
    text = page.inner_text("body")
    assert "Error displaying widget" not in text and "Traceback" not in text, notebook.name


def expected_bar(index):
    """What lesson index's bar links: [previous,] the contents, [next], as file names."""
    names = [path.name for path in NOTEBOOKS]
    return (
        names[index - 1 : index] + [INDEX.name] + names[index + 1 : index + 2]
        if index
        else [INDEX.name, *names[1:2]]
    )


@pytest.mark.skipif(not INDEX.is_file(), reason="no contents page yet")
def test_contents_page_in_voila_lists_every_lesson(browser, voila_site):
    """The contents page comes up live and links every lesson's page, in order.

    Each lesson's own visit (test_lesson_in_voila) opens the address linked here and
    checks its bars' links, so every link of the course lands on a page found live.
    """
    page = browser.new_page()
    try:
        page.goto(voila_site.base + INDEX.name, timeout=90_000)
        wait_until_live(page, INDEX)
        listed = page.evaluate(NAVIGATION_LINKS)["listed"]
        lessons = [href for _, href in listed if href.endswith(".ipynb")]
        assert lessons == [voila_site.base + path.name for path in NOTEBOOKS], listed
        # A link followed as a learner follows it: a click, and the lesson comes up.
        page.locator(f"a[href='{NOTEBOOKS[0].name}']").last.click()
        page.wait_for_url(voila_site.base + NOTEBOOKS[0].name, timeout=90_000)
        wait_until_live(page, NOTEBOOKS[0])
    finally:
        page.close()


# Opens path in JupyterLab (or shows its tab) and waits until its markdown is rendered.
LAB_OPEN = """
async path => {
  const app = window.jupyterapp;
  await app.restored;
  await app.commands.execute('docmanager:open', {path});
}
"""
LAB_CURRENT = """
() => { const w = window.jupyterapp.shell.currentWidget;
        return w && w.context ? w.context.path : null; }
"""
LAB_PANEL = "#jp-main-dock-panel .jp-NotebookPanel:not(.lm-mod-hidden)"


# Where each link of the open notebook's text leads, as JupyterLab will open it on a
# click: JupyterLab resolves a relative link against the notebook's folder into the
# file's address (.../files/<path>), and a click opens <path>.
LAB_LINKS = f"""
() => Array.from(document.querySelectorAll('{LAB_PANEL} .jp-RenderedMarkdown a'), a => {{
  const path = new URL(a.href).pathname;
  const at = path.indexOf('/files/');
  return [a.innerText.trim(), at < 0 ? null : decodeURIComponent(path.slice(at + 7))];
}})
"""


@pytest.mark.skipif(not INDEX.is_file(), reason="no contents page yet")
def test_every_navigation_link_in_jupyterlab_opens_its_notebook(browser, lab_site):
    """Each link of the contents and of every lesson's bar opens the notebook it names.

    Every link is read where JupyterLab keeps the path a click opens; the walk then
    clicks its way through the course, from the contents to the first lesson and by each
    lesson's "next" to the last, and back by a "previous" and a "Contents" link, so
    that each kind of link is followed as a learner follows it.
    """
    wrong = []
    page = browser.new_page()
    try:
        page.goto(lab_site.address("navigation"), timeout=90_000)
        page.wait_for_function("() => window.jupyterapp", timeout=90_000)

        def showing(name):
            try:
                page.wait_for_function(
                    f"() => ({LAB_CURRENT})() === 'notebooks/{name}'", timeout=30_000
                )
            except Exception:
                return False
            # The notebook's text is rendered (its links are there to read).
            page.wait_for_selector(
                f"{LAB_PANEL} .jp-RenderedMarkdown a", state="attached", timeout=30_000
            )
            return True

        def links_lead(source, expected):
            """expected: {link text: file name}; each such link must open that file."""
            # JupyterLab resolves the links a moment after it shows the text; a link
            # "names" a notebook when its text holds the notebook's title (the bar adds
            # arrows).
            deadline = time.monotonic() + 30
            while True:
                links = page.evaluate(LAB_LINKS)
                found = {
                    text: next((path for shown, path in links if text in shown), None)
                    for text in expected
                }
                if all(found.values()) or time.monotonic() > deadline:
                    break
                page.wait_for_timeout(50)
            for text, target in expected.items():
                if found[text] != f"notebooks/{target}":
                    wrong.append(f"{source}: {text!r} leads to {found[text]}")

        def click(source, text, target):
            link = page.locator(f"{LAB_PANEL} .jp-RenderedMarkdown a", has_text=text).first
            link.scroll_into_view_if_needed()
            link.click()
            if not showing(target):
                wrong.append(f"{source}: clicking {text!r} opened {page.evaluate(LAB_CURRENT)}")

        def title(name):
            return "Contents" if name == INDEX.name else navigation_title(NOTEBOOK_DIR / name)

        page.evaluate(LAB_OPEN, f"notebooks/{INDEX.name}")
        assert showing(INDEX.name), page.evaluate(LAB_CURRENT)
        links_lead(INDEX.name, {title(path.name): path.name for path in NOTEBOOKS})
        click(INDEX.name, title(NOTEBOOKS[0].name), NOTEBOOKS[0].name)
        for index, path in enumerate(NOTEBOOKS):
            bar = expected_bar(index)
            links_lead(path.name, {title(target): target for target in bar})
            if index + 1 < len(NOTEBOOKS):
                click(path.name, title(bar[-1]), bar[-1])
        last, before = NOTEBOOKS[-1].name, NOTEBOOKS[-2].name
        click(last, title(before), before)
        click(before, "Contents", INDEX.name)
    finally:
        page.close()
    assert not wrong, wrong


def navigation_title(path):
    """The first heading of a notebook, as its links show it."""
    import nbformat

    for cell in nbformat.read(path, as_version=4).cells:
        for line in cell.source.splitlines():
            if cell.cell_type == "markdown" and line.startswith("# "):
                return line[2:].strip()
    raise AssertionError(f"{path.name} has no title")
