package io.groundcheck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The command line's verdicts, byte for byte, through every way into the Java library. */
class CliParityTest {
    private static final Verifier VERIFIER = new Verifier();

    @Test
    void theFixturesAreThere() {
        assertTrue(Support.fixtures().size() >= 40, "fixtures: " + Support.fixtures());
    }

    /** Every fixture: the report through verifyBundle(Path) and (String), and each verdict's JSON. */
    @TestFactory
    Stream<DynamicTest> everyFixtureIsTheCliReportByteForByte() {
        return Support.fixtures().stream().map(fixture -> DynamicTest.dynamicTest(
                Support.ROOT.relativize(fixture).toString(), () -> {
                    String expected = Support.cli("verify", "--format", "json", fixture.toString());
                    Report report = VERIFIER.verifyBundle(fixture);
                    assertEquals(expected, report.toJson());
                    String text = Files.readString(fixture, StandardCharsets.UTF_8);
                    assertEquals(expected, VERIFIER.verifyBundle(text).toJson());
                    List<String> verdicts = new ArrayList<>();
                    for (Verdict v : report.verdicts()) {
                        verdicts.add(v.toJson());
                    }
                    assertEquals(Support.compactVerdicts(expected), verdicts);
                    List<String> runs = new ArrayList<>();
                    List<String> expectedRuns = new ArrayList<>();
                    for (RunReport run : report.runs()) {
                        runs.add(run.toJson());
                    }
                    for (Object run : Json.list(Support.object(expected).get("runs"))) {
                        expectedRuns.add(Json.write(run));
                    }
                    assertEquals(expectedRuns, runs);
                }));
    }

    @ParameterizedTest
    @ValueSource(strings = {"exact", "normalized", "fuzzy"})
    void aPolicyGivesTheCliReportUnderTheSameFlags(String match) {
        Path fixture = Support.ROOT.resolve("fixtures/16_policy_sensitivity_cpu_throttling.json");
        Policy policy = Policy.builder().require("any").match(match).minScore("0.8").build();
        String expected = Support.cli(
                "verify", "--format", "json", "--require", "any", "--match", match, "--min-score", "0.8",
                fixture.toString());
        try (Verifier verifier = new Verifier(policy)) {
            assertEquals(expected, verifier.verifyBundle(fixture).toJson());
        }
    }

    @Test
    void rawOutputFilesThroughATemplateAreTheCliS() {
        String template = Support.ROOT.resolve("fixtures/sessions").toString() + "/{session_id}/tools/{id}.json";
        Path fixture = Support.ROOT.resolve("fixtures/24_raw_output_files.json");
        String expected = Support.cli("verify", "--format", "json", "--raw-outputs", template, fixture.toString());
        try (Verifier verifier = new Verifier(null, template)) {
            Report report = verifier.verifyBundle(fixture);
            assertEquals(expected, report.toJson());
            assertTrue(report.verdicts().stream().anyMatch(v -> v.source() == Source.FILE));
        }
    }

    /** Rows built in Java, verified as a run, give the report the CLI prints for them as a bundle. */
    @Test
    void rowsAsARunAreTheCliReportOfTheSameBundle(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
        List<Row> rows = new ArrayList<>();
        StringBuilder bundle = new StringBuilder("{\"invocations\": [");
        for (int i = 1; i <= 5; i++) {
            Row row = Support.row().id(i).runId(i % 2 == 0 ? "run-even" : "run-odd").sessionId("s")
                    .retrievalDetails(i == 3 ? null : Support.claim("$.logs[0].message", i == 4 ? "refused by pear" : "refused"))
                    .build();
            rows.add(row);
            bundle.append(i > 1 ? "," : "").append(row.toJson());
        }
        Files.writeString(dir.resolve("rows.json"), bundle.append("]}").toString());
        String expected = Support.cli("verify", "--format", "json", dir.resolve("rows.json").toString());
        assertEquals(expected, VERIFIER.verifyRun(rows).toJson());
    }
}
