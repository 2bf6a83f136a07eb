#![deny(warnings)]
include!("../../../mcp-codegen/tests/goldens/refs.rs");
#[path = "support/roundtrip.rs"]
mod roundtrip;

use refs::{first, pydantic_allof, second, tree, zod_pointers};
use serde_json::json;

fn main() {
    // Two tools with a `$defs.Item` each: two distinct types in two modules.
    let a = first::Args {
        item: first::Item { name: "n".into() },
        items: Some(vec![first::Item { name: "m".into() }]),
    };
    roundtrip::check(first::TOOL.name, first::TOOL.input_schema, &a);
    let b = second::Args {
        item: Some(second::Item { count: Some(2) }),
    };
    assert_eq!(
        roundtrip::check(second::TOOL.name, second::TOOL.input_schema, &b),
        json!({"item": {"count": 2}})
    );

    let p = zod_pointers::FromDef { lat: 1.0, lon: 2.0 };
    let z = zod_pointers::Args {
        from: p.clone(),
        to: Some(p.clone()),
        via: Some(vec![p]),
    };
    roundtrip::check(zod_pointers::TOOL.name, zod_pointers::TOOL.input_schema, &z);

    let t = tree::Args {
        label: "root".into(),
        children: Some(vec![tree::Args {
            label: "leaf".into(),
            children: None,
            meta: None,
        }]),
        meta: Some(tree::M {
            note: Some("n".into()),
        }),
    };
    let v = roundtrip::check(tree::TOOL.name, tree::TOOL.input_schema, &t);
    assert_eq!(v["children"][0]["label"], "leaf");

    let m = pydantic_allof::Args {
        mode: Some(pydantic_allof::Mode::Slow),
    };
    assert_eq!(
        roundtrip::check(
            pydantic_allof::TOOL.name,
            pydantic_allof::TOOL.input_schema,
            &m
        ),
        json!({"mode": "slow"})
    );
}
