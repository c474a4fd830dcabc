// Optional native core of the miner: the tail compression with the x86 SHA extensions, two nonces
// interleaved (one SHA round instruction waits on the previous one; two independent streams fill
// the gaps). Built at install time by build.mjs (beside this file) when a C compiler is there;
// without it, or on a CPU without the SHA extensions, the miner uses its WebAssembly core.
//
// exports.shaNi: boolean, whether this CPU has the SHA extensions.
// exports.scan(midstate: Int32Array(8), w0, w1, hi, loFrom, loTo, mask0, mask1): number
//   the first lo in [loFrom, loTo) (loTo <= 2^32) whose hash H has (H0 & mask0) == 0 and
//   (H1 & mask1) == 0, or -1. Same contract as scanTail in ../sha256-midstate.ts.
#include <node_api.h>
#include <stdint.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define HAVE_X86 1

static const uint32_t K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

#define STREAMS 2

// Message words 4..15 of the tail block are fixed: 0x80000000, zeros, then the length in bits.
__attribute__((target("sha,sse4.1"))) static int64_t scan_sha(const uint32_t mid[8], uint32_t w0,
                                                               uint32_t w1, uint32_t hi, uint64_t lo_from,
                                                               uint64_t lo_to, uint32_t mask0,
                                                               uint32_t mask1) {
  // State as the SHA instructions want it: ABEF and CDGH.
  __m128i dcba = _mm_loadu_si128((const __m128i *)&mid[0]);
  __m128i hgfe = _mm_loadu_si128((const __m128i *)&mid[4]);
  dcba = _mm_shuffle_epi32(dcba, 0xB1);
  hgfe = _mm_shuffle_epi32(hgfe, 0x1B);
  const __m128i abef0 = _mm_alignr_epi8(dcba, hgfe, 8);
  const __m128i cdgh0 = _mm_blend_epi16(hgfe, dcba, 0xF0);
  const __m128i m1 = _mm_setr_epi32((int)0x80000000, 0, 0, 0);
  const __m128i m2 = _mm_setzero_si128();
  const __m128i m3 = _mm_setr_epi32(0, 0, 0, 640);

  for (uint64_t lo = lo_from; lo < lo_to; lo += STREAMS) {
    __m128i s0[STREAMS], s1[STREAMS], m[STREAMS][4];
    for (int l = 0; l < STREAMS; l++) {
      s0[l] = abef0;
      s1[l] = cdgh0;
      m[l][0] = _mm_setr_epi32((int)w0, (int)w1, (int)hi, (int)(uint32_t)(lo + l));
      m[l][1] = m1;
      m[l][2] = m2;
      m[l][3] = m3;
    }
    for (int q = 0; q < 16; q++) {
      const __m128i k = _mm_loadu_si128((const __m128i *)&K[4 * q]);
      for (int l = 0; l < STREAMS; l++) {
        __m128i w = m[l][q & 3];
        if (q >= 4) {
          const __m128i t = _mm_alignr_epi8(m[l][(q - 1) & 3], m[l][(q - 2) & 3], 4);
          w = _mm_add_epi32(_mm_sha256msg1_epu32(m[l][q & 3], m[l][(q - 3) & 3]), t);
          w = _mm_sha256msg2_epu32(w, m[l][(q - 1) & 3]);
          m[l][q & 3] = w;
        }
        __m128i msg = _mm_add_epi32(w, k);
        s1[l] = _mm_sha256rnds2_epu32(s1[l], s0[l], msg);
        msg = _mm_shuffle_epi32(msg, 0x0E);
        s0[l] = _mm_sha256rnds2_epu32(s0[l], s1[l], msg);
      }
    }
    for (int l = 0; l < STREAMS; l++) {
      if (lo + l >= lo_to) break;
      const __m128i abef = _mm_add_epi32(s0[l], abef0);
      const uint32_t h0 = (uint32_t)_mm_extract_epi32(abef, 3);
      const uint32_t h1 = (uint32_t)_mm_extract_epi32(abef, 2);
      if ((h0 & mask0) == 0 && (h1 & mask1) == 0) return (int64_t)(lo + l);
    }
  }
  return -1;
}
#endif

static int sha_ni(void) {
#ifdef HAVE_X86
  __builtin_cpu_init();
  return __builtin_cpu_supports("sha") && __builtin_cpu_supports("sse4.1");
#else
  return 0;
#endif
}

static napi_value fail(napi_env env, const char *message) {
  napi_throw_type_error(env, NULL, message);
  return NULL;
}

static napi_value scan(napi_env env, napi_callback_info info) {
  size_t argc = 8;
  napi_value argv[8];
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc != 8) {
    return fail(env, "scan takes 8 arguments");
  }
  napi_typedarray_type type;
  size_t length;
  void *data;
  if (napi_get_typedarray_info(env, argv[0], &type, &length, &data, NULL, NULL) != napi_ok ||
      type != napi_int32_array || length != 8) {
    return fail(env, "midstate must be an Int32Array of 8 words");
  }
  int32_t w[5];
  const int slots[5] = {1, 2, 3, 6, 7};
  for (int i = 0; i < 5; i++) {
    if (napi_get_value_int32(env, argv[slots[i]], &w[i]) != napi_ok) return fail(env, "words must be numbers");
  }
  double lo_from, lo_to;
  if (napi_get_value_double(env, argv[4], &lo_from) != napi_ok ||
      napi_get_value_double(env, argv[5], &lo_to) != napi_ok || !(lo_from >= 0) || !(lo_to <= 4294967296.0)) {
    return fail(env, "bad lo range");
  }
  int64_t found = -1;
#ifdef HAVE_X86
  if (!sha_ni()) return fail(env, "this CPU has no SHA extensions");
  uint32_t mid[8];
  for (int i = 0; i < 8; i++) mid[i] = (uint32_t)((const int32_t *)data)[i];
  found = scan_sha(mid, (uint32_t)w[0], (uint32_t)w[1], (uint32_t)w[2], (uint64_t)lo_from, (uint64_t)lo_to,
                   (uint32_t)w[3], (uint32_t)w[4]);
#else
  return fail(env, "no SHA extensions on this architecture");
#endif
  napi_value out;
  napi_create_double(env, (double)found, &out);
  return out;
}

NAPI_MODULE_INIT() {
  napi_value fn, flag;
  napi_create_function(env, "scan", NAPI_AUTO_LENGTH, scan, NULL, &fn);
  napi_set_named_property(env, exports, "scan", fn);
  napi_get_boolean(env, sha_ni(), &flag);
  napi_set_named_property(env, exports, "shaNi", flag);
  return exports;
}
