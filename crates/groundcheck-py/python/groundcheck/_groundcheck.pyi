"""The extension module: the Rust engine's classes and the functions the package wraps."""

from typing import Any, Iterable, Mapping

SCHEMA: str
__version__: str

class Limits:
    """Input bounds (every one at least 1); the defaults are the command line's."""

    def __init__(
        self,
        *,
        max_output_bytes: int | None = None,
        max_depth: int | None = None,
        max_text_chars: int | None = None,
        max_path_chars: int | None = None,
        max_nodes: int | None = None,
        max_refs: int | None = None,
    ) -> None: ...
    @property
    def max_output_bytes(self) -> int: ...
    @property
    def max_depth(self) -> int: ...
    @property
    def max_text_chars(self) -> int: ...
    @property
    def max_path_chars(self) -> int: ...
    @property
    def max_nodes(self) -> int: ...
    @property
    def max_refs(self) -> int: ...

class Policy:
    """How verdicts are decided; validated when built."""

    def __init__(
        self,
        *,
        require: str = "all",
        match: str = "elided",
        min_score: object | None = None,
        limits: Limits | None = None,
    ) -> None: ...
    @property
    def require(self) -> str: ...
    @property
    def match(self) -> str: ...
    @property
    def min_score(self) -> str: ...
    @property
    def limits(self) -> Limits: ...
    @property
    def key(self) -> str: ...

class Verifier:
    """The engine under one policy (the package wraps it as ``groundcheck.Verifier``)."""

    def __init__(self, policy: Policy | None = None, *, raw_outputs: str | None = None) -> None: ...
    @property
    def policy(self) -> Policy: ...
    def _verify_invocation(self, row: Mapping[str, Any]) -> str: ...
    def _verify_run(self, rows: Iterable[Mapping[str, Any]]) -> str: ...
    def _verify_bundle_json(self, text: str) -> str: ...

def _resolve(document: Any, path: str) -> list[tuple[str, str, bool]]: ...
def _panic_for_test(message: str) -> None: ...
