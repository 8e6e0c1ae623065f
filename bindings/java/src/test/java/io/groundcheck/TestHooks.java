package io.groundcheck;

import java.util.ArrayList;
import java.util.List;

/**
 * The native library's test and bench hooks, declared here in the test sources so that the
 * jar users get carries none: their exports ({@code Java_io_groundcheck_TestHooks_*}) exist
 * only in a library built with the cargo feature {@code test-hooks} of
 * {@code crates/groundcheck-jni} (scripts/test.sh's debug build, benches/java). The release jar's
 * library lacks them, so a JVM that loaded it gets an {@link UnsatisfiedLinkError} here.
 *
 * <p>Run as a program, it is the probe {@code ErrorsTest} starts in a JVM of its own over the
 * hooks library: it makes the library panic, then verifies a row, and prints what happened.
 */
public final class TestHooks {
    private TestHooks() {}

    static native byte[] panicForTest(byte[] message);

    static native byte[] timeVerify(long id, byte[] row, int n);

    static native byte[] timeRun(long id, byte[][] rows, int n);

    /** Panics inside the native library, to show that a panic is an exception. */
    static void panic(String message) {
        Native.ensureLoaded();
        Native.text(panicForTest(Json.utf8(message)));
    }

    /** Seconds for {@code n} verifications of {@code row} in Rust alone (benchmarks). */
    static double timeVerifyInRust(Verifier verifier, Row row, int n) {
        return Double.parseDouble(Native.text(timeVerify(verifier.handle(), Json.utf8(row.toJson()), n)));
    }

    /** Seconds for {@code n} reports of {@code rows} in Rust alone (benchmarks). */
    static double timeRunInRust(Verifier verifier, List<Row> rows, int n) {
        List<byte[]> texts = new ArrayList<>();
        for (Row row : rows) {
            texts.add(Json.utf8(row.toJson()));
        }
        return Double.parseDouble(Native.text(timeRun(verifier.handle(), texts.toArray(new byte[0][]), n)));
    }

    /**
     * Prints the panic's exception ({@code KIND message}), then the status of a row verified
     * after it, on two lines.
     */
    public static void main(String[] args) {
        try {
            panic(args.length > 0 ? args[0] : "boom");
            System.out.println("no exception");
        } catch (GroundcheckException e) {
            System.out.println(e.kind() + " " + e.getMessage());
        }
        try (Verifier verifier = new Verifier()) {
            Row row = Row.builder()
                    .id(1)
                    .toolName("query_logs")
                    .retrievalDetails("{\"evidence_refs\": [{\"raw_path\": \"$.logs[0]\", \"text\": \"refused\"}]}")
                    .rawOutputText("{\"logs\": [\"dial tcp: connection refused\"]}")
                    .build();
            System.out.println(verifier.verifyInvocation(row).status());
        }
    }
}
