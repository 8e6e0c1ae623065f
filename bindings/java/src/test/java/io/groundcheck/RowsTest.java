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
