package io.groundcheck;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/** What the tests share: the repository, the command line under comparison, sample rows. */
final class Support {
    private Support() {}

    /** The repository root (scripts/test-java.sh passes it). */
    static final Path ROOT = Path.of(System.getProperty("groundcheck.root", "../.."));

    /** The `groundcheck` binary the Java results are compared with. */
    static final String BIN =
            System.getProperty("groundcheck.bin", ROOT.resolve("target/debug/groundcheck").toString());

    /** Runs the command line; returns stdout (exit code 0 or 1, else the test fails). */
    static String cli(String... args) {
        List<String> command = new ArrayList<>();
        command.add(BIN);
        command.addAll(List.of(args));
        try {
            Process p = new ProcessBuilder(command).directory(ROOT.toFile()).redirectErrorStream(false).start();
            p.getOutputStream().close();
            var stderr = new java.io.ByteArrayOutputStream();
            Thread errReader = new Thread(() -> {
                try {
                    p.getErrorStream().transferTo(stderr);
                } catch (IOException e) {
                    // The process ended; what was read is enough for the message.
                }
            });
            errReader.start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            errReader.join();
            byte[] err = stderr.toByteArray();
            int code = p.waitFor();
            if (code != 0 && code != 1) {
                throw new AssertionError(command + " exited " + code + ": " + new String(err, StandardCharsets.UTF_8));
            }
            return out;
        } catch (IOException | InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    /** Every shipped fixture: the `*.json` files of fixtures/ and of its subfolders of bundles. */
    static List<Path> fixtures() {
        List<Path> all = new ArrayList<>();
        for (String folder : List.of("fixtures", "fixtures/agent-runs", "fixtures/hostile")) {
            try (Stream<Path> files = Files.list(ROOT.resolve(folder))) {
                files.filter(f -> f.getFileName().toString().endsWith(".json")).sorted().forEach(all::add);
            } catch (IOException e) {
                throw new AssertionError(e);
            }
        }
        return all;
    }

    /** Each invocation object of a CLI report, as compact JSON (the engine's bytes for it). */
    static List<String> compactVerdicts(String report) {
        List<String> out = new ArrayList<>();
        for (Object run : Json.list(Json.map(Json.parse(report)).get("runs"))) {
            for (Object verdict : Json.list(Json.map(run).get("invocations"))) {
                out.add(Json.write(verdict));
            }
        }
        return out;
    }

    /** The columns of a row every test starts from: one ref that verifies. */
    static Row.Builder row() {
        return Row.builder()
                .id(1)
                .toolName("query_logs")
                .retrievalDetails("{\"evidence_status\": \"supported\", \"evidence_refs\": "
                        + "[{\"raw_path\": \"$.logs[0].message\", \"text\": \"connection refused\"}]}")
                .rawOutputText("{\"logs\": [{\"message\": \"dial tcp 10.0.0.7:5432: connection refused\"}]}");
    }

    /** A claim of one ref. */
    static String claim(String path, String text) {
        StringBuilder out = new StringBuilder("{\"evidence_status\":\"supported\",\"evidence_refs\":[{\"raw_path\":");
        Json.quote(path, out);
        out.append(",\"text\":");
        Json.quote(text, out);
        return out.append("}]}").toString();
    }

    static Map<String, Object> object(String json) {
        return Json.map(Json.parse(json));
    }
}
