"""groundcheck.agents.pydantic_ai against the real pydantic-ai: a scripted `FunctionModel`
calls a tool, misquotes its output, reads the `ModelRetry` feedback and answers again; no
network."""

from __future__ import annotations

from typing import Any

import pytest
from agents_scenario import CALL, CORRECT, LOGS, MISQUOTES, ROOT_CAUSE, answer
from pydantic import BaseModel
from pydantic_ai import Agent
from pydantic_ai.exceptions import UnexpectedModelBehavior
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    RetryFeedbackPart,
    RetryPromptPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel

import groundcheck
from groundcheck.agents import Evidence
from groundcheck.agents.pydantic_ai import evidence_validator


class Answer(BaseModel):
    root_cause: str
    evidence: list[Evidence]


class Script:
    """A model that calls `query_logs` once, then gives the answers in order; it keeps the
    feedback each retry sent it."""

    def __init__(self, *answers: dict[str, Any]) -> None:
        self.answers = list(answers)
        self.calls = 0
        self.feedback: list[str] = []

    def __call__(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        self.calls += 1
        last = messages[-1]
        assert isinstance(last, ModelRequest)
        for part in last.parts:
            retry = isinstance(part, (RetryFeedbackPart, RetryPromptPart)) or (
                isinstance(part, ToolReturnPart) and part.outcome == "retried"
            )
            if retry:
                self.feedback.append(str(part.content))
        if self.calls == 1:
            return ModelResponse(parts=[ToolCallPart("query_logs", {"service": "api"}, tool_call_id=CALL)])
        out = info.output_tools[0].name
        return ModelResponse(parts=[ToolCallPart(out, self.answers.pop(0), tool_call_id=f"out_{self.calls}")])


def agent(script: Script, **validator: Any) -> Agent[None, Answer]:
    a = Agent(FunctionModel(script), output_type=Answer)
    a.output_validator(evidence_validator(**validator))

    @a.tool_plain
    def query_logs(service: str) -> dict[str, Any]:
        """The service's recent log lines."""
        return LOGS

    return a


@pytest.mark.parametrize("kind", list(MISQUOTES))
def test_a_misquote_is_sent_back_once_and_the_corrected_answer_ends_the_run(kind: str) -> None:
    wrong, hint = MISQUOTES[kind]
    script = Script(answer(wrong), answer(CORRECT))
    result = agent(script).run_sync("why is api down?")
    assert result.output == Answer(root_cause=ROOT_CAUSE, evidence=[CORRECT])
    assert script.calls == 3 and len(script.feedback) == 1
    assert hint in script.feedback[0], script.feedback[0]


def test_a_supported_first_answer_passes_with_no_retry() -> None:
    script = Script(answer(CORRECT))
    result = agent(script).run_sync("why is api down?")
    assert result.output.evidence == [CORRECT]
    assert script.calls == 2 and script.feedback == []


def test_an_answer_citing_nothing_is_asked_for_its_evidence() -> None:
    script = Script(answer(), answer(CORRECT))
    result = agent(script).run_sync("why is api down?")
    assert result.output.evidence == [CORRECT]
    assert len(script.feedback) == 1 and "cites no evidence" in script.feedback[0]


def test_the_run_ends_with_pydantic_ais_error_once_the_retries_are_spent() -> None:
    wrong, _ = MISQUOTES["wrong_path"]
    script = Script(answer(wrong), answer(wrong))
    with pytest.raises(UnexpectedModelBehavior):
        agent(script).run_sync("why is api down?")
    assert script.calls == 3


def test_the_policy_and_an_evidence_function_are_used() -> None:
    # Exact matching refuses a quote that differs in case; the evidence sits under another name.
    class Cited(BaseModel):
        root_cause: str
        sources: list[Evidence]

    loose = {**CORRECT, "text": "oomkilled"}
    script = Script({"root_cause": ROOT_CAUSE, "sources": [loose]}, {"root_cause": ROOT_CAUSE, "sources": [CORRECT]})
    a = Agent(FunctionModel(script), output_type=Cited)
    a.output_validator(evidence_validator(groundcheck.Policy(match="exact"), evidence=lambda o: o.sources))
    a.tool_plain(lambda service: LOGS, name="query_logs")
    assert a.run_sync("why?").output.sources == [CORRECT]
    assert len(script.feedback) == 1 and "$.logs[1].message" in script.feedback[0]
