"""Rows read from real databases with the drivers Python programs use, the way docs/python.md
says to read them, give exactly the verdicts of `groundcheck verify` for the server's text of
the same rows.

The tables are declared as agents declare them — PostgreSQL `jsonb`, `NUMERIC`, `timestamptz`;
MariaDB `JSON`, `DECIMAL(12,0)`, `DATETIME(6)`, `TINYINT(1)`; SQLite `TEXT` — and filled with
every invocation of the shipped bundles. The servers are `GROUNDCHECK_TEST_POSTGRES_URL` and
`GROUNDCHECK_TEST_MYSQL_URL` (`scripts/test-databases.sh start`); under CI (`CI` set to
anything but empty, `false` or `0`) a missing server or driver fails the suite, elsewhere it
skips with the reason. The tables are this suite's own (`py_agent_tool_invocation_*`, named
for the process), created and dropped here, so the Rust suites sharing the servers, and other
runs of this suite, are never touched."""

from __future__ import annotations

import contextlib
import datetime
import functools
import json
import os
import re
import sqlite3
import subprocess
import tempfile
from pathlib import Path
from typing import Any, Callable, Iterator
from urllib.parse import unquote, urlsplit

import pytest

import groundcheck

ROOT = Path(__file__).resolve().parents[3]
BUNDLES = sorted((ROOT / "fixtures").glob("*.json")) + sorted((ROOT / "fixtures" / "agent-runs").glob("*.json"))
BIN = os.environ.get("GROUNDCHECK_BIN", str(ROOT / "target" / "debug" / "groundcheck"))
UNDER_CI = os.environ.get("CI", "").strip() not in ("", "false", "0")

# The seed table's columns, in its order; `raw_output` is the agent's own column beside them.
COLUMNS = [
    "id", "session_id", "run_id", "step_id", "tool_name", "input_params", "output_preview", "output_length",
    "retrieval_layer", "l0_match_count", "l1_match_count", "is_truncated", "relevance_level", "dedup_reason",
    "retrieval_details", "duration_ms", "success", "error_message", "created_at", "raw_output",
]
JSON_COLUMNS = ("input_params", "retrieval_details", "raw_output")
SELECT = ", ".join(COLUMNS)


def unavailable(why: str) -> None:
    """Under CI a missing server or driver fails the suite (a skip would hide it); elsewhere
    the test is skipped with the reason."""
    if UNDER_CI:
        pytest.fail(f"{why} (required under CI)")
    pytest.skip(why)


def server(variable: str) -> Any:
    url = os.environ.get(variable)
    if not url:
        unavailable(f"{variable} is not set: run `eval \"$(bash scripts/test-databases.sh start)\"`")
    return urlsplit(url)


def driver(name: str) -> Any:
    try:
        return __import__(name)
    except ImportError:
        unavailable(f"the {name} package is not installed (scripts/test.sh installs it)")


# --------------------------------------------------------------------------------------------
# The bundles' invocations, numbers as written
# --------------------------------------------------------------------------------------------


class Number:
    """A JSON number as written in the bundle (`0.950`, `1e3`), kept as its text."""

    def __init__(self, text: str) -> None:
        self.text = text


def dump(value: Any) -> str:
    """JSON text of a value read with `Number`s, each number written as it was."""
    marked = json.dumps(value, ensure_ascii=False, default=lambda n: f"@@number:{n.text}@@")
    return re.sub(r'"@@number:([^@"]*)@@"', r"\1", marked)


def is_json(text: str) -> bool:
    def no_constant(name: str) -> Any:
        raise ValueError(name)

    try:
        # What every engine's JSON type takes: no lone surrogate (PostgreSQL refuses one), no NUL.
        json.dumps(json.loads(text, parse_constant=no_constant), ensure_ascii=False).encode()
        return "\\u0000" not in text
    except (ValueError, UnicodeEncodeError):
        return False


def invocations(bundle: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The bundle's top-level keys, and its invocations as the column values to insert: the
    JSON columns as their JSON text (a raw output given as text is that text; a text that is
    not JSON goes into a JSON column as a JSON string, as an agent would have to store it)."""
    data = json.loads(bundle.read_text(), parse_float=Number, parse_int=Number)
    top = {k: v for k, v in data.items() if k != "invocations"}
    rows = []
    for invocation in data["invocations"]:
        values: dict[str, Any] = {}
        for column in COLUMNS:
            value = invocation.get(column)
            if column in ("run_id", "session_id") and value is None:
                value = data.get(column)
            if column == "raw_output" and "raw_output_text" in invocation:
                value = invocation["raw_output_text"]
            elif column in JSON_COLUMNS:
                value = None if value is None else dump(value)
            elif isinstance(value, Number):
                value = int(value.text)
            values[column] = value
        rows.append(values)
    return top, rows


def cli_report(top: dict[str, Any], texts: list[dict[str, Any]]) -> str:
    """What `groundcheck verify --format json` prints for a bundle of the rows as the server
    holds them: each JSON column the server's text of the value (the claim and input as that
    JSON text, the raw output as `raw_output_text`)."""
    parts = []
    for row in texts:
        members = []
        for column in COLUMNS:
            value = row[column]
            if column == "raw_output":
                if value is not None:
                    members.append(f'"raw_output_text": {json.dumps(value)}')
            elif column in JSON_COLUMNS:
                members.append(f'"{column}": {"null" if value is None else value}')
            else:
                members.append(f'"{column}": {json.dumps(value)}')
        parts.append("{" + ", ".join(members) + "}")
    head = "".join(f"{json.dumps(k)}: {dump(v)}, " for k, v in top.items())
    return cli_verify("{" + head + '"invocations": [' + ",\n".join(parts) + "]}")


@functools.cache
def cli_verify(text: str) -> str:
    """`groundcheck verify --format json` of a bundle's text, once per text: the tests read the
    same server texts through several drivers."""
    with tempfile.TemporaryDirectory() as folder:
        bundle = Path(folder) / "as-stored.json"
        bundle.write_text(text)
        done = subprocess.run([BIN, "verify", "--format", "json", str(bundle)], capture_output=True, text=True)
    assert done.returncode in (0, 1), done.stderr
    return done.stdout


def verdicts(report: str) -> list[Any]:
    return [v for run in json.loads(report)["runs"] for v in run["invocations"]]


# --------------------------------------------------------------------------------------------
# The tables, as agents declare them
# --------------------------------------------------------------------------------------------

POSTGRES_TABLE = """CREATE TABLE {table} (
    bundle INT NOT NULL, pos INT NOT NULL,
    id NUMERIC(19,0) NOT NULL, session_id VARCHAR(64), run_id VARCHAR(64), step_id NUMERIC(19,0),
    tool_name VARCHAR(64) NOT NULL, input_params {json}, output_preview TEXT, output_length NUMERIC(12,0),
    retrieval_layer VARCHAR(8), l0_match_count NUMERIC(12,0), l1_match_count NUMERIC(12,0), is_truncated BOOLEAN,
    relevance_level VARCHAR(20), dedup_reason VARCHAR(32), retrieval_details {json}, duration_ms NUMERIC(12,0),
    success BOOLEAN, error_message TEXT, created_at TIMESTAMPTZ, raw_output {json},
    PRIMARY KEY (bundle, pos))"""

MARIADB_TABLE = """CREATE TABLE {table} (
    bundle INT NOT NULL, pos INT NOT NULL,
    id DECIMAL(19,0) NOT NULL, session_id VARCHAR(64), run_id VARCHAR(64), step_id DECIMAL(19,0),
    tool_name VARCHAR(64) NOT NULL, input_params {json}, output_preview LONGTEXT, output_length DECIMAL(12,0),
    retrieval_layer VARCHAR(8), l0_match_count DECIMAL(12,0), l1_match_count DECIMAL(12,0), is_truncated TINYINT(1),
    relevance_level VARCHAR(20), dedup_reason VARCHAR(32), retrieval_details {json}, duration_ms DECIMAL(12,0),
    success TINYINT(1), error_message LONGTEXT, created_at DATETIME(6), raw_output {json},
    PRIMARY KEY (bundle, pos)) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin"""

SQLITE_TABLE = """CREATE TABLE {table} (
    bundle INTEGER NOT NULL, pos INTEGER NOT NULL,
    id INTEGER NOT NULL, session_id TEXT, run_id TEXT, step_id INTEGER, tool_name TEXT NOT NULL,
    input_params TEXT, output_preview TEXT, output_length INTEGER, retrieval_layer TEXT,
    l0_match_count INTEGER, l1_match_count INTEGER, is_truncated BOOLEAN, relevance_level TEXT,
    dedup_reason TEXT, retrieval_details TEXT, duration_ms INTEGER, success BOOLEAN, error_message TEXT,
    created_at TEXT, raw_output TEXT, PRIMARY KEY (bundle, pos))"""


def insert_values(row: dict[str, Any], json_type: str, engine: str, valid: Callable[[str], bool]) -> list[Any]:
    values = []
    for column in COLUMNS:
        value = row[column]
        if column in JSON_COLUMNS and value is not None and json_type.lower() in ("json", "jsonb") and not valid(value):
            value = json.dumps(value)  # text in a JSON column: stored as a JSON string
        if column == "created_at" and value is not None and engine != "sqlite":
            moment = datetime.datetime.fromisoformat(value.replace("Z", "+00:00"))
            value = moment.astimezone(datetime.timezone.utc).replace(tzinfo=None) if engine == "mariadb" else moment
        values.append(value)
    return values


class Table:
    """One engine's table of every bundle's rows, and how to read it back."""

    def __init__(self, engine: str, connection: Any, table: str, json_type: str, marker: str) -> None:
        self.engine, self.connection, self.table, self.json_type, self.marker = engine, connection, table, json_type, marker

    def fill(self) -> None:
        with self.cursor() as cursor:
            columns = "bundle, pos, " + SELECT
            places = ", ".join([self.marker] * (len(COLUMNS) + 2))
            for b, bundle in enumerate(BUNDLES):
                for pos, row in enumerate(invocations(bundle)[1]):
                    cursor.execute(f"INSERT INTO {self.table} ({columns}) VALUES ({places})",
                                   [b, pos, *insert_values(row, self.json_type, self.engine, self.valid)])
        self.connection.commit()

    def valid(self, text: str) -> bool:
        """Whether the table's JSON column takes `text` (MariaDB's JSON_VALID also refuses
        nesting deeper than 32 levels)."""
        if not is_json(text):
            return False
        if self.engine != "mariadb":
            return True
        with self.cursor() as cursor:
            cursor.execute("SELECT JSON_VALID(%s)", [text])
            return bool(cursor.fetchone()[0])

    def cursor(self) -> Any:
        return contextlib.closing(self.connection.cursor())

    def texts(self, b: int) -> list[dict[str, Any]]:
        """Bundle `b`'s rows with each JSON column as the server's text of its value, read by
        SQL (`::text` on PostgreSQL), not by the driver's adapters under test."""
        cast = {"postgres": "{c}::text", "mariadb": "CAST({c} AS CHAR)", "sqlite": "{c}"}[self.engine]
        select = ", ".join(cast.format(c=c) if c in JSON_COLUMNS else c for c in COLUMNS)
        with self.cursor() as cursor:
            cursor.execute(f"SELECT {select} FROM {self.table} WHERE bundle = {self.marker} ORDER BY pos", [b])
            found = cursor.fetchall()
        rows = []
        for values in found:
            row = dict(zip(COLUMNS, values))
            row["created_at"] = None  # not part of a verdict
            for column in COLUMNS:
                if column not in JSON_COLUMNS and row[column] is not None and not isinstance(row[column], (str, bool)):
                    row[column] = int(row[column])
                if column in ("is_truncated", "success") and row[column] is not None:
                    row[column] = bool(row[column])
            rows.append(row)
        return rows


def query(table: str, marker: str) -> str:
    """The documented query: the `tool_invocation` columns by name (a row's keys must all be
    columns), the raw output as `raw_output`."""
    return f"SELECT {SELECT} FROM {table} WHERE bundle = {marker} ORDER BY pos"


def own_table(kind: str) -> str:
    """This process's table for one JSON column type: named for the process, so that suites
    run side by side on the same servers (pytest-xdist's workers, a second checkout) never
    drop or fill each other's table."""
    return f"py_agent_tool_invocation_{kind}_{os.getpid()}"


@pytest.fixture(scope="module", params=["jsonb", "json", "text"])
def postgres(request: pytest.FixtureRequest) -> Iterator[Table]:
    url = server("GROUNDCHECK_TEST_POSTGRES_URL")
    psycopg = driver("psycopg")
    table = own_table(request.param)
    connection = psycopg.connect(url.geturl().replace("postgres://", "postgresql://", 1))
    connection.execute(f"DROP TABLE IF EXISTS {table}")
    connection.execute(POSTGRES_TABLE.format(table=table, json=request.param))
    t = Table("postgres", connection, table, request.param, "%s")
    t.fill()
    yield t
    connection.execute(f"DROP TABLE IF EXISTS {table}")
    connection.commit()
    connection.close()


def mariadb_connect(url: Any, **options: Any) -> Any:
    pymysql = driver("pymysql")
    return pymysql.connect(host=url.hostname, port=url.port or 3306, user=unquote(url.username or ""),
                           password=unquote(url.password or ""), database=url.path.lstrip("/"), charset="utf8mb4", **options)


@pytest.fixture(scope="module", params=["JSON", "LONGTEXT"])
def mariadb(request: pytest.FixtureRequest) -> Iterator[Table]:
    url = server("GROUNDCHECK_TEST_MYSQL_URL")
    table = own_table(request.param.lower())
    connection = mariadb_connect(url)
    with connection.cursor() as cursor:
        cursor.execute(f"DROP TABLE IF EXISTS {table}")
        cursor.execute(MARIADB_TABLE.format(table=table, json=request.param))
    t = Table("mariadb", connection, table, request.param, "%s")
    t.fill()
    t.url = url  # type: ignore[attr-defined]
    yield t
    with connection.cursor() as cursor:
        cursor.execute(f"DROP TABLE IF EXISTS {table}")
    connection.commit()
    connection.close()


# --------------------------------------------------------------------------------------------
# The documented ways (docs/python.md, "Reading rows from a database")
# --------------------------------------------------------------------------------------------


def psycopg_rows(url: str, sql: str, b: int) -> list[Any]:
    import psycopg
    from psycopg.rows import dict_row
    from psycopg.types.string import TextLoader

    with psycopg.connect(url, row_factory=dict_row) as conn:
        for json_type in ("json", "jsonb"):
            conn.adapters.register_loader(json_type, TextLoader)
        return list(conn.execute(sql, (b,)))


def psycopg_rows_naive(url: str, sql: str, b: int) -> list[Any]:
    import psycopg
    from psycopg.rows import dict_row

    with psycopg.connect(url, row_factory=dict_row) as conn:
        return conn.execute(sql, (b,)).fetchall()


def pymysql_rows(url: Any, sql: str, b: int) -> list[Any]:
    import pymysql.cursors

    with mariadb_connect(url, cursorclass=pymysql.cursors.DictCursor) as conn, conn.cursor() as cursor:
        cursor.execute(sql, (b,))
        return list(cursor.fetchall())


def sqlalchemy_postgres_engine(url: str) -> Any:
    import sqlalchemy
    from psycopg.types.string import TextLoader

    engine = sqlalchemy.create_engine(url.replace("postgresql://", "postgresql+psycopg://", 1))

    @sqlalchemy.event.listens_for(engine, "connect")
    def json_as_text(dbapi_connection: Any, _record: Any) -> None:
        for json_type in ("json", "jsonb"):
            dbapi_connection.adapters.register_loader(json_type, TextLoader)

    return engine


def sqlalchemy_mariadb_engine(url: Any) -> Any:
    import sqlalchemy

    return sqlalchemy.create_engine(url.geturl().replace("mysql://", "mysql+pymysql://", 1) + "?charset=utf8mb4")


def sqlalchemy_text_rows(engine: Any, sql: str, b: int) -> list[Any]:
    import sqlalchemy

    with engine.connect() as conn:
        return list(conn.execute(sqlalchemy.text(sql.replace("%s", ":bundle")), {"bundle": b}).mappings())


def sqlalchemy_core_rows(engine: Any, table: str, b: int) -> list[Any]:
    """SQLAlchemy Core over a Table that declares the JSON columns as `JSON` (which
    SQLAlchemy parses itself on MySQL): the documented select reads them as text with
    `type_coerce(column, Text)`."""
    from sqlalchemy import JSON, Column, Integer, MetaData, Table, Text, select, type_coerce

    columns = [Column(c, JSON if c in JSON_COLUMNS else Text) for c in COLUMNS if c != "id"]
    t = Table(table, MetaData(), Column("id", Integer), Column("bundle", Integer), Column("pos", Integer), *columns)
    selected = [type_coerce(t.c[c], Text).label(c) if c in JSON_COLUMNS else t.c[c] for c in COLUMNS]
    with engine.connect() as conn:
        return list(conn.execute(select(*selected).where(t.c.bundle == b).order_by(t.c.pos)).mappings())


def check(table: Table, read: Callable[[int], list[Any]]) -> int:
    """Every bundle's rows read by `read` verify, byte for byte, as `groundcheck verify`
    verifies the server's text of them; returns how many rows were compared."""
    compared = 0
    for b, bundle in enumerate(BUNDLES):
        top, _ = invocations(bundle)
        expected = cli_report(top, table.texts(b))
        rows = read(b)
        assert groundcheck.verify_run(rows).to_json() == expected, bundle.name
        compared += len(rows)
    return compared


def test_postgres_rows_read_by_psycopg_with_text_loaders_give_the_cli_s_verdicts(postgres: Table) -> None:
    url = os.environ["GROUNDCHECK_TEST_POSTGRES_URL"].replace("postgres://", "postgresql://", 1)
    sql = query(postgres.table, "%s")
    assert check(postgres, lambda b: psycopg_rows(url, sql, b)) == 180


def test_postgres_rows_read_by_sqlalchemy_over_psycopg_give_the_cli_s_verdicts(postgres: Table) -> None:
    driver("sqlalchemy")
    engine = sqlalchemy_postgres_engine(os.environ["GROUNDCHECK_TEST_POSTGRES_URL"].replace("postgres://", "postgresql://", 1))
    try:
        sql = query(postgres.table, "%s")
        assert check(postgres, lambda b: sqlalchemy_text_rows(engine, sql, b)) == 180
        assert check(postgres, lambda b: sqlalchemy_core_rows(engine, postgres.table, b)) == 180
    finally:
        engine.dispose()


def test_mariadb_rows_read_by_pymysql_give_the_cli_s_verdicts(mariadb: Table) -> None:
    sql = query(mariadb.table, "%s")
    url = mariadb.url  # type: ignore[attr-defined]
    rows = pymysql_rows(url, sql, 0)
    # As PyMySQL returns them: JSON as str, DECIMAL as Decimal, TINYINT(1) as int.
    assert isinstance(rows[0]["raw_output"], str) and type(rows[0]["id"]).__name__ == "Decimal"
    assert type(rows[0]["success"]) is int
    assert check(mariadb, lambda b: pymysql_rows(url, sql, b)) == 180


def test_mariadb_rows_read_by_sqlalchemy_over_pymysql_give_the_cli_s_verdicts(mariadb: Table) -> None:
    driver("sqlalchemy")
    engine = sqlalchemy_mariadb_engine(mariadb.url)  # type: ignore[attr-defined]
    try:
        sql = query(mariadb.table, "%s")
        assert check(mariadb, lambda b: sqlalchemy_text_rows(engine, sql, b)) == 180
        assert check(mariadb, lambda b: sqlalchemy_core_rows(engine, mariadb.table, b)) == 180
    finally:
        engine.dispose()


def test_sqlite_rows_read_by_sqlite3_give_the_cli_s_verdicts(tmp_path: Path) -> None:
    db = tmp_path / "agent.db"
    connection = sqlite3.connect(db)
    connection.execute(SQLITE_TABLE.format(table="py_agent_tool_invocation"))
    table = Table("sqlite", connection, "py_agent_tool_invocation", "text", "?")
    table.fill()
    reader = sqlite3.connect(db)
    reader.row_factory = sqlite3.Row
    sql = query("py_agent_tool_invocation", "?")
    assert check(table, lambda b: [dict(r) for r in reader.execute(sql, (b,))]) == 180


def test_psycopg_s_default_loaders_change_verdicts(postgres: Table) -> None:
    # What docs/python.md warns about: by default psycopg parses json and jsonb into Python
    # values (0.950 becomes the float 0.95). A `text` column has no loader to change.
    url = os.environ["GROUNDCHECK_TEST_POSTGRES_URL"].replace("postgres://", "postgresql://", 1)
    sql = query(postgres.table, "%s")
    differ, total = [], 0
    for b, bundle in enumerate(BUNDLES):
        top, _ = invocations(bundle)
        expected = verdicts(cli_report(top, postgres.texts(b)))
        naive = [v for run in groundcheck.verify_run(psycopg_rows_naive(url, sql, b)).runs for v in run.invocations]
        for want, got in zip(expected, naive, strict=True):
            total += 1
            if got.to_dict() != want:
                differ.append((bundle.name, want["id"], want["status"], got.status))
    assert total == 180
    if postgres.json_type == "text":
        assert differ == []
    else:
        assert ("09_numbers_as_written.json", 904, "supported", "unsupported") in differ, differ
        assert len(differ) == 18, differ


def test_a_json_null_document_is_not_sql_null() -> None:
    # psycopg's default loader gives None for a jsonb `null` document, as for SQL NULL: the
    # output becomes "no raw output". Read as text, it is the document "null".
    url = server("GROUNDCHECK_TEST_POSTGRES_URL").geturl().replace("postgres://", "postgresql://", 1)
    psycopg = driver("psycopg")
    table = own_table("null")
    details = json.dumps({"evidence_status": "supported", "evidence_refs": [{"raw_path": "$", "text": "null"}]})
    with psycopg.connect(url) as conn:
        conn.execute(f"DROP TABLE IF EXISTS {table}")
        conn.execute(f"CREATE TABLE {table} (id NUMERIC(19,0), tool_name TEXT, retrieval_details jsonb, raw_output jsonb)")
        conn.execute(f"INSERT INTO {table} VALUES (1, 'q', %s, 'null'), (2, 'q', %s, NULL)", (details, details))
        conn.commit()
        try:
            sql = f"SELECT id, tool_name, retrieval_details, raw_output FROM {table} WHERE id > %s ORDER BY id"
            documented = groundcheck.verify_run(psycopg_rows(url, sql, 0)).runs[0].invocations
            naive = groundcheck.verify_run(psycopg_rows_naive(url, sql, 0)).runs[0].invocations
        finally:
            conn.execute(f"DROP TABLE IF EXISTS {table}")
            conn.commit()
    expected = verdicts(cli_report({}, [
        {**dict.fromkeys(COLUMNS), "id": 1, "tool_name": "q", "retrieval_details": details, "raw_output": "null"},
        {**dict.fromkeys(COLUMNS), "id": 2, "tool_name": "q", "retrieval_details": details, "raw_output": None},
    ]))
    assert [v.to_dict() for v in documented] == expected
    assert [(v.status, v.refs[0].outcome) for v in documented] == [("supported", "verified"), ("unsupported", "raw_output_unavailable")]
    assert [v.refs[0].outcome for v in naive] == ["raw_output_unavailable", "raw_output_unavailable"]
