"""One compile per distinct program in a test process, for tests that run the same program on many inputs.

compile() is deterministic and oxla.runtime.load() makes a fresh module from an artifact each time, so
sharing the artifact changes nothing a test checks but the time it takes.
"""

from oxla.pipelines import Artifact, compile

_ARTIFACTS: dict[tuple[str, str], Artifact] = {}


def compiled(source: str, **options) -> Artifact:
    """compile(source, **options), done once per distinct program text and options."""
    if not isinstance(source, str):
        raise TypeError("compiled() shares artifacts by program text: give it the text")
    key = (source, repr(sorted(options.items())))
    if key not in _ARTIFACTS:
        _ARTIFACTS[key] = compile(source, **options)
    return _ARTIFACTS[key]
