r"""Privacy channels :math:`p(y \mid x_1, \dots, x_n)` as dense arrays.

A privacy channel (Definition 3 of Wu, Xia, He, *Achieving Dalenius' goal*, Wu, Xia & He (2020)) of a query
:math:`f:\mathcal X\to\mathcal Y` with :math:`\mathcal X=\mathcal X_1\times\dots\times\mathcal X_n` is stored as an
array ``W`` of shape ``(|X_1|, ..., |X_n|, |Y|)`` with ``W[x_1, ..., x_n, y] = p(y | x)``: one input axis per
individual (record universes may have different sizes) and the output on the **last** axis.  Each fibre
``W[x, :]`` is a probability mass function over :math:`\mathcal Y`.  Flattening the input axes enumerates the
databases in :func:`itertools.product` order (last coordinate fastest), giving the row-stochastic matrix
``W.reshape(-1, |Y|)`` used elsewhere in the toolkit.

The file format read by ``python -m problems capacity --channel PATH.npy`` is exactly this array saved with
:func:`numpy.save`.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import InvalidChannelError, InvalidInputError, ShapeMismatchError
from ..priors import validate_pmf

__all__ = [
    "PrivacyChannel",
    "as_channel",
    "joint_prior",
    "validate_channel_array",
    "load_channel",
    "ROW_SUM_TOLERANCE",
]

ROW_SUM_TOLERANCE = 1e-9


def validate_channel_array(array: np.ndarray, *, atol: float = ROW_SUM_TOLERANCE) -> np.ndarray:
    """Check that ``array`` is a conditional pmf over its last axis and return it as a float array.

    Requirements: at least 2 dimensions (one input axis and the output axis), every axis of length >= 1,
    finite entries, entries >= -atol, and every fibre along the last axis summing to 1 within ``atol``.
    Tiny negative entries (>= -atol) are clipped to 0 and fibres renormalised.

    Raises
    ------
    InvalidChannelError
        Naming the offending entry or fibre and what is valid.
    """
    try:
        w = np.array(array, dtype=float)
    except (TypeError, ValueError) as exc:
        raise InvalidChannelError(
            f"channel must be a numeric array, got {type(array).__name__}: {exc}"
        ) from exc
    if w.ndim < 2:
        raise InvalidChannelError(
            f"channel array must have n >= 1 input axes plus one output axis (ndim >= 2), got shape {w.shape}"
        )
    if any(s == 0 for s in w.shape):
        raise InvalidChannelError(f"every axis of the channel array must be non-empty, got shape {w.shape}")
    if not np.all(np.isfinite(w)):
        idx = tuple(int(v) for v in np.argwhere(~np.isfinite(w))[0])
        raise InvalidChannelError(
            f"channel entry {tuple(int(i) for i in idx)} is {float(w[idx])!r}; entries must be finite probabilities"
        )
    if np.any(w < -atol):
        idx = tuple(int(v) for v in np.argwhere(w < -atol)[0])
        raise InvalidChannelError(f"channel entry {idx} = {w[idx]:.3g} is negative; entries must be >= 0")
    sums = w.sum(axis=-1)
    bad = np.abs(sums - 1.0) > atol * max(1, w.shape[-1])
    if np.any(bad):
        idx = tuple(int(v) for v in np.argwhere(bad)[0])
        raise InvalidChannelError(
            f"p(.|x) for input x = {idx} sums to {sums[idx]:.12g}; every row over the last (output) axis "
            f"must sum to 1 (tolerance {atol:g})"
        )
    w = np.clip(w, 0.0, None)
    return w / w.sum(axis=-1, keepdims=True)


@dataclass(frozen=True, eq=False)
class PrivacyChannel:
    r"""A validated privacy channel :math:`p(y\mid x_1,\dots,x_n)`.

    Attributes
    ----------
    array:
        Read-only float array of shape ``record_sizes + (n_outputs,)``; ``array[x + (y,)] = p(y | x)``.
    """

    array: np.ndarray

    def __post_init__(self) -> None:
        w = validate_channel_array(self.array)
        w.setflags(write=False)
        object.__setattr__(self, "array", w)

    # -- constructors -------------------------------------------------------------------------------------
    @classmethod
    def from_array(cls, array: np.ndarray) -> PrivacyChannel:
        """Validate ``array`` (input axes, then the output axis last) and wrap it."""
        return cls(np.asarray(array))

    @classmethod
    def from_matrix(cls, matrix: np.ndarray, record_sizes: Sequence[int]) -> PrivacyChannel:
        """Build from a row-stochastic matrix with rows in :func:`itertools.product` order of ``record_sizes``."""
        sizes = _check_sizes(record_sizes)
        m = np.asarray(matrix, dtype=float)
        if m.ndim != 2 or m.shape[0] != int(np.prod(sizes)):
            raise ShapeMismatchError(
                f"matrix of shape {m.shape} does not fit record sizes {sizes}: need {int(np.prod(sizes))} rows "
                "(one per database) and one column per output"
            )
        return cls(m.reshape(tuple(sizes) + (m.shape[1],)))

    @classmethod
    def from_query(
        cls,
        record_sizes: Sequence[int],
        query: Callable[[tuple[int, ...]], int],
        noise: np.ndarray,
    ) -> PrivacyChannel:
        r"""Channel :math:`p(y\mid x) = K(y\mid f(x))` of a query followed by output noise.

        Parameters
        ----------
        record_sizes:
            :math:`(|\mathcal X_1|, \dots, |\mathcal X_n|)`; records are the integers ``0..|X_i|-1``.
        query:
            :math:`f`, mapping a database tuple to an integer answer in ``range(noise.shape[0])``.
        noise:
            Row-stochastic matrix :math:`K` of shape ``(number of answers, |Y|)``.
        """
        sizes = _check_sizes(record_sizes)
        k = validate_channel_array(noise)
        if k.ndim != 2:
            raise ShapeMismatchError(f"noise must be a 2-D row-stochastic matrix, got shape {k.shape}")
        answers = np.empty(tuple(sizes), dtype=np.int64)
        for x in itertools.product(*(range(s) for s in sizes)):
            a = query(x)
            if not (isinstance(a, (int, np.integer)) and 0 <= int(a) < k.shape[0]):
                raise InvalidInputError(
                    f"query({x}) = {a!r} is not an answer index in range(0, {k.shape[0]}) "
                    "(the number of rows of the noise matrix)"
                )
            answers[x] = int(a)
        return cls(k[answers])

    # -- shape information --------------------------------------------------------------------------------
    @property
    def record_sizes(self) -> tuple[int, ...]:
        r""":math:`(|\mathcal X_1|, \dots, |\mathcal X_n|)`."""
        return tuple(int(s) for s in self.array.shape[:-1])

    @property
    def n(self) -> int:
        """Number of individuals (input axes)."""
        return self.array.ndim - 1

    @property
    def n_outputs(self) -> int:
        r""":math:`|\mathcal Y|`."""
        return int(self.array.shape[-1])

    @property
    def n_databases(self) -> int:
        r""":math:`|\mathcal X| = \prod_i |\mathcal X_i|`."""
        return int(np.prod(self.record_sizes))

    @property
    def matrix(self) -> np.ndarray:
        """Row-stochastic matrix, one row per database in product order."""
        return self.array.reshape(self.n_databases, self.n_outputs)

    def slices(self, group: Sequence[int]) -> np.ndarray:
        r"""The channel seen from the records ``group`` (0-based individuals) against the rest.

        Returns an array of shape ``(|X_I|, |X_(I)|, |Y|)``: entry ``[a, b, y]`` is
        :math:`p(y \mid x_I = a, x_{(I)} = b)` with both ``a`` and ``b`` in product order of the remaining axes.
        For ``group = [i]`` this is the family of "hyperplanes" in Theorem 2 of Wu, Xia & He (2020) (eq. (42)).
        """
        group = _check_group(group, self.n)
        rest = [j for j in range(self.n) if j not in group]
        w = np.transpose(self.array, list(group) + rest + [self.n])
        gsize = int(np.prod([self.record_sizes[j] for j in group]))
        return w.reshape(gsize, -1, self.n_outputs)

    def to_dict(self) -> dict:
        return {
            "record_sizes": list(self.record_sizes),
            "n_outputs": self.n_outputs,
            "array": self.array.tolist(),
        }


def load_channel(path: str | Path) -> PrivacyChannel:
    """Load a channel saved with :func:`numpy.save` (input axes first, output axis last)."""
    from ..fileio import read_npy

    p = Path(path)
    if not p.exists():
        raise InvalidInputError(
            f"channel file {str(p)!r} does not exist; give a .npy file written by numpy.save"
        )
    return PrivacyChannel(read_npy(p, "channel", InvalidChannelError))


def as_channel(channel) -> PrivacyChannel:
    """``channel`` itself if it is a :class:`PrivacyChannel`, else one built (and validated) from the array."""
    return channel if isinstance(channel, PrivacyChannel) else PrivacyChannel(np.asarray(channel))


def joint_prior(channel: PrivacyChannel, prior) -> np.ndarray:
    """A prior over X = X₁ × … × X_n for ``channel``: shape ``record_sizes``, a pmf (within 1e-9).

    Round-off negatives down to −1e-12 are clipped; the result is renormalised.
    """
    p = np.asarray(prior, dtype=float)
    if p.shape != channel.record_sizes:
        raise ShapeMismatchError(
            f"prior has shape {p.shape}; it must have the channel's record sizes {channel.record_sizes}"
        )
    p = np.where((p < 0) & (p >= -1e-12), 0.0, p)
    validate_pmf(p.reshape(-1), name="prior over X (must sum to 1)")
    return p / p.sum()


def _check_sizes(record_sizes: Sequence[int]) -> list[int]:
    sizes = list(record_sizes)
    if not sizes or not all(isinstance(s, (int, np.integer)) and int(s) >= 1 for s in sizes):
        raise InvalidInputError(
            f"record_sizes must be a non-empty sequence of integers >= 1, got {record_sizes!r}"
        )
    return [int(s) for s in sizes]


def _check_group(group: Sequence[int], n: int) -> list[int]:
    g = [int(i) for i in group]
    if not g or len(set(g)) != len(g) or any(i < 0 or i >= n for i in g):
        raise InvalidInputError(
            f"group {list(group)!r} must be a non-empty list of distinct individuals in range(0, {n}) (0-based)"
        )
    return g
