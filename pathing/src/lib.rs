#![doc = include_str!("../README.md")]

pub mod astar;
pub mod cover;
pub mod error;
pub mod gap;
pub mod grid_build;
pub mod jump;
pub mod map;
pub mod navgraph;
pub mod occupancy;
pub mod path_query;
pub mod polygon;
pub mod smoothing;
pub mod valid_map;

mod broad_phase;
mod cell_tree;
mod path_finish;
mod radix_heap;
mod ring_index;

pub use astar::{ROUTE_RESERVE, Route, SearchFilter, SearchScratch};
pub use cover::{CoverGeneration, CoverHit, CoverPoint};
pub use error::PathingError;
pub use gap::{GapResponse, JumpDetector, JumpableGap, detect_gap};
pub use grid_build::GridSpec;
pub use jump::{
    JumpAbility, JumpEvent, JumpLink, JumpPlan, JumpRefusal, JumpSource, LandingPad, TakeOff,
    VelocityTarget, plan_jump,
};
pub use map::Map;
pub use navgraph::{EdgeKind, NavEdge, NavGraph, NavGraphStorage, NavNode, NodeId};
pub use occupancy::{MAX_GRID_CELLS, OccupancyGrid};
pub use path_query::{
    Leg, Narrowest, OnFailure, Path, PathQuery, Waypoint, find_path, find_path_into,
};
pub use polygon::PolygonObstacle;
pub use smoothing::{smooth_path, smooth_path_into};
pub use valid_map::{Clearance, ValidMap};

/// The vector type of every crate: 2D, `f32` (glam's).
pub use cohort_steering::Vec2;
