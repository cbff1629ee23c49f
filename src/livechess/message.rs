//! The LiveChess messages: the calls clients send and eboardd's answers, as JSON text.
//!
//! A client sends `{"id": N, "call": NAME, "param": {...}}`; eboardd answers a call with
//! `{"response": "call", "id": N, "param": RESULT, "time": MS}` or
//! `{"response": "error", "id": N, "param": {"message": TEXT}, "time": MS}`, and sends feed
//! messages `{"response": "feed", "id": FEED, "param": EVENT, "time": MS}` (`time` is
//! milliseconds since the Unix epoch). Ids are compared as numbers: a client may send
//! `1` or `"1"`, and is answered `1`. This module only reads and writes the text; it
//! knows nothing of sockets or boards.

use serde::Serialize;
use serde_json::Value;

/// A call's or a feed's id, read as a number.
pub type Id = i64;

/// What a client asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Call {
    /// `eboards`: the list of boards.
    EBoards,
    /// `subscribe` to the `eboardevent` feed of the board `serialnr`, as feed `feed`.
    Subscribe {
        /// The feed id the client chose.
        feed: Id,
        /// The board.
        serialnr: String,
    },
    /// `unsubscribe` (or `call` with method `unsubscribe`): end feed `feed`.
    Unsubscribe {
        /// The feed.
        feed: Id,
    },
    /// `call` with method `setup`: the board's moves are rebuilt from `fen`.
    Setup {
        /// The feed naming the board.
        feed: Id,
        /// The position, a full FEN.
        fen: String,
    },
    /// `call` with method `flip`: the board stands turned (`true`) or not (`false`);
    /// without a value, the other way round from now.
    Flip {
        /// The feed naming the board.
        feed: Id,
        /// Turned or not.
        flip: Option<bool>,
    },
}

/// A message that is not a call eboardd understands: the id to answer (as sent, when it
/// was not a number; `null` when there was none) and why.
#[derive(Debug, Clone, PartialEq)]
pub struct BadCall {
    /// The id to put in the error answer.
    pub id: Value,
    /// What was wrong, for people.
    pub message: String,
}

/// Reads an id: a JSON integer or a string holding one.
///
/// ```
/// use eboardd::livechess::message::read_id;
/// assert_eq!(read_id(&serde_json::json!(7)), Some(7));
/// assert_eq!(read_id(&serde_json::json!(" 7")), Some(7));
/// assert_eq!(read_id(&serde_json::json!("seven")), None);
/// ```
pub fn read_id(value: &Value) -> Option<Id> {
    match value {
        Value::Number(n) => n.as_i64().or_else(|| {
            n.as_f64()
                .filter(|f| f.fract() == 0.0 && f.abs() < 9.0e15)
                .map(|f| f as Id)
        }),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

fn bad(id: &Value, message: impl Into<String>) -> BadCall {
    BadCall {
        id: read_id(id).map_or_else(|| id.clone(), Value::from),
        message: message.into(),
    }
}

/// The feed id in `param.id`.
fn feed_id(call_id: &Value, param: &Value) -> Result<Id, BadCall> {
    read_id(&param["id"]).ok_or_else(|| bad(call_id, "param.id must be the feed's id, a number"))
}

/// Reads one message from a client: its id and the call.
pub fn parse(text: &str) -> Result<(Id, Call), BadCall> {
    let value: Value =
        serde_json::from_str(text).map_err(|e| bad(&Value::Null, format!("not JSON: {e}")))?;
    let Value::Object(map) = &value else {
        return Err(bad(&Value::Null, "a call must be a JSON object"));
    };
    let raw_id = map.get("id").cloned().unwrap_or(Value::Null);
    let id = read_id(&raw_id).ok_or_else(|| bad(&raw_id, "id must be a number"))?;
    let Some(name) = map.get("call").and_then(Value::as_str) else {
        return Err(bad(&raw_id, "call must name the call (a string)"));
    };
    let param = map.get("param").cloned().unwrap_or(Value::Null);
    let call = match name {
        "eboards" => Call::EBoards,
        "subscribe" => {
            let feed = param["feed"].as_str().unwrap_or_default();
            if feed != "eboardevent" {
                return Err(bad(
                    &raw_id,
                    format!("unknown feed {:?}: eboardd serves \"eboardevent\"", feed),
                ));
            }
            let serialnr = match &param["param"]["serialnr"] {
                Value::String(s) => s.clone(),
                Value::Number(n) => n.to_string(),
                _ => {
                    return Err(bad(&raw_id, "param.param.serialnr must name the board"));
                }
            };
            Call::Subscribe {
                feed: feed_id(&raw_id, &param)?,
                serialnr,
            }
        }
        "unsubscribe" => Call::Unsubscribe {
            feed: feed_id(&raw_id, &param)?,
        },
        "call" => {
            let feed = feed_id(&raw_id, &param)?;
            match param["method"].as_str() {
                Some("setup") => match param["param"]["fen"].as_str() {
                    Some(fen) if !fen.trim().is_empty() => Call::Setup {
                        feed,
                        fen: fen.trim().to_string(),
                    },
                    _ => return Err(bad(&raw_id, "setup needs param.param.fen, a FEN")),
                },
                Some("flip") => match &param["param"]["flip"] {
                    Value::Bool(b) => Call::Flip {
                        feed,
                        flip: Some(*b),
                    },
                    Value::Null => Call::Flip { feed, flip: None },
                    _ => return Err(bad(&raw_id, "flip takes param.param.flip, true or false")),
                },
                Some("unsubscribe") => Call::Unsubscribe { feed },
                Some(other) => {
                    return Err(bad(
                        &raw_id,
                        format!("unknown method {other:?} (setup, flip, unsubscribe)"),
                    ));
                }
                None => return Err(bad(&raw_id, "call needs param.method")),
            }
        }
        other => {
            return Err(bad(
                &raw_id,
                format!("unknown call {other:?} (eboards, subscribe, unsubscribe, call)"),
            ));
        }
    };
    Ok((id, call))
}

/// A clock reading as LiveChess gives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Clock {
    /// White's time left, in whole seconds.
    pub white: u64,
    /// Black's time left, in whole seconds.
    pub black: u64,
    /// `true`: White's clock runs; `false`: Black's; `null`: stopped.
    pub run: Option<bool>,
    /// When the clock was read, in milliseconds since the Unix epoch.
    pub time: u64,
}

/// One board in the answer to `eboards`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EBoard {
    /// The board's key: its number in eboardd, from 1.
    pub serialnr: String,
    /// Where it is attached (the device path).
    pub source: Option<String>,
    /// `ACTIVE` when it answers, `NOTRESPONDING` when it does not.
    pub state: Option<&'static str>,
    /// Always `null`: eboardd does not read batteries.
    pub battery: Option<String>,
    /// The protocol and the board's own serial number or version, when known.
    pub comment: Option<String>,
    /// The sensed piece placement (FEN placement), once reported.
    pub board: Option<String>,
    /// Whether the board stands turned (rotated 180°).
    pub flipped: bool,
    /// The last clock reading, when there is a clock.
    pub clock: Option<Clock>,
}

/// The `param` of a feed message of the `eboardevent` feed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EBoardEvent {
    /// The board.
    pub serialnr: String,
    /// Whether the board stands turned.
    pub flipped: bool,
    /// The sensed piece placement, once reported.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub board: Option<String>,
    /// The last clock reading, when there is a clock.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub clock: Option<Clock>,
    /// The FEN the moves in `san` start from.
    pub start: String,
    /// Every move since `start`, in SAN.
    pub san: Vec<String>,
    /// Whether the sensed board is the position the moves lead to.
    #[serde(rename = "match")]
    pub matches: bool,
}

#[derive(Serialize)]
struct Envelope<'a, P: Serialize> {
    response: &'a str,
    id: Value,
    param: P,
    time: u64,
}

fn envelope<P: Serialize>(response: &str, id: Value, param: P, time: u64) -> String {
    let e = Envelope {
        response,
        id,
        param,
        time,
    };
    // Plain strings, numbers and maps: serialising cannot fail.
    serde_json::to_string(&e).unwrap_or_default()
}

/// The answer to call `id`.
pub fn call_reply<P: Serialize>(id: Id, param: P, time: u64) -> String {
    envelope("call", Value::from(id), param, time)
}

/// The error answer to a call.
pub fn error_reply(id: Value, message: &str, time: u64) -> String {
    envelope("error", id, serde_json::json!({ "message": message }), time)
}

/// A message of feed `feed`.
pub fn feed_message(feed: Id, event: &EBoardEvent, time: u64) -> String {
    envelope("feed", Value::from(feed), event, time)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn value(text: &str) -> Value {
        serde_json::from_str(text).expect("JSON")
    }

    #[test]
    fn the_calls_lichess_sends_are_read() {
        assert_eq!(
            parse(r#"{"id":1,"call":"eboards"}"#),
            Ok((1, Call::EBoards))
        );
        let sub = r#"{"id":2,"call":"subscribe","param":{"feed":"eboardevent","id":1,"param":{"serialnr":"3000147740"}}}"#;
        assert_eq!(
            parse(sub),
            Ok((
                2,
                Call::Subscribe {
                    feed: 1,
                    serialnr: "3000147740".into()
                }
            ))
        );
        let setup = r#"{"id":3,"call":"call","param":{"id":1,"method":"setup","param":{"fen":"8/8/8/8/8/8/8/K1k5 w - - 0 1"}}}"#;
        assert_eq!(
            parse(setup),
            Ok((
                3,
                Call::Setup {
                    feed: 1,
                    fen: "8/8/8/8/8/8/8/K1k5 w - - 0 1".into()
                }
            ))
        );
        let flip =
            r#"{"id":4,"call":"call","param":{"id":7,"method":"flip","param":{"flip":true}}}"#;
        assert_eq!(
            parse(flip),
            Ok((
                4,
                Call::Flip {
                    feed: 7,
                    flip: Some(true)
                }
            ))
        );
    }

    #[test]
    fn ids_in_strings_are_numbers() {
        assert_eq!(
            parse(r#"{"id":"12","call":"eboards"}"#),
            Ok((12, Call::EBoards))
        );
        let sub = r#"{"id":2.0,"call":"unsubscribe","param":{"id":"5"}}"#;
        assert_eq!(parse(sub), Ok((2, Call::Unsubscribe { feed: 5 })));
    }

    #[test]
    fn bad_messages_say_what_is_wrong_and_keep_the_id() {
        let e = parse("{nope").expect_err("not JSON");
        assert_eq!(e.id, Value::Null);
        assert!(e.message.starts_with("not JSON"), "{}", e.message);
        let e = parse(r#"{"id":"9","call":"dance"}"#).expect_err("unknown");
        assert_eq!(e.id, json!(9));
        assert!(
            e.message.contains("unknown call \"dance\""),
            "{}",
            e.message
        );
        let e = parse(r#"{"id":"x","call":"eboards"}"#).expect_err("id");
        assert_eq!(e.id, json!("x"));
        let e = parse(r#"{"id":3,"call":"subscribe","param":{"feed":"clocks","id":1}}"#)
            .expect_err("feed");
        assert!(e.message.contains("eboardevent"), "{}", e.message);
        let e = parse(r#"{"id":3,"call":"call","param":{"id":1,"method":"setup"}}"#)
            .expect_err("no fen");
        assert!(e.message.contains("fen"), "{}", e.message);
        assert!(parse("[1,2]").is_err());
    }

    #[test]
    fn answers_have_the_livechess_shape() {
        assert_eq!(
            value(&call_reply(2, Value::Null, 1_000)),
            json!({"response":"call","id":2,"param":null,"time":1000})
        );
        assert_eq!(
            value(&error_reply(json!(3), "no", 5)),
            json!({"response":"error","id":3,"param":{"message":"no"},"time":5})
        );
        let event = EBoardEvent {
            serialnr: "1".into(),
            flipped: false,
            board: Some("8/8/8/8/8/8/8/K1k5".into()),
            clock: Some(Clock {
                white: 60,
                black: 59,
                run: None,
                time: 7,
            }),
            start: "8/8/8/8/8/8/8/K1k5 w - - 0 1".into(),
            san: vec!["Kb1".into()],
            matches: true,
        };
        assert_eq!(
            value(&feed_message(1, &event, 9)),
            json!({"response":"feed","id":1,"time":9,"param":{
                "serialnr":"1","flipped":false,"board":"8/8/8/8/8/8/8/K1k5",
                "clock":{"white":60,"black":59,"run":null,"time":7},
                "start":"8/8/8/8/8/8/8/K1k5 w - - 0 1","san":["Kb1"],"match":true}})
        );
        let board = EBoard {
            serialnr: "2".into(),
            source: Some("/dev/ttyACM0".into()),
            state: Some("ACTIVE"),
            battery: None,
            comment: None,
            board: None,
            flipped: true,
            clock: None,
        };
        assert_eq!(
            serde_json::to_value(&board).expect("value"),
            json!({"serialnr":"2","source":"/dev/ttyACM0","state":"ACTIVE","battery":null,
                   "comment":null,"board":null,"flipped":true,"clock":null})
        );
    }
}
