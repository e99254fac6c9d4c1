//! The evaluation's weights (see `eval::term` for what each one counts).
//!
//! Set by hand (no tuning run yet).

use super::eval::Weights;

/// The weights, indexed by `eval::term`.
#[rustfmt::skip]
pub const W: Weights = [
    // mobile: Q S B G A M L P
    8, 5, 12, 6, 16, 14, 11, 8,
    // hand: Q S B G A M L P
    0, 2, 4, 2, 5, 5, 4, 3,
    // pressure by half-neighbours 0..=12
    0, 6, 14, 24, 38, 56, 80, 110, 150, 200, 260, 330, 420,
    // threat, beetle on queen, beetle near queen, pillbug guard, queen free
    10, 70, 24, 40, 10,
    // places 0 1 2
    0, 0, 0,
    // tempo
    0,
];
