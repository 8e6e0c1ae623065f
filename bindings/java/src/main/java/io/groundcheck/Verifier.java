package io.groundcheck;

import java.io.IOException;
import java.lang.ref.Cleaner;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.Objects;

/**
 * The engine under one policy, built once and shared by every thread of a program: verifying is
 * thread-safe, and a run is verified in parallel on the engine's own threads.
 *
 * <p>A verifier holds native memory (its policy and compiled paths), released by
 * {@link #close()}, or when the verifier is garbage collected if it never was. After
 * {@code close()} every call throws a {@link GroundcheckException} of kind {@code CLOSED}; a call
 * already running when another thread closes the verifier finishes normally. Misuse is an
 * exception, never a crash: the Java object holds a number the native side looks up, not a
 * pointer.
 */
public final class Verifier implements AutoCloseable {
    private static final Cleaner CLEANER = Cleaner.create();

    private final long id;
    private final Policy policy;
    private final Cleaner.Cleanable cleanable;
    private volatile boolean closed;

    /** Forgets the native verifier; holds no reference to the Java object, as a Cleaner needs. */
    private static final class Release implements Runnable {
        private final long id;

        Release(long id) {
            this.id = id;
        }

        @Override
        public void run() {
            Native.destroy(id);
        }
    }

    /** A verifier under the default policy. */
    public Verifier() {
        this(null, null);
    }

    /** A verifier under {@code policy} ({@code null}: the default policy). */
    public Verifier(Policy policy) {
        this(policy, null);
    }

    /**
     * A verifier under {@code policy} that looks up the raw output of rows without one of their
     * own in files named by {@code rawOutputs}, the command line's {@code --raw-outputs}
     * template: {@code /var/lib/agent/sessions/{session_id}/tools/{id}.json}.
     *
     * @throws GroundcheckException {@code TEMPLATE} for a template that is not one
     */
    public Verifier(Policy policy, String rawOutputs) {
        Native.ensureLoaded();
        this.policy = Policy.orDefault(policy);
        byte[] template = rawOutputs == null ? null : Json.utf8(rawOutputs);
        this.id = Long.parseLong(Native.text(Native.create(Json.utf8(this.policy.spec()), template)));
        this.cleanable = CLEANER.register(this, new Release(id));
    }

    /** The policy verdicts are decided under. */
    public Policy policy() {
        return policy;
    }

    private void open() {
        if (closed) {
            throw new GroundcheckException(GroundcheckException.Kind.CLOSED, "the verifier was closed", null);
        }
    }

    /**
     * The verdict of one row.
     *
     * @throws GroundcheckException {@code ROW} for a row that cannot be read, naming the field
     */
    public Verdict verifyInvocation(Row row) {
        Objects.requireNonNull(row, "row");
        return verifyInvocation(row.toJson());
    }

    /** The verdict of one row given as the JSON text of a row object (see {@link Row#ofJson}). */
    public Verdict verifyInvocation(String rowJson) {
        Objects.requireNonNull(rowJson, "rowJson");
        open();
        String verdict = Native.text(Native.verifyInvocation(id, Json.utf8(rowJson)));
        return Verdict.of(Json.parse(verdict));
    }

    /**
     * The report of rows grouped into runs (by {@code run_id}, else {@code session_id}), verified
     * in parallel: what {@code groundcheck verify --format json} prints for a bundle of the same
     * rows.
     *
     * @throws GroundcheckException {@code ROW} for a row that cannot be read, {@code DUPLICATE_ID}
     *     for an id seen twice in one run
     */
    public Report verifyRun(Collection<Row> rows) {
        Objects.requireNonNull(rows, "rows");
        byte[][] texts = new byte[rows.size()][];
        int i = 0;
        for (Row row : rows) {
            texts[i++] = Json.utf8(Objects.requireNonNull(row, "rows[" + (i - 1) + "]").toJson());
        }
        open();
        return Report.of(Native.text(Native.verifyRun(id, texts)));
    }

    /**
     * The report of a bundle's text, as {@code groundcheck verify --format json} prints it.
     *
     * @throws GroundcheckException {@code BUNDLE} for text that is not a bundle
     */
    public Report verifyBundle(String json) {
        Objects.requireNonNull(json, "json");
        open();
        return Report.of(Native.text(Native.verifyBundle(id, Json.utf8(json))));
    }

    /**
     * The report of a bundle file, as {@code groundcheck verify --format json FILE} prints it.
     * The file's bytes go to the engine as they are (it must be UTF-8).
     *
     * @throws GroundcheckException {@code IO} for a file that cannot be read, {@code BUNDLE} for
     *     one that is not a bundle
     */
    public Report verifyBundle(Path file) {
        Objects.requireNonNull(file, "file");
        open();
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (IOException e) {
            throw new GroundcheckException(GroundcheckException.Kind.IO, file + ": " + e.getMessage(), e);
        }
        return Report.of(Native.text(Native.verifyBundle(id, bytes)));
    }

    /**
     * The native verifier's number, checked open: for the tests' and benchmarks' hooks
     * ({@code TestHooks}, in the test sources), which call the library with it.
     */
    long handle() {
        open();
        return id;
    }

    /** Releases the native verifier; later calls throw {@code CLOSED}. Closing twice is harmless. */
    @Override
    public void close() {
        closed = true;
        cleanable.clean();
    }

    @Override
    public String toString() {
        return "Verifier(" + policy + (closed ? ", closed)" : ")");
    }
}
