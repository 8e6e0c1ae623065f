package io.groundcheck;

import java.util.Locale;

/**
 * Where an invocation's raw document came from.
 */
public enum Source {
    /** The row's own raw output. */
    RAW_OUTPUT,
    /** A file named by the verifier's raw-outputs template. */
    FILE,
    /** The preview, provably complete. */
    PREVIEW,
    /** Nowhere: the raw output is unavailable. */
    NONE;

    /** The name as the report writes it: {@code raw_output}. */
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The constant a report's name stands for. */
    static Source of(String wireName) {
        try {
            return valueOf(wireName.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException | NullPointerException e) {
            throw new GroundcheckException("groundcheck: unknown Source in a report: " + wireName);
        }
    }
}
