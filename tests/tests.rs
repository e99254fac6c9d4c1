//! The end-to-end tests, one test crate (the project links once): each
//! module is an area. They spawn the built `meeple` binary
//! (`CARGO_BIN_EXE_meeple`) and talk to it as a client would, or run the
//! referee's, the cluster's and the browser's tests.

mod common;

mod cluster;
mod engine;
mod fuzz;
mod gui_browser;
mod gui_load;
mod gui_server;
mod gui_table;
mod hardening;
mod hostile;
mod house;
mod leaderboard;
mod mastermind;
mod play;
mod protocol;
mod referee;
mod review;
mod review_pty;
mod roundtrip;
mod uhp;
mod web;
