package io.groundcheck;

/**
 * A node a path selects, as {@code groundcheck resolve} prints it.
 *
 * @param path the node's RFC 9535 normalized path
 * @param valueJson the node's value as compact JSON text, numbers as written; text, so that a
 *     value nested any depth costs nothing to hand over, and any JSON library can read it
 * @param descended whether it was selected inside a string holding JSON (the expanded view)
 * @param readAs for a document that is not JSON, the view it was selected on: {@code
 *     "json_lines"} or {@code "yaml"}; {@code null} when selected in the document as written
 */
public record ResolvedNode(String path, String valueJson, boolean descended, String readAs) {}
