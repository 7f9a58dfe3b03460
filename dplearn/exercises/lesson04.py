"""Exercises of lesson 04, "Compute sensitivity": neighbours, clipping, ℓ1 and ℓ2.

References and mistakes are brute-force sensitivities from ``dplearn.sensitivity`` over
the lesson's toy universe (ages 0 to 90, blue or brown eyes).

Taught in: 04-compute-sensitivity.ipynb
"""

import functools

from dplearn import sensitivity
from dplearn.exercises import absolute, choice, mistake, number, whole_number

_CLIP = 60


def blue_age_sum(rows, upper=_CLIP):
    """Sum of the ages of blue-eyed people, each clipped to [0, upper]."""
    return sum(min(max(row.age, 0), upper) for row in rows if row.eyes == "blue")


def unclipped_blue_age_sum(rows):
    """The same sum without clipping."""
    return sum(row.age for row in rows if row.eyes == "blue")


def sum_and_count(rows):
    """(clipped age sum, number of people)."""
    return (sensitivity.clipped_age_sum(rows, _CLIP), len(rows))


@functools.cache  # a brute-force enumeration: computed once per kernel, on first use
def _global(query, notion, norm="l1"):
    return getattr(sensitivity.global_sensitivity(query, notion=notion), norm)


EXERCISES = [
    number(
        "04.blue-age-sum",
        title="A clipped sum over some of the people",
        question=(
            "The query is *the sum of the ages of the blue-eyed people, each age clipped to "
            "$[0, 60]$*, on the lesson's toy universe (ages 0 to 90). What is its sensitivity "
            "under the **replace-one-row** notion of neighbours? Reason it out from the "
            "definition: how far can one replaced person move this sum?"
        ),
        compute=lambda: _global(blue_age_sum, "replace"),
        tolerance=whole_number(),
        mistakes=[
            mistake(
                "replace-doubles",
                "Replacing a row is one step, not a removal plus an addition that each "
                "cost the full bound: how much can one person's clipped age change the sum?",
                lambda: 2 * _global(blue_age_sum, "add-remove"),
            ),
            mistake(
                "unclipped",
                "That is the sensitivity without clipping: the 90-year-olds count as 60 in a "
                "clipped sum.",
                lambda: _global(unclipped_blue_age_sum, "replace"),
            ),
        ],
        solution=(
            "Under replace, one person $r$ becomes $r'$. Only blue-eyed people count, each "
            "with a clipped age in $[0, 60]$, so the sum changes by\n\n"
            "$$|f(x) - f(y)| = |\\mathrm{clip}(r) \\mathbf 1_{r\\,\\text{blue}} - "
            "\\mathrm{clip}(r') \\mathbf 1_{r'\\,\\text{blue}}| \\le 60,$$\n\n"
            "the difference of two numbers in $[0, 60]$. It is reached by a blue-eyed "
            "60-year-old (or older) replaced by a brown-eyed person, or by a blue-eyed baby. "
            "Replacing does not double the bound here: one term leaves and one enters, but "
            "both lie in the same interval $[0, 60]$. So $\\Delta = 60$."
        ),
    ),
    number(
        "04.sum-and-count",
        title="$\\ell_2$ sensitivity of a pair",
        question=(
            "A query returns a pair: the age sum clipped to $[0, 60]$ and the number of "
            "people. Under **add/remove-one-row**, what is its $\\ell_2$ sensitivity? Give it "
            "to four decimals, and notice how it compares with the two numbers' own "
            "sensitivities."
        ),
        compute=lambda: _global(sum_and_count, "add-remove", "l2"),
        tolerance=absolute(0.0005),
        mistakes=[
            mistake(
                "l1-not-l2",
                "That is the ℓ1 sensitivity, |Δ sum| + |Δ count|. ℓ2 is the length of the "
                "change vector.",
                lambda: _global(sum_and_count, "add-remove", "l1"),
            ),
            mistake(
                "count-does-not-move",
                "That leaves the count out. Under add/remove the number of people changes "
                "by 1 in the same step as the sum (only under replace is the size fixed).",
                lambda: _global(sum_and_count, "replace", "l2"),
            ),
        ],
        solution=(
            "Adding a person aged 60 or more moves the pair by $(60, 1)$, the largest change "
            "in both coordinates at once, so\n\n"
            "$$\\Delta_2 = \\sqrt{60^2 + 1^2} = \\sqrt{3601} \\approx 60.0083, \\qquad "
            "\\Delta_1 = 60 + 1 = 61.$$\n\n"
            "The $\\ell_2$ norm is dominated by the larger coordinate: adding the count costs "
            "almost nothing in $\\ell_2$ (Gaussian noise), a little in $\\ell_1$ (Laplace). "
            "Under replace the count is fixed and $\\Delta_2 = 60$."
        ),
    ),
    choice(
        "04.histogram-replace",
        title="Why a histogram's replace sensitivity is 2",
        question=(
            "Under replace-one-row, the eye-colour histogram (blue count, brown count) has "
            "$\\ell_1$ sensitivity 2, while under add/remove it is 1. Why?"
        ),
        options={
            "a": "The histogram has two bins, and the sensitivity is the number of bins.",
            "b": "One replaced person leaves one bin and enters another: one count goes down "
            "by 1 and another goes up by 1.",
            "c": "Replacing is two neighbour steps (remove, then add), so every sensitivity "
            "doubles.",
            "d": "ℓ1 sensitivities are always twice the ℓ2 ones.",
        },
        answer="b",
        hints={
            "a": (
                "number-of-bins",
                "Give the universe a third eye colour: would the replace sensitivity become "
                "3? How many bins can one person touch?",
            ),
            "c": (
                "replace-is-two-steps",
                "Not every query doubles: the clipped sum of blue-eyed ages keeps Δ = 60 "
                "under replace. What makes the histogram different?",
            ),
            "d": (
                "norm-ratio",
                "Here ℓ2 is √2, and ℓ1/ℓ2 = √2, not 2. The norms compare the same change "
                "vector (−1, +1).",
            ),
        },
        praise=(
            "With any number of bins, a replaced person changes at most two counts, each by 1."
        ),
        solution=(
            "Replacing a blue-eyed person by a brown-eyed one changes the histogram by "
            "$(-1, +1)$, so\n\n"
            "$$\\Delta_1 = |-1| + |+1| = 2, \\qquad \\Delta_2 = \\sqrt{1 + 1} = \\sqrt 2.$$\n\n"
            "Under add/remove a single count moves by 1: $(+1, 0)$, so both norms are 1. "
            "The number of bins does not matter: a person belongs to one bin, and a "
            "replacement touches at most two of them. The clipped sum does not double "
            "because its change is a difference of two values in the same interval."
        ),
    ),
]
