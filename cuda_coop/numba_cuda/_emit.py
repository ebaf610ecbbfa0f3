"""Emit a wrapper call in numba-cuda's lowering (llvmlite), with the C ABI the provider declares.

The parameters come from the shared core (``_numba._call.WrapperCall``): by value (an array as its data
pointer, ``&array[offset]`` for an :class:`~cuda_coop._numba._call.Advanced`), or by pointer to a stack slot of
the stated alignment (pointer-ABI values, records and tuples laid out as C structs, results). The function type
and the call follow ``numba.cuda.core.callconv.CUDACABICallConv``, the ABI of
``cuda.declare_device(..., abi="c")`` (a bool crosses as a byte). After LTO inlining the slots are registers.
"""

from __future__ import annotations

from typing import Any

from llvmlite import ir as llvm

from .._numba._call import Advanced, WrapperCall
from ._seams import types

__all__ = ["emit_call"]


def _data_pointer(context: Any, builder: Any, aryty: Any, value: Any) -> Any:
    return context.make_array(aryty)(context, builder, value=value).data


def _advanced(context: Any, builder: Any, arg: Advanced, values: dict[str, tuple[Any, Any]]) -> Any:
    """``&array[offset]``: the array's data pointer advanced by ``offset`` items (one ``getelementptr``)."""
    aryty, ary = values[arg.array]
    data = _data_pointer(context, builder, aryty, ary)
    if arg.offset is None:
        return data
    offty, off = values[arg.offset]
    index = context.cast(builder, off, offty, types.int64)
    return builder.gep(data, [index], inbounds=True)


def _slot(context: Any, builder: Any, ty: Any, align: int) -> Any:
    """A stack slot (in the entry block) holding one ``ty``; a Record is its bytes."""
    from numba.cuda import cgutils

    slot = cgutils.alloca_once(builder, context.get_data_type(ty))
    slot.align = align
    return slot


def _field(builder: Any, slot: Any, offset: int, llty: Any) -> Any:
    raw = builder.bitcast(slot, llvm.IntType(8).as_pointer())
    return builder.bitcast(builder.gep(raw, [llvm.Constant(llvm.IntType(64), offset)]), llty.as_pointer())


def _store(context: Any, builder: Any, slot: Any, ty: Any, *, valty: Any, value: Any) -> None:
    """Store ``value`` (of numba type ``valty``) in ``slot`` as ``ty``: a tuple member by member at the fields of
    the Record ``ty``, else the value converted to ``ty``."""
    if isinstance(ty, types.Record):
        for k, (name, fty) in enumerate(ty.members):
            member = context.cast(builder, builder.extract_value(value, k), valty[k], fty)
            ptr = _field(builder, slot, ty.offset(name), context.get_data_type(fty))
            context.pack_value(builder, fty, member, ptr, align=ty.dtype.fields[name][0].alignment)
        return
    context.pack_value(builder, ty, context.cast(builder, value, valty, ty), slot)


def _load(context: Any, builder: Any, slot: Any, ty: Any, view: Any) -> Any:
    """A result slot as the kernel sees it (``view``): a record is the slot itself (a pointer to its bytes), a tuple
    the tuple of its fields, else the value."""
    if not isinstance(ty, types.Record):
        return context.unpack_value(builder, ty, slot)
    if isinstance(view, types.Record):
        return builder.bitcast(slot, context.get_value_type(view))
    members = []
    for name, fty in ty.members:
        ptr = _field(builder, slot, ty.offset(name), context.get_data_type(fty))
        members.append(context.unpack_value(builder, fty, ptr))
    return context.make_tuple(builder, view, members)


def emit_call(
    context: Any, builder: Any, call: WrapperCall, values: dict[str, tuple[Any, Any]], *, result: Any
) -> Any:
    """Call ``call.symbol`` and return the call site's result (of numba type ``result``).

    ``values``: the call site's runtime arguments by name, ``(numba type, LLVM value)``; ``call.params`` name them
    (a param's value is the argument's name, an :class:`Advanced` of names, or None for a result slot).
    """
    from numba.cuda import cgutils
    from numba.cuda.core.callconv import CUDACABICallConv

    argtys: list[Any] = []
    args: list[Any] = []
    slots: list[tuple[Any, Any]] = []
    for value, ty, align in call.params:
        if align is None:
            if isinstance(value, Advanced):
                argtys.append(ty)
                args.append(builder.bitcast(_advanced(context, builder, value, values), context.get_value_type(ty)))
                continue
            valty, llval = values[value]
            if isinstance(valty, types.Array):
                pointer = _data_pointer(context, builder, valty, llval)
                argtys.append(ty)
                args.append(builder.bitcast(pointer, context.get_value_type(ty)))
            else:
                argtys.append(ty)
                args.append(context.cast(builder, llval, valty, ty))
            continue
        pointer_type = types.CPointer(ty)
        if value is not None and isinstance(ty, types.Record) and isinstance(values[value][0], types.Record):
            argtys.append(pointer_type)  # a record is a pointer to its bytes already
            args.append(builder.bitcast(values[value][1], context.get_value_type(pointer_type)))
            continue
        slot = _slot(context, builder, ty, align)
        if value is None:
            slots.append((slot, ty))
        else:
            valty, llval = values[value]
            _store(context, builder, slot, ty, valty=valty, value=llval)
        argtys.append(pointer_type)
        args.append(builder.bitcast(slot, context.get_value_type(pointer_type)))
    returns = types.none if slots else call.returns
    conv = CUDACABICallConv(context)
    fnty = conv.get_function_type(returns, argtys)
    fn = cgutils.get_or_insert_function(builder.module, fnty, call.symbol)
    _, out = conv.call_function(builder, fn, returns, argtys, args)
    if not slots:
        return out if returns not in (types.none, types.void) else context.get_dummy_value()
    views = [result] if len(slots) == 1 else list(result)
    loaded = [_load(context, builder, slot, ty, view) for (slot, ty), view in zip(slots, views, strict=True)]
    return loaded[0] if len(loaded) == 1 else context.make_tuple(builder, result, loaded)
