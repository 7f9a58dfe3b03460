"""Slider-move timings of every registered figure object, on Agg.

For each figure: update(...) plus one full canvas draw, over many slider settings,
beside a full re-plot (a new figure built, updated and drawn) measured in the same
run. The goal for a classroom: median <= 20 ms and 95th percentile <= 40 ms.
"""

from __future__ import annotations

import time

import matplotlib
import numpy as np

matplotlib.use("Agg")

from dplearn.figures.explorers import load_all  # noqa: E402

GOAL_MEDIAN_MS = 20.0
GOAL_P95_MS = 40.0


def _random_settings(explorer_class, count, rng):
    return [
        {name: control.sample(3, rng)[-1] for name, control in explorer_class.controls.items()}
        for _ in range(count)
    ]


def time_explorer(explorer_class, updates=80, replots=8, seed=0):
    """Milliseconds per update+draw and per full re-plot, as arrays."""
    rng = np.random.default_rng(seed)
    explorer = explorer_class()
    explorer.figure.canvas.draw()
    update_times = []
    for params in _random_settings(explorer_class, updates, rng):
        start = time.perf_counter()
        explorer.update(**params)
        explorer.figure.canvas.draw()
        update_times.append(time.perf_counter() - start)
    replot_times = []
    for params in _random_settings(explorer_class, replots, rng):
        start = time.perf_counter()
        fresh = explorer_class(**params)
        fresh.figure.canvas.draw()
        replot_times.append(time.perf_counter() - start)
    return np.array(update_times) * 1e3, np.array(replot_times) * 1e3


def main(selected=None):
    explorers = load_all()
    print(
        f"{'figure':<9} {'update+draw median':>19} {'p95':>7} {'re-plot median':>15} "
        f"{'speed-up':>9}  goal (median <= {GOAL_MEDIAN_MS:g} ms, p95 <= {GOAL_P95_MS:g} ms)"
    )
    missed = []
    for figure_id, explorer_class in explorers.items():
        if selected and figure_id not in selected:
            continue
        updates, replots = time_explorer(explorer_class)
        median, p95 = np.median(updates), np.percentile(updates, 95)
        met = median <= GOAL_MEDIAN_MS and p95 <= GOAL_P95_MS
        if not met:
            missed.append(figure_id)
        print(
            f"{figure_id:<9} {median:>16.1f} ms {p95:>5.1f} ms {np.median(replots):>12.1f} ms "
            f"{np.median(replots) / median:>8.1f}x  {'met' if met else 'MISSED'}"
        )
    return missed


if __name__ == "__main__":
    import sys

    main(sys.argv[1:])
