#![deny(warnings)]
include!("../../../mcp-codegen/tests/goldens/constraints.rs");
#[path = "support/roundtrip.rs"]
mod roundtrip;

use constraints::{defaults, dropped, formats, free_form};
use serde_json::json;

fn main() {
    let f = formats::Args {
        when: "2024-05-01T12:00:00Z".into(),
        day: Some("2024-05-01".into()),
        id: Some("67e55044-10b1-426f-9247-bb680e5fe0c8".into()),
        email: Some("a@example.com".into()),
        ip: Some("127.0.0.1".into()),
        slug: Some("a-slug".into()),
        page: Some(1),
        per_page: Some(100),
        zod_int: Some(-5),
        offset: Some(0),
        ratio: Some(0.5),
        // `number` with an integral `multipleOf`: every allowed value is whole.
        count: Some(3u64),
        step: Some(Some(-10i64)),
        half: Some(2.5f64),
        small: Some(7),
    };
    roundtrip::check(formats::TOOL.name, formats::TOOL.input_schema, &f);
    // `Args::new` takes the required arguments; the rest by struct update.
    let g = formats::Args {
        page: Some(2),
        ..formats::Args::new("2024-05-01T12:00:00Z")
    };
    assert_eq!(
        roundtrip::check(formats::TOOL.name, formats::TOOL.input_schema, &g),
        json!({"when": "2024-05-01T12:00:00Z", "page": 2})
    );
    // What the types do not enforce (documented): the server's bounds.
    roundtrip::rejects(formats::TOOL.input_schema, json!({"when": "x", "page": 0}));

    let d = defaults::Args::default();
    assert_eq!(
        roundtrip::check(defaults::TOOL.name, defaults::TOOL.input_schema, &d),
        json!({})
    );
    let d = defaults::Args {
        public: Some(true),
        path: None,
        state: Some(defaults::ArgsState::Closed),
    };
    roundtrip::check(defaults::TOOL.name, defaults::TOOL.input_schema, &d);

    let x = dropped::Args {
        cond: Some(dropped::ArgsCond {
            a: Some("a".into()),
        }),
        tuple: None,
        dyn_: None,
        strict: Some(dropped::ArgsStrict {
            x: Some("x".into()),
        }),
        ext: Some("plain string".into()),
    };
    roundtrip::check(dropped::TOOL.name, dropped::TOOL.input_schema, &x);

    let mut headers = std::collections::BTreeMap::new();
    headers.insert("Accept".to_string(), "json".to_string());
    let ff = free_form::Args {
        data: json!({"anything": [1, 2]}),
        headers: Some(headers),
        extra: None,
        loose: None,
        // A property named `extra` beside typify's flattened `extra` map.
        nested: Some(free_form::ArgsNested {
            extra_property: Some("e".into()),
            extra: [("k".to_string(), 7i64)].into_iter().collect(),
        }),
        // `patternProperties` keys land in the flattened map; alone, a JSON map.
        labels: Some(free_form::ArgsLabels {
            name: Some("n".into()),
            extra: [("x-team".to_string(), "core".to_string())]
                .into_iter()
                .collect(),
        }),
        env: Some([("HOME".to_string(), json!("/root"))].into_iter().collect()),
    };
    assert_eq!(
        roundtrip::check(free_form::TOOL.name, free_form::TOOL.input_schema, &ff)["nested"],
        json!({"extra": "e", "k": 7})
    );
    let back: free_form::Args = serde_json::from_value(roundtrip::check(
        free_form::TOOL.name,
        free_form::TOOL.input_schema,
        &ff,
    ))
    .expect("decodes");
    assert_eq!(back, ff);
}
