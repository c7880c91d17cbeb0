//! The open document: the one way a file becomes the shown scene. Files
//! decode on a loader thread while the window keeps drawing; every new
//! scene (opened, reloaded after a save, or edited in place: a map's
//! shading, a texture's level and channels) reaches the screen through
//! [`Running::show_scene`], which uploads it first: a scene the GPU refuses
//! is an error and the shown one stays.

use super::Running;
use crate::anim::Animator;
use crate::gpu::{GpuScene, OrbitCamera, Renderer};
use crate::load;
use crate::scene::Scene;
use crate::ui::{self, UiState};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::Ordering;

/// What the loader thread hands back: the file, and its scene already
/// uploaded with the renderer it was given (so a 10M-triangle upload does
/// not stop the window's frames), or why the GPU refused it.
type Answer = Result<(load::Loaded, Result<GpuScene, String>, Arc<Renderer>), load::LoadError>;

pub(super) struct Loading {
    path: PathBuf,
    answer: std::sync::mpsc::Receiver<Answer>,
    /// Per mille, written by the loader.
    progress: Arc<std::sync::atomic::AtomicU32>,
    /// Frames drawn since it started, and the longest gap between two.
    frames: u32,
    last_frame: std::time::Instant,
    longest_gap: std::time::Duration,
}

impl Running {
    pub(super) fn open(&mut self, path: PathBuf) {
        // An animation papa dropped on a model with a skeleton adds clips.
        if !self.scene.skeleton.bones.is_empty() && load::is_animation_papa(&path) {
            match load::add_animation_file(&mut self.scene, &path) {
                Ok(added) => {
                    log::info!("{}: added clip(s) {added:?}", path.display());
                    let last = self
                        .scene
                        .clips
                        .iter()
                        .position(|c| Some(&c.name) == added.first());
                    self.ui.timeline.select(last, &self.scene);
                }
                Err(e) => {
                    log::error!("{e}");
                    self.ui.report(ui::Level::Error, e.to_string());
                }
            }
            return;
        }
        self.open_document(path);
    }

    /// PageDown / PageUp: the file beside the open one in its folder that
    /// the viewer opens ([`load::folder::beside`]), opened as a document of
    /// its own: an animation `.papa` stepped to opens alone, on its model,
    /// where one dropped on a model adds its clips.
    pub(super) fn open_beside(&mut self, direction: load::folder::Direction) {
        let Some(current) = self
            .asked
            .clone()
            .or_else(|| self.scene.source.path.clone())
        else {
            self.ui.report(
                ui::Level::Warning,
                "no file is open: the next and previous files are those beside it",
            );
            return;
        };
        match load::folder::beside(&current, direction) {
            Ok(Some(path)) => self.open_document(path),
            Ok(None) => self.ui.report(
                ui::Level::Info,
                format!(
                    "{}: no other file in its folder that Facet opens ({})",
                    current.display(),
                    load::folder::EXTENSIONS.join(", ")
                ),
            ),
            Err(e) => self.ui.report(
                ui::Level::Error,
                format!("{}: listing its folder: {e}", current.display()),
            ),
        }
    }

    /// Decodes and uploads `path` on a loader thread; the scene replaces
    /// the shown one once it is there ([`Self::poll_loading`]).
    fn open_document(&mut self, path: PathBuf) {
        if self.loading.is_some() {
            self.ui.report(
                ui::Level::Warning,
                format!("{}: still loading the previous file", path.display()),
            );
            return;
        }
        self.asked = Some(path.clone());
        // Decoding and the upload run on a thread of their own: the window
        // keeps drawing (and shows how far it is) while a large file loads.
        // wgpu's device and queue are shared between threads.
        let progress = Arc::new(std::sync::atomic::AtomicU32::new(0));
        let (tx, rx) = std::sync::mpsc::channel();
        let (p, wake, file) = (progress.clone(), self.waker(), path.clone());
        let (gpu, renderer) = (self.gpu.clone(), self.renderer.clone());
        let options = self.load_options();
        let spawned = std::thread::Builder::new()
            .name("load".into())
            .spawn(move || {
                // Decoding is the first 90%, the upload the rest.
                let set = |f: f32| {
                    p.store((f.clamp(0.0, 1.0) * 900.0) as u32, Ordering::Relaxed);
                };
                let answer = load::load_file_with_progress(&file, &options, &set).map(|l| {
                    let uploaded = GpuScene::try_new(&gpu, &renderer, &l.scene);
                    (l, uploaded, renderer)
                });
                let _ = tx.send(answer);
                wake();
            });
        if let Err(e) = spawned {
            self.ui
                .report(ui::Level::Error, format!("{}: {e}", path.display()));
            return;
        }
        log::info!("loading {}", path.display());
        self.loading = Some(Loading {
            path,
            answer: rx,
            progress,
            frames: 0,
            last_frame: std::time::Instant::now(),
            longest_gap: std::time::Duration::ZERO,
        });
    }

    /// A file loading in the background: its progress for the UI, and the
    /// result once it is there.
    pub(super) fn poll_loading(&mut self) {
        let Some(l) = &mut self.loading else {
            self.ui.loading = None;
            return;
        };
        l.frames += 1;
        l.longest_gap = l.longest_gap.max(l.last_frame.elapsed());
        l.last_frame = std::time::Instant::now();
        let name = l.path.file_name().map_or_else(
            || l.path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        let fraction = l.progress.load(Ordering::Relaxed) as f32 / 1000.0;
        self.ui.loading = Some((name, fraction));
        let result = match l.answer.try_recv() {
            Ok(r) => r,
            Err(std::sync::mpsc::TryRecvError::Empty) => return,
            Err(std::sync::mpsc::TryRecvError::Disconnected) => {
                let path = l.path.display().to_string();
                self.loading = None;
                self.ui.loading = None;
                self.ui
                    .report(ui::Level::Error, format!("{path}: the loader stopped"));
                return;
            }
        };
        let Some(Loading {
            path,
            frames,
            longest_gap,
            ..
        }) = self.loading.take()
        else {
            return;
        };
        self.ui.loading = None;
        log::info!(
            "{} frames drawn while {} loaded (longest gap between two: {:.0} ms)",
            frames,
            path.display(),
            longest_gap.as_secs_f64() * 1e3
        );
        let t = std::time::Instant::now();
        self.opened(path, result);
        log::debug!(
            "showing the loaded file took {:.0} ms",
            t.elapsed().as_secs_f64() * 1e3
        );
    }

    pub(super) fn register_textures(&mut self) {
        // Called after every new GPU scene: map overlays and ranges follow.
        self.map_cache = Default::default();
        for id in self.ui.texture_ids.drain(..).flatten() {
            self.egui_renderer.free_texture(&id);
        }
        if let Some(id) = self.ui.preview_id.take() {
            self.egui_renderer.free_texture(&id);
        }
        self.ui.preview_id = self.scene.preview.as_ref().map(|t| {
            let gt = crate::gpu::texture::upload_texture(
                &self.gpu,
                &t.name,
                t.width,
                t.height,
                &t.pixels(),
            );
            self.egui_renderer.register_native_texture(
                &self.gpu.device,
                &gt.ui_view,
                wgpu::FilterMode::Linear,
            )
        });
        self.ui.texture_ids = self
            .gpu_scene
            .textures
            .iter()
            .map(|t| {
                Some(self.egui_renderer.register_native_texture(
                    &self.gpu.device,
                    &t.ui_view,
                    wgpu::FilterMode::Nearest,
                ))
            })
            .collect();
    }

    /// How files load now: the command line's media roots, then the settings'.
    pub(super) fn load_options(&self) -> load::LoadOptions {
        let mut media_roots = self.cli_media_roots.clone();
        for r in &self.settings.media_roots {
            if !media_roots.contains(r) {
                media_roots.push(r.clone());
            }
        }
        load::LoadOptions {
            media_roots,
            texel_budget: self.texel_budget,
            texture_cap: usize::MAX,
            headers_only: false,
        }
    }

    /// File -> Open: the native dialog, one at a time, starting in the open
    /// file's folder.
    pub(super) fn show_open_dialog(&mut self) {
        if self.open_dialog.is_some() {
            return;
        }
        let folder = self.scene.source.path.as_deref().and_then(|p| p.parent());
        match crate::app::open_dialog::OpenDialog::show(&self.window, folder, self.waker()) {
            Ok(d) => self.open_dialog = Some(d),
            Err(e) => self
                .ui
                .report(ui::Level::Error, format!("the open dialog: {e}")),
        }
    }

    /// File > Export glTF…: to `target`, or where the save dialog says.
    pub(super) fn export_gltf(&mut self, target: Option<PathBuf>) {
        if let Some(path) = target {
            return self.start_export(path);
        }
        if self.export_dialog.is_some() {
            return;
        }
        let path = self.scene.source.path.as_deref();
        let folder = path.and_then(|p| p.parent());
        let stem = path
            .and_then(|p| p.file_stem())
            .map_or_else(|| "model".into(), |s| s.to_string_lossy().into_owned());
        match crate::app::open_dialog::OpenDialog::save_gltf(
            &self.window,
            folder,
            &format!("{stem}.glb"),
            self.waker(),
        ) {
            Ok(d) => self.export_dialog = Some(d),
            Err(e) => self
                .ui
                .report(ui::Level::Error, format!("the export dialog: {e}")),
        }
    }

    /// Exports the open scene on a thread of its own (PNG encoding can
    /// take a while); [`Self::poll_export`] reports how it went.
    fn start_export(&mut self, path: PathBuf) {
        if self.export_job.is_some() {
            self.ui
                .report(ui::Level::Warning, "an export is still being written");
            return;
        }
        let scene = self.scene.clone();
        let (tx, rx) = std::sync::mpsc::channel();
        let wake = self.waker();
        let target = path.clone();
        let spawned = std::thread::Builder::new()
            .name("glTF export".into())
            .spawn(move || {
                let answer = crate::export::gltf::export(&scene)
                    .and_then(|e| Ok((e.write(&target)?, e.dropped)));
                let _ = tx.send(answer);
                wake();
            });
        match spawned {
            Ok(_) => self.export_job = Some((path, rx)),
            Err(e) => self
                .ui
                .report(ui::Level::Error, format!("the export thread: {e}")),
        }
    }

    /// The export dialog's answer and the export's outcome, once a frame.
    pub(super) fn poll_export(&mut self) {
        use crate::app::open_dialog::Answer;
        if let Some(dialog) = &self.export_dialog {
            match dialog.poll() {
                Answer::Waiting => {}
                Answer::Picked(path) => {
                    self.export_dialog = None;
                    self.start_export(path);
                }
                Answer::Cancelled => {
                    self.export_dialog = None;
                    if let Some(why) = crate::app::open_dialog::no_dialog_reason() {
                        self.ui.report(ui::Level::Error, why);
                    }
                }
            }
        }
        let Some((path, rx)) = &self.export_job else {
            return;
        };
        let answer = match rx.try_recv() {
            Ok(a) => a,
            Err(std::sync::mpsc::TryRecvError::Empty) => return,
            Err(std::sync::mpsc::TryRecvError::Disconnected) => {
                Err("the export thread stopped without an answer".into())
            }
        };
        let path = path.clone();
        self.export_job = None;
        match answer {
            Ok((written, dropped)) => {
                log::info!(
                    "exported glTF to {} ({} files)",
                    path.display(),
                    written.len()
                );
                for d in &dropped {
                    self.ui.report(
                        ui::Level::Warning,
                        format!("glTF export: not exported: {d}"),
                    );
                }
                self.ui.report(
                    ui::Level::Info,
                    format!(
                        "exported glTF to {} ({}, {} not exported: see above)",
                        path.display(),
                        crate::scene::text::counted(written.len(), "file"),
                        crate::scene::text::counted(dropped.len(), "thing")
                    ),
                );
            }
            Err(e) => self
                .ui
                .report(ui::Level::Error, format!("glTF export failed: {e}")),
        }
    }

    pub(super) fn poll_open_dialog(&mut self) {
        use crate::app::open_dialog::Answer;
        let Some(dialog) = &self.open_dialog else {
            return;
        };
        match dialog.poll() {
            Answer::Waiting => {}
            Answer::Picked(path) => {
                self.open_dialog = None;
                log::info!("picked {} in the open dialog", path.display());
                self.open(path);
            }
            Answer::Cancelled => {
                self.open_dialog = None;
                if let Some(why) = crate::app::open_dialog::no_dialog_reason() {
                    self.ui.report(ui::Level::Error, why);
                }
            }
        }
    }

    /// Background, lighting, render size and recent files from the
    /// settings into the UI.
    pub(super) fn apply_settings(&mut self) {
        self.ui.view.background = self.settings.background;
        self.ui.view.lighting = self.settings.lighting;
        self.ui.view.team_colors = self.settings.team_colors;
        self.ui.render_size = self.settings.render_size;
        self.ui.render_transparent = self.settings.render_transparent;
        self.ui.recent.clone_from(&self.settings.recent);
        self.ui.media_roots.clone_from(&self.settings.media_roots);
        self.ui.max_texture_mib = self.settings.max_texture_mib;
        self.ui.stock_media_roots = load::resolver::stock_media_roots();
    }

    /// Background, lighting and render size as the interface shows them
    /// are kept in the settings (saved when they change).
    pub(super) fn keep_view_settings(&mut self) {
        let shown = (
            self.ui.view.background,
            self.ui.view.lighting,
            self.ui.render_size,
            self.ui.render_transparent,
            self.ui.view.team_colors,
        );
        let kept = (
            self.settings.background,
            self.settings.lighting,
            self.settings.render_size,
            self.settings.render_transparent,
            self.settings.team_colors,
        );
        if shown != kept {
            (
                self.settings.background,
                self.settings.lighting,
                self.settings.render_size,
                self.settings.render_transparent,
                self.settings.team_colors,
            ) = shown;
            self.save_settings();
        }
    }

    /// File > Settings edited the media roots or the texture memory: they
    /// apply to the next file opened and are saved.
    pub(super) fn settings_edited(&mut self) {
        self.settings.media_roots.clone_from(&self.ui.media_roots);
        if self.settings.max_texture_mib != self.ui.max_texture_mib {
            self.settings.max_texture_mib = self.ui.max_texture_mib;
            self.texel_budget = (self.ui.max_texture_mib as usize).saturating_mul(1 << 20);
        }
        self.save_settings();
    }

    pub(super) fn save_settings(&mut self) {
        self.ui.recent.clone_from(&self.settings.recent);
        if let Some(p) = &self.settings_path
            && let Err(e) = self.settings.save_to(p)
        {
            log::warn!("{}: {e}; settings not saved", p.display());
        }
    }

    /// The one way a scene reaches the screen. It is uploaded first: a
    /// scene the GPU refuses comes back with the error and the shown one
    /// stays. Then the interface follows `how`.
    pub(super) fn show_scene(
        &mut self,
        scene: Scene,
        how: Replace,
    ) -> Result<(), (Box<Scene>, String)> {
        let uploaded = GpuScene::try_new(&self.gpu, &self.renderer, &scene);
        let renderer = self.renderer.clone();
        self.show_uploaded(scene, uploaded, &renderer, how)
    }

    /// [`Self::show_scene`] with the upload already done (on the loader
    /// thread, with `renderer`). A scene uploaded for a device that has
    /// since been lost and replaced is uploaded again here.
    pub(super) fn show_uploaded(
        &mut self,
        scene: Scene,
        uploaded: Result<GpuScene, String>,
        renderer: &Arc<Renderer>,
        how: Replace,
    ) -> Result<(), (Box<Scene>, String)> {
        let uploaded = if Arc::ptr_eq(renderer, &self.renderer) {
            uploaded
        } else {
            GpuScene::try_new(&self.gpu, &self.renderer, &scene)
        };
        let gpu_scene = match uploaded {
            Ok(g) => g,
            Err(e) => return Err((Box::new(scene), e)),
        };
        let name = scene.source.file_name.clone();
        match how {
            Replace::Opened(path) => {
                self.window.set_title(&format!("{name} — facet"));
                // A fresh interface for the file; the log and panels stay.
                self.ui = UiState {
                    show_inspector: self.ui.show_inspector,
                    show_log: self.ui.show_log,
                    log: std::mem::take(&mut self.ui.log),
                    toasts: std::mem::take(&mut self.ui.toasts),
                    filter: std::mem::take(&mut self.ui.filter),
                    ..UiState::for_scene(&scene)
                };
                self.ui.log_warnings(&scene);
                for w in &scene.warnings {
                    log::warn!("{name}: {w}");
                }
                self.apply_settings();
                self.settings.opened(&path);
                self.save_settings();
                self.camera = OrbitCamera::default();
                self.watch = super::watch::FileWatch::new(&path, self.waker());
            }
            Replace::Reloaded => {
                // Camera, view options and timeline stay; the clip by name,
                // the selection where it still exists.
                let ui = &mut self.ui;
                let clip_name = ui
                    .timeline
                    .clip
                    .and_then(|c| self.scene.clips.get(c))
                    .map(|c| c.name.clone());
                ui.timeline.clip =
                    clip_name.and_then(|n| scene.clips.iter().position(|c| c.name == n));
                let keep_parts = scene.meshes.len() == self.scene.meshes.len();
                if !keep_parts {
                    ui.view.visible = scene.meshes.iter().map(|m| m.visible).collect();
                }
                ui.view.material_override.clear();
                ui.selected_bone = ui.selected_bone.filter(|&b| b < scene.skeleton.bones.len());
                ui.selected_part = ui.selected_part.filter(|_| keep_parts);
                ui.selected_material = ui.selected_material.filter(|&m| m < scene.materials.len());
                ui.report(ui::Level::Info, format!("reloaded {name}"));
                ui.log_warnings(&scene);
            }
            Replace::Edited => {}
        }
        // What was read under the cursor, or found by a click, came from
        // the scene replaced (a texture viewer's other level, the file
        // before a reload).
        self.ui.probe = None;
        self.ui.picked_vertex = None;
        self.ui.bone_influence = None;
        // Measured by the upload: the inspector's dimensions.
        self.ui.scene_bounds = Some(gpu_scene.bounds);
        self.ui.part_bounds = gpu_scene.meshes.iter().map(|m| m.aabb).collect();
        for w in &gpu_scene.warnings {
            let w = format!("{name}: {w}");
            log::warn!("{w}");
            self.ui.report(ui::Level::Warning, w);
        }
        self.animator = Animator::new(&scene);
        self.scene = scene;
        self.gpu_scene = gpu_scene;
        self.register_textures();
        Ok(())
    }

    /// A file the loader finished: shown, or its error reported (the
    /// previous scene stays).
    pub(super) fn opened(&mut self, path: PathBuf, result: Answer) {
        let must_load = std::mem::take(&mut self.initial_must_load);
        let e = match result {
            Ok((l, uploaded, renderer)) => match self.show_uploaded(
                l.scene,
                uploaded,
                &renderer,
                Replace::Opened(path.clone()),
            ) {
                Ok(()) => {
                    self.fit();
                    // Last, so that whoever waits for this line (the Xvfb
                    // tests) finds the scene, the timeline and the file
                    // watch in place.
                    self.opened_at = Some(std::time::Instant::now());
                    log::info!("opened {}", path.display());
                    return;
                }
                Err((scene, e)) => format!(
                    "{}: the GPU refused it: {e} (the previous scene is still shown)",
                    scene.source.file_name
                ),
            },
            Err(e) => format!("{e} (the previous scene is still shown)"),
        };
        log::error!("{e}");
        if must_load {
            self.fatal = Some(anyhow::anyhow!("{e}"));
        }
        self.ui.report(ui::Level::Error, e);
    }

    /// The open file changed on disk: load it again, keeping the camera,
    /// the view options and the timeline (same clip by name, same time).
    /// A file that no longer loads leaves the last good scene on screen and
    /// says why.
    pub(super) fn reload(&mut self) {
        let Some(path) = self.scene.source.path.clone() else {
            return;
        };
        let e = match load::load_file_with(&path, &self.load_options()) {
            Ok(l) => match self.show_scene(l.scene, Replace::Reloaded) {
                Ok(()) => {
                    log::info!("reloaded {}", path.display());
                    return;
                }
                Err((_, e)) => format!("the GPU refused it: {e}"),
            },
            Err(e) => e.to_string(),
        };
        log::error!("reload failed, still showing the last good version: {e}");
        self.ui.report(
            ui::Level::Error,
            format!("reloading failed; still showing the last good version: {e}"),
        );
    }

    /// The texture viewer's level and channels as the shown texture.
    pub(super) fn show_texture_view(&mut self) {
        let Some(level) = self.scene.mip_levels.get(self.ui.mip_level) else {
            return;
        };
        let mut tex = level.clone();
        tex.rgba8 = tex.pixels().into_owned();
        self.ui.channel.apply(&mut tex.rgba8);
        tex.compressed = None;
        let mut scene = std::mem::take(&mut self.scene);
        let Some(shown) = scene.textures.first_mut() else {
            self.scene = scene;
            return;
        };
        let before = std::mem::replace(shown, tex);
        if let Err((mut scene, e)) = self.show_scene(scene, Replace::Edited) {
            scene.textures[0] = before;
            self.scene = *scene;
            self.ui
                .report(ui::Level::Error, format!("the GPU refused the level: {e}"));
        }
    }
}

/// How a new scene replaces the shown one.
pub(super) enum Replace {
    /// A file opened: a fresh interface for it, the camera reset, the file
    /// remembered in the recent list and watched for changes.
    Opened(PathBuf),
    /// The same file after a save: camera, view options, timeline (the
    /// clip by name) and the selection where it still applies are kept.
    Reloaded,
    /// The shown scene changed in place (a map's shading, the texture
    /// viewer's level): nothing else changes.
    Edited,
}
