package io.groundcheck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The README's Java example, which scripts/test-java.sh extracted and compiled against the jar
 * alone, runs as shown: in a JVM of its own, from the repository root, with nothing on its
 * class path but the jar and itself.
 */
class ReadmeTest {
    @Test
    void theReadmeExampleRunsAsShown() throws Exception {
        String classes = System.getProperty("groundcheck.readme.classes");
        String main = System.getProperty("groundcheck.readme.class");
        String jar = System.getProperty("groundcheck.jar");
        assertTrue(classes != null && main != null && jar != null, "run by scripts/test-java.sh");
        String java = System.getProperty("java.home") + "/bin/java";
        Process p = new ProcessBuilder(List.of(java, "-cp", jar + ":" + classes, main))
                .directory(Support.ROOT.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), out);
        assertTrue(out.startsWith("Summary[invocations="), out);
    }
}
