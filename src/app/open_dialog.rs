//! File -> Open: the platform's native file dialog (rfd), off the UI thread.
//!
//! On Linux rfd asks the desktop portal (`org.freedesktop.portal.FileChooser`
//! over D-Bus; libdbus is opened at run time, so nothing is needed to build)
//! and falls back to `zenity`. The dialog runs on a thread of its own: the
//! window keeps drawing and animating while it is open, and the app polls
//! for the answer once a frame.

use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Receiver, TryRecvError};

/// An open dialog waiting for the user.
pub struct OpenDialog {
    answer: Receiver<Option<PathBuf>>,
}

/// What a poll found.
#[derive(Debug, PartialEq)]
pub enum Answer {
    /// Still open.
    Waiting,
    /// The user picked this file.
    Picked(PathBuf),
    /// Cancelled, or no dialog could be shown (see [`no_dialog_reason`]).
    Cancelled,
}

impl OpenDialog {
    /// Shows the dialog over `parent`, starting in `folder`. `wake` runs on
    /// the dialog's thread once the user has answered (request a redraw).
    pub fn show(
        parent: &winit::window::Window,
        folder: Option<&Path>,
        wake: impl FnOnce() + Send + 'static,
    ) -> std::io::Result<Self> {
        let mut dialog = rfd::AsyncFileDialog::new()
            .set_title("Open a model or map")
            .add_filter("Models and maps", crate::load::folder::EXTENSIONS)
            .add_filter("All files", &["*"])
            .set_parent(parent);
        if let Some(folder) = folder {
            dialog = dialog.set_directory(folder);
        }
        Self::awaited("open dialog", dialog.pick_file(), wake)
    }

    /// A save dialog for a glTF export over `parent`, in `folder`, with
    /// `name` proposed.
    pub fn save_gltf(
        parent: &winit::window::Window,
        folder: Option<&Path>,
        name: &str,
        wake: impl FnOnce() + Send + 'static,
    ) -> std::io::Result<Self> {
        let mut dialog = rfd::AsyncFileDialog::new()
            .set_title("Export glTF")
            .add_filter("glTF binary", &["glb"])
            .add_filter("glTF with .bin and PNGs", &["gltf"])
            .set_file_name(name)
            .set_parent(parent);
        if let Some(folder) = folder {
            dialog = dialog.set_directory(folder);
        }
        Self::awaited("export dialog", dialog.save_file(), wake)
    }

    /// A dialog's answer, awaited on a thread of its own (the future is
    /// created by the caller: the platform may need the UI thread for
    /// that); `wake` runs once it is there.
    fn awaited(
        thread: &str,
        future: impl std::future::Future<Output = Option<rfd::FileHandle>> + Send + 'static,
        wake: impl FnOnce() + Send + 'static,
    ) -> std::io::Result<Self> {
        let (tx, answer) = mpsc::channel();
        std::thread::Builder::new()
            .name(thread.into())
            .spawn(move || {
                let picked = pollster::block_on(future).map(|f| f.path().to_path_buf());
                let _ = tx.send(picked);
                wake();
            })?;
        Ok(OpenDialog { answer })
    }

    pub fn poll(&self) -> Answer {
        match self.answer.try_recv() {
            Ok(Some(p)) => Answer::Picked(p),
            Ok(None) | Err(TryRecvError::Disconnected) => Answer::Cancelled,
            Err(TryRecvError::Empty) => Answer::Waiting,
        }
    }
}

/// Why no dialog can appear on this machine, when that is certain: no
/// session bus for the portal and no `zenity` on the PATH. (A cancelled
/// dialog and a missing one look the same to rfd; this tells them apart.)
pub fn no_dialog_reason() -> Option<&'static str> {
    if !cfg!(target_os = "linux") {
        return None;
    }
    let bus = std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_some_and(|v| !v.is_empty());
    let zenity = std::env::var_os("PATH")
        .is_some_and(|paths| std::env::split_paths(&paths).any(|d| d.join("zenity").is_file()));
    (!bus && !zenity).then_some(
        "no file dialog on this desktop (it needs xdg-desktop-portal on the session bus, or zenity); \
         drop the file on the window or pass it on the command line",
    )
}
