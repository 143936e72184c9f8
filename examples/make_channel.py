"""Write ``examples/channel.npy``: the privacy channel of the README's ``capacity`` example.

Randomized response on the XOR of two binary records: the output is XOR(x_1, x_2), flipped with probability
0.2.  The array has one axis per individual and the output on the last axis, ``W[x_1, x_2, y] = p(y | x)``.
Its individual channel capacity is C₁ ≈ 0.1927 nats (0.2781 bits).

Run from the repository root: ``python examples/make_channel.py``.
"""

from pathlib import Path

import numpy as np

flip = 0.2
W = np.empty((2, 2, 2))
for x1 in range(2):
    for x2 in range(2):
        y = x1 ^ x2
        W[x1, x2, y], W[x1, x2, 1 - y] = 1 - flip, flip
np.save(Path(__file__).with_name("channel.npy"), W, allow_pickle=False)
