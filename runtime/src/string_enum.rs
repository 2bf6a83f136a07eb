//! `string_enum!`: the `Display`, `FromStr`, `TryFrom` and serde impls of a generated
//! string enum (a JSON-schema `enum` of strings), written once here instead of being
//! derived per enum by serde_derive.
//!
//! The macro expands to a few one-line impls that call the generic helpers of this module;
//! the only per-enum code is a `match` from variant to string and two `const` slices. The
//! behaviour is the one `#[derive(Serialize, Deserialize)]` with `#[serde(rename = "…")]`
//! on every unit variant gives (same serializer calls, same visitor, same error messages),
//! plus typify's `Display`, `FromStr` and `TryFrom` impls.

use std::fmt;

use serde::de::{
    self, DeserializeSeed, Deserializer, EnumAccess, Expected, Unexpected, VariantAccess, Visitor,
};
use serde::ser::Serializer;

use crate::ConversionError;

/// Implements `Display`, `FromStr`, `TryFrom<&str>`, `TryFrom<String>`, `Serialize` and
/// `Deserialize` for a fieldless enum whose values are JSON strings.
///
/// ```
/// #[derive(Clone, Copy, Debug, Eq, Hash, Ord, PartialEq, PartialOrd)]
/// pub enum Method {
///     GetWorkflow,
///     r#Type,
/// }
/// mcp_bindgen::__private::string_enum!(Method { GetWorkflow = "get_workflow", r#Type = "type" });
///
/// assert_eq!(Method::GetWorkflow.to_string(), "get_workflow");
/// assert_eq!("type".parse::<Method>().ok(), Some(Method::r#Type));
/// ```
///
/// The variants must be listed in declaration order (checked at compile time):
///
/// ```compile_fail,E0080
/// #[derive(Clone, Copy)]
/// pub enum Method {
///     A,
///     B,
/// }
/// mcp_bindgen::__private::string_enum!(Method { B = "b", A = "a" });
/// ```
///
/// and all of them (the `match` of `Display` is exhaustive):
///
/// ```compile_fail,E0004
/// #[derive(Clone, Copy)]
/// pub enum Method {
///     A,
///     B,
/// }
/// mcp_bindgen::__private::string_enum!(Method { A = "a" });
/// ```
///
/// The enum must be `Copy` and have no explicit discriminants. Not a public API: generated
/// code names it as `::mcp_bindgen::__private::string_enum!`.
#[macro_export]
#[doc(hidden)]
macro_rules! __string_enum {
    ($name:ident { $($variant:ident = $value:literal),+ $(,)? }) => {
        const _: () = {
            const NAME: &str = ::core::stringify!($name);
            const VARIANTS: &[&str] = &[$($value),+];
            const VALUES: &[$name] = &[$($name::$variant),+];
            // `as u32` below is serde's variant index: the list must be in declaration order.
            let mut i = 0;
            while i < VALUES.len() {
                ::core::assert!(
                    VALUES[i] as usize == i,
                    "string_enum!: list the variants in declaration order"
                );
                i += 1;
            }
            fn as_str(value: &$name) -> &'static str {
                match *value {
                    $($name::$variant => $value,)+
                }
            }
            #[automatically_derived]
            impl ::core::fmt::Display for $name {
                fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                    f.write_str(as_str(self))
                }
            }
            #[automatically_derived]
            impl ::core::str::FromStr for $name {
                type Err = $crate::ConversionError;
                fn from_str(value: &str) -> ::core::result::Result<Self, $crate::ConversionError> {
                    $crate::__private::from_str_enum(value, VARIANTS, VALUES)
                }
            }
            #[automatically_derived]
            impl ::core::convert::TryFrom<&str> for $name {
                type Error = $crate::ConversionError;
                fn try_from(value: &str) -> ::core::result::Result<Self, $crate::ConversionError> {
                    $crate::__private::from_str_enum(value, VARIANTS, VALUES)
                }
            }
            #[automatically_derived]
            impl ::core::convert::TryFrom<::std::string::String> for $name {
                type Error = $crate::ConversionError;
                fn try_from(
                    value: ::std::string::String,
                ) -> ::core::result::Result<Self, $crate::ConversionError> {
                    $crate::__private::from_str_enum(&value, VARIANTS, VALUES)
                }
            }
            #[automatically_derived]
            impl $crate::__private::serde::Serialize for $name {
                fn serialize<S>(&self, serializer: S) -> ::core::result::Result<S::Ok, S::Error>
                where
                    S: $crate::__private::serde::Serializer,
                {
                    let index = *self as u32;
                    $crate::__private::serialize_str_enum(serializer, NAME, index, as_str(self))
                }
            }
            #[automatically_derived]
            impl<'de> $crate::__private::serde::Deserialize<'de> for $name {
                fn deserialize<D>(deserializer: D) -> ::core::result::Result<Self, D::Error>
                where
                    D: $crate::__private::serde::Deserializer<'de>,
                {
                    $crate::__private::deserialize_str_enum(deserializer, NAME, VARIANTS, VALUES)
                }
            }
        };
    };
}

/// serde_derive's name of a type: its identifier without `r#`.
fn unraw(name: &'static str) -> &'static str {
    name.strip_prefix("r#").unwrap_or(name)
}

/// `string_enum!`'s `FromStr` and `TryFrom`: the value at the position of `value` in
/// `variants`, or `"invalid value"` (typify's error).
pub fn from_str_enum<T: Copy>(
    value: &str,
    variants: &'static [&'static str],
    values: &'static [T],
) -> Result<T, ConversionError> {
    variants
        .iter()
        .position(|v| *v == value)
        .and_then(|index| values.get(index).copied())
        .ok_or_else(|| ConversionError::from("invalid value"))
}

/// `string_enum!`'s `Serialize`, as serde_derive's for a unit variant:
/// `serialize_unit_variant(name, index, variant)`. `name` is the enum's identifier as
/// `stringify!` spells it.
pub fn serialize_str_enum<S: Serializer>(
    serializer: S,
    name: &'static str,
    index: u32,
    variant: &'static str,
) -> Result<S::Ok, S::Error> {
    serializer.serialize_unit_variant(unraw(name), index, variant)
}

/// `string_enum!`'s `Deserialize`, as serde_derive's for an enum of unit variants:
/// `deserialize_enum(name, variants, …)` with a visitor that takes the variant from an
/// `EnumAccess` (by string, bytes or index) and then its unit value. `values[i]` is the
/// value of `variants[i]`; `name` is the enum's identifier as `stringify!` spells it.
pub fn deserialize_str_enum<'de, D, T>(
    deserializer: D,
    name: &'static str,
    variants: &'static [&'static str],
    values: &'static [T],
) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Copy,
{
    let index = deserialize_variant_index(deserializer, name, variants)?;
    values
        .get(index)
        .copied()
        .ok_or_else(|| de::Error::custom("string_enum!: fewer values than variants"))
}

/// The index in `variants` of the variant `deserializer` holds. Not generic over the enum,
/// so one copy per deserializer type serves every enum.
fn deserialize_variant_index<'de, D: Deserializer<'de>>(
    deserializer: D,
    name: &'static str,
    variants: &'static [&'static str],
) -> Result<usize, D::Error> {
    deserializer.deserialize_enum(unraw(name), variants, EnumVisitor { name, variants })
}

/// serde_derive's `__Visitor` of an externally tagged enum of unit variants.
struct EnumVisitor {
    /// The enum's identifier (serde_derive's `expecting` keeps a leading `r#`).
    name: &'static str,
    variants: &'static [&'static str],
}

impl<'de> Visitor<'de> for EnumVisitor {
    type Value = usize;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("enum ")?;
        f.write_str(self.name)
    }

    fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<usize, A::Error> {
        let (index, variant) = data.variant_seed(VariantIdentifier(self.variants))?;
        variant.unit_variant()?;
        Ok(index)
    }
}

/// serde_derive's `__Field` / `__FieldVisitor` of a variant identifier: a string, bytes or
/// an index, as the index of the variant.
struct VariantIdentifier(&'static [&'static str]);

impl<'de> DeserializeSeed<'de> for VariantIdentifier {
    type Value = usize;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<usize, D::Error> {
        deserializer.deserialize_identifier(self)
    }
}

impl<'de> Visitor<'de> for VariantIdentifier {
    type Value = usize;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("variant identifier")
    }

    fn visit_u64<E: de::Error>(self, value: u64) -> Result<usize, E> {
        match usize::try_from(value) {
            Ok(index) if index < self.0.len() => Ok(index),
            _ => Err(E::invalid_value(
                Unexpected::Unsigned(value),
                &IndexRange(self.0.len()),
            )),
        }
    }

    fn visit_str<E: de::Error>(self, value: &str) -> Result<usize, E> {
        self.0
            .iter()
            .position(|v| *v == value)
            .ok_or_else(|| E::unknown_variant(value, self.0))
    }

    fn visit_bytes<E: de::Error>(self, value: &[u8]) -> Result<usize, E> {
        self.0
            .iter()
            .position(|v| v.as_bytes() == value)
            .ok_or_else(|| E::unknown_variant(&String::from_utf8_lossy(value), self.0))
    }
}

/// serde_derive's expectation for an out-of-range variant index.
struct IndexRange(usize);

impl Expected for IndexRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "variant index 0 <= i < {}", self.0)
    }
}

#[cfg(test)]
mod tests {
    //! `string_enum!` against what typify emitted before: serde_derive with
    //! `#[serde(rename)]` on every variant, and typify's hand-written conversions.

    use std::collections::BTreeMap;
    use std::fmt::Debug;
    use std::str::FromStr;

    use serde::de::value::{
        BorrowedStrDeserializer, BytesDeserializer, Error as ValueError, I64Deserializer,
        MapDeserializer, StrDeserializer, StringDeserializer, U32Deserializer, U64Deserializer,
    };
    use serde::de::{DeserializeOwned, IntoDeserializer, value::MapAccessDeserializer};
    use serde::{Deserialize, Serialize};
    use serde_json::Value;

    use crate::ConversionError;
    use crate::test_recorder::Recorder;

    /// The enum as typify emitted it before `string_enum!`.
    mod reference {
        pub mod error {
            pub use crate::ConversionError;
        }

        /// The method to execute
        #[derive(
            serde::Deserialize,
            serde::Serialize,
            Clone,
            Copy,
            Debug,
            Eq,
            Hash,
            Ord,
            PartialEq,
            PartialOrd,
        )]
        pub enum Method {
            #[serde(rename = "get_workflow")]
            GetWorkflow,
            /// Variant docs.
            #[serde(rename = "get_workflow_run")]
            GetWorkflowRun,
            #[serde(rename = "type")]
            r#Type,
            #[serde(rename = "a-b c")]
            AbC,
        }

        impl ::std::fmt::Display for Method {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                match *self {
                    Self::GetWorkflow => f.write_str("get_workflow"),
                    Self::GetWorkflowRun => f.write_str("get_workflow_run"),
                    Self::r#Type => f.write_str("type"),
                    Self::AbC => f.write_str("a-b c"),
                }
            }
        }
        impl ::std::str::FromStr for Method {
            type Err = self::error::ConversionError;

            fn from_str(value: &str) -> ::std::result::Result<Self, self::error::ConversionError> {
                match value {
                    "get_workflow" => Ok(Self::GetWorkflow),
                    "get_workflow_run" => Ok(Self::GetWorkflowRun),
                    "type" => Ok(Self::r#Type),
                    "a-b c" => Ok(Self::AbC),
                    _ => Err("invalid value".into()),
                }
            }
        }
        impl ::std::convert::TryFrom<&str> for Method {
            type Error = self::error::ConversionError;

            fn try_from(value: &str) -> ::std::result::Result<Self, self::error::ConversionError> {
                value.parse()
            }
        }
        impl ::std::convert::TryFrom<::std::string::String> for Method {
            type Error = self::error::ConversionError;

            fn try_from(
                value: ::std::string::String,
            ) -> ::std::result::Result<Self, self::error::ConversionError> {
                value.parse()
            }
        }

        /// One variant: the smallest enum.
        #[derive(
            serde::Deserialize,
            serde::Serialize,
            Clone,
            Copy,
            Debug,
            Eq,
            Hash,
            Ord,
            PartialEq,
            PartialOrd,
        )]
        pub enum Single {
            #[serde(rename = "only")]
            Only,
        }
    }

    /// The same enum through `string_enum!`.
    mod generated {
        /// The method to execute
        #[derive(Clone, Copy, Debug, Eq, Hash, Ord, PartialEq, PartialOrd)]
        pub enum Method {
            GetWorkflow,
            /// Variant docs.
            GetWorkflowRun,
            r#Type,
            AbC,
        }
        crate::__private::string_enum!(Method {
            GetWorkflow = "get_workflow",
            GetWorkflowRun = "get_workflow_run",
            r#Type = "type",
            AbC = "a-b c",
        });

        /// One variant: the smallest enum.
        #[derive(Clone, Copy, Debug, Eq, Hash, Ord, PartialEq, PartialOrd)]
        pub enum Single {
            Only,
        }
        crate::__private::string_enum!(Single { Only = "only" });
    }

    /// An enum as a required field.
    #[derive(Debug, Deserialize, Serialize)]
    struct Req<T> {
        method: T,
    }

    /// An enum in the other positions a generated struct puts one.
    #[derive(Debug, Deserialize, Serialize)]
    #[serde(bound(deserialize = "T: Deserialize<'de> + Ord"))]
    struct Wrap<T: Ord> {
        method: Option<T>,
        #[serde(default)]
        list: Vec<T>,
        #[serde(default)]
        map: BTreeMap<T, u8>,
    }

    /// JSON texts of one value, valid or not.
    const INPUTS: &[&str] = &[
        r#""get_workflow""#,
        r#""get_workflow_run""#,
        r#""type""#,
        r#""Type""#,
        r#""r#Type""#,
        r#""a-b c""#,
        r#""GetWorkflow""#,
        r#""x""#,
        r#""""#,
        r#"  "get_workflow"  "#,
        r#""get_workflow" 1"#,
        r#""get_wo"#,
        "0",
        "1",
        "-1",
        "1.5",
        "null",
        "true",
        "false",
        "[]",
        r#"["get_workflow"]"#,
        r#"{"get_workflow": null}"#,
        r#"{"get_workflow_run":null}"#,
        r#"{"a-b c": null}"#,
        r#"{"get_workflow": 1}"#,
        r#"{"get_workflow": "x"}"#,
        r#"{"get_workflow": {}}"#,
        r#"{"get_workflow": []}"#,
        r#"{"x": null}"#,
        r#"{"0": null}"#,
        r#"{}"#,
        r#"{"get_workflow": null, "type": null}"#,
        r#"{"get_workflow": null"#,
        "",
    ];

    fn show<T: Debug, E: ToString>(result: Result<T, E>) -> String {
        match result {
            Ok(value) => format!("Ok({value:?})"),
            Err(error) => format!("Err({})", error.to_string()),
        }
    }

    /// Every way serde_json turns `json` into a `T` (alone and inside a struct).
    fn from_json<T: DeserializeOwned + Debug + Ord>(json: &str) -> Vec<String> {
        let mut out = vec![
            show(serde_json::from_str::<T>(json)),
            show(serde_json::from_slice::<T>(json.as_bytes())),
            show(serde_json::from_reader::<_, T>(json.as_bytes())),
            show(serde_json::from_str::<Option<T>>(json)),
            show(serde_json::from_str::<Vec<T>>(&format!("[{json}]"))),
            show(serde_json::from_str::<Req<T>>(&format!(
                r#"{{"method": {json}}}"#
            ))),
            show(serde_json::from_str::<Wrap<T>>(&format!(
                r#"{{"method": {json}}}"#
            ))),
            show(serde_json::from_str::<Wrap<T>>(&format!(
                r#"{{"list": ["type", {json}]}}"#
            ))),
            show(serde_json::from_str::<Wrap<T>>(&format!(
                r#"{{"map": {{{json}: 1}}}}"#
            ))),
            show(serde_json::from_str::<BTreeMap<T, u8>>(&format!(
                r#"{{{json}: 1}}"#
            ))),
        ];
        if let Ok(value) = serde_json::from_str::<Value>(json) {
            out.push(show(serde_json::from_value::<T>(value.clone())));
            out.push(show(T::deserialize(&value)));
            out.push(show(<Option<T>>::deserialize(&value)));
            let req = serde_json::json!({ "method": value.clone() });
            out.push(show(serde_json::from_value::<Req<T>>(req.clone())));
            out.push(show(Req::<T>::deserialize(&req)));
            let wrapped = serde_json::json!({ "method": value.clone(), "list": [value.clone()] });
            out.push(show(serde_json::from_value::<Wrap<T>>(wrapped.clone())));
            out.push(show(Wrap::<T>::deserialize(&wrapped)));
            if let Value::String(key) = &value {
                let map = serde_json::json!({ "map": { key.clone(): 1 } });
                out.push(show(serde_json::from_value::<Wrap<T>>(map.clone())));
                out.push(show(Wrap::<T>::deserialize(&map)));
            }
        }
        out
    }

    /// serde's own deserializers: strings, bytes and indexes as the variant.
    fn from_serde_values<T: DeserializeOwned + Debug>() -> Vec<String> {
        let mut out = Vec::new();
        for s in ["get_workflow", "type", "a-b c", "only", "x", ""] {
            out.push(show(T::deserialize(StrDeserializer::<ValueError>::new(s))));
            out.push(show(T::deserialize(
                BorrowedStrDeserializer::<ValueError>::new(s),
            )));
            out.push(show(T::deserialize(StringDeserializer::<ValueError>::new(
                s.to_owned(),
            ))));
            out.push(show(T::deserialize(BytesDeserializer::<ValueError>::new(
                s.as_bytes(),
            ))));
            // Bytes as the variant identifier: a map `{bytes: ()}` as the enum.
            let map = MapDeserializer::<_, ValueError>::new([(s.as_bytes(), ())].into_iter());
            out.push(show(T::deserialize(MapAccessDeserializer::new(map))));
            let map = MapDeserializer::<_, ValueError>::new([(s, 1u8)].into_iter());
            out.push(show(T::deserialize(MapAccessDeserializer::new(map))));
        }
        // Invalid UTF-8 as the variant identifier.
        let map = MapDeserializer::<_, ValueError>::new([(&b"\xffget"[..], ())].into_iter());
        out.push(show(T::deserialize(MapAccessDeserializer::new(map))));
        // Other types as the variant identifier.
        let map = MapDeserializer::<_, ValueError>::new([(true, ())].into_iter());
        out.push(show(T::deserialize(MapAccessDeserializer::new(map))));
        let map = MapDeserializer::<_, ValueError>::new([(-1i64, ())].into_iter());
        out.push(show(T::deserialize(MapAccessDeserializer::new(map))));
        let map = MapDeserializer::<_, ValueError>::new([(1u8, ())].into_iter());
        out.push(show(T::deserialize(MapAccessDeserializer::new(map))));
        let map = MapDeserializer::<_, ValueError>::new([(7u64, ())].into_iter());
        out.push(show(T::deserialize(MapAccessDeserializer::new(map))));
        for index in [0u32, 1, 3, 4, 5, u32::MAX] {
            out.push(show(T::deserialize(U32Deserializer::<ValueError>::new(
                index,
            ))));
            out.push(show(T::deserialize(U64Deserializer::<ValueError>::new(
                u64::from(index),
            ))));
        }
        out.push(show(T::deserialize(U64Deserializer::<ValueError>::new(
            u64::MAX,
        ))));
        out.push(show(T::deserialize(I64Deserializer::<ValueError>::new(0))));
        out.push(show(T::deserialize(
            IntoDeserializer::<ValueError>::into_deserializer(()),
        )));
        out.push(show(T::deserialize(
            IntoDeserializer::<ValueError>::into_deserializer(true),
        )));
        out
    }

    fn serialized<T: Serialize + Ord + Copy>(value: T) -> Vec<String> {
        let wrap = Wrap {
            method: Some(value),
            list: vec![value, value],
            map: BTreeMap::from([(value, 1)]),
        };
        vec![
            show(serde_json::to_string(&value)),
            show(serde_json::to_string_pretty(&value)),
            show(serde_json::to_value(value)),
            show(serde_json::to_string(&wrap)),
            show(serde_json::to_value(&wrap).map(|v| v.to_string())),
            show(value.serialize(Recorder)),
        ]
    }

    fn conversions<T>(s: &str) -> Vec<String>
    where
        T: FromStr<Err = ConversionError> + Debug,
        for<'a> T: TryFrom<&'a str, Error = ConversionError>,
        T: TryFrom<String, Error = ConversionError>,
    {
        vec![
            show(s.parse::<T>()),
            show(T::from_str(s)),
            show(T::try_from(s)),
            show(T::try_from(s.to_owned())),
        ]
    }

    const METHODS: [(reference::Method, generated::Method); 4] = [
        (
            reference::Method::GetWorkflow,
            generated::Method::GetWorkflow,
        ),
        (
            reference::Method::GetWorkflowRun,
            generated::Method::GetWorkflowRun,
        ),
        (reference::Method::r#Type, generated::Method::r#Type),
        (reference::Method::AbC, generated::Method::AbC),
    ];

    #[test]
    fn string_enum_deserializes_as_serde_derive() {
        for json in INPUTS {
            let expected = from_json::<reference::Method>(json);
            assert_eq!(from_json::<generated::Method>(json), expected, "{json}");
            let single = from_json::<reference::Single>(json);
            assert_eq!(from_json::<generated::Single>(json), single, "{json}");
        }
        assert_eq!(
            from_serde_values::<generated::Method>(),
            from_serde_values::<reference::Method>()
        );
        assert_eq!(
            from_serde_values::<generated::Single>(),
            from_serde_values::<reference::Single>()
        );
    }

    /// The comparison above is not between two identical wrong answers.
    #[test]
    fn string_enum_error_messages() {
        let cases = [
            (r#""type""#, "Ok(Type)"),
            (r#""a-b c""#, "Ok(AbC)"),
            (r#"{"get_workflow": null}"#, "Ok(GetWorkflow)"),
            (
                r#""x""#,
                "Err(unknown variant `x`, expected one of `get_workflow`, `get_workflow_run`, \
                 `type`, `a-b c` at line 1 column 3)",
            ),
            ("1", "Err(expected value at line 1 column 1)"),
            ("null", "Err(expected value at line 1 column 1)"),
            (
                r#"{"get_workflow": 1}"#,
                "Err(invalid type: integer `1`, expected unit at line 1 column 18)",
            ),
        ];
        for (json, expected) in cases {
            assert_eq!(
                show(serde_json::from_str::<generated::Method>(json)),
                expected,
                "{json}"
            );
        }
        let value = serde_json::json!(1);
        assert_eq!(
            show(generated::Method::deserialize(&value)),
            "Err(invalid type: integer `1`, expected string or map)"
        );
        assert_eq!(
            show(generated::Method::deserialize(
                U32Deserializer::<ValueError>::new(9)
            )),
            "Err(invalid value: integer `9`, expected variant index 0 <= i < 4)"
        );
        let map = MapDeserializer::<_, ValueError>::new([(true, ())].into_iter());
        assert_eq!(
            show(generated::Method::deserialize(MapAccessDeserializer::new(
                map
            ))),
            "Err(invalid type: boolean `true`, expected variant identifier)"
        );
        assert_eq!(
            show(generated::Method::deserialize(BytesDeserializer::<
                ValueError,
            >::new(b"x"))),
            "Err(invalid type: byte array, expected enum Method)"
        );
        assert_eq!(
            show(serde_json::from_str::<Wrap<generated::Method>>(
                r#"{"method": "type", "map": {"nope": 1}}"#
            )),
            "Err(unknown variant `nope`, expected one of `get_workflow`, `get_workflow_run`, \
             `type`, `a-b c` at line 1 column 33)"
        );
    }

    #[test]
    fn string_enum_serializes_as_serde_derive() {
        for (reference, generated) in METHODS {
            assert_eq!(serialized(generated), serialized(reference));
        }
        assert_eq!(
            serialized(generated::Single::Only),
            serialized(reference::Single::Only)
        );
        assert_eq!(
            generated::Method::AbC.serialize(Recorder).ok().as_deref(),
            Some(r#"serialize_unit_variant("Method", 3, "a-b c")"#)
        );
        assert_eq!(
            serde_json::to_string(&generated::Method::r#Type).ok(),
            Some(r#""type""#.to_owned())
        );
    }

    #[test]
    fn string_enum_conversions_as_typify() {
        for (reference, generated) in METHODS {
            assert_eq!(generated.to_string(), reference.to_string());
            assert_eq!(
                format!("[{generated:>20}|{generated:<2}|{generated:^30}]"),
                format!("[{reference:>20}|{reference:<2}|{reference:^30}]")
            );
        }
        assert_eq!(generated::Method::AbC.to_string(), "a-b c");
        assert_eq!(generated::Method::r#Type.to_string(), "type");
        let inputs = [
            "get_workflow",
            "get_workflow_run",
            "type",
            "Type",
            "r#Type",
            "a-b c",
            "AbC",
            "GetWorkflow",
            "\"get_workflow\"",
            " get_workflow",
            "only",
            "x",
            "",
        ];
        for s in inputs {
            let expected = conversions::<reference::Method>(s);
            assert_eq!(conversions::<generated::Method>(s), expected, "{s}");
        }
        assert_eq!(
            conversions::<generated::Method>("x"),
            vec!["Err(invalid value)"; 4]
        );
        assert_eq!(
            conversions::<generated::Method>("a-b c"),
            vec!["Ok(AbC)"; 4]
        );
        assert_eq!(show("only".parse::<generated::Single>()), "Ok(Only)");
    }
}
