"""groundcheck.agents.langchain against the real LangChain v1 `create_agent`: a scripted fake
chat model calls a tool, misquotes its output, and the middleware jumps back to the model with
the feedback; no network."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from agents_scenario import CALL, CORRECT, LOGS, LOGS_TEXT, MISQUOTES, answer
from langchain.agents import create_agent
from langchain.agents.structured_output import ToolStrategy
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.tools import tool
from pydantic import BaseModel

import groundcheck
from groundcheck.agents import Evidence, EvidenceError
from groundcheck.agents.langchain import EvidenceMiddleware


class Script(GenericFakeChatModel):
    """The fake chat model, bound to tools (it calls them by its script, not by their schema)."""

    seen: list[list[BaseMessage]] = []

    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        return self

    def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> Any:
        self.seen.append(list(messages))
        return super()._generate(messages, *args, **kwargs)


def script(*answers: AIMessage) -> Script:
    first = AIMessage(content="", tool_calls=[{"name": "query_logs", "args": {"service": "api"}, "id": CALL}])
    return Script(messages=iter([first, *answers]), seen=[])


def said(evidence: dict[str, Any]) -> AIMessage:
    return AIMessage(content=json.dumps(evidence))


@tool
def query_logs(service: str) -> str:
    """The service's recent log lines."""
    return LOGS_TEXT


@tool("query_logs", response_format="content_and_artifact")
def query_logs_artifact(service: str) -> tuple[str, dict[str, Any]]:
    """The service's recent log lines: a summary for the model, the lines as the artifact."""
    return "2 log lines", LOGS


@tool
def query_metrics(service: str) -> str:
    """Another tool: with it alone, the script's call to `query_logs` fails."""
    return "{}"


def test_a_cited_call_that_failed_is_no_evidence() -> None:
    model = script(said(answer(CORRECT)))
    with pytest.raises(EvidenceError) as raised:
        run(model, EvidenceMiddleware(max_retries=0), tools=[query_metrics])
    assert "that call failed" in (raised.value.feedback or "")


def feedback(model: Script) -> list[str]:
    last = model.seen[-1]
    return [str(m.content) for m in last if isinstance(m, HumanMessage) and m.name == "groundcheck"]


def run(model: Script, middleware: EvidenceMiddleware, tools: list[Any] | None = None, **kw: Any) -> dict[str, Any]:
    agent = create_agent(model, tools=tools or [query_logs], middleware=[middleware], **kw)
    return agent.invoke({"messages": [{"role": "user", "content": "why is api down?"}]})


@pytest.mark.parametrize("kind", list(MISQUOTES))
def test_a_misquote_jumps_back_to_the_model_once_and_the_corrected_answer_ends_the_run(kind: str) -> None:
    wrong, hint = MISQUOTES[kind]
    model = script(said(answer(wrong)), said(answer(CORRECT)))
    out = run(model, EvidenceMiddleware())
    assert json.loads(out["messages"][-1].content) == answer(CORRECT)
    assert len(model.seen) == 3 and len(feedback(model)) == 1
    assert hint in feedback(model)[0], feedback(model)[0]


def test_a_supported_first_answer_passes_with_no_retry() -> None:
    model = script(said(answer(CORRECT)))
    out = run(model, EvidenceMiddleware())
    assert json.loads(out["messages"][-1].content) == answer(CORRECT)
    assert len(model.seen) == 2


def test_the_artifact_is_the_raw_output_when_the_tool_returns_one() -> None:
    wrong, hint = MISQUOTES["wrong_path"]
    model = script(said(answer(wrong)), said(answer(CORRECT)))
    out = run(model, EvidenceMiddleware(), tools=[query_logs_artifact])
    assert json.loads(out["messages"][-1].content) == answer(CORRECT)
    assert hint in feedback(model)[0]


def test_a_structured_response_is_the_answer_checked() -> None:
    class Answer(BaseModel):
        root_cause: str
        evidence: list[Evidence]

    def structured(evidence: dict[str, Any], n: int) -> AIMessage:
        return AIMessage(content="", tool_calls=[{"name": "Answer", "args": evidence, "id": f"out_{n}"}])

    wrong, hint = MISQUOTES["paraphrase"]
    model = script(structured(answer(wrong), 1), structured(answer(CORRECT), 2))
    out = run(model, EvidenceMiddleware(), response_format=ToolStrategy(Answer))
    assert out["structured_response"].evidence == [CORRECT]
    assert len(model.seen) == 3 and hint in feedback(model)[0]


def test_an_answer_citing_nothing_is_asked_for_evidence_and_stops_with_an_error_after_max_retries() -> None:
    model = script(AIMessage(content="api-7 ran out of memory"), said(answer(CORRECT)))
    out = run(model, EvidenceMiddleware())
    assert json.loads(out["messages"][-1].content) == answer(CORRECT)
    assert "cites no evidence" in feedback(model)[0]

    model = script(AIMessage(content="api-7 ran out of memory"), AIMessage(content="it ran out of memory"))
    with pytest.raises(EvidenceError) as raised:
        run(model, EvidenceMiddleware())
    assert raised.value.report is None and "cites no evidence" in (raised.value.feedback or "")
    assert len(model.seen) == 3


def test_max_retries_and_the_policy_are_used_and_ainvoke_checks_too() -> None:
    wrong, _ = MISQUOTES["wrong_path"]
    model = script(said(answer(wrong)))
    with pytest.raises(EvidenceError) as raised:
        run(model, EvidenceMiddleware(max_retries=0))
    assert raised.value.report is not None and raised.value.report.runs[0].summary.unsupported == 1

    loose = {**CORRECT, "text": "oomkilled"}
    model = script(said(answer(loose)), said(answer(CORRECT)))
    agent = create_agent(model, tools=[query_logs], middleware=[EvidenceMiddleware(groundcheck.Policy(match="exact"))])
    out = asyncio.run(agent.ainvoke({"messages": [{"role": "user", "content": "why?"}]}))
    assert json.loads(out["messages"][-1].content) == answer(CORRECT)
    assert len(model.seen) == 3
