"""Small statistics shared by odds sampling and sweeps: seeds, intervals, paired tests.

Kept free of third-party libraries so a sweep worker needs nothing beyond hexlore itself.
"""

from __future__ import annotations

import hashlib
import math

Z95 = 1.959963984540054  # two-sided 95% normal quantile


def derive_seed(base: int, index: int, purpose: str = "game") -> int:
    """The seed of the ``index``-th game (or sample) of a run seeded ``base``.

    A hash, not ``base + index``, so neighbouring runs do not share games; it depends only on
    ``(base, index)``, never on which worker or backend plays the game.
    """
    digest = hashlib.sha256(f"hexlore-{purpose}:{base}:{index}".encode()).hexdigest()
    return int(digest[:15], 16)


def wilson(successes: int, trials: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a proportion (good near 0 and 1, unlike the normal one)."""
    if trials <= 0:
        return 0.0, 1.0
    p = successes / trials
    denom = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denom
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def mean_interval(values: list[float], z: float = Z95) -> tuple[float, float, float]:
    """Mean and normal-approximation 95% interval of the mean."""
    n = len(values)
    if n == 0:
        return 0.0, 0.0, 0.0
    mean = sum(values) / n
    if n == 1:
        return mean, mean, mean
    var = sum((v - mean) ** 2 for v in values) / (n - 1)
    half = z * math.sqrt(var / n)
    return mean, mean - half, mean + half


def mcnemar_p(b: int, c: int) -> float:
    """Exact two-sided McNemar p-value: of ``b + c`` discordant pairs, ``b`` went one way."""
    n = b + c
    if n == 0:
        return 1.0
    k = min(b, c)
    tail = sum(math.comb(n, i) for i in range(k + 1)) / 2 ** n
    return min(1.0, 2 * tail)
