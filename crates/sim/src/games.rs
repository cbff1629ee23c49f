//! Games to play: a few real games, embedded, and short drills of the special moves.
//!
//! The real games' move lists are historical facts; their sources are named in the tags.
//! The drills are positions and moves written for this project to make every special move
//! happen: en passant by both sides, promotions with and without capture and to every
//! piece, castling on both wings, and the Chess960 castlings where the king stays put, the
//! rook stays put, or one lands on the other's square. `eboardd demo`, the tests and the
//! benchmark use them.

use super::pgn::{Game, parse_games};

/// Real games, as PGN.
pub const REAL_GAMES_PGN: &str = r#"[Event "Paris, the Opera game"]
[Site "Paris FRA"]
[Date "1858"]
[White "Morphy, Paul"]
[Black "Duke Karl of Brunswick and Count Isouard"]
[Result "1-0"]
[Source "historical record"]

1. e4 e5 2. Nf3 d6 3. d4 Bg4 4. dxe5 Bxf3 5. Qxf3 dxe5 6. Bc4 Nf6 7. Qb3 Qe7
8. Nc3 c6 9. Bg5 b5 10. Nxb5 cxb5 11. Bxb5+ Nbd7 12. O-O-O Rd8 13. Rxd7 Rxd7
14. Rd1 Qe6 15. Bxd7+ Nxd7 16. Qb8+ Nxb8 17. Rd8# 1-0

[Event "London, the Immortal game"]
[Site "London ENG"]
[Date "1851"]
[White "Anderssen, Adolf"]
[Black "Kieseritzky, Lionel"]
[Result "1-0"]
[Source "historical record"]

1. e4 e5 2. f4 exf4 3. Bc4 Qh4+ 4. Kf1 b5 5. Bxb5 Nf6 6. Nf3 Qh6 7. d3 Nh5
8. Nh4 Qg5 9. Nf5 c6 10. g4 Nf6 11. Rg1 cxb5 12. h4 Qg6 13. h5 Qg5 14. Qf3 Ng8
15. Bxf4 Qf6 16. Nc3 Bc5 17. Nd5 Qxb2 18. Bd6 Bxg1 19. e5 Qxa1+ 20. Ke2 Na6
21. Nxg7+ Kd8 22. Qf6+ Nxf6 23. Be7# 1-0

[Event "Rated Blitz game"]
[Site "https://lichess.org/2cj9hphe"]
[White "tiggran"]
[Black "barriosgb2"]
[Result "1-0"]
[Source "lichess.org open database (CC0)"]

1. e4 c6 2. Nf3 d5 3. exd5 cxd5 4. d4 Nc6 5. Nc3 e6 6. Be2 Bd6 7. O-O Nf6
8. Bg5 O-O 9. Qd2 Be7 10. Rfe1 Qc7 11. Bf4 Qd7 12. Bb5 a6 13. Ba4 b5 14. Bb3 Qa7
15. Nh4 Qd7 16. Bh6 gxh6 17. Qxh6 Ne4 18. Nxe4 dxe4 19. Rxe4 f5 20. Rxe6 Kh8
21. Nxf5 Rxf5 22. Rae1 Bf8 23. Qh3 Rg5 24. R1e4 Qg7 25. g3 Bxe6 26. Bxe6 Re8
27. d5 Ne5 28. f4 Nf3+ 29. Kh1 Rg6 30. f5 Rg5 31. Kg2 Nd4 32. c3 Nxe6 33. dxe6 Bd6
34. g4 Qf6 35. Qd3 Bb8 36. Qd7 Qh6 37. e7 Qxh2+ 38. Kf3 Qg3+ 39. Ke2 Qg2+
40. Kd1 Qxe4 41. Qxe8+ Rg8 42. Qf7 Qxg4+ 43. Kc2 Qg2+ 44. Kb3 a5 45. e8=Q a4+
46. Ka3 Bd6+ 47. b4 axb3+ 48. Kxb3 Rxe8 49. Qxe8+ Kg7 50. Qd7+ Kh6 51. Qxd6+ Kg5
52. f6 Qf3 53. Qe5+ Kg6 54. Qxb5 Qxf6 55. a4 Qe6+ 56. Ka3 Qd6+ 57. Qb4 Qd3
58. a5 h5 59. Qb6+ Kg5 60. Qc5+ Kg4 61. Kb4 Qb1+ 62. Kc4 Qa2+ 63. Kd3 Qb1+
64. Kc4 Qa2+ 65. Kd4 Qd2+ 66. Kc4 Qa2+ 67. Kb5 Qb3+ 68. Qb4+ Qxb4+ 69. Kxb4 h4
70. a6 h3 71. a7 h2 72. a8=Q h1=B 73. Qxh1 Kf4 74. c4 Kg3 75. Qe1+ Kf3 76. Qd2 Ke4
77. Qc3 Kf4 78. Qd3 Ke5 79. c5 Ke6 80. c6 Ke5 81. c7 Ke6 82. Qd4 Ke7 83. c8=Q Kf7
84. Qd6 Kg7 85. Qcc7+ Kg8 86. Qdd8# 1-0

[Event "Chess960 rapid WCh"]
[Site "Mainz GER"]
[Date "2006"]
[Round "1"]
[White "Aronian, Levon"]
[Black "Svidler, Peter"]
[Result "1-0"]
[Variant "Chess960"]
[SetUp "1"]
[FEN "nbbrnkrq/pppppppp/8/8/8/8/PPPPPPPP/NBBRNKRQ w KQkq - 0 1"]

1. c4 c5 2. d4 cxd4 3. Rxd4 Be5 4. Rd1 O-O 5. Nf3 Bf6 6. Nc2 g6 7. b3 Nac7
8. Ne3 Bb2 9. O-O Bxc1 10. Rxc1 Nf6 11. h3 b6 12. Qh2 d6 13. Qg3 Qg7 14. Qh4 Bb7
15. Rfd1 Rc8 16. Nd4 Rfd8 17. Rc3 e6 18. Nef5 exf5 19. Nxf5 g5 20. Qg3 Nh5
21. Qe3 Qf6 22. Ne7+ Kf8 23. Nxc8 Rxc8 24. Qd2 Nf4 25. Rg3 Rd8 26. Bxh7 Nce6
27. e3 Nh5 28. Rg4 Qh6 29. Bf5 Neg7 30. Qc2 Qf6 31. Be4 Bc8 32. Bf3 Qe5
33. Re4 Bf5 34. Rxe5 Bxc2 35. Rd2 Bg6 36. Bxh5 Nxh5 37. Rxg5 Nf6 38. f3 Ke7
39. e4 Nh7 40. Rgd5 f6 41. f4 1-0

[Event "Chess960 rapid WCh"]
[Site "Mainz GER"]
[Date "2006"]
[Round "5"]
[White "Aronian, Levon"]
[Black "Svidler, Peter"]
[Result "1-0"]
[Variant "Chess960"]
[SetUp "1"]
[FEN "bnqrnbkr/pppppppp/8/8/8/8/PPPPPPPP/BNQRNBKR w KQkq - 0 1"]

1. c4 c5 2. b3 b6 3. Nf3 e6 4. d4 cxd4 5. Nxd4 Nc6 6. Nf3 Be7 7. Nc3 O-O 8. g3 Nf6
9. Bg2 Nb4 10. O-O d5 11. a3 Na6 12. cxd5 Nxd5 13. b4 Nxc3 14. Bxc3 Rxd1
15. Rxd1 Rd8 16. Rxd8+ Bxd8 17. Qb2 f6 18. Bh3 Nc7 19. Nd4 Qd7 20. Bg4 f5
21. Bf3 Nd5 22. Qb3 Nxc3 23. Qxc3 Bf6 24. Bxa8 Bxd4 25. Qd3 Qd8 26. Bb7 Kf7
27. Ba6 Bf6 28. Qb3 Ke7 29. Bc4 Qd6 30. Qf3 Be5 31. Bb3 Kf6 32. h4 Bb2 33. g4 Bxa3
34. Qc3+ Kg6 35. h5+ Kh6 36. g5+ Kxh5 37. Qxg7 Kg4 38. g6 h5 39. Qc3 1-0

[Event "Chess960 rapid WCh"]
[Site "Mainz GER"]
[Date "2006"]
[Round "6"]
[White "Svidler, Peter"]
[Black "Aronian, Levon"]
[Result "1-0"]
[Variant "Chess960"]
[SetUp "1"]
[FEN "qnrkbrnb/pppppppp/8/8/8/8/PPPPPPPP/QNRKBRNB w KQkq - 0 1"]

1. d4 g6 2. Nf3 c5 3. d5 d6 4. a4 Na6 5. c4 Bd7 6. Bc3 Nf6 7. b3 O-O-O 8. O-O Ne4
9. Bxh8 Rxh8 10. g3 Qb8 11. Ne1 Nf6 12. Nd3 h5 13. b4 h4 14. b5 Nc7 15. Nd2 Rh6
16. Nf3 hxg3 17. fxg3 Rdh8 18. Ng5 Rxh2 19. Bg2 R8h5 20. Nxf7 Ng4 21. Nf4 Ne3
22. Rf3 Nxg2 23. Nxh5 Rxh5 24. Kxg2 Bh3+ 25. Kg1 Ne8 26. a5 Bf5 27. Re3 e5
28. dxe6 Qc7 29. e7 Rh7 30. Ng5 Rxe7 31. b6 1-0
"#;

/// Drills of the special moves, as PGN (positions and moves written for this project).
pub const DRILLS_PGN: &str = r#"[Event "Drill: en passant by both sides"]

1. e4 Nc6 2. e5 d5 3. exd6 Nf6 4. dxc7 Qxc7 5. a3 b5 6. a4 b4 7. c4 bxc3 8. Nxc3 *

[Event "Drill: promotions with capture and to every piece"]
[SetUp "1"]
[FEN "r3k2r/1P4P1/8/8/8/8/1p4p1/R3K2R w - - 0 1"]

1. bxa8=Q+ Ke7 2. gxh8=N bxa1=R+ 3. Kd2 gxh1=B 4. Qb7+ *

[Event "Drill: promotions without capture"]
[SetUp "1"]
[FEN "4k3/P7/8/8/8/8/7p/4K3 w - - 0 1"]

1. a8=Q+ Ke7 2. Kd2 h1=N 3. Qa7+ *

[Event "Drill: castling king side and queen side"]
[SetUp "1"]
[FEN "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1"]

1. O-O O-O-O 2. a3 a6 *

[Event "Drill: castling queen side and king side"]
[SetUp "1"]
[FEN "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1"]

1. O-O-O O-O *

[Event "Drill: Chess960 castling, the king stays"]
[Variant "Chess960"]
[SetUp "1"]
[FEN "r5kr/pppppppp/8/8/8/8/PPPPPPPP/R5KR w HAha - 0 1"]

1. O-O O-O-O *

[Event "Drill: Chess960 castling, the rook stays"]
[Variant "Chess960"]
[SetUp "1"]
[FEN "r3kr2/pppppppp/8/8/8/8/PPPPPPPP/R3KR2 w AFaf - 0 1"]

1. O-O O-O *

[Event "Drill: Chess960 castling, king and rook trade squares"]
[Variant "Chess960"]
[SetUp "1"]
[FEN "5kr1/pppppppp/8/8/8/8/PPPPPPPP/5KR1 w Gg - 0 1"]

1. O-O O-O *

[Event "Drill: Chess960 castling, the king lands on the rook's square"]
[Variant "Chess960"]
[SetUp "1"]
[FEN "4k1r1/pppppppp/8/8/8/8/PPPPPPPP/4K1R1 w Gg - 0 1"]

1. O-O O-O *
"#;

/// The embedded real games.
pub fn real_games() -> Vec<Game> {
    // The embedded text is fixed and checked by the tests.
    parse_games(REAL_GAMES_PGN).unwrap_or_default()
}

/// The drills of the special moves.
pub fn drills() -> Vec<Game> {
    parse_games(DRILLS_PGN).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_games_are_legal() {
        assert_eq!(parse_games(REAL_GAMES_PGN).map(|g| g.len()), Ok(6));
        assert_eq!(parse_games(DRILLS_PGN).map(|g| g.len()), Ok(9));
    }
}
