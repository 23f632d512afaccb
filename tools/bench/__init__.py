"""oxla's benchmark suite: one model zoo, every system measured side by side.

    python -m tools.bench.run [--threads 1|2] [--models ...] [--repeat N]

zoo.py defines each model once, in JAX; systems.py turns a model into a
callable for each system (oxla, XLA, IREE, torch, ONNX Runtime); run.py times
them interleaved, checks every output against XLA's and writes the results.
"""
