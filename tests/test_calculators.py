"""The lessons' calculators: their numbers against independent values, their widgets, and
that the exercises which need them can be answered with nothing but the calculator.

A learner in Voilà bisects by typing values into a box and reading six digits; here the
same bisection runs on the calculator's readout, and the answer it finds is checked by
the exercise's own checker.
"""

import itertools
import math

import pytest

from dplearn import exercises
from dplearn.figures import calculators
from tests import oracle


def _read(calculator, label_start, **values):
    """The readout's number whose label starts with label_start, as the page shows it."""
    numbers = calculator.numbers(**values)
    (label,) = [name for name in numbers if name.startswith(label_start)]
    return float(calculators.format_digits(numbers[label]))


def _bisect_on_page(read, low, high, target, steps=40):
    """Bisection on a decreasing readout, as a learner does with the boxes."""
    for _ in range(steps):
        middle = float(f"{(low + high) / 2:.6g}")  # what one types into a box
        if read(middle) > target:
            low = middle
        else:
            high = middle
    return float(f"{(low + high) / 2:.4g}")


def test_gaussian_delta_matches_balle_and_wang_at_60_digits():
    calculator = calculators.GaussianDelta()
    for sigma, epsilon in [(2.0, 1.0), (math.sqrt(3), math.log(3)), (0.5, 3.0), (30.0, 0.01)]:
        numbers = list(calculator.numbers(sigma=sigma, epsilon=epsilon).values())
        assert numbers[0] == pytest.approx(float(oracle.gaussian_loss_exceeds(epsilon, sigma)))
        assert numbers[1] == pytest.approx(float(oracle.gaussian_delta(epsilon, sigma)), rel=1e-9)


def test_gaussian_sigma_ratio_and_the_classic_formula():
    calculator = calculators.GaussianSigma()
    numbers = list(calculator.numbers(epsilon=0.5, delta=1e-6, sensitivity=2.0).values())
    classic = 2.0 * math.sqrt(2 * math.log(1.25e6)) / 0.5
    assert numbers[0] == pytest.approx(classic, rel=1e-12)
    # The analytic sigma is the one whose exact delta is the target.
    assert float(oracle.gaussian_delta(0.5, numbers[1], 2.0)) == pytest.approx(1e-6, rel=1e-6)
    assert numbers[2] == pytest.approx(numbers[0] / numbers[1], rel=1e-12)


def test_linear_program_agrees_with_every_remap_of_the_geometric_mechanism():
    """At n = 3, the LP optimum is the best of all 4**4 deterministic remaps (the theorem),
    and 'as it is' is the geometric mechanism's own loss, summed here by hand."""
    n, epsilon = 3, 0.7
    a = math.exp(-epsilon)
    matrix = [
        [
            (a**i if j == 0 else a ** (n - i) if j == n else (1 - a) * a ** abs(i - j)) / (1 + a)
            for j in range(n + 1)
        ]
        for i in range(n + 1)
    ]

    def loss(remap):
        return sum(matrix[i][j] * abs(i - remap[j]) for i in range(n + 1) for j in range(n + 1)) / (
            n + 1
        )

    best = min(loss(remap) for remap in itertools.product(range(n + 1), repeat=n + 1))
    numbers = calculators.LinearProgram().numbers(count_range=n, epsilon=epsilon)
    optimum, raw, remapped = numbers.values()
    assert optimum == pytest.approx(best, abs=1e-7)
    assert remapped == pytest.approx(best, abs=1e-7)
    assert raw == pytest.approx(loss(tuple(range(n + 1))), rel=1e-9)


def test_accountant_bracket_holds_the_exact_value():
    calculator = calculators.LaplaceBracket()
    for epsilon0, releases, width, epsilon in [(0.2, 20, 0.05, 1.0), (0.1, 100, 0.01, 2.0)]:
        low, exact, high = calculator.numbers(
            epsilon0=epsilon0, releases=releases, grid_width=width, epsilon=epsilon
        ).values()
        assert low <= exact <= high
    # One release: the exact delta of Laplace noise, integrated at 60 digits.
    low, exact, high = calculator.numbers(epsilon0=1.0, releases=1, epsilon=0.5).values()
    assert exact == pytest.approx(float(oracle.laplace_delta_by_integration(0.5, 1.0)), rel=1e-9)
    assert low <= exact <= high


def test_bad_inputs_are_named_and_the_widget_says_so():
    calculator = calculators.GaussianSigma()
    with pytest.raises(ValueError, match="delta"):
        calculator.numbers(delta=0.0)
    with pytest.raises(ValueError, match="epsilon"):
        calculator.numbers(epsilon="many")
    with pytest.raises(ValueError, match="unknown inputs"):
        calculator.numbers(eps=1.0)
    assert "delta" in calculator.readout_html(delta=0.0)
    with pytest.raises(ValueError, match="count_range"):
        calculators.LinearProgram().numbers(count_range=2.5)
    with pytest.raises(ValueError, match="prior"):
        calculators.LinearProgram().numbers(prior="flat")


def test_widget_updates_its_readout_and_shows_decimal_points():
    box = calculators.GaussianDelta().widget()
    before = box.readout.value
    box.inputs["epsilon"].value = 2.0
    assert box.readout.value != before
    expected = calculators.format_digits(
        list(calculators.GaussianDelta().numbers(epsilon=2.0).values())[1]
    )
    assert expected in box.readout.value
    assert "," not in calculators.format_digits(1000.1845) == "1000.18"
    assert calculators.format_digits(1.234567e-5) == "1.23457e-05"


# ------------------------------------- the exercises that need them, answered from them


def test_lesson_02_epsilon_for_a_target_delta_by_bisection_on_the_calculator():
    calculator = calculators.GaussianDelta()
    answer = _bisect_on_page(
        lambda epsilon: _read(calculator, "area", sigma=math.sqrt(3), epsilon=epsilon),
        1.0,
        4.0,
        1e-5,
    )
    assert exercises.get("02.epsilon-at-delta").check(answer).correct, answer


def test_lesson_06_ten_percent_by_bisection_on_the_calculator():
    calculator = calculators.GaussianSigma()
    answer = _bisect_on_page(
        lambda epsilon: _read(calculator, "classic $\\sigma$ ÷", epsilon=epsilon, delta=1e-6),
        0.5,
        8.0,
        1.1,
    )
    assert exercises.get("06.ten-percent").check(answer).correct, answer
    sigma = _read(calculator, "analytic", epsilon=1.0, delta=1e-6, sensitivity=0.01)
    assert exercises.get("06.averages-sigma").check(f"{sigma:.4g}").correct


def test_lesson_05_raw_gap_from_the_calculator():
    optimum, raw, _ = (
        float(calculators.format_digits(value))
        for value in calculators.LinearProgram().numbers(count_range=4, epsilon=0.5).values()
    )
    assert exercises.get("05.raw-gap").check(raw - optimum).correct


def test_lesson_09_accountant_report_from_the_calculator():
    low, exact, high = (
        calculators.format_digits(value)
        for value in calculators.LaplaceBracket()
        .numbers(epsilon0=0.2, releases=20, grid_width=0.05, epsilon=1.0)
        .values()
    )
    exercise = exercises.get("09.accountant-report")
    assert exercise.check(high).correct
    assert exercise.check(low).hint == "optimistic"
    assert exercise.check(exact).hint == "exact-not-reported"
