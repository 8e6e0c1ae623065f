package io.groundcheck;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The {@code groundcheck.report/v1} report: runs in order of first appearance. Unlike the other
 * results it is a class, not a record, because it keeps the exact text the engine wrote:
 * {@link #toJson()} is byte for byte what {@code groundcheck verify --format json} prints for
 * the same input and policy.
 */
public final class Report {
    private final String schema;
    private final List<RunReport> runs;
    private final String json;

    private Report(String schema, List<RunReport> runs, String json) {
        this.schema = schema;
        this.runs = List.copyOf(runs);
        this.json = json;
    }

    static Report of(String json) {
        Map<String, Object> m = Json.map(Json.parse(json));
        List<RunReport> runs = new ArrayList<>();
        for (Object run : Json.list(m.get("runs"))) {
            runs.add(RunReport.of(run));
        }
        return new Report(Json.str(m.get("schema")), runs, json);
    }

    /** The report's schema name, {@value Groundcheck#SCHEMA}. */
    public String schema() {
        return schema;
    }

    /** The runs, in order of first appearance. */
    public List<RunReport> runs() {
        return runs;
    }

    /** Every verdict of every run, in report order. */
    public List<Verdict> verdicts() {
        List<Verdict> all = new ArrayList<>();
        for (RunReport run : runs) {
            all.addAll(run.invocations());
        }
        return all;
    }

    /** The report as {@code groundcheck verify --format json} prints it, final newline included. */
    public String toJson() {
        return json;
    }

    /** Reports are equal when their JSON is. */
    @Override
    public boolean equals(Object other) {
        return other instanceof Report && ((Report) other).json.equals(json);
    }

    @Override
    public int hashCode() {
        return json.hashCode();
    }

    @Override
    public String toString() {
        return "Report[schema=" + schema + ", runs=" + runs + "]";
    }
}
