//! Replies the table awaits from its engine for one browser (a level of
//! the move tree, a save, the list of saves), sent in their turn after
//! whatever the engine is doing.

use serde_json::{Value, json};

use crate::gui::client::Failure;

/// A reply awaited for a browser.
pub enum Waiting {
    Tree {
        client: u64,
        ply: usize,
        prefix: Vec<String>,
    },
    /// `save`, sent when the table showed `game_string`.
    Save {
        client: u64,
        game_string: String,
    },
    Saves {
        client: u64,
    },
}

impl Waiting {
    /// The browser waiting.
    pub fn client(&self) -> u64 {
        match self {
            Waiting::Tree { client, .. } | Waiting::Save { client, .. } | Waiting::Saves { client } => {
                *client
            }
        }
    }

    /// The message answering the browser, from the engine's reply.
    pub fn answer(self, reply: Result<Vec<String>, Failure>) -> Value {
        let lines = match reply {
            Ok(l) => l,
            Err(e) => return json!({"t": "error", "text": e.to_string()}),
        };
        match self {
            Waiting::Tree { ply, prefix, .. } => {
                let node: Value =
                    lines.last().and_then(|l| serde_json::from_str(l).ok()).unwrap_or(Value::Null);
                json!({"t": "tree", "ply": ply, "prefix": prefix, "node": node})
            }
            Waiting::Save { game_string, .. } => {
                json!({"t": "notice", "text": lines.join(" "), "game_string": game_string})
            }
            Waiting::Saves { .. } => json!({"t": "saves", "list": lines}),
        }
    }
}

/// Checks a prefix of move-tree actions asked for by a browser.
pub fn check_prefix(prefix: &[String]) -> Result<(), String> {
    if prefix.len() > 64
        || prefix.iter().any(|a| a.is_empty() || a.len() > 64 || a.contains(char::is_whitespace))
    {
        return Err("bad move tree prefix".into());
    }
    Ok(())
}

/// A save name: one word of letters, digits, `-` and `_`.
pub fn one_word(name: &str) -> Result<&str, String> {
    let n = name.trim();
    if n.is_empty() || n.len() > 64 || !n.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_') {
        return Err("a save name is one word of letters, digits, - and _".into());
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn save_names_are_one_plain_word() {
        assert_eq!(one_word(" game_1 "), Ok("game_1"));
        assert!(one_word("../x").is_err());
        assert!(one_word("a b").is_err());
        assert!(one_word("").is_err());
    }

    #[test]
    fn replies_reach_their_browser_in_words() {
        let w = Waiting::Tree { client: 3, ply: 2, prefix: vec!["1".into()] };
        assert_eq!(w.client(), 3);
        let m = w.answer(Ok(vec![r#"{"children":[]}"#.into()]));
        assert_eq!(
            (m["t"].as_str(), m["node"]["children"].as_array().map(Vec::len)),
            (Some("tree"), Some(0))
        );
        let m = Waiting::Saves { client: 1 }.answer(Err(Failure::Gone("gone".into())));
        assert_eq!(m, json!({"t": "error", "text": "gone"}));
        assert!(check_prefix(&["a b".into()]).is_err());
        assert!(check_prefix(&["1".into(), "2".into()]).is_ok());
    }
}
