/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

#ifndef AF_XDP_BPF_ABI_H
#define AF_XDP_BPF_ABI_H

/*
 * What the built-in XDP programs (bpf/af_xdp_redirect.bpf.c) and the driver
 * (af_xdp_builtin.c) agree on.  Included by both, so it uses nothing but the C
 * language and the kernel's UAPI types: no DPDK, no libbpf.
 */

#include <linux/types.h>

/*
 * The helper number compiled into afxdp_direct's call of bpf_redirect_xsk();
 * the driver replaces it by the running kernel's BPF_FUNC_redirect_xsk
 * before load.  Far above any real helper number, so that it cannot be one.
 */
#define AF_XDP_REDIRECT_XSK_PLACEHOLDER 0x7fffa5a5

/* Keys of afxdp_direct's counters of the frames that did not go straight to a socket. */
enum af_xdp_fallback {
	AF_XDP_FALLBACK_VIA_MAP,	/* through the XSKMAP: not one socket on the queue */
	AF_XDP_FALLBACK_PASSED,		/* to the kernel stack: no socket on the queue */
	AF_XDP_FALLBACK_MAX,
};

/*
 * The owner mark: which process loaded this copy of a built-in program.
 * The driver sets it before load (a .rodata global, which libbpf binds to
 * the program) and reads it back from a program it finds attached, to tell
 * its own program left behind by a process that died (SIGKILL, OOM), which
 * it replaces, from one a live process still uses, which it leaves alone.
 * The process is named by its pid and start time, so that a reused pid is
 * not taken for the owner, within its PID namespace.  The bpf_metadata_
 * prefix makes `bpftool prog show` print it.
 */
#define AF_XDP_OWNER_VAR	"bpf_metadata_afxdp_owner"
#define AF_XDP_OWNER_MAGIC	0x61665f7864705f31ULL	/* "af_xdp_1": this layout */

struct af_xdp_owner {
	__u64 magic;		/* AF_XDP_OWNER_MAGIC; 0 in the object as built */
	__u64 start_time;	/* clock ticks after boot: /proc/<pid>/stat, field 22 */
	__u64 pid_ns;		/* inode of the PID namespace pid is in */
	__u32 pid;
	__u32 reserved;
};

/*
 * What the Rx-metadata programs (bpf/af_xdp_rx_meta.bpf.c) write in front
 * of every frame they redirect (bpf_xdp_adjust_meta): the values the
 * interface's XDP metadata kfuncs gave, laid out as the mbuf wants them, so
 * that the receive burst moves them with two loads and two stores
 * (af_xdp_rx.h).  The kernel copies the area into the UMEM right before the
 * frame.  Every field is written for every frame, 0 where the kfunc gave no
 * value, so bytes a previous user of the chunk left there are never taken
 * for values.  The size is a multiple of 4, as the kernel wants.
 */
#define AF_XDP_RX_META_HASH	(1u << 0)	/* rx_meta_want: call bpf_xdp_metadata_rx_hash() */
#define AF_XDP_RX_META_VLAN	(1u << 1)	/* call bpf_xdp_metadata_rx_vlan_tag() */
#define AF_XDP_RX_META_TIMESTAMP (1u << 2)	/* stamp with bpf_ktime_get_tai_ns() */
/* Put a tag the interface kept out of the frame back into it (no VLAN_STRIP). */
#define AF_XDP_RX_META_VLAN_INLINE (1u << 3)

struct af_xdp_rx_meta {
	/* CLOCK_TAI when the program ran, in ns: for the timestamp dynamic field. */
	__u64 timestamp;
	/*
	 * The mbuf's Rx flags for the values present: the program ORs in the
	 * flag values the driver set before load (rx_ol_rss_hash, rx_ol_vlan),
	 * and the driver masks the word with them again.
	 */
	__u64 ol_flags;
	/* The mbuf's data_len, vlan_tci, hash.rss, in their order: one 8-byte move. */
	__u16 zero;		/* 0: the driver ORs data_len in */
	__u16 vlan_tci;		/* bpf_xdp_metadata_rx_vlan_tag(), host order */
	__u32 hash;		/* bpf_xdp_metadata_rx_hash() */
};

#endif /* AF_XDP_BPF_ABI_H */
