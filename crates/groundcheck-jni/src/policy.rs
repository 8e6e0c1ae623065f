//! A policy as the Java `Policy.Builder` sends it, checked by the core's own parsers: the
//! names of `require` and `match`, the score's text, and every limit at least 1. A bad value
//! fails when the Java policy is built, never at first use.

use groundcheck_core::{Limits, Policy, Require, Rung, Score};
use serde::Deserialize;
use serde_json::json;

use crate::reply::Failure;

/// The builder's fields; `None` keeps the command line's default.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Spec {
    require: Option<String>,
    #[serde(rename = "match")]
    rung: Option<String>,
    min_score: Option<String>,
    #[serde(default)]
    limits: LimitSpec,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct LimitSpec {
    max_output_bytes: Option<i64>,
    max_depth: Option<i64>,
    max_text_chars: Option<i64>,
    max_path_chars: Option<i64>,
    max_nodes: Option<i64>,
    max_refs: Option<i64>,
}

/// The policy `text` (the builder's JSON) describes.
pub fn parse(text: &str) -> Result<Policy, Failure> {
    let spec: Spec =
        serde_json::from_str(text).map_err(|e| Failure::new("INTERNAL", format!("policy: {e}")))?;
    let core = |e: groundcheck_core::Error| Failure::from_core(&e);
    let defaults = Policy::default();
    let require: Require = spec.require.as_deref().map_or(Ok(defaults.require), str::parse).map_err(core)?;
    let max_rung: Rung = spec.rung.as_deref().map_or(Ok(defaults.max_rung), str::parse).map_err(core)?;
    let min_score = match spec.min_score.as_deref() {
        None => defaults.min_score,
        Some(text) => {
            let score: Score = text.parse().map_err(core)?;
            if score.thousandths() == 0 {
                return Err(Failure::new("SCORE", "min_score: must be above 0"));
            }
            score
        }
    };
    let mut limits: Limits = defaults.limits;
    let l = spec.limits;
    let fields: [(&str, Option<i64>, &mut usize); 6] = [
        ("max_output_bytes", l.max_output_bytes, &mut limits.max_output_bytes),
        ("max_depth", l.max_depth, &mut limits.max_depth),
        ("max_text_chars", l.max_text_chars, &mut limits.max_text_chars),
        ("max_path_chars", l.max_path_chars, &mut limits.max_path_chars),
        ("max_nodes", l.max_nodes, &mut limits.max_nodes),
        ("max_refs", l.max_refs, &mut limits.max_refs),
    ];
    for (name, given, slot) in fields {
        if let Some(given) = given {
            *slot = usize::try_from(given)
                .ok()
                .filter(|&n| n >= 1)
                .ok_or_else(|| Failure::new("LIMIT", format!("{name}: must be at least 1, not {given}")))?;
        }
    }
    Ok(Policy { require, max_rung, min_score, limits })
}

/// `policy` with every value filled in, as the Java `Policy` reads it back.
pub fn describe(policy: &Policy) -> String {
    let l = &policy.limits;
    json!({
        "require": policy.require.as_str(),
        "match": policy.max_rung.as_str(),
        "min_score": policy.min_score.to_string(),
        "key": policy.key(),
        "limits": {
            "max_output_bytes": l.max_output_bytes,
            "max_depth": l.max_depth,
            "max_text_chars": l.max_text_chars,
            "max_path_chars": l.max_path_chars,
            "max_nodes": l.max_nodes,
            "max_refs": l.max_refs,
        },
    })
    .to_string()
}
