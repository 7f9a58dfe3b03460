"""What every test module shares: mpmath's precision set for each test, and, for the
browser tests, one Chromium and one Voilà server per test process.

The browser tests (marked e2e) run in three xdist groups, each on one worker: a worker
opens one Chromium and, when its tests ask, one Voilà server for the whole notebooks
folder (as `tasks.sh present` serves it) and one JupyterLab server; a lesson runs once
per visit, and no test pays for starting a server of its own.
"""

import os
import pathlib

import mpmath
import pytest
from hypothesis import HealthCheck, settings

# The suite must pass on a busy machine: Hypothesis's clock (200 ms per example, and its
# health check of slow generation) would fail a correct test when the cores are shared.
# Speed is measured by `bash tasks.sh bench`, not by the tests. And every run tries the
# same examples (derandomize), so that a run on CI fails only where the code changed; a
# counterexample found while writing a test is kept as an @example. Same examples for the
# same modules loaded, that is: Hypothesis also draws numbers written in the project's
# modules that are imported at the time (1e300 from test_training.py, say), so a
# different set of test files, -k or xdist worker can try inputs a run alone never does.
# A failure seen only in some order is therefore worth an @example, not a retry.
settings.register_profile(
    "dplearn", deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)
settings.load_profile("dplearn")

#: The browser tests run in xdist groups, each on one worker with its own Chromium:
#: the lessons' Voilà visits, and the rest (JupyterLab, the hub, the readouts' key presses),
#: so that on two cores neither group waits for the other.
VOILA_GROUP, OTHER_GROUP = "browser-voila", "browser-lab-hub"
#: The translated editions' Voilà visits: a third worker, with its own Chromium and Voilà.
EDITIONS_GROUP = "browser-editions"


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    # Before xdist reads the groups (its own hook of the same name).
    for item in items:
        if item.get_closest_marker("e2e"):
            other = "lab_site" in getattr(item, "fixturenames", ()) or item.module.__name__ in (
                "tests.test_hub",
                "tests.test_browser_readout",
            )
            group = OTHER_GROUP if other else VOILA_GROUP
            if item.module.__name__ == "tests.test_browser_editions":
                group = EDITIONS_GROUP
            item.add_marker(pytest.mark.xdist_group(group))
    # pytest-xdist's --dist loadgroup sends the tests whose node id ends in "@<group>" to
    # one worker. pytest-xdist 3.8 writes that suffix into item._nodeid, which pytest 9 no
    # longer reads (a node keeps its id in item._id), so no group held: every worker
    # started its own Chromium and servers, and ran the figure export. The suffix goes
    # here where pytest 9 reads it (with an older pytest, xdist's own hook does it).
    if getattr(config.option, "loadgroup", False) and items and hasattr(items[0], "_id"):
        from _pytest.nodeid import NodeId

        for item in items:
            names = sorted({str(mark.args[0]) for mark in item.iter_markers("xdist_group")})
            if names and "@" not in item.nodeid:
                item._id = NodeId.parse(f"{item.nodeid}@{'_'.join(names)}")


#: The digits of mpmath's reference values: every test starts at these, or at its module's
#: MPMATH_DIGITS. A module never sets mpmath.mp.dps at import: which module pytest imports
#: last differs with the files and -k chosen and from one xdist worker to the next, so the
#: digits every other test ran at would too (mpmath.findroot's bisection in
#: test_composition_figures, for one, cannot reach its tolerance at 60 digits).
MPMATH_DIGITS = 40
mpmath.mp.dps = MPMATH_DIGITS  # for what modules compute as pytest imports them


def pytest_collection_finish(session):
    assert mpmath.mp.dps == MPMATH_DIGITS, (
        f"a module imported by the tests set mpmath.mp.dps to {mpmath.mp.dps}: give a test "
        "module MPMATH_DIGITS, and a helper's functions @mpmath.workdps, instead"
    )


@pytest.fixture(autouse=True)
def _mpmath_precision(request):
    # Set, not just restored: a test must not depend on what another module or test left.
    precision = mpmath.mp.prec
    mpmath.mp.dps = getattr(request.module, "MPMATH_DIGITS", MPMATH_DIGITS)
    yield
    mpmath.mp.prec = precision


@pytest.fixture(scope="session")
def browser():
    """Debian's Chromium at a projector's 1280 x 720, with the page probe in every page."""
    from tests.test_browser import open_browser

    with open_browser() as context:
        yield context


@pytest.fixture(scope="session")
def screenshots(tmp_path_factory):
    """Where screenshots go: $DPLEARN_SCREENSHOTS, or a folder of pytest's."""
    chosen = os.environ.get("DPLEARN_SCREENSHOTS")
    folder = pathlib.Path(chosen) if chosen else tmp_path_factory.mktemp("screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture(scope="session")
def voila_site(tmp_path_factory):
    """One Voilà server for the notebooks folder; its pages under ``voila_site.base``."""
    from tests.test_browser import voila_folder_server

    with voila_folder_server(tmp_path_factory.mktemp("voila-site")) as server:
        server.base = f"http://127.0.0.1:{server.port}/voila/render/"
        yield server


@pytest.fixture(scope="session")
def lab_site(tmp_path_factory):
    """One JupyterLab server for a copy of the notebooks folder (see lab_folder_server)."""
    from tests.test_browser import lab_folder_server

    with lab_folder_server(tmp_path_factory.mktemp("lab-site")) as server:
        yield server
