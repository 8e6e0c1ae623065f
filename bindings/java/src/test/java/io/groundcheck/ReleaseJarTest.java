package io.groundcheck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What scripts/build-jar.sh gives users, beyond the classes the other tests call: the pom and
 * the sources beside the jar, a native library that loads on the oldest Linux servers agents run
 * on, and the assembly of one jar from the jars of several platforms.
 */
class ReleaseJarTest {
    /** glibc 2.17: RHEL/CentOS 7, the oldest glibc of the servers agents run on. */
    private static final int[] MAX_GLIBC = {2, 17};

    private static Path releaseJar() {
        String jar = System.getProperty("groundcheck.release.jar");
        assertTrue(jar != null, "run by scripts/test-java.sh");
        return Path.of(jar);
    }

    private static String version() {
        String name = releaseJar().getFileName().toString();
        assertTrue(name.startsWith("groundcheck-") && name.endsWith(".jar"), name);
        return name.substring("groundcheck-".length(), name.length() - ".jar".length());
    }

    private static String entry(JarFile jar, String name) throws IOException {
        JarEntry found = jar.getJarEntry(name);
        assertTrue(found != null, "the jar has no " + name);
        try (InputStream in = jar.getInputStream(found)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    /** A command's exit code and what it printed, both streams. */
    private record Ran(int code, String out) {}

    /** Runs a command in the repository. */
    private static Ran run(List<String> command) throws Exception {
        Process p = new ProcessBuilder(command).directory(Support.ROOT.toFile()).redirectErrorStream(true).start();
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        return new Ran(p.waitFor(), out);
    }

    @Test
    void thePomCarriesTheCoordinatesInsideAndBesideTheJarWithTheSources() throws Exception {
        String version = version();
        Path dir = releaseJar().getParent();
        String beside = Files.readString(dir.resolve("groundcheck-" + version + ".pom"));
        try (JarFile jar = new JarFile(releaseJar().toFile())) {
            String inside = entry(jar, "META-INF/maven/io.groundcheck/groundcheck/pom.xml");
            assertEquals(beside, inside);
            String properties = entry(jar, "META-INF/maven/io.groundcheck/groundcheck/pom.properties");
            assertTrue(properties.contains("version=" + version), properties);
        }
        for (String coordinate : List.of("<groupId>io.groundcheck</groupId>", "<artifactId>groundcheck</artifactId>",
                "<version>" + version + "</version>")) {
            assertTrue(beside.contains(coordinate), coordinate);
        }
        try (JarFile sources = new JarFile(dir.resolve("groundcheck-" + version + "-sources.jar").toFile())) {
            assertTrue(sources.getJarEntry("io/groundcheck/Verifier.java") != null, "the sources jar has no Verifier.java");
        }
    }

    @Test
    void theLinuxLibraryNeedsNoGlibcNewerThan217AndCarriesNoDebugInformation(@TempDir Path tmp) throws Exception {
        String platform = Native.platform();
        if (!platform.startsWith("linux-")) {
            return; // glibc symbol versions are a Linux library's; elsewhere there is nothing to check
        }
        Path library = tmp.resolve("libgroundcheck_jni.so");
        try (JarFile jar = new JarFile(releaseJar().toFile());
             InputStream in = jar.getInputStream(jar.getJarEntry("native/" + platform + "/libgroundcheck_jni.so"))) {
            Files.copy(in, library);
        }
        Ran symbols = run(List.of("objdump", "-T", library.toString()));
        assertEquals(0, symbols.code(), symbols.out());
        Matcher versions = Pattern.compile("\\bGLIBC_([0-9]+)\\.([0-9]+)").matcher(symbols.out());
        int seen = 0;
        while (versions.find()) {
            seen++;
            int major = Integer.parseInt(versions.group(1));
            int minor = Integer.parseInt(versions.group(2));
            assertTrue(major < MAX_GLIBC[0] || major == MAX_GLIBC[0] && minor <= MAX_GLIBC[1], versions.group());
        }
        assertTrue(seen > 0, "no versioned glibc symbol found: objdump's output changed?");
        Ran sections = run(List.of("readelf", "-S", "-W", library.toString()));
        assertEquals(0, sections.code(), sections.out());
        assertTrue(!sections.out().contains(".debug_info"), "the library carries debug information");
    }

    /** A copy of the release jar whose native library is filed under {@code platform} instead. */
    private static Path asIfBuiltOn(String platform, Path out, boolean extraClass) throws IOException {
        Files.createDirectories(out.getParent());
        try (JarFile jar = new JarFile(releaseJar().toFile());
             JarOutputStream copy = new JarOutputStream(Files.newOutputStream(out))) {
            for (JarEntry e : Collections.list(jar.entries())) {
                String name = e.getName().replace("native/" + Native.platform() + "/", "native/" + platform + "/");
                copy.putNextEntry(new JarEntry(name));
                if (!e.isDirectory()) {
                    try (InputStream in = jar.getInputStream(e)) {
                        in.transferTo(copy);
                    }
                }
                copy.closeEntry();
            }
            if (extraClass) {
                copy.putNextEntry(new JarEntry("io/groundcheck/Other.class"));
                copy.write(new byte[] {(byte) 0xCA, (byte) 0xFE});
                copy.closeEntry();
            }
        }
        return out;
    }

    private static Set<String> nativeFolders(Path jarPath) throws IOException {
        Set<String> folders = new TreeSet<>();
        try (JarFile jar = new JarFile(jarPath.toFile())) {
            for (JarEntry e : Collections.list(jar.entries())) {
                String[] parts = e.getName().split("/");
                if (parts.length == 3 && parts[0].equals("native") && !parts[2].isEmpty()) {
                    folders.add(parts[1]);
                }
            }
        }
        return folders;
    }

    @Test
    void assembleMergesEveryPlatformsLibraryAndNamesWhatIsMissingOrDiffers(@TempDir Path tmp) throws Exception {
        String here = Native.platform();
        String other = here.equals("linux-aarch64") ? "linux-x86_64" : "linux-aarch64";
        Path otherJar = asIfBuiltOn(other, tmp.resolve(other).resolve("groundcheck-" + version() + ".jar"), false);
        List<String> assemble = new ArrayList<>(List.of("bash", "scripts/build-jar.sh", "assemble"));

        List<String> both = new ArrayList<>(assemble);
        both.addAll(List.of("--platforms", here + "," + other, "--out", tmp.resolve("dist").toString(),
                releaseJar().toString(), otherJar.toString()));
        Ran merged = run(both);
        assertEquals(0, merged.code(), merged.out());
        Path mergedJar = tmp.resolve("dist").resolve("groundcheck-" + version() + ".jar");
        assertEquals(new TreeSet<>(List.of(here, other)), nativeFolders(mergedJar));
        try (JarFile jar = new JarFile(mergedJar.toFile())) {
            assertEquals(String.join("\n", new TreeSet<>(List.of(here, other))) + "\n", entry(jar, "native/platforms.txt"));
            assertEquals(entry(jar, "META-INF/maven/io.groundcheck/groundcheck/pom.xml"),
                    Files.readString(releaseJar().getParent().resolve("groundcheck-" + version() + ".pom")));
        }

        List<String> missing = new ArrayList<>(assemble);
        missing.addAll(List.of("--platforms", here + "," + other + ",windows-x86_64,macos-aarch64", "--out",
                tmp.resolve("missing").toString(), releaseJar().toString(), otherJar.toString()));
        Ran refused = run(missing);
        assertNotEquals(0, refused.code());
        assertTrue(refused.out().contains("no native library for windows-x86_64 macos-aarch64"), refused.out());
        assertTrue(!Files.exists(tmp.resolve("missing").resolve("groundcheck-" + version() + ".jar")));

        Path differing = asIfBuiltOn(other, tmp.resolve("differing").resolve("groundcheck-" + version() + ".jar"), true);
        List<String> mixed = new ArrayList<>(assemble);
        mixed.addAll(List.of("--platforms", here + "," + other, "--out", tmp.resolve("mixed").toString(),
                releaseJar().toString(), differing.toString()));
        Ran mixedUp = run(mixed);
        assertNotEquals(0, mixedUp.code());
        assertTrue(mixedUp.out().contains(differing + ": its classes differ"), mixedUp.out());
    }
}
