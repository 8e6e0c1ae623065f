//! Reading a tool call's arguments: each one's type checked, unknown names refused (a typo
//! must not silently drop evidence), and every problem one sentence naming the argument,
//! which the client's model reads in a tool result with `isError: true`.
//!
//! Arguments arrive as their JSON text ([`RawText`]), never as a `serde_json::Value` tree: a
//! type is told from the first byte, a string decoded only when it has escapes, and a document
//! handed to the core as text.

use groundcheck_core::{Json, Policy, Require, Rung, Score};
use rmcp::model::JsonObject;

use crate::raw::{RawText, Text};

/// A bad argument: the sentence the model reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadArgument(pub String);

impl BadArgument {
    /// `name: problem`.
    pub fn new(name: &str, problem: impl std::fmt::Display) -> BadArgument {
        BadArgument(format!("{name}: {problem}"))
    }
}

/// The arguments of one call, taken one by one.
pub struct Arguments {
    members: Vec<(String, RawText)>,
}

impl Arguments {
    /// The arguments as the transport kept them (each one's text), after checking that every
    /// name is one of `known`.
    pub fn from_raw(members: Vec<(String, RawText)>, known: &[&str]) -> Result<Arguments, BadArgument> {
        if let Some((unknown, _)) = members.iter().find(|(k, _)| !known.contains(&k.as_str())) {
            return Err(BadArgument::new(
                &clip(unknown),
                format!("unknown argument (expected one of: {})", known.join(", ")),
            ));
        }
        Ok(Arguments { members })
    }

    /// The arguments as rmcp parsed them (a call that did not come through our transport):
    /// each value written back to its text, numbers as they were read.
    pub fn new(given: Option<JsonObject>, known: &[&str]) -> Result<Arguments, BadArgument> {
        let mut members = Vec::new();
        for (name, value) in given.unwrap_or_default() {
            let text = serde_json::to_string(&value).map_err(|e| BadArgument::new(&name, e))?;
            members.push((name, RawText::owned(text)));
        }
        Arguments::from_raw(members, known)
    }

    /// The text of `name`, JSON `null` counting as absent.
    pub fn take(&mut self, name: &str) -> Option<RawText> {
        let at = self.members.iter().position(|(k, _)| k == name)?;
        let (_, value) = self.members.remove(at);
        (!value.is_null()).then_some(value)
    }

    /// Whether `name` was given (and not null).
    pub fn has(&self, name: &str) -> bool {
        self.members.iter().any(|(k, v)| k == name && !v.is_null())
    }

    /// Whether `name` was given at all, null included (a column that is NULL).
    pub fn given(&self, name: &str) -> bool {
        self.members.iter().any(|(k, _)| k == name)
    }

    /// A string argument, shared with the message when it holds no escape.
    pub fn text(&mut self, name: &str) -> Result<Option<Text>, BadArgument> {
        match self.take(name) {
            None => Ok(None),
            Some(raw) => raw.string().map(Some).ok_or_else(|| wrong_type(name, "a string", &raw)),
        }
    }

    /// A string argument.
    pub fn string(&mut self, name: &str) -> Result<Option<String>, BadArgument> {
        Ok(self.text(name)?.map(Text::into_string))
    }

    /// A boolean argument.
    pub fn boolean(&mut self, name: &str) -> Result<Option<bool>, BadArgument> {
        match self.take(name) {
            None => Ok(None),
            Some(raw) if raw.as_str() == "true" => Ok(Some(true)),
            Some(raw) if raw.as_str() == "false" => Ok(Some(false)),
            Some(other) => Err(wrong_type(name, "true or false", &other)),
        }
    }

    /// An integer argument that fits 64 bits.
    pub fn integer(&mut self, name: &str) -> Result<Option<i64>, BadArgument> {
        match self.take(name) {
            None => Ok(None),
            Some(raw) if raw.kind() == "a number" => raw.as_str().parse::<i64>().map(Some).map_err(|_| {
                BadArgument::new(name, format!("must be an integer of 64 bits, not {}", clip(raw.as_str())))
            }),
            Some(other) => Err(wrong_type(name, "an integer", &other)),
        }
    }

    /// A JSON argument as the core's document, numbers exactly as the client wrote them.
    pub fn json(&mut self, name: &str) -> Result<Option<Json>, BadArgument> {
        self.take(name).map(|raw| to_json(name, &raw)).transpose()
    }

    /// The `policy` argument, validated as the command line validates its flags.
    pub fn policy(&mut self) -> Result<Policy, BadArgument> {
        let given = match self.take("policy") {
            None => return Ok(Policy::default()),
            Some(raw) => match raw.members() {
                Some(members) => members,
                None => return Err(wrong_type("policy", "an object {require, match, min_score}", &raw)),
            },
        };
        let mut policy_args = Arguments::from_raw(given, &["require", "match", "min_score"])
            .map_err(|e| BadArgument(format!("policy.{}", e.0)))?;
        let mut policy = Policy::default();
        if let Some(require) = policy_args.string("require").map_err(prefix)? {
            let require = require.parse::<Require>().map_err(|e| BadArgument::new("policy.require", e))?;
            policy = policy.with_require(require);
        }
        if let Some(rung) = policy_args.string("match").map_err(prefix)? {
            let rung = rung.parse::<Rung>().map_err(|e| BadArgument::new("policy.match", e))?;
            policy = policy.with_max_rung(rung);
        }
        if let Some(score) = policy_args.take("min_score") {
            let text = match (score.kind(), score.string()) {
                ("a number", _) => score.as_str().to_string(),
                (_, Some(text)) => text.into_string(),
                _ => return Err(wrong_type("policy.min_score", "a number", &score)),
            };
            let score: Score = text.parse().map_err(|e| BadArgument::new("policy.min_score", e))?;
            if score.thousandths() == 0 {
                return Err(BadArgument::new("policy.min_score", "must be above 0"));
            }
            policy = policy.with_min_score(score).map_err(|e| BadArgument::new("policy.min_score", e))?;
        }
        Ok(policy)
    }
}

fn prefix(e: BadArgument) -> BadArgument {
    BadArgument(format!("policy.{}", e.0))
}

/// A JSON value's text as the core's document, numbers exactly as the client wrote them.
pub fn to_json(name: &str, raw: &RawText) -> Result<Json, BadArgument> {
    Json::parse(raw.as_str()).map_err(|e| BadArgument::new(name, e))
}

/// `name: must be EXPECTED, not KIND`.
pub fn wrong_type(name: &str, expected: &str, got: &RawText) -> BadArgument {
    BadArgument::new(name, format!("must be {expected}, not {}", got.kind()))
}

/// At most 80 characters of a name or value echoed in a message.
pub fn clip(text: &str) -> String {
    const ECHO: usize = 80;
    if text.chars().count() <= ECHO {
        return text.to_string();
    }
    let mut clipped: String = text.chars().take(ECHO - 1).collect();
    clipped.push('…');
    clipped
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    fn args(value: Value) -> Arguments {
        let Value::Object(map) = value else { panic!("an object") };
        Arguments::new(Some(map), &["a", "policy"]).unwrap()
    }

    #[test]
    fn a_wrong_type_names_the_argument_and_both_types() {
        assert_eq!(args(json!({"a": [1]})).string("a").unwrap_err().0, "a: must be a string, not an array");
        assert_eq!(
            args(json!({"a": "1"})).integer("a").unwrap_err().0,
            "a: must be an integer, not a string"
        );
        assert_eq!(args(json!({"a": null})).boolean("a"), Ok(None));
    }

    /// A strict model sends every property, null for those it does not use: each reads as
    /// absent, in the policy's members too.
    #[test]
    fn a_null_argument_counts_as_absent() {
        let mut a = args(json!({"a": null, "policy": null}));
        assert!(!a.has("a") && a.given("a"));
        assert_eq!(
            (a.string("a"), a.integer("a"), a.json("a").map(|j| j.is_none())),
            (Ok(None), Ok(None), Ok(true))
        );
        assert_eq!(a.policy(), Ok(Policy::default()));
        let strict = json!({"policy": {"require": null, "match": null, "min_score": null}});
        assert_eq!(args(strict).policy(), Ok(Policy::default()));
        let p =
            args(json!({"policy": {"require": null, "match": "fuzzy", "min_score": null}})).policy().unwrap();
        assert_eq!(p.key(), "require=all;match=fuzzy;min_score=0.900");
    }

    #[test]
    fn unknown_arguments_are_refused() {
        let Value::Object(map) = json!({"raw_ouptut": 1}) else { unreachable!() };
        let e = Arguments::new(Some(map), &["raw_output"]).err().unwrap();
        assert_eq!(e.0, "raw_ouptut: unknown argument (expected one of: raw_output)");
    }

    #[test]
    fn the_policy_is_validated_like_the_command_line() {
        let p = args(json!({"policy": {"require": "any", "match": "fuzzy", "min_score": 0.85}}))
            .policy()
            .unwrap();
        assert_eq!(p.key(), "require=any;match=fuzzy;min_score=0.850");
        let e = args(json!({"policy": {"match": "fuzz"}})).policy().unwrap_err().0;
        assert!(e.starts_with("policy.match: unknown match rung `fuzz`"), "{e}");
        let e = args(json!({"policy": {"min_score": 0}})).policy().unwrap_err().0;
        assert_eq!(e, "policy.min_score: must be above 0");
        let e = args(json!({"policy": {"min_score": 1.5}})).policy().unwrap_err().0;
        assert!(e.starts_with("policy.min_score: "), "{e}");
        let e = args(json!({"policy": {"strict": true}})).policy().unwrap_err().0;
        assert!(e.starts_with("policy.strict: unknown argument"), "{e}");
        let e = args(json!({"policy": "strict"})).policy().unwrap_err().0;
        assert!(e.starts_with("policy: must be an object"), "{e}");
    }
}
