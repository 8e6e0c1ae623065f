package io.groundcheck;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One run's verdicts, ordered by invocation id, with its summary. Rows without a
 * {@code run_id} are grouped by {@code session_id} under a run whose {@code runId} is null.
 *
 * @param runId the run's {@code run_id}, or {@code null}
 * @param sessionId the session of the run's first invocation (in input order), or {@code null}
 * @param summary the run's counts
 * @param invocations the verdicts, by id
 */
public record RunReport(String runId, String sessionId, Summary summary, List<Verdict> invocations) {

    /** Copies the list, so a run report cannot change after it was made. */
    public RunReport {
        invocations = List.copyOf(invocations);
    }

    static RunReport of(Object value) {
        Map<String, Object> m = Json.map(value);
        List<Verdict> verdicts = new ArrayList<>();
        for (Object v : Json.list(m.get("invocations"))) {
            verdicts.add(Verdict.of(v));
        }
        return new RunReport(
                Json.str(m.get("run_id")), Json.str(m.get("session_id")), Summary.of(m.get("summary")), verdicts);
    }

    /** The run object of the report schema, as compact JSON. */
    public String toJson() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("run_id", runId);
        m.put("session_id", sessionId);
        m.put("summary", summary.tree());
        List<Object> list = new ArrayList<>();
        for (Verdict v : invocations) {
            list.add(v.tree());
        }
        m.put("invocations", list);
        return Json.write(m);
    }
}
