"""groundcheck.agents' shared check, without a framework: how an answer's evidence becomes rows,
what the feedback says for each way a quote fails, and that the package loads no framework."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass

import pytest
from agents_scenario import CALL, CORRECT, LEAF, LOGS, LOGS_TEXT, MISQUOTES, answer

import groundcheck
from groundcheck.agents import EvidenceError, ToolOutput, check_evidence

OUTPUTS = {CALL: ToolOutput("query_logs", LOGS), "call_pod": ToolOutput("get_pod", '{"phase": "Running"}')}


def test_importing_groundcheck_and_its_agents_package_loads_no_framework() -> None:
    code = (
        "import sys, groundcheck, groundcheck.agents\n"
        "print(sorted({m.split('.')[0] for m in sys.modules} & "
        "{'pydantic_ai', 'agents', 'openai', 'langchain', 'langchain_core', 'langgraph', 'pydantic'}))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_every_cited_call_is_one_row_in_citation_order_verified_as_one_run() -> None:
    pod = {"tool_call_id": "call_pod", "raw_path": "$.phase", "text": "Running"}
    check = check_evidence(answer(pod, CORRECT, pod), OUTPUTS)
    assert check.passed and check.feedback is None and check.unknown_calls == ()
    assert check.calls == {"call_pod": 1, CALL: 2}
    assert check.report is not None and len(check.report.runs) == 1
    rows = [
        {"id": 1, "tool_name": "get_pod", "success": True, "raw_output": '{"phase": "Running"}',
         "retrieval_details": {"evidence_refs": [{"raw_path": "$.phase", "text": "Running"}] * 2}},
        {"id": 2, "tool_name": "query_logs", "success": True, "raw_output": LOGS,
         "retrieval_details": {"evidence_refs": [{"raw_path": CORRECT["raw_path"], "text": CORRECT["text"]}]}},
    ]
    assert check.report.to_json() == groundcheck.verify_run(rows).to_json()


@pytest.mark.parametrize("kind", list(MISQUOTES))
def test_the_feedback_names_the_right_path_or_the_nearest_text(kind: str) -> None:
    wrong, hint = MISQUOTES[kind]
    check = check_evidence(answer(CORRECT, wrong), OUTPUTS)
    assert not check.passed and check.feedback is not None
    lines = check.feedback.splitlines()
    cited = f"- evidence[1] {json.dumps(wrong['text'])} at {wrong['raw_path']} (call_logs_1, query_logs): "
    assert len(lines) == 2 and lines[1].startswith(cited), lines
    assert hint in lines[1]


def test_a_text_output_is_read_as_the_cli_reads_a_raw_output_text() -> None:
    check = check_evidence(answer(MISQUOTES["paraphrase"][0]), {CALL: ToolOutput("query_logs", LOGS_TEXT)})
    assert check.feedback is not None and LEAF in check.feedback


@pytest.mark.parametrize(
    ("item", "said"),
    [
        ({"tool_call_id": CALL, "raw_path": "$.logs[", "text": "x"}, "the path is not a valid JSONPath ("),
        ({"tool_call_id": CALL, "raw_path": "$.logs[1].message"}, 'give both "raw_path"'),
        ({"tool_call_id": CALL, "raw_path": "$.logs[1].message", "text": ""}, "the quote is empty"),
        ({"tool_call_id": CALL, "raw_path": "$.metrics", "text": "cpu"}, "the path selects nothing in that output, and the text is nowhere"),
        ({"tool_call_id": CALL, "raw_path": "$.logs[0].message", "text": "kernel panic"}, "the nearest text, at $['logs'][0]['message']"),
        ({"tool_call_id": "call_9", "raw_path": "$", "text": "x"}, 'no tool call "call_9" returned an output in this conversation'),
        ({"raw_path": "$", "text": "x"}, 'it names no tool call'),
    ],
)
def test_each_way_a_quote_fails_is_said_in_words_the_model_acts_on(item: dict[str, str], said: str) -> None:
    check = check_evidence(answer(item), OUTPUTS)
    assert not check.passed and check.feedback is not None
    assert said in check.feedback and check.feedback.count("\n") == 1, check.feedback


def test_an_unknown_call_lists_the_calls_there_are() -> None:
    check = check_evidence(answer(CORRECT, {"tool_call_id": "call_9", "raw_path": "$", "text": "x"}), OUTPUTS)
    assert check.unknown_calls == ("call_9",) and check.calls == {CALL: 1}
    assert f"(calls: {CALL} (query_logs), call_pod (get_pod))" in (check.feedback or "")


def test_a_failed_call_is_no_evidence() -> None:
    check = check_evidence(answer(CORRECT), {CALL: ToolOutput("query_logs", "boom", failed=True)})
    assert not check.passed and "that call failed" in (check.feedback or "")
    assert check.report is not None and check.report.runs[0].invocations[0].reason == "tool_failed"


@pytest.mark.parametrize("evidence", [[], None])
def test_an_answer_citing_nothing_does_not_pass(evidence: list[object] | None) -> None:
    check = check_evidence({"evidence": evidence}, OUTPUTS)
    assert not check.passed and check.report is None and "cites no evidence" in (check.feedback or "")


def test_an_output_that_cannot_carry_evidence_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="has no `evidence`"):
        check_evidence("api-7 ran out of memory", OUTPUTS)
    with pytest.raises(TypeError, match="has no `evidence` key"):
        check_evidence({"root_cause": "oom"}, OUTPUTS)
    with pytest.raises(TypeError, match="must be a list"):
        check_evidence({"evidence": CORRECT}, OUTPUTS)


def test_items_and_outputs_may_be_objects_and_an_evidence_function_finds_them() -> None:
    @dataclass
    class Item:
        tool_call_id: str
        raw_path: str
        text: str

    @dataclass
    class Out:
        sources: list[Item]

    check = check_evidence(Out([Item(**CORRECT)]), OUTPUTS, evidence=lambda o: o.sources)
    assert check.passed


def test_the_policy_decides() -> None:
    loose = {**CORRECT, "text": "oomkilled"}
    assert check_evidence(answer(loose), OUTPUTS).passed
    strict = check_evidence(answer(loose), OUTPUTS, groundcheck.Policy(match="exact"))
    assert not strict.passed


def test_the_error_carries_the_check() -> None:
    check = check_evidence(answer(MISQUOTES["wrong_path"][0]), OUTPUTS)
    error = EvidenceError(check)
    assert error.check is check and error.report is check.report and str(error) == check.feedback
