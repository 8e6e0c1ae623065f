package io.groundcheck;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Why a ref's path is invalid (or passes a limit of its own): the parser's message and where in
 * {@code raw_path}, as given, the offending character is — what a person or a model needs to fix
 * the path without running a parser of its own.
 *
 * @param message what is wrong ({@code unexpected character '/'})
 * @param offset the offending character's byte offset in the path's UTF-8 text, or null
 * @param line its 1-based line (1 for a path), or null
 * @param column its 1-based column, in characters, or null
 */
public record PathError(String message, Long offset, Long line, Long column) {
    static PathError of(Object value) {
        if (value == null) {
            return null;
        }
        Map<String, Object> m = Json.map(value);
        return new PathError(Json.str(m.get("message")), number(m.get("offset")), number(m.get("line")),
                number(m.get("column")));
    }

    private static Long number(Object value) {
        return value == null ? null : Json.num(value);
    }

    Map<String, Object> tree() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("message", message);
        m.put("offset", offset);
        m.put("line", line);
        m.put("column", column);
        return m;
    }
}
