//! The tactics orders the viewer gives: a play from the selected formation's playbook and
//! bounding overwatch to a point. They need `Order::RunPlay` and `Order::BoundingOverwatch`
//! from the formation crate's tactics layer; until those exist the keys say so on screen.

use glam::Vec2;

use super::session::Session;
use cohort_formation::Order;

/// The order that starts a play of the selected formation, and a description; or why not.
pub fn run_play_order(session: &Session) -> Result<(Order, String), String> {
    let _ = session;
    Err(String::from(
        "plays are not available: the formation crate has no Order::RunPlay yet",
    ))
}

/// The order that starts bounding overwatch to `goal`, and a description; or why not.
pub fn overwatch_order(session: &Session, goal: Vec2) -> Result<(Order, String), String> {
    let _ = (session, goal);
    Err(String::from(
        "bounding overwatch is not available: the formation crate has no \
         Order::BoundingOverwatch yet",
    ))
}
