//! The editions of the FIDE Laws the arbiter knows, and how each numbers the rules.
//!
//! The arbiter judges by [`Rule`]s, which are the ideas of Article 4 independent of any text;
//! an [`Edition`] turns a rule into the article number its own text gives it. The texts are
//! the user's documents (`../shared/seeds/`), and the numbering follows the table of the
//! event contract (`replay-events.md`, "Editions of the Laws"):
//!
//! | rule                                    | `fide-2023` | `fide-2014` | `fide-classic` |
//! |-----------------------------------------|-------------|-------------|----------------|
//! | adjusting a piece (j'adoube)            | 4.2         | 4.2         | 4.2            |
//! | own piece touched first, not moved      | 4.3a        | 4.3a        | 4.3a           |
//! | opponent's piece touched, not captured  | 4.3b        | 4.3b        | 4.3a           |
//! | one of each colour touched              | 4.3c        | 4.3c        | 4.3b           |
//! | king and rook touched: castling due     | 4.4a        | 4.4a        | 4.4a           |
//! | rook then king touched: no castling     | 4.4b        | 4.4b        | 4.4b           |
//! | castling illegal: a king move due       | 4.4c        | 4.4c        | 4.4c           |
//! | promoted piece fixed on the square      | 4.4d        | 4.4d        | (none)         |
//! | nothing touched can move: free choice   | 4.5         | 4.5         | 4.5            |
//! | promotion acts in any order             | 4.6         | (none)      | (none)         |
//! | released piece moved on                 | 4.7         | 4.6         | 4.7            |
//! | right to claim lost on touching a piece | 4.8         | 4.7         | 4.6            |
//! | illegal move completed                  | 7.5         | 7.5         | 7.5            |
//!
//! How the classic text is cited: the Spanish classic text numbers its paragraphs 1–7 inside
//! Article 4 and the Polish one 4.1–4.7; both are cited as `4.N`, as the contract writes
//! articles. Its rule 3a ("one or more pieces of the same colour") joins own and opponent's
//! pieces, so both of those breaches cite `4.3a`, and its 3b ("one piece of each colour") is
//! cited `4.3b`. It has no rule on the promoted piece (no 4.4d, no 4.6).
//!
//! Who may still claim (the last rule): in 2023 touching a piece loses the claim on breaches
//! of 4.1–4.7; in the classic text only on breaches of 4.3 and 4.4 (its 6 / 4.6), so a
//! released piece moved on stays claimable. The 2014 text in the user's documents stops in
//! the middle of its 4.7 ("Un jugador pierde su derecho"); we read it as the rule the 2023
//! text later renumbered, covering every breach of Article 4 before it (4.1–4.6). Article 7
//! is not among the user's documents: an illegal move is cited `7.5` in every edition, as
//! the issue asks, and no touch ends the right to have it corrected.
//!
//! This module only names and numbers; it knows nothing of boards, sensors or events.

use std::fmt;
use std::str::FromStr;

/// An edition of the FIDE Laws of Chess.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Edition {
    /// The Laws in force from 1 January 2023 (the default).
    #[default]
    Fide2023,
    /// The Laws of 2014 (Article 4 unchanged in 2018, per the event contract).
    Fide2014,
    /// The classic text, numbered 1–7 inside Article 4 (Spanish) or 4.1–4.7 (Polish).
    FideClassic,
}

/// An edition name that is not one of `fide-2023`, `fide-2014`, `fide-classic`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown edition of the Laws {0:?}: use fide-2023, fide-2014 or fide-classic")]
pub struct UnknownEdition(pub String);

impl Edition {
    /// Every edition, newest first.
    pub const ALL: [Edition; 3] = [Edition::Fide2023, Edition::Fide2014, Edition::FideClassic];

    /// The name used on the command line, in trace headers and in events (`fide-2023`...).
    pub fn name(self) -> &'static str {
        match self {
            Edition::Fide2023 => "fide-2023",
            Edition::Fide2014 => "fide-2014",
            Edition::FideClassic => "fide-classic",
        }
    }

    /// What the edition is, in a line for people (help texts).
    pub fn summary(self) -> &'static str {
        match self {
            Edition::Fide2023 => "The Laws in force from 2023 (the default)",
            Edition::Fide2014 => "The Laws of 2014 (Article 4 as in 2018)",
            Edition::FideClassic => "The classic text of Article 4 (numbered 1–7)",
        }
    }

    /// The article this edition gives `rule`, written as the contract writes articles
    /// (`4.3a`, `4.7`), or `None` when its text has no such rule.
    ///
    /// ```
    /// use eboardd_core::laws::{Edition, Rule};
    /// assert_eq!(Edition::Fide2023.article(Rule::ReleasedMovedOn), Some("4.7"));
    /// assert_eq!(Edition::Fide2014.article(Rule::ReleasedMovedOn), Some("4.6"));
    /// assert_eq!(Edition::FideClassic.article(Rule::OpponentTouched), Some("4.3a"));
    /// assert_eq!(Edition::FideClassic.article(Rule::PromotedPieceFixed), None);
    /// ```
    pub fn article(self, rule: Rule) -> Option<&'static str> {
        use Edition::*;
        use Rule::*;
        Some(match (rule, self) {
            (Adjust, _) => "4.2",
            (OwnTouched, _) => "4.3a",
            (OpponentTouched, FideClassic) => "4.3a",
            (OpponentTouched, _) => "4.3b",
            (OneOfEach, FideClassic) => "4.3b",
            (OneOfEach, _) => "4.3c",
            (KingAndRook, _) => "4.4a",
            (RookThenKing, _) => "4.4b",
            (IllegalCastling, _) => "4.4c",
            (PromotedPieceFixed, FideClassic) => return None,
            (PromotedPieceFixed, _) => "4.4d",
            (NothingCanMove, _) => "4.5",
            (PromotionAnyOrder, Fide2023) => "4.6",
            (PromotionAnyOrder, _) => return None,
            (ReleasedMovedOn, Fide2014) => "4.6",
            (ReleasedMovedOn, _) => "4.7",
            (ClaimLapses, Fide2023) => "4.8",
            (ClaimLapses, Fide2014) => "4.7",
            (ClaimLapses, FideClassic) => "4.6",
            (IllegalMove, _) => "7.5",
        })
    }

    /// Whether the claimant's touching a piece ends the right to claim a breach of `rule`
    /// (2023 4.8, 2014 4.7, classic 4.6).
    pub fn claim_lapses(self, rule: Rule) -> bool {
        match rule {
            Rule::IllegalMove => false,
            Rule::ReleasedMovedOn => self != Edition::FideClassic,
            _ => true,
        }
    }
}

impl fmt::Display for Edition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Edition {
    type Err = UnknownEdition;
    fn from_str(s: &str) -> Result<Edition, UnknownEdition> {
        Edition::ALL
            .into_iter()
            .find(|e| e.name() == s.trim())
            .ok_or_else(|| UnknownEdition(s.to_string()))
    }
}

// Read from its name (`laws = "fide-2014"` in the configuration).
crate::deserialize_from_str!(Edition);

/// A rule of Article 4 (and 7.5), as an idea: see the table in the module documentation for
/// the number each edition gives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Rule {
    /// A player may adjust pieces after saying so (j'adoube); the board cannot hear it.
    Adjust,
    /// An own piece touched first that could move, and another piece moved.
    OwnTouched,
    /// An opponent's piece touched first that could be captured, and not captured.
    OpponentTouched,
    /// One piece of each colour touched: the opponent's piece had to be captured with the
    /// touched own piece.
    OneOfEach,
    /// King and rook touched (king first or together): castling on that side was due.
    KingAndRook,
    /// Rook touched, then the king: castling with that rook is not allowed on this move.
    RookThenKing,
    /// Castling attempted on a side where it is illegal: another king move was due.
    IllegalCastling,
    /// The promoted piece is chosen once it touches the promotion square.
    PromotedPieceFixed,
    /// None of the touched pieces can move or be captured: any legal move.
    NothingCanMove,
    /// The acts of a promotion may come in any order (2023).
    PromotionAnyOrder,
    /// A piece released on a square as (part of) a legal move was moved on to another square.
    ReleasedMovedOn,
    /// The right to claim is lost once the claimant touches a piece.
    ClaimLapses,
    /// A completed move that is illegal (castling through check, king left in check).
    IllegalMove,
}

impl Rule {
    /// Whether `enforce` mode holds back a move that breaks this rule (the touch-move rules
    /// 4.3 and 4.4).
    pub fn enforced(self) -> bool {
        matches!(
            self,
            Rule::OwnTouched
                | Rule::OpponentTouched
                | Rule::OneOfEach
                | Rule::KingAndRook
                | Rule::RookThenKing
                | Rule::IllegalCastling
                | Rule::PromotedPieceFixed
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for e in Edition::ALL {
            assert_eq!(e.name().parse::<Edition>(), Ok(e));
        }
        assert!("fide-2018".parse::<Edition>().is_err());
    }

    #[test]
    fn contract_table_numbers() {
        use Edition::*;
        assert_eq!(Fide2023.article(Rule::ReleasedMovedOn), Some("4.7"));
        assert_eq!(Fide2023.article(Rule::ClaimLapses), Some("4.8"));
        assert_eq!(Fide2014.article(Rule::ReleasedMovedOn), Some("4.6"));
        assert_eq!(Fide2014.article(Rule::ClaimLapses), Some("4.7"));
        assert_eq!(FideClassic.article(Rule::ReleasedMovedOn), Some("4.7"));
        assert_eq!(FideClassic.article(Rule::ClaimLapses), Some("4.6"));
        assert_eq!(FideClassic.article(Rule::OneOfEach), Some("4.3b"));
        assert_eq!(Fide2014.article(Rule::PromotionAnyOrder), None);
        assert_eq!(Fide2014.article(Rule::PromotedPieceFixed), Some("4.4d"));
    }

    #[test]
    fn classic_claims_only_lapse_for_touch_rules() {
        assert!(!Edition::FideClassic.claim_lapses(Rule::ReleasedMovedOn));
        assert!(Edition::FideClassic.claim_lapses(Rule::OwnTouched));
        assert!(Edition::Fide2023.claim_lapses(Rule::ReleasedMovedOn));
        assert!(!Edition::Fide2023.claim_lapses(Rule::IllegalMove));
    }
}
