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
 * A real JDBC client: rows that {@code groundcheck import} wrote into MariaDB, read back with
 * MariaDB Connector/J, give {@code groundcheck run}'s verdicts. The server is the test one of
 * scripts/test-databases.sh, named by GROUNDCHECK_TEST_MYSQL_URL; without it this test fails
 * (a Java suite that skipped its database test has not shown what it is for).
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
