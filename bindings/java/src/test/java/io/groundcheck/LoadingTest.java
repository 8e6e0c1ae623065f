package io.groundcheck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * How the library is found, each case in a JVM of its own: from the jar (the other tests run
 * so), from {@code java.library.path} when the classes come without it, and a clear exception
 * when there is none — never an UnsatisfiedLinkError.
 */
class LoadingTest {
    static String probe(String classPath, String libraryPath) throws Exception {
        List<String> command = new ArrayList<>(List.of(System.getProperty("java.home") + "/bin/java", "-cp", classPath));
        if (libraryPath != null) {
            command.add("-Djava.library.path=" + libraryPath);
        }
        command.add("io.groundcheck.LoadProbe");
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        assertEquals(0, p.waitFor(), out);
        return out;
    }

    @Test
    void withoutTheJarsLibraryJavaLibraryPathIsUsedElseTheExceptionSaysWhy() throws Exception {
        String classes = System.getProperty("groundcheck.classes");
        String tests = System.getProperty("groundcheck.test.classes");
        String nativeDir = System.getProperty("groundcheck.native.dir");
        assertTrue(classes != null && tests != null && nativeDir != null, "run by scripts/test-java.sh");
        String classPath = classes + ":" + tests;
        assertEquals("ok java.library.path", probe(classPath, nativeDir));
        String none = probe(classPath, "/nonexistent");
        assertTrue(none.startsWith("UNAVAILABLE groundcheck has no native library for " + Native.platform()), none);
        assertTrue(none.contains("java.library.path (/nonexistent)"), none);
        assertTrue(none.contains("it carries none"), none);
        assertEquals("ok jar:/native/" + Native.platform() + "/libgroundcheck_jni.so",
                probe(System.getProperty("groundcheck.jar") + ":" + tests, "/nonexistent"));
    }
}
