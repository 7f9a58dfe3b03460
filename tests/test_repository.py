"""What a clone must hold for classrooms and Binder, checked without a network.

Notebooks are committed clean; the README's table of lessons follows the notebooks;
Binder's folder is complete and agrees with environment.yml and pyproject.toml; the lock
file pins every package pyproject.toml asks for within its range, with hashes, and the
conda files pin the lock's versions; this environment has the lock's versions;
repo2docker accepts the set-up.
"""

import ast
import importlib.metadata
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tomllib
import urllib.parse
import warnings

import nbformat
import pytest
import yaml
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = pathlib.Path(__file__).resolve().parents[1]
#: Every notebook committed (the contents page, index.ipynb, too), and the lessons among them.
ALL_NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
NOTEBOOKS = [path for path in ALL_NOTEBOOKS if path.name != "index.ipynb"]
# conda-forge packages whose pip name differs.
CONDA_TO_PIP = {"matplotlib-base": "matplotlib", "seaborn-base": "seaborn"}
NOT_PACKAGES = {"python", "pip"}
SKIPPED_DIRS = {
    ".git",
    ".venv",
    ".pytest_cache",
    ".ruff_cache",
    ".hypothesis",
    "__pycache__",
    ".ipynb_checkpoints",
    "build",
    "dist",
    "figures-out",
    "node_modules",
}


def read_environment(path):
    """{conda name: version pin or None} from an environment.yml, in file order."""
    document = yaml.safe_load(path.read_text())
    pins = {}
    for entry in document["dependencies"]:
        if isinstance(entry, dict):  # a "pip:" list: pip requirements, not conda packages
            continue
        name, _, version = entry.partition("=")
        pins[name.strip()] = version.lstrip("=").strip() or None
    return document, pins


def read_pip_requirements(path):
    """{canonical pip name: SpecifierSet} of an environment.yml's "pip:" list."""
    from packaging.requirements import Requirement

    document = yaml.safe_load(path.read_text())
    requirements = {}
    for entry in document["dependencies"]:
        if isinstance(entry, dict):
            for line in entry.get("pip", []):
                requirement = Requirement(line)
                requirements[canonicalize_name(requirement.name)] = requirement.specifier
    return requirements


def pip_pins(pins):
    """{canonical pip name: SpecifierSet} for the conda pins (2.4 means ==2.4.*)."""
    return {
        canonicalize_name(CONDA_TO_PIP.get(name, name)): SpecifierSet(
            f"=={version}.*" if version else ""
        )
        for name, version in pins.items()
        if name not in NOT_PACKAGES
    }


def pyproject():
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def project_dependencies():
    """{canonical name: SpecifierSet} of [project] dependencies."""
    from packaging.requirements import Requirement

    requirements = [Requirement(line) for line in pyproject()["project"]["dependencies"]]
    return {canonicalize_name(r.name): r.specifier for r in requirements}


def lock_requirements():
    """The requirements of requirements-lock.txt, each "name==version ; marker" with hashes."""
    from packaging.requirements import Requirement

    text = (ROOT / "requirements-lock.txt").read_text()
    entries = re.split(r"\n(?=[A-Za-z0-9])", re.sub(r"(?m)^#.*\n", "", text).strip())
    found = []
    for entry in entries:
        head = entry.split("\\")[0].strip()
        found.append((Requirement(head), re.findall(r"--hash=sha256:[0-9a-f]{64}", entry)))
    return found


def locked_versions():
    """{canonical name: Version} of the lock's pins that apply to this platform."""
    return {
        canonicalize_name(requirement.name): Version(next(iter(requirement.specifier)).version)
        for requirement, _ in lock_requirements()
        if requirement.marker is None or requirement.marker.evaluate()
    }


# Notebooks ------------------------------------------------------------------------------


@pytest.mark.parametrize("path", ALL_NOTEBOOKS, ids=lambda path: path.name)
def test_notebook_is_committed_clean(path):
    nb = nbformat.read(path, as_version=4)
    for index, cell in enumerate(nb.cells):
        if cell.cell_type == "code":
            assert cell.outputs == [], f"cell {index} has outputs (run nbstripout)"
            assert cell.execution_count is None, f"cell {index} has an execution count"
    assert "widgets" not in nb.metadata, "widget state is saved (run nbstripout)"


def test_nbstripout_finds_nothing_to_strip():
    if not NOTEBOOKS:
        pytest.skip("no notebook yet")
    nbstripout = shutil.which("nbstripout", path=str(pathlib.Path(sys.executable).parent))
    command = [nbstripout or "nbstripout", "--verify", *map(str, ALL_NOTEBOOKS)]
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr


def test_notebook_names_sort_in_teaching_order():
    for path in NOTEBOOKS:
        assert re.fullmatch(r"\d\d-[a-z0-9]+(-[a-z0-9]+)*\.ipynb", path.name), path.name
    numbers = [int(path.name[:2]) for path in NOTEBOOKS]
    # Lesson 00, the opening, comes before lesson 01.
    first = 0 if numbers and numbers[0] == 0 else 1
    assert numbers == list(range(first, first + len(numbers))), (
        "lessons are numbered 00 (or 01), 01, 02, ... in order"
    )


# README ---------------------------------------------------------------------------------


def notebook_title(path):
    """The notebook's first heading without its number: "# 01 · Measure ..." -> "Measure ..."."""
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            for line in cell.source.splitlines():
                if line.startswith("# "):
                    return re.sub(r"^\d+\s*[·.:—-]\s*", "", line[2:].strip())
    raise AssertionError(f"{path.name} has no '# ' heading")


def readme_lessons():
    """(number, title, notebook path) of each row of the README's table of lessons."""
    rows = []
    for line in (ROOT / "README.md").read_text().splitlines():
        if not line.startswith("|"):
            continue
        link = re.search(r"\[([^\]]+)\]\((notebooks/[^)]+\.ipynb)\)", line)
        if link:
            number = line.strip("|").split("|")[0].strip()
            rows.append((number, link.group(1), link.group(2)))
    return rows


def test_readme_lists_every_lesson_in_order():
    rows = readme_lessons()
    assert [path for _, _, path in rows] == [f"notebooks/{p.name}" for p in NOTEBOOKS]
    for (number, title, path), notebook in zip(rows, NOTEBOOKS, strict=True):
        assert number == path.split("/")[1][:2], (number, path)
        assert title == notebook_title(notebook), f"README title of {notebook.name}"


def test_readme_launch_links_open_existing_lessons():
    text = (ROOT / "README.md").read_text()
    targets = re.findall(r"mybinder\.org/v2/gh/[^)\s\"']*\?(?:labpath|urlpath)=([^)\s\"'&]+)", text)
    assert targets, "README has no Binder launch link"
    first = NOTEBOOKS[0].name if NOTEBOOKS else "01-"
    assert any(first in urllib.parse.unquote(t) and "voila" in t for t in targets), "Voilà badge"
    assert any(first in urllib.parse.unquote(t) and "voila" not in t for t in targets), "Lab badge"
    for target in targets:
        path = urllib.parse.unquote(target).removeprefix("voila/render/").removeprefix("/")
        assert (ROOT / path).is_file(), f"launch link to a missing notebook: {path}"


# Binder and environments ------------------------------------------------------------------


def test_binder_folder_is_complete():
    binder = ROOT / "binder"
    assert (binder / "environment.yml").is_file(), "without it repo2docker silently uses 3.10"
    assert not (ROOT / ".binder").exists(), "repo2docker refuses both binder/ and .binder/"
    post_build = binder / "postBuild"
    assert os.access(post_build, os.X_OK), "binder/postBuild must be executable"
    lines = post_build.read_text().splitlines()
    assert lines[0] in ("#!/bin/bash", "#!/usr/bin/env bash"), lines[0]
    # Without set -e a failed step does not stop the Binder build.
    assert any(re.fullmatch(r"set\s+(-[a-z]*e[a-z]*\s*)+.*", line.strip()) for line in lines)
    installs = [line for line in lines if re.search(r"\bpip install\b", line)]
    assert any(re.search(r"--no-deps\s+-e\s+\.$", line.strip()) for line in installs), installs


def test_binder_environment_is_the_root_one():
    root_document, root_pins = read_environment(ROOT / "environment.yml")
    binder_document, binder_pins = read_environment(ROOT / "binder" / "environment.yml")
    assert binder_document["dependencies"] == root_document["dependencies"]
    assert binder_document.get("channels") == root_document.get("channels")
    assert root_pins.get("python"), "pin python, or Binder picks its own"


def test_environment_and_pyproject_declare_the_same_packages():
    _, pins = read_environment(ROOT / "environment.yml")
    conda = pip_pins(pins)
    pip_only = read_pip_requirements(ROOT / "environment.yml")
    project = project_dependencies()
    assert not set(conda) & set(pip_only), "a package is listed both for conda and for pip"
    assert sorted({**conda, **pip_only}) == sorted(project)
    for name, specifier in pip_only.items():
        assert all(version in project[name] for version in map(Version, pinned(specifier))), (
            f"{name}: environment.yml's pip list says {specifier}, pyproject.toml {project[name]}"
        )
    locked = locked_versions()
    for name, conda_pin in conda.items():
        # The conda files pin the tested version exactly: the lock's, within pyproject's range.
        assert locked[name] in conda_pin and locked[name] in project[name], (
            f"{name}: environment.yml says {conda_pin}, the lock {locked[name]}, "
            f"pyproject.toml {project[name]} (run bash tasks.sh lock)"
        )
    for name in pip_only:
        assert pins_exactly(pip_only[name], locked[name]), (
            f"{name}: environment.yml's pip list says {pip_only[name]}, the lock {locked[name]}"
        )
    requires_python = SpecifierSet(pyproject()["project"]["requires-python"])
    assert Version(pins["python"] + ".0") in requires_python


def pinned(specifier):
    """The versions an exact specifier (==x.y.z) names."""
    return [spec.version for spec in specifier if spec.operator == "=="]


def pins_exactly(specifier, version):
    return pinned(specifier) == [str(version)]


def test_lock_pins_every_declared_package_within_its_range_with_hashes():
    from packaging.requirements import Requirement

    declared = [Requirement(line) for line in pyproject()["project"]["dependencies"]]
    declared += [
        Requirement(line) for line in pyproject()["project"]["optional-dependencies"]["test"]
    ]
    lock = lock_requirements()
    locked = {}
    for requirement, hashes in lock:
        assert len(requirement.specifier) == 1 and pinned(requirement.specifier), requirement
        assert hashes, f"{requirement}: no hash in the lock"
        locked.setdefault(canonicalize_name(requirement.name), []).append(requirement)
    for requirement in declared:
        name = canonicalize_name(requirement.name)
        assert name in locked, f"{name} is declared in pyproject.toml but not locked"
        for pin in locked[name]:
            version = Version(pinned(pin.specifier)[0])
            assert version in requirement.specifier, (
                f"{name}: the lock has {version}, pyproject.toml asks for {requirement.specifier}"
                " (run bash tasks.sh lock)"
            )


def test_installed_versions_are_the_locked_ones():
    wrong = {}
    for name, version in locked_versions().items():
        try:
            installed = Version(importlib.metadata.version(name))
        except importlib.metadata.PackageNotFoundError:
            wrong[name] = "not installed"
            continue
        if installed != version:
            wrong[name] = f"{installed} installed, {version} locked"
    assert not wrong, f"{wrong} (bash tasks.sh test installs the lock)"


def test_installed_versions_satisfy_environment_pins():
    _, pins = read_environment(ROOT / "environment.yml")
    python = ".".join(map(str, sys.version_info[:2]))
    assert python == pins["python"], f"tests run on Python {python}, Binder on {pins['python']}"
    wrong = {}
    required = {**pip_pins(pins), **read_pip_requirements(ROOT / "environment.yml")}
    for name, specifier in required.items():
        installed = importlib.metadata.version(name)
        if Version(installed) not in specifier:
            wrong[name] = f"{installed} not in {specifier}"
    assert not wrong, wrong


def test_repo2docker_builds_from_the_binder_folder():
    repo2docker = shutil.which("repo2docker", path=str(pathlib.Path(sys.executable).parent))
    repo2docker = repo2docker or shutil.which("repo2docker")
    if repo2docker is None:
        pytest.skip("repo2docker is not installed (pip install jupyter-repo2docker)")
    result = subprocess.run(
        [repo2docker, "--no-build", "--debug", "."],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    text = result.stdout + result.stderr
    assert result.returncode == 0, text[-3000:]
    _, pins = read_environment(ROOT / "environment.yml")
    assert f"Building conda environment for python={pins['python']}" in text
    assert '--file "binder/environment.yml"' in text
    assert "RUN ./binder/postBuild" in text


# Hygiene ----------------------------------------------------------------------------------


def repository_files():
    """Tracked and new (not ignored) files; every file outside caches without git."""
    try:
        listed = subprocess.run(
            ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
            cwd=ROOT,
            capture_output=True,
            check=True,
            timeout=60,
        ).stdout
        files = [ROOT / name for name in listed.decode().split("\0") if name]
    except (OSError, subprocess.CalledProcessError):
        files = [
            path
            for path in ROOT.rglob("*")
            if path.is_file()
            and not any(
                part in SKIPPED_DIRS or part.endswith(".egg-info")
                for part in path.relative_to(ROOT).parts
            )
        ]
    return [path for path in files if path.is_file()]


def test_no_deprecated_seaborn_call_anywhere():
    # Built from two halves, so that this file does not match itself.
    needle = ("dist" + "plot").encode()
    found = [
        str(path.relative_to(ROOT))
        for path in repository_files()
        if needle in path.read_bytes().lower()
    ]
    assert not found, f"seaborn removed this API; use histplot/kdeplot/displot: {found}"


#: Mentions of documents a clone does not hold: the course's planning notes (by file name,
#: the folders they live in, or a lettered section of them). A reader cannot open them; a
#: number or a claim cites its paper (author, title, year), a figure id docs/figures.md.
#: Written with character classes where the text has "." or "/", so that this file does
#: not match itself. A lettered section of a paper ("Section C" after a citation) passes.
OUTSIDE_DOCUMENTS = re.compile(
    r"\b(?:LESSONS|GLOSSARY|TOOLING|STYLE|DEVELOPERS)[.]md\b"
    r"|\b(?:shared|seeds)[/]"
    r"|\b(?:LESSONS|spec(?:ification)?)\b[^\n]{0,20}\b[Ss]ection [A-L]\b"
    r"|\b[Ss]ection [A-L](?:'s| of (?:the )?(?:lesson|course|spec))\b"
    r"|\bthe (?:lesson's|course's) spec(?:ification)?\b|\bthe spec\b"
)


def outside_document_mentions(path):
    """["path:line: text"] of each line of path that mentions an outside document.

    A notebook is read cell by cell, its sources only ("path:cell N:line: text"): its
    outputs print what the code computes. A binary file has no lines.
    """
    name = path.relative_to(ROOT).as_posix()
    data = path.read_bytes()
    if b"\0" in data:
        return []
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return []
    if path.suffix == ".ipynb":
        cells = nbformat.reads(text, as_version=4).cells
        sources = [(f"{name}:cell {index}", cell.source) for index, cell in enumerate(cells)]
    else:
        sources = [(name, text)]
    return [
        f"{where}:{number}: {line.strip()}"
        for where, source in sources
        for number, line in enumerate(source.splitlines(), start=1)
        if OUTSIDE_DOCUMENTS.search(line)
    ]


def test_the_outside_document_check_finds_mentions_and_passes_plain_text():
    # "~" is taken out before the check, so that this file holds no mention itself.
    mentions = [
        "as LESSONS.~md says",
        "see ../sha~red/ for the rules",
        "the seeds~/ folder",
        "the numbers of sp~ecification, sec~tion H",
        "Sec~tion G's scores",
        "sec~tion I of the lesson's notes",
        "in the lesson's sp~ecification",
    ]
    plain = [
        "Balle et al. (2018), Section C, bound the loss",
        "the Exercises section of a lesson",
        "tests/shared_explorers.py keeps one explorer per figure",
        "5,000 seeded runs of each kind",
        "LESSONS = (08, 09, 10, 11)",
        "jsonschema-specifications==2025.9.1",
        "docs/figures.md holds every figure id",
    ]
    for text in mentions:
        assert OUTSIDE_DOCUMENTS.search(text.replace("~", "")), text
    for text in plain:
        assert not OUTSIDE_DOCUMENTS.search(text), text


def test_no_mention_of_files_outside_the_repository():
    found = [line for path in repository_files() for line in outside_document_mentions(path)]
    assert not found, (
        "documents outside the repository are mentioned (cite the paper by author, title "
        "and year, or docs/figures.md for a figure id):\n" + "\n".join(found)
    )


# Structure --------------------------------------------------------------------------------
#
# The package is in layers, each module placed by where it lives: the numbers (every
# module directly in dplearn/ and every subpackage but two, such as dplearn/composition/),
# then dplearn/figures/, then dplearn/exercises/. An import may run down the layers, never
# up, inside a function as much as at the top of a module. Imports that run when a module
# is loaded form no cycle (an import inside a function, made when it is called, may close
# one: ``explorers.load_all`` imports every figure module). Modules are split by concern,
# not by length: a module longer than LONG_MODULE_LINES only earns a warning, so that its
# next reader asks whether it holds two concerns; one past MAX_MODULE_LINES surely does.

PACKAGE = ROOT / "dplearn"
LONG_MODULE_LINES = 800
MAX_MODULE_LINES = 1200
LAYERS = {"figures": 1, "exercises": 2}
LAYER_NAMES = ("numbers", "figures", "exercises")


def package_modules():
    """{dotted module name: path} of every module of the package, packages included."""
    modules = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        if "__pycache__" in parts:
            continue
        if parts[-1] == "__init__":
            parts = parts[:-1]
        modules[".".join(parts)] = path
    return modules


def layer(module):
    """0 for the numbers, 1 for dplearn.figures, 2 for dplearn.exercises (and below)."""
    parts = module.split(".")
    return LAYERS.get(parts[1], 0) if len(parts) > 1 else 0


def imported_module(node, package):
    """The dotted module an ``ast.ImportFrom`` imports from, relative ones resolved in package."""
    base = node.module or ""
    if node.level:
        anchor = package.split(".")
        anchor = anchor[: len(anchor) - (node.level - 1)]
        base = ".".join(anchor + ([base] if base else []))
    return base


def imports_of(module, path, modules):
    """[(imported package module, line, at load time)] of one module, read with ast.

    ``from a.b import c`` counts as importing a.b.c when that is a module, else a.b;
    relative imports are resolved against the module's package.
    """
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    at_load = set()

    def visit(node, loading):
        for child in ast.iter_child_nodes(node):
            inside = loading and not isinstance(
                child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda
            )
            if isinstance(child, ast.Import | ast.ImportFrom) and inside:
                at_load.add(id(child))
            visit(child, inside)

    visit(tree, True)
    found = []
    for node in ast.walk(tree):
        names = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = imported_module(node, package)
            names = [
                f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base
                for alias in node.names
            ]
        for name in names:
            # The longest package module that the dotted name is or lies inside.
            while name and name not in modules:
                name = name.rpartition(".")[0]
            if name and name != module:
                found.append((name, node.lineno, id(node) in at_load))
    return found


def test_no_import_runs_up_the_layers():
    """The numbers import neither figures nor exercises; figures never import exercises."""
    modules = package_modules()
    upward = [
        f"{path.relative_to(ROOT)}:{line} ({LAYER_NAMES[layer(module)]}) imports {target}"
        f" ({LAYER_NAMES[layer(target)]})"
        for module, path in modules.items()
        for target, line, _ in imports_of(module, path, modules)
        if layer(target) > layer(module)
    ]
    assert not upward, "imports that run up the layers:\n" + "\n".join(upward)


def test_no_exercise_bank_imports_the_figures():
    """A bank's numbers come from the numerical core, never from a figure module."""
    modules = package_modules()
    banks = [name for name in modules if re.fullmatch(r"dplearn\.exercises\.lesson\d\d", name)]
    assert banks
    found = [
        f"{modules[bank].relative_to(ROOT)}:{line} imports {target}"
        for bank in banks
        for target, line, _ in imports_of(bank, modules[bank], modules)
        if layer(target) == 1
    ]
    assert not found, "\n".join(found)


def find_cycle(graph):
    """One cycle of a directed graph {node: set of nodes}, as a list of nodes, or None."""
    state = {}
    stack = []

    def visit(node):
        state[node] = "open"
        stack.append(node)
        for target in sorted(graph.get(node, ())):
            if state.get(target) == "open":
                return stack[stack.index(target) :] + [target]
            if target not in state:
                cycle = visit(target)
                if cycle:
                    return cycle
        state[node] = "done"
        stack.pop()
        return None

    for node in sorted(graph):
        if node not in state:
            cycle = visit(node)
            if cycle:
                return cycle
    return None


def test_find_cycle_finds_cycles_and_only_cycles():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": set()}) is None
    assert find_cycle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) is None
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"x": {"y"}, "y": {"y"}}) == ["y", "y"]


def test_no_import_cycle_when_modules_load():
    modules = package_modules()
    graph = {
        module: {target for target, _, loading in imports_of(module, path, modules) if loading}
        for module, path in modules.items()
    }
    cycle = find_cycle(graph)
    assert cycle is None, "modules import each other as they load: " + " -> ".join(cycle)


# The suite turns warnings into errors; this one is meant to be read, not to fail.
@pytest.mark.filterwarnings("default:modules over")
def test_modules_hold_one_concern():
    """Long modules are named in a warning; none passes MAX_MODULE_LINES."""
    lengths = {
        path.relative_to(ROOT).as_posix(): len(path.read_text(encoding="utf-8").splitlines())
        for path in package_modules().values()
    }
    long_ones = {name: lines for name, lines in lengths.items() if lines > LONG_MODULE_LINES}
    if long_ones:
        warnings.warn(
            f"modules over {LONG_MODULE_LINES} lines (one concern each?): {long_ones}",
            stacklevel=1,
        )
    too_long = {name: lines for name, lines in long_ones.items() if lines > MAX_MODULE_LINES}
    assert not too_long, f"over {MAX_MODULE_LINES} lines: split by concern: {too_long}"


# A lesson's numbers come from the core -------------------------------------------------
#
# A notebook shows figures through ``explore(figure)`` and the figure classes; every number
# it prints comes from the numerical core (``from dplearn import privacy_loss`` ...). A code
# cell that calls a function of the figures layer (say ``figures.plrv.some_number(...)``)
# fails here, however the module was imported.

FIGURES_PACKAGE = "dplearn.figures"
#: The one function of the figures layer a notebook calls: it shows a figure.
NOTEBOOK_FIGURE_CALLS = {"dplearn.figures.widgets.explore", "dplearn.figures.widgets.describe"}


def code_cell_tree(source):
    """The ast of a code cell, its IPython lines (%magic, !shell) left out."""
    lines = [line for line in source.splitlines() if not line.lstrip().startswith(("%", "!"))]
    return ast.parse("\n".join(lines))


def figures_layer_references(tree, bound):
    """[(dotted name, object)] of every figures-layer object a cell's code names.

    ``bound`` maps a name to the module or object it was imported as (updated by the
    cell's imports); an attribute chain on such a name is followed while it runs through
    modules, and its first object that is not a module is the target.
    """
    import importlib
    import types

    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                full = f"{node.module}.{alias.name}"
                if not full.startswith(FIGURES_PACKAGE + ".") and full != FIGURES_PACKAGE:
                    continue
                try:
                    target = importlib.import_module(full)
                except ImportError:
                    target = getattr(importlib.import_module(node.module), alias.name)
                bound[alias.asname or alias.name] = (full, target)
                if not isinstance(target, types.ModuleType):
                    found.append((full, target))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith(FIGURES_PACKAGE):
                    module = importlib.import_module(alias.name)
                    if alias.asname:
                        bound[alias.asname] = (alias.name, module)
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute):
            continue
        chain, base = [], node
        while isinstance(base, ast.Attribute):
            chain.append(base.attr)
            base = base.value
        if not isinstance(base, ast.Name) or base.id not in bound:
            continue
        name, target = bound[base.id]
        for attribute in reversed(chain):
            if not isinstance(target, types.ModuleType):
                break
            name, target = f"{name}.{attribute}", getattr(target, attribute)
        if not isinstance(target, types.ModuleType):
            found.append((name, target))
    return found


def figures_layer_functions(path):
    """[(cell index, dotted name)] of the figures-layer functions a notebook's code names."""
    nb = nbformat.read(path, as_version=4)
    bound, found = {}, []
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        for name, target in figures_layer_references(code_cell_tree(cell.source), bound):
            if callable(target) and not isinstance(target, type):
                if f"{target.__module__}.{target.__name__}" not in NOTEBOOK_FIGURE_CALLS:
                    found.append((index, name))
    return sorted(set(found))


def test_the_notebook_check_finds_a_figures_function():
    from dplearn.figures import grids, plrv

    tree = code_cell_tree(
        "%matplotlib widget\nfrom dplearn import figures\n"
        "from dplearn.figures import grids as g\n"
        "from dplearn.figures.widgets import explore\n"
        "explore(figures.plrv.LaplaceLoss())\n"
        "x = g.probability_positions(0.5, 10)\n"
        "y = figures.grids.curve_positions(0.5, 10)\n"
        "z = figures.plrv.COUNT_D1\n"
    )
    found = figures_layer_references(tree, {})
    assert ("dplearn.figures.plrv.LaplaceLoss", plrv.LaplaceLoss) in found
    assert ("dplearn.figures.plrv.COUNT_D1", plrv.COUNT_D1) in found
    functions = sorted(
        name for name, target in found if callable(target) and not isinstance(target, type)
    )
    assert functions == [
        "dplearn.figures.grids.curve_positions",
        "dplearn.figures.grids.probability_positions",
        "dplearn.figures.widgets.explore",
    ]
    assert grids.probability_positions in [target for _, target in found]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda path: path.name)
def test_no_notebook_calls_a_function_of_the_figures_layer(path):
    found = figures_layer_functions(path)
    assert not found, (
        "code cells call figures-layer functions (call the core instead, "
        f"e.g. from dplearn import privacy_loss): {found}"
    )


#: Process-wide settings that an import must not change: which module pytest imports last
#: differs with the files and -k chosen and between xdist workers, so every later test
#: would run under settings that depend on the order.
GLOBAL_SETTINGS = {
    "mpmath.mp.dps",
    "mpmath.mp.prec",
    "mp.dps",
    "mp.prec",
}
GLOBAL_CALLS = {
    "np.seterr",
    "numpy.seterr",
    "warnings.simplefilter",
    "warnings.filterwarnings",
}


def settings_changed_on_import(source):
    """(line, what) for each statement outside a function or class body that sets one of
    GLOBAL_SETTINGS or calls one of GLOBAL_CALLS."""
    found = []
    for node in ast.parse(source).body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        for inner in ast.walk(node):
            targets = inner.targets if isinstance(inner, ast.Assign) else []
            if isinstance(inner, ast.AugAssign | ast.AnnAssign):
                targets = [inner.target]
            names = [ast.unparse(target) for target in targets]
            if isinstance(inner, ast.Call) and isinstance(inner.func, ast.Attribute):
                names.append(ast.unparse(inner.func))
            found += [
                (inner.lineno, name)
                for name in names
                if name in GLOBAL_SETTINGS or name in GLOBAL_CALLS
            ]
    return found


def test_settings_check_finds_what_an_import_changes():
    source = (
        "import mpmath\nmpmath.mp.dps = 60\nnp.seterr(all='ignore')\n"
        "def f():\n    mpmath.mp.dps = 30\n"
        "if True:\n    warnings.simplefilter('ignore')\n"
    )
    # Inside a function it is the test's own business (the conftest fixture restores it).
    assert settings_changed_on_import(source) == [
        (2, "mpmath.mp.dps"),
        (3, "np.seterr"),
        (7, "warnings.simplefilter"),
    ]


def test_no_import_changes_process_wide_settings():
    """A test module gives its tests more mpmath digits by MPMATH_DIGITS (tests/conftest.py
    sets them for each test), a helper by @mpmath.workdps on its functions."""
    paths = sorted([*(ROOT / "dplearn").rglob("*.py"), *(ROOT / "tests").glob("*.py")])
    changed = [
        f"{path.relative_to(ROOT)}:{line} sets {name} on import"
        for path in paths
        if path.name != "conftest.py"
        for line, name in settings_changed_on_import(path.read_text(encoding="utf-8"))
    ]
    assert not changed, "\n".join(changed)
