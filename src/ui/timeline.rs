//! The timeline panel: clip list, play/pause, scrubbing, frame stepping,
//! speed, loop, and keyframe ticks of the selected bone or material. Without
//! a clip, animated materials still play on their own span.

use super::UiState;
use crate::anim::timeline::{Span, TimeSpan, Timeline};
use crate::scene::clip::RotationTrack;
use crate::scene::material_anim::{MatLoop, MaterialAnim};
use crate::scene::{Clip, Scene};

/// The timeline panel: the clip's controls, then its track.
pub fn timeline(ui: &mut egui::Ui, scene: &Scene, state: &mut UiState) {
    ui.horizontal(|ui| controls(ui, scene, &mut state.timeline));
    if let Some(span) = state.timeline.span(scene) {
        track(ui, scene, state, span);
    }
}

/// The clip picker, the transport buttons, loop and speed, and where the
/// time is.
fn controls(ui: &mut egui::Ui, scene: &Scene, tl: &mut Timeline) {
    let label = tl
        .clip
        .and_then(|c| scene.clips.get(c))
        .map_or("(rest pose)".to_string(), |c| c.name.clone());
    let mut chosen = tl.clip;
    egui::ComboBox::new("clip", "Clip")
        .selected_text(label)
        .show_ui(ui, |ui| {
            ui.selectable_value(&mut chosen, None, "(rest pose)");
            for (i, c) in scene.clips.iter().enumerate() {
                ui.selectable_value(
                    &mut chosen,
                    Some(i),
                    format!("{} ({:.2} s)", c.name, c.duration_s),
                );
            }
        });
    if chosen != tl.clip {
        tl.select(chosen, scene);
    }
    let Some(span) = tl.span(scene) else {
        ui.weak(if scene.clips.is_empty() {
            "this file has no animations"
        } else {
            "pick a clip to play"
        });
        return;
    };
    if matches!(span, TimeSpan::Materials(_)) {
        ui.weak("animated materials");
    }
    if ui.button("Start").on_hover_text("start (Home)").clicked() {
        tl.to_start(&span);
    }
    if ui
        .button("< Frame")
        .on_hover_text("previous frame (,)")
        .clicked()
    {
        tl.step(-1, &span);
    }
    let play = if tl.playing { "Pause" } else { "Play" };
    if ui.button(play).on_hover_text("Space").clicked() {
        tl.playing = !tl.playing;
    }
    if ui
        .button("Frame >")
        .on_hover_text("next frame (.)")
        .clicked()
    {
        tl.step(1, &span);
    }
    if ui.button("End").on_hover_text("end (End)").clicked() {
        tl.to_end(&span);
    }
    ui.checkbox(&mut tl.looping, "Loop");
    range_buttons(ui, tl, &span);
    ui.add(
        egui::DragValue::new(&mut tl.speed)
            .range(-8.0..=8.0)
            .speed(0.01)
            .prefix("speed ×"),
    );
    ui.separator();
    ui.monospace(format!(
        "{:7.3} s  frame {:4} / {}",
        tl.time,
        tl.frame(&span),
        span.frames()
    ));
}

/// Setting the range played from the time shown (`[` and `]`), and
/// clearing it.
fn range_buttons(ui: &mut egui::Ui, tl: &mut Timeline, span: &TimeSpan<'_>) {
    if ui
        .button("[")
        .on_hover_text("play from here: the range starts at the time shown ([)")
        .clicked()
    {
        tl.set_range_start(span);
    }
    if ui
        .button("]")
        .on_hover_text("play to here: the range ends at the time shown (])")
        .clicked()
    {
        tl.set_range_end();
    }
    // One small button names the range and clears it: the row stays
    // about as wide as without one.
    if let Some((a, b)) = tl.range
        && ui
            .small_button(format!("{a:.2}-{b:.2} s ×"))
            .on_hover_text("the range played; click to play the whole clip again")
            .clicked()
    {
        tl.range = None;
    }
}

/// The track under the controls: scrub by clicking or dragging, the clip's
/// segments, and the keyframe ticks of the selected material or bone.
fn track(ui: &mut egui::Ui, scene: &Scene, state: &mut UiState, span: TimeSpan<'_>) {
    let width = ui.available_width();
    let (rect, resp) =
        ui.allocate_exact_size(egui::vec2(width, 34.0), egui::Sense::click_and_drag());
    let painter = ui.painter_at(rect);
    painter.rect_filled(rect, 3.0, ui.visuals().extreme_bg_color);
    let d = span.duration_s().max(1e-6);
    let x_of = |t: f32| rect.left() + (t / d).clamp(0.0, 1.0) * rect.width();
    // The range played, shaded, between brackets.
    if state.timeline.range.is_some() {
        let (a, b) = state.timeline.bounds(&span);
        let (xa, xb) = (x_of(a), x_of(b));
        let band = egui::Rect::from_x_y_ranges(xa..=xb, rect.y_range());
        let tint = ui.visuals().selection.bg_fill.gamma_multiply(0.35);
        painter.rect_filled(band, 0.0, tint);
        let edge = egui::Stroke::new(2.0, ui.visuals().selection.bg_fill);
        for x in [xa, xb] {
            painter.line_segment(
                [egui::pos2(x, rect.top()), egui::pos2(x, rect.bottom())],
                edge,
            );
        }
    }
    let tick = |row: usize, rows: usize, t: f32, color: egui::Color32| {
        let pitch = (rect.height() - 8.0) / rows as f32;
        let (x, y) = (x_of(t), rect.top() + 4.0 + pitch * (row as f32 + 0.5));
        let half = (pitch * 0.35).max(2.0);
        painter.line_segment(
            [egui::pos2(x, y - half), egui::pos2(x, y + half)],
            (2.0, color),
        );
    };
    if let TimeSpan::Clip(clip) = span {
        for s in &clip.segments {
            let x = x_of(s.start_s);
            painter.line_segment(
                [egui::pos2(x, rect.top()), egui::pos2(x, rect.bottom())],
                (1.0, egui::Color32::from_gray(90)),
            );
        }
    }
    let material = state
        .selected_material
        .and_then(|m| scene.materials.get(m))
        .and_then(|m| m.animation.as_ref());
    let hint = if let Some(a) = material {
        material_ticks(a, d, &tick);
        "click or drag to scrub; ticks: keyframes of the selected material (color, emission, shading, texture, matcap)"
    } else if let (TimeSpan::Clip(clip), Some(b)) = (span, state.selected_bone) {
        bone_ticks(clip, b, &tick);
        "click or drag to scrub; ticks: keyframes of the selected bone (translation, rotation, scale)"
    } else {
        "click or drag to scrub; select a bone or an animated material to see its keyframes"
    };
    let x = x_of(state.timeline.time);
    painter.line_segment(
        [egui::pos2(x, rect.top()), egui::pos2(x, rect.bottom())],
        (2.0, egui::Color32::from_rgb(255, 210, 60)),
    );
    if let Some(p) = resp.interact_pointer_pos()
        && (resp.dragged() || resp.clicked())
    {
        let t = (p.x - rect.left()) / rect.width() * d;
        state.timeline.seek(t, &span);
    }
    resp.on_hover_text(hint);
}

fn bone_ticks(clip: &Clip, bone: usize, tick: &impl Fn(usize, usize, f32, egui::Color32)) {
    let Some(ch) = clip.channels.iter().find(|c| c.bone == bone) else {
        return;
    };
    // One row of ticks per track: translation, rotation, scale.
    for k in &ch.translation.keys {
        tick(0, 3, k.time, egui::Color32::from_rgb(240, 110, 90));
    }
    let green = egui::Color32::from_rgb(110, 220, 120);
    match &ch.rotation {
        RotationTrack::EulerZxy(t) => t.keys.iter().for_each(|k| tick(1, 3, k.time, green)),
        RotationTrack::Quat(t) => t.keys.iter().for_each(|k| tick(1, 3, k.time, green)),
    }
    for k in &ch.scale.keys {
        tick(2, 3, k.time, egui::Color32::from_rgb(110, 160, 250));
    }
}

/// Ticks of every track of `a`, repeated for each cycle that fits in
/// `duration` seconds (one cycle for `Hold`). Colour keys are drawn in their
/// own colour.
fn material_ticks(
    a: &MaterialAnim,
    duration: f32,
    tick: &impl Fn(usize, usize, f32, egui::Color32),
) {
    let period = a.period_frames() as f32 * a.seconds_per_frame;
    let cycles = if a.loop_mode == MatLoop::Hold || period <= 0.0 {
        1
    } else {
        ((duration / period).ceil() as usize).clamp(1, 64)
    };
    let grey = egui::Color32::from_gray(200);
    let c32 = |c: [f32; 4]| {
        let b = |x: f32| (x.clamp(0.0, 1.0) * 255.0).round() as u8;
        egui::Color32::from_rgb(b(c[0]), b(c[1]), b(c[2]))
    };
    for c in 0..cycles {
        let at = |frame: u32| c as f32 * period + frame as f32 * a.seconds_per_frame;
        for k in &a.color.keys {
            tick(0, 5, at(k.frame), c32(k.value));
        }
        for k in &a.emission.keys {
            tick(
                1,
                5,
                at(k.frame),
                c32([k.value[0], k.value[1], k.value[2], 1.0]),
            );
        }
        for k in &a.shading.keys {
            tick(2, 5, at(k.frame), grey);
        }
        for k in &a.texture.keys {
            tick(3, 5, at(k.frame), egui::Color32::from_rgb(230, 180, 90));
        }
        for k in &a.matcap.keys {
            tick(4, 5, at(k.frame), egui::Color32::from_rgb(180, 140, 240));
        }
    }
}
