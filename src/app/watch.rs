//! Reload on change: watches the open file's folder (editors often replace
//! a file by renaming a new one over it) and reports a change once the file
//! has been quiet for a moment, so a save in several writes reloads once.

use notify::{Event, EventKind, RecommendedWatcher, RecursiveMode, Watcher};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

/// How long the file must be quiet after a change before it is reloaded.
pub const SETTLE: Duration = Duration::from_millis(150);

pub struct FileWatch {
    _watcher: RecommendedWatcher,
    /// One message per write to the file.
    rx: Receiver<()>,
    changed_at: Option<Instant>,
}

impl FileWatch {
    /// Starts watching `path`, calling `wake` when it is written (the
    /// window draws only when something changes: it then polls); `None`
    /// (with a log line) when the platform refuses.
    pub fn new(path: &Path, wake: impl Fn() + Send + 'static) -> Option<FileWatch> {
        let name = path.file_name()?.to_os_string();
        let dir: PathBuf = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let (tx, rx) = channel();
        // Only writes to the file pass: the other files of its folder (a
        // downloads folder being written) neither wake the window nor queue.
        let ours = name.clone();
        let handler = move |event: notify::Result<Event>| {
            if event.is_ok_and(|e| writes_to(&e, &ours)) {
                let _ = tx.send(());
                wake();
            }
        };
        let mut watcher = match notify::recommended_watcher(handler) {
            Ok(w) => w,
            Err(e) => {
                log::warn!("cannot watch {} for changes: {e}", path.display());
                return None;
            }
        };
        if let Err(e) = watcher.watch(&dir, RecursiveMode::NonRecursive) {
            log::warn!("cannot watch {} for changes: {e}", dir.display());
            return None;
        }
        Some(FileWatch {
            _watcher: watcher,
            rx,
            changed_at: None,
        })
    }

    /// When a change seen by the last [`Self::poll`] will have settled.
    pub fn due(&self) -> Option<Instant> {
        self.changed_at.map(|t| t + SETTLE)
    }

    /// True once per change, when the file has been quiet for [`SETTLE`].
    pub fn poll(&mut self) -> bool {
        while self.rx.try_recv().is_ok() {
            self.changed_at = Some(Instant::now());
        }
        match self.changed_at {
            Some(t) if t.elapsed() >= SETTLE => {
                self.changed_at = None;
                true
            }
            _ => false,
        }
    }
}

/// Whether `event` writes a file named `name` (editors replace a file by
/// creating one and renaming it over the old).
fn writes_to(event: &Event, name: &std::ffi::OsStr) -> bool {
    let writes = matches!(
        event.kind,
        EventKind::Create(_) | EventKind::Modify(_) | EventKind::Any
    );
    writes && event.paths.iter().any(|p| p.file_name() == Some(name))
}
