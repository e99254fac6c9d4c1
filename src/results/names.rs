//! People's names: which characters a name may hold, and when two names are
//! the same person. Everything comes from Unicode's own data (ICU4X's
//! `icu_properties`, `icu_normalizer` and `icu_casemap`), not from a list of
//! characters made by hand.
//!
//! **Allowed** (by General_Category, after NFC): letters (L*), marks (M*),
//! digits and other numbers (N*), punctuation (P*), symbols (S*), and spaces
//! (Zs) between words: every space character becomes one U+0020 and runs of
//! them one. Symbols are safe here: a name is shown as text, never
//! interpreted. **Refused**: control characters (Cc), format characters
//! (Cf: bidirectional overrides, zero-width joiners, tag characters...),
//! line and paragraph separators (Zl, Zp), surrogates, private-use and
//! unassigned code points, every Default_Ignorable_Code_Point (invisible by
//! definition, whatever its category: the soft hyphen U+00AD, the combining
//! grapheme joiner U+034F, variation selectors U+FE0F and U+180B, U+17B4,
//! the Hangul fillers), more than [`MAX_MARKS_IN_A_ROW`] marks in a row (a
//! stack that spills over the lines around it), and a name that starts with
//! a mark.
//!
//! **Blank letters.** Some characters are letters or symbols and yet draw
//! nothing: the Hangul fillers U+115F, U+1160, U+3164 and U+FFA0 (letters,
//! Lo, that only hold a place in a jamo sequence; they are also
//! Default_Ignorable) and the Braille blank U+2800 (a symbol, So: the
//! pattern with no dot, which is not Default_Ignorable). They are named in
//! [`BLANK`] and refused, so that no name can render blank or hide a blank
//! part.
//!
//! **The same person.** Two names are one person when they are equal after
//! compatibility caseless matching (the Unicode Standard, definition D146:
//! `NFKD(toCasefold(NFKD(toCasefold(NFD(X)))))`, full case folding), with
//! Default_Ignorable code points dropped and spaces made one U+0020 first.
//! So `Ann`, `ANN`, `ann`, `Ａｎｎ` (full width) and `𝐀𝐧𝐧` (mathematical
//! bold) are one person, `é` composed and decomposed are one, `Straße` and
//! `STRASSE` are one. [`fold`] is that key; it is what the database keeps
//! unique (`person.fold`).

use icu_casemap::CaseMapper;
use icu_normalizer::{ComposingNormalizer, DecomposingNormalizer};
use icu_properties::props::{DefaultIgnorableCodePoint, GeneralCategory, GeneralCategoryGroup};
use icu_properties::{CodePointMapData, CodePointSetData};

use crate::text::clip;

/// Longest name of a person, in characters (after NFC).
pub const MAX_NAME_CHARS: usize = 40;

/// Most marks (M*) allowed in a row after NFC: enough for every script's
/// stacks (a Hebrew letter with dagesh, vowel and cantillation; Thai or
/// Vietnamese tone marks), too few for a stack that covers other lines.
pub const MAX_MARKS_IN_A_ROW: usize = 4;

/// Letters and symbols that draw nothing (see the module's text): the
/// Hangul fillers (Lo, also Default_Ignorable) and the Braille blank (So).
pub const BLANK: [char; 5] = ['\u{115F}', '\u{1160}', '\u{3164}', '\u{FFA0}', '\u{2800}'];

fn category(c: char) -> GeneralCategory {
    CodePointMapData::<GeneralCategory>::new().get(c)
}

fn is_default_ignorable(c: char) -> bool {
    CodePointSetData::new::<DefaultIgnorableCodePoint>().contains(c)
}

fn is_space(c: char) -> bool {
    GeneralCategoryGroup::SpaceSeparator.contains(category(c))
}

/// What is wrong with a character in a name, if anything.
fn refusal(c: char) -> Option<&'static str> {
    if BLANK.contains(&c) {
        return Some("a character that shows as blank");
    }
    if is_default_ignorable(c) {
        return Some("an invisible character");
    }
    let gc = category(c);
    let allowed = [
        GeneralCategoryGroup::Letter,
        GeneralCategoryGroup::Mark,
        GeneralCategoryGroup::Number,
        GeneralCategoryGroup::Punctuation,
        GeneralCategoryGroup::Symbol,
        GeneralCategoryGroup::SpaceSeparator,
    ];
    if allowed.iter().any(|g| g.contains(gc)) {
        return None;
    }
    Some(match gc {
        GeneralCategory::Control => "a control character",
        GeneralCategory::Format => "an invisible formatting character",
        GeneralCategory::LineSeparator | GeneralCategory::ParagraphSeparator => "a line break",
        GeneralCategory::PrivateUse => "a private-use character",
        GeneralCategory::Surrogate => "a surrogate",
        _ => "an unassigned code point",
    })
}

/// `s` with every space character (Zs) made one U+0020, runs of them one,
/// and none at either end (`char::is_whitespace` ones too: a tab or line
/// break at an end is trimmed, inside it is refused by the caller).
fn one_space(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut gap = false;
    for c in s.trim().chars() {
        if is_space(c) {
            gap = true;
        } else {
            if gap && !out.is_empty() {
                out.push(' ');
            }
            gap = false;
            out.push(c);
        }
    }
    out
}

/// Checks a person's name and gives it as it is kept: NFC, trimmed, each run
/// of spaces one U+0020; 1 to [`MAX_NAME_CHARS`] characters, every one
/// allowed (see the module's text). The one check every part of meeple
/// calls (the GUI, `meeple play`, the database, the leaderboard's `--vs`).
pub fn check_person_name(name: &str) -> Result<String, String> {
    let nfc = ComposingNormalizer::new_nfc().normalize(name);
    let t = one_space(&nfc);
    let n = t.chars().count();
    if n == 0 {
        return Err("a name needs at least one visible character".to_string());
    }
    if n > MAX_NAME_CHARS {
        return Err(format!("name '{}' is too long ({n} characters, at most {MAX_NAME_CHARS})", clip(&t)));
    }
    if let Some((c, why)) = t.chars().find_map(|c| refusal(c).map(|w| (c, w))) {
        // Shown with every refused character as `?`: an override or a
        // line break does not reach the message raw.
        let shown: String = t.chars().map(|c| if refusal(c).is_some() { '?' } else { c }).collect();
        return Err(format!("name '{}' holds {why} (U+{:04X})", clip(&shown), c as u32));
    }
    let is_mark = |c: char| GeneralCategoryGroup::Mark.contains(category(c));
    if t.chars().next().is_some_and(is_mark) {
        return Err(format!("name '{}' starts with a combining mark", clip(&t)));
    }
    let mut run = 0;
    for c in t.chars() {
        run = if is_mark(c) { run + 1 } else { 0 };
        if run > MAX_MARKS_IN_A_ROW {
            return Err(format!(
                "name '{}' stacks more than {MAX_MARKS_IN_A_ROW} combining marks on one character",
                clip(&t)
            ));
        }
    }
    Ok(t)
}

/// The key that makes a person unique (see the module's text): any text
/// has one, a name checked or not (so that names kept by an older meeple
/// can be compared too).
pub fn fold(name: &str) -> String {
    let spaced = one_space(&without_invisible(name));
    let nfd = DecomposingNormalizer::new_nfd();
    let nfkd = DecomposingNormalizer::new_nfkd();
    let cf = CaseMapper::new();
    let k = nfd.normalize(&spaced);
    let k = cf.fold_string(&k);
    let k = nfkd.normalize(&k);
    let k = cf.fold_string(&k);
    let k = nfkd.normalize(&k);
    ComposingNormalizer::new_nfc().normalize(&k).into_owned()
}

/// `s` without its Default_Ignorable code points.
pub(super) fn without_invisible(s: &str) -> String {
    s.chars().filter(|&c| !is_default_ignorable(c)).collect()
}

/// True if two names are one person (their [`fold`]s are equal): the GUI
/// refuses a second seat's name that is the first's.
pub fn same_person(a: &str, b: &str) -> bool {
    fold(a) == fold(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 43 item 4: every spelling of "Ann" a hostile test found, and
    /// more. Each is one person with "Ann" or refused; none is a second
    /// "Ann" on the leaderboard.
    #[test]
    fn nine_anns_are_one_person_or_refused() {
        let spellings = [
            "ANN",
            "ann",
            "aNn",
            "A\u{00AD}nn",         // soft hyphen
            "A\u{200D}nn",         // zero-width joiner
            "A\u{200C}nn",         // zero-width non-joiner
            "Ann\u{FE0F}",         // variation selector 16
            "Ann\u{E0041}",        // tag letter A
            "A\u{034F}nn",         // combining grapheme joiner
            "Ann\u{061C}",         // Arabic letter mark
            "A\u{180E}nn",         // Mongolian vowel separator
            "A\u{180B}nn",         // Mongolian free variation selector
            "A\u{17B4}nn",         // Khmer vowel inherent AQ
            "Ann\u{3164}",         // Hangul filler
            "Ann\u{115F}\u{1160}", // Hangul choseong and jungseong fillers
            "Ann\u{2800}",         // Braille blank
            "Ａｎｎ",              // full width
            "𝐀𝐧𝐧",                 // mathematical bold
            "Ann\u{2060}",         // word joiner
            "\u{202E}Ann",         // right-to-left override
            "Ann\u{200B}",         // zero-width space
            " Ann\u{00A0}",        // no-break space at the end
        ];
        for s in spellings {
            match check_person_name(s) {
                Ok(kept) => assert!(same_person(&kept, "Ann"), "{s:?} was kept as {kept:?}, a new person"),
                Err(e) => assert!(e.contains("U+") || e.contains("visible"), "{s:?}: {e}"),
            }
            // Even unchecked (a name kept by an older meeple), the key is Ann's
            // when the difference is invisible.
            if !s.contains('\u{2800}') {
                assert_eq!(fold(s), fold("Ann"), "{s:?}");
            }
        }
        // The invisible ones are refused, not silently cleaned.
        for s in ["A\u{00AD}nn", "Ann\u{FE0F}", "Ann\u{E0041}", "A\u{034F}nn", "Ann\u{3164}", "Ann\u{2800}"] {
            assert!(check_person_name(s).is_err(), "{s:?}");
        }
        // Composed and decomposed é: one person, kept as NFC.
        assert_eq!(check_person_name("Ren\u{65}\u{301}e").unwrap(), "Ren\u{e9}e");
        assert!(same_person("Ren\u{e9}e", "RENE\u{301}E"));
        assert!(same_person("Straße", "STRASSE"));
        // Different people stay different.
        assert!(!same_person("Ann", "Anne"));
        assert!(!same_person("Ann", "Ann Lee"));
        assert!(!same_person("René", "Rene"));
    }

    #[test]
    fn a_name_that_renders_blank_is_refused() {
        for s in [
            "\u{3164}",
            "\u{115F}\u{1160}",
            "\u{FFA0}",
            "\u{2800}",
            "\u{2800}\u{2800}",
            "   ",
            "\u{3000}\u{00A0}",
            "\u{200B}",
            "\u{200D}\u{200C}",
            "\u{00AD}",
            "\u{FE0F}",
            "\u{E0041}\u{E0042}",
            "\u{301}",
            "",
        ] {
            assert!(check_person_name(s).is_err(), "{s:?}");
        }
    }

    #[test]
    fn allowed_by_category() {
        for ok in [
            "Ann Lee",
            "O'Brien",
            "Jean-Luc",
            "李小龍",
            "Zoë",
            "Ангелина",
            "محمد",
            "שָׁלוֹם",
            "ナルト",
            "R2-D2",
            "★Ann★",
            "Ann 2",
        ] {
            assert_eq!(check_person_name(ok).unwrap(), ok, "{ok:?}");
        }
        // Spaces: any space character is one U+0020, runs are one, ends trimmed.
        assert_eq!(check_person_name("  Ann\u{3000}\u{00A0} Lee\u{2003}").unwrap(), "Ann Lee");
        assert!(same_person("Ann  Lee", "ann lee"));
        for (bad, why) in [
            ("a\nb", "control"),
            ("a\tb", "control"),
            ("a\u{1b}[31mb", "control"),
            ("a\u{2028}b", "line break"),
            ("a\u{2029}b", "line break"),
            ("a\u{85}b", "control"),
            ("a\u{E000}b", "private-use"),
            ("a\u{0378}b", "unassigned"),
            ("a\u{202E}b", "invisible"),
            ("a\u{206A}b", "invisible"),
            ("a\u{FFF9}b", "formatting"),
            ("\u{301}Ann", "starts with a combining mark"),
            ("x\u{301}\u{302}\u{303}\u{304}\u{305}", "more than 4"),
        ] {
            let e = check_person_name(bad).unwrap_err();
            assert!(e.contains(why), "{bad:?}: {e}");
            assert!(!e.chars().any(|c| crate::text::is_unprintable(c) || refusal(c).is_some()), "{e:?}");
        }
        // Four marks in a row are fine.
        assert!(check_person_name("x\u{301}\u{302}\u{303}\u{304}").is_ok());
        // Length after NFC: 40 decomposed é are 40 characters.
        assert!(check_person_name(&"e\u{301}".repeat(40)).is_ok());
        assert!(check_person_name(&"x".repeat(41)).unwrap_err().contains("too long"));
    }
}
