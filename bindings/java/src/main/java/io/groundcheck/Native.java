package io.groundcheck;

import java.io.IOException;
import java.io.InputStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;
import java.util.Map;

/**
 * The native library ({@code crates/groundcheck-jni}) and how it is found. Every method takes
 * and returns {@code byte[]}: UTF-8 text in, and one reply out — a tag byte, {@code 'O'} and the
 * result, or {@code 'E'} and a failure as JSON, which {@link #text} throws as a
 * {@link GroundcheckException}. Loading happens once, on first use; a platform without a library
 * is a {@code GroundcheckException} of kind {@code UNAVAILABLE} at every call, never an
 * {@link UnsatisfiedLinkError} that leaves the class unusable.
 */
final class Native {
    private Native() {}

    /** The library's base name: {@code libgroundcheck_jni.so}, {@code groundcheck_jni.dll}. */
    static final String LIBRARY = "groundcheck_jni";

    /** Where the library was loaded from: {@code jar:RESOURCE} or {@code java.library.path}. */
    private static String loadedFrom;

    /** Why loading failed, or {@code null} once it worked. */
    private static final String UNAVAILABLE = load();

    static native byte[] checkPolicy(byte[] spec);

    static native byte[] create(byte[] spec, byte[] rawOutputs);

    static native void destroy(long id);

    static native byte[] verifyInvocation(long id, byte[] row);

    static native byte[] verifyRun(long id, byte[][] rows);

    static native byte[] verifyBundle(long id, byte[] text);

    static native byte[] resolve(byte[] document, byte[] path);

    /** This machine as the jar names its folders: {@code linux-x86_64}, {@code macos-aarch64}. */
    static String platform() {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        if (os.startsWith("mac") || os.startsWith("darwin")) {
            os = "macos";
        } else if (os.startsWith("windows")) {
            os = "windows";
        } else if (os.startsWith("linux")) {
            os = "linux";
        }
        if (arch.equals("amd64") || arch.equals("x86-64")) {
            arch = "x86_64";
        } else if (arch.equals("arm64")) {
            arch = "aarch64";
        }
        return os + "-" + arch;
    }

    /**
     * Loads the library: the copy this jar carries for this platform
     * ({@code /native/PLATFORM/libgroundcheck_jni.so}, extracted to a temporary file, as a
     * library cannot be loaded from inside a jar), else {@code groundcheck_jni} on
     * {@code java.library.path}. Returns why neither worked, or {@code null}.
     */
    private static String load() {
        String platform = platform();
        String resource = "/native/" + platform + "/" + System.mapLibraryName(LIBRARY);
        String fromJar = null;
        try (InputStream in = Native.class.getResourceAsStream(resource)) {
            if (in != null) {
                String name = System.mapLibraryName(LIBRARY);
                Path file = Files.createTempFile("groundcheck-", "-" + name);
                file.toFile().deleteOnExit();
                Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
                System.load(file.toAbsolutePath().toString());
                loadedFrom = "jar:" + resource;
                return null;
            }
            fromJar = "this jar has no " + resource + " (it carries " + carried() + ")";
        } catch (IOException | LinkageError | SecurityException e) {
            fromJar = "loading " + resource + " from this jar failed: " + e;
        }
        try {
            System.loadLibrary(LIBRARY);
            loadedFrom = "java.library.path";
            return null;
        } catch (LinkageError | SecurityException e) {
            return "groundcheck has no native library for " + platform + ": " + fromJar
                    + ", and none named " + LIBRARY + " is on java.library.path ("
                    + System.getProperty("java.library.path", "") + "). Build one with "
                    + "`cargo build --release -p groundcheck-jni` and put it there, or use a jar built "
                    + "on this platform (scripts/test-java.sh)";
        }
    }

    /** The platforms this jar has a library for, as its build recorded them. */
    private static String carried() {
        try (InputStream in = Native.class.getResourceAsStream("/native/platforms.txt")) {
            if (in == null) {
                return "none";
            }
            String list = new String(in.readAllBytes(), StandardCharsets.UTF_8).trim().replace('\n', ' ');
            return list.isEmpty() ? "none" : list;
        } catch (IOException e) {
            return "none";
        }
    }

    /** Where the library was loaded from, or {@code null} when it was not (tests). */
    static String loadedFrom() {
        return UNAVAILABLE == null ? loadedFrom : null;
    }

    /** Throws {@code UNAVAILABLE} unless the library is loaded. */
    static void ensureLoaded() {
        if (UNAVAILABLE != null) {
            throw new GroundcheckException(GroundcheckException.Kind.UNAVAILABLE, UNAVAILABLE, null);
        }
    }

    /** A reply's result text, or its failure thrown. */
    static String text(byte[] reply) {
        if (reply == null || reply.length == 0) {
            throw new GroundcheckException("groundcheck: empty reply from the native library");
        }
        String text = new String(reply, 1, reply.length - 1, StandardCharsets.UTF_8);
        if (reply[0] == 'O') {
            return text;
        }
        Map<String, Object> failure = Json.map(Json.parse(text));
        GroundcheckException.Kind kind;
        try {
            // The core's kinds arrive in its own spelling (`duplicate_id`); the binding's own
            // (`ROW`, `TEMPLATE`) already in the enum's.
            kind = GroundcheckException.Kind.valueOf(Json.str(failure.get("kind")).toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException | NullPointerException e) {
            kind = GroundcheckException.Kind.INTERNAL;
        }
        throw new GroundcheckException(
                kind,
                Json.str(failure.get("message")),
                Json.str(failure.get("field")),
                Json.str(failure.get("place")),
                integer(failure.get("line")),
                integer(failure.get("column")),
                failure.get("offset") == null ? null : Json.num(failure.get("offset")),
                Json.str(failure.get("limit")),
                null);
    }

    private static Integer integer(Object value) {
        return value == null ? null : ((BigDecimal) value).intValue();
    }
}
