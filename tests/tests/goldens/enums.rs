#![deny(warnings)]
include!("../../../mcp-codegen/tests/goldens/enums.rs");
#[path = "support/roundtrip.rs"]
mod roundtrip;

use enums::{consts, search_issues, shapes};
use serde_json::json;

fn main() {
    for (sort, text) in [
        (search_issues::ArgsSort::ReactionsPlus1, "reactions-+1"),
        (search_issues::ArgsSort::ReactionsMinus1, "reactions--1"),
        (search_issues::ArgsSort::Reactions, "reactions"),
    ] {
        let a = search_issues::Args {
            q: "x".into(),
            sort: Some(sort),
            encoding: None,
            level: None,
        };
        let v = roundtrip::check(
            search_issues::TOOL.name,
            search_issues::TOOL.input_schema,
            &a,
        );
        assert_eq!(v["sort"], text);
        assert_eq!(sort.to_string(), text);
        assert_eq!(text.parse::<search_issues::ArgsSort>().ok(), Some(sort));
    }
    let a = search_issues::Args {
        q: "x".into(),
        sort: None,
        encoding: Some(search_issues::ArgsEncoding::Utf82),
        level: Some(search_issues::ArgsLevel::try_from(2i64).expect("valid level")),
    };
    assert_eq!(
        roundtrip::check(
            search_issues::TOOL.name,
            search_issues::TOOL.input_schema,
            &a
        ),
        json!({"q": "x", "encoding": "UTF-8", "level": 2})
    );
    assert!(search_issues::ArgsLevel::try_from(9i64).is_err());

    let s = shapes::Args {
        shape: shapes::ArgsShape::Circle { radius: 2.0 },
        target: Some(shapes::ArgsTarget::ItemId(4)),
        flag: Some(shapes::ArgsFlag::Boolean(true)),
        value: Some(shapes::ArgsValue::Object { v: Some(1.0) }),
    };
    let v = roundtrip::check(shapes::TOOL.name, shapes::TOOL.input_schema, &s);
    assert_eq!(v["shape"], json!({"kind": "circle", "radius": 2.0}));
    assert_eq!(v["target"], json!({"item_id": 4}));

    let c = consts::Args {
        version: consts::ArgsVersion::X202401,
        kind: consts::ArgsKind::Issue,
        answer: Some(consts::ArgsAnswer::try_from(42.0).expect("the constant")),
        yes: Some(true),
    };
    assert_eq!(
        roundtrip::check(consts::TOOL.name, consts::TOOL.input_schema, &c),
        json!({"version": "2024-01", "kind": "issue", "answer": 42.0, "yes": true})
    );
}
