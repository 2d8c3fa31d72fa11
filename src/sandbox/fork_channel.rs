//! The messages between a pool and its template worker, over a Unix socket
//! (the template's stdin): the pool sends one byte carrying the new worker's
//! stdin, stdout and stderr as descriptors (`SCM_RIGHTS`); the template answers
//! with the new worker's process id, or the `errno` of the clone that failed,
//! as a little-endian `i32` (negative for an error).

use std::io::{self, IoSlice, IoSliceMut, Read};
use std::mem::MaybeUninit;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::net::UnixStream;

use rustix::net::{
    RecvAncillaryBuffer, RecvAncillaryMessage, RecvFlags, SendAncillaryBuffer, SendAncillaryMessage, SendFlags,
};

/// The descriptors a new worker is given: its stdin, stdout and stderr.
pub const PIPES: usize = 3;

/// Ask for a new worker whose stdin, stdout and stderr are `pipes`.
pub fn send_pipes(socket: &UnixStream, pipes: [BorrowedFd<'_>; PIPES]) -> io::Result<()> {
    let mut space = [MaybeUninit::uninit(); rustix::cmsg_space!(ScmRights(PIPES))];
    let mut control = SendAncillaryBuffer::new(&mut space);
    if !control.push(SendAncillaryMessage::ScmRights(&pipes)) {
        return Err(io::Error::other("the descriptors do not fit the control message"));
    }
    let sent = rustix::net::sendmsg(socket, &[IoSlice::new(b"w")], &mut control, SendFlags::NOSIGNAL)?;
    if sent != 1 {
        return Err(io::Error::other("the fork request was cut short"));
    }
    Ok(())
}

/// The next request's pipes, or `None` once the pool has closed its end.
pub fn receive_pipes(socket: impl AsFd) -> io::Result<Option<[OwnedFd; PIPES]>> {
    let mut space = [MaybeUninit::uninit(); rustix::cmsg_space!(ScmRights(PIPES))];
    let mut control = RecvAncillaryBuffer::new(&mut space);
    let mut byte = [0u8; 1];
    let received =
        rustix::net::recvmsg(&socket, &mut [IoSliceMut::new(&mut byte)], &mut control, RecvFlags::CMSG_CLOEXEC)?;
    if received.bytes == 0 {
        return Ok(None);
    }
    let mut fds: Vec<OwnedFd> = Vec::with_capacity(PIPES);
    for message in control.drain() {
        if let RecvAncillaryMessage::ScmRights(rights) = message {
            fds.extend(rights);
        }
    }
    <[OwnedFd; PIPES]>::try_from(fds)
        .map(Some)
        .map_err(|fds| io::Error::other(format!("a fork request carried {} descriptors, not {PIPES}", fds.len())))
}

/// Answer a request: the new worker's process id, or why it could not be made.
pub fn send_outcome(socket: impl AsFd, outcome: io::Result<i32>) -> io::Result<()> {
    let value = match outcome {
        Ok(pid) => pid,
        Err(err) => -err.raw_os_error().unwrap_or(libc::EIO),
    };
    if rustix::io::write(socket, &value.to_le_bytes())? != 4 {
        return Err(io::Error::other("the answer to a fork request was cut short"));
    }
    Ok(())
}

/// The template's answer to a request: the new worker's process id, or why
/// the clone failed (the inner error); the outer error is the socket's.
pub fn receive_outcome(mut socket: impl Read) -> io::Result<io::Result<i32>> {
    let mut bytes = [0u8; 4];
    socket.read_exact(&mut bytes)?;
    Ok(match i32::from_le_bytes(bytes) {
        pid if pid > 0 => Ok(pid),
        errno => Err(io::Error::from_raw_os_error(-errno)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::os::fd::AsRawFd;

    #[test]
    fn pipes_and_outcomes_cross_the_socket() {
        let (pool, template) = UnixStream::pair().unwrap();
        let (reader, writer) = std::io::pipe().unwrap();
        let (other, _) = std::io::pipe().unwrap();
        send_pipes(&pool, [reader.as_fd(), writer.as_fd(), other.as_fd()]).unwrap();
        let received = receive_pipes(&template).unwrap().unwrap();
        assert!(received.iter().all(|fd| fd.as_raw_fd() != reader.as_raw_fd()), "new descriptors");
        // The received write end writes into the pipe the pool holds.
        let mut write_end = std::fs::File::from(received[1].try_clone().unwrap());
        write_end.write_all(b"hi").unwrap();
        let mut read_end = std::fs::File::from(received[0].try_clone().unwrap());
        let mut got = [0u8; 2];
        read_end.read_exact(&mut got).unwrap();
        assert_eq!(&got, b"hi");
        send_outcome(&template, Ok(4242)).unwrap();
        assert_eq!(receive_outcome(&pool).unwrap().unwrap(), 4242);
        send_outcome(&template, Err(io::Error::from_raw_os_error(libc::EPERM))).unwrap();
        assert_eq!(receive_outcome(&pool).unwrap().unwrap_err().raw_os_error(), Some(libc::EPERM));
        drop(pool);
        assert!(receive_pipes(&template).unwrap().is_none(), "a closed pool ends the template");
    }

    #[test]
    fn a_request_without_three_descriptors_is_refused() {
        let (pool, template) = UnixStream::pair().unwrap();
        (&pool).write_all(b"w").unwrap();
        let err = receive_pipes(&template).unwrap_err();
        assert_eq!(err.to_string(), "a fork request carried 0 descriptors, not 3");
    }
}
