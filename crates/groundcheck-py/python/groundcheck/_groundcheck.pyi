"""The extension module: the Rust engine's classes and the functions the package wraps."""

from typing import Any, Iterable, Mapping, final

__all__ = ["Limits", "Policy", "Verifier", "_resolve", "_panic_for_test", "SCHEMA", "__version__"]

SCHEMA: str
__version__: str

@final
class Limits:
    """Input bounds (every one at least 1); the defaults are the command line's."""

    def __new__(
        cls,
        *,
        max_output_bytes: int | None = None,
        max_depth: int | None = None,
        max_text_chars: int | None = None,
        max_path_chars: int | None = None,
        max_nodes: int | None = None,
        max_refs: int | None = None,
    ) -> Limits: ...
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

@final
class Policy:
    """How verdicts are decided; validated when built."""

    def __new__(
        cls,
        *,
        require: str = "all",
        match: str = "elided",
        min_score: object | None = None,
        limits: Limits | None = None,
    ) -> Policy: ...
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

@final
class Verifier:
    """The engine under one policy (the package wraps it as ``groundcheck.Verifier``)."""

    def __new__(cls, policy: Policy | None = None, *, raw_outputs: str | None = None) -> Verifier: ...
    @property
    def policy(self) -> Policy: ...
    def _verify_invocation(self, row: Mapping[str, Any]) -> str: ...
    def _verify_run(self, rows: Iterable[Mapping[str, Any]]) -> str: ...
    def _verify_bundle_json(self, text: str) -> str: ...
    def _time_verify(self, row: Mapping[str, Any], n: int) -> float: ...

def _resolve(document: Any, path: str) -> list[tuple[str, str, bool]]: ...
def _panic_for_test(message: str) -> None: ...
