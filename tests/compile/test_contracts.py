"""Every argument contract of every public primitive is enforced (compile tier, no GPU).

The cases are generated from the specs (``tests/helpers/contracts.py``): for each array parameter of each form
of each public primitive, a shared or local array in the wrong memory space, a constant-size array too small for
what the call touches (or longer than the ``items_per_thread=`` it is given with), a negative constant offset, and
one array passed for two parameters that may not share one. Each is refused at compile time with a
``cuda.coop.errors`` exception that names the call's line and the argument. A family that declares its parameters
gets these cases without writing them.
"""

from __future__ import annotations

import pytest

pytest.importorskip("numba_cuda_mlir", reason="needs the numba-cuda-mlir extra")

from numba_cuda_mlir.numba_cuda import types

from cuda.coop._dsl._primitive import all_public_primitives
from cuda.coop.errors import CoopError
from cuda.coop.numba_mlir import compile_kernel
from tests.helpers import contracts

MISUSES = contracts.misuses()


def test_every_public_primitive_with_an_array_has_cases() -> None:
    covered = {m.id.split(".")[0] + "." + m.id.split(".")[1] for m in MISUSES}
    with_arrays = {p.name for p in all_public_primitives()
                   if any(q.memory for ov in p.method.overloads for q in ov.all_params)}
    assert covered == with_arrays and len(covered) > 45
    kinds = {m.id.rsplit(".", 1)[1] for m in MISUSES}
    assert kinds == {"space", "global", "shared", "extent", "align", "offset", "alias"}


@pytest.mark.parametrize("misuse", MISUSES, ids=lambda m: m.id)
def test_misuse_is_refused(misuse: contracts.Misuse) -> None:
    sig = (types.int32[::1],) * misuse.globals_
    with pytest.raises(CoopError) as info:
        compile_kernel(contracts.kernel(misuse.source, misuse.name), sig, block=contracts.BLOCK)
    message = str(info.value)
    assert f"<contract case {misuse.name}>:" in message, message  # the call's place
    for words in misuse.expect:
        assert words in message, f"{words!r} not in: {message}"
