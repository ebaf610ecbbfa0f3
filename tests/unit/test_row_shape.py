"""``coop.row_shape``: threads and items per thread for one-block-per-row kernels (``cuda_coop/_shape.py``)."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import cuda.coop as coop
from cuda.coop.errors import UsageError


@pytest.mark.parametrize(
    ("dtype", "items"),
    [(np.uint8, 32), (np.int16, 16), (np.float16, 16), (ml_dtypes.bfloat16, 16), (np.float32, 8), ("int32", 8),
     (np.float64, 4), (np.complex128, 2), (np.dtype("V64"), 1)],
)
def test_items_per_thread_are_32_bytes(dtype: object, items: int) -> None:
    assert coop.row_shape(1, dtype).items_per_thread == items


@pytest.mark.parametrize(
    ("n", "threads"),
    [(1, 32), (256, 32), (257, 64), (1000, 128), (1024, 128), (1025, 256), (4096, 512), (8192, 1024),
     (8193, 1024), (10**7, 1024)],
)
def test_threads_the_smallest_power_of_two_whose_tile_holds_the_row(n: int, threads: int) -> None:
    shape = coop.row_shape(n, np.float32)
    assert shape == coop.RowShape(threads=threads, items_per_thread=8)
    assert shape.tile == threads * 8
    assert shape.tiles(n) == -(-n // shape.tile)
    assert shape.tiles(n) == 1 or threads == 1024          # a longer row only where the block is the largest
    assert str(shape) == f"{threads}x8"


def test_the_issue_s_measured_shapes_are_the_rule_s() -> None:
    """The two shapes issue 41 measured as 1.6x faster: softmax of 4096 float32 at 512x8, argmax of 1024 at 128x8."""
    assert str(coop.row_shape(4096, np.float32)) == "512x8"
    assert str(coop.row_shape(1024, np.float32)) == "128x8"


def test_max_threads_caps_the_block_and_the_row_takes_more_tiles() -> None:
    shape = coop.row_shape(16384, np.float16, max_threads=512)
    assert (shape.threads, shape.items_per_thread, shape.tiles(16384)) == (512, 16, 2)
    assert coop.row_shape(100, np.float32, max_threads=32).threads == 32


@pytest.mark.parametrize("n", [0, -5, 1.5, True, "8", None])
def test_a_row_length_that_is_not_a_positive_int_is_refused(n: object) -> None:
    with pytest.raises(UsageError, match="n is the row's length"):
        coop.row_shape(n, np.float32)  # type: ignore[arg-type]


@pytest.mark.parametrize("max_threads", [0, 16, 48, 2048, 1000, True])
def test_max_threads_must_be_a_power_of_two_from_32_to_1024(max_threads: int) -> None:
    with pytest.raises(UsageError, match="power of two from 32 to 1024"):
        coop.row_shape(1024, np.float32, max_threads=max_threads)


@pytest.mark.parametrize("dtype", [object(), "not-a-type", np.dtype("V0")])
def test_a_dtype_numpy_does_not_take_is_refused(dtype: object) -> None:
    with pytest.raises(UsageError, match="row_shape\\(dtype="):
        coop.row_shape(1024, dtype)


def test_numpy_integers_count_as_row_lengths() -> None:
    """A row length read from a NumPy shape or computed with NumPy is a NumPy integer: it is an integer here."""
    assert coop.row_shape(np.int64(1024), np.float32, max_threads=np.int32(64)) == coop.row_shape(1024, np.float32,
                                                                                                   max_threads=64)
