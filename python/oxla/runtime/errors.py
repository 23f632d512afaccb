"""Typed exceptions of oxla.runtime (free of the compiler side, unlike oxla.errors)."""

from __future__ import annotations

import re


class DeviceError(RuntimeError):
    """A device name is unknown, or its driver cannot create a device here."""


class ModuleLoadError(ValueError):
    """The bytes are not a loadable IREE VM module, or not for the chosen device."""


class InvocationError(RuntimeError):
    """The VM reported a failure while running a function (after its arguments were accepted)."""


_SOURCE_LOCATION = re.compile(r"\S+\.(?:c|cc|cpp|h):\d+: ")
_PREFIX = re.compile(r"^(?:Error (?:creating|invoking) [^:]*: )?(?:[A-Z_]+; )?")


def iree_message(error: BaseException) -> str:
    """An IREE status message on one line, without C source locations, stack dumps or status codes."""
    text = _SOURCE_LOCATION.sub("", str(error)).split("\n[ 0]")[0]
    text = " ".join(line.strip() for line in text.splitlines() if line.strip())
    return _PREFIX.sub("", text).rstrip("; ")
