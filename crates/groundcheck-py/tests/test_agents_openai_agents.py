"""groundcheck.agents.openai_agents against the real OpenAI Agents SDK: a scripted subclass of
the SDK's `Model` calls a tool, misquotes its output; the output guardrail trips with the report
and the feedback, and the run started again from `rerun_input` ends with the corrected answer;
no network, no tracing."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from agents import Agent, ModelSettings, Runner, function_tool, set_tracing_disabled
from agents.exceptions import OutputGuardrailTripwireTriggered
from agents.items import ModelResponse, TResponseInputItem
from agents.models.interface import Model
from agents.usage import Usage
from agents_scenario import CALL, CORRECT, LOGS, MISQUOTES, ROOT_CAUSE, answer
from openai.types.responses import ResponseFunctionToolCall, ResponseOutputMessage, ResponseOutputText
from pydantic import BaseModel

import groundcheck
from groundcheck.agents import EvidenceCheck, Evidence
from groundcheck.agents.openai_agents import EvidenceHooks, evidence_check, evidence_guardrail, rerun_input

set_tracing_disabled(True)


class Answer(BaseModel):
    root_cause: str
    evidence: list[Evidence]


class Script(Model):
    """A model that calls `query_logs` once, then gives the answers in order; it keeps every
    user message it was sent after the first (the feedback)."""

    def __init__(self, *answers: dict[str, Any]) -> None:
        self.answers = list(answers)
        self.calls = 0
        self.feedback: list[str] = []

    async def get_response(self, system_instructions: Any, input: Any, *args: Any, **kwargs: Any) -> ModelResponse:
        self.calls += 1
        items = input if isinstance(input, list) else [{"role": "user", "content": input}]
        users = [i["content"] for i in items if isinstance(i, dict) and i.get("role") == "user"]
        self.feedback = [str(u) for u in users[1:]]
        if self.calls == 1:
            call = ResponseFunctionToolCall(
                arguments=json.dumps({"service": "api"}), call_id=CALL, name="query_logs", type="function_call",
                id="fc_1", status="completed",
            )
            return ModelResponse(output=[call], usage=Usage(), response_id=None)
        text = ResponseOutputText(text=json.dumps(self.answers.pop(0)), type="output_text", annotations=[])
        message = ResponseOutputMessage(
            id=f"msg_{self.calls}", content=[text], role="assistant", status="completed", type="message"
        )
        return ModelResponse(output=[message], usage=Usage(), response_id=None)

    def stream_response(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError


@function_tool
def query_logs(service: str) -> dict[str, Any]:
    """The service's recent log lines."""
    return LOGS


def agent(script: Script, hooks: EvidenceHooks, **guardrail: Any) -> Agent[Any]:
    return Agent(
        name="sre",
        model=script,
        model_settings=ModelSettings(),
        tools=[query_logs],
        output_type=Answer,
        output_guardrails=[evidence_guardrail(hooks, **guardrail)],
    )


async def run_with_one_rerun(a: Agent[Any], hooks: EvidenceHooks) -> tuple[Any, EvidenceCheck | None]:
    """The loop docs/agents.md shows: run; on the evidence tripwire, run again with the feedback."""
    try:
        return (await Runner.run(a, "why is api down?", hooks=hooks)).final_output, None
    except OutputGuardrailTripwireTriggered as e:
        check = evidence_check(e)
        again: list[TResponseInputItem] = rerun_input(e)
        return (await Runner.run(a, again, hooks=hooks)).final_output, check


@pytest.mark.parametrize("kind", list(MISQUOTES))
def test_a_misquote_trips_the_guardrail_and_the_rerun_with_its_feedback_passes(kind: str) -> None:
    wrong, hint = MISQUOTES[kind]
    script, hooks = Script(answer(wrong), answer(CORRECT)), EvidenceHooks()
    output, check = asyncio.run(run_with_one_rerun(agent(script, hooks), hooks))
    assert output == Answer(root_cause=ROOT_CAUSE, evidence=[CORRECT])
    assert check is not None and not check.passed and check.report is not None
    assert check.report.runs[0].invocations[0].status == "unsupported"
    assert script.calls == 3 and len(script.feedback) == 1
    assert script.feedback[0] == check.feedback and hint in check.feedback, check.feedback


def test_the_hooks_record_each_output_by_call_id_as_the_tool_returned_it() -> None:
    script, hooks = Script(answer(CORRECT)), EvidenceHooks()
    output, check = asyncio.run(run_with_one_rerun(agent(script, hooks), hooks))
    assert check is None and output.evidence == [CORRECT]
    assert script.calls == 2
    assert hooks.outputs[CALL].tool_name == "query_logs" and hooks.outputs[CALL].output == LOGS
    hooks.clear()
    assert hooks.outputs == {}


def test_an_answer_citing_nothing_trips_the_guardrail() -> None:
    script, hooks = Script(answer(), answer(CORRECT)), EvidenceHooks()
    output, check = asyncio.run(run_with_one_rerun(agent(script, hooks), hooks))
    assert output.evidence == [CORRECT]
    assert check is not None and check.report is None and "cites no evidence" in (check.feedback or "")


def test_the_policy_decides_the_verdict() -> None:
    loose = {**CORRECT, "text": "oomkilled"}
    script, hooks = Script(answer(loose)), EvidenceHooks()
    output, check = asyncio.run(run_with_one_rerun(agent(script, hooks, policy=groundcheck.Policy()), hooks))
    assert check is None and output.evidence == [loose]
    script, hooks = Script(answer(loose)), EvidenceHooks()
    with pytest.raises(OutputGuardrailTripwireTriggered):
        asyncio.run(Runner.run(agent(script, hooks, policy=groundcheck.Policy(match="exact")), "why?", hooks=hooks))
