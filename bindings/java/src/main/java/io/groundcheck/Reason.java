package io.groundcheck;

import java.util.Locale;

/**
 * Why an invocation got its status: the rule of the classification table that decided it.
 */
public enum Reason {
    /** {@code retrieval_details} cannot be read as a claim. */
    MALFORMED_DETAILS,
    /** Evidence was claimed with no ref to check. */
    CLAIMED_WITHOUT_REFS,
    /** The tool call failed, so its output holds no evidence. */
    TOOL_FAILED,
    /** The agent marked the call as having no evidence. */
    NO_EVIDENCE_MARKER,
    /** No refs, and no claim of evidence. */
    NO_REFS,
    /** Every real ref (or one, under {@code require any}) verified. */
    VERIFIED,
    /** Some real refs verified, not enough. */
    PARTIALLY_VERIFIED,
    /** No real ref verified. */
    NOT_VERIFIED;

    /** The name as the report writes it: {@code malformed_details}. */
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The constant a report's name stands for. */
    static Reason of(String wireName) {
        try {
            return valueOf(wireName.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException | NullPointerException e) {
            throw new GroundcheckException("groundcheck: unknown Reason in a report: " + wireName);
        }
    }
}
