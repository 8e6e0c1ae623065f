"""What groundcheck.agents adds to an agent run, beside what the framework itself costs.

    target/python-venv/bin/python benches/python/agents_overhead.py

Prints, per framework, the time of one scripted run (one tool call, one answer citing it: two
model steps) without and with the gatekeeper, and the time of the shared check alone per cited
call, for an answer that passes and for one that fails (the feedback written). The models are
scripted, so the run's time is the framework's own overhead, not a model's."""

from __future__ import annotations

import asyncio
import json
import statistics
import time
from collections.abc import Callable
from typing import Any

from groundcheck.agents import ToolOutput, check_evidence

LOGS = {"logs": [{"level": "info", "message": "dial tcp 10.0.0.7:5432: connection refused"},
                 {"level": "error", "message": "pod api-7 OOMKilled: memory limit 512Mi exceeded"}]}
GOOD = {"tool_call_id": "call_1", "raw_path": "$.logs[1].message", "text": "OOMKilled"}
BAD = {"tool_call_id": "call_1", "raw_path": "$.logs[0].message", "text": "OOMKilled"}


def per_call(f: Callable[[], Any], n: int) -> float:
    """The median of five rounds of n calls, in microseconds per call."""
    f()
    rounds = []
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(n):
            f()
        rounds.append((time.perf_counter() - start) / n * 1e6)
    return statistics.median(rounds)


def pair(plain: Callable[[], Any], gated: Callable[[], Any], n: int) -> tuple[float, float]:
    """The medians of nine alternating rounds of n runs each, in microseconds per run: the two
    sides share the machine's load as it changes."""
    plain(), gated()
    times: tuple[list[float], list[float]] = ([], [])
    for _ in range(9):
        for f, out in ((plain, times[0]), (gated, times[1])):
            start = time.perf_counter()
            for _ in range(n):
                f()
            out.append((time.perf_counter() - start) / n * 1e6)
    return statistics.median(times[0]), statistics.median(times[1])


def check_alone() -> None:
    for cited in (1, 10, 100):
        outputs = {f"call_{i}": ToolOutput("query_logs", LOGS) for i in range(cited)}
        good = {"evidence": [{**GOOD, "tool_call_id": f"call_{i}"} for i in range(cited)]}
        bad = {"evidence": [{**BAD, "tool_call_id": f"call_{i}"} for i in range(cited)]}
        assert check_evidence(good, outputs).passed and not check_evidence(bad, outputs).passed
        n = max(20, 2000 // cited)
        print(f"check_evidence, {cited:>3} cited calls: passes {per_call(lambda: check_evidence(good, outputs), n) / cited:8.1f} µs"
              f" a call, fails (feedback) {per_call(lambda: check_evidence(bad, outputs), n) / cited:8.1f} µs a call")


def pydantic_ai() -> tuple[float, float]:
    from pydantic import BaseModel
    from pydantic_ai import Agent
    from pydantic_ai.messages import ModelResponse, ToolCallPart
    from pydantic_ai.models.function import FunctionModel

    from groundcheck.agents import Evidence
    from groundcheck.agents.pydantic_ai import evidence_validator

    class Answer(BaseModel):
        root_cause: str
        evidence: list[Evidence]

    def model(messages: Any, info: Any) -> ModelResponse:
        if len(messages) == 1:
            return ModelResponse(parts=[ToolCallPart("query_logs", {}, tool_call_id="call_1")])
        return ModelResponse(parts=[ToolCallPart(info.output_tools[0].name, {"root_cause": "oom", "evidence": [GOOD]})])

    def agent(gated: bool) -> Any:
        a = Agent(FunctionModel(model), output_type=Answer)
        if gated:
            a.output_validator(evidence_validator())
        a.tool_plain(lambda: LOGS, name="query_logs")
        return a

    plain, gated = agent(False), agent(True)
    return pair(lambda: plain.run_sync("why?"), lambda: gated.run_sync("why?"), 30)


def openai_agents() -> tuple[float, float]:
    from agents import Agent, Runner, function_tool, set_tracing_disabled
    from agents.items import ModelResponse
    from agents.models.interface import Model
    from agents.usage import Usage
    from openai.types.responses import ResponseFunctionToolCall, ResponseOutputMessage, ResponseOutputText
    from pydantic import BaseModel

    from groundcheck.agents import Evidence
    from groundcheck.agents.openai_agents import EvidenceHooks, evidence_guardrail

    set_tracing_disabled(True)

    class Answer(BaseModel):
        root_cause: str
        evidence: list[Evidence]

    class Scripted(Model):
        async def get_response(self, system_instructions: Any, input: Any, *a: Any, **k: Any) -> ModelResponse:
            if not any(isinstance(i, dict) and i.get("type") == "function_call_output" for i in input):
                call = ResponseFunctionToolCall(arguments="{}", call_id="call_1", name="query_logs", type="function_call")
                return ModelResponse(output=[call], usage=Usage(), response_id=None)
            text = ResponseOutputText(text=json.dumps({"root_cause": "oom", "evidence": [GOOD]}), type="output_text",
                                      annotations=[])
            message = ResponseOutputMessage(id="m", content=[text], role="assistant", status="completed", type="message")
            return ModelResponse(output=[message], usage=Usage(), response_id=None)

        def stream_response(self, *a: Any, **k: Any) -> Any:
            raise NotImplementedError

    @function_tool
    def query_logs() -> dict[str, Any]:
        """Logs."""
        return LOGS

    hooks = EvidenceHooks()
    plain = Agent(name="p", model=Scripted(), tools=[query_logs], output_type=Answer)
    gated = Agent(name="g", model=Scripted(), tools=[query_logs], output_type=Answer,
                  output_guardrails=[evidence_guardrail(hooks)])
    loop = asyncio.new_event_loop()

    def run(a: Any, h: Any) -> Any:
        return loop.run_until_complete(Runner.run(a, "why?", hooks=h))

    return pair(lambda: run(plain, None), lambda: run(gated, hooks), 30)


def langchain() -> tuple[float, float]:
    from langchain.agents import create_agent
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage
    from langchain_core.tools import tool

    from groundcheck.agents.langchain import EvidenceMiddleware

    class Scripted(GenericFakeChatModel):
        def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
            return self

    def script() -> Any:
        while True:
            yield AIMessage(content="", tool_calls=[{"name": "query_logs", "args": {}, "id": "call_1"}])
            yield AIMessage(content=json.dumps({"root_cause": "oom", "evidence": [GOOD]}))

    @tool
    def query_logs() -> str:
        """Logs."""
        return json.dumps(LOGS)

    plain = create_agent(Scripted(messages=script()), tools=[query_logs])
    gated = create_agent(Scripted(messages=script()), tools=[query_logs], middleware=[EvidenceMiddleware()])
    state = {"messages": [{"role": "user", "content": "why?"}]}
    return pair(lambda: plain.invoke(state), lambda: gated.invoke(state), 30)


if __name__ == "__main__":
    check_alone()
    for name, bench in (("pydantic-ai", pydantic_ai), ("openai-agents", openai_agents), ("langchain", langchain)):
        plain, gated = bench()
        print(f"{name:>13}: a scripted run (2 model steps, 1 tool call) {plain:8.0f} µs, with the gatekeeper "
              f"{gated:8.0f} µs (+{gated - plain:.0f} µs)")
