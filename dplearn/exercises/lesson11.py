"""Exercises of lesson 11, "Account for a training run": RDP, its conversion, the epochs.

References and anticipated mistakes are computed with ``dplearn.renyi`` (Rényi
divergences and their conversion to epsilon) and ``dplearn.accounting`` (the PLD and RDP
accountants of a DP-SGD run) when an answer is checked; the settings differ from the
lesson's printed ones, so that its numbers are no answers.

Taught in: 11-account-for-a-training-run.ipynb
"""

import functools
import math

from dplearn import accounting, privacy_loss, renyi, training
from dplearn.exercises import choice, exact, mistake, number

# rdp-adds: 100 Gaussian releases of sigma = 4 (no subsampling), order 8.
_SIGMA, _RELEASES, _ORDER = 4.0, 100, 8.0
# rdp-to-epsilon: D_alpha = 0.5 at alpha = 10, delta = 1e-5.
_RHO, _ALPHA, _DELTA = 0.5, 10.0, 1e-5
# epochs-afford: SGD-1's opening setting, epsilon at most 2.
_RATE, _NOISE, _TARGET = 256 / 60_000, 1.1, 2.0


def _one_release():
    return renyi.rdp(privacy_loss.gaussian(_SIGMA), _ORDER)


@functools.lru_cache(maxsize=4)
def _affordable_epochs(method):
    """The largest whole number of epochs whose epsilon at delta = 1e-5 is at most 2."""

    def epsilon(epochs):
        steps = training.steps_for_epochs(epochs, _RATE)
        return accounting.dp_sgd_epsilon(_RATE, _NOISE, steps, _DELTA, method=method)

    low, high = 1, 2
    while epsilon(high) <= _TARGET:
        low, high = high, 2 * high
    # epsilon(low) <= 2 < epsilon(high): bisect on whole epochs.
    while high - low > 1:
        middle = (low + high) // 2
        if epsilon(middle) <= _TARGET:
            low = middle
        else:
            high = middle
    return low


EXERCISES = [
    number(
        "11.rdp-adds",
        title="Rényi DP of a hundred releases",
        question=(
            "A count (sensitivity $\\Delta = 1$) is released **100** times with fresh Gaussian "
            "noise of $\\sigma = 4$, no subsampling. What is the Rényi divergence "
            "$D_\\alpha$ of order $\\alpha = 8$ of the hundred releases together?"
        ),
        compute=lambda: _RELEASES * _one_release(),
        tolerance=None,
        mistakes=[
            mistake(
                "one-release",
                "That is one release. The attacker sees all hundred answers, and Rényi "
                "divergences of independent releases add.",
                _one_release,
            ),
            mistake(
                "square-root",
                "You multiplied by √100. The standard deviation of the loss grows like "
                "√T, but D_α of T releases is T times that of one.",
                lambda: math.sqrt(_RELEASES) * _one_release(),
            ),
            mistake(
                "sigma-not-squared",
                "One Gaussian release has D_α = αΔ²/(2σ²): the noise enters squared.",
                lambda: _RELEASES * _ORDER / (2 * _SIGMA),
            ),
            mistake(
                "alpha-minus-one",
                "You used α − 1 in place of α. For the Gaussian the (α − 1) of "
                "ln E[e^((α − 1)ℒ)] cancels against the 1/(α − 1) in front: D_α = αΔ²/(2σ²).",
                lambda: _RELEASES * (_ORDER - 1) / (2 * _SIGMA**2),
            ),
        ],
        solution=(
            "For one Gaussian release the privacy loss is $\\mathcal{N}(\\mu, 2\\mu)$ with "
            "$\\mu = \\Delta^2/(2\\sigma^2)$, and "
            "$\\ln \\mathbb{E}[e^{(\\alpha - 1)\\mathcal{L}}] = (\\alpha - 1)\\mu + "
            "(\\alpha - 1)^2 \\mu$, so "
            "$D_\\alpha = \\alpha\\Delta^2/(2\\sigma^2) = 8/32 = 0.25$. Independent releases "
            "multiply moment generating functions, so their $D_\\alpha$ add:\n\n"
            "$$D_8 = 100 \\times 0.25 = 25.$$"
        ),
    ),
    number(
        "11.rdp-to-epsilon",
        title="From one order to $(\\varepsilon, \\delta)$",
        question=(
            "An accountant holds $D_\\alpha = 0.5$ at the order $\\alpha = 10$ for a whole "
            "run, and uses that order alone. Which $\\varepsilon$ at $\\delta = 10^{-5}$ does "
            "the conversion of Balle et al. (2020), the one this lesson uses, give?"
        ),
        compute=lambda: renyi.to_epsilon([_ALPHA], [_RHO], _DELTA),
        mistakes=[
            mistake(
                "mironov-2017",
                "That is the older conversion ε = D_α + ln(1/δ)/(α − 1) (Mironov 2017): "
                "valid, but looser. The lesson's conversion subtracts a little more.",
                lambda: _RHO + math.log(1 / _DELTA) / (_ALPHA - 1),
            ),
            mistake(
                "no-one-minus-inverse",
                "You left out the term ln(1 − 1/α), which lowers ε.",
                lambda: _RHO - (math.log(_DELTA) + math.log(_ALPHA)) / (_ALPHA - 1),
            ),
            mistake(
                "no-log-alpha",
                "You left out the ln α in −(ln δ + ln α)/(α − 1).",
                lambda: _RHO + math.log1p(-1 / _ALPHA) - math.log(_DELTA) / (_ALPHA - 1),
            ),
        ],
        solution=(
            "Balle, Barthe, Gaboardi, Hsu & Sato (2020) turn $D_\\alpha = \\rho$ into "
            "$$\\varepsilon = \\rho + \\ln\\bigl(1 - \\tfrac{1}{\\alpha}\\bigr) - "
            "\\frac{\\ln\\delta + \\ln\\alpha}{\\alpha - 1} = 0.5 + \\ln 0.9 + "
            "\\frac{11.513 - 2.303}{9} \\approx 1.418.$$ Mironov's original conversion "
            "$\\rho + \\ln(1/\\delta)/(\\alpha - 1)$ gives about $1.779$. An accountant does "
            "this at every order it keeps and reports the smallest $\\varepsilon$."
        ),
    ),
    number(
        "11.epochs-afford",
        title="How many epochs you can afford",
        question=(
            "A model is trained by DP-SGD on 60,000 examples with expected batch size 256 "
            "($q = 256/60000$), noise multiplier $\\sigma = 1.1$, and $\\delta = 10^{-5}$: "
            "SGD-1's opening setting. How many whole epochs can it run before the PLD "
            "accountant's $\\varepsilon$ exceeds $2$? (Move SGD-1's epochs slider.)"
        ),
        compute=lambda: _affordable_epochs("pld"),
        tolerance=exact("epochs"),
        mistakes=[
            mistake(
                "rdp",
                "That is the count by the RDP accountant, which reports a larger ε for "
                "the same run (SGD-3): with the PLD's tighter ε you can train longer.",
                lambda: _affordable_epochs("rdp"),
            ),
            mistake(
                "steps",
                "That is the number of steps. An epoch is 1/q ≈ 234 steps: give epochs.",
                lambda: training.steps_for_epochs(_affordable_epochs("pld"), _RATE),
            ),
            mistake(
                "first-over",
                "At that many epochs ε is already above 2: give the last count at which "
                "it is still at most 2.",
                lambda: _affordable_epochs("pld") + 1,
            ),
        ],
        solution=(
            "One epoch is $1/q = 234.375$ steps, so $E$ epochs are "
            "$T = \\lceil E/q \\rceil$ steps, and $\\varepsilon$ grows roughly like "
            "$\\sqrt{T}$: 15 epochs give about $1.134$, 60 about $2.382$. In between, "
            "43 epochs ($T = 10{,}079$) give $\\varepsilon \\approx 1.986$ and 44 epochs "
            "$\\approx 2.011$, so **43** epochs fit in $\\varepsilon = 2$. The RDP "
            "accountant would stop you at 36."
        ),
    ),
    choice(
        "11.why-rdp-larger",
        title="Why RDP reports more",
        question=(
            "For the same DP-SGD run the RDP accountant reports $\\varepsilon = 2.60$ and "
            "the PLD accountant $2.38$. Why is the RDP value larger?"
        ),
        options={
            "a": "RDP's conversion to (ε, δ) uses only a few moments of the privacy loss and "
            "bounds its tail by them; the PLD uses the whole distribution.",
            "b": "RDP assumes replace-one neighbours, which double the sensitivity.",
            "c": "The PLD accountant rounds the losses down, so it reports too little.",
            "d": "RDP composes by adding ε's, as basic composition does.",
        },
        answer="a",
        hints={
            "b": (
                "same-neighbours",
                "Both accountants here use the same add-or-remove neighbours and the same "
                "subsampled Gaussian step.",
            ),
            "c": (
                "pessimistic-pld",
                "The PLD accountant rounds up (lesson 09): its ε is never below the exact one.",
            ),
            "d": (
                "rdp-adds-divergences",
                "RDP adds the divergences D_α, which is exact; the loss comes later, when "
                "D_α is turned into (ε, δ).",
            ),
        },
        praise="Adding D_α is exact; converting a few moments into a tail bound is not.",
        solution=(
            "RDP composes exactly: summing the steps' divergences loses nothing. What "
            "loses is the last step: from $D_\\alpha$, i.e. the moment "
            "$\\mathbb{E}[e^{(\\alpha - 1)\\mathcal{L}}]$, the conversion bounds "
            "$\\delta(\\varepsilon) = \\mathbb{E}[\\max(0, 1 - e^{\\varepsilon - \\mathcal{L}})]$ "
            "by a Chernoff-type inequality, tight only for one shape of loss distribution; "
            "minimising over a list of orders does not close the gap. The PLD accountant "
            "composes the distribution of $\\mathcal{L}$ itself and reads $\\delta$ off it "
            "(pessimistic by its grid, which costs far less): about 9 % less "
            "$\\varepsilon$ at SGD-1's setting."
        ),
    ),
]
