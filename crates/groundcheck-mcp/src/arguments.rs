//! Reading a tool call's arguments: each one's type checked, unknown names refused (a typo
//! must not silently drop evidence), and every problem one sentence naming the argument,
//! which the client's model reads in a tool result with `isError: true`.

use groundcheck_core::{Json, Policy, Require, Rung, Score};
use rmcp::model::JsonObject;
use serde_json::Value;

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
    map: JsonObject,
}

impl Arguments {
    /// Checks that every name in `given` is one of `known`.
    pub fn new(given: Option<JsonObject>, known: &[&str]) -> Result<Arguments, BadArgument> {
        let map = given.unwrap_or_default();
        if let Some(unknown) = map.keys().find(|k| !known.contains(&k.as_str())) {
            return Err(BadArgument::new(
                &clip(unknown),
                format!("unknown argument (expected one of: {})", known.join(", ")),
            ));
        }
        Ok(Arguments { map })
    }

    /// The value of `name`, JSON `null` counting as absent.
    pub fn take(&mut self, name: &str) -> Option<Value> {
        self.map.remove(name).filter(|v| !v.is_null())
    }

    /// Whether `name` was given (and not null).
    pub fn has(&self, name: &str) -> bool {
        self.map.get(name).is_some_and(|v| !v.is_null())
    }

    /// Whether `name` was given at all, null included (a column that is NULL).
    pub fn given(&self, name: &str) -> bool {
        self.map.contains_key(name)
    }

    /// A string argument.
    pub fn string(&mut self, name: &str) -> Result<Option<String>, BadArgument> {
        match self.take(name) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(other) => Err(wrong_type(name, "a string", &other)),
        }
    }

    /// A boolean argument.
    pub fn boolean(&mut self, name: &str) -> Result<Option<bool>, BadArgument> {
        match self.take(name) {
            None => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(b)),
            Some(other) => Err(wrong_type(name, "true or false", &other)),
        }
    }

    /// An integer argument that fits 64 bits.
    pub fn integer(&mut self, name: &str) -> Result<Option<i64>, BadArgument> {
        match self.take(name) {
            None => Ok(None),
            Some(Value::Number(n)) => n.to_string().parse::<i64>().map(Some).map_err(|_| {
                BadArgument::new(name, format!("must be an integer of 64 bits, not {}", clip(&n.to_string())))
            }),
            Some(other) => Err(wrong_type(name, "an integer", &other)),
        }
    }

    /// The `policy` argument, validated as the command line validates its flags.
    pub fn policy(&mut self) -> Result<Policy, BadArgument> {
        let given = match self.take("policy") {
            None => return Ok(Policy::default()),
            Some(Value::Object(map)) => map,
            Some(other) => return Err(wrong_type("policy", "an object {require, match, min_score}", &other)),
        };
        let mut policy_args = Arguments::new(Some(given), &["require", "match", "min_score"])
            .map_err(|e| BadArgument(format!("policy.{}", e.0)))?;
        let mut policy = Policy::default();
        if let Some(require) = policy_args.string("require").map_err(prefix)? {
            policy.require = require.parse::<Require>().map_err(|e| BadArgument::new("policy.require", e))?;
        }
        if let Some(rung) = policy_args.string("match").map_err(prefix)? {
            policy.max_rung = rung.parse::<Rung>().map_err(|e| BadArgument::new("policy.match", e))?;
        }
        if let Some(score) = policy_args.take("min_score") {
            let text = match score {
                Value::Number(n) => n.to_string(),
                Value::String(s) => s,
                other => return Err(wrong_type("policy.min_score", "a number", &other)),
            };
            let score: Score = text.parse().map_err(|e| BadArgument::new("policy.min_score", e))?;
            if score.thousandths() == 0 {
                return Err(BadArgument::new("policy.min_score", "must be above 0"));
            }
            policy.min_score = score;
        }
        Ok(policy)
    }
}

fn prefix(e: BadArgument) -> BadArgument {
    BadArgument(format!("policy.{}", e.0))
}

/// A JSON value as the core's document, numbers exactly as the client wrote them.
pub fn to_json(name: &str, value: &Value) -> Result<Json, BadArgument> {
    let text = serde_json::to_string(value).map_err(|e| BadArgument::new(name, e))?;
    Json::parse(&text).map_err(|e| BadArgument::new(name, e))
}

fn wrong_type(name: &str, expected: &str, got: &Value) -> BadArgument {
    let kind = match got {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    };
    BadArgument::new(name, format!("must be {expected}, not {kind}"))
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
    use serde_json::json;

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
