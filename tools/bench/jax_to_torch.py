"""A zoo model's JAX function as plain torch code, so torch and ONNX Runtime run the same model.

`translate(fn, *inputs)` traces `fn` to a jaxpr and writes one line of torch
per equation, op for op (a dot_general becomes an einsum, a convolution
F.conv2d in the layout its dimension numbers name, ...). The generated
function is ordinary Python over torch tensors: torch runs it eagerly,
torch.compile traces it, and torch.onnx exports it. Weights (the jaxpr's
constants) become buffers of the returned module. Only the primitives the zoo
uses are covered; any other raises NotImplementedError naming it.
"""

from __future__ import annotations

import itertools
import string

import numpy as np

_UNARY = {
    "exp": "torch.exp({})", "log": "torch.log({})", "tanh": "torch.tanh({})", "logistic": "torch.sigmoid({})",
    "erf": "torch.erf({})", "erfc": "torch.erfc({})", "rsqrt": "torch.rsqrt({})", "sqrt": "torch.sqrt({})", "neg": "(-{})",
    "abs": "torch.abs({})", "square": "({0} * {0})", "log1p": "torch.log1p({})", "expm1": "torch.expm1({})",
    "sign": "torch.sign({})", "stop_gradient": "{}", "copy": "{}", "copy_p": "{}", "not": "(~{})",
}
_BINARY = {
    "add": "({} + {})", "sub": "({} - {})", "mul": "({} * {})", "div": "({} / {})", "pow": "torch.pow({}, {})",
    "max": "torch.maximum({}, {})", "min": "torch.minimum({}, {})", "gt": "({} > {})", "lt": "({} < {})",
    "ge": "({} >= {})", "le": "({} <= {})", "eq": "({} == {})", "ne": "({} != {})", "and": "({} & {})",
    "or": "({} | {})",
}
_REDUCE = {"reduce_sum": "torch.sum({}, dim={})", "reduce_max": "torch.amax({}, dim={})",
           "reduce_min": "torch.amin({}, dim={})"}
_CALLS = {"jit": "jaxpr", "pjit": "jaxpr", "custom_jvp_call": "call_jaxpr", "custom_vjp_call": "call_jaxpr",
          "custom_vjp_call_jaxpr": "fun_jaxpr", "closed_call": "call_jaxpr"}


def _torch_dtype(dtype) -> str:
    name = np.dtype(dtype).name
    return {"bfloat16": "torch.bfloat16", "bool": "torch.bool"}.get(name, f"torch.{name}")


class _Writer:
    """Emits the body of the generated function, one assignment per jaxpr equation."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.consts: list[np.ndarray] = []
        self.names = (f"v{i}" for i in itertools.count())

    def const(self, value) -> str:
        array = np.asarray(value)
        self.consts.append(array)
        return f"c[{len(self.consts) - 1}]"

    def emit(self, expr: str) -> str:
        name = next(self.names)
        self.lines.append(f"    {name} = {expr}")
        return name

    def jaxpr(self, jaxpr, consts, args: list[str]) -> list[str]:
        """Writes `jaxpr` applied to the expressions `args`; returns its outputs' names."""
        env = {}
        for var, value in zip(jaxpr.constvars, consts):
            env[var] = self.const(value)
        for var, arg in zip(jaxpr.invars, args):
            env[var] = arg

        def read(atom):
            if hasattr(atom, "val"):  # a Literal: a scalar of the op's dtype
                return self.const(np.asarray(atom.val, dtype=atom.aval.dtype))
            return env[atom]

        for eqn in jaxpr.eqns:
            ins = [read(a) for a in eqn.invars]
            outs = self.equation(eqn, ins)
            for var, name in zip(eqn.outvars, outs):
                env[var] = name
        return [read(a) for a in jaxpr.outvars]

    def equation(self, eqn, ins: list[str]) -> list[str]:
        prim, params = eqn.primitive.name, eqn.params
        out = eqn.outvars[0].aval
        if prim in _CALLS:
            closed = params[_CALLS[prim]]
            inner = getattr(closed, "jaxpr", closed)
            return self.jaxpr(inner, getattr(closed, "consts", ()), ins)
        if prim in _UNARY:
            return [self.emit(_UNARY[prim].format(ins[0]))]
        if prim in _BINARY:
            return [self.emit(_BINARY[prim].format(*ins))]
        if prim in _REDUCE:
            return [self.emit(_REDUCE[prim].format(ins[0], tuple(params["axes"])))]
        if prim == "integer_pow":
            return [self.emit(f"torch.pow({ins[0]}, {params['y']})")]
        if prim == "convert_element_type":
            return [self.emit(f"{ins[0]}.to({_torch_dtype(params['new_dtype'])})")]
        if prim in ("reshape", "squeeze", "expand_dims"):
            return [self.emit(f"{ins[0]}.reshape({tuple(out.shape)})")]
        if prim == "transpose":
            return [self.emit(f"{ins[0]}.permute({tuple(params['permutation'])})")]
        if prim == "broadcast_in_dim":
            operand = eqn.invars[0].aval.shape
            interim = [1] * len(out.shape)
            for src, dst in enumerate(params["broadcast_dimensions"]):
                interim[dst] = operand[src]
            return [self.emit(f"{ins[0]}.reshape({tuple(interim)}).expand({tuple(out.shape)})")]
        if prim == "select_n":
            if len(ins) != 3:
                raise NotImplementedError("select_n with more than two cases")
            return [self.emit(f"torch.where({ins[0]}, {ins[2]}, {ins[1]})")]
        if prim == "concatenate":
            return [self.emit(f"torch.cat([{', '.join(ins)}], dim={params['dimension']})")]
        if prim == "slice":
            starts, limits = params["start_indices"], params["limit_indices"]
            strides = params["strides"] or (1,) * len(starts)
            index = ", ".join(f"{s}:{e}:{k}" for s, e, k in zip(starts, limits, strides))
            return [self.emit(f"{ins[0]}[{index}]")]
        if prim == "iota":
            dim = params["dimension"]
            shape = [1] * len(out.shape)
            shape[dim] = out.shape[dim]
            return [self.emit(f"torch.arange({out.shape[dim]}, dtype={_torch_dtype(out.dtype)})"
                              f".reshape({tuple(shape)}).expand({tuple(out.shape)})")]
        if prim == "dot_general":
            return [self.dot_general(eqn, ins)]
        if prim == "conv_general_dilated":
            return [self.conv(eqn, ins)]
        if prim == "gather":
            return [self.gather(eqn, ins)]
        raise NotImplementedError(f"jax_to_torch: no translation for the '{prim}' primitive")

    def dot_general(self, eqn, ins: list[str]) -> str:
        (lc, rc), (lb, rb) = eqn.params["dimension_numbers"]
        lr, rr = (len(v.aval.shape) for v in eqn.invars)
        letters = iter(string.ascii_letters)
        lhs = [next(letters) for _ in range(lr)]
        rhs = [next(letters) for _ in range(rr)]
        for l_dim, r_dim in itertools.chain(zip(lc, rc), zip(lb, rb)):
            rhs[r_dim] = lhs[l_dim]
        result = [lhs[d] for d in lb] + [lhs[d] for d in range(lr) if d not in lc and d not in lb]
        result += [rhs[d] for d in range(rr) if d not in rc and d not in rb]
        expr = f"torch.einsum('{''.join(lhs)},{''.join(rhs)}->{''.join(result)}', {ins[0]}, {ins[1]})"
        want = eqn.outvars[0].aval.dtype
        if np.dtype(want) != np.dtype(eqn.invars[0].aval.dtype):
            # torch multiplies in the operands' type (bf16 on CPU accumulates in f32) and rounds to it.
            expr = f"{expr}.to({_torch_dtype(want)})"
        return self.emit(expr)

    def conv(self, eqn, ins: list[str]) -> str:
        p = eqn.params
        dn = p["dimension_numbers"]
        lhs_spec, rhs_spec, out_spec = dn.lhs_spec, dn.rhs_spec, dn.out_spec
        if len(lhs_spec) != 4 or any(d != 1 for d in p["lhs_dilation"]) or p["batch_group_count"] != 1:
            raise NotImplementedError("jax_to_torch: only 2-D convolutions without input dilation")
        x = self.emit(f"{ins[0]}.permute({tuple(lhs_spec)})")  # -> N, C, H, W
        w = self.emit(f"{ins[1]}.permute({tuple(rhs_spec)})")  # -> O, I, H, W
        pads = p["padding"]
        if all(lo == hi for lo, hi in pads):
            padding = tuple(lo for lo, _ in pads)
        else:
            flat = tuple(v for lo, hi in reversed(pads) for v in (lo, hi))
            x = self.emit(f"F.pad({x}, {flat})")
            padding = 0
        y = self.emit(f"F.conv2d({x}, {w}, stride={tuple(p['window_strides'])}, padding={padding}, "
                      f"dilation={tuple(p['rhs_dilation'])}, groups={p['feature_group_count']})")
        back = [0] * 4
        for i, d in enumerate(out_spec):
            back[d] = i
        return self.emit(f"{y}.permute({tuple(back)})")

    def gather(self, eqn, ins: list[str]) -> str:
        """The one gather form the zoo makes: jnp.take(table, ids, axis=0) (an embedding lookup)."""
        dn = eqn.params["dimension_numbers"]
        table = eqn.invars[0].aval.shape
        if (tuple(dn.collapsed_slice_dims) != (0,) or tuple(dn.start_index_map) != (0,)
                or tuple(eqn.params["slice_sizes"]) != (1, *table[1:])):
            raise NotImplementedError("jax_to_torch: only row gathers (jnp.take(table, ids, axis=0))")
        return self.emit(f"{ins[0]}[{ins[1]}[..., 0].long().clamp(0, {table[0] - 1})]")


def translate(fn, *inputs):
    """A torch.nn.Module computing `fn` (traced with `inputs`) op for op; its source is `.source`."""
    import jax
    import torch
    import torch.nn.functional as F

    closed = jax.make_jaxpr(fn)(*inputs)
    writer = _Writer()
    args = [f"a{i}" for i in range(len(closed.jaxpr.invars))]
    outs = writer.jaxpr(closed.jaxpr, closed.consts, args)
    result = outs[0] if len(outs) == 1 else f"({', '.join(outs)},)"
    source = "\n".join([f"def forward(c, {', '.join(args)}):", *writer.lines, f"    return {result}", ""])
    scope = {"torch": torch, "F": F}
    exec(compile(source, f"<jax_to_torch {getattr(fn, '__name__', 'fn')}>", "exec"), scope)
    forward = scope["forward"]
    tensors = [torch.from_numpy(np.ascontiguousarray(c)) if c.dtype.name != "bfloat16"
               else torch.from_numpy(c.view(np.uint16).copy()).view(torch.bfloat16) for c in writer.consts]

    class Translated(torch.nn.Module):
        def __init__(self):
            super().__init__()
            for i, t in enumerate(tensors):
                self.register_buffer(f"c{i}", t)
            self.count = len(tensors)

        def forward(self, *args):
            return forward([getattr(self, f"c{i}") for i in range(self.count)], *args)

    module = Translated().eval()
    module.source = source
    return module
