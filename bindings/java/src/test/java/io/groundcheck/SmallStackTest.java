package io.groundcheck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.groundcheck.GroundcheckException.Kind;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Every entry point on a 256 KiB Java stack, with the deepest documents the limits allow in every
 * format the engine reads: a stack overflow in native code would kill the JVM, not fail a test.
 * YAML nests without a single bracket ({@code - - - … - b}, 510 levels in a kilobyte, once
 * crashed the JVM here), so no count of brackets alone can tell a shallow text.
 */
class SmallStackTest {
    /** {@code n} nested arrays around {@code {"b":"x"}}: {@code n + 1} deep. */
    private static String nested(int n) {
        return "[".repeat(n) + "{\"b\":\"x\"}" + "]".repeat(n);
    }

    private static String quoted(String text) {
        StringBuilder out = new StringBuilder();
        Json.quote(text, out);
        return out.toString();
    }

    /** A name, a raw output's text, a path whose ref quotes {@code x}, and the depth limit. */
    private record Case(String name, String text, String path, int maxDepth) {}

    private static List<Case> cases() {
        StringBuilder mappings = new StringBuilder();
        for (int i = 0; i < 510; i++) {
            mappings.append("  ".repeat(i)).append("a:\n");
        }
        mappings.append("  ".repeat(510)).append("b: x\n");
        return List.of(
                new Case("json at the default depth limit", nested(510), "$..b", 512),
                new Case("json at the query ceiling", nested(998), "$..b", 1000),
                new Case("a descendant filter at the query ceiling", nested(998), "$..[?@..b]", 1000),
                new Case("json inside a string", "{\"s\": " + quoted(nested(509)) + "}", "$..b", 512),
                new Case("json lines", nested(509) + "\n" + nested(509) + "\n", "$..b", 512),
                new Case("yaml block sequences", "- ".repeat(510) + "b: x\n", "$..b", 512),
                new Case("yaml block mappings", mappings.toString(), "$..b", 512),
                new Case("flow yaml", "a: " + "[".repeat(254) + "{b: x}" + "]".repeat(254) + "\n", "$..b", 512),
                new Case("8 nested filters", nested(8), "$[?" + "@[?".repeat(7) + "@.b" + "]".repeat(7) + "]", 512),
                new Case("32 parentheses", "[\"x\"]", "$[?" + "(".repeat(32) + "@ == 'x'" + ")".repeat(32) + "]", 512),
                // Small enough for the caller's thread: the deepest such texts.
                new Case("254 bytes of yaml", "- ".repeat(125) + "b: x", "$..b", 512),
                new Case("4 brackets", "[[{\"b\":\"x\"}]]", "$..[?@.b]", 512));
    }

    /** Runs {@code work} on a new thread with a 256 KiB stack, rethrowing what it threw. */
    private static void onSmallStack(Runnable work) throws Exception {
        Throwable[] failed = new Throwable[1];
        Thread small = new Thread(null, () -> {
            try {
                work.run();
            } catch (Throwable t) {
                failed[0] = t;
            }
        }, "small-stack", 256 * 1024);
        small.start();
        small.join();
        if (failed[0] != null) {
            throw new AssertionError(failed[0]);
        }
    }

    @Test
    void everyEntryPointSurvivesTheDeepestDocumentsOfEveryFormat() throws Exception {
        List<String> got = Collections.synchronizedList(new ArrayList<>());
        List<String> expected = new ArrayList<>();
        onSmallStack(() -> {
            for (Case c : cases()) {
                Row row = Support.row().retrievalDetails(Support.claim(c.path(), "x")).rawOutputText(c.text()).build();
                try (Verifier v = new Verifier(Policy.builder().maxDepth(c.maxDepth()).build())) {
                    got.add(c.name() + ": invocation " + v.verifyInvocation(row).status().wireName());
                    got.add(c.name() + ": run " + v.verifyRun(List.of(row)).verdicts().get(0).status().wireName());
                    String bundle = "{\"invocations\": [" + row.toJson() + "]}";
                    got.add(c.name() + ": bundle " + v.verifyBundle(bundle).verdicts().get(0).status().wireName());
                }
                got.add(c.name() + ": resolve " + !Groundcheck.resolve(c.text(), c.path()).isEmpty());
            }
        });
        for (Case c : cases()) {
            for (String door : List.of("invocation", "run", "bundle")) {
                expected.add(c.name() + ": " + door + " supported");
            }
            expected.add(c.name() + ": resolve true");
        }
        assertEquals(expected, got);
    }

    /**
     * The issue's own row: a 1 KB YAML output nested 510 levels without a bracket, cited at
     * {@code $..b} (which selects nothing there: {@code b} is a value), on a 256 KiB stack.
     */
    @Test
    void theBracketlessYamlOfTheIssueIsAVerdict() throws Exception {
        String yaml = "- ".repeat(510) + "b";
        List<String> got = Collections.synchronizedList(new ArrayList<>());
        onSmallStack(() -> {
            Row row = Support.row().retrievalDetails(Support.claim("$..b", "b")).rawOutputText(yaml).build();
            try (Verifier v = new Verifier()) {
                got.add(v.verifyInvocation(row).refs().get(0).outcome().wireName());
            }
            got.add(String.valueOf(Groundcheck.resolve(yaml, "$..b").size()));
        });
        assertEquals(List.of("path_not_found", "0"), got);
    }

    /**
     * {@code $[*,*]} doubles the nodes with each segment; {@code resolve} stops at the node limit
     * before building them, and says which limit stopped it.
     */
    @Test
    void resolveStopsAtTheNodeLimitAndNamesIt() throws Exception {
        String deep = "[".repeat(22) + "1" + "]".repeat(22);
        GroundcheckException e = assertThrows(GroundcheckException.class,
                () -> Groundcheck.resolve(deep, "$" + "[*,*]".repeat(40)));
        assertEquals(Kind.OVER_LIMIT, e.kind());
        assertEquals("nodes", e.limit().orElse(null));
        assertEquals(
                "the path selects more than 100000 nodes (the node limit), counting repeats, or would pass through "
                        + "more on its way",
                e.getMessage());
        assertEquals(1 << 16, Groundcheck.resolve(deep, "$" + "[*,*]".repeat(16)).size());
        GroundcheckException tooDeep = assertThrows(GroundcheckException.class,
                () -> Groundcheck.resolve("[".repeat(1_001) + "]".repeat(1_001), "$..x"));
        assertEquals("depth", tooDeep.limit().orElse(null));
    }
}
