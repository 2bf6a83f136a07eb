//! A serializer for tests that shows which serializer calls a value made (the runtime's
//! serde macros are compared call by call with serde_derive through it).

use serde::Serialize;
use serde::de::value::Error as ValueError;

/// A serializer that shows the calls a value made: a unit variant, or a struct and its
/// fields; anything else is an error naming the call.
pub(crate) struct Recorder;

/// [`Recorder`]'s `SerializeStruct`.
pub(crate) struct RecordStruct(String);

impl serde::ser::SerializeStruct for RecordStruct {
    type Ok = String;
    type Error = ValueError;

    fn serialize_field<T: ?Sized + Serialize>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), ValueError> {
        let value = serde_json::to_string(value).map_err(serde::ser::Error::custom)?;
        self.0 += &format!(" serialize_field({key:?}, {value})");
        Ok(())
    }

    fn skip_field(&mut self, key: &'static str) -> Result<(), ValueError> {
        self.0 += &format!(" skip_field({key:?})");
        Ok(())
    }

    fn end(self) -> Result<String, ValueError> {
        Ok(self.0 + " end")
    }
}

macro_rules! unsupported {
    ($($method:ident($($arg:ty),*) -> $ok:ty;)*) => {
        $(fn $method(self, $(_: $arg),*) -> Result<$ok, ValueError> {
            Err(serde::ser::Error::custom(stringify!($method)))
        })*
    };
}

impl serde::Serializer for Recorder {
    type Ok = String;
    type Error = ValueError;
    type SerializeSeq = serde::ser::Impossible<String, ValueError>;
    type SerializeTuple = serde::ser::Impossible<String, ValueError>;
    type SerializeTupleStruct = serde::ser::Impossible<String, ValueError>;
    type SerializeTupleVariant = serde::ser::Impossible<String, ValueError>;
    type SerializeMap = serde::ser::Impossible<String, ValueError>;
    type SerializeStruct = RecordStruct;
    type SerializeStructVariant = serde::ser::Impossible<String, ValueError>;

    fn serialize_struct(self, name: &'static str, len: usize) -> Result<RecordStruct, ValueError> {
        Ok(RecordStruct(format!("serialize_struct({name:?}, {len})")))
    }

    fn serialize_unit_variant(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
    ) -> Result<String, ValueError> {
        Ok(format!(
            "serialize_unit_variant({name:?}, {index}, {variant:?})"
        ))
    }

    fn serialize_some<T: ?Sized + Serialize>(self, _: &T) -> Result<String, ValueError> {
        Err(serde::ser::Error::custom("serialize_some"))
    }

    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: &T,
    ) -> Result<String, ValueError> {
        Err(serde::ser::Error::custom("serialize_newtype_struct"))
    }

    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<String, ValueError> {
        Err(serde::ser::Error::custom("serialize_newtype_variant"))
    }

    unsupported! {
        serialize_bool(bool) -> String;
        serialize_i8(i8) -> String;
        serialize_i16(i16) -> String;
        serialize_i32(i32) -> String;
        serialize_i64(i64) -> String;
        serialize_u8(u8) -> String;
        serialize_u16(u16) -> String;
        serialize_u32(u32) -> String;
        serialize_u64(u64) -> String;
        serialize_f32(f32) -> String;
        serialize_f64(f64) -> String;
        serialize_char(char) -> String;
        serialize_str(&str) -> String;
        serialize_bytes(&[u8]) -> String;
        serialize_none() -> String;
        serialize_unit() -> String;
        serialize_unit_struct(&'static str) -> String;
            serialize_seq(Option<usize>) -> Self::SerializeSeq;
        serialize_tuple(usize) -> Self::SerializeTuple;
        serialize_tuple_struct(&'static str, usize) -> Self::SerializeTupleStruct;
        serialize_tuple_variant(&'static str, u32, &'static str, usize)
            -> Self::SerializeTupleVariant;
        serialize_map(Option<usize>) -> Self::SerializeMap;
        serialize_struct_variant(&'static str, u32, &'static str, usize)
            -> Self::SerializeStructVariant;
    }
}
