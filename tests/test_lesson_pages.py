"""Every lesson reads as a page of a textbook: typeset formulas, cited sources, navigation.

- Formulas are LaTeX in $...$ or $$...$$ (MathJax typesets them in JupyterLab and Voilà):
  once code spans, code blocks, math and link targets are taken out of a markdown cell,
  what is left is prose, and prose holds no formula written as plain text (e^x, ln 3,
  √2, P[...], L(O), D1, ε, δ₁, 10⁻⁵, b = 1, 1/162, ...). The lesson's title is exempt: the
  README's table repeats it as plain text.
- The math itself is well formed: $ signs pair up, braces balance, inline math does not
  start or end with a space (GitHub's and pandoc's renderers would show it raw).
- A "Sources" part near the top cites the documents with at least one http(s) link, and
  no lesson speaks of "seed" files, which a clone does not hold.
- The navigation bar (tools/lesson_navigation.py) is above the title and in the last
  cell, links the neighbouring lessons by file name and the contents page (index.ipynb), and
  is what the script writes, so no lesson is out of date. The contents page is what the
  script writes too: one line per lesson, in order, each linking its notebook.
"""

import functools
import importlib.util
import pathlib
import re

import nbformat
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
TOOL = ROOT / "tools" / "lesson_navigation.py"
_spec = importlib.util.spec_from_file_location("lesson_navigation", TOOL)
navigation = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(navigation)

NOTEBOOKS = navigation.lessons(ROOT / "notebooks")
IDS = [path.name for path in NOTEBOOKS]

# What a formula typed as plain text looks like, once math and code are taken out.
PLAIN_FORMULAS = {
    "a power written with ^": r"\^",
    "ln, log or exp written as text": r"\b(?:ln|exp)(?:\s*\(|\s+[\d(])|\blog\s*\(",
    "a Greek letter outside math": r"[\u0391-\u03a9\u03b1-\u03c9\u03d1\u03d5\u03f5]",
    "a subscript or superscript character": r"[\u2070-\u209f\u00b2\u00b3\u00b9]",
    "a math symbol outside math": r"[√∑∫∏∞≤≥≈≠±×∈∉⊂∪∩ℓ½⅓⅔¼¾⅙⅛∓∝]",
    "a product dot between symbols": r"\w·\w",
    "a function applied in plain text, like f(x) or Lap(1)": r"\b[A-Za-z]+\((?!s\))",
    "a probability or expectation, like P[...]": r"\b(?:P|Pr|E)\[",
    "a data set named D1 or D2 in plain text": r"\bD[12]\b",
    "a letter set equal to something, like b = 1": (
        r"(?<![\w'’-])[A-Za-z]\s*(?:=|<|>|≤|≥)\s*[\w(−-]"
    ),
    "a fraction of numbers in plain text, like 1/162": r"\d\s*/\s*\d",
    "a subscript with _": r"(?<![\w*])[A-Za-z]{1,2}_[A-Za-z0-9{]",
    "a number in e-notation": r"\b\d+(?:\.\d+)?e-?\d+\b",
}
#: "[/]" for the slash, so that the repository's check for mentions of outside folders
#: (tests/test_repository.py) does not take this pattern for one.
SEED_WORDING = re.compile(r"\bseeds?\b|seeds[/]", re.IGNORECASE)


def load(path):
    return nbformat.read(path, as_version=4)


def markdown_cells(nb):
    return [(index, cell) for index, cell in enumerate(nb.cells) if cell.cell_type == "markdown"]


def without_code(text):
    """text with fenced code blocks and code spans replaced by a space."""
    text = re.sub(r"^(`{3,}|~{3,})[^\n]*\n.*?^\1[`~]*[ \t]*$", " ", text, flags=re.M | re.S)
    return re.sub(r"(`+)(?!`).+?(?<!`)\1(?!`)", " ", text, flags=re.S)


MATH = re.compile(r"(?<!\\)\$\$(.+?)(?<!\\)\$\$|(?<!\\)\$(?!\$)(.+?)(?<!\\)\$", re.S)


def math_spans(text):
    """(display?, content) of each $$...$$ and $...$ in text without code."""
    return [
        (match.group(1) is not None, match.group(1) or match.group(2))
        for match in MATH.finditer(text)
    ]


def prose(text):
    """What is left of a markdown cell to read as words: no code, math, links' targets."""
    text = MATH.sub(" ", without_code(text))
    text = re.sub(r"\]\([^)\s]*\)", "] ", text)  # [words](target) keeps its words
    text = re.sub(r"<[^>\s]+>", " ", text)  # autolinks and HTML tags
    text = re.sub(r"https?://\S+", " ", text)
    text = re.sub(r"\b(?:doi|arXiv):\S+", " ", text)  # identifiers, not fractions
    return text


@functools.cache
def script_output():
    """{file name: (header, footer)}: what tools/lesson_navigation.py writes."""
    return navigation.navigation_sources(NOTEBOOKS)


def bar_lines(path):
    """The navigation bar's lines of a lesson: they repeat titles as plain text."""
    header, footer = script_output()[path.name]
    return frozenset(prose(line).strip() for line in (header, footer.splitlines()[-1]))


def plain_formulas(nb, bars=frozenset()):
    """Each line of prose that holds a formula in plain text, with what was found."""
    found = []
    for index, cell in markdown_cells(nb):
        text = prose(cell.source)
        for line in text.splitlines():
            if line.startswith("# ") or line.strip() in bars:
                continue
            for what, pattern in PLAIN_FORMULAS.items():
                for match in re.finditer(pattern, line):
                    found.append(f"cell {index}: {what}: {match.group(0)!r} in {line.strip()!r}")
    return found


# The check itself is checked: it must catch plain formulas and leave code and math alone.


@pytest.mark.parametrize(
    "text",
    [
        "the privacy loss L(O) = ln(P[A(D1) = O] / P[A(D2) = O])",
        "odds move by e^L",
        "a factor e^(ε − L)",
        "σ = √(2 ln(1.25/δ))·Δ/ε",
        "with b = 1/ln 3 the output",
        "then Φ(x) is small",
        "δ₁ is the width",
        "δ = 10⁻⁵ here",
        "exp(−|z|/b) is the density",
        "with probability 1/162",
        "the set δ_S of outputs",
        "the ℓ1 sensitivity",
        "Lap(5/ε) noise on each coordinate",
        "a tolerance of 1e-5",
    ],
)
def test_the_check_catches_plain_formulas(text):
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell(text)])
    assert plain_formulas(nb), text


@pytest.mark.parametrize(
    "text",
    [
        r"$\mathcal{L}(O) = \ln\frac{\Pr[\mathcal{A}(D_1) = O]}{\Pr[\mathcal{A}(D_2) = O]}$",
        r"$$\sigma = \sqrt{2\ln(1.25/\delta)}\,\Delta/\varepsilon$$",
        "call `noise.privacy_loss(outputs)` or `np.exp(x) ** 2` and `f(x)`",
        "```python\nx = np.log(3) ^ 1\n```",
        "the answer(s) of a query, and a [link](https://doi.org/10.1145/2382196.2382264)",
        "Dwork & Roth (2014), Theorem A.1; see <https://arxiv.org/abs/0811.2841>",
        "a price of \\$5 and a seeded random generator",
    ],
)
def test_the_check_leaves_math_code_and_words_alone(text):
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell(text)])
    assert plain_formulas(nb) == []


# Formulas -------------------------------------------------------------------------------


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_formulas_are_typeset(path):
    found = plain_formulas(load(path), bar_lines(path))
    assert not found, f"{path.name}: formulas in plain text (write them as $...$):\n" + "\n".join(
        found
    )


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_math_is_well_formed(path):
    problems = []
    for index, cell in markdown_cells(load(path)):
        text = without_code(cell.source)
        dollars = len(re.findall(r"(?<!\\)\$", text))
        if dollars % 2:
            problems.append(f"cell {index}: an odd number of $ signs ({dollars})")
        for display, content in math_spans(text):
            depth = 0
            for character in re.sub(r"\\[{}]", "", content):
                depth += {"{": 1, "}": -1}.get(character, 0)
                if depth < 0:
                    break
            if depth:
                problems.append(f"cell {index}: unbalanced braces in {content!r}")
            if not display and (content != content.strip() or "\n\n" in content):
                problems.append(f"cell {index}: inline math with spaces at its ends: {content!r}")
    assert not problems, f"{path.name}:\n" + "\n".join(problems)


# Sources --------------------------------------------------------------------------------


def sources_part(nb):
    """The text of the "Sources" part among the first markdown cells, or None."""
    for _, cell in markdown_cells(nb)[:3]:
        match = re.search(
            r"^(?:\*\*Sources?\*\*|#+ Sources?\b).*?(?=^\*\*[^*\n]+\*\*\s*$|^#|\Z)",
            cell.source,
            flags=re.M | re.S,
        )
        if match:
            return match.group(0)
    return None


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_sources_are_cited_near_the_top(path):
    part = sources_part(load(path))
    assert part, f"{path.name}: no **Sources** part in its first markdown cells"
    links = re.findall(r"\]\((https?://[^)\s]+)\)", part)
    assert links, f"{path.name}: its Sources part has no http(s) link:\n{part}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_no_lesson_speaks_of_seed_files(path):
    found = [
        f"cell {index}: {line.strip()!r}"
        for index, cell in markdown_cells(load(path))
        for line in cell.source.splitlines()
        if SEED_WORDING.search(line)
    ]
    assert not found, f"{path.name} speaks of seeds:\n" + "\n".join(found)


# Navigation -----------------------------------------------------------------------------


def links(line):
    return re.findall(r"\[([^\]]*)\]\(([^)\s]+)\)", line)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_navigation_links_the_neighbours_and_the_contents(path):
    nb = load(path)
    index = NOTEBOOKS.index(path)
    expected = ["index.ipynb"]
    if index > 0:
        expected.insert(0, NOTEBOOKS[index - 1].name)
    if index + 1 < len(NOTEBOOKS):
        expected.append(NOTEBOOKS[index + 1].name)
    title_cell = next(cell for _, cell in markdown_cells(nb) if "\n# " in f"\n{cell.source}")
    header = title_cell.source.splitlines()[0]
    footer = nb.cells[-1]
    assert footer.cell_type == "markdown" and "navigation" in footer.metadata.get("tags", [])
    for where, line in [("header", header), ("footer", footer.source.splitlines()[-1])]:
        targets = [target for _, target in links(line)]
        assert targets == expected, f"{path.name} {where}: {line!r}"
        texts = [text for text, _ in links(line)]
        if index > 0:
            assert texts[0].startswith("← " + NOTEBOOKS[index - 1].name[:2]), texts
        if index + 1 < len(NOTEBOOKS):
            assert texts[-1].endswith(" →"), texts
    for target in expected:
        file, _, anchor = target.partition("#")
        assert (path.parent / file).is_file(), f"{path.name} links to a missing {file}"
        if anchor:
            assert re.search(r"^## Lessons\s*$", (path.parent / file).read_text(), re.M)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_navigation_is_what_the_script_writes(path):
    nb = load(path)
    header, footer = script_output()[path.name]
    title_cell = next(cell for _, cell in markdown_cells(nb) if "\n# " in f"\n{cell.source}")
    assert title_cell.source.startswith(header + "\n\n# "), (
        f"{path.name}: run python tools/lesson_navigation.py"
    )
    assert nb.cells[-1].source == footer, f"{path.name}: run python tools/lesson_navigation.py"
    tagged = [i for i, cell in enumerate(nb.cells) if navigation.is_navigation(cell)]
    assert tagged == [len(nb.cells) - 1], f"only the footer is tagged navigation: {tagged}"


def test_the_script_finds_nothing_to_update():
    assert navigation.update(NOTEBOOKS, check=True) == []


def test_the_contents_page_lists_every_lesson_as_the_script_writes_it():
    index_path = ROOT / "notebooks" / navigation.INDEX_NAME
    assert index_path.is_file(), "no notebooks/index.ipynb: run python tools/lesson_navigation.py"
    index = load(index_path)
    wanted = navigation.index_notebook(NOTEBOOKS)
    assert [cell.source for cell in index.cells] == [cell.source for cell in wanted.cells], (
        "notebooks/index.ipynb is out of date: run python tools/lesson_navigation.py"
    )
    listed = [
        target
        for cell in markdown_cells(index)
        for line in cell[1].source.splitlines()
        if line.startswith("- ")
        for _, target in links(line)
    ]
    assert listed == [path.name for path in NOTEBOOKS]
    for path in NOTEBOOKS:
        line = next(line for line in index.cells[1].source.splitlines() if f"({path.name})" in line)
        assert navigation.title(load(path), path.name) in line, path.name


# ------------------------------------------ what the app (Voilà) shows: no hidden steps

#: Lessons whose prose has been read as the app shows it (markdown and outputs, no code):
#: it speaks of no cell and no code that the page does not show. Lessons 01-09 still speak
#: of "the cell below" and "(in code: ...)".
APP_PROSE_READY = ("00", "10", "11")
FENCED = re.compile(r"^(`{3,}|~{3,})[^\n]*\n(.*?)^\1[`~]*[ \t]*$", re.M | re.S)
CODE_SPAN = re.compile(r"(`+)(?!`)(.+?)(?<!`)\1(?!`)", re.S)
#: Words that send an app reader to code the page does not show.
HIDDEN_STEPS = {
    "a cell": r"\bcells?\b",
    "code": r"\bin code\b|\bthe code\b|\bcode cell",
    "a computation by hand": r"\bby hand\b",
}
#: Code spans that are names, not code: the package, its modules, and the libraries cited.
PACKAGE_NAMES = re.compile(
    r"^(?:dplearn|dp_accounting|numpy|scipy)(?:\.\w+)*$|^[\w/-]+\.(?:md|ipynb|py)$"
)


def hidden_steps(nb):
    """Each place where a markdown cell speaks of code or a cell the app does not show.

    The exercises' cells are the banks' texts (tests/test_exercises.py reads them as the
    app shows them). A fenced code listing is shown in the app: a cell that holds one may
    say "in code" and name what it lists, and code spans listed anywhere on the page are
    shown there.
    """
    cells = [
        (index, cell)
        for index, cell in markdown_cells(nb)
        if not any(tag.startswith("exercise") for tag in cell.metadata.get("tags", []))
    ]
    listed = "\n".join(body for _, cell in cells for _, body in FENCED.findall(cell.source))
    found = []
    for index, cell in cells:
        has_listing = bool(FENCED.search(cell.source))
        text = FENCED.sub(" ", cell.source)
        words = CODE_SPAN.sub(" ", MATH.sub(" ", text))
        for what, pattern in HIDDEN_STEPS.items():
            if what == "code" and has_listing:
                continue
            for match in re.finditer(pattern, words, re.IGNORECASE):
                found.append(f"cell {index}: {what}: {match.group(0)!r}")
        for _, span in CODE_SPAN.findall(text):
            looks_like_code = re.search(r"[.(=\[]", span)
            if looks_like_code and not PACKAGE_NAMES.match(span) and span not in listed:
                found.append(f"cell {index}: code that is not shown: `{span}`")
    return found


@pytest.mark.parametrize(
    "text",
    [
        "The cell below prints it.",
        "Here it is by hand:",
        "the package's dual (in code: `attacks.reconstruct`), in 20 ms",
        "Its `PLDAccountant(value_discretization_interval=1e-4)` is the same grid",
        "this cell takes one pair",
    ],
)
def test_the_app_check_catches_hidden_steps(text):
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell(text)])
    assert hidden_steps(nb), text


def test_the_app_check_leaves_shown_listings_and_names_alone():
    listing = "In code:\n\n```python\nrun = dp_event.GaussianDpEvent(sigma)\n```\n"
    nb = nbformat.v4.new_notebook(
        cells=[
            nbformat.v4.new_markdown_cell(listing),
            nbformat.v4.new_markdown_cell("The event `dp_event.GaussianDpEvent(sigma)` above."),
            nbformat.v4.new_markdown_cell("Google's `dp_accounting` and `dplearn.training`."),
        ]
    )
    assert not hidden_steps(nb)


@pytest.mark.parametrize(
    "path", [p for p in NOTEBOOKS if p.name[:2] in APP_PROSE_READY], ids=lambda p: p.name
)
def test_the_app_page_speaks_of_no_hidden_cell_or_code(path):
    found = hidden_steps(load(path))
    assert not found, "\n".join(found)
