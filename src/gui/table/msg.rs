//! What a browser asks of its table ([`ClientMsg`], JSON with a tag `t`)
//! and the players and engine settings a new game is set up with.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::gui::clock::TimeControl;

/// A side's player, as the page sets it up.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
pub struct PlayerCfg {
    /// `human` or `engine`.
    pub kind: String,
    /// Engine: its strategy.
    #[serde(default)]
    pub strategy: String,
    /// A person's name (a local game; a networked seat's holder names it).
    #[serde(default)]
    pub name: String,
    /// Engine: `go movetime` in ms (when neither `depth` nor a clock).
    #[serde(default)]
    pub movetime: Option<u64>,
    /// Engine: `go depth`.
    #[serde(default)]
    pub depth: Option<u32>,
    /// The side's time control (an engine with a clock plays by it).
    #[serde(default)]
    pub time: TimeControl,
}

impl PlayerCfg {
    pub fn human() -> Self {
        PlayerCfg {
            kind: "human".into(),
            strategy: String::new(),
            name: String::new(),
            movetime: None,
            depth: None,
            time: TimeControl::None,
        }
    }

    pub fn is_engine(&self) -> bool {
        self.kind == "engine"
    }

    /// An engine's `go` limit, also its level in the results (`depth 6`,
    /// `movetime 300`, `clock 5+3`).
    pub fn limit(&self) -> String {
        match (self.time, self.depth) {
            (TimeControl::Clock { .. }, _) => format!("clock {}", self.time.text()),
            (TimeControl::Move { ms }, _) => format!("movetime {ms}"),
            (_, Some(d)) => format!("depth {d}"),
            _ => format!("movetime {}", self.movetime.unwrap_or(1000).clamp(1, 3_600_000)),
        }
    }
}

/// Engine-wide settings of a new game.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
pub struct EngineCfg {
    #[serde(default)]
    pub threads: Option<u32>,
    #[serde(default)]
    pub hash: Option<u32>,
}

/// What a browser asks (parsed and handled at once, so the size of `New`
/// costs nothing).
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Deserialize, PartialEq)]
#[serde(tag = "t", rename_all = "lowercase")]
pub enum ClientMsg {
    /// A new game (or a match of `rounds`); `game_type` may be a GameString
    /// (a position to set up). `family` is the family the form was filled
    /// in for: a GameString of another family takes that family's defaults
    /// (see [`super::lineup::for_pasted_family`]); without it, options and
    /// strategies must be the game's.
    New {
        game_type: String,
        #[serde(default)]
        family: Option<String>,
        #[serde(default)]
        options: BTreeMap<String, String>,
        players: [PlayerCfg; 2],
        #[serde(default)]
        pause: u64,
        #[serde(default)]
        rounds: Option<u32>,
        /// Loss on time.
        #[serde(default)]
        flag: bool,
        #[serde(default)]
        engine: EngineCfg,
    },
    Play {
        #[serde(rename = "move")]
        mv: String,
    },
    Undo,
    Stop,
    Resume,
    Abandon,
    Resign,
    /// The next round of a match.
    Next,
    Save {
        name: String,
    },
    Load {
        name: String,
    },
    Saves,
    /// Share the table: the host plays `side` (in the first round).
    Invite {
        side: usize,
    },
    /// The guest seat gets a new link; whoever held it watches.
    Free,
    Chat {
        text: String,
    },
    Name {
        name: String,
    },
    /// One level of the move tree below `prefix` (actions), at `ply`.
    Tree {
        ply: usize,
        #[serde(default)]
        prefix: Vec<String>,
    },
    /// Analyse the position after `ply` plies (default: the current one).
    Analyze {
        #[serde(default)]
        ply: Option<usize>,
    },
    /// The board after `ply` plies of this game (reviewing it).
    Review {
        ply: usize,
    },
    /// Judge every move of the game so far (the engine's `review`), each
    /// position within `limit` (`movetime 200`; empty: the game's own).
    Judge {
        #[serde(default)]
        limit: String,
    },
    /// Stop the review running (what it judged stays).
    JudgeStop,
    /// The board before ply `ply` with the review's better move played.
    Better {
        ply: usize,
    },
    Leaderboard {
        #[serde(default)]
        game: Option<String>,
        #[serde(default)]
        vs: Option<String>,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn client_messages_parse() {
        let m: ClientMsg = serde_json::from_str(r#"{"t":"play","move":"wA1 -bQ"}"#).unwrap();
        assert_eq!(m, ClientMsg::Play { mv: "wA1 -bQ".into() });
        let m: ClientMsg = serde_json::from_str(
            r#"{"t":"new","game_type":"Connect4","players":[{"kind":"human","name":"Ann","time":{"kind":"clock","base":60000,"inc":1000}},{"kind":"engine","strategy":"perfect","movetime":300}],"flag":true}"#,
        )
        .unwrap();
        match m {
            ClientMsg::New { players, pause, flag, rounds, .. } => {
                assert!(players[1].is_engine() && players[1].movetime == Some(300));
                assert_eq!(players[1].limit(), "movetime 300");
                assert_eq!(players[0].time, TimeControl::Clock { base: 60_000, inc: 1000 });
                assert_eq!(pause, 0);
                assert!(flag);
                assert_eq!(rounds, None);
            }
            _ => panic!("{m:?}"),
        }
        assert!(serde_json::from_str::<ClientMsg>(r#"{"t":"rm -rf"}"#).is_err());
        let m: ClientMsg = serde_json::from_str(r#"{"t":"tree","ply":3,"prefix":["1","2"]}"#).unwrap();
        assert_eq!(m, ClientMsg::Tree { ply: 3, prefix: vec!["1".into(), "2".into()] });
        let m: ClientMsg = serde_json::from_str(r#"{"t":"judge","limit":"movetime 200"}"#).unwrap();
        assert_eq!(m, ClientMsg::Judge { limit: "movetime 200".into() });
        let m: ClientMsg = serde_json::from_str(r#"{"t":"judgestop"}"#).unwrap();
        assert_eq!(m, ClientMsg::JudgeStop);
    }

    #[test]
    fn engine_levels_are_their_go_limits() {
        let mut p = PlayerCfg::human();
        p.kind = "engine".into();
        assert_eq!(p.limit(), "movetime 1000");
        p.depth = Some(6);
        assert_eq!(p.limit(), "depth 6");
        p.time = TimeControl::Clock { base: 300_000, inc: 3000 };
        assert_eq!(p.limit(), "clock 5+3");
        // A base of seconds is written in minutes and seconds, in the
        // page and the results alike.
        p.time = TimeControl::Clock { base: 10_000, inc: 0 };
        assert_eq!(p.limit(), "clock 0:10+0");
        p.time = TimeControl::Move { ms: 2000 };
        assert_eq!(p.limit(), "movetime 2000");
    }
}
