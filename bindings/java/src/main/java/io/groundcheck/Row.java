package io.groundcheck;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * One {@code tool_invocation} row, as a Java service holds it: built column by column with
 * {@link #builder()}, read from a JDBC {@link ResultSet} with {@link #fromResultSet}, or given as
 * the JSON text of a row object with {@link #ofJson}. Only {@code id} and {@code tool_name} are
 * required; the engine checks every column's type when the row is verified (a wrong one is a
 * {@link GroundcheckException} of kind {@code ROW} naming it).
 *
 * <p>The JSON columns, {@code retrieval_details} and {@code input_params}, are given as the
 * column's own text, as the database holds it: JSON text is that JSON, other text a string of
 * it — exactly as the groundcheck store reads the same column. The raw output is given as its
 * exact text ({@code raw_output_text}), read as JSON, else JSON Lines or YAML, else one string
 * the path {@code $} selects: a JDBC driver's {@code getString} of a JSON column is that text, so
 * a row gives the verdict {@code groundcheck run} gives for the same table.
 */
public final class Row {
    private final String json;

    private Row(String json) {
        this.json = json;
    }

    /**
     * A row given as the JSON text of one object of {@code tool_invocation} columns (plus
     * {@code raw_output} or {@code raw_output_text}), the members a bundle file's invocation has.
     * A JSON column given as a string is the column's text, as with the builder; and a
     * {@code raw_output} given as a string is the output's exact text, read exactly as
     * {@code raw_output_text} — the text a driver returns for a JSON column, put in the row as it
     * came. That differs from a bundle file, where a string {@code raw_output} is a JSON string
     * document: to give such a document in a row, give its JSON text as {@code raw_output_text}.
     * Any other {@code raw_output} (object, array, number, boolean) is that JSON value, and
     * {@code null} is no raw output.
     */
    public static Row ofJson(String json) {
        return new Row(Objects.requireNonNull(json, "json"));
    }

    /** A builder with no column set. */
    public static Builder builder() {
        return new Builder();
    }

    /** The row as the JSON text of one row object. */
    public String toJson() {
        return json;
    }

    @Override
    public String toString() {
        return "Row" + json;
    }

    /** The columns a JDBC row is read from, by lower-case label, and how. */
    private static final String[] TEXT = {
        "session_id", "run_id", "tool_name", "output_preview", "retrieval_layer", "relevance_level",
        "dedup_reason", "error_message", "created_at", "retrieval_details", "input_params"
    };

    private static final String[] INTEGER = {
        "id", "step_id", "output_length", "l0_match_count", "l1_match_count", "duration_ms"
    };

    private static final String[] FLAG = {"is_truncated", "success"};

    /**
     * The current row of {@code rs}: every {@code tool_invocation} column the result set has,
     * by label (case does not matter), and the raw output from a column {@code raw_output_text}
     * or {@code raw_output} (groundcheck's own {@code tool_invocation_output.raw_output}).
     * Booleans may be stored as 0 and 1, as MariaDB stores them; columns the query did not
     * select are left out.
     */
    public static Row fromResultSet(ResultSet rs) throws SQLException {
        Objects.requireNonNull(rs, "rs");
        ResultSetMetaData meta = rs.getMetaData();
        Map<String, Integer> columns = new HashMap<>();
        for (int i = meta.getColumnCount(); i >= 1; i--) {
            columns.put(meta.getColumnLabel(i).toLowerCase(Locale.ROOT), i);
        }
        Map<String, Object> row = new LinkedHashMap<>();
        for (String name : INTEGER) {
            Integer i = columns.get(name);
            if (i != null) {
                Object value = rs.getObject(i);
                row.put(name, value == null ? null : integral(value, name));
            }
        }
        for (String name : TEXT) {
            Integer i = columns.get(name);
            if (i != null) {
                row.put(name, rs.getString(i));
            }
        }
        for (String name : FLAG) {
            Integer i = columns.get(name);
            if (i != null) {
                Object value = rs.getObject(i);
                row.put(name, value instanceof Number ? (Object) (((Number) value).longValue() != 0) : value);
            }
        }
        Integer raw = columns.containsKey("raw_output_text") ? columns.get("raw_output_text") : columns.get("raw_output");
        if (raw != null) {
            row.put("raw_output_text", rs.getString(raw));
        }
        return new Row(Builder.write(row));
    }

    private static Object integral(Object value, String name) {
        if (value instanceof Long || value instanceof Integer || value instanceof Short
                || value instanceof Byte || value instanceof BigInteger || value instanceof BigDecimal) {
            return value;
        }
        return value.toString();
    }

    /**
     * Collects a row's columns. Every setter takes {@code null} for SQL NULL (the column left
     * out), so values can be passed straight from a driver.
     */
    public static final class Builder {
        private final Map<String, Object> columns = new LinkedHashMap<>();

        private Builder() {}

        private Builder set(String column, Object value) {
            if (value == null) {
                columns.remove(column);
            } else {
                columns.put(column, value);
            }
            return this;
        }

        /** Auto-increment primary key (required). */
        public Builder id(long id) {
            return set("id", id);
        }

        /** Tool name, e.g. {@code query_logs} (required). */
        public Builder toolName(String toolName) {
            return set("tool_name", toolName);
        }

        /** Owning session; groups rows without a {@code run_id}. */
        public Builder sessionId(String sessionId) {
            return set("session_id", sessionId);
        }

        /** Owning diagnosis run. */
        public Builder runId(String runId) {
            return set("run_id", runId);
        }

        /** The agent step that made the call. */
        public Builder stepId(Number stepId) {
            return set("step_id", stepId);
        }

        /** Tool input parameters: the column's JSON text. */
        public Builder inputParams(String json) {
            return set("input_params", json);
        }

        /** Summary or prefix of the output; the document only where provably complete. */
        public Builder outputPreview(String outputPreview) {
            return set("output_preview", outputPreview);
        }

        /** Length of the full output in characters (scalar values or UTF-16 units, as Java counts). */
        public Builder outputLength(Number outputLength) {
            return set("output_length", outputLength);
        }

        /** RAG layer: {@code L0}, {@code L1}, {@code L0+L1}. */
        public Builder retrievalLayer(String retrievalLayer) {
            return set("retrieval_layer", retrievalLayer);
        }

        /** L0 hits. */
        public Builder l0MatchCount(Number count) {
            return set("l0_match_count", count);
        }

        /** L1 hits. */
        public Builder l1MatchCount(Number count) {
            return set("l1_match_count", count);
        }

        /** Whether {@code output_preview} was truncated. */
        public Builder isTruncated(Boolean isTruncated) {
            return set("is_truncated", isTruncated);
        }

        /** {@code PRECISE}, {@code HIGHLY_RELEVANT}, {@code REFERENCE}, {@code DEDUPED}. */
        public Builder relevanceLevel(String relevanceLevel) {
            return set("relevance_level", relevanceLevel);
        }

        /** Why the row was deduplicated. */
        public Builder dedupReason(String dedupReason) {
            return set("dedup_reason", dedupReason);
        }

        /** The agent's claim — evidence status and refs — as the column's JSON text. */
        public Builder retrievalDetails(String json) {
            return set("retrieval_details", json);
        }

        /** Tool latency. */
        public Builder durationMs(Number durationMs) {
            return set("duration_ms", durationMs);
        }

        /** Whether the tool call succeeded; null counts as success. */
        public Builder success(Boolean success) {
            return set("success", success);
        }

        /** Failure reason. */
        public Builder errorMessage(String errorMessage) {
            return set("error_message", errorMessage);
        }

        /** Creation time, as text. */
        public Builder createdAt(String createdAt) {
            return set("created_at", createdAt);
        }

        /** Creation time, written as RFC 3339 in UTC. */
        public Builder createdAt(Instant createdAt) {
            return set("created_at", createdAt == null ? null : createdAt.toString());
        }

        /** The tool's raw output, its exact text as stored. */
        public Builder rawOutputText(String rawOutputText) {
            return set("raw_output_text", rawOutputText);
        }

        /** The row. */
        public Row build() {
            return new Row(write(columns));
        }

        static String write(Map<String, Object> columns) {
            StringBuilder out = new StringBuilder("{");
            boolean first = true;
            for (Map.Entry<String, Object> column : columns.entrySet()) {
                if (column.getValue() == null) {
                    continue;
                }
                if (!first) {
                    out.append(',');
                }
                first = false;
                Json.quote(column.getKey(), out);
                out.append(':');
                Object value = column.getValue();
                if (value instanceof Number && !(value instanceof BigDecimal || value instanceof BigInteger
                        || value instanceof Long || value instanceof Integer || value instanceof Short
                        || value instanceof Byte)) {
                    // A float or double is not a column's integer; written as text, the engine
                    // names the column in its error instead of reading NaN.
                    Json.quote(value.toString(), out);
                } else {
                    Json.write(value, out);
                }
            }
            return out.append('}').toString();
        }
    }
}
