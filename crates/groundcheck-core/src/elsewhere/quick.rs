//! The quick test of a located text (`elsewhere` without reading every leaf): a quote's
//! anchor runs looked for in the text, and the stretches of the text around the longest one.

use std::cell::OnceCell;

use memchr::memmem;

use super::plain::{lower_case, plain, Anchor};
use crate::document::OverLimit;
use crate::json::{first_leaf_within, may_hold_json_unescaped, unescape, FirstLeaf};
use crate::ladder::Needle;
use crate::normalize::normalize;
use crate::policy::{Limit, Policy, Rung};

/// A located text in which every leaf is [`plain`] and written without `\u` escapes, so that
/// every run of ASCII letters, digits and ideographs of a leaf (in lower case) is a run of the
/// text (in lower case): a quote one of whose [`Anchor`] runs is not in the text is in no leaf,
/// on any rung — the exact one included, the quote as written being then a piece of a plain
/// leaf, whose normalised runs are its own in lower case.
pub(super) struct Quick {
    /// The text with ASCII letters in lower case.
    lower: Vec<u8>,
    /// How much of the text's start is ASCII ([`lower_case`]): [`plain`] reads the rest.
    ascii: usize,
    /// Whether every leaf is [`plain`] and written without `\u` escapes (the whole text is),
    /// found on the first quote whose runs are not all in the text.
    plain: OnceCell<bool>,
    /// No string of the text can hold JSON ([`may_hold_json_unescaped`]): it has no expanded view;
    /// found on the first quote ruled out.
    no_json: OnceCell<bool>,
}

impl Quick {
    pub(super) fn of(text: &str) -> Quick {
        let (lower, ascii) = lower_case(text);
        Quick { lower, ascii, plain: OnceCell::new(), no_json: OnceCell::new() }
    }

    /// Where in `text` (this quick test's) a leaf may hold `needle` on a rung up to `max`.
    /// Every leaf holding the quote holds each of its anchor runs (the text is plain), the
    /// longest among them, so it lies in a [`Span`] around an occurrence of that run: only
    /// the spans that hold every run and, read as a leaf, the quote are kept.
    fn sight(&self, text: &str, needle: &Needle<'_>, max: Rung) -> Sighting {
        let Some(Anchor(runs)) = Anchor::of(needle.normalized_text()) else { return Sighting::Unknown };
        if !self.plain_text(text) {
            return Sighting::Unknown;
        }
        let lower = &self.lower[..];
        let (longest, others) = (&runs[0], &runs[1..]);
        let finder = memmem::Finder::new(longest.as_bytes());
        // The longest run's first occurrence is where the spans start: it is searched once.
        let Some(first) = finder.find(lower) else { return Sighting::Within(Vec::new()) };
        if others.iter().take(3).any(|run| memmem::find(lower, run.as_bytes()).is_none()) {
            return Sighting::Within(Vec::new());
        }
        let others: Vec<memmem::Finder<'_>> = others.iter().map(memmem::Finder::new).collect();
        let mut spans = Vec::new();
        let mut at = first;
        while let Some(found) = finder.find(&lower[at..]).map(|i| at + i) {
            let span = span_around(text.as_bytes(), found, found + longest.len());
            if others.iter().all(|run| run.find(&lower[span.clone()]).is_some())
                && may_hold(&text[span.clone()], needle, max)
            {
                spans.push(span.clone());
            }
            at = span.end.max(found + 1);
        }
        Sighting::Within(spans)
    }

    /// `elsewhere` in `text` (this quick test's) without reading all its leaves: `None` when
    /// the quick test cannot tell, or an object repeats a key (the tree's order is then not
    /// the text's); the caller reads the leaves.
    pub(super) fn search(
        &self,
        text: &str,
        needle: &Needle<'_>,
        policy: &Policy,
    ) -> Option<Result<Option<String>, OverLimit>> {
        let max = policy.loosest_exact_rung();
        let Sighting::Within(spans) = self.sight(text, needle, max) else { return None };
        if spans.is_empty() {
            self.note_no_json(text);
            return Some(Ok(None));
        }
        let FirstLeaf { path, nodes } =
            first_leaf_within(text, policy.limits.max_depth, &spans, |leaf| holds(needle, leaf, max)).ok()?;
        if nodes > policy.limits.max_nodes {
            return Some(Err(OverLimit(Limit::Nodes)));
        }
        if path.is_none() {
            self.note_no_json(text);
        }
        Some(Ok(path))
    }

    /// Whether no leaf of `text` can hold `needle` on a rung up to `max`.
    #[cfg(test)]
    fn rules_out(&self, text: &str, needle: &Needle<'_>, max: Rung) -> bool {
        matches!(self.sight(text, needle, max), Sighting::Within(spans) if spans.is_empty())
    }

    /// Notes, once a quote is known to be in no leaf of `text`, whether the text has an
    /// expanded view. Only a text found plain gets here, and a plain text has no `\u`.
    fn note_no_json(&self, text: &str) {
        self.no_json.get_or_init(|| !may_hold_json_unescaped(text));
    }

    /// Whether the text is known to have no expanded view (found once a quote was in none of
    /// its leaves).
    pub(super) fn has_no_expanded_view(&self) -> bool {
        self.no_json.get() == Some(&true)
    }

    /// Whether every leaf of `text` (this quick test's) is [`plain`] and written without `\u`
    /// escapes.
    pub(super) fn plain_text(&self, text: &str) -> bool {
        *self
            .plain
            .get_or_init(|| memmem::find(text.as_bytes(), b"\\u").is_none() && plain(&text[self.ascii..]))
    }
}

/// Where the quick test says a leaf may hold a quote.
enum Sighting {
    /// Nowhere but in these spans (none: nowhere).
    Within(Vec<Span>),
    /// The test cannot tell: the text is not plain, or the quote has no anchor.
    Unknown,
}

/// The bytes of a JSON text between the unescaped `"` before a position and the next one
/// after it (or the text's ends). Whichever way the text is read there, its leaves lie
/// there whole: a string's content (which holds no unescaped `"`), or a stretch between
/// strings whose leaves are numbers and literals, words of the stretch.
type Span = std::ops::Range<usize>;

/// The [`Span`] holding `bytes[from..to]`, which holds no `"`.
fn span_around(bytes: &[u8], from: usize, to: usize) -> Span {
    let mut start = from;
    let start = loop {
        match memchr::memrchr(b'"', &bytes[..start]) {
            Some(quote) if escaped(bytes, quote) => start = quote,
            Some(quote) => break quote + 1,
            None => break 0,
        }
    };
    let mut end = to;
    let end = loop {
        match memchr::memchr(b'"', &bytes[end..]).map(|i| end + i) {
            Some(quote) if escaped(bytes, quote) => end = quote + 1,
            Some(quote) => break quote,
            None => break bytes.len(),
        }
    };
    start..end
}

/// Whether a leaf read from `raw` (a [`Span`]'s text) may hold `needle` on a rung up to
/// `max`: the span read as a string's content, or any word of it read as a number or a
/// literal. A content that cannot be read (not a string's) is taken to hold.
fn may_hold(raw: &str, needle: &Needle<'_>, max: Rung) -> bool {
    let Some(content) = unescape(raw) else { return true };
    holds(needle, &content, max)
        || raw
            .split([',', ':', '[', ']', '{', '}', ' ', '\t', '\n', '\r'])
            .any(|word| !word.is_empty() && holds(needle, word, max))
}

/// Whether `leaf` holds `needle` on a rung up to `max` (the fuzzy one aside).
fn holds(needle: &Needle<'_>, leaf: &str, max: Rung) -> bool {
    let normalized = OnceCell::new();
    needle.in_text(leaf, || normalized.get_or_init(|| normalize(leaf)).as_str(), max)
}

/// Whether the `"` at `quote` is escaped: an odd number of backslashes before it.
fn escaped(bytes: &[u8], quote: usize) -> bool {
    bytes[..quote].iter().rev().take_while(|&&b| b == b'\\').count() % 2 == 1
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::elsewhere::Contents;
    use crate::ladder::leaf_path;

    /// The quick test rules out only quotes no rung finds: every leaf's own text, any case,
    /// elided or not, is still looked for.
    #[test]
    fn the_quick_test_keeps_every_quote_a_rung_finds() {
        let text = r#"{"a":["订单服务 Order-SVC 调用超时 after 3000ms","x\ty  Z"],"n":0.950}"#;
        let quick = Quick::of(text);
        for (quote, found) in [
            ("订单服务 order-svc", true),
            ("ORDER-SVC   调用超时", true),
            ("订单服务 … 3000ms", true),
            ("x y z", true),
            ("0.950", true),
            ("payment-svc", false),
            ("3001ms", false),
            ("订单服务 … 3000ms recovered", false),
            ("调用超时 订单服务", false),
        ] {
            assert_eq!(!quick.rules_out(text, &Needle::new(quote), Rung::Elided), found, "{quote}");
        }
        assert_eq!(quick.search(text, &Needle::new("3001ms"), &Policy::default()), Some(Ok(None)));
        assert!(quick.plain_text(text) && quick.no_json.get() == Some(&true));
        for text in [r#"{"a":"\u0041"}"#, r#"{"a":"Ｃ"}"#] {
            assert!(!Quick::of(text).rules_out(text, &Needle::new("payment"), Rung::Elided), "{text}");
        }
    }

    /// The quick test's search gives what reading every leaf gives: the same first leaf, or
    /// none, for quotes that are leaves, pieces of leaves, keys, numbers and inventions, in
    /// texts with escaped quotes and backslashes, keys that hold the quote, and numbers
    /// between strings; it leaves a repeated key to the tree.
    #[test]
    fn the_quick_search_finds_what_reading_every_leaf_finds() {
        let texts = [
            r#"{"svc":"order-svc","msg":"Order-SVC timeout after 3000ms","n":3000,"ok":true}"#,
            r#"{"order-svc timeout":"x","lines":["a \"order-svc\" said: timeout","order-svc\\timeout",null]}"#,
            r#"[[1700000000.5,"0.950"],[1700000015,"3000"],{"k":"3000ms","l":[false,"null"]}]"#,
            r#"{"log":"{\"level\":\"error\",\"msg\":\"订单服务 调用超时 3000ms\"}","e":"订单服务调用超时"}"#,
            r#""order-svc timeout after 3000ms""#,
            "3000",
            r#"{"a":"x","a":"order-svc"}"#,
        ];
        let quotes = [
            "order-svc",
            "ORDER-SVC TIMEOUT",
            "timeout order-svc",
            "order-svc ... 3000ms",
            "3000",
            "3000ms",
            "0.950",
            "true",
            "null",
            "said: timeout",
            "\"order-svc\"",
            "order-svc\\timeout",
            "订单服务 调用超时",
            "调用超时 订单服务",
            "order-svc timeout",
            "payment-svc",
            "1700000000.5",
        ];
        let policy = Policy::default();
        let mut found = 0;
        for text in texts {
            let doc = crate::json::Json::parse(text).unwrap();
            let root = [doc.root()];
            let Ok(contents) = Contents::read(&root);
            let mut decided = 0;
            for quote in quotes {
                let needle = Needle::new(quote);
                let tree = contents
                    .first_holding(&needle, policy.loosest_exact_rung())
                    .map(|k| leaf_path(&root, |_| "$".to_string(), k));
                match Quick::of(text).search(text, &needle, &policy) {
                    Some(quick) => {
                        found += usize::from(tree.is_some());
                        assert_eq!(quick, Ok(tree), "{text}: {quote}");
                        decided += 1;
                    }
                    None => assert!(text.contains(r#""a":"x","a""#), "{text}: {quote}"),
                }
            }
            assert!(decided > 0, "{text}");
        }
        assert!(found >= 20, "{found}");
    }

    /// The tree's answer (every leaf read, in the tree's order) for `quote` in `text`.
    fn by_tree(text: &str, needle: &Needle<'_>, policy: &Policy) -> Option<String> {
        let doc = crate::json::Json::parse(text).unwrap();
        let root = [doc.root()];
        let Ok(contents) = Contents::read(&root);
        contents
            .first_holding(needle, policy.loosest_exact_rung())
            .map(|k| leaf_path(&root, |_| "$".to_string(), k))
    }

    /// A seeded xorshift, so that a failure names its case.
    struct Rng(u64);

    impl Rng {
        fn below(&mut self, n: usize) -> usize {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 % n as u64) as usize
        }

        fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
            items[self.below(items.len())]
        }
    }

    const WORDS: [&str; 16] = [
        "order-svc",
        "Timeout",
        "3000ms",
        "超时",
        "订单服务",
        "a\"b",
        "x\\y",
        "after",
        "\n",
        "\t",
        "{",
        "[",
        ": ",
        ", ",
        "0.5",
        "null",
    ];
    const NUMBERS: [&str; 5] = ["3000", "0.5", "-1e3", "1700000000.25", "0"];

    /// A random JSON text (escapes, keys that repeat words of values, numbers between strings,
    /// white space), and the texts of its strings and scalars as written in it, decoded.
    fn text(rng: &mut Rng, depth: usize, out: &mut String, pieces: &mut Vec<String>) {
        let space = |rng: &mut Rng, out: &mut String| out.push_str(["", "", " ", "\n  "][rng.below(4)]);
        match if depth == 0 { 3 + rng.below(3) } else { rng.below(6) } {
            0 | 1 => {
                out.push('{');
                for i in 0..rng.below(4) {
                    if i > 0 {
                        out.push(',');
                    }
                    space(rng, out);
                    let key = [rng.pick(&WORDS), rng.pick(&["k", "msg", "svc"])][rng.below(2)];
                    out.push_str(&serde_json::to_string(&format!("{key}{i}")).unwrap());
                    out.push(':');
                    space(rng, out);
                    text(rng, depth - 1, out, pieces);
                }
                out.push('}');
            }
            2 => {
                out.push('[');
                for i in 0..rng.below(4) {
                    if i > 0 {
                        out.push(',');
                    }
                    space(rng, out);
                    text(rng, depth - 1, out, pieces);
                }
                out.push(']');
            }
            3 => {
                let number = rng.pick(&NUMBERS);
                out.push_str(number);
                pieces.push(number.to_string());
            }
            4 => out.push_str(rng.pick(&["true", "false", "null"])),
            _ => {
                let words: Vec<&str> = (0..1 + rng.below(5)).map(|_| rng.pick(&WORDS)).collect();
                let string = words.join(" ");
                out.push_str(&serde_json::to_string(&string).unwrap());
                pieces.push(string);
            }
        }
    }

    /// A quote made from a piece of the text: as it is, in upper case, a word dropped, two
    /// swapped, elided, or an invention.
    fn quote(rng: &mut Rng, pieces: &[String]) -> String {
        let Some(piece) = pieces.get(rng.below(pieces.len().max(1))) else {
            return "payment-svc".to_string();
        };
        let mut words: Vec<&str> = piece.split(' ').collect();
        let from = rng.below(words.len());
        words = words[from..from + 1 + rng.below(words.len() - from)].to_vec();
        match rng.below(7) {
            0 => words.join(" ").to_uppercase(),
            1 if words.len() > 2 => {
                words.remove(1);
                words.join(" ")
            }
            2 if words.len() > 1 => {
                words.swap(0, 1);
                words.join(" ")
            }
            3 if words.len() > 2 => format!("{} ... {}", words[0], words[words.len() - 1]),
            4 => format!("{} recovered", words.join(" ")),
            _ => words.join(" "),
        }
    }

    /// The quick search against the tree on 20,000 random texts and quotes.
    #[test]
    fn the_quick_search_agrees_with_the_tree_on_random_texts() {
        let policy = Policy::default();
        let mut rng = Rng(0x2026_1205);
        let (mut decided, mut found) = (0, 0);
        for case in 0..20_000 {
            let (mut json, mut pieces) = (String::new(), Vec::new());
            let depth = 1 + rng.below(3);
            text(&mut rng, depth, &mut json, &mut pieces);
            let quote = quote(&mut rng, &pieces);
            let needle = Needle::new(&quote);
            let Some(quick) = Quick::of(&json).search(&json, &needle, &policy) else { continue };
            let tree = by_tree(&json, &needle, &policy);
            found += usize::from(tree.is_some());
            decided += 1;
            assert_eq!(quick, Ok(tree), "case {case}: {json} / {quote}");
        }
        assert!(decided > 10_000 && found > 3_000, "{decided} decided, {found} found");
    }
}
