"""dplearn.language: the catalogs' words at run time, Russian plurals, filled labels."""

import gettext as stdlib_gettext
import re

import polib
import pytest

from dplearn import language
from dplearn.language import N_, filled, ngettext
from dplearn.language import gettext as _


@pytest.fixture
def russian():
    language.set_language("ru")
    try:
        yield
    finally:
        language.set_language("en")


@pytest.mark.parametrize("code", ["zh", "ru"])
def test_plural_index_is_the_catalogs_plural_forms(code):
    header = polib.pofile(str(language.catalog_path(code))).metadata["Plural-Forms"]
    expression = re.search(r"plural=(.*?);?$", header).group(1)
    catalog_form = stdlib_gettext.c2py(expression)
    for count in range(1001):
        assert language._plural_index(code, count) == catalog_form(count), count


def test_english_is_the_source(russian):
    language.set_language("en")
    assert _("density") == "density"
    assert ngettext("{count} step", "{count} steps", 2) == "{count} steps"


def test_a_translated_word_and_an_unknown_one(russian):
    table = language._translations("ru")
    english, russian_word = next(
        (key[0], value) for key, value in table.items() if key[1] is None and value
    )
    assert _(english) == russian_word
    assert _("no catalog holds this sentence") == "no catalog holds this sentence"


def test_filled_is_its_english_and_translates_through_its_template(russian):
    template = N_("expected batch size; q = batch size / {size}")
    label = filled(template, size=60000)
    assert label == "expected batch size; q = batch size / 60000"
    assert isinstance(label, str) and {label: 1}[label] == 1
    assert _(label) == _(template).format(size=60000) != label


def test_set_language_checks_its_argument():
    with pytest.raises(ValueError, match="language must be one of"):
        language.set_language("de")
    assert language.current().code == "en"
