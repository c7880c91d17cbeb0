//! Playback state of the timeline panel: time, play/pause, speed, loop, frame
//! stepping. Pure logic, tested without a GPU.

use crate::scene::{Clip, Scene};

/// What the timeline runs over: a clip, or the material animations alone.
pub trait Span {
    fn duration_s(&self) -> f32;
    /// The last frame number.
    fn frames(&self) -> u32;
    /// The (fractional) frame shown at `t`.
    fn frame_at(&self, t: f32) -> f32;
    fn time_of_frame(&self, f: u32) -> f32;
}

impl Span for Clip {
    fn duration_s(&self) -> f32 {
        self.duration_s
    }
    fn frames(&self) -> u32 {
        self.frames
    }
    fn frame_at(&self, t: f32) -> f32 {
        Clip::frame_at(self, t)
    }
    fn time_of_frame(&self, f: u32) -> f32 {
        Clip::time_of_frame(self, f)
    }
}

/// The timeline of a scene whose materials animate, when no clip is chosen:
/// long enough to show every material's first cycle (two for `Continue`),
/// stepped by the shortest material frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MaterialSpan {
    pub duration_s: f32,
    pub frame_s: f32,
}

impl MaterialSpan {
    pub fn of(scene: &Scene) -> Option<MaterialSpan> {
        let anims = || scene.materials.iter().filter_map(|m| m.animation.as_ref());
        anims().next()?;
        let duration_s = anims().map(|a| a.preview_seconds()).fold(0.0, f32::max);
        let frame_s = anims()
            .map(|a| a.seconds_per_frame)
            .filter(|&s| s > 0.0)
            .fold(f32::INFINITY, f32::min);
        let frame_s = if frame_s.is_finite() {
            frame_s
        } else {
            1.0 / 30.0
        };
        Some(MaterialSpan {
            // Frozen clocks still scroll: give them a second to show it.
            duration_s: if duration_s > 0.0 { duration_s } else { 1.0 },
            frame_s,
        })
    }
}

impl Span for MaterialSpan {
    fn duration_s(&self) -> f32 {
        self.duration_s
    }
    fn frames(&self) -> u32 {
        (self.duration_s / self.frame_s).round() as u32
    }
    fn frame_at(&self, t: f32) -> f32 {
        t / self.frame_s
    }
    fn time_of_frame(&self, f: u32) -> f32 {
        (f.min(self.frames()) as f32 * self.frame_s).min(self.duration_s)
    }
}

/// The selected clip, or the materials' span when no clip is selected.
#[derive(Debug, Clone, Copy)]
pub enum TimeSpan<'a> {
    Clip(&'a Clip),
    Materials(MaterialSpan),
}

impl TimeSpan<'_> {
    /// What the timeline of `scene` runs over with `clip` selected; `None`
    /// when nothing moves (no clip chosen, no animated material).
    pub fn of(scene: &Scene, clip: Option<usize>) -> Option<TimeSpan<'_>> {
        match clip {
            Some(c) => scene.clips.get(c).map(TimeSpan::Clip),
            None => MaterialSpan::of(scene).map(TimeSpan::Materials),
        }
    }
}

impl Span for TimeSpan<'_> {
    fn duration_s(&self) -> f32 {
        match self {
            TimeSpan::Clip(c) => c.duration_s,
            TimeSpan::Materials(m) => m.duration_s,
        }
    }
    fn frames(&self) -> u32 {
        match self {
            TimeSpan::Clip(c) => c.frames,
            TimeSpan::Materials(m) => m.frames(),
        }
    }
    fn frame_at(&self, t: f32) -> f32 {
        match self {
            TimeSpan::Clip(c) => c.frame_at(t),
            TimeSpan::Materials(m) => m.frame_at(t),
        }
    }
    fn time_of_frame(&self, f: u32) -> f32 {
        match self {
            TimeSpan::Clip(c) => c.time_of_frame(f),
            TimeSpan::Materials(m) => m.time_of_frame(f),
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Timeline {
    /// Index into `Scene::clips`; `None` shows the rest pose (and runs the
    /// material animations on their own span).
    pub clip: Option<usize>,
    /// Seconds into the clip; animated materials run on this time too.
    pub time: f32,
    pub playing: bool,
    /// Playback speed multiplier (negative plays backwards).
    pub speed: f32,
    pub looping: bool,
    /// A part of the clip to play and step through alone, start and end in
    /// seconds (`[` and `]` set them at the time shown); `None`: all of it.
    pub range: Option<(f32, f32)>,
}

impl Default for Timeline {
    fn default() -> Self {
        Self {
            clip: None,
            time: 0.0,
            playing: false,
            speed: 1.0,
            looping: true,
            range: None,
        }
    }
}

impl Timeline {
    /// The timeline a scene opens with: its start clip playing when it has
    /// one (an animation file opened on its own), else playing when its
    /// materials animate.
    pub fn for_scene(scene: &Scene) -> Timeline {
        let mut t = Timeline {
            playing: MaterialSpan::of(scene).is_some(),
            ..Default::default()
        };
        if let Some(c) = scene.start_clip.filter(|&c| c < scene.clips.len()) {
            t.select(Some(c), scene);
        }
        t
    }

    /// Selects a clip (`None`: the rest pose) and starts from the beginning,
    /// playing when there is something to play.
    pub fn select(&mut self, clip: Option<usize>, scene: &Scene) {
        self.clip = clip;
        self.time = 0.0;
        self.range = None;
        self.playing = TimeSpan::of(scene, clip).is_some();
    }

    /// What the timeline runs over now (see [`TimeSpan::of`]).
    pub fn span<'a>(&self, scene: &'a Scene) -> Option<TimeSpan<'a>> {
        TimeSpan::of(scene, self.clip)
    }

    /// What plays: the range within the clip, else the whole clip, as
    /// (start, end) seconds with start <= end.
    pub fn bounds(&self, clip: &impl Span) -> (f32, f32) {
        let d = clip.duration_s().max(0.0);
        match self.range {
            Some((a, b)) => {
                let (a, b) = (a.clamp(0.0, d), b.clamp(0.0, d));
                (a.min(b), a.max(b))
            }
            None => (0.0, d),
        }
    }

    /// `[`: the range starts at the time shown, and ends where it did if
    /// that is later, else at the clip's end.
    pub fn set_range_start(&mut self, clip: &impl Span) {
        let end = match self.range {
            Some((_, b)) if b > self.time => b,
            _ => clip.duration_s(),
        };
        self.range = (end > self.time).then_some((self.time, end));
    }

    /// `]`: the range ends at the time shown, and starts where it did if
    /// that is earlier, else at the clip's start.
    pub fn set_range_end(&mut self) {
        let start = match self.range {
            Some((a, _)) if a < self.time => a,
            _ => 0.0,
        };
        self.range = (start < self.time).then_some((start, self.time));
    }

    /// Advances by `dt` wall seconds within [`Self::bounds`]. At its ends it
    /// wraps when looping, else stops there.
    pub fn advance(&mut self, dt: f32, clip: &impl Span) {
        if !self.playing {
            return;
        }
        let (lo, hi) = self.bounds(clip);
        if hi - lo <= 0.0 {
            self.time = lo;
            return;
        }
        let t = self.time + dt * self.speed;
        if self.looping {
            self.time = lo + (t - lo).rem_euclid(hi - lo);
        } else if t >= hi {
            self.time = hi;
            self.playing = false;
        } else if t <= lo {
            self.time = lo;
            self.playing = false;
        } else {
            self.time = t;
        }
    }

    /// Scrubs to `t`, clamped into the clip; the pose follows while paused.
    pub fn seek(&mut self, t: f32, clip: &impl Span) {
        self.time = t.clamp(0.0, clip.duration_s().max(0.0));
    }

    /// The current frame (whole frames, as shown).
    pub fn frame(&self, clip: &impl Span) -> u32 {
        (clip.frame_at(self.time) + 1e-3).floor() as u32
    }

    /// Moves one frame forward (`+1`) or back (`-1`) and pauses, among
    /// the whole frames within [`Self::bounds`]. Steps wrap at its ends
    /// when looping.
    pub fn step(&mut self, frames: i32, clip: &impl Span) {
        self.playing = false;
        let (lo, hi) = self.bounds(clip);
        let n = clip.frames() as i64;
        let first = ((clip.frame_at(lo) - 1e-3).ceil() as i64).clamp(0, n);
        let last = ((clip.frame_at(hi) + 1e-3).floor() as i64).clamp(first, n);
        let cur = (self.frame(clip) as i64).clamp(first, last);
        let mut f = cur + frames as i64;
        if self.looping && last > first {
            f = first + (f - first).rem_euclid(last - first + 1);
        }
        self.time = clip.time_of_frame(f.clamp(first, last) as u32);
    }

    /// To the start of [`Self::bounds`] (Home).
    pub fn to_start(&mut self, clip: &impl Span) {
        self.time = self.bounds(clip).0;
    }

    /// To the end of [`Self::bounds`] (End), paused.
    pub fn to_end(&mut self, clip: &impl Span) {
        self.time = self.bounds(clip).1;
        self.playing = false;
    }
}
