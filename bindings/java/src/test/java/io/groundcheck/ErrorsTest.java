package io.groundcheck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.groundcheck.GroundcheckException.Kind;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/** One exception, a kind per failure, and the place where there is one. */
class ErrorsTest {
    private static final Verifier VERIFIER = new Verifier();

    static GroundcheckException fails(Kind kind, Executable call) {
        GroundcheckException e = assertThrows(GroundcheckException.class, call);
        assertEquals(kind, e.kind(), e.getMessage());
        return e;
    }

    @Test
    void aBadPolicyFailsWhenBuilt() {
        fails(Kind.UNKNOWN_NAME, () -> Policy.builder().match("fuzzzy").build());
        fails(Kind.UNKNOWN_NAME, () -> Policy.builder().require("most").build());
        fails(Kind.SCORE, () -> Policy.builder().minScore("0").build());
        fails(Kind.SCORE, () -> Policy.builder().minScore("1.5").build());
        fails(Kind.SCORE, () -> Policy.builder().minScore("0.9001").build());
        GroundcheckException limit = fails(Kind.LIMIT, () -> Policy.builder().maxDepth(0).build());
        assertTrue(limit.getMessage().contains("max_depth"), limit.getMessage());
        fails(Kind.LIMIT, () -> Policy.builder().maxRefs(-1).build());
        fails(Kind.TEMPLATE, () -> new Verifier(null, "/var/{nope}.json"));
    }

    @Test
    void aRowThatCannotBeReadNamesItsField() {
        GroundcheckException noId = fails(Kind.ROW, () -> VERIFIER.verifyInvocation(Row.builder().toolName("q").build()));
        assertEquals("id", noId.field().orElseThrow());
        GroundcheckException badType = fails(Kind.ROW, () -> VERIFIER.verifyInvocation("{\"id\": 1, \"tool_name\": 7}"));
        assertEquals("tool_name", badType.field().orElseThrow());
        GroundcheckException unknown = fails(Kind.ROW,
                () -> VERIFIER.verifyInvocation("{\"id\": 1, \"tool_name\": \"q\", \"raw_ouput\": {}}"));
        assertEquals("raw_ouput", unknown.field().orElseThrow());
        GroundcheckException notJson = fails(Kind.ROW, () -> VERIFIER.verifyInvocation("{\"id\": 1,"));
        assertEquals("row", notJson.field().orElseThrow());
        GroundcheckException second = fails(Kind.ROW, () -> VERIFIER.verifyRun(List.of(
                Support.row().build(), Support.row().id(2).stepId(1.5).build())));
        assertTrue(second.getMessage().startsWith("row 1: step_id:"), second.getMessage());
        fails(Kind.DUPLICATE_ID, () -> VERIFIER.verifyRun(List.of(Support.row().build(), Support.row().build())));
    }

    /** A row's text is one object: it cannot smuggle a second row or a bundle key in. */
    @Test
    void aRowTextCannotCarryASecondRow() {
        fails(Kind.ROW, () -> VERIFIER.verifyInvocation("{\"id\":1,\"tool_name\":\"a\"},{\"id\":2,\"tool_name\":\"b\"}"));
        fails(Kind.ROW, () -> VERIFIER.verifyInvocation(
                "{\"id\":1,\"tool_name\":\"a\"}],\"run_id\":\"x\",\"invocations\":[{\"id\":2,\"tool_name\":\"b\"}"));
        fails(Kind.ROW, () -> VERIFIER.verifyInvocation("[{\"id\":1,\"tool_name\":\"a\"}]"));
        fails(Kind.ROW, () -> VERIFIER.verifyInvocation(""));
    }

    @Test
    void badBundlesPathsAndDocuments() {
        GroundcheckException bundle = fails(Kind.BUNDLE, () -> VERIFIER.verifyBundle("{\"invocations\": [}"));
        assertEquals(1, bundle.line().getAsInt());
        assertEquals(18, bundle.column().getAsInt());
        GroundcheckException place = fails(Kind.BUNDLE,
                () -> VERIFIER.verifyBundle("{\"invocations\": [{\"id\": 1, \"tool_name\": \"q\", \"raw_ouput\": {}}]}"));
        assertEquals("$.invocations[0].raw_ouput", place.place().orElseThrow());
        fails(Kind.DUPLICATE_ID, () -> VERIFIER.verifyBundle(
                "{\"invocations\": [{\"id\": 1, \"tool_name\": \"q\"}, {\"id\": 1, \"tool_name\": \"q\"}]}"));
        GroundcheckException path = fails(Kind.PATH, () -> Groundcheck.resolve("{\"a\": 1}", "$.a/b"));
        assertEquals(4, path.column().getAsInt());
        fails(Kind.JSON, () -> Groundcheck.resolve("{not json", "$"));
        fails(Kind.IO, () -> VERIFIER.verifyBundle(Support.ROOT.resolve("fixtures/no-such-file.json")));
        fails(Kind.IO, () -> VERIFIER.verifyBundle(Support.ROOT.resolve("fixtures")));
    }

    @Test
    void aBundleFileThatIsNotUtf8IsABundleError(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
        Path file = dir.resolve("latin1.json");
        java.nio.file.Files.write(file, new byte[] {'{', '"', (byte) 0xE9, '"', ':', '1', '}'});
        fails(Kind.BUNDLE, () -> VERIFIER.verifyBundle(file));
    }

    @Test
    void aPanicInsideRustIsAnInternalErrorAndTheJvmGoesOn() throws Exception {
        // The hook is in the test-hooks library alone: a JVM of its own loads it from
        // java.library.path (the library classes without the jar), as LoadingTest does.
        String classes = System.getProperty("groundcheck.classes");
        String tests = System.getProperty("groundcheck.test.classes");
        String hooks = System.getProperty("groundcheck.hooks.native.dir");
        assertTrue(classes != null && tests != null && hooks != null, "run by scripts/test-java.sh");
        java.util.List<String> command = java.util.List.of(System.getProperty("java.home") + "/bin/java",
                "-cp", classes + ":" + tests, "-Djava.library.path=" + hooks, "io.groundcheck.TestHooks", "boom");
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8).trim();
        assertEquals(0, p.waitFor(), out);
        String[] lines = out.split("\n");
        assertEquals(2, lines.length, out);
        assertTrue(lines[0].startsWith("INTERNAL ") && lines[0].contains("boom"), out);
        assertTrue(lines[0].contains("(at crates/groundcheck-jni/src/lib.rs:"), out);
        assertEquals("SUPPORTED", lines[1], out);
    }

    @Test
    void theReleaseJarCarriesNoHook() throws Exception {
        // Neither the hooks' class nor their exports: javap would find no TestHooks in the jar,
        // nm -D no Java_io_groundcheck_TestHooks_ symbol in its library.
        try (java.util.jar.JarFile jar = new java.util.jar.JarFile(System.getProperty("groundcheck.jar"))) {
            int libraries = 0;
            for (java.util.jar.JarEntry entry : java.util.Collections.list(jar.entries())) {
                assertTrue(!entry.getName().contains("TestHooks"), entry.getName());
                if (entry.getName().startsWith("native/") && !entry.getName().endsWith(".txt") && !entry.isDirectory()) {
                    byte[] library = jar.getInputStream(entry).readAllBytes();
                    String text = new String(library, java.nio.charset.StandardCharsets.ISO_8859_1);
                    for (String hook : new String[] {"TestHooks", "panicForTest", "timeVerify", "timeRun"}) {
                        assertTrue(!text.contains(hook), entry.getName() + " exports " + hook);
                    }
                    assertTrue(text.contains("Java_io_groundcheck_Native_verifyRun"), entry.getName());
                    libraries++;
                }
            }
            assertTrue(libraries > 0, "the jar carries no library");
        }
        assertThrows(UnsatisfiedLinkError.class, () -> TestHooks.panic("boom"));
    }

    @Test
    void theNativeLibraryCameFromTheJar() {
        assertTrue(String.valueOf(Native.loadedFrom()).startsWith("jar:/native/" + Native.platform() + "/"),
                String.valueOf(Native.loadedFrom()));
    }
}
