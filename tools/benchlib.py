"""What the benchmark scripts in tools/ share."""

from __future__ import annotations

import os
import shutil
import sys


def tool(name: str) -> str:
    """A console program next to this Python, else on PATH; exits with a hint when missing."""
    local = os.path.join(os.path.dirname(sys.executable), name)
    found = local if os.path.exists(local) else shutil.which(name)
    if not found:
        sys.exit(f"{os.path.basename(sys.argv[0])}: {name} not found; install oxla (pip install -e .) first")
    return found
