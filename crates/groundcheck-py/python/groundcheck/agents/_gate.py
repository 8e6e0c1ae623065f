"""The gatekeeper every framework shares: an answer's evidence items paired with the tool outputs
the framework recorded, verified as one run, and — when a cited call is not ``supported`` — one
feedback message that tells the model, per failed quote, what was wrong and where the text
really is. The framework modules only find the answer and the recorded outputs, and decide how
the feedback reaches the model."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import groundcheck

# pydantic reads a TypedDict's fields only from typing_extensions' class before Python 3.12 (it
# comes with pydantic, so every framework here has it); the package itself needs neither.
if sys.version_info >= (3, 12):
    from typing import TypedDict
else:
    try:
        from typing_extensions import TypedDict
    except ImportError:
        from typing import TypedDict

__all__ = [
    "Evidence",
    "EvidenceCheck",
    "EvidenceError",
    "EvidenceFunction",
    "ToolOutput",
    "check_evidence",
    "evidence_items",
]


class Evidence(TypedDict):
    """One quote an answer cites: the tool call whose output holds it (``tool_call_id``, the id
    the framework gave the call), where in that output (``raw_path``, a JSONPath or JSON
    Pointer) and the text found there (``text``). An output type declares its ``evidence`` as
    a list of these, so the model is told the shape the gatekeeper checks."""

    tool_call_id: str
    raw_path: str
    text: str


EvidenceFunction = Callable[[Any], "Iterable[Any] | None"]
"""A function from an agent's output to its evidence items, for outputs that do not carry
them as an ``evidence`` attribute or key."""


@dataclass(frozen=True)
class ToolOutput:
    """One tool call's output as the framework recorded it: what the model saw, so what its
    quotes are checked against. ``output`` given as ``str`` (or bytes) is the output's text,
    read as groundcheck reads a ``raw_output`` text (JSON, else JSON Lines or YAML, else one
    string); any other value is a JSON-like value. ``failed`` marks a call that raised: its
    output is an error message, which is no evidence."""

    tool_name: str
    output: Any
    failed: bool = False


@dataclass(frozen=True)
class EvidenceCheck:
    """What the gatekeeper decided about one answer.

    ``passed`` is true when every cited call is ``supported``. ``feedback`` is the one message
    for the model when it did not pass (``None`` when it did). ``report`` is the groundcheck
    report of the cited calls as one run — row ``id`` ``calls[tool_call_id]``, in citation
    order — or ``None`` when nothing could be verified (no evidence cited, or only calls the
    framework never recorded). ``unknown_calls`` are the cited call ids with no recorded
    output."""

    passed: bool
    feedback: str | None
    report: groundcheck.Report | None
    calls: Mapping[str, int]
    unknown_calls: tuple[str, ...]


class EvidenceError(Exception):
    """The run was stopped because the answer's evidence does not hold, where the framework
    cannot (or may no longer) ask the model again. ``check`` carries the report and the
    feedback the model would have been sent; the message is that feedback."""

    def __init__(self, check: EvidenceCheck) -> None:
        super().__init__(check.feedback or "the answer's evidence does not hold")
        self.check = check

    @property
    def report(self) -> groundcheck.Report | None:
        """The groundcheck report of the cited calls (``None`` when none could be verified)."""
        return self.check.report

    @property
    def feedback(self) -> str | None:
        """The message that tells the model what to fix."""
        return self.check.feedback


_HEADER = (
    "groundcheck could not verify the evidence your answer cites. Fix every item below and answer "
    "again: copy each quote exactly as the tool output has it, cite the path where it is and the "
    "id of the call that returned it — or drop the claim if no tool output says it."
)

_NO_EVIDENCE = (
    "Your answer cites no evidence. groundcheck checks every answer against the tool outputs it "
    "cites: list in `evidence` each quote your answer rests on, as "
    '{"tool_call_id": the id of the tool call, "raw_path": a JSONPath into its output such as '
    '"$.items[0].message", "text": the exact text found there}, then answer again.'
)

# How much of a leaf the feedback quotes back to the model.
_LEAF_CHARS = 300
# How many recorded calls the feedback lists when a cited id is unknown.
_LISTED_CALLS = 20


def _field(item: Any, name: str) -> Any:
    if isinstance(item, Mapping):
        return item.get(name)
    return getattr(item, name, None)


def evidence_items(output: Any, evidence: EvidenceFunction | None = None) -> list[Any] | None:
    """The evidence items of ``output``: ``evidence(output)`` when a function is given, else
    its ``evidence`` key (a ``Mapping``) or attribute. ``None`` or an empty list means the
    answer cites nothing. An output with neither, and no function, is a programming error (the
    output type cannot carry evidence, so asking the model again cannot help): ``TypeError``."""
    if evidence is not None:
        items = evidence(output)
    elif isinstance(output, Mapping):
        if "evidence" not in output:
            raise TypeError(
                "the agent's output has no `evidence` key: give the output type an `evidence` "
                "list of groundcheck.agents.Evidence items, or pass evidence=<function>"
            )
        items = output["evidence"]
    elif hasattr(output, "evidence"):
        items = output.evidence
    else:
        raise TypeError(
            f"the agent's output ({type(output).__name__}) has no `evidence` attribute: give the "
            "output type an `evidence` list of groundcheck.agents.Evidence items, or pass "
            "evidence=<function>"
        )
    if items is None:
        return None
    if isinstance(items, (str, bytes, Mapping)):
        raise TypeError(f"`evidence` must be a list of items, not {type(items).__name__}")
    return list(items)


def _raw(value: Any) -> Any:
    """A recorded output as a row's ``raw_output``: text stays text, JSON-like values stay
    values, a pydantic model is its JSON form, anything else its ``str``."""
    if value is None or isinstance(value, (str, bytes, bytearray, int, float, bool, Mapping, list, tuple)):
        return value
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        try:
            return dump(mode="json")
        except Exception:  # noqa: BLE001 - a model that cannot dump itself is quoted as its text
            pass
    return str(value)


def _quote(text: Any) -> str:
    return json.dumps(text, ensure_ascii=False) if isinstance(text, str) else json.dumps(text)


def _leaf(raw: Any, path: str, fallback: str) -> str:
    """The whole text of the leaf at ``path`` (what ``nearest`` is a piece of), cut to a
    length a message can carry; the nearest piece itself when the leaf cannot be read."""
    try:
        nodes = groundcheck.resolve(raw, path)
    except groundcheck.GroundcheckError:
        return _quote(fallback)
    if len(nodes) != 1:
        return _quote(fallback)
    value = nodes[0].value
    if not isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if len(value) <= _LEAF_CHARS:
        return _quote(value)
    at = value.lower().find(fallback.lower()) if fallback else -1
    start = max(0, min(at - _LEAF_CHARS // 3, len(value) - _LEAF_CHARS)) if at >= 0 else 0
    piece = value[start : start + _LEAF_CHARS]
    return ("…" if start else "") + _quote(piece) + ("…" if start + _LEAF_CHARS < len(value) else "")


def _path_message(ref: groundcheck.RefReport) -> str:
    """Why a path is not a path: the report's ``path_error`` when it carries one, else the
    message ``resolve`` gives for it."""
    error = ref.to_dict().get("path_error")
    if isinstance(error, Mapping) and isinstance(error.get("message"), str):
        return str(error["message"])
    if isinstance(error, str):
        return error
    try:
        groundcheck.resolve({}, ref.raw_path or "")
    except groundcheck.GroundcheckError as e:
        return str(e)
    return "not a JSONPath"


def _what_is_wrong(ref: groundcheck.RefReport, raw: Any, max_refs: int) -> str:
    """One failed ref, in words the model acts on."""
    outcome = ref.outcome
    nearest = ref.nearest
    if outcome == "text_not_found":
        if ref.elsewhere is not None:
            return f"the text is not at that path; the output has it at {ref.elsewhere} — cite that path."
        if nearest is not None:
            return (
                f"the output does not say this there; the nearest text, at {nearest.path}, is "
                f"{_leaf(raw, nearest.path, nearest.text)} — quote exactly what it says, or drop the claim."
            )
        return "the output does not say this at that path, nor anywhere else — drop the claim."
    if outcome == "path_not_found":
        if ref.elsewhere is not None:
            return f"the path selects nothing in that output; the text is at {ref.elsewhere} — cite that path."
        return "the path selects nothing in that output, and the text is nowhere else in it — drop the claim."
    if outcome == "invalid_path":
        return (
            f"the path is not a valid JSONPath ({_path_message(ref)}); write one such as "
            '"$.items[0].message", or a JSON Pointer such as "/items/0/message".'
        )
    if outcome == "malformed_ref":
        return 'give both "raw_path" (a JSONPath string) and "text" (the exact quote, a string).'
    if outcome == "empty_text":
        return "the quote is empty — quote the words your claim rests on."
    if outcome == "raw_output_unavailable":
        return "that call returned no output to quote from — cite a call whose output holds the text."
    if outcome == "limit_exceeded":
        return f"checking it went past groundcheck's {ref.limit} limit — cite a narrower path or a shorter quote."
    if outcome == "not_checked":
        return f"not checked: at most {max_refs} quotes are checked per tool call — cite fewer."
    return f"not verified ({outcome})."


def _cited(index: int, item: Any) -> str:
    parts = [f"evidence[{index}]"]
    text, path = _field(item, "text"), _field(item, "raw_path")
    if isinstance(text, str):
        parts.append(_quote(text))
    if isinstance(path, str):
        parts.append(f"at {path}")
    return " ".join(parts)


def check_evidence(
    output: Any,
    outputs: Mapping[str, ToolOutput],
    policy: groundcheck.Policy | None = None,
    *,
    evidence: EvidenceFunction | None = None,
) -> EvidenceCheck:
    """Check an agent's answer against the tool outputs a framework recorded (``outputs``, by
    tool call id): every cited call becomes one row, all of them one run verified under
    ``policy``; the answer passes when every cited call is ``supported``.

    An answer that cites no evidence (``None`` or an empty list) does not pass: the feedback
    asks the model to cite the quotes its answer rests on. A cited call id with no recorded
    output does not pass either, and the feedback names it and the calls that exist."""
    items = evidence_items(output, evidence)
    if not items:
        return EvidenceCheck(False, _NO_EVIDENCE, None, {}, ())

    # Rows in citation order: one per cited call, its refs the items that cite it.
    calls: dict[str, int] = {}
    refs: dict[str, list[dict[str, Any]]] = {}
    cited_by: dict[str, list[int]] = {}
    unknown: dict[str, list[int]] = {}
    lines: list[str] = []
    for index, item in enumerate(items):
        call = _field(item, "tool_call_id")
        if not isinstance(call, str) or not call:
            lines.append(f"- {_cited(index, item)}: it names no tool call — give the \"tool_call_id\" of the call whose output holds the text.")
            continue
        if call not in outputs:
            unknown.setdefault(call, []).append(index)
            continue
        if call not in calls:
            calls[call] = len(calls) + 1
            refs[call], cited_by[call] = [], []
        path, text = _field(item, "raw_path"), _field(item, "text")
        refs[call].append({"raw_path": path if isinstance(path, str) else None, "text": text if isinstance(text, str) else None})
        cited_by[call].append(index)

    report = None
    if calls:
        rows = [
            {
                "id": row_id,
                "tool_name": outputs[call].tool_name,
                "success": not outputs[call].failed,
                "retrieval_details": {"evidence_refs": refs[call]},
                "raw_output": _raw(outputs[call].output),
            }
            for call, row_id in calls.items()
        ]
        report = groundcheck.verify_run(rows, policy)
        max_refs = (policy.limits if policy is not None else groundcheck.Limits()).max_refs
        verdicts = {v.id: v for run in report.runs for v in run.invocations}
        for call, row_id in calls.items():
            verdict = verdicts[row_id]
            if verdict.status == "supported":
                continue
            where = f"{call}, {verdict.tool_name}"
            if verdict.reason == "tool_failed":
                cited = ", ".join(f"evidence[{i}]" for i in cited_by[call])
                lines.append(f"- {cited} ({where}): that call failed; its output is an error message, not evidence — cite a call that succeeded.")
                continue
            raw = rows[row_id - 1]["raw_output"]
            for ref in verdict.refs:
                if ref.outcome == "verified":
                    continue
                index = cited_by[call][ref.index]
                lines.append(f"- {_cited(index, items[index])} ({where}): {_what_is_wrong(ref, raw, max_refs)}")
    for call, indices in unknown.items():
        known = list(outputs)[-_LISTED_CALLS:]
        listed = ", ".join(f"{c} ({outputs[c].tool_name})" for c in known) or "none"
        cited = ", ".join(f"evidence[{i}]" for i in indices)
        lines.append(
            f"- {cited}: no tool call {_quote(call)} returned an output in this conversation — cite the id of "
            f"the call whose output holds the text (calls: {listed})."
        )

    if not lines:
        return EvidenceCheck(True, None, report, calls, ())
    lines.sort(key=_item_order)
    return EvidenceCheck(False, "\n".join([_HEADER, *lines]), report, calls, tuple(unknown))


def _item_order(line: str) -> int:
    """Feedback lines in the order of the evidence items they speak of."""
    digits = line[len("- evidence[") :].split("]", 1)[0]
    return int(digits) if digits.isdigit() else 0
