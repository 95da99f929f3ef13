/* The geometry of the Winograd convolution kernels (conv2d_winograd_f32,
 * kernels.h): F(4x4, 3x3), each 4 x 4 block of outputs (a tile) computed
 * from the 6 x 6 block of inputs around it through 36 frequencies. Shared
 * by the compiler (which transforms the weights and sizes the scratch) and
 * the kernels' checkers, so the two cannot disagree.
 *
 * The transforms (points 0, 1, -1, 2, -2 and infinity), tile d 6 x 6 of x,
 * weights g 3 x 3, y 4 x 4:
 *   V = BT d BT^T, U = G g G^T, y = AT (U . V) AT^T (. elementwise), with
 *   BT = [4  0 -5  0  1  0]   G = [ 1/4     0     0 ]   AT = [1 1  1 1  1 0]
 *        [0 -4 -4  1  1  0]       [-1/6  -1/6  -1/6 ]        [0 1 -1 2 -2 0]
 *        [0  4 -4 -1  1  0]       [-1/6   1/6  -1/6 ]        [0 1  1 4  4 0]
 *        [0 -2 -1  2  1  0]       [ 1/24  1/12  1/6 ]        [0 1 -1 8 -8 1]
 *        [0  2 -1 -2  1  0]       [ 1/24 -1/12  1/6 ]
 *        [0  4  0 -5  0  1]       [ 0     0     1   ]
 * Frequency f = 6*i + j is element (i, j) of U and V. */
#ifndef KILN_CONV_WINOGRAD_H_
#define KILN_CONV_WINOGRAD_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define KILN_WINOGRAD_M 4      /* outputs per tile side */
#define KILN_WINOGRAD_A 6      /* inputs per tile side: M + 3 - 1 */
#define KILN_WINOGRAD_FREQS 36 /* A * A */

/* Tiles along an output axis of `out` elements. */
static inline int64_t kiln_winograd_tiles(int64_t out) {
  return (out + KILN_WINOGRAD_M - 1) / KILN_WINOGRAD_M;
}

/* The kernel works in waves of whole tile rows: it transforms one wave's
 * input into the scratch, then runs that wave's GEMMs (their sums also in
 * the scratch) and output transforms, so the wave's data stay in cache
 * from one phase to the next (on threads, each thread may take a share of
 * a wave's room and run smaller waves of its own). A wave's transformed
 * input and sums take at most KILN_WINOGRAD_WAVE_FLOATS floats (one tile
 * row at least), unless the transformed weights exceed
 * KILN_WINOGRAD_WAVE_MAX_U floats: each wave reads all of them, so then one
 * wave takes every row. */
#define KILN_WINOGRAD_WAVE_FLOATS (256 * 1024)
#define KILN_WINOGRAD_WAVE_MAX_U (256 * 1024)

/* Tile rows per wave (of N*TH in all); products kept in int64 by the caller
 * (the checker tests 36*C*OC and 36*N*TH*TW*(C + OC)). */
static inline int64_t kiln_winograd_wave_rows(int64_t n, int64_t c, int64_t oc, int64_t oh,
                                              int64_t ow) {
  const int64_t rows = n * kiln_winograd_tiles(oh);
  const int64_t row_floats = KILN_WINOGRAD_FREQS * kiln_winograd_tiles(ow) * (c + oc);
  if (row_floats == 0 || KILN_WINOGRAD_FREQS * c * oc > KILN_WINOGRAD_WAVE_MAX_U) return rows;
  const int64_t fit = KILN_WINOGRAD_WAVE_FLOATS / row_floats;
  const int64_t wave = fit > 1 ? fit : 1;
  return wave < rows ? wave : rows;
}

/* Output tiles (N*TH*TW) up to which the compiler hands the kernel the plain
 * weights (transformed_weights 0) rather than U: with so few tiles to share
 * each weight, reading U (4x the plain weights) would cost more than
 * transforming them in the kernel. A plane under 8x8 gets them at any
 * count (kiln_winograd_plain_tap_major). */
#define KILN_WINOGRAD_RAW_MAX_TILES 16

/* The order of K in the plain weights (transformed_weights 0) of a layer
 * with this output plane: tap-major (k = tap*C + c, conv2d_packed_f32's
 * layout) under 8x8, where the AVX-512 path runs the direct kernel on them;
 * else channel-major (k = c*9 + tap: a channel's 9 taps on 9 neighbouring
 * lines, which the AVX2 path's transform read 12-15% faster than 9 taps
 * C*16 floats apart on ResNet-18's layer3). */
static inline int kiln_winograd_plain_tap_major(int64_t oh, int64_t ow) {
  return oh < 8 || ow < 8;
}

/* Input channels per block of U the kernel makes from plain weights. */
#define KILN_WINOGRAD_RAW_KC 32

/* Floats between the frequencies of the transformed input (and of the
 * sums) beyond their tiles' channels: a tile's 36 vectors, stored or
 * loaded together, would otherwise often sit a multiple of 4 KiB apart and
 * share one L1 set. */
#define KILN_WINOGRAD_FREQ_PAD 16

/* Rooms for the transformed input V the scratch holds. With U past
 * KILN_WINOGRAD_WAVE_MAX_U floats, or plain weights, the host's threads
 * split the output channels in KILN_WINOGRAD_V_COPIES shares, each share
 * transforming the whole input into a room of its own: the input transform
 * is cheap beside the GEMMs and the weights' transform, and no thread reads
 * what another core wrote. Else (small U: threads take tiles) one room. */
#define KILN_WINOGRAD_V_COPIES 2

/* Whether the kernel runs its GEMMs chunk by chunk of output channels:
 * with plain weights, or U past KILN_WINOGRAD_WAVE_MAX_U floats. */
static inline int kiln_winograd_chunked(int64_t c, int64_t oc, int transformed) {
  return !transformed || KILN_WINOGRAD_FREQS * c * oc > KILN_WINOGRAD_WAVE_MAX_U;
}

static inline int64_t kiln_winograd_v_copies(int64_t c, int64_t oc, int transformed) {
  return kiln_winograd_chunked(c, oc, transformed) ? KILN_WINOGRAD_V_COPIES : 1;
}

/* Floats of the scratch binding: for one wave's tiles (wave rows * TW),
 * the transformed input V[f][tile][c] (kiln_winograd_v_copies rooms of
 * 36 x (tiles x C + FREQ_PAD)) and the GEMM sums M[f][tile][oc]
 * (36 x (tiles x OC + FREQ_PAD); the kernel may lay them out chunk by chunk
 * in the same room); with plain weights (transformed 0), also a block of U
 * per 16-channel panel: ceil(OC/16) x 36 x RAW_KC x 16. */
static inline int64_t kiln_winograd_scratch_floats(int64_t n, int64_t c, int64_t oc,
                                                   int64_t oh, int64_t ow, int transformed) {
  const int64_t u_blocks = transformed ? 0
                                       : (oc + 15) / 16 * KILN_WINOGRAD_FREQS *
                                             KILN_WINOGRAD_RAW_KC * 16;
  const int64_t copies = kiln_winograd_v_copies(c, oc, transformed);
  return KILN_WINOGRAD_FREQS * (kiln_winograd_wave_rows(n, c, oc, oh, ow) *
                                    kiln_winograd_tiles(ow) * (copies * c + oc) +
                                (copies + 1) * KILN_WINOGRAD_FREQ_PAD) +
         u_blocks;
}

#ifdef __cplusplus
}
#endif

#endif /* KILN_CONV_WINOGRAD_H_ */
