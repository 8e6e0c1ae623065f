package io.groundcheck;

import java.util.Locale;

/**
 * A rung of the match ladder: how loosely a quote matched (or, in a policy, the loosest accepted).
 */
public enum Rung {
    /** Character for character. */
    EXACT,
    /** After NFKC, folded quotes and dashes, lower case and collapsed white space. */
    NORMALIZED,
    /** Normalized, with {@code ...} standing for any text between the parts. */
    ELIDED,
    /** A near miss at or above the policy's {@code min_score}. */
    FUZZY;

    /** The name as the report writes it: {@code exact}. */
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The constant a report's name stands for. */
    static Rung of(String wireName) {
        try {
            return valueOf(wireName.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException | NullPointerException e) {
            throw new GroundcheckException("groundcheck: unknown Rung in a report: " + wireName);
        }
    }
}
