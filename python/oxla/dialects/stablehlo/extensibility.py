"""Extensibility ops: custom_call (an implementation-defined target) and composite (a named decomposition).

Neither op's results follow from its operands: `custom_call` always takes
them from the caller (`result_types=`); `composite` reads them from the type
of its `decomposition` function when that is already defined in an enclosing
module, and otherwise takes them from `result_types=`. The rules still check
what the builder can see when result types are given: the backend_config
form for the api_version, layouts, output-operand aliases, and a composite's
agreement with its decomposition.
"""

from __future__ import annotations

import re

from oxla import ir
from oxla.dialects.stablehlo import attributes as A
from oxla.dialects.stablehlo import types as T
from oxla.dialects.stablehlo._core import REQUIRED, Attr, Operand, OpSpec, export
from oxla.dialects.stablehlo.rules import fail, require

FAMILY = "extensibility"
TYPED_FFI = A.API_VERSION.cases["API_VERSION_TYPED_FFI"]


# Attribute kinds --------------------------------------------------------------------------------------------------

def _index_vector(dims) -> ir.Attribute:
    """A 1-D dense index elements attribute (a layout or a tile)."""
    dims = [int(d) for d in dims]
    values = f"[{', '.join(map(str, dims))}]" if dims else ""
    return ir.Attribute.parse(f"dense<{values}> : tensor<{len(dims)}xindex>")


class Layouts(A.AttrKind):
    """operand_layouts/result_layouts: one minor-to-major dimension list per value <-> array of index vectors."""

    def to_attr(self, value):
        return ir.ArrayAttr.get([_index_vector(layout) for layout in value])

    def to_python(self, attr):
        return [[int(d) for d in ir.DenseIntElementsAttr(a)] for a in ir.ArrayAttr(attr)]


class Tilings(A.AttrKind):
    """result_tilings: per result, a list of tiles (lists of dimension sizes) <-> array of arrays of index vectors."""

    def to_attr(self, value):
        return ir.ArrayAttr.get([Layouts().to_attr(tiles) for tiles in value])

    def to_python(self, attr):
        return [Layouts().to_python(a) for a in ir.ArrayAttr(attr)]


class BackendConfig(A.AttrKind):
    """backend_config: a string (api_version 1-3) or a dict of Python values (api_version 4) <-> its attribute."""

    def to_attr(self, value):
        if not isinstance(value, (str, dict)):
            raise TypeError(f"expected a string or a dict, got {value!r}")
        return A.python_attribute(value)

    def to_python(self, attr):
        return A.python_value(attr)


# custom_call ------------------------------------------------------------------------------------------------------

def _check_layouts(args, results: list) -> None:
    """Layouts come for both operands and results or neither; one permutation of 0..rank-1 per tensor."""
    given = (args.operand_layouts is not None, args.result_layouts is not None)
    if not any(given):
        return
    require(all(given), "operand_layouts and result_layouts must be given together")
    if len(results) == 1 and isinstance(results[0], ir.TupleType):
        results = [ir.TupleType(results[0]).get_type(i) for i in range(ir.TupleType(results[0]).num_types)]
    for what, types, layouts in (("operand", [v.type for v in args.inputs], args.operand_layouts),
                                 ("result", results, args.result_layouts)):
        require(len(layouts) == len(types),
                f"{what}_layouts must have one layout per {what} ({len(types)}), got {len(layouts)}")
        for i, (t, layout) in enumerate(zip(types, layouts)):
            require(not isinstance(t, ir.TupleType), f"{what} {i} is a tuple, which cannot have a layout")
            if T.is_tensor(t):
                require(sorted(layout) == list(range(len(T.shape_of(t)))),
                        f"{what}_layouts[{i}] must be a permutation of 0..{len(T.shape_of(t)) - 1} for {t}, "
                        f"got {list(layout)}")
            else:
                require(not layout, f"{what}_layouts[{i}] must be empty for the non-tensor {t}, got {list(layout)}")


def _tuple_part(t: ir.Type, path, what: str) -> ir.Type:
    """The element of nested tuple type `t` at index path `path`."""
    for i in path:
        require(isinstance(t, ir.TupleType) and 0 <= i < ir.TupleType(t).num_types,
                f"{what} {list(path)} is out of bounds for {t}")
        t = ir.TupleType(t).get_type(i)
    return t


def _check_aliases(args, results: list) -> None:
    """Each output_operand_alias names an operand in range and output and operand parts of one type."""
    n = len(args.inputs)
    whole = results[0] if len(results) == 1 else T.tuple_type(results)
    for alias in args.output_operand_aliases or []:
        alias = A.OutputOperandAlias(**alias) if isinstance(alias, dict) else alias
        require(0 <= alias.operand_index < n,
                f"output_operand_aliases: operand_index must be in [0, {n}), got {alias.operand_index}")
        operand = _tuple_part(args.inputs[alias.operand_index].type, alias.operand_tuple_indices,
                              "output_operand_aliases: operand_tuple_indices")
        output = _tuple_part(whole, alias.output_tuple_indices, "output_operand_aliases: output_tuple_indices")
        require(operand == output, f"output_operand_aliases: the output part {output} must have the type of the "
                f"operand part {operand}", TypeError)


def api_version_number(value) -> int:
    """An api_version given by name or number, as its number."""
    if isinstance(value, str):
        return A.API_VERSION.cases[value.upper()]
    return int(value)


def _custom_call(args):
    """The caller's result_types; backend_config's form fits api_version; layouts and aliases fit the values."""
    results = args.result_types
    if results is None:
        fail("custom_call cannot infer its results: pass result_types=[...] (a list of types, [] for none)", TypeError)
    if args.backend_config is not None:
        typed = api_version_number(args.api_version) == TYPED_FFI
        require(isinstance(args.backend_config, dict) == typed,
                f"backend_config must be a {'dict' if typed else 'string'} for api_version {args.api_version} "
                f"(a dict needs api_version=4, API_VERSION_TYPED_FFI), got {args.backend_config!r:.60}")
    _check_layouts(args, results)
    if args.output_operand_aliases:
        require(results, "output_operand_aliases needs at least one result")
        _check_aliases(args, results)
    return results


export(OpSpec("custom_call", (Attr("call_target_name", A.String(), REQUIRED), Operand("inputs", variadic=True),
                              Attr("has_side_effect", A.Bool(), False), Attr("backend_config", BackendConfig()),
                              Attr("api_version", A.API_VERSION, "API_VERSION_ORIGINAL"),
                              Attr("called_computations", A.SymbolArray(), []),
                              Attr("operand_layouts", Layouts()), Attr("result_layouts", Layouts()),
                              Attr("output_operand_aliases", A.AliasList(), []), Attr("result_tilings", Tilings())),
              _custom_call, results="variadic", family=FAMILY, check_results=True,
              doc="Calls the implementation-defined target call_target_name; result types come from result_types=."),
       globals())


# composite --------------------------------------------------------------------------------------------------------

NAMESPACED = re.compile(r"^[a-zA-Z][a-zA-Z0-9_]*([.][a-zA-Z0-9_$]+)+$")


def find_function(ip, name: str):
    """The `func.func @name` visible from insertion point `ip` (nearest enclosing symbol table first), or None."""
    if ip is None:
        return None
    op = ip.block.owner
    while op is not None:
        op = op.operation
        try:
            table = ir.SymbolTable(op)
        except TypeError:
            table = None
        if table is not None and name in table:
            found = table[name]
            return found if found.operation.name == "func.func" else None
        op = op.parent
    return None


def _composite(args):
    """A namespaced name (C1); inputs and results have the decomposition's types (C2-C4)."""
    require(NAMESPACED.match(args.name), f"name must be a namespaced op name such as \"my_namespace.my_op\", "
            f"got {args.name!r}")
    given = args.result_types
    function = find_function(args.ip, args.decomposition)
    if function is None:
        if given is None:
            fail(f"decomposition @{args.decomposition} is not defined in an enclosing module, so the results are "
                 f"unknown: define it first or pass result_types=[...]", TypeError)
        return given
    signature = ir.FunctionType(ir.TypeAttr(function.attributes["function_type"]).value)
    inputs = [v.type for v in args.inputs]
    expected = list(signature.inputs)
    require(len(inputs) == len(expected), f"inputs must match the decomposition's {len(expected)} argument(s), got "
            f"{len(inputs)}")
    for i, (got, want) in enumerate(zip(inputs, expected)):
        require(got == want, f"inputs[{i}] must have the decomposition's argument type {want}, got {got}", TypeError)
    results = list(signature.results)
    if given is not None:
        require(given == results, f"result_types must be the decomposition's results "
                f"({', '.join(map(str, results))}), got ({', '.join(map(str, given))})", TypeError)
    return results


export(OpSpec("composite", (Operand("inputs", variadic=True), Attr("name", A.String(), REQUIRED),
                            Attr("composite_attributes", A.Dictionary(), {}),
                            Attr("decomposition", A.Symbol(), REQUIRED), Attr("version", A.Integer(32), 0)),
              _composite, results="variadic", family=FAMILY, check_results=True,
              doc="A named op whose meaning is its decomposition function (results from its type)."), globals())
