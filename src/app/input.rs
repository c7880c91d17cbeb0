//! Input: the mouse orbits, pans and zooms the camera (or looks around in
//! fly mode), a click picks a map's cube, keys run the shortcuts of the
//! keyboard map (README) and W/A/S/D/Q/E fly.

use super::Running;
use crate::gpu::camera::AxisView;
use crate::load::folder::Direction;
use crate::ui::UiAction;
use winit::event::{ElementState, MouseButton, MouseScrollDelta, WindowEvent};
use winit::keyboard::{Key, NamedKey};

/// What the event loop does after an input event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Flow {
    Continue,
    /// Ctrl+Q.
    Quit,
}

/// How far from a bone's drawn shape a click still picks it, in points.
const BONE_SLACK: f32 = 5.0;

/// Radians the key light turns a pixel of Ctrl + drag (the orbit's rate).
const LIGHT_RATE: f32 = 0.008;

/// The longest a double click's second click may follow its first.
const DOUBLE_CLICK: std::time::Duration = std::time::Duration::from_millis(400);

/// Whether two cursor places (pixels) are one click's: a press and its
/// release, or a double click's two clicks.
fn near(a: (f64, f64), b: (f64, f64)) -> bool {
    (a.0 - b.0).abs() + (a.1 - b.1).abs() < 4.0
}

impl Running {
    /// A mouse or keyboard event the window got (`consumed`: egui used it).
    pub(super) fn input(&mut self, event: &WindowEvent, consumed: bool) -> Flow {
        match *event {
            WindowEvent::MouseInput { state, button, .. } => match state {
                ElementState::Pressed if self.pointer_in_view() => {
                    self.drag = Some(button);
                    self.press_at = self.cursor;
                }
                ElementState::Released => {
                    // A click (no drag) in the 3D view picks what is under it.
                    // A second click soon after, at the same place, also
                    // makes the point under it the centre of the orbit.
                    if let (Some(MouseButton::Left), Some(a), Some(b)) =
                        (self.drag, self.press_at, self.cursor)
                        && near(a, b)
                    {
                        self.pick();
                        let now = std::time::Instant::now();
                        match self.last_click.take() {
                            Some((then, at)) if now - then <= DOUBLE_CLICK && near(at, b) => {
                                self.orbit_around_cursor();
                            }
                            _ => self.last_click = Some((now, b)),
                        }
                    }
                    if let (Some(MouseButton::Left), Some(a), Some(b)) =
                        (self.drag, self.press_at, self.cursor)
                        && !near(a, b)
                        && self.modifiers.control_key()
                    {
                        let t = self.ui.view.light_turn;
                        log::info!(
                            "light turned {:.0}° about up, raised {:.0}°",
                            t.yaw.to_degrees(),
                            t.pitch.to_degrees()
                        );
                    }
                    self.drag = None;
                    self.press_at = None;
                }
                _ => {}
            },
            WindowEvent::CursorMoved { position, .. } => {
                if let (Some(button), Some((x, y))) = (self.drag, self.cursor) {
                    let (dx, dy) = ((position.x - x) as f32, (position.y - y) as f32);
                    let pan = button == MouseButton::Middle
                        || (button == MouseButton::Left && self.modifiers.shift_key());
                    if pan {
                        self.camera.pan(dx, dy, self.config.height as f32);
                    } else if button == MouseButton::Left && self.modifiers.control_key() {
                        // Ctrl + drag turns the key light: right moves it to
                        // the viewer's right, up raises it.
                        let t = self.ui.view.light_turn;
                        self.ui.view.light_turn = t.turned(dx * LIGHT_RATE, -dy * LIGHT_RATE);
                    } else if button == MouseButton::Left && self.ui.fly {
                        self.camera.look(dx, dy);
                    } else if button == MouseButton::Left {
                        // The user takes the camera from the turntable.
                        self.ui.turntable = false;
                        self.camera.orbit(dx, dy);
                    }
                }
                self.cursor = Some((position.x, position.y));
                self.probe_texture_file();
            }
            WindowEvent::MouseWheel { delta, .. } if self.pointer_in_view() => {
                let steps = match delta {
                    MouseScrollDelta::LineDelta(_, y) => y,
                    MouseScrollDelta::PixelDelta(p) => p.y as f32 / 40.0,
                };
                if self.ui.fly {
                    // In fly mode the wheel sets the speed.
                    self.ui.fly_speed = (self.ui.fly_speed * 1.2f32.powf(steps)).clamp(0.01, 100.0);
                } else {
                    let ndc = self.cursor_ndc();
                    let aspect = self.view_aspect();
                    self.camera.zoom_at(steps, ndc, aspect);
                }
            }
            // After Ctrl+F, what is typed before the next frame focuses
            // the filter goes to it (egui has the events too), not to the
            // shortcuts.
            WindowEvent::KeyboardInput {
                ref event,
                is_synthetic,
                ..
            } if !self.egui_ctx.egui_wants_keyboard_input() && !self.ui.focus_filter => {
                if let winit::keyboard::PhysicalKey::Code(code) = event.physical_key {
                    if event.state == ElementState::Pressed {
                        self.held.insert(code);
                    } else {
                        self.held.remove(&code);
                    }
                }
                // Synthetic presses are winit restating held keys when the
                // window gains focus, not the user pressing them: acting on
                // one would run a key's action twice (Space toggles back).
                if consumed || event.state != ElementState::Pressed || is_synthetic {
                    return Flow::Continue;
                }
                if self.modifiers.control_key()
                    && matches!(&event.logical_key, Key::Character(c) if c.eq_ignore_ascii_case("q"))
                {
                    return Flow::Quit;
                }
                self.key(&event.logical_key, event.repeat);
            }
            _ => {}
        }
        Flow::Continue
    }

    pub(super) fn view_aspect(&self) -> f32 {
        if self.viewport.is_positive() {
            self.viewport.width() / self.viewport.height()
        } else {
            self.config.width as f32 / self.config.height.max(1) as f32
        }
    }

    /// Frames the visible parts.
    pub(super) fn fit(&mut self) {
        let mut b = self.scene.bounds(Some(&self.ui.view.visible));
        if b.is_empty() {
            b = self.scene.bounds(None);
        }
        let aspect = self.view_aspect();
        self.camera.fit(&b, aspect);
    }

    /// The pointer is over the 3D view and no egui window, menu or widget
    /// is in the way or busy with it. (egui's `egui_wants_pointer_input`
    /// compares with the root UI's leftover rect, which is not the view
    /// when the inspector's content is wider than the panel.)
    pub(super) fn pointer_in_view(&self) -> bool {
        let Some((x, y)) = self.cursor else {
            return false;
        };
        let p = egui::pos2(x as f32 / self.ppp, y as f32 / self.ppp);
        let background = self
            .egui_ctx
            .layer_id_at(p)
            .is_none_or(|l| l.order == egui::Order::Background);
        self.viewport.contains(p) && background && !self.egui_ctx.egui_is_using_pointer()
    }

    /// The cursor in normalised device coordinates of the 3D view.
    pub(super) fn cursor_ndc(&self) -> glam::Vec2 {
        let Some((x, y)) = self.cursor else {
            return glam::Vec2::ZERO;
        };
        let vp = if self.viewport.is_positive() {
            egui::Rect::from_min_max(
                (self.viewport.min.to_vec2() * self.ppp).to_pos2(),
                (self.viewport.max.to_vec2() * self.ppp).to_pos2(),
            )
        } else {
            egui::Rect::from_min_size(
                egui::Pos2::ZERO,
                egui::vec2(self.config.width as f32, self.config.height as f32),
            )
        };
        glam::Vec2::new(
            ((x as f32 - vp.left()) / vp.width()) * 2.0 - 1.0,
            1.0 - ((y as f32 - vp.top()) / vp.height()) * 2.0,
        )
        .clamp(glam::Vec2::splat(-1.0), glam::Vec2::splat(1.0))
    }

    /// The ray under the cursor, from the near plane (`origin`) to the far
    /// one (`origin + dir`).
    fn cursor_ray(&self) -> (glam::Vec3, glam::Vec3) {
        let ndc = self.cursor_ndc();
        let inv = self.camera.view_proj(self.view_aspect()).inverse();
        let near = inv.project_point3(glam::Vec3::new(ndc.x, ndc.y, 0.0));
        let far = inv.project_point3(glam::Vec3::new(ndc.x, ndc.y, 1.0));
        (near, far - near)
    }

    /// A double click in the 3D view: the point of the map or of a shown
    /// part under the cursor becomes the centre the camera orbits about,
    /// the view moved (not turned) to bring it to the middle.
    /// In fly mode, or over nothing, the camera stays.
    fn orbit_around_cursor(&mut self) {
        if self.ui.fly || self.scene.texture_view {
            return;
        }
        let (origin, dir) = self.cursor_ray();
        if let Some(t) = self.surface_along(origin, dir) {
            let point = origin + t * dir;
            self.camera.target = point;
            log::info!(
                "orbit centre moved to {:.3?} (double click)",
                point.to_array()
            );
        }
    }

    /// A click in the 3D view: selects what is under the cursor (a map's
    /// sector and cube, a model's part), or nothing. A texture file's quad
    /// is not a part to select. A hidden inspector stays hidden: opening it
    /// would narrow the view under a double click's second click.
    pub(super) fn pick(&mut self) {
        use crate::scene::map_query;
        if self.scene.texture_view {
            return;
        }
        let ndc = self.cursor_ndc();
        let (origin, dir) = self.cursor_ray();
        if self.ui.measuring {
            self.measure_at(origin, dir);
            return;
        }
        let Some(info) = self.scene.map.as_deref() else {
            // The pose and the parts as the next frame draws them: a part
            // hidden (H) since the last frame is no longer under the cursor.
            let tl = &self.ui.timeline;
            self.animator
                .update(&self.scene, tl.clip, tl.time, &self.ui.view.visible);
            if !(self.ui.view.skeleton && self.pick_bone(ndc)) {
                self.pick_part(origin, dir);
            }
            return;
        };
        match map_query::pick(&info.map, origin, dir) {
            Some((sector, triangle, _)) => {
                let cube = map_query::cube_of_triangle(&info.map, sector, triangle);
                log::info!(
                    "picked sector {:?}, triangle {triangle}, cube {cube:?}",
                    info.map.sector_coords(sector)
                );
                self.ui.map.selected_sector = Some(sector);
                self.ui.map.selected_cube = cube.map(|c| (sector, c));
            }
            None => {
                log::info!("picked nothing (no map triangle under the cursor)");
                self.ui.map.selected_sector = None;
                self.ui.map.selected_cube = None;
            }
        }
    }

    /// Measuring (M): the point of the map or of a shown part under the
    /// ray, as drawn, becomes the measurement's next point.
    fn measure_at(&mut self, origin: glam::Vec3, dir: glam::Vec3) {
        // The parts as the next frame draws them (see `pick`).
        let tl = &self.ui.timeline;
        self.animator
            .update(&self.scene, tl.clip, tl.time, &self.ui.view.visible);
        let Some(t) = self.surface_along(origin, dir) else {
            log::info!("measure: nothing under the cursor");
            return;
        };
        let point = origin + t * dir;
        self.ui.measure.add(point);
        log::info!(
            "measure: point {} at {:?}{}",
            self.ui.measure.points.len(),
            point.to_array(),
            match self.ui.measure.span() {
                Some(_) => format!(
                    "; {}",
                    self.ui.measure.describe(self.scene.unit_in_metres())
                ),
                None => String::new(),
            }
        );
    }

    /// Where along the ray the map, or a shown part as last posed, is
    /// first hit.
    fn surface_along(&self, origin: glam::Vec3, dir: glam::Vec3) -> Option<f32> {
        match self.scene.map.as_deref() {
            Some(info) => crate::scene::map_query::pick(&info.map, origin, dir).map(|h| h.2),
            None => crate::anim::pick::pick_part(
                &self.scene,
                &self.animator.pose,
                &self.animator.visible,
                origin,
                dir,
            )
            .map(|h| h.distance),
        }
    }

    /// Over a texture file: the texel of the level shown under the
    /// cursor (as the file stores it, whatever channels are shown), for
    /// the status bar; nothing off the texture or while dragging.
    fn probe_texture_file(&mut self) {
        if !self.scene.texture_view {
            return;
        }
        let level = self.scene.viewed_texture(self.ui.mip_level);
        let probe = match level {
            Some(level) if self.drag.is_none() && self.pointer_in_view() => {
                // The texture's quad, the view's one part.
                let (origin, dir) = self.cursor_ray();
                crate::anim::pick::pick_part(&self.scene, &self.animator.pose, &[true], origin, dir)
                    .and_then(|h| Some((h, self.scene.meshes.get(h.part)?)))
                    .and_then(|(h, mesh)| h.uv(mesh))
                    .map(|uv| {
                        crate::anim::pick::Probe::on(
                            Some(level),
                            uv,
                            [crate::scene::Wrap::Clamp; 2],
                        )
                    })
            }
            _ => None,
        };
        if probe != self.ui.probe {
            match &probe {
                Some(p) => log::debug!("under the cursor: {}", p.describe()),
                None => log::debug!("under the cursor: nothing of the texture"),
            }
            self.ui.probe = probe;
            self.window.request_redraw();
        }
    }

    /// With the skeleton shown (drawn over the model): selects the bone
    /// drawn within a few pixels of the cursor at `ndc`, if one is.
    fn pick_bone(&mut self, ndc: glam::Vec2) -> bool {
        let view_px = if self.viewport.is_positive() {
            glam::Vec2::new(self.viewport.width(), self.viewport.height()) * self.ppp
        } else {
            glam::Vec2::new(self.config.width as f32, self.config.height as f32)
        };
        let Some(bone) = crate::anim::pick::pick_bone(
            &self.scene,
            &self.animator.pose,
            self.camera.view_proj(self.view_aspect()),
            view_px,
            ndc,
            BONE_SLACK * self.ppp,
        ) else {
            return false;
        };
        log::info!(
            "picked bone {bone} {:?}",
            self.scene.skeleton.bones[bone].name
        );
        self.ui.select_bone(Some(bone));
        self.ui.reveal_selection = true;
        true
    }

    /// Models: selects the shown part under the ray, as drawn (the pose,
    /// the clip's part list), for the inspector to bring into view; a
    /// click on nothing clears the selection.
    fn pick_part(&mut self, origin: glam::Vec3, dir: glam::Vec3) {
        let hit = crate::anim::pick::pick_part(
            &self.scene,
            &self.animator.pose,
            &self.animator.visible,
            origin,
            dir,
        );
        match hit.and_then(|h| Some((h, self.scene.meshes.get(h.part)?))) {
            Some((h, mesh)) => {
                let probe = crate::anim::pick::Probe::of_hit(&self.scene, &h);
                let vertex =
                    crate::anim::pick::VertexHit::of_hit(&self.scene, &self.animator.pose, &h);
                log::info!(
                    "picked part {} {:?}, triangle {} of {}{}{}",
                    h.part,
                    mesh.name,
                    h.triangle,
                    mesh.triangle_count(),
                    vertex.map_or(String::new(), |v| format!(", vertex {}", v.vertex)),
                    probe
                        .as_ref()
                        .map_or(String::new(), |p| format!(", {}", p.describe()))
                );
                self.ui.select_part(Some(h.part));
                self.ui.reveal_selection = true;
                self.ui.probe = probe;
                self.ui.picked_vertex = vertex;
            }
            None => {
                log::info!("picked nothing (no shown part under the cursor)");
                self.ui.select_part(None);
                self.ui.select_bone(None);
                self.ui.probe = None;
                self.ui.picked_vertex = None;
            }
        }
    }

    /// Frames the selected bone (head to tail) or part, else the visible
    /// parts.
    pub(super) fn fit_selection(&mut self) {
        let aspect = self.view_aspect();
        if let Some(part) = self.ui.selected_part.and_then(|p| self.scene.meshes.get(p)) {
            let bounds = part.bounds();
            if !bounds.is_empty() {
                self.camera.fit(&bounds, aspect);
                return;
            }
        }
        let Some((i, b)) = self
            .ui
            .selected_bone
            .and_then(|i| Some((i, self.scene.skeleton.bones.get(i)?)))
        else {
            self.fit();
            return;
        };
        let (head, tail) = match self.animator.pose.world.get(i) {
            Some(w) => {
                let m = *w * b.rest.inverse();
                (m.transform_point3(b.head), m.transform_point3(b.tail))
            }
            None => (b.head, b.tail),
        };
        let pad = glam::Vec3::splat(head.distance(tail).max(1e-3) * 0.5);
        let bounds = crate::scene::Aabb {
            min: head.min(tail) - pad,
            max: head.max(tail) + pad,
        };
        self.camera.fit(&bounds, aspect);
    }

    /// Fly mode: moves by the held W/A/S/D (and Q/E down/up) for `dt`.
    pub(super) fn fly(&mut self, dt: f32) {
        use winit::keyboard::KeyCode as K;
        let axis = |plus: K, minus: K| {
            self.held.contains(&plus) as i32 as f32 - self.held.contains(&minus) as i32 as f32
        };
        let (f, r, u) = (
            axis(K::KeyW, K::KeyS),
            axis(K::KeyD, K::KeyA),
            axis(K::KeyE, K::KeyQ),
        );
        if f != 0.0 || r != 0.0 || u != 0.0 {
            let step = self.camera.scene_radius.max(1e-3) * self.ui.fly_speed * dt.min(0.1);
            self.camera.fly(f * step, r * step, u * step);
        }
    }

    /// A keyboard shortcut. Held keys repeat only for frame stepping: a
    /// toggle must not flip back because the key auto-repeated.
    pub(super) fn key(&mut self, key: &Key, repeat: bool) {
        let stepping =
            matches!(key, Key::Character(c) if matches!(c.as_str(), "," | "." | "<" | ">"));
        if repeat && !stepping {
            return;
        }
        // In fly mode W/A/S/D/Q/E move the camera (see `fly`).
        if self.ui.fly
            && matches!(key, Key::Character(c) if matches!(c.to_ascii_lowercase().as_str(), "w" | "a" | "s" | "d" | "q" | "e"))
        {
            return;
        }
        let ctrl = self.modifiers.control_key();
        match key {
            Key::Character(c) if ctrl && c.eq_ignore_ascii_case("o") => {
                self.act(UiAction::OpenDialog)
            }
            Key::Character(c) if ctrl && c.eq_ignore_ascii_case("f") => {
                self.ui.show_inspector = true;
                self.ui.focus_filter = true;
            }
            Key::Character(c) => match c.as_str() {
                "F" => self.act(UiAction::FitSelection),
                "f" if self.modifiers.shift_key() => self.act(UiAction::FitSelection),
                "f" => self.act(UiAction::Fit),
                "1" | "!" => self.camera.set_view(if ctrl {
                    AxisView::Back
                } else {
                    AxisView::Front
                }),
                "3" | "#" => self.camera.set_view(if ctrl {
                    AxisView::Left
                } else {
                    AxisView::Right
                }),
                "7" | "&" => self.camera.set_view(if ctrl {
                    AxisView::Bottom
                } else {
                    AxisView::Top
                }),
                "5" | "%" => self.ui.ortho ^= true,
                "r" | "R" => self.act(UiAction::ResetCamera),
                "w" | "W" => self.ui.view.wireframe ^= true,
                "n" | "N" => self.ui.view.normals ^= true,
                "b" | "B" => self.ui.view.bounds ^= true,
                "g" | "G" => self.ui.view.grid ^= true,
                "K" => self.ui.toggle_bone_names(),
                "k" if self.modifiers.shift_key() => self.ui.toggle_bone_names(),
                "k" => self.ui.view.skeleton ^= true,
                "t" | "T" => self.ui.view.textures ^= true,
                "c" | "C" => {
                    let back = c.as_str() == "C" || self.modifiers.shift_key();
                    let channel = self.ui.view.channel.cycled(if back { -1 } else { 1 });
                    self.ui.view.channel = channel;
                    log::info!("channel: {}", channel.name());
                }
                "l" | "L" => self.ui.show_labels ^= true,
                "m" | "M" => {
                    self.ui.measuring ^= true;
                    self.ui.measure = Default::default();
                }
                "x" | "X" => self.ui.show_axes ^= true,
                "o" | "O" => self.ui.turntable ^= true,
                "[" | "]" => {
                    if let Some(span) = self.ui.timeline.span(&self.scene) {
                        let tl = &mut self.ui.timeline;
                        if c.as_str() == "[" {
                            tl.set_range_start(&span);
                        } else {
                            tl.set_range_end();
                        }
                        match tl.range {
                            Some((a, b)) => log::info!("range {a:.3} to {b:.3} s"),
                            None => log::info!("range: the whole clip"),
                        }
                    }
                }
                "," | "<" => self.step(-1),
                "." | ">" => self.step(1),
                "h" | "H" if self.modifiers.alt_key() => self.ui.show_all_parts(),
                "H" => self.ui.show_only_selected_part(),
                "h" if self.modifiers.shift_key() => self.ui.show_only_selected_part(),
                "h" => self.ui.hide_selected_part(),
                "i" | "I" => self.ui.show_inspector ^= true,
                "?" => self.ui.show_help ^= true,
                _ => {}
            },
            Key::Named(NamedKey::F1) => self.ui.show_help ^= true,
            Key::Named(NamedKey::F11) => self.act(UiAction::FullScreen),
            Key::Named(NamedKey::F12) => self.act(UiAction::Screenshot),
            // Esc leaves full screen first, as players and browsers do.
            Key::Named(NamedKey::Escape) if self.window.fullscreen().is_some() => {
                self.act(UiAction::FullScreen)
            }
            Key::Named(NamedKey::Escape) => {
                self.ui.select_bone(None);
                self.ui.select_part(None);
                self.ui.measure = Default::default();
                // What the last click found goes with the selection.
                self.ui.picked_vertex = None;
                self.ui.probe = None;
            }
            Key::Named(NamedKey::Tab) => self.ui.fly ^= true,
            Key::Named(NamedKey::PageDown) => self.act(UiAction::OpenBeside(Direction::Next)),
            Key::Named(NamedKey::PageUp) => self.act(UiAction::OpenBeside(Direction::Previous)),
            Key::Named(NamedKey::Space) => {
                // The first press starts the first clip; later ones pause and
                // resume (clip or animated materials).
                if self.ui.timeline.clip.is_none() && !self.scene.clips.is_empty() {
                    self.ui.timeline.select(Some(0), &self.scene);
                } else if self.ui.timeline.span(&self.scene).is_some() {
                    self.ui.timeline.playing ^= true;
                }
            }
            Key::Named(NamedKey::Home) => {
                if let Some(span) = self.ui.timeline.span(&self.scene) {
                    self.ui.timeline.to_start(&span);
                }
            }
            Key::Named(NamedKey::End) => {
                if let Some(span) = self.ui.timeline.span(&self.scene) {
                    self.ui.timeline.to_end(&span);
                }
            }
            _ => {}
        }
    }

    pub(super) fn step(&mut self, frames: i32) {
        if let Some(span) = self.ui.timeline.span(&self.scene) {
            self.ui.timeline.step(frames, &span);
        }
    }
}
