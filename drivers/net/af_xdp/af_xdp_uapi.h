/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

#ifndef AF_XDP_UAPI_H
#define AF_XDP_UAPI_H

/*
 * The kernel's AF_XDP UAPI (include/uapi/linux/if_xdp.h, socket.h) as the
 * newest kernel the driver supports has it, where the headers it builds
 * against lack it (Debian 12's are Linux 6.1's): the kernel's values, each
 * probed at run time (a kernel without it refuses it, and the driver says
 * what that costs).  The one place for them.
 */

#include <stdint.h>
#include <sys/socket.h>

#include <linux/if_xdp.h>

/* The address family and socket level, for C library headers without them. */
#ifndef AF_XDP
#define AF_XDP 44
#endif
#ifndef SOL_XDP
#define SOL_XDP 283
#endif

/* Linux 6.6, multi-buffer: bind flag, and a frame continues in the next descriptor. */
#ifndef XDP_USE_SG
#define XDP_USE_SG (1 << 4)
#endif
#ifndef XDP_PKT_CONTD
#define XDP_PKT_CONTD (1 << 0)
#endif

/* Linux 6.8+, Tx metadata: its UMEM flag (6.11), descriptor option and checksum request. */
#ifndef XDP_UMEM_TX_METADATA_LEN
#define XDP_UMEM_TX_METADATA_LEN	(1 << 2)	/* 6.11+: tx_metadata_len is meant */
#endif
#ifndef XDP_TX_METADATA
#define XDP_TX_METADATA			(1 << 1)	/* descriptor option */
#endif
#ifndef XDP_TXMD_FLAGS_CHECKSUM
#define XDP_TXMD_FLAGS_CHECKSUM		(1 << 1)
#endif

/*
 * Linux 6.17: how many Tx descriptors one sendto() may send in copy mode
 * (SOL_XDP setsockopt, an unsigned int in [32, Tx ring size]; 32 unless
 * set; write-only: getsockopt does not read it back).  Earlier kernels
 * say ENOPROTOOPT.
 */
#ifndef XDP_MAX_TX_SKB_BUDGET
#define XDP_MAX_TX_SKB_BUDGET 9
#endif

/*
 * What XDP_UMEM_REG reads, field for field, as include/uapi/linux/if_xdp.h
 * of Linux 6.8 to 6.18 has it, with the padding of older headers named:
 * Debian 12's header (6.1) ends at flags, and its 4 bytes of trailing
 * padding are where 6.8+ reads tx_metadata_len (6.8-6.10 use it even
 * without XDP_UMEM_TX_METADATA_LEN, the flag 6.11 added to ask for it), so
 * a pad left uninitialised reserves Tx metadata in every chunk or fails
 * the registration with EINVAL.  Fill it whole, from zero.
 *
 * Its size is the one to pass, on every kernel: each copies its own
 * struct's size when optlen reaches it and only the first four fields
 * (addr to headroom, 24 bytes) when optlen is shorter, and from 5.4, which
 * added flags, to 6.18 that struct is 32 bytes (flags plus padding, then
 * flags plus tx_metadata_len).  So no kernel refuses 32 bytes, and a
 * shorter struct would not fall back gracefully: it would drop flags, and
 * with it the unaligned chunks the UMEM is made of.
 */
struct af_xdp_umem_reg {
	uint64_t addr;			/* start of the area */
	uint64_t len;			/* its length */
	uint32_t chunk_size;
	uint32_t headroom;		/* the kernel's headroom before each frame */
	uint32_t flags;			/* XDP_UMEM_*, 5.4+ */
	uint32_t tx_metadata_len;	/* Tx metadata before each frame, 6.8+ */
};

/* The kernel's own budget per sendto() in copy mode, and the least it takes. */
#define AF_XDP_KERNEL_TX_BUDGET 32

#endif /* AF_XDP_UAPI_H */
