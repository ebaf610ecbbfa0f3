"""The calling convention in kernels: today's spelling of every renamed or reordered call compiles, and the earlier
spelling is refused at its file:line with the keyword to use (compile tier, no GPU).

The earlier spellings are declared with each stub (``previous=``: the earlier positional order; ``renamed=``), and
:meth:`cuda.coop._dsl._primitive.Primitive.bind` turns them into the message. The table below holds the calls the
issue names, message and all; the generated table covers every function whose signature changed, from a call that
satisfies every contract (``tests/helpers/contracts.base_call``). Known operators: ``"-"`` (``operator.sub``,
``np.subtract``) differences adjacent items and is refused where the operator must be associative.
"""

from __future__ import annotations

import operator

import numpy as np
import pytest

pytest.importorskip("numba_cuda_mlir", reason="needs the numba-cuda-mlir extra")

from numba_cuda_mlir import cuda
from numba_cuda_mlir.numba_cuda import types

import cuda.coop as coop
from cuda.coop._dsl._primitive import Primitive, all_public_primitives
from cuda.coop.errors import UsageError
from cuda.coop.numba_mlir import compile_kernel
from tests.helpers import contracts
from tests.helpers.refusal import refused

I32, F32 = types.int32[::1], types.float32[::1]
LABEL = "calling convention"


# --- the issue's examples ----------------------------------------------------------------------------------------

_ITEMS = ["items = cuda.local.array(4, np.int32)", "out = cuda.local.array(4, np.int32)", "coop.block.load(g0, items)"]
EXAMPLES = [  # (id, the kernel's lines before the call, the earlier call, today's call, the refusal's words)
    ("block.exclusive_scan", _ITEMS, 'coop.block.exclusive_scan(items, "+", 0, out)',
     'coop.block.exclusive_scan(items, "+", initial_value=0, output=out)',
     "initial_value= is keyword-only: coop.block.exclusive_scan(x, op, initial_value=initial_value, output=output)"),
    ("block.radix_sort", _ITEMS, "coop.block.radix_sort(items, out)", "coop.block.radix_sort(items, values=out)",
     "values= is keyword-only: coop.block.radix_sort(keys, values=values)"),
    ("block.top_k", _ITEMS, "coop.block.top_k(items, 3, g0, out, g1)",
     "coop.block.top_k(items, g0, k=3, values=out, out_values=g1)",
     "k= is keyword-only: coop.block.top_k(keys, out_keys, k=k, values=values, out_values=out_values)"),
    ("block.top_k-no-k", _ITEMS, "coop.block.top_k(items, g1)", "coop.block.top_k(items, g1, k=2)",
     "k= is required and keyword-only: coop.block.top_k(keys, out_keys, k=k)"),
    ("warp.exclusive_scan", [], 'g1[0] = coop.warp.exclusive_scan(g0[cuda.threadIdx.x], "max", -1)',
     'g1[0] = coop.warp.exclusive_scan(g0[cuda.threadIdx.x], "max", initial_value=-1)',
     "initial_value= is keyword-only: coop.warp.exclusive_scan(x, op, initial_value=initial_value)"),
    ("block.blocked_to_striped", _ITEMS, "coop.block.blocked_to_striped(items=items)",
     "coop.block.blocked_to_striped(x=items)", "items= is x= now: coop.block.blocked_to_striped(x)"),
]


def _example(id_: str, lines: list[str], call: str) -> tuple[str, str, object]:
    name = "k_" + "".join(c if c.isalnum() else "_" for c in id_)
    source = f"def {name}(g0, g1):\n" + "".join(f"    {line}\n" for line in [*lines, f"{call}  # call"])
    return name, source, contracts.kernel(source, name, LABEL)


@pytest.mark.parametrize(("id_", "lines", "earlier", "today", "words"), EXAMPLES, ids=[e[0] for e in EXAMPLES])
def test_the_issue_s_calls(id_: str, lines: list[str], earlier: str, today: str, words: str) -> None:
    name, source, kernel = _example(id_, lines, earlier)
    with pytest.raises(UsageError) as info:
        compile_kernel(kernel, (I32, I32), block=(128,))
    assert f"<{LABEL} {name}>:{len(source.splitlines())}: {words}" in str(info.value), str(info.value)
    compile_kernel(_example(id_, lines, today)[2], (I32, I32), block=(128,))


# --- every function whose signature changed ----------------------------------------------------------------------


def _base_call(prim: Primitive) -> contracts.Call:
    """A call of the form (no callback) that passes the most of the earlier positional parameters."""
    calls = [contracts.base_call(prim, ov) for ov in prim.method.overloads if contracts._callable(ov)]
    return max(calls, key=lambda c: len(set(c.args) & set(prim.previous)))


def _call(prim: Primitive, names: tuple[str, ...], args: dict[str, str]) -> str:
    """``coop.<name>(...)`` passing ``names`` by position and the other ``args`` by keyword."""
    parts = [args[n] for n in names] + [f"{k}={v}" for k, v in args.items() if k not in names]
    return f"coop.{prim.name}({', '.join(parts)})"


def _source(call: contracts.Call, name: str, text: str) -> str:
    params = ", ".join(["g0", *call.globals_])
    return f"def {name}({params}):\n" + "".join(f"    {line}\n" for line in [*call.lines, f"{text}  # call"])


def spellings() -> list[tuple[str, str, str, int, str]]:
    """(id, today's source, the earlier source, kernel arguments, words of its refusal) for every primitive that
    declares an earlier spelling."""
    cases = []
    for prim in (p for p in all_public_primitives() if p.previous or p.renamed):
        call = _base_call(prim)
        today = tuple(n for n in prim.positional if n in call.args)
        kernel_name = "k_" + prim.name.replace(".", "_")
        now = _source(call, kernel_name, _call(prim, today, call.args))
        earlier = []
        for n in prim.previous:
            if n not in call.args:
                break
            earlier.append(n)
        if tuple(earlier) != today[: len(earlier)] or len(earlier) > len(today):
            moved = next(n for n in earlier if n not in prim.positional)
            words = f"{moved}= is keyword-only: coop.{prim.name}("
            cases.append((f"{prim.name}-positional", now, _source(call, kernel_name, _call(prim, tuple(earlier),
                                                                                             call.args)),
                          1 + len(call.globals_), words))
        for old, new in prim.renamed.items():
            renamed = {old if k == new else k: v for k, v in call.args.items()}
            text = _call(prim, (), renamed)
            cases.append((f"{prim.name}-{old}", now, _source(call, kernel_name, text), 1 + len(call.globals_),
                          f"{old}= is {new}= now: coop.{prim.name}("))
    return cases


SPELLINGS = spellings()


def test_every_changed_function_has_a_case() -> None:
    declared = {p.name for p in all_public_primitives() if p.previous or p.renamed}
    assert {c[0].rsplit("-", 1)[0] for c in SPELLINGS} == declared
    assert len(declared) >= 30


@pytest.mark.parametrize(("today", "earlier", "n_args", "words"), [c[1:] for c in SPELLINGS],
                         ids=[c[0] for c in SPELLINGS])
def test_earlier_spelling_is_refused_and_today_s_compiles(today: str, earlier: str, n_args: int, words: str) -> None:
    name = today.split("(", 1)[0].removeprefix("def ")
    sig = (I32,) * n_args
    with pytest.raises(UsageError) as info:
        compile_kernel(contracts.kernel(earlier, name, LABEL), sig, block=contracts.BLOCK)
    message = str(info.value)
    line = earlier.splitlines().index(next(s for s in earlier.splitlines() if s.endswith("# call"))) + 1
    assert f"<{LABEL} {name}>:{line}: " in message, message
    assert words in message, message
    compile_kernel(contracts.kernel(today, name, LABEL), sig, block=contracts.BLOCK)


# --- known operators: "-" where it makes sense, refused where the operator must be associative -------------------


@pytest.mark.parametrize("op", ["-", operator.sub, np.subtract], ids=["minus", "operator.sub", "np.subtract"])
def test_minus_differences_adjacent_items(op) -> None:  # type: ignore[no-untyped-def]
    OP = op

    @cuda.jit
    def kernel(x, y):
        items = cuda.local.array(4, np.float32)
        out = cuda.local.array(4, np.float32)
        coop.block.load(x, items)
        coop.block.subtract_left(items, OP, output=out)
        coop.block.subtract_right_partial_tile(items, OP, valid_items=7)
        coop.block.store(y, out)

    compile_kernel(kernel, (F32, F32), block=(64,))


@cuda.jit
def reduce_minus(x, y):
    y[0] = coop.block.reduce(x[cuda.threadIdx.x], "-")  # call


@cuda.jit
def sub_scan(x, y):
    y[cuda.threadIdx.x] = coop.block.exclusive_scan(x[cuda.threadIdx.x], operator.sub, initial_value=0)  # call


@cuda.jit
def subtract_warp_reduce(x, y):
    y[0] = coop.warp.reduce(x[cuda.threadIdx.x], np.subtract)  # call


@cuda.jit
def minus_inclusive_scan(x, y):
    y[cuda.threadIdx.x] = coop.warp.inclusive_scan(x[cuda.threadIdx.x], "-")  # call


@pytest.mark.parametrize("kernel", [reduce_minus, sub_scan, subtract_warp_reduce, minus_inclusive_scan],
                         ids=lambda k: k.py_func.__name__)
def test_minus_is_refused_where_the_operator_must_be_associative(kernel) -> None:  # type: ignore[no-untyped-def]
    refused(kernel, (F32, F32), "op='-' is not associative", "Pass an associative operator", block=(64,))
