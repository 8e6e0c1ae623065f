"""`groundcheck mcp` under the strict function-calling modes models are driven with, checked
with the real libraries: openai-agents' conversion of an MCP server's tools
(``MCPServerStdio`` + ``MCPUtil.to_function_tool(..., convert_schemas_to_strict=True)``, which
falls back to a non-strict tool when the conversion fails), pydantic-ai's strict transformer
(``OpenAIJsonSchemaTransformer(schema, strict=True)``) and Gemini's OpenAPI subset
(pydantic-ai's ``GoogleOpenAPISchemaTransformer``, then google-genai's own ``types.Schema``, which
refuses what the subset lacks). Then each tool is called as a strict model calls it — every
property present, ``null`` for those it does not use — and gets the verdict
``groundcheck verify --format json`` gives for the same input. The advice for the model and an
invalid path's error are in ``structuredContent`` and valid against the declared
``outputSchema``.

The binary is ``GROUNDCHECK_BIN`` (``scripts/test.sh`` sets it), else ``target/debug/groundcheck``."""

from __future__ import annotations

import copy
import json
import logging
from pathlib import Path
from typing import Any

import anyio
import jsonschema
import pytest
from agents.mcp import MCPServerStdio, MCPUtil
from google.genai import types as genai_types
from mcp import types
from pydantic_ai.profiles.google import GoogleJsonSchemaTransformer, GoogleOpenAPISchemaTransformer
from pydantic_ai.profiles.openai import OpenAIJsonSchemaTransformer

from test_mcp import BIN, FIXTURES, call, cli, exact, load_exact, plain, schemas, session, validate

TOOLS = {"verify_evidence", "resolve_path", "verify_run"}


async def listed(*args: str) -> list[types.Tool]:
    async with session(*args) as s:
        return (await s.list_tools()).tools


def all_tools(tmp_path: Path) -> list[types.Tool]:
    """Every tool, verify_run included (it needs a database: an empty SQLite file)."""
    db = tmp_path / "empty.db"
    cli("import", "--database", f"sqlite://{db}", str(FIXTURES[0]), cwd=tmp_path)
    tools = anyio.run(listed, "--database", f"sqlite://{db}")
    assert {t.name for t in tools} == TOOLS
    return tools


def subschemas(schema: Any, where: str = "$") -> list[tuple[str, dict[str, Any]]]:
    """Every schema a value is checked against: properties, items and anyOf branches."""
    found = [(where, schema)]
    for name, sub in schema.get("properties", {}).items():
        found += subschemas(sub, f"{where}.{name}")
    if isinstance(schema.get("items"), dict):
        found += subschemas(schema["items"], f"{where}[]")
    for i, sub in enumerate(schema.get("anyOf", [])):
        found += subschemas(sub, f"{where}|{i}")
    return found


def openai_agents_strict(tool: types.Tool) -> dict[str, Any]:
    """The parameters openai-agents sends for an MCP tool with convert_schemas_to_strict=True;
    fails when the SDK had to fall back to the non-strict schema."""
    server = MCPServerStdio(params={"command": BIN, "args": ["mcp"]}, name="groundcheck")
    function_tool = MCPUtil.to_function_tool(tool, server, convert_schemas_to_strict=True)
    assert function_tool.strict_json_schema, f"{tool.name}: openai-agents could not make the schema strict"
    return function_tool.params_json_schema


def pydantic_ai_strict(tool: types.Tool) -> dict[str, Any]:
    """pydantic-ai's OpenAI strict transformer, which refuses an array whose items have no type."""
    return OpenAIJsonSchemaTransformer(copy.deepcopy(tool.input_schema), strict=True).walk()


def test_every_tool_converts_in_every_strict_mode(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    for tool in all_tools(tmp_path):
        # What OpenAI's API itself asks of a strict schema: every value's schema typed (or an
        # anyOf of typed ones), one type each, every object closed with every property required.
        for converted in (openai_agents_strict(tool), pydantic_ai_strict(tool)):
            jsonschema.Draft202012Validator.check_schema(converted)
            for where, sub in subschemas(converted):
                assert "type" in sub or "anyOf" in sub, (tool.name, where, sub)
                assert not isinstance(sub.get("type"), list), (tool.name, where, sub)
                if sub.get("type") == "object":
                    assert sub.get("additionalProperties") is False, (tool.name, where)
                    assert sorted(sub.get("required", [])) == sorted(sub.get("properties", {})), (tool.name, where)
                if sub.get("type") == "array":
                    assert "type" in sub["items"] or "anyOf" in sub["items"], (tool.name, where)
        # The schema as listed: the same rules, but for required, which lists what the server requires.
        for where, sub in subschemas(tool.input_schema):
            assert "type" in sub or "anyOf" in sub, (tool.name, where, sub)
            assert not isinstance(sub.get("type"), list), (tool.name, where, sub)
        # Gemini: the OpenAPI subset, as google-genai's own Schema model reads it.
        genai_types.Schema.model_validate(GoogleOpenAPISchemaTransformer(copy.deepcopy(tool.input_schema)).walk())
        genai_types.Schema.model_validate(GoogleJsonSchemaTransformer(copy.deepcopy(tool.input_schema)).walk())
    assert "Error converting MCP schema to strict mode" not in caplog.text


# --------------------------------------------------------------------------------------------
# Calls as a strict model makes them
# --------------------------------------------------------------------------------------------


def strict_arguments(invocation: dict[str, Any], strict: dict[str, Any]) -> dict[str, Any]:
    """verify_evidence's arguments for a bundle's invocation as a strict model sends them: every
    property, null for the unused ones; the output as raw_output_text; the refs as evidence_refs
    when the strict schema takes them as written, else the column's JSON text."""
    args: dict[str, Any] = {name: None for name in strict["properties"]}
    args["policy"] = {"require": None, "match": None, "min_score": None}
    for column in ("id", "tool_name", "success", "error_message", "output_preview", "output_length", "is_truncated"):
        if column in invocation:
            args[column] = plain(invocation[column])
    if invocation.get("raw_output") is not None:
        # A bundle's raw_output null is no raw output, as a column that is NULL.
        args["raw_output_text"] = exact(invocation["raw_output"])
    if "raw_output_text" in invocation:
        args["raw_output_text"] = invocation["raw_output_text"]
    details = invocation.get("retrieval_details")
    if isinstance(details, dict) and set(details) <= {"evidence_status", "evidence_refs"}:
        refs = {**args, "evidence_refs": plain(details.get("evidence_refs")), "evidence_status": plain(details.get("evidence_status"))}
        if refs["evidence_refs"] is not None and jsonschema.Draft202012Validator(strict).is_valid(refs):
            return refs
    if details is not None:
        args["retrieval_details"] = details if isinstance(details, str) else exact(details)
    return args


@pytest.mark.slow
def test_strict_calls_get_the_cli_verdicts(tmp_path: Path) -> None:
    tools = {t.name: t for t in all_tools(tmp_path)}
    agents_schema = openai_agents_strict(tools["verify_evidence"])
    pydantic_schema = pydantic_ai_strict(tools["verify_evidence"])
    forms: dict[str, int] = {"evidence_refs": 0, "retrieval_details": 0, "neither": 0}

    async def main() -> int:
        checked = 0
        async with session() as s:
            out = await schemas(s)
            for fixture in FIXTURES:
                report = json.loads(cli("verify", "--format", "json", str(fixture)))
                expected = {v["id"]: v for run in report["runs"] for v in run["invocations"]}
                for invocation in load_exact(fixture.read_text())["invocations"]:
                    args = strict_arguments(invocation, agents_schema)
                    # What a model constrained by either library's strict schema may send.
                    validate(args, agents_schema)
                    validate(args, pydantic_schema)
                    form = "evidence_refs" if args["evidence_refs"] is not None else "retrieval_details"
                    forms[form if args[form] is not None else "neither"] += 1
                    result = await call(s, "verify_evidence", args, out)
                    key = plain(invocation["id"])
                    assert result.structured_content == expected[key], f"{fixture.name} id {key}"
                    checked += 1
        return checked

    assert anyio.run(main) >= 150
    assert min(forms.values()) > 0, forms


def test_a_strict_policy_and_resolve_path_as_the_cli_gives_them(tmp_path: Path) -> None:
    fixture = ROOT_FIXTURE
    report = json.loads(cli("verify", "--format", "json", "--require", "any", "--match", "fuzzy", "--min-score", "0.8", str(fixture)))
    expected = {v["id"]: v for run in report["runs"] for v in run["invocations"]}
    tools = {t.name: t for t in all_tools(tmp_path)}
    strict = openai_agents_strict(tools["verify_evidence"])
    resolve_strict = openai_agents_strict(tools["resolve_path"])
    text = fixture.read_text()
    path = "$.invocations[*].tool_name"
    resolved = {"nodes": json.loads(cli("resolve", "--path", path, str(fixture)))}

    async def main() -> None:
        async with session() as s:
            out = await schemas(s)
            for invocation in load_exact(text)["invocations"]:
                args = strict_arguments(invocation, strict)
                args["policy"] = {"require": "any", "match": "fuzzy", "min_score": 0.8}
                validate(args, strict)
                result = await call(s, "verify_evidence", args, out)
                assert result.structured_content == expected[plain(invocation["id"])]
            args = {"document_text": text, "path": path}
            validate(args, resolve_strict)
            assert (await call(s, "resolve_path", args, out)).structured_content == resolved

    anyio.run(main)


ROOT_FIXTURE = next(f for f in FIXTURES if f.name.startswith("16_"))


# --------------------------------------------------------------------------------------------
# What the model reads: the advice and the path's error, in the structured content
# --------------------------------------------------------------------------------------------


def test_the_advice_and_an_invalid_path_s_error_are_structured(tmp_path: Path) -> None:
    output = '{"logs": [{"message": "connection refused"}, {"message": "pool exhausted"}]}'
    refs = [
        {"raw_path": "$.logs[1].message", "text": "connection refused"},
        {"raw_path": "$.logs[?@.message ==", "text": "pool exhausted"},
        {"rawPath": "$.logs[0].message", "text": "connection refused"},
    ]
    bundle = tmp_path / "b.json"
    details = {"evidence_status": "supported", "evidence_refs": refs}
    invocation = {"id": 7, "tool_name": "query_logs", "raw_output_text": output, "retrieval_details": details}
    bundle.write_text(json.dumps({"run_id": "r", "invocations": [invocation]}))
    expected = json.loads(cli("verify", "--format", "json", str(bundle)))["runs"][0]["invocations"][0]

    async def main() -> None:
        async with session() as s:
            out = await schemas(s)
            args = {"id": 7, "tool_name": "query_logs", "raw_output_text": output, "evidence_refs": refs,
                    "evidence_status": "supported"}
            result = await s.call_tool("verify_evidence", args)
            verdict = result.structured_content
            assert verdict is not None and not result.is_error
            validate(verdict, out["verify_evidence"])
            advice = verdict.pop("advice")
            assert advice == result.content[0].text  # type: ignore[union-attr]
            assert "cite that path instead" in advice and "$['logs'][0]['message']" in advice, advice
            assert verdict == expected
            moved, invalid, malformed = verdict["refs"]
            assert moved["elsewhere"] == "$['logs'][0]['message']"
            assert invalid["outcome"] == "invalid_path"
            error = invalid["path_error"]
            assert error["message"] and error["line"] == 1 and error["column"] >= 1, error
            assert malformed["outcome"] == "malformed_ref" and "raw_path" in malformed["malformed"], malformed

    anyio.run(main)


def test_a_strict_verify_run_call_gets_the_run_command_s_report(tmp_path: Path) -> None:
    db = tmp_path / "gc.db"
    url = f"sqlite://{db}"
    fixture = next(f for f in FIXTURES if f.name.startswith("14_"))
    cli("import", "--database", url, str(fixture), cwd=tmp_path)
    report = json.loads(cli("verify", "--format", "json", str(fixture)))
    keys = [("run_id", r["run_id"]) if r["run_id"] else ("session_id", r["session_id"]) for r in report["runs"]]
    assert {name for name, _ in keys} == {"run_id", "session_id"}, keys

    async def main() -> None:
        async with session("--database", url) as s:
            tool = next(t for t in (await s.list_tools()).tools if t.name == "verify_run")
            strict = openai_agents_strict(tool)
            out = await schemas(s)
            for name, value in keys:
                flag = [] if name == "run_id" else ["--session"]
                expected = json.loads(cli("run", "--database", url, "--format", "json", *flag, value, cwd=tmp_path))
                args = {"run_id": None, "session_id": None, "policy": {"require": None, "match": None, "min_score": None}}
                args[name] = value
                validate(args, strict)
                assert (await call(s, "verify_run", args, out)).structured_content == expected, value

    anyio.run(main)
