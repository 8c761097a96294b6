/* On-disk layout of guest images (documented in target/image.h). */
#ifndef UP_IMAGE_FORMAT_H
#define UP_IMAGE_FORMAT_H

#include <stdint.h>
#include <string.h>
#include "target/image.h"

#define UP_IMAGE_VERSION 3
#define UP_IMAGE_HEADER_SIZE 24   /* magic 8 + 4 x u32 */
#define UP_IMAGE_VCPU_SIZE_V1 48  /* 4 x u64 + 4 x u32 */
#define UP_IMAGE_VCPU_SIZE_V2 80  /* v1 + 3 x u64 + 2 x u32 */
#define UP_IMAGE_VCPU_SIZE 96     /* v2 + 2 x u64 */
#define UP_IMAGE_FRAME_HDR 16     /* u64 number + u32 kind + u32 reserved */
#define UP_IMAGE_FRAME_SIZE (UP_IMAGE_FRAME_HDR + 4096)

#define UP_IMAGE_VCPU_ONLINE 1u
#define UP_IMAGE_VCPU_KERNEL 2u
#define UP_IMAGE_VCPU_BLOCKED 4u

static inline uint32_t up_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static inline uint64_t up_le64(const uint8_t *p)
{
	return (uint64_t)up_le32(p) | (uint64_t)up_le32(p + 4) << 32;
}

static inline void up_put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline void up_put64(uint8_t *p, uint64_t v)
{
	up_put32(p, (uint32_t)v);
	up_put32(p + 4, (uint32_t)(v >> 32));
}

#endif
