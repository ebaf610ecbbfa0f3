"""The shape of a GPU test case's launch: threads of its block and elements of its tile.

A case dataclass that has ``block`` (the launch's block shape) inherits :class:`Threads`; one that also has
``ipt`` (items per thread) inherits :class:`Tile`.
"""

from __future__ import annotations

import math


class Threads:
    """``threads``: the product of the case's ``block``."""

    block: tuple[int, ...]

    @property
    def threads(self) -> int:
        return math.prod(self.block)


class Tile(Threads):
    """``tile``: the elements of one block's tile, ``threads * ipt``."""

    ipt: int

    @property
    def tile(self) -> int:
        return self.threads * self.ipt
