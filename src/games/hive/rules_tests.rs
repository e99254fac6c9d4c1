//! One test per numbered rule of the reference, on concrete positions.
