"""The gatekeeper for the OpenAI Agents SDK: run hooks that record each tool call's output by
its call id (``on_tool_end``'s ``ToolContext.tool_call_id``), and an output guardrail that checks
the final output's evidence against them. The SDK cannot ask the model again from a guardrail,
so a failed check trips the wire: ``OutputGuardrailTripwireTriggered`` carries the
:class:`~groundcheck.agents.EvidenceCheck` (report and feedback) as the guardrail's
``output_info``, and :func:`rerun_input` is the input that runs the agent again with the
feedback."""

from __future__ import annotations

from typing import Any

from agents import (
    Agent,
    GuardrailFunctionOutput,
    OutputGuardrail,
    OutputGuardrailTripwireTriggered,
    RunContextWrapper,
    RunHooks,
    Tool,
)
from agents.items import ItemHelpers, TResponseInputItem

import groundcheck

from ._gate import EvidenceCheck, EvidenceFunction, ToolOutput, check_evidence

__all__ = ["GUARDRAIL_NAME", "EvidenceHooks", "evidence_check", "evidence_guardrail", "rerun_input"]

GUARDRAIL_NAME = "groundcheck_evidence"
"""The name of the guardrail :func:`evidence_guardrail` builds, as its results report it."""


class EvidenceHooks(RunHooks[Any]):
    """Run hooks (``Runner.run(..., hooks=hooks)``) that record each function tool call's
    output, by call id, exactly as the tool returned it: a ``str`` is the output's text, a
    ``dict`` or ``list`` a JSON value. Pass the same hooks to every run of one conversation —
    a re-run after a tripped check cites the calls of the first run — and build new ones (or
    :meth:`clear` them) for the next conversation. Tool calls without a call id (hosted
    tools) are not recorded, so a quote of one is reported as citing an unknown call."""

    def __init__(self) -> None:
        self.outputs: dict[str, ToolOutput] = {}

    async def on_tool_end(
        self, context: RunContextWrapper[Any], agent: Agent[Any], tool: Tool, result: object
    ) -> None:
        call_id = getattr(context, "tool_call_id", None)
        if isinstance(call_id, str) and call_id:
            name = getattr(context, "tool_name", None) or getattr(tool, "name", "tool")
            self.outputs[call_id] = ToolOutput(str(name), result)

    def clear(self) -> None:
        """Forget every recorded output (a new conversation)."""
        self.outputs.clear()


def evidence_guardrail(
    hooks: EvidenceHooks,
    policy: groundcheck.Policy | None = None,
    *,
    evidence: EvidenceFunction | None = None,
) -> OutputGuardrail[Any]:
    """An output guardrail for ``Agent(output_guardrails=[...])``: the final output passes
    when every tool call it cites (recorded by ``hooks``) is ``supported`` under ``policy``;
    otherwise the tripwire fires and the run ends with ``OutputGuardrailTripwireTriggered``,
    whose ``guardrail_result.output.output_info`` is the :class:`EvidenceCheck` (the report,
    and the feedback for the model). An output citing no evidence trips it too. ``evidence``
    extracts the evidence items from an output that does not carry them as ``evidence``."""

    async def check(context: RunContextWrapper[Any], agent: Agent[Any], output: Any) -> GuardrailFunctionOutput:
        result = check_evidence(output, hooks.outputs, policy, evidence=evidence)
        return GuardrailFunctionOutput(output_info=result, tripwire_triggered=not result.passed)

    return OutputGuardrail(guardrail_function=check, name=GUARDRAIL_NAME)


def evidence_check(error: OutputGuardrailTripwireTriggered) -> EvidenceCheck | None:
    """The check a tripped :func:`evidence_guardrail` carries; ``None`` when another guardrail
    tripped."""
    info = error.guardrail_result.output.output_info
    return info if isinstance(info, EvidenceCheck) else None


def rerun_input(error: OutputGuardrailTripwireTriggered) -> list[TResponseInputItem]:
    """The input that runs the agent again after a tripped :func:`evidence_guardrail`: the
    first run's input and items (its tool calls and outputs, and the rejected answer), then
    the feedback as a user message. ``Runner.run(agent, rerun_input(e), hooks=hooks)``.

    Raises ``ValueError`` when the error is another guardrail's, or carries no run data."""
    check = evidence_check(error)
    if check is None or check.feedback is None:
        raise ValueError("the tripwire is not groundcheck's evidence guardrail")
    data = error.run_data
    if data is None:
        raise ValueError("the tripwire carries no run data to run again from")
    items = ItemHelpers.input_to_new_input_list(data.input)
    items.extend(item.to_input_item() for item in data.new_items)
    items.append({"role": "user", "content": check.feedback})
    return items
