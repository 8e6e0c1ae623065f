package io.groundcheck;

import java.util.Map;

/**
 * The bounds that keep hostile input from costing unbounded time or memory; hitting one gives a
 * ref the outcome {@code limit_exceeded}, never a crash. The defaults are the command line's.
 *
 * @param maxOutputBytes raw output text size, in bytes (64 MiB)
 * @param maxDepth JSON nesting depth of a raw document, the root being 1 (512)
 * @param maxTextChars length of a ref's {@code text}, in characters (65,536)
 * @param maxPathChars length of a trimmed {@code raw_path}, in characters (4,096)
 * @param maxNodes nodes one query may select (100,000)
 * @param maxRefs refs read per invocation (1,000)
 */
public record Limits(
        long maxOutputBytes, long maxDepth, long maxTextChars, long maxPathChars, long maxNodes, long maxRefs) {
    static Limits of(Object value) {
        Map<String, Object> m = Json.map(value);
        return new Limits(
                Json.num(m.get("max_output_bytes")),
                Json.num(m.get("max_depth")),
                Json.num(m.get("max_text_chars")),
                Json.num(m.get("max_path_chars")),
                Json.num(m.get("max_nodes")),
                Json.num(m.get("max_refs")));
    }
}
