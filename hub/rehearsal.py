"""A local JupyterHub with the course, and learners in Chromium: for the smoke test and
the load test (tests/test_hub.py, benchmarks/classroom.py --hub).

``LocalHub`` starts ``jupyterhub -f hub/jupyterhub_config.py`` on 127.0.0.1 with a state
folder of its own and stops it, with every learner's server, on exit. ``Learner`` logs one
learner in through the hub's login page, opens a lesson as a Voilà page through the hub
(``/user/NAME/voila/render/notebooks/...``), waits until its figures are drawn and moves
a slider, timing key press -> new image inside the page. Each learner has a browser
context of its own (its own cookies), all in one Chromium.
"""

from __future__ import annotations

import asyncio
import json
import os
import pathlib
import shutil
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request

ROOT = pathlib.Path(__file__).resolve().parents[1]
CONFIG = ROOT / "hub" / "jupyterhub_config.py"
#: Where `tasks.sh` installs configurable-http-proxy with npm.
PROXY_BIN = ROOT / ".hub" / "node_modules" / ".bin"
PASSWORD = "rehearsal"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
VIEWPORT = {"width": 1280, "height": 720}
#: For a Jupyter or Voilà server that starts many kernels at once (a preheated pool, a
#: test run): its kernels talk over socket files of their own. Over TCP, a kernel's port,
#: picked free, can be taken by another process before the kernel binds it, and the
#: kernel dies at start ("Address already in use"), as `tasks.sh present` avoids too.
#: Linux only: macOS's temporary folders make socket paths longer than it allows.
KERNEL_TRANSPORT = ["--KernelManager.transport=ipc"] if sys.platform == "linux" else []
LESSON = "02-see-what-delta-means.ipynb"

# Runs in every page: counts the images drawn on each canvas, notes the last key press.
PAGE_PROBE = """
(() => {
  window.__lastKey = 0;
  document.addEventListener('keydown', () => { window.__lastKey = performance.now(); }, true);
  const drawImage = CanvasRenderingContext2D.prototype.drawImage;
  CanvasRenderingContext2D.prototype.drawImage = function (...args) {
    const result = drawImage.apply(this, args);
    (this.canvas.__draws = this.canvas.__draws || []).push(performance.now());
    return result;
  };
})();
"""

# Whether each figure of the page shows an image, one boolean per figure: ipympl sizes a
# canvas (transparent) before any image arrives; a figure's image is opaque (its face
# colour). Every 97th pixel of each figure's first canvas is enough (the one above it
# holds the zoom rectangle). Shared with benchmarks/classroom.py.
FIGURES_PAINTED = """
Array.from(document.querySelectorAll('.jupyter-matplotlib-canvas-div'), div => {
  const canvas = div.querySelector('canvas');
  if (!canvas || !canvas.width || !canvas.height) return false;
  const pixels = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
  for (let i = 3; i < pixels.length; i += 4 * 97) if (pixels[i] > 0) return true;
  return false;
})
"""

# The live state of a lesson page: whether each figure shows an image, the first figure's first
# slider shown (tagged for the test), and any error or dead-kernel message on the page,
# or a formula left untypeset (its TeX still in the text of a Markdown cell).
#: Words a learner's page must never show (the page's text, any case).
PROBLEM_WORDS = [
    "Traceback",
    "Error displaying widget",
    "Kernel died",
    "dead kernel",
    "Kernel Restarting",
    "Connection lost",
]
PAGE_STATE = f"""
() => {{
  const figures = {FIGURES_PAINTED.strip()};
  const first = document.querySelector('.dplearn-exploration .jupyter-matplotlib-canvas-div');
  if (first) {{
    first.querySelector('canvas').setAttribute('data-hub-canvas', '0');
    const box = first.closest('.dplearn-exploration');
    const handle = Array.from(box.querySelectorAll('.noUi-handle'))
      .find(h => h.offsetParent !== null);
    if (handle) handle.setAttribute('data-hub-handle', '0');
  }}
  const text = document.body ? document.body.innerText : '';
  const problems = {json.dumps(PROBLEM_WORDS)}
    .filter(word => text.toLowerCase().includes(word.toLowerCase()));
  // TeX left in a Markdown cell's text: its formulas were never typeset.
  const untypeset = Array.from(document.querySelectorAll('.jp-RenderedMarkdown'))
    .filter(cell => /\\$[^$\\s][^$]*\\$/.test(cell.innerText)).length;
  // Where a widget failed: its cell's place on the page and the heading above it.
  const cells = Array.from(document.querySelectorAll('.jp-Cell'));
  const failed = Array.from(document.querySelectorAll('.jupyter-widgets'))
    .filter(node => node.textContent.startsWith('Error displaying widget'))
    .map(node => {{
      const cell = node.closest('.jp-Cell');
      const index = cells.indexOf(cell);
      const heading = cells.slice(0, index + 1).reverse()
        .map(c => c.querySelector('h1, h2, h3')).find(h => h);
      return `cell ${{index}} (under "${{heading ? heading.textContent.trim() : ''}}")`;
    }});
  return {{figures, handle: !!document.querySelector("[data-hub-handle='0']"), problems,
          untypeset, failed}};
}}
"""


def free_port(count=3):
    """A port p such that p, p + 1, ..., p + count - 1 are all free on 127.0.0.1."""
    for _ in range(100):
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        if port + count > 65535:
            continue
        try:
            for offset in range(1, count):
                with socket.socket() as probe:
                    probe.bind(("127.0.0.1", port + offset))
            return port
        except OSError:
            continue
    raise RuntimeError("no free ports")


def proxy_installed():
    return (PROXY_BIN / "configurable-http-proxy").exists()


class LocalHub:
    """``jupyterhub`` with the repository's configuration, on 127.0.0.1, stopped on exit."""

    def __init__(self, state, port=None, password=PASSWORD):
        self.state = pathlib.Path(state)
        self.state.mkdir(parents=True, exist_ok=True)
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.password = password
        self.process = None

    def __enter__(self):
        environment = {name: value for name, value in os.environ.items() if name != "MPLBACKEND"}
        environment.update(
            HUB_PORT=str(self.port),
            HUB_PASSWORD=self.password,
            DPLEARN_HUB_STATE=str(self.state),
            PATH=f"{PROXY_BIN}{os.pathsep}{pathlib.Path(sys.executable).parent}"
            f"{os.pathsep}{environment.get('PATH', '')}",
        )
        self.log = open(self.state / "hub.log", "w")  # noqa: SIM115 - closed in __exit__
        self.process = subprocess.Popen(
            [str(pathlib.Path(sys.executable).with_name("jupyterhub")), "-f", str(CONFIG)],
            cwd=self.state,
            env=environment,
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the hub exited: see {self.log.name}")
            try:
                with urllib.request.urlopen(f"{self.url}/hub/api", timeout=2) as answer:
                    if answer.status == 200:
                        return self
            except OSError:
                time.sleep(0.3)
        raise RuntimeError(f"the hub did not answer within 120 s: see {self.log.name}")

    def processes(self):
        """The hub's process tree (psutil): the proxy, the learners' servers, their kernels."""
        import psutil

        return psutil.Process(self.process.pid).children(recursive=True)

    def learner_processes(self):
        """{user name: [processes]}: each learner's server and its kernels."""
        import psutil

        found = {}
        for process in self.processes():
            try:
                if "jupyterhub-singleuser" not in " ".join(process.cmdline()):
                    continue
                user = process.environ().get("JUPYTERHUB_USER", "?")
                found[user] = [process, *process.children(recursive=True)]
            except psutil.Error:
                continue
        return found

    def __exit__(self, *exc):
        import psutil

        tree = []
        try:
            tree = self.processes()
        except psutil.Error:
            pass
        self.process.terminate()
        try:
            self.process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=10)
        # Whatever the hub did not stop (a server mid-start), stop it here: these are
        # the processes this hub started, found by their parent, never by name.
        for process in tree:
            try:
                process.terminate()
            except psutil.Error:
                pass
        psutil.wait_procs(tree, timeout=10)
        for process in tree:
            try:
                process.kill()
            except psutil.Error:
                pass
        self.log.close()


class Learner:
    """One learner in one browser context: log in, open a lesson, move a slider."""

    def __init__(self, browser, hub, name):
        self.browser, self.hub, self.name = browser, hub, name
        self.latencies_ms = []
        self.failures = []
        #: How often the learner asked for the lesson again while the hub spawned.
        self.reloads = 0

    async def open(self, lesson=LESSON, timeout_s=300):
        """Logs in and waits until the lesson's figures are drawn; returns seconds taken."""
        self.context = await self.browser.new_context(viewport=VIEWPORT)
        await self.context.add_init_script(PAGE_PROBE)
        self.page = await self.context.new_page()
        # What the page's scripts say, so that a failure can show why a widget broke.
        self.console = []
        self.page.on(
            "console", lambda message: self.console.append(f"{message.type}: {message.text}")
        )
        self.page.on("pageerror", lambda error: self.console.append(f"pageerror: {error}"))
        start = time.perf_counter()
        target = f"/user/{self.name}/voila/render/notebooks/{lesson}"
        await self.page.goto(
            f"{self.hub.url}/hub/login?next={urllib.parse.quote(target)}", timeout=60_000
        )
        await self.page.fill("#username_input", self.name)
        await self.page.fill("#password_input", self.hub.password)
        await self.page.click("#login_submit")
        # The hub's spawn page (/hub/spawn-pending/...) first, then the lesson itself. The
        # spawn page follows the server's start by an event stream; under load it can
        # miss the end, so a learner who waits long asks for the lesson again (a reload).
        deadline = time.perf_counter() + timeout_s
        while True:
            try:
                await self.page.wait_for_url(
                    lambda url: urllib.parse.urlsplit(url).path == target, timeout=20_000
                )
                break
            except Exception:
                if time.perf_counter() > deadline:
                    raise
                if "/spawn-pending/" in self.page.url or "/hub/user/" in self.page.url:
                    self.reloads += 1
                    await self.page.goto(f"{self.hub.url}{target}", timeout=timeout_s * 1000)
        await self.page.wait_for_load_state("load", timeout=timeout_s * 1000)
        while time.perf_counter() - start < timeout_s:
            state = await self.page.evaluate(PAGE_STATE)
            if state["problems"]:
                raise AssertionError(
                    f"{self.name}: {state['problems']} on the page (widgets that failed: "
                    f"{state['failed']}); {self.console_tail()}"
                )
            if state["figures"] and all(state["figures"]) and state["handle"]:
                return time.perf_counter() - start
            await asyncio.sleep(0.1)
        raise AssertionError(f"{self.name}: lesson not live within {timeout_s} s: {state}")

    def console_tail(self, count=200):
        """The page's last console messages, for a failure's message."""
        lines = "\n  ".join(self.console[-count:])
        return f"the page's console (last {count}):\n  {lines}"

    async def move_slider(self, timeout_s=30):
        """Presses an arrow key on the first figure's first slider; ms to its new image."""
        handle = self.page.locator("[data-hub-handle='0']")
        now = float(await handle.get_attribute("aria-valuenow"))
        top = float(await handle.get_attribute("aria-valuemax"))
        bottom = float(await handle.get_attribute("aria-valuemin"))
        going = getattr(self, "_going", "ArrowRight")
        if going == "ArrowRight" and now >= top:
            going = "ArrowLeft"
        elif going == "ArrowLeft" and now <= bottom:
            going = "ArrowRight"
        self._going = going
        canvas = "document.querySelector(\"[data-hub-canvas='0']\")"
        await handle.press(going)
        # An image drawn after this key went down (a late image of the move before does
        # not count).
        await self.page.wait_for_function(
            f"() => ({canvas}.__draws || []).some(t => t >= window.__lastKey)",
            timeout=timeout_s * 1000,
        )
        return await self.page.evaluate(
            f"""() => {{ const c = {canvas};
                      return c.__draws.find(t => t >= window.__lastKey) - window.__lastKey; }}"""
        )

    async def keep_moving(self, until, pause_s=0.25):
        """Moves the slider again and again until the monotonic time until."""
        while time.monotonic() < until:
            try:
                self.latencies_ms.append(await self.move_slider())
            except Exception as error:  # noqa: BLE001 - counted, reported, and the test fails
                self.failures.append(f"{type(error).__name__}: {str(error)[:200]}")
            await asyncio.sleep(pause_s)

    async def check(self):
        """Problems the page shows now (errors, a dead kernel), as a list of words."""
        state = await self.page.evaluate(PAGE_STATE)
        problems = list(state["problems"])
        if state["failed"]:
            problems.append(f"widgets that failed: {', '.join(state['failed'])}")
        if not all(state["figures"]):
            problems.append("no figure drawn")
        if state["untypeset"]:
            problems.append(f"formulas not typeset in {state['untypeset']} cells")
        return problems

    async def close(self):
        await self.context.close()
