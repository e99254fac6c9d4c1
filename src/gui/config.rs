//! What every table of a server shares: the server's settings, the tables
//! by their token, the budget of bytes waiting for browsers and the
//! results database's work.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::{Semaphore, mpsc};

use super::outbox::Budget;
use super::record::Recorder;
use super::room::Event;

/// The server's settings, shared by its tables.
pub struct Config {
    pub exe: PathBuf,
    pub data_dir: PathBuf,
    pub max_hash: u32,
    /// Hash (MB) of an engine whose table did not ask for one.
    pub default_hash: u32,
    /// Most threads a table may give its engine (the machine's cores).
    pub max_threads: u32,
    pub rejoin: Duration,
    pub idle: Duration,
    /// One permit per engine process.
    pub engines: Arc<Semaphore>,
    pub max_engines: u32,
    /// Most spectators at one table at once.
    pub max_spectators: usize,
    /// Bytes waiting for browsers, server-wide, and their limit.
    pub budget: Arc<Budget>,
    /// The results database's work (off every table's task).
    pub results: Arc<Recorder>,
    /// People may join from elsewhere (invitations, spectators, chat):
    /// false in the offline page, where the page is the only browser.
    pub networked: bool,
}

/// Tables by their token.
pub type Rooms = Mutex<HashMap<String, mpsc::Sender<Event>>>;
