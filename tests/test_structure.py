"""How the package is put together: layers by what they import, seams instead of private
calls, one calling convention, and notebooks that reach figures one way.

The numbers (modules directly in dplearn/ and its numeric subpackages) import no display
library; a private name (``_name``) is used only inside its own subpackage; every sampler
takes ``rng`` (and ``size``, by numpy's rule) by keyword; every lesson imports the figures
as ``from dplearn import figures`` and shows one as ``explore(figures.<module>.<Class>())``
(the framework's ``widgets`` and ``calculators`` are imported by name).
"""

import ast
import importlib
import inspect
import re

import nbformat
import pytest

from tests.test_repository import (
    NOTEBOOKS,
    PACKAGE,
    ROOT,
    imported_module,
    layer,
    package_modules,
)

#: Libraries that draw or talk to a page: only the figures and exercises may import them.
DISPLAY_LIBRARIES = {"matplotlib", "seaborn", "ipywidgets", "IPython", "ipympl", "mpl_toolkits"}


def numbers_modules():
    """{dotted name: path} of the numbers layer."""
    return {name: path for name, path in package_modules().items() if layer(name) == 0}


def test_no_numbers_module_imports_a_display_library():
    found = []
    for path in numbers_modules().values():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level:
                targets = [node.module or ""]
            else:
                continue
            for target in targets:
                if target.split(".")[0] in DISPLAY_LIBRARIES:
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno} imports {target}")
    assert not found, "the numbers layer must not draw:\n" + "\n".join(found)


# Private names --------------------------------------------------------------------------
#
# A name with a leading underscore belongs to its module; modules of one subpackage (say
# dplearn/composition/) may share theirs. The modules directly in dplearn/ are each their
# own concern, so between them, and between subpackages, only public names cross:
# ``_validation.describe`` is a seam, ``_validation._describe`` would not be. A private
# module directly in dplearn/ (``_validation``) is the whole package's; a private module
# of a subpackage (``privacy_loss._gaussian``) is that subpackage's.


def home(module):
    """The package a module's private names are shared in: its own package, or None for
    the modules directly in dplearn/ (each keeps its private names to itself)."""
    package = module.rpartition(".")[0]
    return None if package == "dplearn" else package


def private_uses(module, path, modules):
    """[(line, 'target._name')] of private names of other homes a module uses."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    own_package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    bound = {}  # local name -> dotted module it stands for
    found = []

    def allowed(target):
        # A module's own names; a subpackage's modules share theirs.
        if target == module:
            return True
        shared = (
            target
            if (PACKAGE / target.split(".", 1)[-1].replace(".", "/")).is_dir()
            else (home(target))
        )
        return shared is not None and (own_package == shared or module.startswith(shared + "."))

    def private_module_allowed(target):
        # dplearn._x is the package's; dplearn.sub._x belongs to dplearn.sub.
        parent, _, last = target.rpartition(".")
        if not last.startswith("_") or parent == "dplearn":
            return True
        return module == parent or module.startswith(parent + ".")

    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = imported_module(node, own_package)
            if not base.startswith("dplearn"):
                continue
            if not private_module_allowed(base) and base in modules:
                found.append((node.lineno, base))
            for alias in node.names:
                dotted = f"{base}.{alias.name}"
                if dotted in modules:
                    bound[alias.asname or alias.name] = dotted
                    if not private_module_allowed(dotted):
                        found.append((node.lineno, dotted))
                elif alias.name.startswith("_") and not allowed(base):
                    found.append((node.lineno, dotted))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("dplearn") and alias.asname:
                    bound[alias.asname] = alias.name
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Attribute) and node.attr.startswith("_")):
            continue
        if node.attr.startswith("__"):
            continue
        chain, value = [], node.value
        while isinstance(value, ast.Attribute):
            chain.append(value.attr)
            value = value.value
        if isinstance(value, ast.Name) and value.id in bound:
            target = ".".join([bound[value.id], *reversed(chain)])
            if target in modules and not allowed(target):
                found.append((node.lineno, f"{target}.{node.attr}"))
    return found


def test_no_private_name_crosses_a_package():
    modules = package_modules()
    found = [
        f"{path.relative_to(ROOT)}:{line} uses {target}"
        for module, path in modules.items()
        for line, target in private_uses(module, path, modules)
    ]
    assert not found, "private names used outside their home (make a seam):\n" + "\n".join(found)


def test_the_private_name_check_finds_what_it_should(tmp_path):
    modules = {
        "dplearn.renyi": tmp_path / "renyi.py",
        "dplearn.zcdp": tmp_path / "zcdp.py",
        "dplearn._validation": tmp_path / "_validation.py",
        "dplearn.privacy_loss": tmp_path / "privacy_loss" / "__init__.py",
        "dplearn.privacy_loss._pair": tmp_path / "privacy_loss" / "_pair.py",
        "dplearn.privacy_loss._gaussian": tmp_path / "privacy_loss" / "_gaussian.py",
    }
    source = tmp_path / "probe.py"
    source.write_text(
        "from dplearn import _validation as check\n"
        "from dplearn import renyi\n"
        "from dplearn.privacy_loss._gaussian import gaussian\n"
        "check.describe(1)\n"
        "check._describe(1)\n"
        "renyi._conversion(1)\n"
    )
    found = [target for _, target in private_uses("dplearn.zcdp", source, modules)]
    assert found == [
        "dplearn.privacy_loss._gaussian",
        "dplearn._validation._describe",
        "dplearn.renyi._conversion",
    ]
    inside = tmp_path / "inside.py"
    inside.write_text("from dplearn.privacy_loss._pair import _TINY\n")
    assert private_uses("dplearn.privacy_loss._gaussian", inside, modules) == []


# One calling convention -----------------------------------------------------------------


def public_callables():
    """(dotted name, function) of every public function and method of the numbers layer."""
    found = []
    for name in numbers_modules():
        if any(part.startswith("_") for part in name.split(".")[1:]):
            continue
        module = importlib.import_module(name)
        for attribute in getattr(module, "__all__", ()):
            value = getattr(module, attribute)
            if inspect.isfunction(value):
                found.append((f"{name}.{attribute}", value))
            elif inspect.isclass(value) and value.__module__.startswith("dplearn"):
                for method_name, method in vars(value).items():
                    if inspect.isfunction(method) and not method_name.startswith("_"):
                        found.append((f"{name}.{attribute}.{method_name}", method))
    return found


def test_the_numbers_layer_has_samplers_to_check():
    names = [name for name, function in public_callables() if "rng" in signature(function)]
    assert len(names) >= 15, names


def signature(function):
    return inspect.signature(function).parameters


PUBLIC_CALLABLES = public_callables()


@pytest.mark.parametrize(
    "name, function", PUBLIC_CALLABLES, ids=[name for name, _ in PUBLIC_CALLABLES]
)
def test_rng_and_size_are_keywords(name, function):
    """rng is keyword-only; a sampler's size too, and None gives one draw (numpy's rule)."""
    parameters = signature(function)
    if "rng" in parameters:
        assert parameters["rng"].kind is inspect.Parameter.KEYWORD_ONLY, f"{name}: rng"
    if "size" in parameters and "rng" in parameters:  # a sampler's size, not a window's
        assert parameters["size"].kind is inspect.Parameter.KEYWORD_ONLY, f"{name}: size"
        assert parameters["size"].default is None, f"{name}: size=None gives one draw"


# Notebooks reach figures one way ------------------------------------------------------------

FIGURE_CALL = re.compile(r"explore\((?P<call>[\w.]+)\(")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda path: path.name[:2])
def test_notebooks_reach_figures_one_way(path):
    """``from dplearn import figures``, then ``explore(figures.<module>.<Class>())``."""
    notebook = nbformat.read(path, as_version=4)
    code = "\n".join(cell.source for cell in notebook.cells if cell.cell_type == "code")
    calls = [match["call"] for match in FIGURE_CALL.finditer(code)]
    if not calls:
        return
    assert re.search(r"^from dplearn import [\w, ]*\bfigures\b", code, re.M), path.name
    # The framework's widgets and number boxes are not figures: they may be imported.
    framework = r"(?!(widgets|calculators)\b)"
    assert not re.search(rf"^from dplearn\.figures import {framework}", code, re.M), path.name
    assert not re.search(rf"^from dplearn\.figures\.{framework}", code, re.M), path.name
    for call in calls:
        if "." not in call:
            continue  # a figure object the notebook built first (``explore(view)``)
        parts = call.split(".")
        assert len(parts) == 3 and parts[0] == "figures", f"{path.name}: explore({call}(...))"
        module = importlib.import_module(f"dplearn.figures.{parts[1]}")
        assert inspect.isclass(getattr(module, parts[2])), call


# Indexes that cannot drift ---------------------------------------------------------------


def test_figure_catalogue_is_up_to_date():
    """docs/figures.md gives every registered figure its class and core functions."""
    import sys

    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import figure_catalogue
    finally:
        sys.path.pop(0)
    from dplearn.figures import explorers

    text = figure_catalogue.CATALOGUE.read_text(encoding="utf-8")
    assert figure_catalogue.render(text, explorers.load_all()) == text, (
        "run python tools/figure_catalogue.py"
    )


def test_catalogue_rows_lead_to_their_class_and_core():
    """Each row's class is the registered one and names a real figure; each core name exists."""
    from dplearn.figures import explorers

    registry = explorers.load_all()
    rows = re.findall(
        r"^\| ([A-Z]+-[A-Z0-9]+) \| (\d\d) \| `figures\.(\w+)\.(\w+)` \| ([^|]*) \|",
        (ROOT / "docs" / "figures.md").read_text(encoding="utf-8"),
        re.M,
    )
    assert [row[0] for row in rows] == list(registry)
    for figure_id, _lesson, module, name, core in rows:
        cls = getattr(importlib.import_module(f"dplearn.figures.{module}"), name)
        assert cls is registry[figure_id], figure_id
        for dotted in re.findall(r"`([\w.]+)`", core):
            parent, _, attribute = dotted.rpartition(".")
            assert layer(f"dplearn.{parent}") == 0, dotted
            assert hasattr(importlib.import_module(f"dplearn.{parent}"), attribute), dotted


def taught_in(path):
    """The lesson numbers a module's docstring names after "Taught in:"."""
    docstring = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    _, _, taught = docstring.partition("Taught in:")
    return sorted(set(re.findall(r"\b(\d\d)-[\w-]+\.ipynb", taught)))


def index_entries():
    """{module: lessons text} of the package docstring's "- ``name``: ... (lessons ...)." lines."""
    import dplearn

    text = re.sub(r"\n  ", " ", dplearn.__doc__)
    return {
        match["name"]: match["lessons"]
        for match in re.finditer(
            r"^- ``(?P<name>\w+)``(?: \(a package\))?: .*\((?P<lessons>lessons? [\d, ]+|every "
            r"lesson)\)\.$",
            text,
            re.M,
        )
    }


def test_package_index_lists_every_public_module_with_its_lessons():
    public = {
        name.split(".")[1]: path
        for name, path in package_modules().items()
        if name.count(".") == 1 and not name.split(".")[1].startswith("_")
    }
    entries = index_entries()
    assert sorted(entries) == sorted(public), "dplearn/__init__.py's index and the package differ"
    for name, lessons in entries.items():
        if lessons == "every lesson":
            continue
        assert re.findall(r"\d\d", lessons) == taught_in(public[name]), name
    import dplearn

    for name in package_modules():
        short = name.split(".")[-1]
        if name.count(".") == 1 and short.startswith("_"):
            assert f"``{short}``" in dplearn.__doc__, f"{name}: say what it is for in the index"


def layout_paths():
    """The files and folders README's Layout names, as paths, with its lessonNN.py pattern."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = readme.split("## Layout", 1)[1].split("```", 2)[1]
    paths, stack = set(), []
    for line in block.splitlines():
        match = re.match(r"^( *)(\S+)", line)
        if not match or not re.search(r"[\w*]\.(py|npz)$|/$", match[2]):
            continue
        depth = len(match[1]) // 2
        stack = stack[:depth]
        name = match[2]
        paths.add("/".join([*stack, name.rstrip("/")]))
        if name.endswith("/"):
            stack.append(name.rstrip("/"))
    return paths


def test_readme_layout_names_every_module_and_only_real_ones():
    listed = layout_paths()
    modules = {
        path.relative_to(ROOT).as_posix()
        for path in PACKAGE.rglob("*.py")
        if "__pycache__" not in path.parts and path.name != "__init__.py"
    }
    banks = {path for path in modules if re.fullmatch(r"dplearn/exercises/lesson\d\d\.py", path)}
    assert "dplearn/exercises/lessonNN.py" in listed
    missing = sorted(modules - banks - listed)
    assert not missing, f"README's Layout leaves out: {missing}"
    for path in listed - {"dplearn/exercises/lessonNN.py"}:
        assert (ROOT / path).exists(), f"README's Layout names {path}, which does not exist"


# One docstring template -------------------------------------------------------------------

SECTIONS = ("Args:", "Returns:", "Raises:", "Yields:", "Attributes:", "Example:", "Examples:")
SECTIONS += ("Note:", "Taught in:")


def public_definitions():
    """(where, name, node) of every public function, class and method of the package."""
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        where = path.relative_to(ROOT).as_posix()
        for node in tree.body:
            if isinstance(node, ast.FunctionDef | ast.ClassDef) and not node.name.startswith("_"):
                yield where, node.name, node
                if isinstance(node, ast.ClassDef):
                    for child in node.body:
                        if isinstance(child, ast.FunctionDef) and not child.name.startswith("_"):
                            yield where, f"{node.name}.{child.name}", child


def template_problems(node):
    """What a docstring lacks of the template: one summary line, known sections, real Args."""
    docstring = ast.get_docstring(node)
    if not docstring:
        return ["no docstring"]
    lines = docstring.splitlines()
    problems = []
    if len(lines) > 1 and lines[1].strip():
        problems.append("the summary runs over more than one line")
    if not lines[0].rstrip().endswith((".", ":", "?")):
        problems.append("the summary is not a sentence")
    for line in lines[1:]:
        heading = re.fullmatch(r"([A-Z][a-z]+(?: [a-z]+)?):", line.strip())
        if heading and line == line.lstrip() and f"{heading[1]}:" not in SECTIONS:
            problems.append(f"unknown section {heading[1]!r}")
    if isinstance(node, ast.FunctionDef) and "Args:" in lines:
        arguments = node.args
        names = {
            argument.arg
            for argument in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
        }
        names |= {a.arg for a in (arguments.vararg, arguments.kwarg) if a is not None}
        block = lines[lines.index("Args:") + 1 :]
        for line in block:
            if line and not line.startswith(" "):
                break
            entry = re.match(r"^  (\w[\w, ]*):", line)
            if entry:
                for name in re.split(r",\s*", entry[1]):
                    if name and name not in names:
                        problems.append(f"Args names {name!r}, not a parameter")
    return problems


def test_every_public_docstring_follows_the_template():
    found = [
        f"{where} {name}: {problem}"
        for where, name, node in public_definitions()
        for problem in template_problems(node)
    ]
    assert not found, "docstrings off the template:\n" + "\n".join(found)


def test_the_template_check_finds_problems():
    tree = ast.parse(
        'def f(a, *, rng):\n    """Two lines\n    of summary.\n\n    Args:\n      b: no.\n    """\n'
    )
    problems = template_problems(tree.body[0])
    assert "the summary runs over more than one line" in problems
    assert "Args names 'b', not a parameter" in problems
    good = ast.parse('def f(a):\n    """One line.\n\n    Args:\n      a: yes.\n    """\n')
    assert template_problems(good.body[0]) == []


#: Words that time one machine: timings belong in benchmarks/, which measures them afresh.
MACHINE_TIMING = re.compile(r"\b\d-core\b|busy machine|on this machine|on the course's machine")


def test_no_docstring_or_comment_times_one_machine():
    found = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in sorted(PACKAGE.rglob("*.py"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if MACHINE_TIMING.search(line)
    ]
    assert not found, "timings of one machine (move them to benchmarks/):\n" + "\n".join(found)
