//! A connection that ends itself when nothing has moved either way for a while.
//!
//! [`IdleIo`] wraps a stream: every read or write that moves a byte pushes its deadline
//! back, and a read or write still waiting when the deadline passes fails with
//! `TimedOut`. A client that holds a connection open without sending, or stops reading
//! what it is sent (an event stream it never reads), loses it. It knows nothing of HTTP.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::time::{Instant, Sleep};

/// A stream with an idle deadline (see the module documentation).
#[derive(Debug)]
pub struct IdleIo<T> {
    inner: T,
    timeout: Duration,
    deadline: Pin<Box<Sleep>>,
}

impl<T> IdleIo<T> {
    /// `inner`, closed after `timeout` without a byte moved either way.
    pub fn new(inner: T, timeout: Duration) -> IdleIo<T> {
        IdleIo {
            inner,
            timeout,
            deadline: Box::pin(tokio::time::sleep(timeout)),
        }
    }

    fn moved(&mut self) {
        let next = Instant::now() + self.timeout;
        self.deadline.as_mut().reset(next);
    }

    /// `Pending`, or the timeout error once the deadline has passed.
    fn waiting<R>(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<R>> {
        match self.deadline.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Err(io::Error::new(
                io::ErrorKind::TimedOut,
                "the connection was idle too long",
            ))),
            Poll::Pending => Poll::Pending,
        }
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for IdleIo<T> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        match Pin::new(&mut this.inner).poll_read(cx, buf) {
            Poll::Ready(Ok(())) => {
                if buf.filled().len() > before {
                    this.moved();
                }
                Poll::Ready(Ok(()))
            }
            Poll::Ready(Err(e)) => Poll::Ready(Err(e)),
            Poll::Pending => this.waiting(cx),
        }
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for IdleIo<T> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        match Pin::new(&mut this.inner).poll_write(cx, buf) {
            Poll::Ready(Ok(n)) => {
                if n > 0 {
                    this.moved();
                }
                Poll::Ready(Ok(n))
            }
            Poll::Ready(Err(e)) => Poll::Ready(Err(e)),
            Poll::Pending => this.waiting(cx),
        }
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        match Pin::new(&mut this.inner).poll_write_vectored(cx, bufs) {
            Poll::Ready(Ok(n)) => {
                if n > 0 {
                    this.moved();
                }
                Poll::Ready(Ok(n))
            }
            Poll::Ready(Err(e)) => Poll::Ready(Err(e)),
            Poll::Pending => this.waiting(cx),
        }
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        match Pin::new(&mut this.inner).poll_flush(cx) {
            Poll::Pending => this.waiting(cx),
            done => done,
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    #[tokio::test(start_paused = true)]
    async fn a_silent_peer_times_out_and_a_talking_one_does_not() {
        let (near, mut far) = tokio::io::duplex(64);
        let mut io = IdleIo::new(near, Duration::from_secs(10));
        let mut buf = [0u8; 4];
        // A byte every 6 s keeps it open past 10 s.
        for _ in 0..3 {
            tokio::time::advance(Duration::from_secs(6)).await;
            far.write_all(b"x").await.expect("write");
            assert_eq!(io.read(&mut buf).await.expect("read"), 1);
        }
        let silent = io.read(&mut buf).await.expect_err("silence ends it");
        assert_eq!(silent.kind(), io::ErrorKind::TimedOut);
    }
}
