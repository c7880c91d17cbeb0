//! A map's derived view state: what the inspector's selection sees, the
//! overlay lines (sectors, cube boxes, props) and the draw ranges (what the
//! camera's cell sees), each rebuilt only when its inputs change; and the
//! map's shading, recoloured in place.

use super::Running;
use super::document::Replace;
use crate::scene::from_pmf;
use crate::ui;
use std::sync::Arc;

type CubeRef = crate::scene::map_query::CubeRef;

/// The map's derived view state, rebuilt only when its inputs change (the
/// inputs are compared every frame; they are a few small values).
#[derive(Default)]
pub(super) struct MapCache {
    /// (show visibility, selected sector, selected cube) -> what they see.
    shown_key: Option<ShownKey>,
    shown: Option<Vec<CubeRef>>,
    /// The overlay's inputs other than `shown`.
    overlay_key: Option<OverlayKey>,
    /// `shown_key` and the camera's cell.
    ranges_key: Option<(ShownKey, Option<CubeRef>)>,
    pub(super) ranges: Option<Arc<Vec<Vec<std::ops::Range<u32>>>>>,
}

type ShownKey = (bool, Option<usize>, Option<CubeRef>);
/// Sector grid, selected sector, box depth, selected and hovered cube, props.
type OverlayKey = (
    bool,
    Option<usize>,
    Option<u32>,
    Option<CubeRef>,
    Option<CubeRef>,
    bool,
);

impl Running {
    /// Maps: rebuilds the meshes when the shading changes, uploads the
    /// overlay lines when what they show changes, and picks the draw ranges
    /// (what the selection sees, or what the camera's cell sees).
    pub(super) fn update_map(&mut self) {
        use crate::scene::map_query;
        let Some(info) = self.scene.map.as_deref() else {
            self.map_cache.ranges = None;
            return;
        };
        let m = &self.ui.map;
        let c = &mut self.map_cache;
        let shown_key = (m.show_visibility, m.selected_sector, m.selected_cube);
        let shown_changed = c.shown_key != Some(shown_key);
        if shown_changed {
            c.shown = if m.show_visibility {
                m.viewpoint(&info.map)
            } else {
                None
            };
            c.shown_key = Some(shown_key);
        }
        let overlay_key = (
            m.show_sectors,
            m.selected_sector,
            m.box_depth,
            m.selected_cube,
            m.hovered_cube,
            m.show_props,
        );
        if shown_changed || c.overlay_key != Some(overlay_key) {
            let overlay = crate::scene::map_overlay::MapOverlay {
                sectors: m.show_sectors,
                selected_sector: m.selected_sector,
                depth: m.box_depth,
                selected_cube: m.selected_cube,
                hovered_cube: m.hovered_cube,
                props: m.show_props,
                outline_visible_cubes: m.selected_cube.is_some(),
                visible: c.shown.clone(),
            };
            let lines = crate::scene::map_overlay::lines(info, &overlay);
            self.gpu_scene.set_extra_lines(&self.gpu, &lines);
            c.overlay_key = Some(overlay_key);
        }
        let cell = if m.cull {
            map_query::cell_at(&info.map, self.camera.eye())
        } else {
            None
        };
        if c.ranges_key != Some((shown_key, cell)) {
            let wanted = c
                .shown
                .clone()
                .or_else(|| cell.map(|(s, k)| map_query::visible_cubes(&info.map, s, k)));
            c.ranges = wanted.map(|v| Arc::new(map_query::draw_ranges(info, &v)));
            c.ranges_key = Some((shown_key, cell));
        }
        let all = self.scene.triangle_count() as u64;
        let m = &mut self.ui.map;
        m.camera_cell = cell;
        m.triangles_all = all;
        m.triangles_drawn = self.ui.stats.triangles;
    }

    /// The map's meshes with the shading the inspector picked: colours and
    /// bindings change in place and the scene is uploaded again; if the GPU
    /// refuses, the shading it had comes back.
    pub(super) fn rebuild_map(&mut self) {
        let Some(before) = self.scene.map.as_ref().map(|m| m.shading) else {
            return;
        };
        let mut scene = std::mem::take(&mut self.scene);
        from_pmf::set_shading(&mut scene, self.ui.map.shading);
        if let Err((mut scene, e)) = self.show_scene(scene, Replace::Edited) {
            from_pmf::set_shading(&mut scene, before);
            self.scene = *scene;
            self.ui.map.shading = before;
            self.ui
                .report(ui::Level::Error, format!("the GPU refused the map: {e}"));
        }
    }
}
