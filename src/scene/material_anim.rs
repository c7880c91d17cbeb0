//! Keyframe animation of a material's values, in a format-independent form.
//! P3M's animated materials map onto it (see `docs/formats.md`, "Animated
//! materials"); `anim::material` evaluates it and `shaders/material_anim.wgsl`
//! does the same on the GPU.
//!
//! A material animation runs on its own frame clock from the global time:
//! `frame = time / seconds_per_frame`. One cycle covers frames
//! `0..=last_frame`, each lasting one frame, so a cycle is `last_frame + 1`
//! frames long.

/// How a key is reached from the previous one (the segment that ends at it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MatInterp {
    /// Hold the previous value until this key's frame.
    Step,
    /// Straight line between the stored (sRGB-encoded) values.
    Linear,
    /// Colours: through HSV, hue along the shorter arc; alpha linear.
    Hsv,
    /// Colours: through OKLCH (from linear light), hue along the shorter arc;
    /// alpha linear.
    Oklch,
}

impl MatInterp {
    pub fn name(self) -> &'static str {
        match self {
            MatInterp::Step => "step",
            MatInterp::Linear => "linear",
            MatInterp::Hsv => "HSV",
            MatInterp::Oklch => "OKLCH",
        }
    }
}

/// What happens after the last frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MatLoop {
    /// Stop at `last_frame` and hold its values.
    Hold,
    /// Restart at frame 0 (from the initial values).
    Loop,
    /// Restart, but interpolate from the last keyframe into the first instead
    /// of jumping: every cycle after the first starts from the last values.
    Continue,
}

impl MatLoop {
    pub fn name(self) -> &'static str {
        match self {
            MatLoop::Hold => "hold (NONE)",
            MatLoop::Loop => "loop (LOOP)",
            MatLoop::Continue => "continue (CONT)",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MatKey<T> {
    /// Frame number within the cycle, at most `last_frame`.
    pub frame: u32,
    pub interp: MatInterp,
    pub value: T,
}

/// Keys in increasing frame order. An empty track keeps the material's
/// initial value; before the first key the initial value holds at frame 0.
#[derive(Debug, Clone, PartialEq)]
pub struct MatTrack<T> {
    pub keys: Vec<MatKey<T>>,
}

impl<T> Default for MatTrack<T> {
    fn default() -> Self {
        Self { keys: Vec::new() }
    }
}

impl<T> MatTrack<T> {
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }
}

/// The animated part of a [`super::Material`]; the material's own values are
/// the initial values.
#[derive(Debug, Clone, PartialEq)]
pub struct MaterialAnim {
    /// Length of one frame; 0 freezes the animation at frame 0.
    pub seconds_per_frame: f32,
    pub last_frame: u32,
    pub loop_mode: MatLoop,
    /// Scrolls run on the global time; otherwise they restart with each cycle
    /// and stop when a `Hold` animation ends.
    pub preserve_scroll: bool,
    /// UV units per second, in scene UV space (V down).
    pub texture_scroll: [f32; 2],
    pub matcap_scroll: [f32; 2],
    /// sRGB-encoded RGBA in 0..1.
    pub color: MatTrack<[f32; 4]>,
    /// sRGB-encoded RGB in 0..1.
    pub emission: MatTrack<[f32; 3]>,
    pub shading: MatTrack<f32>,
    /// Texture indices (`None`: no texture); always stepped.
    pub texture: MatTrack<Option<usize>>,
    pub matcap: MatTrack<Option<usize>>,
}

impl MaterialAnim {
    /// No keys and no scrolling: the material's values hold.
    pub fn new(seconds_per_frame: f32, last_frame: u32, loop_mode: MatLoop) -> MaterialAnim {
        MaterialAnim {
            seconds_per_frame,
            last_frame,
            loop_mode,
            preserve_scroll: false,
            texture_scroll: [0.0; 2],
            matcap_scroll: [0.0; 2],
            color: MatTrack::default(),
            emission: MatTrack::default(),
            shading: MatTrack::default(),
            texture: MatTrack::default(),
            matcap: MatTrack::default(),
        }
    }

    /// Frames in one cycle.
    pub fn period_frames(&self) -> u32 {
        self.last_frame + 1
    }

    /// Seconds of timeline that show everything the animation does: the first
    /// cycle (up to holding the last frame), and for `Continue` a second cycle
    /// that starts from the wrap.
    pub fn preview_seconds(&self) -> f32 {
        let cycles = if self.loop_mode == MatLoop::Continue {
            2
        } else {
            1
        };
        (self.period_frames() * cycles) as f32 * self.seconds_per_frame
    }

    /// Whether texture or matcap change over time (switches, not scrolls).
    pub fn switches_textures(&self) -> bool {
        !self.texture.is_empty() || !self.matcap.is_empty()
    }
}
