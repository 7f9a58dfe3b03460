"""All benchmarks: the numerical core, then every figure object. Prints its figures."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import core  # noqa: E402
import figures  # noqa: E402


def classroom_flags(argv):
    """(run the classroom benchmark, run the hub load test, learners, the other arguments).

    ``--classroom`` times live lessons in Voilà, cold and preheated (``--edition zh``: the
    Chinese edition's lessons, preheated as ``tasks.sh present zh`` does); ``--hub`` runs the
    load test of N learners (``--learners N``, 10 by default) on a local JupyterHub.
    Both need Chromium, take minutes, and run only when asked for.
    """
    rest, learners, classroom, hub = [], 10, False, False
    items = iter(argv)
    for item in items:
        if item == "--classroom":
            classroom = True
        elif item == "--edition":
            rest.append(f"--edition={next(items)}")
        elif item == "--hub":
            hub = True
        elif item == "--learners":
            learners = int(next(items))
        else:
            rest.append(item)
    return classroom, hub, learners, rest


if __name__ == "__main__":
    classroom, hub, learners, rest = classroom_flags(sys.argv[1:])
    if classroom or hub:
        import classroom as classroom_benchmark  # noqa: E402

        if classroom:
            print("== a lesson live in Voilà: cold and preheated (Chromium) ==")
            editions = [item.split("=", 1)[1] for item in rest if item.startswith("--edition=")]
            classroom_benchmark.main(edition=editions[-1] if editions else "en")
        if hub:
            print(f"\n== {learners} learners on a local JupyterHub (Chromium) ==")
            classroom_benchmark.hub_load(learners)
        sys.exit(0)
    print("== numerical core ==")
    core.main()
    print("\n== figure objects (Agg) ==")
    figures.main(rest)
