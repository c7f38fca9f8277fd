// SPDX-License-Identifier: BSD-3-Clause
/*
 * Helpers shared by the patched-kernel tests and the benchmark; see
 * xsk_test.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <net/if.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>

#include "xsk_test.h"

/* --- feature detection ------------------------------------------------ */

/* The value of enumerator @name of enum @type in @btf, or -ENOENT. */
static int btf_enum_value(const struct btf *btf, const char *type, const char *name,
			  int *value)
{
	const struct btf_enum *e;
	const struct btf_type *t;
	int id, i;

	id = btf__find_by_name_kind(btf, type, BTF_KIND_ENUM);
	if (id < 0)
		return -ENOENT;
	t = btf__type_by_id(btf, id);
	e = btf_enum(t);
	for (i = 0; i < btf_vlen(t); i++) {
		if (strcmp(btf__name_by_offset(btf, e[i].name_off), name) == 0) {
			*value = e[i].val;
			return 0;
		}
	}
	return -ENOENT;
}

int xdt_feature_probe(struct xdt_feature *f, const char **why)
{
	static const char path[] = "/sys/kernel/btf/vmlinux";
	struct btf *btf;
	int err;

	btf = btf__parse(path, NULL);
	if (!btf) {
		*why = "the kernel's BTF (/sys/kernel/btf/vmlinux) cannot be read";
		return -errno;
	}
	err = btf_enum_value(btf, "bpf_func_id", "BPF_FUNC_redirect_xsk",
			     &f->func_redirect_xsk);
	if (err) {
		*why = "BPF_FUNC_redirect_xsk is not in the kernel's enum bpf_func_id";
		goto out;
	}
	err = btf_enum_value(btf, "xdp_action", "XDP_REDIRECT_XSK", &f->act_redirect_xsk);
	if (err)
		*why = "XDP_REDIRECT_XSK is not in the kernel's enum xdp_action";
out:
	btf__free(btf);
	return err;
}

/* --- raw BPF instructions ------------------------------------------------ */

#define INSN(c, d, s, o, i) \
	((struct bpf_insn){ .code = (c), .dst_reg = (d), .src_reg = (s), .off = (o), .imm = (i) })
#define MOV64_REG(d, s)		INSN(BPF_ALU64 | BPF_MOV | BPF_X, d, s, 0, 0)
#define MOV64_IMM(d, i)		INSN(BPF_ALU64 | BPF_MOV | BPF_K, d, 0, 0, i)
#define ADD64_IMM(d, i)		INSN(BPF_ALU64 | BPF_ADD | BPF_K, d, 0, 0, i)
#define LDX_W(d, s, o)		INSN(BPF_LDX | BPF_MEM | BPF_W, d, s, o, 0)
#define LDX_H(d, s, o)		INSN(BPF_LDX | BPF_MEM | BPF_H, d, s, o, 0)
#define LDX_B(d, s, o)		INSN(BPF_LDX | BPF_MEM | BPF_B, d, s, o, 0)
#define LDX_DW(d, s, o)		INSN(BPF_LDX | BPF_MEM | BPF_DW, d, s, o, 0)
#define STX_W(d, s, o)		INSN(BPF_STX | BPF_MEM | BPF_W, d, s, o, 0)
#define STX_DW(d, s, o)		INSN(BPF_STX | BPF_MEM | BPF_DW, d, s, o, 0)
#define ST_W(d, o, i)		INSN(BPF_ST | BPF_MEM | BPF_W, d, 0, o, i)
#define AND64_IMM(d, i)		INSN(BPF_ALU64 | BPF_AND | BPF_K, d, 0, 0, i)
#define TO_BE32(d)		INSN(BPF_ALU | BPF_END | BPF_TO_BE, d, 0, 0, 32)
#define JLT_IMM(d, i, o)	INSN(BPF_JMP | BPF_JLT | BPF_K, d, 0, o, i)
#define JEQ_IMM(d, i, o)	INSN(BPF_JMP | BPF_JEQ | BPF_K, d, 0, o, i)
#define JGT_REG(d, s, o)	INSN(BPF_JMP | BPF_JGT | BPF_X, d, s, o, 0)
#define JNE_IMM(d, i, o)	INSN(BPF_JMP | BPF_JNE | BPF_K, d, 0, o, i)
#define CALL(id)		INSN(BPF_JMP | BPF_CALL, 0, 0, 0, id)
#define EXIT()			INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)
/* A map fd as a 64-bit immediate: two instructions, the second all zero */
#define LD_MAP_FD(d, fd)	INSN(BPF_LD | BPF_DW | BPF_IMM, d, BPF_PSEUDO_MAP_FD, 0, fd)
#define LD_IMM64_HIGH()		INSN(0, 0, 0, 0, 0)

static int prog_load_flags(const struct bpf_insn *insns, size_t n,
			   enum bpf_attach_type attach_type, bool quiet, __u32 prog_flags)
{
	static char log[16384];
	LIBBPF_OPTS(bpf_prog_load_opts, opts,
		.expected_attach_type = attach_type,
		.prog_flags = prog_flags,
		.log_buf = quiet ? NULL : log,
		.log_size = quiet ? 0 : sizeof(log),
		.log_level = quiet ? 0 : 1);
	int fd;

	log[0] = '\0';
	fd = bpf_prog_load(BPF_PROG_TYPE_XDP, "xdt_prog", "GPL", insns, n, &opts);
	if (fd < 0 && !quiet)
		MSG("program load failed: %s\n%s", strerror(-fd), log);
	return fd;
}

static int prog_load(const struct bpf_insn *insns, size_t n,
		     enum bpf_attach_type attach_type, bool quiet)
{
	return prog_load_flags(insns, n, attach_type, quiet, 0);
}

int xdt_prog_redirect(enum xdt_prog_kind kind, int map_fd, int flags,
		      const struct xdt_feature *feature, bool only_test_frames,
		      enum bpf_attach_type attach_type, bool quiet)
{
	struct bpf_insn insns[32];
	size_t n = 0, jump_len, jump_type;

	insns[n++] = MOV64_REG(BPF_REG_6, BPF_REG_1);
	if (only_test_frames) {
		/* if (data + 14 > data_end || eth->h_proto != XDT_ETHERTYPE) pass */
		insns[n++] = LDX_W(BPF_REG_2, BPF_REG_6, offsetof(struct xdp_md, data));
		insns[n++] = LDX_W(BPF_REG_3, BPF_REG_6, offsetof(struct xdp_md, data_end));
		insns[n++] = MOV64_REG(BPF_REG_4, BPF_REG_2);
		insns[n++] = ADD64_IMM(BPF_REG_4, 14);
		jump_len = n;
		insns[n++] = JGT_REG(BPF_REG_4, BPF_REG_3, 0);
		insns[n++] = LDX_H(BPF_REG_5, BPF_REG_2, 12);
		jump_type = n;
		insns[n++] = JNE_IMM(BPF_REG_5, htons(XDT_ETHERTYPE), 0);
	}
	if (kind == XDT_PROG_XSK) {
		/* bpf_redirect_xsk(ctx, map, ctx->rx_queue_index, flags) */
		insns[n++] = LDX_W(BPF_REG_3, BPF_REG_6, offsetof(struct xdp_md, rx_queue_index));
		insns[n++] = MOV64_REG(BPF_REG_1, BPF_REG_6);
		insns[n++] = LD_MAP_FD(BPF_REG_2, map_fd);
		insns[n++] = LD_IMM64_HIGH();
		insns[n++] = MOV64_IMM(BPF_REG_4, flags);
		insns[n++] = CALL(feature->func_redirect_xsk);
	} else {
		/* bpf_redirect_map(map, ctx->rx_queue_index, flags) */
		insns[n++] = LDX_W(BPF_REG_2, BPF_REG_6, offsetof(struct xdp_md, rx_queue_index));
		insns[n++] = LD_MAP_FD(BPF_REG_1, map_fd);
		insns[n++] = LD_IMM64_HIGH();
		insns[n++] = MOV64_IMM(BPF_REG_3, flags);
		insns[n++] = CALL(BPF_FUNC_redirect_map);
	}
	insns[n++] = EXIT();
	if (only_test_frames) {
		insns[jump_len].off = n - jump_len - 1;
		insns[jump_type].off = n - jump_type - 1;
		insns[n++] = MOV64_IMM(BPF_REG_0, XDP_PASS);
		insns[n++] = EXIT();
	}
	return prog_load(insns, n, attach_type, quiet);
}

/* The frame's sequence number: offset and length of the test frame */
#define SEQ_OFF		26
#define SEQ_END		30

/* Append "r2 = data; if (data + SEQ_END > data_end || not a test frame)
 * goto pass", with r6 = ctx; the jumps to patch are in *jumps.
 */
static size_t emit_test_frame_check(struct bpf_insn *insns, size_t n, size_t jumps[2])
{
	insns[n++] = LDX_W(BPF_REG_2, BPF_REG_6, offsetof(struct xdp_md, data));
	insns[n++] = LDX_W(BPF_REG_3, BPF_REG_6, offsetof(struct xdp_md, data_end));
	insns[n++] = MOV64_REG(BPF_REG_4, BPF_REG_2);
	insns[n++] = ADD64_IMM(BPF_REG_4, SEQ_END);
	jumps[0] = n;
	insns[n++] = JGT_REG(BPF_REG_4, BPF_REG_3, 0);
	insns[n++] = LDX_H(BPF_REG_5, BPF_REG_2, 12);
	jumps[1] = n;
	insns[n++] = JNE_IMM(BPF_REG_5, htons(XDT_ETHERTYPE), 0);
	return n;
}

/* Append "return @action" and point the jumps at it. */
static size_t emit_jump_target_return(struct bpf_insn *insns, size_t n, const size_t *jumps,
				      size_t njumps, int action)
{
	size_t i;

	for (i = 0; i < njumps; i++)
		insns[jumps[i]].off = n - jumps[i] - 1;
	insns[n++] = MOV64_IMM(BPF_REG_0, action);
	insns[n++] = EXIT();
	return n;
}

/* Append "return bpf_redirect_map(map, r2, XDP_PASS)". */
static size_t emit_redirect_map(struct bpf_insn *insns, size_t n, int map_fd)
{
	insns[n++] = LD_MAP_FD(BPF_REG_1, map_fd);
	insns[n++] = LD_IMM64_HIGH();
	insns[n++] = MOV64_IMM(BPF_REG_3, XDP_PASS);
	insns[n++] = CALL(BPF_FUNC_redirect_map);
	insns[n++] = EXIT();
	return n;
}

int xdt_prog_redirect_by_seq(int map_fd, enum xdt_key key, uint32_t switch_at)
{
	struct bpf_insn insns[32];
	size_t n = 0, jumps[2];

	insns[n++] = MOV64_REG(BPF_REG_6, BPF_REG_1);
	n = emit_test_frame_check(insns, n, jumps);
	if (key == XDT_KEY_PARITY) {
		/* the low byte of the big-endian number */
		insns[n++] = LDX_B(BPF_REG_2, BPF_REG_2, SEQ_END - 1);
		insns[n++] = AND64_IMM(BPF_REG_2, 1);
	} else {
		insns[n++] = LDX_W(BPF_REG_5, BPF_REG_2, SEQ_OFF);
		insns[n++] = TO_BE32(BPF_REG_5);
		insns[n++] = MOV64_IMM(BPF_REG_2, 0);
		insns[n++] = JLT_IMM(BPF_REG_5, (int32_t)switch_at, 1);
		insns[n++] = MOV64_IMM(BPF_REG_2, 1);
	}
	n = emit_redirect_map(insns, n, map_fd);
	n = emit_jump_target_return(insns, n, jumps, 2, XDP_PASS);
	return prog_load(insns, n, BPF_XDP, false);
}

/* Append "r0 = &counter[0]; if (!r0) goto pass", the jump in *jump. */
static size_t emit_counter_lookup(struct bpf_insn *insns, size_t n, int counter_fd,
				  size_t *jump)
{
	insns[n++] = ST_W(BPF_REG_10, -4, 0);
	insns[n++] = MOV64_REG(BPF_REG_2, BPF_REG_10);
	insns[n++] = ADD64_IMM(BPF_REG_2, -4);
	insns[n++] = LD_MAP_FD(BPF_REG_1, counter_fd);
	insns[n++] = LD_IMM64_HIGH();
	insns[n++] = CALL(BPF_FUNC_map_lookup_elem);
	*jump = n;
	insns[n++] = JEQ_IMM(BPF_REG_0, 0, 0);
	return n;
}

int xdt_prog_redirect_alternating(int map_fd, int counter_fd)
{
	struct bpf_insn insns[32];
	size_t n = 0, jump;

	n = emit_counter_lookup(insns, n, counter_fd, &jump);
	/* r2 = (*r0)++ & 1 */
	insns[n++] = LDX_DW(BPF_REG_2, BPF_REG_0, 0);
	insns[n++] = MOV64_REG(BPF_REG_3, BPF_REG_2);
	insns[n++] = ADD64_IMM(BPF_REG_3, 1);
	insns[n++] = STX_DW(BPF_REG_0, BPF_REG_3, 0);
	insns[n++] = AND64_IMM(BPF_REG_2, 1);
	n = emit_redirect_map(insns, n, map_fd);
	n = emit_jump_target_return(insns, n, &jump, 1, XDP_PASS);
	return prog_load(insns, n, BPF_XDP, false);
}

int xdt_counter_create(void)
{
	return bpf_map_create(BPF_MAP_TYPE_ARRAY, "xdt_counter", sizeof(uint32_t),
			      sizeof(uint64_t), 1, NULL);
}

int xdt_prog_numbering_gen(int ifindex, int counter_fd)
{
	struct bpf_insn insns[40];
	size_t n = 0, jumps[3];

	insns[n++] = MOV64_REG(BPF_REG_6, BPF_REG_1);
	n = emit_counter_lookup(insns, n, counter_fd, &jumps[0]);
	/* r7 = (*r0)++ */
	insns[n++] = LDX_DW(BPF_REG_7, BPF_REG_0, 0);
	insns[n++] = MOV64_REG(BPF_REG_3, BPF_REG_7);
	insns[n++] = ADD64_IMM(BPF_REG_3, 1);
	insns[n++] = STX_DW(BPF_REG_0, BPF_REG_3, 0);
	n = emit_test_frame_check(insns, n, &jumps[1]);
	/* r2: the frame's data */
	insns[n++] = TO_BE32(BPF_REG_7);
	insns[n++] = STX_W(BPF_REG_2, BPF_REG_7, SEQ_OFF);
	/* return bpf_redirect(ifindex, 0) */
	insns[n++] = MOV64_IMM(BPF_REG_1, ifindex);
	insns[n++] = MOV64_IMM(BPF_REG_2, 0);
	insns[n++] = CALL(BPF_FUNC_redirect);
	insns[n++] = EXIT();
	/* not a test frame: not sent */
	n = emit_jump_target_return(insns, n, jumps, 3, XDP_DROP);
	return prog_load(insns, n, BPF_XDP, false);
}

int xdt_prog_count_slow(int counter_fd, unsigned int spin)
{
	size_t n = 0, jumps[3], i;
	struct bpf_insn *insns;
	int fd;

	insns = calloc(spin + 32, sizeof(*insns));
	if (!insns)
		return -ENOMEM;
	insns[n++] = MOV64_REG(BPF_REG_6, BPF_REG_1);
	/* The work: straight-line, so that the verifier has no loop to prove */
	insns[n++] = MOV64_IMM(BPF_REG_7, 0);
	for (i = 0; i < spin; i++)
		insns[n++] = ADD64_IMM(BPF_REG_7, 1);
	n = emit_test_frame_check(insns, n, jumps);
	n = emit_counter_lookup(insns, n, counter_fd, &jumps[2]);
	/* (*r0)++: one receive queue, polled on one CPU at a time */
	insns[n++] = LDX_DW(BPF_REG_3, BPF_REG_0, 0);
	insns[n++] = ADD64_IMM(BPF_REG_3, 1);
	insns[n++] = STX_DW(BPF_REG_0, BPF_REG_3, 0);
	n = emit_jump_target_return(insns, n, jumps, 3, XDP_DROP);
	/* Its verifier log would not fit the buffer (ENOSPC): none */
	fd = prog_load(insns, n, BPF_XDP, true);
	if (fd < 0)
		MSG("loading the slow receiver: %s\n", strerror(-fd));
	free(insns);
	return fd;
}

int xdt_prog_return(int action)
{
	const struct bpf_insn insns[] = {
		MOV64_IMM(BPF_REG_0, action),
		EXIT(),
	};

	return prog_load(insns, 2, BPF_XDP, false);
}

int xdt_prog_return_frags(int action)
{
	const struct bpf_insn insns[] = {
		MOV64_IMM(BPF_REG_0, action),
		EXIT(),
	};

	return prog_load_flags(insns, 2, BPF_XDP, false, BPF_F_XDP_HAS_FRAGS);
}

int xdt_prog_redirect_ifindex(int ifindex)
{
	const struct bpf_insn insns[] = {
		MOV64_IMM(BPF_REG_1, ifindex),
		MOV64_IMM(BPF_REG_2, 0),
		CALL(BPF_FUNC_redirect),
		EXIT(),
	};

	return prog_load(insns, 4, BPF_XDP, false);
}

int xdt_xskmap_create(unsigned int entries)
{
	return bpf_map_create(BPF_MAP_TYPE_XSKMAP, "xdt_xsks", sizeof(uint32_t),
			      sizeof(uint32_t), entries, NULL);
}

/* --- AF_XDP ------------------------------------------------------------------- */

int xdt_umem_alloc(struct xdt_umem *umem, uint32_t nframes, uint32_t frame_size)
{
	umem->len = (size_t)nframes * frame_size;
	umem->area = mmap(NULL, umem->len, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (umem->area == MAP_FAILED) {
		umem->area = NULL;
		return -errno;
	}
	umem->frame_size = frame_size;
	umem->nframes = nframes;
	return 0;
}

void xdt_umem_free(struct xdt_umem *umem)
{
	if (umem->area)
		munmap(umem->area, umem->len);
	umem->area = NULL;
}

static int ring_map(int fd, struct xdt_ring *r, const struct xdp_ring_offset *off,
		    uint32_t size, size_t desc_size, off_t pgoff)
{
	r->map_len = off->desc + size * desc_size;
	r->map = mmap(NULL, r->map_len, PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_POPULATE, fd, pgoff);
	if (r->map == MAP_FAILED) {
		r->map = NULL;
		return -errno;
	}
	r->producer = (uint32_t *)((char *)r->map + off->producer);
	r->consumer = (uint32_t *)((char *)r->map + off->consumer);
	r->descs = (char *)r->map + off->desc;
	r->size = size;
	r->mask = size - 1;
	return 0;
}

static int setsockopt_u32(int fd, int opt, uint32_t value)
{
	return setsockopt(fd, SOL_XDP, opt, &value, sizeof(value)) ? -errno : 0;
}

int xdt_xsk_open(struct xdt_xsk *xsk, const struct xdt_umem *umem,
		 uint32_t rx_size, uint32_t fill_size)
{
	struct xdp_mmap_offsets off;
	socklen_t len = sizeof(off);
	int err;

	memset(xsk, 0, sizeof(*xsk));
	xsk->fd = socket(AF_XDP, SOCK_RAW, 0);
	if (xsk->fd < 0)
		return -errno;

	if (umem) {
		struct xdp_umem_reg reg = {
			.addr = (uintptr_t)umem->area,
			.len = umem->len,
			.chunk_size = umem->frame_size,
			.headroom = 0,
		};

		if (setsockopt(xsk->fd, SOL_XDP, XDP_UMEM_REG, &reg, sizeof(reg))) {
			err = -errno;
			goto fail;
		}
		err = setsockopt_u32(xsk->fd, XDP_UMEM_FILL_RING, fill_size);
		if (!err)
			err = setsockopt_u32(xsk->fd, XDP_UMEM_COMPLETION_RING, fill_size);
		if (err)
			goto fail;
	}
	err = setsockopt_u32(xsk->fd, XDP_RX_RING, rx_size);
	if (err)
		goto fail;

	if (getsockopt(xsk->fd, SOL_XDP, XDP_MMAP_OFFSETS, &off, &len)) {
		err = -errno;
		goto fail;
	}
	err = ring_map(xsk->fd, &xsk->rx, &off.rx, rx_size, sizeof(struct xdp_desc),
		       XDP_PGOFF_RX_RING);
	if (!err && umem)
		err = ring_map(xsk->fd, &xsk->fill, &off.fr, fill_size, sizeof(uint64_t),
			       XDP_UMEM_PGOFF_FILL_RING);
	if (err)
		goto fail;
	return 0;
fail:
	xdt_xsk_close(xsk);
	return err;
}

int xdt_xsk_map_fill(struct xdt_xsk *xsk, uint32_t fill_size)
{
	struct xdp_mmap_offsets off;
	socklen_t len = sizeof(off);

	if (getsockopt(xsk->fd, SOL_XDP, XDP_MMAP_OFFSETS, &off, &len))
		return -errno;
	return ring_map(xsk->fd, &xsk->fill, &off.fr, fill_size, sizeof(uint64_t),
			XDP_UMEM_PGOFF_FILL_RING);
}

int xdt_xsk_bind_mode(struct xdt_xsk *xsk, int ifindex, uint32_t queue, int shared_fd,
		      uint16_t mode)
{
	struct sockaddr_xdp sxdp = {
		.sxdp_family = AF_XDP,
		.sxdp_ifindex = ifindex,
		.sxdp_queue_id = queue,
	};

	if (shared_fd >= 0) {
		sxdp.sxdp_flags = XDP_SHARED_UMEM;
		sxdp.sxdp_shared_umem_fd = shared_fd;
	} else {
		sxdp.sxdp_flags = mode;
	}
	return bind(xsk->fd, (struct sockaddr *)&sxdp, sizeof(sxdp)) ? -errno : 0;
}

int xdt_xsk_bind(struct xdt_xsk *xsk, int ifindex, uint32_t queue, int shared_fd)
{
	return xdt_xsk_bind_mode(xsk, ifindex, queue, shared_fd, XDP_COPY);
}

int xdt_xsk_zero_copy(const struct xdt_xsk *xsk)
{
	struct xdp_options opts = { 0 };
	socklen_t len = sizeof(opts);

	if (getsockopt(xsk->fd, SOL_XDP, XDP_OPTIONS, &opts, &len))
		return -errno;
	return !!(opts.flags & XDP_OPTIONS_ZEROCOPY);
}

void xdt_xsk_close(struct xdt_xsk *xsk)
{
	if (xsk->rx.map)
		munmap(xsk->rx.map, xsk->rx.map_len);
	if (xsk->fill.map)
		munmap(xsk->fill.map, xsk->fill.map_len);
	if (xsk->fd >= 0)
		close(xsk->fd);
	memset(xsk, 0, sizeof(*xsk));
	xsk->fd = -1;
}

/*
 * Ring protocol (see the kernel's net/xdp/xsk_queue.h): a consumer loads the
 * producer index with acquire semantics before reading entries and stores
 * its consumer index with release semantics after; a producer loads the
 * consumer index, writes entries, then stores its producer index with
 * release semantics.
 */
uint32_t xdt_fill_addrs(struct xdt_ring *fill, const uint64_t *addrs, uint32_t n)
{
	uint32_t prod = *fill->producer;
	uint32_t cons = __atomic_load_n(fill->consumer, __ATOMIC_ACQUIRE);
	uint32_t room = fill->size - (prod - cons), i;
	uint64_t *ring = fill->descs;

	if (n > room)
		n = room;
	for (i = 0; i < n; i++)
		ring[(prod + i) & fill->mask] = addrs[i];
	__atomic_store_n(fill->producer, prod + n, __ATOMIC_RELEASE);
	return n;
}

uint32_t xdt_fill(struct xdt_ring *fill, const struct xdt_umem *umem,
		  uint32_t first, uint32_t n)
{
	uint64_t addrs[256];
	uint32_t done = 0, chunk, i;

	while (done < n) {
		chunk = n - done < 256 ? n - done : 256;
		for (i = 0; i < chunk; i++)
			addrs[i] = (uint64_t)(first + done + i) * umem->frame_size;
		i = xdt_fill_addrs(fill, addrs, chunk);
		done += i;
		if (i < chunk)
			break;
	}
	return done;
}

uint32_t xdt_rx_take(struct xdt_ring *rx, struct xdp_desc *descs, uint32_t max)
{
	uint32_t cons = *rx->consumer;
	uint32_t prod = __atomic_load_n(rx->producer, __ATOMIC_ACQUIRE);
	uint32_t n = prod - cons, i;
	const struct xdp_desc *ring = rx->descs;

	if (n > max)
		n = max;
	for (i = 0; i < n; i++)
		descs[i] = ring[(cons + i) & rx->mask];
	__atomic_store_n(rx->consumer, cons + n, __ATOMIC_RELEASE);
	return n;
}

int xdt_xsk_stats(const struct xdt_xsk *xsk, struct xdp_statistics *st)
{
	socklen_t len = sizeof(*st);

	return getsockopt(xsk->fd, SOL_XDP, XDP_STATISTICS, st, &len) ? -errno : 0;
}

/* --- test frames --------------------------------------------------------------- */

static const uint8_t frame_magic[8] = { 'A', 'F', 'X', 'D', 'P', 'T', 'S', 'T' };

void xdt_frame_build(uint8_t *buf, uint32_t run_id, uint32_t seq)
{
	uint16_t type = htons(XDT_ETHERTYPE);
	uint32_t v;

	memset(buf, 0, XDT_FRAME_LEN);
	memset(buf, 0xff, 6);				/* broadcast */
	memcpy(buf + 6, "\x02\x00\x00\x00\x00\x01", 6);	/* local unicast */
	memcpy(buf + 12, &type, 2);
	memcpy(buf + 14, frame_magic, sizeof(frame_magic));
	v = htonl(run_id);
	memcpy(buf + 22, &v, 4);
	v = htonl(seq);
	memcpy(buf + 26, &v, 4);
}

bool xdt_frame_parse(const uint8_t *buf, uint32_t len, uint32_t run_id, uint32_t *seq)
{
	uint16_t type;
	uint32_t v;

	if (len < 30)
		return false;
	memcpy(&type, buf + 12, 2);
	if (type != htons(XDT_ETHERTYPE) || memcmp(buf + 14, frame_magic, sizeof(frame_magic)))
		return false;
	memcpy(&v, buf + 22, 4);
	if (ntohl(v) != run_id)
		return false;
	memcpy(&v, buf + 26, 4);
	*seq = ntohl(v);
	return true;
}

/* --- misc ----------------------------------------------------------------------- */

int xdt_ifindex(const char *ifname)
{
	unsigned int i = if_nametoindex(ifname);

	return i ? (int)i : -errno;
}

uint64_t xdt_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

int xdt_pin_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) ? -errno : 0;
}
