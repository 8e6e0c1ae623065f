"""The gatekeeper for LangChain v1 agents (``create_agent``): a middleware whose ``after_model``
checks the final answer's evidence against the ``ToolMessage``s of the conversation (a tool's
``artifact`` when it returns one, else its ``content``) and, when it does not hold, jumps back
to the model with the feedback as a message — at most ``max_retries`` times a turn, after which
the run stops with :class:`~groundcheck.agents.EvidenceError`."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from langchain.agents.middleware import AgentMiddleware, AgentState
from langchain_core.messages import AIMessage, AnyMessage, HumanMessage, ToolMessage
from langgraph.runtime import Runtime

import groundcheck

from ._gate import EvidenceError, EvidenceFunction, ToolOutput, check_evidence

__all__ = ["FEEDBACK_NAME", "EvidenceMiddleware", "answer_evidence", "tool_outputs"]

FEEDBACK_NAME = "groundcheck"
"""The ``name`` of the feedback messages the middleware adds, by which it counts its retries."""


def _text(content: Any) -> str | None:
    """A message's content as text: a string as it is, a list of content blocks as their text
    parts joined; ``None`` when it holds no text."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [
            block if isinstance(block, str) else block.get("text")
            for block in content
            if isinstance(block, str) or (isinstance(block, Mapping) and block.get("type") == "text")
        ]
        texts = [p for p in parts if isinstance(p, str)]
        return "".join(texts) if texts else None
    return None


def tool_outputs(messages: Iterable[AnyMessage]) -> dict[str, ToolOutput]:
    """Every ``ToolMessage`` by ``tool_call_id``: its ``artifact`` when the tool returned one
    (the raw output beside the text the model saw), else its content as text; a message with
    ``status == "error"`` marked failed."""
    found: dict[str, ToolOutput] = {}
    for message in messages:
        if isinstance(message, ToolMessage):
            raw = message.artifact if message.artifact is not None else _text(message.content)
            failed = message.status == "error"
            found[message.tool_call_id] = ToolOutput(message.name or "tool", raw, failed)
    return found


def answer_evidence(output: Any) -> Any:
    """The default ``evidence`` function: a structured response's ``evidence`` (attribute or
    key), or, for a final ``AIMessage``, the ``evidence`` of the JSON object its text holds
    (``None`` when the text is not such an object: the answer cites nothing)."""
    if isinstance(output, AIMessage):
        text = _text(output.content)
        try:
            value = json.loads(text) if text else None
        except ValueError:
            return None
        return value.get("evidence") if isinstance(value, dict) else None
    if isinstance(output, Mapping):
        return output.get("evidence")
    return getattr(output, "evidence", None)


def _retries(messages: list[AnyMessage]) -> int:
    """How many feedback messages this turn already holds: the ones after the last message a
    person wrote."""
    count = 0
    for message in reversed(messages):
        if isinstance(message, HumanMessage):
            if message.name != FEEDBACK_NAME:
                break
            count += 1
    return count


class EvidenceMiddleware(AgentMiddleware[AgentState[Any], Any, Any]):
    """``create_agent(..., middleware=[EvidenceMiddleware()])``: after each model call that
    ends the turn (a structured response, or an ``AIMessage`` without tool calls), the
    answer passes when every tool call it cites is ``supported`` under ``policy``; otherwise
    the feedback is added as a ``HumanMessage`` named ``groundcheck`` and the agent jumps back
    to the model. An answer citing no evidence is sent back too. After ``max_retries``
    feedback messages in one turn, a failed check raises :class:`EvidenceError` (its
    ``check`` carries the report and the feedback).

    The answer is the structured response when the agent has a ``response_format``, else the
    final ``AIMessage``; ``evidence`` extracts the items from it (by default
    :func:`answer_evidence`: the ``evidence`` of the response, or of the JSON object the
    message's text holds)."""

    def __init__(
        self,
        policy: groundcheck.Policy | None = None,
        *,
        evidence: EvidenceFunction | None = None,
        max_retries: int = 1,
    ) -> None:
        super().__init__()
        if max_retries < 0:
            raise ValueError("max_retries must be 0 or more")
        self.policy = policy
        self.evidence: EvidenceFunction = evidence or answer_evidence
        self.max_retries = max_retries

    def _after_model(self, state: AgentState[Any]) -> dict[str, Any] | None:
        messages = list(state["messages"])
        answer = state.get("structured_response")
        if answer is None:
            last = messages[-1] if messages else None
            if not isinstance(last, AIMessage) or last.tool_calls:
                return None
            answer = last
        check = check_evidence(answer, tool_outputs(messages), self.policy, evidence=self.evidence)
        if check.passed:
            return None
        if _retries(messages) >= self.max_retries:
            raise EvidenceError(check)
        return {"messages": [HumanMessage(content=check.feedback or "", name=FEEDBACK_NAME)], "jump_to": "model"}

    def after_model(self, state: AgentState[Any], runtime: Runtime[Any]) -> dict[str, Any] | None:
        """Checks a final answer; jumps back to the model with the feedback when it fails."""
        return self._after_model(state)

    async def aafter_model(self, state: AgentState[Any], runtime: Runtime[Any]) -> dict[str, Any] | None:
        """The same check for an agent run with ``ainvoke``/``astream``."""
        return self._after_model(state)

    # What langchain's hook_config decorator sets, set here so both hooks keep their own types.
    after_model.__can_jump_to__ = ["model"]  # type: ignore[attr-defined]
    aafter_model.__can_jump_to__ = ["model"]  # type: ignore[attr-defined]
