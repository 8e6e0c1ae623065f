//! A policy as the Java `Policy.Builder` sends it, checked by the core's own parsers: the
//! names of `require` and `match`, the score's text, and every limit at least 1. A bad value
//! fails when the Java policy is built, never at first use.

use groundcheck_core::{Limit, Policy};
use serde::Deserialize;
use serde_json::json;

use crate::reply::Failure;

/// The builder's fields; `None` keeps the command line's default. The limits are read by
/// their settings' names ([`Limit::setting`]), so a limit the core adds is read here too.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Spec {
    require: Option<String>,
    #[serde(rename = "match")]
    rung: Option<String>,
    min_score: Option<String>,
    #[serde(default)]
    limits: serde_json::Map<String, serde_json::Value>,
}

/// The policy `text` (the builder's JSON) describes.
pub fn parse(text: &str) -> Result<Policy, Failure> {
    let spec: Spec =
        serde_json::from_str(text).map_err(|e| Failure::new("INTERNAL", format!("policy: {e}")))?;
    let core = |e: groundcheck_core::Error| Failure::from_core(&e);
    let mut policy = Policy::default();
    if let Some(require) = spec.require.as_deref() {
        policy = policy.with_require(require.parse().map_err(core)?);
    }
    if let Some(rung) = spec.rung.as_deref() {
        policy = policy.with_max_rung(rung.parse().map_err(core)?);
    }
    if let Some(score) = spec.min_score.as_deref() {
        policy = policy.with_min_score(score.parse().map_err(core)?).map_err(core)?;
    }
    for (name, value) in &spec.limits {
        let limit = Limit::by_setting(name)
            .ok_or_else(|| Failure::new("INTERNAL", format!("policy: unknown limit `{name}`")))?;
        let value = value
            .as_i64()
            .ok_or_else(|| Failure::new("INTERNAL", format!("policy: {name} is not a whole number")))?;
        policy = policy.with_limit(limit, value.into()).map_err(core)?;
    }
    Ok(policy)
}

/// `policy` with every value filled in, as the Java `Policy` reads it back.
pub fn describe(policy: &Policy) -> String {
    let limits = policy.limits();
    let limits: serde_json::Map<String, serde_json::Value> =
        Limit::ALL.iter().map(|&l| (l.setting().to_string(), json!(limits.get(l)))).collect();
    json!({
        "require": policy.require().as_str(),
        "match": policy.max_rung().as_str(),
        "min_score": policy.min_score().to_string(),
        "key": policy.key(),
        "limits": limits,
    })
    .to_string()
}
