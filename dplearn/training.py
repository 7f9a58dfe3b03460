"""A real DP-SGD run in numpy: logistic regression on a data set that ships with scikit-learn.

DP-SGD (Abadi et al., "Deep learning with differential privacy", CCS 2016) trains a model
with many small noisy steps. Each step

1. draws a batch by Poisson sampling: every training example joins it independently with
   probability q (the sampling rate), so the batch size is random, q n on average;
2. computes one gradient per example and clips each to Euclidean norm at most C, so that
   adding or removing one person moves the sum of the clipped gradients by at most C;
3. adds Gaussian noise of standard deviation sigma C to that sum (sigma is the *noise
   multiplier*) and steps against it, divided by the expected batch size q n.

Step 3 is the subsampled Gaussian mechanism of lesson 10 with sensitivity C and noise
sigma C, so every step has the privacy of ``dplearn.subsampling.poisson(gaussian(sigma),
q)`` whatever C is, and a run of T steps is its T-fold composition, which
``dplearn.accounting.dp_sgd_epsilon`` accounts for. The non-private baseline is the same
loop with neither clipping nor noise.

The model is a logistic regression: weights w (the last one multiplies a constant 1, the
intercept), predicted probability sigmoid(x . w), loss ln(1 + e^(x.w)) - y (x.w). Its
per-example gradient is (sigmoid(x . w) - y) x, computed for all examples at once.

Taught in: 11-account-for-a-training-run.ipynb
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.special import expit

from dplearn import _validation as check

__all__ = [
    "Dataset",
    "TrainingRun",
    "breast_cancer",
    "logistic_loss",
    "per_example_gradients",
    "clip_gradients",
    "accuracy",
    "steps_for_epochs",
    "dp_sgd",
    "non_private_sgd",
]


@dataclass(frozen=True)
class Dataset:
    """Standardised features (with a last column of ones) and 0/1 labels, split in two.

    Attributes:
      name: what the data are.
      train_features: (n, d) array, each column but the last of mean 0 and standard
        deviation 1 over the training examples; the last column is 1 (the intercept).
      train_labels: (n,) array of 0.0 and 1.0.
      test_features: (m, d) array, standardised with the training examples' statistics.
      test_labels: (m,) array of 0.0 and 1.0.
    """

    name: str
    train_features: np.ndarray
    train_labels: np.ndarray
    test_features: np.ndarray
    test_labels: np.ndarray

    @property
    def size(self):
        """Number of training examples n."""
        return int(self.train_labels.size)

    @property
    def dimension(self):
        """Number of weights d (features plus the intercept)."""
        return int(self.train_features.shape[1])


def breast_cancer(test_fraction=0.25, *, rng):
    """The Wisconsin diagnostic breast cancer data (569 tumours, 30 features, benign or not).

    It ships with scikit-learn (``sklearn.datasets.load_breast_cancer``), so nothing is
    downloaded. Label 1 is "benign". The split is drawn with rng; features are
    standardised with the training part's mean and standard deviation only, so the test
    part tells nothing to the model.

    Args:
      test_fraction: share of the examples kept for testing, in (0, 1).
      rng: a numpy.random.Generator that draws the split.

    Taught in: 11-account-for-a-training-run.ipynb
    """
    from sklearn.datasets import load_breast_cancer

    test_fraction = check.probability_open("test_fraction", test_fraction, scalar=True)
    rng = check.generator(rng)
    features, labels = load_breast_cancer(return_X_y=True)
    count = labels.size
    test_count = int(round(test_fraction * count))
    if not 1 <= test_count <= count - 2:
        raise ValueError(
            f"test_fraction must leave at least one test and two training examples, "
            f"got {test_fraction!r}"
        )
    order = rng.permutation(count)
    test, train = order[:test_count], order[test_count:]
    mean = features[train].mean(axis=0)
    spread = features[train].std(axis=0)
    # A constant column would divide by zero; it carries nothing, keep it at 0.
    spread[spread == 0] = 1.0

    def standardised(rows):
        """The rows' features standardised on the training rows, plus a column of ones."""
        return np.column_stack(((features[rows] - mean) / spread, np.ones(rows.size)))

    return Dataset(
        name="breast cancer (Wisconsin diagnostic, scikit-learn)",
        train_features=standardised(train),
        train_labels=labels[train].astype(float),
        test_features=standardised(test),
        test_labels=labels[test].astype(float),
    )


def _check_model(weights, features, labels):
    features = check.finite("features", features)
    if features.ndim != 2:
        raise ValueError(f"features must be a 2-d array (examples, weights), got {features.shape}")
    weights = check.finite("weights", weights)
    if weights.shape != (features.shape[1],):
        raise ValueError(
            f"weights must have one value per feature column ({features.shape[1]}), "
            f"got shape {weights.shape}"
        )
    labels = check.finite("labels", labels)
    if labels.shape != (features.shape[0],) or not np.all((labels == 0) | (labels == 1)):
        raise ValueError(f"labels must be one 0 or 1 per example, got {labels!r}")
    return weights, features, labels


def logistic_loss(weights, features, labels):
    """Mean logistic loss ln(1 + e^z) - y z over the examples, z = x . w (stable for any z).

    Taught in: 11-account-for-a-training-run.ipynb
    """
    weights, features, labels = _check_model(weights, features, labels)
    scores = features @ weights
    return float(np.mean(np.logaddexp(0.0, scores) - labels * scores))


def per_example_gradients(weights, features, labels):
    """One gradient of the logistic loss per example: row i is (sigmoid(x_i . w) - y_i) x_i.

    Taught in: 11-account-for-a-training-run.ipynb
    """
    weights, features, labels = _check_model(weights, features, labels)
    return _gradients(weights, features, labels)


def _gradients(weights, features, labels):
    return (expit(features @ weights) - labels)[:, None] * features


def clip_gradients(gradients, clip_norm):
    """Each row scaled by min(1, C / its Euclidean norm): no row longer than C afterwards.

    Args:
      gradients: (n, d) array, one gradient per row.
      clip_norm: C, finite and > 0.

    Taught in: 11-account-for-a-training-run.ipynb
    """
    gradients = check.finite("gradients", gradients)
    if gradients.ndim != 2:
        raise ValueError(
            f"gradients must be a 2-d array (examples, weights), got {gradients.shape}"
        )
    clip_norm = check.positive("clip_norm", clip_norm, scalar=True)
    return _clip(gradients, clip_norm)


def _clip(gradients, clip_norm):
    norms = np.sqrt(np.einsum("ij,ij->i", gradients, gradients))
    # Rows already short enough keep a factor of exactly 1 (a zero row stays zero); only
    # the longer ones are divided, so a tiny norm never overflows the quotient.
    factors = np.ones(norms.shape)
    long = norms > clip_norm
    factors[long] = clip_norm / norms[long]
    return gradients * factors[:, None]


def accuracy(weights, features, labels):
    """Share of examples whose label the model predicts (probability above 1/2 means 1).

    Taught in: 11-account-for-a-training-run.ipynb
    """
    weights, features, labels = _check_model(weights, features, labels)
    return float(np.mean((features @ weights > 0) == (labels == 1)))


def steps_for_epochs(epochs, sampling_rate):
    """Steps of a run of that many epochs: ceil(epochs / q), since one epoch is 1/q steps.

    An epoch is as many steps as take, on average, as many examples as the data set has.
    At q = 256/60000 one epoch is 234.375 steps: 15 epochs are 3,516 steps, 60 are 14,063.
    The array form counts the steps to the end of every epoch in turn.

    Taught in: 11-account-for-a-training-run.ipynb
    """
    rate = _sampling_rate(sampling_rate)
    epochs_array = check.positive("epochs", epochs)
    # A relative nudge so that 60 / (256 / 60000) = 14062.499999... still gives 14,063.
    raw = epochs_array / rate
    steps = np.ceil(raw * (1.0 - 1e-12)).astype(int)
    return int(steps) if np.ndim(steps) == 0 else steps


def _sampling_rate(value):
    rate = check.scalar("sampling_rate", value)
    if not 0.0 < rate <= 1.0:
        raise ValueError(f"sampling_rate must lie in (0, 1], got {value!r}")
    return rate


@dataclass(frozen=True)
class TrainingRun:
    """What a run of (DP-)SGD reports, epoch by epoch.

    Attributes:
      epochs: 1, 2, ..., the epochs at whose end the model was tested.
      steps: steps taken by the end of each epoch (``steps_for_epochs``).
      test_accuracy: share of test examples predicted right at the end of each epoch.
      train_loss: mean logistic loss on the training examples at the end of each epoch.
      epsilon: epsilon at ``delta`` of the steps so far (``dplearn.accounting``); +inf for
        the non-private run, which has no guarantee.
      delta: the delta of ``epsilon``.
      weights: the final weights.
      batch_sizes: the size of every Poisson batch drawn.
      sampling_rate, noise_multiplier, clip_norm, learning_rate: the run's setting
        (clip_norm +inf and noise_multiplier 0 for the non-private run).
    """

    epochs: np.ndarray
    steps: np.ndarray
    test_accuracy: np.ndarray
    train_loss: np.ndarray
    epsilon: np.ndarray
    delta: float
    weights: np.ndarray
    batch_sizes: np.ndarray
    sampling_rate: float
    noise_multiplier: float
    clip_norm: float
    learning_rate: float

    @property
    def private(self):
        """True for a run with clipping and noise (a finite epsilon)."""
        return self.noise_multiplier > 0 and math.isfinite(self.clip_norm)


#: Bounds that keep a run short and its numbers finite: a run of more steps, a
#: larger step size, noise or clipping norm is refused with a ValueError naming it.
MAX_EPOCHS = 200
MAX_STEPS = 20_000
MAX_LEARNING_RATE = 1e3
MAX_NOISE_MULTIPLIER = 1e6
MAX_CLIP_NORM = 1e6


def _bounded(name, value, largest):
    number = check.positive(name, value, scalar=True)
    if number > largest:
        raise ValueError(f"{name} must be at most {largest:g}, got {value!r}")
    return number


def _check_run(data, sampling_rate, epochs, learning_rate, rng):
    if not isinstance(data, Dataset):
        raise ValueError(f"data must be a dplearn.training.Dataset, got {type(data).__name__}")
    rate = _sampling_rate(sampling_rate)
    epochs = check.whole("epochs", epochs, minimum=1, maximum=MAX_EPOCHS)
    if epochs / rate > MAX_STEPS:
        raise ValueError(
            f"epochs must make at most {MAX_STEPS:,} steps at sampling_rate {rate!r} "
            f"(one epoch is 1/q steps), got {epochs!r}"
        )
    learning_rate = _bounded("learning_rate", learning_rate, MAX_LEARNING_RATE)
    rng = check.generator(rng)
    return rate, epochs, learning_rate, rng


def _train(data, rate, noise_multiplier, clip_norm, epochs, learning_rate, rng):
    """The loop shared by both runs; clip_norm inf and noise_multiplier 0 is plain SGD."""
    features, labels = data.train_features, data.train_labels
    count = data.size
    boundaries = steps_for_epochs(np.arange(1, epochs + 1), rate)
    # Two streams spawned from rng, one for the batches and one for the noise: a run
    # without noise draws the same batches from the same seed. Each epoch draws its own
    # block, so the first E epochs of a longer run are the run of E epochs, bit for bit.
    batch_stream, noise_stream = rng.spawn(2)
    private = noise_multiplier > 0
    weights = np.zeros(data.dimension)
    expected_batch = rate * count
    clipping = math.isfinite(clip_norm)
    accuracy_per_epoch, loss_per_epoch, batch_sizes = [], [], []
    step = 0
    for boundary in boundaries:
        memberships = batch_stream.random((int(boundary) - step, count)) < rate
        if private:
            noise = (noise_multiplier * clip_norm) * noise_stream.standard_normal(
                (memberships.shape[0], data.dimension)
            )
        for row, chosen in enumerate(memberships):
            gradients = _gradients(weights, features[chosen], labels[chosen])
            if clipping:
                gradients = _clip(gradients, clip_norm)
            total = gradients.sum(axis=0)
            if private:
                total += noise[row]
            # Divided by the expected batch size, not the drawn one: the drawn size depends
            # on whether one person is in the data set, and it is not noised.
            weights = weights - (learning_rate / expected_batch) * total
        step = int(boundary)
        batch_sizes.append(memberships.sum(axis=1))
        predicted = data.test_features @ weights > 0
        accuracy_per_epoch.append(float(np.mean(predicted == (data.test_labels == 1))))
        scores = features @ weights
        loss_per_epoch.append(float(np.mean(np.logaddexp(0.0, scores) - labels * scores)))
    batch_sizes = np.concatenate(batch_sizes)
    return (
        boundaries,
        np.array(accuracy_per_epoch),
        np.array(loss_per_epoch),
        weights,
        batch_sizes.astype(int),
    )


def dp_sgd(
    data,
    *,
    sampling_rate,
    noise_multiplier,
    clip_norm,
    epochs,
    learning_rate,
    rng,
    delta=1e-5,
    method="pld",
    grid_width=None,
):
    """Trains the logistic regression by DP-SGD and accounts for every epoch.

    Args:
      data: a ``Dataset`` (``breast_cancer(rng=...)``).
      sampling_rate: q, the chance that each example joins a step's batch, in (0, 1].
      noise_multiplier: sigma, in (0, 1e6]: the noise added to the sum of the clipped
        gradients has standard deviation sigma * clip_norm.
      clip_norm: C, in (0, 1e6]: every per-example gradient is clipped to norm C.
      epochs: number of epochs, a whole number in [1, 200], at most 20,000 steps in all
        (one epoch is 1/q steps).
      learning_rate: step size, in (0, 1000].
      rng: a numpy.random.Generator: it draws the batches and the noise.
      delta: the delta at which epsilon is reported, in (0, 1).
      method: "pld" (privacy loss distribution, tight) or "rdp" (Rényi DP), passed to
        ``dplearn.accounting.dp_sgd_epsilon``.
      grid_width: the PLD accountant's grid width h (None: its default, 1e-4); a coarser
        grid is faster and still pessimistic (never below the exact epsilon).

    Returns:
      A ``TrainingRun``; the same rng state gives the same run, bit for bit.

    Taught in: 11-account-for-a-training-run.ipynb
    """
    rate, epochs, learning_rate, rng = _check_run(data, sampling_rate, epochs, learning_rate, rng)
    noise_multiplier = _bounded("noise_multiplier", noise_multiplier, MAX_NOISE_MULTIPLIER)
    clip_norm = _bounded("clip_norm", clip_norm, MAX_CLIP_NORM)
    delta = check.probability_open("delta", delta, scalar=True)
    if method not in ("pld", "rdp"):
        raise ValueError(f"method must be 'pld' or 'rdp', got {method!r}")
    if grid_width is not None and method != "pld":
        raise ValueError(f"grid_width applies to method 'pld' only, got {grid_width!r}")
    options = {} if grid_width is None else {"grid_width": grid_width}
    boundaries, test_accuracy, train_loss, weights, batch_sizes = _train(
        data, rate, noise_multiplier, clip_norm, epochs, learning_rate, rng
    )
    from dplearn import accounting

    epsilon = np.array(
        [
            accounting.dp_sgd_epsilon(
                rate, noise_multiplier, int(steps), delta, method=method, **options
            )
            for steps in boundaries
        ],
        dtype=float,
    )
    return TrainingRun(
        epochs=np.arange(1, epochs + 1),
        steps=boundaries,
        test_accuracy=test_accuracy,
        train_loss=train_loss,
        epsilon=epsilon,
        delta=delta,
        weights=weights,
        batch_sizes=batch_sizes,
        sampling_rate=rate,
        noise_multiplier=noise_multiplier,
        clip_norm=clip_norm,
        learning_rate=learning_rate,
    )


def non_private_sgd(data, *, sampling_rate, epochs, learning_rate, rng):
    """The same loop as ``dp_sgd`` with neither clipping nor noise: the baseline to beat.

    Its ``epsilon`` is +inf at every epoch: without noise, one output can give away
    whether a person is in the data.

    Taught in: 11-account-for-a-training-run.ipynb
    """
    rate, epochs, learning_rate, rng = _check_run(data, sampling_rate, epochs, learning_rate, rng)
    boundaries, test_accuracy, train_loss, weights, batch_sizes = _train(
        data, rate, 0.0, math.inf, epochs, learning_rate, rng
    )
    return TrainingRun(
        epochs=np.arange(1, epochs + 1),
        steps=boundaries,
        test_accuracy=test_accuracy,
        train_loss=train_loss,
        epsilon=np.full(epochs, np.inf),
        delta=0.0,
        weights=weights,
        batch_sizes=batch_sizes,
        sampling_rate=rate,
        noise_multiplier=0.0,
        clip_norm=math.inf,
        learning_rate=learning_rate,
    )
