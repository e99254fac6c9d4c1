//! Named saved games.
