//! The session's options: the engine-wide ones and each game family's,
//! how a name given by a client finds its option, and how the lists are
//! printed for UHP's `options` and UCI's handshake.

use std::collections::BTreeMap;

use crate::options::{OptionKind, OptionSpec, OptionValue, OptionValues};
use crate::registry::{self, Family};

/// Engine-wide options. `default_type` is the game `--game` chose, the
/// default of `UCI_Variant`.
pub fn engine_options(default_type: &str) -> Vec<OptionSpec> {
    vec![
        OptionSpec::int(
            "Hash",
            256,
            1,
            16384,
            "transposition table size in MB, allocated when a search needs it",
        ),
        // In the browser (WebAssembly) the engine has one thread: the
        // option's maximum says so.
        OptionSpec::int("Threads", 1, 1, crate::threads::MAX_THREADS, "search threads"),
        OptionSpec::int(
            "Move Overhead",
            15,
            0,
            5000,
            "ms taken off every time limit, for the way to the client",
        ),
        OptionSpec::int("Seed", 0, 0, 1 << 53, "seed of all randomness; 0 = fresh at start"),
        OptionSpec::choice("Color", "auto", &["auto", "always", "never"], "ANSI colours in show"),
        OptionSpec::string("UCI_Variant", default_type, "game type of startpos, ucinewgame and newgame"),
    ]
}

/// Where an option lives: engine-wide (`None`) or in a family.
pub type Scope = Option<&'static str>;

/// Current option values of a session.
pub struct Settings {
    engine_specs: Vec<OptionSpec>,
    engine_values: OptionValues,
    family_values: BTreeMap<&'static str, OptionValues>,
    /// The family whose options `options` shows and unqualified names
    /// reach first (the current game's).
    pub family: Family,
}

impl Settings {
    pub fn new(default_type: &str, family: Family) -> Self {
        let engine_specs = engine_options(default_type);
        let engine_values = OptionValues::from_specs(&engine_specs);
        let family_values =
            registry::families().iter().map(|f| (f.name, OptionValues::from_specs(&f.options()))).collect();
        Settings { engine_specs, engine_values, family_values, family }
    }

    /// Engine-wide options.
    pub fn engine_specs(&self) -> &[OptionSpec] {
        &self.engine_specs
    }

    /// Engine-wide values.
    pub fn engine(&self) -> &OptionValues {
        &self.engine_values
    }

    /// A family's own values.
    pub fn family_values(&self, fam: Family) -> OptionValues {
        self.family_values.get(fam.name).cloned().unwrap_or_default()
    }

    /// Replaces a family's values (a loaded save's).
    pub fn set_family_values(&mut self, fam: Family, values: OptionValues) {
        self.family_values.insert(fam.name, values);
    }

    /// Engine values with a family's on top: what a player of that family
    /// reads.
    pub fn for_family(&self, fam: Family) -> OptionValues {
        let mut v = self.engine_values.clone();
        if let Some(f) = self.family_values.get(fam.name) {
            v.merge(f);
        }
        v
    }

    /// Finds an option: engine-wide, the current family's, qualified
    /// `Family.Name`, or the one other family that has that name.
    pub fn find(&self, name: &str) -> Option<(Scope, OptionSpec)> {
        let name = name.trim();
        if let Some(s) = self.engine_specs.iter().find(|s| s.name.eq_ignore_ascii_case(name)) {
            return Some((None, s.clone()));
        }
        let find = |fam: Family, short: &str| {
            fam.options()
                .into_iter()
                .find(|s| s.name.eq_ignore_ascii_case(short))
                .map(|s| (Some(fam.name), s))
        };
        if let Some((f, n)) = name.split_once('.') {
            return find(registry::family_by_name(f)?, n);
        }
        find(self.family, name).or_else(|| {
            let mut found = registry::families().into_iter().filter_map(|f| find(f, name));
            let first = found.next()?;
            found.next().is_none().then_some(first)
        })
    }

    pub fn value_of(&self, scope: Scope, spec: &OptionSpec) -> OptionValue {
        let v = match scope {
            None => self.engine_values.get(spec.name),
            Some(f) => self.family_values.get(f).and_then(|v| v.get(spec.name)),
        };
        v.cloned().unwrap_or_else(|| spec.default_value())
    }

    /// Stores a value already parsed and checked.
    pub fn store(&mut self, scope: Scope, spec: &OptionSpec, value: OptionValue) {
        match scope {
            None => self.engine_values.set(spec.name, value),
            Some(f) => self.family_values.entry(f).or_default().set(spec.name, value),
        }
    }

    /// UHP's `options`: the engine's, then the current family's.
    pub fn uhp_lines(&self) -> Vec<String> {
        let mut out: Vec<String> =
            self.engine_specs.iter().map(|s| s.uhp_line(&self.value_of(None, s))).collect();
        for s in self.family.options() {
            out.push(s.uhp_line(&self.value_of(Some(self.family.name), &s)));
        }
        out
    }

    /// UCI's `option name ...` lines: the engine's, the current family's
    /// by their short names, the other families' as `Family.Name`.
    pub fn uci_lines(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for s in &self.engine_specs {
            if s.name == "UCI_Variant" {
                let mut vars: Vec<String> = Vec::new();
                for f in registry::families() {
                    vars.extend(f.common_types.iter().map(|t| t.to_string()));
                }
                let cur = self.value_of(None, s).to_string();
                if !vars.contains(&cur) {
                    vars.insert(0, cur.clone());
                }
                let vars: Vec<String> = vars.iter().map(|v| format!("var {v}")).collect();
                out.push(format!("option name UCI_Variant type combo default {cur} {}", vars.join(" ")));
                continue;
            }
            out.push(uci_line(s.name, s, &self.value_of(None, s)));
        }
        for f in std::iter::once(self.family)
            .chain(registry::families().into_iter().filter(|f| f.name != self.family.name))
        {
            for s in f.options() {
                let name = if f.name == self.family.name {
                    s.name.to_string()
                } else {
                    format!("{}.{}", f.name, s.name)
                };
                out.push(uci_line(&name, &s, &self.value_of(Some(f.name), &s)));
            }
        }
        out
    }
}

/// One UCI `option` line; the current value is the advertised default.
fn uci_line(name: &str, spec: &OptionSpec, value: &OptionValue) -> String {
    match (&spec.kind, value) {
        (OptionKind::Bool { .. }, OptionValue::Bool(b)) => {
            format!("option name {name} type check default {b}")
        }
        (OptionKind::Int { min, max, .. }, v) => {
            format!("option name {name} type spin default {v} min {min} max {max}")
        }
        (OptionKind::Enum { choices, .. }, v) => {
            let vars: Vec<String> = choices.iter().map(|c| format!("var {c}")).collect();
            format!("option name {name} type combo default {v} {}", vars.join(" "))
        }
        (_, v) => {
            let v = v.to_string();
            format!("option name {name} type string default {}", if v.is_empty() { "<empty>" } else { &v })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_find_their_options() {
        let fam = registry::families()[0];
        let s = Settings::new("Connect4", fam);
        assert_eq!(s.find("hash").map(|(sc, o)| (sc, o.name)), Some((None, "Hash")));
        assert_eq!(s.find("move overhead").map(|(_, o)| o.name), Some("Move Overhead"));
        assert!(s.find("Nope.Strategy").is_none());
        let lines = s.uci_lines();
        assert!(lines.iter().any(|l| l == "option name Hash type spin default 256 min 1 max 16384"));
        assert!(lines.iter().any(|l| l.starts_with("option name UCI_Variant type combo default Connect4 ")));
        assert!(lines.iter().all(|l| l.starts_with("option name ")));
    }
}
