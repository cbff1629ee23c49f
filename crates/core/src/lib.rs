//! eboardd's core: everything between the bytes a board sends and the game events every
//! sink reads, with no port, no clock and no task.
//!
//! The layers, one way through the house: [`protocol`] (bytes ⇄ messages), [`sensing`]
//! (what stands on each square), [`tracker`] (lifts and placements → confirmed moves),
//! [`laws`] (the arbiter: FIDE Article 4 by edition), then the [`event::GameEvent`] stream.
//! [`pipeline::BoardCore`] strings them together for one board and, on a live link
//! ([`board`]), talks to it: start-up, keep-alive, LEDs and the clock through its type's
//! [`protocol::driver`], and users' commands. Beside them: [`game`]
//! (notation, clocks, the game record), [`trace`] (the trace format), [`time`] (the core's
//! notion of `now`) and [`text`].
//!
//! Everything here is sans-IO: it is handed bytes and the current [`time::Time`] and hands
//! back events. The daemon, the CLI and the simulation drive it from outside.

/// Implements serde's `Deserialize` for types read from their names through `FromStr`
/// (settings written by name in the configuration, `laws = "fide-2014"`): a string,
/// parsed, the parse error as serde's message.
#[macro_export]
macro_rules! deserialize_from_str {
    ($($t:ty),* $(,)?) => {$(
        impl<'de> $crate::__serde::Deserialize<'de> for $t {
            fn deserialize<D: $crate::__serde::Deserializer<'de>>(
                d: D,
            ) -> Result<Self, D::Error> {
                let s = <String as $crate::__serde::Deserialize>::deserialize(d)?;
                s.parse().map_err(<D::Error as $crate::__serde::de::Error>::custom)
            }
        }
    )*};
}

#[doc(hidden)]
pub use serde as __serde;

pub mod board;
pub mod event;
pub mod game;
pub mod laws;
pub mod pipeline;
pub mod protocol;
pub mod sensing;
pub mod text;
pub mod time;
pub mod trace;
pub mod tracker;
