"""Refusals at compile time: a kernel's call marked ``# call`` is refused with a message naming it.

    refused(kernel, (I32, I32), "out_keys=", "private copy")   # the call's file:line and every needle
"""

from __future__ import annotations

import inspect
from typing import Any

import pytest

__all__ = ["call_line", "refused"]


def call_line(kernel: Any) -> str:
    """``file:line`` of the kernel's line marked ``# call``."""
    lines, first = inspect.getsourcelines(kernel.py_func)
    (offset,) = [k for k, line in enumerate(lines) if line.rstrip().endswith("# call")]
    return f"{inspect.getsourcefile(kernel.py_func)}:{first + offset}"


def refused(kernel: Any, sig: tuple[Any, ...], *needles: str, block: Any = (128,)) -> str:
    """Compile ``kernel`` for sm_90 and expect a :class:`cuda.coop.errors.UsageError` at its ``# call`` line whose
    message holds every needle; returns the message."""
    from cuda.coop.errors import UsageError
    from cuda.coop.numba_mlir import compile_kernel

    with pytest.raises(UsageError) as info:
        compile_kernel(kernel, sig, block=block)
    message = str(info.value)
    assert call_line(kernel) in message, message
    for needle in needles:
        assert needle in message, f"{needle!r} not in: {message}"
    return message
