//! A person at a terminal: lines are read with line editing and history
//! (rustyline), and Ctrl-C / Ctrl-D arrive as events.

use rustyline::DefaultEditor;
use rustyline::error::ReadlineError;

use super::input::InputLine;

/// What the terminal gave.
pub enum Typed {
    Line(InputLine),
    /// Ctrl-C at the prompt.
    Interrupt,
    /// Ctrl-D, or the terminal went away.
    Eof,
}

/// Line editor of the interactive loop.
pub struct Terminal {
    editor: DefaultEditor,
}

impl Terminal {
    pub fn new() -> Option<Terminal> {
        DefaultEditor::new().ok().map(|editor| Terminal { editor })
    }

    /// The next line typed.
    pub fn read(&mut self) -> Typed {
        match self.editor.readline("") {
            Ok(l) => {
                if !l.trim().is_empty() {
                    let _ = self.editor.add_history_entry(l.as_str());
                }
                if l.len() > super::input::MAX_LINE {
                    return Typed::Line(InputLine::TooLong(l.len()));
                }
                Typed::Line(InputLine::Line(l))
            }
            Err(ReadlineError::Interrupted) => Typed::Interrupt,
            Err(_) => Typed::Eof,
        }
    }
}
