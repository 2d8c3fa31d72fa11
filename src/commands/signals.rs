//! The signals that end a run early — Ctrl-C (SIGINT), SIGTERM, and SIGHUP
//! when the terminal closes — turned into a future, so a run can cancel its
//! questions and still write its finish event, results and report.

use tokio::signal::unix::{SignalKind, signal};

/// Resolves with the signal's name when the first of SIGINT, SIGTERM or
/// SIGHUP arrives; never, if the handlers cannot be installed. Once called,
/// those signals no longer end the process by themselves.
pub async fn interrupted() -> &'static str {
    let kinds =
        [(SignalKind::interrupt(), "SIGINT"), (SignalKind::terminate(), "SIGTERM"), (SignalKind::hangup(), "SIGHUP")];
    let mut streams = Vec::new();
    for (kind, name) in kinds {
        match signal(kind) {
            Ok(stream) => streams.push((stream, name)),
            Err(err) => tracing::warn!("cannot watch {name}: {err}"),
        }
    }
    if streams.is_empty() {
        return std::future::pending().await;
    }
    let waits = streams.iter_mut().map(|(stream, name)| {
        Box::pin(async move {
            stream.recv().await;
            *name
        })
    });
    futures::future::select_all(waits).await.0
}
