//! The PGN lexer: splits a text into games, each with its tags and main-line move tokens.
//!
//! It never fails: a syntax problem (a comment or variation never closed, a broken tag
//! pair) is kept in the game and reported when the game is resolved. Comments, variations,
//! NAGs, move numbers, annotation glyphs and `%` escape lines are dropped here.

/// A game as the lexer found it: tags and main-line move tokens, not yet resolved.
#[derive(Debug, Default)]
pub(super) struct RawGame {
    pub(super) tags: Vec<(String, String)>,
    pub(super) moves: Vec<String>,
    pub(super) result: Option<String>,
    pub(super) error: Option<String>,
}

impl RawGame {
    fn is_empty(&self) -> bool {
        self.tags.is_empty() && self.moves.is_empty() && self.result.is_none()
    }
}

/// Splits the text into raw games. Never fails: syntax problems are kept in the game.
pub(super) fn split_games(text: &str) -> Vec<RawGame> {
    let chars: Vec<char> = text.chars().collect();
    let mut games = Vec::new();
    let mut cur = RawGame::default();
    let mut in_movetext = false;
    let mut depth = 0usize; // variation nesting
    let mut i = 0;
    let mut line_start = true;
    while i < chars.len() {
        let c = chars[i];
        if line_start && c == '%' {
            // Escape line: ignored to its end.
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
            continue;
        }
        line_start = c == '\n';
        match c {
            c if c.is_whitespace() => i += 1,
            '[' if depth == 0 => {
                if in_movetext || cur.result.is_some() {
                    games.push(std::mem::take(&mut cur));
                    in_movetext = false;
                }
                match read_tag(&chars, i) {
                    Ok((tag, next)) => {
                        cur.tags.push(tag);
                        i = next;
                    }
                    Err(msg) => {
                        cur.error.get_or_insert(msg);
                        i = skip_line(&chars, i);
                    }
                }
            }
            '{' => match chars[i..].iter().position(|&c| c == '}') {
                Some(n) => i += n + 1,
                None => {
                    cur.error
                        .get_or_insert("a comment { is never closed".into());
                    i = chars.len();
                }
            },
            ';' => i = skip_line(&chars, i),
            '(' => {
                depth += 1;
                in_movetext = true;
                i += 1;
            }
            ')' => {
                if depth == 0 {
                    cur.error.get_or_insert("a ) closes no variation".into());
                } else {
                    depth -= 1;
                }
                i += 1;
            }
            _ => {
                let start = i;
                while i < chars.len() && !is_delimiter(chars[i]) {
                    i += 1;
                }
                if i == start {
                    // A lone delimiter we do not use ('[' inside a variation, ']', '"').
                    i += 1;
                    continue;
                }
                let token: String = chars[start..i].iter().collect();
                in_movetext = true;
                if depth > 0 {
                    continue;
                }
                if let Some(result) = as_result(&token) {
                    cur.result = Some(result.to_string());
                    games.push(std::mem::take(&mut cur));
                    in_movetext = false;
                    continue;
                }
                for mv in move_tokens(&token) {
                    cur.moves.push(mv);
                }
            }
        }
    }
    if depth > 0 {
        cur.error
            .get_or_insert("a variation ( is never closed".into());
    }
    if !cur.is_empty() || cur.error.is_some() {
        games.push(cur);
    }
    games
}

fn is_delimiter(c: char) -> bool {
    c.is_whitespace() || matches!(c, '{' | '}' | '(' | ')' | '[' | ']' | ';' | '"')
}

fn skip_line(chars: &[char], mut i: usize) -> usize {
    while i < chars.len() && chars[i] != '\n' {
        i += 1;
    }
    i
}

/// Reads `[Key "Value"]` starting at `i` (which holds `[`).
fn read_tag(chars: &[char], mut i: usize) -> Result<((String, String), usize), String> {
    i += 1;
    while i < chars.len() && chars[i].is_whitespace() {
        i += 1;
    }
    let key_start = i;
    while i < chars.len() && !chars[i].is_whitespace() && chars[i] != '"' && chars[i] != ']' {
        i += 1;
    }
    let key: String = chars[key_start..i].iter().collect();
    while i < chars.len() && chars[i].is_whitespace() && chars[i] != '\n' {
        i += 1;
    }
    if key.is_empty() || i >= chars.len() || chars[i] != '"' {
        return Err(format!("a tag pair [{key} ...] has no quoted value"));
    }
    i += 1;
    let mut value = String::new();
    loop {
        match chars.get(i) {
            None | Some('\n') => return Err(format!("the value of tag {key} is never closed")),
            Some('\\') if matches!(chars.get(i + 1), Some('"') | Some('\\')) => {
                value.push(chars[i + 1]);
                i += 2;
            }
            Some('"') => {
                i += 1;
                break;
            }
            Some(&c) => {
                value.push(c);
                i += 1;
            }
        }
    }
    while i < chars.len() && chars[i] != ']' && chars[i] != '\n' {
        i += 1;
    }
    if chars.get(i) != Some(&']') {
        return Err(format!("the tag pair {key} has no closing ]"));
    }
    Ok(((key, value), i + 1))
}

fn as_result(token: &str) -> Option<&'static str> {
    match token {
        "1-0" => Some("1-0"),
        "0-1" => Some("0-1"),
        "1/2-1/2" | "½-½" => Some("1/2-1/2"),
        "*" => Some("*"),
        _ => None,
    }
}

/// The moves in a movetext token: move numbers (`12.`, `12...`), NAGs and annotation
/// glyphs are dropped; `12.e4` gives `e4`.
fn move_tokens(token: &str) -> Vec<String> {
    let mut out = Vec::new();
    // A move number may be glued to the move: "12.e4" or "12...Nf6".
    let rest = token.trim_start_matches(|c: char| c.is_ascii_digit());
    let rest = if rest.len() < token.len() && rest.starts_with('.') {
        rest.trim_start_matches('.')
    } else {
        token
    };
    let numeric = rest.chars().all(|c| c.is_ascii_digit());
    if numeric || rest.starts_with('$') || rest == "e.p." || rest == "ep" {
        return out;
    }
    let cleaned: String = rest.trim_end_matches(['!', '?']).to_string();
    let cleaned = cleaned.strip_suffix("e.p.").unwrap_or(&cleaned).to_string();
    if cleaned.is_empty() || cleaned.chars().all(|c| matches!(c, '!' | '?' | '+' | '#')) {
        return out;
    }
    out.push(cleaned);
    out
}

/// Normalises common SAN spellings shakmaty's strict reader does not take:
/// `0-0`, a promotion without `=`, a lower-case promotion piece.
pub(super) fn normalise_san(token: &str) -> String {
    let t = token.replace("0-0-0", "O-O-O").replace("0-0", "O-O");
    // Find the end of the move proper (before +/#).
    let end = t.trim_end_matches(['+', '#']).len();
    let body = &t[..end];
    let suffix = &t[end..];
    let b = body.as_bytes();
    if b.len() >= 3 && b[0].is_ascii_lowercase() {
        let last = b[b.len() - 1];
        let before = b[b.len() - 2];
        let promo = matches!(last.to_ascii_uppercase(), b'Q' | b'R' | b'B' | b'N');
        if promo && before == b'=' {
            let mut s = body[..body.len() - 1].to_string();
            s.push(char::from(last.to_ascii_uppercase()));
            return s + suffix;
        }
        if promo && (before == b'1' || before == b'8') && last.is_ascii_uppercase() {
            let mut s = body[..body.len() - 1].to_string();
            s.push('=');
            s.push(char::from(last));
            return s + suffix;
        }
    }
    t
}
