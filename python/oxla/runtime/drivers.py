"""HAL drivers and devices: which exist, which work here, and one shared device per name."""

from __future__ import annotations

import ctypes
import functools
import platform
import sys
import threading
from dataclasses import dataclass

import iree.runtime as rt
from iree.runtime import _binding

from oxla.runtime.errors import DeviceError, iree_message

_LOCK = threading.RLock()
_DEVICES: dict[str, "Device | str"] = {}  # name -> Device, or the reason it cannot be created
_INSTANCE: list[rt.VmInstance] = []


# Linux x86-64: arch_prctl(ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA) lets the process use AMX tiles.
_ARCH_PRCTL, _ARCH_REQ_XCOMP_PERM, _XFEATURE_XTILEDATA = 158, 0x1023, 18


@functools.cache
def request_tile_state() -> bool:
    """Asks Linux for the AMX tile state, once per process: without it an AMX instruction (oxla's bf16
    matmul kernel on CPUs that have AMX) faults. Whether it was granted; False elsewhere. Processes that
    are not Python (iree-run-module) do not ask, so they cannot run such kernels."""
    if sys.platform != "linux" or platform.machine() != "x86_64":
        return False
    libc = ctypes.CDLL(None, use_errno=True)
    return libc.syscall(_ARCH_PRCTL, _ARCH_REQ_XCOMP_PERM, _XFEATURE_XTILEDATA) == 0


@dataclass(frozen=True)
class DeviceInfo:
    """What `devices()` reports for one driver: can it create a device here, and which."""

    name: str
    available: bool
    detail: str  # the device's own name when available, the reason when not

    def __str__(self) -> str:
        return f"{self.name}: {'available' if self.available else 'unavailable'} ({self.detail})"


class Device:
    """A HAL device shared by every module loaded on it; lives as long as the process."""

    __slots__ = ("name", "hal", "description", "hal_module")

    def __init__(self, name: str, hal: rt.HalDevice, description: str) -> None:
        self.name = name
        self.hal = hal
        self.description = description
        self.hal_module = rt.create_hal_module(instance(), hal)

    def __repr__(self) -> str:
        return f"<oxla.runtime.Device {self.name} ({self.description})>"


def _immortal(obj) -> None:
    """Keep `obj` alive until the process ends.

    IREE objects that hold buffers (VM lists, buffer views, mappings) crash the
    interpreter if they are freed after their device; at shutdown Python frees
    module globals in no useful order, so devices and the VM instance are never freed.
    """
    ctypes.pythonapi.Py_IncRef(ctypes.py_object(obj))


def instance() -> rt.VmInstance:
    """The process's one VM instance."""
    if not _INSTANCE:
        with _LOCK:
            if not _INSTANCE:
                vm_instance = rt.VmInstance()
                _immortal(vm_instance)
                # Immortal objects would otherwise be reported as leaks at exit.
                getattr(_binding, "disable_leak_checker", lambda: None)()
                _INSTANCE.append(vm_instance)
    return _INSTANCE[0]


def driver_names() -> list[str]:
    """The HAL drivers compiled into iree.runtime, sorted."""
    return sorted(rt.HalDriver.query())


def _describe(driver: rt.HalDriver) -> str:
    """The first device's name as the driver reports it, or the driver's own."""
    try:
        found = driver.query_available_devices()
    except Exception:
        found = []
    return (found[0].get("name") if found else None) or "default"


# IREE's caching allocator on the CPU drivers: freed buffers are kept for the next call instead of going
# back to the OS, so each call no longer page-faults its inputs, intermediates and results in afresh (the
# zoo's elementwise chain, 16 MB in and out: 23 ms -> 11 ms through module.main(numpy); docs/performance.md).
# Its free list holds 64 buffers by default and, once full, frees every buffer released after: a process
# that had run a few other programs paged in a 64 MB operand pack on every call again (`tools.bench.ops`
# `gemm_64_rows` after 18 other ops: 80-88 ms, alone 32 ms). 1024 places keep a process's programs cached;
# `load` trims the buffers no call holds, so what stays cached is what the latest programs use.
_FREE_BUFFERS = 1024
_CACHING = f"caching:device_local=*;*;{_FREE_BUFFERS}"
_ALLOCATORS = {"local-sync": [_CACHING], "local-task": [_CACHING]}


def trim_cache(device: "Device") -> None:
    """Frees the buffers `device`'s caching allocator keeps that no call holds (devices without one keep
    none), so what stays cached is what the programs loaded since use."""
    if device.name in _ALLOCATORS:
        device.hal.allocator.trim()


def _create(name: str) -> "Device | str":
    """A new Device for driver `name`, or the reason none can be created."""
    try:
        driver = rt.get_driver(name)
        hal = driver.create_default_device(allocators=_ALLOCATORS.get(name))
    except Exception as e:
        return iree_message(e)
    _immortal(hal)
    return Device(name, hal, _describe(driver))


def _lookup(name: str) -> "Device | str":
    """The cached Device or failure reason for a known driver name."""
    with _LOCK:
        if name not in _DEVICES:
            instance()
            _DEVICES[name] = _create(name)
        return _DEVICES[name]


def devices() -> list[DeviceInfo]:
    """Every driver iree.runtime has, and whether it can create a device on this machine."""
    infos = []
    for name in driver_names():
        found = _lookup(name)
        ok = isinstance(found, Device)
        infos.append(DeviceInfo(name, ok, found.description if ok else found))
    return infos


def get_device(device: "str | Device") -> Device:
    """The shared Device for a driver name; DeviceError names the valid or available ones."""
    if isinstance(device, Device):
        return device
    if not isinstance(device, str):
        raise TypeError(f"device must be a driver name such as 'local-task', got {type(device).__name__}")
    names = driver_names()
    if device not in names:
        raise DeviceError(f"unknown device {device!r}; valid names: {', '.join(names)}")
    found = _lookup(device)
    if isinstance(found, Device):
        return found
    available = [d.name for d in devices() if d.available]
    raise DeviceError(
        f"device {device!r} cannot be created here: {found}; "
        f"available devices: {', '.join(available) or 'none'}"
    )
