package io.groundcheck;

import java.util.ArrayList;
import java.util.List;

/**
 * What calling groundcheck from Java costs, as ratios to floors measured in the same run (the
 * same verification in Rust alone, through the same library):
 *
 * <ol>
 *   <li>{@code verifyInvocation} on a row with a 1 KB raw output, against {@code Verifier::verify}
 *       of the same row already read (the JNI crossing, the row's text read as a bundle, the
 *       verdict written as JSON and read back into records);
 *   <li>the same with a row of more than 16 brackets, which goes to the engine's own threads
 *       (the hand-over a deep row costs);
 *   <li>{@code verifyRun} of 50 rows against {@code Verifier::verify_runs} of the same runs
 *       already read;
 *   <li>two threads sharing one verifier against one thread making all the calls.
 * </ol>
 *
 * Run by {@code benches/java/bench.sh} (a release build of the native library).
 */
public final class Bench {
    private Bench() {}

    static Row row(long id, int entries) {
        StringBuilder logs = new StringBuilder("{\"logs\": [");
        for (int i = 0; i < entries; i++) {
            logs.append(i > 0 ? ", " : "").append(String.format(
                    "{\"ts\": \"2026-11-30T10:00:%02dZ\", \"level\": \"ERROR\", "
                            + "\"message\": \"dial tcp 10.0.0.%d:5432: connection refused\"}", i, i));
        }
        return Row.builder()
                .id(id)
                .runId("run-bench")
                .sessionId("sess-bench")
                .toolName("query_logs")
                .retrievalDetails("{\"evidence_status\": \"supported\", \"evidence_refs\": "
                        + "[{\"raw_path\": \"$.logs[7].message\", \"text\": \"connection refused\"}]}")
                .rawOutputText(logs.append("]}").toString())
                .build();
    }

    interface Work {
        void run() throws Exception;
    }

    static double bestSeconds(int rounds, Work work) throws Exception {
        double best = Double.MAX_VALUE;
        for (int r = 0; r < rounds; r++) {
            long started = System.nanoTime();
            work.run();
            best = Math.min(best, (System.nanoTime() - started) / 1e9);
        }
        return best;
    }

    static void perCall(Verifier verifier, Row row, String label, int n) throws Exception {
        for (int i = 0; i < n; i++) {
            verifier.verifyInvocation(row);
        }
        double java = bestSeconds(5, () -> {
            for (int i = 0; i < n; i++) {
                verifier.verifyInvocation(row);
            }
        }) / n;
        double rust = Double.MAX_VALUE;
        for (int r = 0; r < 5; r++) {
            rust = Math.min(rust, TestHooks.timeVerifyInRust(verifier, row, n) / n);
        }
        String verdict = verifier.verifyInvocation(row).toJson();
        double javaSide = bestSeconds(5, () -> {
            for (int i = 0; i < n; i++) {
                Json.utf8(row.toJson());
                Verdict.of(Json.parse(verdict));
            }
        }) / n;
        // The crossing alone: the row's bytes in, a reply out, for a verifier number that does
        // not exist (the native side stops at the lookup).
        byte[] bytes = Json.utf8(row.toJson());
        double crossing = bestSeconds(5, () -> {
            for (int i = 0; i < n; i++) {
                Native.verifyInvocation(-1, bytes);
            }
        }) / n;
        System.out.printf("verifyInvocation, %s: %.1f µs a call from Java, %.1f µs in Rust alone: %.2fx "
                + "(overhead %.1f µs: %.1f µs the JNI crossing with the row's bytes, %.1f µs in Java "
                + "encoding the row and reading the verdict into records, the rest reading the row as a "
                + "bundle and writing the verdict)%n",
                label, java * 1e6, rust * 1e6, java / rust, (java - rust) * 1e6, crossing * 1e6, javaSide * 1e6);
    }

    public static void main(String[] args) throws Exception {
        try (Verifier verifier = new Verifier()) {
            Row small = row(1, 8);
            String output = Json.map(Json.parse(small.toJson())).get("raw_output_text").toString();
            perCall(verifier, small, output.length() + " B raw output, " + small.toJson().length() + " B row", 20_000);
            Row many = row(1, 40);
            perCall(verifier, many, "a 3.7 KB raw output, 46 brackets in the row (handed to the engine's threads)", 20_000);

            List<Row> rows = new ArrayList<>();
            for (int i = 1; i <= 50; i++) {
                rows.add(row(i, 8));
            }
            int n = 500;
            for (int i = 0; i < n; i++) {
                verifier.verifyRun(rows);
            }
            double java = bestSeconds(5, () -> {
                for (int i = 0; i < n; i++) {
                    verifier.verifyRun(rows);
                }
            }) / n;
            double rust = Double.MAX_VALUE;
            for (int r = 0; r < 5; r++) {
                rust = Math.min(rust, TestHooks.timeRunInRust(verifier, rows, n) / n);
            }
            String report = verifier.verifyRun(rows).toJson();
            double javaSide = bestSeconds(5, () -> {
                for (int i = 0; i < n; i++) {
                    for (Row row : rows) {
                        Json.utf8(row.toJson());
                    }
                    Report.of(report);
                }
            }) / n;
            System.out.printf("verifyRun, 50 rows: %.1f µs a run from Java, %.1f µs in Rust alone (verify_runs): "
                    + "%.2fx (overhead %.1f µs, %.2f µs a row; %.1f µs of it in Java encoding the rows and reading "
                    + "the report into records)%n",
                    java * 1e6, rust * 1e6, java / rust, (java - rust) * 1e6, (java - rust) * 1e6 / 50, javaSide * 1e6);

            int calls = 20_000;
            double one = bestSeconds(3, () -> {
                for (int i = 0; i < 2 * calls; i++) {
                    verifier.verifyInvocation(small);
                }
            });
            double two = bestSeconds(3, () -> {
                Thread[] pair = new Thread[2];
                for (int t = 0; t < 2; t++) {
                    pair[t] = new Thread(() -> {
                        for (int i = 0; i < calls; i++) {
                            verifier.verifyInvocation(small);
                        }
                    });
                    pair[t].start();
                }
                for (Thread t : pair) {
                    t.join();
                }
            });
            System.out.printf("two threads, %d verifyInvocation calls: %.2fx one thread doing them all%n",
                    2 * calls, one / two);
        }
    }
}
