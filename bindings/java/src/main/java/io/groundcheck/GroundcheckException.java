package io.groundcheck;

import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * The one exception groundcheck throws, for every failure: its {@link #kind()} says what went
 * wrong, so a caller tells a bad row from a bad policy or a closed verifier with a {@code switch},
 * not by reading messages. Unchecked, as a bad input is a caller's bug or bad data rather than
 * something every call site must declare.
 *
 * <p>Problems inside a well-formed row (a bad {@code raw_path}, a hostile raw output) are never
 * exceptions: they are verdicts. A {@code null} argument to a method that needs an object is a
 * {@link NullPointerException} naming the parameter, as {@link java.util.Objects#requireNonNull}
 * throws it.
 */
public final class GroundcheckException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * What kind of failure an exception is. The first eight, and {@link #OVER_LIMIT}, mirror the
     * engine's own error kinds ({@code groundcheck_core::ErrorKind}); the rest are this binding's.
     */
    public enum Kind {
        /** A text is not JSON (RFC 8259, strictly): a document given to {@code resolve}. */
        JSON,
        /** A bundle is not JSON, not UTF-8, or breaks the bundle format. */
        BUNDLE,
        /** A path is neither RFC 9535 JSONPath nor an RFC 6901 JSON Pointer. */
        PATH,
        /** A path that may be valid is not run, because it passes a limit of the engine. */
        PATH_LIMIT,
        /** {@code resolve} would run a query on a document nested too deep. */
        TOO_DEEP,
        /**
         * {@code resolve} stopped at a limit: the path selects more nodes than the node limit
         * (or would pass through more on its way: {@code $[*,*][*,*]…} is refused before its
         * nodes are built), the document or the selected nodes are longer than the output size
         * limit, or the path is longer than the path length limit. {@link #limit()} names it.
         */
        OVER_LIMIT,
        /** An {@code id} seen twice in one run. */
        DUPLICATE_ID,
        /** A name that is not one of the engine's ({@code require}, {@code match}). */
        UNKNOWN_NAME,
        /** A text that is not a score ({@code min_score}: 0.001 to 1, at most three decimals). */
        SCORE,
        /** A row that cannot be read: a missing {@code id}, a column of the wrong type; {@link #field()} names it. */
        ROW,
        /** A policy limit below 1. */
        LIMIT,
        /** A raw-outputs template that is not one. */
        TEMPLATE,
        /** A bundle file that cannot be read. */
        IO,
        /** A {@link Verifier} used after {@link Verifier#close()}. */
        CLOSED,
        /** The native library is missing for this platform, or could not be loaded. */
        UNAVAILABLE,
        /** A bug in groundcheck (a Rust panic, caught at the boundary): please report the input. */
        INTERNAL
    }

    /** What kind of failure this is. */
    private final Kind kind;
    /** The row's field that cannot be read, or null. */
    private final String field;
    /** The place inside a bundle, or null. */
    private final String place;
    /** The 1-based line in a text, or null. */
    private final Integer line;
    /** The 1-based column in a text, or null. */
    private final Integer column;
    /** The byte offset in a text, or null. */
    private final Long offset;
    /** The limit that stopped the call, by its report name, or null. */
    private final String limit;

    /**
     * An {@code INTERNAL} failure. The native library throws it this way for what escapes its
     * guarded work, so the constructor must stay.
     */
    GroundcheckException(String message) {
        this(Kind.INTERNAL, message, null, null, null, null, null, null);
    }

    GroundcheckException(Kind kind, String message, Throwable cause) {
        this(kind, message, null, null, null, null, null, cause);
    }

    GroundcheckException(
            Kind kind,
            String message,
            String field,
            String place,
            Integer line,
            Integer column,
            Long offset,
            Throwable cause) {
        this(kind, message, field, place, line, column, offset, null, cause);
    }

    GroundcheckException(
            Kind kind,
            String message,
            String field,
            String place,
            Integer line,
            Integer column,
            Long offset,
            String limit,
            Throwable cause) {
        super(message, cause);
        this.limit = limit;
        this.kind = kind;
        this.field = field;
        this.place = place;
        this.line = line;
        this.column = column;
        this.offset = offset;
    }

    /** What kind of failure this is. */
    public Kind kind() {
        return kind;
    }

    /** For a {@link Kind#ROW} failure, the column (or {@code row}) that cannot be read. */
    public Optional<String> field() {
        return Optional.ofNullable(field);
    }

    /** For a bundle that is JSON but breaks the format, where: {@code $.invocations[2].id}. */
    public Optional<String> place() {
        return Optional.ofNullable(place);
    }

    /** For a text that is not JSON, or a path that is not one: the 1-based line. */
    public OptionalInt line() {
        return line == null ? OptionalInt.empty() : OptionalInt.of(line);
    }

    /** The 1-based column of the same place, in characters (Unicode scalar values). */
    public OptionalInt column() {
        return column == null ? OptionalInt.empty() : OptionalInt.of(column);
    }

    /**
     * The limit that stopped the call, by the name a report gives it ({@code nodes},
     * {@code depth}, {@code path_length}, {@code output_size}): for {@link Kind#OVER_LIMIT},
     * {@link Kind#TOO_DEEP} ({@code depth}) and {@link Kind#PATH_LIMIT} ({@code path_length}).
     */
    public Optional<String> limit() {
        return Optional.ofNullable(limit);
    }

    /** The byte offset (in UTF-8) of the same place. */
    public OptionalLong offset() {
        return offset == null ? OptionalLong.empty() : OptionalLong.of(offset);
    }
}
