//! The terminal's input as a stream of events that loses no key when one
//! stream gives way to the next (a screen to the one it opens, the UI to an
//! editor and back).
//!
//! crossterm's `EventStream` wakes its shared reader when it is dropped. When
//! no reader thread was waiting, that wake-up stays pending, and the next
//! stream's first poll takes it together with a key that arrived meanwhile.
//! The reader handles the wake-up first and returns, and since it waits for
//! edges (epoll), the key's edge is spent: the key stays unread until another
//! one comes. Here the stream is dropped, then the pending wake-up is taken at
//! once, before the next screen draws and the user answers it with a key.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use crossterm::event::{Event, EventStream};
use futures::{Stream, StreamExt};

/// The terminal's input events; see the module's note on dropping it.
pub struct TerminalInput(Option<EventStream>);

impl TerminalInput {
    /// A stream of the terminal's events (it reads nothing until polled).
    pub fn new() -> Self {
        Self(Some(EventStream::new()))
    }
}

impl Stream for TerminalInput {
    type Item = io::Result<Event>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        match self.0.as_mut() {
            Some(stream) => stream.poll_next_unpin(cx),
            None => Poll::Ready(None),
        }
    }
}

impl Drop for TerminalInput {
    fn drop(&mut self) {
        drop(self.0.take());
        // Takes the wake-up the drop left pending (when the reader thread was
        // waiting instead, it took it and this finds the reader busy or idle).
        // A key read here stays queued in crossterm for the next stream.
        if let Err(err) = crossterm::event::poll(Duration::ZERO) {
            tracing::debug!("terminal input after its stream ended: {err}");
        }
    }
}
