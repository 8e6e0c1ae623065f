"""The gatekeeper for pydantic-ai: an output validator that checks the answer's evidence against
the tool returns in the run's messages (``ToolReturnPart`` by ``tool_call_id``, as the model saw
them) and raises ``ModelRetry`` with the feedback, so pydantic-ai asks the model again (up to
the agent's ``output_retries``)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from typing import Any, TypeVar

from pydantic_ai import ModelRetry, RunContext
from pydantic_ai.messages import ModelMessage, ModelRequest, ToolReturnPart

import groundcheck

from ._gate import EvidenceFunction, ToolOutput, check_evidence

__all__ = ["evidence_validator", "tool_outputs"]

OutputT = TypeVar("OutputT")


def tool_outputs(messages: Iterable[ModelMessage]) -> dict[str, ToolOutput]:
    """Every tool return in ``messages`` by call id: its content as the model was sent it (a
    string as it is, any other value as its JSON text), a return that failed marked failed.
    A call answered more than once keeps its last successful answer."""
    found: dict[str, ToolOutput] = {}
    for message in messages:
        if not isinstance(message, ModelRequest):
            continue
        for part in message.parts:
            if isinstance(part, ToolReturnPart):
                content = part.content if isinstance(part.content, str) else part.model_response_str()
                failed = part.outcome != "success"
                if failed and part.tool_call_id in found and not found[part.tool_call_id].failed:
                    continue
                found[part.tool_call_id] = ToolOutput(part.tool_name, content, failed)
    return found


def evidence_validator(
    policy: groundcheck.Policy | None = None, *, evidence: EvidenceFunction | None = None
) -> Callable[[RunContext[Any], OutputT], Awaitable[OutputT]]:
    """An output validator for ``agent.output_validator(...)``: the answer passes when every
    tool call it cites is ``supported`` under ``policy``; otherwise it raises ``ModelRetry``
    with one message naming, per failed quote, what was wrong and the nearest text or the path
    where the quote is. ``evidence`` extracts the evidence items from an output that does not
    carry them as ``evidence``. An answer citing no evidence is sent back too (asked to cite
    its quotes); once the agent's ``output_retries`` are spent, pydantic-ai ends the run with
    ``UnexpectedModelBehavior``."""

    async def validate(ctx: RunContext[Any], output: OutputT) -> OutputT:
        check = check_evidence(output, tool_outputs(ctx.messages), policy, evidence=evidence)
        if not check.passed:
            raise ModelRetry(check.feedback or "")
        return output

    return validate
