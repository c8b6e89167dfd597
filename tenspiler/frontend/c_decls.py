"""Declarations of a C translation unit and the types they name: scalar types (C's
integer, floating and ``uint8_t`` types as loop-IR dtypes; ``unsigned`` and ``short`` refused),
typedefs, pointer and array parameters, C++ vector types and struct parameters passed by value
(their fields, for flattening: :meth:`tenspiler.frontend.c_stmts.Kernel.struct_param`)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import NoReturn

from pycparser import c_ast

from tenspiler.errors import BadInput, SourceLoc
from tenspiler.frontend.c_bindings import (
    Env,
    FieldType,
    RowsType,
    StructType,
    c_width,
    describe,
    unsigned_spelling,
)
from tenspiler.frontend.c_parse import BUILTIN_TYPEDEFS, PRELUDE_TYPEDEFS
from tenspiler.frontend.c_switch import lower_switches
from tenspiler.frontend.c_types import TypeGate
from tenspiler.frontend.cxx import VectorType
from tenspiler.frontend.preprocess import char_is_signed
from tenspiler.loops.ir import DType, PointerType, ScalarType, Type

__all__ = ["Declarations"]

_INT_WORDS = frozenset({"int", "long", "short", "signed", "unsigned"})


class Declarations:
    """One translation unit: its helper functions, typedefs and struct definitions, and the
    types its declarations name (the bottom of :class:`tenspiler.frontend.c_inline.Unit`)."""

    def __init__(
        self,
        filename: str,
        text: str,
        vectors: dict[str, VectorType] | None = None,
        cxx: bool = False,
    ) -> None:
        self.filename = filename
        self.text = text
        #: C++ only: vector typedef names (see :mod:`tenspiler.frontend.cxx`).
        self.vectors = vectors or {}
        self.cxx = cxx
        self.funcdefs: dict[str, c_ast.FuncDef] = {}
        self.prototypes: set[str] = set()
        self.typedefs: dict[str, c_ast.Node] = {}
        #: Struct definitions (with their fields) by tag.
        self.structs: dict[str, c_ast.Struct] = {}
        #: Enum definitions (with their enumerators) by tag, and every enumeration constant
        #: of a file-scope enum definition with its value (type ``int``, C11 §6.7.2.2p3).
        self.enums: dict[str, c_ast.Enum] = {}
        self.enum_constants: dict[str, int] = {}
        #: The types of enumerations, by ``id`` of their definition: ``True`` for
        #: ``unsigned int`` (GCC: no negative enumerator), ``False`` for ``int``.
        self.enum_unsigned: dict[int, bool] = {}
        #: File-scope ``const`` objects with an initialiser (``static const float s = 0.5f;``,
        #: ``static const float c[3] = {...};``): their declarations by name.
        self.file_consts: dict[str, c_ast.Decl] = {}
        #: Other file-scope scalar variables the kernel reads (``int GS;``): each is a
        #: parameter of the lifted function, its value when the function is called.
        self.file_vars: dict[str, c_ast.Decl] = {}
        #: Array parameters whose null tests were read as false (``Access.null_truth``).
        self.null_tested: set[str] = set()
        #: The C11 typing of the chosen kernel (and its helpers): the lowering reads the C
        #: type of an arithmetic node from it (``unsigned int`` arithmetic wraps).
        self.gate: TypeGate | None = None

    # ----------------------------------------------------------- errors and locations

    def loc(self, node: c_ast.Node | None) -> SourceLoc | None:
        coord = getattr(node, "coord", None)
        if coord is None:
            return None
        return SourceLoc(coord.file or self.filename, coord.line, coord.column or 1)  # a header helper: its header

    def fail(self, message: str, node: c_ast.Node | None) -> NoReturn:
        raise BadInput(message, self.loc(node) or SourceLoc(self.filename, 1, 1))

    # ----------------------------------------------------------- top level

    def kernel_def(self, ext: list[c_ast.Node], function: str | None) -> c_ast.FuncDef:
        """Record the top-level nodes ``ext`` of the unit and choose the kernel: ``function``,
        default the last non-``static`` function defined; it is typed by C11 §6.3
        (:meth:`type_gate`) before it is lowered."""
        order: list[str] = []
        for node in ext:
            if isinstance(node, c_ast.FuncDef):
                name = node.decl.name
                if name in self.funcdefs:
                    self.fail(f"function '{name}' is defined twice", node)
                node.body = lower_switches(node.body)  # switch statements as if/else chains
                self.funcdefs[name] = node
                order.append(name)
            elif isinstance(node, c_ast.Typedef):
                self.typedefs[node.name] = node.type
                self.note_structs(node.type)
                self.note_enums(node.type)
            elif isinstance(node, c_ast.Decl):
                if isinstance(node.type, c_ast.FuncDecl):
                    self.prototypes.add(node.name)
                elif node.name is None and isinstance(
                    node.type, c_ast.Struct | c_ast.Union | c_ast.Enum
                ):
                    self.note_structs(node.type)
                    self.note_enums(node.type)
                    continue  # a type declaration; refused where the type is used
                else:
                    self.note_enums(node.type)
                    self.note_file_const(node)
            else:
                self.fail(f"top-level {describe(node)} is not supported", node)

        first_line = SourceLoc(self.filename, 1, 1)
        if function is not None:
            if function not in self.funcdefs:
                defined = ", ".join(order) if order else "(none)"
                raise BadInput(
                    f"function '{function}' is not defined in {self.filename}; defined: {defined}",
                    first_line,
                )
            chosen = self.funcdefs[function]
        else:
            public = [n for n in order if "static" not in self.funcdefs[n].decl.storage]
            if not public:
                raise BadInput(f"no non-static function is defined in {self.filename}", first_line)
            chosen = self.funcdefs[public[-1]]
        self.gate = self.type_gate()
        self.gate.check_function(chosen)
        #: the C type of each counted loop's counter (by ``id`` of the loop node)
        self.gate_counter_types = self.gate.counter_types
        return chosen

    def note_enums(self, ty: c_ast.Node) -> None:
        """Record the enum definitions in type node ``ty`` and their constants' values
        (C11 §6.7.2.2p3: an enumerator without ``= E`` is the previous one plus 1, the first
        0). A value that is not an integer constant expression this reader folds, or lies
        outside ``int``, leaves the constant unrecorded (refused where it is used)."""
        while isinstance(ty, c_ast.TypeDecl | c_ast.PtrDecl | c_ast.ArrayDecl):
            ty = ty.type
        if not isinstance(ty, c_ast.Enum) or ty.values is None:
            return
        if ty.name is not None:
            self.enums[ty.name] = ty
        nxt: int | None = 0
        values: list[int | None] = []
        for e in ty.values.enumerators:
            v = nxt if e.value is None else self.enum_value(e.value)
            if v is not None and not -(2**31) <= v < 2**31:
                v = None
            if v is not None:
                self.enum_constants[e.name] = v
            values.append(v)
            nxt = None if v is None else v + 1
        if all(v is not None for v in values):
            self.enum_unsigned[id(ty)] = all(v >= 0 for v in values if v is not None)

    def enum_value(self, node: c_ast.Node) -> int | None:
        """The value of an enumerator's integer constant expression: literals, earlier
        enumerators, unary ``- + ~``, binary ``+ - * / %`` (C's truncation), ``| & ^``
        and shifts of a non-negative value by ``0..30`` (``int`` arithmetic: every step must
        stay in ``int``), else ``None``."""
        from tenspiler.frontend.c_types import literal_type

        match node:
            case c_ast.Constant(type=kind, value=text) if "int" in kind:
                typed = literal_type(text)
                return typed[1] if typed is not None and typed[0].signed else None
            case c_ast.ID(name=name):
                return self.enum_constants.get(name)
            case c_ast.UnaryOp(op="-" | "+" | "~" as op, expr=e):
                v = self.enum_value(e)
                if v is None:
                    return None
                r = -v if op == "-" else ~v if op == "~" else v
                return r if -(2**31) <= r < 2**31 else None
            case c_ast.BinaryOp(op=op, left=a, right=b):
                x, y = self.enum_value(a), self.enum_value(b)
                if x is None or y is None:
                    return None
                if op in ("/", "%"):
                    if y == 0:
                        return None
                    q = abs(x) // abs(y) * (1 if (x >= 0) == (y > 0) else -1)
                    r = q if op == "/" else x - y * q
                elif op in ("<<", ">>"):
                    if x < 0 or not 0 <= y <= 30:
                        return None
                    r = x << y if op == "<<" else x >> y
                else:
                    ops = {"+": x + y, "-": x - y, "*": x * y, "|": x | y, "&": x & y, "^": x ^ y}
                    if op not in ops:
                        return None
                    r = ops[op]
                return r if -(2**31) <= r < 2**31 else None
        return None

    def enum_of(self, ty: c_ast.Node) -> c_ast.Enum | None:
        """The enumeration named by type node ``ty`` (``enum tag``, a typedef of it, or an
        enum defined in place), with its enumerators; ``None`` if ``ty`` is not an enum."""
        ty = self.resolve_typedefs(ty)
        if not (isinstance(ty, c_ast.TypeDecl) and isinstance(ty.type, c_ast.Enum)):
            return None
        en = ty.type
        if en.values is None and en.name is not None:
            return self.enums.get(en.name, en)
        return en

    def note_file_const(self, node: c_ast.Decl) -> None:
        """A file-scope object declaration: a ``const`` scalar or array of the scalar types
        with an initialiser (its value can only be the initialiser's: modifying a const
        object is undefined behaviour, C11 §6.7.3p6) is recorded as a constant; another
        scalar variable as a global the kernel reads (:attr:`file_vars`); any other global
        variable (arrays, pointers, structs that are not constant) is refused."""
        ty = self.resolve_typedefs(node.type)
        elem = ty.type if isinstance(ty, c_ast.ArrayDecl) else ty
        elem = self.resolve_typedefs(elem)
        const = isinstance(elem, c_ast.TypeDecl) and "const" in elem.quals
        if "extern" in node.storage or "_Thread_local" in node.storage:
            const = False
        if (not const or node.init is None) and node.name is not None and isinstance(ty, c_ast.TypeDecl) and isinstance(
            ty.type, c_ast.IdentifierType
        ):
            # a global scalar the kernel reads (the file holds only what the kernel needs),
            # also an extern constant defined elsewhere: its value at the call, a parameter
            # (c_stmts.Kernel.lower refuses writes to it)
            if node.name in self.file_vars:
                self.fail(f"global variable '{node.name}' is declared twice", node)
            self.file_vars[node.name] = node
            return
        if not const or node.init is None or node.name is None:
            what = f"global variable '{node.name}'" if node.name else "global variable"
            self.fail(
                f"{what} is not supported (only file-scope 'const' scalars and arrays with an "
                "initialiser, read as constants)",
                node,
            )
        if node.name in self.file_consts:
            self.fail(f"file-scope constant '{node.name}' is defined twice", node)
        self.file_consts[node.name] = node

    def c_width(self, node: c_ast.Node) -> str:
        """:func:`~tenspiler.frontend.c_bindings.c_width` of ``node`` with the file's typedefs
        resolved (``q63_t`` → ``int64_t`` → ``long``): the C type the compiled code is called
        with. A scalar of an enumeration type without negative constants: ``unsigned int``
        (GCC's type for it)."""
        if isinstance(self.resolve_typedefs(node), c_ast.TypeDecl):
            en = self.enum_of(node)
            if en is not None:
                return "unsigned int" if self.enum_unsigned.get(id(en)) else ""
        inner = node
        while isinstance(inner, c_ast.PtrDecl | c_ast.ArrayDecl | c_ast.TypeDecl):
            inner = inner.type
        seen = 0
        while (isinstance(inner, c_ast.IdentifierType) and len(inner.names) == 1
               and inner.names[0] in self.typedefs and seen < 32):
            found = c_width(inner)
            if found:
                return found
            target = self.typedefs[inner.names[0]]
            while isinstance(target, c_ast.PtrDecl | c_ast.ArrayDecl | c_ast.TypeDecl):
                if not isinstance(target, c_ast.TypeDecl):
                    return ""  # a typedef of a pointer or array: its element is not this width
                target = target.type
            inner, seen = target, seen + 1
        return c_width(inner)

    def type_gate(self) -> TypeGate:
        """The C11 typing of this unit (:mod:`tenspiler.frontend.c_types`)."""

        def fields(ty: c_ast.Node) -> list[c_ast.Decl] | None:
            st = self.struct_of(ty)
            return list(st.decls) if st is not None and st.decls is not None else None

        def vector(ty: c_ast.Node) -> tuple[list[str], int] | None:
            vt = self.vector_type(ty)
            return ([vt.elem], vt.rank) if vt is not None else None

        def enum_unsigned(ty: c_ast.Node) -> bool | None:
            en = self.enum_of(ty)
            return None if en is None else self.enum_unsigned.get(id(en))

        return TypeGate(
            self.filename, self.resolve_typedefs, fields, vector, self.funcdefs,
            char_signed=char_is_signed(),
            enum_unsigned=enum_unsigned,
            file_scope={name: d.type for name, d in self.file_consts.items()},
            enum_constants=self.enum_constants,
        )

    # ----------------------------------------------------------- types

    def note_structs(self, ty: c_ast.Node) -> None:
        """Record the struct definitions (``struct tag { ... }``) in type node ``ty``."""
        while isinstance(ty, c_ast.TypeDecl | c_ast.PtrDecl | c_ast.ArrayDecl):
            ty = ty.type
        if isinstance(ty, c_ast.Struct) and ty.name is not None and ty.decls is not None:
            self.structs[ty.name] = ty

    def struct_of(self, ty: c_ast.Node) -> c_ast.Struct | None:
        """The struct named by type node ``ty`` (a typedef name or ``struct tag``), with its
        fields when the file defines them; ``None`` if ``ty`` is not a struct type (nor a
        C++ vector, whose typedef names are incomplete structs)."""
        ty = self.resolve_typedefs(ty)
        if self.vector_type(ty) is not None:
            return None
        if not (isinstance(ty, c_ast.TypeDecl) and isinstance(ty.type, c_ast.Struct)):
            return None
        st = ty.type
        if st.decls is None and st.name is not None:
            return self.structs.get(st.name, st)
        return st

    def struct_type(self, decl: c_ast.Decl, st: c_ast.Struct, pointer: bool = False) -> StructType:
        """The type of struct parameter ``decl`` (passed by value, or by ``pointer``: ``T *s``
        with ``s->f``): scalar fields, ``T *`` fields (arrays) and ``T **`` fields (rows),
        ``T`` scalar (see the module docstring). A struct passed by value with any other
        field is refused; through a pointer, such a field is refused only where it is used
        (real structs carry many fields a kernel never reads)."""
        what = f"struct parameter '{decl.name}'"
        written = decl.type.type if pointer else decl.type
        if isinstance(written, c_ast.TypeDecl):
            self.check_quals(written.quals, decl)
        match written:
            case c_ast.TypeDecl(type=c_ast.IdentifierType(names=[name])):
                spelled = name
            case c_ast.TypeDecl(type=c_ast.Struct(name=str(tag))):
                spelled = f"struct {tag}"
            case _:
                self.fail(f"{what}: a struct type defined in the parameter list is not supported", decl)
        if st.decls is None:
            self.fail(f"{what} of incomplete type '{spelled}' is not supported", decl)
        if self.cxx:
            self.fail(f"{what} is not supported in the C++ subset", decl)
        fields: list[FieldType] = []
        for f in st.decls:
            try:
                fields.append(self.field_type(f, what, spelled))
            except BadInput as e:
                if not pointer:
                    raise
                if isinstance(f, c_ast.Decl) and f.name is not None:
                    fields.append(FieldType(f.name, DType.INT, False, "", refused=e.message))
        if not fields:
            self.fail(f"{what} without fields is not supported", decl)
        return StructType(spelled, tuple(fields), pointer)

    def field_type(self, f: c_ast.Node, what: str, spelled: str) -> FieldType:
        """One field of a struct parameter's type (refused unless supported)."""
        if not isinstance(f, c_ast.Decl) or f.name is None:
            self.fail(f"unnamed member of '{spelled}' is not supported", f)
        fwhat = f"field '{f.name}' of {what}"
        if f.bitsize is not None:
            self.fail(f"bit-field '{f.name}' of {what} is not supported", f)
        fty = self.resolve_typedefs(f.type)
        if self.struct_of(fty) is not None or (
            isinstance(fty, c_ast.TypeDecl) and isinstance(fty.type, c_ast.Union)
        ):
            self.fail(f"nested struct {fwhat} is not supported", f)
        if isinstance(fty, c_ast.ArrayDecl):
            self.fail(f"array {fwhat} is not supported", f)
        if isinstance(fty, c_ast.PtrDecl):
            inner = self.resolve_typedefs(fty.type)
            rows = isinstance(inner, c_ast.PtrDecl)
            elem_ty = self.resolve_typedefs(inner.type) if rows else inner
            if not isinstance(elem_ty, c_ast.TypeDecl) or self.struct_of(elem_ty) is not None or (
                not rows and self.enum_of(elem_ty) is not None
            ):
                self.fail(
                    f"pointer {fwhat} is not supported (only scalar fields, 'T *' and 'T **' "
                    "fields with T a scalar type)",
                    f,
                )
            self.check_quals(fty.quals, f)
            if rows:
                self.check_quals(inner.quals, f)
            elem = self.scalar_dtype(inner.type if rows else fty.type, fwhat, f)
            if elem is None:
                self.fail(f"void pointer {fwhat} is not supported", f)
            ctype = "" if rows else self.elem_ctype(fty)
            return FieldType(f.name, elem, rows, self.c_width(f.type), array=not rows, ctype=ctype)
        if self.enum_of(fty) is not None:
            self.fail(f"enum-typed {fwhat} is not supported", f)
        dtype = self.scalar_dtype(f.type, fwhat, f)
        if dtype is None:
            self.fail(f"void {fwhat} is not supported", f)
        return FieldType(f.name, dtype, False, self.c_width(f.type))

    def resolve_typedefs(self, ty: c_ast.Node) -> c_ast.Node:
        """Expand a user typedef name (``typedef float real;``) to its type node."""
        seen: set[str] = set()
        while (
            isinstance(ty, c_ast.TypeDecl)
            and isinstance(ty.type, c_ast.IdentifierType)
            and len(ty.type.names) == 1
            and ty.type.names[0] in self.typedefs
            and ty.type.names[0] not in seen
        ):
            seen.add(ty.type.names[0])
            ty = self.typedefs[ty.type.names[0]]
        return ty

    def vector_type(self, ty: c_ast.Node) -> VectorType | None:
        """The C++ vector type named by type node ``ty`` (``const`` allowed), if any."""
        if (
            isinstance(ty, c_ast.TypeDecl)
            and isinstance(ty.type, c_ast.IdentifierType)
            and len(ty.type.names) == 1
        ):
            return self.vectors.get(ty.type.names[0])
        return None

    def scalar_dtype(self, ty: c_ast.Node, what: str, at: c_ast.Node | None = None,
                     unsigned_scalar: bool = False) -> DType | None:
        """DType of a scalar type node; ``None`` for ``void``.

        ``unsigned_scalar``: the type of a scalar parameter or local, where ``unsigned int``
        / ``unsigned long`` (``uint32_t``, ``uint64_t``, ``size_t``) are INT: the type gate
        (:mod:`tenspiler.frontend.c_types`) has refused every operation whose C value in
        the unsigned type differs from the mathematical one (loop counters' steps are
        accepted only where they cannot wrap), and a parameter's inputs lie in ``[0,
        2^n)``. Arrays of them (data) are not modelled.

        ``what`` names the use in messages; errors are located at ``at`` (default: the
        type as written, before typedef expansion).
        """
        at = at if at is not None else ty
        ty = self.resolve_typedefs(ty)
        vt = self.vector_type(ty)
        if vt is not None:
            self.fail(f"{vt.spelled} for {what} is not supported", at)
        match ty:
            case c_ast.TypeDecl(type=inner, quals=quals):
                self.check_quals(quals, at)
                return self._base_dtype(inner, what, at if at is not ty else inner, unsigned_scalar)
            case c_ast.PtrDecl() | c_ast.ArrayDecl():
                self.fail(f"pointer type for {what} is not supported", at)
            case c_ast.FuncDecl():
                self.fail(f"function type for {what} is not supported", at)
            case _:
                self.fail(f"{describe(ty)} for {what} is not supported", at)

    def check_quals(self, quals: list[str], at: c_ast.Node) -> None:
        """Refuse qualifiers other than ``const`` and ``restrict`` (which are ignored)."""
        for q in quals:
            if q not in ("const", "restrict"):
                self.fail(f"'{q}' qualifier is not supported", at)

    def _base_dtype(self, inner: c_ast.Node, what: str, at: c_ast.Node, unsigned_scalar: bool = False) -> DType | None:
        match inner:
            case c_ast.IdentifierType(names=names):
                words = list(names)
            case c_ast.Struct():
                self.fail("struct types are not supported", at)
            case c_ast.Union():
                self.fail("union types are not supported", at)
            case c_ast.Enum() as en:
                # a local of enum type: an integer; its C type (``unsigned int`` or ``int``,
                # :meth:`note_enums`) is the type gate's, which refuses what would wrap
                full = self.enums.get(en.name, en) if en.values is None and en.name else en
                if id(full) not in self.enum_unsigned:
                    self.fail("enum type without known enumerators is not supported", at)
                return DType.INT
            case _:
                self.fail(f"{describe(inner)} for {what} is not supported", at)
        spelled = " ".join(words)
        if unsigned_scalar and unsigned_spelling(words) is not None:
            return DType.INT
        if len(words) == 1 and words[0] in BUILTIN_TYPEDEFS:
            dtype = BUILTIN_TYPEDEFS[words[0]]
            if dtype is None:
                self.fail(f"type '{spelled}' is not supported", at)
            return dtype
        if words == ["void"]:
            return None
        if words == ["float"]:
            return DType.FLOAT
        if words == ["double"]:
            return DType.DOUBLE
        if sorted(words) == ["char", "unsigned"]:
            return DType.UINT8
        if "char" in words:
            if sorted(words) == ["char", "signed"]:
                return DType.INT8
            if words == ["char"]:
                return DType.INT8 if char_is_signed() else DType.UINT8  # the target's plain char
            self.fail(f"type '{spelled}' is not supported", at)
        key = tuple(sorted(w for w in words if w not in ("int", "signed")))
        if key in (("short",), ("short", "unsigned")):
            return DType.UINT16 if "unsigned" in key else DType.INT16
        if key == ("unsigned",):
            return DType.UINT32
        if "unsigned" in words:
            # unsigned long arithmetic wraps modulo 2^64, beyond the int64 the generated code computes in
            self.fail(f"type '{spelled}' is not supported (unsigned types wider than 32 bits are not modelled)", at)
        if words and set(words) <= _INT_WORDS:
            return DType.INT
        self.fail(f"type '{spelled}' is not supported", at)

    def param_type(self, decl: c_ast.Decl) -> Type | VectorType | StructType | RowsType:
        ty = self.resolve_typedefs(decl.type)
        what = f"parameter '{decl.name}'"
        vt = self.vector_type(ty)
        if vt is not None:
            assert isinstance(ty, c_ast.TypeDecl)
            self.check_quals(ty.quals, decl)
            return vt
        st = self.struct_of(ty)
        if st is not None:
            return self.struct_type(decl, st)
        en = self.enum_of(ty)
        if en is not None:
            # GCC's type for the enumeration: ``unsigned int`` without negative constants,
            # else ``int`` (:meth:`note_enums`); an INT parameter like one of that type
            # (:meth:`scalar_dtype`), called with that C type (:meth:`c_width`), whose
            # operations the type gate types as that type's
            if id(en) not in self.enum_unsigned:
                self.fail(f"enum-typed {what} whose enumerators are not known is not supported", decl)
            if isinstance(ty, c_ast.TypeDecl):
                self.check_quals(ty.quals, decl)
            return ScalarType(DType.INT)
        if isinstance(ty, c_ast.PtrDecl | c_ast.ArrayDecl):
            if isinstance(ty, c_ast.PtrDecl):
                self.check_quals(ty.quals, ty)
            elem_ty = self.resolve_typedefs(ty.type)
            pointee = self.struct_of(elem_ty)
            if pointee is not None and isinstance(ty, c_ast.PtrDecl) and isinstance(decl.type, c_ast.PtrDecl):
                return self.struct_type(decl, pointee, pointer=True)
            if pointee is not None:
                kind = "pointer to struct" if isinstance(ty, c_ast.PtrDecl) else "array of struct"
                self.fail(f"{kind} {what} is not supported (structs are supported passed by value or as 'T *s')", decl)
            if isinstance(elem_ty, c_ast.PtrDecl):
                self.fail(f"pointer-to-pointer {what} is not supported", decl)
            if isinstance(elem_ty, c_ast.ArrayDecl):
                return self.rows_type(decl, elem_ty, what)
            if isinstance(elem_ty, c_ast.FuncDecl):
                self.fail(f"function pointer {what} is not supported", decl)
            elem = self.scalar_dtype(ty.type, what, decl)
            if elem is None:
                self.fail(f"void pointer {what} is not supported", decl)
            return PointerType(elem)
        dtype = self.scalar_dtype(decl.type, what, decl, unsigned_scalar=True)
        if dtype is None:
            self.fail(f"void {what} is not supported", decl)
        return ScalarType(dtype)

    def rows_type(self, decl: c_ast.Decl, row: c_ast.ArrayDecl, what: str) -> RowsType:
        """``T A[N][M]`` / ``T A[][M]`` / ``T (*A)[M]`` / ``T A[n][m]``: rows of ``M``
        scalars (the first dimension is adjusted away, C11 §6.7.6.3p7); ``T A[P][R][C]``
        likewise: planes of ``R`` rows of ``C`` scalars. Four or more dimensions, and an
        inner dimension without a length, are refused."""
        self.check_quals(row.dim_quals or [], decl)
        inner = self.resolve_typedefs(row.type)
        rows: c_ast.Node | None = None
        if isinstance(inner, c_ast.ArrayDecl):
            if row.dim is None:
                self.fail(f"array {what} whose planes have no row count is not supported", decl)
            self.check_quals(inner.dim_quals or [], decl)
            if isinstance(self.resolve_typedefs(inner.type), c_ast.ArrayDecl):
                self.fail(f"array {what} of more than three dimensions is not supported", decl)
            rows, row = row.dim, inner
            inner = self.resolve_typedefs(row.type)
        if row.dim is None:
            self.fail(f"array {what} whose rows have no length is not supported", decl)
        shape = "2-D" if rows is None else "3-D"
        if isinstance(inner, c_ast.PtrDecl | c_ast.FuncDecl) or self.struct_of(inner) is not None:
            self.fail(f"{shape} array {what} of non-scalars is not supported", decl)
        elem = self.scalar_dtype(row.type, what, decl)
        if elem is None:
            self.fail(f"void array {what} is not supported", decl)
        return RowsType(elem, row.dim, rows)

    def params_of(
        self, fdef: c_ast.FuncDef
    ) -> list[tuple[c_ast.Decl, Type | VectorType | StructType | RowsType]]:
        fname = fdef.decl.name
        if fdef.param_decls:
            self.fail(f"K&R-style definition of '{fname}' is not supported", fdef)
        fdecl = fdef.decl.type
        args = fdecl.args.params if fdecl.args is not None else []
        if (
            len(args) == 1
            and isinstance(args[0], c_ast.Typename)
            and self.scalar_dtype(args[0].type, "parameter") is None
        ):
            return []  # f(void)
        out: list[tuple[c_ast.Decl, Type | VectorType | StructType | RowsType]] = []
        for a in args:
            if isinstance(a, c_ast.EllipsisParam):
                self.fail(f"variadic function '{fname}' is not supported", a)
            if not isinstance(a, c_ast.Decl) or a.name is None:
                self.fail(f"unnamed parameter of '{fname}' is not supported", a)
            if any(o.name == a.name for o, _ in out):
                self.fail(f"duplicate parameter '{a.name}'", a)
            out.append((a, self.param_type(a)))
        return out

    def return_dtype(self, fdef: c_ast.FuncDef) -> DType | None:
        return self.scalar_dtype(fdef.decl.type.type, f"return type of '{fdef.decl.name}'")

    def elem_ctype(self, ty: c_ast.Node) -> str:
        """Canonical C spelling of the element type of pointer/array type ``ty``.

        Our dtypes merge ``int`` and ``long`` (both mathematical integers), but a pointer
        walks in steps of its element's size, so a pointer may only point into an array of
        the same C element type: ``int``/``int32_t``/``signed`` give ``"int"``,
        ``long``/``int64_t`` ``"long"``, ``uint8_t`` ``"unsigned char"``. Call after the
        type was checked by :meth:`scalar_dtype`.
        """
        ptr = self.resolve_typedefs(ty)
        assert isinstance(ptr, c_ast.PtrDecl | c_ast.ArrayDecl)
        inner = self.resolve_typedefs(ptr.type)
        while isinstance(inner, c_ast.ArrayDecl):  # the rows (planes) of a 2-D (3-D) array parameter
            inner = self.resolve_typedefs(inner.type)
        assert isinstance(inner, c_ast.TypeDecl) and isinstance(inner.type, c_ast.IdentifierType)
        aliases = dict(PRELUDE_TYPEDEFS)
        words = [w for name in inner.type.names for w in aliases.get(name, name).split()]
        if sorted(words) == ["char", "unsigned"]:
            return "unsigned char"
        if set(words) <= _INT_WORDS:
            return " ".join(["long"] * words.count("long")) or "int"
        return " ".join(words)

    # ----------------------------------------------------------- declarations

    def local_decls(
        self, node: c_ast.Decl, env: Env
    ) -> Iterator[tuple[str, DType, c_ast.Node | None]]:
        """The (name, dtype, initialiser) of a local scalar declaration."""
        for s in node.storage:
            if s != "register":  # no effect on the value (C11 §6.7.1p6)
                self.fail(f"'{s}' local variables are not supported", node)
        ty = self.resolve_typedefs(node.type)
        if isinstance(ty, c_ast.PtrDecl):
            self.fail(f"local pointer variable '{node.name}' is not supported", node)
        if isinstance(ty, c_ast.ArrayDecl):
            self.fail(f"local array '{node.name}' is not supported", node)
        if isinstance(ty, c_ast.FuncDecl):
            self.fail("local function declarations are not supported", node)
        if node.name is None:
            self.fail(f"{describe(ty)} declaration is not supported", node)
        if self.struct_of(ty) is not None:
            self.fail(f"struct local '{node.name}' is not supported", node)
        dtype = self.scalar_dtype(node.type, f"local '{node.name}'", node, unsigned_scalar=True)
        if dtype is None:
            self.fail(f"void local '{node.name}' is not supported", node)
        if isinstance(node.init, c_ast.InitList):
            self.fail("initialiser list is not supported", node.init)
        yield node.name, dtype, node.init

    def unknown_name(self, name: str, node: c_ast.Node) -> NoReturn:
        """Refuse the use of ``name``, which no scope binds: a function, a file-scope
        constant used other than read, or undeclared."""
        if name in self.file_consts:
            self.fail(f"file-scope constant '{name}' used here is not supported (only read)", node)
        if name in self.enum_constants:
            self.fail(f"enumeration constant '{name}' used here is not supported (only read)", node)
        if name in self.funcdefs or name in self.prototypes:
            self.fail(f"use of function '{name}' as a value is not supported", node)
        self.fail(f"'{name}' is not declared", node)
