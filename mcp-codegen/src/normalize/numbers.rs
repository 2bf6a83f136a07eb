//! Integer and number steps: bounds decide `u64` or `i64`, integers past 64 bits become
//! `f64`, a `number` with an integral `multipleOf` becomes an integer.

use serde_json::{Map, Value, json};

/// Integer bounds → `minimum: 0` when the value can never be negative (`u64`), nothing
/// otherwise (`i64`). Number bounds are removed (typify drops them anyway).
pub(super) fn integer_bounds(obj: &mut Map<String, Value>) {
    let minimum = obj.remove("minimum").and_then(|v| v.as_f64());
    let exclusive = obj.remove("exclusiveMinimum").and_then(|v| v.as_f64());
    if is_integer(obj) && matches!(lower_bound(minimum, exclusive), Some(l) if l >= 0.0) {
        obj.insert("minimum".into(), json!(0));
    }
}

fn is_integer(obj: &Map<String, Value>) -> bool {
    match obj.get("type") {
        Some(Value::String(t)) => t == "integer",
        Some(Value::Array(ts)) => ts.iter().any(|t| t == "integer"),
        _ => false,
    }
}

fn lower_bound(minimum: Option<f64>, exclusive: Option<f64>) -> Option<f64> {
    match (minimum, exclusive) {
        (Some(a), Some(b)) => Some(a.max(b)),
        (a, b) => a.or(b),
    }
}

/// An integer whose bounds reach past 64 bits (`maximum: 1e300`) → a `number` (`f64`), the
/// one Rust number that carries such values (runs before the bounds are dropped).
pub(super) fn wide_integers(obj: &mut Map<String, Value>) {
    if !is_integer(obj) {
        return;
    }
    let bound = |k: &str| obj.get(k).and_then(Value::as_f64);
    let lower = lower_bound(bound("minimum"), bound("exclusiveMinimum"));
    let upper = match (bound("maximum"), bound("exclusiveMaximum")) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    };
    let limit = if lower.is_some_and(|l| l >= 0.0) {
        u64::MAX as f64
    } else {
        i64::MAX as f64
    };
    if !(lower.is_some_and(|l| l < i64::MIN as f64) || upper.is_some_and(|u| u > limit)) {
        return;
    }
    match obj.get_mut("type") {
        Some(Value::Array(types)) => {
            types.retain(|t| t != "integer");
            if !types.iter().any(|t| t == "number") {
                types.push(json!("number"));
            }
        }
        Some(t) => *t = json!("number"),
        None => {}
    }
}

/// `type: number` with an integral `multipleOf` → `type: integer`: every value it allows is
/// a whole number. (Whole-number bounds alone do not make one: `temperature` from 0 to 2
/// allows 0.7.)
pub(super) fn integral_numbers(obj: &mut Map<String, Value>) {
    let integral_step = obj
        .get("multipleOf")
        .and_then(Value::as_f64)
        .is_some_and(|m| m >= 1.0 && m.fract() == 0.0);
    if !integral_step {
        return;
    }
    match obj.get_mut("type") {
        Some(t @ Value::String(_)) if t == "number" => *t = json!("integer"),
        Some(Value::Array(types)) => {
            let has_integer = types.iter().any(|t| t == "integer");
            types.retain(|t| !(has_integer && t == "number"));
            for t in types.iter_mut() {
                if t == "number" {
                    *t = json!("integer");
                }
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::normalize::tests::norm;

    #[test]
    fn formats_patterns_and_bounds() {
        let n = norm(json!({"type": "object", "properties": {
            "t": {"type": "string", "format": "date-time"},
            "u": {"type": "string", "format": "uuid", "pattern": "^[a-f0-9-]+$", "minLength": 1},
            "page": {"type": "integer", "minimum": 1, "maximum": 100},
            "delta": {"type": "integer", "minimum": -5},
            "big": {"type": "integer", "minimum": -9007199254740991i64, "maximum": 9007199254740991i64},
            "huge": {"type": "integer", "minimum": 0, "maximum": 1e300},
            "deep": {"type": ["integer", "null"], "minimum": -1e20},
            "x": {"type": "number", "exclusiveMinimum": 0}
        }}));
        let p = &n.root["properties"];
        assert_eq!(p["t"], json!({"type": "string"}));
        assert_eq!(p["u"], json!({"type": "string"}));
        assert_eq!(p["page"], json!({"type": "integer", "minimum": 0}));
        assert_eq!(p["delta"], json!({"type": "integer"}));
        assert_eq!(p["big"], json!({"type": "integer"}));
        // Past 64 bits: only `f64` carries the values.
        assert_eq!(p["huge"], json!({"type": "number"}));
        assert_eq!(p["deep"], json!({"type": ["null", "number"]}));
        assert_eq!(p["x"], json!({"type": "number"}));
    }
}
