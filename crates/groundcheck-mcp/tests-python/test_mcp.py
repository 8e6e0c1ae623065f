"""`groundcheck mcp` driven by a client no one here wrote: the official MCP Python SDK
(``mcp``: ``stdio_client`` + ``ClientSession``) starts the built binary and lists and calls
every tool. Each ``structuredContent`` is validated against the tool's declared
``outputSchema`` with ``jsonschema``, verdicts are compared with ``groundcheck verify --format
json`` for every invocation of every shipped fixture, ``verify_run`` with ``groundcheck run``,
and hostile arguments and raw malformed bytes must leave the server answering.

The binary is ``GROUNDCHECK_BIN`` (``scripts/test.sh`` sets it), else ``target/debug/groundcheck``."""

from __future__ import annotations

import contextlib
import copy
import hashlib
import json
import os
import select
import sqlite3
import subprocess
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import jsonschema
import pytest
from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError

ROOT = Path(__file__).resolve().parents[3]
FIXTURES = sorted((ROOT / "fixtures").glob("*.json"))
BIN = os.environ.get("GROUNDCHECK_BIN", str(ROOT / "target" / "debug" / "groundcheck"))
TOOLS = {"verify_evidence", "resolve_path"}


def cli(*args: str, cwd: Path | None = None, input: str | None = None) -> str:
    done = subprocess.run([BIN, *args], capture_output=True, text=True, cwd=cwd, input=input)
    assert done.returncode in (0, 1), done.stderr
    return done.stdout


@contextlib.asynccontextmanager
async def session(*args: str) -> AsyncIterator[ClientSession]:
    params = StdioServerParameters(command=BIN, args=["mcp", *args])
    with open(os.devnull, "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as s:
                result = await s.initialize()
                assert result.server_info.name == "groundcheck"
                yield s


async def schemas(s: ClientSession) -> dict[str, dict[str, Any]]:
    return {t.name: t.output_schema for t in (await s.list_tools()).tools if t.output_schema is not None}


# A schema's own check (the metaschema's), made once for each schema text: `jsonschema.validate`
# makes it on every call, and for a tool's schemas that is nearly all of the suite's time.
_VALIDATORS: dict[str, Any] = {}


def validate(instance: Any, schema: dict[str, Any]) -> None:
    """``jsonschema.validate(instance, schema)``: the schema is checked against its metaschema
    (once for each schema text, the checked validator kept), then the instance against it, the
    best match of its errors raised."""
    key = json.dumps(schema, sort_keys=True)
    validator = _VALIDATORS.get(key)
    if validator is None:
        cls = jsonschema.validators.validator_for(schema)
        cls.check_schema(schema)
        validator = _VALIDATORS[key] = cls(copy.deepcopy(schema))
    error = jsonschema.exceptions.best_match(validator.iter_errors(instance))
    if error is not None:
        raise error


ADVISED = {"verify_evidence", "verify_run"}


async def call(s: ClientSession, name: str, arguments: dict[str, Any], out: dict[str, Any]) -> types.CallToolResult:
    """A successful call whose structured content validates against the tool's outputSchema.
    A verdict's or a report's ``advice`` (the paragraph for the model, which frameworks that
    hand the model ``structuredContent`` alone would otherwise lose) must equal the text block;
    it is then taken out, so that what remains compares with the CLI's report."""
    result = await s.call_tool(name, arguments)
    assert isinstance(result, types.CallToolResult)
    text = result.content[0].text if result.content and isinstance(result.content[0], types.TextContent) else ""
    assert not result.is_error, text
    assert text.strip(), "a text block for the model"
    validate(result.structured_content, out[name])
    if name in ADVISED:
        assert result.structured_content is not None
        assert result.structured_content.pop("advice") == text
    return result


async def call_error(s: ClientSession, name: str, arguments: dict[str, Any]) -> str:
    """A call that must be a tool result with isError and one message; the message."""
    result = await s.call_tool(name, arguments)
    assert isinstance(result, types.CallToolResult)
    assert result.is_error, result
    assert len(result.content) == 1 and isinstance(result.content[0], types.TextContent)
    message = result.content[0].text
    assert "\n" not in message and 10 < len(message) < 1000, message
    return message


# --------------------------------------------------------------------------------------------
# Exact JSON: numbers keep their text (the engine matches numbers as written)
# --------------------------------------------------------------------------------------------


class Raw(str):
    """A JSON number's text as written."""


def load_exact(text: str) -> Any:
    return json.loads(text, parse_float=Raw, parse_int=Raw)


def plain(value: Any) -> Any:
    if isinstance(value, Raw):
        return json.loads(value)
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    return value


def exact(value: Any) -> str:
    if isinstance(value, Raw):
        return str(value)
    if isinstance(value, list):
        return "[" + ",".join(exact(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ",".join(json.dumps(k) + ":" + exact(v) for k, v in value.items()) + "}"
    return json.dumps(value)


def survives_python(value: Any, depth: int = 1) -> bool:
    """Whether the SDK can send `value` as JSON unchanged: every number survives Python's
    float, and the nesting is well within what a message may have."""
    if depth > 100:
        return False
    if isinstance(value, Raw):
        return json.dumps(json.loads(value)) == value
    if isinstance(value, list):
        return all(survives_python(v, depth + 1) for v in value)
    if isinstance(value, dict):
        return all(survives_python(v, depth + 1) for v in value.values())
    return True


COLUMNS = ("id", "tool_name", "success", "error_message", "output_preview", "output_length", "is_truncated")


def evidence_arguments(invocation: dict[str, Any]) -> dict[str, Any]:
    """verify_evidence's arguments for a bundle's invocation."""
    args = {c: plain(invocation[c]) for c in COLUMNS if c in invocation}
    if "retrieval_details" in invocation:
        details = invocation["retrieval_details"]
        assert survives_python(details), "retrieval_details that JSON in Python cannot carry"
        args["retrieval_details"] = plain(details)
    else:
        args["evidence_refs"] = []
    if "raw_output" in invocation:
        raw = invocation["raw_output"]
        if isinstance(raw, str):
            # A bundle's string raw_output is a JSON string document; a tool's string argument
            # is the output's text, so the document goes as the text of that JSON string.
            args["raw_output_text"] = exact(raw)
        elif survives_python(raw):
            args["raw_output"] = plain(raw)
        else:
            # Numbers a Python float would rewrite (0.950, 1e3): the exact text instead.
            args["raw_output_text"] = exact(raw)
    if "raw_output_text" in invocation:
        args["raw_output_text"] = invocation["raw_output_text"]
    return args


# --------------------------------------------------------------------------------------------
# Tools
# --------------------------------------------------------------------------------------------


def test_tools_are_listed_with_schemas_and_annotations() -> None:
    async def main() -> None:
        async with session() as s:
            tools = (await s.list_tools()).tools
            assert {t.name for t in tools} == TOOLS
            for t in tools:
                jsonschema.Draft202012Validator.check_schema(t.input_schema)
                assert t.output_schema is not None and t.output_schema["type"] == "object"
                jsonschema.Draft202012Validator.check_schema(t.output_schema)
                assert t.annotations is not None
                assert (t.annotations.read_only_hint, t.annotations.idempotent_hint, t.annotations.open_world_hint) == (
                    True,
                    True,
                    False,
                )
                assert t.description
            await s.send_ping()

    anyio.run(main)


def test_fixtures_exist() -> None:
    assert len(FIXTURES) >= 25


@pytest.mark.slow
def test_every_fixture_invocation_gets_the_cli_verdict() -> None:
    async def main() -> int:
        checked = 0
        async with session() as s:
            out = await schemas(s)
            for fixture in FIXTURES:
                report = json.loads(cli("verify", "--format", "json", str(fixture)))
                expected = {v["id"]: v for run in report["runs"] for v in run["invocations"]}
                bundle = load_exact(fixture.read_text())
                for invocation in bundle["invocations"]:
                    result = await call(s, "verify_evidence", evidence_arguments(invocation), out)
                    key = plain(invocation["id"])
                    assert result.structured_content == expected[key], f"{fixture.name} id {key}"
                    checked += 1
        return checked

    assert anyio.run(main) >= 150


@pytest.mark.parametrize("flags", [("any", "exact", "0.9"), ("all", "normalized", "0.9"), ("any", "fuzzy", "0.8")])
def test_a_policy_gives_the_cli_verdicts_under_the_same_flags(flags: tuple[str, str, str]) -> None:
    require, match, min_score = flags
    fixture = ROOT / "fixtures" / "16_policy_sensitivity_cpu_throttling.json"
    report = json.loads(
        cli("verify", "--format", "json", "--require", require, "--match", match, "--min-score", min_score, str(fixture))
    )
    expected = {v["id"]: v for run in report["runs"] for v in run["invocations"]}

    async def main() -> None:
        async with session() as s:
            out = await schemas(s)
            for invocation in load_exact(fixture.read_text())["invocations"]:
                args = evidence_arguments(invocation)
                args["policy"] = {"require": require, "match": match, "min_score": float(min_score)}
                result = await call(s, "verify_evidence", args, out)
                assert result.structured_content == expected[plain(invocation["id"])]

    anyio.run(main)


def test_a_misquote_is_told_with_its_nearest_text_and_where_the_quote_is() -> None:
    async def main() -> None:
        async with session() as s:
            out = await schemas(s)
            output = {"logs": [{"message": "dial tcp 10.0.0.7:5432: connection refused"}, {"message": "pool exhausted"}]}
            result = await call(
                s,
                "verify_evidence",
                {
                    "raw_output": output,
                    "evidence_refs": [
                        {"raw_path": "$.logs[0].message", "text": "connection reset"},
                        {"raw_path": "$.logs[0].message", "text": "pool exhausted"},
                    ],
                    "evidence_status": "supported",
                    "tool_name": "query_logs",
                },
                out,
            )
            verdict = result.structured_content
            assert verdict is not None and verdict["status"] == "unsupported"
            assert verdict["refs"][0]["nearest"]["path"] == "$['logs'][0]['message']"
            assert verdict["refs"][1]["elsewhere"] == "$['logs'][1]['message']"
            text = result.content[0].text  # type: ignore[union-attr]
            assert "nearest" in text and "found elsewhere at $['logs'][1]['message']" in text, text

    anyio.run(main)


def test_a_string_raw_output_is_the_output_s_text() -> None:
    """A raw_output given as a string is the output's text, read as raw_output_text is (as a
    database's JSON column read back by a driver, or a tool that returns text): a quote that
    begins with `"` is not found in the JSON syntax of a string holding that text."""
    output = '{"reason": "OOMKilled", "exit_code": 137, "ratio": 0.950}'
    cases = [
        ([{"raw_path": "$", "text": '"OOMKilled'}], "unsupported"),
        ([{"raw_path": "$.reason", "text": "OOMKilled"}], "supported"),
        ([{"raw_path": "$.ratio", "text": "0.950"}], "supported"),
    ]

    async def main() -> None:
        async with session() as s:
            out = await schemas(s)
            for refs, status in cases:
                as_string = await call(s, "verify_evidence", {"raw_output": output, "evidence_refs": refs}, out)
                as_text = await call(s, "verify_evidence", {"raw_output_text": output, "evidence_refs": refs}, out)
                assert as_string.structured_content == as_text.structured_content
                assert as_string.structured_content is not None
                assert as_string.structured_content["status"] == status, (refs, as_string.structured_content)
            # A JSON string document is still given as its JSON text.
            document = await call(
                s, "verify_evidence", {"raw_output_text": json.dumps(output), "evidence_refs": cases[0][0]}, out
            )
            assert document.structured_content is not None
            assert document.structured_content["status"] == "supported"

    anyio.run(main)


RESOLVE_CASES = [
    ("01_order_svc_5xx_spike.json", "$.invocations[*].tool_name"),
    ("01_order_svc_5xx_spike.json", "/invocations/0/id"),
    ("09_numbers_as_written.json", "$..raw_output"),
    ("22_json_encoded_twice.json", "$.invocations[0].raw_output_text"),
    ("07_pod_status_bracket_keys.json", "$.nothing_here"),
]


def test_resolve_path_gives_what_resolve_prints() -> None:
    async def main() -> None:
        async with session() as s:
            out = await schemas(s)
            for name, path in RESOLVE_CASES:
                fixture = ROOT / "fixtures" / name
                expected = {"nodes": json.loads(cli("resolve", "--path", path, str(fixture)))}
                text = fixture.read_text()
                got = await call(s, "resolve_path", {"document_text": text, "path": path}, out)
                assert got.structured_content == expected, (name, path)
                doc = load_exact(text)
                if survives_python(doc):
                    got = await call(s, "resolve_path", {"document": plain(doc), "path": path}, out)
                    assert got.structured_content == expected, (name, path)
            # A path into JSON held in a string is marked as the command marks it.
            got = await call(s, "resolve_path", {"document": {"body": '{"a": [7]}'}, "path": "$.body.a[0]"}, out)
            assert got.structured_content == {"nodes": [{"path": "$['body']['a'][0]", "value": 7, "descended": True}]}

    anyio.run(main)


@pytest.mark.slow
def test_verify_run_gives_the_run_command_s_report(tmp_path: Path) -> None:
    db = tmp_path / "gc.db"
    url = f"sqlite://{db}"
    cli("import", "--database", url, str(ROOT / "fixtures"), cwd=tmp_path)
    report = json.loads(cli("verify", "--format", "json", str(ROOT / "fixtures")))
    run_ids = [r["run_id"] for r in report["runs"] if r["run_id"] is not None]
    sessions = sorted({r["session_id"] for r in report["runs"] if r["run_id"] is None})
    assert len(run_ids) >= 10 and sessions

    async def main() -> None:
        async with session("--database", url) as s:
            assert {t.name for t in (await s.list_tools()).tools} == TOOLS | {"verify_run"}
            out = await schemas(s)
            for run_id in run_ids:
                expected = json.loads(cli("run", "--database", url, "--format", "json", run_id, cwd=tmp_path))
                got = await call(s, "verify_run", {"run_id": run_id}, out)
                assert got.structured_content == expected, run_id
            for session_id in sessions:
                expected = json.loads(cli("run", "--database", url, "--format", "json", "--session", session_id))
                got = await call(s, "verify_run", {"session_id": session_id}, out)
                assert got.structured_content == expected, session_id
            expected = json.loads(cli("run", "--database", url, "--format", "json", "--match", "exact", run_ids[0]))
            got = await call(s, "verify_run", {"run_id": run_ids[0], "policy": {"match": "exact"}}, out)
            assert got.structured_content == expected
            message = await call_error(s, "verify_run", {"run_id": "no-such-run"})
            assert "no-such-run: no invocations found" in message, message

    before = database_state(db)
    anyio.run(main)
    # The database was opened read only: not a byte of it, nor of its journal, changed.
    assert database_state(db) == before


def database_state(db: Path) -> tuple[Any, ...]:
    """What any write to a SQLite database changes: the bytes of the file and of its WAL and
    journal (absent counts as empty), the change counter and every table's rows, read through
    a read-only connection of our own (which writes nothing)."""
    files = tuple(
        hashlib.sha256(f.read_bytes() if f.exists() else b"").hexdigest()
        for f in (db, db.with_name(db.name + "-wal"), db.with_name(db.name + "-journal"))
    )
    with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as conn:
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
        rows = tuple((t, conn.execute(f'SELECT count(*) FROM "{t}"').fetchone()[0]) for t in tables)
        # The file change counter in the header (bytes 24-27) moves on every committed write.
        counter = db.read_bytes()[24:28]
    return files, rows, counter


def test_verify_run_reads_raw_outputs_from_files_as_run_does(tmp_path: Path) -> None:
    db = tmp_path / "gc.db"
    url = f"sqlite://{db}"
    cli("import", "--database", url, str(ROOT / "fixtures" / "24_raw_output_files.json"), cwd=tmp_path)
    run_id = "run-20261130-raw-output-files"
    template = str(ROOT / "fixtures" / "sessions") + "/{session_id}/tools/{id}.json"
    expected = json.loads(cli("run", "--database", url, "--raw-outputs", template, "--format", "json", run_id))
    without = json.loads(cli("run", "--database", url, "--format", "json", run_id))
    sources = [v["source"] for v in expected["runs"][0]["invocations"]]
    assert sources.count("file") >= 4 and expected != without, sources

    async def main() -> None:
        async with session("--database", url, "--raw-outputs", template) as s:
            out = await schemas(s)
            got = await call(s, "verify_run", {"run_id": run_id}, out)
            assert got.structured_content == expected
            # verify_evidence is given its output in the call: the template is not read for it.
            result = await call(s, "verify_evidence", {"id": 2401, "evidence_refs": []}, out)
            assert result.structured_content is not None and result.structured_content["source"] == "none"
        async with session("--database", url) as s:
            got = await call(s, "verify_run", {"run_id": run_id}, await schemas(s))
            assert got.structured_content == without

    anyio.run(main)


def test_a_database_password_is_never_shown() -> None:
    done = subprocess.run(
        [BIN, "mcp", "--database", "postgres://reader:s3cr3t-pw@127.0.0.1:1/agent"],
        input=b"",
        capture_output=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stdout == b""
    assert b"s3cr3t-pw" not in done.stderr and b"reader:***@127.0.0.1:1" in done.stderr, done.stderr


# --------------------------------------------------------------------------------------------
# Hostile arguments: a tool result with isError and one message, and the server goes on
# --------------------------------------------------------------------------------------------


def test_bad_arguments_are_tool_errors_and_the_server_goes_on() -> None:
    refs = [{"raw_path": "$.a", "text": "1"}]

    async def main() -> None:
        async with session() as s:
            out = await schemas(s)
            cases: list[tuple[str, dict[str, Any], str]] = [
                ("verify_evidence", {"raw_output": {"a": 1}, "evidence_refs": 5}, "evidence_refs: must be an array"),
                ("verify_evidence", {"raw_output": {"a": 1}, "evidence_refs": refs, "id": "7"}, "id: must be an integer"),
                ("verify_evidence", {"raw_output": {"a": 1}, "evidence_refs": refs, "policy": {"match": "loose"}},
                 "policy.match: unknown match rung `loose`"),
                ("verify_evidence", {"raw_output": {"a": 1}, "evidence_refs": refs, "policy": {"min_score": 0}},
                 "policy.min_score: must be above 0"),
                ("verify_evidence", {"raw_output": {"a": 1}, "evidence_refs": refs, "policy": {"min_score": 2}},
                 "policy.min_score: "),
                ("verify_evidence", {"raw_output": 1, "raw_output_text": "1", "evidence_refs": refs},
                 "raw_output: give raw_output or raw_output_text, not both"),
                ("verify_evidence", {"raw_ouptut": 1, "evidence_refs": refs}, "raw_ouptut: unknown argument"),
                ("resolve_path", {"document": {"a": 1}, "path": "$["}, 'path: "$[": '),
                ("resolve_path", {"document_text": "{not json", "path": "$"}, "document_text: "),
                ("resolve_path", {"document": {"a": 1}}, "path: required"),
                ("resolve_path", {"document": {"a": 1}, "path": ["$"]}, "path: must be a string, not an array"),
            ]
            for name, arguments, start in cases:
                message = await call_error(s, name, arguments)
                assert message.startswith(start), (message, start)
            # An invalid path inside a ref is not a bad argument: it is that ref's verdict.
            got = await call(s, "verify_evidence", {"raw_output": {"a": 1}, "evidence_refs": [{"raw_path": "$[", "text": "1"}]}, out)
            assert got.structured_content is not None and got.structured_content["refs"][0]["outcome"] == "invalid_path"
            with pytest.raises(MCPError):
                await s.call_tool("no_such_tool", {})
            got = await call(s, "verify_evidence", {"raw_output": {"a": 1}, "evidence_refs": refs}, out)
            assert got.structured_content is not None and got.structured_content["status"] == "supported"

    anyio.run(main)


@pytest.mark.slow
def test_a_100_mb_argument_is_refused_and_the_limits_of_the_engine_apply() -> None:
    async def main() -> None:
        async with session() as s:
            out = await schemas(s)
            refs = [{"raw_path": "$", "text": "x"}]
            message = await call_error(s, "verify_evidence", {"raw_output_text": "x" * 100_000_000, "evidence_refs": refs})
            assert "over the 80 MiB one message may be" in message, message
            # Under the message limit but over the output limit: the engine's verdict says so.
            got = await call(s, "verify_evidence", {"raw_output_text": "x" * (64 * 1024 * 1024 + 1), "evidence_refs": refs}, out)
            assert got.structured_content is not None
            assert got.structured_content["refs"][0]["outcome"] == "limit_exceeded"
            # 10,000-deep nesting as text is an ordinary input: limit_exceeded, not an error.
            deep = "[" * 10_000 + "]" * 10_000
            got = await call(s, "verify_evidence", {"raw_output_text": deep, "evidence_refs": refs}, out)
            assert got.structured_content is not None
            assert got.structured_content["refs"][0]["outcome"] == "limit_exceeded"
            await s.send_ping()

    anyio.run(main)


# --------------------------------------------------------------------------------------------
# Raw bytes on the pipe: malformed messages are JSON-RPC errors; the server keeps serving
# --------------------------------------------------------------------------------------------


class Pipe:
    """The server on raw pipes: bytes in, JSON lines out, nothing but JSON-RPC on stdout."""

    def __init__(self, *args: str) -> None:
        self.process = subprocess.Popen(
            [BIN, "mcp", *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        self.buffer = b""

    def send(self, data: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def request(self, id: int, method: str, params: dict[str, Any] | None = None) -> None:
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": id, "method": method}
        if params is not None:
            message["params"] = params
        self.send(json.dumps(message).encode() + b"\n")

    def receive(self, timeout: float = 60) -> dict[str, Any] | None:
        assert self.process.stdout is not None
        fd = self.process.stdout.fileno()
        deadline = time.monotonic() + timeout
        while b"\n" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                return None
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                return None
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        message = json.loads(line)
        assert message["jsonrpc"] == "2.0" and ("result" in message or "error" in message), message
        return message

    def initialize(self, version: str = "2025-06-18") -> dict[str, Any]:
        self.request(0, "initialize", {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}})
        answer = self.receive()
        assert answer is not None and answer["id"] == 0
        self.send(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        return answer

    def close(self) -> tuple[int, bytes]:
        assert self.process.stdin is not None and self.process.stderr is not None
        self.process.stdin.close()
        code = self.process.wait(timeout=60)
        return code, self.process.stderr.read()


def test_malformed_messages_are_json_rpc_errors_and_the_server_keeps_serving() -> None:
    pipe = Pipe()
    pipe.initialize()
    malformed: list[tuple[bytes, int]] = [
        (b"\xff\xfe not utf-8 \x00\n", -32700),
        (b"{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \n", -32700),
        (b"garbage\n", -32700),
        (b"[]\n", -32600),
        (b"{\"jsonrpc\": \"2.0\", \"id\": 3}\n", -32600),
        (b"{\"jsonrpc\": \"2.0\", \"id\": 4, \"method\": \"tools/call\", \"params\": 5}\n", -32600),
    ]
    for data, code in malformed:
        pipe.send(data)
        answer = pipe.receive()
        assert answer is not None and answer["error"]["code"] == code, (data, answer)
    # An unknown method with an id: method not found, with that id.
    pipe.request(5, "no/such/method")
    answer = pipe.receive()
    assert answer is not None and answer["id"] == 5 and answer["error"]["code"] == -32601, answer
    # A notification nobody knows gets no answer; the next request does.
    pipe.send(b'{"jsonrpc":"2.0","method":"notifications/whatever"}\n')
    pipe.request(6, "tools/list")
    answer = pipe.receive()
    assert answer is not None and answer["id"] == 6 and {t["name"] for t in answer["result"]["tools"]} == TOOLS
    code, stderr = pipe.close()
    assert code == 0 and b"panicked" not in stderr, stderr


@pytest.mark.slow
def test_messages_too_deep_or_too_large_to_read_are_answered_by_id() -> None:
    pipe = Pipe()
    pipe.initialize()
    deep = "[" * 10_000 + "]" * 10_000
    # Outside the arguments (here in _meta), deep nesting is not read: an error by id.
    line = '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"verify_evidence","_meta":{"x":%s},"arguments":{"raw_output":1,"evidence_refs":[]}}}\n'
    pipe.send((line % deep).encode())
    answer = pipe.receive()
    assert answer is not None and answer["id"] == 7 and answer["result"]["isError"] is True, answer
    assert "nested deeper than 128 levels" in answer["result"]["content"][0]["text"]
    # In the arguments it is a document like any other: the engine's depth limit judges it.
    line = '{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"verify_evidence","arguments":{"raw_output":%s,"evidence_refs":[{"raw_path":"$","text":"x"}]}}}\n'
    pipe.send((line % deep).encode())
    answer = pipe.receive()
    assert answer is not None and answer["id"] == 6, answer
    assert answer["result"]["structuredContent"]["refs"][0]["outcome"] == "limit_exceeded", answer
    # Over the message limit, with the id at the end: read to the end, kept to the limit.
    big = '{"jsonrpc":"2.0","method":"tools/call","params":{"name":"resolve_path","arguments":{"document_text":"%s","path":"$"}},"id":"big"}\n'
    pipe.send((big % ("x" * (90 * 1024 * 1024))).encode())
    answer = pipe.receive()
    assert answer is not None and answer["id"] == "big" and answer["result"]["isError"] is True, answer
    # The same size as another request: an invalid-request error with its id.
    pipe.send(('{"id":8,"method":"ping","params":{"x":"%s"},"jsonrpc":"2.0"}\n' % ("y" * (81 * 1024 * 1024))).encode())
    answer = pipe.receive()
    assert answer is not None and answer["id"] == 8 and answer["error"]["code"] == -32600, answer
    pipe.request(9, "ping")
    answer = pipe.receive()
    assert answer == {"jsonrpc": "2.0", "id": 9, "result": {}}
    code, stderr = pipe.close()
    assert code == 0 and b"panicked" not in stderr, stderr


@pytest.mark.parametrize(("asked", "agreed"), [("2024-11-05", "2024-11-05"), ("2025-06-18", "2025-06-18"), ("2025-11-25", "2025-11-25"), ("1999-01-01", "2025-11-25")])
def test_initialize_negotiates_the_versions_the_sdk_supports(asked: str, agreed: str) -> None:
    pipe = Pipe()
    answer = pipe.initialize(asked)
    assert answer["result"]["protocolVersion"] == agreed
    assert answer["result"]["capabilities"] == {"tools": {}}
    pipe.close()


@pytest.mark.slow
def test_a_cancelled_call_is_not_answered_and_the_server_goes_on() -> None:
    pipe = Pipe()
    pipe.initialize()
    # Slow enough that the cancellation arrives first: 40 MB of text searched on the fuzzy rung.
    text = "lorem ipsum dolor sit amet " * 1_500_000
    arguments = {"raw_output_text": text, "evidence_refs": [{"raw_path": "$", "text": "not in there at all " * 20}],
                 "policy": {"match": "fuzzy"}}
    pipe.request(10, "tools/call", {"name": "verify_evidence", "arguments": arguments})
    pipe.send(b'{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":10,"reason":"test"}}\n')
    pipe.request(11, "ping")
    answer = pipe.receive()
    assert answer == {"jsonrpc": "2.0", "id": 11, "result": {}}
    assert pipe.receive(timeout=5) is None, "the cancelled call was answered"
    code, _ = pipe.close()
    assert code == 0


# --------------------------------------------------------------------------------------------
# Every request gets exactly one answer: ids MCP does not allow, lone surrogates
# --------------------------------------------------------------------------------------------


def test_every_request_gets_one_answer_whatever_its_id() -> None:
    pipe = Pipe()
    pipe.initialize()
    cases: list[tuple[bytes, Any]] = [
        (b"1.5", 1.5),
        (b"123456789012345678901234567890", 123456789012345678901234567890),
        (b"1e3", 1000.0),
        (b"null", None),
        (b'{"a": 1}', None),
        (b"[1]", None),
        (b"true", None),
    ]
    for raw_id, echoed in cases:
        for method in (b'"ping"', b'"tools/call","params":{"name":"resolve_path","arguments":{"document":1,"path":"$"}}'):
            pipe.send(b'{"jsonrpc":"2.0","id":' + raw_id + b',"method":' + method + b"}\n")
            answer = pipe.receive()
            assert answer is not None and answer["error"]["code"] == -32600, (raw_id, answer)
            assert answer["id"] == echoed, (raw_id, answer)
            assert "not one MCP allows" in answer["error"]["message"], answer
    # Exactly one answer each: the next request's answer is the next line.
    pipe.request(99, "ping")
    assert pipe.receive() == {"jsonrpc": "2.0", "id": 99, "result": {}}
    code, stderr = pipe.close()
    assert code == 0 and b"panicked" not in stderr, stderr


def test_a_lone_surrogate_in_an_argument_reads_as_the_replacement_character() -> None:
    pipe = Pipe()
    pipe.initialize()
    # What json.dumps writes for text cut mid-emoji: "\ud83d" alone.
    arguments = {
        "raw_output_text": '{"m": "ok \ud83d then \udc00"}',
        "evidence_refs": [{"raw_path": "$.m", "text": "ok \ud83d then"}],
        "tool_name": "q\ud800",
    }
    line = json.dumps({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                       "params": {"name": "verify_evidence", "arguments": arguments}})
    assert "\\ud83d" in line
    pipe.send(line.encode() + b"\n")
    answer = pipe.receive()
    assert answer is not None and answer["id"] == 7 and answer["result"]["isError"] is False, answer
    verdict = answer["result"]["structuredContent"]
    assert verdict["status"] == "supported", verdict
    assert verdict["tool_name"] == "q\ufffd" and verdict["refs"][0]["text"] == "ok \ufffd then", verdict
    # In a JSON value, in a key, in a pair: the same reading; a pair stays a character.
    value = {"raw_output": {"k\udfff": ["\ud83d\ude00 x\ud800"]}, "evidence_refs": [{"raw_path": "$['k\ufffd'][0]", "text": "\ud83d\ude00 x\ufffd"}]}
    pipe.send(json.dumps({"jsonrpc": "2.0", "id": 8, "method": "tools/call",
                          "params": {"name": "verify_evidence", "arguments": value}}).encode() + b"\n")
    answer = pipe.receive()
    assert answer is not None and answer["id"] == 8, answer
    assert answer["result"]["structuredContent"]["status"] == "supported", answer
    # A request id and a method name with one are answered by their id too.
    pipe.send(b'{"jsonrpc":"2.0","id":"a\\ud800","method":"ping"}\n')
    assert pipe.receive() == {"jsonrpc": "2.0", "id": "a\ufffd", "result": {}}
    code, stderr = pipe.close()
    assert code == 0 and b"panicked" not in stderr, stderr


# --------------------------------------------------------------------------------------------
# Memory: a 78 MB message costs a small multiple of itself, and the memory comes back
# --------------------------------------------------------------------------------------------


def memory(pid: int) -> tuple[int, int]:
    """(peak, current) resident memory of a process, in bytes (VmHWM, VmRSS)."""
    fields = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines() if ":" in line)
    return int(fields["VmHWM"].split()[0]) * 1024, int(fields["VmRSS"].split()[0]) * 1024


@pytest.mark.slow(longest=True)
def test_a_78_mb_message_of_numbers_stays_under_1_gb_and_its_memory_comes_back() -> None:
    pipe = Pipe()
    pipe.initialize()
    # 39 million JSON numbers: as a serde_json::Value tree this was 11 GB at its peak.
    zeros = "[" + ",".join(["0"] * 39_000_000) + "]"
    line = ('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"verify_evidence","arguments":'
            '{"raw_output":%s,"evidence_refs":[{"raw_path":"$[38999999]","text":"0"}]}}}\n' % zeros)
    assert 75_000_000 < len(line) < 80 * 1024 * 1024
    pipe.send(line.encode())
    del zeros, line
    answer = pipe.receive(timeout=600)
    assert answer is not None and answer["id"] == 1, answer
    assert answer["result"]["structuredContent"]["status"] == "supported", answer
    peak, _ = memory(pipe.process.pid)
    assert peak < 1024**3, f"peak resident memory {peak / 1e6:.0f} MB"
    # The memory is given back: the allocator returns freed pages as the server goes on.
    for i in range(20):
        pipe.request(100 + i, "tools/call", {"name": "resolve_path", "arguments": {"document": [1], "path": "$[0]"}})
        assert pipe.receive() is not None
    _, now = memory(pipe.process.pid)
    assert now < 200 * 1024**2, f"resident memory after the call {now / 1e6:.0f} MB"
    code, _ = pipe.close()
    assert code == 0


def test_resolve_path_stops_at_the_node_limit_and_names_it() -> None:
    async def main() -> None:
        async with session() as s:
            # 22 segments of [*,*] on a 22-deep array double the nodes 22 times (4 million):
            # a 293-byte call answered 373 MB at a 5 GB peak.
            document = json.loads("[" * 22 + "0" + "]" * 22)
            path = "$" + "[*,*]" * 22
            message = await call_error(s, "resolve_path", {"document": document, "path": path})
            assert "limit_exceeded (nodes)" in message, message
            message = await call_error(s, "resolve_path", {"document_text": json.dumps(document), "path": path})
            assert "limit_exceeded (nodes)" in message, message
            # Under the limit the nodes come back, repeats and all.
            out = await schemas(s)
            got = await call(s, "resolve_path", {"document": [[0]], "path": "$[*,*][*,*]"}, out)
            assert got.structured_content == {"nodes": [{"path": "$[0][0]", "value": 0}] * 4}

    anyio.run(main)


# --------------------------------------------------------------------------------------------
# The deepest documents the limits allow, in every format, on the server's threads
# --------------------------------------------------------------------------------------------


def deep_cases() -> list[tuple[str, str, str]]:
    """(document text, path, quote): the deepest the default limits let a query run on."""
    yaml = "".join("  " * i + "-\n" for i in range(509)) + "  " * 509 + "- b\n"
    yaml_flat = " ".join(["-"] * 510) + " b\n"
    json_arrays = "[" * 511 + '{"b": "x"}' + "]" * 511
    json_objects = '{"a":' * 511 + '{"b": "x"}' + "}" * 511
    lines = '{"a": 1}\n' + '{"a":' * 510 + '{"b": "x"}' + "}" * 510 + "\n"
    return [
        (yaml_flat, "$..b", "b"),
        (yaml, "$..b", "b"),
        (json_arrays, "$..b", "x"),
        (json_objects, "$..b", "x"),
        (json_objects, "$..[?@.b == 'x']", "x"),
        (json_arrays, "$..*", "x"),
        (lines, "$..b", "x"),
        (lines, "$[1]..[?@.b]", "x"),
    ]


def test_the_deepest_documents_get_the_cli_verdict_and_resolve(tmp_path: Path) -> None:
    invocations = []
    for i, (text, path, quote) in enumerate(deep_cases()):
        details = {"evidence_status": "supported", "evidence_refs": [{"raw_path": path, "text": quote}]}
        invocations.append({"id": i + 1, "tool_name": "deep", "raw_output_text": text, "retrieval_details": details})
    bundle = tmp_path / "deep.json"
    bundle.write_text(json.dumps({"run_id": "deep", "invocations": invocations}))
    report = json.loads(cli("verify", "--format", "json", str(bundle)))
    expected = {v["id"]: v for run in report["runs"] for v in run["invocations"]}

    async def main() -> None:
        async with session() as s:
            out = await schemas(s)
            for invocation in invocations:
                result = await call(s, "verify_evidence", evidence_arguments(invocation), out)
                assert result.structured_content == expected[invocation["id"]], invocation["id"]
                path = invocation["retrieval_details"]["evidence_refs"][0]["raw_path"]
                text = invocation["raw_output_text"]
                got = await s.call_tool("resolve_path", {"document_text": text, "path": path})
                if got.is_error:
                    # Nodes deeper than a client's JSON reader goes are not sent, and said so.
                    assert "nested too deep to return as structured content" in got.content[0].text  # type: ignore[union-attr]
                    continue
                validate(got.structured_content, out["resolve_path"])
                if text.startswith(("[", "{")) and "\n" not in text:
                    # JSON: what `groundcheck resolve` prints (it reads JSON only).
                    assert got.structured_content == {"nodes": json.loads(cli("resolve", "--path", path, input=text))}
            await s.send_ping()

    anyio.run(main)
    assert sum(v["status"] == "supported" for v in expected.values()) >= 6, expected


# --------------------------------------------------------------------------------------------
# The hostile and agent-run fixtures: the CLI's verdict for every invocation
# --------------------------------------------------------------------------------------------

MORE_FIXTURES = sorted((ROOT / "fixtures" / "hostile").glob("*.json")) + sorted((ROOT / "fixtures" / "agent-runs").glob("*.json"))


def raw_members(text: str) -> dict[str, str]:
    """The members of the JSON object `text`: each name and its value's exact text."""
    items = raw_items(text)
    return {json.loads(k): v for k, v in zip(items[::2], items[1::2])}


def raw_items(text: str) -> list[str]:
    """The exact texts of the top-level items of the JSON array or object `text` (of an
    object: name, value, name, value, ...), read without recursion: a fixture may nest deeper
    than Python's JSON reader goes."""
    items: list[str] = []
    depth, start, in_string, escaped = 0, None, False, False
    for i, c in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif c == "\\":
                escaped = True
            elif c == '"':
                in_string = False
            continue
        if c == '"':
            in_string = True
            if depth == 1 and start is None:
                start = i
        elif c in "[{":
            if depth == 1 and start is None:
                start = i
            depth += 1
        elif c in "]}":
            depth -= 1
            if depth == 0:
                if start is not None:
                    items.append(text[start:i].strip())
                break
        elif depth == 1 and c in ",:":
            assert start is not None
            items.append(text[start:i].strip())
            start = None
        elif depth == 1 and start is None and not c.isspace():
            start = i
    return items


@pytest.mark.parametrize("fixture", MORE_FIXTURES, ids=lambda f: f"{f.parent.name}/{f.name}")
def test_hostile_and_agent_run_fixtures_get_the_cli_verdict(fixture: Path) -> None:
    """Each invocation's columns are sent exactly as the file writes them (raw JSON on the
    pipe: some nest deeper, or hold numbers longer, than Python's JSON carries)."""
    report = json.loads(cli("verify", "--format", "json", str(fixture)))
    expected = {(run["run_id"], v["id"]): v for run in report["runs"] for v in run["invocations"]}
    top = raw_members(fixture.read_text())
    pipe = Pipe()
    pipe.initialize()
    checked = 0
    for n, text in enumerate(raw_items(top["invocations"])):
        row = raw_members(text)
        names = [*COLUMNS, "retrieval_details", "raw_output", "raw_output_text"]
        # A JSON string holds no raw line break: those outside strings are white space.
        arguments = {name: row[name].replace("\n", " ") for name in names if name in row}
        if arguments.get("raw_output", "").startswith('"'):
            # A bundle's string raw_output is a JSON string document: sent as that JSON's text.
            arguments["raw_output_text"] = json.dumps(arguments.pop("raw_output"))
        arguments.setdefault("retrieval_details", "null")
        line = '{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"verify_evidence","arguments":{%s}}}\n' % (
            n, ",".join(f"{json.dumps(k)}:{v}" for k, v in arguments.items()))
        pipe.send(line.encode())
        answer = pipe.receive(timeout=300)
        assert answer is not None and answer["id"] == n and not answer["result"].get("isError"), answer
        run_id = json.loads(row.get("run_id", "null")) or json.loads(top.get("run_id", "null"))
        key = (run_id, json.loads(row["id"]))
        structured = answer["result"]["structuredContent"]
        assert structured.pop("advice") == answer["result"]["content"][0]["text"]
        assert structured == expected[key], (fixture.name, key)
        checked += 1
    assert checked == len(expected) > 0
    code, stderr = pipe.close()
    assert code == 0 and b"panicked" not in stderr, stderr


def test_pipelined_calls_each_get_their_own_structured_content() -> None:
    """Calls sent together, without waiting for answers: each answer carries its own verdict.
    A result's structured content waits, as text, for its answer to be written; a call read in
    between once made the transport forget it, and the answer went out with the placeholder."""
    pipe = Pipe()
    pipe.initialize()
    calls = 40
    lines = b""
    for i in range(calls):
        arguments = {
            "tool_name": "query_logs",
            "raw_output": {"logs": [{"message": f"line {i} connection refused"}]},
            "evidence_refs": [{"raw_path": "$.logs[0].message", "text": f"line {i}"}],
        }
        message = {"jsonrpc": "2.0", "id": 100 + i, "method": "tools/call",
                   "params": {"name": "verify_evidence", "arguments": arguments}}
        lines += json.dumps(message).encode() + b"\n"
    pipe.send(lines)
    seen = {}
    for _ in range(calls):
        answer = pipe.receive()
        assert answer is not None
        seen[answer["id"]] = answer["result"]["structuredContent"]
    assert sorted(seen) == [100 + i for i in range(calls)]
    for id, structured in seen.items():
        assert structured.get("status") == "supported", (id, structured)
        assert structured["refs"][0]["text"] == f"line {id - 100}", (id, structured)
    code, _ = pipe.close()
    assert code == 0
