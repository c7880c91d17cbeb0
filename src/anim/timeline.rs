//! Playback state of the timeline panel: time, play/pause, speed, loop, frame
//! stepping. Pure logic, tested without a GPU.

use crate::scene::Clip;

#[derive(Debug, Clone, PartialEq)]
pub struct Timeline {
    /// Index into `Scene::clips`; `None` shows the rest pose.
    pub clip: Option<usize>,
    /// Seconds into the clip.
    pub time: f32,
    pub playing: bool,
    /// Playback speed multiplier (negative plays backwards).
    pub speed: f32,
    pub looping: bool,
}

impl Default for Timeline {
    fn default() -> Self {
        Self {
            clip: None,
            time: 0.0,
            playing: false,
            speed: 1.0,
            looping: true,
        }
    }
}

impl Timeline {
    /// Selects a clip and starts it from the beginning, playing.
    pub fn select(&mut self, clip: Option<usize>) {
        self.clip = clip;
        self.time = 0.0;
        self.playing = clip.is_some();
    }

    /// Advances by `dt` wall seconds. At the ends it wraps when looping, else
    /// stops there.
    pub fn advance(&mut self, dt: f32, clip: &Clip) {
        if !self.playing {
            return;
        }
        let d = clip.duration_s;
        if d <= 0.0 {
            self.time = 0.0;
            return;
        }
        let t = self.time + dt * self.speed;
        if self.looping {
            self.time = t.rem_euclid(d);
        } else if t >= d {
            self.time = d;
            self.playing = false;
        } else if t <= 0.0 {
            self.time = 0.0;
            self.playing = false;
        } else {
            self.time = t;
        }
    }

    /// Scrubs to `t`, clamped into the clip; the pose follows while paused.
    pub fn seek(&mut self, t: f32, clip: &Clip) {
        self.time = t.clamp(0.0, clip.duration_s.max(0.0));
    }

    /// The current frame (whole frames, as shown).
    pub fn frame(&self, clip: &Clip) -> u32 {
        (clip.frame_at(self.time) + 1e-3).floor() as u32
    }

    /// Moves one frame forward (`+1`) or back (`-1`) and pauses. Steps wrap at
    /// the ends when looping.
    pub fn step(&mut self, frames: i32, clip: &Clip) {
        self.playing = false;
        let cur = self.frame(clip) as i64;
        let n = clip.frames as i64;
        let mut f = cur + frames as i64;
        if self.looping && n > 0 {
            f = f.rem_euclid(n + 1);
        }
        self.time = clip.time_of_frame(f.clamp(0, n) as u32);
    }

    pub fn to_start(&mut self) {
        self.time = 0.0;
    }

    pub fn to_end(&mut self, clip: &Clip) {
        self.time = clip.duration_s;
        self.playing = false;
    }
}
