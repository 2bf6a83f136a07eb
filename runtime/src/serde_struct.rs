//! `serde_struct!`: the `Serialize` and `Deserialize` impls of a generated struct with named
//! fields, written once here instead of being derived per struct by serde_derive.
//!
//! serde_derive expands every struct to a field-identifier enum with its own visitor, a
//! struct visitor, the missing-field logic and the error messages: several hundred lines per
//! struct, which dominate `cargo check` of a crate with many generated types. The macro
//! keeps per struct only what depends on the field types (one `Option` slot per field, the
//! `match` that fills it, the struct construction and one serializer call per field) and
//! calls the generic code of this module for the rest: the field identifier (by name, bytes
//! or index, with unknown-field handling), the struct visitor, duplicate and missing fields,
//! the expecting messages and the length of a sequence.
//!
//! The behaviour is the one of `#[derive(Serialize, Deserialize)]` with the attributes
//! `rename`, `default`, `default = "path"`, `skip_serializing_if = "path"` on fields and
//! `deny_unknown_fields` on the struct: the same serializer and deserializer calls in the
//! same order, the same visitor answers and the same error messages.

use std::fmt;
use std::marker::PhantomData;

use serde::de::{
    self, DeserializeSeed, Deserializer, Expected, IgnoredAny, MapAccess, SeqAccess, Unexpected,
    Visitor,
};
use serde::ser::{SerializeStruct, Serializer};
use serde::{Deserialize, Serialize};

/// Implements `Serialize` and `Deserialize` for a struct with named fields, as
/// `#[derive(Serialize, Deserialize)]` would with the matching `#[serde(…)]` attributes.
///
/// ```
/// mod defaults {
///     pub fn thirty() -> i64 {
///         30
///     }
/// }
///
/// #[derive(Debug, PartialEq)]
/// pub struct Args {
///     pub after: Option<String>,
///     pub labels: Vec<String>,
///     pub limit: i64,
///     pub owner: String,
///     pub r#type: Option<String>,
/// }
/// mcp_bindgen::__private::serde_struct!(Args {
///     after = "after" skip_if(::std::option::Option::is_none),
///     labels = "labels" default skip_if(::std::vec::Vec::is_empty),
///     limit = "limit" default(defaults::thirty),
///     owner = "owner",
///     r#type = "type" skip_if(Option::is_none),
/// } deny_unknown_fields);
///
/// let args: Args = serde_json::from_str(r#"{"owner": "me", "type": "bug"}"#).unwrap();
/// assert_eq!(args.limit, 30);
/// assert_eq!(
///     serde_json::to_string(&args).unwrap(),
///     r#"{"limit":30,"owner":"me","type":"bug"}"#
/// );
/// assert_eq!(
///     serde_json::from_str::<Args>(r#"{"limit": 1}"#).unwrap_err().to_string(),
///     "missing field `owner` at line 1 column 12"
/// );
/// ```
///
/// The input lists every field of the struct in declaration order as
/// `field = "json key"`, optionally followed by
///
/// * `default`: `#[serde(default)]`, a missing field is `Default::default()`;
/// * `default(path)`: `#[serde(default = "path")]`, a missing field is `path()`;
/// * `skip_if(path)`: `#[serde(skip_serializing_if = "path")]`;
///
/// and the struct by `deny_unknown_fields` for `#[serde(deny_unknown_fields)]`. A missing
/// field without a default is `None` if its type deserializes through `deserialize_option`
/// (`Option<T>`), else the error ``missing field `key` ``. In the sequence form (a JSON
/// array of the fields in declaration order) every field without default is required. As
/// with serde_derive, a `skip_if` path is called twice per serialization: for the length
/// passed to `serialize_struct`, then for the field.
///
/// Field types are inferred from the struct. The struct has no generic parameters. Each
/// field's name is bound as a local variable, so it must not name a constant, a unit struct
/// or a static in scope (a compile error, never a behaviour change). Other tokens after the
/// braces are a compile error:
///
/// ```compile_fail
/// pub struct Args {
///     pub owner: String,
/// }
/// mcp_bindgen::__private::serde_struct!(Args { owner = "owner" } deny_unknown_field);
/// ```
///
/// and so is a field left out (the struct construction names every field):
///
/// ```compile_fail,E0063
/// pub struct Args {
///     pub owner: String,
///     pub repo: String,
/// }
/// mcp_bindgen::__private::serde_struct!(Args { owner = "owner" });
/// ```
///
/// Not a public API: generated code names it as `::mcp_bindgen::__private::serde_struct!`.
#[macro_export]
#[doc(hidden)]
macro_rules! __serde_struct {
    // A field's default is a value of `NoDefault`, `StdDefault` or `PathDefault`, written by
    // method calls (`NoDefault.or_default().or_path(path)`), so no macro is expanded per
    // field.
    (@deny) => {
        false
    };
    (@deny deny_unknown_fields) => {
        true
    };
    ($name:ident {
        $($field:ident = $wire:literal $(default $(($default:path))?)? $(skip_if($skip:path))?),*
        $(,)?
    } $($deny:ident)?) => {
        const _: () = {
            #[allow(non_camel_case_types)]
            enum __Field {
                $($field),*
            }
            const __FIELDS: &[__Field] = &[$(__Field::$field),*];
            const __INFO: &$crate::__private::StructInfo = &$crate::__private::StructInfo::new(
                ::core::stringify!($name),
                &[$($wire),*],
                $crate::__serde_struct!(@deny $($deny)?),
            );
            #[automatically_derived]
            impl $crate::__private::serde::Serialize for $name {
                fn serialize<__S>(
                    &self,
                    __serializer: __S,
                ) -> ::core::result::Result<__S::Ok, __S::Error>
                where
                    __S: $crate::__private::serde::Serializer,
                {
                    #[allow(unused_mut)]
                    let mut __state = $crate::__private::serialize_struct(
                        __serializer,
                        __INFO,
                        &[$(false $(|| $skip(&self.$field))?),*],
                    )?;
                    $($crate::__private::serialize_struct_field(
                        &mut __state,
                        $wire,
                        &self.$field,
                        false $(|| $skip(&self.$field))?,
                    )?;)*
                    $crate::__private::serde::ser::SerializeStruct::end(__state)
                }
            }
            #[automatically_derived]
            impl<'de> $crate::__private::serde::Deserialize<'de> for $name {
                fn deserialize<__D>(__deserializer: __D) -> ::core::result::Result<Self, __D::Error>
                where
                    __D: $crate::__private::serde::Deserializer<'de>,
                {
                    $crate::__private::deserialize_struct(__deserializer, __INFO)
                }
            }
            #[automatically_derived]
            impl<'de> $crate::__private::DeserializeStruct<'de> for $name {
                fn visit_seq<__A>(
                    __seq: &mut $crate::__private::StructSeq<__A>,
                ) -> ::core::result::Result<Self, __A::Error>
                where
                    __A: $crate::__private::serde::de::SeqAccess<'de>,
                {
                    ::core::result::Result::Ok($name {$(
                        $field: __seq.field(
                            $crate::__private::NoDefault $(.or_default() $(.or_path($default))?)?
                        )?,
                    )*})
                }

                fn visit_map<__A>(
                    __map: &mut $crate::__private::StructMap<__A>,
                ) -> ::core::result::Result<Self, __A::Error>
                where
                    __A: $crate::__private::serde::de::MapAccess<'de>,
                {
                    $(let mut $field = ::core::option::Option::None;)*
                    while let ::core::option::Option::Some(__key) = __map.next_key(__FIELDS)? {
                        match *__key {
                            $(__Field::$field => __map.next_value(&mut $field, $wire)?,)*
                        }
                    }
                    ::core::result::Result::Ok($name {$(
                        $field: __map.field(
                            $field,
                            $wire,
                            $crate::__private::NoDefault $(.or_default() $(.or_path($default))?)?
                        )?,
                    )*})
                }
            }
        };
    };
}

/// What the generic code needs to know of a `serde_struct!` struct: built once per struct
/// as a `const`.
#[derive(Debug)]
pub struct StructInfo {
    /// The struct's identifier as `stringify!` spells it (a raw identifier keeps its `r#`).
    name: &'static str,
    /// The JSON keys of the fields, in declaration order (serde_derive's `FIELDS`).
    fields: &'static [&'static str],
    /// `#[serde(deny_unknown_fields)]`.
    deny_unknown_fields: bool,
}

impl StructInfo {
    /// The description of a struct: `name` as `stringify!` spells it, the JSON keys of its
    /// fields in declaration order, and whether unknown keys are an error.
    pub const fn new(
        name: &'static str,
        fields: &'static [&'static str],
        deny_unknown_fields: bool,
    ) -> Self {
        StructInfo {
            name,
            fields,
            deny_unknown_fields,
        }
    }

    /// serde_derive's name of the type for serializers and deserializers: its identifier
    /// without `r#`.
    fn serde_name(&self) -> &'static str {
        self.name.strip_prefix("r#").unwrap_or(self.name)
    }
}

/// `serde_struct!`'s `Serialize`, first call: `serialize_struct(name, len)` where `len`
/// counts the fields not skipped (`skipped[i]` is the `skip_if` answer of field `i`, or
/// `false`), as serde_derive computes it.
pub fn serialize_struct<S: Serializer>(
    serializer: S,
    info: &'static StructInfo,
    skipped: &[bool],
) -> Result<S::SerializeStruct, S::Error> {
    let len = skipped.iter().filter(|skipped| !**skipped).count();
    serializer.serialize_struct(info.serde_name(), len)
}

/// `serde_struct!`'s `Serialize`, one call per field: `serialize_field(key, value)`, or
/// `skip_field(key)` if its `skip_if` said so.
pub fn serialize_struct_field<S, T>(
    state: &mut S,
    key: &'static str,
    value: &T,
    skip: bool,
) -> Result<(), S::Error>
where
    S: SerializeStruct,
    T: ?Sized + Serialize,
{
    if skip {
        state.skip_field(key)
    } else {
        state.serialize_field(key, value)
    }
}

/// The per-struct half of `serde_struct!`'s `Deserialize`: build the struct from a
/// sequence or a map. The generic half is [`deserialize_struct`].
pub trait DeserializeStruct<'de>: Sized {
    /// serde_derive's `visit_seq`: the fields in declaration order.
    fn visit_seq<A: SeqAccess<'de>>(seq: &mut StructSeq<A>) -> Result<Self, A::Error>;

    /// serde_derive's `visit_map`: the fields by key, in any order.
    fn visit_map<A: MapAccess<'de>>(map: &mut StructMap<A>) -> Result<Self, A::Error>;
}

/// `serde_struct!`'s `Deserialize`, as serde_derive's for a struct with named fields:
/// `deserialize_struct(name, FIELDS, visitor)`.
pub fn deserialize_struct<'de, D, T>(
    deserializer: D,
    info: &'static StructInfo,
) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: DeserializeStruct<'de>,
{
    deserializer.deserialize_struct(
        info.serde_name(),
        info.fields,
        StructVisitor {
            info,
            value: PhantomData,
        },
    )
}

/// serde_derive's `__Visitor` of a struct.
struct StructVisitor<T> {
    info: &'static StructInfo,
    value: PhantomData<fn() -> T>,
}

impl<'de, T: DeserializeStruct<'de>> Visitor<'de> for StructVisitor<T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_expecting(f, self.info)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<T, A::Error> {
        T::visit_seq(&mut StructSeq {
            seq,
            info: self.info,
            index: 0,
        })
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<T, A::Error> {
        T::visit_map(&mut StructMap {
            map,
            info: self.info,
        })
    }
}

/// serde_derive's expecting message of a struct: `struct Name` (a raw identifier keeps its
/// `r#`).
fn write_expecting(f: &mut fmt::Formatter<'_>, info: &StructInfo) -> fmt::Result {
    f.write_str("struct ")?;
    f.write_str(info.name)
}

/// The sequence form of a struct (a JSON array of the field values in declaration order),
/// as `serde_struct!`'s `visit_seq` reads it.
pub struct StructSeq<A> {
    seq: A,
    info: &'static StructInfo,
    /// The index of the next field.
    index: usize,
}

impl<'de, A: SeqAccess<'de>> StructSeq<A> {
    /// The next field with a default: the next element, `None` at the end of the sequence.
    pub fn next_element<T: Deserialize<'de>>(&mut self) -> Result<Option<T>, A::Error> {
        self.index += 1;
        self.seq.next_element()
    }

    /// The next field: the next element; at the end of the sequence its default, or for
    /// a field without one the error `invalid_length(index, &"struct Name with N
    /// elements")` (an `Option` field without default is required here too, as with
    /// serde_derive).
    pub fn field<T: Deserialize<'de>>(
        &mut self,
        default: impl FieldDefault<T>,
    ) -> Result<T, A::Error> {
        let index = self.index;
        match self.next_element()? {
            Some(value) => Ok(value),
            None => match default.value() {
                Some(value) => Ok(value),
                None => Err(de::Error::invalid_length(index, &ElementCount(self.info))),
            },
        }
    }
}

/// A field's default in `serde_struct!`: none ([`NoDefault`]), `Default::default()`
/// ([`StdDefault`], `#[serde(default)]`) or a function ([`PathDefault`], `#[serde(default =
/// "path")]`).
pub trait FieldDefault<T> {
    /// The default value; `None` for a field without one.
    fn value(self) -> Option<T>;
}

/// A field without default. `.or_default()` gives [`StdDefault`].
#[derive(Debug, Clone, Copy)]
pub struct NoDefault;

/// A field whose default is `Default::default()`. `.or_path(f)` gives [`PathDefault`].
#[derive(Debug, Clone, Copy)]
pub struct StdDefault;

/// A field whose default is `f()`.
#[derive(Debug, Clone, Copy)]
pub struct PathDefault<F>(F);

impl NoDefault {
    /// `#[serde(default)]`.
    pub fn or_default(self) -> StdDefault {
        StdDefault
    }
}

impl StdDefault {
    /// `#[serde(default = "path")]`: `path()` instead of `Default::default()`.
    pub fn or_path<F>(self, f: F) -> PathDefault<F> {
        PathDefault(f)
    }
}

impl<T> FieldDefault<T> for NoDefault {
    fn value(self) -> Option<T> {
        None
    }
}

impl<T: Default> FieldDefault<T> for StdDefault {
    fn value(self) -> Option<T> {
        Some(T::default())
    }
}

impl<T, F: FnOnce() -> T> FieldDefault<T> for PathDefault<F> {
    fn value(self) -> Option<T> {
        Some((self.0)())
    }
}

/// serde_derive's expectation for a sequence too short: `struct Name with N elements`.
struct ElementCount(&'static StructInfo);

impl Expected for ElementCount {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_expecting(f, self.0)?;
        match self.0.fields.len() {
            1 => f.write_str(" with 1 element"),
            n => write!(f, " with {n} elements"),
        }
    }
}

/// The map form of a struct, as `serde_struct!`'s `visit_map` reads it.
pub struct StructMap<A> {
    map: A,
    info: &'static StructInfo,
}

impl<'de, A: MapAccess<'de>> StructMap<A> {
    /// The next known key, as its entry in `fields` (one entry per field, in declaration
    /// order); `None` at the end of the map. An unknown key is an error with
    /// `deny_unknown_fields`, else its value is skipped (`IgnoredAny`) and the next key read.
    pub fn next_key<F>(&mut self, fields: &'static [F]) -> Result<Option<&'static F>, A::Error> {
        match self.next_index()? {
            None => Ok(None),
            Some(index) => match fields.get(index) {
                Some(field) => Ok(Some(field)),
                None => Err(de::Error::custom(
                    "serde_struct!: fewer fields than JSON keys",
                )),
            },
        }
    }

    /// [`StructMap::next_key`] as an index into the struct's fields: not generic over the
    /// struct, so one copy per `MapAccess` serves every struct.
    fn next_index(&mut self) -> Result<Option<usize>, A::Error> {
        loop {
            let seed = FieldIdentifier(self.info);
            match self.map.next_key_seed(seed)? {
                None => return Ok(None),
                Some(Some(index)) => return Ok(Some(index)),
                Some(None) => {
                    self.map.next_value::<IgnoredAny>()?;
                }
            }
        }
    }

    /// The value of the key just read into `slot`; a second value for the same field is
    /// `duplicate_field(key)`.
    pub fn next_value<T: Deserialize<'de>>(
        &mut self,
        slot: &mut Option<T>,
        key: &'static str,
    ) -> Result<(), A::Error> {
        if slot.is_some() {
            return Err(de::Error::duplicate_field(key));
        }
        *slot = Some(self.map.next_value()?);
        Ok(())
    }

    /// A field's value once the map is read: the value in `slot`, else its default, else
    /// (a field without default) `None` for a type that deserializes through
    /// `deserialize_option`, else the error ``missing field `key` `` (serde_derive's
    /// `__private::de::missing_field`).
    pub fn field<T: Deserialize<'de>>(
        &self,
        slot: Option<T>,
        key: &'static str,
        default: impl FieldDefault<T>,
    ) -> Result<T, A::Error> {
        match slot {
            Some(value) => Ok(value),
            None => match default.value() {
                Some(value) => Ok(value),
                None => T::deserialize(MissingField {
                    key,
                    error: PhantomData,
                }),
            },
        }
    }
}

/// serde_derive's `__Field` / `__FieldVisitor` of a struct: a JSON key, bytes or a field
/// index, as the index of the field; `None` for an unknown key or index the struct ignores.
struct FieldIdentifier(&'static StructInfo);

impl<'de> DeserializeSeed<'de> for FieldIdentifier {
    type Value = Option<usize>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Option<usize>, D::Error> {
        deserializer.deserialize_identifier(self)
    }
}

impl<'de> Visitor<'de> for FieldIdentifier {
    type Value = Option<usize>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("field identifier")
    }

    fn visit_u64<E: de::Error>(self, value: u64) -> Result<Option<usize>, E> {
        match usize::try_from(value) {
            Ok(index) if index < self.0.fields.len() => Ok(Some(index)),
            _ if self.0.deny_unknown_fields => Err(E::invalid_value(
                Unexpected::Unsigned(value),
                &FieldIndexRange(self.0.fields.len()),
            )),
            _ => Ok(None),
        }
    }

    fn visit_str<E: de::Error>(self, value: &str) -> Result<Option<usize>, E> {
        match self.0.fields.iter().position(|field| *field == value) {
            Some(index) => Ok(Some(index)),
            None if self.0.deny_unknown_fields => Err(E::unknown_field(value, self.0.fields)),
            None => Ok(None),
        }
    }

    fn visit_bytes<E: de::Error>(self, value: &[u8]) -> Result<Option<usize>, E> {
        match self
            .0
            .fields
            .iter()
            .position(|field| field.as_bytes() == value)
        {
            Some(index) => Ok(Some(index)),
            None if self.0.deny_unknown_fields => Err(E::unknown_field(
                &String::from_utf8_lossy(value),
                self.0.fields,
            )),
            None => Ok(None),
        }
    }
}

/// serde_derive's expectation for an out-of-range field index.
struct FieldIndexRange(usize);

impl Expected for FieldIndexRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "field index 0 <= i < {}", self.0)
    }
}

/// serde's `MissingFieldDeserializer`: `deserialize_option` is `visit_none`, anything else
/// the error ``missing field `key` ``.
struct MissingField<E> {
    key: &'static str,
    error: PhantomData<E>,
}

impl<'de, E: de::Error> Deserializer<'de> for MissingField<E> {
    type Error = E;

    fn deserialize_any<V: Visitor<'de>>(self, _visitor: V) -> Result<V::Value, E> {
        Err(E::missing_field(self.key))
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, E> {
        visitor.visit_none()
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

#[cfg(test)]
mod tests {
    //! `serde_struct!` against serde_derive: every struct is defined twice, once with
    //! `#[derive(Serialize, Deserialize)]` and the `#[serde(…)]` attributes typify emits, once
    //! with the macro, and both answer the same inputs with the same `Debug` text or the same
    //! error message, and serialize to the same serializer calls.

    use std::collections::BTreeMap;
    use std::fmt::{Debug, Display};

    use serde::de::value::{
        BoolDeserializer, Error as ValueError, I64Deserializer, MapAccessDeserializer,
        SeqAccessDeserializer, StrDeserializer, U64Deserializer, UnitDeserializer,
    };
    use serde::de::{DeserializeOwned, DeserializeSeed, Expected, MapAccess, SeqAccess, Visitor};
    use serde::{Deserialize, Deserializer, Serialize};
    use serde_json::{Map, Value, json};

    use crate::test_recorder::Recorder;

    /// Field types and default functions both versions share.
    mod shared {
        /// A string enum as a field type.
        #[derive(Clone, Copy, Debug, serde::Deserialize, serde::Serialize)]
        pub enum Kind {
            #[serde(rename = "bug")]
            Bug,
            #[serde(rename = "feature")]
            Feature,
        }

        /// An enum with data as a field type.
        #[derive(Clone, Debug, serde::Deserialize, serde::Serialize)]
        pub enum Shape {
            Circle { r: f64 },
            Square(f64),
            Dot,
        }

        /// typify's default functions.
        pub mod defaults {
            pub fn default_u64<T, const V: u64>() -> T
            where
                T: TryFrom<u64>,
                <T as TryFrom<u64>>::Error: std::fmt::Debug,
            {
                T::try_from(V).unwrap()
            }
        }
    }

    /// The structs as typify emitted them before `serde_struct!`.
    mod reference {
        use super::shared::{Kind, Shape, defaults};

        /// Required and optional fields, renames, a raw identifier, an enum, a nested struct.
        #[derive(Debug, serde::Deserialize, serde::Serialize)]
        pub struct Args {
            #[serde(skip_serializing_if = "::std::option::Option::is_none")]
            pub after: Option<String>,
            #[serde(rename = "orderBy", skip_serializing_if = "Option::is_none")]
            pub order_by: Option<String>,
            #[serde(default, skip_serializing_if = "::std::vec::Vec::is_empty")]
            pub labels: Vec<String>,
            #[serde(default = "defaults::default_u64::<i64, 30>")]
            pub limit: i64,
            pub owner: String,
            pub r#type: Option<Kind>,
            pub kind: Kind,
            #[serde(skip_serializing_if = "Option::is_none")]
            pub nested: Option<Inner>,
            pub maybe: Option<Option<i32>>,
        }

        /// `deny_unknown_fields`, a key that is no identifier.
        #[derive(Debug, serde::Deserialize, serde::Serialize)]
        #[serde(deny_unknown_fields)]
        pub struct Inner {
            pub name: String,
            #[serde(skip_serializing_if = "::std::option::Option::is_none")]
            pub value: Option<serde_json::Value>,
            #[serde(rename = "$ref")]
            pub r#ref: Option<bool>,
        }

        /// `deny_unknown_fields` with defaults and a required nested struct.
        #[derive(Debug, serde::Deserialize, serde::Serialize)]
        #[serde(deny_unknown_fields)]
        pub struct Strict {
            pub id: u64,
            #[serde(default, skip_serializing_if = "Vec::is_empty")]
            pub tags: Vec<String>,
            #[serde(default = "defaults::default_u64::<i64, 1>")]
            pub page: i64,
            #[serde(default)]
            pub flag: bool,
            pub inner: Inner,
            #[serde(default, skip_serializing_if = "serde_json::Map::is_empty")]
            pub extra: serde_json::Map<String, serde_json::Value>,
            #[serde(skip_serializing_if = "Option::is_none")]
            pub shape: Option<Shape>,
        }

        /// One field: "1 element".
        #[derive(Debug, serde::Deserialize, serde::Serialize)]
        pub struct One {
            pub only: String,
        }

        /// No fields.
        #[derive(Debug, serde::Deserialize, serde::Serialize)]
        pub struct Empty {}

        /// No fields, nothing accepted.
        #[derive(Debug, serde::Deserialize, serde::Serialize)]
        #[serde(deny_unknown_fields)]
        pub struct EmptyStrict {}

        /// A raw identifier as the struct's name.
        #[allow(non_camel_case_types)]
        #[derive(Debug, serde::Deserialize, serde::Serialize)]
        pub struct r#loop {
            pub r#in: u8,
            #[serde(default)]
            pub r#fn: Option<u8>,
        }
    }

    /// The same structs through `serde_struct!`.
    mod generated {
        use super::shared::{Kind, Shape, defaults};

        /// Required and optional fields, renames, a raw identifier, an enum, a nested struct.
        #[derive(Debug)]
        pub struct Args {
            pub after: Option<String>,
            pub order_by: Option<String>,
            pub labels: Vec<String>,
            pub limit: i64,
            pub owner: String,
            pub r#type: Option<Kind>,
            pub kind: Kind,
            pub nested: Option<Inner>,
            pub maybe: Option<Option<i32>>,
        }
        crate::__private::serde_struct!(Args {
            after = "after" skip_if(::std::option::Option::is_none),
            order_by = "orderBy" skip_if(Option::is_none),
            labels = "labels" default skip_if(::std::vec::Vec::is_empty),
            limit = "limit" default(defaults::default_u64::<i64, 30>),
            owner = "owner",
            r#type = "type",
            kind = "kind",
            nested = "nested" skip_if(Option::is_none),
            maybe = "maybe",
        });

        /// `deny_unknown_fields`, a key that is no identifier.
        #[derive(Debug)]
        pub struct Inner {
            pub name: String,
            pub value: Option<serde_json::Value>,
            pub r#ref: Option<bool>,
        }
        crate::__private::serde_struct!(Inner {
            name = "name",
            value = "value" skip_if(::std::option::Option::is_none),
            r#ref = "$ref"
        } deny_unknown_fields);

        /// `deny_unknown_fields` with defaults and a required nested struct.
        #[derive(Debug)]
        pub struct Strict {
            pub id: u64,
            pub tags: Vec<String>,
            pub page: i64,
            pub flag: bool,
            pub inner: Inner,
            pub extra: serde_json::Map<String, serde_json::Value>,
            pub shape: Option<Shape>,
        }
        crate::__private::serde_struct!(Strict {
            id = "id",
            tags = "tags" default skip_if(Vec::is_empty),
            page = "page" default(defaults::default_u64::<i64, 1>),
            flag = "flag" default,
            inner = "inner",
            extra = "extra" default skip_if(serde_json::Map::is_empty),
            shape = "shape" skip_if(Option::is_none),
        } deny_unknown_fields);

        /// One field: "1 element".
        #[derive(Debug)]
        pub struct One {
            pub only: String,
        }
        crate::__private::serde_struct!(One { only = "only" });

        /// No fields.
        #[derive(Debug)]
        pub struct Empty {}
        crate::__private::serde_struct!(Empty {});

        /// No fields, nothing accepted.
        #[derive(Debug)]
        pub struct EmptyStrict {}
        crate::__private::serde_struct!(EmptyStrict {} deny_unknown_fields);

        /// A raw identifier as the struct's name.
        #[allow(non_camel_case_types)]
        #[derive(Debug)]
        pub struct r#loop {
            pub r#in: u8,
            pub r#fn: Option<u8>,
        }
        crate::__private::serde_struct!(r#loop { r#in = "in", r#fn = "fn" default, });
    }

    /// A struct under test: its JSON keys in declaration order and valid objects.
    struct Shape {
        keys: &'static [&'static str],
        samples: Vec<Value>,
    }

    fn shapes() -> [(&'static str, Shape); 7] {
        let inner = json!({"name": "n", "value": {"a": [1, null]}, "$ref": true});
        [
            (
                "Args",
                Shape {
                    keys: &[
                        "after", "orderBy", "labels", "limit", "owner", "type", "kind", "nested",
                        "maybe",
                    ],
                    samples: vec![
                        json!({
                            "after": "a1", "orderBy": "created", "labels": ["x", "y"],
                            "limit": 5, "owner": "me", "type": "bug", "kind": "feature",
                            "nested": inner, "maybe": 3,
                        }),
                        json!({"owner": "me", "kind": "bug"}),
                        json!({
                            "after": null, "orderBy": null, "labels": [], "limit": -7,
                            "owner": "", "type": null, "kind": "bug", "nested": null,
                            "maybe": null,
                        }),
                    ],
                },
            ),
            (
                "Inner",
                Shape {
                    keys: &["name", "value", "$ref"],
                    samples: vec![inner.clone(), json!({"name": "n"})],
                },
            ),
            (
                "Strict",
                Shape {
                    keys: &["id", "tags", "page", "flag", "inner", "extra", "shape"],
                    samples: vec![
                        json!({
                            "id": 1, "tags": ["a"], "page": 2, "flag": true, "inner": inner,
                            "extra": {"k": 1}, "shape": {"Circle": {"r": 1.5}},
                        }),
                        json!({"id": 1, "inner": {"name": "i"}}),
                        json!({"id": 2, "inner": {"name": "i"}, "shape": "Dot"}),
                        json!({"id": 3, "inner": {"name": "i"}, "shape": {"Square": 2.0}}),
                    ],
                },
            ),
            (
                "One",
                Shape {
                    keys: &["only"],
                    samples: vec![json!({"only": "x"})],
                },
            ),
            (
                "Empty",
                Shape {
                    keys: &[],
                    samples: vec![json!({})],
                },
            ),
            (
                "EmptyStrict",
                Shape {
                    keys: &[],
                    samples: vec![json!({})],
                },
            ),
            (
                "loop",
                Shape {
                    keys: &["in", "fn"],
                    samples: vec![json!({"in": 1, "fn": 2}), json!({"in": 1})],
                },
            ),
        ]
    }

    fn show<T: Debug, E: Display>(result: Result<T, E>) -> String {
        match result {
            Ok(value) => format!("Ok({value:?})"),
            Err(error) => format!("Err({error})"),
        }
    }

    fn text(value: &Value) -> String {
        serde_json::to_string(value).unwrap()
    }

    /// An object's text with the entries in the given order (duplicates allowed).
    fn object(entries: &[(&str, &Value)]) -> String {
        let entries: Vec<String> = entries
            .iter()
            .map(|(key, value)| format!("{}:{}", text(&json!(key)), text(value)))
            .collect();
        format!("{{{}}}", entries.join(","))
    }

    /// JSON texts around one valid object: each key missing, null, of another type or
    /// repeated; unknown keys; the array form short and long; not an object at all.
    fn inputs(keys: &[&str], sample: &Value) -> Vec<String> {
        let present: Vec<(&str, &Value)> = keys
            .iter()
            .filter_map(|key| sample.get(key).map(|value| (*key, value)))
            .collect();
        let mut out = vec![object(&present)];
        let mut reversed = present.clone();
        reversed.reverse();
        out.push(object(&reversed));
        let others = [
            json!(true),
            json!("x"),
            json!(1),
            json!(-1),
            json!(1.5),
            json!([]),
            json!({}),
            json!(["x"]),
            json!(u64::MAX),
        ];
        let null = Value::Null;
        for (i, (key, value)) in present.iter().enumerate() {
            let mut without = present.clone();
            without.remove(i);
            out.push(object(&without));
            let mut nulled = present.clone();
            nulled[i].1 = &null;
            out.push(object(&nulled));
            for other in &others {
                let mut changed = present.clone();
                changed[i].1 = other;
                out.push(object(&changed));
            }
            let mut twice = present.clone();
            twice.push((key, value));
            out.push(object(&twice));
            let mut twice = present.clone();
            twice.insert(0, (key, &null));
            out.push(object(&twice));
            let upper = key.to_uppercase();
            let mut renamed = present.clone();
            renamed[i].0 = &upper;
            out.push(object(&renamed));
        }
        let unknown = json!({"deep": [1, {"x": null}]});
        for (key, value) in [("zzz", &unknown), ("", &null), ("0", &null)] {
            let mut extra = present.clone();
            extra.insert(0, (key, value));
            out.push(object(&extra));
            let mut extra = present.clone();
            extra.push((key, value));
            out.push(object(&extra));
        }
        let values: Vec<Value> = keys
            .iter()
            .map(|key| sample.get(key).cloned().unwrap_or(Value::Null))
            .collect();
        for len in 0..=values.len() {
            out.push(text(&Value::Array(values[..len].to_vec())));
        }
        let mut long = values.clone();
        long.push(json!("extra"));
        out.push(text(&Value::Array(long)));
        out.push(text(&Value::Array(vec![Value::Null; values.len()])));
        out.extend(
            [
                "{}", "[]", "null", "1", "\"s\"", "true", "[[]]", "{", "{\"a\":", "[1,", "",
                " {} ", "{} x", "{\"\":1}",
            ]
            .map(String::from),
        );
        out
    }

    /// A derived struct holding `T`: the struct as a nested field.
    #[derive(Debug, Deserialize, Serialize)]
    #[serde(bound(deserialize = "T: Deserialize<'de>"))]
    struct Holder<T> {
        x: T,
        #[serde(default)]
        list: Vec<T>,
    }

    /// Every way serde_json turns `json` into a `T` (alone, optional, in a list, in a map and
    /// in a struct), each as its `Debug` text or error message.
    fn from_json<T: DeserializeOwned + Debug>(json: &str) -> Vec<String> {
        let mut out = vec![
            show(serde_json::from_str::<T>(json)),
            show(serde_json::from_slice::<T>(json.as_bytes())),
            show(serde_json::from_reader::<_, T>(json.as_bytes())),
            show(serde_json::from_str::<Option<T>>(json)),
            show(serde_json::from_str::<Vec<T>>(&format!("[{json}, {json}]"))),
            show(serde_json::from_str::<BTreeMap<String, T>>(&format!(
                r#"{{"k": {json}}}"#
            ))),
            show(serde_json::from_str::<Holder<T>>(&format!(
                r#"{{"x": {json}, "list": [{json}]}}"#
            ))),
            show(serde_json::from_reader::<_, Holder<T>>(
                format!(r#"{{"list": [{json}]}}"#).as_bytes(),
            )),
        ];
        if let Ok(value) = serde_json::from_str::<Value>(json) {
            out.push(show(serde_json::from_value::<T>(value.clone())));
            out.push(show(T::deserialize(&value)));
            out.push(show(<Option<T>>::deserialize(&value)));
            let holder = json!({ "x": value.clone(), "list": [value.clone()] });
            out.push(show(serde_json::from_value::<Holder<T>>(holder.clone())));
            out.push(show(Holder::<T>::deserialize(&holder)));
        }
        out
    }

    /// serde_json's serializations of `value` and the serializer calls it makes.
    fn serialized<T: Serialize>(value: &T) -> Vec<String> {
        vec![
            show(serde_json::to_string(value)),
            show(serde_json::to_string_pretty(value)),
            show(serde_json::to_value(value).map(|v| text(&v))),
            show(
                serde_json::to_vec(&Holder {
                    x: value,
                    list: vec![value],
                })
                .map(String::from_utf8),
            ),
            record(value),
        ]
    }

    /// Deserializes `T` and `U` from every input of `shape`, and serializes what both
    /// accept.
    fn compare<T, U>(shape: &Shape) -> usize
    where
        T: DeserializeOwned + Serialize + Debug,
        U: DeserializeOwned + Serialize + Debug,
    {
        let mut count = 0;
        for sample in &shape.samples {
            for json in inputs(shape.keys, sample) {
                count += 1;
                let expected = from_json::<T>(&json);
                assert_eq!(from_json::<U>(&json), expected, "{json}");
                if let (Ok(reference), Ok(generated)) = (
                    serde_json::from_str::<T>(&json),
                    serde_json::from_str::<U>(&json),
                ) {
                    assert_eq!(serialized(&generated), serialized(&reference), "{json}");
                }
            }
            for entries in key_variants(shape.keys, sample) {
                count += 1;
                let expected = from_entries::<T>(entries.clone());
                assert_eq!(from_entries::<U>(entries.clone()), expected, "{entries:?}");
            }
            let values: Vec<Value> = shape
                .keys
                .iter()
                .map(|key| sample.get(key).cloned().unwrap_or(Value::Null))
                .collect();
            for len in 0..=values.len() + 1 {
                let mut elements = values.clone();
                elements.resize(len, json!("extra"));
                count += 1;
                let expected = from_elements::<T>(elements.clone());
                assert_eq!(from_elements::<U>(elements), expected, "{len}");
            }
        }
        assert_eq!(from_other::<U>(), from_other::<T>());
        count
    }

    #[test]
    fn serde_struct_deserializes_and_serializes_as_serde_derive() {
        let [args, inner, strict, one, empty, empty_strict, r#loop] = shapes();
        let counts = [
            compare::<reference::Args, generated::Args>(&args.1),
            compare::<reference::Inner, generated::Inner>(&inner.1),
            compare::<reference::Strict, generated::Strict>(&strict.1),
            compare::<reference::One, generated::One>(&one.1),
            compare::<reference::Empty, generated::Empty>(&empty.1),
            compare::<reference::EmptyStrict, generated::EmptyStrict>(&empty_strict.1),
            compare::<reference::r#loop, generated::r#loop>(&r#loop.1),
        ];
        // Enough inputs per struct to mean something.
        for (count, (name, _)) in counts.iter().zip(shapes()) {
            assert!(*count >= 30, "{name}: {count} inputs");
        }
    }

    /// A map key as each `Visitor` method a deserializer may call for it.
    #[derive(Clone, Debug)]
    enum Key {
        Str(&'static str),
        BorrowedStr(&'static str),
        String(&'static str),
        Bytes(&'static [u8]),
        BorrowedBytes(&'static [u8]),
        ByteBuf(&'static [u8]),
        U64(u64),
        U8(u8),
        I64(i64),
        Bool(bool),
        Char(char),
        Unit,
    }

    impl<'de> Deserializer<'de> for Key {
        type Error = serde_json::Error;

        fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, serde_json::Error> {
            match self {
                Key::Str(s) => v.visit_str(s),
                Key::BorrowedStr(s) => v.visit_borrowed_str(s),
                Key::String(s) => v.visit_string(s.to_owned()),
                Key::Bytes(b) => v.visit_bytes(b),
                Key::BorrowedBytes(b) => v.visit_borrowed_bytes(b),
                Key::ByteBuf(b) => v.visit_byte_buf(b.to_vec()),
                Key::U64(n) => v.visit_u64(n),
                Key::U8(n) => v.visit_u8(n),
                Key::I64(n) => v.visit_i64(n),
                Key::Bool(b) => v.visit_bool(b),
                Key::Char(c) => v.visit_char(c),
                Key::Unit => v.visit_unit(),
            }
        }

        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
            bytes byte_buf option unit unit_struct newtype_struct seq tuple
            tuple_struct map struct enum identifier ignored_any
        }
    }

    /// A `MapAccess` over `(Key, Value)` entries that counts the calls made.
    struct Entries {
        entries: std::vec::IntoIter<(Key, Value)>,
        value: Option<Value>,
        calls: Vec<&'static str>,
    }

    impl<'de> MapAccess<'de> for Entries {
        type Error = serde_json::Error;

        fn next_key_seed<K: DeserializeSeed<'de>>(
            &mut self,
            seed: K,
        ) -> Result<Option<K::Value>, serde_json::Error> {
            self.calls.push("key");
            match self.entries.next() {
                None => Ok(None),
                Some((key, value)) => {
                    self.value = Some(value);
                    seed.deserialize(key).map(Some)
                }
            }
        }

        fn next_value_seed<V: DeserializeSeed<'de>>(
            &mut self,
            seed: V,
        ) -> Result<V::Value, serde_json::Error> {
            self.calls.push("value");
            match self.value.take() {
                Some(value) => seed.deserialize(value),
                None => Err(serde::de::Error::custom("value before key")),
            }
        }
    }

    /// `T` from a map of `entries`, with the `MapAccess` calls it made.
    fn from_entries<T: DeserializeOwned + Debug>(entries: Vec<(Key, Value)>) -> String {
        let mut map = Entries {
            entries: entries.into_iter(),
            value: None,
            calls: Vec::new(),
        };
        let result = show(T::deserialize(MapAccessDeserializer::new(&mut map)));
        format!("{result} {:?} left {}", map.calls, map.entries.len())
    }

    /// The entries of `sample` with every kind of key, and unknown, duplicate and odd keys.
    fn key_variants(keys: &'static [&'static str], sample: &Value) -> Vec<Vec<(Key, Value)>> {
        type MakeKey = fn(&'static str, usize) -> Key;
        let kinds: [MakeKey; 7] = [
            |s, _| Key::Str(s),
            |s, _| Key::BorrowedStr(s),
            |s, _| Key::String(s),
            |s, _| Key::Bytes(s.as_bytes()),
            |s, _| Key::BorrowedBytes(s.as_bytes()),
            |s, _| Key::ByteBuf(s.as_bytes()),
            |_, i| Key::U64(i as u64),
        ];
        let n = keys.len() as u64;
        let odd = [
            Key::Str("zzz"),
            Key::Str(""),
            Key::Bytes(b"zzz"),
            Key::Bytes(b"\xffz"),
            Key::BorrowedBytes(b"\xfe"),
            Key::ByteBuf(b"zz\xff"),
            Key::U64(n),
            Key::U64(n + 1),
            Key::U64(u64::MAX),
            Key::U8(0),
            Key::U8(200),
            Key::I64(0),
            Key::I64(-1),
            Key::Bool(true),
            Key::Char('x'),
            Key::Unit,
        ];
        let mut out = Vec::new();
        for kind in kinds {
            let entries: Vec<(Key, Value)> = keys
                .iter()
                .enumerate()
                .filter_map(|(i, key)| sample.get(key).map(|v| (kind(key, i), v.clone())))
                .collect();
            out.push(entries.clone());
            if let Some(first) = entries.first().cloned() {
                let mut twice = entries.clone();
                twice.push(first);
                out.push(twice);
            }
            for key in &odd {
                let mut extra = entries.clone();
                extra.insert(0, (key.clone(), json!({"ignored": [1]})));
                out.push(extra);
                let mut extra = entries.clone();
                extra.push((key.clone(), Value::Null));
                out.push(extra);
            }
        }
        // The same field by name and by index.
        if let Some(key) = keys.first() {
            if let Some(value) = sample.get(key) {
                out.push(vec![
                    (Key::Str(key), value.clone()),
                    (Key::U64(0), value.clone()),
                ]);
            }
            if let Some(c) = key.chars().next().filter(|_| key.len() == 1) {
                out.push(vec![(Key::Char(c), json!(1))]);
            }
        }
        out.push(Vec::new());
        out
    }

    /// A `SeqAccess` over values that counts the calls made.
    struct Elements {
        elements: std::vec::IntoIter<Value>,
        calls: usize,
    }

    impl<'de> SeqAccess<'de> for Elements {
        type Error = serde_json::Error;

        fn next_element_seed<T: DeserializeSeed<'de>>(
            &mut self,
            seed: T,
        ) -> Result<Option<T::Value>, serde_json::Error> {
            self.calls += 1;
            self.elements
                .next()
                .map(|value| seed.deserialize(value))
                .transpose()
        }
    }

    /// `T` from a sequence of `elements`, with the number of `next_element` calls it made.
    fn from_elements<T: DeserializeOwned + Debug>(elements: Vec<Value>) -> String {
        let mut seq = Elements {
            elements: elements.into_iter(),
            calls: 0,
        };
        let result = show(T::deserialize(SeqAccessDeserializer::new(&mut seq)));
        format!("{result} calls {} left {}", seq.calls, seq.elements.len())
    }

    /// A deserializer that shows the `deserialize_struct` call made of it.
    struct Probe;

    impl<'de> Deserializer<'de> for Probe {
        type Error = ValueError;

        fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, ValueError> {
            Err(serde::de::Error::custom("deserialize_any"))
        }

        fn deserialize_struct<V: Visitor<'de>>(
            self,
            name: &'static str,
            fields: &'static [&'static str],
            visitor: V,
        ) -> Result<V::Value, ValueError> {
            let expecting = &visitor as &dyn Expected;
            Err(serde::de::Error::custom(format!(
                "deserialize_struct({name:?}, {fields:?}) expecting {expecting}"
            )))
        }

        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
            bytes byte_buf option unit unit_struct newtype_struct seq tuple
            tuple_struct map enum identifier ignored_any
        }
    }

    /// `T` from serde's own deserializers of other types, and the `deserialize_struct` call.
    fn from_other<T: DeserializeOwned + Debug>() -> Vec<String> {
        vec![
            show(T::deserialize(Probe)),
            show(T::deserialize(StrDeserializer::<ValueError>::new("x"))),
            show(T::deserialize(U64Deserializer::<ValueError>::new(1))),
            show(T::deserialize(I64Deserializer::<ValueError>::new(-1))),
            show(T::deserialize(BoolDeserializer::<ValueError>::new(true))),
            show(T::deserialize(UnitDeserializer::<ValueError>::new())),
        ]
    }

    /// The comparisons above are not between two identical wrong answers.
    #[test]
    fn serde_struct_messages() {
        let cases = [
            (
                r#"{"kind": "bug"}"#,
                "Err(missing field `owner` at line 1 column 15)",
            ),
            (
                r#"{"owner": "me", "kind": "bug", "limit": 1, "maybe": 2}"#,
                "Ok(Args { after: None, order_by: None, labels: [], limit: 1, owner: \"me\", \
                 type: None, kind: Bug, nested: None, maybe: Some(Some(2)) })",
            ),
            (
                r#"{"owner": "me", "kind": "bug", "x": [1, {"y": 2}]}"#,
                "Ok(Args { after: None, order_by: None, labels: [], limit: 30, owner: \"me\", \
                 type: None, kind: Bug, nested: None, maybe: None })",
            ),
            (
                r#"{"owner": "a", "owner": "b"}"#,
                "Err(duplicate field `owner` at line 1 column 22)",
            ),
            // In a sequence an `Option` without default is required.
            (
                r#"["a", null, [], 4, "me", "bug", "feature"]"#,
                "Err(invalid length 7, expected struct Args with 9 elements at line 1 column 42)",
            ),
            (
                r#"["a", null, [], 4, "me", "bug", "feature", null, 5]"#,
                "Ok(Args { after: Some(\"a\"), order_by: None, labels: [], limit: 4, \
                 owner: \"me\", type: Some(Bug), kind: Feature, nested: None, maybe: Some(Some(5)) })",
            ),
            (
                r#"[null, null]"#,
                "Err(invalid length 4, expected struct Args with 9 elements at line 1 \
                 column 12)",
            ),
            (
                r#""x""#,
                "Err(invalid type: string \"x\", expected struct Args at line 1 column 3)",
            ),
            (
                r#"{"owner": "me", "kind": "bug", "nested": {"name": "n", "nope": 1}}"#,
                "Err(unknown field `nope`, expected one of `name`, `value`, `$ref` at line 1 \
                 column 61)",
            ),
        ];
        for (json, expected) in cases {
            assert_eq!(
                show(serde_json::from_str::<generated::Args>(json)),
                expected,
                "{json}"
            );
        }
        assert_eq!(
            show(serde_json::from_str::<generated::Strict>(
                r#"{"id": 1, "inner": {"name": "n"}}"#
            )),
            "Ok(Strict { id: 1, tags: [], page: 1, flag: false, inner: Inner { name: \"n\", \
             value: None, ref: None }, extra: {}, shape: None })"
        );
        assert_eq!(
            show(serde_json::from_str::<generated::One>("[]")),
            "Err(invalid length 0, expected struct One with 1 element at line 1 column 2)"
        );
        assert_eq!(
            show(serde_json::from_str::<generated::EmptyStrict>(
                r#"{"a": 1}"#
            )),
            "Err(unknown field `a`, there are no fields at line 1 column 4)"
        );
        assert_eq!(
            from_entries::<generated::Inner>(vec![(Key::U64(3), json!(1))]),
            "Err(invalid value: integer `3`, expected field index 0 <= i < 3) [\"key\"] left 0"
        );
        assert_eq!(
            from_entries::<generated::One>(vec![
                (Key::U64(3), json!(1)),
                (Key::Bytes(b"only"), json!("o"))
            ]),
            "Ok(One { only: \"o\" }) [\"key\", \"value\", \"key\", \"value\", \"key\"] left 0"
        );
        assert_eq!(
            from_entries::<generated::Inner>(vec![(Key::Bytes(b"\xffa"), json!(1))]),
            "Err(unknown field `\u{fffd}a`, expected one of `name`, `value`, `$ref`) [\"key\"] \
             left 0"
        );
        assert_eq!(
            from_elements::<generated::Strict>(vec![json!(1)]),
            "Err(invalid length 4, expected struct Strict with 7 elements) calls 5 left 0"
        );
        assert_eq!(
            show(generated::r#loop::deserialize(Probe)),
            "Err(deserialize_struct(\"loop\", [\"in\", \"fn\"]) expecting struct r#loop)"
        );
        assert_eq!(
            show(generated::Args::deserialize(Probe)),
            "Err(deserialize_struct(\"Args\", [\"after\", \"orderBy\", \"labels\", \"limit\", \
             \"owner\", \"type\", \"kind\", \"nested\", \"maybe\"]) expecting struct Args)"
        );
        let args: generated::Args =
            serde_json::from_str(r#"{"owner": "me", "kind": "bug", "labels": ["l"]}"#).unwrap();
        assert_eq!(
            record(&args),
            "serialize_struct(\"Args\", 6) skip_field(\"after\") skip_field(\"orderBy\") \
             serialize_field(\"labels\", [\"l\"]) serialize_field(\"limit\", 30) \
             serialize_field(\"owner\", \"me\") serialize_field(\"type\", null) \
             serialize_field(\"kind\", \"bug\") skip_field(\"nested\") \
             serialize_field(\"maybe\", null) end"
        );
        assert_eq!(
            record(&generated::r#loop {
                r#in: 1,
                r#fn: None
            }),
            "serialize_struct(\"loop\", 2) serialize_field(\"in\", 1) \
             serialize_field(\"fn\", null) end"
        );
        assert_eq!(
            record(&generated::Empty {}),
            "serialize_struct(\"Empty\", 0) end"
        );
    }

    /// The serializer calls `value` makes, or the error.
    fn record<T: Serialize>(value: &T) -> String {
        value
            .serialize(Recorder)
            .unwrap_or_else(|error| format!("Err({error})"))
    }

    /// `Map` is imported for the `skip_if` path spelled without it in `generated`.
    #[test]
    fn serde_struct_skip_if_paths() {
        let strict: generated::Strict =
            serde_json::from_str(r#"{"id": 1, "inner": {"name": "n"}, "extra": {"k": 2}}"#)
                .unwrap();
        let mut extra = Map::new();
        extra.insert("k".to_owned(), json!(2));
        assert_eq!(strict.extra, extra);
        assert_eq!(
            serde_json::to_string(&strict).unwrap(),
            r#"{"id":1,"page":1,"flag":false,"inner":{"name":"n","$ref":null},"extra":{"k":2}}"#
        );
    }
}
