package io.groundcheck;

import java.math.BigDecimal;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One evidence ref as reported: echoed as given, with its outcome and, when it failed, how close
 * it came — enough to tell a misquote, a mis-pointed path and an invented quote apart.
 *
 * @param index the ref's position in {@code evidence_refs}
 * @param rawPath the {@code raw_path} as given, or {@code null} when it was not a string
 * @param text the quoted {@code text} as given, or {@code null} when it was not a string
 * @param outcome what became of the ref
 * @param match the rung it matched on, when verified
 * @param matchedPath the normalized path of the value that holds the quote, when verified
 * @param score the near miss's score, for a fuzzy match only
 * @param inPreview for a ref checked against a preview: whether the quote is in it
 * @param nearest for a {@code text_not_found} ref, the closest selected value
 * @param elsewhere the first path in the whole output whose value does hold the quote
 * @param limit for a {@code limit_exceeded} ref, the limit it hit as the report names it
 *     ({@code output_size}, {@code depth}, {@code text_length}, {@code path_length},
 *     {@code nodes}, {@code refs}): which bound would let the ref be checked
 * @param pathError for an {@code invalid_path} ref (and a {@code limit_exceeded} one whose path
 *     passes a limit of its own), why, and where in the path
 * @param malformed for a {@code malformed_ref}, what is wrong with it
 *     ({@code raw_path is a number, not a string})
 */
public record RefReport(
        int index,
        String rawPath,
        String text,
        Outcome outcome,
        Rung match,
        String matchedPath,
        BigDecimal score,
        Boolean inPreview,
        Nearest nearest,
        String elsewhere,
        String limit,
        PathError pathError,
        String malformed) {

    /** Whether the ref verified. */
    public boolean verified() {
        return outcome == Outcome.VERIFIED;
    }

    static RefReport of(Object value) {
        Map<String, Object> m = Json.map(value);
        Object match = m.get("match");
        return new RefReport(
                (int) Json.num(m.get("index")),
                Json.str(m.get("raw_path")),
                Json.str(m.get("text")),
                Outcome.of(Json.str(m.get("outcome"))),
                match == null ? null : Rung.of(Json.str(match)),
                Json.str(m.get("matched_path")),
                (BigDecimal) m.get("score"),
                (Boolean) m.get("in_preview"),
                Nearest.of(m.get("nearest")),
                Json.str(m.get("elsewhere")),
                Json.str(m.get("limit")),
                PathError.of(m.get("path_error")),
                Json.str(m.get("malformed")));
    }

    /** The ref object of the report schema, fields in its order, absent ones left out. */
    Map<String, Object> tree() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("index", index);
        m.put("raw_path", rawPath);
        m.put("text", text);
        m.put("outcome", outcome.wireName());
        if (match != null) {
            m.put("match", match.wireName());
        }
        if (matchedPath != null) {
            m.put("matched_path", matchedPath);
        }
        if (score != null) {
            m.put("score", score);
        }
        if (inPreview != null) {
            m.put("in_preview", inPreview);
        }
        if (nearest != null) {
            m.put("nearest", nearest.tree());
        }
        if (elsewhere != null) {
            m.put("elsewhere", elsewhere);
        }
        if (limit != null) {
            m.put("limit", limit);
        }
        if (pathError != null) {
            m.put("path_error", pathError.tree());
        }
        if (malformed != null) {
            m.put("malformed", malformed);
        }
        return m;
    }
}
