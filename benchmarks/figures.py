"""Slider-move timings of every registered figure object, on Agg.

For each figure: one control moved at a time (as a learner moves one slider), then
update(...) plus one full canvas draw, over many settings, beside a full re-plot (a new
figure built, updated and drawn) measured in the same run. The goal for a classroom,
for the controls that redraw while dragged: median <= 20 ms and 95th percentile <= 40
ms. A control with ``on_release`` (a fresh computation of tens of milliseconds or more)
redraws once, when the slider is let go; its timings are printed apart, with their own
goal: median <= 250 ms, a quarter of a second from release to the new figure.
"""

from __future__ import annotations

import time

import matplotlib
import numpy as np

matplotlib.use("Agg")

from dplearn.figures.explorers import load_all  # noqa: E402

GOAL_MEDIAN_MS = 20.0
GOAL_P95_MS = 40.0
GOAL_RELEASE_MEDIAN_MS = 250.0


def time_explorer(explorer_class, updates=80, replots=8, seed=0):
    """Milliseconds per update+draw and per full re-plot.

    Returns:
      (moves of controls that redraw while dragged, moves of on-release controls,
      re-plots), three arrays (an empty one where a figure has no such control).
    """
    rng = np.random.default_rng(seed)
    explorer = explorer_class()
    explorer.figure.canvas.draw()
    names = list(explorer_class.controls)
    dragged, released = [], []
    for index in range(updates):
        name = names[index % len(names)]
        control = explorer_class.controls[name]
        value = control.sample(3, rng)[-1]
        start = time.perf_counter()
        explorer.update(**{name: value})
        explorer.figure.canvas.draw()
        (released if getattr(control, "on_release", False) else dragged).append(
            time.perf_counter() - start
        )
    replot_times = []
    for _ in range(replots):
        params = {
            name: control.sample(3, rng)[-1] for name, control in explorer_class.controls.items()
        }
        start = time.perf_counter()
        fresh = explorer_class(**params)
        fresh.figure.canvas.draw()
        replot_times.append(time.perf_counter() - start)
    return np.array(dragged) * 1e3, np.array(released) * 1e3, np.array(replot_times) * 1e3


def _median_text(values):
    return f"{np.median(values):>6.1f} ms" if len(values) else f"{'-':>9}"


def main(selected=None):
    explorers = load_all()
    print(
        f"{'figure':<9} {'move+draw median':>17} {'p95':>9} {'on release':>10} "
        f"{'re-plot':>10} {'speed-up':>9}  goal: median <= {GOAL_MEDIAN_MS:g} ms, "
        f"p95 <= {GOAL_P95_MS:g} ms; on release median <= {GOAL_RELEASE_MEDIAN_MS:g} ms"
    )
    missed = []
    for figure_id, explorer_class in explorers.items():
        if selected and figure_id not in selected:
            continue
        dragged, released, replots = time_explorer(explorer_class)
        met = True
        if len(dragged):
            met &= np.median(dragged) <= GOAL_MEDIAN_MS
            met &= np.percentile(dragged, 95) <= GOAL_P95_MS
        if len(released):
            met &= np.median(released) <= GOAL_RELEASE_MEDIAN_MS
        if not met:
            missed.append(figure_id)
        moves = dragged if len(dragged) else released
        p95 = f"{np.percentile(dragged, 95):>6.1f} ms" if len(dragged) else f"{'-':>9}"
        print(
            f"{figure_id:<9} {_median_text(dragged):>17} {p95} {_median_text(released):>10} "
            f"{np.median(replots):>7.1f} ms {np.median(replots) / np.median(moves):>8.1f}x  "
            f"{'met' if met else 'MISSED'}"
        )
    return missed


if __name__ == "__main__":
    import sys

    main(sys.argv[1:])
