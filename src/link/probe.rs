//! Telling which protocol a board speaks, by asking it.
//!
//! Each board type is asked as its driver says ([`Protocol::probe`]: the request, how long
//! the board has to answer, and a recogniser over the bytes read), at its line speed, in
//! the order of [`Protocol::ALL`] (DGT first: reset and a board request, answered by a
//! board dump within 1.5 s; then Millennium: `V`, answered by its version). [`probe`] runs
//! them over a port. Nothing here decodes a game.

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::time::Instant;
use tokio_serial::{SerialPort, SerialStream};

use super::LinkError;
use crate::protocol::Protocol;

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
    let rest = Protocol::ALL.into_iter().filter(|p| *p != first);
    for protocol in std::iter::once(first).chain(rest) {
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
    let probe = protocol.probe();
    let link = |e: &std::io::Error| ProbeError::Link(LinkError::from_io(e));
    port.write_all(&probe.request).await.map_err(|e| link(&e))?;
    port.flush().await.map_err(|e| link(&e))?;
    let deadline = Instant::now() + probe.wait;
    let mut seen = Vec::new();
    let mut buf = [0u8; 256];
    loop {
        let read = tokio::time::timeout_at(deadline, port.read(&mut buf)).await;
        match read {
            Err(_elapsed) => return Ok(false),
            Ok(Ok(0)) => return Err(ProbeError::Link(LinkError::end_of_file())),
            Ok(Ok(n)) => {
                seen.extend_from_slice(&buf[..n]);
                if (probe.answered)(&seen) {
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

    use crate::protocol::{dgt, millennium};

    const DGT_WAIT: std::time::Duration = dgt::driver::PROBE_WAIT;
    const MILLENNIUM_WAIT: std::time::Duration = millennium::driver::PROBE_WAIT;

    /// An empty board's dump, as a DGT board sends it.
    fn dump() -> Vec<u8> {
        crate::protocol::dgt::BoardMessage::BoardDump(Box::new([0; 64]))
            .to_bytes()
            .expect("a dump encodes")
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
        assert_eq!(started.elapsed(), std::time::Duration::ZERO, "no DGT wait");
    }

    #[tokio::test(start_paused = true)]
    async fn a_silent_port_is_no_board_after_both_waits() {
        let mut p = port(None);
        let started = Instant::now();
        assert_eq!(probe(&mut p).await, Err(ProbeError::NoAnswer));
        assert_eq!(started.elapsed(), DGT_WAIT + MILLENNIUM_WAIT);
    }
}
