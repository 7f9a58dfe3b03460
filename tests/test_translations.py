"""The 中文 and Русский editions: complete, in step with the English, and faithful in what
must not change.

- The catalogs and the editions are what ``tools/translate.py`` writes from the English
  notebooks and the package (so a changed English paragraph shows up as fuzzy).
- Every entry is translated, none fuzzy or obsolete, and ``msgfmt --check`` accepts the
  catalogs.
- Each translation keeps its English's numbers, ``$…$`` formulas, inline code, web
  addresses, link targets, figure ids and ``{placeholders}``; it uses the glossary's term
  for every glossary term its English uses (locale/glossary.tsv).
- Every relative link of an edition resolves, and every edition starts with the cell that
  selects its language.
"""

import collections
import importlib.util
import pathlib
import re
import shutil
import subprocess

import nbformat
import polib
import pytest

from dplearn import language

ROOT = pathlib.Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("translate", ROOT / "tools" / "translate.py")
translate = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(translate)

EDITIONS = translate.EDITIONS
DOMAINS = ("lessons", "dplearn")
CATALOGS = [(code, domain) for code in EDITIONS for domain in DOMAINS]
GLOSSARY = ROOT / "locale" / "glossary.tsv"


def catalog(code, domain):
    return polib.pofile(str(translate.catalog_path(code, domain)))


def test_catalogs_and_editions_are_what_the_command_writes():
    stale = translate.stale_files(translate.outputs())
    assert not stale, "run bash tasks.sh translate: " + ", ".join(
        str(path.relative_to(ROOT)) for path in stale
    )


@pytest.mark.parametrize(("code", "domain"), CATALOGS)
def test_every_entry_is_translated(code, domain):
    po = catalog(code, domain)
    assert len(po) > 100
    untranslated = [entry.msgid[:60] for entry in po.untranslated_entries()]
    fuzzy = [entry.msgid[:60] for entry in po.fuzzy_entries()]
    obsolete = [entry.msgid[:60] for entry in po.obsolete_entries()]
    assert not untranslated, f"{len(untranslated)} untranslated, e.g. {untranslated[:3]}"
    assert not fuzzy, f"{len(fuzzy)} fuzzy (English changed), e.g. {fuzzy[:3]}"
    assert not obsolete, f"{len(obsolete)} obsolete, e.g. {obsolete[:3]}"


@pytest.mark.skipif(shutil.which("msgfmt") is None, reason="gettext's msgfmt is not installed")
@pytest.mark.parametrize(("code", "domain"), CATALOGS)
def test_msgfmt_accepts_the_catalog(code, domain, tmp_path):
    result = subprocess.run(
        [
            "msgfmt",
            "--check",
            "-o",
            str(tmp_path / "out.mo"),
            str(translate.catalog_path(code, domain)),
        ],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr


# ------------------------------------------------------------------ what must not change

_FORMULA = re.compile(r"\$\$.+?\$\$|\$[^$]+?\$", re.S)
_CODE = re.compile(r"`[^`\n]+`")
_URL = re.compile(r"https?://[A-Za-z0-9./~%#?=&+@:_-]*[A-Za-z0-9/~%#=&+_-]")
_LINK_TARGET = re.compile(r"\]\(([^)\s]+)\)")
_FIGURE_ID = re.compile(r"\b[A-Z]{2,}(?:-[A-Z0-9]+)+\b")
_PLACEHOLDER = re.compile(r"(?<!\{)\{[A-Za-z_][\w.]*(?:![rsa])?(?::[^{}]*)?\}(?!\})")
_NUMBER = re.compile(r"(?<![\w.])\d+(?:[.,]\d+)*(?:e[-+]?\d+)?")


def invariants(text):
    """What a translation must keep of its English, each as a sorted list."""
    found = {}
    rest = text
    for name, pattern in [
        ("formulas", _FORMULA),
        ("code", _CODE),
        ("web addresses", _URL),
        ("link targets", _LINK_TARGET),
    ]:
        matches = pattern.findall(rest)
        found[name] = sorted(matches)
        rest = pattern.sub(" ", rest)
    found["figure ids"] = sorted(_FIGURE_ID.findall(rest))
    found["placeholders"] = sorted(_PLACEHOLDER.findall(rest))
    found["numbers"] = sorted(
        number.replace(",", "") for number in _NUMBER.findall(_PLACEHOLDER.sub(" ", rest))
    )
    return found


def entries():
    for code, domain in CATALOGS:
        for entry in catalog(code, domain).translated_entries():
            if entry.msgid_plural:
                for form in entry.msgstr_plural.values():
                    yield code, domain, entry.msgid_plural, form
            else:
                yield code, domain, entry.msgid, entry.msgstr


def test_translations_keep_numbers_formulas_code_addresses_and_ids():
    broken = []
    for code, domain, english, translated in entries():
        want, got = invariants(english), invariants(translated)
        for name in want:
            if want[name] != got[name]:
                missing = list(collections.Counter(want[name]) - collections.Counter(got[name]))
                extra = list(collections.Counter(got[name]) - collections.Counter(want[name]))
                broken.append(
                    f"{code}/{domain}: {name} lost {missing} added {extra} in {english[:70]!r}"
                )
    assert not broken, f"{len(broken)} entries:\n" + "\n".join(broken[:40])


def test_the_invariant_check_finds_changes():
    english = "With $\\varepsilon = 1$ and `sigma`, see PLRV-4 at https://a.b/c: {count} of 1,000."
    assert invariants(english) == invariants(
        "当 $\\varepsilon = 1$ 且 `sigma` 时，见 PLRV-4（https://a.b/c）：1,000 中的 {count} 个。"
    )
    for changed in [
        english.replace("1$", "2$"),
        english.replace("`sigma`", "sigma"),
        english.replace("PLRV-4", "PLRV-5"),
        english.replace("1,000", "1000.5"),
        english.replace("{count}", "{number}"),
        english.replace("https://a.b/c", "https://a.b/d"),
    ]:
        assert invariants(changed) != invariants(english), changed


# ------------------------------------------------------------------ the glossary


def glossary():
    """[(English pattern, {code: what a translation must contain})] of locale/glossary.tsv."""
    rows = []
    lines = GLOSSARY.read_text(encoding="utf-8").splitlines()
    header = lines[0].split("\t")
    for line in lines[1:]:
        if not line.strip() or line.startswith("#"):
            continue
        row = dict(zip(header, line.split("\t"), strict=True))
        rows.append(
            (re.compile(row["english"], re.I), {code: row[f"{code} check"] for code in EDITIONS})
        )
    return rows


def test_glossary_terms_are_used():
    terms = glossary()
    assert len(terms) >= 20
    missed = collections.Counter()
    examples = {}
    for code, _domain, english, translated in entries():
        plain = _FORMULA.sub(" ", _CODE.sub(" ", english))
        for pattern, wanted in terms:
            if pattern.search(plain) and not re.search(wanted[code], translated, re.I):
                missed[(code, pattern.pattern)] += 1
                examples.setdefault((code, pattern.pattern), english[:80])
    assert not missed, "\n".join(
        f"{code}: {pattern!r} unlike the glossary ({count}), e.g. {examples[(code, pattern)]!r}"
        for (code, pattern), count in missed.most_common(40)
    )


# ------------------------------------------------------------------ the editions


def edition_paths(code):
    return sorted((ROOT / "notebooks" / code).glob("*.ipynb"))


@pytest.mark.parametrize("code", EDITIONS)
def test_every_notebook_has_an_edition_that_selects_its_language(code):
    english = sorted(path.name for path in (ROOT / "notebooks").glob("*.ipynb"))
    assert [path.name for path in edition_paths(code)] == english
    for path in edition_paths(code):
        first = nbformat.read(path, as_version=4).cells[0]
        assert first.cell_type == "code"
        assert f'dplearn.set_language("{code}")' in first.source, path.name


@pytest.mark.parametrize("code", ["en", *EDITIONS])
def test_relative_links_resolve(code):
    folder = ROOT / "notebooks" / ("" if code == "en" else code)
    broken = []
    for path in sorted(folder.glob("*.ipynb")):
        for cell in nbformat.read(path, as_version=4).cells:
            if cell.cell_type != "markdown":
                continue
            for target in _LINK_TARGET.findall(cell.source):
                if re.match(r"[a-z][a-z0-9+.-]*:|#", target):
                    continue
                if not (path.parent / target.split("#", 1)[0]).exists():
                    broken.append(f"{path.relative_to(ROOT)} → {target}")
    assert not broken, "\n".join(broken)


@pytest.mark.parametrize("code", EDITIONS)
def test_edition_prose_is_in_its_language(code):
    script = {"zh": r"[\u4e00-\u9fff]", "ru": r"[А-Яа-яЁё]"}[code]
    for path in edition_paths(code):
        nb = nbformat.read(path, as_version=4)
        for cell in nb.cells:
            if cell.cell_type == "markdown" and translate.has_words(cell.source):
                assert re.search(script, cell.source), f"{path.name}: {cell.source[:80]!r}"


def test_the_language_is_checked():
    with pytest.raises(ValueError, match="language must be one of"):
        language.set_language("fr")


@pytest.mark.parametrize("readme", ["README.zh-CN.md", "README.ru.md"])
def test_edition_readme_lists_every_lesson_with_launch_links_that_open(readme):
    import urllib.parse

    text = (ROOT / readme).read_text(encoding="utf-8")
    code = {"README.zh-CN.md": "zh", "README.ru.md": "ru"}[readme]
    lessons = sorted((ROOT / "notebooks" / code).glob("[0-9][0-9]-*.ipynb"))
    targets = re.findall(r"mybinder\.org/v2/gh/[^)\s\"']*\?(?:labpath|urlpath)=([^)\s\"'&]+)", text)
    assert len(targets) == 2 * len(lessons), readme
    for target in targets:
        path = urllib.parse.unquote(target).removeprefix("voila/render/")
        assert path.startswith(f"notebooks/{code}/") and (ROOT / path).is_file(), path
    assert "[English](README.md)" in text
