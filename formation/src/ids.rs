//! Keys for the things a [`crate::World`] owns.

slotmap::new_key_type! {
    /// A unit (one body) in a world.
    pub struct UnitId;
    /// A formation (a platoon, squad or fire team) in a world.
    pub struct FormationId;
}
