//! One module per game; each implements [`crate::game::Game`] and is
//! registered in [`crate::registry::families`].

pub mod connect4;
pub mod hive;
pub mod mastermind;
