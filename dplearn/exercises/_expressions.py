"""A small, safe reader for answers typed as text: numbers and formulas, never Python code.

A learner types ``0.0106``, ``1e-5``, ``ln(3) / 2``, ``10^-5`` or, for a function
exercise, ``Phi(1/(2*sigma) - epsilon*sigma)`` or ``lambda epsilon, sigma: ...``. The
text is parsed with ``ast`` and only arithmetic (+ - * / ** and ^ for powers, a final %
for a hundredth), numbers, the names below and the exercise's own parameters are
accepted; everything else
(attributes, subscripts, strings, imports, keyword arguments) is refused with a message
that says what was not understood. Nothing is passed to ``eval``.

Functions: exp, ln (= log), log10, log2, log1p, expm1, sqrt, abs, floor, ceil, min, max,
Phi (the standard normal CDF; also written Φ), Phi_inv (its inverse, the quantile
Φ⁻¹; also written invPhi, Φ⁻¹(p) or Phi^-1(p)), erf, erfc. Constants: pi, e, inf.
A number typed with Phi_inv of something outside [0, 1], or with ln or sqrt of a negative
number, is refused, saying so in plain words; in a function, such a point gives NaN.

A learner writes maths as on paper, so the reader also takes ``f(epsilon0, q) = ...`` (the
form the answer box shows) and a product without its sign where nothing else is meant:
``q(exp(epsilon0) - 1)`` with ``q`` a variable, ``2(1 + q)``, ``(1 + q)(1 - q)``. A
known function name followed by brackets stays a call.

What Chinese and Japanese input methods type is read as its ASCII twin (``fold_wide_forms``):
full-width digits, letters, brackets and operators (``０.４６２``, ``２×１０＾-５``), the
full-width space, ``，`` and ``、`` as a comma, and ``。`` as a decimal point between digits
(``0。462``; at the very end it closes the sentence and is dropped).

The messages of ``NotReadable`` are the learner's feedback: they speak the language set
with ``dplearn.set_language``.

Whatever the text (up to MAX_LENGTH characters), the reader returns a number or raises
``NotReadable``: a number too large for a float, brackets nested too deep for Python's
parser, a NUL character are each refused with a message, never another exception.
"""

from __future__ import annotations

import ast
import functools
import math
import re
import unicodedata

import numpy as np
from scipy import special

from dplearn.language import N_, ngettext
from dplearn.language import gettext as _

__all__ = [
    "NotReadable",
    "OutsideDomain",
    "FUNCTIONS",
    "CONSTANTS",
    "DOMAINS",
    "decimal_comma_hint",
    "fold_wide_forms",
    "read_number",
    "read_function",
]

MAX_LENGTH = 400

FUNCTIONS = {
    "exp": (np.exp, 1),
    "ln": (np.log, 1),
    "log": (np.log, 1),
    "log10": (np.log10, 1),
    "log2": (np.log2, 1),
    "log1p": (np.log1p, 1),
    "expm1": (np.expm1, 1),
    "sqrt": (np.sqrt, 1),
    "abs": (np.abs, 1),
    "floor": (np.floor, 1),
    "ceil": (np.ceil, 1),
    "min": (np.minimum, 2),
    "max": (np.maximum, 2),
    "Phi": (special.ndtr, 1),
    "Phi_inv": (special.ndtri, 1),
    "invPhi": (special.ndtri, 1),
    "erf": (special.erf, 1),
    "erfc": (special.erfc, 1),
}
CONSTANTS = {"pi": math.pi, "e": math.e, "inf": math.inf}
#: Functions defined on part of the line only: (low, high, what they need), as the
#: message says it: "ln needs a positive number, got -1".
DOMAINS = {
    "Phi_inv": (0.0, 1.0, N_("takes a probability between 0 and 1")),
    "invPhi": (0.0, 1.0, N_("takes a probability between 0 and 1")),
    "ln": (0.0, math.inf, N_("needs a positive number")),
    "log": (0.0, math.inf, N_("needs a positive number")),
    "log10": (0.0, math.inf, N_("needs a positive number")),
    "log2": (0.0, math.inf, N_("needs a positive number")),
    "log1p": (-1.0, math.inf, N_("needs a number of at least -1")),
    "sqrt": (0.0, math.inf, N_("needs a number of at least 0")),
}
#: What a number answer may be made of, in the words a newcomer reads.
ALLOWED_IN_WORDS = N_("use numbers and + − × ÷, ln, exp, sqrt, pi and e")

_OPERATORS = {
    ast.Add: np.add,
    ast.Sub: np.subtract,
    ast.Mult: np.multiply,
    ast.Div: np.divide,
    ast.Pow: np.power,
}
_REPLACEMENTS = {
    "−": "-",
    "–": "-",
    "×": "*",
    "·": "*",
    "^": "**",
    "÷": "/",
    "⁻¹": "**-1",
    "Φ": "Phi",
}
# Φ⁻¹(p) and Phi^-1(p), once the replacements above have made them Phi**-1(p): the
# quantile function, not the power -1 of Phi.
_INVERSE_PHI = re.compile(r"\bPhi\s*\*\*\s*(?:-\s*1|\(\s*-\s*1\s*\))\s*\(")

# The full-width forms (U+FF01 to U+FF5E: ０-９, Ａ-ｚ, ．，－＋（）／＊＾ ...) and the
# ideographic space, which NFKC folds to ASCII. Only these: NFKC would also turn the
# superscripts of "10⁻⁵" into "10−5", a different number, and Φ⁻¹ into Φ−1.
_WIDE_FORMS = re.compile("[\u3000\uff01-\uff5e]+")
# What NFKC leaves as it is: the ideographic comma, a comma as the full-width one is.
_IDEOGRAPHIC = {"、": ","}
_FULL_STOP_BETWEEN_DIGITS = re.compile(r"(?<=\d)。(?=\d)")


class NotReadable(ValueError):
    """The text is not a number or formula this reader understands; the message says why."""


class OutsideDomain(NotReadable):
    """A function met an argument outside its domain (Phi_inv of 2, ln of -1).

    The message is a plain sentence ("ln needs a positive number, got -1").
    """


def fold_wide_forms(text):
    """The text as typed, with what Chinese and Japanese input methods type made ASCII.

    Full-width characters and the ideographic space become their ASCII twins (NFKC), the
    ideographic comma a comma, and the ideographic full stop a decimal point between two
    digits; one at the very end, which closes a sentence, is dropped. × and − are read
    with the other signs of ``read_number``.
    """
    text = _WIDE_FORMS.sub(lambda wide: unicodedata.normalize("NFKC", wide.group()), text)
    for symbol, replacement in _IDEOGRAPHIC.items():
        text = text.replace(symbol, replacement)
    text = _FULL_STOP_BETWEEN_DIGITS.sub(".", text).strip()
    return text.removesuffix("。").rstrip()


def _normalise(text):
    if not isinstance(text, str):
        raise NotReadable(_("expected text, got {type}").format(type=type(text).__name__))
    text = fold_wide_forms(text)
    if not text:
        raise NotReadable(_("the answer is empty"))
    if len(text) > MAX_LENGTH:
        raise NotReadable(
            _("the answer is longer than {length} characters").format(length=MAX_LENGTH)
        )
    if re.fullmatch(r"[+-]?\d+,\d+", text):
        raise NotReadable(decimal_comma_hint(text))
    for symbol, replacement in _REPLACEMENTS.items():
        text = text.replace(symbol, replacement)
    text = _INVERSE_PHI.sub("Phi_inv(", text)
    if text.endswith("%"):  # "1.3 %" is a share: divide by 100
        text = f"({text[:-1]}) / 100"
    return text


def decimal_comma_hint(written):
    """What to say about a number written with a decimal comma, such as "1000,1845".

    One wording for the answer box and for an answer cell, where Python reads
    ``1000,185`` as a pair of whole numbers.
    """
    return _("write {written} with a decimal point: {number}").format(
        written=repr(written), number=written.replace(",", ".")
    )


def _compile(node, parameters):
    """A function of the parameter values for one node of the parsed formula."""
    if isinstance(node, ast.Constant):
        if isinstance(node.value, bool) or not isinstance(node.value, int | float):
            raise NotReadable(_("{value} is not a number").format(value=repr(node.value)))
        try:
            value = np.float64(float(node.value))
        except OverflowError:
            digits = len(str(abs(node.value)))
            raise NotReadable(
                _("a whole number of {digits} digits is too large to read").format(digits=digits)
            ) from None
        return lambda values: value
    if isinstance(node, ast.Name):
        if node.id in parameters:
            index = parameters.index(node.id)
            return lambda values: values[index]
        if node.id in CONSTANTS:
            value = np.float64(CONSTANTS[node.id])
            return lambda values: value
        if not parameters:
            raise NotReadable(
                _("{name} is no number or function I know: {allowed}").format(
                    name=repr(node.id), allowed=_(ALLOWED_IN_WORDS)
                )
            )
        raise NotReadable(
            _("unknown name {name}: the variables are {variables}; {allowed}").format(
                name=repr(node.id), variables=", ".join(parameters), allowed=_(ALLOWED_IN_WORDS)
            )
        )
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        operand = _compile(node.operand, parameters)
        if isinstance(node.op, ast.USub):
            return lambda values: -operand(values)
        return operand
    if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
        operator = _OPERATORS[type(node.op)]
        left, right = _compile(node.left, parameters), _compile(node.right, parameters)
        return lambda values: operator(left(values), right(values))
    if isinstance(node, ast.Call) and _implicit_product(node, parameters):
        # q(exp(epsilon0) - 1), 2(1 + q): a product written as on paper.
        left, right = _compile(node.func, parameters), _compile(node.args[0], parameters)
        return lambda values: np.multiply(left(values), right(values))
    if isinstance(node, ast.Call):
        name = node.func.id if isinstance(node.func, ast.Name) else None
        if name in CONSTANTS and not node.keywords and len(node.args) == 1:
            if name == "e":
                message = _(
                    "{name} is a number, not a function: write {name}*(...) to multiply, "
                    "or exp(...) for e to a power"
                )
            else:
                message = _("{name} is a number, not a function: write {name}*(...) to multiply")
            raise NotReadable(message.format(name=name))
        if name not in FUNCTIONS:
            raise NotReadable(
                _("unknown function {name} (known: {functions})").format(
                    name=repr(ast.unparse(node.func)), functions=", ".join(FUNCTIONS)
                )
            )
        function, arity = FUNCTIONS[name]
        if node.keywords or len(node.args) != arity:
            raise NotReadable(
                ngettext(
                    "{name} takes {count} argument", "{name} takes {count} arguments", arity
                ).format(name=name, count=arity)
            )
        arguments = [_compile(argument, parameters) for argument in node.args]
        if name in DOMAINS:
            return _within_domain(name, function, arguments[0])
        return lambda values: function(*(argument(values) for argument in arguments))
    raise NotReadable(
        _("{expression} is not arithmetic this box understands").format(
            expression=repr(ast.unparse(node))
        )
    )


def _implicit_product(node, parameters):
    """True when a call is a product written without its sign, where no function is meant.

    Such a call is a variable, a number or a bracket followed by one bracketed factor.
    """
    if node.keywords or len(node.args) != 1:
        return False
    factor = node.func
    if isinstance(factor, ast.Name):
        return factor.id in parameters and factor.id not in FUNCTIONS
    if isinstance(factor, ast.Constant):
        return isinstance(factor.value, int | float) and not isinstance(factor.value, bool)
    return isinstance(factor, ast.BinOp | ast.UnaryOp | ast.Call)


def _within_domain(name, function, argument):
    """The call of a one-argument function that refuses arguments outside its domain."""
    low, high, needs = DOMAINS[name]

    def call(values):
        value = argument(values)
        if value < low or value > high:  # NaN passes, and gives NaN
            raise OutsideDomain(
                _("{function} {needs}, got {value:.6g}").format(
                    function=name, needs=_(needs), value=float(value)
                )
            )
        return function(value)

    return call


# "f(epsilon0, q) = ...", the form the answer box shows, or "f = ...".
_DEFINITION = re.compile(r"^\s*[A-Za-z_]\w*\s*(?:\(([^()]*)\))?\s*=(?!=)(.*)$", re.S)
# A number glued to a name or a bracket, "2q" or "2(": Python's parser cannot read it.
_GLUED = re.compile(r"(?<![\w.])(\d+(?:\.\d*)?)\s*(?![eE][+-]?\d)([A-Za-z_(])")


def _parse(text):
    try:
        return ast.parse(text, mode="eval").body
    except SyntaxError:
        glued = _GLUED.search(text)
        if glued:
            number, after = glued.groups()
            raise NotReadable(
                _("write the multiplication sign: {number}*{after}, not {number}{after}").format(
                    number=number, after=after
                )
            ) from None
        raise NotReadable(
            _("{text} is not a formula (check the brackets and operators)").format(text=repr(text))
        ) from None
    except ValueError:  # a NUL character, which Python's parser refuses
        raise NotReadable(_("the answer holds a character that is not text")) from None


def _never_raises_but_not_readable(reader):
    """Turns any failure of the reader on odd text into NotReadable, with its reason.

    Nesting deep enough exhausts Python's parser or recursion (RecursionError,
    MemoryError); those are limits of reading, not answers, and must not reach the
    learner as an exception.
    """

    @functools.wraps(reader)
    def read(*args):
        try:
            return reader(*args)
        except NotReadable:
            raise
        except (RecursionError, MemoryError):
            raise NotReadable(_("the formula is nested too deeply to read")) from None
        except OverflowError:
            raise NotReadable(_("a number in it is too large to read")) from None

    return read


def _evaluate(compiled, values):
    with np.errstate(all="ignore"):
        return float(compiled(tuple(np.float64(value) for value in values)))


@_never_raises_but_not_readable
def read_number(text):
    """The value of a typed number or formula such as ``1e-5`` or ``ln(3)/2``.

    Raises:
      NotReadable: the text is not arithmetic on numbers, functions and constants.
    """
    text = _normalise(text)
    definition = _DEFINITION.match(text)
    if definition and definition.group(1) is None:
        text = definition.group(2).strip()  # "epsilon = ln(4)": the value follows "="
    compiled = _compile(_parse(text), ())
    return _evaluate(compiled, ())


@_never_raises_but_not_readable
def read_function(text, parameters):
    """A Python function of ``parameters`` from a typed formula or ``lambda``.

    The formula uses the parameter names (``exp(-epsilon * t)``); a ``lambda`` may name
    them differently but must take as many.

    Raises:
      NotReadable: the text is not such a formula.
    """
    parameters = tuple(parameters)
    text = _normalise(text)
    definition = _DEFINITION.match(text)
    if definition:
        named, text = definition.group(1), definition.group(2).strip()
        if named is not None and named.strip():
            # f(a, b) = ... names the arguments, as a lambda does.
            text = f"lambda {named}: {text}"
    node = _parse(text)
    names = parameters
    if isinstance(node, ast.Lambda):
        arguments = node.args
        if arguments.vararg or arguments.kwarg or arguments.kwonlyargs or arguments.defaults:
            raise NotReadable(_("write the lambda with plain arguments only"))
        names = tuple(argument.arg for argument in arguments.posonlyargs + arguments.args)
        if len(names) != len(parameters):
            raise NotReadable(
                _(
                    "the function takes {count} argument(s) ({parameters}), "
                    "this lambda takes {lambda_count}"
                ).format(
                    count=len(parameters),
                    parameters=", ".join(parameters),
                    lambda_count=len(names),
                )
            )
        node = node.body
    compiled = _compile(node, names)

    def function(*values):
        try:
            return _evaluate(compiled, values)
        except OutsideDomain:
            # A formula undefined at one point is a wrong answer there, not unreadable.
            return math.nan

    function.__doc__ = f"The formula {text.strip()!r} of {', '.join(parameters)}."
    return function
