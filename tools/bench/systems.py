"""The systems the zoo runs on, each turning a Model into a host-arrays-in, host-arrays-out callable.

Every system gets the same contract: numpy inputs in, numpy results out,
ready to read. That is what a user of each one calls; copies a system makes
to cross its own API (oxla.runtime and iree.runtime upload their inputs, XLA
and torch wrap numpy memory) are part of its time.

    oxla            oxla.compile(target="llvm-cpu") with its defaults, run by oxla.runtime
    xla             jax.jit, the reference every output is checked against
    iree-default    iree-compile with no flags beyond the backend, run by iree.runtime
    iree-best       iree-compile with the best flag set found on the zoo (IREE_BEST_FLAGS)
    torch           the model as torch code (jax_to_torch, or the library's own module), eager
    torch.compile   the same module through torch.compile (inductor)
    onnxruntime     the same module exported to ONNX (TorchScript exporter, opset 17)

A system whose packages are not installed reports why in `missing()`; the
others still run. `prepare()` raises when a system cannot run a model; the
runner reports that and goes on.
"""

from __future__ import annotations

import atexit
import hashlib
import importlib.util
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

# `iree-compile` with only the backend named: IREE's own defaults (generic x86-64, O0, no data tiling).
IREE_DEFAULT_FLAGS = ("--iree-hal-target-device=local", "--iree-hal-local-target-device-backends=llvm-cpu")
# The fastest fixed flag set measured on the zoo (tools/bench/flags.py; docs/performance.md says why).
IREE_BEST_FLAGS = IREE_DEFAULT_FLAGS + (
    "--iree-llvmcpu-target-cpu=host",
    "--iree-opt-level=O3",
    "--iree-opt-data-tiling",
    "--iree-global-optimization-opt-level=O1",
    "--iree-llvmcpu-stack-allocation-limit=65536",
)


@dataclass
class Settings:
    """What every system in one process shares: thread count, devices, where compiled files go."""

    threads: int = 1
    cache: str | None = None  # directory for compiled artifacts shared between processes
    allocator: str | None = None  # iree.runtime allocator for the IREE systems ("caching"), None: default

    @property
    def iree_device(self) -> str:
        """One thread: IREE's synchronous device; more: the task executor with that many workers."""
        return "local-sync" if self.threads == 1 else "local-task"


def configure_process(threads: int) -> None:
    """Thread settings that must be in place before any system starts (call first)."""
    n = str(threads)
    if threads == 1:  # XLA's CPU client: no Eigen thread pool; the affinity below does the rest
        os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") + " --xla_cpu_multi_thread_eigen=false").strip()
    for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ[var] = n
    if hasattr(os, "sched_setaffinity"):
        cpus = sorted(os.sched_getaffinity(0))
        if len(cpus) >= threads:
            os.sched_setaffinity(0, cpus[:threads])
    if importlib.util.find_spec("iree.runtime") is not None:
        import iree.runtime as rt

        rt.flags.parse_flags(f"--task_topology_group_count={n}")


@dataclass
class Prepared:
    """A model ready to run on one system."""

    call: Callable[[list[np.ndarray]], list[np.ndarray]]
    compile_s: float  # from the model's function to something callable, this process or a cached one
    info: dict = field(default_factory=dict)  # flags used, ...
    memory: Callable[[], dict] | None = None  # device memory figures the system itself reports
    # Inputs placed on the device once; returns a zero-argument call that leaves its results there
    # (complete, not read back): the compiled code's own latency, without the host copies.
    resident: Callable[[list[np.ndarray]], Callable[[], object]] | None = None
    # The same with the system's persistent compile cache already holding the program (oxla's cache=,
    # JAX's compilation cache): what the second process to compile the model pays.
    cache_hit_s: float | None = None


def _results(value) -> list[np.ndarray]:
    if isinstance(value, (tuple, list)):
        return [np.asarray(v) for v in value]
    return [np.asarray(value)]


def _key(*parts) -> str:
    return hashlib.sha256(json.dumps(parts, default=str).encode()).hexdigest()[:16]


class _Cache:
    """Compiled artifacts by key, with the seconds it took to make them, on disk when a cache dir is set."""

    def __init__(self, directory: str | None) -> None:
        self.dir = directory
        self.memory: dict[str, tuple[bytes, dict]] = {}

    def get_or_make(self, key: str, suffix: str, make: Callable[[], tuple[bytes, dict]]) -> tuple[bytes, dict, str | None]:
        """(data, meta, path on disk or None); `make` returns (data, meta) and runs only on a miss."""
        path = os.path.join(self.dir, key + suffix) if self.dir else None
        if key in self.memory:
            data, meta = self.memory[key]
            return data, meta, path
        if path and os.path.exists(path) and os.path.exists(path + ".json"):
            with open(path, "rb") as f:
                data = f.read()
            with open(path + ".json") as f:
                meta = json.load(f)
            meta["cached"] = True
        else:
            data, meta = make()
            if path:
                with open(path + ".tmp", "wb") as f:
                    f.write(data)
                with open(path + ".json", "w") as f:
                    json.dump(meta, f)
                os.replace(path + ".tmp", path)
        self.memory[key] = (data, meta)
        return data, meta, path


class System:
    """One way of running a model. Subclasses set `name`, `needs` and `prepare`."""

    name = "?"
    needs: tuple[str, ...] = ()  # importable modules this system cannot run without

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.cache = _Cache(settings.cache)

    def missing(self) -> str | None:
        """Why this system cannot run here (a module that is not installed), or None."""
        for module in self.needs:
            if importlib.util.find_spec(module) is None:
                return f"{module} is not installed"
        return None

    def prepare(self, model) -> Prepared:
        raise NotImplementedError


class Xla(System):
    name = "xla"
    needs = ("jax",)

    def prepare(self, model) -> Prepared:
        import jax

        def fresh(*args):  # a new function each time: jax.jit's caches cannot answer for it
            return model.fn(*args)

        began = time.perf_counter()
        compiled = jax.jit(fresh).lower(*model.inputs).compile()
        seconds = time.perf_counter() - began
        cache_hit = _xla_cache_hit_seconds(model)

        def call(inputs):
            return _results(compiled(*inputs))

        def resident(inputs):
            placed = [jax.device_put(a) for a in inputs]
            return lambda: jax.block_until_ready(compiled(*placed))

        def memory():
            analysis = compiled.memory_analysis()
            if analysis is None:
                return {}
            fields = ("argument_size_in_bytes", "output_size_in_bytes", "temp_size_in_bytes",
                      "generated_code_size_in_bytes")
            found = {f: getattr(analysis, f, None) for f in fields}
            found = {k: int(v) for k, v in found.items() if v is not None}
            found["device_bytes"] = sum(found.get(f, 0) for f in fields[:3])
            return found

        return Prepared(call, seconds, {}, memory, resident, cache_hit)


_JAX_CACHE: list[str] = []  # JAX reads its cache directory once: one per process, removed at its exit


def _jax_cache_dir() -> str:
    """This process's JAX compilation cache directory, made on first use and removed when the process
    exits (each holds up to a hundred MB of compiled programs)."""
    if not _JAX_CACHE:
        _JAX_CACHE.append(tempfile.mkdtemp(prefix="oxla-bench-jax-cache-"))
        atexit.register(shutil.rmtree, _JAX_CACHE[0], ignore_errors=True)
    return _JAX_CACHE[0]


def _xla_cache_hit_seconds(model) -> float:
    """jax.jit(...).lower(...).compile() of the model with JAX's persistent compilation cache holding it."""
    import jax

    options = {"jax_compilation_cache_dir": _jax_cache_dir(), "jax_persistent_cache_min_compile_time_secs": 0,
               "jax_persistent_cache_min_entry_size_bytes": 0}
    saved = {name: getattr(jax.config, name) for name in options}
    try:
        for name, value in options.items():
            jax.config.update(name, value)
        seconds = []
        for _ in range(2):  # the first fills the cache, the second reads it
            def fresh(*args):
                return model.fn(*args)

            began = time.perf_counter()
            jax.jit(fresh).lower(*model.inputs).compile()
            seconds.append(time.perf_counter() - began)
        return seconds[-1]
    finally:
        for name, value in saved.items():
            jax.config.update(name, value)


def _oxla_cache_hit_seconds(model) -> float:
    """The model's import and oxla.compile with oxla's compile cache holding the program."""
    import oxla

    with tempfile.TemporaryDirectory(prefix="oxla-bench-cache-") as directory:
        oxla.compile(imported_module(model).module, target="llvm-cpu", cache=directory)  # fills the cache
        began = time.perf_counter()
        artifact = oxla.compile(imported_module(model).module, target="llvm-cpu", cache=directory)
        seconds = time.perf_counter() - began
    if not artifact.from_cache:
        raise RuntimeError("oxla's compile cache did not answer for the same program")
    return seconds


def imported_module(model):
    """The model as StableHLO (oxla.importers.jax), shared by the oxla and IREE systems."""
    from oxla.importers.jax import import_jax

    return import_jax(model.fn, *model.inputs)


class Oxla(System):
    name = "oxla"
    needs = ("oxla", "jax", "iree.runtime")

    def prepare(self, model) -> Prepared:
        import oxla
        import oxla.runtime as ort
        from oxla.runtime.scheduling import waits_for_workers

        def make():
            began = time.perf_counter()
            imported = imported_module(model)
            imported_s = time.perf_counter() - began
            artifact = oxla.compile(imported.module, target="llvm-cpu")
            meta = {"compile_s": time.perf_counter() - began, "import_s": imported_s, "flags": artifact.flags}
            meta["cache_hit_s"] = _oxla_cache_hit_seconds(model)
            for name in ("flag_set", "optimized"):
                if hasattr(artifact, name):
                    meta[name] = getattr(artifact, name)
            return artifact.vmfb, meta

        key = _key("oxla", model.name, _source_stamp())
        vmfb, meta, path = self.cache.get_or_make(key, ".vmfb", make)
        module = ort.load(path or vmfb, device=self.settings.iree_device)
        main = module.main

        def call(inputs):
            return _results(main(*inputs))

        def memory():
            return _allocator_peak(module.device.hal)

        def resident(inputs):  # oxla.runtime takes host arrays only: run its vmfb through iree.runtime
            # on oxla.runtime's own device, with fresh copies of the arguments a call may write, as its calls
            # make them (IREE would write the resident ones in place)
            run = _iree_resident(vmfb, module.device.hal, inputs, copied=_written_arguments(vmfb))
            return waits_for_workers(run, module.device.name)  # waiting as oxla.runtime's calls wait

        info = {k: v for k, v in meta.items() if k not in ("compile_s", "cache_hit_s")}
        info["device"] = self.settings.iree_device
        return Prepared(call, meta["compile_s"], info, memory, resident, meta.get("cache_hit_s"))


def _source_stamp() -> str:
    """Changes whenever any oxla source changes, so cached oxla artifacts never go stale."""
    from oxla.pipelines.cache import source_stamp

    return source_stamp()


def _allocator_peak(hal_device) -> dict:
    allocator = hal_device.allocator
    if not allocator.has_statistics:
        return {}
    stats = allocator.statistics
    return {"device_bytes": int(stats["device_bytes_peak"]), "host_bytes": int(stats["host_bytes_peak"])}


_IREE_DEVICES: dict[tuple, object] = {}


def iree_device(name: str, allocator: str | None):
    """One iree.runtime HAL device per (driver, allocator) in this process."""
    import iree.runtime as rt

    key = (name, allocator)
    if key not in _IREE_DEVICES:
        driver = rt.get_driver(name)
        _IREE_DEVICES[key] = driver.create_default_device(allocators=[allocator] if allocator else None)
    return _IREE_DEVICES[key]


def _iree_main(vmfb: bytes, device):
    """The `main` function of a vmfb loaded with iree.runtime on `device`."""
    import iree.runtime as rt

    context = rt.SystemContext(config=rt.Config(device=device))
    vm_module = rt.VmModule.copy_buffer(context.instance, vmfb)
    context.add_vm_module(vm_module)
    return context.modules[vm_module.name]["main"]


def _placed(device, a: np.ndarray):
    """`a` copied into a device array."""
    import iree.runtime as rt

    if a.dtype.name == "bfloat16":  # asdevicearray would call it ui16
        return rt.DeviceArray(device, device.allocator.allocate_buffer_copy(
            memory_type=rt.MemoryType.DEVICE_LOCAL, allowed_usage=rt.BufferUsage.DEFAULT, device=device,
            buffer=a.view(np.uint16), element_type=rt.HalElementType.BFLOAT_16))
    return rt.asdevicearray(device, a)


def _iree_resident(vmfb: bytes, device, inputs, main=None, copied=frozenset()):
    """A call of the vmfb's `main` on inputs placed on `device` once; those at the `copied` indices are
    placed again for every call (the arguments the program writes, which oxla.runtime copies)."""
    main = main or _iree_main(vmfb, device)
    placed = [_placed(device, a) for a in inputs]
    if not copied:
        return lambda: main(*placed)
    return lambda: main(*[_placed(device, a) if i in copied else p for i, (a, p) in enumerate(zip(inputs, placed))])


def _written_arguments(vmfb: bytes) -> frozenset[int]:
    """The arguments of the vmfb's `main` that a call may write (all of them where it records none)."""
    import iree.runtime as rt

    from oxla.runtime.arrays import written_arguments

    instance = rt.VmInstance()  # kept alive while the module is read
    module = rt.VmModule.copy_buffer(instance, vmfb)
    reflection = dict(module.lookup_function("main").reflection)
    written = written_arguments(reflection)
    arguments = len(reflection.get("iree.abi.declaration", "").split("%input")) - 1
    return frozenset(range(arguments)) if written is None else written


def iree_tool(name: str) -> str:
    """An IREE command-line tool: the one next to this Python (the venv's wheels) if present, else by name."""
    local = os.path.join(os.path.dirname(sys.executable), name)
    return local if os.path.exists(local) else name


def iree_compile_tool() -> str:
    return iree_tool("iree-compile")


class Iree(System):
    """iree-compile (the program) with a fixed flag set, iree.runtime to run."""

    needs = ("iree.compiler", "iree.runtime", "oxla", "jax")

    def __init__(self, settings: Settings, name: str, flags: tuple[str, ...]) -> None:
        super().__init__(settings)
        self.name = name
        self.flags = tuple(flags)

    def compile(self, model) -> tuple[bytes, dict, str | None]:
        """The vmfb (cached by model and flags) and what making it cost."""

        def make():
            from oxla import ir

            began = time.perf_counter()
            text = ir.to_text(imported_module(model).module)
            imported_s = time.perf_counter() - began
            proc = subprocess.run([iree_compile_tool(), "-", *self.flags, "-o", "-"], input=text.encode(),
                                  capture_output=True)
            if proc.returncode != 0:
                raise RuntimeError("iree-compile failed: " + _first_error(proc.stderr.decode(errors="replace")))
            meta = {"compile_s": time.perf_counter() - began, "import_s": imported_s, "flags": list(self.flags)}
            return proc.stdout, meta

        return self.cache.get_or_make(_key("iree", model.name, self.flags), ".vmfb", make)

    def prepare(self, model) -> Prepared:
        vmfb, meta, _ = self.compile(model)
        device = iree_device(self.settings.iree_device, self.settings.allocator)
        main = _iree_main(vmfb, device)

        def call(inputs):
            return _results(main(*inputs))

        info = {"flags": list(self.flags), "device": self.settings.iree_device,
                "allocator": self.settings.allocator or "default"}
        return Prepared(call, meta["compile_s"], info, lambda: _allocator_peak(device),
                        lambda inputs: _iree_resident(vmfb, device, inputs, main))


def _first_error(stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if "error:" in line] or stderr.splitlines()[-1:]
    return (lines[0] if lines else "no output").strip()[:300]


def _to_torch(array: np.ndarray):
    import torch

    if array.dtype.name == "bfloat16":
        return torch.from_numpy(array.view(np.uint16)).view(torch.bfloat16)
    return torch.from_numpy(array)


def _from_torch(tensor) -> np.ndarray:
    import torch

    if tensor.dtype == torch.bfloat16:
        import ml_dtypes

        return tensor.view(torch.uint16).numpy().view(ml_dtypes.bfloat16)
    return tensor.numpy()


def torch_module(model):
    """The model as a torch module: the library's own when it has one, else the JAX function translated."""
    if model.torch_module is not None:
        return model.torch_module().eval()
    from tools.bench.jax_to_torch import translate

    return translate(model.fn, *model.inputs)


class Torch(System):
    name = "torch"
    needs = ("torch", "jax")

    def __init__(self, settings: Settings) -> None:
        super().__init__(settings)
        if self.missing() is None:
            import torch

            torch.set_num_threads(settings.threads)

    def module(self, model):
        return torch_module(model)

    def prepare(self, model) -> Prepared:
        import torch

        began = time.perf_counter()
        module = self.module(model)
        seconds = time.perf_counter() - began

        def call(inputs):
            with torch.inference_mode():
                out = module(*[_to_torch(a) for a in inputs])
            return [_from_torch(t) for t in (out if isinstance(out, (tuple, list)) else [out])]

        return Prepared(call, seconds, {"threads": torch.get_num_threads()}, None, _torch_resident(module))


def _torch_resident(module):
    def resident(inputs):
        import torch

        tensors = [_to_torch(a) for a in inputs]

        def run():
            with torch.inference_mode():
                return module(*tensors)

        return run

    return resident


class TorchCompile(Torch):
    name = "torch.compile"

    def prepare(self, model) -> Prepared:
        import torch

        # Every translated model has the same forward method: without a reset, dynamo's
        # recompile limit (8) is reached within the zoo and the rest silently runs eagerly.
        torch._dynamo.reset()
        began = time.perf_counter()
        module = torch.compile(torch_module(model))
        with torch.inference_mode():
            module(*[_to_torch(a) for a in model.inputs])  # compiles
        seconds = time.perf_counter() - began

        def call(inputs):
            with torch.inference_mode():
                out = module(*[_to_torch(a) for a in inputs])
            return [_from_torch(t) for t in (out if isinstance(out, (tuple, list)) else [out])]

        info = {"threads": torch.get_num_threads(), "backend": "inductor"}
        return Prepared(call, seconds, info, None, _torch_resident(module))


class OnnxRuntime(System):
    name = "onnxruntime"
    needs = ("onnxruntime", "onnx", "torch", "jax")

    def export(self, model) -> tuple[bytes, dict, str | None]:
        """The model as ONNX bytes (cached), exported from the torch module."""

        def make():
            import warnings

            import torch

            began = time.perf_counter()
            module = torch_module(model)
            args = tuple(_to_torch(a) for a in model.inputs)
            buffer = io.BytesIO()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                torch.onnx.export(module, args, buffer, dynamo=False, opset_version=17,
                                  input_names=[f"input{i}" for i in range(len(args))])
            return buffer.getvalue(), {"export_s": time.perf_counter() - began}

        return self.cache.get_or_make(_key("onnx", model.name), ".onnx", make)

    def prepare(self, model) -> Prepared:
        import onnxruntime as ort

        data, meta, _ = self.export(model)
        options = ort.SessionOptions()
        options.intra_op_num_threads = self.settings.threads
        options.inter_op_num_threads = 1
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        began = time.perf_counter()
        session = ort.InferenceSession(data, options, providers=["CPUExecutionProvider"])
        seconds = meta["export_s"] + time.perf_counter() - began
        names = [i.name for i in session.get_inputs()]

        def call(inputs):
            return session.run(None, dict(zip(names, inputs)))

        def resident(inputs):
            placed = {n: ort.OrtValue.ortvalue_from_numpy(a) for n, a in zip(names, inputs)}
            outputs = [o.name for o in session.get_outputs()]
            return lambda: session.run_with_ort_values(outputs, placed)

        return Prepared(call, seconds, {"threads": self.settings.threads}, None, resident)


SYSTEM_NAMES = ("oxla", "xla", "iree-default", "iree-best", "torch", "torch.compile", "onnxruntime")


def make(name: str, settings: Settings) -> System:
    """The system called `name` (see SYSTEM_NAMES)."""
    if name == "oxla":
        return Oxla(settings)
    if name == "xla":
        return Xla(settings)
    if name == "iree-default":
        return Iree(settings, name, IREE_DEFAULT_FLAGS)
    if name == "iree-best":
        return Iree(settings, name, IREE_BEST_FLAGS)
    if name == "torch":
        return Torch(settings)
    if name == "torch.compile":
        return TorchCompile(settings)
    if name == "onnxruntime":
        return OnnxRuntime(settings)
    raise ValueError(f"unknown system '{name}'; systems: {', '.join(SYSTEM_NAMES)}")
