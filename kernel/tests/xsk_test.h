/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Helpers shared by the patched-kernel tests and the benchmark: feature
 * detection through the running kernel's BTF, small XDP programs written as
 * raw instructions (so that the new helper's number comes from BTF, never
 * from a header), AF_XDP sockets and their rings, test frames.
 */
#ifndef XSK_TEST_H
#define XSK_TEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/bpf.h>
#include <linux/if_xdp.h>

/* Older libc headers lack them. */
#ifndef SOL_XDP
#define SOL_XDP 283
#endif
#ifndef AF_XDP
#define AF_XDP 44
#endif

/* Exit status of a test that cannot run here (meson: skipped). */
#define EXIT_SKIP 77

#define MSG(...) fprintf(stderr, __VA_ARGS__)

/* --- the feature, from /sys/kernel/btf/vmlinux ------------------------ */

struct xdt_feature {
	int func_redirect_xsk;	/* enum bpf_func_id: BPF_FUNC_redirect_xsk */
	int act_redirect_xsk;	/* enum xdp_action: XDP_REDIRECT_XSK */
};

/* 0 when the running kernel has both; otherwise -errno and *why says what is
 * missing.
 */
int xdt_feature_probe(struct xdt_feature *f, const char **why);

/* --- XDP programs ------------------------------------------------------- */

enum xdt_prog_kind {
	XDT_PROG_MAP,	/* bpf_redirect_map(xskmap, rx_queue_index, flags) */
	XDT_PROG_XSK,	/* bpf_redirect_xsk(ctx, xskmap, rx_queue_index, flags) */
};

/*
 * Load a redirect program of @kind using @map_fd; @flags is the helper's
 * last argument (XDP_PASS: the action when the map has no socket for the
 * queue). With @only_test_frames,
 * frames that are not test frames (xdt_frame_*) get XDP_PASS without a
 * redirect. The helper number is @feature's. Returns a program fd or -errno;
 * the verifier's log goes to stderr on failure unless @quiet.
 */
int xdt_prog_redirect(enum xdt_prog_kind kind, int map_fd, int flags,
		      const struct xdt_feature *feature, bool only_test_frames,
		      enum bpf_attach_type attach_type, bool quiet);

/* How a program keyed by the test frame picks its XSKMAP entry */
enum xdt_key {
	XDT_KEY_PARITY,		/* the frame's sequence number & 1 */
	XDT_KEY_SWITCH,		/* 0 below a sequence number, 1 from it on */
};

/*
 * bpf_redirect_map(xskmap, key, XDP_PASS) for test frames, the key picked
 * from the frame's sequence number as @key says (@switch_at: where
 * XDT_KEY_SWITCH changes); other frames get XDP_PASS.
 */
int xdt_prog_redirect_by_seq(int map_fd, enum xdt_key key, uint32_t switch_at);

/*
 * bpf_redirect_map(xskmap, n & 1, XDP_PASS) where n counts the frames the
 * program saw, in the first u64 of the ARRAY @counter_fd: consecutive frames
 * alternate between entries 0 and 1 even when they are all alike.
 */
int xdt_prog_redirect_alternating(int map_fd, int counter_fd);

/* An ARRAY of one u64, for xdt_prog_redirect_alternating(). */
int xdt_counter_create(void);

/*
 * The generator of numbered frames: in BPF_PROG_RUN live-frames mode it
 * writes the next sequence number (from the ARRAY @counter_fd) into each
 * test frame and redirects it to @ifindex.
 */
int xdt_prog_numbering_gen(int ifindex, int counter_fd);

/*
 * A slow receiver: @spin instructions of work per frame, then it counts the
 * test frames in the first u64 of the ARRAY @counter_fd and drops every frame.
 */
int xdt_prog_count_slow(int counter_fd, unsigned int spin);

/* A program that returns @action. */
int xdt_prog_return(int action);
/* The same, declared for frames of several buffers (veth then allows a
 * larger MTU on its peer).
 */
int xdt_prog_return_frags(int action);

/* A program that redirects every frame to @ifindex with bpf_redirect(). */
int xdt_prog_redirect_ifindex(int ifindex);

/* An XSKMAP of @entries entries, or -errno. */
int xdt_xskmap_create(unsigned int entries);

/* --- AF_XDP --------------------------------------------------------------- */

struct xdt_ring {
	uint32_t *producer;
	uint32_t *consumer;
	void *descs;
	uint32_t size;
	uint32_t mask;
	void *map;
	size_t map_len;
};

struct xdt_umem {
	void *area;
	size_t len;
	uint32_t frame_size;
	uint32_t nframes;
};

struct xdt_xsk {
	int fd;
	struct xdt_ring rx;
	struct xdt_ring fill;	/* only on the socket that registered the UMEM */
};

/* Anonymous memory for @nframes frames of @frame_size bytes. */
int xdt_umem_alloc(struct xdt_umem *umem, uint32_t nframes, uint32_t frame_size);
void xdt_umem_free(struct xdt_umem *umem);

/*
 * An AF_XDP socket with an Rx ring of @rx_size entries. With @umem it
 * registers that UMEM with fill and completion rings of @fill_size entries;
 * without, it is meant to share another socket's (xdt_xsk_bind with
 * @shared_fd). Not bound yet. Returns 0 or -errno.
 */
int xdt_xsk_open(struct xdt_xsk *xsk, const struct xdt_umem *umem,
		 uint32_t rx_size, uint32_t fill_size);
/* Bind to (ifindex, queue) in copy mode, or share @shared_fd's UMEM (>= 0). */
int xdt_xsk_bind(struct xdt_xsk *xsk, int ifindex, uint32_t queue, int shared_fd);
/* The same with the bind's mode flags (XDP_COPY, XDP_ZEROCOPY) as @mode. */
int xdt_xsk_bind_mode(struct xdt_xsk *xsk, int ifindex, uint32_t queue, int shared_fd,
		      uint16_t mode);
/* 1 when the bound socket is in zero-copy mode (XDP_OPTIONS), 0 if not, -errno. */
int xdt_xsk_zero_copy(const struct xdt_xsk *xsk);
/*
 * Map the fill ring of the buffer pool @xsk is bound to (a socket sharing
 * another's UMEM on the same queue reaches the pool's fill ring this way).
 */
int xdt_xsk_map_fill(struct xdt_xsk *xsk, uint32_t fill_size);
/* Unmap the rings and close: with no mapping left, the socket is released. */
void xdt_xsk_close(struct xdt_xsk *xsk);

/* Give the kernel frames @first .. @first + @n - 1 of the UMEM. */
uint32_t xdt_fill(struct xdt_ring *fill, const struct xdt_umem *umem,
		  uint32_t first, uint32_t n);
/* Give back addresses taken from an Rx ring. */
uint32_t xdt_fill_addrs(struct xdt_ring *fill, const uint64_t *addrs, uint32_t n);
/* Take up to @max descriptors from an Rx ring. */
uint32_t xdt_rx_take(struct xdt_ring *rx, struct xdp_desc *descs, uint32_t max);

/* The socket's statistics (XDP_STATISTICS), 0 or -errno. */
int xdt_xsk_stats(const struct xdt_xsk *xsk, struct xdp_statistics *st);

/* --- test frames ------------------------------------------------------------- */

#define XDT_ETHERTYPE	0x88b5		/* IEEE 802 local experimental */
#define XDT_FRAME_LEN	64

/* Write test frame @seq of run @run_id into @buf (XDT_FRAME_LEN bytes). */
void xdt_frame_build(uint8_t *buf, uint32_t run_id, uint32_t seq);
/* Whether @buf is a test frame of @run_id; its sequence number in *seq. */
bool xdt_frame_parse(const uint8_t *buf, uint32_t len, uint32_t run_id, uint32_t *seq);

/* --- misc ------------------------------------------------------------------- */

int xdt_ifindex(const char *ifname);
uint64_t xdt_now_ns(void);
int xdt_pin_cpu(int cpu);

#endif /* XSK_TEST_H */
