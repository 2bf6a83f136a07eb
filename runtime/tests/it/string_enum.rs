//! `string_enum!` from outside the runtime, as generated code uses it: a nested module with
//! no prelude, no `use serde`, and only `::mcp_bindgen` paths.

mod outer {
    /// Generated-code style: `#![no_implicit_prelude]` proves the macro names every item by
    /// an absolute path.
    #[no_implicit_prelude]
    pub mod inner {
        /// The kind of thing.
        #[derive(
            ::core::clone::Clone,
            ::core::marker::Copy,
            ::core::fmt::Debug,
            ::core::cmp::Eq,
            ::core::hash::Hash,
            ::core::cmp::Ord,
            ::core::cmp::PartialEq,
            ::core::cmp::PartialOrd,
        )]
        pub enum Kind {
            /// Plain.
            GetWorkflow,
            r#Type,
            AbC,
        }
        ::mcp_bindgen::__private::string_enum!(Kind {
            GetWorkflow = "get_workflow",
            r#Type = "type",
            AbC = "a-b c"
        });

        /// One variant, private enum, trailing comma.
        #[derive(::core::clone::Clone, ::core::marker::Copy, ::core::fmt::Debug)]
        pub(crate) enum One {
            Only,
        }
        ::mcp_bindgen::__private::string_enum!(One { Only = "only", });
    }
}

use mcp_bindgen::__private::serde_json;
use outer::inner::{Kind, One};

#[test]
fn string_enum_from_another_crate() {
    assert_eq!(Kind::GetWorkflow.to_string(), "get_workflow");
    assert_eq!(Kind::AbC.to_string(), "a-b c");
    assert_eq!("type".parse::<Kind>().ok(), Some(Kind::r#Type));
    assert_eq!(Kind::try_from("a-b c").ok(), Some(Kind::AbC));
    assert_eq!(
        Kind::try_from(String::from("type")).ok(),
        Some(Kind::r#Type)
    );
    let err: mcp_bindgen::ConversionError = match "Type".parse::<Kind>() {
        Ok(kind) => panic!("parsed {kind:?}"),
        Err(e) => e,
    };
    assert_eq!(err.to_string(), "invalid value");

    assert_eq!(
        serde_json::to_string(&Kind::r#Type).ok().as_deref(),
        Some(r#""type""#)
    );
    assert_eq!(
        serde_json::to_value([Kind::AbC, Kind::GetWorkflow]).ok(),
        Some(serde_json::json!(["a-b c", "get_workflow"]))
    );
    assert_eq!(
        serde_json::from_str::<Kind>(r#""a-b c""#).ok(),
        Some(Kind::AbC)
    );
    assert_eq!(
        serde_json::from_str::<Kind>(r#"{"type": null}"#).ok(),
        Some(Kind::r#Type)
    );
    let value = serde_json::json!("get_workflow");
    assert_eq!(
        <Kind as mcp_bindgen::__private::serde::Deserialize>::deserialize(&value).ok(),
        Some(Kind::GetWorkflow)
    );
    assert_eq!(
        serde_json::from_str::<Kind>(r#""x""#).map_err(|e| e.to_string()),
        Err(
            "unknown variant `x`, expected one of `get_workflow`, `type`, `a-b c` at line 1 \
             column 3"
                .to_owned()
        )
    );
    assert_eq!(
        serde_json::from_value::<Kind>(serde_json::json!(null)).map_err(|e| e.to_string()),
        Err("invalid type: null, expected string or map".to_owned())
    );

    assert_eq!(One::Only.to_string(), "only");
    assert_eq!(
        serde_json::to_string(&One::Only).ok().as_deref(),
        Some(r#""only""#)
    );
    assert!(matches!(
        serde_json::from_str::<One>(r#""only""#),
        Ok(One::Only)
    ));
}
