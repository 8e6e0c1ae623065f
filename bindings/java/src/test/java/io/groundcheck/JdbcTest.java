package io.groundcheck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Real JDBC clients: rows that {@code groundcheck import} wrote into MariaDB, read back with
 * MariaDB Connector/J, give {@code groundcheck run}'s verdicts; and rows of a PostgreSQL table
 * declared as agents declare it ({@code jsonb} and {@code json} raw outputs, {@code NUMERIC}
 * integers, {@code timestamptz}), read back with the PostgreSQL JDBC driver, give the verdicts
 * {@code groundcheck verify} gives for a bundle holding the server's text of each value. The
 * servers are the test ones of scripts/test-databases.sh, named by GROUNDCHECK_TEST_MYSQL_URL and
 * GROUNDCHECK_TEST_POSTGRES_URL; without them these tests fail (a Java suite that skipped its
 * database tests has not shown what they are for).
 */
class JdbcTest {
    /** The tables the storage tests reset, so the import starts from an empty database. */
    private static final String[] TABLES = {
        "evidence_verification", "tool_invocation_output", "reverify_checkpoint", "tool_invocation",
        "_sqlx_migrations", "groundcheck_migrations"
    };

    @Test
    void rowsReadWithConnectorJGiveTheRunCommandsVerdicts() throws Exception {
        String url = System.getenv("GROUNDCHECK_TEST_MYSQL_URL");
        if (url == null || url.isEmpty()) {
            fail("GROUNDCHECK_TEST_MYSQL_URL is not set: start the test servers "
                    + "(eval \"$(scripts/test-databases.sh start)\") or run scripts/test.sh");
        }
        try (Connection db = connect(url); Statement reset = db.createStatement()) {
            reset.execute("SET FOREIGN_KEY_CHECKS = 0");
            for (String table : TABLES) {
                reset.execute("DROP TABLE IF EXISTS " + table);
            }
            reset.execute("SET FOREIGN_KEY_CHECKS = 1");
        }
        Support.cli("migrate", "--database", url);
        Support.cli("import", "--database", url, Support.ROOT.resolve("fixtures").toString());

        List<Row> rows = new ArrayList<>();
        List<String> runIds = new ArrayList<>();
        try (Connection db = connect(url);
                Statement query = db.createStatement();
                ResultSet rs = query.executeQuery("SELECT t.*, o.raw_output FROM tool_invocation t "
                        + "LEFT JOIN tool_invocation_output o ON o.invocation_id = t.id "
                        + "WHERE t.run_id IS NOT NULL ORDER BY t.id")) {
            while (rs.next()) {
                rows.add(Row.fromResultSet(rs));
                if (!runIds.contains(rs.getString("run_id"))) {
                    runIds.add(rs.getString("run_id"));
                }
            }
        }
        List<String> args = new ArrayList<>(List.of("run", "--database", url, "--format", "json"));
        args.addAll(runIds);
        String expected = Support.cli(args.toArray(new String[0]));
        Map<Long, String> byId = new HashMap<>();
        for (String verdict : Support.compactVerdicts(expected)) {
            byId.put(Json.num(Json.map(Json.parse(verdict)).get("id")), verdict);
        }

        try (Verifier verifier = new Verifier()) {
            Report report = verifier.verifyRun(rows);
            List<Verdict> verdicts = report.verdicts();
            assertTrue(verdicts.size() > 100, "only " + verdicts.size() + " verdicts");
            assertEquals(byId.size(), verdicts.size());
            for (Verdict v : verdicts) {
                assertEquals(byId.get(v.id()), v.toJson(), "invocation " + v.id());
            }
            // One row at a time, as a Verifier stage sees them, gives the same verdicts.
            for (Row row : rows.subList(0, 40)) {
                Verdict one = verifier.verifyInvocation(row);
                assertEquals(byId.get(one.id()), one.toJson(), "invocation " + one.id());
            }
        }
    }

    /**
     * How one engine declares an agent's table and writes values into it: the table's columns,
     * the two raw output columns (each of another type), how a parameter is cast to a column's
     * type ({@code %s} the parameter), and how a value is read back as the server's text.
     */
    private record Dialect(String columns, List<String> raws, String numeric, String json, Map<String, String> rawCast,
            String createdAt, String text) {
        String cast(String format) {
            return String.format(format, "?");
        }
    }

    /** PostgreSQL: jsonb and json raw outputs, NUMERIC integers, timestamptz. */
    private static final Dialect POSTGRES = new Dialect(
            "(id BIGINT PRIMARY KEY, session_id TEXT, run_id TEXT, step_id NUMERIC(12,0), tool_name TEXT NOT NULL, "
                    + "input_params JSONB, output_preview TEXT, output_length NUMERIC(12,0), is_truncated BOOLEAN, "
                    + "retrieval_details JSONB, duration_ms NUMERIC(12,0), success BOOLEAN, error_message TEXT, "
                    + "created_at TIMESTAMPTZ, raw_jsonb JSONB, raw_json JSON)",
            List.of("raw_jsonb", "raw_json"), "%s::numeric", "%s::jsonb",
            Map.of("raw_jsonb", "%s::jsonb", "raw_json", "%s::json"), "'2026-11-30 10:00:01.5+00'::timestamptz",
            "%s::text");

    /** MariaDB: JSON and LONGTEXT raw outputs, DECIMAL integers, TINYINT(1) booleans, DATETIME(6). */
    private static final Dialect MARIADB = new Dialect(
            "(id BIGINT PRIMARY KEY, session_id VARCHAR(255), run_id VARCHAR(255), step_id DECIMAL(12,0), "
                    + "tool_name VARCHAR(255) NOT NULL, input_params JSON, output_preview LONGTEXT, "
                    + "output_length DECIMAL(12,0), is_truncated TINYINT(1), retrieval_details JSON, "
                    + "duration_ms DECIMAL(12,0), success TINYINT(1), error_message TEXT, created_at DATETIME(6), "
                    + "raw_json JSON, raw_longtext LONGTEXT) CHARACTER SET utf8mb4",
            List.of("raw_json", "raw_longtext"), "%s", "%s", Map.of("raw_json", "%s", "raw_longtext", "%s"),
            "'2026-11-30 10:00:01.5'", "CAST(%s AS CHAR)");

    /** The columns a verdict reads, for the rows and (cast to text) for the bundle. */
    private static final String VERDICT_COLUMNS = "id, tool_name, output_preview, output_length, is_truncated, "
            + "retrieval_details, success, error_message";

    @Test
    void rowsReadWithThePostgresqlDriverGiveVerifysVerdictsForTheServersText(
            @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        try (Connection db = connectPostgres(url("GROUNDCHECK_TEST_POSTGRES_URL"))) {
            // jsonb is PostgreSQL's normalised text: keys reordered, 1e3 written 1000, 0.950 kept.
            try (Statement q = db.createStatement();
                    ResultSet rs = q.executeQuery("SELECT '{\"n\": 1e3, \"ratio\": 0.950, \"b\": 1, \"a\": 2}'::jsonb")) {
                assertTrue(rs.next());
                assertEquals("{\"a\": 2, \"b\": 1, \"n\": 1000, \"ratio\": 0.950}", rs.getString(1));
            }
            agentTableAgreesWithVerify(db, POSTGRES, dir);
        }
    }

    @Test
    void rowsOfAnAgentsMariadbTableReadWithConnectorJGiveVerifysVerdictsForTheServersText(
            @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        try (Connection db = connect(url("GROUNDCHECK_TEST_MYSQL_URL"))) {
            agentTableAgreesWithVerify(db, MARIADB, dir);
        }
    }

    private static String url(String variable) {
        String url = System.getenv(variable);
        if (url == null || url.isEmpty()) {
            fail(variable + " is not set: start the test servers "
                    + "(eval \"$(scripts/test-databases.sh start)\") or run scripts/test.sh");
        }
        return url;
    }

    /**
     * An agent's table in {@code dialect}, filled with the fixtures, agrees with
     * {@code groundcheck verify} through each of its raw output columns.
     */
    private static void agentTableAgreesWithVerify(Connection db, Dialect dialect, java.nio.file.Path dir)
            throws Exception {
        // A table of this test's own: the storage tests reset groundcheck's tables at any time.
        String table = "java_jdbc_agent_" + ProcessHandle.current().pid();
        try (Statement ddl = db.createStatement()) {
            ddl.execute("DROP TABLE IF EXISTS " + table);
            ddl.execute("CREATE TABLE " + table + " " + dialect.columns());
        }
        try {
            int rowsFilled = fill(db, table, dialect);
            assertTrue(rowsFilled > 100, "only " + rowsFilled + " rows");
            for (String raw : dialect.raws()) {
                int checked = agreeWithVerify(db, table, raw, dialect, dir);
                assertTrue(checked > 100, raw + ": only " + checked + " verdicts");
            }
        } finally {
            try (Statement ddl = db.createStatement()) {
                ddl.execute("DROP TABLE IF EXISTS " + table);
            }
        }
    }

    /**
     * The invocations of the shipped fixtures, written into {@code table} (ids renumbered); a
     * raw output that is not JSON is NULL in the column that cannot hold it. The row count.
     */
    private static int fill(Connection db, String table, Dialect d) throws Exception {
        int id = 0;
        String insert = "INSERT INTO " + table + " (id, session_id, run_id, step_id, tool_name, output_preview, "
                + "output_length, is_truncated, retrieval_details, duration_ms, success, error_message, created_at) "
                + "VALUES (?, ?, ?, " + d.cast(d.numeric()) + ", ?, ?, " + d.cast(d.numeric()) + ", ?, "
                + d.cast(d.json()) + ", " + d.cast(d.numeric()) + ", ?, ?, " + d.createdAt() + ")";
        String first = d.raws().get(0);
        String second = d.raws().get(1);
        try (java.sql.PreparedStatement row = db.prepareStatement(insert);
                java.sql.PreparedStatement jsonb = db.prepareStatement(
                        "UPDATE " + table + " SET " + first + " = " + d.cast(d.rawCast().get(first)) + " WHERE id = ?");
                java.sql.PreparedStatement json = db.prepareStatement(
                        "UPDATE " + table + " SET " + second + " = " + d.cast(d.rawCast().get(second)) + " WHERE id = ?")) {
            for (java.nio.file.Path fixture : Support.fixtures()) {
                if (!fixture.getParent().equals(Support.ROOT.resolve("fixtures"))) {
                    continue;
                }
                Object bundle;
                try {
                    bundle = Json.parse(java.nio.file.Files.readString(fixture));
                } catch (GroundcheckException e) {
                    continue; // nested deeper than this reader goes
                }
                Object invocations = Json.map(bundle).get("invocations");
                if (!(invocations instanceof List)) {
                    continue;
                }
                for (Object item : Json.list(invocations)) {
                    Map<String, Object> m = Json.map(item);
                    id++;
                    row.setLong(1, id);
                    row.setObject(2, m.get("session_id") instanceof String ? m.get("session_id") : null);
                    row.setString(3, fixture.getFileName().toString());
                    row.setString(4, number(m.get("step_id")));
                    row.setString(5, m.get("tool_name") instanceof String ? (String) m.get("tool_name") : "tool");
                    row.setObject(6, m.get("output_preview") instanceof String ? m.get("output_preview") : null);
                    row.setString(7, number(m.get("output_length")));
                    row.setObject(8, m.get("is_truncated") instanceof Boolean ? m.get("is_truncated") : null);
                    row.setString(9, m.get("retrieval_details") == null ? null : Json.write(m.get("retrieval_details")));
                    row.setString(10, number(m.get("duration_ms")));
                    row.setObject(11, m.get("success") instanceof Boolean ? m.get("success") : null);
                    row.setObject(12, m.get("error_message") instanceof String ? m.get("error_message") : null);
                    row.executeUpdate();
                    String text = m.get("raw_output_text") instanceof String ? (String) m.get("raw_output_text")
                            : m.get("raw_output") != null ? Json.write(m.get("raw_output")) : null;
                    if (text != null) {
                        for (java.sql.PreparedStatement set : List.of(jsonb, json)) {
                            set.setString(1, text);
                            set.setLong(2, id);
                            try {
                                set.executeUpdate();
                            } catch (java.sql.SQLException notJson) {
                                // Not JSON to this type (a YAML or plain-text output): left NULL.
                            }
                        }
                    }
                }
            }
            // A quote that begins with the JSON syntax's own quote: the column's text is the
            // output, where "OOMKilled is not found at $ (in a JSON string holding it, it would be).
            id++;
            row.setLong(1, id);
            row.setString(5, "kubectl_get_pod");
            row.setString(9, Support.claim("$", "\"OOMKilled"));
            for (int column : new int[] {2, 4, 6, 7, 8, 10, 11, 12}) {
                row.setObject(column, null);
            }
            row.executeUpdate();
            for (java.sql.PreparedStatement set : List.of(jsonb, json)) {
                set.setString(1, "{\"reason\": \"OOMKilled\", \"exit_code\": 137}");
                set.setLong(2, id);
                set.executeUpdate();
            }
        }
        return id;
    }

    private static String number(Object value) {
        return value instanceof java.math.BigDecimal ? value.toString() : null;
    }

    /**
     * The table's rows with {@code raw} as their raw output, read with {@link Row#fromResultSet},
     * against {@code groundcheck verify} of a bundle holding the server's text of each column;
     * the verdicts compared.
     */
    private static int agreeWithVerify(Connection db, String table, String raw, Dialect d, java.nio.file.Path dir)
            throws Exception {
        List<Row> rows = new ArrayList<>();
        try (Statement q = db.createStatement();
                ResultSet rs = q.executeQuery("SELECT " + VERDICT_COLUMNS + ", session_id, run_id, step_id, "
                        + "input_params, duration_ms, created_at, " + raw + " AS raw_output FROM " + table
                        + " ORDER BY id")) {
            while (rs.next()) {
                rows.add(Row.fromResultSet(rs));
            }
        }
        StringBuilder bundle = new StringBuilder("{\"invocations\": [");
        try (Statement q = db.createStatement();
                ResultSet rs = q.executeQuery("SELECT id, tool_name, output_preview, "
                        + String.format(d.text(), "output_length") + ", is_truncated, "
                        + String.format(d.text(), "retrieval_details") + ", success, error_message, "
                        + String.format(d.text(), raw) + " FROM " + table + " ORDER BY id")) {
            boolean first = true;
            while (rs.next()) {
                bundle.append(first ? "" : ",\n").append("{\"id\": ").append(rs.getLong(1)).append(", \"tool_name\": ");
                first = false;
                Json.quote(rs.getString(2), bundle);
                member(bundle, "output_preview", rs.getString(3), true);
                member(bundle, "output_length", rs.getString(4), false);
                member(bundle, "is_truncated", flag(rs.getObject(5)), false);
                member(bundle, "retrieval_details", rs.getString(6), false);
                member(bundle, "success", flag(rs.getObject(7)), false);
                member(bundle, "error_message", rs.getString(8), true);
                member(bundle, "raw_output_text", rs.getString(9), true);
                bundle.append('}');
            }
        }
        java.nio.file.Path file = dir.resolve(raw + ".json");
        java.nio.file.Files.writeString(file, bundle.append("]}").toString());
        String expected = Support.cli("verify", "--format", "json", file.toString());
        Map<Long, String> byId = new HashMap<>();
        for (String verdict : Support.compactVerdicts(expected)) {
            byId.put(Json.num(Json.map(Json.parse(verdict)).get("id")), verdict);
        }
        try (Verifier verifier = new Verifier()) {
            List<Verdict> verdicts = verifier.verifyRun(rows).verdicts();
            assertEquals(byId.size(), verdicts.size());
            for (Verdict v : verdicts) {
                assertEquals(byId.get(v.id()), v.toJson(), raw + ": row " + v.id());
            }
            for (Row row : rows) {
                Verdict one = verifier.verifyInvocation(row);
                assertEquals(byId.get(one.id()), one.toJson(), raw + ": row " + one.id());
            }
            Verdict last = verifier.verifyInvocation(rows.get(rows.size() - 1));
            assertEquals(rows.size(), last.id());
            assertEquals(Status.UNSUPPORTED, last.status(), raw + ": " + last.toJson());
            assertEquals(Outcome.TEXT_NOT_FOUND, last.refs().get(0).outcome());
            return verdicts.size();
        }
    }

    /** A boolean column's value as JSON ({@code true}, {@code false}), stored as a boolean or 0 and 1. */
    private static String flag(Object value) {
        if (value instanceof Number) {
            return Boolean.toString(((Number) value).longValue() != 0);
        }
        return value == null ? null : value.toString();
    }

    /** {@code , "name": value} (quoted when {@code quote}, else the value's JSON text); nothing for null. */
    private static void member(StringBuilder out, String name, String value, boolean quote) {
        if (value == null) {
            return;
        }
        out.append(", ");
        Json.quote(name, out);
        out.append(": ");
        if (quote) {
            Json.quote(value, out);
        } else {
            out.append(value);
        }
    }

    /** {@code postgres://user:password@host:port/db} as a PostgreSQL JDBC connection. */
    static Connection connectPostgres(String url) throws Exception {
        URI uri = URI.create(url);
        String[] user = uri.getRawUserInfo().split(":", 2);
        String jdbc = "jdbc:postgresql://" + uri.getHost() + ":" + uri.getPort() + uri.getPath();
        return DriverManager.getConnection(jdbc, decode(user[0]), user.length > 1 ? decode(user[1]) : "");
    }

    /** {@code mysql://user:password@host:port/db} as a Connector/J connection. */
    static Connection connect(String url) throws Exception {
        URI uri = URI.create(url);
        String[] user = uri.getRawUserInfo().split(":", 2);
        String jdbc = "jdbc:mariadb://" + uri.getHost() + ":" + uri.getPort() + uri.getPath();
        return DriverManager.getConnection(jdbc, decode(user[0]), user.length > 1 ? decode(user[1]) : "");
    }

    private static String decode(String s) {
        return URLDecoder.decode(s, StandardCharsets.UTF_8);
    }
}
