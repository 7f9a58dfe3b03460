"""``python -m dplearn.auditing --write-scores``: train lesson 14's black-box models afresh.

Writes the scores stored with the package (``dplearn.auditing.black_box``).
"""

import argparse

from dplearn.auditing import _store, black_box


def main(argv=None):
    """Parses the command line and writes the stored scores when asked to."""
    parser = argparse.ArgumentParser(
        prog="python -m dplearn.auditing",
        description="Write the black-box scores of lesson 14 stored with the package.",
    )
    parser.add_argument(
        "--write-scores", action="store_true", help="train the models and write their scores"
    )
    if parser.parse_args(argv).write_scores:
        black_box.write_stored_scores()
        print(f"wrote {_store.BLACK_BOX_PATH}")
    else:
        parser.print_help()


if __name__ == "__main__":
    main()
