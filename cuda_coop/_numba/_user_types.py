"""Records and tuples as cuda-coop user types, and the dtype names of numba types.

A numba Record (a NumPy structured dtype made with align=True) or a tuple of scalars is bound to the
provider as a user type: an opaque aligned byte struct (``_specs._types.user_type``) whose name and C++
spelling digest the numba type's spelling (field names, types, offsets; a tuple's member types), so two
layouts never share a specialisation. Its values cross the wrappers' C ABI by pointer, laid out as the
C struct of its fields: a record is already that (numba keeps a pointer to its bytes); a tuple is laid
out as the aligned record of its members (``_carrier``), which is what the kernel's stack slot holds
and what the user operator's shim reads (``_pointer_abi``).

Each DSL has its own :class:`UserTypes` (on its ``Frontend``): the numba types it keeps are the DSL's.
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

from .._specs._types import DSL_DTYPES, ValueType, user_type

__all__ = ["MEMBERS", "UserTypes"]

_NUMBA_NAMES = {"__nv_bfloat16": "bfloat16"}
"""numba type names that differ from cuda-coop's dtype names."""
MEMBERS = (*(d for d in DSL_DTYPES if d not in ("bfloat16", "complex64", "complex128")), "bool")
"""Types a record field or a tuple member may have."""


class UserTypes:
    """The user types (records, tuples) of one DSL, by name, and how its numba types are named.

    Module state: ``_user`` (user type name -> (the kernel's numba type, its C layout as a numba Record)),
    filled as kernels are typed; entries never change once added (the name digests the layout).
    """

    def __init__(self, types: Any, from_dtype: Any) -> None:
        self.types = types
        self._from_dtype = from_dtype
        self._user: dict[str, tuple[Any, Any]] = {}
        self._lock = threading.Lock()

    def __contains__(self, name: object) -> bool:
        return name in self._user

    def type_name(self, ty: Any) -> str:
        """cuda-coop's dtype name of a numba type, or of an array's element type (``bfloat16``, not
        ``__nv_bfloat16``)."""
        types = self.types
        name = str(ty.dtype if isinstance(ty, types.Array) else types.unliteral(ty))
        return _NUMBA_NAMES.get(name, name)

    def describe(self, ty: Any) -> str:
        """A user type as the kernel author knows it (a record by its fields, without offsets)."""
        types = self.types
        ty = types.unliteral(ty)
        if isinstance(ty, types.Record):
            return "record {" + ", ".join(f"{n}: {self.type_name(t)}" for n, t in ty.members) + "}"
        if isinstance(ty, types.BaseTuple) and not isinstance(ty, types.BaseNamedTuple):
            return str(types.Tuple(tuple(types.unliteral(t) for t in ty)))
        return str(ty)

    def member_name(self, ty: Any) -> str | None:
        types = self.types
        ty = types.unliteral(ty)
        if isinstance(ty, types.Boolean):
            return "bool"
        if not isinstance(ty, types.Number):  # a nested array or record, a tuple
            return None
        name = self.type_name(ty)
        return name if name in MEMBERS else None

    def _carrier(self, ty: Any) -> Any:
        """The numba Record laid out as C lays out the tuple ``ty``'s members (NumPy's align=True is C's rule)."""
        fields = [(f"f{k}", np.dtype("bool" if m == "bool" else m)) for k, m in enumerate(map(self.member_name, ty))]
        return self._from_dtype(np.dtype(fields, align=True))

    def value_type(self, ty: Any) -> tuple[ValueType | None, str]:
        """(The user value type of a record or tuple numba type, or None; why not, when it is a record or a tuple)."""
        types = self.types
        ty = types.unliteral(ty)
        if isinstance(ty, types.Record):
            bad = [n for n, t in ty.members if self.member_name(t) is None]
            if bad:
                return None, (
                    f"its field(s) {', '.join(bad)} are not scalars of {', '.join(MEMBERS)} (nested records, "
                    "sub-arrays, bfloat16 and complex fields are not taken)"
                )
            if not ty.aligned:
                return None, "its dtype is packed; make it with np.dtype([...], align=True) so that C can lay it out"
            carrier = ty
        elif isinstance(ty, types.BaseTuple) and not isinstance(ty, types.BaseNamedTuple):
            bad = [str(t) for t in ty if self.member_name(t) is None]
            if bad or len(ty) == 0:
                return None, (
                    f"its member(s) {', '.join(bad) or '(none)'} are not scalars of {', '.join(MEMBERS)}; a tuple "
                    "item holds one or more scalars"
                )
            ty = types.Tuple(tuple(types.unliteral(t) for t in ty))
            carrier = self._carrier(ty)
        else:
            return None, ""
        vt = user_type(carrier.size, carrier.dtype.alignment, layout=str(ty))
        with self._lock:
            self._user.setdefault(vt.name, (ty, carrier))
        return vt, ""

    def numba_type(self, name: str) -> Any:
        """The kernel's numba type (a Record or a tuple) of the user type ``name``."""
        return self._user[name][0]

    def layout(self, name: str) -> Any:
        """The C layout (a numba Record) of the user type ``name`` that :meth:`value_type` made."""
        return self._user[name][1]
