"""Gatekeepers: groundcheck as the Verifier stage inside the frameworks agents are built with.

The agent's final output cites its evidence as ``{"tool_call_id", "raw_path", "text"}`` items
(:class:`Evidence`), as its ``evidence`` attribute or key. The gatekeeper pairs each cited call
with that call's output as the framework recorded it, verifies every cited call as one run, and
when a cited call is not ``supported`` sends the model one message saying, per failed quote,
what was wrong and the nearest text or the path where the quote really is — so the model
answers again — or, where the framework cannot ask again, stops the run with an error that
carries the report.

One module per framework, each an optional extra; this package imports none of them:

- ``groundcheck.agents.pydantic_ai.evidence_validator`` (``pip install 'groundcheck[pydantic-ai]'``);
- ``groundcheck.agents.openai_agents.EvidenceHooks`` and ``evidence_guardrail``
  (``groundcheck[openai-agents]``);
- ``groundcheck.agents.langchain.EvidenceMiddleware`` (``groundcheck[langchain]``).

:func:`check_evidence` is the shared check, for any other loop that records its tool outputs.
"""

from __future__ import annotations

from ._gate import (
    Evidence,
    EvidenceCheck,
    EvidenceError,
    EvidenceFunction,
    ToolOutput,
    check_evidence,
    evidence_items,
)

__all__ = [
    "Evidence",
    "EvidenceCheck",
    "EvidenceError",
    "EvidenceFunction",
    "ToolOutput",
    "check_evidence",
    "evidence_items",
]
