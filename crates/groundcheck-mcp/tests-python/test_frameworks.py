"""`groundcheck mcp` inside the agent frameworks, as an agent built with them uses it: each
framework starts the real binary over stdio with its own MCP client, converts the tools in its
strict mode, and a scripted model (no network) makes the calls a strict-mode model makes — every
property present, ``null`` for the alternatives it does not use (``retrieval_details`` when it
gives ``evidence_refs``). What the framework hands the model back must be the verdict
``groundcheck verify --format json`` gives for the same invocation, plus the ``advice``
paragraph; for a ref with an invalid path, the parser's error is in the structured ref.

- pydantic-ai: ``MCPToolset`` over fastmcp's ``StdioTransport``, its tools prepared with
  ``strict=True`` (pydantic-ai infers non-strict for a schema whose ``required`` does not list
  every property), and a ``FunctionModel`` whose profile has OpenAI's schema transformer, so the
  tool definitions the model receives are the ones an OpenAI model would be sent.
- OpenAI Agents SDK: ``MCPServerStdio`` with ``use_structured_content=True`` and
  ``mcp_config={"convert_schemas_to_strict": True}``; the SDK falls back to a non-strict tool
  when conversion fails, so every tool must come back ``strict_json_schema is True``.

LangChain is not here: ``langchain-mcp-adapters`` (0.3) needs ``mcp`` 1.x, and the suites'
``mcp`` is 2.x (pydantic-ai's MCP client needs it).

The binary is ``GROUNDCHECK_BIN`` (``scripts/test.sh`` sets it), else ``target/debug/groundcheck``."""

from __future__ import annotations

import copy
import json
import os
import re
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import anyio
import pytest
from agents import Agent, ModelSettings, RunContextWrapper, Runner, set_tracing_disabled
from agents.items import ModelResponse as AgentsResponse
from agents.mcp import MCPServerStdio
from agents.models.interface import Model
from agents.tool import FunctionTool
from agents.usage import Usage
from fastmcp.client.transports import StdioTransport
from openai.types.responses import ResponseFunctionToolCall, ResponseOutputMessage, ResponseOutputText
from pydantic_ai import Agent as PydanticAgent
from pydantic_ai import RunContext
from pydantic_ai.mcp import MCPToolset
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.profiles.openai import OpenAIJsonSchemaTransformer
from pydantic_ai.tools import ToolDefinition

from test_mcp import BIN, ROOT, cli, validate

set_tracing_disabled(True)

TOOLS = {"verify_evidence", "resolve_path"}
OUTPUT = json.dumps(
    {"logs": [{"message": "connection refused"}, {"message": "pod api-7 OOMKilled: memory limit 512Mi exceeded"}]}
)
# One call per case, by id: a supported quote, a quote found at another path, an invalid path.
REFS = {
    1: {"raw_path": "$.logs[1].message", "text": "OOMKilled"},
    2: {"raw_path": "$.logs[0].message", "text": "OOMKilled"},
    3: {"raw_path": "$.logs[?@.message ==", "text": "OOMKilled"},
}
NO_POLICY = {"require": None, "match": None, "min_score": None}


def cli_verdicts(tmp_path: Path) -> dict[int, dict[str, Any]]:
    """`groundcheck verify --format json` on the three invocations, each verdict by id."""
    invocations = [
        {
            "id": i,
            "tool_name": "query_logs",
            "raw_output_text": OUTPUT,
            "retrieval_details": {"evidence_status": "supported", "evidence_refs": [ref]},
        }
        for i, ref in REFS.items()
    ]
    bundle = tmp_path / "bundle.json"
    bundle.write_text(json.dumps({"run_id": "frameworks", "invocations": invocations}))
    report = json.loads(cli("verify", "--format", "json", str(bundle)))
    return {v["id"]: v for run in report["runs"] for v in run["invocations"]}


def strict_arguments(i: int, strict: dict[str, Any]) -> dict[str, Any]:
    """verify_evidence's arguments for call `i` as a strict model sends them, checked against the
    strict schema the framework gave the model: every property, null for the unused ones."""
    args: dict[str, Any] = {name: None for name in strict["properties"]}
    args.update(
        id=i,
        tool_name="query_logs",
        raw_output_text=OUTPUT,
        evidence_refs=[REFS[i]],
        evidence_status="supported",
        policy=NO_POLICY,
    )
    assert args["retrieval_details"] is None and args.get("raw_output") is None
    validate(args, strict)
    return args


def assert_openai_strict(schema: Any, where: str = "$") -> None:
    """What OpenAI's API asks of a strict schema, beyond what a framework's converter checks
    (openai-agents passes an array with untyped items): every value typed, or an anyOf of typed
    ones; every object closed with every property required; every array's items typed."""
    assert "type" in schema or "anyOf" in schema, (where, schema)
    if schema.get("type") == "object":
        assert schema.get("additionalProperties") is False, where
        assert sorted(schema.get("required", [])) == sorted(schema.get("properties", {})), where
    if schema.get("type") == "array":
        assert isinstance(schema.get("items"), dict), where
        assert_openai_strict(schema["items"], f"{where}[]")
    for name, sub in schema.get("properties", {}).items():
        assert_openai_strict(sub, f"{where}.{name}")
    for i, sub in enumerate(schema.get("anyOf", [])):
        assert_openai_strict(sub, f"{where}|{i}")


def assert_cli_verdicts(returned: dict[int, Any], expected: dict[int, dict[str, Any]]) -> None:
    """What the framework handed the model equals the CLI's verdict plus the advice, and the
    failed refs say where the quote is and why the path was refused."""
    assert sorted(returned) == sorted(REFS), returned
    advice = {}
    for i, result in returned.items():
        assert isinstance(result, dict), (i, result)
        verdict = dict(result)
        advice[i] = verdict.pop("advice")
        assert isinstance(advice[i], str) and advice[i].strip(), (i, result)
        assert verdict == expected[i], i
    assert [returned[i]["status"] for i in REFS] == ["supported", "unsupported", "unsupported"]
    moved = returned[2]["refs"][0]
    assert moved["outcome"] == "text_not_found" and moved["elsewhere"] == "$['logs'][1]['message']", moved
    assert moved["elsewhere"] in advice[2] and "cite that path instead" in advice[2], advice[2]
    invalid = returned[3]["refs"][0]
    assert invalid["outcome"] == "invalid_path", invalid
    error = invalid["path_error"]
    assert error["message"] and error["line"] == 1 and error["column"] >= 1, error
    assert error["message"] in advice[3], advice[3]


# --------------------------------------------------------------------------------------------
# pydantic-ai
# --------------------------------------------------------------------------------------------


async def strict_tools(ctx: RunContext[None], tool_defs: list[ToolDefinition]) -> list[ToolDefinition]:
    """Ask for strict mode on every MCP tool, as an agent driving an OpenAI model in strict mode does."""
    return [replace(d, strict=True) for d in tool_defs]


def test_pydantic_ai_mcp_toolset_in_strict_mode_gets_the_cli_verdicts(tmp_path: Path) -> None:
    expected = cli_verdicts(tmp_path)
    sent: dict[str, ToolDefinition] = {}
    returned: dict[int, Any] = {}

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        returns = [p for m in messages for p in m.parts if isinstance(p, ToolReturnPart)]
        if not returns:
            sent.update({t.name: t for t in info.function_tools})
            strict = sent["verify_evidence"].parameters_json_schema
            calls = [ToolCallPart("verify_evidence", strict_arguments(i, strict), tool_call_id=f"call_{i}") for i in REFS]
            return ModelResponse(parts=calls)
        returned.update({int(p.tool_call_id.removeprefix("call_")): p.content for p in returns})
        return ModelResponse(parts=[TextPart("checked")])

    toolset = MCPToolset(StdioTransport(BIN, ["mcp"], keep_alive=False)).prepared(strict_tools)
    openai_like = FunctionModel(model, profile={"json_schema_transformer": OpenAIJsonSchemaTransformer})
    agent = PydanticAgent(openai_like, toolsets=[toolset])

    async def main() -> list[Any]:
        async with agent:
            listed = await toolset.wrapped.list_tools()  # type: ignore[attr-defined]
            assert (await agent.run("check the evidence")).output == "checked"
        return listed

    listed = anyio.run(main)
    assert {t.name for t in listed} == TOOLS
    for tool in listed:
        # The conversion itself: the transformer refuses (UserError) a schema strict mode cannot take.
        transformer = OpenAIJsonSchemaTransformer(copy.deepcopy(tool.input_schema), strict=True)
        walked = transformer.walk()
        assert transformer.is_strict_compatible, tool.name
        # ...and the model was sent exactly that, marked strict.
        assert sent[tool.name].strict is True, tool.name
        assert sent[tool.name].parameters_json_schema == walked, tool.name
        assert_openai_strict(walked)
    assert_cli_verdicts(returned, expected)


# --------------------------------------------------------------------------------------------
# OpenAI Agents SDK
# --------------------------------------------------------------------------------------------


class StrictScript(Model):
    """A model that calls verify_evidence once per case in one turn, as a strict model (its
    arguments valid against the strict schema it was given), then answers; it keeps the tools
    it was sent and the outputs it read back."""

    def __init__(self) -> None:
        self.tools: dict[str, FunctionTool] = {}
        self.outputs: dict[int, Any] = {}

    async def get_response(self, system_instructions: Any, input: Any, model_settings: Any, tools: Any,
                           *args: Any, **kwargs: Any) -> AgentsResponse:
        items = input if isinstance(input, list) else []
        outputs = [i for i in items if isinstance(i, dict) and i.get("type") == "function_call_output"]
        if not outputs:
            self.tools = {t.name: t for t in tools if isinstance(t, FunctionTool)}
            strict = self.tools["verify_evidence"].params_json_schema
            calls = [
                ResponseFunctionToolCall(
                    arguments=json.dumps(strict_arguments(i, strict)), call_id=f"call_{i}", name="verify_evidence",
                    type="function_call", id=f"fc_{i}", status="completed",
                )
                for i in REFS
            ]
            return AgentsResponse(output=list(calls), usage=Usage(), response_id=None)
        self.outputs = {int(o["call_id"].removeprefix("call_")): json.loads(o["output"]) for o in outputs}
        text = ResponseOutputText(text="checked", type="output_text", annotations=[])
        message = ResponseOutputMessage(id="msg_1", content=[text], role="assistant", status="completed", type="message")
        return AgentsResponse(output=[message], usage=Usage(), response_id=None)

    def stream_response(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError


def test_openai_agents_mcp_server_in_strict_mode_gets_the_cli_verdicts(tmp_path: Path) -> None:
    expected = cli_verdicts(tmp_path)
    script = StrictScript()

    async def main() -> list[Any]:
        params = {"command": BIN, "args": ["mcp"]}
        async with MCPServerStdio(params=params, name="groundcheck", use_structured_content=True) as server:
            agent: Agent[None] = Agent(
                name="verifier",
                model=script,
                model_settings=ModelSettings(),
                mcp_servers=[server],
                mcp_config={"convert_schemas_to_strict": True},
            )
            tools = await agent.get_all_tools(RunContextWrapper(context=None))
            assert (await Runner.run(agent, "check the evidence")).final_output == "checked"
        return tools

    tools = anyio.run(main)
    assert {t.name for t in tools} == TOOLS
    for tool in tools:
        assert isinstance(tool, FunctionTool)
        # False when the SDK could not convert the schema (it logs and falls back silently).
        assert tool.strict_json_schema is True, tool.name
        assert script.tools[tool.name].strict_json_schema is True, tool.name
        assert_openai_strict(script.tools[tool.name].params_json_schema)
    assert_cli_verdicts(script.outputs, expected)


# --------------------------------------------------------------------------------------------
# docs/agents.md's section runs as written
# --------------------------------------------------------------------------------------------


@pytest.mark.slow
def test_the_docs_strict_mcp_examples_run(tmp_path: Path) -> None:
    page = (ROOT / "docs" / "agents.md").read_text()
    section = page.split("## Connecting over MCP in strict mode", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"^```python\n(.*?)^```$", section, flags=re.S | re.M)
    assert len(blocks) == 2 and "MCPToolset" in blocks[0] and "MCPServerStdio" in blocks[1], len(blocks)
    for index, block in enumerate(blocks):
        example = tmp_path / f"example_{index}.py"
        example.write_text(block)
        env = {**os.environ, "GROUNDCHECK_BIN": BIN}
        done = subprocess.run([sys.executable, str(example)], capture_output=True, text=True, cwd=tmp_path, env=env)
        assert done.returncode == 0, done.stdout + done.stderr
