package io.groundcheck;

import java.util.Locale;

/**
 * An invocation's verdict. {@code NO_EVIDENCE} means "no evidence found by this tool", never "the fault is absent".
 */
public enum Status {
    /** The claimed evidence holds in the raw output. */
    SUPPORTED,
    /** Evidence was claimed and does not hold, or the claim cannot be read. */
    UNSUPPORTED,
    /** The tool found no evidence, and claimed none. */
    NO_EVIDENCE;

    /** The name as the report writes it: {@code supported}. */
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The constant a report's name stands for. */
    static Status of(String wireName) {
        try {
            return valueOf(wireName.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException | NullPointerException e) {
            throw new GroundcheckException("groundcheck: unknown Status in a report: " + wireName);
        }
    }
}
