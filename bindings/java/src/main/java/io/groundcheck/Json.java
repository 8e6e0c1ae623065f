package io.groundcheck;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The JSON this library reads and writes itself: the engine's replies (reports, verdicts,
 * failures, policies), whose shape is fixed and shallow, and rows. Hand-written so that the jar
 * needs nothing beside the JDK; it decides no verdict. Numbers are read as {@link BigDecimal}
 * from their text, so a score keeps its three decimals ({@code 0.900}); strings are written as
 * the engine (serde_json) writes them, so re-written verdicts are its bytes.
 */
final class Json {
    /** The engine's replies are never nested deeper than this. */
    private static final int MAX_DEPTH = 64;

    private final String text;
    private int at;

    private Json(String text) {
        this.text = text;
    }

    /**
     * {@code text} as Java values: {@link Map} (member order kept), {@link List}, {@link String},
     * {@link BigDecimal}, {@link Boolean} and {@code null}.
     */
    static Object parse(String text) {
        Json reader = new Json(text);
        Object value = reader.value(0);
        reader.space();
        if (reader.at != text.length()) {
            throw reader.bad("trailing characters");
        }
        return value;
    }

    private GroundcheckException bad(String what) {
        return new GroundcheckException(
                GroundcheckException.Kind.INTERNAL,
                "groundcheck: unreadable reply from the native library (" + what + " at " + at + ")",
                null);
    }

    private void space() {
        while (at < text.length()) {
            char c = text.charAt(at);
            if (c != ' ' && c != '\n' && c != '\r' && c != '\t') {
                return;
            }
            at++;
        }
    }

    private Object value(int depth) {
        if (depth > MAX_DEPTH) {
            throw bad("nesting too deep");
        }
        space();
        if (at >= text.length()) {
            throw bad("end of text");
        }
        char c = text.charAt(at);
        switch (c) {
            case '{':
                return object(depth);
            case '[':
                return array(depth);
            case '"':
                return string();
            case 't':
                return literal("true", Boolean.TRUE);
            case 'f':
                return literal("false", Boolean.FALSE);
            case 'n':
                return literal("null", null);
            default:
                return number();
        }
    }

    private Object literal(String word, Object value) {
        if (!text.startsWith(word, at)) {
            throw bad("unexpected character");
        }
        at += word.length();
        return value;
    }

    private Map<String, Object> object(int depth) {
        Map<String, Object> members = new LinkedHashMap<>();
        at++;
        space();
        if (at < text.length() && text.charAt(at) == '}') {
            at++;
            return members;
        }
        while (true) {
            space();
            if (at >= text.length() || text.charAt(at) != '"') {
                throw bad("expected a member name");
            }
            String name = string();
            space();
            expect(':');
            members.put(name, value(depth + 1));
            space();
            if (at < text.length() && text.charAt(at) == ',') {
                at++;
                continue;
            }
            expect('}');
            return members;
        }
    }

    private List<Object> array(int depth) {
        List<Object> items = new ArrayList<>();
        at++;
        space();
        if (at < text.length() && text.charAt(at) == ']') {
            at++;
            return items;
        }
        while (true) {
            items.add(value(depth + 1));
            space();
            if (at < text.length() && text.charAt(at) == ',') {
                at++;
                continue;
            }
            expect(']');
            return items;
        }
    }

    private void expect(char c) {
        if (at >= text.length() || text.charAt(at) != c) {
            throw bad("expected '" + c + "'");
        }
        at++;
    }

    private String string() {
        at++;
        StringBuilder out = null;
        int start = at;
        while (at < text.length()) {
            char c = text.charAt(at);
            if (c == '"') {
                String s = out == null ? text.substring(start, at) : out.append(text, start, at).toString();
                at++;
                return s;
            }
            if (c != '\\') {
                at++;
                continue;
            }
            if (out == null) {
                out = new StringBuilder();
            }
            out.append(text, start, at);
            if (at + 1 >= text.length()) {
                break;
            }
            char e = text.charAt(at + 1);
            at += 2;
            switch (e) {
                case '"': out.append('"'); break;
                case '\\': out.append('\\'); break;
                case '/': out.append('/'); break;
                case 'b': out.append('\b'); break;
                case 'f': out.append('\f'); break;
                case 'n': out.append('\n'); break;
                case 'r': out.append('\r'); break;
                case 't': out.append('\t'); break;
                case 'u':
                    if (at + 4 > text.length()) {
                        throw bad("short \\u escape");
                    }
                    try {
                        out.append((char) Integer.parseInt(text.substring(at, at + 4), 16));
                    } catch (NumberFormatException ex) {
                        throw bad("bad \\u escape");
                    }
                    at += 4;
                    break;
                default:
                    throw bad("bad escape");
            }
            start = at;
        }
        throw bad("unterminated string");
    }

    private BigDecimal number() {
        int start = at;
        while (at < text.length() && "+-0123456789.eE".indexOf(text.charAt(at)) >= 0) {
            at++;
        }
        if (start == at) {
            throw bad("unexpected character");
        }
        try {
            return new BigDecimal(text.substring(start, at));
        } catch (NumberFormatException ex) {
            throw bad("bad number");
        }
    }

    // ------------------------------------------------------------------ writing

    /** {@code value} (of the types {@link #parse} gives, or a {@link Number}) as compact JSON. */
    static String write(Object value) {
        StringBuilder out = new StringBuilder();
        write(value, out);
        return out.toString();
    }

    static void write(Object value, StringBuilder out) {
        if (value == null) {
            out.append("null");
        } else if (value instanceof String) {
            quote((String) value, out);
        } else if (value instanceof Boolean) {
            out.append(((Boolean) value).booleanValue() ? "true" : "false");
        } else if (value instanceof BigDecimal) {
            out.append(((BigDecimal) value).toString());
        } else if (value instanceof Number) {
            out.append(value.toString());
        } else if (value instanceof Map) {
            out.append('{');
            boolean first = true;
            for (Map.Entry<?, ?> member : ((Map<?, ?>) value).entrySet()) {
                if (!first) {
                    out.append(',');
                }
                first = false;
                quote((String) member.getKey(), out);
                out.append(':');
                write(member.getValue(), out);
            }
            out.append('}');
        } else if (value instanceof List) {
            out.append('[');
            boolean first = true;
            for (Object item : (List<?>) value) {
                if (!first) {
                    out.append(',');
                }
                first = false;
                write(item, out);
            }
            out.append(']');
        } else {
            throw new IllegalArgumentException("not a JSON value: " + value.getClass().getName());
        }
    }

    private static final char[] HEX = "0123456789abcdef".toCharArray();

    /** {@code s} as a JSON string, escaped as serde_json escapes: quote, backslash, controls. */
    static void quote(String s, StringBuilder out) {
        out.append('"');
        int start = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c >= 0x20 && c != '"' && c != '\\') {
                continue;
            }
            out.append(s, start, i);
            start = i + 1;
            switch (c) {
                case '"': out.append("\\\""); break;
                case '\\': out.append("\\\\"); break;
                case '\b': out.append("\\b"); break;
                case '\f': out.append("\\f"); break;
                case '\n': out.append("\\n"); break;
                case '\r': out.append("\\r"); break;
                case '\t': out.append("\\t"); break;
                default:
                    out.append("\\u00").append(HEX[c >> 4]).append(HEX[c & 0xF]);
            }
        }
        out.append(s, start, s.length()).append('"');
    }

    // ------------------------------------------------------------------ text to the engine

    /**
     * {@code s} as UTF-8, each lone surrogate (legal in a Java string, not in Unicode text)
     * read as U+FFFD REPLACEMENT CHARACTER. {@link String#getBytes} would write {@code ?}
     * instead, a character that could match a quote; U+FFFD is what a lossy UTF-8 reader
     * writes, and what the engine's own store reads invalid text as.
     */
    static byte[] utf8(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (!Character.isSurrogate(c)) {
                continue;
            }
            if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                i++;
                continue;
            }
            return replaced(s).getBytes(StandardCharsets.UTF_8);
        }
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String replaced(String s) {
        StringBuilder out = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                out.append(c).append(s.charAt(++i));
            } else if (Character.isSurrogate(c)) {
                out.append('\uFFFD');
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }

    // ------------------------------------------------------------------ reading replies

    @SuppressWarnings("unchecked")
    static Map<String, Object> map(Object value) {
        return value == null ? Collections.emptyMap() : (Map<String, Object>) value;
    }

    @SuppressWarnings("unchecked")
    static List<Object> list(Object value) {
        return value == null ? Collections.emptyList() : (List<Object>) value;
    }

    static String str(Object value) {
        return (String) value;
    }

    static long num(Object value) {
        return ((BigDecimal) value).longValueExact();
    }
}
