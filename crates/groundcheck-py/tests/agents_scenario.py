"""The story every gatekeeper test tells (tests/test_agents_*.py): an agent calls `query_logs`
once, then answers citing the call's output. Its first answer misquotes the output in one of
three ways, each with what the feedback must tell the model; its second answer is the quote as
the output has it."""

from __future__ import annotations

import json
from typing import Any

LOGS: dict[str, Any] = {
    "logs": [
        {"level": "info", "message": "dial tcp 10.0.0.7:5432: connection refused"},
        {"level": "error", "message": "pod api-7 OOMKilled: memory limit 512Mi exceeded"},
    ]
}
LOGS_TEXT = json.dumps(LOGS)
CALL = "call_logs_1"
ROOT_CAUSE = "api-7 was killed for memory"
LEAF = "pod api-7 OOMKilled: memory limit 512Mi exceeded"

# name -> (the misquoted evidence item, a text the feedback must hold)
MISQUOTES: dict[str, tuple[dict[str, str], str]] = {
    # The quote is real, the path is the wrong log line: the feedback names the right path.
    "wrong_path": (
        {"tool_call_id": CALL, "raw_path": "$.logs[0].message", "text": "OOMKilled"},
        "it at $['logs'][1]['message'] — cite that path",
    ),
    # The model's words, not the output's: the feedback quotes the output's own line.
    "paraphrase": (
        {"tool_call_id": CALL, "raw_path": "$.logs[1].message", "text": "the pod ran out of memory"},
        f"the nearest text, at $['logs'][1]['message'], is {json.dumps(LEAF)}",
    ),
    # A line no output holds: the feedback shows what the output says instead.
    "invented": (
        {"tool_call_id": CALL, "raw_path": "$.logs[*].message", "text": "disk full on node-3"},
        "the nearest text, at $['logs']",
    ),
}
CORRECT: dict[str, str] = {"tool_call_id": CALL, "raw_path": "$.logs[1].message", "text": "OOMKilled"}


def answer(*evidence: dict[str, str]) -> dict[str, Any]:
    """An answer as the model writes it (the output type's JSON)."""
    return {"root_cause": ROOT_CAUSE, "evidence": list(evidence)}
