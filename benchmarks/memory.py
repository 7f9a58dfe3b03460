"""The memory a learner needs: every lesson's peak kernel memory, and the server's.

For a hub's sizing (deploy/z2jh/config.yaml, the README's "A class of hundreds"). Each
lesson runs top to bottom in a fresh kernel (one kernel at a time, as the suite runs
them), then every slider and choice of the page is moved once (to halfway between its
value and the far end of its range, or to the next option), as a learner would, and
every figure is drawn once more (an ipympl figure is painted when a browser asks for
it; no browser asks here). The kernel reports its own peak resident memory (``VmHWM``
of /proc, or ``getrusage``'s ``ru_maxrss``), after the run and after the moves, and what it
still holds at the end (its resident memory, what an idle open lesson costs until it is
culled). The server's memory is that of a JupyterLab server (the process a hub starts
for each learner; kernels are processes of their own) after it has served JupyterLab's
page, the notebooks' listing and the contents page and lesson 00 as Voilà pages: its
peak resident memory (``VmHWM`` of /proc), or its resident memory from psutil where
/proc has no peak.

    nice python benchmarks/memory.py [--notebooks notebooks/zh] [--json deploy/z2jh/memory.json]
    python benchmarks/memory.py --sizing    # the README's tables, from those results

It takes minutes (the lessons' own run time), not a timed test: the numbers, not the
seconds, are what it reports.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import platform
import subprocess
import sys
import tempfile
import time
import urllib.request

import nbformat
from nbclient import NotebookClient

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from dplearn.exercises import grade  # noqa: E402
from tests.test_browser import Server, free_port  # noqa: E402 - the tests' server set-up
from tests.test_deploy import byte_size  # noqa: E402 - the chart's memory sizes, as JupyterHub
from tests.test_notebooks import PEAK_FUNCTION  # noqa: E402 - a kernel's own peak, as the suite

MIB = 1024 * 1024
DEPLOY = ROOT / "deploy" / "z2jh"
#: Printed by the cells below as one line of JSON after this marker.
MARKER = "DPLEARN-MEMORY "

#: Run in the lesson's kernel after its last cell: the peak so far.
PEAK_CELL = f"""{PEAK_FUNCTION}
import json as _json
def _dplearn_memory():
    peak = _dplearn_peak()
    try:
        import psutil
        resident = psutil.Process().memory_info().rss
    except ImportError:
        resident = None
    return {{"peak": peak, "resident": resident}}
print({MARKER!r} + _json.dumps(_dplearn_memory()))
"""

#: Then: every slider and choice moved once, every figure drawn, the peak again.
MOVE_CELL = f"""
import math as _math
import ipywidgets as _widgets
import matplotlib.pyplot as _plt

def _dplearn_move(widget):
    # Halfway to the far end of its range (the next option for a choice): a real move,
    # that runs the figure's update as a learner's drag does.
    if isinstance(widget, _widgets.widgets.widget_selection._Selection):
        if len(widget.options) > 1:
            index = -1 if widget.index is None else widget.index
            widget.index = (index + 1) % len(widget.options)
            return True
        return False
    if isinstance(widget, _widgets.FloatLogSlider):
        exponent = _math.log(widget.value, widget.base)
        far = widget.max if widget.max - exponent >= exponent - widget.min else widget.min
        widget.value = widget.base ** ((exponent + far) / 2)
        return True
    if isinstance(widget, (_widgets.FloatSlider, _widgets.IntSlider)):
        far = widget.max if widget.max - widget.value >= widget.value - widget.min else widget.min
        target = (widget.value + far) / 2
        widget.value = round(target) if isinstance(widget, _widgets.IntSlider) else target
        return True
    return False

_dplearn_moved = sum(_dplearn_move(w) for w in list(_widgets.Widget.widgets.values()))
for _number in _plt.get_fignums():
    _plt.figure(_number).canvas.draw()
print({MARKER!r} + _json.dumps({{**_dplearn_memory(), "moved": _dplearn_moved}}))
"""


def kernel_memory(path, timeout=600):
    """Runs the lesson at path in a fresh kernel, moves its controls, reads its memory.

    Returns:
      {"peak_after_run", "peak", "resident", "moved", "seconds"}: bytes (the peak after
      the lesson's own cells; the peak after the moves too; the resident memory at the
      end), the number of controls moved and the run's wall time.
    """
    nb = nbformat.read(path, as_version=4)
    nb.cells += [nbformat.v4.new_code_cell(PEAK_CELL), nbformat.v4.new_code_cell(MOVE_CELL)]
    client = NotebookClient(
        nb,
        timeout=timeout,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},
        config=grade.kernel_config(),
    )
    start = time.perf_counter()
    client.execute()
    seconds = time.perf_counter() - start
    after_run, after_moves = (reported(cell) for cell in nb.cells[-2:])
    return {
        "peak_after_run": after_run["peak"],
        "peak": after_moves["peak"],
        "resident": after_moves["resident"],
        "moved": after_moves["moved"],
        "seconds": round(seconds, 1),
    }


def reported(cell):
    """The dictionary a measuring cell printed after MARKER."""
    for output in cell.outputs:
        for line in output.get("text", "").splitlines():
            if line.startswith(MARKER):
                return json.loads(line[len(MARKER) :])
    raise RuntimeError(f"the measuring cell printed nothing: {cell.outputs}")


def process_peak(pid):
    """A process's peak resident memory in bytes (/proc), or its resident memory (psutil)."""
    status = pathlib.Path(f"/proc/{pid}/status")
    if status.exists():
        for line in status.read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    import psutil

    return psutil.Process(pid).memory_info().rss


def server_memory(notebook_dir):
    """The peak memory of a JupyterLab server that served the pages a learner opens first."""
    port, token = free_port(), "memory-benchmark"
    command = [
        sys.executable,
        "-m",
        "jupyter",
        "lab",
        "--no-browser",
        f"--port={port}",
        "--ServerApp.ip=127.0.0.1",
        f"--IdentityProvider.token={token}",
        f"--ServerApp.root_dir={ROOT}",
        "--ServerApp.allow_root=True",
    ]
    relative = notebook_dir.relative_to(ROOT).as_posix()
    first_lesson = sorted(notebook_dir.glob("[0-9][0-9]-*.ipynb"))[0].name
    pages = [
        "lab",
        f"api/contents/{relative}",
        f"voila/render/{relative}/index.ipynb",
        f"voila/render/{relative}/{first_lesson}",
    ]
    with tempfile.TemporaryDirectory() as log_dir:
        with Server(command, port, pathlib.Path(log_dir) / "server.log", cwd=ROOT) as server:
            for page in pages:
                url = f"http://127.0.0.1:{port}/{page}?token={token}"
                wait_for(url)
            time.sleep(2)
            return process_peak(server.process.pid)


def wait_for(url, timeout_s=300):
    """Reads url to its end (a Voilà page streams until the lesson has run)."""
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            with urllib.request.urlopen(url, timeout=timeout_s) as response:
                response.read()
                return
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.5)


def machine():
    """The machine's cores, processor and memory, as one line."""
    model = platform.processor() or platform.machine()
    try:
        lscpu = subprocess.run(["lscpu"], capture_output=True, text=True, check=True).stdout
        model = next(
            line.split(":", 1)[1].strip()
            for line in lscpu.splitlines()
            if line.startswith("Model name")
        )
    except (OSError, subprocess.CalledProcessError, StopIteration):
        pass
    total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    python = sys.version.split()[0]
    return f"{os.cpu_count()} cores, {model}, {total / 1024**3:.1f} GiB RAM, Python {python}"


#: Nodes of the sizing table: (GiB of memory, vCPUs), the 4 GiB per vCPU of a cloud's
#: general-purpose machines.
NODES = ((8, 2), (16, 4), (32, 8))
#: A class of this many learners, for the table's last column.
CLASS_SIZE = 300
#: What a node keeps from its learners beside Kubernetes' own reservation: the system's
#: pods (network, logging, the chart's image puller), in GiB and in cores.
SYSTEM_PODS = (0.5, 0.2)


def kubernetes_reserved(memory_gib, cores):
    """(GiB, cores) a node's kubelet keeps for itself, by GKE's published formula.

    Memory: 25 % of the first 4 GiB, 20 % of the next 4, 10 % of the next 8, 6 % of the
    next 112, and 100 MiB for eviction. CPU: 6 % of the first core, 1 % of the second,
    0.5 % of the next two, 0.25 % of the rest. Other clouds keep similar amounts.
    """
    memory = 0.1
    for size, share in ((4, 0.25), (4, 0.20), (8, 0.10), (112, 0.06)):
        memory += min(max(memory_gib, 0), size) * share
        memory_gib -= size
    cpu = 0.0
    for size, share in ((1, 0.06), (1, 0.01), (2, 0.005), (float("inf"), 0.0025)):
        cpu += min(max(cores, 0), size) * share
        cores -= size
    return memory, cpu


def sizing_table(config, measured):
    """The README's sizing table (markdown) for a config's sizes and a measurement.

    Args:
      config: the chart values (deploy/z2jh/config.yaml, read).
      measured: this benchmark's results (deploy/z2jh/memory.json, read).
    """
    singleuser = config["singleuser"]
    guarantee = byte_size(singleuser["memory"]["guarantee"])
    limit = byte_size(singleuser["memory"]["limit"])
    cpu = singleuser["cpu"]["guarantee"]
    culling = singleuser["extraFiles"]["kernel-culling"]["data"]["MappingKernelManager"]
    server = measured["server_peak"]
    largest = max(lesson["peak"] for lesson in measured["lessons"].values())
    lines = [
        f"| node | left for learners | by memory ({guarantee / MIB:.0f} MiB each) "
        f"| by CPU ({cpu:g} core each) | learners per node | nodes for {CLASS_SIZE} |",
        "|---|---|---|---|---|---|",
    ]
    for memory_gib, cores in NODES:
        kept_memory, kept_cpu = kubernetes_reserved(memory_gib, cores)
        free_memory = memory_gib - kept_memory - SYSTEM_PODS[0]
        free_cpu = cores - kept_cpu - SYSTEM_PODS[1]
        by_memory = int(free_memory * 1024**3 // guarantee)
        by_cpu = int(free_cpu // cpu)
        per_node = min(by_memory, by_cpu)
        lines.append(
            f"| {memory_gib} GiB, {cores} vCPU | {free_memory:.1f} GiB, {free_cpu:.2f} cores "
            f"| {by_memory} | {by_cpu} | **{per_node}** | {-(-CLASS_SIZE // per_node)} |"
        )
    held = int((limit - server) // largest)
    lines += [
        "",
        f"Per learner: memory guarantee {singleuser['memory']['guarantee']}, limit "
        f"{singleuser['memory']['limit']}, CPU guarantee {cpu:g}. Kernel culling: a kernel "
        f"idle for {culling['cull_idle_timeout'] // 60} minutes ends (open tab or not); "
        f"within the limit a learner's server ({server / MIB:.0f} MiB) holds {held} kernels "
        f"at the largest lesson's peak ({largest / MIB:.0f} MiB) until then.",
    ]
    return "\n".join(lines)


def lesson_table(measured):
    """The README's table of every lesson's kernel memory and the server's (markdown)."""
    lines = [
        "| lesson | kernel peak, run | kernel peak, sliders moved | held at the end |",
        "|---|---|---|---|",
    ]
    for name, lesson in measured["lessons"].items():
        held = f"{lesson['resident'] / MIB:.0f} MiB" if lesson["resident"] else "-"
        lines.append(
            f"| {name[:2]} | {lesson['peak_after_run'] / MIB:.0f} MiB "
            f"| {lesson['peak'] / MIB:.0f} MiB ({lesson['moved']} controls) | {held} |"
        )
    lines.append(f"| server | {measured['server_peak'] / MIB:.0f} MiB | | |")
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notebooks", default="notebooks", help="the lessons' folder")
    parser.add_argument("--json", help="also write the results to this file")
    parser.add_argument("--only", nargs="*", help="only these lessons (their numbers)")
    parser.add_argument(
        "--sizing",
        action="store_true",
        help="only print the README's tables from deploy/z2jh's config and results",
    )
    arguments = parser.parse_args(argv)
    if arguments.sizing:
        import yaml

        config = yaml.safe_load((DEPLOY / "config.yaml").read_text())
        measured = json.loads((DEPLOY / "memory.json").read_text())
        print(lesson_table(measured), sizing_table(config, measured), sep="\n\n")
        return 0
    notebook_dir = (ROOT / arguments.notebooks).resolve()
    # The lessons choose their own backend (`%matplotlib widget`).
    os.environ.pop("MPLBACKEND", None)
    lessons = sorted(notebook_dir.glob("[0-9][0-9]-*.ipynb"))
    if arguments.only:
        lessons = [path for path in lessons if path.name[:2] in arguments.only]
    print(f"machine: {machine()}")
    print(f"{'lesson':<48} {'peak (run)':>10} {'peak':>8} {'held':>8} {'moved':>6} {'s':>6}")
    results = {}
    for path in lessons:
        measured = kernel_memory(path)
        results[path.name] = measured
        held = measured["resident"]
        print(
            f"{path.name:<48} {measured['peak_after_run'] / MIB:>7.0f} MiB "
            f"{measured['peak'] / MIB:>5.0f} MiB "
            f"{(held / MIB if held else float('nan')):>5.0f} MiB "
            f"{measured['moved']:>6} {measured['seconds']:>6.0f}",
            flush=True,
        )
    server = server_memory(notebook_dir)
    largest = max(results, key=lambda name: results[name]["peak"])
    print(
        f"server (JupyterLab, after Lab, the listing, contents and lesson 00 in Voilà): "
        f"{server / MIB:.0f} MiB peak"
    )
    print(f"largest lesson peak: {largest} {results[largest]['peak'] / MIB:.0f} MiB")
    if arguments.json:
        document = {
            "machine": machine(),
            "notebooks": notebook_dir.relative_to(ROOT).as_posix(),
            "unit": "bytes",
            "server_peak": server,
            "lessons": results,
        }
        pathlib.Path(arguments.json).write_text(json.dumps(document, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
