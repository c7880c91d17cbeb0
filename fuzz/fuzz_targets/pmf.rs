#![no_main]
// PMF decoder (LZ4 blocks, octrees, visibility, entities): errors are fine,
// panics, hangs and huge allocations are not. Sectors decode in parallel:
// one thread and four must agree on the map or on the error.
use facet_formats::pmf;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let one = pmf::decode_on(data, 1, &|_| {});
    let four = pmf::decode_on(data, 4, &|_| {});
    match (one, four) {
        // Debug, not ==: a NaN read from the file is not equal to itself.
        (Ok(a), Ok(b)) => assert_eq!(format!("{a:?}"), format!("{b:?}")),
        (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string()),
        (a, b) => panic!("1 thread: {:?}, 4 threads: {:?}", a.err(), b.err()),
    }
});
