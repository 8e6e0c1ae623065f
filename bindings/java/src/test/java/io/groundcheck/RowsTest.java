package io.groundcheck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Rows as a Java service holds them, and results as records. */
class RowsTest {
    private static final Verifier VERIFIER = new Verifier();

    @Test
    void aBuiltRowWithRetrievalDetailsAsColumnText() {
        Verdict v = VERIFIER.verifyInvocation(Support.row().createdAt(Instant.parse("2026-11-30T10:00:01Z")).build());
        assertEquals(Status.SUPPORTED, v.status());
        assertEquals(Reason.VERIFIED, v.reason());
        assertEquals(Boolean.TRUE, v.claimAgrees());
        assertEquals(Source.RAW_OUTPUT, v.source());
        RefReport ref = v.refs().get(0);
        assertEquals(Outcome.VERIFIED, ref.outcome());
        assertEquals(Rung.EXACT, ref.match());
        assertEquals("$['logs'][0]['message']", ref.matchedPath());
    }

    /** A JSON column holding JSON encoded twice is read as the store reads it: once. */
    @Test
    void aJsonColumnIsReadAsTheStoreReadsIt() {
        String once = Support.claim("$.logs[0].message", "connection refused");
        StringBuilder twice = new StringBuilder();
        Json.quote(once, twice);
        assertEquals(Status.SUPPORTED, VERIFIER.verifyInvocation(Support.row().retrievalDetails(twice.toString()).build()).status());
        // Text that is not JSON is a string of that text: the claim is malformed, not an error.
        Verdict notJson = VERIFIER.verifyInvocation(Support.row().retrievalDetails("{oops").build());
        assertEquals(Reason.MALFORMED_DETAILS, notJson.reason());
        // JSON null is no claim at all.
        assertEquals(Reason.NO_REFS, VERIFIER.verifyInvocation(Support.row().retrievalDetails("null").build()).reason());
    }

    @Test
    void aRowAsJsonTextIsTheSameRow() {
        Row built = Support.row().build();
        assertEquals(VERIFIER.verifyInvocation(built), VERIFIER.verifyInvocation(Row.ofJson(built.toJson())));
        assertEquals(VERIFIER.verifyInvocation(built), VERIFIER.verifyInvocation(built.toJson()));
        String inline = "{\"id\": 7, \"tool_name\": \"q\", \"retrieval_details\": " + Support.claim("$.a", "0.950")
                + ", \"raw_output\": {\"a\": 0.950}}";
        assertEquals(Status.SUPPORTED, VERIFIER.verifyInvocation(inline).status());
    }

    /**
     * A raw output given as a string in a row's JSON — a JSON column as JDBC's {@code getString}
     * returns it, put in the row as it came — is the output's text, read as
     * {@code raw_output_text}: the verdict is the command line's for that text. As a JSON string
     * document, the quote {@code "OOMKilled} at {@code $} would be found in the string's own
     * quote characters.
     */
    @Test
    void aStringRawOutputIsTheOutputsText(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        String column = "{\"reason\": \"OOMKilled\", \"exit_code\": 137, \"ratio\": 0.950}";
        String[][] claims = {{"$", "\"OOMKilled"}, {"$.reason", "OOMKilled"}, {"$.ratio", "0.950"}};
        StringBuilder bundle = new StringBuilder("{\"invocations\": [");
        List<Row> rows = new java.util.ArrayList<>();
        for (int i = 0; i < claims.length; i++) {
            StringBuilder row = new StringBuilder("{\"id\": " + (i + 1) + ", \"tool_name\": \"kubectl\", \"retrieval_details\": ");
            row.append(Support.claim(claims[i][0], claims[i][1]));
            StringBuilder asText = new StringBuilder(row).append(", \"raw_output_text\": ");
            row.append(", \"raw_output\": ");
            Json.quote(column, row);
            Json.quote(column, asText);
            rows.add(Row.ofJson(row.append('}').toString()));
            bundle.append(i > 0 ? "," : "").append(asText.append('}'));
        }
        java.nio.file.Path file = dir.resolve("rows.json");
        java.nio.file.Files.writeString(file, bundle.append("]}").toString());
        List<String> expected = Support.compactVerdicts(Support.cli("verify", "--format", "json", file.toString()));
        for (int i = 0; i < rows.size(); i++) {
            assertEquals(expected.get(i), VERIFIER.verifyInvocation(rows.get(i)).toJson(), claims[i][0]);
            assertEquals(expected.get(i), VERIFIER.verifyInvocation(rows.get(i).toJson()).toJson(), claims[i][0]);
        }
        assertEquals(Status.UNSUPPORTED, VERIFIER.verifyInvocation(rows.get(0)).status());
        assertEquals(Status.SUPPORTED, VERIFIER.verifyInvocation(rows.get(2)).status());
        List<String> run = new java.util.ArrayList<>();
        for (RunReport r : VERIFIER.verifyRun(rows).runs()) {
            r.invocations().forEach(v -> run.add(v.toJson()));
        }
        assertEquals(expected, run);
        // A bundle keeps its meaning: there a string raw_output is a JSON string document.
        StringBuilder document = new StringBuilder("{\"invocations\": [{\"id\": 1, \"tool_name\": \"kubectl\", \"retrieval_details\": ");
        document.append(Support.claim("$", "\"OOMKilled"));
        document.append(", \"raw_output\": ");
        Json.quote(column, document);
        assertEquals(Status.SUPPORTED, VERIFIER.verifyBundle(document.append("}]}").toString()).verdicts().get(0).status());
        // JSON null is no raw output, as SQL NULL; a JSON null document is the text "null".
        Verdict none = VERIFIER.verifyInvocation("{\"id\": 1, \"tool_name\": \"q\", \"retrieval_details\": "
                + Support.claim("$", "null") + ", \"raw_output\": null}");
        assertEquals(Source.NONE, none.source());
        Verdict nullDocument = VERIFIER.verifyInvocation("{\"id\": 1, \"tool_name\": \"q\", \"retrieval_details\": "
                + Support.claim("$", "null") + ", \"raw_output\": \"null\"}");
        assertEquals(Source.RAW_OUTPUT, nullDocument.source());
    }

    @Test
    void rawOutputTextThatIsNotJsonIsOneString() {
        Verdict v = VERIFIER.verifyInvocation(Support.row()
                .retrievalDetails(Support.claim("$", "connection refused"))
                .rawOutputText("2026-11-30 ERROR dial tcp: connection refused").build());
        assertEquals(Status.SUPPORTED, v.status());
    }

    @Test
    void aCompletePreviewStandsInAndAJavaLengthCountsInUtf16Units() {
        String preview = "{\"m\": \"\uD83D\uDE00 connection refused\"}";
        Verdict v = VERIFIER.verifyInvocation(Support.row().rawOutputText(null)
                .retrievalDetails(Support.claim("$.m", "connection refused"))
                .outputPreview(preview).outputLength(preview.length()).isTruncated(false).build());
        assertEquals(Source.PREVIEW, v.source());
        assertEquals(Status.SUPPORTED, v.status());
    }

    @Test
    void resultsAreTypedImmutableAndSayWhy() {
        Verdict v = VERIFIER.verifyInvocation(Support.row()
                .retrievalDetails(Support.claim("$.logs[0].message", "connection refused by pear")).build());
        assertEquals(Status.UNSUPPORTED, v.status());
        assertTrue(v.isClaimMismatch());
        RefReport ref = v.refs().get(0);
        assertEquals(Outcome.TEXT_NOT_FOUND, ref.outcome());
        assertNotNull(ref.nearest());
        assertEquals("$['logs'][0]['message']", ref.nearest().path());
        assertEquals(3, ref.nearest().score().scale(), "a score keeps its three decimals");
        assertThrows(UnsupportedOperationException.class, () -> v.refs().clear());
        assertTrue(v.toString().contains("TEXT_NOT_FOUND"));
        // The same verdict inside a report writes the same JSON.
        Report again = VERIFIER.verifyRun(List.of(Row.ofJson(Support.row()
                .retrievalDetails(Support.claim("$.logs[0].message", "connection refused by pear")).build().toJson())));
        assertEquals(v.toJson(), again.runs().get(0).invocations().get(0).toJson());
        assertEquals(1, again.runs().get(0).summary().claimMismatches());
    }

    @Test
    void aFuzzyMatchCarriesItsScore() {
        try (Verifier fuzzy = new Verifier(Policy.builder().match(Rung.FUZZY).minScore(new BigDecimal("0.9")).build())) {
            Verdict v = fuzzy.verifyInvocation(Support.row()
                    .retrievalDetails(Support.claim("$.logs[0].message", "connection refused by pear"))
                    .rawOutputText("{\"logs\": [{\"message\": \"connection refused by peer\"}]}").build());
            assertEquals(Rung.FUZZY, v.refs().get(0).match());
            assertEquals(new BigDecimal("0.961"), v.refs().get(0).score());
            assertEquals("require=all;match=fuzzy;min_score=0.900", fuzzy.policy().key());
        }
    }

    @Test
    void aPolicyIsReadBackWithItsValuesFilledIn() {
        Policy p = Policy.builder().maxDepth(64).build();
        assertEquals("all", p.require());
        assertEquals("elided", p.match());
        assertEquals("0.900", p.minScore());
        assertEquals(64, p.limits().maxDepth());
        assertEquals(1000, p.limits().maxRefs());
        assertEquals(Policy.defaults(), Policy.builder().build());
    }

    @Test
    void resolveFindsWhatVerificationFinds() {
        List<ResolvedNode> nodes = Groundcheck.resolve(
                "{\"content\":[{\"type\":\"text\",\"text\":\"{\\\"items\\\":[{\\\"message\\\":\\\"disk full\\\"}]}\"}]}",
                "$.content[0].text.items[0].message");
        assertEquals(List.of(new ResolvedNode("$['content'][0]['text']['items'][0]['message']", "\"disk full\"", true, null)), nodes);
        assertEquals("0.950", Groundcheck.resolve("{\"data\":{\"value\":[1700000000,0.950]}}", "$..value[1]").get(0).valueJson());
    }

    @Test
    void resolveReadsJsonLinesAndYamlOnTheirView() {
        String logs = "{\"level\":\"info\",\"msg\":\"starting\"}\n{\"level\":\"error\",\"msg\":\"connection refused\"}\n";
        assertEquals(List.of(new ResolvedNode("$[1]['msg']", "\"connection refused\"", false, "json_lines")),
                Groundcheck.resolve(logs, "$[1].msg"));
        String pod = "status:\n  containerStatuses:\n  - restartCount: 4\n";
        assertEquals(List.of(new ResolvedNode("$['status']['containerStatuses'][0]['restartCount']", "\"4\"", false, "yaml")),
                Groundcheck.resolve(pod, "$.status.containerStatuses[0].restartCount"));
        GroundcheckException e = assertThrows(GroundcheckException.class, () -> Groundcheck.resolve("plain words", "$.a"));
        assertEquals(GroundcheckException.Kind.JSON, e.kind());
    }
}
