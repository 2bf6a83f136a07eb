//! `serde_struct!` from outside the runtime, as generated code uses it: a nested module with
//! no prelude, no `use serde`, and only `::mcp_bindgen` paths.

mod outer {
    /// Generated-code style: `#![no_implicit_prelude]` proves the macro names every item by
    /// an absolute path.
    #[no_implicit_prelude]
    pub mod inner {
        /// typify's default functions.
        pub mod defaults {
            /// `V` as a `T`.
            pub fn default_u64<T, const V: u64>() -> T
            where
                T: ::std::convert::From<u64>,
            {
                T::from(V)
            }
        }

        /// The kind of thing.
        #[derive(
            ::core::clone::Clone, ::core::marker::Copy, ::core::fmt::Debug, ::core::cmp::PartialEq,
        )]
        pub enum Kind {
            /// A bug.
            Bug,
            /// The `type` keyword.
            r#Type,
        }
        ::mcp_bindgen::__private::string_enum!(Kind { Bug = "bug", r#Type = "type" });

        /// Arguments of a tool.
        #[derive(::core::fmt::Debug, ::core::cmp::PartialEq)]
        pub struct Args {
            /// Optional, skipped when `None`.
            pub after: ::std::option::Option<::std::string::String>,
            /// Renamed.
            pub order_by: ::std::option::Option<::std::string::String>,
            /// `#[serde(default)]`, skipped when empty.
            pub labels: ::std::vec::Vec<::std::string::String>,
            /// `#[serde(default = "…")]`.
            pub limit: u64,
            /// Required.
            pub owner: ::std::string::String,
            /// A raw identifier of an enum type.
            pub r#type: ::std::option::Option<Kind>,
            /// A nested struct.
            pub nested: ::std::option::Option<Nested>,
        }
        ::mcp_bindgen::__private::serde_struct!(Args {
            after = "after" skip_if(::std::option::Option::is_none),
            order_by = "orderBy" skip_if(::std::option::Option::is_none),
            labels = "labels" default skip_if(::std::vec::Vec::is_empty),
            limit = "limit" default(defaults::default_u64::<u64, 30>),
            owner = "owner",
            r#type = "type" skip_if(::std::option::Option::is_none),
            nested = "nested" skip_if(::std::option::Option::is_none),
        } deny_unknown_fields);

        /// A nested struct: private fields, no trailing comma, unknown keys ignored.
        #[derive(::core::fmt::Debug, ::core::cmp::PartialEq)]
        pub struct Nested {
            pub(crate) id: i64,
            pub(crate) done: bool,
        }
        ::mcp_bindgen::__private::serde_struct!(Nested {
            id = "id",
            done = "done" default
        });

        /// No fields.
        #[derive(::core::fmt::Debug, ::core::cmp::PartialEq)]
        pub struct Empty {}
        ::mcp_bindgen::__private::serde_struct!(Empty {} deny_unknown_fields);
    }
}

use mcp_bindgen::__private::serde_json;
use outer::inner::{Args, Empty, Kind, Nested};

fn error<T: std::fmt::Debug>(result: serde_json::Result<T>) -> String {
    match result {
        Ok(value) => panic!("parsed {value:?}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn serde_struct_from_another_crate() {
    let args: Args = serde_json::from_str(
        r#"{"owner": "me", "orderBy": "created", "type": "type", "nested": {"id": 7, "x": 1}}"#,
    )
    .unwrap();
    assert_eq!(
        args,
        Args {
            after: None,
            order_by: Some("created".to_owned()),
            labels: Vec::new(),
            limit: 30,
            owner: "me".to_owned(),
            r#type: Some(Kind::r#Type),
            nested: Some(Nested { id: 7, done: false }),
        }
    );
    assert_eq!(
        serde_json::to_string(&args).unwrap(),
        r#"{"orderBy":"created","limit":30,"owner":"me","type":"type","nested":{"id":7,"done":false}}"#
    );
    assert_eq!(
        serde_json::to_value(&args).unwrap(),
        serde_json::json!({
            "orderBy": "created",
            "limit": 30,
            "owner": "me",
            "type": "type",
            "nested": {"id": 7, "done": false},
        })
    );
    let value = serde_json::json!({"owner": "you", "labels": ["a"], "after": null, "limit": 2});
    assert_eq!(
        <Args as mcp_bindgen::__private::serde::Deserialize>::deserialize(&value).unwrap(),
        Args {
            after: None,
            order_by: None,
            labels: vec!["a".to_owned()],
            limit: 2,
            owner: "you".to_owned(),
            r#type: None,
            nested: None,
        }
    );
    assert_eq!(
        serde_json::from_slice::<Args>(br#"[null, null, [], 1, "o", "bug", [3, true]]"#).unwrap(),
        Args {
            after: None,
            order_by: None,
            labels: Vec::new(),
            limit: 1,
            owner: "o".to_owned(),
            r#type: Some(Kind::Bug),
            nested: Some(Nested { id: 3, done: true }),
        }
    );

    assert_eq!(
        error(serde_json::from_str::<Args>(r#"{"limit": 1}"#)),
        "missing field `owner` at line 1 column 12"
    );
    assert_eq!(
        error(serde_json::from_str::<Args>(r#"{"owner": "a", "x": 1}"#)),
        "unknown field `x`, expected one of `after`, `orderBy`, `labels`, `limit`, `owner`, \
         `type`, `nested` at line 1 column 18"
    );
    assert_eq!(
        error(serde_json::from_str::<Args>(
            r#"{"owner": "a", "owner": "b"}"#
        )),
        "duplicate field `owner` at line 1 column 22"
    );
    assert_eq!(
        error(serde_json::from_str::<Args>(r#"[null, null]"#)),
        "invalid length 4, expected struct Args with 7 elements at line 1 column 12"
    );
    assert_eq!(
        error(serde_json::from_str::<Args>("1")),
        "invalid type: integer `1`, expected struct Args at line 1 column 1"
    );
    assert_eq!(
        error(serde_json::from_value::<Nested>(serde_json::json!([]))),
        "invalid length 0, expected struct Nested with 2 elements"
    );

    assert_eq!(serde_json::to_string(&Empty {}).unwrap(), "{}");
    assert_eq!(serde_json::from_str::<Empty>("{}").unwrap(), Empty {});
    assert_eq!(
        error(serde_json::from_str::<Empty>(r#"{"a": 1}"#)),
        "unknown field `a`, there are no fields at line 1 column 4"
    );
}
