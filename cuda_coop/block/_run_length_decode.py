"""Block run-length decode (``cub::BlockRunLengthDecode``): public stub; spec in ``_specs/block_run_length_decode``."""

from __future__ import annotations

from typing import Any

from .._dsl._primitive import primitive

__all__ = ["run_length_decode"]


@primitive("block_run_length_decode", "run_length_decode", module="block")
def run_length_decode(
    run_values: Any, decoded_items: Any, *, run_lengths: Any = None, run_offsets: Any = None,
    total_decoded_size: Any = None, window_offset: Any = None, relative_offsets: Any = None,
    runs_per_thread: int | None = None, decoded_items_per_thread: int | None = None,
) -> None:
    """Decode one window of the block's runs into each thread's ``decoded_items``.

    The runs are given in blocked order across the block (thread ``t`` holds runs ``t*R .. t*R+R-1``)
    by their values and either ``run_lengths`` (then ``total_decoded_size`` receives the decoded size,
    the same in every thread) or ``run_offsets`` (where each run starts). A window is
    ``block_threads * decoded_items_per_thread`` consecutive decoded items starting at ``window_offset``;
    loop while ``window_offset < total_decoded_size[0]``, adding the window size each time. Each call
    restages the runs, so the runs must be the same in every call of the loop.
    """
