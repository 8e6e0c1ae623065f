package io.groundcheck;

import java.util.Locale;

/**
 * What became of one evidence ref.
 */
public enum Outcome {
    /** The quote was found under the path. */
    VERIFIED,
    /** The quote is empty. */
    EMPTY_TEXT,
    /** There is no raw output to check against. */
    RAW_OUTPUT_UNAVAILABLE,
    /** The path is neither JSONPath nor a JSON Pointer. */
    INVALID_PATH,
    /** The path selects nothing. */
    PATH_NOT_FOUND,
    /** The path selects values, none holding the quote. */
    TEXT_NOT_FOUND,
    /** The ref is not an object with a string {@code raw_path} and {@code text}. */
    MALFORMED_REF,
    /** Not checked (the invocation was decided before its refs were). */
    NOT_CHECKED,
    /** The no-evidence marker {@code $.no_evidence}. */
    NO_EVIDENCE_MARKER,
    /** A limit of the policy was hit. */
    LIMIT_EXCEEDED;

    /** The name as the report writes it: {@code verified}. */
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The constant a report's name stands for. */
    static Outcome of(String wireName) {
        try {
            return valueOf(wireName.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException | NullPointerException e) {
            throw new GroundcheckException("groundcheck: unknown Outcome in a report: " + wireName);
        }
    }
}
