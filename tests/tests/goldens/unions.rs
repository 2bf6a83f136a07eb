#![deny(warnings)]
include!("../../../mcp-codegen/tests/goldens/unions.rs");
#[path = "support/roundtrip.rs"]
mod roundtrip;

use serde_json::json;
use unions::{
    const_discriminator, nullable_union, scalar_or_objects, scalars, sort_direction, titled,
    unique_property,
};

use roundtrip::same;

fn main() {
    // Numbers, words and an object in one union (a database server's sort direction): an
    // untagged enum of an integer enum, a string enum and the object.
    use sort_direction::{ArgsDirection, ArgsDirectionInteger, ArgsDirectionString};
    for (direction, wire) in [
        (
            ArgsDirection::Integer(ArgsDirectionInteger::try_from(-1).expect("-1 is allowed")),
            json!(-1),
        ),
        (
            ArgsDirection::String(ArgsDirectionString::Desc),
            json!("desc"),
        ),
        (
            ArgsDirection::Object {
                meta: "textScore".into(),
            },
            json!({"$meta": "textScore"}),
        ),
    ] {
        let a = sort_direction::Args {
            field: "age".into(),
            direction,
        };
        let v = roundtrip::check(
            sort_direction::TOOL.name,
            sort_direction::TOOL.input_schema,
            &a,
        );
        assert_eq!(v["direction"], wire);
        assert_eq!(same::<sort_direction::Args>(v), a);
    }
    assert!(ArgsDirectionInteger::try_from(2).is_err());
    assert!(
        serde_json::from_value::<sort_direction::Args>(json!({"field": "a", "direction": 2}))
            .is_err()
    );
    assert!(
        serde_json::from_value::<sort_direction::Args>(json!({"field": "a", "direction": "up"}))
            .is_err()
    );

    // Scalar unions, a string-or-array union and a mixed-type enum.
    for v in [
        json!({"id": "a1", "ids": ["x", "y"], "flag": true, "limit": 5}),
        json!({"id": 7, "ids": "x", "flag": "auto", "limit": "all"}),
        json!({"flag": 0}),
        json!({}),
    ] {
        let a: scalars::Args = same(v);
        roundtrip::check(scalars::TOOL.name, scalars::TOOL.input_schema, &a);
    }
    assert!(serde_json::from_value::<scalars::Args>(json!({"flag": 1})).is_err());
    // Integer bounds are left to the server (`minimum: 1` is `u64`, not `NonZeroU64`): the
    // type accepts 0, the schema does not.
    let loose: scalars::Args = same(json!({"limit": 0}));
    roundtrip::rejects(
        scalars::TOOL.input_schema,
        serde_json::to_value(&loose).expect("encodes"),
    );
    let a = scalars::Args {
        id: Some(scalars::ArgsId::Integer(3)),
        ids: Some(scalars::ArgsIds::Array(vec!["p".into()])),
        flag: Some(scalars::ArgsFlag::String(scalars::ArgsFlagString::Auto)),
        limit: Some(scalars::ArgsLimit::String(scalars::ArgsLimitString::All)),
    };
    assert_eq!(
        roundtrip::check(scalars::TOOL.name, scalars::TOOL.input_schema, &a),
        json!({"id": 3, "ids": ["p"], "flag": "auto", "limit": "all"})
    );
    for value in [json!(1.5), json!("x"), json!(false)] {
        let o: scalars::Output = same(json!({ "value": value }));
        let _ = o.value;
    }

    // A union of two types plus null: `Option<enum>`; required-and-nullable stays a plain
    // `Option` that sends `null`, optional-and-nullable is `Option<Option<…>>`.
    let a = nullable_union::Args {
        cursor: None,
        page: Some(None),
    };
    assert_eq!(
        roundtrip::check(
            nullable_union::TOOL.name,
            nullable_union::TOOL.input_schema,
            &a
        ),
        json!({"cursor": null, "page": null})
    );
    for v in [
        json!({"cursor": "c1", "page": "last"}),
        json!({"cursor": 4, "page": 2}),
        json!({"cursor": null}),
    ] {
        let a: nullable_union::Args = same(v);
        roundtrip::check(
            nullable_union::TOOL.name,
            nullable_union::TOOL.input_schema,
            &a,
        );
    }
    assert!(
        serde_json::from_value::<nullable_union::Args>(json!({"cursor": 1, "page": "middle"}))
            .is_err()
    );

    // A string or objects.
    for v in [
        json!({"target": "src/lib.rs"}),
        json!({"target": {"path": "a.rs"}}),
        json!({"target": {"line": 3}}),
        // `anyOf`: a value may match both object branches.
        json!({"target": {"path": "a.rs", "line": 3}}),
    ] {
        let a: scalar_or_objects::Args = same(v);
        roundtrip::check(
            scalar_or_objects::TOOL.name,
            scalar_or_objects::TOOL.input_schema,
            &a,
        );
    }
    let a = scalar_or_objects::Args {
        target: scalar_or_objects::ArgsTarget::String("README.md".into()),
    };
    assert_eq!(
        roundtrip::check(
            scalar_or_objects::TOOL.name,
            scalar_or_objects::TOOL.input_schema,
            &a
        ),
        json!({"target": "README.md"})
    );

    // Variants named by a constant discriminator (`type`), a required property only one
    // branch has, and titles.
    let a = const_discriminator::Args {
        content: vec![
            const_discriminator::ArgsContentItem::ImageOrAudio {
                data: "AA==".into(),
                mime_type: "image/png".into(),
                type_: const_discriminator::ArgsContentItemImageOrAudioType::Image,
            },
            const_discriminator::ArgsContentItem::Resource {
                type_: const_discriminator::ArgsContentItemResourceType::Resource,
                uri: "file:///a".into(),
            },
        ],
    };
    let v = roundtrip::check(
        const_discriminator::TOOL.name,
        const_discriminator::TOOL.input_schema,
        &a,
    );
    assert_eq!(
        v["content"][1],
        json!({"type": "resource", "uri": "file:///a"})
    );
    assert_eq!(same::<const_discriminator::Args>(v), a);

    for item in [
        unique_property::ArgsItem::NodeId {
            node_id: "PVTI_1".into(),
            note: None,
        },
        unique_property::ArgsItem::ItemId {
            item_id: 12,
            note: Some("n".into()),
        },
        unique_property::ArgsItem::IssueNumber {
            issue_number: 5,
            owner: "octo".into(),
        },
    ] {
        let a = unique_property::Args { item };
        let v = roundtrip::check(
            unique_property::TOOL.name,
            unique_property::TOOL.input_schema,
            &a,
        );
        assert_eq!(same::<unique_property::Args>(v), a);
    }

    for who in [
        titled::ArgsWho::Login {
            login: "octo".into(),
            host: None,
        },
        titled::ArgsWho::Email {
            email: "a@b.c".into(),
            verified: Some(true),
        },
    ] {
        let a = titled::Args { who };
        let v = roundtrip::check(titled::TOOL.name, titled::TOOL.input_schema, &a);
        assert_eq!(same::<titled::Args>(v), a);
    }
}
