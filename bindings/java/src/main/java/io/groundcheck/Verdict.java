package io.groundcheck;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One invocation's verdict: its status, the reason that decided it, the claimed status and
 * whether it agrees, where the raw document came from, every ref, and warnings.
 *
 * @param id the row's {@code id}
 * @param toolName the row's {@code tool_name}
 * @param status the verdict
 * @param reason the rule that decided it
 * @param claimedStatus the agent's {@code evidence_status}, verbatim, or {@code null}
 * @param claimAgrees whether the claim agrees with the status, or {@code null} without a claim
 * @param source where the raw document came from
 * @param refs every ref, in input order
 * @param warnings the invocation's warnings, in the report's order
 */
public record Verdict(
        long id,
        String toolName,
        Status status,
        Reason reason,
        String claimedStatus,
        Boolean claimAgrees,
        Source source,
        List<RefReport> refs,
        List<Warning> warnings) {

    /** Copies the lists, so a verdict cannot change after it was made. */
    public Verdict {
        refs = List.copyOf(refs);
        warnings = List.copyOf(warnings);
    }

    /** Whether the agent claimed a status the evidence does not give. */
    public boolean isClaimMismatch() {
        return Boolean.FALSE.equals(claimAgrees);
    }

    static Verdict of(Object value) {
        Map<String, Object> m = Json.map(value);
        List<RefReport> refs = new ArrayList<>();
        for (Object ref : Json.list(m.get("refs"))) {
            refs.add(RefReport.of(ref));
        }
        List<Warning> warnings = new ArrayList<>();
        for (Object w : Json.list(m.get("warnings"))) {
            warnings.add(Warning.of(Json.str(w)));
        }
        return new Verdict(
                Json.num(m.get("id")),
                Json.str(m.get("tool_name")),
                Status.of(Json.str(m.get("status"))),
                Reason.of(Json.str(m.get("reason"))),
                Json.str(m.get("claimed_status")),
                (Boolean) m.get("claim_agrees"),
                Source.of(Json.str(m.get("source"))),
                refs,
                warnings);
    }

    Map<String, Object> tree() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", id);
        m.put("tool_name", toolName);
        m.put("status", status.wireName());
        m.put("reason", reason.wireName());
        m.put("claimed_status", claimedStatus);
        m.put("claim_agrees", claimAgrees);
        m.put("source", source.wireName());
        List<Object> refList = new ArrayList<>();
        for (RefReport ref : refs) {
            refList.add(ref.tree());
        }
        m.put("refs", refList);
        List<Object> warningList = new ArrayList<>();
        for (Warning w : warnings) {
            warningList.add(w.wireName());
        }
        m.put("warnings", warningList);
        return m;
    }

    /**
     * The invocation object of the report schema as compact JSON: the bytes the engine writes
     * for it ({@code serde_json::to_string}), numbers as written (a score is {@code 0.900}).
     */
    public String toJson() {
        return Json.write(tree());
    }
}
