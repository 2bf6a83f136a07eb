//! String and number variants: examples of formats and patterns fitted to length bounds;
//! bounds, middle and small numbers filtered by bounds and `multipleOf`.

use serde_json::{Map, Number, Value};

use super::lists::dedupe;
use super::pattern::regex_example;
use super::{MAX_STRING, TEXT};

/// String variants: the format's or pattern's example, fitted to the length bounds.
pub(super) fn strings(obj: &Map<String, Value>) -> Vec<Value> {
    let min = obj.get("minLength").and_then(Value::as_u64).unwrap_or(0) as usize;
    let max = obj
        .get("maxLength")
        .and_then(Value::as_u64)
        .map_or(MAX_STRING.max(min), |m| m as usize);
    let format = obj.get("format").and_then(Value::as_str);
    // A pattern's example and the format's examples (the oracle keeps those valid under
    // both); neither: plain texts.
    let mut base: Vec<String> = Vec::new();
    if let Some(p) = obj.get("pattern").and_then(Value::as_str) {
        base.push(regex_example(p).unwrap_or_else(|| TEXT.to_string()));
    }
    if let Some(f) = format {
        base.extend(format_examples(f).iter().map(|e| e.to_string()));
    }
    if base.is_empty() {
        base = vec![
            TEXT.to_string(),
            "Zoë \"quoted\" \\ text".to_string(),
            String::new(),
        ];
    }
    // Padding goes where the format keeps its shape: before an address's `@`, else at the end.
    let pad_front = matches!(format, Some("email" | "idn-email"));
    let mut out = Vec::new();
    for s in base {
        let n = s.chars().count();
        let fitted = if n < min {
            let pad: String = std::iter::repeat_n('x', min.min(MAX_STRING.max(min)) - n).collect();
            if pad_front {
                format!("{pad}{s}")
            } else {
                s + &pad
            }
        } else if n > max {
            s.chars().take(max).collect()
        } else {
            s
        };
        out.push(Value::String(fitted));
    }
    dedupe(&mut out);
    out
}

/// Valid examples of a string `format` (every format the JSON Schema validator checks),
/// longest first, then a short one for a tight `maxLength`; `text` for other formats.
fn format_examples(format: &str) -> &'static [&'static str] {
    match format {
        "date-time" => &["2024-01-02T03:04:05Z", "2024-01-02T03:04:05.678+01:00"],
        "date" => &["2024-01-02"],
        "time" => &["03:04:05Z", "23:59:59.5+02:00"],
        "duration" => &["P1D", "PT1H30M", "P1Y2M3DT4H5M6S"],
        "email" => &["user@example.com", "a@b.co"],
        "idn-email" => &["user@example.com", "用户@例子.广告"],
        "uri" | "url" | "iri" => &["https://example.com/a", "urn:x:y"],
        "uri-reference" | "iri-reference" => &["https://example.com/a", "a/b", "#f"],
        "uri-template" => &["https://example.com/{id}"],
        "uuid" => &["123e4567-e89b-12d3-a456-426614174000"],
        "ipv4" => &["192.0.2.1", "10.0.0.255"],
        "ipv6" => &["2001:db8::1", "::1"],
        "hostname" | "idn-hostname" => &["example.com", "a"],
        "regex" => &["^a+$", "a|b"],
        "json-pointer" => &["/a/0", ""],
        "relative-json-pointer" => &["0/a", "1"],
        "byte" => &["aGVsbG8="],
        _ => &[TEXT],
    }
}

/// Number variants: the bounds, a middle value, small values; non-integral ones for
/// `number`; all filtered by bounds and `multipleOf`.
pub(super) fn numbers(obj: &Map<String, Value>, integer: bool) -> Vec<Value> {
    let f = |k: &str| obj.get(k).and_then(Value::as_f64);
    let mut lo = f("minimum");
    let mut hi = f("maximum");
    let mut lo_excl = false;
    let mut hi_excl = false;
    // draft-06+: numeric exclusive bounds; draft-04: booleans.
    match obj.get("exclusiveMinimum") {
        Some(Value::Bool(true)) => lo_excl = true,
        Some(v) if v.is_number() => {
            let e = v.as_f64().unwrap_or(0.0);
            if lo.is_none_or(|l| e >= l) {
                lo = Some(e);
                lo_excl = true;
            }
        }
        _ => {}
    }
    match obj.get("exclusiveMaximum") {
        Some(Value::Bool(true)) => hi_excl = true,
        Some(v) if v.is_number() => {
            let e = v.as_f64().unwrap_or(0.0);
            if hi.is_none_or(|h| e <= h) {
                hi = Some(e);
                hi_excl = true;
            }
        }
        _ => {}
    }
    let step = f("multipleOf").filter(|m| *m > 0.0);
    let unit = if integer { 1.0 } else { step.unwrap_or(0.5) };
    let mut candidates: Vec<f64> = Vec::new();
    if let Some(l) = lo {
        candidates.push(if lo_excl { l + unit } else { l });
    }
    if let Some(h) = hi {
        candidates.push(if hi_excl { h - unit } else { h });
    }
    if let (Some(l), Some(h)) = (lo, hi) {
        candidates.push(((l + h) / 2.0).floor());
    }
    candidates.extend([1.0, 0.0, 42.0, -1.0, 1_000_000.0]);
    if !integer {
        candidates.extend([1.5, -2.25]);
    }
    let fits = |x: f64| {
        lo.is_none_or(|l| if lo_excl { x > l } else { x >= l })
            && hi.is_none_or(|h| if hi_excl { x < h } else { x <= h })
            && step.is_none_or(|m| ((x / m) - (x / m).round()).abs() < 1e-9)
            && (!integer || x.fract() == 0.0)
            && x.is_finite()
    };
    let mut out = Vec::new();
    for x in candidates {
        let x = if integer { x.ceil() } else { x };
        if !fits(x) {
            continue;
        }
        let v = if x.fract() == 0.0 && x.abs() < 9.2e18 {
            Value::Number(Number::from(x as i64))
        } else {
            match Number::from_f64(x) {
                Some(n) => Value::Number(n),
                None => continue,
            }
        };
        out.push(v);
    }
    dedupe(&mut out);
    out
}
