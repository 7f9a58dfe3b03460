"""Every lesson notebook runs top to bottom on a fresh kernel, cleanly.

A notebook fails when a cell raises, when any output (a cell's or one kept inside a
widget, where ipywidgets puts exceptions raised by slider callbacks) holds an error,
text written to stderr, or a warning; or when its kernel's peak memory does not fit
beside the server within the memory limit a hub gives each learner
(deploy/z2jh/config.yaml). Set DPLEARN_NOTEBOOKS to a folder to run the notebooks of
another folder instead (to check this module against broken ones).
"""

import os
import pathlib

import nbformat
import pytest
from nbclient import NotebookClient

from dplearn.exercises import grade
from tests.test_deploy import measured, memory_limit

ROOT = pathlib.Path(__file__).resolve().parents[1]
NOTEBOOK_DIR = pathlib.Path(os.environ.get("DPLEARN_NOTEBOOKS", ROOT / "notebooks"))
NOTEBOOKS = sorted(NOTEBOOK_DIR.glob("*.ipynb"))
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
TEXT_TYPES = ("text/plain", "text/html", "text/markdown")

pytestmark = pytest.mark.notebooks


def output_text(output):
    """Everything a reader would see of one output, as text."""
    if output.get("output_type") == "stream":
        return "".join(output.get("text", ""))
    if output.get("output_type") == "error":
        return f"{output.get('ename')}: {output.get('evalue')}"
    data = output.get("data", {})
    return "\n".join("".join(data[kind]) for kind in TEXT_TYPES if kind in data)


def problems(outputs, where):
    """Errors, stderr text and warnings among outputs, each as one line."""
    found = []
    for output in outputs:
        text = output_text(output)
        if output.get("output_type") == "error":
            found.append(f"{where}: error {text}")
        elif output.get("output_type") == "stream" and output.get("name") == "stderr":
            found.append(f"{where}: stderr {text.strip()[:300]!r}")
        elif "Warning" in text:
            found.append(f"{where}: warning {text.strip()[:300]!r}")
    return found


def widget_outputs(nb):
    """(model id, outputs) of every Output widget saved in the notebook's widget state."""
    state = nb.metadata.get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})
    for model_id, model in state.items():
        outputs = model.get("state", {}).get("outputs")
        if outputs:
            yield model_id, outputs


#: Defines, in a lesson's kernel, _dplearn_peak(): the kernel's peak resident memory, in
#: bytes. On Linux that is /proc's VmHWM, which starts afresh with the kernel's program:
#: ru_maxrss would keep the peak of the test process that started the kernel. Elsewhere
#: ru_maxrss (in bytes on macOS). benchmarks/memory.py reads the peak the same way.
PEAK_FUNCTION = """
def _dplearn_peak():
    import resource, sys
    try:
        with open("/proc/self/status") as status:
            lines = [line for line in status if line.startswith("VmHWM:")]
        return int(lines[0].split()[1]) * 1024
    except (OSError, IndexError):
        unit = 1 if sys.platform == "darwin" else 1024
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * unit
"""
#: Run after a lesson's last cell, in its kernel: prints the kernel's peak, in bytes.
PEAK_MEMORY_CELL = PEAK_FUNCTION + "print(_dplearn_peak())\n"


def run(path):
    """Executes the notebook at path on a new kernel and returns it with its outputs.

    The notebook's metadata gets the kernel's peak resident memory in bytes
    (``nb.metadata.peak_memory``); the cell that measures it is removed again.
    """
    nb = nbformat.read(path, as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell(PEAK_MEMORY_CELL))
    client = NotebookClient(
        nb,
        timeout=300,
        kernel_name="python3",
        # The lessons run with the notebook folder as working directory, as in Lab.
        resources={"metadata": {"path": str(path.parent)}},
        # Save the widgets' state: exceptions raised in slider callbacks end up there.
        store_widget_state=True,
        config=grade.kernel_config(),
    )
    client.execute()
    measured = nb.cells.pop()
    nb.metadata["peak_memory"] = int(output_text(measured.outputs[0]))
    return nb


@pytest.fixture
def kernel_environment(monkeypatch):
    # The kernel inherits this process's environment: MPLBACKEND would override the
    # lessons' `%matplotlib widget`. Warnings keep the kernel's own filters (everything
    # raised by the notebook's code is shown); PYTHONWARNINGS=default would add
    # deprecations internal to ipympl and traitlets that no lesson can fix.
    monkeypatch.delenv("MPLBACKEND", raising=False)
    monkeypatch.delenv("PYTHONWARNINGS", raising=False)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda path: path.name)
def test_notebook_runs_cleanly(path, kernel_environment):
    nb = run(path)
    found = []
    for index, cell in enumerate(nb.cells):
        if cell.cell_type == "code":
            found += problems(cell.get("outputs", []), f"cell {index}")
    for model_id, outputs in widget_outputs(nb):
        found += problems(outputs, f"widget {model_id[:8]} (a slider callback?)")
    assert not found, f"{path.name}:\n" + "\n".join(found)
    # On a hub a learner's server and this kernel share the memory limit of
    # deploy/z2jh/config.yaml: a lesson that outgrows it is killed mid-class.
    limit, server = memory_limit(), measured()["server_peak"]
    assert nb.metadata["peak_memory"] <= limit - server, (
        f"{path.name}: the kernel peaked at {nb.metadata['peak_memory'] / 2**20:.0f} MiB, more "
        f"than the hub's limit of {limit / 2**20:.0f} MiB leaves beside the server "
        f"({server / 2**20:.0f} MiB): raise singleuser.memory in deploy/z2jh/config.yaml "
        "(and run benchmarks/memory.py again), or make the lesson smaller"
    )
