"""The data layout of a kernel link that holds a cuda-coop provider (compile tier, no GPU).

nvJitLink keeps the first module's data layout. numba-cuda-mlir's has 64-bit shared-memory pointers,
and so has NVRTC 13.0's; a link holding a provider therefore starts with a layout-only module with
32-bit shared pointers (``_seams._link.link_with_short_shared_pointers``). What that buys in SASS is checked
against the nvcc twins in test_sass_parity.py (the shared accesses keep their immediate offsets) and
on the GPU by every kernel of the GPU tier; here: the layout, the module for each arch, and the link order.
"""

from __future__ import annotations

import pytest

pytest.importorskip("numba_cuda_mlir", reason="needs the numba-cuda-mlir extra")

from numba_cuda_mlir import linker as _linker
from numba_cuda_mlir.lowering_utilities.llvm_utils import NVPTX64_DATALAYOUT
from numba_cuda_mlir.numba_cuda import types

from cuda.coop.numba_mlir import _seams
from cuda.coop.numba_mlir._seams import _link as seams_link
from tests.helpers.nvrtc import LTOIR_MAGIC


def test_the_layout_is_numba_cuda_mlirs_with_32_bit_shared_pointers() -> None:
    specs = seams_link.short_shared_layout().split("-")
    assert "p3:32:32:32" in specs
    assert [s for s in specs if s != "p3:32:32:32"] == NVPTX64_DATALAYOUT.split("-")


@pytest.mark.parametrize("arch", ["sm_75", "sm_80", "sm_89", "sm_90", "sm_90a", "sm_100", "sm_100a", "sm_120"])
def test_the_layout_module_compiles_for(arch: str) -> None:
    assert seams_link.layout_ltoir(arch).startswith(LTOIR_MAGIC)


def _device_ltoir(symbol: str) -> bytes:
    def add(a, b):
        return a + b

    with _seams.assumed_compute_capability((9, 0)):
        ltoir, _ = _seams.compile_device_ltoir(add, (types.int32, types.int32), symbol)
    return ltoir


@pytest.fixture(scope="module")
def modules() -> dict[str, bytes]:
    """Real LTO-IR: a kernel's stand-in, a provider's (registered as one), and an unrelated library's."""
    provider = seams_link.link_with_short_shared_pointers(_device_ltoir("cuda_coop_test_layout_provider"), toolkit="")
    return {"kernel": _device_ltoir("cuda_coop_test_layout_kernel"), "provider": provider,
            "library": _device_ltoir("cuda_coop_test_layout_library")}


def _order(link: object, modules: dict[str, bytes]) -> list[str]:
    names = {code: name for name, code in modules.items()} | {seams_link.layout_ltoir("sm_90"): "layout"}
    return [names[bytes(o.code)] for o in link._object_codes]  # type: ignore[attr-defined]


def _link(modules: dict[str, bytes], *names: str) -> object:
    link = _linker.Linker(cc=(9, 0))
    for name in names:
        link.add_ltoir(modules[name])
    return link.recreate_with_lto(kernel_ltoir=modules["kernel"])


def test_a_link_with_a_provider_starts_with_the_layout_module(modules: dict[str, bytes]) -> None:
    assert _order(_link(modules, "library", "provider"), modules) == ["layout", "kernel", "library", "provider"]


def test_a_link_without_a_provider_is_numba_cuda_mlirs(modules: dict[str, bytes]) -> None:
    assert _order(_link(modules, "library"), modules) == ["kernel", "library"]


def test_relinking_keeps_one_layout_module_first(modules: dict[str, bytes]) -> None:
    again = _link(modules, "provider").recreate_with_lto(kernel_ltoir=modules["kernel"])  # type: ignore[attr-defined]
    assert _order(again, modules)[0] == "layout"
    assert _order(again, modules).count("layout") == 1


def test_the_link_key_reads_every_linker_option_and_no_module_given_by_path() -> None:
    """Each link option is in the key; a library linked by path (not bytes) is not in hand, so such a link is
    linked, never cached."""
    from types import SimpleNamespace

    from cuda.core import LinkerOptions

    from cuda.coop._numba._link import link_inputs_key

    def linker(*codes: object, **options: object) -> object:
        linked = LinkerOptions(arch="sm_90", link_time_optimization=True, **options)
        return SimpleNamespace(_object_codes=list(codes), _get_linker_options=lambda ptx: linked)

    def _link_inputs_key(linker: object, dsl: str = "numba_mlir") -> str | None:
        return link_inputs_key(linker, dsl)

    kernel = SimpleNamespace(code=b"kernel", code_type="ltoir", name="kernel")
    base = _link_inputs_key(linker(kernel))
    assert base is not None and base == _link_inputs_key(linker(kernel))
    for option in ({"max_register_count": 32}, {"lineinfo": True}, {"ptxas_options": "-O1"}):
        assert _link_inputs_key(linker(kernel, **option)) not in (base, None), option
    assert _link_inputs_key(linker(kernel), "numba_cuda") not in (base, None)  # the same modules from the other DSL
    assert _link_inputs_key(linker(kernel, SimpleNamespace(code="/lib/libx.a", code_type="library", name="x"))) is None
