package io.groundcheck;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A run's counts, which always add up: every invocation has one status.
 *
 * @param invocations how many invocations the run has
 * @param supported how many are {@code supported}
 * @param unsupported how many are {@code unsupported}
 * @param noEvidence how many are {@code no_evidence}
 * @param claimMismatches how many claimed a status the evidence does not give
 */
public record Summary(long invocations, long supported, long unsupported, long noEvidence, long claimMismatches) {
    static Summary of(Object value) {
        Map<String, Object> m = Json.map(value);
        return new Summary(
                Json.num(m.get("invocations")),
                Json.num(m.get("supported")),
                Json.num(m.get("unsupported")),
                Json.num(m.get("no_evidence")),
                Json.num(m.get("claim_mismatches")));
    }

    Map<String, Object> tree() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("invocations", invocations);
        m.put("supported", supported);
        m.put("unsupported", unsupported);
        m.put("no_evidence", noEvidence);
        m.put("claim_mismatches", claimMismatches);
        return m;
    }
}
