//! Typed engine options: one registry shared by UCI's `setoption` and UHP's
//! `options` commands.

use std::collections::BTreeMap;
use std::fmt;

/// The type, default and allowed values of one option.
#[derive(Clone, Debug, PartialEq)]
pub enum OptionKind {
    Bool { default: bool },
    Int { default: i64, min: i64, max: i64 },
    Enum { default: &'static str, choices: Vec<&'static str> },
    Str { default: String },
}

/// Declaration of one option.
#[derive(Clone, Debug, PartialEq)]
pub struct OptionSpec {
    pub name: &'static str,
    pub kind: OptionKind,
    pub help: &'static str,
}

impl OptionSpec {
    pub fn bool(name: &'static str, default: bool, help: &'static str) -> Self {
        OptionSpec { name, kind: OptionKind::Bool { default }, help }
    }
    pub fn int(name: &'static str, default: i64, min: i64, max: i64, help: &'static str) -> Self {
        OptionSpec { name, kind: OptionKind::Int { default, min, max }, help }
    }
    pub fn choice(
        name: &'static str,
        default: &'static str,
        choices: &[&'static str],
        help: &'static str,
    ) -> Self {
        OptionSpec { name, kind: OptionKind::Enum { default, choices: choices.to_vec() }, help }
    }
    pub fn string(name: &'static str, default: &str, help: &'static str) -> Self {
        OptionSpec { name, kind: OptionKind::Str { default: default.to_string() }, help }
    }

    pub fn default_value(&self) -> OptionValue {
        match &self.kind {
            OptionKind::Bool { default } => OptionValue::Bool(*default),
            OptionKind::Int { default, .. } => OptionValue::Int(*default),
            OptionKind::Enum { default, .. } => OptionValue::Enum(default.to_string()),
            OptionKind::Str { default } => OptionValue::Str(default.clone()),
        }
    }

    /// Parses and range-checks a value given as text.
    /// A value holding a control character or a line break (newline,
    /// carriage return, escape, U+2028, ...) is refused: option values are
    /// echoed on protocol lines.
    pub fn parse_value(&self, text: &str) -> Result<OptionValue, String> {
        let text = text.trim();
        if text.chars().any(crate::text::is_unprintable) {
            return Err(format!(
                "option {} value '{}' holds a control character or a line break",
                self.name,
                crate::text::printable(text)
            ));
        }
        match &self.kind {
            OptionKind::Bool { .. } => match text.to_ascii_lowercase().as_str() {
                "true" | "1" | "on" | "yes" => Ok(OptionValue::Bool(true)),
                "false" | "0" | "off" | "no" => Ok(OptionValue::Bool(false)),
                _ => Err(format!("option {} takes True or False, not '{text}'", self.name)),
            },
            OptionKind::Int { min, max, .. } => {
                let v: i64 = text
                    .parse()
                    .map_err(|_| format!("option {} takes an integer, not '{text}'", self.name))?;
                if v < *min || v > *max {
                    return Err(format!("option {} must be within {min}..{max}, not {v}", self.name));
                }
                Ok(OptionValue::Int(v))
            }
            OptionKind::Enum { choices, .. } => choices
                .iter()
                .find(|c| c.eq_ignore_ascii_case(text))
                .map(|c| OptionValue::Enum(c.to_string()))
                .ok_or_else(|| {
                    format!("option {} takes one of {}, not '{text}'", self.name, choices.join(", "))
                }),
            // UCI's word for the empty string (`option ... default <empty>`).
            OptionKind::Str { .. } if text.eq_ignore_ascii_case("<empty>") => {
                Ok(OptionValue::Str(String::new()))
            }
            OptionKind::Str { .. } => Ok(OptionValue::Str(text.to_string())),
        }
    }

    /// UHP's line format: `Name;type;Value;Default[;Min;Max | ;Choices...]`.
    pub fn uhp_line(&self, value: &OptionValue) -> String {
        match &self.kind {
            OptionKind::Bool { default } => {
                format!("{};bool;{};{}", self.name, value, OptionValue::Bool(*default))
            }
            OptionKind::Int { default, min, max } => {
                format!("{};int;{};{};{};{}", self.name, value, default, min, max)
            }
            OptionKind::Enum { default, choices } => {
                format!("{};enum;{};{};{}", self.name, value, default, choices.join(";"))
            }
            OptionKind::Str { default } => format!("{};string;{};{}", self.name, value, default),
        }
    }
}

/// A value of an option.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OptionValue {
    Bool(bool),
    Int(i64),
    Enum(String),
    Str(String),
}

impl fmt::Display for OptionValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OptionValue::Bool(true) => f.write_str("True"),
            OptionValue::Bool(false) => f.write_str("False"),
            OptionValue::Int(v) => write!(f, "{v}"),
            OptionValue::Enum(s) | OptionValue::Str(s) => f.write_str(s),
        }
    }
}

/// Current values of a set of options, looked up by name
/// (case-insensitive). Players read their settings from here.
#[derive(Clone, Debug, Default)]
pub struct OptionValues {
    values: BTreeMap<String, OptionValue>,
}

impl OptionValues {
    pub fn from_specs<'a>(specs: impl IntoIterator<Item = &'a OptionSpec>) -> Self {
        let mut v = OptionValues::default();
        for s in specs {
            v.set(s.name, s.default_value());
        }
        v
    }
    pub fn set(&mut self, name: &str, value: OptionValue) {
        self.values.insert(name.to_ascii_lowercase(), value);
    }
    pub fn get(&self, name: &str) -> Option<&OptionValue> {
        self.values.get(&name.to_ascii_lowercase())
    }
    pub fn get_int(&self, name: &str) -> Option<i64> {
        match self.get(name)? {
            OptionValue::Int(v) => Some(*v),
            _ => None,
        }
    }
    pub fn get_bool(&self, name: &str) -> Option<bool> {
        match self.get(name)? {
            OptionValue::Bool(v) => Some(*v),
            _ => None,
        }
    }
    pub fn get_str(&self, name: &str) -> Option<&str> {
        match self.get(name)? {
            OptionValue::Enum(s) | OptionValue::Str(s) => Some(s),
            _ => None,
        }
    }
    /// Copies every value of `other` into `self` (other wins).
    pub fn merge(&mut self, other: &OptionValues) {
        for (k, v) in &other.values {
            self.values.insert(k.clone(), v.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_checks_values() {
        let i = OptionSpec::int("Depth", 8, 1, 42, "");
        assert_eq!(i.parse_value("12"), Ok(OptionValue::Int(12)));
        assert!(i.parse_value("0").is_err());
        assert!(i.parse_value("x").is_err());
        let e = OptionSpec::choice("Strategy", "attack", &["random", "attack"], "");
        assert_eq!(e.parse_value("RANDOM"), Ok(OptionValue::Enum("random".into())));
        assert!(e.parse_value("perfect").is_err());
        let b = OptionSpec::bool("Weak", false, "");
        assert_eq!(b.parse_value("true"), Ok(OptionValue::Bool(true)));
        assert!(b.parse_value("maybe").is_err());
    }

    /// Issue 10 item 8: `value x\rok\ry` was accepted and echoed.
    #[test]
    fn control_characters_are_refused() {
        let s = OptionSpec::string("Secret", "", "");
        assert_eq!(s.parse_value("1234"), Ok(OptionValue::Str("1234".into())));
        assert_eq!(s.parse_value("é٤"), Ok(OptionValue::Str("é٤".into())));
        // A string option can be emptied again, as UCI writes it.
        assert_eq!(s.parse_value("<empty>"), Ok(OptionValue::Str(String::new())));
        assert_eq!(s.parse_value(""), Ok(OptionValue::Str(String::new())));
        for bad in ["x\rok\ry", "a\nok", "\u{1b}[2J", "a\u{0}b", "a\u{85}b"] {
            let e = s.parse_value(bad).unwrap_err();
            assert!(e.contains("control character") && !e.chars().any(char::is_control), "{e:?}");
        }
        let i = OptionSpec::int("Depth", 8, 1, 42, "");
        assert!(!i.parse_value("1\r2").unwrap_err().chars().any(char::is_control));
    }

    #[test]
    fn uhp_lines() {
        let i = OptionSpec::int("Hash", 64, 1, 16384, "");
        assert_eq!(i.uhp_line(&OptionValue::Int(32)), "Hash;int;32;64;1;16384");
        let e = OptionSpec::choice("Strategy", "attack", &["random", "attack"], "");
        assert_eq!(e.uhp_line(&e.default_value()), "Strategy;enum;attack;attack;random;attack");
        let b = OptionSpec::bool("Weak", false, "");
        assert_eq!(b.uhp_line(&OptionValue::Bool(true)), "Weak;bool;True;False");
    }
}
