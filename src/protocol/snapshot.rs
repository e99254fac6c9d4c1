//! A session's state as the protocol lines that rebuild it: the options
//! changed from their defaults, the game (its GameString with any hidden
//! secret, so `undo` and a codemaker's secret survive) and the dialect.
//! The web worker replays them into a fresh engine when it is restarted
//! (the fallback `stop` where the page cannot share a stop flag, or a
//! crash), its output discarded; `save` writes the same game text.

use std::io::Write;

use super::dialect::Dialect;
use super::session::Session;
use crate::registry;
use crate::saves::Saves;

impl<W: Write + Send + 'static> Session<W> {
    /// The lines that bring a fresh session (of the same configuration, in
    /// meeple's own dialect, idle) to this one's state.
    pub fn restore_lines(&self) -> Vec<String> {
        let mut lines = Vec::new();
        for spec in self.settings.engine_specs() {
            let v = self.settings.value_of(None, spec);
            if v != spec.default_value() {
                lines.push(format!("setoption name {} value {v}", spec.name));
            }
        }
        for fam in registry::families() {
            for spec in fam.options() {
                let v = self.settings.value_of(Some(fam.name), &spec);
                if v != spec.default_value() {
                    lines.push(format!("setoption name {}.{} value {v}", fam.name, spec.name));
                }
            }
        }
        if let Some(g) = self.game_with_secret() {
            lines.push(format!("newgame {g}"));
        }
        match self.dialect {
            Dialect::Meeple => {}
            Dialect::Uci => lines.push("uci".into()),
            Dialect::Ugi => lines.push("ugi".into()),
        }
        lines
    }

    /// The current game's GameString with its hidden part (a secret
    /// mid-game), as a save keeps it.
    pub(super) fn game_with_secret(&self) -> Option<String> {
        let g = self.game.as_ref()?;
        let mut game = g.game_string();
        if let Some(extra) = g.private_extra()
            && !game.ends_with(&format!(";{extra}"))
        {
            game.push(';');
            game.push_str(&extra);
        }
        Some(game)
    }

    /// Keeps the saves in `saves` from now on (the browser's storage; see
    /// [`crate::saves::MemoryStore`]).
    pub fn set_saves(&mut self, saves: Saves) {
        self.saves = saves;
    }
}

#[cfg(test)]
mod tests {
    use super::super::session::SessionConfig;
    use super::*;

    fn session() -> Session<Vec<u8>> {
        Session::new(Vec::new(), SessionConfig::default())
    }

    fn run(s: &mut Session<Vec<u8>>, lines: &[&str]) -> String {
        for l in lines {
            s.handle_line(l);
            s.wait_search();
        }
        let out = s.output();
        let mut o = out.lock().unwrap();
        String::from_utf8(std::mem::take(&mut *o)).unwrap()
    }

    /// Replayed into a fresh session, the lines give the same game (with
    /// its secret and history), options and dialect.
    #[test]
    fn the_lines_rebuild_the_session() {
        let mut a = session();
        assert!(session().restore_lines().is_empty(), "a fresh session needs nothing");
        run(
            &mut a,
            &[
                "setoption name Move Overhead value 40",
                "setoption name Hive.Depth value 5",
                "newgame Mastermind",
                "setoption name Strategy value knuth",
                "setoption name Secret value 3456",
                "newgame Mastermind",
                "setoption name Secret value",
                "play 1122",
            ],
        );
        let secret = a.game_with_secret().unwrap();
        assert!(secret.contains("Secret="), "{secret}");
        run(&mut a, &["uci"]);
        let lines = a.restore_lines();
        let mut b = session();
        let texts: Vec<&str> = lines.iter().map(String::as_str).collect();
        run(&mut b, &texts);
        assert_eq!(b.game_with_secret(), a.game_with_secret(), "{lines:?}");
        assert_eq!(b.dialect, Dialect::Uci);
        assert_eq!(b.restore_lines(), lines);
        // The history came along: `undo` works in the copy.
        let out = run(&mut b, &["position startpos", "isready"]);
        assert!(out.contains("readyok"), "{out}");
    }
}
