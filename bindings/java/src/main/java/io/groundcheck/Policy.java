package io.groundcheck;

import java.math.BigDecimal;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * How verdicts are decided: {@code require} ({@code "all"} or {@code "any"} real refs verified),
 * {@code match} (the loosest rung accepted: {@code "exact"}, {@code "normalized"},
 * {@code "elided"}, {@code "fuzzy"}), {@code minScore} (the fuzzy rung's threshold, 0.001 to 1,
 * at most three decimals) and the {@link Limits} — the command line's {@code --require},
 * {@code --match}, {@code --min-score} and limits. Immutable; built with {@link #builder()} and
 * checked by the engine's own parsers at {@link Builder#build()}, so a bad value fails there,
 * never at first use.
 */
public final class Policy {
    private static volatile Policy defaults;

    private final String require;
    private final String match;
    private final String minScore;
    private final String key;
    private final Limits limits;
    private final String spec;

    private Policy(String described) {
        Map<String, Object> m = Json.map(Json.parse(described));
        this.require = Json.str(m.get("require"));
        this.match = Json.str(m.get("match"));
        this.minScore = Json.str(m.get("min_score"));
        this.key = Json.str(m.get("key"));
        this.limits = Limits.of(m.get("limits"));
        Map<String, Object> spec = new LinkedHashMap<>();
        spec.put("require", require);
        spec.put("match", match);
        spec.put("min_score", minScore);
        spec.put("limits", m.get("limits"));
        this.spec = Json.write(spec);
    }

    /** The command line's defaults: {@code require all}, {@code match elided}, {@code min_score 0.900}. */
    public static Policy defaults() {
        Policy p = defaults;
        if (p == null) {
            p = builder().build();
            defaults = p;
        }
        return p;
    }

    /** A builder starting from the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /** {@code "all"} or {@code "any"}. */
    public String require() {
        return require;
    }

    /** The loosest rung accepted, as named on the command line. */
    public String match() {
        return match;
    }

    /** The loosest rung accepted. */
    public Rung rung() {
        return Rung.of(match);
    }

    /** The fuzzy rung's threshold, as text with three decimals ({@code "0.900"}). */
    public String minScore() {
        return minScore;
    }

    /** The input bounds. */
    public Limits limits() {
        return limits;
    }

    /** The policy's name, as stored verdicts are keyed: {@code require=all;match=elided}. */
    public String key() {
        return key;
    }

    /** The policy as the native library reads it. */
    String spec() {
        return spec;
    }

    /** Policies are equal when they decide alike: same key, score and limits. */
    @Override
    public boolean equals(Object other) {
        return other instanceof Policy && ((Policy) other).spec.equals(spec);
    }

    @Override
    public int hashCode() {
        return spec.hashCode();
    }

    @Override
    public String toString() {
        return "Policy(" + key + ", min_score=" + minScore + ", " + limits + ")";
    }

    /**
     * Collects a policy's values; {@link #build()} checks them. A {@code null} argument puts the
     * default back.
     */
    public static final class Builder {
        private String require;
        private String match;
        private String minScore;
        private final Map<String, Object> limits = new LinkedHashMap<>();

        private Builder() {}

        /** {@code "all"} (the default) or {@code "any"}. */
        public Builder require(String require) {
            this.require = require;
            return this;
        }

        /** The loosest rung accepted: {@code "exact"}, {@code "normalized"}, {@code "elided"} (the default), {@code "fuzzy"}. */
        public Builder match(String match) {
            this.match = match;
            return this;
        }

        /** The loosest rung accepted. */
        public Builder match(Rung rung) {
            this.match = rung == null ? null : rung.wireName();
            return this;
        }

        /** The fuzzy rung's threshold as text: {@code "0.9"}; 0.001 to 1, at most three decimals. */
        public Builder minScore(String minScore) {
            this.minScore = minScore;
            return this;
        }

        /** The fuzzy rung's threshold; its text decides ({@code new BigDecimal("0.9")}). */
        public Builder minScore(BigDecimal minScore) {
            this.minScore = minScore == null ? null : minScore.toPlainString();
            return this;
        }

        /** Raw output text size, in bytes; at least 1. */
        public Builder maxOutputBytes(long n) {
            limits.put("max_output_bytes", n);
            return this;
        }

        /** JSON nesting depth of a raw document; at least 1. */
        public Builder maxDepth(long n) {
            limits.put("max_depth", n);
            return this;
        }

        /** Length of a ref's {@code text}, in characters; at least 1. */
        public Builder maxTextChars(long n) {
            limits.put("max_text_chars", n);
            return this;
        }

        /** Length of a trimmed {@code raw_path}, in characters; at least 1. */
        public Builder maxPathChars(long n) {
            limits.put("max_path_chars", n);
            return this;
        }

        /** Nodes one query may select; at least 1. */
        public Builder maxNodes(long n) {
            limits.put("max_nodes", n);
            return this;
        }

        /** Refs read per invocation; at least 1. */
        public Builder maxRefs(long n) {
            limits.put("max_refs", n);
            return this;
        }

        /**
         * The policy, checked by the engine.
         *
         * @throws GroundcheckException {@code UNKNOWN_NAME} for a bad {@code require} or
         *     {@code match}, {@code SCORE} for a bad {@code minScore}, {@code LIMIT} for a limit
         *     below 1
         */
        public Policy build() {
            Native.ensureLoaded();
            Map<String, Object> spec = new LinkedHashMap<>();
            spec.put("require", require);
            spec.put("match", match);
            spec.put("min_score", minScore);
            spec.put("limits", limits);
            return new Policy(Native.text(Native.checkPolicy(Json.utf8(Json.write(spec)))));
        }
    }

    /** The default policy when {@code policy} is null. */
    static Policy orDefault(Policy policy) {
        return Objects.requireNonNullElseGet(policy, Policy::defaults);
    }
}
