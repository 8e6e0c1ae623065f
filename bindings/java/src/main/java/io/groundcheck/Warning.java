package io.groundcheck;

import java.util.Locale;

/**
 * Something worth knowing about an invocation that did not decide its verdict.
 */
public enum Warning {
    /** A text was not UTF-8 and was read lossily. */
    INVALID_UTF8,
    /** The raw-outputs template would have named a file outside its folders. */
    RAW_OUTPUT_PATH_UNSAFE,
    /** No raw-output file at the template's path. */
    RAW_OUTPUT_MISSING,
    /** The raw-output file could not be read. */
    RAW_OUTPUT_UNREADABLE,
    /** The no-evidence marker came with real refs. */
    MARKER_WITH_REFS,
    /** A ref was decided on the JSON Lines view of an output that is not JSON. */
    READ_AS_JSON_LINES,
    /** A ref was decided on the YAML view of an output that is not JSON. */
    READ_AS_YAML,
    /** A path selected values only inside a string holding JSON. */
    DESCENDED_INTO_STRING;

    /** The name as the report writes it: {@code invalid_utf8}. */
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The constant a report's name stands for. */
    static Warning of(String wireName) {
        try {
            return valueOf(wireName.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException | NullPointerException e) {
            throw new GroundcheckException("groundcheck: unknown Warning in a report: " + wireName);
        }
    }
}
