//! How commands write: a line of output, and an error on one line.

/// Write one line of command output (see `say!`): a closed stdout ends the
/// process with exit 0, as other command-line tools do; any other write
/// failure is one line on stderr and exit 2.
pub fn write_line(line: std::fmt::Arguments) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let written = out.write_fmt(line).and_then(|()| out.write_all(b"\n")).and_then(|()| out.flush());
    match written {
        Ok(()) => {}
        Err(err) if err.kind() == std::io::ErrorKind::BrokenPipe => std::process::exit(0),
        Err(err) => {
            eprintln!("error: cannot write the output: {err}");
            std::process::exit(2);
        }
    }
}

/// The error and its causes on one line (`outer: inner: root`); a multi-line
/// message (one problem per line) keeps its lines.
pub fn one_line(err: &anyhow::Error) -> String {
    let mut parts: Vec<String> = Vec::new();
    for cause in err.chain() {
        let text = cause.to_string();
        if parts.last().is_none_or(|last| !last.contains(&text)) {
            parts.push(text);
        }
    }
    parts.join(": ").replace('\n', "\nerror: ")
}
