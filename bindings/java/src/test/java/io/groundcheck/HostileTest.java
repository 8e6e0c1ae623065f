package io.groundcheck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.groundcheck.GroundcheckException.Kind;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/** Hostile input and misuse: a verdict or a GroundcheckException, never a crashed JVM. */
class HostileTest {
    private static final Verifier VERIFIER = new Verifier();

    /** Each lone surrogate of a Java string is read as U+FFFD, wherever it is. */
    @Test
    void loneSurrogatesAreReadAsReplacementCharacters() {
        Verdict inOutput = VERIFIER.verifyInvocation(Support.row()
                .retrievalDetails(Support.claim("$.m", "a\uFFFDb"))
                .rawOutputText("{\"m\": \"a\uD800b\"}").build());
        assertEquals(Status.SUPPORTED, inOutput.status());
        Verdict inQuote = VERIFIER.verifyInvocation(Support.row()
                .retrievalDetails(Support.claim("$.m", "x\uDC00"))
                .rawOutputText("{\"m\": \"x\uFFFD\"}").build());
        assertEquals(Status.SUPPORTED, inQuote.status());
        assertEquals("x\uFFFD", inQuote.refs().get(0).text(), "the echo is the text as read");
        // A pair is a character, not two lone surrogates.
        Verdict pair = VERIFIER.verifyInvocation(Support.row()
                .retrievalDetails(Support.claim("$.m", "\uD83D\uDE00"))
                .rawOutputText("{\"m\": \"ok \uD83D\uDE00\"}").build());
        assertEquals(Status.SUPPORTED, pair.status());
        // In a tool name, a path, a bundle: read the same way, never an error of encoding.
        assertEquals("q\uFFFD", VERIFIER.verifyInvocation(Support.row().toolName("q\uD800").build()).toolName());
        assertEquals(1, Groundcheck.resolve("{\"\uDFFF\": 1}", "$['\uFFFD']").size());
        assertEquals(Status.SUPPORTED, VERIFIER.verifyBundle("{\"invocations\": [" + Support.row().toolName("\uDBFF").build().toJson() + "]}")
                .verdicts().get(0).status());
        // A lone surrogate *escape* in JSON text is the engine's rule: the output is not JSON.
        Verdict escaped = VERIFIER.verifyInvocation(Support.row()
                .retrievalDetails(Support.claim("$", "\\ud800"))
                .rawOutputText("\"\\ud800\"").build());
        assertEquals(Status.SUPPORTED, escaped.status());
    }

    @Test
    void tenThousandDeepNestingIsLimitExceeded() {
        String deep = "[".repeat(10_000) + "\"connection refused\"" + "]".repeat(10_000);
        Verdict v = VERIFIER.verifyInvocation(Support.row().rawOutputText("{\"logs\": " + deep + "}").build());
        assertEquals(Outcome.LIMIT_EXCEEDED, v.refs().get(0).outcome());
        // Inline in a row's JSON, and in a claim: a verdict, not a stack overflow.
        Verdict inline = VERIFIER.verifyInvocation("{\"id\": 1, \"tool_name\": \"q\", \"raw_output\": " + deep + "}");
        assertEquals(Status.NO_EVIDENCE, inline.status());
        Verdict claim = VERIFIER.verifyInvocation(Support.row().retrievalDetails(deep).build());
        assertEquals(Reason.MALFORMED_DETAILS, claim.reason());
        GroundcheckException tooDeep = assertThrows(GroundcheckException.class, () -> Groundcheck.resolve(deep, "$..x"));
        assertEquals(Kind.TOO_DEEP, tooDeep.kind());
        assertEquals(1, Groundcheck.resolve(deep, "$").size());
    }

    /**
     * Native code runs on the caller's thread, and a stack overflow there kills the JVM: deep
     * documents under a policy that queries them (max depth 1,000) on a 256 KiB Java stack.
     */
    @Test
    void deepDocumentsOnASmallJavaStackAreVerdicts() throws Exception {
        String objects = "{\"a\":".repeat(999) + "\"connection refused\"" + "}".repeat(999);
        String arrays = "[".repeat(999) + "\"connection refused\"" + "]".repeat(999);
        List<String> outcomes = Collections.synchronizedList(new ArrayList<>());
        Throwable[] failed = new Throwable[1];
        Thread small = new Thread(null, () -> {
            try (Verifier deep = new Verifier(Policy.builder().maxDepth(1000).build())) {
                for (String path : List.of("$..a", "$..*", "$..[?@.a]", "$..[?search(@, 'refused')]")) {
                    for (String doc : List.of(objects, arrays)) {
                        outcomes.add(deep.verifyInvocation(Support.row()
                                .retrievalDetails(Support.claim(path, "connection refused"))
                                .rawOutputText(doc).build()).refs().get(0).outcome().wireName());
                    }
                    outcomes.add("resolve " + Groundcheck.resolve(objects, path).size());
                }
            } catch (Throwable t) {
                failed[0] = t;
            }
        }, "small-stack", 256 * 1024);
        small.start();
        small.join();
        if (failed[0] != null) {
            throw new AssertionError(failed[0]);
        }
        assertEquals(12, outcomes.size(), outcomes.toString());
        assertTrue(outcomes.contains("verified"), outcomes.toString());
    }

    /**
     * Paths nest too: parentheses and function calls recurse in the path parser. Ten thousand
     * of them once overflowed even the command line's 8 MiB stack; now past 32 they are a
     * limit, and below it they are parsed on a 256 KiB Java stack or on the engine's threads.
     */
    @Test
    void deeplyNestedPathsOnASmallJavaStackAreVerdicts() throws Exception {
        List<String> outcomes = Collections.synchronizedList(new ArrayList<>());
        Throwable[] failed = new Throwable[1];
        Thread small = new Thread(null, () -> {
            try (Verifier lenient = new Verifier(Policy.builder().maxPathChars(1_000_000).build())) {
                for (int n : new int[] {3, 14, 32, 33, 10_000}) {
                    for (String path : List.of(
                            "$[?" + "(".repeat(n) + "@ == 'connection refused'" + ")".repeat(n) + "]",
                            "$[?" + "length(".repeat(n) + "@" + ")".repeat(n) + " == 18]")) {
                        outcomes.add(n + " " + lenient.verifyInvocation(Support.row()
                                .retrievalDetails(Support.claim(path, "connection refused"))
                                .rawOutputText("[\"connection refused\"]").build()).refs().get(0).outcome().wireName());
                        try {
                            outcomes.add(n + " resolve " + Groundcheck.resolve("[\"connection refused\"]", path).size());
                        } catch (GroundcheckException e) {
                            outcomes.add(n + " resolve " + e.kind());
                        }
                    }
                }
            } catch (Throwable t) {
                failed[0] = t;
            }
        }, "small-stack", 256 * 1024);
        small.start();
        small.join();
        if (failed[0] != null) {
            throw new AssertionError(failed[0]);
        }
        assertEquals(List.of(
                "3 verified", "3 resolve 1", "3 path_not_found", "3 resolve 0",
                "14 verified", "14 resolve 1", "14 path_not_found", "14 resolve 0",
                "32 verified", "32 resolve 1", "32 path_not_found", "32 resolve 0",
                "33 limit_exceeded", "33 resolve PATH_LIMIT", "33 limit_exceeded", "33 resolve PATH_LIMIT",
                // Resolve applies the default path length limit (4,096 characters) first.
                "10000 limit_exceeded", "10000 resolve OVER_LIMIT", "10000 limit_exceeded", "10000 resolve OVER_LIMIT"),
                outcomes);
    }

    @Test
    void hugeInputsGetVerdicts() {
        String big = "x".repeat(32 << 20);
        Verdict v = VERIFIER.verifyInvocation(Support.row()
                .retrievalDetails(Support.claim("$.logs[1]", "connection refused"))
                .rawOutputText("{\"logs\": [\"" + big + "\", \"connection refused\"]}").build());
        assertEquals(Status.SUPPORTED, v.status());
        try (Verifier small = new Verifier(Policy.builder().maxOutputBytes(1 << 20).build())) {
            Verdict limited = small.verifyInvocation(Support.row().rawOutputText("\"" + big + "\"").build());
            assertEquals(Outcome.LIMIT_EXCEEDED, limited.refs().get(0).outcome());
        }
        String quote = "y".repeat(1 << 20);
        Verdict longQuote = VERIFIER.verifyInvocation(Support.row().retrievalDetails(Support.claim("$", quote)).build());
        assertEquals(Outcome.LIMIT_EXCEEDED, longQuote.refs().get(0).outcome());
    }

    /** Every reference argument of the API, null: an exception naming it, or the documented default. */
    @Test
    void nullEverywhere() {
        List<Executable> calls = List.of(
                () -> VERIFIER.verifyInvocation((Row) null),
                () -> VERIFIER.verifyInvocation((String) null),
                () -> VERIFIER.verifyRun(null),
                () -> VERIFIER.verifyRun(java.util.Arrays.asList(Support.row().build(), null)),
                () -> VERIFIER.verifyBundle((String) null),
                () -> VERIFIER.verifyBundle((Path) null),
                () -> Groundcheck.resolve(null, "$"),
                () -> Groundcheck.resolve("{}", null),
                () -> Row.ofJson(null),
                () -> Row.fromResultSet(null));
        for (Executable call : calls) {
            assertThrows(NullPointerException.class, call);
        }
        // Where null means "not set" or "the default", it says so and works.
        try (Verifier v = new Verifier(null, null)) {
            assertEquals(Policy.defaults(), v.policy());
        }
        Policy p = Policy.builder().require(null).match((String) null).match((Rung) null).minScore((String) null)
                .minScore((java.math.BigDecimal) null).build();
        assertEquals(Policy.defaults(), p);
        Row row = Row.builder().id(1).toolName("q").sessionId(null).runId(null).stepId(null).inputParams(null)
                .outputPreview(null).outputLength(null).retrievalLayer(null).l0MatchCount(null).l1MatchCount(null)
                .isTruncated(null).relevanceLevel(null).dedupReason(null).retrievalDetails(null).durationMs(null)
                .success(null).errorMessage(null).createdAt((String) null).createdAt((java.time.Instant) null)
                .rawOutputText(null).build();
        assertEquals("{\"id\":1,\"tool_name\":\"q\"}", row.toJson());
        assertEquals(Reason.NO_REFS, VERIFIER.verifyInvocation(row).reason());
        assertEquals(Kind.ROW, assertThrows(GroundcheckException.class,
                () -> VERIFIER.verifyInvocation(Row.builder().build())).kind());
    }

    @Test
    void useAfterCloseIsAnExceptionAndClosingTwiceIsHarmless() {
        Verifier v = new Verifier();
        v.close();
        v.close();
        for (Executable call : List.<Executable>of(
                () -> v.verifyInvocation(Support.row().build()),
                () -> v.verifyRun(List.of(Support.row().build())),
                () -> v.verifyBundle("{\"invocations\": []}"),
                () -> v.verifyBundle(Support.ROOT.resolve("fixtures/01_order_svc_5xx_spike.json")))) {
            assertEquals(Kind.CLOSED, assertThrows(GroundcheckException.class, call).kind());
        }
        assertTrue(v.toString().contains("closed"));
        // A made-up or stale handle reaches the native side as a number it does not know.
        assertEquals(Kind.CLOSED, assertThrows(GroundcheckException.class,
                () -> Native.text(Native.verifyBundle(-42, Json.utf8("{\"invocations\": []}")))).kind());
        // Nulls given straight to the native side (past the Java checks) are errors too.
        assertEquals(Kind.INTERNAL, assertThrows(GroundcheckException.class,
                () -> Native.text(Native.verifyRun(1, null))).kind());
        assertEquals(Kind.INTERNAL, assertThrows(GroundcheckException.class,
                () -> Native.text(Native.resolve(null, null))).kind());
    }

    /** A row whose verification takes a while: 300 log lines, the quote in the last. */
    private static Row slowRow() {
        StringBuilder logs = new StringBuilder("{\"logs\": [");
        for (int i = 0; i < 300; i++) {
            logs.append(i == 0 ? "" : ",").append("{\"message\": \"line ").append(i).append(" pool exhausted\"}");
        }
        return Support.row()
                .retrievalDetails(Support.claim("$.logs[*].message", "line 299 pool exhausted"))
                .rawOutputText(logs.append("]}").toString())
                .build();
    }

    /** Closing while other threads verify: each call gives its verdict or CLOSED, nothing else. */
    @Test
    void closingDuringConcurrentCallsIsSafe() throws Exception {
        Row slow = slowRow();
        for (int round = 0; round < 20; round++) {
            Verifier v = new Verifier();
            ExecutorService pool = Executors.newFixedThreadPool(4);
            AtomicInteger done = new AtomicInteger();
            AtomicInteger closed = new AtomicInteger();
            CountDownLatch started = new CountDownLatch(4);
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                futures.add(pool.submit(() -> {
                    started.countDown();
                    for (int i = 0; i < 50; i++) {
                        try {
                            assertEquals(Status.SUPPORTED, v.verifyInvocation(slow).status());
                            done.incrementAndGet();
                        } catch (GroundcheckException e) {
                            assertEquals(Kind.CLOSED, e.kind());
                            closed.incrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            started.await();
            v.close();
            for (Future<?> f : futures) {
                f.get();
            }
            pool.shutdown();
            assertEquals(200, done.get() + closed.get());
        }
    }

    /**
     * Whether {@code worker} is inside the native part of call number {@code call}: its top frame
     * is a native method, and the call counter read before and after its stack is that call's.
     */
    private static boolean inNativeCall(Thread worker, AtomicLong calls, long call) {
        long before = calls.get();
        StackTraceElement[] stack = worker.getStackTrace();
        long after = calls.get();
        return before == call && after == call && stack.length > 0 && stack[0].isNativeMethod();
    }

    /**
     * A call in flight when {@code close()} runs finishes with its verdict. Proved, not hoped for:
     * the worker's stack shows it inside the native call before {@code close()} and still inside
     * the same call (by a counter read around each look) after {@code close()} has returned; that
     * call then returns its verdict, not {@code CLOSED}. No sleep: the main thread watches.
     */
    @Test
    void aCallInFlightAcrossCloseFinishesWithItsVerdict() throws Exception {
        Row slow = slowRow();
        int overlapped = 0;
        for (int round = 0; round < 50 && overlapped == 0; round++) {
            Verifier v = new Verifier();
            AtomicLong calls = new AtomicLong();
            java.util.Map<Long, String> results = new java.util.concurrent.ConcurrentHashMap<>();
            AtomicBoolean stop = new AtomicBoolean();
            Thread worker = new Thread(() -> {
                while (!stop.get()) {
                    long call = calls.incrementAndGet();
                    try {
                        results.put(call, v.verifyInvocation(slow).status().wireName());
                    } catch (GroundcheckException e) {
                        results.put(call, e.kind().name());
                        return;
                    }
                }
            }, "verifying");
            worker.start();
            long call;
            do {
                call = calls.get();
            } while (!inNativeCall(worker, calls, call) && worker.isAlive());
            v.close();
            boolean spanned = inNativeCall(worker, calls, call);
            stop.set(true);
            worker.join();
            if (spanned) {
                assertEquals("supported", results.get(call), "the call that spanned close()");
                overlapped++;
            }
            assertTrue(results.values().stream().allMatch(r -> r.equals("supported") || r.equals("CLOSED")));
        }
        assertTrue(overlapped > 0, "no call was seen inside the native library across close() in 50 rounds");
    }

    @Test
    void eightThreadsSharingOneVerifierGetTheSequentialVerdicts() throws Exception {
        try (Verifier shared = new Verifier(Policy.builder().match("fuzzy").build())) {
            List<Path> fixtures = Support.fixtures().subList(0, 25);
            List<String> expected = new ArrayList<>();
            for (Path f : fixtures) {
                expected.add(shared.verifyBundle(f).toJson());
            }
            ExecutorService pool = Executors.newFixedThreadPool(8);
            List<Future<List<String>>> results = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                final int offset = t;
                results.add(pool.submit(() -> {
                    List<String> got = new ArrayList<>(Collections.nCopies(fixtures.size(), (String) null));
                    for (int k = 0; k < fixtures.size(); k++) {
                        int i = (k + offset) % fixtures.size();
                        got.set(i, shared.verifyBundle(fixtures.get(i)).toJson());
                    }
                    return got;
                }));
            }
            for (Future<List<String>> r : results) {
                assertEquals(expected, r.get());
            }
            pool.shutdown();
        }
    }

    /** 100,000 calls: resident memory and the heap stay flat (no leaked JNI reference or handle). */
    @Test
    void oneHundredThousandCallsWithFlatMemory() throws Exception {
        Row row = Support.row().build();
        List<Row> run = List.of(Support.row().id(1).build(), Support.row().id(2).build());
        for (int i = 0; i < 10_000; i++) {
            VERIFIER.verifyInvocation(row);
        }
        long heapBefore = heapAfterGc();
        long rssBefore = rssKiB();
        for (int i = 0; i < 100_000; i++) {
            VERIFIER.verifyInvocation(row);
            if (i % 10 == 0) {
                VERIFIER.verifyRun(run);
            }
            if (i % 100 == 0) {
                new Verifier().close();
            }
        }
        long heapAfter = heapAfterGc();
        long rssAfter = rssKiB();
        String seen = String.format("100,000 calls: RSS %d -> %d KiB, heap after GC %d -> %d KiB",
                rssBefore, rssAfter, heapBefore >> 10, heapAfter >> 10);
        assertTrue(rssAfter - rssBefore < 32 * 1024, seen);
        assertTrue(heapAfter - heapBefore < 8 << 20, seen);
    }

    static long rssKiB() throws Exception {
        for (String line : java.nio.file.Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", ""));
            }
        }
        throw new AssertionError("no VmRSS in /proc/self/status");
    }

    static long heapAfterGc() throws InterruptedException {
        Runtime rt = Runtime.getRuntime();
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(50);
        }
        return rt.totalMemory() - rt.freeMemory();
    }
}
