"""Declarations of a C translation unit and the types they name: scalar types (C's
integer, floating and ``uint8_t`` types as loop-IR dtypes; ``unsigned`` and ``short`` refused),
typedefs, pointer and array parameters, C++ vector types and struct parameters passed by value
(their fields, for flattening: :meth:`tenspiler.frontend.c_stmts.Kernel.struct_param`)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import NoReturn

from pycparser import c_ast

from tenspiler.errors import BadInput, SourceLoc
from tenspiler.frontend.c_bindings import Env, FieldType, StructType, c_width, describe
from tenspiler.frontend.c_parse import BUILTIN_TYPEDEFS, PRELUDE_TYPEDEFS
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
        #: The C11 typing of the chosen kernel (and its helpers): the lowering reads the C
        #: type of an arithmetic node from it (``unsigned int`` arithmetic wraps).
        self.gate: TypeGate | None = None

    # ----------------------------------------------------------- errors and locations

    def loc(self, node: c_ast.Node | None) -> SourceLoc | None:
        coord = getattr(node, "coord", None)
        if coord is None:
            return None
        return SourceLoc(self.filename, coord.line, coord.column or 1)

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
                self.funcdefs[name] = node
                order.append(name)
            elif isinstance(node, c_ast.Typedef):
                self.typedefs[node.name] = node.type
                self.note_structs(node.type)
            elif isinstance(node, c_ast.Decl):
                if isinstance(node.type, c_ast.FuncDecl):
                    self.prototypes.add(node.name)
                elif node.name is None and isinstance(
                    node.type, c_ast.Struct | c_ast.Union | c_ast.Enum
                ):
                    self.note_structs(node.type)
                    continue  # a type declaration; refused where the type is used
                else:
                    self.fail("global variables are not supported", node)
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
        return chosen

    def type_gate(self) -> TypeGate:
        """The C11 typing of this unit (:mod:`tenspiler.frontend.c_types`)."""

        def fields(ty: c_ast.Node) -> list[c_ast.Decl] | None:
            st = self.struct_of(ty)
            return list(st.decls) if st is not None and st.decls is not None else None

        def vector(ty: c_ast.Node) -> tuple[list[str], int] | None:
            vt = self.vector_type(ty)
            return ([vt.elem], vt.rank) if vt is not None else None

        return TypeGate(
            self.filename, self.resolve_typedefs, fields, vector, self.funcdefs,
            char_signed=char_is_signed(),
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

    def struct_type(self, decl: c_ast.Decl, st: c_ast.Struct) -> StructType:
        """The type of struct parameter ``decl``: only scalar fields and ``T **`` fields
        (``T`` scalar) are supported (see the module docstring)."""
        what = f"struct parameter '{decl.name}'"
        written = decl.type
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
                elem_ty = self.resolve_typedefs(inner.type) if isinstance(inner, c_ast.PtrDecl) else None
                if not isinstance(inner, c_ast.PtrDecl) or not isinstance(elem_ty, c_ast.TypeDecl) or (
                    self.struct_of(elem_ty) is not None
                ):
                    self.fail(
                        f"pointer {fwhat} is not supported (only scalar fields and 'T **' "
                        "fields with T a scalar type)",
                        f,
                    )
                self.check_quals(fty.quals, f)
                self.check_quals(inner.quals, f)
                elem = self.scalar_dtype(inner.type, fwhat, f)
                if elem is None:
                    self.fail(f"void pointer {fwhat} is not supported", f)
                fields.append(FieldType(f.name, elem, True, c_width(f.type)))
                continue
            dtype = self.scalar_dtype(f.type, fwhat, f)
            if dtype is None:
                self.fail(f"void {fwhat} is not supported", f)
            fields.append(FieldType(f.name, dtype, False, c_width(f.type)))
        if not fields:
            self.fail(f"{what} without fields is not supported", decl)
        return StructType(spelled, tuple(fields))

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

    def scalar_dtype(self, ty: c_ast.Node, what: str, at: c_ast.Node | None = None) -> DType | None:
        """DType of a scalar type node; ``None`` for ``void``.

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
                return self._base_dtype(inner, what, at if at is not ty else inner)
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

    def _base_dtype(self, inner: c_ast.Node, what: str, at: c_ast.Node) -> DType | None:
        match inner:
            case c_ast.IdentifierType(names=names):
                words = list(names)
            case c_ast.Struct():
                self.fail("struct types are not supported", at)
            case c_ast.Union():
                self.fail("union types are not supported", at)
            case c_ast.Enum():
                self.fail("enum types are not supported", at)
            case _:
                self.fail(f"{describe(inner)} for {what} is not supported", at)
        spelled = " ".join(words)
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

    def param_type(self, decl: c_ast.Decl) -> Type | VectorType | StructType:
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
        if isinstance(ty, c_ast.PtrDecl | c_ast.ArrayDecl):
            if isinstance(ty, c_ast.PtrDecl):
                self.check_quals(ty.quals, ty)
            elem_ty = self.resolve_typedefs(ty.type)
            if self.struct_of(elem_ty) is not None:
                kind = "pointer to struct" if isinstance(ty, c_ast.PtrDecl) else "array of struct"
                self.fail(f"{kind} {what} is not supported (structs are supported passed by value)", decl)
            if isinstance(elem_ty, c_ast.PtrDecl):
                self.fail(f"pointer-to-pointer {what} is not supported", decl)
            if isinstance(elem_ty, c_ast.ArrayDecl):
                self.fail(f"multi-dimensional array {what} is not supported", decl)
            if isinstance(elem_ty, c_ast.FuncDecl):
                self.fail(f"function pointer {what} is not supported", decl)
            elem = self.scalar_dtype(ty.type, what, decl)
            if elem is None:
                self.fail(f"void pointer {what} is not supported", decl)
            return PointerType(elem)
        dtype = self.scalar_dtype(decl.type, what, decl)
        if dtype is None:
            self.fail(f"void {what} is not supported", decl)
        return ScalarType(dtype)

    def params_of(
        self, fdef: c_ast.FuncDef
    ) -> list[tuple[c_ast.Decl, Type | VectorType | StructType]]:
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
        out: list[tuple[c_ast.Decl, Type | VectorType | StructType]] = []
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
        dtype = self.scalar_dtype(node.type, f"local '{node.name}'", node)
        if dtype is None:
            self.fail(f"void local '{node.name}' is not supported", node)
        if isinstance(node.init, c_ast.InitList):
            self.fail("initialiser list is not supported", node.init)
        yield node.name, dtype, node.init

    def unknown_name(self, name: str, node: c_ast.Node) -> NoReturn:
        """Refuse the use of ``name``, which no scope binds: a function, or undeclared."""
        if name in self.funcdefs or name in self.prototypes:
            self.fail(f"use of function '{name}' as a value is not supported", node)
        self.fail(f"'{name}' is not declared", node)
