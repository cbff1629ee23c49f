//! What a board is sent to show a move, or to stop showing it (sans-IO).
//!
//! - Millennium boards light the corners of the from-square, then of the to-square, so the
//!   light runs along the move ([`millennium::LedFrame::show_move`]); `X` puts every LED
//!   out.
//! - DGT boards: a Revelation II lights the two squares (`60 04 01 from to 00`, the fields
//!   in the board's numbering), a DGT 3000 clock on the board shows the move as text (SAN);
//!   boards without LEDs or clock ignore what they cannot do. Clearing puts every LED out
//!   and gives the clock its times back.
//!
//! The squares are turned when the board stands the other way round. This module only
//! builds bytes; the bridge writes them.

use shakmaty::Square;

use super::engine::Indication;
use crate::event::Orientation;
use crate::protocol::{Protocol, dgt, millennium};

/// The bytes that show `indication` on a board of `protocol` standing `orientation`.
pub fn show(protocol: Protocol, orientation: Orientation, indication: &Indication) -> Vec<Vec<u8>> {
    match protocol {
        Protocol::Millennium => {
            let frame = millennium::LedFrame::show_move(
                indication.from,
                indication.to,
                cable_side(orientation),
            );
            vec![millennium::Command::Leds(frame).encode()]
        }
        Protocol::Dgt => {
            let leds = dgt::LedCommand::Fields {
                on: true,
                start: dgt_field(indication.from, orientation),
                end: dgt_field(indication.to, orientation),
            };
            [
                dgt::Command::Leds(dgt::LedCommand::ClearAll),
                dgt::Command::Leds(leds),
                dgt::Command::Clock(dgt::ClockCommand::ascii(&indication.text, 2)),
            ]
            .iter()
            .filter_map(|c| c.to_bytes().ok())
            .collect()
        }
    }
}

/// The bytes that stop showing a move.
pub fn clear(protocol: Protocol) -> Vec<Vec<u8>> {
    match protocol {
        Protocol::Millennium => vec![millennium::Command::LedsOff.encode()],
        Protocol::Dgt => [
            dgt::Command::Leds(dgt::LedCommand::ClearAll),
            dgt::Command::Clock(dgt::ClockCommand::End),
        ]
        .iter()
        .filter_map(|c| c.to_bytes().ok())
        .collect(),
    }
}

/// Which side a Millennium board's cable is on when it stands `orientation`.
pub fn cable_side(orientation: Orientation) -> millennium::CableSide {
    match orientation {
        Orientation::Normal => millennium::CableSide::Right,
        Orientation::Rotated => millennium::CableSide::Left,
    }
}

/// A square's DGT field (0 = a8 … 63 = h1 on a board standing normally).
pub fn dgt_field(square: Square, orientation: Orientation) -> u8 {
    let field = dgt::square_field(square);
    match orientation {
        Orientation::Normal => field,
        Orientation::Rotated => 63 - field,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e2e4() -> Indication {
        Indication {
            from: Square::E2,
            to: Square::E4,
            text: "e4".into(),
            uci: Some("e2e4".into()),
        }
    }

    #[test]
    fn a_dgt_board_lights_both_fields_and_the_clock_shows_the_move() {
        let bytes = show(Protocol::Dgt, Orientation::Normal, &e2e4());
        assert_eq!(bytes[0], vec![0x60, 0x04, 0x00, 0x40, 0x40, 0x00]);
        assert_eq!(bytes[1], vec![0x60, 0x04, 0x01, 52, 36, 0x00]);
        assert_eq!(&bytes[2][..4], &[0x2b, 0x0c, 0x03, 0x0c]);
        assert_eq!(&bytes[2][4..12], b"e4      ");
        let turned = show(Protocol::Dgt, Orientation::Rotated, &e2e4());
        assert_eq!(turned[1], vec![0x60, 0x04, 0x01, 11, 27, 0x00]);
    }

    #[test]
    fn a_millennium_board_lights_the_corners_of_both_squares() {
        let bytes = show(Protocol::Millennium, Orientation::Normal, &e2e4());
        let mut decoder = millennium::CommandDecoder::new();
        decoder.push_bytes(&bytes[0]);
        let Some(millennium::DecodedCommand::Command(millennium::Command::Leds(frame))) =
            decoder.poll()
        else {
            panic!("an LED command");
        };
        assert_eq!(
            frame,
            millennium::LedFrame::show_move(Square::E2, Square::E4, millennium::CableSide::Right)
        );
    }

    #[test]
    fn clearing_puts_the_lights_out() {
        assert_eq!(clear(Protocol::Millennium).len(), 1);
        let dgt = clear(Protocol::Dgt);
        assert_eq!(dgt[0], vec![0x60, 0x04, 0x00, 0x40, 0x40, 0x00]);
        assert_eq!(dgt[1][3], 0x03, "the clock's End sub-command");
    }
}
