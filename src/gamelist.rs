//! `games json`: every registered game family with its game types, sides,
//! options and strategies, and the engine-wide options, as one line of
//! JSON (what a GUI needs to offer a choice of games and players).

use serde_json::{Value, json};

use crate::options::{OptionKind, OptionSpec};
use crate::registry;

/// One option as JSON: name, type, default, range or choices, help.
pub fn option_json(spec: &OptionSpec) -> Value {
    let mut v = match &spec.kind {
        OptionKind::Bool { default } => json!({"type": "bool", "default": default}),
        OptionKind::Int { default, min, max } => {
            json!({"type": "int", "default": default, "min": min, "max": max})
        }
        OptionKind::Enum { default, choices } => {
            json!({"type": "enum", "default": default, "choices": choices})
        }
        OptionKind::Str { default } => json!({"type": "string", "default": default}),
    };
    v["name"] = json!(spec.name);
    v["help"] = json!(spec.help);
    v
}

/// The `games json` line; `engine` are the engine-wide options.
pub fn games_json(engine: &[OptionSpec]) -> String {
    let games: Vec<Value> = registry::families()
        .iter()
        .map(|f| {
            let options = f.options();
            let sides = f.parse_type(f.default_type).and_then(Result::ok).map(|g| g.side_names());
            let strategies = options
                .iter()
                .find(|o| o.name == "Strategy")
                .and_then(|o| match &o.kind {
                    OptionKind::Enum { choices, .. } => Some(choices.clone()),
                    _ => None,
                })
                .unwrap_or_default();
            json!({
                "family": f.name,
                "default_type": f.default_type,
                "type_grammar": f.type_grammar,
                "sides": sides,
                "strategies": strategies,
                "options": options.iter().map(option_json).collect::<Vec<_>>(),
            })
        })
        .collect();
    let engine: Vec<Value> = engine.iter().map(option_json).collect();
    json!({"games": games, "engine": engine}).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_every_family_with_its_strategies() {
        let v: Value =
            serde_json::from_str(&games_json(&[OptionSpec::int("Hash", 256, 1, 16384, "h")])).unwrap();
        let games = v["games"].as_array().unwrap();
        assert_eq!(games.len(), registry::families().len());
        for g in games {
            assert!(!g["strategies"].as_array().unwrap().is_empty(), "{g}");
            assert_eq!(g["sides"].as_array().unwrap().len(), 2);
            assert!(registry::new_game(g["default_type"].as_str().unwrap()).is_ok());
        }
        assert_eq!(v["engine"][0]["max"], 16384);
    }
}
