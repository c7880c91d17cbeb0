//! The timeline panel: clip list, play/pause, scrubbing, frame stepping,
//! speed, loop, and keyframe ticks of the selected bone.

use super::UiState;
use crate::scene::Scene;
use crate::scene::clip::RotationTrack;

pub fn timeline(ui: &mut egui::Ui, scene: &Scene, state: &mut UiState) {
    let tl = &mut state.timeline;
    ui.horizontal(|ui| {
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
            tl.select(chosen);
        }
        let Some(clip) = tl.clip.and_then(|c| scene.clips.get(c)) else {
            ui.weak(if scene.clips.is_empty() {
                "this file has no animations"
            } else {
                "pick a clip to play"
            });
            return;
        };
        if ui.button("Start").on_hover_text("start (Home)").clicked() {
            tl.to_start();
        }
        if ui
            .button("< Frame")
            .on_hover_text("previous frame (,)")
            .clicked()
        {
            tl.step(-1, clip);
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
            tl.step(1, clip);
        }
        if ui.button("End").on_hover_text("end (End)").clicked() {
            tl.to_end(clip);
        }
        ui.checkbox(&mut tl.looping, "Loop");
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
            tl.frame(clip),
            clip.frames
        ));
    });
    let Some(clip) = state.timeline.clip.and_then(|c| scene.clips.get(c)) else {
        return;
    };
    // The track: scrub by clicking or dragging; keyframe ticks of the selected bone.
    let width = ui.available_width();
    let (rect, resp) =
        ui.allocate_exact_size(egui::vec2(width, 34.0), egui::Sense::click_and_drag());
    let painter = ui.painter_at(rect);
    painter.rect_filled(rect, 3.0, ui.visuals().extreme_bg_color);
    let d = clip.duration_s.max(1e-6);
    let x_of = |t: f32| rect.left() + (t / d).clamp(0.0, 1.0) * rect.width();
    for s in &clip.segments {
        let x = x_of(s.start_s);
        painter.line_segment(
            [egui::pos2(x, rect.top()), egui::pos2(x, rect.bottom())],
            (1.0, egui::Color32::from_gray(90)),
        );
    }
    if let Some(ch) = state
        .selected_bone
        .and_then(|b| clip.channels.iter().find(|c| c.bone == b))
    {
        // One row of ticks per track: translation, rotation, scale.
        let tick = |row: usize, t: f32, color: egui::Color32| {
            let (x, y) = (x_of(t), rect.top() + 7.0 + row as f32 * 10.0);
            painter.line_segment(
                [egui::pos2(x, y - 3.0), egui::pos2(x, y + 3.0)],
                (2.0, color),
            );
        };
        for k in &ch.translation.keys {
            tick(0, k.time, egui::Color32::from_rgb(240, 110, 90));
        }
        let rotation_green = egui::Color32::from_rgb(110, 220, 120);
        match &ch.rotation {
            RotationTrack::EulerXyz(t) => {
                t.keys.iter().for_each(|k| tick(1, k.time, rotation_green))
            }
            RotationTrack::Quat(t) => t.keys.iter().for_each(|k| tick(1, k.time, rotation_green)),
        }
        for k in &ch.scale.keys {
            tick(2, k.time, egui::Color32::from_rgb(110, 160, 250));
        }
    }
    let x = x_of(state.timeline.time);
    painter.line_segment(
        [egui::pos2(x, rect.top()), egui::pos2(x, rect.bottom())],
        (2.0, egui::Color32::from_rgb(255, 210, 60)),
    );
    if let Some(p) = resp.interact_pointer_pos()
        && (resp.dragged() || resp.clicked())
    {
        let t = (p.x - rect.left()) / rect.width() * d;
        state.timeline.seek(t, clip);
    }
    resp.on_hover_text(if state.selected_bone.is_some() {
        "click or drag to scrub; ticks: keyframes of the selected bone (translation, rotation, scale)"
    } else {
        "click or drag to scrub; select a bone to see its keyframes"
    });
}
