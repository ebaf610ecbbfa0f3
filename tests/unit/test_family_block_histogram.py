"""``cub::BlockHistogram`` spec: shape against CUB's header, Request -> plan -> render, refusals, public
signatures (host only).

Regenerate the golden after an intended change with
``python -m pytest --update-goldens tests/unit/test_family_block_histogram.py`` and review the diff.
"""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import pytest

import cuda.coop as coop
from cuda.coop._provider import plan
from cuda.coop._specs import ArgKind, Request, bind, get_primitive
from cuda.coop._specs.block_histogram import BlockHistogramAlgorithm
from cuda.coop.errors import SpecError, UsageError
from tests.helpers.golden import after_preamble, check_golden, render_requests

HEADER = Path(coop.__file__).parent / "_headers" / "include" / "cub" / "block" / "block_histogram.cuh"
METHODS = ("histogram", "histogram_composite")


def _request(method: str = "histogram", **kw: object) -> Request:
    params: dict[str, object] = {"dtype": "uint8", "items_per_thread": 4, "bins": 256, "counter_type": "uint32"}
    params.update(kw)
    return Request("block_histogram", method, "array", **params)


def test_algorithm_enum_is_cubs() -> None:
    if not HEADER.is_file():
        pytest.skip(f"no bundled CUB header at {HEADER}")
    body = re.search(r"enum BlockHistogramAlgorithm\s*\{(.*?)\};", HEADER.read_text(encoding="utf-8"), re.S)
    assert body is not None
    assert [m.name for m in BlockHistogramAlgorithm] == re.findall(r"^\s*(BLOCK_HISTO_\w+)\s*,", body.group(1), re.M)
    assert [m.short_name for m in BlockHistogramAlgorithm] == ["sort", "atomic"]
    for member in BlockHistogramAlgorithm:
        assert "Overview" in (member.__doc__ or "") and "Performance considerations" in (member.__doc__ or "")


def test_template_parameters_in_cubs_order() -> None:
    spec = get_primitive("block_histogram")
    assert [(t.name, t.cpp) for t in spec.tparams] == [
        ("dtype", "T"),
        ("block_dim_x", "BlockDimX"),
        ("items_per_thread", "ItemsPerThread"),
        ("bins", "Bins"),
        ("algorithm", "Algorithm"),
        ("block_dim_y", "BlockDimY"),
        ("block_dim_z", "BlockDimZ"),
    ]
    assert spec.header == "cub/block/block_histogram.cuh" and spec.example == "block_histogram"
    assert [(m.name, m.cpp) for m in spec.methods] == [
        ("histogram_init", "InitHistogram"), ("histogram", "Histogram"), ("histogram_composite", "Composite")
    ]
    (init,) = spec.method("histogram_init").overloads
    assert [(p.name, p.kind, p.type) for p in init.params] == [("counters", ArgKind.POINTER, "dtype")]
    for method in spec.methods[1:]:
        (overload,) = method.overloads
        kinds = [(p.name, p.kind) for p in overload.params]
        assert kinds == [("samples", ArgKind.ARRAY), ("counters", ArgKind.POINTER)]
        assert not overload.params[0].inout  # CUB's sort algorithm sorts its argument: the wrapper passes a copy


@pytest.mark.parametrize("algorithm", ["sort", "atomic"])
@pytest.mark.parametrize("method", METHODS)
def test_every_method_and_algorithm_renders(method: str, algorithm: str) -> None:
    request = _request(method, algorithm=algorithm, dtype="uint16", bins=300, items_per_thread=3)
    text = render_requests([request], (64, 2))
    cpp = "Histogram" if method == "histogram" else "Composite"
    algo = "cub::BLOCK_HISTO_SORT" if algorithm == "sort" else "cub::BLOCK_HISTO_ATOMIC"
    assert f"cub::BlockHistogram<unsigned short, 64, 3, 300, {algo}, 2, 1>;" in text
    assert f".{cpp}(samples_in, counters);" in text
    assert "unsigned short samples_in[3];" in text  # the caller's samples are never sorted in place


@pytest.mark.parametrize(
    ("dtype", "counter_type", "declaration"),
    [
        ("uint8", "uint32", "void {s}(unsigned char* samples, unsigned int* counters)"),
        ("int32", "int64", "void {s}(int* samples, long long* counters)"),
        ("uint16", "uint16", "void {s}(unsigned short* samples, unsigned short* counters)"),
    ],
)
def test_wrapper_c_abi(dtype: str, counter_type: str, declaration: str) -> None:
    p = plan([_request(dtype=dtype, counter_type=counter_type)], (128,))
    sig = p.signatures[0]
    assert sig.declaration == 'extern "C" __device__ ' + declaration.format(s=sig.symbol)
    counters = next(c for c in sig.params if c.name == "counters")
    assert (counters.kind, counters.role, counters.extent) == (ArgKind.POINTER, "inout", None)


def test_golden_2d() -> None:
    """Everything after the include preamble: both methods and algorithms in a 2-D block."""
    text = render_requests(
        [
            _request("histogram", algorithm="sort"),
            _request("histogram_composite", algorithm="atomic", dtype="int16", bins=100, counter_type="uint64"),
        ],
        (16, 8),
    )
    check_golden("block_histogram_2d", after_preamble(text))  # the include preamble grows with every family


@pytest.mark.parametrize("counter_type", ["int8", "uint8", "int16", "uint16", "int64"])
@pytest.mark.parametrize("method", METHODS)
def test_atomic_needs_a_counter_type_atomic_add_block_takes(method: str, counter_type: str) -> None:
    with pytest.raises(SpecError) as info:
        bind(_request(method, algorithm="atomic", counter_type=counter_type), (128,))
    message = str(info.value)
    assert "algorithm='atomic' adds with atomicAdd_block" in message
    assert f"counters= holds {counter_type}" in message and "algorithm='sort'" in message
    assert "BLOCK_HISTO" not in message
    bind(_request(method, algorithm="sort", counter_type=counter_type), (128,))  # sort adds with plain +=


@pytest.mark.parametrize("counter_type", ["int32", "uint32", "uint64"])
def test_atomic_counter_types(counter_type: str) -> None:
    bind(_request(algorithm="atomic", counter_type=counter_type), (33,))


@pytest.mark.parametrize(("dtype", "block", "most"), [("uint16", (128,), 6080), ("uint64", (4, 4, 4), 6016),
                                                     ("uint8", (33,), 6135)])
def test_sort_bins_must_fit_in_shared_memory(dtype: str, block: tuple[int, ...], most: int) -> None:
    """Two samples per thread (rounded up to 4 bytes) and 8 bytes per bin; the NVRTC tier compiles ``most``."""
    bind(_request(bins=most, dtype=dtype, algorithm="sort"), block)
    with pytest.raises(SpecError) as info:
        bind(_request(bins=most + 1, dtype=dtype, algorithm="sort"), block)
    message = str(info.value)
    assert "algorithm='sort' keeps 8 bytes of shared memory per bin" in message
    assert f"bins={most + 1} with " in message and "algorithm='atomic'" in message
    bind(_request(bins=100_000, dtype=dtype, algorithm="atomic"), block)  # counters are the caller's memory


@pytest.mark.parametrize(("param", "value"), [("dtype", "float32"), ("dtype", "bool"), ("counter_type", "float64")])
def test_non_integer_samples_and_counters_are_refused(param: str, value: str) -> None:
    with pytest.raises(SpecError, match=rf"{param} must be of kind int or uint, got {value}"):
        bind(_request(**{param: value}), (128,))


def test_bins_is_required_and_positive() -> None:
    params = {"dtype": "uint8", "items_per_thread": 4, "counter_type": "uint32"}
    with pytest.raises(SpecError, match=r"missing template parameter bins \(Bins\)"):
        bind(Request("block_histogram", "histogram", "array", **params), (128,))
    with pytest.raises(SpecError, match="bins=0 is out of range; it must be between 1 and 2147483647"):
        bind(_request(bins=0), (128,))


def test_unknown_algorithm_suggests() -> None:
    with pytest.raises(SpecError, match=r"'atomics'.*did you mean 'atomic'"):
        bind(_request(algorithm="atomics"), (128,))


def _parameters(func: object) -> list[tuple[str, str, object]]:
    return [(p.name, p.kind.name, p.default) for p in inspect.signature(func).parameters.values()]  # type: ignore[arg-type]


@pytest.mark.parametrize("name", METHODS)
def test_public_signatures(name: str) -> None:
    empty = inspect.Parameter.empty
    func = getattr(coop.block, name)
    assert _parameters(func) == [
        ("samples", "POSITIONAL_OR_KEYWORD", empty),
        ("counters", "POSITIONAL_OR_KEYWORD", empty),
        ("bins", "KEYWORD_ONLY", empty),
        ("algorithm", "KEYWORD_ONLY", "auto"),
        ("items_per_thread", "KEYWORD_ONLY", None),
    ]
    doc = func.__doc__ or ""
    assert "cuda.syncthreads()" in doc and '``"atomic"``' in doc and "block_histogram" in doc


@pytest.mark.parametrize("name", METHODS)
def test_host_call_is_a_usage_error(name: str) -> None:
    with pytest.raises(UsageError, match=rf"coop\.block\.{name}\(\) was called on the host"):
        getattr(coop.block, name)(None, None, bins=4)


# --- histogram_init ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("counter_type", ["int8", "uint16", "int32", "uint32", "int64", "uint64"])
def test_init_renders_and_needs_no_storage(counter_type: str) -> None:
    """InitHistogram depends on the counters, bins and block only: the class is fixed at one sample of the
    counters' type and ``"atomic"``, whose storage is empty (no shared memory, no leading barrier), for every
    counter type (the atomic-counter rule is about adding, which init does not do)."""
    request = Request("block_histogram", "histogram_init", "init", dtype=counter_type, bins=300)
    b = bind(request, (16, 8))
    assert b.values["algorithm"] is BlockHistogramAlgorithm.BLOCK_HISTO_ATOMIC and b.values["items_per_thread"] == 1
    text = render_requests([request], (16, 8))
    cpp = b.values["dtype"].cpp
    assert f"cub::BlockHistogram<{cpp}, 16, 1, 300, cub::BLOCK_HISTO_ATOMIC, 8, 1>;" in text
    assert ".InitHistogram(counters);" in text and f"({cpp}* counters)" in text


def test_init_takes_no_algorithm_or_samples() -> None:
    with pytest.raises(SpecError, match=r"\(init\) has no parameter 'counter_type'"):
        bind(Request("block_histogram", "histogram_init", "init", dtype="uint32", bins=16, counter_type="uint32"),
             (128,))
    empty = inspect.Parameter.empty
    assert _parameters(coop.block.histogram_init) == [
        ("counters", "POSITIONAL_OR_KEYWORD", empty), ("bins", "KEYWORD_ONLY", empty)
    ]
    doc = coop.block.histogram_init.__doc__ or ""
    assert "InitHistogram" in doc and "cuda.syncthreads()" in doc and "histogram_composite" in doc
    assert "algorithm" not in doc
    with pytest.raises(UsageError, match=r"coop\.block\.histogram_init\(\) was called on the host"):
        coop.block.histogram_init(None, bins=4)


@pytest.mark.parametrize("value", ["float32", "bool"])
def test_init_refuses_non_integer_counters(value: str) -> None:
    with pytest.raises(SpecError, match=rf"dtype must be of kind int or uint, got {value}"):
        bind(Request("block_histogram", "histogram_init", "init", dtype=value, bins=16), (128,))
