//! `facet`: the command line. With no subcommand it opens a window.

use anyhow::{Context, bail};
use clap::{Parser, Subcommand};
use facet::cli::{bench_command, headless, info};
use facet::gpu::{Channel, LightTurn, Lighting, TeamColors};
use facet::gpu::{ViewOptions, capture};
use facet::{app, load};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// `println!` through [`facet::cli::print`], which ends a report quietly
/// where its reader has gone (`facet install-desktop | head`); an
/// `io::Result` for `?`.
macro_rules! outln {
    ($($arg:tt)*) => {
        facet::cli::print(format_args!("{}\n", format_args!($($arg)*)))
    };
}

/// mimalloc instead of glibc's malloc: glibc hands large freed blocks back
/// to the kernel, so every load after the first (a reload on change, the
/// next file, a folder convert) faults its pages in again; on the
/// development VM that was 40% of loading radar_jammer.papa (976 -> 584 us,
/// `docs/performance-history.md`). The benches use the same allocator; `facet::alloc`
/// says why it is ours and not the `mimalloc` crate's.
#[global_allocator]
static ALLOCATOR: facet::alloc::Mimalloc = facet::alloc::Mimalloc;

/// A real-time GPU viewer for game models and maps (P3M, PTF, M3D, Papa, PMF, glTF).
#[derive(Parser)]
#[command(name = "facet", version, args_conflicts_with_subcommands = true)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// File to open (default: the bundled demo, assets/demo.p3m).
    file: Option<PathBuf>,
    /// Save a screenshot of the window (panels included) after --frames
    /// frames, then quit (PNG, JPEG, WebP, BMP or TGA by the extension).
    #[arg(long, value_name = "IMAGE", requires = "frames", value_parser = parse_image_path)]
    screenshot: Option<PathBuf>,
    /// Quit after this many frames.
    #[arg(long, value_name = "N")]
    frames: Option<u32>,
    /// A Planetary Annihilation media root (a folder holding pa/), tried
    /// before those in the settings; repeatable.
    #[arg(long = "media", value_name = "DIR", global = true)]
    media: Vec<PathBuf>,
    /// Decoded texels a file may take, in MiB, all its textures together
    /// (default: the settings' value, 1024): textures that find too little
    /// left are decoded smaller where the format allows, else refused.
    /// `info` and `thumbnail` use less (see the README).
    #[arg(long, value_name = "MIB", global = true, value_parser = clap::value_parser!(u64).range(1..=1 << 20))]
    max_texture_memory: Option<u64>,
}

#[derive(Subcommand)]
enum Command {
    /// Open FILE in a window (the default).
    View {
        /// Model, map or texture to open (default: the bundled demo,
        /// assets/demo.p3m).
        file: Option<PathBuf>,
    },
    /// Print the decoded structure of FILE.
    Info {
        /// Model, map, texture or animation file, of any format facet opens.
        file: PathBuf,
        /// JSON for scripts (a top-level "summary" with the same keys for every format).
        #[arg(long)]
        json: bool,
        /// Add a "pose" section: every bone posed by this clip at --time
        /// (model-space matrix, head, and tail where the format stores one).
        #[arg(long, value_name = "NAME")]
        clip: Option<String>,
        /// Seconds into --clip for the pose.
        #[arg(long, value_name = "SECONDS", default_value_t = 0.0, requires = "clip",
              value_parser = parse_seconds, allow_negative_numbers = true)]
        time: f32,
    },
    /// Install (or remove) the desktop entry, MIME types (by extension and
    /// magic), icon and thumbnailer for this user, under $XDG_DATA_HOME.
    InstallDesktop {
        /// Remove what an earlier install-desktop added instead.
        #[arg(long)]
        uninstall: bool,
    },
    /// Write a square thumbnail of FILE (the file-manager thumbnailer):
    /// the model framed on a transparent background, no grid.
    Thumbnail {
        /// Model, map or texture file, of any format facet opens.
        input: PathBuf,
        /// The PNG to write.
        output: PathBuf,
        /// Width and height in pixels.
        #[arg(long, default_value_t = 256, value_parser = clap::value_parser!(u32).range(16..=2048))]
        size: u32,
        /// PA team colours, primary and secondary: '#RRGGBB,#RRGGBB'.
        #[arg(long, value_name = "COLORS", value_parser = TeamColors::parse)]
        team_colors: Option<TeamColors>,
        /// Print where the time went (adapter start-up, load, render, PNG)
        /// as one line of `key=milliseconds` on stdout.
        #[arg(long)]
        timings: bool,
    },
    /// Convert FILE to glTF 2.0 (.glb, or .gltf with .bin and PNGs beside
    /// it), or every model and map under DIR into OUTDIR in parallel:
    /// parts, materials, textures, skeleton, skin and every clip; what glTF
    /// cannot hold is listed. A texture file converts to an image.
    Convert {
        /// A model or map file, a texture file, or a folder searched for
        /// models and maps.
        input: PathBuf,
        /// Output file (.glb or .gltf; for a texture file, an image: .png,
        /// .jpg, .webp, .bmp, .tga), or folder when INPUT is a folder.
        #[arg(short, long)]
        output: PathBuf,
        /// Folder mode: write .gltf (with .bin and PNGs) instead of .glb.
        #[arg(long)]
        gltf: bool,
        /// Material colour animation as KHR_animation_pointer channels
        /// (readers without the extension refuse such files; the values
        /// are in the material's extras either way).
        #[arg(long)]
        animation_pointer: bool,
    },
    /// Render FILE headless (no window) to an image (PNG, or JPEG, WebP,
    /// BMP, TGA by the output's extension).
    Render(RenderArgs),
    /// Measure performance: `bench skin` (GPU skinning) and `bench materials`
    /// (material keyframe animation), each against the CPU reference, and
    /// `bench map` (a map's frame times).
    Bench {
        #[command(subcommand)]
        what: BenchWhat,
    },
    /// Rewrite the bundled assets in DIR with the project's own writers
    /// (builds with `--features generators`).
    #[command(hide = true)]
    GenAssets {
        #[arg(default_value = "assets")]
        dir: PathBuf,
    },
}

// `facet render`'s options (its help is the variant's doc comment).
#[derive(clap::Args)]
struct RenderArgs {
    /// Model, map or texture file, of any format facet opens.
    file: PathBuf,
    /// Output image: .png, .jpg/.jpeg, .webp, .bmp or .tga.
    #[arg(short, long, value_parser = parse_image_path)]
    output: PathBuf,
    /// Image size, WIDTHxHEIGHT.
    #[arg(long, default_value = "800x600", value_parser = parse_size)]
    size: (u32, u32),
    /// Camera as YAW,PITCH[,ZOOM]: degrees around the model and above it;
    /// ZOOM 1 is framed to fit, 2 is twice as close (as far as the
    /// viewer's wheel goes: the eye stays between 1/1000 and 1000 times
    /// the model's radius from its centre).
    #[arg(long, value_parser = parse_camera, allow_hyphen_values = true)]
    camera: Option<(f32, f32, f32)>,
    /// Draw the wireframe overlay.
    #[arg(long)]
    wireframe: bool,
    /// Draw the normals overlay.
    #[arg(long)]
    normals: bool,
    /// Draw bounding boxes.
    #[arg(long)]
    bounds: bool,
    /// Hide the ground grid.
    #[arg(long)]
    no_grid: bool,
    /// Show parts hidden by default too.
    #[arg(long)]
    all_parts: bool,
    /// Background colour, #RRGGBB or #RRGGBBAA (sRGB).
    #[arg(long, value_parser = parse_color)]
    background: Option<[f64; 4]>,
    /// Draw the skeleton overlay.
    #[arg(long)]
    skeleton: bool,
    /// Lighting preset: studio, flat, top or matcap.
    #[arg(long, default_value = "studio", value_parser = parse_lighting)]
    lighting: Lighting,
    /// The key light turned from where the lighting puts it: TURN degrees
    /// about the up axis (counter-clockwise seen from above: a light in
    /// front of the camera moves to its right), RAISE degrees higher (the
    /// window's Ctrl + drag).
    #[arg(long, value_name = "TURN,RAISE", value_parser = LightTurn::parse,
          allow_hyphen_values = true)]
    light: Option<LightTurn>,
    /// PA team colours, primary and secondary: '#RRGGBB,#RRGGBB'
    /// (default: the MLA preset, #007CFF,#FF6400).
    #[arg(long, value_name = "COLORS", value_parser = TeamColors::parse)]
    team_colors: Option<TeamColors>,
    /// Draw without textures (material and vertex colours only).
    #[arg(long)]
    no_textures: bool,
    /// Show one input alone: shaded, diffuse, mask, material, normal,
    /// weights (the --bone's skin weights, blue 0 to red 1), uvs (the UVs
    /// as a checker, eight squares a unit) or faces (fronts blue, backs
    /// red, both sides drawn).
    #[arg(long, default_value = "shaded", value_parser = parse_channel)]
    channel: Channel,
    /// Select this bone (by name): highlighted by --skeleton, its weights
    /// shown by --channel weights.
    #[arg(long, value_name = "NAME")]
    bone: Option<String>,
    /// Pose the model with this clip (animation) ...
    #[arg(long, value_name = "NAME")]
    clip: Option<String>,
    /// Add the animations of a separate file (Papa: `unit_anim_walk.papa`)
    /// and pose with the first unless --clip names another.
    #[arg(long, value_name = "FILE")]
    anim: Option<PathBuf>,
    /// Time in seconds: into the clip, and on the clock of animated
    /// materials (which run with or without a clip).
    #[arg(long, value_name = "SECONDS", default_value_t = 0.0, value_parser = parse_seconds,
          allow_negative_numbers = true)]
    time: f32,
    /// Draw the clip (--clip, --anim's, else the file's first) from its
    /// start to its end at FPS frames a second, each frame its own image
    /// beside OUT, numbered: walk.png -> walk-0000.png, walk-0001.png, ...
    #[arg(long, value_name = "FPS", value_parser = parse_fps, conflicts_with = "time")]
    sequence: Option<f32>,
    /// With --sequence: draw this many seconds instead of the clip's length
    /// (a file whose materials animate without a clip).
    #[arg(long, value_name = "SECONDS", value_parser = parse_seconds, requires = "sequence")]
    duration: Option<f32>,
}

impl RenderArgs {
    /// Renders the file headless to the output image.
    fn run(self, options: &load::LoadOptions) -> anyhow::Result<()> {
        let mut view = ViewOptions {
            wireframe: self.wireframe,
            normals: self.normals,
            bounds: self.bounds,
            skeleton: self.skeleton,
            grid: !self.no_grid,
            lighting: self.lighting,
            light_turn: self.light.unwrap_or_default(),
            team_colors: self.team_colors.unwrap_or_default(),
            textures: !self.no_textures,
            channel: self.channel,
            ..Default::default()
        };
        if let Some(bg) = self.background {
            view.background = bg;
        }
        let req = headless::RenderRequest {
            width: self.size.0,
            height: self.size.1,
            camera: self.camera,
            view,
            all_parts: self.all_parts,
            clip: self.clip,
            time: self.time,
            bone: self.bone,
        };
        let sequence = self.sequence.map(|fps| facet::cli::render::Sequence {
            fps,
            duration: self.duration,
        });
        facet::cli::render::render(
            &self.file,
            &self.output,
            req,
            self.anim.as_deref(),
            sequence,
            options,
        )
    }
}

#[derive(Subcommand)]
enum BenchWhat {
    /// Vertices skinned per second on the GPU (one dispatch) and on the CPU reference.
    Skin {
        /// Sizes to sweep, in one process on one device: `1M,10M,50M`.
        #[arg(long, value_delimiter = ',', default_value = "1M",
              value_parser = facet::cli::bench::parse_count)]
        vertices: Vec<u32>,
        /// Bones of the generated skeleton, each vertex weighted to four
        /// drawn at random (clamped to 1-256; `--from` uses the model's).
        #[arg(long, default_value_t = 64)]
        bones: u32,
        /// Passes timed at each size, after the warm-up; the median is
        /// reported.
        #[arg(long, default_value_t = 20)]
        iterations: u32,
        /// Kernels to compare at each size: `skin` (the viewer's),
        /// `same-bone` (every joint bone 0: no gather), `stream` (the same
        /// reads and writes, no arithmetic), `copy16` (16-byte loads and
        /// stores: the device's streaming ceiling), `empty` (the same grid
        /// of workgroups doing nothing: the cost of the pass itself).
        #[arg(long, value_delimiter = ',', default_value = "skin",
              value_parser = facet::cli::bench::SkinKernel::parse)]
        kernels: Vec<facet::cli::bench::SkinKernel>,
        /// Buffer layouts to compare at each size: `one` (the viewer's),
        /// `split` (separate batches per dispatch), `split-N` (separate
        /// batches of N vertices).
        #[arg(long, value_delimiter = ',', default_value = "one",
              value_parser = facet::cli::bench::SkinLayout::parse)]
        layouts: Vec<facet::cli::bench::SkinLayout>,
        /// Also time the device's own buffer copy of each size's input
        /// bytes (the ceiling for streaming).
        #[arg(long)]
        copy: bool,
        /// Skin this model's skinned vertices, repeated to each size (its
        /// own bone count), instead of generated ones with random bones.
        #[arg(long, value_name = "MODEL")]
        from: Option<PathBuf>,
        /// Also write the `target/bench` records (a JSON array) to FILE.
        #[arg(long, value_name = "FILE")]
        json: Option<PathBuf>,
    },
    /// Frame times of a map with and without visibility culling (each with
    /// and without frustum culling) and of a frame that draws nothing, from
    /// a player's eye: FILE, or the generated ~1M-triangle map (builds with
    /// `--features generators`).
    Map {
        /// A .pmf file (default: generate the ~1M-triangle benchmark map).
        file: Option<PathBuf>,
        /// Frames timed for each size, sample count and way of drawing,
        /// after half a second of untimed ones.
        #[arg(long, default_value_t = 30)]
        frames: u32,
        /// Samples a pixel: 1, or 4, the viewer's multisampling (where the
        /// adapter lacks it, its own count), each timed in turn: `--msaa 4,1`.
        #[arg(long, value_delimiter = ',', value_parser = parse_msaa)]
        msaa: Vec<u32>,
        /// Frame sizes, each timed in turn: `1920x1080,960x540`.
        #[arg(long, value_delimiter = ',', default_value = "1280x720", value_parser = parse_size)]
        size: Vec<(u32, u32)>,
        /// Also write the `target/bench` records (a JSON array) to FILE.
        #[arg(long, value_name = "FILE")]
        json: Option<PathBuf>,
    },
    /// One frame of material keyframe animation on the GPU and on the CPU reference.
    Materials {
        /// Counts to sweep, in one process on one device: `1K,10K,100K`.
        #[arg(long, value_delimiter = ',', default_value = "10K",
              value_parser = facet::cli::bench::parse_count)]
        materials: Vec<u32>,
        /// Passes timed at each count; the median is reported.
        #[arg(long, default_value_t = 20)]
        iterations: u32,
        /// Also write the `target/bench` records (a JSON array) to FILE.
        #[arg(long, value_name = "FILE")]
        json: Option<PathBuf>,
    },
}

fn parse_channel(s: &str) -> Result<Channel, String> {
    Channel::from_name(s).ok_or_else(|| {
        let names: Vec<_> = Channel::ALL.iter().map(|c| c.name()).collect();
        format!("expected one of {}", names.join(", "))
    })
}

fn parse_lighting(s: &str) -> Result<Lighting, String> {
    Lighting::from_name(s).ok_or_else(|| {
        let names: Vec<_> = Lighting::ALL.iter().map(|l| l.name()).collect();
        format!("expected one of {}", names.join(", "))
    })
}

/// An output image's path, its extension one the encoders write
/// ([`capture::save_format`]): refused before the file is even loaded.
fn parse_image_path(s: &str) -> Result<PathBuf, String> {
    let path = PathBuf::from(s);
    capture::save_format(&path)?;
    Ok(path)
}

fn parse_size(s: &str) -> Result<(u32, u32), String> {
    let (w, h) = s
        .split_once(['x', 'X'])
        .ok_or("expected WIDTHxHEIGHT, e.g. 800x600")?;
    let w: u32 = w.parse().map_err(|_| format!("bad width {w:?}"))?;
    let h: u32 = h.parse().map_err(|_| format!("bad height {h:?}"))?;
    if !(1..=8192).contains(&w) || !(1..=8192).contains(&h) {
        return Err("width and height must be 1..=8192".into());
    }
    Ok((w, h))
}

fn parse_msaa(s: &str) -> Result<u32, String> {
    match s {
        "1" => Ok(1),
        "4" => Ok(4),
        _ => Err(format!("{s:?}: samples a pixel are 1 or 4")),
    }
}

fn parse_camera(s: &str) -> Result<(f32, f32, f32), String> {
    let v: Vec<f32> = s
        .split(',')
        .map(|x| {
            x.trim()
                .parse::<f32>()
                .map_err(|_| format!("bad number {x:?}"))
        })
        .collect::<Result<_, _>>()?;
    // Finite numbers only: the sine of an infinite yaw is NaN, and so was
    // the camera's position.
    match v[..] {
        [y, p] if y.is_finite() && p.is_finite() => Ok((y, p, 1.0)),
        [y, p, z] if y.is_finite() && p.is_finite() && z.is_finite() && z > 0.0 => Ok((y, p, z)),
        _ => Err(
            "expected YAW,PITCH[,ZOOM], finite numbers with ZOOM > 0, e.g. 30,20 or 0,0,1.5".into(),
        ),
    }
}

fn parse_color(s: &str) -> Result<[f64; 4], String> {
    let h = s.trim_start_matches('#');
    let byte = |i: usize| {
        u8::from_str_radix(h.get(i..i + 2).unwrap_or("zz"), 16)
            .map_err(|_| format!("bad colour {s:?}"))
    };
    let a = match h.len() {
        6 => 255,
        8 => byte(6)?,
        _ => return Err(format!("bad colour {s:?}: expected #RRGGBB or #RRGGBBAA")),
    };
    let lin = |b: u8| {
        let c = b as f64 / 255.0;
        if c <= 0.04045 {
            c / 12.92
        } else {
            ((c + 0.055) / 1.055).powf(2.4)
        }
    };
    Ok([
        lin(byte(0)?),
        lin(byte(2)?),
        lin(byte(4)?),
        a as f64 / 255.0,
    ])
}

/// `--time`: seconds, any finite number. NaN and infinity pose nothing
/// meaningful (info's pose read "at null s", on frame 1 or the last).
fn parse_seconds(s: &str) -> Result<f32, String> {
    let t: f32 = s
        .parse()
        .map_err(|e| format!("{s:?} is not a number of seconds: {e}"))?;
    if t.is_finite() {
        Ok(t)
    } else {
        Err(format!("{s} is not a finite number of seconds"))
    }
}

fn parse_fps(s: &str) -> Result<f32, String> {
    match s.parse::<f32>() {
        Ok(f) if f.is_finite() && f > 0.0 && f <= 1000.0 => Ok(f),
        _ => Err(format!("{s:?} is not a frame rate from above 0 to 1000")),
    }
}

fn default_file() -> PathBuf {
    let local = PathBuf::from("assets/demo.p3m");
    if local.is_file() {
        local
    } else {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/demo.p3m")
    }
}

fn main() -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn,facet=info"))
        .format_timestamp(None)
        .init();
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            // Not eprintln!, which panics where standard error is closed.
            let _ = writeln!(std::io::stderr(), "error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// The command line's media roots, then the settings' (File > Settings);
/// the texel budget from `--max-texture-memory`, else the settings.
fn load_options(cli_media: &[PathBuf], cli_budget_mib: Option<u64>) -> load::LoadOptions {
    let mut media_roots = cli_media.to_vec();
    let settings = facet::app::settings::path()
        .map(|p| facet::app::settings::Settings::load_from(&p))
        .unwrap_or_default();
    for r in settings.media_roots {
        if !media_roots.contains(&r) {
            media_roots.push(r);
        }
    }
    let mib = cli_budget_mib.unwrap_or(settings.max_texture_mib);
    load::LoadOptions {
        media_roots,
        texel_budget: (mib as usize).saturating_mul(1 << 20),
        texture_cap: usize::MAX,
        headers_only: false,
    }
}

fn run(cli: Cli) -> anyhow::Result<()> {
    let options = load_options(&cli.media, cli.max_texture_memory);
    match cli.command {
        None | Some(Command::View { .. }) => {
            let file = match cli.command {
                Some(Command::View { file }) => file,
                _ => cli.file,
            }
            .unwrap_or_else(default_file);
            // A file that is not there fails here; its contents load in
            // the window, with a progress bar.
            std::fs::metadata(&file).with_context(|| format!("{}", file.display()))?;
            app::run(
                app::Start::Load(file),
                app::AppOptions {
                    screenshot: cli.screenshot,
                    frames: cli.frames,
                    media_roots: cli.media,
                    texel_budget: cli
                        .max_texture_memory
                        .map(|m| (m as usize).saturating_mul(1 << 20)),
                },
            )
        }
        Some(Command::Info {
            file,
            json,
            clip,
            time,
        }) => info::info(&file, json, clip.as_deref(), time, options),
        Some(Command::Convert {
            input,
            output,
            gltf,
            animation_pointer,
        }) => {
            let export = facet::export::gltf::Options { animation_pointer };
            facet::cli::convert::run(&input, &output, gltf, export, &options)
                .map_err(anyhow::Error::msg)
        }
        Some(Command::Render(args)) => args.run(&options),
        Some(Command::InstallDesktop { uninstall }) => install_desktop(uninstall),
        Some(Command::Thumbnail {
            input,
            output,
            size,
            team_colors,
            timings,
        }) => facet::cli::thumbnail::thumbnail(
            &input,
            &output,
            size,
            team_colors.unwrap_or_default(),
            timings,
            options,
        ),
        Some(Command::Bench { what }) => bench(what),
        Some(Command::GenAssets { dir }) => gen_assets(&dir),
    }
}

/// `install-desktop`: the desktop entry, MIME types, icon and thumbnailer
/// installed (or removed) for this user, a line of what was done each.
fn install_desktop(uninstall: bool) -> anyhow::Result<()> {
    let home = facet::cli::desktop::data_home()?;
    let exe = std::env::current_exe().context("finding this program's path")?;
    for line in facet::cli::desktop::install(&home, &exe, uninstall)? {
        outln!("{line}")?;
    }
    Ok(())
}

/// `bench`: GPU skinning, material animation or a map's frame time.
fn bench(what: BenchWhat) -> anyhow::Result<()> {
    match what {
        BenchWhat::Skin {
            vertices,
            bones,
            iterations,
            kernels,
            layouts,
            copy,
            from,
            json,
        } => bench_command::skin(bench_command::SkinRun {
            vertices,
            bones,
            iterations,
            kernels,
            layouts,
            copy,
            from,
            json,
        }),
        BenchWhat::Materials {
            materials,
            iterations,
            json,
        } => bench_command::materials(&materials, iterations, json.as_deref()),
        BenchWhat::Map {
            file,
            frames,
            size,
            msaa,
            json,
        } => bench_command::map(bench_command::MapRun {
            file,
            frames,
            msaa,
            sizes: size,
            json,
        }),
    }
}

/// `gen-assets`: the bundled assets, rewritten by our own writers.
#[cfg(feature = "generators")]
fn gen_assets(dir: &Path) -> anyhow::Result<()> {
    if !dir.is_dir() {
        bail!("{} is not a folder", dir.display());
    }
    for (name, bytes) in [
        ("demo.p3m", facet::generators::p3m::demo_bytes()),
        ("demo.m3d", facet::generators::m3d::demo_bytes()),
        ("demo.pmf", facet::generators::pmf::demo_bytes()),
    ] {
        let path = dir.join(name);
        std::fs::write(&path, bytes).with_context(|| format!("writing {}", path.display()))?;
        outln!("wrote {}", path.display())?;
    }
    Ok(())
}

#[cfg(not(feature = "generators"))]
fn gen_assets(_: &Path) -> anyhow::Result<()> {
    bail!("gen-assets needs a build with `--features generators`")
}

#[cfg(test)]
mod tests {
    use super::Cli;
    use clap::CommandFactory;

    /// Every visible command under `facet`, itself included, with its path
    /// (`facet bench map`), parents before their subcommands.
    fn commands() -> Vec<(String, clap::Command)> {
        let mut all = vec![(String::from("facet"), Cli::command())];
        let mut i = 0;
        while i < all.len() {
            let (path, cmd) = all[i].clone();
            all.extend(
                cmd.get_subcommands()
                    .filter(|s| !s.is_hide_set() && s.get_name() != "help")
                    .map(|s| (format!("{path} {}", s.get_name()), s.clone())),
            );
            i += 1;
        }
        all
    }

    /// Every subcommand says what it does and every argument what it takes
    /// (`--help` listed `facet bench skin --bones` with nothing beside it),
    /// and a command whose summary lists its subcommands by name, as
    /// `bench`'s does, names all of them. clap's own consistency checks
    /// run first.
    #[test]
    fn every_command_and_argument_has_help() {
        Cli::command().debug_assert();
        let mut missing = Vec::new();
        let mut unnamed = Vec::new();
        for (path, cmd) in commands() {
            if path != "facet" && cmd.get_about().is_none() {
                missing.push(path.clone());
            }
            for arg in cmd.get_arguments() {
                let builtin = matches!(arg.get_id().as_str(), "help" | "version");
                if !builtin && !arg.is_hide_set() && arg.get_help().is_none() {
                    missing.push(format!("{path} {}", arg.get_id()));
                }
            }
            let about = cmd.get_about().map(|a| a.to_string()).unwrap_or_default();
            let named = |sub: &clap::Command| {
                about.contains(&format!("`{} {}`", cmd.get_name(), sub.get_name()))
            };
            let subs: Vec<_> = cmd
                .get_subcommands()
                .filter(|s| !s.is_hide_set() && s.get_name() != "help")
                .collect();
            if subs.iter().any(|s| named(s)) {
                unnamed.extend(
                    subs.iter()
                        .filter(|s| !named(s))
                        .map(|s| format!("{path}: {}", s.get_name())),
                );
            }
        }
        assert!(missing.is_empty(), "without help text: {missing:?}");
        assert!(
            unnamed.is_empty(),
            "summaries that leave out a subcommand: {unnamed:?}"
        );
    }

    /// README.md's command line shows every subcommand (`facet bench map`)
    /// and every option, by its long name or its short one.
    #[test]
    fn the_readme_shows_every_subcommand_and_option() {
        let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md"))
            .expect("README.md");
        let mut absent = Vec::new();
        for (path, cmd) in commands() {
            if !readme.contains(&path) {
                absent.push(path.clone());
            }
            for arg in cmd.get_arguments().filter(|a| !a.is_hide_set()) {
                let long = arg.get_long().map(|l| format!("--{l}"));
                let short = arg.get_short().map(|c| format!("-{c} "));
                let shown = long
                    .iter()
                    .chain(&short)
                    .any(|f| readme.contains(f.as_str()));
                if (long.is_some() || short.is_some()) && !shown && arg.get_id() != "help" {
                    absent.push(format!("{path} {}", long.or(short).unwrap_or_default()));
                }
            }
        }
        assert!(absent.is_empty(), "not in README.md: {absent:?}");
    }
}
