#!/usr/bin/env python3
"""oxla.interpreter against the same computation written directly in numpy.

    python tools/bench_interpreter.py                  # both models, 15 repetitions
    python tools/bench_interpreter.py --model mlp --reps 31
    python tools/bench_interpreter.py --max-ratio 2    # exit 1 when the interpreter is slower than that

Models: "mlp", batch 64 through 784-1024-1024-10 with relu and a final
softmax; "cnn", an NHWC 1x56x56x64 residual block (conv3x3 + bias + relu,
conv3x3 + bias, + input, relu). Both are StableHLO text as JAX writes it
(broadcast_in_dim for biases and scalars). The interpreter compiles the
module once (not timed); each repetition times one `Interpreter.call`
and one call of the numpy function, interleaved, and the script prints
their medians and the ratio interpreter / numpy. The results are checked
to agree before timing. BLAS runs on one thread (OPENBLAS_NUM_THREADS=1
unless set): both sides use the same BLAS, and on a shared machine its
threads' spinning makes multi-threaded timings swing by several times.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # before numpy loads its BLAS

import numpy as np  # noqa: E402

MLP = """
func.func @main(%x: tensor<64x784xf32>, %w1: tensor<784x1024xf32>, %b1: tensor<1024xf32>,
                %w2: tensor<1024x1024xf32>, %b2: tensor<1024xf32>, %w3: tensor<1024x10xf32>,
                %b3: tensor<10xf32>) -> tensor<64x10xf32> {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %zeros = stablehlo.broadcast_in_dim %zero, dims = [] : (tensor<f32>) -> tensor<64x1024xf32>
  %0 = stablehlo.dot_general %x, %w1, contracting_dims = [1] x [0] : (tensor<64x784xf32>, tensor<784x1024xf32>) -> tensor<64x1024xf32>
  %1 = stablehlo.broadcast_in_dim %b1, dims = [1] : (tensor<1024xf32>) -> tensor<64x1024xf32>
  %2 = stablehlo.add %0, %1 : tensor<64x1024xf32>
  %3 = stablehlo.maximum %2, %zeros : tensor<64x1024xf32>
  %4 = stablehlo.dot_general %3, %w2, contracting_dims = [1] x [0] : (tensor<64x1024xf32>, tensor<1024x1024xf32>) -> tensor<64x1024xf32>
  %5 = stablehlo.broadcast_in_dim %b2, dims = [1] : (tensor<1024xf32>) -> tensor<64x1024xf32>
  %6 = stablehlo.add %4, %5 : tensor<64x1024xf32>
  %7 = stablehlo.maximum %6, %zeros : tensor<64x1024xf32>
  %8 = stablehlo.dot_general %7, %w3, contracting_dims = [1] x [0] : (tensor<64x1024xf32>, tensor<1024x10xf32>) -> tensor<64x10xf32>
  %9 = stablehlo.broadcast_in_dim %b3, dims = [1] : (tensor<10xf32>) -> tensor<64x10xf32>
  %logits = stablehlo.add %8, %9 : tensor<64x10xf32>
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %max = stablehlo.reduce(%logits init: %ninf) applies stablehlo.maximum across dimensions = [1] : (tensor<64x10xf32>, tensor<f32>) -> tensor<64xf32>
  %maxb = stablehlo.broadcast_in_dim %max, dims = [0] : (tensor<64xf32>) -> tensor<64x10xf32>
  %shifted = stablehlo.subtract %logits, %maxb : tensor<64x10xf32>
  %e = stablehlo.exponential %shifted : tensor<64x10xf32>
  %sum = stablehlo.reduce(%e init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<64x10xf32>, tensor<f32>) -> tensor<64xf32>
  %sumb = stablehlo.broadcast_in_dim %sum, dims = [0] : (tensor<64xf32>) -> tensor<64x10xf32>
  %probs = stablehlo.divide %e, %sumb : tensor<64x10xf32>
  return %probs : tensor<64x10xf32>
}
"""

CNN = """
func.func @main(%x: tensor<1x56x56x64xf32>, %k1: tensor<3x3x64x64xf32>, %b1: tensor<64xf32>,
                %k2: tensor<3x3x64x64xf32>, %b2: tensor<64xf32>) -> tensor<1x56x56x64xf32> {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %zeros = stablehlo.broadcast_in_dim %zero, dims = [] : (tensor<f32>) -> tensor<1x56x56x64xf32>
  %0 = stablehlo.convolution(%x, %k1) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f],
      window = {stride = [1, 1], pad = [[1, 1], [1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64}
      : (tensor<1x56x56x64xf32>, tensor<3x3x64x64xf32>) -> tensor<1x56x56x64xf32>
  %1 = stablehlo.broadcast_in_dim %b1, dims = [3] : (tensor<64xf32>) -> tensor<1x56x56x64xf32>
  %2 = stablehlo.add %0, %1 : tensor<1x56x56x64xf32>
  %3 = stablehlo.maximum %2, %zeros : tensor<1x56x56x64xf32>
  %4 = stablehlo.convolution(%3, %k2) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f],
      window = {stride = [1, 1], pad = [[1, 1], [1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64}
      : (tensor<1x56x56x64xf32>, tensor<3x3x64x64xf32>) -> tensor<1x56x56x64xf32>
  %5 = stablehlo.broadcast_in_dim %b2, dims = [3] : (tensor<64xf32>) -> tensor<1x56x56x64xf32>
  %6 = stablehlo.add %4, %5 : tensor<1x56x56x64xf32>
  %7 = stablehlo.add %6, %x : tensor<1x56x56x64xf32>
  %8 = stablehlo.maximum %7, %zeros : tensor<1x56x56x64xf32>
  return %8 : tensor<1x56x56x64xf32>
}
"""


def mlp_numpy(x, w1, b1, w2, b2, w3, b3):
    """The MLP as one would write it in numpy."""
    h = np.maximum(x @ w1 + b1, 0)
    h = np.maximum(h @ w2 + b2, 0)
    logits = h @ w3 + b3
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def conv3x3_numpy(x, k):
    """A same-padded 3x3 NHWC convolution: one matrix product per kernel position."""
    n, h, w, c = x.shape
    padded = np.pad(x, [(0, 0), (1, 1), (1, 1), (0, 0)])
    out = np.zeros((n * h * w, k.shape[-1]), dtype=x.dtype)
    for i in range(3):
        for j in range(3):
            out += padded[:, i:i + h, j:j + w, :].reshape(-1, c) @ k[i, j]
    return out.reshape(n, h, w, -1)


def cnn_numpy(x, k1, b1, k2, b2):
    """The residual block as one would write it in numpy."""
    h = np.maximum(conv3x3_numpy(x, k1) + b1, 0)
    return np.maximum(conv3x3_numpy(h, k2) + b2 + x, 0)


def inputs(model: str, rng) -> list[np.ndarray]:
    """Random f32 inputs of the model's signature (weights scaled to keep activations moderate)."""
    def normal(*shape, scale=1.0):
        return (rng.standard_normal(shape) * scale).astype(np.float32)

    if model == "mlp":
        return [normal(64, 784), normal(784, 1024, scale=784 ** -0.5), normal(1024),
                normal(1024, 1024, scale=1024 ** -0.5), normal(1024), normal(1024, 10, scale=1024 ** -0.5), normal(10)]
    return [normal(1, 56, 56, 64), normal(3, 3, 64, 64, scale=576 ** -0.5), normal(64),
            normal(3, 3, 64, 64, scale=576 ** -0.5), normal(64)]


MODELS = {"mlp": (MLP, mlp_numpy), "cnn": (CNN, cnn_numpy)}


def bench(model: str, reps: int) -> tuple[float, float]:
    """Median seconds per call of the interpreter and of numpy on the same inputs."""
    from oxla.interpreter import Interpreter

    text, reference = MODELS[model]
    args = inputs(model, np.random.default_rng(0))
    interpreter = Interpreter(text)
    [ours] = interpreter.call("main", *args)
    np.testing.assert_allclose(ours, reference(*args), rtol=1e-4, atol=1e-5)
    times = {"interpreter": [], "numpy": []}
    for _ in range(reps):
        for name, run in (("interpreter", lambda: interpreter.call("main", *args)), ("numpy", lambda: reference(*args))):
            began = time.perf_counter()
            run()
            times[name].append(time.perf_counter() - began)
    return statistics.median(times["interpreter"]), statistics.median(times["numpy"])


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model", choices=[*MODELS, "all"], default="all")
    p.add_argument("--reps", type=int, default=15, help="timed repetitions of each (median reported)")
    p.add_argument("--max-ratio", type=float, help="exit 1 when interpreter / numpy exceeds this")
    args = p.parse_args(argv)
    worst = 0.0
    print(f"{'model':<6} {'interpreter ms':>15} {'numpy ms':>10} {'ratio':>7}")
    for model in (MODELS if args.model == "all" else [args.model]):
        ours, theirs = bench(model, args.reps)
        worst = max(worst, ours / theirs)
        print(f"{model:<6} {ours * 1e3:>15.2f} {theirs * 1e3:>10.2f} {ours / theirs:>7.2f}")
    if args.max_ratio is not None and worst > args.max_ratio:
        print(f"bench_interpreter: ratio {worst:.2f} is above {args.max_ratio}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
