"""Modules that make one of JAX's CPU LAPACK custom calls, for tests."""


def tensor_type(shape, element: str) -> str:
    return f"tensor<{''.join(f'{d}x' for d in shape)}{element}>"


def lapack_call(routine: str, letter: str, operands: list[tuple], results: list[tuple], config: str = "") -> str:
    """A module whose main makes one lapack_<letter><routine>_ffi call; operands and results as (shape,
    element)."""
    args = ", ".join(f"%a{i}: {tensor_type(s, e)}" for i, (s, e) in enumerate(operands))
    ins = ", ".join(tensor_type(s, e) for s, e in operands)
    outs = ", ".join(tensor_type(s, e) for s, e in results)
    names = ", ".join(f"%a{i}" for i in range(len(operands)))
    values = ", ".join(f"%r#{i}" for i in range(len(results))) if len(results) > 1 else "%r"
    count = f":{len(results)}" if len(results) > 1 else ""
    return (f"func.func @main({args}) -> ({outs}) {{\n"
            f"  %r{count} = stablehlo.custom_call @lapack_{letter}{routine}_ffi({names}) "
            f"{{mhlo.backend_config = {{{config}}}}} : ({ins}) -> ({outs})\n"
            f"  return {values} : {outs}\n}}\n")
