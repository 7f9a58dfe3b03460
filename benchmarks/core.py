"""Speed of the numerical core, as ratios against baselines measured in the same run.

Goals: the Gaussian delta over 10,000 epsilons within 2x of a bare vectorised scipy
expression and at least 1,000x faster than dp_accounting's PLD (build + queries);
10**6 inverse-CDF Laplace samples within 1.5x of numpy's Generator.laplace.
"""

from __future__ import annotations

import time

import numpy as np
from scipy import special

from dplearn import mechanisms, privacy_loss


def best_of(function, repeat=7, number=3):
    """Best time per call, in seconds (the least disturbed of several runs)."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            function()
        times.append((time.perf_counter() - start) / number)
    return min(times)


def bare_gaussian_delta(epsilons, sigma):
    """The textbook expression, vectorised, with no care for tails: the speed baseline."""
    r = 1.0 / sigma
    return special.ndtr(r / 2 - epsilons / r) - np.exp(epsilons) * special.ndtr(
        -r / 2 - epsilons / r
    )


def main():
    sigma = np.sqrt(3.0)
    epsilons = np.linspace(0.0, 10.0, 10_000)
    pair = privacy_loss.gaussian(sigma)
    ours = best_of(lambda: pair.delta(epsilons))
    bare = best_of(lambda: bare_gaussian_delta(epsilons, sigma))
    print(
        f"Gaussian delta, 10,000 epsilons: dplearn {ours * 1e3:.2f} ms, "
        f"bare scipy {bare * 1e3:.2f} ms, ratio {ours / bare:.2f}x (goal <= 2x)"
    )
    try:
        from dp_accounting.pld import privacy_loss_distribution
    except ImportError:
        print("dp_accounting not installed: PLD comparison skipped")
    else:

        def with_pld():
            distribution = privacy_loss_distribution.from_gaussian_mechanism(sigma)
            return distribution.get_delta_for_epsilon(epsilons)

        theirs = best_of(with_pld, repeat=3, number=1)
        print(
            f"dp_accounting PLD (build + 10,000 queries): {theirs * 1e3:.1f} ms, "
            f"dplearn is {theirs / ours:,.0f}x faster (goal >= 1,000x)"
        )

    rng = np.random.default_rng(0)
    size = 1_000_000
    sampler = best_of(lambda: mechanisms.sample_laplace_inverse_cdf(size, rng=rng))
    numpy_laplace = best_of(lambda: rng.laplace(0.0, 1.0, size))
    print(
        f"10^6 Laplace samples: inverse CDF {sampler * 1e3:.1f} ms, "
        f"Generator.laplace {numpy_laplace * 1e3:.1f} ms, "
        f"ratio {sampler / numpy_laplace:.2f}x (goal <= 1.5x)"
    )


if __name__ == "__main__":
    main()
