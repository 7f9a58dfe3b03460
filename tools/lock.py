"""Writes requirements-lock.txt and the pins of environment.yml and binder/environment.yml.

`bash tasks.sh lock` runs it. The lock file holds the exact version, with its hashes, of
every package the lessons and the tests use (pyproject.toml's dependencies and its "test"
extra), for every platform a learner may have (uv's universal resolution: Linux, macOS,
Windows; x86 and ARM) on Python 3.11, the course's Python. `bash tasks.sh test` installs
exactly that. The conda files, which Binder and conda users read, then pin each lesson
package to the version in the lock, so that Binder runs what the tests ran.

pyproject.toml keeps its ranges for people who install dplearn into an environment of
their own; tests/test_repository.py checks that the three files agree.
"""

import argparse
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
LOCK = ROOT / "requirements-lock.txt"
ENVIRONMENTS = (ROOT / "environment.yml", ROOT / "binder" / "environment.yml")
PYTHON = "3.11"
#: conda-forge's names for the packages whose PyPI name differs (the "-base" packages
#: leave out optional extras that the lessons do not use).
CONDA_TO_PIP = {"matplotlib-base": "matplotlib", "seaborn-base": "seaborn"}
_PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;\\]+)", re.MULTILINE)


def canonical(name):
    """A package name as PyPI compares them (PEP 503)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def read_lock(path=LOCK):
    """{canonical name: version} of the lock file (the first pin of a name wins)."""
    pins = {}
    for name, version in _PIN.findall(path.read_text()):
        pins.setdefault(canonical(name), version)
    return pins


def compile_lock(uv):
    """Resolves pyproject.toml's dependencies and test extra into the lock file."""
    command = [
        uv, "pip", "compile", "pyproject.toml", "--extra", "test", "--universal",
        "--python-version", PYTHON, "--generate-hashes", "--quiet",
        "--custom-compile-command", "bash tasks.sh lock", "--output-file", LOCK.name,
    ]  # fmt: skip
    subprocess.run(command, cwd=ROOT, check=True)


def pin_environment(path, pins):
    """Rewrites the version of every conda and pip package of path to the lock's."""
    lines = []
    for line in path.read_text().splitlines(keepends=True):
        # One "=" is a conda pin; "==", ">=" and the like are pip's (its "pip:" list).
        conda = re.match(r"^(\s*- )([A-Za-z0-9._-]+)=(?!=)([^\s#]+)(.*)$", line, re.DOTALL)
        pip = re.match(r"^(\s*- )([A-Za-z0-9._-]+)(?:[<>=!~][^\s#]*)(.*)$", line, re.DOTALL)
        if conda and conda.group(2) != "python":
            name = canonical(CONDA_TO_PIP.get(conda.group(2), conda.group(2)))
            line = f"{conda.group(1)}{conda.group(2)}={pins[name]}{conda.group(4)}"
        elif pip and not conda and canonical(pip.group(2)) in pins:
            name = canonical(pip.group(2))
            line = f"{pip.group(1)}{pip.group(2)}=={pins[name]}{pip.group(3)}"
        lines.append(line)
    path.write_text("".join(lines))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--uv", default="uv", help="the uv command (default: uv on PATH)")
    parser.add_argument(
        "--pins-only", action="store_true", help="only copy the lock's versions to the conda files"
    )
    arguments = parser.parse_args(argv)
    if not arguments.pins_only:
        compile_lock(arguments.uv)
    pins = read_lock()
    for path in ENVIRONMENTS:
        pin_environment(path, pins)
    pinned = ", ".join(str(path.relative_to(ROOT)) for path in ENVIRONMENTS)
    print(f"{LOCK.name}: {len(pins)} packages; pinned {pinned}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
