"""All benchmarks: the numerical core, then every figure object. Prints its figures."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import core  # noqa: E402
import figures  # noqa: E402

if __name__ == "__main__":
    print("== numerical core ==")
    core.main()
    print("\n== figure objects (Agg) ==")
    figures.main(sys.argv[1:])
