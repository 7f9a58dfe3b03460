"""`python -m dplearn.figures --out DIR` writes every figure of the lessons.

The ids of LESSONS.md are listed here, not read from it (CI's clone may not have it):
each must be exported, and so must every registered figure, extra ones included.
"""

import os
import pathlib
import struct
import subprocess
import sys
import xml.etree.ElementTree as ElementTree

import pytest

from dplearn.figures.explorers import load_all

ROOT = pathlib.Path(__file__).resolve().parents[1]
LESSON_IDS = (
    [f"PLRV-{number}" for number in range(1, 11)]
    + [f"MECH-{number}" for number in range(1, 6)]
    + [f"NOISE-{number}" for number in range(1, 5)]
)
REGISTERED = load_all()
DPI = 150


@pytest.fixture(scope="module")
def export(tmp_path_factory):
    out = tmp_path_factory.mktemp("figures")
    env = {name: value for name, value in os.environ.items() if name != "MPLBACKEND"}
    result = subprocess.run(
        [sys.executable, "-m", "dplearn.figures", "--out", str(out)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr
    return out, result.stdout.splitlines()


def png_size(path):
    """(width, height) from a PNG file's header, after checking its signature."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{path.name} is not a PNG file"
    return struct.unpack(">II", data[16:24])


def check_files(out, figure_id):
    png, svg = out / f"{figure_id}.png", out / f"{figure_id}.svg"
    assert png.is_file() and svg.is_file(), f"{figure_id} was not exported"
    width, height = REGISTERED[figure_id].figsize
    assert png_size(png) == (round(width * DPI), round(height * DPI))
    root = ElementTree.parse(svg).getroot()
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    # A drawn figure holds paths (curves, ticks), not just an empty frame.
    assert len(root.findall(".//{http://www.w3.org/2000/svg}path")) > 10


@pytest.mark.parametrize("figure_id", LESSON_IDS)
def test_every_lesson_figure_is_exported(export, figure_id):
    assert figure_id in REGISTERED, f"{figure_id} is in no lesson module of dplearn/figures/"
    check_files(export[0], figure_id)


@pytest.mark.parametrize("figure_id", list(REGISTERED))
def test_every_registered_figure_is_exported(export, figure_id):
    check_files(export[0], figure_id)


def test_one_line_per_figure_in_order(export):
    out, lines = export
    named = [line.split()[0] for line in lines[:-1]]
    assert named == list(REGISTERED)
    assert lines[-1] == f"{len(REGISTERED)} figures written to {out}"
    assert sorted(path.name for path in out.iterdir()) == sorted(
        f"{figure_id}.{kind}" for figure_id in REGISTERED for kind in ("png", "svg")
    )


def test_one_figure_by_id_and_unknown_ids(tmp_path):
    chosen = next(iter(REGISTERED), None)
    if chosen is None:
        pytest.skip("no figure registered yet")
    run = [sys.executable, "-m", "dplearn.figures", "--out", str(tmp_path)]
    subprocess.run([*run, chosen], cwd=ROOT, check=True, capture_output=True, timeout=300)
    assert sorted(path.name for path in tmp_path.iterdir()) == [f"{chosen}.png", f"{chosen}.svg"]
    wrong = subprocess.run([*run, "PLRV-99"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert wrong.returncode == 2 and "'PLRV-99'" in wrong.stderr
