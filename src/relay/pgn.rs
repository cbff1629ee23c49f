//! The tags of a broadcast game, and its PGN with them.
//!
//! Tags come from the configuration: the round's (Event, Site, Date, Round, TimeControl) and
//! the board's (players, ratings, board number). `Round` is written `R.B` (round, board) so
//! that viewers keep the boards in order.

use crate::game::record::GameRecord;

/// What the PGN of one board says about its game.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PgnTags {
    /// The event's name.
    pub event: Option<String>,
    /// Where it is played.
    pub site: Option<String>,
    /// The date, `YYYY.MM.DD`.
    pub date: Option<String>,
    /// The round, as a number or a name.
    pub round: Option<String>,
    /// The board's number in the round (from 1).
    pub board: Option<u32>,
    /// White's name.
    pub white: Option<String>,
    /// Black's name.
    pub black: Option<String>,
    /// White's rating.
    pub white_elo: Option<u32>,
    /// Black's rating.
    pub black_elo: Option<u32>,
    /// The time control, as PGN writes it (`5400+30`).
    pub time_control: Option<String>,
}

impl PgnTags {
    /// The tags in the order they are written: the Seven Tag Roster (without `Result`, which
    /// the game writes), then ratings and time control when known.
    pub fn to_pairs(&self) -> Vec<(&'static str, String)> {
        let or_unknown = |v: &Option<String>| v.clone().unwrap_or_else(|| "?".to_string());
        let round = match (&self.round, self.board) {
            (Some(r), Some(b)) => format!("{r}.{b}"),
            (Some(r), None) => r.clone(),
            (None, Some(b)) => format!("?.{b}"),
            (None, None) => "?".to_string(),
        };
        let mut pairs = vec![
            ("Event", or_unknown(&self.event)),
            ("Site", or_unknown(&self.site)),
            (
                "Date",
                self.date
                    .clone()
                    .unwrap_or_else(|| "????.??.??".to_string()),
            ),
            ("Round", round),
            ("White", or_unknown(&self.white)),
            ("Black", or_unknown(&self.black)),
        ];
        if let Some(elo) = self.white_elo {
            pairs.push(("WhiteElo", elo.to_string()));
        }
        if let Some(elo) = self.black_elo {
            pairs.push(("BlackElo", elo.to_string()));
        }
        if let Some(tc) = &self.time_control {
            pairs.push(("TimeControl", tc.clone()));
        }
        pairs
    }
}

/// The game of one board as PGN with its tags (the record adds `Result`, and `Variant`,
/// `SetUp` and `FEN` for Chess960 and set-up games), and `note` as a comment after the
/// last move.
pub fn game_pgn(tags: &PgnTags, record: &GameRecord, note: Option<&str>) -> String {
    let pairs = tags.to_pairs();
    let refs: Vec<(&str, &str)> = pairs.iter().map(|(k, v)| (*k, v.as_str())).collect();
    record.to_pgn_with_note(&refs, note)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::GameEvent;

    #[test]
    fn round_and_board_make_the_round_tag_and_known_ratings_follow_the_roster() {
        let tags = PgnTags {
            event: Some("Club \"Open\"".into()),
            site: Some("Oslo".into()),
            date: Some("2026.11.30".into()),
            round: Some("3".into()),
            board: Some(12),
            white: Some("Moss, M".into()),
            black: Some("Tufteland, V".into()),
            white_elo: None,
            black_elo: Some(1349),
            time_control: Some("5400+30".into()),
        };
        let mut record = GameRecord::default();
        record.apply(&GameEvent::Result {
            result: "1/2-1/2".parse().expect("result"),
            reason: "agreed".into(),
        });
        let pgn = game_pgn(&tags, &record, None);
        assert_eq!(
            pgn,
            "[Event \"Club \\\"Open\\\"\"]\n[Site \"Oslo\"]\n[Date \"2026.11.30\"]\n\
             [Round \"3.12\"]\n[White \"Moss, M\"]\n[Black \"Tufteland, V\"]\n\
             [BlackElo \"1349\"]\n[TimeControl \"5400+30\"]\n[Result \"1/2-1/2\"]\n\n1/2-1/2\n"
        );
    }

    #[test]
    fn unknown_tags_are_written_as_question_marks() {
        let pairs = PgnTags::default().to_pairs();
        assert_eq!(
            pairs,
            vec![
                ("Event", "?".to_string()),
                ("Site", "?".to_string()),
                ("Date", "????.??.??".to_string()),
                ("Round", "?".to_string()),
                ("White", "?".to_string()),
                ("Black", "?".to_string()),
            ]
        );
    }
}
