//! The move tree.
