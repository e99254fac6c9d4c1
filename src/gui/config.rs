//! What every table of a server shares: the server's settings and the
//! tables by their token.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::{Semaphore, mpsc};

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
}

/// Tables by their token.
pub type Rooms = Mutex<HashMap<String, mpsc::Sender<Event>>>;
