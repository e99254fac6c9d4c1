//! The board after every ply of a game, kept for reviewing it, in a
//! compact form: from one ply to the next most of a `board json` is the
//! same (the cells nobody moved, the pieces in hand), so each board is
//! kept as its small fields plus references to its cells and large fields,
//! each distinct text stored once. A 3,000-ply Hive game takes a few MB
//! instead of the hundreds a `serde_json::Value` per ply took.
//!
//! Nothing here knows a game: a board is any JSON object; its `cells`
//! array (protocol.md section 12) is split into its elements, and any
//! other field longer than [`SHARED_FIELD`] bytes is shared whole.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::{Map, Value};

/// Plies kept; past it a game's later boards are not (it is reviewed up
/// to there).
pub const MAX_PLIES: usize = 10_000;
/// Bytes of distinct text kept; past it later boards are not.
pub const MAX_BYTES: usize = 32 << 20;
/// A field (other than `cells`) at least this long is stored once.
pub const SHARED_FIELD: usize = 64;

/// One board: its own fields, and the shared texts it is made of.
struct Kept {
    /// The small fields, as a JSON object's text.
    own: Box<str>,
    /// (field name, text id) of the large fields.
    fields: Box<[(u32, u32)]>,
    /// The text ids of its cells, in order.
    cells: Box<[u32]>,
    has_cells: bool,
}

/// The boards of a game, by ply.
#[derive(Default)]
pub struct Boards {
    boards: Vec<Kept>,
    /// Every distinct text (cells, large fields, field names), once.
    texts: Vec<Arc<str>>,
    ids: HashMap<Arc<str>, u32>,
    bytes: usize,
}

impl Boards {
    /// Boards kept (plies 0 to `len() - 1`).
    pub fn len(&self) -> usize {
        self.boards.len()
    }

    pub fn is_empty(&self) -> bool {
        self.boards.is_empty()
    }

    /// Bytes held (the texts and each board's own part).
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// Forgets every board.
    pub fn clear(&mut self) {
        *self = Boards::default();
    }

    /// Keeps the boards of plies up to `plies` (after an undo). The texts
    /// of the boards forgotten stay until [`Boards::clear`] (an undone
    /// position often comes back).
    pub fn truncate(&mut self, plies: usize) {
        self.boards.truncate(plies);
    }

    fn intern(&mut self, text: String) -> u32 {
        if let Some(&id) = self.ids.get(text.as_str()) {
            return id;
        }
        let id = self.texts.len() as u32;
        self.bytes += text.len();
        let t: Arc<str> = text.into();
        self.texts.push(t.clone());
        self.ids.insert(t, id);
        id
    }

    /// Keeps the board of the next ply; false if it is past the limits
    /// (or not an object), and then it is not kept.
    pub fn push(&mut self, board: &Value) -> bool {
        let Some(obj) = board.as_object() else { return false };
        if self.boards.len() >= MAX_PLIES || self.bytes >= MAX_BYTES {
            return false;
        }
        let mut own = Map::new();
        let mut fields = Vec::new();
        let mut cells = Vec::new();
        let mut has_cells = false;
        for (k, v) in obj {
            if k == "cells"
                && let Some(list) = v.as_array()
            {
                has_cells = true;
                cells = list.iter().map(|c| self.intern(c.to_string())).collect();
                continue;
            }
            let text = v.to_string();
            if text.len() >= SHARED_FIELD {
                let name = self.intern(k.clone());
                let id = self.intern(text);
                fields.push((name, id));
            } else {
                own.insert(k.clone(), v.clone());
            }
        }
        let own = Value::Object(own).to_string().into_boxed_str();
        self.bytes += own.len() + 8 * fields.len() + 4 * cells.len();
        self.boards.push(Kept { own, fields: fields.into(), cells: cells.into(), has_cells });
        true
    }

    /// The board after `ply` plies, if kept.
    pub fn get(&self, ply: usize) -> Option<Value> {
        let k = self.boards.get(ply)?;
        let mut obj = match serde_json::from_str::<Value>(&k.own) {
            Ok(Value::Object(m)) => m,
            _ => Map::new(),
        };
        for &(name, id) in k.fields.iter() {
            let v = serde_json::from_str(&self.texts[id as usize]).unwrap_or(Value::Null);
            obj.insert(self.texts[name as usize].to_string(), v);
        }
        if k.has_cells {
            let cells = k
                .cells
                .iter()
                .map(|&id| serde_json::from_str(&self.texts[id as usize]).unwrap_or(Value::Null))
                .collect();
            obj.insert("cells".into(), Value::Array(cells));
        }
        Some(Value::Object(obj))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn board(ply: usize, moved: usize) -> Value {
        let cells: Vec<Value> = (0..60)
            .map(|i| {
                let pieces = if i == moved {
                    json!([{"id": "wA1", "side": 0, "label": "A", "colour": "#1e88e5", "name": "White Soldier Ant 1"}])
                } else {
                    json!([])
                };
                json!({"id": format!("{i},0"), "x": i, "y": 0, "pieces": pieces})
            })
            .collect();
        json!({"family": "Hive", "game_type": "Base", "sides": ["White", "Black"], "turn": ply % 2,
            "state": "InProgress", "ply": ply, "geometry": {"kind": "hex"}, "cells": cells,
            "hands": [[{"id": "wQ", "side": 0, "label": "Q", "colour": "#f4b400", "name": "White Queen Bee"}], []],
            "caption": format!("{} to move", ["White", "Black"][ply % 2])})
    }

    #[test]
    fn every_board_comes_back_as_it_was_and_shared_parts_are_kept_once() {
        let mut b = Boards::default();
        let all: Vec<Value> = (0..3000).map(|p| board(p, p % 60)).collect();
        for x in &all {
            assert!(b.push(x));
        }
        for p in [0, 1, 59, 60, 1234, 2999] {
            assert_eq!(b.get(p).unwrap(), all[p], "ply {p}");
        }
        assert_eq!(b.get(3000), None);
        let whole: usize = all.iter().map(|x| x.to_string().len()).sum();
        assert!(b.bytes() * 5 < whole, "{} bytes kept for {whole}", b.bytes());
        b.truncate(10);
        assert_eq!(b.len(), 10);
        assert_eq!(b.get(9).unwrap(), all[9]);
        assert!(!b.push(&json!("not a board")));
    }
}
