"""`python -m dplearn.figures --out DIR` writes every figure of the lessons.

The ids of docs/figures.md, the figure catalogue, are listed here, not read from it:
each must be exported, and so must every registered figure, extra ones included.
"""

import math
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
    [f"INTRO-{number}" for number in range(1, 6)]
    + [f"PLRV-{number}" for number in range(1, 11)]
    + [f"MECH-{number}" for number in range(1, 6)]
    + [f"NOISE-{number}" for number in range(1, 5)]
    + [f"COMP-{number}" for number in range(1, 7)]
    + ["SUB-1", "SUB-2"]
    + [f"SGD-{number}" for number in range(1, 5)]
)
REGISTERED = load_all()
DPI = 150
#: One export for the whole suite: under pytest-xdist its tests stay on one worker, which
#: runs the export once (each worker would otherwise run it for its share of the tests).
pytestmark = pytest.mark.xdist_group("figures-export")


@pytest.fixture(scope="session")
def export(tmp_path_factory):
    # Session-wide: pytest-xdist runs a module's tests among other modules' tests, and
    # pytest ends a module's fixtures whenever the next test is another module's.
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


# --- `python -m dplearn.figures --animate ID --out FILE.gif`: the README's picture ---------

README_PICTURE = ROOT / "docs" / "plrv-9.gif"


def gif_frames(path):
    """The frames of a GIF file as RGB arrays, after checking its signature."""
    import numpy as np
    from PIL import Image, ImageSequence

    assert path.read_bytes()[:6] == b"GIF89a", f"{path.name} is not a GIF89a file"
    with Image.open(path) as image:
        return [np.asarray(frame.convert("RGB")) for frame in ImageSequence.Iterator(image)]


def test_animate_writes_a_small_looping_gif_whose_frames_move(tmp_path):
    out = tmp_path / "sweep.gif"
    env = {name: value for name, value in os.environ.items() if name != "MPLBACKEND"}
    command = [sys.executable, "-m", "dplearn.figures", "--animate", "PLRV-9", "--out", str(out)]
    result = subprocess.run(
        [*command, "--frames", "6", "--range", "0.2", "1.5"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"PLRV-9: 6 frames written to {out}"
    frames = gif_frames(out)
    assert len(frames) == 6
    width, height = REGISTERED["PLRV-9"].figsize
    assert frames[0].shape[1] == round(width * 80) and frames[0].shape[0] > round(height * 80)
    # The slider moves the figure: no two neighbouring frames are the same picture.
    assert all((a != b).any() for a, b in zip(frames, frames[1:], strict=False))
    assert out.stat().st_size < 150_000
    wrong = subprocess.run(
        [*command, "--control", "bogus"], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert wrong.returncode == 2 and "'bogus'" in wrong.stderr


def test_a_sweep_reaches_both_ends_and_comes_back():
    from dplearn.figures.controls import EPSILON, THRESHOLD, Choice
    from dplearn.figures.export import sweep

    values = sweep(EPSILON, 1.0, 40)
    assert values[0] == 1.0 and max(values) == pytest.approx(EPSILON.maximum, rel=0.2)
    assert min(values) == pytest.approx(EPSILON.minimum, rel=0.3)
    # The loop closes evenly: from the last frame to the first is one step like the others.
    step = math.log(values[1] / values[0])
    assert math.log(values[0] / values[-1]) == pytest.approx(step, rel=1e-9)
    assert all(map(EPSILON.offers, values))
    linear = sweep(THRESHOLD, 5.0, 8)
    assert linear[0] == 5.0 and all(map(THRESHOLD.offers, linear))
    choice = Choice("loss", ("absolute", "squared", "beyond tolerance"))
    assert sweep(choice, "squared", 4) == ["squared", "beyond tolerance", "absolute", "squared"]
    with pytest.raises(ValueError, match="frames must be at least 4"):
        sweep(EPSILON, 1.0, 3)


def test_the_readme_opens_with_the_animated_figure():
    readme = (ROOT / "README.md").read_text()
    top = readme.split("\n## ", 1)[0]
    assert f"]({README_PICTURE.relative_to(ROOT).as_posix()})" in top
    assert "![" in top.split(README_PICTURE.name)[0], "the picture needs alt text"
    frames = gif_frames(README_PICTURE)
    assert len(frames) >= 12 and README_PICTURE.stat().st_size < 400_000
