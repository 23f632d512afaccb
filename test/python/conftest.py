"""Settings every Python test shares."""

import pytest


@pytest.fixture(autouse=True, scope="session")
def _no_compile_cache():
    """Each test compiles for real unless it names a cache: a developer's $OXLA_COMPILE_CACHE must not answer."""
    with pytest.MonkeyPatch.context() as patch:
        patch.delenv("OXLA_COMPILE_CACHE", raising=False)
        yield
