//! A `serde::Serializer` that walks a value and hands its primitives to a [`Sink`]: the terrain
//! hash ([`super::stable_hash::StableHasher`]), the small parts of the state hash (generator,
//! settings, orders, tactics; see `world/state_hash.rs`) and the finiteness check of loaded
//! snapshots ([`super::validate`]) go through it, so every field a type serializes is seen
//! without being listed by hand, and a field added later cannot be forgotten.
//!
//! What a sink receives is fixed-width and platform-independent: integers little-endian at
//! their own width (`usize` is serialized by serde as `u64`), `f32` and `f64` by their bits,
//! `bool` and `char` as `u32`, every enum variant as its index, every length (strings, bytes,
//! sequences, maps) as a `u64` before the items. Nothing is formatted or allocated by the
//! walk itself.

use serde::Serialize;
use serde::ser;

/// Where the walk is inside the value (given to [`Sink::enter`] for messages that name it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Segment {
    /// A struct field or enum variant by name.
    Name(&'static str),
    /// An element of a sequence, tuple or map by position.
    Index(u64),
}

/// Receives the primitives of a walked value.
pub(crate) trait Sink {
    /// Four bytes (`u32`, `i32`, smaller integers widened, `bool`, `char`, tags).
    fn word32(&mut self, v: u32);
    /// Eight bytes (`u64`, `i64`, lengths).
    fn word64(&mut self, v: u64);
    /// A float, by its bits; an error stops the walk.
    fn float32(&mut self, v: f32) -> Result<(), WalkError>;
    /// A double, by its bits; an error stops the walk.
    fn float64(&mut self, v: f64) -> Result<(), WalkError>;
    /// Raw bytes of a string or byte array (their length was given just before).
    fn bytes(&mut self, b: &[u8]);
    /// The walk goes into `_at` (a field, variant or element).
    #[inline(always)]
    fn enter(&mut self, _at: Segment) {}
    /// The walk comes back out of the last [`Sink::enter`].
    #[inline(always)]
    fn leave(&mut self) {}
}

/// Why a walk stopped. Carries no text: messages are made by the caller, from the sink.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum WalkError {
    /// A float the sink refused (not finite).
    NonFinite,
    /// The value's own `Serialize` reported an error.
    Custom,
}

impl std::fmt::Display for WalkError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WalkError::NonFinite => f.write_str("a number is not finite"),
            WalkError::Custom => f.write_str("the value could not be serialized"),
        }
    }
}

impl std::error::Error for WalkError {}

impl ser::Error for WalkError {
    fn custom<T: std::fmt::Display>(_msg: T) -> Self {
        WalkError::Custom
    }
}

/// Walks `value` into `sink`.
#[inline]
pub(crate) fn walk<T: Serialize + ?Sized, S: Sink>(
    value: &T,
    sink: &mut S,
) -> Result<(), WalkError> {
    value.serialize(&mut Walker { sink })
}

/// The serializer: a borrowed sink.
pub(crate) struct Walker<'a, S: Sink> {
    sink: &'a mut S,
}

/// A compound value being walked: counts its elements for [`Segment::Index`].
pub(crate) struct Compound<'w, 'a, S: Sink> {
    walker: &'w mut Walker<'a, S>,
    index: u64,
    /// Whether the length was unknown when it began (then it is written at the end).
    unsized_len: bool,
}

impl<'a, S: Sink> Walker<'a, S> {
    #[inline(always)]
    fn element<T: Serialize + ?Sized>(&mut self, at: Segment, v: &T) -> Result<(), WalkError> {
        self.sink.enter(at);
        let r = v.serialize(&mut *self);
        self.sink.leave();
        r
    }

    #[inline(always)]
    fn compound<'w>(&'w mut self, len: Option<usize>) -> Compound<'w, 'a, S> {
        self.sink.word64(len.map_or(u64::MAX, |n| n as u64));
        Compound {
            walker: self,
            index: 0,
            unsized_len: len.is_none(),
        }
    }

    #[inline(always)]
    fn fixed<'w>(&'w mut self) -> Compound<'w, 'a, S> {
        Compound {
            walker: self,
            index: 0,
            unsized_len: false,
        }
    }
}

impl<S: Sink> Compound<'_, '_, S> {
    #[inline(always)]
    fn next<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), WalkError> {
        let at = Segment::Index(self.index);
        self.index += 1;
        self.walker.element(at, v)
    }

    #[inline(always)]
    fn finish(self) -> Result<(), WalkError> {
        if self.unsized_len {
            self.walker.sink.word64(self.index);
        }
        Ok(())
    }
}

impl<'w, 'a, S: Sink> ser::Serializer for &'w mut Walker<'a, S> {
    type Ok = ();
    type Error = WalkError;
    type SerializeSeq = Compound<'w, 'a, S>;
    type SerializeTuple = Compound<'w, 'a, S>;
    type SerializeTupleStruct = Compound<'w, 'a, S>;
    type SerializeTupleVariant = Compound<'w, 'a, S>;
    type SerializeMap = Compound<'w, 'a, S>;
    type SerializeStruct = Compound<'w, 'a, S>;
    type SerializeStructVariant = Compound<'w, 'a, S>;

    #[inline(always)]
    fn serialize_bool(self, v: bool) -> Result<(), WalkError> {
        self.sink.word32(u32::from(v));
        Ok(())
    }
    #[inline(always)]
    fn serialize_i8(self, v: i8) -> Result<(), WalkError> {
        self.sink.word32(v as i32 as u32);
        Ok(())
    }
    #[inline(always)]
    fn serialize_i16(self, v: i16) -> Result<(), WalkError> {
        self.sink.word32(v as i32 as u32);
        Ok(())
    }
    #[inline(always)]
    fn serialize_i32(self, v: i32) -> Result<(), WalkError> {
        self.sink.word32(v as u32);
        Ok(())
    }
    #[inline(always)]
    fn serialize_i64(self, v: i64) -> Result<(), WalkError> {
        self.sink.word64(v as u64);
        Ok(())
    }
    #[inline(always)]
    fn serialize_i128(self, v: i128) -> Result<(), WalkError> {
        self.serialize_u128(v as u128)
    }
    #[inline(always)]
    fn serialize_u8(self, v: u8) -> Result<(), WalkError> {
        self.sink.word32(u32::from(v));
        Ok(())
    }
    #[inline(always)]
    fn serialize_u16(self, v: u16) -> Result<(), WalkError> {
        self.sink.word32(u32::from(v));
        Ok(())
    }
    #[inline(always)]
    fn serialize_u32(self, v: u32) -> Result<(), WalkError> {
        self.sink.word32(v);
        Ok(())
    }
    #[inline(always)]
    fn serialize_u64(self, v: u64) -> Result<(), WalkError> {
        self.sink.word64(v);
        Ok(())
    }
    #[inline(always)]
    fn serialize_u128(self, v: u128) -> Result<(), WalkError> {
        self.sink.word64(v as u64);
        self.sink.word64((v >> 64) as u64);
        Ok(())
    }
    #[inline(always)]
    fn serialize_f32(self, v: f32) -> Result<(), WalkError> {
        self.sink.float32(v)
    }
    #[inline(always)]
    fn serialize_f64(self, v: f64) -> Result<(), WalkError> {
        self.sink.float64(v)
    }
    #[inline(always)]
    fn serialize_char(self, v: char) -> Result<(), WalkError> {
        self.sink.word32(u32::from(v));
        Ok(())
    }
    #[inline(always)]
    fn serialize_str(self, v: &str) -> Result<(), WalkError> {
        self.serialize_bytes(v.as_bytes())
    }
    #[inline(always)]
    fn serialize_bytes(self, v: &[u8]) -> Result<(), WalkError> {
        self.sink.word64(v.len() as u64);
        self.sink.bytes(v);
        Ok(())
    }
    #[inline(always)]
    fn serialize_none(self) -> Result<(), WalkError> {
        self.sink.word32(0);
        Ok(())
    }
    #[inline(always)]
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), WalkError> {
        self.sink.word32(1);
        value.serialize(self)
    }
    #[inline(always)]
    fn serialize_unit(self) -> Result<(), WalkError> {
        Ok(())
    }
    #[inline(always)]
    fn serialize_unit_struct(self, _name: &'static str) -> Result<(), WalkError> {
        Ok(())
    }
    #[inline(always)]
    fn serialize_unit_variant(
        self,
        _name: &'static str,
        index: u32,
        _variant: &'static str,
    ) -> Result<(), WalkError> {
        self.sink.word32(index);
        Ok(())
    }
    #[inline(always)]
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<(), WalkError> {
        value.serialize(self)
    }
    #[inline(always)]
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<(), WalkError> {
        self.sink.word32(index);
        self.element(Segment::Name(variant), value)
    }
    #[inline(always)]
    fn serialize_seq(self, len: Option<usize>) -> Result<Self::SerializeSeq, WalkError> {
        Ok(self.compound(len))
    }
    #[inline(always)]
    fn serialize_tuple(self, _len: usize) -> Result<Self::SerializeTuple, WalkError> {
        Ok(self.fixed())
    }
    #[inline(always)]
    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleStruct, WalkError> {
        Ok(self.fixed())
    }
    #[inline(always)]
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleVariant, WalkError> {
        self.sink.word32(index);
        self.sink.enter(Segment::Name(variant));
        Ok(self.fixed())
    }
    #[inline(always)]
    fn serialize_map(self, len: Option<usize>) -> Result<Self::SerializeMap, WalkError> {
        Ok(self.compound(len))
    }
    #[inline(always)]
    fn serialize_struct(
        self,
        _name: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStruct, WalkError> {
        Ok(self.fixed())
    }
    #[inline(always)]
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStructVariant, WalkError> {
        self.sink.word32(index);
        self.sink.enter(Segment::Name(variant));
        Ok(self.fixed())
    }
    fn collect_str<T: std::fmt::Display + ?Sized>(self, _value: &T) -> Result<(), WalkError> {
        // Formatting would allocate; nothing in the world's state serializes this way.
        Err(WalkError::Custom)
    }
    fn is_human_readable(&self) -> bool {
        false
    }
}

impl<S: Sink> ser::SerializeSeq for Compound<'_, '_, S> {
    type Ok = ();
    type Error = WalkError;
    #[inline(always)]
    fn serialize_element<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), WalkError> {
        self.next(v)
    }
    #[inline(always)]
    fn end(self) -> Result<(), WalkError> {
        self.finish()
    }
}

impl<S: Sink> ser::SerializeTuple for Compound<'_, '_, S> {
    type Ok = ();
    type Error = WalkError;
    #[inline(always)]
    fn serialize_element<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), WalkError> {
        self.next(v)
    }
    #[inline(always)]
    fn end(self) -> Result<(), WalkError> {
        self.finish()
    }
}

impl<S: Sink> ser::SerializeTupleStruct for Compound<'_, '_, S> {
    type Ok = ();
    type Error = WalkError;
    #[inline(always)]
    fn serialize_field<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), WalkError> {
        self.next(v)
    }
    #[inline(always)]
    fn end(self) -> Result<(), WalkError> {
        self.finish()
    }
}

impl<S: Sink> ser::SerializeTupleVariant for Compound<'_, '_, S> {
    type Ok = ();
    type Error = WalkError;
    #[inline(always)]
    fn serialize_field<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), WalkError> {
        self.next(v)
    }
    #[inline(always)]
    fn end(self) -> Result<(), WalkError> {
        self.walker.sink.leave();
        self.finish()
    }
}

impl<S: Sink> ser::SerializeMap for Compound<'_, '_, S> {
    type Ok = ();
    type Error = WalkError;
    #[inline(always)]
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), WalkError> {
        let at = Segment::Index(self.index);
        self.walker.element(at, key)
    }
    #[inline(always)]
    fn serialize_value<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), WalkError> {
        self.next(v)
    }
    #[inline(always)]
    fn end(self) -> Result<(), WalkError> {
        self.finish()
    }
}

impl<S: Sink> ser::SerializeStruct for Compound<'_, '_, S> {
    type Ok = ();
    type Error = WalkError;
    #[inline(always)]
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        v: &T,
    ) -> Result<(), WalkError> {
        self.walker.element(Segment::Name(key), v)
    }
    #[inline(always)]
    fn skip_field(&mut self, _key: &'static str) -> Result<(), WalkError> {
        // A field left out (`skip_serializing_if`) is told apart from one written.
        self.walker.sink.word32(u32::MAX);
        Ok(())
    }
    #[inline(always)]
    fn end(self) -> Result<(), WalkError> {
        self.finish()
    }
}

impl<S: Sink> ser::SerializeStructVariant for Compound<'_, '_, S> {
    type Ok = ();
    type Error = WalkError;
    #[inline(always)]
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        v: &T,
    ) -> Result<(), WalkError> {
        self.walker.element(Segment::Name(key), v)
    }
    #[inline(always)]
    fn end(self) -> Result<(), WalkError> {
        self.walker.sink.leave();
        self.finish()
    }
}
