#!/usr/bin/env python3
"""The peer: what a team would write instead of groundcheck, in Python 3.11.

Does the work of `groundcheck verify --format jsonl PATH...` on bundle files (SPEC §2) with
the rules of SPEC §3: read the claim (§3.1), find the raw document (§3.2), resolve each ref's
`raw_path` with an RFC 9535 JSONPath library (jsonpath-rfc9535) or as an RFC 6901 JSON
Pointer, walk the leaves of the selected nodes in document order and try the ladder
exact -> normalized -> elided (§3.3), then classify the invocation (§3.4). Numbers are
matched by their text as written: the JSON parser keeps every number's source text.

Single process, standard library plus the JSONPath library. It is a comparison baseline,
not a replacement: the limits of SPEC §6 are approximated (text, path, output size, node
count; nesting depth only as far as Python's recursion guard), and bundle validation covers
the common mistakes only (unknown keys, both raw-output keys, duplicate ids, bad JSON).

Usage: peer.py [--match exact|normalized|elided] [--require all|any] PATH...
Prints one JSON line per invocation (the fields of groundcheck's jsonl report).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import unicodedata
from bisect import bisect_right
from functools import lru_cache

import jsonpath_rfc9535 as jsonpath
from jsonpath_rfc9535.serialize import canonical_string

# ---------------------------------------------------------------------------------------
# Limits (SPEC §6 defaults).
MAX_OUTPUT_BYTES = 64 * 1024 * 1024
MAX_TEXT_CHARS = 65_536
MAX_PATH_CHARS = 4_096
MAX_NODES = 100_000
MAX_REFS = 1_000

# Unicode White_Space, which is what Rust's char::is_whitespace / str::trim use. Python's
# str.isspace() also counts U+001C..U+001F, so the explicit set is used instead.
WHITE_SPACE = (
    "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007"
    "\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)
_WS_RUN = re.compile("[" + re.escape(WHITE_SPACE) + "]+")

MARKERS = frozenset(("$.no_evidence", "$['no_evidence']", '$["no_evidence"]'))

INVOCATION_KEYS = frozenset((
    "id", "session_id", "run_id", "step_id", "tool_name", "input_params", "output_preview",
    "output_length", "retrieval_layer", "l0_match_count", "l1_match_count", "is_truncated",
    "relevance_level", "dedup_reason", "retrieval_details", "duration_ms", "success",
    "error_message", "created_at", "raw_output", "raw_output_text",
))
INT_COLUMNS = ("step_id", "output_length", "l0_match_count", "l1_match_count", "duration_ms")
BOOL_COLUMNS = ("is_truncated", "success")
STRING_COLUMNS = ("session_id", "run_id", "tool_name", "output_preview", "retrieval_layer",
                  "relevance_level", "dedup_reason", "error_message", "created_at")

RUNGS = ("exact", "normalized", "elided")


# ---------------------------------------------------------------------------------------
# JSON with numbers kept as written.

class Num(float):
    """A JSON number, kept as the text it was written with (`0.950` stays `0.950`).

    A float subclass so that the JSONPath library's filters can still compare it
    (`?@.count > 20`); leaves are matched by `text` only.
    """

    __slots__ = ("text",)

    def __new__(cls, text: str):
        number = float.__new__(cls, text)  # huge values become inf: only filters see it
        number.text = text
        return number

    def __repr__(self) -> str:
        return self.text


class NotJson(ValueError):
    pass


def _no_constant(name: str):
    raise NotJson(f"{name} is not JSON")


_decoder = json.JSONDecoder(parse_float=Num, parse_int=Num, parse_constant=_no_constant)
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def _has_lone_surrogate(value) -> bool:
    stack = [value]
    while stack:
        v = stack.pop()
        t = type(v)
        if t is str:
            if _SURROGATE.search(v):
                return True
        elif t is dict:
            for k, item in v.items():
                if _SURROGATE.search(k):
                    return True
                stack.append(item)
        elif t is list:
            stack.extend(v)
    return False


def parse_json(text: str):
    """RFC 8259 JSON (no NaN, no BOM, no trailing bytes, no lone surrogate escapes).

    Raises NotJson; RecursionError when nesting is deeper than Python's recursion guard.
    """
    try:
        value = _decoder.decode(text)  # rejects BOM, trailing data, control characters
    except (json.JSONDecodeError, NotJson) as e:
        raise NotJson(str(e)) from None
    # Python accepts a lone surrogate escape; RFC 8259 text with one is not JSON here.
    if "\\u" in text and _SURROGATE_ESCAPE.search(text) and _has_lone_surrogate(value):
        raise NotJson("lone surrogate escape")
    return value


# ---------------------------------------------------------------------------------------
# Normalisation and the ladder (§3.3 step 5).

_FOLD = str.maketrans({
    "\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "\u2032": "'",
    "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u201f": '"', "\u00ab": '"', "\u00bb": '"',
    "\u300c": '"', "\u300d": '"', "\u300e": '"', "\u300f": '"',
    "\u2010": "-", "\u2011": "-", "\u2012": "-", "\u2013": "-", "\u2014": "-", "\u2015": "-",
    "\u2212": "-",
})


def normalize(text: str) -> str:
    """NFKC, typographic folding, full lower casing, white-space runs to one space, trim."""
    s = unicodedata.normalize("NFKC", text).translate(_FOLD).lower()
    return _WS_RUN.sub(" ", s).strip(" ")


_DIGITS = frozenset("0123456789")


def splits_number(hay: str, start: int, end: int) -> bool:
    """Whether hay[start:end], taken as a match, splits a number of `hay` (§3.3): where it
    begins with a digit, the character before is a digit or a `.`/`,` with a digit before it;
    where it ends with a digit, the character after is a digit or a `.`/`,` with a digit
    after it. Only 0-9 are digits."""
    if start >= end:
        return False
    if hay[start] in _DIGITS and start > 0:
        before = hay[start - 1]
        if before in _DIGITS or (before in ".," and start > 1 and hay[start - 2] in _DIGITS):
            return True
    if hay[end - 1] in _DIGITS and end < len(hay):
        after = hay[end]
        if after in _DIGITS or (after in ".," and end + 1 < len(hay) and hay[end + 1] in _DIGITS):
            return True
    return False


def find_whole(hay: str, needle: str, at: int = 0) -> int:
    """Where `needle` first occurs in `hay` at or after `at` without splitting a number
    (overlapping occurrences tried in turn), or -1."""
    while True:
        found = hay.find(needle, at)
        if found < 0 or not splits_number(hay, found, found + len(needle)):
            return found
        at = found + 1


class Needle:
    """A ref's text, prepared once for every rung."""

    __slots__ = ("text", "normalized", "pieces")

    def __init__(self, text: str) -> None:
        self.text = text
        self.normalized = normalize(text)
        pieces = None
        if "..." in self.normalized:
            parts = [p.strip(WHITE_SPACE) for p in self.normalized.split("...")]
            parts = [p for p in parts if p]
            if len(parts) >= 2:
                pieces = parts
        self.pieces = pieces

    def normalized_in(self, leaf_n: str) -> bool:
        # A needle that normalises to nothing proves nothing.
        return bool(self.normalized) and find_whole(leaf_n, self.normalized) >= 0

    def elided_in(self, leaf_n: str) -> bool:
        pieces = self.pieces
        if pieces is None:
            return False
        at = 0
        for piece in pieces:
            found = find_whole(leaf_n, piece, at)
            if found < 0:
                return False
            at = found + len(piece)
        return True

    def rung_in_text(self, text: str, max_rung: int):
        """The first rung (index) on which the needle is in `text` taken as one leaf."""
        if find_whole(text, self.text) >= 0:
            return 0
        if max_rung == 0:
            return None
        n = normalize(text)
        if self.normalized_in(n):
            return 1
        if max_rung == 2 and self.elided_in(n):
            return 2
        return None

    def find(self, leaves: list, max_rung: int):
        """(rung index, leaf ordinal) of the first hit, each rung on every leaf first."""
        text = self.text
        for i, leaf in enumerate(leaves):
            if find_whole(leaf, text) >= 0:
                return 0, i
        if max_rung == 0:
            return None
        normalized = [normalize(leaf) for leaf in leaves]
        if self.normalized:
            needle = self.normalized
            for i, leaf in enumerate(normalized):
                if find_whole(leaf, needle) >= 0:
                    return 1, i
        if max_rung == 2 and self.pieces is not None:
            for i, leaf in enumerate(normalized):
                if self.elided_in(leaf):
                    return 2, i
        return None


def leaf_texts(value, out: list) -> None:
    """Appends the text of every leaf under `value`, depth-first in document order."""
    stack = [value]
    pop, push, extend = stack.pop, stack.append, stack.extend
    append = out.append
    while stack:
        v = pop()
        t = type(v)
        if t is str:
            append(v)
        elif t is Num:
            append(v.text)
        elif t is dict:
            if v:
                extend(reversed(v.values()))
        elif t is list:
            if v:
                extend(reversed(v))
        elif v is True:
            append("true")
        elif v is False:
            append("false")
        else:
            append("null")


def nth_leaf_location(value, n: int):
    """The location steps (names and indices) of the n-th leaf under `value`."""
    stack = [(value, ())]
    count = 0
    while stack:
        v, loc = stack.pop()
        t = type(v)
        if t is dict:
            stack.extend(reversed([(item, loc + (k,)) for k, item in v.items()]))
        elif t is list:
            stack.extend(reversed([(item, loc + (i,)) for i, item in enumerate(v)]))
        else:
            if count == n:
                return loc
            count += 1
    raise AssertionError("leaf ordinal out of range")


def normalized_path(location) -> str:
    return "$" + "".join(
        f"[{canonical_string(p)}]" if isinstance(p, str) else f"[{p}]" for p in location
    )


# ---------------------------------------------------------------------------------------
# Paths: RFC 9535 JSONPath, else RFC 6901 JSON Pointer (§3.3 step 3).

class _Env(jsonpath.JSONPathEnvironment):
    max_recursion_depth = 600  # below Python's own recursion guard


_ENV = _Env()
_POINTER_BAD_ESCAPE = re.compile("~(?![01])")
_ARRAY_INDEX = re.compile("0|[1-9][0-9]*")


def _pointer(path: str):
    if not path.startswith("/"):
        return None
    tokens = []
    for token in path[1:].split("/"):
        if _POINTER_BAD_ESCAPE.search(token):
            return None
        tokens.append(token.replace("~1", "/").replace("~0", "~"))
    return tokens


@lru_cache(maxsize=65_536)
def compile_path(path: str):
    """('jsonpath', query) or ('pointer', tokens), or None for an invalid path."""
    try:
        return ("jsonpath", _ENV.compile(path))
    except Exception:  # any JSONPathError, or a lexer failure on hostile input
        tokens = _pointer(path)
        return None if tokens is None else ("pointer", tokens)


def select(compiled, doc):
    """The selected nodes as (location tuple, value), in RFC 9535 order."""
    kind, query = compiled
    if kind == "jsonpath":
        return [(node.location, node.value) for node in query.finditer(doc)]
    value, loc = doc, ()
    for token in query:
        if type(value) is dict:
            if token not in value:
                return []
            value, loc = value[token], loc + (token,)
        elif type(value) is list:
            if not _ARRAY_INDEX.fullmatch(token) or int(token) >= len(value):
                return []
            i = int(token)
            value, loc = value[i], loc + (i,)
        else:
            return []
    return [(loc, value)]


# ---------------------------------------------------------------------------------------
# One invocation (§3.1 - §3.4).

UNAVAILABLE, OVER_LIMIT = object(), object()


def read_claim(details):
    """(claimed_status, refs or None when malformed)."""
    if details is None:
        return None, []
    if type(details) is str:
        try:
            details = parse_json(details)
        except (NotJson, RecursionError):
            return None, None
    if details is None:
        return None, []
    if type(details) is not dict:
        return None, None
    status = details.get("evidence_status")
    claimed = status if type(status) is str else None
    refs = details.get("evidence_refs")
    if refs is None:
        return claimed, []
    if type(refs) is not list:
        return claimed, None
    return claimed, refs


def _str_member(item, name):
    if type(item) is dict:
        v = item.get(name)
        if type(v) is str:
            return v
    return None


def complete_preview(inv):
    preview = inv.get("output_preview")
    length = inv.get("output_length")
    if type(preview) is not str or length is None or inv.get("is_truncated") is not False:
        return None
    if len(preview) == length or len(preview.encode("utf-16-le", "surrogatepass")) // 2 == length:
        return preview
    return None


def raw_text_and_source(inv):
    """(text or None, doc or None, source)."""
    if "raw_output" in inv and inv["raw_output"] is not None:
        return None, inv["raw_output"], "raw_output"
    text = inv.get("raw_output_text")
    if text is not None:
        return text, None, "raw_output"
    preview = complete_preview(inv)
    if preview is not None:
        return preview, None, "preview"
    return None, None, "none"


def load_document(text):
    if len(text) > MAX_OUTPUT_BYTES or (
        len(text) * 4 > MAX_OUTPUT_BYTES and len(text.encode("utf-8", "surrogatepass")) > MAX_OUTPUT_BYTES
    ):
        return OVER_LIMIT
    try:
        return parse_json(text)
    except NotJson:
        return text  # not JSON: the whole text is one string (so `$` selects it)
    except RecursionError:
        return OVER_LIMIT


def agrees(claimed, status):
    if claimed in ("supported", "unsupported", "no_evidence"):
        return claimed == status
    return None


def verify_invocation(inv, max_rung: int, require_any: bool) -> dict:
    claimed, refs = read_claim(inv.get("retrieval_details"))
    text, doc, source = raw_text_and_source(inv)

    def verdict(status, reason, reports, warnings):
        return {
            "id": inv["id"], "tool_name": inv["tool_name"], "status": status, "reason": reason,
            "claimed_status": claimed, "claim_agrees": agrees(claimed, status), "source": source,
            "refs": reports, "warnings": warnings,
        }

    if refs is None:
        return verdict("unsupported", "malformed_details", [], [])

    failed = inv.get("success") is False
    # Classify the refs: marker, real (well formed), malformed, unread (past the limit).
    kinds = []
    for index, item in enumerate(refs):
        raw_path = _str_member(item, "raw_path")
        ref_text = _str_member(item, "text")
        if index >= MAX_REFS:
            kinds.append(("unread", raw_path, ref_text))
        elif raw_path is not None and raw_path.strip(WHITE_SPACE) in MARKERS:
            kinds.append(("marker", raw_path, ref_text))
        elif raw_path is not None and ref_text is not None:
            kinds.append(("real", raw_path, ref_text))
        else:
            kinds.append(("malformed", raw_path, ref_text))
    real = sum(1 for k in kinds if k[0] != "marker")
    has_marker = real < len(kinds)
    warnings = ["marker_with_refs"] if real and has_marker else []

    document = None  # loaded lazily, once
    reports = []
    verified = 0
    for index, (kind, raw_path, ref_text) in enumerate(kinds):
        report = {"index": index, "raw_path": raw_path, "text": ref_text}
        reports.append(report)
        if kind == "marker":
            report["outcome"] = "no_evidence_marker"
            continue
        if kind == "malformed":
            report["outcome"] = "malformed_ref"
            continue
        if kind == "unread" or len(ref_text) > MAX_TEXT_CHARS:
            report["outcome"] = "limit_exceeded"
            continue
        if failed:
            report["outcome"] = "not_checked"
            continue
        # Step 1: blank text.
        if not ref_text.strip(WHITE_SPACE):
            report["outcome"] = "empty_text"
            continue
        # Step 2: the document.
        if document is None:
            if doc is not None:
                document = doc
            elif text is not None:
                document = load_document(text)
            else:
                document = UNAVAILABLE
        if document is UNAVAILABLE:
            report["outcome"] = "raw_output_unavailable"
            preview = inv.get("output_preview")
            if type(preview) is str:
                report["in_preview"] = Needle(ref_text).rung_in_text(preview, max_rung) is not None
            continue
        if document is OVER_LIMIT:
            report["outcome"] = "limit_exceeded"
            continue
        # Step 3: the path.
        path = raw_path.strip(WHITE_SPACE)
        if len(path) > MAX_PATH_CHARS:
            report["outcome"] = "limit_exceeded"
            continue
        compiled = compile_path(path)
        if compiled is None:
            report["outcome"] = "invalid_path"
            continue
        # Step 4: the selected nodes.
        try:
            selected = select(compiled, document)
        except (jsonpath.JSONPathError, RecursionError):
            report["outcome"] = "limit_exceeded"
            continue
        if not selected:
            report["outcome"] = "path_not_found"
            continue
        if len(selected) > MAX_NODES:
            report["outcome"] = "limit_exceeded"
            continue
        # Step 5: the ladder over the leaves.
        leaves: list = []
        starts = []
        for _, value in selected:
            starts.append(len(leaves))
            leaf_texts(value, leaves)
        hit = Needle(ref_text).find(leaves, max_rung)
        if hit is None:
            report["outcome"] = "text_not_found"
            continue
        rung, ordinal = hit
        node = bisect_right(starts, ordinal) - 1  # the last node starting at or before it
        location, value = selected[node]
        location = tuple(location) + nth_leaf_location(value, ordinal - starts[node])
        report["outcome"] = "verified"
        report["match"] = RUNGS[rung]
        report["matched_path"] = normalized_path(location)
        verified += 1

    if real == 0:
        if claimed == "supported":
            status, reason = "unsupported", "claimed_without_refs"
        elif failed:
            status, reason = "no_evidence", "tool_failed"
        elif has_marker:
            status, reason = "no_evidence", "no_evidence_marker"
        else:
            status, reason = "no_evidence", "no_refs"
    elif failed:
        status, reason = "unsupported", "tool_failed"
    elif verified == real or (verified and require_any):
        status, reason = "supported", "verified"
    elif verified:
        status, reason = "unsupported", "partially_verified"
    else:
        status, reason = "unsupported", "not_verified"
    return verdict(status, reason, reports, warnings)


# ---------------------------------------------------------------------------------------
# Bundles (§2) and the command.

class BundleError(Exception):
    pass


_INT_TEXT = re.compile(r"-?(?:0|[1-9][0-9]*)")


def _int(value, place):
    if value is None:
        return None
    if type(value) is Num and _INT_TEXT.fullmatch(value.text):
        n = int(value.text)
        if -(2**63) <= n < 2**63:
            return n
    raise BundleError(f"{place}: expected an integer within i64")


def read_bundle(file: str):
    """(defaults run_id, session_id, invocation dicts with typed columns)."""
    try:
        with open(file, "rb") as f:
            text = f.read().decode("utf-8")
    except UnicodeDecodeError:
        raise BundleError("$: not UTF-8") from None
    try:
        top = parse_json(text)
    except (NotJson, RecursionError) as e:
        raise BundleError(f"$: not JSON ({e})") from None
    if type(top) is not dict:
        raise BundleError("$: a bundle must be a JSON object")
    for key in top:
        if key not in ("run_id", "session_id", "invocations"):
            raise BundleError(f"$.{key}: unknown key")
    run_id, session_id = top.get("run_id"), top.get("session_id")
    for name, v in (("run_id", run_id), ("session_id", session_id)):
        if v is not None and type(v) is not str:
            raise BundleError(f"$.{name}: expected a string")
    items = top.get("invocations")
    if type(items) is not list:
        raise BundleError("$.invocations: required array is missing")
    invocations = []
    for i, inv in enumerate(items):
        place = f"$.invocations[{i}]"
        if type(inv) is not dict:
            raise BundleError(f"{place}: expected an object")
        unknown = inv.keys() - INVOCATION_KEYS
        if unknown:
            raise BundleError(f"{place}.{sorted(unknown)[0]}: unknown key")
        if inv.get("raw_output") is not None and inv.get("raw_output_text") is not None:
            raise BundleError(f"{place}: both raw_output and raw_output_text")
        if "id" not in inv or inv["id"] is None:
            raise BundleError(f"{place}.id: required")
        if type(inv.get("tool_name")) is not str:
            raise BundleError(f"{place}.tool_name: required string")
        inv["id"] = _int(inv["id"], f"{place}.id")
        for col in INT_COLUMNS:
            if col in inv:
                inv[col] = _int(inv[col], f"{place}.{col}")
        for col in BOOL_COLUMNS:
            if inv.get(col) is not None and type(inv[col]) is not bool:
                raise BundleError(f"{place}.{col}: expected a boolean")
        for col in STRING_COLUMNS + ("raw_output_text",):
            if inv.get(col) is not None and type(inv[col]) is not str:
                raise BundleError(f"{place}.{col}: expected a string")
        if inv.get("run_id") is None:
            inv["run_id"] = run_id
        if inv.get("session_id") is None:
            inv["session_id"] = session_id
        invocations.append(inv)
    return invocations


def bundle_files(paths):
    for path in paths:
        if os.path.isdir(path):
            names = sorted((n for n in os.listdir(path) if n.endswith(".json")),
                           key=lambda n: n.encode("utf-8", "surrogateescape"))
            for name in names:
                full = os.path.join(path, name)
                if os.path.isfile(full):
                    yield full
        else:
            yield path


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--match", choices=RUNGS, default="elided")
    parser.add_argument("--require", choices=("all", "any"), default="all")
    parser.add_argument("paths", nargs="+")
    args = parser.parse_args(argv)
    max_rung = RUNGS.index(args.match)
    require_any = args.require == "any"

    # Verify as files are read; keep only verdicts (runs can span files, and a bad file
    # anywhere must leave stdout empty).
    runs: dict = {}  # key -> {"run_id", "ids", "verdicts"}
    for file in bundle_files(args.paths):
        try:
            invocations = read_bundle(file)
        except (BundleError, OSError) as e:
            print(f"{file}: {e}", file=sys.stderr)
            return 2
        for i, inv in enumerate(invocations):
            run_id = inv["run_id"]
            key = ("run", run_id) if run_id is not None else ("session", inv["session_id"])
            run = runs.get(key)
            if run is None:
                run = runs[key] = {"run_id": run_id, "ids": set(), "verdicts": []}
            if inv["id"] in run["ids"]:
                print(f"{file}: $.invocations[{i}].id: id {inv['id']} repeats within its run",
                      file=sys.stderr)
                return 2
            run["ids"].add(inv["id"])
            run["verdicts"].append(verify_invocation(inv, max_rung, require_any))

    out = sys.stdout
    dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
    lines = []
    for run in runs.values():
        run["verdicts"].sort(key=lambda v: v["id"])
        for v in run["verdicts"]:
            lines.append(dumps({"run_id": run["run_id"], **v}))
    out.write("\n".join(lines))
    if lines:
        out.write("\n")
    out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
