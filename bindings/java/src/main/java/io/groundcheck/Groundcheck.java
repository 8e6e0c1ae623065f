package io.groundcheck;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * groundcheck checks an AIOps agent's claimed evidence against its tools' raw outputs, in
 * process: each {@code tool_invocation} row claims evidence in {@code retrieval_details} (a
 * JSONPath {@code raw_path} into the raw output and the quoted {@code text}); a {@link Verifier}
 * resolves every path, searches for every quote and classifies the invocation as
 * {@code supported}, {@code unsupported} or {@code no_evidence}, with the command line's verdicts
 * byte for byte. This class holds what needs no verifier.
 */
public final class Groundcheck {
    private Groundcheck() {}

    /** The report format's name, written in every report's {@code schema}. */
    public static final String SCHEMA = "groundcheck.report/v1";

    /**
     * The nodes {@code path} selects in {@code document} (JSON text), exactly as
     * {@code groundcheck resolve} and verification find them: RFC 9535 JSONPath as given (not
     * trimmed), the RFC 6901 JSON Pointer fallback, then the expanded view of strings that hold
     * JSON. A document that is not JSON is read as a tool output is: when the path selects
     * nothing in it as one string, on its JSON Lines or YAML view.
     *
     * @throws GroundcheckException {@code JSON} for a document that is not JSON and has no such view, {@code PATH} for
     *     a path that is not one (with its column), {@code TOO_DEEP} for a query on a document
     *     nested too deep
     */
    public static List<ResolvedNode> resolve(String document, String path) {
        Objects.requireNonNull(document, "document");
        Objects.requireNonNull(path, "path");
        Native.ensureLoaded();
        String reply = Native.text(Native.resolve(Json.utf8(document), Json.utf8(path)));
        List<ResolvedNode> nodes = new ArrayList<>();
        for (Object node : Json.list(Json.parse(reply))) {
            Map<String, Object> m = Json.map(node);
            nodes.add(new ResolvedNode(
                    Json.str(m.get("path")),
                    Json.str(m.get("value")),
                    Boolean.TRUE.equals(m.get("descended")),
                    m.get("read_as") == null ? null : Json.str(m.get("read_as"))));
        }
        return nodes;
    }
}
