"""A class on a local JupyterHub: two learners, each with a live lesson and a working slider.

The hub is the one `bash tasks.sh hub` runs (hub/jupyterhub_config.py), started here on
free ports of 127.0.0.1 with a state folder under pytest's temporary directory. Two
learners log in through its login page in one Chromium (a browser context each), open
lesson 02 as a Voilà page through the hub, wait until its figures are drawn and move a
slider, which must redraw the figure; both pages must show no error or dead kernel, and
each learner must have a server of their own with the course copied into their home.
The class runs on a busy machine: the test starts BUSY_PROCESSES processes that keep a
core each busy (each stops by itself after at most BUSY_LIMIT_S seconds, and the test
stops them as it ends), since a class on a busy hub is where a slow server must not
turn into a broken page. A failure shows the page's console and the hub's log. (Under
load, a page can show "Error displaying widget: model not found": the widget manager of
jupyterlab_widgets 3.0.17 gives up on a model after 2 s without a last look, see
pyproject.toml and tests/test_browser.py's test_widgets_show_when_the_page_is_slow.)
The proxy (configurable-http-proxy) is installed by `bash tasks.sh proxy` when missing;
without npm or chromium the test is skipped.
"""

import asyncio
import concurrent.futures
import contextlib
import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "hub"))

import rehearsal  # noqa: E402

#: Busy processes beside the two learners: with the suite's other test workers (each
#: keeps a core busy too), one more process than the machine has cores; at least one.
BUSY_PROCESSES = max(
    1, (os.cpu_count() or 2) + 1 - (int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1")) - 1)
)
BUSY_LIMIT_S = 600
BUSY_LOOP = (
    f"import time\nend = time.monotonic() + {BUSY_LIMIT_S}\nwhile time.monotonic() < end: pass"
)

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(rehearsal.CHROMIUM is None, reason="chromium is not installed"),
]


@pytest.fixture(scope="module")
def proxy():
    if not rehearsal.proxy_installed():
        subprocess.run(["bash", str(ROOT / "tasks.sh"), "proxy"], cwd=ROOT, timeout=300)
    if not rehearsal.proxy_installed():
        pytest.skip("configurable-http-proxy could not be installed (is npm there?)")


async def two_learners(hub):
    from playwright.async_api import async_playwright

    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(
            executable_path=rehearsal.CHROMIUM, args=rehearsal.CHROMIUM_FLAGS
        )
        try:
            learners = [rehearsal.Learner(browser, hub, name) for name in ("ada", "grace")]
            opened = await asyncio.gather(*(learner.open() for learner in learners))
            moves = [[await learner.move_slider() for _ in range(3)] for learner in learners]
            problems = [await learner.check() for learner in learners]
            for learner in learners:
                await learner.close()
        finally:
            await browser.close()
    return learners, opened, moves, problems


def run_apart(coroutine):
    """Runs coroutine to its end in a thread of its own: the session's Chromium (Playwright's
    sync API, tests/conftest.py) keeps an event loop running in this one."""
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


@contextlib.contextmanager
def busy_machine(count=BUSY_PROCESSES):
    """count processes that each keep one core busy, stopped on exit."""
    processes = [subprocess.Popen([sys.executable, "-c", BUSY_LOOP]) for _ in range(count)]
    try:
        yield processes
    finally:
        for process in processes:
            process.kill()
        for process in processes:
            process.wait(timeout=30)


def hub_log_tail(hub, count=60):
    lines = pathlib.Path(hub.log.name).read_text(errors="replace").splitlines()
    return "\n".join(lines[-count:])


def test_two_learners_each_get_a_live_lesson_and_a_working_slider(proxy, tmp_path):
    with busy_machine(), rehearsal.LocalHub(tmp_path / "hub") as hub:
        try:
            learners, opened, moves, problems = run_apart(two_learners(hub))
        except Exception as error:
            message = f"{error}\nthe hub's log (last lines):\n{hub_log_tail(hub)}"
            raise AssertionError(message) from error
        servers = hub.learner_processes()
    print(
        f"\nhub: lesson live in {', '.join(f'{s:.1f} s' for s in opened)}; slider moves {moves} ms"
    )
    # A string, so that pytest prints all of it (a tuple's text would be cut short).
    diagnosis = "\n".join(
        [f"problems: {problems}"]
        + [f"{learner.name}: {learner.console_tail()}" for learner in learners]
        + ["the hub's log (last lines):", hub_log_tail(hub)]
    )
    assert problems == [[], []], diagnosis
    assert all(len(times) == 3 and all(t >= 0 for t in times) for times in moves), moves
    assert sorted(servers) == ["ada", "grace"], sorted(servers)
    for name in ("ada", "grace"):
        assert (tmp_path / "hub" / "home" / name / "notebooks" / rehearsal.LESSON).is_file()
