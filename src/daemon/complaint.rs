//! An error that would repeat on every move, logged once when it starts and once when it
//! clears, so that a full disk fills no log.
//!
//! This module only decides when to speak; it knows nothing of what failed.

/// Whether a repeating failure is going on, and what it said last.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Complaint {
    failing: Option<String>,
}

/// What to log after a try, if anything.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Say {
    /// The failure starts (or says something new): log it, with its message.
    Failing(String),
    /// The failure cleared.
    Cleared,
}

impl Complaint {
    /// No failure yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Whether the last try failed.
    pub fn failing(&self) -> bool {
        self.failing.is_some()
    }

    /// Takes the outcome of one try; says what to log: a failure the first time it is
    /// seen (and when its kind changes: `kind` tells failures apart, an `io::ErrorKind`
    /// say), its end once, and nothing while it goes on.
    pub fn note<E: std::fmt::Display>(&mut self, outcome: Result<(), (E, String)>) -> Option<Say> {
        match outcome {
            Ok(()) => self.failing.take().map(|_| Say::Cleared),
            Err((e, kind)) => {
                let again = self.failing.as_deref() == Some(kind.as_str());
                self.failing = Some(kind);
                (!again).then(|| Say::Failing(e.to_string()))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fail(kind: &str) -> Result<(), (String, String)> {
        Err((format!("cannot write: {kind}"), kind.to_string()))
    }

    #[test]
    fn a_failure_on_every_move_is_said_once_and_its_end_once() {
        let mut c = Complaint::new();
        assert_eq!(c.note::<String>(Ok(())), None);
        assert_eq!(
            c.note(fail("No space left")),
            Some(Say::Failing("cannot write: No space left".into()))
        );
        for _ in 0..100 {
            assert_eq!(c.note(fail("No space left")), None);
        }
        assert!(c.failing());
        assert_eq!(
            c.note(fail("Read-only")),
            Some(Say::Failing("cannot write: Read-only".into()))
        );
        assert_eq!(c.note::<String>(Ok(())), Some(Say::Cleared));
        assert_eq!(c.note::<String>(Ok(())), None);
    }
}
