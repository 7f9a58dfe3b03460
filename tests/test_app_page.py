"""A lesson served as an app shows each figure before its kernel has drawn it for the page.

In a kernel that Voilà started, ``explore`` puts a PNG of the figure into the ipympl
canvas's widget state (``_data_url``), which the page paints as soon as the canvas
appears; the kernel's first image replaces it. These tests run the ipympl backend in a
child process (the suite's own backend is Agg) and compare that PNG with the figure.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys

import pytest

# Looked up, never imported here: importing ipympl into the suite's own process changes
# how later tests' figures build their toolbars.
pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("ipympl") is None, reason="ipympl is not installed"
)

# Runs in a child: builds one explorer's box under ipympl and reports what its canvas
# would hand a page, before and after the page reports its canvas ready.
CHILD = r"""
import base64, io, json
import numpy as np
from PIL import Image
from dplearn import figures
from dplearn.figures.widgets import explore

def embedded(canvas):
    if canvas._data_url is None:
        return None
    prefix, data = canvas._data_url.split(",", 1)
    image = np.asarray(Image.open(io.BytesIO(base64.b64decode(data))).convert("RGBA"))
    return prefix, image

def rendered(figure):
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=figure.dpi)
    return np.asarray(Image.open(io.BytesIO(buffer.getvalue())).convert("RGBA"))

box = explore(figures.plrv.LaplaceDensities())
canvas, figure = box.view, box.explorer.figure
report = {"canvas": type(canvas).__name__, "waiting": box._page_waiting}
first = embedded(canvas)
if first is not None:
    prefix, image = first
    report.update(
        prefix=prefix,
        shape=list(image.shape),
        size=list(canvas._size),
        pixels=list(figure.bbox.size),
        opaque=float((image[..., 3] > 0).mean()),
        same=bool(np.array_equal(image, rendered(figure))),
    )
    # A later cell moves a slider before any page is there: the PNG follows.
    name = next(iter(box.sliders))
    slider = box.sliders[name]
    slider.value = slider.max
    report["follows"] = bool(np.array_equal(embedded(canvas)[1], rendered(figure)))
    report["changed"] = not np.array_equal(embedded(canvas)[1], image)
    # The page's canvas reports itself ready: from then on the kernel draws for it.
    canvas._handle_custom_msg({"type": "initialized"}, [])
    before = canvas._data_url
    slider.value = slider.min
    report["after_page"] = {"waiting": box._page_waiting, "kept": canvas._data_url == before}
print(json.dumps(report))
"""


def run_child(app_mode):
    env = {k: v for k, v in os.environ.items() if k not in ("VOILA_PREHEAT", "SERVER_SOFTWARE")}
    env["MPLBACKEND"] = "module://ipympl.backend_nbagg"
    if app_mode:
        env["VOILA_PREHEAT"] = "True"
    done = subprocess.run(
        [sys.executable, "-c", CHILD], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_app_page_gets_the_figure_as_png_of_its_own_size():
    report = run_child(app_mode=True)
    assert report["canvas"] == "Canvas" and report["waiting"]
    # A data URL the browser can load (ipympl's own copy is bare base64).
    assert report["prefix"] == "data:image/png;base64"
    width, height = report["pixels"]
    assert report["shape"] == [round(height), round(width), 4]
    assert report["size"] == [width, height]
    # The figure itself, painted: every pixel opaque, equal to a fresh render.
    assert report["opaque"] == 1.0
    assert report["same"]


def test_embedded_png_follows_the_figure_until_the_page_is_there():
    report = run_child(app_mode=True)
    assert report["changed"] and report["follows"]
    assert report["after_page"] == {"waiting": False, "kept": True}


def test_jupyterlab_kernel_embeds_nothing():
    report = run_child(app_mode=False)
    assert report["canvas"] == "Canvas"
    assert not report["waiting"]
    assert "prefix" not in report
