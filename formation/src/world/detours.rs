//! Detours: a unit far from a slot it cannot see plans a path to it (through jump links when
//! the unit can jump), instead of pushing on into the obstacle.

use super::World;

/// Ticks between re-planning a detour around an obstacle to the slot.
pub(crate) const DETOUR_REPLAN_TICKS: u64 = 60;

impl World {
    /// Units far from a slot they cannot see plan a path to it (re-planned at most once a
    /// second); units whose slot is in sight drop their detour.
    pub(crate) fn plan_detours(&mut self) {
        let Self {
            units,
            terrain,
            settings,
            tick,
            scratch,
            ..
        } = self;
        for (_, unit) in units.iter_mut() {
            let Some(t) = unit.slot_target else {
                unit.detour.clear();
                continue;
            };
            let pos = unit.body.position;
            if let Some(&p) = unit.detour.first() {
                if (p - pos).length() < unit.body.radius * 2.0 + 0.5 {
                    unit.detour.remove(0);
                }
            }
            let far = (t.position - pos).length() > settings.detour_distance;
            if !far {
                unit.detour.clear();
                continue;
            }
            let blocked = !terrain.line_of_sight(pos, t.position, unit.body.radius);
            if !blocked {
                unit.detour.clear();
                continue;
            }
            if unit.detour.is_empty() || *tick >= unit.detour_tick + DETOUR_REPLAN_TICKS {
                let plan = terrain.plan_path(
                    pos,
                    t.position,
                    unit.body.radius,
                    unit.body.radius,
                    &mut scratch.path,
                );
                unit.detour.clear();
                unit.detour.extend(plan.points.iter().skip(1).copied());
                unit.detour_tick = *tick;
            }
        }
    }
}
