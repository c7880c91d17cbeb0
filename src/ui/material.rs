//! The inspector's view of one animated material: its clock, every track's
//! keyframes (click one to jump there), the values at the current time and
//! which keyframe segment each track is in. Values come from the CPU
//! reference (`anim::material`) for this one material; rendering uses the
//! GPU's.

use super::UiState;
use crate::anim::material::{self, End, FramePos, MatValue, Segment};
use crate::scene::material_anim::{MatKey, MatTrack, MaterialAnim};
use crate::scene::{Material, Scene};

fn byte(x: f32) -> u8 {
    (x.clamp(0.0, 1.0) * 255.0).round() as u8
}

fn hex(c: &[f32]) -> String {
    c.iter().map(|&x| format!("{:02X}", byte(x))).collect()
}

fn color32(c: &[f32]) -> egui::Color32 {
    egui::Color32::from_rgb(byte(c[0]), byte(c[1]), byte(c[2]))
}

fn end_name(e: End) -> String {
    match e {
        End::Initial => "initial".into(),
        End::Key(i) => format!("key {i}"),
        End::Wrapped(i) => format!("key {i} (wrapped)"),
    }
}

/// "key 2 -> key 3, 45% (linear)" for the active segment.
pub fn segment_text<T>(keys: &[MatKey<T>], seg: Option<Segment>) -> String {
    match seg {
        None => "no keys: initial value".into(),
        Some(Segment { from, to: None, .. }) => format!("{} (holding)", end_name(from)),
        Some(Segment {
            from,
            to: Some(to),
            s,
        }) => {
            let interp = match to {
                End::Key(i) | End::Wrapped(i) => keys[i].interp.name(),
                End::Initial => "",
            };
            format!(
                "{} -> {}, {:.0}% ({interp})",
                end_name(from),
                end_name(to),
                s * 100.0
            )
        }
    }
}

struct TrackView<'a, T> {
    name: &'static str,
    track: &'a MatTrack<T>,
    /// Button fill for a key (colour keys show their colour).
    fill: fn(&T) -> Option<egui::Color32>,
    text: fn(&T) -> String,
    now: String,
    swatch: Option<egui::Color32>,
}

fn track_row<T: MatValue>(
    ui: &mut egui::Ui,
    v: TrackView<'_, T>,
    a: &MaterialAnim,
    pos: FramePos,
    jump: &mut Option<f32>,
) {
    ui.label(v.name);
    let seg = material::segment(&v.track.keys, pos, a);
    let active = |i: usize| {
        seg.is_some_and(|s| {
            [Some(s.from), s.to]
                .into_iter()
                .flatten()
                .any(|e| matches!(e, End::Key(k) | End::Wrapped(k) if k == i))
        })
    };
    ui.vertical(|ui| {
        ui.horizontal_wrapped(|ui| {
            ui.spacing_mut().item_spacing.x = 2.0;
            if v.track.is_empty() {
                ui.weak("—");
            }
            for (i, k) in v.track.keys.iter().enumerate() {
                let fill = (v.fill)(&k.value);
                let mut text = egui::RichText::new(k.frame.to_string()).monospace().small();
                if let Some(f) = fill {
                    let light = f.r() as u32 * 3 + f.g() as u32 * 6 + f.b() as u32 > 1200;
                    text = text.color(if light {
                        egui::Color32::BLACK
                    } else {
                        egui::Color32::WHITE
                    });
                }
                let mut button = egui::Button::new(text);
                if let Some(f) = fill {
                    button = button.fill(f);
                }
                if active(i) {
                    button = button.stroke(egui::Stroke::new(
                        2.0,
                        egui::Color32::from_rgb(255, 210, 60),
                    ));
                }
                let resp = ui.add(button).on_hover_text(format!(
                    "key {i}: frame {} · {} · {}\nclick to jump there",
                    k.frame,
                    k.interp.name(),
                    (v.text)(&k.value)
                ));
                if resp.clicked() {
                    *jump = Some(k.frame as f32 * a.seconds_per_frame);
                }
            }
        });
        ui.horizontal_wrapped(|ui| {
            if let Some(c) = v.swatch {
                let (rect, _) =
                    ui.allocate_exact_size(egui::vec2(20.0, 12.0), egui::Sense::hover());
                ui.painter().rect_filled(rect, 2.0, c);
            }
            ui.monospace(v.now);
            ui.weak(segment_text(&v.track.keys, seg));
        });
    });
    ui.end_row();
}

/// A colour track's row: its keys filled with their colours, the colour
/// now as hex and a swatch.
fn colour_view<'a, const N: usize>(
    name: &'static str,
    track: &'a MatTrack<[f32; N]>,
    now: &[f32; N],
) -> TrackView<'a, [f32; N]> {
    TrackView {
        name,
        track,
        fill: |c| Some(color32(c)),
        text: |c| format!("#{}", hex(c)),
        now: format!("#{}", hex(now)),
        swatch: Some(color32(now)),
    }
}

fn texture_text(t: &Option<usize>) -> String {
    t.map_or("none".into(), |t| format!("texture #{t}"))
}

/// The "Animation" part of material `index`'s inspector entry: its clock,
/// its tracks' keys and values now, and a jump to the key clicked.
pub fn animation(
    ui: &mut egui::Ui,
    scene: &Scene,
    index: usize,
    m: &Material,
    state: &mut UiState,
) {
    let Some(a) = &m.animation else { return };
    let now = material::evaluate(m, state.timeline.time);
    clock(ui, a, state.timeline.time, now.pos);
    let mut shown = state.selected_material == Some(index);
    if ui
        .checkbox(&mut shown, "keyframes on the timeline")
        .changed()
    {
        state.selected_material = shown.then_some(index);
    }
    if let Some(t) = tracks(ui, index, a, &now) {
        state.selected_material = Some(index);
        state.timeline.playing = false;
        match state.timeline.span(scene) {
            Some(span) => state.timeline.seek(t, &span),
            None => state.timeline.time = t,
        }
    }
}

/// The animation's clock: its frame rate, frames, cycle and loop mode, its
/// scrolling, and where time `t` falls (`pos`).
fn clock(ui: &mut egui::Ui, a: &MaterialAnim, t: f32, pos: FramePos) {
    let period = a.period_frames() as f32 * a.seconds_per_frame;
    ui.label(format!(
        "{:.1} ms a frame ({:.2} fps) · frames 0..={} ({:.2} s a cycle) · {}",
        a.seconds_per_frame * 1000.0,
        if a.seconds_per_frame > 0.0 {
            1.0 / a.seconds_per_frame
        } else {
            0.0
        },
        a.last_frame,
        period,
        a.loop_mode.name()
    ));
    if a.texture_scroll != [0.0; 2] || a.matcap_scroll != [0.0; 2] {
        ui.label(format!(
            "scroll per second: texture ({:.3}, {:.3}), matcap ({:.3}, {:.3}); {}",
            a.texture_scroll[0],
            a.texture_scroll[1],
            a.matcap_scroll[0],
            a.matcap_scroll[1],
            if a.preserve_scroll {
                "runs on the global time (preserved)"
            } else {
                "restarts with each cycle"
            }
        ));
    }
    ui.monospace(format!(
        "now: {t:.3} s · cycle {} · frame {:.2}",
        pos.cycle, pos.frame
    ));
}

/// Material `index`'s tracks, a row each; the time of the key clicked, if
/// one was.
fn tracks(
    ui: &mut egui::Ui,
    index: usize,
    a: &MaterialAnim,
    now: &material::MaterialState,
) -> Option<f32> {
    let pos = now.pos;
    let mut jump = None;
    egui::Grid::new(("mat-anim", index))
        .num_columns(2)
        .striped(true)
        .show(ui, |ui| {
            let color = colour_view("color", &a.color, &now.color);
            track_row(ui, color, a, pos, &mut jump);
            let emission = colour_view("emission", &a.emission, &now.emission);
            track_row(ui, emission, a, pos, &mut jump);
            track_row(
                ui,
                TrackView {
                    name: "shading",
                    track: &a.shading,
                    fill: |_| None,
                    text: |s| format!("{s:.3}"),
                    now: format!("{:.3}", now.shading),
                    swatch: None,
                },
                a,
                pos,
                &mut jump,
            );
            for (name, track, value) in [
                ("texture", &a.texture, now.texture),
                ("matcap", &a.matcap, now.matcap),
            ] {
                track_row(
                    ui,
                    TrackView {
                        name,
                        track,
                        fill: |_| None,
                        text: texture_text,
                        now: texture_text(&value),
                        swatch: None,
                    },
                    a,
                    pos,
                    &mut jump,
                );
            }
        });
    jump
}
