//! Fixture generators (feature `generators`): files written with the
//! decoders' own writers, for the bundled assets (`facet gen-assets`),
//! tests and benchmarks. They prove only that writer and reader agree;
//! evidence about the formats comes from `../shared`.

pub mod m3d;
pub mod p3m;
pub mod pmf;
pub mod scaling;
