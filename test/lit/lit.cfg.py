# -*- Python -*-
"""lit configuration of oxla's FileCheck tests (run `lit -v test/lit` from the repo root).

Substitutions, applied to RUN lines only:
  oxla-opt      the oxla-opt console script (next to the Python running lit, else on PATH)
  FileCheck     the `filecheck` PyPI package's executable (a Python clone of LLVM FileCheck)
  not           a `not` binary from PATH, else test/lit/not.py: inverts a normal exit
                status, and a crash (signal) stays a failure
  %PYTHON       the Python running lit
  %expect-exit  `%expect-exit N cmd args...`: runs cmd, passes its output through, and
                fails unless cmd exited with exactly status N
`oxla-opt`, `FileCheck` and `not` are replaced only where they stand as a command word
(start of the line or after `|`, `;`, `&&`, whitespace), so keep the bare word `not`
out of inline `%PYTHON -c` code.
"""

import os
import shutil
import sys

import lit.formats

config.name = "oxla"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir"]
# Helpers and inputs that other tests read are not tests themselves.
config.excludes = ["Inputs", "Output", "lit.cfg.py", "not.py", "expect_exit.py"]
config.test_source_root = os.path.dirname(os.path.abspath(__file__))
config.test_exec_root = config.test_source_root

here = config.test_source_root
bin_dir = os.path.dirname(sys.executable)
search_path = os.pathsep.join([bin_dir, config.environment.get("PATH", os.environ.get("PATH", ""))])
config.environment["PATH"] = search_path
# oxla-opt prints a traceback only when asked; tests check that it never does.
config.environment.pop("OXLA_DEBUG", None)
# Each test compiles for real unless it names a cache.
config.environment.pop("OXLA_COMPILE_CACHE", None)


def find_tool(name):
    """`name` next to the Python running lit first, then on PATH."""
    local = os.path.join(bin_dir, name)
    if os.path.isfile(local) and os.access(local, os.X_OK):
        return local
    return shutil.which(name, path=search_path)


def quote(path):
    return '"' + path.replace("\\", "/") + '"'


oxla_opt = lit_config.params.get("oxla_opt") or find_tool("oxla-opt")
if not oxla_opt:
    lit_config.fatal("oxla-opt not found next to %s nor on PATH: run `pip install -e .[test]`" % sys.executable)

filecheck = find_tool("filecheck")
if filecheck:
    filecheck_cmd = quote(filecheck)
else:
    try:
        import filecheck as _filecheck  # noqa: F401
    except ImportError:
        lit_config.fatal("the `filecheck` package is missing: run `pip install -e .[test]`")
    filecheck_cmd = quote(sys.executable) + " -m filecheck"

not_binary = shutil.which("not", path=search_path)
not_cmd = quote(not_binary) if not_binary else quote(sys.executable) + " " + quote(os.path.join(here, "not.py"))

# A tool name is replaced only as a command word, never inside a path or another word.
COMMAND_WORD = r"(?:^|(?<=[\s|;&(]))%s(?=\s|$)"

config.substitutions.append(("%PYTHON", quote(sys.executable)))
config.substitutions.append(
    ("%expect-exit", quote(sys.executable) + " " + quote(os.path.join(here, "expect_exit.py")))
)
config.substitutions.append((COMMAND_WORD % "FileCheck", filecheck_cmd))
config.substitutions.append((COMMAND_WORD % "oxla-opt", quote(oxla_opt)))
for tool in ("oxla-compile", "oxla-run"):
    path = find_tool(tool)
    if not path:
        lit_config.fatal("%s not found next to %s nor on PATH: run `pip install -e .[test]`" % (tool, sys.executable))
    config.substitutions.append((COMMAND_WORD % tool, quote(path)))
config.substitutions.append((COMMAND_WORD % "not", not_cmd))

def _vulkan_device_available():
    """True when oxla.runtime can create a Vulkan device here (Mesa's lavapipe counts)."""
    import subprocess

    probe = "from oxla.runtime import devices; print(any(d.name == 'vulkan' and d.available for d in devices()))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    return out.stdout.strip() == "True"


if _vulkan_device_available():
    config.available_features.add("vulkan")

lit_config.note("oxla-opt: %s" % oxla_opt)
lit_config.note("FileCheck: %s" % filecheck_cmd)
lit_config.note("not: %s" % not_cmd)
