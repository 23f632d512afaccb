"""oxla.runtime: run compiled vmfbs on IREE devices with numpy arrays.

Needs only iree-base-runtime, numpy and ml_dtypes (never the compiler):

    import oxla.runtime as ort
    mod = ort.load(vmfb_bytes_or_path, device="local-task")
    y = mod.main(x1, x2)                    # numpy in, numpy out
    fut = mod.main.call_async(x1, x2)       # concurrent.futures.Future
    mod.functions()                         # signatures from the vmfb's reflection
    ort.devices()                           # drivers and whether each works here

On CPU devices (local-sync, local-task) a synchronous call reads arguments
in place when their data start on the boundary the module's code assumes:
16 bytes (numpy's own) for modules oxla compiles for llvm-cpu, which record it
in their reflection, else 64 (ALIGNMENT), and only arguments the module's
reflection says it never writes (oxla.written_arguments: IREE may sort or
scatter in an argument's own buffer). Others (and every call_async
argument, and every argument of a module without that record) are copied
first, so the caller's arrays never change. Results come back 64-byte
aligned, and `aligned_empty(shape, dtype)` makes such arrays. On local-task a slow call
waits for the workers under SCHED_BATCH (oxla.runtime.scheduling).
"""

from oxla.runtime.arrays import ALIGNMENT, aligned_empty
from oxla.runtime.drivers import Device, DeviceInfo, devices, get_device
from oxla.runtime.dtypes import ElementType
from oxla.runtime.errors import DeviceError, InvocationError, ModuleLoadError
from oxla.runtime.module import Function, Module, load
from oxla.runtime.signature import Signature, ValueSpec

__all__ = [
    "ALIGNMENT",
    "Device",
    "DeviceError",
    "DeviceInfo",
    "ElementType",
    "Function",
    "InvocationError",
    "Module",
    "ModuleLoadError",
    "Signature",
    "ValueSpec",
    "aligned_empty",
    "devices",
    "get_device",
    "load",
]
