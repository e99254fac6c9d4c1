//! Text that goes on a protocol line: user input, file contents and
//! messages made printable and short, so that no text can start a line of
//! its own. The lowest room of the house: it names nothing of the crate.

/// `s` with every control character (newline, carriage return, escape,
/// ...) shown as `?`: safe to put on one protocol line.
pub fn printable(s: &str) -> String {
    s.chars().map(|c| if c.is_control() { '?' } else { c }).collect()
}

/// At most 100 characters of user text in a message, control characters
/// shown as `?` (a message is one protocol line).
pub fn clip(s: &str) -> String {
    let mut c: String = s.chars().take(100).map(|c| if c.is_control() { '?' } else { c }).collect();
    if c.len() < s.len() {
        c.push_str("...");
    }
    c
}

/// Makes `s` safe to print as (part of) one protocol line: line breaks and
/// tabs become spaces, other control characters `?`.
pub fn clean(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            '\n' | '\r' | '\t' => ' ',
            c if c.is_control() => '?',
            c => c,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clean_keeps_one_line() {
        assert_eq!(clean("a\nok\rb\u{1b}[31m\u{0}é"), "a ok b?[31m?é");
    }

    #[test]
    fn printable_and_clip() {
        assert_eq!(printable("a\nb\u{1b}"), "a?b?");
        assert_eq!(clip("x\ny"), "x?y");
        let long = "é".repeat(150);
        let c = clip(&long);
        assert_eq!(c.chars().count(), 103);
        assert!(c.ends_with("..."));
    }
}
