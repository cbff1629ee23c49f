//! Telling which protocol a board speaks, by asking it.
//!
//! DGT first (9600 baud): reset and a board request, which a DGT board answers with a
//! board dump within 1.5 s. Then Millennium (38400 baud, odd parity in software): `V`,
//! answered by `v` with the version and a valid checksum. The recognisers are plain
//! functions over the bytes read; [`probe`] runs them over a port. The byte values are the
//! fact sheets'; the codecs will offer typed helpers later. Nothing here decodes a game.

use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::time::Instant;
use tokio_serial::{SerialPort, SerialStream};

use super::link::LinkError;
use crate::protocol::Protocol;
use crate::protocol::millennium;

/// What a DGT board is sent: DGT_SEND_RESET, DGT_SEND_BRD.
pub const DGT_PROBE: [u8; 2] = [0x40, 0x42];
/// How long a DGT board has to send its board dump.
pub const DGT_WAIT: Duration = Duration::from_millis(1500);
/// How long a Millennium board has to answer `V`.
pub const MILLENNIUM_WAIT: Duration = Duration::from_secs(2);

const DGT_BOARD_DUMP: [u8; 3] = [0x86, 0x00, 0x43];

/// Why probing found no board.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProbeError {
    /// Nothing answered like a board.
    #[error("no board answered (tried dgt and millennium)")]
    NoAnswer,
    /// The port failed while probing.
    #[error("{0}")]
    Link(LinkError),
}

/// Whether `bytes` hold a complete DGT board dump (message 0x86, length 67).
pub fn has_dgt_board_dump(bytes: &[u8]) -> bool {
    bytes.windows(3).enumerate().any(|(i, w)| {
        w == DGT_BOARD_DUMP
            && bytes
                .get(i + 3..i + 67)
                .is_some_and(|squares| squares.iter().all(|&c| c < 0x80))
    })
}

/// Whether `bytes` hold a Millennium version reply (`v`, four hex digits, checksum), with
/// or without the parity bit.
pub fn has_millennium_version(bytes: &[u8]) -> bool {
    let seven: Vec<u8> = bytes.iter().map(|b| b & 0x7f).collect();
    seven.windows(7).any(|w| {
        if w[0] != b'v' || !w[1..].iter().all(u8::is_ascii_hexdigit) {
            return false;
        }
        let sum = w[..5].iter().fold(0u8, |acc, b| acc ^ b);
        let given = std::str::from_utf8(&w[5..7])
            .ok()
            .and_then(|s| u8::from_str_radix(s, 16).ok());
        given == Some(sum)
    })
}

/// A port that can be probed: bytes both ways and a settable line speed.
pub trait ProbePort: AsyncRead + AsyncWrite + Unpin {
    /// Changes the line speed.
    fn set_speed(&mut self, baud: u32) -> Result<(), LinkError>;
}

impl ProbePort for SerialStream {
    fn set_speed(&mut self, baud: u32) -> Result<(), LinkError> {
        self.set_baud_rate(baud).map_err(|e| LinkError {
            unplugged: false,
            reason: format!("cannot set {baud} baud: {e}"),
        })
    }
}

/// Asks the board on `port` which protocol it speaks. The port is left at the found
/// protocol's speed.
pub async fn probe<P: ProbePort>(port: &mut P) -> Result<Protocol, ProbeError> {
    probe_first(port, Protocol::Dgt).await
}

/// Like [`probe`], but asks as `first` before the other protocol: a board coming back
/// most likely speaks what it spoke before, and is then found without waiting out the
/// other protocol's silence.
pub async fn probe_first<P: ProbePort>(
    port: &mut P,
    first: Protocol,
) -> Result<Protocol, ProbeError> {
    let order = match first {
        Protocol::Dgt => [Protocol::Dgt, Protocol::Millennium],
        Protocol::Millennium => [Protocol::Millennium, Protocol::Dgt],
    };
    for protocol in order {
        if ask_protocol(port, protocol).await? {
            return Ok(protocol);
        }
    }
    Err(ProbeError::NoAnswer)
}

/// Asks once as `protocol` would be asked; whether the board answered as one of its boards.
async fn ask_protocol<P: ProbePort>(port: &mut P, protocol: Protocol) -> Result<bool, ProbeError> {
    port.set_speed(protocol.baud_rate())
        .map_err(ProbeError::Link)?;
    match protocol {
        Protocol::Dgt => ask(port, &DGT_PROBE, DGT_WAIT, has_dgt_board_dump).await,
        Protocol::Millennium => {
            let version = millennium::Command::Version.encode();
            ask(port, &version, MILLENNIUM_WAIT, has_millennium_version).await
        }
    }
}

async fn ask<P: ProbePort>(
    port: &mut P,
    request: &[u8],
    wait: Duration,
    answered: fn(&[u8]) -> bool,
) -> Result<bool, ProbeError> {
    let link = |e: &std::io::Error| ProbeError::Link(LinkError::from_io(e));
    port.write_all(request).await.map_err(|e| link(&e))?;
    port.flush().await.map_err(|e| link(&e))?;
    let deadline = Instant::now() + wait;
    let mut seen = Vec::new();
    let mut buf = [0u8; 256];
    loop {
        let read = tokio::time::timeout_at(deadline, port.read(&mut buf)).await;
        match read {
            Err(_elapsed) => return Ok(false),
            Ok(Ok(0)) => return Err(ProbeError::Link(LinkError::end_of_file())),
            Ok(Ok(n)) => {
                seen.extend_from_slice(&buf[..n]);
                if answered(&seen) {
                    return Ok(true);
                }
                if seen.len() > 4096 {
                    seen.drain(..seen.len() - 256);
                }
            }
            Ok(Err(e)) => return Err(link(&e)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dump() -> Vec<u8> {
        let mut d = DGT_BOARD_DUMP.to_vec();
        d.extend([0u8; 64]);
        d
    }

    #[test]
    fn a_dgt_dump_is_recognised_after_noise_but_not_when_cut_short() {
        let mut bytes = vec![0x13, 0x80];
        bytes.extend(dump());
        assert!(has_dgt_board_dump(&bytes));
        assert!(!has_dgt_board_dump(&dump()[..60]));
        let mut broken = dump();
        broken[10] = 0x8e;
        assert!(!has_dgt_board_dump(&broken));
    }

    #[test]
    fn a_millennium_version_is_recognised_with_or_without_parity() {
        // "v010374" as domschl's log shows it on the wire, parity included.
        let wire = [0x76, 0xb0, 0x31, 0xb0, 0xb3, 0x37, 0x34];
        assert!(has_millennium_version(&wire));
        assert!(has_millennium_version(b"s....v010374"));
        assert!(!has_millennium_version(b"v010375"), "bad checksum");
    }

    struct Scripted {
        answer: Option<(u32, Vec<u8>)>,
        speed: u32,
        pending: Vec<u8>,
    }

    impl AsyncRead for Scripted {
        fn poll_read(
            mut self: std::pin::Pin<&mut Self>,
            _cx: &mut std::task::Context<'_>,
            buf: &mut tokio::io::ReadBuf<'_>,
        ) -> std::task::Poll<std::io::Result<()>> {
            if self.pending.is_empty() {
                return std::task::Poll::Pending;
            }
            let bytes = std::mem::take(&mut self.pending);
            buf.put_slice(&bytes);
            std::task::Poll::Ready(Ok(()))
        }
    }

    impl AsyncWrite for Scripted {
        fn poll_write(
            mut self: std::pin::Pin<&mut Self>,
            _cx: &mut std::task::Context<'_>,
            buf: &[u8],
        ) -> std::task::Poll<std::io::Result<usize>> {
            if let Some((speed, answer)) = self.answer.clone()
                && speed == self.speed
            {
                self.pending.extend(answer);
            }
            std::task::Poll::Ready(Ok(buf.len()))
        }
        fn poll_flush(
            self: std::pin::Pin<&mut Self>,
            _cx: &mut std::task::Context<'_>,
        ) -> std::task::Poll<std::io::Result<()>> {
            std::task::Poll::Ready(Ok(()))
        }
        fn poll_shutdown(
            self: std::pin::Pin<&mut Self>,
            _cx: &mut std::task::Context<'_>,
        ) -> std::task::Poll<std::io::Result<()>> {
            std::task::Poll::Ready(Ok(()))
        }
    }

    impl ProbePort for Scripted {
        fn set_speed(&mut self, baud: u32) -> Result<(), LinkError> {
            self.speed = baud;
            Ok(())
        }
    }

    fn port(answer: Option<(u32, Vec<u8>)>) -> Scripted {
        Scripted {
            answer,
            speed: 0,
            pending: Vec::new(),
        }
    }

    #[tokio::test(start_paused = true)]
    async fn a_board_answering_with_a_dump_at_9600_is_dgt() {
        let mut p = port(Some((9600, dump())));
        assert_eq!(probe(&mut p).await, Ok(Protocol::Dgt));
    }

    #[tokio::test(start_paused = true)]
    async fn a_board_answering_v_at_38400_is_millennium() {
        let mut p = port(Some((38400, b"v010374".to_vec())));
        let started = Instant::now();
        assert_eq!(probe(&mut p).await, Ok(Protocol::Millennium));
        assert_eq!(started.elapsed(), DGT_WAIT, "DGT was given its 1.5 s first");
        assert_eq!(p.speed, 38400);
    }

    #[tokio::test(start_paused = true)]
    async fn a_millennium_board_coming_back_is_asked_as_millennium_first() {
        let mut p = port(Some((38400, b"v010374".to_vec())));
        let started = Instant::now();
        assert_eq!(
            probe_first(&mut p, Protocol::Millennium).await,
            Ok(Protocol::Millennium)
        );
        assert_eq!(started.elapsed(), Duration::ZERO, "no DGT wait");
    }

    #[tokio::test(start_paused = true)]
    async fn a_silent_port_is_no_board_after_both_waits() {
        let mut p = port(None);
        let started = Instant::now();
        assert_eq!(probe(&mut p).await, Err(ProbeError::NoAnswer));
        assert_eq!(started.elapsed(), DGT_WAIT + MILLENNIUM_WAIT);
    }
}
