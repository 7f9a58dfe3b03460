"""How long a lesson takes to come alive in Voilà, cold and with preheated kernels.

For every lesson, headless Chromium (Debian's) at 1280 × 720 opens the lesson
from the folder server that `tasks.sh present` runs, and times from the request to every
figure of the page shown: the page loaded (Voilà has run every cell) and each ipympl
canvas holds a painted image (pixels, not the blank canvas ipympl draws first). Then it
moves the page's first slider and times the redrawn image: the page is live, the kernel
answers. Cold: Voilà starts a kernel and runs the notebook when the request comes.
Preheated (`--preheat_kernel=True`, a pool of one kernel per notebook): the notebook
already ran in a waiting kernel, and Voilà sends what it rendered. Each lesson is opened
ROUNDS times per mode, each visit on a settled server (the pool full and idle, as a
teacher finds it); the table gives the median and the largest time. It also measures
what the pool costs: the resident memory (RSS) of every waiting kernel, once it is full.

    python benchmarks/classroom.py            # or: bash tasks.sh bench --classroom

``hub_load(N)`` (``bash tasks.sh bench --hub --learners N``) is the load test of a class:
N learners on the local JupyterHub of hub/jupyterhub_config.py, each opening lesson 02
as a Voilà page through the hub and moving its sliders for a bounded time.

Every time is also given as a ratio to a baseline page measured in the same run (one
slider and one small ipympl figure, served and preheated the same way): a teacher's
laptop may be slower than ours, but the course's share on top of what Voilà costs
carries over. The goal for a classroom: every lesson shown, preheated, within 1.5 times
the baseline. It also times key press -> new image over many presses on each lesson's
first slider (the tests only check that a press changes the figure). A visit whose
server did not settle in time is measured anyway, and said so.

Everything runs on 127.0.0.1 and stops by itself.
"""

from __future__ import annotations

import asyncio
import pathlib
import shutil
import statistics
import sys
import tempfile
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "hub"))

from rehearsal import CHROMIUM_FLAGS, FIGURES_PAINTED, KERNEL_TRANSPORT  # noqa: E402

from tests.test_browser import (  # noqa: E402 - the browser set-up of the tests
    CHROMIUM,
    GOAL_MS,
    NOTEBOOK_DIR,
    PAGE_PROBE,
    PRESSES,
    VIEWPORT,
    Server,
    free_port,
    measure_latency,
    wait_for_figures,
)

#: Every lesson of the course (the contents page has no figure).
LESSONS = tuple(sorted(path.name[:2] for path in NOTEBOOK_DIR.glob("[0-9][0-9]-*.ipynb")))
ROUNDS = 3
#: The classroom goal: every lesson shown, preheated, within this many times the baseline.
GOAL_RATIO = 1.5
#: Voilà's own preheating, as `tasks.sh present` asks for it.
PREHEAT = ["--preheat_kernel=True", "--pool_size=1"]
#: The editions beside the English lessons (notebooks/zh, notebooks/ru).
EDITIONS = ("zh", "ru")


def preheat(edition="en"):
    """Voilà's options of `tasks.sh present EDITION`: only that edition's lessons preheated."""
    if edition == "en":
        others = "[" + ", ".join(f'"notebooks/{code}/"' for code in EDITIONS) + "]"
    else:
        others = f'["^(?!.*notebooks/{edition}/)"]'
    return [*PREHEAT, f"--VoilaKernelManager.preheat_denylist={others}"]


def served(path):
    """A notebook's address under /voila/render/: its edition's folder, then its name."""
    return f"{path.parent.name}/{path.name}" if path.parent.name in EDITIONS else path.name


# Every ipympl figure on the page and whether its canvas shows an image (pixels, not the
# blank canvas ipympl sizes first): the hub's learners' test.
CANVASES = f"() => {FIGURES_PAINTED.strip()}"

# The first slider of the page's first figure box, and how many images that box's figure
# has painted (the page probe counts them).
FIRST_SLIDER = ".dplearn-exploration .noUi-handle"
FIRST_FIGURE_DRAWS = """
() => ((document.querySelector('.dplearn-exploration .jupyter-matplotlib-canvas-div canvas')
        || {}).__draws || []).length
"""


#: The baseline: what Voilà itself costs for a page with one slider and one small ipympl
#: figure, served from the same folder with the same template and preheating. Each
#: lesson's time is also given as a ratio to it (the course's share), which carries from
#: one machine to another better than seconds do.
BASELINE = "baseline.ipynb"
BASELINE_CELLS = [
    "%matplotlib widget",
    """import ipywidgets as widgets
import matplotlib.pyplot as plt
import numpy as np

plt.ioff()
figure, axes = plt.subplots(figsize=(4, 3))
x = np.linspace(0, 2 * np.pi, 200)
(line,) = axes.plot(x, np.sin(x))
slider = widgets.FloatSlider(value=1.0, min=0.5, max=3.0, step=0.05, description="frequency")


def redraw(change):
    line.set_ydata(np.sin(change["new"] * x))
    figure.canvas.draw_idle()


slider.observe(redraw, names="value")
# The lessons' class, so that the same probes find the slider and the figure.
widgets.VBox([slider, figure.canvas]).add_class("dplearn-exploration")""",
]


def write_served_folder(folder):
    """The notebooks folder as `tasks.sh present` serves it, plus the baseline page."""
    import nbformat

    shutil.copytree(NOTEBOOK_DIR, folder, ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
    notebook = nbformat.v4.new_notebook(
        cells=[nbformat.v4.new_code_cell(source) for source in BASELINE_CELLS],
        metadata={"kernelspec": {"name": "python3", "display_name": "Python 3"}},
    )
    nbformat.write(notebook, folder / BASELINE)
    return folder


def lesson_paths(numbers=LESSONS, edition="en", folder=NOTEBOOK_DIR):
    """The lessons of one edition ("en", "zh" or "ru") in folder."""
    folder = folder if edition == "en" else folder / edition
    return [next(folder.glob(f"{number}-*.ipynb")) for number in numbers]


def voila(folder, folder_options, log_path):
    """The folder server of `tasks.sh present` for folder, on a free port, with options."""
    port = free_port()
    command = [
        sys.executable,
        "-m",
        "voila",
        str(folder),
        "--no-browser",
        f"--port={port}",
        "--Voila.ip=127.0.0.1",
        *KERNEL_TRANSPORT,
        *folder_options,
    ]
    return Server(command, port, log_path, cwd=ROOT)


def kernels(server):
    """The kernel processes under a server (psutil.Process objects).

    The pool replaces kernels while we look: a child that ends between the listing and
    the look at its command line (gone, or a zombie not yet reaped) is not a kernel.
    """
    import psutil

    found = []
    for process in psutil.Process(server.process.pid).children(recursive=True):
        try:
            if "ipykernel" in " ".join(process.cmdline()):
                found.append(process)
        except psutil.Error:
            continue
    return found


def wait_until_idle(server, count, timeout_s=400, quiet_s=3.0):
    """Waits until count kernels run under server and neither they nor the server have
    used CPU for quiet_s (the pool has run its notebooks)."""
    deadline = time.monotonic() + timeout_s
    quiet_since = None
    # The same Process objects from one look to the next: cpu_percent compares with the
    # previous call on the same object (a new object reports 0.0, "idle", at once).
    import psutil

    known = {}
    # Voilà itself too: it renders each notebook of the pool before its kernel runs it.
    voila_process = psutil.Process(server.process.pid)
    while time.monotonic() < deadline:
        found = [known.setdefault(process.pid, process) for process in kernels(server)]
        busy = len(found) < count
        for process in [voila_process, *found]:
            try:
                busy |= process.cpu_percent(interval=None) > 2.0
            except Exception:
                busy = True
        if busy:
            quiet_since = None
        elif quiet_since is None:
            quiet_since = time.monotonic()
        elif time.monotonic() - quiet_since >= quiet_s:
            return found
        time.sleep(0.5)
    print(
        f"  the server did not settle within {timeout_s} s ({len(found)} of {count} kernels, "
        "still busy): this visit is measured on a busy server"
    )
    return found


ERRORS = """
() => Array.from(document.querySelectorAll('.jp-OutputArea-output'), e => e.innerText)
  .filter(text => /Error|Traceback/.test(text)).map(text => text.slice(0, 300))
"""


def time_to_live(browser, url, expected=None, timeout_s=90):
    """Seconds from the request to every figure shown, then to a slider's redraw.

    Shown: the page has loaded (every cell has run) and each canvas holds an image;
    with expected, also that many canvases (the count a first visit found). Then one
    key press moves the first slider of the page's first figure box, and the second
    time is taken when that figure paints again (the kernel has answered). A page that
    does not get there within timeout_s gives None, and its error text is printed.

    Returns:
      (seconds to shown, seconds to the slider's redraw, number of figures).
    """
    page = browser.new_page()
    try:
        start = time.perf_counter()
        page.goto(url, wait_until="load", timeout=timeout_s * 1000)
        shown = None
        while time.perf_counter() - start < timeout_s:
            painted = page.evaluate(CANVASES)
            if painted and all(painted) and (expected is None or len(painted) >= expected):
                shown = time.perf_counter() - start
                break
            page.wait_for_timeout(20)
        if shown is None:
            print(
                f"  {url}: not shown within {timeout_s} s: figures painted "
                f"{page.evaluate(CANVASES)}, errors {page.evaluate(ERRORS)}"
            )
            return None, None, 0
        before = page.evaluate(FIRST_FIGURE_DRAWS)
        page.focus(FIRST_SLIDER)
        page.keyboard.press("ArrowRight")
        while time.perf_counter() - start < timeout_s:
            if page.evaluate(FIRST_FIGURE_DRAWS) > before:
                return shown, time.perf_counter() - start, len(painted)
            page.wait_for_timeout(10)
        print(f"  {url}: the first slider did not redraw its figure within {timeout_s} s")
        return shown, None, len(painted)
    finally:
        page.close()


def figures_on(browser, url, timeout_s=120):
    """How many canvases a lesson shows once settled (a first, uncounted visit).

    Settled: at least one canvas, every canvas painted, and the count unchanged for 2 s
    (a page shows its first canvas a moment after it loads; under load, seconds after).
    """
    page = browser.new_page()
    try:
        page.goto(url, wait_until="load", timeout=timeout_s * 1000)
        deadline = time.monotonic() + timeout_s
        last, stable_since = None, time.monotonic()
        while time.monotonic() < deadline:
            painted = page.evaluate(CANVASES)
            if painted != last or not painted or not all(painted):
                last, stable_since = painted, time.monotonic()
            elif time.monotonic() - stable_since >= 2.0:
                break
            page.wait_for_timeout(100)
        else:
            print(f"  {url}: figures not settled within {timeout_s} s: painted {last}")
        return len(last or [])
    finally:
        page.close()


def run(browser, folder, options, lessons, counts, log_dir, label, rounds=ROUNDS):
    """One server mode: {page: [(shown, redrawn) seconds per visit]}, the pool's RSS (MB)."""
    times = {path.name: [] for path in lessons}
    memory = []
    notebooks = len(list(folder.glob("*.ipynb")))
    with voila(folder, options, log_dir / f"voila-{label}.log") as server:
        base = f"http://127.0.0.1:{server.port}/voila/render/"
        preheated = bool(options)
        for _ in range(rounds):
            for path in lessons:
                if preheated:
                    # A settled server: one waiting kernel per notebook, none still
                    # running its notebook (the last visit's kernel has been replaced).
                    pool = wait_until_idle(server, notebooks)
                    if not memory:
                        memory = resident_megabytes(pool)
                else:
                    # Let the closed page's kernel go before the next request.
                    time.sleep(1.0)
                url = base + served(path)
                shown, redrawn, _ = time_to_live(browser, url, counts.get(path.name))
                times[path.name].append((shown, redrawn))
    return times, memory


def resident_megabytes(processes):
    """The resident memory (MB) of each process still there (the pool may replace one)."""
    import psutil

    found = []
    for process in processes:
        try:
            found.append(process.memory_info().rss / 2**20)
        except psutil.Error:
            continue
    return found


def slider_latency(browser, url):
    """Milliseconds from key press to new image on the first figure's first slider.

    PRESSES presses back and forth, timed inside the page (tests/test_browser.py's probe):
    the classroom goal is a median of at most GOAL_MS. A machine's figure, not a test.
    """
    page = browser.new_page()
    try:
        page.goto(url, wait_until="load", timeout=120_000)
        wait_for_figures(page)
        return measure_latency(page, 0, 0)
    finally:
        page.close()


def _both(values, baseline):
    """The median of values in seconds, and as a ratio to the baseline's."""
    median = _median(values)
    return f"{median:>6.2f} s ({median / baseline:>4.1f}x)"


def _median(values):
    values = [value for value in values if value is not None]
    return statistics.median(values) if values else float("nan")


def _largest(values):
    values = [value for value in values if value is not None]
    return max(values) if values else float("nan")


def main(rounds=ROUNDS, edition="en"):
    if CHROMIUM is None:
        print("classroom benchmark skipped: chromium is not installed")
        return []
    from playwright.sync_api import sync_playwright

    log_dir = pathlib.Path(tempfile.mkdtemp(prefix="dplearn-classroom-"))
    folder = write_served_folder(log_dir / "notebooks")
    # The baseline first, then every lesson, each visit in the same conditions.
    lessons = [folder / BASELINE, *lesson_paths(edition=edition, folder=folder)]
    print(f"edition: {edition} (its lessons preheated, as `bash tasks.sh present {edition}`)")
    profile = tempfile.mkdtemp(prefix="chromium-profile-")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch_persistent_context(
            profile,
            executable_path=CHROMIUM,
            headless=True,
            viewport=VIEWPORT,
            args=CHROMIUM_FLAGS,
        )
        browser.add_init_script(PAGE_PROBE)
        try:
            counts, latency = {}, {}
            with voila(folder, [], log_dir / "voila-count.log") as server:
                for path in lessons:
                    url = f"http://127.0.0.1:{server.port}/voila/render/{served(path)}"
                    counts[path.name] = figures_on(browser, url)
                    if path.name != BASELINE:
                        latency[path.name] = slider_latency(browser, url)
            cold, _ = run(browser, folder, [], lessons, counts, log_dir, "cold", rounds)
            warm, memory = run(
                browser, folder, preheat(edition), lessons, counts, log_dir, "preheated", rounds
            )
        finally:
            browser.close()
    base = {
        mode: [_median(shown for shown, _ in times[BASELINE]),
               _median(redrawn for _, redrawn in times[BASELINE])]
        for mode, times in (("cold", cold), ("preheated", warm))
    }  # fmt: skip
    print(
        f"{'page':<42} {'figures':>7} {'cold: shown':>17} {'redrawn':>15} "
        f"{'preheated: shown':>18} {'max':>6} {'redrawn':>15}  "
        f"goal: shown <= {GOAL_RATIO:g}x the baseline"
    )
    missed = []
    for path in lessons:
        cold_shown = [shown for shown, _ in cold[path.name]]
        cold_redrawn = [redrawn for _, redrawn in cold[path.name]]
        warm_shown = [shown for shown, _ in warm[path.name]]
        warm_redrawn = [redrawn for _, redrawn in warm[path.name]]
        ratio = _median(warm_shown) / base["preheated"][0]
        met = None not in warm_shown and ratio <= GOAL_RATIO
        if not met and path.name != BASELINE:
            missed.append(path.name)
        failed = sum(value is None for value in cold_shown + warm_shown)
        print(
            f"{path.name:<42} {counts[path.name]:>7} "
            f"{_both(cold_shown, base['cold'][0])} {_both(cold_redrawn, base['cold'][1])} "
            f"{_both(warm_shown, base['preheated'][0]):>18} {_largest(warm_shown):>4.2f} s "
            f"{_both(warm_redrawn, base['preheated'][1])}  "
            + ("(baseline)" if path.name == BASELINE else "met" if met else "MISSED")
            + (f" ({failed} visits not shown)" if failed else "")
        )
    print(
        f"key press -> new image, first slider of each lesson's first figure, median of "
        f"{PRESSES} presses (goal <= {GOAL_MS:g} ms): "
        + ", ".join(
            f"{name[:2]} {statistics.median(times):.0f} ms" for name, times in latency.items()
        )
    )
    if memory:
        print(
            f"preheated pool: {len(memory)} waiting kernels (one per notebook served), "
            f"RSS {statistics.median(memory):.0f} MB median, {min(memory):.0f} to "
            f"{max(memory):.0f} MB, {sum(memory):.0f} MB in all"
        )
    print(
        f"(medians of {rounds} visits per lesson and mode; shown: every figure painted; "
        f"redrawn: the first slider moved and its figure painted again, from the request; "
        f"server logs in {log_dir})"
    )
    return missed


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else ROUNDS)


# --- A class on a local JupyterHub ------------------------------------------------------

#: Seconds each phase moves sliders: one learner alone, then the whole class at once.
ALONE_S = 20.0
LOADED_S = 40.0


def _percentile(values, q):
    values = [value for value in values if value is not None and value == value]
    return float(np.percentile(values, q)) if values else float("nan")


def learner_memory(hub):
    """{learner: (RSS in MB of their server and its kernels, number of kernels)}, now."""
    import psutil

    found = {}
    for name, processes in hub.learner_processes().items():
        rss, kernels = 0, 0
        for process in processes:
            try:
                rss += process.memory_info().rss
                kernels += "ipykernel" in " ".join(process.cmdline())
            except psutil.Error:
                continue
        found[name] = (rss / 2**20, kernels)
    return found


async def _class_on_hub(hub, learners, alone_s, loaded_s):
    import rehearsal
    from playwright.async_api import async_playwright

    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(
            executable_path=rehearsal.CHROMIUM, args=rehearsal.CHROMIUM_FLAGS
        )
        try:
            solo = rehearsal.Learner(browser, hub, "solo")
            solo_open = await solo.open()
            await solo.keep_moving(time.monotonic() + alone_s)
            await solo.close()
            names = [f"learner{index:02d}" for index in range(1, learners + 1)]
            group = [rehearsal.Learner(browser, hub, name) for name in names]
            opened = await asyncio.gather(
                *(learner.open() for learner in group), return_exceptions=True
            )
            live = [
                learner
                for learner, seconds in zip(group, opened, strict=True)
                if isinstance(seconds, float)
            ]
            until = time.monotonic() + loaded_s
            await asyncio.gather(*(learner.keep_moving(until) for learner in live))
            problems = {learner.name: await learner.check() for learner in live}
            memory = learner_memory(hub)
            for learner in live:
                await learner.close()
        finally:
            await browser.close()
    return solo, solo_open, group, opened, problems, memory


def hub_load(learners=10, alone_s=ALONE_S, loaded_s=LOADED_S):
    """N learners on a local hub: memory per learner, slider latency alone and under load.

    One learner logs in, opens lesson 02 as a Voilà page through the hub and moves its
    first slider for alone_s seconds (a key press every quarter second, timed to the new
    image); then N other learners log in at once, open the same lesson and move their
    sliders together for loaded_s seconds. Reports each phase's median and 95th
    percentile, the time each page took to come alive, the resident memory of each
    learner's server with its kernel, and whether every page kept working (every move
    redrawn, no error or dead kernel shown). Returns the problems found (empty: none).
    """
    import rehearsal

    if rehearsal.CHROMIUM is None or not rehearsal.proxy_installed():
        print("hub load test skipped: needs chromium and `bash tasks.sh proxy`")
        return []
    state = pathlib.Path(tempfile.mkdtemp(prefix="dplearn-hub-load-"))
    with rehearsal.LocalHub(state) as hub:
        solo, solo_open, group, opened, problems, memory = asyncio.run(
            _class_on_hub(hub, learners, alone_s, loaded_s)
        )
    alone = solo.latencies_ms
    loaded = [ms for learner in group for ms in learner.latencies_ms]
    failures = {learner.name: learner.failures for learner in group if learner.failures}
    not_live = {
        learner.name: f"{type(seconds).__name__}: {str(seconds)[:200]}"
        for learner, seconds in zip(group, opened, strict=True)
        if not isinstance(seconds, float)
    }
    shown = {name: words for name, words in problems.items() if words}
    per_learner = {name: mb for name, (mb, _) in memory.items() if name.startswith("learner")}
    kernels = {name: count for name, (_, count) in memory.items()}
    open_times = [seconds for seconds in opened if isinstance(seconds, float)]
    reloads = sum(learner.reloads for learner in group)
    print(f"lesson: {rehearsal.LESSON}, {learners} learners, one Chromium, 127.0.0.1 only")
    if reloads:
        print(f"({reloads} reloads of a spawn page that missed its server's start)")
    print(
        f"page live after login: alone {solo_open:.1f} s; {len(open_times)} learners at once "
        f"median {_median(open_times):.1f} s, slowest {_largest(open_times):.1f} s"
    )
    print(
        f"slider move -> new image: alone median {_percentile(alone, 50):.0f} ms, "
        f"p95 {_percentile(alone, 95):.0f} ms ({len(alone)} moves in {alone_s:g} s); "
        f"{learners} at once median {_percentile(loaded, 50):.0f} ms, "
        f"p95 {_percentile(loaded, 95):.0f} ms ({len(loaded)} moves in {loaded_s:g} s)"
    )
    if per_learner:
        values = list(per_learner.values())
        print(
            f"memory per learner (server + kernel, RSS): median {statistics.median(values):.0f} MB,"
            f" {min(values):.0f} to {max(values):.0f} MB; {sum(values):.0f} MB for the class"
        )
    dead = [name for name in per_learner if kernels.get(name, 0) < 1]
    found = {
        **{f"{name} not live": why for name, why in not_live.items()},
        **{f"{name} moves failed": why for name, why in failures.items()},
        **{f"{name} shows": words for name, words in shown.items()},
        **{f"{name} has no kernel": "dead kernel" for name in dead},
    }
    print(
        "every page kept working: every move redrawn, no error, no dead kernel"
        if not found
        else f"PROBLEMS: {found}"
    )
    shutil.rmtree(state, ignore_errors=True)
    return list(found)
