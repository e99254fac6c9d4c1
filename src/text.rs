//! Text that goes on a protocol line: user input, file contents and
//! messages made printable and short, so that no text can start a line of
//! its own. The lowest room of the house: it names nothing of the crate.
//!
//! A line break is anything a reader may take for the end of a line: LF,
//! CR, VT, FF, NEL (U+0085), and the Unicode LINE and PARAGRAPH SEPARATORS
//! (U+2028, U+2029), which terminals, editors and JSON consumers treat as
//! line breaks though Rust's `char::is_control` does not count the last
//! two. None of them ever reaches stdout raw.

/// True for the characters some reader takes for the end of a line.
pub fn is_line_break(c: char) -> bool {
    matches!(c, '\n' | '\r' | '\u{0B}' | '\u{0C}' | '\u{85}' | '\u{2028}' | '\u{2029}')
}

/// True for what must never be printed raw on a protocol line: control
/// characters and line breaks.
pub fn is_unprintable(c: char) -> bool {
    c.is_control() || is_line_break(c)
}

/// `s` with every control character and line break (newline, carriage
/// return, escape, U+2028, ...) shown as `?`: safe to put on one protocol
/// line.
pub fn printable(s: &str) -> String {
    s.chars().map(|c| if is_unprintable(c) { '?' } else { c }).collect()
}

/// At most 100 characters of user text in a message, control characters
/// and line breaks shown as `?` (a message is one protocol line).
pub fn clip(s: &str) -> String {
    let mut c: String = s.chars().take(100).map(|c| if is_unprintable(c) { '?' } else { c }).collect();
    if s.chars().nth(100).is_some() {
        c.push_str("...");
    }
    c
}

/// Makes `s` safe to print as (part of) one protocol line: line breaks and
/// tabs become spaces, other control characters `?`.
pub fn clean(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            '\t' => ' ',
            c if is_line_break(c) => ' ',
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

    /// Issue 27 item 3: the Unicode separators were echoed raw.
    #[test]
    fn unicode_separators_are_line_breaks() {
        let s = "4\u{2028}ok\u{2029}err\u{85}bestmove\u{0B}x\u{0C}y";
        assert_eq!(clean(s), "4 ok err bestmove x y");
        assert_eq!(printable(s), "4?ok?err?bestmove?x?y");
        assert_eq!(clip(s), "4?ok?err?bestmove?x?y");
        for f in [clean, printable, clip] {
            let out = f(s);
            assert!(!out.chars().any(is_unprintable), "{out:?}");
            // Every way a reader splits lines sees one line.
            assert_eq!(out.lines().count(), 1);
        }
        // Other text is untouched (a NBSP and an ideographic space are
        // not line breaks).
        assert_eq!(clean("a\u{a0}b\u{3000}é"), "a\u{a0}b\u{3000}é");
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
