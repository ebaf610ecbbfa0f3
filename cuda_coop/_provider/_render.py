"""Render a provider's CUDA C++: one translation unit with every wrapper of one kernel.

:func:`render` is a pure function of a :class:`~._abi.Plan`, the expected ``CCCL_VERSION`` and the
include preamble: no I/O, no environment, no clock. Layout of the translation unit:

1. The preamble: ``#define`` of :data:`META_UNROLL_LIMIT` (halves NVRTC's parse of CCCL), then
   ``#include`` of every registered primitive's header (CUB's, and for cuda-coop's own compositions their
   ``cuda_coop/*.cuh`` header from the package's include root: no C++ is written here) plus the support
   headers, always the same list in the same order whatever the kernel uses (parsing CCCL dominates compile
   time, its libcu++ base more than the primitives' own headers; a fixed preamble lets NVRTC reuse
   one precompiled header for every provider of a process). Headers only some value types
   need (``<cuda/std/complex>``, ~0.2 s of parsing) follow it, in providers that use those types.
2. ``static_assert(CCCL_VERSION == N)``: the CCCL found first on the include path must be the one
   selected (never the CUDA toolkit's copy). Then the headers of the plan's primitives that are not in the
   preamble (``PrimitiveSpec.preamble=False``: headers that older CCCLs lack), so that a wrong CCCL fails here.
3. ``namespace cuda_coop_<prefix>``: a ``prim_<i>`` alias per call site, the shared temporary storage,
   and the functors wrapping user functions.
4. One ``extern "C" __device__`` wrapper per call site.

Temporary storage (``__shared__``, owned by the provider; the kernel passes no scratch):

- Block-scope call sites share one union, ``storage.block``: the footprint is the max over the
  call sites, not the sum.
- Warp-scope call sites get a separate region, one slot per hardware warp (``storage.warp[tid/32]``),
  and within it one union per logical-warp width ``w<N>`` holding ``32/N`` TempStorages, one per
  logical warp. A warp therefore only ever touches its own slot, and call sites of different widths
  never overlap.

Barriers (CUB's rule: synchronise before temporary storage is reused):

- A block-scope wrapper whose TempStorage is not empty starts with ``__syncthreads()``: every earlier
  use of the union, by any call site or by this one in an earlier loop iteration, has finished before
  it writes. Block collectives are called by every thread of the block, so the barrier is legal.
- A warp-scope wrapper whose TempStorage is not empty starts with ``__syncwarp(mask)`` over its
  logical warp's lanes only, so warp primitives stay callable in warp-divergent code.
- Primitives with empty TempStorage (direct/striped/vectorized loads and stores, shuffle-based warp
  reductions and scans) get no barrier. ``cuda_coop_detail::uses_storage`` decides at C++ compile time.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from .._specs import (
    ArgKind,
    Binding,
    KnownOp,
    Param,
    Scope,
    TParamKind,
    UserCallback,
    UserOp,
    ValueType,
    coerce_operator,
)
from ._abi import CParam, Plan, WrapperSignature

__all__ = ["META_UNROLL_LIMIT", "SUPPORT_HEADERS", "preamble", "render"]

SUPPORT_HEADERS = (
    "cuda/std/cstdint",
    "cuda/std/type_traits",
    "cuda/std/functional",
    "cuda/std/limits",
    "cuda/functional",
    "cuda_fp16.h",
    "cuda_bf16.h",
)
"""Headers every provider includes besides the primitives' own (types and functors)."""

META_UNROLL_LIMIT = 10
"""``_CCCL_META_UNROLL_LIMIT`` for NVRTC: the value CCCL itself picks for nvcc.

libcu++'s type-list folds are unrolled this deep by nested preprocessor repetition. CCCL picks 10
for nvcc and 16 for every other compiler, NVRTC included; NVRTC's front end (the same one as nvcc's)
then spends ~0.85 s expanding the 16-deep macros, about half of a cold provider compile (measured
with ``-fdevice-time-trace``; ``<cuda/std/type_traits>`` alone drops from ~1.0 s to ~0.15 s). The
depth changes how the type-level folds recurse, never their results.
"""

_DETAIL = """\
namespace cuda_coop_detail
{
// Whether a collective's TempStorage holds anything (CUB's empty storage is one byte).
template <class Prim>
inline constexpr bool uses_storage = sizeof(typename Prim::TempStorage) > 1;

// Lanes of the calling thread's logical warp (LogicalWarpThreads divides the block size).
template <int LogicalWarpThreads>
__device__ __forceinline__ unsigned logical_warp_mask(int linear_tid)
{
  if constexpr (LogicalWarpThreads == 32)
  {
    return 0xffffffffu;
  }
  else
  {
    return ((1u << LogicalWarpThreads) - 1u) << (linear_tid % 32 / LogicalWarpThreads * LogicalWarpThreads);
  }
}

// A count of any integer type, clamped to [0, Limit]: at or above the limit means "all", never truncated.
template <int Limit, class I>
__device__ __forceinline__ int clamp_count(I n)
{
  if constexpr (::cuda::std::is_signed_v<I>)
  {
    const long long v = n;
    return v <= 0 ? 0 : v >= Limit ? Limit : static_cast<int>(v);
  }
  else
  {
    const unsigned long long v = n;
    return v >= static_cast<unsigned long long>(Limit) ? Limit : static_cast<int>(v);
  }
}

// The smaller of two clamped counts (a top-k's k bounded by its partial tile's valid items).
__device__ __forceinline__ int min_count(int a, int b)
{
  return a < b ? a : b;
}

// A partial tile of a sort or rank whose CUB class sorts whole tiles (Param.pad): each key at a tile position at
// or past `valid` becomes the key that sorts after every valid one in CUB's radix order, the one whose bit-ordered
// form (cub::Traits<KeyT>::TwiddleIn) is all ones (ascending) or all zeros (descending). `rank` is the thread's
// rank among the Threads sharing the tile; tile positions are blocked (rank * N + i) or, where CUB orders ties
// warp-striped (cub::BlockRadixRankMatch), (warp, item, lane): warp * 32 * N + i * lanes + lane.
template <bool Descending, bool WarpStriped, int Threads, class KeyT, int N>
__device__ __forceinline__ void pad_keys(KeyT (&keys)[N], int rank, int valid)
{
  using Traits            = cub::Traits<KeyT>;
  using UnsignedBits      = typename Traits::UnsignedBits;
  const UnsignedBits bits = Traits::TwiddleOut(Descending ? UnsignedBits(0) : UnsignedBits(-1));
  const KeyT pad          = reinterpret_cast<const KeyT&>(bits);
  const int warp          = rank / 32;
  const int lanes         = Threads - warp * 32 < 32 ? Threads - warp * 32 : 32;
  const int first         = WarpStriped ? warp * 32 * N + rank % 32 : rank * N;
  const int stride        = WarpStriped ? lanes : 1;
#pragma unroll
  for (int i = 0; i < N; ++i)
  {
    if (first + i * stride >= valid)
    {
      keys[i] = pad;
    }
  }
}

// NumPy's maximum and minimum ("max"/"min", np.maximum/np.minimum, builtin max/min): a NaN operand gives
// NaN. libcu++'s cuda::maximum/minimum are fmax/fmin there (np.fmax/np.fmin): a NaN operand is dropped.
template <bool Max>
struct numpy_extremum
{
  template <class T>
  __device__ __forceinline__ T operator()(const T& a, const T& b) const
  {
    if constexpr (::cuda::is_floating_point_v<T>)
    {
      if (::cuda::std::isnan(a))
      {
        return a;
      }
      if (::cuda::std::isnan(b))
      {
        return b;
      }
    }
    if constexpr (Max)
    {
      return ::cuda::maximum<T>{}(a, b);
    }
    else
    {
      return ::cuda::minimum<T>{}(a, b);
    }
  }
};
using maximum = numpy_extremum<true>;
using minimum = numpy_extremum<false>;

// The identity of +, | and ^: T value-initialised (a function: `signed char{}` is not C++, `zero<signed char>()` is).
template <class T>
__device__ __forceinline__ T zero()
{
  return T{};
}

// The identities of maximum and minimum: the result of reducing no item (-inf and +inf where T has them).
template <class T>
__device__ __forceinline__ T lowest_value()
{
  using limits = ::cuda::std::numeric_limits<T>;
  if constexpr (limits::has_infinity)
  {
    return -limits::infinity();
  }
  else
  {
    return limits::lowest();
  }
}
template <class T>
__device__ __forceinline__ T highest_value()
{
  using limits = ::cuda::std::numeric_limits<T>;
  if constexpr (limits::has_infinity)
  {
    return limits::infinity();
  }
  else
  {
    return limits::max();
  }
}
} // namespace cuda_coop_detail
"""


def preamble(headers: Sequence[str]) -> str:
    """The fixed include block: :data:`META_UNROLL_LIMIT`, ``headers`` (the registry's, sorted), then
    :data:`SUPPORT_HEADERS`."""
    includes = "".join(f"#include <{h}>\n" for h in (*headers, *SUPPORT_HEADERS))
    return f"#define _CCCL_META_UNROLL_LIMIT {META_UNROLL_LIMIT}\n{includes}"


def _template_args(b: Binding) -> str:
    out = []
    for tp in b.spec.tparams:
        value = b.values[tp.name]
        if tp.kind is TParamKind.TYPE:
            out.append(value.cpp)
        elif tp.kind is TParamKind.BOOL:
            out.append("true" if value else "false")
        else:
            out.append(str(value))
    return f"{b.spec.cub_class}<{', '.join(out)}>"


def _user_types(plan: Plan) -> list[ValueType]:
    seen: dict[str, ValueType] = {}
    for b in plan.bindings:
        for v in b.values.values():
            if isinstance(v, ValueType) and v.is_user:
                seen[v.cpp] = v
    return [seen[k] for k in sorted(seen)]


def _value_types(plan: Plan) -> list[ValueType]:
    found = {v.name: v for b in plan.bindings for v in b.values.values() if isinstance(v, ValueType)}
    for sig in plan.signatures:
        found.update({p.value_type.name: p.value_type for p in sig.params if p.value_type is not None})
    return [found[k] for k in sorted(found)]


def _type_headers(plan: Plan) -> list[str]:
    return sorted({v.header for b in plan.bindings for v in b.values.values() if isinstance(v, ValueType) and v.header})


def _functor(i: int, b: Binding, p: Param) -> str:
    fn = b.values[p.name]
    rt = b.type_of(p.returns or "")
    args = [b.type_of(ref) for ref in p.args]
    formals = ", ".join(f"const {t.cpp}& a{k}" for k, t in enumerate(args))
    actuals = [f"a{k}" if t.abi == "value" else f"&a{k}" for k, t in enumerate(args)]
    state = ["state"] if isinstance(fn, UserCallback) else []
    if rt.abi == "value":
        body = f"return {fn.symbol}({', '.join(state + actuals)});"
    else:
        body = f"{rt.cpp} r; {fn.symbol}({', '.join([*state, '&r', *actuals])}); return r;"
    kind = "cb" if state else "op"
    member = "  void* state;\n" if state else ""
    const = "" if state else " const"
    return (
        f"struct {kind}_{i}_{p.name}\n{{\n{member}"
        f"  __device__ __forceinline__ {rt.cpp} operator()({formals}){const}\n  {{\n    {body}\n  }}\n}};\n"
    )


def _storage(plan: Plan, ns_lines: list[str]) -> None:
    block = [i for i, b in enumerate(plan.bindings) if b.spec.scope is Scope.BLOCK]
    warp: dict[int, list[int]] = {}
    for i, b in enumerate(plan.bindings):
        if b.spec.scope is Scope.WARP:
            warp.setdefault(b.values["threads"], []).append(i)
    members = []
    if block:
        ns_lines.append("// Block-scope call sites share one region: the max of their TempStorage, not the sum.")
        ns_lines.append("union block_storage_t\n{")
        ns_lines += [f"  prim_{i}::TempStorage s{i};" for i in block]
        ns_lines.append("};")
        members.append("  block_storage_t block;")
    if warp:
        x, y, z = plan.block_dim
        hw_warps = (x * y * z + 31) // 32
        ns_lines.append("// Warp-scope call sites: one slot per hardware warp; one union per logical-warp width.")
        for width in sorted(warp, reverse=True):
            ns_lines.append(f"union warp_storage_{width}_t\n{{")
            ns_lines += [f"  prim_{i}::TempStorage s{i}[{32 // width}];" for i in warp[width]]
            ns_lines.append("};")
        ns_lines.append("struct warp_storage_t\n{")
        ns_lines += [f"  warp_storage_{w}_t w{w};" for w in sorted(warp, reverse=True)]
        ns_lines.append("};")
        members.append(f"  warp_storage_t warp[{hw_warps}];")
    ns_lines.append("struct storage_t\n{")
    ns_lines += members
    ns_lines.append("};")
    ns_lines.append("static __shared__ storage_t storage;")
    ns_lines.append(
        "static_assert(sizeof(storage_t) <= 48 * 1024, \"cuda-coop: this kernel's CUB temporary storage exceeds the "
        "48 KiB of static shared memory a block may have; use fewer items per thread, a smaller block, or "
        'algorithms that need less shared memory (direct, striped, vectorize)");'
    )


def _argument(ns: str, i: int, sig: WrapperSignature, p: Param, cparams: dict[str, CParam]) -> str:
    b = sig.binding
    bound = next((q for q in b.overload.all_params if q.pad and p.name in q.pad.limits), None)
    if bound is not None:  # a count a partial tile bounds too (Pad.limits)
        mine, theirs = (f"cuda_coop_detail::clamp_count<{b.count_limit(q)}>({q.name})" for q in (p, bound))
        return f"cuda_coop_detail::min_count({mine}, {theirs})"
    if p.kind is ArgKind.OPERATOR:
        fn = b.values[p.name]
        return f"{fn}{{}}" if isinstance(fn, KnownOp) else f"{ns}::op_{i}_{p.name}{{}}"
    if p.kind is ArgKind.CALLBACK:
        return f"{p.name}_fn"  # a local functor holding the state pointer
    if p.name == sig.returned_output:
        return p.name  # a local, returned by value
    if b.omitted(p):
        return str(b.scalar_value(p.default))  # type: ignore[arg-type]
    return _data_argument(b.count_limit(p), p, cparams[p.name])


def _data_argument(limit: int | None, p: Param, c: CParam) -> str:
    if limit is not None:
        return f"cuda_coop_detail::clamp_count<{limit}>({p.name})"
    if p.kind is ArgKind.ARRAY and not p.inout:
        return f"{p.name}_in"  # a copy: see _input_copies
    if c.extent is not None:
        return f"reinterpret_cast<{c.value_type.cpp}(&)[{c.extent}]>(*{p.name})"  # type: ignore[union-attr]
    return p.name if p.kind is ArgKind.POINTER or not c.pointer else f"*{p.name}"


def _input_copies(sig: WrapperSignature) -> list[str]:
    """Per-thread input arrays (not ``inout``) are copied before the call: CUB may rearrange its
    arguments in place (BlockStore's transposing algorithms do), and a caller's input must never
    change. After inlining the copy is register renaming."""
    lines = []
    for c in sig.params:
        if c.kind is ArgKind.ARRAY and c.role == "in":
            t, n = c.value_type.cpp, c.extent  # type: ignore[union-attr]
            lines += [
                f"  {t} {c.name}_in[{n}];",
                "#pragma unroll",
                f"  for (int k = 0; k < {n}; ++k)\n  {{\n    {c.name}_in[k] = {c.name}[k];\n  }}",
            ]
    return lines


def _padding(sig: WrapperSignature, cparams: dict[str, CParam]) -> list[str]:
    """A partial tile the wrapper honours for CUB (``Param.pad``): the keys past the count are made to sort last."""
    b = sig.binding
    lines = []
    for p in (p for p in b.overload.all_params if p.pad is not None):
        pad = p.pad
        assert pad is not None
        keys = next(q for q in b.overload.all_params if q.name == pad.array)
        descending = bool(b.values[pad.descending]) if pad.descending else False
        striped = b.values.get("algorithm") in pad.warp_striped
        if b.spec.scope is Scope.WARP:
            threads, rank = int(b.values["threads"]), f"tid % {b.values['threads']}"
        else:
            threads, rank = b.block_threads, "cub::RowMajorTid({}, {}, {})".format(*b.block_dim)
        flags = f"{'true' if descending else 'false'}, {'true' if striped else 'false'}, {threads}"
        target = _data_argument(None, keys, cparams[keys.name])
        valid = f"cuda_coop_detail::clamp_count<{b.count_limit(p)}>({p.name})"
        lines += [
            f"  // {p.name}: a partial tile; the keys past it sort after every valid one (Param.pad).",
            f"  cuda_coop_detail::pad_keys<{flags}>({target}, {rank}, {valid});",
        ]
    return lines


def _block_barrier(ns: str, before: tuple[int, ...] | None) -> str:
    """The leading barrier of a block-scope wrapper: always (when it uses storage), or, for a call in the
    kernel's entry block, only when one of the entry-block calls ``before`` it used the storage too."""
    if before is None:
        return "  if constexpr (cuda_coop_detail::uses_storage<Prim>)\n  {\n    __syncthreads();\n  }"
    if not before:
        return "  // The kernel's first use of the shared storage: no barrier needed."
    earlier = " || ".join(f"cuda_coop_detail::uses_storage<{ns}::prim_{j}>" for j in before)
    return (
        "  // Entry block: only an earlier call of the entry block can have used the storage.\n"
        f"  if constexpr (cuda_coop_detail::uses_storage<Prim> && ({earlier}))\n  {{\n    __syncthreads();\n  }}"
    )


def _broadcast(b: Binding, call: str) -> list[str]:
    """``broadcast=True`` (an overload-level BOOL template parameter): the method's result, valid in thread 0
    (lane 0 of the logical warp), is made valid in every thread of the block (of the logical warp)."""
    if b.returns is None:
        raise ValueError(f"{b.spec.name}.{b.method.name}: broadcast=True needs a method with a result")
    t = b.type_of(b.returns).cpp
    lines = [f"  {t} r = {call};"]
    if b.spec.scope is Scope.WARP:
        width = b.values["threads"]
        return [
            *lines,
            "  // broadcast=True: lane 0's result to every lane of the logical warp (one shuffle per 32-bit word).",
            f"  r = cub::ShuffleIndex<{width}>(r, 0, cuda_coop_detail::logical_warp_mask<{width}>(tid));",
        ]
    return [
        *lines,
        "  // broadcast=True: thread 0's result to every thread through one shared slot and a barrier; the next",
        "  // write of the slot (this call again) comes after the collective's own leading barrier.",
        f"  __shared__ cub::Uninitialized<{t}> broadcast_slot;",
        "  if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0)\n  {\n    broadcast_slot.Alias() = r;\n  }",
        "  __syncthreads();",
        "  r = broadcast_slot.Alias();",
        "  if constexpr (!cuda_coop_detail::uses_storage<Prim>)\n  {\n    __syncthreads();\n  }",
    ]


def _empty_count(b: Binding, sig: WrapperSignature) -> list[str]:
    """A count whose method's result has an identity when it is 0 (``Param.empty``): the identity, with no call
    (the count is the same in every thread of the block or logical warp, so all of them skip it together)."""
    p = next((p for p in b.overload.all_params if p.empty is not None), None)
    if p is None or p.empty is None:
        return []
    op = b.values.get(p.empty) if p.empty in b.values else coerce_operator(p.empty)
    identity = op.identity if isinstance(op, KnownOp) else None
    if identity is None:
        return []  # a user operator: no identity (a constant 0 is refused; a runtime 0 is the caller's precondition)
    t = b.type_of(b.returns or "dtype").cpp
    value = identity.replace("{T}", t)
    give = f"return {value};" if sig.returns is not None else f"*result = {value};\n    return;"
    return [f"  if (cuda_coop_detail::clamp_count<{b.count_limit(p)}>({p.name}) == 0)\n  {{\n    {give}\n  }}"]


def _wrapper(ns: str, i: int, sig: WrapperSignature, *, before: tuple[int, ...] | None = None) -> str:
    b = sig.binding
    cparams = {c.name: c for c in sig.params}
    lines = [sig.declaration, "{", f"  using Prim = {ns}::prim_{i};"]
    if b.spec.scope is Scope.BLOCK:
        lines.append(_block_barrier(ns, before))
        temp = f"{ns}::storage.block.s{i}"
    else:
        width = b.values["threads"]
        x, y, _ = b.block_dim
        tid = (
            "threadIdx.x"
            if b.block_dim[1:] == (1, 1)
            else f"static_cast<int>(threadIdx.x + {x} * (threadIdx.y + {y} * threadIdx.z))"
        )
        lines += [
            f"  const int tid = {tid};",
            f"  Prim::TempStorage& temp = {ns}::storage.warp[tid / 32].w{width}.s{i}[tid % 32 / {width}];",
            "  if constexpr (cuda_coop_detail::uses_storage<Prim>)\n  {\n"
            f"    __syncwarp(cuda_coop_detail::logical_warp_mask<{width}>(tid));\n  }}",
        ]
        temp = "temp"
    lines += _empty_count(b, sig)
    lines += _input_copies(sig)
    lines += _padding(sig, cparams)
    for p in b.overload.all_params:
        if p.kind is ArgKind.CALLBACK:
            lines.append(f"  {ns}::cb_{i}_{p.name} {p.name}_fn{{{p.name}}};")
    if sig.returned_output:
        lines.append(f"  {sig.returns.cpp} {sig.returned_output};")  # type: ignore[union-attr]
    ctor = [temp] + [_argument(ns, i, sig, p, cparams) for p in b.overload.ctor_params]
    args = [_argument(ns, i, sig, p, cparams) for p in b.overload.params if p.pad is None]
    call = f"Prim({', '.join(ctor)}).{b.cpp_method}({', '.join(args)})"
    if b.values.get("broadcast") is True:
        lines += _broadcast(b, call)
        lines.append("  return r;" if sig.returns is not None else "  *result = r;")
    elif b.returns is None:
        lines.append(f"  {call};")
        if sig.returned_output:
            lines.append(f"  return {sig.returned_output};")
    elif sig.returns is not None:
        lines.append(f"  return {call};")
    else:
        lines.append(f"  *result = {call};")
    lines.append("}")
    return "\n".join(lines) + "\n"


def render(plan: Plan, *, cccl_version: int, headers: Sequence[str], first_use: Collection[int] = ()) -> str:
    """The provider's CUDA C++ source.

    Parameters
    ----------
    plan:
        The kernel's call sites (:func:`~._abi.plan`).
    cccl_version:
        ``CCCL_VERSION`` of the selected CCCL root (e.g. 3006000), asserted in the source.
    headers:
        The primitives' headers (the registry's, sorted), included before :data:`SUPPORT_HEADERS`.
    first_use:
        Indices of the block-scope call sites in the kernel's entry block, which runs once before
        everything else: the first of them needs no leading ``__syncthreads()``, and each later one
        only if an earlier one of them uses the storage (decided at C++ compile time).
    """
    ns = f"cuda_coop_{plan.prefix}"
    major, minor, patch = cccl_version // 1000000, cccl_version // 1000 % 1000, cccl_version % 1000
    out = [preamble(headers)]
    out += [f"#include <{h}>\n" for h in _type_headers(plan)]
    out.append(
        f'\nstatic_assert(CCCL_VERSION == {cccl_version}, "cuda-coop selected CCCL {major}.{minor}.{patch}, '
        "but another CCCL (e.g. the CUDA toolkit's) comes first on the include path\");\n"
    )
    late = sorted({b.spec.header for b in plan.bindings if not b.spec.preamble})
    if late:
        out.append("\n// Headers newer than some CCCLs: after the version check (PrimitiveSpec.preamble=False).\n")
        out += [f"#include <{h}>\n" for h in late]
    out.append(f"\n// cuda-coop provider {plan.prefix}: block {plan.block_dim}\n")
    out += [f"//   [{i}] {b.canonical()}\n" for i, b in enumerate(plan.bindings)]
    out.append("\n" + _DETAIL)
    types = _user_types(plan)
    if types:
        out.append("\n// User types: storage ABI only.\n")
        out += [f"struct alignas({t.align}) {t.cpp}\n{{\n  unsigned char bytes[{t.size}];\n}};\n" for t in types]
    if plan.externs:
        out.append("\n// User functions, supplied as LTO-IR by the DSL.\n")
        out += [f"{e.declaration};\n" for e in plan.externs]
    out.append("\n// Storage ABI of the value types, as the DSL sees them.\n")
    out += [
        f'static_assert(sizeof({t.cpp}) == {t.size} && alignof({t.cpp}) == {t.align}, "storage ABI of {t.name}");\n'
        for t in _value_types(plan)
    ]
    ns_lines = [f"\nnamespace {ns}\n{{"]
    ns_lines += [f"using prim_{i} = {_template_args(b)};" for i, b in enumerate(plan.bindings)]
    _storage(plan, ns_lines)
    for i, b in enumerate(plan.bindings):
        for p in b.overload.all_params:
            if isinstance(b.values.get(p.name), UserOp | UserCallback):
                ns_lines.append(_functor(i, b, p).rstrip("\n"))
    ns_lines.append(f"}} // namespace {ns}\n")
    out.append("\n".join(ns_lines))
    entry = sorted(set(first_use))
    out += [
        "\n" + _wrapper(ns, i, sig, before=tuple(j for j in entry if j < i) if i in entry else None)
        for i, sig in enumerate(plan.signatures)
    ]
    return "".join(out)
