"""Compiled artifacts on disk, keyed by everything that shapes them.

    art = oxla.compile("model.mlir", cache=True)     # or OXLA_COMPILE_CACHE=DIR, or cache="DIR"
    art.from_cache                                   # True when the .vmfb came from the cache

The compile cache keeps one `<key>.vmfb` and one `<key>.json` (what the
Artifact records, and the .vmfb's hash) per program. The key hashes the
program's bytes, the target and chip, compile()'s options, oxla's own
sources, IREE's version and this machine's CPU, so an edited pass, another
compiler or another CPU never reads a stale entry. Nothing is evicted:
delete the directory to empty it. Tuning (oxla.pipelines.tune) keeps its
choices with the same keys and records.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import platform
import tempfile
import warnings
from pathlib import Path

import oxla
from oxla import ir
from oxla._iree import COMPILER_VERSION
from oxla.pipelines.compiler import Artifact, FunctionSignature, looks_like_path
from oxla.pipelines.targets import TARGETS

ENVIRONMENT = "OXLA_COMPILE_CACHE"  # the compile cache's directory, when compile(cache=None)
_FORMAT = 1


@functools.cache
def device_fingerprint() -> str:
    """This machine's CPU as the code generator sees it: model name and ISA flags, else the architecture."""
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        text = ""
    first = text.split("\n\n")[0]
    wanted = ("model name", "flags", "features", "cpu part", "cpu implementer")
    fields = [line.split(":", 1)[1].strip() for line in first.splitlines()
              if ":" in line and line.split(":", 1)[0].strip().lower() in wanted]
    return " | ".join([platform.machine(), *fields]) if fields else f"{platform.machine()} {platform.processor()}"


@functools.cache
def source_stamp() -> str:
    """oxla's version and a hash of its Python sources: any changed pass, dialect helper or table invalidates."""
    root = Path(__file__).parent.parent
    digest = hashlib.sha256(oxla.__version__.encode())
    for path in sorted(root.rglob("*.py")):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes())
    return f"{oxla.__version__}+{digest.hexdigest()[:16]}"


def program_bytes(source) -> bytes:
    """The program as given (bytecode of a module, a file's bytes, text or bytes), for a cache key."""
    if isinstance(source, ir.Module):
        return ir.to_bytecode(source)
    if isinstance(source, os.PathLike) or (isinstance(source, str) and looks_like_path(source)):
        return Path(source).read_bytes()
    return source.encode() if isinstance(source, str) else bytes(source)


def key_of(program: bytes, context: dict) -> str:
    """The hash of a program and what else shapes its artifact (`context`, plus oxla, IREE and the CPU)."""
    digest = hashlib.sha256(program)
    context = {**context, "oxla": source_stamp(), "iree": COMPILER_VERSION, "device": device_fingerprint()}
    digest.update(json.dumps(context, sort_keys=True).encode())
    return digest.hexdigest()


def look_up(directory: Path, source, options: dict):
    """(the key, the source to compile on a miss, the cached Artifact or None) for a program and compile()'s
    options. A module is serialized once, for the key and as the private copy to compile."""
    program = program_bytes(source)
    key = key_of(program, options)
    return key, program if isinstance(source, ir.Module) else source, load(directory, key)


def atomic_write(path: Path, data: bytes) -> None:
    """Writes `data` to a temporary file next to `path`, then renames it over `path`: readers see all or nothing."""
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise


def artifact_record(artifact) -> dict:
    """What an Artifact holds besides its .vmfb and phase times, as JSON-ready data."""
    return {
        "target": artifact.target.name, "chip": artifact.chip, "flags": artifact.flags,
        "signatures": {n: [list(s.inputs), list(s.outputs)] for n, s in artifact.signatures.items()},
        "optimized": artifact.optimized, "flag_set": artifact.flag_set,
        "codegen_passes": list(artifact.codegen_passes),
    }


def artifact_from_record(record: dict, vmfb: bytes):
    """An Artifact rebuilt from its record and .vmfb (no phase times: nothing was compiled)."""
    sigs = {name: FunctionSignature(name, tuple(ins), tuple(outs))
            for name, (ins, outs) in record["signatures"].items()}
    return Artifact(vmfb, TARGETS[record["target"]], record["chip"], list(record["flags"]), sigs, {},
                    bool(record["optimized"]), record["flag_set"], tuple(record.get("codegen_passes", ())),
                    from_cache=True)


def first_line(error: BaseException) -> str:
    """The gist of an error: its first line, with the next one when the first only introduces it."""
    lines = [line.strip() for line in str(error).splitlines() if line.strip()] or [type(error).__name__]
    return f"{lines[0]} {lines[1]}" if lines[0].endswith(":") and len(lines) > 1 else lines[0]


# --- the compile cache -------------------------------------------------------------------------------------


def compile_cache_dir(cache) -> Path | None:
    """The directory compile(cache=...) uses: None (from $OXLA_COMPILE_CACHE, else off), True (that, else
    ~/.cache/oxla/compile), False (off) or a path."""
    if cache is False:
        return None
    if cache is None or cache is True:
        env = os.environ.get(ENVIRONMENT)
        if env:
            return Path(env)
        return Path.home() / ".cache" / "oxla" / "compile" if cache else None
    return Path(cache)


def load(directory: Path, key: str):
    """The cached Artifact for `key`, or None (warning when the entry is damaged)."""
    meta_path = directory / f"{key}.json"
    try:
        meta = json.loads(meta_path.read_text())
    except (FileNotFoundError, NotADirectoryError):
        return None
    except (OSError, ValueError) as exc:
        return _damaged(directory, key, exc)
    try:
        if meta.get("format") != _FORMAT:
            raise ValueError("not an entry this oxla wrote")
        vmfb = (directory / f"{key}.vmfb").read_bytes()
        if hashlib.sha256(vmfb).hexdigest() != meta["vmfb_sha256"]:
            raise ValueError("the .vmfb does not match its recorded hash")
        return artifact_from_record(meta["artifact"], vmfb)
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        return _damaged(directory, key, exc)


def _damaged(directory: Path, key: str, exc: BaseException) -> None:
    warnings.warn(f"oxla compile cache entry {key[:16]} in {directory} is damaged ({first_line(exc)}); "
                  "compiling again", stacklevel=4)
    return None


def store(directory: Path, key: str, artifact) -> None:
    """Keeps the artifact under `key` (.vmfb first, then its record); a cache that cannot be written warns."""
    meta = {"format": _FORMAT, "vmfb_sha256": hashlib.sha256(artifact.vmfb).hexdigest(),
            "artifact": artifact_record(artifact)}
    try:
        directory.mkdir(parents=True, exist_ok=True)
        atomic_write(directory / f"{key}.vmfb", artifact.vmfb)
        atomic_write(directory / f"{key}.json", json.dumps(meta, indent=1).encode())
    except OSError as exc:
        warnings.warn(f"cannot write the oxla compile cache in {directory}: {first_line(exc)}", stacklevel=3)
