"""Many DP-SGD runs of lesson 11's logistic regression at once, for lesson 14's audits.

``dplearn.auditing`` trains thousands of models of lesson 11's private run, with and without
canary examples; training them one by one with ``dplearn.training.dp_sgd`` would be too
slow to wait for in a lesson. ``train_many`` runs the same algorithm on all of them together
(one row of weights per model), each with its own batches and noise.

Taught in: 14-attack-the-model.ipynb
"""

from __future__ import annotations

import math

import numpy as np
import threadpoolctl
from scipy import sparse, special

from dplearn import training

__all__ = ["train_many", "bernoulli_successes"]


def train_many(data, extra_features, extra_labels, extra_in, run, rng):
    """Many DP-SGD runs of lesson 11's logistic regression at once (one row of weights each).

    Each model trains on the training examples plus the extra ones it includes. The same
    algorithm as ``dplearn.training.dp_sgd`` (zero start, ceil(epochs / q) steps, Poisson
    batches, per-example clipping to C, noise sigma C on the sum, a step of the learning
    rate over the expected batch q n of the n training examples), vectorised over models:
    every model draws its own batches and noise from ``rng``.

    Args:
      extra_in: (models, extras) booleans, which extra examples each model's data holds.
    """
    features = np.vstack([data.train_features, extra_features])
    labels = np.concatenate([data.train_labels, extra_labels])
    models = extra_in.shape[0]
    held = np.concatenate([np.ones((models, data.size), dtype=bool), extra_in], axis=1)
    steps = int(training.steps_for_epochs(run.epochs, run.sampling_rate))
    weights = np.zeros((models, features.shape[1]))
    scale = run.learning_rate / (run.sampling_rate * data.size)
    # Small products, many steps: one BLAS thread is far faster than two that wait for
    # each other. Models are trained a block at a time, whose arrays stay in the
    # processor's cache (faster for thousands of models than all at once).
    with threadpoolctl.threadpool_limits(limits=1, user_api="blas"):
        for start in range(0, models, _BLOCK):
            block = slice(start, start + _BLOCK)
            trainer = _Trainer(features, labels, held[block].ravel(), run)
            for _ in range(steps):
                weights[block] -= scale * trainer.noisy_sum(weights[block], rng)
    return weights


#: How many models are trained together: blocks of 250 are faster than blocks of 125 (more
#: steps of overhead) and than all models at once (arrays too large for the cache).
_BLOCK = 250


class _Trainer:
    """One DP-SGD step of many models of one logistic regression.

    The step is the noisy sum of their clipped per-example gradients, each over its own
    Poisson batch.
    """

    def __init__(self, features, labels, held, run):
        self.features = features
        self.transposed = np.ascontiguousarray(features.T)
        self.labels = labels
        self.norms = np.linalg.norm(features, axis=1)
        self.held = held
        self.run = run

    def noisy_sum(self, weights, rng):
        """The noisy sum of each model's clipped per-example gradients over its Poisson batch."""
        models, width = weights.shape[0], self.features.shape[0]
        # The batches of all models at once: the places, among models x examples, where
        # independent Bernoulli(q) draws succeed; only examples a model holds are kept.
        places = bernoulli_successes(models * width, self.run.sampling_rate, rng)
        places = places[self.held[places]]
        rows, columns = np.divmod(places, width)
        scores = (weights @ self.transposed).ravel()[places]
        residual = special.expit(scores) - self.labels[columns]
        # Each per-example gradient is residual * x, of norm |residual| |x|: clipping to C
        # scales it by min(1, C / that norm) (an exact zero stays zero).
        size = np.abs(residual) * self.norms[columns]
        factor = np.ones(size.shape)
        long = size > self.run.clip_norm
        factor[long] = self.run.clip_norm / size[long]
        starts = np.searchsorted(rows, np.arange(models + 1))
        batches = sparse.csr_matrix((residual * factor, columns, starts), shape=(models, width))
        total = np.asarray(batches @ self.features)
        noise = self.run.noise_multiplier * self.run.clip_norm
        return total + noise * rng.standard_normal(weights.shape)


def bernoulli_successes(size, rate, rng):
    """The sorted places of the successes among ``size`` independent Bernoulli(rate) draws.

    They are the running sums of geometric gaps (draws up to and including the next
    success): far fewer numbers to draw than one per place when the rate is small.
    """
    if rate >= 1.0:
        return np.arange(size)
    expected = size * rate
    block = int(expected + 8.0 * math.sqrt(expected) + 16)
    places = np.cumsum(rng.geometric(rate, block)) - 1
    while places[-1] < size:  # rare: more successes than the block holds
        places = np.concatenate([places, places[-1] + np.cumsum(rng.geometric(rate, block))])
    return places[: np.searchsorted(places, size)]
