package io.groundcheck;

import java.math.BigDecimal;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The selected value that came closest to a quote that was not found, so a misquote (a high
 * score) can be told from an invention (a low one) without opening the raw output.
 *
 * @param score the share of the quote's characters kept, three decimals ({@code 0.944})
 * @param path the value's RFC 9535 normalized path
 * @param text the closest text in it
 */
public record Nearest(BigDecimal score, String path, String text) {
    static Nearest of(Object value) {
        if (value == null) {
            return null;
        }
        Map<String, Object> m = Json.map(value);
        return new Nearest((BigDecimal) m.get("score"), Json.str(m.get("path")), Json.str(m.get("text")));
    }

    Map<String, Object> tree() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("score", score);
        m.put("path", path);
        m.put("text", text);
        return m;
    }
}
