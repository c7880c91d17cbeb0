//! Device creation. The Vulkan backend is asked first, then GL (see
//! `notes/gpu.md`); `WGPU_BACKEND` overrides. The same path serves windows
//! and headless rendering. `FACET_ADAPTER=NAME` (or [`Gpu::headless_named`])
//! takes the first adapter whose name contains NAME (any case) instead of
//! the preferred one: a machine with several GPUs picks one, and the image
//! tests pin the software adapter (`llvmpipe`) on every machine.

use std::sync::Arc;

#[derive(Debug, thiserror::Error)]
pub enum GpuError {
    #[error(
        "no GPU adapter found (tried {0}); install a Vulkan driver, e.g. `apt-get install mesa-vulkan-drivers` for the software adapter"
    )]
    NoAdapter(String),
    #[error("no GPU adapter named like {wanted:?} (tried {tried}; adapters found: {found})")]
    NoNamedAdapter {
        wanted: String,
        tried: String,
        found: String,
    },
    #[error("could not create the GPU device: {0}")]
    Device(#[from] wgpu::RequestDeviceError),
    #[error("could not create a window surface: {0}")]
    Surface(#[from] wgpu::CreateSurfaceError),
}

/// wgpu's multi-line error reports as one line: lines trimmed, joined by "; ".
pub fn one_line(s: &str) -> String {
    s.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join("; ")
}

#[derive(Clone)]
pub struct Gpu {
    pub instance: wgpu::Instance,
    pub adapter: wgpu::Adapter,
    pub device: wgpu::Device,
    pub queue: wgpu::Queue,
    /// Upload BC (DXT) textures as they are stored: on where the device
    /// samples BC formats (debug builds: unless `FACET_NO_BC` is set, to
    /// compare the two paths; a caller may turn it off); otherwise their
    /// decoded RGBA is uploaded.
    pub use_bc: bool,
    /// Set by the device-lost callback: the window recreates the device.
    pub lost: Arc<std::sync::atomic::AtomicBool>,
}

impl Gpu {
    /// Whether BC1-3 (DXT) textures are uploaded as they are stored.
    pub fn supports_bc(&self) -> bool {
        self.use_bc
    }

    /// Runs `f` inside validation and out-of-memory error scopes: the
    /// first error either catches is returned as one line instead of
    /// reaching the uncaptured-error handler.
    pub fn capture<T>(&self, f: impl FnOnce() -> T) -> Result<T, String> {
        let oom = self.device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let validation = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let out = f();
        let v = pollster::block_on(validation.pop());
        let o = pollster::block_on(oom.pop());
        match v.or(o) {
            None => Ok(out),
            Some(e) => Err(one_line(&e.to_string())),
        }
    }

    /// A device for offscreen work (no window).
    pub fn headless() -> Result<Gpu, GpuError> {
        let (gpu, _) = Self::create(None, named_from_env().as_deref())?;
        Ok(gpu)
    }

    /// A device for offscreen work on the first adapter whose name contains
    /// `name` (any case); an error lists the adapters there are.
    pub fn headless_named(name: &str) -> Result<Gpu, GpuError> {
        let (gpu, _) = Self::create(None, Some(name))?;
        Ok(gpu)
    }

    /// A device able to present to `window`, and the window's surface.
    pub fn for_window(
        window: Arc<winit::window::Window>,
    ) -> Result<(Gpu, wgpu::Surface<'static>), GpuError> {
        let (gpu, surface) = Self::create(Some(window), named_from_env().as_deref())?;
        Ok((
            gpu,
            surface.expect("a surface is made when a window is given"),
        ))
    }

    /// The first adapter found (or the one `named`) on the backends
    /// `WGPU_BACKEND` names, else on Vulkan, then GL, then any, able to
    /// present to `window` where one is given; its device, and the surface.
    fn create(
        window: Option<Arc<winit::window::Window>>,
        named: Option<&str>,
    ) -> Result<(Gpu, Option<wgpu::Surface<'static>>), GpuError> {
        let tries: Vec<wgpu::Backends> = match wgpu::Backends::from_env() {
            Some(b) => vec![b],
            None => vec![
                wgpu::Backends::VULKAN,
                wgpu::Backends::GL,
                wgpu::Backends::all(),
            ],
        };
        let mut tried = Vec::new();
        let mut found = Vec::new();
        for backends in tries {
            tried.push(format!("{backends:?}"));
            let Some((instance, surface)) = instance_on(backends, window.as_ref()) else {
                continue;
            };
            let adapter = match named {
                None => {
                    pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions {
                        power_preference: wgpu::PowerPreference::HighPerformance,
                        force_fallback_adapter: false,
                        compatible_surface: surface.as_ref(),
                        apply_limit_buckets: false,
                    }))
                    .ok()
                }
                Some(name) => {
                    adapter_named(&instance, backends, name, surface.as_ref(), &mut found)
                }
            };
            let Some(adapter) = adapter else { continue };
            return Ok((Self::open(instance, adapter)?, surface));
        }
        match named {
            Some(wanted) => Err(GpuError::NoNamedAdapter {
                wanted: wanted.to_string(),
                tried: tried.join(", "),
                found: if found.is_empty() {
                    "none".into()
                } else {
                    found.join(", ")
                },
            }),
            None => Err(GpuError::NoAdapter(tried.join(", "))),
        }
    }

    /// `adapter`'s device, with every limit the adapter allows, timestamps
    /// and BC textures where it has them, and its errors and loss logged.
    fn open(instance: wgpu::Instance, adapter: wgpu::Adapter) -> Result<Gpu, GpuError> {
        let info = adapter.get_info();
        log::info!(
            "GPU adapter: {} ({:?}, {:?}, driver {} {})",
            info.name,
            info.backend,
            info.device_type,
            info.driver,
            info.driver_info
        );
        let (device, queue) =
            pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
                label: Some("facet device"),
                // Timestamps when the adapter has them (benchmarks).
                required_features: adapter.features()
                    & (wgpu::Features::TIMESTAMP_QUERY | wgpu::Features::TEXTURE_COMPRESSION_BC),
                // Everything the adapter allows: big scenes need big buffers.
                required_limits: adapter.limits(),
                experimental_features: wgpu::ExperimentalFeatures::disabled(),
                memory_hints: wgpu::MemoryHints::Performance,
                trace: wgpu::Trace::Off,
            }))?;
        // wgpu's default handler panics: a GPU error outside an error
        // scope is logged (and shown in the window's Log) instead.
        device.on_uncaptured_error(Arc::new(|e: wgpu::Error| {
            log::error!("GPU error: {}", one_line(&e.to_string()));
        }));
        let lost = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let flag = lost.clone();
        device.set_device_lost_callback(move |reason, message| {
            log::error!("the GPU device was lost ({reason:?}): {message}");
            flag.store(true, std::sync::atomic::Ordering::Relaxed);
        });
        Ok(Gpu {
            use_bc: device
                .features()
                .contains(wgpu::Features::TEXTURE_COMPRESSION_BC)
                && !(cfg!(debug_assertions) && std::env::var_os("FACET_NO_BC").is_some()),
            instance,
            adapter,
            device,
            queue,
            lost,
        })
    }

    /// One line naming the adapter, for logs and test output.
    pub fn describe(&self) -> String {
        let i = self.adapter.get_info();
        let mut s = format!("{} ({:?} backend, {:?}", i.name, i.backend, i.device_type);
        if !i.driver.is_empty() {
            s += &format!(", {} {}", i.driver, i.driver_info);
        }
        s + ")"
    }

    /// Largest MSAA sample count (of 4 and 1) the format supports.
    pub fn sample_count(&self, format: wgpu::TextureFormat) -> u32 {
        let f = self.adapter.get_texture_format_features(format).flags;
        let d = self
            .adapter
            .get_texture_format_features(crate::gpu::renderer::DEPTH_FORMAT)
            .flags;
        if f.sample_count_supported(4) && d.sample_count_supported(4) {
            4
        } else {
            1
        }
    }
}

/// `FACET_ADAPTER`, when set and not empty.
fn named_from_env() -> Option<String> {
    std::env::var("FACET_ADAPTER")
        .ok()
        .filter(|n| !n.trim().is_empty())
}

/// An instance on `backends`, and `window`'s surface on it where a window
/// is given; `None` where that surface cannot be made.
fn instance_on(
    backends: wgpu::Backends,
    window: Option<&Arc<winit::window::Window>>,
) -> Option<(wgpu::Instance, Option<wgpu::Surface<'static>>)> {
    let mut desc = match window {
        Some(w) => wgpu::InstanceDescriptor::new_with_display_handle_from_env(Box::new(w.clone())),
        None => wgpu::InstanceDescriptor::new_without_display_handle_from_env(),
    };
    desc.backends = backends;
    let instance = wgpu::Instance::new(desc);
    let surface = match window {
        Some(w) => match instance.create_surface(w.clone()) {
            Ok(s) => Some(s),
            Err(e) => {
                log::debug!("{backends:?}: no surface: {e}");
                return None;
            }
        },
        None => None,
    };
    Some((instance, surface))
}

/// The first adapter on `backends` whose name contains `name` (any case)
/// and that can present to `surface` where one is given; every adapter's
/// name seen is added to `found`, for the error that lists them.
fn adapter_named(
    instance: &wgpu::Instance,
    backends: wgpu::Backends,
    name: &str,
    surface: Option<&wgpu::Surface<'_>>,
    found: &mut Vec<String>,
) -> Option<wgpu::Adapter> {
    let wanted = name.to_lowercase();
    let all = pollster::block_on(instance.enumerate_adapters(backends));
    for a in &all {
        let name = a.get_info().name;
        if !found.contains(&name) {
            found.push(name);
        }
    }
    all.into_iter().find(|a| {
        a.get_info().name.to_lowercase().contains(&wanted)
            && surface.is_none_or(|s| a.is_surface_supported(s))
    })
}
