#![deny(warnings)]
include!("../../../mcp-codegen/tests/goldens/faithful.rs");
#[path = "support/roundtrip.rs"]
mod roundtrip;

use serde_json::json;
use faithful::{
    colliding_arguments, colliding_type_names, const_tagged, nested_tag, nullable_recursion,
    openapi_shapes, output_fields, pydantic_union, required_sets,
};

use roundtrip::same;

fn main() {
    // Class 1: a union of open objects carries every branch's properties, whichever branch
    // (or branches) a value fits; the first branch accepting any object no longer swallows
    // a later one's value.
    let a: pydantic_union::Args = same(json!({"condition": {"time_window": 300}}));
    assert_eq!(a.condition.time_window, Some(300));
    roundtrip::check(pydantic_union::TOOL.name, pydantic_union::TOOL.input_schema, &a);
    let a: pydantic_union::Args =
        same(json!({"condition": {"threshold": 0.5, "count": 3, "label": "both"}}));
    roundtrip::check(pydantic_union::TOOL.name, pydantic_union::TOOL.input_schema, &a);
    for v in [
        json!({"result": {"threshold": 1.5}}),
        json!({"result": {"time_window": 60, "unit": "s"}}),
        json!({"result": {"threshold": 1.0, "time_window": 1}}),
        json!({"result": null}),
    ] {
        same::<pydantic_union::Output>(v);
    }
    let any = required_sets::ArgsAny {
        email: Some("a@b.c".into()),
        team_id: Some("t1".into()),
        note: Some("shared by two branches".into()),
        ..Default::default()
    };
    let v = roundtrip::check(
        required_sets::TOOL.name,
        required_sets::TOOL.input_schema,
        &required_sets::Args::new(any),
    );
    assert_eq!(v["any"]["note"], "shared by two branches");
    same::<required_sets::Args>(v);
    // `oneOf`: exactly one branch holds, so an enum decodes it by its required properties.
    let one: required_sets::Args =
        same(json!({"any": {"user_id": "u"}, "one": {"team_id": 7, "note": "n"}}));
    assert!(matches!(
        one.one,
        Some(required_sets::ArgsOne::TeamId { team_id: 7, .. })
    ));

    // OpenAPI converters' and pydantic servers' spellings of the same unions: a union that
    // reaches itself (no endless inlining), branches without `type`, properties beside a
    // union, "at least one of" rules, a nullable union of objects.
    for v in [
        json!({"condition": {"field": "a", "operands": [
            {"field": "b", "operands": [{"value": "x"}, {"field": "c"}]},
            {"value": "y"}
        ]}}),
        json!({"rules": [
            {"rule_type": "working_hour", "within_working_hour": true},
            null,
            {"rule_type": "service", "service_ids": ["s"]}
        ]}),
        json!({"notification": {"jq_filter": ".", "experience_id": "e", "title": "t"}}),
        json!({"slack": {"blocks": "b", "slack_users": ["u"], "task_type": "send_slack"}}),
    ] {
        let a: openapi_shapes::Args = same(v);
        roundtrip::check(openapi_shapes::TOOL.name, openapi_shapes::TOOL.input_schema, &a);
    }
    // Arrays in several branches: one list of items carrying either branch's properties.
    let out: openapi_shapes::Output =
        same(json!({"result": {"jobs": [{"id": "1", "url": "u"}, {"id": "2"}], "links": []}}));
    assert_eq!(out.result.jobs[0].url.as_deref(), Some("u"));

    // Class 2: a union tagged by a constant: each variant has its own nested types.
    use const_tagged::{
        ArgsRequest, ArgsRequestDeleteTeamParams, ArgsRequestGetTeamParams,
        ArgsRequestListTeamsParams,
    };
    for (request, wire) in [
        (
            ArgsRequest::GetTeam {
                params: ArgsRequestGetTeamParams { team_id: "x".into() },
            },
            json!({"operation": "get-team", "params": {"teamId": "x"}}),
        ),
        (
            ArgsRequest::ListTeams {
                params: Some(ArgsRequestListTeamsParams { limit: Some(5) }),
            },
            json!({"operation": "list-teams", "params": {"limit": 5}}),
        ),
        (
            ArgsRequest::DeleteTeam {
                params: ArgsRequestDeleteTeamParams {
                    team_id: "x".into(),
                    force: Some(true),
                },
            },
            json!({"operation": "delete-team", "params": {"teamId": "x", "force": true}}),
        ),
    ] {
        let a = const_tagged::Args { request };
        let v = roundtrip::check(const_tagged::TOOL.name, const_tagged::TOOL.input_schema, &a);
        assert_eq!(v["request"], wire);
        assert_eq!(same::<const_tagged::Args>(v), a);
    }
    let out: const_tagged::Output = same(json!({"events": [
        {"type": "created", "data": {"id": "1", "name": "n"}},
        {"type": "deleted", "data": {"id": "1", "reason": "r"}}
    ]}));
    assert_eq!(out.events.len(), 2);
    // Tagged one level down, and a tag that may be left out (then the value fits either
    // branch: one object carries both).
    for v in [
        json!({"step": {"action": {"kind": "move"}, "to": "x"}}),
        json!({"step": {"action": {"kind": "wait"}, "seconds": 2.5}}),
        json!({"step": {"action": {"kind": "wait"}}, "shape": {"kind": "square", "side": 2.0}}),
        json!({"step": {"action": {"kind": "wait"}}, "shape": {"radius": 1.0, "side": 2.0}}),
    ] {
        let a: nested_tag::Args = same(v);
        roundtrip::check(nested_tag::TOOL.name, nested_tag::TOOL.input_schema, &a);
    }
    assert!(
        serde_json::from_value::<nested_tag::Args>(json!({"step": {"action": {"kind": "fly"}}}))
            .is_err()
    );

    // Class 3: nullability exactly as the schema says, at every depth of a recursion.
    for v in [
        json!({"root": null}),
        json!({"root": {"name": "a", "child": {"name": "b", "child": {"name": "c"}}}}),
        json!({"root": null, "list": {"v": 1, "next": {"v": 2, "next": {"v": 3, "next": null}}}}),
        json!({"root": null, "tree": {"name": "a", "left": {"name": "b", "right": {"name": "c"}}}}),
    ] {
        let a: nullable_recursion::Args = same(v);
        roundtrip::check(
            nullable_recursion::TOOL.name,
            nullable_recursion::TOOL.input_schema,
            &a,
        );
    }
    // An optional nested property that may be null: `null` decodes to `None`, which is left
    // out (a nested `Option` has one "nothing"; only top-level arguments tell them apart).
    let a: nullable_recursion::Args =
        serde_json::from_value(json!({"root": {"name": "a", "child": null}})).expect("decodes");
    assert_eq!(
        serde_json::to_value(&a).expect("encodes"),
        json!({"root": {"name": "a"}})
    );
    // `left` may be absent, never null: a depth-2 `None` is left out, not sent as null.
    let deep = nullable_recursion::Tree {
        name: "a".into(),
        left: Some(Box::new(nullable_recursion::Tree {
            name: "b".into(),
            left: None,
            right: None,
        })),
        right: None,
    };
    let a = nullable_recursion::Args {
        root: None,
        list: None,
        tree: Some(Box::new(deep)),
    };
    let v = roundtrip::check(
        nullable_recursion::TOOL.name,
        nullable_recursion::TOOL.input_schema,
        &a,
    );
    assert_eq!(v["tree"], json!({"name": "a", "left": {"name": "b"}}));
    // A required, nullable link at depth 3 is sent as null, never left out.
    assert!(
        serde_json::from_value::<nullable_recursion::Args>(
            json!({"root": null, "list": {"v": 1, "next": {"v": 2}}})
        )
        .is_err()
    );
    same::<nullable_recursion::Output>(json!({"head": {"name": "a", "child": {"name": "b"}}}));

    // Class 4: every declared output property survives.
    let out: output_fields::Output = same(json!({
        "summary": "plain string beside nested objects",
        "details": {"title": "t", "meta": {"count": 2}},
        "status": {"code": 503, "message": "busy", "retryAfter": 5},
        "createdAt": "2026-11-27",
        "created_at": 1764201600
    }));
    assert_eq!(out.created_at, Some(1764201600));
    assert_eq!(out.created_at_camel.as_deref(), Some("2026-11-27"));

    // Types typify would give one name (and then use the first for both) get their own.
    let a: colliding_type_names::Args = same(json!({
        "a_b": "y", "a": {"b": "q"}, "foo": {"w": "w"}, "bar": {"z": true}
    }));
    roundtrip::check(
        colliding_type_names::TOOL.name,
        colliding_type_names::TOOL.input_schema,
        &a,
    );
    let out: colliding_type_names::Output = same(json!({
        "list": [{"id": "1"}],
        "list_item": {"summary": "a string beside the list", "count": 1}
    }));
    assert_eq!(
        out.list_item.and_then(|i| i.summary).as_deref(),
        Some("a string beside the list")
    );

    // Class 5: names that collide get distinct fields on their own; JSON names are kept.
    let a = colliding_arguments::Args {
        order_by: Some(colliding_arguments::ArgsOrderBy::Desc),
        order_by_camel: Some("name".into()),
        order_by_pascal: Some(2),
        page_size: Some(10),
        page_size_kebab: Some(20),
        filter: Some(colliding_arguments::ArgsFilter {
            a_b: Some("snake".into()),
            a_b_camel: Some("camel".into()),
        }),
    };
    let v = roundtrip::check(
        colliding_arguments::TOOL.name,
        colliding_arguments::TOOL.input_schema,
        &a,
    );
    assert_eq!(
        v,
        json!({"order_by": "desc", "orderBy": "name", "OrderBy": 2, "page_size": 10,
               "page-size": 20, "filter": {"a_b": "snake", "aB": "camel"}})
    );
    assert_eq!(same::<colliding_arguments::Args>(v), a);
}
