//! `--livechess-listen ADDR`: the DGT LiveChess WebSocket API, so that programs written for
//! LiveChess (lichess.org/dgt among them) can use eboardd's boards.
//!
//! The API lives at `ws://ADDR/api/v1.0`, as LiveChess serves it on port 1982. Clients send
//! calls as JSON text and get answers and feed messages back ([`message`]):
//!
//! - `eboards`: every board attached, DGT and Millennium alike; a board's `serialnr` is its
//!   number in eboardd (from 1, as in `--relay-listen`'s `/board/N.pgn`), and the board can
//!   also be named by its own serial number where one board has it;
//! - `subscribe` to the `eboardevent` feed of a board: a feed message at once, then one
//!   whenever the sensed board, the clock or the game changes, with the SAN of every move
//!   since the feed's start ([`feed`]);
//! - `call` with method `setup` (`param.fen`): the board's moves are rebuilt from that
//!   position — the feed starts there if the game passed through it, otherwise the board's
//!   game starts again from it; with method `flip` (`param.flip`): the board stands turned
//!   or not from now on;
//! - `unsubscribe`.
//!
//! A plain `GET /api/v1.0/eboards` answers the board list as JSON. Messages that are not
//! understood get an error answer; the connection stays open. The server ([`server`]) only
//! uses the daemon's board handles: it asks them for their game and status and sends them
//! commands, and knows nothing of ports, cores or D-Bus.

pub mod feed;
pub mod message;
pub mod server;

pub use server::serve;

/// Where the API is served.
pub const PATH: &str = "/api/v1.0";
