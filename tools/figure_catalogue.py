"""Keeps docs/figures.md, the figure catalogue, in step with the figure registry.

Each row gives a figure's id, its lesson, where its code lives (``figures.<module>.<Class>``,
the class ``explore`` shows), the functions of the numerical core it draws on, and what it
shows. The first two columns and the last are written by hand; this script writes the two
in between from the code: the class and its module from the registry, the core functions
by reading the class's source (and the module-level helpers it calls) for names of the
numbers layer (``privacy_loss.gaussian``, ``selection.worst_neighbours``, ...). So a reader
goes from an id to its class and to the core in three steps:

    python tools/figure_catalogue.py           # rewrite the two columns where out of date
    python tools/figure_catalogue.py --check   # exit 1, naming the rows, if any is

A figure in the registry without a row gets one, with its lesson and "what it shows" left
as ``?`` to be written; a row whose id is not registered is an error.
"""

from __future__ import annotations

import argparse
import ast
import importlib
import inspect
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
CATALOGUE = ROOT / "docs" / "figures.md"
HEADER = "| id | lesson | figure | core | what it shows |"
RULE = "|---|---|---|---|---|"
ROW = re.compile(r"^\| (?P<id>[A-Z]+-[A-Z0-9]+) \| (?P<rest>.*) \|$")
#: The layers above the numbers: a name bound to one of these is not the core.
NOT_CORE = ("dplearn.figures", "dplearn.exercises", "dplearn.language")


def _bindings(tree):
    """{local name: dotted name} of what a figure module imports from the numbers layer."""
    bound = {}
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("dplearn"):
            if node.module.startswith(NOT_CORE):
                continue
            for alias in node.names:
                if not alias.name.startswith("_"):
                    bound[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return bound


def _module_functions(tree):
    """{name: node} of a module's top-level functions (its helpers)."""
    return {
        node.name: node
        for node in tree.body
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    }


def core_functions(cls):
    """The numbers-layer names a figure class uses, directly or through its module's helpers.

    The class's own source, that of its bases in the figures' lesson modules (a shared base
    builds the pair a family of figures draws) and the module-level helpers each calls.

    Returns:
      Sorted dotted names relative to ``dplearn`` (``privacy_loss.gaussian``).
    """
    found = set()
    for klass in cls.__mro__:
        if klass.__module__.startswith("dplearn.figures") and klass.__module__ not in FRAMEWORK:
            found |= _used_by(klass)
    names = sorted(name.removeprefix("dplearn.") for name in found)
    return [name for name in names if not _is_constant(name)]


#: The figures' framework: what every figure inherits is not what one figure draws.
FRAMEWORK = ("dplearn.figures.explorers",)


def _used_by(klass):
    """The numbers-layer names one class's body (and its module's helpers) names."""
    module = sys.modules[klass.__module__]
    tree = ast.parse(inspect.getsource(module))
    bound = _bindings(tree)
    helpers = _module_functions(tree)
    class_node = next(
        node for node in tree.body if isinstance(node, ast.ClassDef) and node.name == klass.__name__
    )
    found, seen, todo = set(), set(), [class_node]
    while todo:
        node = todo.pop()
        for child in ast.walk(node):
            if isinstance(child, ast.Attribute) and isinstance(child.value, ast.Name):
                target = bound.get(child.value.id)
                if target and not child.attr.startswith("_") and _is_module(target):
                    found.add(f"{target}.{child.attr}")
            elif isinstance(child, ast.Name):
                if child.id in bound and not _is_module(bound[child.id]):
                    found.add(bound[child.id])
                elif child.id in helpers and child.id not in seen:
                    seen.add(child.id)
                    todo.append(helpers[child.id])
    return found


def _is_module(dotted):
    try:
        importlib.import_module(dotted)
    except ImportError:
        return False
    return True


def _is_constant(dotted):
    return dotted.rpartition(".")[2].isupper()


def rows(registry, existing):
    """The catalogue's rows in course order, hand-written columns kept from ``existing``."""
    lines = []
    for figure_id, cls in registry.items():
        lesson, shows = existing.get(figure_id, ("?", "?"))
        where = f"`{cls.__module__.removeprefix('dplearn.')}.{cls.__name__}`"
        core = ", ".join(f"`{name}`" for name in core_functions(cls)) or "—"
        lines.append(f"| {figure_id} | {lesson} | {where} | {core} | {shows} |")
    return lines


def read(text):
    """{id: (lesson, what it shows)} of the catalogue's rows (old and new layouts)."""
    found = {}
    for line in text.splitlines():
        match = ROW.match(line)
        if not match:
            continue
        cells = [cell.strip() for cell in match["rest"].split(" | ")]
        lesson, shows = cells[0], cells[-1]
        found.setdefault(match["id"], (lesson, shows))
    return found


def render(text, registry):
    """The catalogue with its table rewritten from the registry."""
    existing = read(text)
    unknown = sorted(set(existing) - set(registry))
    if unknown:
        raise SystemExit(f"docs/figures.md has rows for figures not registered: {unknown}")
    head, _, _ = text.partition("\n| id |")
    return head.rstrip("\n") + "\n\n" + "\n".join([HEADER, RULE, *rows(registry, existing)]) + "\n"


def main(argv=None):
    """Rewrites or checks docs/figures.md."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only report what is out of date")
    arguments = parser.parse_args(argv)
    from dplearn.figures import explorers

    registry = explorers.load_all()
    text = CATALOGUE.read_text(encoding="utf-8")
    wanted = render(text, registry)
    if wanted == text:
        return 0
    if arguments.check:
        print("docs/figures.md is out of date: run python tools/figure_catalogue.py")
        return 1
    CATALOGUE.write_text(wanted, encoding="utf-8")
    print("rewrote docs/figures.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
