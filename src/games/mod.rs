//! One module per game; each implements `Game` (its rules) and `Engine`
//! (its engine services), and is registered by one line in the registry.

pub mod connect4;
pub mod hive;
pub mod mastermind;
