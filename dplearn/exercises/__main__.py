"""``python -m dplearn.exercises grade|sync|list ...``.

- ``grade NOTEBOOK.ipynb ... [--json FILE]``: run and grade submissions (see ``grade``).
- ``sync NOTEBOOK.ipynb ...``: rewrite each lesson's Exercises section from its bank.
- ``list``: every exercise id, its kind and title.
"""

import sys


def main(argv=None):
    """Runs one command of ``python -m dplearn.exercises`` (see the module docstring).

    Returns:
      The exit status: 2 and the usage for an unknown command.
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    command = argv.pop(0) if argv else ""
    if command == "grade":
        from dplearn.exercises import grade

        return grade.main(argv)
    if command == "sync":
        from dplearn.exercises import notebook

        for path in argv:
            print(f"{path}: {'rewritten' if notebook.sync(path) else 'up to date'}")
        return 0
    if command == "list":
        from dplearn import exercises
        from dplearn.language import gettext as _

        for exercise in exercises.load_all().values():
            print(f"{exercise.id:<28} {exercise.kind:<9} {_(exercise.title)}")
        return 0
    print(__doc__.strip(), file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
