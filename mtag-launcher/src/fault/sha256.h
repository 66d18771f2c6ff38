/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sha256.h -- SHA-256 (FIPS 180-4), for a fault's bug signature (bugid.h).
 *
 * Neither libsystemd nor libc has one, and the signature needs no more than
 * a well-known hash of a few hundred bytes: this is the textbook
 * algorithm, written after FIPS 180-4 as the public-domain
 * implementations (Brad Conte's crypto-algorithms, the one in musl's
 * crypt) are, checked against the FIPS test vectors and sha256sum(1)
 * (mtag-launcher/src/fault/test-bugid.c).  Not for secrets: no constant-time care.
 */
#ifndef MTAG_SHA256_H
#define MTAG_SHA256_H

#include <stddef.h>
#include <stdint.h>

struct sha256 {
	uint32_t h[8];
	uint64_t bytes;       /* message length so far */
	uint8_t block[64];
	size_t n;             /* bytes in block */
};

void sha256_init(struct sha256 *s);
void sha256_update(struct sha256 *s, const void *data, size_t len);
void sha256_final(struct sha256 *s, uint8_t out[32]);

/* The digest of DATA as 64 lowercase hex digits and a NUL. */
void sha256_hex(const void *data, size_t len, char out[65]);

#endif
