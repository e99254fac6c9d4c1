//! The people at a table: the browsers connected (the host, a guest
//! holding the other seat of a networked game, spectators), the keys that
//! give the seats, their names, the chat, and each browser's outbox.
//!
//! A seat belongs to a key. The host's key is in the host's own link; the
//! guest seat's key is in the invitation link the host hands on, so a guest
//! who closes the browser gets the seat back by opening the link again,
//! from any browser. The host may free the guest seat: a new key (a new
//! link), and whoever held the old one watches from then on.
//!
//! Every outbox is bounded ([`super::outbox`]): a browser that does not
//! read is dropped, so nothing grows without bound; a table holds at most
//! its number of spectators, and one past it is told so.

use crate::time::Instant;
use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

use serde_json::{Value, json};

use rand::Rng;

pub use super::outbox::{Budget, Kind, Msg, Outbox, OutboxRx, outbox};

/// Chat lines kept for browsers that join later.
pub const CHAT_KEPT: usize = 200;
/// Longest chat line, in characters.
pub const CHAT_CHARS: usize = 500;

/// An unguessable token (a table's, a seat's key): 128 random bits in hex.
pub fn token() -> String {
    let mut r = rand::rng();
    format!("{:032x}", r.random::<u128>())
}

/// An event for a table's task: a browser joins, leaves or sends a
/// message.
pub enum Event {
    /// A browser connected; `me` is the key it had (to take its seat).
    /// Dropping its outbox ends its connection.
    Join {
        id: u64,
        outbox: Outbox,
        me: Option<String>,
    },
    Leave {
        id: u64,
    },
    /// A browser's message, and when its connection read it (a move is
    /// timed from then, whenever the table gets to it).
    Msg {
        id: u64,
        text: String,
        at: Instant,
    },
}

/// A browser that joined: its key and role, and the browsers that held
/// the seat it took and watch from now on.
pub struct Joined {
    pub key: String,
    pub role: Role,
    pub demoted: Vec<u64>,
}

/// Who a browser is at this table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    Host,
    Guest,
    Spectator,
}

impl Role {
    pub fn text(self) -> &'static str {
        match self {
            Role::Host => "host",
            Role::Guest => "player",
            Role::Spectator => "spectator",
        }
    }
}

/// Chat lines a browser may send at once, and per second after that.
const CHAT_BURST: f64 = 8.0;
const CHAT_PER_SECOND: f64 = 2.0;

/// One browser.
pub struct Member {
    /// Dropped with the member: its connection ends at once, even while
    /// it waits on a browser that does not read.
    outbox: Outbox,
    pub key: String,
    /// The name the person gave (checked), if any.
    pub name: Option<String>,
    /// How others see it without a name (`Guest`, `Spectator 2`).
    pub label: String,
    chat_tokens: f64,
    chat_at: Instant,
    /// Its own part of the state, as last sent (sent again only when it
    /// changes).
    me_sent: Option<String>,
}

impl Member {
    /// The name shown in the chat.
    pub fn shown(&self) -> String {
        self.name.clone().unwrap_or_else(|| self.label.clone())
    }
}

/// The browsers of a table and its seats' keys.
pub struct Room {
    /// The table's token (in every link to it).
    pub token: String,
    members: HashMap<u64, Member>,
    pub host_key: String,
    /// The guest seat's key, once the host has invited someone.
    pub guest_key: Option<String>,
    /// The last name the guest gave (kept while the guest is away).
    pub guest_name: Option<String>,
    /// The last name the host gave.
    pub host_name: Option<String>,
    /// Spectators who have come so far (their labels' numbers).
    spectators: usize,
    chat: VecDeque<Value>,
    /// The server's bytes waiting for browsers (every message is counted
    /// there while it lives).
    budget: Arc<Budget>,
    /// Most spectators at once.
    max_spectators: usize,
}

impl Room {
    /// A room with no limit on spectators nor on bytes queued (see
    /// [`Room::bounded`]).
    pub fn new() -> Room {
        Room::bounded(Budget::unlimited(), usize::MAX)
    }

    /// A room counting its messages in the server's `budget`, with at most
    /// `max_spectators` spectators at once.
    pub fn bounded(budget: Arc<Budget>, max_spectators: usize) -> Room {
        Room {
            token: token(),
            members: HashMap::new(),
            host_key: token(),
            guest_key: None,
            guest_name: None,
            host_name: None,
            spectators: 0,
            chat: VecDeque::new(),
            budget,
            max_spectators,
        }
    }

    /// A message for browsers, made once (shared by all it goes to).
    pub fn msg(&self, kind: Kind, text: String) -> Arc<Msg> {
        Msg::new(&self.budget, kind, text)
    }

    /// Spectators connected now.
    pub fn spectators(&self) -> usize {
        self.members.values().filter(|m| self.role(&m.key) == Role::Spectator).count()
    }

    pub fn is_empty(&self) -> bool {
        self.members.is_empty()
    }

    pub fn len(&self) -> usize {
        self.members.len()
    }

    pub fn role(&self, key: &str) -> Role {
        if key == self.host_key {
            Role::Host
        } else if self.guest_key.as_deref() == Some(key) {
            Role::Guest
        } else {
            Role::Spectator
        }
    }

    pub fn member(&self, id: u64) -> Option<&Member> {
        self.members.get(&id)
    }

    pub fn ids(&self) -> Vec<u64> {
        self.members.keys().copied().collect()
    }

    /// True if a browser holding `key` is connected.
    pub fn connected(&self, key: &str) -> bool {
        self.members.values().any(|m| m.key == key)
    }

    /// A browser joins with the key it had (`me`), if any: a seat's key
    /// takes that seat (the browser that opened the table has the host's);
    /// anyone else watches, if the table has room for one more spectator
    /// (else it is told so and its connection ends: `None`). The guest's
    /// seat is one browser's: the newest to open its link takes it, and
    /// browsers that held it watch from then on (see [`Joined::demoted`]).
    pub fn join(&mut self, id: u64, outbox: Outbox, me: Option<&str>) -> Option<Joined> {
        let key = match me {
            Some(k) if k == self.host_key || self.guest_key.as_deref() == Some(k) => k.to_string(),
            _ => token(),
        };
        let role = self.role(&key);
        if role == Role::Spectator && self.spectators() >= self.max_spectators {
            let text = format!(
                "This table already has its most spectators ({}). Try again later, or ask the host to \
                 start meeple gui with a larger --max-spectators.",
                self.max_spectators
            );
            refuse(&self.budget, &outbox, text);
            return None;
        }
        let demoted = if role == Role::Guest { self.demote(&key) } else { Vec::new() };
        let label = match role {
            Role::Host => "Host".to_string(),
            Role::Guest => "Guest".to_string(),
            Role::Spectator => {
                self.spectators += 1;
                format!("Spectator {}", self.spectators)
            }
        };
        let name = match role {
            Role::Host => self.host_name.clone(),
            Role::Guest => self.guest_name.clone(),
            Role::Spectator => None,
        };
        self.members.insert(
            id,
            Member {
                outbox,
                key: key.clone(),
                name,
                label,
                chat_tokens: CHAT_BURST,
                chat_at: Instant::now(),
                me_sent: None,
            },
        );
        Some(Joined { key, role, demoted })
    }

    /// The browsers holding `key` now watch (a fresh key each); their ids.
    fn demote(&mut self, key: &str) -> Vec<u64> {
        let mut ids = Vec::new();
        for (id, m) in self.members.iter_mut() {
            if m.key == key {
                m.key = token();
                self.spectators += 1;
                m.label = format!("Spectator {}", self.spectators);
                ids.push(*id);
            }
        }
        ids.sort_unstable();
        ids
    }

    /// The browsers that hold `key` (a seat's, or a spectator's own).
    pub fn ids_with_key(&self, key: &str) -> Vec<u64> {
        let mut ids: Vec<u64> =
            self.members.iter().filter(|(_, m)| m.key == key).map(|(id, _)| *id).collect();
        ids.sort_unstable();
        ids
    }

    /// What a browser is told about itself: its role and name (the page's
    /// label follows them as they change).
    pub fn you(&self, id: u64) -> Option<Value> {
        let m = self.members.get(&id)?;
        Some(json!({"t": "you", "role": self.role(&m.key).text(), "name": m.shown()}))
    }

    pub fn leave(&mut self, id: u64) -> Option<Member> {
        self.members.remove(&id)
    }

    /// Sets a browser's name (already checked), and that of every browser
    /// with its key (a seat's holder in two windows); a seat keeps it.
    pub fn set_name(&mut self, id: u64, name: String) {
        let Some(key) = self.members.get(&id).map(|m| m.key.clone()) else { return };
        for m in self.members.values_mut().filter(|m| m.key == key) {
            m.name = Some(name.clone());
        }
        let role = self.role(&key);
        match role {
            Role::Host => self.host_name = Some(name),
            Role::Guest => self.guest_name = Some(name),
            Role::Spectator => {}
        }
    }

    /// The guest seat gets a new key (a new link); browsers holding the old
    /// one watch from now on. The new key and the browsers that watch now.
    pub fn new_guest_key(&mut self) -> (String, Vec<u64>) {
        let old = self.guest_key.replace(token());
        let demoted = old.map(|k| self.demote(&k)).unwrap_or_default();
        self.guest_name = None;
        (self.guest_key.clone().expect("set"), demoted)
    }

    /// Queues a message for one browser; one that does not read is
    /// dropped (its connection ends).
    pub fn send(&mut self, id: u64, m: &Arc<Msg>) {
        if let Some(b) = self.members.get(&id)
            && !b.outbox.push(m)
        {
            log::info!("gui: dropping browser {id}: it does not read");
            self.members.remove(&id);
        }
    }

    /// Queues a message for every browser (see [`Room::send`]).
    pub fn broadcast(&mut self, m: &Arc<Msg>) {
        let mut behind = Vec::new();
        for (id, b) in &self.members {
            if !b.outbox.push(m) {
                behind.push(*id);
            }
        }
        for id in behind {
            log::info!("gui: dropping browser {id}: it does not read");
            self.members.remove(&id);
        }
    }

    /// Sends a browser its own part of the state (`text`) if it changed
    /// since the last one it was sent.
    pub fn send_own(&mut self, id: u64, text: String) {
        let Some(b) = self.members.get_mut(&id) else { return };
        if b.me_sent.as_deref() == Some(text.as_str()) {
            return;
        }
        let m = Msg::new(&self.budget, Kind::Other, text.clone());
        b.me_sent = Some(text);
        self.send(id, &m);
    }

    /// The chat so far.
    pub fn chat(&self) -> Vec<Value> {
        self.chat.iter().cloned().collect()
    }

    /// A chat line from a browser, cleaned and within its rate; false if
    /// it was dropped (too fast or empty).
    pub fn say(&mut self, id: u64, text: &str) -> bool {
        let Some(m) = self.members.get_mut(&id) else { return false };
        let now = Instant::now();
        m.chat_tokens =
            (m.chat_tokens + now.duration_since(m.chat_at).as_secs_f64() * CHAT_PER_SECOND).min(CHAT_BURST);
        m.chat_at = now;
        let text: String = crate::text::clean(text).chars().take(CHAT_CHARS).collect();
        if text.trim().is_empty() || m.chat_tokens < 1.0 {
            return false;
        }
        m.chat_tokens -= 1.0;
        let from = m.shown();
        self.push_chat(json!({"from": from, "text": text}));
        true
    }

    /// A line from the table itself (joins, results).
    pub fn announce(&mut self, text: &str) {
        self.push_chat(json!({"from": "", "text": text}));
    }

    fn push_chat(&mut self, line: Value) {
        self.chat.push_back(line.clone());
        while self.chat.len() > CHAT_KEPT {
            self.chat.pop_front();
        }
        let mut m = line;
        m["t"] = json!("chat");
        let m = self.msg(Kind::Other, m.to_string());
        self.broadcast(&m);
    }
}

/// Tells a browser why it cannot come in, then ends its connection.
pub fn refuse(budget: &Arc<Budget>, outbox: &Outbox, text: String) {
    let m = json!({"t": "fatal", "text": text}).to_string();
    outbox.push(&Msg::new(budget, Kind::Other, m));
    outbox.close();
}

impl Default for Room {
    fn default() -> Self {
        Room::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn browser(room: &mut Room, id: u64, me: Option<&str>) -> (String, Role, OutboxRx) {
        let (o, rx) = outbox();
        let j = room.join(id, o, me).expect("room for a spectator");
        (j.key, j.role, rx)
    }

    #[test]
    fn seats_follow_their_keys() {
        let mut r = Room::new();
        let hk = r.host_key.clone();
        let (host, role, _h) = browser(&mut r, 1, Some(&hk));
        assert_eq!(role, Role::Host);
        let (_, role, _s) = browser(&mut r, 2, None);
        assert_eq!(role, Role::Spectator);
        let (guest, none) = r.new_guest_key();
        assert!(none.is_empty());
        let (k, role, _g) = browser(&mut r, 3, Some(&guest));
        assert_eq!((k.as_str(), role), (guest.as_str(), Role::Guest));
        // The host's key from another browser is the host.
        let (_, role, _h2) = browser(&mut r, 4, Some(&host));
        assert_eq!(role, Role::Host);
        // A name goes to every browser of the seat.
        r.set_name(4, "Host Two".into());
        assert_eq!(r.member(1).unwrap().name.as_deref(), Some("Host Two"));
        assert_eq!(r.you(1).unwrap(), json!({"t": "you", "role": "host", "name": "Host Two"}));
        // Freed: the old guest watches, its key no longer takes the seat.
        r.set_name(3, "Ann".into());
        assert_eq!(r.guest_name.as_deref(), Some("Ann"));
        let (fresh, demoted) = r.new_guest_key();
        assert_ne!(fresh, guest);
        assert_eq!(demoted, vec![3]);
        assert_eq!(r.role(&r.member(3).unwrap().key.clone()), Role::Spectator);
        assert_eq!(r.you(3).unwrap()["role"], "spectator");
        assert_eq!(r.guest_name, None);
        let (_, role, _x) = browser(&mut r, 5, Some(&guest));
        assert_eq!(role, Role::Spectator);
    }

    /// The guest's link opened in a second browser: the newest takes the
    /// seat, the one before watches (two browsers never hold it at once).
    #[test]
    fn the_newest_browser_with_the_guest_link_takes_the_seat() {
        let mut r = Room::new();
        let (guest, _) = r.new_guest_key();
        let (_, role, _a) = browser(&mut r, 1, Some(&guest));
        assert_eq!(role, Role::Guest);
        let (o, _b) = outbox();
        let j = r.join(2, o, Some(&guest)).unwrap();
        assert_eq!((j.role, j.demoted), (Role::Guest, vec![1]));
        assert_eq!(r.ids_with_key(&guest), vec![2]);
        assert_eq!(r.role(&r.member(1).unwrap().key.clone()), Role::Spectator);
        // The host's link in two browsers is the host in both.
        let hk = r.host_key.clone();
        let (_, _, _h1) = browser(&mut r, 3, Some(&hk));
        let (o, _h2) = outbox();
        let j = r.join(4, o, Some(&hk)).unwrap();
        assert_eq!((j.role, j.demoted), (Role::Host, vec![]));
        assert_eq!(r.ids_with_key(&hk), vec![3, 4]);
    }

    #[test]
    fn a_browser_that_does_not_read_is_dropped() {
        let mut r = Room::new();
        let (_, _, rx) = browser(&mut r, 1, None);
        let (_, _, _never) = browser(&mut r, 2, None);
        let m = r.msg(Kind::Other, "x".repeat(1000));
        for _ in 0..super::super::outbox::OUTBOX_MESSAGES + 10 {
            r.broadcast(&m);
            // Browser 1 reads as it goes.
            while rx.try_recv().is_some() {}
        }
        assert!(r.member(1).is_some());
        assert!(r.member(2).is_none());
    }

    #[tokio::test]
    async fn a_spectator_past_the_tables_limit_is_told_so() {
        let mut r = Room::bounded(Budget::unlimited(), 2);
        let hk = r.host_key.clone();
        let (_, _, _h) = browser(&mut r, 1, Some(&hk));
        let (_, _, _a) = browser(&mut r, 2, None);
        let (_, _, _b) = browser(&mut r, 3, None);
        let (o, rx) = outbox();
        assert!(r.join(4, o, None).is_none());
        let m = rx.recv().await.unwrap();
        assert!(m.text().contains("most spectators (2)"), "{}", m.text());
        assert!(rx.recv().await.is_none());
        // A seat is never refused; a spectator who leaves makes room.
        let (_, role, _h2) = browser(&mut r, 5, Some(&hk));
        assert_eq!(role, Role::Host);
        r.leave(2);
        let (_, role, _c) = browser(&mut r, 6, None);
        assert_eq!(role, Role::Spectator);
    }

    #[test]
    fn a_browsers_own_part_is_sent_only_when_it_changes() {
        let mut r = Room::new();
        let (_, _, rx) = browser(&mut r, 1, None);
        r.send_own(1, "a".into());
        r.send_own(1, "a".into());
        r.send_own(1, "b".into());
        let got: Vec<String> = std::iter::from_fn(|| rx.try_recv()).map(|m| m.text().to_string()).collect();
        assert_eq!(got, ["a", "b"]);
    }

    #[test]
    fn chat_is_cleaned_kept_and_rate_limited() {
        let mut r = Room::new();
        let hk = r.host_key.clone();
        let (_, _, _rx) = browser(&mut r, 1, Some(&hk));
        assert!(r.say(1, "hi\nthere"));
        assert_eq!(r.chat()[0]["text"], "hi there");
        assert_eq!(r.chat()[0]["from"], "Host");
        assert!(!r.say(1, "   "));
        let sent = (0..100).filter(|_| r.say(1, "spam")).count();
        assert!(sent < 10, "{sent}");
        for _ in 0..CHAT_KEPT + 5 {
            r.announce("x");
        }
        assert_eq!(r.chat().len(), CHAT_KEPT);
    }
}
