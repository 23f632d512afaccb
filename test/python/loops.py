"""Counted StableHLO loops for tests: the while, its counter and its condition written once, and the passes
to leave out to keep one rolled."""


def counted_loop(trips: int, carried: list[tuple[str, str, str]], body: str, returned: list[str],
                 *, result: str = "%r", indent: str = "  ") -> str:
    """`result` = a stablehlo.while counting %i from 0 while it is below `trips`, carrying each (name,
    start, type) of `carried` after %i. `body`: the ops of a trip (lines without their indent), which
    may use %i, %one (1) and the carried names; `returned`: the values a trip hands back, in `carried`'s
    order. `result`#0 is the counter, #1 the first carried value."""
    names = ", ".join(f"{name} = {start}" for name, start, _ in carried)
    types = ", ".join(["tensor<i32>", *(kind for _, _, kind in carried)])
    inner = indent + "    "
    ops = "".join(f"{inner}{line}\n" for line in body.strip("\n").splitlines())
    return (f"{indent}%i0 = stablehlo.constant dense<0> : tensor<i32>\n"
            f"{indent}{result}:{len(carried) + 1} = stablehlo.while(%i = %i0, {names}) : {types}\n"
            f"{indent}  cond {{\n"
            f"{inner}%n = stablehlo.constant dense<{trips}> : tensor<i32>\n"
            f"{inner}%lt = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>\n"
            f"{inner}stablehlo.return %lt : tensor<i1>\n"
            f"{indent}  }} do {{\n"
            f"{ops}"
            f"{inner}%one = stablehlo.constant dense<1> : tensor<i32>\n"
            f"{inner}%i2 = stablehlo.add %i, %one : tensor<i32>\n"
            f"{inner}stablehlo.return %i2, {', '.join(returned)} : {types}\n"
            f"{indent}  }}\n")


def rolled(disable_passes=()) -> list[str]:
    """`disable_passes` with oxla-unroll-loops: the passes to leave out where a test counts the commands of a
    loop run one step a trip."""
    return [*disable_passes, "oxla-unroll-loops"]
