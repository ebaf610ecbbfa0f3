"""The Triton kernels ``peers.py`` times against the recipes: what a Triton user writes for each task.

One program per row, the whole row in one block of ``next_power_of_2(n)`` lanes (masked past ``n``), as in Triton's
fused-softmax tutorial; each launcher takes ``num_warps`` so that peers.py can time several and keep the fastest.
Top-k with indices packs each key's order-preserving bits and its position into one int64 and takes ``tl.topk`` of
those (``tl.topk`` returns values only); sorting pairs packs key and value the same way (ties then sort by value,
which the pairs check accepts). The histogram and the sum are persistent grid-stride kernels that add their
program's result to the output with atomics.

Importing this module imports Triton and PyTorch (Triton's launcher takes torch tensors and launches on torch's
current stream): peers.py imports it only when both are installed.
"""

from __future__ import annotations

import torch
import triton
import triton.language as tl


@triton.jit
def _ordered(x):
    """float32 -> int32 whose signed order is the float order (negative floats have their other bits flipped)."""
    bits = x.to(tl.int32, bitcast=True)
    return bits ^ ((bits >> 31) & 0x7FFFFFFF)


@triton.jit
def _softmax(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < n
    x = tl.load(x_ptr + row * n + cols, mask=mask, other=-float("inf")).to(tl.float32)
    z = tl.exp(x - tl.max(x, axis=0))
    y = z / tl.sum(z, axis=0)
    tl.store(y_ptr + row * n + cols, y.to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _layer_norm(x_ptr, w_ptr, b_ptr, y_ptr, n, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < n
    x = tl.load(x_ptr + row * n + cols, mask=mask, other=0.0).to(tl.float32)
    mean = tl.sum(x, axis=0) / n
    d = tl.where(mask, x - mean, 0.0)
    rstd = 1.0 / tl.sqrt(tl.sum(d * d, axis=0) / n + eps)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    tl.store(y_ptr + row * n + cols, (d * rstd * w + b).to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _arg(x_ptr, v_ptr, i_ptr, n, BLOCK: tl.constexpr, LARGEST: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < n
    if LARGEST:
        x = tl.load(x_ptr + row * n + cols, mask=mask, other=-float("inf"))
        v, i = tl.max(x, axis=0, return_indices=True)
    else:
        x = tl.load(x_ptr + row * n + cols, mask=mask, other=float("inf"))
        v, i = tl.min(x, axis=0, return_indices=True)
    tl.store(v_ptr + row, v)
    tl.store(i_ptr + row, i.to(tl.int64))


@triton.jit
def _cumsum(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < n
    x = tl.load(x_ptr + row * n + cols, mask=mask, other=0)
    tl.store(y_ptr + row * n + cols, tl.cumsum(x, axis=0).to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _sort(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < n
    x = tl.load(x_ptr + row * n + cols, mask=mask, other=float("inf"))   # padding sorts last
    tl.store(y_ptr + row * n + cols, tl.sort(x), mask=mask)


@triton.jit
def _sort_pairs(k_ptr, v_ptr, ko_ptr, vo_ptr, n, BLOCK: tl.constexpr):
    """float32 keys with int32 values: (ordered key << 32) | value bits, sorted as int64."""
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < n
    k = tl.load(k_ptr + row * n + cols, mask=mask, other=float("inf"))
    v = tl.load(v_ptr + row * n + cols, mask=mask, other=0)
    packed = (_ordered(k).to(tl.int64) << 32) | (v.to(tl.uint32, bitcast=True).to(tl.int64))
    s = tl.sort(packed)
    ordered = (s >> 32).to(tl.int32)
    keys = (ordered ^ ((ordered >> 31) & 0x7FFFFFFF)).to(tl.float32, bitcast=True)   # _ordered is its own inverse
    values = (s & 0xFFFFFFFF).to(tl.uint32).to(tl.int32, bitcast=True)
    tl.store(ko_ptr + row * n + cols, keys, mask=mask)
    tl.store(vo_ptr + row * n + cols, values, mask=mask)


@triton.jit
def _top_k(x_ptr, v_ptr, i_ptr, n, k, BLOCK: tl.constexpr, K: tl.constexpr):
    """The k largest of each row and their positions; K = next_power_of_2(k) (``tl.topk`` takes powers of two)."""
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < n
    x = tl.load(x_ptr + row * n + cols, mask=mask, other=-float("inf")).to(tl.float32)
    packed = (_ordered(x).to(tl.int64) << 32) | (BLOCK - 1 - cols).to(tl.int64)   # ties: the lower position
    top = tl.topk(packed, K)
    where = BLOCK - 1 - (top & 0x7FFFFFFF).to(tl.int32)
    out = tl.arange(0, K)
    keep = out < k
    tl.store(v_ptr + row * k + out, tl.load(x_ptr + row * n + where), mask=keep)
    tl.store(i_ptr + row * k + out, where.to(tl.int64), mask=keep)


@triton.jit
def _histogram(x_ptr, hist_ptr, n, BLOCK: tl.constexpr):
    program, programs = tl.program_id(0), tl.num_programs(0)
    counts = tl.zeros([256], dtype=tl.int32)
    padded = tl.zeros([BLOCK], dtype=tl.int32)                        # masked lanes, counted in bin 0
    for start in range(program * BLOCK, n, programs * BLOCK):
        offs = start + tl.arange(0, BLOCK)
        mask = offs < n
        counts += tl.histogram(tl.load(x_ptr + offs, mask=mask, other=0).to(tl.int32), 256)
        padded += (offs >= n).to(tl.int32)
    bins = tl.arange(0, 256)
    counts -= tl.where(bins == 0, tl.sum(padded, axis=0), 0)
    tl.atomic_add(hist_ptr + bins, counts)


@triton.jit
def _sum(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    program, programs = tl.program_id(0), tl.num_programs(0)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(program * BLOCK, n, programs * BLOCK):
        offs = start + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + offs, mask=offs < n, other=0.0).to(tl.float32)
    tl.atomic_add(out_ptr, tl.sum(acc, axis=0))


MAX_ROW = 8192
"""The longest row these kernels take: one program holds the whole row (a longer one would loop over blocks)."""


def warps(n: int) -> tuple[int, ...]:
    """The ``num_warps`` peers.py times for a row of ``n`` items (the tutorial's choice among them); none for a row
    longer than :data:`MAX_ROW`."""
    block = triton.next_power_of_2(n)
    if block > MAX_ROW:
        return ()
    return (4, 8) if block < 2048 else (8, 16) if block < 8192 else (16, 32)


def softmax(x: torch.Tensor, y: torch.Tensor, num_warps: int) -> None:
    rows, n = x.shape
    _softmax[(rows,)](x, y, n, BLOCK=triton.next_power_of_2(n), num_warps=num_warps)


def layer_norm(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor, y: torch.Tensor, eps: float, num_warps: int) -> None:
    rows, n = x.shape
    _layer_norm[(rows,)](x, w, b, y, n, eps, BLOCK=triton.next_power_of_2(n), num_warps=num_warps)


def arg(x: torch.Tensor, values: torch.Tensor, where: torch.Tensor, largest: bool, num_warps: int) -> None:
    rows, n = x.shape
    _arg[(rows,)](x, values, where, n, BLOCK=triton.next_power_of_2(n), LARGEST=largest, num_warps=num_warps)


def cumsum(x: torch.Tensor, y: torch.Tensor, num_warps: int) -> None:
    rows, n = x.shape
    _cumsum[(rows,)](x, y, n, BLOCK=triton.next_power_of_2(n), num_warps=num_warps)


def sort(x: torch.Tensor, y: torch.Tensor, num_warps: int) -> None:
    rows, n = x.shape
    _sort[(rows,)](x, y, n, BLOCK=triton.next_power_of_2(n), num_warps=num_warps)


def sort_pairs(k: torch.Tensor, v: torch.Tensor, ko: torch.Tensor, vo: torch.Tensor, num_warps: int) -> None:
    rows, n = k.shape
    _sort_pairs[(rows,)](k, v, ko, vo, n, BLOCK=triton.next_power_of_2(n), num_warps=num_warps)


def top_k(x: torch.Tensor, values: torch.Tensor, where: torch.Tensor, k: int, num_warps: int) -> None:
    rows, n = x.shape
    _top_k[(rows,)](x, values, where, n, k, BLOCK=triton.next_power_of_2(n), K=triton.next_power_of_2(k),
                    num_warps=num_warps)


def histogram(x: torch.Tensor, hist: torch.Tensor, programs: int, num_warps: int) -> None:
    """``hist`` (256 int32) = the byte counts of ``x`` (fewer than 2**31 bytes): zeroed, then every program adds its
    counts."""
    hist.zero_()
    _histogram[(programs,)](x, hist, x.numel(), BLOCK=8192, num_warps=num_warps)


def total(x: torch.Tensor, out: torch.Tensor, programs: int, num_warps: int) -> None:
    """``out[0]`` = the float32 sum of ``x``: zeroed, then every program adds its sum."""
    out.zero_()
    _sum[(programs,)](x, out, x.numel(), BLOCK=4096, num_warps=num_warps)
