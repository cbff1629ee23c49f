//! The simulator's table of board types, beside the core's driver table
//! ([`Protocol::driver`](eboardd_core::protocol::Protocol::driver)): for each protocol, its
//! board model, its emulated device and its played-back recording. Emulating a new board
//! type is adding its modules and one entry here.

use eboardd_core::protocol::Protocol;

use crate::board::{BoardModel, DgtConfig, MillenniumConfig};
use crate::device::{BoardOptions, EmulatedBoard};
use crate::playback::BoardState;
use crate::timeline::Squares;

/// How one board type is emulated.
pub(crate) struct Kind {
    /// Its board model with default settings, having seen a start, with a seed.
    pub model: fn(&Squares, u64) -> BoardModel,
    /// Its emulated device set up as the options say.
    pub device: fn(&BoardOptions, &Squares, u64) -> EmulatedBoard,
    /// A recording of it played back, answering with the parity bit or not.
    pub recording: fn(bool) -> BoardState,
}

const DGT: Kind = Kind {
    model: |start, seed| BoardModel::dgt(DgtConfig::default(), start, seed),
    device: EmulatedBoard::dgt,
    recording: BoardState::dgt,
};

const MILLENNIUM: Kind = Kind {
    model: |start, seed| BoardModel::millennium(MillenniumConfig::default(), start, seed),
    device: EmulatedBoard::millennium,
    recording: BoardState::millennium,
};

/// How a board speaking `protocol` is emulated.
pub(crate) fn kind(protocol: Protocol) -> &'static Kind {
    match protocol {
        Protocol::Dgt => &DGT,
        Protocol::Millennium => &MILLENNIUM,
    }
}
