//! Round-trip helper shared by the golden pass files.
#![allow(dead_code)]

use serde_json::Value;

/// Serializes `args` and validates the JSON against `schema` (draft 2020-12 and draft-07);
/// returns the JSON.
pub fn check<A: ::mcp_bindgen::__private::serde::Serialize>(
    tool: &str,
    schema: &str,
    args: &A,
) -> Value {
    let schema: Value = serde_json::from_str(schema).expect("schema is JSON");
    let instance = serde_json::to_value(args).expect("arguments serialize");
    assert!(
        instance.is_object(),
        "{tool}: arguments serialize to an object, got {instance}"
    );
    // Keywords draft-07 does not know ($anchor, $dynamic*, prefixItems, unevaluated*) are
    // validated under 2020-12 only.
    let text = schema.to_string();
    let modern = [
        "\"$anchor\"",
        "\"$dynamic",
        "\"prefixItems\"",
        "\"unevaluated",
    ]
    .iter()
    .any(|k| text.contains(k));
    let mut drafts = vec![("2020-12", jsonschema::draft202012::new(&schema))];
    if !modern {
        drafts.push(("draft-07", jsonschema::draft7::new(&schema)));
    }
    for (draft, validator) in drafts {
        let validator =
            validator.unwrap_or_else(|e| panic!("{tool}: schema does not build ({draft}): {e}"));
        let errors: Vec<String> = validator
            .iter_errors(&instance)
            .map(|e| e.to_string())
            .collect();
        assert!(
            errors.is_empty(),
            "{tool}: {instance} is invalid ({draft}): {errors:?}"
        );
    }
    instance
}

/// Asserts that `json` violates `schema` (used to show what the types cannot prevent).
pub fn rejects(schema: &str, json: Value) {
    let schema: Value = serde_json::from_str(schema).expect("schema is JSON");
    assert!(
        !jsonschema::draft202012::is_valid(&schema, &json),
        "{json} should be invalid"
    );
}

/// `json` decodes into `T` and encodes back to itself; returns the decoded value.
pub fn same<T>(json: Value) -> T
where
    T: ::mcp_bindgen::__private::serde::de::DeserializeOwned
        + ::mcp_bindgen::__private::serde::Serialize,
{
    let typed: T = serde_json::from_value(json.clone())
        .unwrap_or_else(|e| panic!("{json} does not decode: {e}"));
    assert_eq!(serde_json::to_value(&typed).expect("encodes"), json);
    typed
}
