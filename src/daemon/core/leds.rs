//! The board's LEDs: which bytes light a move or a set of squares, through the codecs'
//! encoders, for the way round the board stands.
//!
//! - Millennium: an `L` frame of the 81 corner LEDs ([`millennium::LedFrame`]); a move
//!   alternates its from- and to-square ([`millennium::LedFrame::show_move`]), squares are
//!   lit steadily; no squares is `X` (all off).
//! - DGT (Revelation II, command 0x60): all off, then the move from its from-field to its
//!   to-field as picochess lights it, or each square on its own. The core sends these only
//!   to a board known to be a Revelation II: plain e-boards were seen to freeze on them.
//!
//! Pure functions: no state, no time, no IO.

use shakmaty::Square;

use crate::event::Orientation;
use crate::protocol::{Protocol, dgt, millennium};

/// Full brightness, all the time (pattern 0xFF): a square lit by `SetLeds`.
const STEADY: u8 = 0xFF;

/// The bytes that show the move `from` → `to`.
pub fn show_move(
    protocol: Protocol,
    orientation: Orientation,
    from: Square,
    to: Square,
) -> Vec<Vec<u8>> {
    match protocol {
        Protocol::Millennium => {
            let frame = millennium::LedFrame::show_move(from, to, cable_side(orientation));
            vec![millennium::Command::Leds(frame).encode()]
        }
        Protocol::Dgt => dgt_commands(&[
            dgt::LedCommand::ClearAll,
            dgt::LedCommand::Fields {
                on: true,
                start: field(from, orientation),
                end: field(to, orientation),
            },
        ]),
    }
}

/// The bytes that light `squares` and nothing else (none: every LED off).
pub fn light(protocol: Protocol, orientation: Orientation, squares: &[Square]) -> Vec<Vec<u8>> {
    match protocol {
        Protocol::Millennium if squares.is_empty() => {
            vec![millennium::Command::LedsOff.encode()]
        }
        Protocol::Millennium => {
            let mut frame = millennium::LedFrame::new(millennium::MOVE_SLOT_TIME);
            frame.light_squares(squares.iter().copied(), cable_side(orientation), STEADY);
            vec![millennium::Command::Leds(frame).encode()]
        }
        Protocol::Dgt => {
            let mut commands = vec![dgt::LedCommand::ClearAll];
            commands.extend(squares.iter().map(|&sq| {
                let f = field(sq, orientation);
                dgt::LedCommand::Fields {
                    on: true,
                    start: f,
                    end: f,
                }
            }));
            dgt_commands(&commands)
        }
    }
}

/// The cable side of a Millennium board standing `orientation` (normal: cable on White's
/// right, as boards are read in practice).
fn cable_side(orientation: Orientation) -> millennium::CableSide {
    match orientation {
        Orientation::Normal => millennium::CableSide::Right,
        Orientation::Rotated => millennium::CableSide::Left,
    }
}

/// The DGT field of a square on a board standing `orientation`.
fn field(square: Square, orientation: Orientation) -> u8 {
    let f = dgt::square_field(square);
    match orientation {
        Orientation::Normal => f,
        Orientation::Rotated => dgt::rotated_field(f),
    }
}

fn dgt_commands(commands: &[dgt::LedCommand]) -> Vec<Vec<u8>> {
    commands
        .iter()
        .filter_map(|c| dgt::Command::Leds(*c).to_bytes().ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_move_on_a_dgt_board_is_all_off_then_from_field_to_field() {
        let bytes = show_move(Protocol::Dgt, Orientation::Normal, Square::E2, Square::E4);
        assert_eq!(
            bytes,
            [
                vec![0x60, 0x04, 0x00, 0x40, 0x40, 0x00],
                vec![0x60, 0x04, 0x01, 52, 36, 0x00]
            ]
        );
        let turned = show_move(Protocol::Dgt, Orientation::Rotated, Square::E2, Square::E4);
        assert_eq!(turned[1], vec![0x60, 0x04, 0x01, 63 - 52, 63 - 36, 0x00]);
    }

    #[test]
    fn a_move_on_a_millennium_board_is_one_l_frame_for_its_cable_side() {
        let bytes = show_move(
            Protocol::Millennium,
            Orientation::Normal,
            Square::E2,
            Square::E4,
        );
        let expected = millennium::Command::Leds(millennium::LedFrame::show_move(
            Square::E2,
            Square::E4,
            millennium::CableSide::Right,
        ))
        .encode();
        assert_eq!(bytes, [expected]);
    }

    #[test]
    fn no_squares_puts_every_led_out() {
        assert_eq!(
            light(Protocol::Millennium, Orientation::Normal, &[]),
            [millennium::Command::LedsOff.encode()]
        );
        assert_eq!(
            light(Protocol::Dgt, Orientation::Normal, &[]),
            [vec![0x60, 0x04, 0x00, 0x40, 0x40, 0x00]]
        );
    }

    #[test]
    fn squares_are_lit_steadily_on_their_corners() {
        let bytes = light(Protocol::Millennium, Orientation::Normal, &[Square::H1]);
        let mut decoder = millennium::CommandDecoder::new();
        decoder.push_bytes(&bytes[0]);
        let Some(millennium::DecodedCommand::Command(millennium::Command::Leds(frame))) =
            decoder.poll()
        else {
            panic!("an L frame");
        };
        let lit: Vec<usize> = (0..millennium::LED_COUNT)
            .filter(|&k| frame.pattern(k) == Some(STEADY))
            .collect();
        assert_eq!(lit, [0, 1, 9, 10]);
        let dgt = light(
            Protocol::Dgt,
            Orientation::Normal,
            &[Square::A8, Square::H1],
        );
        assert_eq!(
            dgt[1..],
            [vec![0x60, 4, 1, 0, 0, 0], vec![0x60, 4, 1, 63, 63, 0]]
        );
    }
}
