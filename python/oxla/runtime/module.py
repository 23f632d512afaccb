"""Loaded modules and their functions: numpy arrays in, numpy arrays out."""

from __future__ import annotations

import concurrent.futures
import os
import re
import threading

import numpy as np
import iree.runtime as rt

from oxla.runtime import arrays, drivers, dtypes, scheduling
from oxla.runtime.drivers import Device
from oxla.runtime.dtypes import describe
from oxla.runtime.errors import InvocationError, ModuleLoadError, iree_message
from oxla.runtime.signature import Signature, ValueSpec, from_reflection

_ndarray = np.ndarray
_VmVariantList = rt.VmVariantList
_HalBufferView = rt.HalBufferView
_UPLOAD_MEMORY, _UPLOAD_USAGE = arrays.UPLOAD_MEMORY, arrays.UPLOAD_USAGE
_IMPORT_MEMORY = arrays.IMPORT_MEMORY
# Drivers whose devices read host memory directly: aligned arrays are imported, not copied.
_HOST_DRIVERS = frozenset({"local-sync", "local-task"})
# The entry beside a function that writes its results into arrays passed after its arguments
# (oxla.transforms.result_storage.ENTRY_PREFIX, the same text).
_INTO_PREFIX = "__oxla_into."
_EXECUTOR: list[concurrent.futures.ThreadPoolExecutor] = []
_EXECUTOR_LOCK = threading.Lock()
_TARGET = re.compile(r'#hal\.executable\.target<"([^"]+)", "([^"]+)"')
# Where a module compiled for an executable target can run.
_DEVICE_FOR_TARGET = {
    "llvm-cpu": "local-task",
    "vmvx": "local-task",
    "vulkan-spirv": "vulkan",
    "cuda": "cuda",
    "rocm": "hip",
    "metal-spirv": "metal",
}


def _executor() -> concurrent.futures.ThreadPoolExecutor:
    """The worker threads behind every `call_async` (invocations release the GIL)."""
    if not _EXECUTOR:
        with _EXECUTOR_LOCK:
            if not _EXECUTOR:
                workers = max(2, min(8, os.cpu_count() or 2))
                _EXECUTOR.append(concurrent.futures.ThreadPoolExecutor(workers, "oxla-runtime"))
    return _EXECUTOR[0]


class _Input:
    """One parameter: checks an argument against its spec and pushes it onto a VM list."""

    __slots__ = ("where", "spec", "dtype", "shape", "element", "hal", "device", "upload", "import_", "alignment", "pack")

    def __init__(self, function: str, index: int, spec: ValueSpec, device: rt.HalDevice,
                 in_place: bool = False, alignment: int = arrays.ALIGNMENT) -> None:
        self.where = f"{function}: argument {index + 1} ({spec.name})"
        self.spec = spec
        self.element = spec.element
        self.dtype = spec.dtype
        self.shape = spec.shape
        self.hal = spec.element.hal if spec.element else None
        self.device = device
        self.upload = device.allocator.allocate_buffer_copy
        # Reads host arrays on `alignment`-byte boundaries in place (CPU devices only; see arrays.ALIGNMENT).
        self.import_ = device.allocator.import_host_allocation if in_place and self.hal is not None else None
        self.alignment = alignment
        self.pack = {"tensor": self._pack_tensor, "scalar": self._pack_scalar}.get(spec.kind, self._pack_other)

    def _pack_tensor(self, inputs: rt.VmVariantList, value, held: list | None) -> None:
        """Validate, upload and push a tensor argument (the hot path: ndarray of the right dtype).

        With a `held` list an aligned array may be read in place, and goes into it: IREE's buffer
        does not keep the array alive, the call must. Without one every argument is copied.
        """
        if type(value) is not _ndarray or value.dtype is not self.dtype:
            value = self.coerce(value)
        if value.shape != self.shape:
            self.check_shape(value)
        if not value.flags.c_contiguous:
            value = np.ascontiguousarray(value)
        if held is not None and self.import_ is not None and arrays.is_aligned(value, self.alignment):
            buffer = self.import_(value.reshape(-1).view(np.uint8), _IMPORT_MEMORY, _UPLOAD_USAGE)
            inputs.push_ref(_HalBufferView(buffer, value.shape, self.hal))
            held.append(value)
            return
        inputs.push_ref(self.upload(_UPLOAD_MEMORY, _UPLOAD_USAGE, self.device, value, self.hal))

    def _pack_scalar(self, inputs: rt.VmVariantList, value, held: list | None) -> None:
        """Validate and push a VM scalar register argument (i32, i64, f32, f64)."""
        value = self.coerce(value)
        if value.shape != ():
            self.check_shape(value)
        if value.dtype.kind == "f":
            inputs.push_float(float(value))
        else:
            inputs.push_int(int(value))

    def _pack_other(self, inputs: rt.VmVariantList, value, held: list | None) -> None:
        """Push an argument of a type the declaration does not let us check, as its own dtype."""
        value = np.ascontiguousarray(arrays.as_array(value))
        element = dtypes.from_dtype(value.dtype)
        if element is None:
            raise TypeError(f"{self.where}: {describe(value)} has no IREE element type")
        inputs.push_ref(self.upload(_UPLOAD_MEMORY, _UPLOAD_USAGE, self.device, value, element.hal))

    def coerce(self, value) -> np.ndarray:
        """`value` as an ndarray of the declared dtype; TypeError unless that is exact or lossless."""
        if arrays.is_python_value(value):
            converted = arrays.convert_lossless(value, self.dtype)
            if converted is None:
                raise TypeError(
                    f"{self.where} expects {self.spec.type}, got {_short(value)}, "
                    f"which does not convert to {self.dtype.name} without loss"
                )
            return converted
        array = arrays.as_array(value)
        if array.dtype != self.dtype:
            if dtypes.from_dtype(array.dtype) is not self.element:
                raise TypeError(f"{self.where} expects {self.spec.type}, got {describe(array)}")
            array = array.astype(self.dtype)  # same type in the other byte order
        return array

    def check_shape(self, value: np.ndarray) -> None:
        """Raise ValueError unless the shape matches, `?` dims matching any size."""
        shape = value.shape
        if len(shape) == len(self.shape) and all(d is None or d == s for d, s in zip(self.shape, shape)):
            return
        raise ValueError(f"{self.where} expects {self.spec.type}, got {describe(value)}")


def _short(value) -> str:
    """A Python value for an error message, cut to a readable length."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _reader(spec: ValueSpec | None, device: rt.HalDevice):
    """A function (outputs, index) -> numpy array for one result."""
    if spec is not None and spec.kind == "scalar":
        dtype = spec.dtype
        return lambda outputs, i: np.asarray(outputs.get_variant(i), dtype)
    if spec is not None and spec.kind == "tensor":
        element = spec.element
        return lambda outputs, i: arrays.to_host(device, outputs.get_as_object(i, _HalBufferView), element)

    def read_any(outputs, i):
        value = outputs.get_variant(i)
        if isinstance(value, rt.VmRef):
            view = value.deref(_HalBufferView, True)
            if view is not None:
                return arrays.to_host(device, view, arrays.element_of(view))
        return value

    return read_any


def _same_values(a: tuple[ValueSpec, ...], b: tuple[ValueSpec, ...]) -> bool:
    """Whether two lists of parameters or results declare the same types, whatever their names."""
    return len(a) == len(b) and all(x.type == y.type for x, y in zip(a, b))


def _storage_entry(vm_module: rt.VmModule, sig: Signature | None) -> tuple[rt.VmFunction, list] | None:
    """(the function's result-storage entry, (shape, dtype, HAL type) of each result) when the vmfb has
    one that takes the function's arguments, then an array per result (oxla.transforms.result_storage),
    and each result is a static tensor numpy holds as the device lays it out; else None."""
    if sig is None or not sig.outputs or _INTO_PREFIX + sig.name not in vm_module.function_names:
        return None
    out = sig.outputs
    if any(o.kind != "tensor" or None in o.shape or o.element.storage != o.element.dtype for o in out):
        return None
    vm_function = vm_module.lookup_function(_INTO_PREFIX + sig.name)
    into = from_reflection(vm_function.name, vm_function.reflection)
    if into is None or into.model != sig.model or not _same_values(into.inputs, sig.inputs + out) \
            or not _same_values(into.outputs, out):
        return None
    return vm_function, [(o.shape, o.dtype, o.element.hal) for o in out]


def _written_arguments(vm_function: rt.VmFunction, into: tuple | None) -> frozenset[int] | None:
    """The arguments a call may write, as the function and its result-storage entry record them; None
    when either records nothing (any argument may be written, so none is read in place)."""
    written = arrays.written_arguments(vm_function.reflection)
    if into is not None and written is not None:
        also = arrays.written_arguments(into[0].reflection)
        written = None if also is None else written | also
    return written


class Function:
    """A callable VM function: numpy arrays (or array-likes) in, numpy arrays out."""

    __slots__ = (
        "name", "signature", "device", "_module", "_vm_function", "_invoke", "_lock",
        "_inputs", "_packers", "_readers", "_n_args", "_n_results", "_fences", "_execute", "_into",
    )  # fmt: skip

    def __init__(self, module: "Module", vm_function: rt.VmFunction) -> None:
        self.name = vm_function.name
        self.signature: Signature | None = from_reflection(self.name, vm_function.reflection)
        self.device: Device = module.device
        self._module = module
        self._vm_function = vm_function
        self._invoke = module._context.invoke
        self._lock = module._lock
        hal = module.device.hal
        sig = self.signature
        in_place = module.device.name in _HOST_DRIVERS
        alignment = arrays.binding_alignment(vm_function.reflection)
        # On CPU devices, results go straight into arrays made here where the module has an entry for it.
        self._into = _storage_entry(module._vm_module, sig) if in_place else None
        written = _written_arguments(vm_function, self._into)
        self._inputs = None if sig is None else [
            _Input(self.name, i, s, hal, in_place and written is not None and i not in written, alignment)
            for i, s in enumerate(sig.inputs)]
        self._packers = None if sig is None else [p.pack for p in self._inputs]
        self._readers = None if sig is None else [_reader(s, hal) for s in sig.outputs]
        self._n_args = None if sig is None else len(sig.inputs)
        self._n_results = None if sig is None else len(sig.outputs)
        self._fences = sig is not None and sig.model == "async"
        self._execute = scheduling.waits_for_workers(self._invoke_and_wait, module.device.name)

    def __call__(self, *args):
        """Run the function on `args`; one result -> the array, several -> a tuple, none -> None."""
        inputs, held = self._pack(args, in_place=True)  # noqa: F841 (arrays read in place live until the return)
        return self._run(inputs)

    def call_async(self, *args) -> concurrent.futures.Future:
        """Start the function; arguments are checked and copied now, the Future holds the results."""
        inputs, _ = self._pack(args, in_place=False)  # the caller may change its arrays meanwhile
        return _executor().submit(self._run, inputs)

    def _pack(self, args: tuple, in_place: bool) -> tuple[rt.VmVariantList, list | None]:
        """Check every argument and put it on the device: the VM list, and the arrays read in place.

        in_place: aligned arrays on CPU devices may be read where they are (synchronous calls only).
        """
        if len(args) != self._n_args and self._n_args is not None:
            raise TypeError(self._count_error(len(args)))
        packers = self._packers
        if packers is None:  # no reflection: nothing to check the arguments against
            unchecked = (ValueSpec(f"%input{i}", "?", "other", (), None) for i in range(len(args)))
            packers = [_Input(self.name, i, spec, self.device.hal).pack for i, spec in enumerate(unchecked)]
        inputs, held = _VmVariantList(len(args) + 2), ([] if in_place else None)
        for pack, arg in zip(packers, args):
            pack(inputs, arg, held)
        return inputs, held

    def _run(self, inputs: rt.VmVariantList):
        """Invoke with packed inputs and read the results back as numpy arrays."""
        outputs = _VmVariantList(self._n_results or 4)
        function, results = self._vm_function, None
        if self._into is not None:  # the results' arrays go after the arguments
            function, storage = self._into
            results = [self._result_storage(inputs, *result) for result in storage]
        done = None
        if self._fences:  # async ABI: no wait fence, then a signal fence we wait on
            done = rt.HalFence.create_at(self.device.hal.create_semaphore(0), 1)
            inputs.push_ref(rt.HalFence(1).ref)
            inputs.push_ref(done.ref)
        self._execute(function, inputs, outputs, done)
        if results is not None:
            return results[0] if len(results) == 1 else tuple(results)
        readers = self._readers
        if readers is None:
            readers = [_reader(None, self.device.hal)] * len(outputs)
        if len(readers) == 1:
            return readers[0](outputs, 0)
        if not readers:
            return None
        return tuple([read(outputs, i) for i, read in enumerate(readers)])

    def _result_storage(self, inputs: rt.VmVariantList, shape, dtype, hal) -> np.ndarray:
        """A new aligned array for one result, pushed onto `inputs` as the storage the device writes it to."""
        array = arrays.aligned_empty(shape, dtype)
        buffer = self.device.hal.allocator.import_host_allocation(array.reshape(-1).view(np.uint8),
                                                                  _IMPORT_MEMORY, _UPLOAD_USAGE)
        inputs.push_ref(_HalBufferView(buffer, shape, hal))
        return array

    def _invoke_and_wait(self, function: rt.VmFunction, inputs: rt.VmVariantList, outputs: rt.VmVariantList,
                         done) -> None:
        """Invoke `function` (this one or its result-storage entry), then wait for the `done` fence where
        the function signals one."""
        with self._lock:
            try:
                self._invoke(function, inputs, outputs)
            except Exception as e:
                raise InvocationError(f"{self.name}: {iree_message(e)}") from None
        if done is not None:
            done.wait()

    def _count_error(self, got: int) -> str:
        """The message for a call with the wrong number of arguments."""
        names = ", ".join(s.name for s in self.signature.inputs)
        wanted = f"{self._n_args} argument{'s' if self._n_args != 1 else ''}"
        return f"{self.name}: expects {wanted} ({names or 'none'}), got {got}"

    def __repr__(self) -> str:
        text = str(self.signature) if self.signature else f"{self.name}(...) (no signature)"
        return f"<oxla.runtime.Function {text} on {self.device.name}>"


class Module:
    """A vmfb loaded on a device; its functions are attributes and items."""

    def __init__(self, vm_module: rt.VmModule, device: Device, context: rt.VmContext) -> None:
        self.name: str = vm_module.name
        self.device = device
        self._vm_module = vm_module
        self._context = context
        self._lock = threading.Lock()  # one invocation at a time per VM context
        self._functions: dict[str, Function] = {}
        self._names = [n for n in vm_module.function_names if not n.startswith("__")]

    def functions(self) -> list[Signature]:
        """The signature of every exported function (a bare name-only one where none is recorded)."""
        return [self[n].signature or Signature(n, (), (), "unknown") for n in self._names]

    def call_async(self, name: str, *args) -> concurrent.futures.Future:
        """Start function `name` on `args`; see Function.call_async."""
        return self[name].call_async(*args)

    def __getitem__(self, name: str) -> Function:
        fn = self._functions.get(name)
        if fn is not None:
            return fn
        vm_function = self._vm_module.lookup_function(name) if name in self._names else None
        if vm_function is None:
            known = ", ".join(self._names) or "none"
            raise KeyError(f"module {self.name!r} has no function {name!r}; functions: {known}")
        fn = self._functions[name] = Function(self, vm_function)
        if not hasattr(type(self), name):
            self.__dict__[name] = fn  # later `mod.name` lookups skip __getattr__
        return fn

    def __getattr__(self, name: str) -> Function:
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            return self[name]
        except KeyError as e:
            raise AttributeError(e.args[0]) from None

    def __contains__(self, name: str) -> bool:
        return name in self._names

    def __iter__(self):
        return iter(list(self._names))

    def __dir__(self):
        return sorted(set(super().__dir__()) | {n for n in self._names if n.isidentifier()})

    def __repr__(self) -> str:
        sigs = "; ".join(str(s) for s in self.functions())
        return f"<oxla.runtime.Module {self.name!r} on {self.device.name}: {sigs}>"


def _looks_like_text(data: bytes) -> bool:
    """Whether the first bytes are printable text (a common wrong input: MLIR source)."""
    head = bytes(data[:256])
    return bool(head) and all(32 <= b < 127 or b in b"\t\r\n" for b in head)


def _load_error(what: str, error: Exception, head: bytes) -> ModuleLoadError:
    """A ModuleLoadError for bytes IREE rejected, with a hint when they are text."""
    hint = ""
    if _looks_like_text(head):
        lines = bytes(head).decode("ascii", "replace").splitlines()
        snippet = next((line.strip() for line in lines if line.strip()), "")[:40]
        hint = f" (the data is text, starting {snippet!r}; a .vmfb is the binary output of iree-compile)"
    return ModuleLoadError(f"{what} is not a valid IREE VM module (.vmfb): {iree_message(error)}{hint}")


def _vm_module(source) -> rt.VmModule:
    """A VmModule from vmfb bytes, a .vmfb path, or an object with a `.vmfb` attribute."""
    instance = drivers.instance()
    if isinstance(source, str) and ("\n" in source or "{" in source) and not os.path.exists(source):
        raise ModuleLoadError("load() got MLIR source text, not a path or vmfb bytes; compile it to a .vmfb first")
    if isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        with open(path, "rb") as f:  # FileNotFoundError / IsADirectoryError as usual
            head = f.read(256)
        try:
            return rt.VmModule.mmap(instance, path)
        except Exception as e:
            raise _load_error(repr(path), e, head) from None
    data = getattr(source, "vmfb", source) if not isinstance(source, (bytes, bytearray, memoryview)) else source
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError(
            "load() expects vmfb bytes, a path to a .vmfb file, or an object with a .vmfb bytes "
            f"attribute; got {type(source).__name__}"
        )
    if isinstance(data, memoryview) and not data.c_contiguous:
        data = data.tobytes()
    try:
        return rt.VmModule.copy_buffer(instance, data)
    except Exception as e:
        raise _load_error(f"the {len(data)}-byte input", e, data) from None


def _context(vm_module: rt.VmModule, device: Device) -> rt.VmContext:
    """A VM context with the device's HAL module; ModuleLoadError when the device cannot run it."""
    try:
        return rt.VmContext(drivers.instance(), [device.hal_module, vm_module])
    except Exception as e:
        message = iree_message(e)
        targets = sorted(set(_TARGET.findall(message)))
        if not targets:
            raise ModuleLoadError(
                f"module {vm_module.name!r} cannot be loaded on device {device.name!r}: {message}"
            ) from None
        compiled = ", ".join(f"{backend} ({fmt})" for backend, fmt in targets)
        runs_on = sorted({_DEVICE_FOR_TARGET.get(b, "?") for b, _ in targets} - {"?"})
        advice = f"; load it with device={runs_on[0]!r}" if runs_on else ""
        raise ModuleLoadError(
            f"module {vm_module.name!r} cannot run on device {device.name!r}: "
            f"it was compiled for {compiled}{advice}"
        ) from None


def load(vmfb_or_artifact, device: "str | Device" = "local-task") -> Module:
    """Load a vmfb (bytes, a path, or an object with `.vmfb` bytes) on a device (a driver name)."""
    vm_module = _vm_module(vmfb_or_artifact)
    dev = drivers.get_device(device)
    drivers.request_tile_state()
    drivers.trim_cache(dev)
    return Module(vm_module, dev, _context(vm_module, dev))
