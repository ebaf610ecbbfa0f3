"""The tasks of ``peers.py``: issue 41's list, each with its data, its check, the recipe and the peers' calls.

Every task's data is drawn from its own seed (``Task.seed``), so that every run checks and times the same inputs.
The checks accept every correct answer and only those: top-k values must be the k largest in order and the positions
must hold them (any position among equal keys), an argmax any position of the largest item, sorted pairs any order
among equal keys (the keys here are distinct, so there is one), float results within the float32 rounding of their
algorithm. :func:`tasks` lists the rows of a run; ``check_only=True`` the same tasks at sizes that take seconds.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np
from _peers_env import (
    Env,
    Impl,
    Setup,
    Task,
    auto_picks,
    close,
    coop_impls,
    dtype_of,
    equal,
    first_failure,
    host,
    missing_peers,
    neighbours,
    poisoned,
    to_device,
)
from numba_cuda_mlir import cuda

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples" / "recipes"))
import array_sum as recipe_sum  # examples/recipes/array_sum.py: the recipes are imported, not copied
import byte_histogram as recipe_histogram
import row_argmax as recipe_argmax
import row_cumsum as recipe_cumsum
import row_layer_norm as recipe_layer_norm
import row_softmax as recipe_softmax
import row_sort as recipe_sort
import row_top_k as recipe_top_k

import cuda.coop as coop

SMEM_TILE_BYTES = 32 * 1024
"""The largest tile of one array the sorting recipes stage in shared memory (their other array shares it)."""


def _torch_full(env: Env, shape: tuple[int, ...], value: Any, like: Any) -> Any:
    """A poisoned torch output on the benchmark's stream (a peer that writes nothing fails its check)."""
    with env.torch.cuda.stream(env.torch_stream):
        return env.torch.full(shape, value, dtype=like, device="cuda")


def _triton(env: Env, name: str, n: int, call: Any, fetch: Any) -> dict[str, Impl]:
    """One implementation per ``num_warps`` that Triton is timed with; ``call(num_warps)`` makes its outputs. None
    for a row longer than one Triton program holds (:func:`_long_rows` names the reason)."""
    impls = {}
    for warps in env.triton.warps(n):
        outputs, launch = call(warps)
        impls[f"triton {name} nw={warps}"] = Impl(env.on_torch(launch, {}), lambda o=outputs: fetch(*o))
    return impls


def _long_rows(env: Env, n: int) -> dict[str, str]:
    """The reason there is no Triton kernel for rows of ``n`` items, if there is none."""
    if env.triton is None or env.triton.warps(n):
        return {}
    return {"triton": f"n/a: rows of {n} items (the Triton kernels hold a row of at most {env.triton.MAX_ROW})"}


# --- row top-k ----------------------------------------------------------------------------------------------------


def top_k(rows: int, n: int, dtype: str, k: int, *, quick: bool = False) -> Task:
    def build(env: Env, rng: np.random.Generator) -> Setup:
        dt = dtype_of(dtype)
        x = rng.standard_normal((rows, n), dtype=np.float32).astype(dt)
        xf = x.astype(np.float32)
        want = -np.sort(-np.partition(xf, n - k, axis=1)[:, n - k:], axis=1)

        def check(out: tuple[np.ndarray, ...]) -> str:
            values, where = out[0].astype(np.float32).reshape(rows, -1), out[1].astype(np.int64).reshape(rows, -1)
            if (shape := equal(values, want)) != "ok" or ((where < 0) | (where >= n)).any():
                return shape if shape != "ok" else "wrong: a position outside the row"
            if (np.diff(np.sort(where, axis=1), axis=1) == 0).any():
                return "wrong: a position twice in a row"
            return equal(np.take_along_axis(xf, where, axis=1), want)

        d_x = to_device(x.ravel())
        pick = recipe_top_k.top_k_shape(n, dt)
        alternatives = neighbours(pick, lambda s: k < s.tile and s.tile * 4 <= SMEM_TILE_BYTES)

        def make(shape: Any, load: str) -> Impl:
            values, where = poisoned(rows * k, dt, np.nan), poisoned(rows * k, np.int32, -1)
            return Impl(lambda: recipe_top_k.top_k_rows(d_x, values, where, n, k, shape=shape,
                                                        stream=env.numba_stream, load=load),
                        lambda: (host(values), host(where)))

        impls = coop_impls(pick, alternatives, make)
        if env.torch:
            tx, out = env.torch_view(d_x, (rows, n)), {}
            impls["torch.topk"] = Impl(env.on_torch(lambda: env.torch.topk(tx, k, dim=1), out),
                                       lambda: (host(out["result"].values), host(out["result"].indices)))
        if env.triton:
            def triton_call(warps: int) -> tuple[tuple[Any, ...], Any]:
                v, i = _torch_full(env, (rows, k), np.nan, tx.dtype), _torch_full(env, (rows, k), -1, env.torch.int64)
                return (v, i), lambda: env.triton.top_k(tx, v, i, k, warps)

            impls |= _triton(env, "tl.topk", n, triton_call, lambda v, i: (host(v), host(i)))
        return Setup(impls, missing_peers(env, cupy="CuPy has no top-k") | _long_rows(env, n), check,
                     rows * n * dt.itemsize + rows * k * (dt.itemsize + 4), pick, alternatives,
                     auto_picks(pick, {dtype: dtype, "int32": "int32"}))

    return Task("row top-k", f"{rows}x{n} {dtype} k={k}", build, quick)


# --- row softmax and layer norm -----------------------------------------------------------------------------------

TOLERANCE = {"float32": 2e-6, "float16": 1e-3, "bfloat16": 8e-3}
"""Absolute error allowed in a softmax (outputs at most 1): the output type's rounding and a float32 computation."""


def softmax(rows: int, n: int, dtype: str, *, quick: bool = False) -> Task:
    def build(env: Env, rng: np.random.Generator) -> Setup:
        dt = dtype_of(dtype)
        x = (rng.standard_normal((rows, n), dtype=np.float32) * 4).astype(dt)
        want = recipe_softmax.softmax_reference(x.astype(np.float32))
        d_x = to_device(x.ravel())
        pick = coop.row_shape(n, dt)
        alternatives = neighbours(pick)

        def make(shape: Any, load: str) -> Impl:
            y = poisoned(rows * n, dt, np.nan)
            return Impl(lambda: recipe_softmax.softmax_rows(d_x, y, n, shape=shape, stream=env.numba_stream,
                                                            load=load), lambda: (host(y),))

        impls = coop_impls(pick, alternatives, make)
        if env.torch:
            tx, out = env.torch_view(d_x, (rows, n)), {}
            impls["torch.softmax"] = Impl(env.on_torch(lambda: env.torch.softmax(tx, dim=1), out),
                                          lambda: (host(out["result"]),))
        if env.triton:
            def triton_call(warps: int) -> tuple[tuple[Any, ...], Any]:
                y = _torch_full(env, (rows, n), np.nan, tx.dtype)
                return (y,), lambda: env.triton.softmax(tx, y, warps)

            impls |= _triton(env, "softmax (tutorial)", n, triton_call, lambda y: (host(y),))
        return Setup(impls, missing_peers(env, cupy="CuPy has no fused softmax") | _long_rows(env, n),
                     lambda out: close(out[0].reshape(rows, n), want, TOLERANCE[dtype]), 2 * rows * n * dt.itemsize,
                     pick, alternatives, auto_picks(pick, {dtype: dtype}))

    return Task("row softmax", f"{rows}x{n} {dtype}", build, quick)


def layer_norm(rows: int, n: int, *, quick: bool = False, eps: float = 1e-5) -> Task:
    def build(env: Env, rng: np.random.Generator) -> Setup:
        x = (rng.standard_normal((rows, n), dtype=np.float32) * 3 + 10).astype(np.float32)
        weight, bias = rng.standard_normal((2, n), dtype=np.float32)
        want = recipe_layer_norm.layer_norm_reference(x, weight, bias, eps)
        d_x, d_w, d_b = (to_device(a.ravel()) for a in (x, weight, bias))
        pick = coop.row_shape(n, np.float32)
        alternatives = neighbours(pick)

        def make(shape: Any, load: str) -> Impl:
            y = poisoned(rows * n, np.float32, np.nan)
            return Impl(lambda: recipe_layer_norm.layer_norm_rows(d_x, d_w, d_b, y, n, eps, shape=shape,
                                                                  stream=env.numba_stream, load=load),
                        lambda: (host(y),))

        impls = coop_impls(pick, alternatives, make)
        if env.torch:
            tx, tw, tb, out = env.torch_view(d_x, (rows, n)), env.torch_view(d_w, (n,)), env.torch_view(d_b, (n,)), {}
            layer = env.torch.nn.functional.layer_norm
            impls["torch layer_norm"] = Impl(env.on_torch(lambda: layer(tx, (n,), tw, tb, eps), out),
                                             lambda: (host(out["result"]),))
        if env.triton:
            def triton_call(warps: int) -> tuple[tuple[Any, ...], Any]:
                y = _torch_full(env, (rows, n), np.nan, tx.dtype)
                return (y,), lambda: env.triton.layer_norm(tx, tw, tb, y, eps, warps)

            impls |= _triton(env, "layer norm (whole row)", n, triton_call, lambda y: (host(y),))
        return Setup(impls, missing_peers(env, cupy="CuPy has no fused layer norm") | _long_rows(env, n),
                     lambda out: close(out[0].reshape(rows, n), want, 1e-4, 1e-4), 2 * (rows + 1) * n * 4, pick,
                     alternatives, auto_picks(pick, {"float32": "float32"}))

    return Task("row layer norm", f"{rows}x{n} float32", build, quick)


# --- row argmax and argmin ----------------------------------------------------------------------------------------


def arg(rows: int, n: int, *, largest: bool = True, quick: bool = False) -> Task:
    name = "argmax" if largest else "argmin"

    def build(env: Env, rng: np.random.Generator) -> Setup:
        x = rng.standard_normal((rows, n), dtype=np.float32)
        best = x.max(axis=1) if largest else x.min(axis=1)

        def check(out: tuple[np.ndarray, ...]) -> str:
            where = out[-1].astype(np.int64).reshape(rows)
            if ((where < 0) | (where >= n)).any():
                return "wrong: a position outside the row"
            values = [] if len(out) == 1 else [equal(out[0].reshape(rows).astype(np.float32), best)]
            return first_failure(*values, equal(x[np.arange(rows), where], best))

        d_x = to_device(x.ravel())
        pick = coop.row_shape(n, np.float32)
        alternatives = neighbours(pick)

        def make(shape: Any, load: str) -> Impl:
            value, where = poisoned(rows, np.float32, np.nan), poisoned(rows, np.int64, -1)
            return Impl(lambda: recipe_argmax.arg_rows(d_x, value, where, n, largest=largest, shape=shape,
                                                       stream=env.numba_stream, load=load),
                        lambda: (host(value), host(where)))

        impls = coop_impls(pick, alternatives, make)
        if env.torch:
            tx, out = env.torch_view(d_x, (rows, n)), {}
            reduce = env.torch.max if largest else env.torch.min
            impls[f"torch.{'max' if largest else 'min'}(dim=1)"] = Impl(
                env.on_torch(lambda: reduce(tx, dim=1), out),
                lambda: (host(out["result"].values), host(out["result"].indices)))
        if env.triton:
            def triton_call(warps: int) -> tuple[tuple[Any, ...], Any]:
                v, i = _torch_full(env, (rows,), np.nan, tx.dtype), _torch_full(env, (rows,), -1, env.torch.int64)
                return (v, i), lambda: env.triton.arg(tx, v, i, largest, warps)

            impls |= _triton(env, f"tl.{'max' if largest else 'min'}(return_indices)", n, triton_call,
                             lambda v, i: (host(v), host(i)))
        if env.cupy:
            cx, out_c = env.cupy_view(d_x, (rows, n)), {}
            reduce_c = env.cupy.argmax if largest else env.cupy.argmin
            impls[f"cupy.{name}"] = Impl(env.on_cupy(lambda: reduce_c(cx, axis=1), out_c),
                                         lambda: (host(out_c["result"]),))
        return Setup(impls, missing_peers(env) | _long_rows(env, n), check, rows * n * 4 + rows * 12, pick,
                     alternatives, auto_picks(pick, {"float32": "float32"}))

    return Task(f"row {name}", f"{rows}x{n} float32", build, quick)


# --- row cumsum ---------------------------------------------------------------------------------------------------


def cumsum(rows: int, n: int, dtype: str, *, quick: bool = False) -> Task:
    def build(env: Env, rng: np.random.Generator) -> Setup:
        dt = np.dtype(dtype)
        if dt.kind == "f":  # small integers: every float32 prefix is exact, in any order of additions
            x = rng.integers(-100, 100, (rows, n)).astype(dt)
        else:               # the whole type: prefixes wrap, as in every peer's int32 arithmetic
            x = rng.integers(np.iinfo(dt).min, np.iinfo(dt).max, (rows, n), dtype=dt, endpoint=True)
        want = np.cumsum(x, axis=1, dtype=dt)
        d_x = to_device(x.ravel())
        pick = coop.row_shape(n, dt)
        alternatives = neighbours(pick)

        def make(shape: Any, load: str) -> Impl:
            y = poisoned(rows * n, dt, np.nan if dt.kind == "f" else np.iinfo(dt).min)
            return Impl(lambda: recipe_cumsum.cumsum_rows(d_x, y, n, shape=shape, stream=env.numba_stream,
                                                          load=load), lambda: (host(y),))

        impls = coop_impls(pick, alternatives, make)
        if env.torch:
            tx, out = env.torch_view(d_x, (rows, n)), {}
            impls["torch.cumsum"] = Impl(env.on_torch(lambda: env.torch.cumsum(tx, dim=1, dtype=tx.dtype), out),
                                         lambda: (host(out["result"]),))
        if env.triton:
            def triton_call(warps: int) -> tuple[tuple[Any, ...], Any]:
                y = _torch_full(env, (rows, n), np.nan if dt.kind == "f" else -1, tx.dtype)
                return (y,), lambda: env.triton.cumsum(tx, y, warps)

            impls |= _triton(env, "tl.cumsum", n, triton_call, lambda y: (host(y),))
        if env.cupy:
            cx, out_c = env.cupy_view(d_x, (rows, n)), {}
            impls["cupy.cumsum"] = Impl(env.on_cupy(lambda: env.cupy.cumsum(cx, axis=1, dtype=cx.dtype), out_c),
                                        lambda: (host(out_c["result"]),))
        return Setup(impls, missing_peers(env) | _long_rows(env, n), lambda out: equal(out[0].reshape(rows, n), want),
                     2 * rows * n * dt.itemsize, pick, alternatives, auto_picks(pick, {dtype: dtype}))

    return Task("row cumsum", f"{rows}x{n} {dtype}", build, quick)


# --- row sort -----------------------------------------------------------------------------------------------------


def sort(rows: int, n: int, *, pairs: bool = False, quick: bool = False) -> Task:
    """float32 keys, distinct in each row (a shuffle of multiples of 0.375), with int32 values for ``pairs``."""

    def build(env: Env, rng: np.random.Generator) -> Setup:
        base = ((np.arange(n) - n // 2) * 0.375).astype(np.float32)   # ascending, exact, distinct
        keys = rng.permuted(np.broadcast_to(base, (rows, n)), axis=1)
        values = rng.integers(-(2**31), 2**31, (rows, n), dtype=np.int32)
        want_keys = np.broadcast_to(base, (rows, n))
        want_values = np.empty_like(values)   # a key's sorted position is its rank in `base`
        np.put_along_axis(want_values, (keys / np.float32(0.375)).astype(np.int64) + n // 2, values, axis=1)

        def check(out: tuple[np.ndarray, ...]) -> str:
            got = equal(out[0].reshape(rows, n), want_keys)
            return first_failure(got, equal(out[1].reshape(rows, n), want_values)) if pairs else got

        d_k, d_v = to_device(keys.ravel()), to_device(values.ravel())
        pick = recipe_sort.sort_shape(n, np.float32)
        alternatives = neighbours(pick, lambda s: s.tile >= n and s.tile * 4 <= SMEM_TILE_BYTES)

        def make(shape: Any, load: str) -> Impl:
            keys_out = poisoned(rows * n, np.float32, np.nan)
            values_out = poisoned(rows * n, np.int32, -1) if pairs else None
            return Impl(lambda: recipe_sort.sort_rows(d_k, keys_out, n, values_in=d_v if pairs else None,
                                                      values_out=values_out, shape=shape, stream=env.numba_stream,
                                                      load=load),
                        lambda: (host(keys_out), *((host(values_out),) if pairs else ())))

        impls = coop_impls(pick, alternatives, make)
        if env.torch:
            tk, tv, out = env.torch_view(d_k, (rows, n)), env.torch_view(d_v, (rows, n)), {}
            torch = env.torch
            if pairs:
                def sort_pairs() -> Any:
                    s = torch.sort(tk, dim=1)
                    return s.values, torch.gather(tv, 1, s.indices)

                impls["torch.sort + gather"] = Impl(env.on_torch(sort_pairs, out),
                                                    lambda: tuple(host(a) for a in out["result"]))
            else:
                impls["torch.sort"] = Impl(env.on_torch(lambda: torch.sort(tk, dim=1), out),
                                           lambda: (host(out["result"].values),))
        if env.triton:
            def triton_call(warps: int) -> tuple[tuple[Any, ...], Any]:
                ko = _torch_full(env, (rows, n), np.nan, tk.dtype)
                if not pairs:
                    return (ko,), lambda: env.triton.sort(tk, ko, warps)
                vo = _torch_full(env, (rows, n), -1, tv.dtype)
                return (ko, vo), lambda: env.triton.sort_pairs(tk, tv, ko, vo, warps)

            name = "tl.sort of (key, value) packed in int64" if pairs else "tl.sort"
            impls |= _triton(env, name, n, triton_call, lambda *o: tuple(host(a) for a in o))
        if env.cupy:
            ck, cv, out_c = env.cupy_view(d_k, (rows, n)), env.cupy_view(d_v, (rows, n)), {}
            cp = env.cupy
            if pairs:
                def cupy_pairs() -> Any:
                    order = cp.argsort(ck, axis=1)
                    return cp.take_along_axis(ck, order, axis=1), cp.take_along_axis(cv, order, axis=1)

                impls["cupy.argsort + take_along_axis"] = Impl(env.on_cupy(cupy_pairs, out_c),
                                                               lambda: tuple(host(a) for a in out_c["result"]))
            else:
                impls["cupy.sort"] = Impl(env.on_cupy(lambda: cp.sort(ck, axis=1), out_c),
                                          lambda: (host(out_c["result"]),))
        moved = 2 * rows * n * (8 if pairs else 4)
        auto = auto_picks(pick, {"float32": "float32", **({"int32": "int32"} if pairs else {})})
        return Setup(impls, missing_peers(env) | _long_rows(env, n), check, moved, pick, alternatives, auto)

    return Task("row sort", f"{rows}x{n} float32 {'pairs (int32 values)' if pairs else 'keys'}", build, quick)


# --- whole arrays: 256-bin byte histogram and sum -----------------------------------------------------------------

_CUPY_HISTOGRAM = r"""
extern "C" __global__ void byte_histogram(const unsigned char* data, long long n, unsigned long long* hist)
{  // shared-memory counters, 16-byte loads, one atomic per bin and block into global memory
  __shared__ unsigned int counts[256];
  for (int b = threadIdx.x; b < 256; b += blockDim.x) counts[b] = 0;
  __syncthreads();
  const long long stride = (long long)gridDim.x * blockDim.x, first = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  const uint4* vectors = reinterpret_cast<const uint4*>(data);  // data starts an allocation: 256-byte aligned
  for (long long i = first; i < n / 16; i += stride) {
    const uint4 v = vectors[i];
    const unsigned int words[4] = {v.x, v.y, v.z, v.w};
    for (int w = 0; w < 4; ++w)
      for (int shift = 0; shift < 32; shift += 8) atomicAdd(&counts[(words[w] >> shift) & 0xFF], 1u);
  }
  for (long long i = n / 16 * 16 + first; i < n; i += stride) atomicAdd(&counts[data[i]], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < 256; b += blockDim.x) atomicAdd(&hist[b], (unsigned long long)counts[b]);
}
"""


def histogram(n: int, *, quick: bool = False) -> Task:
    def build(env: Env, rng: np.random.Generator) -> Setup:
        data = rng.integers(0, 256, n, dtype=np.uint8)
        want = np.bincount(data, minlength=256).astype(np.int64)
        d = to_device(data)
        pick = coop.row_shape(n, np.uint8)
        alternatives = neighbours(pick)

        def make(shape: Any, load: str) -> Impl:
            partial = cuda.device_array(recipe_histogram.resident_blocks(shape, n) * 256, np.uint32)
            hist = poisoned(256, np.int64, -1)
            return Impl(lambda: recipe_histogram.byte_histogram(d, hist, partial, shape=shape,
                                                                stream=env.numba_stream, load=load),
                        lambda: (host(hist),))

        impls = coop_impls(pick, alternatives, make)
        if env.torch:
            td, out = env.torch_view(d, (n,)), {}
            impls["torch.bincount"] = Impl(env.on_torch(lambda: env.torch.bincount(td, minlength=256), out),
                                           lambda: (host(out["result"]),))
        if env.triton:
            def triton_call(warps: int) -> tuple[tuple[Any, ...], Any]:
                h = _torch_full(env, (256,), -1, env.torch.int32)
                return (h,), lambda: env.triton.histogram(td, h, env.sms * 4, warps)

            impls |= _triton(env, "tl.histogram + atomics", 8192, triton_call, lambda h: (host(h),))
        if env.cupy:
            cp = env.cupy
            cd, out_c = env.cupy_view(d, (n,)), {}
            kernel = cp.RawKernel(_CUPY_HISTOGRAM, "byte_histogram")
            counts = cp.zeros(256, dtype=cp.uint64)

            def raw() -> Any:
                counts.fill(0)
                kernel((env.sms * 8,), (256,), (cd, np.int64(n), counts))
                return counts

            impls["cupy.RawKernel (shared atomics)"] = Impl(env.on_cupy(raw, out_c),
                                                            lambda: (host(out_c["result"]).astype(np.int64),))
            out_b: dict[str, Any] = {}
            impls["cupy.bincount"] = Impl(env.on_cupy(lambda: cp.bincount(cd, minlength=256), out_b),
                                          lambda: (host(out_b["result"]).astype(np.int64),))
        return Setup(impls, missing_peers(env), lambda out: equal(out[0].astype(np.int64), want), n + 256 * 8, pick,
                     alternatives, auto_picks(pick, {"uint8": "uint8"}))

    return Task("byte histogram", f"{n} uint8, 256 bins", build, quick)


def total(n: int, *, quick: bool = False) -> Task:
    def build(env: Env, rng: np.random.Generator) -> Setup:
        x = rng.random(n, dtype=np.float32)          # all positive: a missed tile moves the sum far past the bound
        exact = float(x.sum(dtype=np.float64))
        bound = 64 * float(np.finfo(np.float32).eps) * exact   # float32 rounding of any order of additions

        def check(out: tuple[np.ndarray, ...]) -> str:
            got = out[0].astype(np.float64).reshape(-1)
            if got.shape != (1,) or not abs(got[0] - exact) <= bound:
                return f"wrong: {got.tolist()}, expected {exact} within {bound:.3g}"
            return "ok"

        d_x = to_device(x)
        pick = coop.row_shape(n, np.float32)
        alternatives = neighbours(pick)

        def make(shape: Any, load: str) -> Impl:
            partial = cuda.device_array(recipe_sum.resident_blocks(shape, n), np.float32)
            out = poisoned(1, np.float32, np.nan)
            return Impl(lambda: recipe_sum.array_sum(d_x, out, partial, shape=shape, stream=env.numba_stream,
                                                     load=load), lambda: (host(out),))

        impls = coop_impls(pick, alternatives, make)
        if env.torch:
            tx, out_t = env.torch_view(d_x, (n,)), {}
            impls["torch.sum"] = Impl(env.on_torch(lambda: env.torch.sum(tx), out_t), lambda: (host(out_t["result"]),))
        if env.triton:
            def triton_call(warps: int) -> tuple[tuple[Any, ...], Any]:
                o = _torch_full(env, (1,), np.nan, env.torch.float32)
                return (o,), lambda: env.triton.total(tx, o, env.sms * 4, warps)

            impls |= _triton(env, "tl.sum + atomic_add", 4096, triton_call, lambda o: (host(o),))
        if env.cupy:
            cx, out_c = env.cupy_view(d_x, (n,)), {}
            impls["cupy.sum"] = Impl(env.on_cupy(lambda: env.cupy.sum(cx), out_c), lambda: (host(out_c["result"]),))
        return Setup(impls, missing_peers(env), check, n * 4, pick, alternatives,
                     auto_picks(pick, {"float32": "float32"}))

    return Task("whole-array sum", f"{n} float32", build, quick)


# --- the run ------------------------------------------------------------------------------------------------------


def tasks(check_only: bool = False) -> list[Task]:
    """The rows of a run (issue 41's sizes; ``quick`` marks the ``--quick`` subset), or with ``check_only`` every
    task at a size of seconds whose rows are partial tiles (1000 items) and not powers of two."""
    if check_only:
        return [top_k(8, 1000, d, 8) for d in ("float32", "float16", "bfloat16")] + [
            top_k(8, 20000, "float32", 64), softmax(8, 1000, "float32"), softmax(8, 1000, "float16"),
            layer_norm(8, 1000), arg(8, 1000), arg(8, 1000, largest=False), cumsum(8, 1000, "float32"),
            cumsum(8, 1000, "int32"), sort(8, 1000), sort(8, 1000, pairs=True), histogram(100_003),
            total(100_003)]
    return [
        top_k(16384, 1024, "float32", 8, quick=True), top_k(16384, 1024, "float32", 1),
        top_k(16384, 1024, "float32", 32), top_k(16384, 1024, "float32", 64), top_k(4096, 4096, "float32", 8),
        top_k(4096, 4096, "float32", 32), top_k(2048, 8192, "float32", 8), top_k(2048, 8192, "float32", 64),
        top_k(16384, 1024, "float16", 8), top_k(16384, 1024, "bfloat16", 32, quick=True),
        top_k(4096, 4096, "bfloat16", 8),
        softmax(4096, 4096, "float32", quick=True), softmax(32768, 1024, "float32"), softmax(4096, 4096, "float16"),
        layer_norm(4096, 4096, quick=True), layer_norm(32768, 1024),
        arg(65536, 1024, quick=True), arg(65536, 1024, largest=False), arg(4096, 4096),
        cumsum(65536, 1024, "float32", quick=True), cumsum(65536, 1024, "int32"),
        sort(65536, 1024, quick=True), sort(65536, 1024, pairs=True),
        histogram(1 << 28, quick=True), total(1 << 28, quick=True),
    ]
