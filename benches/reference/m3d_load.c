/* The reference side of `cargo bench --bench m3d`: times m3d.h's own
 * loader on each file given, the same way benches/common/mod.rs times the
 * viewer (one warm-up, then runs for about 0.3 s, at least 5 and at most
 * MAX_RUNS, the median), and prints one line per file: its path, a tab, the
 * median microseconds of m3d_load + m3d_free on the file's bytes in
 * memory. glibc's malloc is told to keep what is freed (no mmap per large
 * block, no heap trim), as the viewer's allocator (mimalloc) does: left to
 * itself it gave a block back to the kernel and faulted it in again on
 * some loads and not others, depending on the files timed before in the
 * same process (lantea.m3d: 1.6 ms after the small fixtures, 3.6-3.9 ms
 * alone or after CesiumMan; cube.m3d: 3 us after the large fixtures, 9-13
 * us first), so m3d.h's times were not reproducible. Built by the bench with gcc -O2 against the m3d.h that M3D_H
 * names (scripts/bench-report takes it from the model3d crate on
 * crates.io); m3d.h itself is not part of this project. */
#define M3D_IMPLEMENTATION
#include "m3d.h"
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

/* As benches/common/mod.rs: enough for 0.3 s of the fastest file. */
#define MAX_RUNS 1000000

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Times one file and prints its line; returns 0, or 1 on failure. */
static int time_file(const char *path) {
    static double times[MAX_RUNS];
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return 1;
    }
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *bytes = malloc(size), *copy = malloc(size);
    if (!bytes || !copy || fread(bytes, 1, size, f) != (size_t)size) {
        fprintf(stderr, "%s: cannot read\n", path);
        return 1;
    }
    fclose(f);
    int n = 0;
    double start = 0;
    for (int run = -1;; run++) {
        /* m3d_load may write to the buffer it is given: each run gets a
         * fresh copy, made outside the timed part. */
        memcpy(copy, bytes, size);
        double t = now_us();
        if (run == 0)
            start = t;
        m3d_t *m = m3d_load(copy, NULL, NULL, NULL);
        if (!m) {
            fprintf(stderr, "%s: m3d_load failed\n", path);
            return 1;
        }
        m3d_free(m);
        double took = now_us() - t;
        if (run < 0)
            continue;
        times[n++] = took;
        if (n >= MAX_RUNS || (n >= 5 && now_us() - start >= 300000))
            break;
    }
    qsort(times, n, sizeof times[0], by_value);
    printf("%s\t%.3f\n", path, times[n / 2]);
    fflush(stdout);
    free(bytes);
    free(copy);
    return 0;
}

/* The files named, in turn; with none, each path read from a line of
 * standard input, answered as soon as timed (the bench asks for each file
 * right after timing the viewer on it, all in this one process). */
int main(int argc, char **argv) {
    /* Blocks up to 32 MiB (glibc's most) from the heap, and the heap never
     * trimmed: m3d.h in its fastest steady state, whatever ran before. */
    if (!mallopt(M_MMAP_THRESHOLD, 32 << 20) || !mallopt(M_TRIM_THRESHOLD, 1 << 30)) {
        fprintf(stderr, "mallopt failed\n");
        return 1;
    }
    for (int i = 1; i < argc; i++)
        if (time_file(argv[i]))
            return 1;
    if (argc > 1)
        return 0;
    static char line[4096];
    while (fgets(line, sizeof line, stdin)) {
        line[strcspn(line, "\n")] = 0;
        if (line[0] && time_file(line))
            return 1;
    }
    return 0;
}
