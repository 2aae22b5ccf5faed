/* sha256.h — SHA-256 (FIPS 180-4), for cache keys and entry checksums. */
#ifndef KF_UTILS_SHA256_H
#define KF_UTILS_SHA256_H

#include <stddef.h>
#include <stdint.h>

typedef struct Sha256 {
  uint32_t h[8];
  uint64_t total;         /* bytes hashed so far */
  unsigned char buf[64];  /* pending partial block */
  size_t nbuf;
} Sha256;

void sha256_init(Sha256 *s);
void sha256_update(Sha256 *s, const void *data, size_t n);
void sha256_final(Sha256 *s, unsigned char out[32]);
/* One-shot digest of a buffer. */
void sha256(const void *data, size_t n, unsigned char out[32]);
/* Lower-case hex of n bytes into out (2n + 1 bytes with the NUL). */
void hex_encode(const unsigned char *bytes, size_t n, char *out);

#endif
