//! The versions of the free slots of a slot map, into a [`WordHasher`].
//!
//! A slot map's keys carry the version of their slot, and a free slot's version decides the
//! key the next insertion hands out, so a state hash covers the versions of the free slots
//! too (the occupied slots' versions are in their keys, which the state hash writes with
//! their values). The slot map shows them only through its serialized form (a sequence of
//! `{ value, version }`); this serializer reads that form and keeps the versions, without
//! serializing the values. The sequence's length comes first: when it says every slot is
//! occupied (the common case of a world nothing was removed from), the walk stops there, and
//! the slots are not read at all.

use serde::Serialize;
use serde::ser::{self, Impossible};
use slotmap::{Key, SlotMap};

use super::walk::WalkError;
use super::word_hash::WordHasher;

/// Writes the number of slots of `map` (the reserved first one included), then, when some
/// are free, every slot's version, one word each (an odd version marks an occupied slot).
pub(crate) fn hash_slot_versions<K: Key, V: Serialize>(map: &SlotMap<K, V>, h: &mut WordHasher) {
    // Only sequences of two-field structs and `u32`s are asked for; the walk fails only
    // where it is stopped on purpose (no free slot).
    let _ = map.serialize(&mut Versions {
        h,
        occupied: map.len(),
    });
}

struct Versions<'a> {
    h: &'a mut WordHasher,
    /// Occupied slots of the map.
    occupied: usize,
}

macro_rules! refuse {
    ($($name:ident($($arg:ty),*)),* $(,)?) => {
        $(
            fn $name(self, $(_: $arg),*) -> Result<(), WalkError> {
                Err(WalkError::Custom)
            }
        )*
    };
}

impl<'a, 'b> ser::Serializer for &'b mut Versions<'a> {
    type Ok = ();
    type Error = WalkError;
    type SerializeSeq = Self;
    type SerializeTuple = Impossible<(), WalkError>;
    type SerializeTupleStruct = Impossible<(), WalkError>;
    type SerializeTupleVariant = Impossible<(), WalkError>;
    type SerializeMap = Impossible<(), WalkError>;
    type SerializeStruct = Self;
    type SerializeStructVariant = Impossible<(), WalkError>;

    fn serialize_u32(self, v: u32) -> Result<(), WalkError> {
        self.h.write_u32(v);
        Ok(())
    }

    fn serialize_seq(self, len: Option<usize>) -> Result<Self, WalkError> {
        self.h.write_u64(len.map_or(u64::MAX, |n| n as u64));
        if len == Some(self.occupied + 1) {
            // Every slot but the reserved first is occupied: no free version to write.
            return Err(WalkError::Custom);
        }
        Ok(self)
    }

    fn serialize_struct(self, _name: &'static str, _len: usize) -> Result<Self, WalkError> {
        Ok(self)
    }

    refuse!(
        serialize_bool(bool),
        serialize_i8(i8),
        serialize_i16(i16),
        serialize_i32(i32),
        serialize_i64(i64),
        serialize_u8(u8),
        serialize_u16(u16),
        serialize_u64(u64),
        serialize_f32(f32),
        serialize_f64(f64),
        serialize_char(char),
        serialize_str(&str),
        serialize_bytes(&[u8]),
        serialize_none(),
        serialize_unit(),
        serialize_unit_struct(&'static str),
        serialize_unit_variant(&'static str, u32, &'static str),
    );

    fn serialize_some<T: Serialize + ?Sized>(self, _value: &T) -> Result<(), WalkError> {
        Err(WalkError::Custom)
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _value: &T,
    ) -> Result<(), WalkError> {
        Err(WalkError::Custom)
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _value: &T,
    ) -> Result<(), WalkError> {
        Err(WalkError::Custom)
    }

    fn serialize_tuple(self, _len: usize) -> Result<Self::SerializeTuple, WalkError> {
        Err(WalkError::Custom)
    }

    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleStruct, WalkError> {
        Err(WalkError::Custom)
    }

    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleVariant, WalkError> {
        Err(WalkError::Custom)
    }

    fn serialize_map(self, _len: Option<usize>) -> Result<Self::SerializeMap, WalkError> {
        Err(WalkError::Custom)
    }

    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStructVariant, WalkError> {
        Err(WalkError::Custom)
    }

    fn collect_str<T: std::fmt::Display + ?Sized>(self, _value: &T) -> Result<(), WalkError> {
        Err(WalkError::Custom)
    }

    fn is_human_readable(&self) -> bool {
        false
    }
}

impl ser::SerializeSeq for &mut Versions<'_> {
    type Ok = ();
    type Error = WalkError;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), WalkError> {
        v.serialize(&mut **self)
    }
    fn end(self) -> Result<(), WalkError> {
        Ok(())
    }
}

impl ser::SerializeStruct for &mut Versions<'_> {
    type Ok = ();
    type Error = WalkError;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        v: &T,
    ) -> Result<(), WalkError> {
        // The value is skipped: the state hash writes the occupied slots' values itself.
        if key == "version" {
            v.serialize(&mut **self)
        } else {
            Ok(())
        }
    }
    fn end(self) -> Result<(), WalkError> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    slotmap::new_key_type! {
        struct K;
    }

    fn hash(map: &SlotMap<K, f32>) -> u64 {
        let mut h = WordHasher::new();
        hash_slot_versions(map, &mut h);
        h.finish()
    }

    #[test]
    fn free_slots_versions_count() {
        let mut a = SlotMap::<K, f32>::with_key();
        let ka = a.insert(1.0);
        let kb = a.insert(2.0);
        let before = hash(&a);
        // Values are not read.
        a[ka] = 5.0;
        assert_eq!(hash(&a), before);
        // With a free slot, nor are they.
        let mut c = a.clone();
        c.remove(kb);
        let one_free = hash(&c);
        c[ka] = 6.0;
        assert_eq!(hash(&c), one_free);
        // A slot freed and taken again has another version.
        let mut b = a.clone();
        b.remove(ka);
        let freed = hash(&b);
        assert_ne!(freed, before);
        // Taken again, every slot is occupied: the versions are in the keys, not written here.
        b.insert(1.0);
        assert_eq!(hash(&b), before);
        assert_ne!(hash(&b), freed);
    }
}
